"""The 128x64 hand screen renderer (device/hands/screen.py) on luma dummy devices: pixels
of the cursor, playable bars, header, pickers, prompt; frames sent only on change."""

from __future__ import annotations

import random
from collections.abc import Iterable
from pathlib import Path

import pytest
from luma.core.device import dummy  # type: ignore[import-untyped]
from PIL import Image
from view_builders import rview, tview

from device.games import get_plugin
from device.hands.composer import HandComposer, HandKey, HandScreenModel, Picker, Tile
from device.hands.screen import (
    BAR_Y0,
    BAR_Y1,
    GLYPHS,
    HEIGHT,
    PROMPT_TOP,
    RAISE,
    TILE_BOTTOM,
    TILE_PITCH,
    TILE_TOP,
    TILE_W,
    TILE_X0,
    WIDTH,
    HandScreen,
    fit,
    text_mask,
    text_width,
    word_gap,
)
from engine import get_game

L, R, S, B = HandKey.LEFT, HandKey.RIGHT, HandKey.SELECT, HandKey.BACK


class CountingDummy(dummy):  # type: ignore[misc]
    """A luma dummy device that counts the frames it was sent."""

    def __init__(self) -> None:
        super().__init__(width=128, height=64, mode="1")
        self.frames = 0

    def display(self, image: Image.Image) -> None:
        """Count the frame, then keep it as the dummy does."""
        self.frames += 1
        super().display(image)


def frame(model: HandScreenModel) -> Image.Image:
    """The 128x64 mode "1" image a dummy device shows for ``model``."""
    device = CountingDummy()
    assert HandScreen(device).render(model)
    image: Image.Image = device.image
    assert image.size == (WIDTH, HEIGHT) and image.mode == "1"
    return image


def lit(image: Image.Image, box: tuple[int, int, int, int]) -> float:
    """Share of lit pixels in ``box`` = (x0, y0, x1, y1), inclusive."""
    x0, y0, x1, y1 = box
    pixels = [image.getpixel((x, y)) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)]
    return sum(1 for p in pixels if p) / len(pixels)


def tile_inside(i: int) -> tuple[int, int, int, int]:
    """The inner area of visible tile ``i`` (not raised), away from its outline."""
    x = TILE_X0 + i * TILE_PITCH
    return (x + 2, TILE_TOP + 2, x + TILE_W - 3, TILE_BOTTOM - 2)


def bar(i: int) -> tuple[int, int, int, int]:
    """Where the playable bar of visible tile ``i`` goes."""
    x = TILE_X0 + i * TILE_PITCH
    return (x, BAR_Y0, x + TILE_W - 1, BAR_Y1)


def save(image: Image.Image, path: Path) -> None:
    """Save ``image`` scaled up 4x (NEAREST) for a person to look at."""
    image.convert("L").resize((WIDTH * 4, HEIGHT * 4), Image.Resampling.NEAREST).save(path)


RHAND = ("7C/>", "3S/E", "!T/~", "9A/<", "P/{2,5,8}", "8T/O", "2C/=")
RLEGAL = ("play 7C/>", "play 9A/<", "play 8T/O", "play !T/~", "play P/{2,5,8}")
ROT_HAND = ("J", "2", "6", "Z3")
ROT_LEGAL = (
    "play 6",
    "play J=5",
    "play J=6",
    "play J=7",
    "play 2 J=1",
    "play 2 J=2",
    "play 2 J=3",
    "play 2 J=4",
    "play J=1 2",
    "play J=2 2",
    "play J=3 2",
    "play J=4 2",
    "play Z3 2 @1",
    "play 2 Z3 @0",
    "play 2 Z3 @1",
    "play 2 Z3 @2",
)


def riiing_model(keys: Iterable[HandKey] = (R,)) -> HandScreenModel:
    """A Riiing! hand of seven with the cursor moved by ``keys``."""
    ui = get_plugin("riiing").hand(2)
    ui.show("play", rview(RHAND, RLEGAL))
    for k in keys:
        ui.key(k)
    return ui.screen()


