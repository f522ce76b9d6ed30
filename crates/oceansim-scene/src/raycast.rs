//! Ray casts against everything a sensor can see: the seabed, static
//! obstacles, other agents and the sea surface (user frame, m).

use crate::body::Body;
use crate::obstacle::Obstacle;
use crate::ray_bins::{bin_of, Bins};
use crate::terrain::{SeabedHit, Terrain};
use nalgebra::Vector3;

/// Above this many candidates (and [`BIN_RAYS_ABOVE`] rays) a sample bins
/// its candidates by direction; below, testing them all is cheaper.
const BIN_ABOVE: usize = 16;
/// Rays a sample must cast for its candidates to be binned.
const BIN_RAYS_ABOVE: usize = 256;

/// What a ray hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Hit {
    /// Nothing within range (or the sea surface).
    None = 0,
    /// The seabed.
    Terrain = 1,
    /// A static obstacle.
    Obstacle = 2,
    /// Another agent.
    Agent = 3,
}

/// Rays [`SceneView::raycast_surfaces`] casts before it finds their
/// normals: a camera row's worth fits in the first-level cache.
const BATCH: usize = 64;

/// A ray's nearest return with the surface it met.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RayHit {
    /// Distance along the ray (m); the ray's range on a miss.
    pub t: f64,
    /// What was hit.
    pub hit: Hit,
    /// Unit surface normal at the hit (user frame, out of the solid).
    pub normal: Vector3<f64>,
    /// Which obstacle or agent was hit (an index into
    /// [`SceneView::obstacles`] or [`SceneView::bodies`]; 0 otherwise).
    pub index: usize,
}

impl RayHit {
    /// Cosine of the incidence angle between the ray `d` (unit) and the
    /// surface normal: 1 at normal incidence, 0 at grazing.
    pub fn cos_incidence(&self, d: &Vector3<f64>) -> f64 {
        (-d.dot(&self.normal)).clamp(0.0, 1.0)
    }
}

/// A cone of ray directions from one origin (user frame): every ray of a
/// sample lies within `half_angle` of `axis`, so an obstacle or agent whose
/// bounding sphere lies wholly outside the cone can be left out of the
/// sample's candidates (a camera sees a fifth of the directions around it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cone {
    /// Unit axis.
    pub axis: Vector3<f64>,
    /// Half-angle (rad), in [0, π].
    pub half_angle: f64,
}

impl Cone {
    /// The cone around `dirs` (any lengths): their mean direction as the
    /// axis and the widest of them from it, padded for rounding. `None`
    /// when they point every way (no axis) or there are none.
    pub fn around<'d>(dirs: impl Iterator<Item = &'d Vector3<f64>> + Clone) -> Option<Cone> {
        // Two passes, no per-direction normalisation in the first: a
        // camera's 76,800 rays take about 0.2 ms, a few % of its cast.
        let axis = dirs
            .clone()
            .fold(Vector3::zeros(), |a, d| a + d / d.norm())
            .try_normalize(1e-9)?;
        let mut cos_min: f64 = 1.0;
        for d in dirs {
            let c = d.dot(&axis) / d.norm();
            // NaN (a zero or non-finite direction) gives no cone.
            if c.is_nan() {
                return None;
            }
            cos_min = cos_min.min(c);
        }
        let half_angle = cos_min.clamp(-1.0, 1.0).acos() + 1e-6;
        (half_angle < std::f64::consts::PI).then_some(Cone { axis, half_angle })
    }

    /// The same cone turned by `rotate` (e.g. a sensor's beams' cone into
    /// the user frame): its half-angle widened for the rotation's rounding.
    pub fn turned(&self, rotate: impl Fn(&Vector3<f64>) -> Vector3<f64>) -> Option<Cone> {
        Some(Cone {
            axis: rotate(&self.axis).try_normalize(1e-9)?,
            half_angle: self.half_angle + 1e-6,
        })
    }

    /// Whether a ray within the cone from its apex could reach the sphere
    /// at `c` (relative to the apex) of radius `r`: the angle from the axis
    /// to the sphere's centre is at most the half-angle plus the sphere's
    /// angular radius (padded for rounding).
    fn may_reach(&self, c: &Vector3<f64>, r: f64) -> bool {
        let n = c.norm();
        if n <= r || !n.is_finite() || !r.is_finite() {
            // The apex is in the sphere, or the numbers are not finite:
            // keep it and let the exact test decide, ray by ray.
            return true;
        }
        let from_axis = (c.dot(&self.axis) / n).clamp(-1.0, 1.0).acos();
        let reach = self.half_angle + (r / n).asin() + 1e-6;
        from_axis <= reach || from_axis.is_nan() || reach.is_nan()
    }
}

