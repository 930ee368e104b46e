"""Hardware mode without a Pi: the console is started
from a config file with its pin factory (gpiozero ``MockFactory``), its OLED buses (a
recording fake serial interface under the real luma ssd1306 driver) and its TV (SDL dummy)
injected; the test presses slap buttons and keys as GPIO edges with chosen ticks, the way
fingers do, and plays a game to its end."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pytest
from console_helpers import screen_image
from PIL import Image
from rig_helpers import MS, WIRED_KEYS, Bus, S, keys_for, main_until_sigterm, write_rig_config
from rig_helpers import tap as rig_tap

from device.common.phase import Phase
from device.config.loader import load_config
from device.console import Console
from device.modes.hardware import hardware_console, open_rig
from device.reactor.events import FakeQueue, Redraw
from device.render.layout import BANNER
from device.render.text import Typesetter
from drivers.clock import FakeClock
from drivers.gpio import edge, mock_pin_factory

SEAT1 = '''kind = "wired"
controller = "sh1106"
bus = "i2c"
port = 1
address = 0x3D
keys = { left = 10, right = 9, select = 11, back = 8 }'''
"""Seat 1's handheld: a wired SH1106 at 0x3D."""


def write_config(folder: Path) -> Path:
    """The two wired seats' config file in ``folder`` (:func:`rig_helpers.write_rig_config`,
    the TV's lag 12.5 ms, the GPIO chip found by itself)."""
    return write_rig_config(folder, SEAT1, display="lag_ms = 12.5\n", gpio='chip = "auto"\n')


KEY_PINS = (WIRED_KEYS, {"left": 10, "right": 9, "select": 11, "back": 8})
SLAP_PINS = (17, 25)


@pytest.fixture
def rig_parts(tmp_path: Path) -> Iterator[dict[str, Any]]:
    """The config file, a fake clock and queue, a MockFactory and one recording bus per
    OLED; the rig is closed after the test."""
    path = write_config(tmp_path)
    clock = FakeClock(50 * S)
    queue = FakeQueue(clock)
    buses: dict[int, Bus] = {}

    def open_serial(seat: int, name: str, params: Any) -> Bus:
        return buses.setdefault(seat, Bus())

    with mock_pin_factory() as factory:
        config = load_config(path)
        rig = open_rig(config, post=queue.post, clock=clock, pin_factory=factory,
                       open_serial=open_serial, threads=False)
        try:
            yield {"config": config, "clock": clock, "queue": queue, "factory": factory,
                   "rig": rig, "buses": buses, "state": tmp_path / "state"}
        finally:
            rig.close()


def tap(parts: dict[str, Any], pin: int) -> None:
    """A finger on a button of the rig (:func:`rig_helpers.tap`): 150 ms pass."""
    rig_tap(parts["factory"], parts["clock"], pin)


