//! [`Auv`]: the research-friendly wrapper of the OceanSim SDK, on the
//! async client.
//!
//! Frames: `set_force`/`set_force_world`/`step` forces are in the OceanSim
//! user frame (x right/east, y forward/north, z up, N); `set_force_body` in
//! the AUV body frame of the same convention (x starboard, y forward,
//! z up); `set_body_wrench`/`set_body_velocity` in Fossen's body frame (x
//! forward, y starboard, z down; N, N·m, m/s, rad/s). Map-side calls
//! (waypoints, agents, overlays) take Godot world coordinates (Y up), as
//! the protocol does.

use crate::error::{ClientError, Result};
use crate::schema::validate_sensor_set;
use crate::state::AuvState;
use crate::transport::{ConnectOptions, OceanSimClient, Reply};
use oceansim_protocol::payload::{
    BodyVelocity, BodyWrench, Force, GetSensors, MoveAgent, Step, Vector,
};
use oceansim_protocol::{Action, SingleRequest};
use serde_json::{Map, Value};

mod report;
mod world;
use report::{annotate, to_value, DepthReport, HeadingReport, StepInfo, WaypointReport};
use std::sync::{Arc, Mutex};

/// Reward of [`Auv::step`]: `(previous state, new state, action) → reward`.
pub type RewardFn = Arc<dyn Fn(Option<&AuvState>, &AuvState, &[f64]) -> f64 + Send + Sync>;
/// Termination of [`Auv::step`]: `new state → done`.
pub type DoneFn = Arc<dyn Fn(&AuvState) -> bool + Send + Sync>;

/// What [`Auv::step`] returns, Gym style.
#[derive(Debug, Clone)]
pub struct StepResult {
    /// The state after the step.
    pub observation: AuvState,
    /// The reward function's value.
    pub reward: f64,
    /// The termination function's value.
    pub done: bool,
    /// `sim_time`, `contacts`, `command_saturated` and the reply's
    /// `control` report.
    pub info: Value,
}

/// Gains and limits of [`Auv::hold_depth_step`] (the SDK's defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DepthHold {
    /// Depth to hold (m, positive down).
    pub target_depth: f64,
    /// Forward (user y) force applied meanwhile (N).
    pub forward_force: f64,
    /// Proportional gain (N per m of depth error).
    pub kp: f64,
    /// Derivative gain (N per m/s of depth rate).
    pub kd: f64,
    /// Bound of the vertical force (N).
    pub max_vertical_force: f64,
}

impl DepthHold {
    /// Holds `target_depth` with the SDK's gains (kp 70, kd 25, 180 N).
    pub fn new(target_depth: f64) -> DepthHold {
        DepthHold {
            target_depth,
            forward_force: 0.0,
            kp: 70.0,
            kd: 25.0,
            max_vertical_force: 180.0,
        }
    }
}

/// Gains and limits of [`Auv::hold_heading_step`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeadingHold {
    /// Compass heading to hold (deg, 0 = north, clockwise).
    pub target_heading_deg: f64,
    /// Surge force applied meanwhile (N, body x forward).
    pub forward_force: f64,
    /// Proportional gain (N·m per rad of heading error).
    pub kp: f64,
    /// Derivative gain (N·m per rad/s of yaw rate).
    pub kd: f64,
    /// Bound of the yaw torque (N·m).
    pub max_torque: f64,
}

impl HeadingHold {
    /// Holds `target_heading_deg` with moderate gains (kp 40, kd 20, 60 N·m).
    pub fn new(target_heading_deg: f64) -> HeadingHold {
        HeadingHold {
            target_heading_deg,
            forward_force: 0.0,
            kp: 40.0,
            kd: 20.0,
            max_torque: 60.0,
        }
    }
}

