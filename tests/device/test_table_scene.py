"""The TV's table scene (device/render/table.py): what it shows, when it redraws, how it scales.

Drawn with pygame on plain surfaces under the SDL dummy video driver; PNGs go only to
pytest's tmp_path.  Times are fake CLOCK_MONOTONIC ns chosen by each test.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import itertools
import random
from dataclasses import replace
from pathlib import Path

import pygame
import pytest

from device.common.phase import Phase
from device.games import get_plugin
from device.games.right_on_time.rt_table import card as rot_card
from device.games.right_on_time.rt_table import card_face as rot_card_face
from device.games.right_on_time.rt_table import value_spec as rot_value
from device.games.riiing.ri_icons import SYMBOLS as RIIING_SYMBOLS
from device.games.riiing.ri_table import card_face as riiing_card_face
from device.games.riiing.ri_table import condition_spec as riiing_condition
from device.games.riiing.ri_words import card as riiing_card
from device.render import anim, icons
from device.render.cache import SurfaceCache, surface_bytes
from device.render.cards import CACHE_BYTES as CARD_CACHE_BYTES
from device.render.cards import CardPainter
from device.render.layout import CARD, CENTRE, COND, COUNT, PILE, TOP, Letterbox, seat_zones
from device.render.model import LobbyModel, SeatBadge, TableModel
from device.render.palette import (
    BACKGROUND,
    PANEL,
    SEAT_COLOURS,
    TEXT,
    YELLOW,
    contrast_ratio,
    relative_luminance,
)
from device.render.table import TableScene
from device.render.table_zones import NEW_GAME_HINT
from device.render.text import CACHE_BYTES, CACHE_LINES, Typesetter
from device.render.zones import CardSpec, CondSpec, Paint, ResultSpec, SeatSpec, TopSpec
from engine.right_on_time.view import RightOnTimeView
from engine.riiing.view import RiiingView

RIIING = get_plugin("riiing")
ROT = get_plugin("right-on-time")
SYMBOL_COLOURS = {name: symbol.colour for name, symbol in RIIING_SYMBOLS.items()}
S = 1_000_000_000
T0 = 1_000 * S
FULL = (1920, 1080)


# --------------------------------------------------------------------------- builders


def badges(
    n: int, cpu: tuple[int, ...] = (), unplugged: tuple[int, ...] = ()
) -> tuple[SeatBadge, ...]:
    """Seat badges "Seat 1".."Seat n"; seats in ``cpu`` are computers."""
    return tuple(
        SeatBadge(i, f"Seat {i + 1}", "computer" if i in cpu else "human", i not in unplugged)
        for i in range(n)
    )


def rv(**kw: object) -> RiiingView:
    """A 4-seat public Riiing! view: last card 6T, condition '>', seat 2 to move."""
    base: dict[str, object] = dict(
        seats=4, seat=None, hand=(), hand_counts=(7, 5, 6, 3), draw_count=42, discard_count=12,
        condition=">", last_card="6T/<", to_move=2, demand=None, phones=0, window=None,
        winner=None, legal=(),
    )
    base.update(kw)
    return RiiingView(**base)  # type: ignore[arg-type]


def tv(**kw: object) -> RightOnTimeView:
    """A 4-seat public Right on Time view: top J5 (value 5), seat 2 out, seat 3 to move."""
    base: dict[str, object] = dict(
        seats=4, seat=None, hand=(), bonus=(), hand_counts=(5, 7, 0, 4),
        bonus_counts=(0, 0, 1, 0), shown=((), (), (), ()), draw_count=9, discard_count=8,
        top="J5", top_value=5, round=2, scores=(1, 0, 1, 0), target_points=3, out=(2,),
        to_move=3, winner=None, legal=(),
    )
    base.update(kw)
    return RightOnTimeView(**base)  # type: ignore[arg-type]


def riiing(view: RiiingView | None = None, **kw: object) -> TableModel:
    """A Riiing! play-phase table model (seat 3 a computer)."""
    v = view or rv()
    base: dict[str, object] = dict(
        game=RIIING, phase="play", view=v, seats=badges(v.seats, cpu=(3,)),
        last_event="Seat 2 played 6T",
    )
    base.update(kw)
    return TableModel(**base)  # type: ignore[arg-type]


def rot(view: RightOnTimeView | None = None, **kw: object) -> TableModel:
    """A Right on Time play-phase table model (seat 1 a computer)."""
    v = view or tv()
    base: dict[str, object] = dict(
        game=ROT, phase="play", view=v, seats=badges(v.seats, cpu=(1,)),
        last_event="Seat 3 laid J=5 and is out",
    )
    base.update(kw)
    return TableModel(**base)  # type: ignore[arg-type]


CONDITIONS: dict[str, str | None] = {
    "higher": ">",
    "lower": "<",
    "same_number": "=",
    "same_symbol": "~",
    "even": "E",
    "odd": "O",
    "one_of": "{2,5,8}",
    "open": None,
}


def render(model: TableModel, now: int = T0, size: tuple[int, int] = FULL) -> pygame.Surface:
    """A fresh scene's first frame of ``model`` at ``now`` on a ``size`` surface."""
    scene = TableScene()
    scene.set_model(model, now)
    surface = pygame.Surface(size)
    scene.draw(surface, now)
    return surface


def crop(surface: pygame.Surface, rect: pygame.Rect) -> bytes:
    """The RGB bytes of ``rect`` of ``surface``."""
    return pygame.image.tobytes(surface.subsurface(rect), "RGB")


def colours(surface: pygame.Surface, rect: pygame.Rect) -> set[tuple[int, int, int]]:
    """The distinct colours in ``rect`` of ``surface``."""
    data = pygame.image.tobytes(surface.subsurface(rect), "RGBX")
    found = set()
    for word in set(memoryview(data).cast("I")):
        b = word.to_bytes(4, "little")
        found.add((b[0], b[1], b[2]))
    return found


def not_blank(surface: pygame.Surface, rect: pygame.Rect) -> bool:
    """``rect`` holds a picture: >= 2% of it differs from its corner colour, in many colours."""
    part = surface.subsurface(rect)
    same = pygame.mask.from_threshold(part, part.get_at((0, 0)), (6, 6, 6, 255)).count()
    return same < 0.98 * rect.width * rect.height and len(colours(surface, rect)) > 20


