"""The ``python -m engine`` command line of ``design/notation.md``.

Commands::

    new <game> --seats N --seed S [--first F] [--option key=value ...]   # prints a position
    legal [POSITION]                      # legal actions, one per line, sorted
    apply [POSITION] ACTION...            # the position after the actions, in order
    play <game> --seats N --seed S [--bots KIND[,KIND...]] [--option key=value ...]

POSITION is a file path or ``-`` (stdin); when the first argument is neither an existing
file nor ``-``, the position is read from stdin.  Exit status: 0 on success, 2 on an
illegal action, a malformed position or a bad argument, with exactly one line on stderr
naming what is wrong (and the rule id where one applies) and nothing on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn, TextIO

from engine import get_game
from engine.core import EngineError, Game, NotationError

EXIT_ERROR = 2


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as one line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        raise NotationError(f"{self.prog}: {message}")


def _options(pairs: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise NotationError(f"--option {pair!r}: expected key=value")
        out[key.strip()] = value.strip()
    return out


def _read_position(stream: TextIO, where: str) -> tuple[Game[Any, Any, Any], Any]:
    try:
        text = stream.read()
    except UnicodeDecodeError as err:
        raise NotationError(
            f"position from {where}: not UTF-8 text (byte {err.start}: {err.reason})"
        ) from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        raise NotationError(
            f"position from {where}: not JSON (line {err.lineno} column {err.colno}: {err.msg})"
        ) from None
    except RecursionError:
        raise NotationError(f"position from {where}: JSON nested too deeply") from None
    if not isinstance(obj, dict):
        raise NotationError(f"position from {where}: expected a JSON object")
    name = obj.get("game")
    if not isinstance(name, str):
        raise NotationError(f"position from {where}: missing or invalid field 'game'")
    game = get_game(name)
    return game, game.parse_position(obj)


def _position_args(
    args: Sequence[str], stdin: TextIO
) -> tuple[Game[Any, Any, Any], Any, list[str]]:
    """Split ``[POSITION] ACTION...``: read the position, return the remaining words."""
    if args and args[0] == "-":
        game, pos = _read_position(stdin, "stdin")
        return game, pos, list(args[1:])
    if args and os.path.isfile(args[0]):
        with open(args[0], encoding="utf-8") as fh:
            game, pos = _read_position(fh, args[0])
        return game, pos, list(args[1:])
    if args and (args[0].endswith(".json") or os.path.isdir(args[0])):
        # an action never looks like this: the word was meant as a position file
        what = "is a folder" if os.path.isdir(args[0]) else "no such position file"
        raise NotationError(f"{args[0]}: {what}")
    if args and stdin.isatty():
        # nobody is piping a position in: the first word was meant as a file
        raise NotationError(f"{args[0]}: no such position file (and no position on stdin)")
    game, pos = _read_position(stdin, "stdin")
    return game, pos, list(args)


def _dump(game: Game[Any, Any, Any], pos: Any) -> str:
    return json.dumps(game.position_json(pos))


def _cmd_new(ns: argparse.Namespace) -> Iterator[str]:
    game = get_game(ns.game)
    pos = game.new(ns.seats, ns.seed, _options(ns.option), ns.first)
    yield _dump(game, pos)


def _cmd_legal(ns: argparse.Namespace, stdin: TextIO) -> Iterator[str]:
    game, pos, rest = _position_args(ns.args, stdin)
    if rest:
        raise NotationError(f"legal: unexpected argument {rest[0]!r}")
    for action in game.legal(pos):
        yield str(action)


def _cmd_apply(ns: argparse.Namespace, stdin: TextIO) -> Iterator[str]:
    game, pos, rest = _position_args(ns.args, stdin)
    if not rest:
        raise NotationError("apply: no action given (apply [POSITION] ACTION...)")
    for text in rest:
        pos, _events = game.apply(pos, game.parse_action(text))
    yield _dump(game, pos)


def _cmd_play(ns: argparse.Namespace) -> Iterator[str]:
    game = get_game(ns.game)
    kinds = [k.strip() for k in ns.bots.split(",")]
    if len(kinds) == 1:
        kinds = kinds * ns.seats
    if len(kinds) != ns.seats:
        raise NotationError(f"--bots: {len(kinds)} kinds for {ns.seats} seats")
    pos = game.new(ns.seats, ns.seed, _options(ns.option), ns.first)
    device_rng = random.Random(ns.seed ^ 0x5EED5EED)
    bots = []
    for seat, kind in enumerate(kinds):
        cls = game.bots.get(kind)
        if cls is None:
            known = ", ".join(sorted(game.bots))
            raise NotationError(f"--bots: unknown kind {kind!r} (known: {known})")
        bots.append(cls(seat, device_rng))
    final = pos
    for line, after, _events in game.autoplay(pos, bots, device_rng):
        final = after
        yield str(line)
    outcome = game.outcome(final)
    if outcome is None or outcome.winner is None:
        yield "winner: none"
    else:
        yield f"winner: seat {outcome.winner}"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for ``--help`` text and tests)."""
    parser = _Parser(prog="python -m engine", description="partytable rules engine")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in ("new", "play"):
        p = sub.add_parser(name)
        p.add_argument("game")
        p.add_argument("--seats", type=int, required=True)
        p.add_argument("--seed", type=int, required=True)
        p.add_argument("--first", type=int, default=0)
        p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
        if name == "play":
            p.add_argument("--bots", default="heuristic")
    for name in ("legal", "apply"):
        p = sub.add_parser(name)
        p.add_argument("args", nargs="*")
    return parser


def main(
    argv: Sequence[str] | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the CLI; returns the exit status (0, or 2 with one stderr line)."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    try:
        ns = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
        if ns.command == "new":
            lines = list(_cmd_new(ns))
        elif ns.command == "legal":
            lines = list(_cmd_legal(ns, stdin))
        elif ns.command == "apply":
            lines = list(_cmd_apply(ns, stdin))
        else:
            lines = []
            for line in _cmd_play(ns):
                stdout.write(line + "\n")
    except EngineError as err:
        stderr.write(f"error: {err}\n")
        return EXIT_ERROR
    except BrokenPipeError:
        # the reader went away (``... | head``): stop quietly, as Unix tools do
        _silence_stdout()
        return 0
    except OSError as err:
        stderr.write(f"error: {err.filename or 'position file'}: {err.strerror or err}\n")
        return EXIT_ERROR
    try:
        for line in lines:
            stdout.write(line + "\n")
        stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
    return 0


def _silence_stdout() -> None:
    """Point fd 1 at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        return
