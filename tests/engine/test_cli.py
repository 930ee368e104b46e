"""``python -m engine`` (engine.cli) with Riiing!: new, legal, apply, play; exit status 2
with exactly one stderr line and nothing on stdout for bad input."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from riiing_helpers import GAME

from engine.cli import main

ROOT = Path(__file__).resolve().parents[2]

EXAMPLE_1 = {
    "game": "riiing", "seats": 3, "hands": [["4S/O", "9C/>"], ["2T/=", "!A/<"], ["7A/E"]],
    "draw": ["3C/~", "6T/<"], "discard": ["8S/E", "5A/>", "!T/{1,4,7}"], "to_move": 0,
    "seed": 42, "demand": {"symbol": "T"},
}  # fmt: skip
EXAMPLE_2 = {
    "game": "riiing", "seats": 4,
    "hands": [["5C/>", "1S/O"], ["3S/E", "!S/~", "8A/<"], ["2C/="], ["6T/>", "9S/O"]],
    "draw": ["4A/*S", "7C/E"], "discard": ["5T/<"], "to_move": 1, "seed": 5, "window": "S",
}  # fmt: skip


def cli(*argv: str, stdin: str = "") -> tuple[int, str, str]:
    """Run engine.cli.main; returns (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), io.StringIO(stdin), out, err)
    return status, out.getvalue(), err.getvalue()


def assert_one_error_line(result: tuple[int, str, str], *needles: str) -> str:
    """Exit 2, nothing on stdout, exactly one stderr line containing every needle."""
    status, out, err = result
    assert (status, out) == (2, "")
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert all(needle in err for needle in needles), err
    return err


def test_new_prints_the_position() -> None:
    """new prints one JSON line: the same position RiiingGame.new makes, options included."""
    status, out, err = cli("new", "riiing", "--seats", "4", "--seed", "1", "--option",
                           "hand_size=5", "--first", "2")
    assert (status, err) == (0, "") and out.count("\n") == 1
    assert GAME.parse_position(json.loads(out)) == GAME.new(4, 1, {"hand_size": "5"}, first=2)
    assert json.loads(out)["options"]["hand_size"] == 5


def test_new_refuses_bad_options_and_seats() -> None:
    """new: an option needing too many cards, an unknown option or 7 seats is one line."""
    assert_one_error_line(
        cli("new", "riiing", "--seats", "6", "--seed", "1", "--option", "hand_size=16"),
        "option hand_size", "(RI-2.1)",
    )
    assert_one_error_line(
        cli("new", "riiing", "--seats", "2", "--seed", "1", "--option", "colour=red"),
        "unknown option 'colour'",
    )
    assert_one_error_line(cli("new", "riiing", "--seats", "7", "--seed", "1"), "(RI-2.4)")


def test_legal_from_a_file_from_dash_and_from_stdin(tmp_path: Path) -> None:
    """legal reads the position from a file, '-' or stdin and prints sorted actions."""
    path = tmp_path / "example2.json"
    path.write_text(json.dumps(EXAMPLE_2), encoding="utf-8")
    expected = "slap 0\nslap 1\nslap 2\nslap 3\ntimeout\n"
    assert cli("legal", str(path)) == (0, expected, "")
    assert cli("legal", "-", stdin=json.dumps(EXAMPLE_2)) == (0, expected, "")
    assert cli("legal", stdin=json.dumps(EXAMPLE_1)) == (0, "draw\n", "")


def test_legal_on_a_finished_game_prints_nothing() -> None:
    """legal on a won game prints nothing and exits 0."""
    won = {"game": "riiing", "seats": 2, "hands": [[], ["1S/O"]], "draw": [],
           "discard": ["5S/O"], "to_move": None, "seed": 1, "winner": 0}
    assert cli("legal", stdin=json.dumps(won)) == (0, "", "")


def test_apply_prints_the_position_after_the_actions(tmp_path: Path) -> None:
    """apply applies the actions in order and prints the final position (worked examples)."""
    status, out, err = cli("apply", "draw", stdin=json.dumps(EXAMPLE_1) + "\n")
    assert (status, err) == (0, "")
    after = json.loads(out)
    assert after["seed"] == 107420369 and after["draw"] == ["5A/>", "8S/E", "!T/{1,4,7}"]
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(EXAMPLE_2), encoding="utf-8")
    status, out, err = cli("apply", str(path), "slap 3", "draw")
    assert (status, err) == (0, "")
    after = json.loads(out)
    assert after["hands"][0] == ["5C/>", "1S/O", "7C/E"] and after["discard"] == ["4A/*S"]
    assert after["to_move"] == 1


def test_illegal_action_exits_2_with_one_line_naming_the_rule() -> None:
    """An illegal action (even after legal ones): exit 2, one stderr line with the rule."""
    pos = json.dumps({"game": "riiing", "seats": 2, "hands": [["1S/O"], ["7C/>", "9C/<"]],
                      "draw": ["2A/>", "3A/<"], "discard": ["8S/E"], "to_move": 1, "seed": 1})
    err = assert_one_error_line(cli("apply", "-", "play 7C/>", stdin=pos), "(RI-3.2)")
    assert err == "error: seat 1 cannot play 7C/>: needs a card higher than 8 (RI-3.2)\n"
    assert_one_error_line(cli("apply", "-", "play 9C/<", "slap 0", stdin=pos), "(RI-6.2)")
    assert_one_error_line(cli("apply", "draw", stdin=json.dumps(EXAMPLE_2)), "(RI-6.2)")


