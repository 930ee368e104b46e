"""The slap margin in one set of words (RI-6.3): the TV's top line and
the pile zone's result box both say a margin under a millisecond as "by less than 1 ms"
(``device.common.words.margin_words``), and the handheld asks for "an 8", not "a 8"
(``device.common.words.a_number``)."""

from __future__ import annotations

import pytest
from console_helpers import console_for
from view_builders import rview

from device.common.words import a_number, margin_words
from device.console import Console
from device.flow.lobby import LobbyChoices
from device.games import get_plugin
from device.games.riiing.ri_narrate import condition_caption
from device.hands.composer import HandKey
from device.reactor.events import FakeQueue
from device.render.table import TableScene
from device.render.zones import PileSpec
from drivers.clock import FakeClock
from drivers.slap import Press
from drivers.table_display import TableDisplay
from engine import get_game

MS = 1_000_000
S = 1_000_000_000


def window_console(display: TableDisplay) -> tuple[Console, FakeClock, FakeQueue, int]:
    """Two people playing from a Riiing! position with a soap window open (RI-6.2);
    returns the console, its clock and queue, and the window's t0 (ns)."""
    console, clock, queue = console_for(
        display, LobbyChoices(game="riiing", kinds=("human", "human")), skip_lobby=True)
    console.start()
    pos = get_game("riiing").parse_position({
        "game": "riiing", "seats": 2,
        "hands": [["5C/>", "9S/O", "3A/="], ["2S/=", "4A/<", "8T/E"]],
        "draw": ["3T/*S", "6S/<", "7C/~", "1A/O"], "discard": ["7A/E"],
        "to_move": 0, "seed": 42, "demand": None, "window": "S", "winner": None,
    })
    console.play_from(pos, clock.now_ns())
    t0 = console.flow.race.arbiter.t0_ns
    assert t0 is not None
    return console, clock, queue, t0


@pytest.mark.parametrize(("apart_ns", "said"), [
    (300_000, "by less than 1 ms"), (400_000, "by less than 1 ms"), (12 * MS, "by 12 ms"),
])
def test_the_top_line_and_the_result_box_say_the_same_margin(
    display: TableDisplay, apart_ns: int, said: str
) -> None:
    """Seat 2 slaps at 327 ms and Seat 1 ``apart_ns`` later: the TV's top line and the pile
    zone's result box both end in the same words; under 1 ms it is never "by 0 ms"."""
    console, clock, queue, t0 = window_console(display)
    clock.advance(400 * MS)
    queue.post(Press(1, t0 + 327 * MS))
    queue.post(Press(0, t0 + 327 * MS + apart_ns))
    console.step()
    console.step()
    assert console.flow.snapshot().slap_shown == (1, 327)
    line = console.flow.snapshot().last_event
    assert line == f"Seat 2 slapped in 327 ms, {said} over Seat 1"
    assert "by 0 ms" not in line
    scene = TableScene(motion=False)
    now = clock.now_ns()
    scene.set_model(console.model(now), now)
    pile = scene._zones(now)[0]["pile"][1]
    assert isinstance(pile, PileSpec)
    assert pile.sub == f"{said} over Seat 1"
    assert line.endswith(", " + pile.sub)


@pytest.mark.parametrize(("ms", "said"), [
    (0, "by less than 1 ms"), (-3, "by less than 1 ms"), (1, "by 1 ms"), (12, "by 12 ms"),
    (1500, "by 1500 ms"),
])
def test_margin_words(ms: int, said: str) -> None:
    """Whole milliseconds to words; 0 (a margin rounded down) and below say "less than"."""
    assert margin_words(ms) == said


@pytest.mark.parametrize(("n", "said"), [
    (1, "a 1"), (7, "a 7"), (8, "an 8"), (9, "a 9"), (11, "an 11"), (18, "an 18"),
    (10, "a 10"), (80, "an 80"), (88, "an 88"), (110, "a 110"), (800, "an 800"),
    (11_000, "an 11000"), (18_500, "an 18500"), (1_800, "a 1800"), (0, "a 0"),
])
def test_a_number_takes_an_before_a_vowel_sound(n: int, said: str) -> None:
    """"an" where the number is said with a vowel first (eight, eleven, eighteen, eighty,
    eight hundred, eleven thousand), else "a"."""
    assert a_number(n) == said


@pytest.mark.parametrize(("last", "said"), [("8A/<", "an 8"), ("6A/<", "a 6")])
def test_the_handheld_asks_for_an_8(last: str, said: str) -> None:
    """SAME NUMBER after an 8 (RI-3.2): the prompt over a card that does not fit is "Need an 8",
    SELECT on it refuses with "No: need an 8", and the TV's caption says "play an 8"."""
    number = last[0]
    view = rview([f"{number}C/>", "3S/E"], [f"play {number}C/>", "draw"], last_card=last,
                 condition="=")
    ui = get_plugin("riiing").hand(2)
    ui.show("play", view)
    assert ui.screen().prompt == f"SEL: play {number} COFFEE"
    ui.key(HandKey.RIGHT)
    assert ui.screen().prompt == f"Need {said}"
    ui.key(HandKey.SELECT)
    model = ui.screen()
    assert model.alert and model.prompt == f"No: need {said}"
    assert condition_caption(view) == f"SAME NUMBER: play {said}"
