"""Right on Time's events as short words for the table's top strip ("Seat 2 laid 2 + Joker
as 3"), and the demo game's captions of the rule being applied ("ONE card above 4, or TWO
of 4 or less").  Public information only (see ``engine.right_on_time``'s event
kinds); cards are read by the engine's ``RotCard``.  Seats are named for people, from 1.
"""

from __future__ import annotations

from collections.abc import Sequence

from device.common.words import seat_name
from device.games.narration import EventWords
from engine.core import Event, NotationError
from engine.right_on_time.cards import DU_BIST, JOKER, NULL, ZIEHEN, RotCard
from engine.right_on_time.view import RightOnTimeView

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


LINES = {
    "play": "{who} laid {laid}",
    "effect_up": "Du bist! {who} is up",
    "effect_draw": "Ziehen! {who} draws a card",
    "show": "{who} cannot lay: shows {shown}, draws",
    "out": "{who} is out",
    "bonus": "{who} gets a bonus card",
    "swap": "{who} swapped in a bonus card",
    "round": "{who} wins round {value}",
    "match": "{who} wins the match!",
}
"""The top strip's line per event kind (:class:`device.games.narration.EventWords`); the
other kinds (``draw``, ``back``, ``shuffle``, ``deal``) are not worth a line."""

WORDS = EventWords(
    LINES,
    ACTS,
    {
        "laid": lambda ev: " + ".join(card_words(c) for c in ev.cards),
        "shown": lambda ev: ", ".join(card_words(c) for c in ev.cards),
    },
)
"""Right on Time's event words: :data:`LINES` with the cards laid or shown in words."""


def event_line(ev: Event) -> str | None:
    """One line for one Right on Time event, or ``None`` (not worth a line)."""
    return WORDS.line(ev)


def narrate(events: Sequence[Event]) -> str | None:
    """One line for one action's events (:func:`device.common.words.narrate_events`)."""
    return WORDS.narrate(events)


# --------------------------------------------------------------------------- demo captions

ORDINAL_WORDS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh")
"""Point numbers in words, from 1 (``ORDINAL_WORDS[0]`` is ``"first"``)."""


def _ordinal(n: int) -> str:
    return ORDINAL_WORDS[n - 1] if 1 <= n <= len(ORDINAL_WORDS) else f"#{n}"


def top_caption(view: RightOnTimeView) -> str:
    """What the seat to move may lay on the top card, in words (RT-2.2, RT-3.1 .. RT-3.4):
    ``"ONE card above 4, or TWO of 4 or less"``."""
    v = view.top_value
    if v is None:
        return "Opening lay: any one card"
    if v == 0:
        return "NULL counts 0: any one card goes on it"
    if v >= 7:
        return "7 on top: only NULL, or TWO of 7 or less"  # RT-3.3, RT-3.4
    return f"ONE card above {v}, or TWO of {v} or less"


def caption(events: Sequence[Event], view: RightOnTimeView) -> str:
    """The demo's caption of the rule being applied after an action with ``events``
    (``view``: the public view after it).  The biggest news first: the match won
    (RT-7.1), a round won (RT-6.2, RT-9.2), a seat out (RT-6.1, RT-6.3, RT-9.2), an effect
    (Du bist! RT-4.1, Ziehen! RT-4.2, back in RT-9.4), a seat that could not lay (RT-5.1),
    a bonus swap (RT-6.4), then the card laid (NULL RT-3.3, a Joker RT-3.4, a pair
    RT-3.2), else what the next seat may lay (:func:`top_caption`).  Public only: bonus
    and drawn cards are never named."""
    by_kind = {e.kind: e for e in events}
    play = by_kind.get("play")
    layer = seat_name(play.seat) if play is not None and play.seat is not None else "The layer"
    if "match" in by_kind:
        ev = by_kind["match"]
        return f"{seat_name(ev.seat or 0)} took the {_ordinal(int(ev.value or 0))} point: " \
            "wins the match"
    if "round" in by_kind:
        ev = by_kind["round"]
        who = seat_name(ev.seat or 0)
        outs = [e for e in events if e.kind == "out"]
        if any(e.seat == ev.seat and e.value == 2 for e in outs) or view.seats > 2:
            return f"Second out wins: {who} gets a point"
        return f"Last turn not enough: {who} gets the point"  # RT-9.2
    if "out" in by_kind:
        ev = by_kind["out"]
        who = seat_name(ev.seat or 0)
        if view.seats == 2:
            other = seat_name(1 - (ev.seat or 0))
            return f"{who} is out: {other} gets one last turn"
        if ev.value == 1:
            return f"{who} out first: no point, a bonus card"
        return f"{who} is out"
    if "back" in by_kind:
        return f"Ziehen!: {seat_name(by_kind['back'].seat or 0)} draws and is back in"
    if "effect_up" in by_kind:
        ev = by_kind["effect_up"]
        if play is not None and ev.seat == play.seat:
            return f"Du bist!: {layer} goes again"  # RT-9.5
        return f"Du bist!: {layer} chose {seat_name(ev.seat or 0)} to go next"
    if "effect_draw" in by_kind:
        ev = by_kind["effect_draw"]
        if play is not None and ev.seat == play.seat:
            return f"Ziehen!: {layer} chose to draw a card"
        return f"Ziehen!: {layer} made {seat_name(ev.seat or 0)} draw a card"
    if "show" in by_kind:
        who = seat_name(by_kind["show"].seat or 0)
        return f"{who} can't lay: shows the card, draws 1"
    if "swap" in by_kind:
        who = seat_name(by_kind["swap"].seat or 0)
        return f"{who} took a bonus card into the hand"
    if play is not None and play.cards:
        top = play.cards[-1]
        if top == "N":
            return "NULL goes on any card and counts 0"
        if play.value is not None:
            return f"A Joker counts as any number: here {play.value}"
        if len(play.cards) == 2:
            return "A pair: each no higher than the top"
    return top_caption(view)
