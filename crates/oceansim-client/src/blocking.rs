//! Blocking wrappers for scripts: the same client, AUV and agents, each
//! call waiting for its reply. There is no runtime underneath: the calling
//! thread writes the request line and reads until its reply comes back
//! (the transport's direct link), so a round trip costs what a plain
//! socket's does. Calls from several threads on one connection take turns.
//! Inside an async runtime, use the async types instead: these block the
//! thread they run on.
//!
//! ```no_run
//! use oceansim_client::blocking::Auv;
//! let auv = Auv::connect("127.0.0.1:9876")?;
//! auv.surge(80.0)?;
//! println!("depth {:.2} m", auv.get_state()?.depth());
//! # Ok::<(), oceansim_client::ClientError>(())
//! ```

use crate::agents::{self, Binding};
use crate::auv::{self, DepthHold, HeadingHold, StepResult, WaypointStep};
use crate::error::Result;
use crate::state::AuvState;
use crate::transport::{self, ConnectOptions, Reply};
use oceansim_agents::{ActionSpace, AgentDefinition, ControlScheme};
use oceansim_protocol::payload::{PathPoint, TerrainGridRequest};
use serde_json::{Map, Value};
use std::time::Duration;

/// Runs a future of the direct link to completion on this thread: its I/O
/// is blocking, so it completes on its first poll.
fn run<T>(f: impl std::future::Future<Output = T>) -> T {
    futures::executor::block_on(f)
}

