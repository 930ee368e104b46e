"""``python -m device history``: the last games in the game database (``device.store.game_db``).

Usage::

    python -m device history [--state-dir DIR] [--limit N] [--json] [--check]

- default: one line per game, newest first: id, start time (UTC), game, seats, outcome,
  winner (seats counted from 1), actions, and the fastest slap; a game whose row does not
  read is one log line and left out (with none left, the line counts them);
- ``--json``: one JSON object ``{"db": path, "integrity": "ok" | problem, "games": [{"id",
  "game", "seats", "seed", "options", "first", "seat_kinds", "started_at", "ended_at",
  "outcome" ("won" | "abandoned" | null: unfinished), "winner", "actions": [text, ...],
  "slaps": [{"race", "seat", "reaction_ms", "margin_ms", "tie"}]}], "skipped": n}`` (seats
  from 0; ``skipped``: the games left out because their row does not read, each also one
  log line);
- ``--check``: ``PRAGMA integrity_check``; prints its one line, exit 0 when ``ok``, else 1.

The state directory is ``--state-dir``, else the config's ``[paths] state_dir``
(``/etc/partytable/config.toml`` or the bundled one, ``/var/lib/partytable``), else — on a
desktop, where only the simulator has played — ``$XDG_STATE_HOME/partytable``.  The
database is opened read-only: nothing is created, set aside or carried over.  A missing or
unreadable database is one line and exit 1; bad arguments exit 2.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from device.store.db_schema import DB_NAME, StateError
from device.store.game_db import GameDB, open_read_only
from device.store.game_rows import StoredGame

MAX_LIMIT = 1000
"""The most games one listing shows (the database keeps about 200 finished ones)."""


def build_parser() -> argparse.ArgumentParser:
    """The ``history`` subcommand's arguments."""
    from device.modes.cli import _Parser  # a usage error is one line (UsageError)

    p = _Parser(prog="python -m device history",
                description="List the last games the console played.")
    p.add_argument("--state-dir", type=Path, default=None,
                   help="the folder of partytable.db (default: the config's [paths] state_dir)")
    p.add_argument("--limit", type=int, default=10, help="how many games (default 10, at most "
                   f"{MAX_LIMIT})")
    p.add_argument("--json", action="store_true", help="one JSON object instead of lines")
    p.add_argument("--check", action="store_true",
                   help="run SQLite's integrity check: exit 0 when it says ok")
    return p


def main(argv: Sequence[str]) -> int:
    """Run ``history`` with ``argv`` (the words after ``history``); the exit status."""
    from device.modes.cli import UsageError

    parser = build_parser()
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as done:  # --help: argparse printed it
        return int(done.code or 0)
    except UsageError as err:  # a bad flag or value: one line, as python -m device's
        print(f"error: {err}", file=sys.stderr)
        return 2
    if not 1 <= args.limit <= MAX_LIMIT:
        print(f"error: --limit must be 1 to {MAX_LIMIT}, got {args.limit}", file=sys.stderr)
        return 2
    state_dir = args.state_dir
    if state_dir is None:
        configured = _configured_state_dir()
        if configured is None:
            return 2
        state_dir = configured
        from device.modes.cli import default_state_dir

        simulator = default_state_dir()
        if not (configured / DB_NAME).exists() and (simulator / DB_NAME).exists():
            state_dir = simulator  # a desktop: the simulator's games
    try:
        with open_read_only(state_dir / DB_NAME) as db:
            if args.check:
                result = db.integrity()
                print(result)
                return 0 if result == "ok" else 1
            games = db.games(args.limit)
            if args.json:
                print(json.dumps({"db": str(db.path), "integrity": db.integrity(),
                                  "games": [_game_json(db, g) for g in games],
                                  "skipped": db.skipped}))
            else:
                for line in _lines(db, games):
                    print(line)
    except StateError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except (sqlite3.Error, OSError) as err:  # a damaged page, a folder this user cannot read
        where = state_dir / DB_NAME
        if args.check:
            print(f"{where}: {str(err).splitlines()[0] if str(err) else type(err).__name__}")
        else:
            print(f"error: {where}: {err}", file=sys.stderr)
        return 1
    return 0


def _configured_state_dir() -> Path | None:
    """The config's state directory, or ``None`` after printing the config's problems."""
    from device.config.loader import find_config, load_config
    from device.config.schema import ConfigError

    try:
        return load_config(find_config(None)).paths.state_dir
    except ConfigError as err:
        for problem in err.problems:
            print(f"{err.source}: {problem}", file=sys.stderr)
        return None


def _game_json(db: GameDB, game: StoredGame) -> dict[str, Any]:
    """One game of ``--json``."""
    h = game.header
    return {
        "id": game.id, "game": h.game, "seats": h.seats, "seed": h.seed,
        "options": dict(h.options), "first": h.first, "seat_kinds": list(h.seat_kinds),
        "started_at": game.started_at, "ended_at": game.ended_at, "outcome": game.outcome,
        "winner": game.winner, "actions": game.actions,
        "slaps": [{"race": s.race, "seat": s.seat, "reaction_ms": s.reaction_ms,
                   "margin_ms": s.margin_ms, "tie": s.tie} for s in db.slaps(game.id)],
    }


def _lines(db: GameDB, games: Sequence[StoredGame]) -> list[str]:
    """One line per game for people (seats from 1)."""
    if not games and db.skipped:
        return [f"no other games in {db.path} ({db.skipped} skipped: "
                f"{'its row does' if db.skipped == 1 else 'their rows do'} not read)"]
    if not games:
        return [f"no games yet in {db.path}"]
    out = []
    for g in games:
        if g.outcome is None:
            result = "unfinished"
        elif g.outcome == "abandoned":
            result = "ended without a winner"
        else:
            result = f"won by seat {g.winner + 1}" if g.winner is not None else "won"
        slaps = db.slaps(g.id)
        fastest = min(slaps, key=lambda s: s.reaction_ms) if slaps else None
        fast = (f", fastest slap seat {fastest.seat + 1} in {fastest.reaction_ms:.0f} ms"
                if fastest else "")
        out.append(f"#{g.id} {g.started_at} {g.header.game} {g.header.seats} seats: {result}, "
                   f"{len(g.actions)} actions{fast}")
    return out
