"""Type stubs for the part of MicroPython's ``micropython`` module the firmware uses.

For mypy only; never copied to the board.
"""

def kbd_intr(chr: int) -> None: ...
