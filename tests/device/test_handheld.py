"""The handheld's state machine (device/hands/composer.py and each game's hand composer):
Riiing! strip, Right on Time lay composer, phases, stale keys; views are built directly from
the engine's view dataclasses."""

from __future__ import annotations

import copy
import random
from collections import deque
from collections.abc import Iterable, Sequence

import pytest
from view_builders import rview, tview

from device.games import get_plugin
from device.games.right_on_time.lay_plan import rot_tokens
from device.games.riiing.ri_hand import hand_condition as riiing_condition
from device.hands.composer import VISIBLE_TILES, HandComposer, HandKey, HandScreenModel
from engine import get_game
from engine.riiing.view import RiiingView

L, R, S, B = HandKey.LEFT, HandKey.RIGHT, HandKey.SELECT, HandKey.BACK


# --- view builders ---------------------------------------------------------------------------


def said(action: object) -> str | None:
    """The text of an action a composer returned (an engine action object, never text),
    or ``None``."""
    assert not isinstance(action, str), f"a composer returned text {action!r}"
    return None if action is None else str(action)


def press(ui: HandComposer, keys: Iterable[HandKey]) -> list[str | None]:
    """Press ``keys`` in order; the text of what each press returned."""
    return [said(ui.key(k)) for k in keys]


ROT = get_game("right-on-time")


def rot_legal(
    hand: Sequence[str],
    top: int | None,
    seats: int,
    seat: int,
    out: Sequence[int] = (),
    bonus: Sequence[str] = (),
) -> list[str]:
    """The engine's legal actions (``legal``) for ``seat`` holding ``hand`` and ``bonus``
    in a position of ``seats`` seats with top value ``top`` (``None``: the round's opening
    lay) and the seats ``out`` out of the round; the other seats hold three 1s."""
    hands = [list(hand) if s == seat else ([] if s in out else ["1"] * 3) for s in range(seats)]
    discard = [] if top is None else ["N" if top == 0 else str(top)]  # N is worth 0 (RT-1.3)
    draw = ["1"] * 5
    cards = [c for h in hands for c in h] + list(bonus) + discard + draw
    position = ROT.parse_position({
        "game": "right-on-time", "seats": seats, "options": {"deck": cards},
        "hands": hands, "draw": draw, "discard": discard, "to_move": seat, "seed": 1,
        "round": 1, "scores": [0] * seats, "out": list(out),
        "bonus": [list(bonus) if s == seat else [] for s in range(seats)], "winner": None,
    })
    return [str(a) for a in ROT.legal(position)]


DECK = ("1", "2", "3", "4", "5", "6", "7", "J", "N", "D2", "D3", "D5", "Z1", "Z3", "Z7")


def explore(ui: HandComposer, limit: int = 20000) -> tuple[set[str], int]:
    """Breadth-first search over every key press from ``ui``'s state (states told apart by
    their screen model).  Returns the set of submitted actions and the number of states;
    asserts that no state is a dead end: from every state some action can still be
    submitted without BACK (so every offered choice leads to a legal action)."""
    start = ui.screen()
    seen: dict[HandScreenModel, HandComposer] = {start: ui}
    forward: dict[HandScreenModel, set[HandScreenModel]] = {start: set()}
    submits: set[HandScreenModel] = set()
    actions: set[str] = set()
    queue = deque([start])
    while queue:
        state = queue.popleft()
        for k in (L, R, S, B):
            nxt = copy.copy(seen[state])
            action = said(nxt.key(k))
            if action is not None:
                actions.add(action)
                submits.add(state)
                continue
            model = nxt.screen()
            if k is not B:
                forward[state].add(model)
            if model not in seen:
                assert len(seen) < limit, "state space larger than expected"
                seen[model] = nxt
                forward[model] = set()
                queue.append(model)
    # every state reaches a submission by LEFT/RIGHT/SELECT alone
    good = set(submits)
    changed = True
    while changed:
        changed = False
        for state, succ in forward.items():
            if state not in good and succ & good:
                good.add(state)
                changed = True
    dead = [s for s in seen if s not in good]
    assert not dead, f"dead end: {dead[0]}"
    return actions, len(seen)


# --- construction and phases -----------------------------------------------------------------


def test_unknown_game_and_bad_seat_are_refused() -> None:
    """The registry refuses an unknown game and a composer a negative seat, each with a
    one-line ValueError."""
    with pytest.raises(ValueError, match="unknown game 'uno'"):
        get_plugin("uno")
    with pytest.raises(ValueError, match="seat must be 0 or more"):
        get_plugin("riiing").hand(-1)


