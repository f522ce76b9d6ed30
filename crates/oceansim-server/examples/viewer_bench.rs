//! What watching costs: the simulation's speed with a browser page
//! connected to the viewer against the same run without a viewer, side by
//! side, in alternating rounds.
//!
//! ```text
//! cargo run --release -p oceansim-server --example viewer_bench [-- --rounds 5 --sim-seconds 600 --steps 10000 --live-fps 30]
//! ```
//!
//! * **swarm**: 1,000 GVF unicycles (dt 0.01 s, logged every 0.1 s) for
//!   `--sim-seconds` each round, free-running; arms: no sink, and the
//!   viewer's engine sink with a headless Chromium page drawing it (the
//!   page's own updates per second are printed too).
//! * **server**: paused `step` requests from one TCP client against the
//!   simulator on the default scenario; arms: `run_blocking` without a
//!   viewer, and with one and a page connected.
//! * **panels**: the same `step`s with a page connected, every sensor
//!   panel closed against all ten open (the on-demand camera, RGB-D and
//!   sonars then render at their rates, and every sample is sent and
//!   drawn); the page's samples drawn per second are printed too.
//!
//! `--only swarm|server|panels` runs one section.
//!
//! Needs Debian's chromium and chromium-driver for the page (without them
//! the page arms run with no page, and say so). Target: every ratio ≥ 0.9.

#[path = "../tests/it/support/webdriver.rs"]
mod webdriver;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use oceansim_server::{run_blocking_with_viewer, ServerConfig, Viewer};
use oceansim_sim::{SimConfig, Simulation};
use oceansim_swarm::scenarios::{run_gvf_ellipse_observed, GvfEllipseConfig, Observer};
use oceansim_viewer::{Mode, SwarmView, ViewerConfig};
use serde_json::json;
use std::io::{BufRead, BufReader, Write};
use std::time::{Duration, Instant};

fn arg(name: &str, default: f64) -> f64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn loopback() -> std::net::SocketAddr {
    "127.0.0.1:0".parse().expect("an address")
}

/// Opens `url` in the browser and waits until the page has drawn a frame.
fn open(browser: &webdriver::Browser, url: &str) {
    browser.goto(url);
    browser.wait_for(
        "return window.oceansimViewer && window.oceansimViewer.frames > 0;",
        Duration::from_secs(30),
        "the page's first frame",
    );
}

/// CPU seconds used so far by every Chromium process (Linux; 0 elsewhere).
fn browser_cpu_s() -> f64 {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0.0;
    };
    let mut ticks = 0u64;
    for e in dir.flatten() {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        let Some((name, rest)) = stat.split_once(") ") else {
            continue;
        };
        if !(name.contains("chrom") || name.contains("headless")) {
            continue;
        }
        let f: Vec<&str> = rest.split_whitespace().collect();
        ticks += f.get(11).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0)
            + f.get(12).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    }
    ticks as f64 / 100.0
}

/// Simulated seconds per wall second of one swarm run.
fn swarm_round(sim_s: f64, observer: Option<Observer>) -> f64 {
    let cfg = GvfEllipseConfig {
        n: 1000,
        duration_s: sim_s,
        ..GvfEllipseConfig::default()
    };
    let t = Instant::now();
    run_gvf_ellipse_observed(&cfg, observer).expect("the run");
    sim_s / t.elapsed().as_secs_f64()
}

/// Paused `step` requests per second from one client.
fn steps_per_s(addr: std::net::SocketAddr, n: usize) -> f64 {
    let s = std::net::TcpStream::connect(addr).expect("connects");
    s.set_nodelay(true).ok();
    let mut w = s.try_clone().expect("a second handle");
    let mut r = BufReader::new(s);
    let line = json!({"type": "command", "action": "step", "data": {"force": [10.0, 0.0, 0.0]}})
        .to_string()
        + "\n";
    let mut reply = String::new();
    let t = Instant::now();
    for _ in 0..n {
        w.write_all(line.as_bytes()).expect("sent");
        reply.clear();
        r.read_line(&mut reply).expect("a reply");
    }
    n as f64 / t.elapsed().as_secs_f64()
}

/// A paused server on a thread, with or without a viewer.
fn server(
    viewer: Option<Viewer>,
) -> (
    std::net::SocketAddr,
    tokio::sync::oneshot::Sender<()>,
    std::thread::JoinHandle<()>,
) {
    server_recording(viewer, false)
}

