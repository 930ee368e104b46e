"""Right on Time notation: card codes, action spellings, position JSON round trips, options
resolution and the view (docs/notation.md, docs/rules/right-on-time.md RT-1, RT-8, RT-10.2)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest
from right_on_time_helpers import GAME, position, run

from engine.core import NotationError
from engine.right_on_time import (
    BonusSwap,
    Draw,
    Effect,
    Lay,
    Play,
    RightOnTimeGame,
    RotCard,
    parse_action,
)
from engine.right_on_time.cards import HAND_CODES, PILE_CODES


def test_card_codes_round_trip() -> None:
    """Every hand and discard-pile code parses to a RotCard whose str is the code."""
    for code in sorted(HAND_CODES | PILE_CODES):
        assert str(RotCard.parse(code)) == code
    assert RotCard.parse("J") == RotCard("joker", None)
    with pytest.raises(NotationError, match="'J8' is not a Right on Time card code"):
        RotCard.parse("J8")


def test_action_values_and_text() -> None:
    """Actions are frozen values whose text is the notation's spelling."""
    assert parse_action("play 3 J=2") == Play((Lay("3"), Lay("J", 2)))
    assert parse_action("play Z3 2 @1") == Play((Lay("Z3"), Lay("2")), Effect("@", 1))
    assert parse_action("play D4 >2") == Play((Lay("D4"),), Effect(">", 2))
    assert parse_action("draw") == Draw()
    assert parse_action("bonus J 3") == BonusSwap("J", "3")
    assert str(Play((Lay("J", 7), Lay("N")), Effect(">", 0))) == "play J=7 N >0"
    assert hash(parse_action("play 6")) == hash(Play((Lay("6"),)))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("play J3", "'J3' is a discard-pile code; a Joker in an action is written J=<n>"),
        ("play J", "a Joker in an action is written J=<n>"),
        ("play J=8", "a Joker is declared 1..7"),
        ("play J=0 2", "a Joker is declared 1..7"),
        ("play  6", "expected single spaces"),
        (" play 6", "expected single spaces"),
        ("play 6 ", "expected single spaces"),
        ("play\t6", "expected single spaces"),
        ("play 6 >01", "bad effect seat '>01'"),
        ("play 6 >", "bad effect seat '>'"),
        ("play 6 <1", "effect suffixes are >s and @s"),
        ("play 1 2 3", "a play lays one or two cards"),
        ("play >1", "a play lays one or two cards"),
        ("play @1 6", "'@1' is not a card code"),
        ("play 8", "'8' is not a card code"),
        ("Draw", "expected 'play"),
        ("draw 1", "expected 'play"),
        ("bonus J4 3", "'J4' is a discard-pile code; a Joker in a bonus swap is written J"),
        ("bonus J", "expected 'play"),
        ("", "expected single spaces"),
    ],
)
def test_only_exact_spellings(text: str, message: str) -> None:
    """Any spelling other than the one legal prints is a NotationError naming the problem."""
    with pytest.raises(NotationError) as info:
        parse_action(text)
    assert message in str(info.value)


def test_legal_actions_round_trip_on_random_positions() -> None:
    """parse_action(str(a)) == a for every legal action met in seeded random matches."""
    rng = random.Random(11)
    seen = 0
    for seed in range(12):
        pos = GAME.new(2 + seed % 5, seed)
        while pos.winner is None:
            legal = GAME.legal(pos)
            for action in legal:
                assert GAME.parse_action(str(action)) == action
                seen += 1
            pos, _ = GAME.apply(pos, rng.choice(legal))
    assert seen > 5000


def test_position_json_round_trip_on_random_positions() -> None:
    """parse_position(position_json(p)) == p, through json text too, along seeded matches
    (with options that change what is written)."""
    rng = random.Random(3)
    options = [None, {"less_influence": True}, {"target_points": 2, "li_joker_seven": True}]
    for seed in range(9):
        pos = GAME.new(2 + seed % 5, seed, options[seed % 3], seed % 2)
        while True:
            text = json.dumps(GAME.position_json(pos))
            assert GAME.parse_position(json.loads(text)) == pos
            if pos.winner is not None:
                break
            pos, _ = GAME.apply(pos, rng.choice(GAME.legal(pos)))