def rot_ui(keys: Iterable[HandKey]) -> HandComposer:
    """The docs/notation.md worked example 3 hand (J 2 6 Z3 on a 4) after ``keys``."""
    ui = get_plugin("right-on-time").hand(0)
    ui.show("play", tview(ROT_HAND, ROT_LEGAL))
    for k in keys:
        ui.key(k)
    return ui


def test_cursor_card_is_inverted() -> None:
    """The cursor tile's inside is mostly lit; the other tiles' insides mostly dark."""
    model = riiing_model([R])
    assert model.cursor == 1
    image = frame(model)
    for i in range(len(model.tiles)):
        share = lit(image, tile_inside(i))
        assert (share > 0.6) if i == 1 else (share < 0.35), (i, share)


def test_playable_bar_only_under_playable_cards() -> None:
    """A bar is drawn under exactly the playable tiles."""
    model = riiing_model([])
    marks = [t.playable for t in model.tiles]
    assert marks == [True, False, True, True, True]
    image = frame(model)
    for i, playable in enumerate(marks):
        assert (lit(image, bar(i)) > 0.5) if playable else (lit(image, bar(i)) == 0), i


def test_header_shows_seat_turn_and_condition() -> None:
    """Rows 0-10 hold the inverted seat box, the inverted YOUR TURN and the condition at the
    right; row 11 stays blank."""
    image = frame(riiing_model([]))
    header = image.crop((0, 0, WIDTH, 11))
    assert header.getbbox() is not None
    assert lit(image, (0, 0, 9, 10)) > 0.5  # the seat box is inverted
    assert lit(image, (100, 0, WIDTH - 1, 10)) > 0.05  # "> 6" at the right
    assert lit(image, (0, 11, WIDTH - 1, 11)) == 0


def test_off_turn_header_is_not_inverted() -> None:
    """Off turn the whose-turn word is plain text, not an inverted box."""
    ui = get_plugin("riiing").hand(2)
    ui.show("play", rview(RHAND, [], to_move=0))
    image = frame(ui.screen())
    assert lit(image, (16, 0, 50, 10)) < 0.4
    on_turn = frame(riiing_model([]))
    assert lit(on_turn, (16, 0, 50, 10)) > 0.5


def test_scroll_arrows_follow_the_hidden_tiles() -> None:
    """A right arrow while tiles hide to the right; a left arrow once scrolled."""
    first = frame(riiing_model([]))
    assert lit(first, (WIDTH - 3, TILE_TOP, WIDTH - 1, TILE_BOTTOM)) > 0
    assert lit(first, (0, TILE_TOP, 2, TILE_BOTTOM)) == 0
    last = frame(riiing_model([R] * 6))  # the last tile (one more wraps to the first)
    assert lit(last, (0, TILE_TOP, 2, TILE_BOTTOM)) > 0
    assert lit(last, (WIDTH - 3, TILE_TOP, WIDTH - 1, TILE_BOTTOM)) == 0


def test_raised_card_is_lifted() -> None:
    """The first card of a pair is drawn RAISE px higher than the others."""
    ui = rot_ui([R, S])  # the 2 is raised
    model = ui.screen()
    assert [t.raised for t in model.tiles] == [False, True, False, False]
    image = frame(model)
    row = TILE_TOP - RAISE
    assert lit(image, (TILE_X0 + TILE_PITCH + 4, row, TILE_X0 + TILE_PITCH + 16, row)) == 1
    assert lit(image, (TILE_X0 + 2 * TILE_PITCH, row, TILE_X0 + 2 * TILE_PITCH + 21, row)) == 0


