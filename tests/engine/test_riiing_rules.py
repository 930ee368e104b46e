"""Riiing! rule tests, one or more per rule id of docs/rules/riiing.md, written as positions and
actions in notation through the public API (``RiiingGame``)."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

import pytest
from riiing_helpers import GAME, card_counts, js, legal, make, refused, run

from engine.core import NotationError, shuffle
from engine.riiing import RiiingCard, default_deck
from engine.riiing.cards import CONDITIONS, satisfies
from engine.riiing.deck import parse_deck, read_deck_file

RULE_IDS = [
    *(f"RI-1.{i}" for i in range(1, 6)),
    *(f"RI-2.{i}" for i in range(1, 5)),
    *(f"RI-3.{i}" for i in range(1, 6)),
    "RI-4.1", "RI-4.2",
    *(f"RI-5.{i}" for i in range(1, 6)),
    *(f"RI-6.{i}" for i in range(1, 7)),
    "RI-7.1",
    *(f"RI-8.{i}" for i in range(1, 6)),
    "RI-9",
]  # fmt: skip

TRIPLES = {
    "{1,4,7}", "{2,5,8}", "{3,6,9}", "{1,5,9}", "{3,5,7}", "{2,4,6}",
    "{4,6,8}", "{1,2,3}", "{7,8,9}", "{1,6,8}", "{2,7,9}", "{3,4,5}",
}  # fmt: skip


def test_every_rule_id_has_a_test() -> None:
    """Every rule id of docs/rules/riiing.md is named in some test docstring of this module."""
    module = sys.modules[__name__]
    docs = " ".join(
        getattr(module, name).__doc__ or "" for name in dir(module) if name.startswith("test_")
    )
    named = set(re.findall(r"RI-\d(?:\.\d)?", docs))
    assert [rule for rule in RULE_IDS if rule not in named] == []


# RI-1 cards -----------------------------------------------------------------------------


def test_ri_1_1_card_codes_read_and_refused() -> None:
    """RI-1.1: fronts are number/demand/Phone, backs conditions or reverses; bad codes fail."""
    assert [RiiingCard.parse(c).kind for c in ("9T/O", "!S/~", "P/{2,5,8}")] == [
        "number", "demand", "phone",
    ]  # fmt: skip
    assert RiiingCard.parse("3S/*C").reverse == "C"
    for bad in ("0C/>", "10C/>", "7X/>", "7C", "7C/", "7C/>>", "!P/E", "P/{3,2}", "P/{1, 2}",
                "P/{}", "7C/*P", "7c/>", "P/{1,1}"):
        with pytest.raises(NotationError, match=r"\(RI-1\.1\)"):
            RiiingCard.parse(bad)


def test_ri_1_2_deck_fronts() -> None:
    """RI-1.2: 72 number cards (each symbol x 1-9, twice), 16 demand cards, 8 Phones."""
    fronts = Counter(card.front for card in default_deck())
    assert len(default_deck()) == 96
    assert {f"{n}{s}": 2 for s in "ASCT" for n in range(1, 10)} == {
        front: k for front, k in fronts.items() if front[0].isdigit()
    }
    assert [fronts[f"!{s}"] for s in "ASCT"] == [4, 4, 4, 4]
    assert fronts["P"] == 8


def test_ri_1_3_deck_backs() -> None:
    """RI-1.3: one reverse per symbol and 18 >, 18 <, 10 =, 14 ~, 10 E, 10 O, 12 triples."""
    backs = Counter(card.back for card in default_deck())
    assert [backs[f"*{s}"] for s in "ASCT"] == [1, 1, 1, 1]
    assert [backs[c] for c in CONDITIONS] == [18, 18, 10, 14, 10, 10]
    assert {back for back in backs if back.startswith("{")} == TRIPLES
    assert all(backs[t] == 1 for t in TRIPLES)


def test_ri_1_4_pairing_is_spread_and_fixed() -> None:
    """RI-1.4: each number meets 6+ kinds of back, each symbol all 7; codes unique;
    a demand card's symbol is its own; demand cards and Phones have no number."""
    deck = default_deck()

    def kind(card: RiiingCard) -> str:
        return "{" if card.back.startswith("{") else card.back

    kinds = {*CONDITIONS, "{"}
    for n in range(1, 10):
        assert len(kinds & {kind(c) for c in deck if c.number == n}) >= 6, n
    for s in "ASCT":
        met = Counter(kind(c) for c in deck if c.symbol == s and not c.reverse)
        assert set(met) == kinds and min(met.values()) >= 2, s
        assert len({kind(c) for c in deck if c.front == f"!{s}"}) == 4
    assert len({str(c) for c in deck}) == 96
    assert all(c.reverse != c.symbol for c in deck if c.reverse)
    assert RiiingCard.parse("!T/E").symbol == "T" and RiiingCard.parse("!T/E").number is None
    assert RiiingCard.parse("P/E").symbol is None and RiiingCard.parse("P/E").number is None
    assert GAME.new(2, 5).hands == GAME.new(2, 5).hands


def test_ri_1_5_deck_file_checked_and_option_deck(tmp_path: Path) -> None:
    """RI-1.5: a builder's deck file is read and checked (``--deck-file``); its cards go
    inline in option deck; the option never names a file."""
    codes = [f"{n}{s}/{b}" for s in "ASCT" for n in range(1, 10) for b in ("E", "O")][:40]
    deck = tmp_path / "deck.txt"
    deck.write_text("# a smaller printing\n" + "\n".join(codes) + "\n", encoding="utf-8")
    assert [str(card) for card in read_deck_file(str(deck))] == codes
    pos = GAME.new(2, 3, {"deck": " ".join(codes), "hand_size": "5"})
    assert card_counts(pos) == Counter(codes)
    assert js(pos)["options"]["deck"] == codes
    assert js(GAME.new(2, 3))["options"]["deck"] == "standard"
    (tmp_path / "bad.txt").write_text("7C/>\n7C/Q\n", encoding="utf-8")
    with pytest.raises(NotationError, match=r"^deck .*bad.txt' line 2: .*\(RI-1\.5\)$"):
        read_deck_file(str(tmp_path / "bad.txt"))
    with pytest.raises(NotationError, match=r"^--deck-file .*nope.txt'?: cannot read"):
        read_deck_file(str(tmp_path / "nope.txt"))
    with pytest.raises(NotationError, match=r"^option deck: .* is no bundled deck .*\(RI-1\.5\)$"):
        GAME.new(2, 3, {"deck": str(deck)})
    with pytest.raises(NotationError, match="holds no card"):
        parse_deck("# nothing\n\n", "empty.txt")


