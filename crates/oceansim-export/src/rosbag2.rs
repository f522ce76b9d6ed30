//! The run as a ROS 2 bag (rosbag2, MCAP storage): a directory with
//! `metadata.yaml` and one MCAP file whose profile is `ros2`, whose
//! schemas are `ros2msg` definitions and whose messages are CDR, as
//! rosbag2's MCAP storage plugin writes them, so `ros2 bag info` and
//! `ros2 bag play` take it.
//!
//! Topics (REP 103/105 frames; agent and sensor names made ROS names by
//! [`ros_name`]):
//!
//! | topic | type | frame |
//! |---|---|---|
//! | `/clock` | `rosgraph_msgs/msg/Clock` | — |
//! | `/tf` | `tf2_msgs/msg/TFMessage` | `world` → `<agent>/base_link` |
//! | `/tf_static` | `tf2_msgs/msg/TFMessage`, transient local | base links → sensors → optical frames |
//! | `/<agent>/odom` | `nav_msgs/msg/Odometry` | `world`, twist in the base link |
//! | `/<agent>/<sensor>/...` | per sensor family ([`super::ros_msgs`]) | the sensor's frame |
//! | `/oceansim/commands` | `std_msgs/msg/String` (JSON, as `commands.jsonl`) | — |
//!
//! Every stamp, log time and `/clock` value is the recording's start on
//! the Unix clock plus the simulated time, as in `run.mcap`.

use super::mcap::McapScene;
use super::mcap_err;
use super::ros_msgs::RosType;
use super::ros_stream::{RosStream, RosTopicMessage, LATCHED_TOPICS};
use super::timeline::CommandLink;
use oceansim_record::{Payloads, RecordedFrames};
use oceansim_ros2::msg::std_msgs::String as RosString;
#[cfg(test)]
use oceansim_ros2::msg::tf2_msgs::TFMessage;
use oceansim_ros2::{to_cdr, RosMessage};
use std::collections::BTreeMap;
use std::io::{Seek, Write};

/// The bag's directory inside a run directory.
pub const BAG_DIR: &str = "rosbag2";
/// The MCAP file inside it (rosbag2 names the first file `<bag>_0.mcap`).
pub const BAG_FILE: &str = "rosbag2_0.mcap";
/// The metadata.yaml version written (Jazzy's; Kilted reads it too).
pub const BAG_VERSION: u32 = 8;

/// A topic of the bag with what it carried.
#[derive(Debug, Clone)]
pub struct BagTopic {
    /// Topic name.
    pub name: String,
    /// Its message type.
    pub ty: RosType,
    /// Messages written.
    pub count: u64,
    /// Transient local (latched), as `/tf_static` is published.
    pub latched: bool,
}

/// What a bag holds, for its `metadata.yaml`.
#[derive(Debug, Clone, Default)]
pub struct BagSummary {
    /// Topics in order of first message.
    pub topics: Vec<BagTopic>,
    /// First and last log time (ns since the Unix epoch).
    pub span_ns: Option<[u64; 2]>,
    /// Messages written.
    pub messages: u64,
}

/// A ROS name for a simulator name: each `/`-separated token keeps ASCII
/// letters, digits and `_` (anything else becomes `_`, repeats collapse),
/// and one that would start with a digit gains a leading `_`; empty
/// tokens are dropped (`"auv/main"` stays, `"AUV 2"` is `"AUV_2"`).
pub fn ros_name(name: &str) -> String {
    let tokens: Vec<String> = name
        .split('/')
        .map(|t| {
            let mut s = String::new();
            for c in t.chars() {
                let c = if c.is_ascii_alphanumeric() { c } else { '_' };
                if !(c == '_' && s.ends_with('_')) {
                    s.push(c);
                }
            }
            if s.starts_with(|c: char| c.is_ascii_digit()) {
                s.insert(0, '_');
            }
            s
        })
        .filter(|t| !t.is_empty())
        .collect();
    if tokens.is_empty() {
        "_".to_owned()
    } else {
        tokens.join("/")
    }
}

struct Bag<W: Write + Seek> {
    out: mcap::Writer<W>,
    origin_ns: u64,
    schemas: BTreeMap<&'static str, u16>,
    channels: BTreeMap<String, (u16, usize)>,
    summary: BagSummary,
}