/// Target and gains of [`Auv::track_waypoint_step`] (the SDK's defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WaypointStep {
    /// Godot X of the waypoint (m; = user x).
    pub world_x: f64,
    /// Godot Z of the waypoint (m; = −user y).
    pub world_z: f64,
    /// Depth to travel at (m, positive down); the current depth when `None`.
    pub nav_depth: Option<f64>,
    /// Horizontal force at full command (N).
    pub force_power: f64,
    /// Vertical force at full command (N).
    pub depth_power: f64,
    /// Horizontal distance counted as arrival (m).
    pub arrival_dist: f64,
}

impl WaypointStep {
    /// Heads for `(world_x, world_z)` with the SDK's defaults (120 N,
    /// 60 N, arrival within 1 m).
    pub fn new(world_x: f64, world_z: f64) -> WaypointStep {
        WaypointStep {
            world_x,
            world_z,
            nav_depth: None,
            force_power: 120.0,
            depth_power: 60.0,
            arrival_dist: 1.0,
        }
    }
}

#[derive(Debug, Default)]
struct WaypointMemory {
    /// The waypoint as asked (`world_x`, `world_z`, `nav_depth`): the
    /// integral belongs to it.
    target: Option<(f64, f64, Option<f64>)>,
    integral: [f64; 3],
    last_time: Option<f64>,
}

/// Integral gain of the waypoint tracker (per m·s), and the bound of its
/// integral (m·s): small, it only trims a steady drift such as a current.
const WAYPOINT_KI: f64 = 0.05;
const WAYPOINT_INTEGRAL_MAX: f64 = 10.0;

fn finite(name: &str, values: &[f64]) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(i) => Err(ClientError::InvalidArgument(format!(
            "`{name}` must be finite (element {i} is {})",
            values[i]
        ))),
        None => Ok(()),
    }
}

/// A force payload for the main AUV.
fn force(f: [f64; 3]) -> Force {
    Force {
        force: Vector(f),
        agent_id: None,
    }
}

/// A `step` applying `action` (a force, of three values: callers check
/// it with `check_force` first).
fn step_with(action: &[f64]) -> Action {
    let f = <[f64; 3]>::try_from(action).unwrap_or([0.0; 3]);
    Action::Step(Step {
        force: Some(Vector(f)),
        ..Step::default()
    })
}

/// The main AUV of a running simulator.
#[derive(Clone)]
pub struct Auv {
    client: OceanSimClient,
    waypoint: Arc<Mutex<WaypointMemory>>,
    reward: RewardFn,
    done: DoneFn,
    last: Arc<Mutex<Option<AuvState>>>,
}

impl std::fmt::Debug for Auv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Auv")
            .field("client", &self.client)
            .finish_non_exhaustive()
    }
}

impl Auv {
    /// Connects to the simulator at `addr` with the default retries.
    pub async fn connect(addr: &str) -> Result<Auv> {
        Ok(Auv::from_client(OceanSimClient::connect(addr).await?))
    }

    /// Connects with explicit retry and timeout options.
    pub async fn connect_with(addr: &str, options: ConnectOptions) -> Result<Auv> {
        Ok(Auv::from_client(
            OceanSimClient::connect_with(addr, options).await?,
        ))
    }

    /// Wraps a connected client. Default reward: 0; default termination:
    /// any contact.
    pub fn from_client(client: OceanSimClient) -> Auv {
        Auv {
            client,
            waypoint: Arc::default(),
            reward: Arc::new(|_, _, _| 0.0),
            done: Arc::new(AuvState::in_contact),
            last: Arc::default(),
        }
    }

    /// The underlying client.
    pub fn client(&self) -> &OceanSimClient {
        &self.client
    }

    /// Replaces the reward of [`Auv::step`].
    pub fn with_reward(
        mut self,
        reward: impl Fn(Option<&AuvState>, &AuvState, &[f64]) -> f64 + Send + Sync + 'static,
    ) -> Auv {
        self.reward = Arc::new(reward);
        self
    }

    /// Replaces the termination test of [`Auv::step`].
    pub fn with_done(mut self, done: impl Fn(&AuvState) -> bool + Send + Sync + 'static) -> Auv {
        self.done = Arc::new(done);
        self
    }

