//! `cargo xtask wheel-features`: does the Python wheel (`python/`, built
//! alone by maturin: `-p oceansim-python`) build every crate it shares
//! with the rest of the workspace with feature lists the workspace builds
//! too?
//!
//! Cargo hashes a crate's enabled features into its build, and every
//! crate above it inherits the difference. When the two resolves differ in
//! one feature of one low crate (`serde_core`'s `default`, say), building
//! the wheel after `cargo test --workspace` compiles nalgebra, tokio,
//! serde and everything on them a second time: minutes of `.ci/run` on a
//! two-core machine. `xtask/Cargo.toml` and `python/Cargo.toml` each turn
//! on the other side's extra features; this command checks that they still
//! do after a dependency update, and names what to add where.
//!
//! A crate the root builds with more feature lists than the wheel (a
//! proc-macro's host build of `rand` for Zenoh's macros, say) costs the
//! wheel nothing: what matters is that each list the wheel builds is one
//! the root has compiled.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// Package name and version, to the set of feature lists Cargo resolved
/// for it (more than one when host and target builds differ).
type Resolved = BTreeMap<(String, String), BTreeSet<String>>;

/// Runs the check from the repository root; `Err` lists the differences.
pub fn run() -> Result<(), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("xtask has no parent directory")?;
    // The root as `cargo test` and `cargo clippy --all-targets` build it,
    // dev-dependencies included; python/ has none.
    let ws = resolve(root, &["--workspace", "-e", "normal,build,dev"])?;
    // The wheel as maturin builds it: its package alone, whose features
    // Cargo resolves apart from the rest of the workspace.
    let py = resolve(root, &["-p", "oceansim-python", "-e", "normal,build"])?;
    let report = compare(&ws, &py);
    if report.is_empty() {
        let shared = ws.keys().filter(|k| py.contains_key(*k)).count();
        println!("wheel-features: the {shared} crates both workspaces build resolve alike");
        Ok(())
    } else {
        Err(format!(
            "these crates resolve differently in the root workspace and in python/, so the \
             wheel's build compiles them (and everything on them) again:\n{}\n\
             turn the root-only features on in python/Cargo.toml and the python-only ones in \
             xtask/Cargo.toml ([build-dependencies] for host-side crates such as syn)",
            report.join("\n")
        ))
    }
}

fn resolve(root: &Path, which: &[&str]) -> Result<Resolved, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(root)
        .arg("tree")
        .args(which)
        .args([
            "--locked",
            "--prefix",
            "none",
            "--no-dedupe",
            "-f",
            "{p}|{f}",
        ])
        .output()
        .map_err(|e| format!("cargo tree: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo tree {}: {}",
            which.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(parse(&String::from_utf8_lossy(&out.stdout)))
}

/// Parses `{p}|{f}` lines: `name vX.Y.Z [(path)] [(proc-macro)]|f1,f2`.
/// A crate built with two feature lists (for the host and for the
/// target) has both in its set.
fn parse(text: &str) -> Resolved {
    let mut map = Resolved::new();
    for line in text.lines() {
        let Some((pkg, features)) = line.split_once('|') else {
            continue;
        };
        let mut words = pkg.split_whitespace();
        let (Some(name), Some(version)) = (words.next(), words.next()) else {
            continue;
        };
        map.entry((name.to_owned(), version.to_owned()))
            .or_default()
            .insert(features.trim().to_owned());
    }
    map
}

/// One line per crate both use of which python/ builds a version the root
/// does not (the two lock files drifted apart: a `cargo update` on one
/// side only), and per shared crate whose feature lists differ.
fn compare(ws: &Resolved, py: &Resolved) -> Vec<String> {
    let versions = |r: &Resolved, name: &str| -> BTreeSet<String> {
        r.keys()
            .filter(|k| k.0 == name)
            .map(|k| k.1.clone())
            .collect()
    };
    let names: BTreeSet<&str> = ws.keys().map(|k| k.0.as_str()).collect();
    let mut report: Vec<String> = names
        .into_iter()
        .filter_map(|name| {
            let (a, b) = (versions(ws, name), versions(py, name));
            // Versions the root builds and python/ does not are harmless
            // (dev-dependencies); one python/ builds alone is drift.
            (!b.is_subset(&a) && !a.is_empty()).then(|| {
                format!(
                    "  {name}: versions differ, root {a:?}, python/ {b:?} (update the lock file)"
                )
            })
        })
        .collect();
    report.extend(ws.iter().filter_map(|(key, a)| {
        let b = py.get(key)?;
        (!b.is_subset(a)).then(|| format!("  {} {}: root {:?}, python/ {:?}", key.0, key.1, a, b))
    }));
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_feature_on_one_side_only_is_reported() {
        let ws = parse("tokio v1.0.0|default,net,signal\nserde v1.0.0|default,std\n");
        let py = parse("tokio v1.0.0|default,net\nserde v1.0.0|default,std\nnumpy v0.30.0|\n");
        let report = compare(&ws, &py);
        assert_eq!(report.len(), 1, "{report:?}");
        assert!(report[0].contains("tokio") && report[0].contains("signal"));
    }

    #[test]
    fn every_feature_list_the_wheel_builds_must_be_the_roots() {
        // Built twice by the root (host and target): the wheel's one build
        // is among them, so it is reused.
        let ws = parse("syn v3.0.0|full\nsyn v3.0.0|full,extra-traits\n");
        let py = parse("syn v3.0.0|full\n");
        assert!(compare(&ws, &py).is_empty());
        // Built twice by the wheel, once by the root: one is new.
        assert_eq!(compare(&py, &ws).len(), 1);
        assert!(compare(&ws, &ws).is_empty());
    }

    #[test]
    fn a_version_on_one_side_only_is_reported() {
        let ws = parse("rand v0.8.5|std\nsyn v2.0.1|full\nsyn v3.0.0|full\n");
        let py = parse("rand v0.8.6|std\nsyn v2.0.1|full\nsyn v3.0.0|full\n");
        let report = compare(&ws, &py);
        assert_eq!(report.len(), 1, "{report:?}");
        assert!(report[0].contains("rand") && report[0].contains("0.8.6"));
    }
}
