//! Scenario files: map, terrain, obstacles, seeds, tags and the `agents`
//! array, validated with every problem reported by JSON path.
//!
//! Poses in scenario files are Godot coordinates (Y up); the runtime
//! converts them at load time (see [`oceansim_vehicles::frames`]).

use crate::error::{Problem, Result, SceneError};
use oceansim_agents::{check_scenario_agents, AgentDefinition};
use oceansim_protocol::payload::SpawnObstacle;
use oceansim_protocol::{Action, ActionName};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::Path;

/// Version of the scenario format.
pub const SCENARIO_SCHEMA_VERSION: u32 = 1;
/// The scenario served when none is named.
pub const DEFAULT_SCENARIO: &str = "Static_Map";
/// Generators this runtime knows.
pub const GENERATORS: [&str; 4] = [
    "benchmark_static_field",
    "benchmark_dynamic_field",
    "narrow_canyon",
    "pale_plain",
];
/// Largest map side (m).
pub const MAX_MAP_SIDE_M: f64 = 1000.0;
/// Most obstacles a scenario may declare or generate.
pub const MAX_SCENARIO_OBSTACLES: usize = 256;

const BUILTIN: &[(&str, &str)] = &[
    ("Static_Map", include_str!("../scenarios/Static_Map.json")),
    ("Dynamic_Map", include_str!("../scenarios/Dynamic_Map.json")),
    ("NarrowMap", include_str!("../scenarios/NarrowMap.json")),
    ("PaleMap", include_str!("../scenarios/PaleMap.json")),
];

/// Seabed parameters of a scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerrainParams {
    /// Mean seabed depth (m, positive down).
    pub floor_depth_m: f64,
    /// Relief amplitude (m).
    #[serde(default)]
    pub relief_m: f64,
    /// Horizontal feature scale (m).
    #[serde(default = "default_scale")]
    pub feature_scale_m: f64,
    /// Canyon passage width (m), for `narrow_canyon`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canyon_width_m: Option<f64>,
    /// Canyon wall height (m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canyon_wall_height_m: Option<f64>,
}

fn default_scale() -> f64 {
    10.0
}

/// Seeded obstacles added to the declared ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProceduralObstacles {
    /// How many.
    pub count: usize,
    /// Radius range (m).
    pub radius_range_m: [f64; 2],
    /// No obstacle within this distance of the main AUV's start (m).
    #[serde(default)]
    pub keep_clear_radius_m: f64,
}

/// A scenario file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Format version.
    pub schema_version: u32,
    /// Identifier (`Static_Map`, ...).
    pub id: String,
    /// Human-readable name.
    pub display_name: String,
    /// What it is for.
    #[serde(default)]
    pub description: String,
    /// Terrain generator.
    pub generator: String,
    /// Map extent along x (east) and y (north), m.
    pub map_size_m: [f64; 2],
    /// Benchmark seeds (the first is the default).
    #[serde(default)]
    pub seeds: Vec<u64>,
    /// Semantic tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Vehicle profile recommended for the main AUV.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommended_profile: Option<String>,
    /// Seabed.
    pub terrain: TerrainParams,
    /// Seeded extra obstacles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub procedural_obstacles: Option<ProceduralObstacles>,
    /// Agent definitions (exactly one main agent).
    pub agents: Value,
    /// Static obstacles as `spawn_obstacle` payloads (Godot coordinates).
    #[serde(default)]
    pub obstacles: Vec<Value>,
}

/// A scenario that passed validation, with its parsed parts.
#[derive(Debug, Clone)]
pub struct LoadedScenario {
    /// The file.
    pub scenario: Scenario,
    /// Agents; the main agent first.
    pub agents: Vec<AgentDefinition>,
    /// Declared obstacles with their ids.
    pub obstacles: Vec<(String, SpawnObstacle)>,
}

impl LoadedScenario {
    /// The main agent's definition.
    pub fn main_agent(&self) -> &AgentDefinition {
        &self.agents[0]
    }
}

/// Names of the shipped scenarios.
pub fn builtin_names() -> Vec<&'static str> {
    BUILTIN.iter().map(|(n, _)| *n).collect()
}

