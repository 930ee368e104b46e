"""Strength of the ``"hard"`` computer players (SO-ISMCTS, ``engine.ismcts``) and their
decision times, printed with 95% Wilson score intervals (never asserted).

- Riiing!, 2 seats: hard against the heuristic bot through ``RiiingGame.autoplay``; game
  ``i`` seats hard at ``i % 2`` and lets seat ``(i // 2) % 2`` open, so each side opens
  half the games; slap windows are raced by both bots' sampled reaction times, as the
  device does.  Goal: the interval's low end above 1/2.
- Riiing!'s ceiling on the same deals: a player that sees the other hand
  (``bench.riiing_ceiling``) against the heuristic, for how much any decision rule could
  win in a game this ruled by the draw.
- Right on Time, 3 seats: hard against two heuristic bots through
  ``RightOnTimeGame.autoplay``; match ``i`` seats hard at ``i % 3`` and lets seat
  ``(i // 3) % 3`` open, so every seat opens equally often.  A match that stalls (no card
  can move) counts as not won.  Goal: the interval's low end above 1/3.
- Decision time per move of the hard bot (moves with more than one legal action):
  median, 99th percentile and maximum of the wall time (``time.perf_counter``, what a
  table waits) and of this process's CPU time (``time.process_time``, unaffected by other
  processes on a shared machine).  The budget: 80 ms here stands for 250 ms on a Pi.

``BENCH_STRENGTH_GAMES`` (default 2000: a win share to about 2 points, 95%) sets the games
per match-up, e.g. ``BENCH_STRENGTH_GAMES=50`` while developing; ``BENCH_STRENGTH_WORKERS``
(default 1) spreads the games over worker processes.  A bad value is named and the default used.
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bench.riiing_ceiling import SeeingBot
from engine.core import Bot
from engine.right_on_time import RightOnTimeGame
from engine.right_on_time import bots as rot_bots
from engine.right_on_time import hard as rot_hard
from engine.riiing import RiiingGame
from engine.riiing import bots as riiing_bots
from engine.riiing import hard as riiing_hard

DEFAULT_GAMES = 2000
"""Games per match-up: 2,000, for a 95% interval about 2 points wide."""

ENV = "BENCH_STRENGTH_GAMES"
"""The environment variable that sets the games per match-up."""

WORKERS_ENV = "BENCH_STRENGTH_WORKERS"
"""The environment variable that sets the worker processes (games are seeded by their
number, so the results do not depend on it; decision wall times do, on a busy machine)."""

Z95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95% interval."""


