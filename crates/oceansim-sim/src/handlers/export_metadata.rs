//! `metadata.json` of an export: what was recorded, by whom, in which
//! frames, and the main AUV's dynamics at export time.

use crate::config::SimConfig;
use crate::ctx::ReadCtx;
use crate::simulation::main_row;
use oceansim_record::RecordedFrames;
use oceansim_sensors::frame_tree::{SensorFrame, WORLD_FRAME};
use oceansim_sensors::Family;
use oceansim_vehicles::{DynamicsReport, ThrusterBank, VehicleState};
use serde::Serialize;
use std::collections::BTreeMap;

/// `metadata.json`.
#[derive(Debug, Serialize)]
pub(super) struct Metadata {
    schema: &'static str,
    schema_version: u32,
    scenario: String,
    seed: u64,
    profile: String,
    software: Software,
    sim_time: f64,
    tick: u64,
    samples: usize,
    frame_count: usize,
    time_span_s: [f64; 2],
    sample_period_s: f64,
    agents: Vec<String>,
    trajectory_files: BTreeMap<String, String>,
    sensors: Vec<SensorInfo>,
    /// Per agent, the IMU whose true biases (body FLU) fill the EuRoC
    /// files' bias columns; an agent not listed has zeros there.
    euroc_imu_bias: BTreeMap<String, String>,
    sensor_data_recorded: bool,
    /// Simulated time 0 on the Unix clock (ns): MCAP log times are this
    /// plus the simulated time.
    start_time_unix_ns: u64,
    commands: usize,
    recording: Recording,
    frames: Frames,
    /// The ROS 2 bag beside the other files, if one was written.
    rosbag2: Option<BagInfo>,
    dynamics: DynamicsReport,
}

/// Where an export's ROS 2 bag is and what it is.
#[derive(Debug, Serialize)]
struct BagInfo {
    dir: &'static str,
    file: &'static str,
    metadata_version: u32,
    storage: &'static str,
    serialization: &'static str,
    ros_distro: &'static str,
}

#[derive(Debug, Serialize)]
struct Software {
    name: &'static str,
    version: &'static str,
    git_revision: &'static str,
}

#[derive(Debug, Serialize)]
struct SensorInfo {
    agent: String,
    name: String,
    sensor_type: &'static str,
    rate_hz: f64,
    on_demand: bool,
    /// Whether its samples are in the export (series, images, clouds,
    /// MCAP channels): with sensor data kept, every sensor's are, imaging
    /// ones rendering at their rates.
    samples_recorded: bool,
    /// Its frame (`<agent>/<sensor>`, FLU) and where it sits on the base
    /// link.
    frame_id: String,
    parent_frame_id: String,
    /// Mount in the base link (m, body FLU: x forward, y left, z up).
    translation_m_flu: [f64; 3],
    /// Rotation sensor FLU → base link FLU `[x, y, z, w]`.
    rotation_xyzw_flu: [f64; 4],
    /// Cameras: the optical frame (z forward, x right, y down).
    optical_frame_id: Option<String>,
}

/// Where the recorded frames came from: memory, or the spill for those
/// that did not fit; and any the spill could not take.
#[derive(Debug, Serialize)]
struct Recording {
    frames_in_memory: u64,
    frames_spilled: u64,
    frames_dropped: u64,
    commands_dropped: u64,
    memory_frames_limit: usize,
    memory_bytes_limit: usize,
    /// Why the spill stopped taking frames, if it did.
    spill_failure: Option<String>,
}

#[derive(Debug, Serialize)]
struct Frames {
    world: &'static str,
    world_axes: &'static str,
    base: &'static str,
    sensors: &'static str,
}

