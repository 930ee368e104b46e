"""Draws a :class:`device.hands.composer.HandScreenModel` on a 128x64 1-bit hand screen.

Layout (``docs/screens.md``, hand screens), in pixels of the 128x64 frame:

- rows 0-10: header — the seat number in an inverted box, whose turn (``YOUR TURN`` drawn
  inverted), the condition in short at the right (``> 6``, ``TOAST!``, ``top 5``)
- rows 12-51: the card strip — up to five 22x35 card tiles (rows 14-48, pitch 24 px, from
  x = 4) with the number in a large font and the Riiing! symbol as an 11x11 shape-coded
  glyph (alarm clock, soap, coffee, toast, phone; Right on Time's Du bist! gets an
  arrow-at-a-person, Ziehen! the TV's card-with-a-plus, drawn from one
  :mod:`device.render.figures` definition); the cursor tile inverted, a chosen tile
  raised 2 px with a double edge, a 2 px bar under every playable tile (rows 50-51),
  triangles at x 0-2 / 125-127 when the hand scrolls.  A picker (Joker value, effect,
  target seat) or a banner (lobby, wake-up, game over) replaces the strip.
- rows 53-63: the prompt line (inverted when it is an alert).  One row higher than
  docs/screens.md's 54-63 so that 11 px text keeps its descenders.

Fonts: only Pillow's bundled ``ImageFont.load_default(size=...)``, drawn anti-aliased and
thresholded (:data:`INK_THRESHOLD`) into 1-bit ink; small text is 11 px.  Words are set
:func:`word_gap` columns apart and a ``!`` whose dot would merge into its stem is carved
(:func:`text_mask`), so "Seat 4 to play" and "RIIING!" read as written.  :class:`HandScreen`
wraps one luma device (``luma.core.device.device`` interface: ``display(image)``,
``width``, ``height``, ``mode``) and sends a frame only when the model changed, because an
SSD1306 resends its whole ~1 KiB frame on every ``display()`` (docs/hardware-facts.md: luma.oled).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from luma.core.render import canvas  # type: ignore[import-untyped]
from PIL import Image, ImageDraw, ImageFont

from device.hands.composer import VISIBLE_TILES, HandScreenModel, Picker, Tile
from device.render.figures import PLUS_CARD, cells

WIDTH, HEIGHT = 128, 64
"""The hand screen's size in pixels (SSD1306/SH1106 128x64)."""

HEADER_BOTTOM = 10
TILE_X0, TILE_PITCH, TILE_W = 4, 24, 22
TILE_TOP, TILE_BOTTOM, RAISE = 14, 48, 2
BAR_Y0, BAR_Y1 = 50, 51
PROMPT_TOP = 53
SMALL = 11
"""Font size of all small text: at 10 px the default font's 6 and 8 look alike."""
BIG = 20
"""Font size of card numbers."""

ON, OFF = 1, 0

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

GLYPHS: dict[str, tuple[str, ...]] = {
    # alarm clock: round face, two bells on top, hands, two feet
    "A": (
        ".##.....##.",
        "###.###.###",
        "##.#...#.##",
        "..#..#..#..",
        ".#...#...#.",
        ".#...##..#.",
        ".#.......#.",
        "..#.....#..",
        "...#####...",
        "..#.....#..",
        ".#.......#.",
    ),
    # soap: rounded bar with bubbles above
    "S": (
        "......##...",
        ".##..#..#..",
        "#..#..##...",
        ".##........",
        "...........",
        ".#########.",
        "#.........#",
        "#..#####..#",
        "#.........#",
        ".#########.",
        "...........",
    ),
    # coffee: steam, cup, handle, saucer
    "C": (
        "..#..#.....",
        ".#..#......",
        "..#..#.....",
        "...........",
        "########...",
        "#......####",
        "#......#..#",
        "#......###.",
        ".#....#....",
        "..####.....",
        "##########.",
    ),
    # toast: a bread slice, wide rounded top (the crust bump), crust line inside
    "T": (
        "..#######..",
        ".#.......#.",
        "#..#####..#",
        "#.#.....#.#",
        ".##.....##.",
        "..#.....#..",
        "..#.....#..",
        "..#.....#..",
        "..#.....#..",
        "..#######..",
        "...........",
    ),
    # phone: handset on top of a desk telephone with a dial
    "P": (
        ".#########.",
        "###########",
        "##.......##",
        "...........",
        "...#####...",
        "..#.###.#..",
        ".#..#.#..#.",
        ".#..###..#.",
        "#.........#",
        "###########",
        "...........",
    ),
    # Du bist! ("you are!"): an arrow pointing at a person
    "you": (
        "........##.",
        ".......####",
        ".......####",
        "........##.",
        "...#.......",
        "...##..####",
        "#####.#####",
        "...##.#####",
        "...#..#####",
        "......#####",
        "...........",
    ),
    # Ziehen! ("draw!"): a card with a plus, unlike the DRAW tile's stacked cards; the
    # TV's plus-card glyph, from the same figure (device.render.figures)
    "pull": cells(PLUS_CARD),
    # the draw pile: three stacked cards (a DRAW tile)
    "deck": (
        "....#######",
        "....#.....#",
        "..#######.#",
        "..#.....#.#",
        "#######.#.#",
        "#.....#.#.#",
        "#.....#.###",
        "#.....#.#..",
        "#.....###..",
        "#.....#....",
        "#######....",
    ),
}
"""11x11 shape-coded symbol glyphs (docs/screens.md: shape first), ``#`` = lit pixel."""

