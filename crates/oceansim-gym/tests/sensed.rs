//! The sensed tasks: each baseline controller solves its task from the
//! observation alone; the lanes are the same on one thread and two.

use oceansim_gym::{baseline_action, EnvConfig, Outcome, TaskKind, VecEnv};

#[derive(Clone, Copy)]
enum Policy {
    Baseline,
    /// Every action value zero (REMUS: fins amidships, propeller stopped).
    Idle,
}

/// Runs `k` lanes of `task` under its baseline for one episode length;
/// returns (ended outcomes, success at the last step of each lane's first
/// episode, the first episodes' returns).
fn run(task: TaskKind, k: usize, seed: u64, policy: Policy) -> (Vec<Outcome>, Vec<bool>, Vec<f64>) {
    let cfg = EnvConfig::new(task);
    let mut env = VecEnv::new(&cfg, k, 2).unwrap();
    let a = env.action_len();
    let n = env.observation_len();
    let mut obs = env.reset(Some(seed)).unwrap();
    let mut done = vec![None; k];
    let mut success = vec![false; k];
    let mut ret = vec![0.0; k];
    for _ in 0..cfg.max_steps {
        let actions: Vec<f64> = match policy {
            Policy::Baseline => obs
                .chunks(n)
                .flat_map(|o| baseline_action(env.task(), o).unwrap())
                .collect(),
            Policy::Idle => vec![0.0; k * a],
        };
        let out = env.step(&actions).unwrap();
        for i in 0..k {
            if done[i].is_none() {
                ret[i] += f64::from(out.reward[i]);
                if out.outcome[i] != Outcome::Running {
                    done[i] = Some(out.outcome[i]);
                    success[i] = out.success[i];
                }
            }
        }
        obs = out.obs;
    }
    (
        done.into_iter()
            .map(|d| d.unwrap_or(Outcome::Running))
            .collect(),
        success,
        ret,
    )
}

#[test]
fn each_baseline_solves_its_task_from_its_observation() {
    // 32 episodes each: most end holding (TerrainFollow, Remus100Heading)
    // or arrived (SonarAvoid); the rest hit a boulder or run out of time,
    // the room a learned policy has. Doing nothing earns far less.
    for task in [
        TaskKind::TerrainFollow,
        TaskKind::SonarAvoid,
        TaskKind::Remus100Heading,
    ] {
        let (outcomes, ok, ret) = run(task, 32, 3, Policy::Baseline);
        let (_, _, idle) = run(task, 32, 3, Policy::Idle);
        let mean = |r: &[f64]| r.iter().sum::<f64>() / r.len() as f64;
        let solved = ok.iter().filter(|x| **x).count();
        assert!(solved >= 22, "{task:?}: {solved}/32 solved, {outcomes:?}");
        if task == TaskKind::SonarAvoid {
            let arrived = outcomes.iter().filter(|o| **o == Outcome::Arrived).count();
            assert_eq!(arrived, solved, "{outcomes:?}");
        } else {
            assert!(outcomes.iter().all(|o| *o != Outcome::Arrived));
        }
        assert!(
            mean(&ret) > mean(&idle) + 0.8 && mean(&ret) > 1.0,
            "{task:?}: baseline {} against idle {}",
            mean(&ret),
            mean(&idle)
        );
        // Every return on the documented scale.
        assert!(
            ret.iter().chain(&idle).all(|r| (-3.1..=2.0).contains(r)),
            "{ret:?} {idle:?}"
        );
    }
}

#[test]
fn sensed_lanes_are_the_same_on_one_thread_and_two() {
    for task in [
        TaskKind::TerrainFollow,
        TaskKind::SonarAvoid,
        TaskKind::Remus100Heading,
    ] {
        let go = |threads: usize| {
            let mut env = VecEnv::new(&EnvConfig::new(task), 24, threads).unwrap();
            let n = env.observation_len();
            let mut obs = env.reset(Some(11)).unwrap();
            let mut all = obs.clone();
            for _ in 0..40 {
                let actions: Vec<f64> = obs
                    .chunks(n)
                    .flat_map(|o| baseline_action(env.task(), o).unwrap())
                    .collect();
                let out = env.step(&actions).unwrap();
                all.extend(&out.reward);
                obs = out.obs;
                all.extend(&obs);
            }
            all.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        };
        assert_eq!(go(1), go(2), "{task:?}");
    }
}