def save(surface: pygame.Surface, tmp_path: Path, name: str) -> Path:
    """Save ``surface`` as tmp_path/name.png (to look at when a test fails)."""
    path = tmp_path / f"{name}.png"
    pygame.image.save(surface, str(path))
    return path


@pytest.fixture(scope="module", autouse=True)
def _pygame_fonts() -> object:
    pygame.font.init()
    yield None


# --------------------------------------------------------------------------- icons, palette


def test_symbols_differ_in_shape() -> None:
    """The five symbols drawn in one colour have clearly different alpha masks (shape first)."""
    masks = {}
    for sym, symbol in RIIING_SYMBOLS.items():
        image = icons.stamp(symbol.shape, 120, (255, 255, 255))
        masks[sym] = pygame.mask.from_surface(image, 127)
        assert masks[sym].count() > 120 * 120 // 10, sym
    for a, b in itertools.combinations(RIIING_SYMBOLS, 2):
        ma, mb = masks[a], masks[b]
        both = ma.overlap_area(mb, (0, 0))
        union = ma.count() + mb.count() - both
        assert (union - both) / union > 0.3, f"{a} and {b} have too similar shapes"


def test_draw_symbol_centres_in_rect_and_rejects_unknown() -> None:
    """draw_shape paints only inside its rect; an unknown name is a ValueError naming it."""
    surface = pygame.Surface((300, 200), pygame.SRCALPHA)
    icons.draw_shape(surface, RIIING_SYMBOLS["T"].shape, pygame.Rect(100, 50, 100, 100),
                     (230, 159, 0))
    bounds = surface.get_bounding_rect()
    assert pygame.Rect(100, 50, 100, 100).contains(bounds) and bounds.width > 60
    with pytest.raises(ValueError, match="'X'"):
        icons.draw_shape(surface, "X", pygame.Rect(0, 0, 10, 10), (0, 0, 0))
    with pytest.raises(ValueError, match="glyph"):
        icons.draw_glyph(surface, "banana", pygame.Rect(0, 0, 10, 10), (0, 0, 0))


def test_palette_is_distinct_and_seat_colours_read_on_the_table() -> None:
    """Six distinct seat colours, each >= 3:1 against the table; symbol colours distinct."""
    assert len(set(SEAT_COLOURS)) == 6
    assert all(contrast_ratio(c, BACKGROUND) >= 3.0 for c in SEAT_COLOURS)
    assert len(set(SYMBOL_COLOURS.values())) == len(SYMBOL_COLOURS) == 5
    assert relative_luminance((255, 255, 255)) == pytest.approx(1.0)


# --------------------------------------------------------------------------- words


@pytest.mark.parametrize(
    ("cond", "last", "headline", "sub"),
    [
        (">", "6T/<", "HIGHER than 6", ""),
        ("<", "6T/<", "LOWER than 6", ""),
        ("=", "6T/<", "SAME NUMBER 6", ""),
        ("~", "6T/<", "SAME SYMBOL", "TOAST"),
        ("E", "6T/<", "EVEN", "2  4  6  8"),
        ("O", "6T/<", "ODD", "1  3  5  7  9"),
        ("{2,5,8}", "6T/<", "ONE OF 2 5 8", ""),
        (None, "6T/<", "OPEN: any card", "the draw pile is empty"),
        (">", "!A/E", "HIGHER: open", "last card has no number: any number"),
        ("~", "P/O", "SAME SYMBOL: open", "last card is a Phone"),
    ],
)
def test_condition_words(cond: str | None, last: str, headline: str, sub: str) -> None:
    """Each condition is named in words against the last card (RI-3.2, RI-3.4, RI-3.5)."""
    spec = riiing_condition(rv(condition=cond, last_card=last))
    assert (spec.headline, spec.sub) == (headline, sub)


def test_demand_and_phone_chain_take_the_condition_zone() -> None:
    """A pending demand / phone chain is what decides (RI-5.3/5.4): it takes the zone."""
    demand = riiing_condition(rv(condition="E", demand="T", last_card="!T/E"))
    assert (demand.headline, demand.symbol, demand.sub) == ("TOAST!", "T", "EVEN on hold")
    phones = riiing_condition(rv(condition="{2,5,8}", phones=2, last_card="P/E"))
    assert (phones.headline, phones.symbol) == ("PHONE x2", "P")
    assert phones.sub == "ONE OF 2 5 8 on hold"


@pytest.mark.parametrize(
    ("top", "value", "big", "headline"),
    [
        ("7", 7, "7", "TOP VALUE"),
        ("J5", 5, "5", "Joker as 5"),
        ("N", 0, "0", "NULL = 0"),
        ("D3", 3, "3", "Du bist! 3"),
        ("Z5", 5, "5", "Ziehen! 5"),
    ],
)
def test_rot_top_value_words(top: str, value: int, big: str, headline: str) -> None:
    """Right on Time shows the top card's value huge and names it (RT-1.3)."""
    spec = rot_value(tv(top=top, top_value=value), "Seat 4")
    assert (spec.big, spec.headline) == (big, headline)


def test_rot_opening_lay_words() -> None:
    """Before the round's opening lay the zone says any card may open (RT-2.2)."""
    spec = rot_value(tv(top=None, top_value=None, round=3), "Seat 1")
    assert " ".join(spec.headline.split()) == "Opening lay: any card"
    assert spec.sub == "Seat 1 opens round 3"


def test_card_code_reading_never_raises() -> None:
    """Cards are read for display by the engine's card types; junk reads as None."""
    seven = riiing_card("7C/>")
    assert seven is not None and (seven.number, seven.symbol, seven.front) == (7, "C", "7C")
    demand, phone = riiing_card("!T/E"), riiing_card("P/O")
    assert demand is not None and demand.kind == "demand" and demand.symbol == "T"
    assert phone is not None and phone.kind == "phone"
    assert riiing_card("0Q/?") is None and riiing_card("7C") is None
    joker, bare, null = rot_card("J4"), rot_card("J"), rot_card("N")
    assert joker is not None and joker.value == 4 and bare is not None and bare.value is None
    assert null is not None and null.value == 0 and rot_card("D9") is None


# --------------------------------------------------------------------------- pixels


