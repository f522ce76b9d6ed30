//! Dynamics checked against analytic properties: skew-symmetric Coriolis
//! power, equilibrium, the analytic surge steady state, energy dissipation,
//! the small-angle roll period, drift with a current, and no gimbal lock.

use nalgebra::{Matrix6, UnitQuaternion, Vector3, Vector6};
use oceansim_vehicles::{ThrusterBank, VehicleModel, VehicleProfile, VehicleState};
use proptest::prelude::*;

fn default_model() -> (VehicleProfile, VehicleModel) {
    let p = VehicleProfile::default_profile();
    let m = VehicleModel::from_profile(&p);
    (p, m)
}

fn nu_strategy(lin: f64, ang: f64) -> impl Strategy<Value = Vector6<f64>> {
    (
        prop::array::uniform3(-lin..lin),
        prop::array::uniform3(-ang..ang),
    )
        .prop_map(|(a, b)| Vector6::new(a[0], a[1], a[2], b[0], b[1], b[2]))
}

proptest! {
    /// C(ν) is skew-symmetric, so it does no work: νᵀ C(ν) ν = 0.
    #[test]
    fn coriolis_does_no_work(nu in nu_strategy(5.0, 3.0), seed in prop::array::uniform32(-1.0f64..1.0)) {
        let (_, model) = default_model();
        // The model's C (Munk entries neglected) and the full m2c(M).
        for munk_neglected in [true, false] {
            let model = model.clone().with_munk_moment_neglected(munk_neglected);
            let c = model.coriolis_matrix(&nu);
            let power = nu.dot(&(c * nu));
            prop_assert!(power.abs() <= 1e-12 * (1.0 + nu.norm_squared() * model.mass.amax()), "{power}");
            prop_assert!((c * nu - model.coriolis_force_torque(&nu)).amax() <= 1e-12 * (1.0 + c.amax()));
            prop_assert!(nu.dot(&model.coriolis_force_torque(&nu)).abs() <= 1e-11 * (1.0 + nu.norm_squared() * model.mass.amax()));
        }
        // Also for an arbitrary symmetric positive-definite mass matrix.
        let a = Matrix6::from_fn(|i, j| seed[(i * 6 + j) % 32]);
        let m = a * a.transpose() + Matrix6::identity();
        let c = oceansim_vehicles::fossen::m2c(&m, &nu);
        prop_assert!(nu.dot(&(c * nu)).abs() <= 1e-10 * (1.0 + nu.norm_squared() * m.amax()));
        prop_assert!((c + c.transpose()).amax() <= 1e-12 * (1.0 + c.amax()));
    }

    /// With τ = 0 and g = 0, ½ νᵀ M ν never increases (damping only removes energy).
    #[test]
    fn kinetic_energy_never_increases(nu0 in nu_strategy(2.0, 1.0), roll in -1.0f64..1.0, pitch in -0.5f64..0.5) {
        let (_, model) = default_model();
        let model = model.with_restoring(0.0, 0.0);
        let mut s = VehicleState { nu: nu0, ..VehicleState::at_rest(Vector3::zeros(), roll, pitch, 0.3) };
        let mut e = model.kinetic_energy(&s.nu);
        for _ in 0..2000 {
            s = model.rk4_step(&s, &Vector6::zeros(), &Vector3::zeros(), 0.01);
            let e2 = model.kinetic_energy(&s.nu);
            prop_assert!(e2 <= e * (1.0 + 1e-12) + 1e-15, "energy rose from {e} to {e2}");
            e = e2;
        }
    }
}

#[test]
fn neutral_vehicle_with_coincident_centres_stays_at_rest_for_100_s() {
    let (p, model) = default_model();
    let w = p.weight();
    let model = model.with_restoring(w, w).with_r_b(p.r_g_m.into());
    // Even tilted: with r_b = r_g there is no restoring moment at any attitude.
    for (roll, pitch, yaw) in [(0.0, 0.0, 0.0), (0.4, -0.3, 2.0)] {
        let s0 = VehicleState::at_rest(Vector3::new(1.0, -2.0, 5.0), roll, pitch, yaw);
        let mut s = s0;
        for _ in 0..10_000 {
            s = model.rk4_step(&s, &Vector6::zeros(), &Vector3::zeros(), 0.01);
        }
        assert!(s.nu.amax() <= 1e-12, "nu drifted to {}", s.nu);
        assert!((s.position_ned - s0.position_ned).amax() <= 1e-12);
        assert!(s.attitude.angle_to(&s0.attitude) <= 1e-12);
    }
}