/// The QoS profile rosbag2 records for a topic (v8: YAML text with the
/// rmw enums as numbers; durations infinite as rmw writes them).
fn qos_yaml(latched: bool) -> String {
    let inf = "\n    sec: 9223372036\n    nsec: 854775807";
    format!(
        "- history: 3\n  depth: 0\n  reliability: 1\n  durability: {}\n  deadline:{inf}\n  lifespan:{inf}\n  liveliness: 1\n  liveliness_lease_duration:{inf}\n  avoid_ros_namespace_conventions: false",
        if latched { 1 } else { 2 }
    )
}

impl<W: Write + Seek> Bag<W> {
    fn ns(&self, t: f64) -> u64 {
        super::ros_stream::unix_ns(self.origin_ns, t)
    }

    fn send(&mut self, topic: &str, ty: RosType, cdr: &[u8], t: f64) -> std::io::Result<()> {
        let ns = self.ns(t);
        let (id, index) = match self.channels.get(topic) {
            Some(c) => *c,
            None => {
                let schema = match self.schemas.get(ty.name) {
                    Some(s) => *s,
                    None => {
                        let def = (ty.definition)();
                        let s = self
                            .out
                            .add_schema(ty.name, "ros2msg", def.as_bytes())
                            .map_err(mcap_err)?;
                        self.schemas.insert(ty.name, s);
                        s
                    }
                };
                let latched = LATCHED_TOPICS.contains(&topic);
                let meta = BTreeMap::from([
                    ("offered_qos_profiles".to_owned(), qos_yaml(latched)),
                    ("topic_type_hash".to_owned(), (ty.hash)()),
                ]);
                let id = self
                    .out
                    .add_channel(schema, topic, "cdr", &meta)
                    .map_err(mcap_err)?;
                self.summary.topics.push(BagTopic {
                    name: topic.to_owned(),
                    ty,
                    count: 0,
                    latched,
                });
                let c = (id, self.summary.topics.len() - 1);
                self.channels.insert(topic.to_owned(), c);
                c
            }
        };
        let t = &mut self.summary.topics[index];
        t.count += 1;
        self.out
            .write_to_known_channel(
                &mcap::records::MessageHeader {
                    channel_id: id,
                    sequence: t.count as u32,
                    log_time: ns,
                    publish_time: ns,
                },
                cdr,
            )
            .map_err(mcap_err)?;
        self.summary.messages += 1;
        let span = self.summary.span_ns.get_or_insert([ns, ns]);
        span[0] = span[0].min(ns);
        span[1] = span[1].max(ns);
        Ok(())
    }

    fn send_msg<M: RosMessage>(&mut self, topic: &str, m: &M, t: f64) -> std::io::Result<()> {
        self.send(topic, RosType::of::<M>(), &to_cdr(m), t)
    }

    fn send_topic(&mut self, m: &RosTopicMessage) -> std::io::Result<()> {
        self.send(&m.topic, m.ty, &m.cdr, m.time)
    }
}

/// Writes the bag's MCAP file to `w`; returns what it holds.
pub fn write_bag<W: Write + Seek>(
    w: W,
    frames: &RecordedFrames,
    scene: &McapScene,
) -> std::io::Result<BagSummary> {
    let out = mcap::WriteOptions::new()
        .compression(Some(mcap::Compression::Lz4))
        .profile("ros2")
        .library(concat!("oceansim-rs ", env!("CARGO_PKG_VERSION")))
        .create(w)
        .map_err(mcap_err)?;
    let mut bag = Bag {
        out,
        origin_ns: scene.clock_origin_unix_ns,
        schemas: BTreeMap::new(),
        channels: BTreeMap::new(),
        summary: BagSummary::default(),
    };
    let mut stream = RosStream::new(scene.sensor_frames.clone(), scene.clock_origin_unix_ns);
    let t0 = frames.time_span().map_or(0.0, |[t0, _]| t0);
    if !frames.is_empty() {
        bag.send_topic(&stream.tf_static(t0))?;
    }
    let mut commands = frames.commands().peekable();
    let mut out = Vec::new();
    for s in frames.iter(Payloads::Keep) {
        let s = s?;
        // Commands accepted up to this frame, in order, before it.
        while let Some(c) = commands.next_if(|c| c.as_ref().map_or(true, |c| c.time <= s.time)) {
            let c = c?;
            let text = serde_json::to_string(&CommandLink::of(&c)).map_err(std::io::Error::from)?;
            bag.send_msg("/oceansim/commands", &RosString { data: text }, c.time)?;
        }
        out.clear();
        stream.frame(&s, &mut out);
        for m in &out {
            bag.send_topic(m)?;
        }
    }
    for c in commands {
        let c = c?;
        let text = serde_json::to_string(&CommandLink::of(&c)).map_err(std::io::Error::from)?;
        bag.send_msg("/oceansim/commands", &RosString { data: text }, c.time)?;
    }
    // rosbag2's own record: the metadata it would write beside the file.
    let yaml = metadata_yaml(&bag.summary, BAG_FILE);
    bag.out
        .write_metadata(&mcap::records::Metadata {
            name: "rosbag2".into(),
            metadata: BTreeMap::from([
                ("serialized_metadata".to_owned(), yaml),
                ("ros_distro".to_owned(), "jazzy".to_owned()),
            ]),
        })
        .map_err(mcap_err)?;
    bag.out.finish().map_err(mcap_err)?;
    Ok(bag.summary)
}

