//! The viewer in a real headless browser (Debian's chromium and
//! chromium-driver; `.ci/run` installs them and sets
//! `OCEANSIM_REQUIRE_BROWSER=1`, elsewhere the test says it skipped):
//! `oceansim serve --viewer` draws the AUV, follows it when a client drives
//! it, and pauses the simulator and sets its time scale from the page; a
//! 1,000-entity swarm streams to the same page. Screenshots and the
//! measured update rates go to `$CARGO_TARGET_TMPDIR/viewer/`.

#[path = "support/webdriver.rs"]
pub(crate) mod webdriver;

use crate::common::{v3, Client, KillOnDrop};
use oceansim_viewer::{Mode, SwarmView, Viewer, ViewerConfig};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};
use webdriver::Browser;

pub(crate) const WAIT: Duration = Duration::from_secs(45);

pub(crate) fn browser_or_skip() -> Option<Browser> {
    let b = Browser::start();
    if b.is_none() {
        assert!(
            std::env::var_os("OCEANSIM_REQUIRE_BROWSER").is_none(),
            "OCEANSIM_REQUIRE_BROWSER is set but chromium/chromedriver are not installed"
        );
        eprintln!("skipped: chromium and chromedriver are not installed (apt-get install chromium chromium-driver)");
    }
    b
}

pub(crate) fn out_dir() -> std::path::PathBuf {
    let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("viewer");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `oceansim serve` with the viewer on free ports, time scale 4, frames at
/// 10 a second and no sensor data recorded: the child, the protocol
/// address and the page's URL.
fn serve_with_viewer(export_root: &std::path::Path) -> (std::process::Child, String, String) {
    serve_viewer(
        export_root,
        &[
            "--time-scale",
            "4",
            "--viewer-fps",
            "10",
            // The view is under test, not imaging renders for a recording
            // (at 4x real time on a debug build they would take the core).
            "--no-sensor-data",
        ],
    )
}

/// `oceansim serve --port 0 --viewer 127.0.0.1:0` with `args`: the child,
/// the protocol address and the page's URL (from its first two stdout
/// lines).
pub(crate) fn serve_viewer(
    export_root: &std::path::Path,
    args: &[&str],
) -> (std::process::Child, String, String) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_oceansim"))
        .args(["serve", "--port", "0", "--viewer", "127.0.0.1:0"])
        .args(args)
        .arg("--export-root")
        .arg(export_root)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = |prefix: &str| {
        let mut l = String::new();
        out.read_line(&mut l).unwrap();
        l.trim()
            .strip_prefix(prefix)
            .unwrap_or_else(|| panic!("expected `{prefix}...`, got {l:?}"))
            .to_owned()
    };
    let addr = line("listening on ");
    let url = line("viewer on ");
    (child, addr, url)
}

