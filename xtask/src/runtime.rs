//! The agent runtime check: the real `oceansim` binary driven through the
//! Rust client, as a user's program would.

use oceansim_agents::{list_control_schemes, AgentDefinition, ControlScheme};
use oceansim_client::blocking::{AgentFactory, Auv};
use oceansim_client::ConnectOptions;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The `oceansim` binary: `$OCEANSIM_BIN`, or next to this xtask binary
/// (`cargo test`/`cargo build` put both in the same target directory),
/// built there first when missing.
fn binary() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("OCEANSIM_BIN") {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let dir = exe.parent().ok_or("xtask has no directory")?;
    // Test binaries live one level down, in deps/.
    let dir = if dir.ends_with("deps") {
        dir.parent().unwrap_or(dir)
    } else {
        dir
    };
    let bin = dir.join(format!("oceansim{}", std::env::consts::EXE_SUFFIX));
    if !bin.exists() {
        let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args([
                "build",
                "--quiet",
                "-p",
                "oceansim-server",
                "--bin",
                "oceansim",
            ])
            .status()
            .map_err(|e| format!("cannot run cargo to build oceansim: {e}"))?;
        if !status.success() || !bin.exists() {
            return Err(format!("no oceansim binary at {}", bin.display()));
        }
    }
    Ok(bin)
}

/// The server process; killed on drop, whatever the check's outcome.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(export_root: &std::path::Path) -> Result<(Server, String), String> {
    let mut child = Command::new(binary()?)
        .args([
            "serve",
            "--port",
            "0",
            "--paused",
            "--deterministic",
            "--log-level",
            "warn",
            "--export-root",
        ])
        .arg(export_root)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start oceansim: {e}"))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let server = Server(child);
    let mut first = String::new();
    BufReader::new(stdout)
        .read_line(&mut first)
        .map_err(|e| e.to_string())?;
    let addr = first
        .trim()
        .strip_prefix("listening on ")
        .ok_or_else(|| format!("unexpected first line {first:?}"))?
        .to_owned();
    Ok((server, addr))
}

fn e(err: impl std::fmt::Display) -> String {
    err.to_string()
}

/// Starts the binary, builds one agent per control scheme through the
/// client, checks `get_agents`, the occupancy grid with and without
/// dynamic agents, and an export's timeline rows.
pub fn agent_runtime() -> Result<String, String> {
    let root = std::env::temp_dir().join(format!("oceansim-smoke-{}", std::process::id()));
    std::fs::create_dir_all(&root).map_err(e)?;
    let result = check(&root);
    let _ = std::fs::remove_dir_all(&root);
    result
}

