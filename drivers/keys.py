"""Handheld keys on GPIO: the wired handheld's left, right, select and back keys.

Each key is a push switch from a GPIO line to GND, read through gpiozero with the internal
pull-up, exactly like a slap button (docs/architecture.md, "The hardware").  Presses are
reported as :class:`KeyPress` with the edge's own timestamp; releases post nothing.

Debounce: the same belief-and-lockout debouncer as the slap buttons
(:class:`drivers.gpio.EdgeDebouncer`, default 30 ms; the edge's level is not trusted,
docs/hardware-facts.md), not gpiozero's ``bounce_time``.  Fairness does not hang on keys, but
one debounce rule for every switch keeps the behaviour identical on lgpio, on the
simulator's mock pins (``MockPin`` ignores ``bounce_time``) and in tests.

Two timed behaviours, both driven by :meth:`HandKeys.settle` -- the device loop's ticker,
called with the loop's ``now_ns`` (no thread, no sleep, no clock read here):

- **auto-repeat** on LEFT and RIGHT while held: a first repeat :data:`REPEAT_DELAY_NS`
  (400 ms) after the press, then every :data:`REPEAT_INTERVAL_NS` (120 ms), each a
  :class:`KeyPress` with ``repeat=True`` stamped at its scheduled time;
- **long BACK**: BACK held for :data:`MENU_HOLD_NS` (2 s) posts one
  ``KeyPress(seat, "menu", t_ns)`` (:data:`MENU_KEY`), stamped 2 s after the press.  The
  device opens a small menu on that handheld: continue / end this game / back to the lobby
  (``device/hands/menu.py``).  BACK still posts its ordinary ``"back"`` when pressed, so a BACK
  released before 2 s is just that; a long one is ``"back"`` then ``"menu"``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from drivers.errors import DriverValueError, NotWiredError
from drivers.gpio import EdgeButtonGroup, Pin, Transition
from drivers.slap import DEFAULT_LOCKOUT_NS
from drivers.values import is_int

__all__ = [
    "KEY_NAMES",
    "MENU_HOLD_NS",
    "MENU_KEY",
    "REPEAT_DELAY_NS",
    "REPEAT_INTERVAL_NS",
    "REPEAT_KEYS",
    "HandKeys",
    "KeyPress",
]

KEY_NAMES: tuple[str, ...] = ("left", "right", "select", "back")
"""The handheld's keys, in the order docs/screens.md lists them."""

REPEAT_KEYS: tuple[str, ...] = ("left", "right")
"""The keys that auto-repeat while held (moving a cursor along a hand or a menu)."""

REPEAT_DELAY_NS = 400_000_000
"""400 ms from a LEFT/RIGHT press to its first repeat: longer than a deliberate tap, so a
single press moves the cursor once (the usual keyboard-style delay)."""

REPEAT_INTERVAL_NS = 120_000_000
"""120 ms between repeats after the first: about 8 steps a second, slow enough to stop on
the card you want across a six-card hand."""

MENU_KEY = "menu"
"""The :attr:`KeyPress.key` posted when BACK has been held for :data:`MENU_HOLD_NS`
(``device.hands.menu.MENU_KEY`` is the same word)."""

MENU_HOLD_NS = 2_000_000_000
"""2 s: how long BACK must stay down to post :data:`MENU_KEY` (long enough that nobody does
it by accident while backing out of a choice)."""


@dataclass(frozen=True, slots=True)
class KeyPress:
    """Seat ``seat``'s handheld key ``key`` went down at ``t_ns``.

    ``key``: one of :data:`KEY_NAMES`, or :data:`MENU_KEY` (BACK held for 2 s);
    ``t_ns``: ``int`` CLOCK_MONOTONIC nanoseconds -- the press edge's own timestamp (or,
    for a press the edges missed, the end of the debounce lockout), a repeat's scheduled
    time, or the moment BACK had been held for :data:`MENU_HOLD_NS`; ``repeat``: True for
    an auto-repeat of a held LEFT/RIGHT.
    """

    seat: int
    key: str
    t_ns: int
    repeat: bool = False


def _positive_ns(value: object, name: str, seat: int) -> int:
    """``value`` if it is an ``int`` > 0; DriverValueError naming ``name`` otherwise."""
    if is_int(value) and value > 0:
        return value
    raise DriverValueError(
        "handheld keys", f"{name} must be an int > 0 nanoseconds, got {value!r}", seat=seat
    )