# RI-2 setup -----------------------------------------------------------------------------


def test_ri_2_1_deal_one_at_a_time_clockwise_from_seat_0() -> None:
    """RI-2.1: the seeded shuffle of the deck is dealt one card at a time from seat 0."""
    shuffled, next_seed = shuffle([str(c) for c in default_deck()], 2024)
    pos = GAME.new(3, 2024, {"hand_size": "4"}, first=2)
    assert js(pos)["hands"] == [shuffled[0:12:3], shuffled[1:12:3], shuffled[2:12:3]]
    assert js(pos)["draw"] == shuffled[13:]
    assert pos.seed == next_seed


def test_ri_2_1_options_needing_more_cards_than_the_deck_are_refused() -> None:
    """RI-2.1: seats x hand_size + 2 over the deck size is one line naming hand_size."""
    GAME.new(6, 1, {"hand_size": "15"})  # 92 cards: fits
    with pytest.raises(NotationError) as info:
        GAME.new(6, 1, {"hand_size": "16"})
    assert str(info.value) == (
        "option hand_size: 6 seats x 16 cards + 2 needs 98 cards, the deck holds 96 (RI-2.1)"
    )
    with pytest.raises(NotationError, match="option hand_size"):
        GAME.new(2, 1, {"hand_size": "0"})


def test_ri_2_2_first_discard_has_no_effect() -> None:
    """RI-2.2: the turned card is the first discard; a demand card or Phone demands nothing."""
    seeds = [s for s in range(400) if GAME.new(2, s).discard[0].kind != "number"]
    assert seeds
    for seed in seeds[:5]:
        pos = GAME.new(2, seed)
        assert pos.demand is None and len(pos.discard) == 1
        assert "take" not in legal(pos)


def test_ri_2_3_first_seat_opens() -> None:
    """RI-2.3: the engine takes ``first`` (default 0); out of range is refused."""
    assert GAME.new(4, 9).to_move == 0
    assert GAME.new(4, 9, first=3).to_move == 3
    with pytest.raises(NotationError, match=r"first: seat 4 out of range 0\.\.3 \(RI-2\.3\)"):
        GAME.new(4, 9, first=4)


def test_ri_2_4_two_to_six_seats() -> None:
    """RI-2.4: 2 to 6 seats; 1 and 7 are refused by new and by parse_position."""
    for seats in range(2, 7):
        assert len(GAME.new(seats, 1).hands) == seats
    for seats in (1, 7):
        with pytest.raises(NotationError, match=r"seats.*\(RI-2\.4\)"):
            GAME.new(seats, 1)
    with pytest.raises(NotationError, match=r"'seats'.*\(RI-2\.4\)"):
        make([["1A/E"]], ["2A/E"], ["3A/E"])


# RI-3 the condition ---------------------------------------------------------------------


def test_ri_3_1_condition_is_the_back_of_the_draw_top() -> None:
    """RI-3.1: the top draw card's back is the public condition for the seat to move."""
    hand = [["2C/E", "8A/E", "9T/<"], ["1S/O"]]
    assert legal(make(hand, ["1C/>", "4C/<"], ["5S/O"])) == ["play 8A/E", "play 9T/<"]
    assert legal(make(hand, ["4C/<", "1C/>"], ["5S/O"])) == ["play 2C/E"]
    assert GAME.view(make(hand, ["4C/<"], ["5S/O"]), None).condition == "<"


@pytest.mark.parametrize(
    ("hand", "condition", "playable"),
    [
        (["2C/E", "8A/E", "9T/<"], ">", ["8A/E", "9T/<"]),
        (["2C/E", "8A/E", "9T/<"], "<", ["2C/E"]),
        (["5C/E", "8A/E", "5T/<"], "=", ["5C/E", "5T/<"]),
        (["2S/E", "8A/E", "9S/<"], "~", ["2S/E", "9S/<"]),
        (["2C/E", "7A/E", "4T/<"], "E", ["2C/E", "4T/<"]),
        (["2C/E", "7A/E", "4T/<"], "O", ["7A/E"]),
        (["2C/E", "7A/E", "4T/<"], "{1,4,7}", ["4T/<", "7A/E"]),
    ],
)
def test_ri_3_2_each_condition(hand: list[str], condition: str, playable: list[str]) -> None:
    """RI-3.2: > < = ~ compare with the last card (5S), E O one-of only the card played."""
    pos = make([hand, ["1S/O"]], [f"1C/{condition}"], ["5S/O"])
    assert legal(pos) == [f"play {code}" for code in playable]


def test_ri_3_2_refusal_names_the_condition() -> None:
    """RI-3.2: playing a card that misses the condition is refused with the exact line."""
    pos = make([["1S/O"], ["7C/>", "9C/<"]], ["2A/>"], ["8S/E"], to_move=1)
    assert refused(pos, "play 7C/>", "RI-3.2") == (
        "seat 1 cannot play 7C/>: needs a card higher than 8 (RI-3.2)"
    )
    pos = make([["1S/O"], ["7C/>", "9C/<"]], ["2A/{1,4,8}"], ["8S/E"], to_move=1)
    assert refused(pos, "play 9C/<", "RI-3.2").endswith("needs one of 1, 4, 8 (RI-3.2)")


def test_ri_3_3_no_number_never_meets_a_number_condition() -> None:
    """RI-3.3: demand cards and Phones miss > < = E O one-of and Phones miss ~, yet play."""
    last = RiiingCard.parse("5S/O")
    for code in ("!A/E", "P/O"):
        card = RiiingCard.parse(code)
        assert not any(satisfies(card, last, c) for c in (">", "<", "=", "E", "O", "{1,5,9}"))
    assert not satisfies(RiiingCard.parse("P/O"), last, "~")
    assert satisfies(RiiingCard.parse("!S/O"), last, "~")
    pos = make([["!A/E", "P/O", "2C/E"], ["1S/O"]], ["1C/>"], ["5S/O"])
    assert legal(pos) == ["play !A/E", "play P/O"]


