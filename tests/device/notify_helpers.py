"""Reading what a service sent to the notify socket (``conftest.listener``)."""

from __future__ import annotations

import socket


def received(sock: socket.socket) -> list[bytes]:
    """Every datagram waiting on ``sock`` (non-blocking)."""
    out = []
    while True:
        try:
            out.append(sock.recv(4096))
        except BlockingIOError:
            return out
