//! Typed replies survive the wire: each is rendered into a response line
//! by the same path the server uses, decoded as a client does, and read
//! back into the same struct.

use oceansim_protocol::payload::{ObstacleShape, PathPoint};
use oceansim_protocol::reply::*;
use oceansim_protocol::{ActionName, Data, Reply, Response, ResponseType};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::json;
use std::fmt::Debug;

fn round_trip<T>(action: ActionName, value: T)
where
    T: Serialize + DeserializeOwned + PartialEq + Debug + Clone + Send + 'static,
{
    let resp = Reply::ok(
        ResponseType::Response,
        Some(7u64.into()),
        action,
        Some(1.5),
        Data::typed(value.clone()),
    );
    let line = resp.to_line();
    assert!(line.ends_with('\n') && !line[..line.len() - 1].contains('\n'));
    let back = Response::from_line(&line).expect("a response envelope");
    assert_eq!(back.request_id, Some(7u64.into()));
    assert_eq!(back.action.as_deref(), Some(action.as_str()));
    assert_eq!(back.data_as::<T>().expect("typed data"), value, "{line}");
}

fn obstacle() -> ObstacleInfo {
    ObstacleInfo {
        id: "rock".into(),
        shape: ObstacleShape::Cylinder,
        center_user: [1.0, 2.0, -3.0],
        center_godot: [1.0, -3.0, -2.0],
        half_extents_user: [0.5, 0.5, 2.0],
        rotation_godot_deg: Some([0.0, 90.0, 0.0]),
    }
}