def test_joker_picker_takes_over_the_strip() -> None:
    """The Joker value picker draws large numbers in boxes, the highlighted one inverted,
    and no card strip (no playable bars)."""
    ui = rot_ui([S, R, S])  # J then 2: value picker 1-4
    picker = ui.screen().picker
    assert picker is not None and picker.options == ("1", "2", "3", "4")
    image = frame(ui.screen())
    boxes = [b for b in _boxes(image)]
    assert len(boxes) == 4
    shares = [lit(image, (x0 + 3, 28, x1 - 3, 48)) for x0, x1 in boxes]
    assert shares[0] > 0.6 and all(s < 0.4 for s in shares[1:])
    assert lit(image, (0, BAR_Y0 + 1, WIDTH - 1, BAR_Y1)) == 0


def _boxes(image: Image.Image) -> list[tuple[int, int]]:
    """Column ranges of the picker's boxes, read along row 25 (their top edges)."""
    spans: list[tuple[int, int]] = []
    start: int | None = None
    for x in range(WIDTH + 1):
        on = x < WIDTH and bool(image.getpixel((x, 25)))
        if on and start is None:
            start = x
        elif not on and start is not None:
            spans.append((start, x - 1))
            start = None
    return [s for s in spans if s[1] - s[0] >= 10]


def test_target_picker_numbers_seats_from_one() -> None:
    """After 2 then Z3 the target picker lists seats as people count them, ME last."""
    ui = rot_ui([R, S, R, R, S])
    picker = ui.screen().picker
    assert picker is not None
    assert picker.title == "WHO DRAWS A CARD?" and picker.options == ("2", "3", "ME")
    assert len(_boxes(frame(ui.screen()))) == 3


def test_alert_prompt_is_inverted() -> None:
    """A refusal is drawn as an inverted prompt line; an ordinary prompt is not."""
    refused = riiing_model([R, S])
    assert refused.alert and refused.prompt == "No: need higher than 6"
    assert lit(frame(refused), (0, PROMPT_TOP, WIDTH - 1, HEIGHT - 1)) > 0.6
    plain = riiing_model([R])
    assert lit(frame(plain), (0, PROMPT_TOP, WIDTH - 1, HEIGHT - 1)) < 0.3


def test_render_sends_a_frame_only_on_change() -> None:
    """render() returns False and sends nothing when the model is unchanged (also an equal
    new model); True and a new frame when it changed."""
    device = CountingDummy()
    screen = HandScreen(device)
    first = riiing_model([])
    assert screen.render(first) is True
    assert screen.render(first) is False
    assert screen.render(riiing_model([])) is False
    assert device.frames == 1
    before = device.image.tobytes()
    assert screen.render(riiing_model([R])) is True
    assert device.frames == 2
    assert device.image.tobytes() != before
    screen.invalidate()
    assert screen.render(riiing_model([R])) is True
    assert device.frames == 3


def test_equal_models_give_identical_frames() -> None:
    """Two devices given equal models show identical pixels."""
    assert frame(riiing_model([R, R])).tobytes() == frame(riiing_model([R, R])).tobytes()


def test_hand_screen_refuses_a_wrong_device() -> None:
    """A device that is not 128x64 mode "1" is refused with a line naming what it is."""
    with pytest.raises(ValueError, match="got 128x32 mode '1'"):
        HandScreen(dummy(width=128, height=32, mode="1"))


def test_glyphs_are_distinct_11x11_shapes() -> None:
    """Every symbol glyph is an 11x11 bitmap and no two are the same shape."""
    shapes = {name: "".join(rows) for name, rows in GLYPHS.items()}
    assert {"A", "S", "C", "T", "P"} <= set(shapes)
    for rows in GLYPHS.values():
        assert len(rows) == 11 and all(len(r) == 11 for r in rows)
    assert len(set(shapes.values())) == len(shapes)


def test_symbol_glyph_drawn_on_each_card() -> None:
    """Each Riiing! card tile shows its glyph: the glyph area is not blank."""
    model = HandScreenModel(
        "1",
        "YOUR TURN",
        "> 6",
        True,
        tiles=tuple(Tile("card", "5", sym) for sym in "ASCTP"),
        cursor=None,
    )
    image = frame(model)
    for i in range(5):
        x = TILE_X0 + i * TILE_PITCH
        assert lit(image, (x + 5, TILE_TOP + 21, x + 16, TILE_TOP + 31)) > 0.1, i


