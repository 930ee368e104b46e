"""Scenario tests of the console (device/console.py) on a fake clock, headless.

Each test builds a console with the real table scene on SDL's dummy driver, luma dummy hand
screens and a :class:`FakeQueue`, drives it with the events the drivers would post (slap
``Press``/``Release`` with chosen edge times, handheld ``KeyPress``) and checks what the
engine, the table model and the hand screens show.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pytest
from console_helpers import screen_image

from device.console import Console, GameRecord, Timing, make_seats
from device.flow.lobby import LobbyChoices
from device.games import get_plugin
from device.modes.present import TablePresenter
from device.reactor.events import Abandon, FakeQueue, HandheldBack, HandheldGone
from device.store.db_schema import DB_NAME
from device.store.game_db import GameDB
from device.store.game_rows import StoredGame
from drivers.clock import FakeClock
from drivers.hand_display import open_hand_display
from drivers.keys import KeyPress
from drivers.slap import Press, Release
from drivers.table_display import TableDisplay
from engine import get_game

MS = 1_000_000
S = 1_000_000_000
START = 100 * S


@pytest.fixture
def display() -> Iterator[TableDisplay]:
    """A 960x540 table display on SDL's dummy driver whose flip times come from a fake
    clock (``display.clock``), closed after the test."""
    d = TableDisplay("dummy", (960, 540), clock=FakeClock(START))
    try:
        yield d
    finally:
        d.close()


def make_console(
    display: TableDisplay,
    kinds: tuple[str, ...],
    game: str = "riiing",
    *,
    skip_lobby: bool = True,
    state_dir: Path | None = None,
    seed: int = 3,
    resume: bool = False,
    devices: list[Any] | None = None,
) -> tuple[Console, FakeClock, FakeQueue, list[GameRecord]]:
    """A console on a fake clock with ``kinds`` seats; returns it with its clock, queue and
    the list that finished games' records are appended to."""
    clock = display.clock
    assert isinstance(clock, FakeClock)
    queue = FakeQueue(clock)
    if devices is None:
        devices = [open_hand_display(s, "dummy") for s in range(len(kinds))]
    presenter = TablePresenter(display, motion=False)
    done: list[GameRecord] = []
    console = Console(
        clock=clock,
        queue=queue,
        presenter=presenter,
        seats=make_seats(devices),
        choices=LobbyChoices(game=game, kinds=kinds),
        game_seed=seed,
        timing=Timing(),
        state_dir=state_dir,
        on_game_over=done.append,
        skip_lobby=skip_lobby,
        resume=resume,
    )
    console.start()
    console.render(clock.now_ns())
    return console, clock, queue, done


def riiing_position(**fields: Any) -> Any:
    """A Riiing! position from notation fields (2 seats unless given)."""
    obj: dict[str, Any] = {
        "game": "riiing",
        "seats": 2,
        "hands": [["5C/>", "9S/O"], ["2T/=", "4A/<"]],
        "draw": ["3T/>", "6S/<", "8C/E"],
        "discard": ["7A/E"],
        "to_move": 0,
        "seed": 42,
        "demand": None,
        "window": None,
        "winner": None,
    }
    obj.update(fields)
    return get_game("riiing").parse_position(obj)


def hands_of(console: Console) -> list[list[str]]:
    """The engine position's hands as JSON lists."""
    return [list(h) for h in console.plugin.engine.position_json(console.pos)["hands"]]


def test_wakeup_race_earliest_edge_starts_even_if_read_later(display: TableDisplay) -> None:
    """RI-2.3: the seat whose press edge is earliest starts, though its event arrives last."""
    console, clock, queue, _ = make_console(display, ("human", "computer", "human"))
    assert console.phase == "wakeup"
    t0 = console.flow.race.arbiter.t0_ns
    assert t0 is not None
    clock.advance(400 * MS)
    queue.post(Press(2, t0 + 300 * MS))
    queue.post(Press(0, t0 + 250 * MS))
    for _ in range(2):
        console.step()
    assert console.phase == "play"
    assert console.record is not None and console.record.first == 0
    assert console.plugin.engine.view(console.pos, None).to_move == 0
    assert console.record.slaps[0].seat == 0
    assert console.record.slaps[0].ms == pytest.approx(250.0)


