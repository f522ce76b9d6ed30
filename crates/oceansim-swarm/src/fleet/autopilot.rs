//! The inner loops: [`Autopilot`] holds depth, heading and surge speed
//! with a body wrench; [`VelocityGuidance`] turns a desired horizontal
//! velocity into heading and speed references; [`WaypointFollow`] makes
//! that velocity from waypoint lists.

use super::{wrap_pi, yaw, FleetLayout, FleetModels};
use nalgebra::{Quaternion, UnitQuaternion, Vector3, Vector6};
use oceansim_ecs::{Access, Handle, Probe, Result, Step, System, Tracked, World};

/// Autopilot gains: first-order velocity loops with rates in 1/s, by
/// computed torque on the vehicle's own model (`VehicleModel::computed_torque`:
/// τ = M (a_des − ν̇_c) − f(ν_r), f its passive forces: C, D, g and the hull
/// terms), clipped to its profile's command limits. With the model
/// exact and no saturation, each loop is exactly first order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AutopilotGains {
    /// Surge speed loop bandwidth (1/s).
    pub surge_bandwidth: f64,
    /// Sway: velocity driven to zero at this bandwidth (1/s).
    pub sway_bandwidth: f64,
    /// Depth loop: vertical speed demand per metre of depth error (1/s).
    pub depth_gain: f64,
    /// Largest vertical speed demanded (m/s).
    pub max_heave_speed_m_s: f64,
    /// Heave speed loop bandwidth (1/s).
    pub heave_bandwidth: f64,
    /// Heading loop: yaw-rate demand per radian of error (1/s).
    pub heading_gain: f64,
    /// Largest yaw rate demanded (rad/s).
    pub max_yaw_rate_rad_s: f64,
    /// Yaw-rate loop bandwidth (1/s).
    pub yaw_bandwidth: f64,
    /// Roll and pitch are held level by a critically damped loop of this
    /// natural frequency (rad/s): needed by vehicles whose righting moment
    /// is weak next to the hydrodynamic (Munk) moments of their motion.
    pub tilt_bandwidth: f64,
}

impl Default for AutopilotGains {
    fn default() -> Self {
        AutopilotGains {
            surge_bandwidth: 0.5,
            sway_bandwidth: 1.0,
            depth_gain: 0.2,
            max_heave_speed_m_s: 0.5,
            heave_bandwidth: 1.0,
            heading_gain: 0.8,
            max_yaw_rate_rad_s: 0.3,
            yaw_bandwidth: 2.0,
            tilt_bandwidth: 2.0,
        }
    }
}

/// `autopilot`: reads the state and [`names::DEPTH_REF`](super::names::DEPTH_REF),
/// [`names::HEADING_REF`](super::names::HEADING_REF), [`names::SPEED_REF`](super::names::SPEED_REF); writes [`names::TAU`](super::names::TAU).
#[derive(Debug)]
pub struct Autopilot {
    models: FleetModels,
    gains: AutopilotGains,
    layout: FleetLayout,
    h: Option<[Handle<f64>; 8]>,
}

impl Autopilot {
    /// An autopilot for `models` (one per member).
    pub fn new(models: FleetModels, gains: AutopilotGains) -> Self {
        Autopilot {
            models,
            gains,
            layout: FleetLayout::default(),
            h: None,
        }
    }

    /// Runs on `layout`'s components and members.
    pub fn with_layout(mut self, layout: FleetLayout) -> Self {
        self.layout = layout;
        self
    }

    /// The wrench for one vehicle.
    #[allow(clippy::too_many_arguments)]
    fn wrench(
        &self,
        i: usize,
        p: &[f64],
        q: &[f64],
        nu: &[f64],
        current: &[f64],
        refs: [f64; 3],
    ) -> [f64; 6] {
        let (m, g) = (self.models.model(i), &self.gains);
        let [depth_ref, heading_ref, speed_ref] = refs;
        let att = UnitQuaternion::new_unchecked(Quaternion::new(q[0], q[1], q[2], q[3]));
        let nu = Vector6::from_column_slice(&nu[..6]);
        // World vertical speed (down positive) from the body velocity.
        let z_dot = (att * Vector3::new(nu[0], nu[1], nu[2])).z;
        // max/min, not clamp: a negative or NaN limit from a caller must
        // not panic.
        let sym = |x: f64, m: f64| x.max(-m).min(m);
        let z_dot_ref = sym(g.depth_gain * (depth_ref - p[2]), g.max_heave_speed_m_s);
        let r_ref = sym(
            g.heading_gain * wrap_pi(heading_ref - yaw(q)),
            g.max_yaw_rate_rad_s,
        );
        let (roll, pitch, _) = att.euler_angles();
        let wn = g.tilt_bandwidth;
        // Desired body accelerations: first-order velocity loops, and a
        // critically damped hold of level attitude.
        let accel = Vector6::new(
            g.surge_bandwidth * (speed_ref - nu[0]),
            -g.sway_bandwidth * nu[1],
            g.heave_bandwidth * (z_dot_ref - z_dot),
            -wn * (wn * roll + 2.0 * nu[3]),
            -wn * (wn * pitch + 2.0 * nu[4]),
            g.yaw_bandwidth * (r_ref - nu[5]),
        );
        // The mass times the desired acceleration plus everything the
        // vehicle's own model says opposes it (Coriolis and added-mass
        // moments, damping in the water's frame, weight and buoyancy).
        let current = Vector3::new(current[0], current[1], current[2]);
        let tau: [f64; 6] = m.computed_torque(&att, &nu, &current, &accel).into();
        let tau = tau.map(|t| if t.is_finite() { t } else { 0.0 });
        // Within the profile's limits. Not cut to what the thrusters give:
        // these loops assume the wrench is delivered, and on the torpedo's
        // weak yaw authority (under 4 N·m) the cut wrench circles its
        // waypoint instead of settling (see docs/fleets.md).
        self.models.limits(i).clamp_wrench(tau).0
    }
}

