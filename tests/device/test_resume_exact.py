"""Exact resume (a game cut at any action and resumed plays on action for action as the
uninterrupted one): every device draw — computer choices, slap reaction times, tie
breaks — is seeded from the game's device seed and the action count, so replaying the
journal restores the RNGs as well as the position.

Seeded all-computer games of both games are played once without a cut; then, for many cut
points, a console is abandoned mid-game (a power cut: no close, pending timers lost) and a
new console resumes from its journal and plays to the end.  The whole action lists and the
final positions must be the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from device.console import Console, GameRecord, make_seats
from device.flow.lobby import LobbyChoices
from device.hands.seats import Seat
from device.reactor.events import FakeQueue
from device.render.model import TableModel
from drivers.clock import FakeClock
from drivers.hand_display import open_hand_display

S = 1_000_000_000


class NoScreen:
    """A presenter that draws nothing (this test is about the game, not the pictures):
    every present is a flip at the clock's time."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock

    def present(
        self, model: TableModel, seats: Sequence[Seat], now_ns: int, force: bool
    ) -> int | None:
        """No drawing; the flip happens now."""
        return self.clock.now_ns()

    def next_frame_ns(self, now_ns: int) -> int | None:
        """Nothing animates."""
        return None


def console_for(game: str, seats: int, seed: int, state_dir: Path, clock: FakeClock,
                *, resume: bool = False, strengths: tuple[str, ...] = ()
                ) -> tuple[Console, list[GameRecord]]:
    """An all-computer console of ``game`` journaling into ``state_dir``, its computer
    players of ``strengths`` (default: normal)."""
    done: list[GameRecord] = []
    console = Console(
        clock=clock, queue=FakeQueue(clock), presenter=NoScreen(clock),
        seats=make_seats([open_hand_display(s, "dummy") for s in range(seats)]),
        choices=LobbyChoices(game=game, kinds=("computer",) * seats, strengths=strengths),
        game_seed=seed, state_dir=state_dir, on_game_over=done.append,
        skip_lobby=not resume, resume=resume)
    console.start()
    return console, done


def play(console: Console, done: list[GameRecord], until_actions: int | None = None) -> None:
    """Step ``console`` until its game ends (or has ``until_actions`` actions)."""
    for _ in range(200_000):
        if done:
            return
        record = console.record
        if until_actions is not None and record is not None and \
                len(record.actions) >= until_actions:
            return
        console.step()
    raise AssertionError("the game did not end")


def final_json(console: Console) -> Any:
    """The final position as JSON."""
    return console.plugin.engine.position_json(console.pos)


CASES = [("riiing", 3, 11), ("riiing", 4, 5), ("riiing", 2, 8), ("right-on-time", 3, 2),
         ("right-on-time", 2, 7), ("right-on-time", 4, 1)]


@pytest.mark.slow
@pytest.mark.parametrize(("game", "seats", "seed"), CASES)
def test_a_game_cut_anywhere_resumes_action_for_action(
    tmp_path: Path, game: str, seats: int, seed: int
) -> None:
    """Cut after every 3rd action (and the first and the last), resume: the same actions."""
    clock = FakeClock(S)
    whole, done = console_for(game, seats, seed, tmp_path / "whole", clock)
    play(whole, done)
    actions = done[0].actions
    final = final_json(whole)
    assert len(actions) >= 10
    cuts = sorted({1, *range(3, len(actions), 3), len(actions) - 1})
    for cut in cuts:
        state = tmp_path / f"cut{cut}"
        first, first_done = console_for(game, seats, seed, state, clock)
        play(first, first_done, until_actions=cut)
        assert first.record is not None and len(first.record.actions) == cut
        # the power goes: `first` is dropped without closing anything
        second, second_done = console_for(game, seats, seed + 100, state, clock, resume=True)
        assert second.record is not None and second.record.actions == actions[:cut], cut
        play(second, second_done)
        assert second_done[0].actions == actions, f"cut at {cut} went on differently"
        assert final_json(second) == final, cut
        assert second_done[0].winner == done[0].winner


