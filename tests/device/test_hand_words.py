"""The hand composers speak words, not notation: what the 128x64 screen
shows, checked on the rendered frame (each expected line's ink is found in the frame, so
it is drawn whole, not cut), the cursor wrapping round, and the cursor starting on the only
legal choice; 4x PNGs of the screens are written for a person to look at."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from pathlib import Path

import pytest
from luma.core.device import dummy  # type: ignore[import-untyped]
from PIL import Image
from view_builders import rview, tview

from device.games import get_plugin
from device.hands.composer import HandComposer, HandKey, HandScreenModel
from device.hands.screen import HEIGHT, PROMPT_TOP, WIDTH, HandScreen, text_mask, text_width
from engine import get_game

L, R, S, B = HandKey.LEFT, HandKey.RIGHT, HandKey.SELECT, HandKey.BACK
ROT = get_game("right-on-time")

NOTATION = re.compile(r"J=|@\d|>\d|<=|/|\{|\bZ\d|\bD\d")
"""Action or card notation (docs/notation.md) that must not reach a prompt, a banner or
a picker title: ``J=2``, ``@1``, ``>2``, ``7C/>``, ``{2,5,8}``, ``Z3``, ``D5``."""


def rot_legal(hand: list[str], top: int | None, seats: int = 3, seat: int = 0) -> list[str]:
    """The engine's legal actions for ``seat`` holding ``hand`` on a top value ``top``
    (``None``: the opening lay); the other seats hold three 1s."""
    hands = [list(hand) if s == seat else ["1"] * 3 for s in range(seats)]
    discard = [] if top is None else [str(top)]
    draw = ["1"] * 5
    cards = [c for h in hands for c in h] + discard + draw
    pos = ROT.parse_position({
        "game": "right-on-time", "seats": seats, "options": {"deck": cards}, "hands": hands,
        "draw": draw, "discard": discard, "to_move": seat, "seed": 1, "round": 1,
        "scores": [0] * seats, "out": [], "bonus": [[] for _ in range(seats)], "winner": None,
    })
    return [str(a) for a in ROT.legal(pos)]


def keys(ui: HandComposer, presses: Iterable[HandKey]) -> list[str | None]:
    """Press ``presses`` in order; the text of what each returned (an engine action)."""
    out = [ui.key(k) for k in presses]
    assert not any(isinstance(a, str) for a in out), "a composer returned text"
    return [None if a is None else str(a) for a in out]


def frame(model: HandScreenModel) -> Image.Image:
    """The frame a luma dummy 128x64 device shows for ``model``."""
    device = dummy(width=WIDTH, height=HEIGHT, mode="1")
    assert HandScreen(device).render(model)
    image: Image.Image = device.image
    return image


def shows(image: Image.Image, text: str, size: int, rows: tuple[int, int]) -> bool:
    """True when the whole ink of ``text`` at font ``size`` appears in ``image``, pixel for
    pixel, with its top in ``rows`` (drawn lit on dark, or dark on lit when inverted)."""
    mask = text_mask(text, size)
    w, h = mask.size
    if w == 0 or w > WIDTH:
        return False
    ink = [(x, y) for y in range(h) for x in range(w) if mask.getpixel((x, y))]
    for top in range(rows[0], min(rows[1], HEIGHT - h) + 1):
        for left in range(0, WIDTH - w + 1):
            first = bool(image.getpixel((left + ink[0][0], top + ink[0][1])))
            if all(bool(image.getpixel((left + x, top + y))) == first for x, y in ink):
                return True
    return False


def look(image: Image.Image, path: Path) -> None:
    """Save ``image`` 4x (NEAREST) for a person to look at."""
    image.convert("L").resize((WIDTH * 4, HEIGHT * 4), Image.Resampling.NEAREST).save(path)


def assert_screen(model: HandScreenModel, path: Path) -> None:
    """The frame of ``model`` shows every banner line (18 px, then 10 px) and the prompt
    (11 px, or 10 px when wider than the line) whole; saved at 4x to ``path``."""
    image = frame(model)
    look(image, path)
    for i, line in enumerate(model.banner):
        assert shows(image, line, 18 if i == 0 else 10, (12, 52)), line
    size = 11 if text_width(model.prompt, 11) <= WIDTH - 4 else 10
    assert shows(image, model.prompt, size, (PROMPT_TOP, HEIGHT - 1)), model.prompt


def test_a_pair_with_a_joker_is_asked_in_words(tmp_path: Path) -> None:
    """7, then a Joker as 1 on a 7 is asked "Lay 7, then / Joker as 1
    on top?" with "SEL: yes  BACK: no", and SELECT sends play 7 J=1 (RT-3.2, RT-3.4)."""
    hand = ["7", "J", "3"]
    ui = get_plugin("right-on-time").hand(0)
    ui.show("play", tview(hand, rot_legal(hand, 7), top_value=7))
    keys(ui, [S, R, S])
    picker = ui.screen().picker
    assert picker is not None and picker.title == "JOKER COUNTS AS?"
    assert ui.screen().prompt == "Lay 7, then Joker on top"
    assert_screen(ui.screen(), tmp_path / "rot-joker-picker.png")
    keys(ui, [S])
    model = ui.screen()
    assert model.banner == ("Lay 7, then", "Joker as 1 on top?")
    assert model.prompt == "SEL: yes  BACK: no"
    assert_screen(model, tmp_path / "rot-confirm-pair.png")
    assert keys(ui, [S]) == ["play 7 J=1"]