def test_show_refuses_unknown_phase_other_game_and_other_seat() -> None:
    """show() refuses an unknown phase, another game's view and another seat's view."""
    ui = get_plugin("riiing").hand(2)
    with pytest.raises(ValueError, match="unknown phase 'lunch'"):
        ui.show("lunch", None)
    with pytest.raises(ValueError, match="RightOnTimeView"):
        ui.show("play", tview(["1"], ["play 1"], seat=0))
    with pytest.raises(ValueError, match="view of seat 1"):
        ui.show("play", rview(["1C/>"], [], seat=1))
    ui.show("lobby", tview(["1"], [], seat=0))  # the lobby ignores a stale view
    assert ui.screen().banner == ("SEAT 3",)


def test_lobby_keys_return_nothing_and_prompt_names_keys() -> None:
    """In the lobby key() returns None and the prompt reads "< > move  SEL change"."""
    ui = get_plugin("riiing").hand(1)
    ui.show("lobby", None)
    assert press(ui, [L, R, S, B]) == [None] * 4
    model = ui.screen()
    assert model.prompt == "< > move  SEL change"
    assert model.seat_label == "2"
    assert model.banner == ("SEAT 2",)


def test_wakeup_prompt_asks_for_a_slap() -> None:
    """The wake-up race shows "SLAP to start!" and ignores the handheld's keys."""
    ui = get_plugin("riiing").hand(0)
    ui.show("wakeup", None)
    assert ui.screen().prompt == "SLAP to start!"
    assert ui.key(S) is None


def test_gameover_names_the_winner() -> None:
    """Game over shows "Seat 3 wins" (seat 2, counted from 1) or "You win!", and says
    SELECT starts a new game."""
    ui = get_plugin("riiing").hand(0)
    ui.show("gameover", rview(["3S/E"], [], seat=0, winner=2, to_move=None))
    assert ui.screen().prompt == "Seat 3 wins"
    assert ui.screen().banner == ("SEAT 3 WINS", "SEL: new game")
    assert ui.key(S) is None
    me = get_plugin("right-on-time").hand(2)
    me.show("gameover", tview([], [], seat=2, winner=2, to_move=None))
    assert me.screen().prompt == "You win!"
    assert me.screen().banner == ("YOU WIN!", "SEL: new game")


def test_show_message_is_shown_and_back_clears_it() -> None:
    """A message given to show() is on the prompt until BACK clears it."""
    ui = get_plugin("riiing").hand(2)
    view = rview(["7C/>"], ["play 7C/>"])
    ui.show("play", view, "Seat 4 drew 1 card")
    assert ui.screen().prompt == "Seat 4 drew 1 card"
    ui.show("play", view)  # the same view again keeps the message
    assert ui.screen().prompt == "Seat 4 drew 1 card"
    assert ui.key(B) is None
    assert ui.screen().prompt != "Seat 4 drew 1 card"


# --- Riiing! ---------------------------------------------------------------------------------

RHAND = ("7C/>", "3S/E", "!T/~", "9A/<", "P/{2,5,8}", "8T/O", "2C/=")
RLEGAL = ("play 7C/>", "play 9A/<", "play 8T/O", "play !T/~", "play P/{2,5,8}")


def test_riiing_select_plays_the_card_under_the_cursor() -> None:
    """SELECT on a playable card returns "play <card>" exactly as legal spells it."""
    ui = get_plugin("riiing").hand(2)
    ui.show("play", rview(RHAND, RLEGAL))
    assert press(ui, [S]) == ["play 7C/>"]


def test_riiing_refused_play_shows_the_condition() -> None:
    """SELECT on an unplayable card returns None and says in words what the condition asks,
    "No: need higher than 6", as an alert."""
    ui = get_plugin("riiing").hand(2)
    ui.show("play", rview(RHAND, RLEGAL))
    assert press(ui, [R, S]) == [None, None]
    model = ui.screen()
    assert model.prompt == "No: need higher than 6"
    assert model.alert
    assert press(ui, [L, S]) == [None, "play 7C/>"]


@pytest.mark.parametrize(
    ("condition", "last", "reason"),
    [
        ("<", "6T/<", "No: need lower than 6"),
        ("=", "6T/<", "No: need a 6"),
        ("~", "6T/<", "No: need a TOAST"),
        ("E", "6T/<", "No: need an even number"),
        ("O", "6T/<", "No: need an odd number"),
        ("{2,5,8}", "6T/<", "No: need 2, 5 or 8"),
    ],
)
def test_riiing_refusal_names_each_condition(condition: str, last: str, reason: str) -> None:
    """Each condition kind gives its own refusal in words (RI-3.2); the cursor starts on
    the one playable card, so LEFT reaches the other."""
    ui = get_plugin("riiing").hand(2)
    ui.show("play", rview(["3S/E", "4A/<"], ["play 4A/<"], condition=condition, last_card=last))
    assert ui.screen().cursor == 1
    press(ui, [L, S])
    assert ui.screen().prompt == reason