impl System for Autopilot {
    fn name(&self) -> &str {
        "autopilot"
    }
    fn access(&self) -> Access {
        let l = &self.layout;
        let a = l.after.iter().fold(Access::new(), |a, s| a.after(s));
        a.reads([
            &l.p,
            &l.q,
            &l.nu,
            &l.current,
            &l.depth_ref,
            &l.heading_ref,
            &l.speed_ref,
        ])
        .write(&l.tau)
    }
    fn init(&mut self, w: &World) -> Result<()> {
        let l = &self.layout;
        l.check_len(w, "autopilot", "vehicle models", self.models.len())?;
        self.h = Some([
            w.handle(&l.p)?,
            w.handle(&l.q)?,
            w.handle(&l.nu)?,
            w.handle(&l.current)?,
            w.handle(&l.depth_ref)?,
            w.handle(&l.heading_ref)?,
            w.handle(&l.speed_ref)?,
            w.handle(&l.tau)?,
        ]);
        Ok(())
    }
    fn run(&mut self, w: &World, _step: &Step) {
        let Some([hp, hq, hnu, hc, hd, hh, hs, ht]) = self.h else {
            return;
        };
        let (p, q, nu, c) = (w.read(hp), w.read(hq), w.read(hnu), w.read(hc));
        let (d, h, s) = (w.read(hd), w.read(hh), w.read(hs));
        let mut tau = w.write(ht);
        for k in 0..self.models.len() {
            let Some(r) = self.layout.row(w, k) else {
                continue;
            };
            let out = self.wrench(
                k,
                &p[3 * r..3 * r + 3],
                &q[4 * r..4 * r + 4],
                &nu[6 * r..6 * r + 6],
                &c[3 * r..3 * r + 3],
                [d[r], h[r], s[r]],
            );
            tau[6 * r..6 * r + 6].copy_from_slice(&out);
        }
    }
}

/// `velocity_guidance`: heading ref = direction of [`names::V_DES`](super::names::V_DES),
/// speed ref = its norm (capped at `max_speed_m_s`) times the cosine of
/// the heading error (zero when facing away), so a vehicle turns before it
/// drives. Below `hold_below_m_s` the heading reference is kept.
#[derive(Debug)]
pub struct VelocityGuidance {
    max_speed_m_s: f64,
    hold_below_m_s: f64,
    layout: FleetLayout,
    h: Option<[Handle<f64>; 4]>,
}

impl VelocityGuidance {
    /// Guidance capped at `max_speed_m_s`.
    pub fn new(max_speed_m_s: f64) -> Self {
        VelocityGuidance {
            max_speed_m_s,
            hold_below_m_s: 0.005,
            layout: FleetLayout::default(),
            h: None,
        }
    }

    /// Runs on `layout`'s components and members.
    pub fn with_layout(mut self, layout: FleetLayout) -> Self {
        self.layout = layout;
        self
    }
}

