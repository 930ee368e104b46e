"""Right on Time computer players and autoplay: bots decide from their own view, the
heuristic's key choices, its win rate against random bots, and the autoplay log."""

from __future__ import annotations

import random
import re

import pytest
from right_on_time_helpers import GAME, position

from engine.core import Bot, NotationError
from engine.right_on_time import HeuristicBot, RandomBot, RotPosition


def choice(bot_cls: type[Bot[object, object]], pos: RotPosition, seed: int = 1) -> str:
    """The text of the action ``bot_cls`` picks for the seat to move."""
    seat = pos.to_move
    assert seat is not None
    bot = bot_cls(seat, random.Random(seed))
    return str(bot.choose(GAME.view(pos, seat), GAME.legal(pos)))


def test_random_bot_picks_legal_actions_reproducibly() -> None:
    """RandomBot picks one of the legal actions; the same RNG seed gives the same pick."""
    pos = GAME.new(3, 4)
    picks = {choice(RandomBot, pos, seed) for seed in range(20)}  # type: ignore[arg-type]
    assert picks <= {str(a) for a in GAME.legal(pos)} and len(picks) > 3
    assert choice(RandomBot, pos, 7) == choice(RandomBot, pos, 7)  # type: ignore[arg-type]


def test_heuristic_does_not_go_out_first() -> None:
    """With nobody out (3 seats) the heuristic keeps a card rather than empty its hand:
    going out first hands the point to someone else (RT-6.2)."""
    pos = position(hands=[["J", "2"], ["1", "3", "4"], ["5", "6", "7"]], discard=["4"])
    picked = choice(HeuristicBot, pos)  # type: ignore[arg-type]
    assert picked in {"play J=5", "play J=6", "play J=7"}


def test_heuristic_goes_out_second() -> None:
    """With a seat out the heuristic empties its hand when it can: it wins the round."""
    pos = position(hands=[["J", "2"], [], ["5", "6", "7"]], discard=["4"], out=[1])
    picked = choice(HeuristicBot, pos)  # type: ignore[arg-type]
    assert len(picked.split()) == 3 and "J=" in picked


def test_heuristic_uses_du_bist_on_itself_in_its_single_turn() -> None:
    """Two seats, the other out: Du bist! on itself (RT-9.5) keeps the single turn going."""
    pos = position(seats=2, hands=[[], ["D3", "6"]], discard=["2"], out=[0], to_move=1)
    assert choice(HeuristicBot, pos) == "play D3 >1"  # type: ignore[arg-type]


def test_heuristic_brings_the_other_back_with_ziehen() -> None:
    """Two seats, the other out and no way to empty the hand: Ziehen! on the other seat
    cancels its point (RT-9.4)."""
    pos = position(
        seats=2, hands=[[], ["Z3", "6", "1"]], draw=["4"], discard=["2"], out=[0], to_move=1
    )
    assert choice(HeuristicBot, pos) == "play Z3 @0"  # type: ignore[arg-type]


def test_heuristic_swaps_in_a_bonus_card_that_wins() -> None:
    """A bonus card that lets it go out second is swapped in (RT-6.4)."""
    pos = position(
        hands=[["1"], [], ["5", "6", "7"]],
        draw=["3"],
        discard=["5"],
        out=[1],
        bonus=[["N"], [], []],
    )
    assert choice(HeuristicBot, pos) == "bonus N 1"  # type: ignore[arg-type]


def test_heuristic_decides_from_its_view_only() -> None:
    """Positions that differ only in what the seat cannot see give the same choice."""
    base = {"discard": ["3"], "draw": ["2", "6"], "to_move": 0}
    one = position(hands=[["5", "4", "1", "Z3"], ["7", "7"], ["1", "2", "3"]], **base)
    two = position(hands=[["5", "4", "1", "Z3"], ["2", "N"], ["J", "6", "6"]], **base)
    assert GAME.view(one, 0) == GAME.view(two, 0)
    for seed in range(5):
        assert choice(HeuristicBot, one, seed) == choice(HeuristicBot, two, seed)  # type: ignore[arg-type]


def test_heuristic_beats_random_bots() -> None:
    """In 200 seeded 3-seat matches (its seat rotating) the heuristic wins at least 60%
    against two random bots (about two thirds in the long run, bench/bench_rot.py)."""
    wins = 0
    matches = 200
    for seed in range(matches):
        rng = random.Random(seed)
        mine = seed % 3
        bots: list[Bot[object, object]] = [
            HeuristicBot(s, rng) if s == mine else RandomBot(s, rng)  # type: ignore[misc]
            for s in range(3)
        ]
        pos = start = GAME.new(3, 7000 + seed)
        for _line, pos, _events in GAME.autoplay(start, bots, rng):  # noqa: B007
            pass
        wins += pos.winner == mine
    assert wins >= 0.60 * matches


# ------------------------------------------------------------------ autoplay


LINE = re.compile(
    r"^seat \d: (play [^()]+|draw|bonus \S+ \S+)( \(round \d+ won by seat \d; points [\d ]+"
    r"(; match won)?\))?$"
)


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_autoplay_log_lines(seats: int) -> None:
    """autoplay yields one log line per action (`seat 2: play 3 J=2`, a note on round
    ends) and ends with the match won (RT-7.1)."""
    rng = random.Random(seats)
    bots = [HeuristicBot(s, rng) for s in range(seats)]
    pos = start = GAME.new(seats, 42)
    lines = []
    rounds = 0
    for line, pos, events in GAME.autoplay(start, bots, rng):  # noqa: B007
        lines.append(str(line))
        assert LINE.match(str(line)), str(line)
        if any(e.kind == "round" for e in events):
            rounds += 1
            winner = next(e.seat for e in events if e.kind == "round")
            assert f"won by seat {winner}; points" in str(line)
    assert pos.winner is not None and lines[-1].endswith("; match won)")
    assert rounds >= 3 and rounds == sum(pos.scores)


def test_autoplay_needs_one_bot_per_seat() -> None:
    """autoplay refuses a bot list of the wrong length with a NotationError."""
    rng = random.Random(1)
    with pytest.raises(NotationError, match="2 bots for 3 seats"):
        next(iter(GAME.autoplay(GAME.new(3, 1), [RandomBot(0, rng), RandomBot(1, rng)], rng)))


def test_autoplay_stops_when_no_card_can_move() -> None:
    """A position where every seat must draw and nothing can be drawn ends autoplay early
    without a winner instead of looping."""
    pos = position(hands=[["1"], ["1"], ["2"]], discard=["7"], draw=[])
    rng = random.Random(1)
    lines = [
        str(line) for line, _, _ in GAME.autoplay(pos, [RandomBot(s, rng) for s in range(3)], rng)
    ]
    assert lines and all(line.endswith(": draw") for line in lines) and len(lines) <= 10
    final, steps = GAME._fast_random_playout(pos, random.Random(1))
    assert final.winner is None and steps <= 10
