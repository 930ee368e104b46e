"""Every malformed input to ``python -m engine``, in both games, exits 2 with nothing on
stdout and exactly one stderr line naming the problem; never a traceback
(docs/notation.md, command line)."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from engine.cli import main

HUGE = "1" + "0" * 5000
"""An integer beyond Python's 4,300-digit str->int limit."""

RIIING: dict[str, Any] = {
    "game": "riiing", "seats": 3, "hands": [["4S/O", "9C/>"], ["2T/=", "!A/<"], ["7A/E"]],
    "draw": ["3C/~", "6T/<"], "discard": ["8S/E", "5A/>", "!T/{1,4,7}"], "to_move": 0,
    "seed": 42, "demand": {"symbol": "T"},
}  # fmt: skip
"""Worked example 1 (a valid Riiing! position)."""

ROT: dict[str, Any] = {
    "game": "right-on-time", "seats": 3, "hands": [["J", "2", "6", "Z3"], ["1", "5"],
    ["4", "4", "7"]], "draw": ["3", "N"], "discard": ["5", "J4"], "to_move": 0, "seed": 1,
    "round": 1, "scores": [0, 0, 0], "out": [], "bonus": [[], [], []], "winner": None,
}  # fmt: skip
"""Worked example 3 (a valid Right on Time position)."""


def text(base: dict[str, Any], **fields: Any) -> str:
    """``base`` with ``fields`` replaced, as JSON text."""
    return json.dumps({**base, **fields})


def raw(base: dict[str, Any], field: str, json_value: str) -> str:
    """``base`` as JSON text with ``field``'s value written as the raw text ``json_value``
    (for values ``json.dumps`` cannot write: NaN, huge numbers)."""
    obj = {**base, field: "@@"}
    return json.dumps(obj).replace('"@@"', json_value)


def legal(stdin: str) -> tuple[list[str], str]:
    """``legal -`` on ``stdin``."""
    return ["legal", "-"], stdin


def nested(depth: int) -> str:
    """A Riiing! position whose deck option is a list nested ``depth`` deep."""
    return raw(RIIING, "options", '{"deck": ' + "[" * depth + "]" * depth + "}")


NEW_R = ["new", "riiing", "--seats", "3", "--seed", "1"]
NEW_T = ["new", "right-on-time", "--seats", "3", "--seed", "1"]

