//! The recorder's bounds, its spill and its sensor bookkeeping.

use super::*;
use oceansim_sensors::SensorSample;

fn imu(sequence: u64) -> Arc<SensorSample> {
    Arc::new(SensorSample {
        time: sequence as f64 * 0.01,
        wall_time: 0.0,
        sequence,
        reading: oceansim_sensors::Reading::Depth(oceansim_sensors::DepthReading {
            depth_m: 0.0,
            pressure_pa: 0.0,
        }),
    })
}

fn seqs(v: &SensorTake) -> Vec<u64> {
    assert_eq!(
        v.0[0].1,
        v.1[0]
            .1
            .iter()
            .map(SampleSlot::sequence)
            .collect::<Vec<_>>(),
        "numbers and kept samples agree"
    );
    v.0[0].1.clone()
}

fn sample(agents: usize) -> Sample {
    let agent = AgentFrame {
        name: "auv/main".into(),
        vehicle: true,
        position: [0.0; 3],
        quaternion_xyzw: [0.0, 0.0, 0.0, 1.0],
        velocity: [0.0; 3],
        body_velocity: [0.0; 6],
        heading_deg: 0.0,
        fin_angles_rad: vec![0.1, -0.2],
        propeller_rpm: vec![1500.0],
        imu_bias: Some(oceansim_dataset::ImuBias::from_frd([
            0.1, 0.2, 0.3, 0.4, 0.5, 0.6,
        ])),
        command: None,
        sensor_sequences: vec![("imu".into(), (0..10).collect())],
        sensors: vec![("imu".into(), (0..10).map(imu).collect())],
    };
    Sample {
        frame: 0,
        time: 0.0,
        agents: vec![agent; agents.max(1)],
    }
}

#[test]
fn bounded_by_count_and_by_bytes() {
    // The count bound alone (these frames would pass the default bytes).
    let mut r = Recorder::with_limits(
        false,
        RecordLimits {
            memory_bytes: usize::MAX,
            ..RecordLimits::default()
        },
    );
    for _ in 0..MAX_RECORDED_SAMPLES + 10 {
        r.push(sample(1));
    }
    assert_eq!(r.len(), MAX_RECORDED_SAMPLES);
    assert_eq!(r.frames().dropped_frames(), 10, "nowhere to spill: counted");
    let mut r = Recorder::default();
    let per = sample(64).approx_bytes();
    for _ in 0..MAX_RECORDED_BYTES / per + 100 {
        r.push(sample(64));
    }
    assert_eq!(r.len(), MAX_RECORDED_BYTES / per);
    assert!(r.bytes <= MAX_RECORDED_BYTES);
}

fn numbered(k: u64) -> Sample {
    let mut s = sample(2);
    s.frame = k;
    s.time = k as f64 * 0.1;
    s.agents[0].position = [k as f64, -(k as f64) / 3.0, 0.1];
    s.agents[1].name = "buoy".into();
    s
}

fn spilling(dir: &std::path::Path, memory: usize, spill_bytes: u64) -> Recorder {
    Recorder::with_limits(
        true,
        RecordLimits {
            memory_frames: memory,
            memory_commands: memory,
            spill_root: Some(dir.to_path_buf()),
            spill_bytes,
            ..RecordLimits::default()
        },
    )
}

fn all(frames: &RecordedFrames, payloads: Payloads) -> Vec<Sample> {
    frames
        .iter(payloads)
        .map(|s| Sample::clone(&s.unwrap()))
        .collect()
}

