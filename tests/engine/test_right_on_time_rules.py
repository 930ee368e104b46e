"""Right on Time rule tests, one or more per rule id of docs/rules/right-on-time.md, written as
positions and actions in notation through the public API."""

from __future__ import annotations

from collections import Counter

import pytest
from right_on_time_helpers import GAME, card_count, kinds, legal_texts, position, run

from engine.core import IllegalActionError, NotationError, shuffle
from engine.right_on_time import RotPosition, load_deck


def refused(pos: RotPosition, text: str) -> IllegalActionError:
    """The IllegalActionError that applying ``text`` raises."""
    with pytest.raises(IllegalActionError) as info:
        GAME.apply(pos, GAME.parse_action(text))
    return info.value


# ------------------------------------------------------------------ worked example 3


def example3(**changes: object) -> RotPosition:
    """docs/notation.md worked example 3."""
    fields: dict[str, object] = {
        "hands": [["J", "2", "6", "Z3"], ["1", "5"], ["4", "4", "7"]],
        "draw": ["3", "N"],
        "discard": ["5", "J4"],
        "to_move": 0,
    }
    fields.update(changes)
    return position(**fields)


def test_worked_example_3_legal() -> None:
    """Worked example 3: legal prints 42 sorted actions incl. play 6, play J=5, play 2 J=4,
    play Z3 2 @1, and neither play J=4 nor play 6 2."""
    texts = legal_texts(example3())
    assert len(texts) == 42
    assert texts == sorted(texts)
    for text in ("play 6", "play J=5", "play 2 J=4", "play Z3 2 @1"):
        assert text in texts
    assert "play J=4" not in texts
    assert "play 6 2" not in texts


def test_worked_example_3_apply() -> None:
    """Worked example 3: after play 2 Z3 @2 the discard, seat 2's hand, draw and to_move are
    as stated (RT-3.2, RT-3.5, RT-4.2)."""
    pos, events = run(example3(), "play 2 Z3 @2")
    assert pos.discard == ("5", "J4", "2", "Z3")
    assert pos.hands[2] == ("4", "4", "7", "3")
    assert pos.hands[0] == ("J", "6")
    assert pos.draw == ("N",)
    assert pos.to_move == 1
    assert pos.seed == 1
    assert kinds(events) == ["play", "effect_draw", "draw"]


# ------------------------------------------------------------------ RT-1 cards


def test_rt_1_1_default_deck() -> None:
    """RT-1.1: the default deck holds 50 cards: 1 x4, 2..7 x5, four J, N, D and Z."""
    deck = load_deck()
    counts = Counter(deck)
    assert len(deck) == 50
    assert counts["1"] == 4
    assert all(counts[str(n)] == 5 for n in range(2, 8))
    assert counts["J"] == 4 and counts["N"] == 4
    assert sum(k for c, k in counts.items() if c[0] == "D") == 4
    assert sum(k for c, k in counts.items() if c[0] == "Z") == 4


def test_rt_1_2_default_values_and_inline_decks() -> None:
    """RT-1.2: Du bist! 2,3,5,6 and Ziehen! 1,3,5,7 by default; a deck with another
    printing is held inline by option deck; an invalid code is refused naming its place."""
    deck = load_deck()
    assert sorted(c for c in deck if c[0] == "D") == ["D2", "D3", "D5", "D6"]
    assert sorted(c for c in deck if c[0] == "Z") == ["Z1", "Z3", "Z5", "Z7"]
    tiny = ["1", "1", "1", "D7", "D7", "Z2", "Z2", "J"]
    pos = GAME.new(2, 3, {"deck": tiny})
    assert card_count(pos) == Counter(tiny)
    assert GAME.position_json(pos)["options"]["deck"] == tiny
    assert GAME.new(2, 3, {"deck": " ".join(tiny)}) == pos
    with pytest.raises(NotationError, match=r"^option deck: card 1: 'D8' is not a card code"):
        GAME.new(3, 1, {"deck": ["1", "D8"]})
    with pytest.raises(NotationError, match=r"^option deck: '/etc/hosts' is no bundled deck"):
        GAME.new(3, 1, {"deck": "/etc/hosts"})


def test_rt_1_3_top_values() -> None:
    """RT-1.3: the top card's value is its number, J<n> is n, N is 0, D<n>/Z<n> are n."""
    for top, value in (("5", 5), ("J4", 4), ("N", 0), ("D3", 3), ("Z7", 7)):
        view = GAME.view(position(hands=[["1"], [], []], discard=[top]), None)
        assert view.top == top and view.top_value == value


