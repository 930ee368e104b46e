"""A small driver for a 128x64 SSD1306 (or SH1106) OLED on I2C, in page addressing mode.

Written from the chips' datasheets (Solomon Systech SSD1306 rev 1.1: "MCU I2C Interface",
"Command Table", "Set Memory Addressing Mode (20h)" / page addressing mode, and the charge
pump application note's power-on sequence; Sino Wealth SH1106) for MicroPython, whose own
``ssd1306`` module is not built into every port's firmware.  It runs on CPython too (the
tests drive it over a fake bus); it imports nothing at run time.

The picture is the protocol's page layout (``hardware/handheld/PROTOCOL.md``, "FRAME"): page
``p`` is 128 bytes, byte ``i`` is column ``i``, bit ``b`` is row ``8p + b`` -- exactly the
chip's display RAM in page addressing mode, and ``framebuf.MONO_VLSB``.  So a page goes to
the chip as it is: set the page and column (``0xB0 | p``, ``0x00 | low``, ``0x10 | high``),
then 128 data bytes.  One page is 131 bytes on the bus, about 3 ms at 400 kHz, so the
firmware's loop can push one page per turn and still read its keys between them.

On I2C every transfer starts with a control byte: ``0x00`` = command bytes follow, ``0x40``
= display data bytes follow (Co = 0, D/C# = 0 or 1).  A missing or unpowered panel makes
``i2c.writeto`` raise ``OSError`` (EIO or ETIMEDOUT on the rp2 port); this driver lets it
through, and the firmware retries :meth:`OLED.init` later (a panel that lost power needs its
whole init sequence again: docs/hardware-facts.md, "luma.oled").
"""

TYPE_CHECKING = False
if TYPE_CHECKING:  # for mypy only: never true on the board
    from collections.abc import Sequence
    from typing import Protocol

    class I2C(Protocol):
        """What this driver needs of ``machine.I2C``."""

        def writeto(self, addr: int, buf: bytes, stop: bool = True) -> object: ...

        def writevto(self, addr: int, vector: Sequence[bytes | bytearray | memoryview],
                     stop: bool = True) -> object: ...

CONTROLLERS = ("ssd1306", "sh1106")
"""The chips this driver knows."""

WIDTH = 128
HEIGHT = 64
PAGES = 8

_OFF = 0xAE
_ON = 0xAF
_CONTRAST = 0x81


def init_commands(controller: str = "ssd1306", external_vcc: bool = False,
                  contrast: int = 0xCF, flip: bool = False) -> bytes:
    """The power-on command sequence for a 128x64 panel (without the I2C control byte).

    ``controller``: ``"ssd1306"`` or ``"sh1106"``; ``external_vcc``: the panel's VCC comes
    from outside (no charge pump); ``contrast``: 0..255; ``flip``: turn the picture 180
    degrees (a module mounted upside down).  Raises ``ValueError`` naming a bad argument.

    SSD1306: display off; clock divide 0x80; multiplex 63 (64 rows); display offset 0; start
    line 0; charge pump on (0x8D 0x14) unless ``external_vcc``; memory addressing mode 0x02
    (page addressing); segment remap and COM scan direction (0xA1 0xC8: column 0 at the
    left, row 0 on top on the common modules); COM pins 0x12 (alternative, 64 rows);
    contrast; pre-charge 0xF1 (0x22 with external VCC); VCOMH deselect 0x40; follow RAM
    (0xA4); normal, not inverted (0xA6); scrolling off (0x2E); display on.  SH1106: the same
    without the SSD1306-only commands (0x20 addressing mode, 0x2E), its DC-DC converter on
    with 0xAD 0x8B, pre-charge 0x22 and VCOMH 0x35.

    >>> init_commands()[:4].hex(" ")
    'ae d5 80 a8'
    """
    if controller not in CONTROLLERS:
        raise ValueError(f"OLED controller must be one of {', '.join(CONTROLLERS)}, "
                         f"got {controller!r}")
    if isinstance(contrast, bool) or not isinstance(contrast, int) or not 0 <= contrast <= 255:
        raise ValueError(f"OLED contrast must be 0..255, got {contrast!r}")
    seg, com = (0xA0, 0xC0) if flip else (0xA1, 0xC8)
    if controller == "ssd1306":
        return bytes([
            _OFF, 0xD5, 0x80, 0xA8, HEIGHT - 1, 0xD3, 0x00, 0x40,
            0x8D, 0x10 if external_vcc else 0x14,
            0x20, 0x02,
            seg, com, 0xDA, 0x12, _CONTRAST, contrast,
            0xD9, 0x22 if external_vcc else 0xF1, 0xDB, 0x40,
            0xA4, 0xA6, 0x2E, _ON,
        ])
    return bytes([
        _OFF, 0xD5, 0x80, 0xA8, HEIGHT - 1, 0xD3, 0x00, 0x40,
        0xAD, 0x8A if external_vcc else 0x8B,
        seg, com, 0xDA, 0x12, _CONTRAST, contrast,
        0xD9, 0x22, 0xDB, 0x35,
        0xA4, 0xA6, _ON,
    ])


