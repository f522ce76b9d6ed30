//! A run longer than the recorder's memory: the oldest frames and commands
//! spill to disk, and the export is the same, file for file and byte for
//! byte, as that of a recorder that kept everything in memory.

use crate::common::*;
use crate::export::{run_in, sim_keeping};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// The JSON lines of `path`, with the one id no binary64 parses (`1e400`)
/// read as a string.
fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .replace(r#""request_id":1e400"#, r#""request_id":"1e400""#)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every file under `dir` (relative path → bytes).
pub(crate) fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// Request ids kept as the literal text they arrived as.
const LITERAL_IDS: [&str; 4] = ["1.50", "-0", "1e400", "18446744073709551617"];

/// The demo run, then more commands (each with a request id) and steps,
/// exported again as `runs/more`.
fn long_run(root: &Path, memory_frames: usize) -> (oceansim_sim::Simulation, Value) {
    let (mut s, _) = run_in(sim_keeping(root, memory_frames));
    for k in 0..12 {
        let r = request(
            &mut s,
            &json!({"type": "command", "action": "set_force", "request_id": format!("more-{k}"),
                    "data": {"force": [f64::from(k) * 3.0, 20.0, -5.0]}}),
        );
        assert_eq!(r["success"], true, "{r}");
        steps(&mut s, 2, json!({}));
    }
    // Ids no binary64 holds as written come back as their text.
    for id in LITERAL_IDS {
        let line = format!(
            r#"{{"type":"command","action":"set_force","request_id":{id},"data":{{"force":[1.0,2.0,0.0]}}}}"#
        );
        let Ok(oceansim_protocol::Request::Single(r)) = oceansim_protocol::Request::decode(&line)
        else {
            panic!("{line} decodes");
        };
        let reply = s.handle(r).to_line();
        assert!(reply.contains(&format!(r#""request_id":{id},"#)), "{reply}");
        assert!(reply.contains(r#""success":true"#), "{reply}");
        steps(&mut s, 1, json!({}));
    }
    ok(&mut s, "get_sensors", json!({"sensors": ["camera"]}));
    steps(&mut s, 3, json!({}));
    let e = ok(
        &mut s,
        "export_dataset",
        json!({"export_dir": "runs/more", "render_image": true}),
    );
    (s, e)
}

/// An MCAP file's messages: topic, log time from the first message's, and
/// payload.
fn mcap_messages(bytes: &[u8]) -> Vec<(String, u64, Vec<u8>)> {
    let all: Vec<_> = mcap::MessageStream::new(bytes)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let t0 = all.first().map_or(0, |m| m.log_time);
    all.into_iter()
        .map(|m| {
            (
                m.channel.topic.clone(),
                m.log_time - t0,
                m.data.into_owned(),
            )
        })
        .collect()
}

#[test]
fn a_run_past_the_memory_bound_exports_the_same_files_from_its_spill() {
    let (whole, bounded) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (_kept, e_whole) = long_run(whole.path(), oceansim_sim::MAX_RECORDED_SAMPLES);
    let (spilling, e_bounded) = long_run(bounded.path(), 5);
    assert_eq!(e_whole["samples"], e_bounded["samples"]);
    let total = e_whole["samples"].as_u64().unwrap();
    assert_eq!(total, 1 + 30 + 24 + 4 + 3);

    let spill_root = bounded.path().join(oceansim_sim::SPILL_DIR);
    assert!(spill_root.is_dir(), "the spill is under the export root");
    assert!(
        !whole.path().join(oceansim_sim::SPILL_DIR).exists(),
        "nothing spilled"
    );

    for run in ["runs/demo", "runs/more"] {
        let (a, b) = (
            files(&whole.path().join(run)),
            files(&bounded.path().join(run)),
        );
        assert_eq!(
            a.keys().collect::<Vec<_>>(),
            b.keys().collect::<Vec<_>>(),
            "{run}"
        );
        assert!(
            a.keys()
                .any(|f| f.ends_with(".png") && f.starts_with("sensors")),
            "camera frames"
        );
        for (name, bytes) in &a {
            if name == "run.mcap" {
                // Log times count from each recording's start on the Unix
                // clock: the messages and their simulated offsets agree.
                assert_eq!(
                    mcap_messages(bytes),
                    mcap_messages(&b[name]),
                    "{run}/{name}"
                );
            } else if name == "rosbag2/rosbag2_0.mcap" {
                // The bag's stamps are inside the CDR payloads, on the Unix
                // clock: the same messages at the same offsets, of the same
                // sizes.
                let shape = |bytes: &[u8]| -> Vec<(String, u64, usize)> {
                    mcap_messages(bytes)
                        .into_iter()
                        .map(|(t, dt, d)| (t, dt, d.len()))
                        .collect()
                };
                assert_eq!(shape(bytes), shape(&b[name]), "{run}/{name}");
            } else if name == "rosbag2/metadata.yaml" {
                let relative = |bytes: &[u8]| -> Vec<String> {
                    String::from_utf8_lossy(bytes)
                        .lines()
                        .filter(|l| !l.contains("nanoseconds_since_epoch"))
                        .map(str::to_owned)
                        .collect()
                };
                assert_eq!(relative(bytes), relative(&b[name]), "{run}/{name}");
            } else if name != "metadata.json" {
                assert!(bytes == &b[name], "{run}/{name} differs");
            }
        }
    }
    let meta = |root: &Path| -> Value {
        let text = std::fs::read_to_string(root.join("runs/more/metadata.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    };
    let (ma, mb) = (meta(whole.path()), meta(bounded.path()));
    for key in [
        "frame_count",
        "time_span_s",
        "agents",
        "commands",
        "trajectory_files",
    ] {
        assert_eq!(ma[key], mb[key], "{key}");
    }
    let rec = &mb["recording"];
    assert_eq!(rec["frames_in_memory"], 5);
    assert_eq!(rec["frames_spilled"].as_u64().unwrap(), total - 5);
    assert_eq!(rec["frames_dropped"], 0);
    assert_eq!(rec["commands_dropped"], 0);
    assert_eq!(ma["recording"]["frames_spilled"], 0);

    // Every frame, every agent, in order, each command present.
    let timeline = lines(&bounded.path().join("runs/more/agent_timeline.jsonl"));
    let frames: Vec<u64> = timeline
        .iter()
        .map(|r| r["frame"].as_u64().unwrap())
        .collect();
    let mut distinct = frames.clone();
    distinct.dedup();
    assert_eq!(distinct, (0..total).collect::<Vec<_>>(), "no gap");
    let text = std::fs::read_to_string(bounded.path().join("runs/more/commands.jsonl")).unwrap();
    for id in LITERAL_IDS {
        assert!(
            text.contains(&format!("\"request_id\":{id},")),
            "{id} kept as sent"
        );
    }
    let commands = lines(&bounded.path().join("runs/more/commands.jsonl"));
    assert!(
        commands.len() > 5,
        "commands spilled too: {}",
        commands.len()
    );
    let ids: Vec<u64> = commands
        .iter()
        .map(|c| c["command_id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, (0..ids.len() as u64).collect::<Vec<_>>());
    for row in timeline.iter().filter(|r| !r["command"].is_null()) {
        let id = row["command"]["command_id"].as_u64().unwrap();
        assert_eq!(
            commands[id as usize], row["command"],
            "the row links to the logged command"
        );
    }

    // The spill goes with the simulation that made it.
    drop(spilling);
    assert!(
        !spill_root.exists(),
        "spill removed: {}",
        spill_root.display()
    );
}

#[test]
fn a_memory_bound_of_zero_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let refused = oceansim_sim::Simulation::new(oceansim_sim::SimConfig {
        record_memory_frames: 0,
        export_root: root.path().to_path_buf(),
        ..oceansim_sim::SimConfig::default()
    });
    assert!(matches!(refused, Err(oceansim_sim::SimError::Config(_))));
}