def test_condition_zone_differs_per_condition(tmp_path: Path) -> None:
    """Every condition kind paints a non-blank condition zone, each one different."""
    seen: dict[bytes, str] = {}
    scene = TableScene()
    surface = pygame.Surface(FULL)
    for i, (name, cond) in enumerate(CONDITIONS.items()):
        scene.set_model(riiing(rv(condition=cond)), T0 + i * S)
        scene.draw(surface, T0 + i * S)
        save(surface, tmp_path, f"riiing_{name}")
        assert not_blank(surface, COND), name
        data = crop(surface, COND)
        assert data not in seen, f"{name} looks like {seen.get(data)}"
        seen[data] = name


def test_last_card_is_large_with_a_200px_number(tmp_path: Path) -> None:
    """The last card is >= 360 px tall and its number's ink is >= 200 px tall."""
    surface = render(riiing(rv(last_card="8C/E")))
    save(surface, tmp_path, "last_card")
    assert not_blank(surface, CARD)
    card = pygame.Rect(0, 0, round(CardSpec.CARD_H * 0.7), CardSpec.CARD_H)
    card.midtop = (CARD.centerx, CARD.y + 10)
    assert card.height >= 360
    top = card.inflate(-40, 0)
    top.height = round(card.height * 0.55)
    dark = pygame.mask.from_threshold(surface.subsurface(top), (18, 18, 22), (40, 40, 40, 255))
    rects = dark.get_bounding_rects()
    assert rects and max(r.height for r in rects) >= 200


def test_cards_differ_between_last_cards() -> None:
    """Different last cards paint different card zones (number and symbol both show)."""
    a = crop(render(riiing(rv(last_card="8C/E"))), CARD)
    b = crop(render(riiing(rv(last_card="8S/E"))), CARD)
    c = crop(render(riiing(rv(last_card="3C/E"))), CARD)
    assert len({a, b, c}) == 3


def test_window_flashes_and_counts_down(tmp_path: Path) -> None:
    """An open RIIING! window flashes, shows the reverse's symbol and a countdown."""
    scene = TableScene()
    surface = pygame.Surface(FULL)
    model = riiing(rv(condition="*C", window="C"), deadline_ns=T0 + 8 * S)
    scene.set_model(model, T0)
    scene.draw(surface, T0)
    save(surface, tmp_path, "window_flash_on")
    on = crop(surface, COND)
    assert not_blank(surface, COUNT)
    scene.draw(surface, T0 + anim.FLASH_PERIOD_NS)
    save(surface, tmp_path, "window_flash_off")
    assert crop(surface, COND) != on
    yellow = pygame.mask.from_threshold(
        surface.subsurface(COND), (240, 228, 66), (12, 12, 12, 255)
    ).count()
    assert yellow > COND.width * COND.height // 3
    coffee = pygame.mask.from_threshold(
        surface.subsurface(COND), SYMBOL_COLOURS["C"], (8, 8, 8, 255)
    ).count()
    assert coffee > 10_000


def test_countdown_tick_redraws_only_the_countdown() -> None:
    """Once the flash and pulse have ended, a countdown step redraws only its strip."""
    scene = TableScene()
    surface = pygame.Surface(FULL)
    scene.set_model(riiing(rv(condition="*C", window="C"), deadline_ns=T0 + 8 * S), T0)
    scene.draw(surface, T0)
    t = T0 + 3 * S
    scene.draw(surface, t)
    nxt = scene.next_frame_ns(t)
    assert nxt == t + anim.COUNTDOWN_STEP_NS
    assert scene.draw(surface, nxt) == [COUNT]
    assert scene.draw(surface, nxt) == []


def test_countdown_ends_then_still() -> None:
    """At the window's deadline the countdown stops asking for frames."""
    scene = TableScene()
    surface = pygame.Surface(FULL)
    scene.set_model(riiing(rv(condition="*C", window="C"), deadline_ns=T0 + 2 * S), T0)
    scene.draw(surface, T0)
    assert scene.next_frame_ns(T0 + 2 * S - 1) == T0 + 2 * S
    scene.draw(surface, T0 + 2 * S)
    assert scene.next_frame_ns(T0 + 2 * S) is None


def test_demand_phone_and_slap_fill_the_pile_zone(tmp_path: Path) -> None:
    """Demand, phone chain and slap result each show in the pile zone, differently."""
    plain = render(riiing())
    demand = render(riiing(rv(last_card="!T/E", condition="E", demand="T")))
    phones = render(riiing(rv(last_card="P/E", condition="E", phones=2)))
    slap = render(riiing(rv(last_card="4A/*S", to_move=0), slap=(3, 231)))
    for name, s in (("demand", demand), ("phones", phones), ("slap", slap)):
        save(s, tmp_path, name)
    message = pygame.Rect(PILE.x + 410, PILE.y, PILE.width - 410, PILE.height)
    assert len(colours(plain, message)) == 1
    crops = {crop(s, message) for s in (demand, phones, slap)}
    assert len(crops) == 3 and all(not_blank(s, message) for s in (demand, phones, slap))


def test_game_over_lobby_and_wakeup_render(tmp_path: Path) -> None:
    """Game over, lobby and wake-up screens all paint their centre."""
    over = render(
        riiing(rv(winner=1, to_move=None), phase="gameover", results=("Seat 4: 231 ms",))
    )
    lobby = TableModel(
        RIIING, Phase.LOBBY, None, badges(4),
        lobby=LobbyModel((("Game", "Riiing!"), ("Seat 1", "human"), ("START", "")), 1, "hint"),
    )
    wake = TableModel(RIIING, Phase.WAKEUP, None, badges(4), deadline_ns=T0 + 10 * S)
    headline = pygame.Rect(340, 360, 1240, 170)
    over_surface, wake_surface = over, render(wake)
    for name, surface in (("gameover", over_surface), ("wakeup", wake_surface)):
        save(surface, tmp_path, name)
    assert near_any(colours(over_surface, headline), SEAT_COLOURS[1])  # "Seat 2 WINS!"
    disc = pygame.Rect(340 + 620 - 120, 120 + 190 - 120, 240, 240)
    assert near_any(colours(wake_surface, disc), SYMBOL_COLOURS["A"])  # the alarm clock
    call = pygame.Rect(340, 120 + 560 - 50, 1240, 100)
    assert near_any(colours(wake_surface, call), YELLOW)  # "SLAP your button!"
    lobby_surface = render(lobby)
    cursor_row = pygame.Rect(400, 120 + 20 + 100 + 20, 200, 40)
    assert (240, 228, 66) in colours(lobby_surface, cursor_row)


