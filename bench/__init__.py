"""Benchmarks (``make bench``): figures are printed beside a baseline measured in the same
run, never asserted (CI machines are noisy)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from engine.core import Game


def playout_rate(play: Callable[[int], int], seconds: float) -> tuple[float, float, int]:
    """Play seeds 0, 1, ... with ``play(seed) -> actions`` for ``seconds`` of wall time;
    returns (actions/s, games/s, games played)."""
    actions = games = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        actions += play(games)
        games += 1
    return actions / elapsed, games / elapsed, games


def checked_playout(game: Game[Any, Any, Any], seats: int, seed: int) -> int:
    """One random game of ``game`` from ``seed`` through the public, checked ``apply``
    (each action drawn from ``legal`` with ``random.Random(seed)``); returns its number of
    actions."""
    rng = random.Random(seed)
    pos = game.new(seats, seed)
    actions = 0
    while game.outcome(pos) is None:
        pos, _events = game.apply(pos, rng.choice(game.legal(pos)))
        actions += 1
    return actions
