//! The `--ros2` and `--ros2-dds` options of `serve`: their parsing, and
//! the bridge they start (refused, naming the feature, in a build without
//! it).

use std::process::ExitCode;

/// The ROS 2 bridge's options (flattened into `serve`'s).
#[derive(clap::Args, Debug, Clone)]
pub(super) struct Ros2Args {
    /// Publish the vehicles as ROS 2 topics over Zenoh, as ROS 2's
    /// rmw_zenoh middleware speaks it: a Zenoh router on ENDPOINT (default
    /// tcp/127.0.0.1:7447) that nodes started with
    /// RMW_IMPLEMENTATION=rmw_zenoh_cpp connect to. Needs the `ros2` cargo
    /// feature (`--features ros2`). See docs/ros2.md.
    #[arg(long, value_name = "ENDPOINT", num_args = 0..=1, default_missing_value = "tcp/127.0.0.1:7447")]
    pub(super) ros2: Option<String>,
    /// Connect to a Zenoh router already at the --ros2 endpoint
    /// (`ros2 run rmw_zenoh_cpp rmw_zenohd`) instead of being one.
    #[arg(long, requires = "ros2")]
    pub(super) ros2_connect: bool,
    /// ROS domain id (ROS_DOMAIN_ID, 0 to 232).
    #[arg(long, value_name = "ID", default_value_t = 0, value_parser = clap::builder::RangedU64ValueParser::<u32>::new().range(0..=232))]
    pub(super) ros2_domain: u32,
    /// Namespace for the bridge's node and the vehicles' topics (/clock
    /// and /tf stay at the root), e.g. /sim.
    #[arg(long, value_name = "NS", default_value = "")]
    pub(super) ros2_namespace: String,
    /// Let Zenoh find peers by UDP multicast scouting (off: nothing leaves
    /// the machine unless ENDPOINT says so).
    #[arg(long, requires = "ros2")]
    pub(super) ros2_scouting: bool,
    /// Publish the vehicles as ROS 2 topics over DDS, as ROS 2's default
    /// middlewares (Fast DDS, Cyclone DDS) speak it: a DDS participant and
    /// a node named oceansim that stock ROS 2 nodes see with no change to
    /// their RMW_IMPLEMENTATION. Needs the `ros2` cargo feature. See
    /// docs/ros2.md.
    #[arg(long, conflicts_with = "ros2")]
    pub(super) ros2_dds: bool,
    /// Where the DDS participant looks for ROS 2 nodes: localhost (unicast
    /// on 127.0.0.1, no multicast) or subnet (every interface and DDS
    /// multicast: other hosts find it, and can drive the vehicles).
    #[arg(long, value_name = "RANGE", default_value = "localhost", value_parser = ["localhost", "subnet"], requires = "ros2_dds")]
    pub(super) ros2_dds_range: String,
}

impl Ros2Args {
    /// Whether a bridge (Zenoh or DDS) is asked for.
    pub(super) fn asked(&self) -> bool {
        self.ros2.is_some() || self.ros2_dds
    }

    /// The ROS 2 bridge `--ros2` or `--ros2-dds` asks for, started, or the
    /// exit code of why not.
    #[cfg(feature = "ros2")]
    pub(super) fn start(&self) -> Result<Option<oceansim_server::bridge::Bridge>, ExitCode> {
        use oceansim_server::bridge::{Bridge, BridgeConfig, DdsConfig, Mode as BridgeMode};
        if self.ros2_dds {
            let config = DdsConfig {
                domain_id: self.ros2_domain,
                namespace: self.ros2_namespace.clone(),
                range: match self.ros2_dds_range.parse() {
                    Ok(r) => r,
                    Err(e) => {
                        eprintln!("error [bridge_config]: {e}");
                        return Err(ExitCode::from(2));
                    }
                },
                ..DdsConfig::default()
            };
            return match Bridge::start_dds(config) {
                Ok(b) => {
                    if self.ros2_dds_range == "subnet" {
                        tracing::warn!("ros2 dds bridge: discovery on every interface and by multicast; any host of the network can read and drive the vehicles");
                    }
                    Ok(Some(b))
                }
                Err(e) => {
                    eprintln!("error [{}]: {e}", e.code());
                    Err(ExitCode::FAILURE)
                }
            };
        }
        let Some(endpoint) = &self.ros2 else {
            return Ok(None);
        };
        let mode = if self.ros2_connect {
            BridgeMode::Client
        } else {
            BridgeMode::Router
        };
        let config = BridgeConfig {
            endpoint: endpoint.clone(),
            mode,
            domain_id: self.ros2_domain,
            namespace: self.ros2_namespace.clone(),
            scouting: self.ros2_scouting,
            ..BridgeConfig::default()
        };
        let loopback = endpoint
            .strip_prefix("tcp/")
            .and_then(|a| a.rsplit_once(':'))
            .is_some_and(|(host, _)| {
                let host = host.trim_start_matches('[').trim_end_matches(']');
                host == "localhost"
                    || host
                        .parse::<std::net::IpAddr>()
                        .is_ok_and(|ip| ip.is_loopback())
            });
        match Bridge::start(config) {
            Ok(b) => {
                if !loopback && !self.ros2_connect {
                    tracing::warn!("ros2 bridge listens on {endpoint}, which is not loopback: any host that can reach it can read and drive the vehicles");
                }
                if self.ros2_scouting {
                    tracing::warn!("ros2 bridge: multicast scouting is on; the Zenoh session announces itself on the local network");
                }
                Ok(Some(b))
            }
            Err(e) => {
                eprintln!("error [{}]: {e}", e.code());
                Err(ExitCode::FAILURE)
            }
        }
    }

    /// Without the `ros2` feature, `--ros2` is refused (and there is never a
    /// bridge).
    #[cfg(not(feature = "ros2"))]
    pub(super) fn start(&self) -> Result<Option<std::convert::Infallible>, ExitCode> {
        if self.ros2.is_some() || self.ros2_dds {
            eprintln!(
                "error: --ros2 and --ros2-dds need the `ros2` cargo feature, and this oceansim was built without it; \
                 build it in with `cargo run --release -p oceansim-server --features ros2 -- serve --ros2` \
                 (or `cargo install --path crates/oceansim-server --features ros2`; see docs/ros2.md)"
            );
            return Err(ExitCode::from(2));
        }
        Ok(None)
    }
}
