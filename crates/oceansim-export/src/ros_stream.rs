//! A run's recorded frames as ROS 2 messages, topic by topic, in the order
//! a ROS 2 graph would see them: what the rosbag2 export writes and what
//! the live bridge publishes, made in one place.
//!
//! Per frame: `/clock`, `/tf` (every agent's base link in `world`), then
//! per agent `<ns>/odom` and each sensor sample taken since the previous
//! frame on `<ns>/<sensor>/...` ([`super::ros_msgs::sensor_messages`]).
//! `/tf_static` holds the sensors' mounts ([`oceansim_sensors::frame_tree`]). Stamps
//! are the recording's start on the Unix clock plus the simulated time.

use super::ros_msgs::{odometry, quat, rot_xyzw, sensor_messages, time, v3, RosOut, RosType};
use super::rosbag2::ros_name;
use nalgebra::Vector3;
use oceansim_record::Sample;
use oceansim_ros2::msg::geometry_msgs as geo;
use oceansim_ros2::msg::rosgraph_msgs::Clock;
use oceansim_ros2::msg::std_msgs::Header;
use oceansim_ros2::msg::tf2_msgs::TFMessage;
use oceansim_ros2::{to_cdr, RosMessage};
use oceansim_sensors::frame_tree::{base_link, static_edges, SensorFrame, WORLD_FRAME};
use std::collections::BTreeMap;

/// Topics published transient local (latched): a subscriber that joins
/// late still wants them.
pub const LATCHED_TOPICS: [&str; 1] = ["/tf_static"];

/// One message on one topic.
#[derive(Debug, Clone)]
pub struct RosTopicMessage {
    /// Fully qualified topic name (`/auv/odom`).
    pub topic: String,
    /// Its type.
    pub ty: RosType,
    /// CDR payload (with its encapsulation header).
    pub cdr: Vec<u8>,
    /// When it was taken (s, simulated).
    pub time: f64,
    /// Whether it is a sensor's reading (published with sensor-data QoS)
    /// rather than state (`/clock`, `/tf`, odometry).
    pub sensor: bool,
}

/// Each agent's topic namespace, `/` + its [`ros_name`], made unique in
/// order of appearance (`_2`, `_3`, ... for names that meet on one).
#[derive(Debug, Default, Clone)]
pub struct Namespaces {
    given: BTreeMap<String, String>,
}

impl Namespaces {
    /// The namespace of `agent`, given on first sight.
    pub fn of(&mut self, agent: &str) -> String {
        if let Some(ns) = self.given.get(agent) {
            return ns.clone();
        }
        let base = format!("/{}", ros_name(agent));
        let taken = |ns: &str| self.given.values().any(|v| v == ns);
        let mut ns = base.clone();
        let mut k = 2;
        while taken(&ns) {
            ns = format!("{base}_{k}");
            k += 1;
        }
        self.given.insert(agent.to_owned(), ns.clone());
        ns
    }
}

/// Turns frames into topic messages; keeps the agents' namespaces stable
/// across frames.
#[derive(Debug, Clone)]
pub struct RosStream {
    origin_ns: u64,
    frames: Vec<SensorFrame>,
    by_sensor: BTreeMap<(String, String), usize>,
    namespaces: Namespaces,
}

fn transform(
    ns: u64,
    parent: String,
    child: String,
    t: [f64; 3],
    q: [f64; 4],
) -> geo::TransformStamped {
    geo::TransformStamped {
        header: Header {
            stamp: time(ns),
            frame_id: parent,
        },
        child_frame_id: child,
        transform: geo::Transform {
            translation: v3(Vector3::from(t)),
            rotation: quat(rot_xyzw(q)),
        },
    }
}

/// The Unix time (ns) of simulated time `t` (s) for a recording that began
/// at `origin_ns`: what every stamp of the stream and of a bag uses.
pub(crate) fn unix_ns(origin_ns: u64, t: f64) -> u64 {
    origin_ns.saturating_add((t.max(0.0) * 1e9).round() as u64)
}

