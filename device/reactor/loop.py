"""The device loop (docs/architecture.md "Data flow"), after Klipper's reactor: one thread owns all
state; it blocks on the device's queue until the next deadline, handles what arrived, runs
what is due, and draws what changed.  Nothing in it sleeps or polls.

Two kinds of timer, one convention (a deadline is an ``int`` of CLOCK_MONOTONIC ns, or
``None`` for "nothing pending"):

- *tickers* — ``fn(now_ns) -> next deadline | None``, called on every wake-up (drivers'
  settle timers such as ``SlapButtons.settle``, the simulator's SDL pump);
- one-shot *timers* (:class:`device.reactor.timers.Timers`) for the game flow (a computer player's
  move, a slap window's timeout).

The frame callback draws if anything changed and returns the next animation deadline.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TypeVar

from device.reactor.events import EventQueue, event_problem
from device.reactor.timers import Timers
from drivers.clock import Clock

log = logging.getLogger("partytable")

T = TypeVar("T")
R = TypeVar("R")

Ticker = Callable[[int], int | None]
"""``fn(now_ns) -> next deadline (CLOCK_MONOTONIC ns) or None``."""


class Loop:
    """The reactor: ``clock``, ``queue``, ``handle(event)`` for each event, ``frame(now_ns)
    -> next animation deadline | None`` after each wake-up, ``tickers`` (see the module
    docstring).  ``timers`` is the loop's one-shot timer heap.

    An event whose fields have the wrong type (:func:`device.reactor.events.event_problem`), or
    whose check raises, is one warning and is not handled; a callback (a handler, a ticker,
    a timer, the frame) that raises is logged with its traceback, a bug to fix, and the
    loop goes on (a party console never stops for one bad event)."""

    def __init__(
        self,
        *,
        clock: Clock,
        queue: EventQueue,
        handle: Callable[[object], None],
        frame: Callable[[int], int | None],
        tickers: Sequence[Ticker] = (),
    ) -> None:
        self.clock = clock
        self.queue = queue
        self.timers = Timers()
        self.tickers: list[Ticker] = list(tickers)
        self._handle = handle
        self._frame = frame
        self._ticker_ns: int | None = None
        self._frame_ns: int | None = None
        self.running = False
        self._primed = False
        self.wakeups = 0
        """How many times :meth:`step` woke (benchmarks read it)."""

    def next_deadline_ns(self) -> int | None:
        """The earliest of the timers, the tickers and the next animation frame."""
        candidates = [t for t in (self.timers.next_ns(), self._ticker_ns, self._frame_ns)
                      if t is not None]
        return min(candidates, default=None)

    def run(self) -> None:
        """Serve until :meth:`stop`: draw the first frame, then step."""
        self.running = True
        self.draw(self.clock.now_ns())
        while self.running:
            self.step()

    def stop(self) -> None:
        """Leave :meth:`run` after the current step."""
        self.running = False

    def step(self) -> None:
        """One wake-up: wait for events or the next deadline, handle every event, call the
        tickers, run the due timers, and draw if anything happened or an animation frame is
        due.  Tests call it directly."""
        if not self._primed:  # the tickers' first deadlines, before the first wait
            self._primed = True
            self._run_tickers(self.clock.now_ns())
        deadline = self.next_deadline_ns()
        timeout = None if deadline is None else max(0, deadline - self.clock.now_ns())
        events = self.queue.wait(timeout)
        self.wakeups += 1
        for event in events:
            try:
                problem = event_problem(event)
            except Exception as exc:  # it promises not to; one bad event never ends the loop
                problem = f"{type(event).__name__} cannot be checked: {type(exc).__name__}"
            if problem is not None:
                log.warning("event ignored: %s", problem)
                continue
            self._guard(self._handle, event)
        self._run_tickers(self.clock.now_ns())
        try:
            ran = self.timers.run_due(self.clock.now_ns())
        except Exception:
            log.exception("error in a timer; the game goes on")
            ran = 1
        now = self.clock.now_ns()
        if events or ran or (self._frame_ns is not None and now >= self._frame_ns):
            # draw only when something happened or an animation frame is due: a wake-up
            # for a ticker alone (the simulator's SDL pump) draws nothing
            self.draw(now)

    def draw(self, now_ns: int) -> int | None:
        """Call the frame callback now (also from outside a step: a test, a window opened
        outside the loop) and remember its next deadline; returns it."""
        self._frame_ns = self._guard(self._frame, now_ns)
        return self._frame_ns

    def _run_tickers(self, now_ns: int) -> None:
        deadlines = [d for t in self.tickers if (d := self._guard(t, now_ns)) is not None]
        self._ticker_ns = min(deadlines, default=None)

    def _guard(self, fn: Callable[[T], R], arg: T) -> R | None:
        try:
            return fn(arg)
        except Exception:
            log.exception("error in %s; the game goes on", getattr(fn, "__name__", fn))
            return None
