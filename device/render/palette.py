"""Colours of the table display: the Okabe-Ito colour-blind-safe palette and its uses.

``docs/screens.md``: symbols differ by shape first and colour second (a game's symbol
colours are its plugin's, from these); every seat has a colour and a number used
everywhere.  Colours are ``(r, g, b)`` tuples of ints 0-255.
The contrast helpers follow WCAG 2.x (relative luminance, contrast ratio 1.0-21.0).
``tests/device/test_readable.py`` checks the seat colours apart for normal vision and
simulated deuteranopia and protanopia (Machado, Oliveira & Fernandes 2009).
"""

from __future__ import annotations

Colour = tuple[int, int, int]
"""An opaque RGB colour, each channel 0-255."""

# The eight Okabe-Ito colours (Okabe & Ito 2008, "Color Universal Design").
BLACK: Colour = (0, 0, 0)
ORANGE: Colour = (230, 159, 0)
SKY_BLUE: Colour = (86, 180, 233)
BLUISH_GREEN: Colour = (0, 158, 115)
YELLOW: Colour = (240, 228, 66)
BLUE: Colour = (0, 114, 178)
VERMILLION: Colour = (213, 94, 0)
REDDISH_PURPLE: Colour = (204, 121, 167)

PINK: Colour = (255, 170, 187)
"""Paul Tol's colour-blind-safe "light" scheme's pink (#FFAABB, Tol 2021, "Colour Schemes",
SRON/EPS/TN/09-002): a seat colour where Okabe-Ito has none left that stays apart."""

SEAT_COLOURS: tuple[Colour, ...] = (
    PINK,
    SKY_BLUE,
    BLUISH_GREEN,
    YELLOW,
    BLUE,
    VERMILLION,
)
"""Seat s's colour is ``SEAT_COLOURS[s % 6]`` (6 seats at most, RI-2.4, RT-2.5); the seat's
number is always drawn on it, so colour is never the only cue.

Chosen so that every pair stays apart (CIEDE2000 >= 15) for normal vision and under
simulated deuteranopia and protanopia: Okabe-Ito orange is left out (beside vermillion and
yellow it merges for deutans: 12.5 and 11.6), reddish purple too (under protanopia it meets
sky blue and blue: 14.0 and 12.2); Okabe-Ito blue is in (3.4:1 on the table's background)
with Tol's pink.  The closest pair left is sky blue and pink under protanopia, 17.0."""

# Surfaces of the table display.
BACKGROUND: Colour = (22, 26, 34)
"""The table's dark slate; letterbox bars are :data:`BLACK`."""
PANEL: Colour = (40, 46, 58)
"""Seat badges and info panels."""
PANEL_DIM: Colour = (30, 34, 42)
"""A seat that is out of the round."""
PAPER: Colour = (250, 246, 234)
"""Card faces."""
INK: Colour = (18, 18, 22)
"""Text and numbers on paper."""
TEXT: Colour = (240, 240, 240)
"""Text on the dark background."""
TEXT_DIM: Colour = (150, 156, 168)
"""Secondary text on the dark background."""
CARD_BACK: Colour = (52, 62, 120)
"""The back of a card (hand fans, the draw pile)."""
ALERT: Colour = VERMILLION
"""Error banners and unplugged marks."""
HIGHLIGHT: Colour = (255, 255, 255)
"""The turn marker."""


def seat_colour(seat: int) -> Colour:
    """Return seat ``seat``'s colour (``seat``: 0-based seat number; any int wraps)."""
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def relative_luminance(colour: Colour) -> float:
    """WCAG relative luminance of ``colour``: 0.0 (black) .. 1.0 (white)."""

    def channel(c: int) -> float:
        v = c / 255.0
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: Colour, b: Colour) -> float:
    """WCAG contrast ratio of two colours: 1.0 (same) .. 21.0 (black on white)."""
    la, lb = relative_luminance(a), relative_luminance(b)
    hi, lo = max(la, lb), min(la, lb)
    return (hi + 0.05) / (lo + 0.05)


def text_on(colour: Colour) -> Colour:
    """The text colour (:data:`INK` or :data:`TEXT`) that reads best on ``colour``."""
    return INK if contrast_ratio(INK, colour) >= contrast_ratio(TEXT, colour) else TEXT
