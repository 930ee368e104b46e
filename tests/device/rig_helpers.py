"""Helpers for the hardware-mode tests: an OLED bus that records what the luma driver sends,
and the keys a person presses to make a move."""

from __future__ import annotations

import copy
from typing import Any

from device.hand_ui import Key


class Bus:
    """A luma serial interface (``command``/``data``/``cleanup``) that records the command
    bytes and frame data the OLED driver sends, as an I2C bus that works; with
    ``unplugged`` set it fails as a pulled cable does (errno 121)."""

    def __init__(self) -> None:
        self.commands: list[int] = []
        self.frames: list[bytes] = []
        self.unplugged = False

    def command(self, *cmd: int) -> None:
        """Record command bytes (an unplugged cable: errno 121)."""
        if self.unplugged:
            raise OSError(121, "Remote I/O error")
        self.commands.extend(cmd)

    def data(self, data: Any) -> None:
        """Record a frame chunk (an unplugged cable: errno 121)."""
        if self.unplugged:
            raise OSError(121, "Remote I/O error")
        self.frames.append(bytes(data))

    def cleanup(self) -> None:
        """Nothing to release."""


def keys_for(hand: Any) -> list[Key]:
    """Keys a person would press to act: RIGHT (or LEFT) until a card (or DRAW) that plays,
    then SELECT, or the shortest other sequence (tried on copies of the composer)."""
    for n in range(30):
        for way in (Key.RIGHT, Key.LEFT):
            for tail in ([Key.SELECT], [Key.SELECT, Key.SELECT]):
                seq = [way] * n + tail
                trial = copy.copy(hand)
                if any(trial.key(k) is not None for k in seq):
                    return seq
    raise AssertionError(f"no key sequence submits an action: {hand.screen()}")