def test_ri_3_4_last_card_without_number_opens_conditions() -> None:
    """RI-3.4: after a demand card or Phone, > < = are open; after a Phone ~ is open too."""
    hand = [["1C/E", "9A/E"], ["1S/O"]]
    for condition in (">", "<", "="):
        assert legal(make(hand, [f"3C/{condition}"], ["!S/E"])) == ["play 1C/E", "play 9A/E"]
    assert legal(make(hand, ["3C/~"], ["P/E"])) == ["play 1C/E", "play 9A/E"]
    assert legal(make([["1C/E", "9S/E"], ["1S/O"]], ["3C/~"], ["!S/E"])) == ["play 9S/E"]


def test_ri_3_5_empty_draw_pile_opens_every_condition() -> None:
    """RI-3.5: with no draw pile and nothing to refill, every card is playable."""
    pos = make([["1C/E", "9A/E", "4T/O"], ["1S/O"]], [], ["5S/O"])
    assert legal(pos) == ["play 1C/E", "play 4T/O", "play 9A/E"]
    assert GAME.view(pos, 0).condition is None


# RI-4 a turn ----------------------------------------------------------------------------


def test_ri_4_1_play_then_the_turn_passes_left() -> None:
    """RI-4.1: the card goes on the discard pile and the seat to the left moves (wrapping)."""
    pos = make([["1S/O"], ["2S/O"], ["8A/E", "9T/<"]], ["1C/>", "2C/<"], ["5S/O"], to_move=2)
    after, events = run(pos, "play 9T/<")
    assert js(after)["discard"] == ["5S/O", "9T/<"] and after.to_move == 0
    assert js(after)["hands"][2] == ["8A/E"]
    assert events == ["play seat 2 9T/<"]


def test_ri_4_2_draw_only_without_a_playable_card() -> None:
    """RI-4.2: only with nothing playable: draw one card to the end of the hand, not played."""
    pos = make([["6C/E", "7A/O"], ["1S/O"]], ["9C/<", "4C/="], ["5S/O"])
    assert legal(pos) == ["draw"]
    after, events = run(pos, "draw")
    assert js(after)["hands"][0] == ["6C/E", "7A/O", "9C/<"]
    assert js(after)["discard"] == ["5S/O"] and after.to_move == 1
    assert events == ["draw seat 0 9C/<"]
    playable = make([["2C/E", "P/O"], ["1S/O"]], ["9C/>"], ["5S/O"])
    assert legal(playable) == ["play P/O"]
    assert refused(playable, "draw", "RI-4.2") == "seat 0 cannot draw: it can play P/O (RI-4.2)"


# RI-5 special cards ---------------------------------------------------------------------


def test_ri_5_1_specials_play_regardless_but_not_under_a_pending_demand() -> None:
    """RI-5.1: demand cards and Phones play on any condition, not under a demand/chain."""
    pos = make([["!A/E", "P/O", "9C/E"], ["1S/O"]], ["1C/{1,2,3}"], ["5S/O"])
    assert legal(pos) == ["play !A/E", "play P/O"]
    under = make([["!A/E", "P/O", "9T/E"], ["1S/O"]], ["1C/>"], ["5S/O"], demand={"symbol": "T"})
    assert legal(under) == ["play 9T/E"]
    refused(under, "play P/O", "RI-5.3")
    chain = make([["!A/E", "P/O"], ["1S/O"]], ["1C/>"], ["P/E"], demand={"phones": 1})
    refused(chain, "play !A/E", "RI-5.4")


def test_ri_5_2_a_demand_card_puts_the_next_seat_under_demand() -> None:
    """RI-5.2: after !X the next seat is under demand X."""
    pos = make([["!T/E", "9C/E"], ["1S/O"], ["2S/O"]], ["1C/>"], ["5S/O"])
    after, events = run(pos, "play !T/E")
    assert js(after)["demand"] == {"symbol": "T"} and after.to_move == 1
    assert events == ["play seat 0 !T/E", "demand seat 1 = T"]


def test_ri_5_3_demand_must_be_met_condition_ignored() -> None:
    """RI-5.3: under demand T only toast cards play (condition ignored); refusals say so."""
    pos = make([["1S/O"], ["2T/E", "!T/<", "9C/E", "P/O"]], ["1C/>"], ["8S/E"], to_move=1,
               demand={"symbol": "T"})
    assert legal(pos) == ["play !T/<", "play 2T/E"]
    assert refused(pos, "play 9C/E", "RI-5.3") == (
        "seat 1 cannot play 9C/E: under demand T it must play a toast card (RI-5.3)"
    )
    assert refused(pos, "draw", "RI-5.3") == (
        "seat 1 cannot draw: it holds 2T/E for demand T (RI-5.3)"
    )
    cleared, _ = run(pos, "play 2T/E")
    assert cleared.demand is None
    passed, events = run(pos, "play !T/<")
    assert js(passed)["demand"] == {"symbol": "T"} and passed.to_move == 0
    assert events[-1] == "demand seat 0 = T"


def test_ri_5_3_draw_until_the_symbol_arrives_across_a_refill() -> None:
    """RI-5.3: draw one at a time (refilling, RI-8.1) until a toast arrives; play it."""
    pos = make([["4S/O", "9C/>"], ["1S/O"]], ["3C/~"], ["6T/<", "5A/>", "!T/E"], seed=77,
               demand={"symbol": "T"})
    refill, seed = shuffle(["6T/<", "5A/>"], 77)
    after, events = run(pos, "draw")
    kept = refill[: refill.index("6T/<")]
    assert js(after)["hands"][0] == ["4S/O", "9C/>", "3C/~", *kept]
    assert js(after)["discard"][-1] == "6T/<" and after.demand is None
    assert events[:2] == ["draw seat 0 3C/~", f"shuffle = {seed}"]
    assert "play seat 0 6T/<" in events


