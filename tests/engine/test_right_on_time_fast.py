"""The private fast path of Right on Time (``engine.right_on_time.rules``: ``random_move``,
``move_count``, ``random_playout`` on a mutable ``Table``) is proven against the checked
public API: seeded random games played through both in lockstep give identical positions
after every action; the fast move count is ``len(legal)`` in every position reached; the
fast pick only picks legal moves, every legal move, uniformly (RT-2 .. RT-9)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from right_on_time_helpers import GAME, position

from engine.right_on_time import RotPosition
from engine.right_on_time.rules import (
    Table,
    apply_move,
    gen_moves,
    move_count,
    move_text,
    random_move,
    random_playout,
)

OPTIONS: list[dict[str, object] | None] = [
    None,
    {"less_influence": True},
    {"li_joker_seven": True},
    {"li_higher_on_top": True, "target_points": 2},
    {"li_du_bist_left": True},
    {"deck": "1 2 3 J J N D2 Z3 7 7 D5 Z1 4 4 5 6 6 J 2 3"},
]


def start(seed: int) -> RotPosition:
    """Seed ``seed``'s match: 2 + seed % 5 seats, options cycling through
    :data:`OPTIONS`, the opener ``seed % seats``."""
    seats = 2 + seed % 5
    return GAME.new(seats, seed, OPTIONS[seed % len(OPTIONS)], seed % seats)


def lockstep(seed: int) -> int:
    """One seeded random match through both paths: the fast pick on a Table, the same move
    by its text through the checked ``apply``; positions compared after every action.
    Returns the number of actions."""
    rng = random.Random(seed)
    pos = start(seed)
    table = Table(pos)
    actions = 0
    while pos.winner is None and actions < 5000:
        assert move_count(table) == len(GAME.legal(pos))
        move = random_move(table, rng.random)
        apply_move(table, move, None)
        pos, _events = GAME.apply(pos, GAME.parse_action(move_text(move)))
        assert table.freeze() == pos, f"seed {seed} action {actions}: {move_text(move)}"
        actions += 1
    return actions


@pytest.mark.slow
def test_lockstep_with_the_checked_apply_over_two_thousand_matches() -> None:
    """2,000 seeded random matches (2-6 seats, every option, a custom deck) give the very
    same position after every action through the fast path and the checked apply, and
    the fast count equals ``len(legal)`` before every action."""
    lengths = [lockstep(seed) for seed in range(2000)]
    assert min(lengths) > 0 and sum(lengths) > 100_000


def test_pick_is_uniform_over_the_legal_moves() -> None:
    """In positions reached by seeded random play, the fast pick draws every legal move
    and nothing else, each about equally often (chi-square below the 0.1% critical value
    of its degrees of freedom, 200 draws per move)."""
    rng = random.Random(11)
    tested = 0
    for seed in range(40):
        table = Table(start(seed))
        steps = 0
        while table.winner is None and steps < 400:
            moves = gen_moves(table)
            if len(moves) > 1 and steps % 5 == 0:
                draws = 200 * len(moves)
                seen = Counter(random_move(table, rng.random) for _ in range(draws))
                assert set(seen) == set(moves)
                chi2 = sum((n - 200) ** 2 / 200 for n in seen.values())
                dof = len(moves) - 1
                assert chi2 < dof + 3.1 * (2 * dof) ** 0.5 + 10, (seed, steps, chi2, dof)
                tested += 1
            apply_move(table, random_move(table, rng.random), None)
            steps += 1
    assert tested > 300


def test_pick_with_bonus_cards_and_effects() -> None:
    """A hand with Du bist!, Ziehen!, a Joker and a pair of 3s, and bonus cards to swap: the
    count and the pick agree with ``legal`` (RT-3.2, RT-4.1, RT-4.2, RT-6.4)."""
    pos = position(
        hands=[["D3", "Z2", "J", "3", "3", "6"], ["1", "2"], ["4", "5", "7"]],
        bonus=[["J", "7"], [], []],
        discard=["4"],
        round=2,
    )
    table = Table(pos)
    legal = {str(a) for a in GAME.legal(pos)}
    assert move_count(table) == len(legal)
    rng = random.Random(3)
    picked = {move_text(random_move(table, rng.random)) for _ in range(40 * len(legal))}
    assert picked == legal
    assert {"bonus J 6", "play 3 3", "play D3 Z2 >1", "play D3 Z2 @0"} <= picked


def test_count_once_the_match_is_won() -> None:
    """No move once the match is won (RT-7.1)."""
    pos = position(
        hands=[[], ["2"], ["3"]], scores=[3, 0, 0], winner=0, to_move=None, out=[0], discard=["5"]
    )
    assert move_count(Table(pos)) == 0


def test_round_only_playout_stops_at_the_round_end() -> None:
    """``random_playout(round_only=True)`` stops right after the action that ends the round
    in play (RT-2.4): the round number moved on by one, or the match was won."""
    for seed in range(30):
        table = Table(start(seed))
        steps = random_playout(table, random.Random(seed).random, round_only=True)
        assert steps > 0
        assert table.round == 2 or table.winner is not None


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_recorded_playout_replays(seed: int) -> None:
    """A whole fast playout's recorded texts replay through the checked apply to the same
    final position."""
    pos = start(seed)
    record: list[str] = []
    table = Table(pos)
    steps = random_playout(table, random.Random(seed).random, record)
    assert steps == len(record)
    for text in record:
        pos, _events = GAME.apply(pos, GAME.parse_action(text))
    assert pos == table.freeze()