/// A paused server; with `record_sensor_data` its on-demand sensors render
/// at their rates whoever asks (a recording's cost).
fn server_recording(
    viewer: Option<Viewer>,
    record_sensor_data: bool,
) -> (
    std::net::SocketAddr,
    tokio::sync::oneshot::Sender<()>,
    std::thread::JoinHandle<()>,
) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("binds");
    let addr = listener.local_addr().expect("an address");
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        let sim = Simulation::new(SimConfig {
            paused: true,
            // The view's cost is measured, not imaging renders for a
            // recording (record_bench measures those), unless asked.
            record_sensor_data,
            ..SimConfig::default()
        })
        .expect("the default scenario");
        run_blocking_with_viewer(listener, sim, ServerConfig::default(), viewer, async {
            let _ = stop_rx.await;
        })
        .expect("serves");
    });
    (addr, stop_tx, thread)
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// Opens (or closes) every sensor panel of the page and waits until the
/// page says so.
fn all_panels(browser: &webdriver::Browser, on: bool) {
    browser.exec(&format!(
        "for (const e of document.querySelectorAll('#sensor-list input')) if (e.checked !== {on}) e.click(); return true;"
    ));
    browser.wait_for(
        &format!("return window.oceansimViewer.panels.length > 0 && window.oceansimViewer.panels.every(p => p.shown === {on});"),
        Duration::from_secs(30),
        "the panels",
    );
}

/// Samples the page has drawn over all panels.
fn panel_draws(browser: &webdriver::Browser) -> f64 {
    browser
        .exec("return window.oceansimViewer.panels.reduce((a, p) => a + p.draws, 0);")
        .as_f64()
        .unwrap_or(0.0)
}

fn only() -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .cloned()
}

/// Paused `step`s with a page connected: every panel closed against every
/// panel open, in alternating rounds; first on a server whose on-demand
/// sensors render only when asked (so open panels pay for the rendering),
/// then on one that renders them anyway for a recording (so the
/// difference is the panels' own cost).
fn panels_section(browser: &webdriver::Browser, rounds: usize, steps: usize) {
    for record in [false, true] {
        println!(
            "panels: paused `step` requests per second, one client, a page connected, default scenario, {}",
            if record {
                "sensors rendering for a recording either way"
            } else {
                "on-demand sensors rendering only for open panels"
            }
        );
        println!(
            "{:>6} {:>12} {:>14} {:>8} {:>14} {:>11}",
            "round", "no panels", "all 10 open", "ratio", "drawn/s", "browser cpu"
        );
        let (mut base, mut viewed) = (Vec::new(), Vec::new());
        for round in 1..=rounds {
            let viewer =
                Viewer::start(ViewerConfig::new(loopback(), Mode::Live)).expect("a viewer");
            let url = viewer.url();
            let (addr, stop, thread) = server_recording(Some(viewer), record);
            open(browser, &url);
            all_panels(browser, false);
            let a = steps_per_s(addr, steps);
            all_panels(browser, true);
            let (cpu0, wall0, d0) = (browser_cpu_s(), Instant::now(), panel_draws(browser));
            let b = steps_per_s(addr, steps);
            let wall = wall0.elapsed().as_secs_f64();
            let cpu = (browser_cpu_s() - cpu0) / wall;
            let drawn = (panel_draws(browser) - d0) / wall;
            all_panels(browser, false);
            let _ = stop.send(());
            let _ = thread.join();
            println!(
                "{round:>6} {a:>12.0} {b:>14.0} {:>8.3} {drawn:>14.1} {:>10.0}%",
                b / a,
                100.0 * cpu
            );
            base.push(a);
            viewed.push(b);
        }
        println!(
            "panels median: {:.0} steps/s with every panel open vs {:.0} with none, ratio {:.3}",
            median(&viewed),
            median(&base),
            median(&viewed) / median(&base)
        );
        println!();
    }
}