CASES: list[tuple[str, list[str], str, str]] = [
    # (id, argv, stdin, what the one stderr line must name)
    ("top level is a list", *legal("[1, 2]"), "expected a JSON object, got a list"),
    ("top level is a string", *legal('"riiing"'), "expected a JSON object, got a string"),
    ("top level is null", *legal("null"), "expected a JSON object, got null"),
    ("not JSON at all", *legal("{"), "not JSON (line 1"),
    ("a string cut short", *legal('{"game": "riii'),
     "not JSON (line 1 column 10: Unterminated string)"),
    ("NaN", *legal(raw(RIIING, "seed", "NaN")), "NaN is not JSON"),
    ("Infinity", *legal(raw(ROT, "seed", "-Infinity")), "-Infinity is not JSON"),
    ("5001-digit seed", *legal(raw(RIIING, "seed", HUGE)), "a JSON number has 5001 digits"),
    ("5001-digit round", *legal(raw(ROT, "round", HUGE)), "a JSON number has 5001 digits"),
    ("float out of range", *legal(raw(ROT, "seats", "1e400")), "JSON number '1e400' is out"),
    ("float seats", *legal(text(RIIING, seats=3.0)), "'seats': expected 2..6, got 3.0"),
    ("100000 nested lists", *legal("[" * 100_000 + "]" * 100_000), "nested too deeply"),
    ("40 nested lists", *legal(nested(40)), "JSON nested deeper than 8 levels"),
    ("duplicate key", *legal('{"game": "riiing", "game": "riiing"}'), "duplicate key 'game'"),
    ("unknown game", *legal(text(RIIING, game="chess")), "unknown game 'chess'"),
    ("field name with newline", *legal(text(RIIING, **{"ga\nme": 1})), "'ga\\nme': unknown"),
    ("card code with newline", *legal(text(RIIING, hands=[["7C/>\n"], ["2T/="], ["7A/E"]])),
     "'hands[0][0]': bad card code '7C/>\\n'"),
    ("card code not a string", *legal(text(RIIING, draw=[7])), "'draw[0]': expected a card code"),
    ("hands not a list", *legal(text(RIIING, hands="4S/O")), "'hands': expected a list of 3"),
    ("seats as text", *legal(text(RIIING, seats="3")), "'seats': expected 2..6, got '3'"),
    ("to_move out of range", *legal(text(RIIING, to_move=5)), "'to_move': seat 5 out of range"),
    ("to_move true", *legal(text(ROT, to_move=True)), "'to_move': expected a seat number or"),
    ("winner out of range", *legal(text(ROT, winner=7, to_move=None)), "'winner': seat 7 out"),
    ("bad demand", *legal(text(RIIING, demand={"symbol": "X"})), "'demand': expected null"),
    ("window a number", *legal(text(RIIING, window=5)), "'window': expected null or a symbol"),
    ("option of the wrong type", *legal(text(RIIING, options={"hand_size": True})),
     "'options.hand_size': expected a whole number, got True"),
    ("deck names a file", *legal(text(RIIING, options={"deck": "/etc/passwd"})),
     "'/etc/passwd' is no bundled deck"),
    ("deck holds a number", *legal(text(RIIING, options={"deck": ["7C/>", 1]})),
     "option deck: card 1: expected a card code, got 1"),
    ("deck too large", *legal(text(RIIING, options={"deck": ["7C/>"] * 1001})),
     "option deck: 1001 cards (at most 1000)"),
    ("rot hand_size option", *legal(text(ROT, options={"hand_size": 8})),
     "unknown option 'hand_size'"),
    ("rot flag as text", *legal(text(ROT, options={"li_joker_seven": "yes"})),
     "'options.li_joker_seven': expected true/false, got 'yes'"),
    ("rot deck names a file", *legal(text(ROT, options={"deck": "my.txt"})),
     "a position never names a file"),
    ("rot score as text", *legal(text(ROT, scores=["1", 0, 0])), "'scores[0]': expected victory"),
    ("rot out not a list", *legal(text(ROT, out="0")), "'out': expected a list of at most 3"),
    ("rot Joker on the pile", *legal(text(ROT, discard=["J"])), "'discard[0]': a Joker on the"),
    ("rot card not a string", *legal(text(ROT, draw=[None])), "'draw[0]': expected a card code"),
    ("rot J<n> in a hand", *legal(text(ROT, bonus=[["J3"], [], []])), "'bonus[0][0]': 'J3'"),
    ("--seats beyond int()", [*NEW_R[:3], HUGE, "--seed", "1"], "",
     "--seats: expected a whole number, got '1000"),
    ("--seed superscript", [*NEW_T[:5], "²"], "", "--seed: expected a whole number, got '²'"),
    ("--first as text", [*NEW_R, "--first", "x"], "", "--first: expected a whole number"),
    ("option beyond int()", [*NEW_R, "--option", f"hand_size={HUGE}"], "",
     "option hand_size: expected a whole number"),
    ("rot option NaN", [*NEW_T, "--option", "target_points=NaN"], "",
     "option target_points: expected a whole number, got 'NaN'"),
    ("option without =", [*NEW_R, "--option", "hand_size"], "", "expected key=value"),
    ("deck option names a file", [*NEW_R, "--option", "deck=/etc/passwd"], "",
     "'/etc/passwd' is no bundled deck"),
    ("seven seats", [*NEW_R[:3], "7", "--seed", "1"], "", "(RI-2.4)"),
    ("slap seat beyond int()", ["apply", "-", f"slap {HUGE}"], text(RIIING),
     "bad action 'slap 1000"),
    ("rot effect seat beyond int()", ["apply", "-", f"play 2 Z3 @{HUGE}"], text(ROT),
     "bad effect seat '@1000"),
    ("action with newline", ["apply", "-", "draw\nplay 7C/>"], text(RIIING),
     "bad action 'draw\\nplay 7C/>'"),
    ("rot Joker written J3", ["apply", "-", "play J4"], text(ROT), "written J=<n>"),
    ("--deck-file a device", [*NEW_R, "--deck-file", "/dev/zero"], "",
     "--deck-file '/dev/zero': not a regular file"),
    ("--deck-file missing", [*NEW_T, "--deck-file", "/nonexistent/deck.txt"], "",
     "--deck-file '/nonexistent/deck.txt': cannot read"),
]


@pytest.mark.parametrize(("argv", "stdin", "needle"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])  # fmt: skip
def test_malformed_input_is_one_error_line(argv: list[str], stdin: str, needle: str) -> None:
    """Exit 2, empty stdout, exactly one stderr line that starts with 'error:' and names
    the problem."""
    out, err = io.StringIO(), io.StringIO()
    status = main(argv, io.StringIO(stdin), out, err)
    message = err.getvalue()
    assert (status, out.getvalue()) == (2, ""), message
    assert message.startswith("error: ") and message.endswith("\n"), message
    assert message.count("\n") == 1 and "\r" not in message, message
    assert needle in message, message
    assert len(message) < 400 and message.count("error:") == 1, message


def test_the_table_covers_both_games_and_at_least_25_inputs() -> None:
    """The table is large and spans Riiing!, Right on Time and the command line itself."""
    assert len(CASES) >= 25
    joined = [" ".join(argv) + stdin for _id, argv, stdin, _needle in CASES]
    assert sum('"riiing"' in j or " riiing " in j for j in joined) >= 10
    assert sum("right-on-time" in j for j in joined) >= 10
