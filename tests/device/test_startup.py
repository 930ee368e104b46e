"""Start-up stays light (the figures are ``bench/bench_startup.py``'s):
``python -m device --help`` and a bad flag are answered by the standard library alone —
no pygame, engine, drivers or game flow imported — and the names the command line writes
out to stay light agree with the modules they stand for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

HEAVY = ("pygame", "engine", "drivers", "gpiozero", "luma", "PIL", "device.flow",
         "device.games", "device.console", "device.modes.hardware", "device.config")
"""Packages and modules the command line itself must not import."""

PROBE = """
import json, sys
from device.main import main
try:
    status = main(sys.argv[1:])
except SystemExit as exit:
    status = exit.code
print(json.dumps({"status": status, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def modules_after(*argv: str) -> tuple[int, list[str], str]:
    """Run ``device.main.main(argv)`` in a fresh interpreter: its exit status, every module
    it had imported by then, and its stdout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NOTIFY_", "WATCHDOG_"))}
    proc = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    return report["status"], report["modules"], proc.stdout


def heavy(modules: list[str]) -> list[str]:
    """The modules of :data:`HEAVY` (or inside them) among ``modules``."""
    return [m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)]


def test_help_imports_no_pygame_engine_or_device() -> None:
    """``--help`` prints the usage with every game and exits 0 having imported none of the
    heavy modules."""
    status, modules, out = modules_after("--help")
    assert status == 0
    assert "usage: python -m device" in out and "riiing" in out and "right-on-time" in out
    assert heavy(modules) == []


def test_a_bad_flag_imports_nothing_heavy_either() -> None:
    """``--seats 9`` is refused (exit 2) before any mode is imported."""
    status, modules, _ = modules_after("--seats", "9")
    assert status == 2
    assert heavy(modules) == []


def test_the_command_lines_written_out_names_agree_with_the_modules() -> None:
    """``--game``'s choices are the plugins' names in the lobby's order; ``--bot-slap-ms``'s
    default is the race's own default mean."""
    from device.games import PLUGINS
    from device.modes.cli import BOT_SLAP_MS, GAMES, build_parser
    from device.slaps.race import RaceTiming

    assert tuple(PLUGINS) == GAMES
    assert RaceTiming().mean_ms == BOT_SLAP_MS
    args = build_parser().parse_args(["--game", "right-on-time"])
    assert args.game == "right-on-time" and args.bot_slap_ms == BOT_SLAP_MS
