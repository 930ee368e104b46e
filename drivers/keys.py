"""Handheld keys on GPIO: the wired handheld's left, right, select and back keys.

Each key is a push switch from a GPIO line to GND, read through gpiozero with the internal
pull-up, exactly like a slap button (architecture.md, "The hardware").  Only presses are
reported, as :class:`KeyPress` with the edge's own timestamp.

Debounce: the same timestamp lockout as the slap buttons (:class:`drivers.gpio.EdgeDebouncer`,
default 30 ms), not gpiozero's ``bounce_time``.  Fairness does not hang on keys, but one
debounce rule for every switch keeps the behaviour identical on lgpio, on the simulator's
mock pins (``MockPin`` ignores ``bounce_time``) and in tests.  A key held down does not
repeat.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from drivers.errors import DriverValueError, NotWiredError
from drivers.gpio import EdgeButtonGroup, Pin, Transition
from drivers.slap import DEFAULT_LOCKOUT_NS

__all__ = ["KEY_NAMES", "HandKeys", "KeyPress"]

KEY_NAMES: tuple[str, ...] = ("left", "right", "select", "back")
"""The handheld's keys, in the order screens.md lists them."""


@dataclass(frozen=True, slots=True)
class KeyPress:
    """Seat ``seat``'s handheld key ``key`` (one of :data:`KEY_NAMES`) went down at ``t_ns``.

    ``t_ns``: the press edge's ``int`` CLOCK_MONOTONIC nanoseconds.
    """

    seat: int
    key: str
    t_ns: int


class HandKeys(EdgeButtonGroup[str]):
    """One seat's wired handheld keys; posts :class:`KeyPress` events.

    ``seat``: the seat (``int`` >= 0); ``pins``: key name -> gpiozero pin name, names from
    :data:`KEY_NAMES` (a handheld may leave some out); ``post``: called with each
    :class:`KeyPress` on gpiozero's callback thread (must be thread-safe and quick);
    ``pin_factory``: as for :class:`drivers.slap.SlapButtons`; ``lockout_ns``: bounce
    lockout, ``int`` nanoseconds.

    Raises :class:`~drivers.errors.DriverValueError` for an unknown key name, a bad seat or
    lockout or a string that is not a pin name, and
    :class:`~drivers.errors.DeviceUnavailableError` for a pin that cannot be opened; both
    name the seat, key and pin, and keys already opened are closed first.
    """

    def __init__(
        self,
        seat: int,
        pins: Mapping[str, Pin],
        post: Callable[[object], None],
        *,
        pin_factory: Any = None,
        lockout_ns: int = DEFAULT_LOCKOUT_NS,
    ) -> None:
        if not isinstance(seat, int) or isinstance(seat, bool) or seat < 0:
            raise DriverValueError(f"handheld keys for seat {seat!r}", "seat must be an int >= 0")
        super().__init__(lockout_ns, device="handheld keys", seat=seat)
        unknown = sorted(str(key) for key in pins if key not in KEY_NAMES)
        if unknown:
            raise DriverValueError(
                "handheld keys",
                f"unknown key {', '.join(map(repr, unknown))} (keys: {', '.join(KEY_NAMES)})",
                seat=seat,
            )
        self._seat = seat
        self._post = post
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

    def __repr__(self) -> str:
        """``<HandKeys seat=2 keys=['left', ...]>`` style summary."""
        state = " closed" if self._closed else ""
        return f"<HandKeys seat={self._seat} keys={list(self.keys)}{state}>"

    def _report(self, key: str, transitions: list[Transition]) -> None:
        """Post each press of ``key`` as a :class:`KeyPress`; releases post nothing."""
        for down, t_ns in transitions:
            if down:
                self._post(KeyPress(self._seat, key, t_ns))
