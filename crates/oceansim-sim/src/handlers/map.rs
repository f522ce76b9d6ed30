//! The map and the world around the agents: `set_scenario`,
//! `generate_map`, `get_terrain_grid`, `spawn_obstacle`,
//! `remove_obstacle`, `set_current`.

use super::{Outcome, Reply};
use crate::agents::{pose, Registry};
use crate::budget::Budget;
use crate::components::{Handles, Kind};
use crate::config::MAX_GRID_CELLS;
use crate::ctx::ReadCtx;
use crate::frames::User;
use crate::replies::{map_info, obstacle_info};
use crate::simulation::Simulation;
use nalgebra::Vector3;
use oceansim_ecs::World;
use oceansim_protocol::payload::{
    GenerateMap, ObjectId, SetCurrent, SetScenario, SpawnObstacle, TerrainGridRequest,
};
use oceansim_protocol::reply::{CurrentAck, ObstacleSpawned, Removed, TerrainGrid};
use oceansim_protocol::{Frame, ProtocolError};
use oceansim_scene::obstacle::Obstacle;
use oceansim_scene::occupancy::{classify, AgentDisc, OverBudget, Slice, FREE};
use oceansim_scene::terrain::Terrain;
use oceansim_scene::{scenario, MAX_CURRENT_M_S, MAX_OBSTACLES};
use std::sync::Arc;

/// Loads a shipped scenario with `seed` (paths are refused: a client must
/// not make the server read files).
fn load(sim: &mut Simulation, name: &str, seed: u64) -> Result<(), ProtocolError> {
    if !scenario::builtin_names().contains(&name) {
        return Err(ProtocolError::InvalidMessage(format!(
            "unknown scenario `{name}`; available: {}",
            scenario::builtin_names().join(", ")
        )));
    }
    let loaded = scenario::load(name).map_err(|e| ProtocolError::InvalidMessage(e.to_string()))?;
    sim.rebuild(Arc::new(loaded), seed)
        .map_err(|e| ProtocolError::InvalidMessage(e.to_string()))?;
    sim.config.scenario = name.into();
    Ok(())
}

/// `set_scenario`.
pub(super) fn set_scenario(sim: &mut Simulation, p: SetScenario) -> Outcome {
    load(sim, &p.scenario, p.seed.unwrap_or(0))?;
    Reply::ok(map_info(&sim.world, &sim.h, &sim.agents))
}

/// `generate_map`: the named or current scenario with a (new) seed.
pub(super) fn generate_map(sim: &mut Simulation, p: GenerateMap) -> Outcome {
    let name = p.scenario.unwrap_or_else(|| sim.scenario_id());
    let seed = p.seed.unwrap_or_else(|| sim.seed());
    load(sim, &name, seed)?;
    Reply::ok(map_info(&sim.world, &sim.h, &sim.agents))
}

/// `set_current`: a uniform current (m/s, user frame), its magnitude
/// clipped to [`MAX_CURRENT_M_S`] along its direction, finite for every
/// finite request.
pub(super) fn set_current(world: &mut World, h: &Handles, p: SetCurrent) -> Outcome {
    let (applied, saturated) = oceansim_vehicles::clip_norm(p.velocity.0, MAX_CURRENT_M_S);
    world.resource_mut(h.scene).current_user = applied;
    Reply::ok(CurrentAck {
        current: applied,
        frame: Frame::OceansimWorld,
        saturated,
    })
}

/// `spawn_obstacle`.
pub(super) fn spawn_obstacle(
    world: &mut World,
    h: &Handles,
    agents: &Registry,
    o: SpawnObstacle,
) -> Outcome {
    let main = pose(world, h, agents.main()).map(|p| p.0);
    let mut scene = world.resource_mut(h.scene);
    if scene.obstacles.len() >= MAX_OBSTACLES {
        return Err(ProtocolError::SpawnFailed(format!(
            "obstacle limit reached ({MAX_OBSTACLES})"
        )));
    }
    let id =
        o.id.clone()
            .unwrap_or_else(|| format!("obstacle_{}", scene.obstacle_counter + 1));
    if scene.obstacles.iter().any(|x| x.id == id) {
        return Err(ProtocolError::SpawnFailed(format!(
            "an obstacle `{id}` already exists"
        )));
    }
    let ob = Obstacle::from_spawn(id.clone(), &o);
    if !scene.on_map(ob.center[0], ob.center[1]) {
        let [x0, x1, y0, y1] = scene.bounds();
        return Err(ProtocolError::BlockedPose(format!(
            "obstacle centre is outside the map [{x0}, {x1}] x [{y0}, {y1}]"
        )));
    }
    if main.is_some_and(|m: User| ob.contains(&Vector3::from(m.0), 0.5)) {
        return Err(ProtocolError::BlockedPose(
            "the obstacle would enclose the main AUV".into(),
        ));
    }
    scene.obstacle_counter += 1;
    let info = obstacle_info(&ob);
    scene.push_obstacle(ob);
    Reply::ok(ObstacleSpawned {
        id,
        obstacle: info,
        count: scene.obstacles.len(),
    })
}

/// `remove_obstacle`.
pub(super) fn remove_obstacle(world: &mut World, h: &Handles, o: ObjectId) -> Outcome {
    let mut scene = world.resource_mut(h.scene);
    let i = scene
        .obstacles
        .iter()
        .position(|x| x.id == o.id)
        .ok_or_else(|| ProtocolError::InvalidMessage(format!("no obstacle `{}`", o.id)))?;
    scene.remove_obstacle(i);
    Reply::ok(Removed {
        removed: o.id,
        count: scene.obstacles.len(),
    })
}

