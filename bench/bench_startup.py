"""Start-up figures: how long a party waits for the console to start.

Each figure is the median of :data:`RUNS` fresh child processes (``sys.executable``, SDL's
dummy video and audio drivers, no desktop), wall time from spawn, in ms:

- ``--help``: ``python -m device --help`` until it exits (goal <= 60 ms);
- ``READY``: hardware mode (``python -m device --config FILE``) on a computer-only config
  (every seat ``kind = "none"``: no GPIO, the game dealt at once), a fresh temporary state
  directory each run, until ``READY=1`` arrives on a bound ``AF_UNIX`` datagram socket
  given as ``NOTIFY_SOCKET`` — sent after the first frame is presented (goal <= 300 ms);
- the simulator's first frame: skipped, it has no hook that reports it;

beside two baselines measured in the same run, ``python -c pass`` (the interpreter and
the venv's ``site``) and ``python -c "import pygame"``, and the ratios to them.  Then the
ten imports with the largest cumulative time (``python -X importtime``, microseconds) of
one ``READY`` run.

The children compile to a temporary bytecode cache (``PYTHONPYCACHEPREFIX``; one warm-up
run fills it first), as an installed device runs from compiled files; the ``READY`` figure
without the project's bytecode (its modules compiled at every start: a checkout under
``PYTHONDONTWRITEBYTECODE=1``) is printed too, as the median of :data:`COLD_RUNS`.
Numbers are printed, never asserted.
"""

from __future__ import annotations

import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from device.config.loader import computer_only_text

RUNS = 10
COLD_RUNS = 3
TIMEOUT_S = 60.0


def _env(cache: str | None) -> dict[str, str]:
    """The children's environment: SDL dummy, no systemd variables; bytecode cached in the
    folder ``cache``, or (``None``) none written at all, as ``PYTHONDONTWRITEBYTECODE=1``
    does in a checkout: the project's modules are compiled at every start, the standard
    library's and the venv's packages come from their own caches."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NOTIFY_", "WATCHDOG_", "PYTHONPYCACHEPREFIX",
                                "PYTHONDONTWRITEBYTECODE", "PARTYTABLE_"))}
    env.update(SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy",
               PYGAME_HIDE_SUPPORT_PROMPT="1")
    if cache is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env["PYTHONPYCACHEPREFIX"] = cache
    return env


def _wall_ms(argv: list[str], env: dict[str, str]) -> float:
    """Spawn ``argv`` and wait for it to exit; wall time in ms."""
    t0 = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True, timeout=TIMEOUT_S)
    return (time.perf_counter() - t0) * 1e3


def _ready_ms(folder: Path, env: dict[str, str], extra: tuple[str, ...] = ()
              ) -> tuple[float, str]:
    """One hardware-mode start on the computer-only config in a fresh state directory: ms
    from spawn to ``READY=1`` on the notify socket, and the child's stderr."""
    run = Path(tempfile.mkdtemp(prefix="r", dir=folder))
    config = run / "config.toml"
    config.write_text(computer_only_text(run / "state"))
    address = str(run / "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(address)
    sock.settimeout(TIMEOUT_S)
    child_env = dict(env, NOTIFY_SOCKET=address)
    try:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, *extra, "-m", "device", "--config", str(config)],
            env=child_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            while not sock.recv(4096).startswith(b"READY=1"):
                pass
            ready = (time.perf_counter() - t0) * 1e3
        finally:
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=TIMEOUT_S)
    finally:
        sock.close()
    return ready, err


def _median(measure: Callable[[], float], runs: int) -> float:
    """The median of ``runs`` calls of ``measure``."""
    return float(statistics.median(measure() for _ in range(runs)))


def _importtime_top(stderr: str, n: int = 10) -> list[tuple[int, int, str]]:
    """``(cumulative us, self us, name)`` of the ``n`` imports with the largest
    cumulative time in ``-X importtime`` output (nesting shown by the name's indent)."""
    rows: list[tuple[int, int, str]] = []
    for line in stderr.splitlines():
        if not line.startswith("import time:"):
            continue
        parts = line[len("import time:"):].split("|")
        if len(parts) != 3 or not parts[0].strip().isdigit():
            continue
        rows.append((int(parts[1]), int(parts[0]), parts[2].rstrip()))
    return sorted(rows, reverse=True)[:n]


def run() -> list[str]:
    """Measure and return the report lines."""
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="ptstart") as tmp:
        folder = Path(tmp)
        cache = str(folder / "pycache")
        warm = _env(cache)
        _wall_ms([python, "-m", "device", "--help"], warm)  # fill the bytecode cache
        _ready_ms(folder, warm)
        base = _median(lambda: _wall_ms([python, "-c", "pass"], warm), RUNS)
        pygame = _median(lambda: _wall_ms([python, "-c", "import pygame"], warm), RUNS)
        helped = _median(lambda: _wall_ms([python, "-m", "device", "--help"], warm), RUNS)
        ready = _median(lambda: _ready_ms(folder, warm)[0], RUNS)
        cold = _median(lambda: _ready_ms(folder, _env(None))[0], COLD_RUNS)
        _, err = _ready_ms(folder, warm, ("-X", "importtime"))
    lines = [
        f"baseline python -c pass: {base:.0f} ms; python -c 'import pygame': {pygame:.0f} ms "
        f"(median of {RUNS})",
        f"python -m device --help: {helped:.0f} ms = {helped / base:.1f}x pass, "
        f"{helped / pygame:.2f}x import pygame (goal <= 60 ms)",
        f"hardware mode to READY=1 (computer-only config, SDL dummy): {ready:.0f} ms = "
        f"{ready / base:.1f}x pass, {ready / pygame:.1f}x import pygame (goal <= 300 ms)",
        f"  the same without the project's bytecode (PYTHONDONTWRITEBYTECODE=1: its modules "
        f"compiled at every start): {cold:.0f} ms "
        f"(median of {COLD_RUNS})",
        "simulator first frame: skipped (the simulator has no hook that reports it)",
        "top 10 imports of one READY run (-X importtime; cumulative / self us):",
    ]
    lines += [f"  {cum:>8} {own:>8}  {name}" for cum, own, name in _importtime_top(err)]
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
