//! Control surfaces, propellers and the hull's lift and cross-flow drag:
//! their profile data and the forces they put on the vehicle.
//!
//! Every force here depends on the flow, so the vehicle step evaluates it
//! at each integrator stage from that stage's velocity. Conventions are
//! Fossen's (body x forward, y starboard, z down; forces in N, moments in
//! N·m about the body origin; angles in rad, shaft speeds in rpm), and the
//! formulas are those of his `remus100` model (Fossen 2021, §8.4.2; Python
//! Vehicle Simulator), generalised to surfaces and propellers anywhere on
//! the hull: a force F at r adds the moment r × F.

use crate::fossen::{cross_flow_drag, force_lift_drag};
use nalgebra::{Vector3, Vector6};
use serde::{Deserialize, Serialize};

/// Most control surfaces or propellers a profile may declare.
pub const MAX_APPENDAGES: usize = 8;

/// The water density Fossen's hull blocks are written for (kg/m³).
const FOSSEN_RHO: f64 = 1026.0;

/// The plane a control surface turns the vehicle in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinAxis {
    /// A rudder: lift along body y, from the flow in the x–y plane; turns
    /// the vehicle in yaw.
    Rudder,
    /// A stern plane (elevator): lift along body z, from the flow in the
    /// x–z plane; turns the vehicle in pitch.
    SternPlane,
}

/// A control surface of a profile (a rudder or a pair of stern planes
/// acting as one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FinProfile {
    /// Name, e.g. `rudder`.
    pub name: String,
    /// `rudder` or `stern_plane`.
    pub axis: FinAxis,
    /// Centre of pressure (m), Fossen body frame.
    pub position_m: [f64; 3],
    /// Planform area (m²), all panels that move together.
    pub area_m2: f64,
    /// Lift slope C_Lδ (1/rad): lift L = ½ ρ U² A C_Lδ δ.
    pub lift_slope_per_rad: f64,
    /// Largest deflection |δ| (rad).
    pub max_angle_rad: f64,
    /// Time constant of the servo's first-order lag (s), > 0.
    pub time_constant_s: f64,
}

/// Which speed sets a propeller's advance speed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AdvanceSpeed {
    /// The speed through the water |ν_r| (physical; the default).
    #[default]
    Water,
    /// The vehicle's own speed |ν₁|, as Fossen's remus100 computes it.
    Vehicle,
}

fn default_shaft() -> [f64; 3] {
    [1.0, 0.0, 0.0]
}
fn one() -> f64 {
    1.0
}

/// A propeller of a profile, with thrust and torque coefficients linear
/// in the advance ratio J = V_a / (n D):
/// K_T(J) = K_T0 + (K_T,max − K_T0) J / J_max (likewise K_Q), thrust
/// T = ρ D⁴ K_T n|n|, torque Q = ρ D⁵ K_Q n|n| (n in rev/s). Astern
/// (n ≤ 0) only the bollard coefficients act.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PropellerProfile {
    /// Name, e.g. `propeller`.
    pub name: String,
    /// Position of the hub (m), Fossen body frame.
    pub position_m: [f64; 3],
    /// Thrust direction at positive rpm, body frame (normalised on load);
    /// default forward `[1, 0, 0]`.
    #[serde(default = "default_shaft")]
    pub direction: [f64; 3],
    /// Diameter D (m).
    pub diameter_m: f64,
    /// Largest shaft speed ahead (rpm), > 0.
    pub max_rpm: f64,
    /// Largest shaft speed astern as a magnitude (rpm); `max_rpm` when
    /// omitted, 0 for a propeller that only turns ahead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_reverse_rpm: Option<f64>,
    /// Time constant of the shaft speed's first-order lag (s), > 0.
    pub time_constant_s: f64,
    /// K_T at J = 0.
    pub kt_0: f64,
    /// K_T at J = `ja_max`.
    pub kt_ja_max: f64,
    /// K_Q at J = 0.
    pub kq_0: f64,
    /// K_Q at J = `ja_max`.
    pub kq_ja_max: f64,
    /// The advance ratio the coefficients' line is fitted to, > 0.
    pub ja_max: f64,
    /// Wake fraction w: V_a = (1 − w) U; in [0, 1).
    #[serde(default)]
    pub wake_fraction: f64,
    /// Thrust deduction t: the hull feels (1 − t) T; in [0, 1).
    #[serde(default)]
    pub thrust_deduction: f64,
    /// Share of the shaft torque Q that reaches the hull as a moment about
    /// the shaft (the rest is balanced by a counter-rotating part or the
    /// fins); default 1. Fossen's remus100 uses 0.1.
    #[serde(default = "one")]
    pub torque_factor: f64,
    /// Which speed sets V_a; default `water`.
    #[serde(default)]
    pub advance_speed: AdvanceSpeed,
}