def wilson(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval ``(low, high)`` of a win rate ``wins / games`` (both
    whole numbers, ``games > 0``; Wilson 1927); ``(0, 1)`` for no games.

    >>> low, high = wilson(1100, 2000)
    >>> round(low, 4), round(high, 4)
    (0.5281, 0.5717)
    """
    if games <= 0:
        return 0.0, 1.0
    rate = wins / games
    denom = 1 + z * z / games
    centre = (rate + z * z / (2 * games)) / denom
    half = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def games_wanted(environ: dict[str, str] | os._Environ[str] = os.environ) -> tuple[int, str]:
    """The games per match-up from :data:`ENV` and a note ("" or one line naming a bad
    value, which falls back to :data:`DEFAULT_GAMES`)."""
    raw = environ.get(ENV)
    if raw is None:
        return DEFAULT_GAMES, ""
    text = raw.strip()
    if text.isascii() and text.isdigit() and 0 < int(text) <= 10_000_000:
        return int(text), ""
    return DEFAULT_GAMES, f"{ENV}={raw[:20]!r} is not a whole number >= 1: {DEFAULT_GAMES} used"


class Timed:
    """Wraps a bot: passes ``choose`` through and records the wall and CPU seconds of each
    decision with more than one legal action (lists ``wall``, ``cpu``)."""

    def __init__(self, bot: Bot[Any, Any], wall: list[float], cpu: list[float]) -> None:
        self.bot = bot
        self.seat = bot.seat
        self.rng = bot.rng
        self.wall = wall
        self.cpu = cpu

    def choose(self, view: Any, legal: Sequence[Any]) -> Any:
        """The wrapped bot's choice, timed."""
        wall0 = time.perf_counter()
        cpu0 = time.process_time()
        action = self.bot.choose(view, legal)
        if len(legal) > 1:
            self.cpu.append(time.process_time() - cpu0)
            self.wall.append(time.perf_counter() - wall0)
        return action

    def observe(self, before: Any, action: Any, after: Any) -> None:
        """Passed to the wrapped bot (``engine.core.Bot.observe``)."""
        self.bot.observe(before, action, after)

    def reaction_ns(self, mean_ms: float = 300.0, sd_ms: float = 60.0) -> int:
        """The wrapped bot's slap reaction time (``engine.core.Bot.reaction_ns``)."""
        return self.bot.reaction_ns(mean_ms, sd_ms)


def _riiing_game(i: int, wall: list[float], cpu: list[float]) -> bool:
    """Game ``i`` of the Riiing! match-up; True when hard won."""
    game = RiiingGame()
    rng = random.Random(i)
    hard = i % 2
    first = (i // 2) % 2
    bots: list[Any] = [
        Timed(riiing_hard.HardBot(s, rng), wall, cpu)
        if s == hard
        else riiing_bots.HeuristicBot(s, rng)
        for s in range(2)
    ]
    winner = None
    for _line, pos, _events in game.autoplay(game.new(2, 1_000_000 + i, first=first), bots, rng):
        winner = pos.winner
    return winner == hard


def _riiing_ceiling_game(i: int, wall: list[float], cpu: list[float]) -> bool:
    """Game ``i`` of the ceiling match-up (:mod:`bench.riiing_ceiling`, the same seats and
    deals as :func:`_riiing_game`); True when the seeing player won."""
    game = RiiingGame()
    rng = random.Random(i)
    seeing_seat = i % 2
    seeing = SeeingBot(seeing_seat, rng)
    bots: list[Any] = [
        seeing if s == seeing_seat else riiing_bots.HeuristicBot(s, rng) for s in range(2)
    ]
    seeing.position = game.new(2, 1_000_000 + i, first=(i // 2) % 2)
    winner = None
    for _line, pos, _events in game.autoplay(seeing.position, bots, rng):
        seeing.position = pos
        winner = pos.winner
    return winner == seeing_seat


def _rot_match(i: int, wall: list[float], cpu: list[float]) -> bool:
    """Match ``i`` of the Right on Time match-up; True when hard won."""
    game = RightOnTimeGame()
    rng = random.Random(i)
    hard = i % 3
    first = (i // 3) % 3
    bots: list[Any] = [
        Timed(rot_hard.HardBot(s, rng), wall, cpu) if s == hard else rot_bots.HeuristicBot(s, rng)
        for s in range(3)
    ]
    winner = None
    for _line, pos, _events in game.autoplay(game.new(3, 2_000_000 + i, first=first), bots, rng):
        winner = pos.winner
    return winner == hard


def _ms(values: list[float]) -> str:
    """``median / p99 / max`` of seconds, in milliseconds."""
    if not values:
        return "no decisions"
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]
    return (
        f"median {1000 * ordered[len(ordered) // 2]:.1f} ms, p99 {1000 * p99:.1f} ms, "
        f"max {1000 * ordered[-1]:.1f} ms"
    )


PLAYS = {
    "riiing": _riiing_game,
    "riiing-ceiling": _riiing_ceiling_game,
    "right-on-time": _rot_match,
}


def _chunk(which: str, first: int, last: int) -> tuple[int, list[float], list[float]]:
    """Games ``first .. last - 1`` of match-up ``which`` (a :data:`PLAYS` key): (hard's
    wins, decision wall seconds, decision CPU seconds).  Runs in a worker process."""
    wall: list[float] = []
    cpu: list[float] = []
    play = PLAYS[which]
    wins = sum(play(i, wall, cpu) for i in range(first, last))
    return wins, wall, cpu


def _matchup(
    name: str, goal: float, games: int, which: str, workers: int, who: str = "hard"
) -> list[str]:
    wall: list[float] = []
    cpu: list[float] = []
    start = time.perf_counter()
    step = max(1, math.ceil(games / (4 * workers)))
    chunks = [(which, i, min(games, i + step)) for i in range(0, games, step)]
    wins = 0
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            results = list(pool.map(_chunk, *zip(*chunks, strict=True)))
    else:
        results = [_chunk(*chunk) for chunk in chunks]
    for won, walls, cpus in results:
        wins += won
        wall += walls
        cpu += cpus
    elapsed = time.perf_counter() - start
    low, high = wilson(wins, games)
    verdict = "above" if low > goal else "NOT clearly above"
    return [
        f"{name}: {who} won {wins} of {games} = {wins / games:.1%}, 95% Wilson interval "
        f"[{low:.1%}, {high:.1%}]: {verdict} {goal:.1%} ({elapsed:.0f} s)",
        f"  hard decision time over {len(wall)} decisions: wall {_ms(wall)}; CPU {_ms(cpu)}",
    ]


def workers_wanted(environ: dict[str, str] | os._Environ[str] = os.environ) -> tuple[int, str]:
    """Worker processes from :data:`WORKERS_ENV` (default 1: the machine is shared) and a
    note naming a bad value (then 1)."""
    raw = environ.get(WORKERS_ENV)
    if raw is None:
        return 1, ""
    text = raw.strip()
    if text.isascii() and text.isdigit() and 1 <= int(text) <= 64:
        return int(text), ""
    return 1, f"{WORKERS_ENV}={raw[:20]!r} is not a whole number 1..64: 1 used"


def run() -> list[str]:
    """Play both match-ups and return the printed lines."""
    games, note = games_wanted()
    workers, worker_note = workers_wanted()
    lines = [n for n in (note, worker_note) if n]
    lines.append(
        f"{games} games per match-up ({ENV} sets it), {workers} worker process(es) "
        f"({WORKERS_ENV}); hard = SO-ISMCTS, {riiing_hard.ITERATIONS} iterations a decision "
        f"(Riiing!), at most {rot_hard.ITERATIONS} and {rot_hard.MOVES} moves (Right on Time)"
    )
    lines += _matchup("riiing 2 seats, hard vs heuristic", 0.5, games, "riiing", workers)
    lines += _matchup(
        "  ceiling: a seat that SEES the other hand vs heuristic", 0.5, games,
        "riiing-ceiling", workers, who="the seeing player",
    )[:1]
    lines += _matchup(
        "right-on-time 3 seats, hard vs 2 heuristic", 1 / 3, games, "right-on-time", workers
    )
    return lines


if __name__ == "__main__":
    for line in run():
        print(line)
