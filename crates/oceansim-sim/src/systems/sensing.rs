//! Sensors sample at their own rates inside the tick: at the end of each
//! tick, every sensor whose period is due takes a sample of the world as
//! the dynamics, proxies and contacts left it.
//!
//! While a recording keeps sensor data, the imaging sensors' samples that
//! no request asked for are taken here (numbered, their inputs copied at
//! this instant) and rendered by the render pool beside the simulation
//! ([`oceansim_sensors::RenderPool`]: workers one fewer than the cores,
//! and a thread that waits for a render runs queued ones meanwhile); the
//! recorder holds their frames until they are done. What a request asked
//! for renders here, in the tick, as before.

use crate::components::{names, Handles, Kind};
use crate::components::{quat_at, state_at, vec3_at};
use crate::frames::{Ned, User};
use nalgebra::{Rotation3, Vector3, Vector6};
use oceansim_ecs::{Access, Step, System, World};
use oceansim_scene::body::Body;
use oceansim_sensors::{SampleCtx, SampleInputs, SceneView, Sensor};

/// `sensing`.
pub struct Sensing {
    h: Handles,
    /// Whether on-demand sensors render at their rates unasked (a
    /// recording keeps sensor data): fixed for a simulation's life.
    render_unasked: bool,
    bodies: Vec<(usize, Body)>,
    others: Vec<Body>,
}

impl Sensing {
    /// The system; `render_unasked` per [`render_unasked`].
    pub fn new(h: Handles, render_unasked: bool) -> Self {
        Sensing {
            h,
            render_unasked,
            bodies: Vec::new(),
            others: Vec::new(),
        }
    }
}

/// Every agent's solid (user frame), with its row, into `out`.
pub(crate) fn gather_bodies(w: &World, h: &Handles, out: &mut Vec<(usize, Body)>) {
    let (kind, p, q) = (w.read(h.kind), w.read(h.position), w.read(h.attitude));
    let (radius, half) = (w.read(h.radius), w.read(h.half_length));
    out.clear();
    for row in 0..kind.len() {
        if !Kind::is_agent(kind[row]) {
            continue;
        }
        let att = quat_at(&q, row);
        let c = User::from(Ned(vec3_at(&p, row))).0;
        let axis = User::from(Ned(att * Vector3::x())).0;
        out.push((
            row,
            Body::capsule(c.into(), axis.into(), half[row], radius[row]),
        ));
    }
}

/// Whether on-demand sensors (cameras, sonars) render at their rates
/// whoever asks: while the recorder keeps sensor data, so that an export
/// holds every sensor's series.
pub(crate) fn render_unasked(w: &World, h: &Handles) -> bool {
    w.resource(h.recorder).keeps_sensor_data()
}

/// How many renders nobody asked for may queue on the render pool: the
/// recorder's bound while it keeps sensor data, else 0 (they render in the
/// tick, if at all).
pub(crate) fn render_detached(w: &World, h: &Handles) -> usize {
    let rec = w.resource(h.recorder);
    if rec.keeps_sensor_data() {
        rec.limits().renders_in_flight
    } else {
        0
    }
}

/// Samples every sensor now, due or not (at start, after a teleport), so
/// that every reply has a sample of the new state; on-demand sensors only
/// once a request has asked for them or while a recording keeps them.
pub(crate) fn sample_all(w: &World, h: &Handles, time: f64) {
    let mut bodies = Vec::new();
    gather_bodies(w, h, &mut bodies);
    let all = render_unasked(w, h);
    sample_where(w, h, time, &bodies, &mut Vec::new(), None, 0, |s| {
        all || !s.on_demand() || s.ever_demanded()
    });
}

/// For a request at `time` that reads the sensors of `row` that `asked`
/// accepts: marks the on-demand ones as consumed and samples those whose
/// latest sample is older than a period, so the reply is fresh. Returns
/// whether it took any sample.
pub(crate) fn sample_on_request(
    w: &World,
    h: &Handles,
    row: usize,
    time: f64,
    asked: impl Fn(&str) -> bool,
) -> bool {
    let stale: Vec<String> = {
        let mut suites = w.objects_mut(h.sensors);
        let Some(suite) = suites.get_mut(row).and_then(Option::as_mut) else {
            return false;
        };
        suite
            .sensors
            .iter_mut()
            .filter(|s| s.on_demand() && asked(&s.name))
            .filter_map(|s| s.demand(time).then(|| s.name.clone()))
            .collect()
    };
    if stale.is_empty() {
        return false;
    }
    let mut bodies = Vec::new();
    gather_bodies(w, h, &mut bodies);
    sample_where(w, h, time, &bodies, &mut Vec::new(), Some(row), 0, |s| {
        stale.contains(&s.name)
    });
    true
}

