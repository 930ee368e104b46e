"""The simulator's keyboard and window on SDL's dummy drivers (device/modes/sim.py,
device/modes/present.py): its slap keys take the hardware's path (gpiozero ``MockFactory`` ->
``Press`` -> the flow), so a key for a seat that is not in the game is said once on the TV,
as a real button nobody sits at is.  Times are fake CLOCK_MONOTONIC ns."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest

from device.common.phase import Phase
from device.console import Console, make_seats
from device.flow.lobby import LobbyChoices
from device.modes.cli import SIM_SLAP_PINS
from device.modes.present import SimPresenter
from device.modes.sim import KEYMAP, SimKeyboard, sim_slap_buttons
from device.reactor.events import FakeQueue, SimKey
from drivers.clock import FakeClock
from drivers.hand_display import open_hand_display
from drivers.slap import Press, SlapButtons, mock_pin_factory
from drivers.table_display import TableDisplay

S = 1_000_000_000
MS = 1_000_000


@pytest.fixture
def window() -> Iterator[TableDisplay]:
    """The simulator's window on SDL's dummy driver (1600x900, its real size), fake clock."""
    d = TableDisplay("dummy", (1600, 900), clock=FakeClock(10 * S))
    yield d
    d.close()


def sim_console(display: TableDisplay, kinds: tuple[str, ...], game: str,
                **kw: Any) -> tuple[Console, FakeQueue, SimPresenter]:
    """A console built as ``run_sim`` builds it: six dummy handhelds and six slap pins
    (the game plays the first ``len(kinds)``), the simulator's presenter and key map."""
    clock = display.clock
    assert isinstance(clock, FakeClock)
    queue = FakeQueue(clock)
    presenter = SimPresenter(display)
    console = Console(
        clock=clock, queue=queue, presenter=presenter,
        seats=make_seats([open_hand_display(s, "dummy") for s in range(6)], "sim",
                         SIM_SLAP_PINS),
        choices=LobbyChoices(game=game, kinds=kinds), game_seed=5, keymap=KEYMAP, **kw)
    console.start()
    return console, queue, presenter


def tap(keys: SimKeyboard, console: Console, queue: FakeQueue, key: int, t_ns: int) -> list[object]:
    """Press and release ``key`` at ``t_ns`` (50 ms apart) and hand what the keyboard
    posted to the console; returns the posted events."""
    keys(SimKey(key, True, t_ns))
    keys(SimKey(key, False, t_ns + 50 * MS))
    posted = queue.wait(0)
    for event in posted:
        console.handle(event)
    return posted


@pytest.mark.parametrize(("game", "phase"), [("right-on-time", Phase.PLAY),
                                             ("riiing", Phase.WAKEUP)])
def test_a_slap_key_of_a_seat_not_in_the_game_is_said_once_on_the_tv(
    window: TableDisplay, caplog: pytest.LogCaptureFixture, game: str, phase: Phase
) -> None:
    """Key 4 in a 2-seat game presses seat 4's button (a Press, as on a Pi); the TV says
    "Seat 4's button is not in this game" once: pressed again after the notice has gone,
    nothing more is said, and the game goes on (no slap for anyone)."""
    caplog.set_level(logging.WARNING, logger="device.flow.game_flow")
    console, queue, _tv = sim_console(window, ("human", "computer"), game, skip_lobby=True)
    clock = window.clock
    assert isinstance(clock, FakeClock)
    assert console.phase is phase
    with mock_pin_factory() as factory, SlapButtons(dict(enumerate(SIM_SLAP_PINS)),
                                                    queue.post, pin_factory=factory):
        keys = SimKeyboard(console, factory, queue.post)
        now = clock.now_ns()
        posted = tap(keys, console, queue, pygame.K_4, now)
        assert Press(3, now) in posted
        banner = console.model(clock.now_ns()).banner
        assert "Seat 4's button is not in this game (2 seats play)" in banner
        clock.advance(11 * S)  # the notice has been on the TV for its 10 s
        console.flow.timers.run_due(clock.now_ns())
        assert "Seat 4" not in console.model(clock.now_ns()).banner
        for _ in range(3):
            tap(keys, console, queue, pygame.K_4, clock.now_ns())
            clock.advance(S)
        assert "Seat 4" not in console.model(clock.now_ns()).banner
    said = [r.getMessage() for r in caplog.records if "not in this game" in r.getMessage()]
    assert said == ["Seat 4's button is not in this game (2 seats play)"]
    assert console.phase in (Phase.PLAY, Phase.WAKEUP)  # nothing ended
    console.close()