def test_bad_action_spelling_exits_2() -> None:
    """An action not in the exact spelling is one line, nothing on stdout."""
    assert_one_error_line(cli("apply", "-", "slap  3", stdin=json.dumps(EXAMPLE_2)),
                          "bad action 'slap  3'")


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"discard": []}, "'discard': empty (RI-9)"),
        ({"window": None}, "'window': null while the reverse 4A/*S is on top"),
        ({"to_move": 9}, "'to_move': seat 9 out of range 0..3 (RI-9)"),
        ({"hands": [["5C/>"], ["3S/E"], ["2C/="], ["6T/>", "9S/Z"]]}, "'hands[3][1]': bad card"),
        ({"options": {"colour": 1}}, "unknown option 'colour'"),
        ({"seats": "4"}, "'seats'"),
    ],
)
def test_malformed_position_exits_2_with_one_line(change: dict[str, object], needle: str) -> None:
    """A malformed position (RI-9): exit 2, one stderr line naming the field."""
    bad = json.dumps({**EXAMPLE_2, **change})
    assert_one_error_line(cli("legal", stdin=bad), needle)
    assert_one_error_line(cli("apply", "-", "timeout", stdin=bad), needle)


def test_unreadable_position_text_exits_2() -> None:
    """Text that is not a JSON object is one stderr line."""
    assert_one_error_line(cli("legal", stdin="{not json"), "not JSON")
    assert_one_error_line(cli("legal", stdin=json.dumps({**EXAMPLE_2, "game": "uno"})), "uno")


def test_play_prints_the_game_and_the_winner() -> None:
    """play prints one line per action and 'winner: seat N'; the log replays to that end."""
    status, out, err = cli("play", "riiing", "--seats", "4", "--seed", "1", "--bots", "heuristic")
    assert (status, err) == (0, "")
    *moves, last = out.splitlines()
    winner = int(re.fullmatch(r"winner: seat (\d)", last).group(1))  # type: ignore[union-attr]
    pos = GAME.new(4, 1)
    for move in moves:
        match = re.fullmatch(r"(?:seat \d|device): (.+?)(?: \(\d+ ms\))?", move)
        assert match is not None, move
        pos, _events = GAME.apply(pos, GAME.parse_action(match.group(1)))
    assert pos.winner == winner


def test_play_with_a_bot_list_and_bad_bots() -> None:
    """--bots takes one kind per seat; an unknown kind or a wrong count is one line."""
    status, out, _err = cli("play", "riiing", "--seats", "3", "--seed", "4", "--bots",
                            "random,heuristic,random")
    assert status == 0 and out.splitlines()[-1].startswith("winner: seat ")
    assert_one_error_line(cli("play", "riiing", "--seats", "2", "--seed", "1", "--bots", "ace"),
                          "unknown kind 'ace'")
    assert_one_error_line(
        cli("play", "riiing", "--seats", "3", "--seed", "1", "--bots", "random,random"),
        "2 kinds for 3 seats",
    )


def test_python_dash_m_engine_play_subprocess() -> None:
    """The real command line: python -m engine play riiing ... prints the game and winner."""
    result = subprocess.run(
        [sys.executable, "-m", "engine", "play", "riiing", "--seats", "4", "--seed", "1",
         "--bots", "heuristic"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0 and result.stderr == ""
    assert re.fullmatch(r"winner: seat \d", result.stdout.splitlines()[-1])
    assert result.stdout == cli("play", "riiing", "--seats", "4", "--seed", "1")[1]


def test_binary_and_deeply_nested_files_exit_2_with_one_line(tmp_path: Path) -> None:
    """A non-UTF-8 file and JSON nested too deeply for the parser are one-line errors."""
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00")
    assert_one_error_line(cli("legal", str(binary)), "not UTF-8", "bin.json")
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    assert_one_error_line(cli("legal", str(deep)), "nested too deeply")


class _Terminal(io.StringIO):
    """A stdin that is a terminal: nothing is being piped in."""

    def isatty(self) -> bool:
        return True


def test_missing_file_with_a_terminal_on_stdin_names_the_file() -> None:
    """`legal typo.json` with nobody piping a position names the missing file at once
    instead of waiting on the terminal."""
    out, err = io.StringIO(), io.StringIO()
    status = main(["legal", "typo.json"], _Terminal(), out, err)
    assert status == 2
    assert out.getvalue() == ""
    assert err.getvalue().count("\n") == 1 and "typo.json" in err.getvalue()


def test_closed_stdout_ends_play_quietly() -> None:
    """`python -m engine play ... | head -1` exits without a traceback."""
    done = subprocess.run(
        f"{sys.executable} -m engine play riiing --seats 4 --seed 1 | head -1",
        shell=True, capture_output=True, text=True, timeout=120,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.stdout.count("\n") == 1
    assert "Traceback" not in done.stderr and "Error" not in done.stderr


def test_a_missing_json_file_or_a_folder_is_named(tmp_path: Path) -> None:
    """`legal nope.json` and `legal <folder>` name the word, even with stdin not a terminal."""
    assert_one_error_line(cli("legal", str(tmp_path / "nope.json")), "nope.json", "no such")
    assert_one_error_line(cli("apply", str(tmp_path), "draw"), str(tmp_path), "folder")
    missing = str(tmp_path / "gone")  # a path without .json is still named, not read as JSON
    assert_one_error_line(cli("legal", missing), missing, "no such position file")


def test_apply_without_an_action_is_a_usage_error(tmp_path: Path) -> None:
    """`apply pos.json` with no action is exit 2 and one line, not a silent echo."""
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(EXAMPLE_1))
    assert_one_error_line(cli("apply", str(path)), "no action")