    /// Forgets the episode's memory: the previous state [`Auv::step`]'s
    /// reward compares with, and the waypoint tracker's integral. Called by
    /// `reset`, `set_scenario` and `set_pose`.
    pub fn reset_episode(&self) {
        *self.last.lock().unwrap_or_else(|p| p.into_inner()) = None;
        *self.waypoint.lock().unwrap_or_else(|p| p.into_inner()) = WaypointMemory::default();
    }

    /// Sends a request whose data is not typed by the caller (options
    /// objects passed through as they are).
    async fn command(&self, action: &str, data: Value) -> Result<Reply> {
        self.client.send_command(action, Some(data), None).await
    }

    /// Sends a typed action of the protocol.
    async fn act(&self, action: Action) -> Result<Reply> {
        let request = SingleRequest::new(action);
        self.client.send_request(&request, None).await
    }

    // ---- control ---------------------------------------------------------

    /// World-frame force (compatibility alias of `set_force_world`).
    pub async fn set_force(&self, fx: f64, fy: f64, fz: f64) -> Result<Reply> {
        finite("force", &[fx, fy, fz])?;
        self.act(Action::SetForce(force([fx, fy, fz]))).await
    }

    /// Force in the OceanSim world/user frame (N).
    pub async fn set_force_world(&self, fx: f64, fy: f64, fz: f64) -> Result<Reply> {
        finite("force", &[fx, fy, fz])?;
        self.act(Action::SetForceWorld(force([fx, fy, fz]))).await
    }

    /// Force in the AUV body frame, user convention (N).
    pub async fn set_force_body(&self, fx: f64, fy: f64, fz: f64) -> Result<Reply> {
        finite("force", &[fx, fy, fz])?;
        self.act(Action::SetForceBody(force([fx, fy, fz]))).await
    }

    /// Fossen body-frame force and torque (N, N·m).
    pub async fn set_body_wrench(
        &self,
        fx: f64,
        fy: f64,
        fz: f64,
        tx: f64,
        ty: f64,
        tz: f64,
    ) -> Result<Reply> {
        let w = [fx, fy, fz, tx, ty, tz];
        finite("wrench", &w)?;
        self.act(Action::SetBodyWrench(BodyWrench {
            wrench: Vector(w),
            agent_id: None,
        }))
        .await
    }

    /// Fossen body-frame velocity target `[u, v, w, p, q, r]` (m/s, rad/s).
    pub async fn set_body_velocity(
        &self,
        u: f64,
        v: f64,
        w: f64,
        p: f64,
        q: f64,
        r: f64,
    ) -> Result<Reply> {
        let nu = [u, v, w, p, q, r];
        finite("velocity", &nu)?;
        self.act(Action::SetBodyVelocity(BodyVelocity {
            velocity: Vector(nu),
            agent_id: None,
        }))
        .await
    }

    /// Forward: a positive user-y force of `power` N.
    pub async fn surge(&self, power: f64) -> Result<Reply> {
        self.set_force(0.0, power, 0.0).await
    }

    /// Sideways: a user-x force of `power` N.
    pub async fn strafe(&self, power: f64) -> Result<Reply> {
        self.set_force(power, 0.0, 0.0).await
    }

    /// Vertical: a user-z (up) force of `power` N.
    pub async fn heave(&self, power: f64) -> Result<Reply> {
        self.set_force(0.0, 0.0, power).await
    }

    /// Zero force.
    pub async fn stop(&self) -> Result<Reply> {
        self.set_force(0.0, 0.0, 0.0).await
    }

