"""``python -m device``: start the console.

Modes (docs/architecture.md "Modes of the same program"):

- ``--sim``: one window with the table scene, every seat's hand screen as an OLED and the
  key map; where no display exists it falls back to the headless game (one line says so).
- ``--headless``: computer players play whole games on a fake clock (no real waiting);
  PNG frames of the table and hand screens at every change go to ``--out`` (default
  ``out/``), plus ``summary.json``; exit status 0.
- ``check-config [FILE]``: validate the config and print it resolved, or its problems
  (exit 2); see :func:`device.config.loader.check_config_main`.
- no mode flag: on a Pi, real drivers from the config (``device.modes.hardware``; ``--config
  FILE``, else ``/etc/partytable/config.toml``, else the bundled build).
- ``emulate-handheld [--id ID] [--out DIR]``: an emulated serial handheld on a pty
  (``device.modes.emulator``).
- ``history [--state-dir DIR] [--limit N] [--json] [--check]``: the last games in the game
  database, or its integrity check (``device.modes.history``).
- ``selftest [--sim]``: the builder's self-test (``device.modes.selftest``) on the Pi's hardware
  or in the simulator window.

Bad arguments exit 2 with one line.  The command line itself is ``device.modes.cli``.

Start-up is kept short: this module and ``device.modes.cli`` import only the
standard library, and each mode imports what it needs when it runs, so ``--help`` and a
bad flag never load pygame, the engine or the drivers (``bench/bench_startup.py``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

# before any mode imports pygame: no support banner on the console
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from device.modes.cli import UsageError, build_parser, check_args, has_display

if TYPE_CHECKING:
    import argparse


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["check-config"]:  # python -m device check-config [FILE]
        from device.config.loader import check_config_main

        return check_config_main(argv[1:])
    if argv[:1] == ["history"]:  # python -m device history [--json] [--check]
        from device.modes.history import main as history

        return history(argv[1:])
    if argv[:1] == ["emulate-handheld"]:  # python -m device emulate-handheld [--id ID]
        from device.modes.emulator import main as emulate

        return emulate(argv[1:])
    selftest = argv[:1] == ["selftest"]  # python -m device selftest [--sim] [--config F]
    try:
        args = build_parser().parse_args(argv[1:] if selftest else argv)
        check_args(args)
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    import logging

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(message)s")
    try:
        return _selftest(args) if selftest else _run(args)
    except BrokenPipeError:  # our stdout was closed (``... | head``): stop quietly
        return 0


def _run(args: argparse.Namespace) -> int:
    from drivers.errors import DriverError

    if args.sim and has_display():
        from device.modes.sim import run_sim

        try:
            return run_sim(args)
        except DriverError as err:
            # e.g. a stale DISPLAY from an SSH login: say so, then play headless
            print(f"cannot open a window ({err}): playing a headless computer game instead")
    if args.sim or args.headless:
        if args.sim and not has_display():
            print("no display found: playing a headless computer game instead "
                  f"(frames and summary.json in {args.out}/)")
        from device.modes.headless import run_headless

        return run_headless(args)
    from device.modes.hardware import run_hardware

    return run_hardware(args)


def _selftest(args: argparse.Namespace) -> int:
    """``selftest``: in the simulator window (``--sim``) or on the Pi's hardware."""
    if args.sim:
        if not has_display():
            print("error: selftest --sim needs a display (DISPLAY or WAYLAND_DISPLAY)",
                  file=sys.stderr)
            return 2
        from device.modes.sim import run_sim_selftest

        return run_sim_selftest(args)
    from device.modes.hardware import run_hardware_selftest

    return run_hardware_selftest(args)
