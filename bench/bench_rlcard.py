"""The engine-speed baseline of the brief: RLCard's UNO game engine, measured in this run.

RLCard (``pip install rlcard``, a toolkit of card-game engines for reinforcement learning)
is not a dependency of partytable: ``make bench`` installs it into the venv on a best-effort
basis.  Both engines play random 4-seat games for the same wall time, one after the other;
a step is one applied action (RLCard's ``UnoGame.step``, our fast path's ``step``).
"""

from __future__ import annotations

import random
import time

from bench import playout_rate
from bench.bench_engine import _fast_game

SECONDS = 2.0


def _uno_rate(seconds: float) -> tuple[float, float]:
    from rlcard.games.uno.game import UnoGame

    game = UnoGame(num_players=4)
    game.np_random.seed(0)
    rng = random.Random(0)
    steps = games = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        game.init_game()
        games += 1
        while not game.is_over():
            game.step(rng.choice(game.get_legal_actions()))
            steps += 1
    return steps / elapsed, games / elapsed


def run() -> list[str]:
    """Return the printed lines: RLCard UNO steps/s and Riiing! fast-path actions/s."""
    try:
        uno_steps, uno_games = _uno_rate(SECONDS)
    except ImportError:
        return ["rlcard is not installed (pip install rlcard): no UNO baseline this run"]
    ours, _games, _n = playout_rate(_fast_game, SECONDS)
    return [
        f"RLCard UNO (baseline), 4 seats random: {uno_steps:,.0f} steps/s, "
        f"{uno_games:,.0f} games/s",
        f"riiing fast path, 4 seats random: {ours:,.0f} actions/s = "
        f"{ours / uno_steps:.1f}x the UNO baseline",
    ]