/// Samples, on the vehicles (only `row` when given), the sensors `pick`
/// accepts; with `detach` above 0, those that render only for the
/// recording (on-demand, not wanted now) render on the process's
/// [`oceansim_sensors::RenderPool`], at most `detach` of them queued.
#[allow(clippy::too_many_arguments)]
pub(crate) fn sample_where(
    w: &World,
    h: &Handles,
    time: f64,
    bodies: &[(usize, Body)],
    others: &mut Vec<Body>,
    only_row: Option<usize>,
    detach: usize,
    pick: impl Fn(&Sensor) -> bool,
) {
    let kind = w.read(h.kind);
    let wall_time = if w.resource(h.clock).deterministic {
        time
    } else {
        crate::clock::wall_clock_s()
    };
    let mut suites = w.objects_mut(h.sensors);
    let scene = w.resource(h.scene);
    let (vehicles, nu_dot) = (w.objects(h.vehicle), w.read(h.nu_dot));
    for row in 0..kind.len() {
        let Some(suite) = &mut suites[row] else {
            continue;
        };
        if kind[row] != Kind::Vehicle.code()
            || only_row.is_some_and(|r| r != row)
            || !suite.sensors.iter().any(&pick)
        {
            continue;
        }
        let state = state_at(&w.read(h.position), &w.read(h.attitude), &w.read(h.nu), row);
        others.clear();
        others.extend(bodies.iter().filter(|(r, _)| *r != row).map(|(_, b)| *b));
        let density = vehicles[row]
            .as_ref()
            .map_or(1025.0, |v| v.profile.water_density_kg_m3);
        let ctx = SampleCtx {
            time,
            wall_time,
            state: &state,
            nu_dot: Vector6::from_column_slice(&nu_dot[6 * row..6 * row + 6]),
            water_density: density,
            scene: SceneView {
                terrain: &scene.terrain,
                obstacles: &scene.obstacles,
                bodies: &others[..],
            },
            mount: (&Vector3::zeros(), &Rotation3::identity()),
        };
        let mut inputs: Option<SampleInputs> = None;
        for s in suite.sensors.iter_mut().filter(|s| pick(s)) {
            if !(detach > 0 && s.on_demand() && !s.wanted(time)) {
                s.sample(&ctx);
                continue;
            }
            // The world as it is now, copied once per vehicle and tick
            // (the seabed and the obstacles shared, not copied: a render
            // may wait long on the pool).
            let inputs = inputs.get_or_insert_with(|| SampleInputs {
                time,
                wall_time,
                state,
                nu_dot: ctx.nu_dot,
                water_density: density,
                terrain: scene.terrain.clone(),
                obstacles: scene.obstacles.clone(),
                bodies: others.as_slice().into(),
            });
            if let Some(job) = s.sample_detached(inputs) {
                // A bounded queue whatever the record period (frames bound
                // only the renders they hold): past it, this thread renders
                // the oldest queued itself.
                let pool = oceansim_sensors::RenderPool::global();
                while pool.queued() >= detach && pool.run_one() {}
                job.submit();
            }
        }
    }
}

impl System for Sensing {
    fn name(&self) -> &str {
        "sensing"
    }
    fn access(&self) -> Access {
        Access::new()
            .reads([
                names::KIND,
                names::CLOCK,
                names::SCENE,
                names::VEHICLE,
                names::POSITION,
                names::ATTITUDE,
                names::NU,
                names::NU_DOT,
                names::CONTACTS,
                names::RADIUS,
                names::HALF_LENGTH,
            ])
            // Whether and how far renders go to the pool: the recording's
            // settings, which the recorder does not change in a tick.
            .carried(names::RECORDER)
            .write(names::SENSORS)
    }
    fn run(&mut self, w: &World, _: &Step) {
        let h = self.h;
        let (tick, time) = {
            let c = w.resource(h.clock);
            (c.tick, c.time())
        };
        let all = self.render_unasked;
        let pick = |s: &Sensor| s.due(tick) && (all || s.wanted(time));
        let any_due = w
            .objects(h.sensors)
            .iter()
            .flatten()
            .any(|suite| suite.sensors.iter().any(pick));
        if !any_due {
            return;
        }
        gather_bodies(w, &h, &mut self.bodies);
        // Read each tick: a loaded snapshot takes the server's bound.
        let detach = render_detached(w, &h);
        sample_where(
            w,
            &h,
            time,
            &self.bodies,
            &mut self.others,
            None,
            detach,
            pick,
        );
    }
}
