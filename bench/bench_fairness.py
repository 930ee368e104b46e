"""Slap fairness under misbehaving callbacks and glitching lines
(docs/architecture.md "Slap arbitration"; ``drivers.slap.DEFAULT_CONFIRM_NS``).

Each trial is one RIIING! window at a 2-6 seat table.  Every seat presses; the earliest edge
is the truth, and the others follow it by a gap drawn from 0.05 to 50 ms.  Each edge moves
its ``MockFactory`` line at its own time and its callback runs gpiozero's real input path
(``drivers.gpio.edge`` with ``deliver=False``, then ``fire_edge``) 0 to 20 ms later, so
callbacks arrive out of order while ``settle()`` reads the line as it really is.  30% of the
presses bounce (down, up, down within 0.4 ms, the first event carrying the wrong level, as
the kernel's late read gives).  The loop runs as the device's does: it handles each
callback, runs the buttons' ticker at its deadlines (the driver wakes it for a press
waiting for its 1 ms check), and polls the arbiter at its settle deadline.

Printed: the arbiter's winner against the truth, per gap band, for the default settle time
(5 ms) and for the slap race's 25 ms (longer than the worst callback delay); beside it the
naive "first callback wins" in the same run.  The arbiter can only be exact for callbacks
that arrive within its settle time: the figures show how much that matters.

Glitch rows: the same windows with spikes of 5-500 us (static, motor noise) on every line,
before and after the real presses, their callbacks as late and their events' levels as
wrong: how many spikes became a press (none may), with the check off for comparison; and
of the real presses, how many were posted and how many kept the stamp of their first edge
(all must), and who won.

Spike-train rows: two-seat races where a train of spikes (any period from 50 us to 5 ms)
runs up to each real press: the share of windows won by the truly earliest press, and each
Press's stamp against its first contact, with the stamp's 2.5 ms bound
(``drivers.slap.DEFAULT_BOUNCE_NS``) and without it (``bounce_ns=None``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from statistics import median
from typing import Any

from device.slaps.arbiter import SlapArbiter
from drivers.gpio import edge, fire_edge, mock_pin_factory
from drivers.slap import DEFAULT_BOUNCE_NS, DEFAULT_CONFIRM_NS, Press, SlapButtons

MS = 1_000_000
US = 1_000
TRIALS = 4_000
GLITCH_TRIALS = 1_000
TRAIN_TRIALS = 1_000
GAPS_MS = (0.05, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0)
SPIKE_WIDTHS_US = (5, 10, 50, 100, 500)
MAX_DELAY_NS = 20 * MS
PINS = dict(enumerate((5, 6, 13, 19, 26, 21)))


@dataclass(frozen=True)
class _Edge:
    """One change of a line: ``pressed`` (where the line goes), at ``t_ns``; its callback
    runs at ``arrives_ns`` and says ``reads``."""

    seat: int
    pressed: bool
    t_ns: int
    arrives_ns: int
    reads: bool


@dataclass
class _Window:
    """One trial: the true winner, the smallest gap (ms), every edge, each real press's
    first edge per seat, and how many spikes were driven."""

    truth: int
    gap_ms: float
    edges: list[_Edge]
    presses: dict[int, int]
    spikes: int = 0
    widths: dict[int, int] = field(default_factory=dict)


def _press_edges(rng: random.Random, seat: int, t: int, delay: int) -> list[_Edge]:
    """A press at ``t`` (maybe bouncing), held 150 ms, its callbacks ``delay`` late."""
    if rng.random() < 0.3:  # a bounce burst: the first event says "released"
        out = [_Edge(seat, True, t, t + delay, False)]
        for i, level in enumerate((False, True)):
            bt = t + (i + 1) * 200 * US
            out.append(_Edge(seat, level, bt, bt + delay, level))
    else:
        out = [_Edge(seat, True, t, t + delay, True)]
    release = t + 150 * MS
    return [*out, _Edge(seat, False, release, release + delay, False)]


def _spike_edges(rng: random.Random, seat: int, t: int, width_us: int) -> list[_Edge]:
    """A spike of ``width_us`` at ``t``: its callbacks late like any, its first event's
    level read after the spike ended half of the time."""
    delay = rng.randrange(0, MAX_DELAY_NS + 1)
    end = t + width_us * US
    first_reads = rng.random() < 0.5
    return [_Edge(seat, True, t, t + delay, first_reads),
            _Edge(seat, False, end, end + delay, False)]


def _trial(rng: random.Random, t0: int, *, spikes: bool = False) -> _Window:
    """One window; with ``spikes``, 1-4 spikes per seat 50-450 ms after ``t0`` (before, among
    and after the presses, at least 2 ms from any press's edges: closer, a spike is a
    bounce of that press)."""
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
        edges += _press_edges(rng, seat, t, rng.randrange(0, MAX_DELAY_NS + 1))
    window = _Window(order[0], smallest, edges, dict(times))
    if spikes:
        for seat in range(seats):
            press = times[seat]
            for _ in range(rng.randint(1, 4)):
                width = rng.choice(SPIKE_WIDTHS_US)
                t = t0 + rng.randrange(50 * MS, 900 * MS)
                if press - 2 * MS - width * US <= t <= press + 152 * MS:
                    continue  # on the press itself: a bounce, not a glitch
                edges += _spike_edges(rng, seat, t, width)
                window.spikes += 1
                window.widths[width] = window.widths.get(width, 0) + 1
    return window


@dataclass
class _Outcome:
    """What the loop made of one window: the winner (or ``None``) and every Press posted."""

    winner: int | None
    posted: list[Press]


def _judge(window: _Window, t0: int, settle_ns: int, seats_rng: random.Random,
           confirm_ns: int = DEFAULT_CONFIRM_NS, **options: Any) -> _Outcome:
    """Run the window through the buttons and the arbiter as the device loop would
    (``options`` go to :class:`SlapButtons`)."""
    posted: list[object] = []
    presses: list[Press] = []
    timeline = sorted(
        [(e.t_ns, 0, i) for i, e in enumerate(window.edges)]
        + [(e.arrives_ns, 1, i) for i, e in enumerate(window.edges)])
    with mock_pin_factory() as factory, SlapButtons(
        PINS, posted.append, pin_factory=factory, confirm_ns=confirm_ns, **options
    ) as buttons:
        arb = SlapArbiter(len(PINS), seats_rng, settle_ns=settle_ns)
        arb.engine_window_opened(t0 - MS)
        arb.flipped(t0)
        winner: int | None = None
        buttons_due: int | None = None

        def feed(now: int) -> None:
            for event in posted:
                if isinstance(event, Press):
                    presses.append(event)
                    arb.press(event, now)
            posted.clear()

        def run_until(until: int) -> None:
            """The loop's deadlines (ticker first, then the arbiter) up to ``until``."""
            nonlocal buttons_due, winner
            while True:
                arb_due = arb.next_deadline_ns() if winner is None else None
                due = [d for d in (buttons_due, arb_due) if d is not None and d <= until]
                if not due:
                    return
                now = min(due)
                if buttons_due is not None and buttons_due == now:
                    buttons_due = buttons.settle(now)
                    feed(now)
                    continue
                decision = arb.poll(now)
                if decision is not None:
                    winner = decision.seat

        for at, kind, i in timeline:
            run_until(at - 1)
            e = window.edges[i]
            if kind == 0:  # the line moves; its callback comes later
                edge(factory, PINS[e.seat], e.pressed, e.t_ns, deliver=False)
            else:
                fire_edge(factory, PINS[e.seat], e.reads, e.t_ns)
                buttons_due = buttons.settle(at)  # the loop wakes for the callback
                feed(at)
        run_until(timeline[-1][0] + 10_000 * MS)
        return _Outcome(winner, presses)