fn main() {
    let rounds = arg("--rounds", 5.0).max(1.0) as usize;
    let sim_s = arg("--sim-seconds", 600.0).max(1.0);
    let steps = arg("--steps", 10_000.0).max(10.0) as usize;
    let browser = webdriver::Browser::start();
    if browser.is_none() {
        println!("chromium/chromedriver not found: the page arms run without a page");
    }
    let only = only();
    if only.as_deref() == Some("panels") {
        match &browser {
            Some(b) => panels_section(b, rounds, steps),
            None => println!("panels: needs chromium and chromedriver"),
        }
        return;
    }
    let swarm = only.is_none() || only.as_deref() == Some("swarm");
    let serve = only.is_none() || only.as_deref() == Some("server");

    println!(
        "swarm: 1000 GVF unicycles, {sim_s} s simulated per round (x real time, higher is better)"
    );
    println!(
        "{:>6} {:>12} {:>14} {:>8} {:>12} {:>11}",
        "round", "no viewer", "viewer+page", "ratio", "page upd/s", "browser cpu"
    );
    let (mut base, mut viewed) = (Vec::new(), Vec::new());
    for round in (1..=rounds).filter(|_| swarm) {
        let a = swarm_round(sim_s, None);
        let viewer = Viewer::start(ViewerConfig::new(loopback(), Mode::Swarm)).expect("a viewer");
        let sink = viewer.engine_sink(SwarmView::default().heading("theta"));
        // Connect the page while the run streams: start it, then open.
        let url = viewer.url();
        let run = std::thread::spawn(move || swarm_round(sim_s, Some(Box::new(sink))));
        // The page's own count of updates drawn in the last second,
        // sampled while the run is still streaming.
        let mut samples = Vec::new();
        let (cpu0, wall0) = (browser_cpu_s(), Instant::now());
        if let Some(b) = &browser {
            open(b, &url);
            while !run.is_finished() {
                std::thread::sleep(Duration::from_millis(500));
                if !run.is_finished() {
                    samples.extend(b.exec("return window.oceansimViewer.fps;").as_f64());
                }
            }
        }
        let fps =
            samples.iter().skip(1).sum::<f64>() / samples.len().saturating_sub(1).max(1) as f64;
        let b = run.join().expect("the run");
        let cpu = (browser_cpu_s() - cpu0) / wall0.elapsed().as_secs_f64();
        println!(
            "{round:>6} {a:>11.0}x {b:>13.0}x {:>8.3} {fps:>12.1} {:>10.0}%",
            b / a,
            100.0 * cpu
        );
        base.push(a);
        viewed.push(b);
        drop(viewer);
    }
    if swarm {
        println!(
            "swarm median: {:.0}x with the page vs {:.0}x without, ratio {:.3} (target >= 0.9)",
            median(&viewed),
            median(&base),
            median(&viewed) / median(&base)
        );
    }

    println!();
    println!("server: paused `step` requests per second, one client, default scenario");
    println!(
        "{:>6} {:>12} {:>14} {:>8} {:>11}",
        "round", "no viewer", "viewer+page", "ratio", "browser cpu"
    );
    let (mut base, mut viewed) = (Vec::new(), Vec::new());
    for round in (1..=rounds).filter(|_| serve) {
        let (addr, stop, thread) = server(None);
        let a = steps_per_s(addr, steps);
        let _ = stop.send(());
        let _ = thread.join();

        let fps = arg("--live-fps", oceansim_viewer::DEFAULT_MAX_FPS);
        let viewer = Viewer::start(ViewerConfig::new(loopback(), Mode::Live).max_fps(fps))
            .expect("a viewer");
        let url = viewer.url();
        let (addr, stop, thread) = server(Some(viewer));
        if let Some(b) = &browser {
            open(b, &url);
        }
        if round == 1 && browser.is_some() {
            // What the page costs with nothing moving.
            let cpu0 = browser_cpu_s();
            std::thread::sleep(Duration::from_secs(2));
            println!(
                "(page idle: browser {:.0}% of a core)",
                50.0 * (browser_cpu_s() - cpu0)
            );
        }
        let (cpu0, wall0) = (browser_cpu_s(), Instant::now());
        let b = steps_per_s(addr, steps);
        let cpu = (browser_cpu_s() - cpu0) / wall0.elapsed().as_secs_f64();
        if let (1, Some(br)) = (round, &browser) {
            let ms = |k: &str| {
                br.exec(&format!("return window.oceansimViewer.{k} || 0;"))
                    .as_f64()
                    .unwrap_or(0.0)
            };
            println!(
                "(the page's script: {:.2} ms a frame for the map, {:.2} ms for the side view and panel; {:.0} updates/s)",
                ms("mapMs"),
                ms("slowMs"),
                ms("fps")
            );
        }
        let _ = stop.send(());
        let _ = thread.join();
        println!(
            "{round:>6} {a:>12.0} {b:>14.0} {:>8.3} {:>10.0}%",
            b / a,
            100.0 * cpu
        );
        base.push(a);
        viewed.push(b);
    }
    if serve {
        println!(
            "server median: {:.0} steps/s with the page vs {:.0} without, ratio {:.3}",
            median(&viewed),
            median(&base),
            median(&viewed) / median(&base)
        );
    }
    if let (None, Some(b)) = (&only, &browser) {
        println!();
        panels_section(b, rounds, steps);
    }
}
