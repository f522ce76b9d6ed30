//! Hardening III, items 3, 4 and 7 (the agent limit's wording is checked
//! in `fleet`): `oceansim replay` on run directories a
//! hostile hand has forged, and names that would forge its output.
//!
//! Before: `metadata.json` or `commands.jsonl` a link to `/dev/zero` grew
//! the process by 1.5 GB in 6 s without end; `agent_timeline.jsonl` a FIFO
//! hung it forever; an agent named with ESC, BEL, CR or U+202E retitled
//! the terminal, cleared it and printed a forged row; a timeline whose time
//! ran backwards, at frame 2^64-1 and positions of 1e308, was replayed.

use crate::support::attack::soak::rss_kib;
use crate::support::attack::{exclusive, Server, RSS_BOUND_KIB};
use serde_json::{json, Value};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_oceansim"))
}

/// A real run of 2 simulated seconds in `root/name`, as `oceansim run`
/// writes it.
fn a_run(root: &Path, name: &str) -> PathBuf {
    let dir = root.join(name);
    let out = bin()
        .args([
            "run",
            "--duration",
            "2",
            "--quiet",
            "--no-sensor-data",
            "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

/// What `oceansim replay` did with a run.
struct Replayed {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    took: Duration,
    peak_kib: u64,
}

/// Runs `oceansim replay dir`, killing it after 10 s (a hang is a
/// failure, not a stuck test), watching its peak memory.
fn replay(dir: &Path) -> Replayed {
    let t = Instant::now();
    let mut child = bin()
        .arg("replay")
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pipe = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            let _ = r.read_to_end(&mut s);
            s
        })
    };
    let out = pipe(Box::new(child.stdout.take().unwrap()));
    let err = pipe(Box::new(child.stderr.take().unwrap()));
    let mut peak_kib = 0;
    let status = loop {
        if let Some((_, hwm)) = rss_kib(child.id()) {
            peak_kib = peak_kib.max(hwm);
        }
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if t.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    Replayed {
        code: status.and_then(|s| s.code()),
        stdout: text(out.join().unwrap()),
        stderr: text(err.join().unwrap()),
        took: t.elapsed(),
        peak_kib,
    }
}

/// A refused replay: a clear error with `code`, at once, small.
fn assert_refused(r: &Replayed, code: &str, says: &str, what: &str) {
    assert!(r.code.is_some(), "{what}: still running after {:?}", r.took);
    assert_ne!(r.code, Some(0), "{what}: replayed\n{}", r.stdout);
    assert!(
        r.stderr.contains(&format!("[{code}]")) && r.stderr.contains(says),
        "{what}: {}",
        r.stderr
    );
    assert!(r.took < Duration::from_secs(5), "{what}: took {:?}", r.took);
    assert!(
        r.peak_kib <= RSS_BOUND_KIB,
        "{what}: peak {} KiB",
        r.peak_kib
    );
}

#[cfg(unix)]
#[test]
fn replay_reads_no_link_device_fifo_or_oversized_file() {
    let _turn = exclusive();
    let root = tempfile::tempdir().unwrap();
    let good = a_run(root.path(), "good");
    let r = replay(&good);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout.contains("auv/main"), "{}", r.stdout);

    let forged = |name: &str, file: &str, make: &dyn Fn(&Path)| {
        let dir = a_run(root.path(), name);
        let path = dir.join(file);
        std::fs::remove_file(&path).unwrap();
        make(&path);
        dir
    };
    let zero = |p: &Path| std::os::unix::fs::symlink("/dev/zero", p).unwrap();
    let outside = root.path().join("outside.json");
    std::fs::copy(good.join("metadata.json"), &outside).unwrap();
    let fifo = |p: &Path| {
        let ok = Command::new("mkfifo").arg(p).status().unwrap();
        assert!(ok.success());
    };
    let sparse = |p: &Path| {
        // A regular file past the cap, costing no disk (sparse).
        let f = std::fs::File::create(p).unwrap();
        f.set_len(oceansim_dataset::MAX_RUN_FILE_BYTES + 1).unwrap();
    };
    // (case, file replaced, how, what the refusal says)
    type Case<'a> = (&'a str, &'a str, &'a dyn Fn(&Path), &'a str);
    let cases: [Case<'_>; 5] = [
        ("meta_zero", "metadata.json", &zero, "symbolic link"),
        ("commands_zero", "commands.jsonl", &zero, "symbolic link"),
        (
            "meta_outside",
            "metadata.json",
            &|p: &Path| std::os::unix::fs::symlink(&outside, p).unwrap(),
            "symbolic link",
        ),
        ("timeline_fifo", "agent_timeline.jsonl", &fifo, "a FIFO"),
        (
            "timeline_huge",
            "agent_timeline.jsonl",
            &sparse,
            "-byte cap on a run's file",
        ),
    ];
    for (name, file, make, says) in cases {
        let dir = forged(name, file, make);
        assert_refused(&replay(&dir), "dataset_io", says, name);
    }
}

