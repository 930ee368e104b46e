"""Helpers for the hardware-mode tests: an OLED bus that records what the luma driver sends,
and the keys a person presses to make a move."""

from __future__ import annotations

import copy
from typing import Any

from device.hand_ui import Key


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
