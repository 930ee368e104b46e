"""The lobby phase of the game flow (``Phase.LOBBY``, docs/architecture.md "Game flow"):
choosing the game, the seats and the rule options, then START.

:class:`LobbyPhase` turns a handheld key in the lobby into a lobby change
(``device.flow.lobby.Lobby``: move, change a value, START), opens the "How to play" pages
(``Phase.HOWTO``, ``device.flow.howto``), asks and answers "Clear tonight's board?"
(``device.flow.leaderboard``), sets the sound player's volume from the Volume row, saves the
choices in ``lobby.json``, starts the attract-mode demo when the lobby idles
(``device.flow.attract``), and leaves the lobby for the wake-up race or the game at START.
Times are ``int`` CLOCK_MONOTONIC ns.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

from device.common.phase import Phase
from device.flow.attract import DEMO_HINT
from device.flow.leaderboard import CLEAR_QUESTION, CLEARED, TonightsBoard
from device.flow.lobby import LobbyChoices
from device.games import get_plugin
from device.hands.composer import HandKey
from device.store.atomic_file import write_atomic
from device.store.session import GameSession

if TYPE_CHECKING:
    from device.flow.parts import FlowParts

log = logging.getLogger("partytable")

LOBBY_LINE = "Choose a game, then START"
"""The TV's top line in the lobby."""
LOBBY_HINT = "Any handheld: < > move   SEL next value   BACK previous"
"""The key hint under the lobby menu on the TV."""


class LobbyPhase:
    """The lobby's keys, tonight's board and the demo's start (see the module docstring);
    ``flow``: the flow it belongs to (its lobby choices, plugin, top line)."""

    def __init__(self, flow: FlowParts) -> None:
        self.flow = flow
        self.board = TonightsBoard(flow.store, flow.timers, self._question_over)
        """Tonight's leaderboard and its clear question (``device.flow.leaderboard``)."""

    def enter(self, now_ns: int) -> None:
        """The lobby shows (the flow has ended what was before): its top line, tonight's
        board, the idle timer of attract mode, the lobby game's hands."""
        flow = self.flow
        self.board.keep()
        flow.last_event = LOBBY_LINE
        flow.lobby.board = self.board.rows()
        flow.notices.drop(DEMO_HINT)
        flow.attract.arm(now_ns)
        flow.plugin = get_plugin(flow.lobby.choices.game)
        flow.make_hands()
        flow.show_hands()

    def key(self, k: HandKey, now_ns: int) -> None:
        """A handheld key in the lobby: LEFT/RIGHT move the highlight, SELECT/BACK change
        the highlighted row's value (START starts the game, "How to play" opens the pages);
        any key answers "Clear tonight's board?" (only a second SELECT clears).  The row
        highlighted after it is logged at INFO (``lobby: row 7 START``): what the TV's
        highlight shows, for a tester reading the log."""
        flow = self.flow
        lobby = flow.lobby
        flow.attract.arm(now_ns)
        confirming = self.board.asking
        self.board.keep()  # any key answers the question: only a second SELECT clears
        if k is HandKey.SELECT and lobby.rows()[lobby.cursor][0] == "howto":
            self.show_howto(now_ns)
            return
        if k is HandKey.LEFT:
            lobby.move(-1)
        elif k is HandKey.RIGHT:
            lobby.move(1)
        elif lobby.change(1 if k is HandKey.SELECT else -1):
            self.start_game(now_ns)
            return
        chosen = lobby.choices.volume
        if flow.volume is not None and chosen is not None and chosen != flow.volume.volume:
            flow.volume.volume = chosen
            flow.cue("lay")  # a sample of the new volume
        if lobby.clear_asked:
            lobby.clear_asked = False
            if confirming:
                lobby.board = self.board.clear()
                lobby.cursor = min(lobby.cursor, len(lobby.rows()) - 1)
                flow.last_event = CLEARED
            else:
                self.board.ask(now_ns)
                flow.last_event = CLEAR_QUESTION
        if lobby.choices.game != flow.plugin.name:
            flow.plugin = get_plugin(lobby.choices.game)
        _, label, value = lobby.rows()[lobby.cursor]
        log.info("lobby: row %d %s%s", lobby.cursor, label, f" = {value}" if value else "")
        flow.make_hands()
        flow.show_hands()

    def start_game(self, now_ns: int) -> None:
        """Leave the lobby: save the choices, then run the wake-up race (a plugin with
        ``wakeup_race`` and at least one person, RI-2.3) or deal with the lobby's first
        seat opening (RT-2.3)."""
        flow = self.flow
        choices = flow.lobby.choices
        flow.attract.disarm()
        self.save_choices(choices)
        flow.prepare(GameSession(
            get_plugin(choices.game), choices.kinds, flow.game_seed,
            choices.game_options(), first=choices.first, store=flow.store,
            strengths=choices.seat_strengths()), now_ns)
        humans = {s.index for s in flow.playing if s.is_human}
        if flow.plugin.wakeup_race and humans:
            flow.open_wakeup(humans, now_ns)
        else:
            flow.begin_play(0 if flow.plugin.wakeup_race else choices.first, now_ns)

    def show_howto(self, now_ns: int) -> None:
        """Show the lobby game's "How to play" pages (phase ``HOWTO``); LEFT/RIGHT turn
        the page, BACK (or a slap) returns to the lobby."""
        flow = self.flow
        flow.attract.disarm()
        flow.howto_screen.open(flow.plugin)
        flow.phase = Phase.HOWTO
        flow.show_hands()

    def start_demo(self, now_ns: int) -> None:
        """Attract mode: computer players play the lobby's game on the TV, each action
        captioned with the rule it applies (``device.flow.attract``); not journaled, never on
        the leaderboard; any key or slap returns to the lobby.  Only from the lobby."""
        flow = self.flow
        if flow.phase is not Phase.LOBBY:
            return
        choices = flow.lobby.choices
        plugin = get_plugin(choices.game)
        # its own seeds: the party's next game is not moved on
        flow.prepare(flow.attract.session(plugin, choices, flow.game_seed), now_ns)
        flow.attract.on = True
        flow.notices.show(DEMO_HINT, lobby=True)
        log.info("lobby idle: a demo game of %s", flow.plugin.title)
        flow.begin_play(flow.attract.first_seat(plugin, choices), now_ns)

    def save_choices(self, choices: LobbyChoices) -> None:
        """Write ``choices`` to ``lobby.json`` in the state directory (none: nothing); a
        failure is one log line."""
        state_dir = self.flow.state_dir
        if state_dir is None:
            return
        try:
            state_dir.mkdir(parents=True, exist_ok=True)
            write_atomic(state_dir / "lobby.json", json.dumps(choices.to_json()))
        except OSError as err:
            log.error("cannot save the lobby choices in %s: %s", state_dir, err)

    def _question_over(self) -> None:
        """Tonight's board stays (``TonightsBoard.keep``): its question leaves the TV."""
        if self.flow.last_event == CLEAR_QUESTION:
            self.flow.last_event = LOBBY_LINE
