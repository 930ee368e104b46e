"""Slap buttons: one GPIO input per seat, the fairness-critical input.

Each button is a big arcade switch from a GPIO line to GND, read through gpiozero with the
internal pull-up and edge interrupts.  A press is reported as :class:`Press` carrying the
edge's own timestamp: on the lgpio pin factory the kernel's CLOCK_MONOTONIC time taken in
the GPIO interrupt, not the time a Python callback happened to run (docs/hardware-facts.md,
"gpiozero and slap timestamps"; docs/architecture.md, "Slap arbitration").  The pin factory is
never gpiozero's own choice (:func:`drivers.pin_factory.resolve_pin_factory`): its silent
fallback to rpigpio/native/pigpio would stamp callback times and make slaps unfair.

Debounce (docs/architecture.md, "Slap arbitration" item 5; :class:`drivers.gpio.EdgeDebouncer`)
decides from the driver's own belief of each button, never from the level an edge event
carries (the kernel reads that late; on a bouncing contact the first event can say the
wrong thing).  The first edge after a quiet period flips the belief (pressed <-> released)
and is stamped with its own timestamp; edges within ``lockout_ns`` (default 30 ms) of it
are bounces; when the lockout ends, :meth:`SlapButtons.settle` (the device loop's ticker)
reconciles the belief with the line's real level and posts a missed transition stamped at
the lockout's end.  So a bouncing press is one :class:`Press` at its first edge, and
release chatter on a held button never makes a phantom fresh press that could win a
window.  gpiozero's ``bounce_time`` is never set: on lgpio it stamps the *last* bounce, so
a chattering switch would lose.  Events from different seats arrive in whatever order the
callbacks run; nothing here reorders them: decide by ``t_ns``.

A press must be confirmed (:data:`DEFAULT_CONFIRM_NS`, 1 ms): its first edge only starts
a check, ``confirm_ns`` after the burst's last edge, where :meth:`SlapButtons.settle`
reads the line, and reads it again ``confirm_ns`` later (a callback in between starts the
check over: with callbacks arriving late, one reading can fall inside a later spike whose
edges are still on their way).  Still pressed: the :class:`Press` is posted, stamped at
the first edge (the arbiter decides on first-edge times, so confirming costs no
fairness) -- but never
more than :data:`DEFAULT_BOUNCE_NS` (2.5 ms) before the burst's last edge, so a train of
spikes less than 1 ms apart that runs into a real press cannot move its stamp more than
2.5 ms earlier than its first contact, and a press that bounces for up to 5 ms is stamped
within 2.5 ms of its first edge (exactly at it for a bounce up to 2.5 ms with no spike
just before); the proof is in :class:`drivers.gpio.EdgeDebouncer`.  A line that never
keeps still for 1 ms is never a press.  Released: it
was a glitch -- a 10 us spike of static on a long lead -- and nothing is posted, no
``Press``, no ``Release``.  While a press waits, nothing is posted that would wake the
device loop, so ``wake()`` is called for it: the loop then runs ``settle`` at the check.
Releases are posted at their first edge, as ever.

The simulator and tests drive buttons through gpiozero's ``MockFactory`` with
:func:`edge` (re-exported here from :mod:`drivers.gpio`): ``edge(factory, pin, pressed,
t_ns)`` runs the same gpiozero -> :class:`Press` path with a chosen edge time (``reads=``
gives the event a wrong level, as the kernel's late read can).

Events are handed to ``post(event)`` on gpiozero's callback thread (lgpio: one thread for
all pins; a ``MockFactory`` pin: the thread that drives it) and, for reconciled
transitions, on the thread calling :meth:`SlapButtons.settle`.  ``post`` must be
thread-safe and quick: the device queue's own ``post`` (docs/architecture.md, "Data flow"),
which needs no display -- nothing here waits for or touches SDL.  A ``post`` that raises
is logged and the next edge is handled as usual: an exception escaping into lgpio's
callback thread would end it, and every button with it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from drivers.errors import DriverValueError, NotWiredError
from drivers.gpio import (
    BOUNCE_NS,
    EdgeButtonGroup,
    Pin,
    Transition,
    edge,
    mock_pin_factory,
)
from drivers.values import is_int

__all__ = [
    "DEFAULT_BOUNCE_NS",
    "DEFAULT_CONFIRM_NS",
    "DEFAULT_LOCKOUT_NS",
    "Press",
    "Release",
    "SlapButtons",
    "edge",
    "mock_pin_factory",
]

DEFAULT_BOUNCE_NS = BOUNCE_NS
"""A press's stamp is within 2.5 ms of its real first contact, whatever spikes came before
it (:data:`drivers.gpio.BOUNCE_NS`; the bound is proved in :class:`drivers.gpio.EdgeDebouncer`)."""

DEFAULT_LOCKOUT_NS = 30_000_000
"""Edges within 30 ms of an accepted edge are bounces (docs/architecture.md, item 5)."""

DEFAULT_CONFIRM_NS = 1_000_000
"""A press counts once its line has kept still for 1 ms and is still pressed.

