//! The vector environment: reproducible for a seed whatever the threads,
//! autoreset, refused actions change nothing, and the rewards mean what
//! the task says.

use oceansim_gym::{EnvConfig, Outcome, TaskKind, VecEnv};

/// A proportional controller in the body frame toward the goal
/// (WaypointNav, body_force_3d: [starboard, forward, up]).
fn toward_goal(obs: &[f32], n: usize) -> Vec<f64> {
    obs.chunks(n)
        .flat_map(|o| {
            let (fwd, stbd, down) = (o[0] as f64, o[1] as f64, o[2] as f64);
            let (u, v, w) = (o[3] as f64, o[4] as f64, o[5] as f64);
            [
                20.0 * stbd - 60.0 * v,
                20.0 * fwd - 60.0 * u,
                -(20.0 * down - 60.0 * w),
            ]
        })
        .collect()
}

fn rollout(threads: usize, seed: u64, steps: usize) -> Vec<(Vec<f32>, Vec<f32>, Vec<bool>)> {
    let mut cfg = EnvConfig::new(TaskKind::WaypointNav);
    cfg.max_steps = 40;
    let mut env = VecEnv::new(&cfg, 33, threads).unwrap();
    let n = env.observation_len();
    let mut obs = env.reset(Some(seed)).unwrap();
    let mut out = Vec::new();
    for _ in 0..steps {
        let s = env.step(&toward_goal(&obs, n)).unwrap();
        obs = s.obs.clone();
        out.push((s.obs, s.reward, s.truncated));
    }
    out
}

#[test]
fn a_seed_gives_the_same_episodes_on_one_or_two_threads() {
    let one = rollout(1, 11, 90);
    assert_eq!(one, rollout(2, 11, 90));
    assert_eq!(one, rollout(1, 11, 90), "a second run");
    assert_ne!(one, rollout(1, 12, 90), "another seed, other episodes");
}

#[test]
fn episodes_end_by_truncation_and_restart_in_the_same_step() {
    let mut cfg = EnvConfig::new(TaskKind::DepthHold);
    cfg.max_steps = 5;
    let mut env = VecEnv::new(&cfg, 4, 1).unwrap();
    let n = env.observation_len();
    let first = env.reset(Some(3)).unwrap();
    let zero = vec![0.0; 4 * env.action_len()];
    for k in 1..=5 {
        let s = env.step(&zero).unwrap();
        assert_eq!(s.truncated, vec![k == 5; 4], "step {k}");
        let want = if k == 5 {
            Outcome::TimeLimit
        } else {
            Outcome::Running
        };
        assert_eq!(s.outcome, vec![want; 4], "step {k}");
        assert!(s.error_m.iter().all(|e| e.is_finite() && *e >= 0.0));
        if k == 5 {
            // The returned observation is the new episode's; the last one
            // of the old episode is kept apart.
            assert_ne!(s.obs, s.final_obs);
            assert!(s.final_obs.chunks(n).all(|o| o.iter().any(|x| *x != 0.0)));
            assert_ne!(s.obs[..n], first[..n], "new start, from the lane's stream");
        } else {
            assert!(s.final_obs.iter().all(|x| *x == 0.0));
        }
    }
}

#[test]
fn bad_actions_are_refused_whole_and_change_nothing() {
    let mut env = VecEnv::new(&EnvConfig::new(TaskKind::WaypointNav), 3, 1).unwrap();
    env.reset(Some(1)).unwrap();
    let before: Vec<_> = env.batch().lanes().iter().map(|l| *l.state()).collect();
    let e = env.step(&[0.0; 8]).unwrap_err();
    assert_eq!(e.code(), "invalid_action_shape");
    let mut a = vec![0.0; 9];
    a[7] = f64::NAN;
    assert_eq!(env.step(&a).unwrap_err().code(), "invalid_action");
    let after: Vec<_> = env.batch().lanes().iter().map(|l| *l.state()).collect();
    assert_eq!(before, after);
    // Out of bounds is clipped, not refused.
    assert!(env.step(&[1e12; 9]).is_ok());
}

#[test]
fn a_controller_that_heads_for_the_goal_arrives_and_earns_more_than_idling() {
    let mut cfg = EnvConfig::new(TaskKind::WaypointNav);
    cfg.max_steps = 600;
    let run = |policy: &dyn Fn(&[f32], usize) -> Vec<f64>| {
        let mut env = VecEnv::new(&cfg, 16, 2).unwrap();
        let n = env.observation_len();
        let mut obs = env.reset(Some(5)).unwrap();
        let (mut ret, mut arrived) = (0.0f64, 0);
        let mut ended = [false; 16];
        for _ in 0..600 {
            let s = env.step(&policy(&obs, n)).unwrap();
            for (i, end) in ended.iter_mut().enumerate() {
                if !*end {
                    ret += s.reward[i] as f64;
                    if s.outcome[i] == Outcome::Arrived {
                        arrived += 1;
                    }
                    *end |= s.terminated[i] || s.truncated[i];
                }
            }
            obs = s.obs;
        }
        (ret / 16.0, arrived)
    };
    let (good, arrived) = run(&toward_goal);
    let (idle, none) = run(&|o: &[f32], n: usize| vec![0.0; o.len() / n * 3]);
    assert!(arrived >= 12, "{arrived} of 16 arrived");
    assert_eq!(none, 0);
    // On the rewards' one scale a perfect episode is worth about 2 (idling
    // loses a little: the torpedo floats up, off its goal).
    assert!(
        good > 1.2 && good > idle + 1.0,
        "return {good} vs idle {idle}"
    );
}