def test_rt_1_4_joker_lies_declared_and_comes_back_as_j() -> None:
    """RT-1.4: a laid Joker lies as J<n>; a reshuffle turns it back into J."""
    pos, _ = run(position(hands=[["J", "5"], ["1"], ["2"]], discard=["3"]), "play J=6")
    assert pos.discard == ("3", "J6")
    refill = position(hands=[["Z1", "4"], ["1"], ["2"]], draw=[], discard=["J3", "5", "N"], seed=7)
    pos, events = run(refill, "play Z1 @1")
    deck, seed = shuffle(["J", "5", "N"], 7)
    assert pos.discard == ("Z1",)
    assert pos.hands[1] == ("1", deck[0])
    assert pos.draw == tuple(deck[1:])
    assert pos.seed == seed
    assert "shuffle" in kinds(events)


# ------------------------------------------------------------------ RT-2 rounds


def test_rt_2_1_deal_order_and_sizes() -> None:
    """RT-2.1: new shuffles the deck from the seed and deals one card at a time clockwise
    from the opening seat, 7 each; the rest is the draw pile, top first."""
    cards, seed = shuffle(load_deck(), 99)
    pos = GAME.new(3, 99, None, 1)
    assert pos.seed == seed
    assert pos.hands[1] == tuple(cards[0:21:3])
    assert pos.hands[2] == tuple(cards[1:21:3])
    assert pos.hands[0] == tuple(cards[2:21:3])
    assert pos.draw == tuple(cards[21:])
    assert pos.discard == () and pos.round == 1 and pos.to_move == 1


def test_rt_2_1_deal_until_cards_run_out() -> None:
    """RT-2.1: with fewer cards than seats x 7, dealing stops when the deck runs out."""
    pos = GAME.new(6, 4, {"deck": ["1"] * 40})
    assert [len(h) for h in pos.hands] == [7, 7, 7, 7, 6, 6]
    assert pos.draw == ()


def test_rt_2_2_opening_lay_is_one_card() -> None:
    """RT-2.2: on an empty discard pile the seat lays exactly one card of its choice (a
    Joker declared 1..7, effects apply); no pair."""
    pos = position(hands=[["1", "J", "D2", "N"], ["5"], ["6"]])
    texts = legal_texts(pos)
    assert "play 1" in texts and "play N" in texts
    assert [t for t in texts if t.startswith("play J")] == [f"play J={v}" for v in range(1, 8)]
    assert "play D2 >1" in texts and "play D2 >2" in texts and "play D2 >0" not in texts
    assert all(len([w for w in t.split()[1:] if w[0] not in ">@"]) == 1 for t in texts)
    assert refused(pos, "play 1 N").rule == "RT-2.2"
    assert refused(pos, "play 1 J=1").rule == "RT-2.2"


def test_rt_2_3_first_and_later_openers() -> None:
    """RT-2.3: round 1 is opened by `first`; the next round by the round's winner."""
    assert GAME.new(4, 1, None, 3).to_move == 3
    pos = position(hands=[["2"], ["5", "6"], []], discard=["1"], out=[2], to_move=0)
    after, _ = run(pos, "play 2")
    assert after.round == 2 and after.to_move == 0 and after.scores == (1, 0, 0)


def test_rt_2_4_round_change_collects_in_notation_order() -> None:
    """RT-2.4: the lay that ends a round scores it and deals the next round at once: hands
    seat 0 first, draw pile top first, discard bottom first (J<n> as J), shuffled with the
    seed, dealt from the winner; out and shown emptied; bonus cards stay."""
    pos = position(
        hands=[["3", "7"], ["6"], []],
        draw=["N", "Z1"],
        discard=["J2", "4", "D5"],
        to_move=1,
        out=[2],
        bonus=[[], [], ["J"]],
        seed=1234,
        shown=[["7"], ["6"], []],
    )
    after, events = run(pos, "play 6")
    collected = ["3", "7", "N", "Z1", "J", "4", "D5", "6"]
    cards, seed = shuffle(collected, 1234)
    assert after.round == 2 and after.scores == (0, 1, 0)
    assert after.seed == seed
    assert after.to_move == 1 and after.out == () and after.discard == ()
    assert after.hands[1] == tuple(cards[0::3]) and after.hands[2] == tuple(cards[1::3])
    assert after.hands[0] == tuple(cards[2::3])
    assert after.draw == ()
    assert after.bonus == ((), (), ("J",))
    assert after.shown == ((), (), ())
    assert kinds(events) == ["play", "out", "round", "shuffle", "deal"]