fn check(root: &std::path::Path) -> Result<String, String> {
    let (_server, addr) = start(root)?;
    let options = ConnectOptions {
        retries: 20,
        interval: Duration::from_millis(50),
        ..Default::default()
    };
    let auv = Auv::connect_with(&addr, options).map_err(e)?;
    let mut acted = 0;
    for contract in list_control_schemes() {
        let scheme = contract.action_space.scheme;
        let def = match scheme {
            // Documented json! case: an agent definition as a user writes it.
            ControlScheme::ExternalVelocity => AgentDefinition::from_json(&json!({
                "agent_name": "smoke_proxy", "is_main_agent": false, "agent_type": "proxy_auv",
                "location": [3.0, -6.0, -15.0], "control_scheme": "external_velocity",
            }))
            .map_err(e)?,
            _ => AgentDefinition::new("auv/main").with_control_scheme(scheme),
        };
        let built = AgentFactory::build_agent(&auv, def, true);
        // The reserved scheme, and fins on the finless default torpedo.
        if matches!(
            scheme,
            ControlScheme::CustomDynamics6dof | ControlScheme::Fins
        ) {
            match built {
                Err(err) if err.code() == "unsupported_control_scheme" => continue,
                other => return Err(format!("{scheme}: expected a refusal, got {other:?}")),
            }
        }
        let agent = built.map_err(|err| format!("{scheme}: {err}"))?;
        let space = agent.action_space();
        // A small valid action inside any bounds: 0.1 of each field.
        let action: Vec<f64> = match scheme {
            ControlScheme::WaypointPid => vec![2.0, -15.0, 6.0],
            _ => vec![0.1; space.len()],
        };
        let reply = agent
            .act(&action)
            .map_err(|err| format!("{scheme}: {err}"))?;
        let state = agent.agent_state().map_err(e)?;
        if state["last_command"]["action"] != reply.action() {
            return Err(format!(
                "{scheme}: last_command {} after {}",
                state["last_command"],
                reply.action()
            ));
        }
        agent.clear_action().map_err(e)?;
        acted += 1;
    }
    let agents = auv.get_agents().map_err(e)?;
    let names: Vec<&str> = agents["agents"]
        .as_array()
        .ok_or("get_agents has no agents")?
        .iter()
        .filter_map(|a| a["id"].as_str())
        .collect();
    if names != ["auv/main", "smoke_proxy"] {
        return Err(format!("get_agents lists {names:?}"));
    }
    let count = |include: bool| -> Result<u64, String> {
        let request = oceansim_protocol::payload::TerrainGridRequest {
            include_dynamic_agents: Some(include),
            ..Default::default()
        };
        let grid = auv.get_terrain_grid(&request).map_err(e)?;
        grid["counts"]["dynamic_agent"]
            .as_u64()
            .ok_or_else(|| format!("grid without counts: {grid}"))
    };
    let (with, without) = (count(true)?, count(false)?);
    if with == 0 || without != 0 {
        return Err(format!(
            "grid marks {with} agent cells with agents, {without} without"
        ));
    }
    for _ in 0..5 {
        auv.client()
            // Documented json! case: the raw request a user's script sends.
            .send_command("step", Some(json!({})), None)
            .map_err(e)?;
    }
    // Documented json! case: export_dataset's options object, as a user passes it.
    let export = auv.export_dataset(json!({})).map_err(e)?;
    let timeline = export["files"]
        .as_array()
        .and_then(|f| {
            f.iter()
                .filter_map(Value::as_str)
                .find(|p| p.ends_with("agent_timeline.jsonl"))
        })
        .ok_or_else(|| format!("export lists no agent_timeline.jsonl: {export}"))?;
    let text = std::fs::read_to_string(timeline).map_err(|err| format!("{timeline}: {err}"))?;
    let rows: Vec<Value> = text
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()
        .map_err(|err| format!("timeline row is not JSON: {err}"))?;
    let proxy_rows = rows.iter().filter(|r| r["agent"] == "smoke_proxy").count();
    if rows.is_empty() || proxy_rows == 0 {
        return Err(format!(
            "{} timeline rows, {proxy_rows} for the proxy",
            rows.len()
        ));
    }
    let mcap = export["files"]
        .as_array()
        .and_then(|f| {
            f.iter()
                .filter_map(Value::as_str)
                .find(|p| p.ends_with("run.mcap"))
        })
        .ok_or_else(|| format!("export lists no run.mcap: {export}"))?;
    // At least a pose and a transform per timeline row, the scene and the
    // seabed (sensor messages come on top).
    let py = python_mcap_messages(mcap, 2 * rows.len() + 2)?;
    Ok(format!(
        "real binary on {addr}: {acted} schemes acted, custom_dynamics_6dof and fins refused; get_agents {names:?}; grid {with} agent cells; export {} timeline rows; {py}",
        rows.len()
    ))
}

/// Reads the MCAP file at `path` with Python's `mcap` package: every
/// message read must agree with the file's own statistics, and there must
/// be at least `at_least`. Without Python or the package it is skipped,
/// unless `OCEANSIM_REQUIRE_PY_MCAP` is set (as CI sets it).
fn python_mcap_messages(path: &str, at_least: usize) -> Result<String, String> {
    const SCRIPT: &str = "import sys\nfrom mcap.reader import make_reader\n\
with open(sys.argv[1], 'rb') as f:\n    r = make_reader(f)\n    n = sum(1 for _ in r.iter_messages())\n\
    print(n, r.get_summary().statistics.message_count)\n";
    let required = std::env::var_os("OCEANSIM_REQUIRE_PY_MCAP").is_some();
    let out = std::process::Command::new("python3")
        .args(["-c", SCRIPT, path])
        .output();
    let out = match out {
        Ok(o) if o.status.success() => o,
        Ok(o) if !required => {
            let why = String::from_utf8_lossy(&o.stderr);
            let why = why.lines().last().unwrap_or_default().to_owned();
            return Ok(format!("Python mcap check skipped ({why})"));
        }
        Err(err) if !required => return Ok(format!("Python mcap check skipped ({err})")),
        Ok(o) => {
            return Err(format!(
                "python's mcap reader failed on {path}: {}",
                String::from_utf8_lossy(&o.stderr)
            ))
        }
        Err(err) => return Err(format!("cannot run python3: {err}")),
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let counts: Vec<usize> = text
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    match counts[..] {
        [n, stats] if n == stats && n >= at_least => Ok(format!("Python mcap reads {n} messages")),
        _ => Err(format!(
            "python's mcap reader: {text:?} (messages read, statistics), want equal and >= {at_least}"
        )),
    }
}
