//! The `oceansim` command: a headless OceanSim-compatible simulator.

use clap::{Parser, Subcommand};
use oceansim_server::{
    disable_transparent_huge_pages, is_loopback, raise_open_file_limit, run_blocking_attached,
    Attached, ServerConfig,
};
use oceansim_sim::{SimConfig, Simulation};
use std::io::Write;

/// `println!` that lets a reader go: `oceansim replay RUN | head` closes
/// stdout early, which is not an error (`println!` would panic on it).
macro_rules! say {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

mod replay;
mod ros2_args;
mod viewer_args;

use ros2_args::Ros2Args;
use viewer_args::{start_viewer, viewer_addr, viewer_fps, VIEWER_ADDR, VIEWER_MAX_FPS};

// Replies are built from many short-lived strings and JSON values; mimalloc
// answers a paused `step` 14-30 % faster in process than the system
// allocator (server_bench, side by side).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser, Debug)]
#[command(
    name = "oceansim",
    version,
    about = "Headless OceanSim-compatible simulator: protocol v2 (newline-delimited JSON over TCP)",
    long_about = "Headless OceanSim-compatible simulator.\n\nSpeaks the OceanSim TCP protocol v2 (newline-delimited JSON) so controllers written against the OceanSim Python SDK connect unchanged. The main AUV runs Fossen 6-DOF dynamics from a vehicle profile; proxy agents, obstacles, seeded terrain, sensors, acoustic messages and dataset export are simulated headlessly, faster than real time when asked.\n\nWith no command, `serve` runs on its defaults (127.0.0.1:9876, Static_Map).",
    after_help = "Examples:\n  oceansim                                   serve Static_Map on 127.0.0.1:9876\n  oceansim serve --scenario Dynamic_Map --paused --port 0\n  oceansim validate assets/scenarios/NarrowMap.json\n  oceansim run --duration 600 --out runs/survey   600 s headless, then exported\n  oceansim replay runs/survey               summary of an exported run\n  oceansim replay runs/survey --viewer      play it in the browser (127.0.0.1:8080)\n  oceansim serve --viewer                   watch live in the browser at http://127.0.0.1:8080/\n  oceansim serve --ros2                     ROS 2 topics over Zenoh (rmw_zenoh) on 127.0.0.1:7447\n  oceansim serve --log-format json          one JSON object per log line on stderr\n  RUST_LOG=debug oceansim serve             verbose logs on stderr"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Log level of the oceansim crates: trace, debug, info, warn, error, off
    /// (RUST_LOG, when set, replaces it).
    #[arg(long, global = true, default_value = "info")]
    log_level: String,
    /// Log format: simple, compact, standard, detailed or json (one object
    /// per line). Colour codes only on a terminal.
    #[arg(long, global = true, default_value = "standard")]
    log_format: String,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the simulator server (the default).
    Serve(Box<ServeArgs>),
    /// Validate scenario or vehicle-profile JSON files and report every problem.
    Validate {
        /// Scenario names, scenario files or profile files (`*.json`).
        #[arg(required = true)]
        files: Vec<String>,
    },
    /// List the shipped scenarios and vehicle profiles.
    List,
    /// Simulate a scenario headless (no socket) as fast as the machine
    /// allows, driven by a scripted controller, and export the run.
    Run(RunArgs),
    /// Print the summary of an exported run directory; with --viewer, play
    /// it in the browser with a time slider.
    Replay {
        /// The run directory (holds metadata.json and agent_timeline.jsonl).
        run_dir: PathBuf,
        /// Serve the run's page on ADDR (default 127.0.0.1:8080) until
        /// Ctrl-C or SIGTERM.
        #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = VIEWER_ADDR, value_parser = viewer_addr)]
        viewer: Option<SocketAddr>,
    },
}

