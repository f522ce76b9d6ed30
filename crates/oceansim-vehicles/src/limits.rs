//! Command limits: what a motion command saturates at, per body axis.

use serde::{Deserialize, Serialize};

/// What a motion command saturates at. A command past a limit is clipped
/// (and the simulator says so in its reply), so no command, however large,
/// can drive the dynamics outside what the integrator handles.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandLimits {
    /// Largest force along each Fossen body axis (N). A 3-D force command
    /// (world or body) is scaled down to at most the smallest of the three
    /// in magnitude, keeping its direction; wrenches and controller outputs
    /// are clipped per axis.
    pub max_force_n: [f64; 3],
    /// Largest torque about each Fossen body axis (N·m), clipped per axis.
    pub max_torque_n_m: [f64; 3],
    /// Largest body-velocity target per linear axis, |u|, |v|, |w| (m/s).
    pub max_speed_m_s: f64,
    /// Largest body-rate target per axis, |p|, |q|, |r| (rad/s).
    pub max_rate_rad_s: f64,
}

impl CommandLimits {
    /// Scales a 3-D force down to the smallest axis limit in magnitude
    /// (keeping its direction, finite for every finite input, see
    /// [`crate::saturate::clip_norm`]); returns it and whether it was
    /// clipped.
    pub fn clamp_force(&self, f: [f64; 3]) -> ([f64; 3], bool) {
        let cap = self
            .max_force_n
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min);
        // Overflow-safe: a 1e155 N request still clips along its direction.
        crate::saturate::clip_norm(f, cap)
    }

    /// Clips a body wrench `[X, Y, Z, K, M, N]` per axis.
    pub fn clamp_wrench(&self, w: [f64; 6]) -> ([f64; 6], bool) {
        let mut out = w;
        for k in 0..3 {
            out[k] = w[k].clamp(-self.max_force_n[k], self.max_force_n[k]);
            out[k + 3] = w[k + 3].clamp(-self.max_torque_n_m[k], self.max_torque_n_m[k]);
        }
        (out, out != w)
    }

    /// Clips a body-velocity target `[u, v, w, p, q, r]` per axis.
    pub fn clamp_velocity(&self, v: [f64; 6]) -> ([f64; 6], bool) {
        let mut out = v;
        for k in 0..3 {
            out[k] = v[k].clamp(-self.max_speed_m_s, self.max_speed_m_s);
            out[k + 3] = v[k + 3].clamp(-self.max_rate_rad_s, self.max_rate_rad_s);
        }
        (out, out != v)
    }
}

/// Body-velocity target limit when a profile gives none (m/s).
pub const DEFAULT_MAX_SPEED_M_S: f64 = 5.0;
/// Body-rate target limit when a profile gives none (rad/s).
pub const DEFAULT_MAX_RATE_RAD_S: f64 = std::f64::consts::FRAC_PI_2;
