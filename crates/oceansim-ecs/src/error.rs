//! The crate's error type.

/// Errors of the ECS core. Each has a stable machine-readable [`code`](EcsError::code).
#[derive(Debug, thiserror::Error)]
pub enum EcsError {
    /// A component name is registered twice.
    #[error("component `{0}` already exists")]
    DuplicateComponent(String),
    /// A system name is registered twice.
    #[error("system `{0}` already exists")]
    DuplicateSystem(String),
    /// No component has this name.
    #[error("unknown component `{name}`{}", suggestion(.hint))]
    UnknownComponent {
        /// The name asked for.
        name: String,
        /// The closest registered name, if any is close.
        hint: Option<String>,
    },
    /// A system declares a component that does not exist.
    #[error("system `{system}` declares unknown component `{name}`{}", suggestion(.hint))]
    UnknownDeclared {
        /// The system.
        system: String,
        /// The misspelt component.
        name: String,
        /// The closest registered name, if any is close.
        hint: Option<String>,
    },
    /// An `after`/`before` hint names no registered system.
    #[error("system `{system}` orders itself relative to unknown system `{name}`")]
    UnknownSystem {
        /// The system with the hint.
        system: String,
        /// The unknown name.
        name: String,
    },
    /// Data of the wrong length or a component of the wrong shape.
    #[error("shape mismatch for `{name}`: expected {expected}, got {got}")]
    Shape {
        /// The component or argument.
        name: String,
        /// What was expected.
        expected: String,
        /// What came.
        got: String,
    },
    /// A component accessed with the wrong element type.
    #[error("component `{name}` holds {actual}, not {requested}")]
    DType {
        /// The component.
        name: String,
        /// Its element type.
        actual: &'static str,
        /// The requested element type.
        requested: &'static str,
    },
    /// The systems' declared dataflow has a cycle.
    #[error("dependency cycle between systems: {}", .0.join(" -> "))]
    Cycle(Vec<String>),
    /// Integrated state with no usable derivative.
    #[error("state `{state}`: {message}")]
    State {
        /// The state component.
        state: String,
        /// What is wrong.
        message: String,
    },
    /// Bad argument (time step, duration, parameters).
    #[error("{0}")]
    Invalid(String),
    /// Writing or reading a log failed.
    #[error("log I/O on {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A log file has an unexpected format.
    #[error("log format: {0}")]
    Format(String),
}

fn suggestion(hint: &Option<String>) -> String {
    hint.as_ref()
        .map(|h| format!(" (did you mean `{h}`?)"))
        .unwrap_or_default()
}

impl EcsError {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            EcsError::DuplicateComponent(_) => "duplicate_component",
            EcsError::DuplicateSystem(_) => "duplicate_system",
            EcsError::UnknownComponent { .. } => "unknown_component",
            EcsError::UnknownDeclared { .. } => "unknown_declared_component",
            EcsError::UnknownSystem { .. } => "unknown_system",
            EcsError::Shape { .. } => "shape_mismatch",
            EcsError::DType { .. } => "dtype_mismatch",
            EcsError::Cycle(_) => "schedule_cycle",
            EcsError::State { .. } => "invalid_state",
            EcsError::Invalid(_) => "invalid_argument",
            EcsError::Io { .. } => "log_io",
            EcsError::Format(_) => "log_format",
        }
    }

    pub(crate) fn io(path: impl AsRef<std::path::Path>, source: std::io::Error) -> Self {
        EcsError::Io {
            path: path.as_ref().display().to_string(),
            source,
        }
    }
}

/// Result with the ECS error.
pub type Result<T, E = EcsError> = std::result::Result<T, E>;

/// Optimal-string-alignment distance (edits with adjacent transpositions),
/// for "did you mean" hints.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// The closest of `candidates` to `name`, if within a third of its length.
pub(crate) fn closest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<String> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, c)| c.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_count_transpositions_as_one_edit() {
        assert_eq!(edit_distance("gian", "gain"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(
            closest("thetta", ["theta", "p"].into_iter()).as_deref(),
            Some("theta")
        );
        assert_eq!(closest("zzz", ["theta", "p"].into_iter()), None);
    }
}