#[test]
fn every_control_scheme_that_drives_a_vehicle_has_finite_bounds() {
    use oceansim_agents::ControlScheme::*;
    for scheme in [
        Force3d,
        BodyForce3d,
        Thrusters,
        WaypointPid,
        BodyWrench6dof,
        BodyVelocity6dof,
    ] {
        let mut cfg = EnvConfig::new(TaskKind::DepthHold);
        cfg.scheme = scheme;
        let mut env = VecEnv::new(&cfg, 2, 1).unwrap();
        let (lo, hi) = env.task().action_bounds();
        assert!(
            lo.iter()
                .zip(hi)
                .all(|(l, h)| l.is_finite() && h.is_finite() && l < h),
            "{scheme:?}"
        );
        let mid: Vec<f64> = lo.iter().zip(hi).map(|(l, h)| (l + h) / 2.0).collect();
        let a: Vec<f64> = mid.iter().chain(&mid).copied().collect();
        env.step(&a).unwrap();
    }
    for scheme in [ExternalVelocity, CustomDynamics6dof] {
        let mut cfg = EnvConfig::new(TaskKind::DepthHold);
        cfg.scheme = scheme;
        assert_eq!(VecEnv::new(&cfg, 1, 1).unwrap_err().code(), "config");
    }
}

