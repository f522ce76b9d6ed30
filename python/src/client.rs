//! The SDK's transport and AUV helpers over the Rust blocking client.

use crate::{client_error, parse};
use oceansim_client::blocking::{Auv, OceanSimClient};
use oceansim_client::{AuvState, ConnectOptions, DepthHold, HeadingHold, WaypointStep};
use pyo3::prelude::*;
use serde_json::{json, Value};
use std::time::Duration;

/// A connected client (and the AUV helpers on it).
#[pyclass(module = "oceansim._native", frozen)]
pub struct NativeClient {
    auv: Auv,
}

fn seconds(t: Option<f64>) -> PyResult<Option<Duration>> {
    match t {
        None => Ok(None),
        Some(s) if s.is_finite() && s > 0.0 && s < 1e7 => Ok(Some(Duration::from_secs_f64(s))),
        Some(s) => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "timeout must be a positive number of seconds, got {s}"
        ))),
    }
}

/// A state with the frame conversions the SDK's `AUVState` exposes.
pub(crate) fn state_json(s: &AuvState) -> Value {
    let mut v = fields_json(s);
    // Documented json! case: the SDK's AUVState is a Python dict, built from
    // this object's text.
    v["data"] = json!(s.data);
    v
}

/// The frame conversions of `AUVState`, without the state itself (whose
/// data Python parses from the reply's line): position, its Godot, ROS ENU
/// and ROS NED forms, velocity, depth, speed, heading (`oceansim.auv`
/// names them).
type Fields = (
    [f64; 3],
    [f64; 3],
    [f64; 3],
    [f64; 3],
    [f64; 3],
    f64,
    f64,
    f64,
);

fn fields(s: &AuvState) -> Fields {
    (
        s.position(),
        s.position_godot_xyz(),
        s.position_ros_enu(),
        s.position_ros_ned(),
        s.velocity(),
        s.depth(),
        s.speed(),
        s.heading(),
    )
}

/// [`fields`] as the JSON object `AUVState` takes.
fn fields_json(s: &AuvState) -> Value {
    // Documented json! case: the dict Python's AUVState takes, key by key.
    json!({
        "position": s.position(),
        "position_godot_xyz": s.position_godot_xyz(),
        "position_ros_enu": s.position_ros_enu(),
        "position_ros_ned": s.position_ros_ned(),
        "velocity": s.velocity(),
        "depth": s.depth(),
        "speed": s.speed(),
        "heading": s.heading(),
    })
}

impl NativeClient {
    /// Runs `f` on the client with the interpreter released, mapping
    /// errors to the SDK's exceptions.
    pub(crate) fn call<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&Auv) -> oceansim_client::Result<T> + Send,
    ) -> PyResult<T> {
        let auv = &self.auv;
        py.detach(|| f(auv)).map_err(|e| client_error(py, e))
    }
}

