"""Serial handhelds end to end: the console in hardware mode with
a seat whose handheld is the emulated one — the firmware's own protocol core on a pty, behind
the real Pi-side link — plays a game through that handheld's keys while its cable is pulled
and plugged back 50 times (a new ``/dev/pts`` node each time).  Nothing is lost: every key
pressed on the handheld is applied exactly once, the TV names the seat while its cable is
out and drops the mark when it is back, and after every re-plug the handheld shows exactly
the seat's current screen."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from PIL import Image, ImageDraw
from rig_helpers import MS, WIRED_KEYS, Bus, S, keys_for, write_rig_config
from rig_helpers import tap as rig_tap

from device.common.phase import Phase
from device.config.loader import load_config
from device.hands.screen import draw_hand
from device.modes.emulator import EmulatedHandheld
from device.modes.hardware import hardware_console, open_rig
from device.reactor.events import FakeQueue
from drivers.clock import FakeClock
from drivers.gpio import mock_pin_factory
from drivers.keys import KeyPress

SERIAL_SLAP = 25
UNPLUGGED = "Seat 2 handheld unplugged"
"""The TV's banner line while the serial seat's cable is out."""


def rendered(seat: Any) -> Image.Image:
    """The frame the console renders for ``seat`` now (what its handheld must show)."""
    image = Image.new("1", (128, 64))
    draw_hand(ImageDraw.Draw(image), seat.screen())
    return image


def test_a_serial_seat_plays_a_game_through_50_replugs_with_nothing_lost(
    tmp_path: Path,
) -> None:
    """See the module docstring."""
    path = write_rig_config(tmp_path, 'kind = "serial"\nid = "emulated-7"')
    clock = FakeClock(20 * S)
    queue = FakeQueue(clock)
    keys_seen: list[KeyPress] = []
    real_post = queue.post

    def post(event: object) -> None:
        if isinstance(event, KeyPress) and event.seat == 1:
            keys_seen.append(event)
        real_post(event)

    queue.post = post  # type: ignore[method-assign]
    handheld = EmulatedHandheld("emulated-7", boot_id=77, clock=clock)
    handheld.plug()
    with mock_pin_factory() as factory:
        config = load_config(path)
        rig = open_rig(config, post=queue.post, clock=clock, pin_factory=factory,
                       open_serial=lambda seat, name, p: Bus(), threads=False,
                       serial_ports=lambda: [handheld.path] if handheld.path else [])
        rig.tickers.append(handheld.pump)
        try:
            console = hardware_console(config, rig, clock=clock, queue=queue)
            console.start()
            console.render(clock.now_ns())

            def tap(pin: int) -> None:
                rig_tap(factory, clock, pin)
                console.step()

            def settle(steps: int = 40) -> None:
                for _ in range(steps):
                    console.step()

            settle()
            assert console.flow.playing[1].handheld.connected
            # lobby by seat 1's wired keys: Seat 1 -> computer, Cards each 7 -> 10 (a longer
            # game), wrap to START
            for name in ("right", "right", "select", "right", "right", *["select"] * 5,
                         *["left"] * 5, "select"):
                tap(WIRED_KEYS[name])
            assert console.flow.lobby.choices.kinds == ("computer", "human")
            assert console.flow.lobby.choices.game_options()["hand_size"] == 10
            assert console.phase is Phase.WAKEUP
            clock.advance(300 * MS)
            tap(SERIAL_SLAP)  # seat 2 wins the wake-up race by its slap button
            settle(5)
            assert console.phase is Phase.PLAY
            pressed = 0
            replugs = 0
            budget = time.monotonic() + 120  # a hang is a failure, not a stuck CI run
            for step in range(60_000):
                assert time.monotonic() < budget, "the game did not end within 120 s"
                if console.phase is not Phase.PLAY:
                    break
                seat = console.flow.playing[1]
                if step % 4 == 2 and replugs < 50:  # pull the cable, wait, plug it back
                    before = handheld.path
                    handheld.unplug()
                    settle(5)
                    assert not seat.handheld.connected
                    tv = console.model(clock.now_ns())
                    assert tv.seats[1].connected is False and UNPLUGGED in tv.banner, \
                        f"re-plug {replugs + 1}: the TV names the unplugged seat"
                    spares = []  # keep the freed /dev/pts number busy: a new node next
                    for _ in range(64):
                        spares.append(os.openpty())
                        if os.ttyname(spares[-1][1]) == before:
                            break
                    handheld.plug()
                    for pair in spares:
                        for fd in pair:
                            os.close(fd)
                    assert handheld.path != before
                    for _ in range(300):
                        console.step()
                        if seat.handheld.connected:
                            break
                    settle(5)
                    assert seat.handheld.connected, f"re-plug {replugs + 1}"
                    tv = console.model(clock.now_ns())
                    assert tv.seats[1].connected and UNPLUGGED not in tv.banner, \
                        f"re-plug {replugs + 1}: the TV's mark goes"
                    replugs += 1
                    # the last step may have sent a new screen (a computer moved): the board
                    # reads it from the pty on its own loop; wait for that, not the game
                    for _ in range(200):
                        for ticker in rig.tickers:  # the link and the board, clock still
                            ticker(clock.now_ns())
                        if handheld.image().tobytes() == rendered(seat).tobytes():
                            break
                        time.sleep(0.005)
                    assert handheld.image().tobytes() == rendered(seat).tobytes(), \
                        f"after re-plug {replugs} the handheld shows the seat's screen"
                pos = console.pos
                if console.plugin.window_open(pos) and console.flow.race.arbiter.t0_ns:
                    clock.advance(200 * MS)
                    tap(SERIAL_SLAP)
                elif console.plugin.to_move(pos) == 1 and seat.handheld.connected:
                    for k in keys_for(seat.hand):
                        handheld.press(k.value, clock.now_ns())
                        pressed += 1
                        settle(3)
                console.step()
            assert console.phase is Phase.GAMEOVER, "the game reached its end"
            assert replugs == 50, f"only {replugs} re-plugs happened before the game ended"
            assert handheld.plugs == replugs + 1
            downs = [k for k in keys_seen if not k.repeat]
            assert len(downs) == pressed, "every key applied exactly once"
        finally:
            rig.close()
            handheld.stop()


def test_a_restarted_emulated_handheld_is_a_new_power_up_and_its_keys_count() -> None:
    """The same handheld id started again (Ctrl-C, run again) draws a new boot id, as the
    board does at power-up: its first keys are applied, not taken for repeats of the
    previous run's keys with the same numbers (which would drop them)."""
    from drivers.serial_handheld import SerialHandhelds

    clock = FakeClock(3 * S)
    posted: list[object] = []
    current: list[EmulatedHandheld] = []
    link = SerialHandhelds({0: "same-id"}, post=posted.append, clock=clock, thread=False,
                           ports=lambda: [h.path for h in current if h.path])

    def run(until: Any) -> None:
        for _ in range(400):
            now = clock.now_ns()
            for h in current:
                h.pump(now)
            link.run_once(now)
            if until():
                return
            clock.advance(10 * MS)
        raise AssertionError("timed out")

    try:
        for life in range(2):
            handheld = EmulatedHandheld("same-id", clock=clock)
            current[:] = [handheld]
            handheld.plug()
            run(lambda: link.connected(0))
            before = len(posted)
            for key in ("right", "right", "left"):
                handheld.press(key, clock.now_ns())
            run(lambda: len(posted) >= before + 3)  # noqa: B023
            assert [e.key for e in posted[before:] if isinstance(e, KeyPress)] == \
                ["right", "right", "left"], f"run {life + 1}"
            handheld.stop()
    finally:
        link.close()


