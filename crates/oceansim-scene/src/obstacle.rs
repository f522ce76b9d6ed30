//! Static obstacles in the user frame (x east, y north, z up, m): spheres,
//! boxes and cylinders placed and turned by their Godot pose, with ray
//! casts for the sensors, containment for placement and grids, and
//! push-out for contacts.

use nalgebra::{Matrix3, Vector3};
use oceansim_protocol::payload::{ObstacleShape, SpawnObstacle};
use oceansim_vehicles::frames::GodotRotation;
use serde::Serialize;

/// A static obstacle in the user frame: a shape in its local axes (user
/// body convention: x right, y forward, z up; cylinder axis z), placed at
/// `center` and turned by `rotation`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Obstacle {
    /// Identifier.
    pub id: String,
    /// Geometry.
    pub shape: ObstacleShape,
    /// Centre (m, user frame).
    pub center: [f64; 3],
    /// Box half extents (m, local axes); sphere/cylinder: [r, r, r or h/2].
    pub half_extents: [f64; 3],
    /// Local → user-world rotation; `None` when axis-aligned (the common
    /// case, which skips the transform).
    #[serde(skip)]
    pub rotation: Option<Matrix3<f64>>,
    /// The request or scenario entry it came from (Godot coordinates).
    #[serde(skip)]
    pub source: Option<SpawnObstacle>,
}

impl Obstacle {
    /// Builds an obstacle from a `spawn_obstacle` payload (Godot frame:
    /// position [X, Y, Z] Y up, box size [sx, sy, sz], cylinder axis Y,
    /// `rotation` Godot Euler degrees, see [`oceansim_vehicles::frames`]).
    pub fn from_spawn(id: String, s: &SpawnObstacle) -> Self {
        let c = oceansim_vehicles::frames::godot_to_oceansim(s.position.0);
        let half = match s.shape {
            ObstacleShape::Sphere => {
                let r = s.radius.unwrap_or(1.0);
                [r, r, r]
            }
            ObstacleShape::Box => {
                let [sx, sy, sz] = s.size.map(|v| v.0).unwrap_or([1.0; 3]);
                [sx / 2.0, sz / 2.0, sy / 2.0]
            }
            ObstacleShape::Cylinder => {
                let r = s.radius.unwrap_or(1.0);
                [r, r, s.height.unwrap_or(1.0) / 2.0]
            }
        };
        Obstacle {
            id,
            shape: s.shape,
            center: c,
            half_extents: half,
            rotation: s
                .rotation
                .map(|r| r.0)
                .filter(|r| r.iter().any(|a| *a != 0.0))
                .map(|r| GodotRotation(r).user_matrix()),
            source: Some(s.clone()),
        }
    }

    /// Radius of a sphere enclosing the obstacle (m).
    pub fn bounding_radius(&self) -> f64 {
        let [a, b, c] = self.half_extents;
        match self.shape {
            ObstacleShape::Sphere => a,
            ObstacleShape::Cylinder => (a * a + c * c).sqrt(),
            ObstacleShape::Box => (a * a + b * b + c * c).sqrt(),
        }
    }

    /// A user-frame vector in the obstacle's local axes.
    fn to_local(&self, v: Vector3<f64>) -> Vector3<f64> {
        match &self.rotation {
            Some(r) => r.tr_mul(&v),
            None => v,
        }
    }

    /// Whether `p` lies inside the obstacle grown by `inflate` m.
    pub fn contains(&self, p: &Vector3<f64>, inflate: f64) -> bool {
        let d = self.to_local(p - Vector3::from(self.center));
        let [a, b, c] = self.half_extents;
        match self.shape {
            ObstacleShape::Sphere => d.norm() <= a + inflate,
            ObstacleShape::Cylinder => {
                (d.x * d.x + d.y * d.y).sqrt() <= a + inflate && d.z.abs() <= c + inflate
            }
            ObstacleShape::Box => {
                d.x.abs() <= a + inflate && d.y.abs() <= b + inflate && d.z.abs() <= c + inflate
            }
        }
    }

