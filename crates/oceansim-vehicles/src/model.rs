//! The 6-DOF dynamics: M ν̇ + C(ν_r) ν_r + D(ν_r) ν_r + g(η) = τ.

use crate::appendages::HullTerms;
use crate::fossen::{
    coriolis_times, euler_from_quat, hmtrx, m2c, quat_derivative, restoring_force_torque,
};
use crate::profile::{CurrentModel, VehicleProfile};
use nalgebra::{Matrix6, Quaternion, UnitQuaternion, Vector3, Vector6};
use serde::Serialize;

/// State of a vehicle: NED position, attitude quaternion (body → NED) and
/// body velocity ν = [u, v, w, p, q, r] (m/s, rad/s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VehicleState {
    /// Position of the body origin (m), NED.
    pub position_ned: Vector3<f64>,
    /// Attitude, body → NED.
    pub attitude: UnitQuaternion<f64>,
    /// Body velocity ν (m/s, rad/s), Fossen body frame.
    pub nu: Vector6<f64>,
}

impl Default for VehicleState {
    fn default() -> Self {
        VehicleState {
            position_ned: Vector3::zeros(),
            attitude: UnitQuaternion::identity(),
            nu: Vector6::zeros(),
        }
    }
}

impl VehicleState {
    /// A state at rest at `position_ned` with Euler angles (rad).
    pub fn at_rest(position_ned: Vector3<f64>, phi: f64, theta: f64, psi: f64) -> Self {
        VehicleState {
            position_ned,
            attitude: UnitQuaternion::from_euler_angles(phi, theta, psi),
            nu: Vector6::zeros(),
        }
    }

    /// Euler angles (φ, θ, ψ) in rad, ZYX; ψ in (-π, π].
    pub fn euler(&self) -> (f64, f64, f64) {
        euler_from_quat(&self.attitude)
    }

    /// η = [x, y, z, φ, θ, ψ] (m, rad).
    pub fn eta(&self) -> Vector6<f64> {
        let (phi, theta, psi) = self.euler();
        let p = self.position_ned;
        Vector6::new(p.x, p.y, p.z, phi, theta, psi)
    }

    /// Velocity of the body origin in NED (m/s).
    pub fn velocity_ned(&self) -> Vector3<f64> {
        self.attitude * self.nu.fixed_rows::<3>(0).into_owned()
    }
}

/// C_A entries (row, column) dropped with their transposes when the Munk
/// moment is neglected.
const MUNK_ENTRIES: [(usize, usize); 4] = [(4, 0), (4, 2), (5, 0), (5, 1)];

/// Time derivative of a [`VehicleState`] (the quaternion part unnormalised).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StateDerivative {
    /// ṗ (m/s), NED.
    pub position_ned: Vector3<f64>,
    /// q̇ of the attitude quaternion.
    pub attitude: Quaternion<f64>,
    /// ν̇ (m/s², rad/s²), body.
    pub nu: Vector6<f64>,
}

/// Fossen-style dynamics of one vehicle, with every matrix precomputed.
///
/// The equation, in the body frame about the body origin:
///
/// M ν̇ + C(ν_r) ν_r + D(ν_r) ν_r + g(η) = τ,  ν_r = ν − [Rᵀ v_c; 0],
///
/// with M = M_RB + M_A (symmetric, positive definite), C from M by
/// [`m2c`](crate::fossen::m2c), D(ν) = diag(d_lin) + diag(d_quad ⊙ |ν|),
/// g the restoring forces of weight W at r_g and buoyancy B at r_b, and v_c
/// a uniform, irrotational current in NED. Kinematics: ṗ = R ν₁,
/// q̇ = ½ q ⊗ [0, ν₂].
#[derive(Debug, Clone, PartialEq)]
pub struct VehicleModel {
    /// M_RB about the body origin.
    pub rigid_body_mass: Matrix6<f64>,
    /// M_A.
    pub added_mass: Matrix6<f64>,
    /// M = M_RB + M_A, symmetrised.
    pub mass: Matrix6<f64>,
    mass_inv: Matrix6<f64>,
    /// Linear damping diagonal (≥ 0).
    pub linear_damping: Vector6<f64>,
    /// Quadratic damping diagonal (≥ 0).
    pub quadratic_damping: Vector6<f64>,
    /// Weight W (N).
    pub weight_n: f64,
    /// Buoyancy B (N).
    pub buoyancy_n: f64,
    /// Centre of gravity (m), body.
    pub r_g: Vector3<f64>,
    /// Centre of buoyancy (m), body.
    pub r_b: Vector3<f64>,
    /// Whether the Munk-moment entries of C_A are dropped (see
    /// [`VehicleProfile::neglect_munk_moment`]).
    pub neglect_munk_moment: bool,
    /// Hull lift, cross-flow drag and fading linear damping.
    pub hull: HullTerms,
    /// How the current is carried into the body frame.
    pub current_model: CurrentModel,
    /// Water density ρ (kg/m³), for the flow-dependent forces.
    pub water_density_kg_m3: f64,
}

