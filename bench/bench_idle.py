"""Idle CPU of the device loop (docs/architecture.md "Data flow": idle means ~0% CPU, a loop
that truly sleeps).

Each figure runs in its own child process for :data:`SECONDS` (at least 20 s) after a
warm-up, and reports the child's CPU time (user + system, ``getrusage``) as % of one core
and its wake-ups per second (voluntary context switches, which count every real sleep the
process leaves):

- ``queue``: the baseline — a bare ``queue.SimpleQueue.get`` loop with a 1 s timeout;
- ``sim``: the simulator's console with a window (SDL's dummy video driver), a person to
  move (Right on Time, seat 1 human) and nothing animating; SDL is pumped at its idle rate;
- ``pi``: the same console with nothing pumped — the Pi's case on KMSDRM, measured on SDL's
  dummy driver.

Goals (printed, never asserted): at most 0.2% of a core with a window, 0.05% without.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import resource
import select
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

SECONDS = 20.0
WARMUP = 4.0


def _usage() -> tuple[float, int]:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime, r.ru_nvcsw + r.ru_nivcsw


def _child(mode: str, seconds: float) -> dict[str, float]:
    if mode == "queue":
        q: queue.SimpleQueue[object] = queue.SimpleQueue()
        end = time.monotonic() + WARMUP
        while time.monotonic() < end:
            with contextlib.suppress(queue.Empty):
                q.get(timeout=0.1)
        cpu0, sw0 = _usage()
        t0 = time.monotonic()
        while time.monotonic() - t0 < seconds:
            with contextlib.suppress(queue.Empty):
                q.get(timeout=1.0)
        cpu1, sw1 = _usage()
        return {"cpu": cpu1 - cpu0, "switches": sw1 - sw0, "wall": time.monotonic() - t0}
    if mode != "sim":
        os.environ["SDL_VIDEODRIVER"] = "dummy"
    os.environ["SDL_AUDIODRIVER"] = "dummy"
    os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"
    from device.console import Console, make_seats
    from device.flow.lobby import LobbyChoices
    from device.modes.present import SimPresenter, TablePresenter
    from device.reactor.events import DeviceQueue, SdlPump
    from drivers.clock import MonotonicClock
    from drivers.hand_display import open_hand_display
    from drivers.table_display import TableDisplay

    clock = MonotonicClock()
    dq = DeviceQueue()
    display = TableDisplay("window" if mode == "sim" else "dummy", (1600, 900), clock=clock)
    presenter = SimPresenter(display) if mode == "sim" else TablePresenter(display)
    console = Console(
        clock=clock, queue=dq, presenter=presenter,
        seats=make_seats([open_hand_display(s, "dummy") for s in range(2)]),
        choices=LobbyChoices(game="right-on-time", kinds=("human", "computer")),
        game_seed=1, skip_lobby=True,
        tickers=[SdlPump(dq.post)] if mode == "sim" else [])
    console.start()
    console.render(clock.now_ns())
    _serve(console, dq, WARMUP)  # let the deal's animations settle
    wake0 = console.loop.wakeups
    cpu0, sw0 = _usage()
    t0 = time.monotonic()
    _serve(console, dq, seconds)
    cpu1, sw1 = _usage()
    wall = time.monotonic() - t0
    display.close()
    return {"cpu": cpu1 - cpu0, "switches": sw1 - sw0, "wall": wall,
            "loop_wakeups": console.loop.wakeups - wake0}


def _serve(console: Any, dq: Any, seconds: float) -> None:
    """Run ``console``'s loop for ``seconds``: a timer thread posts ``Quit`` at the end (one
    wake-up), so the loop sleeps exactly as it does on the device."""
    from device.reactor.events import Quit

    threading.Timer(seconds, lambda: dq.post(Quit())).start()
    console.loop.running = True
    while console.loop.running:
        console.step()


def _measure(mode: str, env: dict[str, str] | None = None) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-m", "bench.bench_idle", "child", mode,
                          str(SECONDS)], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr else mode)
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


@contextlib.contextmanager
def _xvfb() -> Iterator[str | None]:
    """A private Xvfb server's DISPLAY for the windowed figure, or ``None`` without Xvfb."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        yield None
        return
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen([xvfb, "-displayfd", str(write_fd), "-screen", "0", "1600x900x24",
                             "-nolisten", "tcp"], pass_fds=(write_fd,),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    try:
        ready, _, _ = select.select([read_fd], [], [], 20)
        yield f":{os.read(read_fd, 32).decode().strip()}" if ready else None
    finally:
        os.close(read_fd)
        proc.terminate()
        proc.wait(10)


def run() -> list[str]:
    """Measure the three figures (about a minute); return the printed lines."""
    lines = []
    base = _measure("queue")
    base_pct = 100 * base["cpu"] / base["wall"]
    lines.append(f"queue.SimpleQueue.get baseline: {base_pct:.3f}% of a core, "
                 f"{base['switches'] / base['wall']:.1f} wake-ups/s")
    for mode, label, goal in (("sim", "simulator window (Xvfb), SDL pumped", 0.2),
                              ("pi", "no window pumped (Pi case, SDL dummy)", 0.05)):
        env = None
        with _xvfb() as xdisplay:
            if mode == "sim":
                if xdisplay is None:
                    lines.append(f"{label}: skipped (needs Xvfb: apt-get install xvfb)")
                    continue
                env = {k: v for k, v in os.environ.items() if k != "SDL_VIDEODRIVER"}
                env["DISPLAY"] = xdisplay
            r = _measure(mode, env)
        pct = 100 * r["cpu"] / r["wall"]
        ratio = pct / base_pct if base_pct > 0 else float("inf")
        lines.append(
            f"{label}: {pct:.3f}% of a core (goal <= {goal}%), "
            f"{r['switches'] / r['wall']:.1f} wake-ups/s, "
            f"loop {r['loop_wakeups'] / r['wall']:.1f} wake-ups/s, "
            f"{ratio:.1f}x the baseline, over {r['wall']:.0f} s")
    return lines


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "child":
        print(json.dumps(_child(sys.argv[2], float(sys.argv[3]))))
    else:
        print("\n".join(run()))
