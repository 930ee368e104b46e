"""The `python -m engine` command line with Right on Time (docs/notation.md): new, legal,
apply, play; errors exit 2 with one stderr line naming the rule id."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from engine.cli import main

EXAMPLE_3: dict[str, Any] = {
    "game": "right-on-time",
    "seats": 3,
    "hands": [["J", "2", "6", "Z3"], ["1", "5"], ["4", "4", "7"]],
    "draw": ["3", "N"],
    "discard": ["5", "J4"],
    "to_move": 0,
    "seed": 42,
    "round": 1,
    "scores": [0, 0, 0],
    "out": [],
    "bonus": [[], [], []],
    "winner": None,
}


def cli(*argv: str, stdin: str = "") -> tuple[int, str, str]:
    """Run the CLI; returns (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), io.StringIO(stdin), out, err)
    return status, out.getvalue(), err.getvalue()


def write(tmp_path: Path, obj: dict[str, Any]) -> str:
    """Write a position file under tmp_path; returns its path."""
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(obj), encoding="utf-8")
    return str(path)


def test_new_prints_a_position() -> None:
    """`new right-on-time` prints a round-1 position dealt 7 cards a seat, options resolved."""
    status, out, err = cli("new", "right-on-time", "--seats", "3", "--seed", "5", "--first", "2")
    assert status == 0 and err == ""
    obj = json.loads(out)
    assert obj["game"] == "right-on-time" and obj["round"] == 1 and obj["to_move"] == 2
    assert [len(h) for h in obj["hands"]] == [7, 7, 7] and obj["discard"] == []
    status, out, _ = cli(
        "new", "right-on-time", "--seats", "2", "--seed", "5", "--option", "less_influence=on"
    )
    options = json.loads(out)["options"]
    assert status == 0 and options["li_joker_seven"] is True and "hand_size" not in options
    assert [len(h) for h in json.loads(out)["hands"]] == [8, 8]


def test_new_refuses_a_bad_option() -> None:
    """A bad option exits 2 with one stderr line naming it and nothing on stdout."""
    status, out, err = cli("new", "right-on-time", "--seats", "3", "--seed", "1", "--option", "x=1")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "unknown option 'x'" in err
    status, out, err = cli("new", "right-on-time", "--seats", "8", "--seed", "1")
    assert status == 2 and out == "" and "(RT-2.5)" in err


def test_legal_worked_example_3(tmp_path: Path) -> None:
    """`legal FILE` prints worked example 3's 42 actions, sorted, one per line; from stdin too."""
    status, out, err = cli("legal", write(tmp_path, EXAMPLE_3))
    lines = out.splitlines()
    assert status == 0 and err == "" and len(lines) == 42 and lines == sorted(lines)
    assert "play Z3 2 @1" in lines and "play J=4" not in lines
    status, out_stdin, _ = cli("legal", "-", stdin=json.dumps(EXAMPLE_3))
    assert status == 0 and out_stdin == out


def test_apply_worked_example_3(tmp_path: Path) -> None:
    """`apply FILE 'play 2 Z3 @2'` prints the stated position."""
    status, out, err = cli("apply", write(tmp_path, EXAMPLE_3), "play 2 Z3 @2")
    assert status == 0 and err == ""
    obj = json.loads(out)
    assert obj["discard"] == ["5", "J4", "2", "Z3"]
    assert obj["hands"][2] == ["4", "4", "7", "3"] and obj["draw"] == ["N"]
    assert obj["to_move"] == 1


def test_apply_several_actions_from_stdin() -> None:
    """`apply` reads the position from stdin and applies the actions in order."""
    status, out, _ = cli("apply", "play 6", "play 5 1", stdin=json.dumps(EXAMPLE_3))
    obj = json.loads(out)
    assert status == 0 and obj["discard"][-2:] == ["5", "1"] and obj["to_move"] == 2


def test_apply_illegal_exits_2_naming_the_rule(tmp_path: Path) -> None:
    """An illegal action exits 2 with one stderr line citing the rule id, stdout empty."""
    status, out, err = cli("apply", write(tmp_path, EXAMPLE_3), "play 6", "play 1")
    assert status == 2 and out == "" and err.count("\n") == 1
    assert (
        err
        == "error: seat 1 cannot play 1: one card must be higher than the top value 6 (RT-3.1)\n"
    )
    status, out, err = cli("apply", write(tmp_path, EXAMPLE_3), "play J4")
    assert status == 2 and out == "" and "a Joker in an action is written J=<n>" in err


def test_malformed_position_exits_2_naming_the_field(tmp_path: Path) -> None:
    """A malformed position exits 2 with one line naming the field (RT-10.2)."""
    bad = dict(EXAMPLE_3, discard=["5", "J"])
    status, out, err = cli("legal", write(tmp_path, bad))
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "position field 'discard[1]'" in err and "(RT-1.4)" in err


def test_legal_on_a_finished_match_prints_nothing(tmp_path: Path) -> None:
    """`legal` on a won match prints nothing and exits 0."""
    done = dict(EXAMPLE_3, to_move=None, winner=1, scores=[0, 3, 0], out=[1], hands=[["J"], [], []])
    status, out, err = cli("legal", write(tmp_path, done))
    assert (status, out, err) == (0, "", "")


LOG = re.compile(r"^seat \d: (play [^()]+|draw|bonus \S+ \S+)( \(.+\))?$")


def test_play_heuristic_match_to_its_winner() -> None:
    """`play right-on-time --seats 3 --seed 1 --bots heuristic` prints one line per action
    and last `winner: seat N`; 2 seats and mixed bots work too."""
    for argv in (
        ("--seats", "3", "--seed", "1", "--bots", "heuristic"),
        ("--seats", "2", "--seed", "1", "--bots", "heuristic"),
        ("--seats", "4", "--seed", "2", "--bots", "random,heuristic,random,random"),
    ):
        status, out, err = cli("play", "right-on-time", *argv)
        lines = out.splitlines()
        assert status == 0 and err == ""
        assert re.fullmatch(r"winner: seat \d", lines[-1])
        assert all(LOG.match(line) for line in lines[:-1])
        assert "; match won)" in lines[-2]


def test_python_dash_m_engine_play() -> None:
    """`python -m engine play right-on-time --seats 3 --seed 1 --bots heuristic` runs as a
    program and prints the match to its winner."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "engine",
            "play",
            "right-on-time",
            "--seats",
            "3",
            "--seed",
            "1",
            "--bots",
            "heuristic",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.splitlines()[-1].startswith("winner: seat ")
