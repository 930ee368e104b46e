"""What each zone of the table display shows, as comparable values, and how to paint it.

A zone spec is a frozen dataclass holding everything its zone shows at one moment, animation
frame included.  The table scene builds the specs for ``now``, compares each with the spec
last painted, and repaints only zones whose spec changed (incremental draw).  ``paint`` draws
onto the 1920x1080 logical canvas inside ``rect``; the zone's background is already filled
and drawing is clipped to ``rect``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import pygame

from device.render import icons
from device.render.anim import pulse_level
from device.render.cards import CardPainter
from device.render.layout import ARROW_LANE
from device.render.palette import (
    ALERT,
    HIGHLIGHT,
    INK,
    PANEL,
    PANEL_DIM,
    PAPER,
    TEXT,
    TEXT_DIM,
    YELLOW,
    Colour,
    text_on,
)
from device.render.text import Typesetter

Chip = tuple[str, Colour, Colour]
"""A small label on a seat badge: ``(text, background, text colour)``."""


CardFace = Callable[[CardPainter, str, int], pygame.Surface]
"""Paints a card's face: ``(painter, code, height px) -> surface`` (a game's
``GamePlugin.card_face``)."""


class Paint:
    """The painting context: logical canvas, text, cards, cached icon stamps and the
    game's symbols (``symbols``: name -> :class:`device.render.icons.Symbol`; a spec names
    a symbol, the game being drawn supplies its shape and colour)."""

    def __init__(
        self,
        canvas: pygame.Surface,
        text: Typesetter,
        cards: CardPainter,
        symbols: Mapping[str, icons.Symbol] | None = None,
    ) -> None:
        self.canvas = canvas
        self.text = text
        self.cards = cards
        self.symbols: Mapping[str, icons.Symbol] = symbols or {}
        self._stamps: dict[tuple[str | icons.Shape, int, Colour], pygame.Surface] = {}

    def _shape(self, name: str) -> str | icons.Shape:
        symbol = self.symbols.get(name)
        return name if symbol is None else symbol.shape

    def symbol_colour(self, name: str) -> Colour:
        """The colour of the game's symbol ``name`` (:data:`INK` for an unknown one)."""
        symbol = self.symbols.get(name)
        return INK if symbol is None else symbol.colour

    def stamp(self, name: str, size: int, colour: Colour) -> pygame.Surface:
        """Cached :func:`device.render.icons.stamp` of the game's symbol or the glyph
        ``name`` (``ValueError`` for an unknown name)."""
        shape = self._shape(name)
        key = (shape, size, colour)
        s = self._stamps.get(key)
        if s is None:
            s = icons.stamp(shape, size, colour)
            self._stamps[key] = s
        return s

    def icon(
        self,
        name: str,
        centre: tuple[int, int],
        size: int,
        colour: Colour,
        outline: Colour | None = None,
    ) -> None:
        """Draw the game's symbol or the glyph ``name`` (``size`` px square) centred on
        ``centre``, with an ``outline`` halo if given."""
        image = self.stamp(name, size, colour)
        pos = image.get_rect(center=centre)
        if outline is not None:
            halo = self.stamp(name, size, outline)
            w = max(1, size // 40)
            for dx, dy in ((-w, 0), (w, 0), (0, -w), (0, w), (-w, -w), (w, w), (-w, w), (w, -w)):
                self.canvas.blit(halo, pos.move(dx, dy))
        self.canvas.blit(image, pos)

    def symbol_tile(self, symbol: str, centre: tuple[int, int], size: int) -> None:
        """The game's symbol on a paper tile ``size`` px square (symbols are always shown
        on paper, where every symbol colour reads)."""
        tile = pygame.Rect(0, 0, size, size)
        tile.center = centre
        pygame.draw.rect(self.canvas, PAPER, tile, 0, size // 8)
        colour = self.symbol_colour(symbol)
        self.icon(symbol, centre, round(size * 0.82), colour, outline=INK)

    def line(
        self,
        text: str,
        px: int,
        colour: Colour,
        centre: tuple[int, int],
        max_width: int,
        min_px: int | None = None,
    ) -> pygame.Rect:
        """One line of text fitted to ``max_width`` and centred on ``centre``."""
        return self.text.blit_centred(self.canvas, text, px, colour, centre, max_width, min_px)


def _panel(ctx: Paint, rect: pygame.Rect, colour: Colour, radius: int = 24) -> None:
    pygame.draw.rect(ctx.canvas, colour, rect, 0, radius)


@dataclass(frozen=True, slots=True)
class TopSpec:
    """Top strip: ``title`` (game) in ``title_colour``, the last ``event``, ``right`` (the
    game's status: the round, or SLAP NOW! during a window) in ``right_colour`` and, at the
    far right, whose ``turn`` it is ("Seat 2 to play", ``""``: none) on a plate filled with
    ``turn_colour`` (the seat's colour)."""

    title: str
    title_colour: Colour
    event: str
    right: str
    right_colour: Colour = TEXT_DIM
    turn: str = ""
    turn_colour: Colour = TEXT

    EVENT_MIN = 48
    """Smallest event text, px (docs/screens.md: top strip >= 48 px)."""
    TURN_PX = 64
    """The turn plate's words, px (48 px ink: 12 px on a TV scaled to 480x270)."""
    TURN_H = 88
    """The turn plate's height, px."""

    def paint(self, ctx: Paint, rect: pygame.Rect) -> None:
        """Title left (64 px), turn plate (64 px words) and status (52 px) right, event
        between: one line shrunk from 56 to 48 px, else two lines of 48 px (split at a
        " · " where it can), else the same with title and status at 48 px and the plate's
        words at 52 px; only then cut with "..."."""
        pygame.draw.rect(ctx.canvas, PANEL, (rect.x, rect.bottom - 6, rect.width, 6))
        cy = rect.y + (rect.height - 6) // 2
        lines: list[str] = []
        for title_px, right_px, gap, turn_px in ((64, 52, 48, self.TURN_PX), (48, 48, 32, 52)):
            left, right_edge = self._frame(ctx, rect, title_px, right_px, gap, turn_px)
            room = max(10, right_edge - left)
            if not self.event:
                break
            if ctx.text.width(self.event, self.EVENT_MIN) <= room:
                lines = [self.event]
                break
            lines, whole = self._two_lines(ctx, room)
            if whole:
                break
        left, right_edge = self._frame(ctx, rect, title_px, right_px, gap, turn_px, draw=True)
        room = max(10, right_edge - left)
        if len(lines) == 1:
            e = ctx.text.fit(lines[0], 56, TEXT, room, self.EVENT_MIN)
            ctx.canvas.blit(e, e.get_rect(midleft=(left, cy)))
        elif lines:
            for i, line in enumerate(lines[:2]):
                e = ctx.text.fit(line, self.EVENT_MIN, TEXT, room)
                ctx.canvas.blit(e, e.get_rect(midleft=(left, cy + (2 * i - 1) * 24)))

    def turn_rect(self, ctx: Paint, rect: pygame.Rect, px: int = TURN_PX) -> pygame.Rect | None:
        """The turn plate in the strip ``rect`` (right-aligned) with its words at ``px``,
        or ``None`` without one."""
        if not self.turn:
            return None
        words = ctx.text.fit(self.turn, px, self.turn_colour, 520, 48)
        w = words.get_width() + 40
        cy = rect.y + (rect.height - 6) // 2
        return pygame.Rect(rect.right - 16 - w, cy - self.TURN_H // 2, w, self.TURN_H)

    def _frame(
        self, ctx: Paint, rect: pygame.Rect, title_px: int, right_px: int, gap: int,
        turn_px: int, draw: bool = False,
    ) -> tuple[int, int]:
        """Where the event may go between the title (``title_px``) and the status
        (``right_px``) with the turn plate (words at ``turn_px``), ``gap`` px from each:
        ``(left x, right edge x)``; draws them when ``draw``."""
        cy = rect.y + (rect.height - 6) // 2
        title = ctx.text.fit(self.title, title_px, self.title_colour, 520, 48)
        left = rect.x + 28 + title.get_width() + gap
        right_edge = rect.right - 28
        if draw:
            ctx.canvas.blit(title, title.get_rect(midleft=(rect.x + 28, cy)))
        plate = self.turn_rect(ctx, rect, turn_px)
        if plate is not None:
            if draw:
                pygame.draw.rect(ctx.canvas, self.turn_colour, plate, 0, 18)
                ink = text_on(self.turn_colour)
                ctx.line(self.turn, turn_px, ink, plate.center, plate.width - 40, 48)
            right_edge = plate.x - 28
        if self.right:
            r = ctx.text.fit(self.right, right_px, self.right_colour, 560, 48)
            if draw:
                ctx.canvas.blit(r, r.get_rect(midright=(right_edge, cy)))
            right_edge -= r.get_width() + gap
        return left, right_edge

    def _two_lines(self, ctx: Paint, room: int) -> tuple[list[str], bool]:
        """The event in two lines for ``room`` px at 48 px, split where the two lines are
        most even: at a " · " if such a split fits, else at a space; and whether the
        whole event fits (else it is wrapped and its last line cut with "...")."""
        parts = self.event.split(" · ")
        splits = [
            (" · ".join(parts[:i]), " · ".join(parts[i:])) for i in range(1, len(parts))
        ]
        fitting = [
            s for s in splits if all(ctx.text.width(p, self.EVENT_MIN) <= room for p in s)
        ]
        if not fitting:  # no " · " split fits: split at the space that balances best
            words = self.event.split()
            splits = [(" ".join(words[:i]), " ".join(words[i:])) for i in range(1, len(words))]
            fitting = [
                s for s in splits
                if all(ctx.text.width(p, self.EVENT_MIN) <= room for p in s)
            ]
        if fitting:
            first, second = min(
                fitting,
                key=lambda s: max(ctx.text.width(p, self.EVENT_MIN) for p in s),
            )
            return [first, second], True
        return ctx.text.wrap(self.event, self.EVENT_MIN, room, 2), False


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """One seat badge of the edge ring.

    ``label``: the seat number people see (``seat + 1``); ``count``: cards in hand or
    ``None``; ``turn``: the turn marker is on; ``pulse``: pulse frame (``None`` = still);
    ``inner``: side facing the centre (``"left"``/``"right"``), where the turn arrow is;
    ``points``: ``(victory points, target)`` (Right on Time) or ``None``; ``chips``: marks
    (CPU, UNPLUGGED, OUT 1st, reaction time, ...); ``dim``: out of the round.
    """

    label: str
    name: str
    colour: Colour
    count: int | None
    turn: bool
    pulse: int | None
    inner: str
    points: tuple[int, int] | None
    chips: tuple[Chip, ...]
    dim: bool
    winner: bool

    DISC = 42
    """Radius of the seat-number disc, px."""
    HALO = 48
    """Outer radius of the winner's ring around the disc, px: it stays 5 px clear of the
    panel's 5 px border (the disc centre is 58 px below and 60 px right of the panel's
    top-left corner)."""

    @staticmethod
    def disc_centre(panel: pygame.Rect) -> tuple[int, int]:
        """Centre of the seat-number disc in the badge ``panel``."""
        return (panel.x + 60, panel.y + 58)

    def panel_rect(self, rect: pygame.Rect) -> pygame.Rect:
        """The badge panel inside the zone ``rect`` (the arrow lane is on the inner side)."""
        if self.inner == "right":
            return pygame.Rect(rect.x + 10, rect.y, rect.width - 10 - ARROW_LANE, rect.height)
        return pygame.Rect(rect.x + ARROW_LANE, rect.y, rect.width - 10 - ARROW_LANE, rect.height)

    TURN_PLATE = (180, 78)
    """Size (w, h) of the TURN plate on the seat to move's badge, px: it takes the place
    of the fanned hand (a two-digit count keeps its 66 px beside it)."""
    TURN_PX = 60
    """The TURN plate's word, px (its capitals' ink 45 px: 11 px on a TV scaled to
    480x270)."""

    def plate_rect(self, panel: pygame.Rect) -> pygame.Rect:
        """Where the TURN plate sits in the badge ``panel``: left of the hand count."""
        w, h = self.TURN_PLATE
        return pygame.Rect(panel.x + 14, panel.y + 100, w, h)

    def paint(self, ctx: Paint, rect: pygame.Rect) -> None:
        """Panel, number disc, name (56 px, >= 40 if long), fanned hand count, points, chips.

        The seat to move (``turn``) is lit: its panel is filled with the seat colour (words
        on it in :func:`~device.render.palette.text_on` the colour), bordered in white
        (thicker while pulsing) with the turn arrow, and a dark TURN plate (60 px white
        word) replaces the fanned hand; the other badges stay dark panels with a 5 px
        border in their colour.  From two metres (scaled to 480x270) the lit badge is the
        brightest thing on the ring (``tests/device/test_readable.py``)."""
        canvas = ctx.canvas
        panel = self.panel_rect(rect)
        lit = self.turn
        fill = self.colour if lit else (PANEL_DIM if self.dim else PANEL)
        fg = text_on(self.colour) if lit else (TEXT_DIM if self.dim else TEXT)
        _panel(ctx, panel, fill, 20)
        border = 5
        border_colour = self.colour
        if lit:
            level = 0.5 if self.pulse is None else pulse_level(self.pulse)
            border = 8 + round(10 * level)
            border_colour = HIGHLIGHT
        pygame.draw.rect(canvas, border_colour, panel, border, 20)
        if lit:
            self._arrow(ctx, rect, 0.0 if self.pulse is None else pulse_level(self.pulse))
        disc = self.disc_centre(panel)
        if self.winner:  # a yellow ring with a dark gap: it shows on a yellow seat too
            pygame.draw.circle(canvas, YELLOW, disc, self.HALO)
            pygame.draw.circle(canvas, INK, disc, self.DISC + 2)
        elif lit:  # the disc on a panel of its own colour: a dark ring keeps it round
            pygame.draw.circle(canvas, INK, disc, self.DISC + 4)
        pygame.draw.circle(canvas, self.colour, disc, self.DISC)
        ctx.line(self.label, 80, text_on(self.colour), disc, 76, 40)
        name_x = panel.x + 16 + 84 + 16
        name_w = panel.right - 16 - name_x
        name = ctx.text.fit(self.name, 56, fg, name_w, 40)
        canvas.blit(name, name.get_rect(midleft=(name_x, disc[1])))
        y = panel.y + 104
        if lit:
            plate = self.plate_rect(panel)
            pygame.draw.rect(canvas, INK, plate, 0, 14)
            ctx.line("TURN", self.TURN_PX, HIGHLIGHT, plate.center, plate.width - 12, 40)
        if self.count is not None:
            mid = y + 33  # the fan is 54 px tall from y + 6
            if not lit:
                fan = ctx.cards.fan(self.count, 54)
                canvas.blit(fan, (panel.x + 12, y))
                mid = y + fan.get_height() // 2
            room = 110 if not lit else panel.right - 22 - self.plate_rect(panel).right - 8
            n = ctx.text.fit(str(self.count), 88, fg, room, 60)
            canvas.blit(n, n.get_rect(midright=(panel.right - 22, mid)))
        y = panel.y + 186
        if self.points is not None:
            y = self._points(ctx, panel, y, fg if lit else None)
        self._chips(ctx, panel, y)

    def _arrow(self, ctx: Paint, rect: pygame.Rect, level: float) -> None:
        cy = rect.centery
        shift = round(8 * level)
        if self.inner == "right":
            tip = rect.right - 10 + shift
            pts = [(tip - 28, cy - 56), (tip, cy), (tip - 28, cy + 56)]
        else:
            tip = rect.left + 10 - shift
            pts = [(tip + 28, cy - 56), (tip, cy), (tip + 28, cy + 56)]
        pygame.draw.polygon(ctx.canvas, HIGHLIGHT, pts)

    def _points(self, ctx: Paint, panel: pygame.Rect, y: int, ink: Colour | None) -> int:
        """The points as dots (won: filled) and ``have/target pts``; ``ink``: the colour
        of dots and words on a lit panel (``None``: the seat colour and grey on a dark
        one)."""
        have, target = self.points or (0, 0)
        x = panel.x + 22
        if 0 < target <= 7:
            for i in range(target):
                c = (x + 14 + i * 34, y + 16)
                if i < have:
                    pygame.draw.circle(ctx.canvas, ink or self.colour, c, 13)
                else:
                    pygame.draw.circle(ctx.canvas, ink or TEXT_DIM, c, 13, 4)
            x += target * 34 + 8
        label = ctx.text.fit(f"{have}/{target} pts", 36, ink or TEXT, panel.right - 16 - x, 24)
        ctx.canvas.blit(label, label.get_rect(midleft=(x, y + 16)))
        return y + 38

    def _chips(self, ctx: Paint, panel: pygame.Rect, y: int) -> None:
        x = panel.x + 18
        row_h = 38
        for text, bg, fg in self.chips:
            image = ctx.text.fit(text, 34, fg, panel.width - 56, 24)
            w = image.get_width() + 20
            if x + w > panel.right - 14 and x > panel.x + 18:
                x = panel.x + 18
                y += row_h + 4
            if y + row_h > panel.bottom - 6:
                return
            chip = pygame.Rect(x, y, min(w, panel.right - 14 - x), row_h)
            pygame.draw.rect(ctx.canvas, bg, chip, 0, 10)
            ctx.canvas.blit(image, image.get_rect(center=chip.center), area=None)
            x += w + 8


@dataclass(frozen=True, slots=True)
class CardSpec:
    """The card on top of the discard pile, centre left.

    ``face``: paints the game's card faces (:data:`CardFace`); ``code``: card code or
    ``None`` (no card yet); ``under``: the card it covers while sliding in, or ``None``;
    ``offset``: the sliding card's offset from its resting place, logical px; ``caption``:
    words under it.

    While the card slides (``offset`` not ``(0, 0)``) the zone shows only what lies under
    it and the caption; the scene paints the moving card (:meth:`paint_moving`) above every
    zone, so it never passes under the condition panel or the caption.
    """

    face: CardFace
    code: str | None
    under: str | None
    offset: tuple[int, int]
    caption: str

    CARD_H = 520
    """Card height, px (docs/screens.md: >= 360)."""
    SHADOW = (8, 10)
    """The card's drop shadow offset, px."""

    @property
    def sliding(self) -> bool:
        """The card is on its way to the pile (drawn by :meth:`paint_moving`)."""
        return self.code is not None and self.offset != (0, 0)

    def rest_rect(self, rect: pygame.Rect) -> pygame.Rect:
        """Where the card rests in the zone ``rect``."""
        rest = pygame.Rect(0, 0, round(self.CARD_H * 0.7), self.CARD_H)
        rest.midtop = (rect.centerx, rect.y + 10)
        return rest

    def moving_rect(self, rect: pygame.Rect) -> pygame.Rect | None:
        """The logical area the sliding card and its shadow cover now (it may reach past
        the zone ``rect`` and the frame), or ``None`` when the card is not sliding."""
        if not self.sliding:
            return None
        card = self.rest_rect(rect).move(self.offset)
        return card.union(card.move(self.SHADOW))

    def _face(self, ctx: Paint, code: str) -> pygame.Surface:
        return self.face(ctx.cards, code, self.CARD_H)

    def _card(self, ctx: Paint, code: str, card: pygame.Rect) -> None:
        """Card ``code`` with its shadow at ``card``."""
        pygame.draw.rect(ctx.canvas, (8, 10, 14), card.move(self.SHADOW), 0, self.CARD_H // 16)
        ctx.canvas.blit(self._face(ctx, code), card)

    def paint(self, ctx: Paint, rect: pygame.Rect) -> None:
        """The card (520 px tall, number ink >= 200 px) and its caption (44 px); while it
        slides, the card it covers instead."""
        rest = self.rest_rect(rect)
        if self.under is not None:
            ctx.canvas.blit(self._face(ctx, self.under), rest)
        if self.code is not None and not self.sliding:
            self._card(ctx, self.code, rest)
        elif self.code is None and self.under is None:
            pygame.draw.rect(ctx.canvas, TEXT_DIM, rest, 6, self.CARD_H // 16)
            ctx.line("no card yet", 52, TEXT_DIM, rest.center, rest.width - 20)
        ctx.line(self.caption, 44, TEXT_DIM, (rect.centerx, rest.bottom + 38), rect.width)

    def paint_moving(self, ctx: Paint, rect: pygame.Rect) -> None:
        """The sliding card at its offset from its rest in the zone ``rect``, unclipped by
        the zone (the scene paints it after every zone); nothing when not sliding."""
        if self.code is not None and self.sliding:
            self._card(ctx, self.code, self.rest_rect(rect).move(self.offset))


@dataclass(frozen=True, slots=True)
class CondSpec:
    """The condition zone, centre right: the biggest thing on the screen.

    ``mode``: ``"condition"`` (Riiing! condition: ``glyph`` or ``symbol`` or ``digits`` as
    the icon), ``"window"`` (RIIING! window: ``symbol`` huge, ``flash_on`` inverts the
    colours) or ``"value"`` (Right on Time: ``big`` value huge, or ``glyph`` when ``big`` is
    empty); ``headline`` (>= 90 px words), ``sub`` (52 px); ``dim``: the condition is
    suspended (a demand or phone chain decides instead).
    """

    mode: str
    headline: str
    sub: str = ""
    glyph: str | None = None
    symbol: str | None = None
    digits: tuple[int, ...] = ()
    big: str = ""
    dim: bool = False
    flash_on: bool = False

    ICON = 300
    """Icon size, px (docs/screens.md: >= 240)."""
    WORDS = 104
    """Headline line height, px (docs/screens.md: >= 90)."""

    def paint(self, ctx: Paint, rect: pygame.Rect) -> None:
        """Panel, icon (>= 240 px) or value, headline, sub line."""
        panel = rect.inflate(-10, -10)
        if self.mode == "window":
            bg, fg = (INK, YELLOW) if self.flash_on else (YELLOW, INK)
            _panel(ctx, panel, bg, 28)
            pygame.draw.rect(ctx.canvas, fg, panel, 10, 28)
            centre = (panel.centerx, panel.y + 24 + self.ICON // 2)
            pygame.draw.circle(ctx.canvas, PAPER, centre, self.ICON // 2 + 12)
            pygame.draw.circle(ctx.canvas, fg, centre, self.ICON // 2 + 12, 6)
            if self.symbol is not None:
                colour = ctx.symbol_colour(self.symbol)
                ctx.icon(self.symbol, centre, self.ICON - 50, colour, outline=INK)
            self._words(ctx, panel, panel.y + 24 + self.ICON + 20, fg, fg)
            return
        _panel(ctx, panel, PANEL, 28)
        fg = TEXT_DIM if self.dim else TEXT
        top = panel.y + 24
        lines = self._headline_lines(ctx, panel)
        icon = self.ICON if len(lines) == 1 else 240
        centre = (panel.centerx, top + icon // 2)
        if self.big:
            image = ctx.text.render(self.big, 380, YELLOW if not self.dim else TEXT_DIM)
            ink = image.get_bounding_rect()
            ctx.canvas.blit(image, (centre[0] - ink.centerx, top + 6 - ink.top))
        elif self.symbol is not None:
            ctx.symbol_tile(self.symbol, centre, icon)
        elif self.digits:
            self._digit_cards(ctx, centre, icon)
        elif self.glyph is not None:
            ctx.icon(self.glyph, centre, icon - 20, fg)
        self._words(ctx, panel, top + icon + 20, fg, TEXT_DIM, lines)

    def _headline_lines(self, ctx: Paint, panel: pygame.Rect) -> list[str]:
        """The headline in one line, or two: at an explicit line break or wrapped."""
        if "\n" in self.headline:
            return self.headline.split("\n")[:2]
        width = panel.width - 40
        if ctx.text.width(self.headline, 90) <= width:
            return [self.headline]
        return ctx.text.wrap(self.headline, 90, width, 2)

    def _words(
        self,
        ctx: Paint,
        panel: pygame.Rect,
        y: int,
        fg: Colour,
        sub_colour: Colour,
        lines: list[str] | None = None,
    ) -> None:
        lines = self._headline_lines(ctx, panel) if lines is None else lines
        width = panel.width - 40
        px = self.WORDS if len(lines) == 1 else 90
        for line in lines:
            ctx.line(line, px, fg, (panel.centerx, y + px // 2), width, 90)
            y += px
        if self.sub:
            ctx.line(self.sub, 52, sub_colour, (panel.centerx, y + 34), width, 36)

    def _digit_cards(self, ctx: Paint, centre: tuple[int, int], size: int) -> None:
        h = size - 40
        w = round(h * 0.7)
        gap = 24
        total = len(self.digits) * w + (len(self.digits) - 1) * gap
        x = centre[0] - total // 2
        for d in self.digits:
            card = pygame.Rect(x, centre[1] - h // 2, w, h)
            pygame.draw.rect(ctx.canvas, PAPER, card, 0, 16)
            ctx.line(str(d), round(h * 0.8), INK, card.center, w)
            x += w + gap


@dataclass(frozen=True, slots=True)
class CountSpec:
    """A countdown strip: ``seconds`` left (big number; ``None`` = no countdown shown) and a
    bar of ``steps`` out of ``total`` in ``colour``; ``label`` beside the number."""

    seconds: int | None
    steps: int
    total: int
    label: str
    colour: Colour = YELLOW

    def paint(self, ctx: Paint, rect: pygame.Rect) -> None:
        """Number (100 px) and a bar; nothing when ``seconds`` is ``None``."""
        if self.seconds is None:
            return
        cy = rect.centery
        num = ctx.text.render(str(self.seconds), 100, self.colour)
        ctx.canvas.blit(num, num.get_rect(midleft=(rect.x + 20, cy)))
        x = rect.x + 40 + max(num.get_width(), ctx.text.width("8", 100))
        label_w = 0
        if self.label:
            label = ctx.text.render(self.label, 48, TEXT)
            ctx.canvas.blit(label, label.get_rect(midleft=(x, cy)))
            label_w = label.get_width() + 30
        bar = pygame.Rect(x + label_w, cy - 24, rect.right - 20 - x - label_w, 48)
        pygame.draw.rect(ctx.canvas, PANEL, bar, 0, 16)
        frac = 0.0 if self.total <= 0 else min(1.0, self.steps / self.total)
        fill = bar.copy()
        fill.width = round(bar.width * frac)
        if fill.width > 0:
            pygame.draw.rect(ctx.canvas, self.colour, fill, 0, 16)


@dataclass(frozen=True, slots=True)
class PileSpec:
    """Centre bottom: the draw pile with ``draw_count`` (``None`` hides it), and a message:
    ``headline`` (>= 70 px; ``""`` = none) with ``sub``, an icon (``symbol`` on paper or
    ``glyph``) and a panel colour ``accent`` (``None`` = plain panel)."""

    draw_count: int | None
    headline: str = ""
    sub: str = ""
    symbol: str | None = None
    glyph: str | None = None
    accent: Colour | None = None

    def paint(self, ctx: Paint, rect: pygame.Rect) -> None:
        """Stack of backs + count (100 px) on the left, message panel on the right."""
        if self.draw_count is not None:
            self._pile(ctx, pygame.Rect(rect.x, rect.y, 400, rect.height))
        if not self.headline:
            return
        panel = pygame.Rect(rect.x + 410, rect.y + 10, rect.width - 410, rect.height - 20)
        bg = PANEL if self.accent is None else self.accent
        fg = text_on(bg)
        _panel(ctx, panel, bg, 22)
        x = panel.x + 24
        if self.symbol is not None:
            ctx.symbol_tile(self.symbol, (x + 70, panel.centery), 140)
            x += 164
        elif self.glyph is not None:
            ctx.icon(self.glyph, (x + 70, panel.centery), 130, fg)
            x += 164
        width = panel.right - 20 - x
        cx = x + width // 2
        if self.sub:
            ctx.line(self.headline, 100, fg, (cx, panel.y + 58), width, 70)
            ctx.line(self.sub, 46, fg, (cx, panel.bottom - 32), width, 32)
        else:
            ctx.line(self.headline, 110, fg, (cx, panel.centery), width, 70)

    def _pile(self, ctx: Paint, rect: pygame.Rect) -> None:
        count = self.draw_count or 0
        h = 150
        base = pygame.Rect(rect.x + 20, rect.y + (rect.height - h) // 2 - 6, round(h * 0.7), h)
        if count == 0:
            pygame.draw.rect(ctx.canvas, TEXT_DIM, base, 5, 10)
        else:
            back = ctx.cards.back(h)
            for i in range(min(3, count) - 1, -1, -1):
                ctx.canvas.blit(back, base.move(i * 7, i * 6))
        x = base.right + 40
        num = ctx.text.render(str(count), 100, TEXT)
        ctx.canvas.blit(num, num.get_rect(midleft=(x, rect.centery - 18)))
        label = ctx.text.render("DRAW PILE" if count else "EMPTY", 40, TEXT_DIM)
        ctx.canvas.blit(label, label.get_rect(midleft=(x, rect.centery + 50)))


@dataclass(frozen=True, slots=True)
class BannerSpec:
    """An error the party must see (``""`` = none), on an alert-coloured bar."""

    text: str

    def paint(self, ctx: Paint, rect: pygame.Rect) -> None:
        """Vermillion bar with a warning mark and the text (64..44 px)."""
        if not self.text:
            return
        _panel(ctx, rect.inflate(-8, -8), ALERT, 18)
        fg = text_on(ALERT)
        mark = pygame.Rect(rect.x + 24, rect.centery - 32, 64, 64)
        pygame.draw.polygon(ctx.canvas, fg, [mark.midtop, mark.bottomright, mark.bottomleft])
        ctx.line("!", 56, ALERT, (mark.centerx, mark.centery + 10), 40)
        width = rect.width - 140
        ctx.line(self.text, 64, fg, (rect.x + 110 + width // 2, rect.centery), width, 44)


SlapRow = tuple[str, str, Colour, tuple[int, ...]]
"""One seat's row of the game-over slap chart: ``(seat number shown, name, seat colour,
reaction times in ms of the windows it won, in order)``."""


@dataclass(frozen=True, slots=True)
class ResultSpec:
    """Game over (or a full-centre message): ``headline`` in ``colour`` with a ``glyph``
    above, how the game was won (``reason``, ``""``: none), result ``lines`` (winner first,
    then reaction times) or, when there is a ``chart``, the chart of every seat's
    reaction times in their place, and a ``hint`` saying how to go on (``""`` = none), on
    a bar at the bottom."""

    headline: str
    colour: Colour
    lines: tuple[str, ...]
    glyph: str | None = "star"
    hint: str = ""
    reason: str = ""
    chart: tuple[SlapRow, ...] = ()

    HINT_H = 90
    """Height of the hint bar at the bottom of the zone, px."""
    REASON_PX = 72
    """How the game was won, px (18 px on a TV scaled to 480x270)."""

    def paint(self, ctx: Paint, rect: pygame.Rect) -> None:
        """Glyph (220 px; 150 px with a reason, none with a chart), headline (150..90 px), reason
        (72..48 px), then the chart or the lines (56 px, as many as fit above the hint),
        hint (60..48 px) on a panel bar across the zone's bottom."""
        y = rect.y + 20
        compact = bool(self.reason or self.chart)
        if self.glyph is not None and not self.chart:
            size = 150 if compact else 220
            ctx.icon(self.glyph, (rect.centerx, y + size // 2), size, self.colour, outline=INK)
            y += size + 20
        ctx.line(self.headline, 150, self.colour, (rect.centerx, y + 75), rect.width - 40, 90)
        y += 170 if not compact else 160
        if self.reason:
            ctx.line(self.reason, self.REASON_PX, TEXT, (rect.centerx, y + 36),
                     rect.width - 60, 48)
            y += 96
        bottom = rect.bottom - (self.HINT_H + 20 if self.hint else 0)
        if self.chart:
            _slap_chart(ctx, pygame.Rect(rect.x + 30, y, rect.width - 60, bottom - y),
                        self.chart)
        else:
            for line in self.lines:
                if y + 64 > bottom:
                    break
                ctx.line(line, 56, TEXT, (rect.centerx, y + 32), rect.width - 80, 40)
                y += 66
        if self.hint:
            bar = pygame.Rect(rect.x + 10, rect.bottom - self.HINT_H - 10, rect.width - 20,
                              self.HINT_H)
            _panel(ctx, bar, PANEL, 20)
            ctx.line(self.hint, 60, YELLOW, bar.center, bar.width - 40, 48)


CHART_TITLE = "Slap times, ms"
"""The slap chart's heading, above the seat names."""

CHART_STEPS = (50, 100, 200, 250, 500, 1000, 2000, 5000)
"""Tick steps of the slap chart's time axis, ms: the smallest giving at most 5 ticks."""


def chart_axis(longest_ms: int) -> tuple[int, int]:
    """The slap chart's axis for a longest time of ``longest_ms``: ``(end ms, tick step
    ms)``; the end is a whole number of steps >= ``longest_ms`` (at least one step)."""
    longest = max(1, longest_ms)
    for step in CHART_STEPS:
        if -(-longest // step) <= 5:
            break
    return max(step, -(-longest // step) * step), step


def _slap_chart(ctx: Paint, area: pygame.Rect, rows: tuple[SlapRow, ...]) -> None:
    """Every seat's reaction times as a strip chart in ``area``: a row per seat (its
    number disc, name, a dot per slap it made in a window, won or not, at its time on a
    shared axis from 0 ms, its best time), tick labels on top."""
    if not rows or area.height < 60:
        return
    times = [ms for row in rows for ms in row[3]]
    end, step = chart_axis(max(times, default=1))
    head = 44
    row_h = max(24, min(64, (area.height - head) // len(rows)))
    disc_r = max(8, min(24, row_h // 2 - 4))
    name_w, best_w = 210, 230
    axis = pygame.Rect(area.x + 2 * disc_r + 20 + name_w, area.y + head,
                       area.width - (2 * disc_r + 20 + name_w) - best_w - 20, 0)

    def x_of(ms: int) -> int:
        return axis.x + round(axis.width * min(ms, end) / end)

    label_px = 40
    title = ctx.text.fit(CHART_TITLE, label_px, TEXT_DIM, axis.x - area.x - 30, 28)
    ctx.canvas.blit(title, title.get_rect(midleft=(area.x, area.y + head // 2 - 2)))
    for tick in range(0, end + 1, step):
        x = x_of(tick)
        ctx.line(str(tick), label_px, TEXT_DIM, (x, area.y + head // 2 - 2), 160)
    dot = max(5, min(14, row_h // 4))
    y = axis.y
    for label, name, colour, ms_list in rows:
        if y + row_h > area.bottom:
            break
        cy = y + row_h // 2
        pygame.draw.line(ctx.canvas, PANEL, (axis.x, cy), (axis.right, cy), 4)
        for tick in range(0, end + 1, step):
            pygame.draw.line(ctx.canvas, PANEL, (x_of(tick), y + 4), (x_of(tick), y + row_h - 4), 2)
        disc = (area.x + disc_r, cy)
        pygame.draw.circle(ctx.canvas, colour, disc, disc_r)
        ctx.line(label, round(disc_r * 1.8), text_on(colour), disc, 2 * disc_r, 16)
        n = ctx.text.fit(name, min(48, row_h - 8), TEXT, name_w - 10, 24)
        ctx.canvas.blit(n, n.get_rect(midleft=(area.x + 2 * disc_r + 14, cy)))
        for ms in ms_list:
            centre = (x_of(ms), cy)
            pygame.draw.circle(ctx.canvas, INK, centre, dot + 3)
            pygame.draw.circle(ctx.canvas, colour, centre, dot)
        best = f"best {min(ms_list)} ms" if ms_list else "no slap"
        b = ctx.text.fit(best, min(48, row_h - 8), TEXT if ms_list else TEXT_DIM, best_w, 24)
        ctx.canvas.blit(b, b.get_rect(midright=(area.right, cy)))
        y += row_h


@dataclass(frozen=True, slots=True)
class RoundSpec:
    """A round just won (RT-2.4), over the condition zone: ``headline`` ("Seat 1 wins
    round 1") in ``colour`` (the winner's seat colour) and the ``score`` line under it."""

    headline: str
    score: str
    colour: Colour

    HEADLINE_PX = 120
    """The headline, px (>= 90: 30 px on a TV scaled to 480x270)."""
    SCORE_PX = 60
    """The score lines, px."""

    def paint(self, ctx: Paint, rect: pygame.Rect) -> None:
        """A panel framed in ``colour`` (12 px), a star (200 px), the headline (120..90 px,
        two lines if it must) and the score (60 px, up to three lines:
        :meth:`score_lines`)."""
        panel = rect.inflate(-10, -10)
        _panel(ctx, panel, PANEL, 28)
        pygame.draw.rect(ctx.canvas, self.colour, panel, 12, 28)
        y = panel.y + 30
        ctx.icon("star", (panel.centerx, y + 100), 200, self.colour, outline=INK)
        y += 220
        width = panel.width - 60
        px = self.HEADLINE_PX
        if ctx.text.width(self.headline, 90) <= width:
            lines = [self.headline]
        else:
            lines, px = ctx.text.wrap(self.headline, 90, width, 2), 90
        for line in lines:
            ctx.line(line, px, self.colour, (panel.centerx, y + px // 2), width, 90)
            y += px
        px = self.SCORE_PX
        for line in self.score_lines(ctx, width):
            ctx.line(line, px, TEXT, (panel.centerx, y + 20 + px // 2), width, 44)
            y += px + 6

    def score_lines(self, ctx: Paint, width: int) -> list[str]:
        """The score in lines that fit ``width`` px at :data:`SCORE_PX`: its parts (split
        where two or more spaces stand, "Seat 1: 0   Seat 2: 1") packed greedily, at most
        three lines (the last cut with "..." if parts are left)."""
        parts = [p for p in re.split(r"\s{2,}", self.score.strip()) if p]
        lines: list[str] = []
        for part in parts:
            trial = f"{lines[-1]}   {part}" if lines else part
            if lines and ctx.text.width(trial, self.SCORE_PX) <= width:
                lines[-1] = trial
            else:
                lines.append(part)
        if len(lines) > 3:
            lines = [*lines[:2], "   ".join(lines[2:])]
        return lines


@dataclass(frozen=True, slots=True)
class WakeSpec:
    """The wake-up race (RI-2.3): the game's ringing ``symbol`` (e.g. the alarm clock;
    ``None``: none; ``tilt`` degrees, it shakes while the countdown runs) and the call to
    slap."""

    tilt: int
    symbol: str | None = None

    def paint(self, ctx: Paint, rect: pygame.Rect) -> None:
        """Symbol on a paper disc (320 px), question (96 px), call to slap (130 px)."""
        centre = (rect.centerx, rect.y + 190)
        pygame.draw.circle(ctx.canvas, PAPER, centre, 170)
        if self.symbol is not None:
            image = ctx.stamp(self.symbol, 260, ctx.symbol_colour(self.symbol))
            rotated = pygame.transform.rotate(image, self.tilt)
            ctx.canvas.blit(rotated, rotated.get_rect(center=centre))
        ctx.line("Who got up earliest?", 96, TEXT, (rect.centerx, rect.y + 430), rect.width - 40)
        ctx.line("SLAP your button!", 130, YELLOW, (rect.centerx, rect.y + 560), rect.width - 40)


@dataclass(frozen=True, slots=True)
class LobbySpec:
    """The lobby menu: ``rows`` of ``(label, value)``, the highlighted ``cursor`` row and a
    ``hint`` line."""

    rows: tuple[tuple[str, str], ...]
    cursor: int
    hint: str

    ROW_H = 100
    """Pitch of the rows, logical px (each row's panel is 10 px shorter)."""
    WIDTH = 1240
    """Width of a row's panel, logical px."""
    TEXT_PX = 68
    """Size of a row's label and value (``docs/screens.md``: read from 1-3 m)."""
    MIN_PX = 40
    """The smallest a label or value is shrunk to before it is cut with "..."."""

    def row_rects(self, rect: pygame.Rect) -> list[tuple[int, pygame.Rect]]:
        """``(row index, panel rect)`` of each row shown in the zone ``rect`` (logical px):
        a scrolling window of the rows that keeps the cursor visible."""
        visible = max(1, (rect.height - 110) // self.ROW_H)
        cursor = min(max(self.cursor, 0), max(0, len(self.rows) - 1))
        first = min(max(0, cursor - visible + 1), max(0, len(self.rows) - visible))
        first = min(first, cursor)
        x = rect.centerx - self.WIDTH // 2
        return [(i, pygame.Rect(x, rect.y + 20 + (i - first) * self.ROW_H, self.WIDTH,
                                self.ROW_H - 10))
                for i in range(first, min(len(self.rows), first + visible))]

    def value_rect(self, row: pygame.Rect) -> pygame.Rect:
        """The right half of a row's panel ``row``, where its value is drawn (right-aligned
        30 px in from the panel's edge), logical px."""
        half = self.text_width()
        return pygame.Rect(row.right - 30 - half, row.y, half, row.height)

    def text_width(self) -> int:
        """The widest a label or a value may be drawn, logical px (half a row, less 40)."""
        return self.WIDTH // 2 - 40

    def paint(self, ctx: Paint, rect: pygame.Rect) -> None:
        """Rows (68 px) in a scrolling list that keeps the cursor visible; hint (48 px)."""
        cursor = min(max(self.cursor, 0), max(0, len(self.rows) - 1))
        shown = self.row_rects(rect)
        width = self.text_width()
        for i, row in shown:
            label, value = self.rows[i]
            on = i == cursor
            bg, fg = (YELLOW, INK) if on else (PANEL, TEXT)
            _panel(ctx, row, bg, 16)
            if on:
                ctx.icon("pointer", (row.x - 50, row.centery), 60, YELLOW)
            lab = ctx.text.fit(label, self.TEXT_PX, fg, width, self.MIN_PX)
            ctx.canvas.blit(lab, lab.get_rect(midleft=(row.x + 30, row.centery)))
            if value:
                val = ctx.text.fit(value, self.TEXT_PX, fg, width, self.MIN_PX)
                ctx.canvas.blit(val, val.get_rect(midright=(row.right - 30, row.centery)))
        right = rect.centerx + self.WIDTH // 2 + 60
        if shown and shown[0][0] > 0:
            ctx.icon("up", (right, rect.y + 60), 50, TEXT_DIM)
        if shown and shown[-1][0] < len(self.rows) - 1:
            ctx.icon("down", (right, rect.bottom - 120), 50, TEXT_DIM)
        if self.hint:
            ctx.line(self.hint, 48, TEXT_DIM, (rect.centerx, rect.bottom - 40), rect.width - 80)


ZoneSpec = (
    TopSpec
    | SeatSpec
    | CardSpec
    | CondSpec
    | CountSpec
    | PileSpec
    | BannerSpec
    | ResultSpec
    | RoundSpec
    | WakeSpec
    | LobbySpec
)
"""Any zone spec."""
