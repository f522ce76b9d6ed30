//! The viewer's sensor panels in headless Chromium, live and in a replay:
//! each panel is opened from the page's sensor list and checked from the
//! page's own state (`window.oceansimViewer.panels`) and from the pixels of
//! a screenshot of its canvas: a wall ahead appears in the sonar fan at
//! its range and in the camera's depth image, the side-scan waterfall
//! scrolls, the multibeam draws its swath, the point clouds turn under the
//! mouse, the 2-D lidar lands on the map. Closed panels cost nothing: the
//! server is asked for no sensor nobody shows. Screenshots go to
//! `$CARGO_TARGET_TMPDIR/viewer/`.

use crate::browser::webdriver::Browser;
use crate::browser::{browser_or_skip, out_dir, record_and_replay, serve_viewer, WAIT};
use crate::common::{v3, Client, KillOnDrop};
use serde_json::{json, Value};

/// `oceansim serve --paused --viewer` on free ports on PaleMap (open
/// water around the AUV, its rocks on the seabed), sensor data not
/// recorded (so on-demand sensors render only for panels): the child, the
/// protocol address and the page's URL.
fn serve_paused(export_root: &std::path::Path) -> (std::process::Child, String, String) {
    serve_viewer(
        export_root,
        &["--scenario", "PaleMap", "--paused", "--no-sensor-data"],
    )
}

/// The page's state of panel `key`.
fn panel(b: &Browser, key: &str) -> Value {
    b.exec(&format!(
        "const p = (window.oceansimViewer.panels || []).find(p => p.key === {key:?}); return p ? JSON.parse(JSON.stringify(p)) : null;"
    ))
}

/// Ticks the box of `key` in the page's sensor list (or clears it).
fn show(b: &Browser, key: &str, on: bool) {
    b.exec(&format!(
        "const e = document.getElementById('panel-' + {key:?}); if (e.checked !== {on}) e.click(); return true;"
    ));
}

/// Steps the paused simulator until panel `key` has drawn more than
/// `draws` samples; returns its state.
fn drawn_after(b: &Browser, c: &mut Client, key: &str, draws: u64) -> Value {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        c.step_n(5, json!({}));
        let p = panel(b, key);
        if p["draws"].as_u64().unwrap_or(0) > draws {
            // Let a decode in flight finish with the newest sample.
            std::thread::sleep(std::time::Duration::from_millis(150));
            return panel(b, key);
        }
        assert!(
            std::time::Instant::now() < deadline,
            "panel {key} never drew: {p}"
        );
        std::thread::sleep(std::time::Duration::from_millis(60));
    }
}

/// A screenshot of panel `key`'s card, for the docs and the closing note.
fn card_png(b: &Browser, key: &str) -> Vec<u8> {
    b.exec(&format!(
        "document.getElementById('card-' + {key:?}).scrollIntoView({{block: 'start'}}); return true;"
    ));
    b.element_screenshot(&format!("[id=\"card-{key}\"]"))
}