#[test]
fn frames_past_memory_spill_and_read_back_equal_in_order() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = spilling(tmp.path(), 3, MAX_SPILL_BYTES);
    let rec = CommandRecord {
        action: "set_force".into(),
        data: serde_json::json!({"force": [0.1, 1e-300, -7.25]}),
        frame: Some(oceansim_protocol::Frame::OceansimWorld),
    };
    let mut expected = Vec::new();
    for k in 0..20 {
        let mut s = numbered(k);
        let c = r.log_command("auv/main", rec.clone(), s.time, Some(RequestId::from(k)));
        s.agents[0].command = Some(c);
        expected.push(s.clone());
        r.push(s);
    }
    assert_eq!(r.len(), 3, "memory holds the bound");
    let frames = r.frames();
    assert_eq!(
        (frames.len(), frames.spilled(), frames.dropped_frames()),
        (20, 17, 0)
    );
    assert_eq!(
        all(&frames, Payloads::Keep),
        expected,
        "bit for bit, in order"
    );
    let bare = all(&frames, Payloads::Skip);
    assert!(bare[0].agents[0].sensors.is_empty(), "payloads skipped");
    assert_eq!(
        bare[0].agents[0].sensor_sequences,
        expected[0].agents[0].sensor_sequences
    );
    let ids: Vec<u64> = frames.commands().map(|c| c.unwrap().id).collect();
    assert_eq!(ids, (0..20).collect::<Vec<_>>());
    assert_eq!(frames.agents(), ["auv/main", "buoy"]);
    assert_eq!(frames.time_span(), Some([0.0, 19.0 * 0.1]));
    assert_eq!(frames.first_main_position(), Some([0.0, 0.0, 0.1]));
    assert_eq!(
        frames.sensor_keys(),
        [
            ("auv/main".into(), "imu".into()),
            ("buoy".into(), "imu".into())
        ]
    );

    // A view is the record when it was taken: later frames are not in it.
    for k in 20..30 {
        r.push(numbered(k));
    }
    assert_eq!(all(&frames, Payloads::Skip).len(), 20);
    assert_eq!(r.frames().len(), 30);
    let path = frames.spill().unwrap().path().to_path_buf();
    drop(r);
    assert!(path.exists(), "an export still reading keeps the spill");
    drop(frames);
    assert!(!path.exists(), "then it is removed");
}

#[test]
fn a_full_spill_drops_frames_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    // Room for exactly the first four frames' lines (and newlines).
    let room: u64 = (0..4).map(|k| codec::tests_bytes(&numbered(k))).sum();
    let mut r = spilling(tmp.path(), 2, room);
    for k in 0..10 {
        r.push(numbered(k));
    }
    let frames = r.frames();
    assert_eq!(frames.spilled(), 4);
    assert_eq!(frames.dropped_frames(), 4);
    assert_eq!(frames.len(), 6);
    let kept: Vec<u64> = all(&frames, Payloads::Skip)
        .iter()
        .map(|s| s.frame)
        .collect();
    assert_eq!(kept, [0, 1, 2, 3, 8, 9], "the spilled start, then memory");
    assert!(r.spill_failure().unwrap().contains("full"));

    // Nowhere to spill: the oldest are dropped, and counted.
    let mut r = Recorder::new(true);
    r.limits.memory_frames = 2;
    for k in 0..5 {
        r.push(numbered(k));
    }
    let frames = r.frames();
    assert_eq!((frames.len(), frames.dropped_frames()), (2, 3));
    assert!(frames.spill().is_none());

    // A spill that cannot be made (its root is a file): dropped too.
    let file = tmp.path().join("not-a-dir");
    std::fs::write(&file, b"x").unwrap();
    let mut r = spilling(&file, 1, MAX_SPILL_BYTES);
    r.push(numbered(0));
    r.push(numbered(1));
    assert_eq!(r.frames().dropped_frames(), 1);
    assert!(r.spill_failure().unwrap().contains("cannot create"));
}

