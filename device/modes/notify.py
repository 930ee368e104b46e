"""sd_notify for the console's ``Type=notify`` service (``systemd/partytable.service``).

The service manager passes ``NOTIFY_SOCKET``: the path of an ``AF_UNIX`` datagram socket,
where a leading ``@`` means Linux's abstract namespace (the name starts with a NUL byte).
Each datagram is one or more ``KEY=VALUE`` lines: ``READY=1`` (the first frame is on the
TV), ``WATCHDOG=1`` (the main loop is alive), ``STOPPING=1`` (shutting down on SIGTERM),
``STATUS=...`` (a line ``systemctl status`` shows).  ``WATCHDOG_USEC`` is the unit's
``WatchdogSec=`` in microseconds; the keep-alive goes every half of it, timed on the
monotonic clock (a Pi without an RTC steps its wall clock at boot).  This is the small
dependency-free approach systemd documents (``man/notify-selfcontained-example.py``);
docs/hardware-facts.md, "systemd notify".

Outside systemd (``NOTIFY_SOCKET`` unset: the simulator, a builder's terminal, tests) every
call is a no-op.  Nothing here raises and nothing blocks: the socket is non-blocking (a
datagram queue holds only ``net.unix.max_dgram_qlen`` = 10 messages, and a busy service
manager must not stall the game loop), so a send that fails or does not fit is dropped with
one log line (the next one only after a send succeeded again), and the console plays on — if
the loop cannot reach systemd for a whole ``WatchdogSec``, the watchdog restarts it, which is
the right outcome.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping

log = logging.getLogger("partytable")

__all__ = ["Notifier"]


class Notifier:
    """Talks to systemd through ``NOTIFY_SOCKET`` (see the module docstring).

    ``environ``: where ``NOTIFY_SOCKET``, ``WATCHDOG_USEC`` and ``WATCHDOG_PID`` are read,
    once, here (default ``os.environ``).  ``pid``: this process's id, compared with
    ``WATCHDOG_PID`` (the watchdog is meant for the main process only; default
    ``os.getpid()``).  A malformed ``NOTIFY_SOCKET`` or ``WATCHDOG_USEC`` is one log line
    naming the variable and its value, and that part is switched off.  Never raises.
    """

    def __init__(self, environ: Mapping[str, str] | None = None, *,
                 pid: int | None = None) -> None:
        env = os.environ if environ is None else environ
        self.address: str | None = _address(env.get("NOTIFY_SOCKET", ""))
        """The socket address to send to (abstract names start with ``"\\0"``), or
        ``None``: every message is dropped."""
        self.watchdog_ns: int | None = _watchdog_ns(env, os.getpid() if pid is None else pid)
        """``WATCHDOG_USEC`` in ns (``int`` > 0), or ``None`` when no watchdog is asked."""
        self._sock: socket.socket | None = None
        self._next_ping_ns: int | None = None
        self._failing = False
        self._unsent_ready: str | None = None
        self.sent = 0
        """How many datagrams were sent (tests and ``selftest`` read it)."""

    @property
    def enabled(self) -> bool:
        """True when ``NOTIFY_SOCKET`` named a usable address."""
        return self.address is not None

    def ready(self, status: str | None = None) -> None:
        """``READY=1``: start-up is over (call it after the first frame is on the TV); the
        unit's start job completes and ``TimeoutStartSec=`` stops counting.  With
        ``status``, the same datagram carries ``STATUS=status`` (newlines become spaces), so
        ``systemctl status`` never shows a line from before (e.g. a config since fixed)."""
        message = "READY=1" if status is None else f"READY=1\nSTATUS={_one_line(status)}"
        # READY=1 must arrive (else TimeoutStartSec= kills and restarts the service): one
        # that does not fit (a full socket queue) is sent again by watchdog_ticker
        self._unsent_ready = None if self._send(message) else message

    def stopping(self) -> None:
        """``STOPPING=1``: the service is shutting down (SIGTERM ended the loop)."""
        self._send("STOPPING=1")

    def status(self, text: str) -> None:
        """``STATUS=text``: one line for ``systemctl status``; newlines in ``text`` become
        spaces (a newline would start another ``KEY=VALUE`` of the datagram)."""
        self._send("STATUS=" + _one_line(text))

    def watchdog_ticker(self, now_ns: int) -> int | None:
        """A loop ticker (``device.reactor.loop.Ticker``): ``now_ns`` is CLOCK_MONOTONIC ns.

        Sends ``WATCHDOG=1`` on the first call and then whenever half of ``WATCHDOG_USEC``
        has passed since the last keep-alive; returns the next keep-alive's deadline
        (CLOCK_MONOTONIC ns), or ``None`` when systemd asked for no watchdog (or there is no
        socket).  A late call sends once and counts the half-interval from ``now_ns``, so a
        stalled loop never sends a burst to catch up."""
        if self.address is None:
            return None
        retry: int | None = None
        if self._unsent_ready is not None:
            if self._send(self._unsent_ready):
                self._unsent_ready = None
            else:
                retry = now_ns + READY_RETRY_NS
        if self.watchdog_ns is None:
            return retry
        if self._next_ping_ns is None or now_ns >= self._next_ping_ns:
            self._send("WATCHDOG=1")
            self._next_ping_ns = now_ns + max(self.watchdog_ns // 2, MIN_PING_NS)
        return self._next_ping_ns if retry is None else min(retry, self._next_ping_ns)

    def close(self) -> None:
        """Close the socket (idempotent; a later message opens it again)."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def _send(self, message: str) -> bool:
        """Send ``message``; True when it went (never raises: one line per failing
        stretch)."""
        if self.address is None:
            return False
        try:
            if self._sock is None:
                # non-blocking: a datagram socket's queue holds only
                # net.unix.max_dgram_qlen (10) messages, and a busy PID 1 must not stall
                # the loop; a message that does not fit is dropped (and logged)
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM
                                           | socket.SOCK_CLOEXEC | socket.SOCK_NONBLOCK)
            self._sock.sendto(message.encode("utf-8", "replace"), self.address)
        except OSError as err:
            if not self._failing:
                shown = self.address.replace("\0", "@", 1)
                log.warning("sd_notify: cannot send %s to NOTIFY_SOCKET %s: %s",
                            message.split("=", 1)[0], shown, err)
            self._failing = True
            self.close()  # a fresh socket next time
            return False
        self._failing = False
        self.sent += 1
        return True


