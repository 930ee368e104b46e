"""Right on Time's events as short words for the table's top strip ("Seat 2 laid 2 + Joker
as 3").  Public information only (see ``engine.right_on_time``'s event kinds); cards are
read by the engine's ``RotCard``.  Seats are named for people, from 1.
"""

from __future__ import annotations

from collections.abc import Sequence

from device.words import narrate_events, seat_name
from engine.core import Event, NotationError
from engine.right_on_time.cards import DU_BIST, JOKER, NULL, ZIEHEN, RotCard

ACTS = frozenset({"play", "show", "swap"})
"""Event kinds that tell what the seat did; the others tell what followed from it."""


def card_words(code: str) -> str:
    """A card in words (RT-1): ``"J4"`` -> ``"Joker as 4"``, ``"J"`` -> ``"Joker"``, ``"N"`` ->
    ``"NULL"``, ``"D3"`` -> ``"Du bist! 3"``, ``"Z5"`` -> ``"Ziehen! 5"``, ``"6"`` -> ``"6"``;
    an unreadable code as given."""
    try:
        card = RotCard.parse(code)
    except NotationError:
        return code
    if card.kind == JOKER:
        return "Joker" if card.value is None else f"Joker as {card.value}"
    if card.kind == NULL:
        return "NULL"
    if card.kind == DU_BIST:
        return f"Du bist! {card.value}"
    if card.kind == ZIEHEN:
        return f"Ziehen! {card.value}"
    return code


def event_line(ev: Event) -> str | None:
    """One line for one Right on Time event, or ``None`` (not worth a line)."""
    who = seat_name(ev.seat) if ev.seat is not None else ""
    if ev.kind == "play":
        return f"{who} laid {' + '.join(card_words(c) for c in ev.cards)}"
    if ev.kind == "effect_up":
        return f"Du bist! {who} is up"
    if ev.kind == "effect_draw":
        return f"Ziehen! {who} draws a card"
    if ev.kind == "show":
        return f"{who} cannot lay: shows {', '.join(card_words(c) for c in ev.cards)}, draws"
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


def narrate(events: Sequence[Event]) -> str | None:
    """One line for one action's events (:func:`device.words.narrate_events`)."""
    return narrate_events(events, event_line, ACTS)
