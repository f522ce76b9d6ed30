//! Fossen's REMUS 100 AUV: the `remus100` class of his Python Vehicle
//! Simulator (commit c717e07, `vehicles/remus100.py`), the parts that make
//! its dynamics — parameters, actuators, propeller, hydrodynamics, current —
//! reproduced operation for operation so results match his code to roundoff.
//! The autopilots are not part of it.
//!
//! Conventions (Fossen's): NED world; body x forward, y starboard, z down,
//! about the body origin CO (the centre of buoyancy here).
//! η = [x, y, z, φ, θ, ψ] (m, rad), ν = [u, v, w, p, q, r] (m/s, rad/s),
//! actuators u = [rudder δ_r (rad), stern plane δ_s (rad), propeller n (rpm)].
//! The integration is Fossen's: forward Euler on ν and u in
//! [`Remus100::dynamics`], then [`attitude_euler`] with the new ν (a
//! semi-implicit Euler step), as `mainLoop.simulate` runs it.
//!
//! Reference: T. I. Fossen (2021), *Handbook of Marine Craft Hydrodynamics
//! and Motion Control*, 2nd ed., Wiley, Section 8.4.2; B. Allen, W. S. Vorus
//! and T. Prestero (2000), "Propulsion system performance enhancements on
//! REMUS AUVs", OCEANS 2000.

use std::f64::consts::PI;

use nalgebra::{Matrix6, Vector3};

use crate::fossen::{attitude_euler, cross_flow_drag, force_lift_drag, gvect, hmtrx, m2c_6dof};

mod profile;

/// Degrees to radians as Fossen writes it (`math.pi / 180`).
const D2R: f64 = PI / 180.0;