#[test]
fn a_map_too_shallow_for_the_tasks_is_refused_not_a_panic() {
    // A flat seabed exactly twice the clearance deep: no room for a start.
    let mut scenario: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../assets/scenarios/Static_Map.json"
        ))
        .unwrap(),
    )
    .unwrap();
    scenario["terrain"] =
        serde_json::json!({"floor_depth_m": 6.0, "relief_m": 0.0, "feature_scale_m": 10.0});
    scenario["procedural_obstacles"] = serde_json::Value::Null;
    scenario["obstacles"] = serde_json::json!([]);
    for a in scenario["agents"].as_array_mut().unwrap() {
        a["location"][1] = serde_json::json!(-3.0);
    }
    let dir = std::env::temp_dir().join(format!("oceansim-gym-shallow-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("Shallow.json");
    std::fs::write(&path, scenario.to_string()).unwrap();
    let mut cfg = EnvConfig::new(TaskKind::WaypointNav);
    cfg.scenario = path.display().to_string();
    let e = VecEnv::new(&cfg, 2, 1).unwrap_err();
    assert_eq!(e.code(), "config", "{e}");
    assert!(e.to_string().contains("no water deeper"), "{e}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn ten_thousand_resets_of_each_task_never_end_at_the_first_step() {
    // Issue #34: 231–256 of these 10,000 (seeds 0 and 1) collided in
    // their first step under a zero action and ended with −10.
    for task in [TaskKind::WaypointNav, TaskKind::DepthHold] {
        let mut env = VecEnv::new(&EnvConfig::new(task), 10_000, 2).unwrap();
        for seed in [0, 1] {
            let obs = env.reset(Some(seed)).unwrap();
            if task == TaskKind::DepthHold {
                // 0.5–1.5 m to go: none starts already within the tolerance.
                let e = env.errors_m();
                assert!(e.iter().all(|e| (0.5..=1.5).contains(e)), "{e:?}");
                let deeper = env
                    .goals_ned()
                    .iter()
                    .zip(env.batch().lanes())
                    .filter(|(g, l)| g[2] > l.state().position_ned.z)
                    .count();
                assert!(
                    (4000..6000).contains(&deeper),
                    "{deeper} of 10,000 go deeper"
                );
            }
            let (lo, hi) = env.task().observation_bounds();
            let n = env.observation_len();
            assert!(obs.chunks(n).all(|o| o
                .iter()
                .zip(lo)
                .zip(hi)
                .all(|((x, l), h)| l <= x && x <= h)));
            let zero = vec![0.0; env.num_envs() * env.action_len()];
            let s = env.step(&zero).unwrap();
            let ended: Vec<_> = s
                .outcome
                .iter()
                .filter(|o| **o != Outcome::Running)
                .collect();
            assert!(ended.is_empty(), "{task:?} seed {seed}: {ended:?}");
        }
    }
}

#[test]
fn a_pd_depth_controller_holds_the_target_depth() {
    // The baseline of docs/python.md (force_3d, +z up): push toward the
    // target, damped by the heave velocity.
    let mut cfg = EnvConfig::new(TaskKind::DepthHold);
    cfg.max_steps = 300;
    let mut env = VecEnv::new(&cfg, 32, 2).unwrap();
    let mut obs = env.reset(Some(9)).unwrap();
    let n = env.observation_len();
    let mut last = None;
    for _ in 0..299 {
        let a: Vec<f64> = obs
            .chunks(n)
            .flat_map(|o| [0.0, 0.0, -(20.0 * o[0] as f64 - 60.0 * o[1] as f64)])
            .collect();
        let s = env.step(&a).unwrap();
        obs = s.obs.clone();
        last = Some(s);
    }
    let s = last.unwrap();
    let held = s.success.iter().filter(|x| **x).count();
    assert!(
        held >= 30,
        "{held} of 32 within the tolerance: {:?}",
        s.error_m
    );
}

#[test]
fn a_map_with_no_open_water_fails_loudly_instead_of_starting_in_contact() {
    // Deep enough, but a box fills the water: every start is in contact.
    let mut scenario: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../assets/scenarios/Static_Map.json"
        ))
        .unwrap(),
    )
    .unwrap();
    scenario["procedural_obstacles"] = serde_json::Value::Null;
    // Godot coordinates (Y up): 100 m square, from 25 m deep to 5 m above.
    scenario["obstacles"] = serde_json::json!([{"id": "slab", "shape": "box",
        "position": [0.0, -10.0, 0.0], "size": [100.0, 30.0, 100.0]}]);
    let dir = std::env::temp_dir().join(format!("oceansim-gym-full-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("Full.json");
    std::fs::write(&path, scenario.to_string()).unwrap();
    let mut cfg = EnvConfig::new(TaskKind::DepthHold);
    cfg.scenario = path.display().to_string();
    let e = VecEnv::new(&cfg, 2, 1).unwrap_err();
    assert_eq!(e.code(), "reset", "{e}");
    assert!(e.to_string().contains("no clear start"), "{e}");
    let _ = std::fs::remove_dir_all(dir);
}

/// A scenario path whose water is walled off by boxes except a square
/// column `pocket_m` wide at the map's centre (from the seabed up through
/// the surface).
fn pocket_scenario(pocket_m: f64, tag: &str) -> std::path::PathBuf {
    let mut scenario: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../assets/scenarios/Static_Map.json"
        ))
        .unwrap(),
    )
    .unwrap();
    scenario["procedural_obstacles"] = serde_json::Value::Null;
    // Godot coordinates (Y up): four 30 m tall boxes (25 m deep to 5 m
    // above the surface) around the column.
    let h = pocket_m / 2.0;
    let wall = |x: f64, z: f64, sx: f64, sz: f64| {
        serde_json::json!({"id": format!("wall_{x}_{z}"), "shape": "box",
            "position": [x, -10.0, z], "size": [sx, 30.0, sz]})
    };
    scenario["obstacles"] = serde_json::json!([
        wall(-h - 20.0, 0.0, 40.0, 80.0),
        wall(h + 20.0, 0.0, 40.0, 80.0),
        wall(0.0, -h - 20.0, pocket_m, 40.0),
        wall(0.0, h + 20.0, pocket_m, 40.0),
    ]);
    let dir = std::env::temp_dir().join(format!("oceansim-gym-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("Pocket.json");
    std::fs::write(&path, scenario.to_string()).unwrap();
    path
}

#[test]
fn a_cramped_map_that_constructs_never_fails_a_reset_or_a_step() {
    // A 6 m column of open water: a lane's 512 draws all miss for ~2 % of
    // its episodes. Those used to fail reset() or, worse, a step part-way
    // (lanes that ended in it restarted with their ends lost); they now
    // start from a start verified at construction.
    let path = pocket_scenario(6.0, "pocket");
    let mut cfg = EnvConfig::new(TaskKind::DepthHold);
    cfg.scenario = path.display().to_string();
    cfg.max_steps = 2;
    let mut env = VecEnv::new(&cfg, 16, 2).unwrap();
    let zero = vec![0.0; env.num_envs() * env.action_len()];
    let mut restarts = 0;
    for seed in 0..5 {
        env.reset(Some(seed)).unwrap();
        for k in 1..=20 {
            let s = env.step(&zero).unwrap();
            let want = if k % 2 == 0 {
                Outcome::TimeLimit
            } else {
                Outcome::Running
            };
            assert_eq!(s.outcome, vec![want; 16], "seed {seed} step {k}");
            restarts += s.truncated.iter().filter(|t| **t).count();
        }
    }
    assert_eq!(restarts, 5 * 10 * 16);
    // WaypointNav's goals, 6–20 m away, cannot fit in the column: the
    // construction says so rather than the first reset or step.
    cfg.task = TaskKind::WaypointNav;
    cfg.scheme = TaskKind::WaypointNav.default_scheme();
    let e = VecEnv::new(&cfg, 2, 1).unwrap_err();
    assert_eq!(e.code(), "reset", "{e}");
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}
