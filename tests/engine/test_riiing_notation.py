"""Riiing! notation (docs/notation.md): card, action and position text round-trips,
exact spellings, the JSON field order, options, views, and worked examples 1 and 2 byte
for byte."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from riiing_helpers import GAME, make

from engine.core import NotationError
from engine.riiing import (
    DRAW,
    TAKE,
    TIMEOUT,
    RiiingAction,
    RiiingCard,
    RiiingPosition,
    default_deck,
)
from engine.riiing.position import FIELDS

SYMBOLS = "ASCT"

fronts = st.one_of(
    st.builds(lambda n, s: f"{n}{s}", st.integers(1, 9), st.sampled_from(SYMBOLS)),
    st.builds(lambda s: f"!{s}", st.sampled_from(SYMBOLS)),
    st.just("P"),
)
backs = st.one_of(
    st.sampled_from([">", "<", "=", "~", "E", "O"]),
    st.builds(
        lambda ns: "{" + ",".join(str(n) for n in sorted(ns)) + "}",
        st.sets(st.integers(1, 9), min_size=1, max_size=9),
    ),
    st.builds(lambda s: f"*{s}", st.sampled_from(SYMBOLS)),
)
codes = st.builds(lambda f, b: f"{f}/{b}", fronts, backs)
plain_codes = codes.filter(lambda code: not RiiingCard.parse(code).reverse)


@st.composite
def positions(draw: st.DrawFn) -> dict[str, Any]:
    """Valid position objects: any cards, any demand, a window iff a reverse is on top,
    ``opening`` (only as true) sometimes while nobody has won."""
    seats = draw(st.integers(2, 6))
    won = draw(st.booleans()) and draw(st.booleans())
    winner = draw(st.integers(0, seats - 1)) if won else None
    hands = [
        [] if seat == winner else draw(st.lists(codes, min_size=0 if won else 1, max_size=6))
        for seat in range(seats)
    ]
    pile = draw(st.lists(codes, max_size=8))
    if pile and not won and draw(st.booleans()):
        pile[0] = draw(plain_codes)
    discard = draw(st.lists(codes, min_size=1, max_size=5))
    reverse = RiiingCard.parse(pile[0]).reverse if pile else None
    demand = None if won else draw(st.one_of(
        st.none(),
        st.builds(lambda s: {"symbol": s}, st.sampled_from(SYMBOLS)),
        st.builds(lambda k: {"phones": k}, st.integers(1, 8)),
    ))  # fmt: skip
    options = draw(st.fixed_dictionaries({}, optional={
        "hand_size": st.integers(1, 20),
        "slap_timeout_s": st.integers(1, 30),
        "false_slap_penalty": st.integers(0, 3),
        "deck": st.one_of(st.just("standard"), st.lists(codes, min_size=1, max_size=5)),
    }))  # fmt: skip
    obj = {
        "game": "riiing",
        "seats": seats,
        "options": options,
        "hands": hands,
        "draw": pile,
        "discard": discard,
        "to_move": None if won else draw(st.integers(0, seats - 1)),
        "seed": draw(st.integers(0, 2**32 - 1)),
        "demand": demand,
        "window": None if won else reverse,
        "winner": winner,
    }
    if not won and draw(st.booleans()):
        obj["opening"] = True
    return obj


@given(codes)
def test_card_text_round_trips(code: str) -> None:
    """parse(str(card)) == card for every valid code, and str gives the code back."""
    card = RiiingCard.parse(code)
    assert str(card) == code and RiiingCard.parse(str(card)) == card
    assert hash(card) == hash(RiiingCard.parse(code))


def test_deck_cards_round_trip() -> None:
    """Every card of the bundled deck round-trips through its code."""
    assert all(RiiingCard.parse(str(card)) == card for card in default_deck())


@given(st.one_of(
    codes.map(lambda code: f"play {code}"),
    st.sampled_from(["draw", "take", "timeout"]),
    st.builds(lambda k, s: f"{k} {s}", st.sampled_from(["slap", "falseslap"]), st.integers(0, 99)),
))  # fmt: skip
def test_action_text_round_trips(text: str) -> None:
    """parse(str(action)) == action and str(parse(text)) == text for every spelling."""
    action = RiiingAction.parse(text)
    assert str(action) == text and RiiingAction.parse(str(action)) == action


@pytest.mark.parametrize(
    "text",
    ["Play 7C/>", "play  7C/>", "play 7C/> ", " draw", "draw\n", "DRAW", "slap 02", "slap -1",
     "slap", "slap x", "falseslap", "timeout 1", "take 2", "play 7C", "play", "slap 1 2", "",
     "false slap 1", "play 7C/>,8C/<"],
)  # fmt: skip
def test_action_spellings_other_than_legal_prints_are_refused(text: str) -> None:
    """Only the exact spelling legal prints is accepted (docs/notation.md)."""
    with pytest.raises(NotationError):
        GAME.parse_action(text)


def test_action_constructors_and_constants() -> None:
    """The named constructors build the same values parse reads."""
    assert tuple(map(RiiingAction.parse, ("draw", "take", "timeout"))) == (DRAW, TAKE, TIMEOUT)
    assert RiiingAction.play("7C/>") == RiiingAction.parse("play 7C/>")
    assert str(RiiingAction.falseslap(3)) == "falseslap 3"
    with pytest.raises(NotationError):
        RiiingAction("slap")
    with pytest.raises(NotationError):
        RiiingAction("draw", seat=1)


@settings(max_examples=120)
@given(positions())
def test_position_json_round_trips(obj: dict[str, Any]) -> None:
    """parse_position(json(position_json(p))) == p, str/parse too; fields in notation order."""
    pos = GAME.parse_position(obj)
    out = GAME.position_json(pos)
    assert list(out) == [field for field in FIELDS if field != "opening" or "opening" in obj]
    assert list(out["options"]) == ["hand_size", "slap_timeout_s", "false_slap_penalty", "deck"]
    assert {k: v for k, v in out.items() if k != "options"} == {
        k: v for k, v in obj.items() if k != "options"
    }
    assert GAME.parse_position(json.loads(json.dumps(out))) == pos
    again = RiiingPosition.parse(str(pos))
    assert again == pos and hash(again) == hash(pos)


def test_position_text_errors() -> None:
    """Position text that is not a JSON object is a NotationError."""
    with pytest.raises(NotationError, match="not JSON"):
        RiiingPosition.parse("{")
    with pytest.raises(NotationError, match="expected a JSON object"):
        RiiingPosition.parse("[1]")


EXAMPLE_1 = (
    '{"game": "riiing", "seats": 3, "hands": [["4S/O", "9C/>"], ["2T/=", "!A/<"], ["7A/E"]], '
    '"draw": ["3C/~", "6T/<"], "discard": ["8S/E", "5A/>", "!T/{1,4,7}"], "to_move": 0, '
    '"seed": 42, "demand": {"symbol": "T"}}'
)
EXAMPLE_1_AFTER = (
    '{"game": "riiing", "seats": 3, "options": {"hand_size": 7, "slap_timeout_s": 8, '
    '"false_slap_penalty": 1, "deck": "standard"}, "hands": [["4S/O", "9C/>", "3C/~"], '
    '["2T/=", "!A/<"], ["7A/E"]], "draw": ["5A/>", "8S/E", "!T/{1,4,7}"], '
    '"discard": ["6T/<"], "to_move": 1, "seed": 107420369, "demand": null, "window": null, '
    '"winner": null}'
)
EXAMPLE_2 = (
    '{"game": "riiing", "seats": 4, "hands": [["5C/>", "1S/O"], ["3S/E", "!S/~", "8A/<"], '
    '["2C/="], ["6T/>", "9S/O"]], "draw": ["4A/*S", "7C/E"], "discard": ["5T/<"], '
    '"to_move": 1, "seed": 5, "window": "S"}'
)
EXAMPLE_2_AFTER = (
    '{"game": "riiing", "seats": 4, "options": {"hand_size": 7, "slap_timeout_s": 8, '
    '"false_slap_penalty": 1, "deck": "standard"}, "hands": [["5C/>", "1S/O"], '
    '["3S/E", "!S/~", "8A/<"], ["2C/="], ["6T/>"]], "draw": ["7C/E"], '
    '"discard": ["5T/<", "9S/O", "4A/*S"], "to_move": 0, "seed": 5, "demand": null, '
    '"window": null, "winner": null}'
)


def test_worked_example_1_byte_for_byte() -> None:
    """Worked example 1: legal prints draw; the position after draw, byte for byte."""
    pos = RiiingPosition.parse(EXAMPLE_1)
    assert [str(a) for a in GAME.legal(pos)] == ["draw"]
    after, _ = GAME.apply(pos, GAME.parse_action("draw"))
    assert json.dumps(GAME.position_json(after)) == EXAMPLE_1_AFTER == str(after)


def test_worked_example_2_byte_for_byte() -> None:
    """Worked example 2: legal prints slap 0..3 and timeout; after slap 3, byte for byte."""
    pos = RiiingPosition.parse(EXAMPLE_2)
    assert [str(a) for a in GAME.legal(pos)] == [
        "slap 0", "slap 1", "slap 2", "slap 3", "timeout",
    ]  # fmt: skip
    after, _ = GAME.apply(pos, GAME.parse_action("slap 3"))
    assert json.dumps(GAME.position_json(after)) == EXAMPLE_2_AFTER


def test_options_from_strings_and_errors() -> None:
    """new() reads option strings; an unknown option or a bad value names the option."""
    pos = GAME.new(2, 1, {"hand_size": "5", "slap_timeout_s": "3", "false_slap_penalty": "0"})
    assert GAME.position_json(pos)["options"] == {
        "hand_size": 5, "slap_timeout_s": 3, "false_slap_penalty": 0, "deck": "standard",
    }  # fmt: skip
    with pytest.raises(NotationError, match=r"^unknown option 'colour' \(known: deck, "):
        GAME.new(2, 1, {"colour": "red"})
    seven = r"^option hand_size: expected a whole number, got 'seven' \(RI-2.1\)$"
    with pytest.raises(NotationError, match=seven):
        GAME.new(2, 1, {"hand_size": "seven"})
    with pytest.raises(NotationError, match=r"^option slap_timeout_s: expected a whole number"):
        GAME.new(2, 1, {"slap_timeout_s": "0"})
    assert [spec.name for spec in GAME.options] == [
        "hand_size", "slap_timeout_s", "false_slap_penalty", "deck",
    ]  # fmt: skip
    assert [spec.default for spec in GAME.options] == [7, 8, 1, "standard"]


def test_views_hide_other_hands_and_carry_the_seats_legal_actions() -> None:
    """view(seat) shows that seat's hand and its own legal actions; the table view neither."""
    pos = make([["5C/>", "P/O"], ["3S/E", "!S/~"], ["2C/="]], ["4A/<", "7C/E"], ["6T/<"],
               to_move=1, demand={"phones": 2})
    mine = GAME.view(pos, 1)
    assert mine.hand == ("3S/E", "!S/~") and mine.legal == ("take",)
    assert mine.hand_counts == (2, 2, 1) and (mine.draw_count, mine.discard_count) == (2, 1)
    assert (mine.condition, mine.last_card, mine.phones, mine.demand) == ("<", "6T/<", 2, None)
    assert (mine.to_move, mine.window, mine.winner, mine.seats) == (1, None, None, 3)
    assert GAME.view(pos, 0).legal == () and GAME.view(pos, 0).hand == ("5C/>", "P/O")
    table = GAME.view(pos, None)
    assert table.hand == () and table.legal == () and table.seat is None
    assert table.false_slap_penalty == 1
    with pytest.raises(NotationError, match="seat 3 out of range"):
        GAME.view(pos, 3)
