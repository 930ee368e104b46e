"""The TV read from two metres: whose turn it is, seat colours for colour-blind
eyes, the one Ziehen! icon, rounds and wins, and fast hands.

Frames are drawn with the real table scene on SDL's dummy driver and looked at as a party
sees them: scaled to 480x270 (a 1080p TV seen from across a room).  The colour checks
simulate the two common colour-vision deficiencies with the matrices of Machado, Oliveira
& Fernandes (2009, "A physiologically-based model for simulation of color vision
deficiency", IEEE TVCG 15(6), table for severity 1.0) on linear sRGB, and measure colour
differences with CIEDE2000 (Sharma, Wu & Dalal 2005), both implemented here (no colour
library is a dependency) and checked against published values.  Times are fake
CLOCK_MONOTONIC ns.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import itertools
import logging
import math
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest
from luma.core.device import dummy  # type: ignore[import-untyped]
from PIL import Image

from device.common.phase import Phase
from device.console import Console, Timing, make_seats
from device.flow.lobby import Lobby, LobbyChoices
from device.games import get_plugin
from device.games.base import GamePlugin
from device.hands.composer import HandScreenModel, Tile
from device.hands.screen import GLYPH_SIZE, GLYPHS, TILE_PITCH, TILE_TOP, TILE_X0, HandScreen
from device.modes.present import TablePresenter
from device.reactor.events import FakeQueue
from device.render import icons
from device.render.cards import CardPainter
from device.render.figures import PLUS_CARD, Box, Figure, cells
from device.render.layout import (
    CARD,
    CENTRE,
    LOBBY,
    PILE,
    ROUND,
    TOP,
    Letterbox,
    seat_zones,
)
from device.render.model import LobbyModel, RoundEnd, SeatBadge, TableModel
from device.render.palette import (
    BACKGROUND,
    SEAT_COLOURS,
    TEXT,
    Colour,
    contrast_ratio,
    relative_luminance,
)
from device.render.table import TableScene
from device.render.text import Typesetter
from device.render.zones import (
    LobbySpec,
    Paint,
    PileSpec,
    ResultSpec,
    RoundSpec,
    SeatSpec,
    TopSpec,
    chart_axis,
)
from drivers.clock import FakeClock
from drivers.slap import Press
from drivers.table_display import TableDisplay
from engine import get_game
from engine.right_on_time.bots import RandomBot as RotRandomBot
from engine.right_on_time.view import RightOnTimeView
from engine.riiing.bots import RandomBot as RiiingRandomBot
from engine.riiing.view import RiiingView

RIIING = get_plugin("riiing")
ROT = get_plugin("right-on-time")
S = 1_000_000_000
MS = 1_000_000
T0 = 1_000 * S
SMALL = (480, 270)
"""A 1920x1080 frame scaled to a quarter: the TV seen from two metres (docs/screens.md)."""


@pytest.fixture(scope="module", autouse=True)
def _pygame_fonts() -> Iterator[None]:
    pygame.font.init()
    yield None


# --------------------------------------------------------------------------- builders


def badges(n: int) -> tuple[SeatBadge, ...]:
    """Badges "Seat 1".."Seat n"; the last seat a computer."""
    return tuple(SeatBadge(i, f"Seat {i + 1}", "computer" if i == n - 1 else "human")
                 for i in range(n))


def riiing_view(n: int, **kw: Any) -> RiiingView:
    """A public Riiing! view of ``n`` seats: last card 6T, condition '>', seat 1 to move."""
    fields: dict[str, Any] = dict(
        seats=n, seat=None, hand=(), hand_counts=(7, 5, 6, 3, 4, 8)[:n], draw_count=42,
        discard_count=12, condition=">", last_card="6T/<", to_move=1, demand=None, phones=0,
        window=None, winner=None, legal=(),
    )
    fields.update(kw)
    return RiiingView(**fields)


def rot_view(n: int, **kw: Any) -> RightOnTimeView:
    """A public Right on Time view of ``n`` seats: top Z5 (value 5), seat 1 to move."""
    fields: dict[str, Any] = dict(
        seats=n, seat=None, hand=(), bonus=(), hand_counts=(5, 7, 0, 4, 3, 6)[:n],
        bonus_counts=(0,) * n, shown=((),) * n, draw_count=9, discard_count=8, top="Z5",
        top_value=5, round=2, scores=(1, 0, 1, 0, 2, 0)[:n], target_points=3, out=(),
        to_move=1, winner=None, legal=(),
    )
    fields.update(kw)
    return RightOnTimeView(**fields)


def view_of(game: GamePlugin, n: int, **kw: Any) -> object:
    """A public view of ``game`` with ``n`` seats."""
    return riiing_view(n, **kw) if game is RIIING else rot_view(n, **kw)


def table(game: GamePlugin, view: object, n: int, **kw: Any) -> TableModel:
    """A play-phase table model of ``game``."""
    fields: dict[str, Any] = dict(game=game, phase=Phase.PLAY, view=view, seats=badges(n),
                                  last_event="Seat 1 played")
    fields.update(kw)
    return TableModel(**fields)


def draw(model: TableModel, size: tuple[int, int] = SMALL) -> pygame.Surface:
    """The settled frame of ``model`` on a ``size`` surface."""
    scene = TableScene(motion=False)
    scene.set_model(model, T0)
    surface = pygame.Surface(size)
    scene.draw(surface, T0)
    return surface


def save(surface: pygame.Surface, tmp_path: Path, name: str) -> None:
    """tmp_path/name.png, to look at when a test fails."""
    pygame.image.save(surface, str(tmp_path / f"{name}.png"))


def pixels(surface: pygame.Surface, rect: pygame.Rect) -> list[Colour]:
    """Every pixel of ``rect`` of ``surface`` as (r, g, b)."""
    data = pygame.image.tobytes(surface.subsurface(rect), "RGB")
    return [(data[i], data[i + 1], data[i + 2]) for i in range(0, len(data), 3)]


def panel_at_small(n: int, seat: int) -> pygame.Rect:
    """Seat ``seat``'s badge panel (of ``n`` seats) in 480x270 px."""
    rect, inner = seat_zones(n)[seat]
    spec = SeatSpec("", "", (0, 0, 0), None, False, None, inner, None, (), False, False)
    return Letterbox.fit(SMALL).map_rect(spec.panel_rect(rect))