def test_ri_5_3_demand_lapses_when_the_piles_run_dry() -> None:
    """RI-5.3: with no toast left to draw the demand lapses and the turn passes."""
    pos = make([["4S/O"], ["2C/="]], ["3C/~"], ["!T/E"], demand={"symbol": "T"})
    after, events = run(pos, "draw")
    assert js(after)["hands"][0] == ["4S/O", "3C/~"]
    assert after.demand is None and after.to_move == 1 and js(after)["draw"] == []
    assert events == ["draw seat 0 3C/~", "lapse seat 0 = T"]


def test_ri_5_3_draw_until_stops_where_a_reverse_shows() -> None:
    """RI-5.3, RI-6.1: after a drawn card that is not toast the top shows a reverse: the
    drawing stops, the seat keeps what it drew, the demand lapses, the turn passes left and
    the window opens; the timeout then turns the reverse, with no demand left to cancel."""
    pos = make([["4S/O"], ["2C/="], ["1A/O"]], ["3C/~", "8A/E", "4A/*S", "6T/<"], ["!T/E"],
               demand={"symbol": "T"})
    after, events = run(pos, "draw")
    out = js(after)
    assert out["hands"][0] == ["4S/O", "3C/~", "8A/E"]
    assert out["draw"] == ["4A/*S", "6T/<"] and out["discard"] == ["!T/E"]
    assert (out["demand"], out["window"], out["to_move"]) == (None, "S", 1)
    assert events == ["draw seat 0 3C/~ 8A/E", "lapse seat 0 = T", "window = S"]
    assert legal(after) == ["slap 0", "slap 1", "slap 2", "timeout"]
    timed_out, events = run(after, "timeout")
    assert js(timed_out)["discard"] == ["!T/E", "4A/*S"] and js(timed_out)["draw"] == ["6T/<"]
    assert timed_out.to_move == 1 and timed_out.demand is None
    assert events == ["timeout = S", "flip 4A/*S"]


def test_ri_5_3_a_reverse_shows_its_back_whatever_its_front() -> None:
    """RI-5.3, RI-6.1: the table sees the back: a reverse whose hidden front is of the
    demanded symbol (4A/*S under demand A) stops the drawing all the same."""
    pos = make([["4S/O"], ["2C/="]], ["3C/~", "4A/*S", "6A/<"], ["!A/E"],
               demand={"symbol": "A"})
    after, events = run(pos, "draw")
    assert js(after)["hands"][0] == ["4S/O", "3C/~"] and after.window == "S"
    assert events == ["draw seat 0 3C/~", "lapse seat 0 = A", "window = S"]


def test_ri_5_3_the_demanded_symbol_arrives_before_any_reverse_shows() -> None:
    """RI-5.3: the toast arrives first and is played; the reverse under it appears only at
    the end of the action (RI-6.1), as before; a demand card passed on is suspended."""
    pos = make([["4S/O"], ["2C/="]], ["3C/~", "6T/<", "4A/*S", "9C/E"], ["!T/E"],
               demand={"symbol": "T"})
    after, events = run(pos, "draw")
    out = js(after)
    assert out["hands"][0] == ["4S/O", "3C/~"] and out["discard"] == ["!T/E", "6T/<"]
    assert (out["demand"], out["window"], out["to_move"]) == (None, "S", 1)
    assert events == ["draw seat 0 3C/~", "play seat 0 6T/<", "window = S"]
    passed = make([["4S/O"], ["2C/="]], ["3C/~", "!T/O", "4A/*S", "9C/E"], ["!T/E"],
                  demand={"symbol": "T"})
    after, events = run(passed, "draw")
    assert js(after)["demand"] == {"symbol": "T"} and after.window == "S"
    assert events == ["draw seat 0 3C/~", "play seat 0 !T/O", "demand seat 1 = T", "window = S"]
    slapped, events = run(after, "slap 0")
    assert slapped.demand is None and events == ["slap seat 0 4S/O = S", "flip 4A/*S", "cancel = T"]


def seed_putting_on_top(cards: list[str], top: str) -> int:
    """The first seed whose shuffle (the RNG protocol) of ``cards`` puts ``top`` first."""
    return next(seed for seed in range(1000) if shuffle(cards, seed)[0][0] == top)


def test_ri_5_3_a_refill_in_the_draw_until_puts_a_reverse_on_top() -> None:
    """RI-5.3, RI-8.1, RI-6.1: the pile runs out after a card that is not toast; the refill
    puts a reverse on top: the drawing stops there and the window opens.  With another
    refill order the drawing goes on until the reverse shows."""
    rest = ["8S/E", "4A/*S", "5A/>"]
    seed = seed_putting_on_top(rest, "4A/*S")
    pos = make([["4S/O"], ["2C/="]], ["3C/~"], [*rest, "!T/E"], seed=seed,
               demand={"symbol": "T"})
    refill, next_seed = shuffle(rest, seed)
    after, events = run(pos, "draw")
    out = js(after)
    assert out["hands"][0] == ["4S/O", "3C/~"] and out["draw"] == refill
    assert out["discard"] == ["!T/E"] and out["seed"] == next_seed
    assert (out["demand"], out["window"], out["to_move"]) == (None, "S", 1)
    assert events == [
        "draw seat 0 3C/~", f"shuffle = {next_seed}", "lapse seat 0 = T", "window = S",
    ]  # fmt: skip
    seed = seed_putting_on_top(rest, "8S/E")
    refill, next_seed = shuffle(rest, seed)
    after, events = run(GAME.parse_position({**js(pos), "seed": seed}), "draw")
    kept = refill[: refill.index("4A/*S")]
    assert js(after)["hands"][0] == ["4S/O", "3C/~", *kept] and after.window == "S"
    assert events == [
        "draw seat 0 3C/~", f"shuffle = {next_seed}", f"draw seat 0 {' '.join(kept)}",
        "lapse seat 0 = T", "window = S",
    ]  # fmt: skip


