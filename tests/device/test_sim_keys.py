"""The simulator's keyboard and window on SDL's dummy drivers (device/sim.py,
device/present.py): its slap keys take the hardware's path (gpiozero ``MockFactory`` ->
``Press`` -> the flow), so a key for a seat that is not in the game is said once on the TV,
as a real button nobody sits at is.  Times are fake CLOCK_MONOTONIC ns."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import logging
from collections.abc import Iterator
from typing import Any

import pygame
import pytest

from device.cli import SIM_SLAP_PINS
from device.console import Console, make_seats
from device.events import FakeQueue, SimKey
from device.lobby import LobbyChoices
from device.phase import Phase
from device.present import SimPresenter
from device.sim import KEYMAP, SimKeyboard
from drivers.clock import FakeClock
from drivers.hand_display import open_hand_display
from drivers.slap import Press, SlapButtons, mock_pin_factory
from drivers.table_display import TableDisplay

S = 1_000_000_000
MS = 1_000_000


@pytest.fixture
def window() -> Iterator[TableDisplay]:
    """The simulator's window on SDL's dummy driver (1600x900, its real size), fake clock."""
    d = TableDisplay("dummy", (1600, 900), clock=FakeClock(10 * S))
    yield d
    d.close()


def sim_console(display: TableDisplay, kinds: tuple[str, ...], game: str,
                **kw: Any) -> tuple[Console, FakeQueue, SimPresenter]:
    """A console built as ``run_sim`` builds it: six dummy handhelds and six slap pins
    (the game plays the first ``len(kinds)``), the simulator's presenter and key map."""
    clock = display.clock
    assert isinstance(clock, FakeClock)
    queue = FakeQueue(clock)
    presenter = SimPresenter(display)
    console = Console(
        clock=clock, queue=queue, presenter=presenter,
        seats=make_seats([open_hand_display(s, "dummy") for s in range(6)], "sim",
                         SIM_SLAP_PINS),
        choices=LobbyChoices(game=game, kinds=kinds), game_seed=5, keymap=KEYMAP, **kw)
    console.start()
    return console, queue, presenter


def tap(keys: SimKeyboard, console: Console, queue: FakeQueue, key: int, t_ns: int) -> list[object]:
    """Press and release ``key`` at ``t_ns`` (50 ms apart) and hand what the keyboard
    posted to the console; returns the posted events."""
    keys(SimKey(key, True, t_ns))
    keys(SimKey(key, False, t_ns + 50 * MS))
    posted = queue.wait(0)
    for event in posted:
        console.handle(event)
    return posted


@pytest.mark.parametrize(("game", "phase"), [("right-on-time", Phase.PLAY),
                                             ("riiing", Phase.WAKEUP)])
def test_a_slap_key_of_a_seat_not_in_the_game_is_said_once_on_the_tv(
    window: TableDisplay, caplog: pytest.LogCaptureFixture, game: str, phase: Phase
) -> None:
    """Key 4 in a 2-seat game presses seat 4's button (a Press, as on a Pi); the TV says
    "Seat 4's button is not in this game" once: pressed again after the notice has gone,
    nothing more is said, and the game goes on (no slap for anyone)."""
    caplog.set_level(logging.WARNING, logger="device.flow")
    console, queue, _tv = sim_console(window, ("human", "computer"), game, skip_lobby=True)
    clock = window.clock
    assert isinstance(clock, FakeClock)
    assert console.phase is phase
    with mock_pin_factory() as factory, SlapButtons(dict(enumerate(SIM_SLAP_PINS)),
                                                    queue.post, pin_factory=factory):
        keys = SimKeyboard(console, factory, queue.post)
        now = clock.now_ns()
        posted = tap(keys, console, queue, pygame.K_4, now)
        assert Press(3, now) in posted
        banner = console.model(clock.now_ns()).banner
        assert "Seat 4's button is not in this game (2 seats play)" in banner
        clock.advance(11 * S)  # the notice has been on the TV for its 10 s
        console.flow.timers.run_due(clock.now_ns())
        assert "Seat 4" not in console.model(clock.now_ns()).banner
        for _ in range(3):
            tap(keys, console, queue, pygame.K_4, clock.now_ns())
            clock.advance(S)
        assert "Seat 4" not in console.model(clock.now_ns()).banner
    said = [r.getMessage() for r in caplog.records if "not in this game" in r.getMessage()]
    assert said == ["Seat 4's button is not in this game (2 seats play)"]
    assert console.phase in (Phase.PLAY, Phase.WAKEUP)  # nothing ended
    console.close()


def test_a_slap_key_of_a_seat_in_the_game_still_presses_its_button(
    window: TableDisplay
) -> None:
    """Key 2 in a 2-seat game presses seat 2's button (no notice): only seats beyond the
    game are named."""
    console, queue, _tv = sim_console(window, ("human", "computer"), "right-on-time",
                                      skip_lobby=True)
    clock = window.clock
    assert isinstance(clock, FakeClock)
    with mock_pin_factory() as factory, SlapButtons(dict(enumerate(SIM_SLAP_PINS)),
                                                    queue.post, pin_factory=factory):
        keys = SimKeyboard(console, factory, queue.post)
        posted = tap(keys, console, queue, pygame.K_2, clock.now_ns())
    assert [type(e).__name__ for e in posted].count("Press") == 1
    assert "not in this game" not in console.model(clock.now_ns()).banner
    console.close()