def test_position_json_fields() -> None:
    """The JSON holds the common fields plus round, scores, out, bonus, winner and shown,
    every option resolved; `shown` may be left out (all empty)."""
    obj = GAME.position_json(GAME.new(2, 1))
    assert list(obj) == [
        "game",
        "seats",
        "options",
        "hands",
        "draw",
        "discard",
        "to_move",
        "seed",
        "round",
        "scores",
        "out",
        "bonus",
        "winner",
        "shown",
    ]
    assert obj["options"] == {
        "target_points": 3,
        "less_influence": False,
        "li_du_bist_left": False,
        "li_joker_seven": False,
        "li_higher_on_top": False,
    }
    del obj["shown"]
    assert GAME.parse_position(obj).shown == ((), ())


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("game", "riiing", "position field 'game': expected 'right-on-time'"),
        ("round", 0, "position field 'round': rounds count from 1"),
        ("seed", "x", "position field 'seed': expected an integer"),
        ("scores", [0, -1, 0], "position field 'scores[1]': expected victory points >= 0"),
        ("out", [1, 1], "position field 'out': a seat is listed twice"),
        ("winner", 1, "position field 'to_move': must be null once the match is won (RT-7.1)"),
        ("bonus", [["J2"], [], []], "position field 'bonus[0][0]': 'J2'"),
        ("extra", 1, "position field 'extra': unknown field"),
        ("options", {"target_points": "x"}, "position field 'options.target_points': expected"),
        ("options", {"target_points": 0}, "position field 'options': option target_points"),
        ("options", {"hand_size": 8}, "position field 'options': unknown option 'hand_size'"),
        ("options", {"li_joker_seven": 1}, "'options.li_joker_seven': expected true/false"),
        ("options", {"deck": "decks/mine.txt"}, "a position never names a file (RT-1.2)"),
    ],
)
def test_malformed_fields(field: str, value: object, message: str) -> None:
    """RT-10.2: each malformed field gives a NotationError naming it."""
    with pytest.raises(NotationError) as info:
        position(**{field: value})
    assert message in str(info.value)


def test_out_seat_to_move_and_two_out_are_malformed() -> None:
    """RT-6.1/RT-6.2: a seat out cannot be to move; two seats out end the round."""
    with pytest.raises(NotationError, match=r"'to_move': seat 0 is out of this round \(RT-6.1\)"):
        position(out=[0])
    with pytest.raises(NotationError, match=r"a second seat out ends the round \(RT-6.2\)"):
        position(out=[1, 2])
    with pytest.raises(NotationError, match="'hands': missing"):
        GAME.parse_position({"game": "right-on-time", "seats": 3})


def test_new_refuses_bad_arguments() -> None:
    """new names a bad seat count, first seat, seed or option in one line."""
    with pytest.raises(NotationError, match=r"first: seat 3 out of range 0..2 \(RT-2.3\)"):
        GAME.new(3, 1, None, 3)
    with pytest.raises(NotationError, match="unknown option 'speed'"):
        GAME.new(3, 1, {"speed": 2})
    with pytest.raises(NotationError, match="option less_influence: expected true/false"):
        GAME.new(3, 1, {"less_influence": "maybe"})


def test_options_from_strings_and_explicit_round_trip() -> None:
    """CLI strings are parsed; the resolved li_* parts survive the JSON round trip even
    when less_influence is later switched off in the JSON."""
    pos = GAME.new(3, 1, {"less_influence": "on", "li_du_bist_left": "off"})
    assert pos.options.li_joker_seven and not pos.options.li_du_bist_left
    obj = GAME.position_json(pos)
    obj["options"]["less_influence"] = False
    again = GAME.parse_position(obj)
    assert again.options.li_joker_seven and again.options.li_higher_on_top