def lit_runs(image: Image.Image, x: int, y0: int, y1: int) -> int:
    """How many separate runs of lit pixels column ``x`` has between rows ``y0``-``y1``."""
    runs, before = 0, False
    for y in range(y0, y1 + 1):
        on = bool(image.getpixel((x, y)))
        runs += on and not before
        before = on
    return runs


def blank_gaps(image: Image.Image, y0: int, y1: int) -> list[int]:
    """Widths of the runs of fully blank columns between the first and last lit column of
    rows ``y0``-``y1``."""
    cols = [any(image.getpixel((x, y)) for y in range(y0, y1 + 1)) for x in range(image.width)]
    lit_cols = [x for x, on in enumerate(cols) if on]
    gaps, run = [], 0
    for on in cols[lit_cols[0] : lit_cols[-1] + 1]:
        if on and run:
            gaps.append(run)
        run = 0 if on else run + 1
    return gaps


@pytest.mark.parametrize("condition", ["RIIING!", "SOAP!", "COFFEE!", "ALARM!", "TOAST!"])
@pytest.mark.parametrize("turn", ["YOUR TURN", "SEAT 4", "SLAP!"])
def test_header_exclamation_keeps_its_dot_apart(condition: str, turn: str) -> None:
    """A "!" at the right end of the header is a stem and a dot with a blank row between,
    standing apart from the letter before it (not a bar reading "RIIINGI")."""
    image = frame(HandScreenModel("3", turn, condition, my_turn=turn == "YOUR TURN"))
    header = image.crop((0, 0, WIDTH, 11))
    right = header.getbbox()
    assert right is not None
    x = right[2] - 1
    assert lit_runs(image, x, 0, 10) == 2, f"{condition}: the '!' is a solid bar"
    left = x
    while lit_runs(image, left - 1, 0, 10):
        left -= 1
    assert x - left < 3, f"{condition}: the '!' runs into the letter before it"


@pytest.mark.parametrize("size", [10, 11, 12, 16, 18, 20])
def test_exclamation_mark_is_never_a_solid_bar(size: int) -> None:
    """At every font size in use the ink of "!" has a blank row between stem and dot."""
    mask = text_mask("!", size)
    rows = [any(mask.getpixel((x, y)) for x in range(mask.width)) for y in range(mask.height)]
    assert rows[0] and rows[-1] and not all(rows), size


@pytest.mark.parametrize("seat", [0, 3, 5])
def test_waiting_prompt_keeps_a_visible_space_after_the_digit(seat: int) -> None:
    """The waiting prompt "Seat N to play" shows three word gaps as wide as a space (not
    "Seat 4to play"), and letters inside a word stay closer than that."""
    ui = get_plugin("riiing").hand(2)
    ui.show("play", rview(RHAND, (), to_move=seat))
    model = ui.screen()
    assert model.prompt == f"Seat {seat + 1} to play"
    image = frame(model)
    gaps = blank_gaps(image, PROMPT_TOP, HEIGHT - 1)
    wide = [g for g in gaps if g >= word_gap(11)]
    assert len(wide) == 3, (model.prompt, gaps)
    assert max(g for g in gaps if g not in wide) < word_gap(11)


def test_long_text_is_cut_to_fit() -> None:
    """fit() shortens a prompt until it fits the line; short text is unchanged."""
    long = "This prompt is far too long for a small screen"
    cut = fit(long, 10, WIDTH - 4)
    assert long.startswith(cut) and len(cut) < len(long)
    assert text_width(cut, 10) <= WIDTH - 4
    assert fit("SEL play", 10, WIDTH - 4) == "SEL play"