#[test]
fn the_sonar_is_the_tasks_and_a_bad_one_is_refused() {
    let mut cfg = EnvConfig::new(TaskKind::SonarAvoid);
    cfg.sonar_beams = 16;
    cfg.sonar_bins = 8;
    let env = VecEnv::new(&cfg, 2, 1).unwrap();
    assert_eq!(env.observation_len(), 13 + 16 + 16 * 8);
    assert_eq!(env.task().sonar(), (16, 8, 15.0));
    cfg.sonar_beams = 1;
    let e = VecEnv::new(&cfg, 2, 1).unwrap_err();
    assert_eq!(e.code(), "config", "{e}");
    cfg.sonar_beams = 16;
    cfg.sonar_range_m = f64::NAN;
    assert_eq!(VecEnv::new(&cfg, 2, 1).unwrap_err().code(), "config");
}

#[test]
fn the_remus_baselines_signs_are_its_physics() {
    // A positive rudder turns the REMUS 100 to starboard (r > 0) and a
    // positive stern plane pitches its nose down (q < 0): the conventions
    // the baseline is written on.
    use oceansim_agents::ControlScheme;
    use oceansim_sim::batch::{Batch, BatchSpec};
    let loaded = oceansim_sim::parse_scenario(oceansim_gym::sensed::OPEN_WATER_SCENARIO).unwrap();
    let spec = BatchSpec {
        profile: Some("remus100".into()),
        ..BatchSpec::default()
    };
    let nu = |a: [f64; 3]| {
        let mut b = Batch::with_scenario(&spec, loaded.clone(), 1).unwrap();
        let (sh, l) = b.split_mut();
        l[0].set_action(sh, ControlScheme::Fins, &a).unwrap();
        for _ in 0..50 {
            b.step_all(None);
        }
        b.lanes()[0].state().nu
    };
    assert!(nu([0.1, 0.0, 1525.0])[5] > 0.03);
    assert!(nu([0.0, 0.1, 1525.0])[4] < -0.03);
}

#[test]
fn sonar_avoid_on_a_map_without_obstacles_fails_at_construction_and_says_why() {
    let mut cfg = EnvConfig::new(TaskKind::SonarAvoid);
    cfg.scenario = "OpenWater".into();
    cfg.profile = Some("oceansim_torpedo_auv".into());
    let e = VecEnv::new(&cfg, 1, 1).unwrap_err();
    assert_eq!(e.code(), "reset");
    assert!(e.to_string().contains("obstacle"), "{e}");
}

#[test]
fn sensors_carried_along_leave_the_episodes_a_seed_gives() {
    // Extra sensors draw nothing from the lanes' streams: the same seed
    // gives the same starts and goals with or without them.
    use oceansim_sim::batch::LaneSensorSpec;
    let plain = EnvConfig::new(TaskKind::WaypointNav);
    let mut along = plain.clone();
    along.extra_sensors = vec![LaneSensorSpec::new(oceansim_sim::SensorFamily::Depth)];
    let run = |cfg: &EnvConfig| {
        let mut env = VecEnv::new(cfg, 8, 1).unwrap();
        let mut goals = Vec::new();
        env.reset(Some(4)).unwrap();
        for _ in 0..3 {
            goals.push(env.goals_ned());
            for i in 0..8 {
                env.reset_lane(i).unwrap();
            }
        }
        goals
    };
    assert_eq!(run(&plain), run(&along));
    let env = VecEnv::new(&along, 1, 1).unwrap();
    assert!(env.batch().lanes()[0]
        .sensor(oceansim_sim::SensorFamily::Depth)
        .is_some());
}
