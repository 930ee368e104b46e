"""Events on the device's one queue, and the queues themselves.

Driver threads only ever call ``post(event)``; the device loop alone calls ``wait``.
Driver events (``drivers.slap.Press``, ``drivers.keys.KeyPress`` ...) travel as they are;
this module adds the events the device itself makes (keys read from SDL, quit, redraw,
abandon, a handheld gone or back, a handheld's screen noisy or quiet, a driver's wake-up).

The device's queue is its own (docs/architecture.md "Data flow"): SDL is not the queue, because
pygame-ce's ``event.wait`` and SDL's own wait poll every millisecond on KMSDRM
(``docs/hardware-facts.md`` "Idle cost").

- :class:`DeviceQueue`: a ``queue.SimpleQueue``; ``wait`` blocks in a real sleep (a lock
  acquire with a timeout) until an event arrives or the deadline passes.
- :class:`FakeQueue`: a deque on a :class:`drivers.clock.FakeClock` for tests and the
  headless game: waiting with nothing queued jumps the clock to the deadline.
- :class:`SdlPump`: where a window needs its events pumped (the simulator), a loop ticker
  that reads SDL's queue at a modest rate and posts what it finds onto the device queue.

Every event taken off the queue is checked first (:func:`event_problem`, called by
:class:`device.reactor.loop.Loop`): a field of the wrong type is one log line, never a traceback.

Signals: :func:`quit_on_signals` (SIGINT/SIGTERM post :class:`Quit`) and the appliance
test's debug aid :func:`hang_on_signal` (``PARTYTABLE_DEBUG_HANG``).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import queue
import signal
import time
import typing
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import FrameType
from typing import Any, Protocol

from drivers.clock import Clock, FakeClock
from drivers.values import is_int, is_number

log = logging.getLogger("partytable")

MS = 1_000_000


@dataclass(frozen=True, slots=True)
class SimKey:
    """A keyboard key read from SDL in the simulator: ``key`` (pygame key code), ``down``
    (True for KEYDOWN), ``t_ns`` (loop clock when read, CLOCK_MONOTONIC ns; SDL gives no
    press time)."""

    key: int
    down: bool
    t_ns: int


@dataclass(frozen=True, slots=True)
class Quit:
    """The window was closed, or SIGTERM/SIGINT arrived: leave the loop cleanly."""


@dataclass(frozen=True, slots=True)
class Wake:
    """A driver asks the loop to run its tickers now: a slap press waits for its check
    (``drivers.slap.SlapButtons``' ``wake``), and a waiting press posts nothing else that
    would end the loop's wait.  Carries nothing; the loop handles it by waking."""


@dataclass(frozen=True, slots=True)
class Redraw:
    """The window was resized or exposed: redraw everything on the next frame."""


@dataclass(frozen=True, slots=True)
class Abandon:
    """End the game being played without a winner and go back to the lobby (the
    simulator's DELETE key); the journal marks it, so it is not resumed."""


@dataclass(frozen=True, slots=True)
class HandheldGone:
    """Seat ``seat``'s handheld stopped answering (unplugged, bus error): ``reason`` is one
    line for the log, ``t_ns`` CLOCK_MONOTONIC ns.  Posted by a handheld's link thread."""

    seat: int
    reason: str
    t_ns: int = 0


@dataclass(frozen=True, slots=True)
class HandheldBack:
    """Seat ``seat``'s handheld answers again (``t_ns`` CLOCK_MONOTONIC ns): its whole
    screen is sent again."""

    seat: int
    t_ns: int = 0


@dataclass(frozen=True, slots=True)
class HandheldNoisy:
    """Seat ``seat``'s wired screen loses transfers often (``drivers.i2c_writer``: long
    leads, weak pull-ups, a bus clock too fast for the wiring): ``reason`` is one line for
    the log with the advice, ``t_ns`` CLOCK_MONOTONIC ns.  Posted by its bus writer."""

    seat: int
    reason: str
    t_ns: int = 0


@dataclass(frozen=True, slots=True)
class HandheldQuiet:
    """Seat ``seat``'s noisy screen has had no failed transfer for a while (``t_ns``
    CLOCK_MONOTONIC ns).  Posted by its bus writer."""

    seat: int
    t_ns: int = 0


@dataclass(frozen=True, slots=True)
class HandheldReports:
    """A handheld link's callbacks (``on_gone``, ``on_back``, ``on_noisy``, ``on_quiet`` of
    ``drivers.hand_display.HandDisplays`` and ``drivers.serial_handheld.SerialHandhelds``):
    each posts its report with ``post`` as a :class:`HandheldGone`, :class:`HandheldBack`,
    :class:`HandheldNoisy` or :class:`HandheldQuiet` stamped ``clock.now_ns()`` when called
    (CLOCK_MONOTONIC ns).  Called from the link's thread."""

    post: Callable[[object], None]
    clock: Clock

    def gone(self, seat: int, reason: str) -> None:
        """Seat ``seat``'s handheld stopped answering (``reason``: one line for the log)."""
        self.post(HandheldGone(seat, reason, self.clock.now_ns()))

    def back(self, seat: int) -> None:
        """Seat ``seat``'s handheld answers again."""
        self.post(HandheldBack(seat, self.clock.now_ns()))

    def noisy(self, seat: int, reason: str) -> None:
        """Seat ``seat``'s wired screen loses transfers often (``reason``: the advice)."""
        self.post(HandheldNoisy(seat, reason, self.clock.now_ns()))

    def quiet(self, seat: int) -> None:
        """Seat ``seat``'s noisy screen has had no failed transfer for a while."""
        self.post(HandheldQuiet(seat, self.clock.now_ns()))


INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
"""The range of an event's ``int`` fields: a CLOCK_MONOTONIC ns stamp is a signed 64-bit
``struct timespec`` count (``clock_gettime(2)``), and no seat index comes near it."""

_FIELD_TYPES: dict[type, tuple[tuple[str, type], ...]] = {}
"""Per event class: its dataclass fields typed ``int``, ``str``, ``bool`` or ``float``."""


def _checked_fields(cls: type) -> tuple[tuple[str, type], ...]:
    """``(name, type)`` of ``cls``'s dataclass fields annotated with a plain ``int``,
    ``str``, ``bool`` or ``float`` (resolved once per class and kept)."""
    found = _FIELD_TYPES.get(cls)
    if found is None:
        try:
            hints = typing.get_type_hints(cls)
        except Exception:  # an annotation that does not resolve: nothing to check by
            hints = {}
        found = tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls)
                      if hints.get(f.name) in (int, str, bool, float))
        _FIELD_TYPES[cls] = found
    return found