def test_wakeup_race_computer_cannot_win_and_times_out_to_seat_1(display: TableDisplay) -> None:
    """RI-2.3: a computer seat's press never wins; after 10 s with no human slap seat 0
    starts."""
    console, clock, queue, _ = make_console(display, ("human", "computer"))
    t0 = console.flow.race.arbiter.t0_ns
    assert t0 is not None
    queue.post(Press(1, t0 + 100 * MS))
    console.step()
    assert console.phase == "wakeup"
    while console.phase == "wakeup":
        console.step()
    assert clock.now_ns() >= t0 + 10 * S
    assert console.record is not None and console.record.first == 0
    assert console.record.slaps == []


def test_illegal_key_is_refused_with_a_reason_on_that_hand(display: TableDisplay) -> None:
    """A SELECT on a card the condition forbids applies nothing and says why on the seat's
    hand screen; the game goes on and a legal card then plays."""
    console, _clock, queue, _ = make_console(display, ("human", "human"))
    console.play_from(riiing_position(), console.clock.now_ns())
    queue.post(KeyPress(0, "left", 0))  # from 9S/O, the only legal card, round to 5C/>
    queue.post(KeyPress(0, "select", 0))  # 5C/> under condition '>' 7: illegal
    console.step()
    screen = console.flow.playing[0].hand.screen()
    assert screen.alert and screen.prompt.startswith("No")
    assert "7" in screen.prompt
    assert hands_of(console)[0] == ["5C/>", "9S/O"]
    assert console.record is not None and console.record.actions == []
    queue.post(KeyPress(0, "right", 0))
    queue.post(KeyPress(0, "select", 0))
    console.step()
    assert console.record.actions == ["play 9S/O"]
    assert hands_of(console)[0] == ["5C/>"]


def test_keys_of_a_seat_not_to_move_change_nothing(display: TableDisplay) -> None:
    """Seat 1's handheld keys while seat 0 is to move apply no action."""
    console, _clock, queue, _ = make_console(display, ("human", "human"))
    console.play_from(riiing_position(), console.clock.now_ns())
    for key in ("select", "right", "select", "back"):
        queue.post(KeyPress(1, key, 0))
    console.step()
    assert console.record is not None and console.record.actions == []


def test_bad_events_never_crash_and_the_game_goes_on(display: TableDisplay) -> None:
    """Unknown keys, seats out of range and foreign objects are ignored with a log line."""
    console, _clock, queue, _ = make_console(display, ("human", "human"))
    console.play_from(riiing_position(), console.clock.now_ns())
    for event in (KeyPress(0, "up", 0), KeyPress(9, "select", 0), Press(7, 5),
                  Release(8, 6), object(), "junk"):
        queue.post(event)
    console.step()
    assert console.phase == "play"
    queue.post(KeyPress(0, "select", 0))  # the cursor starts on 9S/O, the only legal card
    console.step()
    assert console.record is not None and console.record.actions == ["play 9S/O"]


def test_false_slap_draws_the_penalty_and_keeps_the_turn(display: TableDisplay) -> None:
    """RI-6.5: a press with no window open is `falseslap s`: one card, turn unchanged."""
    console, clock, queue, _ = make_console(display, ("human", "human"))
    console.play_from(riiing_position(), clock.now_ns())
    queue.post(Press(1, clock.now_ns()))
    console.step()
    assert console.record is not None and console.record.actions == ["falseslap 1"]
    assert hands_of(console)[1] == ["2T/=", "4A/<", "3T/>"]
    assert console.plugin.engine.view(console.pos, None).to_move == 0


def test_false_slap_off_when_the_option_is_zero(display: TableDisplay) -> None:
    """RI-6.5: with false_slap_penalty 0 an early press is ignored."""
    console, clock, queue, _ = make_console(display, ("human", "human"))
    pos = riiing_position(options={"false_slap_penalty": 0})
    console.play_from(pos, clock.now_ns())
    queue.post(Press(1, clock.now_ns()))
    console.step()
    assert console.record is not None and console.record.actions == []


