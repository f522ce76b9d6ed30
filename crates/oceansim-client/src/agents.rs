//! Typed agents over the protocol: [`OceanSimAgent`] and [`AgentFactory`].
//!
//! An agent's action vector is checked against its [`ActionSpace`] (length,
//! finiteness, bounds) and turned into the protocol request of its control
//! scheme ([`oceansim_agents::action_request`]) before any byte is sent:
//! an invalid action never reaches the socket. The action space is the one
//! the simulator reports for the agent (so a profile's thruster count and
//! the thrusters' [-1, 1] bounds apply), narrowed by any bounds the caller
//! sets with [`OceanSimAgent::with_bounds`]. For the `fins` scheme that is
//! the vehicle's own layout (its control surfaces in rad, then its
//! propellers in rpm, with the profile's deflection and rpm limits); a
//! vehicle without fins does not list the scheme and is refused when
//! binding.

use crate::auv::Auv;
use crate::error::{ClientError, Result};
use crate::transport::{OceanSimClient, Reply};
use oceansim_agents::{action_request, ActionSpace, AgentDefinition, AgentError, ControlScheme};
use oceansim_protocol::payload::{MoveAgent, Vector};
use oceansim_protocol::{Action, SingleRequest};
use serde_json::Value;
use std::sync::{Arc, Mutex};

/// What [`AgentFactory::build_agent`] binds to: a client or an [`Auv`].
#[derive(Debug, Clone)]
pub enum Binding {
    /// A bare client.
    Client(OceanSimClient),
    /// The AUV wrapper (its client is used).
    Auv(Auv),
}

impl Binding {
    fn client(&self) -> &OceanSimClient {
        match self {
            Binding::Client(c) => c,
            Binding::Auv(a) => a.client(),
        }
    }
}

impl From<OceanSimClient> for Binding {
    fn from(c: OceanSimClient) -> Binding {
        Binding::Client(c)
    }
}
impl From<&OceanSimClient> for Binding {
    fn from(c: &OceanSimClient) -> Binding {
        Binding::Client(c.clone())
    }
}
impl From<Auv> for Binding {
    fn from(a: Auv) -> Binding {
        Binding::Auv(a)
    }
}
impl From<&Auv> for Binding {
    fn from(a: &Auv) -> Binding {
        Binding::Auv(a.clone())
    }
}

/// A runtime agent bound to a live simulator.
#[derive(Debug, Clone)]
pub struct OceanSimAgent {
    client: OceanSimClient,
    definition: AgentDefinition,
    action_space: ActionSpace,
    /// The simulator's own space, before any experiment bounds: what
    /// `clear_action` checks its zero against.
    sim_space: ActionSpace,
    last_state: Arc<Mutex<Option<Value>>>,
}

impl OceanSimAgent {
    /// The runtime identifier (`auv/main`, `target_01`, ...).
    pub fn name(&self) -> &str {
        &self.definition.agent_name
    }

    /// The active control scheme.
    pub fn control_scheme(&self) -> ControlScheme {
        self.action_space.scheme
    }

    /// The action contract `act` checks against.
    pub fn action_space(&self) -> &ActionSpace {
        &self.action_space
    }

    /// The definition the agent was built from.
    pub fn definition(&self) -> &AgentDefinition {
        &self.definition
    }

    /// The client the agent talks through.
    pub fn client(&self) -> &OceanSimClient {
        &self.client
    }

    /// Narrows the action space with experiment-specific bounds (`None`
    /// per field keeps the simulator's bound for it).
    pub fn with_bounds(
        mut self,
        low: Vec<Option<f64>>,
        high: Vec<Option<f64>>,
    ) -> Result<OceanSimAgent> {
        let merge = |mine: Vec<Option<f64>>,
                     theirs: &Option<Vec<Option<f64>>>,
                     tighter: fn(f64, f64) -> f64| {
            mine.iter()
                .enumerate()
                .map(|(i, m)| {
                    let t = theirs.as_ref().and_then(|v| v.get(i).copied().flatten());
                    match (m, t) {
                        (Some(a), Some(b)) => Some(tighter(*a, b)),
                        (a, b) => a.or(b),
                    }
                })
                .collect::<Vec<_>>()
        };
        let low = merge(low, &self.action_space.low, f64::max);
        let high = merge(high, &self.action_space.high, f64::min);
        self.action_space = self
            .action_space
            .clone()
            .with_bounds(Some(low), Some(high))?;
        Ok(self)
    }

    /// Validates `action` against the action space, then sends the
    /// scheme's protocol request. A rejected action sends nothing.
    pub async fn act(&self, action: &[f64]) -> Result<Reply> {
        let request = action_request(self.name(), &self.action_space, action)?;
        self.client.send_request(&request, None).await
    }

    /// Sends the zero action of the current scheme, even when experiment
    /// bounds exclude zero (stopping is always allowed) (for `waypoint_pid`,
    /// whose zero is a place, the AUV's current waypoint is left alone and
    /// a zero world force is sent instead; for `fins` the zero centres
    /// every control surface and stops every propeller).
    pub async fn clear_action(&self) -> Result<Reply> {
        match self.action_space.scheme {
            ControlScheme::WaypointPid => {
                let space = ActionSpace::for_scheme(ControlScheme::Force3d, 0);
                let request = action_request(self.name(), &space, &[0.0; 3])?;
                self.client.send_request(&request, None).await
            }
            _ => {
                let request = action_request(self.name(), &self.sim_space, &self.sim_space.zero())?;
                self.client.send_request(&request, None).await
            }
        }
    }