def test_riiing_refusal_under_demand_and_phone_chain() -> None:
    """Under a demand the reason is "No: must play a TOAST"; in a phone chain "No: PHONE or
    take 2" (RI-5.3, RI-5.4)."""
    ui = get_plugin("riiing").hand(2)
    ui.show("play", rview(["3S/E", "4T/<"], ["play 4T/<"], demand="T"))
    press(ui, [L, S])
    assert ui.screen().prompt == "No: must play a TOAST"
    assert ui.screen().condition == "TOAST!"
    ui.show("play", rview(["3S/E", "P/<"], ["play P/<", "take"], phones=2))
    ui.key(S)  # the cursor stayed on 3S/E
    assert ui.screen().prompt == "No: PHONE or take 2"
    assert ui.screen().condition == "PHONE x2"


def test_riiing_draw_tile_is_last_and_draws() -> None:
    """With "draw" legal a final +1 tile follows the hand; SELECT on it returns "draw"."""
    ui = get_plugin("riiing").hand(2)
    ui.show("play", rview(["3S/E", "4C/<"], ["draw"]))
    tiles = ui.screen().tiles
    assert [t.kind for t in tiles] == ["card", "card", "action"]
    assert tiles[-1].label == "+1" and tiles[-1].playable
    assert not tiles[0].playable
    assert ui.screen().cursor == 2  # the only choice
    assert press(ui, [R, R, R, S]) == [None, None, None, "draw"]  # round the strip


def test_riiing_draw_under_demand_says_until_symbol() -> None:
    """Under a demand the draw tile reads +? and the prompt names the symbol (RI-5.3)."""
    ui = get_plugin("riiing").hand(2)
    ui.show("play", rview(["3S/E"], ["draw"], demand="C"))
    model = ui.screen()
    assert model.tiles[-1].label == "+?"
    assert model.prompt == "SEL: draw till a COFFEE"
    assert said(ui.key(S)) == "draw"


def test_riiing_take_tile_takes_the_chain() -> None:
    """In a phone chain of 2 the final tile is +2 (take) and SELECT returns "take"."""
    ui = get_plugin("riiing").hand(2)
    ui.show("play", rview(["3S/E", "P/<"], ["play P/<", "take"], phones=2))
    model = ui.screen()
    assert model.tiles[-1].label == "+2" and model.tiles[-1].glyph == "P"
    assert press(ui, [R, S]) == [None, "play P/<"]
    ui.show("play", rview(["3S/E", "P/<"], ["play P/<", "take"], phones=2, draw_count=29))
    assert press(ui, [R, S]) == [None, "take"]


def test_riiing_not_your_turn() -> None:
    """Off turn SELECT returns None and says "Not your turn"; no tile is playable."""
    ui = get_plugin("riiing").hand(2)
    ui.show("play", rview(RHAND, [], to_move=0))
    assert ui.key(S) is None
    model = ui.screen()
    assert model.prompt == "Not your turn"
    assert model.turn == "SEAT 1"
    assert not any(t.playable for t in model.tiles)


def test_riiing_window_blocks_plays_and_shows_riiing() -> None:
    """While a RIIING! window is open the header says RIIING! and SELECT plays nothing
    (slaps come from the slap button, RI-6.2)."""
    ui = get_plugin("riiing").hand(2)
    ui.show("play", rview(RHAND, ["slap 2"], window="C", condition="*C"))
    assert ui.key(S) is None
    model = ui.screen()
    assert model.turn == "SLAP!" and model.condition == "RIIING!"
    assert not model.my_turn
    assert model.prompt == "RIIING! Slap first!"
    assert ui.key(L) is None
    assert ui.screen().prompt == "SLAP: drop all COFFEE"


def test_riiing_second_select_after_submit_is_ignored() -> None:
    """After a submit, SELECT returns None until a new view arrives; then it works again."""
    ui = get_plugin("riiing").hand(2)
    view = rview(RHAND, RLEGAL)
    ui.show("play", view)
    assert press(ui, [S, S, R, S]) == ["play 7C/>", None, None, None]
    ui.show("play", view)  # the same view again does not re-arm
    assert ui.key(S) is None
    after = rview(RHAND[1:], [], to_move=3)
    ui.show("play", after)
    assert ui.key(S) is None
    assert ui.screen().prompt == "Not your turn"