/// Bounds `[low, high]` of each value of a `fins` command: ±the angle
/// limit (rad) per surface, then the shaft speed range (rpm) per propeller.
pub fn fin_bounds(fins: &[FinProfile], props: &[PropellerProfile]) -> Vec<[f64; 2]> {
    fins.iter()
        .map(|f| [-f.max_angle_rad, f.max_angle_rad])
        .chain(props.iter().map(PropellerProfile::rpm_bounds))
        .collect()
}

impl PropellerProfile {
    /// Shaft speed range [low, high] (rpm).
    pub fn rpm_bounds(&self) -> [f64; 2] {
        [-self.max_reverse_rpm.unwrap_or(self.max_rpm), self.max_rpm]
    }
}

/// Lift and drag of the hull at an angle of attack (Fossen's
/// `forceLiftDrag`, Beard and McLain's flat-plate model).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HullLiftDrag {
    /// Hull diameter, the "span" of the lift model (m).
    pub diameter_m: f64,
    /// Reference area S (m²).
    pub area_m2: f64,
    /// Parasitic drag coefficient C_D0 at zero lift.
    pub cd_0: f64,
}

/// Cross-flow drag of a slender hull by strip theory (Fossen's
/// `crossFlowDrag`, Hoerner's 2-D coefficients).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HullCrossFlow {
    /// Length L (m).
    pub length_m: f64,
    /// Beam B (m).
    pub beam_m: f64,
    /// Draft T (m).
    pub draft_m: f64,
}

/// How the hull's lift and the fins meet a flow from behind (u_r < 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AsternFlow {
    /// The forward flow's forces mirrored in x: drag opposes the motion,
    /// a fore-aft symmetric hull backs up level (the default).
    #[default]
    Mirrored,
    /// Fossen's formulas as they are in every regime: the hull's angle of
    /// attack atan2(w, u) nears ±180° astern, where his lift model gives
    /// its largest lift; fin drag always points aft. What his remus100
    /// computes, kept so the `remus100` profile is his model exactly.
    Fossen,
}

impl AsternFlow {
    fn is_default(&self) -> bool {
        *self == AsternFlow::Mirrored
    }
}

/// Flow-dependent hull forces beyond the diagonal damping.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HullTerms {
    /// Hull lift and drag at the angle of attack α = atan2(w_r, u_r).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lift_drag: Option<HullLiftDrag>,
    /// Cross-flow drag in sway and its yaw moment (Fossen's strips).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_flow: Option<HullCrossFlow>,
    /// Per degree of freedom, k (s/m) in d_lin · exp(−k U_r): linear
    /// damping that fades as the speed through the water U_r grows, where
    /// lift and quadratic drag take over (Fossen's remus100: 3 in surge
    /// and sway). Default none.
    #[serde(default, skip_serializing_if = "is_zero6")]
    pub linear_damping_fade_s_per_m: [f64; 6],
    /// How hull lift and fins meet a flow from behind; default `mirrored`.
    #[serde(default, skip_serializing_if = "AsternFlow::is_default")]
    pub astern: AsternFlow,
}

fn is_zero6(v: &[f64; 6]) -> bool {
    v.iter().all(|x| *x == 0.0)
}

/// One control surface, ready to compute forces.
#[derive(Debug, Clone, PartialEq)]
pub struct Fin {
    /// Profile data.
    pub profile: FinProfile,
    position: Vector3<f64>,
}