/// Parses and validates scenario JSON.
pub fn parse(text: &str) -> Result<LoadedScenario> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let scenario: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        SceneError::Scenario(vec![Problem {
            path: if path == "." { "(root)".into() } else { path },
            message: e.into_inner().to_string(),
        }])
    })?;
    validate(scenario)
}

/// Most bytes of a scenario file (the shipped ones are a few KiB).
pub const MAX_SCENARIO_BYTES: u64 = 16 << 20;

/// A shipped scenario by name, or a scenario file by path (a regular file
/// of at most [`MAX_SCENARIO_BYTES`]).
pub fn load(name_or_path: &str) -> Result<LoadedScenario> {
    if let Some((_, text)) = BUILTIN.iter().find(|(n, _)| *n == name_or_path) {
        return parse(text);
    }
    let path = Path::new(name_or_path);
    if path.extension().is_some_and(|e| e == "json") || path.exists() {
        let text = crate::files::read_text_file(path, MAX_SCENARIO_BYTES).map_err(|source| {
            SceneError::Io {
                path: name_or_path.into(),
                source,
            }
        })?;
        return parse(&text);
    }
    Err(SceneError::UnknownScenario {
        name: name_or_path.into(),
        known: builtin_names().join(", "),
    })
}

fn validate(s: Scenario) -> Result<LoadedScenario> {
    let mut p = Vec::new();
    check_fields(&s, &mut p);
    let agents = check_agents(&s, &mut p);
    let obstacles = check_obstacles(&s, &mut p);
    if !p.is_empty() {
        return Err(SceneError::Scenario(p));
    }
    Ok(LoadedScenario {
        scenario: s,
        agents,
        obstacles,
    })
}

/// The scalar fields: version, id, generator, map, terrain, procedural
/// obstacles, profile.
fn check_fields(s: &Scenario, p: &mut Vec<Problem>) {
    let mut bad = |path: &str, message: String| {
        p.push(Problem {
            path: path.into(),
            message,
        })
    };
    if s.schema_version != SCENARIO_SCHEMA_VERSION {
        bad(
            "schema_version",
            format!(
                "unsupported version {} (this build reads {SCENARIO_SCHEMA_VERSION})",
                s.schema_version
            ),
        );
    }
    if s.id.trim().is_empty() {
        bad("id", "must not be empty".into());
    }
    if !GENERATORS.contains(&s.generator.as_str()) {
        bad(
            "generator",
            format!(
                "unknown generator `{}` ({})",
                s.generator,
                GENERATORS.join(", ")
            ),
        );
    }
    for (i, side) in s.map_size_m.iter().enumerate() {
        if !(side.is_finite() && *side >= 4.0 && *side <= MAX_MAP_SIDE_M) {
            bad(
                &format!("map_size_m[{i}]"),
                format!("must be in [4, {MAX_MAP_SIDE_M}] m, got {side}"),
            );
        }
    }
    let t = &s.terrain;
    if !(t.floor_depth_m.is_finite() && t.floor_depth_m > 1.0 && t.floor_depth_m < 11_000.0) {
        bad(
            "terrain.floor_depth_m",
            format!("must be in (1, 11000) m, got {}", t.floor_depth_m),
        );
    }
    if !(t.relief_m.is_finite() && t.relief_m >= 0.0 && t.relief_m < t.floor_depth_m) {
        bad(
            "terrain.relief_m",
            format!("must be in [0, floor_depth_m), got {}", t.relief_m),
        );
    }
    if !(t.feature_scale_m.is_finite() && t.feature_scale_m > 0.0) {
        bad(
            "terrain.feature_scale_m",
            format!("must be positive, got {}", t.feature_scale_m),
        );
    }
    if let Some(w) = t.canyon_width_m {
        if !(w.is_finite() && w > 0.0 && w < s.map_size_m[0]) {
            bad(
                "terrain.canyon_width_m",
                format!("must be in (0, map width), got {w}"),
            );
        }
    }
    if let Some(po) = &s.procedural_obstacles {
        if po.count > MAX_SCENARIO_OBSTACLES {
            bad(
                "procedural_obstacles.count",
                format!("at most {MAX_SCENARIO_OBSTACLES}"),
            );
        }
        let [lo, hi] = po.radius_range_m;
        if !(lo > 0.0 && lo <= hi && hi.is_finite()) {
            bad(
                "procedural_obstacles.radius_range_m",
                format!("need 0 < min <= max, got [{lo}, {hi}]"),
            );
        }
    }
    if let Some(profile) = &s.recommended_profile {
        if oceansim_vehicles::VehicleProfile::builtin(profile).is_err() {
            bad(
                "recommended_profile",
                format!("unknown vehicle profile `{profile}`"),
            );
        }
    }
}

