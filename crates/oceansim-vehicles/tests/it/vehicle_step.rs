//! The one vehicle step against physics: steady speeds and time constants
//! from the BlueROV2 Heavy's published parameters, energy that never grows
//! unpowered, mirror-symmetric turns, and what the thrusters can give.

use nalgebra::{Vector3, Vector6};
use oceansim_vehicles::{Drive, Integrator, Vehicle, VehicleProfile, VehicleState};

const DT: f64 = 0.01;

fn vehicle(name: &str) -> Vehicle {
    Vehicle::from_profile(&VehicleProfile::builtin(name).expect("shipped"))
}

/// The BlueROV2 made neutral (W = B), so the vertical is not a drift.
fn neutral_rov() -> (VehicleProfile, Vehicle) {
    let p = VehicleProfile::builtin("bluerov2_heavy").unwrap();
    let mut v = Vehicle::from_profile(&p);
    v.model = v.model.clone().with_restoring(p.weight(), p.weight());
    (p, v)
}

#[test]
fn bluerov2_surges_at_the_speed_its_thrust_and_damping_give() {
    let (p, v) = neutral_rov();
    // The four vectored horizontal thrusters at half ahead give pure surge
    // force (and a pitch moment: they sit 8.5 cm below the CG).
    let mut act = v.actuators();
    let cmd = [0.5, 0.5, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0];
    let rest = VehicleState::default();
    // (held at rest: the thrusters' rate limit takes a few ticks)
    for _ in 0..100 {
        v.step(
            &rest,
            &mut act,
            Drive::Thrusters(&cmd),
            &Vector3::zeros(),
            DT,
        );
    }
    let x = act.wrench[0];
    let expect_x = 4.0 * 0.5 * 51.5 * std::f64::consts::FRAC_1_SQRT_2;
    assert!(
        (x - expect_x).abs() < 1e-9,
        "surge thrust {x} vs {expect_x}"
    );
    assert!(
        act.wrench[1].abs() < 1e-9 && act.wrench[5].abs() < 1e-9,
        "{}",
        act.wrench
    );
    // That thrust at the CO: X = d_lin u + d_quad u², the parameters of von
    // Benzon et al. (2022), Table A1.
    let tau = Vector6::new(x, 0.0, 0.0, 0.0, 0.0, 0.0);
    let mut act = v.actuators();
    let mut s = rest;
    for _ in 0..3_000 {
        s = v
            .step(&s, &mut act, Drive::Wrench(tau), &Vector3::zeros(), DT)
            .unwrap();
    }
    let (d1, d2) = (p.linear_damping[0], p.quadratic_damping[0]);
    let u_star = (-d1 + (d1 * d1 + 4.0 * d2 * x).sqrt()) / (2.0 * d2);
    assert!(
        (s.nu[0] - u_star).abs() < 1e-6 * u_star,
        "u = {} vs {u_star}",
        s.nu[0]
    );
    assert!(
        s.nu.fixed_rows::<5>(1).amax() < 1e-9,
        "pure surge: {}",
        s.nu
    );
}

/// The e-folding time of ν_k after a step of `force` along axis `k` from
/// rest (s), interpolated between ticks.
fn time_constant(v: &Vehicle, k: usize, force: f64) -> f64 {
    let mut act = v.actuators();
    let mut tau = Vector6::zeros();
    tau[k] = force;
    let mut s = VehicleState::default();
    let mut trace = Vec::new();
    for _ in 0..2_000 {
        s = v
            .step(&s, &mut act, Drive::Wrench(tau), &Vector3::zeros(), DT)
            .unwrap();
        trace.push(s.nu[k]);
    }
    let last = *trace.last().unwrap();
    let target = (1.0 - (-1.0f64).exp()) * last;
    let i = trace.iter().position(|x| *x >= target).unwrap();
    let (a, b) = (if i == 0 { 0.0 } else { trace[i - 1] }, trace[i]);
    DT * (i as f64 + (target - a) / (b - a))
}

#[test]
fn bluerov2_surge_and_heave_time_constants_are_mass_over_damping() {
    // Near rest the linear damping dominates: T = (m + added mass) / d_lin.
    // A 1 mN push keeps the quadratic term below 0.1 % of it.
    let (p, v) = neutral_rov();
    let ma = p.added_mass_matrix();
    for (k, what) in [(0, "surge"), (2, "heave")] {
        let t = time_constant(&v, k, 1e-3);
        let m = p.mass_kg + ma[(k, k)];
        let want = m / p.linear_damping[k];
        assert!(
            (t - want).abs() < 0.01 * want,
            "{what}: T = {t} s vs (m + m_a)/d = {want} s"
        );
    }
}

/// ½ νᵀ M ν plus the potential energy of weight and buoyancy (NED, z
/// down): V = −W z_G + B z_B.
fn energy(v: &Vehicle, s: &VehicleState) -> f64 {
    let m = &v.model;
    let zg = s.position_ned.z + (s.attitude * m.r_g).z;
    let zb = s.position_ned.z + (s.attitude * m.r_b).z;
    m.kinetic_energy(&s.nu) - m.weight_n * zg + m.buoyancy_n * zb
}