/// Errors building a model from raw matrices.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the total mass matrix is not invertible")]
pub struct SingularMass;

impl VehicleModel {
    /// Builds a model from its parts. The total mass matrix is symmetrised.
    #[allow(clippy::too_many_arguments)]
    pub fn from_parts(
        rigid_body_mass: Matrix6<f64>,
        added_mass: Matrix6<f64>,
        linear_damping: Vector6<f64>,
        quadratic_damping: Vector6<f64>,
        weight_n: f64,
        buoyancy_n: f64,
        r_g: Vector3<f64>,
        r_b: Vector3<f64>,
    ) -> Result<Self, SingularMass> {
        let m = rigid_body_mass + added_mass;
        let mass = 0.5 * (m + m.transpose());
        let mass_inv = mass.try_inverse().ok_or(SingularMass)?;
        Ok(VehicleModel {
            rigid_body_mass,
            added_mass,
            mass,
            mass_inv,
            linear_damping,
            quadratic_damping,
            weight_n,
            buoyancy_n,
            r_g,
            r_b,
            neglect_munk_moment: false,
            hull: HullTerms::default(),
            current_model: CurrentModel::Full,
            water_density_kg_m3: 1025.0,
        })
    }

    /// The model of a validated profile.
    pub fn from_profile(p: &VehicleProfile) -> Self {
        // A validated profile has a positive-definite total mass matrix.
        Self::from_parts(
            p.rigid_body_mass_matrix(),
            p.added_mass_matrix(),
            p.linear_damping.into(),
            p.quadratic_damping.into(),
            p.weight(),
            p.buoyancy(),
            p.r_g_m.into(),
            p.r_b_m.into(),
        )
        .expect("validated profiles have a positive-definite mass matrix")
        .with_munk_moment_neglected(p.neglect_munk_moment)
        .with_hull(p.hull, p.current_model, p.water_density_kg_m3)
    }

    /// Sets the flow-dependent hull terms, the current model and ρ.
    pub fn with_hull(mut self, hull: HullTerms, current: CurrentModel, rho: f64) -> Self {
        self.hull = hull;
        self.current_model = current;
        self.water_density_kg_m3 = rho;
        self
    }

    /// Drops (or keeps) the Munk-moment entries of C_A.
    pub fn with_munk_moment_neglected(mut self, neglect: bool) -> Self {
        self.neglect_munk_moment = neglect;
        self
    }

    /// Replaces weight and buoyancy (N), e.g. to make the vehicle neutral.
    pub fn with_restoring(mut self, weight_n: f64, buoyancy_n: f64) -> Self {
        self.weight_n = weight_n;
        self.buoyancy_n = buoyancy_n;
        self
    }

    /// Replaces the centre of buoyancy (m, body).
    pub fn with_r_b(mut self, r_b: Vector3<f64>) -> Self {
        self.r_b = r_b;
        self
    }

    /// Replaces the damping diagonals.
    pub fn with_damping(mut self, linear: Vector6<f64>, quadratic: Vector6<f64>) -> Self {
        self.linear_damping = linear;
        self.quadratic_damping = quadratic;
        self
    }