/// The geometry sensors see.
#[derive(Debug, Clone, Copy)]
pub struct SceneView<'a> {
    /// Seabed.
    pub terrain: &'a Terrain,
    /// Static obstacles.
    pub obstacles: &'a [Obstacle],
    /// Other agents' solids (never the sensor's own vehicle).
    pub bodies: &'a [Body],
}

/// The obstacles and agents a ray from one origin could reach, found once
/// for all of a sample's beams.
#[derive(Debug, Clone, Default)]
pub struct Candidates {
    /// Indices into [`SceneView::obstacles`].
    pub obstacles: Vec<usize>,
    /// Indices into [`SceneView::bodies`].
    pub bodies: Vec<usize>,
    /// The lists binned by direction from one origin, when large.
    binned: Option<Binned>,
    /// The lists' bounding spheres from one origin, in columns.
    spheres: Option<Spheres>,
}

/// Most candidates [`Spheres`] holds (one bit each in a ray's mask).
const SPHERES_MAX: usize = 64;

/// The candidates' bounding spheres relative to one origin, in columns, so
/// one branch-free (vectorised) pass per ray finds the few a ray could meet
/// before `nearest`'s exact sphere test and hit test run on those alone.
/// Its test is padded against rounding: it keeps every candidate the exact
/// test keeps (and a hair more), so the hits are bit-identical.
#[derive(Debug, Clone)]
struct Spheres {
    origin: Vector3<f64>,
    obstacles: usize,
    bodies: usize,
    /// Centre minus origin (m).
    x: Vec<f64>,
    y: Vec<f64>,
    z: Vec<f64>,
    /// Radius (m), padded.
    r: Vec<f64>,
    /// Radius² padded by the rounding of |c|² − (c·d)² (m²).
    r2: Vec<f64>,
    /// |centre − origin|² (m²).
    n2: Vec<f64>,
}

impl Spheres {
    fn new(
        o: &Vector3<f64>,
        lists: (usize, usize),
        spheres: impl Iterator<Item = (Vector3<f64>, f64)>,
    ) -> Self {
        let mut s = Spheres {
            origin: *o,
            obstacles: lists.0,
            bodies: lists.1,
            x: Vec::new(),
            y: Vec::new(),
            z: Vec::new(),
            r: Vec::new(),
            r2: Vec::new(),
            n2: Vec::new(),
        };
        for (c, r) in spheres {
            let c = c - o;
            let n2 = c.norm_squared();
            s.x.push(c.x);
            s.y.push(c.y);
            s.z.push(c.z);
            // Relative rounding of a few ulps in c·d and |c|² is far
            // below these pads.
            s.r.push(r * (1.0 + 1e-9) + 1e-9);
            s.r2.push(r * r + 1e-9 * (n2 + r * r) + 1e-12);
            s.n2.push(n2);
        }
        s
    }

    /// Bit k set: candidate k's sphere may meet the unit ray `d` before
    /// `best` (m).
    #[inline]
    fn mask(&self, d: &Vector3<f64>, best: f64) -> u64 {
        let best = best * (1.0 + 1e-9) + 1e-9;
        let n = self.x.len();
        let (x, y, z, r, r2, n2) = (
            &self.x[..n],
            &self.y[..n],
            &self.z[..n],
            &self.r[..n],
            &self.r2[..n],
            &self.n2[..n],
        );
        let mut mask = 0u64;
        for k in 0..n {
            let along = x[k] * d.x + y[k] * d.y + z[k] * d.z;
            let keep =
                (along + r[k] >= 0.0) & (along - r[k] <= best) & (n2[k] - along * along <= r2[k]);
            mask |= u64::from(keep) << k;
        }
        mask
    }
}