#[test]
fn unpowered_in_still_water_the_energy_never_grows() {
    for (name, integrator) in [
        ("remus100", Integrator::Rk4),
        ("remus100", Integrator::FossenEuler),
        ("oceansim_torpedo_auv", Integrator::Rk4),
        ("bluerov2_heavy", Integrator::Rk4),
    ] {
        let mut p = VehicleProfile::builtin(name).unwrap();
        p.integrator = integrator;
        let v = Vehicle::from_profile(&p);
        let mut act = v.actuators();
        let mut s = VehicleState {
            nu: Vector6::new(1.5, 0.3, -0.2, 0.2, -0.1, 0.15),
            ..VehicleState::at_rest(Vector3::new(0.0, 0.0, 20.0), 0.2, -0.15, 0.4)
        };
        let mut e = energy(&v, &s);
        let scale = e.abs().max(1.0);
        for k in 0..3_000 {
            s = v
                .step(&s, &mut act, Drive::Idle, &Vector3::zeros(), DT)
                .unwrap();
            let next = energy(&v, &s);
            assert!(
                next <= e + 1e-9 * scale,
                "{name} {integrator:?} step {k}: energy {e} -> {next}"
            );
            e = next;
        }
    }
}

#[test]
fn remus100_turns_port_and_starboard_as_mirror_images() {
    // Without the propeller's roll torque the model is mirror-symmetric:
    // y, v, p, r, φ and ψ change sign, the rest is equal.
    let mut p = VehicleProfile::builtin("remus100").unwrap();
    p.propellers[0].torque_factor = 0.0;
    let v = Vehicle::from_profile(&p);
    let run = |rudder: f64| {
        let mut act = v.actuators();
        let mut s = VehicleState::default();
        for _ in 0..6_000 {
            s = v
                .step(
                    &s,
                    &mut act,
                    Drive::Fins(&[rudder, 0.0, 1500.0]),
                    &Vector3::zeros(),
                    DT,
                )
                .unwrap();
        }
        s
    };
    let (a, b) = (run(0.1), run(-0.1));
    let (ea, eb) = (a.eta(), b.eta());
    for (k, sign) in [1.0, -1.0, 1.0, -1.0, 1.0, -1.0].iter().enumerate() {
        assert!(
            (ea[k] - sign * eb[k]).abs() < 1e-9 * ea[k].abs().max(1.0),
            "η[{k}]: {ea} {eb}"
        );
    }
    for (k, sign) in [1.0, -1.0, 1.0, -1.0, 1.0, -1.0].iter().enumerate() {
        assert!(
            (a.nu[k] - sign * b.nu[k]).abs() < 1e-9,
            "ν[{k}]: {} {}",
            a.nu,
            b.nu
        );
    }
    assert!(
        a.nu[5] > 0.05,
        "a positive rudder turns to starboard: {}",
        a.nu
    );
}

#[test]
fn a_wrench_is_cut_to_what_the_thrusters_give() {
    let v = vehicle("oceansim_torpedo_auv");
    // Surge: the two stern thrusters, 6 N each ahead, 4 N astern.
    let (w, cut) = v.achievable_wrench(&Vector6::new(100.0, 0.0, 0.0, 0.0, 0.0, 0.0));
    assert!(
        cut && (w[0] - 12.0).abs() < 1e-9 && w.fixed_rows::<5>(1).amax() < 1e-9,
        "{w}"
    );
    let (w, _) = v.achievable_wrench(&Vector6::new(-100.0, 0.0, 0.0, 0.0, 0.0, 0.0));
    assert!((w[0] + 8.0).abs() < 1e-9, "{w}");
    // Roll: no thruster makes any.
    let (w, cut) = v.achievable_wrench(&Vector6::new(0.0, 0.0, 0.0, 5.0, 0.0, 0.0));
    assert!(cut && w.amax() < 1e-9, "{w}");
    // Within reach: returned as asked, to the bit.
    let small = Vector6::new(3.0, 1.0, -2.0, 0.0, 0.3, 0.2);
    assert_eq!(v.achievable_wrench(&small), (small, false));
    // Each thruster saturates on its own: surge from the stern pair, sway
    // from the lateral pair, heave untouched by either.
    let big = Vector6::new(60.0, 20.0, -4.0, 0.0, 0.0, 0.0);
    let (w, _) = v.achievable_wrench(&big);
    assert!(
        (w[0] - 12.0).abs() < 1e-9 && (w[1] - 8.0).abs() < 1e-9 && (w[2] + 4.0).abs() < 1e-9,
        "{w}"
    );
    let cap = v.axis_capacity();
    assert!((cap[0] - 8.0).abs() < 1e-9 && cap[3] == 0.0, "{cap:?}");
    // No thrusters: the limits alone.
    let remus = vehicle("remus100");
    let (w, cut) = remus.achievable_wrench(&big);
    assert_eq!((w, cut), (big, false));
}

#[test]
fn fin_commands_are_clipped_to_the_profile() {
    let v = vehicle("remus100");
    assert_eq!(v.fin_names(), ["rudder", "stern_plane", "propeller"]);
    let (f, cut) = v.clamp_fins(&[1.0, -1.0, 5000.0]).unwrap();
    let max = 15f64.to_radians();
    assert!(cut);
    assert!((f[0] - max).abs() < 1e-15 && (f[1] + max).abs() < 1e-15 && f[2] == 1525.0);
    assert_eq!(v.clamp_fins(&[0.0, 0.0]), None, "wrong length");
    assert_eq!(v.clamp_fins(&[f64::NAN, 0.0, 0.0]), None, "not finite");
    // The servo lags: T = 0.1 s, so after one 0.01 s tick a tenth of the way.
    let mut act = v.actuators();
    let s = VehicleState::default();
    v.step(
        &s,
        &mut act,
        Drive::Fins(&[0.2, 0.0, 0.0]),
        &Vector3::zeros(),
        DT,
    );
    assert!(
        (act.fin_angles_rad[0] - 0.02).abs() < 1e-15,
        "{:?}",
        act.fin_angles_rad
    );
    assert_eq!(act.fin_commands_rad[0], 0.2);
}