def test_window_earliest_press_wins_and_reaction_time_is_shown(display: TableDisplay) -> None:
    """RI-6.3 + arbitration: the earliest edge after the flip wins; its reaction time is
    t - t0 and the table model shows it."""
    console, clock, queue, _ = make_console(display, ("human", "human"))
    pos = riiing_position(draw=["3T/*S", "6S/<"], window="S",
                          hands=[["5C/>", "9S/O"], ["2S/=", "4A/<"]])
    console.play_from(pos, clock.now_ns())
    console.render(clock.now_ns())
    t0 = console.flow.race.arbiter.t0_ns
    assert t0 is not None
    clock.advance(500 * MS)
    queue.post(Press(0, t0 + 420 * MS))
    queue.post(Press(1, t0 + 380 * MS))
    console.step()  # read both presses; the settle timer is armed
    console.step()  # settle time over: decide
    assert console.record is not None and console.record.actions == ["slap 1"]
    assert hands_of(console)[1] == ["4A/<"]
    model = console.model(clock.now_ns())
    assert model.slap == (1, 380)
    assert "380 ms" in model.last_event


def test_press_before_the_flip_cannot_win(display: TableDisplay) -> None:
    """A press stamped before the frame showing the reverse was flipped is ignored, not a
    false slap; a later fresh press wins."""
    console, clock, queue, _ = make_console(display, ("human", "human"))
    pos = riiing_position(draw=["3T/*S", "6S/<"], window="S")
    console.play_from(pos, clock.now_ns())
    console.render(clock.now_ns())
    t0 = console.flow.race.arbiter.t0_ns
    assert t0 is not None
    queue.post(Press(0, t0 - 1))
    queue.post(Release(0, t0 + 40 * MS))
    queue.post(Press(1, t0 + 600 * MS))
    clock.advance(700 * MS)
    console.step()
    console.step()
    assert console.record is not None and console.record.actions == ["slap 1"]


def test_window_times_out_when_nobody_slaps(display: TableDisplay) -> None:
    """RI-6.4: after slap_timeout_s with no press the device applies `timeout`."""
    console, clock, _queue, _ = make_console(display, ("human", "human"))
    pos = riiing_position(draw=["3T/*S", "6S/<"], window="S", options={"slap_timeout_s": 5})
    console.play_from(pos, clock.now_ns())
    console.render(clock.now_ns())
    t0 = console.flow.race.arbiter.t0_ns
    assert t0 is not None
    assert console.model(clock.now_ns()).deadline_ns == t0 + 5 * S
    assert console.record is not None
    while not console.record.actions:
        console.step()  # the countdown redraws once a second on the way
    assert console.record.actions == ["timeout"]
    assert clock.now_ns() == t0 + 5 * S


def test_computer_players_slap_through_the_arbiter(display: TableDisplay) -> None:
    """Computer players' slaps are presses at t0 + a sampled reaction time: a mean of
    500 ms, never under the 320 ms floor (a typical person wins most windows)."""
    console, clock, _queue, _ = make_console(display, ("computer", "computer"))
    pos = riiing_position(draw=["3T/*S", "6S/<"], window="S")
    console.play_from(pos, clock.now_ns())
    while console.record is not None and not console.record.slaps:
        console.step()
    slap = console.record.slaps[0]
    assert 320 <= slap.ms <= 1000
    assert console.record.actions[0] == f"slap {slap.seat}"


def test_lobby_keys_switch_game_and_start(display: TableDisplay) -> None:
    """In the lobby any handheld moves the highlight and changes values; switching to
    Right on Time with the same seat count and START plays it (no stale handhelds)."""
    console, _clock, queue, _ = make_console(
        display, ("human", "computer", "computer"), skip_lobby=False)
    assert console.phase == "lobby"
    queue.post(KeyPress(2, "select", 0))  # row 0 (Game): Riiing! -> Right on Time
    console.step()
    assert console.flow.lobby.choices.game == "right-on-time"
    rows = console.model(0).lobby
    assert rows is not None and rows.rows[0] == ("Game", "Right on Time")
    queue.post(KeyPress(0, "left", 0))  # wrap to the last row: START
    queue.post(KeyPress(0, "select", 0))
    console.step()
    assert console.phase == "play"
    assert console.plugin.name == "right-on-time"
    made_for_the_game = type(console.plugin.hand(0))
    assert all(type(s.hand) is made_for_the_game for s in console.flow.playing)
    assert made_for_the_game is not type(get_plugin("riiing").hand(0))