/// [`Bins`] over the obstacle positions then the body positions, valid for
/// rays from `origin` while the lists keep these lengths.
#[derive(Debug, Clone)]
struct Binned {
    origin: Vector3<f64>,
    obstacles: usize,
    bodies: usize,
    bins: Bins,
}

impl SceneView<'_> {
    /// Obstacles and agents that a ray of length `max` from `o` could reach.
    pub fn candidates(&self, o: &Vector3<f64>, max: f64) -> Candidates {
        let obstacles = self
            .obstacles
            .iter()
            .enumerate()
            .filter(|(_, ob)| (Vector3::from(ob.center) - o).norm() - ob.bounding_radius() <= max)
            .map(|(i, _)| i)
            .collect();
        let bodies = self
            .bodies
            .iter()
            .enumerate()
            .filter(|(_, b)| {
                let r = (b.b - b.a).norm() * 0.5 + b.r;
                ((b.a + b.b) * 0.5 - o).norm() - r <= max
            })
            .map(|(i, _)| i)
            .collect();
        Candidates {
            obstacles,
            bodies,
            binned: None,
            spheres: None,
        }
    }

    /// The candidates' bounding spheres (centre, radius), obstacles first.
    fn spheres_of<'c>(
        &'c self,
        c: &'c Candidates,
    ) -> impl Iterator<Item = (Vector3<f64>, f64)> + 'c {
        c.obstacles
            .iter()
            .map(|&i| {
                let ob = &self.obstacles[i];
                (Vector3::from(ob.center), ob.bounding_radius())
            })
            .chain(c.bodies.iter().map(|&i| body_sphere(&self.bodies[i])))
    }

    /// Like [`SceneView::candidates`] for a sample of `rays` rays from
    /// `o`: when both are many, also bins them by direction so each ray
    /// tests only those it could reach (the same hits, bit for bit).
    pub fn candidates_for(&self, o: &Vector3<f64>, max: f64, rays: usize) -> Candidates {
        self.candidates_within(o, max, rays, None)
    }

    /// Like [`SceneView::candidates_for`] for rays that all lie in `cone`:
    /// candidates whose bounding sphere the cone misses are left out (rays
    /// in the cone would skip them by the same sphere test, so the hits are
    /// the same, bit for bit).
    pub fn candidates_within(
        &self,
        o: &Vector3<f64>,
        max: f64,
        rays: usize,
        cone: Option<&Cone>,
    ) -> Candidates {
        let mut c = self.candidates(o, max);
        if let Some(cone) = cone {
            c.obstacles.retain(|&i| {
                let ob = &self.obstacles[i];
                cone.may_reach(&(Vector3::from(ob.center) - o), ob.bounding_radius())
            });
            c.bodies.retain(|&i| {
                let (centre, r) = body_sphere(&self.bodies[i]);
                cone.may_reach(&(centre - o), r)
            });
        }
        let count = c.obstacles.len() + c.bodies.len();
        if rays > 1 && count > 0 && count <= SPHERES_MAX {
            let spheres = Spheres::new(o, (c.obstacles.len(), c.bodies.len()), self.spheres_of(&c));
            c.spheres = Some(spheres);
        }
        // Building the bins costs up to all 2,048 bins per candidate (a
        // sphere around the origin): worth it only for many rays.
        if rays > BIN_RAYS_ABOVE && c.obstacles.len() + c.bodies.len() > BIN_ABOVE {
            let bins = Bins::new(o, self.spheres_of(&c));
            c.binned = Some(Binned {
                origin: *o,
                obstacles: c.obstacles.len(),
                bodies: c.bodies.len(),
                bins,
            });
        }
        c
    }

    /// Nearest hit along unit `d` from `o` within `max` m.
    pub fn raycast(&self, o: &Vector3<f64>, d: &Vector3<f64>, max: f64) -> (f64, Hit) {
        self.raycast_among(o, d, max, &self.candidates(o, max))
    }

    /// Like [`SceneView::raycast`], testing only `candidates` (a broad
    /// phase done once per sample).
    pub fn raycast_among(
        &self,
        o: &Vector3<f64>,
        d: &Vector3<f64>,
        max: f64,
        candidates: &Candidates,
    ) -> (f64, Hit) {
        let (t, hit, _, _) = self.nearest(o, d, max, candidates);
        (t, hit)
    }

    /// Like [`SceneView::raycast_among`], with the unit normal of the
    /// surface hit (user frame, pointing out of the solid; zero on a miss).
    pub fn raycast_surface(
        &self,
        o: &Vector3<f64>,
        d: &Vector3<f64>,
        max: f64,
        candidates: &Candidates,
    ) -> RayHit {
        let (t, hit, index, seabed) = self.nearest(o, d, max, candidates);
        let mut r = RayHit {
            t,
            hit,
            normal: Vector3::zeros(),
            index,
        };
        r.normal = self.normal_of(o, d, &r, seabed.as_ref());
        r
    }

    /// [`SceneView::raycast_surface`] for each of `dirs` (unit, user frame)
    /// into `out`, in order, the same hits to the bit: a batch of rays
    /// first, then their normals in a second pass, where one ray's square
    /// root and division overlap the next's instead of waiting on the
    /// walk's branches. Rays past the shorter of the two are left out.
    pub fn raycast_surfaces(
        &self,
        o: &Vector3<f64>,
        dirs: &[Vector3<f64>],
        max: f64,
        candidates: &Candidates,
        out: &mut [RayHit],
    ) {
        for (dirs, out) in dirs.chunks(BATCH).zip(out.chunks_mut(BATCH)) {
            let mut seabed = [None; BATCH];
            for ((d, r), s) in dirs.iter().zip(out.iter_mut()).zip(&mut seabed) {
                let (t, hit, index, at) = self.nearest(o, d, max, candidates);
                *r = RayHit {
                    t,
                    hit,
                    normal: Vector3::zeros(),
                    index,
                };
                *s = at;
            }
            for ((d, r), s) in dirs.iter().zip(out.iter_mut()).zip(&seabed) {
                r.normal = self.normal_of(o, d, r, s.as_ref());
            }
        }
    }

    /// The unit normal (out of the solid) where ray `d` from `o` returned
    /// `r`; zero on a miss.
    #[inline]
    fn normal_of(
        &self,
        o: &Vector3<f64>,
        d: &Vector3<f64>,
        r: &RayHit,
        seabed: Option<&SeabedHit>,
    ) -> Vector3<f64> {
        let p = o + d * r.t;
        match (r.hit, seabed) {
            (Hit::None, _) => Vector3::zeros(),
            (Hit::Terrain, Some(seabed)) => seabed.normal(),
            (Hit::Terrain, None) => self.terrain.normal(p.x, p.y),
            // A vanishing sphere at the hit point is pushed out along the
            // surface normal.
            (Hit::Obstacle, _) => self.obstacles[r.index]
                .sphere_contact(&p, 1e-6)
                .map_or(-d, |(n, _)| n),
            (Hit::Agent, _) => {
                let b = &self.bodies[r.index];
                (p - b.closest_on_axis(&p))
                    .try_normalize(1e-12)
                    .unwrap_or(-d)
            }
        }
    }

    /// The nearest hit and, for obstacles and agents, which one; with
    /// where the ray met the seabed, if it did (nearest or not).
    fn nearest(
        &self,
        o: &Vector3<f64>,
        d: &Vector3<f64>,
        max: f64,
        candidates: &Candidates,
    ) -> (f64, Hit, usize, Option<SeabedHit>) {
        let mut best = (max, Hit::None);
        let mut index = 0;
        if o.z > 0.0 && d.z >= 0.0 {
            return (best.0, best.1, index, None);
        }
        let seabed = self.terrain.raycast_hit(o, d, max);
        if let Some(hit) = seabed {
            best = (hit.t, Hit::Terrain);
        }
        // The bounding-sphere rejection `nearest` has always done; a
        // binned candidate list leaves out only candidates it would skip.
        let obstacle = |i: usize, best: &mut (f64, Hit), index: &mut usize| {
            let ob = &self.obstacles[i];
            if rejected(
                Vector3::from(ob.center) - o,
                ob.bounding_radius(),
                d,
                best.0,
            ) {
                return;
            }
            if let Some(t) = ob.raycast(o, d) {
                if t < best.0 {
                    *best = (t, Hit::Obstacle);
                    *index = i;
                }
            }
        };
        let body = |i: usize, best: &mut (f64, Hit), index: &mut usize| {
            let b = &self.bodies[i];
            let (c, r) = body_sphere(b);
            if rejected(c - o, r, d, best.0) {
                return;
            }
            if let Some(t) = b.raycast(o, d) {
                if t < best.0 {
                    *best = (t, Hit::Agent);
                    *index = i;
                }
            }
        };
        // The bins assume the unit ray the sphere test assumes: off by
        // 1e-14 in |d|², its admitted cone grows by under 2e-7 rad, within
        // the bins' padding.
        let unit = (d.norm_squared() - 1.0).abs() <= 1e-14;
        // The ray's bin only when there are bins: `bin_of` costs two
        // `atan2`, more than testing a few candidates.
        let binned = candidates.bins_for(o).filter(|_| unit);
        match binned.and_then(|bins| bin_of(d).map(|bin| (bins, bin))) {
            Some((bins, bin)) => {
                let n = candidates.obstacles.len();
                for &p in bins.along(bin) {
                    let p = p as usize;
                    match p.checked_sub(n) {
                        None => obstacle(candidates.obstacles[p], &mut best, &mut index),
                        Some(q) => body(candidates.bodies[q], &mut best, &mut index),
                    }
                }
            }
            None => match candidates.spheres_for(o).filter(|_| unit) {
                Some(spheres) => {
                    let n = candidates.obstacles.len();
                    let mut mask = spheres.mask(d, best.0);
                    while mask != 0 {
                        let p = mask.trailing_zeros() as usize;
                        mask &= mask - 1;
                        match p.checked_sub(n) {
                            None => obstacle(candidates.obstacles[p], &mut best, &mut index),
                            Some(q) => body(candidates.bodies[q], &mut best, &mut index),
                        }
                    }
                }
                None => {
                    for &i in &candidates.obstacles {
                        obstacle(i, &mut best, &mut index);
                    }
                    for &i in &candidates.bodies {
                        body(i, &mut best, &mut index);
                    }
                }
            },
        }
        // The sea surface (z = 0) ends rays going up.
        if d.z > 0.0 {
            let t = -o.z / d.z;
            if t >= 0.0 && t < best.0 {
                best = (t, Hit::None);
            }
        }
        (best.0, best.1, index, seabed)
    }
}

