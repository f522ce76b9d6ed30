//! Action spaces and the machine-readable contract table.

use crate::error::{AgentError, Result};
use crate::scheme::{ControlScheme, Frame, ProtocolMapping};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::LazyLock;

/// Thrusters of the default vehicle profile (`oceansim_torpedo_auv`).
pub const DEFAULT_THRUSTER_COUNT: usize = 6;

/// The control surfaces of Fossen's REMUS 100 (`remus100.py`): the layout of
/// the `fins` contract when no vehicle profile is at hand.
pub const DEFAULT_FIN_SURFACES: [&str; 2] = ["rudder", "stern_plane"];
/// The propellers of Fossen's REMUS 100.
pub const DEFAULT_FIN_PROPELLERS: [&str; 1] = ["propeller"];

const FINS_DESCRIPTION: &str = "Control-surface deflections (rad) in vehicle-profile order, then propeller speeds (rpm, >= 0 ahead), through set_fins; signs follow Fossen's convention (remus100.py); the simulator clips each value to the profile's limits.";

/// A machine-readable action-vector contract: shape, field names, units,
/// frame, optional per-field bounds, and a description.
///
/// Serialises with the fields in this order: `shape`, `fields`, `units`,
/// `frame`, `low`, `high`, `description`. A bound of `null` (or an absent
/// `low`/`high` list) means unbounded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionSpace {
    /// The control scheme this space belongs to.
    pub scheme: ControlScheme,
    /// Vector shape, `[n]`.
    pub shape: Vec<usize>,
    /// Field names, one per entry.
    pub fields: Vec<String>,
    /// Unit of each field (`N`, `N*m`, `m/s`, `rad/s`, `m`, `rad`, `rpm`,
    /// `1` for normalised).
    pub units: Vec<String>,
    /// Frame of the vector.
    pub frame: Frame,
    /// Lower bound of each field, `null` for none.
    pub low: Option<Vec<Option<f64>>>,
    /// Upper bound of each field, `null` for none.
    pub high: Option<Vec<Option<f64>>>,
    /// What the vector does.
    pub description: String,
}

fn fin_units(surfaces: usize, propellers: usize) -> Vec<String> {
    let mut units = vec!["rad".to_owned(); surfaces];
    units.extend(vec!["rpm".to_owned(); propellers]);
    units
}

fn strings(xs: &[&str]) -> Vec<String> {
    xs.iter().map(|s| (*s).to_owned()).collect()
}

