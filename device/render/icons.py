"""Shape-coded icons drawn with ``pygame.draw`` primitives (no image files).

``docs/screens.md``: symbols differ by SHAPE first, colour second.  Every icon is a
:data:`Shape`: a function drawing in one colour with a :class:`Pen` on a 100x100 unit grid,
details cut out (transparent), so its silhouette alone tells it apart.  A game's own
symbols (Riiing!'s alarm clock, soap, ...) are :class:`Symbol` values its plugin supplies
(``device/games/<game>/``); the glyphs here (:data:`GLYPHS`) are the generic ones: arrows,
the equals sign, even/odd dot patterns, "open", star, zero, pointer and plus-card (a card
with a plus: drawn from :data:`device.render.figures.PLUS_CARD`, the hand screen's glyph
too).

Shapes are drawn 3x larger and smooth-scaled down, so edges are anti-aliased.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pygame

from device.render.figures import PLUS_CARD, Figure
from device.render.palette import Colour

GLYPHS: tuple[str, ...] = (
    "up",
    "down",
    "equal",
    "even",
    "odd",
    "open",
    "star",
    "zero",
    "pointer",
    "plus_card",
)
"""Glyph names :func:`draw_glyph` knows."""

_SUPERSAMPLE = 3
_CLEAR = (0, 0, 0, 0)

Point = tuple[float, float]


class Pen:
    """Draws on a square SRCALPHA surface in 100x100 units, in one colour; ``clear=True``
    cuts transparent details out of what is drawn."""

    def __init__(self, surface: pygame.Surface, colour: Colour) -> None:
        self.surface = surface
        self.k = surface.get_width() / 100.0
        self.ink = (*colour, 255)

    def _p(self, x: float, y: float) -> tuple[int, int]:
        return (round(x * self.k), round(y * self.k))

    def _len(self, v: float) -> int:
        return max(1, round(v * self.k))

    def circle(self, cx: float, cy: float, r: float, width: float = 0, clear: bool = False) -> None:
        """A disc (``width`` 0) or ring of radius ``r`` units."""
        colour = _CLEAR if clear else self.ink
        w = 0 if width == 0 else self._len(width)
        pygame.draw.circle(self.surface, colour, self._p(cx, cy), self._len(r), w)

    def rrect(
        self, x0: float, y0: float, x1: float, y1: float, radius: float, clear: bool = False
    ) -> None:
        """A filled rounded rectangle from (x0, y0) to (x1, y1) units."""
        colour = _CLEAR if clear else self.ink
        a, b = self._p(x0, y0), self._p(x1, y1)
        rect = pygame.Rect(a, (b[0] - a[0], b[1] - a[1]))
        pygame.draw.rect(self.surface, colour, rect, 0, self._len(radius))

    def ellipse(self, x0: float, y0: float, x1: float, y1: float, clear: bool = False) -> None:
        """A filled ellipse inside the box (x0, y0)-(x1, y1) units."""
        colour = _CLEAR if clear else self.ink
        a, b = self._p(x0, y0), self._p(x1, y1)
        pygame.draw.ellipse(self.surface, colour, pygame.Rect(a, (b[0] - a[0], b[1] - a[1])))

    def poly(self, points: Sequence[Point], clear: bool = False) -> None:
        """A filled polygon through ``points`` (units)."""
        colour = _CLEAR if clear else self.ink
        pygame.draw.polygon(self.surface, colour, [self._p(x, y) for x, y in points])

    def stroke(self, points: Sequence[Point], width: float, clear: bool = False) -> None:
        """A polyline of ``width`` units with round caps and joins."""
        colour = _CLEAR if clear else self.ink
        r = width / 2.0
        for (x0, y0), (x1, y1) in itertools.pairwise(points):
            dx, dy = x1 - x0, y1 - y0
            n = math.hypot(dx, dy) or 1.0
            ox, oy = -dy / n * r, dx / n * r
            quad = [(x0 + ox, y0 + oy), (x1 + ox, y1 + oy), (x1 - ox, y1 - oy), (x0 - ox, y0 - oy)]
            pygame.draw.polygon(self.surface, colour, [self._p(x, y) for x, y in quad])
        for x, y in points:
            pygame.draw.circle(self.surface, colour, self._p(x, y), self._len(r))


def _up(pen: Pen) -> None:
    pen.poly([(50, 4), (94, 50), (67, 50), (67, 96), (33, 96), (33, 50), (6, 50)])


def _down(pen: Pen) -> None:
    pen.poly([(50, 96), (94, 50), (67, 50), (67, 4), (33, 4), (33, 50), (6, 50)])


def _equal(pen: Pen) -> None:
    pen.rrect(8, 22, 92, 42, 6)
    pen.rrect(8, 58, 92, 78, 6)


def _even(pen: Pen) -> None:
    for y in (18.0, 50.0, 82.0):
        pen.circle(30, y, 13)
        pen.circle(70, y, 13)


def _odd(pen: Pen) -> None:
    for y in (18.0, 50.0):
        pen.circle(30, y, 13)
        pen.circle(70, y, 13)
    pen.circle(50, 82, 13)


def _open(pen: Pen) -> None:
    pen.circle(50, 50, 46)
    pen.circle(50, 50, 36, clear=True)
    pen.stroke([(30, 52), (45, 67), (72, 36)], 11)


def _star(pen: Pen) -> None:
    pts: list[Point] = []
    for i in range(10):
        r = 48.0 if i % 2 == 0 else 20.0
        a = math.radians(-90 + 36 * i)
        pts.append((50 + r * math.cos(a), 53 + r * math.sin(a)))
    pen.poly(pts)


def _zero(pen: Pen) -> None:
    pen.ellipse(14, 4, 86, 96)
    pen.ellipse(28, 18, 72, 82, clear=True)
    pen.stroke([(22, 88), (78, 12)], 9)


def _pointer(pen: Pen) -> None:
    pen.poly([(4, 40), (56, 40), (56, 18), (96, 50), (56, 82), (56, 60), (4, 60)])


Shape = Callable[[Pen], None]
"""Draws one icon with a :class:`Pen` (100x100 units, one colour)."""


def figure_shape(figure: Figure) -> Shape:
    """The :data:`Shape` of a grid :class:`~device.render.figures.Figure`: its boxes
    scaled from ``figure.grid`` cells to 100 units, drawn (or cut out) in order, so the
    TV's icon is the hand screen's glyph (:func:`device.render.figures.cells`) drawn
    large."""
    k = 100.0 / figure.grid

    def draw(pen: Pen) -> None:
        for b in figure.parts:
            pen.rrect(b.x0 * k, b.y0 * k, b.x1 * k, b.y1 * k, b.radius * k, clear=b.clear)

    return draw


_plus_card = figure_shape(PLUS_CARD)


@dataclass(frozen=True, slots=True)
class Symbol:
    """A game's shape-coded symbol: its ``name`` (the notation's letter, e.g. ``"A"``), the
    ``shape`` that draws it and its ``colour`` (colour-blind-safe, second to the shape)."""

    name: str
    shape: Shape
    colour: Colour


_SHAPES: dict[str, Shape] = {
    "up": _up,
    "down": _down,
    "equal": _equal,
    "even": _even,
    "odd": _odd,
    "open": _open,
    "star": _star,
    "zero": _zero,
    "pointer": _pointer,
    "plus_card": _plus_card,
}


def stamp(name: str | Shape, size: int, colour: Colour) -> pygame.Surface:
    """Render glyph ``name`` (or the shape ``name``) as a ``size`` x ``size`` px SRCALPHA
    surface.

    ``name``: one of :data:`GLYPHS`, or a :data:`Shape`; ``size``: px, >= 1; ``colour``: the
    one colour of the shape (cut-outs are transparent).  Raises ``ValueError`` naming an
    unknown ``name`` or a size below 1.
    """
    draw = _SHAPES.get(name) if isinstance(name, str) else name
    if draw is None:
        raise ValueError(f"unknown glyph {name!r}: expected one of {' '.join(GLYPHS)}")
    if size < 1:
        raise ValueError(f"icon size must be at least 1 px, got {size}")
    big = pygame.Surface((size * _SUPERSAMPLE, size * _SUPERSAMPLE), pygame.SRCALPHA, 32)
    draw(Pen(big, colour))
    return pygame.transform.smoothscale(big, (size, size))


def draw_shape(
    surface: pygame.Surface,
    shape: str | Shape,
    rect: pygame.Rect,
    colour: Colour,
    outline: Colour | None = None,
) -> None:
    """Draw glyph or shape ``shape`` (see :func:`stamp`) in ``colour``, square, as large as
    fits ``rect`` (px, surface coordinates) and centred in it.  ``outline``: optional colour
    of a halo about 1/40 of the size wide, for contrast on a background close to
    ``colour``.  Raises ``ValueError`` for an unknown glyph name."""
    size = max(1, min(rect.width, rect.height))
    image = stamp(shape, size, colour)
    pos = image.get_rect(center=rect.center)
    if outline is not None:
        halo = stamp(shape, size, outline)
        w = max(1, size // 40)
        for dx, dy in ((-w, 0), (w, 0), (0, -w), (0, w), (-w, -w), (w, w), (-w, w), (w, -w)):
            surface.blit(halo, pos.move(dx, dy))
    surface.blit(image, pos)


def draw_glyph(
    surface: pygame.Surface,
    glyph: str,
    rect: pygame.Rect,
    colour: Colour,
    outline: Colour | None = None,
) -> None:
    """Draw condition glyph ``glyph`` (one of :data:`GLYPHS`) in ``colour`` centred in ``rect``.

    Same conventions as :func:`draw_shape`; raises ``ValueError`` for an unknown glyph.
    """
    if glyph not in GLYPHS:
        raise ValueError(f"unknown glyph {glyph!r}: expected one of {' '.join(GLYPHS)}")
    draw_shape(surface, glyph, rect, colour, outline)