def test_hardware_mode_plays_a_game_from_gpio_edges(rig_parts: dict[str, Any]) -> None:
    """Lobby by keys (seat 2 becomes a computer, START), the wake-up race by seat 1's slap
    button, seat 1's moves by its four keys and every RIIING! slapped by its button, until
    the game ends; the OLEDs got frames over their buses, the game database holds the game."""
    clock: FakeClock = rig_parts["clock"]
    console = hardware_console(rig_parts["config"], rig_parts["rig"], clock=clock,
                               queue=rig_parts["queue"])
    console.start()
    console.render(clock.now_ns())
    assert console.phase is Phase.LOBBY
    select, left, right = KEY_PINS[0]["select"], KEY_PINS[0]["left"], KEY_PINS[0]["right"]
    for pin in (right, right, right, select, left, left, left, left, select):
        tap(rig_parts, pin)  # rows: Game, Seats, Seat 1, Seat 2 -> computer; wrap to START
        console.step()
    assert console.phase is Phase.WAKEUP, console.model(clock.now_ns()).lobby
    assert console.flow.lobby.choices.kinds == ("human", "computer")
    clock.advance(300 * MS)  # people need a moment to see the wake-up screen
    tap(rig_parts, SLAP_PINS[0])
    for _ in range(5):
        console.step()
    assert console.phase is Phase.PLAY and console.record is not None
    assert console.record.first == 0
    slapped = 0
    for _ in range(20_000):
        if console.phase is not Phase.PLAY:
            break
        pos = console.pos
        if console.plugin.window_open(pos) and console.flow.race.arbiter.t0_ns is not None:
            clock.advance(200 * MS)  # a quick human: before any computer (>= 320 ms)
            tap(rig_parts, SLAP_PINS[0])
            slapped += 1
        elif console.plugin.to_move(pos) == 0:
            for k in keys_for(console.flow.playing[0].hand):
                tap(rig_parts, KEY_PINS[0][k.value])
                console.step()
        if console.phase is Phase.PLAY:  # the last key may have ended the game
            console.step()
    assert console.phase is Phase.GAMEOVER
    record = console.record
    assert record is not None and record.winner is not None
    humans = [line for line in record.log if line.startswith("seat 0:")]
    assert humans, "seat 1 played by its keys"
    assert all(s.seat == 0 for s in record.slaps if s.race == "window") or slapped == 0
    for seat, bus in rig_parts["buses"].items():
        assert bus.commands, f"seat {seat + 1} OLED got its init sequence"
        assert sum(len(f) for f in bus.frames) >= 1024, f"seat {seat + 1} OLED got frames"
    assert (rig_parts["state"] / "partytable.db").exists()  # the game database


def test_a_held_slap_wakes_the_loop_and_reaches_the_flow_at_its_check(
    rig_parts: dict[str, Any]
) -> None:
    """A slap button pressed and held, nothing else happening: its edge wakes the loop
    (the driver posts a Wake), the loop's ticker reads the line 1 ms later and again 1 ms
    after that, and hands the flow one Press stamped at the edge -- on the fake clock, at
    that second reading, not at some later wake-up."""
    from device.reactor.events import Wake
    from drivers.slap import Press

    clock: FakeClock = rig_parts["clock"]
    queue: FakeQueue = rig_parts["queue"]
    console = hardware_console(rig_parts["config"], rig_parts["rig"], clock=clock,
                               queue=queue)
    console.start()
    console.render(clock.now_ns())
    seen: list[tuple[object, int]] = []
    on_press = console.flow.on_press

    def spy(press: Any, now_ns: int) -> None:
        seen.append((press, now_ns))
        on_press(press, now_ns)

    console.flow.on_press = spy  # type: ignore[method-assign]
    t = clock.now_ns()
    edge(rig_parts["factory"], SLAP_PINS[1], True, t)
    assert queue.wait(0) == [Wake()]
    queue.post(Wake())
    for _ in range(4):
        console.step()
    assert seen == [(Press(1, t), t + 2 * MS)]


def test_the_tv_window_starts_at_the_flip_plus_the_configured_lag(
    rig_parts: dict[str, Any]
) -> None:
    """A RIIING! window's t0 is the flip's time plus ``display.lag_ms`` (12.5 ms here)."""
    from engine import get_game

    clock: FakeClock = rig_parts["clock"]
    console = hardware_console(rig_parts["config"], rig_parts["rig"], clock=clock,
                               queue=rig_parts["queue"])
    console.start()
    pos = get_game("riiing").parse_position({
        "game": "riiing", "seats": 2, "hands": [["5C/>", "9S/O"], ["2S/=", "4A/<"]],
        "draw": ["3T/*S", "6S/<"], "discard": ["7A/E"], "to_move": 0, "seed": 42,
        "demand": None, "window": "S", "winner": None})
    before = clock.now_ns()
    console.play_from(pos, before)
    t0 = console.flow.race.arbiter.t0_ns
    assert t0 is not None and t0 - before == 12_500_000