def test_riiing_notice_rearms_after_an_engine_refusal() -> None:
    """notice() shows the engine's refusal and lets the seat submit again."""
    ui = get_plugin("riiing").hand(2)
    ui.show("play", rview(RHAND, RLEGAL))
    assert said(ui.key(S)) == "play 7C/>"
    ui.notice("No: not now (RI-4.1)")
    assert ui.screen().prompt == "No: not now (RI-4.1)" and ui.screen().alert
    assert said(ui.key(S)) == "play 7C/>"


def test_riiing_cursor_follows_the_same_card() -> None:
    """A new view keeps the cursor on the same card though cards before it changed."""
    ui = get_plugin("riiing").hand(2)
    ui.show("play", rview(RHAND, RLEGAL))
    press(ui, [R, R, R])  # on 9A/<
    ui.show("play", rview(("1A/E", *RHAND), RLEGAL))
    assert said(ui.key(S)) == "play 9A/<"
    ui2 = get_plugin("riiing").hand(2)
    ui2.show("play", rview(RHAND, RLEGAL))
    press(ui2, [R, R, R])
    ui2.show("play", rview(("7C/>", "3S/E", "!T/~"), ["play 7C/>", "play !T/~"]))  # clamp
    assert ui2.screen().cursor == 2


def test_riiing_scroll_arrows_and_visible_tiles() -> None:
    """Seven cards show five at a time with a right arrow; at the end a left arrow."""
    ui = get_plugin("riiing").hand(2)
    ui.show("play", rview(RHAND, RLEGAL))
    model = ui.screen()
    assert len(model.tiles) == VISIBLE_TILES
    assert model.scroll_right and not model.scroll_left
    press(ui, [R] * 6)
    model = ui.screen()
    assert model.scroll_left and not model.scroll_right
    assert model.cursor == VISIBLE_TILES - 1
    assert model.tiles[-1].label == "2"


def test_riiing_condition_short_forms() -> None:
    """The header condition in words, not notation (RI-3): "OVER 6", open "ANY" after a
    Phone, "2 5 8", "ODD", "COFFEES" (any coffee card), "UNDER 6", "SAME 6"."""
    assert riiing_condition(rview([], [])) == "OVER 6"
    assert riiing_condition(rview([], [], condition="<")) == "UNDER 6"
    assert riiing_condition(rview([], [], condition="=")) == "SAME 6"
    assert riiing_condition(rview([], [], last_card="P/>")) == "ANY"
    assert riiing_condition(rview([], [], condition="{2,5,8}")) == "2 5 8"
    assert riiing_condition(rview([], [], condition="O")) == "ODD"
    assert riiing_condition(rview([], [], condition="~", last_card="!C/E")) == "COFFEES"
    assert riiing_condition(rview([], [], condition=None)) == "ANY"


@pytest.mark.parametrize("seed", range(30))
def test_riiing_random_legal_sets_are_exactly_reachable(seed: int) -> None:
    """For random seeded hands and legal sets, every returned action is legal and every
    legal play/draw/take is reachable."""
    rng = random.Random(seed)
    fronts = [f"{n}{s}" for n in range(1, 10) for s in "ASCT"] + ["!A", "!T", "P"]
    hand = [f"{rng.choice(fronts)}/{rng.choice('<>=~EO')}" for _ in range(rng.randint(1, 9))]
    legal = {f"play {c}" for c in hand if rng.random() < 0.5}
    if not legal:
        legal.add("draw")
    if rng.random() < 0.3:
        legal.add("take")
    ui = get_plugin("riiing").hand(2)
    ui.show("play", rview(hand, legal, phones=2 if "take" in legal else 0))
    actions, _ = explore(ui)
    assert actions == legal


# --- Right on Time: the lay composer --------------------------------------------------------


def test_rot_tokens_read_every_action_form() -> None:
    """Action texts split into choices; non-hand actions give None."""
    assert rot_tokens("play 6") == (("card", "6"), ("alone", ""), ("end", ""))
    assert rot_tokens("play J=2 Z3 @1") == (
        ("card", "J"),
        ("card", "Z3"),
        ("value", "2"),
        ("effect", "@"),
        ("target", "1"),
        ("end", ""),
    )
    assert rot_tokens("bonus J 3") == (("bonus", "J"), ("swap", "3"), ("end", ""))
    assert rot_tokens("draw") == (("draw", ""), ("end", ""))
    assert rot_tokens("slap 2") is None
    assert rot_tokens("play J3") is None


