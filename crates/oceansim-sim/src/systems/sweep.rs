//! Swept contacts: an agent that moved far in its tick is carried from
//! where it began the tick toward where the movers put it, and stopped at
//! the first thing its body would touch on the way, so that the
//! end-of-tick projection ([`super::contacts`]) resolves a contact on the
//! side it came from instead of pushing it out of the far face of a thin
//! wall or past another agent.
//!
//! Only solids that moved more than [`SWEEP_FRACTION`] of their radius are
//! swept (most ticks move millimetres): below that the projection alone is
//! already right, since a body that starts clear and moves less than half
//! its radius cannot carry its centre past any surface's middle.
//!
//! Against obstacles and other agents the sweep is conservative
//! advancement: every obstacle and hull is convex, so the tangent plane at
//! the point of it nearest the moving centre bounds it, and the centre can
//! move freely until it comes within reach of that plane; repeating from
//! there converges on the first touch and never steps past it, whatever
//! the solid's thickness. It stops [`slop`] short of the exact touch, just
//! overlapping, so the projection then records the contact and removes the
//! velocity into it. The remaining motion slides along the surface touched
//! (frictionless, as the projection is), up to [`MAX_SLIDES`] touches a
//! tick. The seabed is a heightfield, not convex: each sample point's
//! centre is ray cast along the motion, and where it would meet the
//! seabed the body is stopped back along its path where its sphere meets
//! the seabed's tangent plane there, then slides along that plane. So no
//! centre ever passes under the seabed (through a crest or a canyon wall);
//! a sphere may still graze into relief curving up faster than its
//! tangent plane, which the projection then lifts it out of. The map edge
//! and the surface are half-spaces that the projection alone holds at any
//! speed.
//!
//! Agents move together: after each one has been swept against the scene,
//! every pair whose relative motion is large is tested along both paths at
//! once (one as sample spheres, the other's hull fixed, moving by the
//! difference) and both are cut back to the moment they touch; passes
//! repeat until no pair touches early, and pairs still touching after
//! [`MAX_PAIR_PASSES`] are held where they began the tick.
//!
//! The hull's attitude is the tick's end for the whole sweep (turning
//! within one tick is small); its sample spheres are those of the
//! projection, spaced no wider than the radius.

use super::contacts::Solid;
use nalgebra::Vector3;
use oceansim_scene::body::Body;
use oceansim_scene::Scene;

/// A solid is swept when it moved more than this fraction of its radius
/// in the tick (a pair, of the sum of their radii).
pub(super) const SWEEP_FRACTION: f64 = 0.5;
/// Most surfaces one solid slides along within one tick; the motion left
/// after the last is dropped.
pub(super) const MAX_SLIDES: usize = 4;
/// Most conservative-advancement steps toward one surface; a path that
/// grazes it more slowly stops at the last point known to be clear.
const MAX_ADVANCE: usize = 32;
/// Passes over the agent pairs before the pairs that still touch early
/// are held at their tick-start positions.
pub(super) const MAX_PAIR_PASSES: usize = 4;
/// The sweep stops this fraction of the radius short of the exact touch
/// (at most [`MAX_SLOP_M`]), so the projection sees the contact.
const SLOP_FRACTION: f64 = 0.05;
/// Largest stop-short distance (m).
const MAX_SLOP_M: f64 = 1e-3;

/// How far short of the exact touch a body of radius `r` stops (m).
fn slop(r: f64) -> f64 {
    (SLOP_FRACTION * r).min(MAX_SLOP_M)
}

/// Whether a displacement `d` is far enough, relative to `r`, to sweep.
#[inline]
fn far(d: &Vector3<f64>, r: f64) -> bool {
    let d2 = d.norm_squared();
    // Not finite: a bad start, never swept (the projection still holds).
    d2.is_finite() && d2 > (SWEEP_FRACTION * r).powi(2)
}

