//! rmw_zenoh's naming: the key expression a topic's samples travel on,
//! the liveliness tokens that make nodes, publishers and subscriptions
//! visible to `ros2 node`/`ros2 topic`, the QoS text inside those tokens
//! and the attachment on every sample.
//!
//! * Topic key: `<domain>/<topic without its leading />/<DDS type>/<RIHS01 hash>`,
//!   e.g. `0/auv/odom/nav_msgs::msg::dds_::Odometry_/RIHS01_…`.
//! * Token: `@ros2_lv/<domain>/<zid>/<node id>/<entity id>/<NN|MP|MS>/<enclave>/<namespace>/<node>`
//!   and, for publishers and subscriptions, `/<topic>/<DDS type>/<hash>/<qos>`;
//!   names have their `/` written `%` (an empty enclave or the root
//!   namespace is `%`).
//! * QoS: `reliability:durability:history,depth:deadline s,ns:lifespan s,ns:liveliness,lease s,ns`,
//!   each field empty where it is rmw's default (reliable, volatile,
//!   keep last, no deadline, no lifespan, automatic liveliness), the depth
//!   always written.
//! * Attachment: Zenoh's serialization of `(sequence: i64, source
//!   timestamp: i64 ns, source gid: 16 bytes)`: two little-endian i64s, a
//!   one-byte length 16 and the gid, 33 bytes.

/// The liveliness admin space of rmw_zenoh.
pub const ADMIN_SPACE: &str = "@ros2_lv";

/// What a liveliness token stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntityKind {
    /// A node (`NN`).
    Node,
    /// A publisher (`MP`).
    Publisher,
    /// A subscription (`MS`).
    Subscription,
}

impl EntityKind {
    fn code(self) -> &'static str {
        match self {
            EntityKind::Node => "NN",
            EntityKind::Publisher => "MP",
            EntityKind::Subscription => "MS",
        }
    }
}

/// A topic's QoS, as far as the bridge sets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Qos {
    /// Reliable (rmw's default) or best effort.
    pub reliable: bool,
    /// Transient local (latched) rather than volatile.
    pub transient_local: bool,
    /// Keep-last depth.
    pub depth: u32,
}

impl Qos {
    /// rmw's default: reliable, volatile, keep last 10.
    pub const DEFAULT: Qos = Qos {
        reliable: true,
        transient_local: false,
        depth: 10,
    };
    /// `rclcpp::SensorDataQoS`: best effort, volatile, keep last 5, as ROS
    /// sensor drivers publish.
    pub const SENSOR_DATA: Qos = Qos {
        reliable: false,
        transient_local: false,
        depth: 5,
    };
    /// `/tf_static`'s: reliable, transient local, keep last 1.
    pub const LATCHED: Qos = Qos {
        reliable: true,
        transient_local: true,
        depth: 1,
    };

    /// The QoS text of a liveliness token.
    pub fn keyexpr(&self) -> String {
        // rmw enums: reliability best effort 2, durability transient local 1.
        format!(
            "{}:{}:,{}:,:,:,,",
            if self.reliable { "" } else { "2" },
            if self.transient_local { "1" } else { "" },
            self.depth
        )
    }
}

/// `pkg/msg/Name` → `pkg::msg::dds_::Name_`, the type name rmw_zenoh puts
/// in keys and tokens.
pub fn dds_type_name(ros_type: &str) -> String {
    match ros_type.rsplit_once('/') {
        Some((package, name)) => format!("{}::dds_::{name}_", package.replace('/', "::")),
        None => ros_type.to_owned(),
    }
}

/// The key a topic's samples are put on.
pub fn topic_key(domain: u32, topic: &str, ros_type: &str, type_hash: &str) -> String {
    format!(
        "{domain}/{}/{}/{type_hash}",
        topic.trim_matches('/'),
        dds_type_name(ros_type)
    )
}

/// `/` written `%`; an empty name is `%` too (Zenoh keys have no empty
/// chunks).
pub fn mangle(name: &str) -> String {
    if name.is_empty() {
        "%".to_owned()
    } else {
        name.replace('/', "%")
    }
}

