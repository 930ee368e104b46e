"""Text for the table display: pygame's default font only, cached by size and content.

``docs/screens.md``: fonts ship with the libraries (``pygame.font.Font(None, size)``), no
system fonts.  Sizes here are **line heights in px** (``Font.get_height()``), the measure
the screen spec's size guide uses; the default font's capital/digit ink is about 3/4 of it.
"""

from __future__ import annotations

import pygame

from device.render.cache import SurfaceCache
from device.render.palette import Colour

ELLIPSIS = "..."

CACHE_BYTES = 24 * 1024 * 1024
"""Default budget of the rendered-line cache, bytes of pixel data (24 MiB; one busy table
frame uses about 2.5 MB of lines).  A line on the TV is large (a 56 px top-strip line of
40 characters is ~1,100x62 px, ~0.28 MB at 32 bpp), and every action brings new event
texts: a cache bounded only by count (512 lines) could hold hundreds of MB."""

CACHE_LINES = 256
"""Default most rendered lines the cache keeps, whatever their size."""


class Typesetter:
    """Cached fonts and rendered text lines (one per table scene; not thread-safe).

    The rendered-line cache (:class:`~device.render.cache.SurfaceCache`) drops the least
    recently used lines once it holds more than ``max_cached`` lines or more than
    ``max_bytes`` bytes of pixels.  Initialises ``pygame.font`` if needed; raises
    ``pygame.error`` if it cannot.
    """

    def __init__(self, max_cached: int = CACHE_LINES, max_bytes: int = CACHE_BYTES) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        self._fonts: dict[int, pygame.font.Font] = {}
        self._lines = SurfaceCache(max_cached, max_bytes)
        self._ratio = pygame.font.Font(None, 100).get_height() / 100.0

    @property
    def cached_lines(self) -> int:
        """How many rendered lines the cache holds now (<= ``max_cached``)."""
        return len(self._lines)

    @property
    def cached_bytes(self) -> int:
        """Bytes of pixel data the rendered-line cache holds now (<= ``max_bytes``)."""
        return self._lines.bytes

    def font(self, px: int) -> pygame.font.Font:
        """The default font whose line height is about ``px`` px (``px`` >= 1)."""
        px = max(1, px)
        f = self._fonts.get(px)
        if f is None:
            f = pygame.font.Font(None, max(1, round(px / self._ratio)))
            self._fonts[px] = f
        return f

    def width(self, text: str, px: int) -> int:
        """Width in px of ``text`` rendered at line height ``px``."""
        return self.font(px).size(text)[0]

    def render(self, text: str, px: int, colour: Colour) -> pygame.Surface:
        """``text`` (one line) anti-aliased in ``colour`` on a transparent surface."""
        key = (text, px, colour)
        s = self._lines.get(key)
        if s is None:
            s = self._lines.put(key, self.font(px).render(text, True, colour))
        return s

    def fit_size(self, text: str, px: int, max_width: int, min_px: int) -> int:
        """The largest line height from ``px`` down to ``min_px`` at which ``text`` fits."""
        size = px
        while size > min_px and self.width(text, size) > max_width:
            size = max(min_px, size - max(1, size // 20))
        return size

    def fit(
        self, text: str, px: int, colour: Colour, max_width: int, min_px: int | None = None
    ) -> pygame.Surface:
        """``text`` at the largest size from ``px`` down to ``min_px`` (default ``px``) that
        fits ``max_width`` px; if it does not fit even then, cut with ``"..."``."""
        floor = px if min_px is None else min(px, min_px)
        size = self.fit_size(text, px, max_width, floor)
        return self.render(self.truncate(text, size, max_width), size, colour)

    def truncate(self, text: str, px: int, max_width: int) -> str:
        """``text`` shortened with ``"..."`` until it fits ``max_width`` px at ``px``."""
        if self.width(text, px) <= max_width:
            return text
        cut = text
        while cut and self.width(cut.rstrip() + ELLIPSIS, px) > max_width:
            cut = cut[:-1]
        return cut.rstrip() + ELLIPSIS if cut else ""

    def wrap(self, text: str, px: int, max_width: int, max_lines: int) -> list[str]:
        """Split ``text`` at spaces into at most ``max_lines`` lines that fit ``max_width``
        px at ``px``; the last line is cut with ``"..."`` if words are left over."""
        lines: list[str] = []
        words = text.split()
        current = ""
        for i, word in enumerate(words):
            trial = f"{current} {word}".strip()
            if current and self.width(trial, px) > max_width:
                lines.append(current)
                current = word
                if len(lines) == max_lines - 1:
                    rest = " ".join([word, *words[i + 1 :]])
                    lines.append(self.truncate(rest, px, max_width))
                    return lines
            else:
                current = trial
        if current:
            lines.append(self.truncate(current, px, max_width))
        return lines[:max_lines]

    def blit_centred(
        self,
        surface: pygame.Surface,
        text: str,
        px: int,
        colour: Colour,
        centre: tuple[int, int],
        max_width: int,
        min_px: int | None = None,
    ) -> pygame.Rect:
        """Fit ``text`` (see :meth:`fit`) and draw it centred on ``centre``; returns its rect."""
        image = self.fit(text, px, colour, max_width, min_px)
        rect = image.get_rect(center=centre)
        surface.blit(image, rect)
        return rect