GLYPH_SIZE = 11


@lru_cache(maxsize=16)
def font(size: int) -> Font:
    """Pillow's bundled default font at ``size`` pixels (cached; no system fonts)."""
    return ImageFont.load_default(size=size)


INK_THRESHOLD = 110
"""Anti-aliased coverage (0-255) from which a pixel of text is lit.  Pillow's own 1-bit text
(mono hinting) closes the small counters of the default font at 10-12 px, so a 6 reads as
an 8; thresholding the anti-aliased glyphs keeps them open (checked by eye on 4x PNGs)."""


def word_gap(size: int) -> int:
    """Blank columns drawn for one space at font ``size``: at least 3.  The default font's
    own space, thresholded, can shrink to one column after a wide digit ("Seat 4to
    play"), no wider than the gap between two letters."""
    return max(3, size // 3)


def _threshold(grey: Image.Image) -> Image.Image:
    """Anti-aliased coverage (mode "L") to 1-bit ink at :data:`INK_THRESHOLD`."""
    return grey.point(lambda p: 255 if p >= INK_THRESHOLD else 0).convert("1")


@lru_cache(maxsize=1024)
def _run_ink(text: str, size: int) -> Image.Image:
    """The 1-bit ink of ``text`` (no spaces) in the default font at ``size``, on a line box
    whose row 2 is the font's ascender line (so runs share one baseline), cropped to its
    ink columns (0 columns wide if it has no ink)."""
    f = font(size)
    if isinstance(f, ImageFont.FreeTypeFont):
        ascent, descent = f.getmetrics()
    else:  # Pillow built without FreeType: the fixed bitmap font, drawn from its top
        ascent, descent = size, size // 3
    left, _top, right, _bottom = (int(v) for v in f.getbbox(text))
    grey = Image.new("L", (right - left + 4, ascent + descent + 4))
    ImageDraw.Draw(grey).text((2 - left, 2), text, font=f, fill=255)
    mask = _threshold(grey)
    box = mask.getbbox()
    if not box:
        return Image.new("1", (0, mask.height))
    return mask.crop((box[0], 0, box[2], mask.height))


def _bang_is_solid(size: int) -> bool:
    """True when the default font's ``!`` at ``size`` thresholds into one solid bar (its dot
    merges with its stem: at 12 px "RIIING!" read as "RIIINGI")."""
    ink = _run_ink("!", size)
    rows = [any(ink.getpixel((x, y)) for x in range(ink.width)) for y in range(ink.height)]
    lit_rows = [y for y, on in enumerate(rows) if on]
    return not lit_rows or all(rows[lit_rows[0] : lit_rows[-1] + 1])


@lru_cache(maxsize=16)
def _bang(size: int) -> Image.Image:
    """A ``!`` for font ``size`` whose dot stands apart from its stem: the font's own ``!``
    with rows carved out above the dot (1 blank row and a 2-row dot from 9 rows of ink,
    2 blank rows from 12), on the same line box as :func:`_run_ink`."""
    ink = _run_ink("!", size)
    if not _bang_is_solid(size):
        return ink
    box = ink.getbbox()
    if not box:
        return ink
    height = box[3] - box[1]
    dot = 2 if height >= 9 else 1
    gap = 2 if height >= 12 else 1
    out = ink.copy()
    blank = (0, box[3] - dot - gap, ink.width - 1, box[3] - dot - 1)
    ImageDraw.Draw(out).rectangle(blank, fill=0)
    return out


def _pieces(text: str, size: int) -> list[Image.Image | int]:
    """``text`` as line-box ink pieces and blank gaps (ints, in columns): a space is a
    :func:`word_gap`, and where the font's ``!`` is a solid bar each ``!`` is its own
    piece (:func:`_bang`) 1 column after the letters before it."""
    out: list[Image.Image | int] = []
    split_bang = "!" in text and _bang_is_solid(size)
    for w, word in enumerate(text.split(" ")):
        if w:
            out.append(word_gap(size))
        if not split_bang:
            if word:
                out.append(_run_ink(word, size))
            continue
        for b, part in enumerate(word.split("!")):
            if b:
                if out and not isinstance(out[-1], int):
                    out.append(1)
                out.append(_bang(size))
                if part:
                    out.append(1)
            if part:
                out.append(_run_ink(part, size))
    return out


@lru_cache(maxsize=2048)
def text_mask(text: str, size: int) -> Image.Image:
    """The 1-bit ink of ``text`` in the default font at ``size``, cropped to its ink box
    (a mode "1" image; 0x0 for text with no ink).

    Words are set apart by :func:`word_gap` blank columns, and a ``!`` keeps its dot apart
    from its stem (:func:`_bang`), so thresholded small text still reads ("Seat 4 to play",
    "RIIING!")."""
    pieces = _pieces(text, size)
    height = max((p.height for p in pieces if not isinstance(p, int)), default=0)
    width = sum(p if isinstance(p, int) else p.width for p in pieces)
    line = Image.new("1", (max(1, width), max(1, height)))
    x = 0
    for p in pieces:
        if isinstance(p, int):
            x += p
        else:
            line.paste(p, (x, 0))
            x += p.width
    box = line.getbbox()
    return line.crop(box) if box else Image.new("1", (0, 0))


def text_width(text: str, size: int) -> int:
    """Width in pixels of the ink of ``text`` at font ``size``."""
    return int(text_mask(text, size).width)


def fit(text: str, size: int, width: int) -> str:
    """``text`` cut at the end until it fits ``width`` pixels at font ``size``."""
    while text and text_width(text, size) > width:
        text = text[:-1]
    return text


def _text(draw: ImageDraw.ImageDraw, xy: tuple[int, int], text: str, size: int, fill: int) -> None:
    """Draw ``text`` with its ink box's top-left at ``xy``."""
    mask = text_mask(text, size)
    if mask.width and mask.height:
        draw.bitmap(xy, mask, fill=fill)


def _centred(draw: ImageDraw.ImageDraw, cx: int, y: int, text: str, size: int, fill: int) -> None:
    """Draw ``text`` centred on column ``cx`` with its ink top at row ``y``."""
    _text(draw, (cx - text_width(text, size) // 2, y), text, size, fill)


def _ink_height(text: str, size: int) -> int:
    return int(text_mask(text, size).height)


def draw_glyph(draw: ImageDraw.ImageDraw, x: int, y: int, symbol: str, fill: int) -> None:
    """Draw the 11x11 glyph of Riiing! ``symbol`` (``A S C T P``; ``"deck"`` is the draw
    pile) with its top-left at ``(x, y)``; an unknown symbol draws a small box."""
    rows = GLYPHS.get(symbol)
    if rows is None:
        draw.rectangle((x + 2, y + 2, x + 8, y + 8), outline=fill)
        return
    draw.point(
        [(x + i, y + j) for j, row in enumerate(rows) for i, ch in enumerate(row) if ch == "#"],
        fill=fill,
    )


def _header(draw: ImageDraw.ImageDraw, model: HandScreenModel) -> None:
    box_w = max(11, text_width(model.seat_label, SMALL) + 5)
    draw.rectangle((0, 0, box_w - 1, HEADER_BOTTOM), fill=ON)
    _centred(draw, box_w // 2, 2, model.seat_label, SMALL, OFF)
    x = box_w + 3
    turn_w = text_width(model.turn, SMALL) + 4 if model.turn else 0
    # the condition decides the move: as large as fits beside the whole turn word
    cond_size = SMALL
    if x + turn_w + 5 + text_width(model.condition, 12) <= WIDTH - 1:
        cond_size = 12
    cond = fit(model.condition, cond_size, WIDTH - x - 4)
    cond_w = text_width(cond, cond_size) if cond else 0
    if cond:
        _text(draw, (WIDTH - cond_w - 1, 1), cond, cond_size, ON)
    room = WIDTH - x - cond_w - 9
    size = SMALL if text_width(model.turn, SMALL) <= room else 10
    turn = fit(model.turn, size, room)
    if not turn:
        return
    if model.my_turn:
        draw.rectangle((x - 1, 0, x + text_width(turn, size) + 2, HEADER_BOTTOM), fill=ON)
        _text(draw, (x + 1, 2), turn, size, OFF)
    else:
        _text(draw, (x + 1, 2), turn, size, ON)


def _tile(draw: ImageDraw.ImageDraw, x: int, tile: Tile, cursor: bool) -> None:
    top = TILE_TOP - (RAISE if tile.raised else 0)
    bottom = TILE_BOTTOM - (RAISE if tile.raised else 0)
    box = (x, top, x + TILE_W - 1, bottom)
    ink = OFF if cursor else ON
    if cursor:
        draw.rounded_rectangle(box, radius=3, fill=ON)
    elif tile.kind == "bonus":  # a dashed outline: a bonus card lying in front of the seat
        draw.rounded_rectangle(box, radius=3, outline=ON)
        for yy in range(top + 3, bottom - 3, 4):
            draw.line([(x, yy), (x, yy + 1)], fill=OFF)
            draw.line([(x + TILE_W - 1, yy), (x + TILE_W - 1, yy + 1)], fill=OFF)
    else:
        draw.rounded_rectangle(box, radius=3, outline=ON)
    if tile.raised and not cursor:  # a chosen card: lifted, with a double edge
        draw.rounded_rectangle((x + 1, top + 1, x + TILE_W - 2, bottom - 1), radius=2, outline=ON)
    cx = x + TILE_W // 2
    if tile.kind == "action":
        draw_glyph(draw, cx - GLYPH_SIZE // 2, top + 5, tile.glyph or "deck", ink)
        size = 16 if text_width(tile.label, 16) <= TILE_W - 2 else 10
        _centred(draw, cx, top + 20, tile.label, size, ink)
        return
    if tile.glyph is not None:
        if tile.label and tile.glyph in ("you", "pull"):  # Du bist! / Ziehen!
            _centred(draw, cx, top + 4, tile.label, 20, ink)
            draw_glyph(draw, cx - GLYPH_SIZE // 2, top + 22, tile.glyph, ink)
        elif tile.label:
            _centred(draw, cx, top + 4, tile.label, 18, ink)
            draw_glyph(draw, cx - GLYPH_SIZE // 2, top + 21, tile.glyph, ink)
        else:
            draw_glyph(draw, cx - GLYPH_SIZE // 2, top + 12, tile.glyph, ink)
        return
    size = 20 if text_width(tile.label, 20) <= TILE_W - 4 else 12
    _centred(draw, cx, top + 4, tile.label, size, ink)
    if tile.tag:
        _centred(draw, cx, top + 23, fit(tile.tag, SMALL, TILE_W - 3), SMALL, ink)


def _arrow(draw: ImageDraw.ImageDraw, left: bool) -> None:
    mid = (TILE_TOP + TILE_BOTTOM) // 2
    if left:
        draw.polygon([(0, mid), (2, mid - 3), (2, mid + 3)], fill=ON)
    else:
        draw.polygon([(WIDTH - 1, mid), (WIDTH - 3, mid - 3), (WIDTH - 3, mid + 3)], fill=ON)


def _strip(draw: ImageDraw.ImageDraw, model: HandScreenModel) -> None:
    for i, tile in enumerate(model.tiles[:VISIBLE_TILES]):
        x = TILE_X0 + i * TILE_PITCH
        _tile(draw, x, tile, model.cursor == i)
        if tile.playable:
            draw.rectangle((x + 2, BAR_Y0, x + TILE_W - 3, BAR_Y1), fill=ON)
    if model.scroll_left:
        _arrow(draw, left=True)
    if model.scroll_right:
        _arrow(draw, left=False)


def _picker(draw: ImageDraw.ImageDraw, picker: Picker) -> None:
    _text(draw, (2, 13), fit(picker.title, SMALL, WIDTH - 4), SMALL, ON)
    n = max(1, len(picker.options))
    gap = 3
    widest = max((text_width(o, 18) for o in picker.options), default=10)
    box_w = min(max(20, widest + 6), (WIDTH - 4 - gap * (n - 1)) // n)
    total = n * box_w + (n - 1) * gap
    x0 = (WIDTH - total) // 2
    top, bottom = 25, 50
    for i, label in enumerate(picker.options):
        x = x0 + i * (box_w + gap)
        box = (x, top, x + box_w - 1, bottom)
        size = 18 if text_width(label, 18) <= box_w - 2 else 10
        ink_h = _ink_height(label, size)
        y = top + (bottom - top + 1 - ink_h) // 2
        if i == picker.cursor:
            draw.rounded_rectangle(box, radius=3, fill=ON)
            _centred(draw, x + box_w // 2, y, label, size, OFF)
        else:
            draw.rounded_rectangle(box, radius=3, outline=ON)
            _centred(draw, x + box_w // 2, y, label, size, ON)


BANNER_TOP, BANNER_ROWS = 12, 41
"""The banner's band: rows 12..52, between the header (ends at row 10) and the prompt line
(starts at row 53)."""


def _banner(draw: ImageDraw.ImageDraw, lines: tuple[str, ...]) -> None:
    """Draw ``lines`` centred in the banner's band: the first big (18 px), the others small
    (10 px), 5 px apart; where that does not fit the band (three lines with descenders)
    the gaps shrink, then the first line drops to 14 px, so no line ever runs into the
    header or the prompt line."""
    gaps = max(0, len(lines) - 1)
    for big in (18, 14, 10):
        sizes = [big] + [10] * gaps
        heights = [_ink_height(line or "X", s) for line, s in zip(lines, sizes, strict=True)]
        gap = 5 if not gaps else max(1, min(5, (BANNER_ROWS - sum(heights)) // gaps))
        total = sum(heights) + gap * gaps
        if total <= BANNER_ROWS:
            break
    y = BANNER_TOP + max(0, (BANNER_ROWS - total) // 2)
    for line, size, h in zip(lines, sizes, heights, strict=True):
        _centred(draw, WIDTH // 2, y, fit(line, size, WIDTH - 2), size, ON)
        y += h + gap


def _prompt(draw: ImageDraw.ImageDraw, model: HandScreenModel) -> None:
    size = SMALL if text_width(model.prompt, SMALL) <= WIDTH - 4 else 10
    text = fit(model.prompt, size, WIDTH - 4)
    if model.alert and text:
        draw.rectangle((0, PROMPT_TOP, WIDTH - 1, HEIGHT - 1), fill=ON)
        _text(draw, (2, PROMPT_TOP + 1), text, size, OFF)
    elif text:
        _text(draw, (2, PROMPT_TOP + 1), text, size, ON)


def draw_hand(draw: ImageDraw.ImageDraw, model: HandScreenModel) -> None:
    """Draw ``model`` onto a 128x64 mode ``"1"`` image through ``draw`` (the image is
    assumed black: luma's ``canvas`` gives a fresh black one).  Pure: equal models draw
    identical pixels."""
    _header(draw, model)
    if model.banner:
        _banner(draw, model.banner)
    elif model.picker is not None:
        _picker(draw, model.picker)
    else:
        _strip(draw, model)
    _prompt(draw, model)


class HandScreen:
    """One seat's hand screen on a luma device (a real ``ssd1306``/``sh1106``, a serial
    handheld's frame sender, or ``luma.core.device.dummy`` in tests and the simulator).

    ``device`` must be 128x64 mode ``"1"``; raises ``ValueError`` naming what it got.
    """

    def __init__(self, device: Any) -> None:
        size = (getattr(device, "width", None), getattr(device, "height", None))
        mode = getattr(device, "mode", None)
        if size != (WIDTH, HEIGHT) or mode != "1":
            raise ValueError(
                f"hand screen needs a 128x64 mode '1' luma device, got {size[0]}x{size[1]} "
                f"mode {mode!r}"
            )
        self.device = device
        self._last: HandScreenModel | None = None

    def render(self, model: HandScreenModel) -> bool:
        """Send a frame of ``model`` to the device if it differs from the last one sent.

        Returns True when a frame was sent, False when nothing changed.  Errors raised by
        the device's ``display()`` (an unplugged serial handheld) propagate; the model is
        then not remembered, so the next call retries.
        """
        if model == self._last:
            return False
        with canvas(self.device) as draw:
            draw_hand(draw, model)
        self._last = model
        return True

    def invalidate(self) -> None:
        """Forget the last frame so the next :meth:`render` sends one (e.g. after a
        handheld reconnects and its display was blank)."""
        self._last = None
