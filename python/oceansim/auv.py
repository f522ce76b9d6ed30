"""The SDK's research-friendly AUV wrapper: state, control, sensors, maps,
agents, overlays, datasets and a Gym-style step. Every method runs in the
Rust client; this class names them and carries the SDK's defaults."""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from . import _json, _native
from .client import OceanSimClient
from .errors import OceanSimError


class AUVState:
    """Typed view of an OceanSim state dictionary (a ``get_state`` reply's
    data). Positions and velocity are NumPy vectors in the OceanSim user
    frame (x east, y north, z up; numerically ROS ENU) unless named
    otherwise."""

    def __init__(self, data: Dict[str, Any], _fields: Optional[Dict[str, Any]] = None):
        fields = _fields if _fields is not None else json.loads(_native.auv_state(_json.dumps(data)))
        self.data: Dict[str, Any] = data
        self.position = np.asarray(fields["position"], dtype=float)
        self.position_godot_xyz = np.asarray(fields["position_godot_xyz"], dtype=float)
        self.position_ros_enu = np.asarray(fields["position_ros_enu"], dtype=float)
        self.position_ros_ned = np.asarray(fields["position_ros_ned"], dtype=float)
        self.velocity = np.asarray(fields["velocity"], dtype=float)
        self.depth = float(fields["depth"])
        self.speed = float(fields["speed"])
        self.heading = float(fields["heading"])
        sensors = data.get("sensors") or {}
        self.sensors: Dict[str, Any] = sensors
        self.lidar_2d = sensors.get("lidar_2d")
        self.lidar_3d = sensors.get("lidar_3d")
        self.dvl = sensors.get("dvl")
        self.camera = sensors.get("camera")
        self.sim_time = data.get("sim_time")

    _FIELDS = ("position", "position_godot_xyz", "position_ros_enu", "position_ros_ned",
               "velocity", "depth", "speed", "heading")

    @classmethod
    def _from_native(cls, line: str, fields: Sequence[Any], data: Optional[Dict[str, Any]] = None
                     ) -> "AUVState":
        # The reply's line is parsed here, once; the frame conversions come
        # from the Rust client, which read them off the same line.
        if data is None:
            data = json.loads(line)["data"]
        return cls(data, dict(zip(cls._FIELDS, fields)))

    @property
    def x(self) -> float:
        """X coordinate in the OceanSim user frame (m, east)."""
        return float(self.position[0])

    @property
    def y(self) -> float:
        """Y coordinate in the OceanSim user frame (m, north)."""
        return float(self.position[1])

    @property
    def z(self) -> float:
        """Z coordinate in the OceanSim user frame (m, up)."""
        return float(self.position[2])

    def __repr__(self) -> str:
        p = ", ".join(f"{v:.3f}" for v in self.position)
        return f"AUVState(position=[{p}], depth={self.depth:.3f}, heading={self.heading:.1f})"


def _points(points: Iterable[Sequence[float]]) -> List[List[float]]:
    return [[float(v) for v in p] for p in points]