def lit_share(surface: pygame.Surface, rect: pygame.Rect) -> float:
    """The share of ``rect`` that is lit: relative luminance >= 0.1 (about 2.3x the dark
    badge panel's contrast against black; every seat colour is above it)."""
    px = pixels(surface, rect)
    return sum(relative_luminance(c) >= 0.1 for c in px) / len(px)


def ink_height(surface: pygame.Surface, rect: pygame.Rect, colour: Colour, tol: int) -> int:
    """Height in px of the pixels of ``rect`` within ``tol`` of ``colour`` per channel."""
    part = surface.subsurface(rect)
    mask = pygame.mask.from_threshold(part, colour, (tol, tol, tol, 255))
    boxes = mask.get_bounding_rects()
    return boxes[0].unionall(boxes).height if boxes else 0


def value_heights(surface: pygame.Surface, spec: LobbySpec, colour: Colour, tol: int
                  ) -> dict[int, int]:
    """Row index -> ink height in px (:func:`ink_height`) of the value of each lobby row
    ``spec`` shows, measured on ``surface`` (the whole 1920x1080 frame scaled to any size:
    the rows are mapped through the letterbox); rows without a value are left out."""
    box = Letterbox.fit(surface.get_size())
    return {i: ink_height(surface, box.map_rect(spec.value_rect(row)), colour, tol)
            for i, row in spec.row_rects(LOBBY) if spec.rows[i][1]}


# --------------------------------------------------------------------------- whose turn


@pytest.mark.parametrize("game", [RIIING, ROT], ids=["riiing", "right_on_time"])
@pytest.mark.parametrize("n", [2, 6])
def test_the_seat_to_move_is_lit_from_two_metres(
    game: GamePlugin, n: int, tmp_path: Path
) -> None:
    """At 480x270, the badge of the seat to move is lit over >= 70% of its area (filled in
    its colour) while every other badge is lit over <= 35% (border, disc, count), for
    every seat in turn (a white outline alone lights about 40%: too close to the rest)."""
    for turn in range(n):
        surface = draw(table(game, view_of(game, n, to_move=turn), n))
        save(surface, tmp_path, f"{game.name}_{n}_{turn}")
        shares = [lit_share(surface, panel_at_small(n, s)) for s in range(n)]
        assert shares[turn] >= 0.7, (turn, shares)
        assert all(share <= 0.35 for s, share in enumerate(shares) if s != turn), shares


@pytest.mark.parametrize("game", [RIIING, ROT], ids=["riiing", "right_on_time"])
def test_turn_words_are_large_at_480x270(game: GamePlugin, tmp_path: Path) -> None:
    """At 480x270 the badge's TURN word is >= 10 px of white ink on its dark plate, and the
    top strip's right end is a plate in the mover's seat colour whose "Seat 2 to play"
    ink is >= 10 px tall: the words read from two metres."""
    n = 4
    model = table(game, view_of(game, n, to_move=1), n)
    surface = draw(model)
    save(surface, tmp_path, "turn")
    box = Letterbox.fit(SMALL)
    rect, inner = seat_zones(n)[1]
    spec = SeatSpec("", "", (0, 0, 0), None, True, None, inner, None, (), False, False)
    plate = box.map_rect(spec.plate_rect(spec.panel_rect(rect)))
    assert ink_height(surface, plate, (255, 255, 255), 60) >= 10
    scene = TableScene(motion=False)
    scene.set_model(model, T0)
    top = scene._zones(T0)[0]["top"][1]
    assert isinstance(top, TopSpec) and top.turn == "Seat 2 to play"
    assert top.turn_colour == SEAT_COLOURS[1]
    text = scene._paint  # the scene's painting context measures the plate as drawn
    turn_plate = top.turn_rect(text, TOP)
    assert turn_plate is not None
    small_plate = box.map_rect(turn_plate)
    fill = pixels(surface, small_plate)
    in_colour = sum(all(abs(a - b) <= 20 for a, b in zip(c, SEAT_COLOURS[1], strict=True))
                    for c in fill)
    assert in_colour / len(fill) >= 0.5  # a plate filled with the seat colour
    assert ink_height(surface, small_plate.inflate(-8, -4), (18, 18, 22), 70) >= 10


