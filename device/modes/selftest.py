"""The builder's self-test (``python -m device selftest``).

First every handheld shows its seat number on a test pattern (every pixel row and column
lit somewhere, a border, a checkerboard) for :data:`PATTERN_NS`; then each seat in turn is
asked, on its own hand screen and on the TV, to press its slap button and then each of its
four keys.  A step not done within ``step_ns`` is a fault ("Seat 2 slap button: no press in
15 s"); an input from another seat than the one asked is a fault too (a swapped or crossed
wire: "Seat 3 slap button pressed while Seat 2 was asked").  A handheld whose screen does not
answer is a fault.  The results stay on the TV; the terminal gets one line per check and the
exit status is 0 only without faults.

:class:`SelfTest` is pure logic on the device loop (events in, a table model and hand screens
out); :func:`run_selftest` runs it with a console's parts (the simulator's or the Pi's).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw

from device.common.phase import Phase
from device.games import AnyPlugin
from device.hands.composer import HandKey, HandScreenModel
from device.hands.seats import NoHand, Seat
from device.reactor.events import Quit
from device.reactor.loop import Loop, Ticker
from device.reactor.timers import Timer
from device.render.model import LobbyModel, SeatBadge, TableModel
from drivers.clock import Clock
from drivers.keys import KeyPress
from drivers.slap import Press

log = logging.getLogger("partytable")

S = 1_000_000_000
PATTERN_NS = 3 * S
"""How long the test pattern stays on every handheld before the first question."""
STEP_NS = 15 * S
"""How long a seat has for each press before the step is a fault."""
RESULT_NS = 6 * S
"""How long the results stay on the TV before :func:`run_selftest` returns."""
KEYS = tuple(k.value for k in HandKey)
"""The handheld keys asked for, in order: left, right, select, back."""


@dataclass(frozen=True, slots=True)
class Step:
    """One check: ``seat`` and ``what`` (``"slap"`` or a key name)."""

    seat: int
    what: str

    @property
    def label(self) -> str:
        """``"Seat 2 slap button"`` / ``"Seat 2 key SELECT"``."""
        name = f"Seat {self.seat + 1}"
        return f"{name} slap button" if self.what == "slap" else f"{name} key {self.what.upper()}"


def pattern_image(seat: int, size: tuple[int, int] = (128, 64)) -> Image.Image:
    """A mode ``"1"`` test pattern for an OLED: a border, a checkerboard on the left, the
    seat number large on the right (people count from 1)."""
    image = Image.new("1", size, 0)
    draw = ImageDraw.Draw(image)
    w, h = size
    draw.rectangle((0, 0, w - 1, h - 1), outline=1)
    for y in range(2, h - 2, 4):
        for x in range(2, w // 2, 4):
            if (x // 4 + y // 4) % 2 == 0:
                draw.rectangle((x, y, x + 3, y + 3), fill=1)
    draw.text((w // 2 + 14, h // 2 - 16), f"{seat + 1}", fill=1, font_size=32)
    return image


class SelfTest:
    """The self-test's state (see the module docstring).

    ``seats``: the seats to test (their handhelds are written); ``plugin``: any game plugin
    (the TV's frame needs one; nothing of the game is shown); ``step_ns``: time per step.
    Call :meth:`start`, then :meth:`handle` for each event and :meth:`tick` as a loop timer
    callback; :attr:`done` turns True after the last step."""

    def __init__(self, seats: Sequence[Seat], plugin: AnyPlugin, *,
                 step_ns: int = STEP_NS) -> None:
        self.seats = list(seats)
        self.plugin = plugin
        self.step_ns = step_ns
        self.steps = [Step(s.index, what) for s in self.seats if s.is_human
                      for what in ("slap", *KEYS)]
        self.results: dict[Step, str] = {}
        self.faults: list[str] = []
        self.index = -1
        self.deadline_ns: int | None = None
        self.done = False

    @property
    def step(self) -> Step | None:
        """The step being asked now, or ``None`` (pattern time, or finished)."""
        return self.steps[self.index] if 0 <= self.index < len(self.steps) else None

    def start(self, now_ns: int) -> int:
        """Show the test pattern on every handheld; returns when to ask the first step."""
        for seat in self.seats:
            seat.handheld.show_image(pattern_image(seat.index), now_ns)
            if not seat.handheld.connected:
                self._fault(f"{seat.name} screen: not answering ({seat.handheld.reason})")
        self.deadline_ns = now_ns + PATTERN_NS
        return self.deadline_ns

    def tick(self, now_ns: int) -> int | None:
        """Advance on time: the pattern ends, or the step asked timed out.  Returns the next
        deadline (``None`` when done)."""
        if self.done or self.deadline_ns is None or now_ns < self.deadline_ns:
            return self.deadline_ns
        step = self.step
        if step is not None and step not in self.results:
            self.results[step] = "no press"
            self._fault(f"{step.label}: no press in {self.step_ns // S} s")
        return self._next(now_ns)

    def handle(self, event: object, now_ns: int) -> int | None:
        """A slap ``Press`` or a handheld ``KeyPress``; returns the next deadline."""
        if isinstance(event, Press):
            got = Step(event.seat, "slap")
        elif isinstance(event, KeyPress):
            got = Step(event.seat, event.key)
        else:
            return self.deadline_ns
        step = self.step
        if step is None or self.done:
            return self.deadline_ns
        if got == step:
            self.results[step] = "OK"
            log.info("self-test: %s OK", step.label)
            return self._next(now_ns)
        if got.what in ("slap", *KEYS) and got.seat != step.seat:
            self._fault(f"{got.label} pressed while {step.label} was asked (crossed wires?)")
        return self.deadline_ns

    def _next(self, now_ns: int) -> int | None:
        self.index += 1
        if self.index >= len(self.steps):
            self.done = True
            self.deadline_ns = None
            return None
        self.deadline_ns = now_ns + self.step_ns
        return self.deadline_ns

    def _fault(self, line: str) -> None:
        self.faults.append(line)
        log.info("self-test fault: %s", line)  # the report prints it once, at the end

    # ------------------------------------------------------------------ screens
    def hand_screen(self, seat: Seat) -> HandScreenModel:
        """What ``seat``'s handheld asks for now."""
        step = self.step
        label = str(seat.index + 1)
        if self.done:
            bad = any(f.startswith(seat.name + " ") for f in self.faults)
            return HandScreenModel(label, "SELF-TEST", banner=(seat.name.upper(),
                                   "FAULT" if bad else "ALL OK"), prompt="see the TV")
        if step is None or step.seat != seat.index:
            who = "" if step is None else f"now: Seat {step.seat + 1}"
            return HandScreenModel(label, "SELF-TEST", banner=(seat.name.upper(), "wait"),
                                   prompt=who)
        ask = "press SLAP" if step.what == "slap" else f"press {step.what.upper()}"
        return HandScreenModel(label, "SELF-TEST", my_turn=True,
                               banner=(seat.name.upper(), ask), prompt=ask + " now")

    def model(self) -> TableModel:
        """The TV: one row per check with its result, the step asked highlighted."""
        rows = tuple((s.label, self.results.get(s, "...")) for s in self.steps)
        step = self.step
        if self.done:
            event = f"SELF-TEST: {len(self.faults)} fault(s)" if self.faults \
                else "SELF-TEST: all OK"
        elif step is None:
            event = "SELF-TEST: check every screen shows its seat number"
        else:
            event = f"SELF-TEST: {step.label.replace(' key ', ': press key ')}"
            if step.what == "slap":
                event = f"SELF-TEST: Seat {step.seat + 1}, press your SLAP button"
        cursor = max(0, min(self.index, len(rows) - 1))
        return TableModel(
            game=self.plugin, phase=Phase.LOBBY, view=None,
            seats=tuple(SeatBadge(s.index, s.name, str(s.kind), s.handheld.connected)
                        for s in self.seats),
            last_event=event, banner="  ".join(self.faults[-2:]),
            lobby=LobbyModel(rows, cursor, "each seat in turn: SLAP, then < > SEL BACK"))

    def report(self) -> list[str]:
        """One line per check, then the faults: what the terminal prints at the end."""
        lines = [f"{s.label}: {self.results.get(s, 'not asked')}" for s in self.steps]
        lines += [f"FAULT: {f}" for f in self.faults]
        lines.append("self-test: all OK" if not self.faults
                     else f"self-test: {len(self.faults)} fault(s)")
        return lines


def run_selftest(
    test: SelfTest,
    *,
    clock: Clock,
    queue: Any,
    presenter: Any,
    tickers: Sequence[Ticker] = (),
    keyboard: Callable[[object], None] | None = None,
    result_ns: int = RESULT_NS,
) -> SelfTest:
    """Run ``test`` on a device loop (``clock``, ``queue``, ``presenter``, ``tickers``) until
    it is done and its results have been on the TV for ``result_ns``, or a ``Quit`` arrives;
    returns it (``faults`` empty means all OK).  ``keyboard``: the simulator's key adapter,
    given every event the self-test does not take."""
    seats = test.seats
    timer: list[Timer] = []
    loop: Loop

    def rearm(deadline: int | None) -> None:
        for t in timer:
            t.cancel()
        timer.clear()
        if deadline is not None:
            timer.append(loop.timers.call_at(deadline, on_time, "self-test"))
        elif test.done:
            timer.append(loop.timers.call_at(clock.now_ns() + result_ns,
                                             lambda now: loop.stop(), "self-test end"))

    def on_time(now_ns: int) -> None:
        rearm(test.tick(now_ns))

    def handle(event: object) -> None:
        if isinstance(event, Press | KeyPress):
            rearm(test.handle(event, clock.now_ns()))
        elif isinstance(event, Quit):
            loop.stop()
        elif keyboard is not None:
            keyboard(event)

    def frame(now_ns: int) -> int | None:
        for seat in seats:
            hand = seat.hand if isinstance(seat.hand, _Fixed) else _Fixed()
            hand.model = test.hand_screen(seat)
            seat.hand = hand
        if test.index >= 0:
            presenter.present(test.model(), seats, now_ns, False)
        else:
            presenter.present(test.model(), [], now_ns, False)  # the pattern stays up
        result: int | None = presenter.next_frame_ns(now_ns)
        return result

    loop = Loop(clock=clock, queue=queue, handle=handle, frame=frame, tickers=tickers)
    rearm(test.start(clock.now_ns()))
    loop.run()
    return test


class _Fixed(NoHand):
    """A hand that shows a fixed model (the self-test's questions); keys reach the test, not
    the hand."""

    def __init__(self) -> None:
        super().__init__()
        self.model = HandScreenModel("", "")

    def screen(self) -> HandScreenModel:
        """The model to show."""
        return self.model