#[derive(Parser, Debug, Clone)]
struct RunArgs {
    /// Scenario name or scenario JSON path.
    #[arg(long, default_value = "Static_Map")]
    scenario: String,
    /// Simulated seconds to run.
    #[arg(long, default_value_t = 60.0)]
    duration: f64,
    /// Run directory to write (replaced whole if it exists).
    #[arg(long, default_value = "oceansim-runs/run")]
    out: PathBuf,
    /// Terrain and noise seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// survey: a lawnmower over the map at the start depth (waypoint PID);
    /// hold: no command.
    #[arg(long, default_value = "survey", value_parser = ["survey", "hold"])]
    controller: String,
    /// No progress bar, even on a terminal.
    #[arg(long)]
    quiet: bool,
    /// Most recorded frames kept in memory; older ones spill to disk
    /// beside the run directory and are still exported.
    #[arg(long, value_name = "N", default_value_t = oceansim_sim::MAX_RECORDED_SAMPLES, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    record_memory_frames: usize,
    /// Most MiB of recorded frames (sensor samples included) kept in
    /// memory; older ones spill to disk the same way.
    #[arg(long, value_name = "MIB", default_value_t = oceansim_sim::MAX_RECORDED_BYTES >> 20, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1 << 20))]
    record_memory_mib: usize,
    /// Record trajectories and commands only: no sensor samples (imaging
    /// sensors then never render), for long runs (see docs/datasets.md
    /// for the cost of keeping them).
    #[arg(long)]
    no_sensor_data: bool,
    /// Write no ROS 2 bag (`rosbag2/` in the run directory, which `ros2
    /// bag info` and `ros2 bag play` read; see docs/datasets.md).
    #[arg(long)]
    no_rosbag2: bool,
}

#[derive(Parser, Debug, Clone)]
struct ServeArgs {
    /// Address to bind; anything but loopback exposes the simulator to the network.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// TCP port (0 picks a free one; the first stdout line says which).
    #[arg(long, default_value_t = 9876)]
    port: u16,
    /// Scenario name (Static_Map, Dynamic_Map, NarrowMap, PaleMap) or a scenario JSON path.
    #[arg(long, default_value = "Static_Map")]
    scenario: String,
    /// Seed of terrain, procedural obstacles, sensor noise and acoustic drops.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Vehicle profile name or JSON path (default: the scenario's).
    #[arg(long)]
    profile: Option<String>,
    /// Start with the clock paused (drive it with `step`).
    #[arg(long)]
    paused: bool,
    /// Clock speed as a multiple of real time.
    #[arg(long, default_value_t = 1.0)]
    time_scale: f64,
    /// Physics tick (s).
    #[arg(long, default_value_t = 0.01)]
    tick: f64,
    /// Control period advanced by each `step` (s); a whole number of ticks.
    #[arg(long, default_value_t = 0.1)]
    step_period: f64,
    /// Directory exports and snapshots are confined to.
    #[arg(long, default_value = "oceansim-exports")]
    export_root: PathBuf,
    /// Most simultaneous client connections (1 to 65536); more get one
    /// error line and are closed.
    #[arg(long, default_value_t = 64, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=65_536))]
    max_connections: usize,
    /// Seconds a client may take from the first byte of a line to its
    /// newline before it is told so and disconnected.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0, value_parser = timeout_secs)]
    partial_line_timeout_secs: f64,
    /// Seconds a client may stay idle between requests before it is told
    /// so and disconnected (default: idle clients stay connected).
    #[arg(long, value_name = "SECONDS", value_parser = timeout_secs)]
    idle_timeout_secs: Option<f64>,
    /// Seconds a client may accept none of a reply's bytes before it is
    /// disconnected.
    #[arg(long, default_value_t = 10.0)]
    write_stall_secs: f64,
    /// Microseconds the server stays awake after each reply for the
    /// client's next line (0: sleep at once). A lockstep client that
    /// answers within it saves the thread's wake-up; one that does not
    /// is waited for ever more rarely.
    #[arg(long, value_name = "MICROSECONDS", default_value_t = oceansim_server::DEFAULT_SPIN.as_micros() as u64, value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(0..=100_000))]
    spin_us: u64,
    /// Reply bytes (MiB) that may wait for slow readers, over all clients.
    #[arg(long, default_value_t = 96)]
    max_unsent_mib: usize,
    /// Stamp sensor samples' `timestamp_wall` with the simulated time
    /// instead of the wall clock, so paused-and-stepped runs reply
    /// byte-identically.
    #[arg(long)]
    deterministic: bool,
    /// Start from a `save_snapshot_json` file: its scenario, seed, profile
    /// and clock settings replace those options, and the run goes on from
    /// where it was saved, bit for bit.
    #[arg(long, value_name = "FILE")]
    snapshot: Option<PathBuf>,
    /// Show the simulation live in the browser, served on ADDR (default
    /// 127.0.0.1:8080): map, side view, overlays, and pause and
    /// time-scale controls.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = VIEWER_ADDR, value_parser = viewer_addr)]
    viewer: Option<SocketAddr>,
    /// Most updates a second the viewer sends to a page (wall time, 1 to
    /// 120): lower it to spare a slow browser or a remote link.
    #[arg(long, value_name = "HZ", default_value_t = VIEWER_MAX_FPS, value_parser = viewer_fps, requires = "viewer")]
    viewer_fps: f64,
    /// Record trajectories and commands only, not the sensor samples
    /// (which exports otherwise carry as per-sensor series, images, point
    /// clouds, MCAP and rosbag2 channels, imaging sensors rendering at their
    /// rates): for long runs, see docs/datasets.md for the cost.
    #[arg(long, conflicts_with = "record_sensor_data")]
    no_sensor_data: bool,
    /// Keep every sensor sample in the recording (the default; kept so
    /// older scripts still start).
    #[arg(long, hide = true)]
    record_sensor_data: bool,
    /// Simulated seconds between recorded frames (a whole number of
    /// ticks; default: every control period).
    #[arg(long, value_name = "SECONDS")]
    record_period: Option<f64>,
    /// Most recorded frames (and logged commands) kept in memory; older
    /// ones spill to disk under the export root and are still exported.
    #[arg(long, value_name = "N", default_value_t = oceansim_sim::MAX_RECORDED_SAMPLES, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    record_memory_frames: usize,
    /// Most MiB of recorded frames (sensor samples included) kept in
    /// memory; older ones spill to disk the same way.
    #[arg(long, value_name = "MIB", default_value_t = oceansim_sim::MAX_RECORDED_BYTES >> 20, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1 << 20))]
    record_memory_mib: usize,
    /// Most MiB this server writes under the export root: exports, packs,
    /// snapshots and the recorder's spill together. A request past it is
    /// refused (invalid_message naming the budget) and leaves nothing.
    #[arg(long, value_name = "MIB", default_value_t = oceansim_sim::DEFAULT_EXPORT_BUDGET_BYTES >> 20, value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..=1 << 24))]
    export_budget_mib: u64,
    /// Most sensor samples waiting for their render: the imaging sensors'
    /// samples that only the recording asks for render on worker threads
    /// while the simulation runs ahead; past this many (or 64 MiB of frames
    /// waiting for them) it waits for the oldest (none is dropped). An
    /// export waits for them, the server answering others meanwhile. 0
    /// renders them inside the tick. The samples and exports are the same
    /// either way. Default 16,384, or 64 with a live view (--viewer,
    /// --ros2, --ros2-dds), which shows frames once their renders are
    /// done and so stays within a few simulated seconds of the present.
    #[arg(long, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=oceansim_sim::MAX_RENDERS_IN_FLIGHT_LIMIT as u64))]
    renders_in_flight: Option<usize>,
    /// The ROS 2 bridge's options.
    #[command(flatten)]
    bridge: Ros2Args,
}

