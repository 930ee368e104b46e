"""The game flow (docs/architecture.md "Game flow"): lobby -> wake-up race -> play -> game over ->
lobby, as :class:`device.phase.Phase`.

:class:`GameFlow` owns the phase, the lobby, the game session
(:class:`device.session.GameSession`) and the slap race (:class:`device.slap_race.SlapRace`),
and holds the small parts a reader looks for, each in its own module: the TV's notices
(``device.notices``), the restore offer after a power cut (``device.restore_offer``),
tonight's leaderboard (``device.leaderboard``), attract mode (``device.attract``), the How
to play screen (``device.howto``) and the slap margin (``device.slap_margin``).
It turns what the loop hands it — a slap ``Press``/``Release``, a handheld ``KeyPress``, a
timer — into engine actions through the session, and asks the game's plugin
(``device.games``) everything game-specific: whether there is a wake-up race, whether a
slap window is open and for how long, what a slap, a timeout or a false slap is, how an
action reads on the TV.  An action the engine refuses is shown on that seat's hand screen
and the game goes on; it, and a key the seat's hand composer refuses by itself
(``HandComposer.refused``), plays the "refusal" cue.

Times are ``int`` CLOCK_MONOTONIC ns from the loop.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from device.arbiter import LogEntry, SlapDecision, Verdict
from device.atomic_file import write_atomic
from device.attract import DEMO_HINT, AttractMode
from device.game_records import JournalError
from device.games import AnyPlugin, get_plugin
from device.hand_ui import Key
from device.howto import HowtoBook, HowtoScreen
from device.journal import StateError
from device.leaderboard import CLEAR_QUESTION, CLEARED, TonightsBoard
from device.lobby import Lobby, LobbyChoices
from device.menu import MENU_KEY, MenuChoice, SeatMenu
from device.notices import Notices
from device.phase import Phase
from device.render.model import RoundEnd
from device.restore_offer import RestoreOffer
from device.seats import Seat, SeatKind
from device.session import (
    WAKEUP_RACE,
    WINDOW_RACE,
    AnySession,
    GameRecord,
    GameSession,
    GameStore,
    not_resumed,
)
from device.slap_margin import MarginWatch
from device.slap_race import ComputerPress, RaceTiming, SlapRace
from device.timers import Timer, Timers
from device.words import margin_words, seat_name
from drivers.slap import Press
from engine.core import EngineError, Event

log = logging.getLogger("partytable")

MS = 1_000_000
S = 1_000_000_000
SLAP_SHOWN_NS = 4 * S
"""How long the slap winner's reaction time stays large on the table."""
CUES = ("ring", "slap", "lay", "draw", "refusal", "round", "win")
"""The sound cues the flow gives (``cue(name)``): a RIIING! window opens (cued by the console
at the flip that shows it, so the ring never comes before the picture), a slap wins it, a
card is laid, a card is drawn, an action is refused, a round is won, a game is won."""
NEXT_GAME_NS = 8 * S
"""How long the results of a game of computer players only stay before the next deals."""
LOBBY_LINE = "Choose a game, then START"
"""The TV's top line in the lobby."""
NOTICE_NS = 10 * S
"""How long a notice from opening the game database (set aside, carried over) stays."""


class VolumeKnob(Protocol):
    """The sound player's volume step 0..10 (``device.sound.SoundPlayer``)."""

    volume: int


@dataclass(frozen=True, slots=True)
class Timing:
    """The flow's timing knobs (ns unless named otherwise).

    ``bot_move_ns``: how long a computer player waits before a move, so people can follow
    (docs/architecture.md "Modes": about a second); ``wakeup_ns``: the wake-up race's limit (10 s,
    RI-2.3); ``gameover_ns``: how long the results stay before the lobby returns (0: until a
    key); ``round_ns``: how long a round's end stays on the TV before play goes on (0: not
    at all); ``resume_ns``: how long a game restored after a power cut waits on the TV before
    it goes on by itself (a slap or a key goes on at once; 0: at once); ``race``: the slap
    race's knobs (settle time, computer reaction times)."""

    bot_move_ns: int = 1 * S
    wakeup_ns: int = 10 * S
    gameover_ns: int = 0
    round_ns: int = 4 * S
    resume_ns: int = 5 * S
    race: RaceTiming = field(default_factory=RaceTiming)


