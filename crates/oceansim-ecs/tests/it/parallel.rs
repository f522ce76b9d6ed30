//! Above the parallel threshold the engine splits loops across threads;
//! results must be bit-identical to a serial loop doing the same math.

use oceansim_ecs::par::{is_parallel, par_rows_mut, PAR_THRESHOLD};
use oceansim_ecs::{Access, Engine, FnSystem, World};

#[test]
fn parallel_run_is_bit_identical_to_a_serial_loop() {
    let n = PAR_THRESHOLD * 2 + 123;
    let theta0: Vec<f64> = (0..n).map(|i| i as f64 * 1e-3).collect();
    let mut world = World::new(n);
    let p = world.add_state("p", &[2], None, None).unwrap();
    let th = world.add_state("theta", &[], Some(&theta0), None).unwrap();
    let pd = world.add("p_dot", &[2], None).unwrap();
    let om = world.add("theta_dot", &[], None).unwrap();
    world
        .add_system(FnSystem::new(
            "ctrl",
            Access::new().write("theta_dot"),
            move |w, s| {
                let rate = (0.5 * s.time).sin();
                let mut o = w.write(om);
                par_rows_mut(&mut o, 1, |first, rows| {
                    for (k, x) in rows.iter_mut().enumerate() {
                        *x = rate * (1.0 + (first + k) as f64 * 1e-6);
                    }
                });
            },
        ))
        .unwrap();
    world
        .add_system(FnSystem::new(
            "dyn",
            Access::new().read("theta").write("p_dot"),
            move |w, _| {
                let guard = w.read(th);
                let t: &[f64] = &guard; // capture the slice: guards are not Sync
                let mut d = w.write(pd);
                par_rows_mut(&mut d, 2, |first, rows| {
                    for (k, r) in rows.chunks_exact_mut(2).enumerate() {
                        let (s, c) = t[first + k].sin_cos();
                        r[0] = c;
                        r[1] = s;
                    }
                });
            },
        ))
        .unwrap();
    Engine::new(0.01).run(&mut world, 50).unwrap();

    let (mut p_ref, mut t_ref) = (vec![0.0; 2 * n], theta0);
    for k in 0..50 {
        let rate = (0.5 * (k as f64 * 0.01)).sin();
        for i in 0..n {
            let (s, c) = t_ref[i].sin_cos();
            p_ref[2 * i] += 0.01 * c;
            p_ref[2 * i + 1] += 0.01 * s;
            t_ref[i] += 0.01 * (rate * (1.0 + i as f64 * 1e-6));
        }
    }
    assert_eq!(&*world.read(p), p_ref.as_slice());
    assert_eq!(&*world.read(th), t_ref.as_slice());
    assert_eq!(is_parallel(n), cfg!(feature = "parallel"));
}