impl Default for ServeArgs {
    fn default() -> Self {
        ServeArgs::parse_from(["serve"])
    }
}

/// A timeout option: a positive number of seconds, at most a day.
fn timeout_secs(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(t) if t > 0.0 && t <= 86_400.0 => Ok(t),
        _ => Err("expected a number of seconds above 0 and at most 86400".into()),
    }
}

/// Waits for SIGINT or SIGTERM (Ctrl-C elsewhere) and names it.
async fn stop_signal() -> &'static str {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        // Without a handler SIGTERM kills at once, mid-export.
        let mut term = signal(SignalKind::terminate())
            .map_err(|e| tracing::warn!("SIGTERM not handled: {e}"))
            .ok();
        let sigterm = async {
            match term.as_mut() {
                Some(t) => t.recv().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => "SIGINT",
            _ = sigterm => "SIGTERM",
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
        "Ctrl-C"
    }
}

/// Resolves on the first SIGINT or SIGTERM, the start of an orderly stop;
/// from then on a second one exits at once (130).
async fn shutdown_signal() {
    let first = stop_signal().await;
    tracing::info!(
        "{first}: shutting down once the requests in progress are answered (again to exit at once)"
    );
    tokio::spawn(async {
        let again = stop_signal().await;
        tracing::warn!("{again} again: exiting now");
        std::process::exit(130);
    });
}

/// Logs go to stderr (stdout carries the `listening on` line); colour
/// codes only on a terminal, so a log redirected to a file is plain text.
fn init_logging(cli: &Cli) -> Result<(), oceansim_log::LogError> {
    let format: oceansim_log::LogFormat = cli.log_format.parse()?;
    oceansim_log::LogConfig::new(&cli.log_level)?
        .format(format)
        .init()
}