impl System for VelocityGuidance {
    fn name(&self) -> &str {
        "velocity_guidance"
    }
    fn access(&self) -> Access {
        let l = &self.layout;
        Access::new()
            .reads([&l.v_des, &l.q])
            .writes([&l.heading_ref, &l.speed_ref])
    }
    fn init(&mut self, w: &World) -> Result<()> {
        let l = &self.layout;
        self.h = Some([
            w.handle(&l.v_des)?,
            w.handle(&l.q)?,
            w.handle(&l.heading_ref)?,
            w.handle(&l.speed_ref)?,
        ]);
        Ok(())
    }
    fn run(&mut self, w: &World, _step: &Step) {
        let Some([hv, hq, hh, hs]) = self.h else {
            return;
        };
        let (v, q) = (w.read(hv), w.read(hq));
        let (mut h, mut s) = (w.write(hh), w.write(hs));
        for k in 0..self.layout.len(w) {
            let Some(i) = self.layout.row(w, k) else {
                continue;
            };
            let (vn, ve) = (v[2 * i], v[2 * i + 1]);
            let speed = vn.hypot(ve);
            if !speed.is_finite() || speed < self.hold_below_m_s {
                s[i] = 0.0;
                continue;
            }
            h[i] = ve.atan2(vn);
            let err = wrap_pi(h[i] - yaw(&q[4 * i..4 * i + 4]));
            s[i] = speed.min(self.max_speed_m_s) * err.cos().max(0.0);
        }
    }
}

/// `waypoint_follow`: each vehicle visits its own list of waypoints
/// (`[north, east, depth]`, m) in order, at `cruise_m_s`, slowing inside
/// `slow_radius_m` and moving on inside `accept_radius_m` (horizontal);
/// at the last one it holds station. Writes [`names::V_DES`](super::names::V_DES) and
/// [`names::DEPTH_REF`](super::names::DEPTH_REF); the number of waypoints reached is tracked as
/// `waypoints_reached`.
#[derive(Debug)]
pub struct WaypointFollow {
    waypoints: Vec<Vec<[f64; 3]>>,
    next: Vec<usize>,
    cruise_m_s: f64,
    accept_radius_m: f64,
    slow_radius_m: f64,
    reached: Probe,
    layout: FleetLayout,
    h: Option<[Handle<f64>; 3]>,
}

impl WaypointFollow {
    /// One list per member (an empty list leaves that member's references
    /// alone).
    pub fn new(waypoints: Vec<Vec<[f64; 3]>>, cruise_m_s: f64, accept_radius_m: f64) -> Self {
        let n = waypoints.len();
        WaypointFollow {
            waypoints,
            next: vec![0; n],
            cruise_m_s,
            accept_radius_m,
            slow_radius_m: (4.0 * accept_radius_m).max(1.0),
            reached: Probe::new(),
            layout: FleetLayout::default(),
            h: None,
        }
    }

    /// Runs on `layout`'s components and members.
    pub fn with_layout(mut self, layout: FleetLayout) -> Self {
        self.layout = layout;
        self
    }

    /// Index of the waypoint each row is heading for (= list length when
    /// it holds at the last).
    pub fn progress(&self) -> &[usize] {
        &self.next
    }
}

impl System for WaypointFollow {
    fn name(&self) -> &str {
        "waypoint_follow"
    }
    fn access(&self) -> Access {
        let l = &self.layout;
        Access::new().read(&l.p).writes([&l.v_des, &l.depth_ref])
    }
    fn init(&mut self, w: &World) -> Result<()> {
        let l = &self.layout;
        l.check_len(w, "waypoint_follow", "waypoint lists", self.waypoints.len())?;
        self.h = Some([
            w.handle(&l.p)?,
            w.handle(&l.v_des)?,
            w.handle(&l.depth_ref)?,
        ]);
        Ok(())
    }
    fn run(&mut self, w: &World, _step: &Step) {
        let Some([hp, hv, hd]) = self.h else { return };
        let p = w.read(hp);
        let (mut v, mut d) = (w.write(hv), w.write(hd));
        let mut reached = 0;
        for (k, list) in self.waypoints.iter().enumerate() {
            let (Some(last), Some(i)) = (list.len().checked_sub(1), self.layout.row(w, k)) else {
                continue;
            };
            let mut j = self.next[k].min(last);
            let dist = |j: usize| {
                let wp = list[j];
                (wp[0] - p[3 * i], wp[1] - p[3 * i + 1])
            };
            while j < last && {
                let (dn, de) = dist(j);
                dn.hypot(de) < self.accept_radius_m
            } {
                j += 1;
            }
            let (dn, de) = dist(j);
            let r = dn.hypot(de);
            self.next[k] = if j == last && r < self.accept_radius_m {
                list.len()
            } else {
                j
            };
            reached += self.next[k];
            let speed = self.cruise_m_s * (r / self.slow_radius_m).min(1.0);
            let (vn, ve) = if r > 1e-9 {
                (speed * dn / r, speed * de / r)
            } else {
                (0.0, 0.0)
            };
            v[2 * i] = vn;
            v[2 * i + 1] = ve;
            d[i] = list[j][2];
        }
        self.reached.set(reached as f64);
    }
    fn tracked(&mut self) -> Vec<Tracked> {
        vec![Tracked::new("waypoints_reached", self.reached.source())]
    }
}
