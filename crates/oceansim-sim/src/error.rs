//! The crate's error type.

use oceansim_protocol::ProtocolError;
use std::fmt;

/// One problem in a scenario file, with its JSON path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// JSON path of the value (e.g. `obstacles[2].radius`).
    pub path: String,
    /// What was expected and what came.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Errors of the simulation runtime outside a request (loading files,
/// building a world). Request errors are [`ProtocolError`]s.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// A scenario file with problems; all of them are listed.
    #[error("invalid scenario: {}", .0.iter().map(Problem::to_string).collect::<Vec<_>>().join("; "))]
    Scenario(Vec<Problem>),
    /// No shipped scenario has this name and no file has this path.
    #[error("unknown scenario `{name}`; shipped scenarios: {known}")]
    UnknownScenario {
        /// The name asked for.
        name: String,
        /// Shipped names.
        known: String,
    },
    /// File I/O.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
    /// A vehicle profile problem.
    #[error(transparent)]
    Vehicle(#[from] oceansim_vehicles::VehicleError),
    /// An ECS wiring problem (a bug if it ever shows).
    #[error(transparent)]
    Ecs(#[from] oceansim_ecs::EcsError),
    /// A bad configuration value.
    #[error("{0}")]
    Config(String),
    /// An image that cannot be encoded (its pixels do not fill its size).
    #[error("image: {0}")]
    Image(String),
    /// An action a batched lane cannot take: wrong length, not finite, or
    /// a control scheme a vehicle cannot be driven by.
    #[error("invalid action: {0}")]
    Action(String),
}

impl SimError {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            SimError::Scenario(_) => "scenario_invalid",
            SimError::UnknownScenario { .. } => "unknown_scenario",
            SimError::Io { .. } => "io",
            SimError::Vehicle(_) => "vehicle_profile",
            SimError::Ecs(_) => "ecs",
            SimError::Config(_) => "config",
            SimError::Image(_) => "image",
            SimError::Action(_) => "invalid_action",
        }
    }
}

impl From<SimError> for ProtocolError {
    fn from(e: SimError) -> Self {
        ProtocolError::InvalidMessage(e.to_string())
    }
}

/// Result with the simulation error.
pub type Result<T, E = SimError> = std::result::Result<T, E>;