def test_rt_2_5_seat_counts() -> None:
    """RT-2.5: 2 to 6 seats; 6 seats deal 42 of the 50 cards; 1 or 7 seats are refused."""
    pos = GAME.new(6, 5)
    assert sum(len(h) for h in pos.hands) == 42 and len(pos.draw) == 8
    for seats in (1, 7):
        with pytest.raises(NotationError, match=r"RT-2.5"):
            GAME.new(seats, 5)


# ------------------------------------------------------------------ RT-3 laying cards


def test_rt_3_1_single_must_be_higher() -> None:
    """RT-3.1: one card of higher value than the top; equal or lower is refused."""
    pos = position(hands=[["4", "5", "3"], ["1"], ["2"]], discard=["4"])
    assert "play 5" in legal_texts(pos)
    err = refused(pos, "play 4")
    assert err.rule == "RT-3.1"
    assert str(err) == "seat 0 cannot play 4: one card must be higher than the top value 4 (RT-3.1)"


def test_rt_3_2_pair_each_lower_or_equal_second_on_top() -> None:
    """RT-3.2: two cards, each <= the top value, in the chosen order; the second ends on
    top; a pair with a higher card is refused."""
    pos = position(hands=[["3", "4", "5"], ["1"], ["2"]], discard=["4"])
    texts = legal_texts(pos)
    assert "play 3 4" in texts and "play 4 3" in texts
    after, _ = run(pos, "play 4 3")
    assert after.discard == ("4", "4", "3")
    assert refused(pos, "play 5 3").rule == "RT-3.2"


def test_rt_3_3_null_on_anything_alone_and_worth_zero() -> None:
    """RT-3.3: N may be laid on any card (even a 7), always alone; on N any single fits and
    no pair does."""
    pos = position(hands=[["N", "2", "1"], ["1"], ["2"]], discard=["7"])
    assert "play N" in legal_texts(pos)
    assert refused(pos, "play N 2").rule == "RT-3.3"
    on_null = position(hands=[["1", "2", "J"], ["1"], ["2"]], discard=["N"])
    texts = legal_texts(on_null)
    assert "play 1" in texts and "play J=1" in texts
    assert not any(len(t.split()) > 2 for t in texts)
    assert refused(on_null, "play 1 2").rule == "RT-3.3"


def test_rt_3_4_joker_declared_never_alone_on_seven() -> None:
    """RT-3.4: a Joker is declared 1-7 and keeps that value; it cannot be laid alone on 7
    but fits a pair there."""
    pos = position(hands=[["J", "3"], ["1"], ["2"]], discard=["7"])
    assert refused(pos, "play J=7").rule == "RT-3.4"
    texts = legal_texts(pos)
    assert "play J=7 3" in texts and "play 3 J=1" in texts
    after, _ = run(pos, "play 3 J=5")
    assert after.discard[-1] == "J5"
    assert GAME.view(after, None).top_value == 5


def test_rt_3_5_effect_cards_by_value_alone_or_pair_effect_any_order() -> None:
    """RT-3.5: Du bist!/Ziehen! are laid by their printed value, alone or in a pair, and the
    effect is carried out whatever the order."""
    pos = position(hands=[["Z3", "2", "6"], ["1"], ["2"]], draw=["5", "7"], discard=["4"])
    first, _ = run(pos, "play Z3 2 @1")
    second, _ = run(pos, "play 2 Z3 @1")
    assert first.hands[1] == second.hands[1] == ("1", "5")
    assert refused(pos, "play Z3 @1").rule == "RT-3.1"
    on_two = position(hands=[["D3", "6"], ["1"], ["2"]], discard=["2"])
    assert "play D3 >2" in legal_texts(on_two)


# ------------------------------------------------------------------ RT-4 effects


def test_rt_4_1_du_bist_chooses_next_turn() -> None:
    """RT-4.1: Du bist! seat s makes the next turn and play continues clockwise from s; the
    layer itself and a seat that is out cannot be chosen; the next seat anyway is allowed."""
    pos = position(
        seats=4, hands=[["D5", "1", "2"], ["1"], [], ["6", "4", "1"]], discard=["4"], out=[2]
    )
    texts = legal_texts(pos)
    assert "play D5 >1" in texts and "play D5 >3" in texts
    after, events = run(pos, "play D5 >3")
    assert after.to_move == 3
    assert ("effect_up", 3) in [(e.kind, e.seat) for e in events]
    assert refused(pos, "play D5 >0").rule == "RT-4.1"
    assert refused(pos, "play D5 >2").rule == "RT-4.1"
    after, _ = run(after, "play 6")
    assert after.to_move == 0
    nxt = position(seats=4, hands=[["D5", "1"], ["1"], ["2"], ["3"]], discard=["4"])
    assert run(nxt, "play D5 >1")[0].to_move == 1