/// The node a bridge is, for its tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeKey {
    /// ROS domain id.
    pub domain: u32,
    /// The Zenoh session id (hex, as Zenoh prints it).
    pub zid: String,
    /// The node's namespace (`/` for the root).
    pub namespace: String,
    /// The node's name.
    pub name: String,
}

/// A publisher's or subscription's topic, for its token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicKey<'a> {
    /// Fully qualified topic name (`/auv/odom`).
    pub topic: &'a str,
    /// ROS type name (`nav_msgs/msg/Odometry`).
    pub ros_type: &'a str,
    /// Its RIHS01 hash.
    pub type_hash: &'a str,
    /// Its QoS.
    pub qos: Qos,
}

/// The liveliness token of entity `id` of `node` (the node itself when
/// `topic` is `None`).
pub fn liveliness_token(
    node: &NodeKey,
    id: u64,
    kind: EntityKind,
    topic: Option<&TopicKey<'_>>,
) -> String {
    let mut key = format!(
        "{ADMIN_SPACE}/{}/{}/0/{id}/{}/%/{}/{}",
        node.domain,
        node.zid,
        kind.code(),
        mangle(&node.namespace),
        mangle(&node.name)
    );
    if let Some(t) = topic {
        key.push('/');
        key.push_str(&mangle(t.topic));
        key.push('/');
        key.push_str(&dds_type_name(t.ros_type));
        key.push('/');
        key.push_str(t.type_hash);
        key.push('/');
        key.push_str(&t.qos.keyexpr());
    }
    key
}

/// A 16-byte entity id from a token (128-bit FNV-1a; rmw_zenoh hashes the
/// same text with XXH3-128, and peers only compare gids for equality).
pub fn gid(token: &str) -> [u8; 16] {
    let mut h: u128 = 0x6c62272e07bb014262b821756295c58d;
    for b in token.bytes() {
        h ^= u128::from(b);
        h = h.wrapping_mul(0x0000000001000000000000000000013B);
    }
    h.to_le_bytes()
}

/// The attachment of a sample: sequence number, source timestamp (ns since
/// the Unix epoch) and the publisher's gid, serialized as rmw_zenoh does
/// with zenoh-ext's serializer: two little-endian `i64`s, then the gid as
/// a sequence (its length as a LEB128 varint, one byte for 16, and the
/// bytes). Written out here so the layout needs no Zenoh; the `zenoh`
/// feature's tests read it back with zenoh-ext's own deserializer.
pub fn attachment(sequence: i64, timestamp_ns: i64, gid: &[u8; 16]) -> Vec<u8> {
    let mut a = Vec::with_capacity(33);
    a.extend_from_slice(&sequence.to_le_bytes());
    a.extend_from_slice(&timestamp_ns.to_le_bytes());
    a.push(16);
    a.extend_from_slice(gid);
    a
}

/// Topics that stay at the root whatever the bridge's namespace.
pub const GLOBAL_TOPICS: [&str; 3] = ["/clock", "/tf", "/tf_static"];

/// `topic` under `namespace`, unless it is one of [`GLOBAL_TOPICS`].
pub fn join_namespace(namespace: &str, topic: &str) -> String {
    let ns = namespace.trim_end_matches('/');
    if ns.is_empty() || GLOBAL_TOPICS.contains(&topic) {
        topic.to_owned()
    } else {
        format!("{ns}{topic}")
    }
}