/// Every agent but the main AUV as a sphere (centre, radius), user frame.
fn agent_spheres(cx: ReadCtx<'_>) -> Vec<AgentDisc> {
    let kind = cx.world.read(cx.h.kind);
    let radius = cx.world.read(cx.h.radius);
    cx.agents
        .entities()
        .iter()
        .filter(|e| **e != cx.agents.main())
        .filter_map(|e| {
            let row = cx.world.row(*e)?;
            let (p, _) = pose(cx.world, cx.h, *e)?;
            let r = if kind[row] == Kind::Vehicle.code() {
                radius[row] + cx.world.read(cx.h.half_length)[row]
            } else {
                radius[row]
            };
            Some((p.0, r))
        })
        .collect()
}

/// A `get_terrain_grid` taken from the world: the slice and what it is
/// classed against. `Send`: a large one is classed on another thread
/// while the world serves other clients.
#[derive(Debug)]
pub(crate) struct GridJob {
    slice: Slice,
    terrain: Arc<Terrain>,
    obstacles: Vec<Obstacle>,
    agents: Vec<AgentDisc>,
    statics: bool,
    dynamics: bool,
}

/// Takes a `get_terrain_grid` from the world: its slice (the map at
/// `cell_size`, at the main AUV's height unless `auv_y` says) and copies
/// of the footprints it asks for.
pub(crate) fn prepare_grid(
    cx: ReadCtx<'_>,
    g: TerrainGridRequest,
) -> Result<GridJob, ProtocolError> {
    let cell = g.cell_size.unwrap_or(0.5);
    let scene = cx.world.resource(cx.h.scene);
    let [x0, x1, y0, y1] = scene.bounds();
    let (nx, ny) = (
        ((x1 - x0) / cell).ceil() as usize,
        ((y1 - y0) / cell).ceil() as usize,
    );
    if nx.saturating_mul(ny) > MAX_GRID_CELLS {
        return Err(ProtocolError::InvalidMessage(format!(
            "{nx} x {ny} cells exceed the limit of {MAX_GRID_CELLS}; use a larger cell_size"
        )));
    }
    let main_z = pose(cx.world, cx.h, cx.agents.main()).map_or(0.0, |p| p.0 .0[2]);
    let statics = g.include_static_obstacles.unwrap_or(true);
    let dynamics = g.include_dynamic_agents.unwrap_or(true);
    Ok(GridJob {
        slice: Slice {
            origin: [x0, y0],
            cell,
            cols: nx,
            rows: ny,
            z: g.auv_y.unwrap_or(main_z),
            inflation: g.inflation_radius.unwrap_or(0.0),
        },
        terrain: scene.terrain.clone(),
        obstacles: if statics {
            scene.obstacles.to_vec()
        } else {
            Vec::new()
        },
        agents: if dynamics {
            agent_spheres(cx)
        } else {
            Vec::new()
        },
        statics,
        dynamics,
    })
}

impl GridJob {
    /// Classes the slice, drawing its work on `budget`, and gives the
    /// reply.
    pub(crate) fn run(self, budget: &mut Budget) -> Outcome {
        let s = self.slice;
        let occupancy = match classify(
            &s,
            &self.terrain,
            &self.obstacles,
            &self.agents,
            budget.grid_work_left(),
        ) {
            Ok(o) => o,
            Err(OverBudget { needed }) => {
                // `needed` passed what was left: this draw refuses.
                budget.take_grid_work(s.cells(), needed)?;
                return Err(ProtocolError::InvalidMessage(
                    "the grid passes the budget of one request line".into(),
                ));
            }
        };
        budget.take_grid_work(s.cells(), occupancy.work)?;
        let rows = |f: fn(u8) -> u8| -> Vec<Vec<u8>> {
            occupancy
                .classes
                .chunks(s.cols.max(1))
                .map(|r| r.iter().map(|c| f(*c)).collect())
                .collect()
        };
        let names = ["free", "terrain", "static_obstacle", "dynamic_agent"];
        Reply::ok(TerrainGrid {
            width: s.cols,
            height: s.rows,
            cell_size: s.cell,
            origin_user: s.origin,
            slice_z: s.z,
            inflation_radius: s.inflation,
            layout: "grid[row][col]: row j at y = origin_y + (j + 0.5) cell (north), col i at x = origin_x + (i + 0.5) cell (east)".into(),
            grid: rows(|c| u8::from(c != FREE)),
            class_grid: rows(|c| c),
            classes: names.iter().enumerate().map(|(i, n)| (i.to_string(), (*n).into())).collect(),
            counts: names.iter().zip(occupancy.counts).map(|(n, c)| ((*n).into(), c)).collect(),
            include_static_obstacles: self.statics,
            include_dynamic_agents: self.dynamics,
        })
    }
}

/// `get_terrain_grid`: a horizontal slice classed cell by cell (see
/// [`oceansim_scene::occupancy`]), its work drawn on the line's budget.
pub(super) fn terrain_grid(cx: ReadCtx<'_>, budget: &mut Budget, g: TerrainGridRequest) -> Outcome {
    prepare_grid(cx, g)?.run(budget)
}