/// Fossen's REMUS 100 (length 1.6 m, diameter 0.19 m, 31 kg spheroid mass).
///
/// The derived quantities (masses, M, M⁻¹, W, natural frequencies, fin
/// areas) are computed once by [`Remus100::reference`] from the base
/// parameters; changing a base field afterwards does not recompute them.
#[derive(Debug, Clone, PartialEq)]
pub struct Remus100 {
    /// Water density ρ (kg/m³).
    pub rho: f64,
    /// Acceleration of gravity g (m/s²).
    pub g: f64,
    /// Hull length L (m).
    pub length: f64,
    /// Hull (cylinder) diameter (m); also the span of the lift/drag "wing"
    /// and the beam and draft of the cross-flow strips.
    pub diam: f64,
    /// Lift/drag reference area S = 0.7 L diam (m²).
    pub s: f64,
    /// Parasitic (zero-lift) drag coefficient C_D0 = C_d π (diam/2)² / S.
    pub cd_0: f64,
    /// Centre of gravity relative to the CO, body frame (m).
    pub r_bg: [f64; 3],
    /// Centre of buoyancy relative to the CO, body frame (m).
    pub r_bb: [f64; 3],
    /// Mass m = 4/3 π ρ a b² of the prolate spheroid, a = L/2, b = diam/2 (kg).
    pub mass: f64,
    /// Moments of inertia about the CG [I_x, I_y, I_z] (kg·m²).
    pub inertia: [f64; 3],
    /// Rigid-body mass matrix about the CO, H(r_bg)ᵀ M_RB,CG H(r_bg) (SI).
    pub mrb: [[f64; 6]; 6],
    /// Added mass, diag(m k₁, m k₂, m k₂, 0.3 I_x, k′ I_y, k′ I_y), Lamb's
    /// k-factors (SI).
    pub ma: [[f64; 6]; 6],
    /// M = M_RB + M_A (SI).
    pub m: [[f64; 6]; 6],
    /// M⁻¹ (SI).
    pub m_inv: [[f64; 6]; 6],
    /// Weight W = m g (N).
    pub w: f64,
    /// Buoyancy B = W (N): neutrally buoyant.
    pub b: f64,
    /// Roll natural frequency √(W (z_g − z_b) / M₄₄) (rad/s).
    pub w_roll: f64,
    /// Pitch natural frequency √(W (z_g − z_b) / M₅₅) (rad/s).
    pub w_pitch: f64,
    /// Rudder lift coefficient C_Lδ,r.
    pub cl_delta_r: f64,
    /// Rudder area, two fins of 0.00665 m² (m²).
    pub a_r: f64,
    /// Rudder x position in the body frame (m), −L/2.
    pub x_r: f64,
    /// Stern-plane lift coefficient C_Lδ,s.
    pub cl_delta_s: f64,
    /// Stern-plane area, two fins (m²).
    pub a_s: f64,
    /// Stern-plane x position in the body frame (m), −L/2.
    pub x_s: f64,
    /// Linear-damping time constant in surge (s).
    pub t_surge: f64,
    /// Linear-damping time constant in sway (s).
    pub t_sway: f64,
    /// Linear-damping time constant in heave (s).
    pub t_heave: f64,
    /// Relative damping ratio in roll.
    pub zeta_roll: f64,
    /// Relative damping ratio in pitch.
    pub zeta_pitch: f64,
    /// Linear-damping time constant in yaw (s).
    pub t_yaw: f64,
    /// Rudder amplitude limit (rad).
    pub delta_max_r: f64,
    /// Stern-plane amplitude limit (rad).
    pub delta_max_s: f64,
    /// Propeller revolution limit (rpm).
    pub n_max: f64,
    /// Rudder and stern-plane time constant (s).
    pub t_delta: f64,
    /// Propeller time constant (s).
    pub t_n: f64,
    /// Propeller diameter (m), 5.5 in.
    pub d_prop: f64,
    /// Thrust deduction number t.
    pub t_prop: f64,
    /// Advance speed over vehicle speed, V_a = (1 − w) U (Allen et al.).
    pub va_over_u: f64,
    /// Advance number at 2.5 m/s and 1525 rpm, where K_T, K_Q are K_T,max,
    /// K_Q,max.
    pub ja_max: f64,
    /// Thrust coefficient at J_a = 0 (Wageningen B3-71.8).
    pub kt_0: f64,
    /// Torque coefficient at J_a = 0.
    pub kq_0: f64,
    /// Thrust coefficient at J_a,max.
    pub kt_max: f64,
    /// Torque coefficient at J_a,max.
    pub kq_max: f64,
    /// Propeller roll moment divisor: Fossen applies K_prop / 10 "to match
    /// experimental results".
    pub k_prop_divisor: f64,
    /// Whether the propeller's roll moment acts (Fossen: yes). Off, the
    /// model is mirror-symmetric port/starboard.
    pub propeller_roll_moment: bool,
    /// Current speed V_c (m/s).
    pub v_c: f64,
    /// Current direction β_c (rad): the current flows towards β_c,
    /// measured from north (x) towards east (y), NED.
    pub beta_c: f64,
}

/// One record of [`Remus100::simulate`], as a row of `mainLoop`'s simData.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Remus100Sample {
    /// Time i · dt (s).
    pub t: f64,
    /// η = [x, y, z, φ, θ, ψ] (m, rad), NED.
    pub eta: [f64; 6],
    /// ν = [u, v, w, p, q, r] (m/s, rad/s), body.
    pub nu: [f64; 6],
    /// Commanded [δ_r (rad), δ_s (rad), n (rpm)].
    pub u_control: [f64; 3],
    /// Actual [δ_r (rad), δ_s (rad), n (rpm)], before saturation.
    pub u_actual: [f64; 3],
}

fn to_array(m: &Matrix6<f64>) -> [[f64; 6]; 6] {
    let mut a = [[0.0; 6]; 6];
    for (i, row) in a.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            *x = m[(i, j)];
        }
    }
    a
}

fn diag6(d: [f64; 6]) -> [[f64; 6]; 6] {
    let mut a = [[0.0; 6]; 6];
    for (i, x) in d.into_iter().enumerate() {
        a[i][i] = x;
    }
    a
}