def test_effects_and_draws_are_asked_in_words(tmp_path: Path) -> None:
    """Du bist! names who goes next (RT-4.1), Ziehen! on oneself says "you draw a card"
    (RT-4.2), a draw asks "Draw a card?" (RT-5.1); each frame shows the words whole."""
    ui = get_plugin("right-on-time").hand(0)
    ui.show("play", tview(["D5", "1"], rot_legal(["D5", "1"], 4, seats=4), seats=4))
    keys(ui, [S, R, S])
    assert ui.screen().banner == ("Lay Du bist! 5:", "Seat 3 goes next?")
    assert_screen(ui.screen(), tmp_path / "rot-du-bist.png")
    me = get_plugin("right-on-time").hand(0)
    me.show("play", tview(["Z7", "1"], rot_legal(["Z7", "1"], 4)))
    keys(me, [S, L, S])
    assert me.screen().banner == ("Lay Ziehen! 7:", "you draw a card?")
    assert_screen(me.screen(), tmp_path / "rot-ziehen-me.png")
    draw = get_plugin("right-on-time").hand(0)
    draw.show("play", tview(["2"], ["draw"], top_value=6))
    assert draw.screen().prompt == "SEL: draw a card"
    assert_screen(draw.screen(), tmp_path / "rot-draw-tile.png")
    keys(draw, [S])
    assert draw.screen().banner == ("Draw a card?",)
    assert_screen(draw.screen(), tmp_path / "rot-draw-confirm.png")


def test_riiing_prompts_name_the_card_and_the_condition(tmp_path: Path) -> None:
    """Riiing!: on a playable card "SEL: play 7 COFFEE"; on another "Need higher than 6";
    SELECT there refuses with "No: need higher than 6" (inverted); under a demand the draw
    tile says "SEL: draw till a COFFEE" (RI-3.2, RI-5.3)."""
    ui = get_plugin("riiing").hand(2)
    ui.show("play", rview(["7C/>", "3S/E", "9A/<"], ["play 7C/>", "play 9A/<"]))
    assert ui.screen().prompt == "SEL: play 7 COFFEE"
    assert_screen(ui.screen(), tmp_path / "riiing-play.png")
    keys(ui, [R])
    assert ui.screen().prompt == "Need higher than 6"
    assert_screen(ui.screen(), tmp_path / "riiing-need.png")
    keys(ui, [S])
    model = ui.screen()
    assert model.alert and model.prompt == "No: need higher than 6"
    assert_screen(model, tmp_path / "riiing-refused.png")
    demand = get_plugin("riiing").hand(2)
    demand.show("play", rview(["3S/E", "4A/<"], ["draw"], demand="C"))
    assert demand.screen().prompt == "SEL: draw till a COFFEE"
    assert_screen(demand.screen(), tmp_path / "riiing-demand.png")


@pytest.mark.parametrize("game", ["riiing", "right-on-time"])
def test_the_cursor_wraps_round_both_ends(game: str) -> None:
    """LEFT on the first tile goes to the last (the strip scrolls to show it), RIGHT on the
    last back to the first."""
    ui = get_plugin(game).hand(2 if game == "riiing" else 0)
    if game == "riiing":
        hand = ["7C/>", "3S/E", "9A/<", "8T/O", "2C/=", "5S/E", "1A/O"]
        ui.show("play", rview(hand, ["play 7C/>", "play 9A/<"]))
    else:
        hand = ["2", "3", "6", "7", "1", "5", "4"]
        ui.show("play", tview(hand, rot_legal(hand, 4)))
    assert ui.screen().cursor == 0
    keys(ui, [L])
    model = ui.screen()
    count = len(hand)  # no DRAW tile: cards can be laid
    assert model.cursor == len(model.tiles) - 1 and model.scroll_left
    assert not model.scroll_right and count > len(model.tiles)
    keys(ui, [R])
    model = ui.screen()
    assert model.cursor == 0 and model.scroll_right and not model.scroll_left


@pytest.mark.parametrize("game", ["riiing", "right-on-time"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_play_speaks_words_and_starts_on_the_only_choice(game: str, seed: int) -> None:
    """Along a seeded random game, with random keys on the seat to move's handheld: no
    prompt, banner line or picker title holds notation; every banner line fits its font on
    the screen; and whenever a new view leaves exactly one playable tile, the cursor starts
    on it (one SELECT plays it, instead of RIGHT pressed along the hand to reach DRAW)."""
    engine = get_game(game)
    rng = random.Random(seed)
    pos = engine.new(rng.randint(2, 5), seed)
    starts = 0
    for _ in range(150):
        if engine.outcome(pos) is not None:
            break
        seat = engine.view(pos, None).to_move
        if seat is not None:
            ui = get_plugin(game).hand(seat)
            ui.show("play", engine.view(pos, seat))
            model = ui.screen()
            playable = [i for i, t in enumerate(model.tiles) if t.playable]
            if len(playable) == 1 and not (model.scroll_left or model.scroll_right):
                assert model.cursor == playable[0], model
                starts += 1
            for _ in range(10):
                ui.key(rng.choice(list(HandKey)))
                model = ui.screen()
                texts = [model.prompt, *model.banner]
                if model.picker is not None:
                    texts.append(model.picker.title)
                for text in texts:
                    assert not NOTATION.search(text), text
                for i, line in enumerate(model.banner):
                    assert text_width(line, 18 if i == 0 else 10) <= WIDTH - 2, line
        pos, _ = engine.apply(pos, rng.choice(engine.legal(pos)))
    assert starts > 0