def event_problem(event: object) -> str | None:
    """Why ``event`` cannot be handled, as one line, or ``None`` when it can.

    Checks every dataclass event (the drivers' ``Press``, ``Release``, ``KeyPress``, this
    module's :class:`HandheldGone` ...) against its own field annotations: an ``int`` field
    holds an ``int`` (not a ``bool``) from :data:`INT64_MIN` to :data:`INT64_MAX` (a
    ``seat``, an index counted from 0, is not negative), a
    ``str`` field a ``str``, a ``bool`` field a ``bool``, a ``float`` field an
    ``int`` or ``float``.  E.g. ``"KeyPress.seat must be an int, got '1' (str)"``.  Objects
    that are not dataclasses pass (their handler decides).  Values are shown by
    :func:`safe_repr`.  Never raises: a check that does (a field's own methods) is the
    line ``"<Event> cannot be checked: <exception type>"``."""
    try:
        return _field_problem(event)
    except Exception as exc:  # a field whose own methods raise (an int or str subclass)
        return f"{type(event).__name__} cannot be checked: {type(exc).__name__}"


def _field_problem(event: object) -> str | None:
    """:func:`event_problem`'s checks; ranges are checked on an exact ``int`` copy before
    anything is formatted, and values are shown by :func:`safe_repr`."""
    cls = type(event)
    if not dataclasses.is_dataclass(cls):
        return None
    for name, want in _checked_fields(cls):
        value = getattr(event, name, None)
        got = type(value).__name__
        where = f"{cls.__name__}.{name}"
        if want is int:
            if not is_int(value):
                return f"{where} must be an int, got {safe_repr(value)} ({got})"
            exact = int.__int__(value)  # no subclass method runs on it
            if name == "seat" and exact < 0:
                return f"{where} must be a seat index (0 or more), got {safe_repr(value)}"
            if not INT64_MIN <= exact <= INT64_MAX:
                return f"{where} must be a 64-bit int, got {safe_repr(value)}"
        elif want is bool:
            if not isinstance(value, bool):
                return f"{where} must be True or False, got {safe_repr(value)} ({got})"
        elif want is float:
            if not is_number(value):
                return f"{where} must be a number, got {safe_repr(value)} ({got})"
        elif not isinstance(value, str):
            return f"{where} must be a str, got {safe_repr(value)} ({got})"
    return None


