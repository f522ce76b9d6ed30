"""Fixtures: a real `oceansim serve` on a free loopback port."""

from __future__ import annotations

import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def server_binary() -> pathlib.Path:
    """The server the Rust build made (OCEANSIM_SERVER_BIN overrides)."""
    env = os.environ.get("OCEANSIM_SERVER_BIN")
    if env:
        return pathlib.Path(env)
    for profile in ("debug", "release"):
        path = REPO / "target" / profile / "oceansim"
        if path.exists():
            return path
    pytest.fail("no oceansim binary: run `cargo build -p oceansim-server` first "
                "or set OCEANSIM_SERVER_BIN")


@pytest.fixture()
def server(monkeypatch):
    """Starts `oceansim serve --port 0 --paused --deterministic`; yields the
    port, also set as OCEANSIM_PORT so the SDK's defaults reach it."""
    proc = subprocess.Popen(
        [str(server_binary()), "serve", "--port", "0", "--paused", "--deterministic",
         "--log-level", "warn"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("listening on "), f"server said {line!r}"
        port = int(line.strip().rsplit(":", 1)[1])
        monkeypatch.setenv("OCEANSIM_PORT", str(port))
        yield port
    finally:
        proc.kill()
        proc.wait()
