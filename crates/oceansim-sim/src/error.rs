//! The crate's error type.

use oceansim_protocol::ProtocolError;
pub use oceansim_scene::Problem;

/// Errors of the simulation runtime outside a request (loading files,
/// building a world). Request errors are [`ProtocolError`]s.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// A scenario that is not there or not valid (its codes:
    /// `scenario_invalid`, `unknown_scenario`, `io`).
    #[error(transparent)]
    Scene(#[from] oceansim_scene::SceneError),
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
    /// An image whose pixels do not fill its size, or a PNG that cannot
    /// be read (code `image`).
    #[error(transparent)]
    Sensor(#[from] oceansim_sensors::SensorError),
    /// An action a batched lane cannot take: wrong length, not finite, or
    /// a control scheme a vehicle cannot be driven by.
    #[error("invalid action: {0}")]
    Action(String),
}

impl SimError {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            SimError::Scene(e) => e.code(),
            SimError::Io { .. } => "io",
            SimError::Vehicle(_) => "vehicle_profile",
            SimError::Ecs(_) => "ecs",
            SimError::Config(_) => "config",
            SimError::Sensor(e) => e.code(),
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