    /// Moves the agent (Godot world coordinates, m; rotation in degrees),
    /// at rest. Works for the main AUV and for spawned agents.
    pub async fn teleport(&self, location: [f64; 3], rotation: Option<[f64; 3]>) -> Result<Value> {
        if location
            .iter()
            .chain(rotation.iter().flatten())
            .any(|v| !v.is_finite())
        {
            return Err(ClientError::InvalidArgument(
                "teleport location and rotation must be finite".into(),
            ));
        }
        let request = SingleRequest::new(Action::MoveAgent(MoveAgent {
            id: self.name().to_owned(),
            position: Vector(location),
            rotation: rotation.map(Vector),
        }));
        Ok(self.client.send_request(&request, None).await?.into_data())
    }

    /// The agent's runtime record from `get_agents` (pose, velocity,
    /// control status, last command, ...).
    pub async fn agent_state(&self) -> Result<Value> {
        let record = runtime_record(&self.client, self.name()).await?;
        *self.last_state.lock().unwrap_or_else(|p| p.into_inner()) = Some(record.clone());
        Ok(record)
    }

    /// The definition's metadata with the latest runtime record (as of the
    /// last [`OceanSimAgent::agent_state`]), as the SDK's
    /// `agent_state_dict`.
    pub fn agent_state_dict(&self) -> Value {
        let state = self.last_state.lock().unwrap_or_else(|p| p.into_inner());
        let dict = AgentStateDict {
            agent_name: self.name(),
            definition: self.definition.to_json(),
            control_scheme: self.action_space.scheme.as_str(),
            action_space: &self.action_space,
            state: state.as_ref(),
        };
        // Plain data: serialising it cannot fail.
        serde_json::to_value(dict).unwrap_or(Value::Null)
    }
}

/// [`OceanSimAgent::agent_state_dict`], as the SDK's dictionary.
#[derive(serde::Serialize)]
struct AgentStateDict<'a> {
    agent_name: &'a str,
    definition: Value,
    control_scheme: &'a str,
    action_space: &'a ActionSpace,
    state: Option<&'a Value>,
}

async fn runtime_record(client: &OceanSimClient, name: &str) -> Result<Value> {
    let data = client
        .send_command("get_agents", None, None)
        .await?
        .into_data();
    data.get("agents")
        .and_then(Value::as_array)
        .and_then(|agents| {
            agents
                .iter()
                .find(|a| a.get("id").and_then(Value::as_str) == Some(name))
        })
        .cloned()
        .ok_or_else(|| {
            ClientError::protocol(
                "unknown_agent",
                format!("no agent `{name}` in `get_agents`"),
                "get_agents",
                None,
            )
        })
}

/// Builds [`OceanSimAgent`]s from definitions.
#[derive(Debug, Clone, Copy, Default)]
pub struct AgentFactory;

impl AgentFactory {
    /// Binds `definition` to the simulator behind `target` (a client or
    /// an [`Auv`]). The main agent binds to the scene's AUV; any other is
    /// spawned with `spawn_agent` when `spawn` (else it must exist
    /// already). The action space is the simulator's for that agent and
    /// scheme; a scheme the agent does not support is refused here
    /// (`unsupported_control_scheme`), before any action is sent.
    pub async fn build_agent(
        target: impl Into<Binding>,
        definition: AgentDefinition,
        spawn: bool,
    ) -> Result<OceanSimAgent> {
        let binding = target.into();
        let client = binding.client().clone();
        let scheme = definition.control_scheme;
        if scheme == ControlScheme::CustomDynamics6dof {
            return Err(AgentError::Unsupported {
                scheme: scheme.to_string(),
                reason: "a reserved protocol extension with no simulator action yet".into(),
            }
            .into());
        }
        if !definition.is_main_agent && spawn {
            client
                .send_command("spawn_agent", Some(definition.to_json()), None)
                .await?;
        }
        let record = runtime_record(&client, &definition.agent_name).await?;
        let available: Vec<ActionSpace> = record
            .get("available_action_spaces")
            .cloned()
            .map(serde_json::from_value)
            .transpose()
            .map_err(|e| {
                ClientError::protocol(
                    "invalid_agent_record",
                    format!("unreadable action spaces: {e}"),
                    "get_agents",
                    None,
                )
            })?
            .unwrap_or_default();
        let Some(action_space) = available.into_iter().find(|s| s.scheme == scheme) else {
            return Err(ClientError::protocol(
                "unsupported_control_scheme",
                format!(
                    "agent `{}` does not support control scheme {scheme}",
                    definition.agent_name
                ),
                "get_agents",
                Some(record),
            ));
        };
        Ok(OceanSimAgent {
            client,
            definition,
            sim_space: action_space.clone(),
            action_space,
            last_state: Arc::new(Mutex::new(Some(record))),
        })
    }
}