def test_no_turn_is_marked_during_a_window_or_a_round_end() -> None:
    """An open RIIING! window suspends the turn (RI-6.2): the top strip says SLAP NOW! and
    no turn plate; a round's end shows no turn either (the next round waits)."""
    scene = TableScene(motion=False)
    window = table(RIIING, riiing_view(3, window="C", condition="*C"), 3,
                   deadline_ns=T0 + 8 * S)
    scene.set_model(window, T0)
    top = scene._zones(T0)[0]["top"][1]
    assert isinstance(top, TopSpec) and top.right == "SLAP NOW!" and top.turn == ""
    ended = table(ROT, rot_view(3), 3, round_end=RoundEnd("Seat 2 wins round 1", "1 : 0"))
    scene.set_model(ended, T0 + S)
    zones = scene._zones(T0 + S)[0]
    top = zones["top"][1]
    assert isinstance(top, TopSpec) and top.turn == "" and top.right == "Round 2"
    assert not any(isinstance(spec, SeatSpec) and spec.turn for _r, spec in zones.values())


# --------------------------------------------------------------------------- colours

MACHADO_PROTANOPIA = (
    (0.152286, 1.052583, -0.204868),
    (0.114503, 0.786281, 0.099216),
    (-0.003882, -0.048116, 1.051998),
)
"""Machado et al. 2009, protanopia, severity 1.0 (linear RGB)."""
MACHADO_DEUTERANOPIA = (
    (0.367322, 0.860646, -0.227968),
    (0.280085, 0.672501, 0.047413),
    (-0.011820, 0.042940, 0.968881),
)
"""Machado et al. 2009, deuteranopia, severity 1.0 (linear RGB)."""
NORMAL = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))

Matrix = tuple[tuple[float, float, float], ...]
Lab = tuple[float, float, float]


def to_linear(c: int) -> float:
    """An sRGB channel 0-255 as linear light 0..1 (IEC 61966-2-1)."""
    v = c / 255.0
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def seen(colour: Colour, matrix: Matrix) -> tuple[float, float, float]:
    """``colour`` as the eye of ``matrix`` sees it: linear RGB, clipped to 0..1 (a screen
    makes no negative light)."""
    lin = [to_linear(c) for c in colour]
    return tuple(  # type: ignore[return-value]
        min(1.0, max(0.0, sum(m * v for m, v in zip(row, lin, strict=True)))) for row in matrix
    )


def lab(linear: tuple[float, float, float]) -> Lab:
    """CIELAB (D65) of linear sRGB."""
    r, g, b = linear
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = f(x), f(y), f(z)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))


def ciede2000(lab1: Lab, lab2: Lab) -> float:
    """CIEDE2000 colour difference (kL = kC = kH = 1), Sharma, Wu & Dalal 2005."""
    l1, a1, b1 = lab1
    l2, a2, b2 = lab2
    c_bar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_bar**7 / (c_bar**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dlp, dcp = l2 - l1, c2p - c1p
    dhp = 0.0
    if c1p * c2p:
        dhp = h2p - h1p
        dhp -= 360 if dhp > 180 else 0
        dhp += 360 if dhp < -180 else 0
    d_hp = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dhp / 2))
    lbp, cbp = (l1 + l2) / 2, (c1p + c2p) / 2
    if not c1p * c2p:
        hbp = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hbp = (h1p + h2p) / 2
    else:
        hbp = (h1p + h2p + (360 if h1p + h2p < 360 else -360)) / 2
    t = (1 - 0.17 * math.cos(math.radians(hbp - 30)) + 0.24 * math.cos(math.radians(2 * hbp))
         + 0.32 * math.cos(math.radians(3 * hbp + 6)) - 0.20 * math.cos(math.radians(4 * hbp - 63)))
    d_theta = 30 * math.exp(-(((hbp - 275) / 25) ** 2))
    rc = 2 * math.sqrt(cbp**7 / (cbp**7 + 25**7))
    sl = 1 + 0.015 * (lbp - 50) ** 2 / math.sqrt(20 + (lbp - 50) ** 2)
    sc, sh = 1 + 0.045 * cbp, 1 + 0.015 * cbp * t
    rt = -math.sin(math.radians(2 * d_theta)) * rc
    return math.sqrt((dlp / sl) ** 2 + (dcp / sc) ** 2 + (d_hp / sh) ** 2
                     + rt * (dcp / sc) * (d_hp / sh))


