"""Regenerate the Riiing! golden transcripts in ``tests/engine/golden/riiing-*.txt``.

Usage (from the project root)::

    .venv/bin/python scripts/make_golden.py

Two kinds of file, all seeded:

- ``riiing-play-<seats>s-seed<seed>-<bots>.txt``: the exact stdout of
  ``python -m engine play riiing --seats N --seed S --bots KIND`` (one line per action,
  last ``winner: seat N``);
- ``riiing-walk-<seats>s-seed<seed>.txt``: the ``new`` position, then for each of the
  first actions of a heuristic game the log line, its events and the position after it
  (JSON, one line each).

``tests/engine/test_riiing_golden.py`` compares :func:`golden` with the files.  Never edit
the files by hand: change the engine, rerun this script, and review the diff.
"""

from __future__ import annotations

import io
import json
import random
import sys
from pathlib import Path

from engine.cli import main as cli_main
from engine.riiing import HeuristicBot, RiiingGame

GOLDEN_DIR = Path(__file__).resolve().parent.parent / "tests" / "engine" / "golden"

PLAYS = [
    (2, 1, "heuristic"),
    (4, 1, "heuristic"),
    (3, 7, "random"),
    (6, 42, "heuristic,random,heuristic,random,heuristic,random"),
]
"""(seats, seed, --bots) of the play logs."""

WALKS = [(3, 5, 16), (5, 9, 12)]
"""(seats, seed, actions) of the position walks."""


def play_log(seats: int, seed: int, bots: str) -> str:
    """The stdout of ``python -m engine play riiing`` for these arguments."""
    out, err = io.StringIO(), io.StringIO()
    argv = ["play", "riiing", "--seats", str(seats), "--seed", str(seed), "--bots", bots]
    status = cli_main(argv, io.StringIO(), out, err)
    if status != 0:
        raise RuntimeError(f"play {argv} failed: {err.getvalue().strip()}")
    return out.getvalue()


def walk(seats: int, seed: int, actions: int) -> str:
    """The first ``actions`` of a seeded heuristic game, with events and positions."""
    game = RiiingGame()
    start = game.new(seats, seed)
    lines = [f"new riiing --seats {seats} --seed {seed}", json.dumps(game.position_json(start))]
    rng = random.Random(seed)
    bots = [HeuristicBot(seat, rng) for seat in range(seats)]
    for count, (line, pos, events) in enumerate(game.autoplay(start, bots, rng), start=1):
        lines.append(f"> {line}")
        lines.extend(f"  event: {event}" for event in events)
        lines.append(json.dumps(game.position_json(pos)))
        if count == actions:
            break
    return "\n".join(lines) + "\n"


def golden() -> dict[str, str]:
    """File name -> content of every golden transcript."""
    files = {}
    for seats, seed, bots in PLAYS:
        kind = "mixed" if "," in bots else bots
        files[f"riiing-play-{seats}s-seed{seed}-{kind}.txt"] = play_log(seats, seed, bots)
    for seats, seed, actions in WALKS:
        files[f"riiing-walk-{seats}s-seed{seed}.txt"] = walk(seats, seed, actions)
    return files


def main() -> int:
    """Write every golden file and delete stale ``riiing-*.txt`` files."""
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    files = golden()
    for stale in sorted(GOLDEN_DIR.glob("riiing-*.txt")):
        if stale.name not in files:
            stale.unlink()
            print(f"removed {stale.name}")
    for name, text in files.items():
        (GOLDEN_DIR / name).write_text(text, encoding="utf-8")
        print(f"wrote {name} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