pub(super) fn metadata(
    cx: ReadCtx<'_>,
    config: &SimConfig,
    frames: &RecordedFrames,
    rosbag2: bool,
) -> Metadata {
    let (world, h) = (cx.world, cx.h);
    let row = main_row(world, cx.agents);
    let vehicles = world.objects(h.vehicle);
    let state: VehicleState = crate::components::vehicle_state(world, h, row);
    let (profile, dynamics) = match &vehicles[row] {
        Some(v) => {
            let b = ThrusterBank::from_profile(&v.profile);
            (
                v.profile.name.clone(),
                v.vehicle.model.report(&state, b.allocation_columns()),
            )
        }
        _ => unreachable_report(&state),
    };
    let agents = frames.agents();
    let recorder = world.resource(h.recorder);
    let (kind, agent_meta, suites) = (
        world.read(h.kind),
        world.objects(h.agent),
        world.objects(h.sensors),
    );
    let keeps = recorder.keeps_sensor_data();
    let euroc_imu_bias = (0..kind.len())
        .filter_map(|row| Some((agent_meta[row].as_ref()?, suites[row].as_ref()?)))
        .filter_map(|(meta, suite)| {
            let imu = suite.sensors.iter().find(|s| s.family() == Family::Imu)?;
            Some((meta.def.agent_name.clone(), imu.name.clone()))
        })
        .collect();
    let sensors = (0..kind.len())
        .filter_map(|row| Some((agent_meta[row].as_ref()?, suites[row].as_ref()?)))
        .flat_map(|(meta, suite)| {
            suite.sensors.iter().map(move |s| {
                let (xyz, rot) = s.mount();
                let f = SensorFrame::from_mount(
                    &meta.def.agent_name,
                    &s.name,
                    s.family().name(),
                    xyz,
                    rot,
                );
                SensorInfo {
                    agent: meta.def.agent_name.clone(),
                    name: s.name.clone(),
                    sensor_type: s.family().name(),
                    rate_hz: s.rate_hz(),
                    on_demand: s.on_demand(),
                    samples_recorded: keeps,
                    frame_id: f.frame_id(),
                    parent_frame_id: f.parent_id(),
                    translation_m_flu: f.translation_m,
                    rotation_xyzw_flu: f.rotation_xyzw,
                    optical_frame_id: f.optical.then(|| f.optical_id()),
                }
            })
        })
        .collect();
    let clock = world.resource(h.clock);
    let scene = world.resource(h.scene);
    Metadata {
        schema: "oceansim_dataset",
        schema_version: 2,
        scenario: scene.scenario.scenario.id.clone(),
        seed: scene.seed,
        profile,
        software: Software {
            name: "oceansim-rs",
            version: env!("CARGO_PKG_VERSION"),
            git_revision: option_env!("OCEANSIM_GIT_REVISION").unwrap_or("unknown"),
        },
        sim_time: clock.time(),
        tick: clock.tick,
        samples: frames.len() as usize,
        frame_count: frames.len() as usize,
        time_span_s: frames.time_span().unwrap_or_default(),
        sample_period_s: clock.record_ticks as f64 * clock.dt,
        trajectory_files: oceansim_dataset::unique_stems(agents.iter().map(String::as_str)),
        agents,
        sensors,
        euroc_imu_bias,
        sensor_data_recorded: keeps,
        start_time_unix_ns: recorder.started_unix_ns(),
        commands: frames.command_count() as usize,
        recording: Recording {
            frames_in_memory: frames.len() - frames.spilled(),
            frames_spilled: frames.spilled(),
            frames_dropped: frames.dropped_frames(),
            commands_dropped: frames.dropped_commands(),
            memory_frames_limit: config.record_memory_frames,
            memory_bytes_limit: config.record_memory_bytes,
            spill_failure: recorder.spill_failure().map(str::to_owned),
        },
        frames: Frames {
            world: WORLD_FRAME,
            world_axes: "x east, y north, z up (ENU; the protocol's `oceansim_world`)",
            base: "<agent>/base_link: body FLU (x forward, y left, z up) in trajectories, the timeline, the MCAP and `sensors[].translation_m_flu`; snapshot mounts, body velocities and readings are Fossen FRD (x forward, y starboard, z down)",
            sensors: "<agent>/<sensor>: the sensor's FLU axes, on its base link per `sensors[]` and the MCAP's /tf_static; cameras add <agent>/<sensor>_optical (z forward, x right, y down)",
        },
        rosbag2: rosbag2.then_some(BagInfo {
            dir: oceansim_export::rosbag2::BAG_DIR,
            file: oceansim_export::rosbag2::BAG_FILE,
            metadata_version: oceansim_export::rosbag2::BAG_VERSION,
            storage: "mcap",
            serialization: "cdr",
            ros_distro: "jazzy",
        }),
        dynamics,
    }
}

/// The main AUV always has vehicle parameters; this keeps export total.
fn unreachable_report(state: &VehicleState) -> (String, DynamicsReport) {
    let p = oceansim_vehicles::VehicleProfile::default_profile();
    let model = oceansim_vehicles::VehicleModel::from_profile(&p);
    let b = ThrusterBank::from_profile(&p);
    (p.name.clone(), model.report(state, b.allocation_columns()))
}
