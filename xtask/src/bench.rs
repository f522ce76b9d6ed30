//! `cargo xtask bench`: every bench of the workspace in one run, one table.
//!
//! The bench binaries (`*_bench` examples) measure against their baselines
//! side by side (numpy, scipy, a bare loop, an echo server) and print
//! ratios; the criterion benches print times. This runs them all in
//! release, keeps every figure line (a ratio `1.23x`, a rate `/s`, or a
//! criterion `time:`), prints one table and writes it, with the full
//! outputs, to a Markdown report.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

struct Bench {
    name: &'static str,
    package: &'static str,
    kind: Kind,
    quick: &'static [&'static str],
    full: &'static [&'static str],
}

enum Kind {
    /// A release example of a workspace crate.
    Example,
    /// A criterion bench target of `bench/criterion`, whose manifest
    /// `package` holds.
    Criterion,
    /// A bench crate outside the workspace (its own dependencies), by
    /// manifest path; `package` holds the path.
    Manifest,
}

/// The criterion benches' own manifest (outside the workspace).
const CRITERION_MANIFEST: &str = "bench/criterion/Cargo.toml";

const BENCHES: &[Bench] = &[
    Bench {
        name: "unicycle_bench",
        package: "oceansim-ecs",
        kind: Kind::Example,
        quick: &["--sizes", "10,1000,100000", "--steps", "200"],
        full: &[],
    },
    Bench {
        name: "consensus_bench",
        package: "oceansim-swarm",
        kind: Kind::Example,
        quick: &["--sizes", "1000,100000", "--steps", "50"],
        full: &[],
    },
    Bench {
        name: "fleet_bench",
        package: "oceansim-swarm",
        kind: Kind::Example,
        quick: &["--sizes", "1,100,10000", "--steps", "50"],
        full: &[],
    },
    Bench {
        name: "server_bench",
        package: "oceansim-server",
        kind: Kind::Example,
        quick: &["0.5"],
        full: &[],
    },
    Bench {
        name: "ros2_bench",
        package: "oceansim-server",
        kind: Kind::Example,
        quick: &["--rounds", "1", "--steps", "500", "--scales", "1,5"],
        full: &[],
    },
    Bench {
        name: "sensor_bench",
        package: "oceansim-sim",
        kind: Kind::Example,
        quick: &["0.2"],
        full: &[],
    },
    Bench {
        name: "parry_raycast",
        package: "bench/parry-raycast/Cargo.toml",
        kind: Kind::Manifest,
        quick: &["0.3"],
        full: &[],
    },
    Bench {
        name: "codec",
        package: CRITERION_MANIFEST,
        kind: Kind::Criterion,
        quick: &[],
        full: &[],
    },
    Bench {
        name: "dynamics",
        package: CRITERION_MANIFEST,
        kind: Kind::Criterion,
        quick: &[],
        full: &[],
    },
    Bench {
        name: "engine",
        package: CRITERION_MANIFEST,
        kind: Kind::Criterion,
        quick: &[],
        full: &[],
    },
    Bench {
        name: "consensus",
        package: CRITERION_MANIFEST,
        kind: Kind::Criterion,
        quick: &[],
        full: &[],
    },
];

const USAGE: &str = "cargo xtask bench [--quick] [--only NAME[,NAME]] [--out FILE]

Runs every bench in release and prints one table of figures and ratios.
  --quick   smaller sizes and 1 s criterion measurements (a few minutes)
  --only    run only these benches (names from the table below)
  --out     Markdown report with the table and every full output
            (default target/bench-report.md)";

/// A line worth keeping: a ratio, a rate, or a criterion time.
fn is_figure(line: &str) -> bool {
    let ratio = line
        .split(|c: char| c.is_whitespace() || c == '(' || c == ',')
        .any(|w| {
            w.strip_suffix('x')
                .is_some_and(|n| !n.is_empty() && n.parse::<f64>().is_ok())
        });
    let rate = line
        .split(|c: char| c.is_whitespace() || c == ',' || c == ')')
        .any(|w| w.ends_with("/s"));
    let share = line.split_whitespace().any(|w| {
        w.strip_suffix('%')
            .is_some_and(|n| !n.is_empty() && n.parse::<f64>().is_ok())
    });
    ratio || rate || share || line.contains("time:")
}

