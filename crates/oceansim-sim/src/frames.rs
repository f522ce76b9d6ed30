//! Frames and their conversions. Every conversion lives in one module,
//! [`oceansim_vehicles::frames`], re-exported here: the user frame
//! ([`User`], x east, y north, z up), [`Godot`] (Y up), [`Ned`] and
//! [`RosEnu`] positions, [`UserBody`] and [`FossenBody`] vectors, and the
//! [`Attitude`] / [`GodotRotation`] rotations.

pub use oceansim_vehicles::frames::*;
