"""The SDK's exceptions. The native module raises these classes, so a
script written for the OceanSim SDK catches the same names."""

from __future__ import annotations

import json
from typing import Any, Optional


class OceanSimError(Exception):
    """Base SDK failure. ``error_code`` is the stable machine-readable code
    (the simulator's ``error_code`` for protocol errors)."""

    def __init__(self, message: str = "", error_code: Optional[str] = None, **details: Any):
        super().__init__(message)
        self.error_code = error_code
        for key, value in details.items():
            setattr(self, key, value)

    def __reduce__(self):
        # Keep the attributes across pickling (Ray, multiprocessing).
        return (_rebuild, (type(self), str(self), dict(self.__dict__)))


def _rebuild(cls: type, message: str, attrs: dict) -> "OceanSimError":
    exc = cls.__new__(cls)
    Exception.__init__(exc, message)
    exc.__dict__.update(attrs)
    return exc


class OceanSimConnectionError(OceanSimError):
    """A command could not be sent: the simulator is absent or disconnected."""


class OceanSimTimeoutError(OceanSimError):
    """The simulator did not answer before the timeout."""


class OceanSimProtocolError(OceanSimError):
    """The simulator returned an error envelope, an empty response, or a
    response to another request. ``response`` is the envelope when there is
    one, ``action`` the request's action."""

    def __init__(self, message: str = "", error_code: Optional[str] = None,
                 action: Optional[str] = None, response_json: Optional[str] = None, **details: Any):
        super().__init__(message, error_code, **details)
        self.action = action
        self.response = json.loads(response_json) if response_json else None


class OceanSimActionShapeError(OceanSimError, ValueError):
    """An action vector of the wrong length (``error_code`` is
    ``invalid_action_shape``)."""

    def __init__(self, message: str = "", error_code: Optional[str] = "invalid_action_shape", **details: Any):
        super().__init__(message, error_code or "invalid_action_shape", **details)


class OceanSimValueError(OceanSimError, ValueError):
    """A value the SDK refuses: an unknown control scheme, an out-of-bounds
    or non-finite action, a malformed argument."""


class SensorSchemaError(OceanSimError, ValueError):
    """A sensor payload that breaks the sensor schema; ``field`` and
    ``sensor`` name the offending place (``None`` when unknown)."""

    field: Optional[str] = None
    sensor: Optional[str] = None


__all__ = [
    "OceanSimError",
    "OceanSimConnectionError",
    "OceanSimTimeoutError",
    "OceanSimProtocolError",
    "OceanSimActionShapeError",
    "OceanSimValueError",
    "SensorSchemaError",
]