    /// Moves the AUV to `position` (user frame, m) at rest; `rotation_deg`
    /// is a Godot Euler rotation, `yaw_deg` a compass heading (used when no
    /// rotation is given). Blocked poses are refused (`blocked_pose`).
    pub async fn set_pose(
        &self,
        position: [f64; 3],
        rotation_deg: Option<[f64; 3]>,
        yaw_deg: Option<f64>,
    ) -> Result<Reply> {
        finite("position", &position)?;
        let godot = oceansim_vehicles::frames::oceansim_to_godot(position);
        // Godot's Y rotation turns the nose toward west: heading ψ = −y.
        let rotation = rotation_deg.or(yaw_deg.map(|yaw| [0.0, -yaw, 0.0]));
        if let Some(r) = rotation {
            finite("rotation", &r)?;
        }
        let reply = self
            .act(Action::MoveAgent(MoveAgent {
                id: oceansim_agents::MAIN_AGENT_NAME.into(),
                position: Vector(godot),
                rotation: rotation.map(Vector),
            }))
            .await?;
        self.reset_episode();
        Ok(reply)
    }

    /// One PD depth-hold step: reads the state, commands the world force
    /// `[0, forward_force, clamp(kp·e + kd·ė)]` with e = depth − target
    /// (positive when too deep, so the force points up), and returns the
    /// reply with a `control` report (`mode: "depth_pd"`, error, rate,
    /// force, saturation).
    pub async fn hold_depth_step(&self, hold: DepthHold) -> Result<Reply> {
        finite(
            "depth hold",
            &[
                hold.target_depth,
                hold.forward_force,
                hold.kp,
                hold.kd,
                hold.max_vertical_force,
            ],
        )?;
        let s = self.get_state().await?;
        let error = s.depth() - hold.target_depth;
        let rate = -s.velocity()[2];
        let raw = hold.kp * error + hold.kd * rate;
        let limit = hold.max_vertical_force.abs();
        let fz = raw.clamp(-limit, limit);
        let reply = self.set_force_world(0.0, hold.forward_force, fz).await?;
        Ok(annotate(
            reply,
            &DepthReport {
                mode: "depth_pd",
                target: hold.target_depth,
                error,
                rate,
                force: [0.0, hold.forward_force, fz],
                saturation: raw.abs() > limit,
            },
        ))
    }

    /// One PD heading step: yaw torque `clamp(kp·e − kd·r)` with e the
    /// heading error wrapped to (−180°, 180°] in radians, plus the surge
    /// force, as a Fossen body wrench. Returns the reply with a `control`
    /// report (`mode: "heading_pd"`).
    pub async fn hold_heading_step(&self, hold: HeadingHold) -> Result<Reply> {
        finite(
            "heading hold",
            &[
                hold.target_heading_deg,
                hold.forward_force,
                hold.kp,
                hold.kd,
                hold.max_torque,
            ],
        )?;
        let s = self.get_state().await?;
        let error_deg = wrap_deg(hold.target_heading_deg - s.heading());
        let r = s.data.angular_velocity[2];
        let raw = hold.kp * error_deg.to_radians() - hold.kd * r;
        let limit = hold.max_torque.abs();
        let tz = raw.clamp(-limit, limit);
        let reply = self
            .set_body_wrench(hold.forward_force, 0.0, 0.0, 0.0, 0.0, tz)
            .await?;
        Ok(annotate(
            reply,
            &HeadingReport {
                mode: "heading_pd",
                target: hold.target_heading_deg,
                error: error_deg,
                yaw_rate: r,
                torque: tz,
                saturation: raw.abs() > limit,
            },
        ))
    }

