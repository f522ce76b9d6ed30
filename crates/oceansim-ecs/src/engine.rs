//! The engine: builds the schedule once, ticks a world's systems, and logs.

use crate::error::{closest, EcsError, Result};
use crate::integration::{IntegrationSystem, INTEGRATION};
use crate::loggers::{DataLogger, Frame};
use crate::scheduler::build_schedule;
use crate::system::{Step, System};
use crate::world::World;
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;

type Sink = Box<dyn FnMut(f64, &Frame<'_>)>;

/// What a monitor ended a run at.
#[derive(Debug, Clone, PartialEq)]
pub struct MonitorReport {
    /// Monitor name.
    pub name: String,
    /// Reduced value at the end of the run.
    pub value: f64,
    /// When its warning fired, with the value then and the message.
    pub tripped: Option<(f64, f64, String)>,
}

/// The result of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSummary {
    /// Ticks run.
    pub steps: u64,
    /// Simulation time at the end (s).
    pub time: f64,
    /// Every monitor's final value.
    pub monitors: Vec<MonitorReport>,
}

impl RunSummary {
    /// The monitors whose warning fired.
    pub fn tripped(&self) -> Vec<&MonitorReport> {
        self.monitors
            .iter()
            .filter(|m| m.tripped.is_some())
            .collect()
    }
}

struct Schedule {
    order: Vec<usize>,
    integration: IntegrationSystem,
    /// Each system's declared access (by index in the world's systems,
    /// the integration's last), checked in debug builds.
    declared: Vec<std::sync::Arc<crate::world::Declared>>,
    version: u64,
}

/// Ticks a [`World`]: per tick, every system in schedule order, then the
/// integration of all states (explicit Euler on their manifolds), then the
/// monitors; at the log cadence, one frame to every logger and the sink.
///
/// Time is `t0 + k·dt` (not accumulated). Each call to [`Engine::run`] is
/// one run: loggers begin with the initial frame and are finished at the
/// end, monitors are reset at the start, and tripped monitors are
/// summarised once at the end.
pub struct Engine {
    time_step: f64,
    log_time_step: Option<f64>,
    loggers: Vec<Box<dyn DataLogger>>,
    sink: Option<Sink>,
    schedule: Option<Schedule>,
    scalars: Vec<(String, f64)>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("time_step", &self.time_step)
            .field("log_time_step", &self.log_time_step)
            .field("loggers", &self.loggers.len())
            .finish()
    }
}

impl Engine {
    /// An engine with tick `time_step` (s).
    pub fn new(time_step: f64) -> Self {
        Engine {
            time_step,
            log_time_step: None,
            loggers: Vec::new(),
            sink: None,
            schedule: None,
            scalars: Vec::new(),
        }
    }

    /// Logs every `log_time_step` seconds (rounded to whole ticks; default
    /// every tick).
    pub fn with_log_time_step(mut self, log_time_step: f64) -> Self {
        self.log_time_step = Some(log_time_step);
        self
    }

    /// Adds a logger.
    pub fn with_logger(mut self, logger: impl DataLogger + 'static) -> Self {
        self.loggers.push(Box::new(logger));
        self
    }

