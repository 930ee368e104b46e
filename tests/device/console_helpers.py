"""Helpers for the device tests that run a :class:`device.console.Console` on the SDL dummy
table display: :func:`console_for` builds one the way the tests need it;
:func:`screen_image` is the picture a seat's hand screen model renders to."""

from __future__ import annotations

from typing import Any

from PIL import Image

from device.console import Console, make_seats
from device.flow.lobby import LobbyChoices
from device.hands.composer import HandScreenModel
from device.hands.screen import HandScreen
from device.modes.present import TablePresenter
from device.reactor.events import FakeQueue
from drivers.clock import FakeClock
from drivers.hand_display import open_hand_display
from drivers.table_display import TableDisplay


def console_for(display: TableDisplay, choices: LobbyChoices, seats: list[Any] | int | None = None,
                presenter: Any = None, **kw: Any) -> tuple[Console, FakeClock, FakeQueue]:
    """A console, not started, on the display's fake clock with a queue of its own:
    ``choices`` in the lobby, ``presenter`` on the TV (default the display, without
    motion), ``seats`` (the hand screens, or how many dummy ones; default one per seat of
    ``choices``), game seed 3 unless ``kw`` says; ``kw`` goes to :class:`Console`."""
    clock = display.clock
    assert isinstance(clock, FakeClock)
    queue = FakeQueue(clock)
    tv = TablePresenter(display, motion=False) if presenter is None else presenter
    count = len(choices.kinds) if seats is None else seats
    screens = ([open_hand_display(s, "dummy") for s in range(count)] if isinstance(count, int)
               else count)
    console = Console(clock=clock, queue=queue, presenter=tv, seats=make_seats(screens),
                      choices=choices, **{"game_seed": 3, **kw})
    return console, clock, queue


def screen_image(model: HandScreenModel) -> Image.Image:
    """The 128x64 mode "1" picture ``model`` renders to through the console's own hand
    screen (:class:`device.hands.screen.HandScreen` on a luma dummy device)."""
    from luma.core.device import dummy

    device = dummy(width=128, height=64, mode="1")
    HandScreen(device).render(model)
    return device.image.copy()
