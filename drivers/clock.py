"""Clocks: the one source of "now" for the device loop and the drivers that need it.

Every time is an ``int`` of CLOCK_MONOTONIC nanoseconds, the clock of the kernel's GPIO edge
timestamps (docs/hardware-facts.md, "gpiozero and slap timestamps"), so an edge time and a flip
time can be subtracted directly.  Never the wall clock: a Pi without an RTC steps it at boot.
"""

from __future__ import annotations

import time
from typing import Protocol, runtime_checkable

from drivers.values import is_int

__all__ = ["Clock", "FakeClock", "MonotonicClock"]


@runtime_checkable
class Clock(Protocol):
    """Anything with ``now_ns() -> int``: CLOCK_MONOTONIC nanoseconds, never decreasing."""

    def now_ns(self) -> int:
        """Return the current time, ``int`` CLOCK_MONOTONIC nanoseconds."""
        ...


class MonotonicClock:
    """The real clock: :func:`time.monotonic_ns` (CLOCK_MONOTONIC on Linux)."""

    def now_ns(self) -> int:
        """Return ``time.monotonic_ns()``: ``int`` CLOCK_MONOTONIC nanoseconds."""
        return time.monotonic_ns()

    def __repr__(self) -> str:
        """``MonotonicClock()``."""
        return "MonotonicClock()"


class FakeClock:
    """A clock that moves only when told to: for tests, headless play and the simulator.

    ``start_ns``: the initial reading, ``int`` nanoseconds (default 0).  It never goes
    backwards: :meth:`advance` with a negative step or :meth:`set` to an earlier time raises
    ``ValueError``.

    >>> clock = FakeClock(start_ns=1_000)
    >>> clock.advance(500)
    1500
    >>> clock.set(2_000)
    2000
    >>> clock.now_ns()
    2000
    """

    def __init__(self, start_ns: int = 0) -> None:
        self._now_ns = _check_ns("start_ns", start_ns)

    def now_ns(self) -> int:
        """Return the current fake time, ``int`` nanoseconds."""
        return self._now_ns

    def advance(self, ns: int) -> int:
        """Move the clock forward by ``ns`` (``int`` >= 0 nanoseconds); return the new time.

        Raises ``ValueError`` for a negative or non-integer step.
        """
        if _check_ns("ns", ns) < 0:
            raise ValueError(f"FakeClock.advance: ns must be >= 0, got {ns}")
        self._now_ns += ns
        return self._now_ns

    def set(self, ns: int) -> int:
        """Jump to ``ns`` (``int`` nanoseconds, not earlier than now); return it.

        Raises ``ValueError`` when ``ns`` is earlier than the current time or not an ``int``.
        """
        if _check_ns("ns", ns) < self._now_ns:
            raise ValueError(f"FakeClock.set: {ns} is before the current time {self._now_ns}")
        self._now_ns = ns
        return ns

    def __repr__(self) -> str:
        """``FakeClock(start_ns=<now>)``."""
        return f"FakeClock(start_ns={self._now_ns})"


def _check_ns(name: str, value: int) -> int:
    """Return ``value`` if it is an ``int`` (not a ``bool``), else raise ``ValueError``."""
    if not is_int(value):
        raise ValueError(f"FakeClock: {name} must be an int of nanoseconds, got {value!r}")
    return value