def test_game_metadata() -> None:
    """The game is registered as right-on-time for 2..6 seats with its options and bots."""
    game = RightOnTimeGame()
    assert game.name == "right-on-time" and (game.min_seats, game.max_seats) == (2, 6)
    assert [o.name for o in game.options] == [
        "target_points",
        "less_influence",
        "li_du_bist_left",
        "li_joker_seven",
        "li_higher_on_top",
        "deck",
    ]
    assert sorted(game.bots) == ["hard", "heuristic", "random"]


# ------------------------------------------------------------------ view


def test_view_hides_private_cards() -> None:
    """view: only the seat's own hand and bonus cards; counts, shown cards, top and scores
    are public; legal only for the seat to move; the table view holds no hand."""
    pos = position(
        hands=[["2", "6"], ["1", "5"], ["4"]],
        draw=["3"],
        discard=["5", "J4"],
        bonus=[["N"], [], ["J", "7"]],
        shown=[[], [], ["4"]],
        scores=[1, 0, 2],
        round=3,
    )
    mine = GAME.view(pos, 0)
    assert mine.hand == ("2", "6") and mine.bonus == ("N",)
    assert mine.legal == tuple(str(a) for a in GAME.legal(pos))
    other = GAME.view(pos, 2)
    assert other.hand == ("4",) and other.bonus == ("J", "7") and other.legal == ()
    table = GAME.view(pos, None)
    assert table.hand == () and table.bonus == () and table.legal == ()
    for view in (mine, other, table):
        assert view.hand_counts == (2, 2, 1) and view.bonus_counts == (1, 0, 2)
        assert view.shown == ((), (), ("4",))
        assert (view.top, view.top_value, view.draw_count, view.discard_count) == ("J4", 4, 1, 2)
        assert (view.round, view.scores, view.target_points) == (3, (1, 0, 2), 3)
        assert view.to_move == 0 and view.winner is None and view.out == ()
        assert dict(view.options) == dict(pos.options.items())
        assert "deck" not in dict(view.options)
    with pytest.raises(NotationError, match="view: seat 3 out of range"):
        GAME.view(pos, 3)


def test_view_before_the_opening_lay() -> None:
    """view: top and top_value are None while the round's opening lay is to come."""
    view = GAME.view(GAME.new(3, 2), 0)
    assert view.top is None and view.top_value is None and len(view.legal) > 0


def test_events_have_text() -> None:
    """Events print as kind, seat, cards and value."""
    _, events = run(position(hands=[["J", "2"], ["1"], ["3"]], discard=["4"]), "play J=6")
    assert [str(e) for e in events] == ["play seat 0 J6 = 6"]


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Lay("J", 9), "a Joker is declared 1..7, got 9"),
        (lambda: Lay("J"), "a Joker is declared 1..7, got None"),
        (lambda: Lay("3", 2), "only a Joker is declared, not '3'"),
        (lambda: Lay("J4"), "'J4' is not a card code"),
        (lambda: Effect("<", 1), "kind is '>' or '@'"),
        (lambda: Effect(">", -1), "expected a seat number"),
        (lambda: Play(()), "one or two cards"),
        (lambda: BonusSwap("J2", "3"), "'J2' is not a hand card code"),
    ],
)
def test_action_values_are_valid_by_construction(build: Callable[[], object], message: str) -> None:
    """Actions built directly (not parsed) refuse invalid parts with a NotationError."""
    with pytest.raises(NotationError, match=message):
        build()


def test_apply_refuses_a_foreign_action() -> None:
    """apply refuses something that is not a Right on Time action with a NotationError."""
    with pytest.raises(NotationError, match="not a Right on Time action"):
        GAME.apply(GAME.new(3, 1), "play 6")  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["play 8", "play @1 6", "play 99"])
def test_a_code_that_is_no_card_cites_the_deck_rule(text: str) -> None:
    """A token that is no card of the deck names RT-1.1 (the cards), as Riiing!'s cite
    RI-1.1."""
    with pytest.raises(NotationError) as info:
        parse_action(text)
    assert info.value.rule == "RT-1.1"
