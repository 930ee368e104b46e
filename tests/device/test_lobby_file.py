"""lobby.json read key by key (device/lobby.py, issue 10 "Bad input") and the command line
over it (device/cli.py): a bad value is one log line naming its key and value, only that
key falls back to its default; a file that cannot be read at all is one line, defaults."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from device.lobby import LobbyChoices, load_choices

GOOD = LobbyChoices(game="right-on-time", kinds=("human", "computer", "computer"),
                    strengths=("normal", "hard", "easy"), first=2, volume=4
                    ).with_option("target_points", 2)
"""Choices with every key away from its default, so a key that fell back shows."""


def lines_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The warning lines device.lobby logged."""
    return [r.getMessage() for r in caplog.records
            if r.name == "device.lobby" and r.levelno == logging.WARNING]


def write(path: Path, obj: object) -> Path:
    """``obj`` as JSON at ``path``."""
    path.write_text(json.dumps(obj), encoding="utf-8")
    return path


def test_good_choices_read_back_without_a_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A file the lobby wrote reads back equal and logs nothing."""
    caplog.set_level(logging.WARNING)
    path = write(tmp_path / "lobby.json", GOOD.to_json())
    assert load_choices(path) == (GOOD, None)
    assert lines_of(caplog) == []


@pytest.mark.parametrize(
    ("key", "value", "named", "fallback"),
    [
        ("volume", "loud", "'loud'", {"volume": None}),
        ("volume", 11, "11", {"volume": None}),
        ("volume", True, "True", {"volume": None}),
        ("first", 7, "7", {"first": 0}),
        ("game", "chess", "'chess'", {}),
        ("kinds", ["human", "robot"], "'robot'", {}),
    ],
)
def test_one_bad_key_is_one_line_and_the_other_keys_are_kept(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, key: str, value: object, named: str,
    fallback: dict[str, object],
) -> None:
    """`"volume": "loud"` (and the like) is one log line naming the key and the value;
    that key takes its default and every other choice is used."""
    caplog.set_level(logging.WARNING)
    path = write(tmp_path / "lobby.json", {**GOOD.to_json(), key: value})
    choices, warning = load_choices(path)
    lines = lines_of(caplog)
    assert len(lines) == 1 and f"'{key}'" in lines[0] and named in lines[0], lines
    assert warning is not None and "\n" not in warning and f"'{key}'" in warning
    if key == "game":  # the options stay saved per game; the default game is offered
        assert choices.game == LobbyChoices().game
        assert choices.game_options("right-on-time")["target_points"] == 2
        assert (choices.kinds, choices.first, choices.volume) == (GOOD.kinds, 2, 4)
    elif key == "kinds":  # the default seats; the strengths of its computer seats stay
        assert choices.kinds == LobbyChoices().kinds
        assert choices.seat_strengths() == ("normal", "hard", "easy", "normal")
        assert (choices.game, choices.first, choices.volume) == (GOOD.game, 2, 4)
    else:
        from dataclasses import replace

        assert choices == replace(GOOD, **fallback)  # type: ignore[arg-type]


def test_a_strength_for_a_person_is_one_line_and_nothing_else_changes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A strength saved for a seat a person plays is one line naming the seat and the
    strength; that seat is "normal", the game, seats, opener, options and volume stay."""
    caplog.set_level(logging.WARNING)
    path = write(tmp_path / "lobby.json", {**GOOD.to_json(), "strengths": ["hard", "hard",
                                                                          "easy"]})
    choices, warning = load_choices(path)
    assert choices == GOOD
    lines = lines_of(caplog)
    assert len(lines) == 1 and "seat 1" in lines[0] and "'hard'" in lines[0], lines
    assert warning is not None and "seat 1 is a person" in warning


