"""The game-over phase of the game flow (``Phase.GAMEOVER``, docs/architecture.md "Game
flow"): the results stay on the TV until a handheld key (or a timer) returns to the lobby.

:class:`GameOverPhase` ends the session (with its winner, or abandoned), gives the TV its
headline and result lines (the plugin's results, then every slap race's winner and time),
and times what comes next: the next demo game, the next game of computer players only, or
the lobby after ``Timing.gameover_ns``.  Times are ``int`` CLOCK_MONOTONIC ns.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from device.common.phase import Phase
from device.common.words import seat_name
from device.hands.composer import HandKey
from device.hands.seats import SeatKind
from device.store.session import WAKEUP_RACE

if TYPE_CHECKING:
    from device.flow.parts import FlowParts

log = logging.getLogger("partytable")

S = 1_000_000_000
NEXT_GAME_NS = 8 * S
"""How long the results of a game of computer players only stay before the next deals."""
RESULT_LINES = 11
"""At most this many result lines on the TV."""


RESULTS_HOLD_NS = 2_000_000_000
"""How long the results stay on the TV before a key may end them: a key pressed in the last
moment of play (the player still hammering SELECT, or a press on its way) must not skip the
winner and the slap chart."""


class GameOverPhase:
    """The results of the game just ended (see the module docstring); ``flow``: the flow
    it belongs to."""

    def __init__(self, flow: FlowParts) -> None:
        self.flow = flow
        self.headline = ""
        """The game-over screen's headline: ``"Seat 2 WINS!"`` or ``"Game over"``."""
        self.results: tuple[str, ...] = ()
        """The result lines of the game just ended (``()`` before its end)."""
        self.shown_ns = 0
        """When the results were shown (CLOCK_MONOTONIC ns)."""

    def clear(self) -> None:
        """A new game: no results yet."""
        self.results = ()

    def show(self, winner: int | None, reason: str, now_ns: int,
             *, abandoned: bool = False) -> None:
        """End the game played with ``winner`` (``None``: nobody) for ``reason`` (a log
        line), ``abandoned`` (ended from a handheld: never resumed, no next computer game,
        no ``on_game_over``), and show its results."""
        flow = self.flow
        session = flow.game_session
        flow.cancel_timers()
        flow.race.close(now_ns)
        flow.close_menus()
        flow.phase = Phase.GAMEOVER
        self.shown_ns = now_ns
        session.close(winner, abandoned=abandoned)
        if winner is not None:
            flow.cue("win")
        self.headline = f"{seat_name(winner)} WINS!" if winner is not None else "Game over"
        lines = list(flow.plugin.results(session.pos))
        windows = 0
        for s in session.record.slaps:
            if s.race == WAKEUP_RACE:
                what = "wake-up race"
            else:
                windows += 1
                what = f"{flow.plugin.window_name} #{windows}"
            lines.append(f"{what}: {seat_name(s.seat)} in {s.ms:.0f} ms")
        self.results = tuple(lines[:RESULT_LINES])
        flow.last_event = "Game over"
        log.info("game over: %s (%s)", self.headline, reason)
        demo = flow.attract.on
        if not demo:
            flow.game_seed += 1
        flow.show_hands()
        if demo:
            flow.timer(now_ns + NEXT_GAME_NS, self._next_demo, "next demo game")
        elif all(seat.kind is SeatKind.COMPUTER for seat in flow.playing) and not abandoned:
            # nobody to press a key (a demo box, the appliance test): the next game deals
            flow.timer(now_ns + max(flow.timing.gameover_ns, NEXT_GAME_NS),
                       flow.start_game, "next computer game")
        elif flow.timing.gameover_ns > 0:
            flow.timer(now_ns + flow.timing.gameover_ns, flow.enter_lobby, "lobby")
        if flow.on_game_over is not None and not abandoned and not demo:
            flow.on_game_over(session.record)

    def key(self, k: HandKey, now_ns: int) -> None:
        """A handheld key on the results: SELECT or BACK returns to the lobby, once they
        have been on the TV for :data:`RESULTS_HOLD_NS`."""
        if k in (HandKey.SELECT, HandKey.BACK) and now_ns - self.shown_ns >= RESULTS_HOLD_NS:
            self.flow.enter_lobby(now_ns)

    def _next_demo(self, now_ns: int) -> None:
        self.flow.enter_lobby(now_ns)
        self.flow.start_demo(now_ns)
