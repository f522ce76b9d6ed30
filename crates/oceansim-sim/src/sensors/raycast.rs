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

impl SceneView<'_> {
    /// Obstacles that a ray of length `max` from `o` could reach.
    pub fn candidates(&self, o: &Vector3<f64>, max: f64) -> Vec<usize> {
        self.obstacles
            .iter()
            .enumerate()
            .filter(|(_, ob)| (Vector3::from(ob.center) - o).norm() - ob.bounding_radius() <= max)
            .map(|(i, _)| i)
            .collect()
    }

    /// Nearest hit along unit `d` from `o` within `max` m.
    pub fn raycast(&self, o: &Vector3<f64>, d: &Vector3<f64>, max: f64) -> (f64, Hit) {
        self.raycast_among(o, d, max, &self.candidates(o, max))
    }

    /// Like [`SceneView::raycast`], testing only the obstacles in
    /// `candidates` (a broad phase done once per sample).
    pub fn raycast_among(
        &self,
        o: &Vector3<f64>,
        d: &Vector3<f64>,
        max: f64,
        candidates: &[usize],
    ) -> (f64, Hit) {
        let mut best = (max, Hit::None);
        if o.z > 0.0 && d.z >= 0.0 {
            return best;
        }
        if let Some(t) = self.terrain.raycast(o, d, max) {
            best = (t, Hit::Terrain);
        }
        for ob in candidates.iter().map(|&i| &self.obstacles[i]) {
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
        for b in self.bodies {
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