@pytest.mark.parametrize(
    ("lab1", "lab2", "want"),
    [  # Sharma, Wu & Dalal 2005, table 1, pairs 1, 7, 13, 17, 18, 25, 34
        ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
        ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
        ((50.0, 2.49, -0.001), (50.0, -2.49, 0.0011), 7.2195),
        ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
        ((50.0, 2.5, 0.0), (61.0, -5.0, 29.0), 22.8977),
        ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
        ((2.0776, 0.0795, -1.135), (0.9033, -0.0636, -0.5514), 0.9082),
    ],
)
def test_ciede2000_matches_the_published_test_data(lab1: Lab, lab2: Lab, want: float) -> None:
    """The colour difference used below gives Sharma et al.'s published values."""
    assert ciede2000(lab1, lab2) == pytest.approx(want, abs=1e-4)


def test_the_simulation_matches_an_independent_implementation() -> None:
    """Simulated Okabe-Ito blue (0, 114, 178) re-encoded to sRGB 0..1 equals what
    colorspacious 1.1.2 (``sRGB1+CVD``, severity 100) gives for it, to 1e-4."""

    def encode(v: float) -> float:
        return v * 12.92 if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055

    deut = [encode(v) for v in seen((0, 114, 178), MACHADO_DEUTERANOPIA)]
    prot = [encode(v) for v in seen((0, 114, 178), MACHADO_PROTANOPIA)]
    assert deut == pytest.approx([0.2303, 0.4020, 0.6933], abs=1e-4)
    assert prot == pytest.approx([0.3244, 0.4571, 0.7085], abs=1e-4)


SEAT_GAP = 15.0
"""Least CIEDE2000 difference between two seat colours, for every eye checked.  A
difference of 1-2 is just noticeable side by side; a seat's colour must be told apart at
a glance, across the table, from a small disc.  The pairs people mistook on this table
measure 11.6 (orange and yellow) and 12.5 (orange and vermillion) for a deutan; Okabe-Ito's
own closest pair, sky blue and blue, is 22.3 for normal vision.  15 keeps a margin above
the pairs seen to fail."""


@pytest.mark.parametrize(
    "eye", [NORMAL, MACHADO_DEUTERANOPIA, MACHADO_PROTANOPIA],
    ids=["normal", "deuteranopia", "protanopia"],
)
def test_seat_colours_stay_apart_for_colour_blind_eyes(eye: Matrix) -> None:
    """Every pair of the six seat colours differs by CIEDE2000 >= 15 for normal vision
    and under simulated deuteranopia and protanopia (Okabe-Ito's orange and vermillion
    measure 12.5 for a deutan: too close to be two seats)."""
    labs = [lab(seen(c, eye)) for c in SEAT_COLOURS]
    assert len(SEAT_COLOURS) == 6
    for (i, a), (j, b) in itertools.combinations(enumerate(labs), 2):
        assert ciede2000(a, b) >= SEAT_GAP, f"seat {i + 1} and seat {j + 1}"
    too_close = [(230, 159, 0), (213, 94, 0)]  # Okabe-Ito orange and vermillion
    if eye is MACHADO_DEUTERANOPIA:  # the gap tells such a pair apart
        assert ciede2000(*(lab(seen(c, eye)) for c in too_close)) < SEAT_GAP


def test_seat_colours_read_on_the_table_and_carry_their_number() -> None:
    """Each seat colour is >= 3:1 against the table, and its number disc reads >= 3:1 on
    it (colour is never the only cue)."""
    surface = draw(table(RIIING, riiing_view(6, to_move=None), 6), (1920, 1080))
    for seat, colour in enumerate(SEAT_COLOURS):
        assert contrast_ratio(colour, BACKGROUND) >= 3.0, seat
        rect, inner = seat_zones(6)[seat]
        spec = SeatSpec("", "", (0, 0, 0), None, False, None, inner, None, (), False, False)
        cx, cy = SeatSpec.disc_centre(spec.panel_rect(rect))
        disc = pygame.Rect(cx - 30, cy - 30, 60, 60)
        found = set(pixels(surface, disc))
        assert colour in found
        assert max(contrast_ratio(c, colour) for c in found) >= 3.0, seat


# --------------------------------------------------------------------------- Ziehen!