def test_ri_5_4_phone_chain_grows_or_takes_and_flips() -> None:
    """RI-5.4: answer with a Phone (chain k+1) or take k cards, flip the next, pass left."""
    pos = make([["P/O", "9C/E"], ["P/E", "3S/<"]], ["1C/>", "2A/E", "4T/O"], ["5S/O"])
    one, events = run(pos, "play P/O")
    assert js(one)["demand"] == {"phones": 1} and events[-1] == "chain seat 1 = 1"
    assert legal(one) == ["play P/E", "take"]
    two, _ = run(one, "play P/E")
    assert js(two)["demand"] == {"phones": 2} and legal(two) == ["take"]
    taken, events = run(two, "take")
    assert js(taken)["hands"][0] == ["9C/E", "1C/>", "2A/E"]
    assert js(taken)["discard"][-1] == "4T/O" and taken.demand is None and taken.to_move == 1
    assert events == ["take seat 0 1C/> 2A/E = 2", "flip 4T/O", "shuffle = " + str(taken.seed)]


def test_ri_5_4_take_is_allowed_with_a_phone_and_takes_what_there_is() -> None:
    """RI-5.4: take with a Phone in hand; fewer cards than the chain: take what is left."""
    pos = make([["P/O", "9C/E"], ["1S/O"]], ["1C/>"], ["P/E"], demand={"phones": 3})
    after, events = run(pos, "take")
    assert js(after)["hands"][0] == ["P/O", "9C/E", "1C/>"]
    assert js(after)["discard"] == ["P/E"] and after.to_move == 1
    assert events == ["take seat 0 1C/> = 3"]
    refused(make([["P/O"], ["1S/O"]], ["1C/>"], ["5S/E"]), "take", "RI-5.4")


def test_ri_5_4_a_reverse_after_a_take_is_not_turned_it_appears() -> None:
    """RI-5.4, RI-6.1: the next draw-pile card after a take is a reverse: it is not turned,
    the window opens (the chain is answered: demand null, turn passed left); the slap's or
    the timeout's resolution turns it onto the discard pile."""
    pos = make([["P/O", "9C/E"], ["1S/O", "3C/E"], ["2A/E"]], ["1C/>", "4A/*S", "7C/E"],
               ["P/E"], demand={"phones": 1})
    after, events = run(pos, "take")
    out = js(after)
    assert out["hands"][0] == ["P/O", "9C/E", "1C/>"]
    assert out["draw"] == ["4A/*S", "7C/E"] and out["discard"] == ["P/E"]
    assert (out["demand"], out["window"], out["to_move"]) == (None, "S", 1)
    assert events == ["take seat 0 1C/> = 1", "window = S"]
    slapped, events = run(after, "slap 1")
    out = js(slapped)
    assert out["discard"] == ["P/E", "1S/O", "4A/*S"] and out["draw"] == ["7C/E"]
    assert out["hands"][1] == ["3C/E"] and out["to_move"] == 2 and out["window"] is None
    assert events == ["slap seat 1 1S/O = S", "flip 4A/*S"]
    timed_out, events = run(after, "timeout")
    assert js(timed_out)["discard"] == ["P/E", "4A/*S"] and timed_out.to_move == 1
    assert events == ["timeout = S", "flip 4A/*S"]


def test_ri_5_4_a_refill_before_the_flip_puts_a_reverse_on_top() -> None:
    """RI-5.4, RI-8.1: the take empties the pile; the refill before the flip puts a reverse
    on top: it is not turned, it appears."""
    rest = ["5S/O", "4A/*S", "8C/<"]
    seed = seed_putting_on_top(rest, "4A/*S")
    pos = make([["P/O", "9C/E"], ["1S/O"]], ["1C/>"], [*rest, "P/E"], seed=seed,
               demand={"phones": 1})
    refill, next_seed = shuffle(rest, seed)
    after, events = run(pos, "take")
    assert js(after)["draw"] == refill and js(after)["discard"] == ["P/E"]
    assert after.window == "S" and after.to_move == 1 and after.seed == next_seed
    assert events == ["take seat 0 1C/> = 1", f"shuffle = {next_seed}", "window = S"]


def test_ri_5_5_demand_field_is_authoritative() -> None:
    """RI-5.5: a demand card or Phone on top with demand null demands nothing."""
    for top in ("!T/E", "P/E"):
        pos = make([["8C/E", "1A/O"], ["1S/O"]], ["1C/O"], [top])
        assert legal(pos) == ["play 1A/O"]


# RI-6 RIIING! ---------------------------------------------------------------------------


def test_ri_6_1_a_reverse_on_top_after_an_action_opens_a_window() -> None:
    """RI-6.1: a reverse that ends up on top of the draw pile appears: a window opens."""
    pos = make([["6C/E"], ["1S/O"]], ["9C/<", "4A/*S", "8T/E"], ["5S/O"])
    after, events = run(pos, "draw")
    assert after.window == "S" and events[-1] == "window = S"
    assert legal(after) == ["slap 0", "slap 1", "timeout"]


def test_ri_6_1_a_take_passes_a_reverse_inside_it_unseen() -> None:
    """RI-6.1, RI-5.4: a reverse taken inside a take of several cards never shows; the card
    after the take is turned, and only the top after the action counts."""
    pos = make([["P/O", "9C/E"], ["1S/O"]], ["1C/>", "4A/*S", "7C/E", "8T/O"], ["P/E"],
               demand={"phones": 2})
    after, events = run(pos, "take")
    assert js(after)["hands"][0] == ["P/O", "9C/E", "1C/>", "4A/*S"]
    assert js(after)["discard"] == ["P/E", "7C/E"] and js(after)["draw"] == ["8T/O"]
    assert after.window is None and after.demand is None and after.to_move == 1
    assert events == ["take seat 0 1C/> 4A/*S = 2", "flip 7C/E"]


def test_ri_6_1_a_false_slap_penalty_draws_through_a_reverse_unseen() -> None:
    """RI-6.1, RI-6.5: a penalty of several cards draws a reverse inside it: no window; a
    reverse left on top after the penalty appears (end of the action)."""
    two = make([["1S/O"], ["3S/E"], ["2C/="]], ["7C/E", "4A/*S", "9C/E"], ["5T/<"],
               to_move=2, options={"false_slap_penalty": 2}, demand={"symbol": "A"})
    after, events = run(two, "falseslap 1")
    assert js(after)["hands"][1] == ["3S/E", "7C/E", "4A/*S"] and js(after)["draw"] == ["9C/E"]
    assert after.window is None and js(after)["demand"] == {"symbol": "A"}
    assert after.to_move == 2 and events == ["falseslap seat 1 7C/E 4A/*S"]
    one = make([["1S/O"], ["3S/E"]], ["7C/E", "4A/*S", "9C/E"], ["5T/<"])
    shown, events = run(one, "falseslap 1")
    assert shown.window == "S" and events == ["falseslap seat 1 7C/E", "window = S"]


