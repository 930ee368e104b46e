"""The builder's self-test on a fake clock: test pattern, each seat's slap button and keys
asked in turn, faults for missing presses, crossed wires and silent screens."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pytest

from device.console import make_seats
from device.events import FakeQueue
from device.games import PLUGINS
from device.present import TablePresenter
from device.selftest import KEYS, PATTERN_NS, SelfTest, pattern_image, run_selftest
from drivers.clock import FakeClock
from drivers.hand_display import open_hand_display
from drivers.keys import KeyPress
from drivers.slap import Press
from drivers.table_display import TableDisplay

S = 1_000_000_000
PLUGIN = next(iter(PLUGINS.values()))


@pytest.fixture
def display() -> Iterator[TableDisplay]:
    """A small dummy table display on a fake clock."""
    d = TableDisplay("dummy", (480, 270), clock=FakeClock(10 * S))
    try:
        yield d
    finally:
        d.close()


class SilentOled:
    """A luma-like 128x64 display whose bus is dead (errno 121)."""

    width, height, mode, size = 128, 64, "1", (128, 64)

    def display(self, image: Any) -> None:
        raise OSError(121, "Remote I/O error")


def run(display: TableDisplay, answer: Any, devices: list[Any] | None = None) -> SelfTest:
    """Run the self-test with ``answer(step) -> event | None`` pressing for the people."""
    clock = display.clock
    assert isinstance(clock, FakeClock)
    queue = FakeQueue(clock)
    devices = devices or [open_hand_display(s, "dummy") for s in range(2)]
    seats = make_seats(devices)
    test = SelfTest(seats, PLUGIN, step_ns=5 * S)

    def press_for_people(now_ns: int) -> int:
        step = test.step
        event = answer(step, now_ns) if step is not None else None
        if event is not None:
            queue.post(event)
        return now_ns + S // 2

    return run_selftest(test, clock=clock, queue=queue,
                        presenter=TablePresenter(display, motion=False),
                        tickers=[press_for_people], result_ns=S)


def right(step: Any, now_ns: int) -> object:
    """The press the step asks for."""
    return Press(step.seat, now_ns) if step.what == "slap" else \
        KeyPress(step.seat, step.what, now_ns)


def test_every_check_passes_when_every_seat_presses_what_it_is_asked(
    display: TableDisplay
) -> None:
    """Two seats: 2 x (slap + 4 keys) checks, all OK, no faults."""
    test = run(display, right)
    assert len(test.steps) == 2 * (1 + len(KEYS))
    assert set(test.results.values()) == {"OK"} and len(test.results) == len(test.steps)
    assert test.faults == []
    assert test.report()[-1] == "self-test: all OK"


def test_a_button_never_pressed_and_a_crossed_wire_are_faults(display: TableDisplay) -> None:
    """Seat 2's SELECT never comes (fault after the step time); seat 1's slap is answered by
    seat 2's button first (crossed wires), then correctly."""
    crossed = {"done": False}

    def answer(step: Any, now_ns: int) -> object | None:
        if step.seat == 1 and step.what == "select":
            return None
        if step.seat == 0 and step.what == "slap" and not crossed["done"]:
            crossed["done"] = True
            return Press(1, now_ns)
        return right(step, now_ns)

    test = run(display, answer)
    assert "Seat 2 key SELECT: no press in 5 s" in test.faults
    assert any("Seat 2 slap button pressed while Seat 1 slap button was asked" in f
               for f in test.faults)
    assert test.report()[-1] == "self-test: 2 fault(s)"


def test_a_silent_screen_is_a_fault_and_the_pattern_shows_the_seat(
    display: TableDisplay
) -> None:
    """Seat 2's OLED does not answer: a fault naming it; seat 1's shows the pattern first."""
    ok = open_hand_display(0, "dummy")
    clock = display.clock
    assert isinstance(clock, FakeClock)
    seats = make_seats([ok, SilentOled()])
    test = SelfTest(seats, PLUGIN)
    test.start(clock.now_ns())
    assert ok.image.tobytes() == pattern_image(0).tobytes()
    assert any(f.startswith("Seat 2 screen: not answering") for f in test.faults)
    assert test.tick(clock.now_ns() + PATTERN_NS) is not None
    assert test.step is not None and test.step.seat == 0 and test.step.what == "slap"
    asked = test.hand_screen(seats[0])
    assert asked.my_turn and "SLAP" in asked.prompt
    assert "Seat 1, press your SLAP button" in test.model().last_event
