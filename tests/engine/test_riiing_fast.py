"""The private fast path (engine.riiing._fast) is proven against the checked public API:
the same seeded random choices give the same legal lists and identical positions."""

from __future__ import annotations

import random

import pytest
from riiing_helpers import GAME, make

from engine.riiing import RiiingAction
from engine.riiing._fast import FALSESLAP, FastState, random_playout


def lockstep(seats: int, seed: int) -> int:
    """Play one seeded game through both paths in lockstep; returns its length."""
    rng = random.Random(seed)
    options = {"hand_size": str((7, 5, 9)[seed % 3]), "false_slap_penalty": str(seed % 3)}
    pos = GAME.new(seats, seed, options, first=seed % seats)
    state = FastState.new(seats, seed, pos.options, first=seed % seats)
    assert state.position() == pos
    count = 0
    while pos.winner is None:
        legal = GAME.legal(pos)
        fast = state.legal()
        assert [state.action_text(a) for a in fast] == [str(a) for a in legal]
        if pos.window is None and pos.options.false_slap_penalty and rng.random() < 0.05:
            seat = rng.randrange(seats)
            action, fast_action = RiiingAction.falseslap(seat), FALSESLAP - seat
        else:
            index = rng.randrange(len(legal))
            action, fast_action = legal[index], fast[index]
        pos, _ = GAME.apply(pos, action)
        state.step(fast_action)
        assert state.position() == pos, f"diverged after {action} (seats {seats}, seed {seed})"
        count += 1
    assert state.legal() == [] and state.winner == pos.winner
    return count


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_fast_path_matches_checked_apply(seats: int) -> None:
    """80 seeded games per seat count: equal legal lists and positions after every action."""
    assert sum(lockstep(seats, 500 * seats + i) for i in range(80)) > 80


def test_fast_path_from_hand_built_positions() -> None:
    """Demands, chains, windows and dry piles step exactly like rules.apply."""
    positions = [
        make([["4S/O", "9C/>"], ["2T/=", "!A/<"], ["7A/E"]], ["3C/~", "6T/<"],
             ["8S/E", "5A/>", "!T/{1,4,7}"], seed=42, demand={"symbol": "T"}),
        make([["P/O", "9C/E"], ["1S/O"]], ["1C/>"], ["P/E"], demand={"phones": 3}),
        make([["!S/E", "2C/=", "3S/<"], ["1T/O"]], ["4A/*S", "7S/*C", "7C/E"], ["P/<"],
             to_move=1, window="S", demand={"phones": 2}),
        make([["4S/O"], ["2C/="]], ["3C/~"], ["!T/E"], demand={"symbol": "T"}),
        make([["1T/O"], ["3S/E", "!S/O"]], ["4A/*S", "7C/E"], ["5T/<"], window="S"),
    ]
    for pos in positions:
        for action in GAME.legal(pos):
            state = FastState.from_position(pos)
            assert state.position() == pos
            fast = dict(zip([str(a) for a in GAME.legal(pos)], state.legal(), strict=True))
            state.step(fast[str(action)])
            assert state.position() == GAME.apply(pos, action)[0], str(action)


def test_random_playout_ends_games_and_counts_actions() -> None:
    """random_playout plays to a winner and returns the number of actions applied."""
    state = FastState.new(4, 11)
    applied = random_playout(state, random.Random(11))
    assert state.winner >= 0 and applied > 0
    assert GAME.outcome(state.position()) is not None
    short = FastState.new(4, 11)
    assert random_playout(short, random.Random(11), limit=3) == 3 and short.winner == -1
