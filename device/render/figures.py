"""Icons with one definition for every screen: boxes on a small grid of cells.

A card's icon must be the same on the TV and on the handheld (the Ziehen!
icon among them; ``docs/screens.md``: symbols differ by shape first).  A :class:`Figure` is that
one definition: filled (or cut-out) rounded boxes whose edges lie on the lines of an
``n`` x ``n`` grid.  The 128x64 hand screen lights the cells whose centres the figure
covers (:func:`cells`: exact 1-bit pixels, an 11x11 glyph for
:data:`device.hands.screen.GLYPHS`); the TV draws the same boxes scaled to any size with
anti-aliased edges (:func:`device.render.icons.figure_shape`).  Because every edge is on
a grid line and corner radii are at most one cell, the TV's picture shrunk to the grid is
the hand's glyph cell for cell (``tests/device/test_readable.py`` checks it).

Pure data and arithmetic: no pygame, no PIL.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Box:
    """A box from ``(x0, y0)`` to ``(x1, y1)`` in grid cells (ints, x0 < x1, y0 < y1) with
    corners rounded by ``radius`` cells (0 .. 1), filled or, with ``clear``, cut out of
    what the boxes before it drew."""

    x0: int
    y0: int
    x1: int
    y1: int
    radius: float = 0.0
    clear: bool = False

    def covers(self, x: float, y: float) -> bool:
        """Whether the point ``(x, y)`` (grid cells) lies inside the rounded box."""
        if not (self.x0 <= x <= self.x1 and self.y0 <= y <= self.y1):
            return False
        r = self.radius
        if r <= 0:
            return True
        cx = min(max(x, self.x0 + r), self.x1 - r)
        cy = min(max(y, self.y0 + r), self.y1 - r)
        return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


@dataclass(frozen=True, slots=True)
class Figure:
    """An icon on a ``grid`` x ``grid`` cell square, drawn box by box in order
    (``parts``).  Raises ``ValueError`` naming the figure and the box that leaves the grid,
    is empty or is rounded by more than one cell."""

    name: str
    grid: int
    parts: tuple[Box, ...]

    def __post_init__(self) -> None:
        for i, b in enumerate(self.parts):
            inside = 0 <= b.x0 < b.x1 <= self.grid and 0 <= b.y0 < b.y1 <= self.grid
            if not inside or not 0 <= b.radius <= 1:
                raise ValueError(
                    f"figure {self.name!r} box {i} ({b.x0},{b.y0})-({b.x1},{b.y1}) radius "
                    f"{b.radius}: boxes must lie on the {self.grid}x{self.grid} grid with a "
                    f"radius of 0..1 cell"
                )


def cells(figure: Figure) -> tuple[str, ...]:
    """The figure as 1-bit rows of ``"#"`` (lit) and ``"."``: a cell is lit when its centre
    is inside the last box covering it and that box is not a cut-out."""
    rows: list[str] = []
    for j in range(figure.grid):
        row = []
        for i in range(figure.grid):
            lit = False
            for box in figure.parts:
                if box.covers(i + 0.5, j + 0.5):
                    lit = not box.clear
            row.append("#" if lit else ".")
        rows.append("".join(row))
    return tuple(rows)


PLUS_CARD = Figure(
    "plus_card",
    11,
    (
        Box(1, 0, 10, 11, radius=1.0),
        Box(2, 1, 9, 10, radius=0.5, clear=True),
        Box(3, 5, 8, 6),
        Box(5, 3, 6, 8),
    ),
)
"""A card with a plus on it: "draw a card" (Right on Time's Ziehen!, RT-1.2 and RT-4): the
TV's ``plus_card`` glyph and the hand screen's ``pull`` glyph."""