def test_rt_4_2_ziehen_draw_turn_order_unchanged_self_allowed() -> None:
    """RT-4.2: Ziehen! seat s draws one card, the turn order does not change, the layer may
    choose itself, a seat that is out may not be chosen (3+ seats)."""
    pos = position(hands=[["Z5", "1", "3"], [], ["2"]], draw=["7", "6"], discard=["4"], out=[1])
    after, _ = run(pos, "play Z5 @2")
    assert after.hands[2] == ("2", "7") and after.to_move == 2
    me, _ = run(pos, "play Z5 @0")
    assert me.hands[0] == ("1", "3", "7") and me.to_move == 2
    assert refused(pos, "play Z5 @1").rule == "RT-4.2"


def test_rt_4_2_last_card_ziehen_on_self_stays_in() -> None:
    """RT-4.2: laying the last card with a Ziehen! on itself draws and stays in the round;
    with nothing to draw it goes out as usual."""
    pos = position(hands=[["Z5"], ["1", "2"], ["2", "3"]], draw=["7"], discard=["4"])
    after, events = run(pos, "play Z5 @0")
    assert after.hands[0] == ("7",) and after.out == ()
    assert "out" not in kinds(events)
    empty = position(hands=[["Z5"], ["1", "2"], ["2", "3"]], draw=[], discard=[])
    after, events = run(empty, "play Z5 @0")
    assert after.out == (0,) and after.hands[0] == ()
    assert kinds(events) == ["play", "effect_draw", "draw", "out"]


def test_rt_4_3_one_effect_always_carried_out() -> None:
    """RT-4.3: a lay with two effect cards carries out exactly one (the layer's choice, by
    the suffix); a lay with an effect card must name it; a suffix without one is refused."""
    pos = position(hands=[["D2", "Z3", "7"], ["1"], ["2"]], draw=["5"], discard=["4"])
    texts = legal_texts(pos)
    assert "play D2 Z3 >1" in texts and "play D2 Z3 @1" in texts
    drawn, _ = run(pos, "play D2 Z3 @1")
    assert drawn.hands[1] == ("1", "5") and drawn.to_move == 1
    up, _ = run(pos, "play D2 Z3 >2")
    assert up.hands[1] == ("1",) and up.to_move == 2
    assert refused(pos, "play D2 Z3").rule == "RT-4.3"
    plain = position(hands=[["5", "7"], ["1"], ["2"]], discard=["4"])
    assert refused(plain, "play 5 @1").rule == "RT-4.3"
    assert refused(pos, "play Z3 D2 >9").rule == "RT-4.1"


def test_rt_4_4_order_cards_effect_out_bonus() -> None:
    """RT-4.4: within one lay: cards go down, then the effect, then going out, then the
    bonus card (drawn after the Ziehen! card)."""
    pos = position(hands=[["Z5"], ["1", "2"], ["2", "3"]], draw=["6", "7"], discard=["4"])
    after, events = run(pos, "play Z5 @1")
    assert kinds(events) == ["play", "effect_draw", "draw", "out", "bonus"]
    assert after.hands[1] == ("1", "2", "6") and after.bonus[0] == ("7",)


def test_rt_4_5_effect_without_target_is_skipped() -> None:
    """RT-4.5: with two seats, the other out, a Du bist! emptying the layer's hand has no
    allowed target: it is skipped and written without a suffix."""
    pos = position(seats=2, hands=[["D3"], []], discard=["2"], out=[1], to_move=0)
    assert legal_texts(pos) == ["play D3"]
    err = refused(pos, "play D3 >1")
    assert err.rule == "RT-4.5"
    after, events = run(pos, "play D3")
    assert after.scores == (1, 0) and "effect_up" not in kinds(events)


# ------------------------------------------------------------------ RT-5 unable to lay