    /// One force-control waypoint step toward the Godot X/Z point: a PI
    /// law on the user-frame error (horizontal and depth), normalised to
    /// `force_power` horizontally and `depth_power` vertically. Returns
    /// `(arrived, reply)`; the reply's `control` holds `mode:
    /// "waypoint_pid"`, `error`, `integral`, `saturation`, `target`,
    /// `force` and `dt`. On arrival the force is zero and the integral
    /// resets.
    pub async fn track_waypoint_step(&self, step: WaypointStep) -> Result<(bool, Reply)> {
        finite(
            "waypoint",
            &[
                step.world_x,
                step.world_z,
                step.force_power,
                step.depth_power,
                step.arrival_dist,
            ],
        )?;
        if let Some(d) = step.nav_depth {
            finite("nav_depth", &[d])?;
        }
        let s = self.get_state().await?;
        let depth = step.nav_depth.unwrap_or(s.depth());
        let target = [step.world_x, step.world_z, depth];
        // Error in the user frame: Godot X = user x, Godot Z = −user y;
        // z error is up-positive (current depth − target depth).
        let error = [
            step.world_x - s.x(),
            -step.world_z - s.y(),
            s.depth() - depth,
        ];
        let horizontal = error[0].hypot(error[1]);
        let arrived = horizontal <= step.arrival_dist;
        let (integral, dt) = {
            let mut m = self.waypoint.lock().unwrap_or_else(|p| p.into_inner());
            let asked = (step.world_x, step.world_z, step.nav_depth);
            if m.target != Some(asked) || arrived {
                *m = WaypointMemory {
                    target: Some(asked),
                    ..Default::default()
                };
            }
            let dt = m.last_time.map_or(0.0, |t| (s.sim_time() - t).max(0.0));
            m.last_time = Some(s.sim_time());
            if !arrived {
                for (i, e) in m.integral.iter_mut().zip(error) {
                    *i = (*i + e * dt).clamp(-WAYPOINT_INTEGRAL_MAX, WAYPOINT_INTEGRAL_MAX);
                }
            }
            (m.integral, dt)
        };
        let u = [0, 1, 2].map(|k| error[k] + WAYPOINT_KI * integral[k]);
        let norm = u[0].hypot(u[1]);
        let mut saturation = [false; 3];
        let mut force = [0.0; 3];
        if !arrived {
            // Full power beyond 1 m of (integral-corrected) error, linear inside.
            let scale = if norm > 1.0 {
                saturation[0] = true;
                saturation[1] = true;
                1.0 / norm
            } else {
                1.0
            };
            force[0] = step.force_power * u[0] * scale;
            force[1] = step.force_power * u[1] * scale;
        }
        let vertical = u[2].clamp(-1.0, 1.0);
        saturation[2] = u[2].abs() > 1.0;
        force[2] = step.depth_power * vertical;
        let reply = self.set_force_world(force[0], force[1], force[2]).await?;
        Ok((
            arrived,
            annotate(
                reply,
                &WaypointReport {
                    mode: "waypoint_pid",
                    target,
                    error,
                    integral,
                    saturation,
                    force,
                    dt,
                    distance: horizontal,
                },
            ),
        ))
    }

    /// Gym-style step: applies the world-frame force `action` (3 values,
    /// N) through the protocol's `step` (one control period), and returns
    /// the new state, the reward, the termination flag and an info map.
    pub async fn step(&self, action: &[f64]) -> Result<StepResult> {
        check_force(action)?;
        let reply = self.act(step_with(action)).await?;
        let observation = AuvState::from_value(reply.data().clone())?;
        Ok(self.judge(observation, action))
    }

    /// [`Auv::step`] for a caller that parses the reply itself (the Python
    /// SDK): returns the reply's line, and the step result computed from
    /// the state read off that line with its sensors skipped (the
    /// observation's [`AuvState::sensors`] is empty; they are in the line).
    pub async fn step_text(&self, action: &[f64]) -> Result<(String, StepResult)> {
        check_force(action)?;
        let line = self
            .client
            .send_request_text(&SingleRequest::new(step_with(action)), None)
            .await?;
        let observation = AuvState::from_line_without_sensors(&line)?;
        Ok((line, self.judge(observation, action)))
    }

    /// The reward, termination and info of a step that led to `observation`.
    fn judge(&self, observation: AuvState, action: &[f64]) -> StepResult {
        let previous = self
            .last
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .replace(observation.clone());
        let reward = (self.reward)(previous.as_ref(), &observation, action);
        let done = (self.done)(&observation);
        let info = to_value(&StepInfo {
            sim_time: observation.sim_time(),
            contacts: &observation.data.contacts,
            command_saturated: observation.data.control.command_saturated,
            control: &observation.data.control,
        });
        StepResult {
            observation,
            reward,
            done,
            info,
        }
    }

