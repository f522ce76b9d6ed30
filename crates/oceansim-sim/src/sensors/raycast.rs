//! Ray casts against everything a sensor can see: the seabed, static
//! obstacles, other agents and the sea surface (user frame, m).

use crate::scene::body::Body;
use crate::scene::obstacle::Obstacle;
use crate::scene::terrain::Terrain;
use nalgebra::Vector3;

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
        Candidates { obstacles, bodies }
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
        for (i, ob) in candidates
            .obstacles
            .iter()
            .map(|&i| (i, &self.obstacles[i]))
        {
            // Cheap rejection by the bounding sphere: behind the ray, beside
            // it, or beyond the nearest hit so far.
            let c = Vector3::from(ob.center) - o;
            let r = ob.bounding_radius();
            let along = c.dot(d);
            if along + r < 0.0 || along - r > best.0 || c.norm_squared() - along * along > r * r {
                continue;
            }
            if let Some(t) = ob.raycast(o, d) {
                if t < best.0 {
                    best = (t, Hit::Obstacle);
                    index = i;
                }
            }
        }
        for (i, b) in candidates.bodies.iter().map(|&i| (i, &self.bodies[i])) {
            // Bounding sphere of the capsule first, as for obstacles.
            let c = (b.a + b.b) * 0.5 - o;
            let r = (b.b - b.a).norm() * 0.5 + b.r;
            let along = c.dot(d);
            if along + r < 0.0 || along - r > best.0 || c.norm_squared() - along * along > r * r {
                continue;
            }
            if let Some(t) = b.raycast(o, d) {
                if t < best.0 {
                    best = (t, Hit::Agent);
                    index = i;
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