impl RosStream {
    /// A stream for agents carrying the sensors of `sensor_frames`, whose
    /// simulated time 0 was `origin_unix_ns` on the Unix clock.
    pub fn new(sensor_frames: Vec<SensorFrame>, origin_unix_ns: u64) -> Self {
        let by_sensor = sensor_frames
            .iter()
            .enumerate()
            .map(|(i, f)| ((f.agent.clone(), f.sensor.clone()), i))
            .collect();
        RosStream {
            origin_ns: origin_unix_ns,
            frames: sensor_frames,
            by_sensor,
            namespaces: Namespaces::default(),
        }
    }

    /// The Unix time (ns) of simulated time `t` (s).
    pub fn unix_ns(&self, t: f64) -> u64 {
        unix_ns(self.origin_ns, t)
    }

    /// The topic namespace of `agent` (`/auv`).
    pub fn namespace(&mut self, agent: &str) -> String {
        self.namespaces.of(agent)
    }

    fn message<M: RosMessage>(topic: &str, m: &M, t: f64) -> RosTopicMessage {
        RosTopicMessage {
            topic: topic.to_owned(),
            ty: RosType::of::<M>(),
            cdr: to_cdr(m),
            time: t,
            sensor: false,
        }
    }

    fn under(base: &str, o: RosOut, t: f64, sensor: bool) -> RosTopicMessage {
        let topic = if o.suffix.is_empty() {
            base.to_owned()
        } else {
            format!("{base}/{}", o.suffix)
        };
        RosTopicMessage {
            topic,
            ty: o.ty,
            cdr: o.cdr,
            time: t,
            sensor,
        }
    }

    /// `/tf_static` at simulated time `t`: every sensor on its base link,
    /// each camera's optical frame on it.
    pub fn tf_static(&self, t: f64) -> RosTopicMessage {
        let ns = self.unix_ns(t);
        let transforms = static_edges(&self.frames)
            .into_iter()
            .map(|(parent, child, tr, q)| transform(ns, parent, child, tr, q))
            .collect();
        Self::message("/tf_static", &TFMessage { transforms }, t)
    }

    /// Appends frame `s`'s messages to `out`: `/clock`, `/tf`, then each
    /// agent's odometry and sensor samples.
    pub fn frame(&mut self, s: &Sample, out: &mut Vec<RosTopicMessage>) {
        let ns = self.unix_ns(s.time);
        out.push(Self::message("/clock", &Clock { clock: time(ns) }, s.time));
        let tf = TFMessage {
            transforms: s
                .agents
                .iter()
                .map(|a| {
                    transform(
                        ns,
                        WORLD_FRAME.to_owned(),
                        base_link(&a.name),
                        a.position,
                        a.quaternion_xyzw,
                    )
                })
                .collect(),
        };
        out.push(Self::message("/tf", &tf, s.time));
        for a in &s.agents {
            let base = self.namespaces.of(&a.name);
            let odom = odometry(a, ns, WORLD_FRAME, base_link(&a.name));
            out.push(Self::under(&base, odom, s.time, false));
            for (sensor, taken) in &a.sensors {
                let Some(&i) = self
                    .by_sensor
                    .get(&(a.name.to_string(), sensor.to_string()))
                else {
                    continue;
                };
                let f = &self.frames[i];
                let topic = format!("{base}/{}", ros_name(sensor));
                for sample in taken {
                    let at = self.unix_ns(sample.time);
                    for o in sensor_messages(f, sample, at) {
                        out.push(Self::under(&topic, o, sample.time, true));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_whose_names_meet_get_namespaces_of_their_own() {
        let mut n = Namespaces::default();
        assert_eq!(n.of("auv-1"), "/auv_1");
        assert_eq!(n.of("auv_1"), "/auv_1_2");
        assert_eq!(n.of("auv 1"), "/auv_1_3");
        assert_eq!(n.of("auv-1"), "/auv_1", "the same agent, the same one");
    }
}
