"""oceansim: an OceanSim-compatible underwater vehicle simulator for Python.

* The OceanSim SDK's surface over TCP (``OceanSimClient``, ``AUV``,
  ``AUVState``, ``OceanSimAgent``, ``AgentFactory``, the sensor-schema and
  point-cloud helpers), on the Rust client: a script written for the SDK
  runs with ``from oceansim import ...`` in place of
  ``from oceansim_client import ...``.
* ``Simulation``: the simulator in this process, no socket.
* ``OceanSimRunReplay`` and ``OceanSimRecorder``: read exported runs and
  record your own loop in the same open layout.
* Gymnasium environments ``OceanSim/WaypointNav-v0`` and
  ``OceanSim/DepthHold-v0`` (registered on import when Gymnasium is
  installed), with a vector environment that steps thousands of episodes
  per call in Rust; ``oceansim.baselines`` holds a controller for each
  task and ``oceansim.sb3.SB3VecEnv`` hands the vector environment to
  Stable-Baselines3 or sbx (imported on demand, not here).
"""

from . import _native
from .agents import (
    ACTION_SPACES,
    ActionSpace,
    AgentDefinition,
    AgentFactory,
    OceanSimAgent,
    list_control_schemes,
    normalize_control_scheme,
)
from .auv import AUV, AUVState
from .client import OceanSimClient
from .dataset import OceanSimRecorder, OceanSimRunReplay
from .errors import (
    OceanSimActionShapeError,
    OceanSimConnectionError,
    OceanSimError,
    OceanSimProtocolError,
    OceanSimTimeoutError,
    OceanSimValueError,
    SensorSchemaError,
)
from .gym import register_envs
from .point_cloud import (
    filter_by_range,
    intensity_from_cloud,
    organized_range_image,
    structured_cloud_to_numpy,
    xyz_from_cloud,
)
from .sensor_schema import normalize_sensor_payload, validate_sensor_payload, validate_sensor_set
from .sim import Simulation

__version__ = _native.__version__
PROTOCOL_VERSION = 2

register_envs()

__all__ = [
    "ACTION_SPACES",
    "AUV",
    "AUVState",
    "ActionSpace",
    "AgentDefinition",
    "AgentFactory",
    "OceanSimActionShapeError",
    "OceanSimAgent",
    "OceanSimClient",
    "OceanSimConnectionError",
    "OceanSimError",
    "OceanSimProtocolError",
    "OceanSimRecorder",
    "OceanSimRunReplay",
    "OceanSimTimeoutError",
    "OceanSimValueError",
    "PROTOCOL_VERSION",
    "SensorSchemaError",
    "Simulation",
    "filter_by_range",
    "intensity_from_cloud",
    "list_control_schemes",
    "normalize_control_scheme",
    "normalize_sensor_payload",
    "organized_range_image",
    "register_envs",
    "structured_cloud_to_numpy",
    "validate_sensor_payload",
    "validate_sensor_set",
    "xyz_from_cloud",
]