    /// Streams frames to `sink(time, frame)` at the log cadence; the frame
    /// holds live views, so a sink that keeps data must copy it.
    pub fn with_sink(mut self, sink: impl FnMut(f64, &Frame<'_>) + 'static) -> Self {
        self.sink = Some(Box::new(sink));
        self
    }

    /// The tick (s).
    pub fn time_step(&self) -> f64 {
        self.time_step
    }

    /// The schedule as system names, building it if needed.
    pub fn schedule_names(&mut self, world: &mut World) -> Result<Vec<String>> {
        self.prepare(world)?;
        let order = &self
            .schedule
            .as_ref()
            .map(|s| s.order.clone())
            .unwrap_or_default();
        let mut names: Vec<String> = order
            .iter()
            .map(|&i| world.systems[i].name().to_owned())
            .collect();
        names.push(INTEGRATION.into());
        Ok(names)
    }

    fn prepare(&mut self, world: &mut World) -> Result<()> {
        if !(self.time_step.is_finite() && self.time_step > 0.0) {
            return Err(EcsError::Invalid(format!(
                "time_step must be positive, got {}",
                self.time_step
            )));
        }
        if self
            .schedule
            .as_ref()
            .is_some_and(|s| s.version == world.version)
        {
            return Ok(());
        }
        // Unknown names are errors here, not silent mis-orderings.
        for s in &world.systems {
            let a = s.access();
            for name in a.reads.iter().chain(&a.writes).chain(&a.carried) {
                if !world.has(name) {
                    return Err(EcsError::UnknownDeclared {
                        system: s.name().to_owned(),
                        name: name.clone(),
                        hint: closest(name, world.components.iter().map(|c| c.name.as_str())),
                    });
                }
            }
        }
        let mut integration = IntegrationSystem::new(world.states.clone());
        let mut accesses: Vec<(String, crate::system::Access)> = world
            .systems
            .iter()
            .map(|s| (s.name().to_owned(), s.access()))
            .collect();
        accesses.push((INTEGRATION.into(), integration.access()));
        let states: BTreeSet<String> = world.state_names();
        let mut order = build_schedule(&accesses, &states)?;
        let declared = accesses
            .iter()
            .map(|(name, a)| world.declared(name, a.reads.iter().chain(&a.carried), &a.writes))
            .collect();
        // Integration always closes the tick; its edges only confirm that.
        let n = world.systems.len();
        order.retain(|&i| i < n);
        let mut systems = std::mem::take(&mut world.systems);
        let init = systems.iter_mut().try_for_each(|s| s.init(world));
        world.systems = systems;
        init?;
        integration.init(world)?;
        self.schedule = Some(Schedule {
            order,
            integration,
            declared,
            version: world.version,
        });
        Ok(())
    }

    fn settings(&self, world: &World) -> Map<String, Value> {
        let mut s = world.params.clone();
        s.insert(
            "engine".into(),
            json!({
                "time_step": self.time_step,
                "log_time_step": self.log_time_step.unwrap_or(self.time_step),
                "n": world.len(),
            }),
        );
        s
    }

    fn sample_scalars(&mut self, world: &mut World) {
        self.scalars.clear();
        for m in &world.monitors {
            self.scalars.push((m.name().to_owned(), m.value()));
        }
        let mut tracked = std::mem::take(&mut world.tracked);
        for t in &mut tracked {
            let v = (t.source)(world);
            self.scalars.push((t.name.clone(), v));
        }
        world.tracked = tracked;
    }

    fn emit(&mut self, world: &mut World, begin: bool) -> Result<()> {
        if self.loggers.is_empty() && self.sink.is_none() {
            return Ok(());
        }
        self.sample_scalars(world);
        let settings = if begin {
            Some(self.settings(world))
        } else {
            None
        };
        let frame = Frame::of(world, world.time(), &self.scalars);
        for l in &mut self.loggers {
            if let Some(s) = &settings {
                l.begin(s, &frame)?;
            }
            l.record(&frame)?;
        }
        if let Some(sink) = &mut self.sink {
            sink(frame.time, &frame);
        }
        Ok(())
    }

    /// Runs `steps` ticks.
    pub fn run(&mut self, world: &mut World, steps: u64) -> Result<RunSummary> {
        self.prepare(world)?;
        let dt = self.time_step;
        let log_every = match self.log_time_step {
            Some(l) if l.is_finite() && l > 0.0 => ((l / dt).round() as u64).max(1),
            Some(l) => {
                return Err(EcsError::Invalid(format!(
                    "log_time_step must be positive, got {l}"
                )))
            }
            None => 1,
        };
        for m in &mut world.monitors {
            m.reset();
        }
        let t0 = world.time();
        self.emit(world, true)?;
        let mut schedule = self
            .schedule
            .take()
            .ok_or_else(|| EcsError::Invalid("no schedule".into()))?;
        let mut systems = std::mem::take(&mut world.systems);
        let mut monitors = std::mem::take(&mut world.monitors);
        let mut result = Ok(());
        for k in 0..steps {
            let step = Step {
                index: k,
                time: t0 + k as f64 * dt,
                dt,
            };
            for &i in &schedule.order {
                world.enter(Some(&schedule.declared[i]));
                systems[i].run(world, &step);
            }
            world.enter(schedule.declared.last());
            schedule.integration.run(world, &step);
            world.enter(None);
            // Structural changes queued by systems land between ticks.
            world.apply_deferred();
            let t = t0 + (k + 1) as f64 * dt;
            world.set_time(t);
            for m in &mut monitors {
                if let Some(msg) = m.tick(world, t) {
                    tracing::warn!(monitor = m.name(), time = t, "{msg}");
                }
            }
            if (k + 1) % log_every == 0 {
                world.monitors = std::mem::take(&mut monitors);
                result = self.emit(world, false);
                monitors = std::mem::take(&mut world.monitors);
                if result.is_err() {
                    break;
                }
            }
        }
        world.systems = systems;
        world.monitors = monitors;
        self.schedule = Some(schedule);
        for l in &mut self.loggers {
            let r = l.finish();
            if result.is_ok() {
                result = r;
            }
        }
        result?;
        let monitors: Vec<MonitorReport> = world
            .monitors
            .iter()
            .map(|m| MonitorReport {
                name: m.name().to_owned(),
                value: m.value(),
                tripped: m.tripped().cloned(),
            })
            .collect();
        let tripped: Vec<&MonitorReport> =
            monitors.iter().filter(|m| m.tripped.is_some()).collect();
        if !tripped.is_empty() {
            let lines: Vec<String> = tripped
                .iter()
                .filter_map(|m| {
                    m.tripped
                        .as_ref()
                        .map(|(t, v, msg)| format!("{} at t={t:.3} (value {v:.4}): {msg}", m.name))
                })
                .collect();
            tracing::warn!(
                "{} monitor(s) tripped this run:\n  {}",
                lines.len(),
                lines.join("\n  ")
            );
        }
        Ok(RunSummary {
            steps,
            time: world.time(),
            monitors,
        })
    }

    /// Runs for `duration` seconds (rounded to whole ticks).
    pub fn run_for(&mut self, world: &mut World, duration: f64) -> Result<RunSummary> {
        if !(duration.is_finite() && duration >= 0.0) {
            return Err(EcsError::Invalid(format!(
                "duration must be >= 0, got {duration}"
            )));
        }
        let steps = (duration / self.time_step).round() as u64;
        self.run(world, steps)
    }
}