def start_a_game(rig_parts: dict[str, Any]) -> Console:
    """The rig's console through the lobby by seat 1's keys (seat 2 a computer, START)
    and the wake-up race won by seat 1's slap button: a Riiing! game in play."""
    clock: FakeClock = rig_parts["clock"]
    console = hardware_console(rig_parts["config"], rig_parts["rig"], clock=clock,
                               queue=rig_parts["queue"])
    console.start()
    console.render(clock.now_ns())
    select, left, right = KEY_PINS[0]["select"], KEY_PINS[0]["left"], KEY_PINS[0]["right"]
    for pin in (right, right, right, select, left, left, left, left, select):
        tap(rig_parts, pin)  # rows: Game, Seats, Seat 1, Seat 2 -> computer; wrap to START
        console.step()
    clock.advance(300 * MS)
    tap(rig_parts, SLAP_PINS[0])
    for _ in range(5):
        console.step()
    assert console.phase is Phase.PLAY and console.record is not None
    return console


def play_on(rig_parts: dict[str, Any], console: Console, done: Callable[[], bool]) -> None:
    """Play the game on (seat 1 by its keys and slap button, seat 2 the computer) until
    ``done()`` or the game ends; a step cap fails a game that never gets there."""
    clock: FakeClock = rig_parts["clock"]
    for _ in range(5_000):
        if done() or console.phase is not Phase.PLAY:
            return
        pos = console.pos
        if console.plugin.window_open(pos) and console.flow.race.arbiter.t0_ns is not None:
            clock.advance(200 * MS)  # a quick human: before the computer (>= 320 ms)
            tap(rig_parts, SLAP_PINS[0])
        elif console.plugin.to_move(pos) == 0:
            for k in keys_for(console.flow.playing[0].hand):
                tap(rig_parts, KEY_PINS[0][k.value])
                console.step()
        if console.phase is Phase.PLAY:
            console.step()
    pytest.fail("the game never got there")


def sh1106_frame(image: Image.Image) -> list[bytes]:
    """The data bytes luma's SH1106 driver sends for ``image`` (one chunk per page)."""
    from luma.oled.device import sh1106

    bus = Bus()
    device = sh1106(bus, width=128, height=64, rotate=0)
    bus.frames.clear()  # the constructor's blank frame
    device.display(image)
    return bus.frames


def test_an_oled_unplugged_mid_game_is_named_on_the_tv_and_comes_back(
    rig_parts: dict[str, Any]
) -> None:
    """Seat 2's OLED cable (an SH1106 on I2C) is pulled during a game: its bus writer
    reports it, the TV names the seat and the game goes on (actions are committed, the turn
    moves between the seats); plugged back in, the writer rebuilds the panel and the bytes
    on its bus are the frame of the seat's current screen, and the TV mark goes."""
    clock: FakeClock = rig_parts["clock"]
    console = start_a_game(rig_parts)
    record = console.record
    assert record is not None
    play_on(rig_parts, console, lambda: len(record.actions) >= 4)
    bus = rig_parts["buses"][1]
    assert bus.frames
    bus.unplugged = True
    unplugged_at = len(record.actions)
    movers: set[int | None] = set()

    def moved_on() -> bool:
        movers.add(console.plugin.to_move(console.pos))
        return len(record.actions) >= unplugged_at + 6 and {0, 1} <= movers

    play_on(rig_parts, console, moved_on)
    assert moved_on(), (record.actions, movers)  # the game went on without the screen
    model = console.model(clock.now_ns())
    assert model.seats[1].connected is False
    assert "Seat 2 handheld unplugged" in model.banner
    sent = len(bus.frames)
    bus.unplugged = False
    play_on(rig_parts, console, lambda: bool(console.model(clock.now_ns()).seats[1].connected))
    assert console.model(clock.now_ns()).seats[1].connected  # within the writer's retries
    assert "Seat 2 handheld unplugged" not in console.model(clock.now_ns()).banner
    assert len(bus.frames) > sent
    expected = sh1106_frame(screen_image(console.seats[1].screen()))
    assert bus.frames[-len(expected):] == expected  # its current screen, sent whole


NOISY_NOTE = "Seat 2 I2C errors: check wiring, try 100 kHz"