def test_whole_computer_game_ends_and_journal_replays(display: TableDisplay,
                                                      tmp_path: Path) -> None:
    """An all-computer Riiing! game ends with a winner; its journal's actions replay to the
    same final position (docs/architecture.md "Persistence")."""
    console, _clock, _queue, done = make_console(
        display, ("computer", "computer", "computer"), state_dir=tmp_path)
    steps = 0
    while not done:
        console.step()
        steps += 1
        assert steps < 20_000
    record = done[0]
    assert record.winner is not None
    stored = only_game(tmp_path)
    assert stored.outcome == "won" and stored.winner == record.winner
    actions = stored.actions
    assert actions == record.actions
    game = get_game("riiing")
    h = stored.header
    pos = game.new(h.seats, h.seed, dict(h.options), h.first)
    for text in actions:
        pos, _ = game.apply(pos, game.parse_action(text))
    assert game.position_json(pos) == game.position_json(console.pos)
    assert json.loads((tmp_path / "lobby.json").read_text())["game"] == "riiing"


def only_game(state_dir: Path) -> StoredGame:
    """The one game stored in ``state_dir``'s database."""
    with GameDB.open(state_dir) as db:
        (game,) = db.games()
    return game


def test_right_on_time_human_lays_through_the_composer(display: TableDisplay) -> None:
    """A human Right on Time seat lays with its handheld keys; only legal lays apply."""
    console, clock, queue, _ = make_console(display, ("human", "computer"), "right-on-time")
    view = console.plugin.engine.view(console.pos, 0)
    assert view.to_move == 0 and view.legal
    for _ in range(6):
        queue.post(KeyPress(0, "select", clock.now_ns()))
        console.step()
        if console.record is not None and console.record.actions:
            break
    assert console.record is not None and console.record.actions
    assert console.record.actions[0] in view.legal