#[pymethods]
impl NativeClient {
    /// Connects to `host:port`, retrying `retries` times `interval_s` apart;
    /// `timeout_s` is the default response timeout.
    #[staticmethod]
    fn connect(
        py: Python<'_>,
        host: &str,
        port: u16,
        retries: u32,
        interval_s: f64,
        timeout_s: f64,
    ) -> PyResult<NativeClient> {
        let options = ConnectOptions {
            retries,
            interval: seconds(Some(interval_s.max(1e-3)))?.unwrap_or_default(),
            timeout: seconds(Some(timeout_s))?.unwrap_or_default(),
        };
        let addr = if host.contains(':') && !host.starts_with('[') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        };
        let client = py
            .detach(|| OceanSimClient::connect_with(&addr, options))
            .map_err(|e| client_error(py, e))?;
        Ok(NativeClient {
            auv: Auv::from_client(client),
        })
    }

    fn is_connected(&self) -> bool {
        self.auv.client().is_connected()
    }

    fn disconnect(&self, py: Python<'_>) {
        let c = self.auv.client();
        py.detach(|| c.disconnect());
    }

    /// Sends a raw message (no reply awaited).
    fn send(&self, py: Python<'_>, msg: &str) -> PyResult<bool> {
        let v = parse(msg)?;
        Ok(py.detach(|| self.auv.client().send(&v)).is_ok())
    }

    /// Sends a request and returns the whole reply envelope's line, as the
    /// server wrote it (Python parses it once).
    #[pyo3(signature = (msg, timeout=None))]
    fn request(&self, py: Python<'_>, msg: &str, timeout: Option<f64>) -> PyResult<String> {
        let (v, t) = (parse(msg)?, seconds(timeout)?);
        self.call(py, |a| a.client().request_text(v, t))
    }

    #[pyo3(signature = (action, data=None, timeout=None))]
    fn send_command(
        &self,
        py: Python<'_>,
        action: &str,
        data: Option<&str>,
        timeout: Option<f64>,
    ) -> PyResult<String> {
        let data = data.map(parse).transpose()?;
        let t = seconds(timeout)?;
        self.call(py, |a| a.client().send_command_text(action, data, t))
    }

    #[pyo3(signature = (action, params=None, timeout=None))]
    fn send_sim_control(
        &self,
        py: Python<'_>,
        action: &str,
        params: Option<&str>,
        timeout: Option<f64>,
    ) -> PyResult<String> {
        let params = params.map(parse).transpose()?;
        let t = seconds(timeout)?;
        self.call(py, |a| a.client().send_sim_control_text(action, params, t))
    }

    /// Sends a batch; returns the batch reply's line (its children checked
    /// against the requests; Python parses it once).
    #[pyo3(signature = (requests, timeout=None))]
    fn send_batch(&self, py: Python<'_>, requests: &str, timeout: Option<f64>) -> PyResult<String> {
        let list = match parse(requests)? {
            Value::Array(a) => a,
            _ => {
                return Err(pyo3::exceptions::PyTypeError::new_err(
                    "send_batch takes a list of request dictionaries",
                ))
            }
        };
        let t = seconds(timeout)?;
        self.call(py, |a| a.client().send_batch_text(list, t))
    }

    fn get_latest_state(&self) -> Option<String> {
        self.auv.client().get_latest_state().map(|v| v.to_string())
    }

    /// `get_state`: the reply's line and the SDK's `AUVState` fields.
    fn get_state(&self, py: Python<'_>) -> PyResult<(String, Fields)> {
        self.call(py, |a| {
            let line = a.client().send_command_text("get_state", None, None)?;
            let state = AuvState::from_line_without_sensors(&line)?;
            Ok((line, fields(&state)))
        })
    }

    fn get_sensors(&self, py: Python<'_>, validate: bool) -> PyResult<String> {
        self.call(py, |a| a.get_sensors(validate))
            .map(|m| Value::Object(m).to_string())
    }

    fn hold_depth_step(
        &self,
        py: Python<'_>,
        target_depth: f64,
        forward_force: f64,
        kp: f64,
        kd: f64,
        max_vertical_force: f64,
    ) -> PyResult<String> {
        let hold = DepthHold {
            target_depth,
            forward_force,
            kp,
            kd,
            max_vertical_force,
        };
        self.call(py, |a| a.hold_depth_step(hold))
            .map(|r| r.0.to_string())
    }

    fn hold_heading_step(
        &self,
        py: Python<'_>,
        target_heading_deg: f64,
        forward_force: f64,
        kp: f64,
        kd: f64,
        max_torque: f64,
    ) -> PyResult<String> {
        let hold = HeadingHold {
            target_heading_deg,
            forward_force,
            kp,
            kd,
            max_torque,
        };
        self.call(py, |a| a.hold_heading_step(hold))
            .map(|r| r.0.to_string())
    }

    #[allow(clippy::too_many_arguments)]
    fn track_waypoint_step(
        &self,
        py: Python<'_>,
        world_x: f64,
        world_z: f64,
        nav_depth: Option<f64>,
        force_power: f64,
        depth_power: f64,
        arrival_dist: f64,
    ) -> PyResult<(bool, String)> {
        let step = WaypointStep {
            world_x,
            world_z,
            nav_depth,
            force_power,
            depth_power,
            arrival_dist,
        };
        self.call(py, |a| a.track_waypoint_step(step))
            .map(|(arrived, r)| (arrived, r.0.to_string()))
    }

    /// Gym-style step: the reply's line, the observation's `AUVState`
    /// fields, the reward, the termination flag and the info. The state's
    /// data, and the info entries that only repeat it (`contacts`,
    /// `control`), are left to Python, which parses the line: nothing
    /// crosses twice.
    fn step(
        &self,
        py: Python<'_>,
        action: Vec<f64>,
    ) -> PyResult<(String, Fields, f64, bool, String)> {
        let (line, mut r) = self.call(py, |a| a.step_text(&action))?;
        if let Some(info) = r.info.as_object_mut() {
            info.remove("contacts");
            info.remove("control");
        }
        let fields = fields(&r.observation);
        Ok((line, fields, r.reward, r.done, r.info.to_string()))
    }

    fn reset_episode(&self) {
        self.auv.reset_episode()
    }

    /// Binds a definition (JSON) to the main AUV, or spawns it as a proxy.
    fn build_agent(&self, py: Python<'_>, definition: &str, spawn: bool) -> PyResult<NativeAgent> {
        let def = oceansim_agents::AgentDefinition::from_json(&parse(definition)?)
            .map_err(|e| client_error(py, e.into()))?;
        let auv = self.auv.clone();
        let agent = py
            .detach(move || oceansim_client::blocking::AgentFactory::build_agent(&auv, def, spawn))
            .map_err(|e| client_error(py, e))?;
        Ok(NativeAgent { agent })
    }

    /// Calls AUV method `method` with positional arguments `args` (a JSON
    /// list); returns the reply envelope or the reply's data as JSON text.
    fn auv_call(&self, py: Python<'_>, method: String, args: &str) -> PyResult<String> {
        let args = match parse(args)? {
            Value::Array(a) => a,
            Value::Null => Vec::new(),
            other => vec![other],
        };
        let out = self.call(py, move |a| crate::auv::dispatch(a, &method, &args))?;
        Ok(match out {
            crate::auv::Out::Reply(r) => r.0.to_string(),
            crate::auv::Out::Data(v) => v.to_string(),
        })
    }
}