fn serve(args: ServeArgs) -> ExitCode {
    if !(args.write_stall_secs.is_finite() && args.write_stall_secs > 0.0) {
        eprintln!("error: --write-stall-secs must be a positive number of seconds");
        return ExitCode::from(2);
    }
    let config = SimConfig {
        scenario: args.scenario.clone(),
        seed: args.seed,
        profile: args.profile.clone(),
        tick_s: args.tick,
        step_period_s: args.step_period,
        paused: args.paused,
        time_scale: args.time_scale,
        export_root: args.export_root.clone(),
        deterministic: args.deterministic,
        record_sensor_data: !args.no_sensor_data,
        record_period_s: args.record_period,
        record_memory_frames: args.record_memory_frames,
        record_memory_bytes: args.record_memory_mib << 20,
        export_budget_bytes: args.export_budget_mib << 20,
        renders_in_flight: args.renders_in_flight.unwrap_or(
            if args.viewer.is_some() || args.bridge.asked() {
                oceansim_sim::LIVE_VIEW_RENDERS_IN_FLIGHT
            } else {
                oceansim_sim::MAX_RENDERS_IN_FLIGHT
            },
        ),
    };
    // A snapshot's replay writes under the root too: its budget first.
    oceansim_sim::DiskBudget::set_limit(&args.export_root, config.export_budget_bytes);
    let built = match &args.snapshot {
        None => Simulation::new(config),
        Some(file) => oceansim_sim::read_text_file(file, oceansim_sim::MAX_SNAPSHOT_BYTES)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))
            .and_then(|t| {
                Simulation::from_snapshot_text(t, args.export_root.clone())
                    .map_err(|e| format!("{}: {e}", file.display()))
            })
            .map_err(oceansim_sim::SimError::Config),
    };
    let sim = match built {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let listener = match std::net::TcpListener::bind((args.host.as_str(), args.port)) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: cannot listen on {}:{}: {e}", args.host, args.port);
            return ExitCode::FAILURE;
        }
    };
    let addr = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let viewer = match start_viewer(&args, &sim) {
        Ok(v) => v,
        Err(code) => return code,
    };
    let ros2 = match args.bridge.start() {
        Ok(b) => b,
        Err(code) => return code,
    };
    // Scripts and tests read the port from this first line (and the
    // viewer's from the second).
    say!("listening on {addr}");
    #[cfg(feature = "viewer")]
    if let Some(v) = &viewer {
        say!("viewer on {}", v.url());
        if !is_loopback(&v.addr()) {
            tracing::warn!("viewer bound to {}, which is not loopback: any host that can reach it can watch and pause the simulator", v.addr());
        }
    }
    #[cfg(feature = "ros2")]
    if let Some(endpoint) = &args.bridge.ros2 {
        let role = if args.bridge.ros2_connect {
            "client of"
        } else {
            "router on"
        };
        say!(
            "ros2 bridge: zenoh {role} {endpoint}, domain {}",
            args.bridge.ros2_domain
        );
    }
    #[cfg(feature = "ros2")]
    if let (true, Some(b)) = (args.bridge.ros2_dds, &ros2) {
        say!(
            "ros2 bridge: dds participant {}, domain {}, discovery {}",
            b.zid(),
            args.bridge.ros2_domain,
            args.bridge.ros2_dds_range
        );
    }
    let _ = std::io::stdout().flush();
    if !is_loopback(&addr) {
        tracing::warn!("bound to {addr}, which is not loopback: any host that can reach it can drive the simulator");
    }
    tracing::info!(scenario = %args.scenario, seed = args.seed, paused = args.paused, time_scale = args.time_scale, "simulator ready");
    let server = ServerConfig {
        max_connections: args.max_connections,
        write_stall: std::time::Duration::from_secs_f64(args.write_stall_secs.min(86_400.0)),
        max_unsent_bytes: args.max_unsent_mib.saturating_mul(1 << 20),
        spin: std::time::Duration::from_micros(args.spin_us),
        partial_line_timeout: std::time::Duration::from_secs_f64(args.partial_line_timeout_secs),
        idle_timeout: args
            .idle_timeout_secs
            .map(std::time::Duration::from_secs_f64),
        ..ServerConfig::default()
    };
    let shutdown = shutdown_signal();
    let attached = Attached {
        #[cfg(feature = "viewer")]
        viewer,
        #[cfg(feature = "ros2")]
        ros2,
    };
    #[cfg(not(feature = "ros2"))]
    let _ = ros2;
    #[cfg(not(feature = "viewer"))]
    let _ = viewer;
    match run_blocking_attached(listener, sim, server, attached, shutdown) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn validate(files: &[String]) -> ExitCode {
    let mut failed = false;
    for f in files {
        // A profile declares its mass; anything else is read as a scenario.
        let is_profile = oceansim_sim::read_text_file(f.as_ref(), oceansim_sim::MAX_SCENARIO_BYTES)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .is_some_and(|v| v.get("mass_kg").is_some());
        let result = if is_profile {
            oceansim_vehicles::VehicleProfile::load(f)
                .map_err(|e| e.to_string())
                .and_then(|p| oceansim_sim::check_sensor_mounts(&p).map(|()| p))
                .map(|p| {
                    format!(
                        "vehicle profile `{}`: {} kg, {} thrusters, {} control surfaces, {} propellers, {:?} integrator",
                        p.name,
                        p.mass_kg,
                        p.thrusters.len(),
                        p.control_surfaces.len(),
                        p.propellers.len(),
                        p.integrator
                    )
                })
        } else {
            oceansim_sim::load_scenario(f)
                .map(|s| {
                    format!(
                        "scenario `{}`: {} agents, {} declared obstacles",
                        s.scenario.id,
                        s.agents.len(),
                        s.obstacles.len()
                    )
                })
                .map_err(|e| e.to_string())
        };
        match result {
            Ok(msg) => say!("ok    {f}: {msg}"),
            Err(e) => {
                failed = true;
                say!("error {f}:");
                for part in e.split("; ") {
                    say!("        {part}");
                }
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn list() -> ExitCode {
    say!("scenarios:");
    for s in oceansim_sim::builtin_names() {
        if let Ok(l) = oceansim_sim::load_scenario(s) {
            say!(
                "  {s:<12} {} ({})",
                l.scenario.display_name,
                l.scenario.tags.join(", ")
            );
        }
    }
    say!("vehicle profiles:");
    for name in oceansim_vehicles::VehicleProfile::builtin_names() {
        let p = oceansim_vehicles::VehicleProfile::builtin(name);
        let shown = p.map_or_else(|_| String::new(), |p| p.display_name.unwrap_or_default());
        let default = if name == oceansim_vehicles::DEFAULT_PROFILE {
            " (default)"
        } else {
            ""
        };
        say!("  {name}{default}: {shown}");
    }
    ExitCode::SUCCESS
}

/// `oceansim run`: a progress bar on a terminal, a summary at the end.
fn run(args: &RunArgs) -> ExitCode {
    use oceansim_server::headless::{Controller, HeadlessRun};
    use std::io::IsTerminal;
    let job = HeadlessRun {
        scenario: args.scenario.clone(),
        seed: args.seed,
        duration_s: args.duration,
        controller: if args.controller == "hold" {
            Controller::Hold
        } else {
            Controller::Survey
        },
        out: args.out.clone(),
        record_memory_frames: args.record_memory_frames,
        record_memory_bytes: args.record_memory_mib << 20,
        sensor_data: !args.no_sensor_data,
        rosbag2: !args.no_rosbag2,
    };
    let bar = !args.quiet && std::io::stderr().is_terminal();
    let started = std::time::Instant::now();
    let result = job.run(|t, total| {
        if bar {
            let f = (t / total).clamp(0.0, 1.0);
            let filled = (f * 30.0).round() as usize;
            let speed = t / started.elapsed().as_secs_f64().max(1e-9);
            eprint!(
                "\r[{}{}] {:>3.0}%  {t:.1}/{total:.1} s simulated, {speed:.0}x real time ",
                "#".repeat(filled),
                ".".repeat(30 - filled),
                100.0 * f
            );
        }
    });
    if bar {
        eprintln!();
    }
    match result {
        Ok(r) => {
            say!(
                "simulated {:.1} s in {:.2} s ({:.0}x real time); {} waypoints reached",
                r.sim_time_s,
                r.wall_s,
                r.sim_time_s / r.wall_s.max(1e-9),
                r.waypoints_reached
            );
            let dir = r.export["export_dir"].as_str().unwrap_or("?");
            say!("run written to {dir} ({} frames)", r.export["samples"]);
            say!("replay it with: oceansim replay {dir}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error [{}]: {e}", e.code());
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    disable_transparent_huge_pages();
    // Every client and viewer socket is a descriptor; the soft default
    // (often 1,024) is what a crowd exhausts first.
    let _ = raise_open_file_limit();
    let cli = Cli::parse();
    if let Err(e) = init_logging(&cli) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    match cli.command.unwrap_or(Command::Serve(Box::default())) {
        Command::Serve(args) => serve(*args),
        Command::Validate { files } => validate(&files),
        Command::List => list(),
        Command::Run(args) => run(&args),
        Command::Replay { run_dir, viewer } => replay::replay(&run_dir, viewer),
    }
}