def test_a_slap_key_of_a_seat_in_the_game_still_presses_its_button(
    window: TableDisplay
) -> None:
    """Key 2 in a 2-seat game presses seat 2's button (no notice): only seats beyond the
    game are named."""
    console, queue, _tv = sim_console(window, ("human", "computer"), "right-on-time",
                                      skip_lobby=True)
    clock = window.clock
    assert isinstance(clock, FakeClock)
    with mock_pin_factory() as factory, SlapButtons(dict(enumerate(SIM_SLAP_PINS)),
                                                    queue.post, pin_factory=factory):
        keys = SimKeyboard(console, factory, queue.post)
        posted = tap(keys, console, queue, pygame.K_2, clock.now_ns())
    assert [type(e).__name__ for e in posted].count("Press") == 1
    assert "not in this game" not in console.model(clock.now_ns()).banner
    console.close()


def test_a_slap_key_tapped_within_one_sdl_pump_is_a_slap(window: TableDisplay) -> None:
    """A slap key whose down and up come in the same SDL pump with the same stamp (a quick
    tap, or xdotool's) is one Press at that stamp through the simulator's slap buttons: a
    keyboard is no long lead, so nothing waits for the line to stay pressed."""
    console, queue, _tv = sim_console(window, ("human", "computer"), "riiing",
                                      skip_lobby=True)
    clock = window.clock
    assert isinstance(clock, FakeClock)
    t_ns = clock.now_ns()
    with mock_pin_factory() as factory, sim_slap_buttons(
        dict(enumerate(SIM_SLAP_PINS)), queue.post, factory
    ) as buttons:
        keys = SimKeyboard(console, factory, queue.post)
        keys(SimKey(pygame.K_1, True, t_ns))
        keys(SimKey(pygame.K_1, False, t_ns))
        clock.advance(5 * MS)
        buttons.settle(clock.now_ns())
        presses = [e for e in queue.wait(0) if isinstance(e, Press)]
    assert [(p.seat, p.t_ns) for p in presses] == [(0, t_ns)]
    console.close()


# --------------------------------------------------------------------------- How to play


