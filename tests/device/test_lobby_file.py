"""lobby.json read key by key (device/flow/lobby.py) and the command line
over it (device/modes/cli.py): a bad value is one log line naming its key and value, only that
key falls back to its default; a file that cannot be read at all is one line, defaults."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from device.common.phase import Phase
from device.flow.lobby import MAX_FILE_BYTES, LobbyChoices, load_choices
from device.modes.cli import build_parser, command_line_choices, sim_choices
from drivers.table_display import TableDisplay

GOOD = LobbyChoices(game="right-on-time", kinds=("human", "computer", "computer"),
                    strengths=("normal", "hard", "easy"), first=2, volume=4
                    ).with_option("target_points", 2)
"""Choices with every key away from its default, so a key that fell back shows."""


def lines_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The warning lines device.flow.lobby logged."""
    return [r.getMessage() for r in caplog.records
            if r.name == "device.flow.lobby" and r.levelno == logging.WARNING]


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
        (b" " * (MAX_FILE_BYTES + 1) + b"{}", "KiB"),  # huge
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


# --------------------------------------------------------------------------- command line


class Knob:
    """The sound player's volume as the flow sees it (``device.flow.game_flow.VolumeKnob``)."""

    def __init__(self, volume: int) -> None:
        self.volume = volume


def saved(tmp_path: Path) -> Path:
    """A state folder whose lobby.json remembers :data:`GOOD` (volume 4, Right on Time,
    three seats)."""
    write(tmp_path / "lobby.json", GOOD.to_json())
    return tmp_path


def test_volume_on_the_command_line_wins_over_lobby_json(tmp_path: Path) -> None:
    """`--volume 9` is this run's volume although lobby.json says 4; without the flag
    lobby.json's 4 is used; every other remembered choice stays."""
    state = saved(tmp_path)
    choices, warning = sim_choices(build_parser().parse_args(["--sim", "--volume", "9"]), state)
    assert warning is None
    assert choices.volume == 9
    assert (choices.game, choices.kinds, choices.first) == (GOOD.game, GOOD.kinds, GOOD.first)
    assert sim_choices(build_parser().parse_args(["--sim"]), state)[0] == GOOD
    silent = sim_choices(build_parser().parse_args(["--sim", "--volume", "0"]), state)[0]
    assert silent.volume == 0  # 0 is a choice (silent), not "no flag"


def test_every_command_line_choice_the_lobby_saves_wins(tmp_path: Path) -> None:
    """--game, --seats and --humans each win over what lobby.json remembers, alone or
    together; what they do not name is kept."""
    state = saved(tmp_path)
    parse = build_parser().parse_args
    assert sim_choices(parse(["--sim", "--game", "riiing"]), state)[0].game == "riiing"
    two = sim_choices(parse(["--sim", "--seats", "2"]), state)[0]
    assert two.kinds == ("human", "computer") and two.first == 1 and two.volume == 4
    people = sim_choices(parse(["--sim", "--humans", "3"]), state)[0]
    assert people.kinds == ("human", "human", "human") and people.game == GOOD.game
    assert people.seat_strengths() == ("normal", "normal", "normal")
    both = sim_choices(parse(["--sim", "--seats", "5", "--humans", "0", "--volume", "1"]),
                       state)[0]
    assert both.kinds == ("computer",) * 5 and both.volume == 1
    assert both.seat_strengths()[:3] == ("normal", "hard", "easy")  # the saved ones stay


def test_the_console_plays_at_the_command_lines_volume(
    display: TableDisplay, tmp_path: Path
) -> None:
    """The flow takes the lobby's volume over the sound player's (device.flow.game_flow.open): with
    `--volume 2` the sound player ends at 2 although lobby.json says 4 and the player was
    opened at 7; without the flag at lobby.json's 4."""
    from device.console import Console, make_seats
    from device.modes.present import TablePresenter
    from device.reactor.events import FakeQueue
    from drivers.clock import FakeClock
    from drivers.hand_display import open_hand_display

    assert isinstance(display.clock, FakeClock)
    state = saved(tmp_path)
    for flags, heard in ((["--volume", "2"], 2), ([], 4)):
        knob = Knob(7)
        choices, _ = sim_choices(build_parser().parse_args(["--sim", *flags]), state)
        console = Console(
            clock=display.clock, queue=FakeQueue(display.clock),
            presenter=TablePresenter(display, motion=False),
            seats=make_seats([open_hand_display(s, "dummy") for s in range(3)]),
            choices=choices, game_seed=1, state_dir=state, volume=knob)
        console.start()
        assert knob.volume == heard, flags
        assert console.phase is Phase.LOBBY
        console.close()


def test_hardware_mode_takes_the_command_line_over_lobby_json(tmp_path: Path) -> None:
    """On the Pi's path (``hardware_console``) `--volume 3 --game riiing` win over
    lobby.json's volume 4 and Right on Time; the config's seat count still bounds the
    seats (`--seats 5` on a 3-seat config plays 3)."""
    from device.config.loader import computer_only_text, load_config
    from device.modes.hardware import hardware_console, open_rig
    from device.reactor.events import FakeQueue
    from drivers.clock import FakeClock

    (tmp_path / "state").mkdir()
    state = saved(tmp_path / "state")
    config_path = tmp_path / "config.toml"
    config_path.write_text(computer_only_text(state))
    config = load_config(config_path)
    clock = FakeClock(10 * 1_000_000_000)
    queue = FakeQueue(clock)
    args = build_parser().parse_args(["--volume", "3", "--game", "riiing", "--seats", "5"])
    rig = open_rig(config, post=queue.post, clock=clock, threads=False)
    try:
        knob = Knob(config.sound.volume)
        console = hardware_console(config, rig, clock=clock, queue=queue, volume=knob,
                                   command_line=args)
        console.start()
        assert knob.volume == 3
        assert console.record is not None
        assert (console.record.game, len(console.record.kinds)) == ("riiing", 3)
    finally:
        rig.close()


def test_command_line_choices_leave_the_choices_alone_without_flags() -> None:
    """No flag given: the choices come back unchanged (also for a default --seed)."""
    assert command_line_choices(GOOD, build_parser().parse_args([])) == GOOD


def test_help_says_which_volume_wins() -> None:
    """--help documents the order: command line > lobby.json > [sound] volume > default."""
    text = " ".join(build_parser().format_help().split())
    assert "command line > lobby.json > config [sound] volume > default" in text
