"""Scenario tests of the device core on a fake clock: the loop, fair windows through the
whole console (RI-6.5, RI-6.6), handhelds that go and come back, bad lobby files, a full
disk, and the simulator's keyboard adapter."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pytest
from console_helpers import console_for, screen_image

from device.common.phase import Phase
from device.console import Console, GameRecord
from device.flow.game_flow import Timing
from device.flow.lobby import LobbyChoices, load_choices
from device.games import get_plugin
from device.modes.present import TablePresenter
from device.reactor.events import (
    Abandon,
    FakeQueue,
    HandheldBack,
    HandheldGone,
    HandheldNoisy,
    HandheldQuiet,
    Quit,
    SimKey,
    Wake,
)
from device.reactor.loop import Loop
from device.render.model import TableModel
from device.store.db_schema import DB_NAME, StateError
from device.store.game_db import GameDB, open_read_only
from device.store.records import ActionRecord
from drivers.clock import FakeClock
from drivers.hand_display import open_hand_display
from drivers.keys import KeyPress
from drivers.slap import Press, Release
from drivers.table_display import TableDisplay
from engine import get_game

MS = 1_000_000
S = 1_000_000_000


@pytest.fixture
def display() -> Iterator[TableDisplay]:
    """A small table display on SDL's dummy driver with a fake clock."""
    d = TableDisplay("dummy", (480, 270), clock=FakeClock(100 * S))
    try:
        yield d
    finally:
        d.close()


def make(display: TableDisplay, kinds: tuple[str, ...], game: str = "riiing",
         **kw: Any) -> tuple[Console, FakeClock, FakeQueue, list[GameRecord]]:
    """A started console of ``kinds`` seats on the display's fake clock."""
    done: list[GameRecord] = []
    console, clock, queue = console_for(
        display, LobbyChoices(game=game, kinds=kinds), on_game_over=done.append,
        skip_lobby=kw.pop("skip_lobby", True), **kw)
    console.start()
    console.render(clock.now_ns())
    return console, clock, queue, done


def in_window(display: TableDisplay) -> tuple[Console, FakeClock, FakeQueue, int]:
    """A started console of two people playing from :func:`window_position` (a RIIING!
    window open); returns it with its clock, its queue and the window's t0 (ns)."""
    console, clock, queue, _ = make(display, ("human", "human"))
    console.play_from(window_position(), clock.now_ns())
    t0 = console.flow.race.arbiter.t0_ns
    assert t0 is not None
    return console, clock, queue, t0


def offered(display: TableDisplay, tmp_path: Path) -> tuple[Console, FakeClock, FakeQueue]:
    """A console of two people, started in the lobby with resume, that finds a Riiing!
    game of two computers cut after 4 actions in ``tmp_path`` and offers it."""
    console, *_ = make(display, ("computer", "computer"), state_dir=tmp_path)
    for _ in capped(lambda: console.record is not None and len(console.record.actions) < 4):
        console.step()
    console.close()
    again, clock, queue, _ = make(display, ("human", "human"), state_dir=tmp_path,
                                  skip_lobby=False, resume=True)
    return again, clock, queue


def capped(go_on: Callable[[], bool], cap: int = 20_000) -> Iterator[int]:
    """Count loop turns while ``go_on()`` holds, at most ``cap`` (a step cap: a test that
    waits for a game never loops for ever; it fails instead)."""
    for turn in range(cap):
        if not go_on():
            return
        yield turn
    raise AssertionError(f"still waiting after {cap} loop turns")


def phase_of(console: Console) -> Phase:
    """The console's phase now (a call, so a type checker does not narrow it)."""
    return console.phase


def window_position(**fields: Any) -> Any:
    """A 2-seat Riiing! position with a soap RIIING! window open (RI-6.2)."""
    obj: dict[str, Any] = {
        "game": "riiing", "seats": 2,
        "hands": [["5C/>", "9S/O", "3A/="], ["2S/=", "4A/<", "8T/E"]],
        "draw": ["3T/*S", "6S/<", "7C/~", "1A/O"], "discard": ["7A/E"],
        "to_move": 0, "seed": 42, "demand": None, "window": "S", "winner": None,
    }
    obj.update(fields)
    return get_game("riiing").parse_position(obj)


@pytest.mark.parametrize("after_ms", [1, 50, 200])
def test_a_losing_slapper_after_the_winner_is_never_punished(
    display: TableDisplay, after_ms: int
) -> None:
    """RI-6.5: a press 1, 50 or 200 ms after the winner's, read after the decision, is a
    losing slap: no `falseslap`, no card."""
    console, clock, queue, t0 = in_window(display)
    clock.advance(400 * MS)
    queue.post(Press(1, t0 + 380 * MS))
    console.step()
    console.step()  # settle over: seat 1 wins
    assert console.record is not None and console.record.actions == ["slap 1"]
    cards = get_game("riiing").view(console.pos, 0).hand_counts[0]
    clock.advance(after_ms * MS + 20 * MS)
    queue.post(Press(0, t0 + 380 * MS + after_ms * MS))
    queue.post(Release(0, t0 + 480 * MS + after_ms * MS))
    console.step()
    assert console.record.actions == ["slap 1"]
    assert get_game("riiing").view(console.pos, 0).hand_counts[0] == cards


def test_a_winner_who_keeps_holding_is_named_stuck_on_the_tv(display: TableDisplay) -> None:
    """Architecture 5: seat 2 wins the window and keeps its button down; after the stuck
    time (3 s from its edge) the TV says so, and once it is let go the line goes."""
    console, clock, queue, t0 = in_window(display)
    down = t0 + 380 * MS
    clock.advance(400 * MS)
    queue.post(Press(1, down))
    console.step()
    console.step()  # settle over: seat 2 wins, and holds on
    assert console.record is not None and console.record.actions == ["slap 1"]
    for _ in capped(lambda: clock.now_ns() < down + 3_000 * MS):
        console.step()
    assert "Seat 2 button stuck" in console.model(clock.now_ns()).banner
    queue.post(Release(1, clock.now_ns()))
    console.step()
    assert "button stuck" not in console.model(clock.now_ns()).banner


def test_a_press_from_one_window_never_wins_the_next(display: TableDisplay) -> None:
    """RI-6.6: when a reverse follows at once, a losing press of the first window that lands
    35 ms after the second window's flip does not win the second window."""
    console, clock, queue, _ = make(display, ("human", "human"))
    pos = window_position(draw=["3T/*S", "6S/*C", "7C/~", "1A/O"])
    console.play_from(pos, clock.now_ns())
    t0 = console.flow.race.arbiter.t0_ns
    assert t0 is not None
    clock.advance(300 * MS)
    queue.post(Press(1, t0 + 250 * MS))
    console.step()
    console.step()  # seat 1 wins the soap window; the coffee reverse shows next
    assert console.record is not None and console.record.actions == ["slap 1"]
    console.step()  # the frame showing the coffee reverse: the new window's t0
    t1 = console.flow.race.arbiter.t0_ns
    assert t1 is not None and t1 > t0
    clock.advance(100 * MS)
    queue.post(Press(0, t1 + 35 * MS))  # seat 0 was late for the first reverse
    queue.post(Press(1, t1 + 420 * MS))  # a real reaction to the second
    clock.advance(500 * MS)
    console.step()
    console.step()
    assert console.record.actions == ["slap 1", "slap 1"]


