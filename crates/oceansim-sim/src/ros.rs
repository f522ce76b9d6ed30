//! The simulation as ROS 2 sees it, for live bridges: the sensors' frames,
//! the recorded frames since the last look, and the stream that turns them
//! into topic messages (the very conversion the rosbag2 export writes; the
//! stream needs the `export` feature, on by default).
//!
//! ```
//! use oceansim_sim::ros::RosStream;
//! use oceansim_sim::{SimConfig, Simulation};
//!
//! let mut sim = Simulation::new(SimConfig::default()).unwrap();
//! sim.advance_realtime(0.5);
//! let mut stream = RosStream::new(sim.ros_sensor_frames(), sim.recording_started_unix_ns());
//! let frames = sim.frames_after(None);
//! let mut out = Vec::new();
//! for f in &frames {
//!     stream.frame(f, &mut out);
//! }
//! assert!(out.iter().any(|m| m.topic == "/clock"));
//! assert!(out.iter().any(|m| m.topic.ends_with("/odom")));
//! ```

#[cfg(feature = "export")]
pub use oceansim_export::ros_msgs::RosType;
#[cfg(feature = "export")]
pub use oceansim_export::ros_stream::{Namespaces, RosStream, RosTopicMessage, LATCHED_TOPICS};
#[cfg(feature = "export")]
pub use oceansim_export::rosbag2::ros_name;
pub use oceansim_sensors::frame_tree::SensorFrame;

use crate::components::Handles;
use crate::Simulation;
use oceansim_ecs::World;
use oceansim_record::Sample;
use std::sync::Arc;

impl Simulation {
    /// Every sensor's frame on its agent, agents in row order, sensors in
    /// declaration order (what `/tf_static` carries).
    pub fn ros_sensor_frames(&self) -> Vec<SensorFrame> {
        sensor_frames(&self.world, &self.h)
    }

    /// When the recording began on the Unix clock (ns): simulated time 0.
    pub fn recording_started_unix_ns(&self) -> u64 {
        self.world.resource(self.h.recorder).started_unix_ns()
    }

    /// Places simulated time 0 at `ns` on the Unix clock (ns) for the
    /// exports' log times (MCAP, rosbag2, metadata): two runs given the
    /// same instant export the same bytes.
    pub fn set_recording_started_unix_ns(&mut self, ns: u64) {
        self.world
            .resource_mut(self.h.recorder)
            .set_started_unix_ns(ns);
    }

    /// The recorded frames in memory newer than frame number `after`
    /// (all of them for `None`), oldest first. Frame numbers start again
    /// at 0 with each [`Simulation::generation`].
    pub fn frames_after(&self, after: Option<u64>) -> Vec<Arc<Sample>> {
        self.world.resource_mut(self.h.recorder).after(after)
    }

    /// This world's generation: bumped by every reset and scenario change,
    /// when frame numbers start again at 0.
    pub fn generation(&self) -> u64 {
        self.revs.generation
    }
}

/// Every sensor's frame on its agent, agents in row order, sensors in
/// declaration order (what `/tf_static` carries).
pub(crate) fn sensor_frames(world: &World, h: &Handles) -> Vec<SensorFrame> {
    let meta = world.objects(h.agent);
    let suites = world.objects(h.sensors);
    let mut frames = Vec::new();
    for (m, suite) in meta.iter().zip(suites.iter()) {
        let (Some(m), Some(suite)) = (m, suite) else {
            continue;
        };
        for s in &suite.sensors {
            let (xyz, rot) = s.mount();
            frames.push(SensorFrame::from_mount(
                &m.def.agent_name,
                &s.name,
                s.family().name(),
                xyz,
                rot,
            ));
        }
    }
    frames
}