SHOWN_CHARS = 40
"""The most characters of a value :func:`safe_repr` shows."""


def safe_repr(value: object) -> str:
    """A short ``repr`` of ``value`` for a log line that never raises: at most
    :data:`SHOWN_CHARS` characters then ``...``; an int is shown by the exact ``int``'s
    repr (an int of more than 64 bits as ``an int of N bits``: ``repr`` refuses past 4,300
    digits), a str by the exact ``str``'s, so no subclass ``__repr__`` runs; anything else
    whose ``repr`` raises is ``<a TYPE>``."""
    try:
        if isinstance(value, bool):
            return "True" if value else "False"
        if isinstance(value, int):
            exact = int.__int__(value)
            bits = exact.bit_length()
            if bits > 64:
                return f"an int of {bits} bits"
            text = int.__repr__(exact)
        elif isinstance(value, str):
            text = str.__repr__(str.__getitem__(value, slice(0, SHOWN_CHARS + 1)))
        elif isinstance(value, float):
            text = float.__repr__(value)
        else:
            text = repr(value)
    except Exception:
        return f"<a {type(value).__name__}>"
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."


class EventQueue(Protocol):
    """The device's single queue: ``post`` from any thread, ``wait`` from the loop only."""

    def post(self, event: object) -> None:
        """Queue ``event``; thread-safe."""

    def wait(self, timeout_ns: int | None) -> list[object]:
        """Block up to ``timeout_ns`` ns (``None``: until something arrives); return every
        queued event in arrival order (possibly none)."""


class DeviceQueue:
    """The device's queue on a real clock: ``post`` from any thread, ``wait`` from the loop.

    ``wait`` sleeps in the kernel (``SimpleQueue.get`` with a timeout) until an event
    arrives or the timeout ends: with nothing to do the process does not wake.  Signal
    handlers still run while it waits (the lock acquire is interruptible)."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()

    def post(self, event: object) -> None:
        """Queue ``event``; thread-safe, never blocks."""
        self._queue.put(event)

    def wait(self, timeout_ns: int | None) -> list[object]:
        """See :class:`EventQueue`."""
        try:
            if timeout_ns is None:
                first = self._queue.get()
            else:
                first = self._queue.get(timeout=max(0, timeout_ns) / 1e9)
        except queue.Empty:
            return []
        out = [first]
        while True:
            try:
                out.append(self._queue.get_nowait())
            except queue.Empty:
                return out


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


PUMP_FAST_NS = 20 * MS
"""SDL pump interval while people are pressing keys (50 Hz): a key is read within 20 ms."""

PUMP_IDLE_NS = 150 * MS
"""SDL pump interval after :data:`PUMP_ACTIVE_NS` without a key and with no slap window
open (about 7 Hz): the simulator window stays responsive while the process sleeps most of
the time."""

PUMP_ACTIVE_NS = 3_000 * MS
"""How long after the last key the pump stays fast."""


class SdlPump:
    """A loop ticker that moves SDL's window events onto the device queue (simulator only).

    ``post``: the device queue's ``post``; ``busy()``: True while keys must be read fast
    (a slap window is open: a key is stamped when it is read, so a slow pump would blur
    who slapped first).  Call it as ``pump(now_ns) -> next_ns`` (a
    ticker: it returns its next deadline, CLOCK_MONOTONIC ns).  KEYDOWN/KEYUP become
    :class:`SimKey` stamped ``now_ns``; QUIT becomes :class:`Quit`; a resize or expose
    becomes :class:`Redraw`; other SDL events are dropped.  Needs ``pygame.display``
    initialised (a window).
    """

    def __init__(self, post: Callable[[object], None],
                 busy: Callable[[], bool] = lambda: False) -> None:
        import pygame

        self._pg: Any = pygame
        self._post = post
        self._busy = busy
        self._last_key_ns: int | None = None

    def __call__(self, now_ns: int) -> int:
        """Read SDL's queue now; returns when to pump next."""
        for ev in self._pg.event.get():
            converted = self._convert(ev, now_ns)
            if converted is not None:
                self._post(converted)
        busy = self._busy() or (
            self._last_key_ns is not None and now_ns - self._last_key_ns < PUMP_ACTIVE_NS)
        return now_ns + (PUMP_FAST_NS if busy else PUMP_IDLE_NS)

    def _convert(self, ev: Any, now_ns: int) -> object | None:
        pg = self._pg
        if ev.type in (pg.KEYDOWN, pg.KEYUP):
            if getattr(ev, "repeat", 0):
                return None
            self._last_key_ns = now_ns
            return SimKey(ev.key, ev.type == pg.KEYDOWN, now_ns)
        if ev.type == pg.QUIT:
            return Quit()
        if ev.type in (pg.VIDEORESIZE, pg.VIDEOEXPOSE, pg.WINDOWSIZECHANGED, pg.WINDOWEXPOSED):
            return Redraw()
        return None