fn run_one(b: &Bench, quick: bool) -> Result<String, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    match b.kind {
        Kind::Example => {
            cmd.args([
                "run",
                "--quiet",
                "--release",
                "-p",
                b.package,
                "--example",
                b.name,
                "--",
            ]);
            cmd.args(if quick { b.quick } else { b.full });
        }
        Kind::Manifest => {
            cmd.args([
                "run",
                "--quiet",
                "--release",
                "--manifest-path",
                b.package,
                "--",
            ]);
            cmd.args(if quick { b.quick } else { b.full });
        }
        Kind::Criterion => {
            cmd.args([
                "bench",
                "--quiet",
                "--manifest-path",
                b.package,
                "--bench",
                b.name,
                "--",
                "--noplot",
            ]);
            if quick {
                cmd.args(["--warm-up-time", "0.5", "--measurement-time", "1"]);
            }
        }
    }
    let out = cmd.output().map_err(|e| format!("cannot run cargo: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.status.success() {
        Ok(text)
    } else {
        Err(format!(
            "{}\n{}",
            text,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// Criterion prints the bench id on one line and `time: [...]` on the
/// next (or the same line when the id is short); join them.
fn figures(output: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut previous = "";
    for line in output.lines() {
        let t = line.trim();
        if t.starts_with("time:") && !previous.is_empty() {
            out.push(format!("{previous} {t}"));
        } else if is_figure(t) {
            out.push(t.to_owned());
        }
        previous = if t.is_empty() || t.contains("time:") {
            ""
        } else {
            t
        };
    }
    out
}

/// Runs the benches per the command-line arguments.
pub fn run(args: &[String]) -> Result<(), String> {
    let mut quick = false;
    let mut only: Option<Vec<String>> = None;
    let mut out = PathBuf::from("target/bench-report.md");
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => quick = true,
            "--only" => {
                only = Some(
                    it.next()
                        .ok_or("--only needs names")?
                        .split(',')
                        .map(str::to_owned)
                        .collect(),
                )
            }
            "--out" => out = PathBuf::from(it.next().ok_or("--out needs a file")?),
            "-h" | "--help" => {
                println!(
                    "{USAGE}\n\nbenches: {}",
                    BENCHES
                        .iter()
                        .map(|b| b.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                return Ok(());
            }
            other => return Err(format!("unknown argument `{other}`\n\n{USAGE}")),
        }
    }
    if let Some(names) = &only {
        if let Some(bad) = names
            .iter()
            .find(|n| !BENCHES.iter().any(|b| b.name == n.as_str()))
        {
            return Err(format!("no bench named `{bad}`"));
        }
    }
    let selected: Vec<&Bench> = BENCHES
        .iter()
        .filter(|b| only.as_ref().is_none_or(|o| o.iter().any(|n| n == b.name)))
        .collect();
    let mut table = String::from("| bench | figure |\n|---|---|\n");
    let mut raw = String::new();
    let mut failed = Vec::new();
    for b in &selected {
        eprintln!(
            "running {} ({}){}",
            b.name,
            b.package,
            if quick { ", quick" } else { "" }
        );
        let started = Instant::now();
        let result = run_one(b, quick);
        let secs = started.elapsed().as_secs_f64();
        match result {
            Ok(text) => {
                let figs = figures(&text);
                if figs.is_empty() {
                    let _ = writeln!(
                        table,
                        "| {} | (no figure lines; see the full output) |",
                        b.name
                    );
                }
                for f in figs {
                    let _ = writeln!(table, "| {} | {} |", b.name, f.replace('|', "\\|"));
                }
                let _ = write!(
                    raw,
                    "\n## {} ({:.0} s)\n\n```text\n{}```\n",
                    b.name, secs, text
                );
            }
            Err(e) => {
                let _ = writeln!(table, "| {} | FAILED |", b.name);
                let _ = write!(raw, "\n## {} FAILED\n\n```text\n{e}\n```\n", b.name);
                failed.push(b.name);
            }
        }
    }
    println!("{table}");
    let report = format!(
        "# oceansim-rs bench report\n\n{} mode, {} thread(s) available.\n\n{table}\n# Full outputs\n{raw}",
        if quick { "quick" } else { "full" },
        std::thread::available_parallelism().map_or(1, usize::from)
    );
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(&out, report).map_err(|e| format!("{}: {e}", out.display()))?;
    println!("report: {}", out.display());
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("failed: {}", failed.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figure_lines_are_ratios_rates_and_times() {
        assert!(is_figure("  get_state   12000 round trips/s   0.71x echo"));
        assert!(is_figure("N=100000   3.52x scipy"));
        assert!(!is_figure("unicycle workload, 200 steps per run"));
        assert!(!is_figure("max x"));
        assert!(is_figure("imaging_sonar   64.0   5   320   0.03%"));
        let out = "engine/step/1000\n                        time:   [1.0 µs 1.1 µs 1.2 µs]\nshort time:   [2 ns 3 ns 4 ns]\nplain line\n";
        assert_eq!(
            figures(out),
            vec![
                "engine/step/1000 time:   [1.0 µs 1.1 µs 1.2 µs]".to_owned(),
                "short time:   [2 ns 3 ns 4 ns]".to_owned()
            ]
        );
    }
}
