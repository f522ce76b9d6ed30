//! Ray casts against everything a sensor can see: the seabed, static
//! obstacles, other agents and the sea surface (user frame, m).

use crate::body::Body;
use crate::obstacle::Obstacle;
use crate::ray_bins::{bin_of, Bins};
use crate::terrain::Terrain;
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
        }
    }

    /// Like [`SceneView::candidates`] for a sample of `rays` rays from
    /// `o`: when both are many, also bins them by direction so each ray
    /// tests only those it could reach (the same hits, bit for bit).
    pub fn candidates_for(&self, o: &Vector3<f64>, max: f64, rays: usize) -> Candidates {
        let mut c = self.candidates(o, max);
        // Building the bins costs up to all 2,048 bins per candidate (a
        // sphere around the origin): worth it only for many rays.
        if rays > BIN_RAYS_ABOVE && c.obstacles.len() + c.bodies.len() > BIN_ABOVE {
            let spheres = c
                .obstacles
                .iter()
                .map(|&i| {
                    let ob = &self.obstacles[i];
                    (Vector3::from(ob.center), ob.bounding_radius())
                })
                .chain(c.bodies.iter().map(|&i| body_sphere(&self.bodies[i])));
            c.binned = Some(Binned {
                origin: *o,
                obstacles: c.obstacles.len(),
                bodies: c.bodies.len(),
                bins: Bins::new(o, spheres),
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
        let (t, hit, _) = self.nearest(o, d, max, candidates);
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
        let (t, hit, index) = self.nearest(o, d, max, candidates);
        let p = o + d * t;
        let normal = match hit {
            Hit::None => Vector3::zeros(),
            Hit::Terrain => self.terrain.normal(p.x, p.y),
            // A vanishing sphere at the hit point is pushed out along the
            // surface normal.
            Hit::Obstacle => self.obstacles[index]
                .sphere_contact(&p, 1e-6)
                .map_or(-d, |(n, _)| n),
            Hit::Agent => {
                let b = &self.bodies[index];
                (p - b.closest_on_axis(&p))
                    .try_normalize(1e-12)
                    .unwrap_or(-d)
            }
        };
        RayHit {
            t,
            hit,
            normal,
            index,
        }
    }

    /// The nearest hit and, for obstacles and agents, which one.
    fn nearest(
        &self,
        o: &Vector3<f64>,
        d: &Vector3<f64>,
        max: f64,
        candidates: &Candidates,
    ) -> (f64, Hit, usize) {
        let mut best = (max, Hit::None);
        let mut index = 0;
        if o.z > 0.0 && d.z >= 0.0 {
            return (best.0, best.1, index);
        }
        if let Some(t) = self.terrain.raycast(o, d, max) {
            best = (t, Hit::Terrain);
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
            None => {
                for &i in &candidates.obstacles {
                    obstacle(i, &mut best, &mut index);
                }
                for &i in &candidates.bodies {
                    body(i, &mut best, &mut index);
                }
            }
        }
        // The sea surface (z = 0) ends rays going up.
        if d.z > 0.0 {
            let t = -o.z / d.z;
            if t >= 0.0 && t < best.0 {
                best = (t, Hit::None);
            }
        }
        (best.0, best.1, index)
    }
}

impl Candidates {
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