/// The agents, main agent first.
fn check_agents(s: &Scenario, p: &mut Vec<Problem>) -> Vec<AgentDefinition> {
    match check_scenario_agents(&s.agents) {
        Ok(mut a) => {
            a.sort_by_key(|d| !d.is_main_agent);
            a
        }
        Err(e) => {
            for q in e.problems() {
                let path = if q.path.starts_with("agents") {
                    q.path.clone()
                } else {
                    format!("agents.{}", q.path)
                };
                p.push(Problem {
                    path,
                    message: q.message.clone(),
                });
            }
            Vec::new()
        }
    }
}

/// The declared obstacles with their ids.
fn check_obstacles(s: &Scenario, p: &mut Vec<Problem>) -> Vec<(String, SpawnObstacle)> {
    if s.obstacles.len() > MAX_SCENARIO_OBSTACLES {
        p.push(Problem {
            path: "obstacles".into(),
            message: format!("at most {MAX_SCENARIO_OBSTACLES}"),
        });
    }
    let mut obstacles = Vec::new();
    let mut ids = std::collections::BTreeSet::new();
    for (i, o) in s.obstacles.iter().enumerate() {
        match Action::from_data(ActionName::SpawnObstacle, o.clone()) {
            Ok(Action::SpawnObstacle(spawn)) => {
                let id = spawn.id.clone().unwrap_or_else(|| format!("obstacle_{i}"));
                if !ids.insert(id.clone()) {
                    p.push(Problem {
                        path: format!("obstacles[{i}].id"),
                        message: format!("`{id}` is used twice"),
                    });
                }
                obstacles.push((id, *spawn));
            }
            Ok(_) => {}
            Err(e) => p.push(Problem {
                path: format!("obstacles[{i}]"),
                message: e.to_string(),
            }),
        }
    }
    obstacles
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_scenario_loads() {
        for name in builtin_names() {
            let s = load(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(s.scenario.id, name);
            assert!(s.main_agent().is_main_agent);
            assert_eq!(s.main_agent().agent_name, "auv/main");
        }
        assert_eq!(load("Dynamic_Map").unwrap().agents.len(), 4);
        assert_eq!(load("Nope").unwrap_err().code(), "unknown_scenario");
    }

    #[test]
    fn every_problem_is_reported_with_its_path() {
        let mut v: Value = serde_json::from_str(BUILTIN[0].1).unwrap();
        v["generator"] = "volcano".into();
        v["map_size_m"][1] = (-3.0).into();
        v["terrain"]["relief_m"] = 99.0.into();
        v["agents"][0]["location"] = serde_json::json!([0, 1]);
        v["obstacles"][0]["radius"] = (-1.0).into();
        v["recommended_profile"] = "submarine".into();
        let e = parse(&v.to_string()).unwrap_err();
        let SceneError::Scenario(ps) = e else {
            panic!()
        };
        let paths: Vec<&str> = ps.iter().map(|p| p.path.as_str()).collect();
        for want in [
            "generator",
            "map_size_m[1]",
            "terrain.relief_m",
            "agents[0].location",
            "obstacles[0]",
            "recommended_profile",
        ] {
            assert!(paths.contains(&want), "{want} missing in {paths:?}");
        }
        let mut v: Value = serde_json::from_str(BUILTIN[0].1).unwrap();
        v["terrain"]["floor_depth"] = 3.into();
        let e = parse(&v.to_string()).unwrap_err();
        assert!(e.to_string().contains("terrain"), "{e}");
    }
}
