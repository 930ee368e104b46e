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

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from drivers.errors import DriverClosedError, DriverValueError, NotWiredError
from drivers.gpio import EdgeButton, EdgeDebouncer, Pin, open_edge_button
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


class HandKeys:
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
        if not isinstance(lockout_ns, int) or isinstance(lockout_ns, bool) or lockout_ns < 0:
            raise DriverValueError(
                "handheld keys",
                f"lockout_ns must be an int >= 0 nanoseconds, got {lockout_ns!r}",
                seat=seat,
            )
        unknown = sorted(str(key) for key in pins if key not in KEY_NAMES)
        if unknown:
            raise DriverValueError(
                "handheld keys",
                f"unknown key {', '.join(map(repr, unknown))} (keys: {', '.join(KEY_NAMES)})",
                seat=seat,
            )
        self._seat = seat
        self._post = post
        self._lock = threading.RLock()
        self._closed = False
        self._buttons: dict[str, EdgeButton] = {}
        self._debouncers: dict[str, EdgeDebouncer] = {}
        try:
            for key in KEY_NAMES:
                if key not in pins:
                    continue
                self._debouncers[key] = EdgeDebouncer(lockout_ns)
                self._buttons[key] = open_edge_button(
                    pins[key],
                    self._edge_handler(key),
                    seat=seat,
                    device=f"{key} key",
                    pin_factory=pin_factory,
                )
        except BaseException:
            self.close()
            raise

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
        if self._closed:
            raise DriverClosedError("handheld keys", "used after close()", seat=self._seat)
        try:
            button = self._buttons[key]
        except KeyError:
            raise NotWiredError(
                "handheld keys", f"no key {key!r} (keys: {', '.join(self.keys)})", seat=self._seat
            ) from None
        return bool(button.is_pressed)

    def close(self) -> None:
        """Release every pin; idempotent.  No event is posted after it returns."""
        with self._lock:
            self._closed = True
            buttons = list(self._buttons.values())
        for button in buttons:
            button.close()

    def __enter__(self) -> HandKeys:
        """Return self; :meth:`close` on exit."""
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Close the keys."""
        self.close()

    def __repr__(self) -> str:
        """``<HandKeys seat=2 keys=['left', ...]>`` style summary."""
        state = " closed" if self._closed else ""
        return f"<HandKeys seat={self._seat} keys={list(self.keys)}{state}>"

    def _edge_handler(self, key: str) -> Callable[[bool, int], None]:
        """The raw-edge callback for ``key``: debounce, then post each press."""

        def on_edge(pressed: bool, t_ns: int) -> None:
            with self._lock:
                if self._closed:
                    return
                for down, t in self._debouncers[key].edge(pressed, t_ns):
                    if down:
                        self._post(KeyPress(self._seat, key, t))

        return on_edge
