"""Right on Time on the table display (docs/screens.md: "Right on Time swaps the condition zone
for the top value and shows the round's out order and the victory points"): the top card,
the value zone, the pile with the out order, the seat badges' points and marks, and the
card faces.  Cards are read through the engine's ``RotCard``; an unreadable code is "?".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygame

from device.common.words import seat_name
from device.render.cards import CardPainter
from device.render.icons import draw_glyph
from device.render.layout import CARD, COND, COUNT, PILE
from device.render.palette import (
    BLUE,
    BLUISH_GREEN,
    INK,
    PAPER,
    REDDISH_PURPLE,
    TEXT,
    TEXT_DIM,
    VERMILLION,
    Colour,
)
from device.render.zones import Chip, CondSpec, CountSpec, PileSpec
from engine.core import NotationError
from engine.right_on_time.cards import DU_BIST, JOKER, NULL, NUMBER, ZIEHEN, RotCard
from engine.right_on_time.position import RotPosition
from engine.right_on_time.view import RightOnTimeView

if TYPE_CHECKING:
    from device.render.face import SceneTools, Zones

BORDER: dict[str, Colour] = {
    NUMBER: BLUE,
    JOKER: REDDISH_PURPLE,
    NULL: INK,
    DU_BIST: BLUISH_GREEN,
    ZIEHEN: VERMILLION,
}
"""Card kind (``engine.right_on_time.cards``) -> border colour; an unreadable card's is
``TEXT_DIM``."""

NAMES: dict[str, str] = {JOKER: "JOKER", NULL: "NULL", DU_BIST: "Du bist!", ZIEHEN: "Ziehen!"}
"""Special card names as printed (RT-1.2)."""

CHIP_GREY: Colour = (92, 98, 112)
"""Background of a seat badge's bonus-card chip."""

ORDINALS = ("1st", "2nd", "3rd", "4th", "5th", "6th")


def card(code: str | None) -> RotCard | None:
    """The engine's card of ``code`` (a hand or pile code), or ``None``; never raises."""
    if code is None:
        return None
    try:
        return RotCard.parse(code)
    except NotationError:
        return None