/// An agent bound to a live simulator object (`AgentFactory.build_agent`).
#[pyclass(module = "oceansim._native", frozen)]
pub struct NativeAgent {
    agent: oceansim_client::blocking::OceanSimAgent,
}

impl NativeAgent {
    fn call<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&oceansim_client::blocking::OceanSimAgent) -> oceansim_client::Result<T> + Send,
    ) -> PyResult<T> {
        let agent = &self.agent;
        py.detach(|| f(agent)).map_err(|e| client_error(py, e))
    }
}

#[pymethods]
impl NativeAgent {
    #[getter]
    fn name(&self) -> String {
        self.agent.name().to_owned()
    }
    #[getter]
    fn control_scheme(&self) -> &'static str {
        self.agent.control_scheme().as_str()
    }
    /// The action space as JSON.
    fn action_space(&self) -> String {
        serde_json::to_string(self.agent.action_space()).unwrap_or_default()
    }
    fn act(&self, py: Python<'_>, action: Vec<f64>) -> PyResult<String> {
        self.call(py, |a| a.act(&action)).map(|r| r.0.to_string())
    }
    fn clear_action(&self, py: Python<'_>) -> PyResult<String> {
        self.call(py, |a| a.clear_action()).map(|r| r.0.to_string())
    }
    #[pyo3(signature = (location, rotation=None))]
    fn teleport(
        &self,
        py: Python<'_>,
        location: [f64; 3],
        rotation: Option<[f64; 3]>,
    ) -> PyResult<String> {
        self.call(py, |a| a.teleport(location, rotation))
            .map(|v| v.to_string())
    }
    fn agent_state_dict(&self) -> String {
        self.agent.agent_state_dict().to_string()
    }
    fn agent_state(&self, py: Python<'_>) -> PyResult<String> {
        self.call(py, |a| a.agent_state()).map(|v| v.to_string())
    }
}