def test_rt_5_1_draw_shows_keeps_draws_ends_turn() -> None:
    """RT-5.1: with no legal lay the seat draws: its cards are shown (public), it keeps
    them, draws one and the turn ends even if the new card could be laid."""
    pos = position(hands=[["2"], ["1", "5"], ["3"]], draw=["7"], discard=["5"])
    assert legal_texts(pos) == ["draw"]
    after, events = run(pos, "draw")
    assert after.hands[0] == ("2", "7") and after.to_move == 1
    assert after.shown[0] == ("2",)
    assert [(e.kind, e.cards) for e in events] == [("show", ("2",)), ("draw", ("7",))]
    assert GAME.view(after, 1).shown[0] == ("2",)
    assert GAME.view(after, None).shown == (("2",), (), ())


def test_rt_5_1_draw_refused_when_a_lay_exists_and_shown_leaves_with_card() -> None:
    """RT-5.1: draw is refused while a lay is legal; a shown card leaves `shown` when laid."""
    pos = position(hands=[["6", "2"], ["1"], ["3"]], discard=["5"], shown=[["2"], [], []])
    assert refused(pos, "draw").rule == "RT-5.1"
    after, _ = run(pos, "play 6")
    assert after.shown[0] == ("2",)
    on_one = position(hands=[["6", "2"], ["1"], ["3"]], discard=["1"], shown=[["2"], [], []])
    after, _ = run(on_one, "play 2")
    assert after.shown[0] == ()


# ------------------------------------------------------------------ RT-6 going out


def test_rt_6_1_out_seat_is_skipped() -> None:
    """RT-6.1: a seat that lays its last card goes out, is listed in out and skipped."""
    pos = position(hands=[["1", "2"], ["6"], ["3", "4", "1"]], draw=["5"], discard=["5"], to_move=1)
    after, events = run(pos, "play 6")
    assert after.out == (1,) and after.to_move == 2
    assert ("out", 1, 1) in [(e.kind, e.seat, e.value) for e in events]
    after, _ = run(after, "play 4 3")
    assert after.to_move == 0 and after.out == (1,)


def test_rt_6_2_second_out_wins_the_round() -> None:
    """RT-6.2: the first seat out gets no point and the round goes on; the second seat out
    wins the round (+1) at once."""
    pos = position(hands=[["7"], ["5", "1"], ["4"]], draw=["2", "3"], discard=["3"])
    first, _ = run(pos, "play 7")
    assert first.out == (0,) and first.scores == (0, 0, 0) and first.round == 1
    second, events = run(
        position(hands=[[], ["5"], ["4", "1"]], draw=["2"], discard=["3"], out=[0], to_move=1),
        "play 5",
    )
    assert second.scores == (0, 1, 0) and second.round == 2
    assert ("round", 1, 1) in [(e.kind, e.seat, e.value) for e in events]


def test_rt_6_3_bonus_card_private() -> None:
    """RT-6.3: the first seat out draws the top draw-pile card face down as a bonus card:
    private to that seat (others see only the count); nothing to draw, no bonus card."""
    pos = position(hands=[["7"], ["5", "1"], ["4"]], draw=["2", "3"], discard=["3"])
    after, events = run(pos, "play 7")
    assert after.bonus[0] == ("2",) and after.draw == ("3",)
    assert ("bonus", 0, ("2",)) in [(e.kind, e.seat, e.cards) for e in events]
    assert GAME.view(after, 0).bonus == ("2",)
    assert GAME.view(after, 1).bonus == () and GAME.view(after, 1).bonus_counts == (1, 0, 0)
    assert GAME.view(after, None).bonus == ()
    bare = position(hands=[["7"], ["5", "1"], ["4"]], draw=[], discard=[])
    after, events = run(bare, "play 7")
    assert after.bonus[0] == () and "bonus" not in kinds(events)


def test_rt_6_4_bonus_swap() -> None:
    """RT-6.4: on its turn before laying a seat may swap bonus card b for hand card h (h
    under the draw pile, b joins the hand at the end); the turn goes on; also when it
    could not lay otherwise; unknown cards are refused."""
    pos = position(
        hands=[["2"], ["1"], ["3"]], draw=["6"], discard=["5"], bonus=[["N", "J"], [], []]
    )
    texts = legal_texts(pos)
    assert texts == ["bonus J 2", "bonus N 2", "draw"]
    after, events = run(pos, "bonus N 2")
    assert after.hands[0] == ("N",) and after.bonus[0] == ("J",) and after.draw == ("6", "2")
    assert after.to_move == 0 and kinds(events) == ["swap"]
    assert legal_texts(after) == ["bonus J N", "play N"]
    assert refused(pos, "bonus 7 2").rule == "RT-6.4"
    assert refused(pos, "bonus N 7").rule == "RT-6.4"


