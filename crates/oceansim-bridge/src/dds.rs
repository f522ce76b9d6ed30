//! ROS 2's naming over DDS, as `rmw_fastrtps_cpp` and `rmw_cyclonedds_cpp`
//! write it: the DDS topic and type of a ROS topic, the QoS of its
//! endpoints, and the `ros_discovery_info` sample that makes a participant
//! a named node in `ros2 node list`. Pure functions, tested in every build;
//! the live participant is [`Bridge::start_dds`](crate::Bridge) (the `dds`
//! feature).
//!
//! * Topic: `rt/<fully qualified topic without its leading />` (`/auv/odom`
//!   is `rt/auv/odom`).
//! * Type: `<package>::msg::dds_::<Type>_` ([`crate::keys::dds_type_name`]).
//! * Node: a sample of `rmw_dds_common/msg/ParticipantEntitiesInfo` on the
//!   DDS topic `ros_discovery_info` (reliable, transient local, keep last
//!   1): the participant's gid and, per node, its namespace, its name and
//!   the gids (the DDS GUIDs, 16 bytes) of its readers and writers.
//! * Discovery range: [`DiscoveryRange::Localhost`] (the default, ROS 2's
//!   `ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST`): no multicast socket, only
//!   127.0.0.1 advertised, participant announcements sent by unicast to
//!   127.0.0.1's well-known discovery ports of the domain
//!   (`7400 + 250 × domain + 10 + 2 × participant`).
//!   [`DiscoveryRange::Subnet`]: every interface, and multicast
//!   `239.255.0.1:7400 + 250 × domain` as DDS does by default.

use crate::error::{BridgeError, Result};
use crate::keys;
use oceansim_ros2::CdrWriter;

/// The DDS topic that carries `ros_discovery_info`.
pub const DISCOVERY_INFO_TOPIC: &str = "ros_discovery_info";

/// The DDS type of `ros_discovery_info`.
pub const DISCOVERY_INFO_TYPE: &str = "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_";

/// The longest namespace or node name `NodeEntitiesInfo` holds
/// (`string<=256`).
pub const MAX_NAME: usize = 256;

/// Where the DDS participant looks for peers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DiscoveryRange {
    /// This host only: unicast to 127.0.0.1, no multicast, only 127.0.0.1
    /// advertised.
    #[default]
    Localhost,
    /// Every interface and DDS's multicast discovery: ROS 2 nodes on other
    /// hosts of the subnet find the simulator, and can drive it.
    Subnet,
}

impl std::str::FromStr for DiscoveryRange {
    type Err = BridgeError;

    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "localhost" => Ok(DiscoveryRange::Localhost),
            "subnet" => Ok(DiscoveryRange::Subnet),
            _ => Err(BridgeError::Config(format!(
                "discovery range {s:?}: expected localhost or subnet"
            ))),
        }
    }
}

/// How the DDS bridge joins the ROS 2 graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DdsConfig {
    /// ROS domain id (`ROS_DOMAIN_ID`, 0–232): the DDS domain.
    pub domain_id: u32,
    /// A namespace for the vehicles' topics and the node (`""` or `/`:
    /// the root; `/sim`: `/sim/<vehicle>/odom`).
    pub namespace: String,
    /// The node's name.
    pub node_name: String,
    /// Where peers are looked for.
    pub range: DiscoveryRange,
    /// Batches that may wait for the DDS thread; more are dropped.
    pub queue: usize,
}

impl Default for DdsConfig {
    fn default() -> Self {
        DdsConfig {
            domain_id: 0,
            namespace: String::new(),
            node_name: "oceansim".to_owned(),
            range: DiscoveryRange::Localhost,
            queue: 64,
        }
    }
}

impl DdsConfig {
    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(BridgeError::Config(m));
        if self.domain_id > 232 {
            return bad(format!(
                "domain id {}: ROS domain ids are 0 to 232",
                self.domain_id
            ));
        }
        keys::check_ros_name("namespace", &self.namespace, true).map_err(BridgeError::Config)?;
        keys::check_ros_name("node name", &self.node_name, false).map_err(BridgeError::Config)?;
        if self.namespace.len() > MAX_NAME || self.node_name.len() > MAX_NAME {
            return bad(format!(
                "namespace and node name are at most {MAX_NAME} bytes each"
            ));
        }
        if self.queue == 0 {
            return bad("queue must hold at least one batch".into());
        }
        Ok(())
    }

    /// The node's namespace as `ros_discovery_info` writes it (`/` for the
    /// root).
    pub fn node_namespace(&self) -> String {
        let ns = self.namespace.trim_end_matches('/');
        if ns.is_empty() {
            "/".to_owned()
        } else if ns.starts_with('/') {
            ns.to_owned()
        } else {
            format!("/{ns}")
        }
    }
}

