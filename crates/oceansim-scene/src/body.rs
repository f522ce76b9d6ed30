//! Agents as solids: a capsule (a segment swept by a radius) along the
//! body's x axis, or a sphere when the segment is a point. Used for ray
//! casts (sensors see other agents) and for agent-agent contacts.
//!
//! Everything is in the user frame (x east, y north, z up, m).

use nalgebra::Vector3;

/// One agent's solid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Body {
    /// One end of the axis segment.
    pub a: Vector3<f64>,
    /// The other end (equal to `a` for a sphere).
    pub b: Vector3<f64>,
    /// Radius (m).
    pub r: f64,
}

impl Body {
    /// A capsule centred at `c`, axis `axis` (unit), half segment `half`.
    pub fn capsule(c: Vector3<f64>, axis: Vector3<f64>, half: f64, r: f64) -> Self {
        Body {
            a: c - axis * half,
            b: c + axis * half,
            r,
        }
    }

    /// The point of the axis segment closest to `p`.
    pub fn closest_on_axis(&self, p: &Vector3<f64>) -> Vector3<f64> {
        let ab = self.b - self.a;
        let len2 = ab.norm_squared();
        if len2 < 1e-24 {
            return self.a;
        }
        let t = ((p - self.a).dot(&ab) / len2).clamp(0.0, 1.0);
        self.a + ab * t
    }

    /// Distance along unit `d` from `o` to the surface, if the ray meets it.
    pub fn raycast(&self, o: &Vector3<f64>, d: &Vector3<f64>) -> Option<f64> {
        // The nearest of: the two end spheres and the cylinder between.
        let mut best = sphere_hit(o, d, &self.a, self.r);
        let mut consider = |t: Option<f64>| {
            if let Some(t) = t {
                if best.is_none_or(|b| t < b) {
                    best = Some(t);
                }
            }
        };
        consider(sphere_hit(o, d, &self.b, self.r));
        let ab = self.b - self.a;
        let len = ab.norm();
        if len > 1e-12 {
            let u = ab / len;
            // Components perpendicular to the axis.
            let (oc, dd) = (o - self.a, d - u * d.dot(&u));
            let ocp = oc - u * oc.dot(&u);
            let (qa, qb, qc) = (
                dd.norm_squared(),
                2.0 * ocp.dot(&dd),
                ocp.norm_squared() - self.r * self.r,
            );
            if qa > 1e-18 {
                let disc = qb * qb - 4.0 * qa * qc;
                if disc >= 0.0 {
                    let t = (-qb - disc.sqrt()) / (2.0 * qa);
                    let s = (oc + d * t).dot(&u);
                    if t >= 0.0 && (0.0..=len).contains(&s) {
                        consider(Some(t));
                    }
                }
            }
            if qc <= 0.0 && (0.0..=len).contains(&oc.dot(&u)) {
                consider(Some(0.0));
            }
        }
        best
    }

    /// If the two solids overlap: the unit normal pointing from `other` to
    /// `self`, and how deep they overlap (m).
    pub fn overlap(&self, other: &Body) -> Option<(Vector3<f64>, f64)> {
        let (p, q) = closest_points(self.a, self.b, other.a, other.b);
        let diff = p - q;
        let dist = diff.norm();
        let depth = self.r + other.r - dist;
        if depth <= 0.0 {
            return None;
        }
        let n = if dist > 1e-12 {
            diff / dist
        } else {
            Vector3::z()
        };
        Some((n, depth))
    }
}

fn sphere_hit(o: &Vector3<f64>, d: &Vector3<f64>, c: &Vector3<f64>, r: f64) -> Option<f64> {
    let oc = o - c;
    let b = oc.dot(d);
    let disc = b * b - (oc.norm_squared() - r * r);
    if disc < 0.0 {
        return None;
    }
    let (t0, t1) = (-b - disc.sqrt(), -b + disc.sqrt());
    if t1 < 0.0 {
        None
    } else {
        Some(t0.max(0.0))
    }
}

/// Closest points of segments p1–q1 and p2–q2 (Ericson, Real-Time
/// Collision Detection, 5.1.9).
fn closest_points(
    p1: Vector3<f64>,
    q1: Vector3<f64>,
    p2: Vector3<f64>,
    q2: Vector3<f64>,
) -> (Vector3<f64>, Vector3<f64>) {
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, e, f) = (d1.norm_squared(), d2.norm_squared(), d2.dot(&r));
    let eps = 1e-18;
    let (s, t) = if a <= eps && e <= eps {
        (0.0, 0.0)
    } else if a <= eps {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = d1.dot(&r);
        if e <= eps {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = d1.dot(&d2);
            let denom = a * e - b * b;
            let mut s = if denom > eps {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let mut t = (b * s + f) / e;
            if t < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            }
            (s, t)
        }
    };
    (p1 + d1 * s, p2 + d2 * t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capsule_ray_casts_hit_side_and_caps() {
        let c = Body::capsule(Vector3::zeros(), Vector3::x(), 1.0, 0.5);
        // From the side: the cylinder at y = -0.5.
        let t = c
            .raycast(&Vector3::new(0.3, -5.0, 0.0), &Vector3::y())
            .unwrap();
        assert!((t - 4.5).abs() < 1e-12);
        // Along the axis: the end cap at x = -1.5.
        let t = c
            .raycast(&Vector3::new(-5.0, 0.0, 0.0), &Vector3::x())
            .unwrap();
        assert!((t - 3.5).abs() < 1e-12);
        assert!(c
            .raycast(&Vector3::new(0.0, -5.0, 0.6), &Vector3::y())
            .is_none());
        assert!(c
            .raycast(&Vector3::new(0.0, 5.0, 0.0), &Vector3::y())
            .is_none());
        // Inside: distance 0.
        assert_eq!(
            c.raycast(&Vector3::new(0.5, 0.0, 0.0), &Vector3::y()),
            Some(0.0)
        );
    }

    #[test]
    fn overlaps_of_capsules_and_spheres() {
        let a = Body::capsule(Vector3::zeros(), Vector3::x(), 1.0, 0.5);
        let s = Body::capsule(Vector3::new(0.2, 0.8, 0.0), Vector3::x(), 0.0, 0.5);
        let (n, d) = s.overlap(&a).unwrap();
        assert!((n - Vector3::y()).norm() < 1e-12 && (d - 0.2).abs() < 1e-12);
        // Crossed capsules meet at their axes' closest points.
        let b = Body::capsule(Vector3::new(0.0, 0.0, 0.9), Vector3::y(), 2.0, 0.5);
        let (n, d) = b.overlap(&a).unwrap();
        assert!((n - Vector3::z()).norm() < 1e-12 && (d - 0.1).abs() < 1e-12);
        let far = Body::capsule(Vector3::new(3.0, 0.0, 0.0), Vector3::x(), 0.0, 0.4);
        assert!(far.overlap(&a).is_none());
    }
}
