//! The swarm examples' shared options: `[OUT_DIR] [--viewer [ADDR]]
//! [--speed X] [--n N]`, and the browser viewer they stream to.

#![allow(dead_code)]

use oceansim_viewer::{Mode, SwarmView, Viewer, ViewerConfig};
use std::net::SocketAddr;
use std::path::PathBuf;

/// What the command line asked for.
pub struct Args {
    /// Where files go.
    pub out: PathBuf,
    /// Serve the live view here.
    pub viewer: Option<SocketAddr>,
    /// Simulated seconds per wall second while a viewer watches.
    pub speed: f64,
    /// Entities, when the example lets you choose.
    pub n: Option<usize>,
}

const USAGE: &str = "usage: [OUT_DIR] [--viewer [ADDR]] [--speed SIM_S_PER_WALL_S] [--n ENTITIES]";

/// Parses the arguments (exits with the usage on a bad one).
pub fn parse() -> Args {
    let mut a = Args {
        out: PathBuf::from("target/examples-output"),
        viewer: None,
        speed: 1.0,
        n: None,
    };
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    let fail = |msg: String| -> ! {
        eprintln!("{msg}\n{USAGE}");
        std::process::exit(2)
    };
    while i < raw.len() {
        let next_value = |i: usize| raw.get(i + 1).filter(|v| !v.starts_with("--"));
        match raw[i].as_str() {
            "--viewer" => {
                let addr = next_value(i).map_or(oceansim_viewer::DEFAULT_ADDR, String::as_str);
                if next_value(i).is_some() {
                    i += 1;
                }
                a.viewer = Some(
                    addr.parse()
                        .unwrap_or_else(|e| fail(format!("--viewer {addr}: {e}"))),
                );
            }
            "--speed" => {
                let v = next_value(i).unwrap_or_else(|| fail("--speed needs a value".into()));
                a.speed = v
                    .parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s > 0.0)
                    .unwrap_or_else(|| fail(format!("--speed {v}: a positive number")));
                i += 1;
            }
            "--n" => {
                let v = next_value(i).unwrap_or_else(|| fail("--n needs a value".into()));
                a.n = Some(
                    v.parse::<usize>()
                        .ok()
                        .filter(|n| (1..=100_000).contains(n))
                        .unwrap_or_else(|| fail(format!("--n {v}: 1 to 100000"))),
                );
                i += 1;
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0)
            }
            other if other.starts_with("--") => fail(format!("unknown option {other}")),
            dir => a.out = PathBuf::from(dir),
        }
        i += 1;
    }
    a
}

/// Starts the viewer when asked, and says where.
pub fn start(args: &Args, title: &str) -> Option<Viewer> {
    let addr = args.viewer?;
    match Viewer::start(ViewerConfig::new(addr, Mode::Swarm).title(title)) {
        Ok(v) => {
            println!(
                "viewer on {} (the run waits 2 s for a page, then plays at {}x real time)",
                v.url(),
                args.speed
            );
            Some(v)
        }
        Err(e) => {
            eprintln!("error [{}]: {e}", e.code());
            std::process::exit(1)
        }
    }
}

/// The engine sink for `viewer`, paced to `args.speed`; waits up to two
/// seconds for a page so the start is not missed.
pub fn sink(viewer: &Viewer, args: &Args, view: SwarmView) -> oceansim_swarm::scenarios::Observer {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    while viewer.clients() == 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    Box::new(viewer.engine_sink(view.pace(args.speed)))
}

/// Keeps the page up after the run until Enter (or end of input).
pub fn hold(viewer: Option<Viewer>) {
    if let Some(v) = viewer {
        println!(
            "run finished; the page at {} shows its end. Press Enter to quit.",
            v.url()
        );
        let mut line = String::new();
        let _ = std::io::stdin().read_line(&mut line);
    }
}