#[test]
fn a_frame_counts_the_sensor_data_it_keeps() {
    let scan = Arc::new(SensorSample {
        time: 0.0,
        wall_time: 0.0,
        sequence: 0,
        reading: oceansim_sensors::Reading::Lidar2d(oceansim_sensors::Lidar2dReading {
            angle_min_rad: 0.0,
            angle_increment_rad: 0.0,
            range_min_m: 0.0,
            range_max_m: 0.0,
            ranges: vec![0.0; 100_000],
            intensities: Vec::new(),
        }),
    });
    let mut f = sample(1);
    let bare = f.approx_bytes();
    f.agents[0].sensors.push(("lidar_2d".into(), vec![scan]));
    assert!(f.approx_bytes() >= bare + 800_000, "{}", f.approx_bytes());
}

#[test]
fn sensor_sequences_are_taken_once_each_and_restart_after_a_reset() {
    let mut r = Recorder::new(true);
    let buf: Vec<_> = (0..8).map(|k| SampleSlot::Ready(imu(k))).collect();
    r.note_sensor(1, "imu", Some(4), buf[0..5].iter());
    r.note_sensor(1, "imu", Some(4), buf[0..5].iter());
    r.note_sensor(1, "imu", Some(7), buf[3..8].iter());
    assert_eq!(seqs(&r.take_sensors(1)), (0..8).collect::<Vec<_>>());
    assert!(r.take_sensors(1).0[0].1.is_empty(), "taken once");
    // A rebuilt sensor counts from 0 again.
    r.note_sensor(1, "imu", Some(1), buf[0..2].iter());
    assert_eq!(seqs(&r.take_sensors(1)), vec![0, 1]);
    assert!(r.take_sensors(2).0.is_empty(), "unknown entity");
    // Without sensor data: the numbers, no samples.
    let mut r = Recorder::new(false);
    r.note_sensor(1, "imu", Some(4), buf[0..5].iter());
    let (numbers, samples) = r.take_sensors(1);
    assert_eq!(numbers[0].1, (0..5).collect::<Vec<_>>());
    assert!(samples.is_empty());
}

#[test]
fn commands_get_increasing_ids_and_the_log_is_bounded() {
    let mut r = Recorder::default();
    let rec = CommandRecord {
        action: "set_force".into(),
        data: serde_json::json!({}),
        frame: None,
    };
    for i in 0..MAX_RECORDED_COMMANDS as u64 + 3 {
        let e = r.log_command("auv/main", rec.clone(), 0.1, None);
        assert_eq!(e.id, i);
    }
    let log = r.commands();
    assert_eq!(log.len(), MAX_RECORDED_COMMANDS);
    assert_eq!(log[0].id, 3, "oldest dropped");
}

#[test]
fn a_spill_never_takes_over_a_directory_it_did_not_make() {
    let tmp = tempfile::tempdir().unwrap();
    // A leftover of a crashed run with this process's id.
    let leftover = tmp
        .path()
        .join(SPILL_DIR)
        .join(format!("{}.0", std::process::id()));
    std::fs::create_dir_all(&leftover).unwrap();
    std::fs::write(leftover.join("frames.jsonl"), b"old\n").unwrap();
    let mut r = spilling(tmp.path(), 1, MAX_SPILL_BYTES);
    for k in 0..3 {
        r.push(numbered(k));
    }
    let frames = r.frames();
    assert_eq!(frames.spilled(), 2, "spilled beside it");
    assert_ne!(frames.spill().unwrap().path(), leftover);
    drop((r, frames));
    assert!(
        leftover.join("frames.jsonl").exists(),
        "the leftover is not ours to remove"
    );

    // A link where the spill directory goes is refused, not followed.
    #[cfg(unix)]
    {
        let elsewhere = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        std::fs::create_dir(&root).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), root.join(SPILL_DIR)).unwrap();
        let mut r = spilling(&root, 1, MAX_SPILL_BYTES);
        r.push(numbered(0));
        r.push(numbered(1));
        assert_eq!(r.frames().dropped_frames(), 1);
        assert!(
            r.spill_failure().unwrap().contains("link"),
            "{:?}",
            r.spill_failure()
        );
        assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    }
}

