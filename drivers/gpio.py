"""GPIO plumbing shared by slap buttons and handheld keys, and the MockFactory seam.

Five pieces, none of them game-aware (docs/hardware-facts.md, "gpiozero and slap timestamps"):

- :class:`EdgeButton`: a gpiozero input device (pull-up, ``bounce_time=None``) that hands
  every edge to a callback with the edge's own timestamp.  gpiozero delivers an edge as
  ``_pin_changed(ticks, state)``; on the lgpio pin factory ``ticks`` is the kernel's
  CLOCK_MONOTONIC edge time in float seconds.  We override ``_pin_changed`` rather than
  assign ``pin.when_changed``, which would replace the device's own handler and is held
  only by a weak reference.  Every exception in that callback is caught and logged: lgpio
  runs all callbacks on one thread with no ``try``, and one uncaught exception ends it and
  every button with it.
- :class:`EdgeDebouncer`: debounce by edge timestamps and the debouncer's *own* belief of
  the button's state, never the edge's level (the kernel reads that late: on a bouncing
  contact the first event can carry the wrong level).  The first edge after a quiet period
  flips the belief and is stamped with its own time; edges within ``lockout_ns`` of it are
  bounces; when the lockout ends the belief is reconciled with the line's real level.
- :class:`EdgeButtonGroup`: the machinery of a group of such buttons keyed by seat or key
  name (one lock, a closed flag, a debouncer per button, the ``settle(now_ns)`` ticker,
  guarded posting, idempotent ``close()``), the base of :class:`~drivers.slap.SlapButtons`
  and :class:`~drivers.keys.HandKeys`.  Its pin factory goes through
  :func:`drivers.pin_factory.resolve_pin_factory`: never gpiozero's silent fallback.
- The simulator/test seam: :func:`edge` drives a gpiozero ``MockFactory`` pin to
  pressed/released at a chosen ``t_ns`` -- and, with ``reads=``, lets the event carry the
  wrong level as the kernel's late read can -- so gpiozero's real input-device code path
  runs with that tick (:func:`drive_at`; :func:`mock_pin_factory` builds a factory of
  :class:`EdgeMockPin`, which adds the same as a method).

Times are ``int`` CLOCK_MONOTONIC nanoseconds throughout.  No function here reads a clock
or sleeps: time comes from edge ticks and from the ``now_ns`` the device loop passes.
"""

from __future__ import annotations

import logging
import sys
import threading
from abc import abstractmethod
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Generic, TypeVar

from gpiozero import DigitalInputDevice  # type: ignore[import-untyped]
from gpiozero.exc import (  # type: ignore[import-untyped]
    BadPinFactory,
    GPIOPinInUse,
    GPIOPinMissing,
    PinInvalidPin,
)
from gpiozero.pins.mock import MockFactory, MockPin, PinState  # type: ignore[import-untyped]
from gpiozero.pins.pi import PiPin  # type: ignore[import-untyped]

from drivers.closing import ClosesOnExit
from drivers.errors import (
    DeviceBusyError,
    DeviceUnavailableError,
    DriverClosedError,
    DriverValueError,
)
from drivers.pin_factory import resolve_pin_factory
from drivers.values import is_int

__all__ = [
    "NS_PER_S",
    "EdgeButton",
    "EdgeButtonGroup",
    "EdgeDebouncer",
    "EdgeMockPin",
    "Pin",
    "Transition",
    "drive_at",
    "edge",
    "fire_edge",
    "mock_pin_factory",
    "ns_to_ticks",
    "open_edge_button",
    "pin_label",
    "ticks_to_ns",
]

log = logging.getLogger(__name__)

NS_PER_S = 1_000_000_000
"""Nanoseconds per second."""

Pin = int | str
"""A pin as gpiozero names it: ``17`` (= ``"GPIO17"``), ``"GPIO17"``, ``"BOARD11"``, ..."""

Transition = tuple[bool, int]
"""A debounced change of a button: ``(pressed, t_ns)``; ``pressed`` False is a release."""

EdgeCallback = Callable[[bool, int], None]
"""Called with ``(pressed, t_ns)`` for every raw edge, before any debounce.

``pressed`` is the level the event carries (the kernel's late read: not trustworthy on a
bouncing contact), ``t_ns`` the edge's own timestamp."""

K = TypeVar("K", bound=Hashable)
"""What an :class:`EdgeButtonGroup` keys its buttons by: a seat (``int``), a key name."""


def ticks_to_ns(ticks: float) -> int:
    """Convert gpiozero edge ticks (float seconds, CLOCK_MONOTONIC) to ``int`` nanoseconds.

    Rounds the float's exact value to the nearest nanosecond, so ``ticks_to_ns(ns_to_ticks(n))
    == n`` whenever the float can hold ``n`` (uptimes below about 26 days; beyond that the
    float itself, not this function, limits the resolution to a few nanoseconds).

    >>> ticks_to_ns(1.5)
    1500000000
    >>> ticks_to_ns(ns_to_ticks(123_456_789_012_345))
    123456789012345
    """
    return round(Fraction(ticks) * NS_PER_S)


def ns_to_ticks(t_ns: int) -> float:
    """Convert ``int`` nanoseconds to gpiozero ticks (float seconds), as lgpio does.

    >>> ns_to_ticks(2_500_000_000)
    2.5
    """
    return t_ns / NS_PER_S


def pin_label(pin: Pin) -> str:
    """Name a pin for messages: ``17`` -> ``"GPIO17"``, a string as given.

    >>> pin_label(17), pin_label("BOARD11")
    ('GPIO17', 'BOARD11')
    """
    if is_int(pin):
        return f"GPIO{pin}"
    return str(pin)


