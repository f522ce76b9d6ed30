"""The SDK surface over TCP against a real server: the documentation's own
examples with only the import line changed, and the documented errors."""

from __future__ import annotations

import numpy as np
import pytest

import oceansim
from oceansim import (
    AUV,
    AgentDefinition,
    AgentFactory,
    OceanSimActionShapeError,
    OceanSimClient,
    OceanSimConnectionError,
    OceanSimProtocolError,
)

# The client reference's example, verbatim but for the import.
CLIENT_EXAMPLE = '''
from oceansim import OceanSimClient

with OceanSimClient(timeout=5.0) as client:
    state = client.request_state()
    batch = client.send_batch([
        {"type": "command", "action": "get_sensors"},
        {"type": "command", "action": "set_force", "data": {"force": [0, 80, 0]}},
    ])
'''

# The agents guide's example, verbatim but for the import.
AGENTS_EXAMPLE = '''
from oceansim import AUV, AgentDefinition, AgentFactory

with AUV() as auv:
    main = AgentFactory.build_agent(
        auv,
        AgentDefinition(agent_name="auv/main", control_scheme="force_3d"),
        spawn=False,
    )
    main.act([0.0, 120.0, 0.0])

    target = AgentFactory.build_agent(
        auv,
        {
            "agent_name": "target_01",
            "agent_type": "proxy_auv",
            "is_main_agent": False,
            "location": [4.0, -7.0, 6.0],
            "control_scheme": "external_velocity",
            "metadata": {"role": "moving_target"},
        },
    )
    target.act([0.2, 0.0, -0.1])
'''

# The agent API's example.
SCHEMES_EXAMPLE = '''
from oceansim import list_control_schemes

for item in list_control_schemes():
    print(item["name"], item["action_space"]["fields"])
'''


def test_client_example_runs_and_returns_the_documented_shapes(server):
    scope: dict = {}
    exec(CLIENT_EXAMPLE, scope)
    assert "position" in scope["state"]
    data = scope["batch"]["data"]
    assert data["count"] == 2 and len(data["responses"]) == 2
    assert data["responses"][1]["data"]["force"] == [0.0, 80.0, 0.0]


def test_agents_example_binds_the_main_auv_and_spawns_a_proxy(server):
    exec(AGENTS_EXAMPLE, {})
    with AUV() as auv:
        agents = {a["id"]: a for a in auv.get_agents()["agents"]}
        assert "target_01" in agents
        assert agents["target_01"]["control_scheme"] == "external_velocity"
        assert agents["auv/main"]["last_command"]["action"] in ("set_force_world", "set_force")


def test_control_schemes_example_prints_the_documented_table(capsys):
    exec(SCHEMES_EXAMPLE, {})
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "force_3d ['fx', 'fy', 'fz']"
    assert lines[2].startswith("thrusters ['thruster_0'")
    assert lines[-1] == "custom_dynamics_6dof ['lin_ax', 'lin_ay', 'lin_az', 'ang_ax', 'ang_ay', 'ang_az']"


def test_auv_state_control_and_sensors(server):
    with AUV(port=server) as auv:
        s = auv.get_state()
        assert isinstance(s.position, np.ndarray) and s.position.shape == (3,)
        assert s.z == pytest.approx(-s.depth)
        np.testing.assert_allclose(s.position_ros_ned, [s.y, s.x, -s.z])
        obs, reward, done, info = auv.step([0.0, -80.0, 0.0])
        assert obs.sim_time == pytest.approx(0.1) and isinstance(reward, float)
        for _ in range(20):
            obs, *_ = auv.step([0.0, -80.0, 0.0])
        assert obs.velocity[1] < -0.3, "pushed south (the start is near the north edge)"
        sensors = auv.get_sensors()
        assert {"imu", "dvl", "depth"} <= set(sensors)
        assert all(p["schema_name"] == "oceansim_sensor_payload" for p in sensors.values())
        cloud = auv.get_lidar_3d()
        xyz = oceansim.xyz_from_cloud(cloud)
        assert xyz.ndim == 2 and xyz.shape[1] == 3 and len(xyz) > 0
        assert oceansim.intensity_from_cloud(cloud).shape == (len(xyz),)
        assert oceansim.filter_by_range(xyz, 0.0, 1e-9).shape == (0, 3)
        arrived, reply = auv.track_waypoint_step(5.0, -5.0, nav_depth=6.0)
        assert reply["control"]["mode"] == "waypoint_pid" and arrived is False
        grid = auv.get_terrain_grid(resolution=1.0)
        assert grid["width"] > 0


def test_documented_errors(server):
    with AUV() as auv:
        main = AgentFactory.build_agent(auv, AgentDefinition(agent_name="auv/main"), spawn=False)
        with pytest.raises(OceanSimActionShapeError) as e:
            main.act([1.0, 2.0])
        assert e.value.error_code == "invalid_action_shape"
        with pytest.raises(ValueError):
            oceansim.normalize_control_scheme("warp_drive")
        with pytest.raises(TypeError):
            AgentFactory.build_agent(object(), AgentDefinition(), spawn=False)
        with pytest.raises(OceanSimProtocolError) as e:
            auv.client.send_command("no_such_action")
        assert e.value.error_code and e.value.response["success"] is False
        # The connection survives an error.
        assert auv.get_state().sim_time == pytest.approx(0.0)


