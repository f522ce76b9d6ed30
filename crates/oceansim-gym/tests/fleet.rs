//! The fleet environment: agents hear each other over the acoustic
//! channel, flying to one's slot earns the reward, a collision ends that
//! agent alone, and a seed gives the same run on one thread and two.

use oceansim_gym::{FleetConfig, FleetEnv};

/// PD towards the slot, from the observation (slot − position in the body
/// frame, values 14..17, and the DVL's velocity, 9..12), pushed away from
/// the neighbours heard within 4 m; `body_force_3d` [starboard, forward,
/// up] (N).
fn to_slot(obs: &[f32]) -> [f64; 3] {
    let o = |k: usize| f64::from(obs[k]);
    let (mut x, mut y, mut z) = (o(14), o(15), o(16));
    for j in 0..(obs.len() - 17) / 4 {
        let d = nalgebra::Vector3::new(o(17 + 4 * j), o(18 + 4 * j), o(19 + 4 * j));
        let (dist, age) = (d.norm(), o(20 + 4 * j));
        if age < 5.0 && dist > 1e-6 && dist < 4.0 {
            let push = d / dist * (4.0 - dist) * 2.0;
            (x, y, z) = (x - push.x, y - push.y, z - push.z);
        }
    }
    let (u, v, w) = (o(9), o(10), o(11));
    [
        20.0 * y - 60.0 * v,
        20.0 * x - 60.0 * u,
        -(20.0 * z - 60.0 * w),
    ]
}

fn run(threads: usize, seed: u64, steps: usize, drive: bool) -> (Vec<u32>, FleetEnv, Vec<f64>) {
    let mut env = FleetEnv::new(&FleetConfig::new(6), threads).unwrap();
    let (n, len) = (env.n_agents(), env.observation_len());
    let mut obs = env.reset(Some(seed)).unwrap();
    let mut bits: Vec<u32> = obs.iter().map(|x| x.to_bits()).collect();
    let mut ret = vec![0.0; n];
    for _ in 0..steps {
        let actions: Vec<f64> = obs
            .chunks(len)
            .flat_map(|o| if drive { to_slot(o) } else { [0.0; 3] })
            .collect();
        let out = env.step(&actions).unwrap();
        for (r, x) in ret.iter_mut().zip(&out.reward) {
            *r += f64::from(*x);
        }
        obs = out.obs;
        bits.extend(obs.iter().chain(&out.reward).map(|x| x.to_bits()));
    }
    (bits, env, ret)
}

#[test]
fn a_seed_gives_the_same_fleet_on_one_thread_and_two() {
    let (a, _, _) = run(1, 5, 120, true);
    let (b, _, _) = run(2, 5, 120, true);
    assert_eq!(a, b);
    let (c, _, _) = run(2, 6, 120, true);
    assert_ne!(a, c, "another seed, another episode");
}

#[test]
fn agents_hear_each_other_and_flying_to_the_slots_pays() {
    let (_, env, ret) = run(2, 1, 300, true);
    let [sent, delivered, lost, busy] = env.message_counts();
    // 6 agents, one report a second each for 30 s, 10 % loss.
    assert!(
        (170..=186).contains(&sent),
        "{sent} {:?} {:?}",
        env.alive(),
        env.message_counts()
    );
    assert_eq!(busy, 0);
    assert!(delivered > 600 && lost > 40, "{delivered} {lost}");
    // Every agent has recent reports of the others (age well under a few
    // periods), at about their true offsets.
    let len = env.observation_len();
    let n = env.n_agents();
    let obs = {
        let mut e = env;
        e.step(&vec![0.0; 3 * n]).unwrap().obs
    };
    for i in 0..n {
        let o = &obs[i * len..(i + 1) * len];
        for j in 0..n - 1 {
            let age = o[17 + 4 * j + 3];
            assert!(age < 3.5, "agent {i} neighbour slot {j}: age {age}");
        }
    }
    let (_, idle_env, idle) = run(2, 1, 300, false);
    let mean = |r: &[f64]| r.iter().sum::<f64>() / r.len() as f64;
    assert!(mean(&ret) > mean(&idle) + 0.1, "{ret:?} vs idle {idle:?}");
    let errs: Vec<f64> = idle_env
        .slots_ned()
        .iter()
        .zip(idle_env.batch().lanes())
        .map(|(s, l)| (nalgebra::Vector3::from(*s) - l.state().position_ned).norm())
        .collect();
    assert!(
        errs.iter().any(|e| *e > 2.0),
        "idle agents are off their slots: {errs:?}"
    );
}

#[test]
fn bad_actions_are_refused_whole_and_the_episode_ends_for_everyone() {
    let mut cfg = FleetConfig::new(3);
    cfg.max_steps = 5;
    let mut env = FleetEnv::new(&cfg, 1).unwrap();
    let before = env.reset(Some(2)).unwrap();
    let e = env.step(&[0.0; 8]).unwrap_err();
    assert_eq!(e.code(), "invalid_action_shape");
    let mut a = vec![0.0; 9];
    a[4] = f64::NAN;
    assert_eq!(env.step(&a).unwrap_err().code(), "invalid_action");
    assert_eq!(env.time_s(), 0.0, "nothing moved");
    let mut last = None;
    for _ in 0..5 {
        last = Some(env.step(&[0.0; 9]).unwrap());
    }
    let last = last.unwrap();
    assert!(last.truncated.iter().all(|t| *t) && env.alive().iter().all(|a| !a));
    assert_eq!(env.step(&[0.0; 9]).unwrap_err().code(), "needs_reset");
    assert_eq!(
        env.reset(Some(2)).unwrap(),
        before,
        "the same seed, the same start"
    );
    for bad in [0, 1, 65] {
        assert_eq!(
            FleetEnv::new(&FleetConfig::new(bad), 1).unwrap_err().code(),
            "config"
        );
    }
}