def _first_callback(window: _Window) -> int:
    return min((e.arrives_ns, e.t_ns, e.seat) for e in window.edges if e.pressed)[2]


def _rate(hits: list[bool]) -> str:
    return f"{100 * sum(hits) / max(1, len(hits)):.1f}%"


def _fairness(trials: int) -> list[str]:
    """The arbiter against the truth on windows without glitches."""
    rng = random.Random(2026)
    results: dict[str, list[tuple[float, bool]]] = {"settle 5 ms": [], "settle 25 ms": [],
                                                   "first callback": []}
    judges: dict[str, Callable[[_Window, int], int | None]] = {
        "settle 5 ms": lambda w, t0: _judge(w, t0, 5 * MS, random.Random(1)).winner,
        "settle 25 ms": lambda w, t0: _judge(w, t0, 25 * MS, random.Random(1)).winner,
        "first callback": lambda w, t0: _first_callback(w),
    }
    for i in range(trials):
        t0 = (10 + i) * 1000 * MS
        window = _trial(rng, t0)
        for name, judge in judges.items():
            results[name].append((window.gap_ms, judge(window, t0) == window.truth))
    lines = [f"{trials} windows, 2-6 seats, gaps {GAPS_MS[0]}-{GAPS_MS[-1]} ms, callbacks "
             f"0-{MAX_DELAY_NS // MS} ms late and out of order, 30% of presses bouncing"]
    bands = ((0.0, 0.5), (0.5, 5.0), (5.0, 20.0), (20.0, 51.0))
    for name, rows in results.items():
        per_band = "  ".join(
            f"gap {lo}-{hi if hi < 51 else 50} ms {_rate([ok for g, ok in rows if lo <= g < hi])}"
            for lo, hi in bands)
        lines.append(f"{name}: {_rate([ok for _, ok in rows])} right  ({per_band})")
    return lines


