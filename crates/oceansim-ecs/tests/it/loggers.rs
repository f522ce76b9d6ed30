//! The canonical log formats, written by a run and read back.

use oceansim_ecs::loggers::{
    read_csv_log, read_npz, CsvLogger, NpyData, NpzLogger, RingBufferLogger,
};
use oceansim_ecs::{Access, Engine, FnSystem, Monitor, Reduce, World};

fn world() -> World {
    let mut w = World::new(3);
    w.params.insert("gain".into(), serde_json::json!(0.5));
    let p = w
        .add_state("p", &[2], Some(&[0.0, 0.0, 1.0, 1.0, 2.0, 2.0]), None)
        .unwrap();
    let v = w.add("p_dot", &[2], Some(&[1.0, 0.5])).unwrap();
    w.add_i64("id", &[], Some(&[7, 8, 9])).unwrap();
    w.add_bool("alive", &[], Some(&[true, false, true]))
        .unwrap();
    w.add("R", &[2, 2], Some(&[1.0, 0.0, 0.0, 1.0])).unwrap();
    w.add_system(FnSystem::new(
        "wobble",
        Access::new().read("p").write("p_dot"),
        move |wd, s| {
            let x = wd.read(p)[0];
            let mut d = wd.write(v);
            d[1] = 0.5 + 0.1 * (s.time + x).sin();
        },
    ))
    .unwrap();
    w.add_monitor(Monitor::new("px_max", Reduce::Max, move |wd| wd.read(p)[0]));
    w
}

#[test]
fn csv_has_settings_header_and_rows_that_read_back_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run/log.csv");
    let ring = RingBufferLogger::new(None);
    let frames = ring.handle();
    let mut w = world();
    Engine::new(0.01)
        .with_log_time_step(0.05)
        .with_logger(CsvLogger::new(&path))
        .with_logger(ring)
        .run(&mut w, 20)
        .unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines();
    let settings = lines
        .next()
        .unwrap()
        .strip_prefix("# SETTINGS: ")
        .expect("settings line");
    let settings: serde_json::Value = serde_json::from_str(settings).unwrap();
    assert_eq!(settings["gain"], 0.5);
    assert_eq!(settings["engine"]["time_step"], 0.01);
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(
        &header[..7],
        ["time", "p_0_x", "p_0_y", "p_1_x", "p_1_y", "p_2_x", "p_2_y"]
    );
    assert!(header.contains(&"id_2") && header.contains(&"alive_1") && header.contains(&"R_0_1_0"));
    assert_eq!(*header.last().unwrap(), "px_max");
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 5, "t = 0 and every 0.05 s");
    let frames = frames.frames();
    for (row, f) in rows.iter().zip(&frames) {
        assert_eq!(row.len(), header.len());
        assert_eq!(row[0], f.time);
        assert_eq!(
            &row[1..7],
            f.columns["p"].as_slice(),
            "bit-exact round trip"
        );
    }
    let id_col = header.iter().position(|h| *h == "id_1").unwrap();
    assert_eq!(rows[2][id_col], 8.0);
    let alive = header.iter().position(|h| *h == "alive_1").unwrap();
    assert_eq!(rows[0][alive], 0.0);
}

#[test]
fn npz_holds_one_t_n_dim_array_per_component_and_matches_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.npz");
    let ring = RingBufferLogger::new(None);
    let frames = ring.handle();
    let mut w = world();
    Engine::new(0.01)
        .with_logger(NpzLogger::new(&path))
        .with_logger(ring)
        .run(&mut w, 10)
        .unwrap();
    let arrays = read_npz(&path).unwrap();
    assert_eq!(arrays["p"].shape, vec![11, 3, 2]);
    assert_eq!(arrays["R"].shape, vec![11, 3, 2, 2]);
    assert_eq!(arrays["time"].shape, vec![11]);
    assert_eq!(arrays["px_max"].shape, vec![11]);
    assert_eq!(arrays["id"].data, NpyData::I64([7, 8, 9].repeat(11)));
    assert!(matches!(&arrays["alive"].data, NpyData::Bool(v) if v[..3] == [true, false, true]));
    let NpyData::F64(p) = &arrays["p"].data else {
        panic!()
    };
    let frames = frames.frames();
    for (k, f) in frames.iter().enumerate() {
        assert_eq!(&p[k * 6..(k + 1) * 6], f.columns["p"].as_slice());
    }
    // The part files are gone once the archive is assembled.
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers.len(), 1, "{leftovers:?}");
}

