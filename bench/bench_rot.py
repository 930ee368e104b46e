"""Right on Time engine speed and bot strength, measured in one run (printed, never asserted).

- checked: random 3-seat matches through the public API (``RightOnTimeGame.new``,
  ``legal``, the checked ``apply``), each action picked by ``random.Random(seed).choice``;
- fast: random 3-seat matches through the private unchecked fast path
  (``rules.Table.deal`` and ``rules.random_playout``: one mutable table, uniform move
  choice; ``RightOnTimeGame._fast_random_playout`` wraps the same for positions);
- fast versus RLCard's UNO engine in the same run (``bench.bench_rlcard.versus_uno``: the
  two take turns, rates in steps per CPU second); the goal is at least 2x;
- agreement: fast playouts of seeds 0-19 replayed through the checked ``apply``;
- win rate: the heuristic bot against two random bots in seeded 3-seat matches through
  ``RightOnTimeGame.autoplay`` (its seat rotating), with its standard error; the same for
  2 seats (one random bot).

Every applied action counts as a step (bonus swaps and draws included), as RLCard counts
UNO steps; docs/architecture.md's target for the fast path is about 130,000 steps/s here, and
at least 2x the UNO engine measured in the same run.
Match setup (the seeded 50-card shuffle and the deal) is inside the timed loop.
"""

from __future__ import annotations

import math
import random

from bench import checked_playout, playout_rate
from bench.bench_rlcard import SLICES, versus_uno
from engine.core import Bot
from engine.right_on_time import HeuristicBot, RandomBot, RightOnTimeGame, RotOptions
from engine.right_on_time.rules import Table, random_playout

SEATS = 3
SECONDS = 2.0
WIN_RATE_MATCHES = 600

GAME = RightOnTimeGame()
OPTIONS = RotOptions()


def _checked_match(seed: int) -> int:
    """One random match through the checked public API; returns its number of actions."""
    return checked_playout(GAME, SEATS, seed)


def _fast_match(seed: int) -> int:
    """One random match through the private fast path (dealt straight into a mutable
    table, as Riiing!'s fast bench deals into its state); returns its number of actions."""
    table = Table.deal(SEATS, seed, OPTIONS, 0)
    return random_playout(table, random.Random(seed).random)




def _agrees(seed: int) -> bool:
    """The fast playout of ``seed`` replays through the checked apply to the same end."""
    start = GAME.new(SEATS, seed)
    record: list[str] = []
    end, _steps = GAME._fast_random_playout(start, random.Random(seed), record)
    pos = start
    for text in record:
        pos, _events = GAME.apply(pos, GAME.parse_action(text))
    return pos == end


def _heuristic_wins(seed: int, seats: int) -> bool:
    """One seeded match of the heuristic (seat ``seed % seats``) against random bots."""
    rng = random.Random(seed)
    mine = seed % seats
    bots: list[Bot[object, object]] = [
        HeuristicBot(s, rng) if s == mine else RandomBot(s, rng)  # type: ignore[misc]
        for s in range(seats)
    ]
    pos = start = GAME.new(seats, 100_000 + seed)
    for _line, pos, _events in GAME.autoplay(start, bots, rng):  # noqa: B007
        pass
    return pos.winner == mine


def _win_rate(seats: int, matches: int) -> str:
    wins = sum(_heuristic_wins(seed, seats) for seed in range(matches))
    rate = wins / matches
    error = math.sqrt(rate * (1 - rate) / matches)
    return (
        f"heuristic vs random, {seats} seats: heuristic won {rate:.1%} +- {error:.1%} "
        f"of {matches} matches (chance: {1 / seats:.0%})"
    )


def run() -> list[str]:
    """Measure and return the printed lines."""
    checked_aps, checked_mps, checked_matches = playout_rate(_checked_match, SECONDS)
    fast_aps, fast_mps, fast_matches = playout_rate(_fast_match, SECONDS)
    same = all(_agrees(seed) for seed in range(20))
    try:
        ours, uno = versus_uno(_fast_match)
        versus = (
            f"fast path vs RLCard UNO (4 seats) in this run, taking turns ({SLICES} slices "
            f"each, CPU time): {ours:,.0f} vs {uno:,.0f} steps/s = {ours / uno:.2f}x "
            "(goal: at least 2x)"
        )
    except ImportError:
        versus = "rlcard is not installed (pip install rlcard): no UNO comparison this run"
    return [
        f"right-on-time checked apply, {SEATS} seats random: {checked_aps:,.0f} actions/s, "
        f"{checked_mps:,.0f} matches/s ({checked_matches} matches)",
        f"right-on-time fast path,     {SEATS} seats random: {fast_aps:,.0f} actions/s, "
        f"{fast_mps:,.0f} matches/s ({fast_matches} matches; target ~130,000 actions/s)",
        f"fast path / checked: {fast_aps / checked_aps:.1f}x; fast playouts of seeds 0-19 "
        f"replay through checked apply: {'yes' if same else 'NO'}",
        versus,
        _win_rate(3, WIN_RATE_MATCHES),
        _win_rate(2, WIN_RATE_MATCHES // 2),
    ]


if __name__ == "__main__":
    for line in run():
        print(line)