def test_connection_failure_is_reported_not_raised_by_connect():
    client = OceanSimClient(port=1, timeout=0.5)
    assert client.connect(retry=False) is False
    with pytest.raises(OceanSimConnectionError):
        client.request_state()


def test_hostile_inputs_get_sdk_exceptions_not_crashes(server):
    import pickle

    space = oceansim.ActionSpace(dict(oceansim.ACTION_SPACES["force_3d"].to_dict(), low=[-1.0]))
    with pytest.raises(oceansim.OceanSimValueError):
        space.validate([0.0, 0.0, 0.0])  # inconsistent bounds: an error, not a panic
    crossed = oceansim.ActionSpace(dict(oceansim.ACTION_SPACES["force_3d"].to_dict(),
                                        low=[1.0] * 3, high=[0.0] * 3))
    with pytest.raises(oceansim.OceanSimValueError):
        crossed.validate([0.5, 0.5, 0.5])  # low above high
    bounded = oceansim.ActionSpace(oceansim.ACTION_SPACES["force_3d"].to_dict())
    bounded.high = [10.0, 10.0, 10.0]
    with pytest.raises(ValueError):
        bounded.validate([0.0, 50.0, 0.0])  # the changed bound applies
    with pytest.raises(OceanSimActionShapeError):
        bounded.validate([float("nan"), 0.0, 0.0])
    with AUV() as auv:
        # NumPy scalars, as a policy returns them, are numbers.
        reply = auv.set_force(np.float32(1.0), np.int64(2), 0.0)
        assert reply["data"]["force"] == [1.0, 2.0, 0.0]
        with pytest.raises(oceansim.OceanSimValueError):
            auv.set_force(float("nan"), 0.0, 0.0)
        with pytest.raises(OceanSimProtocolError) as e:
            auv.client.send_command("set_force", {"force": [1.0]})
    again = pickle.loads(pickle.dumps(e.value))
    assert type(again) is OceanSimProtocolError and again.error_code == e.value.error_code
    pts = np.array([[3.0, 4.0, 0.0, 0.5], [30.0, 40.0, 0.0, 0.9]])
    np.testing.assert_array_equal(oceansim.filter_by_range(pts, 0.0, 10.0), pts[:1])


def test_the_fins_scheme_is_listed_with_units_and_bounds():
    rows = {row["name"]: row for row in oceansim.list_control_schemes()}
    fins = rows["fins"]
    assert fins["protocol_action"] == "set_fins" and fins["frame"] == "actuator"
    assert fins["action_space"]["fields"] == ["rudder", "stern_plane", "propeller"]
    assert fins["action_space"]["units"] == ["rad", "rad", "rpm"]
    assert oceansim.normalize_control_scheme("set-fins") == "fins"
    assert oceansim.ActionSpace.for_scheme("fins").fields == ["rudder", "stern_plane", "propeller"]
    space = oceansim.ActionSpace.for_fins(["rudder", "stern_plane"], ["propeller"],
                                          [-0.5, -0.5, 0.0], [0.5, 0.5, 1525.0])
    assert space.scheme == "fins" and len(space) == 3
    assert space.validate([0.1, -0.1, 1200]) == [0.1, -0.1, 1200.0]
    with pytest.raises(ValueError):
        space.validate([0.1, -0.1, 2000.0])  # above the propeller's rpm limit
    with pytest.raises(OceanSimActionShapeError):
        space.validate([0.1, -0.1])
    with pytest.raises(OceanSimActionShapeError):
        oceansim.ActionSpace.for_fins(["rudder"], [], [0.0, 0.0], [1.0])
    open_space = oceansim.ActionSpace.for_fins(["a"], [], [float("-inf")], [float("inf")])
    assert open_space.low == [None] and open_space.high == [None]


def test_set_fins_on_the_finless_default_torpedo_is_refused(server):
    with AUV() as auv:
        with pytest.raises(OceanSimProtocolError) as e:
            auv.set_fins([0.1, 0.0, 500.0])
        assert e.value.error_code == "unsupported_control_scheme"
        with pytest.raises(oceansim.OceanSimValueError):
            auv.set_fins([float("nan"), 0.0, 0.0])  # refused before sending
        with pytest.raises(OceanSimProtocolError) as e:
            AgentFactory.build_agent(
                auv, AgentDefinition(agent_name="auv/main", control_scheme="fins"), spawn=False)
        assert e.value.error_code == "unsupported_control_scheme"


def test_a_remus_agent_steers_with_fins(server):
    with AUV() as auv:
        auv.spawn_agent({"agent_name": "remus", "agent_type": "auv", "profile": "remus100",
                         "location": [8.0, -6.0, -10.0], "control_scheme": "fins"})
        remus = AgentFactory.build_agent(
            auv, AgentDefinition(agent_name="remus", is_main_agent=False, profile="remus100",
                                 control_scheme="fins"), spawn=False)
        assert remus.action_space.fields == ["rudder", "stern_plane", "propeller"]
        assert remus.action_space.units == ["rad", "rad", "rpm"]
        reply = remus.act([0.1, 0.0, 1200.0])
        assert reply["action"] == "set_fins"
        assert reply["data"]["fins"] == [0.1, 0.0, 1200.0]
        clipped = auv.client.send_command("set_fins", {"fins": [10.0, 0.0, 1200.0],
                                                       "agent_id": "remus"})
        assert clipped["data"]["saturated"] is True
        assert clipped["data"]["requested"] == [10.0, 0.0, 1200.0]
        assert abs(clipped["data"]["fins"][0]) < 10.0
