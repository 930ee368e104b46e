"""Riiing!'s events as short words for the table's top strip ("Seat 4 drew 2 cards"), and
the demo game's captions of the rule being applied ("LOWER than 3: play a card below 3").

Public information only: a draw says how many cards, never which (see ``engine.riiing``'s
event kinds).  Seats are named for people, from 1.
"""

from __future__ import annotations

from collections.abc import Sequence

from device.common.words import a_number, count_words, or_list, seat_name
from device.games.narration import EventWords
from device.games.riiing.ri_words import card, card_words, read_condition, word
from engine.core import Event
from engine.riiing.view import RiiingView

ACTS = frozenset({"play", "draw", "take", "falseslap", "timeout"})
"""Event kinds that tell what the seat did; the others tell what followed from it."""


LINES = {
    "play": "{who} laid{laid}",
    "draw": "{who} drew {count}",
    "take": "{who} took {count}",
    "falseslap": "{who} slapped too early: +{count}",
    "timeout": "Nobody slapped in time",
    "lapse": "the {symbol} demand ends",  # RI-5.3: the draw-until stopped at a reverse, or ran dry
    "window": "RIIING! {symbol}: SLAP!",
    "win": "{who} has no cards left: {who} WINS!",
}
"""The top strip's line per event kind (:class:`device.games.narration.EventWords`); the
other kinds (a reshuffle inside a draw, ``slap``, ``demand``, ...) are not worth a line."""

WORDS = EventWords(
    LINES,
    ACTS,
    {
        "laid": lambda ev: f" {card_words(ev.cards[0])}" if ev.cards else "",
        "count": lambda ev: count_words(len(ev.cards), "card"),
        "symbol": lambda ev: word(str(ev.value)),
    },
)
"""Riiing!'s event words: :data:`LINES` with the card laid, the cards counted and the
symbol in words."""


def event_line(ev: Event) -> str | None:
    """One line for one Riiing! event, or ``None`` (an event not worth a line, e.g. a
    reshuffle inside a draw)."""
    return WORDS.line(ev)


def narrate(events: Sequence[Event]) -> str | None:
    """One line for one action's events (:func:`device.common.words.narrate_events`)."""
    return WORDS.narrate(events)


# --------------------------------------------------------------------------- demo captions


def a_word(symbol: str | None) -> str:
    """A symbol's word with its article: ``"an ALARM"``, ``"a TOAST"`` (:func:`word`)."""
    text = word(symbol)
    return ("an " if text[:1] in "AEIOU" and text else "a ") + text


def condition_caption(view: RiiingView) -> str:
    """The condition in force for the seat to move, in words with what it asks (RI-3):
    ``"LOWER than 3: play a card below 3"``, ``"SAME SYMBOL: play a COFFEE"``, ``"EVEN:
    play a 2, 4, 6 or 8"``; open conditions (RI-3.4, RI-3.5) say that any card goes."""
    cond = read_condition(view.condition, view.last_card)
    if cond.kind == "none":
        return "Draw pile empty: every card goes"  # RI-3.5
    n = cond.number
    if cond.kind in (">", "<", "="):
        name = {">": "HIGHER", "<": "LOWER", "=": "SAME NUMBER"}[cond.kind]
        if n is None:  # RI-3.4: the last card has no number
            return f"{name}: last card has no number, any goes"
        if cond.kind == ">":
            if n >= 9:  # no number card is higher: only special cards fit (RI-5.1)
                return "HIGHER than 9: no number fits, so draw"
            return f"HIGHER than {n}: play a card above {n}"
        if cond.kind == "<":
            if n <= 1:
                return "LOWER than 1: no number fits, so draw"
            return f"LOWER than {n}: play a card below {n}"
        return f"SAME NUMBER: play {a_number(n)}"
    if cond.kind == "~":
        if cond.symbol is None:  # RI-3.4: after a Phone
            return "SAME SYMBOL: after a PHONE any card goes"
        return f"SAME SYMBOL: play {a_word(cond.symbol)}"
    if cond.kind == "E":
        return "EVEN: play a 2, 4, 6 or 8"
    if cond.kind == "O":
        return "ODD: play a 1, 3, 5, 7 or 9"
    if cond.kind == "one_of":
        listed = or_list(cond.numbers)
        article = a_number(cond.numbers[0]).split(" ")[0] if cond.numbers else "a"
        return f"ONE OF {' '.join(map(str, cond.numbers))}: play {article} {listed}"
    return "Play a card that meets the condition"


def caption(events: Sequence[Event], view: RiiingView) -> str:
    """The demo's caption of the rule being applied after an action with ``events``
    (``view``: the public view after it).  What is happening now comes first: a win
    (RI-7.1), an open RIIING! window (RI-6.2), then what the action did when a special
    rule made it (a slap RI-6.3, a timeout RI-6.4, a false slap RI-6.5, a demand RI-5.2 /
    RI-5.3, a phone chain or take RI-5.4, a draw RI-4.2), else the condition the next seat
    must meet (:func:`condition_caption`).  Public only: drawn cards are only counted."""
    kinds = [e.kind for e in events]
    by_kind = {e.kind: e for e in events}
    if view.winner is not None:
        who = seat_name(view.winner)
        if "slap" in kinds:
            return f"{who} slapped away the last cards and wins"
        return f"{who} played the last card and wins"
    if view.window is not None:
        sym = word(view.window)
        return f"RIIING! First to slap drops every {sym}"
    if "slap" in by_kind:
        ev = by_kind["slap"]
        sym, who = word(str(ev.value)), seat_name(ev.seat or 0)
        if not ev.cards:
            return f"Fastest slap: {who} had no {sym} to drop"
        return f"Fastest slap: {who} drops every {sym}"
    if "timeout" in by_kind:
        return "Nobody slapped in time: play goes on"
    if "falseslap" in by_kind:
        cost = count_words(view.false_slap_penalty, "card")
        return f"Too early! Slap only on a RIIING!: +{cost}"
    if "demand" in by_kind:
        ev = by_kind["demand"]
        sym = str(ev.value)
        return f"{word(sym)}!: play {a_word(sym)}, or draw till one"
    if "chain" in by_kind:
        k = int(by_kind["chain"].value or 1)
        return f"PHONE x{k}: play a PHONE too, or take {k}"
    if "take" in by_kind:
        ev = by_kind["take"]
        return f"{seat_name(ev.seat or 0)} took 1 card per PHONE in the chain"
    if "lapse" in by_kind:
        ev = by_kind["lapse"]
        return f"No {word(str(ev.value))} came: the demand ends"
    if "draw" in kinds and "play" in kinds:  # RI-5.3: drew until the demanded symbol came
        ev = by_kind["play"]
        played = card(ev.cards[0]) if ev.cards else None
        sym = a_word(played.symbol) if played is not None and played.symbol else "a card"
        return f"{seat_name(ev.seat or 0)} drew till {sym} came, played it"
    if "draw" in kinds:
        ev = by_kind["draw"]
        return f"{seat_name(ev.seat or 0)} had no card that fits: draw 1"
    if view.demand is not None:
        return f"{word(view.demand)}!: play {a_word(view.demand)}, or draw till one"
    if view.phones:
        return f"PHONE x{view.phones}: play a PHONE too, or take {view.phones}"
    return condition_caption(view)
