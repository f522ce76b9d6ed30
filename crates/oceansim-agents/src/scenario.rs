//! Validation of a scenario file's `agents` array.

use crate::definition::{parse_definition, AgentDefinition};
use crate::error::{AgentError, Problem, Result};
use serde_json::Value;
use std::collections::BTreeMap;

/// Most agents one scenario may declare.
pub const MAX_SCENARIO_AGENTS: usize = 256;

/// Validates the `agents` array of a scenario file: each entry is a
/// well-formed definition (known control scheme, poses of 3 finite numbers),
/// names are unique, exactly one entry is the main agent, the main agent
/// uses a scheme the physical AUV supports (`fins` only with a `profile`
/// named, whose fins the simulator checks) and proxies one a proxy supports.
/// Reports every problem with its JSON path (`agents[2].location`), not just
/// the first.
///
/// ```
/// use oceansim_agents::check_scenario_agents;
/// use serde_json::json;
/// let agents = json!([
///     {"agent_name": "auv/main", "is_main_agent": true, "control_scheme": "force_3d"},
///     {"agent_name": "target_01", "location": [4.0, -7.0, 6.0]},
/// ]);
/// let defs = check_scenario_agents(&agents).unwrap();
/// assert_eq!(defs.len(), 2);
/// ```
pub fn check_scenario_agents(agents: &Value) -> Result<Vec<AgentDefinition>> {
    let mut problems = Vec::new();
    let Value::Array(items) = agents else {
        return Err(AgentError::Invalid(vec![Problem {
            path: "agents".into(),
            message: "expected an array of agent definitions".into(),
        }]));
    };
    if items.len() > MAX_SCENARIO_AGENTS {
        problems.push(Problem {
            path: "agents".into(),
            message: format!("{} agents; the limit is {MAX_SCENARIO_AGENTS}", items.len()),
        });
    }
    let mut defs = Vec::with_capacity(items.len());
    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    let mut mains = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let prefix = format!("agents[{i}]");
        let Some(def) = parse_definition(item, &prefix, &mut problems) else {
            continue;
        };
        if !def.agent_name.is_empty() {
            if let Some(first) = names.insert(def.agent_name.clone(), i) {
                problems.push(Problem {
                    path: format!("{prefix}.agent_name"),
                    message: format!("`{}` is already used by agents[{first}]", def.agent_name),
                });
            }
        }
        let scheme_given = item.get("control_scheme").is_some();
        if def.is_main_agent {
            mains.push(i);
            // `fins` needs a profile with control surfaces or propellers:
            // the simulator checks the profile named; the default has none.
            let fins_ok = def.control_scheme.needs_fins() && def.profile.is_some();
            if scheme_given && !def.control_scheme.main_auv_supports() && !fins_ok {
                let message = if def.control_scheme.needs_fins() {
                    "fins needs a `profile` with control surfaces or propellers (the default has none)".to_owned()
                } else {
                    format!("the main AUV does not support {}", def.control_scheme)
                };
                problems.push(Problem {
                    path: format!("{prefix}.control_scheme"),
                    message,
                });
            }
        } else if scheme_given && !def.control_scheme.proxy_supports() {
            problems.push(Problem {
                path: format!("{prefix}.control_scheme"),
                message: format!(
                    "proxy agents accept external_velocity only, got {}",
                    def.control_scheme
                ),
            });
        }
        defs.push(def);
    }
    match mains.len() {
        1 => {}
        0 => problems.push(Problem {
            path: "agents".into(),
            message: "no main agent (exactly one entry needs is_main_agent: true)".into(),
        }),
        _ => problems.push(Problem {
            path: "agents".into(),
            message: format!(
                "{} main agents ({}); exactly one is allowed",
                mains.len(),
                mains
                    .iter()
                    .map(|i| format!("agents[{i}]"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }),
    }
    if problems.is_empty() {
        Ok(defs)
    } else {
        Err(AgentError::Invalid(problems))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn paths(v: Value) -> Vec<String> {
        check_scenario_agents(&v)
            .unwrap_err()
            .problems()
            .iter()
            .map(|p| format!("{}: {}", p.path, p.message))
            .collect()
    }

    #[test]
    fn accepts_the_spec_scenario_agents() {
        let v = json!([
            {"schema_version": 1, "agent_name": "auv/main", "agent_type": "main_auv",
             "is_main_agent": true, "profile": "oceansim_torpedo_auv",
             "location": [0.0, -6.0, -17.0], "rotation": [0.0, 0.0, 0.0],
             "control_scheme": "force_3d",
             "sensors": ["depth", "imu", "dvl", "camera", "rgbd_dense_cloud", "lidar_2d",
                         "lidar_3d", "imaging_sonar", "multibeam_sonar", "side_scan_sonar"],
             "metadata": {"role": "ego_vehicle", "semantic_label": "auv",
                          "tags": ["main", "controlled", "dynamic_benchmark"]}},
            {"schema_version": 1, "agent_name": "target_01", "agent_type": "proxy_auv",
             "is_main_agent": false, "location": [4.0, -7.0, 6.0], "rotation": [0.0, 0.0, 0.0],
             "control_scheme": "external_velocity",
             "metadata": {"role": "moving_target", "semantic_label": "auv", "tags": ["dynamic", "vehicle"]}}
        ]);
        let defs = check_scenario_agents(&v).unwrap();
        assert_eq!(defs[0].sensors.len(), 10);
        assert_eq!(defs[1].location, [4.0, -7.0, 6.0]);
    }

    #[test]
    fn reports_every_problem() {
        let p = paths(json!([
            {"agent_name": "a", "is_main_agent": true, "location": [0, 0]},
            {"agent_name": "a", "control_scheme": "hover"},
            {"agent_name": "b", "rotation": [0, "x", 0], "is_main_agent": true},
            "not an object",
            {"agent_name": "c", "control_scheme": "force_3d"}
        ]));
        let joined = p.join("\n");
        for needle in [
            "agents[0].location",
            "agents[1].agent_name: `a` is already used by agents[0]",
            "agents[1].control_scheme: unknown control scheme `hover`",
            "agents[2].rotation",
            "agents[3]: expected an object",
            "agents[4].control_scheme: proxy agents accept external_velocity only",
            "agents: 2 main agents (agents[0], agents[2])",
        ] {
            assert!(joined.contains(needle), "missing `{needle}` in\n{joined}");
        }
        assert_eq!(p.len(), 7, "{joined}");
    }

    #[test]
    fn a_fins_main_agent_needs_a_profile() {
        let ok = json!([{"agent_name": "auv/main", "is_main_agent": true,
                         "profile": "remus100", "control_scheme": "fins"}]);
        let defs = check_scenario_agents(&ok).unwrap();
        assert_eq!(defs[0].control_scheme, crate::ControlScheme::Fins);
        let p = paths(json!([{"agent_name": "auv/main", "is_main_agent": true,
                              "control_scheme": "fins"}]));
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(
            p[0].starts_with("agents[0].control_scheme: fins needs a `profile`"),
            "{p:?}"
        );
        let p = paths(json!([{"agent_name": "auv/main", "is_main_agent": true},
                             {"agent_name": "t", "profile": "remus100", "control_scheme": "fins"}]));
        assert!(
            p[0].contains("proxy agents accept external_velocity only"),
            "{p:?}"
        );
    }

    #[test]
    fn needs_exactly_one_main_agent() {
        let p = paths(json!([{"agent_name": "t"}]));
        assert!(p[0].contains("no main agent"), "{p:?}");
        assert!(paths(json!({"agents": []}))[0].contains("expected an array"));
    }
}
