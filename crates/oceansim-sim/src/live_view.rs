//! What a live viewer draws, as the typed messages of
//! [`oceansim_protocol::view`]: the scene (map bounds, the seabed on
//! a grid, obstacle footprints) and one frame (clock, every agent, the
//! navigation overlays). The schema is the viewer's (`oceansim-viewer`,
//! documented in `docs/viewer.md`); everything is in the user frame
//! (x east, y north, z up, m), headings are compass degrees (0 = north,
//! clockwise).
//!
//! Both are read from the world without changing it, so a viewer can never
//! alter a run; a frame is built from the recorder's latest frame (the log
//! cadence), never from a half-finished tick.

use crate::components::Kind;
use crate::simulation::Simulation;
use oceansim_protocol::payload::{ObstacleShape, PathPoint};
use oceansim_protocol::view;
use oceansim_record::Sample;
use oceansim_scene::obstacle::Obstacle;
use oceansim_vehicles::frames::godot_to_oceansim;
use std::sync::Arc;

/// Most seabed samples along the longer side of the viewer's grid.
pub const VIEW_GRID_PX: usize = 160;

/// How far back a frame's `acoustic` list reaches (s, simulated): the
/// deliveries heard in that window, which the page draws fading with age.
pub const ACOUSTIC_VIEW_S: f64 = 5.0;

/// Rounds to a millimetre: the page draws no finer, and short numbers keep
/// frames small.
pub(crate) fn mm(v: f64) -> f64 {
    if v.is_finite() {
        (v * 1000.0).round() / 1000.0
    } else {
        0.0
    }
}

fn mm3(p: [f64; 3]) -> [f64; 3] {
    p.map(mm)
}

/// An overlay point in the user frame (planar points sit at z = 0 and say
/// so with `planar`).
fn overlay_point(p: &PathPoint) -> Vec<f64> {
    match p {
        PathPoint::Planar([x, z]) => vec![mm(*x), mm(-*z)],
        PathPoint::Spatial(g) => mm3(godot_to_oceansim(*g)).to_vec(),
    }
}

/// The convex hull of points in the plane, counter-clockwise (Andrew's
/// monotone chain).
fn hull(mut p: Vec<[f64; 2]>) -> Vec<[f64; 2]> {
    p.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    p.dedup();
    if p.len() < 3 {
        return p;
    }
    let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| {
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    let mut h: Vec<[f64; 2]> = Vec::with_capacity(2 * p.len());
    for pass in 0..2 {
        let start = h.len();
        let pts: Box<dyn Iterator<Item = &[f64; 2]>> = if pass == 0 {
            Box::new(p.iter())
        } else {
            Box::new(p.iter().rev())
        };
        for &q in pts {
            while h.len() >= start + 2 && cross(h[h.len() - 2], h[h.len() - 1], q) <= 0.0 {
                h.pop();
            }
            h.push(q);
        }
        h.pop();
    }
    h
}

/// An obstacle's outline seen from above and its vertical extent: a circle
/// for spheres and upright cylinders; otherwise the hull of its bounding
/// box's eight corners, turned (exact for boxes, a bound for tilted
/// cylinders).
fn obstacle_view(o: &Obstacle) -> view::Obstacle {
    let [cx, cy, cz] = o.center;
    let [hx, hy, hz] = o.half_extents;
    let shape = match o.shape {
        ObstacleShape::Sphere => "sphere",
        ObstacleShape::Box => "box",
        ObstacleShape::Cylinder => "cylinder",
    };
    let turn = |v: nalgebra::Vector3<f64>| o.rotation.map_or(v, |m| m * v);
    let upright = turn(nalgebra::Vector3::z()).z.abs() > 1.0 - 1e-9;
    let corners: Vec<nalgebra::Vector3<f64>> = (0..8)
        .map(|k| {
            let s = |bit: usize| if k & bit == 0 { -1.0 } else { 1.0 };
            turn(nalgebra::Vector3::new(s(1) * hx, s(2) * hy, s(4) * hz))
        })
        .collect();
    let (zlo, zhi) = match o.shape {
        ObstacleShape::Sphere => (-hz, hz),
        _ => corners
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), c| {
                (lo.min(c.z), hi.max(c.z))
            }),
    };
    let round = o.shape == ObstacleShape::Sphere || (o.shape == ObstacleShape::Cylinder && upright);
    let (radius, polygon) = if round {
        (Some(mm(hx)), None)
    } else {
        let outline = hull(
            corners
                .iter()
                .map(|c| [mm(cx + c.x), mm(cy + c.y)])
                .collect(),
        );
        (None, Some(outline))
    };
    view::Obstacle {
        id: Some(o.id.clone()),
        shape: shape.into(),
        center: mm3(o.center),
        z: [mm(cz + zlo), mm(cz + zhi)],
        radius,
        polygon,
    }
}

