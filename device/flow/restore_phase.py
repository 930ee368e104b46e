"""The held game of the game flow: a game restored after a power cut or crash, offered on
the TV before it goes on (``device.flow.restore_offer``, docs/architecture.md "Game flow").

:class:`HeldGame` restores the unfinished game at its exact position
(``GameSession.resume``), holds it with the seconds left on the TV, and ends the hold: a
slap or a key goes on with it (:meth:`HeldGame.go_on`), BACK declines it
(:meth:`HeldGame.decline`), the time running out goes on by itself.  Times are ``int``
CLOCK_MONOTONIC ns.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING

from device.common.phase import Phase
from device.flow.lobby import LobbyChoices
from device.flow.restore_offer import RestoreOffer
from device.hands.composer import HandKey
from device.store.session import GameSession, not_resumed

if TYPE_CHECKING:
    from device.flow.parts import FlowParts

log = logging.getLogger("partytable")


class HeldGame:
    """The restored game and its offer (see the module docstring); ``flow``: the flow it
    belongs to."""

    def __init__(self, flow: FlowParts) -> None:
        self.flow = flow
        self.offer = RestoreOffer(flow.timers, flow.notices, self.go_on)  # by itself: no carry
        """A game restored after a power cut, offered on the TV (``device.flow.restore_offer``)."""

    @property
    def held(self) -> bool:
        """A game restored after a power cut waits for a slap, a key or its time."""
        return self.offer.held

    def resume(self, now_ns: int) -> bool:
        """After a power cut or crash: restore the unfinished game at its exact position
        (``GameSession.resume``) and offer it on the TV with the seconds left
        (``device.flow.restore_offer``): it goes on with a slap or a key, is declined with BACK
        (:meth:`decline`), or goes on by itself after ``timing.resume_ns`` (:meth:`go_on`).
        A restored game that is already over (cut between its last action and its end
        mark) shows its result (the game-over screen) and is ended, never dealt anew; one
        that cannot be restored is named on the TV (``GameStore.restore_problem``).
        Returns False (nothing changes) when there is none."""
        flow = self.flow
        store = flow.store
        if flow.state_dir is None:
            return False
        session = GameSession.resume(store)
        if store.restore_problem:  # GameSession.resume logged why
            flow.flash(store.restore_problem, now_ns, logged=True)
        if session is None:
            return False
        if len(session.kinds) > len(flow.seats):  # marked, so it is not tried at every start
            db = store.db()
            if db is not None and session.journal.game_id is not None:  # logs it
                not_resumed(store, db, session.journal.game_id,
                            f"Last game had {len(session.kinds)} seats: not restored",
                            f"{len(session.kinds)} seats, the console has {len(flow.seats)}")
                flow.flash(store.restore_problem, now_ns, logged=True)
            return False
        choices = LobbyChoices(game=session.plugin.name, kinds=session.kinds,
                               first=session.record.first, strengths=session.strengths,
                               volume=flow.lobby.choices.volume)
        # what the command line (or lobby.json) asked for comes back if the offer is declined
        asked = (flow.lobby.choices, flow.game_seed)
        offered = {o.name: o.values for o in session.plugin.lobby_options}
        for name, value in session.record.options.items():
            if value in offered.get(name, ()):
                choices = choices.with_option(name, value)
        flow.lobby.choices = choices
        flow.game_seed = session.seed
        flow.prepare(session, now_ns)
        flow.phase = Phase.PLAY
        flow.last_event = f"Game restored after {session.step} actions"
        if session.unread:  # the replay stopped early: the actions after it are lost
            flow.flash(f"Restored after {session.step} actions; {session.unread} could not "
                       "be read", now_ns)
        outcome = session.outcome
        if outcome is not None:  # cut between its last action and its end mark: its result
            flow.show_game_over(outcome.winner, f"{outcome.reason} (restored)", now_ns)
            return True
        if flow.timing.resume_ns <= 0:
            self.go_on(now_ns, held=False)
            return True
        self.offer.offer(now_ns, flow.timing.resume_ns, asked)
        flow.show_hands()
        return True

    def key(self, k: HandKey, now_ns: int) -> None:
        """A handheld key answers "continue the unfinished game?" (any handheld of the
        console, also one the restored game has no seat for): BACK no, the lobby; any
        other key goes on with it."""
        if k is HandKey.BACK:
            self.decline(now_ns)
        else:
            self.go_on(now_ns, taken_up=True)

    def decline(self, now_ns: int) -> None:
        """The party does not want the restored game: it ends without a winner (never
        offered again) and the lobby opens with the choices the console was started with
        (the command line's game, seats, strengths and options, not the restored game's;
        the volume stays) and a seed after the declined game's.  Nothing happens unless a
        game is held."""
        flow = self.flow
        if not self.held or flow.session is None:
            return
        asked = self.offer.end()
        log.info("restored game declined; back to the lobby")
        flow.session.close(None, abandoned=True)
        if asked is not None:  # the lobby the console was started with
            choices, seed = asked
            flow.lobby.choices = replace(choices, volume=flow.lobby.choices.volume)
            flow.game_seed = max(seed, flow.game_seed + 1)  # never the declined game's seed
        flow.enter_lobby(now_ns)

    def go_on(self, now_ns: int, *, held: bool = True, taken_up: bool = False) -> None:
        """The restored game goes on: its computer players, slap windows and timers start
        again from the restored position.  ``taken_up``: the party answered the offer (a
        slap or a key, not the time running out), so tonight's leaderboard goes on with
        the night the game was played in (``GameStore.carry_night``: a power cut in the
        middle of a party).  Nothing happens unless a game is held."""
        flow = self.flow
        if held and not self.held:
            return
        if taken_up and flow.session is not None and flow.session.journal.game_id is not None:
            flow.store.carry_night(flow.session.journal.game_id)
        self.offer.end()
        flow.last_event = "The game goes on"
        log.info("restored game goes on")
        flow.after_action((), now_ns)
