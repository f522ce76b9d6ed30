//! Contacts and bounds: no agent passes through another, the seabed, a
//! static obstacle, the map's edge or the sea surface.
//!
//! Model: every agent is a capsule along its body x axis (a sphere for
//! proxies). First, an agent that moved far in the tick (more than half
//! its radius) is swept from where it began the tick to where the
//! dynamics or its proxy motion put it, and stopped at the first thing it
//! would touch, sliding along it ([`super::sweep`]); pairs of agents are
//! swept along both paths together. Then each overlap is resolved by a
//! position-level projection, as game and robotics engines do for resting
//! contact: the agent is translated out along the contact normal by the
//! overlap depth and the part of its velocity that points into the other
//! body is removed; tangential motion is kept (frictionless). Agents push
//! each other apart equally (pairs found by sweep and prune). Order: agent
//! pairs, then seabed, obstacles, map edge and surface, so the hard bounds
//! have the last word.
//!
//! What holds: no agent ends a tick inside or beyond a static obstacle of
//! any size the payload check accepts (box sides from any positive
//! length, sphere and cylinder radii from 1 µm), another agent, the map's
//! edge or the surface, whatever its size (proxies from the 1 mm
//! `size_m` floor) and speed (proxies up to 20 m/s, vehicles up to the
//! 100 m/s plausibility bound, ticks up to 0.1 s: 2 m and 10 m a tick),
//! including when pushed into it tick after tick; no centre passes under
//! the seabed.
//!
//! Limits: one projection pass per tick (several simultaneous contacts, as
//! in a corner, may leave a residue of millimetres that the next tick
//! removes); no restitution, no torque from contacts; the seabed is taken
//! as its tangent plane under each sample point of the hull (re-taken a
//! few times after a deep push, a residue of micrometres may remain in
//! concave relief); the hull is its sample spheres (spaced no wider than
//! its radius) and keeps its tick-end attitude through the sweep; at most
//! four slides a tick (the rest of that tick's motion is dropped), and
//! agents that would still meet after four passes over the pairs are held
//! where they began the tick; the surface holds the hull's axis at or
//! below z = 0.

use super::sweep;
use crate::components::{names, Handles, Kind};
use crate::components::{quat_at, vec3_at};
use crate::frames::{Ned, User};
use nalgebra::Vector3;
use oceansim_ecs::{Access, Step, System, World};
use oceansim_protocol::reply::{Contact, ContactClass};
use oceansim_scene::body::Body;
use oceansim_scene::Scene;

/// Most sample points along a hull's axis for terrain and obstacle tests.
const MAX_SAMPLES: usize = 16;
/// Most pushes out of the seabed in one tick.
const SEABED_PASSES: usize = 4;
/// A push out of the seabed deeper than this fraction of the radius is
/// refined by further passes.
const DEEP_SEABED: f64 = 0.1;

/// One agent during contact resolution (user frame).
#[derive(Debug, Clone)]
pub(super) struct Solid {
    /// The agent's row in the world.
    pub(super) row: usize,
    /// Where it began the tick (m).
    pub(super) start: Vector3<f64>,
    /// Where it is now (m): the tick's end once the sweep has clipped it.
    pub(super) centre: Vector3<f64>,
    /// Unit axis of the hull (the tick-end attitude's).
    pub(super) axis: Vector3<f64>,
    /// Half length of the hull's axis segment (m, 0 for a sphere).
    pub(super) half: f64,
    /// Radius (m).
    pub(super) r: f64,
    /// World velocity (m/s).
    pub(super) velocity: Vector3<f64>,
    /// Whether its position or velocity changed (and must be written back).
    pub(super) moved: bool,
    /// The last pass of [`sweep::pairs`] that cut its motion back.
    pub(super) cut_pass: usize,
    /// Its contacts this tick.
    pub(super) contacts: Vec<Contact>,
}

impl Solid {
    fn body(&self) -> Body {
        Body::capsule(self.centre, self.axis, self.half, self.r)
    }

    /// Offsets from the centre of points along the axis, spaced no wider
    /// than the radius.
    pub(super) fn offsets(&self) -> impl Iterator<Item = Vector3<f64>> + '_ {
        let n = if self.half > 0.0 {
            ((2.0 * self.half / self.r).ceil() as usize + 1).clamp(2, MAX_SAMPLES)
        } else {
            1
        };
        (0..n).map(move |k| {
            let s = if n == 1 {
                0.0
            } else {
                -self.half + 2.0 * self.half * k as f64 / (n - 1) as f64
            };
            self.axis * s
        })
    }

    /// Points along the axis, spaced no wider than the radius.
    fn samples(&self) -> impl Iterator<Item = Vector3<f64>> + '_ {
        self.offsets().map(|o| self.centre + o)
    }

    /// Moves the solid out by `depth` along `n` and stops its motion into
    /// the other body.
    fn shift(&mut self, n: Vector3<f64>, depth: f64) {
        self.centre += n * depth;
        let into = self.velocity.dot(&n);
        if into < 0.0 {
            self.velocity -= n * into;
        }
        self.moved = true;
    }

    /// [`Self::shift`], recording the contact.
    fn push(&mut self, id: &str, class: ContactClass, n: Vector3<f64>, depth: f64) {
        self.shift(n, depth);
        self.contacts.push(Contact {
            id: id.to_owned(),
            class,
            normal_user: [n.x, n.y, n.z],
            depth_m: depth,
        });
    }

    /// The deepest overlap of any sample point with `f`.
    fn deepest(
        &self,
        f: impl Fn(&Vector3<f64>) -> Option<(Vector3<f64>, f64)>,
    ) -> Option<(Vector3<f64>, f64)> {
        self.samples()
            .filter_map(|p| f(&p))
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }
}