def test_rot_single_higher_card_takes_three_presses() -> None:
    """A single higher card: LEFT wraps round to it, SELECT, SELECT to confirm: 3 presses;
    the confirmation asks in words, "Lay 6?"."""
    ui = get_plugin("right-on-time").hand(0)
    ui.show("play", tview(["2", "3", "6"], rot_legal(["2", "3", "6"], 4, 3, 0)))
    assert press(ui, [L, S]) == [None, None]
    model = ui.screen()
    assert model.banner == ("Lay 6?",) and model.prompt == "SEL: yes  BACK: no"
    assert model.tiles == () and model.cursor is None
    assert said(ui.key(S)) == "play 6"


def test_rot_pair_in_both_orders_takes_four_presses() -> None:
    """A pair: move, SELECT, (the cursor starts on the only partner) SELECT, SELECT: the
    first chosen goes down first, the words say which ends on top."""
    hand = ["2", "3", "6"]
    legal = rot_legal(hand, 4, 3, 0)
    ui = get_plugin("right-on-time").hand(0)
    ui.show("play", tview(hand, legal))
    assert press(ui, [R, S, S, S]) == [None, None, None, "play 3 2"]
    ui2 = get_plugin("right-on-time").hand(0)
    ui2.show("play", tview(hand, legal))
    assert press(ui2, [S, S]) == [None, None]
    assert ui2.screen().banner == ("Lay 2, then", "3 on top?")
    assert said(ui2.key(S)) == "play 2 3"


def test_rot_first_card_stays_raised_while_the_second_is_chosen() -> None:
    """After the first SELECT the card is raised, only pair partners are playable and the
    cursor moves to the only one; SELECT on the raised card says a 2nd is needed."""
    hand = ["2", "3", "6"]
    ui = get_plugin("right-on-time").hand(0)
    ui.show("play", tview(hand, rot_legal(hand, 4, 3, 0)))
    ui.key(S)
    model = ui.screen()
    assert [t.raised for t in model.tiles] == [True, False, False]
    assert [t.playable for t in model.tiles] == [False, True, False]
    assert model.cursor == 1 and model.prompt == "Lay 2, then which?"
    press(ui, [L, S])  # SELECT on the raised card: it cannot go alone on a 4
    assert ui.screen().prompt == "No: pick a 2nd card"


def test_rot_pair_with_joker_value_takes_six_presses() -> None:
    """Joker + 2 on a 4: SELECT J, move, SELECT 2, picker 1-4 (move to 2), SELECT,
    SELECT to confirm: 6 presses for "play J=2 2"."""
    hand = ["J", "2"]
    ui = get_plugin("right-on-time").hand(0)
    ui.show("play", tview(hand, rot_legal(hand, 4, 3, 0)))
    assert press(ui, [S, R, S]) == [None] * 3
    model = ui.screen()
    assert model.picker is not None
    assert model.picker.title == "JOKER COUNTS AS?"
    assert model.picker.options == ("1", "2", "3", "4")
    assert model.prompt == "Lay Joker, then 2 on top"
    assert press(ui, [R, S]) == [None, None]
    assert ui.screen().banner == ("Lay Joker as 2,", "then 2 on top?")
    assert said(ui.key(S)) == "play J=2 2"


def test_rot_joker_alone_offers_only_higher_values_and_the_picker_wraps() -> None:
    """A Joker alone on a 4 offers 5, 6, 7 only (RT-3.1, RT-3.4); RIGHT past 7 wraps to 5
    and LEFT from 5 to 7."""
    ui = get_plugin("right-on-time").hand(0)
    ui.show("play", tview(["J", "7"], rot_legal(["J", "7"], 4, 3, 0)))
    ui.key(S)  # no partner <= 4: "alone" is taken at once, the value picker shows
    picker = ui.screen().picker
    assert picker is not None and picker.options == ("5", "6", "7")
    press(ui, [R, R, R])
    picker = ui.screen().picker
    assert picker is not None and picker.cursor == 0
    press(ui, [L])
    picker = ui.screen().picker
    assert picker is not None and picker.options[picker.cursor] == "7"
    assert press(ui, [S, S]) == [None, "play J=7"]


def test_rot_joker_alone_or_in_a_pair() -> None:
    """A Joker that can go alone or in a pair stays raised: SELECT it again to lay it
    alone, or choose a partner."""
    hand = ["J", "2"]
    ui = get_plugin("right-on-time").hand(0)
    ui.show("play", tview(hand, rot_legal(hand, 4, 3, 0)))
    assert ui.screen().prompt == "SEL Joker: alone or pair"
    ui.key(S)
    model = ui.screen()
    assert model.prompt == "SEL: lay Joker alone"
    assert [(t.raised, t.playable) for t in model.tiles] == [(True, True), (False, True)]
    ui.key(S)
    picker = ui.screen().picker
    assert picker is not None and picker.options == ("5", "6", "7")
    assert press(ui, [S, S]) == [None, "play J=5"]


