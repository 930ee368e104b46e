"""GPIO plumbing shared by slap buttons and handheld keys, and the MockFactory seam.

Four pieces, none of them game-aware:

- :class:`EdgeButton`: a gpiozero input device (pull-up, ``bounce_time=None``) that hands
  every edge to a callback with the edge's own timestamp.  gpiozero delivers an edge as
  ``_pin_changed(ticks, state)``; on the lgpio pin factory ``ticks`` is the kernel's
  CLOCK_MONOTONIC edge time in float seconds (hardware-facts.md, "gpiozero and slap
  timestamps").  We override ``_pin_changed`` rather than assign ``pin.when_changed``, which
  would replace the device's own handler and is held only by a weak reference.
- :class:`EdgeDebouncer`: debounce by edge timestamps alone (no clock read, no sleep): the
  first edge of a burst counts and later edges within ``lockout_ns`` of it are swallowed.
- :class:`EdgeButtonGroup`: the machinery of a group of such buttons keyed by seat or key
  name (one lock, a closed flag, a debouncer per button, idempotent ``close()``), the base
  of :class:`~drivers.slap.SlapButtons` and :class:`~drivers.keys.HandKeys`.
- The simulator/test seam: :func:`edge` drives a gpiozero ``MockFactory`` pin to
  pressed/released at a chosen ``t_ns``, so gpiozero's real input-device code path runs with
  that tick (:func:`drive_at`; :func:`mock_pin_factory` builds a factory of
  :class:`EdgeMockPin`, which adds the same as a method).

Times are ``int`` CLOCK_MONOTONIC nanoseconds throughout.
"""

from __future__ import annotations

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
from drivers.errors import DeviceUnavailableError, DriverClosedError, DriverValueError

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
    "mock_pin_factory",
    "ns_to_ticks",
    "open_edge_button",
    "pin_label",
    "ticks_to_ns",
]

NS_PER_S = 1_000_000_000
"""Nanoseconds per second."""

Pin = int | str
"""A pin as gpiozero names it: ``17`` (= ``"GPIO17"``), ``"GPIO17"``, ``"BOARD11"``, ..."""

Transition = tuple[bool, int]
"""A debounced change of a button: ``(pressed, t_ns)``; ``pressed`` False is a release."""

EdgeCallback = Callable[[bool, int], None]
"""Called with ``(pressed, t_ns)`` for every raw edge, before any debounce."""

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
    if isinstance(pin, int) and not isinstance(pin, bool):
        return f"GPIO{pin}"
    return str(pin)


class EdgeButton(DigitalInputDevice):  # type: ignore[misc]
    """A gpiozero button that reports each edge with its own timestamp.

    ``pin``: a gpiozero pin name; ``on_edge(pressed, t_ns)`` is called on gpiozero's callback
    thread for every edge (``pressed``: the line is at the active level, i.e. low with the
    pull-up; ``t_ns``: the edge's ticks converted by :func:`ticks_to_ns`), then gpiozero's own
    handling runs (``is_active``, ``when_activated``).  Always ``pull_up=True`` and
    ``bounce_time=None``: lgpio's bounce filter would stamp the last bounce, not the first
    edge.  Raises what gpiozero raises; use :func:`open_edge_button` for driver errors.

    It is ``gpiozero.Button`` without ``HoldMixin`` (``Button`` = ``HoldMixin`` +
    ``DigitalInputDevice``; ``_pin_changed`` is ``DigitalInputDevice``'s): ``Button`` starts
    a hold thread per button that wakes every 100 ms and makes ``close()`` of a held button
    wait up to ``hold_time`` (1 s).  Nothing here uses ``when_held``.
    """

    def __init__(self, pin: Pin, *, on_edge: EdgeCallback, pin_factory: Any = None) -> None:
        self._on_edge = on_edge
        super().__init__(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)

    @property
    def is_pressed(self) -> bool:
        """Whether the line is at the pressed (active, low) level now: ``Button.is_pressed``."""
        return bool(self.is_active)

    def _pin_changed(self, ticks: float, state: int) -> None:
        """gpiozero's edge hook: forward ``(pressed, t_ns)``, then let gpiozero update its state."""
        self._on_edge(bool(self._state_to_value(state)), ticks_to_ns(ticks))
        super()._pin_changed(ticks, state)


