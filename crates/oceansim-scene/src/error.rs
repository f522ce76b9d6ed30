//! The crate's error type.

/// One problem in a scenario file, with the JSON path of the offending
/// value (e.g. `obstacles[2].radius`): the agents crate's, whose agent
/// checks a scenario's agents go through.
pub use oceansim_agents::Problem;

/// Errors of loading a scene: a scenario that is not there or not valid.
/// The codes are the simulator's (`oceansim_sim::SimError` carries these
/// unchanged), so a client sees the same code whichever crate refused.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
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
}

impl SceneError {
    /// A stable machine-readable code: `scenario_invalid`,
    /// `unknown_scenario` or `io`.
    pub fn code(&self) -> &'static str {
        match self {
            SceneError::Scenario(_) => "scenario_invalid",
            SceneError::UnknownScenario { .. } => "unknown_scenario",
            SceneError::Io { .. } => "io",
        }
    }
}

/// Result with the scene's error.
pub type Result<T, E = SceneError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_the_simulators() {
        let io = SceneError::Io {
            path: "x.json".into(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        };
        let unknown = SceneError::UnknownScenario {
            name: "Nope".into(),
            known: "Static_Map".into(),
        };
        let invalid = SceneError::Scenario(vec![Problem {
            path: "map.size".into(),
            message: "must be positive".into(),
        }]);
        assert_eq!(io.code(), "io");
        assert_eq!(unknown.code(), "unknown_scenario");
        assert_eq!(invalid.code(), "scenario_invalid");
        assert_eq!(
            invalid.to_string(),
            "invalid scenario: map.size: must be positive"
        );
    }
}
