"""Slap fairness on the virtual Pi: the project's real button path against gpio-sim lines.

Runs in the guest as root with the project venv's python (``/opt/partytable/.venv/bin/python``,
whose site-packages points at ``/opt/partytable``; lgpio installed into it), after
``gpiosim.py setup``::

    fairness.py [--windows 408] [--seed 1] [--out /tmp/fairness.json]

The path measured is the console's own: :class:`drivers.slap.SlapButtons` with no pin factory,
so :func:`drivers.pin_factory.resolve_pin_factory` opens gpiozero's ``LGPIOFactory`` on the chip
it finds by its label (the simulator's ``pinctrl-bcm2711``); lgpio's alert thread reads the
GPIO character device's edge events, stamped by the kernel in gpio-sim's interrupt.  Seats
0..3 are on lines :data:`PINS` (``device/config.toml``'s ``slap_pin``\\s).  This process is
the device loop: it calls ``settle`` at every deadline and wake-up, as ``device`` does, and
feeds each window's :class:`~drivers.slap.Press` es to a :class:`device.slaps.arbiter.SlapArbiter`
(a fresh one per window, opened and flipped just before the first press).

The presses come from another process, ``gpiosim.py serve`` (so its busy-wait holds neither
this process's GIL nor its loop): per window, :func:`plan_windows` picks 2 to 4 seats, an
order and a gap (:data:`GAPS_NS`: 0.2, 1, 5, 20 ms; each seat ``gap`` after the one before,
each combination in both orders), all released together :data:`HOLD_NS` after the last
press, then the loop waits until every release is posted and nothing is pending.

``--bouncing N`` (default 40) adds N two-seat windows whose first press bounces five times
within 1.8 ms and whose second seat presses 2 ms after its first contact; their row also says
whether the bouncing press was posted exactly once and stamped within 2.5 ms of its first
pull (the kernel drops edges of such a burst: docs/hardware-facts.md, "gpio-sim drops
edges"); ``all`` leaves them out.

For each window: the intended order, each seat's ``Press.t_ns`` (kernel timestamps), the
arbiter's winner, the earliest ``t_ns`` among the presses, the seat whose raw edge
callback arrived first ("first callback wins"), and each pull's write time.  The summary
(:func:`summarise`) per gap: windows, the share the arbiter got right (its winner is the
intended first seat), the share first-callback got right, and the timestamp-to-write and
callback-to-timestamp lags; printed as one JSON object on stdout (the windows in ``--out``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import queue
import random
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PINS: Mapping[int, int] = {0: 17, 1: 25, 2: 5, 3: 7}
"""Seat -> BCM line of its slap button (``device/config.toml``)."""

GAPS_NS: tuple[int, ...] = (200_000, 1_000_000, 5_000_000, 20_000_000)
"""Gaps between consecutive presses of a window: 0.2, 1, 5 and 20 ms."""

HOLD_NS = 250_000_000
"""How long after a window's last press every button is released: past the 30 ms lockout
and the 2 ms confirmation, and past the kernel's late read of the level.  The GPIO character
device stamps an edge in gpio-sim's interrupt but reads the line's level for the event in
its threaded handler, with the interrupt masked until then (an edge in between is lost): on
a loaded TCG guest that thread has run over 60 ms late, so a release sooner than that turns
a press into one event that reads "released" and the driver (rightly) drops it as a glitch."""

BOUNCE_STEP_NS = 180_000
"""A bouncing press's contact changes every 0.18 ms: five bounces end 1.8 ms after its first
contact (within 2 ms)."""

BOUNCING_GAP_NS = 2_000_000
"""In a bouncing window the second seat presses 2 ms after the bouncing seat's first contact,
as in the party's wake-up race."""

QUIET_NS = 20_000_000
"""Quiet time after a window's last release is posted before the next window starts."""

WINDOW_TIMEOUT_S = 5.0
"""A window whose presses and releases are not all posted by then is recorded as failed."""