def _glitches(trials: int) -> list[str]:
    """The same kind of windows with spikes on every line: none may count, and every real
    press must count with its first edge's stamp."""
    rng = random.Random(2027)
    spikes = 0
    widths: dict[int, int] = {}
    counted = {"checked": 0, "unchecked": 0}
    right = {"checked": 0, "unchecked": 0}
    real = posted = unchanged = 0
    for i in range(trials):
        t0 = (10 + i) * 1000 * MS
        window = _trial(rng, t0, spikes=True)
        spikes += window.spikes
        for width, n in window.widths.items():
            widths[width] = widths.get(width, 0) + n
        for name, confirm in (("checked", DEFAULT_CONFIRM_NS), ("unchecked", 0)):
            outcome = _judge(window, t0, 25 * MS, random.Random(1), confirm_ns=confirm)
            counted[name] += sum(1 for p in outcome.posted if p.t_ns != window.presses[p.seat])
            right[name] += outcome.winner == window.truth
            if name == "checked":
                seats = {p.seat for p in outcome.posted}
                stamps = {(p.seat, p.t_ns) for p in outcome.posted}
                real += len(window.presses)
                posted += sum(1 for seat in window.presses if seat in seats)
                unchanged += sum(1 for seat, t in window.presses.items() if (seat, t) in stamps)
    spread = ", ".join(f"{w} us: {n}" for w, n in sorted(widths.items()))
    return [
        f"glitches: {trials} windows, {spikes} spikes of 5-500 us on the lines ({spread}), "
        f"callbacks 0-{MAX_DELAY_NS // MS} ms late, half their first events misread",
        f"spikes counted as presses: {counted['checked']} of {spikes} with the 1 ms check "
        f"(without it: {counted['unchecked']})",
        f"real presses among the spikes: {posted} of {real} counted, {unchanged} of {real} "
        f"stamped at their first edge; the right winner in {right['checked']} of {trials} "
        f"windows (settle 25 ms; without the check: {right['unchecked']})",
    ]


