//! The unicycle workload shared by the criterion bench and the
//! `unicycle_bench` example: N unicycles with p (N,2), theta (N,), speed
//! (N,) and omega (N,) from a time-driven controller, explicit Euler with
//! positions advanced from the old heading. `benches/unicycle_numpy.py`
//! does the same math with the same initial conditions.

#![allow(dead_code)]

use oceansim_ecs::kernels::polar;
use oceansim_ecs::par::par_rows_mut;
use oceansim_ecs::{Access, Handle, Step, System, World};
use std::f64::consts::PI;

/// Tick (s).
pub const DT: f64 = 0.01;
/// Controller frequency (rad/s).
pub const FREQ: f64 = 0.5;

/// Initial heading, speed and controller amplitude of unicycle `i` of `n`.
pub fn initial(i: usize, n: usize) -> (f64, f64, f64) {
    let (fi, fn_) = (i as f64, n as f64);
    (
        2.0 * PI * fi / fn_,
        1.0 + 0.5 * ((i % 7) as f64) / 7.0,
        0.1 + 0.9 * fi / fn_,
    )
}

/// omega = amp · sin(FREQ · t).
struct Controller {
    amp: Option<Handle<f64>>,
    omega: Option<Handle<f64>>,
}

impl System for Controller {
    fn name(&self) -> &str {
        "controller"
    }
    fn access(&self) -> Access {
        Access::new().read("amp").write("theta_dot")
    }
    fn init(&mut self, w: &World) -> oceansim_ecs::Result<()> {
        self.amp = Some(w.handle("amp")?);
        self.omega = Some(w.handle("theta_dot")?);
        Ok(())
    }
    fn run(&mut self, w: &World, step: &Step) {
        let (Some(amp), Some(omega)) = (self.amp, self.omega) else {
            return;
        };
        let s = (FREQ * step.time).sin();
        let guard = w.read(amp);
        let amp: &[f64] = &guard;
        par_rows_mut(&mut w.write(omega), 1, |first, rows| {
            for (o, a) in rows.iter_mut().zip(&amp[first..]) {
                *o = a * s;
            }
        });
    }
}

/// p_dot = speed · [cos θ, sin θ], by the engine's batched kernel.
struct Dynamics {
    theta: Option<Handle<f64>>,
    speed: Option<Handle<f64>>,
    p_dot: Option<Handle<f64>>,
}

impl System for Dynamics {
    fn name(&self) -> &str {
        "unicycle"
    }
    fn access(&self) -> Access {
        Access::new().reads(["theta", "speed"]).write("p_dot")
    }
    fn init(&mut self, w: &World) -> oceansim_ecs::Result<()> {
        self.theta = Some(w.handle("theta")?);
        self.speed = Some(w.handle("speed")?);
        self.p_dot = Some(w.handle("p_dot")?);
        Ok(())
    }
    fn run(&mut self, w: &World, _step: &Step) {
        let (Some(th), Some(sp), Some(pd)) = (self.theta, self.speed, self.p_dot) else {
            return;
        };
        let (gt, gs) = (w.read(th), w.read(sp));
        let (theta, speed): (&[f64], &[f64]) = (&gt, &gs);
        par_rows_mut(&mut w.write(pd), 2, |first, rows| {
            let n = rows.len() / 2;
            polar(&speed[first..first + n], &theta[first..first + n], rows);
        });
    }
}

/// A world of `n` unicycles with the controller and dynamics registered.
pub fn engine_world(n: usize) -> World {
    let (mut theta, mut speed, mut amp) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    for i in 0..n {
        let (t, s, a) = initial(i, n);
        theta.push(t);
        speed.push(s);
        amp.push(a);
    }
    let mut w = World::new(n);
    w.add_state("p", &[2], None, None).expect("fresh world");
    w.add_state("theta", &[], Some(&theta), None)
        .expect("fresh world");
    w.add("speed", &[], Some(&speed)).expect("fresh world");
    w.add("amp", &[], Some(&amp)).expect("fresh world");
    w.add("p_dot", &[2], None).expect("fresh world");
    w.add("theta_dot", &[], None).expect("fresh world");
    w.add_system(Controller {
        amp: None,
        omega: None,
    })
    .expect("fresh world");
    w.add_system(Dynamics {
        theta: None,
        speed: None,
        p_dot: None,
    })
    .expect("fresh world");
    w
}

/// The same math as one hand-written serial loop over plain vectors,
/// calling `f64::sin_cos` per agent as straightforward code would.
#[derive(Debug)]
pub struct HandLoop {
    pub p: Vec<f64>,
    pub theta: Vec<f64>,
    speed: Vec<f64>,
    amp: Vec<f64>,
    step: u64,
}

impl HandLoop {
    pub fn new(n: usize) -> Self {
        let mut h = HandLoop {
            p: vec![0.0; 2 * n],
            theta: vec![],
            speed: vec![],
            amp: vec![],
            step: 0,
        };
        for i in 0..n {
            let (t, s, a) = initial(i, n);
            h.theta.push(t);
            h.speed.push(s);
            h.amp.push(a);
        }
        h
    }

    pub fn run(&mut self, steps: u64) {
        for _ in 0..steps {
            let s = (FREQ * (self.step as f64 * DT)).sin();
            for i in 0..self.theta.len() {
                let (sn, cs) = self.theta[i].sin_cos();
                self.p[2 * i] += DT * (self.speed[i] * cs);
                self.p[2 * i + 1] += DT * (self.speed[i] * sn);
                self.theta[i] += DT * (self.amp[i] * s);
            }
            self.step += 1;
        }
    }
}

/// Sum of positions and headings, to show the implementations agree.
pub fn checksum(p: &[f64], theta: &[f64]) -> f64 {
    p.iter().sum::<f64>() + theta.iter().sum::<f64>()
}
