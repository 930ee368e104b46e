"""Slap buttons: one GPIO input per seat, the fairness-critical input.

Each button is a big arcade switch from a GPIO line to GND, read through gpiozero with the
internal pull-up and edge interrupts.  A press is reported as :class:`Press` carrying the
edge's own timestamp: on the lgpio pin factory the kernel's CLOCK_MONOTONIC time taken in
the GPIO interrupt, not the time a Python callback happened to run (hardware-facts.md,
"gpiozero and slap timestamps"; architecture.md, "Slap arbitration").

Debounce is by timestamps only (architecture.md, "Slap arbitration" item 5): the first
press edge of a burst is the press; edges within ``lockout_ns`` (default 30 ms) of an
accepted edge are bounces.  gpiozero's ``bounce_time`` is never set: on lgpio it stamps the
*last* bounce, so a chattering switch would lose.  Events from different seats arrive in
whatever order the callbacks run; nothing here reorders them: decide by ``t_ns``.

The simulator and tests drive buttons through gpiozero's ``MockFactory`` with
:func:`edge` (re-exported here from :mod:`drivers.gpio`): ``edge(factory, pin, pressed,
t_ns)`` runs the same gpiozero -> :class:`Press` path with a chosen edge time.

Events are handed to ``post(event)`` on gpiozero's callback thread (lgpio: one thread for
all pins; a ``MockFactory`` pin: the thread that drives it).  ``post`` must be thread-safe
and quick, e.g. ``SDL_PushEvent``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from drivers.errors import DriverValueError, NotWiredError
from drivers.gpio import (
    EdgeButtonGroup,
    Pin,
    Transition,
    edge,
    mock_pin_factory,
)

__all__ = ["DEFAULT_LOCKOUT_NS", "Press", "Release", "SlapButtons", "edge", "mock_pin_factory"]

DEFAULT_LOCKOUT_NS = 30_000_000
"""Edges within 30 ms of an accepted edge are bounces (architecture.md, item 5)."""


@dataclass(frozen=True, slots=True)
class Press:
    """Seat ``seat``'s slap button went down at ``t_ns`` (``int`` CLOCK_MONOTONIC ns).

    ``t_ns`` is the first edge of the press's bounce burst, as stamped by the pin factory.
    """

    seat: int
    t_ns: int


@dataclass(frozen=True, slots=True)
class Release:
    """Seat ``seat``'s slap button came up at ``t_ns`` (``int`` CLOCK_MONOTONIC ns).

    Follows that seat's :class:`Press`; presses and releases of a seat alternate.
    """

    seat: int
    t_ns: int


class SlapButtons(EdgeButtonGroup[int]):
    """All seats' slap buttons; posts :class:`Press` / :class:`Release` events.

    ``pins``: seat -> gpiozero pin name (``17``, ``"GPIO17"``, ``"BOARD11"``); ``post``:
    called with each event on gpiozero's callback thread (see the module docstring);
    ``pin_factory``: a gpiozero pin factory, default gpiozero's (lgpio on a Pi), or
    :func:`drivers.gpio.mock_pin_factory` for the simulator and tests; ``lockout_ns``:
    ``int`` nanoseconds of bounce lockout after each accepted edge.

    Raises :class:`~drivers.errors.DriverValueError` for a negative seat or lockout or a
    string that is not a pin name, and :class:`~drivers.errors.DeviceUnavailableError` for a
    pin that cannot be opened (in use, no pin factory); both name the seat and pin, and
    any buttons already opened are closed first.

    A button held down when opened reports nothing until it is released and pressed again;
    :meth:`is_held` tells the line's state.  Use as a context manager or call :meth:`close`.
    """

    def __init__(
        self,
        pins: Mapping[int, Pin],
        post: Callable[[object], None],
        *,
        pin_factory: Any = None,
        lockout_ns: int = DEFAULT_LOCKOUT_NS,
    ) -> None:
        super().__init__(lockout_ns, device="slap buttons")
        self._post = post
        self._open(_wiring(pins), pin_factory)

    @property
    def seats(self) -> tuple[int, ...]:
        """The seats with a button, ascending."""
        return tuple(sorted(self._buttons))

    def is_held(self, seat: int) -> bool:
        """Whether seat ``seat``'s button line is at the pressed level right now.

        Reads the line, not the debounced state.  Raises
        :class:`~drivers.errors.NotWiredError` for a seat without a button and
        :class:`~drivers.errors.DriverClosedError` after :meth:`close`.
        """
        button = self._wired(seat, device="slap button", seat=seat)
        if button is None:
            raise NotWiredError(
                "slap button", f"no such seat (seats: {list(self.seats)})", seat=seat
            )
        return bool(button.is_pressed)

    def settle(self, now_ns: int) -> int | None:
        """Post the releases (or presses) a lockout swallowed; return the next deadline.

        A tap shorter than the lockout swallows its own release edge, so without this the
        button would look held until its next edge.  ``now_ns``: the device clock, ``int``
        CLOCK_MONOTONIC nanoseconds; a swallowed edge is reported, with its own timestamp,
        once the line has been quiet for ``lockout_ns`` before ``now_ns``.  Returns the
        earliest ``int`` ns at which calling again may post something, or ``None``.
        Optional: call it when the loop wakes anyway and before judging a button stuck.
        """
        return self._settle(now_ns)

    def __repr__(self) -> str:
        """``<SlapButtons seats=[0, 1] closed>`` style summary."""
        state = " closed" if self._closed else ""
        return f"<SlapButtons seats={list(self.seats)}{state}>"

    def _report(self, seat: int, transitions: list[Transition]) -> None:
        """Post each transition as a :class:`Press` or :class:`Release` of ``seat``."""
        for pressed, t_ns in transitions:
            self._post(Press(seat, t_ns) if pressed else Release(seat, t_ns))


def _wiring(pins: Mapping[int, Pin]) -> Iterator[tuple[int, Pin, int, str]]:
    """``(seat, pin, seat, "slap button")`` per entry of ``pins``, checking each seat.

    Raises :class:`~drivers.errors.DriverValueError` for a seat that is not an ``int`` >= 0
    when iteration reaches it (the buttons opened before it are then closed).
    """
    for seat, pin in pins.items():
        if not isinstance(seat, int) or isinstance(seat, bool) or seat < 0:
            raise DriverValueError(f"slap button for seat {seat!r}", "seat must be an int >= 0")
        yield seat, pin, seat, "slap button"