impl ActionSpace {
    /// The default contract of `scheme`; `thrusters` sizes the `thrusters`
    /// scheme (`thruster_0` .. `thruster_{n-1}`) and is ignored by the others.
    ///
    /// A `fins` contract depends on the vehicle's control surfaces and
    /// propellers, which a thruster count does not give: this returns the
    /// layout of Fossen's REMUS 100 (`[rudder, stern_plane, propeller]`, rad,
    /// rad, rpm), unbounded, as the contract table's example. A vehicle's
    /// own comes from [`ActionSpace::for_fins`] with its profile's names and
    /// limits, and is what `get_agents` reports.
    pub fn for_scheme(scheme: ControlScheme, thrusters: usize) -> ActionSpace {
        use ControlScheme as S;
        let (fields, units, description): (Vec<String>, Vec<String>, &str) = match scheme {
            S::Force3d => (
                strings(&["fx", "fy", "fz"]),
                strings(&["N", "N", "N"]),
                "Main AUV force in the OceanSim world/user frame (x right, y forward, z up) through set_force_world.",
            ),
            S::BodyForce3d => (
                strings(&["fx", "fy", "fz"]),
                strings(&["N", "N", "N"]),
                "Main AUV force in the AUV body frame, user convention (x starboard, y forward, z up) through set_force_body.",
            ),
            S::Thrusters => (
                (0..thrusters).map(|i| format!("thruster_{i}")).collect(),
                vec!["1".to_owned(); thrusters],
                "Normalised command per thruster in vehicle-profile order through set_thrusters; bounds, deadband and rate limits come from the profile.",
            ),
            S::ExternalVelocity => (
                strings(&["vx", "vy", "vz"]),
                strings(&["m/s", "m/s", "m/s"]),
                "Proxy AUV velocity in the Godot world frame (Y up) through set_agent_velocity.",
            ),
            S::WaypointPid => (
                strings(&["world_x", "world_z", "depth"]),
                strings(&["m", "m", "m"]),
                "Waypoint on the Godot X/Z map plane plus depth (positive down) tracked by the simulator-side PID through set_waypoint.",
            ),
            S::BodyWrench6dof => (
                strings(&["fx", "fy", "fz", "tx", "ty", "tz"]),
                strings(&["N", "N", "N", "N*m", "N*m", "N*m"]),
                "Body-frame force/torque (Fossen: x forward, y starboard, z down) through set_body_wrench.",
            ),
            S::BodyVelocity6dof => (
                strings(&["u", "v", "w", "p", "q", "r"]),
                strings(&["m/s", "m/s", "m/s", "rad/s", "rad/s", "rad/s"]),
                "Body-frame linear/angular velocity (Fossen: surge, sway, heave, roll, pitch, yaw rates) through set_body_velocity.",
            ),
            S::Fins => (
                DEFAULT_FIN_SURFACES
                    .iter()
                    .chain(&DEFAULT_FIN_PROPELLERS)
                    .map(|s| (*s).to_owned())
                    .collect(),
                fin_units(DEFAULT_FIN_SURFACES.len(), DEFAULT_FIN_PROPELLERS.len()),
                FINS_DESCRIPTION,
            ),
            S::CustomDynamics6dof => (
                strings(&["lin_ax", "lin_ay", "lin_az", "ang_ax", "ang_ay", "ang_az"]),
                strings(&["m/s^2", "m/s^2", "m/s^2", "rad/s^2", "rad/s^2", "rad/s^2"]),
                "Reserved for model-driven six-degree dynamics research (body-frame accelerations); no protocol mapping yet.",
            ),
        };
        ActionSpace {
            scheme,
            shape: vec![fields.len()],
            fields,
            units,
            frame: scheme.frame(),
            low: None,
            high: None,
            description: description.to_owned(),
        }
    }

