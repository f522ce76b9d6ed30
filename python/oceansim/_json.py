"""JSON for the native boundary: NumPy scalars and arrays become numbers
and lists; non-finite floats are refused with the SDK's exception (JSON
has no NaN, and the simulator would refuse them anyway)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from .errors import OceanSimValueError


def _default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def dumps(value: Any) -> str:
    try:
        return json.dumps(value, default=_default, allow_nan=False)
    except ValueError as e:
        raise OceanSimValueError(f"a value is not finite: {e}", error_code="invalid_message") from None
