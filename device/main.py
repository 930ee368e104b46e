"""``python -m device``: start the console.

Modes (architecture "Modes of the same program"):

- ``--sim``: one window with the table scene, every seat's hand screen as an OLED and the
  key map; where no display exists it falls back to the headless game (one line says so).
- ``--headless``: computer players play whole games on a fake clock (no real waiting);
  PNG frames of the table and hand screens at every change go to ``--out`` (default
  ``out/``), plus ``summary.json``; exit status 0.
- no mode flag: on a Pi, real drivers from the config (the hardware issue); until then it
  says so and exits 2.

Bad arguments exit 2 with one line.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from device.console import Timing
from device.lobby import GAME_TITLES, LobbyChoices, load_choices

log = logging.getLogger("partytable")

SIM_SLAP_PINS = (5, 6, 13, 19, 26, 21)
"""Mock GPIO pins the simulator's slap keys drive, seat 0 first (BCM numbers)."""


def has_display() -> bool:
    """True when a desktop display server is reachable (``DISPLAY``/``WAYLAND_DISPLAY``)."""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def default_state_dir() -> Path:
    """``$XDG_STATE_HOME/partytable`` (``~/.local/state/partytable``)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "partytable"


class UsageError(Exception):
    """A bad command line: ``str(err)`` is the one line printed before exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse reporting a usage error as one line (``UsageError``), not usage + error."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see python -m device --help)")


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m device``."""
    p = _Parser(prog="python -m device", description="partytable console")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--sim", action="store_true",
                      help="simulator window (headless if no display)")
    mode.add_argument("--headless", action="store_true", help="computer game, PNG frames + summary")
    p.add_argument("--game", choices=[*GAME_TITLES, "both"], default=None,
                   help="game to play (headless default: both, one after the other)")
    p.add_argument("--seats", type=int, default=None, help="number of seats, 2-6")
    p.add_argument("--seed", type=int, default=1, help="seed of the first game")
    p.add_argument("--out", type=Path, default=Path("out"), help="headless: frames folder")
    p.add_argument("--state-dir", type=Path, default=None,
                   help="journal and lobby choices (default $XDG_STATE_HOME/partytable)")
    p.add_argument("--humans", type=int, default=None,
                   help="simulator: how many seats are people (the rest are computers)")
    p.add_argument("--bot-slap-ms", type=float, default=300.0,
                   help="computer players' mean slap reaction time in ms (default 300)")
    p.add_argument("--bot-move-ms", type=int, default=1000,
                   help="how long a computer player waits before a move, ms (default 1000)")
    p.add_argument("-v", "--verbose", action="store_true", help="log every action")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
        check_args(args)
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(message)s")
    try:
        return _run(args)
    except BrokenPipeError:  # our stdout was closed (``... | head``): stop quietly
        return 0


def check_args(args: argparse.Namespace) -> None:
    """Range checks argparse cannot do; raises :class:`UsageError` naming the flag."""
    if args.seats is not None and not 2 <= args.seats <= 6:
        raise UsageError("--seats must be 2 to 6")
    if args.humans is not None and not 0 <= args.humans <= (args.seats or 6):
        raise UsageError("--humans must be 0 to the number of seats")
    if not 50 <= args.bot_slap_ms <= 5000:
        raise UsageError("--bot-slap-ms must be 50 to 5000")
    if not 0 <= args.bot_move_ms <= 60_000:
        raise UsageError("--bot-move-ms must be 0 to 60000")


def _run(args: argparse.Namespace) -> int:
    from drivers.errors import DriverError

    if args.sim and has_display():
        from device.sim import run_sim

        try:
            return run_sim(args)
        except DriverError as err:
            # e.g. a stale DISPLAY from an SSH login: say so, then play headless
            print(f"cannot open a window ({err}): playing a headless computer game instead")
    if args.sim or args.headless:
        if args.sim and not has_display():
            print("no display found: playing a headless computer game instead "
                  f"(frames and summary.json in {args.out}/)")
        from device.headless import run_headless

        return run_headless(args)
    print("error: hardware mode needs a Pi and its config; use --sim or --headless",
          file=sys.stderr)
    return 2


def sim_choices(
    args: argparse.Namespace, state_dir: Path | None
) -> tuple[LobbyChoices, str | None]:
    """The lobby's starting choices: the remembered ones, overridden by the flags."""
    choices, warning = load_choices(state_dir / "lobby.json" if state_dir else None)
    updates: dict[str, Any] = {}
    if args.game in GAME_TITLES:
        updates["game"] = args.game
    n = args.seats or len(choices.kinds)
    humans = args.humans if args.humans is not None else \
        sum(1 for k in choices.kinds if k == "human")
    humans = max(0, min(n, humans))
    if args.seats is not None or args.humans is not None:
        updates["kinds"] = tuple("human" if i < humans else "computer" for i in range(n))
        updates["first"] = min(choices.first, n - 1)
    if updates:
        from dataclasses import replace

        choices = replace(choices, **updates)
    return choices, warning


def timing_of(args: argparse.Namespace) -> Timing:
    """The console timing from the command line (computer players' speed)."""
    return Timing(bot_move_ns=args.bot_move_ms * 1_000_000, slap_mean_ms=args.bot_slap_ms,
                  slap_sd_ms=args.bot_slap_ms / 5)


def dump_summary(path: Path, data: dict[str, Any]) -> None:
    """Write ``summary.json`` (indented, UTF-8)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