def test_rot_du_bist_target_takes_four_presses() -> None:
    """Du bist! alone, the only card that can be laid: the cursor starts on it; SELECT
    (alone and effect are automatic), the target picker starts on the left neighbour;
    move once, SELECT, confirm: 4 presses for "play D5 >2", asked as "Seat 3 goes
    next?"."""
    hand = ["D5", "1"]
    ui = get_plugin("right-on-time").hand(0)
    ui.show("play", tview(hand, rot_legal(hand, 4, 4, 0), seats=4))
    assert ui.key(S) is None
    model = ui.screen()
    assert model.picker is not None
    assert model.picker.title == "WHO GOES NEXT?"
    assert model.picker.options == ("2", "3", "4") and model.picker.cursor == 0
    assert model.prompt == "Lay Du bist! 5"
    assert press(ui, [R, S]) == [None, None]
    assert ui.screen().banner == ("Lay Du bist! 5:", "Seat 3 goes next?")  # seat index 2
    assert said(ui.key(S)) == "play D5 >2"


def test_rot_ziehen_may_target_me_and_skips_out_seats() -> None:
    """Ziehen! offers every seat still in, this seat last as "ME", never an out seat
    (RT-4.2); choosing ME asks "you draw a card?"."""
    hand = ["Z7", "1"]
    legal = rot_legal(hand, 4, 4, 1, out=[3])
    ui = get_plugin("right-on-time").hand(1)
    ui.show("play", tview(hand, legal, seats=4, seat=1, out=(3,)))
    ui.key(S)
    picker = ui.screen().picker
    assert picker is not None and picker.title == "WHO DRAWS A CARD?"
    assert picker.options == ("3", "1", "ME")
    assert press(ui, [R, R, S]) == [None, None, None]
    assert ui.screen().banner == ("Lay Ziehen! 7:", "you draw a card?")
    assert said(ui.key(S)) == "play Z7 @1"


def test_rot_two_effects_choose_which_then_target() -> None:
    """Du bist! and Ziehen! together: pick the effect (DU BIST! / ZIEHEN!), then its target
    (RT-4.3); the confirmation names both cards and the effect."""
    hand = ["D3", "Z2"]
    ui = get_plugin("right-on-time").hand(0)
    ui.show("play", tview(hand, rot_legal(hand, 4, 3, 0)))
    press(ui, [S, S])
    model = ui.screen()
    assert model.picker is not None
    assert model.picker.title == "WHICH EFFECT?"
    assert model.picker.options == ("DU BIST!", "ZIEHEN!")
    assert model.prompt == "Du bist! 3 + Ziehen! 2"  # the sentence is too wide here
    press(ui, [R, S])
    picker = ui.screen().picker
    assert picker is not None and picker.options == ("2", "3", "ME")
    ui.key(S)
    assert ui.screen().banner == (
        "Lay Du bist! 3,", "then Ziehen! 2 on top:", "Seat 2 draws a card?"
    )
    assert said(ui.key(S)) == "play D3 Z2 @1"


def test_rot_effect_with_single_target_is_automatic() -> None:
    """With three seats and seat 3 out, a Du bist! has one target (not the layer, not an
    out seat, RT-4.1): no picker, straight to confirm."""
    hand = ["D5", "1"]
    ui = get_plugin("right-on-time").hand(0)
    ui.show("play", tview(hand, rot_legal(hand, 4, 3, 0, out=[2]), seats=3, out=(2,)))
    ui.key(S)
    model = ui.screen()
    assert model.picker is None
    assert model.banner == ("Lay Du bist! 5:", "Seat 2 goes next?")
    assert model.prompt == "SEL: yes  BACK: no"
    assert said(ui.key(S)) == "play D5 >1"


def test_rot_bonus_swap() -> None:
    """A bonus card tile: SELECT it, choose the hand card to put away, confirm (RT-6.4)."""
    hand = ["2", "3"]
    ui = get_plugin("right-on-time").hand(0)
    ui.show("play", tview(hand, rot_legal(hand, 6, 3, 0, bonus=["J"]), top_value=6, bonus=["J"]))
    tiles = ui.screen().tiles
    assert [t.kind for t in tiles] == ["card", "card", "bonus"]
    assert tiles[2].playable
    assert press(ui, [L]) == [None]
    assert ui.screen().prompt == "SEL: swap bonus Joker in"
    assert press(ui, [S]) == [None]
    assert ui.screen().prompt == "Swap Joker in for which?"
    assert press(ui, [L, S]) == [None, None]
    assert ui.screen().banner == ("Swap Joker in,", "put 3 under the pile?")
    assert said(ui.key(S)) == "bonus J 3"