/// Fossen's amplitude saturation: |x| ≥ max becomes sign(x) · max.
fn saturate(x: f64, max: f64) -> f64 {
    if x.abs() >= max {
        // numpy's sign: 0 stays 0 (only reachable for max ≤ 0).
        let sign = if x > 0.0 {
            1.0
        } else if x < 0.0 {
            -1.0
        } else {
            0.0
        };
        sign * max
    } else {
        x
    }
}

impl Remus100 {
    /// Fossen's REMUS 100 with his parameters, derived by his formulas
    /// (`remus100.__init__`), in still water.
    pub fn reference() -> Remus100 {
        let rho = 1026.0;
        let g = 9.81;
        let length: f64 = 1.6;
        let diam: f64 = 0.19;
        let s = 0.7 * length * diam;
        let a = length / 2.0;
        let b = diam / 2.0;
        let r_bg = [0.0, 0.0, 0.02];
        let r_bb = [0.0, 0.0, 0.0];
        // Allen et al. (2000): F_drag = ½ ρ C_d π b² = ½ ρ C_D0 S.
        let cd = 0.42;
        let cd_0 = cd * PI * b.powf(2.0) / s;

        let mass = 4.0 / 3.0 * PI * rho * a * b.powf(2.0);
        let ix = (2.0 / 5.0) * mass * b.powf(2.0);
        let iy = (1.0 / 5.0) * mass * (a.powf(2.0) + b.powf(2.0));
        let iz = iy;
        let mrb_cg = Matrix6::from_diagonal(&nalgebra::Vector6::new(mass, mass, mass, ix, iy, iz));
        let h = hmtrx(&Vector3::from(r_bg));
        let mrb = h.transpose() * mrb_cg * h;

        let w = mass * g;
        let buoyancy = w;

        let ma_44 = 0.3 * ix;
        // Lamb's k-factors of the prolate spheroid.
        let e = (1.0 - (b / a).powf(2.0)).sqrt();
        let log_term = ((1.0 + e) / (1.0 - e)).ln();
        let alpha_0 = (2.0 * (1.0 - e.powf(2.0)) / e.powf(3.0)) * (0.5 * log_term - e);
        let beta_0 = 1.0 / e.powf(2.0) - (1.0 - e.powf(2.0)) / (2.0 * e.powf(3.0)) * log_term;
        let k1 = alpha_0 / (2.0 - alpha_0);
        let k2 = beta_0 / (2.0 - beta_0);
        let k_prime = e.powf(4.0) * (beta_0 - alpha_0)
            / ((2.0 - e.powf(2.0))
                * (2.0 * e.powf(2.0) - (2.0 - e.powf(2.0)) * (beta_0 - alpha_0)));
        let ma = diag6([
            mass * k1,
            mass * k2,
            mass * k2,
            ma_44,
            k_prime * iy,
            k_prime * iy,
        ]);

        let mrb = to_array(&mrb);
        let mut m = [[0.0; 6]; 6];
        for i in 0..6 {
            for j in 0..6 {
                m[i][j] = mrb[i][j] + ma[i][j];
            }
        }
        // M is symmetric positive definite, so the inverse exists.
        let m_inv = Matrix6::from_fn(|i, j| m[i][j])
            .try_inverse()
            .map(|x| to_array(&x))
            .unwrap_or([[f64::NAN; 6]; 6]);

        let w_roll = (w * (r_bg[2] - r_bb[2]) / m[3][3]).sqrt();
        let w_pitch = (w * (r_bg[2] - r_bb[2]) / m[4][4]).sqrt();
        let s_fin = 0.00665;

        Remus100 {
            rho,
            g,
            length,
            diam,
            s,
            cd_0,
            r_bg,
            r_bb,
            mass,
            inertia: [ix, iy, iz],
            mrb,
            ma,
            m,
            m_inv,
            w,
            b: buoyancy,
            w_roll,
            w_pitch,
            cl_delta_r: 0.5,
            a_r: 2.0 * s_fin,
            x_r: -a,
            cl_delta_s: 0.7,
            a_s: 2.0 * s_fin,
            x_s: -a,
            t_surge: 20.0,
            t_sway: 20.0,
            t_heave: 20.0,
            zeta_roll: 0.3,
            zeta_pitch: 0.8,
            t_yaw: 1.0,
            delta_max_r: 15.0 * D2R,
            delta_max_s: 15.0 * D2R,
            n_max: 1525.0,
            t_delta: 0.1,
            t_n: 1.0,
            d_prop: 0.14,
            t_prop: 0.1,
            va_over_u: 0.944,
            ja_max: 0.6632,
            kt_0: 0.4566,
            kq_0: 0.0700,
            kt_max: 0.1798,
            kq_max: 0.0312,
            k_prop_divisor: 10.0,
            propeller_roll_moment: true,
            v_c: 0.0,
            beta_c: 0.0,
        }
    }