    /// C(ν) = C_RB(ν) + C_A(ν) of the model (`coriolis_matrix`):
    /// [`m2c`] of the total mass matrix, without the Munk-moment entries of
    /// C_A when they are neglected. Skew-symmetric either way.
    pub fn coriolis_matrix(&self, nu: &Vector6<f64>) -> Matrix6<f64> {
        let mut c = m2c(&self.mass, nu);
        if self.neglect_munk_moment {
            let ca = m2c(&self.added_mass, nu);
            for (i, j) in MUNK_ENTRIES {
                c[(i, j)] -= ca[(i, j)];
                c[(j, i)] -= ca[(j, i)];
            }
        }
        c
    }

    /// C(ν) ν (`coriolis_force_torque_body`), N and N·m, without forming C.
    pub fn coriolis_force_torque(&self, nu: &Vector6<f64>) -> Vector6<f64> {
        let mut f = coriolis_times(&self.mass, nu);
        if self.neglect_munk_moment {
            // Entries of C_A = m2c(M_A, ν) dropped in skew pairs, with
            // a = (M_A ν)[0..3]: C_A[4][0] = -a3, C_A[4][2] = a1,
            // C_A[5][0] = a2, C_A[5][1] = -a1 and their negated transposes.
            let ms = 0.5 * (self.added_mass + self.added_mass.transpose());
            let a = (ms * nu).fixed_rows::<3>(0).into_owned();
            let (u, v, w, q, r) = (nu[0], nu[1], nu[2], nu[4], nu[5]);
            f[0] -= a.z * q - a.y * r;
            f[1] -= a.x * r;
            f[2] -= -a.x * q;
            f[4] -= -a.z * u + a.x * w;
            f[5] -= a.y * u - a.x * v;
        }
        f
    }

    /// D(ν) ν, N and N·m, with ν the velocity through the water: linear
    /// terms fade as exp(−k U) where the profile says so (U = |ν₁|).
    pub fn damping_force_torque(&self, nu: &Vector6<f64>) -> Vector6<f64> {
        let fade = &self.hull.linear_damping_fade_s_per_m;
        let mut out = Vector6::zeros();
        if fade.iter().all(|k| *k == 0.0) {
            for i in 0..6 {
                out[i] = (self.linear_damping[i] + self.quadratic_damping[i] * nu[i].abs()) * nu[i];
            }
            return out;
        }
        let u = (nu[0] * nu[0] + nu[1] * nu[1] + nu[2] * nu[2]).sqrt();
        for i in 0..6 {
            let lin = if fade[i] != 0.0 {
                self.linear_damping[i] * (-fade[i] * u).exp()
            } else {
                self.linear_damping[i]
            };
            out[i] = (lin + self.quadratic_damping[i] * nu[i].abs()) * nu[i];
        }
        out
    }

    /// The current in the body frame ν_c (m/s, angular part zero) and its
    /// rate of change ν̇_c = ν_c × ω as the body turns in a current fixed
    /// in NED. [`CurrentModel::HeadingOnly`] rotates it by the heading alone
    /// and keeps only the yaw-rate part, as Fossen's remus100 does.
    pub fn current_in_body(
        &self,
        attitude: &UnitQuaternion<f64>,
        omega: &Vector3<f64>,
        current_ned: &Vector3<f64>,
    ) -> (Vector6<f64>, Vector6<f64>) {
        if *current_ned == Vector3::zeros() {
            return (Vector6::zeros(), Vector6::zeros());
        }
        match self.current_model {
            CurrentModel::Full => {
                let c = attitude.inverse_transform_vector(current_ned);
                let d = c.cross(omega);
                (
                    Vector6::new(c.x, c.y, c.z, 0.0, 0.0, 0.0),
                    Vector6::new(d.x, d.y, d.z, 0.0, 0.0, 0.0),
                )
            }
            CurrentModel::HeadingOnly => {
                let (_, _, psi) = attitude.euler_angles();
                let speed = current_ned.x.hypot(current_ned.y);
                let beta = current_ned.y.atan2(current_ned.x);
                let u_c = speed * (beta - psi).cos();
                let v_c = speed * (beta - psi).sin();
                let r = omega.z;
                (
                    Vector6::new(u_c, v_c, 0.0, 0.0, 0.0, 0.0),
                    Vector6::new(r * v_c, -r * u_c, 0.0, 0.0, 0.0, 0.0),
                )
            }
        }
    }

