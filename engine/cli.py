"""The ``python -m engine`` command line of ``docs/notation.md``.

Commands::

    new <game> --seats N --seed S [--first F] [--option key=value ...] [--deck-file FILE]
    legal [POSITION]                      # legal actions, one per line, sorted
    apply [POSITION] ACTION...            # the position after the actions, in order
    play <game> --seats N --seed S [--bots KIND[,KIND...]] [--option key=value ...]
         [--deck-file FILE]

POSITION is a file path or ``-`` (stdin); when the first argument is neither an existing
file nor ``-``, the position is read from stdin.  A position is at most 1 MiB of strict
JSON (``engine._common.loads_object``).

Decks: a position's option ``deck`` is ``standard`` (the game's bundled ``deck.txt``, the
default) or the cards themselves (a JSON list of codes; ``--option "deck=7C/> P/E ..."``).
A position never names a file.  ``--deck-file FILE`` (``new``, ``play``; an extension of
the notation's command line) reads a deck file in the format of the game's bundled
``deck.txt`` -- a regular file (no FIFO or device), at most 64 KiB, UTF-8 -- and puts its
cards inline into option ``deck`` (RI-1.5, RT-1.2).

Exit status: 0 on success, 2 on an illegal action, a malformed position or a bad argument,
with exactly one line on stderr naming what is wrong (and the rule id where one applies)
and nothing on stdout.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn, TextIO

from engine import get_game
from engine._common import (
    DECK_FILE_LIMIT,
    MAX_JSON_CHARS,
    dumps,
    loads_object,
    read_text_file,
)
from engine.core import EngineError, Game, NotationError, parse_whole, short_repr

EXIT_ERROR = 2


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as one line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        raise NotationError(f"{self.prog}: {message}")


def _options(pairs: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise NotationError(f"--option {short_repr(pair)}: expected key=value")
        out[key.strip()] = value.strip()
    return out


def _new_options(game: Game[Any, Any, Any], ns: argparse.Namespace) -> dict[str, str]:
    """``--option`` pairs, and with ``--deck-file`` option ``deck`` holding the file's
    cards inline (the only way a deck file is read)."""
    options = _options(ns.option)
    if ns.deck_file is not None:
        if "deck" in options:
            raise NotationError("give --deck-file or --option deck=..., not both")
        text = read_text_file(ns.deck_file, DECK_FILE_LIMIT, "--deck-file")
        options["deck"] = " ".join(game.parse_deck(text, short_repr(ns.deck_file, 80)))
    return options


def _numbers(ns: argparse.Namespace) -> tuple[int, int, int]:
    """``--seats``, ``--seed``, ``--first`` as whole numbers (ASCII digits, at most 100)."""
    return (
        parse_whole(ns.seats, "--seats"),
        parse_whole(ns.seed, "--seed"),
        parse_whole(ns.first, "--first"),
    )


def _read_position(text: str, where: str) -> tuple[Game[Any, Any, Any], Any]:
    obj = loads_object(text, where)
    name = obj.get("game")
    if not isinstance(name, str):
        raise NotationError(f"position from {where}: missing or invalid field 'game'")
    game = get_game(name)
    return game, game.parse_position(obj)


def _read_stream(stream: TextIO, where: str) -> str:
    """At most :data:`MAX_JSON_CHARS` characters of ``stream`` (one more is refused)."""
    try:
        text = stream.read(MAX_JSON_CHARS + 1)
    except UnicodeDecodeError as err:
        raise NotationError(
            f"position from {where}: not UTF-8 text (byte {err.start}: {err.reason})"
        ) from None
    if len(text) > MAX_JSON_CHARS:
        raise NotationError(f"position from {where}: longer than {MAX_JSON_CHARS} characters")
    return text


def _position_args(
    args: Sequence[str], stdin: TextIO
) -> tuple[Game[Any, Any, Any], Any, list[str]]:
    """Split ``[POSITION] ACTION...``: read the position, return the remaining words."""
    if args and args[0] == "-":
        game, pos = _read_position(_read_stream(stdin, "stdin"), "stdin")
        return game, pos, list(args[1:])
    if args and os.path.isfile(args[0]):
        text = read_text_file(args[0], MAX_JSON_CHARS, "position file")
        game, pos = _read_position(text, short_repr(args[0], 80))
        return game, pos, list(args[1:])
    if args and (args[0].endswith(".json") or args[0].startswith(("/", "./", "../"))
                 or os.path.exists(args[0])):
        # an action never looks like this: the word was meant as a position file
        if os.path.isdir(args[0]):
            what = "is a folder"
        elif os.path.exists(args[0]):
            what = "not a regular file"
        else:
            what = "no such position file"
        raise NotationError(f"{short_repr(args[0], 80)}: {what}")
    if args and stdin.isatty():
        # nobody is piping a position in: the first word was meant as a file
        raise NotationError(
            f"{short_repr(args[0], 80)}: no such position file (and no position on stdin)"
        )
    game, pos = _read_position(_read_stream(stdin, "stdin"), "stdin")
    return game, pos, list(args)


def _dump(game: Game[Any, Any, Any], pos: Any) -> str:
    return dumps(game.position_json(pos))


def _cmd_new(ns: argparse.Namespace) -> Iterator[str]:
    game = get_game(ns.game)
    seats, seed, first = _numbers(ns)
    pos = game.new(seats, seed, _new_options(game, ns), first)
    yield _dump(game, pos)


def _cmd_legal(ns: argparse.Namespace, stdin: TextIO) -> Iterator[str]:
    game, pos, rest = _position_args(ns.args, stdin)
    if rest:
        raise NotationError(f"legal: unexpected argument {short_repr(rest[0])}")
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
    seats, seed, first = _numbers(ns)
    kinds = [k.strip() for k in ns.bots.split(",")]
    if len(kinds) == 1:
        kinds = kinds * seats
    if len(kinds) != seats:
        raise NotationError(f"--bots: {len(kinds)} kinds for {seats} seats")
    pos = game.new(seats, seed, _new_options(game, ns), first)
    device_rng = random.Random(seed ^ 0x5EED5EED)
    bots = []
    for seat, kind in enumerate(kinds):
        cls = game.bots.get(kind)
        if cls is None:
            known = ", ".join(sorted(game.bots))
            raise NotationError(f"--bots: unknown kind {short_repr(kind)} (known: {known})")
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
    parser = _Parser(
        prog="python -m engine",
        description="partytable rules engine (docs/notation.md)",
        epilog=DECK_HELP,
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, what in (("new", "print a new position"), ("play", "print a whole bot game")):
        p = sub.add_parser(name, help=what, description=what, epilog=DECK_HELP)
        p.add_argument("game", help="riiing or right-on-time")
        p.add_argument("--seats", required=True, help="number of seats")
        p.add_argument("--seed", required=True, help="shuffle seed (a whole number)")
        p.add_argument("--first", default="0", help="seat that opens (default 0)")
        p.add_argument(
            "--option", action="append", default=[], metavar="KEY=VALUE",
            help="a rule option; deck=standard or deck='CODE CODE ...' (cards inline)",
        )
        p.add_argument(
            "--deck-file", metavar="FILE", default=None,
            help="read the deck from FILE (a regular file of at most 64 KiB, UTF-8, in the "
            "format of the game's deck.txt); its cards go inline into option deck",
        )
        if name == "play":
            p.add_argument("--bots", default="heuristic", help="a kind, or one per seat")
    for name, what in (("legal", "print the legal actions"), ("apply", "apply actions")):
        p = sub.add_parser(name, help=what, description=what)
        p.add_argument("args", nargs="*", metavar="[POSITION] ACTION")
    return parser


DECK_HELP = (
    "A position's option deck is 'standard' (the bundled deck) or its cards inline; a "
    "position never names a file. Only --deck-file reads a deck file."
)


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
        stderr.write(f"error: {_one_line(str(err))}\n")
        return EXIT_ERROR
    except RecursionError:
        stderr.write("error: input nested too deeply\n")
        return EXIT_ERROR
    except BrokenPipeError:
        # the reader went away (``... | head``): stop quietly, as Unix tools do
        _silence_stdout()
        return 0
    except OSError as err:
        where = short_repr(err.filename, 80) if err.filename else "input"
        stderr.write(f"error: {_one_line(f'{where}: {err.strerror or err}')}\n")
        return EXIT_ERROR
    try:
        for line in lines:
            stdout.write(line + "\n")
        stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
    return 0


def _one_line(message: str) -> str:
    """``message`` with any line break or other control character escaped, so an error is
    always exactly one stderr line."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in message)


def _silence_stdout() -> None:
    """Point fd 1 at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        return
