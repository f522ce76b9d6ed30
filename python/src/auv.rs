//! The SDK's `AUV` methods, dispatched by name onto the Rust blocking
//! `Auv` (one implementation of each method, in Rust; the Python class
//! only names them and supplies the SDK's defaults).

use oceansim_client::blocking::Auv;
use oceansim_client::ClientError;
use oceansim_protocol::payload::{PathPoint, TerrainGridRequest};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Positional argument `i` (JSON `null` when absent, so `Option`s default).
fn arg<T: DeserializeOwned>(args: &[Value], i: usize, method: &str) -> Result<T, ClientError> {
    serde_json::from_value(args.get(i).cloned().unwrap_or(Value::Null))
        .map_err(|e| ClientError::InvalidArgument(format!("{method}: argument {}: {e}", i + 1)))
}

/// What a method returns: a whole reply envelope, or a reply's data.
pub(crate) enum Out {
    Reply(oceansim_client::Reply),
    Data(Value),
}

pub(crate) fn dispatch(a: &Auv, method: &str, args: &[Value]) -> Result<Out, ClientError> {
    use Out::{Data, Reply as R};
    let f = |i: usize| arg::<f64>(args, i, method);
    let s = |i: usize| arg::<String>(args, i, method);
    let v = |i: usize| arg::<Value>(args, i, method);
    let pts = |i: usize| arg::<Vec<PathPoint>>(args, i, method);
    let p3 = |i: usize| arg::<[f64; 3]>(args, i, method);
    Ok(match method {
        "set_force" => R(a.set_force(f(0)?, f(1)?, f(2)?)?),
        "set_force_world" => R(a.set_force_world(f(0)?, f(1)?, f(2)?)?),
        "set_force_body" => R(a.set_force_body(f(0)?, f(1)?, f(2)?)?),
        "set_body_wrench" => R(a.set_body_wrench(f(0)?, f(1)?, f(2)?, f(3)?, f(4)?, f(5)?)?),
        "set_body_velocity" => R(a.set_body_velocity(f(0)?, f(1)?, f(2)?, f(3)?, f(4)?, f(5)?)?),
        "surge" => R(a.surge(f(0)?)?),
        "strafe" => R(a.strafe(f(0)?)?),
        "heave" => R(a.heave(f(0)?)?),
        "stop" => R(a.stop()?),
        "set_pose" => R(a.set_pose(p3(0)?, arg(args, 1, method)?, arg(args, 2, method)?)?),
        "set_thrusters" => R(a.set_thrusters(&arg::<Vec<f64>>(args, 0, method)?)?),
        "set_fins" => R(a.set_fins(&arg::<Vec<f64>>(args, 0, method)?)?),
        "pause" => R(a.pause()?),
        "resume" => R(a.resume()?),
        "reset" => R(a.reset(arg(args, 0, method)?)?),
        "set_time_scale" => R(a.set_time_scale(f(0)?)?),
        "set_scenario" => R(a.set_scenario(&s(0)?, arg(args, 1, method)?)?),
        "set_agent_velocity" => R(a.set_agent_velocity(&s(0)?, p3(1)?)?),
        "set_current" => R(a.set_current(p3(0)?)?),
        "set_nav_path" => R(a.set_nav_path(&pts(0)?)?),
        "set_waypoint" => R(a.set_waypoint(f(0)?, f(1)?)?),
        "set_waypoints" => R(a.set_waypoints(&pts(0)?)?),
        "set_pred_trajectory" => R(a.set_pred_trajectory(&pts(0)?)?),
        "clear_nav" => R(a.clear_nav()?),
        "generate_map" => Data(a.generate_map(v(0)?)?),
        "configure_acoustic_comm" => Data(a.configure_acoustic_comm(v(0)?)?),
        "get_map_info" => Data(a.get_map_info()?),
        "get_terrain_grid" => {
            let req: TerrainGridRequest = arg(args, 0, method)?;
            Data(a.get_terrain_grid(&req)?)
        }
        "spawn_obstacle" => Data(a.spawn_obstacle(v(0)?)?),
        "remove_obstacle" => Data(a.remove_obstacle(&s(0)?)?),
        "spawn_agent" => Data(a.spawn_agent(v(0)?)?),
        "move_agent" => Data(a.move_agent(&s(0)?, p3(1)?, arg(args, 2, method)?)?),
        "remove_agent" => Data(a.remove_agent(&s(0)?)?),
        "clear_agents" => Data(a.clear_agents()?),
        "get_agents" => Data(a.get_agents()?),
        "send_acoustic_message" => Data(a.send_acoustic_message(&s(0)?, &s(1)?, v(2)?)?),
        "read_acoustic_inbox" => Data(a.read_acoustic_inbox(&s(0)?, arg(args, 1, method)?)?),
        "export_dataset" => Data(a.export_dataset(v(0)?)?),
        "save_snapshot_json" => {
            Data(a.save_snapshot_json(arg::<Option<String>>(args, 0, method)?.as_deref())?)
        }
        "get_lidar_2d" => Data(a.get_lidar_2d()?),
        "get_lidar_3d" => Data(a.get_lidar_3d()?),
        "get_point_cloud_3d" => Data(a.get_point_cloud_3d()?),
        "get_dvl" => Data(a.get_dvl()?),
        "get_imaging_sonar" => Data(a.get_imaging_sonar()?),
        "get_multibeam_sonar" => Data(a.get_multibeam_sonar()?),
        "get_side_scan_sonar" => Data(a.get_side_scan_sonar()?),
        "get_rgbd_dense_cloud" => Data(a.get_rgbd_dense_cloud()?),
        "get_camera" => Data(a.get_camera()?),
        other => {
            return Err(ClientError::InvalidArgument(format!(
                "AUV has no method `{other}`"
            )))
        }
    })
}
