"""Riiing! on the table display (docs/screens.md, table display): the last card, the condition
zone (the biggest thing: what the next card must be, or the open RIIING! window), its
countdown, the draw pile with a pending demand or phone chain, and the card faces.

Cards and conditions are read through the engine's ``RiiingCard``
(:mod:`device.games.riiing.ri_words`); whatever cannot be read is drawn as "?" or "unknown".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygame

from device.common.words import margin_words, seat_name
from device.games.riiing.ri_icons import SYMBOLS
from device.games.riiing.ri_words import (
    PHONE,
    SYMBOL_NAMES,
    SYMBOL_WORDS,
    Condition,
    card,
    read_condition,
)
from device.render.cards import CardPainter
from device.render.icons import draw_shape
from device.render.layout import CARD, COND, COUNT, PILE
from device.render.palette import INK, TEXT_DIM, YELLOW, seat_colour
from device.render.zones import CondSpec, CountSpec, PileSpec
from engine.riiing.position import RiiingPosition
from engine.riiing.view import RiiingView

if TYPE_CHECKING:
    from device.render.face import SceneTools, Zones

DEMAND_NAMES: dict[str, str] = {
    "A": "SLEEPY BROKEN ALARM",
    "S": "DROPPED SOAP",
    "C": "SPILLED COFFEE",
    "T": "BURNT TOAST",
}
"""RI-1.1 demand card names by symbol."""


def card_face(cards: CardPainter, code: str, height: int) -> pygame.Surface:
    """The face of Riiing! card ``code`` at ``height`` px (RI-1.1): number cards show the
    number (ink >= 0.4 h) over the symbol's shape; demand cards the symbol with "!" and the
    name; the Phone its handset; an unreadable code "?".  Cached by the front only (the
    face shows no back)."""
    c = card(code)
    symbol = None if c is None else SYMBOLS[c.symbol or PHONE]
    colour = TEXT_DIM if symbol is None else symbol.colour

    def draw(surf: pygame.Surface) -> None:
        h, w = surf.get_height(), surf.get_width()
        if c is None or symbol is None:
            cards.number(surf, "?", 0.12, 0.56)
        elif c.kind == "number":
            cards.number(surf, str(c.number), 0.07, 0.56)
            box = pygame.Rect(0, 0, round(h * 0.36), round(h * 0.36))
            box.center = (w // 2, round(h * 0.75))
            draw_shape(surf, symbol.shape, box, colour, outline=INK)
        elif c.kind == "demand":
            cards.number(surf, "!", 0.06, 0.26)
            box = pygame.Rect(0, 0, round(h * 0.44), round(h * 0.44))
            box.center = (w // 2, round(h * 0.5))
            draw_shape(surf, symbol.shape, box, colour, outline=INK)
            for i, line in enumerate(cards.text.wrap(DEMAND_NAMES[symbol.name], h // 12, w, 2)):
                cards.label(surf, line, 0.8 + 0.09 * i, 1 / 12)
        else:
            box = pygame.Rect(0, 0, round(h * 0.5), round(h * 0.5))
            box.center = (w // 2, round(h * 0.42))
            draw_shape(surf, symbol.shape, box, INK)
            cards.label(surf, "PHONE", 0.82, 0.13)

    front = code.split("/", 1)[0] if c is None else c.front
    return cards.face(("R", front), height, draw, colour)


def condition_spec(v: RiiingView) -> CondSpec:
    """The condition zone's spec for Riiing! view ``v`` outside a window (RI-3).

    Words name the condition against the last card ("HIGHER than 6"); a condition made
    open by a last card with no number (RI-3.4) or an empty draw pile (RI-3.5) says so.  A
    pending demand or phone chain decides the move instead (RI-5.3, RI-5.4), so it takes
    the zone ("TOAST!", "PHONE x2") and the condition is named as on hold.
    """
    base = _condition(read_condition(v.condition, v.last_card))
    if v.demand is not None:
        name = SYMBOL_NAMES.get(v.demand, v.demand)
        symbol = v.demand if v.demand in SYMBOLS else None
        glyph = None if symbol else "open"
        return CondSpec("condition", f"{name}!", f"{_flat(base.headline)} on hold", glyph, symbol)
    if v.phones > 0:
        return CondSpec(
            "condition", f"PHONE x{v.phones}", f"{_flat(base.headline)} on hold", None, PHONE
        )
    return base


def _flat(text: str) -> str:
    return " ".join(text.split())


_NUMBER_WORDS = {">": ("HIGHER", "up"), "<": ("LOWER", "down"), "=": ("SAME NUMBER", "equal")}


def _condition(cond: Condition) -> CondSpec:
    """The condition in force (RI-3.1) as a spec, ignoring demands and phone chains."""
    if cond.kind == "none":
        return CondSpec("condition", "OPEN: any card", "the draw pile is empty", "open")
    if cond.kind in _NUMBER_WORDS:
        words, glyph = _NUMBER_WORDS[cond.kind]
        if cond.number is None:
            return CondSpec(
                "condition", f"{words}: open", "last card has no number: any number", glyph
            )
        joint = " than " if cond.kind != "=" else " "
        return CondSpec("condition", f"{words}{joint}{cond.number}", "", glyph)
    if cond.kind == "~":
        if cond.symbol is None:
            return CondSpec("condition", "SAME SYMBOL: open", "last card is a Phone", "open")
        return CondSpec("condition", "SAME SYMBOL", SYMBOL_NAMES[cond.symbol], None, cond.symbol)
    if cond.kind == "E":
        return CondSpec("condition", "EVEN", "2  4  6  8", "even")
    if cond.kind == "O":
        return CondSpec("condition", "ODD", "1  3  5  7  9", "odd")
    if cond.kind == "one_of":
        parts = [str(n) for n in cond.numbers]
        return CondSpec("condition", "ONE OF " + " ".join(parts), "", digits=cond.numbers[:4])
    if cond.kind == "reverse" and cond.symbol is not None:
        return CondSpec("condition", "RIIING!", SYMBOL_NAMES[cond.symbol], "star", cond.symbol)
    return CondSpec("condition", cond.code, "unknown condition", "open", dim=True)


def slap_sub(scene: SceneTools) -> str:
    """The line under a slap winner's time (RI-6.3): the margin to the next slapper ("by
    12 ms over Seat 4"; "by less than 1 ms" at 0 ms: :func:`device.common.words.margin_words`,
    as the TV's top line says it), else "fastest slap!"."""
    margin = scene.slap_margin
    if margin is None:
        return "fastest slap!"
    runner_up, ms = margin
    return f"{margin_words(ms)} over {scene.name(runner_up)}"


