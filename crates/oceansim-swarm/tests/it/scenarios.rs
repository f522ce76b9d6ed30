//! The example scenarios converge, under the bounds justified in
//! `oceansim_swarm::scenarios`.

use oceansim_swarm::scenarios::{
    run_gvf_ellipse, run_source_seeking, GvfEllipseConfig, SourceSeekingConfig,
};

#[test]
fn gvf_unicycles_converge_onto_the_ellipse_within_one_step_length() {
    let cfg = GvfEllipseConfig::default();
    let run = run_gvf_ellipse(&cfg).unwrap();
    eprintln!(
        "GVF: path error {:.3} m -> {:.2e} m",
        run.initial_path_error_m, run.final_path_error_m
    );
    assert!(run.initial_path_error_m > 1.0);
    let step = cfg.speed * cfg.dt;
    assert!(
        run.final_path_error_m < step,
        "final path error {} >= v dt = {step}",
        run.final_path_error_m
    );
    // The residual is the Euler step's: it shrinks with dt.
    let fine = run_gvf_ellipse(&GvfEllipseConfig {
        dt: cfg.dt / 5.0,
        ..cfg
    })
    .unwrap();
    assert!(
        fine.final_path_error_m < run.final_path_error_m / 2.0,
        "{} vs {}",
        fine.final_path_error_m,
        run.final_path_error_m
    );
}

#[test]
fn the_formation_finds_the_source_of_the_nonconvex_field() {
    for d in [0.5, 0.2] {
        let cfg = SourceSeekingConfig {
            formation_radius: d,
            ..SourceSeekingConfig::default()
        };
        let run = run_source_seeking(&cfg).unwrap();
        let n = run.centroid_track.len();
        let (a, b) = (run.centroid_track[n - 1], run.centroid_track[n - 51]);
        let moved = (a[0] - b[0]).hypot(a[1] - b[1]);
        eprintln!("source seeking D = {d}: distance {:.3} m -> {:.3} m, moved {moved:.1e} m in the last 5 s", run.initial_distance_m, run.final_distance_m);
        assert!(run.initial_distance_m > 5.0);
        assert!(
            run.final_distance_m < d,
            "final distance {} >= D = {d}",
            run.final_distance_m
        );
        assert!(moved < 1e-3, "still moving: {moved}");
    }
}