    /// Whether the obstacle crosses the horizontal plane z, grown by `inflate`,
    /// covers the point (x, y) — the 2-D footprint used by occupancy grids.
    pub fn covers_xy(&self, x: f64, y: f64, z: f64, inflate: f64) -> bool {
        // The slice of the grown solid at height z, tested point-wise.
        self.contains(&Vector3::new(x, y, z), inflate)
    }

    /// Distance along unit `dir` from `o` to the obstacle surface.
    pub fn raycast(&self, o: &Vector3<f64>, dir: &Vector3<f64>) -> Option<f64> {
        let oc = self.to_local(o - Vector3::from(self.center));
        let dir = &self.to_local(*dir);
        // Bounding-sphere rejection first (rotation-invariant).
        let r = self.bounding_radius();
        let b = oc.dot(dir);
        let disc = b * b - (oc.norm_squared() - r * r);
        if disc < 0.0 || -b + disc.sqrt() < 0.0 {
            return None;
        }
        let [hx, hy, hz] = self.half_extents;
        match self.shape {
            ObstacleShape::Sphere => {
                let t = -b - disc.sqrt();
                Some(if t >= 0.0 { t } else { 0.0 })
            }
            ObstacleShape::Box => slab(&oc, dir, [hx, hy, hz]),
            ObstacleShape::Cylinder => {
                // Side: |(o + t d)_xy| = r; caps: |z| = h.
                let (a, bb, cc) = (
                    dir.x * dir.x + dir.y * dir.y,
                    oc.x * dir.x + oc.y * dir.y,
                    oc.x * oc.x + oc.y * oc.y - hx * hx,
                );
                let mut best: Option<f64> = None;
                let mut consider = |t: f64| {
                    if t >= 0.0 && best.is_none_or(|b| t < b) {
                        best = Some(t);
                    }
                };
                if a > 1e-12 {
                    let d = bb * bb - a * cc;
                    if d >= 0.0 {
                        for t in [(-bb - d.sqrt()) / a, (-bb + d.sqrt()) / a] {
                            if (oc.z + t * dir.z).abs() <= hz {
                                consider(t);
                            }
                        }
                    }
                }
                if dir.z.abs() > 1e-12 {
                    for zc in [hz, -hz] {
                        let t = (zc - oc.z) / dir.z;
                        let (x, y) = (oc.x + t * dir.x, oc.y + t * dir.y);
                        if x * x + y * y <= hx * hx {
                            consider(t);
                        }
                    }
                }
                if self.contains(o, 0.0) {
                    return Some(0.0);
                }
                best
            }
        }
    }
}

/// Ray vs axis-aligned box of half extents `h` centred at the origin.
fn slab(o: &Vector3<f64>, d: &Vector3<f64>, h: [f64; 3]) -> Option<f64> {
    let (mut t0, mut t1) = (f64::NEG_INFINITY, f64::INFINITY);
    for k in 0..3 {
        if d[k].abs() < 1e-12 {
            if o[k].abs() > h[k] {
                return None;
            }
        } else {
            let (a, b) = ((-h[k] - o[k]) / d[k], (h[k] - o[k]) / d[k]);
            t0 = t0.max(a.min(b));
            t1 = t1.min(a.max(b));
        }
    }
    if t1 < t0.max(0.0) {
        None
    } else {
        Some(t0.max(0.0))
    }
}

impl Obstacle {
    /// A local vector back in the user frame.
    fn to_world(&self, v: Vector3<f64>) -> Vector3<f64> {
        match &self.rotation {
            Some(r) => r * v,
            None => v,
        }
    }