@dataclass(frozen=True, slots=True)
class WindowPlan:
    """One window: ``order`` (seats, first to press first), ``gap_ns`` between presses;
    ``bounces``: how many times the first seat's contact opens again, :data:`BOUNCE_STEP_NS`
    apart, before it holds (0: a clean press)."""

    order: tuple[int, ...]
    gap_ns: int
    bounces: int = 0

    def spec(self, pins: Mapping[int, int] = PINS, hold_ns: int = HOLD_NS) -> str:
        """The ``gpiosim.py`` sequence: each seat pressed ``gap_ns`` after the one before,
        all released ``hold_ns`` after the last press.

        >>> WindowPlan((1, 0), 1_000_000).spec({0: 17, 1: 25}, 50_000_000)
        '25=press@0ns 17=press@1000000ns 25=release@51000000ns 17=release@51000000ns'
        >>> WindowPlan((1, 0), 2_000_000, bounces=1).spec({0: 17, 1: 25}, 50_000_000).split()
        ... # doctest: +NORMALIZE_WHITESPACE
        ['25=press@0ns', '25=release@180000ns', '25=press@360000ns', '17=press@2000000ns',
         '25=release@52000000ns', '17=release@52000000ns']
        """
        last = (len(self.order) - 1) * self.gap_ns
        first = pins[self.order[0]]
        chatter = [f"{first}={'release' if k % 2 == 0 else 'press'}@{(k + 1) * BOUNCE_STEP_NS}ns"
                   for k in range(2 * self.bounces)]
        presses = [f"{pins[s]}=press@{i * self.gap_ns}ns" for i, s in enumerate(self.order)]
        releases = [f"{pins[s]}=release@{last + hold_ns}ns" for s in self.order]
        return " ".join(presses[:1] + chatter + presses[1:] + releases)


def plan_windows(count: int, rng: random.Random, seats: Sequence[int] = tuple(PINS),
                 gaps_ns: Sequence[int] = GAPS_NS) -> list[WindowPlan]:
    """``count`` windows cycling through every (gap, number of seats 2..len(seats)) pair,
    each drawn seat order played forwards and then backwards (both orders), seats drawn
    with ``rng``.  Raises ``ValueError`` for fewer than 2 seats or ``count`` < 1.

    >>> [(len(w.order), w.gap_ns) for w in plan_windows(4, random.Random(1), (0, 1), (5, 7))]
    [(2, 5), (2, 5), (2, 7), (2, 7)]
    """
    if len(seats) < 2 or count < 1:
        raise ValueError(f"plan_windows: need 2+ seats and count >= 1, got {len(seats)}, {count}")
    combos = [(gap, n) for gap in gaps_ns for n in range(2, len(seats) + 1)]
    plans: list[WindowPlan] = []
    for gap, n in itertools.cycle(combos):
        order = tuple(rng.sample(list(seats), n))
        for seq in (order, order[::-1]):
            if len(plans) == count:
                return plans
            plans.append(WindowPlan(seq, gap))
    raise AssertionError("unreachable")


@dataclass
class WindowResult:
    """What one window measured (times CLOCK_MONOTONIC ns): ``presses`` seat ->
    ``Press.t_ns``, ``callbacks`` the seats in the order their first edge callback arrived,
    ``(seat, t_ns, arrival_ns)`` (any level: the kernel reads the level late, the stamp is
    the press's), ``arbiter`` the arbiter's winner (``None``: no decision), ``writes`` seat
    -> the pull-down write's ``(before_ns, after_ns)``, ``error`` one line or ``None``."""

    plan: WindowPlan
    presses: dict[int, int] = field(default_factory=dict)
    press_count: dict[int, int] = field(default_factory=dict)
    callbacks: list[tuple[int, int, int]] = field(default_factory=list)
    arbiter: int | None = None
    writes: dict[int, tuple[int, int]] = field(default_factory=dict)
    error: str | None = None

    @property
    def intended(self) -> int:
        """The seat that pressed first."""
        return self.plan.order[0]

    @property
    def earliest(self) -> int | None:
        """The seat with the earliest ``Press.t_ns`` (ties: lowest seat), or ``None``."""
        if not self.presses:
            return None
        return min(self.presses, key=lambda s: (self.presses[s], s))

    @property
    def first_callback(self) -> int | None:
        """The seat whose first edge callback arrived first, or ``None``."""
        return self.callbacks[0][0] if self.callbacks else None

    def to_json(self) -> dict[str, object]:
        """A JSON-ready record of the window."""
        return {"order": list(self.plan.order), "gap_ns": self.plan.gap_ns,
                "bounces": self.plan.bounces,
                "presses": {str(k): v for k, v in self.presses.items()},
                "press_count": {str(k): v for k, v in self.press_count.items()},
                "callbacks": [list(c) for c in self.callbacks], "arbiter": self.arbiter,
                "earliest": self.earliest, "first_callback": self.first_callback,
                "writes": {str(k): list(v) for k, v in self.writes.items()},
                "error": self.error}


