"""Helpers for the hardware-mode tests: a two-seat config file, a finger tapping a GPIO
line, ``python -m device`` run until a SIGTERM, an OLED bus that records what the luma
driver sends, and the keys a person presses to make a move."""

from __future__ import annotations

import copy
import os
import signal
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from device.hands.composer import HandKey
from drivers.clock import FakeClock
from drivers.gpio import edge

MS = 1_000_000
S = 1_000_000_000

WIRED_KEYS = {"left": 27, "right": 22, "select": 23, "back": 24}
"""Seat 0's key pins (BCM) in :func:`write_rig_config`'s config; its slap pin is 17."""

_RIG_CONFIG = """
[display]
driver = "dummy"
{display}[gpio]
{gpio}i2c = [1]
[paths]
state_dir = "{state}"
[[seat]]
slap_pin = 17
[seat.handheld]
kind = "wired"
controller = "ssd1306"
bus = "i2c"
port = 1
address = 0x3C
keys = {{ left = 27, right = 22, select = 23, back = 24 }}
[[seat]]
slap_pin = 25
[seat.handheld]
{seat1}
"""


def write_rig_config(folder: Path, seat1: str, display: str = "", gpio: str = "") -> Path:
    """Write ``folder/config.toml`` and return its path: a dummy TV (``display``: more
    ``[display]`` lines), I2C1 on (``gpio``: more ``[gpio]`` lines), the state in
    ``folder/state``; seat 0 a wired SSD1306 at 0x3C on I2C1 with :data:`WIRED_KEYS` and
    slap pin 17, seat 1 slap pin 25 with the ``[seat.handheld]`` lines ``seat1``."""
    path = folder / "config.toml"
    path.write_text(_RIG_CONFIG.format(display=display, gpio=gpio, state=folder / "state",
                                       seat1=seat1))
    return path


def tap(factory: Any, clock: FakeClock, pin: int) -> None:
    """A finger on a button: press now, release 60 ms later on the MockFactory ``factory``;
    ``clock`` moves on 150 ms in all."""
    edge(factory, pin, True, clock.now_ns())
    clock.advance(60 * MS)
    edge(factory, pin, False, clock.now_ns())
    clock.advance(90 * MS)


def main_until_sigterm(argv: Sequence[str], after_s: float = 1.0) -> int:
    """The exit status of ``device.main.main(argv)`` run in this process while a timer
    sends it SIGTERM ``after_s`` seconds on (as systemd stops the device); the SIGINT and
    SIGTERM handlers it installs are put back afterwards."""
    from device.main import main

    old = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    timer = threading.Timer(after_s, lambda: os.kill(os.getpid(), signal.SIGTERM))
    timer.start()
    try:
        return main(list(argv))
    finally:
        timer.cancel()
        for sig, handler in old.items():
            signal.signal(sig, handler)


class Bus:
    """A luma serial interface (``command``/``data``/``cleanup``) that records the command
    bytes and frame data the OLED driver sends, as an I2C bus that works; with
    ``unplugged`` set it fails as a pulled cable does (errno 121); ``nak_next``: so many
    next writes fail the same way while the panel stays (a marginal line losing a
    transfer)."""

    def __init__(self) -> None:
        self.commands: list[int] = []
        self.frames: list[bytes] = []
        self.unplugged = False
        self.nak_next = 0

    def _check(self) -> None:
        """Raise errno 121 for an unplugged cable or a lost transfer."""
        if self.nak_next > 0:
            self.nak_next -= 1
            raise OSError(121, "Remote I/O error")
        if self.unplugged:
            raise OSError(121, "Remote I/O error")

    def command(self, *cmd: int) -> None:
        """Record command bytes (an unplugged cable, a lost transfer: errno 121)."""
        self._check()
        self.commands.extend(cmd)

    def data(self, data: Any) -> None:
        """Record a frame chunk (an unplugged cable, a lost transfer: errno 121)."""
        self._check()
        self.frames.append(bytes(data))

    def cleanup(self) -> None:
        """Nothing to release."""


def keys_for(hand: Any) -> list[HandKey]:
    """Keys a person would press to act: RIGHT (or LEFT) until a card (or DRAW) that plays,
    then SELECT, or the shortest other sequence (tried on copies of the composer)."""
    for n in range(30):
        for way in (HandKey.RIGHT, HandKey.LEFT):
            for tail in ([HandKey.SELECT], [HandKey.SELECT, HandKey.SELECT]):
                seq = [way] * n + tail
                trial = copy.copy(hand)
                if any(trial.key(k) is not None for k in seq):
                    return seq
    raise AssertionError(f"no key sequence submits an action: {hand.screen()}")