    /// Advances one control period holding the last command (the
    /// protocol's `step` with no command) and returns the new state.
    pub async fn advance(&self) -> Result<AuvState> {
        let reply = self.act(Action::Step(Step::default())).await?;
        AuvState::from_value(reply.into_data())
    }

    // ---- state and sensors -----------------------------------------------

    /// The current state.
    pub async fn get_state(&self) -> Result<AuvState> {
        AuvState::from_value(self.client.request_state().await?)
    }

    /// Every active sensor payload, checked against the sensor schema when
    /// `validate` (normalised payloads are returned then).
    pub async fn get_sensors(&self, validate: bool) -> Result<Map<String, Value>> {
        let reply = self.client.send_command("get_sensors", None, None).await?;
        let sensors = match reply.into_data().get_mut("sensors").map(Value::take) {
            Some(Value::Object(m)) => m,
            _ => {
                return Err(ClientError::protocol(
                    "empty_reply",
                    "`get_sensors` returned no `sensors` object",
                    "get_sensors",
                    None,
                ))
            }
        };
        if validate {
            Ok(validate_sensor_set(&sensors, &[])?)
        } else {
            Ok(sensors)
        }
    }

    async fn sensor(&self, name: &str) -> Result<Value> {
        // The server renders only the sensor asked for.
        let reply = self
            .client
            .send_request(
                &SingleRequest::new(Action::GetSensors(GetSensors {
                    sensors: Some(vec![name.to_owned()]),
                })),
                None,
            )
            .await?;
        let mut sensors = match reply.into_data().get_mut("sensors").map(Value::take) {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        sensors.remove(name).ok_or_else(|| {
            ClientError::protocol(
                "unknown_sensor",
                format!("the vehicle has no `{name}` sensor"),
                "get_sensors",
                None,
            )
        })
    }

    /// The 2D lidar scan.
    pub async fn get_lidar_2d(&self) -> Result<Value> {
        self.sensor("lidar_2d").await
    }
    /// The 3D lidar cloud.
    pub async fn get_lidar_3d(&self) -> Result<Value> {
        self.sensor("lidar_3d").await
    }
    /// The 3D lidar cloud (alias of [`Auv::get_lidar_3d`]).
    pub async fn get_point_cloud_3d(&self) -> Result<Value> {
        self.sensor("lidar_3d").await
    }
    /// The Doppler velocity log.
    pub async fn get_dvl(&self) -> Result<Value> {
        self.sensor("dvl").await
    }
    /// The forward-looking imaging sonar.
    pub async fn get_imaging_sonar(&self) -> Result<Value> {
        self.sensor("imaging_sonar").await
    }
    /// The multibeam sonar.
    pub async fn get_multibeam_sonar(&self) -> Result<Value> {
        self.sensor("multibeam_sonar").await
    }
    /// The side-scan sonar.
    pub async fn get_side_scan_sonar(&self) -> Result<Value> {
        self.sensor("side_scan_sonar").await
    }
    /// The RGB-D dense cloud.
    pub async fn get_rgbd_dense_cloud(&self) -> Result<Value> {
        self.sensor("rgbd_dense_cloud").await
    }
    /// The camera frame, from the latest state.
    pub async fn get_camera(&self) -> Result<Value> {
        let s = self.get_state().await?;
        s.camera().cloned().ok_or_else(|| {
            ClientError::protocol(
                "unknown_sensor",
                "the vehicle has no `camera` sensor",
                "get_state",
                None,
            )
        })
    }
}

/// A gym step's action: a world-frame force of 3 finite values (N).
fn check_force(action: &[f64]) -> Result<()> {
    let space =
        oceansim_agents::ActionSpace::for_scheme(oceansim_agents::ControlScheme::Force3d, 0);
    space.validate(action)?;
    Ok(())
}

/// Wraps an angle in degrees to (−180, 180].
pub fn wrap_deg(a: f64) -> f64 {
    let w = (a + 180.0).rem_euclid(360.0) - 180.0;
    if w == -180.0 {
        180.0
    } else {
        w
    }
}