def test_rot_draw_when_no_lay() -> None:
    """With no lay the only tile to choose is +1 (draw), where the cursor starts; the card
    is refused with a reason; the draw is confirmed (RT-5.1)."""
    ui = get_plugin("right-on-time").hand(0)
    ui.show("play", tview(["2"], ["draw"], top_value=6))
    assert ui.screen().cursor == 1 and ui.screen().prompt == "SEL: draw a card"
    assert press(ui, [L, S]) == [None, None]
    assert ui.screen().prompt == "No lay: draw a card"
    assert press(ui, [R, S]) == [None, None]
    assert ui.screen().banner == ("Draw a card?",)
    assert said(ui.key(S)) == "draw"


def test_rot_back_steps_back_one_choice() -> None:
    """BACK from confirm returns to the Joker picker (value kept highlighted), then to the
    second card, then to nothing chosen."""
    hand = ["J", "2"]
    ui = get_plugin("right-on-time").hand(0)
    ui.show("play", tview(hand, rot_legal(hand, 4, 3, 0)))
    press(ui, [S, R, S, R, R, S])
    assert ui.screen().banner == ("Lay Joker as 3,", "then 2 on top?")
    ui.key(B)
    picker = ui.screen().picker
    assert picker is not None and picker.options[picker.cursor] == "3"
    ui.key(B)
    model = ui.screen()
    assert model.picker is None and model.banner == ()
    assert [t.raised for t in model.tiles] == [True, False]
    ui.key(B)
    assert not any(t.raised for t in ui.screen().tiles)
    assert ui.key(B) is None  # nothing left to undo: harmless


def test_rot_refusal_reasons() -> None:
    """A low card without a partner: "No: above 4 or a pair"; a high second card: "No:
    each 4 or less"; off turn: "Not your turn"."""
    ui = get_plugin("right-on-time").hand(0)
    ui.show("play", tview(["2", "6"], rot_legal(["2", "6"], 4, 3, 0)))
    assert ui.screen().cursor == 1  # the 6 is the only card that can be laid
    press(ui, [L, S])
    assert ui.screen().prompt == "No: above 4 or a pair"
    ui2 = get_plugin("right-on-time").hand(0)
    hand = ["2", "3", "6"]
    ui2.show("play", tview(hand, rot_legal(hand, 4, 3, 0)))
    press(ui2, [S, R, S])
    assert ui2.screen().prompt == "No: each 4 or less"
    ui3 = get_plugin("right-on-time").hand(0)
    ui3.show("play", tview(hand, [], to_move=1))
    assert ui3.key(S) is None
    assert ui3.screen().prompt == "Not your turn"


def test_rot_new_legal_set_resets_a_half_composed_lay() -> None:
    """A view whose legal set changed drops the raised card; the same view keeps it."""
    hand = ["2", "3", "6"]
    view = tview(hand, rot_legal(hand, 4, 3, 0))
    ui = get_plugin("right-on-time").hand(0)
    ui.show("play", view)
    ui.key(S)
    ui.show("play", view)
    assert ui.screen().tiles[0].raised
    ui.show("play", tview(hand, rot_legal(hand, 2, 3, 0), top_value=2))
    assert not any(t.raised for t in ui.screen().tiles)


def test_rot_confirm_select_twice_submits_once() -> None:
    """SELECT twice at the confirm step submits once; the second press returns None."""
    ui = get_plugin("right-on-time").hand(0)
    ui.show("play", tview(["6"], ["play 6"]))
    assert press(ui, [S, S, S, B, S]) == [None, "play 6", None, None, None]


def test_rot_opening_lay_offers_any_single_card() -> None:
    """The round's opening lay (no top card) takes any one card; the header says OPEN
    (RT-2.2)."""
    hand = ["1", "J"]
    ui = get_plugin("right-on-time").hand(0)
    ui.show("play", tview(hand, rot_legal(hand, None, 3, 0), top_value=None))
    assert ui.screen().condition == "OPEN"
    assert press(ui, [S, S]) == [None, "play 1"]


def test_rot_only_the_legal_subset_is_offered() -> None:
    """When legal holds "play 3 J=2" but not "play J=2 3", the Joker cannot go first; after
    3 the cursor starts on the Joker and its only value is taken at once."""
    ui = get_plugin("right-on-time").hand(0)
    ui.show("play", tview(["3", "J"], ["play 3 J=2"]))
    assert [t.playable for t in ui.screen().tiles] == [True, False]
    press(ui, [S, S])
    assert ui.screen().banner == ("Lay 3, then", "Joker as 2 on top?")
    assert said(ui.key(S)) == "play 3 J=2"


