"""The simulator in this process: every protocol action, no socket.

>>> from oceansim import Simulation
>>> sim = Simulation(scenario="Static_Map", seed=0)
>>> sim.apply("set_force_body", force=[0, 60, 0])["saturated"]
False
>>> sim.step(10)            # ten control periods (1 s)
>>> bool(sim.state()["nu"][0] > 0)   # surging ahead
True
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Union

from . import _json, _native
from .errors import OceanSimProtocolError


def _raise_for(reply: Dict[str, Any]) -> Dict[str, Any]:
    if reply.get("success", reply.get("status") != "error"):
        return reply
    raise OceanSimProtocolError(
        reply.get("message") or reply.get("error") or "request failed",
        error_code=reply.get("error_code"),
        action=reply.get("action"),
        response_json=_json.dumps(reply),
    )


class Simulation:
    """One simulation of ``scenario`` with ``seed`` and the vehicle
    ``profile`` (the scenario's when ``None``), paused: time advances only
    by :meth:`step`, so runs are reproducible. ``dt`` is the control period
    (s), ``tick`` the physics tick (s). ``sensor_data`` keeps every sensor
    sample for ``export_dataset`` (imaging sensors render at their rates,
    about 0.2 s of CPU per simulated second on the default scenario); turn
    it off when only trajectories are wanted and speed matters."""

    def __init__(self, scenario: str = "Static_Map", seed: int = 0, profile: Optional[str] = None,
                 dt: float = 0.1, tick: float = 0.01, export_root: Optional[str] = None,
                 sensor_data: bool = True):
        self._native = _native.NativeSimulation(
            str(scenario), int(seed), profile, float(tick), float(dt), True, export_root,
            bool(sensor_data))
        self.scenario = scenario
        self.seed = seed

    # -- requests -----------------------------------------------------
    def request(self, msg: Dict[str, Any]) -> Dict[str, Any]:
        """Answers one protocol request (single or batch) and returns the
        whole reply envelope, errors included, exactly as over TCP."""
        return json.loads(self._native.request(_json.dumps(msg)))

    def apply(self, command: Union[str, Dict[str, Any]], **data: Any) -> Dict[str, Any]:
        """Applies a command: an action name with its data as keywords
        (``apply("set_force_world", force=[0, 80, 0])``) or a whole request
        dictionary. Returns the reply's data; an error reply raises
        :class:`OceanSimProtocolError` and changes nothing."""
        if isinstance(command, dict):
            msg = dict(command)
            msg.setdefault("type", "command")
            if msg["type"] == "batch":
                raise TypeError("apply takes one request; send batches with request(), "
                                "which returns every child's reply")
        else:
            kind = "sim_control" if command in ("reset", "pause", "resume", "set_time_scale") else "command"
            msg = {"type": kind, "action": str(command), "data": data}
        return _raise_for(self.request(msg)).get("data") or {}

    def step(self, n: int = 1) -> None:
        """Advances ``n`` control periods (the interpreter is released)."""
        if n < 0:
            raise ValueError(f"cannot step {n} periods back")
        self._native.step(int(n))

    # -- reading ------------------------------------------------------
    def state(self, agent: Optional[str] = None) -> Dict[str, Any]:
        """A vehicle's state as NumPy arrays (the main AUV by default):
        ``position`` and ``velocity`` in the user frame (x east, y north,
        z up), ``position_ned``, ``attitude_wxyz``, ``nu`` (u, v, w, p, q, r),
        ``euler_rad``, and ``sim_time``."""
        return self._native.state(agent)

    def protocol_state(self) -> Dict[str, Any]:
        """The ``get_state`` reply's data (what a TCP client sees)."""
        return self.apply("get_state")

    def sensors(self) -> Dict[str, Dict[str, Any]]:
        """Every sensor's latest payload, keyed by name."""
        data = self.apply("get_sensors")
        return data.get("sensors", data)

    def agents(self) -> List[Dict[str, Any]]:
        """The runtime record of every agent."""
        return self.apply("get_agents").get("agents", [])

    @property
    def sim_time(self) -> float:
        return self._native.sim_time

    @property
    def dt(self) -> float:
        return self._native.step_period_s

    def close(self) -> None:
        """Stops the simulation's thread."""
        self._native.close()

    def __enter__(self) -> "Simulation":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Simulation({self.scenario!r}, seed={self.seed}, sim_time={self.sim_time:.2f})"


__all__ = ["Simulation"]