class _FailureLog:
    """Logs exceptions caught on an edge or ticker path without flooding the journal.

    One per button and per group.  The first :attr:`FULL` failures are logged with their
    traceback; after that one line every :attr:`EVERY` failures (a ``post`` that raises on
    a chattering switch fails once per edge).  :meth:`report` must be called inside the
    ``except`` block.  Thread-safe.
    """

    FULL = 3
    """How many failures are logged with their traceback."""
    EVERY = 1000
    """After :attr:`FULL`, one line per this many failures."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0
        """Failures caught so far (all paths, all buttons)."""

    def report(self, where: str, what: str) -> None:
        """Log the exception being handled: ``where`` names the button, ``what`` the step."""
        with self._lock:
            self.count += 1
            count = self.count
        if count <= self.FULL:
            log.exception("%s: %s failed; caught, the next edge is handled as usual", where, what)
        elif count % self.EVERY == 0:
            log.error("%s: %s failed (%d failures caught so far)", where, what, count)



class EdgeButton(DigitalInputDevice):  # type: ignore[misc]
    """A gpiozero button that reports each edge with its own timestamp.

    ``pin``: a gpiozero pin name; ``on_edge(pressed, t_ns)`` is called on gpiozero's callback
    thread for every edge (``pressed``: the level the event carries is the active level,
    i.e. low with the pull-up -- the kernel's late read, see :class:`EdgeDebouncer`;
    ``t_ns``: the edge's ticks converted by :func:`ticks_to_ns`), then gpiozero's own
    handling runs (``is_active``, ``when_activated``); ``name`` names the button in log
    lines.  Always ``pull_up=True`` and ``bounce_time=None``: lgpio's bounce filter would
    stamp the last bounce, not the first edge.  Raises what gpiozero raises; use
    :func:`open_edge_button` for driver errors.

    An exception from ``on_edge`` or from gpiozero's handling is caught and logged, never
    passed on: lgpio's single callback thread would die of it, and with it every button
    (docs/hardware-facts.md, "An exception in a callback kills every button").

    It is ``gpiozero.Button`` without ``HoldMixin`` (``Button`` = ``HoldMixin`` +
    ``DigitalInputDevice``; ``_pin_changed`` is ``DigitalInputDevice``'s): ``Button`` starts
    a hold thread per button that wakes every 100 ms and makes ``close()`` of a held button
    wait up to ``hold_time`` (1 s).  Nothing here uses ``when_held``.
    """

    def __init__(
        self, pin: Pin, *, on_edge: EdgeCallback, pin_factory: Any = None, name: str = ""
    ) -> None:
        self._on_edge = on_edge
        self._name = name or f"button at {pin_label(pin)}"
        self._failures = _FailureLog()
        super().__init__(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)

    @property
    def is_pressed(self) -> bool:
        """Whether the line is at the pressed (active, low) level now: ``Button.is_pressed``."""
        return bool(self.is_active)

    def _pin_changed(self, ticks: float, state: int) -> None:
        """gpiozero's edge hook: forward ``(pressed, t_ns)``, then gpiozero's own handling.

        Catches and logs every exception of either step (see the class docstring).
        """
        try:
            self._on_edge(bool(self._state_to_value(state)), ticks_to_ns(ticks))
        except Exception:
            self._failures.report(self._name, "the edge handler")
        try:
            super()._pin_changed(ticks, state)
        except Exception:
            self._failures.report(self._name, "gpiozero's edge handling")


def open_edge_button(
    pin: Pin, on_edge: EdgeCallback, *, seat: int, device: str, pin_factory: Any = None
) -> EdgeButton:
    """Open an :class:`EdgeButton`, turning gpiozero's errors into driver errors.

    ``device`` names it in messages, e.g. ``"slap button"``; the message adds the pin.
    Raises :class:`DriverValueError` for something that is not a pin name and
    :class:`DeviceUnavailableError` for a pin in use, no usable pin factory (lgpio missing,
    not a Pi) or any other failure to open; :class:`DeviceBusyError`, a kind of it, for a
    line another process holds (lgpio's ``error("GPIO busy")``: the kernel's line request
    said EBUSY, lg ``lgGpio.c``).
    """
    where = f"{device} at {pin_label(pin)}"
    try:
        return EdgeButton(
            pin, on_edge=on_edge, pin_factory=pin_factory, name=f"seat {seat + 1} {where}"
        )
    except (PinInvalidPin, GPIOPinMissing) as exc:
        raise DriverValueError(where, f"not a GPIO pin name ({exc})", seat=seat) from exc
    except GPIOPinInUse as exc:
        raise DeviceUnavailableError(
            where, "pin already in use; each button needs its own pin", seat=seat
        ) from exc
    except BadPinFactory as exc:
        raise DeviceUnavailableError(
            where,
            "no GPIO pin factory; on a Pi install python3-lgpio, elsewhere run with --sim",
            seat=seat,
        ) from exc
    except Exception as exc:  # lgpio.error and friends: any backend failure to open
        if _held_elsewhere(exc):
            raise DeviceBusyError(
                where, "busy: another program holds this GPIO line (lgpio: GPIO busy)",
                seat=seat,
            ) from exc
        raise DeviceUnavailableError(where, f"cannot open ({exc})", seat=seat) from exc


LGPIO_BUSY = "GPIO busy"
"""lgpio's text for ``LG_GPIO_BUSY`` (lg ``lgErr.c``), what its ``error`` carries when the
kernel refused a line request with EBUSY: another process has requested the line."""


def _held_elsewhere(exc: BaseException) -> bool:
    """Whether ``exc`` is lgpio's ``error("GPIO busy")`` (lgpio as already imported; it is
    not imported here)."""
    lgpio_error = getattr(sys.modules.get("lgpio"), "error", None)
    return (isinstance(lgpio_error, type) and isinstance(exc, lgpio_error)
            and getattr(exc, "value", None) == LGPIO_BUSY)


BOUNCE_NS = 2_500_000
"""The longest a confirmed press's stamp may precede the edge that began its final low run
(2.5 ms): half the 5 ms a worn microswitch's bounce can last, so a spike train before a
press moves its stamp at most this much earlier, and a press bouncing for 5 ms is stamped
at most this much later (:class:`EdgeDebouncer`, "The stamp's bound")."""

MAX_LOCKOUTS = 4
"""How many lockouts a run of bounces can stretch one lockout to (4 x 30 ms = 120 ms by
default): long enough for a worn switch's chatter, short enough that a release is seen
within a tenth of a second."""


@dataclass(slots=True)
class EdgeDebouncer:
    """Debounce one button from its own believed state and edge timestamps alone.

    docs/hardware-facts.md, "The edge's level is not trustworthy on a bouncing contact": for a
    both-edges request the kernel stamps an edge in the hard IRQ but reads the line's level
    later (``gpiolib-cdev.c`` ``edge_irq_thread``), so on a bouncing contact the first event
    can carry the wrong level.  So the direction of a change comes from here, not from the
    event; docs/architecture.md, "Slap arbitration" item 5 gives the lockout (30 ms by default in
    the drivers).

    ``lockout_ns``: ``int`` nanoseconds; ``down``: the believed line state (True = pressed;
    the owner sets it to the line's level when it opens the button); ``reported``: the
    state last reported (starts False, so a button held when opened reports nothing until
    it is released and pressed again; after that it equals ``down``); ``confirm_ns``:
    ``int`` nanoseconds a press must be confirmed for (0: no confirmation, every first edge
    counts at once), see below; ``bounce_ns``: ``int`` nanoseconds, how far before its
    last edge a confirmed press may be stamped (the stamp's bound, below; ``None``: no
    bound, a press is stamped at its burst's first edge however long the burst).

    :meth:`edge` takes every raw edge ``(level, t_ns)``:

    - the first edge after a quiet period flips ``down`` whatever ``level`` says, is
      reported with its own ``t_ns`` and starts a lockout of ``lockout_ns``; with
      ``confirm_ns`` > 0 a first edge towards *pressed* is only a candidate (below);
    - an edge within the lockout (or stamped before its first edge) is a bounce: nothing
      is reported; its level is kept as evidence of where the line settled, and the lockout
      runs on until ``lockout_ns`` after the last bounce (at most :data:`MAX_LOCKOUTS`
      lockouts after the first edge);
    - an edge after a lockout that :meth:`settle` has not closed yet first closes it from
      that evidence (the last bounce's level, else the believed state): if that differs
      from ``down``, the missed transition is reported, stamped at the lockout's end.

    :meth:`settle` (the owner's ticker, with the line's real ``level`` read at ``now_ns``)
    closes a lockout that has ended: if the line is not where we believe, the missed
    transition is reported, stamped at the lockout's end (or at ``now_ns`` if no edge seen
    explains it: never earlier than the line could have shown it).  Edges stamped before
    that reading are already part of what it read and are ignored (a callback lgpio
    delivers late cannot undo the reconciliation); one stamped at the very ``now_ns`` of
    the reading counts as new (the simulator stamps its key edges with the loop's
    ``now_ns``).  Reports alternate press/release, starting with a press; within one
    lockout plus one :meth:`settle` of the last edge, ``down`` equals the line's real level.

    **Confirmed presses** (``confirm_ns`` > 0: a glitch on the line is not a press).  A
    first edge while released starts a candidate press, reported nothing yet; its edges
    (bounces) push its check to ``confirm_ns`` after the last one (:meth:`deadline_ns`):
    a line that never keeps still for ``confirm_ns`` is never decided, and so a spike
    train, however dense and long, is never a press (a real press ends it: the contact
    holds the line low, where spikes to low change nothing).  At the check
    :meth:`settle` reads the line and compares it with the edges seen (an odd number of
    them: the line ended pressed):

    - pressed, and the edges agree: the line is read again ``confirm_ns`` later; a
      callback in between starts the check over (an edge stamped after the check was due
      decides, below); still pressed, the press is reported, stamped at the candidate's
      first edge but no earlier than ``bounce_ns`` before its *last* edge (below), and its
      lockout runs as for any accepted edge (from that stamp, on after its last bounce).
      One reading is not enough when the callbacks come late: the check, ``confirm_ns``
      after the last edge *delivered*, can fall inside a later spike whose edges are
      still on their way, and agree with the edges seen.  With callbacks D late (in
      order, as lgpio delivers one line's events) the first reading, at the last
      delivered edge e plus ``confirm_ns`` (or later: a late look waits), proves no edge
      in (e, e + ``confirm_ns`` - D); a second one ``confirm_ns`` later with no callback
      in between proves none up to e + 2 ``confirm_ns`` - D, over ``confirm_ns`` for any
      D < ``confirm_ns``; for D >= ``confirm_ns`` the late look's wait already proves the
      whole ``confirm_ns``.  So the line was held low ``confirm_ns`` after e: no spike
      shorter than that is a press.  The press reaches its owner ``confirm_ns`` later;
      its stamp is unchanged;
    - released, and the edges agree (or their last level says released): a glitch -- a
      spike of static or motor noise.  Nothing is reported, the belief stays released,
      and its late callbacks are part of the reading.  The line is read once more
      ``lockout_ns`` later (unless an edge comes first): pressed then, the burst went on
      past the reading and the kernel dropped its last edge (below), so it is a press
      found on the line, confirmed like any other and stamped ``bounce_ns`` before the
      glitch's reading, or at the burst's first edge if that is later;
    - they disagree: an edge has not been delivered yet (the one that let go of a slap
      that the device loop checked late, or a press right after a glitch) or was lost.
      The check waits up to ``lockout_ns`` for it; an edge stamped after the check was
      due then decides as below, else the reading does: a pressed line is a press,
      confirmed by a second reading as above and stamped by the same rule as one whose
      edges agree (the stamp's bound, below).  The edge that did not come was dropped:
      the GPIO character device's interrupt is masked while its threaded handler runs
      for the edge before, and an edge in that time is lost on gpio-sim
      (docs/hardware-facts.md, "gpio-sim drops edges"), so a press bouncing faster than
      the handler often arrives as an even number of events.

    A first look that comes after the check was due (the loop or the callbacks were late)
    waits ``confirm_ns`` more, so the rest of the burst's callbacks arrive before the line
    is read.  An edge stamped after the check was due, arriving before :meth:`settle`
    decided, decides the candidate first from the edges seen (an odd number of them and
    the last one's level pressed, read after a quiet ``confirm_ns``): the line was still
    pressed until that edge.  So a spike shorter than ``confirm_ns`` is never a press,
    and a bouncing press is one press.

    **The stamp's bound** (``bounce_ns``, default :data:`BOUNCE_NS` = 2.5 ms).  Spikes less
    than ``confirm_ns`` apart, then a press, are one candidate: its first edge is a spike's,
    maybe tens of milliseconds before the press.  So the stamp is ``max(first edge, last
    edge - bounce_ns)``, the last edge being the one that began the low run the check found
    still.  Let P be the press's first contact (the line released just before it) and its
    contact bounce for d.  The last edge is at or after P (the line was released before P
    and low at the check) and at most P + d (after its bounce the contact holds the line
    still and low).  So the stamp is never before P - ``bounce_ns``, whatever spikes came
    before; and never after max(P, P + d - ``bounce_ns``): exactly P for a press with no
    spike within ``confirm_ns`` before it and a bounce up to ``bounce_ns``, at most
    d - ``bounce_ns`` late for a longer bounce (2.5 ms for a 5 ms one).  No rule can do
    better than d/2 both ways: 450 us spikes every 500 us for 5 ms and then a clean press
    make the very edges a press bouncing for those 5 ms makes.  A spike still low when the
    contact closes is the press's own first low: P is then the spike's edge.  The bound
    assumes the callbacks of the edges before the reading have arrived when the line is
    read; a press whose edges disagree with the line because the kernel dropped one is
    stamped by the same rule from the edges seen: if the dropped edge was the press's first
    contact, coming after every edge seen, the stamp can be early by as long as the handler
    that masked it ran.  Each callback that
    arrives while a press waits starts its check over (a look after it was due waits
    ``confirm_ns`` more, a disagreement waits for the missing edge again), so a burst whose
    callbacks keep coming is read once they stop.  Callbacks later than that, or two lost
    edges -- a spike's release and the press's first edge -- can leave the reading ahead of
    the edges seen: the last one is then a spike's, and the stamp up to ``bounce_ns``
    before it (``make bench``, the spike-train rows with late callbacks, measures how
    often).

    A lone edge whose event says released, with no edge after it until one stamped after
    its check (the device loop came late, later than the slap was held), is decided from
    the edges: not a press.  On a real line both readings need a lost edge -- a slap's
    misread first event means a bounce reopened the contact, whose next closing edge is
    missing; a spike's means its release edge is missing -- and a phantom press would win
    a window for a seat that did not slap, so the slap is the one given up.  A loop on
    time reads the line at the check and counts it.

    lgpio's own debounce (``gpio_set_debounce_micros``)
    is no substitute: it reports an edge once the line kept still for the period and
    stamps it then (``lgPthAlerts.c`` ``xDebWatEvt``: last edge + period), so a bouncing
    switch would lose.  Releases are never delayed.

    >>> d = EdgeDebouncer(lockout_ns=30)
    >>> d.edge(False, 100)  # a press whose first event says "released"
    [(True, 100)]
    >>> d.edge(True, 101), d.edge(False, 104), d.edge(True, 107)  # bounces
    ([], [], [])
    >>> d.deadline_ns(), d.settle(137, level=True)  # 30 after the last bounce: down
    (137, [])
    >>> d.edge(True, 500)  # the next edge after a quiet period is the release
    [(False, 500)]
    >>> c = EdgeDebouncer(lockout_ns=30, confirm_ns=5)
    >>> c.edge(True, 100), c.edge(False, 101), c.deadline_ns()  # a 1 ns spike: a candidate
    ([], [], 106)
    >>> c.settle(106, level=False)  # the line is released at the check: a glitch
    []
    >>> c.edge(True, 200), c.settle(205, level=True)  # pressed: read again 5 later
    ([], [])
    >>> c.deadline_ns(), c.settle(210, level=True)  # still pressed: stamped at its edge
    (210, [(True, 200)])
    """

    lockout_ns: int
    down: bool = False
    reported: bool = False
    confirm_ns: int = 0
    bounce_ns: int | None = BOUNCE_NS
    _start_ns: int | None = None
    _last_ns: int | None = None
    _last_level: bool | None = None
    _stale_before_ns: int | None = None
    _candidate_ns: int | None = None
    _defer_ns: int | None = None
    _run_ns: int | None = None
    _edges: int = 0
    _looked: bool = False
    _waited: bool = False
    _held_ns: int | None = None
    _watch: tuple[int, int] | None = None
    _found_after_ns: int | None = None

    @property
    def waiting(self) -> bool:
        """True while a candidate press waits for its check (see the class docstring)."""
        return self._candidate_ns is not None

    def edge(self, level: bool, t_ns: int) -> list[Transition]:
        """Take one raw edge; return the transitions it causes (none, one or two), in order.

        ``level``: the level the event carries (True = pressed), kept only as evidence;
        ``t_ns``: the edge's ``int`` nanoseconds.
        """
        candidate = self._candidate_ns
        if candidate is not None and self._found_after_ns is not None:
            if t_ns < self._found_after_ns:
                return []  # the glitch's own late callback, part of its reading
            # a press found on the line after a glitch: a real edge explains it instead
            self._candidate_ns = self._defer_ns = self._held_ns = self._found_after_ns = None
            self._run_ns = None
            candidate = None
        if candidate is not None:
            due = self._check_ns(candidate)
            if self._stale_before_ns is not None and t_ns < self._stale_before_ns:
                return []  # already part of a reading (a press found on the line)
            if t_ns < due:
                self._edges += 1
                if self._last_ns is None or t_ns >= self._last_ns:
                    self._last_ns, self._last_level = t_ns, level
                if self._run_ns is not None:
                    self._run_ns = max(self._run_ns, t_ns)
                # a callback arrived: more of the burst may be on its way, so the check
                # starts over -- a look after it was due waits confirm_ns, a line and
                # edges that disagree wait for the missing edge -- and a line whose edges
                # come late is read only once they have stopped coming
                self._looked, self._waited, self._defer_ns = False, False, None
                self._held_ns = None
                return []
            # the check was due and settle() has not run: decide from the edges seen
            decided = self._confirm(self._edges_say_pressed(), stale_before_ns=due)
            return decided + self.edge(level, t_ns)
        out: list[Transition] = []
        start = self._start_ns
        if start is not None:
            end = self._end_ns(start)
            if t_ns < end:
                if self._last_ns is None or t_ns >= self._last_ns:
                    self._last_ns, self._last_level = t_ns, level
                return []
            out += self._close(self._evidence(), end, stale_before_ns=end)
        if self._stale_before_ns is not None and t_ns < self._stale_before_ns:
            return out
        self._watch = None  # a new edge speaks for itself
        if self.confirm_ns > 0 and not self.down:
            self._candidate_ns, self._last_ns, self._last_level = t_ns, t_ns, level
            self._run_ns = t_ns
            self._edges, self._looked, self._waited, self._defer_ns = 1, False, False, None
            self._held_ns = None
            return out
        self.down = not self.down
        self._start_ns, self._last_ns, self._last_level = t_ns, t_ns, None
        return out + self._tell(t_ns)

    def settle(self, now_ns: int, level: bool | None = None) -> list[Transition]:
        """Close a lockout that has ended by ``now_ns``; return the missed transition, if any.

        ``now_ns``: the owner's clock, ``int`` CLOCK_MONOTONIC nanoseconds; ``level``: the
        line's real level read now (True = pressed), or ``None`` to use the last bounce's
        level (else the believed state).  A missed transition that a bounce inside the
        lockout showed is stamped at the lockout's end; one no edge seen explains (its
        callback is still on its way, or the kernel lost it) is stamped ``now_ns``, when it
        was read, so a press is never stamped earlier than the line could have shown it.
        Returns ``[]`` while the lockout runs or when none is pending.  A candidate press
        whose check is due is decided by ``level`` (``None``: what the edges seen say) and
        the edges seen, as the class docstring says: the press stamped at its first edge,
        nothing for a glitch, or -- a pressed line no edge seen explains, after waiting for
        one -- a press stamped ``now_ns``; if its lockout has ended by ``now_ns`` too, that
        is closed by the same reading.
        """
        candidate = self._candidate_ns
        if candidate is not None:
            due = self._check_ns(candidate)
            if now_ns < due or now_ns < (self._defer_ns or now_ns):
                return []
            if not self._looked:
                self._looked = True
                if now_ns > due:
                    # the first look is late, so were the callbacks: the rest of this
                    # burst may still be on its way; give it confirm_ns to arrive
                    self._defer_ns = now_ns + self.confirm_ns
                    return []
            odd = self._edges % 2 == 1  # the edges seen end where they started, or not
            seen = self._edges_say_pressed() if level is None else level
            held_ns, self._held_ns = self._held_ns, None  # the first pressed reading's time
            pending = (seen and not odd) or (not seen and self._edges_say_pressed())
            if pending and not self._waited:
                # the line and the edges disagree: an edge is still on its way (the one
                # that let go of a slap, or a new press after a glitch) or lost; wait for
                # it rather than drop a real slap or take a glitch for one
                self._waited = True
                self._defer_ns = now_ns + self.lockout_ns
                return []
            if seen and held_ns is None:
                # pressed: read again confirm_ns later.  A callback in between starts the
                # check over; so a spike read while its release edge was still on its way
                # (the callbacks less than confirm_ns late) is not taken for a press
                self._held_ns = now_ns
                self._defer_ns = now_ns + self.confirm_ns
                return []
            # pressed with an even number of edges, and no edge came within the wait: the
            # kernel dropped one (gpio-sim drops an edge that comes while the line's
            # interrupt is masked for the one before's threaded handler), so the press is
            # stamped by the same rule as one whose edges agree
            # a glitch's own late callbacks are stamped before its check; later ones are new
            decided = self._confirm(seen, stale_before_ns=now_ns if seen else due)
            if not seen:
                # the line is read once more a lockout later: an edge the kernel dropped
                # may have ended the burst pressed with nothing left to say so
                self._watch = (candidate, now_ns)
            if self._start_ns is None:
                return decided
            return decided + self.settle(now_ns, level)
        start = self._start_ns
        if start is None and self._watch is not None:
            return self._look_again(now_ns, level)
        if start is None or now_ns < self._end_ns(start):
            return []
        end = self._end_ns(start)
        if level is None:
            return self._close(self._evidence(), end, stale_before_ns=end)
        stamp = end if level == self._evidence() else now_ns
        if level and not self.down and self.confirm_ns > 0:
            # a press found on the line is confirmed like any other: a glitch read now
            # must not become one; stamped as found, reported once the check agrees
            self._start_ns = None
            self._stale_before_ns = now_ns
            self._candidate_ns, self._last_ns, self._last_level = stamp, now_ns, True
            self._run_ns = None
            self._edges, self._looked, self._waited, self._defer_ns = 1, True, False, None
            self._held_ns = None
            return []
        return self._close(level, stamp, stale_before_ns=now_ns)

    def _look_again(self, now_ns: int, level: bool | None) -> list[Transition]:
        """The reading a lockout after a glitch (``_watch``: the glitch's first edge and the
        reading that found it released, ``int`` ns): a line pressed now with no edge since
        is a press whose last edge the kernel dropped -- a candidate found on the line,
        confirmed like any other and stamped ``bounce_ns`` before that first reading, or at
        the burst's first edge if later (class docstring, "they disagree")."""
        assert self._watch is not None
        first, read = self._watch
        if now_ns < read + self.lockout_ns:
            return []
        self._watch = None
        if not level or self.down or self.confirm_ns <= 0:
            return []
        stamp = first if self.bounce_ns is None else max(first, read - self.bounce_ns)
        # no edge explains the line (0 edges: they disagree), so it first waits a lockout
        # for a late one; an edge stamped after the glitch's reading that comes meanwhile
        # is the line's own news and starts a candidate of its own (:meth:`edge`)
        self._stale_before_ns = read
        self._candidate_ns, self._last_ns, self._last_level = stamp, now_ns, True
        self._run_ns, self._found_after_ns = None, read
        self._edges, self._looked, self._waited, self._defer_ns = 0, True, False, None
        self._held_ns = None
        return []

    def resync(self, t_ns: int) -> None:
        """Distrust the state after a failure at ``t_ns``: start a lockout there, so the
        next :meth:`settle` reads the line and reports what the lost edge changed (stamped
        when read: late, never early)."""
        self._candidate_ns = self._defer_ns = self._held_ns = self._watch = None
        self._found_after_ns = None
        self._start_ns, self._last_ns, self._last_level = t_ns, t_ns, None

    def deadline_ns(self) -> int | None:
        """When a candidate press is checked or the running lockout ends (``int`` ns): call
        :meth:`settle` then; or ``None``."""
        if self._candidate_ns is not None:
            return max(self._check_ns(self._candidate_ns), self._defer_ns or 0)
        if self._start_ns is None and self._watch is not None:
            return self._watch[1] + self.lockout_ns
        return None if self._start_ns is None else self._end_ns(self._start_ns)

    def _check_ns(self, candidate: int) -> int:
        """When candidate press ``candidate`` (its first edge, ns) is checked: ``confirm_ns``
        after its last edge (a line that never keeps still is never decided: not a
        press)."""
        last = candidate if self._last_ns is None else self._last_ns
        return last + self.confirm_ns

    def _confirm(self, level: bool, *, stale_before_ns: int) -> list[Transition]:
        """Decide the candidate press with the line at ``level``: pressed, report it at its
        first edge, or ``bounce_ns`` before its last edge if that is later (the stamp's
        bound, class docstring), and run its lockout from there; released, drop it (edges
        stamped before ``stale_before_ns`` are ignored from now on)."""
        candidate, run = self._candidate_ns, self._run_ns
        self._candidate_ns = self._defer_ns = self._run_ns = self._held_ns = None
        self._found_after_ns = None
        if candidate is None:
            return []
        if run is not None and self.bounce_ns is not None:
            candidate = max(candidate, run - self.bounce_ns)
        if not level:
            self._start_ns = self._last_ns = self._last_level = None
            self._stale_before_ns = stale_before_ns
            return []
        self.down = True
        self._start_ns, self._last_level = candidate, None
        return self._tell(candidate)

    def _end_ns(self, start: int) -> int:
        """The lockout's end: ``lockout_ns`` after the last bounce (a contact that chatters
        longer than one lockout, e.g. a release on a worn microswitch, is not taken for a
        fresh press), but never more than :data:`MAX_LOCKOUTS` lockouts after its first
        edge, so a line that never stops chattering is still settled."""
        last = start if self._last_ns is None else self._last_ns
        return min(last, start + (MAX_LOCKOUTS - 1) * self.lockout_ns) + self.lockout_ns

    def _edges_say_pressed(self) -> bool:
        """Whether a candidate press's edges say the line is pressed: an odd number of them
        (each is a change, from released) and the last one's level pressed (read after a
        quiet line, so right).  Both, so a glitch whose event was misread is not a press."""
        return self._edges % 2 == 1 and bool(self._last_level)

    def _evidence(self) -> bool:
        """Where the line settled as far as the edges tell: the last bounce's level, else
        the believed state."""
        return self.down if self._last_level is None else self._last_level

    def _close(self, level: bool, stamp_ns: int, *, stale_before_ns: int) -> list[Transition]:
        """End the lockout with the line at ``level`` (a change stamped ``stamp_ns``); edges
        stamped before ``stale_before_ns`` are ignored from now on."""
        self._start_ns = self._last_ns = self._last_level = None
        self._stale_before_ns = stale_before_ns
        if level == self.down:
            return []
        self.down = level
        return self._tell(stamp_ns)

    def _tell(self, t_ns: int) -> list[Transition]:
        """Report ``down`` at ``t_ns`` if it differs from what was last reported."""
        if self.down == self.reported:
            return []
        self.reported = self.down
        return [(self.down, t_ns)]


class EdgeButtonGroup(ClosesOnExit, Generic[K]):
    """Buttons keyed by ``K`` (a seat, a key name), each with its own :class:`EdgeDebouncer`.

    The machinery :class:`~drivers.slap.SlapButtons` and :class:`~drivers.keys.HandKeys`
    share: one re-entrant lock, a closed flag, idempotent :meth:`close`, a context manager
    (:class:`~drivers.closing.ClosesOnExit`), the ticker :meth:`_settle`.  A subclass
    validates its arguments, opens its buttons with :meth:`_open`, says what a debounced
    change means in :meth:`_report` (posting through :meth:`_deliver`) and may add timers
    in :meth:`_tick`.  Raw edges arrive on gpiozero's callback thread, are debounced under
    the lock and reported with the lock held; nothing is reported once :meth:`close`
    began.  A ``post`` that raises is logged and the next event still goes out.

    ``lockout_ns``: ``int`` nanoseconds of bounce lockout after each accepted edge;
    ``device`` and ``seat`` name the group in errors and log lines; ``confirm_ns``: ``int``
    nanoseconds a press must be confirmed for (:class:`EdgeDebouncer`; 0: none);
    ``wake``: called (thread-safe, quick, no arguments) when a press starts waiting for
    its check, so the owner's loop runs :meth:`_settle` soon (a waiting press posts
    nothing that would wake it); ``None`` if the owner calls the ticker on its own;
    ``bounce_ns``: ``int`` nanoseconds, the stamp's bound (:class:`EdgeDebouncer`;
    ``None``: none).  Raises :class:`DriverValueError` for a ``lockout_ns``,
    ``confirm_ns`` or ``bounce_ns`` that is not an ``int`` >= 0.
    """

    def __init__(
        self,
        lockout_ns: int,
        *,
        device: str,
        seat: int | None = None,
        confirm_ns: int = 0,
        wake: Callable[[], None] | None = None,
        bounce_ns: int | None = BOUNCE_NS,
    ) -> None:
        checked = [("lockout_ns", lockout_ns), ("confirm_ns", confirm_ns)]
        if bounce_ns is not None:
            checked.append(("bounce_ns", bounce_ns))
        for name, value in checked:
            if not is_int(value) or value < 0:
                raise DriverValueError(
                    device, f"{name} must be an int >= 0 nanoseconds, got {value!r}", seat=seat
                )
        self._lockout_ns = lockout_ns
        self._confirm_ns = confirm_ns
        self._bounce_ns = bounce_ns
        self._wake = wake
        self._device = device
        self._where = device if seat is None else f"seat {seat + 1} {device}"
        self._failures = _FailureLog()
        self._lock = threading.RLock()
        self._closed = False
        self._buttons: dict[K, EdgeButton] = {}
        self._debouncers: dict[K, EdgeDebouncer] = {}

    def close(self) -> None:
        """Release every pin; idempotent.  No event is posted after it returns."""
        with self._lock:
            self._closed = True
            buttons = list(self._buttons.values())
        for button in buttons:
            button.close()

    @abstractmethod
    def _report(self, key: K, transitions: list[Transition]) -> None:
        """Post ``key``'s debounced ``transitions`` (in order); called with the lock held."""

    def _tick(self, now_ns: int) -> int | None:
        """A subclass's own timers at ``now_ns`` (lock held); next deadline or ``None``."""
        return None

    def _deliver(self, post: Callable[[object], None], event: object) -> None:
        """``post(event)``; an exception is logged, not raised (the next event still goes)."""
        try:
            post(event)
        except Exception:
            self._failures.report(self._where, f"post({event!r})")

    def _open(self, wiring: Iterable[tuple[K, Pin, int, str]], pin_factory: Any) -> None:
        """Open one button per ``(key, pin, seat, device)`` of ``wiring``, in order.

        ``seat`` and ``device`` name the button in errors (see :func:`open_edge_button`);
        ``pin_factory``: a gpiozero pin factory or ``None``, resolved by
        :func:`drivers.pin_factory.resolve_pin_factory` (refuses an unfair factory and never
        lets gpiozero fall back on its own).  Each debouncer starts believing the line's
        level as read when its button opens.  If a button cannot be opened, or ``wiring``
        itself raises (a subclass checking each entry as it goes), the buttons already
        opened are closed and the error propagates.
        """
        try:
            factory = resolve_pin_factory(pin_factory)
            for key, pin, seat, device in wiring:
                with self._lock:  # an edge arriving now waits until the belief is set
                    debouncer = EdgeDebouncer(
                        self._lockout_ns, confirm_ns=self._confirm_ns, bounce_ns=self._bounce_ns
                    )
                    self._debouncers[key] = debouncer
                    button = open_edge_button(
                        pin, self._edge_handler(key), seat=seat, device=device, pin_factory=factory
                    )
                    self._buttons[key] = button
                    try:
                        debouncer.down = bool(button.is_pressed)
                    except Exception as exc:
                        raise DeviceUnavailableError(
                            f"{device} at {pin_label(pin)}",
                            f"cannot read the line ({exc})",
                            seat=seat,
                        ) from exc
        except BaseException:
            self.close()
            raise

    def _wired(self, key: K, *, device: str, seat: int) -> EdgeButton | None:
        """``key``'s button, or ``None`` if it has none.

        Raises :class:`DriverClosedError` (``device`` and ``seat`` name it) after
        :meth:`close`.
        """
        if self._closed:
            raise DriverClosedError(device, "used after close()", seat=seat)
        return self._buttons.get(key)

    def _settle(self, now_ns: int) -> int | None:
        """The ticker: close the lockouts that ended, run :meth:`_tick`; next deadline.

        ``now_ns``: the owner's clock, ``int`` CLOCK_MONOTONIC nanoseconds.  For each button
        whose lockout has ended, reads its line and reconciles
        (:meth:`EdgeDebouncer.settle`); lines are read only then.  Returns the earliest
        ``int`` ns at which calling again may post something, or ``None`` (also after
        :meth:`close`).  Raises :class:`DriverValueError` for a ``now_ns`` that is not an
        ``int``; a failure for one button is logged and the others still settle.
        """
        if not is_int(now_ns):
            raise DriverValueError(
                self._device, f"now_ns must be an int of nanoseconds, got {now_ns!r}"
            )
        with self._lock:
            if self._closed:
                return None
            deadlines: list[int] = []
            for key, debouncer in self._debouncers.items():
                try:
                    due = debouncer.deadline_ns()
                    if due is not None and now_ns >= due:
                        level = self._read_line(key)
                        self._report(key, debouncer.settle(now_ns, level))
                        due = debouncer.deadline_ns()
                except Exception:
                    self._failures.report(self._where, "settle")
                    due = debouncer.deadline_ns()
                if due is not None:
                    deadlines.append(due)
            try:
                tick = self._tick(now_ns)
            except Exception:
                self._failures.report(self._where, "a timer")
                tick = None
            if tick is not None:
                deadlines.append(tick)
            return min(deadlines, default=None)

    def _read_line(self, key: K) -> bool | None:
        """``key``'s line level now (True = pressed), or ``None`` if it cannot be read."""
        button = self._buttons.get(key)
        if button is None:
            return None
        try:
            return bool(button.is_pressed)
        except Exception:
            self._failures.report(self._where, f"reading {key!r}'s line")
            return None

    def _edge_handler(self, key: K) -> EdgeCallback:
        """The raw-edge callback for ``key``: debounce, then :meth:`_report`; ``wake`` when
        a press starts waiting for its check.

        If the debouncer raises, its state is distrusted (:meth:`EdgeDebouncer.resync`) and
        the exception goes on to :class:`EdgeButton`, which logs it.
        """

        def on_edge(level: bool, t_ns: int) -> None:
            with self._lock:
                if self._closed:
                    return
                debouncer = self._debouncers[key]
                waiting = debouncer.waiting
                try:
                    transitions = debouncer.edge(level, t_ns)
                except Exception:
                    debouncer.resync(t_ns)  # settle() then reads the line; EdgeButton logs
                    raise
                self._report(key, transitions)
                if debouncer.waiting and not waiting and self._wake is not None:
                    try:
                        self._wake()
                    except Exception:
                        self._failures.report(self._where, "wake()")

        return on_edge


def drive_at(
    mock: Any, level: bool, t_ns: int, *, reads: bool | None = None, deliver: bool = True
) -> None:
    """Set gpiozero mock pin ``mock`` to ``level`` (True = high) at ``t_ns`` and fire its edge.

    Works on any ``MockPin``: records the state change like ``drive_low()``/``drive_high()``
    but with ticks ``t_ns / 1e9`` instead of ``time.monotonic()``, then calls
    ``PiPin._call_when_changed(ticks, state)``, so gpiozero's handler chain
    (``DigitalInputDevice._pin_changed``, as in ``Button``) runs exactly as with lgpio's
    kernel timestamps (docs/hardware-facts.md, "Tests").  ``reads``: the level the event carries
    (True = high), default ``level``; pass the other one to play the kernel's late read of
    a bouncing contact (the line still ends at ``level``); ``deliver=False`` moves the line
    and fires nothing, for a callback lgpio hands over late (then :func:`fire_edge`).
    Handlers run synchronously in the calling thread.  No edge fires if the line is already
    at ``level``, the pin is not an input, or its edge detection excludes this direction.
    Raises
    :class:`DriverValueError` for a ``t_ns`` that is not an ``int`` or a ``mock`` that is
    not a ``MockPin``.
    """
    if not isinstance(mock, MockPin):
        raise DriverValueError(
            f"mock pin {mock!r}", f"is a {type(mock).__name__}, not a gpiozero MockPin"
        )
    if not is_int(t_ns):
        raise DriverValueError(
            f"mock pin {mock.info.name}", f"t_ns must be an int of nanoseconds, got {t_ns!r}"
        )
    if mock.function != "input" or bool(mock.state) == level:
        return
    ticks = ns_to_ticks(t_ns)
    mock._state = level
    mock.states.append(PinState(ticks - mock._last_change, level))
    mock._last_change = ticks
    if deliver:
        _fire(mock, ticks, level if reads is None else bool(reads))


def _fire(mock: Any, ticks: float, state: bool) -> None:
    """Call ``mock``'s edge handler chain with ``(ticks, state)`` if it listens to that edge."""
    if mock.edges in ("both", "rising" if state else "falling") and mock.when_changed is not None:
        PiPin._call_when_changed(mock, ticks, state)


class EdgeMockPin(MockPin):  # type: ignore[misc]
    """A gpiozero ``MockPin`` with :meth:`inject`: change level at a chosen time.

    The pin class of :func:`mock_pin_factory`.  :func:`edge` works on plain ``MockPin`` too;
    this class only adds the method form.  ``drive_low()``/``drive_high()`` still work
    (ticks = ``time.monotonic()`` at the call).
    """

    def inject(
        self, level: bool, t_ns: int, *, reads: bool | None = None, deliver: bool = True
    ) -> None:
        """Set the line to ``level`` (True = high) at ``t_ns`` (``int`` ns): :func:`drive_at`."""
        drive_at(self, level, t_ns, reads=reads, deliver=deliver)


def mock_pin_factory() -> Any:
    """Return a new gpiozero ``MockFactory`` whose pins are :class:`EdgeMockPin`.

    Pass it as ``pin_factory=`` to :class:`~drivers.slap.SlapButtons` /
    :class:`~drivers.keys.HandKeys` (simulator) or set it as ``Device.pin_factory`` (tests),
    then drive pins with :func:`edge`.  A plain ``MockFactory()`` works with :func:`edge` too.
    """
    return MockFactory(pin_class=EdgeMockPin)


def edge(
    pin_factory: Any,
    pin: Pin,
    pressed: bool,
    t_ns: int,
    *,
    reads: bool | None = None,
    deliver: bool = True,
) -> None:
    """Press or release the button wired to ``pin`` at ``t_ns``, as the kernel would report.

    ``pin_factory``: a gpiozero ``MockFactory`` (e.g. from :func:`mock_pin_factory`);
    ``pin``: the pin name the button was opened with; ``pressed``: True drives the line low
    (the buttons are wired to GND with the pull-up), False lets it go high; ``t_ns``: the
    edge's ``int`` CLOCK_MONOTONIC nanoseconds; ``reads``: whether the event *says* pressed,
    default ``pressed`` -- pass ``not pressed`` for a wrong-level event, as the kernel's late
    read of a bouncing contact gives (docs/hardware-facts.md); ``deliver=False``: move the line
    only and deliver the event later with :func:`fire_edge`.  The button's handlers run
    synchronously in the calling thread (see :func:`drive_at`).  Raises
    :class:`DriverValueError` if ``pin_factory`` is not a mock factory, ``pin`` is not a pin
    name or ``t_ns`` not an int.
    """
    mock = _mock_pin(pin_factory, pin)
    drive_at(mock, not pressed, t_ns, reads=None if reads is None else not reads, deliver=deliver)


def fire_edge(pin_factory: Any, pin: Pin, reads: bool, t_ns: int) -> None:
    """Deliver an edge event stamped ``t_ns`` that says ``reads`` (pressed), line untouched.

    For an event whose callback lgpio hands over late (after :func:`edge` with
    ``deliver=False`` moved the line), or an event of a bounce the line has already left.
    ``pin_factory``, ``pin``, ``t_ns`` as for :func:`edge`; the handlers run synchronously
    if the pin is an input listening to that edge.  Raises :class:`DriverValueError` as
    :func:`edge` does.
    """
    mock = _mock_pin(pin_factory, pin)
    if not is_int(t_ns):
        raise DriverValueError(
            f"mock pin {pin_label(pin)}", f"t_ns must be an int of nanoseconds, got {t_ns!r}"
        )
    if mock.function == "input":
        _fire(mock, ns_to_ticks(t_ns), not reads)


def _mock_pin(pin_factory: Any, pin: Pin) -> Any:
    """``pin_factory.pin(pin)`` of a MockFactory; DriverValueError otherwise."""
    if not isinstance(pin_factory, MockFactory):
        raise DriverValueError(
            f"mock pin {pin_label(pin)}",
            f"cannot drive a pin of {type(pin_factory).__name__}; use drivers.mock_pin_factory()",
        )
    try:
        return pin_factory.pin(pin)
    except PinInvalidPin as exc:
        raise DriverValueError(f"mock pin {pin_label(pin)}", f"cannot drive: {exc}") from exc