READY_RETRY_NS = 100_000_000
"""How soon an unsent ``READY=1`` is sent again (100 ms)."""
MIN_PING_NS = 50_000_000
"""The shortest keep-alive interval (50 ms), whatever ``WATCHDOG_USEC`` says: a tiny value
must not make the loop spin."""


def _one_line(text: str) -> str:
    """``text`` with its line breaks made spaces: one ``KEY=VALUE`` line of a datagram."""
    return " ".join(text.splitlines())


def _address(value: str) -> str | None:
    """``NOTIFY_SOCKET`` -> a ``sendto`` address, ``None`` if unset or unusable."""
    if not value:
        return None
    if value.startswith("/"):
        return value
    if value.startswith("@") and len(value) > 1:
        return "\0" + value[1:]
    log.warning("sd_notify: NOTIFY_SOCKET=%r is neither a path ('/...') nor an abstract "
                "name ('@...'): not notifying systemd", value)
    return None


def _watchdog_ns(env: Mapping[str, str], pid: int) -> int | None:
    """``WATCHDOG_USEC`` in ns for this ``pid``, ``None`` when unset, for another process
    (``WATCHDOG_PID``) or malformed (one log line)."""
    usec = env.get("WATCHDOG_USEC", "").strip()
    if not usec:
        return None
    owner = env.get("WATCHDOG_PID", "").strip()
    if owner and owner != str(pid):
        return None
    if not usec.isdigit() or int(usec) == 0:
        log.warning("sd_notify: WATCHDOG_USEC=%r is not a positive number of microseconds: "
                    "no watchdog keep-alive", usec)
        return None
    return int(usec) * 1000