def test_the_ziehen_icon_is_one_shape_on_tv_and_handheld(tmp_path: Path) -> None:
    """The TV's Ziehen! glyph shrunk to the hand's 11x11 grid (a cell lit when the stamp
    covers half of it) is the hand screen's glyph pixel for pixel, and the hand screen
    draws exactly that glyph on a Ziehen! tile."""
    size = 30 * GLYPH_SIZE
    stamp = icons.stamp("plus_card", size, (0, 0, 0))
    # the stamp's alpha through Pillow (pygame's surfarray would need numpy, not a dependency)
    alpha = Image.frombytes("RGBA", stamp.get_size(),
                            pygame.image.tobytes(stamp, "RGBA")).getchannel("A")
    k = size // GLYPH_SIZE
    cell_means = alpha.reduce(k).tobytes()  # each byte: the mean of one k x k cell (L)
    shrunk = tuple(
        "".join("#" if cell_means[j * GLYPH_SIZE + i] >= 127.5 else "."
                for i in range(GLYPH_SIZE))
        for j in range(GLYPH_SIZE)
    )
    assert shrunk == GLYPHS["pull"] == cells(PLUS_CARD)
    device = dummy(width=128, height=64, mode="1")
    HandScreen(device).render(HandScreenModel("1", "YOUR TURN", "top 4", True,
                                              tiles=(Tile("card", "5", "pull"),), cursor=None))
    big = device.image.convert("L").resize((512, 256), Image.Resampling.NEAREST)
    big.save(tmp_path / "hand.png")
    x0 = TILE_X0 + (22 // 2) - GLYPH_SIZE // 2
    y0 = TILE_TOP + 22
    drawn = tuple(
        "".join("#" if device.image.getpixel((x0 + i, y0 + j)) else "."
                for i in range(GLYPH_SIZE))
        for j in range(GLYPH_SIZE)
    )
    assert drawn == GLYPHS["pull"]
    assert TILE_PITCH == 24  # the tile geometry this test reads


def test_a_figure_off_its_grid_is_refused_by_name() -> None:
    """A figure box outside the grid or rounded by more than a cell is a ValueError naming
    the figure and the box."""
    with pytest.raises(ValueError, match="figure 'x' box 1"):
        Figure("x", 11, (Box(0, 0, 11, 11), Box(5, 5, 12, 6)))
    with pytest.raises(ValueError, match="radius 2"):
        Figure("y", 11, (Box(0, 0, 4, 4, radius=2),))


# --------------------------------------------------------------------------- rounds and wins


@pytest.mark.parametrize("n", [2, 6])
def test_a_round_end_shows_a_big_banner_over_the_table(n: int, tmp_path: Path) -> None:
    """With a round end in the model the condition zone becomes a banner: the headline in
    the winner's colour >= 20 px tall at 480x270, the score under it, and the card that
    ended the round as the top card (the view is already the next round's)."""
    view = rot_view(n, top=None, top_value=None, round=3)
    end = RoundEnd("Seat 2 wins round 2", "Seat 1: 1   Seat 2: 1", 1, "3")
    surface = draw(table(ROT, view, n, round_end=end))
    save(surface, tmp_path, "round_end")
    box = Letterbox.fit(SMALL)
    banner = box.map_rect(ROUND)
    headline = pygame.Rect(banner.x, banner.y + banner.height // 3, banner.width,
                           banner.height // 2)
    assert ink_height(surface, headline, SEAT_COLOURS[1], 24) >= 20
    plain = draw(table(ROT, view, n))
    assert pixels(plain, box.map_rect(CARD)) != pixels(surface, box.map_rect(CARD))
    face = draw(table(ROT, rot_view(n, top="3", top_value=3), n))
    card = box.map_rect(pygame.Rect(CARD.x, CARD.y, CARD.width, 535))  # the card, no caption
    assert pixels(face, card) == pixels(surface, card)


def test_a_round_ends_score_wraps_whole_in_up_to_three_lines() -> None:
    """Every seat's score of a 6-seat round end shows whole: the parts ("Seat 3: 1") are
    packed into lines that fit the banner, none split or cut."""
    scores = "   ".join(f"Seat {s + 1}: {s % 3}" for s in range(6))
    spec = RoundSpec("Seat 2 wins round 4", scores, SEAT_COLOURS[1])
    text = Typesetter()
    ctx = Paint(pygame.Surface((10, 10)), text, CardPainter(text))
    width = ROUND.width - 10 - 60
    lines = spec.score_lines(ctx, width)
    assert 2 <= len(lines) <= 3
    assert all(text.width(line, RoundSpec.SCORE_PX) <= width for line in lines)
    assert "   ".join(lines).split("   ") == scores.split("   ")


def test_game_over_says_how_it_was_won_and_charts_every_seats_slaps(tmp_path: Path) -> None:
    """Game over shows the win reason under the headline, and a chart with a row per
    seat: a dot in the seat's colour for each window it won, placed by its time on one
    axis (a faster slap further left), none on a row of a seat that won none."""
    n = 4
    reactions = ((1, 231), (3, 288), (1, 199), (0, 402), (1, 305))
    model = table(RIIING, riiing_view(n, winner=1, to_move=None, hand_counts=(3, 0, 2, 4)), n,
                  phase=Phase.GAMEOVER, win_reason="Seat 2 played their last card",
                  reactions=reactions)
    full = draw(model, (1920, 1080))
    save(full, tmp_path, "over")
    save(draw(model), tmp_path, "over_small")
    scene = TableScene(motion=False)
    scene.set_model(model, T0)
    result = scene._zones(T0)[0]["result"][1]
    assert isinstance(result, ResultSpec)
    assert result.reason == "Seat 2 played their last card"
    assert [row[3] for row in result.chart] == [(402,), (231, 199, 305), (), (288,)]
    end, step = chart_axis(402)
    assert (end, step) == (500, 100)
    # the chart: below the reason, above the hint bar; discs at its left edge
    top_y = CENTRE.y + 20 + 160 + 96
    area = pygame.Rect(CENTRE.x + 30, top_y, CENTRE.width - 60,
                       CENTRE.bottom - ResultSpec.HINT_H - 20 - top_y)
    discs = pygame.Rect(area.x, area.y, 60, area.height)
    plot = pygame.Rect(area.x + 280, area.y, area.width - 280 - 240, area.height)
    rows = []
    placed: list[tuple[int, int]] = []  # (ms, dot x) of every dot
    for seat, times in enumerate(row[3] for row in result.chart):
        colour = (SEAT_COLOURS[seat][0], SEAT_COLOURS[seat][1], SEAT_COLOURS[seat][2], 255)
        disc = pygame.mask.from_threshold(full.subsurface(discs), colour, (8, 8, 8, 255))
        disc_y = discs.y + disc.get_bounding_rects()[0].centery
        mask = pygame.mask.from_threshold(full.subsurface(plot), colour, (8, 8, 8, 255))
        dots = sorted((r.centerx, plot.y + r.centery) for r in mask.get_bounding_rects()
                      if r.width >= 10)
        assert len(dots) == len(times), (seat, dots)
        assert all(abs(y - disc_y) <= 3 for _x, y in dots), (seat, dots, disc_y)
        rows.append(disc_y)
        placed += zip(sorted(times), (x for x, _y in dots), strict=True)
    assert rows == sorted(rows) and len(set(rows)) == n  # a row per seat, in seat order
    placed.sort()
    (ms0, x0), (ms1, x1) = placed[0], placed[-1]
    px_per_ms = (x1 - x0) / (ms1 - ms0)
    for ms, x in placed:  # one linear ms axis for every row
        assert abs(x0 + (ms - ms0) * px_per_ms - x) <= 3, (ms, x)
    reason_band = pygame.Rect(CENTRE.x, CENTRE.y + 20 + 160, CENTRE.width, 96)
    assert ink_height(full, reason_band, (240, 240, 240), 30) >= 40


def play_to_the_end(game_name: str, seed: int, seats: int, **options: Any) -> tuple[Any, str]:
    """A seeded game of random computer players to its end: (final position, the last
    action's text)."""
    game = get_game(game_name)
    start = game.new(seats, seed, options, 0)
    bot = RiiingRandomBot if game_name == "riiing" else RotRandomBot
    rng = random.Random(seed)
    bots = [bot(s, random.Random(seed * 10 + s)) for s in range(seats)]
    pos, last = start, ""
    for line, after, _events in game.autoplay(start, bots, rng):
        pos, last = after, line.action
    return pos, last


def test_riiing_says_whether_a_card_or_a_slap_won() -> None:
    """Over 60 seeded games: the reason says "played their last card" after a play and
    "emptied their hand with a RIIING! slap" after a slap (RI-7.1), naming the winner."""
    kinds = set()
    for seed in range(60):
        pos, last = play_to_the_end("riiing", seed, 2 + seed % 3)
        reason = RIIING.win_reason(pos)
        who = f"Seat {pos.winner + 1}"
        if last.startswith("slap"):
            assert reason == f"{who} emptied their hand with a RIIING! slap", seed
        else:
            assert last.startswith("play") and reason == f"{who} played their last card"
        kinds.add(last.split()[0])
    assert kinds == {"slap", "play"}


@pytest.mark.parametrize(("target", "words"), [(3, "took the third point"),
                                               (1, "took the only point"),
                                               (2, "took the second point")])
def test_right_on_time_says_which_point_won(target: int, words: str) -> None:
    """The match's reason names the winner and the point that won it (RT-7.1)."""
    pos, _last = play_to_the_end("right-on-time", 7, 3, target_points=target)
    assert ROT.win_reason(pos) == f"Seat {pos.winner + 1} {words}"


def test_win_reason_of_an_unfinished_or_foreign_position_is_empty() -> None:
    """No winner, another game's position or no position: no words, no error."""
    riiing_pos = get_game("riiing").new(2, 1, {}, 0)
    rot_pos = get_game("right-on-time").new(2, 1, {}, 0)
    assert RIIING.win_reason(riiing_pos) == ROT.win_reason(rot_pos) == ""
    assert RIIING.win_reason(rot_pos) == ROT.win_reason(riiing_pos) == ""
    assert RIIING.win_reason(None) == ""


# --------------------------------------------------------------------------- fast hands


def test_the_slap_margin_is_said_under_the_winners_time() -> None:
    """After a slap the pile zone says the winner's time and "by 12 ms over Seat 4";
    without a runner-up "fastest slap!"; a margin under a millisecond says so."""
    scene = TableScene(motion=False)
    for margin, sub in (((3, 12), "by 12 ms over Seat 4"), (None, "fastest slap!"),
                        ((0, 0), "by less than 1 ms over Seat 1")):
        scene.set_model(table(RIIING, riiing_view(4), 4, slap=(1, 231), slap_margin=margin),
                        T0)
        pile = scene._zones(T0)[0]["pile"][1]
        assert isinstance(pile, PileSpec)
        assert (pile.headline, pile.sub) == ("Seat 2  231 ms", sub)
    surface = draw(table(RIIING, riiing_view(4), 4, slap=(1, 231), slap_margin=(3, 12)))
    panel = Letterbox.fit(SMALL).map_rect(pygame.Rect(PILE.x + 410, PILE.y + 10,
                                                      PILE.width - 410, PILE.height - 20))
    assert sum(c == SEAT_COLOURS[1] for c in pixels(surface, panel)) > 0.5 * panel.width * 40


# --------------------------------------------------------------------------- console


@pytest.fixture
def display() -> Iterator[TableDisplay]:
    """A 960x540 table display on SDL's dummy driver with a fake clock."""
    d = TableDisplay("dummy", (960, 540), clock=FakeClock(100 * S))
    try:
        yield d
    finally:
        d.close()


def console_of(display: TableDisplay, kinds: tuple[str, ...], game: str = "riiing") -> Console:
    """A started console of ``kinds`` seats on the display's fake clock."""
    clock = display.clock
    assert isinstance(clock, FakeClock)
    devices = [dummy(width=128, height=64, mode="1") for _ in kinds]
    console = Console(clock=clock, queue=FakeQueue(clock),
                      presenter=TablePresenter(display, motion=False),
                      seats=make_seats(devices), choices=LobbyChoices(game=game, kinds=kinds),
                      game_seed=3, timing=Timing(), skip_lobby=True)
    console.start()
    return console


def test_console_model_reads_the_flows_slap_and_round_end(
    display: TableDisplay, caplog: pytest.LogCaptureFixture
) -> None:
    """The model takes the flow snapshot's ``slap_shown`` (seat, ms), ``slap_margin``
    (runner-up, ms) and ``round_end``, as the play phase holds them; a value of another
    shape is left out with one log line per kind, and a margin without a slap is not
    shown."""
    console = console_of(display, ("human", "human"))
    slap: Any = console.flow.play.slap
    rounds: Any = console.flow.play.rounds
    now = console.clock.now_ns()
    slap.slap_shown, slap.slap_margin = (1, 380.4), None
    assert (console.model(now).slap, console.model(now).slap_margin) == ((1, 380), None)
    slap.slap_margin = (0, 41.6)
    assert console.model(now).slap_margin == (0, 42)
    slap.slap_shown = None
    assert console.model(now).slap_margin is None
    end = RoundEnd("Seat 2 wins round 3", "2 : 1", 1, "J5")
    rounds.round_end = end
    assert console.model(now).round_end == end
    with caplog.at_level(logging.WARNING, logger="partytable"):
        slap.slap_shown = ("one", 3)
        slap.slap_margin = (0, 1, 2)
        rounds.round_end = ("Seat 1 wins round 1", "1 : 0")
        for _ in range(3):
            model = console.model(now)
            assert model.slap is None and model.slap_margin is None
            assert model.round_end is None
    odd = [r for r in caplog.records if "wrong shape" in r.getMessage()]
    assert len(odd) == 3


def soap_window(display: TableDisplay) -> tuple[Console, FakeClock, int]:
    """A 2-seat Riiing! console with a soap RIIING! window open (seat 2 holds only soap
    cards, so its slap wins the game), 500 ms after the window's flip: (console, clock,
    the flip's t0 in ns)."""
    console = console_of(display, ("human", "human"))
    game = get_game("riiing")
    pos = game.parse_position({
        "game": "riiing", "seats": 2, "hands": [["5C/>", "9S/O"], ["2S/=", "6S/<"]],
        "draw": ["3T/*S", "6A/<"], "discard": ["7A/E"], "to_move": 0, "seed": 42,
        "demand": None, "window": "S", "winner": None,
    })
    clock = console.clock
    assert isinstance(clock, FakeClock)
    console.play_from(pos, clock.now_ns())
    console.render(clock.now_ns())
    t0 = console.flow.race.arbiter.t0_ns
    assert t0 is not None
    clock.advance(500 * MS)
    return console, clock, t0


def test_a_slap_that_empties_the_hand_ends_the_game_with_reason_and_chart(
    display: TableDisplay, tmp_path: Path
) -> None:
    """Seat 2 slaps a RIIING! window holding only cards of its symbol: the game is over,
    the model says how it was won and lists that window's reaction time for the chart
    (the wake-up race is not in it)."""
    console, clock, t0 = soap_window(display)
    queue = console.queue
    queue.post(Press(1, t0 + 240 * MS))
    console.step()
    console.step()
    assert console.phase is Phase.GAMEOVER
    model = console.model(clock.now_ns())
    assert model.win_reason == "Seat 2 emptied their hand with a RIIING! slap"
    assert model.reactions == ((1, 240),)
    surface = draw(model, (1920, 1080))
    save(surface, tmp_path, "slap_win")


# --------------------------------------------------------------------------- the lobby

BOARD = (("Fastest slaps", "Seat 2 231 ms  Seat 4 260 ms  Seat 1 312 ms"),
         ("Games won", "Seat 1: 3  Seat 2: 1  Seat 3: 1  Seat 4: 0"))
"""A full leaderboard as the flow writes it from the game database (``GameFlow._board``:
the three fastest slaps, the games won of four seats, entries two spaces apart)."""


def lobby_frame(lobby: Lobby, cursor_key: str, size: tuple[int, int]
                ) -> tuple[pygame.Surface, LobbySpec]:
    """The lobby drawn with the cursor on its last row of ``cursor_key`` (TableScene, no
    motion) on a ``size`` surface, and the menu's spec (its rows' places)."""
    keys = [key for key, _label, _value in lobby.rows()]
    lobby.cursor = len(keys) - 1 - keys[::-1].index(cursor_key)
    menu: LobbyModel = lobby.model("< > pick a row   SELECT change")
    model = TableModel(game=RIIING, phase=Phase.LOBBY, view=None, seats=badges(4), lobby=menu)
    return draw(model, size), LobbySpec(menu.rows, menu.cursor, menu.hint)


def test_tonights_leaderboard_reads_as_large_as_the_other_lobby_rows(tmp_path: Path) -> None:
    """At 480x270 every value of tonight's leaderboard (fastest slaps, games won) is at
    least as tall as the option rows' values (digits, 68 px at 1920x1080: about 12 px),
    each fits its row at full size (none shrunk or cut with "..."), and every entry the
    flow wrote is on the TV (not one row per list, shrunk to 40 px and cut)."""
    lobby = Lobby(LobbyChoices(), max_seats=6)
    lobby.board = BOARD
    top, top_spec = lobby_frame(lobby, "game", SMALL)
    save(top, tmp_path, "lobby_top_480")
    options = [i for i, (label, _v) in enumerate(top_spec.rows)
               if label in ("Cards each", "Slap time (s)", "Seats")]
    heights = value_heights(top, top_spec, TEXT, 60)
    shown = [heights[i] for i in options if i in heights]
    assert shown and min(shown) >= 10, heights
    reference = min(shown)
    text = Typesetter()
    entries = {e for _label, value in BOARD for e in value.split("  ")}
    seen: set[str] = set()
    for key in ("board", "clear"):  # the board's first rows, then its last ones
        small, spec = lobby_frame(lobby, key, SMALL)
        big, _ = lobby_frame(lobby, key, (1920, 1080))
        save(small, tmp_path, f"lobby_{key}_480")
        save(big, tmp_path, f"lobby_{key}_1080")
        board_rows = [i for i, _row in spec.row_rects(LOBBY)
                      if i != spec.cursor and spec.rows[i][1] in entries]
        assert board_rows, spec.rows
        heights = value_heights(small, spec, TEXT, 60)
        for i in board_rows:
            value = spec.rows[i][1]
            assert heights[i] >= reference, (value, heights[i], reference)
            assert text.width(value, LobbySpec.TEXT_PX) <= spec.text_width(), value
            seen.add(value)
    rows = lobby.rows()
    listed = {value for key, _label, value in rows if key == "board"}
    assert listed == entries and seen <= entries
    labels = [label for key, label, _v in rows if key == "board" and label]
    assert labels == ["Fastest slaps", "Games won"]


def test_the_chart_counts_every_press_of_a_window_not_only_the_winners(
    display: TableDisplay,
) -> None:
    """A small chart of every seat's reaction times: seat 2 wins a
    window at 240 ms, seat 1 pressed at 250 ms (inside the settle time, so the arbiter
    counted it): both times are on the game-over chart, the winner's first."""
    console, clock, t0 = soap_window(display)
    console.queue.post(Press(1, t0 + 240 * MS))
    console.queue.post(Press(0, t0 + 250 * MS))
    console.step()
    console.step()
    console.step()
    assert console.phase is Phase.GAMEOVER
    assert console.model(clock.now_ns()).reactions == ((1, 240), (0, 250))
