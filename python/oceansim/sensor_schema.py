"""The sensor-payload envelope: normalise and validate payloads (the
Rust client's ``schema`` module)."""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable

from . import _json, _native
from .errors import SensorSchemaError  # noqa: F401  (re-exported)

SCHEMA_NAME = "oceansim_sensor_payload"
SCHEMA_VERSION = 2


def normalize_sensor_payload(payload: Dict[str, Any], sensor_type: str = "unknown") -> Dict[str, Any]:
    """A copy of ``payload`` with missing envelope fields filled in."""
    return json.loads(_native.normalize_sensor_payload(_json.dumps(payload), sensor_type))


def validate_sensor_payload(payload: Dict[str, Any], name: str = "sensor") -> Dict[str, Any]:
    """Normalises then validates; raises ``SensorSchemaError``."""
    return json.loads(_native.validate_sensor_payload(_json.dumps(payload), name))


def validate_sensor_set(sensors: Dict[str, Dict[str, Any]], required: Iterable[str] = ()) -> Dict[str, Dict[str, Any]]:
    """Validates every payload and checks that ``required`` sensors are present."""
    return json.loads(_native.validate_sensor_set(_json.dumps(sensors), [str(r) for r in required]))


__all__ = ["SensorSchemaError", "normalize_sensor_payload", "validate_sensor_payload", "validate_sensor_set"]