def zones(scene: SceneTools, v: RiiingView, now_ns: int) -> Zones:
    """The centre zones in play: last card, condition or window (flashing, RI-6.2) with
    its countdown (RI-6.4), and the pile with the slap result (winner, time and margin:
    :func:`slap_sub`), window, demand (RI-5.3) or phone chain (RI-5.4)."""
    out: Zones = {"card": (CARD, scene.card_spec(v.last_card, now_ns, "LAST CARD"))}
    mover = scene.name(v.to_move)
    if v.window is not None:
        frame = scene.flash_frame(now_ns)
        name = SYMBOL_NAMES.get(v.window, v.window)
        cond = CondSpec(
            "window", "RIIING!  SLAP!", sub=name,
            symbol=v.window if v.window in SYMBOLS else None,
            flash_on=frame is not None and frame % 2 == 0,
        )
        out["cond"] = (COND, cond)
        out["count"] = (COUNT, scene.count_spec(now_ns, "seconds to slap"))
    else:
        out["cond"] = (COND, condition_spec(v))
        out["count"] = (COUNT, CountSpec(None, 0, 1, ""))
    slap = scene.slap
    if slap is not None:
        seat, ms = slap
        pile = PileSpec(
            v.draw_count, f"{scene.name(seat)}  {ms} ms", slap_sub(scene), None, "star",
            seat_colour(seat),
        )
    elif v.window is not None:
        short = SYMBOL_WORDS.get(v.window, v.window)
        pile = PileSpec(
            v.draw_count, "RIIING!", f"first slap drops every {short}",
            v.window if v.window in SYMBOLS else None, None, YELLOW,
        )
    elif v.demand is not None:
        short = SYMBOL_WORDS.get(v.demand, v.demand)
        pile = PileSpec(
            v.draw_count, f"{mover}: {short}!", f"play {short} or draw",
            v.demand if v.demand in SYMBOLS else None, None, YELLOW,
        )
    elif v.phones > 0:
        pile = PileSpec(
            v.draw_count, f"{mover}: PHONE x{v.phones}",
            f"play a PHONE to pass it on, or take {v.phones}", PHONE, None, YELLOW,
        )
    else:
        pile = PileSpec(v.draw_count)
    out["pile"] = (PILE, pile)
    return out


def win_reason(pos: object) -> str:
    """How the finished Riiing! game ``pos`` was won (RI-7.1: the first empty hand wins,
    however it emptied): "Seat 3 played their last card", or, when the winning hand was
    emptied by a slap's discard (RI-6.3; the slapped reverse then stays on top of the draw
    pile, RI-7.1), "Seat 3 emptied their hand with a RIIING! slap"; ``""`` for no winner
    or another game's position."""
    if not isinstance(pos, RiiingPosition) or pos.winner is None:
        return ""
    who = seat_name(pos.winner)
    if pos.draw and pos.draw[0].reverse is not None:
        return f"{who} emptied their hand with a RIIING! slap"
    return f"{who} played their last card"
