"""The parts of the game flow every phase handler uses (``device.flow.game_flow``): the seats, the
loop's timers, the lobby's choices, the game session and its plugin, the TV's notices and
top line, the phase's timers, the hand composers.

:class:`FlowParts` holds them and the few services on them; ``device.flow.game_flow.GameFlow`` is
one, with the phase handlers and the input dispatch on top.  Also here: the flow's timing
knobs (:class:`Timing`) and the volume it sets (:class:`VolumeKnob`).  Times are ``int``
CLOCK_MONOTONIC ns from the loop.
"""

from __future__ import annotations

import contextlib
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from device.common.notices import Notices
from device.common.phase import Phase
from device.flow.attract import AttractMode
from device.flow.howto import HowtoScreen
from device.flow.lobby import Lobby, LobbyChoices
from device.games import AnyPlugin, get_plugin
from device.hands.seats import Seat
from device.reactor.timers import Timer, Timers
from device.slaps.race import RaceTiming, SlapRace
from device.store.db_schema import StateError
from device.store.records import JournalError
from device.store.session import AnySession, GameRecord, GameStore
from engine.core import Event

log = logging.getLogger("partytable")

S = 1_000_000_000
NOTICE_NS = 10 * S
"""How long a notice from opening the game database (set aside, carried over) stays."""


class VolumeKnob(Protocol):
    """The sound player's volume step 0..10 (``device.modes.sound.SoundPlayer``)."""

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


class FlowParts(ABC):
    """The game flow's shared parts (see the module docstring; the constructor's arguments are
    described at ``device.flow.game_flow.GameFlow``) and the moves between phases that a phase's
    handler asks for, declared here and made by ``device.flow.game_flow.GameFlow``: a handler
    knows this class, never the flow above it. The constructor does no I/O."""

    race: SlapRace
    """The slap race of the game played (a new one for every game)."""

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
        notice: str = "",
    ) -> None:
        self.seats = list(seats)
        self.cue: Callable[[str], None] = cue or (lambda name: None)
        """Plays sound cue ``name`` (``device.flow.game_flow.CUES``); never raises
        (``device.modes.sound``)."""
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
        """The lobby's choices and menu (``device.flow.lobby``)."""
        self.game_seed = game_seed
        """The next game's seed."""
        self.phase = Phase.LOBBY
        self.plugin: AnyPlugin = get_plugin(choices.game)
        """The plugin of the game played (or chosen in the lobby)."""
        self.session: AnySession | None = None
        """The game played (or shown at its end), or ``None`` in the lobby."""
        self.store = GameStore(state_dir)
        """The game database (``device.store.session.GameStore``)."""
        self.notices = Notices()
        """The lines the party must see on the TV's banner (a damaged lobby.json, the
        restore offer, a state directory that cannot hold the games: ``device.common.notices``)."""
        self.last_event = ""
        """The TV's top line."""
        self.attract = AttractMode(timers, self.start_demo)
        """Attract mode: the lobby's idle timer and the demo game (``device.flow.attract``)."""
        self.howto_screen = HowtoScreen()
        """The lobby's "How to play" pages (phase ``HOWTO``, ``device.flow.howto``)."""
        self._store_shown = ""
        self._timers: list[Timer] = []
        self._open_phases(notice)

    @abstractmethod
    def _open_phases(self, notice: str) -> None:
        """Make the phase handlers (the last step of the constructor) and show ``notice``
        (a line for the TV's banner until a game starts, e.g. a damaged lobby.json; ``""``:
        none)."""

    # ------------------------------------------------------------------ moves between phases
    @abstractmethod
    def enter_lobby(self, now_ns: int) -> None:
        """Show the lobby (phase ``LOBBY``)."""

    @abstractmethod
    def prepare(self, session: AnySession, now_ns: int) -> None:
        """Make ``session`` the game played (its plugin, seat kinds, a fresh race)."""

    @abstractmethod
    def show_hands(self) -> None:
        """Give every playing seat's hand composer its view of the game."""

    @abstractmethod
    def start_game(self, now_ns: int) -> None:
        """Start the lobby's chosen game (the wake-up race or play)."""

    @abstractmethod
    def start_demo(self, now_ns: int) -> None:
        """Start attract mode's demo game of computer players."""

    @abstractmethod
    def open_wakeup(self, humans: set[int], now_ns: int) -> None:
        """Open the wake-up race (RI-2.3) for the seats ``humans`` (phase ``WAKEUP``)."""

    @abstractmethod
    def begin_play(self, first: int, now_ns: int) -> None:
        """Deal the prepared game with seat ``first`` to move (phase ``PLAY``)."""

    @abstractmethod
    def after_action(self, events: Sequence[Event], now_ns: int) -> None:
        """Go on after an action with ``events`` was applied (or a restored game goes on)."""

    @abstractmethod
    def show_game_over(self, winner: int | None, reason: str, now_ns: int,
                       *, abandoned: bool = False) -> None:
        """End the game played with ``winner`` for ``reason`` (phase ``GAMEOVER``)."""

    @property
    def playing(self) -> list[Seat]:
        """The seats of the game being played (or chosen in the lobby)."""
        return self.seats[: len(self.lobby.choices.kinds)]

    @property
    def game_session(self) -> AnySession:
        """The game session played; raises ``RuntimeError`` when there is none (a flow
        bug, caught by the loop)."""
        if self.session is None:
            raise RuntimeError("no game session")
        return self.session

    def open_store(self, now_ns: int, *, resume: bool) -> None:
        """Open the game database: its notices go on the TV; a console that ``resume``s
        carries on its seeds after the newest game's, one that never resumes (headless)
        ends its cut games here."""
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
            self.flash(notice, now_ns, logged=True)
        self.show_store_problem()

    def close(self) -> None:
        """Close the game database (idempotent); the flow may go on and opens it again."""
        self.store.close()

    def close_menus(self) -> None:
        """Close every seat's handheld menu."""
        for seat in self.seats:
            seat.menu = None

    def make_hands(self) -> None:
        """Give every playing seat a fresh hand composer of the plugin's game."""
        for seat in self.playing:
            seat.hand = self.plugin.hand(seat.index)

    def show_store_problem(self) -> None:
        """Name a state directory that cannot hold the games on the TV, while it lasts."""
        problem = self.store.problem
        if problem != self._store_shown:
            self.notices.drop(self._store_shown)
            self.notices.show(problem)
            self._store_shown = problem

    def flash(self, text: str, now_ns: int, *, logged: bool = False) -> None:
        """Show ``text`` on the TV's banner for :data:`NOTICE_NS` (one log line too, unless
        it is ``logged`` already), also across the start of a game; a loop timer at its
        end redraws the TV without it."""
        if not logged:
            log.warning("%s", text)
        self.notices.show(text, until_ns=now_ns + NOTICE_NS)
        self.timers.call_at(now_ns + NOTICE_NS, self.notices.expire, "notice")

    def timer(self, at_ns: int, fn: Callable[[int], None], name: str) -> None:
        """Call ``fn(now_ns)`` at ``at_ns``, unless the phase's timers are cancelled first
        (:meth:`cancel_timers`: the next action, the lobby, the game's end)."""
        self._timers.append(self.timers.call_at(at_ns, fn, name))

    def cancel_timers(self) -> None:
        """Cancel every timer set with :meth:`timer`."""
        for t in self._timers:
            t.cancel()
        self._timers.clear()