def test_each_bad_key_is_its_own_line_and_only_they_fall_back(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Four bad keys at once (the opener, the volume, one option, one seat's strength) are
    four lines, one each; the good option beside the bad one is kept."""
    caplog.set_level(logging.WARNING)
    obj = GOOD.to_json()
    obj.update(first=True, volume=-3, strengths=["normal", "wild", "easy"],
               options={"right-on-time": {"target_points": 2, "li_joker_seven": "yes"}})
    choices, warning = load_choices(write(tmp_path / "lobby.json", obj))
    lines = lines_of(caplog)
    assert len(lines) == 4, lines
    for words in (("'first'", "True"), ("'volume'", "-3"), ("seat 2", "'wild'"),
                  ("right-on-time.li_joker_seven", "'yes'")):
        assert sum(all(w in line for w in words) for line in lines) == 1, (words, lines)
    assert (choices.game, choices.kinds, choices.first, choices.volume) == (
        GOOD.game, GOOD.kinds, 0, None)
    assert choices.seat_strengths() == ("normal", "normal", "easy")
    assert choices.game_options()["target_points"] == 2
    assert choices.game_options()["li_joker_seven"] is False
    assert warning is not None and "\n" not in warning


def test_an_unknown_key_or_game_is_left_out_with_a_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A key the lobby never writes, and options for a game it does not know, are one line
    each and left out; the known choices are used."""
    caplog.set_level(logging.WARNING)
    obj = {**GOOD.to_json(), "colour": "red"}
    obj["options"] = {**obj["options"], "chess": {"clock": 5}}
    choices, _ = load_choices(write(tmp_path / "lobby.json", obj))
    assert choices == GOOD
    lines = lines_of(caplog)
    assert len(lines) == 2 and any("'colour'" in x for x in lines) and any(
        "'chess'" in x for x in lines), lines


def test_a_long_value_is_cut_short_in_its_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A 50,000-character value is named by its start: the line stays short."""
    caplog.set_level(logging.WARNING)
    load_choices(write(tmp_path / "lobby.json", {**GOOD.to_json(), "volume": "x" * 50_000}))
    (line,) = lines_of(caplog)
    assert "'volume'" in line and "'xxx" in line and len(line) < len(str(tmp_path)) + 200


@pytest.mark.parametrize(
    ("content", "word"),
    [
        (b"[1, 2]", "JSON object"),
        (b'"riiing"', "JSON object"),
        (b"null", "JSON object"),
        (json.dumps(GOOD.to_json()).encode()[:30], "JSON"),  # cut short by a power cut
        (b"", "JSON"),
        (b"\x00\xff\xfe\x89PNG\r\n\x1a\n" * 20, "utf-8"),  # binary
        (b"[" * 20_000 + b"]" * 20_000, "nested"),  # parses into a RecursionError
        (b" " * (64 * 1024 + 1) + b"{}", "KiB"),  # huge
    ],
    ids=["list", "string", "null", "truncated", "empty", "binary", "deep", "huge"],
)
def test_a_file_that_is_not_choices_is_one_line_and_defaults(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, content: bytes, word: str
) -> None:
    """Not a JSON object, truncated, empty, binary, nested past the parser, or larger
    than any lobby file: one log line, every choice its default."""
    caplog.set_level(logging.WARNING)
    path = tmp_path / "lobby.json"
    path.write_bytes(content)
    choices, warning = load_choices(path)
    assert choices == LobbyChoices()
    lines = lines_of(caplog)
    assert len(lines) == 1 and word in lines[0] and "defaults" in lines[0], lines
    assert "\n" not in lines[0] and len(lines[0]) < len(str(path)) + 200
    assert warning is not None and "\n" not in warning


def test_a_folder_in_the_files_place_is_one_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """lobby.json that is a folder (an OS error on read): one line, defaults."""
    caplog.set_level(logging.WARNING)
    (tmp_path / "lobby.json").mkdir()
    assert load_choices(tmp_path / "lobby.json")[0] == LobbyChoices()
    assert len(lines_of(caplog)) == 1


def test_no_file_is_defaults_without_a_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """No lobby.json yet (a new console): defaults and no line."""
    caplog.set_level(logging.WARNING)
    assert load_choices(tmp_path / "lobby.json") == (LobbyChoices(), None)
    assert load_choices(None) == (LobbyChoices(), None)
    assert lines_of(caplog) == []


def test_the_strict_reader_names_the_first_bad_key() -> None:
    """``LobbyChoices.from_json`` (strict) raises ValueError naming the bad key."""
    with pytest.raises(ValueError, match="'volume'"):
        LobbyChoices.from_json({**GOOD.to_json(), "volume": "loud"})
    assert LobbyChoices.from_json(GOOD.to_json()) == GOOD
