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
        let mut best = (max, Hit::None);
        if o.z > 0.0 && d.z >= 0.0 {
            return best;
        }
        if let Some(t) = self.terrain.raycast(o, d, max) {
            best = (t, Hit::Terrain);
        }
        for ob in candidates.obstacles.iter().map(|&i| &self.obstacles[i]) {
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
                }
            }
        }
        for b in candidates.bodies.iter().map(|&i| &self.bodies[i]) {
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
        best
    }
}