def emulator_keys(handheld_id: str, typed: bytes, count: int, timeout_s: float) -> list[str]:
    """Run ``python -m device emulate-handheld --id handheld_id`` with its terminal on a
    pipe, connect the Pi side's real serial link to it, write ``typed`` in ONE write and
    return the keys of the first ``count`` presses the console gets (repeats left out)."""
    import subprocess
    import sys
    import threading

    from drivers.serial_handheld import SerialHandhelds

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.Popen([sys.executable, "-m", "device", "emulate-handheld", "--id",
                             handheld_id], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=root, env=env)
    presses: list[KeyPress] = []
    got = threading.Condition()

    def post(event: object) -> None:
        with got:
            if isinstance(event, KeyPress) and not event.repeat:
                presses.append(event)
            got.notify_all()

    handhelds = None
    try:
        assert proc.stdout is not None and proc.stdin is not None
        first = proc.stdout.readline().decode()
        path = first.split(" on ", 1)[1].split(" ", 1)[0]
        assert path.startswith("/dev/"), first
        handhelds = SerialHandhelds({0: path}, post=post, ports=lambda: [path])
        end = time.monotonic() + 10
        while not handhelds.connected(0):
            assert time.monotonic() < end, "the emulated handheld never connected"
            time.sleep(0.01)
        proc.stdin.write(typed)
        proc.stdin.flush()
        with got:
            got.wait_for(lambda: len(presses) >= count, timeout=timeout_s)
            return [e.key for e in presses]
    finally:
        if handhelds is not None:
            handhelds.close()
        proc.terminate()
        proc.wait(10)


def test_the_emulators_terminal_acts_on_every_key_line_of_one_write() -> None:
    """``python -m device emulate-handheld`` reading its keys from a pipe: three key lines
    arriving in one write ("l", "r", "s") are three key presses at the console, in order."""
    assert emulator_keys("stdin-1", b"l\nr\ns\n", 3, 5) == ["left", "right", "select"]


def test_the_emulators_terminal_presses_every_key_of_a_long_burst() -> None:
    """200 key lines in one write and one line of 300 keys, more than the handheld's
    32-event KEY queue holds: the emulator stops reading its terminal until the console
    has acknowledged keys, so every key arrives, in order, none dropped."""
    want = ["left"] * 200 + ["right", "select"] * 150
    assert emulator_keys("burst-1", b"l\n" * 200 + b"rs" * 150 + b"\n", len(want), 60) == want


def test_keys_typed_past_the_key_queue_wait_and_none_is_dropped() -> None:
    """With no console to ACK them, 200 typed keys fill the core's 32-edge KEY queue with
    16 whole presses (down and up: no key left held down); the other 184 wait in order,
    none dropped (the burst test above sees them go as the console ACKs)."""
    from device.modes.emulator import KeyTyper

    clock = FakeClock(20 * S)
    handheld = EmulatedHandheld("typer-1", boot_id=5, clock=clock)
    typer = KeyTyper(handheld)
    typer.type("l" * 199 + "r")
    edges = handheld.core.pending_keys()
    assert len(edges) == handheld.key_queue == 32
    assert [down for _seq, _key, down, _t in edges] == [True, False] * 16
    assert len(typer.pending) == 184 and typer.pending[-1] == "right"
    assert handheld.core.keys_dropped == 0
    typer.feed()  # still no ACK: nothing more goes, nothing is lost
    assert len(handheld.core.pending_keys()) == 32 and len(typer.pending) == 184
