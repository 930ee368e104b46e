"""The game flow (docs/architecture.md "Game flow"): lobby -> wake-up race -> play -> game over ->
lobby, as :class:`device.common.phase.Phase`.

:class:`GameFlow` is the dispatcher the console talks to: it owns the phase, the lobby's
choices, the game session (:class:`device.store.session.GameSession`) and the slap race
(:class:`device.slaps.race.SlapRace`), and hands what the loop gives it — a slap
``Press``/``Release``, a handheld ``KeyPress``, a timer — to the handler of the phase, each
in its own module holding only its own state:

- the lobby's keys, tonight's board and the demo's start (``device.flow.lobby_phase``);
- the "How to play" pages (``device.flow.howto``) and attract mode (``device.flow.attract``);
- a game restored after a power cut, held on the TV (``device.flow.restore_phase``);
- the wake-up race (``device.flow.wakeup``);
- play: actions through the session, the won slap and its margin, the round-end hold
  (``device.flow.play``, ``device.flow.slap_display``, ``device.flow.round_hold``);
- game over: the results (``device.flow.game_over``).

What the TV and the hand screens draw is read in one piece: :meth:`GameFlow.snapshot`
(``device.flow.snapshot``).  The TV's notices live in ``device.common.notices``.

Times are ``int`` CLOCK_MONOTONIC ns from the loop.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace

from device.common.phase import Phase
from device.common.words import seat_name
from device.flow.game_over import GameOverPhase
from device.flow.howto import HOWTO_HINT
from device.flow.lobby_phase import LOBBY_HINT, LobbyPhase
from device.flow.parts import FlowParts, Timing, VolumeKnob
from device.flow.play import PlayPhase
from device.flow.restore_phase import HeldGame
from device.flow.snapshot import FlowSnapshot
from device.flow.wakeup import WakeupPhase
from device.hands.composer import HandKey
from device.hands.menu import MENU_KEY, MenuChoice, SeatMenu
from device.hands.seats import SeatKind
from device.render.model import HowtoShown
from device.slaps.arbiter import SlapDecision
from device.slaps.race import ComputerPress, SlapRace
from device.store.session import AnySession
from drivers.slap import Press
from engine.core import Event

log = logging.getLogger("partytable")

CUES = ("ring", "slap", "lay", "draw", "refusal", "round", "win")
"""The sound cues the flow gives (``cue(name)``): a RIIING! window opens (cued by the console
at the flip that shows it, :meth:`GameFlow.flipped`, so the ring never comes before the
picture), a slap wins it, a card is laid, a card is drawn, an action is refused, a round is
won, a game is won."""


class GameFlow(FlowParts):
    """The phase machine of one console (see the module docstring): the shared parts
    (:class:`~device.flow.parts.FlowParts`), the phase handlers, the slap race.

    ``seats``: every seat the console has (a game uses the first ``len(choices.kinds)``);
    ``timers``: the loop's timers; ``post``: the device queue's ``post``; ``choices``: the
    lobby's starting choices; ``game_seed``: the next game's seed (each later game adds 1,
    also across starts: a database whose newest game has this seed or a later one deals
    the one after it);
    ``state_dir``: where the game database and ``lobby.json`` live (``None``: nowhere);
    ``on_game_over(record)`` once per finished game; ``on_action(count)`` after every
    applied action; ``cue(name)`` for every sound cue (:data:`CUES`); ``volume``: the
    sound player, whose volume the lobby's Volume row sets; ``notice``: a line for the
    TV's banner until a game starts (e.g. a damaged lobby.json).  The constructor does
    no I/O: call :meth:`open`."""

    def _open_phases(self, notice: str) -> None:
        """Make the phase handlers and the first slap race; ``notice`` goes on the TV's
        banner until a game starts (see :meth:`FlowParts._open_phases`)."""
        self.lobby_phase = LobbyPhase(self)
        """The lobby's keys and tonight's board (``device.flow.lobby_phase``)."""
        self.held_game = HeldGame(self)
        """A game restored after a power cut, held on the TV (``device.flow.restore_phase``)."""
        self.wakeup = WakeupPhase(self)
        """The wake-up race (phase ``WAKEUP``, ``device.flow.wakeup``)."""
        self.play = PlayPhase(self)
        """The game played (phase ``PLAY``, ``device.flow.play``)."""
        self.over = GameOverPhase(self)
        """The results (phase ``GAMEOVER``, ``device.flow.game_over``)."""
        self.race = self._new_race(len(self.lobby.choices.kinds))
        self.notices.show(notice, lobby=True)  # until a game starts

    # ------------------------------------------------------------------ start-up
    def open(self, now_ns: int, *, resume: bool, skip_lobby: bool) -> None:
        """Start the flow: open the game database (its notices go on the TV), continue an
        unfinished game (``resume``), start the lobby's game at once (``skip_lobby``) or
        show the lobby."""
        self.open_store(now_ns, resume=resume)
        if self.volume is not None:  # the lobby's remembered volume, else the config's
            if self.lobby.choices.volume is None:
                self.lobby.choices = replace(self.lobby.choices, volume=self.volume.volume)
            else:
                self.volume.volume = self.lobby.choices.volume
        if resume and self.held_game.resume(now_ns):
            return
        if skip_lobby:
            self.lobby_phase.start_game(now_ns)
        else:
            self.enter_lobby(now_ns)

    def snapshot(self) -> FlowSnapshot:
        """What the TV and the hand screens show now, as one frozen value
        (``device.flow.snapshot``)."""
        session = self.session
        pos = None if session is None else session.pos
        book = self.howto_screen.book
        return FlowSnapshot(
            phase=self.phase, plugin=self.plugin, playing=tuple(self.playing), pos=pos,
            shown_pos=self.play.rounds.shown_pos(pos),
            record=None if session is None else session.record,
            last_event=self.last_event, headline=self.over.headline,
            results=self.over.results, slap_shown=self.play.slap.slap_shown,
            slap_margin=self.play.slap.slap_margin, round_end=self.play.rounds.round_end,
            deadline_ns=self.race.deadline_ns, awaiting_flip=self.race.awaiting_flip,
            stuck=self.race.stuck, notices=tuple(self.notices.items),
            banner=self.notices.text(),
            lobby=self.lobby.model(LOBBY_HINT) if self.phase is Phase.LOBBY else None,
            howto=(HowtoShown(book.page, book.index + 1, len(book.pages), HOWTO_HINT)
                   if self.phase is Phase.HOWTO and book is not None else None),
            held=self.held_game.held, demo=self.attract.on)

    # ------------------------------------------------------------------ input
    def on_press(self, press: Press, now_ns: int) -> None:
        """A slap button's debounced press edge (``press.t_ns``: edge time).  While a
        restored game waits (``held``), a slap goes on with it; in the lobby it answers
        "Clear tonight's board?" with no; a slap ends a demo and the "How to play" pages."""
        if self.held_game.held:
            self.held_game.go_on(now_ns, taken_up=True)
            return
        if self.phase is Phase.LOBBY:
            self.lobby_phase.board.keep()
        if self.attract.ends(not isinstance(press, ComputerPress)) or self.phase is Phase.HOWTO:
            self.enter_lobby(now_ns)  # somebody at the table wants to play
            return
        self.play.press(press, now_ns)

    def on_release(self, seat: int, t_ns: int) -> None:
        """A slap button's release edge."""
        self.race.release(seat, t_ns)

    def on_key(self, seat: int, key: str, now_ns: int) -> None:
        """A handheld key (``"left"``, ``"right"``, ``"select"``, ``"back"``, or ``"menu"``:
        BACK held for 2 s, :mod:`device.hands.menu`) of ``seat``; an unknown key or seat is one
        log line."""
        if key == MENU_KEY and 0 <= seat < len(self.playing):
            if self.phase in (Phase.PLAY, Phase.WAKEUP):
                self.playing[seat].menu = SeatMenu(seat)
            return
        try:
            k = HandKey(key)
        except ValueError:
            k = None
        if self.held_game.held and k is not None and 0 <= seat < len(self.seats):
            self.held_game.key(k, now_ns)  # any handheld of the console answers
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
            self.lobby_phase.key(k, now_ns)
        elif self.phase is Phase.GAMEOVER:
            self.over.key(k, now_ns)
        elif self.phase is Phase.PLAY:
            self.play.key(seat, k, now_ns)

    def _menu_key(self, seat: int, menu: SeatMenu, k: HandKey, now_ns: int) -> None:
        choice = menu.key(k)
        if choice is None:
            return
        self.playing[seat].menu = None
        if choice is MenuChoice.CONTINUE:
            return
        log.info("%s ended the game from the handheld menu (%s)", seat_name(seat), choice)
        self.play.end(now_ns, to_lobby=choice is MenuChoice.LOBBY)

    def flipped(self, t_ns: int) -> None:
        """The frame that shows a waiting slap window (or the wake-up race) went out at
        ``t_ns``: the window starts then, with its "ring" cue."""
        self.race.flipped(t_ns)
        self.cue("ring")

    def submit(self, seat: int | None, action: object, now_ns: int, note: str = "") -> bool:
        """Apply the engine action ``action`` for ``seat`` (``None``: the device itself) in the game
        played (:meth:`device.flow.play.PlayPhase.submit`); returns whether it applied."""
        return self.play.submit(seat, action, now_ns, note)

    def abandon(self, now_ns: int) -> None:
        """End the game being played without a winner and return to the lobby; the journal
        records it, so it is not resumed later."""
        self.play.end(now_ns, to_lobby=True)

    # ------------------------------------------------------------------ phases
    def enter_lobby(self, now_ns: int) -> None:
        """Show the lobby (seats, game, options); the party starts with START."""
        self.cancel_timers()
        self.race.close(now_ns)
        self.close_menus()
        self.play.reset()
        self.attract.on = False
        self.howto_screen.close()
        self.phase = Phase.LOBBY
        self.session = None
        self.held_game.offer.end()
        self.lobby_phase.enter(now_ns)

    def play_from(self, pos: object, now_ns: int) -> None:
        """Continue playing from ``pos``, a position of the lobby's chosen game with as many
        seats as the lobby (rule tests in notation drive the device this way,
        :meth:`device.flow.play.PlayPhase.play_from`).  Raises ``ValueError`` when the seat
        counts differ."""
        self.play.play_from(pos, now_ns)

    # ------------------------------------------------------------------ the slap race
    def _new_race(self, seats: int) -> SlapRace:
        return SlapRace(seats, timers=self.timers, post=self.post, timing=self.timing.race,
                        on_won=self._slap_won, on_timeout=self._slap_timeout,
                        on_false_slap=self.play.false_slap, on_note=self.play.race_note)

    def _slap_won(self, decision: SlapDecision, now_ns: int) -> None:
        if decision.tie:
            log.info("slap tie broken by the device RNG: %s wins", seat_name(decision.seat))
        if self.phase is Phase.WAKEUP:
            self.wakeup.won(decision, now_ns)
        elif self.phase is Phase.PLAY:
            self.play.slap_won(decision, now_ns)

    def _slap_timeout(self, now_ns: int) -> None:
        if self.phase is Phase.WAKEUP:
            self.wakeup.timeout(now_ns)
        elif self.phase is Phase.PLAY:
            self.play.slap_timeout(now_ns)

    # ------------------------------------------------------------------ for the phases
    def prepare(self, session: AnySession, now_ns: int) -> None:
        """Make ``session`` the game being played: its plugin, seat kinds, a fresh race."""
        self.cancel_timers()
        self.race.close(now_ns)
        self.session = session
        self.plugin = session.plugin
        self.notices.game_starts()  # the lobby's lines go, the notices that run on their own stay
        self.play.reset()
        self.held_game.offer.end()
        self.over.clear()
        for seat, kind in zip(self.seats, session.kinds, strict=False):
            seat.kind = SeatKind(kind)
        self.race = self._new_race(len(session.kinds))
        self.make_hands()

    def start_game(self, now_ns: int) -> None:
        """See :meth:`device.flow.lobby_phase.LobbyPhase.start_game`."""
        self.lobby_phase.start_game(now_ns)

    def start_demo(self, now_ns: int) -> None:
        """See :meth:`device.flow.lobby_phase.LobbyPhase.start_demo`."""
        self.lobby_phase.start_demo(now_ns)

    def open_wakeup(self, humans: set[int], now_ns: int) -> None:
        """See :meth:`device.flow.wakeup.WakeupPhase.open`."""
        self.wakeup.open(humans, now_ns)

    def begin_play(self, first: int, now_ns: int) -> None:
        """See :meth:`device.flow.play.PlayPhase.begin`."""
        self.play.begin(first, now_ns)

    def after_action(self, events: Sequence[Event], now_ns: int) -> None:
        """See :meth:`device.flow.play.PlayPhase.after_action`."""
        self.play.after_action(events, now_ns)

    def show_game_over(self, winner: int | None, reason: str, now_ns: int,
                       *, abandoned: bool = False) -> None:
        """See :meth:`device.flow.game_over.GameOverPhase.show`."""
        self.over.show(winner, reason, now_ns, abandoned=abandoned)

    def show_hands(self) -> None:
        """Give every playing seat's hand composer its view of the game (while a round's
        end is held, the hand it ended with and the round's headline, nobody's turn)."""
        rounds = self.play.rounds
        pos = rounds.shown_pos(None if self.session is None else self.session.pos)
        held = rounds.round_end
        for seat in self.playing:
            view = self.plugin.engine.view(pos, seat.index) if pos is not None else None
            message = ""
            if held is not None and self.phase is Phase.PLAY:
                seat.hand.show(Phase.GAMEOVER, view, held.headline)
                continue
            if self.phase is Phase.GAMEOVER:
                message = self.over.headline
            elif self.phase is Phase.WAKEUP:
                message = self.wakeup.message(seat)
            # the pages are on the TV; a hand shows the lobby's screen meanwhile
            seat.hand.show(Phase.LOBBY if self.phase is Phase.HOWTO else self.phase, view,
                           message)


__all__ = ["CUES", "GameFlow", "Timing", "VolumeKnob"]