    /// Whether a sphere of radius `r` at `c` overlaps the obstacle; if so,
    /// the unit normal to push it out along (user frame) and how deep it is.
    pub fn sphere_contact(&self, c: &Vector3<f64>, r: f64) -> Option<(Vector3<f64>, f64)> {
        let d = c - Vector3::from(self.center);
        if d.norm() > self.bounding_radius() + r {
            return None;
        }
        let (normal, dist) = self.surface(c);
        let depth = r - dist;
        (depth > 0.0).then_some((normal, depth))
    }

    /// Where `p` lies relative to the surface: the unit normal pointing
    /// out of the solid (user frame) and the signed distance (m, negative
    /// inside). Outside, the distance is exact and the normal points from
    /// the nearest surface point to `p`; inside, both are those of the
    /// nearest face (side or cap of a cylinder).
    pub fn surface(&self, p: &Vector3<f64>) -> (Vector3<f64>, f64) {
        let p = self.to_local(p - Vector3::from(self.center));
        let [a, b, h] = self.half_extents;
        let (normal, dist) = match self.shape {
            ObstacleShape::Sphere => {
                let dist = p.norm();
                let n = if dist > 1e-12 { p / dist } else { Vector3::z() };
                (n, dist - a)
            }
            ObstacleShape::Box => {
                let q = Vector3::new(p.x.clamp(-a, a), p.y.clamp(-b, b), p.z.clamp(-h, h));
                outside_or_face(p, q, [a - p.x.abs(), b - p.y.abs(), h - p.z.abs()])
            }
            ObstacleShape::Cylinder => {
                let rho = p.xy().norm();
                let s = if rho > a { a / rho } else { 1.0 };
                let q = Vector3::new(p.x * s, p.y * s, p.z.clamp(-h, h));
                let inside = rho <= a && p.z.abs() <= h;
                if inside {
                    // Out through the nearer of the side and the caps.
                    let (side, cap) = (a - rho, h - p.z.abs());
                    if side < cap {
                        let n = if rho > 1e-12 {
                            Vector3::new(p.x / rho, p.y / rho, 0.0)
                        } else {
                            Vector3::x()
                        };
                        (n, -side)
                    } else {
                        (Vector3::z() * p.z.signum(), -cap)
                    }
                } else {
                    let diff = p - q;
                    let dist = diff.norm();
                    (diff / dist, dist)
                }
            }
        };
        (self.to_world(normal), dist)
    }
}

/// Normal and signed distance of `p` from a box: along the separating
/// vector when it is outside (`q` the closest point), through the nearest
/// face when inside (`face_gaps` the distances to each pair of faces).
fn outside_or_face(p: Vector3<f64>, q: Vector3<f64>, face_gaps: [f64; 3]) -> (Vector3<f64>, f64) {
    let diff = p - q;
    let dist = diff.norm();
    if dist > 1e-12 {
        return (diff / dist, dist);
    }
    let k = (0..3)
        .min_by(|&i, &j| face_gaps[i].total_cmp(&face_gaps[j]))
        .unwrap_or(0);
    let mut n = Vector3::zeros();
    n[k] = if p[k] >= 0.0 { 1.0 } else { -1.0 };
    (n, -face_gaps[k])
}

#[cfg(test)]
mod tests {
    use super::*;
    use oceansim_protocol::payload::Vector;

    fn spawn(shape: ObstacleShape) -> SpawnObstacle {
        SpawnObstacle {
            id: None,
            shape,
            position: Vector([0.0, -5.0, 0.0]),
            size: Some(Vector([2.0, 4.0, 6.0])),
            radius: Some(1.0),
            height: Some(4.0),
            rotation: None,
        }
    }