/// Generates blocking methods that run the async method of the same name.
macro_rules! blocking {
    ($( $(#[$m:meta])* fn $name:ident(&self $(, $arg:ident : $ty:ty)*) -> $ret:ty; )*) => {
        $( $(#[$m])* pub fn $name(&self $(, $arg: $ty)*) -> $ret {
            run(self.inner.$name($($arg),*))
        } )*
    };
}

/// Blocking [`transport::OceanSimClient`].
#[derive(Debug, Clone)]
pub struct OceanSimClient {
    inner: transport::OceanSimClient,
}

impl OceanSimClient {
    /// Connects with the default retries (10, 1 s apart) and 5 s timeout.
    pub fn connect(addr: &str) -> Result<OceanSimClient> {
        OceanSimClient::connect_with(addr, ConnectOptions::default())
    }

    /// Connects with explicit retry and timeout options.
    pub fn connect_with(addr: &str, options: ConnectOptions) -> Result<OceanSimClient> {
        let inner = transport::OceanSimClient::connect_direct(addr, options)?;
        Ok(OceanSimClient { inner })
    }

    /// The async client underneath (same connection).
    pub fn inner(&self) -> &transport::OceanSimClient {
        &self.inner
    }

    /// `true` while the connection is open.
    pub fn is_connected(&self) -> bool {
        self.inner.is_connected()
    }

    /// Sends one raw JSON request without waiting (see
    /// [`transport::OceanSimClient::send`]).
    pub fn send(&self, msg: &Value) -> Result<()> {
        self.inner.send(msg)
    }

    /// Closes the connection for every handle on it.
    pub fn disconnect(&self) {
        self.inner.disconnect()
    }

    /// The last full state any reply carried.
    pub fn get_latest_state(&self) -> Option<Value> {
        self.inner.get_latest_state()
    }

    blocking! {
        /// See [`transport::OceanSimClient::request`].
        fn request(&self, msg: Value, timeout: Option<Duration>) -> Result<Reply>;
        /// See [`transport::OceanSimClient::send_command`].
        fn send_command(&self, action: &str, data: Option<Value>, timeout: Option<Duration>) -> Result<Reply>;
        /// See [`transport::OceanSimClient::send_sim_control`].
        fn send_sim_control(&self, action: &str, params: Option<Value>, timeout: Option<Duration>) -> Result<Reply>;
        /// See [`transport::OceanSimClient::send_batch`].
        fn send_batch(&self, requests: Vec<Value>, timeout: Option<Duration>) -> Result<Vec<Reply>>;
        /// See [`transport::OceanSimClient::request_state`].
        fn request_state(&self) -> Result<Value>;
        /// See [`transport::OceanSimClient::request_text`].
        fn request_text(&self, msg: Value, timeout: Option<Duration>) -> Result<String>;
        /// See [`transport::OceanSimClient::send_command_text`].
        fn send_command_text(&self, action: &str, data: Option<Value>, timeout: Option<Duration>) -> Result<String>;
        /// See [`transport::OceanSimClient::send_batch_text`].
        fn send_batch_text(&self, requests: Vec<Value>, timeout: Option<Duration>) -> Result<String>;
        /// See [`transport::OceanSimClient::send_sim_control_text`].
        fn send_sim_control_text(&self, action: &str, params: Option<Value>, timeout: Option<Duration>) -> Result<String>;
    }
}

/// Blocking [`auv::Auv`].
#[derive(Debug, Clone)]
pub struct Auv {
    inner: auv::Auv,
}

impl Auv {
    /// Connects with the default retries and timeout.
    pub fn connect(addr: &str) -> Result<Auv> {
        Ok(Auv::from_client(OceanSimClient::connect(addr)?))
    }

    /// Connects with explicit retry and timeout options.
    pub fn connect_with(addr: &str, options: ConnectOptions) -> Result<Auv> {
        Ok(Auv::from_client(OceanSimClient::connect_with(
            addr, options,
        )?))
    }

    /// Wraps a connected blocking client.
    pub fn from_client(client: OceanSimClient) -> Auv {
        Auv {
            inner: auv::Auv::from_client(client.inner),
        }
    }

    /// The client underneath.
    pub fn client(&self) -> OceanSimClient {
        OceanSimClient {
            inner: self.inner.client().clone(),
        }
    }

    /// The async AUV underneath.
    pub fn inner(&self) -> &auv::Auv {
        &self.inner
    }

    /// See [`auv::Auv::reset_episode`].
    pub fn reset_episode(&self) {
        self.inner.reset_episode()
    }

    /// Replaces the reward of [`Auv::step`].
    pub fn with_reward(
        mut self,
        reward: impl Fn(Option<&AuvState>, &AuvState, &[f64]) -> f64 + Send + Sync + 'static,
    ) -> Auv {
        self.inner = self.inner.with_reward(reward);
        self
    }

    /// Replaces the termination test of [`Auv::step`].
    pub fn with_done(mut self, done: impl Fn(&AuvState) -> bool + Send + Sync + 'static) -> Auv {
        self.inner = self.inner.with_done(done);
        self
    }

    blocking! {
        /// See [`auv::Auv::set_force`].
        fn set_force(&self, fx: f64, fy: f64, fz: f64) -> Result<Reply>;
        /// See [`auv::Auv::set_force_world`].
        fn set_force_world(&self, fx: f64, fy: f64, fz: f64) -> Result<Reply>;
        /// See [`auv::Auv::set_force_body`].
        fn set_force_body(&self, fx: f64, fy: f64, fz: f64) -> Result<Reply>;
        /// See [`auv::Auv::set_body_wrench`].
        fn set_body_wrench(&self, fx: f64, fy: f64, fz: f64, tx: f64, ty: f64, tz: f64) -> Result<Reply>;
        /// See [`auv::Auv::set_body_velocity`].
        fn set_body_velocity(&self, u: f64, v: f64, w: f64, p: f64, q: f64, r: f64) -> Result<Reply>;
        /// See [`auv::Auv::surge`].
        fn surge(&self, power: f64) -> Result<Reply>;
        /// See [`auv::Auv::strafe`].
        fn strafe(&self, power: f64) -> Result<Reply>;
        /// See [`auv::Auv::heave`].
        fn heave(&self, power: f64) -> Result<Reply>;
        /// See [`auv::Auv::stop`].
        fn stop(&self) -> Result<Reply>;
        /// See [`auv::Auv::set_pose`].
        fn set_pose(&self, position: [f64; 3], rotation_deg: Option<[f64; 3]>, yaw_deg: Option<f64>) -> Result<Reply>;
        /// See [`auv::Auv::hold_depth_step`].
        fn hold_depth_step(&self, hold: DepthHold) -> Result<Reply>;
        /// See [`auv::Auv::hold_heading_step`].
        fn hold_heading_step(&self, hold: HeadingHold) -> Result<Reply>;
        /// See [`auv::Auv::track_waypoint_step`].
        fn track_waypoint_step(&self, step: WaypointStep) -> Result<(bool, Reply)>;
        /// See [`auv::Auv::step`].
        fn step(&self, action: &[f64]) -> Result<StepResult>;
        /// See [`auv::Auv::step_text`].
        fn step_text(&self, action: &[f64]) -> Result<(String, StepResult)>;
        /// See [`auv::Auv::advance`].
        fn advance(&self) -> Result<AuvState>;
        /// See [`auv::Auv::get_state`].
        fn get_state(&self) -> Result<AuvState>;
        /// See [`auv::Auv::get_sensors`].
        fn get_sensors(&self, validate: bool) -> Result<Map<String, Value>>;
        /// See [`auv::Auv::get_lidar_2d`].
        fn get_lidar_2d(&self) -> Result<Value>;
        /// See [`auv::Auv::get_lidar_3d`].
        fn get_lidar_3d(&self) -> Result<Value>;
        /// See [`auv::Auv::get_point_cloud_3d`].
        fn get_point_cloud_3d(&self) -> Result<Value>;
        /// See [`auv::Auv::get_dvl`].
        fn get_dvl(&self) -> Result<Value>;
        /// See [`auv::Auv::get_imaging_sonar`].
        fn get_imaging_sonar(&self) -> Result<Value>;
        /// See [`auv::Auv::get_multibeam_sonar`].
        fn get_multibeam_sonar(&self) -> Result<Value>;
        /// See [`auv::Auv::get_side_scan_sonar`].
        fn get_side_scan_sonar(&self) -> Result<Value>;
        /// See [`auv::Auv::get_rgbd_dense_cloud`].
        fn get_rgbd_dense_cloud(&self) -> Result<Value>;
        /// See [`auv::Auv::get_camera`].
        fn get_camera(&self) -> Result<Value>;
        /// See [`auv::Auv::pause`].
        fn pause(&self) -> Result<Reply>;
        /// See [`auv::Auv::resume`].
        fn resume(&self) -> Result<Reply>;
        /// See [`auv::Auv::reset`].
        fn reset(&self, seed: Option<u64>) -> Result<Reply>;
        /// See [`auv::Auv::set_time_scale`].
        fn set_time_scale(&self, time_scale: f64) -> Result<Reply>;
        /// See [`auv::Auv::set_scenario`].
        fn set_scenario(&self, scenario: &str, seed: Option<u64>) -> Result<Reply>;
        /// See [`auv::Auv::generate_map`].
        fn generate_map(&self, options: Value) -> Result<Value>;
        /// See [`auv::Auv::set_thrusters`].
        fn set_thrusters(&self, commands: &[f64]) -> Result<Reply>;
        /// See [`auv::Auv::set_fins`].
        fn set_fins(&self, values: &[f64]) -> Result<Reply>;
        /// See [`auv::Auv::configure_acoustic_comm`].
        fn configure_acoustic_comm(&self, config: Value) -> Result<Value>;
        /// See [`auv::Auv::set_waypoint_request`].
        fn set_waypoint_request(&self, request: &oceansim_protocol::payload::SetWaypoint) -> Result<Reply>;
        /// See [`auv::Auv::get_map_info`].
        fn get_map_info(&self) -> Result<Value>;
        /// See [`auv::Auv::get_terrain_grid`].
        fn get_terrain_grid(&self, request: &TerrainGridRequest) -> Result<Value>;
        /// See [`auv::Auv::spawn_obstacle`].
        fn spawn_obstacle(&self, config: Value) -> Result<Value>;
        /// See [`auv::Auv::remove_obstacle`].
        fn remove_obstacle(&self, id: &str) -> Result<Value>;
        /// See [`auv::Auv::spawn_agent`].
        fn spawn_agent(&self, config: Value) -> Result<Value>;
        /// See [`auv::Auv::move_agent`].
        fn move_agent(&self, id: &str, position: [f64; 3], rotation: Option<[f64; 3]>) -> Result<Value>;
        /// See [`auv::Auv::remove_agent`].
        fn remove_agent(&self, id: &str) -> Result<Value>;
        /// See [`auv::Auv::clear_agents`].
        fn clear_agents(&self) -> Result<Value>;
        /// See [`auv::Auv::get_agents`].
        fn get_agents(&self) -> Result<Value>;
        /// See [`auv::Auv::set_agent_velocity`].
        fn set_agent_velocity(&self, id: &str, velocity: [f64; 3]) -> Result<Reply>;
        /// See [`auv::Auv::set_current`].
        fn set_current(&self, velocity: [f64; 3]) -> Result<Reply>;
        /// See [`auv::Auv::send_acoustic_message`].
        fn send_acoustic_message(&self, sender_id: &str, receiver_id: &str, payload: Value) -> Result<Value>;
        /// See [`auv::Auv::read_acoustic_inbox`].
        fn read_acoustic_inbox(&self, agent_id: &str, clear: bool) -> Result<Value>;
        /// See [`auv::Auv::set_nav_path`].
        fn set_nav_path(&self, path: &[PathPoint]) -> Result<Reply>;
        /// See [`auv::Auv::set_waypoint`].
        fn set_waypoint(&self, world_x: f64, world_z: f64) -> Result<Reply>;
        /// See [`auv::Auv::set_waypoints`].
        fn set_waypoints(&self, waypoints: &[PathPoint]) -> Result<Reply>;
        /// See [`auv::Auv::set_pred_trajectory`].
        fn set_pred_trajectory(&self, points: &[PathPoint]) -> Result<Reply>;
        /// See [`auv::Auv::clear_nav`].
        fn clear_nav(&self) -> Result<Reply>;
        /// See [`auv::Auv::export_dataset`].
        fn export_dataset(&self, options: Value) -> Result<Value>;
        /// See [`auv::Auv::save_snapshot_json`].
        fn save_snapshot_json(&self, path: Option<&str>) -> Result<Value>;
    }
}

/// What [`AgentFactory::build_agent`] binds to.
#[derive(Debug, Clone)]
pub enum Target {
    /// A blocking client.
    Client(OceanSimClient),
    /// A blocking AUV.
    Auv(Auv),
}

impl From<&OceanSimClient> for Target {
    fn from(c: &OceanSimClient) -> Target {
        Target::Client(c.clone())
    }
}
impl From<&Auv> for Target {
    fn from(a: &Auv) -> Target {
        Target::Auv(a.clone())
    }
}

/// Blocking [`agents::OceanSimAgent`].
#[derive(Debug, Clone)]
pub struct OceanSimAgent {
    inner: agents::OceanSimAgent,
}

impl OceanSimAgent {
    /// The runtime identifier.
    pub fn name(&self) -> &str {
        self.inner.name()
    }
    /// The active control scheme.
    pub fn control_scheme(&self) -> ControlScheme {
        self.inner.control_scheme()
    }
    /// The action contract `act` checks against.
    pub fn action_space(&self) -> &ActionSpace {
        self.inner.action_space()
    }
    /// See [`agents::OceanSimAgent::with_bounds`].
    pub fn with_bounds(
        mut self,
        low: Vec<Option<f64>>,
        high: Vec<Option<f64>>,
    ) -> Result<OceanSimAgent> {
        self.inner = self.inner.with_bounds(low, high)?;
        Ok(self)
    }
    /// See [`agents::OceanSimAgent::agent_state_dict`].
    pub fn agent_state_dict(&self) -> Value {
        self.inner.agent_state_dict()
    }

    blocking! {
        /// See [`agents::OceanSimAgent::act`].
        fn act(&self, action: &[f64]) -> Result<Reply>;
        /// See [`agents::OceanSimAgent::clear_action`].
        fn clear_action(&self) -> Result<Reply>;
        /// See [`agents::OceanSimAgent::teleport`].
        fn teleport(&self, location: [f64; 3], rotation: Option<[f64; 3]>) -> Result<Value>;
        /// See [`agents::OceanSimAgent::agent_state`].
        fn agent_state(&self) -> Result<Value>;
    }
}

/// Blocking [`agents::AgentFactory`].
#[derive(Debug, Clone, Copy, Default)]
pub struct AgentFactory;

impl AgentFactory {
    /// See [`agents::AgentFactory::build_agent`].
    pub fn build_agent(
        target: impl Into<Target>,
        definition: AgentDefinition,
        spawn: bool,
    ) -> Result<OceanSimAgent> {
        let binding = match target.into() {
            Target::Client(c) => Binding::Client(c.inner),
            Target::Auv(a) => Binding::Auv(a.inner),
        };
        let inner = run(agents::AgentFactory::build_agent(
            binding, definition, spawn,
        ))?;
        Ok(OceanSimAgent { inner })
    }
}