#[test]
fn a_spill_that_reads_back_short_is_an_error_not_fewer_frames() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = spilling(tmp.path(), 1, MAX_SPILL_BYTES);
    for k in 0..6 {
        r.push(numbered(k));
    }
    let frames = r.frames();
    let path = frames.spill().unwrap().path().join("frames.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let cut: String = text.lines().take(3).map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, cut).unwrap();
    let read: Vec<_> = frames.iter(Payloads::Skip).collect();
    assert_eq!(read.iter().filter(|f| f.is_ok()).count(), 3);
    let err = read[3].as_ref().unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof, "{err}");
    assert!(err.to_string().contains("3 of 5 lines"), "{err}");
}

#[test]
fn a_non_finite_state_stops_the_spill_instead_of_poisoning_it() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = spilling(tmp.path(), 1, MAX_SPILL_BYTES);
    r.push(numbered(0));
    let mut bad = numbered(1);
    bad.agents[0].velocity[2] = f64::NAN;
    r.push(bad);
    r.push(numbered(2));
    r.push(numbered(3));
    let frames = r.frames();
    assert_eq!((frames.spilled(), frames.dropped_frames()), (1, 2));
    assert!(r.spill_failure().unwrap().contains("non-finite"));
    assert_eq!(frames.iter(Payloads::Keep).filter(|f| f.is_ok()).count(), 2);
}

/// Waits (up to 30 s) for the background sweep to settle `cond`.
#[cfg(target_os = "linux")]
fn eventually(what: &str, cond: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !cond() {
        assert!(std::time::Instant::now() < deadline, "never: {what}");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_spill_left_by_a_dead_run_is_removed_and_a_live_ones_is_not() {
    use rustix::fs::{flock, FlockOperation};
    let tag = super::spill::boot_tag().expect("Linux has a boot id");
    let tmp = tempfile::tempdir().unwrap();
    let parent = tmp.path().join(SPILL_DIR);
    let make = |name: &str| {
        let d = parent.join(name);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("frames.jsonl"), b"old\n").unwrap();
        std::fs::write(d.join("owner.lock"), b"").unwrap();
        d
    };
    // A run of this boot that died: its lock file is there, nobody holds it.
    let dead = make(&format!("{tag}.4242.0.000000001"));
    // A run still going in another process: its lock is held (a second
    // open file takes the part of the other process).
    let live = make(&format!("{tag}.4243.0.000000002"));
    let held = std::fs::File::open(live.join("owner.lock")).unwrap();
    flock(&held, FlockOperation::NonBlockingLockExclusive).unwrap();
    // Another machine's (or boot's) run: its lock tells nothing here.
    let other_boot = make("0123456789abcdef.4244.0.000000003");
    // A link to a dead-looking directory elsewhere is not followed, nor is
    // an `owner.lock` that is a link.
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("owner.lock"), b"").unwrap();
    std::fs::write(elsewhere.path().join("keep"), b"").unwrap();
    let link = parent.join(format!("{tag}.4245.0.000000004"));
    std::os::unix::fs::symlink(elsewhere.path(), &link).unwrap();
    let linked_lock = parent.join(format!("{tag}.4246.0.000000005"));
    std::fs::create_dir_all(&linked_lock).unwrap();
    std::os::unix::fs::symlink(
        elsewhere.path().join("owner.lock"),
        linked_lock.join("owner.lock"),
    )
    .unwrap();

    let mut first = spilling(tmp.path(), 1, MAX_SPILL_BYTES);
    for k in 0..3 {
        first.push(numbered(k));
    }
    let first_dir = first.frames().spill().unwrap().path().to_path_buf();
    assert!(
        first_dir.join("owner.lock").exists(),
        "a spill holds its own lock"
    );
    eventually("the dead run's spill is removed", || !dead.exists());
    // The sweep runs on a thread of its own; once more here, to its end,
    // before looking at what it must have kept.
    let uid = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(&first_dir).unwrap());
    super::spill::sweep_orphans(&parent, &tag, uid);
    assert!(
        live.join("frames.jsonl").exists(),
        "a held lock keeps its spill"
    );
    assert!(
        other_boot.join("frames.jsonl").exists(),
        "another boot's is kept"
    );
    assert!(std::fs::symlink_metadata(&link).is_ok(), "a link is kept");
    assert!(elsewhere.path().join("keep").exists(), "and not followed");
    assert!(linked_lock.exists(), "a linked lock is not taken");

    // A second spill in this process does not take the first for dead.
    let mut second = spilling(tmp.path(), 1, MAX_SPILL_BYTES);
    for k in 0..3 {
        second.push(numbered(k));
    }
    assert_eq!(all(&first.frames(), Payloads::Keep).len(), 3);
    assert!(first_dir.join("frames.jsonl").exists());

    // Once the live run ends (its lock dropped), the next spill removes it.
    drop(held);
    drop(second);
    let mut third = spilling(tmp.path(), 1, MAX_SPILL_BYTES);
    third.push(numbered(0));
    third.push(numbered(1));
    eventually("an unheld lock is a dead run's", || !live.exists());
    assert!(first_dir.exists(), "the first spill still lives");
    assert_eq!(all(&first.frames(), Payloads::Keep).len(), 3);
}