def test_rt_6_5_refill_and_nothing_to_draw() -> None:
    """RT-6.5: an empty draw pile is refilled from the discard pile minus its top (seeded
    shuffle, Jokers back to J); with nothing to reshuffle nothing is drawn."""
    pos = position(hands=[["2"], ["1"], ["3"]], draw=[], discard=["J4", "6", "7"], seed=5)
    after, events = run(pos, "draw")
    cards, seed = shuffle(["J", "6"], 5)
    assert after.hands[0] == ("2", cards[0]) and after.draw == tuple(cards[1:])
    assert after.discard == ("7",) and after.seed == seed
    assert [e.value for e in events if e.kind == "shuffle"] == [seed]
    lone = position(hands=[["2"], ["1"], ["3"]], draw=[], discard=["7"], seed=5)
    after, events = run(lone, "draw")
    assert after.hands[0] == ("2",) and after.seed == 5
    assert [(e.kind, e.cards) for e in events] == [("show", ("2",)), ("draw", ())]


# ------------------------------------------------------------------ RT-7 the match


def test_rt_7_1_match_won() -> None:
    """RT-7.1: the first seat with target_points wins: winner set, to_move null, the
    deciding seat added to out, hands, piles and round unchanged; nothing more is legal."""
    pos = position(
        hands=[[], ["5"], ["4", "1"]],
        draw=["2"],
        discard=["3"],
        out=[0],
        to_move=1,
        scores=[1, 2, 0],
        round=4,
    )
    after, events = run(pos, "play 5")
    assert after.winner == 1 and after.to_move is None and after.out == (0, 1)
    assert after.scores == (1, 3, 0) and after.round == 4
    assert after.hands == ((), (), ("4", "1")) and after.discard == ("3", "5")
    assert kinds(events)[-2:] == ["round", "match"]
    assert GAME.legal(after) == ()
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.winner == 1
    assert refused(after, "draw").rule == "RT-7.1"


def test_rt_7_1_target_points_option() -> None:
    """RT-7.1: option target_points sets the points that win (1: the first round decides)."""
    pos = position(
        hands=[[], ["5"], ["4", "1"]],
        discard=["3"],
        out=[0],
        to_move=1,
        options={"target_points": 1},
    )
    after, _ = run(pos, "play 5")
    assert after.winner == 1
    with pytest.raises(NotationError, match="target_points"):
        GAME.new(3, 1, {"target_points": 0})


# ------------------------------------------------------------------ RT-8 less influence


def test_rt_8_1_du_bist_left_on_last_lay() -> None:
    """RT-8.1 (li_du_bist_left alone): a Du bist! using the whole hand must choose the next
    seat to the left still in the round; a Du bist! keeping cards is free."""
    opts = {"li_du_bist_left": True}
    pos = position(seats=4, hands=[["D5"], [], ["2"], ["3"]], discard=["4"], out=[1], options=opts)
    assert legal_texts(pos) == ["play D5 >2"]
    err = refused(pos, "play D5 >3")
    assert err.rule == "RT-8.1" and "seat 2" in str(err)
    keep = position(seats=4, hands=[["D5", "1"], ["1"], ["2"], ["3"]], discard=["4"], options=opts)
    assert {"play D5 >1", "play D5 >2", "play D5 >3"} <= set(legal_texts(keep))
    plain = position(seats=4, hands=[["D5"], [], ["2"], ["3"]], discard=["4"], out=[1])
    assert "play D5 >3" in legal_texts(plain)


def test_rt_8_2_joker_seven_on_last_lay() -> None:
    """RT-8.2 (li_joker_seven alone): a Joker in a lay of the whole hand counts as 7 (also
    when a Ziehen! then gives a card back); otherwise declared freely."""
    opts = {"li_joker_seven": True}
    pos = position(hands=[["J"], ["1"], ["2"]], discard=["4"], options=opts)
    assert legal_texts(pos) == ["play J=7"]
    assert refused(pos, "play J=5").rule == "RT-8.2"
    pair = position(hands=[["J", "Z3"], ["1"], ["2"]], draw=["6"], discard=["7"], options=opts)
    texts = legal_texts(pair)
    assert "play Z3 J=7 @0" in texts and "play Z3 J=5 @0" not in texts
    assert refused(pair, "play Z3 J=5 @0").rule == "RT-8.2"
    free = position(hands=[["J", "1", "1"], ["1"], ["2"]], discard=["4"], options=opts)
    assert "play J=5" in legal_texts(free)
    below = position(hands=[["J", "2"], ["1"], ["2"]], discard=["4"], options=opts)
    assert legal_texts(below) == ["play J=5", "play J=6", "play J=7"]


