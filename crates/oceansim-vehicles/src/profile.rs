//! Vehicle profiles: the versioned JSON description of a vehicle.
//!
//! All quantities are SI and named with their unit (`mass_kg`, `r_g_m`, ...).
//! Positions and directions are in the Fossen body frame (x forward,
//! y starboard, z down) about the body origin (CO). Damping coefficients are
//! positive numbers: D(ν) = diag(linear_damping) + diag(quadratic_damping ⊙ |ν|),
//! i.e. `linear_damping[0]` = -X_u. Added mass is given as positive
//! numbers too: the 6 diagonal terms [-X_u̇, -Y_v̇, -Z_ẇ, -K_ṗ, -M_q̇, -N_ṙ]
//! or a full 6×6 M_A.

use crate::appendages::{FinProfile, HullTerms, PropellerProfile};
use crate::error::{Problem, Result, VehicleError};
pub use crate::limits::{CommandLimits, DEFAULT_MAX_RATE_RAD_S, DEFAULT_MAX_SPEED_M_S};
use crate::mount::SensorMount;
pub use crate::options::{CurrentModel, Integrator};
use nalgebra::{Matrix3, Matrix6, Vector3};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Version of the profile format this crate reads and writes.
pub const PROFILE_SCHEMA_VERSION: u32 = 1;

/// Name of the default profile.
pub const DEFAULT_PROFILE: &str = "oceansim_torpedo_auv";

const BUILTIN: &[(&str, &str)] = &[
    (
        "oceansim_torpedo_auv",
        include_str!("../profiles/oceansim_torpedo_auv.json"),
    ),
    (
        "bluerov2_heavy",
        include_str!("../profiles/bluerov2_heavy.json"),
    ),
    ("remus100", include_str!("../profiles/remus100.json")),
];

/// Hydrodynamic added mass: diagonal derivatives or a full matrix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AddedMass {
    /// [-X_u̇, -Y_v̇, -Z_ẇ, -K_ṗ, -M_q̇, -N_ṙ] (kg, kg·m²).
    Diagonal([f64; 6]),
    /// Full M_A, rows in [u, v, w, p, q, r] order.
    Matrix(Box<[[f64; 6]; 6]>),
}

impl AddedMass {
    /// As a 6×6 matrix.
    pub fn matrix(&self) -> Matrix6<f64> {
        match self {
            AddedMass::Diagonal(d) => Matrix6::from_diagonal(&(*d).into()),
            AddedMass::Matrix(m) => Matrix6::from_fn(|i, j| m[i][j]),
        }
    }
}

/// Health of a thruster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureMode {
    /// Works as commanded.
    Healthy,
    /// Produces no thrust.
    Disabled,
    /// Holds the last command it produced while healthy.
    Stuck,
    /// Produces `failure_scale` × the healthy output.
    Scaled,
}

impl FailureMode {
    /// Parses the profile spelling.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "healthy" => Some(FailureMode::Healthy),
            "disabled" => Some(FailureMode::Disabled),
            "stuck" => Some(FailureMode::Stuck),
            "scaled" => Some(FailureMode::Scaled),
            _ => None,
        }
    }
}

fn default_bounds() -> [f64; 2] {
    [-1.0, 1.0]
}
fn default_healthy() -> String {
    "healthy".into()
}
fn one() -> f64 {
    1.0
}
fn default_density() -> f64 {
    1025.0
}
fn default_gravity() -> f64 {
    9.81
}

/// One thruster of a profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThrusterProfile {
    /// Name, e.g. `stern_port`. Its index gives the `thruster_i` field.
    pub name: String,
    /// Position (m), Fossen body frame.
    pub position_m: [f64; 3],
    /// Thrust direction for a positive command, Fossen body frame
    /// (normalised on load; must not be zero).
    pub direction: [f64; 3],
    /// Thrust at command +1 (N), > 0.
    pub max_thrust_n: f64,
    /// Thrust magnitude at command -1 (N), >= 0; `max_thrust_n` when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_reverse_thrust_n: Option<f64>,
    /// Normalised command range [min, max] within [-1, 1]; default [-1, 1].
    #[serde(default = "default_bounds")]
    pub command_bounds: [f64; 2],
    /// Largest command change per second (1/s); unlimited when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limit_per_s: Option<f64>,
    /// Commands with |c| below this are zero; in [0, 1), default 0.
    #[serde(default)]
    pub deadband: f64,
    /// `healthy`, `disabled`, `stuck` or `scaled`; default `healthy`.
    #[serde(default = "default_healthy")]
    pub failure_mode: String,
    /// Output multiplier of the `scaled` mode, in [0, 1]; default 1.
    #[serde(default = "one")]
    pub failure_scale: f64,
}