    /// The passive forces at relative velocity `nu_r`: hull lift and
    /// cross-flow minus C(ν_r)ν_r, D(ν_r)ν_r and g(η), so that
    /// M (ν̇ − ν̇_c) = τ + f (N, N·m, body).
    pub fn passive_force_torque(
        &self,
        attitude: &UnitQuaternion<f64>,
        nu_r: &Vector6<f64>,
    ) -> Vector6<f64> {
        let mut f = -self.coriolis_force_torque(nu_r)
            - self.damping_force_torque(nu_r)
            - self.restoring_force_torque(attitude);
        // A bare hull skips the zero terms: the hot path of most vehicles.
        if self.hull.lift_drag.is_some() || self.hull.cross_flow.is_some() {
            f += self.hull.wrench(nu_r, self.water_density_kg_m3);
        }
        f
    }

    /// The wrench τ that gives body acceleration `accel` (computed torque):
    /// τ = M (a − ν̇_c) − f(ν_r), with f the [passive
    /// forces](Self::passive_force_torque). The simulator's body-velocity
    /// command and the fleet autopilot both use it.
    pub fn computed_torque(
        &self,
        attitude: &UnitQuaternion<f64>,
        nu: &Vector6<f64>,
        current_ned: &Vector3<f64>,
        accel: &Vector6<f64>,
    ) -> Vector6<f64> {
        let omega = nu.fixed_rows::<3>(3).into_owned();
        let (nu_c, nu_c_dot) = self.current_in_body(attitude, &omega, current_ned);
        let nu_r = nu - nu_c;
        self.mass * (accel - nu_c_dot) - self.passive_force_torque(attitude, &nu_r)
    }

    /// g(η) (`restoring_force_torque_body`), N and N·m, body frame.
    pub fn restoring_force_torque(&self, attitude: &UnitQuaternion<f64>) -> Vector6<f64> {
        restoring_force_torque(
            attitude,
            self.weight_n,
            self.buoyancy_n,
            &self.r_g,
            &self.r_b,
        )
    }

    /// Kinetic energy ½ νᵀ M ν (J).
    pub fn kinetic_energy(&self, nu: &Vector6<f64>) -> f64 {
        0.5 * nu.dot(&(self.mass * nu))
    }

    /// ν̇ for body velocity `nu`, attitude, body wrench `tau` and NED
    /// current `current_ned` (m/s).
    pub fn nu_dot(
        &self,
        attitude: &UnitQuaternion<f64>,
        nu: &Vector6<f64>,
        tau: &Vector6<f64>,
        current_ned: &Vector3<f64>,
    ) -> Vector6<f64> {
        self.nu_dot_with(
            attitude,
            nu,
            current_ned,
            &|_: &Vector6<f64>, _: &Vector6<f64>| *tau,
        )
    }

    /// ν̇ with the wrench `tau_of(ν, ν_r)` evaluated at this velocity and
    /// the relative velocity ν_r, for forces that depend on the flow
    /// (propellers, fins).
    pub fn nu_dot_with<F>(
        &self,
        attitude: &UnitQuaternion<f64>,
        nu: &Vector6<f64>,
        current_ned: &Vector3<f64>,
        tau_of: &F,
    ) -> Vector6<f64>
    where
        F: Fn(&Vector6<f64>, &Vector6<f64>) -> Vector6<f64>,
    {
        // Still water skips the current's zero terms.
        let (nu_r, nu_c_dot) = if *current_ned == Vector3::zeros() {
            (*nu, None)
        } else {
            let omega = nu.fixed_rows::<3>(3).into_owned();
            let (nu_c, d) = self.current_in_body(attitude, &omega, current_ned);
            (nu - nu_c, Some(d))
        };
        let rhs = tau_of(nu, &nu_r) + self.passive_force_torque(attitude, &nu_r);
        let accel = self.mass_inv * rhs;
        match nu_c_dot {
            Some(d) => d + accel,
            None => accel,
        }
    }

