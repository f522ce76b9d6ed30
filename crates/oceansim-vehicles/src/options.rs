//! How a profile's dynamics are run: the current model and the
//! integrator.

use serde::{Deserialize, Serialize};

/// How a uniform current, fixed in NED, is seen in the body frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CurrentModel {
    /// ν_c = Rᵀ v_c with the full attitude, ν̇_c = ν_c × ω.
    #[default]
    Full,
    /// The horizontal current rotated by the heading ψ alone,
    /// u_c = V cos(β − ψ), v_c = V sin(β − ψ), ν̇_c = [r v_c, −r u_c, 0, ..]:
    /// Fossen's remus100 approximation, exact for a level vehicle.
    HeadingOnly,
}

impl CurrentModel {
    pub(crate) fn is_full(&self) -> bool {
        *self == CurrentModel::Full
    }
}

/// The integration scheme of a vehicle's dynamics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Integrator {
    /// Classical fixed-step RK4, forces evaluated at every stage, attitude
    /// as a unit quaternion: fourth order.
    #[default]
    Rk4,
    /// Fossen's semi-implicit Euler (`mainLoop`: ν then η with the new ν,
    /// Euler angles): first order, what his published runs use.
    FossenEuler,
}

impl Integrator {
    pub(crate) fn is_rk4(&self) -> bool {
        *self == Integrator::Rk4
    }
}
