"""Card faces and backs for the table display, read from card codes (``design/notation.md``).

Riiing! codes are ``FRONT/BACK`` (``"7C/>"``, ``"!T/E"``, ``"P/{2,5,8}"``); Right on Time
codes are ``"1".."7"``, ``"J"``/``"J<n>"``, ``"N"``, ``"D<n>"``, ``"Z<n>"``.  Parsing here is
for display only and never raises: an unreadable code is drawn as a ``"?"`` card (the
engine, not the renderer, judges codes).  Surfaces are cached per face and height (a
Riiing! face by its front only), in a cache bounded by count and bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pygame

from device.render import icons
from device.render.cache import SurfaceCache
from device.render.palette import (
    BLUE,
    BLUISH_GREEN,
    CARD_BACK,
    INK,
    PAPER,
    REDDISH_PURPLE,
    SYMBOL_COLOURS,
    TEXT_DIM,
    VERMILLION,
    Colour,
)
from device.render.text import Typesetter

CARD_ASPECT = 0.7
"""Card width / height."""

CACHE_FACES = 96
"""Most card surfaces (faces, backs, fans) a :class:`CardPainter` keeps."""
CACHE_BYTES = 24 * 1024 * 1024
"""Bytes of pixels a :class:`CardPainter` keeps (24 MiB, ~30 faces at 520 px: one face
is ~0.75 MB, and a Riiing! deck has 41 fronts, Right on Time's two dozen faces more)."""

DEMAND_NAMES: dict[str, str] = {
    "A": "SLEEPY BROKEN ALARM",
    "S": "DROPPED SOAP",
    "C": "SPILLED COFFEE",
    "T": "BURNT TOAST",
}
"""RI-1.1 demand card names by symbol."""

_RIIING_FRONT = re.compile(r"^(?:(?P<num>[1-9])(?P<sym>[ASCT])|!(?P<dem>[ASCT])|(?P<phone>P))$")
_ROT = re.compile(
    r"^(?:(?P<num>[1-7])|J(?P<joker>[1-7])?|(?P<null>N)|(?P<kind>[DZ])(?P<val>[1-7]))$"
)


@dataclass(frozen=True, slots=True)
class RiiingFace:
    """The front of a Riiing! card for display.

    ``kind``: ``"number"``, ``"demand"``, ``"phone"`` or ``"unknown"``; ``number``: 1-9 or
    ``None``; ``symbol``: ``"A"``/``"S"``/``"C"``/``"T"``/``"P"`` or ``None`` (unknown).
    """

    kind: str
    number: int | None
    symbol: str | None


def riiing_face(code: str) -> RiiingFace:
    """Read the front of a Riiing! card code (``"7C/>"`` or just ``"7C"``); never raises."""
    m = _RIIING_FRONT.match(code.split("/", 1)[0].strip())
    if m is None:
        return RiiingFace("unknown", None, None)
    if m["num"]:
        return RiiingFace("number", int(m["num"]), m["sym"])
    if m["dem"]:
        return RiiingFace("demand", None, m["dem"])
    return RiiingFace("phone", None, "P")


def riiing_back(code: str) -> str | None:
    """The back (condition or reverse) of a Riiing! card code, or ``None`` if it has none."""
    parts = code.split("/", 1)
    return parts[1] if len(parts) == 2 and parts[1] else None


@dataclass(frozen=True, slots=True)
class RotFace:
    """A Right on Time card for display.

    ``kind``: ``"number"``, ``"joker"``, ``"null"``, ``"dubist"``, ``"ziehen"`` or
    ``"unknown"``; ``value``: its value on the pile (RT-1.3; a Joker's declared value,
    ``None`` for an undeclared ``J`` or an unknown code).
    """

    kind: str
    value: int | None


def rot_face(code: str) -> RotFace:
    """Read a Right on Time card code (``"5"``, ``"J4"``, ``"N"``, ``"D3"``); never raises."""
    m = _ROT.match(code.strip())
    if m is None:
        return RotFace("unknown", None)
    if m["num"]:
        return RotFace("number", int(m["num"]))
    if m["null"]:
        return RotFace("null", 0)
    if m["kind"]:
        return RotFace("dubist" if m["kind"] == "D" else "ziehen", int(m["val"]))
    return RotFace("joker", int(m["joker"]) if m["joker"] else None)


ROT_BORDER: dict[str, Colour] = {
    "number": BLUE,
    "joker": REDDISH_PURPLE,
    "null": INK,
    "dubist": BLUISH_GREEN,
    "ziehen": VERMILLION,
    "unknown": TEXT_DIM,
}
"""Right on Time card kind -> border colour."""

ROT_NAMES: dict[str, str] = {
    "joker": "JOKER",
    "null": "NULL",
    "dubist": "Du bist!",
    "ziehen": "Ziehen!",
}
"""Right on Time special card names as printed."""


class CardPainter:
    """Draws and caches card surfaces (SRCALPHA, ``round(h * 0.7)`` x ``h`` px), the least
    recently used dropped beyond :data:`CACHE_FACES` surfaces or :data:`CACHE_BYTES` bytes.

    ``text``: the scene's :class:`Typesetter`.  Not thread-safe.
    """

    def __init__(self, text: Typesetter) -> None:
        self._text = text
        self._cache = SurfaceCache(CACHE_FACES, CACHE_BYTES)

    @property
    def cached_bytes(self) -> int:
        """Bytes of pixels the card cache holds now (<= :data:`CACHE_BYTES`)."""
        return self._cache.bytes

    def _blank(self, height: int, border: Colour) -> tuple[pygame.Surface, pygame.Rect]:
        h = max(8, height)
        w = max(6, round(h * CARD_ASPECT))
        surf = pygame.Surface((w, h), pygame.SRCALPHA, 32)
        rect = surf.get_rect()
        radius = max(2, h // 16)
        pygame.draw.rect(surf, border, rect, 0, radius)
        inset = max(2, h // 40)
        pygame.draw.rect(surf, PAPER, rect.inflate(-2 * inset, -2 * inset), 0, radius - 1)
        return surf, rect

    def _number(self, surf: pygame.Surface, text: str, top: float, px: float) -> None:
        """Draw ``text`` at line height ``px * h`` with its ink's top at ``top * h``."""
        h = surf.get_height()
        image = self._text.render(text, round(px * h), INK)
        ink = image.get_bounding_rect()
        x = surf.get_width() // 2 - ink.centerx
        surf.blit(image, (x, round(top * h) - ink.top))

    def _label(self, surf: pygame.Surface, text: str, centre_y: float, px: float) -> None:
        w, h = surf.get_size()
        self._text.blit_centred(
            surf, text, round(px * h), INK, (w // 2, round(centre_y * h)), w - h // 10, 8
        )

    def riiing(self, code: str, height: int) -> pygame.Surface:
        """The face of Riiing! card ``code`` at ``height`` px: number cards show the number
        (ink >= 0.4 h) over the symbol's shape; demand cards the symbol with "!" and the
        name; the Phone its handset."""
        key = ("R", code.split("/", 1)[0], height)  # the face shows the front only
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        face = riiing_face(code)
        colour = SYMBOL_COLOURS.get(face.symbol or "", TEXT_DIM)
        surf, rect = self._blank(height, colour)
        h, w = rect.height, rect.width
        if face.kind == "number" and face.symbol is not None:
            self._number(surf, str(face.number), 0.07, 0.56)
            box = pygame.Rect(0, 0, round(h * 0.36), round(h * 0.36))
            box.center = (w // 2, round(h * 0.75))
            icons.draw_symbol(surf, face.symbol, box, colour, outline=INK)
        elif face.kind == "demand" and face.symbol is not None:
            self._number(surf, "!", 0.06, 0.26)
            box = pygame.Rect(0, 0, round(h * 0.44), round(h * 0.44))
            box.center = (w // 2, round(h * 0.5))
            icons.draw_symbol(surf, face.symbol, box, colour, outline=INK)
            for i, line in enumerate(self._text.wrap(DEMAND_NAMES[face.symbol], h // 12, w, 2)):
                self._label(surf, line, 0.8 + 0.09 * i, 1 / 12)
        elif face.kind == "phone":
            box = pygame.Rect(0, 0, round(h * 0.5), round(h * 0.5))
            box.center = (w // 2, round(h * 0.42))
            icons.draw_symbol(surf, "P", box, INK)
            self._label(surf, "PHONE", 0.82, 0.13)
        else:
            self._number(surf, "?", 0.12, 0.56)
        return self._cache.put(key, surf)

    def rot(self, code: str, height: int) -> pygame.Surface:
        """The face of Right on Time card ``code`` at ``height`` px: its value large, special
        cards with their name and glyph (star, zero, pointer, plus-card)."""
        key = ("T", code, height)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        face = rot_face(code)
        surf, rect = self._blank(height, ROT_BORDER[face.kind])
        h, w = rect.height, rect.width
        glyph_box = pygame.Rect(0, 0, round(h * 0.2), round(h * 0.2))
        glyph_box.center = (w // 2, round(h * 0.8))
        if face.kind == "number":
            self._number(surf, str(face.value), 0.18, 0.7)
        elif face.kind == "joker":
            star = pygame.Rect(0, 0, round(h * 0.3), round(h * 0.3))
            star.center = (w // 2, round(h * 0.22))
            icons.draw_glyph(surf, "star", star, REDDISH_PURPLE, outline=INK)
            self._label(surf, "JOKER", 0.45, 0.12)
            if face.value is not None:
                self._label(surf, f"as {face.value}", 0.7, 0.26)
        elif face.kind == "null":
            big = pygame.Rect(0, 0, round(h * 0.5), round(h * 0.5))
            big.center = (w // 2, round(h * 0.38))
            icons.draw_glyph(surf, "zero", big, INK)
            self._label(surf, "NULL", 0.82, 0.14)
        elif face.kind in ("dubist", "ziehen"):
            self._number(surf, str(face.value), 0.07, 0.56)
            self._label(surf, ROT_NAMES[face.kind], 0.58, 0.12)
            glyph = "pointer" if face.kind == "dubist" else "plus_card"
            icons.draw_glyph(surf, glyph, glyph_box, ROT_BORDER[face.kind])
        else:
            self._number(surf, "?", 0.18, 0.7)
        return self._cache.put(key, surf)

    def back(self, height: int) -> pygame.Surface:
        """A card back at ``height`` px: dark blue with a light inner frame and diagonals."""
        key = ("B", "", height)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        h = max(8, height)
        w = max(6, round(h * CARD_ASPECT))
        surf = pygame.Surface((w, h), pygame.SRCALPHA, 32)
        radius = max(2, h // 16)
        pygame.draw.rect(surf, PAPER, surf.get_rect(), 0, radius)
        inner = surf.get_rect().inflate(-max(2, h // 20), -max(2, h // 20))
        pygame.draw.rect(surf, CARD_BACK, inner, 0, max(1, radius - 2))
        step = max(4, h // 8)
        line = (86, 98, 170)
        clip = surf.get_clip()
        surf.set_clip(inner.inflate(-max(2, h // 30), -max(2, h // 30)))
        for x in range(-h, w + h, step):
            pygame.draw.line(surf, line, (x, 0), (x + h, h), max(1, h // 50))
        surf.set_clip(clip)
        return self._cache.put(key, surf)

    def fan(self, count: int, height: int) -> pygame.Surface:
        """``count`` card backs (at most 10 drawn) fanned like a hand, ``height`` px each.

        The surface is ``2.6 h`` x ``1.45 h`` px, SRCALPHA; 0 cards draws a dashed slot.
        """
        key = ("F", str(count), height)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        h = max(8, height)
        surf = pygame.Surface((round(2.6 * h), round(1.45 * h)), pygame.SRCALPHA, 32)
        radius = 1.4 * h
        pivot = (surf.get_width() / 2, 0.62 * h + radius)
        shown = min(max(0, count), 10)
        if shown == 0:
            slot = pygame.Rect(0, 0, round(h * CARD_ASPECT), h)
            slot.midbottom = (surf.get_width() // 2, surf.get_height() - 2)
            pygame.draw.rect(surf, TEXT_DIM, slot, max(1, h // 25), max(2, h // 16))
        spread = min(60.0, 9.0 * (shown - 1))
        back = self.back(h)
        for i in range(shown):
            angle = 0.0 if shown == 1 else -spread / 2 + spread * i / (shown - 1)
            rotated = pygame.transform.rotate(back, -angle)
            vec = pygame.math.Vector2(0, -radius).rotate(angle)
            centre = (pivot[0] + vec.x, pivot[1] + vec.y)
            surf.blit(rotated, rotated.get_rect(center=(round(centre[0]), round(centre[1]))))
        return self._cache.put(key, surf)