    /// The state derivative; `attitude` may be unnormalised (RK4 stages).
    pub fn derivative_raw(
        &self,
        position_ned: &Vector3<f64>,
        attitude: &Quaternion<f64>,
        nu: &Vector6<f64>,
        tau: &Vector6<f64>,
        current_ned: &Vector3<f64>,
    ) -> StateDerivative {
        let _ = position_ned;
        self.derivative_with(
            attitude,
            nu,
            current_ned,
            &|_: &Vector6<f64>, _: &Vector6<f64>| *tau,
        )
    }

    /// The state derivative with a flow-dependent wrench `tau_of(ν, ν_r)`;
    /// `attitude` may be unnormalised.
    pub fn derivative_with<F>(
        &self,
        attitude: &Quaternion<f64>,
        nu: &Vector6<f64>,
        current_ned: &Vector3<f64>,
        tau_of: &F,
    ) -> StateDerivative
    where
        F: Fn(&Vector6<f64>, &Vector6<f64>) -> Vector6<f64>,
    {
        let unit = UnitQuaternion::new_normalize(*attitude);
        let v = nu.fixed_rows::<3>(0).into_owned();
        let w = nu.fixed_rows::<3>(3).into_owned();
        StateDerivative {
            position_ned: unit * v,
            attitude: quat_derivative(attitude, &w),
            nu: self.nu_dot_with(&unit, nu, current_ned, tau_of),
        }
    }

    /// The state derivative (allocation-free).
    pub fn derivative(
        &self,
        s: &VehicleState,
        tau: &Vector6<f64>,
        current_ned: &Vector3<f64>,
    ) -> StateDerivative {
        self.derivative_raw(
            &s.position_ned,
            s.attitude.quaternion(),
            &s.nu,
            tau,
            current_ned,
        )
    }

    /// One classical fixed-step RK4 step of `dt` seconds with a wrench held
    /// constant over the step; the quaternion is renormalised at the end.
    /// Allocation-free.
    pub fn rk4_step(
        &self,
        s: &VehicleState,
        tau: &Vector6<f64>,
        current_ned: &Vector3<f64>,
        dt: f64,
    ) -> VehicleState {
        self.rk4_step_with(s, current_ned, dt, &|_: &Vector6<f64>, _: &Vector6<f64>| {
            *tau
        })
    }

    /// One classical RK4 step with the wrench `tau_of(ν, ν_r)` evaluated at
    /// every stage from that stage's velocity. Allocation-free.
    pub fn rk4_step_with<F>(
        &self,
        s: &VehicleState,
        current_ned: &Vector3<f64>,
        dt: f64,
        tau_of: &F,
    ) -> VehicleState
    where
        F: Fn(&Vector6<f64>, &Vector6<f64>) -> Vector6<f64>,
    {
        let p0 = s.position_ned;
        let q0 = *s.attitude.quaternion();
        let n0 = s.nu;
        let k1 = self.derivative_with(&q0, &n0, current_ned, tau_of);
        let h2 = 0.5 * dt;
        let k2 = self.derivative_with(
            &(q0 + k1.attitude * h2),
            &(n0 + k1.nu * h2),
            current_ned,
            tau_of,
        );
        let k3 = self.derivative_with(
            &(q0 + k2.attitude * h2),
            &(n0 + k2.nu * h2),
            current_ned,
            tau_of,
        );
        let k4 = self.derivative_with(
            &(q0 + k3.attitude * dt),
            &(n0 + k3.nu * dt),
            current_ned,
            tau_of,
        );
        let w = dt / 6.0;
        let position_ned = p0
            + (k1.position_ned + k2.position_ned * 2.0 + k3.position_ned * 2.0 + k4.position_ned)
                * w;
        let q = q0 + (k1.attitude + k2.attitude * 2.0 + k3.attitude * 2.0 + k4.attitude) * w;
        let nu = n0 + (k1.nu + k2.nu * 2.0 + k3.nu * 2.0 + k4.nu) * w;
        VehicleState {
            position_ned,
            attitude: UnitQuaternion::new_normalize(q),
            nu,
        }
    }

