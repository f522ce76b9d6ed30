//! Every family: payloads as typed, readings read back.

use super::*;
use oceansim_protocol::reply::SensorPayload;

const FAMILIES: [Family; 10] = [
    Family::Depth,
    Family::Imu,
    Family::Dvl,
    Family::Camera,
    Family::RgbdDenseCloud,
    Family::Lidar2d,
    Family::Lidar3d,
    Family::ImagingSonar,
    Family::MultibeamSonar,
    Family::SideScanSonar,
];

#[test]
fn rendered_payloads_are_the_typed_envelope_byte_for_byte() {
    for f in FAMILIES {
        let (sample, text) = fixture::sample(f, None, &fixture::state());
        let s = Sensor::new("auv/main", f.name(), f, None, 7);
        let typed = crate::milli::to_string_milli(&s.header.envelope(
            sample.time,
            sample.wall_time,
            sample.sequence,
            &sample.reading,
        ));
        assert_eq!(text, typed, "{}", f.name());
        let back: SensorPayload = serde_json::from_str(&text).unwrap();
        assert_eq!(back.sensor_type, f.name());
    }
}

#[test]
fn every_reading_reads_back_from_its_json_equal() {
    for f in FAMILIES {
        let (sample, _) = fixture::sample(f, None, &fixture::state());
        assert_eq!(sample.reading.family(), f);
        let json = serde_json::to_string(&sample.reading).unwrap();
        let mut back = Reading::from_json(f, &json).unwrap();
        if let (Reading::ImagingSonar(b), Reading::ImagingSonar(s)) = (&mut back, &sample.reading) {
            assert!(b.intensity.is_empty(), "the matrix is not in the JSON");
            b.intensity = s.intensity.clone();
        }
        assert_eq!(back, sample.reading, "{}", f.name());
        assert!(Reading::from_json(f, "{}").is_err(), "{}", f.name());
    }
    let imu = serde_json::to_string(
        &fixture::sample(Family::Imu, None, &fixture::state())
            .0
            .reading,
    )
    .unwrap()
    .replace("FRD body", "NED body");
    assert!(
        Reading::from_json(Family::Imu, &imu).is_err(),
        "an unknown constant is refused"
    );
}

/// The inputs of a sample in the fixture's scene.
fn inputs() -> SampleInputs {
    let (terrain, obstacles) = fixture::scene();
    SampleInputs {
        time: 0.2,
        wall_time: 0.2,
        state: fixture::state(),
        nu_dot: nalgebra::Vector6::zeros(),
        water_density: 1025.0,
        terrain: Arc::new(terrain),
        obstacles: obstacles.into(),
        bodies: Arc::from(Vec::new()),
    }
}

#[test]
fn a_detached_render_equals_the_inline_one_and_a_dropped_job_fails_its_sample() {
    for family in [Family::Camera, Family::ImagingSonar, Family::SideScanSonar] {
        let mut inline = Sensor::new("auv/main", "s", family, None, 3);
        let mut detached = Sensor::new("auv/main", "s", family, None, 3);
        let x = inputs();
        inline.sample(&x.ctx());
        let job = detached
            .sample_detached(&x)
            .expect("an imaging family detaches");
        assert_eq!(detached.sequence(), Some(0), "numbered before it renders");
        job.submit();
        assert_eq!(detached.latest(), inline.latest(), "{family:?}");
        // A job dropped without running: its readers fail, never hang.
        let job = detached.sample_detached(&x).unwrap();
        drop(job);
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            detached.latest().map(|s| s.sequence)
        }));
        let why = read.expect_err("the dropped sample cannot be read");
        let why = why.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(why.contains("dropped"), "{why}");
    }
    // Families that carry state from sample to sample render in place.
    let mut imu = Sensor::new("auv/main", "imu", Family::Imu, None, 3);
    assert!(imu.sample_detached(&inputs()).is_none());
    assert_eq!(imu.sequence(), Some(0));
}

#[test]
fn a_reader_renders_its_own_sample_not_the_queue_before_it() {
    // 40 side-scan samples queued; a reader of the newest renders that one
    // only, a reader of the oldest that one only; one in the middle, past
    // the newest the search looks at, is not taken out of order.
    let pool = crate::pool::RenderPool::queue_only();
    let mut sonar = Sensor::new("auv/main", "s", Family::SideScanSonar, None, 3);
    let x = inputs();
    let mut slots = Vec::new();
    for _ in 0..40 {
        let job = sonar.sample_detached(&x).unwrap();
        slots.push(job.pending().clone());
        pool.submit(job);
    }
    assert_eq!(pool.queued(), 40);
    assert!(pool.run_for(&slots[39]));
    assert!(pool.run_for(&slots[0]));
    let ready: Vec<usize> = (0..40).filter(|&k| slots[k].is_ready()).collect();
    assert_eq!(ready, [0, 39]);
    assert!(!pool.run_for(&slots[39]), "done: no longer queued");
    assert_eq!(pool.queued(), 38);
    // Rendered out of order, each equals the inline render of its number.
    let mut inline = Sensor::new("auv/main", "s", Family::SideScanSonar, None, 3);
    for _ in 0..40 {
        inline.sample(&x.ctx());
    }
    assert_eq!(&**slots[39].wait(), inline.latest().unwrap());
    while pool.run_one() {}
    assert!(slots.iter().all(|s| s.is_ready()));
}