class AUV:
    """High-level AUV controller and data access object."""

    def __init__(self, host: str = "localhost", port: Optional[int] = None, auto_launch: bool = False,
                 exe_path: Optional[str] = None, timeout: float = 5.0):
        self.client = OceanSimClient(host=host, port=port, timeout=timeout)
        self.auto_launch = auto_launch
        self.exe_path = exe_path

    # -- connection ---------------------------------------------------
    def connect(self, **kwargs: Any) -> bool:
        """Connects; keyword arguments go to ``OceanSimClient.connect``."""
        if self.auto_launch:
            self.client.launch_godot(self.exe_path)
        return self.client.connect(**kwargs)

    def disconnect(self) -> None:
        self.client.disconnect()

    def __enter__(self) -> "AUV":
        if not self.connect():
            from .errors import OceanSimConnectionError
            raise OceanSimConnectionError(
                f"cannot connect to {self.client.host}:{self.client.port}",
                error_code="connection_error")
        return self

    def __exit__(self, *exc: Any) -> None:
        self.disconnect()

    def _call(self, method: str, *args: Any) -> Any:
        return json.loads(self.client._client().auv_call(method, _json.dumps(list(args))))

    # -- control ------------------------------------------------------
    def set_force(self, fx: float, fy: float, fz: float = 0.0) -> Dict[str, Any]:
        """World-frame force (alias of ``set_force_world``); returns the reply."""
        return self._call("set_force", fx, fy, fz)

    def set_force_world(self, fx: float, fy: float, fz: float = 0.0) -> Dict[str, Any]:
        return self._call("set_force_world", fx, fy, fz)

    def set_force_body(self, fx: float, fy: float, fz: float = 0.0) -> Dict[str, Any]:
        return self._call("set_force_body", fx, fy, fz)

    def set_body_wrench(self, fx: float, fy: float, fz: float, tx: float, ty: float, tz: float) -> Dict[str, Any]:
        return self._call("set_body_wrench", fx, fy, fz, tx, ty, tz)

    def set_body_velocity(self, u: float, v: float, w: float, p: float, q: float, r: float) -> Dict[str, Any]:
        return self._call("set_body_velocity", u, v, w, p, q, r)

    def set_thrusters(self, commands: Sequence[float]) -> Dict[str, Any]:
        return self._call("set_thrusters", [float(c) for c in commands])

    def set_fins(self, values: Sequence[float]) -> Dict[str, Any]:
        """Control-surface deflections (rad) then propeller speeds (rpm), in
        the vehicle profile's order: ``[rudder, stern_plane, propeller_rpm]``
        for Fossen's REMUS 100 (signs as in ``remus100.py``, rpm >= 0 ahead).
        The reply's ``data["fins"]`` holds the values applied after clipping
        to the profile's limits; a vehicle without fins answers
        ``unsupported_control_scheme``."""
        return self._call("set_fins", [float(v) for v in values])

    def surge(self, power: float = 100.0) -> Dict[str, Any]:
        return self._call("surge", power)

    def strafe(self, power: float = 100.0) -> Dict[str, Any]:
        return self._call("strafe", power)

    def heave(self, power: float = 100.0) -> Dict[str, Any]:
        return self._call("heave", power)

    def stop(self) -> Dict[str, Any]:
        return self._call("stop")

    def set_pose(self, position: Sequence[float], rotation_deg: Optional[Sequence[float]] = None,
                 yaw_deg: Optional[float] = None) -> Dict[str, Any]:
        """Moves the AUV (user-frame position) and clears its velocities."""
        rot = None if rotation_deg is None else [float(v) for v in rotation_deg]
        return self._call("set_pose", [float(v) for v in position], rot, yaw_deg)

    def hold_depth_step(self, target_depth: float, forward_force: float = 0.0, kp: float = 70.0,
                        kd: float = 25.0, max_vertical_force: float = 180.0) -> Dict[str, Any]:
        """One PD depth-hold step; the reply carries a ``control`` report."""
        return json.loads(self.client._client().hold_depth_step(
            target_depth, forward_force, kp, kd, max_vertical_force))

    def hold_heading_step(self, target_heading_deg: float, forward_force: float = 0.0, kp: float = 40.0,
                          kd: float = 20.0, max_torque: float = 60.0) -> Dict[str, Any]:
        """One heading-correction step."""
        return json.loads(self.client._client().hold_heading_step(
            target_heading_deg, forward_force, kp, kd, max_torque))

    def track_waypoint_step(self, world_x: float, world_z: float, nav_depth: Optional[float] = None,
                            force_power: float = 120.0, depth_power: float = 60.0,
                            arrival_dist: float = 1.0) -> Tuple[bool, Dict[str, Any]]:
        """One force-control step toward a Godot X/Z waypoint: ``(arrived, reply)``."""
        arrived, reply = self.client._client().track_waypoint_step(
            world_x, world_z, nav_depth, force_power, depth_power, arrival_dist)
        return arrived, json.loads(reply)

    def step(self, action: Sequence[float]) -> Tuple[AUVState, float, bool, Dict[str, Any]]:
        """Gym-style step: applies ``action`` (world force) and advances one
        control period; returns ``(observation, reward, done, info)``."""
        line, fields, reward, done, info = self.client._client().step([float(a) for a in action])
        data = json.loads(line)["data"]
        info = json.loads(info)
        # What the info repeats of the state comes from the state itself.
        info["contacts"] = data["contacts"]
        info["control"] = data["control"]
        return AUVState._from_native(line, fields, data), reward, done, info

    # -- state and sensors --------------------------------------------
    def get_state(self) -> AUVState:
        return AUVState._from_native(*self.client._client().get_state())

    def get_sensors(self, validate: bool = True) -> Dict[str, Dict[str, Any]]:
        """Every active sensor's payload, validated by default."""
        return json.loads(self.client._client().get_sensors(validate))

    def get_lidar_2d(self) -> Dict[str, Any]:
        return self._call("get_lidar_2d")

    def get_lidar_3d(self) -> Dict[str, Any]:
        return self._call("get_lidar_3d")

    def get_point_cloud_3d(self) -> Dict[str, Any]:
        return self._call("get_point_cloud_3d")

    def get_dvl(self) -> Dict[str, Any]:
        return self._call("get_dvl")

    def get_imaging_sonar(self) -> Dict[str, Any]:
        return self._call("get_imaging_sonar")

    def get_multibeam_sonar(self) -> Dict[str, Any]:
        return self._call("get_multibeam_sonar")

    def get_side_scan_sonar(self) -> Dict[str, Any]:
        return self._call("get_side_scan_sonar")

    def get_rgbd_dense_cloud(self) -> Dict[str, Any]:
        return self._call("get_rgbd_dense_cloud")

    def get_camera(self) -> Dict[str, Any]:
        return self._call("get_camera")

    # -- simulation control -------------------------------------------
    def pause(self) -> Dict[str, Any]:
        return self._call("pause")

    def resume(self) -> Dict[str, Any]:
        return self._call("resume")

    def reset(self, seed: Optional[int] = None) -> Dict[str, Any]:
        return self._call("reset", seed)

    def set_time_scale(self, time_scale: float) -> Dict[str, Any]:
        return self._call("set_time_scale", time_scale)

    # -- maps, agents, overlays ---------------------------------------
    def set_scenario(self, scenario: str, seed: int = 0) -> Dict[str, Any]:
        return self._call("set_scenario", scenario, seed)

    def generate_map(self, **options: Any) -> Dict[str, Any]:
        return self._call("generate_map", options)

    def get_map_info(self) -> Dict[str, Any]:
        return self._call("get_map_info")

    def get_terrain_grid(self, **request: Any) -> Dict[str, Any]:
        """The 2-D occupancy grid for planners (keywords as the protocol's
        ``get_terrain_grid``: ``resolution``, ``depth``, ``include_dynamic_agents``...)."""
        return self._call("get_terrain_grid", request)

    def spawn_obstacle(self, config: Dict[str, Any]) -> Dict[str, Any]:
        return self._call("spawn_obstacle", config)

    def remove_obstacle(self, id: str) -> Dict[str, Any]:
        return self._call("remove_obstacle", id)

    def spawn_agent(self, config: Dict[str, Any]) -> Dict[str, Any]:
        return self._call("spawn_agent", config)

    def move_agent(self, id: str, position: Sequence[float], rotation: Optional[Sequence[float]] = None) -> Dict[str, Any]:
        return self._call("move_agent", id, [float(v) for v in position],
                          None if rotation is None else [float(v) for v in rotation])

    def remove_agent(self, id: str) -> Dict[str, Any]:
        return self._call("remove_agent", id)

    def clear_agents(self) -> Dict[str, Any]:
        return self._call("clear_agents")

    def get_agents(self) -> Dict[str, Any]:
        return self._call("get_agents")

    def set_agent_velocity(self, id: str, velocity: Sequence[float]) -> Dict[str, Any]:
        return self._call("set_agent_velocity", id, [float(v) for v in velocity])

    def set_current(self, velocity: Sequence[float]) -> Dict[str, Any]:
        return self._call("set_current", [float(v) for v in velocity])

    def configure_acoustic_comm(self, **config: Any) -> Dict[str, Any]:
        return self._call("configure_acoustic_comm", config)

    def send_acoustic_message(self, sender_id: str, receiver_id: str, payload: Any) -> Dict[str, Any]:
        return self._call("send_acoustic_message", sender_id, receiver_id, payload)

    def read_acoustic_inbox(self, agent_id: str, clear: bool = True) -> Dict[str, Any]:
        return self._call("read_acoustic_inbox", agent_id, clear)

    def set_nav_path(self, path: Iterable[Sequence[float]]) -> Dict[str, Any]:
        return self._call("set_nav_path", _points(path))

    def set_waypoint(self, world_x: float, world_z: float) -> Dict[str, Any]:
        return self._call("set_waypoint", world_x, world_z)

    def set_waypoints(self, waypoints: Iterable[Sequence[float]]) -> Dict[str, Any]:
        return self._call("set_waypoints", _points(waypoints))

    def set_pred_trajectory(self, points: Iterable[Sequence[float]]) -> Dict[str, Any]:
        return self._call("set_pred_trajectory", _points(points))

    def clear_nav(self) -> Dict[str, Any]:
        return self._call("clear_nav")

    # -- datasets -----------------------------------------------------
    def export_dataset(self, **options: Any) -> Dict[str, Any]:
        return self._call("export_dataset", options)

    def save_snapshot_json(self, path: Optional[str] = None) -> Dict[str, Any]:
        return self._call("save_snapshot_json", path)


__all__ = ["AUV", "AUVState", "OceanSimError"]
