"""Slap arbiter decision latency: the CPU time from a window's first press to its decision.

For each window: open, flip, 4 seats press (edge times in random order), poll once the
settle time has passed.  Printed beside a baseline in the same run: sorting the same four
``(t_ns, seat)`` pairs, the least work any arbiter must do.

A second figure chains windows as RI-6.6 allows (each opens at the previous close): the
first press wins, the window closes at the decision, the three losers are read after the
close (:attr:`~device.slaps.arbiter.Verdict.LOSING`, RI-6.5), and one of them lands before the
reaction floor of the next flip (LOSING again).  It times the arbiter's look-ups of closed
windows, which a table with back-to-back reverses makes on every press.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from device.slaps.arbiter import SlapArbiter, Verdict

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
    chained_us = _chained(data)
    return [
        f"arbiter: {arbiter_us:.1f} us per window (open, flip, 4 presses + releases, decide)",
        f"baseline sort of 4 presses: {baseline_us:.2f} us; ratio {arbiter_us / baseline_us:.1f}x",
        f"back-to-back windows (RI-6.6), losers read after the close: {chained_us:.1f} us "
        "per window",
        "(the settle time, 25 ms on the device, dominates the real decision latency; this "
        "is CPU only)",
    ]


def _chained(data: list[list[_Press]]) -> float:
    """µs per window of the RI-6.6 chain described in the module docstring; raises
    ``RuntimeError`` if a loser is not judged LOSING (the figure would time other work)."""
    arb = SlapArbiter(4, random.Random(3))
    now = 10_000 * 1_000_000_000
    losing = 0
    t0 = time.perf_counter()
    for presses in data:
        arb.engine_window_opened(now)
        flip = now + 17 * MS
        arb.flipped(flip)
        first = min(presses, key=lambda p: p.t_ns)
        late_loser = next(p for p in presses if p is not first)
        t = flip + 150 * MS + first.t_ns
        arb.press(_Press(first.seat, t), t + MS)
        arb.poll(t + 7 * MS)
        now = t + 7 * MS
        arb.window_closed(now)
        for p in presses:
            if p is not first and p is not late_loser:
                losing += arb.press(_Press(p.seat, now + p.t_ns // 4), now + MS) is Verdict.LOSING
        for p in presses:
            arb.release(p.seat, now + 2 * MS)
        arb.engine_window_opened(now)
        flip = now + 17 * MS
        arb.flipped(flip)
        verdict = arb.press(_Press(late_loser.seat, flip + 30 * MS), flip + 31 * MS)
        losing += verdict is Verdict.LOSING
        arb.release(late_loser.seat, flip + 80 * MS)
        arb.window_closed(flip + 8_000 * MS)
        now = flip + 10_000 * MS
    elapsed = time.perf_counter() - t0
    if losing != 3 * len(data):
        raise RuntimeError(f"bench: {3 * len(data) - losing} losers were not judged LOSING")
    return elapsed / len(data) * 1e6