    /// The same vehicle in a uniform current of `speed_m_s` (m/s) flowing
    /// towards `direction_deg` (degrees from north towards east, NED) —
    /// Fossen's `V_current`, `beta_current`.
    pub fn with_current(mut self, speed_m_s: f64, direction_deg: f64) -> Remus100 {
        self.v_c = speed_m_s;
        self.beta_c = direction_deg * D2R;
        self
    }

    /// The current in body axes at heading `psi` (rad): ν_c = [u_c, v_c,
    /// 0, 0, 0, 0] (m/s), with Fossen's 2-D rotation (roll and pitch
    /// ignored).
    pub fn current_body(&self, psi: f64) -> [f64; 6] {
        let u_c = self.v_c * (self.beta_c - psi).cos();
        let v_c = self.v_c * (self.beta_c - psi).sin();
        [u_c, v_c, 0.0, 0.0, 0.0, 0.0]
    }

    /// The actuator state after Fossen's amplitude saturation: rudder and
    /// stern plane to ±15° (rad), propeller to ±1525 rpm.
    pub fn saturate(&self, u_actual: &[f64; 3]) -> [f64; 3] {
        [
            saturate(u_actual[0], self.delta_max_r),
            saturate(u_actual[1], self.delta_max_s),
            saturate(u_actual[2], self.n_max),
        ]
    }

    /// Propeller thrust X_prop (N, before thrust deduction) and roll moment
    /// K_prop (N·m, before Fossen's ÷10) at `n_rpm` (already saturated) and
    /// vehicle speed `speed` = |ν₁| (m/s): K_T, K_Q linear in the advance
    /// number for forward thrust, their J_a = 0 values in reverse.
    pub fn propeller(&self, n_rpm: f64, speed: f64) -> (f64, f64) {
        let n_rps = n_rpm / 60.0;
        let va = self.va_over_u * speed;
        let d4 = self.d_prop.powf(4.0);
        let d5 = self.d_prop.powf(5.0);
        if n_rps > 0.0 {
            let x = self.rho
                * d4
                * (self.kt_0 * n_rps.abs() * n_rps
                    + (self.kt_max - self.kt_0) / self.ja_max * (va / self.d_prop) * n_rps.abs());
            let k = self.rho
                * d5
                * (self.kq_0 * n_rps.abs() * n_rps
                    + (self.kq_max - self.kq_0) / self.ja_max * (va / self.d_prop) * n_rps.abs());
            (x, k)
        } else {
            // Reverse thrust (braking): the bollard coefficients.
            let x = self.rho * d4 * self.kt_0 * n_rps.abs() * n_rps;
            let k = self.rho * d5 * self.kq_0 * n_rps.abs() * n_rps;
            (x, k)
        }
    }

    /// The generalized actuator force τ = [X, Y, Z, K, M, N] (N, N·m, body)
    /// of propeller, rudder and stern planes at the state `eta`, `nu` and the
    /// actuator state `u_actual` (saturated here, as Fossen does).
    pub fn tau(&self, eta: &[f64; 6], nu: &[f64; 6], u_actual: &[f64; 3]) -> [f64; 6] {
        let nu_r = self.relative_velocity(eta, nu);
        self.tau_parts(nu, &nu_r, &self.saturate(u_actual))
    }

    fn relative_velocity(&self, eta: &[f64; 6], nu: &[f64; 6]) -> [f64; 6] {
        let nu_c = self.current_body(eta[5]);
        std::array::from_fn(|i| nu[i] - nu_c[i])
    }

