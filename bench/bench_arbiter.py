"""Slap arbiter decision latency: the CPU time from a window's first press to its decision.

For each window: open, flip, 4 seats press (edge times in random order), poll once the
settle time has passed.  Printed beside a baseline in the same run: sorting the same four
``(t_ns, seat)`` pairs, the least work any arbiter must do.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from device.arbiter import SlapArbiter

WINDOWS = 20_000
MS = 1_000_000


@dataclass(frozen=True)
class _Press:
    seat: int
    t_ns: int


def _windows(rng: random.Random) -> list[list[_Press]]:
    out = []
    for _ in range(WINDOWS):
        presses = [_Press(s, rng.randrange(150, 600) * MS) for s in range(4)]
        rng.shuffle(presses)
        out.append(presses)
    return out


def run() -> list[str]:
    """Return the printed lines (µs per decision and the ratio to the baseline)."""
    data = _windows(random.Random(1))
    arb = SlapArbiter(4, random.Random(2))
    base = 10_000 * 1_000_000_000
    t0 = time.perf_counter()
    for i, presses in enumerate(data):
        start = base * (i + 1)
        arb.engine_window_opened(start)
        arb.flipped(start)
        for p in presses:
            arb.press(_Press(p.seat, start + p.t_ns), start + 700 * MS)
            arb.release(p.seat, start + p.t_ns + 100 * MS)
        arb.poll(start + 800 * MS)
        arb.window_closed(start + 900 * MS)
    arbiter_us = (time.perf_counter() - t0) / WINDOWS * 1e6
    t0 = time.perf_counter()
    for presses in data:
        sorted((p.t_ns, p.seat) for p in presses)
    baseline_us = (time.perf_counter() - t0) / WINDOWS * 1e6
    return [
        f"arbiter: {arbiter_us:.1f} us per window (open, flip, 4 presses + releases, decide)",
        f"baseline sort of 4 presses: {baseline_us:.2f} us; ratio {arbiter_us / baseline_us:.1f}x",
        "(the settle time of 5 ms dominates the real decision latency; this is CPU only)",
    ]
