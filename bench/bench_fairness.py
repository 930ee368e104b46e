"""Slap fairness under misbehaving callbacks (issue "Real hardware" 7; architecture "Slap
arbitration").

Each trial is one RIIING! window at a 2-6 seat table.  Every seat presses; the earliest edge
is the truth, and the others follow it by a gap drawn from 0.05 to 50 ms.  Each press edge
goes through gpiozero's real input path on a ``MockFactory`` pin with its chosen tick
(``drivers.gpio.edge``), some with a bounce burst (three more edges within 1 ms, the first of
them at the wrong level), into ``drivers.slap.SlapButtons`` (debounce by timestamps), and its
callback reaches the loop 0 to 20 ms late, so callbacks arrive out of order.  The loop feeds
the arbiter in arrival order and polls it at its settle deadline.

Printed: the arbiter's winner against the truth, per gap band, for the default settle time
(5 ms) and for a settle time longer than the worst callback delay (25 ms); beside it the
naive "first callback wins" in the same run.  The arbiter can only be exact for callbacks
that arrive within its settle time: the figures show how much that matters.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from device.arbiter import SlapArbiter
from drivers.gpio import edge, mock_pin_factory
from drivers.slap import Press, SlapButtons

MS = 1_000_000
US = 1_000
TRIALS = 4_000
GAPS_MS = (0.05, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0)
MAX_DELAY_NS = 20 * MS
PINS = dict(enumerate((5, 6, 13, 19, 26, 21)))


@dataclass(frozen=True)
class _Edge:
    seat: int
    pressed: bool
    t_ns: int
    arrives_ns: int


def _trial(rng: random.Random, t0: int) -> tuple[int, float, list[_Edge]]:
    """One window: (true winner, smallest gap in ms, every edge with its arrival time)."""
    seats = rng.randint(2, 6)
    order = list(range(seats))
    rng.shuffle(order)
    first = t0 + rng.randrange(200, 600) * MS
    times = {order[0]: first}
    smallest = GAPS_MS[-1]
    for seat in order[1:]:
        gap = rng.choice(GAPS_MS)
        smallest = min(smallest, gap)
        times[seat] = first + int(gap * MS)
    edges: list[_Edge] = []
    for seat, t in times.items():
        delay = rng.randrange(0, MAX_DELAY_NS + 1)
        edges.append(_Edge(seat, True, t, t + delay))
        if rng.random() < 0.3:  # a bounce burst: wrong level first, all within 1 ms
            for i, level in enumerate((False, True, False)):
                bt = t + (i + 1) * 200 * US
                edges.append(_Edge(seat, level, bt, bt + delay))
        edges.append(_Edge(seat, False, t + 150 * MS, t + 150 * MS + delay))
    edges.sort(key=lambda e: (e.arrives_ns, e.t_ns))
    return order[0], smallest, edges


def _judge(edges: list[_Edge], t0: int, settle_ns: int, seats_rng: random.Random) -> int | None:
    """The arbiter's winner when the loop reads ``edges`` in arrival order."""
    posted: list[object] = []
    with mock_pin_factory() as factory, SlapButtons(PINS, posted.append,
                                                    pin_factory=factory) as buttons:
        arb = SlapArbiter(len(PINS), seats_rng, settle_ns=settle_ns)
        arb.engine_window_opened(t0 - MS)
        arb.flipped(t0)
        for e in edges:
            deadline = arb.next_deadline_ns()
            if deadline is not None and deadline <= e.arrives_ns:
                decision = arb.poll(deadline)
                if decision is not None:
                    return decision.seat
            edge(factory, PINS[e.seat], e.pressed, e.t_ns)
            buttons.settle(e.arrives_ns)
            for event in posted:
                if isinstance(event, Press):
                    arb.press(event, e.arrives_ns)
            posted.clear()
        deadline = arb.next_deadline_ns()
        decision = arb.poll(deadline) if deadline is not None else None
        return None if decision is None else decision.seat


def _first_callback(edges: list[_Edge]) -> int:
    return next(e.seat for e in edges if e.pressed)


def _rate(hits: list[bool]) -> str:
    return f"{100 * sum(hits) / max(1, len(hits)):.1f}%"


def run(trials: int = TRIALS) -> list[str]:
    """Run ``trials`` windows; return the printed lines."""
    rng = random.Random(2026)
    results: dict[str, list[tuple[float, bool]]] = {"settle 5 ms": [], "settle 25 ms": [],
                                                   "first callback": []}
    judges: dict[str, Callable[[list[_Edge], int], int | None]] = {
        "settle 5 ms": lambda es, t0: _judge(es, t0, 5 * MS, random.Random(1)),
        "settle 25 ms": lambda es, t0: _judge(es, t0, 25 * MS, random.Random(1)),
        "first callback": lambda es, t0: _first_callback(es),
    }
    for i in range(trials):
        t0 = (10 + i) * 1000 * MS
        truth, gap, edges = _trial(rng, t0)
        for name, judge in judges.items():
            results[name].append((gap, judge(edges, t0) == truth))
    lines = [f"{trials} windows, 2-6 seats, gaps {GAPS_MS[0]}-{GAPS_MS[-1]} ms, callbacks "
             f"0-{MAX_DELAY_NS // MS} ms late and out of order, 30% of presses bouncing"]
    bands = ((0.0, 0.5), (0.5, 5.0), (5.0, 20.0), (20.0, 51.0))
    for name, rows in results.items():
        per_band = "  ".join(
            f"gap {lo}-{hi if hi < 51 else 50} ms {_rate([ok for g, ok in rows if lo <= g < hi])}"
            for lo, hi in bands)
        lines.append(f"{name}: {_rate([ok for _, ok in rows])} right  ({per_band})")
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