/// The bag's `metadata.yaml` (version [`BAG_VERSION`]) for a bag whose one
/// file is `file`.
pub fn metadata_yaml(s: &BagSummary, file: &str) -> String {
    let [start, end] = s.span_ns.unwrap_or([0, 0]);
    let duration = end - start;
    let mut y = String::new();
    let mut line = |l: &str| {
        y.push_str(l);
        y.push('\n');
    };
    line("rosbag2_bagfile_information:");
    line(&format!("  version: {BAG_VERSION}"));
    line("  storage_identifier: mcap");
    line("  duration:");
    line(&format!("    nanoseconds: {duration}"));
    line("  starting_time:");
    line(&format!("    nanoseconds_since_epoch: {start}"));
    line(&format!("  message_count: {}", s.messages));
    if s.topics.is_empty() {
        line("  topics_with_message_count: []");
    } else {
        line("  topics_with_message_count:");
    }
    for t in &s.topics {
        line("    - topic_metadata:");
        line(&format!("        name: {}", t.name));
        line(&format!("        type: {}", t.ty.name));
        line("        serialization_format: cdr");
        // A YAML string holding YAML, as rosbag2 v8 writes it.
        let qos = qos_yaml(t.latched).replace('\n', "\n          ");
        line(&format!("        offered_qos_profiles: |\n          {qos}"));
        line(&format!("        type_description_hash: {}", (t.ty.hash)()));
        line(&format!("      message_count: {}", t.count));
    }
    line("  compression_format: \"\"");
    line("  compression_mode: \"\"");
    line("  relative_file_paths:");
    line(&format!("    - {file}"));
    line("  files:");
    line(&format!("    - path: {file}"));
    line("      starting_time:");
    line(&format!("        nanoseconds_since_epoch: {start}"));
    line("      duration:");
    line(&format!("        nanoseconds: {duration}"));
    line(&format!("      message_count: {}", s.messages));
    line("  custom_data: ~");
    line("  ros_distro: jazzy");
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simulator_names_become_ros_names() {
        assert_eq!(ros_name("auv/main"), "auv/main");
        assert_eq!(ros_name("AUV 2"), "AUV_2");
        assert_eq!(ros_name("2nd--proxy"), "_2nd_proxy");
        assert_eq!(ros_name("/a//b/"), "a/b");
        assert_eq!(ros_name("ü"), "_");
        assert_eq!(ros_name(""), "_");
    }

    #[test]
    fn metadata_names_every_topic_with_its_count_and_hash() {
        let s = BagSummary {
            topics: vec![BagTopic {
                name: "/tf_static".into(),
                ty: RosType::of::<TFMessage>(),
                count: 1,
                latched: true,
            }],
            span_ns: Some([10, 25]),
            messages: 1,
        };
        let y = metadata_yaml(&s, BAG_FILE);
        assert!(y.contains("    nanoseconds: 15\n"), "{y}");
        assert!(y.contains("nanoseconds_since_epoch: 10\n"), "{y}");
        assert!(y.contains("type: tf2_msgs/msg/TFMessage\n"), "{y}");
        assert!(y.contains(&TFMessage::type_hash()), "{y}");
        assert!(y.contains("  durability: 1\n"), "{y}");
        assert!(y.contains("    - rosbag2_0.mcap\n"), "{y}");
    }
}