impl Simulation {
    /// A number that changes whenever the scene a viewer draws changes
    /// (scenario, seed, obstacles added or removed).
    pub fn scene_revision(&self) -> u64 {
        let scene = self.world.resource(self.h.scene);
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut mix = |b: &[u8]| {
            for x in b {
                h ^= u64::from(*x);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        };
        mix(scene.scenario.scenario.id.as_bytes());
        mix(&scene.seed.to_le_bytes());
        mix(&scene.obstacle_counter.to_le_bytes());
        for o in scene.obstacles.iter() {
            mix(o.id.as_bytes());
            for c in o.center {
                mix(&c.to_le_bytes());
            }
        }
        h
    }

    /// The scene as the viewer draws it: `{"type":"scene", "title",
    /// "bounds":[x_min,x_max,y_min,y_max], "seabed":{"cols","rows","z"
    /// (row 0 at the north edge),"min","max"}, "obstacles":[...]}`.
    pub fn view_scene(&self) -> view::Scene {
        let scene = self.world.resource(self.h.scene);
        let [x0, x1, y0, y1] = scene.bounds();
        let (w, h) = ((x1 - x0).max(1e-9), (y1 - y0).max(1e-9));
        let (cols, rows) = if w >= h {
            let r = ((VIEW_GRID_PX as f64 * h / w).round() as usize).max(2);
            (VIEW_GRID_PX, r)
        } else {
            let c = ((VIEW_GRID_PX as f64 * w / h).round() as usize).max(2);
            (c, VIEW_GRID_PX)
        };
        let mut z = Vec::with_capacity(cols * rows);
        for v in 0..rows {
            let y = y1 - (v as f64 + 0.5) / rows as f64 * h;
            for u in 0..cols {
                let x = x0 + (u as f64 + 0.5) / cols as f64 * w;
                z.push((scene.terrain.height(x, y) * 100.0).round() / 100.0);
            }
        }
        let s = &scene.scenario.scenario;
        view::Scene {
            title: format!("{} (seed {})", s.display_name, scene.seed),
            scenario: Some(s.id.clone()),
            seed: Some(scene.seed),
            bounds: [x0, x1, y0, y1],
            seabed: Some(view::Seabed {
                cols,
                rows,
                z,
                min: scene.terrain.min_height(),
                max: scene.terrain.max_height(),
            }),
            obstacles: scene.obstacles.iter().map(obstacle_view).collect(),
            sensors: Some(crate::panels::catalogue(&self.view_panel_sensors())),
            entities: None,
        }
    }

    /// A number that changes whenever the navigation overlays may have
    /// changed (so a viewer resends them only then).
    pub fn overlays_revision(&self) -> u64 {
        self.revs.generation.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ self.revs.overlays
    }

    /// The navigation overlays, in the user frame: `{"type":"overlays",
    /// "overlays":{"nav_path","waypoint","waypoints","pred_trajectory"}}`.
    /// They can hold thousands of points, so they travel only when
    /// [`Simulation::overlays_revision`] changes.
    pub fn view_overlays(&self) -> view::Overlays {
        let scene = self.world.resource(self.h.scene);
        let o = &scene.overlays;
        let path = |v: &[PathPoint]| v.iter().map(overlay_point).collect::<Vec<_>>();
        view::Overlays {
            overlays: view::OverlaySet {
                nav_path: path(&o.nav_path),
                waypoint: o.waypoint.map(|[x, z, depth]| [mm(x), mm(-z), mm(-depth)]),
                waypoints: path(&o.waypoints),
                pred_trajectory: path(&o.pred_trajectory),
            },
        }
    }

    /// The recorder's latest frame, if it has one.
    pub fn latest_frame(&self) -> Option<Arc<Sample>> {
        self.world.resource_mut(self.h.recorder).latest()
    }

    /// One viewer frame from the latest recorded frame, with the clock,
    /// each agent's footprint and the seabed under it, and the overlays:
    /// `{"type":"frame","t","frame","paused","time_scale",
    /// "achieved_time_scale","agents":[{"name",
    /// "kind":"vehicle"|"proxy","main","p":[x,y,z],"heading_deg","speed",
    /// "length","width","seabed_z","command"}],"acoustic":[{"from","to",
    /// "sent","heard"}]}` (`acoustic`: the deliveries of the last
    /// [`ACOUSTIC_VIEW_S`]). `None` before the first
    /// recorded frame. `achieved_time_scale` is the multiple of real time the
    /// clock kept up lately (`null` while paused), as `get_state` says.
    /// The overlays travel apart ([`Simulation::view_overlays`]).
    pub fn view_frame(&self) -> Option<view::Frame> {
        let sample = self.latest_frame()?;
        let scene = self.world.resource(self.h.scene);
        let clock = self.world.resource(self.h.clock);
        let (radius, half) = (
            self.world.read(self.h.radius),
            self.world.read(self.h.half_length),
        );
        let kind = self.world.read(self.h.kind);
        let agents: Vec<view::Agent> = sample
            .agents
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let row = self.agents.get(&a.name).and_then(|e| self.world.row(e));
                let (r, hl) = row
                    .filter(|&row| Kind::is_agent(kind[row]))
                    .map_or((0.5, 0.0), |row| (radius[row], half[row]));
                let [x, y, _] = a.position;
                let speed = a.velocity.iter().map(|v| v * v).sum::<f64>().sqrt();
                view::Agent {
                    name: a.name.to_string(),
                    kind: if a.vehicle { "vehicle" } else { "proxy" }.into(),
                    main: i == 0,
                    p: mm3(a.position),
                    heading_deg: mm(a.heading_deg),
                    speed: mm(speed),
                    length: Some(mm(2.0 * (hl + r))),
                    width: Some(mm(2.0 * r)),
                    seabed_z: Some(scene.on_map(x, y).then(|| mm(scene.terrain.height(x, y)))),
                    command: a.command.as_ref().map(|c| view::AgentCommand {
                        action: c.record.action.clone(),
                        data: c.record.data.clone(),
                        t: mm(c.time),
                    }),
                }
            })
            .collect();
        // Who heard whom lately: the swarm's acoustic channel at a glance.
        let acoustic: Vec<view::AcousticLink> = self
            .world
            .resource(self.h.acoustic)
            .recent_links(sample.time - ACOUSTIC_VIEW_S)
            .filter(|l| l.heard_at <= sample.time)
            .map(|l| view::AcousticLink {
                from: l.sender.clone(),
                to: l.receiver.clone(),
                sent: mm(l.sent_at),
                heard: mm(l.heard_at),
            })
            .collect();
        Some(view::Frame {
            t: sample.time,
            frame: sample.frame,
            paused: clock.paused,
            time_scale: clock.time_scale,
            achieved_time_scale: (!clock.paused).then(|| clock.achieved_time_scale()),
            agents,
            acoustic,
        })
    }
}