@pytest.mark.parametrize("seed", range(40))
def test_rot_random_legal_sets_are_exactly_reachable(seed: int) -> None:
    """For random seeded positions (and random subsets of their legal sets) every returned
    action is in legal, every legal action is reachable, and no offered choice is a dead
    end."""
    rng = random.Random(seed)
    seats = rng.randint(2, 6)
    seat = rng.randrange(seats)
    hand = [rng.choice(DECK) for _ in range(rng.randint(1, 7))]
    top = rng.choice([None, 0, 1, 2, 3, 4, 5, 6, 7])
    out = [s for s in range(seats) if s != seat and rng.random() < 0.2][:1]  # RT-6.2
    bonus = [rng.choice(DECK)] if rng.random() < 0.3 else []
    legal = rot_legal(hand, top, seats, seat, out, bonus)
    if seed % 2:
        legal = [a for a in legal if rng.random() < 0.4] or legal[:1]
    view = tview(hand, legal, top_value=top, seats=seats, seat=seat, bonus=bonus, out=tuple(out))
    ui = get_plugin("right-on-time").hand(seat)
    ui.show("play", view)
    actions, _ = explore(ui)
    assert actions == set(view.legal)


@pytest.mark.parametrize("game", ["riiing", "right-on-time"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_engine_views_are_exactly_reachable(game: str, seed: int) -> None:
    """Along a seeded random game of the real engine, every hand action in the seat's
    view is reachable by keys and nothing else is returned."""
    engine = get_game(game)
    rng = random.Random(seed)
    pos = engine.new(rng.randint(2, 6), seed)
    checked = 0
    for step in range(120):
        if engine.outcome(pos) is not None:
            break
        seat = engine.view(pos, None).to_move
        if seat is not None and step % 4 == 0:
            view = engine.view(pos, seat)
            want = {a for a in view.legal if a.split(" ")[0] in ("play", "draw", "take", "bonus")}
            if want:
                ui = get_plugin(game).hand(seat)
                ui.show("play", view)
                assert explore(ui, limit=100000)[0] == want
                checked += 1
        pos, _ = engine.apply(pos, rng.choice(engine.legal(pos)))
    assert checked > 0


def test_with_nothing_playable_the_cursor_starts_on_draw() -> None:
    """Riiing!: when the only legal action is `draw` (RI-4.2) the cursor starts on the DRAW
    tile, so one SELECT draws (not RIGHT pressed past all eight cards first)."""

    hand = ("1S/O", "2C/E", "3T/>", "1A/<", "2S/~", "3C/=", "1T/O", "2A/E")
    view = RiiingView(seats=2, seat=0, hand=hand, hand_counts=(8, 5), draw_count=10,
                      discard_count=3, condition=">", last_card="9C/E", to_move=0,
                      demand=None, phones=0, window=None, winner=None, legal=("draw",))
    ui = get_plugin("riiing").hand(0)
    ui.show("play", view)
    assert said(ui.key(HandKey.SELECT)) == "draw"


def test_ziehen_and_the_draw_tile_have_different_glyphs() -> None:
    """On the OLED a Ziehen! card and the DRAW (+1) tile differ in shape, so neither is
    read for the other."""
    ui = get_plugin("right-on-time").hand(0)
    ui.show("play", tview(["Z3", "2"], ["draw"], top_value=7))
    tiles = ui.screen().tiles
    ziehen = next(t for t in tiles if t.kind == "card" and t.label == "3")
    draw_tile = next(t for t in tiles if t.kind == "action")
    assert ziehen.glyph != draw_tile.glyph


def test_a_seat_without_a_game_shows_its_number_and_ignores_keys() -> None:
    """Before a game is chosen a seat's hand is :class:`NoHand`: its screen is the seat's
    number, a key makes no action and is not a refusal, a view or notice changes nothing."""
    from luma.core.device import dummy

    from device.hands.seats import Handheld, NoHand, Seat

    seat = Seat(2, Handheld(2, dummy(width=128, height=64, mode="1")))
    assert isinstance(seat.hand, NoHand)
    before = seat.screen()
    assert before.seat_label == "3"
    for k in HandKey:
        assert seat.hand.key(k) is None
        assert not seat.hand.refused
    seat.hand.show("play", None, "hello")
    seat.hand.notice("No: not now")
    assert seat.screen() == before
