"""Point-cloud helpers for 3D lidar and RGB-D payloads, returning NumPy
arrays (the Rust client's ``cloud`` module)."""

from __future__ import annotations

import json
import math
from typing import Any, Dict, Optional, Sequence

import numpy as np

from . import _json, _native

DEFAULT_FIELDS = ("x", "y", "z", "intensity")


def structured_cloud_to_numpy(cloud: Dict[str, Any], fields: Optional[Sequence[str]] = None) -> np.ndarray:
    """``(N, len(fields))`` float array of the cloud's records (default
    fields x, y, z, intensity)."""
    names = list(fields) if fields is not None else list(DEFAULT_FIELDS)
    return _native.structured_cloud_to_numpy(_json.dumps(cloud), names)


def xyz_from_cloud(cloud: Dict[str, Any], world: bool = False) -> np.ndarray:
    """``(N, 3)`` local (sensor) or world coordinates."""
    return _native.xyz_from_cloud(_json.dumps(cloud), bool(world))


def intensity_from_cloud(cloud: Dict[str, Any]) -> np.ndarray:
    """Per-point intensity, zeros for xyz-only clouds."""
    return _native.intensity_from_cloud(_json.dumps(cloud))


def organized_range_image(cloud: Dict[str, Any]) -> np.ndarray:
    """The organised range image ``[rings, columns]`` (m; NaN where no return)."""
    return _native.organized_range_image(_json.dumps(cloud))


def filter_by_range(points: np.ndarray, min_range: float = 0.0, max_range: float = math.inf) -> np.ndarray:
    """Rows of ``points`` (``(N, 3)`` or wider, x, y, z first) whose
    Euclidean range lies in ``[min_range, max_range]``."""
    pts = np.asarray(points, dtype=float)
    if pts.ndim == 1 and pts.size == 3:
        pts = pts.reshape(1, 3)
    if pts.ndim != 2 or pts.shape[1] < 3:
        raise ValueError(f"points must be (N, 3) or wider, got shape {pts.shape}")
    r = np.linalg.norm(pts[:, :3], axis=1)
    return pts[(r >= min_range) & (r <= max_range)]


__all__ = [
    "filter_by_range",
    "intensity_from_cloud",
    "organized_range_image",
    "structured_cloud_to_numpy",
    "xyz_from_cloud",
]
