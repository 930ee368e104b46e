"""The TV that teaches, as the flow runs it: the lobby's "How to play"
pages and attract mode (a captioned demo game after a minute of idle lobby)."""

from __future__ import annotations

from pathlib import Path

import pygame
import pytest
from console_helpers import console_for

from device.common.phase import Phase
from device.console import Console
from device.flow.attract import ATTRACT_NS, DEMO_HINT
from device.flow.lobby import LobbyChoices
from device.reactor.events import FakeQueue
from device.store.db_schema import DB_NAME
from device.store.session import WINDOW_RACE
from drivers.clock import FakeClock
from drivers.keys import KeyPress
from drivers.slap import Press
from drivers.table_display import TableDisplay

S = 1_000_000_000




def lobby_console(display: TableDisplay, game: str, state_dir: Path | None = None,
                  game_seed: int = 5) -> tuple[Console, FakeClock, FakeQueue]:
    """A console in the lobby: one person, two computer players; the party's next game
    has ``game_seed`` (a demo game's seed follows from it)."""
    console, clock, queue = console_for(
        display, LobbyChoices(game=game, kinds=("human", "computer", "computer")),
        game_seed=game_seed, state_dir=state_dir)
    console.start()
    console.render(clock.now_ns())
    return console, clock, queue


def phase_of(console: Console) -> Phase:
    """The console's phase now (a call, so a type checker does not narrow it)."""
    return console.phase


def wait_for_demo(console: Console, cap: int = 200) -> None:
    """Step the idle lobby until its demo game starts (at most ``cap`` wake-ups: the idle
    timer is one of them)."""
    for _ in range(cap):
        if phase_of(console) is not Phase.LOBBY:
            break
        console.step()
    assert console.flow.snapshot().demo, f"no demo after {cap} wake-ups"


def press_key(console: Console, queue: FakeQueue, clock: FakeClock, key: str) -> None:
    """Seat 1's handheld key, handled."""
    queue.post(KeyPress(0, key, clock.now_ns()))
    console.step()


@pytest.mark.parametrize("game", ["riiing", "right-on-time"])
def test_how_to_play_pages_turn_and_go_back(display: TableDisplay, game: str) -> None:
    """SELECT on "How to play" shows the game's first page on the TV (drawn instead of the
    table, a different picture from the lobby's); RIGHT turns, LEFT wraps to the last
    page; BACK returns to the lobby."""
    console, clock, queue = lobby_console(display, game)
    lobby_picture = pygame.image.tobytes(display.surface, "RGB")
    labels = [r[1] for r in console.flow.lobby.rows()]
    console.flow.lobby.cursor = labels.index("How to play")
    press_key(console, queue, clock, "select")
    assert phase_of(console) is Phase.HOWTO
    shown = console.model(clock.now_ns()).howto
    assert shown is not None and shown.number == 1 and shown.count >= 2
    assert shown.page == console.plugin.howto_pages()[0]
    console.render(clock.now_ns())
    assert pygame.image.tobytes(display.surface, "RGB") != lobby_picture
    press_key(console, queue, clock, "right")
    assert console.model(clock.now_ns()).howto.number == 2  # type: ignore[union-attr]
    press_key(console, queue, clock, "left")
    press_key(console, queue, clock, "left")
    last = console.model(clock.now_ns()).howto
    assert last is not None and last.number == last.count
    press_key(console, queue, clock, "back")
    assert phase_of(console) is Phase.LOBBY and console.model(clock.now_ns()).howto is None


@pytest.mark.parametrize("game", ["riiing", "right-on-time"])
def test_an_idle_lobby_plays_a_captioned_demo_that_any_key_ends(
    display: TableDisplay, tmp_path: Path, game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A minute without a key in the lobby: computer players play the lobby's game on the
    TV with "DEMO" on the banner and the rule applied as the top line (the plugin's
    caption); nothing is journaled; a key returns to the lobby with the party's choices
    and next seed as they were."""
    console, clock, queue = lobby_console(display, game, tmp_path)
    given: list[str] = []
    real = type(console.plugin).caption

    def recorded(self: object, events: object, view: object) -> str | None:
        text = real(self, events, view)  # type: ignore[arg-type]
        given.append(text or "")
        return text

    monkeypatch.setattr(type(console.plugin), "caption", recorded)
    wait_for_demo(console)
    assert clock.now_ns() >= 10 * S + ATTRACT_NS
    assert console.flow.snapshot().demo and DEMO_HINT in console.model(clock.now_ns()).banner
    record = console.record
    assert record is not None and record.kinds == ("computer",) * 3
    shown = 0
    for _ in range(5000):  # a step cap, and the demo game watched: never for ever
        demo = console.flow.snapshot().demo
        if len(record.actions) >= 40 or not demo or console.record is not record:
            break
        before = len(given)
        console.step()
        if len(given) > before and given[-1] and phase_of(console) is Phase.PLAY:
            assert console.flow.snapshot().last_event == given[-1]  # the caption is the top line
            shown += 1
    assert shown >= 3
    press_key(console, queue, clock, "select")
    assert phase_of(console) is Phase.LOBBY and not console.flow.snapshot().demo
    assert DEMO_HINT not in console.model(clock.now_ns()).banner
    assert console.flow.lobby.choices.kinds == ("human", "computer", "computer")
    assert console.flow.game_seed == 5
    assert not (tmp_path / DB_NAME).exists() or _games(tmp_path) == 0


def test_a_slap_ends_the_demo_too(display: TableDisplay) -> None:
    """A slap button during the demo returns to the lobby (no false slap, no card)."""
    console, clock, queue = lobby_console(display, "riiing")
    wait_for_demo(console)
    queue.post(Press(1, clock.now_ns()))
    console.step()
    assert phase_of(console) is Phase.LOBBY and not console.flow.snapshot().demo


def test_a_demo_game_goes_on_through_its_riiing_windows(display: TableDisplay) -> None:
    """In a demo of Riiing! the computer players' slaps (``ComputerPress``: nobody at the
    table pressed) win the RIIING! windows like any slap and the demo goes on after each
    one, captioned, in the same game; only a person's press would end it."""
    console, _clock, _queue = lobby_console(display, "riiing", game_seed=9)  # one window
    cues: list[str] = []
    console.flow.cue = cues.append
    wait_for_demo(console)
    record = console.record
    assert record is not None and record.kinds == ("computer",) * 3
    after_window = 0
    for _ in range(20_000):  # a step cap, and the demo game watched: never for ever
        if console.record is not record or not console.flow.snapshot().demo or after_window >= 3:
            break
        windows = sum(s.race == WINDOW_RACE for s in record.slaps)
        console.step()
        if windows and sum(s.race == WINDOW_RACE for s in record.slaps) == windows:
            after_window = sum(1 for a in record.actions[record.actions.index(
                f"slap {record.slaps[-1].seat}"):]) - 1
    assert console.record is record and console.flow.snapshot().demo
    assert phase_of(console) is Phase.PLAY
    won = [s for s in record.slaps if s.race == WINDOW_RACE]
    assert won and all(s.ms >= 0.8 * 320 for s in won)  # computers' reactions, not a person's
    assert after_window >= 3  # the game went on past its first RIIING!
    assert "ring" in cues and "slap" in cues
    assert console.flow.snapshot().last_event  # the caption (or the slap's line) is the top line


def _games(state_dir: Path) -> int:
    from device.store.game_db import open_read_only

    with open_read_only(state_dir / DB_NAME) as db:
        return len(db.games(100))
