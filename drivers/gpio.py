"""GPIO plumbing shared by slap buttons and handheld keys, and the MockFactory seam.

Three pieces, none of them game-aware:

- :class:`EdgeButton`: a gpiozero ``Button`` (pull-up, ``bounce_time=None``) that hands every
  edge to a callback with the edge's own timestamp.  gpiozero delivers an edge as
  ``Button._pin_changed(ticks, state)``; on the lgpio pin factory ``ticks`` is the kernel's
  CLOCK_MONOTONIC edge time in float seconds (hardware-facts.md, "gpiozero and slap
  timestamps").  We override ``_pin_changed`` rather than assign ``pin.when_changed``, which
  would replace Button's own handler and is held only by a weak reference.
- :class:`EdgeDebouncer`: debounce by edge timestamps alone (no clock read, no sleep): the
  first edge of a burst counts and later edges within ``lockout_ns`` of it are swallowed.
- The simulator/test seam: :func:`mock_pin_factory` builds a gpiozero ``MockFactory`` whose
  pins are :class:`EdgeMockPin`; :func:`edge` drives one of its pins to pressed/released at a
  chosen ``t_ns``, so gpiozero's real ``Button`` code path runs with that tick.

Times are ``int`` CLOCK_MONOTONIC nanoseconds throughout.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from time import monotonic
from typing import Any

from gpiozero import Button  # type: ignore[import-untyped]
from gpiozero.exc import (  # type: ignore[import-untyped]
    BadPinFactory,
    GPIOPinInUse,
    GPIOPinMissing,
    PinInvalidPin,
)
from gpiozero.pins.mock import MockFactory, MockPin, PinState  # type: ignore[import-untyped]

from drivers.errors import DeviceUnavailableError, DriverValueError

__all__ = [
    "NS_PER_S",
    "EdgeButton",
    "EdgeDebouncer",
    "EdgeMockPin",
    "Pin",
    "Transition",
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


class EdgeButton(Button):  # type: ignore[misc]
    """A gpiozero ``Button`` that reports each edge with its own timestamp.

    ``pin``: a gpiozero pin name; ``on_edge(pressed, t_ns)`` is called on gpiozero's callback
    thread for every edge (``pressed``: the line is at the active level, i.e. low with the
    pull-up; ``t_ns``: the edge's ticks converted by :func:`ticks_to_ns`), then gpiozero's own
    handling runs (``is_pressed``, ``when_pressed``).  Always ``pull_up=True`` and
    ``bounce_time=None``: lgpio's bounce filter would stamp the last bounce, not the first
    edge.  Raises what gpiozero raises; use :func:`open_edge_button` for driver errors.
    """

    def __init__(self, pin: Pin, *, on_edge: EdgeCallback, pin_factory: Any = None) -> None:
        self._on_edge = on_edge
        super().__init__(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)

    def _pin_changed(self, ticks: float, state: int) -> None:
        """gpiozero's edge hook: forward ``(pressed, t_ns)``, then let Button update itself."""
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


class EdgeMockPin(MockPin):  # type: ignore[misc]
    """A gpiozero ``MockPin`` that can change level at a chosen time (the test seam).

    :meth:`inject` drives the line like ``drive_low()``/``drive_high()``, but the edge's
    ticks are the caller's ``t_ns`` instead of ``time.monotonic()`` at the call, so the
    gpiozero handler chain (``PiPin._call_when_changed`` -> ``Button._pin_changed``) runs
    exactly as with lgpio's kernel timestamps.  Handlers run synchronously in the caller's
    thread.  Plain ``drive_low()``/``drive_high()`` keep working (ticks = monotonic now).
    """

    _state: bool
    _last_change: float
    states: list[Any]

    def __init__(self, factory: Any, info: Any) -> None:
        self._forced_ticks: float | None = None
        super().__init__(factory, info)

    def inject(self, level: bool, t_ns: int) -> None:
        """Set the line to ``level`` (True = high) at ``t_ns`` (``int`` ns) and fire its edge.

        No edge fires if the line is already at ``level`` or the pin is not an input (as on
        real hardware).  Raises :class:`DriverValueError` if ``t_ns`` is not an ``int``.
        """
        if not isinstance(t_ns, int) or isinstance(t_ns, bool):
            raise DriverValueError(
                f"mock pin {self.info.name}", f"t_ns must be an int of nanoseconds, got {t_ns!r}"
            )
        if self._function != "input":
            return
        self._forced_ticks = ns_to_ticks(t_ns)
        try:
            if level:
                self.drive_high()
            else:
                self.drive_low()
        finally:
            self._forced_ticks = None

    def _change_state(self, value: bool) -> bool:
        """MockPin's state change, stamped with the injected ticks when there are some."""
        if self._state == value:
            return False
        t = monotonic() if self._forced_ticks is None else self._forced_ticks
        self._state = value
        self.states.append(PinState(t - self._last_change, value))
        self._last_change = t
        return True


def mock_pin_factory() -> Any:
    """Return a new gpiozero ``MockFactory`` whose pins are :class:`EdgeMockPin`.

    Pass it as ``pin_factory=`` to :class:`~drivers.slap.SlapButtons` /
    :class:`~drivers.keys.HandKeys` (simulator) or set it as ``Device.pin_factory`` (tests),
    then drive pins with :func:`edge`.
    """
    return MockFactory(pin_class=EdgeMockPin)


def edge(pin_factory: Any, pin: Pin, pressed: bool, t_ns: int) -> None:
    """Press or release the button wired to ``pin`` at ``t_ns``, as the kernel would report.

    ``pin_factory``: from :func:`mock_pin_factory`; ``pin``: the pin name the button was
    opened with; ``pressed``: True drives the line low (the buttons are wired to GND with
    the pull-up), False lets it go high; ``t_ns``: the edge's ``int`` CLOCK_MONOTONIC
    nanoseconds.  The button's handlers run synchronously in the calling thread.
    Raises :class:`DriverValueError` if the factory's pins are not :class:`EdgeMockPin` or
    ``pin`` is not a pin name.
    """
    try:
        mock = pin_factory.pin(pin)
    except (PinInvalidPin, AttributeError) as exc:
        raise DriverValueError(f"mock pin {pin_label(pin)}", f"cannot drive: {exc}") from exc
    if not isinstance(mock, EdgeMockPin):
        raise DriverValueError(
            f"mock pin {pin_label(pin)}",
            f"is a {type(mock).__name__}; build the factory with drivers.mock_pin_factory()",
        )
    mock.inject(not pressed, t_ns)