def _share(hits: Iterable[bool]) -> float | None:
    values = list(hits)
    return round(sum(values) / len(values), 4) if values else None


def _lag_stats(values: Sequence[int]) -> dict[str, float] | None:
    """Median and max of ``values`` (ns) in microseconds, or ``None`` for none."""
    if not values:
        return None
    return {"median_us": round(statistics.median(values) / 1000, 1),
            "max_us": round(max(values) / 1000, 1)}


def summarise(results: Sequence[WindowResult]) -> dict[str, object]:
    """Per gap (``"0.2ms"``...): ``windows``, ``failed`` (an error), ``arbiter_correct``,
    ``earliest_correct`` (share whose earliest ``t_ns`` is the intended first seat),
    ``first_callback_correct``, ``stamp_after_write`` (``t_ns`` minus the write's start,
    µs) and ``callback_after_stamp`` (callback arrival minus ``t_ns``, µs); plus ``all``.
    Shares are over the windows without an error (``None`` when there are none).

    >>> r = WindowResult(WindowPlan((0, 1), 1_000_000), presses={0: 10, 1: 20},
    ...                  callbacks=[(1, 0, 25), (0, 0, 30)], arbiter=0)
    >>> summarise([r])["1ms"]["arbiter_correct"], summarise([r])["1ms"]["first_callback_correct"]
    (1.0, 0.0)
    """
    groups: dict[str, list[WindowResult]] = {}
    for r in sorted(results, key=lambda r: r.plan.gap_ns):
        name = "bouncing" if r.plan.bounces else f"{r.plan.gap_ns / 1e6:g}ms"
        groups.setdefault(name, []).append(r)
    groups["all"] = [r for r in results if not r.plan.bounces]
    out: dict[str, object] = {}
    for name, rs in groups.items():
        ok = [r for r in rs if r.error is None]
        stamp_lag = [r.presses[s] - r.writes[s][0] for r in ok for s in r.presses
                     if s in r.writes]
        arrival = {id(r): {seat: at for seat, _, at in r.callbacks} for r in ok}
        cb_lag = [arrival[id(r)][s] - t for r in ok for s, t in r.presses.items()
                  if s in arrival[id(r)]]
        out[name] = {
            "windows": len(rs), "failed": len(rs) - len(ok),
            "arbiter_correct": _share(r.arbiter == r.intended for r in ok),
            "earliest_correct": _share(r.earliest == r.intended for r in ok),
            "first_callback_correct": _share(r.first_callback == r.intended for r in ok),
            "stamp_after_write": _lag_stats(stamp_lag),
            "callback_after_stamp": _lag_stats(cb_lag),
        }
        if name == "bouncing":
            entry = out[name]
            assert isinstance(entry, dict)
            entry["pressed_once"] = _share(r.press_count.get(r.intended) == 1 for r in ok)
            entry["stamp_within_2_5ms"] = _share(
                r.intended in r.presses and r.intended in r.writes
                and abs(r.presses[r.intended] - r.writes[r.intended][0]) <= 2_500_000
                for r in ok)
    return out


