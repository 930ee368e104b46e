"""The engine-speed baseline of the brief: RLCard's UNO game engine, measured in this run.

RLCard (``pip install rlcard``, a toolkit of card-game engines for reinforcement learning)
is not a dependency of partytable: ``make bench`` installs it into the venv on a best-effort
basis.  A step is one applied action (RLCard's ``UnoGame.step``, our fast paths' steps).

:func:`versus_uno` measures one of our fast paths against random 4-seat UNO games in the
same run: the two take turns in short slices (8 each by default) and each side's rate is
its steps per second of this process's CPU time (``time.process_time``), so load from
other processes on a shared machine slows neither side's figure more than the other's.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from bench.bench_engine import _fast_game

SECONDS = 4.0
"""CPU seconds per comparison, split evenly between the two sides."""

SLICES = 8
"""Turns each side takes."""

Play = Callable[[int], int]
"""Plays one seeded game and returns its number of steps."""


def uno_play() -> Play:
    """One random 4-seat RLCard UNO game per call (its own numpy seed 0 set once, moves by
    ``random.Random(0).choice``); returns its steps.  Raises ImportError without rlcard."""
    from rlcard.games.uno.game import UnoGame  # type: ignore[import-untyped]

    game = UnoGame(num_players=4)
    game.np_random.seed(0)
    rng = random.Random(0)

    def play(_seed: int) -> int:
        game.init_game()
        steps = 0
        while not game.is_over():
            game.step(rng.choice(game.get_legal_actions()))
            steps += 1
        return steps

    return play


def _slice(play: Play, seconds: float, first_seed: int) -> tuple[int, int, float]:
    """Play seeds ``first_seed, ...`` for ``seconds`` of CPU time; returns (steps, games,
    CPU seconds used)."""
    steps = games = 0
    start = time.process_time()
    while (used := time.process_time() - start) < seconds:
        steps += play(first_seed + games)
        games += 1
    return steps, games, used


def versus_uno(ours: Play, seconds: float = SECONDS, slices: int = SLICES) -> tuple[float, float]:
    """``(our steps/s, UNO steps/s)`` in CPU time, the two sides taking turns in ``slices``
    slices each of ``seconds / (2 * slices)``.  Raises ImportError without rlcard."""
    uno = uno_play()
    mine = [0, 0.0]
    theirs = [0, 0.0]
    seed = 0
    for _ in range(slices):
        for play, total in ((ours, mine), (uno, theirs)):
            steps, games, used = _slice(play, seconds / (2 * slices), seed)
            total[0] += steps
            total[1] += used
            seed += games
    return mine[0] / mine[1], theirs[0] / theirs[1]


def run() -> list[str]:
    """Return the printed lines: RLCard UNO steps/s and Riiing! fast-path actions/s."""
    try:
        ours, uno = versus_uno(_fast_game)
    except ImportError:
        return ["rlcard is not installed (pip install rlcard): no UNO baseline this run"]
    return [
        f"RLCard UNO (baseline), 4 seats random: {uno:,.0f} steps per CPU second",
        f"riiing fast path, 4 seats random: {ours:,.0f} actions per CPU second = "
        f"{ours / uno:.1f}x the UNO baseline (taking turns, {SLICES} slices each)",
    ]