/// The DDS topic of a fully qualified ROS topic: `/auv/odom` → `rt/auv/odom`.
pub fn topic_name(ros_topic: &str) -> String {
    format!("rt/{}", ros_topic.trim_start_matches('/'))
}

/// The CDR payload (header included) of a `ParticipantEntitiesInfo` with
/// one node: `participant`'s gid, then the node's namespace, name, reader
/// gids and writer gids.
pub fn participant_entities_info(
    participant: [u8; 16],
    namespace: &str,
    name: &str,
    readers: &[[u8; 16]],
    writers: &[[u8; 16]],
) -> Vec<u8> {
    let mut w = CdrWriter::with_capacity(64 + 16 * (readers.len() + writers.len()));
    // Gid: char[16].
    w.write_bytes(&participant);
    // NodeEntitiesInfo[]: one.
    w.write_len(1);
    w.write_string(namespace);
    w.write_string(name);
    for gids in [readers, writers] {
        w.write_len(gids.len());
        for g in gids {
            w.write_bytes(g);
        }
    }
    w.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use oceansim_ros2::CdrReader;

    #[test]
    fn topics_are_rt_prefixed_and_types_dds_mangled() {
        assert_eq!(topic_name("/auv/main/odom"), "rt/auv/main/odom");
        assert_eq!(topic_name("/clock"), "rt/clock");
        assert_eq!(
            keys::dds_type_name("nav_msgs/msg/Odometry"),
            "nav_msgs::msg::dds_::Odometry_"
        );
    }

    #[test]
    fn ranges_parse_and_configs_are_checked() {
        assert_eq!(
            "localhost".parse::<DiscoveryRange>().unwrap(),
            DiscoveryRange::Localhost
        );
        assert_eq!(
            "SUBNET".parse::<DiscoveryRange>().unwrap(),
            DiscoveryRange::Subnet
        );
        assert_eq!(
            "lan".parse::<DiscoveryRange>().unwrap_err().code(),
            "bridge_config"
        );
        assert!(DdsConfig::default().validate().is_ok());
        let with = |f: fn(&mut DdsConfig)| {
            let mut c = DdsConfig::default();
            f(&mut c);
            c.validate().map_err(|e| e.code())
        };
        assert_eq!(with(|c| c.domain_id = 233), Err("bridge_config"));
        assert_eq!(with(|c| c.namespace = "a b".into()), Err("bridge_config"));
        assert_eq!(with(|c| c.node_name = "a/b".into()), Err("bridge_config"));
        assert_eq!(
            with(|c| c.node_name = "n".repeat(257)),
            Err("bridge_config")
        );
        assert_eq!(with(|c| c.queue = 0), Err("bridge_config"));
        let ns = |s: &str| {
            DdsConfig {
                namespace: s.into(),
                ..DdsConfig::default()
            }
            .node_namespace()
        };
        assert_eq!(ns(""), "/");
        assert_eq!(ns("/"), "/");
        assert_eq!(ns("/sim/"), "/sim");
        assert_eq!(ns("sim"), "/sim");
    }

    /// The layout of rmw_dds_common's messages: `char[16]` gids (no
    /// length, no alignment), bounded strings as CDR strings, sequences
    /// with a 4-byte count.
    #[test]
    fn participant_entities_info_is_rmw_dds_commons_layout() {
        let p = [1u8; 16];
        let (r, w1, w2) = ([2u8; 16], [3u8; 16], [4u8; 16]);
        let cdr = participant_entities_info(p, "/", "oceansim", &[r], &[w1, w2]);
        let mut rd = CdrReader::new(&cdr).unwrap();
        assert_eq!(rd.read_bytes(16).unwrap(), &p);
        assert_eq!(rd.read_len(1).unwrap(), 1);
        assert_eq!(rd.read_string().unwrap(), "/");
        assert_eq!(rd.read_string().unwrap(), "oceansim");
        assert_eq!(rd.read_len(16).unwrap(), 1);
        assert_eq!(rd.read_bytes(16).unwrap(), &r);
        assert_eq!(rd.read_len(16).unwrap(), 2);
        assert_eq!(rd.read_bytes(16).unwrap(), &w1);
        assert_eq!(rd.read_bytes(16).unwrap(), &w2);
        rd.finish().unwrap();
        // Header, gid, count, "/\0" (4 + 2), padding 2, "oceansim\0" (4 +
        // 9), padding 3, then 4 + 16 and 4 + 32.
        assert_eq!(cdr.len(), 4 + 16 + 4 + 6 + 2 + 13 + 3 + 20 + 36);
    }
}
