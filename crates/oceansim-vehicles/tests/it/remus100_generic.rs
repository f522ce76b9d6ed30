//! The simulator's generic vehicle step on the shipped `remus100` profile
//! against Fossen's model ([`Remus100`], itself equal to his Python to
//! roundoff): under Fossen's integrator it follows his 10 s runs ahead to
//! 1e-9; under RK4 it stays within a documented distance of them. Astern,
//! where his hull-lift formula peaks at α = π, the generic step mirrors
//! the forward flow instead. The shipped profile is
//! `Remus100::reference().to_profile(..)`.

use nalgebra::Vector3;
use oceansim_vehicles::remus100::Remus100;
use oceansim_vehicles::{Drive, Integrator, Vehicle, VehicleProfile, VehicleState};

const DT: f64 = 0.02;
const D2R: f64 = std::f64::consts::PI / 180.0;

/// (η, ν) of the generic step from rest for `n` steps of constant `fins`,
/// in a current of `speed` m/s towards `dir_deg` (NED).
fn generic(
    profile: &VehicleProfile,
    fins: [f64; 3],
    current: (f64, f64),
    n: usize,
) -> Vec<([f64; 6], [f64; 6])> {
    let v = Vehicle::from_profile(profile);
    let mut act = v.actuators();
    let (speed, dir) = current;
    let c = Vector3::new(speed * (dir * D2R).cos(), speed * (dir * D2R).sin(), 0.0);
    let mut s = VehicleState::default();
    let mut out = Vec::with_capacity(n + 1);
    for _ in 0..=n {
        let (phi, theta, psi) = s.euler();
        let p = s.position_ned;
        let mut nu = [0.0; 6];
        nu.copy_from_slice(s.nu.as_slice());
        out.push(([p.x, p.y, p.z, phi, theta, psi], nu));
        s = v
            .step(&s, &mut act, Drive::Fins(&fins), &c, DT)
            .expect("plausible");
    }
    out
}

fn profile(integrator: Integrator) -> VehicleProfile {
    let mut p = VehicleProfile::builtin("remus100").expect("shipped");
    p.integrator = integrator;
    p
}

fn wrap(a: f64) -> f64 {
    oceansim_vehicles::fossen::ssa(a)
}

/// Largest difference over a run (position and velocity, angles wrapped).
fn distance(
    ours: &[([f64; 6], [f64; 6])],
    run: &[oceansim_vehicles::remus100::Remus100Sample],
) -> f64 {
    let mut worst = 0.0_f64;
    for ((eta, nu), s) in ours.iter().zip(run) {
        for k in 0..6 {
            let d_eta = if k >= 3 {
                wrap(eta[k] - s.eta[k])
            } else {
                eta[k] - s.eta[k]
            };
            worst = worst.max(d_eta.abs()).max((nu[k] - s.nu[k]).abs());
        }
    }
    worst
}

const CASES: [([f64; 3], (f64, f64)); 4] = [
    ([5.0 * D2R, 0.0, 1525.0], (0.0, 0.0)),
    ([-15.0 * D2R, 10.0 * D2R, 1200.0], (0.0, 0.0)),
    ([5.0 * D2R, -5.0 * D2R, 1000.0], (0.5, 30.0)),
    ([0.0, 0.0, -600.0], (0.3, -120.0)),
];

#[test]
fn the_shipped_profile_is_fossens_remus100() {
    let mut shipped = VehicleProfile::builtin("remus100").expect("shipped");
    assert!(!shipped.sensors.is_empty(), "it carries a sensor suite");
    shipped.sensors.clear();
    let generated = Remus100::reference().to_profile(Integrator::Rk4);
    if std::env::var_os("OCEANSIM_WRITE_REMUS100").is_some() {
        eprintln!("{}", generated.to_json_string());
    }
    assert_eq!(
        shipped, generated,
        "regenerate with OCEANSIM_WRITE_REMUS100=1"
    );
    let back = Remus100::from_profile(&generated).expect("its own layout");
    let reference = Remus100::reference();
    for (a, b) in [
        (back.t_surge, reference.t_surge),
        (back.zeta_roll, reference.zeta_roll),
        (back.zeta_pitch, reference.zeta_pitch),
        (back.t_yaw, reference.t_yaw),
        (back.va_over_u, reference.va_over_u),
        (back.k_prop_divisor, reference.k_prop_divisor),
        (back.m_inv[0][0], reference.m_inv[0][0]),
    ] {
        assert!((a - b).abs() <= 1e-12 * b.abs(), "{a} vs {b}");
    }
    assert!(Remus100::from_profile(&VehicleProfile::default_profile()).is_err());
}

#[test]
fn under_fossens_integrator_the_step_is_his_model_to_1e_9() {
    let p = profile(Integrator::FossenEuler);
    for (fins, current) in CASES {
        let n = 500; // 10 s
        let ours = generic(&p, fins, current, n);
        let model = Remus100::reference().with_current(current.0, current.1);
        let run = model.simulate(n, DT, |_| fins);
        let d = distance(&ours, &run);
        assert!(d < 1e-9, "{fins:?} {current:?}: {d:e}");
    }
}

#[test]
fn under_rk4_the_step_stays_near_his_model() {
    // RK4 and Fossen's first-order scheme differ by O(dt) over a run; at
    // dt = 0.02 s the 10 s runs stay within a few centimetres and mm/s.
    let p = profile(Integrator::Rk4);
    for (fins, current) in CASES {
        let n = 500;
        let ours = generic(&p, fins, current, n);
        let run = Remus100::reference()
            .with_current(current.0, current.1)
            .simulate(n, DT, |_| fins);
        let d = distance(&ours, &run);
        assert!(d < 0.05, "{fins:?} {current:?}: {d}");
    }
}

#[test]
fn mirrored_astern_flow_keeps_a_coasting_hull_from_lifting_itself() {
    // Coasting astern at 1.5 m/s with a small heave. Fossen's formulas
    // (the shipped profile, `astern: fossen`, his model exactly) take the
    // angle of attack near 180°, where his lift model is largest, and the
    // lift pushes the heave further; the default `mirrored` sees the
    // forward flow mirrored, a small angle whose lift and drag damp it.
    let coast = |astern| {
        let mut p = profile(Integrator::Rk4);
        p.hull.astern = astern;
        let v = Vehicle::from_profile(&p);
        let mut act = v.actuators();
        let mut s = VehicleState {
            nu: nalgebra::Vector6::new(-1.5, 0.0, 0.05, 0.0, 0.0, 0.0),
            ..VehicleState::default()
        };
        let mut worst = 0.0_f64;
        for _ in 0..500 {
            s = v
                .step(&s, &mut act, Drive::Idle, &Vector3::zeros(), 0.01)
                .unwrap();
            worst = worst.max(s.nu[2].abs());
        }
        worst
    };
    let fossen = coast(oceansim_vehicles::AsternFlow::Fossen);
    let mirrored = coast(oceansim_vehicles::AsternFlow::Mirrored);
    assert!(
        mirrored <= 0.05 + 1e-9,
        "mirrored: the heave only decays ({mirrored})"
    );
    assert!(
        fossen > 0.1,
        "Fossen's astern lift drives the heave up ({fossen})"
    );
}