class Loop:
    """The device loop's part for slaps: events from the button callbacks in a queue, the
    buttons' ``settle`` at each deadline, a :class:`SlapArbiter` per window."""

    def __init__(self, pins: Mapping[int, int], lg_wd: Path) -> None:
        os.environ.setdefault("LG_WD", str(lg_wd))  # lgpio's FIFO folder, read at import
        from drivers.slap import Press, Release, SlapButtons

        self.Press, self.Release = Press, Release
        self.events: queue.Queue[object] = queue.Queue()
        self.raw: list[tuple[int, bool, int, int]] = []
        self.raw_lock = threading.Lock()
        loop = self

        class Recording(SlapButtons):
            """SlapButtons noting each raw edge callback's arrival (seat, level, t_ns, now)."""

            def _edge_handler(self, key: int) -> Callable[[bool, int], None]:
                inner = super()._edge_handler(key)

                def on_edge(level: bool, t_ns: int) -> None:
                    now = time.monotonic_ns()
                    with loop.raw_lock:
                        loop.raw.append((key, level, t_ns, now))
                    inner(level, t_ns)

                return on_edge

        self.buttons = Recording(dict(pins), self.events.put, wake=lambda: self.events.put(None))
        self.seats = len(pins)

    def close(self) -> None:
        """Release the lines."""
        self.buttons.close()

    def window(self, plan: WindowPlan, player: subprocess.Popen[str]) -> WindowResult:
        """Play ``plan`` through ``player`` (``gpiosim.py serve``) and run the loop until
        every press and release of it is posted; the window's :class:`WindowResult`."""
        from device.slaps.arbiter import SlapArbiter

        result = WindowResult(plan)
        arbiter = SlapArbiter(self.seats, random.Random(0))
        now = time.monotonic_ns()
        arbiter.engine_window_opened(now)
        arbiter.flipped(now)
        with self.raw_lock:
            self.raw.clear()
        stdin, stdout = player.stdin, player.stdout
        assert stdin is not None and stdout is not None
        stdin.write(json.dumps({"seq": plan.spec()}) + "\n")
        stdin.flush()
        answer: dict[str, Any] = {}
        reader = threading.Thread(
            target=lambda: answer.update(json.loads(stdout.readline() or "{}")))
        reader.start()
        released: set[int] = set()
        deadline_s = time.monotonic() + WINDOW_TIMEOUT_S
        quiet_from: int | None = None
        while True:
            now = time.monotonic_ns()
            due = [d for d in (self.buttons.settle(now), arbiter.next_deadline_ns())
                   if d is not None]
            if len(released) == len(plan.order) and not due and not reader.is_alive():
                quiet_from = quiet_from or now
                if now - quiet_from >= QUIET_NS:
                    break
            if time.monotonic() > deadline_s:
                result.error = (f"not settled in {WINDOW_TIMEOUT_S} s: presses "
                                f"{sorted(result.presses)}, releases {sorted(released)}")
                break
            wait_ns = min([*due, now + 5_000_000]) - now
            try:
                event = self.events.get(timeout=max(0.0, wait_ns / 1e9))
            except queue.Empty:
                event = None
            while True:
                now = time.monotonic_ns()
                if isinstance(event, self.Press):
                    result.presses.setdefault(event.seat, event.t_ns)
                    result.press_count[event.seat] = result.press_count.get(event.seat, 0) + 1
                    arbiter.press(event, now)
                elif isinstance(event, self.Release):
                    released.add(event.seat)
                    arbiter.release(event.seat, event.t_ns)
                try:
                    event = self.events.get_nowait()
                except queue.Empty:
                    break
            decision = arbiter.poll(time.monotonic_ns())
            if decision is not None:
                result.arbiter = decision.seat
        reader.join(timeout=WINDOW_TIMEOUT_S)
        if "error" in answer:
            result.error = f"gpiosim: {answer['error']}"
        for line, pull, before, after in answer.get("writes", []):
            seat = next(s for s, p in PINS.items() if p == line)
            if pull == "pull-down":
                result.writes.setdefault(seat, (before, after))  # the first contact
        with self.raw_lock:
            seen: set[int] = set()
            for seat, _level, _t_ns, at in self.raw:
                if seat not in seen:
                    seen.add(seat)
                    result.callbacks.append((seat, _t_ns, at))
        return result


def main(argv: Sequence[str]) -> int:
    """Run the windows (module docstring); exit status 0, or 1 with one line on stderr."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--windows", type=int, default=408)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bouncing", type=int, default=40,
                        help="extra windows whose first press bounces (default 40)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/fairness.json"))
    parser.add_argument("--lg-wd", type=Path, default=Path("/run/partytable-fairness"))
    args = parser.parse_args(argv)
    args.lg_wd.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    plans = plan_windows(args.windows, rng)
    plans += [WindowPlan(tuple(rng.sample(list(PINS), 2)), BOUNCING_GAP_NS, bounces=5)
              for _ in range(args.bouncing)]
    here = Path(__file__).resolve().parent
    player = subprocess.Popen([sys.executable, str(here / "gpiosim.py"), "serve"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    t0 = time.monotonic()
    try:
        loop = Loop(PINS, args.lg_wd.resolve())
    except Exception as err:  # the pin factory's one line
        print(f"fairness: cannot open the slap buttons: {err}", file=sys.stderr)
        player.kill()
        return 1
    from drivers.pin_factory import resolve_pin_factory

    factory = resolve_pin_factory(None)
    results: list[WindowResult] = []
    try:
        for plan in plans:
            results.append(loop.window(plan, player))
    finally:
        loop.close()
        if player.stdin is not None:
            player.stdin.close()
        player.wait(timeout=10)
    summary = {"factory": f"{type(factory).__name__}(chip={getattr(factory, '_chip', '?')})",
               "seconds": round(time.monotonic() - t0, 1), "gaps": summarise(results)}
    args.out.write_text(json.dumps([r.to_json() for r in results]) + "\n")
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
