"""The private fast path (engine.riiing._fast) is proven against the checked public API:
the same seeded random choices give the same legal lists and identical positions; seeded
games go through the RI-5.3/RI-5.4 reverse paths; the reverse census (RI-6.1) is 100%."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

import pytest
from riiing_helpers import GAME, make

from engine.core import Event
from engine.riiing import RiiingAction, RiiingOptions
from engine.riiing._fast import (
    FALSESLAP,
    FastState,
    ReverseCensus,
    census_playout,
    random_playout,
)

PATHS = Counter[str]()
"""The RI-5.3/RI-5.4 reverse paths the lockstep games went through (see :func:`paths`)."""
PLAYED: set[tuple[int, int]] = set()
"""(seats, seed) of the lockstep games that added to :data:`PATHS`."""


def paths(action: RiiingAction, events: Sequence[Event]) -> set[str]:
    """Which new reverse paths the checked ``apply`` of ``action`` took, read from its
    events: a demand's draw-until that stopped at a reverse (RI-5.3), after a refill in the
    middle of it (RI-8.1), a take that left a reverse unturned (RI-5.4), after a refill."""
    kinds = [event.kind for event in events]
    found = set()
    if action.kind == "draw" and "lapse" in kinds and "window" in kinds:
        found.add("draw-until stopped")
        if "shuffle" in kinds[: kinds.index("lapse")]:
            found.add("draw-until stopped after a refill")
    if action.kind == "take" and "window" in kinds and "flip" not in kinds:
        found.add("take left the reverse")
        if "shuffle" in kinds:
            found.add("take left the reverse after a refill")
    return found


def lockstep(seats: int, seed: int, seen: Counter[str] = PATHS) -> int:
    """Play one seeded game through both paths in lockstep; returns its length and adds
    the new reverse paths it went through to ``seen``."""
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
        pos, events = GAME.apply(pos, action)
        seen.update(paths(action, events))
        if seen is PATHS:
            PLAYED.add((seats, seed))
        state.step(fast_action)
        assert state.position() == pos, f"diverged after {action} (seats {seats}, seed {seed})"
        count += 1
    assert state.legal() == [] and state.winner == pos.winner
    return count


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_fast_path_matches_checked_apply(seats: int) -> None:
    """80 seeded games per seat count: equal legal lists and positions after every action."""
    assert sum(lockstep(seats, 500 * seats + i) for i in range(80)) > 80


@pytest.mark.parametrize(
    ("seats", "seed", "path"),
    [
        (2, 1003, "draw-until stopped"),
        (5, 2684, "draw-until stopped after a refill"),
        (6, 3074, "draw-until stopped after a refill"),
        (2, 1007, "take left the reverse"),
        (6, 3023, "take left the reverse after a refill"),
    ],
)
def test_fast_path_follows_the_new_reverse_paths(seats: int, seed: int, path: str) -> None:
    """Seeded lockstep games that go through each RI-5.3/RI-5.4 reverse path (asserted
    from the checked engine's events), with equal positions after every action."""
    seen = Counter[str]()
    lockstep(seats, seed, seen)
    assert seen[path] > 0, seen


def test_lockstep_games_went_through_every_new_reverse_path() -> None:
    """The 400 lockstep games above went through each new path many times (the games not
    played yet, e.g. when this test runs alone, it plays itself)."""
    for seats in range(2, 7):
        for seed in range(500 * seats, 500 * seats + 80):
            if (seats, seed) not in PLAYED:
                lockstep(seats, seed)
    assert PATHS["draw-until stopped"] >= 50 and PATHS["take left the reverse"] >= 30, PATHS
    assert PATHS["draw-until stopped after a refill"] > 0, PATHS
    assert PATHS["take left the reverse after a refill"] > 0, PATHS


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
        make([["4S/O"], ["2C/="], ["1A/O"]], ["3C/~", "8A/E", "4A/*S", "6T/<"], ["!T/E"],
             demand={"symbol": "T"}),
        make([["4S/O"], ["2C/="]], ["3C/~", "4A/*S", "6A/<"], ["!A/E"], demand={"symbol": "A"}),
        make([["4S/O"], ["2C/="]], ["3C/~"], ["8S/E", "4A/*S", "5A/>", "!T/E"], seed=0,
             demand={"symbol": "T"}),
        make([["4S/O"], ["2C/="]], ["3C/~"], ["8S/E", "4A/*S", "5A/>", "!T/E"], seed=1,
             demand={"symbol": "T"}),
        make([["P/O", "9C/E"], ["1S/O", "3C/E"], ["2A/E"]], ["1C/>", "4A/*S", "7C/E"],
             ["P/E"], demand={"phones": 1}),
        make([["P/O", "9C/E"], ["1S/O"]], ["1C/>", "4A/*S", "7C/E", "8T/O"], ["P/E"],
             demand={"phones": 2}),
        make([["P/O", "9C/E"], ["1S/O"]], ["1C/>"], ["5S/O", "4A/*S", "8C/<", "P/E"], seed=2,
             demand={"phones": 1}),
        make([["1S/O"], ["3S/E"], ["2C/="]], ["7C/E", "4A/*S", "9C/E"], ["5T/<"],
             to_move=2, options={"false_slap_penalty": 2}, demand={"symbol": "A"}),
    ]
    for pos in positions:
        for action in GAME.legal(pos):
            state = FastState.from_position(pos)
            assert state.position() == pos
            fast = dict(zip([str(a) for a in GAME.legal(pos)], state.legal(), strict=True))
            state.step(fast[str(action)])
            assert state.position() == GAME.apply(pos, action)[0], str(action)
        if pos.window is None and pos.options.false_slap_penalty:
            for seat in range(pos.seats):
                state = FastState.from_position(pos)
                state.step(FALSESLAP - seat)
                slap = RiiingAction.falseslap(seat)
                assert state.position() == GAME.apply(pos, slap)[0], str(slap)


