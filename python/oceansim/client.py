"""The SDK's low-level TCP transport, on the Rust client: request ids,
a background reader, per-request timeouts and error envelopes."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional

from . import _json, _native
from .errors import OceanSimConnectionError, OceanSimError, OceanSimProtocolError


class OceanSimClient:
    """TCP client for OceanSim's protocol (version 2).

    >>> with OceanSimClient(port=9876) as client:        # doctest: +SKIP
    ...     state = client.request_state()
    """

    PROTOCOL_VERSION = 2

    def __init__(self, host: str = "localhost", port: Optional[int] = None, timeout: float = 5.0):
        self.host = host
        # The SDK's default port; OCEANSIM_PORT overrides it, so a script
        # written for the default reaches a server on another port unchanged.
        self.port = int(port if port is not None else os.environ.get("OCEANSIM_PORT", 9876))
        self.timeout = float(timeout)
        self._native: Optional[_native.NativeClient] = None

    # -- connection ---------------------------------------------------
    @property
    def is_connected(self) -> bool:
        """``True`` when the TCP socket is connected."""
        return self._native is not None and self._native.is_connected()

    def launch_godot(self, exe_path: Optional[str] = None) -> None:
        """The SDK starts a packaged Godot simulator here. This simulator is
        headless: start it with ``oceansim serve`` (or use
        :class:`oceansim.Simulation` in process) instead."""
        raise OceanSimError(
            "there is no Godot executable to launch: run `oceansim serve` "
            "or use oceansim.Simulation in process",
            error_code="unsupported",
        )

    def connect(self, retry: bool = True, max_retries: int = 10, retry_interval: float = 1.0) -> bool:
        """Opens the socket; ``True`` on success, ``False`` on failure."""
        if self.is_connected:
            return True
        try:
            self._native = _native.NativeClient.connect(
                self.host, self.port, int(max_retries) if retry else 0,
                float(retry_interval), self.timeout)
        except OceanSimConnectionError:
            self._native = None
            return False
        return True

    def disconnect(self) -> None:
        """Closes the socket."""
        if self._native is not None:
            self._native.disconnect()
            self._native = None

    def __enter__(self) -> "OceanSimClient":
        if not self.connect():
            raise OceanSimConnectionError(
                f"cannot connect to {self.host}:{self.port}", error_code="connection_error")
        return self

    def __exit__(self, *exc: Any) -> None:
        self.disconnect()

    def _client(self) -> "_native.NativeClient":
        if self._native is None:
            raise OceanSimConnectionError("not connected: call connect() first",
                                          error_code="connection_error")
        return self._native

    # -- requests -----------------------------------------------------
    def send(self, msg: Dict[str, Any]) -> bool:
        """Sends a raw JSON message; ``True`` if it was sent."""
        if self._native is None:
            return False
        return self._native.send(_json.dumps(msg))

    def send_command(self, action: str, data: Optional[Dict[str, Any]] = None,
                     timeout: Optional[float] = None) -> Dict[str, Any]:
        """Sends a ``command`` and returns its reply envelope."""
        payload = None if data is None else _json.dumps(data)
        return json.loads(self._client().send_command(action, payload, timeout))

    def send_sim_control(self, action: str, timeout: Optional[float] = None, **kwargs: Any) -> Dict[str, Any]:
        """Sends a ``sim_control`` request (``reset``, ``pause``, ``resume``,
        ``set_time_scale``); keyword arguments become its parameters."""
        params = _json.dumps(kwargs) if kwargs else None
        return json.loads(self._client().send_sim_control(action, params, timeout))

    def send_batch(self, requests: List[Dict[str, Any]], timeout: Optional[float] = None) -> Dict[str, Any]:
        """Sends a batch; returns an envelope whose ``data`` holds ``count``
        and ``responses`` (one reply per request, in order)."""
        if not isinstance(requests, (list, tuple)):
            raise TypeError("send_batch takes a list of request dictionaries")
        replies = json.loads(self._client().send_batch(_json.dumps(list(requests)), timeout))["data"]["responses"]
        return {
            "type": "response",
            "action": "batch",
            "status": "ok",
            "success": True,
            "data": {"count": len(replies), "responses": replies},
        }

    def request_state(self) -> Dict[str, Any]:
        """``get_state``; returns the reply's data."""
        data = json.loads(self._client().send_command("get_state", None, None)).get("data")
        if not isinstance(data, dict) or not data:
            raise OceanSimProtocolError("`get_state` returned no state", error_code="empty_reply",
                                        action="get_state")
        return data

    def get_latest_state(self) -> Optional[Dict[str, Any]]:
        """The latest state seen on this connection, without a request."""
        if self._native is None:
            return None
        s = self._native.get_latest_state()
        return None if s is None else json.loads(s)


__all__ = ["OceanSimClient"]