impl Fin {
    /// From its profile entry.
    pub fn new(p: &FinProfile) -> Self {
        Fin {
            position: Vector3::from(p.position_m),
            profile: p.clone(),
        }
    }

    /// The wrench of the surface at deflection `angle_rad` in the relative
    /// flow `nu_r` (body, m/s) and water density `rho`: lift
    /// −½ρU²A C_Lδ δ along the surface's axis and induced drag
    /// −½ρU²A C_Lδ δ² along x (Fossen's remus100), U the flow speed in the
    /// surface's plane; the moment r × F. Going astern (u_r < 0) the flow
    /// meets the surface from behind: lift and drag change sign with it, so
    /// the drag still opposes the motion (Fossen's formulas hold ahead),
    /// unless `astern` keeps Fossen's formulas there too.
    pub fn wrench(
        &self,
        angle_rad: f64,
        nu_r: &Vector6<f64>,
        rho: f64,
        astern: AsternFlow,
    ) -> Vector6<f64> {
        let p = &self.profile;
        let across = match p.axis {
            FinAxis::Rudder => nu_r[1],
            FinAxis::SternPlane => nu_r[2],
        };
        let u2 = nu_r[0] * nu_r[0] + across * across;
        let mut k = -0.5 * rho * u2 * p.area_m2 * p.lift_slope_per_rad;
        if nu_r[0] < 0.0 && astern == AsternFlow::Mirrored {
            k = -k;
        }
        let drag = k * angle_rad * angle_rad;
        let lift = k * angle_rad;
        let f = match p.axis {
            FinAxis::Rudder => Vector3::new(drag, lift, 0.0),
            FinAxis::SternPlane => Vector3::new(drag, 0.0, lift),
        };
        let m = self.position.cross(&f);
        Vector6::new(f.x, f.y, f.z, m.x, m.y, m.z)
    }
}

/// One propeller, ready to compute forces.
#[derive(Debug, Clone, PartialEq)]
pub struct Propeller {
    /// Profile data.
    pub profile: PropellerProfile,
    position: Vector3<f64>,
    direction: Vector3<f64>,
}

impl Propeller {
    /// From its profile entry (a validated, non-zero direction).
    pub fn new(p: &PropellerProfile) -> Self {
        let d = Vector3::from(p.direction);
        Propeller {
            position: Vector3::from(p.position_m),
            direction: d / d.norm().max(f64::MIN_POSITIVE),
            profile: p.clone(),
        }
    }

    /// Thrust T and shaft torque Q (N, N·m) at `rpm` for the speeds `u`
    /// (the vehicle's, m/s) and `u_r` (through the water).
    pub fn thrust_torque(&self, rpm: f64, u: f64, u_r: f64, rho: f64) -> (f64, f64) {
        let p = &self.profile;
        let n = rpm / 60.0;
        let d = p.diameter_m;
        let speed = match p.advance_speed {
            AdvanceSpeed::Water => u_r,
            AdvanceSpeed::Vehicle => u,
        };
        let va = (1.0 - p.wake_fraction) * speed;
        if n > 0.0 {
            let t = rho
                * d.powi(4)
                * (p.kt_0 * n.abs() * n + (p.kt_ja_max - p.kt_0) / p.ja_max * (va / d) * n.abs());
            let q = rho
                * d.powi(5)
                * (p.kq_0 * n.abs() * n + (p.kq_ja_max - p.kq_0) / p.ja_max * (va / d) * n.abs());
            (t, q)
        } else {
            (
                rho * d.powi(4) * p.kt_0 * n.abs() * n,
                rho * d.powi(5) * p.kq_0 * n.abs() * n,
            )
        }
    }

    /// The wrench on the hull at `rpm`: (1 − t) T along the shaft at the
    /// hub (moment r × F) plus `torque_factor` · Q about the shaft.
    pub fn wrench(&self, rpm: f64, u: f64, u_r: f64, rho: f64) -> Vector6<f64> {
        let (t, q) = self.thrust_torque(rpm, u, u_r, rho);
        let f = self.direction * ((1.0 - self.profile.thrust_deduction) * t);
        let m = self.position.cross(&f) + self.direction * (q * self.profile.torque_factor);
        Vector6::new(f.x, f.y, f.z, m.x, m.y, m.z)
    }
}