def test_a_window_cut_before_its_slap_is_decided_again_the_same_way(tmp_path: Path) -> None:
    """A Riiing! game cut right after an action that opened a RIIING! window: the resumed
    window has the same computer reaction times, so the same seat slaps first."""
    clock = FakeClock(S)
    whole, done = console_for("riiing", 4, 5, tmp_path / "whole", clock)
    play(whole, done)
    actions = done[0].actions
    slaps = [i for i, a in enumerate(actions) if a.startswith("slap ")]
    assert slaps, "this seed opens at least one window"
    for index in slaps[:3]:
        state = tmp_path / f"w{index}"
        first, first_done = console_for("riiing", 4, 5, state, clock)
        play(first, first_done, until_actions=index)
        assert first.plugin.window_open(first.pos)
        second, second_done = console_for("riiing", 4, 5, state, clock, resume=True)
        play(second, second_done)
        assert second_done[0].actions[index] == actions[index]
        assert [s.ms for s in second_done[0].slaps] == [s.ms for s in done[0].slaps]


def trackers(console: Console) -> dict[int, Any]:
    """Each hard player's hand slots (what it has inferred of the other hands)."""
    session = console.flow.session
    assert session is not None
    return {s: bot.tracker.slots for s, bot in session.bots.items()}  # type: ignore[attr-defined]


def test_hard_players_resume_knowing_what_the_table_saw(tmp_path: Path) -> None:
    """Hard Riiing! players learn from the public history (``engine.riiing.inference``):
    a game of three hard players cut at many points and resumed from its journal plays on
    action for action, so the replay gave each player the same history it had seen."""
    clock = FakeClock(S)
    hard = ("hard",) * 3
    whole, done = console_for("riiing", 3, 21, tmp_path / "whole", clock, strengths=hard)
    play(whole, done)
    actions = done[0].actions
    assert len(actions) >= 10
    for cut in sorted({2, *range(7, len(actions), 7), len(actions) - 1}):
        state = tmp_path / f"cut{cut}"
        first, first_done = console_for("riiing", 3, 21, state, clock, strengths=hard)
        play(first, first_done, until_actions=cut)
        second, second_done = console_for("riiing", 3, 121, state, clock, resume=True,
                                          strengths=hard)
        assert trackers(second) == trackers(first), f"cut at {cut}: another history"
        play(second, second_done)
        assert second_done[0].actions == actions, f"cut at {cut} went on differently"


@pytest.mark.parametrize("winner", [1, 2])
def test_a_game_whose_wake_up_race_another_seat_won_resumes_from_that_seat(
    tmp_path: Path, winner: int
) -> None:
    """RI-2.3: the wake-up race is journaled before the deal (it decides who starts), so
    the game's row exists before the first seat is known; a power cut then a resume must
    still deal from the seat that won, and the game database names it as the first seat
    (``history``).  With the deal read from seat 1 the replay is refused at the first
    action of another seat, and the party's game is cut short."""
    from device.games import get_plugin
    from device.slaps.arbiter import Contender, SlapDecision
    from device.store.game_db import GameDB
    from device.store.session import WAKEUP_RACE, GameSession, GameStore

    plugin = get_plugin("riiing")
    store = GameStore(tmp_path)
    session = GameSession(plugin, ("computer",) * 3, 7, {}, store=store)
    session.note_slap(WAKEUP_RACE, SlapDecision(
        winner, 5 * S, 400_000_000, False, (Contender(winner, 5 * S, 400_000_000),)))
    session.start(winner)
    for _ in range(12):
        seat = plugin.to_move(session.pos)
        action = session.computer_move(seat) if seat is not None else None
        if action is None:
            break
        session.apply(seat, action)
    played, before = list(session.record.actions), session.pos
    store.close()  # the power cut: nothing more is written

    again = GameStore(tmp_path)
    resumed = GameSession.resume(again)
    assert resumed is not None
    assert resumed.record.actions == played and resumed.pos == before
    again.close()
    with GameDB.open(tmp_path) as db:
        (game,) = db.games()
        assert game.header.first == winner
        # a database whose row still says seat 0: the deal's record is what counts
        db._c.execute("UPDATE games SET first = 0")
        db._c.commit()
    older = GameStore(tmp_path)
    resumed = GameSession.resume(older)
    assert resumed is not None and resumed.pos == before
    older.close()
