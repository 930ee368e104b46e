"""Regenerate the golden transcripts in ``tests/engine/golden/`` for both games.

Usage (from the project root; no arguments)::

    .venv/bin/python scripts/make_golden.py

Two kinds of file per game (``<game>`` is ``riiing`` or ``right-on-time``), all seeded:

- ``<game>-play-<seats>s-seed<seed>-<bots>.txt``: the exact stdout of
  ``python -m engine play <game> --seats N --seed S --bots KIND`` (one line per action,
  last ``winner: seat N``);
- ``<game>-walk-<seats>s-seed<seed>.txt``: the ``new`` position, then for each of the
  first actions of a heuristic game the log line, its events and the position after it
  (``str(position)``: its canonical JSON, one line each).

``tests/engine/test_riiing_golden.py`` and ``tests/engine/test_right_on_time_golden.py``
compare :func:`golden` with the files.  Never edit the files by hand: change the engine,
rerun this script, and review the diff.
"""

from __future__ import annotations

import io
import random
import sys
from pathlib import Path

from engine import get_game
from engine.cli import main as cli_main

GOLDEN_DIR = Path(__file__).resolve().parent.parent / "tests" / "engine" / "golden"

GAMES = ("riiing", "right-on-time")
"""The games with transcripts; each file name starts with ``<game>-``."""

PLAYS: dict[str, list[tuple[int, int, str]]] = {
    "riiing": [
        (2, 1, "heuristic"),
        (4, 1, "heuristic"),
        (3, 7, "random"),
        (6, 42, "heuristic,random,heuristic,random,heuristic,random"),
    ],
    "right-on-time": [
        (2, 1, "heuristic"),
        (3, 7, "random"),
        (5, 3, "heuristic,random,heuristic,random,heuristic"),
    ],
}
"""Per game: (seats, seed, --bots) of the play logs."""

WALKS: dict[str, list[tuple[int, int, int]]] = {
    "riiing": [(3, 5, 16), (5, 9, 12)],
    "right-on-time": [(3, 5, 20), (2, 9, 16)],
}
"""Per game: (seats, seed, actions) of the position walks."""


def play_log(game: str, seats: int, seed: int, bots: str) -> str:
    """The stdout of ``python -m engine play <game>`` for these arguments."""
    out, err = io.StringIO(), io.StringIO()
    argv = ["play", game, "--seats", str(seats), "--seed", str(seed), "--bots", bots]
    status = cli_main(argv, io.StringIO(), out, err)
    if status != 0:
        raise RuntimeError(f"play {argv} failed: {err.getvalue().strip()}")
    return out.getvalue()


def walk(name: str, seats: int, seed: int, actions: int) -> str:
    """The first ``actions`` of a seeded heuristic game of ``name``, with events and
    positions (each position as ``str(position)``)."""
    game = get_game(name)
    start = game.new(seats, seed)
    lines = [f"new {name} --seats {seats} --seed {seed}", str(start)]
    rng = random.Random(seed)
    bots = [game.bots["heuristic"](seat, rng) for seat in range(seats)]
    for count, (line, pos, events) in enumerate(game.autoplay(start, bots, rng), start=1):
        lines.append(f"> {line}")
        lines.extend(f"  event: {event}" for event in events)
        lines.append(str(pos))
        if count == actions:
            break
    return "\n".join(lines) + "\n"


def golden(game: str | None = None) -> dict[str, str]:
    """File name -> content of every golden transcript (of ``game`` only, if given)."""
    files = {}
    for name in GAMES if game is None else (game,):
        for seats, seed, bots in PLAYS[name]:
            kind = "mixed" if "," in bots else bots
            files[f"{name}-play-{seats}s-seed{seed}-{kind}.txt"] = play_log(name, seats, seed, bots)
        for seats, seed, actions in WALKS[name]:
            files[f"{name}-walk-{seats}s-seed{seed}.txt"] = walk(name, seats, seed, actions)
    return files


def main() -> int:
    """Write every golden file and delete stale ``<game>-*.txt`` files."""
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    files = golden()
    for name in GAMES:
        for stale in sorted(GOLDEN_DIR.glob(f"{name}-*.txt")):
            if stale.name not in files:
                stale.unlink()
                print(f"removed {stale.name}")
    for name, text in files.items():
        (GOLDEN_DIR / name).write_text(text, encoding="utf-8")
        print(f"wrote {name} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
