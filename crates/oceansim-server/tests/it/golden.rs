//! Golden replies: a script of requests covering every action family
//! (`golden/script.jsonl`: state and sensors in both forms, steps, the
//! motion commands, agents, overlays, the current, acoustics, the map,
//! snapshots, the clock, batches, an export, rebuilds, and refused or
//! malformed lines) sent to the real `serve --paused --deterministic`, each
//! reply compared byte for byte with the one recorded in
//! `golden/replies.txt`. It pins the replies while the runtime under them
//! is rebuilt (issue 52: "replies byte-identical to before").
//!
//! Only what legitimately varies between runs is normalised: the export
//! root's temporary path, and a packed export's zip size (it differs by a
//! few bytes between two runs of the same binary). A long reply is kept as its length, a 64-bit
//! FNV-1a hash of its bytes and its head, so the fixture stays readable.
//!
//! To record the fixture again (only when a reply is meant to change):
//! `OCEANSIM_GOLDEN_RECORD=1 cargo test -p oceansim-server --test it -- golden`.

use crate::common::{spawn_oceansim, Client, KillOnDrop};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const SCRIPT: &str = include_str!("golden/script.jsonl");
/// Replies longer than this are kept as length, hash and head.
const KEEP_WHOLE: usize = 6_000;
/// How much of a long reply's head is kept.
const HEAD: usize = 240;

fn fixture_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/golden/replies.txt")
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The reply as the fixture keeps it: the export root replaced by
/// `<ROOT>`, a zip's size by `<ZIP_BYTES>`, a long reply reduced to its length, hash and head.
fn normalise(reply: &str, roots: &[String]) -> String {
    let mut r = reply.trim_end_matches('\n').to_owned();
    for root in roots {
        r = r.replace(root.as_str(), "<ROOT>");
    }
    const ZIP: &str = ".zip\",\"bytes\":";
    if let Some(at) = r.find(ZIP).map(|i| i + ZIP.len()) {
        let digits = r[at..].bytes().take_while(u8::is_ascii_digit).count();
        r.replace_range(at..at + digits, "<ZIP_BYTES>");
    }
    if r.len() <= KEEP_WHOLE {
        return r;
    }
    let mut head = HEAD;
    while !r.is_char_boundary(head) {
        head -= 1;
    }
    format!(
        "#len={} fnv={:016x} head={}",
        r.len(),
        fnv1a(r.as_bytes()),
        &r[..head]
    )
}

/// Every request of the script and its normalised reply, as the fixture
/// writes them.
fn run_script() -> String {
    let root = tempfile::tempdir().unwrap();
    let (child, addr) = spawn_oceansim(&["--paused", "--deterministic"], root.path());
    let _server = KillOnDrop(child);
    let mut c = Client::connect(addr.parse().unwrap());
    let mut roots = vec![root.path().display().to_string()];
    if let Ok(real) = root.path().canonicalize() {
        roots.insert(0, real.display().to_string());
    }
    let mut out = String::new();
    for line in SCRIPT.lines() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        c.send_raw(format!("{line}\n").as_bytes());
        let reply = c.recv_line();
        writeln!(out, "> {line}\n< {}", normalise(&reply, &roots)).unwrap();
    }
    out
}

#[test]
fn golden_replies_are_byte_identical_to_the_recorded_ones() {
    let got = run_script();
    if std::env::var_os("OCEANSIM_GOLDEN_RECORD").is_some() {
        std::fs::write(fixture_path(), &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(fixture_path()).expect("the recorded fixture");
    let (want, got): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    for (i, (w, g)) in want.iter().zip(&got).enumerate() {
        assert_eq!(
            g,
            w,
            "line {} of golden/replies.txt differs (request: {})",
            i + 1,
            want[i & !1]
        );
    }
    assert_eq!(
        got.len(),
        want.len(),
        "the script and the fixture differ in length"
    );
}