    #[test]
    fn godot_obstacles_land_in_the_user_frame() {
        let b = Obstacle::from_spawn("b".into(), &spawn(ObstacleShape::Box));
        assert_eq!(b.center, [0.0, 0.0, -5.0]);
        assert_eq!(
            b.half_extents,
            [1.0, 3.0, 2.0],
            "Godot Y (up) size becomes user z"
        );
        let o = Vector3::new(-10.0, 0.0, -5.0);
        assert!((b.raycast(&o, &Vector3::x()).unwrap() - 9.0).abs() < 1e-12);
        let c = Obstacle::from_spawn("c".into(), &spawn(ObstacleShape::Cylinder));
        assert!((c.raycast(&o, &Vector3::x()).unwrap() - 9.0).abs() < 1e-12);
        let down = Vector3::new(0.0, 0.0, 5.0);
        assert!(
            (c.raycast(&down, &-Vector3::z()).unwrap() - 8.0).abs() < 1e-12,
            "cap at z = -3"
        );
        let s = Obstacle::from_spawn("s".into(), &spawn(ObstacleShape::Sphere));
        assert!((s.raycast(&o, &Vector3::x()).unwrap() - 9.0).abs() < 1e-12);
        assert!(s.raycast(&o, &-Vector3::x()).is_none());
        assert!(s.contains(&Vector3::new(0.0, 0.0, -5.5), 0.0));
        assert!(!s.contains(&Vector3::new(0.0, 0.0, -3.5), 0.4));
        assert!(s.covers_xy(0.5, 0.0, -5.0, 0.0) && !s.covers_xy(0.5, 0.0, -2.0, 0.0));
    }

    #[test]
    fn godot_rotation_turns_obstacles() {
        // Yaw 90°: the box's long horizontal side (Godot z, 6 m) now lies
        // along user x, so a ray along +x meets it at x = -3, not x = -1.
        let b = Obstacle::from_spawn(
            "b".into(),
            &SpawnObstacle {
                rotation: Some(Vector([0.0, 90.0, 0.0])),
                ..spawn(ObstacleShape::Box)
            },
        );
        let o = Vector3::new(-10.0, 0.0, -5.0);
        assert!((b.raycast(&o, &Vector3::x()).unwrap() - 7.0).abs() < 1e-12);
        assert!(b.contains(&Vector3::new(-2.5, 0.0, -5.0), 0.0));
        assert!(!b.contains(&Vector3::new(0.0, 2.5, -5.0), 0.0));
        assert!(b.covers_xy(-2.5, 0.0, -5.0, 0.0));
        // Pitch 90° lays the 4 m cylinder along user y (forward).
        let c = Obstacle::from_spawn(
            "c".into(),
            &SpawnObstacle {
                rotation: Some(Vector([90.0, 0.0, 0.0])),
                ..spawn(ObstacleShape::Cylinder)
            },
        );
        assert!(c.contains(&Vector3::new(0.0, 1.9, -5.0), 0.0));
        assert!(!c.contains(&Vector3::new(0.0, 0.0, -3.5), 0.0));
        let ahead = Vector3::new(0.0, -10.0, -5.0);
        assert!((c.raycast(&ahead, &Vector3::y()).unwrap() - 8.0).abs() < 1e-12);
        // A zero rotation is the axis-aligned fast path.
        let z = Obstacle::from_spawn(
            "z".into(),
            &SpawnObstacle {
                rotation: Some(Vector([0.0, 0.0, 0.0])),
                ..spawn(ObstacleShape::Box)
            },
        );
        assert!(z.rotation.is_none());
    }

