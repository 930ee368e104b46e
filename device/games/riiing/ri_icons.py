"""Riiing!'s five symbols as shape-coded icons for the table (docs/screens.md: shape first,
colour second), each drawn with a :class:`device.render.icons.Pen` on a 100x100 grid:

- ``"A"`` alarm clock: round face (a ring with hands) with two bells on top and two legs
- ``"S"`` soap: a rounded bar with a shine stripe and bubbles (open rings) above it
- ``"C"`` coffee: a cup with a handle on a saucer, steam lines rising
- ``"T"`` toast: a slice whose top has the crust bump, crust as a band, a butter pat inside
- ``"P"`` phone: a handset (curved grip, a cup at each end) resting on a base with a dial

Colours are Okabe-Ito (colour-blind safe), the Phone black.
"""

from __future__ import annotations

import math

from device.render.icons import Pen, Symbol
from device.render.palette import BLACK, BLUE, BLUISH_GREEN, ORANGE, VERMILLION


def _alarm(pen: Pen) -> None:
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


def _soap(pen: Pen) -> None:
    pen.rrect(8, 50, 92, 90, 18)
    pen.rrect(20, 58, 58, 65, 3, clear=True)
    pen.circle(26, 32, 11, width=4)
    pen.circle(50, 18, 8, width=4)
    pen.circle(74, 32, 13, width=4)
    pen.circle(90, 10, 5, width=3)


def _coffee(pen: Pen) -> None:
    pen.circle(80, 58, 13, width=7)
    pen.poly([(14, 40), (76, 40), (71, 70), (19, 70)])
    pen.ellipse(19, 56, 71, 86)
    pen.rrect(0, 82, 100, 87, 0, clear=True)
    pen.ellipse(4, 85, 96, 97)
    for base in (30.0, 45.0, 60.0):
        pts = [(base + 4.0 * math.sin(t / 6.0 * math.pi * 2.0), 32.0 - t * 4.0) for t in range(7)]
        pen.stroke(pts, 4)


def _toast(pen: Pen) -> None:
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


def _phone(pen: Pen) -> None:
    pen.poly([(24, 56), (76, 56), (94, 90), (6, 90)])
    pen.rrect(6, 80, 94, 96, 6)
    pen.circle(50, 74, 13, clear=True)
    pen.circle(50, 74, 5)
    pen.rrect(0, 44, 100, 52, 0, clear=True)
    grip = [(x, 14.0 + 14.0 * ((x - 50.0) / 36.0) ** 2) for x in range(14, 90, 4)]
    pen.stroke([*grip, (86.0, 28.0)], 13)
    pen.rrect(0, 26, 32, 44, 8)
    pen.rrect(68, 26, 100, 44, 8)


SYMBOLS: dict[str, Symbol] = {
    "A": Symbol("A", _alarm, VERMILLION),
    "S": Symbol("S", _soap, BLUE),
    "C": Symbol("C", _coffee, BLUISH_GREEN),
    "T": Symbol("T", _toast, ORANGE),
    "P": Symbol("P", _phone, BLACK),
}
"""Symbol letter (docs/notation.md: A S C T, and P for the Phone, RI-1.1) -> its icon."""