    /// One step of Fossen's own integration (his `mainLoop`): ν̇ at the
    /// state, ν ← ν + dt ν̇, then η ← η + dt J(η) ν with the new ν
    /// (`attitudeEuler`, ZYX Euler angles). Semi-implicit Euler: first
    /// order, the scheme his remus100 results come from.
    pub fn fossen_euler_step_with<F>(
        &self,
        s: &VehicleState,
        current_ned: &Vector3<f64>,
        dt: f64,
        tau_of: &F,
    ) -> VehicleState
    where
        F: Fn(&Vector6<f64>, &Vector6<f64>) -> Vector6<f64>,
    {
        let nu_dot = self.nu_dot_with(&s.attitude, &s.nu, current_ned, tau_of);
        let nu = s.nu + nu_dot * dt;
        let (phi, theta, psi) = s.attitude.euler_angles();
        let p = s.position_ned;
        let eta = [p.x, p.y, p.z, phi, theta, psi];
        let mut v = [0.0; 6];
        v.copy_from_slice(nu.as_slice());
        let e = crate::fossen::attitude_euler(&eta, &v, dt);
        VehicleState {
            position_ned: Vector3::new(e[0], e[1], e[2]),
            attitude: UnitQuaternion::from_euler_angles(e[3], e[4], e[5]),
            nu,
        }
    }

    /// The model's matrices and force terms at a state, under the spec's
    /// runtime/profile field names.
    pub fn report(&self, s: &VehicleState, allocation: &[Vector6<f64>]) -> DynamicsReport {
        let rows = |m: &Matrix6<f64>| -> Vec<Vec<f64>> {
            (0..6)
                .map(|i| (0..6).map(|j| m[(i, j)]).collect())
                .collect()
        };
        let g = self.restoring_force_torque(&s.attitude);
        DynamicsReport {
            rigid_body_mass_matrix: rows(&self.rigid_body_mass),
            added_mass_matrix: rows(&self.added_mass),
            total_mass_matrix: rows(&self.mass),
            coriolis_matrix: rows(&self.coriolis_matrix(&s.nu)),
            coriolis_force_torque_body: self.coriolis_force_torque(&s.nu).as_slice().to_vec(),
            restoring_force_torque_body: g.as_slice().to_vec(),
            restoring_torque_body: g.fixed_rows::<3>(3).as_slice().to_vec(),
            thruster_allocation_matrix: (0..6)
                .map(|i| allocation.iter().map(|c| c[i]).collect())
                .collect(),
        }
    }

    /// Moves the model's reference point by `r` (m): M' = Hᵀ M H.
    pub fn mass_about(&self, r: &Vector3<f64>) -> Matrix6<f64> {
        let h = hmtrx(r);
        h.transpose() * self.mass * h
    }
}

/// Fossen-style dynamics metadata for controller design and export
/// auditing, with the documented field names (matrices as row lists).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DynamicsReport {
    /// M_RB (6×6).
    pub rigid_body_mass_matrix: Vec<Vec<f64>>,
    /// M_A (6×6).
    pub added_mass_matrix: Vec<Vec<f64>>,
    /// M (6×6).
    pub total_mass_matrix: Vec<Vec<f64>>,
    /// C(ν) (6×6) at the reported state.
    pub coriolis_matrix: Vec<Vec<f64>>,
    /// C(ν) ν (N, N·m), body.
    pub coriolis_force_torque_body: Vec<f64>,
    /// g(η) (N, N·m), body.
    pub restoring_force_torque_body: Vec<f64>,
    /// The torque rows of g(η) (N·m).
    pub restoring_torque_body: Vec<f64>,
    /// B (6 × thrusters): columns [dᵢ; rᵢ × dᵢ].
    pub thruster_allocation_matrix: Vec<Vec<f64>>,
}