/// numpy.load reads the archive, when python3 with numpy is on this machine.
#[test]
fn numpy_loads_the_npz_when_available() {
    let has_numpy = std::process::Command::new("python3")
        .args(["-c", "import numpy"])
        .status()
        .is_ok_and(|s| s.success());
    if !has_numpy {
        eprintln!("python3 with numpy not available: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.npz");
    let mut w = world();
    Engine::new(0.01)
        .with_logger(NpzLogger::new(&path))
        .run(&mut w, 4)
        .unwrap();
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys, numpy as np; d = np.load(sys.argv[1]); print(d['p'].shape, d['R'].shape, d['alive'].dtype, d['id'][2].tolist(), d['time'][-1])",
            path.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "(5, 3, 2) (5, 3, 2, 2) bool [7, 8, 9] 0.04"
    );
}

#[test]
fn ring_buffer_keeps_the_last_k_frames() {
    let ring = RingBufferLogger::new(Some(3));
    let h = ring.handle();
    let mut w = world();
    Engine::new(0.1).with_logger(ring).run(&mut w, 10).unwrap();
    let times: Vec<f64> = h.frames().iter().map(|f| (f.time * 10.0).round()).collect();
    assert_eq!(times, vec![8.0, 9.0, 10.0]);
    assert_eq!(h.settings()["gain"], 0.5);
}

#[test]
fn csv_reader_returns_settings_and_columns() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.csv");
    let ring = RingBufferLogger::new(None);
    let frames = ring.handle();
    let mut w = world();
    Engine::new(0.01)
        .with_logger(CsvLogger::new(&path))
        .with_logger(ring)
        .run(&mut w, 10)
        .unwrap();
    let log = read_csv_log(&path).unwrap();
    let settings = log.settings.as_ref().unwrap();
    assert_eq!(settings["gain"], 0.5);
    assert_eq!(settings["engine"]["time_step"], 0.01);
    assert_eq!(log.rows, 11);
    assert_eq!(log.columns[0].name, "time");
    let frames = frames.frames();
    let times: Vec<f64> = frames.iter().map(|f| f.time).collect();
    assert_eq!(log.time().unwrap(), times.as_slice());
    // Flattened per-entity columns, bit-exact.
    for (t, f) in frames.iter().enumerate() {
        let p = &f.columns["p"];
        assert_eq!(log.column("p_2_y").unwrap().row(t), &p.as_slice()[5..6]);
    }
    assert_eq!(log.column("id_1").unwrap().data, vec![8.0; 11]);
    assert_eq!(log.column("alive_1").unwrap().data, vec![0.0; 11]);
    assert_eq!(log.column("px_max").unwrap().shape, Vec::<usize>::new());
}

#[test]
fn csv_reader_reads_ssl_simulator_logs() {
    // ssl_simulator's DataLogger: one column per label, arrays as lists.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ssl.csv");
    std::fs::write(
        &path,
        "# SETTINGS: {\"dt\": 0.01, \"arr\": [1, 2]}\n\
         time,p,theta,omega\n\
         0.0,\"[[0.0, 0.0], [1.0, 2.0]]\",\"[0.0, 1.5]\",0.5\n\
         0.01,\"[[0.01, 0.0], [1.0, 2.01]]\",\"[0.005, 1.505]\",nan\n",
    )
    .unwrap();
    let log = read_csv_log(&path).unwrap();
    assert_eq!(log.settings.as_ref().unwrap()["dt"], 0.01);
    assert_eq!(log.rows, 2);
    let p = log.column("p").unwrap();
    assert_eq!(p.shape, vec![2, 2]);
    assert_eq!(p.row(1), &[0.01, 0.0, 1.0, 2.01]);
    assert_eq!(
        log.column("theta").unwrap().data,
        vec![0.0, 1.5, 0.005, 1.505]
    );
    assert!(log.column("omega").unwrap().data[1].is_nan());

    // No SETTINGS line: the header comes first.
    std::fs::write(&path, "time,x\n0,1\n1,2\n\n").unwrap();
    let log = read_csv_log(&path).unwrap();
    assert!(log.settings.is_none());
    assert_eq!(log.column("x").unwrap().data, vec![1.0, 2.0]);

    // Broken files say where.
    for (text, needle) in [
        ("time,x\n0,1\n1\n", ":3:"),
        ("time,p\n0,\"[1, 2]\"\n1,\"[1, 2, 3]\"\n", "column `p`"),
        ("# SETTINGS: {oops\ntime\n", "SETTINGS"),
        ("", "empty"),
        ("time,x\n0,abc\n", "not a number"),
    ] {
        std::fs::write(&path, text).unwrap();
        let e = read_csv_log(&path).unwrap_err();
        assert_eq!(e.code(), "log_format");
        assert!(e.to_string().contains(needle), "{e} lacks {needle}");
    }
    assert_eq!(
        read_csv_log(dir.path().join("missing.csv"))
            .unwrap_err()
            .code(),
        "log_io"
    );
}