def test_an_oled_whose_writes_fail_often_is_named_on_the_tv_with_the_advice_until_healthy(
    rig_parts: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    """Seat 2's OLED loses a transfer three times in a few seconds (long leads): each time
    it is gone and back as an unplugged one, and after the third the TV names the seat with
    the wiring and 100 kHz advice (one log line); a minute without a failure and it goes."""
    clock: FakeClock = rig_parts["clock"]
    queue = rig_parts["queue"]
    console = hardware_console(rig_parts["config"], rig_parts["rig"], clock=clock, queue=queue)
    console.start()
    console.render(clock.now_ns())
    bus = rig_parts["buses"][1]

    def turn() -> bool:
        """Half a second of the loop with a frame drawn; True if seat 2 is connected."""
        queue.post(Redraw())
        console.step()
        clock.advance(500 * MS)
        return bool(console.model(clock.now_ns()).seats[1].connected)

    with caplog.at_level("WARNING", logger="partytable"):
        for _ in range(3):
            bus.nak_next = 1  # the next transfer to seat 2's panel is lost
            assert any(not turn() for _ in range(20)), "the lost transfer was not seen"
            assert any(turn() for _ in range(20)), "seat 2's OLED did not come back"
            assert bus.nak_next == 0
    banner = console.model(clock.now_ns()).banner
    assert NOISY_NOTE in banner
    assert "Seat 1 I2C" not in banner
    text_width = BANNER.width - 140  # BannerSpec.paint: the text beside the warning mark
    assert Typesetter().truncate(NOISY_NOTE, 44, text_width) == NOISY_NOTE  # whole at 44 px
    noisy_lines = [r.getMessage() for r in caplog.records if "bus errors" in r.getMessage()]
    assert len(noisy_lines) == 1 and "100 kHz" in noisy_lines[0], noisy_lines
    for _ in range(100):  # 50 s: still within the minute since the last failure
        turn()
    assert NOISY_NOTE in console.model(clock.now_ns()).banner
    for _ in range(30):
        turn()
    assert NOISY_NOTE not in console.model(clock.now_ns()).banner
    assert console.model(clock.now_ns()).seats[1].connected


def test_no_pin_factory_is_one_line_and_the_device_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hardware mode where the fair pin factory cannot be built (here: no lgpio, as on any
    machine but a Pi): one line in the log and on the TV, no traceback, no fallback to an
    unfair factory; the device waits for SIGTERM and exits 1."""
    path = write_config(tmp_path)

    def fail(*args: Any, **kw: Any) -> Any:
        from drivers.pin_factory import PinFactoryError

        raise PinFactoryError("GPIO", "lgpio is not installed: pip install lgpio")

    monkeypatch.setattr("drivers.pin_factory.open_pin_factory", fail)
    assert main_until_sigterm(["--config", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip().splitlines() == ["error: GPIO: lgpio is not installed: pip install lgpio"]


def test_a_mux_the_kernel_does_not_show_leaves_the_seats_playing_without_screens(
    tmp_path: Path,
) -> None:
    """The bundled build (four OLEDs behind a TCA9548A) on a Pi whose mux did not answer at
    boot: no bus exists for its channels.  Hardware mode still opens; each seat's screen is
    gone with one line naming the mux channel, and the TV says so."""
    clock = FakeClock(5 * S)
    queue = FakeQueue(clock)
    with mock_pin_factory() as factory:
        config = load_config(None)
        rig = open_rig(config, post=queue.post, clock=clock, pin_factory=factory,
                       display_mode="dummy", threads=False, sys_i2c=tmp_path)
        try:
            assert len(rig.seats) == 4
            assert all(not s.handheld.connected for s in rig.seats)
            assert "mux_channel" in rig.seats[2].handheld.reason
            console = hardware_console(config, rig, clock=clock, queue=queue,
                                       state_dir=tmp_path / "state")
            console.start()
            banner = console.model(clock.now_ns()).banner
            assert "Seat 1 handheld unplugged" in banner
        finally:
            rig.close()
