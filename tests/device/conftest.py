"""Fixtures shared by the device tests: systemd's notify socket and a TV on a fake clock."""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Iterator

import pytest

from drivers.clock import FakeClock
from drivers.table_display import TableDisplay

S = 1_000_000_000


@pytest.fixture
def listener() -> Iterator[tuple[socket.socket, str]]:
    """A bound datagram socket in a short temp dir (AF_UNIX paths end at 108 bytes) and its
    path, as systemd's NOTIFY_SOCKET."""
    with tempfile.TemporaryDirectory(prefix="ptn") as folder:
        path = os.path.join(folder, "notify")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(path)
        sock.setblocking(False)
        try:
            yield sock, path
        finally:
            sock.close()


@pytest.fixture
def display() -> Iterator[TableDisplay]:
    """The TV on SDL's dummy driver at 480x270, on a fake clock at 10 s."""
    d = TableDisplay("dummy", (480, 270), clock=FakeClock(10 * S))
    yield d
    d.close()
