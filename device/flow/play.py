"""The play phase of the game flow (``Phase.PLAY``, docs/architecture.md "Game flow"): a
game is played.

:class:`PlayPhase` deals the prepared game (or goes on from a given position), ends it
without a winner when a handheld's menu or the simulator asks, and turns a handheld key, a
slap and a timer into engine actions through the game session (``GameFlow.session``); it
asks the game's plugin what a slap, a timeout or a false slap is, whether a slap window
opens and for how long, and how an action reads on the TV. An action the engine refuses is
shown on that seat's hand screen and the game goes on; it, and a key the hand composer
refuses by itself, plays the "refusal" cue. Its own state: the won slap on the TV
(:class:`~device.flow.slap_display.SlapDisplay`), the round held on the TV
(:class:`~device.flow.round_hold.RoundHold`), the buttons pressed that nobody sits at, the
position before the action being applied. Times are ``int`` CLOCK_MONOTONIC ns from the
loop.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from device.common.phase import Phase
from device.common.words import seat_name
from device.flow.round_hold import RoundHold
from device.flow.slap_display import MS, SlapDisplay
from device.games import AnyPlugin, get_plugin
from device.hands.composer import HandKey
from device.hands.seats import Seat
from device.slaps.arbiter import LogEntry, SlapDecision, Verdict
from device.store.session import WAKEUP_RACE, WINDOW_RACE, AnySession, GameSession
from drivers.slap import Press
from engine.core import EngineError, Event

if TYPE_CHECKING:
    from device.flow.parts import FlowParts

log = logging.getLogger("partytable")


class PlayPhase:
    """A game being played (see the module docstring); ``flow``: the flow it belongs to
    (its session, plugin, race, timers and top line)."""

    def __init__(self, flow: FlowParts) -> None:
        self.flow = flow
        self.slap = SlapDisplay(flow.timers, self._slap_line_changed)
        """The won slap on the TV and its margin (``device.flow.slap_display``)."""
        self.rounds = RoundHold()
        """The round whose end is held on the TV (``device.flow.round_hold``)."""
        self._before: object = None  # the position before the action being applied
        self._unseated: set[int] = set()

    @property
    def plugin(self) -> AnyPlugin:
        """The plugin of the game played."""
        return self.flow.plugin

    @property
    def session(self) -> AnySession | None:
        """The game session played, or ``None``."""
        return self.flow.session

    @property
    def playing(self) -> list[Seat]:
        """The seats of the game played."""
        return self.flow.playing

    def reset(self) -> None:
        """A new game or the lobby: no slap and no round shown, every button seated."""
        self.slap.reset()
        self.rounds.release()
        self._unseated = set()

    def begin(self, first: int, now_ns: int) -> None:
        """Deal the prepared game (``GameFlow.prepare``) with ``first`` to move and start
        playing; options the engine refuses are named on the TV and the lobby returns."""
        flow = self.flow
        flow.cancel_timers()
        flow.race.close(now_ns)
        try:
            flow.game_session.start(first)
        except EngineError as err:  # options the engine refuses: say so, back to the lobby
            log.error("cannot start %s: %s", self.plugin.title, err)
            flow.enter_lobby(now_ns)
            flow.notices.show(f"Cannot start: {err.message}", lobby=True)
            return
        flow.phase = Phase.PLAY
        if not flow.last_event.startswith("Nobody"):
            flow.last_event = f"{seat_name(first)} starts"
        self.after_action((), now_ns)

    def play_from(self, pos: object, now_ns: int) -> None:
        """Continue playing from ``pos``, a position of the lobby's chosen game with as many
        seats as the lobby (rule tests in notation drive the device this way).  Raises
        ``ValueError`` when the seat counts differ."""
        flow = self.flow
        choices = flow.lobby.choices
        plugin = get_plugin(choices.game)
        seats = plugin.seats(pos)
        if seats != len(choices.kinds):
            raise ValueError(f"position has {seats} seats, the lobby {len(choices.kinds)}")
        flow.prepare(GameSession(plugin, choices.kinds, flow.game_seed,
                                 choices.game_options(), first=choices.first,
                                 strengths=choices.seat_strengths()), now_ns)
        flow.game_session.pos = pos
        flow.phase = Phase.PLAY
        self.after_action((), now_ns)

    def end(self, now_ns: int, *, to_lobby: bool) -> None:
        """End the game being played now, without a winner (the handheld menu's END and
        LOBBY, the simulator's DELETE): the journal marks it so it is never resumed; then
        the lobby (``to_lobby``, and always from the wake-up race) or the results.  Outside
        a game nothing happens."""
        flow = self.flow
        if flow.phase not in (Phase.PLAY, Phase.WAKEUP) or flow.session is None:
            return
        if flow.phase is Phase.WAKEUP or to_lobby:
            if flow.phase is Phase.PLAY:
                flow.session.close(None, abandoned=True)
            log.info("game abandoned; back to the lobby")
            flow.enter_lobby(now_ns)
            return
        flow.show_game_over(None, "ended from a handheld", now_ns, abandoned=True)

    # ------------------------------------------------------------------ input
    def press(self, press: Press, now_ns: int) -> None:
        """A slap press for the race; during a game a button nobody sits at is named on
        the TV once a game, and a loser's press after a decision may give the margin."""
        flow = self.flow
        if not 0 <= press.seat < len(self.playing) and flow.phase in (Phase.PLAY, Phase.WAKEUP):
            if press.seat not in self._unseated:  # once a game: a button nobody sits at
                self._unseated.add(press.seat)
                flow.flash(f"{seat_name(press.seat)}'s button is not in this game "
                           f"({len(self.playing)} seats play)", now_ns)
            return
        verdict = flow.race.press(press, now_ns)
        if verdict is Verdict.LOSING:
            self.slap.loser(press.seat, press.t_ns, now_ns)  # after the decision: runner-up

    def key(self, seat: int, k: HandKey, now_ns: int) -> None:
        """A handheld key of a person playing ``seat``: its hand composer may make an
        action; nothing while a round's end is held."""
        if self.playing[seat].is_human and self.rounds.round_end is None:
            hand = self.playing[seat].hand
            action = hand.key(k)
            if action is not None:
                self.submit(seat, action, now_ns)
            elif hand.refused:  # the composer said no (its reason is on the hand)
                self.flow.cue("refusal")

    # ------------------------------------------------------------------ actions
    def submit(self, seat: int | None, action: object, now_ns: int, note: str = "") -> bool:
        """Apply the engine action ``action`` (from the plugin, the seat's hand composer or a
        computer player) for ``seat`` (``None``: the device itself).  An action the engine
        refuses is shown on that seat's hand screen; returns whether it applied.  The logs
        name it by its text (``str(action)``)."""
        text = str(action)
        if self.session is None or self.flow.phase is not Phase.PLAY:
            return False
        self._before = self.session.pos
        try:
            events = self.session.apply(seat, action, note)
        except EngineError as err:
            log.warning("refused %r: %s", text, err)
            self.flow.cue("refusal")
            if seat is not None and 0 <= seat < len(self.playing):
                self.playing[seat].hand.notice(("No: " + err.message)[:21])
            return False
        log.info("%s: %s%s", "device" if seat is None else seat_name(seat), text,
                 f" ({note})" if note else "")
        self.after_action(events, now_ns)
        return True

    def after_action(self, events: Sequence[Event], now_ns: int) -> None:
        """After ``events`` (``()``: play starts or goes on): the TV's line, the cues, the
        game's end, a round's end held, else the next window or computer move."""
        flow = self.flow
        session = flow.game_session
        flow.cancel_timers()
        line = self.plugin.narrate(events)
        if self.slap.slap_shown is not None and any(e.kind == "slap" for e in events):
            line = self.slap.line()
        line = flow.attract.line(self.plugin, events, session.pos, line)  # a demo teaches
        if line:
            flow.last_event = line
            log.info("table: %s", line)
        if flow.on_action is not None:
            flow.on_action(session.step)
        for name in self.plugin.cues(events):
            flow.cue(name)
        flow.show_store_problem()
        flow.race.close(now_ns)
        outcome = session.outcome
        if outcome is not None:
            flow.show_game_over(outcome.winner, outcome.reason, now_ns)
            return
        ended = self.plugin.round_end(events, session.pos)
        if ended is not None and flow.timing.round_ns > 0:
            # the round's end stays on the TV before anybody plays on (presentation only:
            # the position, the journal and every seeded draw are the same)
            self.rounds.hold(ended, self._before)
            flow.timer(now_ns + flow.timing.round_ns, self._round_shown, "round shown")
            flow.show_hands()
            return
        self._play_on(events, now_ns)

    def _round_shown(self, now_ns: int) -> None:
        self.rounds.release()
        if self.flow.phase is Phase.PLAY and self.session is not None:
            self._play_on((), now_ns)

    def _play_on(self, events: Sequence[Event], now_ns: int) -> None:
        """Open the RIIING! window the position shows, or time the computer's move."""
        flow = self.flow
        session = flow.game_session
        windows = self.plugin.windows
        if windows is not None and windows.window_open(session.pos):
            # RI-6.1: a reverse appeared; the device window opens at the flip that shows it
            # (the console cues the ring at that flip)
            reactions = session.computer_reactions(flow.timing.race)
            self.slap.margin.window(reactions)
            flow.race.open(now_ns, length_ns=windows.window_ns(session.pos),
                           reactions=reactions, tie_seed=session.rng_seed("tie"))
        else:
            to_move = self.plugin.to_move(session.pos)
            if to_move in session.bots:
                pause = self.plugin.pause_after(events) * flow.timing.bot_move_ns
                flow.timer(now_ns + pause, self._computer_move, "computer move")
        flow.show_hands()

    def _computer_move(self, now_ns: int) -> None:
        if self.flow.phase is not Phase.PLAY or self.session is None:
            return
        seat = self.plugin.to_move(self.session.pos)
        action = None if seat is None else self.session.computer_move(seat)
        if action is None or seat is None:
            return
        if not self.submit(seat, action, now_ns):
            # a computer player must never stall the table: take the first legal action
            self.submit(seat, self.session.engine.legal(self.session.pos)[0], now_ns)

    # ------------------------------------------------------------------ the slap race
    def slap_won(self, decision: SlapDecision, now_ns: int) -> None:
        """A RIIING! window won: the slap cue, the winner on the TV, the plugin's slap
        action applied (RI-6.3)."""
        windows = self.plugin.windows
        if windows is None:  # only a game with windows opens one
            return
        ms = decision.reaction_ns / MS
        self.flow.cue("slap")
        self.slap.won(decision, now_ns)
        self.submit(None, windows.slap_action(decision.seat), now_ns,
                    note=f"{ms:.0f} ms")

    def slap_timeout(self, now_ns: int) -> None:
        """A RIIING! window timed out: the plugin's timeout action (RI-6.4)."""
        windows = self.plugin.windows
        if windows is not None:  # only a game with windows opens one
            self.submit(None, windows.timeout_action(), now_ns)

    def false_slap(self, seat: int, now_ns: int) -> None:
        """``seat`` slapped with no window open: the plugin's false-slap action, if any
        (RI-6.6), named on that seat's hand."""
        session = self.session
        if self.flow.phase is not Phase.PLAY or session is None or session.outcome is not None:
            return
        if not 0 <= seat < len(self.playing):
            return
        windows = self.plugin.windows
        action = None if windows is None else windows.false_slap_action(session.pos, seat)
        if action is not None and self.submit(seat, action, now_ns):
            self.playing[seat].hand.notice("False slap!")

    def race_note(self, entry: LogEntry) -> None:
        """One entry of the arbiter's log: one log line, and the game's journal (a
        decision as the wake-up race's or a window's)."""
        log.info("slap: %s", entry.describe())
        if self.session is None:
            return
        if isinstance(entry, SlapDecision):
            race = WAKEUP_RACE if self.flow.phase is Phase.WAKEUP else WINDOW_RACE
            self.session.note_slap(race, entry)
        else:
            self.session.note(entry.kind, entry.to_json())

    def _slap_line_changed(self, old: str, new: str) -> None:
        if self.flow.last_event == old:
            self.flow.last_event = new
            log.info("table: %s", new)
