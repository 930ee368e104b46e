"""What a seat infers about the other hands from the public history
(``engine.riiing.inference``), and the hard player's determinizations honouring it
(``engine.riiing.hard``): every fact is true of the real hands (RI-4.2, RI-5.3, RI-6.3),
and a sampled hand is one the facts allow."""

from __future__ import annotations

import random

from riiing_helpers import make

from engine.riiing import HeuristicBot, RiiingAction, RiiingGame, RiiingPosition
from engine.riiing.hard import RiiingSearch
from engine.riiing.inference import HandTracker, Slot, of_symbol, playable

GAME = RiiingGame()


def fits(hand: list[str], slots: list[Slot]) -> bool:
    """Whether the cards of ``hand`` can be given one slot each that allows them (a
    bipartite matching by augmenting paths)."""
    owner: dict[int, int] = {}

    def place(card: int, seen: set[int]) -> bool:
        for i, slot in enumerate(slots):
            if hand[card] not in slot and i not in seen:
                seen.add(i)
                if i not in owner or place(owner[i], seen):
                    owner[i] = card
                    return True
        return False

    return len(hand) == len(slots) and all(place(c, set()) for c in range(len(hand)))


def step(tracker: HandTracker, pos: RiiingPosition, text: str) -> RiiingPosition:
    """Apply ``text`` and let ``tracker`` see it as the table did."""
    action = RiiingAction.parse(text)
    after, _ = GAME.apply(pos, action)
    tracker.update(GAME.view(pos, None), action, GAME.view(after, None))
    return after


def test_every_fact_is_true_of_the_real_hands() -> None:
    """60 seeded heuristic games of 2-4 seats, seat 0 watching: after every action each
    other hand fits its slots, and the history taught something (many slots with facts)."""
    checks = facts = 0
    for i in range(60):
        seats = 2 + i % 3
        rng = random.Random(i)
        bots = [HeuristicBot(s, rng) for s in range(seats)]
        tracker = HandTracker(0)
        before = GAME.new(seats, 7000 + i)
        for line, after, _events in GAME.autoplay(before, bots, rng):
            tracker.update(GAME.view(before, None), GAME.parse_action(line.action),
                           GAME.view(after, None))
            for s in range(1, seats):
                hand = [card.code for card in after.hands[s]]
                slots = list(tracker.hand(s))
                assert fits(hand, slots), (i, line, s)
                facts += sum(1 for slot in slots if slot)
                checks += 1
            before = after
    assert checks > 1000
    assert facts > checks  # on average more than one card of a hand is known not to be some


def test_a_seat_that_draws_held_nothing_playable() -> None:
    """RI-4.2: seat 1 draws under `>` on a 9: none of its cards is a demand card, a Phone
    or a number above 9 — the cards it held are each known not to be any playable card."""
    pos = make([["2A/>", "3S/<"], ["1C/>", "4T/<", "5A/E"]],
               ["7C/>", "6S/=", "8T/>"], ["9S/>"], to_move=1)
    tracker = HandTracker(0)
    pos = step(tracker, pos, "draw")
    slots = list(tracker.hand(1))
    cannot = playable("standard", ">", "9S/>")
    assert "!A/<" in cannot and any(code.startswith("P/") for code in cannot)
    assert slots[:3] == [cannot] * 3 and slots[3] == frozenset()  # the drawn card: free
    assert fits(["1C/>", "4T/<", "5A/E", "7C/>"], slots)


def test_a_slapper_keeps_no_card_of_the_symbol() -> None:
    """RI-6.3: seat 1 wins a coffee RIIING!: what it keeps is known not to be coffee."""
    pos = make([["2A/>", "3S/<"], ["1C/>", "4T/<", "5A/E"]],
               ["7C/*C", "6S/="], ["9S/>"], to_move=0, window="C")
    tracker = HandTracker(0)
    pos = step(tracker, pos, "slap 1")
    assert len(tracker.hand(1)) == 2
    assert all(of_symbol("standard", "C") <= slot for slot in tracker.hand(1))


def test_a_demanded_seat_that_draws_held_none_of_the_symbol() -> None:
    """RI-5.3: under a toast demand seat 1 draws until a toast arrives: its old cards and
    the cards drawn before the toast are known not to be toast."""
    pos = make([["2A/>", "3S/<"], ["1C/>", "5A/E"]],
               ["8A/>", "7C/>", "6S/=", "3T/E"], ["!T/>"], to_move=1,
               demand={"symbol": "T"})
    tracker = HandTracker(0)
    pos = step(tracker, pos, "draw")
    toast = of_symbol("standard", "T")
    assert [card.code for card in pos.hands[1]] == ["1C/>", "5A/E", "8A/>", "7C/>", "6S/="]
    assert list(tracker.hand(1)) == [toast] * 5


def test_a_history_it_cannot_follow_only_loses_facts() -> None:
    """Views whose counts jump (a hand-made history) never raise: each seat's slots follow
    its public card count."""
    a = make([["2A/>", "3S/<"], ["1C/>", "4T/<", "5A/E"]], ["6S/=", "7C/>"], ["9S/>"])
    b = make([["2A/>"], ["1C/>"]], ["6S/=", "7C/>", "3S/<", "4T/<", "5A/E"], ["9S/>"],
             to_move=1)
    tracker = HandTracker(0)
    tracker.update(GAME.view(a, None), RiiingAction.parse("draw"), GAME.view(b, None))
    assert len(tracker.hand(1)) == 1
    tracker.update(GAME.view(b, None), RiiingAction.parse("take"), GAME.view(a, None))
    assert len(tracker.hand(1)) == 3


def test_determinizations_give_hands_the_facts_allow() -> None:
    """The hard player's samples honour the slots: seat 1 drew with nothing playable under
    `>` on a 9, so at most one card of its sampled hand (the one it drew) is a demand card
    or a Phone, while the prior sampling (no tracker) often gives it two or more."""
    pos = make([["2A/>", "3S/<", "P/E"], ["1C/>", "4T/<", "5A/E"]],
               ["!C/>", "6S/=", "8T/>"], ["9S/>"], to_move=1)
    tracker = HandTracker(0)
    pos = step(tracker, pos, "draw")
    view = GAME.view(pos, 0)  # seat 0 is to move
    cannot = playable("standard", ">", "9S/>")
    rng = random.Random(3)
    informed = RiiingSearch(view, tracker)
    blind = RiiingSearch(view)
    codes = informed.table.codes
    blind_two = 0
    for _ in range(200):
        hand = [codes[c] for c in informed.determinize(rng).hands[1]]
        assert len(hand) == 4 and sum(code in cannot for code in hand) <= 1, hand
        blind_hand = [codes[c] for c in blind.determinize(rng).hands[1]]
        blind_two += sum(code in cannot for code in blind_hand) >= 2
    assert blind_two > 20