fn state() -> StateData {
    StateData {
        position: [0.0, 17.0, -6.0],
        velocity: [0.1, 0.2, -0.3],
        depth: 6.0,
        speed: 0.374,
        heading_deg: 90.0,
        sim_time: 1.5,
        position_godot: [0.0, -6.0, -17.0],
        altitude: 11.2,
        orientation: Orientation {
            roll_deg: 1.0,
            pitch_deg: -2.0,
            heading_deg: 90.0,
            quaternion_xyzw: [0.0, 0.0, 0.6, 0.8],
            rotation_godot_deg: [-2.0, -90.0, -1.0],
            frame: "body FRD to NED".into(),
        },
        body_velocity: [0.2, 0.0, 0.0, 0.0, 0.0, 0.01],
        angular_velocity: [0.0, 0.0, 0.01],
        contact: Some(ContactClass::MapEdge),
        contacts: vec![Contact {
            id: "map_edge".into(),
            class: ContactClass::MapEdge,
            normal_user: [0.0, -1.0, 0.0],
            depth_m: 0.001,
        }],
        current: [0.1, 0.0, 0.0],
        control: ControlReport {
            control_scheme: "force_3d".into(),
            last_command: Some(CommandRecord {
                action: "set_force_world".into(),
                data: json!({"force": [0.0, 299.0, 0.0]}),
                frame: Some(Frame::OceansimWorld),
            }),
            last_command_time: Some(0.5),
            command_saturated: true,
            body_wrench: [299.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            thruster_outputs: vec![0.0; 6],
            thrust_n: vec![0.0; 6],
            fin_angles_rad: vec![0.1, -0.05],
            propeller_rpm: vec![1200.0],
            controller_state: Some(ControllerState {
                mode: "waypoint_pid".into(),
                target: vec![1.0, 2.0, 3.0],
                error: vec![0.1, 0.2, 0.3],
                integral: vec![0.0; 3],
                saturation: vec![false, true, false],
                output: vec![1.0, 60.0, 2.0],
                arrived: false,
            }),
        },
        paused: true,
        time_scale: 1.0,
        achieved_time_scale: None,
        recording: None,
        scenario: "Static_Map".into(),
        acoustic: AcousticView {
            inbox: vec![AcousticDelivery {
                message_id: 1,
                sender_id: "a".into(),
                receiver_id: "auv/main".into(),
                payload: json!({"cmd": "hi"}),
                sent_at: 0.0,
                delivered_at: 0.2,
            }],
            pending: 2,
        },
        sensors: json!({"imu": {"sequence": 3}}).as_object().unwrap().clone(),
    }
}

#[test]
fn state_replies_round_trip() {
    round_trip(ActionName::GetState, state());
    let s = state();
    round_trip(
        ActionName::Step,
        CompactState {
            sim_time: s.sim_time,
            position: s.position,
            velocity: s.velocity,
            depth: s.depth,
            speed: s.speed,
            heading_deg: s.heading_deg,
            quaternion_xyzw: s.orientation.quaternion_xyzw,
            body_velocity: s.body_velocity,
            contacts: 1,
            sensors: s.sensors.clone(),
        },
    );
    round_trip(
        ActionName::GetSensors,
        SensorsData {
            sim_time: 2.0,
            sensors: s.sensors,
        },
    );
}

#[test]
fn command_and_clock_replies_round_trip() {
    round_trip(
        ActionName::SetForce,
        MotionAck {
            agent_id: "auv/main".into(),
            force: Some([0.0, 299.0, 0.0]),
            frame: Some(Frame::OceansimWorld),
            saturated: true,
            requested: Some(vec![0.0, 1e5, 0.0]),
            ..MotionAck::default()
        },
    );
    round_trip(
        ActionName::SetThrusters,
        MotionAck {
            agent_id: "rov".into(),
            thrusters: Some(vec![0.5; 8]),
            frame: Some(Frame::Actuator),
            ..MotionAck::default()
        },
    );
    round_trip(
        ActionName::SetFins,
        MotionAck {
            agent_id: "remus".into(),
            fins: Some(vec![0.5, -0.1, 1525.0]),
            frame: Some(Frame::Actuator),
            saturated: true,
            requested: Some(vec![1.0, -0.1, 2000.0]),
            ..MotionAck::default()
        },
    );
    round_trip(
        ActionName::SetAgentVelocity,
        AgentVelocityAck {
            id: "t".into(),
            velocity: [0.2, 0.0, -0.1],
            frame: Frame::GodotWorld,
            saturated: false,
        },
    );
    round_trip(
        ActionName::SetCurrent,
        CurrentAck {
            current: [5.0, 0.0, 0.0],
            frame: Frame::OceansimWorld,
            saturated: true,
        },
    );
    round_trip(
        ActionName::Pause,
        ClockData {
            paused: true,
            time_scale: 2.0,
            sim_time: 3.0,
            scenario: "PaleMap".into(),
            seed: 4,
        },
    );
    round_trip(
        ActionName::SetWaypoint,
        WaypointAck {
            waypoint: [1.0, -2.0, 3.0],
            agent_id: "auv/main".into(),
            controller_engaged: true,
        },
    );
    round_trip(ActionName::SetNavPath, OverlayAck { points: 3 });
    round_trip(ActionName::ClearNav, NavCleared { cleared: true });
}

#[test]
fn map_and_agent_replies_round_trip() {
    round_trip(
        ActionName::GetMapInfo,
        MapInfo {
            scenario: "Static_Map".into(),
            display_name: "Static".into(),
            description: "d".into(),
            generator: "benchmark_static_field".into(),
            seed: 0,
            seeds: vec![0, 1],
            tags: vec!["static".into()],
            recommended_profile: None,
            map_size_m: [40.0, 40.0],
            bounds_user: BoundsUser {
                x: [-20.0, 20.0],
                y: [-20.0, 20.0],
            },
            bounds_godot: BoundsGodot {
                x: [-20.0, 20.0],
                z: [-20.0, 20.0],
            },
            floor_depth_m: 20.0,
            terrain: TerrainSummary {
                min_depth_m: 17.0,
                max_depth_m: 23.0,
                cell_m: 0.5,
            },
            obstacles: vec![obstacle()],
            path_points: vec![[1.0, 2.0]],
            path_frame: "godot_map_plane [world_x, world_z]".into(),
            overlays: OverlaysInfo {
                nav_path: vec![
                    PathPoint::Planar([0.0, 1.0]),
                    PathPoint::Spatial([1.0, 2.0, 3.0]),
                ],
                waypoint: Some([1.0, 2.0, 3.0]),
                ..OverlaysInfo::default()
            },
            agents: 4,
        },
    );
    round_trip(
        ActionName::SpawnObstacle,
        ObstacleSpawned {
            id: "rock".into(),
            obstacle: obstacle(),
            count: 12,
        },
    );
    round_trip(
        ActionName::RemoveObstacle,
        Removed {
            removed: "rock".to_string(),
            count: 11,
        },
    );
    round_trip(
        ActionName::ClearAgents,
        Removed {
            removed: 3usize,
            count: 0,
        },
    );
    round_trip(
        ActionName::SpawnAgent,
        AgentPlaced {
            id: "rov".into(),
            entity: 5,
            kind: "vehicle".into(),
            position: [1.0, 2.0, -3.0],
            position_godot: [1.0, -3.0, -2.0],
            count: 1,
        },
    );
    round_trip(
        ActionName::GetAgents,
        AgentsData {
            schema_version: 1,
            count: 1,
            agents: vec![json!({"id": "auv/main"})],
            acoustic: AcousticSummary {
                pending: 0,
                inbox_sizes: [("auv/main".to_string(), 2)].into(),
                stats: AcousticStats {
                    sent: 3,
                    dropped: 1,
                    delivered: 2,
                    inbox_overflow: 0,
                },
            },
        },
    );
    round_trip(
        ActionName::GetTerrainGrid,
        TerrainGrid {
            width: 2,
            height: 1,
            cell_size: 0.5,
            origin_user: [-0.5, 0.0],
            slice_z: -6.0,
            inflation_radius: 0.0,
            layout: "grid[row][col]".into(),
            grid: vec![vec![0, 1]],
            class_grid: vec![vec![0, 2]],
            classes: [("0".to_string(), "free".to_string())].into(),
            counts: [("free".to_string(), 1)].into(),
            include_static_obstacles: true,
            include_dynamic_agents: false,
        },
    );
}

#[test]
fn channel_and_export_replies_round_trip() {
    round_trip(
        ActionName::SendAcousticMessage,
        SendOutcome {
            message_id: 4,
            queued: false,
            dropped_reason: Some("out_of_range".into()),
            distance_m: 60.0,
            deliver_at: None,
        },
    );
    round_trip(
        ActionName::ConfigureAcousticComm,
        ChannelConfig {
            latency_s: 0.2,
            bandwidth_bps: 1000.0,
            range_m: 500.0,
            packet_drop_rate: 0.1,
            seed: 3,
        },
    );
    round_trip(
        ActionName::ReadAcousticInbox,
        AcousticInbox {
            agent_id: "buddy".into(),
            messages: vec![AcousticDelivery {
                message_id: 3,
                sender_id: "auv/main".into(),
                receiver_id: "buddy".into(),
                payload: serde_json::json!({"k": 1}),
                sent_at: 0.5,
                delivered_at: 1.25,
            }],
            cleared: true,
        },
    );
    round_trip(
        ActionName::ExportDataset,
        ExportResult {
            status: "ok".into(),
            export_dir: "/x/run".into(),
            files: vec!["/x/run/metadata.json".into()],
            samples: 21,
            packed: Some(Packed {
                path: "/x/run.zip".into(),
                bytes: 1024,
            }),
            incomplete: Some(oceansim_protocol::reply::Incomplete {
                frames_dropped: 3,
                commands_dropped: 0,
                reason: "the spill is full".into(),
            }),
        },
    );
    round_trip(
        ActionName::SaveSnapshotJson,
        SnapshotSaved {
            status: "ok".into(),
            path: "/x/s.json".into(),
            bytes: 10,
        },
    );
}

#[test]
fn sensor_payload_envelopes_flatten_their_reading() {
    let p = SensorPayload {
        enabled: true,
        status: "ok".into(),
        schema_name: SENSOR_SCHEMA_NAME.into(),
        schema_version: SENSOR_SCHEMA_VERSION,
        sensor_type: "depth".into(),
        frame_id: "auv/main/base_link".into(),
        sensor_frame_id: "auv/main/depth".into(),
        parent_frame_id: "auv/main/base_link".into(),
        noise_seed: 9,
        extrinsic_xyz_rpy: [0.0; 6],
        extrinsic_quat_xyzw: [0.0, 0.0, 0.0, 1.0],
        covariance: Covariance {
            convention: "diagonal_variance".into(),
            diagonal: vec![1e-4; 3],
            fields: Default::default(),
        },
        sim_time: 0.5,
        timestamp_sim: 0.5,
        timestamp_wall: 0.5,
        timestamp: 0.5,
        sequence: 10,
        reading: json!({"depth_m": 6.01, "pressure_pa": 161_800.0})
            .as_object()
            .unwrap()
            .clone(),
    };
    let text = serde_json::to_string(&p).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        v["depth_m"], 6.01,
        "the reading sits beside the envelope fields"
    );
    let back: SensorPayload = serde_json::from_str(&text).unwrap();
    assert_eq!(back, p);
}