/// Records `seconds` of `oceansim run` into `dir/run` and replays it with
/// `oceansim replay --viewer`: the replay (killed when dropped) and the
/// page's URL.
pub(crate) fn record_and_replay(dir: &std::path::Path, seconds: &str) -> (KillOnDrop, String) {
    let run_dir = dir.join("run");
    let made = std::process::Command::new(env!("CARGO_BIN_EXE_oceansim"))
        .args(["run", "--duration", seconds, "--quiet", "--out"])
        .arg(&run_dir)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_oceansim"))
        .arg("replay")
        .arg(&run_dir)
        .args(["--viewer", "127.0.0.1:0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let replay = KillOnDrop(child);
    let url = loop {
        let l = lines.next().expect("a viewer line").unwrap();
        if let Some(u) = l.strip_prefix("viewer on ") {
            break u.to_owned();
        }
    };
    (replay, url)
}

fn marker(b: &Browser) -> Value {
    b.exec("return window.oceansimViewer ? window.oceansimViewer.marker : null;")
}

#[test]
fn the_page_follows_the_auv_and_pauses_the_simulator() {
    let Some(browser) = browser_or_skip() else {
        return;
    };
    let out = out_dir();
    let exports = tempfile::tempdir().unwrap();
    let (child, addr, url) = serve_with_viewer(exports.path());
    let _server = KillOnDrop(child);
    let mut c = Client::connect(addr.parse().unwrap());
    // Something of everything on the map: a proxy beside the AUV, a nav
    // path around it and a waypoint ahead.
    let p = v3(&c.state()["position"]);
    let spawned = [(6.0, 0.0), (-6.0, 0.0), (0.0, 6.0), (0.0, -6.0)]
        .iter()
        .any(|(dx, dy)| {
            let r = c.cmd(
                "spawn_agent",
                json!({"agent_name": "buddy", "location": [p[0] + dx, p[2], -(p[1] + dy)], "size_m": 1.0}),
            );
            r["status"] == "ok"
        });
    assert!(spawned, "a proxy spawns beside the AUV");
    let square: Vec<Value> = [
        (-12.0, -12.0),
        (12.0, -12.0),
        (12.0, 12.0),
        (-12.0, 12.0),
        (-12.0, -12.0),
    ]
    .iter()
    .map(|(dx, dy)| json!([p[0] + dx, -(p[1] + dy)]))
    .collect();
    c.ok("set_nav_path", json!({ "path": square }));
    c.ok(
        "set_waypoint",
        json!({"world_x": p[0] + 12.0, "world_z": -(p[1] + 12.0), "depth": -p[2]}),
    );

    browser.goto(&url);
    let m0 = browser.wait_for(
        "const v = window.oceansimViewer; return v && v.marker && v.scene && v.frame && v.frame.agents.length >= 2 ? v.marker : null;",
        WAIT,
        "the AUV marker and the proxy",
    );
    let scene = browser.exec("return window.oceansimViewer.scene;");
    assert!(
        scene["seabed"]["z"]
            .as_array()
            .is_some_and(|z| !z.is_empty()),
        "seabed grid"
    );
    let overlays = browser.exec("return window.oceansimViewer.overlays;");
    assert_eq!(
        overlays["nav_path"].as_array().map(Vec::len),
        Some(5),
        "{overlays}"
    );
    assert!(overlays["waypoint"].is_array(), "{overlays}");
    assert_eq!(
        browser.exec("return window.oceansimViewer.controls;"),
        json!(true),
        "the live page has controls"
    );
    // `--viewer-fps 10`: the page is told the rate and gets no more. The
    // simulation runs at 4x, so every update differs and is sent: about 10
    // a second, where the default would send 30. Counted over the page's
    // own clock, so a slow WebDriver round trip cannot widen the window.
    assert_eq!(
        browser
            .exec("return window.oceansimViewer.maxFps;")
            .as_f64(),
        Some(10.0)
    );
    let count = "return [window.oceansimViewer.frames, performance.now()];";
    let a = browser.exec(count);
    std::thread::sleep(Duration::from_secs(3));
    let b = browser.exec(count);
    let frames = b[0].as_f64().unwrap() - a[0].as_f64().unwrap();
    let secs = (b[1].as_f64().unwrap() - a[1].as_f64().unwrap()) / 1000.0;
    assert!(
        frames >= 1.0 && frames <= (secs * 10.0).ceil() + 4.0,
        "{frames} frames in {secs:.2} s at --viewer-fps 10"
    );

    // Drive the AUV east from the protocol; the page's marker follows.
    c.ok("set_force_world", json!({"force": [120.0, 0.0, 0.0]}));
    let (x0, y0) = (m0["x"].as_f64().unwrap(), m0["y"].as_f64().unwrap());
    let deadline = Instant::now() + WAIT;
    let moved = loop {
        let m = marker(&browser);
        let (x, y) = (m["x"].as_f64().unwrap_or(x0), m["y"].as_f64().unwrap_or(y0));
        if (x - x0).hypot(y - y0) > 8.0 {
            break (x - x0, y - y0);
        }
        assert!(
            Instant::now() < deadline,
            "the marker never moved from {m0}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(moved.0 > 0.0, "pushed east, drawn to the right: {moved:?}");

    // Pause from the page: the simulator's clock stops for every client.
    browser.click("#pause");
    browser.wait_for(
        "return window.oceansimViewer.paused === true;",
        WAIT,
        "the page to show the simulator paused",
    );
    let t1 = c.state()["sim_time"].as_f64().unwrap();
    std::thread::sleep(Duration::from_millis(400));
    let t2 = c.state()["sim_time"].as_f64().unwrap();
    assert_eq!(t1, t2, "paused from the page, sim_time stands still");
    let page_t = browser.exec("return window.oceansimViewer.simTime;");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        browser.exec("return window.oceansimViewer.simTime;"),
        page_t
    );

    // The time-scale control sends set_time_scale.
    browser.exec("document.getElementById('scale-input').value = '2.5'; return true;");
    browser.click("#scale-set");
    browser.wait_for(
        "return window.oceansimViewer.timeScale === 2.5;",
        WAIT,
        "the new time scale",
    );
    std::fs::write(out.join("live.png"), browser.screenshot()).unwrap();

    // The occupancy grid on demand: the page asks get_terrain_grid at the
    // AUV's depth and draws what it got; asking again hides it. A box
    // beside the paused AUV makes the slice hold something blocked however
    // far the push carried it (over a seabed deeper than the AUV, and past
    // the proxy, the slice can be all water).
    let here = v3(&c.state()["position"]);
    let north = here[1] - 6.0f64.copysign(here[1]); // toward the map's middle
    let obstacles = "return (window.oceansimViewer.scene.obstacles || []).length;";
    let before = browser.exec(obstacles).as_u64().unwrap_or(0);
    c.ok(
        "spawn_obstacle",
        json!({"id": "grid-box", "shape": "box", "position": [here[0], here[2], -north], "size": [4.0, 4.0, 4.0]}),
    );
    // The new scene first: it clears the page's grid when it comes, and
    // coming late (a loaded machine) it cleared the grid just drawn, so
    // that the click meant to hide it asked for it again.
    browser.wait_for(
        &format!("return (window.oceansimViewer.scene.obstacles || []).length > {before};"),
        WAIT,
        "the scene with the box",
    );
    browser.click("#grid");
    let grid = browser.wait_for(
        "const g = window.oceansimViewer.grid; return g ? {w: g.width, h: g.height, blocked: g.grid.flat().filter(x => x).length} : null;",
        WAIT,
        "the occupancy grid",
    );
    assert!(
        grid["w"].as_u64().unwrap() > 10 && grid["blocked"].as_u64().unwrap() > 0,
        "{grid}"
    );
    std::fs::write(out.join("live_grid.png"), browser.screenshot()).unwrap();
    browser.click("#grid");
    browser.wait_for(
        "return window.oceansimViewer.grid === null;",
        WAIT,
        "the grid hidden",
    );

    // Resume from the page; the clock runs again.
    browser.click("#pause");
    browser.wait_for(
        "return window.oceansimViewer.paused === false;",
        WAIT,
        "the page to show the simulator running",
    );
    let deadline = Instant::now() + WAIT;
    while c.state()["sim_time"].as_f64().unwrap() <= t2 {
        assert!(
            Instant::now() < deadline,
            "sim_time never advanced after resume"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    eprintln!("viewer screenshot: {}", out.join("live.png").display());
}

#[test]
fn a_thousand_swarm_entities_stream_to_the_page() {
    use oceansim_swarm::scenarios::{run_gvf_ellipse_observed, GvfEllipseConfig};
    let Some(browser) = browser_or_skip() else {
        return;
    };
    let out = out_dir();
    let viewer = Viewer::start(
        ViewerConfig::new("127.0.0.1:0".parse().unwrap(), Mode::Swarm).title("1000 unicycles"),
    )
    .unwrap();
    let url = viewer.url();
    let sink = viewer.engine_sink(
        SwarmView::default()
            .heading("theta")
            .pace(4.0)
            .title("1000 unicycles onto an ellipse"),
    );
    let cfg = GvfEllipseConfig {
        n: 1000,
        duration_s: 32.0,
        ..GvfEllipseConfig::default()
    };
    let run = std::thread::spawn(move || run_gvf_ellipse_observed(&cfg, Some(Box::new(sink))));
    browser.goto(&url);
    browser.wait_for(
        "return window.oceansimViewer && window.oceansimViewer.entities === 1000;",
        WAIT,
        "1000 entities drawn",
    );
    // The page's own count of updates drawn in the last second, sampled
    // while the run streams.
    let mut fps = Vec::new();
    for _ in 0..8 {
        std::thread::sleep(Duration::from_millis(500));
        fps.push(
            browser
                .exec("return window.oceansimViewer.fps;")
                .as_f64()
                .unwrap(),
        );
    }
    let frames = browser
        .exec("return window.oceansimViewer.frames;")
        .as_u64()
        .unwrap();
    std::fs::write(out.join("swarm.png"), browser.screenshot()).unwrap();
    let done = run.join().expect("the run finishes").unwrap();
    assert_eq!(done.tracks.len(), 1000);
    assert!(frames > 10, "frames arrived: {frames}");
    assert!(viewer.frames_sent() >= frames, "every drawn frame was sent");
    let min = fps.iter().copied().fold(f64::INFINITY, f64::min);
    let mean = fps.iter().sum::<f64>() / fps.len() as f64;
    let report = json!({
        "entities": 1000,
        "page_updates_per_s": {"min": min, "mean": mean, "samples": fps},
        "frames_drawn": frames,
    });
    std::fs::write(out.join("swarm_report.json"), report.to_string()).unwrap();
    eprintln!(
        "1000 entities: the page drew {mean:.1} updates/s on average (min {min:.1}); report in {}",
        out.display()
    );
}

#[test]
fn a_recorded_run_replays_with_the_slider() {
    let Some(browser) = browser_or_skip() else {
        return;
    };
    let out = out_dir();
    let dir = tempfile::tempdir().unwrap();
    let (_replay, url) = record_and_replay(dir.path(), "6");
    browser.goto(&url);
    let n = browser
        .wait_for(
            "const v = window.oceansimViewer; return v && v.mode === 'replay' && v.scene && v.frame ? Number(document.getElementById('slider').max) + 1 : null;",
            WAIT,
            "the recorded run",
        )
        .as_u64()
        .unwrap();
    assert!(n >= 50, "6 s at 10 Hz: {n} frames");
    let scene = browser.exec("return window.oceansimViewer.scene;");
    assert!(
        scene["seabed"]["z"].is_array(),
        "the seabed rebuilt from the scenario and seed"
    );
    // The slider picks the frame; its time is the frame's.
    let mid = n / 2;
    let t = browser.exec(&format!(
        "const s = document.getElementById('slider'); s.value = {mid}; s.dispatchEvent(new Event('input')); return window.oceansimViewer.simTime;"
    ));
    let t = t.as_f64().unwrap();
    assert!((t - mid as f64 * 0.1).abs() < 0.11, "frame {mid} at {t} s");
    browser.click("#play");
    browser.wait_for(
        &format!("return window.oceansimViewer.simTime > {t};"),
        WAIT,
        "playback to move the time on",
    );
    std::fs::write(out.join("replay.png"), browser.screenshot()).unwrap();
}
