//! The map, agent, overlay, dataset and clock calls of [`Auv`]: thin,
//! typed wrappers of the protocol actions of the same names. Positions are
//! Godot world coordinates (Y up) as in the protocol.

use super::{finite, Auv};
use crate::error::{ClientError, Result};
use crate::transport::Reply;
use oceansim_protocol::payload::{
    AcousticMessage, FinCommand, Fins, MoveAgent, NavPath, ObjectId, PathPoint, PredTrajectory,
    ReadAcousticInbox, Reset, SaveSnapshot, SetAgentVelocity, SetCurrent, SetScenario,
    SetTimeScale, SetWaypoint, TerrainGridRequest, ThrusterCommand, Thrusters, Vector, Waypoints,
};
use oceansim_protocol::Action;
use serde_json::Value;

impl Auv {
    // ---- clock ------------------------------------------------------------

    /// Pauses the clock.
    pub async fn pause(&self) -> Result<Reply> {
        self.client.send_sim_control("pause", None, None).await
    }
    /// Resumes the clock.
    pub async fn resume(&self) -> Result<Reply> {
        self.client.send_sim_control("resume", None, None).await
    }
    /// Resets the scenario (with a new seed when given).
    pub async fn reset(&self, seed: Option<u64>) -> Result<Reply> {
        let reply = self.act(Action::Reset(Reset { seed })).await?;
        self.reset_episode();
        Ok(reply)
    }
    /// Runs the clock at `time_scale` × real time.
    pub async fn set_time_scale(&self, time_scale: f64) -> Result<Reply> {
        self.act(Action::SetTimeScale(SetTimeScale { time_scale }))
            .await
    }

    // ---- maps, agents, overlays, datasets ---------------------------------

