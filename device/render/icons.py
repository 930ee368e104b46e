"""Shape-coded symbols and glyphs drawn with ``pygame.draw`` primitives (no image files).

``design/screens.md``: symbols differ by SHAPE first, colour second.  Each symbol is drawn
in one colour on a 100x100 unit grid, with details cut out (transparent), so its silhouette
alone tells it apart:

- ``"A"`` alarm clock: round face (a ring with hands) with two bells on top and two legs
- ``"S"`` soap: a rounded bar with a shine stripe and bubbles (open rings) above it
- ``"C"`` coffee: a cup with a handle on a saucer, steam lines rising
- ``"T"`` toast: a slice whose top has the crust bump, crust as a band, a butter pat inside
- ``"P"`` phone: a handset (curved grip, a cup at each end) resting on a base with a dial

Glyphs (:data:`GLYPHS`) are the condition icons: arrows, the equals sign, even/odd dot
patterns, "open", and the Right on Time specials (star, zero, pointer, plus-card).

Shapes are drawn 3x larger and smooth-scaled down, so edges are anti-aliased.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

import pygame

from device.render.palette import Colour

SYMBOLS: tuple[str, ...] = ("A", "S", "C", "T", "P")
"""Symbol codes :func:`draw_symbol` knows (``design/notation.md``; ``P`` is the Phone)."""

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


class _Pen:
    """Draws on a square SRCALPHA surface in 100x100 units (private helper)."""

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


def _alarm(pen: _Pen) -> None:
    pen.stroke([(30, 80), (19, 95)], 8)
    pen.stroke([(70, 80), (81, 95)], 8)
    pen.circle(21, 23, 16)
    pen.circle(79, 23, 16)
    pen.rrect(42, 4, 58, 12, 3)
    pen.circle(50, 56, 43, clear=True)
    pen.circle(50, 56, 38)
    pen.circle(50, 56, 29, clear=True)
    pen.stroke([(50, 56), (50, 36)], 6)
    pen.stroke([(50, 56), (64, 64)], 6)
    pen.circle(50, 56, 5)


def _soap(pen: _Pen) -> None:
    pen.rrect(8, 50, 92, 90, 18)
    pen.rrect(20, 58, 58, 65, 3, clear=True)
    pen.circle(26, 32, 11, width=4)
    pen.circle(50, 18, 8, width=4)
    pen.circle(74, 32, 13, width=4)
    pen.circle(90, 10, 5, width=3)


def _coffee(pen: _Pen) -> None:
    pen.circle(80, 58, 13, width=7)
    pen.poly([(14, 40), (76, 40), (71, 70), (19, 70)])
    pen.ellipse(19, 56, 71, 86)
    pen.rrect(0, 82, 100, 87, 0, clear=True)
    pen.ellipse(4, 85, 96, 97)
    for base in (30.0, 45.0, 60.0):
        pts = [(base + 4.0 * math.sin(t / 6.0 * math.pi * 2.0), 32.0 - t * 4.0) for t in range(7)]
        pen.stroke(pts, 4)


def _toast(pen: _Pen) -> None:
    pen.circle(27, 36, 20)
    pen.circle(73, 36, 20)
    pen.rrect(27, 16, 73, 44, 0)
    pen.rrect(9, 36, 91, 94, 9)
    pen.circle(27, 36, 12, clear=True)
    pen.circle(73, 36, 12, clear=True)
    pen.rrect(27, 24, 73, 44, 0, clear=True)
    pen.rrect(17, 36, 83, 86, 4, clear=True)
    c, s = math.cos(math.radians(20)), math.sin(math.radians(20))
    pat = [(-11, -11), (11, -11), (11, 11), (-11, 11)]
    pen.poly([(50 + x * c - y * s, 60 + x * s + y * c) for x, y in pat])


def _phone(pen: _Pen) -> None:
    pen.poly([(24, 56), (76, 56), (94, 90), (6, 90)])
    pen.rrect(6, 80, 94, 96, 6)
    pen.circle(50, 74, 13, clear=True)
    pen.circle(50, 74, 5)
    pen.rrect(0, 44, 100, 52, 0, clear=True)
    grip = [(x, 14.0 + 14.0 * ((x - 50.0) / 36.0) ** 2) for x in range(14, 90, 4)]
    pen.stroke([*grip, (86.0, 28.0)], 13)
    pen.rrect(0, 26, 32, 44, 8)
    pen.rrect(68, 26, 100, 44, 8)


def _up(pen: _Pen) -> None:
    pen.poly([(50, 4), (94, 50), (67, 50), (67, 96), (33, 96), (33, 50), (6, 50)])


def _down(pen: _Pen) -> None:
    pen.poly([(50, 96), (94, 50), (67, 50), (67, 4), (33, 4), (33, 50), (6, 50)])


def _equal(pen: _Pen) -> None:
    pen.rrect(8, 22, 92, 42, 6)
    pen.rrect(8, 58, 92, 78, 6)


def _even(pen: _Pen) -> None:
    for y in (18.0, 50.0, 82.0):
        pen.circle(30, y, 13)
        pen.circle(70, y, 13)


def _odd(pen: _Pen) -> None:
    for y in (18.0, 50.0):
        pen.circle(30, y, 13)
        pen.circle(70, y, 13)
    pen.circle(50, 82, 13)


def _open(pen: _Pen) -> None:
    pen.circle(50, 50, 46)
    pen.circle(50, 50, 36, clear=True)
    pen.stroke([(30, 52), (45, 67), (72, 36)], 11)


def _star(pen: _Pen) -> None:
    pts: list[Point] = []
    for i in range(10):
        r = 48.0 if i % 2 == 0 else 20.0
        a = math.radians(-90 + 36 * i)
        pts.append((50 + r * math.cos(a), 53 + r * math.sin(a)))
    pen.poly(pts)


def _zero(pen: _Pen) -> None:
    pen.ellipse(14, 4, 86, 96)
    pen.ellipse(28, 18, 72, 82, clear=True)
    pen.stroke([(22, 88), (78, 12)], 9)


def _pointer(pen: _Pen) -> None:
    pen.poly([(4, 40), (56, 40), (56, 18), (96, 50), (56, 82), (56, 60), (4, 60)])


def _plus_card(pen: _Pen) -> None:
    pen.rrect(10, 6, 62, 80, 8)
    pen.rrect(18, 14, 54, 72, 4, clear=True)
    pen.rrect(62, 50, 98, 62, 3)
    pen.rrect(74, 38, 86, 74, 3)


_SHAPES: dict[str, Callable[[_Pen], None]] = {
    "A": _alarm,
    "S": _soap,
    "C": _coffee,
    "T": _toast,
    "P": _phone,
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


def stamp(name: str, size: int, colour: Colour) -> pygame.Surface:
    """Render symbol or glyph ``name`` as a ``size`` x ``size`` px SRCALPHA surface.

    ``name``: one of :data:`SYMBOLS` or :data:`GLYPHS`; ``size``: px, >= 1; ``colour``: the
    one colour of the shape (cut-outs are transparent).  Raises ``ValueError`` naming an
    unknown ``name`` or a size below 1.
    """
    draw = _SHAPES.get(name)
    if draw is None:
        known = " ".join((*SYMBOLS, *GLYPHS))
        raise ValueError(f"unknown symbol or glyph {name!r}: expected one of {known}")
    if size < 1:
        raise ValueError(f"icon size must be at least 1 px, got {size}")
    big = pygame.Surface((size * _SUPERSAMPLE, size * _SUPERSAMPLE), pygame.SRCALPHA, 32)
    draw(_Pen(big, colour))
    return pygame.transform.smoothscale(big, (size, size))


def _draw_centred(
    surface: pygame.Surface, name: str, rect: pygame.Rect, colour: Colour, outline: Colour | None
) -> None:
    size = max(1, min(rect.width, rect.height))
    image = stamp(name, size, colour)
    pos = image.get_rect(center=rect.center)
    if outline is not None:
        halo = stamp(name, size, outline)
        w = max(1, size // 40)
        for dx, dy in ((-w, 0), (w, 0), (0, -w), (0, w), (-w, -w), (w, w), (-w, w), (w, -w)):
            surface.blit(halo, pos.move(dx, dy))
    surface.blit(image, pos)


def draw_symbol(
    surface: pygame.Surface,
    symbol: str,
    rect: pygame.Rect,
    colour: Colour,
    outline: Colour | None = None,
) -> None:
    """Draw Riiing! symbol ``symbol`` (``"A"``, ``"S"``, ``"C"``, ``"T"``, ``"P"``) in ``colour``.

    The shape is square, as large as fits ``rect`` (px, surface coordinates), centred in it.
    ``outline``: optional colour of a halo about 1/40 of the size wide, for contrast on a
    background close to ``colour``.  Raises ``ValueError`` for an unknown symbol code.
    (``design/screens.md``: alarm clock, soap, coffee, toast, phone differ by shape.)
    """
    if symbol not in SYMBOLS:
        raise ValueError(f"unknown symbol {symbol!r}: expected one of {' '.join(SYMBOLS)}")
    _draw_centred(surface, symbol, rect, colour, outline)


def draw_glyph(
    surface: pygame.Surface,
    glyph: str,
    rect: pygame.Rect,
    colour: Colour,
    outline: Colour | None = None,
) -> None:
    """Draw condition glyph ``glyph`` (one of :data:`GLYPHS`) in ``colour`` centred in ``rect``.

    Same conventions as :func:`draw_symbol`; raises ``ValueError`` for an unknown glyph.
    """
    if glyph not in GLYPHS:
        raise ValueError(f"unknown glyph {glyph!r}: expected one of {' '.join(GLYPHS)}")
    _draw_centred(surface, glyph, rect, colour, outline)
