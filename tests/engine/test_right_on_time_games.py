"""Seeded random whole Right on Time matches through the public API, checking invariants
after every action (RT-10.1 card conservation, position consistency, the match ends),
legal() against an independent reading of the rules, apply refusing what legal() leaves
out, and the private fast path agreeing with the checked apply."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from right_on_time_helpers import (
    GAME,
    candidate_plays,
    card_count,
    oracle_legal,
    other_codes,
)

from engine.core import IllegalActionError
from engine.right_on_time import RotPosition
from engine.right_on_time.cards import HAND_CODES, PILE_CODES

MAX_ACTIONS = 20_000
"""A match longer than this counts as one that does not end."""

OPTIONS: list[dict[str, object] | None] = [
    None,
    {"less_influence": True},
    None,
    {"li_higher_on_top": True, "target_points": 2},
]


def check_invariants(pos: RotPosition) -> None:
    """A position the engine produced is consistent (RT-6.1, RT-6.2, RT-7.1, RT-10.2)."""
    assert (pos.to_move is None) == (pos.winner is not None)
    assert all(c in HAND_CODES for h in pos.hands for c in h)
    assert all(c in PILE_CODES for c in pos.discard)
    assert all(c in HAND_CODES for c in pos.draw)
    for seat in pos.out:
        assert pos.hands[seat] == ()
    for hand, shown in zip(pos.hands, pos.shown, strict=True):
        assert not shown or not Counter(shown) - Counter(hand)
    if pos.winner is None:
        assert pos.to_move not in pos.out and len(pos.out) <= 1
        assert max(pos.scores) < pos.options.target_points
    else:
        assert pos.scores[pos.winner] == pos.options.target_points
        assert pos.winner in pos.out


def refusal_candidates(pos: RotPosition, rng: random.Random) -> list[str]:
    """Action texts that legal() may leave out: plays of held and other cards with any
    Joker value and effect suffix, draw, bonus swaps of held and unheld cards."""
    seat = pos.to_move
    assert seat is not None
    extra = rng.sample(other_codes(), 2)
    texts = sorted(candidate_plays(pos, extra, all_suffixes=True))
    texts.append("draw")
    for b in [*pos.bonus[seat], *extra]:
        for h in [*pos.hands[seat], *extra]:
            texts.append(f"bonus {b} {h}")
    return texts


def play_match(
    seed: int, seats: int, *, oracle: bool = False, refusals: int = 0
) -> tuple[RotPosition, int]:
    """One seeded random match; returns the final position and the number of actions."""
    rng = random.Random(seed)
    check_rng = random.Random(seed + 1)
    pos = GAME.new(seats, seed, OPTIONS[seed % len(OPTIONS)], seed % seats)
    cards = card_count(pos)
    actions = 0
    while pos.winner is None:
        legal = GAME.legal(pos)
        texts = [str(a) for a in legal]
        assert texts and texts == sorted(texts) and len(set(texts)) == len(texts)
        if oracle:
            assert set(texts) == oracle_legal(pos), pos
        if refusals:
            allowed = set(texts)
            left_out = [t for t in refusal_candidates(pos, check_rng) if t not in allowed]
            for text in check_rng.sample(left_out, min(refusals, len(left_out))):
                with pytest.raises(IllegalActionError) as info:
                    GAME.apply(pos, GAME.parse_action(text))
                assert info.value.rule is not None and info.value.rule.startswith("RT-")
                assert info.value.position is pos
        pos, _events = GAME.apply(pos, rng.choice(legal))
        actions += 1
        assert card_count(pos) == cards
        check_invariants(pos)
        assert actions < MAX_ACTIONS
    outcome = GAME.outcome(pos)
    assert outcome is not None and outcome.winner == pos.winner
    assert GAME.legal(pos) == ()
    return pos, actions


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_random_matches_keep_invariants_and_end(seats: int) -> None:
    """250 seeded random matches per seat count (1,000 in all, 2 to 5 seats): every action
    is legal, cards are conserved (RT-10.1), positions stay consistent, every match ends."""
    total = 0
    winners: Counter[int] = Counter()
    for seed in range(250):
        pos, actions = play_match(10_000 * seats + seed, seats)
        total += actions
        assert pos.winner is not None
        winners[pos.winner] += 1
    assert total > 250 * 20
    assert set(winners) == set(range(seats))


def test_legal_matches_an_independent_reading_of_the_rules() -> None:
    """In 36 seeded random matches (2 to 6 seats, options varied) legal() equals the set
    the plain oracle in right_on_time_helpers derives from the rule text, at every action."""
    for seed in range(36):
        play_match(500 + seed, 2 + seed % 5, oracle=True)


def test_apply_refuses_what_legal_leaves_out() -> None:
    """In 40 seeded random matches, at every action, apply refuses 6 sampled candidate
    actions (other cards, Joker values, effect targets, draw, bonus swaps) that legal()
    leaves out, with IllegalActionError citing a rule id and carrying the position."""
    for seed in range(40):
        play_match(900 + seed, 2 + seed % 5, refusals=6)


def test_six_seats_match() -> None:
    """A 6-seat match deals 42 cards and ends (RT-2.5)."""
    pos, actions = play_match(6, 6)
    assert pos.winner is not None and actions > 50


# ------------------------------------------------------------------ the fast path


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_fast_path_agrees_with_checked_apply(seats: int) -> None:
    """The private fast path's seeded random playouts replay through the public, checked
    apply action by action (each action legal) to the very same final position."""
    for seed in range(15):
        start = GAME.new(seats, seed, OPTIONS[seed % len(OPTIONS)])
        record: list[str] = []
        final, steps = GAME._fast_random_playout(start, random.Random(seed), record)
        assert steps == len(record) and final.winner is not None
        pos = start
        for text in record:
            assert text in {str(a) for a in GAME.legal(pos)}
            pos, _ = GAME.apply(pos, GAME.parse_action(text))
        assert pos == final


def test_fast_path_is_seeded() -> None:
    """The fast path is deterministic for a seed and differs across seeds."""
    start = GAME.new(3, 1)
    a = GAME._fast_random_playout(start, random.Random(5))
    b = GAME._fast_random_playout(start, random.Random(5))
    c = GAME._fast_random_playout(start, random.Random(6))
    assert a == b and a != c
