"""The lobby's choices (device/flow/lobby.py) and the table's event lines
(device/games/riiing/ri_narrate.py, device/games/right_on_time/rt_narrate.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from device.flow.lobby import Lobby, LobbyChoices, load_choices
from device.games import PLUGINS, get_plugin
from device.games.right_on_time.rt_narrate import card_words as rot_card_words
from device.games.riiing.ri_narrate import event_line as narrate_riiing
from device.games.riiing.ri_words import card_words as riiing_card_words
from engine.core import Event


def test_choices_round_trip_through_json() -> None:
    """Saved choices read back equal, options per game included."""
    c = LobbyChoices("right-on-time", ("human", "computer", "human"), first=2)
    c = c.with_option("target_points", 2)
    assert LobbyChoices.from_json(json.loads(json.dumps(c.to_json()))) == c
    assert c.game_options() == {"target_points": 2, "li_du_bist_left": False,
                                "li_joker_seven": False, "li_higher_on_top": False}


@pytest.mark.parametrize(
    "text, word",
    [
        ("{not json", "defaults"),
        ('{"game": "chess"}', "unknown game"),
        ('{"kinds": ["human"]}', "kinds"),
        ('{"kinds": ["human", "robot"]}', "kinds"),
        ('{"first": 5}', "first"),
        ('{"options": {"riiing": {"hand_size": 99}}}', "hand_size"),
    ],
)
def test_a_damaged_choices_file_gives_defaults_and_one_line(
    tmp_path: Path, text: str, word: str
) -> None:
    """A damaged lobby.json never stops the console: defaults plus a one-line warning."""
    path = tmp_path / "lobby.json"
    path.write_text(text)
    choices, warning = load_choices(path)
    assert choices == LobbyChoices()
    assert warning is not None and "\n" not in warning and word in warning


def test_lobby_keys_cycle_values_and_start() -> None:
    """SELECT steps a row's value forward, BACK back; START reports a start."""
    lobby = Lobby()
    assert lobby.change(1) is False
    assert lobby.choices.game == "right-on-time"
    assert lobby.change(-1) is False and lobby.choices.game == "riiing"
    lobby.move(1)  # Seats
    lobby.change(-1)
    assert len(lobby.choices.kinds) == 3
    lobby.change(1)
    lobby.change(1)
    assert lobby.choices.kinds == ("human", "computer", "computer", "computer", "computer")
    lobby.move(1)  # Seat 1
    lobby.change(1)
    assert lobby.choices.kinds[0] == "computer"
    lobby.move(-3)  # wraps to START
    assert lobby.rows()[lobby.cursor][0] == "start"
    assert lobby.change(1) is True


def test_every_offered_option_is_an_engine_option() -> None:
    """Each lobby option names a real engine option whose default is offered first."""
    from engine import get_game

    for game, options in ((p.name, p.lobby_options) for p in PLUGINS.values()):
        specs = {s.name: s for s in get_game(game).options}
        for opt in options:
            assert opt.name in specs
            assert specs[opt.name].default == opt.values[0]


def test_event_lines_use_words_and_hide_private_cards() -> None:
    """Lines read as words; a draw says how many cards, never which."""
    assert riiing_card_words("7C/>") == "7 COFFEE"
    assert riiing_card_words("!T/E") == "TOAST!"
    assert riiing_card_words("P/{1,4,7}") == "PHONE"
    assert rot_card_words("J4") == "Joker as 4"
    assert rot_card_words("N") == "NULL"
    line = narrate_riiing(Event("draw", 2, ("4S/O", "9C/>")))
    assert line == "Seat 3 drew 2 cards"
    assert "4S" not in line
    shuffle_then_play = [Event("shuffle", None, (), 5), Event("play", 0, ("3A/<",))]
    assert get_plugin("riiing").narrate(shuffle_then_play) == "Seat 1 laid 3 ALARM"
    assert get_plugin("right-on-time").narrate([Event("play", 1, ("2", "J3"))]) \
        == "Seat 2 laid 2 + Joker as 3"


def test_a_line_tells_what_the_seat_did_and_what_followed() -> None:
    """A demand's draws and play merge into one clause; the lay stays visible beside its
    effects (a lay is never hidden behind "gets a bonus card")."""
    draw_then_play = [Event("draw", 0, ("1S/O", "2C/E")), Event("play", 0, ("4A/<",)),
                      Event("window", None, (), "T")]
    assert get_plugin("riiing").narrate(draw_then_play) == \
        "Seat 1 drew 2 cards, laid 4 ALARM · RIIING! TOAST: SLAP!"
    out_first = [Event("play", 2, ("7", "2")), Event("out", 2), Event("bonus", 2, ("5",))]
    assert get_plugin("right-on-time").narrate(out_first) == \
        "Seat 3 laid 7 + 2 · Seat 3 is out, gets a bonus card"


def test_a_demand_that_stops_at_a_reverse_reads_on_the_tv() -> None:
    """RI-5.3/RI-6.1: when a demand's drawing stops at a reverse, the top strip says the seat
    drew, the demand ended and the RIIING! is on (the engine's own events for that draw)."""
    game = get_plugin("riiing").engine
    pos = game.parse_position({
        "game": "riiing", "seats": 2, "hands": [["4S/O", "9C/>"], ["2C/="]],
        "draw": ["3C/~", "5A/*S", "6T/<"], "discard": ["8S/E", "!T/E"], "to_move": 0,
        "seed": 42, "demand": {"symbol": "T"}, "window": None, "winner": None})
    after, events = game.apply(pos, game.parse_action("draw"))
    assert game.view(after, None).window == "S"
    line = get_plugin("riiing").narrate(events)
    assert line == "Seat 1 drew 1 card · the TOAST demand ends, RIIING! SOAP: SLAP!"


def test_the_match_winning_lay_reads_as_one_sentence() -> None:
    """The lay that wins the last round and the match: no "!," and no shouting in the
    middle of the line (not "wins round 6!, WINS THE MATCH!")."""
    last = [Event("play", 0, ("7",)), Event("out", 0), Event("round", 0, (), 6),
            Event("match", 0)]
    line = get_plugin("right-on-time").narrate(last)
    assert line is not None
    assert "!," not in line and "WINS" not in line
    assert line.endswith("wins round 6, wins the match!"), line


def test_match_results_name_the_seats() -> None:
    """Game over's result line names seats in words ("Seat 1: 3"), not "S1: 3"."""
    plugin = get_plugin("right-on-time")
    pos = plugin.engine.new(3, 5, {}, 0)
    (line,) = plugin.results(pos)
    assert "Seat 1: 0" in line and "Seat 3: 0" in line and "S1" not in line