impl HullTerms {
    /// The hull's lift/drag and cross-flow wrench in the relative flow
    /// `nu_r` in water of density `rho` (zero for terms the profile leaves
    /// out). Fossen's blocks assume ρ = 1026 kg/m³; the wrench scales with
    /// the profile's density (exactly his at 1026).
    pub fn wrench(&self, nu_r: &Vector6<f64>, rho: f64) -> Vector6<f64> {
        let mut out = Vector6::zeros();
        if let Some(h) = &self.lift_drag {
            // Astern the flow meets the (fore-aft symmetric) hull from behind:
            // the forward flow's forces, mirrored in x. Fossen's formula
            // taken at α = atan2(w, u) near ±π would give its largest lift
            // where a slender hull has none.
            let astern = nu_r[0] < 0.0 && self.astern == AsternFlow::Mirrored;
            let u = if astern { -nu_r[0] } else { nu_r[0] };
            let alpha = nu_r[2].atan2(u);
            let u_r = (u * u + nu_r[1] * nu_r[1] + nu_r[2] * nu_r[2]).sqrt();
            let mut f = force_lift_drag(h.diameter_m, h.area_m2, h.cd_0, alpha, u_r);
            if astern {
                f[0] = -f[0];
            }
            out += Vector6::from(f);
        }
        if let Some(c) = &self.cross_flow {
            let mut v = [0.0; 6];
            v.copy_from_slice(nu_r.as_slice());
            out += Vector6::from(cross_flow_drag(c.length_m, c.beam_m, c.draft_m, &v));
        }
        if rho != FOSSEN_RHO {
            out *= rho / FOSSEN_RHO;
        }
        out
    }

    /// Per degree of freedom, the quadratic-damping coefficient the hull
    /// terms add at small angles (kg/m, kg·m²): ½ρ S C_D0 in surge from the
    /// hull drag, ½ρ T C_D,2D L in sway and ½ρ T C_D,2D L⁴/32 in yaw from
    /// the cross-flow strips. For stiffness estimates, not the dynamics.
    pub fn quadratic_equivalent(&self, rho: f64) -> [f64; 6] {
        let mut d = [0.0; 6];
        if let Some(h) = &self.lift_drag {
            d[0] = 0.5 * rho * h.area_m2 * h.cd_0;
        }
        if let Some(c) = &self.cross_flow {
            let k = 0.5 * rho * c.draft_m * crate::fossen::hoerner(c.beam_m, c.draft_m);
            // Fossen's strips span 21/20 of the length.
            d[1] = k * c.length_m * 1.05;
            d[5] = k * c.length_m.powi(4) / 32.0 * 1.05;
        }
        d
    }

    /// Whether any term is present.
    pub fn is_empty(&self) -> bool {
        self.lift_drag.is_none()
            && self.cross_flow.is_none()
            && is_zero6(&self.linear_damping_fade_s_per_m)
            && self.astern.is_default()
    }
}

