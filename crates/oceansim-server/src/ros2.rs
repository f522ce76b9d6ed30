//! The simulator on a ROS 2 bridge ([`oceansim_bridge`]): every recorded
//! frame as the rosbag2 export writes it (the same [`RosStream`]), and the
//! bridge's commands answered like a client's requests, in a session of
//! their own. The simulation's thread only hands shared frames on (pointer
//! copies); a thread of the bridge's turns them into CDR and Zenoh's
//! publishes them, each behind a bounded queue that drops when full.

use crate::host::Host;
use oceansim_bridge::{Bridge, Message, Outgoing, Outlet, Qos, Vehicle};
use oceansim_protocol::Request;
use oceansim_sim::ros::{RosStream, RosTopicMessage, LATCHED_TOPICS};
use oceansim_sim::{Sample, Session};
use std::rc::Rc;
use std::sync::mpsc::{Receiver, TrySendError};
use std::sync::Arc;
use std::time::Duration;

/// How often the bridge looks for new frames and commands.
const PERIOD: Duration = Duration::from_millis(5);
/// Commands answered per period (more wait for the next one).
const COMMANDS_PER_PERIOD: usize = 64;
/// Frames converted per period: at a time scale the bridge cannot follow,
/// older frames are skipped (and counted) rather than slowing the world.
const FRAMES_PER_PERIOD: usize = 32;

fn to_bridge(m: RosTopicMessage) -> Message {
    let qos = if LATCHED_TOPICS.contains(&m.topic.as_str()) {
        Qos::LATCHED
    } else if m.sensor {
        Qos::SENSOR_DATA
    } else {
        Qos::DEFAULT
    };
    Message {
        topic: m.topic,
        ros_type: m.ty.name,
        type_hash: m.ty.hash,
        payload: m.cdr,
        qos,
    }
}

/// What the simulator's thread hands the converting thread.
enum Job {
    /// A new world, or agents joined or left: their sensors' frames,
    /// namespaces and command topics anew.
    Scene {
        sensor_frames: Vec<oceansim_sim::ros::SensorFrame>,
        origin_unix_ns: u64,
        /// (agent, is a vehicle), in frame order.
        agents: Vec<(String, bool)>,
        /// Simulated time of `/tf_static`'s stamp (s).
        time: f64,
    },
    /// New frames, oldest first.
    Frames(Vec<Arc<Sample>>),
}

/// Frame batches that may wait for the converting thread; more are
/// dropped (and counted in the log).
const JOB_QUEUE: usize = 16;

/// Turns frames into CDR on a thread of its own (images are megabytes a
/// second: not the simulator's work) and hands them to the bridge.
fn convert(jobs: Receiver<Job>, outlet: Outlet) {
    let mut stream: Option<RosStream> = None;
    while let Ok(job) = jobs.recv() {
        match job {
            Job::Scene {
                sensor_frames,
                origin_unix_ns,
                agents,
                time,
            } => {
                let mut s = RosStream::new(sensor_frames, origin_unix_ns);
                let vehicles = agents
                    .iter()
                    .filter(|(_, vehicle)| *vehicle)
                    .map(|(name, _)| Vehicle {
                        agent: name.clone(),
                        namespace: s.namespace(name),
                    })
                    .collect();
                outlet.offer(Outgoing::Vehicles(vehicles));
                outlet.offer(Outgoing::Messages(vec![to_bridge(s.tf_static(time))]));
                stream = Some(s);
            }
            Job::Frames(frames) => {
                let Some(s) = &mut stream else { continue };
                let mut batch = Vec::new();
                for f in &frames {
                    s.frame(f, &mut batch);
                }
                outlet.offer(Outgoing::Messages(
                    batch.into_iter().map(to_bridge).collect(),
                ));
            }
        }
    }
}

/// What the bridge has been handed of the current world.
struct Seen {
    generation: u64,
    last_frame: Option<u64>,
    /// The agents of the last frame (name, vehicle), to notice joins.
    agents: Vec<(String, bool)>,
}

pub(crate) async fn bridge(
    world: Rc<Host>,
    bridge: Bridge,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let mut tick = tokio::time::interval(PERIOD);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut session = Session::new();
    let mut seen: Option<Seen> = None;
    let mut rejected = oceansim_log::Throttle::new(Duration::from_secs(5));
    let mut skipped_frames = 0u64;
    let mut skipped_log = oceansim_log::Throttle::new(Duration::from_secs(5));
    let (jobs, job_rx) = std::sync::mpsc::sync_channel(JOB_QUEUE);
    let outlet = bridge.outlet();
    let converter = match std::thread::Builder::new()
        .name("oceansim-ros2-cdr".into())
        .spawn(move || convert(job_rx, outlet))
    {
        Ok(t) => t,
        Err(e) => {
            tracing::error!("ros2 bridge: cannot start its converting thread: {e}");
            return;
        }
    };
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.changed() => break,
        }
        let commands: Vec<_> = bridge.commands().take(COMMANDS_PER_PERIOD).collect();
        for c in commands {
            let resp = match Request::decode(&c.line) {
                Ok(req) => world.answer(&mut session, req).await,
                Err(rejected) => rejected.to_reply(None),
            };
            if !resp.is_ok() {
                if let Some(held) = rejected.admit() {
                    tracing::warn!(
                        "ros2 bridge: {} refused: {} {}{}",
                        c.topic,
                        resp.error_code().map_or("error", |e| e.as_str()),
                        resp.message().unwrap_or(""),
                        oceansim_log::held_back(held)
                    );
                }
            }
        }
        let Ok(sim) = world.sim.try_borrow() else {
            continue;
        };
        let generation = sim.generation();
        if seen.as_ref().is_some_and(|s| s.generation != generation) {
            seen = None;
        }
        let after = seen.as_ref().and_then(|s| s.last_frame);
        let mut frames = sim.frames_after(after);
        let Some(latest) = frames.last().cloned() else {
            continue;
        };
        let agents: Vec<(String, bool)> = latest
            .agents
            .iter()
            .map(|a| (a.name.to_string(), a.vehicle))
            .collect();
        if seen.as_ref().is_none_or(|s| s.agents != agents) {
            let scene = Job::Scene {
                sensor_frames: sim.ros_sensor_frames(),
                origin_unix_ns: sim.recording_started_unix_ns(),
                agents: agents.clone(),
                time: latest.time,
            };
            // The scene must not be lost: wait for room (the converting
            // thread drains in milliseconds; this is rare).
            if jobs.send(scene).is_err() {
                break;
            }
            let last_frame = seen.as_ref().and_then(|s| s.last_frame);
            seen = Some(Seen {
                generation,
                last_frame,
                agents,
            });
        }
        drop(sim);
        if frames.len() > FRAMES_PER_PERIOD {
            let skip = frames.len() - FRAMES_PER_PERIOD;
            skipped_frames += skip as u64;
            frames.drain(..skip);
        }
        let n = frames.len() as u64;
        if let Err(TrySendError::Full(_)) = jobs.try_send(Job::Frames(frames)) {
            skipped_frames += n;
        }
        if skipped_frames > 0 {
            if let Some(held) = skipped_log.admit() {
                tracing::debug!(
                    "ros2 bridge: {skipped_frames} frames skipped so far, the time scale outruns it{}",
                    oceansim_log::held_back(held)
                );
            }
        }
        if let Some(s) = &mut seen {
            s.last_frame = Some(latest.frame);
        }
    }
    drop(jobs);
    let _ = converter.join();
}