    fn tau_parts(&self, nu: &[f64; 6], nu_r: &[f64; 6], u: &[f64; 3]) -> [f64; 6] {
        let [delta_r, delta_s, n] = *u;
        let speed = (nu[0].powi(2) + nu[1].powi(2) + nu[2].powi(2)).sqrt();
        let (x_prop, k_prop) = self.propeller(n, speed);
        // Horizontal- and vertical-plane relative speeds over the fins.
        let u_rh = (nu_r[0].powi(2) + nu_r[1].powi(2)).sqrt();
        let u_rv = (nu_r[0].powi(2) + nu_r[2].powi(2)).sqrt();
        let x_r = -0.5 * self.rho * u_rh.powi(2) * self.a_r * self.cl_delta_r * delta_r.powi(2);
        let x_s = -0.5 * self.rho * u_rv.powi(2) * self.a_s * self.cl_delta_s * delta_s.powi(2);
        let y_r = -0.5 * self.rho * u_rh.powi(2) * self.a_r * self.cl_delta_r * delta_r;
        let z_s = -0.5 * self.rho * u_rv.powi(2) * self.a_s * self.cl_delta_s * delta_s;
        let k = if self.propeller_roll_moment {
            k_prop / self.k_prop_divisor
        } else {
            0.0
        };
        [
            (1.0 - self.t_prop) * x_prop + x_r + x_s,
            y_r,
            z_s,
            k,
            -self.x_s * z_s,
            self.x_r * y_r,
        ]
    }

    /// C(ν_r) = C_RB(ν_r) + C_A(ν_r) (SI, body), Fossen's `m2c` of M_RB and
    /// M_A, with the C_A entries that couple surge/heave into pitch and
    /// surge/sway into yaw (the Munk moments) set to zero as he does: they
    /// destabilise the model without quadratic rotational damping.
    pub fn coriolis(&self, nu_r: &[f64; 6]) -> [[f64; 6]; 6] {
        let crb = m2c_6dof(&self.mrb, nu_r);
        let mut ca = m2c_6dof(&self.ma, nu_r);
        for (i, j) in [(4, 0), (4, 2), (5, 0), (5, 1)] {
            ca[i][j] = 0.0;
            ca[j][i] = 0.0;
        }
        std::array::from_fn(|i| std::array::from_fn(|j| crb[i][j] + ca[i][j]))
    }

    /// The diagonal of the linear damping D (SI) at relative speed `u_r`
    /// (m/s): M_ii over the time constants in surge, sway, heave and yaw,
    /// 2 ζ ω M_ii in roll and pitch; surge and sway fade as e^(−3 U_r), where
    /// quadratic drag and lift take over.
    pub fn damping(&self, u_r: f64) -> [f64; 6] {
        let m = &self.m;
        let fade = (-3.0 * u_r).exp();
        [
            m[0][0] / self.t_surge * fade,
            m[1][1] / self.t_sway * fade,
            m[2][2] / self.t_heave,
            m[3][3] * 2.0 * self.zeta_roll * self.w_roll,
            m[4][4] * 2.0 * self.zeta_pitch * self.w_pitch,
            m[5][5] / self.t_yaw,
        ]
    }

    /// ν̇ (m/s², rad/s²) of Fossen's model at `eta`, `nu` and the actuator
    /// state `u_actual` (saturated here):
    /// ν̇ = Dν_c + M⁻¹ (τ + τ_liftdrag + τ_crossflow − (C + D) ν_r − g(η)),
    /// with Dν_c = [r v_c, −r u_c, 0, 0, 0, 0] the current's rate in the
    /// turning body frame.
    pub fn nu_dot(&self, eta: &[f64; 6], nu: &[f64; 6], u_actual: &[f64; 3]) -> [f64; 6] {
        self.nu_dot_saturated(eta, nu, &self.saturate(u_actual))
    }

