"""The simulator: the whole console in one desktop window, played from one keyboard.

The simulator is a keyboard adapter around an ordinary :class:`device.console.Console`:
:class:`SimKeyboard` turns the keys SDL reports (pumped onto the device queue by
:class:`device.reactor.events.SdlPump`) into what the console's hardware would send.

Keys (drawn in the window):

- digits 1-6: the slap button of seat 1-6.  A key press becomes an edge on that seat's
  gpiozero ``MockFactory`` pin stamped with the loop clock when the key was read (SDL
  gives no press time), so the same gpiozero -> ``Press`` -> arbiter path runs as on a Pi;
  the key's release is the button's release.  A seat that is not in the game is pressed
  too: the flow says so once a game on the TV (``GameFlow.on_press``), as for a real
  button nobody sits at.
- LEFT/RIGHT, ENTER, BACKSPACE: the handheld of the seat whose input is expected
  (hot-seat: the person to move); when no person is to move (a computer's turn, the
  restore offer, the attract-mode demo, the lobby, the results screen) the first person
  seat's, else seat 1's: the flow takes any handheld's key there, so BACKSPACE declines
  a restored game and any key ends the demo (``SimKeyboard.active_seat``).
- M: the handheld menu of that seat (on a real handheld: hold BACK for 2 s);
- TAB: drive the next seat's handheld by hand; DELETE: end the game, back to the lobby;
  ESC or closing the window: quit (an unfinished game resumes at the next start).
"""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from device.common.phase import Phase
from device.console import Console, make_seats
from device.hands.menu import MENU_KEY
from device.hands.seats import Handheld, Seat
from device.modes.cli import SIM_SLAP_PINS, VOLUME, default_state_dir, sim_choices, timing_of
from device.modes.present import SimPresenter
from device.reactor.events import (
    Abandon,
    DeviceQueue,
    HandheldBack,
    HandheldGone,
    Quit,
    Redraw,
    SdlPump,
    SimKey,
    Wake,
    quit_on_signals,
)
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
    "M     handheld menu (hold",
    "      BACK on a handheld)",
    "U     pull/plug a serial",
    "      handheld's cable",
    "Del   end game, lobby",
    "Esc   quit (game resumes",
    "      at the next start)",
    "",
    "Lobby: < > pick a row,",
    "Enter change, START",
    "to play.",
)
"""The key map drawn in the simulator window."""


def sim_slap_buttons(pins: Mapping[int, int], post: Callable[[object], None],
                     factory: Any) -> SlapButtons:
    """The simulator's slap buttons: ``pins`` (seat -> mock pin number) on the gpiozero
    ``MockFactory`` ``factory``, posting to ``post``.  A keyboard key is no long lead that
    picks up spikes, and a quick tap's down and up can come in one SDL pump with the same
    stamp, so no press waits for a confirmation here (``confirm_ns=0``: every first edge
    is a press at once); the bounce lockout is the hardware's."""
    return SlapButtons(pins, post, pin_factory=factory, confirm_ns=0,
                       wake=lambda: post(Wake()))