#[test]
fn constant_surge_thrust_reaches_the_analytic_steady_speed() {
    let (p, model) = default_model();
    let w = p.weight();
    let model = model.with_restoring(w, w); // neutral; r_g below r_b keeps it upright
    let mut bank = ThrusterBank::from_profile(&p);
    bank.set_commands(&[1.0, 1.0, 0.0, 0.0, 0.0, 0.0]).unwrap();
    let mut s = VehicleState::default();
    let mut tau = Vector6::zeros();
    for _ in 0..20_000 {
        tau = bank.step(0.01);
        s = model.rk4_step(&s, &tau, &Vector3::zeros(), 0.01);
    }
    // X = d_lin u + d_quad u^2, solved for u > 0.
    let x = tau[0];
    assert!(
        (x - 12.0).abs() < 1e-12,
        "two stern thrusters at full ahead give 12 N, got {x}"
    );
    let (d1, d2) = (p.linear_damping[0], p.quadratic_damping[0]);
    let u_star = (-d1 + (d1 * d1 + 4.0 * d2 * x).sqrt()) / (2.0 * d2);
    let rel = (s.nu[0] - u_star).abs() / u_star;
    eprintln!("surge: u = {:.12} m/s, analytic {u_star:.12} m/s", s.nu[0]);
    assert!(
        rel < 1e-3,
        "u = {} vs analytic {u_star} ({:.2e} relative)",
        s.nu[0],
        rel
    );
    assert!(
        tau.fixed_rows::<5>(1).amax() < 1e-12,
        "symmetric stern pair: no side force or moment"
    );
    // The start-up pitch/heave transient (the thrust line is above the CG)
    // decays with the 20 s heave time constant: after 200 s it is ~1e-6.
    assert!(
        s.nu.fixed_rows::<5>(1).amax() < 1e-5,
        "surge stays essentially pure: {}",
        s.nu
    );
}

/// Zero crossings of roll, as interpolated times.
fn roll_crossings(model: &VehicleModel, phi0: f64, seconds: f64, dt: f64) -> Vec<f64> {
    let mut s = VehicleState::at_rest(Vector3::zeros(), phi0, 0.0, 0.0);
    let mut out = vec![];
    let mut prev = phi0;
    let steps = (seconds / dt) as usize;
    for k in 1..=steps {
        s = model.rk4_step(&s, &Vector6::zeros(), &Vector3::zeros(), dt);
        let phi = s.euler().0;
        if prev.signum() != phi.signum() && phi != 0.0 {
            let frac = prev / (prev - phi);
            out.push((k as f64 - 1.0 + frac) * dt);
        }
        prev = phi;
    }
    out
}

#[test]
fn small_roll_offset_oscillates_with_the_small_angle_period() {
    let (p, model) = default_model();
    let w = p.weight();
    // Neutral, CB at the origin, CG 19.6 mm below it; no damping so the
    // period is the undamped one.
    let model = model
        .with_restoring(w, w)
        .with_r_b(Vector3::zeros())
        .with_damping(Vector6::zeros(), Vector6::zeros());
    let bg_z = p.r_g_m[2];
    let ixx = p.inertia_kg_m2[0][0];
    let k_pdot = model.added_mass[(3, 3)];
    let t_formula = 2.0 * std::f64::consts::PI * ((ixx + k_pdot) / (w * bg_z)).sqrt();
    let crossings = roll_crossings(&model, 2f64.to_radians(), 20.0, 0.001);
    assert!(
        crossings.len() >= 20,
        "it oscillates: {} crossings",
        crossings.len()
    );
    let n = crossings.len() - 1;
    let t_measured = 2.0 * (crossings[n] - crossings[0]) / n as f64;
    let rel = (t_measured - t_formula).abs() / t_formula;
    assert!(
        rel < 0.02,
        "period {t_measured:.4} s vs 2π√((Ixx+K_ṗ)/(W·BG_z)) = {t_formula:.4} s ({:.2} %)",
        rel * 100.0
    );
    // The sway-roll coupling of a CG below the origin adds m z_g² Y_v̇/(m+Y_v̇)
    // (sway is free); with it the period is exact to a fraction of a percent.
    let (m, yv) = (p.mass_kg, model.added_mass[(1, 1)]);
    let i_eff = ixx + k_pdot + m * bg_z * bg_z * yv / (m + yv);
    let t_coupled = 2.0 * std::f64::consts::PI * (i_eff / (w * bg_z)).sqrt();
    let rel_c = (t_measured - t_coupled).abs() / t_coupled;
    eprintln!(
        "roll period: measured {t_measured:.5} s, formula {t_formula:.5} s ({:+.2} %), coupled {t_coupled:.5} s ({:+.3} %)",
        (t_measured / t_formula - 1.0) * 100.0,
        (t_measured / t_coupled - 1.0) * 100.0
    );
    assert!(
        rel_c < 0.001,
        "period {t_measured:.5} s vs coupled {t_coupled:.5} s ({:.3} %)",
        rel_c * 100.0
    );
}