    #[test]
    fn spheres_are_pushed_out_of_each_shape() {
        // Box: user half extents [1, 3, 2] at (0, 0, -5).
        let b = Obstacle::from_spawn("b".into(), &spawn(ObstacleShape::Box));
        let (n, d) = b
            .sphere_contact(&Vector3::new(1.2, 0.0, -5.0), 0.5)
            .unwrap();
        assert!((n - Vector3::x()).norm() < 1e-12 && (d - 0.3).abs() < 1e-12);
        // Centre inside, nearest face +z (0.5 below the top): out upward.
        let (n, d) = b
            .sphere_contact(&Vector3::new(0.0, 0.0, -3.5), 0.25)
            .unwrap();
        assert!((n - Vector3::z()).norm() < 1e-12 && (d - 0.75).abs() < 1e-12);
        assert!(b
            .sphere_contact(&Vector3::new(1.6, 0.0, -5.0), 0.5)
            .is_none());
        // Sphere of radius 1.
        let s = Obstacle::from_spawn("s".into(), &spawn(ObstacleShape::Sphere));
        let (n, d) = s
            .sphere_contact(&Vector3::new(0.0, -1.2, -5.0), 0.4)
            .unwrap();
        assert!((n + Vector3::y()).norm() < 1e-12 && (d - 0.2).abs() < 1e-12);
        // Cylinder r = 1, half height 2: side and cap.
        let c = Obstacle::from_spawn("c".into(), &spawn(ObstacleShape::Cylinder));
        let (n, d) = c
            .sphere_contact(&Vector3::new(0.0, 1.1, -5.0), 0.2)
            .unwrap();
        assert!((n - Vector3::y()).norm() < 1e-12 && (d - 0.1).abs() < 1e-12);
        let (n, d) = c
            .sphere_contact(&Vector3::new(0.2, 0.0, -2.9), 0.2)
            .unwrap();
        assert!((n - Vector3::z()).norm() < 1e-12 && (d - 0.1).abs() < 1e-12);
        // A yawed box pushes along its own (turned) face normal.
        let yawed = Obstacle::from_spawn(
            "y".into(),
            &SpawnObstacle {
                rotation: Some(Vector([0.0, 90.0, 0.0])),
                ..spawn(ObstacleShape::Box)
            },
        );
        let (n, _) = yawed
            .sphere_contact(&Vector3::new(-3.2, 0.0, -5.0), 0.5)
            .unwrap();
        assert!((n + Vector3::x()).norm() < 1e-9, "{n:?}");
    }
}

#[cfg(test)]
mod raycast_props {
    use super::*;
    use proptest::prelude::*;

    /// First point inside the obstacle by a dense 1 mm march.
    fn march(ob: &Obstacle, o: &Vector3<f64>, d: &Vector3<f64>, max: f64) -> Option<f64> {
        let mut s = 0.0;
        while s <= max {
            if ob.contains(&(o + d * s), 0.0) {
                return Some(s);
            }
            s += 0.001;
        }
        None
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]
        #[test]
        fn oriented_obstacle_raycasts_agree_with_a_dense_march(
            shape in 0usize..3, rx in -180.0f64..180.0, ry in -180.0f64..180.0, rz in -180.0f64..180.0,
            az in 0.0f64..std::f64::consts::TAU, el in -1.5f64..1.5, aim in -1.5f64..1.5,
        ) {
            let ob = Obstacle::from_spawn("o".into(), &SpawnObstacle {
                id: None,
                shape: [ObstacleShape::Sphere, ObstacleShape::Box, ObstacleShape::Cylinder][shape],
                position: oceansim_protocol::payload::Vector([1.0, -5.0, 2.0]),
                size: Some(oceansim_protocol::payload::Vector([1.0, 2.0, 3.0])),
                radius: Some(0.8),
                height: Some(2.5),
                rotation: Some(oceansim_protocol::payload::Vector([rx, ry, rz])),
            });
            // From 6 m out, aimed near the centre so about half the rays hit.
            let c = Vector3::from(ob.center);
            let u = Vector3::new(el.cos() * az.cos(), el.cos() * az.sin(), el.sin());
            let o = c + u * 6.0;
            let side = u.cross(&Vector3::new(0.3, 0.5, 0.8)).normalize();
            let d = (-u + side * aim).normalize();
            let fast = ob.raycast(&o, &d);
            let slow = march(&ob, &o, &d, 12.0);
            match (fast, slow) {
                (Some(a), Some(b)) => prop_assert!(a <= b + 1e-9 && b - a < 0.0011, "{a} vs {b}"),
                (None, None) => {}
                // A ray grazing an edge may touch it between march samples.
                (Some(_), None) => {}
                (None, Some(b)) => prop_assert!(false, "missed a hit at {b}"),
            }
        }
    }
}