class HandKeys(EdgeButtonGroup[str]):
    """One seat's wired handheld keys; posts :class:`KeyPress` events.

    ``seat``: the seat (``int`` >= 0); ``pins``: key name -> gpiozero pin name, names from
    :data:`KEY_NAMES` (a handheld may leave some out); ``post``: called with each
    :class:`KeyPress` on gpiozero's callback thread, or on the thread calling
    :meth:`settle` (must be thread-safe and quick; one that raises is logged and the next
    event still goes out); ``pin_factory``: as for :class:`drivers.slap.SlapButtons`;
    ``lockout_ns``: bounce lockout, ``int`` nanoseconds; ``repeat_delay_ns``,
    ``repeat_interval_ns``, ``menu_hold_ns``: ``int`` ns > 0, defaults
    :data:`REPEAT_DELAY_NS`, :data:`REPEAT_INTERVAL_NS`, :data:`MENU_HOLD_NS`.

    Raises :class:`~drivers.errors.DriverValueError` for an unknown key name, a bad seat,
    lockout or timing or a string that is not a pin name,
    :class:`~drivers.errors.PinFactoryError` for an unfair pin factory, and
    :class:`~drivers.errors.DeviceUnavailableError` for a pin that cannot be opened; the
    pin errors name the seat, key and pin, and keys already opened are closed first.

    Call :meth:`settle` from the device loop as a ticker: it drives the repeats, the long
    BACK and the debounce reconciliation.
    """

    def __init__(
        self,
        seat: int,
        pins: Mapping[str, Pin],
        post: Callable[[object], None],
        *,
        pin_factory: Any = None,
        lockout_ns: int = DEFAULT_LOCKOUT_NS,
        repeat_delay_ns: int = REPEAT_DELAY_NS,
        repeat_interval_ns: int = REPEAT_INTERVAL_NS,
        menu_hold_ns: int = MENU_HOLD_NS,
    ) -> None:
        if not is_int(seat) or seat < 0:
            raise DriverValueError(f"handheld keys for seat {seat!r}", "seat must be an int >= 0")
        super().__init__(lockout_ns, device="handheld keys", seat=seat)
        unknown = sorted(str(key) for key in pins if key not in KEY_NAMES)
        if unknown:
            raise DriverValueError(
                "handheld keys",
                f"unknown key {', '.join(map(repr, unknown))} (keys: {', '.join(KEY_NAMES)})",
                seat=seat,
            )
        self._repeat_delay_ns = _positive_ns(repeat_delay_ns, "repeat_delay_ns", seat)
        self._repeat_interval_ns = _positive_ns(repeat_interval_ns, "repeat_interval_ns", seat)
        self._menu_hold_ns = _positive_ns(menu_hold_ns, "menu_hold_ns", seat)
        self._seat = seat
        self._post = post
        self._repeat_at: dict[str, int] = {}
        """Held LEFT/RIGHT -> the scheduled time of its next repeat (``int`` ns)."""
        self._menu_at: int | None = None
        """When a held BACK becomes :data:`MENU_KEY` (``int`` ns), or ``None``."""
        wiring = ((key, pins[key], seat, f"{key} key") for key in KEY_NAMES if key in pins)
        self._open(wiring, pin_factory)

    @property
    def seat(self) -> int:
        """The seat these keys belong to."""
        return self._seat

    @property
    def keys(self) -> tuple[str, ...]:
        """The keys wired, in :data:`KEY_NAMES` order."""
        return tuple(self._buttons)

    def is_held(self, key: str) -> bool:
        """Whether ``key``'s line is at the pressed level right now (not debounced).

        Raises :class:`~drivers.errors.NotWiredError` (a ``LookupError``) for a key that
        is not wired and :class:`~drivers.errors.DriverClosedError` after :meth:`close`.
        """
        button = self._wired(key, device="handheld keys", seat=self._seat)
        if button is None:
            raise NotWiredError(
                "handheld keys", f"no key {key!r} (keys: {', '.join(self.keys)})", seat=self._seat
            )
        return bool(button.is_pressed)

    def settle(self, now_ns: int) -> int | None:
        """The ticker: post what is due by ``now_ns``; return the next deadline.

        ``now_ns``: the device clock, ``int`` CLOCK_MONOTONIC nanoseconds.  Posts, in time
        order: a press or release the debounce lockout hid (as
        :meth:`drivers.slap.SlapButtons.settle`); one repeat per held LEFT/RIGHT whose
        repeat is due, stamped at the latest scheduled time <= ``now_ns`` (a loop that woke
        late gets one repeat, not a burst; the next is the first scheduled time after
        ``now_ns``); ``KeyPress(seat, "menu", t)`` once when BACK has been held for
        :data:`MENU_HOLD_NS`.  Returns the earliest ``int`` ns at which calling again may
        post something, or ``None`` (nothing held, no lockout running, or closed).  Raises
        :class:`~drivers.errors.DriverValueError` for a ``now_ns`` that is not an ``int``.
        """
        return self._settle(now_ns)

    def __repr__(self) -> str:
        """``<HandKeys seat=2 keys=['left', ...]>`` style summary."""
        state = " closed" if self._closed else ""
        return f"<HandKeys seat={self._seat} keys={list(self.keys)}{state}>"

    def _report(self, key: str, transitions: list[Transition]) -> None:
        """Post each press of ``key``; arm or cancel its repeat and the long BACK.

        A release first runs the timers up to the release's own time (a repeat or the
        menu that came due while the key was still down is posted even if the ticker had
        not run yet), then cancels them.
        """
        for down, t_ns in transitions:
            if down:
                self._deliver(self._post, KeyPress(self._seat, key, t_ns))
                if key in REPEAT_KEYS:
                    self._repeat_at[key] = t_ns + self._repeat_delay_ns
                elif key == "back":
                    self._menu_at = t_ns + self._menu_hold_ns
                continue
            self._tick(t_ns)
            self._repeat_at.pop(key, None)
            if key == "back":
                self._menu_at = None

    def _tick(self, now_ns: int) -> int | None:
        """Post the repeats and the menu due by ``now_ns``; return the next such time."""
        due: list[KeyPress] = []
        for key, at in self._repeat_at.items():
            if now_ns >= at:
                latest = at + (now_ns - at) // self._repeat_interval_ns * self._repeat_interval_ns
                due.append(KeyPress(self._seat, key, latest, repeat=True))
                self._repeat_at[key] = latest + self._repeat_interval_ns
        if self._menu_at is not None and now_ns >= self._menu_at:
            due.append(KeyPress(self._seat, MENU_KEY, self._menu_at))
            self._menu_at = None
        for event in sorted(due, key=lambda e: e.t_ns):
            self._deliver(self._post, event)
        pending = list(self._repeat_at.values())
        if self._menu_at is not None:
            pending.append(self._menu_at)
        return min(pending, default=None)
