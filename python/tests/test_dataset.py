"""Recording a loop and reading runs back: the recorder's output opens in
the replay reader with the trajectory it was given; an export from the
simulator reads the same way."""

from __future__ import annotations

import numpy as np
import pytest

from oceansim import OceanSimRecorder, OceanSimRunReplay, OceanSimValueError, Simulation


def test_record_save_load_round_trip(tmp_path):
    sim = Simulation(seed=2)
    rec = OceanSimRecorder(scenario="Static_Map", seed=2)
    positions = []
    for k in range(30):
        sim.apply("set_force_body", force=[0, 50, -5 if k < 15 else 5])
        sim.step(1)
        data = sim.protocol_state()
        positions.append(data["position"])
        rec.add_frame(data)
    assert rec.frame_count() == 30
    ds = rec.to_dataset()
    assert len(ds["timeline"]) == 30 and ds["metadata"]["seed"] == 2
    run = rec.save(tmp_path / "run")
    again = OceanSimRecorder.load(tmp_path / "run")
    for r in (run, again):
        assert r.frame_count() == 30 and r.agents() == ["auv/main"]
        traj = r.trajectory()
        assert traj.shape == (30, 11)
        np.testing.assert_array_equal(traj[:, 1:4], np.array(positions))
        tum = r.tum_trajectory_rows()
        assert tum.shape == (30, 8)
        np.testing.assert_array_equal(tum[:, 1:4], traj[:, 1:4])
        euroc = r.euroc_trajectory_rows()
        assert euroc.shape == (30, 17) and euroc[1, 0] - euroc[0, 0] == pytest.approx(1e8)
        # A recorder fed by replies sees readings, not the IMU's biases.
        assert not euroc[:, 11:].any()
    frames = list(again.iter_frames())
    assert frames[3]["agents"][0]["command"]["action"] == "set_force_body"
    assert again.summary()["frames"] == 30


def test_an_export_opens_in_the_reader(tmp_path):
    sim = Simulation(seed=1, export_root=str(tmp_path))
    sim.apply("set_force_world", force=[20, 0, 0])
    sim.step(20)
    out = sim.apply("export_dataset", export_dir="py_export")
    run = OceanSimRunReplay.open(out["export_dir"])
    assert run.frame_count() >= 20
    assert run.trajectory()[-1, 1] > run.trajectory()[0, 1], "moved east"
    assert "imu" in {k.split("/")[-1] for k in run.summary()["sensor_samples"]}
    # The simulator knows its IMU's true biases: EuRoC's bias columns.
    euroc = run.euroc_trajectory_rows()
    assert euroc.shape[1] == 17 and euroc[:, 11:].any()


def test_bad_input_is_refused(tmp_path):
    with pytest.raises(OceanSimValueError) as e:
        OceanSimRunReplay.open(tmp_path / "missing")
    assert e.value.error_code.startswith("dataset_")
    rec = OceanSimRecorder()
    with pytest.raises(OceanSimValueError):
        rec.add_frame({"no": "state"})
    with pytest.raises(TypeError):
        rec.add_frame(42)
    assert rec.frame_count() == 0
