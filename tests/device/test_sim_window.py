"""The simulator in a real X11 window (Xvfb): the window opens and keyboard keys play.

Runs the simulator's own classes in a child process with ``DISPLAY`` pointing at a fresh
Xvfb server, posts real SDL key events (what a keyboard makes) and reads back what the
engine applied.  Skipped where Xvfb is not installed: every other device test runs on SDL's
dummy driver.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

XVFB = shutil.which("Xvfb")
pytestmark = pytest.mark.skipif(
    XVFB is None,
    reason="Xvfb is not installed (apt-get install xvfb); the real-window test needs an X "
    "server, the SDL dummy-driver tests cover the rest",
)

SCRIPT = r"""
import json, sys, time
from pathlib import Path
import pygame
from gpiozero.pins.mock import MockFactory
from device.modes.cli import SIM_SLAP_PINS
from device.console import Console, make_seats
from device.reactor.events import DeviceQueue, SdlPump
from device.flow.lobby import LobbyChoices
from device.modes.present import SimPresenter
from device.modes.sim import KEYMAP, SimKeyboard, sim_slap_buttons
from drivers.clock import MonotonicClock
from drivers.hand_display import open_hand_display
from drivers.table_display import TableDisplay

out = Path(sys.argv[1])
clock = MonotonicClock()
display = TableDisplay("window", (1280, 720), clock=clock)
queue = DeviceQueue()
devices = [open_hand_display(s, "dummy") for s in range(6)]
factory = MockFactory()
pins = dict(enumerate(SIM_SLAP_PINS))
presenter = SimPresenter(display)
with sim_slap_buttons(pins, queue.post, factory) as buttons:
    console = Console(
        presenter=presenter, seats=make_seats(devices, "sim", SIM_SLAP_PINS), clock=clock,
        queue=queue, choices=LobbyChoices(game="riiing", kinds=("human", "computer")),
        game_seed=4, state_dir=out / "state", keymap=KEYMAP,
        tickers=[buttons.settle, SdlPump(queue.post)])
    keyboard = SimKeyboard(console, factory, queue.post)
    console.keyboard = keyboard
    presenter.active_seat = keyboard.active_seat
    console.start()
    console.render(clock.now_ns())

    def key(k):
        for t in (pygame.KEYDOWN, pygame.KEYUP):
            pygame.event.post(pygame.event.Event(t, key=k, mod=0, unicode="", scancode=0))

    def until(cond, limit_s=40.0):
        end = time.monotonic() + limit_s
        while not cond() and time.monotonic() < end:
            console.step()
        return cond()

    key(pygame.K_LEFT)      # lobby: wrap to START
    key(pygame.K_RETURN)    # START
    assert until(lambda: console.phase == "wakeup"), console.phase
    key(pygame.K_1)         # seat 1 slaps first: it starts (RI-2.3)
    assert until(lambda: console.phase == "play"), console.phase

    def my_turn():
        view = console.plugin.engine.view(console.pos, 0)
        return view.to_move == 0 and view.window is None

    assert until(my_turn)
    before = len(console.record.actions)
    for _ in range(12):  # SELECT the cursor card; if refused, move right and try again
        key(pygame.K_RETURN)
        if until(lambda: len(console.record.actions) > before, 0.3):
            break
        key(pygame.K_RIGHT)
    pygame.image.save(display.surface, str(out / "window.png"))
    print(json.dumps({"driver": pygame.display.get_driver(),
                      "size": list(display.surface.get_size()),
                      "first": console.record.first,
                      "actions": console.record.actions,
                      "wakeup": [s.seat for s in console.record.slaps if s.race == "wakeup"]}))
display.close()
"""


@pytest.fixture
def xdisplay() -> Iterator[str]:
    """A fresh Xvfb server; yields its DISPLAY name (``":N"``) and stops it after."""
    assert XVFB is not None
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        [XVFB, "-displayfd", str(write_fd), "-screen", "0", "1280x720x24", "-nolisten", "tcp"],
        pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    try:
        ready, _, _ = select.select([read_fd], [], [], 20)
        if not ready:
            pytest.fail("Xvfb did not start within 20 s")
        number = os.read(read_fd, 32).decode().strip()
        yield f":{number}"
    finally:
        os.close(read_fd)
        proc.terminate()
        proc.wait(10)


def test_sim_window_opens_under_x11_and_keys_play_a_move(xdisplay: str, tmp_path: Path) -> None:
    """Under X11 the simulator opens a real window; keys start the game from the lobby,
    win the wake-up race with key 1 and lay a card (or draw) for seat 1."""
    env = {k: v for k, v in os.environ.items() if k not in ("SDL_VIDEODRIVER", "WAYLAND_DISPLAY")}
    env["DISPLAY"] = xdisplay
    env["SDL_AUDIODRIVER"] = "dummy"
    env["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path)], env=env, capture_output=True,
        text=True, timeout=180, cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["driver"] == "x11"
    assert result["size"] == [1280, 720]
    assert result["wakeup"] == [0] and result["first"] == 0
    human = [a for a in result["actions"] if a.startswith(("play", "draw", "take"))]
    assert human, result["actions"]
    assert (tmp_path / "window.png").stat().st_size > 10_000
    assert json.loads((tmp_path / "state" / "lobby.json").read_text())["game"] == "riiing"


SELFTEST_SCRIPT = r"""
import sys, threading, time
import pygame
import device.modes.selftest
from device.main import main

made = []
real_init = device.modes.selftest.SelfTest.__init__

def keep(self, *args, **kw):
    real_init(self, *args, **kw)
    made.append(self)

device.modes.selftest.SelfTest.__init__ = keep

def press_for_people():
    # each key is pressed once its check is on the TV (never a fixed sleep: CI is slow)
    keys = (pygame.K_1, pygame.K_LEFT, pygame.K_RIGHT, pygame.K_RETURN, pygame.K_BACKSPACE,
            pygame.K_2, pygame.K_LEFT, pygame.K_RIGHT, pygame.K_RETURN)
    for i, key in enumerate(keys):
        while not made or made[0].index < i:
            time.sleep(0.02)
        time.sleep(0.1)
        for t in (pygame.KEYDOWN, pygame.KEYUP):
            pygame.event.post(pygame.event.Event(t, key=key, mod=0, unicode="", scancode=0))
    # seat 2's BACK is never pressed: the self-test must report that fault

threading.Thread(target=press_for_people, daemon=True).start()
sys.exit(main(["selftest", "--sim", "--seats", "2"]))
"""


def test_selftest_runs_in_the_simulator_window(xdisplay: str, tmp_path: Path) -> None:
    """`python -m device selftest --sim`: keys answer the checks in turn; the one key never
    pressed (seat 2 BACK) is the one fault; exit status 1 with the list."""
    env = {k: v for k, v in os.environ.items() if k not in ("SDL_VIDEODRIVER", "WAYLAND_DISPLAY")}
    env["DISPLAY"] = xdisplay
    env["SDL_AUDIODRIVER"] = "dummy"
    env["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", SELFTEST_SCRIPT], env=env, capture_output=True, text=True,
        timeout=180, cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 1, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    assert "Seat 1 slap button: OK" in lines and "Seat 2 key SELECT: OK" in lines
    assert "FAULT: Seat 2 key BACK: no press in 15 s" in lines
    assert lines[-1] == "self-test: 1 fault(s)"