def open_edge_button(
    pin: Pin, on_edge: EdgeCallback, *, seat: int, device: str, pin_factory: Any = None
) -> EdgeButton:
    """Open an :class:`EdgeButton`, turning gpiozero's errors into driver errors.

    ``device`` names it in messages, e.g. ``"slap button"``; the message adds the pin.
    Raises :class:`DriverValueError` for something that is not a pin name and
    :class:`DeviceUnavailableError` for a pin in use, no usable pin factory (lgpio missing,
    not a Pi) or any other failure to open.
    """
    where = f"{device} at {pin_label(pin)}"
    try:
        return EdgeButton(pin, on_edge=on_edge, pin_factory=pin_factory)
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
        raise DeviceUnavailableError(where, f"cannot open ({exc})", seat=seat) from exc


@dataclass(slots=True)
class EdgeDebouncer:
    """Debounce one button by edge timestamps only (no clock read, no sleep).

    ``lockout_ns``: ``int`` nanoseconds after an accepted edge during which later edges are
    bounces (architecture.md, "Slap arbitration" item 5; default 30 ms in the drivers).

    :meth:`edge` takes every raw edge ``(pressed, t_ns)`` and returns the transitions to
    report, in order:

    - an edge within ``lockout_ns`` of the last accepted edge (or earlier than it) is
      swallowed: nothing is reported; it is remembered for :meth:`settle`;
    - otherwise the edge is accepted and starts a new lockout; a press reports
      ``(True, t_ns)``, preceded by a release if we still believed the button down (its
      time: the last swallowed release edge, else ``t_ns``); a release reports
      ``(False, t_ns)`` if we believed it down, else nothing.

    Reported transitions alternate press/release, starting with a press, so a button held
    since before it was opened reports nothing until it is pressed again.  A tap shorter
    than the lockout swallows its own release edge; :meth:`settle`, called by the owner
    with its clock's ``now_ns``, reports it once the line has been quiet for a lockout.

    >>> d = EdgeDebouncer(lockout_ns=30)
    >>> d.edge(True, 100), d.edge(False, 101), d.edge(True, 102)
    ([(True, 100)], [], [])
    >>> d.edge(False, 200)
    [(False, 200)]
    """

    lockout_ns: int
    down: bool = False
    _accepted_ns: int | None = None
    _swallowed: Transition | None = None
    _swallowed_release_ns: int | None = None

    def edge(self, pressed: bool, t_ns: int) -> list[Transition]:
        """Take one raw edge; return the debounced transitions it causes (maybe none)."""
        if self._accepted_ns is not None and t_ns - self._accepted_ns < self.lockout_ns:
            self._swallowed = (pressed, t_ns)
            if not pressed:
                self._swallowed_release_ns = t_ns
            return []
        out: list[Transition] = []
        if pressed:
            if self.down:
                released = self._swallowed_release_ns
                out.append((False, t_ns if released is None else released))
            out.append((True, t_ns))
        elif self.down:
            out.append((False, t_ns))
        self.down = pressed
        self._accepted_ns = t_ns
        self._swallowed = None
        self._swallowed_release_ns = None
        return out

    def settle(self, now_ns: int) -> list[Transition]:
        """Report a change the lockout swallowed, once the line has been quiet long enough.

        ``now_ns``: the owner's clock, ``int`` CLOCK_MONOTONIC nanoseconds.  If the last
        swallowed edge is at least ``lockout_ns`` before ``now_ns`` and leaves the line in
        the other state than we believe, report it with that edge's time (and make it the
        accepted edge).  Returns the transitions (zero or one).
        """
        if self._swallowed is None:
            return []
        pressed, t_ns = self._swallowed
        if now_ns - t_ns < self.lockout_ns:
            return []
        out: list[Transition] = []
        if pressed != self.down:
            out.append((pressed, t_ns))
            self.down = pressed
            self._accepted_ns = t_ns
        self._swallowed = None
        self._swallowed_release_ns = None
        return out

    def deadline_ns(self) -> int | None:
        """When :meth:`settle` may next report something (``int`` ns), or ``None``."""
        if self._swallowed is None:
            return None
        return self._swallowed[1] + self.lockout_ns