class SimKeyboard:
    """Turns simulator keys (:class:`SimKey`) into device events.

    ``console``: the console the keys drive (read for the hot-seat: phase, seat to move,
    seat kinds), or ``None`` with ``active_seat``/``seat_count`` given (the self-test);
    ``slap_factory``: the gpiozero ``MockFactory`` behind the simulated slap buttons;
    ``post``: the device queue's ``post``."""

    def __init__(self, console: Console | None, slap_factory: Any,
                 post: Callable[[object], None], *,
                 active_seat: Callable[[], int | None] | None = None,
                 seat_count: Callable[[], int] | None = None,
                 serial: Mapping[int, Any] | None = None) -> None:
        self.console = console
        self.slap_factory = slap_factory
        self.post = post
        self.manual_seat: int | None = None
        self._active = active_seat
        self._count = seat_count
        self.serial = dict(serial or {})
        """Seat -> its emulated serial handheld: the arrows press that handheld's keys (they
        reach the console over the pty, as a real handheld's do); U pulls or plugs its
        cable."""

    def seat_count(self) -> int:
        """How many seats the keys can reach."""
        if self._count is not None:
            return self._count()
        return 0 if self.console is None else len(self.console.flow.snapshot().playing)

    def active_seat(self) -> int | None:
        """The seat (0-based) whose handheld the arrows, ENTER and BACKSPACE drive now.

        Hot-seat: the person to move; a seat picked with TAB until it is that seat's turn.
        When no person is to move (a computer's turn, the restore offer of a game of
        computers, the attract-mode demo, the lobby) the first person seat of the game,
        else seat 0: ``GameFlow.on_key`` takes any handheld's key there (BACK declines a
        restored game, any key ends a demo), so no key is dropped.  ``None`` only without
        a console and before a self-test asks a seat (``active_seat`` given)."""
        if self._active is not None:
            return self._active()
        if self.console is None:
            return None
        snap = self.console.flow.snapshot()
        seats = len(snap.playing)
        if snap.phase is Phase.PLAY and snap.pos is not None:
            to_move = snap.plugin.to_move(snap.pos)
            if self.manual_seat is not None and self.manual_seat == to_move:
                self.manual_seat = None  # the seat driven by hand is the one to move now
        if self.manual_seat is not None and self.manual_seat < seats:
            return self.manual_seat
        if snap.phase is Phase.PLAY and snap.pos is not None:
            to_move = snap.plugin.to_move(snap.pos)
            if to_move is not None and 0 <= to_move < seats and snap.playing[to_move].is_human:
                return to_move
        return next((i for i, s in enumerate(snap.playing) if s.is_human), 0)

    def __call__(self, event: object) -> None:
        """Translate one event; anything but a :class:`SimKey` is ignored."""
        if not isinstance(event, SimKey):
            return
        import pygame

        if event.key == pygame.K_ESCAPE and event.down:
            self.post(Quit())
            return
        digit = event.key - pygame.K_1
        if 0 <= digit < len(SIM_SLAP_PINS):
            # every digit is its seat's button, in the game or not: the flow says once on
            # the TV that a button nobody sits at is not in this game, as on a Pi
            edge(self.slap_factory, SIM_SLAP_PINS[digit], event.down, event.t_ns)
            return
        if not event.down:
            return
        if event.key == pygame.K_DELETE:
            self.post(Abandon())
            return
        if event.key == pygame.K_TAB:
            current = self.active_seat()
            seats = max(1, self.seat_count())
            self.manual_seat = 0 if current is None else (current + 1) % seats
            return
        names = {pygame.K_LEFT: "left", pygame.K_RIGHT: "right", pygame.K_RETURN: "select",
                 pygame.K_KP_ENTER: "select", pygame.K_BACKSPACE: "back",
                 pygame.K_UP: "left", pygame.K_DOWN: "right", pygame.K_m: MENU_KEY}
        name = names.get(event.key)
        seat = self.active_seat()
        handheld = self.serial.get(seat) if seat is not None else None
        if event.key == pygame.K_u and handheld is not None:
            if handheld.plugged:
                handheld.unplug()
            else:
                handheld.plug()
            return
        if name is not None and seat is not None:
            if handheld is not None and name != MENU_KEY:
                handheld.press(name, event.t_ns)
            else:
                self.post(KeyPress(seat, name, event.t_ns))


def run_sim(args: argparse.Namespace) -> int:
    """``python -m device --sim`` with a display: the simulator window until ESC, with
    sound at ``--volume`` (default :data:`device.modes.cli.VOLUME`) on the desktop's audio device
    (``SDL_AUDIODRIVER`` picks another, e.g. ``disk``; none: one log line, silence)."""
    from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

    from device.modes.sound import SoundPlayer

    clock = MonotonicClock()
    queue = DeviceQueue()

    quit_on_signals(queue.post)  # before SDL starts: SDL then leaves the signals to us
    sound = SoundPlayer(VOLUME if args.volume is None else args.volume)
    sound.open()  # no audio device: one log line, and the simulator plays silently
    display = TableDisplay("window", (1600, 900), clock=clock)
    try:
        state_dir = (args.state_dir or default_state_dir()).absolute()
        # a bad lobby.json key is one log line each (device.flow.lobby); the TV shows it too
        choices, warning = sim_choices(args, state_dir)
        devices = [open_hand_display(s, "dummy") for s in range(6)]
        presenter = SimPresenter(display)
        factory = MockFactory()
        pins = {seat: pin for seat, pin in enumerate(SIM_SLAP_PINS)}
        seats = make_seats(devices, "sim", SIM_SLAP_PINS)
        serial = _serial_seats(args.serial_seats, len(choices.kinds), seats, queue, clock,
                               presenter)
        with sim_slap_buttons(pins, queue.post, factory) as buttons, serial.link:
            console = Console(
                tickers=[buttons.settle],
                presenter=presenter,
                seats=seats,
                clock=clock,
                queue=queue,
                choices=choices,
                game_seed=args.seed,
                state_dir=state_dir,
                timing=timing_of(args),
                keymap=KEYMAP,
                notice=warning or "",
                resume=True,
                cue=sound.play, volume=sound,
            )
            # keys are read fast while a slap window (or the wake-up race) is open
            console.loop.tickers.append(SdlPump(
                queue.post, busy=lambda: console.flow.snapshot().deadline_ns is not None))
            keyboard = SimKeyboard(console, factory, queue.post, serial=serial.handhelds)
            console.keyboard = keyboard
            presenter.active_seat = keyboard.active_seat
            try:
                console.run()
            finally:
                for handheld in serial.handhelds.values():
                    handheld.stop()
    finally:
        display.close()
        sound.close()
    return 0