/// Rows of a real run's timeline, for forging.
fn timeline(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("agent_timeline.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn write_timeline(dir: &Path, rows: &[Value]) {
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(dir.join("agent_timeline.jsonl"), text).unwrap();
}

#[test]
fn names_with_control_characters_are_refused_and_never_printed_raw() {
    // On the protocol: every id a client names is printable text.
    let server = Server::start();
    let mut c = server.conn();
    for name in [
        "evil\u{1b}]0;pwned\u{7}",
        "a\rb",
        "a\nauv/main 999999",
        "nul\u{0}",
        "\u{202e}niam/vua",
        "del\u{7f}",
    ] {
        let r = c.cmd(
            "spawn_agent",
            json!({"agent_name": name, "location": [1, 2, -3]}),
        );
        assert_eq!(r["error_code"], "invalid_message", "{name:?}: {r}");
        assert!(
            r["message"]
                .as_str()
                .unwrap_or_default()
                .contains("printable"),
            "{r}"
        );
    }
    let r = c.cmd("get_agents", json!({}));
    assert_eq!(r["data"]["count"], 1, "nothing was spawned: {r}");
    // Printable names of any script are fine (beside the main AUV, in
    // Godot coordinates).
    let g = c.cmd("get_state", json!({}))["data"]["position_godot"].clone();
    let at = [
        g[0].as_f64().unwrap() + 3.0,
        g[1].as_f64().unwrap(),
        g[2].as_f64().unwrap(),
    ];
    let r = c.cmd(
        "spawn_agent",
        json!({"agent_name": "bouée 世界", "location": at}),
    );
    assert_eq!(r["status"], "ok", "{r}");
    drop(server);

    // From a forged run: the summary shows them escaped.
    let _turn = exclusive();
    let root = tempfile::tempdir().unwrap();
    let dir = a_run(root.path(), "names");
    let mut rows = timeline(&dir);
    for r in &mut rows {
        r["agent"] = "x\u{1b}]0;pwned\u{7}\u{1b}[2J\nauv/main 999999\u{202e}".into();
    }
    write_timeline(&dir, &rows);
    let r = replay(&dir);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    for raw in ['\u{1b}', '\u{7}', '\u{202e}'] {
        assert!(
            !r.stdout.contains(raw),
            "{raw:?} printed raw:\n{}",
            r.stdout
        );
    }
    assert!(
        !r.stdout.lines().any(|l| l.starts_with("auv/main 999999")),
        "a forged row:\n{}",
        r.stdout
    );
    assert!(r.stdout.contains("\\u{1b}]0;pwned\\u{7}"), "{}", r.stdout);
}

#[test]
fn forged_timelines_out_of_order_or_range_are_refused() {
    let _turn = exclusive();
    let root = tempfile::tempdir().unwrap();
    type Forge = fn(&mut Vec<Value>);
    let cases: [(&str, Forge, &str); 4] = [
        (
            "backwards",
            |rows| {
                let n = rows.len();
                rows[n - 1]["time"] = json!(-1.0);
            },
            "time",
        ),
        (
            "late",
            |rows| {
                let n = rows.len();
                rows[n - 1]["frame"] = json!(u64::MAX);
                rows[n - 1]["time"] = json!(1e300);
            },
            "time 1e300",
        ),
        (
            "far",
            |rows| {
                let n = rows.len();
                rows[n - 1]["state"]["position"] = json!([1e308, 0.0, -6.0]);
            },
            "position",
        ),
        (
            "earlier",
            |rows| {
                let n = rows.len();
                let t = rows[0]["time"].clone();
                rows[n - 1]["time"] = t;
            },
            "time runs backwards",
        ),
    ];
    for (name, forge, says) in cases {
        let dir = a_run(root.path(), name);
        let mut rows = timeline(&dir);
        forge(&mut rows);
        write_timeline(&dir, &rows);
        assert_refused(&replay(&dir), "dataset_inconsistent", says, name);
    }
}

#[test]
fn snapshot_names_of_dots_are_refused() {
    let server = Server::start();
    let mut c = server.conn();
    for bad in ["..", ".", "x/..", "x/.", "./", "snaps/"] {
        let r = c.cmd("save_snapshot_json", json!({"path": bad}));
        assert_eq!(r["error_code"], "invalid_message", "{bad:?}: {r}");
    }
    let mut left: Vec<String> = std::fs::read_dir(server.exports())
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    left.retain(|n| n.ends_with(".json"));
    assert_eq!(
        left,
        Vec::<String>::new(),
        "no `...json` or `.json` written"
    );
    let r = c.cmd("save_snapshot_json", json!({"path": "snaps/a"}));
    assert_eq!(r["status"], "ok", "{r}");
}