def test_random_playout_ends_games_and_counts_actions() -> None:
    """random_playout plays to a winner and returns the number of actions applied."""
    state = FastState.new(4, 11)
    applied = random_playout(state, random.Random(11))
    assert state.winner >= 0 and applied > 0
    assert GAME.outcome(state.position()) is not None
    short = FastState.new(4, 11)
    assert random_playout(short, random.Random(11), limit=3) == 3 and short.winner == -1


CENSUS_GAMES = 150


def census_seed(seed: int) -> tuple[FastState, random.Random]:
    """Census game ``seed``: 2-6 seats, penalty 0-2, first seat varied; its RNG."""
    seats = 2 + seed % 5
    options = RiiingOptions.from_mapping({"false_slap_penalty": str(seed % 3)})
    return FastState.new(seats, seed, options, first=seed % seats), random.Random(seed)


def checked_windows(seed: int, false_slaps: float) -> int:
    """The ``window`` events of census game ``seed`` replayed through the checked
    ``apply`` with census_playout's RNG protocol (setup's window counted)."""
    start, rng = census_seed(seed)
    pos = start.position()
    windows = int(pos.window is not None)
    while pos.winner is None:
        if (false_slaps and pos.options.false_slap_penalty and pos.window is None
                and rng.random() < false_slaps):
            action = RiiingAction.falseslap(rng.randrange(pos.seats))
        else:
            action = rng.choice(GAME.legal(pos))
        pos, events = GAME.apply(pos, action)
        windows += sum(event.kind == "window" for event in events)
    return windows


def test_every_reverse_that_reaches_the_top_where_play_pauses_opens_a_window() -> None:
    """RI-6.1, RI-5.3, RI-5.4: in 150 seeded random games (2-6 seats, false slaps) every
    reverse that reached the draw pile's top where play pauses opened a window (100%);
    reverses passed through the top only inside a multi-card take or penalty; the stops
    of a draw-until and a take at a reverse open windows the step would otherwise pass by
    unseen."""
    census = ReverseCensus()
    for seed in range(CENSUS_GAMES):
        state, rng = census_seed(seed)
        census_playout(state, rng, census, 0.05)
    assert census.missed == 0 and census.percent == 100.0, census
    assert census.windows > 100 and census.inside > 0 and census.stop_windows > 30, census
    assert census.by_step["draw-until"] > 0 and census.by_step["take"] > 0, census


def test_census_counts_the_windows_of_the_checked_engine() -> None:
    """The census's window count equals the ``window`` events of the same seeded games
    through the checked ``apply`` (census_playout leaves its argument unchanged)."""
    total = 0
    for seed in range(20):
        state, rng = census_seed(seed)
        before = state.position()
        census = ReverseCensus()
        census_playout(state, rng, census, 0.05)
        assert state.position() == before
        assert census.windows == checked_windows(seed, 0.05), seed
        total += census.windows
    assert total > 20