/// The first time `t` in [0, 1] at which the point `p0 + t·d` comes within
/// `reach` (to within `tol`) of a convex solid given by `surface` (outward
/// unit normal and signed distance of a point), with the normal there.
/// `None` when it never does, or when it starts within reach but is not
/// moving into the solid. Each step goes as far as the tangent plane at
/// the nearest point allows, which the convex solid lies behind, so no
/// step passes the first touch.
fn advance(
    p0: Vector3<f64>,
    d: Vector3<f64>,
    reach: f64,
    tol: f64,
    surface: impl Fn(&Vector3<f64>) -> (Vector3<f64>, f64),
) -> Option<(f64, Vector3<f64>)> {
    // Motion within this angle of the surface counts as along it: after a
    // slide the motion is tangent up to rounding, and over a whole tick (at
    // most 10 m) it closes in by under a micrometre, within the tolerance.
    let grazing = 1e-7 * d.norm();
    let mut t = 0.0;
    let mut n = Vector3::zeros();
    for _ in 0..MAX_ADVANCE {
        let (normal, dist) = surface(&(p0 + d * t));
        n = normal;
        let gap = dist - reach;
        let closing = -d.dot(&n);
        if closing <= grazing {
            return None;
        }
        if gap <= tol {
            return Some((t, n));
        }
        t += gap / closing;
        if t >= 1.0 {
            return None;
        }
    }
    Some((t, n))
}

