"""Engine events as short words for the table's top strip ("Seat 4 drew").

Public information only: a draw says how many cards, never which.  Seats are named for
people, from 1 (seat 0 is "Seat 1").  Each game has a function from one event to a line
or ``None`` (an event not worth a line, e.g. a reshuffle inside a draw).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import pairwise

from device.words import SYMBOL_WORDS, seat_name
from engine.core import Event
from engine.riiing.cards import RiiingCard


def riiing_card_words(code: str) -> str:
    """A Riiing! card's front in words (RI-1.1, read by the engine's ``RiiingCard``):
    ``"7C/>"`` -> ``"7 COFFEE"``, ``"!T/E"`` -> ``"TOAST!"``, ``"P/{1,4,7}"`` -> ``"PHONE"``."""
    card = RiiingCard.parse(code)
    if card.symbol is None:
        return SYMBOL_WORDS["P"]
    if card.number is None:
        return SYMBOL_WORDS[card.symbol] + "!"
    return f"{card.number} {SYMBOL_WORDS[card.symbol]}"


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def narrate_riiing(ev: Event) -> str | None:
    """One line for a Riiing! event, or ``None`` (see ``engine.riiing`` event kinds)."""
    who = seat_name(ev.seat) if ev.seat is not None else ""
    if ev.kind == "play":
        return f"{who} laid {riiing_card_words(ev.cards[0])}" if ev.cards else f"{who} laid"
    if ev.kind == "draw":
        return f"{who} drew {_count(len(ev.cards), 'card')}"
    if ev.kind == "take":
        return f"{who} took {_count(len(ev.cards), 'card')}"
    if ev.kind == "falseslap":
        return f"{who} slapped too early: +{_count(len(ev.cards), 'card')}"
    if ev.kind == "timeout":
        return "Nobody slapped in time"
    if ev.kind == "window":
        return f"RIIING! {SYMBOL_WORDS.get(str(ev.value), ev.value)}: SLAP!"
    if ev.kind == "win":
        return f"{who} has no cards left: {who} WINS!"
    return None


def rot_card_words(code: str) -> str:
    """A Right on Time card in words (RT-1): ``"J4"`` -> ``"Joker as 4"``, ``"N"`` ->
    ``"NULL"``, ``"D3"`` -> ``"Du bist! 3"``, ``"Z5"`` -> ``"Ziehen! 5"``, ``"6"`` -> ``"6"``."""
    if code.startswith("J") and code[1:].isdigit():
        return f"Joker as {code[1:]}"
    if code == "J":
        return "Joker"
    if code == "N":
        return "NULL"
    if code[:1] == "D":
        return f"Du bist! {code[1:]}"
    if code[:1] == "Z":
        return f"Ziehen! {code[1:]}"
    return code


def narrate_right_on_time(ev: Event) -> str | None:
    """One line for a Right on Time event, or ``None`` (see ``engine.right_on_time``)."""
    who = seat_name(ev.seat) if ev.seat is not None else ""
    if ev.kind == "play":
        return f"{who} laid {' + '.join(rot_card_words(c) for c in ev.cards)}"
    if ev.kind == "effect_up":
        return f"Du bist! {who} is up"
    if ev.kind == "effect_draw":
        return f"Ziehen! {who} draws a card"
    if ev.kind == "show":
        return f"{who} cannot lay: shows {', '.join(rot_card_words(c) for c in ev.cards)}, draws"
    if ev.kind == "out":
        return f"{who} is out"
    if ev.kind == "bonus":
        return f"{who} gets a bonus card"
    if ev.kind == "swap":
        return f"{who} swapped in a bonus card"
    if ev.kind == "round":
        return f"{who} wins round {ev.value}!"
    if ev.kind == "match":
        return f"{who} WINS THE MATCH!"
    return None


NARRATORS: dict[str, Callable[[Event], str | None]] = {
    "riiing": narrate_riiing,
    "right-on-time": narrate_right_on_time,
}


ACTS = frozenset({"play", "draw", "take", "falseslap", "timeout", "show", "swap"})
"""Event kinds that tell what the seat did; the others tell what followed from it."""


def _merge(texts: Sequence[str]) -> str:
    """Join lines, dropping a repeated leading seat name: ``["Seat 1 drew 7 cards",
    "Seat 1 laid 4 ALARM"]`` -> ``"Seat 1 drew 7 cards, laid 4 ALARM"``."""
    out = texts[0]
    for prev, text in pairwise(texts):
        who = " ".join(prev.split(" ")[:2]) + " "
        out += ", " + (text[len(who):] if prev.startswith("Seat ") and text.startswith(who)
                       else text)
    return out


def narrate(game: str, events: Sequence[Event]) -> str | None:
    """One line for one action's events: what the seat did, then what followed from it
    (``"Seat 3 laid 7 + 2 · Seat 3 is out, gets a bonus card"``); ``None`` if nothing
    has words."""
    fn = NARRATORS[game]
    acts: list[str] = []
    after: list[str] = []
    for ev in events:
        text = fn(ev)
        if text:
            (acts if ev.kind in ACTS else after).append(text)
    parts = [_merge(group) for group in (acts, after[-2:]) if group]
    return " · ".join(parts) or None
