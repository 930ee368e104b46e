"""Events on the device's one queue and the queues themselves.

Driver threads only ever call ``post(event)``; the device loop alone calls ``wait``.
Driver events (``drivers.slap.Press``, ``drivers.keys.KeyPress`` ...) travel as they are;
this module adds the events the device itself makes (keys read from SDL, quit, resize).

Two queues with one interface:

- :class:`SdlQueue`: SDL's own event queue (architecture "Data flow"): a driver event is
  wrapped in a custom SDL event (``SDL_PushEvent`` is thread-safe) and the loop blocks in
  ``pygame.event.wait(timeout)``.
- :class:`FakeQueue`: a deque on a :class:`drivers.clock.FakeClock` for tests and the
  headless game: waiting with nothing queued jumps the clock to the deadline.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from drivers.clock import Clock, FakeClock


@dataclass(frozen=True, slots=True)
class SimKey:
    """A keyboard key read from SDL in the simulator: ``key`` (pygame key code), ``down``
    (True for KEYDOWN), ``t_ns`` (loop clock when read; SDL gives no press time)."""

    key: int
    down: bool
    t_ns: int


@dataclass(frozen=True, slots=True)
class Quit:
    """The window was closed (or SIGTERM arrived): leave the loop cleanly."""


@dataclass(frozen=True, slots=True)
class Redraw:
    """The window was resized or exposed: redraw everything on the next frame."""


class EventQueue(Protocol):
    """The device's single queue: ``post`` from any thread, ``wait`` from the loop only."""

    def post(self, event: object) -> None:
        """Queue ``event``; thread-safe."""

    def wait(self, timeout_ns: int | None) -> list[object]:
        """Block up to ``timeout_ns`` (``None``: until something arrives); return every
        queued event in arrival order (possibly none)."""


class FakeQueue:
    """A deterministic queue for tests and the headless game on a fake clock.

    ``wait`` returns queued events at once; with none queued it advances ``clock`` by
    ``timeout_ns`` and returns ``[]``.  Waiting forever on an empty queue cannot happen
    in a run without people, so it raises ``RuntimeError`` (a stuck headless game is a bug).
    """

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self._events: deque[object] = deque()

    def post(self, event: object) -> None:
        """Queue ``event``."""
        self._events.append(event)

    def wait(self, timeout_ns: int | None) -> list[object]:
        """See :class:`EventQueue`."""
        if self._events:
            out = list(self._events)
            self._events.clear()
            return out
        if timeout_ns is None:
            raise RuntimeError("headless loop has nothing to wait for (no timer, no event)")
        self.clock.advance(max(0, timeout_ns))
        return []


class SdlQueue:
    """SDL's event queue as the device queue (needs ``pygame.display`` initialised).

    Driver events are wrapped in one custom event type; KEYDOWN/KEYUP become
    :class:`SimKey` stamped with ``clock``; QUIT becomes :class:`Quit`; window resize or
    expose becomes :class:`Redraw`.  Other SDL events are dropped.
    """

    def __init__(self, clock: Clock) -> None:
        import pygame

        self._pg: Any = pygame
        self.clock = clock
        self.event_type: int = pygame.event.custom_type()

    def post(self, event: object) -> None:
        """Queue ``event`` (thread-safe: SDL_PushEvent)."""
        self._pg.event.post(self._pg.event.Event(self.event_type, payload=event))

    def wait(self, timeout_ns: int | None) -> list[object]:
        """See :class:`EventQueue`; SDL's wait takes whole milliseconds (rounded up)."""
        pg = self._pg
        if timeout_ns is None:
            first = pg.event.wait()
        else:
            first = pg.event.wait(max(1, -(-timeout_ns // 1_000_000)))
        raw = [first, *pg.event.get()]
        out: list[object] = []
        now = self.clock.now_ns()
        for ev in raw:
            converted = self._convert(ev, now)
            if converted is not None:
                out.append(converted)
        return out

    def _convert(self, ev: Any, now_ns: int) -> object | None:
        pg = self._pg
        if ev.type == self.event_type:
            payload: object = ev.payload
            return payload
        if ev.type in (pg.KEYDOWN, pg.KEYUP):
            if getattr(ev, "repeat", 0):
                return None
            return SimKey(ev.key, ev.type == pg.KEYDOWN, now_ns)
        if ev.type == pg.QUIT:
            return Quit()
        if ev.type in (pg.VIDEORESIZE, pg.VIDEOEXPOSE, pg.WINDOWSIZECHANGED, pg.WINDOWEXPOSED):
            return Redraw()
        return None


Post = Callable[[object], None]
"""What driver threads are handed: ``post(event)``."""