Post = Callable[[object], None]
"""What driver threads are handed: ``post(event)``."""


def quit_on_signals(post: Post) -> None:
    """Make SIGINT and SIGTERM post :class:`Quit` (``post``: the device queue's): the loop's
    wait wakes at once and the loop ends cleanly.  Installed before SDL starts, these
    handlers also keep SDL from taking the two signals for itself."""

    def on_signal(signum: int, frame: FrameType | None) -> None:
        post(Quit())

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)


DEBUG_HANG_ENV = "PARTYTABLE_DEBUG_HANG"
"""The environment variable that arms :func:`hang_on_signal` (a signal name, e.g.
``SIGUSR1``); unset or empty: off."""

_UNHANDLEABLE = {"SIGKILL", "SIGSTOP", "SIGINT", "SIGTERM"}
"""Signals the debug hang may not take: the kernel's two uncatchable ones, and the two that
post :class:`Quit` (:func:`quit_on_signals`)."""


def hang_on_signal(environ: Mapping[str, str] | None = None) -> signal.Signals | None:
    """Debug aid for the appliance test's watchdog check: when ``environ`` (default
    ``os.environ``) has ``PARTYTABLE_DEBUG_HANG=<signal name>`` (``SIGUSR1`` or ``USR1``,
    any case), that signal makes the main thread stop for good: its handler logs one line,
    then sleeps in a loop and never returns, so the device loop sends no more
    ``WATCHDOG=1`` and systemd's ``WatchdogSec=`` kills (SIGABRT) and restarts the service
    (docs/hardware-facts.md, "systemd notify"; ``systemd/partytable.service``).

    Logs one line when armed.  Returns the armed signal, or ``None`` when unset, or when the
    name is no signal Python can catch here (SIGKILL, SIGSTOP) or one the console needs
    (SIGINT, SIGTERM): one warning line naming the value, and no hang.  Call it from the
    main thread (``signal.signal`` must be)."""
    env = os.environ if environ is None else environ
    value = env.get(DEBUG_HANG_ENV, "").strip()
    if not value:
        return None
    name = value.upper() if value.upper().startswith("SIG") else "SIG" + value.upper()
    try:
        signum = signal.Signals[name]
    except KeyError:
        signum = None
    if signum is None or name in _UNHANDLEABLE:
        log.warning("%s=%r is not a signal the debug hang can take (e.g. SIGUSR1): "
                    "debug hang off", DEBUG_HANG_ENV, value)
        return None

    def hang(got: int, frame: FrameType | None) -> None:
        log.warning("debug hang: %s received: the main loop stops here for good "
                    "(%s); the watchdog must restart the service", name, DEBUG_HANG_ENV)
        while True:
            time.sleep(3600)

    signal.signal(signum, hang)
    log.warning("debug hang armed: %s stops the main loop for good (%s)", name,
                DEBUG_HANG_ENV)
    return signum
