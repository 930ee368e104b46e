"""Where things go on the 1920x1080 logical table display, and how it maps to a real surface.

Zones follow ``docs/screens.md`` (table display): the top strip, the edge ring of seat
badges (left and right columns), and the centre: last card (left), condition (right, the
biggest thing) with its countdown strip, draw pile / demand (bottom), the error banner.
All rects are ``pygame.Rect`` in logical px unless a name says otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygame

LOGICAL_W = 1920
LOGICAL_H = 1080
LOGICAL_SIZE = (LOGICAL_W, LOGICAL_H)

TOP = pygame.Rect(0, 0, LOGICAL_W, 110)
"""Top strip: game, round and scores, last event (text >= 48 px)."""
CARD = pygame.Rect(340, 120, 410, 640)
"""Centre left: the last card played (card >= 360 px tall)."""
COND = pygame.Rect(760, 120, 820, 530)
"""Centre right: the condition / RIIING! window / Right on Time's top value."""
COUNT = pygame.Rect(760, 650, 820, 110)
"""Under the condition: the countdown of an open RIIING! window."""
ROUND = COND.union(COUNT)
"""A round's end: the banner over the condition zone and its countdown strip."""
PILE = pygame.Rect(340, 770, 1240, 190)
"""Centre bottom: draw pile with its count; demand, phone chain, slap result, out order."""
BANNER = pygame.Rect(340, 970, 1240, 100)
"""Bottom: an error the party must see."""
CENTRE = pygame.Rect(340, 120, 1240, 840)
"""The whole centre (game over: winner and results)."""
WAKE = pygame.Rect(340, 120, 1240, 640)
"""Wake-up race: the call to slap."""
WAKE_COUNT = pygame.Rect(340, 770, 1240, 190)
"""Wake-up race: its countdown."""
LOBBY = pygame.Rect(0, 120, LOGICAL_W, 840)
"""Lobby menu rows and hint."""
LOBBY_BANNER = pygame.Rect(0, 970, LOGICAL_W, 100)
"""Lobby: error banner."""

SEAT_W = 330
"""Width of one seat zone in the edge ring (badge + 30 px turn-arrow lane)."""
SEAT_H = 310
"""Height of one seat zone."""
SEAT_GAP = 10
RING_TOP = 120
RING_H = LOGICAL_H - RING_TOP - 10
ARROW_LANE = 30
"""Width of the lane on a badge's inner side where the turn arrow points to the centre."""


def seat_zones(seats: int) -> list[tuple[pygame.Rect, str]]:
    """Zone rect and inner side (``"right"`` for the left column, ``"left"`` for the right)
    of each seat 0..``seats``-1, placed clockwise: up the left column, down the right one.

    ``seats``: 0..6 (more are clamped to 6, fewer than 0 to 0).
    """
    n = max(0, min(6, seats))
    left = (n + 1) // 2
    right = n - left
    out: list[tuple[pygame.Rect, str]] = []

    def column(count: int) -> list[int]:
        total = count * SEAT_H + max(0, count - 1) * SEAT_GAP
        y0 = RING_TOP + (RING_H - total) // 2
        return [y0 + i * (SEAT_H + SEAT_GAP) for i in range(count)]

    for y in reversed(column(left)):
        out.append((pygame.Rect(0, y, SEAT_W, SEAT_H), "right"))
    for y in column(right):
        out.append((pygame.Rect(LOGICAL_W - SEAT_W, y, SEAT_W, SEAT_H), "left"))
    return out


@dataclass(frozen=True, slots=True)
class Letterbox:
    """How the logical 1920x1080 frame maps onto a target surface of ``target`` px, 16:9 kept.

    ``scale``: target px per logical px; ``content``: the target rect the frame fills (the
    rest is black bars).
    """

    target: tuple[int, int]
    scale: float
    content: pygame.Rect

    @classmethod
    def fit(cls, target: tuple[int, int]) -> Letterbox:
        """The largest centred 16:9 fit of the logical frame in ``target`` (w, h) px."""
        w, h = max(0, target[0]), max(0, target[1])
        scale = min(w / LOGICAL_W, h / LOGICAL_H)
        cw, ch = round(LOGICAL_W * scale), round(LOGICAL_H * scale)
        return cls((w, h), scale, pygame.Rect((w - cw) // 2, (h - ch) // 2, cw, ch))

    def _x(self, x: int) -> int:
        return self.content.x + round(x * self.content.width / LOGICAL_W)

    def _y(self, y: int) -> int:
        return self.content.y + round(y * self.content.height / LOGICAL_H)

    def map_rect(self, rect: pygame.Rect) -> pygame.Rect:
        """``rect`` (logical px) in target px; adjacent logical rects stay adjacent."""
        x0, y0 = self._x(rect.left), self._y(rect.top)
        return pygame.Rect(x0, y0, self._x(rect.right) - x0, self._y(rect.bottom) - y0)