    /// The `fins` contract of a vehicle: one field per control surface
    /// (`surfaces`, unit `rad`) then one per propeller (`propellers`, unit
    /// `rpm`), in profile order, with per-value bounds `low`/`high` (one per
    /// field, surfaces first; a non-finite bound means unbounded on that
    /// side).
    ///
    /// Refused (`invalid_action_shape`) when the bound lists do not have one
    /// entry per field, there are no fields or more than
    /// [`MAX_FINS`](oceansim_protocol::payload::MAX_FINS), a name is empty or
    /// repeated; a low bound above its high bound is a bounds error.
    ///
    /// ```
    /// use oceansim_agents::{ActionSpace, ControlScheme};
    /// let names = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    /// let deg30 = 30f64.to_radians();
    /// let remus = ActionSpace::for_fins(
    ///     &names(&["rudder", "stern_plane"]),
    ///     &names(&["propeller"]),
    ///     &[-deg30, -deg30, 0.0],
    ///     &[deg30, deg30, 1525.0],
    /// )
    /// .unwrap();
    /// assert_eq!(remus.scheme, ControlScheme::Fins);
    /// assert_eq!(remus.units, ["rad", "rad", "rpm"]);
    /// assert!(remus.validate(&[0.1, -0.2, 1200.0]).is_ok());
    /// assert!(remus.validate(&[0.1, -0.2, 2000.0]).is_err());
    /// ```
    pub fn for_fins(
        surfaces: &[String],
        propellers: &[String],
        low: &[f64],
        high: &[f64],
    ) -> Result<ActionSpace> {
        let fields: Vec<String> = surfaces.iter().chain(propellers).cloned().collect();
        let n = fields.len();
        let shape = |message: String| AgentError::ActionShape {
            scheme: ControlScheme::Fins.to_string(),
            message,
        };
        let max = oceansim_protocol::payload::MAX_FINS;
        if n == 0 || n > max {
            return Err(shape(format!(
                "a fins space has 1..={max} control surfaces and propellers, got {n}"
            )));
        }
        for (i, name) in fields.iter().enumerate() {
            if name.is_empty() {
                return Err(shape(format!("fin {i} has an empty name")));
            }
            if fields[..i].contains(name) {
                return Err(shape(format!("fin name `{name}` is repeated")));
            }
        }
        for (side, list) in [("low", low), ("high", high)] {
            if list.len() != n {
                return Err(shape(format!(
                    "{side} bounds have {} entries, the space has {n} [{}]",
                    list.len(),
                    fields.join(", ")
                )));
            }
        }
        let bound = |xs: &[f64]| xs.iter().map(|x| x.is_finite().then_some(*x)).collect();
        ActionSpace {
            scheme: ControlScheme::Fins,
            shape: vec![n],
            units: fin_units(surfaces.len(), propellers.len()),
            fields,
            frame: ControlScheme::Fins.frame(),
            low: None,
            high: None,
            description: FINS_DESCRIPTION.to_owned(),
        }
        .with_bounds(Some(bound(low)), Some(bound(high)))
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// Whether the space has no entries (a `thrusters` space of a vehicle
    /// without thrusters).
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// The same space with per-field bounds (`None` entries are unbounded).
    ///
    /// Returns an error if a list has the wrong length or a low bound exceeds
    /// its high bound.
    pub fn with_bounds(
        mut self,
        low: Option<Vec<Option<f64>>>,
        high: Option<Vec<Option<f64>>>,
    ) -> Result<Self> {
        for (name, list) in [("low", &low), ("high", &high)] {
            if let Some(l) = list {
                if l.len() != self.len() {
                    return Err(AgentError::ActionShape {
                        scheme: self.scheme.to_string(),
                        message: format!(
                            "{name} bounds have {} entries, the space has {}",
                            l.len(),
                            self.len()
                        ),
                    });
                }
            }
        }
        if let (Some(lo), Some(hi)) = (&low, &high) {
            for (i, (l, h)) in lo.iter().zip(hi).enumerate() {
                if let (Some(l), Some(h)) = (l, h) {
                    if l > h {
                        return Err(AgentError::OutOfBounds {
                            field: self.fields[i].clone(),
                            value: *l,
                            side: "above the high",
                            bound: *h,
                        });
                    }
                }
            }
        }
        self.low = low;
        self.high = high;
        Ok(self)
    }

    /// Same bounds for every field.
    pub fn with_uniform_bounds(self, low: f64, high: f64) -> Result<Self> {
        let n = self.len();
        self.with_bounds(Some(vec![Some(low); n]), Some(vec![Some(high); n]))
    }

    fn shape_error(&self, message: String) -> AgentError {
        AgentError::ActionShape {
            scheme: self.scheme.to_string(),
            message,
        }
    }

    /// Checks an action vector: its length (`invalid_action_shape`), that
    /// every entry is finite (`invalid_action_shape`) and within bounds
    /// (a bounds error naming the field, value and bound). Returns the
    /// vector.
    pub fn validate(&self, action: &[f64]) -> Result<Vec<f64>> {
        if action.len() != self.len() {
            return Err(self.shape_error(format!(
                "expected {} values [{}], got {}",
                self.len(),
                self.fields.join(", "),
                action.len()
            )));
        }
        for (i, &x) in action.iter().enumerate() {
            // A space deserialised from user input may have short lists.
            let field = || {
                self.fields
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| format!("value {i}"))
            };
            if !x.is_finite() {
                return Err(self.shape_error(format!("{} is not finite ({x})", field())));
            }
            let bound =
                |b: &Option<Vec<Option<f64>>>| b.as_ref().and_then(|v| v.get(i).copied().flatten());
            if let Some(lo) = bound(&self.low) {
                if x < lo {
                    return Err(AgentError::OutOfBounds {
                        field: field(),
                        value: x,
                        side: "below the low",
                        bound: lo,
                    });
                }
            }
            if let Some(hi) = bound(&self.high) {
                if x > hi {
                    return Err(AgentError::OutOfBounds {
                        field: field(),
                        value: x,
                        side: "above the high",
                        bound: hi,
                    });
                }
            }
        }
        Ok(action.to_vec())
    }