class EdgeButtonGroup(ClosesOnExit, Generic[K]):
    """Buttons keyed by ``K`` (a seat, a key name), each with its own :class:`EdgeDebouncer`.

    The machinery :class:`~drivers.slap.SlapButtons` and :class:`~drivers.keys.HandKeys`
    share: one re-entrant lock, a closed flag, idempotent :meth:`close`, a context manager
    (:class:`~drivers.closing.ClosesOnExit`).  A subclass validates its arguments, opens
    its buttons with :meth:`_open` and says what a debounced change means in
    :meth:`_report`.  Raw edges arrive on gpiozero's callback thread, are debounced under
    the lock and reported with the lock held; nothing is reported once :meth:`close` began.

    ``lockout_ns``: ``int`` nanoseconds of bounce lockout after each accepted edge;
    ``device`` and ``seat`` name the group in its error.  Raises :class:`DriverValueError`
    for a ``lockout_ns`` that is not an ``int`` >= 0.
    """

    def __init__(self, lockout_ns: int, *, device: str, seat: int | None = None) -> None:
        if not isinstance(lockout_ns, int) or isinstance(lockout_ns, bool) or lockout_ns < 0:
            raise DriverValueError(
                device, f"lockout_ns must be an int >= 0 nanoseconds, got {lockout_ns!r}", seat=seat
            )
        self._lockout_ns = lockout_ns
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

    def _open(self, wiring: Iterable[tuple[K, Pin, int, str]], pin_factory: Any) -> None:
        """Open one button per ``(key, pin, seat, device)`` of ``wiring``, in order.

        ``seat`` and ``device`` name the button in errors (see :func:`open_edge_button`);
        ``pin_factory``: a gpiozero pin factory or ``None`` for gpiozero's default.  If a
        button cannot be opened, or ``wiring`` itself raises (a subclass checking each
        entry as it goes), the buttons already opened are closed and the error propagates.
        """
        try:
            for key, pin, seat, device in wiring:
                self._debouncers[key] = EdgeDebouncer(self._lockout_ns)
                self._buttons[key] = open_edge_button(
                    pin, self._edge_handler(key), seat=seat, device=device, pin_factory=pin_factory
                )
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
        """Report what the lockouts swallowed (:meth:`EdgeDebouncer.settle`); next deadline.

        ``now_ns``: the owner's clock, ``int`` CLOCK_MONOTONIC nanoseconds.  Returns the
        earliest ``int`` ns at which calling again may report something, or ``None`` (also
        after :meth:`close`).
        """
        with self._lock:
            if self._closed:
                return None
            deadlines: list[int] = []
            for key, debouncer in self._debouncers.items():
                self._report(key, debouncer.settle(now_ns))
                deadline = debouncer.deadline_ns()
                if deadline is not None:
                    deadlines.append(deadline)
            return min(deadlines, default=None)

    def _edge_handler(self, key: K) -> EdgeCallback:
        """The raw-edge callback for ``key``: debounce, then :meth:`_report`."""

        def on_edge(pressed: bool, t_ns: int) -> None:
            with self._lock:
                if self._closed:
                    return
                self._report(key, self._debouncers[key].edge(pressed, t_ns))

        return on_edge


