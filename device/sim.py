"""The simulator: the whole console in one desktop window, played from one keyboard.

Keys (drawn in the window):

- digits 1-6: the slap button of seat 1-6.  A key press becomes an edge on that seat's
  gpiozero ``MockFactory`` pin stamped with the loop clock when the key was read (SDL
  gives no press time), so the same gpiozero -> ``Press`` -> arbiter path runs as on a Pi;
  the key's release is the button's release.
- LEFT/RIGHT, ENTER, BACKSPACE: the handheld of the seat whose input is expected
  (hot-seat: the seat to move; in the lobby and on the results screen any seat).
- TAB: drive the next seat's handheld by hand; DELETE: end the game, back to the lobby;
  ESC or closing the window: quit (an unfinished game resumes at the next start).
"""

from __future__ import annotations

import argparse
import os
import signal
from typing import Any

from device.console import Console
from device.events import SdlQueue, SimKey
from device.main import SIM_SLAP_PINS, default_state_dir, sim_choices, timing_of
from device.present import SimPresenter
from drivers.clock import MonotonicClock
from drivers.hand_display import open_hand_display
from drivers.keys import KeyPress
from drivers.slap import SlapButtons, edge
from drivers.table_display import TableDisplay

KEYMAP = (
    "KEYS",
    "1-6   slap button, seat 1-6",
    "< >   handheld: move",
    "Enter handheld: select",
    "Bksp  handheld: back",
    "Tab   next handheld",
    "Del   end game, lobby",
    "Esc   quit (game resumes",
    "      at the next start)",
    "",
    "Lobby: < > pick a row,",
    "Enter change, START",
    "to play.",
)
"""The key map drawn in the simulator window."""


class SimConsole(Console):
    """A :class:`Console` that also reads the simulator's keyboard.

    ``slap_factory``: the gpiozero ``MockFactory`` behind the simulated slap buttons."""

    def __init__(self, *, slap_factory: Any, presenter: SimPresenter, **kw: Any) -> None:
        self.slap_factory = slap_factory
        self.sim_presenter = presenter
        self.manual_seat: int | None = None
        super().__init__(presenter=presenter, keymap=KEYMAP, **kw)

    def active_seat(self) -> int | None:
        """The seat whose handheld the arrows drive now (hot-seat), or ``None``."""
        if self.manual_seat is not None and self.manual_seat < len(self.hands):
            return self.manual_seat
        if self.phase in ("lobby", "gameover", "wakeup"):
            return 0
        if self.pos is None or self.record is None:
            return None
        to_move = self.game.view(self.pos, None).to_move
        if to_move is not None and self.record.kinds[to_move] == "human":
            return int(to_move)
        return None

    def handle(self, event: object) -> None:
        """Translate simulator keys, then handle as any device event."""
        if not isinstance(event, SimKey):
            super().handle(event)
            return
        import pygame

        if event.key == pygame.K_ESCAPE and event.down:
            self.stop()
            return
        digit = event.key - pygame.K_1
        if 0 <= digit < len(SIM_SLAP_PINS):
            if digit < len(self.hands):
                edge(self.slap_factory, SIM_SLAP_PINS[digit], event.down, event.t_ns)
            return
        if not event.down:
            return
        if event.key == pygame.K_DELETE:
            self.abandon(event.t_ns)
            return
        if event.key == pygame.K_TAB:
            current = self.active_seat()
            self.manual_seat = 0 if current is None else (current + 1) % len(self.hands)
            return
        names = {pygame.K_LEFT: "left", pygame.K_RIGHT: "right", pygame.K_RETURN: "select",
                 pygame.K_KP_ENTER: "select", pygame.K_BACKSPACE: "back",
                 pygame.K_UP: "left", pygame.K_DOWN: "right"}
        name = names.get(event.key)
        seat = self.active_seat()
        if name is not None and seat is not None:
            super().handle(KeyPress(seat, name, event.t_ns))

    def render(self, now_ns: int) -> None:
        """Mark the hot-seat handheld, then draw."""
        if self.manual_seat is not None and self.phase == "play" and self.pos is not None:
            to_move = self.game.view(self.pos, None).to_move
            if to_move == self.manual_seat:
                self.manual_seat = None
        self.sim_presenter.set_active_seat(self.active_seat())
        super().render(now_ns)


def run_sim(args: argparse.Namespace) -> int:
    """``python -m device --sim`` with a display: the simulator window until ESC."""
    from gpiozero.pins.mock import MockFactory

    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    # Hand Ctrl-C and SIGTERM to SDL: it installs its own handlers only over the default
    # ones, and turns both into SDL_QUIT, which wakes the loop's wait (a Python handler
    # would run only after the next event) and ends the simulator cleanly.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    clock = MonotonicClock()
    display = TableDisplay("window", (1600, 900), clock=clock)
    try:
        queue = SdlQueue(clock)
        state_dir = args.state_dir or default_state_dir()
        choices, warning = sim_choices(args, state_dir)
        if warning:
            print(warning)  # the lobby shows it on the TV too (below)
        devices = [open_hand_display(s, "dummy") for s in range(6)]
        presenter = SimPresenter(display, devices)
        factory = MockFactory()
        pins = {seat: pin for seat, pin in enumerate(SIM_SLAP_PINS)}
        with SlapButtons(pins, queue.post, pin_factory=factory) as buttons:
            console = SimConsole(
                driver_timers=[buttons.settle],
                slap_factory=factory,
                presenter=presenter,
                clock=clock,
                queue=queue,
                choices=choices,
                game_seed=args.seed,
                state_dir=state_dir,
                timing=timing_of(args),
                notice=warning or "",
                resume=True,
            )
            console.run()
    finally:
        display.close()
    return 0