    /// Like [`ActionSpace::validate`] for a vector that arrives as JSON: it
    /// must be an array of numbers (strings, nulls, nested arrays are
    /// `invalid_action_shape`).
    pub fn validate_json(&self, action: &Value) -> Result<Vec<f64>> {
        let Value::Array(items) = action else {
            return Err(self.shape_error(format!("expected an array, got {action}")));
        };
        let values = items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_f64().ok_or_else(|| {
                    let name = self.fields.get(i).map_or("extra value", String::as_str);
                    self.shape_error(format!("{name} must be a number, got {v}"))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        self.validate(&values)
    }

    /// The zero vector of this space (what `clear_action` sends).
    pub fn zero(&self) -> Vec<f64> {
        vec![0.0; self.len()]
    }
}

/// One row of the contract table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ControlContract {
    /// Canonical scheme name.
    pub name: ControlScheme,
    /// The action space.
    pub action_space: ActionSpace,
    /// The protocol action it is sent as (`"reserved"` for none).
    pub protocol_action: ProtocolMapping,
    /// Frame of the vector.
    pub frame: Frame,
}

impl ControlContract {
    /// The contract of `scheme` for a vehicle with `thrusters` thrusters.
    pub fn new(scheme: ControlScheme, thrusters: usize) -> Self {
        ControlContract {
            name: scheme,
            action_space: ActionSpace::for_scheme(scheme, thrusters),
            protocol_action: scheme.protocol_mapping(),
            frame: scheme.frame(),
        }
    }
}

/// The contract table for the default vehicle profile (6 thrusters), in the
/// spec's order.
pub static ACTION_SPACES: LazyLock<Vec<ControlContract>> =
    LazyLock::new(|| list_control_schemes_for(DEFAULT_THRUSTER_COUNT));

/// The contract table for the default profile, as JSON-serialisable rows.
pub fn list_control_schemes() -> Vec<ControlContract> {
    ACTION_SPACES.clone()
}

/// The contract table for a vehicle with `thrusters` thrusters.
pub fn list_control_schemes_for(thrusters: usize) -> Vec<ControlContract> {
    ControlScheme::ALL
        .into_iter()
        .map(|s| ControlContract::new(s, thrusters))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use oceansim_protocol::ErrorCode;
    use serde_json::json;

    /// The spec's example output of `list_control_schemes()`, line by line.
    const SPEC_EXAMPLE: &str = "\
force_3d ['fx', 'fy', 'fz']
body_force_3d ['fx', 'fy', 'fz']
thrusters ['thruster_0', 'thruster_1', 'thruster_2', 'thruster_3', 'thruster_4', 'thruster_5']
external_velocity ['vx', 'vy', 'vz']
waypoint_pid ['world_x', 'world_z', 'depth']
body_wrench_6dof ['fx', 'fy', 'fz', 'tx', 'ty', 'tz']
body_velocity_6dof ['u', 'v', 'w', 'p', 'q', 'r']
fins ['rudder', 'stern_plane', 'propeller']
custom_dynamics_6dof ['lin_ax', 'lin_ay', 'lin_az', 'ang_ax', 'ang_ay', 'ang_az']
";

    #[test]
    fn json_matches_the_spec_example_output() {
        let table = serde_json::to_value(list_control_schemes()).unwrap();
        let mut printed = String::new();
        for item in table.as_array().unwrap() {
            let fields: Vec<String> = item["action_space"]["fields"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| format!("'{}'", f.as_str().unwrap()))
                .collect();
            printed += &format!(
                "{} [{}]\n",
                item["name"].as_str().unwrap(),
                fields.join(", ")
            );
        }
        assert_eq!(printed, SPEC_EXAMPLE);
    }

    #[test]
    fn json_rows_name_mapping_frame_and_ordered_keys() {
        let row = serde_json::to_string(&ControlContract::new(ControlScheme::Force3d, 6)).unwrap();
        let keys = [
            "\"name\"",
            "\"action_space\"",
            "\"scheme\"",
            "\"shape\"",
            "\"fields\"",
            "\"units\"",
            "\"frame\"",
            "\"low\"",
            "\"high\"",
            "\"description\"",
            "\"protocol_action\"",
        ];
        let positions: Vec<usize> = keys.iter().map(|k| row.find(k).unwrap()).collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{row}");
        let mappings: Vec<Value> = list_control_schemes()
            .iter()
            .map(|c| serde_json::to_value(c.protocol_action).unwrap())
            .collect();
        assert_eq!(
            mappings,
            vec![
                json!("set_force_world"),
                json!("set_force_body"),
                json!("set_thrusters"),
                json!("set_agent_velocity"),
                json!("set_waypoint"),
                json!("set_body_wrench"),
                json!("set_body_velocity"),
                json!("set_fins"),
                json!("reserved")
            ]
        );
        let v = serde_json::to_value(&ACTION_SPACES[5]).unwrap();
        assert_eq!(v["frame"], "fossen_body");
        assert_eq!(v["action_space"]["shape"], json!([6]));
    }

    #[test]
    fn fins_spaces_carry_names_units_and_bounds() {
        let names = |xs: &[&str]| xs.iter().map(|s| (*s).to_owned()).collect::<Vec<String>>();
        let d = 30f64.to_radians();
        let s = ActionSpace::for_fins(
            &names(&["rudder", "stern_plane"]),
            &names(&["propeller"]),
            &[-d, -d, 0.0],
            &[d, d, 1525.0],
        )
        .unwrap();
        assert_eq!(s.fields, ["rudder", "stern_plane", "propeller"]);
        assert_eq!(s.units, ["rad", "rad", "rpm"]);
        assert_eq!(s.shape, vec![3]);
        assert_eq!(s.frame, Frame::Actuator);
        assert!(s.description.contains("rad") && s.description.contains("rpm"));
        assert_eq!(s.validate(&[d, -d, 1525.0]).unwrap(), vec![d, -d, 1525.0]);
        let e = s.validate(&[0.0, 0.6, 100.0]).unwrap_err();
        assert!(e.to_string().contains("stern_plane"), "{e}");
        let e = s.validate(&[0.0, 0.0, -1.0]).unwrap_err();
        assert!(e.to_string().contains("propeller = -1 is below"), "{e}");
        assert_eq!(
            s.validate(&[0.0, 0.0]).unwrap_err().code(),
            ErrorCode::InvalidActionShape
        );
        // The JSON form reads back as the same space.
        let back: ActionSpace = serde_json::from_value(serde_json::to_value(&s).unwrap()).unwrap();
        assert_eq!(back, s);
        // Non-finite bounds are open sides; fins alone or propellers alone.
        let open = ActionSpace::for_fins(
            &names(&["a", "b"]),
            &[],
            &[f64::NEG_INFINITY, -1.0],
            &[f64::INFINITY, f64::NAN],
        )
        .unwrap();
        assert_eq!(open.low, Some(vec![None, Some(-1.0)]));
        assert_eq!(open.high, Some(vec![None, None]));
        assert!(open.validate(&[1e9, 1e9]).is_ok());
        let prop = ActionSpace::for_fins(&[], &names(&["p"]), &[0.0], &[100.0]).unwrap();
        assert_eq!(prop.units, ["rpm"]);
        // Refusals.
        let one = names(&["r"]);
        for bad in [
            ActionSpace::for_fins(&[], &[], &[], &[]),
            ActionSpace::for_fins(&one, &[], &[0.0, 0.0], &[1.0]),
            ActionSpace::for_fins(&one, &[], &[0.0], &[]),
            ActionSpace::for_fins(&names(&["r", "r"]), &[], &[0.0; 2], &[1.0; 2]),
            ActionSpace::for_fins(&names(&[""]), &[], &[0.0], &[1.0]),
            ActionSpace::for_fins(
                &(0..17).map(|i| format!("f{i}")).collect::<Vec<_>>(),
                &[],
                &[0.0; 17],
                &[1.0; 17],
            ),
        ] {
            assert_eq!(bad.unwrap_err().code(), ErrorCode::InvalidActionShape);
        }
        assert!(ActionSpace::for_fins(&one, &[], &[1.0], &[-1.0]).is_err());
    }

    #[test]
    fn the_default_fins_contract_is_remus_100s_unbounded() {
        for n in [0, 6, 8] {
            let s = ActionSpace::for_scheme(ControlScheme::Fins, n);
            assert_eq!(s.fields, ["rudder", "stern_plane", "propeller"]);
            assert_eq!(s.units, ["rad", "rad", "rpm"]);
            assert_eq!((s.low.as_ref(), s.high.as_ref()), (None, None));
        }
    }

    #[test]
    fn thruster_fields_follow_the_profile_count() {
        let s = ActionSpace::for_scheme(ControlScheme::Thrusters, 8);
        assert_eq!(s.fields.last().unwrap(), "thruster_7");
        assert_eq!(s.shape, vec![8]);
    }

    #[test]
    fn every_scheme_accepts_its_zero_and_rejects_wrong_lengths() {
        for scheme in ControlScheme::ALL {
            let s = ActionSpace::for_scheme(scheme, 6);
            assert_eq!(s.validate(&s.zero()).unwrap(), s.zero());
            let ones = vec![1.5; s.len()];
            assert_eq!(s.validate(&ones).unwrap(), ones);
            for bad_len in [0, s.len() - 1, s.len() + 1] {
                let e = s.validate(&vec![0.0; bad_len]).unwrap_err();
                assert_eq!(
                    e.code(),
                    ErrorCode::InvalidActionShape,
                    "{scheme} {bad_len}"
                );
            }
            let mut nan = s.zero();
            nan[0] = f64::NAN;
            assert_eq!(
                s.validate(&nan).unwrap_err().code(),
                ErrorCode::InvalidActionShape
            );
            let mut inf = s.zero();
            inf[s.len() - 1] = f64::NEG_INFINITY;
            assert_eq!(
                s.validate(&inf).unwrap_err().code(),
                ErrorCode::InvalidActionShape
            );
        }
    }

    #[test]
    fn bounds_errors_name_field_value_and_bound() {
        let s = ActionSpace::for_scheme(ControlScheme::Thrusters, 6)
            .with_uniform_bounds(-1.0, 1.0)
            .unwrap();
        assert!(s.validate(&[1.0, -1.0, 0.0, 0.5, 0.0, 0.0]).is_ok());
        let e = s.validate(&[0.0, 0.0, 1.25, 0.0, 0.0, 0.0]).unwrap_err();
        assert_eq!(
            e,
            AgentError::OutOfBounds {
                field: "thruster_2".into(),
                value: 1.25,
                side: "above the high",
                bound: 1.0
            }
        );
        assert_eq!(e.to_string(), "thruster_2 = 1.25 is above the high bound 1");
        let e = s.validate(&[0.0, -2.0, 0.0, 0.0, 0.0, 0.0]).unwrap_err();
        assert!(e
            .to_string()
            .contains("thruster_1 = -2 is below the low bound -1"));
        // Partial bounds: only fz limited.
        let f = ActionSpace::for_scheme(ControlScheme::Force3d, 6)
            .with_bounds(None, Some(vec![None, None, Some(10.0)]))
            .unwrap();
        assert!(f.validate(&[1e6, -1e6, 10.0]).is_ok());
        assert!(f.validate(&[0.0, 0.0, 10.5]).is_err());
        // Inconsistent bounds are refused.
        assert!(ActionSpace::for_scheme(ControlScheme::Force3d, 6)
            .with_uniform_bounds(1.0, -1.0)
            .is_err());
        assert!(ActionSpace::for_scheme(ControlScheme::Force3d, 6)
            .with_bounds(Some(vec![None]), None)
            .is_err());
    }

    #[test]
    fn validate_json_rejects_non_numbers() {
        let s = ActionSpace::for_scheme(ControlScheme::Force3d, 6);
        assert_eq!(
            s.validate_json(&json!([1, 2.5, -3])).unwrap(),
            vec![1.0, 2.5, -3.0]
        );
        for bad in [
            json!(["1", 2, 3]),
            json!([null, 2, 3]),
            json!([[1], 2, 3]),
            json!([1, 2]),
            json!("1,2,3"),
            json!({"fx": 1}),
            json!([1, 2, 3, 4]),
        ] {
            let e = s.validate_json(&bad).unwrap_err();
            assert_eq!(e.code(), ErrorCode::InvalidActionShape, "{bad}");
        }
    }
}
