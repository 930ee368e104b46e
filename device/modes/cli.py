"""The command line of ``python -m device`` and the start-up helpers every mode shares
(state directory, lobby choices from flags, timing from flags, ``summary.json``).

It imports no mode: ``device.main`` dispatches to ``device.modes.sim`` and
``device.modes.headless``, which import this module, so nothing imports in a circle. It
imports nothing heavy either (only the standard library at import time; the game flow, the
lobby and the games inside the helpers that need them): ``python -m device --help`` builds
the parser without pygame, the engine or the device (``--help`` answers in under 60 ms)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from device.flow.game_flow import Timing
    from device.flow.lobby import LobbyChoices

SIM_SLAP_PINS = (5, 6, 13, 19, 26, 21)
"""Mock GPIO pins the simulator's slap keys drive, seat 0 first (BCM numbers)."""

REACTION_FLOOR_SHARE = 0.64
"""Computer players' fastest slap as a share of their mean (500 ms mean: 320 ms floor)."""

GAMES = ("riiing", "right-on-time")
"""The engine names of the games ``--game`` offers, in the lobby's order: the keys of
``device.games.PLUGINS``, written out so the parser needs no game imported (a test checks
they agree)."""

VOLUME = 7
"""``--volume``'s default in the simulator: ``device.config.loader.DEFAULT_VOLUME`` (a test checks
they agree); hardware mode takes the config's ``[sound] volume`` unless the flag is given."""

BOT_SLAP_MS = 500.0
"""``--bot-slap-ms``'s default: ``device.slaps.race.RaceTiming().mean_ms`` (a test checks
they agree)."""