class GameFlow:
    """The phase machine of one console (see the module docstring).

    ``seats``: every seat the console has (a game uses the first ``len(choices.kinds)``);
    ``timers``: the loop's timers; ``post``: the device queue's ``post``; ``choices``: the
    lobby's starting choices; ``game_seed``: the next game's seed (each later game adds 1,
    also across starts: a database whose newest game has this seed or a later one deals
    the one after it);
    ``state_dir``: where the game database and ``lobby.json`` live (``None``: nowhere);
    ``on_game_over(record)`` once per finished game; ``on_action(count)`` after every
    applied action; ``cue(name)`` for every sound cue (:data:`CUES`).  The constructor does
    no I/O: call :meth:`open`."""

    def __init__(
        self,
        *,
        seats: Sequence[Seat],
        timers: Timers,
        post: Callable[[object], None],
        choices: LobbyChoices,
        game_seed: int,
        timing: Timing,
        state_dir: Path | None = None,
        on_game_over: Callable[[GameRecord], None] | None = None,
        on_action: Callable[[int], None] | None = None,
        cue: Callable[[str], None] | None = None,
        volume: VolumeKnob | None = None,
    ) -> None:
        self.seats = list(seats)
        self.cue: Callable[[str], None] = cue or (lambda name: None)
        """Plays sound cue ``name`` (:data:`CUES`); never raises (``device.sound``)."""
        self.volume = volume
        """The sound player's volume (the lobby's Volume row), or ``None``: no sound."""
        self.timers = timers
        self.post = post
        self.timing = timing
        self.state_dir = state_dir
        self.on_game_over = on_game_over
        self.on_action = on_action
        self.lobby = Lobby(choices, max_seats=max(2, min(6, len(self.seats))),
                           sound=volume is not None)
        self.game_seed = game_seed
        self.phase = Phase.LOBBY
        self.plugin: AnyPlugin = get_plugin(choices.game)
        self.session: AnySession | None = None
        self.store = GameStore(state_dir)
        """The game database (``device.session.GameStore``)."""
        self.board = TonightsBoard(self.store, timers, self._question_over)
        """Tonight's leaderboard and its clear question (``device.leaderboard``)."""
        self.notices = Notices()
        """The lines the party must see on the TV's banner (a damaged lobby.json, the
        restore offer, a state directory that cannot hold the games: ``device.notices``)."""
        self.restore = RestoreOffer(timers, self.notices, self.go_on)  # by itself: no carry
        """A game restored after a power cut, offered on the TV (``device.restore_offer``)."""
        self.attract = AttractMode(timers, self.start_demo)
        """Attract mode: the lobby's idle timer and the demo game (``device.attract``)."""
        self.howto_screen = HowtoScreen()
        """The lobby's "How to play" pages (phase ``HOWTO``, ``device.howto``)."""
        self.round_end: RoundEnd | None = None
        """The round that just ended, on the TV while play waits (``Timing.round_ns``)."""
        self._round_pos: object = None  # the position the held round ended from (TV, hands)
        self._before: object = None  # the position before the action being applied
        self._store_shown = ""
        self._slap_timer: Timer | None = None
        self.race = self._new_race(len(choices.kinds))
        self.last_event = ""
        self.slap_shown: tuple[int, int] | None = None
        """The last won slap for the TV: ``(seat, reaction ms)``."""
        self.slap_margin: tuple[int, int] | None = None
        """With :attr:`slap_shown`: ``(runner-up seat, margin ms)`` when somebody else
        slapped too ("Seat 2 by 12 ms over Seat 4"), else ``None``; a loser's slap up to
        1 s after the decision still counts (:attr:`margin`)."""
        self.margin = MarginWatch(timers, self._margin_changed)
        """Collects the losers' slaps after a decision (``device.slap_margin``)."""
        self._unseated: set[int] = set()
        self.results: tuple[str, ...] = ()
        self.headline = ""
        self._timers: list[Timer] = []

    # ------------------------------------------------------------------ start-up
    def open(self, now_ns: int, *, resume: bool, skip_lobby: bool) -> None:
        """Start the flow: open the game database (its notices go on the TV), continue an
        unfinished game (``resume``), start the lobby's game at once (``skip_lobby``) or
        show the lobby."""
        db = self.store.db()
        newest = None
        if db is not None and resume:  # a console that resumes also carries on its seeds
            with contextlib.suppress(StateError, JournalError):
                newest = next(iter(db.games(1)), None)
        elif db is not None:  # a run that never resumes (headless): its cut games end here
            with contextlib.suppress(StateError):
                db.abandon_unfinished()
        if newest is not None and newest.header.seed >= self.game_seed:
            self.game_seed = newest.header.seed + 1  # each later game adds 1, across starts
        for notice in self.store.notices:  # GameDB.open logged them
            self._flash(notice, now_ns, logged=True)
        self._show_store_problem()
        if self.volume is not None:  # the lobby's remembered volume, else the config's
            if self.lobby.choices.volume is None:
                self.lobby.choices = replace(self.lobby.choices, volume=self.volume.volume)
            else:
                self.volume.volume = self.lobby.choices.volume
        if resume and self.resume(now_ns):
            return
        if skip_lobby:
            self.start_game(now_ns)
        else:
            self.enter_lobby(now_ns)

    @property
    def playing(self) -> list[Seat]:
        """The seats of the game being played (or chosen in the lobby)."""
        return self.seats[: len(self.lobby.choices.kinds)]

    @property
    def pos(self) -> object:
        """The engine position of the game being played, or ``None``."""
        return None if self.session is None else self.session.pos

    @property
    def shown_pos(self) -> object:
        """The position the TV and the hand screens show: :attr:`pos`, except while a
        round's end is held (:attr:`round_end`), when it is the position the round ended
        from, so nobody sees the next round's deal before it is played (RT-2.4 deals it at
        once; this is presentation only)."""
        if self.round_end is not None and self._round_pos is not None:
            return self._round_pos
        return self.pos

    # ------------------------------------------------------------------ input
    def on_press(self, press: Press, now_ns: int) -> None:
        """A slap button's debounced press edge (``press.t_ns``: edge time).  While a
        restored game waits (:attr:`held`), a slap goes on with it; in the lobby it
        answers "Clear tonight's board?" with no."""
        if self.held:
            self.go_on(now_ns, taken_up=True)
            return
        if self.phase is Phase.LOBBY:
            self.board.keep()
        if self.attract.ends(not isinstance(press, ComputerPress)) or self.phase is Phase.HOWTO:
            self.enter_lobby(now_ns)  # somebody at the table wants to play
            return
        if not 0 <= press.seat < len(self.playing) and self.phase in (Phase.PLAY, Phase.WAKEUP):
            if press.seat not in self._unseated:  # once a game: a button nobody sits at
                self._unseated.add(press.seat)
                self._flash(f"{seat_name(press.seat)}'s button is not in this game "
                            f"({len(self.playing)} seats play)", now_ns)
            return
        verdict = self.race.press(press, now_ns)
        if verdict is Verdict.LOSING and self.margin.press(press.seat, press.t_ns, now_ns):
            self._margin_changed(now_ns)  # a loser after the decision: the runner-up

    def on_release(self, seat: int, t_ns: int) -> None:
        """A slap button's release edge."""
        self.race.release(seat, t_ns)

    def on_key(self, seat: int, key: str, now_ns: int) -> None:
        """A handheld key (``"left"``, ``"right"``, ``"select"``, ``"back"``, or ``"menu"``:
        BACK held for 2 s, :mod:`device.menu`) of ``seat``; an unknown key or seat is one
        log line."""
        if key == MENU_KEY and 0 <= seat < len(self.playing):
            if self.phase in (Phase.PLAY, Phase.WAKEUP):
                self.playing[seat].menu = SeatMenu(seat)
            return
        try:
            k = Key(key)
        except ValueError:
            k = None
        if self.held and k is not None and 0 <= seat < len(self.seats):
            # "continue the unfinished game?": any handheld of the console answers, also
            # one the restored game has no seat for (BACK: no, the lobby; else: go on)
            if k is Key.BACK:
                self.decline(now_ns)
            else:
                self.go_on(now_ns, taken_up=True)
            return
        if not 0 <= seat < len(self.playing):
            log.warning("handheld key from seat index %d ignored: %d seats play", seat,
                        len(self.playing))
            return
        if k is None:
            log.warning("%s: unknown handheld key %.30r ignored", seat_name(seat), key)
            return
        menu = self.playing[seat].menu
        if self.attract.ends(True):
            self.enter_lobby(now_ns)
        elif self.phase is Phase.HOWTO:
            if not self.howto_screen.key(k):
                self.enter_lobby(now_ns)
        elif menu is not None:
            self._menu_key(seat, menu, k, now_ns)
        elif self.phase is Phase.LOBBY:
            self._lobby_key(k, now_ns)
        elif self.phase is Phase.GAMEOVER:
            if k in (Key.SELECT, Key.BACK):
                self.enter_lobby(now_ns)
        elif self.phase is Phase.PLAY and self.playing[seat].is_human and self.round_end is None:
            hand = self.playing[seat].hand
            action = hand.key(k)
            if action is not None:
                self.submit(seat, action, now_ns)
            elif hand.refused:  # the composer said no (its reason is on the hand)
                self.cue("refusal")

    def _menu_key(self, seat: int, menu: SeatMenu, k: Key, now_ns: int) -> None:
        choice = menu.key(k)
        if choice is None:
            return
        self.playing[seat].menu = None
        if choice is MenuChoice.CONTINUE:
            return
        log.info("%s ended the game from the handheld menu (%s)", seat_name(seat), choice)
        self.end_game(now_ns, to_lobby=choice is MenuChoice.LOBBY)

    def _lobby_key(self, k: Key, now_ns: int) -> None:
        self.attract.arm(now_ns)
        confirming = self.board.asking
        self.board.keep()  # any key answers the question: only a second SELECT clears
        if k is Key.SELECT and self.lobby.rows()[self.lobby.cursor][0] == "howto":
            self.show_howto(now_ns)
            return
        if k is Key.LEFT:
            self.lobby.move(-1)
        elif k is Key.RIGHT:
            self.lobby.move(1)
        elif self.lobby.change(1 if k is Key.SELECT else -1):
            self.start_game(now_ns)
            return
        chosen = self.lobby.choices.volume
        if self.volume is not None and chosen is not None and chosen != self.volume.volume:
            self.volume.volume = chosen
            self.cue("lay")  # a sample of the new volume
        if self.lobby.clear_asked:
            self.lobby.clear_asked = False
            if confirming:
                self.lobby.board = self.board.clear()
                self.lobby.cursor = min(self.lobby.cursor, len(self.lobby.rows()) - 1)
                self.last_event = CLEARED
            else:
                self.board.ask(now_ns)
                self.last_event = CLEAR_QUESTION
        if self.lobby.choices.game != self.plugin.name:
            self.plugin = get_plugin(self.lobby.choices.game)
        self._make_hands()
        self.show_hands()

    def _question_over(self) -> None:
        """Tonight's board stays (``TonightsBoard.keep``): its question leaves the TV."""
        if self.last_event == CLEAR_QUESTION:
            self.last_event = LOBBY_LINE

    # ------------------------------------------------------------------ phases
    def enter_lobby(self, now_ns: int) -> None:
        """Show the lobby (seats, game, options); the party starts with START."""
        self._cancel_timers()
        self.race.close(now_ns)
        self._close_menus()
        self.round_end = None
        self.attract.on = False
        self.howto_screen.close()
        self.phase = Phase.LOBBY
        self.session = None
        self.margin.stop()
        self.restore.end()
        self.slap_shown = self.slap_margin = None
        self.board.keep()
        self.last_event = LOBBY_LINE
        self.lobby.board = self.board.rows()
        self.notices.drop(DEMO_HINT)
        self.attract.arm(now_ns)
        self.plugin = get_plugin(self.lobby.choices.game)
        self._make_hands()
        self.show_hands()

    @property
    def held(self) -> bool:
        """A game restored after a power cut waits for a slap, a key or its time
        (:attr:`restore`)."""
        return self.restore.held

    @property
    def demo(self) -> bool:
        """A demo game plays (attract mode, :attr:`attract`): computer players only,
        captioned, not journaled; any key or slap returns to the lobby."""
        return self.attract.on

    @property
    def howto(self) -> HowtoBook | None:
        """The "How to play" book shown now (phase ``HOWTO``), or ``None``."""
        return self.howto_screen.book

    def show_howto(self, now_ns: int) -> None:
        """Show the lobby game's "How to play" pages (phase ``HOWTO``); LEFT/RIGHT turn
        the page, BACK (or a slap) returns to the lobby."""
        self.attract.disarm()
        self.howto_screen.open(self.plugin)
        self.phase = Phase.HOWTO
        self.show_hands()

    def start_demo(self, now_ns: int) -> None:
        """Attract mode: computer players play the lobby's game on the TV, each action
        captioned with the rule it applies (``device.attract``); not journaled, never on
        the leaderboard; any key or slap returns to the lobby.  Only from the lobby."""
        if self.phase is not Phase.LOBBY:
            return
        choices = self.lobby.choices
        plugin = get_plugin(choices.game)
        # its own seeds: the party's next game is not moved on
        self._prepare(self.attract.session(plugin, choices, self.game_seed), now_ns)
        self.attract.on = True
        self.notices.show(DEMO_HINT, lobby=True)
        log.info("lobby idle: a demo game of %s", self.plugin.title)
        self.begin(self.attract.first_seat(plugin, choices), now_ns)

    def start_game(self, now_ns: int) -> None:
        """Leave the lobby: save the choices, then run the wake-up race (a plugin with
        ``wakeup_race`` and at least one person, RI-2.3) or deal with the lobby's first
        seat opening (RT-2.3)."""
        choices = self.lobby.choices
        self.attract.disarm()
        self._save_choices(choices)
        self._prepare(GameSession(
            get_plugin(choices.game), choices.kinds, self.game_seed,
            choices.game_options(), first=choices.first, store=self.store,
            strengths=choices.seat_strengths()), now_ns)
        humans = {s.index for s in self.playing if s.is_human}
        if self.plugin.wakeup_race and humans:
            self.phase = Phase.WAKEUP
            self.last_event = "Who got up earliest? SLAP your button!"
            self.race.open(now_ns, length_ns=self.timing.wakeup_ns, eligible=humans,
                           tie_seed=self._session.rng_seed("wakeup"))
            self.show_hands()
        else:
            self.begin(0 if self.plugin.wakeup_race else choices.first, now_ns)

    def begin(self, first: int, now_ns: int) -> None:
        """Deal the prepared game with ``first`` to move and start playing."""
        self._cancel_timers()
        self.race.close(now_ns)
        try:
            self._session.start(first)
        except EngineError as err:  # options the engine refuses: say so, back to the lobby
            log.error("cannot start %s: %s", self.plugin.title, err)
            self.enter_lobby(now_ns)
            self.notices.show(f"Cannot start: {err.message}", lobby=True)
            return
        self.phase = Phase.PLAY
        if not self.last_event.startswith("Nobody"):
            self.last_event = f"{seat_name(first)} starts"
        self._after_action((), now_ns)

    def play_from(self, pos: object, now_ns: int) -> None:
        """Continue playing from ``pos``, a position of the lobby's chosen game with as many
        seats as the lobby (rule tests in notation drive the device this way).  Raises
        ``ValueError`` when the seat counts differ."""
        choices = self.lobby.choices
        plugin = get_plugin(choices.game)
        seats = plugin.seats(pos)
        if seats != len(choices.kinds):
            raise ValueError(f"position has {seats} seats, the lobby {len(choices.kinds)}")
        self._prepare(GameSession(plugin, choices.kinds, self.game_seed,
                                  choices.game_options(), first=choices.first,
                                  strengths=choices.seat_strengths()), now_ns)
        self._session.pos = pos
        self.phase = Phase.PLAY
        self._after_action((), now_ns)

    def resume(self, now_ns: int) -> bool:
        """After a power cut or crash: restore the unfinished game at its exact position
        (``GameSession.resume``) and offer it on the TV with the seconds left
        (``device.restore_offer``): it goes on with a slap or a key, is declined with BACK
        (:meth:`decline`), or goes on by itself after ``timing.resume_ns`` (:meth:`go_on`).
        A restored game that is already over (cut between its last action and its end
        mark) shows its result (the game-over screen) and is ended, never dealt anew; one
        that cannot be restored is named on the TV (``GameStore.restore_problem``).
        Returns False (nothing changes) when there is none."""
        if self.state_dir is None:
            return False
        session = GameSession.resume(self.store)
        if self.store.restore_problem:  # GameSession.resume logged why
            self._flash(self.store.restore_problem, now_ns, logged=True)
        if session is None:
            return False
        if len(session.kinds) > len(self.seats):  # marked, so it is not tried at every start
            db = self.store.db()
            if db is not None and session.journal.game_id is not None:  # logs it
                not_resumed(self.store, db, session.journal.game_id,
                            f"Last game had {len(session.kinds)} seats: not restored",
                            f"{len(session.kinds)} seats, the console has {len(self.seats)}")
                self._flash(self.store.restore_problem, now_ns, logged=True)
            return False
        choices = LobbyChoices(game=session.plugin.name, kinds=session.kinds,
                               first=session.record.first, strengths=session.strengths,
                               volume=self.lobby.choices.volume)
        # what the command line (or lobby.json) asked for comes back if the offer is declined
        asked = (self.lobby.choices, self.game_seed)
        offered = {o.name: o.values for o in session.plugin.lobby_options}
        for name, value in session.record.options.items():
            if value in offered.get(name, ()):
                choices = choices.with_option(name, value)
        self.lobby.choices = choices
        self.game_seed = session.seed
        self._prepare(session, now_ns)
        self.phase = Phase.PLAY
        self.last_event = f"Game restored after {session.step} actions"
        if session.unread:  # the replay stopped early: the actions after it are lost
            self._flash(f"Restored after {session.step} actions; {session.unread} could not "
                        "be read", now_ns)
        outcome = session.outcome
        if outcome is not None:  # cut between its last action and its end mark: its result
            self._game_over(outcome.winner, f"{outcome.reason} (restored)", now_ns)
            return True
        if self.timing.resume_ns <= 0:
            self.go_on(now_ns, held=False)
            return True
        self.restore.offer(now_ns, self.timing.resume_ns, asked)
        self.show_hands()
        return True

    def decline(self, now_ns: int) -> None:
        """The party does not want the restored game: it ends without a winner (never
        offered again) and the lobby opens with the choices the console was started with
        (the command line's game, seats, strengths and options, not the restored game's;
        the volume stays) and a seed after the declined game's.  Nothing happens unless a
        game is held."""
        if not self.held or self.session is None:
            return
        asked = self.restore.end()
        log.info("restored game declined; back to the lobby")
        self.session.close(None, abandoned=True)
        if asked is not None:  # the lobby the console was started with
            choices, seed = asked
            self.lobby.choices = replace(choices, volume=self.lobby.choices.volume)
            self.game_seed = max(seed, self.game_seed + 1)  # never the declined game's seed
        self.enter_lobby(now_ns)

    def go_on(self, now_ns: int, *, held: bool = True, taken_up: bool = False) -> None:
        """The restored game goes on: its computer players, slap windows and timers start
        again from the restored position.  ``taken_up``: the party answered the offer (a
        slap or a key, not the time running out), so tonight's leaderboard goes on with
        the night the game was played in (``GameStore.carry_night``: a power cut in the
        middle of a party).  Nothing happens unless a game is held."""
        if held and not self.held:
            return
        if taken_up and self.session is not None and self.session.journal.game_id is not None:
            self.store.carry_night(self.session.journal.game_id)
        self.restore.end()
        self.last_event = "The game goes on"
        log.info("restored game goes on")
        self._after_action((), now_ns)

    def abandon(self, now_ns: int) -> None:
        """End the game being played without a winner and return to the lobby; the journal
        records it, so it is not resumed later."""
        self.end_game(now_ns, to_lobby=True)

    def end_game(self, now_ns: int, *, to_lobby: bool) -> None:
        """End the game being played now, without a winner (the handheld menu's END and
        LOBBY, the simulator's DELETE): the journal marks it so it is never resumed; then
        the lobby (``to_lobby``) or the results.  Outside a game nothing happens."""
        if self.phase not in (Phase.PLAY, Phase.WAKEUP) or self.session is None:
            return
        if self.phase is Phase.WAKEUP or to_lobby:
            if self.phase is Phase.PLAY:
                self.session.close(None, abandoned=True)
            log.info("game abandoned; back to the lobby")
            self.enter_lobby(now_ns)
            return
        self._game_over(None, "ended from a handheld", now_ns, abandoned=True)

    # ------------------------------------------------------------------ actions
    def submit(self, seat: int | None, action: object, now_ns: int, note: str = "") -> bool:
        """Apply ``action`` (an action of the game being played, from its plugin, a hand
        composer or a computer player) for ``seat`` (``None``: the device itself).  An
        action the engine refuses is shown on that seat's hand screen; returns whether it
        applied.  The logs name it by its text (``str(action)``)."""
        if self.session is None or self.phase is not Phase.PLAY:
            return False
        self._before = self.session.pos
        text = str(action)
        try:
            events = self.session.apply(seat, action, note)
        except EngineError as err:
            log.warning("refused %r: %s", text, err)
            self.cue("refusal")
            if seat is not None and 0 <= seat < len(self.playing):
                self.playing[seat].hand.notice(("No: " + err.message)[:21])
            return False
        log.info("%s: %s%s", "device" if seat is None else seat_name(seat), text,
                 f" ({note})" if note else "")
        self._after_action(events, now_ns)
        return True

    def _after_action(self, events: Sequence[Event], now_ns: int) -> None:
        session = self._session
        self._cancel_timers()
        line = self.plugin.narrate(events)
        if self.slap_shown is not None and any(e.kind == "slap" for e in events):
            line = self._slap_line()
        line = self.attract.line(self.plugin, events, session.pos, line)  # a demo teaches
        if line:
            self.last_event = line
            log.info("table: %s", line)
        if self.on_action is not None:
            self.on_action(session.step)
        for name in self.plugin.cues(events):
            self.cue(name)
        self._show_store_problem()
        self.race.close(now_ns)
        outcome = session.outcome
        if outcome is not None:
            self._game_over(outcome.winner, outcome.reason, now_ns)
            return
        ended = self.plugin.round_end(events, session.pos)
        if ended is not None and self.timing.round_ns > 0:
            # the round's end stays on the TV before anybody plays on (presentation only:
            # the position, the journal and every seeded draw are the same)
            self.round_end = ended
            self._round_pos = self._before
            self._timer(now_ns + self.timing.round_ns, self._round_shown, "round shown")
            self.show_hands()
            return
        self._play_on(events, now_ns)

    def _round_shown(self, now_ns: int) -> None:
        self.round_end = None
        if self.phase is Phase.PLAY and self.session is not None:
            self._play_on((), now_ns)

    def _play_on(self, events: Sequence[Event], now_ns: int) -> None:
        """Open the RIIING! window the position shows, or time the computer's move."""
        session = self._session
        if self.plugin.window_open(session.pos):
            # RI-6.1: a reverse appeared; the device window opens at the flip that shows it
            # (the console cues the ring at that flip)
            reactions = session.computer_reactions(self.timing.race)
            self.margin.window(reactions)
            self.race.open(now_ns, length_ns=self.plugin.window_ns(session.pos),
                           reactions=reactions, tie_seed=session.rng_seed("tie"))
        else:
            to_move = self.plugin.to_move(session.pos)
            if to_move in session.bots:
                pause = self.plugin.pause_after(events) * self.timing.bot_move_ns
                self._timer(now_ns + pause, self._computer_move, "computer move")
        self.show_hands()

    def _computer_move(self, now_ns: int) -> None:
        if self.phase is not Phase.PLAY or self.session is None:
            return
        seat = self.plugin.to_move(self.session.pos)
        action = None if seat is None else self.session.computer_move(seat)
        if action is None or seat is None:
            return
        if not self.submit(seat, action, now_ns):
            # a computer player must never stall the table: take the first legal action
            self.submit(seat, self.session.engine.legal(self.session.pos)[0], now_ns)

    # ------------------------------------------------------------------ the slap race
    def _new_race(self, seats: int) -> SlapRace:
        return SlapRace(seats, timers=self.timers, post=self.post, timing=self.timing.race,
                        on_won=self._slap_won, on_timeout=self._slap_timeout,
                        on_false_slap=self._false_slap, on_note=self._race_note)

    def _slap_won(self, decision: SlapDecision, now_ns: int) -> None:
        if decision.tie:
            log.info("slap tie broken by the device RNG: %s wins", seat_name(decision.seat))
        if self.phase is Phase.WAKEUP:
            log.info("wake-up race: %s slapped first", seat_name(decision.seat))
            self.begin(decision.seat, now_ns)
        elif self.phase is Phase.PLAY:
            ms = decision.reaction_ns / MS
            self.cue("slap")
            self.slap_shown = (decision.seat, round(ms))
            self.slap_margin = self.margin.decided(decision, now_ns)
            if self._slap_timer is not None:  # an earlier slap's time must not clear this
                self._slap_timer.cancel()
            self._slap_timer = self.timers.call_at(
                now_ns + SLAP_SHOWN_NS, self._clear_slap, "slap shown")
            self.submit(None, self.plugin.slap_action(decision.seat), now_ns,
                        note=f"{ms:.0f} ms")

    def _slap_timeout(self, now_ns: int) -> None:
        if self.phase is Phase.WAKEUP:
            self.last_event = "Nobody slapped: Seat 1 starts"
            self.begin(0, now_ns)
        elif self.phase is Phase.PLAY:
            self.submit(None, self.plugin.timeout_action(), now_ns)

    def _false_slap(self, seat: int, now_ns: int) -> None:
        session = self.session
        if self.phase is not Phase.PLAY or session is None or session.outcome is not None:
            return
        if not 0 <= seat < len(self.playing):
            return
        action = self.plugin.false_slap_action(session.pos, seat)
        if action is not None and self.submit(seat, action, now_ns):
            self.playing[seat].hand.notice("False slap!")

    def _race_note(self, entry: LogEntry) -> None:
        describe = getattr(entry, "describe", None)
        if callable(describe):
            log.info("slap: %s", describe())
        if self.session is None:
            return
        if isinstance(entry, SlapDecision):
            race = WAKEUP_RACE if self.phase is Phase.WAKEUP else WINDOW_RACE
            self.session.note_slap(race, entry)
        else:
            self.session.note(str(getattr(entry, "kind", "note")), entry.to_json())

    def _slap_line(self) -> str:
        """The TV's top line for the slap shown: ``"Seat 2 slapped in 212 ms"``, with
        ``", by 12 ms over Seat 4"`` when there is a runner-up (``""``: no slap shown); the
        margin in :func:`device.words.margin_words`, as the result box says it (RI-6.3)."""
        if self.slap_shown is None:
            return ""
        seat, ms = self.slap_shown
        margin = self.slap_margin
        return f"{seat_name(seat)} slapped in {ms} ms" + (
            f", {margin_words(margin[1])} over {seat_name(margin[0])}" if margin is not None
            else "")

    def _margin_changed(self, now_ns: int) -> None:
        """A loser arrived after the decision (:attr:`margin`): the TV's margin, and its
        top line while that is still the slap's (a caption or a newer event stays)."""
        if self.slap_shown is None:
            return
        old = self._slap_line()
        self.slap_margin = self.margin.shown
        if self.last_event == old:
            self.last_event = self._slap_line()
            log.info("table: %s", self.last_event)

    def _clear_slap(self, now_ns: int) -> None:
        self._slap_timer = None
        self.margin.stop()
        self.slap_shown = self.slap_margin = None

    # ------------------------------------------------------------------ the end
    def _game_over(self, winner: int | None, reason: str, now_ns: int,
                   *, abandoned: bool = False) -> None:
        session = self._session
        self._cancel_timers()
        self.race.close(now_ns)
        self._close_menus()
        self.phase = Phase.GAMEOVER
        session.close(winner, abandoned=abandoned)
        if winner is not None:
            self.cue("win")
        self.headline = f"{seat_name(winner)} WINS!" if winner is not None else "Game over"
        lines = list(self.plugin.results(session.pos))
        windows = 0
        for s in session.record.slaps:
            if s.race == WAKEUP_RACE:
                what = "wake-up race"
            else:
                windows += 1
                what = f"{self.plugin.window_name} #{windows}"
            lines.append(f"{what}: {seat_name(s.seat)} in {s.ms:.0f} ms")
        self.results = tuple(lines[:11])
        self.last_event = "Game over"
        log.info("game over: %s (%s)", self.headline, reason)
        if not self.demo:
            self.game_seed += 1
        self.show_hands()
        if self.demo:
            self._timer(now_ns + NEXT_GAME_NS, self._next_demo, "next demo game")
        elif all(seat.kind is SeatKind.COMPUTER for seat in self.playing) and not abandoned:
            # nobody to press a key (a demo box, the appliance test): the next game deals
            self._timer(now_ns + max(self.timing.gameover_ns, NEXT_GAME_NS), self.start_game,
                        "next computer game")
        elif self.timing.gameover_ns > 0:
            self._timer(now_ns + self.timing.gameover_ns, self.enter_lobby, "lobby")
        if self.on_game_over is not None and not abandoned and not self.demo:
            self.on_game_over(session.record)

    # ------------------------------------------------------------------ helpers
    @property
    def _session(self) -> AnySession:
        if self.session is None:
            raise RuntimeError("no game session")  # a flow bug, caught by the loop
        return self.session

    def _prepare(self, session: AnySession, now_ns: int) -> None:
        """Make ``session`` the game being played: its plugin, seat kinds, a fresh race."""
        self._cancel_timers()
        self.race.close(now_ns)
        self.session = session
        self.plugin = session.plugin
        self.notices.game_starts()  # the lobby's lines go, the notices that run on their own stay
        self.margin.stop()
        self.restore.end()
        self.slap_shown = self.slap_margin = None
        self.results = ()
        for seat, kind in zip(self.seats, session.kinds, strict=False):
            seat.kind = SeatKind(kind)
        self.race = self._new_race(len(session.kinds))
        self._unseated = set()
        self.round_end = None
        self._make_hands()

    def _close_menus(self) -> None:
        for seat in self.seats:
            seat.menu = None

    def _make_hands(self) -> None:
        for seat in self.playing:
            seat.hand = self.plugin.hand(seat.index)

    def show_hands(self) -> None:
        """Give every playing seat's hand composer its view of the game (while a round's
        end is held, the hand it ended with and the round's headline, nobody's turn)."""
        pos = self.shown_pos
        held = self.round_end
        for seat in self.playing:
            view = self.plugin.engine.view(pos, seat.index) if pos is not None else None
            message = ""
            if held is not None and self.phase is Phase.PLAY:
                seat.hand.show(Phase.GAMEOVER, view, held.headline)
                continue
            if self.phase is Phase.GAMEOVER:
                message = self.headline
            elif self.phase is Phase.WAKEUP:
                message = "SLAP to start!" if seat.is_human else "computer"
            # the pages are on the TV; a hand shows the lobby's screen meanwhile
            seat.hand.show(Phase.LOBBY if self.phase is Phase.HOWTO else self.phase, view,
                           message)

    def _save_choices(self, choices: LobbyChoices) -> None:
        if self.state_dir is None:
            return
        try:
            self.state_dir.mkdir(parents=True, exist_ok=True)
            write_atomic(self.state_dir / "lobby.json", json.dumps(choices.to_json()))
        except OSError as err:
            log.error("cannot save the lobby choices in %s: %s", self.state_dir, err)

    def _next_demo(self, now_ns: int) -> None:
        self.enter_lobby(now_ns)
        self.start_demo(now_ns)

    def _show_store_problem(self) -> None:
        """Name a state directory that cannot hold the games on the TV, while it lasts."""
        problem = self.store.problem
        if problem != self._store_shown:
            self.notices.drop(self._store_shown)
            self.notices.show(problem)
            self._store_shown = problem

    def _flash(self, text: str, now_ns: int, *, logged: bool = False) -> None:
        """Show ``text`` on the TV's banner for :data:`NOTICE_NS` (one log line too, unless
        it is ``logged`` already), also across the start of a game; a loop timer at its
        end redraws the TV without it."""
        if not logged:
            log.warning("%s", text)
        self.notices.show(text, until_ns=now_ns + NOTICE_NS)
        self.timers.call_at(now_ns + NOTICE_NS, self.notices.expire, "notice")

    @property
    def banner(self) -> str:
        """The TV's banner now: every notice, joined (``Notices.text``), or ``""``."""
        return self.notices.text()

    def close(self) -> None:
        """Close the game database (idempotent); the flow may go on and opens it again."""
        self.store.close()

    def _timer(self, at_ns: int, fn: Callable[[int], None], name: str) -> None:
        self._timers.append(self.timers.call_at(at_ns, fn, name))

    def _cancel_timers(self) -> None:
        for t in self._timers:
            t.cancel()
        self._timers.clear()