    fn nu_dot_saturated(&self, eta: &[f64; 6], nu: &[f64; 6], u: &[f64; 3]) -> [f64; 6] {
        let nu_c = self.current_body(eta[5]);
        let dnu_c = [nu[5] * nu_c[1], -nu[5] * nu_c[0], 0.0, 0.0, 0.0, 0.0];
        let nu_r: [f64; 6] = std::array::from_fn(|i| nu[i] - nu_c[i]);
        let alpha = nu_r[2].atan2(nu_r[0]);
        let u_r = (nu_r[0].powi(2) + nu_r[1].powi(2) + nu_r[2].powi(2)).sqrt();

        let c = self.coriolis(&nu_r);
        let d = self.damping(u_r);
        let tau_ld = force_lift_drag(self.diam, self.s, self.cd_0, alpha, u_r);
        let tau_cf = cross_flow_drag(self.length, self.diam, self.diam, &nu_r);
        let g = gvect(
            self.w,
            self.b,
            eta[4],
            eta[3],
            &Vector3::from(self.r_bg),
            &Vector3::from(self.r_bb),
        );
        let tau = self.tau_parts(nu, &nu_r, u);

        let tau_sum: [f64; 6] = std::array::from_fn(|i| {
            let mut cd_nu = 0.0;
            for j in 0..6 {
                let cdij = c[i][j] + if i == j { d[i] } else { 0.0 };
                cd_nu += cdij * nu_r[j];
            }
            tau[i] + tau_ld[i] + tau_cf[i] - cd_nu - g[i]
        });
        std::array::from_fn(|i| {
            let mut acc = 0.0;
            for (mij, t) in self.m_inv[i].iter().zip(&tau_sum) {
                acc += mij * t;
            }
            dnu_c[i] + acc
        })
    }

    /// Actuator rates [δ̇_r, δ̇_s, ṅ] (rad/s, rpm/s): first-order lags of the
    /// saturated actual state towards the (unsaturated) command.
    pub fn actuator_rate(&self, u_actual: &[f64; 3], u_control: &[f64; 3]) -> [f64; 3] {
        let u = self.saturate(u_actual);
        [
            (u_control[0] - u[0]) / self.t_delta,
            (u_control[1] - u[1]) / self.t_delta,
            (u_control[2] - u[2]) / self.t_n,
        ]
    }

    /// Fossen's `dynamics`: one forward-Euler step of `dt` (s) from `nu` and
    /// the actuator state `u_actual` = [δ_r (rad), δ_s (rad), n (rpm)] under
    /// the command `u_control`, at the pose `eta`. Returns the new ν and the
    /// new actuator state. As in his code the actuator state is saturated
    /// before it acts and is integrated from the saturated value, so the
    /// returned state may exceed the limits by one step's rate.
    pub fn dynamics(
        &self,
        eta: &[f64; 6],
        nu: &[f64; 6],
        u_actual: &[f64; 3],
        u_control: &[f64; 3],
        dt: f64,
    ) -> ([f64; 6], [f64; 3]) {
        let u = self.saturate(u_actual);
        let nu_dot = self.nu_dot_saturated(eta, nu, &u);
        let rate = self.actuator_rate(u_actual, u_control);
        let nu_next = std::array::from_fn(|i| nu[i] + dt * nu_dot[i]);
        let u_next = std::array::from_fn(|i| u[i] + dt * rate[i]);
        (nu_next, u_next)
    }

    /// `mainLoop.simulate`: η, ν and the actuators start at zero; at each
    /// step i = 0..=n (t = i dt) the state is recorded, then
    /// (ν, u) = [`dynamics`](Self::dynamics)(η, ν, u, u_control(t), dt) and
    /// η = `attitude_euler(η, ν_new, dt)`. Returns the n + 1 records.
    pub fn simulate(
        &self,
        n: usize,
        dt: f64,
        u_control: impl Fn(f64) -> [f64; 3],
    ) -> Vec<Remus100Sample> {
        self.simulate_from(&[0.0; 6], &[0.0; 3], n, dt, u_control)
    }

