"""Type stubs for the part of MicroPython's ``machine`` module the firmware uses (rp2 port).

For mypy only; never copied to the board.  From MicroPython's documentation of
``machine.Pin``, ``machine.I2C``, ``machine.unique_id`` and ``machine.reset``.
"""

from collections.abc import Sequence

class Pin:
    """A GPIO pin: ``Pin(id, mode, pull)``; ``value()`` reads the level (0 or 1)."""

    IN: int
    OUT: int
    PULL_UP: int
    PULL_DOWN: int
    def __init__(self, id: int | str, mode: int = ..., pull: int | None = ...) -> None: ...
    def value(self, x: int | None = ...) -> int: ...

class I2C:
    """An I2C controller: ``I2C(id, scl=Pin, sda=Pin, freq=Hz)``."""

    def __init__(self, id: int, *, scl: Pin, sda: Pin, freq: int = ...) -> None: ...
    def scan(self) -> list[int]: ...
    def writeto(self, addr: int, buf: bytes | bytearray | memoryview, stop: bool = ...) -> int: ...
    def writevto(self, addr: int, vector: Sequence[bytes | bytearray | memoryview],
                 stop: bool = ...) -> int: ...

def unique_id() -> bytes: ...
def reset() -> None: ...
