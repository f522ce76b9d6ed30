//! Release smoke checks and helpers for oceansim-rs.
//!
//! ```text
//! cargo xtask smoke    # end-to-end checks of every crate's front door
//! cargo xtask bench    # every bench in release, one table of figures and ratios
//! cargo xtask wheel-features  # python/ and the root resolve shared crates alike
//! cargo xtask import-circles  # circles of imports between each crate's files
//! ```
//!
//! Each check prints one line; the process exits non-zero on the first
//! failure, so CI and release scripts can run it as is.

use std::process::ExitCode;

mod bench;
mod circles;
mod features;
mod runtime;
mod smoke;

const USAGE: &str = "\
cargo xtask <command>

Commands:
  smoke    release smoke checks: protocol round trip, agent contracts,
           vehicle profiles, a surge integration against its analytic
           steady speed, 20 steps through the real TCP server, and the
           agent runtime through the Rust client against the real
           `oceansim` binary; prints a pass/fail table (default)
  bench    every bench in release: one table of figures and ratios,
           written with the full outputs to target/bench-report.md
           (`cargo xtask bench --help` for options)
  wheel-features
           check that the root workspace and the Python wheel's
           (python/) resolve every crate they share with the same
           features, so the wheel builds from what `cargo test` compiled
  import-circles [--check]
           the circles of imports between each crate's files (each
           file's `use` trees and inline paths, through re-exports,
           tests left out); `--check` fails if one has more than two
           files
  help     this text
";

fn main() -> ExitCode {
    let cmd = std::env::args().nth(1).unwrap_or_else(|| "smoke".into());
    match cmd.as_str() {
        "smoke" => match smoke::run() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("smoke check failed: {e}");
                ExitCode::FAILURE
            }
        },
        "bench" => {
            let rest: Vec<String> = std::env::args().skip(2).collect();
            match bench::run(&rest) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("bench failed: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        "wheel-features" => match features::run() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("wheel-features: {e}");
                ExitCode::FAILURE
            }
        },
        "import-circles" => {
            let rest: Vec<String> = std::env::args().skip(2).collect();
            match circles::run(&rest) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("import-circles: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        "help" | "-h" | "--help" => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        other => {
            eprintln!("unknown command `{other}`\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}
