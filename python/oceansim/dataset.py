"""Recorded runs: read an export (or a saved recording) and record your own
loop into the same open layout (JSON Lines, TUM, EuRoC) — the open-format
counterpart of the SDK's pickle recorder. Both are the Rust
``oceansim-dataset`` crate."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

import numpy as np

from . import _json, _native


class OceanSimRunReplay:
    """An exported run directory (``export_dataset``, ``oceansim run``) or a
    saved :class:`OceanSimRecorder` recording, for offline inspection."""

    def __init__(self, run_dir: Union[str, "os.PathLike[str]", "_native.NativeRunReplay"]):
        if isinstance(run_dir, _native.NativeRunReplay):
            self._native = run_dir
        else:
            self._native = _native.NativeRunReplay.open(os.fspath(run_dir))

    @classmethod
    def open(cls, run_dir: Union[str, "os.PathLike[str]"]) -> "OceanSimRunReplay":
        """Opens an exported run directory."""
        return cls(run_dir)

    @property
    def run_dir(self) -> str:
        return self._native.dir()

    @property
    def metadata(self) -> Dict[str, Any]:
        return json.loads(self._native.metadata())

    def agents(self) -> List[str]:
        """Agent names, the main AUV first."""
        return self._native.agents()

    def frame_count(self) -> int:
        return self._native.frame_count()

    def iter_frames(self) -> Iterator[Dict[str, Any]]:
        """Each frame: ``{frame, time, agents: [timeline rows]}``."""
        for i in range(self.frame_count()):
            yield json.loads(self._native.frame(i))

    def trajectory(self, agent: Optional[str] = None) -> np.ndarray:
        """``(N, 11)``: time, position x, y, z (user frame), quaternion
        x, y, z, w, velocity x, y, z — of ``agent`` (the main AUV by default)."""
        return self._native.trajectory(agent)

    def sensor_frames(self, sensor_name: str, agent: Optional[str] = None) -> List[Tuple[int, List[int]]]:
        """``(frame, sequence numbers)`` of every frame that recorded samples of
        ``sensor_name``."""
        return self._native.sensor_frames(sensor_name, agent)

    def commands(self) -> List[Dict[str, Any]]:
        return json.loads(self._native.commands())

    def summary(self) -> Dict[str, Any]:
        """Scenario, seed, frames, time span, distance per agent, commands,
        sensor samples; ``text`` is the printable form."""
        return json.loads(self._native.summary())

    def tum_trajectory_rows(self, agent: Optional[str] = None) -> np.ndarray:
        """``(N, 8)``: timestamp (s), x, y, z, qx, qy, qz, qw."""
        return self._native.tum_rows(agent)

    def euroc_trajectory_rows(self, agent: Optional[str] = None) -> np.ndarray:
        """``(N, 17)``: timestamp (ns), x, y, z, qw, qx, qy, qz, vx, vy, vz,
        then the IMU's gyro (rad/s) and accelerometer (m/s²) biases in the
        body FLU frame, EuRoC's ``b_w_RS_S`` and ``b_a_RS_S`` (zeros where
        the run does not know them: agents without an IMU, recorders fed
        by replies)."""
        return self._native.euroc_rows(agent)

    def __repr__(self) -> str:
        return f"OceanSimRunReplay({self.run_dir!r}, frames={self.frame_count()})"


class OceanSimRecorder:
    """Records frames from your own control loop (state replies) and saves
    them as a run directory that :class:`OceanSimRunReplay`, ``oceansim
    replay`` and the viewer read."""

    def __init__(self, scenario: str = "", seed: int = 0):
        self.scenario = scenario
        self.seed = int(seed)
        self._native = _native.NativeRecorder(str(scenario), self.seed)

    def add_frame(self, state: Any, agent: str = "auv/main") -> None:
        """Adds a frame from a ``get_state``/``step`` reply's data (a dict) or
        an :class:`~oceansim.AUVState`: pose, velocities, heading, last
        command and the sequence number of every sensor sample it carries.
        Each distinct sample the replies carry is kept too and saved as the
        export lays it out: ``sensors/<agent>/<sensor>.jsonl``, images as
        PNG files beside it."""
        data = getattr(state, "data", state)
        if not isinstance(data, dict):
            raise TypeError("add_frame takes a state dictionary or an AUVState")
        self._native.add_state(agent, _json.dumps(data))

    def frame_count(self) -> int:
        return self._native.frame_count()

    def to_dataset(self) -> Dict[str, Any]:
        """The recording as a dictionary: ``metadata``, ``timeline``, ``commands``."""
        return json.loads(self._native.to_dataset())

    def save(self, path: Union[str, "os.PathLike[str]"]) -> OceanSimRunReplay:
        """Writes the run directory ``path`` and returns it, read back."""
        return OceanSimRunReplay(self._native.save(os.fspath(path)))

    @staticmethod
    def load(path: Union[str, "os.PathLike[str]"]) -> OceanSimRunReplay:
        """Reads a run directory (saved or exported)."""
        return OceanSimRunReplay(path)


__all__ = ["OceanSimRecorder", "OceanSimRunReplay"]
