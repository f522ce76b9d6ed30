//! # oceansim-log
//!
//! Logging for oceansim-rs programs on [`tracing`], configured in one call:
//! a format preset, one level for every `oceansim*` crate, per-crate
//! overrides, a level for everything else, and colour codes only where a
//! human reads them.
//!
//! ## Conventions
//!
//! - **Presets** ([`LogFormat`]), the same five names as the ssl_simulator
//!   logging presets: `simple` (`LEVEL message fields`, no time or target),
//!   `compact` (time, level, target, message and fields on one short line),
//!   `standard` (tracing's full line: time, level, spans, target), `detailed`
//!   (standard plus thread, file and line) and `json` (one JSON object per
//!   line, fields flattened into it).
//! - **Levels.** [`LogConfig::new`] sets the level of every target starting
//!   with `oceansim` (the facade and every `oceansim-*` crate);
//!   [`LogConfig::crate_level`] overrides one crate or module, and
//!   [`LogConfig::third_party`] sets the rest (default `warn`: a dependency's
//!   warnings still show, its chatter does not). `RUST_LOG`, when set,
//!   replaces all of that, as users of `tracing` expect.
//!   Level names: `trace`, `debug`, `info`, `warn`/`warning`, `error`,
//!   `off`, any case; `debug_verbose` means `trace` ([`normalize_level`]).
//!   `RUST_LOG` takes `target=level` lists (`warn,oceansim_sim=debug`);
//!   one that does not parse is reported and the configured levels apply.
//! - **Colour** ([`Ansi`]): by default only when the output is a terminal
//!   and `NO_COLOR` is unset; a log redirected to a file or a pipe is plain
//!   text.
//! - **Once-only warnings**: [`warn_once!`] emits a warning the first time
//!   its key is seen in the process (deprecations, one-off configuration
//!   problems), with the caller's target.
//! - **Rate-limited events** ([`Throttle`]): what a peer can repeat at will
//!   (a failed accept, a refused connection) is logged once a period with
//!   the count held back, so no flood grows the log without bound;
//!   [`AcceptErrors`] adds the pause an accept loop takes after a failure.
//!
//! Errors carry stable codes ([`LogError::code`]).
//!
//! ## Example
//!
//! ```
//! use oceansim_log::{LogConfig, LogFormat};
//!
//! // A script that wants the simulator crates at debug, the sensors quieter.
//! let config = LogConfig::new("debug")
//!     .unwrap()
//!     .format(LogFormat::Compact)
//!     .crate_level("oceansim_sim::sensors", "info")
//!     .unwrap();
//! assert_eq!(config.directives(), "warn,oceansim=debug,oceansim_sim::sensors=info");
//!
//! // Capture one line in a buffer instead of installing it globally.
//! let buffer = oceansim_log::MemoryWriter::default();
//! let subscriber = LogConfig::new("info").unwrap().format(LogFormat::Simple)
//!     .subscriber(buffer.clone());
//! tracing::subscriber::with_default(subscriber, || {
//!     tracing::info!(target: "oceansim_demo", depth_m = 6.0, "holding depth");
//! });
//! assert_eq!(buffer.contents(), " INFO holding depth depth_m=6.0\n");
//! ```
#![warn(missing_docs)]

mod throttle;
pub use throttle::{held_back, AcceptErrors, Throttle};

use std::collections::HashSet;
use std::io::IsTerminal;
use std::str::FromStr;
use std::sync::{Arc, Mutex, OnceLock};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt;

/// Errors of this crate, each with a stable machine-readable code.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// A level name that is not one of the known levels.
    #[error("unknown log level `{0}` (expected trace, debug, info, warn, error or off)")]
    UnknownLevel(String),
    /// A format preset name that is not one of the five.
    #[error("unknown log format `{0}` (expected simple, compact, standard, detailed or json)")]
    UnknownFormat(String),
    /// A crate or module name that cannot be a `tracing` target.
    #[error("invalid log target `{0}`: use a crate or module path such as `oceansim_sim`")]
    InvalidTarget(String),
    /// A global subscriber was installed before.
    #[error("a global tracing subscriber is already installed")]
    AlreadyInstalled,
}

impl LogError {
    /// Stable machine-readable code of this error.
    pub fn code(&self) -> &'static str {
        match self {
            LogError::UnknownLevel(_) => "unknown_log_level",
            LogError::UnknownFormat(_) => "unknown_log_format",
            LogError::InvalidTarget(_) => "invalid_log_target",
            LogError::AlreadyInstalled => "log_already_installed",
        }
    }
}