/// `contacts`.
pub struct Contacts {
    h: Handles,
    solids: Vec<Solid>,
    order: Vec<usize>,
    keys: Vec<(f64, usize)>,
}

impl Contacts {
    /// The system.
    pub fn new(h: Handles) -> Self {
        Contacts {
            h,
            solids: Vec::new(),
            order: Vec::new(),
            keys: Vec::new(),
        }
    }
}

/// Resolves every overlapping pair: sweep and prune along x (solids sorted
/// by the west end of their bounding sphere, ties by row), then the exact
/// capsule test.
fn resolve_pairs<'a>(
    solids: &mut [Solid],
    order: &mut Vec<usize>,
    name: impl Fn(usize) -> &'a str,
) {
    let extent = |s: &Solid| s.half + s.r;
    order.clear();
    order.extend(0..solids.len());
    order.sort_by(|&a, &b| {
        let (sa, sb) = (&solids[a], &solids[b]);
        (sa.centre.x - extent(sa))
            .total_cmp(&(sb.centre.x - extent(sb)))
            .then(sa.row.cmp(&sb.row))
    });
    for (k, &i) in order.iter().enumerate() {
        let east = solids[i].centre.x + extent(&solids[i]);
        for &j in &order[k + 1..] {
            if solids[j].centre.x - extent(&solids[j]) > east {
                break;
            }
            let reach = extent(&solids[i]) + extent(&solids[j]);
            if (solids[i].centre - solids[j].centre).norm_squared() > reach * reach {
                continue;
            }
            let Some((n, depth)) = solids[i].body().overlap(&solids[j].body()) else {
                continue;
            };
            let (ni, nj) = (name(solids[i].row), name(solids[j].row));
            solids[i].push(nj, ContactClass::Agent, n, depth / 2.0);
            solids[j].push(ni, ContactClass::Agent, -n, depth / 2.0);
        }
    }
}

fn resolve_scene(s: &mut Solid, scene: &Scene) {
    let t = &scene.terrain;
    let lowest = s.centre.z - s.half * s.axis.z.abs() - s.r;
    if lowest <= t.max_height() {
        if let Some((n, d)) = s.deepest(|p| t.sphere_contact(p, s.r)) {
            s.push("seabed", ContactClass::Terrain, n, d);
            // The tangent plane moves with the point under the hull: after
            // a deep push (a sweep stopped at the seabed) a few more passes
            // take up what the relief's curvature left, which grows with
            // the square of the push (negligible when resting).
            let passes = if d > DEEP_SEABED * s.r {
                SEABED_PASSES
            } else {
                1
            };
            for _ in 1..passes {
                match s.deepest(|p| t.sphere_contact(p, s.r)) {
                    Some((n, d)) if d > 1e-9 => s.shift(n, d),
                    _ => break,
                }
            }
        }
    }
    for ob in scene.obstacles.iter() {
        let reach = ob.bounding_radius() + s.half + s.r;
        if (Vector3::from(ob.center) - s.centre).norm() > reach {
            continue;
        }
        if let Some((n, d)) = s.deepest(|p| ob.sphere_contact(p, s.r)) {
            s.push(&ob.id, ContactClass::StaticObstacle, n, d);
        }
    }
    let [x0, x1, y0, y1] = scene.bounds();
    let ends = [s.centre - s.axis * s.half, s.centre + s.axis * s.half];
    for k in 0..2 {
        let (lo, hi) = if k == 0 { (x0, x1) } else { (y0, y1) };
        let min = ends[0][k].min(ends[1][k]) - s.r;
        let max = ends[0][k].max(ends[1][k]) + s.r;
        let mut n = Vector3::zeros();
        if min < lo {
            n[k] = 1.0;
            s.push("map_edge", ContactClass::MapEdge, n, lo - min);
        } else if max > hi {
            n[k] = -1.0;
            s.push("map_edge", ContactClass::MapEdge, n, max - hi);
        }
    }
    let top = ends[0].z.max(ends[1].z);
    if top > 0.0 {
        s.push("surface", ContactClass::Surface, -Vector3::z(), top);
    }
}