def card_face(cards: CardPainter, code: str, height: int) -> pygame.Surface:
    """The face of card ``code`` at ``height`` px: its value large, special cards with their
    name and glyph (star, zero, pointer, plus-card); an unreadable code "?"."""
    c = card(code)
    border = TEXT_DIM if c is None else BORDER[c.kind]

    def draw(surf: pygame.Surface) -> None:
        h, w = surf.get_height(), surf.get_width()
        glyph_box = pygame.Rect(0, 0, round(h * 0.2), round(h * 0.2))
        glyph_box.center = (w // 2, round(h * 0.8))
        if c is None:
            cards.number(surf, "?", 0.18, 0.7)
        elif c.kind == NUMBER:
            cards.number(surf, str(c.value), 0.18, 0.7)
        elif c.kind == JOKER:
            star = pygame.Rect(0, 0, round(h * 0.3), round(h * 0.3))
            star.center = (w // 2, round(h * 0.22))
            draw_glyph(surf, "star", star, REDDISH_PURPLE, outline=INK)
            cards.label(surf, "JOKER", 0.45, 0.12)
            if c.value is not None:
                cards.label(surf, f"as {c.value}", 0.7, 0.26)
        elif c.kind == NULL:
            big = pygame.Rect(0, 0, round(h * 0.5), round(h * 0.5))
            big.center = (w // 2, round(h * 0.38))
            draw_glyph(surf, "zero", big, INK)
            cards.label(surf, "NULL", 0.82, 0.14)
        else:
            cards.number(surf, str(c.value), 0.07, 0.56)
            cards.label(surf, NAMES[c.kind], 0.58, 0.12)
            glyph = "pointer" if c.kind == DU_BIST else "plus_card"
            draw_glyph(surf, glyph, glyph_box, border)

    return cards.face(("T", code), height, draw, border)


def value_spec(v: RightOnTimeView, opener: str) -> CondSpec:
    """The value zone's spec for view ``v`` (RT-1.3, RT-2.2, RT-3): the top card's value
    huge, its name ("Joker as 5", "NULL = 0", "Du bist! 3", "Ziehen! 5") and what beats it;
    "Opening lay: any card" before the round's first lay (``opener``: who lays it)."""
    if v.top is None:
        return CondSpec("value", "Opening lay:\nany card", f"{opener} opens round {v.round}",
                        glyph="open")
    c = card(v.top)
    value = v.top_value if v.top_value is not None else (None if c is None else c.value)
    shown = "?" if value is None else str(value)
    names = {
        NUMBER: "TOP VALUE",
        JOKER: f"Joker as {shown}",
        NULL: "NULL = 0",
        DU_BIST: f"Du bist! {shown}",
        ZIEHEN: f"Ziehen! {shown}",
    }
    headline = v.top if c is None else names[c.kind]
    if value is None:
        hint = ""
    elif value <= 0:
        hint = "any single card beats it (no pairs)"
    elif value >= 7:
        hint = "only a pair up to 7, or NULL"
    else:
        hint = f"one card above {value}, or two up to {value}"
    return CondSpec("value", headline, hint, big=shown)


def zones(scene: SceneTools, v: RightOnTimeView, now_ns: int) -> Zones:
    """The centre zones in play: top card, value (RT-1.3), no countdown, and the pile with
    the round's out order (RT-6.1)."""
    out: Zones = {
        "card": (CARD, scene.card_spec(v.top, now_ns, "TOP CARD")),
        "cond": (COND, value_spec(v, scene.name(v.to_move))),
        "count": (COUNT, CountSpec(None, 0, 1, "")),
    }
    if v.out:
        names = "   ".join(f"{i + 1}. {scene.name(s)}" for i, s in enumerate(v.out))
        sub = "next seat out wins the round" if len(v.out) == 1 else ""
        out["pile"] = (PILE, PileSpec(v.draw_count, f"OUT: {names}", sub))
    else:
        out["pile"] = (PILE, PileSpec(v.draw_count))
    return out


def seat_marks(
    v: RightOnTimeView, seat: int, winner: bool, playing: bool
) -> tuple[tuple[int, int] | None, tuple[Chip, ...], bool]:
    """A seat badge's points (RT-7.1), its place out of the round (RT-6.1, dimmed in
    play), the cards it showed (RT-5.1) and its bonus cards (RT-6.3)."""
    points = (v.scores[seat], v.target_points) if 0 <= seat < len(v.scores) else None
    chips: list[Chip] = []
    dim = False
    if seat in v.out and not winner:
        place = v.out.index(seat)
        chips.append((f"OUT {ORDINALS[min(place, 5)]}", TEXT_DIM, INK))
        dim = playing
    if 0 <= seat < len(v.shown) and v.shown[seat]:
        chips.append(("shows " + " ".join(v.shown[seat]), PAPER, INK))
    if 0 <= seat < len(v.bonus_counts) and v.bonus_counts[seat]:
        chips.append((f"+{v.bonus_counts[seat]} bonus", CHIP_GREY, TEXT))
    return points, tuple(chips), dim


ORDINAL_WORDS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
                 "ninth", "tenth")
"""Ordinals in words for the match-winning point (``ORDINAL_WORDS[k - 1]``)."""


def win_reason(pos: object) -> str:
    """How the finished match ``pos`` was won (RT-7.1: the first seat to the target points
    wins; a point is a round won, RT-6.2): "Seat 2 took the third point", "Seat 2 took
    the only point" when one point wins; ``""`` for no winner or another game's
    position."""
    if not isinstance(pos, RotPosition) or pos.winner is None:
        return ""
    who = seat_name(pos.winner)
    points = pos.scores[pos.winner] if 0 <= pos.winner < len(pos.scores) else 0
    if points <= 0:
        return ""
    if points == 1:
        return f"{who} took the only point"
    nth = ORDINAL_WORDS[points - 1] if points <= len(ORDINAL_WORDS) else f"{points}th"
    return f"{who} took the {nth} point"