def test_a_gone_handheld_is_shown_and_its_turn_waits(display: TableDisplay) -> None:
    """A handheld that is gone is a state: the TV names the seat, the game waits for that
    seat's turn (no computer takes over), and the whole screen is sent again when back."""
    console, clock, queue, _ = make(display, ("human", "computer"), "right-on-time")
    assert console.flow.plugin.to_move(console.pos) == 0
    queue.post(HandheldGone(0, "USB cable pulled", clock.now_ns()))
    console.step()
    model = console.model(clock.now_ns())
    assert model.seats[0].connected is False
    assert "Seat 1 handheld unplugged" in model.banner
    clock.advance(60 * S)
    queue.post(KeyPress(1, "select", clock.now_ns()))  # another seat's keys do nothing
    console.step()
    assert console.record is not None and console.record.actions == []
    device = console.seats[0].handheld.device
    device.image.paste(0, (0, 0, 128, 64))  # blank, as a re-plugged OLED is
    queue.post(HandheldBack(0, clock.now_ns()))
    console.step()
    assert console.model(clock.now_ns()).seats[0].connected
    shown = screen_image(console.seats[0].screen())  # what the seat's screen renders to
    assert shown.getbbox() is not None and device.image.tobytes() == shown.tobytes()


def test_a_noisy_screen_is_named_on_the_tv_until_quiet_and_the_game_goes_on(
    display: TableDisplay, caplog: pytest.LogCaptureFixture
) -> None:
    """A writer's noisy report names the seat on the TV (logged once however often it
    comes) while the seat stays connected and plays; quiet takes the line back; a report
    for a seat the console does not have is one log line."""
    console, clock, queue, _ = make(display, ("human", "computer"), "right-on-time")
    reason = "seat 1 OLED sh1106 at spi0.0: 3 bus errors in 60 s — check the wiring"
    with caplog.at_level("WARNING", logger="partytable"):
        for _ in range(2):
            queue.post(HandheldNoisy(0, reason, clock.now_ns()))
            console.step()
        queue.post(HandheldNoisy(7, reason, clock.now_ns()))
        console.step()
    model = console.model(clock.now_ns())
    assert "Seat 1 screen errors: check wiring" in model.banner
    assert model.seats[0].connected
    assert [r.getMessage() for r in caplog.records if "bus errors" in r.getMessage()] == [
        f"Seat 1 screen: {reason}"
    ]
    assert sum("seat index 7" in r.getMessage() for r in caplog.records) == 1
    queue.post(HandheldQuiet(0, clock.now_ns()))
    console.step()
    assert "screen errors" not in console.model(clock.now_ns()).banner


def test_a_lobby_file_with_a_value_of_the_wrong_type_is_named_and_replaced(
    tmp_path: Path
) -> None:
    """`"false_slap_penalty": true` (a bool where a number belongs) is one line naming the
    option, and that option's default is used, the other choices kept (a bool that passed
    as a number would make every START refused)."""
    path = tmp_path / "lobby.json"
    path.write_text(json.dumps({"game": "riiing", "kinds": ["human", "computer"],
                                "options": {"riiing": {"false_slap_penalty": True}}}))
    choices, warning = load_choices(path)
    assert choices == LobbyChoices(game="riiing", kinds=("human", "computer"))
    assert warning is not None and "false_slap_penalty" in warning
    assert "\n" not in warning
    for bad in ({"first": True}, {"kinds": ["human", 3]}, {"game": 7}, [1, 2]):
        path.write_text(json.dumps(bad))
        choices, warning = load_choices(path)
        assert choices == LobbyChoices() and warning is not None and "\n" not in warning