    /// Loads a named scenario (its own seed, 0, when `None`).
    pub async fn set_scenario(&self, scenario: &str, seed: Option<u64>) -> Result<Reply> {
        let scenario = scenario.to_owned();
        let reply = self
            .act(Action::SetScenario(SetScenario { scenario, seed }))
            .await?;
        self.reset_episode();
        Ok(reply)
    }
    /// Regenerates the terrain (`{"scenario": ..., "seed": ...}`, both
    /// optional).
    pub async fn generate_map(&self, options: Value) -> Result<Value> {
        Ok(self.command("generate_map", options).await?.into_data())
    }
    /// Normalised thruster commands in the profile's order, in [-1, 1].
    pub async fn set_thrusters(&self, commands: &[f64]) -> Result<Reply> {
        finite("thrusters", commands)?;
        self.act(Action::SetThrusters(Thrusters {
            thrusters: ThrusterCommand::Ordered(commands.to_vec()),
            agent_id: None,
        }))
        .await
    }
    /// Control-surface deflections (rad) then propeller speeds (rpm), in the
    /// vehicle profile's order (`[rudder, stern_plane, propeller_rpm]` for
    /// Fossen's REMUS 100; signs as in `remus100.py`, rpm ≥ 0 ahead), through
    /// `set_fins`. The reply's `fins` are the values applied after clipping
    /// to the profile's limits (`saturated`, `requested` when clipped). A
    /// vehicle without fins answers `unsupported_control_scheme`.
    pub async fn set_fins(&self, values: &[f64]) -> Result<Reply> {
        finite("fins", values)?;
        let max = oceansim_protocol::payload::MAX_FINS;
        if values.is_empty() || values.len() > max {
            return Err(ClientError::InvalidArgument(format!(
                "`fins` takes 1..={max} values, got {}",
                values.len()
            )));
        }
        self.act(Action::SetFins(Fins {
            fins: FinCommand::Ordered(values.to_vec()),
            agent_id: None,
        }))
        .await
    }
    /// Sets the acoustic channel's parameters (`latency_s`,
    /// `bandwidth_bps`, `range_m`, `packet_drop_rate`, `seed`; omitted ones
    /// are kept).
    pub async fn configure_acoustic_comm(&self, config: Value) -> Result<Value> {
        Ok(self
            .command("configure_acoustic_comm", config)
            .await?
            .into_data())
    }
    /// Terrain and scenario metadata.
    pub async fn get_map_info(&self) -> Result<Value> {
        Ok(self
            .client
            .send_command("get_map_info", None, None)
            .await?
            .into_data())
    }
    /// A 2D occupancy grid for planners (`1` blocked, `0` free).
    pub async fn get_terrain_grid(&self, request: &TerrainGridRequest) -> Result<Value> {
        let data = serde_json::to_value(request)
            .map_err(|e| ClientError::InvalidArgument(e.to_string()))?;
        Ok(self.command("get_terrain_grid", data).await?.into_data())
    }
    /// Spawns a static obstacle (`{"shape": "box", "position": [...], ...}`).
    pub async fn spawn_obstacle(&self, config: Value) -> Result<Value> {
        Ok(self.command("spawn_obstacle", config).await?.into_data())
    }
    /// Removes a static obstacle.
    pub async fn remove_obstacle(&self, id: &str) -> Result<Value> {
        Ok(self
            .act(Action::RemoveObstacle(ObjectId { id: id.to_owned() }))
            .await?
            .into_data())
    }
    /// Spawns an agent from its definition dictionary.
    pub async fn spawn_agent(&self, config: Value) -> Result<Value> {
        Ok(self.command("spawn_agent", config).await?.into_data())
    }
    /// Teleports an agent (Godot coordinates, rotation in degrees).
    pub async fn move_agent(
        &self,
        id: &str,
        position: [f64; 3],
        rotation: Option<[f64; 3]>,
    ) -> Result<Value> {
        let action = Action::MoveAgent(MoveAgent {
            id: id.to_owned(),
            position: Vector(position),
            rotation: rotation.map(Vector),
        });
        Ok(self.act(action).await?.into_data())
    }
    /// Removes an agent.
    pub async fn remove_agent(&self, id: &str) -> Result<Value> {
        Ok(self
            .act(Action::RemoveAgent(ObjectId { id: id.to_owned() }))
            .await?
            .into_data())
    }
    /// Removes every agent but the main AUV.
    pub async fn clear_agents(&self) -> Result<Value> {
        Ok(self
            .client
            .send_command("clear_agents", None, None)
            .await?
            .into_data())
    }
    /// The runtime records of every agent.
    pub async fn get_agents(&self) -> Result<Value> {
        Ok(self
            .client
            .send_command("get_agents", None, None)
            .await?
            .into_data())
    }
    /// Drives a proxy agent (m/s, Godot world frame).
    pub async fn set_agent_velocity(&self, id: &str, velocity: [f64; 3]) -> Result<Reply> {
        finite("velocity", &velocity)?;
        self.act(Action::SetAgentVelocity(SetAgentVelocity {
            id: id.to_owned(),
            velocity: Vector(velocity),
        }))
        .await
    }
    /// Sets the uniform ocean current (m/s, user frame).
    pub async fn set_current(&self, velocity: [f64; 3]) -> Result<Reply> {
        finite("current", &velocity)?;
        let velocity = Vector(velocity);
        self.act(Action::SetCurrent(SetCurrent { velocity })).await
    }
    /// Queues an acoustic message.
    pub async fn send_acoustic_message(
        &self,
        sender_id: &str,
        receiver_id: &str,
        payload: Value,
    ) -> Result<Value> {
        Ok(self
            .act(Action::SendAcousticMessage(AcousticMessage {
                sender_id: sender_id.to_owned(),
                receiver_id: receiver_id.to_owned(),
                payload,
            }))
            .await?
            .into_data())
    }
    /// Reads (and by default empties) an agent's acoustic inbox.
    pub async fn read_acoustic_inbox(&self, agent_id: &str, clear: bool) -> Result<Value> {
        Ok(self
            .act(Action::ReadAcousticInbox(ReadAcousticInbox {
                agent_id: agent_id.to_owned(),
                clear: Some(clear),
            }))
            .await?
            .into_data())
    }
    /// Shows a planned path (Godot points).
    pub async fn set_nav_path(&self, path: &[PathPoint]) -> Result<Reply> {
        let path = path.to_vec();
        self.act(Action::SetNavPath(NavPath { path })).await
    }
    /// Sends a full `set_waypoint` request: with `control_scheme:
    /// "waypoint_pid"` the simulator's own waypoint controller flies the
    /// vehicle there (`depth`, `agent_id`, `controller` gains optional).
    pub async fn set_waypoint_request(
        &self,
        request: &oceansim_protocol::payload::SetWaypoint,
    ) -> Result<Reply> {
        let data = serde_json::to_value(request)
            .map_err(|e| ClientError::InvalidArgument(e.to_string()))?;
        self.command("set_waypoint", data).await
    }
    /// Shows one target waypoint (Godot X/Z).
    pub async fn set_waypoint(&self, world_x: f64, world_z: f64) -> Result<Reply> {
        finite("waypoint", &[world_x, world_z])?;
        self.act(Action::SetWaypoint(SetWaypoint {
            world_x,
            world_z,
            depth: None,
            agent_id: None,
            control_scheme: None,
            controller: None,
        }))
        .await
    }
    /// Shows a waypoint list (Godot points).
    pub async fn set_waypoints(&self, waypoints: &[PathPoint]) -> Result<Reply> {
        let waypoints = waypoints.to_vec();
        self.act(Action::SetWaypoints(Waypoints { waypoints }))
            .await
    }
    /// Shows a predicted trajectory, e.g. an MPC horizon (Godot points).
    pub async fn set_pred_trajectory(&self, points: &[PathPoint]) -> Result<Reply> {
        let points = points.to_vec();
        self.act(Action::SetPredTrajectory(PredTrajectory { points }))
            .await
    }
    /// Clears every planning overlay.
    pub async fn clear_nav(&self) -> Result<Reply> {
        self.client.send_command("clear_nav", None, None).await
    }
    /// Exports the run (waits up to 60 s); `options` holds `export_dir`,
    /// `render_image`, `pack_dataset`.
    pub async fn export_dataset(&self, options: Value) -> Result<Value> {
        Ok(self.command("export_dataset", options).await?.into_data())
    }
    /// Saves the world state as one JSON file under the export root.
    pub async fn save_snapshot_json(&self, path: Option<&str>) -> Result<Value> {
        let path = path.map(str::to_owned);
        let action = Action::SaveSnapshotJson(SaveSnapshot { path });
        Ok(self.act(action).await?.into_data())
    }
}