/// One vehicle alone against the scene (no other agents), as the
/// `contacts` system resolves it: `state` (NED), which began the tick at
/// `start_ned`, is swept across the tick and moved out of the seabed,
/// obstacles, map edge and surface, its body velocity following the new
/// world velocity `velocity_ned` (the dynamics' last output). Returns the
/// contacts (empty when none). The batched simulator ([`crate::batch`])
/// uses it so its lanes touch the scene exactly as the world's vehicles do.
pub(crate) fn vehicle_scene_contacts(
    scene: &Scene,
    start_ned: Vector3<f64>,
    state: &mut oceansim_vehicles::VehicleState,
    velocity_ned: &mut Vector3<f64>,
    radius: f64,
    half: f64,
) -> Vec<Contact> {
    let axis = User::from(Ned(state.attitude * Vector3::x())).0;
    let mut s = Solid {
        row: 0,
        start: Vector3::from(User::from(Ned(start_ned)).0),
        centre: Vector3::from(User::from(Ned(state.position_ned)).0),
        axis: Vector3::from(axis),
        half,
        r: radius,
        velocity: Vector3::from(User::from(Ned(*velocity_ned)).0),
        moved: false,
        cut_pass: 0,
        contacts: Vec::new(),
    };
    sweep::scene(&mut s, scene);
    resolve_scene(&mut s, scene);
    if s.moved {
        state.position_ned = Ned::from(User(s.centre.into())).0;
        let v = Ned::from(User(s.velocity.into())).0;
        let b = state.attitude.inverse_transform_vector(&v);
        state.nu.fixed_rows_mut::<3>(0).copy_from(&b);
        *velocity_ned = v;
    }
    s.contacts
}

impl System for Contacts {
    fn name(&self) -> &str {
        "contacts"
    }
    fn access(&self) -> Access {
        Access::new()
            .reads([
                names::KIND,
                names::POSITION_START,
                names::ATTITUDE,
                names::RADIUS,
                names::HALF_LENGTH,
                names::SCENE,
                names::AGENT,
            ])
            .writes([names::POSITION, names::NU, names::VELOCITY, names::CONTACTS])
    }
    fn run(&mut self, w: &World, _: &Step) {
        let h = self.h;
        self.gather(w);
        let scene = w.resource(h.scene);
        for s in &mut self.solids {
            sweep::scene(s, &scene);
        }
        drop(scene);
        sweep::pairs(&mut self.solids, &mut self.keys);
        let agents = w.objects(h.agent);
        resolve_pairs(&mut self.solids, &mut self.order, |row| {
            agents[row]
                .as_ref()
                .map_or("", |a| a.def.agent_name.as_str())
        });
        drop(agents);
        let scene = w.resource(h.scene);
        for s in &mut self.solids {
            resolve_scene(s, &scene);
        }
        drop(scene);
        self.write_back(w);
    }
}

impl Contacts {
    /// Reads every agent's solid.
    fn gather(&mut self, w: &World) {
        let h = &self.h;
        let (kind, p, q) = (w.read(h.kind), w.read(h.position), w.read(h.attitude));
        let (radius, half, vel) = (w.read(h.radius), w.read(h.half_length), w.read(h.velocity));
        let start = w.read(h.position_start);
        let mut contacts = w.objects_mut(h.contacts);
        self.solids.clear();
        for row in 0..kind.len() {
            if !Kind::is_agent(kind[row]) {
                continue;
            }
            let att = quat_at(&q, row);
            let axis = User::from(Ned(att * Vector3::x())).0;
            let mut list = contacts[row].take().unwrap_or_default();
            list.clear();
            self.solids.push(Solid {
                row,
                start: Vector3::from(User::from(Ned(vec3_at(&start, row))).0),
                centre: Vector3::from(User::from(Ned(vec3_at(&p, row))).0),
                axis: Vector3::from(axis),
                half: half[row],
                r: radius[row],
                velocity: Vector3::from(User::from(Ned(vec3_at(&vel, row))).0),
                moved: false,
                cut_pass: 0,
                contacts: list,
            });
        }
    }

    /// Writes moved solids' positions and velocities back (a vehicle's body
    /// velocity follows its new world velocity) and stores the contacts.
    fn write_back(&mut self, w: &World) {
        let h = &self.h;
        let (kind, q) = (w.read(h.kind), w.read(h.attitude));
        let (mut p, mut nu, mut vel) = (w.write(h.position), w.write(h.nu), w.write(h.velocity));
        let mut contacts = w.objects_mut(h.contacts);
        for s in &mut self.solids {
            let row = s.row;
            if s.moved {
                let pos = Ned::from(User(s.centre.into())).0;
                let v = Ned::from(User(s.velocity.into())).0;
                p[3 * row..3 * row + 3].copy_from_slice(pos.as_slice());
                vel[3 * row..3 * row + 3].copy_from_slice(v.as_slice());
                if kind[row] == Kind::Vehicle.code() {
                    let b = quat_at(&q, row).inverse_transform_vector(&v);
                    nu[6 * row..6 * row + 3].copy_from_slice(b.as_slice());
                }
            }
            contacts[row] = Some(std::mem::take(&mut s.contacts));
        }
    }
}
