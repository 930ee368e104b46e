"""Cards for the table display: blank faces, the tools a game paints its faces with, backs
and fanned hands.

A game's plugin paints its own faces (``GamePlugin.card_face``, reading codes through the
engine's card types) on a :meth:`CardPainter.blank` card with :meth:`CardPainter.number`
and :meth:`CardPainter.label`, through :meth:`CardPainter.face`, which caches them per face
key and height in a cache bounded by count and bytes.
"""

from __future__ import annotations

from collections.abc import Callable

import pygame

from device.render.cache import SurfaceCache
from device.render.palette import CARD_BACK, INK, PAPER, TEXT_DIM, Colour
from device.render.text import Typesetter

CARD_ASPECT = 0.7
"""Card width / height."""

CACHE_FACES = 96
"""Most card surfaces (faces, backs, fans) a :class:`CardPainter` keeps."""
CACHE_BYTES = 24 * 1024 * 1024
"""Bytes of pixels a :class:`CardPainter` keeps (24 MiB, ~30 faces at 520 px: one face
is ~0.75 MB, and a deck may have some 40 faces)."""


class CardPainter:
    """Draws and caches card surfaces (SRCALPHA, ``round(h * 0.7)`` x ``h`` px), the least
    recently used dropped beyond :data:`CACHE_FACES` surfaces or :data:`CACHE_BYTES` bytes.

    ``text``: the scene's :class:`Typesetter`.  Not thread-safe.
    """

    def __init__(self, text: Typesetter) -> None:
        self._text = text
        self._cache = SurfaceCache(CACHE_FACES, CACHE_BYTES)

    @property
    def text(self) -> Typesetter:
        """The scene's typesetter (for a face's wrapped names)."""
        return self._text

    @property
    def cached_bytes(self) -> int:
        """Bytes of pixels the card cache holds now (<= :data:`CACHE_BYTES`)."""
        return self._cache.bytes

    def blank(self, height: int, border: Colour) -> pygame.Surface:
        """A blank card ``round(h * 0.7)`` x ``h`` px (``h``: ``height``, at least 8): a
        paper face inside a rounded ``border``."""
        h = max(8, height)
        w = max(6, round(h * CARD_ASPECT))
        surf = pygame.Surface((w, h), pygame.SRCALPHA, 32)
        rect = surf.get_rect()
        radius = max(2, h // 16)
        pygame.draw.rect(surf, border, rect, 0, radius)
        inset = max(2, h // 40)
        pygame.draw.rect(surf, PAPER, rect.inflate(-2 * inset, -2 * inset), 0, radius - 1)
        return surf

    def number(self, surf: pygame.Surface, text: str, top: float, px: float) -> None:
        """Draw ``text`` in ink centred across card ``surf`` (``h`` px tall) at line height
        ``px * h`` with its ink's top at ``top * h``."""
        h = surf.get_height()
        image = self._text.render(text, round(px * h), INK)
        ink = image.get_bounding_rect()
        x = surf.get_width() // 2 - ink.centerx
        surf.blit(image, (x, round(top * h) - ink.top))

    def label(self, surf: pygame.Surface, text: str, centre_y: float, px: float) -> None:
        """Draw ``text`` in ink centred on card ``surf`` (``h`` px tall) at ``centre_y * h``,
        line height ``px * h``, fitted to the card's width."""
        w, h = surf.get_size()
        self._text.blit_centred(
            surf, text, round(px * h), INK, (w // 2, round(centre_y * h)), w - h // 10, 8
        )

    def face(
        self, key: tuple[str, str], height: int, draw: Callable[[pygame.Surface], None],
        border: Colour,
    ) -> pygame.Surface:
        """A card face from the cache, or painted now: a blank card (:meth:`blank`) with a
        ``border`` of that colour at ``height`` px, on which ``draw`` paints the face.
        ``key``: ``(kind, code)`` naming the face (a game's letter and what the face shows:
        two equal keys must be equal faces)."""
        full = (*key, height)
        cached = self._cache.get(full)
        if cached is not None:
            return cached
        surf = self.blank(height, border)
        draw(surf)
        return self._cache.put(full, surf)

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