def has_display() -> bool:
    """True when a desktop display server is reachable (``DISPLAY``/``WAYLAND_DISPLAY``)."""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def default_state_dir() -> Path:
    """``$XDG_STATE_HOME/partytable`` (``~/.local/state/partytable``), absolute."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return (Path(base) / "partytable").absolute()


class UsageError(Exception):
    """A bad command line: ``str(err)`` is the one line printed before exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse reporting a usage error as one line (``UsageError``), not usage + error."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see python -m device --help)")


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m device``."""
    p = _Parser(
        prog="python -m device", description="partytable console",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="subcommands:\n"
               "  check-config [FILE]     check a config file and print it resolved\n"
               "  selftest [--sim]        every seat's screen, slap button and keys\n"
               "  history [--json]        the last games (--check: database integrity)\n"
               "  emulate-handheld        a serial handheld emulated on a pty\n\n"
               "The lobby remembers its choices in lobby.json (state dir): --game, --seats,\n"
               "--humans and --volume override them for this run (command line >\n"
               "lobby.json > config [sound] volume > default).")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--sim", action="store_true",
                      help="simulator window (headless if no display)")
    mode.add_argument("--headless", action="store_true", help="computer game, PNG frames + summary")
    p.add_argument("--game", choices=[*GAMES, "both"], default=None,
                   help="game to play (headless default: both, one after the other)")
    p.add_argument("--seats", type=int, default=None, help="number of seats, 2-6")
    p.add_argument("--seed", type=int, default=1, help="seed of the first game")
    p.add_argument("--out", type=Path, default=Path("out"), help="headless: frames folder")
    p.add_argument("--state-dir", type=Path, default=None,
                   help="game database and lobby choices (default: the simulator's "
                        "$XDG_STATE_HOME/partytable, on a Pi the config's [paths] "
                        "state_dir; headless games always keep theirs in OUT/state)")
    p.add_argument("--humans", type=int, default=None,
                   help="simulator: how many seats are people (the rest are computers)")
    p.add_argument("--bot-slap-ms", type=float, default=BOT_SLAP_MS,
                   help="computer players' mean slap reaction time in ms (default "
                        f"{BOT_SLAP_MS:.0f}; never faster than "
                        f"{REACTION_FLOOR_SHARE:.0%} of it)".replace("%", "%%"))
    p.add_argument("--bot-move-ms", type=int, default=1000,
                   help="how long a computer player waits before a move, ms (default 1000)")
    p.add_argument("--serial-seats", type=int, default=0,
                   help="simulator: how many of the six seats have an emulated serial "
                        "handheld (the last ones; default 0)")
    p.add_argument("--config", type=Path, default=None,
                   help="hardware mode: the config file (default /etc/partytable/config.toml "
                        "if present, else the bundled 4-seat build)")
    p.add_argument("--volume", type=int, default=None, metavar="0-10",
                   help="sound volume, 0 (silent) to 10, for this run: command line > "
                        "lobby.json > config [sound] volume > default "
                        f"({VOLUME}; the simulator has no config)")
    p.add_argument("-v", "--verbose", action="store_true", help="log every action")
    return p


MAX_SEED = 2**62
"""The largest ``--seed``: the game database keeps seeds as SQLite INTEGERs (signed 64-bit),
and a run of games counts up from it."""


def check_args(args: argparse.Namespace) -> None:
    """Range checks argparse cannot do, and flags the chosen mode has no use for; raises
    :class:`UsageError` naming the flag."""
    if not 0 <= args.seed <= MAX_SEED:
        raise UsageError(f"--seed must be 0 to {MAX_SEED}")
    if args.headless and args.humans is not None:
        raise UsageError("--humans is for the simulator: a headless game is all computers")
    if (args.headless or args.sim) and args.config is not None:
        raise UsageError("--config is for the console's hardware mode, not --sim or "
                         "--headless")
    if args.seats is not None and not 2 <= args.seats <= 6:
        raise UsageError("--seats must be 2 to 6")
    if args.humans is not None and not 0 <= args.humans <= (args.seats or 6):
        raise UsageError("--humans must be 0 to the number of seats")
    if not 50 <= args.bot_slap_ms <= 5000:
        raise UsageError("--bot-slap-ms must be 50 to 5000")
    if not 0 <= args.bot_move_ms <= 60_000:
        raise UsageError("--bot-move-ms must be 0 to 60000")
    if not 0 <= args.serial_seats <= len(SIM_SLAP_PINS):
        raise UsageError(f"--serial-seats must be 0 to {len(SIM_SLAP_PINS)}")
    if args.volume is not None and not 0 <= args.volume <= 10:
        raise UsageError("--volume must be 0 to 10")


def sim_choices(
    args: argparse.Namespace, state_dir: Path | None
) -> tuple[LobbyChoices, str | None]:
    """The lobby's starting choices in the simulator: the remembered ones
    (``state_dir/lobby.json``, ``device.flow.lobby.load_choices``) with the command line's over
    them (:func:`command_line_choices`); plus the TV's line about a damaged ``lobby.json``
    (or ``None``).  Never raises for a bad file."""
    from device.flow.lobby import load_choices

    choices, warning = load_choices(state_dir / "lobby.json" if state_dir else None)
    return command_line_choices(choices, args), warning


def command_line_choices(
    choices: LobbyChoices, args: argparse.Namespace, *, max_seats: int = 6
) -> LobbyChoices:
    """``choices`` (what ``lobby.json`` remembers) with this run's command line over them:
    the command line wins for this run (``--help``: command line > lobby.json > config
    ``[sound] volume`` > default).  ``--game`` (one game, not
    ``both``), ``--seats`` (at most ``max_seats``: the seats the console has), ``--humans``
    (the first seats are people, the rest computers; without it the remembered number of
    people) and ``--volume`` (0..10; 0 is silent, not "no flag").  A flag not given
    leaves its choice alone; a seat that stays a computer keeps its strength.  ``args``:
    :func:`build_parser`'s namespace (every flag there, ``None`` when not given; the
    ``selftest`` subcommand parses with the same parser).  Raises nothing:
    :func:`check_args` has range-checked the flags."""
    from dataclasses import replace

    from device.games import PLUGINS

    updates: dict[str, Any] = {}
    if args.game in PLUGINS:
        updates["game"] = args.game
    seats = args.seats
    humans = args.humans
    if seats is not None or humans is not None:
        n = max(2, min(max_seats, seats or len(choices.kinds)))
        people = humans if humans is not None else \
            sum(1 for k in choices.kinds if k == "human")
        people = max(0, min(n, people))
        strengths = (choices.seat_strengths() + ("normal",) * 6)[:n]
        updates["kinds"] = tuple("human" if i < people else "computer" for i in range(n))
        updates["first"] = min(choices.first, n - 1)
        updates["strengths"] = strengths
    if args.volume is not None:
        updates["volume"] = args.volume
    return replace(choices, **updates) if updates else choices


def timing_of(args: argparse.Namespace) -> Timing:
    """The flow's timing from the command line (computer players' speed)."""
    from device.flow.game_flow import Timing
    from device.slaps.race import RaceTiming

    mean = float(args.bot_slap_ms)
    race = RaceTiming(mean_ms=mean, sd_ms=mean / 5, floor_ms=mean * REACTION_FLOOR_SHARE)
    return Timing(bot_move_ns=args.bot_move_ms * 1_000_000, race=race)


def dump_summary(path: Path, data: dict[str, Any]) -> None:
    """Write ``summary.json`` (indented, UTF-8)."""
    import json

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
