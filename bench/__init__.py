"""Benchmarks (``make bench``): figures are printed beside a baseline measured in the same
run, never asserted (CI machines are noisy)."""

from __future__ import annotations

import time
from collections.abc import Callable


def playout_rate(play: Callable[[int], int], seconds: float) -> tuple[float, float, int]:
    """Play seeds 0, 1, ... with ``play(seed) -> actions`` for ``seconds`` of wall time;
    returns (actions/s, games/s, games played)."""
    actions = games = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        actions += play(games)
        games += 1
    return actions / elapsed, games / elapsed, games