    /// [`simulate`](Self::simulate) from the velocity `nu0` and actuator
    /// state `u_actual0` (η still starts at zero).
    pub fn simulate_from(
        &self,
        nu0: &[f64; 6],
        u_actual0: &[f64; 3],
        n: usize,
        dt: f64,
        u_control: impl Fn(f64) -> [f64; 3],
    ) -> Vec<Remus100Sample> {
        let mut eta = [0.0; 6];
        let mut nu = *nu0;
        let mut u_actual = *u_actual0;
        let mut out = Vec::with_capacity(n + 1);
        for i in 0..=n {
            let t = i as f64 * dt;
            let uc = u_control(t);
            out.push(Remus100Sample {
                t,
                eta,
                nu,
                u_control: uc,
                u_actual,
            });
            // The step after the last record is never seen; skip it.
            if i == n {
                break;
            }
            (nu, u_actual) = self.dynamics(&eta, &nu, &u_actual, &uc, dt);
            eta = attitude_euler(&eta, &nu, dt);
        }
        out
    }

    /// Kinetic energy ½ νᵀ M ν (J) of the body velocity `nu`, added mass
    /// included.
    pub fn energy(&self, nu: &[f64; 6]) -> f64 {
        let mut e = 0.0;
        for i in 0..6 {
            for j in 0..6 {
                e += nu[i] * self.m[i][j] * nu[j];
            }
        }
        0.5 * e
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saturation_is_fossens() {
        let v = Remus100::reference();
        let lim = 15.0 * D2R;
        assert_eq!(v.saturate(&[0.3, -0.3, 2000.0]), [lim, -lim, 1525.0]);
        assert_eq!(v.saturate(&[0.1, -0.1, -1000.0]), [0.1, -0.1, -1000.0]);
        assert_eq!(v.saturate(&[0.0, 0.0, -1525.0]), [0.0, 0.0, -1525.0]);
        // Integrated from the saturated value, so one step may overshoot.
        let (_, u) = v.dynamics(
            &[0.0; 6],
            &[0.0; 6],
            &[lim, 0.0, 0.0],
            &[1.0, 0.0, 0.0],
            0.02,
        );
        assert!(u[0] > lim);
    }

    #[test]
    fn at_rest_in_still_water_nothing_moves() {
        let v = Remus100::reference();
        let (nu, u) = v.dynamics(&[0.0; 6], &[0.0; 6], &[0.0; 3], &[0.0; 3], 0.02);
        assert_eq!(nu, [0.0; 6]);
        assert_eq!(u, [0.0; 3]);
    }

    #[test]
    fn current_is_seen_from_the_body() {
        let v = Remus100::reference().with_current(0.5, 90.0);
        // Heading east into an eastward current: it comes from astern.
        let c = v.current_body(PI / 2.0);
        assert!((c[0] - 0.5).abs() < 1e-15 && c[1].abs() < 1e-15);
        // Drifting with the current, relative velocity is zero: no force.
        let nu = [0.5, 0.0, 0.0, 0.0, 0.0, 0.0];
        let nd = v.nu_dot(&[0.0, 0.0, 0.0, 0.0, 0.0, PI / 2.0], &nu, &[0.0; 3]);
        assert!(nd.iter().all(|x| x.abs() < 1e-12), "{nd:?}");
    }

    #[test]
    fn propeller_pushes_forward_and_brakes_in_reverse() {
        let v = Remus100::reference();
        assert!(v.propeller(1525.0, 2.5).0 > 0.0);
        assert!(v.propeller(-1000.0, 1.0).0 < 0.0);
        assert_eq!(v.propeller(0.0, 1.0), (0.0, 0.0));
        let tau = v.tau(&[0.0; 6], &[0.0; 6], &[0.0, 0.0, 1000.0]);
        assert!(tau[0] > 0.0 && tau[3] > 0.0 && tau[1] == 0.0);
    }

    #[test]
    fn energy_is_half_nu_m_nu() {
        let v = Remus100::reference();
        let e = v.energy(&[1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        assert!((e - 0.5 * v.m[0][0]).abs() < 1e-12);
        assert!(v.mass > 30.0 && v.mass < 32.0, "{}", v.mass);
    }
}