/// Turns a level name into the canonical `tracing` directive level
/// (`trace`, `debug`, `info`, `warn`, `error`, `off`), accepting any case,
/// `warning`, and the ssl_simulator's `debug_verbose` (= `trace`).
///
/// ```
/// assert_eq!(oceansim_log::normalize_level("WARNING").unwrap(), "warn");
/// assert!(oceansim_log::normalize_level("loud").is_err());
/// ```
pub fn normalize_level(level: &str) -> Result<&'static str, LogError> {
    Ok(match level.trim().to_ascii_lowercase().as_str() {
        "trace" | "debug_verbose" => "trace",
        "debug" => "debug",
        "info" => "info",
        "warn" | "warning" => "warn",
        "error" | "critical" => "error",
        "off" | "none" => "off",
        _ => return Err(LogError::UnknownLevel(level.to_owned())),
    })
}

/// The five format presets (see the crate docs for what each shows).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    /// `LEVEL message fields`.
    Simple,
    /// Time, level, target, message and fields on one short line.
    #[default]
    Compact,
    /// tracing's full format: time, level, spans, target, message, fields.
    Standard,
    /// Standard plus thread name and id, file and line.
    Detailed,
    /// One JSON object per line.
    Json,
}

impl LogFormat {
    /// Every preset, in documentation order.
    pub const ALL: [LogFormat; 5] = [
        LogFormat::Simple,
        LogFormat::Compact,
        LogFormat::Standard,
        LogFormat::Detailed,
        LogFormat::Json,
    ];

    /// The preset's name.
    pub fn as_str(self) -> &'static str {
        match self {
            LogFormat::Simple => "simple",
            LogFormat::Compact => "compact",
            LogFormat::Standard => "standard",
            LogFormat::Detailed => "detailed",
            LogFormat::Json => "json",
        }
    }
}

impl FromStr for LogFormat {
    type Err = LogError;
    fn from_str(s: &str) -> Result<Self, LogError> {
        LogFormat::ALL
            .into_iter()
            .find(|f| f.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| LogError::UnknownFormat(s.to_owned()))
    }
}