/// Distance from `c` to the segment from `a` along `d`.
fn segment_distance(a: &Vector3<f64>, d: &Vector3<f64>, c: &Vector3<f64>) -> f64 {
    let len2 = d.norm_squared();
    let t = if len2 > 0.0 {
        ((c - a).dot(d) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (a + d * t - c).norm()
}

/// The first touch of a swept solid.
struct Hit {
    /// Fraction of the displacement travelled.
    t: f64,
    /// Unit normal of the surface touched (user frame), out of it.
    n: Vector3<f64>,
}

/// The first thing `s`'s body touches moving by `d` from centre `from`.
fn first_hit(s: &Solid, scene: &Scene, from: Vector3<f64>, d: Vector3<f64>) -> Option<Hit> {
    let slop = slop(s.r);
    let (reach, tol) = (s.r - slop, slop / 2.0);
    let mut best: Option<Hit> = None;
    let mut keep = |h: Hit| {
        if best.as_ref().is_none_or(|b| h.t < b.t) {
            best = Some(h);
        }
    };
    for ob in scene.obstacles.iter() {
        let c = Vector3::from(ob.center);
        if segment_distance(&from, &d, &c) > ob.bounding_radius() + s.half + s.r {
            continue;
        }
        for off in s.offsets() {
            if let Some((t, n)) = advance(from + off, d, reach, tol, |p| ob.surface(p)) {
                keep(Hit { t, n });
            }
        }
    }
    let terrain = &scene.terrain;
    let drop = s.half * s.axis.z.abs();
    let lowest = from.z.min(from.z + d.z) - drop;
    let len = d.norm();
    if lowest <= terrain.max_height() && len > 0.0 {
        let dir = d / len;
        for off in s.offsets() {
            let o = from + off;
            let Some(dist) = terrain.raycast(&o, &dir, len) else {
                continue;
            };
            let p = o + dir * dist;
            let mut n = terrain.normal(p.x, p.y);
            let mut closing = -d.dot(&n);
            // A centre already under the seabed and leaving it is let go:
            // the projection lifts it.
            if dist <= 0.0 && closing <= 0.0 {
                continue;
            }
            // Entering where the smoothed normal says it leaves (a sharp
            // crest): stop dead rather than slide on under the seabed.
            if closing <= 0.0 {
                (n, closing) = (-dir, len);
            }
            // Back along the path from where the centre meets the seabed
            // to where the sphere meets the tangent plane there: that part
            // of the path is clear of obstacles, and the slide goes on
            // from it along the plane.
            let back = reach / closing;
            keep(Hit {
                t: (dist / len - back).max(0.0),
                n,
            });
        }
    }
    best
}

/// Sweeps `s` from its tick start to its centre against the scene: it ends
/// at its first touch (just overlapping), having slid along what it met.
#[inline]
pub(super) fn scene(s: &mut Solid, scene: &Scene) {
    if far(&(s.centre - s.start), s.r) {
        swept(s, scene);
    }
}

/// [`scene`] for a solid that moved far.
fn swept(s: &mut Solid, scene: &Scene) {
    let mut d = s.centre - s.start;
    let mut at = s.start;
    for slide in 0..=MAX_SLIDES {
        let Some(hit) = first_hit(s, scene, at, d) else {
            if slide == 0 {
                // Nothing in the way: the movers' end stands as it is.
                return;
            }
            at += d;
            break;
        };
        at += d * hit.t;
        let into = s.velocity.dot(&hit.n);
        if into < 0.0 {
            s.velocity -= hit.n * into;
        }
        if slide == MAX_SLIDES {
            break;
        }
        d *= 1.0 - hit.t;
        let into = d.dot(&hit.n);
        if into < 0.0 {
            d -= hit.n * into;
        }
        if !far(&d, slop(s.r)) {
            break;
        }
    }
    s.centre = at;
    s.moved = true;
}

/// Signed distance and outward normal of `p` from a hull.
fn hull_surface(b: &Body, p: &Vector3<f64>) -> (Vector3<f64>, f64) {
    let diff = p - b.closest_on_axis(p);
    let dist = diff.norm();
    let n = if dist > 1e-12 {
        diff / dist
    } else {
        Vector3::z()
    };
    (n, dist - b.r)
}

/// The fraction of both tick motions at which `a` and `b` first touch,
/// moving together along their paths; `None` when they do not, or when
/// their relative motion is too small to pass each other.
fn pair_touch(a: &Solid, b: &Solid) -> Option<f64> {
    // The solid with fewer samples moves; the other's hull stays put.
    let (p, q) = if a.half <= b.half { (a, b) } else { (b, a) };
    let d = (p.centre - p.start) - (q.centre - q.start);
    if !far(&d, p.r + q.r) {
        return None;
    }
    let slop = slop(p.r.min(q.r));
    let hull = Body::capsule(q.start, q.axis, q.half, q.r);
    p.offsets()
        .filter_map(|off| {
            advance(p.start + off, d, p.r - slop, slop / 2.0, |x| {
                hull_surface(&hull, x)
            })
        })
        .map(|(t, _)| t)
        .min_by(f64::total_cmp)
}

/// Whether the boxes bounding two solids' paths are apart along y or z
/// (x is the sweep and prune's).
fn apart(a: &Solid, b: &Solid) -> bool {
    let (ea, eb) = (a.half + a.r, b.half + b.r);
    (1..3).any(|k| {
        let (lo_a, hi_a) = (
            a.start[k].min(a.centre[k]) - ea,
            a.start[k].max(a.centre[k]) + ea,
        );
        let (lo_b, hi_b) = (
            b.start[k].min(b.centre[k]) - eb,
            b.start[k].max(b.centre[k]) + eb,
        );
        lo_a > hi_b || lo_b > hi_a
    })
}

/// Cuts the solid back to fraction `t` of its tick motion in pass `pass`.
fn cut(s: &mut Solid, t: f64, pass: usize) {
    s.centre = s.start + (s.centre - s.start) * t;
    s.moved = true;
    s.cut_pass = pass;
}

/// Cuts back every pair of solids that would pass into each other on the
/// way to their (scene-swept) ends, so that none passes through another.
/// `keys` is scratch space.
pub(super) fn pairs(solids: &mut [Solid], keys: &mut Vec<(f64, usize)>) {
    if !solids.iter().any(|s| far(&(s.centre - s.start), s.r)) {
        return;
    }
    for s in solids.iter_mut() {
        s.cut_pass = 0;
    }
    let extent = |s: &Solid| s.half + s.r;
    let west = |s: &Solid| s.start.x.min(s.centre.x) - extent(s);
    let east = |s: &Solid| s.start.x.max(s.centre.x) + extent(s);
    // Passes from 1. A pair is tested again only when one of the two was
    // cut since it last was: otherwise it still does not touch. Passes
    // after MAX_PAIR_PASSES hold touching pairs at their starts, and stop
    // once a pass finds none: each such pass stops at least one more
    // solid, and two solids that both stay put never touch early.
    for pass in 1..=MAX_PAIR_PASSES + solids.len() + 1 {
        let hold = pass > MAX_PAIR_PASSES;
        // Sweep and prune along x on the paths' extents at the pass's
        // start: a cut only shrinks an extent, so stopping at a stale
        // west end never skips a pair that overlaps.
        keys.clear();
        keys.extend(solids.iter().enumerate().map(|(i, s)| (west(s), i)));
        keys.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut touched = false;
        for k in 0..keys.len() {
            let i = keys[k].1;
            for &(west_j, j) in &keys[k + 1..] {
                if west_j > east(&solids[i]) {
                    break;
                }
                let fresh = |s: &Solid| pass == 1 || s.cut_pass + 1 >= pass;
                if !(fresh(&solids[i]) || fresh(&solids[j])) || apart(&solids[i], &solids[j]) {
                    continue;
                }
                if let Some(t) = pair_touch(&solids[i], &solids[j]) {
                    let t = if hold { 0.0 } else { t };
                    cut(&mut solids[i], t, pass);
                    cut(&mut solids[j], t, pass);
                    touched = true;
                }
            }
        }
        if !touched {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::frames::User;
    use nalgebra::{UnitQuaternion, Vector3, Vector6};
    use oceansim_protocol::payload::{ObstacleShape, SpawnObstacle, Vector};
    use oceansim_scene::obstacle::Obstacle;
    use oceansim_scene::{scenario, Scene};
    use oceansim_vehicles::VehicleState;
    use proptest::prelude::*;
    use std::sync::Arc;

    fn ned(u: Vector3<f64>) -> Vector3<f64> {
        Vector3::new(u.y, u.x, -u.z)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
        /// The torpedo's hull (radius 0.0955 m, 1.33 m long), any way
        /// turned, moving up to 10 m in one tick (the 100 m/s plausibility
        /// bound at the 0.1 s tick) toward a vertical wall 1 µm to 0.5 m
        /// thick turned any way: as the batch lanes and the world's
        /// vehicles resolve it, no end of its axis ends within a radius of
        /// the wall or beyond it.
        #[test]
        fn a_hull_up_to_ten_metres_a_tick_never_ends_inside_or_beyond_a_thin_wall(
            yaw in -80.0f64..80.0,
            log_thickness in -6.0f64..-0.3,
            heading in 0.0f64..std::f64::consts::TAU,
            pitch in -0.6f64..0.6,
            dist in 0.0f64..10.0,
            off in -1.0f64..1.0,
            climb in -0.3f64..0.3,
            gap in 0.0f64..3.0,
        ) {
            let thickness = 10f64.powf(log_thickness);
            let loaded = Arc::new(scenario::load("PaleMap").unwrap());
            let mut scene = Scene::new(loaded, 0, User([0.0, 0.0, -5.0]));
            let wall = Obstacle::from_spawn("wall".into(), &SpawnObstacle {
                id: None,
                shape: ObstacleShape::Box,
                position: Vector([0.0, -10.0, -15.0]),
                size: Some(Vector([200.0, 80.0, thickness])),
                radius: None,
                height: None,
                rotation: Some(Vector([0.0, yaw, 0.0])),
            });
            let c = Vector3::from(wall.center);
            let n = wall.rotation.map_or(Vector3::y(), |r| r * Vector3::y());
            let n = if n.y < 0.0 { -n } else { n };
            scene.push_obstacle(wall);
            let (r, half) = (0.0955, 0.665 - 0.0955);
            let mut start = c + n * (thickness / 2.0 + half + r + 0.01 + gap);
            start.z = -5.0;
            let axis = Vector3::new(
                pitch.cos() * heading.cos(),
                pitch.cos() * heading.sin(),
                pitch.sin(),
            );
            let t = n.cross(&Vector3::z());
            let dir = (-n + t * off + Vector3::z() * climb).normalize();
            let end = start + dir * dist;
            let attitude = UnitQuaternion::rotation_between(&Vector3::x(), &ned(axis))
                .unwrap_or_else(UnitQuaternion::identity);
            let mut state = VehicleState {
                position_ned: ned(end),
                attitude,
                nu: Vector6::zeros(),
            };
            let mut v = ned(dir * dist / 0.1);
            crate::systems::vehicle_scene_contacts(&scene, ned(start), &mut state, &mut v, r, half);
            let p = state.position_ned;
            let p = Vector3::new(p.y, p.x, -p.z);
            for e in [p - axis * half, p + axis * half] {
                let d = n.dot(&(e - c));
                prop_assert!(
                    d >= thickness / 2.0 + r - 1e-6,
                    "an end of the hull {d} m from the mid-plane (half thickness {})",
                    thickness / 2.0
                );
            }
        }
    }
}