#[test]
fn roll_offset_returns_upright_with_profile_damping() {
    let (p, model) = default_model();
    let w = p.weight();
    let model = model.with_restoring(w, w);
    let mut s = VehicleState::at_rest(Vector3::zeros(), 10f64.to_radians(), 0.0, 0.0);
    for _ in 0..2000 {
        s = model.rk4_step(&s, &Vector6::zeros(), &Vector3::zeros(), 0.01);
    }
    assert!(
        s.euler().0.abs() < 0.05 * 10f64.to_radians(),
        "roll after 20 s: {}",
        s.euler().0
    );
}

#[test]
fn the_full_munk_moment_makes_a_finless_hull_pitch_unstable() {
    // Why the torpedo profile neglects it: with the full C_A the pure-surge
    // solution diverges in pitch.
    let (p, model) = default_model();
    let w = p.weight();
    let model = model.with_restoring(w, w).with_munk_moment_neglected(false);
    let mut s = VehicleState {
        nu: Vector6::new(2.0, 0.0, 0.0, 0.0, 0.0, 0.0),
        ..VehicleState::at_rest(Vector3::zeros(), 0.0, 0.01, 0.0)
    };
    let tau = Vector6::new(12.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    for _ in 0..3000 {
        s = model.rk4_step(&s, &tau, &Vector3::zeros(), 0.01);
    }
    assert!(s.euler().1.abs() > 0.3, "pitch stayed at {}", s.euler().1);
}

#[test]
fn a_neutral_vehicle_drifts_with_the_current() {
    let (p, model) = default_model();
    let w = p.weight();
    let model = model.with_restoring(w, w);
    let current = Vector3::new(0.0, 0.5, 0.0); // 0.5 m/s toward east
    let mut s = VehicleState::default();
    for _ in 0..30_000 {
        s = model.rk4_step(&s, &Vector6::zeros(), &current, 0.01);
    }
    assert!(
        (s.velocity_ned() - current).amax() < 1e-3,
        "{}",
        s.velocity_ned()
    );
}

#[test]
fn attitude_passes_straight_up_without_gimbal_lock() {
    // BlueROV2: CG at the origin and diagonal M, so a torque-free rotation
    // about the principal y axis keeps its rate exactly.
    let p = VehicleProfile::builtin("bluerov2_heavy").unwrap();
    let model = VehicleModel::from_profile(&p)
        .with_restoring(0.0, 0.0)
        .with_damping(Vector6::zeros(), Vector6::zeros());
    // Pure pitch rate about the principal y axis: pitch goes through +90°.
    let mut s = VehicleState {
        nu: Vector6::new(0.0, 0.0, 0.0, 0.0, 0.5, 0.0),
        ..VehicleState::default()
    };
    let mut max_pitch = 0.0f64;
    for _ in 0..500 {
        s = model.rk4_step(&s, &Vector6::zeros(), &Vector3::zeros(), 0.01);
        assert!(s.nu.iter().all(|x| x.is_finite()));
        max_pitch = max_pitch.max(s.euler().1);
        assert!((s.attitude.norm() - 1.0).abs() < 1e-12);
    }
    assert!(max_pitch > 89f64.to_radians(), "reached {max_pitch}");
    // 5 s at 0.5 rad/s is 2.5 rad about body y.
    let expected = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), 2.5);
    assert!(s.attitude.angle_to(&expected) < 1e-9);
}

#[test]
fn equal_commands_on_symmetric_layouts_give_no_yaw_moment() {
    for name in VehicleProfile::builtin_names() {
        let p = VehicleProfile::builtin(name).unwrap();
        let mut bank = ThrusterBank::from_profile(&p);
        let n = bank.len();
        bank.set_commands(&vec![0.7; n]).unwrap();
        let tau = bank.step(1.0);
        assert!(tau[5].abs() < 1e-12, "{name}: yaw moment {}", tau[5]);
        let cols = bank.allocation_columns();
        let yaw: f64 = cols.iter().map(|c| c[5]).sum();
        assert!(yaw.abs() < 1e-12, "{name}: allocation rows sum to {yaw}");
    }
}