impl Candidates {
    /// Whether the sphere columns were built (tests pin both paths).
    #[cfg(test)]
    pub(crate) fn has_spheres(&self) -> bool {
        self.spheres.is_some()
    }

    /// The sphere columns, when built for rays from `o` and still matching
    /// the lists.
    fn spheres_for(&self, o: &Vector3<f64>) -> Option<&Spheres> {
        self.spheres.as_ref().filter(|s| {
            s.origin == *o && s.obstacles == self.obstacles.len() && s.bodies == self.bodies.len()
        })
    }

    /// The bins, when built for rays from `o` and still matching the lists.
    fn bins_for(&self, o: &Vector3<f64>) -> Option<&Bins> {
        self.binned
            .as_ref()
            .filter(|b| {
                b.origin == *o
                    && b.obstacles == self.obstacles.len()
                    && b.bodies == self.bodies.len()
            })
            .map(|b| &b.bins)
    }
}

/// A capsule's bounding sphere (centre, radius).
fn body_sphere(b: &Body) -> (Vector3<f64>, f64) {
    ((b.a + b.b) * 0.5, (b.b - b.a).norm() * 0.5 + b.r)
}

/// Whether a ray along unit `d` misses the sphere of radius `r` at `c`
/// (relative to the ray's origin) or meets it only beyond `best`.
fn rejected(c: Vector3<f64>, r: f64, d: &Vector3<f64>, best: f64) -> bool {
    let along = c.dot(d);
    along + r < 0.0 || along - r > best || c.norm_squared() - along * along > r * r
}