def test_the_sim_window_draws_the_how_to_play_page_with_its_title_and_cards(
    window: TableDisplay, tmp_path: Path
) -> None:
    """SELECT on the lobby's How to play row, then RIGHT to a page with a card picture:
    the simulator window's table part is that page as ``draw_howto`` draws it (title, rule
    lines, the real card faces), with the title's ink and a card's paper in their places,
    and not the table scene's "Unknown screen" (what it showed before f779cd5)."""
    from device.flow.howto import HowtoBook
    from device.render.howto_page import MARGIN, TITLE_PX, TOP_H, draw_howto
    from device.render.layout import LOGICAL_W, Letterbox
    from device.render.palette import PAPER, TEXT
    from device.render.table import TableScene
    from drivers.keys import KeyPress

    console, _queue, tv = sim_console(window, ("human", "computer"), "riiing")
    clock = window.clock
    assert isinstance(clock, FakeClock)
    rows = [key for key, _label, _value in console.flow.lobby.rows()]
    console.flow.lobby.cursor = rows.index("howto")
    console.handle(KeyPress(0, "select", clock.now_ns()))
    assert console.phase is Phase.HOWTO
    book = console.flow.howto_screen.book
    assert isinstance(book, HowtoBook)
    for _ in range(len(book.pages)):
        if any(p.card for p in book.page.pictures):
            break
        console.handle(KeyPress(0, "right", clock.now_ns()))
    page = book.page
    assert any(p.card for p in page.pictures), "no page of Riiing! shows a card"
    console.render(clock.now_ns())
    model = console.model(clock.now_ns())
    assert model.howto is not None and model.howto.page == page
    shown = tv.table_surface().copy()
    pygame.image.save(window.surface, str(tmp_path / "sim_howto.png"))

    expected = pygame.Surface(shown.get_size())
    draw_howto(expected, model.game, page, number=model.howto.number,
               count=model.howto.count, hint=model.howto.hint)
    assert rgb(shown) == rgb(expected)  # the page, pixel for pixel

    box = Letterbox.fit(shown.get_size())
    title = box.map_rect(pygame.Rect(MARGIN, TOP_H + 12, LOGICAL_W - 2 * MARGIN, TITLE_PX))
    assert ink(shown, title, TEXT, 60).height >= TITLE_PX * box.scale * 0.5
    cards = sum(1 for p in page.pictures if p.card)
    band = box.map_rect(pygame.Rect(0, 500, LOGICAL_W, 500))  # the pictures' row
    paper = pygame.mask.from_threshold(shown.subsurface(band), PAPER, (40, 40, 40, 255))
    faces = paper.connected_components(400)  # a card face's paper is one blob of >= 400 px
    assert len(faces) >= cards, (len(faces), cards)

    unknown = pygame.Surface(shown.get_size())
    scene = TableScene(motion=False)
    scene.set_model(model, clock.now_ns())
    scene.draw(unknown, clock.now_ns())
    assert rgb(unknown.subsurface(title)) != rgb(shown.subsurface(title))
    console.close()


def rgb(surface: pygame.Surface) -> bytes:
    """Every pixel of ``surface`` as RGB bytes."""
    return pygame.image.tobytes(surface, "RGB")


def ink(surface: pygame.Surface, rect: pygame.Rect, colour: tuple[int, int, int],
        tol: int) -> pygame.Rect:
    """The bounding box (in ``rect``'s own px) of the pixels of ``rect`` within ``tol`` of
    ``colour`` per channel; an empty rect when there are none."""
    mask = pygame.mask.from_threshold(surface.subsurface(rect), colour, (tol, tol, tol, 255))
    boxes = mask.get_bounding_rects()
    return boxes[0].unionall(boxes) if boxes else pygame.Rect(0, 0, 0, 0)


# ------------------------------------------------------------ keys when no person is to move


def cut_game(window: TableDisplay, state_dir: Path) -> None:
    """Leave a cut Right on Time game (2 computers, 3 actions applied) in ``state_dir``,
    as a power cut does: the next console started with ``resume=True`` offers it."""
    console, _queue, _tv = sim_console(window, ("computer", "computer"), "right-on-time",
                                       skip_lobby=True, state_dir=state_dir)
    for _ in range(20_000):  # a step cap: a game that never gets there fails below
        if console.record is not None and len(console.record.actions) >= 3:
            break
        console.step()
    assert console.record is not None and len(console.record.actions) >= 3
    console.close()


@pytest.mark.parametrize(("key", "phase"), [(pygame.K_BACKSPACE, Phase.LOBBY),
                                            (pygame.K_RETURN, Phase.PLAY),
                                            (pygame.K_LEFT, Phase.PLAY)])