/// Checks the appendages of a profile; `bad` collects problems by path.
pub(crate) fn check(
    fins: &[FinProfile],
    props: &[PropellerProfile],
    hull: &HullTerms,
    bad: &mut impl FnMut(&str, String),
) {
    let pos = |x: f64| x.is_finite() && x > 0.0;
    let unit = |x: f64| x.is_finite() && (0.0..1.0).contains(&x);
    let finite3 = |v: &[f64; 3]| v.iter().all(|x| x.is_finite());
    for (what, n) in [
        ("control_surfaces", fins.len()),
        ("propellers", props.len()),
    ] {
        if n > MAX_APPENDAGES {
            bad(what, format!("{n} entries; the limit is {MAX_APPENDAGES}"));
        }
    }
    let mut names = std::collections::BTreeSet::new();
    for (i, f) in fins.iter().enumerate() {
        let at = |k: &str| format!("control_surfaces[{i}].{k}");
        if f.name.trim().is_empty() || !names.insert(f.name.clone()) {
            bad(
                &at("name"),
                format!("must be non-empty and unique, got `{}`", f.name),
            );
        }
        if !finite3(&f.position_m) {
            bad(&at("position_m"), "must be finite".into());
        }
        for (k, x) in [
            ("area_m2", f.area_m2),
            ("lift_slope_per_rad", f.lift_slope_per_rad),
            ("time_constant_s", f.time_constant_s),
        ] {
            if !pos(x) {
                bad(&at(k), format!("must be positive, got {x}"));
            }
        }
        if !(pos(f.max_angle_rad) && f.max_angle_rad <= std::f64::consts::FRAC_PI_2) {
            bad(
                &at("max_angle_rad"),
                format!("must be in (0, pi/2], got {}", f.max_angle_rad),
            );
        }
    }
    for (i, p) in props.iter().enumerate() {
        let at = |k: &str| format!("propellers[{i}].{k}");
        if p.name.trim().is_empty() || !names.insert(p.name.clone()) {
            bad(
                &at("name"),
                format!("must be non-empty and unique, got `{}`", p.name),
            );
        }
        if !finite3(&p.position_m) {
            bad(&at("position_m"), "must be finite".into());
        }
        if !(finite3(&p.direction) && Vector3::from(p.direction).norm() > 1e-9) {
            bad(&at("direction"), "must be a non-zero vector".into());
        }
        for (k, x) in [
            ("diameter_m", p.diameter_m),
            ("max_rpm", p.max_rpm),
            ("time_constant_s", p.time_constant_s),
            ("ja_max", p.ja_max),
        ] {
            if !pos(x) {
                bad(&at(k), format!("must be positive, got {x}"));
            }
        }
        if let Some(r) = p.max_reverse_rpm {
            if !(r.is_finite() && r >= 0.0) {
                bad(&at("max_reverse_rpm"), format!("must be >= 0, got {r}"));
            }
        }
        for (k, x) in [
            ("kt_0", p.kt_0),
            ("kt_ja_max", p.kt_ja_max),
            ("kq_0", p.kq_0),
            ("kq_ja_max", p.kq_ja_max),
        ] {
            if !(x.is_finite() && x >= 0.0) {
                bad(&at(k), format!("must be >= 0, got {x}"));
            }
        }
        for (k, x) in [
            ("wake_fraction", p.wake_fraction),
            ("thrust_deduction", p.thrust_deduction),
        ] {
            if !unit(x) {
                bad(&at(k), format!("must be in [0, 1), got {x}"));
            }
        }
        if !(p.torque_factor.is_finite() && (0.0..=1.0).contains(&p.torque_factor)) {
            bad(
                &at("torque_factor"),
                format!("must be in [0, 1], got {}", p.torque_factor),
            );
        }
    }
    if let Some(h) = &hull.lift_drag {
        for (k, x) in [("diameter_m", h.diameter_m), ("area_m2", h.area_m2)] {
            if !pos(x) {
                bad(
                    &format!("hull.lift_drag.{k}"),
                    format!("must be positive, got {x}"),
                );
            }
        }
        if !(h.cd_0.is_finite() && h.cd_0 >= 0.0) {
            bad(
                "hull.lift_drag.cd_0",
                format!("must be >= 0, got {}", h.cd_0),
            );
        }
    }
    if let Some(c) = &hull.cross_flow {
        for (k, x) in [
            ("length_m", c.length_m),
            ("beam_m", c.beam_m),
            ("draft_m", c.draft_m),
        ] {
            if !pos(x) {
                bad(
                    &format!("hull.cross_flow.{k}"),
                    format!("must be positive, got {x}"),
                );
            }
        }
    }
    for (i, k) in hull.linear_damping_fade_s_per_m.iter().enumerate() {
        if !(k.is_finite() && *k >= 0.0) {
            bad(
                &format!("hull.linear_damping_fade_s_per_m[{i}]"),
                format!("must be >= 0, got {k}"),
            );
        }
    }
}