def near_any(found: set[tuple[int, int, int]], want: tuple[int, int, int]) -> bool:
    """Some colour of ``found`` is :func:`near` ``want``."""
    return any(near(c, want) for c in found)


def near(c: tuple[int, ...] | pygame.Color, want: tuple[int, int, int], tol: int = 24) -> bool:
    """Colour ``c`` is within ``tol`` of ``want`` in every channel."""
    return all(abs(a - b) <= tol for a, b in zip(c[:3], want, strict=True))


@pytest.mark.parametrize("seat", range(6))
def test_winner_ring_stays_clear_of_the_badge_border(seat: int, tmp_path: Path) -> None:
    """The winner's yellow ring shows around the seat disc, and between the panel's border
    and the ring there are at least 3 px of plain panel above and left of the disc (it
    once spilled over the border)."""
    surface = pygame.Surface((400, 400))
    surface.fill(BACKGROUND)
    text = Typesetter()
    spec = SeatSpec(str(seat + 1), f"Seat {seat + 1}", SEAT_COLOURS[seat], 0, False, None,
                    "left", None, (("WINNER", YELLOW, (0, 0, 0)),), False, True)
    zone = pygame.Rect(20, 20, 330, 310)
    spec.paint(Paint(surface, text, CardPainter(text)), zone)
    save(surface, tmp_path, f"winner_{seat}")
    panel = spec.panel_rect(zone)
    cx, cy = SeatSpec.disc_centre(panel)
    above = [surface.get_at((cx, y)) for y in range(panel.top + 5, cy)]
    left = [surface.get_at((x, cy)) for x in range(panel.left + 5, cx)]
    for ray in (above, left):
        assert all(near(c, PANEL) for c in ray[:3]), ray[:6]
        assert any(near(c, YELLOW) for c in ray), "no winner ring"


def test_game_over_says_how_to_start_a_new_game(tmp_path: Path) -> None:
    """Game over (both games, with or without a winner) shows "Press SELECT on any handheld
    for a new game" uncut at >= 48 px in a bar at the bottom of the centre."""
    models = [
        riiing(rv(winner=1, to_move=None), phase="gameover", results=("x",) * 12),
        rot(tv(winner=0, to_move=None), phase="gameover"),
        TableModel(RIIING, Phase.GAMEOVER, None, badges(3)),
    ]
    text = Typesetter()
    bar = pygame.Rect(CENTRE.x, CENTRE.bottom - ResultSpec.HINT_H - 10, CENTRE.width,
                      ResultSpec.HINT_H)
    size = text.fit_size(NEW_GAME_HINT, 60, bar.width - 60, 48)
    assert size >= 48 and text.width(NEW_GAME_HINT, size) <= bar.width - 60
    for i, model in enumerate(models):
        scene = TableScene()
        scene.set_model(model, T0)
        spec = scene._zones(T0)[0]["result"][1]
        assert isinstance(spec, ResultSpec) and spec.hint == NEW_GAME_HINT
        surface = pygame.Surface(FULL)
        scene.draw(surface, T0)
        save(surface, tmp_path, f"gameover_{i}")
        ink = pygame.mask.from_threshold(surface.subsurface(bar), YELLOW, (16, 16, 16, 255))
        rects = ink.get_bounding_rects()
        assert ink.count() > 5000 and rects[0].unionall(rects).width > 900
    assert NEW_GAME_HINT == "Press SELECT on any handheld for a new game"


def test_open_window_top_strip_says_slap_now() -> None:
    """During an open RIIING! window the turn is suspended (RI-6.2): the top strip's right
    side says SLAP NOW!, not whose turn it is; outside a window its turn plate names the
    mover in the mover's colour."""
    scene = TableScene()
    scene.set_model(riiing(rv(condition="*C", window="C", to_move=0),
                           deadline_ns=T0 + 8 * S), T0)
    top = scene._zones(T0)[0]["top"][1]
    assert isinstance(top, TopSpec)
    assert top.right == "SLAP NOW!" and top.right_colour == YELLOW and top.turn == ""
    scene.set_model(riiing(rv(to_move=0)), T0 + S)
    top = scene._zones(T0 + S)[0]["top"][1]
    assert isinstance(top, TopSpec) and top.right == ""
    assert (top.turn, top.turn_colour) == ("Seat 1 to play", SEAT_COLOURS[0])