def test_ri_6_1_a_reverse_after_setup_opens_a_window() -> None:
    """RI-6.1: new() with a reverse on top of the draw pile starts with its window open."""
    seed = next(s for s in range(5000) if GAME.new(2, s).draw[0].reverse)
    pos = GAME.new(2, seed)
    assert pos.window == pos.draw[0].reverse is not None
    assert legal(pos) == ["slap 0", "slap 1", "timeout"]


def test_ri_6_2_window_allows_only_slaps_and_timeout() -> None:
    """RI-6.2: during a window only slap s and timeout; a pending demand is suspended."""
    pos = make([["5C/>", "1S/O"], ["3S/E"]], ["4A/*S"], ["5T/<"], window="S",
               demand={"symbol": "C"})
    assert legal(pos) == ["slap 0", "slap 1", "timeout"]
    assert refused(pos, "play 5C/>", "RI-6.2") == (
        "seat 0 cannot play 5C/>: a RIIING! window is open, only slap <s> and timeout are "
        "legal (RI-6.2)"
    )
    refused(pos, "draw", "RI-6.2")
    refused(pos, "falseslap 1", "RI-6.2")
    refused(pos, "slap 2", "RI-2.4")
    assert GAME.view(pos, 1).legal == ("slap 1",) and GAME.view(pos, None).legal == ()
    closed = make([["5C/>"], ["3S/E"]], ["4A/>"], ["5T/<"])
    refused(closed, "slap 0", "RI-6.2")


def test_ri_6_3_slap_discards_the_symbol_and_passes_left_of_the_slapper() -> None:
    """RI-6.3: worked example 2: 9S/O then the reverse go down; seat 0 (left of 3) moves."""
    pos = make([["5C/>", "1S/O"], ["3S/E", "!S/~", "8A/<"], ["2C/="], ["6T/>", "9S/O"]],
               ["4A/*S", "7C/E"], ["5T/<"], to_move=1, window="S")
    assert legal(pos) == ["slap 0", "slap 1", "slap 2", "slap 3", "timeout"]
    after, events = run(pos, "slap 3")
    out = js(after)
    assert out["hands"][3] == ["6T/>"] and out["discard"] == ["5T/<", "9S/O", "4A/*S"]
    assert out["draw"] == ["7C/E"] and out["window"] is None and out["to_move"] == 0
    assert out["seed"] == 1
    assert events == ["slap seat 3 9S/O = S", "flip 4A/*S"]


def test_ri_6_3_slap_discards_demand_cards_and_cancels_a_chain() -> None:
    """RI-6.3: demand cards of the symbol go too, in hand order; a pending chain ends."""
    pos = make([["!S/E", "2C/=", "3S/<"], ["1T/O"]], ["4A/*S", "7C/E"], ["P/<"],
               to_move=1, window="S", demand={"phones": 2})
    after, events = run(pos, "slap 0")
    assert js(after)["hands"][0] == ["2C/="]
    assert js(after)["discard"] == ["P/<", "!S/E", "3S/<", "4A/*S"]
    assert after.demand is None and after.to_move == 1
    assert events == ["slap seat 0 !S/E 3S/< = S", "flip 4A/*S", "cancel = 2"]
    empty_handed, _ = run(pos, "slap 1")
    assert js(empty_handed)["hands"][1] == ["1T/O"] and empty_handed.to_move == 0


def test_ri_6_3_a_window_at_setup_keeps_the_turn_with_the_seat_that_starts() -> None:
    """RI-6.3: a slap in a window before any turn action resolves as usual, but the turn
    stays with ``to_move`` (the wake-up race's winner); so does a window right after it
    (RI-6.6), a timeout there (RI-6.4) and a false slap; the first turn action ends it."""
    seed = next(s for s in range(5000) if GAME.new(3, s).draw[0].reverse)
    pos = GAME.new(3, seed, first=2)
    assert pos.opening and js(pos)["opening"] is True and pos.to_move == 2
    after, _ = run(pos, "slap 0")
    assert after.to_move == 2 and after.window is None and after.opening
    kept = [str(card) for card in pos.hands[0] if card.symbol != pos.window]
    assert js(after)["hands"][0] == kept
    timed_out, _ = run(pos, "timeout")
    assert timed_out.to_move == 2 and timed_out.opening
    chained = make([["1S/O", "2C/E"], ["3T/E"], ["5A/O"]], ["4A/*S", "7S/*C", "1C/E"],
                   ["5T/<"], to_move=1, window="S", opening=True)
    twice, _ = run(chained, "slap 0", "slap 2")
    assert twice.window is None and twice.to_move == 1 and twice.opening
    played, _ = run(twice, str(GAME.legal(twice)[0]))
    assert not played.opening and "opening" not in js(played)
    # a slap after the opening passes left of the slapper again
    later = make([["1S/O", "2C/E"], ["3T/E"], ["5A/O"]], ["4A/*S", "1C/E"], ["5T/<"],
                 to_move=1, window="S")
    assert run(later, "slap 0")[0].to_move == 1 and run(later, "slap 2")[0].to_move == 0
    won = make([["1S/O"], ["3T/E"]], ["4A/*S", "1C/E"], ["5T/<"], window="S", opening=True)
    assert run(won, "slap 0")[0].winner == 0 and "opening" not in js(run(won, "slap 0")[0])


@pytest.mark.parametrize("value", [False, None, 1, "true", [True]])
def test_ri_6_3_opening_is_true_or_absent(value: object) -> None:
    """RI-6.3 (notation): ``opening`` is written only as ``true``; anything else is refused
    with one line naming the field, and so is ``true`` beside a winner (RI-7.1)."""
    with pytest.raises(NotationError, match="opening"):
        make([["1S/O"], ["3T/E"]], ["1C/E"], ["5T/<"], opening=value)
    with pytest.raises(NotationError, match="opening"):
        make([[], ["3T/E"]], ["1C/E"], ["5T/<"], to_move=None, winner=0, opening=True)
    pos = make([["1S/O"], ["3T/E"]], ["1C/E"], ["5T/<"], opening=True)
    assert GAME.parse_position(js(pos)) == pos


