"""Seeded random whole Riiing! games (2,000 over 2 to 6 seats) through the checked public
API, checking invariants after every action and that ``apply`` refuses what ``legal``
leaves out."""

from __future__ import annotations

import random

import pytest
from riiing_helpers import GAME

from engine.core import IllegalActionError
from engine.riiing import RiiingAction, RiiingPosition, rules

GAMES_PER_SEAT_COUNT = 400
MAX_ACTIONS = 3000
"""A bound no seeded game comes near (the longest are a few hundred actions)."""

EVENT_KINDS = {
    "play", "draw", "take", "flip", "shuffle", "demand", "chain", "lapse", "cancel",
    "window", "slap", "timeout", "falseslap", "win",
}  # fmt: skip


def codes(pos: RiiingPosition) -> list[str]:
    """The position's cards as a sorted list of codes (a multiset, RI-8.3)."""
    return sorted(card.code for card in pos.cards())


def fixed_candidates(seats: int) -> list[RiiingAction]:
    """draw, take, timeout, and slap/falseslap for every seat and one missing seat."""
    pool = [RiiingAction.parse(text) for text in ("draw", "take", "timeout")]
    pool += [RiiingAction.slap(s) for s in range(seats + 1)]
    pool += [RiiingAction.falseslap(s) for s in range(seats + 1)]
    return pool


FIXED = {seats: fixed_candidates(seats) for seats in range(2, 7)}


def candidates(
    pos: RiiingPosition, legal: tuple[RiiingAction, ...], rng: random.Random
) -> list[RiiingAction]:
    """Up to four actions that legal() leaves out and apply must refuse: other cards (from
    the hand, another seat, the discard pile), draw/take/timeout, slaps outside a window or
    for a missing seat, falseslap in a window or with the penalty off."""
    cards = dict.fromkeys([*pos.hands[pos.to_move or 0], pos.discard[-1], *rng.choice(pos.hands)])
    falseslap_ok = pos.window is None and pos.options.false_slap_penalty > 0
    refused = [
        action for action in (*map(RiiingAction.play, cards), *FIXED[pos.seats])
        if action not in legal
        and not (action.kind == "falseslap" and falseslap_ok and action.seat < pos.seats)
    ]  # fmt: skip
    return rng.sample(refused, min(4, len(refused)))


def assert_refused(pos: RiiingPosition, action: RiiingAction) -> None:
    """apply must raise IllegalActionError naming a rule id."""
    try:
        GAME.apply(pos, action)
    except IllegalActionError as err:
        assert err.rule is not None and err.rule.startswith("RI-"), str(err)
    else:
        raise AssertionError(f"{action} was applied but legal() leaves it out")


def play_random_game(seats: int, seed: int) -> int:
    """Play one seeded random game, checking every invariant; returns its length."""
    rng = random.Random(seed)
    options = {
        "hand_size": str((7, 7, 7, 4, 10)[seed % 5]),
        "false_slap_penalty": str((1, 1, 2, 0)[seed % 4]),
    }
    pos = GAME.new(seats, seed, options, first=seed % seats)
    start = codes(pos)
    for count in range(1, MAX_ACTIONS + 1):
        legal = GAME.legal(pos)
        assert legal and list(legal) == sorted(legal, key=str)
        if count % 4 == 0 and pos.window is None:
            assert GAME.view(pos, pos.to_move).legal == tuple(str(a) for a in legal)
        for action in candidates(pos, legal, rng):
            assert_refused(pos, action)
        if pos.window is None and pos.options.false_slap_penalty and rng.random() < 0.04:
            action = RiiingAction.falseslap(rng.randrange(seats))
            assert action not in legal
        else:
            action = rng.choice(legal)
            assert action in legal
        pos, events = GAME.apply(pos, action)
        assert {event.kind for event in events} <= EVENT_KINDS
        assert codes(pos) == start, f"RI-8.3 broken by {action} (seed {seed})"
        kinds = {event.kind for event in events}
        if "lapse" in kinds or (action.kind == "take" and "flip" not in kinds):
            # RI-5.3 / RI-5.4: the drawing stops, or the flip is left out, only where the
            # piles ran dry or a reverse shows (its window is open now, RI-6.1)
            assert not pos.draw or pos.window is not None, f"{action} (seed {seed})"
        if count % 4 == 0 or pos.winner is not None:
            assert GAME.parse_position(GAME.position_json(pos)) == pos  # still valid (RI-9)
        if pos.winner is not None:
            assert GAME.outcome(pos) is not None and not pos.hands[pos.winner]
            assert GAME.legal(pos) == () and events[-1].kind == "win"
            return count
    raise AssertionError(f"{seats}-seat game seed {seed} did not end in {MAX_ACTIONS} actions")


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_seeded_random_games_keep_every_invariant(seats: int) -> None:
    """400 seeded random games per seat count: every action legal, cards conserved, every
    position valid, refused candidates refused, a demand's drawing stopped or a take's flip
    left out only at a reverse or dry piles (RI-5.3, RI-5.4), and every game ends."""
    lengths = [play_random_game(seats, 1000 * seats + i) for i in range(GAMES_PER_SEAT_COUNT)]
    assert max(lengths) < MAX_ACTIONS and min(lengths) >= 1


def test_event_kinds_are_documented() -> None:
    """Every event kind the games produce is listed in engine.riiing.rules' docstring."""
    doc = rules.__doc__ or ""
    assert all(f"``{kind}``" in doc for kind in EVENT_KINDS)