impl std::fmt::Display for LogFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// When to write ANSI colour codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ansi {
    /// Only when the output is a terminal and `NO_COLOR` is unset.
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Where [`LogConfig::init`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Output {
    /// Standard error (the default: stdout stays free for a program's data).
    #[default]
    Stderr,
    /// Standard output.
    Stdout,
}

/// A logging configuration; [`LogConfig::init`] installs it globally.
#[derive(Debug, Clone)]
pub struct LogConfig {
    level: &'static str,
    format: LogFormat,
    ansi: Ansi,
    output: Output,
    third_party: &'static str,
    overrides: Vec<(String, &'static str)>,
    respect_env: bool,
}

impl LogConfig {
    /// Every `oceansim*` crate at `level`, compact format, everything else at
    /// `warn`, colour on terminals only.
    pub fn new(level: &str) -> Result<LogConfig, LogError> {
        Ok(LogConfig {
            level: normalize_level(level)?,
            format: LogFormat::default(),
            ansi: Ansi::Auto,
            output: Output::Stderr,
            third_party: "warn",
            overrides: Vec::new(),
            respect_env: true,
        })
    }

    /// Sets the format preset.
    pub fn format(mut self, format: LogFormat) -> LogConfig {
        self.format = format;
        self
    }

    /// Sets when colour codes are written.
    pub fn ansi(mut self, ansi: Ansi) -> LogConfig {
        self.ansi = ansi;
        self
    }

    /// Sets where [`LogConfig::init`] writes.
    pub fn output(mut self, output: Output) -> LogConfig {
        self.output = output;
        self
    }

    /// Sets one crate's or module's level (`oceansim_sim`,
    /// `oceansim_sim::sensors`, or a user's own crate).
    pub fn crate_level(mut self, target: &str, level: &str) -> Result<LogConfig, LogError> {
        let valid = !target.is_empty()
            && target.split("::").all(|part| {
                !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            });
        if !valid {
            return Err(LogError::InvalidTarget(target.to_owned()));
        }
        let level = normalize_level(level)?;
        self.overrides.retain(|(t, _)| t != target);
        self.overrides.push((target.to_owned(), level));
        Ok(self)
    }

    /// Sets the level of every target not named here or starting with
    /// `oceansim` (`off` silences them).
    pub fn third_party(mut self, level: &str) -> Result<LogConfig, LogError> {
        self.third_party = normalize_level(level)?;
        Ok(self)
    }

    /// Whether a set `RUST_LOG` replaces the levels (default `true`).
    pub fn respect_env(mut self, respect: bool) -> LogConfig {
        self.respect_env = respect;
        self
    }

    /// The filter directives this configuration stands for (without
    /// `RUST_LOG`).
    pub fn directives(&self) -> String {
        let mut d = format!("{},oceansim={}", self.third_party, self.level);
        for (target, level) in &self.overrides {
            d.push_str(&format!(",{target}={level}"));
        }
        d
    }

    /// The filter, and the reason `RUST_LOG` was not used when it is set
    /// but does not parse (the configured levels apply then).
    fn filter(&self) -> (Targets, Option<String>) {
        // Built from validated names only, so this parses.
        let own = || self.directives().parse::<Targets>().unwrap_or_default();
        if self.respect_env {
            if let Ok(env) = std::env::var("RUST_LOG") {
                if !env.trim().is_empty() {
                    return match env.parse::<Targets>() {
                        Ok(f) => (f, None),
                        Err(e) => (
                            own(),
                            Some(format!(
                                "RUST_LOG={env:?} is not a list of target=level directives ({e}); using {}",
                                self.directives()
                            )),
                        ),
                    };
                }
            }
        }
        (own(), None)
    }

    fn colour(&self, terminal: bool) -> bool {
        match self.ansi {
            Ansi::Always => true,
            Ansi::Never => false,
            Ansi::Auto => terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }

    /// A subscriber writing to `writer` (no colour under [`Ansi::Auto`]:
    /// an arbitrary writer is not known to be a terminal), for
    /// `tracing::subscriber::with_default` or a custom install. A bad
    /// `RUST_LOG` falls back to the configured levels.
    pub fn subscriber<W>(&self, writer: W) -> Box<dyn tracing::Subscriber + Send + Sync>
    where
        W: for<'a> MakeWriter<'a> + Send + Sync + 'static,
    {
        self.build(self.filter().0, writer, self.colour(false))
    }

    fn build<W>(
        &self,
        filter: Targets,
        writer: W,
        ansi: bool,
    ) -> Box<dyn tracing::Subscriber + Send + Sync>
    where
        W: for<'a> MakeWriter<'a> + Send + Sync + 'static,
    {
        // The builder alone keeps INFO and above; `filter` decides instead.
        let base = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_writer(writer)
            .with_ansi(ansi);
        match self.format {
            LogFormat::Simple => {
                Box::new(base.without_time().with_target(false).finish().with(filter))
            }
            LogFormat::Compact => Box::new(base.compact().finish().with(filter)),
            LogFormat::Standard => Box::new(base.finish().with(filter)),
            LogFormat::Detailed => Box::new(
                base.with_thread_names(true)
                    .with_thread_ids(true)
                    .with_file(true)
                    .with_line_number(true)
                    .finish()
                    .with(filter),
            ),
            LogFormat::Json => Box::new(base.json().flatten_event(true).finish().with(filter)),
        }
    }

    /// Installs this configuration as the process's global subscriber. A
    /// `RUST_LOG` that does not parse is reported as a warning in the log
    /// and the configured levels apply.
    pub fn init(&self) -> Result<(), LogError> {
        let (filter, env_problem) = self.filter();
        let subscriber = match self.output {
            Output::Stderr => self.build(
                filter,
                std::io::stderr,
                self.colour(std::io::stderr().is_terminal()),
            ),
            Output::Stdout => self.build(
                filter,
                std::io::stdout,
                self.colour(std::io::stdout().is_terminal()),
            ),
        };
        tracing::subscriber::set_global_default(subscriber)
            .map_err(|_| LogError::AlreadyInstalled)?;
        if let Some(problem) = env_problem {
            tracing::warn!(target: "oceansim_log", "{problem}");
        }
        Ok(())
    }
}

/// A clonable in-memory log sink, for tests and for showing a log in a UI.
#[derive(Debug, Clone, Default)]
pub struct MemoryWriter(Arc<Mutex<Vec<u8>>>);

impl MemoryWriter {
    /// Everything written so far, as text (invalid UTF-8 replaced).
    pub fn contents(&self) -> String {
        let bytes = self.0.lock().unwrap_or_else(|p| p.into_inner());
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

impl std::io::Write for MemoryWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for MemoryWriter {
    type Writer = MemoryWriter;
    fn make_writer(&'a self) -> MemoryWriter {
        self.clone()
    }
}

fn seen() -> &'static Mutex<HashSet<String>> {
    static SEEN: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    SEEN.get_or_init(Default::default)
}

/// `true` the first time `key` is seen in this process, `false` after.
/// The test behind [`warn_once!`]; usable for other once-only events.
pub fn first_time(key: &str) -> bool {
    seen()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key.to_owned())
}

/// Logs a warning the first time `key` is seen in this process and
/// evaluates to whether it did. Process-global by design: for per-run
/// one-shot events keep a flag in the run instead.
///
/// ```
/// use oceansim_log::warn_once;
/// assert!(warn_once!("doc-demo", "profile `{}` has no command limits; derived", "x"));
/// assert!(!warn_once!("doc-demo", "profile `{}` has no command limits; derived", "x"));
/// ```
#[macro_export]
macro_rules! warn_once {
    ($key:expr, $($arg:tt)+) => {{
        if $crate::first_time($key) {
            $crate::__private::tracing::warn!($($arg)+);
            true
        } else {
            false
        }
    }};
}

#[doc(hidden)]
pub mod __private {
    pub use tracing;
}
