"""Timers for the device loop: call a function at a CLOCK_MONOTONIC nanosecond deadline.

Nothing sleeps and nothing polls: the loop asks :meth:`Timers.next_ns` for the earliest
deadline, blocks on its event queue until then, and calls :meth:`Timers.run_due`.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(order=True)
class Timer:
    """One pending call: ``at_ns`` (CLOCK_MONOTONIC ns), a tie-break sequence number, the
    callback and a ``name`` for logs.  ``cancel()`` makes it a no-op."""

    at_ns: int
    seq: int
    fn: Callable[[int], None] = field(compare=False)
    name: str = field(compare=False, default="")
    cancelled: bool = field(compare=False, default=False)

    def cancel(self) -> None:
        """Drop this timer; calling it twice is harmless."""
        self.cancelled = True


class Timers:
    """A heap of :class:`Timer`.  Callbacks get ``now_ns`` (int, CLOCK_MONOTONIC ns)."""

    def __init__(self) -> None:
        self._heap: list[Timer] = []
        self._seq = itertools.count()

    def call_at(self, at_ns: int, fn: Callable[[int], None], name: str = "") -> Timer:
        """Schedule ``fn(now_ns)`` at ``at_ns``; returns the timer (to cancel it)."""
        timer = Timer(at_ns, next(self._seq), fn, name)
        heapq.heappush(self._heap, timer)
        return timer

    def next_ns(self) -> int | None:
        """The earliest live deadline, or ``None`` when nothing is scheduled."""
        while self._heap and self._heap[0].cancelled:
            heapq.heappop(self._heap)
        return self._heap[0].at_ns if self._heap else None

    def run_due(self, now_ns: int) -> int:
        """Call every live timer whose deadline is <= ``now_ns``, earliest first; returns how
        many ran.  A callback may schedule new timers (due ones run in this call too)."""
        ran = 0
        while self._heap and self._heap[0].at_ns <= now_ns:
            timer = heapq.heappop(self._heap)
            if not timer.cancelled:
                timer.cancelled = True
                timer.fn(now_ns)
                ran += 1
        return ran

    def __len__(self) -> int:
        return sum(1 for t in self._heap if not t.cancelled)
