"""The typed agent layer: agent definitions, action spaces, control
schemes and runtime agents (``oceansim_client.agents`` of the SDK). The
contracts and checks are the Rust ``oceansim-agents`` crate's."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Union

from . import _json, _native
from .errors import OceanSimActionShapeError  # noqa: F401  (re-exported)


def list_control_schemes(thrusters: int = 6) -> List[Dict[str, Any]]:
    """Every control scheme's contract: ``name``, ``action_space`` (shape,
    fields, units, frame, bounds, description), ``protocol_action``,
    ``frame``."""
    return json.loads(_native.list_control_schemes(thrusters))


def normalize_control_scheme(name: str) -> str:
    """The canonical name of a control scheme; ``ValueError`` for unknown names."""
    return _native.normalize_control_scheme(str(name))


class ActionSpace:
    """Machine-readable action-vector contract: shape, fields, units,
    frame, optional bounds and a description."""

    def __init__(self, spec: Dict[str, Any]):
        self._spec = dict(spec)
        self.scheme: str = spec.get("scheme", "")
        self.shape = tuple(spec["shape"])
        self.fields: List[str] = list(spec["fields"])
        self.units: List[str] = list(spec["units"])
        self.frame: str = spec["frame"]
        self.low: Optional[List[Optional[float]]] = spec.get("low")
        self.high: Optional[List[Optional[float]]] = spec.get("high")
        self.description: str = spec.get("description", "")

    @classmethod
    def for_scheme(cls, scheme: str, thrusters: int = 6) -> "ActionSpace":
        name = normalize_control_scheme(scheme)
        for row in list_control_schemes(thrusters):
            if row["name"] == name:
                return cls(row["action_space"])
        raise ValueError(f"unknown control scheme {scheme!r}")

    @classmethod
    def for_fins(cls, surfaces: Sequence[str], propellers: Sequence[str],
                 low: Sequence[float], high: Sequence[float]) -> "ActionSpace":
        """The ``fins`` contract of a vehicle: one field per control surface
        (rad) then one per propeller (rpm), with per-value bounds (``inf``
        for none). ``OceanSimActionShapeError`` for inconsistent lists."""
        return cls(json.loads(_native.fins_action_space(
            [str(s) for s in surfaces], [str(p) for p in propellers],
            [float(v) for v in low], [float(v) for v in high])))

    def validate(self, action: Sequence[float]) -> List[float]:
        """Checks length (``OceanSimActionShapeError``) and bounds
        (``ValueError``); returns the action as floats."""
        try:
            values = [float(a) for a in action]
        except (TypeError, ValueError):
            raise OceanSimActionShapeError(
                f"action must be a sequence of {self.shape[0]} numbers",
                error_code="invalid_action_shape") from None
        bad = [self.fields[i] if i < len(self.fields) else f"value {i}"
               for i, v in enumerate(values) if not math.isfinite(v)]
        if bad:
            raise OceanSimActionShapeError(f"{bad[0]} is not finite", error_code="invalid_action_shape")
        return _native.validate_action(_json.dumps(self.to_dict()), _json.dumps(values))

    def to_dict(self) -> Dict[str, Any]:
        """The space as the contract table writes it (current attributes)."""
        return {
            "scheme": self.scheme, "shape": list(self.shape), "fields": list(self.fields),
            "units": list(self.units), "frame": self.frame,
            "low": None if self.low is None else list(self.low),
            "high": None if self.high is None else list(self.high),
            "description": self.description,
        }

    def __len__(self) -> int:
        return int(self.shape[0])

    def __repr__(self) -> str:
        return f"ActionSpace({self.scheme}, fields={self.fields})"


# The contract table: read it, or copy an entry (``ActionSpace(s.to_dict())``)
# before changing its bounds.
ACTION_SPACES: Dict[str, ActionSpace] = {
    row["name"]: ActionSpace(row["action_space"]) for row in list_control_schemes()
}


@dataclass
class AgentDefinition:
    """Serializable description of a runtime agent."""

    agent_name: str = "auv/main"
    agent_type: str = "auv"
    is_main_agent: bool = True
    profile: Optional[str] = None
    location: List[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    rotation: List[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    control_scheme: str = "force_3d"
    sensors: List[Any] = field(default_factory=list)
    metadata: Dict[str, Any] = field(default_factory=dict)
    schema_version: int = 1

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "AgentDefinition":
        """Builds a definition; accepts aliases such as ``id``/``name`` and
        ``position``/``location``."""
        d = json.loads(_native.agent_definition(_json.dumps(data)))
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})

    def to_dict(self) -> Dict[str, Any]:
        """A versioned dictionary for scenario files or protocol payloads."""
        raw = {k: getattr(self, k) for k in self.__dataclass_fields__}
        return json.loads(_native.agent_definition(_json.dumps(raw)))


class OceanSimAgent:
    """Runtime facade bound to a simulator connection and a definition."""

    def __init__(self, native: "_native.NativeAgent", definition: AgentDefinition):
        self._native = native
        self.definition = definition

    @property
    def name(self) -> str:
        return self._native.name

    @property
    def control_scheme(self) -> str:
        return self._native.control_scheme

    @property
    def action_space(self) -> ActionSpace:
        return ActionSpace(json.loads(self._native.action_space()))

    def act(self, action: Sequence[float]) -> Dict[str, Any]:
        """Validates ``action`` against the action space and sends it."""
        values = self.action_space.validate(action)
        return json.loads(self._native.act(values))

    def clear_action(self) -> Dict[str, Any]:
        """Sends a zero action for the current control scheme."""
        return json.loads(self._native.clear_action())

    def teleport(self, location: Sequence[float], rotation: Optional[Sequence[float]] = None) -> Dict[str, Any]:
        """Repositions the main AUV or a proxy (Godot coordinates, degrees)."""
        rot = None if rotation is None else [float(v) for v in rotation]
        return json.loads(self._native.teleport([float(v) for v in location], rot))

    def agent_state_dict(self) -> Dict[str, Any]:
        """Definition metadata and the latest state."""
        return json.loads(self._native.agent_state_dict())

    def __repr__(self) -> str:
        return f"OceanSimAgent({self.name!r}, {self.control_scheme})"


class AgentFactory:
    """Binds definitions to live simulator objects."""

    @staticmethod
    def build_agent(client_or_auv: Any, definition: Union[AgentDefinition, Dict[str, Any]],
                    spawn: bool = True) -> OceanSimAgent:
        """Main agents bind to the existing vehicle; others are spawned as
        proxies (``spawn_agent``) when ``spawn``. ``TypeError`` unless the
        first argument is an ``OceanSimClient`` or ``AUV``."""
        from .auv import AUV
        from .client import OceanSimClient

        if isinstance(client_or_auv, AUV):
            client = client_or_auv.client
        elif isinstance(client_or_auv, OceanSimClient):
            client = client_or_auv
        else:
            raise TypeError(
                f"build_agent needs an OceanSimClient or AUV, not {type(client_or_auv).__name__}")
        if isinstance(definition, dict):
            definition = AgentDefinition.from_dict(definition)
        native = client._client().build_agent(_json.dumps(definition.to_dict()), bool(spawn))
        return OceanSimAgent(native, definition)


__all__ = [
    "ACTION_SPACES",
    "ActionSpace",
    "AgentDefinition",
    "AgentFactory",
    "OceanSimAgent",
    "list_control_schemes",
    "normalize_control_scheme",
]
