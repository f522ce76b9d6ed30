"""The in-process simulator and the sensor helpers."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import oceansim
from oceansim import OceanSimProtocolError, SensorSchemaError, Simulation


def test_apply_step_state_and_determinism():
    def run():
        sim = Simulation(seed=4)
        sim.apply("set_force_body", force=[0, 60, 10])
        sim.step(15)
        return sim.state()

    a, b = run(), run()
    assert a["sim_time"] == pytest.approx(1.5)
    for key in ("position", "velocity", "position_ned", "attitude_wxyz", "nu", "euler_rad"):
        assert isinstance(a[key], np.ndarray)
        np.testing.assert_array_equal(a[key], b[key])
    assert a["nu"][0] > 0.5, "surging"
    np.testing.assert_allclose(a["position"], [a["position_ned"][1], a["position_ned"][0], -a["position_ned"][2]])


def test_a_refused_request_raises_and_changes_nothing():
    sim = Simulation()
    before = sim.state()
    with pytest.raises(oceansim.OceanSimValueError):
        sim.apply("set_force_world", force=[1.0, float("nan"), 0.0])  # JSON has no NaN
    with pytest.raises(OceanSimProtocolError) as e:
        sim.apply("set_force_world", force=[1.0, 2.0])
    assert e.value.error_code == "invalid_action_shape"
    with pytest.raises(TypeError):
        sim.apply({"type": "batch", "requests": []})
    with pytest.raises(OceanSimProtocolError):
        sim.apply("spawn_agent", id="")
    sim.step(5)
    again = Simulation()
    again.step(5)
    np.testing.assert_array_equal(sim.state()["position"], again.state()["position"])
    assert before["sim_time"] == 0.0


def test_sensors_agents_and_schema():
    sim = Simulation()
    sim.step(3)
    sensors = sim.sensors()
    assert "imu" in sensors
    checked = oceansim.validate_sensor_set(sensors, required=["imu", "depth"])
    assert set(checked) == set(sensors)
    with pytest.raises(SensorSchemaError):
        oceansim.validate_sensor_set(sensors, required=["no_such_sensor"])
    bad = dict(sensors["imu"], schema_version=1)
    with pytest.raises(SensorSchemaError):
        oceansim.validate_sensor_payload(bad, "imu")
    assert oceansim.normalize_sensor_payload({}, "imu")["sensor_type"] == "imu"
    agents = sim.agents()
    assert agents[0]["id"] == "auv/main"


def test_step_releases_the_interpreter():
    sim = Simulation()
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    start = time.perf_counter()
    sim.step(400)  # 40 simulated seconds
    elapsed = time.perf_counter() - start
    stop.set()
    t.join()
    # While Rust stepped, Python kept running the counter.
    assert len(ticks) > 0.2 * elapsed / 0.001, (len(ticks), elapsed)