class OLED:
    """A 128x64 OLED on an I2C bus (``machine.I2C``, or anything with ``writeto`` and
    ``writevto``), driven in page addressing mode.

    ``address``: the 7-bit I2C address, 0x3C or 0x3D (the SA0 pin / the module's jumper);
    ``controller``: ``"ssd1306"`` or ``"sh1106"`` (whose 132-column RAM shows columns
    2..129, so its pages start at column 2); ``external_vcc``, ``contrast``, ``flip``: as in
    :func:`init_commands`.  The constructor sends nothing: call :meth:`init` first (and again
    after the panel lost power).  Every method raises the bus's ``OSError`` when the panel
    does not answer, and ``ValueError`` for a bad argument.
    """

    def __init__(self, i2c: "I2C", address: int = 0x3C, controller: str = "ssd1306",
                 external_vcc: bool = False, contrast: int = 0xCF, flip: bool = False) -> None:
        if address not in (0x3C, 0x3D):
            raise ValueError(f"OLED address must be 0x3C or 0x3D, got {address!r}")
        self._init = init_commands(controller, external_vcc, contrast, flip)
        self.i2c = i2c
        self.address = address
        self.controller = controller
        self.column = 2 if controller == "sh1106" else 0
        """The RAM column the picture's column 0 sits in (2 on an SH1106)."""
        self._data = bytes([0x40])

    def command(self, *codes: int) -> None:
        """Send command bytes (control byte 0x00), e.g. ``command(0xAF)`` = display on."""
        self.i2c.writeto(self.address, bytes((0x00,) + codes))  # noqa: RUF005 (no (0, *x))

    def init(self) -> None:
        """Send the power-on sequence (:func:`init_commands`), leaving the RAM as it is:
        follow with :meth:`show` or a :meth:`write_page` for every page."""
        self.i2c.writeto(self.address, b"\x00" + self._init)

    def write_page(self, page: int, data: bytes | bytearray | memoryview) -> None:
        """Write one 128-byte page (0..7) of the picture: select it, then send its bytes."""
        if isinstance(page, bool) or not isinstance(page, int) or not 0 <= page < PAGES:
            raise ValueError(f"OLED page must be 0..7, got {page!r}")
        if len(data) != WIDTH:
            raise ValueError(f"OLED page {page} must be {WIDTH} bytes, got {len(data)}")
        col = self.column
        self.command(0xB0 | page, col & 0x0F, 0x10 | (col >> 4))
        self.i2c.writevto(self.address, (self._data, data))

    def show(self, buffer: bytes | bytearray) -> None:
        """Write all 8 pages of a 1,024-byte picture in page layout."""
        if len(buffer) != PAGES * WIDTH:
            raise ValueError(f"OLED picture must be {PAGES * WIDTH} bytes, got {len(buffer)}")
        view = memoryview(buffer)
        for page in range(PAGES):
            self.write_page(page, view[page * WIDTH:(page + 1) * WIDTH])

    def power(self, on: bool) -> None:
        """Display on (0xAF) or off (0xAE, sleep: the RAM is kept)."""
        self.command(_ON if on else _OFF)

    def contrast(self, value: int) -> None:
        """Set the contrast 0..255 (0x81, value)."""
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 255:
            raise ValueError(f"OLED contrast must be 0..255, got {value!r}")
        self.command(_CONTRAST, value)