def test_rt_8_3_higher_on_top_on_last_lay() -> None:
    """RT-8.3 (li_higher_on_top alone): with two cards that are the whole hand the higher
    goes on top (equal values either order); with cards left, any order."""
    opts = {"li_higher_on_top": True}
    pos = position(hands=[["2", "4"], ["1"], ["2"]], discard=["5"], options=opts)
    texts = legal_texts(pos)
    assert "play 2 4" in texts and "play 4 2" not in texts
    assert refused(pos, "play 4 2").rule == "RT-8.3"
    same = position(hands=[["D3", "3"], ["1"], ["2"]], discard=["5"], options=opts)
    assert "play 3 D3 >1" in legal_texts(same) and "play D3 3 >1" in legal_texts(same)
    keep = position(hands=[["2", "4", "7"], ["1"], ["2"]], discard=["5"], options=opts)
    assert "play 4 2" in legal_texts(keep)


def test_rt_8_less_influence_turns_on_parts_not_given() -> None:
    """RT-8: less_influence turns on every li_* part not given explicitly; an explicit
    false stays false, and the JSON round trip keeps the resolved values."""
    on = position(options={"less_influence": True}, hands=[["J"], ["1"], ["2"]], discard=["4"])
    assert on.options.li_du_bist_left and on.options.li_joker_seven and on.options.li_higher_on_top
    mixed = position(
        options={"less_influence": True, "li_joker_seven": False},
        hands=[["J"], ["1"], ["2"]],
        discard=["4"],
    )
    assert not mixed.options.li_joker_seven and mixed.options.li_higher_on_top
    assert "play J=5" in legal_texts(mixed) and legal_texts(on) == ["play J=7"]
    again = GAME.parse_position(GAME.position_json(mixed))
    assert again == mixed
    assert GAME.position_json(mixed)["options"]["li_joker_seven"] is False


# ------------------------------------------------------------------ RT-9 two seats


def two(**fields: object) -> RotPosition:
    """A 2-seat position."""
    return position(seats=2, **fields)


def test_rt_9_1_eight_cards() -> None:
    """RT-9.1: 2 seats are dealt 8 cards each, and that is no option (RT-10.2)."""
    assert [len(h) for h in GAME.new(2, 8).hands] == [8, 8]
    assert [len(h) for h in GAME.new(3, 8).hands] == [7, 7, 7]
    with pytest.raises(NotationError, match=r"^unknown option 'hand_size' \(known: deck, "):
        GAME.new(2, 8, {"hand_size": 7})


def test_rt_9_2_single_last_turn() -> None:
    """RT-9.2: when one seat goes out first the other has exactly one turn: emptying its
    hand wins the point, otherwise the first seat wins it."""
    pos = two(hands=[["7"], ["3", "2"]], draw=["5", "6"], discard=["4"])
    first, _ = run(pos, "play 7")
    assert first.out == (0,) and first.to_move == 1 and first.scores == (0, 0)
    won, _ = run(first, "play 3 2")
    assert won.scores == (0, 1) and won.round == 2 and won.to_move == 1
    fail = two(hands=[["7"], ["3", "2", "1"]], draw=["5", "6"], discard=["4"])
    after, _ = run(fail, "play 7", "play 3 2")
    assert after.scores == (1, 0) and after.round == 2 and after.to_move == 0


def test_rt_9_3_no_bonus_with_two_seats() -> None:
    """RT-9.3: with 2 seats the first seat out draws no bonus card."""
    pos = two(hands=[["7"], ["3", "2"]], draw=["5", "6"], discard=["4"])
    after, events = run(pos, "play 7")
    assert after.bonus == ((), ()) and after.draw == ("5", "6") and "bonus" not in kinds(events)


def test_rt_9_4_ziehen_brings_the_other_back() -> None:
    """RT-9.4: a Ziehen! on the other seat after it went out makes it draw and brings it
    back (out emptied, no point); play continues with it."""
    pos = two(hands=[[], ["Z3", "6", "1"]], draw=["5"], discard=["2"], out=[0], to_move=1)
    after, events = run(pos, "play Z3 @0")
    assert after.out == () and after.hands[0] == ("5",) and after.to_move == 0
    assert after.scores == (0, 0) and ("back", 0) in [(e.kind, e.seat) for e in events]


