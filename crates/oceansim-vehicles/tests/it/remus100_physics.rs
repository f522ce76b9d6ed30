//! Physical checks on Fossen's REMUS 100 under his integration (forward
//! Euler on ν and the actuators, then the kinematics with the new ν, dt =
//! 0.02 s): speed, turning, symmetry and energy. The figures Fossen's own
//! Python gives (the `steady` block of the reference JSON, written by
//! `tools/fossen/generate_vectors.py`) are checked as well as the nominal
//! ones: 2.55 m/s at 1525 rpm; 0.063 rad/s and an 81 m circle at 5° rudder;
//! 37 m at 15°.

use oceansim_vehicles::remus100::{Remus100, Remus100Sample};

use super::remus100_reference::reference;

const DT: f64 = 0.02;
const D2R: f64 = std::f64::consts::PI / 180.0;

/// Steady figures of a constant-command run of `t_end` s, as the generator
/// measures them: final u and r, and the mean of the x and y extents over
/// the last 150 s (several laps of a settled circle).
struct Steady {
    u: f64,
    r: f64,
    diameter: f64,
}

fn steady(v: &Remus100, u_control: [f64; 3], t_end: f64) -> (Steady, Vec<Remus100Sample>) {
    let n = (t_end / DT).round() as usize;
    let run = v.simulate(n, DT, |_| u_control);
    let tail: Vec<_> = run.iter().filter(|s| s.t >= t_end - 150.0).collect();
    let extent = |k: usize| {
        let (lo, hi) = tail.iter().fold((f64::MAX, f64::MIN), |(lo, hi), s| {
            (lo.min(s.eta[k]), hi.max(s.eta[k]))
        });
        hi - lo
    };
    let last = run.last().expect("records");
    let s = Steady {
        u: last.nu[0],
        r: last.nu[5],
        diameter: 0.5 * (extent(0) + extent(1)),
    };
    eprintln!(
        "{u_control:?} for {t_end} s: u {} m/s, r {} rad/s, D {} m",
        s.u, s.r, s.diameter
    );
    (s, run)
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

fn fossen(name: &str, key: &str) -> f64 {
    reference()["steady"][name][key]
        .as_f64()
        .expect("steady figure")
}

#[test]
fn full_rpm_straight_ahead_settles_at_2_55_m_s() {
    let (s, run) = steady(&Remus100::reference(), [0.0, 0.0, 1525.0], 200.0);
    let ours = fossen("straight_rpm1525", "u");
    // Fossen's code: 2.5536 m/s at 200 s.
    assert!(rel(s.u, ours) < 1e-9, "u = {} vs Fossen {ours}", s.u);
    assert!(rel(s.u, 2.55) < 0.01, "u = {} m/s", s.u);
    // Settled: the last 20 s change u by less than 1 mm/s.
    let earlier = run[run.len() - 1001].nu[0];
    assert!((s.u - earlier).abs() < 1e-3, "{earlier} → {}", s.u);
    assert!(s.r.abs() < 1e-12, "no yaw without rudder: {}", s.r);
}

#[test]
fn five_degree_rudder_turns_a_81_m_circle() {
    let (s, _) = steady(&Remus100::reference(), [5.0 * D2R, 0.0, 1525.0], 400.0);
    // Fossen's code: r = 0.06300 rad/s, D = 80.73 m.
    let (r_f, d_f) = (
        fossen("rudder5_rpm1525", "r"),
        fossen("rudder5_rpm1525", "diameter"),
    );
    assert!(rel(s.r, r_f) < 1e-9, "r {} vs Fossen {r_f}", s.r);
    assert!(
        rel(s.diameter, d_f) < 1e-9,
        "D {} vs Fossen {d_f}",
        s.diameter
    );
    assert!(rel(s.r, 0.063) < 0.03, "r = {} rad/s", s.r);
    assert!(rel(s.diameter, 81.0) < 0.03, "D = {} m", s.diameter);
    // A circle of speed U and rate r has diameter 2U/r.
    let u_total = 2.0 * s.u / s.r;
    assert!(
        rel(s.diameter, u_total) < 0.01,
        "{} vs 2U/r {u_total}",
        s.diameter
    );
}

#[test]
fn fifteen_degree_rudder_turns_a_37_m_circle() {
    let (s, _) = steady(&Remus100::reference(), [15.0 * D2R, 0.0, 1525.0], 400.0);
    // Fossen's code: D = 36.92 m, r = 0.1356 rad/s.
    let d_f = fossen("rudder15_rpm1525", "diameter");
    assert!(
        rel(s.diameter, d_f) < 1e-9,
        "D {} vs Fossen {d_f}",
        s.diameter
    );
    assert!(rel(s.diameter, 37.0) < 0.03, "D = {} m", s.diameter);
}

/// The mirror image in the x–z plane: y, v, φ, p, ψ, r flip sign.
fn mirror_error(a: &[Remus100Sample], b: &[Remus100Sample]) -> f64 {
    const FLIP: [f64; 6] = [1.0, -1.0, 1.0, -1.0, 1.0, -1.0];
    let mut worst = 0.0_f64;
    for (s, m) in a.iter().zip(b) {
        for (k, flip) in FLIP.iter().enumerate() {
            let scale_eta = s.eta[k].abs().max(1.0);
            let scale_nu = s.nu[k].abs().max(1.0);
            worst = worst.max((s.eta[k] - flip * m.eta[k]).abs() / scale_eta);
            worst = worst.max((s.nu[k] - flip * m.nu[k]).abs() / scale_nu);
        }
    }
    worst
}

#[test]
fn port_and_starboard_turns_are_mirror_images() {
    // Without the propeller's roll moment the model is exactly symmetric.
    let mut v = Remus100::reference();
    v.propeller_roll_moment = false;
    let stbd = v.simulate(5000, DT, |_| [5.0 * D2R, -3.0 * D2R, 1525.0]);
    let port = v.simulate(5000, DT, |_| [-5.0 * D2R, -3.0 * D2R, 1525.0]);
    let e = mirror_error(&stbd, &port);
    assert!(e < 1e-12, "mirror error {e:e}");
    assert!(stbd[5000].nu[5] > 0.01, "rudder +5° turns to starboard");

    // Fossen's propeller torque (K_prop / 10) rolls the hull ~1° either way,
    // so with it the circles differ slightly: Fossen's code gives 80.727 m
    // and 80.775 m.
    let v = Remus100::reference();
    let (s, _) = steady(&v, [5.0 * D2R, 0.0, 1525.0], 400.0);
    let (p, _) = steady(&v, [-5.0 * D2R, 0.0, 1525.0], 400.0);
    let d_f = fossen("rudder_minus5_rpm1525", "diameter");
    assert!(
        rel(p.diameter, d_f) < 1e-9,
        "D {} vs Fossen {d_f}",
        p.diameter
    );
    assert!(
        rel(s.diameter, p.diameter) < 0.002,
        "{} vs {}",
        s.diameter,
        p.diameter
    );
    assert!(rel(s.r, -p.r) < 0.002, "{} vs {}", s.r, p.r);
}

#[test]
fn unpowered_kinetic_energy_never_grows() {
    let v = Remus100::reference();
    for nu0 in [
        [2.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [2.0, 0.3, -0.2, 0.0, 0.0, 0.3],
        [1.5, -0.4, 0.3, 0.2, -0.1, -0.5],
        [-1.0, 0.5, 0.5, 0.0, 0.0, 0.0],
    ] {
        let run = v.simulate_from(&nu0, &[0.0; 3], 5000, DT, |_| [0.0; 3]);
        let mut last = v.energy(&nu0);
        for s in &run[1..] {
            let e = v.energy(&s.nu);
            assert!(
                e <= last * (1.0 + 1e-9),
                "from {nu0:?}: energy {last} → {e} J at t = {}",
                s.t
            );
            last = e;
        }
        assert!(last < 0.05 * v.energy(&nu0), "{nu0:?}: {last} J left");
    }
}