#[test]
fn a_cancelled_read_stops_at_the_next_frame_with_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = spilling(dir.path(), 3, 1 << 30);
    for k in 0..10 {
        r.push(numbered(k));
    }
    let cancel = Cancel::new();
    let frames = r.frames().with_cancel(cancel.clone());
    let mut it = frames.iter(Payloads::Keep);
    // Spilled frames first, then those in memory: stopped either way.
    assert_eq!(it.next().unwrap().unwrap().frame, 0);
    cancel.cancel();
    let err = it.next().unwrap().unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::Other);
    assert!(err.to_string().contains("cancelled"), "{err}");
    assert!(it.next().is_none(), "nothing after the error");
    assert!(frames.cancelled());
    // A record read without the flag is whole.
    assert_eq!(r.frames().iter(Payloads::Skip).count(), 10);
}

/// A sonar on a vehicle 6 m down over a flat seabed, and the inputs of a
/// sample at `time`.
fn sonar_and_inputs(time: f64) -> (oceansim_sensors::Sensor, oceansim_sensors::SampleInputs) {
    use oceansim_scene::terrain::{Terrain, TerrainSpec};
    let sonar = oceansim_sensors::Sensor::new(
        "auv/main",
        "sonar",
        oceansim_sensors::Family::SideScanSonar,
        None,
        7,
    );
    let inputs = oceansim_sensors::SampleInputs {
        time,
        wall_time: time,
        state: oceansim_vehicles::VehicleState::at_rest(
            nalgebra::Vector3::new(0.0, 0.0, 6.0),
            0.0,
            0.0,
            0.0,
        ),
        nu_dot: nalgebra::Vector6::zeros(),
        water_density: 1025.0,
        terrain: Arc::new(Terrain::generate(TerrainSpec::flat([100.0, 100.0], 20.0))),
        obstacles: Arc::from(Vec::new()),
        bodies: Arc::from(Vec::new()),
    };
    (sonar, inputs)
}

/// A frame of one agent whose one sensor took `slot`.
fn frame_with(r: &mut Recorder, slot: SampleSlot) {
    let mut s = sample(1);
    s.frame = r.next_frame();
    r.push_with_slots(s, vec![vec![("sonar".into(), vec![slot])]]);
}

