//! A recorded run as one `replay` message: the scene and every frame, for
//! the page's time slider.

use oceansim_dataset::RunReplay;
use oceansim_protocol::view;
use serde_json::Value;
use std::path::Path;

/// Most frames sent to the page; longer runs are thinned evenly (the
/// message says by how much in `stride`).
pub const MAX_REPLAY_FRAMES: usize = 20_000;

fn mm(v: f64) -> f64 {
    if v.is_finite() {
        (v * 1000.0).round() / 1000.0
    } else {
        0.0
    }
}

/// The scene of a run from its `snapshot.json` (map bounds and obstacles
/// as they were at export), when the simulator cannot rebuild it with its
/// seabed. `None` when the file is missing, not a regular file of the run
/// (a link, a device, a FIFO), too large, or has no map.
pub fn scene_from_snapshot(dir: &Path) -> Option<view::Scene> {
    let text = oceansim_dataset::read_run_file(
        &dir.join("snapshot.json"),
        oceansim_dataset::MAX_RUN_FILE_BYTES,
    )
    .ok()?;
    let snap: Value = serde_json::from_str(&text).ok()?;
    let map = snap.get("map")?;
    let b = map.get("bounds_user")?;
    let pair = |k: &str| -> Option<[f64; 2]> {
        let a = b.get(k)?.as_array()?;
        Some([a.first()?.as_f64()?, a.get(1)?.as_f64()?])
    };
    let ([x0, x1], [y0, y1]) = (pair("x")?, pair("y")?);
    let obstacles: Vec<view::Obstacle> = map
        .get("obstacles")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|o| {
                    let c: Vec<f64> = o
                        .get("center_user")?
                        .as_array()?
                        .iter()
                        .filter_map(Value::as_f64)
                        .collect();
                    let h: Vec<f64> = o
                        .get("half_extents_user")?
                        .as_array()?
                        .iter()
                        .filter_map(Value::as_f64)
                        .collect();
                    if c.len() != 3 || h.len() != 3 {
                        return None;
                    }
                    let shape = o.get("shape").and_then(Value::as_str).unwrap_or("box");
                    let boxed = shape == "box";
                    Some(view::Obstacle {
                        id: o.get("id").and_then(Value::as_str).map(str::to_owned),
                        shape: shape.to_owned(),
                        center: [mm(c[0]), mm(c[1]), mm(c[2])],
                        z: [mm(c[2] - h[2]), mm(c[2] + h[2])],
                        radius: (!boxed).then(|| mm(h[0])),
                        polygon: boxed.then(|| {
                            vec![
                                [mm(c[0] - h[0]), mm(c[1] - h[1])],
                                [mm(c[0] + h[0]), mm(c[1] - h[1])],
                                [mm(c[0] + h[0]), mm(c[1] + h[1])],
                                [mm(c[0] - h[0]), mm(c[1] + h[1])],
                            ]
                        }),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let title = map.get("display_name").and_then(Value::as_str);
    Some(recorded_scene(title, [x0, x1, y0, y1], obstacles))
}

/// `{"type":"replay","title","scene":{..},"stride","frames":[{"t","frame",
/// "agents":[{"name","kind","main","p","heading_deg","speed","command"}]}]}`:
/// the frames use the live frame's agent fields. `scene` is the run's scene
/// (a `scene` message); without one, the snapshot's, else the frames'
/// extent.
pub fn replay_message(run: &RunReplay, scene: Option<view::Scene>) -> view::Replay {
    let n = run.frame_count();
    let stride = n.div_ceil(MAX_REPLAY_FRAMES).max(1);
    let mut extent = [
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    let frames: Vec<view::ReplayFrame> = run
        .frames()
        .enumerate()
        .filter(|(i, _)| i % stride == 0 || i + 1 == n)
        .map(|(_, f)| {
            let agents: Vec<view::Agent> = f
                .agents
                .iter()
                .enumerate()
                .map(|(i, row)| {
                    let s = &row.state;
                    let [x, y, z] = s.position;
                    extent = [
                        extent[0].min(x),
                        extent[1].max(x),
                        extent[2].min(y),
                        extent[3].max(y),
                    ];
                    let speed = s.velocity.iter().map(|v| v * v).sum::<f64>().sqrt();
                    view::Agent {
                        name: row.agent.to_string(),
                        kind: if i == 0 { "vehicle" } else { "proxy" }.into(),
                        main: i == 0,
                        p: [mm(x), mm(y), mm(z)],
                        heading_deg: mm(s.heading_deg),
                        speed: mm(speed),
                        length: None,
                        width: None,
                        seabed_z: None,
                        command: row.command.as_ref().map(|c| view::AgentCommand {
                            action: c.action.to_string(),
                            data: c.data.clone(),
                            t: mm(c.time),
                        }),
                    }
                })
                .collect();
            view::ReplayFrame {
                t: f.time,
                frame: f.index,
                agents,
            }
        })
        .collect();
    let scene = scene
        .or_else(|| scene_from_snapshot(run.dir()))
        .unwrap_or_else(|| {
            let b = if extent[0].is_finite() {
                let m = (0.2 * (extent[1] - extent[0]).max(extent[3] - extent[2])).max(5.0);
                [extent[0] - m, extent[1] + m, extent[2] - m, extent[3] + m]
            } else {
                [-10.0, 10.0, -10.0, 10.0]
            };
            recorded_scene(None, b, Vec::new())
        });
    view::Replay {
        title: scene.title.clone(),
        scene,
        stride,
        frames,
    }
}

/// A recorded run's scene without its seabed (titled `recorded run`
/// unless the run names its map).
fn recorded_scene(
    title: Option<&str>,
    bounds: [f64; 4],
    obstacles: Vec<view::Obstacle>,
) -> view::Scene {
    view::Scene {
        title: title.unwrap_or("recorded run").to_owned(),
        scenario: None,
        seed: None,
        bounds,
        seabed: None,
        obstacles,
        sensors: None,
        entities: None,
    }
}