/// A vehicle profile as stored in `assets/vehicle_profiles/*.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VehicleProfile {
    /// Format version, [`PROFILE_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// Identifier, e.g. `oceansim_torpedo_auv`.
    pub name: String,
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// Where the numbers come from (publication, datasheet, assumption).
    pub source: String,
    /// Overall length, beam, height (m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dimensions_m: Option<[f64; 3]>,
    /// Dry mass (kg), > 0.
    pub mass_kg: f64,
    /// Inertia tensor about the CG (kg·m²), Fossen body axes; symmetric,
    /// positive definite.
    pub inertia_kg_m2: [[f64; 3]; 3],
    /// Centre of gravity relative to the body origin (m).
    pub r_g_m: [f64; 3],
    /// Centre of buoyancy relative to the body origin (m).
    pub r_b_m: [f64; 3],
    /// Weight (N); `mass_kg * gravity_m_s2` when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight_n: Option<f64>,
    /// Buoyancy (N); give this or `displaced_volume_m3`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buoyancy_n: Option<f64>,
    /// Displaced volume (m³); buoyancy = ρ g V.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub displaced_volume_m3: Option<f64>,
    /// Water density ρ (kg/m³), default 1025.
    #[serde(default = "default_density")]
    pub water_density_kg_m3: f64,
    /// Gravity g (m/s²), default 9.81.
    #[serde(default = "default_gravity")]
    pub gravity_m_s2: f64,
    /// Added mass (positive numbers, see the module docs).
    pub added_mass: AddedMass,
    /// Linear damping coefficients [-X_u, -Y_v, -Z_w, -K_p, -M_q, -N_r], >= 0.
    pub linear_damping: [f64; 6],
    /// Quadratic damping coefficients [-X_u|u|, ..., -N_r|r|], >= 0.
    pub quadratic_damping: [f64; 6],
    /// Drop the added-mass Munk-moment entries of C_A (pitch/yaw rows and
    /// their skew partners: `C_A[4][0]`, `C_A[4][2]`, `C_A[5][0]`, `C_A[5][1]` and
    /// transposes), as Fossen's remus100 model does for a hull whose
    /// stabilising fin and body-lift forces are not modelled. C_A stays
    /// skew-symmetric, so C still does no work. Default false.
    #[serde(default)]
    pub neglect_munk_moment: bool,
    /// Thrusters, in `thruster_0`.. order (none for a vehicle driven by
    /// a propeller and fins).
    #[serde(default)]
    pub thrusters: Vec<ThrusterProfile>,
    /// Control surfaces (rudders, stern planes), in `fins` command order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub control_surfaces: Vec<FinProfile>,
    /// Propellers, after the control surfaces in `fins` command order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub propellers: Vec<PropellerProfile>,
    /// Flow-dependent hull forces: lift, cross-flow drag, fading linear
    /// damping. None by default.
    #[serde(default, skip_serializing_if = "HullTerms::is_empty")]
    pub hull: HullTerms,
    /// How the current enters the body frame; default `full`.
    #[serde(default, skip_serializing_if = "CurrentModel::is_full")]
    pub current_model: CurrentModel,
    /// The integration scheme the simulator advances this vehicle with;
    /// default `rk4`.
    #[serde(default, skip_serializing_if = "Integrator::is_rk4")]
    pub integrator: Integrator,
    /// Sensor extrinsics.
    #[serde(default)]
    pub sensors: Vec<SensorMount>,
    /// Saturation limits of motion commands; derived when omitted (see
    /// [`VehicleProfile::command_limits`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_limits: Option<CommandLimits>,
}

/// Most thrusters a profile may declare.
pub const MAX_THRUSTERS: usize = 32;