@dataclass
class _SerialSeats:
    """The simulator's emulated serial handhelds (seat -> handheld) and the Pi-side link."""

    handhelds: dict[int, Any]
    link: Any


def _serial_seats(count: int, playing: int, seats: list[Seat], queue: DeviceQueue,
                  clock: MonotonicClock, presenter: SimPresenter) -> _SerialSeats:
    """Give the last ``count`` of the ``playing`` seats an emulated serial handheld on a pty
    each, driven by the real Pi-side link (``drivers.serial_handheld``): frames and keys
    cross the pty as they cross a USB cable.  Returns the handhelds and the link (a context
    manager)."""
    from device.modes.emulator import EmulatedHandheld
    from drivers.serial_handheld import SerialHandhelds

    count = min(count, playing)
    chosen = range(playing - count, playing)
    handhelds = {i: EmulatedHandheld(f"sim-seat-{i + 1}", boot_id=0x51A0 + i, clock=clock,
                                     on_frame=lambda: queue.post(Redraw()))
                 for i in chosen}
    link = SerialHandhelds(
        {i: h.handheld_id for i, h in handhelds.items()},
        post=queue.post,
        on_gone=lambda seat, reason: queue.post(HandheldGone(seat, reason, clock.now_ns())),
        on_back=lambda seat: queue.post(HandheldBack(seat, clock.now_ns())),
        clock=clock,
        ports=lambda: [h.path for h in handhelds.values() if h.path],
    )
    for i, handheld in handhelds.items():
        handheld.plug()
        handheld.start()
        seats[i] = Seat(i, Handheld(i, link.open(i), "serial", reports_link=True),
                        slap_pin=seats[i].slap_pin)
        presenter.pictures[i] = handheld.image
    return _SerialSeats(handhelds, link if handhelds else contextlib.nullcontext())


def run_sim_selftest(args: argparse.Namespace) -> int:
    """``python -m device selftest --sim``: the self-test in the simulator window: digits
    are the slap buttons, the arrows, Enter and Backspace the handheld of the seat asked.
    Prints one line per check; exit status 1 with faults."""
    from gpiozero.pins.mock import MockFactory

    from device.games import PLUGINS
    from device.modes.selftest import SelfTest, run_selftest

    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    clock = MonotonicClock()
    queue = DeviceQueue()
    quit_on_signals(queue.post)
    display = TableDisplay("window", (1600, 900), clock=clock)
    seats_n = args.seats or 4
    try:
        devices = [open_hand_display(s, "dummy") for s in range(seats_n)]
        presenter = SimPresenter(display)
        factory = MockFactory()
        seats = make_seats(devices, "sim", SIM_SLAP_PINS)
        pins = {seat: pin for seat, pin in enumerate(SIM_SLAP_PINS[:seats_n])}
        test = SelfTest(seats, next(iter(PLUGINS.values())))

        def asked() -> int | None:
            step = test.step
            return None if step is None else step.seat

        with sim_slap_buttons(pins, queue.post, factory) as buttons:
            keyboard = SimKeyboard(None, factory, queue.post, active_seat=asked,
                                   seat_count=lambda: seats_n)
            presenter.active_seat = asked
            run_selftest(test, clock=clock, queue=queue, presenter=presenter,
                         tickers=[buttons.settle, SdlPump(queue.post)], keyboard=keyboard)
    finally:
        display.close()
    print("\n".join(test.report()))
    return 1 if test.faults else 0