def spy_lines(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Record every ``(text, px)`` line a Typesetter renders from now on."""
    seen: list[tuple[str, int]] = []
    real = Typesetter.render

    def render(self: Typesetter, text: str, px: int, colour: tuple[int, int, int]) -> object:
        seen.append((text, px))
        return real(self, text, px, colour)

    monkeypatch.setattr(Typesetter, "render", render)
    return seen


LONG_EVENTS = (
    "Seat 1 cannot lay: shows 2, draws 1 card",
    "Seat 3 swapped in a bonus card",
    "Seat 1 laid Joker as 3 + Ziehen! 3 · Ziehen! Seat 2 draws a card",
    "Seat 2 laid 5 + Du bist! 2 · Seat 2 is out, wins round 1! · 3 points to win",
    "Seat 6 cannot lay: shows Ziehen! 1, draws 1 card",
)


@pytest.mark.parametrize("event", LONG_EVENTS)
@pytest.mark.parametrize("seats", [4, 6])
def test_long_top_strip_events_shrink_and_wrap_before_any_cut(
    event: str, seats: int, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A long last event in the top strip is drawn whole at >= 48 px (docs/screens.md), on one
    line or two, beside the title, the round and the turn plate; nothing there is cut with
    "..."."""
    view = tv(seats=seats, hand_counts=(5,) * seats, bonus_counts=(0,) * seats,
              shown=((),) * seats, scores=(1,) * seats)
    model = rot(view, last_event=event)
    save(render(model), tmp_path, "frame")
    scene = TableScene()
    scene.set_model(model, T0)
    spec = scene._zones(T0)[0]["top"][1]
    assert isinstance(spec, TopSpec) and spec.event == event
    seen = spy_lines(monkeypatch)
    surface = pygame.Surface(TOP.size)
    text = Typesetter()
    spec.paint(Paint(surface, text, CardPainter(text)), TOP)
    drawn = [(t, px) for t, px in seen if t not in (spec.title, spec.right, spec.turn)]
    words = " ".join(t for t, _ in drawn).split()
    assert [w for w in words if w != "·"] == [w for w in event.split() if w != "·"], drawn
    assert all(px >= TopSpec.EVENT_MIN for _, px in drawn), drawn
    assert not any(t.endswith("...") for t, _ in seen), seen


def test_a_top_strip_event_past_two_lines_is_cut_at_48_px(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only an event longer than two 48 px lines is cut, and then with "..."."""
    seen = spy_lines(monkeypatch)
    render(rot(last_event=" ".join(["Seat 3 swapped in a bonus card"] * 6)))
    cut = [(t, px) for t, px in seen if t.endswith("...")]
    assert len(cut) == 1 and cut[0][1] == TopSpec.EVENT_MIN


def test_demand_banner_second_line_is_short_and_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pending ALARM CLOCK demand says "Seat 1: ALARM!" / "play ALARM or draw" in the
    pile zone, neither cut with "..."."""
    seen = spy_lines(monkeypatch)
    render(riiing(rv(last_card="!A/E", condition="E", demand="A", to_move=0)))
    texts = [t for t, _ in seen]
    assert "Seat 1: ALARM!" in texts and "play ALARM or draw" in texts
    assert not any(t.endswith("...") for t in texts), texts


def test_several_notices_take_turns_on_the_banner_each_whole(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three notices that would not fit one strip are shown one at a time, each whole with
    its place ("(2/3)"), in turn every TURN_NS on the clock; the scene asks for a frame at
    each turn, and none once a single notice is left."""
    from device.common.notices import SEPARATOR, TURN_NS
    from device.render.zones import BannerSpec
    notes = ["Seat 1 I2C errors: check wiring, try 100 kHz",
             "Seat 2 I2C errors: check wiring, try 100 kHz",
             "Seat 3 handheld unplugged: plug it back in."]
    painted: list[str] = []
    real = BannerSpec.paint

    def paint(self: BannerSpec, ctx: Paint, rect: pygame.Rect) -> None:
        painted.append(self.text)
        real(self, ctx, rect)

    monkeypatch.setattr(BannerSpec, "paint", paint)
    scene = TableScene()
    surface = pygame.Surface(FULL)
    t = (T0 // TURN_NS) * TURN_NS
    lobby = TableModel(RIIING, Phase.LOBBY, None, badges(3), lobby=LobbyModel((), 0, ""))
    scene.set_model(replace(lobby, banner=SEPARATOR.join(notes)), t)
    for turn in range(4):
        painted.clear()
        now = t + turn * TURN_NS
        scene.draw(surface, now)
        assert scene.next_frame_ns(now) == now + TURN_NS
        i = (now // TURN_NS) % 3
        assert painted == [f"{notes[i]} ({i + 1}/3)"]
    scene.set_model(replace(lobby, banner=notes[0]), t)
    painted.clear()
    scene.draw(surface, t + 5 * TURN_NS)
    assert painted == [notes[0]] and scene.next_frame_ns(t + 5 * TURN_NS) is None


def test_wakeup_rings_until_its_deadline() -> None:
    """The wake-up race animates with its countdown and is still after the deadline."""
    scene = TableScene()
    surface = pygame.Surface(FULL)
    scene.set_model(TableModel(RIIING, Phase.WAKEUP, None, badges(3), deadline_ns=T0 + S), T0)
    scene.draw(surface, T0)
    assert scene.next_frame_ns(T0) == T0 + anim.COUNTDOWN_STEP_NS
    assert scene.draw(surface, T0 + anim.COUNTDOWN_STEP_NS) != []
    scene.draw(surface, T0 + S)
    assert scene.next_frame_ns(T0 + S) is None


@pytest.mark.parametrize(
    "view",
    [
        tv(),
        tv(top="N", top_value=0, out=()),
        tv(top=None, top_value=None, out=(), round=3),
        tv(top="7", top_value=7, shown=((), ("4",), (), ())),
        tv(winner=0, to_move=None, scores=(3, 1, 2, 0), out=(2, 0)),
    ],
    ids=["joker", "null", "opening", "shown", "match_over"],
)
def test_rot_states_render(view: RightOnTimeView, tmp_path: Path) -> None:
    """Right on Time play, opening lay and match over render with value, out list, points."""
    phase = "gameover" if view.winner is not None else "play"
    surface = render(rot(view, phase=phase, results=("Seat 1 wins 3:2",) if view.winner else ()))
    save(surface, tmp_path, f"rot_{phase}_{view.top}")
    if phase == "play":  # the value zone is exactly the value spec of this view
        expected = pygame.Surface(FULL)
        expected.fill(BACKGROUND)
        text = Typesetter()
        rot_value(view, "Seat 4").paint(Paint(expected, text, CardPainter(text)), COND)
        assert crop(surface, COND) == crop(expected, COND)
    else:  # the winner's headline in the winner's colour
        assert near_any(colours(surface, pygame.Rect(340, 360, 1240, 170)), SEAT_COLOURS[0])
    for seat, (rect, _inner) in enumerate(seat_zones(view.seats)):
        disc = SeatSpec.disc_centre(SeatSpec("", "", (0, 0, 0), None, False, None, _inner,
                                             None, (), False, False).panel_rect(rect))
        assert near(surface.get_at((disc[0] - 30, disc[1]))[:3], SEAT_COLOURS[seat]), seat


def test_rot_out_list_and_points_show() -> None:
    """Seats out (in order) appear in the pile zone; victory points draw on the badges."""
    none_out = render(rot(tv(out=())))
    one_out = render(rot(tv(out=(2,))))
    message = pygame.Rect(PILE.x + 410, PILE.y, PILE.width - 410, PILE.height)
    assert len(colours(none_out, message)) == 1 and not_blank(one_out, message)
    low = render(rot(tv(scores=(0, 0, 0, 0))))
    high = render(rot(tv(scores=(2, 0, 0, 0))))
    seat0 = seat_zones(4)[0][0]
    assert crop(low, seat0) != crop(high, seat0)


# --------------------------------------------------------------------------- motion, dirty


def test_still_after_animations_and_no_redraw_without_change() -> None:
    """Right after a change frames are due; once the 2 s pulse ends: None and no dirty rects."""
    scene = TableScene()
    surface = pygame.Surface(FULL)
    scene.set_model(riiing(), T0)
    assert scene.draw(surface, T0) == [surface.get_rect()]
    assert scene.next_frame_ns(T0) is not None
    late = T0 + anim.PULSE_NS
    scene.draw(surface, late)
    assert scene.next_frame_ns(late) is None
    assert scene.draw(surface, late) == []
    scene.set_model(riiing(), late + S)
    assert scene.draw(surface, late + S) == []
    assert scene.next_frame_ns(late + S) is None


def test_turn_pulse_lasts_two_seconds_then_marker_stays() -> None:
    """The turn marker pulses for 2 s after the turn changes, then is still but shown."""
    scene = TableScene()
    surface = pygame.Surface(FULL)
    scene.set_model(riiing(), T0)
    scene.draw(surface, T0 + 3 * S)
    scene.set_model(riiing(rv(to_move=3)), T0 + 3 * S)
    t = T0 + 3 * S
    assert scene.next_frame_ns(t) == t + anim.PULSE_FRAME_NS
    seat3 = seat_zones(4)[3][0]
    frames = set()
    for k in range(0, 20, 4):
        scene.draw(surface, t + k * anim.PULSE_FRAME_NS)
        frames.add(crop(surface, seat3))
    assert len(frames) > 2
    scene.draw(surface, t + anim.PULSE_NS)
    assert scene.next_frame_ns(t + anim.PULSE_NS) is None
    still = crop(surface, seat3)
    assert (255, 255, 255) in colours(surface, seat3)
    later = TableScene()
    later.set_model(riiing(rv(to_move=3)), t)
    settled = pygame.Surface(FULL)
    later.draw(settled, t + 10 * S)
    assert still == crop(settled, seat3)
    assert crop(settled, seat3) != crop(render(riiing(rv(to_move=2)), t), seat3)


def test_laid_card_slides_onto_the_pile() -> None:
    """A new last card slides in over the old one, then rests; frames stop after it."""
    scene = TableScene()
    surface = pygame.Surface(FULL)
    scene.set_model(riiing(), T0)
    scene.draw(surface, T0 + 3 * S)
    t = T0 + 3 * S
    laid = riiing(rv(hand_counts=(7, 5, 5, 3), to_move=3, last_card="8C/E", condition="E"))
    scene.set_model(laid, t)
    assert CARD in scene.draw(surface, t)
    start = crop(surface, CARD)
    mid = scene.next_frame_ns(t)
    assert mid is not None and mid - t <= anim.FRAME_NS
    scene.draw(surface, t + anim.SLIDE_NS // 2)
    middle = crop(surface, CARD)
    scene.draw(surface, t + anim.SLIDE_NS)
    rest = crop(surface, CARD)
    assert len({start, middle, rest}) == 3
    assert rest == crop(render(laid, t + 10 * S), CARD)


def slide_frame(laid: TableModel, at: int) -> tuple[TableScene, pygame.Surface, CardSpec]:
    """A scene that showed ``riiing()`` (settled), then ``laid`` from ``T0 + 3 s``, drawn
    incrementally at ``T0 + 3 s + at``; with the card spec of that moment."""
    scene = TableScene()
    surface = pygame.Surface(FULL)
    scene.set_model(riiing(), T0)
    scene.draw(surface, T0 + 3 * S)
    t = T0 + 3 * S
    scene.set_model(laid, t)
    scene.draw(surface, t + at)
    spec = scene._zones(t + at)[0]["card"][1]
    assert isinstance(spec, CardSpec)
    return scene, surface, spec


@pytest.mark.parametrize(
    ("counts", "over"),
    [((7, 5, 5, 3), COND), ((7, 5, 7, 3), pygame.Rect(CARD.x, 650, CARD.width, 110))],
    ids=["from_the_right_over_the_condition", "from_the_pile_over_the_caption"],
)
def test_sliding_card_is_drawn_above_the_condition_and_caption(
    counts: tuple[int, ...], over: pygame.Rect, tmp_path: Path
) -> None:
    """The laid card sliding in is drawn whole above every zone it crosses: where it
    covers the condition panel (a right-column seat laid) or the LAST CARD caption (a
    card from the draw pile), the frame shows the card's face."""
    laid = riiing(rv(hand_counts=counts, to_move=3, last_card="8C/E", condition="E"))
    for at in (0, anim.SLIDE_NS // 4):
        _scene, surface, spec = slide_frame(laid, at)
        save(surface, tmp_path, f"slide_{at}")
        card = spec.rest_rect(CARD).move(spec.offset)
        assert spec.sliding and card.colliderect(over)
        face = riiing_card_face(CardPainter(Typesetter()), "8C/E", CardSpec.CARD_H)
        inner = card.inflate(-60, -60).clip(surface.get_rect())
        expected = pygame.Surface(inner.size)
        expected.blit(face, (card.x - inner.x, card.y - inner.y))
        assert crop(surface, inner) == crop(expected, expected.get_rect())


def test_after_a_slide_the_frame_equals_a_fresh_drawing() -> None:
    """Drawing every frame of slides from the right, the left and the pile leaves no trace
    of the moving card: the settled frame equals a fresh scene's drawing."""
    for counts in ((7, 5, 5, 3), (6, 5, 6, 3), (7, 5, 7, 3)):
        laid = riiing(rv(hand_counts=counts, to_move=3, last_card="8C/E", condition="E"))
        scene, surface, _spec = slide_frame(laid, 0)
        t = T0 + 3 * S
        now = t
        while (nxt := scene.next_frame_ns(now)) is not None and nxt <= t + 3 * S:
            now = nxt
            scene.draw(surface, now)
        scene.draw(surface, t + 3 * S)
        fresh = TableScene()
        fresh.set_model(laid, t)
        expected = pygame.Surface(FULL)
        fresh.draw(expected, t + 3 * S)
        assert crop(surface, surface.get_rect()) == crop(expected, expected.get_rect()), counts


def test_without_motion_every_frame_is_settled() -> None:
    """motion=False (headless PNGs): a change shows its settled picture at once, no frames."""
    scene = TableScene(motion=False)
    surface = pygame.Surface(FULL)
    scene.set_model(riiing(), T0)
    scene.draw(surface, T0)
    assert scene.next_frame_ns(T0) is None
    laid = riiing(rv(hand_counts=(7, 5, 5, 3), to_move=3, last_card="8C/E", condition="E"))
    scene.set_model(laid, T0 + S)
    scene.draw(surface, T0 + S)
    assert scene.next_frame_ns(T0 + S) is None
    assert crop(surface, CARD) == crop(render(laid, T0 + 10 * S), CARD)
    window = riiing(rv(condition="*C", window="C"), deadline_ns=T0 + 10 * S)
    scene.set_model(window, T0 + 2 * S)
    assert scene.next_frame_ns(T0 + 2 * S) == T0 + 2 * S + anim.COUNTDOWN_STEP_NS


def test_slide_comes_from_the_laying_seats_side() -> None:
    """The slide starts on the side of the seat whose hand shrank, else from the pile."""
    scene = TableScene()
    scene.set_model(riiing(), T0)
    # seat 0 (left column) lays
    scene.set_model(riiing(rv(hand_counts=(6, 5, 6, 3), last_card="8C/E")), T0 + S)
    assert scene.card_spec("8C/E", T0 + S, "").offset[0] < 0
    # seat 2 (right column) lays
    scene.set_model(riiing(rv(hand_counts=(6, 5, 5, 3), last_card="9C/E")), T0 + 2 * S)
    assert scene.card_spec("9C/E", T0 + 2 * S, "").offset[0] > 0
    # a phone chain's take turns a card from the draw pile
    scene.set_model(riiing(rv(hand_counts=(6, 5, 7, 3), last_card="2S/E")), T0 + 3 * S)
    assert scene.card_spec("2S/E", T0 + 3 * S, "").offset[1] > 0


def test_same_input_draws_the_same_pixels() -> None:
    """Drawing is a function of model and time: two scenes give identical frames."""
    model = riiing(rv(condition="*S", window="S"), deadline_ns=T0 + 5 * S)
    a = render(model, T0 + 400_000_000)
    b = render(model, T0 + 400_000_000)
    assert crop(a, a.get_rect()) == crop(b, b.get_rect())


# --------------------------------------------------------------------------- scaling


def test_scales_to_960x540_and_redraws_on_size_change() -> None:
    """The 16:9 frame fills a 960x540 surface; a new size gives a full redraw."""
    scene = TableScene()
    scene.set_model(riiing(), T0)
    big = pygame.Surface(FULL)
    scene.draw(big, T0)
    small = pygame.Surface((960, 540))
    assert scene.draw(small, T0) == [small.get_rect()]
    assert not_blank(small, Letterbox.fit((960, 540)).map_rect(COND))
    scene.set_model(riiing(rv(condition="<")), T0 + S)
    dirty = scene.draw(small, T0 + S)
    box = Letterbox.fit((960, 540))
    assert box.map_rect(COND) in dirty
    assert all(small.get_rect().contains(r) for r in dirty)


def test_letterbox_on_1280x800() -> None:
    """On 1280x800 the frame is 1280x720 with 40 px black bars above and below."""
    surface = render(riiing(), size=(1280, 800))
    box = Letterbox.fit((1280, 800))
    assert box.content == pygame.Rect(0, 40, 1280, 720)
    assert colours(surface, pygame.Rect(0, 0, 1280, 40)) == {(0, 0, 0)}
    assert colours(surface, pygame.Rect(0, 760, 1280, 40)) == {(0, 0, 0)}
    inside = surface.get_at((640, 757))  # logical (960, 1074): below the banner zone
    assert all(abs(a - b) <= 3 for a, b in zip(inside[:3], BACKGROUND, strict=True))
    assert not_blank(surface, box.map_rect(COND))


def test_quarter_size_keeps_condition_and_card_high_contrast(tmp_path: Path) -> None:
    """Scaled 1920->480x270 (a TV across the room), condition and card keep >= 7:1 contrast."""
    surface = render(riiing(), size=(480, 270))
    save(surface, tmp_path, "quarter")
    box = Letterbox.fit((480, 270))
    for zone in (COND, CARD):
        lum = sorted(relative_luminance(c) for c in colours(surface, box.map_rect(zone)))
        assert (lum[-1] + 0.05) / (lum[0] + 0.05) >= 7.0
    words = box.map_rect(pygame.Rect(COND.x, COND.y + 330, COND.width, 120))
    bright = pygame.mask.from_threshold(
        surface.subsurface(words), (240, 240, 240), (40, 40, 40, 255)
    )
    assert max(r.height for r in bright.get_bounding_rects()) >= 16


def test_scene_rejects_another_logical_size() -> None:
    """The logical frame is 1920x1080; other sizes are refused with a clear message."""
    with pytest.raises(ValueError, match="1920x1080"):
        TableScene((1280, 720))


# --------------------------------------------------------------------------- robustness


def test_odd_input_never_crashes(tmp_path: Path) -> None:
    """Unknown codes, phases, mismatched seats and odd lobby cursors still draw."""
    models = [
        riiing(rv(last_card="??", condition="#")),
        riiing(rv(condition="*Q", window="Q", demand="Z"), deadline_ns=T0 - S),
        riiing(rv(seats=4), seats=badges(2), slap=(9, 12)),
        rot(tv(top="X9", top_value=None), seats=badges(6)),
        TableModel(RIIING, "dancing", None, ()),  # type: ignore[arg-type]
        TableModel(RIIING, Phase.PLAY, None, badges(2)),
        TableModel(RIIING, Phase.LOBBY, None, (), lobby=LobbyModel((), 7, "")),
        TableModel(ROT, Phase.GAMEOVER, None, badges(3), results=("x",) * 40),
        riiing(seats=tuple(SeatBadge(i, "A very long player name indeed") for i in range(4))),
        replace(riiing(rv(hand_counts=(99, 0, 3, 1))), banner="x" * 300),
    ]
    for i, model in enumerate(models):
        surface = render(model, size=(960, 540))
        save(surface, tmp_path, f"odd_{i}")
        background = pygame.mask.from_threshold(surface, BACKGROUND, (6, 6, 6, 255)).count()
        assert background < 960 * 540 - 2000, f"model {i} drew nothing"


def test_six_seats_ring_fits_and_does_not_overlap() -> None:
    """Up to six seat zones sit inside the frame, clear of each other and of the centre."""
    for n in range(0, 7):
        zones = [r for r, _ in seat_zones(n)]
        assert len(zones) == n
        assert all(pygame.Rect(0, 110, 1920, 970).contains(r) for r in zones)
        assert not any(a.colliderect(b) for a, b in itertools.combinations(zones, 2))
        assert not any(r.colliderect(pygame.Rect(340, 120, 1240, 950)) for r in zones)


# --------------------------------------------------------------------------- helpers


def test_timeline_and_countdown_frames() -> None:
    """Timelines step in frames and settle; countdowns step toward the deadline then stop."""
    line = anim.Timeline(100, 50, 20)
    assert [line.frame(t) for t in (90, 100, 119, 120, 149, 150)] == [0, 0, 0, 1, 2, None]
    assert [line.next_ns(t) for t in (100, 145, 150)] == [120, 150, None]
    count = anim.Countdown(1_000, 100)
    assert count.steps_left(750) == 3 and count.next_ns(750) == 800
    assert count.next_ns(999) == 1_000 and count.next_ns(1_000) is None


def test_typesetter_fits_and_wraps() -> None:
    """Text shrinks to fit, then is cut with '...'; wrapping keeps to the line limit."""
    text = Typesetter()
    assert text.fit("HIGHER than 6", 104, (255, 255, 255), 5000).get_height() >= 90
    small = text.fit("HIGHER than 6", 104, (255, 255, 255), 300, 20)
    assert small.get_width() <= 300
    assert text.truncate("abcdefghijklmnopqrstuvwxyz", 50, 200).endswith("...")
    lines = text.wrap("one two three four five six seven", 50, 200, 2)
    assert len(lines) == 2 and all(text.width(line, 50) <= 200 for line in lines)


def test_card_painter_caches_and_sizes() -> None:
    """Card faces have the card aspect, are cached, and fans fit their box."""
    painter = CardPainter(Typesetter())
    face = riiing_card_face(painter, "7C/>", 400)
    assert face.get_size() == (280, 400) and riiing_card_face(painter, "7C/>", 400) is face
    assert rot_card_face(painter, "J4", 400).get_size() == (280, 400)
    assert painter.fan(12, 50).get_size() == (130, 72)
    assert CondSpec.ICON >= 240 and CondSpec.WORDS >= 90


def test_text_cache_stays_bounded_after_many_distinct_lines() -> None:
    """Rendering 1,500 distinct large lines (a long party's event texts) keeps the line
    cache within its byte and count budgets, and the latest line is still cached."""
    text = Typesetter()
    rng = random.Random(11)
    line = ("", 0)
    for i in range(1500):
        line = (f"Seat {rng.randint(1, 6)} played {i} cards", 56 + i % 60)
        text.render(*line, TEXT)
        assert text.cached_bytes <= CACHE_BYTES and text.cached_lines <= CACHE_LINES
    assert text.cached_bytes > CACHE_BYTES // 2  # the budget is used, not a tiny cache
    assert text.render(*line, TEXT) is text.render(*line, TEXT)


def test_surface_cache_drops_least_recently_used_by_bytes_and_count() -> None:
    """The surface cache drops the least recently used surfaces past its byte or count
    bound, keeps what was just used, and never keeps a surface over the byte budget."""
    one = surface_bytes(pygame.Surface((100, 100), 0, 32))
    cache = SurfaceCache(max_items=10, max_bytes=3 * one)
    for key in "abc":
        cache.put(key, pygame.Surface((100, 100), 0, 32))
    assert cache.get("a") is not None  # "a" is now the most recently used
    cache.put("d", pygame.Surface((100, 100), 0, 32))
    assert cache.get("b") is None and cache.get("a") is not None and len(cache) == 3
    assert cache.bytes == 3 * one
    huge = pygame.Surface((400, 400), 0, 32)
    assert cache.put("huge", huge) is huge and cache.get("huge") is None
    small = SurfaceCache(max_items=2, max_bytes=10 * one)
    for key in "xyz":
        small.put(key, pygame.Surface((10, 10), 0, 32))
    assert len(small) == 2 and small.get("x") is None


def test_card_faces_are_shared_across_backs_and_bounded() -> None:
    """A Riiing! face is cached by its front (the back does not change it), and drawing
    every card of both games at the table's size keeps the card cache within budget."""
    painter = CardPainter(Typesetter())
    assert riiing_card_face(painter, "7C/>", 520) is riiing_card_face(painter, "7C/E", 520)
    fronts = [f"{n}{s}" for n in range(1, 10) for s in "ASCT"] + ["!A", "!S", "!C", "!T", "P"]
    faces = [riiing_card_face(painter, f"{front}/{back}", CardSpec.CARD_H)
             for front in fronts for back in (">", "<", "E")]
    rot_codes = ("1", "7", "J", "J3", "N", "D2")
    faces += [rot_card_face(painter, code, CardSpec.CARD_H) for code in rot_codes]
    held = sum(surface_bytes(f) for f in {id(f): f for f in faces}.values())
    assert held > CARD_CACHE_BYTES  # more than the budget was drawn...
    assert painter.cached_bytes <= CARD_CACHE_BYTES  # ...but only the budget is kept


def test_after_a_slide_a_scaled_frame_keeps_no_trace() -> None:
    """On a scaled target (the simulator's 1322x744 part of its window) the end of a slide
    repaints the whole frame once, so no 1-px line of the card's border stays between the
    laying seat's badge and the pile (above Seat 1's badge, where it would show)."""
    size = (1322, 744)
    base = riiing()
    counts = list(rv().hand_counts)
    counts[0] -= 1  # seat 0 (left side) laid the card
    laid = riiing(rv(hand_counts=tuple(counts), to_move=1, last_card="8C/E", condition="E"))
    scene = TableScene()
    surface = pygame.Surface(size)
    scene.set_model(base, T0)
    scene.draw(surface, T0)
    t = T0 + 3 * S
    scene.set_model(laid, t)
    now, full_repaints = t, 0
    while (nxt := scene.next_frame_ns(now)) is not None and nxt <= t + 3 * S:
        now = nxt
        if scene.draw(surface, now) == [surface.get_rect()]:
            full_repaints += 1
    assert full_repaints == 1
    fresh = TableScene()
    fresh.set_model(laid, now)
    expected = pygame.Surface(size)
    fresh.draw(expected, now)
    gap = pygame.Rect(215, 120, 40, 120)  # between Seat 1's badge and the pile
    worst = max(
        max(abs(a - b) for a, b in zip(surface.get_at((x, y)), expected.get_at((x, y)),
                                       strict=True))
        for x in range(gap.left, gap.right) for y in range(gap.top, gap.bottom)
    )
    assert worst <= 30  # smoothscale rounding (~16), never a card-border line (50+)