impl VehicleProfile {
    /// Parses and validates a profile from JSON text.
    pub fn from_json_str(text: &str) -> Result<Self> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let profile: VehicleProfile = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            VehicleError::Parse(Problem {
                path: if path == "." { "(root)".into() } else { path },
                message: e.into_inner().to_string(),
            })
        })?;
        profile.validate()?;
        Ok(profile)
    }

    /// Most bytes of a profile file (the shipped ones are a few KiB).
    pub const MAX_PROFILE_BYTES: u64 = 1 << 20;

    /// Reads, parses and validates a profile file.
    /// A regular file of at most [`Self::MAX_PROFILE_BYTES`]; anything else (a
    /// device, a directory, a huge file) is refused before it is read.
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        use std::io::{Error, ErrorKind, Read};
        let path = path.as_ref();
        let io = |source| VehicleError::Io {
            path: path.to_owned(),
            source,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if !meta.is_file() || meta.len() > Self::MAX_PROFILE_BYTES {
            return Err(io(Error::new(
                ErrorKind::InvalidInput,
                format!(
                    "not a regular file of at most {} KiB",
                    Self::MAX_PROFILE_BYTES >> 10
                ),
            )));
        }
        let mut text = String::new();
        file.take(Self::MAX_PROFILE_BYTES)
            .read_to_string(&mut text)
            .map_err(io)?;
        Self::from_json_str(&text)
    }

    /// A shipped profile by name (see [`VehicleProfile::builtin_names`]).
    pub fn builtin(name: &str) -> Result<Self> {
        let text = BUILTIN
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| *t)
            .ok_or_else(|| VehicleError::UnknownProfile {
                name: name.to_owned(),
                known: Self::builtin_names().join(", "),
            })?;
        Self::from_json_str(text)
    }

    /// The default profile, `oceansim_torpedo_auv`.
    pub fn default_profile() -> Self {
        // The shipped profile is validated by the test suite.
        Self::builtin(DEFAULT_PROFILE).expect("shipped default profile is valid")
    }

    /// Names of the shipped profiles.
    pub fn builtin_names() -> Vec<&'static str> {
        BUILTIN.iter().map(|(n, _)| *n).collect()
    }

    /// The command limits: the profile's own, or derived from it. Derived
    /// limits: force per axis F = max(W, Σ max thrust of every thruster) —
    /// no propulsion of the vehicle's class pushes harder than either —
    /// torque F × max(half the largest dimension, 0.5 m), speed
    /// [`DEFAULT_MAX_SPEED_M_S`], rate [`DEFAULT_MAX_RATE_RAD_S`].
    pub fn command_limits(&self) -> CommandLimits {
        if let Some(l) = self.command_limits {
            return l;
        }
        let thrust: f64 = self
            .thrusters
            .iter()
            .map(|t| t.max_thrust_n.max(t.max_reverse_thrust_n.unwrap_or(0.0)))
            .sum();
        let f = self.weight().max(thrust);
        let arm = self.dimensions_m.map_or(0.5, |d| {
            (d.iter().copied().fold(0.0, f64::max) / 2.0).max(0.5)
        });
        CommandLimits {
            max_force_n: [f; 3],
            max_torque_n_m: [f * arm; 3],
            max_speed_m_s: DEFAULT_MAX_SPEED_M_S,
            max_rate_rad_s: DEFAULT_MAX_RATE_RAD_S,
        }
    }

    /// Weight W (N).
    pub fn weight(&self) -> f64 {
        self.weight_n.unwrap_or(self.mass_kg * self.gravity_m_s2)
    }

    /// Buoyancy B (N).
    pub fn buoyancy(&self) -> f64 {
        self.buoyancy_n.unwrap_or_else(|| {
            self.displaced_volume_m3.unwrap_or(0.0) * self.water_density_kg_m3 * self.gravity_m_s2
        })
    }

    /// Inertia about the CG as a matrix.
    pub fn inertia(&self) -> Matrix3<f64> {
        Matrix3::from_fn(|i, j| self.inertia_kg_m2[i][j])
    }

    /// Rigid-body mass matrix about the body origin:
    /// M_RB = [[m I, -m S(r_g)], [m S(r_g), I_g - m S(r_g)²]].
    pub fn rigid_body_mass_matrix(&self) -> Matrix6<f64> {
        let m = self.mass_kg;
        let s = crate::fossen::smtrx(&Vector3::from(self.r_g_m));
        let mut out = Matrix6::zeros();
        out.fixed_view_mut::<3, 3>(0, 0)
            .copy_from(&(Matrix3::identity() * m));
        out.fixed_view_mut::<3, 3>(0, 3).copy_from(&(-m * s));
        out.fixed_view_mut::<3, 3>(3, 0).copy_from(&(m * s));
        out.fixed_view_mut::<3, 3>(3, 3)
            .copy_from(&(self.inertia() - m * s * s));
        out
    }

    /// Added-mass matrix M_A.
    pub fn added_mass_matrix(&self) -> Matrix6<f64> {
        self.added_mass.matrix()
    }

    /// Total mass matrix M = M_RB + M_A.
    pub fn total_mass_matrix(&self) -> Matrix6<f64> {
        self.rigid_body_mass_matrix() + self.added_mass_matrix()
    }

    /// Checks every value and reports every problem with its path.
    pub fn validate(&self) -> Result<()> {
        let mut p = Vec::new();
        let mut bad = |path: &str, message: String| {
            p.push(Problem {
                path: path.to_owned(),
                message,
            })
        };
        if self.schema_version != PROFILE_SCHEMA_VERSION {
            bad(
                "schema_version",
                format!(
                    "unsupported version {} (this build reads {PROFILE_SCHEMA_VERSION})",
                    self.schema_version
                ),
            );
        }
        if self.name.trim().is_empty() {
            bad("name", "must not be empty".into());
        }
        crate::mount::check_mounts(&self.sensors, &mut bad);
        if self.source.trim().is_empty() {
            bad("source", "cite where the numbers come from".into());
        }
        if !(self.mass_kg.is_finite() && self.mass_kg > 0.0) {
            bad(
                "mass_kg",
                format!("must be a positive mass, got {}", self.mass_kg),
            );
        }
        let finite3 = |v: &[f64; 3]| v.iter().all(|x| x.is_finite());
        for (name, v) in [("r_g_m", &self.r_g_m), ("r_b_m", &self.r_b_m)] {
            if !finite3(v) {
                bad(name, "must be finite".into());
            }
        }
        let inertia = self.inertia();
        let inertia_ok = check_spd(&inertia, "inertia_kg_m2", "inertia tensor", &mut bad);
        if let Some(d) = self.dimensions_m {
            if !d.iter().all(|x| x.is_finite() && *x > 0.0) {
                bad("dimensions_m", "must be positive lengths".into());
            }
        }
        for (name, x) in [
            ("water_density_kg_m3", self.water_density_kg_m3),
            ("gravity_m_s2", self.gravity_m_s2),
        ] {
            if !(x.is_finite() && x > 0.0) {
                bad(name, format!("must be positive, got {x}"));
            }
        }
        if let Some(w) = self.weight_n {
            if !(w.is_finite() && w > 0.0) {
                bad("weight_n", format!("must be positive, got {w}"));
            }
        }
        match (self.buoyancy_n, self.displaced_volume_m3) {
            (Some(_), Some(_)) => bad(
                "buoyancy_n",
                "give buoyancy_n or displaced_volume_m3, not both".into(),
            ),
            (None, None) => bad(
                "buoyancy_n",
                "missing: give buoyancy_n or displaced_volume_m3".into(),
            ),
            (Some(b), None) if !(b.is_finite() && b >= 0.0) => {
                bad("buoyancy_n", format!("must be >= 0, got {b}"))
            }
            (None, Some(v)) if !(v.is_finite() && v >= 0.0) => {
                bad("displaced_volume_m3", format!("must be >= 0, got {v}"))
            }
            _ => {}
        }
        let ma = self.added_mass_matrix();
        if ma.iter().any(|x| !x.is_finite()) {
            bad("added_mass", "must be finite".into());
        } else if !is_symmetric(&ma) {
            bad(
                "added_mass",
                "the added-mass matrix must be symmetric".into(),
            );
        }
        // The total mass matrix is only meaningful once mass and inertia are.
        if self.mass_kg.is_finite() && self.mass_kg > 0.0 && inertia_ok {
            let m = self.total_mass_matrix();
            if m.iter().all(|x| x.is_finite()) {
                check_spd(&m, "added_mass", "total mass matrix M_RB + M_A", &mut bad);
            }
        }
        for (name, d) in [
            ("linear_damping", &self.linear_damping),
            ("quadratic_damping", &self.quadratic_damping),
        ] {
            for (i, x) in d.iter().enumerate() {
                if !(x.is_finite() && *x >= 0.0) {
                    bad(
                        &format!("{name}[{i}]"),
                        format!("damping coefficients are >= 0 (dissipative), got {x}"),
                    );
                }
            }
        }
        crate::appendages::check(
            &self.control_surfaces,
            &self.propellers,
            &self.hull,
            &mut bad,
        );
        if self.thrusters.len() > MAX_THRUSTERS {
            bad(
                "thrusters",
                format!(
                    "{} thrusters; the limit is {MAX_THRUSTERS}",
                    self.thrusters.len()
                ),
            );
        }
        let mut names = std::collections::BTreeSet::new();
        for (i, t) in self.thrusters.iter().enumerate() {
            let at = |f: &str| format!("thrusters[{i}].{f}");
            if t.name.trim().is_empty() {
                bad(&at("name"), "must not be empty".into());
            } else if !names.insert(t.name.as_str()) {
                bad(&at("name"), format!("`{}` is used twice", t.name));
            }
            if !finite3(&t.position_m) {
                bad(&at("position_m"), "must be finite".into());
            }
            let dir = Vector3::from(t.direction);
            if !(finite3(&t.direction) && dir.norm() > 1e-9) {
                bad(
                    &at("direction"),
                    format!("must be a non-zero vector, got {:?}", t.direction),
                );
            }
            if !(t.max_thrust_n.is_finite() && t.max_thrust_n > 0.0) {
                bad(
                    &at("max_thrust_n"),
                    format!("must be positive, got {}", t.max_thrust_n),
                );
            }
            if let Some(r) = t.max_reverse_thrust_n {
                if !(r.is_finite() && r >= 0.0) {
                    bad(
                        &at("max_reverse_thrust_n"),
                        format!("must be >= 0, got {r}"),
                    );
                }
            }
            let [lo, hi] = t.command_bounds;
            if !(lo.is_finite() && hi.is_finite()) || lo > hi {
                bad(
                    &at("command_bounds"),
                    format!("low must not exceed high, got [{lo}, {hi}]"),
                );
            } else if lo < -1.0 || hi > 1.0 {
                bad(
                    &at("command_bounds"),
                    format!("must lie within [-1, 1] (normalised), got [{lo}, {hi}]"),
                );
            }
            if let Some(r) = t.rate_limit_per_s {
                if !(r.is_finite() && r > 0.0) {
                    bad(
                        &at("rate_limit_per_s"),
                        format!("must be positive, got {r}"),
                    );
                }
            }
            if !(t.deadband.is_finite() && (0.0..1.0).contains(&t.deadband)) {
                bad(
                    &at("deadband"),
                    format!("must be in [0, 1), got {}", t.deadband),
                );
            }
            if FailureMode::parse(&t.failure_mode).is_none() {
                bad(
                    &at("failure_mode"),
                    format!(
                        "unknown failure mode `{}` (healthy, disabled, stuck, scaled)",
                        t.failure_mode
                    ),
                );
            }
            if !(t.failure_scale.is_finite() && (0.0..=1.0).contains(&t.failure_scale)) {
                bad(
                    &at("failure_scale"),
                    format!("must be in [0, 1], got {}", t.failure_scale),
                );
            }
        }
        if let Some(l) = &self.command_limits {
            let all = l
                .max_force_n
                .iter()
                .chain(&l.max_torque_n_m)
                .chain([&l.max_speed_m_s, &l.max_rate_rad_s]);
            if !all.copied().all(|x| x.is_finite() && x > 0.0) {
                bad(
                    "command_limits",
                    "every limit must be a positive, finite number".into(),
                );
            }
        }
        for (i, s) in self.sensors.iter().enumerate() {
            if s.name.trim().is_empty() {
                bad(&format!("sensors[{i}].name"), "must not be empty".into());
            }
            if !finite3(&s.position_m) || !finite3(&s.rotation_rpy_deg) {
                bad(&format!("sensors[{i}]"), "extrinsics must be finite".into());
            }
        }
        if p.is_empty() {
            Ok(())
        } else {
            Err(VehicleError::Invalid(p))
        }
    }

    /// The JSON text of this profile.
    pub fn to_json_string(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

fn is_symmetric<const N: usize>(m: &nalgebra::SMatrix<f64, N, N>) -> bool {
    let scale = m.amax().max(1e-300);
    (m - m.transpose()).amax() <= 1e-9 * scale
}

fn check_spd<const N: usize>(
    m: &nalgebra::SMatrix<f64, N, N>,
    path: &str,
    what: &str,
    bad: &mut impl FnMut(&str, String),
) -> bool
where
    nalgebra::Const<N>: nalgebra::DimMin<nalgebra::Const<N>, Output = nalgebra::Const<N>>,
{
    let problem = if m.iter().any(|x| !x.is_finite()) {
        "must be finite"
    } else if !is_symmetric(m) {
        "must be symmetric"
    } else if nalgebra::Cholesky::new(*m).is_none() {
        "must be positive definite"
    } else {
        return true;
    };
    bad(path, format!("the {what} {problem}"));
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_profiles_load() {
        for name in VehicleProfile::builtin_names() {
            let p = VehicleProfile::builtin(name).unwrap();
            assert_eq!(p.name, name);
        }
        assert_eq!(VehicleProfile::default_profile().thrusters.len(), 6);
        assert_eq!(
            VehicleProfile::builtin("bluerov2_heavy")
                .unwrap()
                .thrusters
                .len(),
            8
        );
        let e = VehicleProfile::builtin("submarine").unwrap_err();
        assert!(e.to_string().contains("oceansim_torpedo_auv"), "{e}");
    }

    #[test]
    fn serialisation_round_trips() {
        let p = VehicleProfile::default_profile();
        assert_eq!(
            VehicleProfile::from_json_str(&p.to_json_string()).unwrap(),
            p
        );
    }
}