def test_rt_9_4_nothing_to_draw_point_stands() -> None:
    """RT-9.4: if nothing can be drawn the other stays out and the pending point stands."""
    pos = two(hands=[[], ["Z3", "6", "1"]], draw=[], discard=[], out=[0], to_move=1)
    after, _ = run(pos, "play Z3 @0")
    assert after.scores == (1, 0) and after.round == 2


def test_rt_9_4_layer_empties_while_bringing_back() -> None:
    """RT-9.4: if the lay that brings the other back also empties the layer's hand, the
    layer is now first out and the other gets its one turn; then a second out wins."""
    pos = two(hands=[[], ["Z3"]], draw=["5", "6"], discard=["2"], out=[0], to_move=1)
    after, _ = run(pos, "play Z3 @0")
    assert after.out == (1,) and after.to_move == 0 and after.hands[0] == ("5",)
    won, _ = run(after, "play 5")
    assert won.scores == (1, 0)


def test_rt_9_5_du_bist_on_self_same_turn() -> None:
    """RT-9.5: with 2 seats Du bist! may choose the layer: it is up again in the same turn,
    and emptying its hand that way as the second seat wins; a seat emptying its hand with
    the Du bist! cannot choose itself."""
    pos = two(hands=[[], ["D3", "6"]], draw=["5"], discard=["2"], out=[0], to_move=1)
    again, _ = run(pos, "play D3 >1")
    assert again.to_move == 1 and again.out == (0,) and again.scores == (0, 0)
    won, _ = run(again, "play 6")
    assert won.scores == (0, 1)
    normal = two(hands=[["D3", "4"], ["1"]], discard=["2"])
    assert "play D3 >0" in legal_texts(normal)
    last = two(hands=[["D3"], ["1", "2"]], discard=["2"])
    assert legal_texts(last) == ["play D3 >1"]
    assert refused(last, "play D3 >0").rule == "RT-9.5"


def test_rt_9_6_single_turn_bookkeeping() -> None:
    """RT-9.6: out == [x] with the other to move is its single turn: a draw ends it and x
    wins the point."""
    pos = two(hands=[[], ["1"]], draw=["5"], discard=["4"], out=[0], to_move=1)
    after, events = run(pos, "draw")
    assert after.scores == (1, 0) and after.round == 2 and after.to_move == 0
    assert ("round", 0) in [(e.kind, e.seat) for e in events]


# ------------------------------------------------------------------ RT-10 invariants


def test_rt_10_1_cards_conserved_through_a_round_change() -> None:
    """RT-10.1: hands + bonus + draw + discard hold the same cards (J<n> as J) before and
    after a lay that ends a round."""
    pos = position(
        hands=[["J", "7"], ["6"], []],
        draw=["N"],
        discard=["J2", "4"],
        to_move=1,
        out=[2],
        bonus=[[], [], ["3"]],
    )
    after, _ = run(pos, "play 6")
    assert card_count(after) == card_count(pos)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"discard": ["5", "J"]}, "'discard[1]': a Joker on the discard pile is J<n> (RT-1.4)"),
        ({"hands": [["J3"], [], []]}, "'hands[0][0]': 'J3': J<n> lies only on the discard pile"),
        ({"draw": ["X"]}, "'draw[0]': 'X' is not a card code"),
        ({"to_move": 3}, "'to_move': seat 3 out of range 0..2"),
        ({"out": [5]}, "'out[0]': seat 5 out of range"),
        ({"to_move": None}, "'to_move': null while winner is null"),
        ({"options": {"colour": 1}}, "'options': unknown option 'colour'"),
        ({"scores": [0, 0]}, "'scores': expected a list of 3 scores"),
        ({"seats": 9}, "'seats': 2 to 6 seats"),
        ({"shown": [["7"], [], []]}, "'shown[0]': shown cards must still be in the hand"),
        ({"scores": [5, 0, 0]},
         "'scores[0]': 5 points reach target_points 3 while winner is null (RT-7.1)"),
        ({"scores": [10**40, 0, 0]}, "'scores[0]'"),
        ({"winner": 1, "to_move": None, "scores": [0, 2, 0]},
         "'winner': seat 1 has 2 points, fewer than target_points 3 (RT-7.1)"),
    ],
)
def test_rt_10_2_malformed_positions(change: dict[str, object], message: str) -> None:
    """RT-10.2: malformed positions raise NotationError naming the field."""
    fields: dict[str, object] = {"hands": [["1"], [], []]}
    fields.update(change)
    with pytest.raises(NotationError) as info:
        position(**fields)
    assert message in str(info.value)
