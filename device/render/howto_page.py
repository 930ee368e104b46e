"""Draws one "How to play" page (:class:`device.render.howto_model.HowtoPage`) on the table display.

Layout of the 1920x1080 logical frame (``docs/screens.md``: read from 1-3 m, and still
readable scaled down to 480x270):

- top strip (0-100): ``HOW TO PLAY`` and the game's table title at the left (56 px), the
  page number (``2/3``) at the right;
- the page title (100 px) under it, then the rule lines (70 px, at most five, each fitted
  to the width and shrunk to no less than 60 px);
- a row of pictures across the rest: real card faces painted by the game's plugin
  (``GamePlugin.card_face`` on a :class:`~device.render.cards.CardPainter`), or signs on a
  card-shaped paper tile (a condition glyph of :mod:`device.render.icons`, one of the game's
  symbols, a card back, or large digits), each with a caption (48 px, up to two lines)
  under it; as tall as the room left allows, up to 440 px;
- the key hint (48 px) at the bottom.

The page is static: draw it once when it is shown or turned (it reads no clock).  Drawn
onto a 1920x1080 surface directly, onto any other size through a logical canvas scaled to
fit with 16:9 kept (black bars), like the table scene.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygame

from device.render.cards import CARD_ASPECT, CardPainter
from device.render.howto_model import HowtoPage, Picture
from device.render.icons import GLYPHS, draw_shape
from device.render.layout import LOGICAL_H, LOGICAL_SIZE, LOGICAL_W, Letterbox
from device.render.palette import (
    BACKGROUND,
    BLACK,
    INK,
    PANEL,
    TEXT,
    TEXT_DIM,
    YELLOW,
)
from device.render.text import Typesetter

if TYPE_CHECKING:
    from device.render.face import AnyFace

MARGIN = 80
"""Left and right margin of the page, logical px."""
TOP_H = 100
"""Height of the top strip."""
TITLE_PX = 100
LINE_PX = 70
LINE_MIN_PX = 60
LINE_PITCH = 80
CAPTION_PX = 48
CAPTION_LINES = 2
HINT_PX = 44
CARD_MAX_H = 440
"""Tallest picture, logical px (the table's own top card is 520 px)."""


def _sign(
    surf: pygame.Surface, plugin: AnyFace, sign: str, text: Typesetter
) -> None:
    """Paint ``sign`` (see :class:`device.render.howto_model.Picture`) centred on paper ``surf``."""
    w, h = surf.get_size()
    box = pygame.Rect(0, 0, round(w * 0.8), round(w * 0.8))
    box.center = (w // 2, h // 2)
    symbol = plugin.symbols.get(sign)
    if symbol is not None:
        draw_shape(surf, symbol.shape, box, symbol.colour, outline=INK)
    elif sign in GLYPHS:
        draw_shape(surf, sign, box, INK)
    elif sign.startswith("digits:"):
        digits = sign.split(":", 1)[1].strip()
        size = text.fit_size(digits, round(h * 0.34), w - w // 8, max(8, h // 10))
        image = text.render(digits, size, INK)
        surf.blit(image, image.get_rect(center=(w // 2, h // 2)))
    else:
        image = text.render("?", round(h * 0.5), INK)
        surf.blit(image, image.get_rect(center=(w // 2, h // 2)))


def picture_surface(
    plugin: AnyFace, picture: Picture, height: int, cards: CardPainter
) -> pygame.Surface:
    """The picture at ``height`` px: the card face from the plugin, a card back, or a sign
    on a paper tile of the card's size (``round(0.7 h)`` x ``h``).  Never raises: a code the
    plugin cannot read is its ``"?"`` card, an unknown sign a ``"?"`` tile."""
    if picture.card:
        return plugin.card_face(cards, picture.card, height)
    if picture.sign == "back":
        return cards.back(height)
    surf = cards.blank(height, TEXT_DIM)
    _sign(surf, plugin, picture.sign, cards.text)
    return surf


def layout_pictures(count: int, top: int, bottom: int) -> tuple[int, int, int]:
    """``(card height, slot width, first slot's x)`` for ``count`` pictures between rows
    ``top`` and ``bottom`` (captions included), centred across the page."""
    room_w = LOGICAL_W - 2 * MARGIN
    slot = min(room_w // max(1, count), 460)
    by_width = int((slot - 30) / CARD_ASPECT)
    by_height = bottom - top - CAPTION_LINES * CAPTION_PX - 16
    height = max(60, min(CARD_MAX_H, by_width, by_height))
    x0 = (LOGICAL_W - slot * count) // 2
    return height, slot, x0


def paint_page(
    canvas: pygame.Surface,
    plugin: AnyFace,
    page: HowtoPage,
    number: int,
    count: int,
    hint: str,
    text: Typesetter,
    cards: CardPainter,
) -> None:
    """Paint ``page`` on the 1920x1080 logical ``canvas`` (see the module docstring);
    ``number``/``count``: the page's place (from 1) for the top strip, ``hint``: the key
    help line at the bottom (``""``: none)."""
    canvas.fill(BACKGROUND)
    pygame.draw.rect(canvas, PANEL, (0, TOP_H - 6, LOGICAL_W, 6))
    cy = (TOP_H - 6) // 2
    head = text.fit(f"HOW TO PLAY  {plugin.table_title}", 56, YELLOW, 1400, 44)
    canvas.blit(head, head.get_rect(midleft=(MARGIN, cy)))
    if count > 1:
        where = text.render(f"{number}/{count}", 56, TEXT_DIM)
        canvas.blit(where, where.get_rect(midright=(LOGICAL_W - MARGIN, cy)))
    width = LOGICAL_W - 2 * MARGIN
    title = text.fit(page.title, TITLE_PX, TEXT, width, 80)
    canvas.blit(title, title.get_rect(midleft=(MARGIN, TOP_H + 12 + TITLE_PX // 2)))
    y = TOP_H + 24 + TITLE_PX
    for line in page.lines:
        image = text.fit(line, LINE_PX, TEXT, width, LINE_MIN_PX)
        canvas.blit(image, image.get_rect(midleft=(MARGIN, y + LINE_PITCH // 2)))
        y += LINE_PITCH
    bottom = LOGICAL_H - (HINT_PX + 30 if hint else 20)
    if page.pictures:
        top = y + 24
        height, slot, x0 = layout_pictures(len(page.pictures), top, bottom)
        for i, picture in enumerate(page.pictures):
            face = picture_surface(plugin, picture, height, cards)
            cx = x0 + slot * i + slot // 2
            canvas.blit(face, face.get_rect(midtop=(cx, top)))
            words = text.wrap(picture.caption, CAPTION_PX, slot - 16, CAPTION_LINES)
            for k, line in enumerate(words):
                centre = (cx, top + height + 10 + CAPTION_PX // 2 + k * CAPTION_PX)
                text.blit_centred(canvas, line, CAPTION_PX, TEXT, centre, slot - 16)
    if hint:
        image = text.fit(hint, HINT_PX, TEXT_DIM, width, 40)
        canvas.blit(image, image.get_rect(center=(LOGICAL_W // 2, LOGICAL_H - 14 - HINT_PX // 2)))


def draw_howto(
    surface: pygame.Surface,
    plugin: AnyFace,
    page: HowtoPage,
    *,
    number: int = 1,
    count: int = 1,
    hint: str = "",
    text: Typesetter | None = None,
    cards: CardPainter | None = None,
) -> pygame.Rect:
    """Draw ``page`` of ``plugin``'s game over the whole ``surface`` (any size: a 1920x1080
    surface is painted directly, another is letterboxed like the table scene) and return
    the rect drawn (the whole surface: flip it).

    ``number``/``count``: this page's place (from 1) and how many pages the game has
    (``"2/3"`` in the top strip; nothing when ``count`` is 1); ``hint``: the key help at
    the bottom, e.g. ``"< > next page   BACK: lobby"``; ``text``/``cards``: a typesetter
    and card painter to reuse (their caches), else new ones.  Needs ``pygame.font``
    (initialised if needed).  Never raises for odd page content (unreadable cards are
    ``"?"`` cards); a page is best checked first with ``device.render.howto_model.page_problem``.
    """
    text = text or Typesetter()
    cards = cards or CardPainter(text)
    if surface.get_size() == LOGICAL_SIZE:
        paint_page(surface, plugin, page, number, count, hint, text, cards)
        return surface.get_rect()
    canvas = pygame.Surface(LOGICAL_SIZE, 0, 32)
    paint_page(canvas, plugin, page, number, count, hint, text, cards)
    box = Letterbox.fit(surface.get_size())
    surface.fill(BLACK)
    if box.content.width > 0 and box.content.height > 0:
        scaled = pygame.transform.smoothscale(canvas, box.content.size)
        surface.blit(scaled, box.content)
    return surface.get_rect()


__all__ = ["draw_howto", "paint_page", "picture_surface"]
