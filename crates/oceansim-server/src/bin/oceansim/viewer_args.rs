//! The `--viewer` options of `serve` and `replay`: their parsing, and the
//! live viewer they start (refused, naming the feature, in a build
//! without it).

use super::{ServeArgs, Simulation};
#[cfg(feature = "viewer")]
use oceansim_viewer::{Mode, Viewer, ViewerConfig, MAX_FPS_RANGE as VIEWER_FPS_RANGE};
#[cfg(feature = "viewer")]
pub(super) use oceansim_viewer::{DEFAULT_ADDR as VIEWER_ADDR, DEFAULT_MAX_FPS as VIEWER_MAX_FPS};
use std::net::SocketAddr;
use std::process::ExitCode;

// Without the viewer the options still parse (with the viewer's defaults),
// so that asking for it is refused with a message that names the feature.
#[cfg(not(feature = "viewer"))]
pub(super) const VIEWER_ADDR: &str = "127.0.0.1:8080";
#[cfg(not(feature = "viewer"))]
pub(super) const VIEWER_MAX_FPS: f64 = 30.0;
#[cfg(not(feature = "viewer"))]
pub(super) const VIEWER_FPS_RANGE: std::ops::RangeInclusive<f64> = 1.0..=120.0;

/// What `--viewer` says on a binary built without the viewer.
#[cfg(not(feature = "viewer"))]
pub(super) const NO_VIEWER: &str = "error: --viewer needs the `viewer` cargo feature (on by default), and this oceansim was built without it; \
     build it in with `cargo run --release -p oceansim-server -- serve --viewer` (default features) \
     or `--features viewer`";

/// The live viewer `--viewer` asks for, started.
#[cfg(feature = "viewer")]
pub(super) fn start_viewer(args: &ServeArgs, sim: &Simulation) -> Result<Option<Viewer>, ExitCode> {
    let Some(at) = args.viewer else {
        return Ok(None);
    };
    let title = format!("{} (seed {})", sim.scenario_id(), args.seed);
    let config = ViewerConfig::new(at, Mode::Live)
        .title(title)
        .max_fps(args.viewer_fps);
    match Viewer::start(config) {
        Ok(v) => Ok(Some(v)),
        Err(e) => {
            eprintln!("error [{}]: {e}", e.code());
            Err(ExitCode::FAILURE)
        }
    }
}

/// Without the `viewer` feature, `--viewer` is refused (and there is
/// never a viewer).
#[cfg(not(feature = "viewer"))]
pub(super) fn start_viewer(
    args: &ServeArgs,
    _: &Simulation,
) -> Result<Option<std::convert::Infallible>, ExitCode> {
    if args.viewer.is_some() {
        eprintln!("{NO_VIEWER}");
        return Err(ExitCode::from(2));
    }
    Ok(None)
}

/// A viewer rate: a number of updates a second within the viewer's
/// `MAX_FPS_RANGE`.
pub(super) fn viewer_fps(s: &str) -> Result<f64, String> {
    let range = VIEWER_FPS_RANGE;
    match s.trim().parse::<f64>() {
        Ok(hz) if range.contains(&hz) => Ok(hz),
        _ => Err(format!(
            "expected updates a second from {} to {}",
            range.start(),
            range.end()
        )),
    }
}

/// A viewer address: `HOST:PORT`, the host a name (`localhost`) or an IP.
pub(super) fn viewer_addr(s: &str) -> Result<SocketAddr, String> {
    use std::net::ToSocketAddrs;
    s.to_socket_addrs()
        .map_err(|e| format!("{s}: {e} (expected HOST:PORT, e.g. 127.0.0.1:8080)"))?
        .next()
        .ok_or_else(|| format!("{s} names no address"))
}