#[test]
fn frames_waiting_for_renders_join_the_record_in_order_with_their_samples() {
    let (mut sonar, inputs) = sonar_and_inputs(0.2);
    let mut r = Recorder::new(true);
    let job = sonar
        .sample_detached(&inputs)
        .expect("a sonar renders detached");
    let slot = sonar.slots().last().unwrap().clone();
    frame_with(&mut r, slot);
    // A frame with nothing to wait for waits behind it.
    r.push(sample(1));
    assert_eq!(r.len(), 0, "both wait for the first frame's render");
    assert_eq!(r.total_len(), 2, "but both are counted");
    job.run();
    // Done renders land when the record is read, with no frame after
    // them (a paused world records none).
    assert_eq!(r.after(None).len(), 2);
    assert_eq!(r.len(), 2);
    let frames = r.shared();
    assert_eq!(frames[0].frame, 0, "in order");
    let kept = &frames[0].agents[0].sensors[0].1[0];
    // The sample a render on the taking thread gives, value for value.
    let (mut inline, inputs) = sonar_and_inputs(0.2);
    inline.sample(&inputs.ctx());
    assert_eq!(**kept, *inline.latest().unwrap());
}

/// Records a frame holding `slot` while `first` (the oldest render
/// waiting) runs on another thread 200 ms later; asserts that recording
/// waited for it.
fn frame_waiting_for(r: &mut Recorder, first: oceansim_sensors::RenderJob, slot: SampleSlot) {
    let rendered = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let worker = {
        let rendered = rendered.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(200));
            rendered.store(true, std::sync::atomic::Ordering::SeqCst);
            first.run();
        })
    };
    frame_with(r, slot);
    assert!(
        rendered.load(std::sync::atomic::Ordering::SeqCst),
        "returned before the oldest render ran"
    );
    worker.join().unwrap();
}

#[test]
fn past_the_bound_recording_waits_for_renders_and_loses_no_sample() {
    let (mut sonar, inputs) = sonar_and_inputs(0.2);
    let mut r = Recorder::with_limits(
        true,
        RecordLimits {
            renders_in_flight: 1,
            ..RecordLimits::default()
        },
    );
    let first = sonar.sample_detached(&inputs).unwrap();
    frame_with(&mut r, sonar.slots().last().unwrap().clone());
    let second = sonar.sample_detached(&inputs).unwrap();
    // Two renders waiting is past the bound: this waits for the first.
    frame_waiting_for(&mut r, first, sonar.slots().last().unwrap().clone());
    assert_eq!(r.len(), 1, "the first frame landed");
    assert_eq!(r.frames_in_flight(), 1, "the second still waits");
    second.run();
    r.settle();
    let seqs: Vec<u64> = r
        .shared()
        .iter()
        .map(|f| f.agents[0].sensors[0].1[0].sequence)
        .collect();
    assert_eq!(seqs, [0, 1], "every sample, in order");
}

#[test]
fn past_the_byte_bound_recording_waits_for_renders_too() {
    // However many renders the count allows, the frames waiting for them
    // hold at most `in_flight_bytes`: one frame fits, two do not.
    let (mut sonar, inputs) = sonar_and_inputs(0.2);
    let one_frame = sample(1).approx_bytes() + crate::PENDING_RENDER_BYTES;
    let mut r = Recorder::with_limits(
        true,
        RecordLimits {
            in_flight_bytes: one_frame,
            ..RecordLimits::default()
        },
    );
    assert!(r.limits().renders_in_flight > 2);
    let first = sonar.sample_detached(&inputs).unwrap();
    frame_with(&mut r, sonar.slots().last().unwrap().clone());
    assert_eq!(r.frames_in_flight(), 1, "one frame fits the bound");
    assert_eq!(r.oldest_waiting(), Some(0));
    let second = sonar.sample_detached(&inputs).unwrap();
    frame_waiting_for(&mut r, first, sonar.slots().last().unwrap().clone());
    assert_eq!((r.len(), r.frames_in_flight()), (1, 1));
    // Done renders land without a new frame (the clock calls this).
    second.run();
    r.land_ready();
    assert_eq!((r.len(), r.frames_in_flight()), (2, 0));
    assert_eq!(r.oldest_waiting(), None);
    assert_eq!(r.frames_taken(), 2);
}
