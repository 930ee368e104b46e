"""Riiing! engine speed and bot strength, measured in one run (printed, never asserted).

- checked: random 4-seat playouts through the public API (``RiiingGame.new``, ``legal``,
  the checked ``apply``), the action picked by ``random.Random(seed).choice``;
- fast: the same games through the private unchecked fast path
  (``engine.riiing._fast``: ``FastState.new`` + ``random_playout``);
- win rate: the heuristic bot against the random bot in seeded 2-seat games through
  ``RiiingGame.autoplay`` (seats and opener alternate), with its standard error.

Every applied action counts as a step (slaps and timeouts included), as RLCard counts
UNO steps; the architecture's target for the fast path is about 130,000 steps/s here.
Game setup (the seeded 96-card shuffle and the deal) is inside the timed loop.
"""

from __future__ import annotations

import math
import random

from bench import checked_playout, playout_rate
from engine.riiing import HeuristicBot, RandomBot, RiiingGame
from engine.riiing._fast import FastState, random_playout

SEATS = 4
SECONDS = 2.0
WIN_RATE_GAMES = 2000

GAME = RiiingGame()


def _checked_game(seed: int) -> int:
    """One random game through the checked public API; returns its number of actions."""
    return checked_playout(GAME, SEATS, seed)


def _fast_game(seed: int) -> int:
    """The same game through the private fast path; returns its number of actions."""
    return random_playout(FastState.new(SEATS, seed), random.Random(seed))




def _heuristic_wins(seed: int) -> bool:
    rng = random.Random(seed)
    seat = seed % 2
    pos = GAME.new(2, seed, first=(seed // 2) % 2)
    bots = [HeuristicBot(s, rng) if s == seat else RandomBot(s, rng) for s in range(2)]
    *_, (_line, end, _events) = GAME.autoplay(pos, bots, rng)
    return end.winner == seat


def run() -> list[str]:
    """Measure and return the printed lines."""
    checked_aps, checked_gps, checked_games = playout_rate(_checked_game, SECONDS)
    fast_aps, fast_gps, fast_games = playout_rate(_fast_game, SECONDS)
    same = all(_checked_game(seed) == _fast_game(seed) for seed in range(20))
    wins = sum(_heuristic_wins(seed) for seed in range(WIN_RATE_GAMES))
    rate = wins / WIN_RATE_GAMES
    error = math.sqrt(rate * (1 - rate) / WIN_RATE_GAMES)
    return [
        f"riiing checked apply, {SEATS} seats random: {checked_aps:,.0f} actions/s, "
        f"{checked_gps:,.0f} games/s ({checked_games} games)",
        f"riiing fast path,     {SEATS} seats random: {fast_aps:,.0f} actions/s, "
        f"{fast_gps:,.0f} games/s ({fast_games} games; target ~130,000 actions/s)",
        f"fast path / checked: {fast_aps / checked_aps:.1f}x; same games for seeds 0-19: "
        f"{'yes' if same else 'NO'}",
        f"heuristic vs random, 2 seats: heuristic won {rate:.1%} +- {error:.1%} "
        f"of {WIN_RATE_GAMES} games",
    ]


if __name__ == "__main__":
    for line in run():
        print(line)
