"""Riiing! engine speed and bot strength, measured in one run (printed, never asserted).

- checked: random 4-seat playouts through the public API (``RiiingGame.new``, ``legal``,
  the checked ``apply``), the action picked by ``random.Random(seed).choice``;
- fast: the same games through the private unchecked fast path
  (``engine.riiing._fast``: ``FastState.new`` + ``random_playout``);
- win rate: the heuristic bot against the random bot in seeded 2-seat games through
  ``RiiingGame.autoplay`` (seats and opener alternate), with its standard error;
- windows per reverse: in seeded random games over 2-6 seats (fast path, false slaps now
  and then, penalty 0-2), the special reverses that reached the top of the draw pile where
  play pauses (RI-6.1) and how many opened a window; those passing through the top inside
  a multi-card take or penalty, or drawn straight after a reshuffle, are counted apart,
  and so are the windows the rule before RI-5.3/RI-5.4 changed would have let pass.

Every applied action counts as a step (slaps and timeouts included), as RLCard counts
UNO steps; docs/architecture.md's target for the fast path is about 130,000 steps/s here.
Game setup (the seeded 96-card shuffle and the deal) is inside the timed loop.
"""

from __future__ import annotations

import math
import random

from bench import checked_playout, playout_rate
from engine.riiing import HeuristicBot, RandomBot, RiiingGame
from engine.riiing._fast import FastState, ReverseCensus, census_playout, random_playout
from engine.riiing.position import RiiingOptions

SEATS = 4
SECONDS = 2.0
WIN_RATE_GAMES = 2000
CENSUS_GAMES = 2000
FALSE_SLAPS = 0.05
"""Chance of a false slap per action outside a window in the census games."""

GAME = RiiingGame()


def _checked_game(seed: int) -> int:
    """One random game through the checked public API; returns its number of actions."""
    return checked_playout(GAME, SEATS, seed)


def _fast_game(seed: int) -> int:
    """The same game through the private fast path; returns its number of actions."""
    return random_playout(FastState.new(SEATS, seed), random.Random(seed))


def reverse_census(games: int) -> ReverseCensus:
    """Where the reverses went in ``games`` seeded random games over 2-6 seats (seed i:
    ``2 + i % 5`` seats, ``false_slap_penalty`` ``i % 3``, ``first`` ``i % seats``)."""
    census = ReverseCensus()
    for seed in range(games):
        seats = 2 + seed % 5
        options = RiiingOptions.from_mapping({"false_slap_penalty": str(seed % 3)})
        state = FastState.new(seats, seed, options, first=seed % seats)
        census_playout(state, random.Random(seed), census, FALSE_SLAPS)
    return census


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
    census = reverse_census(CENSUS_GAMES)
    steps = ", ".join(f"{kind} {n}" for kind, n in sorted(census.by_step.items()))
    return [
        f"riiing checked apply, {SEATS} seats random: {checked_aps:,.0f} actions/s, "
        f"{checked_gps:,.0f} games/s ({checked_games} games)",
        f"riiing fast path,     {SEATS} seats random: {fast_aps:,.0f} actions/s, "
        f"{fast_gps:,.0f} games/s ({fast_games} games; target ~130,000 actions/s)",
        f"fast path / checked: {fast_aps / checked_aps:.1f}x; same games for seeds 0-19: "
        f"{'yes' if same else 'NO'}",
        f"heuristic vs random, 2 seats: heuristic won {rate:.1%} +- {error:.1%} "
        f"of {WIN_RATE_GAMES} games",
        f"windows per reverse that reached the top of the draw pile: {census.percent:.1f}% "
        f"({census.windows} windows of {census.reached} reverses, {CENSUS_GAMES} random games "
        f"over 2-6 seats; windows opened by {steps})",
        f"  reverses that passed the top unseen: {census.inside} inside a multi-card take or "
        f"penalty, {census.reshuffled} straight after a reshuffle; {census.stop_windows} of "
        f"the {census.windows} windows ({census.stop_windows / max(census.windows, 1):.0%}) "
        f"opened where a draw-until or a take stops at a reverse (RI-5.3, RI-5.4)",
    ]


if __name__ == "__main__":
    for line in run():
        print(line)