A glitch on a slap line (static from a person near the box, a motor's brush noise coupled
into a metre of wire on a weak ~50 kOhm pull-up: hardware/wiring.md) is nanoseconds to a
few hundred microseconds long; a slap holds the contact for tens of milliseconds, and a
microswitch's bounce rarely lasts past a few milliseconds (it pushes the check on, it does
not fail it).  1 ms is twice the longest glitch ``make bench`` drives (500 us) and costs
the arbiter nothing: the press is still stamped at its first edge and reaches the arbiter
about 2 ms after it (the check reads the line twice, 1 ms apart), well inside the slap
race's 25 ms settle time.  Longer would only
delay; shorter would let a long ringing burst through."""


@dataclass(frozen=True, slots=True)
class Press:
    """Seat ``seat``'s slap button went down at ``t_ns`` (``int`` CLOCK_MONOTONIC ns).

    ``t_ns`` is the first edge of the press's bounce burst, as stamped by the pin factory
    (no earlier than :data:`DEFAULT_BOUNCE_NS` before the burst's last edge), or -- for a
    press the edges missed and :meth:`SlapButtons.settle` found on the line --
    the end of the lockout in which it happened.  Posted once the press is confirmed
    (twice :data:`DEFAULT_CONFIRM_NS` after the burst's last edge, or later), never earlier.
    """

    seat: int
    t_ns: int


@dataclass(frozen=True, slots=True)
class Release:
    """Seat ``seat``'s slap button came up at ``t_ns`` (``int`` CLOCK_MONOTONIC ns).

    Follows that seat's :class:`Press`; presses and releases of a seat alternate.  ``t_ns``
    is the release's first edge, or the end of the lockout for a release found by
    :meth:`SlapButtons.settle` (a tap shorter than the lockout).
    """

    seat: int
    t_ns: int


class SlapButtons(EdgeButtonGroup[int]):
    """All seats' slap buttons; posts :class:`Press` / :class:`Release` events.

    ``pins``: seat -> gpiozero pin name (``17``, ``"GPIO17"``, ``"BOARD11"``); ``post``:
    called with each event (see the module docstring); ``pin_factory``: a gpiozero pin
    factory -- on a Pi the one :func:`drivers.pin_factory.open_pin_factory` builds, for the
    simulator and tests a ``MockFactory`` such as :func:`drivers.gpio.mock_pin_factory`;
    ``None`` takes gpiozero's ``Device.pin_factory`` if set, else opens the lgpio one
    (:func:`drivers.pin_factory.resolve_pin_factory`); ``lockout_ns``: ``int``
    nanoseconds of bounce lockout after each accepted edge; ``confirm_ns``: ``int``
    nanoseconds the line must keep still and pressed before a press counts (default
    :data:`DEFAULT_CONFIRM_NS`; 0 posts every first edge at once, glitches included);
    ``wake``: called with no arguments, on gpiozero's callback thread, when a press starts
    waiting for its check -- the device loop's way to be woken (post any event to its
    queue) so it calls :meth:`settle` at the check; ``None`` when the caller runs
    :meth:`settle` on its own schedule (tests, a bench).  It must be thread-safe and
    quick like ``post``; one that raises is logged.  ``bounce_ns``: ``int`` nanoseconds,
    how far before its burst's last edge a press may be stamped (default
    :data:`DEFAULT_BOUNCE_NS`; ``None``: stamped at the burst's first edge however long
    the burst, for comparison in ``make bench``).

    Raises :class:`~drivers.errors.DriverValueError` for a negative seat, lockout,
    confirmation or bounce time or a string that is not a pin name,
    :class:`~drivers.errors.PinFactoryError` for a pin factory whose ticks are not kernel
    edge times (rpigpio, native, pigpio) or no lgpio factory, and
    :class:`~drivers.errors.DeviceUnavailableError` for a pin that cannot be opened (in
    use); the pin errors name the seat and pin, and any buttons already opened are closed
    first.

    A button held down when opened reports nothing until it is released and pressed again;
    :meth:`is_held` tells the line's state.  Call :meth:`settle` from the device loop as a
    ticker.  Use as a context manager or call :meth:`close`.
    """

    def __init__(
        self,
        pins: Mapping[int, Pin],
        post: Callable[[object], None],
        *,
        pin_factory: Any = None,
        lockout_ns: int = DEFAULT_LOCKOUT_NS,
        confirm_ns: int = DEFAULT_CONFIRM_NS,
        wake: Callable[[], None] | None = None,
        bounce_ns: int | None = DEFAULT_BOUNCE_NS,
    ) -> None:
        super().__init__(
            lockout_ns, device="slap buttons", confirm_ns=confirm_ns, wake=wake,
            bounce_ns=bounce_ns,
        )
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
        """The ticker: confirm waiting presses, reconcile the buttons whose lockout ended;
        return the next deadline.

        ``now_ns``: the device clock, ``int`` CLOCK_MONOTONIC nanoseconds (the loop's, never
        read here).  For each seat whose press waits and whose check is due, reads the line:
        pressed (and the edges seen agree), reads it again ``confirm_ns`` later and, still
        pressed with no callback in between, posts the :class:`Press` stamped at its
        first edge; released, posts nothing (a glitch); when the line and the edges
        disagree, or this first look is late, the check waits for callbacks still on their
        way (:class:`drivers.gpio.EdgeDebouncer`).  For each seat whose lockout
        (``lockout_ns`` after the first edge of a burst) has ended by ``now_ns``, reads the
        line; if it is not where the driver believes -- a tap shorter than the lockout, a
        missed edge -- posts the missed :class:`Release`, stamped at the lockout's end (or
        when read), or checks the missed press like any other before posting it.  Without
        it a quick tap would look held until its next edge.  Returns the earliest ``int``
        ns at which calling again may post something (a check, a lockout's end), or
        ``None``; call it on every loop wake-up and at that deadline.  Raises
        :class:`~drivers.errors.DriverValueError` for a ``now_ns`` that is not an ``int``.
        """
        return self._settle(now_ns)

    def __repr__(self) -> str:
        """``<SlapButtons seats=[0, 1] closed>`` style summary."""
        state = " closed" if self._closed else ""
        return f"<SlapButtons seats={list(self.seats)}{state}>"

    def _report(self, seat: int, transitions: list[Transition]) -> None:
        """Post each transition as a :class:`Press` or :class:`Release` of ``seat``."""
        for pressed, t_ns in transitions:
            self._deliver(self._post, Press(seat, t_ns) if pressed else Release(seat, t_ns))


def _wiring(pins: Mapping[int, Pin]) -> Iterator[tuple[int, Pin, int, str]]:
    """``(seat, pin, seat, "slap button")`` per entry of ``pins``, checking each seat.

    Raises :class:`~drivers.errors.DriverValueError` for a seat that is not an ``int`` >= 0
    when iteration reaches it (the buttons opened before it are then closed).
    """
    for seat, pin in pins.items():
        if not is_int(seat) or seat < 0:
            raise DriverValueError(f"slap button for seat {seat!r}", "seat must be an int >= 0")
        yield seat, pin, seat, "slap button"