def test_headless_main_writes_frames_and_summary(tmp_path: Path) -> None:
    """`python -m device --headless` plays both games, writes PNG frames and summary.json,
    exit status 0."""
    from device.main import main

    out = tmp_path / "out"
    assert main(["--headless", "--seats", "3", "--seed", "5", "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert [g["game"] for g in summary["games"]] == ["riiing", "right-on-time"]
    for g in summary["games"]:
        assert g["winner"] is not None
        assert g["actions"] == len(g["log"]) > 0
        folder = out / g["game"]
        tables = sorted(folder.glob("table-*.png"))
        assert len(tables) == g["actions"] + 1
        assert list(folder.glob("hand-3-*.png"))
    rot = summary["games"][1]
    assert rot["scores"] is not None and max(rot["scores"]) == 3
    assert rot["rounds"] >= 3
    with GameDB.open(out / "state") as db:  # headless games are kept like the device's
        games = db.games()
    assert [(g.header.game, g.outcome, g.winner, len(g.actions)) for g in reversed(games)] == [
        (g["game"], "won", g["winner"], g["actions"]) for g in summary["games"]]


@pytest.mark.parametrize("torn_tail", [False, True])
def test_power_cut_resumes_the_game_at_the_exact_position(
    display: TableDisplay, tmp_path: Path, torn_tail: bool
) -> None:
    """A console killed mid-game (no close, maybe a half-written last line) comes back, with
    resume on, at the exact position of its journal; the game goes on and ends."""
    first, _clock, _queue, _done = make_console(
        display, ("computer", "computer", "computer"), "right-on-time", state_dir=tmp_path)
    while first.record is not None and len(first.record.actions) < 12:
        first.step()
    before = first.plugin.engine.position_json(first.pos)
    actions = list(first.record.actions)
    if torn_tail:  # the power went mid-write: half a WAL frame after the committed ones
        with open(tmp_path / (DB_NAME + "-wal"), "ab") as f:
            f.write(b"\x37\x7f\x06\x82" + bytes(range(200)))
    second, _clock2, _queue2, done = make_console(
        display, ("human", "human", "human"), "riiing", state_dir=tmp_path, skip_lobby=False,
        resume=True)
    assert second.phase == "play" and second.plugin.name == "right-on-time"
    assert second.plugin.engine.position_json(second.pos) == before
    assert second.record is not None and second.record.actions == actions
    assert second.flow.lobby.choices.kinds == ("computer", "computer", "computer")
    assert "Restored: SLAP" in second.model(0).banner
    while not done:
        second.step()
    assert done[0].winner is not None
    assert only_game(tmp_path).actions == done[0].actions


def test_a_finished_or_unreadable_journal_opens_the_lobby(
    display: TableDisplay, tmp_path: Path
) -> None:
    """A garbage database and a garbage old journal never stop the console: the database
    is set aside (kept, renamed), the TV says so, a new one is started, the lobby opens."""
    (tmp_path / DB_NAME).write_bytes(b"\x00garbage\n" * 100)
    (tmp_path / "journal.log").write_bytes(b"\x00garbage\n")
    console, *_ = make_console(display, ("human", "human"), state_dir=tmp_path,
                               skip_lobby=False, resume=True)
    assert console.phase == "lobby"
    banner = console.model(0).banner
    assert "set aside" in banner and "kept as partytable.db." in banner
    assert "journal.log not carried over" in banner
    (aside,) = tmp_path.glob(DB_NAME + ".*-*")
    assert aside.read_bytes() == b"\x00garbage\n" * 100
    with GameDB.open(tmp_path) as db:
        assert db.games() == [] and db.integrity() == "ok"


def test_an_abandoned_game_goes_to_the_lobby_and_is_not_resumed(
    display: TableDisplay, tmp_path: Path
) -> None:
    """Ending a game by hand returns to the lobby; the next start does not resume it."""
    console, *_ = make_console(display, ("computer", "computer"), state_dir=tmp_path)
    while console.record is not None and len(console.record.actions) < 3:
        console.step()
    console.handle(Abandon())  # the simulator's DELETE key
    assert console.phase == "lobby"
    again, *_ = make_console(display, ("human", "human"), state_dir=tmp_path,
                             skip_lobby=False, resume=True)
    assert again.phase == "lobby"


class _FlakyOled:
    """A luma dummy OLED whose bus fails while ``unplugged`` is True, as an I2C handheld
    whose cable was pulled (errno 121, Remote I/O error)."""

    def __init__(self) -> None:
        from luma.core.device import dummy

        self.inner = dummy(width=128, height=64, mode="1")
        self.unplugged = False
        self.width, self.height, self.mode = 128, 64, "1"
        self.size = (128, 64)

    def display(self, image: Any) -> None:
        if self.unplugged:
            raise OSError(121, "Remote I/O error")
        self.inner.display(image)


def test_an_unplugged_handheld_never_stops_the_game(display: TableDisplay) -> None:
    """A hand screen whose bus fails is marked unplugged on the TV (badge and banner); the
    game goes on for everyone; plugged back in, the mark goes and the screen is redrawn."""
    from drivers.hand_display import ChangedOnly

    flaky = _FlakyOled()
    devices = [open_hand_display(0, "dummy"), ChangedOnly(flaky, seat=1, name="OLED"),
               open_hand_display(2, "dummy")]
    console, clock, _queue, done = make_console(
        display, ("computer", "computer", "computer"), devices=devices)
    flaky.unplugged = True
    while console.record is not None and len(console.record.actions) < 5:
        console.step()
    model = console.model(clock.now_ns())
    assert model.seats[1].connected is False and model.seats[0].connected is True
    assert "Seat 2 handheld unplugged" in model.banner
    flaky.unplugged = False
    before = len(console.record.actions)
    while len(console.record.actions) < before + 2:
        console.step()
    model = console.model(clock.now_ns())
    assert model.seats[1].connected and "unplugged" not in model.banner
    shown = screen_image(console.seats[1].screen())  # what the seat's screen renders to now
    assert shown.getbbox() is not None and flaky.inner.image.tobytes() == shown.tobytes()
    while not done:
        console.step()
    assert done[0].winner is not None


HOSTILE_VALUES: tuple[Any, ...] = ("1", None, 1.0, True, 10**30, -(10**30), b"0", [0])
"""Values of the wrong type or far out of range for an event's fields."""


def hostile_events() -> list[object]:
    """Driver and device events with one field hostile at a time (the others sound)."""
    events: list[object] = []
    for bad in HOSTILE_VALUES:
        events += [KeyPress(bad, "select", 0), KeyPress(0, "select", bad),
                   Press(bad, 5), Press(0, bad), Release(bad, 6), Release(0, bad),
                   HandheldGone(bad, "unplugged", 0), HandheldGone(0, "unplugged", bad),
                   HandheldBack(bad, 0), HandheldBack(0, bad)]
        if not isinstance(bad, str):
            events += [KeyPress(0, bad, 0), HandheldGone(0, bad, 0)]
        if not isinstance(bad, bool):
            events.append(KeyPress(0, "left", 0, bad))
    events += [KeyPress(-1, "select", 0), Press(-1, 5), Release(-1, 6),
               HandheldGone(-1, "unplugged", 0), HandheldBack(-1, 0)]
    return events


def test_hostile_event_fields_are_one_log_line_each_and_the_game_goes_on(
    display: TableDisplay, caplog: pytest.LogCaptureFixture
) -> None:
    """An event whose seat, key, time or flag has the wrong type (a str, None, a float, a
    bool, bytes, a list) or an int no clock or seat can have is one warning naming the event
    and the field, never a traceback, and changes nothing: the game goes on.  A negative
    seat is no seat: the same."""
    console, _clock, queue, _ = make_console(display, ("human", "human"))
    console.play_from(riiing_position(), console.clock.now_ns())
    events = hostile_events()
    caplog.set_level("INFO", logger="partytable")
    for event in events:
        caplog.clear()
        queue.post(event)
        console.step()
        tracebacks = [r.getMessage() for r in caplog.records if r.exc_info]
        assert tracebacks == [], f"{event!r}: {tracebacks}"
        warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
        assert len(warnings) == 1, f"{event!r}: {warnings}"
        assert type(event).__name__ in warnings[0], warnings
    assert console.phase == "play" and hands_of(console) == [["5C/>", "9S/O"], ["2T/=", "4A/<"]]
    assert all(s.handheld.connected for s in console.seats)
    queue.post(KeyPress(0, "select", 0))  # the cursor starts on 9S/O, the only legal card
    console.step()
    assert console.record is not None and console.record.actions == ["play 9S/O"]


class _ReprRaisesInt(int):
    """An int whose ``repr`` raises (an event field no message may format)."""

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


class _ReprRaisesStr(str):
    """A str whose ``repr`` raises."""

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


def test_event_fields_that_cannot_be_formatted_are_one_log_line_each(
    display: TableDisplay, caplog: pytest.LogCaptureFixture
) -> None:
    """An int of 20,000 bits (past Python's 4,300-digit ``repr`` limit) or a field whose
    ``repr`` raises, in a seat, time or key: the event is one warning naming it, never an
    exception out of the loop, and the game goes on."""
    from device.reactor.events import event_problem

    huge = 1 << 20000
    bad_events: list[object] = [
        Press(huge, 5), Press(0, huge), KeyPress(0, "select", huge), KeyPress(huge, "left", 0),
        KeyPress(0, "select", 0, huge), Press(_ReprRaisesInt(-1), 5),
        KeyPress(_ReprRaisesInt(-1), _ReprRaisesStr("select"), 0),
        KeyPress(0, _ReprRaisesStr("select"), 0, _ReprRaisesInt(3)),
    ]
    for event in bad_events:
        problem = event_problem(event)
        assert problem is not None and len(problem) < 200, problem
    console, _clock, queue, _ = make_console(display, ("human", "human"))
    console.play_from(riiing_position(), console.clock.now_ns())
    caplog.set_level("INFO", logger="partytable")
    for event in bad_events:
        caplog.clear()
        queue.post(event)
        console.step()
        warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
        assert len(warnings) == 1 and type(event).__name__ in warnings[0], warnings
        assert [r for r in caplog.records if r.exc_info] == []
    assert console.phase == "play" and hands_of(console) == [["5C/>", "9S/O"], ["2T/=", "4A/<"]]


def test_an_event_check_that_raises_is_one_log_line_and_the_loop_goes_on(
    display: TableDisplay, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Should checking an event raise, the loop logs one warning naming the event's type
    and goes on to the next event."""
    import device.reactor.loop

    def broken(event: object) -> str | None:
        if isinstance(event, Press):
            raise ValueError("Exceeds the limit (4300 digits)")
        return None

    monkeypatch.setattr(device.reactor.loop, "event_problem", broken)
    console, _clock, queue, _ = make_console(display, ("human", "human"))
    console.play_from(riiing_position(), console.clock.now_ns())
    caplog.set_level("INFO", logger="partytable")
    queue.post(Press(0, 5))
    console.step()
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and "Press" in warnings[0] and "\n" not in warnings[0], warnings
    assert [r for r in caplog.records if r.exc_info] == []
    queue.post(KeyPress(0, "select", 0))  # the cursor starts on 9S/O, the only legal card
    console.step()
    assert console.record is not None and console.record.actions == ["play 9S/O"]