def test_backspace_on_the_restore_offer_declines_it_while_a_computer_is_to_move(
    window: TableDisplay, tmp_path: Path, key: int, phase: Phase
) -> None:
    """The restored game's seats are both computers, so nobody at the table is to move;
    the keys still reach a handheld (the flow takes any handheld's answer, device/flow/game_flow.py
    ``on_key``): BACKSPACE declines the offer (the lobby), ENTER and an arrow go on with
    the game at once, and the offer leaves the TV: with no person to move
    (``SimKeyboard.active_seat`` is ``None``) the keys still go to a handheld, or the offer
    would stand with nobody able to answer it."""
    cut_game(window, tmp_path)
    console, queue, _tv = sim_console(window, ("human", "human"), "riiing",
                                      state_dir=tmp_path, resume=True)
    clock = window.clock
    assert isinstance(clock, FakeClock)
    assert console.flow.snapshot().held and console.phase is Phase.PLAY
    assert not any(s.is_human for s in console.flow.playing)
    with mock_pin_factory() as factory:
        keys = SimKeyboard(console, factory, queue.post)
        posted = tap(keys, console, queue, key, clock.now_ns())
    assert posted, "the key reached no handheld"
    assert not console.flow.snapshot().held
    assert console.phase is phase
    assert "Restored" not in console.model(clock.now_ns()).banner
    console.close()


def start_demo(window: TableDisplay) -> tuple[Console, FakeQueue]:
    """A 2-seat lobby left untouched for its idle minute: the attract-mode demo plays."""
    from device.flow.attract import ATTRACT_NS, DEMO_HINT

    console, queue, _tv = sim_console(window, ("human", "computer"), "right-on-time")
    clock = window.clock
    assert isinstance(clock, FakeClock)
    assert str(console.phase) == Phase.LOBBY  # str(): mypy keeps no narrowing of it
    clock.advance(ATTRACT_NS + S)
    console.flow.timers.run_due(clock.now_ns())
    assert console.flow.snapshot().demo and console.phase is Phase.PLAY
    assert DEMO_HINT in console.model(clock.now_ns()).banner
    return console, queue


@pytest.mark.parametrize("key", [pygame.K_RETURN, pygame.K_LEFT, pygame.K_RIGHT,
                                 pygame.K_BACKSPACE])
def test_any_handheld_key_ends_the_attract_demo(window: TableDisplay, key: int) -> None:
    """"DEMO: press any key or slap to play": ENTER, an arrow or BACKSPACE ends the demo
    (every seat of a demo is a computer, so nobody is to move) and the lobby is back, with
    the party's own seat kinds: every key of the hint ends it, not only a slap digit."""
    console, queue = start_demo(window)
    clock = window.clock
    assert isinstance(clock, FakeClock)
    with mock_pin_factory() as factory:
        keys = SimKeyboard(console, factory, queue.post)
        posted = tap(keys, console, queue, key, clock.now_ns())
    assert posted, "the key reached no handheld"
    assert not console.flow.snapshot().demo
    assert console.phase is Phase.LOBBY
    assert console.flow.lobby.choices.kinds == ("human", "computer")
    console.close()


def test_on_a_computers_turn_the_keys_drive_the_first_persons_handheld(
    window: TableDisplay
) -> None:
    """Seat 1 is a computer, seat 2 a person: while the computer is to move the keys go
    to seat 2's handheld (the first person seat), not to nobody and not to the computer's
    seat; when the person is to move, to theirs as before."""
    from drivers.keys import KeyPress

    console, queue, _tv = sim_console(window, ("computer", "human"), "right-on-time",
                                      skip_lobby=True)
    clock = window.clock
    assert isinstance(clock, FakeClock)
    snap = console.flow.snapshot()
    assert snap.phase is Phase.PLAY and snap.pos is not None
    with mock_pin_factory() as factory:
        keys = SimKeyboard(console, factory, queue.post)
        assert snap.plugin.to_move(snap.pos) == 0  # RT-2.3: the lobby's first seat opens
        posted = tap(keys, console, queue, pygame.K_RIGHT, clock.now_ns())
        assert [e for e in posted if isinstance(e, KeyPress)] == [
            KeyPress(1, "right", clock.now_ns())]
        assert keys.active_seat() == 1
    console.close()