def merge_lows(lows: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The times a line is low when pulled low during each of ``lows`` (``(start_ns,
    end_ns)`` intervals, any order): overlapping or touching intervals merge (a line cannot
    go lower than low), in time order.

    >>> merge_lows([(5, 9), (0, 2), (2, 3), (7, 12)])
    [(0, 3), (5, 12)]
    """
    merged: list[list[int]] = []
    for start, end in sorted(lows):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(start, end) for start, end in merged]


def _low_edges(seat: int, lows: list[tuple[int, int]], delay: int) -> list[_Edge]:
    """The edges of a line pulled low during each of ``lows`` (:func:`merge_lows`), their
    callbacks ``delay`` late, in order, each saying its own level."""
    out: list[_Edge] = []
    for start, end in merge_lows(lows):
        out += [_Edge(seat, True, start, start + delay, True),
                _Edge(seat, False, end, end + delay, False)]
    return out


def _train_trial(rng: random.Random, t0: int, max_delay_ns: int) -> _Window:
    """A two-seat race; before each press (0.5-20 ms apart) a spike train of 5-500 us
    spikes every 50 us-5 ms, starting 0-30 ms before it and ending before it; 30% of the
    presses bounce (10-500 us opens for up to 5 ms); each line's callbacks 0 to
    ``max_delay_ns`` late, in order."""
    first = t0 + rng.randrange(200, 600) * MS
    times = {0: first, 1: first + int(rng.choice((0.5, 1.0, 2.0, 5.0, 10.0, 20.0)) * MS)}
    if rng.random() < 0.5:
        times = {0: times[1], 1: times[0]}
    edges: list[_Edge] = []
    for seat, press in times.items():
        period = rng.randrange(50 * US, 5 * MS)
        width = min(500 * US, max(5 * US, int(period * rng.uniform(0.01, 0.95))))
        lead = rng.randrange(0, 30 * MS)
        lows = [(t, t + width) for t in range(press - lead, press, period) if t + width < press]
        t = press
        if rng.random() < 0.3:
            while True:
                closed, opened = rng.randrange(10 * US, 1500 * US), rng.randrange(10 * US, 500 * US)
                if t + closed + opened > press + 5 * MS:
                    break
                lows.append((t, t + closed))
                t += closed + opened
        lows.append((t, press + 150 * MS))
        edges += _low_edges(seat, lows, rng.randrange(0, max_delay_ns + 1))
    truth = min(times, key=lambda seat: times[seat])
    return _Window(truth, abs(times[1] - times[0]) / MS, edges, times)


def _trains(trials: int) -> list[str]:
    """Spike trains before the real presses of a two-seat race: who wins, and how far each
    Press's stamp is from its first contact, with the stamp's bound and without it."""
    lines = [f"spike trains: {trials} two-seat windows, 0.5-20 ms apart, a train of 5-500 us "
             f"spikes every 50 us-5 ms up to each press, 30% of presses bouncing up to 5 ms "
             f"(settle 25 ms)"]
    for delay, name, options in (
        (0, "callbacks on time, bound 2.5 ms", {}),
        (0, "callbacks on time, no bound", {"bounce_ns": None}),
        (MAX_DELAY_NS, f"callbacks 0-{MAX_DELAY_NS // MS} ms late, bound 2.5 ms", {}),
        (MAX_DELAY_NS, f"callbacks 0-{MAX_DELAY_NS // MS} ms late, no bound",
         {"bounce_ns": None}),
    ):
        rng = random.Random(2028)
        right = 0
        errors: list[int] = []
        lost = 0
        for i in range(trials):
            t0 = (10 + i) * 1000 * MS
            window = _train_trial(rng, t0, delay)
            outcome = _judge(window, t0, 25 * MS, random.Random(1), **options)
            right += outcome.winner == window.truth
            stamps = {p.seat: p.t_ns for p in outcome.posted}
            lost += sum(1 for seat in window.presses if seat not in stamps)
            errors += [stamps[seat] - t for seat, t in window.presses.items() if seat in stamps]
        magnitudes = [abs(e) for e in errors]
        lines.append(
            f"{name}: the truly earliest press won {100 * right / max(1, trials):.1f}%"
            f" of windows; stamp - first contact: median |error| "
            f"{median(magnitudes) / US:.0f} us, max |error| {max(magnitudes) / MS:.2f} ms "
            f"(earliest {min(errors) / MS:+.2f} ms, latest {max(errors) / MS:+.2f} ms), "
            f"{sum(1 for e in magnitudes if e > DEFAULT_BOUNCE_NS)} of {len(errors)} beyond "
            f"{DEFAULT_BOUNCE_NS / MS} ms; {lost} presses not posted")
    return lines


def run(trials: int = TRIALS, glitch_trials: int = GLITCH_TRIALS,
        train_trials: int = TRAIN_TRIALS) -> list[str]:
    """Run ``trials`` windows, ``glitch_trials`` glitching ones and ``train_trials`` with
    spike trains; return the printed lines."""
    return _fairness(trials) + _glitches(glitch_trials) + _trains(train_trials)


if __name__ == "__main__":
    print("\n".join(run()))