def test_banner_phases_draw_big_text() -> None:
    """Lobby, wake-up and game over draw their banner lines centred in the strip (the first
    at 18 px, the others at 10 px) and the prompt from column 2."""
    for phase in ("lobby", "wakeup", "gameover"):
        ui = get_plugin("riiing").hand(0)
        ui.show(phase, None)
        model = ui.screen()
        image = frame(model)
        widths = [text_width(fit(line, size, WIDTH - 2), size)
                  for line, size in zip(model.banner, (18, 10, 10), strict=False)]
        box = image.crop((0, 12, WIDTH, 53)).getbbox()
        assert box is not None, phase
        assert box[2] - box[0] == max(widths), phase  # the widest line, whole
        assert abs((box[0] + box[2]) / 2 - WIDTH / 2) <= 1, phase  # centred
        prompt = image.crop((0, PROMPT_TOP, WIDTH, HEIGHT)).getbbox()
        assert prompt is not None and prompt[0] == 2, phase
        assert prompt[2] - prompt[0] == text_width(model.prompt, 11), phase


def test_pngs_for_people(tmp_path: Path) -> None:
    """HandKey screens render to 4x PNGs: a Riiing! hand, a pair being composed, the Joker value
    picker, the target picker."""
    shots = {
        "riiing_hand": riiing_model([R]),
        "rot_pair": rot_ui([R, S, L]).screen(),
        "rot_joker": rot_ui([S, R, S]).screen(),
        "rot_target": rot_ui([R, S, R, R, S]).screen(),
        "picker_model": HandScreenModel(
            "4", "YOUR TURN", "top 6", True, picker=Picker("JOKER =", ("7",), 0)
        ),
    }
    for name, model in shots.items():
        image = frame(model)
        save(image, tmp_path / f"{name}.png")
        with Image.open(tmp_path / f"{name}.png") as png:
            assert png.size == (WIDTH * 4, HEIGHT * 4)
            back = png.convert("L").resize((WIDTH, HEIGHT), Image.Resampling.NEAREST)
            assert back.tobytes() == image.convert("L").tobytes(), name  # every pixel, 4x


@pytest.mark.parametrize("game", ["riiing", "right-on-time"])
def test_prompts_fit_the_line_in_random_play(game: str) -> None:
    """Along a seeded random game, random key presses on every seat's handheld never make
    a prompt wider than the line or a header wider than the screen."""
    engine = get_game(game)
    rng = random.Random(7)
    pos = engine.new(4, 7)
    screens = 0
    for _ in range(60):
        if engine.outcome(pos) is not None:
            break
        for seat in range(4):
            ui = get_plugin(game).hand(seat)
            ui.show("play", engine.view(pos, seat))
            for _ in range(12):
                ui.key(rng.choice(list(HandKey)))
                model = ui.screen()
                assert text_width(model.prompt, 10) <= WIDTH - 4, model.prompt
                assert text_width(model.condition, 10) <= 60, model.condition
                screens += 1
        pos, _ = engine.apply(pos, rng.choice(engine.legal(pos)))
    assert screens > 100


@pytest.mark.parametrize("banner", [
    ("Lay Du bist! 5:", "Seat 3 goes next?", "then play on?"),
    ("Lay 7, then", "Ziehen! 3 on top:", "Seat 3 draws a card?"),
    ("Joyful gypsy?", "quickly jumping", "yoghurt gyre"),
])
def test_a_banner_stays_between_the_header_and_the_prompt(banner: tuple[str, ...]) -> None:
    """A three-line banner (the Right on Time confirmation, with descenders) is drawn in
    rows 12..52 only: nothing runs into the header (rows 0..10) or the prompt line (rows
    53..63), so "Seat 3 goes next?" never covers "SEL: yes BACK: no"."""
    empty = frame(HandScreenModel("", "", "", False, prompt=""))
    shown = frame(HandScreenModel("", "", "", False, banner=banner, prompt=""))
    for band in ((0, 0, WIDTH, 12), (0, 53, WIDTH, HEIGHT)):  # header, prompt line
        assert shown.crop(band).tobytes() == empty.crop(band).tobytes(), band
    assert lit(shown, (0, 12, WIDTH - 1, 52)) > 0.05