def test_ri_6_4_timeout_turns_the_reverse_and_the_seat_to_move_moves() -> None:
    """RI-6.4: timeout: the reverse goes onto the discard pile, demand cancelled, same seat."""
    pos = make([["1S/O"], ["3S/E"], ["2C/="]], ["4A/*S", "7C/E"], ["5T/<"], to_move=2,
               window="S", demand={"symbol": "A"})
    after, events = run(pos, "timeout")
    assert js(after)["discard"] == ["5T/<", "4A/*S"] and after.to_move == 2
    assert after.demand is None and after.window is None
    assert events == ["timeout = S", "flip 4A/*S", "cancel = A"]
    assert GAME.position_json(GAME.new(2, 1))["options"]["slap_timeout_s"] == 8


def test_ri_6_5_false_slap_draws_the_penalty_turn_and_demand_stay() -> None:
    """RI-6.5: a false slap draws false_slap_penalty cards; turn and demand are kept."""
    pos = make([["1S/O"], ["3S/E"], ["2C/="]], ["7C/E", "8C/E", "9C/E"], ["5T/<"],
               to_move=2, demand={"symbol": "A"})
    assert "falseslap 1" not in legal(pos)
    after, events = run(pos, "falseslap 1")
    assert js(after)["hands"][1] == ["3S/E", "7C/E"]
    assert after.to_move == 2 and js(after)["demand"] == {"symbol": "A"}
    assert events == ["falseslap seat 1 7C/E"]
    two = make([["1S/O"], ["3S/E"]], ["7C/E", "8C/E", "9C/E"], ["5T/<"],
               options={"false_slap_penalty": 2})
    assert js(run(two, "falseslap 0")[0])["hands"][0] == ["1S/O", "7C/E", "8C/E"]
    few = make([["1S/O"], ["3S/E"]], ["7C/E"], ["5T/<"], options={"false_slap_penalty": 3})
    assert js(run(few, "falseslap 0")[0])["hands"][0] == ["1S/O", "7C/E"]
    off = make([["1S/O"], ["3S/E"]], ["7C/E"], ["5T/<"], options={"false_slap_penalty": 0})
    assert refused(off, "falseslap 0", "RI-6.5") == (
        "falseslap 0: option false_slap_penalty is 0 (off) (RI-6.5)"
    )


def test_ri_6_6_a_new_reverse_after_a_resolution_opens_a_new_window() -> None:
    """RI-6.6: the next top card after a slap or timeout can be a reverse: a new window."""
    pos = make([["1S/O", "2C/E"], ["3T/E"]], ["4A/*S", "7S/*C", "1C/E"], ["5T/<"], window="S")
    after, events = run(pos, "slap 0")
    assert after.window == "C" and events[-1] == "window = C"
    again, _ = run(after, "timeout")
    assert again.window is None and js(again)["draw"] == ["1C/E"]


# RI-7 end -------------------------------------------------------------------------------


def test_ri_7_1_empty_hand_wins_at_once_with_no_effect() -> None:
    """RI-7.1: the last card wins: no demand, no refill; winner set, nothing more is legal."""
    pos = make([["!T/E"], ["1S/O"]], [], ["5T/<", "8S/E"])
    won, events = run(pos, "play !T/E")
    out = js(won)
    assert (out["winner"], out["to_move"], out["demand"], out["window"]) == (0, None, None, None)
    assert out["draw"] == [] and out["discard"] == ["5T/<", "8S/E", "!T/E"]
    assert events == ["play seat 0 !T/E", "win seat 0"]
    assert legal(won) == [] and GAME.outcome(won) is not None
    assert GAME.outcome(won) == GAME.outcome(won) and GAME.outcome(won).winner == 0  # type: ignore[union-attr]
    assert refused(won, "draw", "RI-7.1") == "draw: the game is over, seat 0 won (RI-7.1)"
    assert GAME.outcome(pos) is None


def test_ri_7_1_a_slap_that_empties_the_hand_wins_and_the_reverse_stays() -> None:
    """RI-7.1: a slap discard that empties the hand wins; the reverse stays on the draw pile."""
    pos = make([["1T/O"], ["3S/E", "!S/O"]], ["4A/*S", "7C/E"], ["5T/<"], window="S")
    won, events = run(pos, "slap 1")
    out = js(won)
    assert out["winner"] == 1 and out["draw"] == ["4A/*S", "7C/E"] and out["window"] is None
    assert out["discard"] == ["5T/<", "3S/E", "!S/O"]
    assert events == ["slap seat 1 3S/E !S/O = S", "win seat 1"]
    assert GAME.parse_position(out) == won


# RI-8 piles -----------------------------------------------------------------------------


def test_ri_8_1_worked_example_1_refill_at_the_end_of_the_action() -> None:
    """RI-8.1: worked example 1: draw under demand T, then the refill from Random(42)."""
    pos = make([["4S/O", "9C/>"], ["2T/=", "!A/<"], ["7A/E"]], ["3C/~", "6T/<"],
               ["8S/E", "5A/>", "!T/{1,4,7}"], seed=42, demand={"symbol": "T"})
    assert legal(pos) == ["draw"]
    after, events = run(pos, "draw")
    out = js(after)
    assert out["hands"] == [["4S/O", "9C/>", "3C/~"], ["2T/=", "!A/<"], ["7A/E"]]
    assert out["draw"] == ["5A/>", "8S/E", "!T/{1,4,7}"] and out["seed"] == 107420369
    assert out["discard"] == ["6T/<"] and out["demand"] is None and out["to_move"] == 1
    assert events == ["draw seat 0 3C/~", "play seat 0 6T/<", "shuffle = 107420369"]


def test_ri_8_1_refill_mid_action_before_a_card_is_drawn() -> None:
    """RI-8.1: a draw from an empty pile shuffles the discard pile minus its top first."""
    pos = make([["1C/E", "3A/O"], ["1S/O"]], [], ["5S/>", "6S/<", "!C/E"], seed=9,
               demand={"symbol": "T"})
    refill, seed = shuffle(["5S/>", "6S/<"], 9)
    after, events = run(pos, "falseslap 1")
    assert js(after)["hands"][1] == ["1S/O", refill[0]]
    assert js(after)["draw"] == refill[1:] and js(after)["discard"] == ["!C/E"]
    assert after.seed == seed and events == [f"shuffle = {seed}", f"falseslap seat 1 {refill[0]}"]