def drive_at(mock: Any, level: bool, t_ns: int) -> None:
    """Set gpiozero mock pin ``mock`` to ``level`` (True = high) at ``t_ns`` and fire its edge.

    Works on any ``MockPin``: records the state change like ``drive_low()``/``drive_high()``
    but with ticks ``t_ns / 1e9`` instead of ``time.monotonic()``, then calls
    ``PiPin._call_when_changed(ticks, state)``, so gpiozero's handler chain
    (``DigitalInputDevice._pin_changed``, as in ``Button``) runs exactly as with lgpio's
    kernel timestamps (hardware-facts.md, "Tests").  Handlers run synchronously in the
    calling thread.  No edge fires if the line is already at ``level``, the pin is not an
    input, or its edge detection excludes this direction.  Raises :class:`DriverValueError`
    for a ``t_ns`` that is not an ``int`` or a ``mock`` that is not a ``MockPin``.
    """
    if not isinstance(mock, MockPin):
        raise DriverValueError(
            f"mock pin {mock!r}", f"is a {type(mock).__name__}, not a gpiozero MockPin"
        )
    if not isinstance(t_ns, int) or isinstance(t_ns, bool):
        raise DriverValueError(
            f"mock pin {mock.info.name}", f"t_ns must be an int of nanoseconds, got {t_ns!r}"
        )
    if mock.function != "input" or bool(mock.state) == level:
        return
    ticks = ns_to_ticks(t_ns)
    mock._state = level
    mock.states.append(PinState(ticks - mock._last_change, level))
    mock._last_change = ticks
    if mock.edges in ("both", "rising" if level else "falling") and mock.when_changed is not None:
        PiPin._call_when_changed(mock, ticks, level)


class EdgeMockPin(MockPin):  # type: ignore[misc]
    """A gpiozero ``MockPin`` with :meth:`inject`: change level at a chosen time.

    The pin class of :func:`mock_pin_factory`.  :func:`edge` works on plain ``MockPin`` too;
    this class only adds the method form.  ``drive_low()``/``drive_high()`` still work
    (ticks = ``time.monotonic()`` at the call).
    """

    def inject(self, level: bool, t_ns: int) -> None:
        """Set the line to ``level`` (True = high) at ``t_ns`` (``int`` ns): :func:`drive_at`."""
        drive_at(self, level, t_ns)


def mock_pin_factory() -> Any:
    """Return a new gpiozero ``MockFactory`` whose pins are :class:`EdgeMockPin`.

    Pass it as ``pin_factory=`` to :class:`~drivers.slap.SlapButtons` /
    :class:`~drivers.keys.HandKeys` (simulator) or set it as ``Device.pin_factory`` (tests),
    then drive pins with :func:`edge`.  A plain ``MockFactory()`` works with :func:`edge` too.
    """
    return MockFactory(pin_class=EdgeMockPin)


def edge(pin_factory: Any, pin: Pin, pressed: bool, t_ns: int) -> None:
    """Press or release the button wired to ``pin`` at ``t_ns``, as the kernel would report.

    ``pin_factory``: a gpiozero ``MockFactory`` (e.g. from :func:`mock_pin_factory`);
    ``pin``: the pin name the button was opened with; ``pressed``: True drives the line low
    (the buttons are wired to GND with the pull-up), False lets it go high; ``t_ns``: the
    edge's ``int`` CLOCK_MONOTONIC nanoseconds.  The button's handlers run synchronously in
    the calling thread (see :func:`drive_at`).  Raises :class:`DriverValueError` if
    ``pin_factory`` is not a mock factory, ``pin`` is not a pin name or ``t_ns`` not an int.
    """
    if not isinstance(pin_factory, MockFactory):
        raise DriverValueError(
            f"mock pin {pin_label(pin)}",
            f"cannot drive a pin of {type(pin_factory).__name__}; use drivers.mock_pin_factory()",
        )
    try:
        mock = pin_factory.pin(pin)
    except PinInvalidPin as exc:
        raise DriverValueError(f"mock pin {pin_label(pin)}", f"cannot drive: {exc}") from exc
    drive_at(mock, not pressed, t_ns)
