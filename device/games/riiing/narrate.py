"""Riiing!'s events as short words for the table's top strip ("Seat 4 drew 2 cards").

Public information only: a draw says how many cards, never which (see ``engine.riiing``'s
event kinds).  Seats are named for people, from 1.
"""

from __future__ import annotations

from collections.abc import Sequence

from device.games.riiing.words import card_words, word
from device.words import count_words, narrate_events, seat_name
from engine.core import Event

ACTS = frozenset({"play", "draw", "take", "falseslap", "timeout"})
"""Event kinds that tell what the seat did; the others tell what followed from it."""


def event_line(ev: Event) -> str | None:
    """One line for one Riiing! event, or ``None`` (an event not worth a line, e.g. a
    reshuffle inside a draw)."""
    who = seat_name(ev.seat) if ev.seat is not None else ""
    if ev.kind == "play":
        return f"{who} laid {card_words(ev.cards[0])}" if ev.cards else f"{who} laid"
    if ev.kind == "draw":
        return f"{who} drew {count_words(len(ev.cards), 'card')}"
    if ev.kind == "take":
        return f"{who} took {count_words(len(ev.cards), 'card')}"
    if ev.kind == "falseslap":
        return f"{who} slapped too early: +{count_words(len(ev.cards), 'card')}"
    if ev.kind == "timeout":
        return "Nobody slapped in time"
    if ev.kind == "lapse":  # RI-5.3: the draw-until stopped at a reverse, or ran dry
        return f"the {word(str(ev.value))} demand ends"
    if ev.kind == "window":
        return f"RIIING! {word(str(ev.value))}: SLAP!"
    if ev.kind == "win":
        return f"{who} has no cards left: {who} WINS!"
    return None


def narrate(events: Sequence[Event]) -> str | None:
    """One line for one action's events (:func:`device.words.narrate_events`)."""
    return narrate_events(events, event_line, ACTS)