def test_ri_8_2_nothing_to_reshuffle_draws_nothing() -> None:
    """RI-8.2: with one discard and no draw pile, drawing draws nothing; the turn passes."""
    pos = make([["1C/E"], ["1S/O"]], [], ["!T/E"], demand={"symbol": "T"})
    after, events = run(pos, "draw")
    assert js(after)["hands"][0] == ["1C/E"] and after.to_move == 1
    assert events == ["draw seat 0", "lapse seat 0 = T"]
    slapped, _ = run(make([["1C/E"], ["1S/O"]], [], ["!T/E"]), "falseslap 0")
    assert js(slapped)["hands"][0] == ["1C/E"]


def test_ri_8_3_cards_are_conserved() -> None:
    """RI-8.3: hands + draw + discard hold the same cards after every action."""
    pos = make([["P/O", "9C/E", "!S/<"], ["P/E", "3S/<", "4T/E"]],
               ["1C/>", "2A/E", "7T/E", "4A/*S", "8C/E"], ["5S/O", "6T/O"], seed=3)
    before = card_counts(pos)
    for action in ("play P/O", "play P/E", "take", "slap 1", "falseslap 0"):
        pos, _ = run(pos, action)
        assert card_counts(pos) == before, action


def test_ri_8_4_order_of_hands_and_piles() -> None:
    """RI-8.4: a card leaves at its first occurrence, drawn cards join at the end."""
    pos = make([["5C/>", "2T/=", "5C/>"], ["1S/O"]], ["1C/O", "7A/E"], ["3S/E"])
    after, _ = run(pos, "play 5C/>")
    assert js(after)["hands"][0] == ["2T/=", "5C/>"]
    drew, _ = run(after, "falseslap 0")
    assert js(drew)["hands"][0] == ["2T/=", "5C/>", "1C/O"]


def test_ri_8_5_riiing_refills_at_once_at_the_end_of_an_action() -> None:
    """RI-8.5: the draw pile is refilled at the end of the action that emptied it."""
    pos = make([["1S/O"], ["3S/E"]], ["4A/*S"], ["1C/E", "2C/E", "5T/<"], window="S", seed=5)
    after, events = run(pos, "timeout")
    refill, seed = shuffle(["1C/E", "2C/E", "5T/<"], 5)
    assert js(after)["draw"] == refill and js(after)["discard"] == ["4A/*S"]
    assert events[-1] == f"shuffle = {seed}"


# RI-9 malformed positions ---------------------------------------------------------------


GOOD = {"hands": [["1S/O"], ["3S/E"]], "draw": ["4A/>"], "discard": ["5T/<"]}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"discard": []}, "position field 'discard': empty (RI-9)"),
        ({"draw": ["4A/*S"]}, "position field 'window': null while the reverse 4A/*S is on top"),
        ({"draw": ["4A/*S"], "window": "C"}, "position field 'window': 'C' is not the symbol"),
        ({"window": "S"}, "position field 'window': 'S' is not the symbol of a reverse on top"),
        ({"draw": [], "window": "S"}, "(the draw pile is empty) (RI-9)"),
        ({"to_move": None}, "position field 'to_move': null while there is no winner (RI-9)"),
        ({"to_move": 2}, "position field 'to_move': seat 2 out of range 0..1 (RI-9)"),
        ({"winner": -1}, "position field 'winner': seat -1 out of range 0..1 (RI-9)"),
        ({"to_move": True}, "position field 'to_move': expected a seat number or null"),
        ({"hands": [["1S/O"], ["3S/Q"]]}, "position field 'hands[1][0]': bad card code '3S/Q'"),
        ({"draw": [7]}, "position field 'draw[0]': expected a card code, got 7 (RI-9)"),
        ({"hands": [["1S/O"]]}, "position field 'hands': expected a list of 2 hands (RI-9)"),
        ({"options": {"colour": 1}}, "position field 'options': unknown option 'colour'"),
        ({"options": {"hand_size": "7"}}, "position field 'options.hand_size': expected a whole"),
        ({"options": {"false_slap_penalty": -1}}, "option false_slap_penalty: expected a whole"),
        ({"options": {"deck": 3}}, "position field 'options.deck': expected a string, got 3"),
        ({"seed": "1"}, "position field 'seed': expected an integer, got '1' (RI-9)"),
        ({"game": "uno"}, "position field 'game': expected 'riiing', got 'uno' (RI-9)"),
        ({"colour": "red"}, "position field 'colour': unknown field"),
        ({"demand": {"symbol": "P"}}, "position field 'demand': expected null"),
        ({"demand": {"phones": 0}}, "position field 'demand': expected null"),
        ({"hands": [["1S/O"], []]}, "position field 'hands[1]': empty while there is no winner"),
        ({"winner": 1, "to_move": None}, "position field 'winner': seat 1 still holds cards"),
        ({"winner": 1, "hands": [["1S/O"], []]}, "position field 'to_move': must be null once"),
    ],
)
def test_ri_9_malformed_positions_are_refused(fields: dict[str, object], message: str) -> None:
    """RI-9: positions that cannot occur are NotationErrors naming the field."""
    obj = {"game": "riiing", "seats": 2, "to_move": 0, "seed": 1, **GOOD, **fields}
    with pytest.raises(NotationError) as info:
        GAME.parse_position(obj)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_ri_9_missing_fields_and_defaults() -> None:
    """RI-9: required fields must be present; options, demand, window, winner default."""
    obj = {"game": "riiing", "seats": 2, "to_move": 0, "seed": 1, **GOOD}
    pos = GAME.parse_position(obj)
    assert (pos.demand, pos.window, pos.winner, pos.options.hand_size) == (None, None, None, 7)
    for key in ("seats", "hands", "draw", "discard", "to_move", "seed"):
        partial = {k: v for k, v in obj.items() if k != key}
        with pytest.raises(NotationError, match=f"position field '{key}': missing"):
            GAME.parse_position(partial)