/// A canvas's screenshot as (width, height, RGBA bytes).
fn canvas_pixels(b: &Browser, key: &str) -> (u32, u32, Vec<u8>) {
    // Whole in the panels' scrolling area, so the capture is not clipped.
    b.exec(&format!(
        "document.getElementById('canvas-' + {key:?}).scrollIntoView({{block: 'start'}}); return true;"
    ));
    let png_bytes = b.element_screenshot(&format!("[id=\"canvas-{key}\"]"));
    let mut d = png::Decoder::new(std::io::Cursor::new(png_bytes));
    d.set_transformations(png::Transformations::EXPAND | png::Transformations::ALPHA);
    let mut r = d.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

/// The brightest pixel (sum of R, G, B) within `r` px of `(x, y)`.
fn brightest(px: &(u32, u32, Vec<u8>), x: f64, y: f64, r: i64) -> u32 {
    let (w, h, data) = px;
    let mut best = 0;
    for dy in -r..=r {
        for dx in -r..=r {
            let (u, v) = (x.round() as i64 + dx, y.round() as i64 + dy);
            if u < 0 || v < 0 || u >= i64::from(*w) || v >= i64::from(*h) {
                continue;
            }
            let k = 4 * (v as usize * *w as usize + u as usize);
            best = best.max(u32::from(data[k]) + u32::from(data[k + 1]) + u32::from(data[k + 2]));
        }
    }
    best
}

fn health(url: &str) -> Value {
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    let mut s = std::net::TcpStream::connect(addr.as_str()).unwrap();
    use std::io::{Read, Write};
    write!(
        s,
        "GET /healthz HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let body = text.split("\r\n\r\n").nth(1).unwrap_or("");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn each_sensor_panel_shows_what_the_vehicle_senses() {
    let Some(browser) = browser_or_skip() else {
        return;
    };
    let out = out_dir();
    let exports = tempfile::tempdir().unwrap();
    let (child, addr, url) = serve_paused(exports.path());
    let _server = KillOnDrop(child);
    let mut c = Client::connect(addr.parse().unwrap());
    browser.goto(&url);
    let n = browser.wait_for(
        "const v = window.oceansimViewer; return v && v.frame && v.panels.length ? v.panels.length : null;",
        WAIT,
        "the sensor list",
    );
    assert_eq!(n, json!(10), "the default AUV's ten sensors are listed");
    let listed = browser.exec(
        "return window.oceansimViewer.panels.map(p => [p.sensor, p.kind, p.frame, p.shown, p.updates]);",
    );
    for p in listed.as_array().unwrap() {
        assert_eq!(p[3], false, "{p}: no panel is open at first");
        assert_eq!(p[4], 0, "{p}: nothing sent for a closed panel");
        assert!(p[2].as_str().unwrap().starts_with("auv/main/"), "{p}");
    }
    // Nothing is asked of the simulator while no panel is open.
    assert_eq!(health(&url)["panels_shown"], 0);
    c.step_n(10, json!({}));
    assert_eq!(health(&url)["sensor_messages_sent"], 0);

    // A wall 10 m ahead, across the AUV's way and taller than the sonar's
    // aperture there.
    let p = v3(&c.state()["position"]);
    let h = browser
        .exec("return window.oceansimViewer.frame.agents[0].heading_deg;")
        .as_f64()
        .unwrap();
    let (fx, fy) = (h.to_radians().sin(), h.to_radians().cos());
    let (cx, cy) = (p[0] + 10.5 * fx, p[1] + 10.5 * fy);
    c.ok(
        "spawn_obstacle",
        json!({"id": "wall", "shape": "box", "position": [cx, p[2], -cy],
               "size": [14.0, 10.0, 1.0], "rotation": [0.0, -h, 0.0]}),
    );

    // The forward-looking sonar: the wall is the strongest echo, dead
    // ahead at its range, and the fan is bright there and dark short of it.
    let sonar = "auv/main/imaging_sonar";
    show(&browser, sonar, true);
    let s = drawn_after(&browser, &mut c, sonar, 0);
    assert_eq!(s["shown"], true);
    assert_eq!(s["kind"], "imaging_sonar");
    let peak = &s["info"]["peak"];
    let range = peak["range_m"].as_f64().unwrap();
    assert!(
        (range - 10.0).abs() < 1.5,
        "wall at 10 m, echo at {range} m: {s}"
    );
    assert!(peak["bearing_deg"].as_f64().unwrap().abs() < 20.0, "{s}");
    let g = &s["geometry"];
    let (ox, oy, ppm) = (
        g["origin_px"][0].as_f64().unwrap(),
        g["origin_px"][1].as_f64().unwrap(),
        g["px_per_m"].as_f64().unwrap(),
    );
    let px = canvas_pixels(&browser, sonar);
    let at_wall = brightest(&px, ox, oy - range * ppm, 3);
    let short = brightest(&px, ox, oy - 0.5 * range * ppm, 1);
    assert!(
        at_wall > 240 && at_wall > 2 * short.max(1),
        "the fan is bright at the wall ({at_wall}) and dark before it ({short})"
    );
    std::fs::write(
        out.join("panel_sonar.png"),
        card_png(&browser, "auv/main/imaging_sonar"),
    )
    .unwrap();

    // The camera: the wall fills the middle of the depth image at its
    // distance (less the camera's mount ahead of the centre).
    let cam = "auv/main/camera";
    show(&browser, cam, true);
    let s = drawn_after(&browser, &mut c, cam, 0);
    let near = s["info"]["nearest_m"].as_f64().unwrap();
    assert!(
        near > 8.0 && near < 10.5,
        "the wall ahead of the camera at {near} m: {s}"
    );
    let d = &s["geometry"]["depth_px"];
    let (x0, y0, w, hh) = (
        d[0].as_f64().unwrap(),
        d[1].as_f64().unwrap(),
        d[2].as_f64().unwrap(),
        d[3].as_f64().unwrap(),
    );
    let px = canvas_pixels(&browser, cam);
    let (_, _, data) = &px;
    let at = |x: f64, y: f64| {
        let k = 4 * (y.round() as usize * px.0 as usize + x.round() as usize);
        [data[k], data[k + 1], data[k + 2]]
    };
    let centre = at(x0 + w / 2.0, y0 + hh / 2.0);
    assert_ne!(centre, [8, 16, 24], "the depth image's centre has a return");
    std::fs::write(
        out.join("panel_camera.png"),
        card_png(&browser, "auv/main/camera"),
    )
    .unwrap();

    // The side-scan waterfall scrolls: more pings, and its picture moves.
    let ss = "auv/main/side_scan_sonar";
    show(&browser, ss, true);
    let s1 = drawn_after(&browser, &mut c, ss, 0);
    let before = canvas_pixels(&browser, ss);
    let s2 = drawn_after(&browser, &mut c, ss, s1["draws"].as_u64().unwrap() + 3);
    let after = canvas_pixels(&browser, ss);
    assert!(
        s2["info"]["rows"].as_u64() > s1["info"]["rows"].as_u64(),
        "{s1} then {s2}"
    );
    let changed = before
        .2
        .chunks(4)
        .zip(after.2.chunks(4))
        .filter(|(a, b)| a != b)
        .count();
    assert!(
        changed > 500,
        "the waterfall moved: {changed} pixels changed"
    );
    std::fs::write(
        out.join("panel_side_scan.png"),
        card_png(&browser, "auv/main/side_scan_sonar"),
    )
    .unwrap();

    // The multibeam's swath: soundings below the AUV at about its altitude.
    let mb = "auv/main/multibeam_sonar";
    show(&browser, mb, true);
    let s = drawn_after(&browser, &mut c, mb, 0);
    assert!(s["info"]["soundings"].as_u64().unwrap() > 10, "{s}");
    let down = s["info"]["nadir_down_m"].as_f64().unwrap();
    let altitude = c.state()["sensors"]["dvl"]["altitude_m"].as_f64();
    if let Some(alt) = altitude {
        assert!(
            (down - alt).abs() < 2.0,
            "nadir {down} m, DVL altitude {alt} m"
        );
    }

    // The point clouds: drawn, and turned by dragging.
    for key in ["auv/main/lidar_3d", "auv/main/rgbd_dense_cloud"] {
        show(&browser, key, true);
        let s = drawn_after(&browser, &mut c, key, 0);
        let yaw = s["info"]["yaw"].as_f64().unwrap();
        browser.exec(&format!(
            "const c = document.getElementById('canvas-' + {key:?}); const r = c.getBoundingClientRect();
             const at = (t, x) => c.dispatchEvent(new PointerEvent(t, {{clientX: r.left + x, clientY: r.top + 50, pointerId: 1, bubbles: true}}));
             at('pointerdown', 50); at('pointermove', 120); at('pointerup', 120); return true;"
        ));
        let turned = panel(&browser, key)["info"]["yaw"].as_f64().unwrap();
        assert!(
            (turned - yaw - 0.7).abs() < 1e-6,
            "{key}: dragged 70 px, yaw {yaw} -> {turned}"
        );
    }
    std::fs::write(out.join("panel_multibeam.png"), card_png(&browser, mb)).unwrap();
    std::fs::write(
        out.join("panel_rgbd.png"),
        card_png(&browser, "auv/main/rgbd_dense_cloud"),
    )
    .unwrap();
    let lidar = panel(&browser, "auv/main/lidar_3d");
    assert!(lidar["info"]["points"].as_u64().unwrap() > 0, "{lidar}");
    std::fs::write(
        out.join("panel_lidar_3d.png"),
        card_png(&browser, "auv/main/lidar_3d"),
    )
    .unwrap();

    // The 2-D lidar on the map: the wall's returns.
    let l2 = "auv/main/lidar_2d";
    show(&browser, l2, true);
    let s = drawn_after(&browser, &mut c, l2, 0);
    assert!(s["info"]["points"].as_u64().unwrap() > 3, "{s}");

    // The small readings: depth, IMU, DVL.
    for key in ["auv/main/depth", "auv/main/imu", "auv/main/dvl"] {
        show(&browser, key, true);
        let s = drawn_after(&browser, &mut c, key, 0);
        assert!(s["last_t"].as_f64().is_some(), "{key}: {s}");
    }
    browser.exec("document.getElementById('panels').scrollTop = 0; return true;");
    std::thread::sleep(std::time::Duration::from_millis(200));
    std::fs::write(out.join("panels_live.png"), browser.screenshot()).unwrap();
    let shown = health(&url)["panels_shown"].as_u64().unwrap();
    assert_eq!(shown, 10, "the server is asked for what is open");

    // All closed: the server stops asking and sending.
    for p in browser
        .exec("return window.oceansimViewer.panels.map(p => p.key);")
        .as_array()
        .unwrap()
    {
        show(&browser, p.as_str().unwrap(), false);
    }
    browser.wait_for(
        "return !window.oceansimViewer.panels.some(p => p.shown);",
        WAIT,
        "every panel closed",
    );
    assert_eq!(
        browser.exec("return [...document.querySelectorAll('#panels, #panels .panel')].filter(e => e.offsetParent !== null).length;"),
        json!(0),
        "closed panels are not drawn on the page"
    );
    let deadline = std::time::Instant::now() + WAIT;
    while health(&url)["panels_shown"] != 0 {
        assert!(std::time::Instant::now() < deadline, "demand never dropped");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let sent = health(&url)["sensor_messages_sent"].clone();
    c.step_n(20, json!({}));
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(
        health(&url)["sensor_messages_sent"],
        sent,
        "nothing sent for closed panels"
    );
}

#[test]
fn who_heard_whom_is_drawn_on_the_map() {
    let Some(browser) = browser_or_skip() else {
        return;
    };
    let exports = tempfile::tempdir().unwrap();
    let (child, addr, url) = serve_paused(exports.path());
    let _server = KillOnDrop(child);
    let mut c = Client::connect(addr.parse().unwrap());
    let p = v3(&c.state()["position"]);
    c.ok(
        "spawn_agent",
        json!({"agent_name": "buddy", "location": [p[0] + 6.0, p[2], -p[1]]}),
    );
    c.ok(
        "send_acoustic_message",
        json!({"sender_id": "buddy", "receiver_id": "auv/main", "payload": {"hello": 1}}),
    );
    c.step_n(20, json!({}));
    browser.goto(&url);
    let links = browser.wait_for(
        "const v = window.oceansimViewer; return v && v.frame && v.acoustic > 0 ? v.frame.acoustic : null;",
        WAIT,
        "the acoustic link drawn",
    );
    assert_eq!(links[0]["from"], "buddy");
    assert_eq!(links[0]["to"], "auv/main");
    assert!(links[0]["heard"].as_f64() > links[0]["sent"].as_f64());
    std::fs::write(out_dir().join("acoustic.png"), browser.screenshot()).unwrap();
    // Five seconds on, the link has left the view.
    c.step_n(60, json!({}));
    browser.wait_for(
        "return window.oceansimViewer.acoustic === 0 && window.oceansimViewer.frame.acoustic.length === 0;",
        WAIT,
        "the link to fade out",
    );
}

#[test]
fn a_replay_shows_the_recorded_sensors_as_the_slider_moves() {
    let Some(browser) = browser_or_skip() else {
        return;
    };
    let out = out_dir();
    let dir = tempfile::tempdir().unwrap();
    let (_replay, url) = record_and_replay(dir.path(), "4");
    browser.goto(&url);
    let n = browser.wait_for(
        "const v = window.oceansimViewer; return v && v.mode === 'replay' && v.panels.length ? v.panels.length : null;",
        WAIT,
        "the recorded sensors",
    );
    assert_eq!(n, json!(10), "every recorded series has a panel");
    let slide = |i: u64| {
        browser.exec(&format!(
            "const s = document.getElementById('slider'); s.value = {i}; s.dispatchEvent(new Event('input')); return window.oceansimViewer.simTime;"
        ))
        .as_f64()
        .unwrap()
    };
    // Every recorded sensor's panel, as live.
    let keys = browser.exec("return window.oceansimViewer.panels.map(p => p.key);");
    let keys: Vec<String> = keys
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap().to_owned())
        .collect();
    for key in &keys {
        show(&browser, key, true);
    }
    let t1 = slide(10);
    let first = browser.wait_for(
        &format!("const p = window.oceansimViewer.panels.find(p => p.key === 'auv/main/imaging_sonar'); return p.draws > 0 && Math.abs(p.last_t - {t1}) < 0.25 ? p.last_t : null;"),
        WAIT,
        "the sonar at the slider's time",
    );
    let t2 = slide(30);
    assert!(t2 > t1);
    let later = browser.wait_for(
        &format!("const p = window.oceansimViewer.panels.find(p => p.key === 'auv/main/imaging_sonar'); return p.last_t > {first} ? p.last_t : null;"),
        WAIT,
        "the sonar to follow the slider",
    );
    assert!(
        (later.as_f64().unwrap() - t2).abs() < 0.25,
        "{later} at {t2}"
    );
    for key in keys.iter().filter(|k| *k != "auv/main/imaging_sonar") {
        browser.wait_for(
            &format!("const p = window.oceansimViewer.panels.find(p => p.key === {key:?}); return p.draws > 0 && p.last_t <= {t2} + 1e-9 ? true : null;"),
            WAIT,
            key,
        );
    }
    std::fs::write(out.join("panels_replay.png"), browser.screenshot()).unwrap();
}

#[test]
fn a_fleet_shows_who_heard_whom_on_its_acoustic_channel() {
    use oceansim_swarm::fleet::ring::{run_ring_formation_observed, RingFormationConfig};
    use oceansim_viewer::{Mode, SwarmView, Viewer, ViewerConfig};
    let Some(browser) = browser_or_skip() else {
        return;
    };
    let viewer = Viewer::start(ViewerConfig::new(
        "127.0.0.1:0".parse().unwrap(),
        Mode::Swarm,
    ))
    .unwrap();
    browser.goto(&viewer.url());
    browser.wait_for(
        "return window.oceansimViewer && window.oceansimViewer.connected;",
        WAIT,
        "the page connected",
    );
    let sink = viewer.engine_sink(
        SwarmView::default()
            .position(oceansim_swarm::fleet::names::P)
            .ned()
            .links(oceansim_swarm::fleet::heard_links)
            .pace(20.0)
            .title("8 AUVs"),
    );
    let cfg = RingFormationConfig {
        n: 8,
        duration_s: 60.0,
        ..RingFormationConfig::default()
    };
    let run = std::thread::spawn(move || run_ring_formation_observed(&cfg, Some(Box::new(sink))));
    let links = browser.wait_for(
        "const v = window.oceansimViewer; return v.frame && v.acoustic > 0 ? v.frame.links : null;",
        WAIT,
        "acoustic arrows between the vehicles",
    );
    for l in links.as_array().unwrap() {
        let (from, to) = (l[0].as_u64().unwrap(), l[1].as_u64().unwrap());
        assert!(from < 8 && to < 8 && from != to, "{l}");
        assert!(l[3].as_f64() >= l[2].as_f64(), "heard after sent: {l}");
    }
    std::fs::write(out_dir().join("fleet_acoustic.png"), browser.screenshot()).unwrap();
    let done = run.join().unwrap().unwrap();
    assert!(done.acoustic[1] > 0, "receptions: {:?}", done.acoustic);
}
