//! The simulation clock: a tick counter, the control period `step`
//! advances, and real-time pacing (pause and time scale).
//!
//! Time is `tick · dt` (s), computed from the counter, never accumulated,
//! so stepped and real-time runs of the same ticks report the same times.

/// Most physics ticks one real-time advance may run (the clock falls behind
/// rather than bursting when the host cannot keep up).
pub const MAX_TICKS_PER_ADVANCE: u64 = 2_000;

/// Longest one real-time advance may hold the simulation's thread (wall
/// time, s): a request, the viewer and the ROS 2 bridge wait for it before
/// they are served. Past it the rest of the ticks owed are dropped, and the
/// clock reports the time scale it achieved.
pub const MAX_ADVANCE_WALL_S: f64 = 0.015;

/// Wall time over which the achieved time scale is measured (s).
const ACHIEVED_WINDOW_S: f64 = 1.0;

/// The clock resource.
#[derive(Debug, Clone, PartialEq)]
pub struct Clock {
    /// Ticks run since the scenario was loaded.
    pub tick: u64,
    /// Physics tick (s).
    pub dt: f64,
    /// Ticks per `step` (the control period).
    pub step_ticks: u64,
    /// Ticks per recorded frame (the recording period; by default the
    /// control period).
    pub record_ticks: u64,
    /// Whether real time is frozen (`step` still advances).
    pub paused: bool,
    /// Multiple of real time.
    pub time_scale: f64,
    /// Simulated seconds owed to real time, not yet run.
    owed_s: f64,
    /// Wall and simulated seconds of the current measuring window, and the
    /// time scale achieved over the last full one.
    window: (f64, f64),
    achieved: Option<f64>,
    /// Whether sensor wall-clock stamps are the simulated time (so that
    /// replies are byte-identical run to run).
    pub deterministic: bool,
}

/// The wall clock: seconds since the Unix epoch (0 if the system clock is
/// set before it).
pub fn wall_clock_s() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

impl Clock {
    /// A clock at t = 0.
    pub fn new(dt: f64, step_ticks: u64, paused: bool, time_scale: f64) -> Self {
        Clock {
            tick: 0,
            dt,
            step_ticks: step_ticks.max(1),
            record_ticks: step_ticks.max(1),
            paused,
            time_scale,
            owed_s: 0.0,
            window: (0.0, 0.0),
            achieved: None,
            deterministic: false,
        }
    }

    /// Forgets the ticks still owed: the host fell behind (an advance ran
    /// out of its wall-time slice), and running them later would only burst.
    pub fn drop_backlog(&mut self) {
        self.owed_s = 0.0;
    }

    /// Notes that `ticks` ran for `wall_dt` seconds of wall time, for
    /// [`Clock::achieved_time_scale`].
    pub fn note_run(&mut self, wall_dt: f64, ticks: u64) {
        if self.paused || !(wall_dt.is_finite() && wall_dt > 0.0) {
            return;
        }
        self.window.0 += wall_dt;
        self.window.1 += ticks as f64 * self.dt;
        if self.window.0 >= ACHIEVED_WINDOW_S {
            self.achieved = Some(self.window.1 / self.window.0);
            self.window = (0.0, 0.0);
        }
    }

    /// The multiple of real time the clock achieved over its last second
    /// of running (the set [`Clock::time_scale`] until a second has run,
    /// and after each change of scale or pause).
    pub fn achieved_time_scale(&self) -> f64 {
        self.achieved.unwrap_or(self.time_scale)
    }

    /// Sets the multiple of real time, and starts measuring it anew.
    pub fn set_time_scale(&mut self, scale: f64) {
        self.time_scale = scale;
        self.window = (0.0, 0.0);
        self.achieved = None;
    }

    /// Simulation time now (s).
    pub fn time(&self) -> f64 {
        self.tick as f64 * self.dt
    }

    /// Simulation time at the end of tick `k` of a run starting now (s).
    pub fn time_after(&self, k: u64) -> f64 {
        (self.tick + k) as f64 * self.dt
    }

    /// The control period (s).
    pub fn step_period(&self) -> f64 {
        self.step_ticks as f64 * self.dt
    }

    /// Freezes or restarts real time (restarting forgets time owed).
    pub fn set_paused(&mut self, paused: bool) {
        if !paused {
            self.owed_s = 0.0;
        }
        self.paused = paused;
        self.window = (0.0, 0.0);
        self.achieved = None;
    }

    /// Ticks due after `wall_dt` seconds of wall time (none while paused);
    /// at most [`MAX_TICKS_PER_ADVANCE`], dropping the rest.
    pub fn due(&mut self, wall_dt: f64) -> u64 {
        if self.paused || !(wall_dt.is_finite() && wall_dt > 0.0) {
            return 0;
        }
        self.owed_s += wall_dt * self.time_scale;
        let due = (self.owed_s / self.dt).floor() as u64;
        let run = due.min(MAX_TICKS_PER_ADVANCE);
        self.owed_s = if due > run {
            0.0
        } else {
            self.owed_s - run as f64 * self.dt
        };
        run
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_time_owes_ticks_by_scale_and_never_bursts() {
        let mut c = Clock::new(0.01, 10, false, 2.0);
        assert_eq!(c.due(0.0251), 5);
        assert_eq!(c.due(0.004), 0);
        assert_eq!(c.due(0.001), 1, "the remainder carries over");
        c.set_paused(true);
        assert_eq!(c.due(10.0), 0);
        c.set_paused(false);
        assert_eq!(c.due(1e6), MAX_TICKS_PER_ADVANCE);
        assert_eq!(c.due(0.001), 0, "a dropped backlog is not owed");
        c.tick = 3;
        assert_eq!(c.time(), 3.0 * 0.01);
        assert_eq!(c.time_after(7), 0.1);
    }

    #[test]
    fn the_achieved_scale_is_what_ran_over_the_last_second() {
        let mut c = Clock::new(0.01, 10, false, 10.0);
        assert_eq!(c.achieved_time_scale(), 10.0, "the set scale at first");
        for _ in 0..4 {
            c.note_run(0.25, 125); // 1.25 s simulated per 0.25 s of wall
        }
        assert!((c.achieved_time_scale() - 5.0).abs() < 1e-9);
        c.set_time_scale(2.0);
        assert_eq!(c.achieved_time_scale(), 2.0, "measured anew");
        c.due(1.0);
        c.drop_backlog();
        assert_eq!(c.due(0.001), 0, "nothing owed after the drop");
    }
}