def test_a_failed_journal_write_is_retried_with_the_next_action(
    display: TableDisplay, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk for two writes does not stop the game or lose an action: the TV names
    the problem while it lasts, the next write commits the missed actions too, and the
    database ends with every action of the game."""
    real_append = GameDB.append
    failures = {"left": 2}
    banners: list[str] = []

    def full_disk(self: GameDB, game_id: int, record: Any, slap: Any = None) -> int:
        if isinstance(record, ActionRecord) and failures["left"] > 0:
            failures["left"] -= 1
            raise StateError(f"{self.path}: database or disk is full")
        return real_append(self, game_id, record, slap)

    monkeypatch.setattr(GameDB, "append", full_disk)
    console, _clock, _queue, done = make(display, ("computer", "computer"),
                                         state_dir=tmp_path)
    for _ in capped(lambda: not done):
        console.step()
        banners.append(console.flow.snapshot().banner)
    assert failures["left"] == 0
    assert f"Games are not saved: {tmp_path} is full" in banners
    assert console.flow.snapshot().banner == "" or "not saved" not in console.flow.snapshot().banner
    with GameDB.open(tmp_path) as db:
        (game,) = db.games()
    assert game.actions == done[0].actions and game.outcome == "won"


def test_the_loop_sleeps_until_the_next_deadline_and_draws_only_on_change() -> None:
    """The loop waits exactly until the earliest ticker or timer deadline; a wake-up for a
    ticker alone draws no frame; an event or a timer does."""
    clock = FakeClock(0)
    queue = FakeQueue(clock)
    frames: list[int] = []
    handled: list[object] = []

    def frame(now: int) -> int | None:
        frames.append(now)
        return None

    loop = Loop(clock=clock, queue=queue, handle=handled.append, frame=frame,
                tickers=[lambda now: now + 100 * MS])
    fired: list[int] = []
    loop.timers.call_at(250 * MS, fired.append, "test")
    loop.step()  # the ticker's first deadline is learnt before the first wait
    assert clock.now_ns() == 100 * MS and frames == []  # ticker only: nothing drawn
    loop.step()
    assert clock.now_ns() == 200 * MS and frames == []
    loop.step()
    assert clock.now_ns() == 250 * MS and fired == [250 * MS] and frames == [250 * MS]
    queue.post("key")
    loop.step()
    assert handled == ["key"] and frames[-1] == 250 * MS


def test_the_simulator_keyboard_drives_buttons_handhelds_and_quit(display: TableDisplay) -> None:
    """Digits press the seat's slap button through gpiozero's MockFactory (the press wakes
    the loop, whose ticker posts it once checked); arrows reach the hot-seat's handheld;
    DELETE abandons; ESC quits."""
    import pygame

    from device.modes.cli import SIM_SLAP_PINS
    from device.modes.sim import SimKeyboard
    from drivers.slap import SlapButtons, mock_pin_factory

    console, _clock, queue, _ = make(display, ("human", "computer"), "right-on-time")
    with mock_pin_factory() as factory, SlapButtons(
        dict(enumerate(SIM_SLAP_PINS)), queue.post, pin_factory=factory,
        wake=lambda: queue.post(Wake()),
    ) as buttons:
        keys = SimKeyboard(console, factory, queue.post)
        keys(SimKey(pygame.K_2, True, 5 * S))
        assert queue.wait(0) == [Wake()]
        buttons.settle(5 * S + MS)  # the check reads the line
        buttons.settle(5 * S + 2 * MS)  # and again: the Press is posted
        keys(SimKey(pygame.K_RIGHT, True, 6 * S))
        keys(SimKey(pygame.K_DELETE, True, 7 * S))
        keys(SimKey(pygame.K_ESCAPE, True, 8 * S))
        posted = queue.wait(0)
    assert Press(1, 5 * S) in posted
    assert KeyPress(0, "right", 6 * S) in posted  # seat 1 (a person) is to move
    assert posted[-2:] == [Abandon(), Quit()]
    for event in posted[-2:]:
        console.handle(event)
    assert console.phase is Phase.LOBBY and not console.loop.running


def test_options_the_engine_refuses_return_to_the_lobby_with_a_line(
    display: TableDisplay
) -> None:
    """A game the engine cannot deal (RI-2.1: 6 x 20 cards + 2 > 96) is one line on the
    TV and the lobby stays; nothing crashes."""
    choices = LobbyChoices(game="riiing", kinds=("computer",) * 6).with_option("hand_size", 20)
    console, clock, _queue = console_for(display, choices, game_seed=1, skip_lobby=True)
    console.start()
    assert console.phase is Phase.LOBBY
    banner = console.model(clock.now_ns()).banner
    assert banner.startswith("Cannot start:") and "hand_size" in banner


def test_the_handheld_menu_continues_ends_or_leaves_a_game(
    display: TableDisplay, tmp_path: Path
) -> None:
    """Holding BACK (the driver's "menu" key) opens a menu on that handheld: BACK goes on
    with the game, END shows the results without a winner and the journal is not resumed;
    while the menu is open the seat's keys play nothing."""
    console, clock, queue, _ = make(display, ("human", "computer"), "right-on-time",
                                    state_dir=tmp_path)
    queue.post(KeyPress(0, "menu", clock.now_ns()))
    console.step()
    seat = console.flow.playing[0]
    screen = seat.screen()
    assert screen.picker is not None and screen.picker.options == ("GO ON", "END", "LOBBY")
    queue.post(KeyPress(0, "select", clock.now_ns()))  # GO ON
    console.step()
    assert seat.menu is None and console.phase is Phase.PLAY
    queue.post(KeyPress(0, "menu", clock.now_ns()))
    queue.post(KeyPress(0, "right", clock.now_ns()))
    console.step()
    assert console.record is not None and console.record.actions == []
    queue.post(KeyPress(0, "select", clock.now_ns()))  # END
    console.step()
    assert phase_of(console) is Phase.GAMEOVER
    assert console.model(clock.now_ns()).view is not None
    assert console.plugin.engine.outcome(console.pos) is None  # no winner: ended by hand
    again, *_ = make(display, ("human", "human"), state_dir=tmp_path, skip_lobby=False,
                     resume=True)
    assert again.phase is Phase.LOBBY


def test_the_handheld_menu_lobby_choice_leaves_for_the_lobby(display: TableDisplay) -> None:
    """LOBBY in the handheld menu ends the game and shows the lobby at once."""
    console, clock, queue, _ = make(display, ("human", "computer"), "right-on-time")
    for key in ("menu", "left", "select"):  # GO ON -> (wrap) LOBBY
        queue.post(KeyPress(0, key, clock.now_ns()))
    console.step()
    assert console.phase is Phase.LOBBY


class _BuggyOled:
    """A luma-like display whose driver has a bug: ``display()`` raises ``ValueError``
    while ``broken``."""

    width, height, mode, size = 128, 64, "1", (128, 64)

    def __init__(self) -> None:
        from luma.core.device import dummy  # type: ignore[import-untyped]

        self.inner = dummy(width=128, height=64, mode="1")
        self.broken = True

    def display(self, image: Any) -> None:
        if self.broken:
            raise ValueError("driver bug")
        self.inner.display(image)


def test_a_buggy_handheld_driver_never_freezes_the_tv_and_comes_back_alone(
    display: TableDisplay
) -> None:
    """A display() that raises an unexpected error marks that handheld gone; the TV and the
    other seats are still drawn; when it works again it is retried without any key press
    (the loop wakes for the retry) and shows its screen."""
    buggy = _BuggyOled()
    good = open_hand_display(1, "dummy")
    console, clock, _queue = console_for(
        display, LobbyChoices(game="right-on-time", kinds=("human", "computer")),
        seats=[buggy, good], skip_lobby=True)
    console.start()
    display.surface.fill((0, 0, 0))
    console.render(clock.now_ns())
    assert display.surface.get_at((5, 5))[:3] != (0, 0, 0)  # the TV was drawn
    assert good.image.getbbox() is not None
    assert not console.seats[0].handheld.connected
    buggy.broken = False
    console.step()  # nothing else happens: a person is to move; the retry wakes the loop
    assert console.seats[0].handheld.connected
    assert buggy.inner.image.getbbox() is not None


@pytest.mark.parametrize("t_ns", [10**30, -(10**18), 2**63])
def test_a_press_with_an_absurd_edge_time_is_ignored(display: TableDisplay, t_ns: int) -> None:
    """A press stamped far from the loop's clock (a driver fault) is one log line: no
    false slap, no wake-up win."""
    console, clock, queue, _ = make(display, ("human", "human"))
    console.play_from(window_position(window=None, draw=["6S/<", "7C/~"]), clock.now_ns())
    queue.post(Press(1, t_ns))
    console.step()
    assert console.record is not None and console.record.actions == []


def test_help_prints_the_usage(capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m device --help` prints its usage and exits 0 (a '%' in a help text must
    not crash it)."""
    from device.main import main

    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "--bot-slap-ms" in out and "64% of it" in out


def test_a_journal_action_the_engine_refuses_resumes_from_the_action_before(
    display: TableDisplay, tmp_path: Path
) -> None:
    """A stored action the engine refuses (a database from another engine version) ends
    the replay there: the game resumes from the action before it, the bad record and what
    follows are dropped, and the database stays usable."""
    console, _clock, _queue, _ = make(display, ("computer", "computer"), "right-on-time",
                                      state_dir=tmp_path)
    for _ in capped(lambda: console.record is not None and len(console.record.actions) < 6):
        console.step()
    actions = list(console.record.actions) if console.record else []
    console.close()
    with GameDB.open(tmp_path) as db:
        game = db.unfinished()
        assert game is not None
        db.append(game.id, ActionRecord("play 9 9"))
        db.append(game.id, ActionRecord(actions[0]))
    again, *_ = make(display, ("human", "human"), state_dir=tmp_path, skip_lobby=False,
                     resume=True)
    assert again.phase is Phase.PLAY and again.record is not None
    assert again.record.actions == actions
    again.close()
    with GameDB.open(tmp_path) as db:
        game = db.unfinished()
    assert game is not None and game.actions == actions


def test_a_journaled_game_with_more_seats_than_the_console_opens_the_lobby(
    display: TableDisplay, tmp_path: Path
) -> None:
    """A 3-seat game cut, then a console with 2 handhelds (the config changed): one log
    line and the lobby, never a seat that does not exist."""
    console, *_ = make(display, ("computer",) * 3, state_dir=tmp_path)
    for _ in capped(lambda: console.record is not None and len(console.record.actions) < 3):
        console.step()
    smaller, *_ = make(display, ("human", "human"), state_dir=tmp_path, skip_lobby=False,
                       resume=True)
    assert smaller.phase is Phase.LOBBY


def test_a_restored_game_is_offered_and_goes_on_by_itself(
    display: TableDisplay, tmp_path: Path
) -> None:
    """After a power cut the restored game waits on the TV ("Game restored ...: SLAP to go
    on"): nobody moves, not even a computer player, until its 5 s are up; then it goes on by
    itself and the notice goes (it never stays up all game)."""
    console, *_ = make(display, ("computer", "computer"), "right-on-time", state_dir=tmp_path)
    for _ in capped(lambda: console.record is not None and len(console.record.actions) < 3):
        console.step()
    console.close()
    again, clock, _queue, _ = make(display, ("human", "human"), state_dir=tmp_path,
                                   skip_lobby=False, resume=True)
    assert "Restored: SLAP" in again.model(clock.now_ns()).banner
    record = again.record
    assert record is not None and again.flow.snapshot().held
    start = clock.now_ns()
    went_on = None
    for _ in capped(lambda: len(record.actions) == 3):
        again.step()
        if went_on is None and not again.flow.snapshot().held:
            went_on = clock.now_ns()
    assert went_on is not None and went_on - start == 5 * S
    assert clock.now_ns() > went_on
    assert "Restored" not in again.model(clock.now_ns()).banner


class Recording(TablePresenter):
    """The TV, remembering the model of every frame it was asked to draw."""

    def __init__(self, display: TableDisplay) -> None:
        super().__init__(display, motion=False)
        self.models: list[tuple[int, TableModel]] = []

    def present(self, model: TableModel, seats: Any, now_ns: int, force: bool) -> int | None:
        """Draw as the TV does and note ``(now_ns, model)``."""
        self.models.append((now_ns, model))
        return super().present(model, seats, now_ns, force)

    @property
    def banners(self) -> list[tuple[int, str]]:
        """``(now_ns, banner)`` of every frame whose banner differs from the one before."""
        out: list[tuple[int, str]] = []
        for t, m in self.models:
            if not out or out[-1][1] != m.banner:
                out.append((t, m.banner))
        return out


def restored(display: TableDisplay, tmp_path: Path, kinds: tuple[str, ...] = ("human", "human"),
             **kw: Any) -> tuple[Console, FakeClock, FakeQueue, Recording]:
    """A console that finds a cut Right on Time game (2 computers, 3 actions) in
    ``tmp_path`` and offers it; its TV records what it drew."""
    console, *_ = make(display, ("computer", "computer"), "right-on-time", state_dir=tmp_path)
    for _ in capped(lambda: console.record is not None and len(console.record.actions) < 3):
        console.step()
    console.close()
    tv = Recording(display)
    again, clock, queue = console_for(
        display, kw.pop("choices", LobbyChoices(game="riiing", kinds=kinds)), len(kinds), tv,
        state_dir=tmp_path, resume=True, **kw)
    again.start()
    again.render(clock.now_ns())
    assert again.flow.snapshot().held
    return again, clock, queue, tv


def test_the_restore_offer_counts_down_once_a_second(display: TableDisplay, tmp_path: Path
                                                     ) -> None:
    """"Restored: SLAP = go on, BACK = lobby (5 s)" counts down on the TV: 5, 4, 3, 2, 1,
    each drawn at its whole second by a loop timer (one wake-up a second, no busy wait),
    then the game goes on by itself and the notice goes."""
    again, clock, _queue, tv = restored(display, tmp_path)
    start = clock.now_ns()
    record = again.record
    assert record is not None
    wakeups = again.loop.wakeups
    for _ in capped(lambda: again.flow.snapshot().held, cap=50):
        again.step()
    assert not again.flow.snapshot().held and clock.now_ns() - start == 5 * S
    assert again.loop.wakeups - wakeups == 5  # one per second: 4 redraws and the go-on
    shown = [(t - start, b) for t, b in tv.banners if "Restored" in b]
    assert [b.split("(")[-1] for _t, b in shown] == ["5 s)", "4 s)", "3 s)", "2 s)", "1 s)"]
    assert [t for t, _b in shown] == [0, 1 * S, 2 * S, 3 * S, 4 * S]
    assert all(b.startswith("Restored: SLAP = go on, BACK = lobby (") for _t, b in shown)
    assert "Restored" not in again.model(clock.now_ns()).banner


@pytest.mark.parametrize("key", ["back", "slap"])
def test_the_counting_restore_offer_still_takes_back_and_slap(
    display: TableDisplay, tmp_path: Path, key: str
) -> None:
    """Two seconds into the countdown ("3 s" on the TV) BACK still declines (the lobby)
    and a slap still goes on at once; the countdown then stops (no more redraws of it)."""
    again, clock, queue, tv = restored(display, tmp_path)
    start = clock.now_ns()
    for _ in range(10):
        if clock.now_ns() - start >= 2 * S:
            break
        again.step()
    assert again.flow.snapshot().held and "(3 s)" in again.model(clock.now_ns()).banner
    if key == "back":
        queue.post(KeyPress(0, "back", clock.now_ns()))
    else:
        queue.post(Press(1, clock.now_ns()))
    again.step()
    assert not again.flow.snapshot().held
    assert again.phase is (Phase.LOBBY if key == "back" else Phase.PLAY)
    assert "Restored" not in again.model(clock.now_ns()).banner
    names = [t.name for t in again.flow.timers._heap if not t.cancelled]
    assert "restore countdown" not in names
    counted = sum("Restored" in b for _t, b in tv.banners)
    for _ in range(5):
        again.step()
    assert sum("Restored" in b for _t, b in tv.banners) == counted == 3


def test_a_slap_goes_on_with_a_restored_game_at_once(display: TableDisplay, tmp_path: Path) -> None:
    """A slap while the restored game waits goes on with it at once; it is no slap in the
    game (no false slap, no card)."""
    again, clock, queue = offered(display, tmp_path)
    record = again.record
    assert record is not None and again.flow.snapshot().held
    queue.post(Press(0, clock.now_ns()))
    again.step()
    assert not again.flow.snapshot().held and "Restored" not in again.model(clock.now_ns()).banner
    assert record.actions[4:] == [] or not record.actions[4].startswith("falseslap")


def test_computer_players_only_deal_the_next_game_by_themselves(
    display: TableDisplay, tmp_path: Path
) -> None:
    """With nobody to press a key (a demo box, the appliance test), the results stay up
    for their time and the next game deals with the next seed; with a person at the table
    the results wait for a key."""
    console, clock, _queue, done = make(display, ("computer", "computer"), "right-on-time",
                                        state_dir=tmp_path)
    for _ in capped(lambda: len(done) < 2):
        console.step()
    assert [r.seed for r in done] == [3, 4]
    assert console.phase is not Phase.LOBBY
    console.close()
    with GameDB.open(tmp_path) as db:
        assert [(g.header.seed, g.outcome) for g in db.games()][-2:] == [(4, "won"), (3, "won")]
    person, clock, _queue, done = make(display, ("human", "computer"), state_dir=None)
    person.flow.over.show(1, "test", clock.now_ns())
    assert person.phase is Phase.GAMEOVER
    assert [t.name for t in person.flow._timers if not t.cancelled] == []


def test_a_state_dir_that_cannot_hold_games_is_named_and_the_game_goes_on(
    display: TableDisplay, tmp_path: Path
) -> None:
    """A state directory that cannot hold the database (here a file where the folder
    should be: like a read-only or full card, every open fails) is named on the TV at
    start and while it lasts; the game is played to its end all the same."""
    blocked = tmp_path / "state"
    blocked.write_text("a file, not a folder")
    console, clock, _queue, done = make(display, ("computer", "computer"), state_dir=blocked)
    assert console.model(clock.now_ns()).banner.startswith("Games are not saved:")
    assert str(blocked) in console.model(clock.now_ns()).banner
    for _ in capped(lambda: not done):
        console.step()
        assert "Games are not saved" in console.flow.snapshot().banner
    assert done[0].winner is not None and blocked.read_text() == "a file, not a folder"


def test_the_flow_cues_a_ring_a_slap_and_a_win(display: TableDisplay) -> None:
    """The flow's own sound cues: "ring" at the flip that shows the wake-up race and a
    RIIING! window (never before the picture), "slap" when a slap wins it, "refusal" for a
    refused action, "win" at a game won; the sound player gets the names in order
    (device.modes.sound plays them)."""
    cues: list[str] = []
    console, clock, queue, _ = make(display, ("human", "human"), cue=cues.append)
    assert cues == ["ring"]  # the wake-up race's screen
    cues.clear()
    console.play_from(window_position(), clock.now_ns())
    t0 = console.flow.race.arbiter.t0_ns
    assert cues == ["ring"] and t0 is not None
    clock.advance(400 * MS)
    queue.post(Press(1, t0 + 380 * MS))
    console.step()
    console.step()  # settle over: seat 1 wins
    assert cues[:2] == ["ring", "slap"]
    assert not console.flow.submit(0, console.plugin.engine.parse_action("timeout"),
                                   clock.now_ns())  # no window is open (RI-6.4)
    assert cues[-1] == "refusal"
    console.flow.over.show(1, "test", clock.now_ns())
    assert cues[-1] == "win"


def test_back_declines_a_restored_game_and_it_is_not_offered_again(
    display: TableDisplay, tmp_path: Path
) -> None:
    """"Continue the unfinished game?" BACK on any handheld says no: the lobby opens and
    the game is ended without a winner, so the next start does not offer it again."""
    again, clock, queue = offered(display, tmp_path)
    assert again.flow.snapshot().held and "BACK = lobby" in again.model(clock.now_ns()).banner
    queue.post(KeyPress(1, "back", clock.now_ns()))
    again.step()
    assert again.phase is Phase.LOBBY and not again.flow.snapshot().held
    assert "Restored" not in again.model(clock.now_ns()).banner
    again.close()
    third, *_ = make(display, ("human", "human"), state_dir=tmp_path, skip_lobby=False,
                     resume=True)
    assert third.phase is Phase.LOBBY
    with GameDB.open(tmp_path) as db:
        assert db.unfinished() is None and db.games()[0].outcome == "abandoned"


def test_declining_a_restored_game_opens_the_lobby_the_command_line_asked_for(
    display: TableDisplay, tmp_path: Path
) -> None:
    """The command line asks for 3-seat Riiing! with 10 cards, a hard computer and a
    person first; a cut 2-seat Right on Time game is offered instead (its own choices show
    meanwhile).  BACK declines it: the lobby holds exactly what the command line asked for
    (game, seats, strengths, options), not the restored game's nor the defaults, and START
    deals that with a new seed.  The BACK comes from the third handheld, which the
    restored 2-seat game has no seat for: any handheld of the console answers the offer."""
    asked = LobbyChoices(game="riiing", kinds=("human", "computer", "human"),
                         strengths=("normal", "hard", "normal"),
                         options=(("riiing", (("hand_size", 10),)),))
    again, clock, queue, _tv = restored(display, tmp_path, ("human",) * 3, choices=asked)
    assert again.flow.lobby.choices.game == "right-on-time"  # the offered game meanwhile
    queue.post(KeyPress(2, "back", clock.now_ns()))
    again.step()
    assert again.phase is Phase.LOBBY and not again.flow.snapshot().held
    assert again.flow.lobby.choices == asked
    assert again.plugin.name == "riiing"
    rows = {label: value for _key, label, value in again.flow.lobby.rows()}
    assert rows["Game"] == get_plugin("riiing").title and rows["Seats"] == "3"
    assert rows["Seat 2"] == "computer (hard)" and rows["Cards each"] == "10"
    again.flow.lobby_phase.start_game(clock.now_ns())
    record = again.record
    assert record is not None and record.game == "riiing"
    assert record.kinds == ("human", "computer", "human") and record.options["hand_size"] == 10
    assert record.seed == 4  # after the declined game's seed 3, never the same deal again


def test_a_button_of_a_seat_not_in_the_game_is_said_once(display: TableDisplay) -> None:
    """A 2-seat game on a 4-button console: seat 4's slap is no slap in the game, and the
    TV says so once (not at every press), for a few seconds."""
    console, clock, queue = console_for(
        display, LobbyChoices(game="riiing", kinds=("human", "human")), seats=4, skip_lobby=True)
    console.start()
    console.play_from(window_position(), clock.now_ns())
    t0 = console.flow.race.arbiter.t0_ns
    assert t0 is not None
    queue.post(Press(3, clock.now_ns()))
    console.step()
    banner = console.model(clock.now_ns()).banner
    assert banner.count("Seat 4's button is not in this game (2 seats play)") == 1
    queue.post(Press(3, clock.now_ns()))
    console.step()
    assert console.model(clock.now_ns()).banner == banner
    assert console.record is not None and console.record.actions == []
    clock.advance(11 * S)
    console.flow.timers.run_due(clock.now_ns())
    assert "not in this game" not in console.model(clock.now_ns()).banner


def test_the_slap_shows_its_margin_and_a_false_slap_is_said_on_its_hand(
    display: TableDisplay
) -> None:
    """The TV says the winner's time and the margin to the next slapper ("by 40 ms over
    Seat 1"); a false slap (no window open) is said on the slapper's own hand screen."""
    console, clock, queue, t0 = in_window(display)
    clock.advance(450 * MS)
    queue.post(Press(1, t0 + 380 * MS))
    queue.post(Press(0, t0 + 420 * MS))
    console.step()
    console.step()
    snap = console.flow.snapshot()
    assert snap.slap_shown == (1, 380) and snap.slap_margin == (0, 40)
    assert console.flow.snapshot().last_event == "Seat 2 slapped in 380 ms, by 40 ms over Seat 1"
    false_slapper = console.flow.playing[0]
    actions = len(console.record.actions) if console.record else 0
    clock.advance(2 * S)
    queue.post(Press(0, clock.now_ns()))
    console.step()
    assert console.record is not None and len(console.record.actions) == actions + 1
    assert console.record.actions[-1].startswith("falseslap")
    assert false_slapper.hand._message == "False slap!"


def slap_lines(tv: Recording) -> list[tuple[int, tuple[int, int] | None, tuple[int, int] | None]]:
    """``(now_ns, slap, margin)`` of every frame the TV drew that changed either."""
    out: list[tuple[int, tuple[int, int] | None, tuple[int, int] | None]] = []
    for t, m in tv.models:
        if not out or out[-1][1:] != (m.slap, m.slap_margin):
            out.append((t, m.slap, m.slap_margin))
    return out


def watched(display: TableDisplay, kinds: tuple[str, ...], pos: Any
            ) -> tuple[Console, FakeClock, FakeQueue, Recording, int]:
    """A console playing from ``pos`` with a recording TV; returns it with the window's t0."""
    tv = Recording(display)
    console, clock, queue = console_for(display, LobbyChoices(game="riiing", kinds=kinds),
                                        presenter=tv, skip_lobby=True)
    console.start()
    console.play_from(pos, clock.now_ns())
    t0 = console.flow.race.arbiter.t0_ns
    assert t0 is not None
    return console, clock, queue, tv, t0


def test_a_loser_after_the_decision_still_gets_the_margin(display: TableDisplay) -> None:
    """A person pressing 80 ms after the winner, read after the window was decided (a
    LOSING slap, RI-6.5), becomes the runner-up: the TV redraws "by 80 ms over Seat 1" and
    the top line says so; the winner, the actions and the reaction time stay."""
    console, clock, queue, tv, t0 = watched(display, ("human", "human"), window_position())
    clock.advance(400 * MS)
    queue.post(Press(1, t0 + 380 * MS))
    console.step()
    console.step()  # settle over: seat 1 wins alone
    assert console.record is not None and console.record.actions == ["slap 1"]
    snap = console.flow.snapshot()
    assert snap.slap_shown == (1, 380) and snap.slap_margin is None
    decided = clock.now_ns()
    clock.advance(60 * MS)
    queue.post(Press(0, t0 + 460 * MS))
    console.step()
    snap = console.flow.snapshot()
    assert snap.slap_shown == (1, 380) and snap.slap_margin == (0, 80)
    assert console.flow.snapshot().last_event == "Seat 2 slapped in 380 ms, by 80 ms over Seat 1"
    assert console.record.actions == ["slap 1"]
    lines = slap_lines(tv)
    assert lines[-1][1:] == ((1, 380), (0, 80)) and lines[-2][1:] == ((1, 380), None)
    assert decided < lines[-1][0] <= decided + 1 * S


def test_the_runner_up_is_the_nearest_loser_and_never_the_winner(display: TableDisplay
                                                                  ) -> None:
    """Four people: the winner at 300 ms; a loser at 700 ms is read first (margin 400), one
    at 420 ms whose callback came later replaces it (margin 120); a later one at 900 ms and
    a second press of the winner change nothing, nor does a 310 ms edge read more than 1 s
    after the decision (collection is over); the winner is never changed."""
    pos = window_position(seats=4, hands=[["5C/>", "9S/O"], ["2S/=", "4A/<"],
                                          ["6T/<", "1C/E"], ["8A/=", "2C/O"]])
    console, clock, queue, _tv, t0 = watched(display, ("human",) * 4, pos)
    clock.advance(320 * MS)
    queue.post(Press(2, t0 + 300 * MS))
    console.step()
    console.step()
    assert console.record is not None and console.record.actions == ["slap 2"]
    decided = clock.now_ns()
    clock.advance(400 * MS)
    queue.post(Press(1, t0 + 700 * MS))
    console.step()
    assert console.flow.snapshot().slap_margin == (1, 400)
    queue.post(Press(0, t0 + 420 * MS))
    console.step()
    assert console.flow.snapshot().slap_margin == (0, 120)
    queue.post(Release(2, t0 + 350 * MS))
    queue.post(Press(2, t0 + 800 * MS))  # the winner again
    queue.post(Release(1, t0 + 800 * MS))
    queue.post(Press(1, t0 + 900 * MS))
    console.step()
    snap = console.flow.snapshot()
    assert snap.slap_margin == (0, 120) and snap.slap_shown == (2, 300)
    clock.advance(decided + 1 * S + 1 - clock.now_ns())
    queue.post(Press(3, t0 + 310 * MS))  # nearer, but read too late to count
    console.step()
    assert console.flow.snapshot().slap_margin == (0, 120)
    assert console.record.actions == ["slap 2"]
    assert console.flow.snapshot().last_event == "Seat 3 slapped in 300 ms, by 120 ms over Seat 1"


def test_a_computer_loser_after_the_decision_gets_the_margin_too(display: TableDisplay
                                                                  ) -> None:
    """A computer player whose reaction comes after a person's winning slap (within 1 s)
    is the runner-up at its reaction time, on the TV (a redraw at that moment); its press
    makes no action."""
    console, clock, queue, tv, t0 = watched(display, ("human", "computer"), window_position())
    reaction = console.flow.play.slap.margin.planned.get(1)
    assert reaction is not None and reaction > 300 * MS  # the seeded computer's plan
    clock.advance(250 * MS)
    queue.post(Press(0, t0 + 200 * MS))
    console.step()
    console.step()
    assert console.record is not None and console.record.actions == ["slap 0"]
    assert console.flow.snapshot().slap_margin is None
    for _ in range(10):
        if console.flow.snapshot().slap_margin is not None:
            break
        console.step()
    want = (1, round((reaction - 200 * MS) / MS))
    assert console.flow.snapshot().slap_margin == want and clock.now_ns() == t0 + reaction
    assert console.record.actions == ["slap 0"]
    assert slap_lines(tv)[-1] == (t0 + reaction, (0, 200), want)


def test_the_lobby_shows_tonights_leaderboard_and_clears_it(
    display: TableDisplay, tmp_path: Path
) -> None:
    """After a game the lobby lists tonight's fastest slaps and games won (from the game
    database); SELECT on "Clear tonight's board" empties it."""
    console, clock, queue, done = make(display, ("computer", "computer", "computer"),
                                       state_dir=tmp_path)
    for _ in capped(lambda: not done):
        console.step()
    console.flow.enter_lobby(clock.now_ns())
    rows = console.flow.lobby.rows()
    labels = [r[1] for r in rows]
    assert "Games won" in labels and "Clear tonight's board" in labels
    won = next(r[2] for r in rows if r[1] == "Games won")
    winner = done[0].winner
    assert winner is not None and won == f"Seat {winner + 1}: 1"
    if done[0].slaps:
        assert "Fastest slaps" in labels
    console.flow.lobby.cursor = labels.index("Clear tonight's board")
    queue.post(KeyPress(0, "select", clock.now_ns()))
    queue.post(KeyPress(0, "select", clock.now_ns()))  # the first asks, the second clears
    console.step()
    assert [r for r in console.flow.lobby.rows() if r[0] in ("board", "clear")] == []
    assert console.phase is Phase.LOBBY


def board_lobby(display: TableDisplay, tmp_path: Path
                ) -> tuple[Console, FakeClock, FakeQueue]:
    """A console in the lobby with tonight's board holding one game (a 1-point Right on
    Time match of two computers, seed 3), the highlight on "Clear tonight's board"."""
    done: list[GameRecord] = []
    console, clock, queue = console_for(
        display, LobbyChoices(game="right-on-time", kinds=("computer", "computer"),
                              options=(("right-on-time", (("target_points", 1),)),)),
        state_dir=tmp_path, on_game_over=done.append, skip_lobby=True)
    console.start()
    for _ in range(2000):
        if done:
            break
        console.step()
    assert done and done[0].winner is not None
    console.flow.enter_lobby(clock.now_ns())
    labels = [r[1] for r in console.flow.lobby.rows()]
    console.flow.lobby.cursor = labels.index("Clear tonight's board")
    return console, clock, queue


def board_rows(console: Console, state_dir: Path) -> tuple[bool, int]:
    """Whether the lobby shows the board rows, and the games won tonight as another reader
    of the game database sees them (the database's own rows, not the lobby's copy)."""
    shown = any(r[0] == "board" for r in console.flow.lobby.rows())
    with open_read_only(state_dir / DB_NAME) as db:
        return shown, sum(db.leaderboard().wins.values())


def test_clearing_tonights_board_asks_first_and_a_second_press_clears(
    display: TableDisplay, tmp_path: Path
) -> None:
    """SELECT on "Clear tonight's board" only asks ("Clear tonight's board? press again"
    on the TV); the board and the database's rows stay; a second SELECT within 3 s clears
    both, and the TV says so."""
    console, clock, queue = board_lobby(display, tmp_path)
    assert board_rows(console, tmp_path) == (True, 1)
    queue.post(KeyPress(1, "select", clock.now_ns()))
    console.step()
    assert console.model(clock.now_ns()).last_event == "Clear tonight's board? press again"
    assert board_rows(console, tmp_path) == (True, 1)
    clock.advance(2_900 * MS)
    queue.post(KeyPress(0, "select", clock.now_ns()))
    console.step()
    assert board_rows(console, tmp_path) == (False, 0)
    assert console.model(clock.now_ns()).last_event == "Tonight's board cleared"
    assert console.phase is Phase.LOBBY


@pytest.mark.parametrize("other", ["timeout", "right", "back", "left", "slap"])
def test_clearing_tonights_board_is_cancelled_by_the_timeout_or_another_input(
    display: TableDisplay, tmp_path: Path, other: str
) -> None:
    """After the question, 3 s without an answer, another key (even one that comes back
    to the row) or a slap cancels it: the question goes from the TV, nothing is cleared,
    and the next SELECT on the row asks again instead of clearing."""
    console, clock, queue = board_lobby(display, tmp_path)
    row = console.flow.lobby.cursor
    queue.post(KeyPress(0, "select", clock.now_ns()))
    console.step()
    asked_at = clock.now_ns()
    assert "press again" in console.model(clock.now_ns()).last_event
    if other == "timeout":
        for _ in range(5):
            if clock.now_ns() - asked_at >= 3 * S:
                break
            console.step()
        assert clock.now_ns() - asked_at == 3 * S  # the loop woke for the timeout itself
    elif other == "slap":
        queue.post(Press(0, clock.now_ns()))
        console.step()
    else:
        queue.post(KeyPress(0, other, clock.now_ns()))
        console.step()
    assert "press again" not in console.model(clock.now_ns()).last_event
    assert board_rows(console, tmp_path) == (True, 1)
    console.flow.lobby.cursor = row
    queue.post(KeyPress(0, "select", clock.now_ns()))
    console.step()
    assert "press again" in console.model(clock.now_ns()).last_event
    assert board_rows(console, tmp_path) == (True, 1)


def test_a_round_end_stays_on_the_tv_for_four_seconds(display: TableDisplay) -> None:
    """Right on Time: the action that wins a round is followed by at least 4 s of
    "Seat N wins round 1" with the score (the TV's round_end), during which nobody plays
    on; then the next round's play goes on and the banner goes.  The actions are the same
    as without the hold (presentation only)."""
    times: list[int] = []
    clock = display.clock
    assert isinstance(clock, FakeClock)
    console, _clock, _queue, done = make(display, ("computer", "computer"), "right-on-time",
                                         on_action=lambda n: times.append(clock.now_ns()))
    for _ in capped(lambda: console.flow.snapshot().round_end is None and not done):
        console.step()
    shown = console.flow.snapshot().round_end
    assert shown is not None and console.record is not None
    assert shown.headline.endswith("wins round 1") and "Seat 1: " in shown.score
    winner = int(shown.headline.split()[1]) - 1
    assert shown.seat == winner and f"{shown.headline.split(' wins')[0]}: 1" in shown.score
    record = console.record
    at, count = clock.now_ns(), len(record.actions)
    for _ in capped(lambda: console.record is record and len(record.actions) == count):
        console.step()
        if console.flow.snapshot().round_end is not None:
            assert clock.now_ns() - at < 4 * S + 1
    assert times[-1] - at >= 4 * S and console.flow.snapshot().round_end is None
    for _ in capped(lambda: not done):
        console.step()
    clock2 = FakeClock(0)
    other = TableDisplay("dummy", (480, 270), clock=clock2)
    try:
        plain, _c, _q, plain_done = make(other, ("computer", "computer"), "right-on-time",
                                         timing=Timing(round_ns=0))
        for _ in capped(lambda: not plain_done):
            plain.step()
    finally:
        other.close()
    assert plain_done[0].actions == done[0].actions


class Knob:
    """A sound player's volume as the flow sees it (device.modes.sound.SoundPlayer)."""

    def __init__(self, volume: int) -> None:
        self.volume = volume


def test_the_lobby_volume_row_sets_the_sound_and_is_remembered(
    display: TableDisplay, tmp_path: Path
) -> None:
    """With a sound player the lobby has a Volume row starting at the config's volume:
    SELECT makes it louder (a sample sound plays), BACK softer, within 0..10; the choice
    is saved with the lobby's and set again at the next start."""
    knob, cues = Knob(7), list[str]()
    console, clock, queue, _ = make(display, ("human", "computer"), state_dir=tmp_path,
                                    skip_lobby=False, volume=knob, cue=cues.append)
    labels = [r[1] for r in console.flow.lobby.rows()]
    row = labels.index("Volume")
    assert console.flow.lobby.rows()[row][2] == "7"
    console.flow.lobby.cursor = row
    for key in ("select", "select", "select", "select", "back"):
        queue.post(KeyPress(0, key, clock.now_ns()))
        console.step()
    assert knob.volume == 9 and cues == ["lay"] * 4
    console.flow.lobby.cursor = labels.index("START")
    queue.post(KeyPress(0, "select", clock.now_ns()))
    console.step()
    assert json.loads((tmp_path / "lobby.json").read_text())["volume"] == 9
    console.close()
    choices, warning = load_choices(tmp_path / "lobby.json")
    assert warning is None and choices.volume == 9
    again_knob = Knob(3)  # the config says 3; the lobby remembered 9
    again, *_ = console_for(display, choices, seats=2, state_dir=tmp_path, volume=again_knob)
    again.start()
    assert again_knob.volume == 9
    (tmp_path / "lobby.json").write_text(json.dumps({**choices.to_json(), "volume": 99}))
    _, warning = load_choices(tmp_path / "lobby.json")
    assert warning is not None and "'volume' must be 0 to 10" in warning and "\n" not in warning


def test_a_run_that_never_resumes_keeps_its_seed_and_ends_cut_games(
    display: TableDisplay, tmp_path: Path
) -> None:
    """Headless runs are reproducible: a console without resume plays the seed it is given
    even when the database has later games, and a game a killed run left unfinished is
    ended (abandoned), so it is pruned like the others rather than kept for ever."""
    first, *_ = make(display, ("computer", "computer"), state_dir=tmp_path)
    for _ in capped(lambda: first.record is not None and len(first.record.actions) < 3):
        first.step()
    first.close()  # killed mid-game: unfinished
    again, _clock, _queue, done = make(display, ("computer", "computer"), state_dir=tmp_path)
    for _ in capped(lambda: not done):
        again.step()
    assert done[0].seed == 3
    again.close()
    with GameDB.open(tmp_path) as db:
        games = db.games()
    assert [(g.header.seed, g.outcome) for g in reversed(games)][:2] == [
        (3, "abandoned"), (3, "won")]


def test_a_held_round_end_shows_the_round_that_ended(display: TableDisplay) -> None:
    """While "Seat N wins round 1" is held, the TV's view and the hand screens are still the
    round that ended (RT-2.4 deals the next round at once: presentation only): that round
    on the TV, no hand saying it is its turn but the headline on every hand; once the hold
    is over the TV shows the next round."""
    clock = display.clock
    assert isinstance(clock, FakeClock)
    console, _clock, _queue, done = make(display, ("human", "computer", "computer"),
                                         "right-on-time")
    for _ in capped(lambda: console.flow.snapshot().round_end is None and not done):
        if console.flow.snapshot().phase is Phase.PLAY and console.flow.snapshot().pos is not None:
            mover = console.flow.plugin.to_move(console.flow.snapshot().pos)
            if mover == 0:  # the person lays the first legal action
                legal = console.flow.plugin.engine.legal(console.flow.snapshot().pos)
                console.flow.submit(0, legal[0], clock.now_ns())
        console.step()
    held = console.flow.snapshot().round_end
    assert held is not None
    ended = int(held.headline.split()[-1])
    assert console.flow.snapshot().pos.round == ended + 1  # the engine has dealt the next round
    view = console.model(clock.now_ns()).view
    assert view is not None and view.round == ended
    for seat in console.flow.playing:
        assert seat.hand._phase is Phase.GAMEOVER and seat.hand._message == held.headline
    for _ in capped(lambda: console.flow.snapshot().round_end is not None):
        console.step()
    after = console.model(clock.now_ns()).view
    assert after is not None and after.round == ended + 1


def test_the_snapshot_is_a_frozen_value_of_what_the_tv_shows(display: TableDisplay) -> None:
    """``GameFlow.snapshot()`` is one frozen value: in the lobby it has the lobby's menu and
    no "How to play" page, a key later does not change a snapshot taken before it, and
    in play it has the position, the record and the slap window's deadline the TV model
    shows."""
    import dataclasses

    console, clock, queue, _ = make(display, ("human", "human"), skip_lobby=False)
    before = console.flow.snapshot()
    assert before.phase is Phase.LOBBY and before.lobby is not None and before.howto is None
    assert before.pos is None and before.record is None and not before.held
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(before, "last_event", "changed")  # noqa: B010 (a frozen field, on purpose)
    queue.post(KeyPress(0, "right", clock.now_ns()))
    console.step()
    after = console.flow.snapshot()
    assert after.lobby is not None and after.lobby.cursor == before.lobby.cursor + 1
    assert before.lobby.cursor == 0
    console.play_from(window_position(), clock.now_ns())
    snap = console.flow.snapshot()
    model = console.model(clock.now_ns())
    assert snap.phase is Phase.PLAY and snap.lobby is None and snap.pos is console.pos
    assert snap.record is console.record and snap.deadline_ns == model.deadline_ns
    assert snap.deadline_ns is not None and snap.last_event == model.last_event
    assert [s.index for s in snap.playing] == [0, 1]


def test_with_verbose_logs_the_log_reads_like_the_screens(
    display: TableDisplay, caplog: pytest.LogCaptureFixture
) -> None:
    """At INFO (``-v``) every new hand screen is one ``Seat N screen {json}`` line whose JSON
    is that screen's model, and every lobby key logs the row the TV highlights: a tester (or
    the virtual Pi's host) reads the game from the log as a person reads the OLED and TV."""
    import logging

    from device.hands.composer import HandScreenModel, Picker, Tile

    caplog.set_level(logging.INFO, logger="partytable")
    console, clock, queue, _ = make(display, ("human", "computer"), "right-on-time",
                                    skip_lobby=False)
    queue.post(KeyPress(0, "right", clock.now_ns()))
    console.step()
    console.render(clock.now_ns())
    rows = console.flow.lobby.rows()
    cursor = console.flow.lobby.cursor
    assert f"lobby: row {cursor} {rows[cursor][1]}" in caplog.text
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Seat 1 screen ")]
    assert lines, caplog.text
    fields = json.loads(lines[-1].removeprefix("Seat 1 screen "))
    fields["tiles"] = tuple(Tile(**t) for t in fields["tiles"])
    fields["banner"] = tuple(fields["banner"])
    if fields["picker"] is not None:
        fields["picker"] = Picker(**{**fields["picker"],
                                     "options": tuple(fields["picker"]["options"])})
    assert HandScreenModel(**fields) == console.seats[0].screen()


def test_with_verbose_logs_the_flips_a_slap_meets_are_logged_with_their_times(
    display: TableDisplay, caplog: pytest.LogCaptureFixture
) -> None:
    """The flip that opens a window is its t0, logged; the flip that first shows the
    winner is logged once with its time: where a slap meets the TV, for measuring press to
    screen on a real display."""
    import logging

    caplog.set_level(logging.INFO, logger="partytable")
    console, clock, queue, t0 = in_window(display)
    assert f"TV: a slap window opens at flip {t0}" in caplog.text
    clock.advance(400 * MS)
    queue.post(Press(1, t0 + 380 * MS))
    console.step()
    console.step()
    console.render(clock.now_ns())
    console.render(clock.now_ns() + MS)
    shown = [r.getMessage() for r in caplog.records if "slap (" in r.getMessage()]
    assert len(shown) == 1 and shown[0].startswith("TV: Seat 2's slap (380 ms) shown at flip ")
    assert int(shown[0].rsplit(" ", 1)[1]) >= t0 + 380 * MS


def test_the_results_stay_on_the_tv_through_a_last_hammered_select(
    display: TableDisplay,
) -> None:
    """A SELECT in the first two seconds of the results (a player still pressing at the
    game's end) leaves them on the TV; one after that returns to the lobby."""
    from device.flow.game_over import RESULTS_HOLD_NS

    console, clock, queue, _ = make(display, ("human", "computer"), "right-on-time")
    for key in ("menu", "right", "select"):  # the handheld menu's END: the results show
        queue.post(KeyPress(0, key, clock.now_ns()))
        console.step()
    assert phase_of(console) is Phase.GAMEOVER
    clock.advance(RESULTS_HOLD_NS // 4)
    queue.post(KeyPress(0, "select", clock.now_ns()))
    console.step()
    assert phase_of(console) is Phase.GAMEOVER
    clock.advance(RESULTS_HOLD_NS)
    queue.post(KeyPress(0, "select", clock.now_ns()))
    console.step()
    assert console.phase is Phase.LOBBY