/// Checks a ROS name (namespace or node name): tokens of ASCII letters,
/// digits and `_`, not starting with a digit, separated by `/`.
pub fn check_ros_name(what: &str, name: &str, allow_slashes: bool) -> Result<(), String> {
    let body = name.strip_prefix('/').unwrap_or(name);
    if body.is_empty() {
        return if allow_slashes {
            Ok(())
        } else {
            Err(format!("{what} is empty"))
        };
    }
    for token in body.split('/') {
        let ok = !token.is_empty()
            && !token.starts_with(|c: char| c.is_ascii_digit())
            && token.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ok || (!allow_slashes && body.contains('/')) {
            return Err(format!(
                "{what} {name:?} is not a ROS name (letters, digits and _, not starting with a digit{})",
                if allow_slashes { ", tokens separated by /" } else { "" }
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HASH: &str = "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18";

    #[test]
    fn topic_keys_are_rmw_zenohs() {
        assert_eq!(
            topic_key(0, "/chatter", "std_msgs/msg/String", HASH),
            format!("0/chatter/std_msgs::msg::dds_::String_/{HASH}")
        );
        assert_eq!(
            topic_key(7, "/auv/imu/", "sensor_msgs/msg/Imu", "H"),
            "7/auv/imu/sensor_msgs::msg::dds_::Imu_/H"
        );
    }

    #[test]
    fn qos_fields_are_empty_where_default() {
        assert_eq!(Qos::DEFAULT.keyexpr(), "::,10:,:,:,,");
        assert_eq!(Qos::SENSOR_DATA.keyexpr(), "2::,5:,:,:,,");
        assert_eq!(Qos::LATCHED.keyexpr(), ":1:,1:,:,:,,");
    }

    #[test]
    fn tokens_name_the_node_and_the_topic() {
        let node = NodeKey {
            domain: 0,
            zid: "abc".into(),
            namespace: "/".into(),
            name: "oceansim".into(),
        };
        assert_eq!(
            liveliness_token(&node, 0, EntityKind::Node, None),
            "@ros2_lv/0/abc/0/0/NN/%/%/oceansim"
        );
        let t = TopicKey {
            topic: "/chatter",
            ros_type: "std_msgs/msg/String",
            type_hash: HASH,
            qos: Qos::DEFAULT,
        };
        assert_eq!(
            liveliness_token(&node, 3, EntityKind::Publisher, Some(&t)),
            format!("@ros2_lv/0/abc/0/3/MP/%/%/oceansim/%chatter/std_msgs::msg::dds_::String_/{HASH}/::,10:,:,:,,")
        );
        let sim = NodeKey {
            namespace: "/sim".into(),
            ..node
        };
        assert!(liveliness_token(&sim, 0, EntityKind::Node, None).ends_with("/NN/%/%sim/oceansim"));
    }

    #[test]
    fn the_attachment_is_33_bytes_as_rmw_zenoh_reads_it() {
        let g = gid("token");
        let a = attachment(5, -2, &g);
        assert_eq!(a.len(), 33);
        assert_eq!(&a[..8], &5i64.to_le_bytes());
        assert_eq!(&a[8..16], &(-2i64).to_le_bytes());
        assert_eq!(a[16], 16);
        assert_eq!(&a[17..], &g);
        assert_ne!(gid("a"), gid("b"));
    }

    /// The hand-written layout is what zenoh-ext's serializer writes and
    /// its deserializer reads (rmw_zenoh reads it with the same code).
    #[cfg(feature = "zenoh")]
    #[test]
    fn the_attachment_is_zenoh_exts_serialization() {
        let g = gid("token");
        let a = attachment(i64::MIN, 1_700_000_000_123_456_789, &g);
        let mut s = zenoh_ext::ZSerializer::new();
        s.serialize(i64::MIN);
        s.serialize(1_700_000_000_123_456_789i64);
        s.serialize(g);
        assert_eq!(s.finish().to_bytes().into_owned(), a);
        let bytes = zenoh::bytes::ZBytes::from(a.clone());
        let mut d = zenoh_ext::ZDeserializer::new(&bytes);
        assert_eq!(d.deserialize::<i64>().unwrap(), i64::MIN);
        assert_eq!(d.deserialize::<i64>().unwrap(), 1_700_000_000_123_456_789);
        assert_eq!(d.deserialize::<[u8; 16]>().unwrap(), g);
        assert!(d.done());
    }

    #[test]
    fn ros_names_are_checked() {
        assert!(check_ros_name("namespace", "", true).is_ok());
        assert!(check_ros_name("namespace", "/", true).is_ok());
        assert!(check_ros_name("namespace", "/sim/a_1", true).is_ok());
        assert!(check_ros_name("namespace", "/sim//a", true).is_err());
        assert!(check_ros_name("namespace", "/1sim", true).is_err());
        assert!(check_ros_name("node name", "a/b", false).is_err());
        assert!(check_ros_name("node name", "", false).is_err());
        assert!(check_ros_name("node name", "oceansim", false).is_ok());
    }
}
