"""The config file's types: every TOML table a frozen dataclass, every key a field whose
metadata (a ``device.config.table_reader.KeySpec``) says once how it is checked, its default, unit
and doc; ``device.config.table_reader.read_table`` reads any of them.  The keys whose check is more
than a type and a range (``display.lag_ms``, ``gpio.i2c``, a serial ``id``, an OLED
``address``, a seat's ``handheld``) have their own reader here, beside the type.

The checks across keys (pins, buses, seats) are ``device.config.checks``; the reading API,
the schema's overview and the facts it rests on are ``device.config.loader``.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

from device.config.table_reader import (
    FIRST_PIN,
    LAST_PIN,
    KeySpec,
    Reading,
    bcm_pin,
    choice,
    flag,
    number,
    one_of,
    printable,
    read_field,
    read_table,
    short,
    shown,
    table,
    table_of,
    toml_names,
    unknown,
    variant_hints,
)
from drivers.values import is_int, is_number

BUNDLED_NAME = "config.toml"
"""The bundled default, a resource of package ``device`` (pyproject package-data)."""

ETC_CONFIG = Path("/etc/partytable/config.toml")
"""The builder's override, used when present and no ``--config`` is given."""

SYS_I2C_DEVICES = Path("/sys/bus/i2c/devices")
"""Where the kernel lists I2C adapters and clients (``i2c-1``, ``1-0070/channel-0``)."""

BOM = "\ufeff"
"""The byte order mark (UTF-8 ``EF BB BF``) that Windows editors such as Notepad write at the
start of a UTF-8 file; TOML 1.0 does not allow it, so it is dropped before parsing."""

SERIAL_BY_ID = Path("/dev/serial/by-id")
"""udev's stable names of USB serial ports (``60-serial.rules``): where a serial seat's
``id`` is looked for by ``check-config``."""

NAME_MAX = 255
"""The longest file name Linux takes, in bytes (``NAME_MAX``, ``limits.h``; a longer one is
``ENAMETOOLONG``): a serial ``id``'s names are file names under ``/dev``."""

MAX_CONFIG_BYTES = 1 << 20
"""A config file larger than this (1 MiB) is refused before it is parsed."""

HEADER_PIN: dict[int, int] = {
    0: 27, 1: 28, 2: 3, 3: 5, 4: 7, 5: 29, 6: 31, 7: 26, 8: 24, 9: 21, 10: 19, 11: 23,
    12: 32, 13: 33, 14: 8, 15: 10, 16: 36, 17: 11, 18: 12, 19: 35, 20: 38, 21: 40, 22: 15,
    23: 16, 24: 18, 25: 22, 26: 37, 27: 13,
}
"""BCM GPIO number -> pin of the 40-pin header (the same on every 40-pin Pi, Pi 5 included)."""

HEADER_POWER: dict[int, str] = {
    1: "3V3", 17: "3V3", 2: "5V", 4: "5V",
    6: "GND", 9: "GND", 14: "GND", 20: "GND", 25: "GND", 30: "GND", 34: "GND", 39: "GND",
}
"""Header pin -> supply (the 12 header pins that are no GPIO)."""

I2C_HAT_BUSES: dict[int, tuple[int, int]] = {1: (2, 3)}
"""Hardware I2C buses on the header this firmware knows: bus -> (SDA, SCL).  More buses come
as ``[[gpio.i2c_gpio]]`` tables."""

SPI0_PINS: dict[int, str] = {
    7: "SPI0 CE1", 8: "SPI0 CE0", 9: "SPI0 MISO", 10: "SPI0 MOSI", 11: "SPI0 SCLK",
}
"""GPIO lines ``dtparam=spi=on`` takes."""

SPI_CE = {0: 8, 1: 7}
"""SPI0 device -> its chip-enable line (CE0 = GPIO 8, CE1 = GPIO 7)."""

UART_PINS: dict[int, str] = {14: "UART TXD", 15: "UART RXD"}
"""GPIO lines ``enable_uart=1`` takes."""

I2C_GPIO_BUS_NUMBERS = range(3, 10)
"""Bus numbers an i2c-gpio bus may ask for: 0-2 and 10+ are the board's own (I2C0, I2C1,
HDMI/camera buses on some models)."""

OLED_ADDRESSES = (0x3C, 0x3D)
"""The only addresses an SSD1306/SH1106 answers on (the SA0 jumper; docs/hardware-facts.md)."""

MUX_ADDRESSES = range(0x70, 0x78)
"""A TCA9548A's addresses (A0-A2 jumpers)."""

I2C_KHZ = (100, 400)
"""The I2C1 clocks ``gpio.i2c_khz`` offers: the I2C standard mode (100 kHz, the safe one on
long leads) and fast mode (400 kHz, the SSD1306's and SH1106's top speed)."""

MUX_CHANNELS = 8
"""Channels of a TCA9548A/PCA9548."""

KEY_NAMES = ("left", "right", "select", "back")
"""A wired handheld's keys, in the order the config, the wiring table and the drivers use."""

LINES_PER_WIRED_SEAT = 1 + len(KEY_NAMES)
"""GPIO lines of one wired seat: its slap button and four keys (SPI OLEDs add DC and RST)."""

DRIVERS = ("kmsdrm", "window", "dummy")
"""``[display] driver`` values: KMS/DRM fullscreen (a Pi), a desktop window, SDL dummy."""

CONTROLLERS = ("ssd1306", "sh1106")
"""OLED controllers luma.oled drives (``drivers.hand_display`` kinds)."""

BUSES = ("i2c", "spi")
"""How a wired OLED reaches the Pi."""

KINDS = ("wired", "serial", "none")
"""Handheld kinds: wired to the header, a USB serial handheld, none (a computer-only seat)."""

MAX_LAG_MS = 500.0
"""A TV lag above this is a typo: TVs measure roughly 10-150 ms."""

MAX_VOLUME = 10
"""``[sound] volume``'s top: volumes are whole steps 0..10 (``device.modes.sound.gain``)."""

DEFAULT_VOLUME = 7
"""``[sound] volume``'s default (and ``--volume``'s: ``device.modes.cli``)."""

MIN_SEATS, MAX_SEATS = 2, 6
"""Seats a table has (RI-2.4, RT-2.5)."""

OptionValue = int | bool | str | list[str]
"""A rule option's value as TOML gives it (``deck`` may be an array of card codes)."""

StoredOption = int | bool | str | tuple[str, ...]
"""A rule option as a frozen :class:`Config` keeps it (an array becomes a tuple)."""


class ConfigError(ValueError):
    """A config that cannot be used.  ``problems``: one line each, each starting with the key
    path it is about (``file`` or ``toml`` for the file itself); ``source`` names the file.
    ``str(err)`` is the lines, each prefixed with the source."""

    def __init__(self, problems: Sequence[str], source: str = "config") -> None:
        self.problems = list(problems)
        self.source = printable(source)
        source = self.source
        super().__init__("\n".join(f"{source}: {p}" for p in self.problems))


# --------------------------------------------------------------------------- the values


def _read_lag(r: Reading, key: str, lag: object, got: Mapping[str, Any]) -> float | None:
    """``display.lag_ms``: a finite number 0..:data:`MAX_LAG_MS`, compared as written (an
    int of any size compares exactly with a float; ``float(int)`` overflows past 1e308)
    and shown short."""
    if not is_number(lag):
        r.problems.add(key, f"expected a number of milliseconds, got {shown(lag)}")
    elif isinstance(lag, float) and not math.isfinite(lag):
        r.problems.add(key, f"{lag} is not a finite number of milliseconds")
    elif lag < 0:
        r.problems.add(key, f"{number(lag, ' ms')} is negative: a TV shows a frame after the "
                            "flip, never before (measure it: hardware/README.md)")
    elif lag > MAX_LAG_MS:
        r.problems.add(key, f"{number(lag, ' ms')} is absurd for a TV (most lag 10-150 ms; "
                            f"at most {MAX_LAG_MS:.0f})")
    else:
        return float(lag)
    return None


@dataclass(frozen=True, slots=True)
class DisplayConfig:
    """``[display]``: the SDL video ``driver`` and the TV's own ``lag_ms`` (float ms, >= 0),
    added to each slap window's t0 (docs/architecture.md "Slap arbitration" 1)."""

    driver: str = field(default="kmsdrm", metadata=KeySpec(
        choice(DRIVERS, "video driver"), doc="SDL's video driver").meta())
    lag_ms: float = field(default=0.0, metadata=KeySpec(
        _read_lag, unit="ms", doc=f"the TV's own lag, 0 to {MAX_LAG_MS:.0f}").meta())

    @property
    def lag_ns(self) -> int:
        """``lag_ms`` as int nanoseconds (CLOCK_MONOTONIC offsets)."""
        return round(self.lag_ms * 1_000_000)


@dataclass(frozen=True, slots=True)
class I2cGpioBus:
    """``[[gpio.i2c_gpio]]``: a bit-banged I2C bus ``/dev/i2c-<bus>`` on BCM ``sda``/``scl``."""

    bus: int = field(metadata=KeySpec(
        one_of(I2C_GPIO_BUS_NUMBERS, "an i2c-gpio bus number (3-9: 0-2 and 10+ are the "
               "board's own)"), missing="missing (its /dev/i2c-N number, 3-9)").meta())
    sda: int = field(metadata=KeySpec(bcm_pin(), missing="missing (a BCM pin)",
                                      unit="BCM").meta())
    scl: int = field(metadata=KeySpec(bcm_pin(), missing="missing (a BCM pin)",
                                      unit="BCM").meta())

    def overlay(self) -> str:
        """Its ``/boot/firmware/config.txt`` line."""
        return f"dtoverlay=i2c-gpio,bus={self.bus},i2c_gpio_sda={self.sda},i2c_gpio_scl={self.scl}"


@dataclass(frozen=True, slots=True)
class I2cMux:
    """``[gpio.i2c_mux]``: a TCA9548A/PCA9548 at ``address`` on I2C1 (bus 1)."""

    address: int = field(default=0x70, metadata=KeySpec(
        one_of(MUX_ADDRESSES, "a TCA9548A address (0x70-0x77)", hex_=True)).meta())
    bus: ClassVar[int] = 1

    def overlay(self) -> str:
        """Its ``/boot/firmware/config.txt`` line."""
        return f"dtoverlay=i2c-mux,pca9548,addr=0x{self.address:02x}"

    def channel_link(self, channel: int, sys_i2c: Path = SYS_I2C_DEVICES) -> Path:
        """The kernel's link from the mux to channel ``channel``'s adapter (``i2c-N``):
        ``<sys_i2c>/1-0070/channel-0`` (``drivers/i2c/i2c-mux.c`` names it so)."""
        return sys_i2c / f"{self.bus}-{self.address:04x}" / f"channel-{channel}"


def _read_chip(r: Reading, key: str, chip: object, got: Mapping[str, Any]
               ) -> int | Literal["auto"] | None:
    """``gpio.chip``: ``"auto"`` or a gpiochip number (>= 0)."""
    if is_int(chip) and chip >= 0:
        return chip
    if chip == "auto":
        return "auto"
    r.problems.add(key, f'expected "auto" or a gpiochip number, got {shown(chip)}')
    return None


def _read_i2c_list(r: Reading, key: str, value: object, got: Mapping[str, Any]
                   ) -> tuple[int, ...] | None:
    """``gpio.i2c``: the hardware I2C buses enabled on the header, each once."""
    if not isinstance(value, list):
        r.problems.add(key, f"expected an array of I2C bus numbers ([1] or []), got "
                            f"{shown(value)}")
        return None
    buses: list[int] = []
    for i, bus in enumerate(value):
        if not is_int(bus) or bus not in I2C_HAT_BUSES:
            r.problems.add(f"{key}[{i}]", f"{shown(bus)} is no header I2C bus this firmware "
                           "knows (1 = GPIO 2/3); add more buses as [[gpio.i2c_gpio]] tables")
            return None
        if bus in buses:
            r.problems.add(f"{key}[{i}]", f"bus {bus} is listed twice")
            return None
        buses.append(bus)
    return tuple(buses)


def _read_mux(r: Reading, key: str, value: object, got: Mapping[str, Any]) -> I2cMux | None:
    """``[gpio.i2c_mux]``: its table, on I2C1 (``got["i2c"]``, when it read)."""
    if table(r, key, value) is None:
        return None
    mux = read_table(r, I2cMux, key, value)
    i2c = got.get("i2c")
    if i2c is not None and I2cMux.bus not in i2c:
        r.problems.add(key, "the mux sits on I2C1 (GPIO 2/3): add 1 to gpio.i2c")
        return None
    return mux


def _read_i2c_gpio(r: Reading, key: str, value: object, got: Mapping[str, Any]
                   ) -> tuple[I2cGpioBus, ...] | None:
    """``[[gpio.i2c_gpio]]``: extra bit-banged buses, each on a bus number not enabled
    already (``got["i2c"]`` or an earlier one)."""
    if not isinstance(value, list):
        r.problems.add(key, f"expected [[gpio.i2c_gpio]] tables, got {shown(value)}")
        return None
    out: list[I2cGpioBus] = []
    ok = True
    for i, item in enumerate(value):
        where = f"{key}[{i}]"

        def fresh(r: Reading, values: dict[str, Any], where: str = where) -> bool:
            """The entry's ``bus`` is not enabled already."""
            bus = values.get("bus")
            if bus is not None and (bus in got.get("i2c", ()) or bus in (b.bus for b in out)):
                r.problems.add(f"{where}.bus", f"i2c-{bus} is already enabled")
                return False
            return True

        extra = read_table(r, I2cGpioBus, where, item, after=fresh)
        if extra is None:
            ok = False
        else:
            out.append(extra)
    return tuple(out) if ok else None


@dataclass(frozen=True, slots=True)
class GpioConfig:
    """``[gpio]``: the GPIO ``chip`` (``"auto"`` or a gpiochip number, for
    ``drivers.pin_factory.open_pin_factory(chip=...)``, which finds "auto" by the chip's
    label) and the header functions enabled in ``/boot/firmware/config.txt`` (they take
    their pins); ``i2c_khz``: I2C1's clock in kHz (:data:`I2C_KHZ`), the value of its
    ``config.txt`` line (hardware/README.md, "Long leads")."""

    chip: int | Literal["auto"] = field(default="auto", metadata=KeySpec(
        _read_chip, doc='"auto" (found by label) or a gpiochip number').meta())
    i2c: tuple[int, ...] = field(default=(1,), metadata=KeySpec(
        _read_i2c_list, doc="the header's I2C buses (1 = GPIO 2/3)").meta())
    i2c_khz: int = field(default=400, metadata=KeySpec(
        one_of(I2C_KHZ, "an I2C clock in kHz: 400, or 100 for long leads"), unit="kHz",
        doc="I2C1's clock").meta())
    spi: bool = field(default=False, metadata=KeySpec(flag, doc="SPI0 on GPIO 7-11").meta())
    uart: bool = field(default=False, metadata=KeySpec(flag, doc="UART on GPIO 14/15").meta())
    i2c_mux: I2cMux | None = field(default=None, metadata=KeySpec(
        _read_mux, doc="a TCA9548A on I2C1; absent: no mux").meta())
    i2c_gpio: tuple[I2cGpioBus, ...] = field(default=(), metadata=KeySpec(
        _read_i2c_gpio, doc="extra bit-banged buses").meta())

    def function_pins(self, *, i2c_gpio: bool = True) -> dict[int, tuple[str, str]]:
        """BCM pin -> (function, config key) of every pin an enabled function takes (the
        ``[[gpio.i2c_gpio]]`` buses' pins too unless ``i2c_gpio`` is False)."""
        pins: dict[int, tuple[str, str]] = {}
        for bus in self.i2c:
            sda, scl = I2C_HAT_BUSES[bus]
            pins[sda] = (f"I2C{bus} SDA", "gpio.i2c")
            pins[scl] = (f"I2C{bus} SCL", "gpio.i2c")
        if self.spi:
            pins.update({p: (f, "gpio.spi") for p, f in SPI0_PINS.items()})
        if self.uart:
            pins.update({p: (f, "gpio.uart") for p, f in UART_PINS.items()})
        for i, extra in enumerate(self.i2c_gpio if i2c_gpio else ()):
            pins[extra.sda] = (f"i2c-{extra.bus} SDA", f"gpio.i2c_gpio[{i}].sda")
            pins[extra.scl] = (f"i2c-{extra.bus} SCL", f"gpio.i2c_gpio[{i}].scl")
        return pins

    def i2c_buses(self) -> tuple[int, ...]:
        """Every enabled I2C bus number (``/dev/i2c-N``), hardware first."""
        return (*self.i2c, *(b.bus for b in self.i2c_gpio))

    def boot_lines(self) -> tuple[str, ...]:
        """The ``/boot/firmware/config.txt`` lines this section needs."""
        lines = []
        if 1 in self.i2c:
            lines.append(f"dtparam=i2c_arm=on,i2c_baudrate={self.i2c_khz * 1000}")
        if self.i2c_mux is not None:
            lines.append(self.i2c_mux.overlay())
        lines.extend(b.overlay() for b in self.i2c_gpio)
        lines.append("dtparam=spi=on" if self.spi else "dtparam=spi=off")
        lines.append("enable_uart=1" if self.uart else "enable_uart=0")
        return tuple(lines)


def _read_state_dir(r: Reading, key: str, state: object, got: Mapping[str, Any]
                    ) -> Path | None:
    """``paths.state_dir``: an absolute folder path (lgpio's ``LG_WD`` ``chdir()``\\ s the
    process)."""
    if not isinstance(state, str) or not state:
        r.problems.add(key, f"expected an absolute folder path, got {shown(state)}")
        return None
    if "\x00" in state:
        r.problems.add(key, "contains a NUL character")
        return None
    if not state.startswith("/"):
        r.problems.add(key, f"{state!r} is relative: give an absolute path (lgpio's LG_WD "
                            "changes the working directory)")
        return None
    return Path(state)


@dataclass(frozen=True, slots=True)
class PathsConfig:
    """``[paths]``: ``state_dir``, the absolute folder of the journal and lobby choices."""

    state_dir: Path = field(default=Path("/var/lib/partytable"), metadata=KeySpec(
        _read_state_dir, doc="the journal's and lobby choices' folder (absolute)").meta())


@dataclass(frozen=True, slots=True)
class SoundConfig:
    """``[sound]``: ``volume``, a whole step 0..:data:`MAX_VOLUME` (0: silent, the audio
    device is never opened; ``device.modes.sound.SoundPlayer``).  A bad one is a warning and the
    default (sound is never a reason to stop a game)."""

    volume: int = field(default=DEFAULT_VOLUME, metadata=KeySpec(
        one_of(range(MAX_VOLUME + 1), f"a volume 0-{MAX_VOLUME} (0: silent)"), soft=True,
        doc="whole steps").meta())


def _key_pin(name: str) -> dict[str, KeySpec]:
    """The metadata of key ``name``'s pin."""
    return KeySpec(bcm_pin(f"key {name}"), missing=f"missing (the BCM pin of the {name} key)",
                   unit="BCM").meta()


@dataclass(frozen=True, slots=True)
class Keys:
    """A wired handheld's four keys: BCM GPIO numbers (buttons to GND, internal pull-up)."""

    left: int = field(metadata=_key_pin("left"))
    right: int = field(metadata=_key_pin("right"))
    select: int = field(metadata=_key_pin("select"))
    back: int = field(metadata=_key_pin("back"))

    def pins(self) -> dict[str, int]:
        """Key name -> BCM pin, in :data:`KEY_NAMES` order (``drivers.keys.HandKeys``)."""
        pins = {"left": self.left, "right": self.right, "select": self.select,
                "back": self.back}
        return {name: pins[name] for name in KEY_NAMES}


def _read_address(r: Reading, key: str, address: object, got: Mapping[str, Any]
                  ) -> int | None:
    """An I2C OLED's 7-bit ``address`` (:data:`OLED_ADDRESSES`); the 8-bit form boards
    print (7-bit << 1, plus the R/W bit: 0x78, 0x7A) is named as such."""
    if is_int(address) and address >> 1 in OLED_ADDRESSES:
        r.problems.add(key, f"0x{address:02X} is the 8-bit form (with the R/W bit) of "
                            f"0x{address >> 1:02X}: write address = 0x{address >> 1:02X}")
        return None
    checked: int | None = _oled_address(r, key, address, got)
    return checked


_oled_address = one_of(OLED_ADDRESSES, "an SSD1306/SH1106 address (0x3C or 0x3D, the SA0 "
                       "jumper)", hex_=True)


def _spi_pin(what: str) -> KeySpec:
    """The spec of an SPI OLED's ``what`` line (``"OLED DC"``)."""
    return KeySpec(bcm_pin(what), missing=f"missing (the BCM pin of the {what} line)",
                   unit="BCM")


@dataclass(frozen=True, slots=True)
class WiredHandheld:
    """A handheld on the header: an OLED (``controller`` on ``bus``) and four GPIO keys.

    I2C: ``port`` (``/dev/i2c-N``), ``address``, ``mux_channel`` (``None``: the display is
    on ``port`` itself); ``device``/``dc_pin``/``rst_pin`` unused (0/-1/-1).  SPI: ``port``
    0, ``device`` (CE0/CE1), ``dc_pin``, ``rst_pin`` (BCM); ``address`` unused.
    ``rotation``: luma's ``rotate`` (quarter turns).  :meth:`Config.hand_display` turns it
    into ``drivers.hand_display`` parameters.  The keys a ``bus`` lacks are its spec's
    ``variants``.
    """

    controller: str = field(default="ssd1306", metadata=KeySpec(
        choice(CONTROLLERS, "OLED controller")).meta())
    bus: str = field(default="i2c", metadata=KeySpec(choice(BUSES, "display bus")).meta())
    rotation: int = field(default=0, metadata=KeySpec(
        one_of(range(4), "a rotation (0-3 quarter turns)"), unit="quarter turns").meta())
    keys: Keys = field(kw_only=True, metadata=KeySpec(
        table_of(Keys), missing="missing: keys = { left = ..., right = ..., select = ..., "
        "back = ... } (BCM pins)").meta())
    port: int = field(default=1, metadata=KeySpec(variants={
        "i2c": KeySpec(one_of(range(0, 1 << 16), "an I2C bus number (/dev/i2c-N)"),
                       default=1),
        "spi": KeySpec(one_of((0,), "an SPI port this firmware drives (0 = SPI0)"),
                       default=0),
    }).meta())
    address: int = field(default=0x3C, metadata=KeySpec(variants={
        "i2c": KeySpec(_read_address)}).meta())
    mux_channel: int | None = field(default=None, metadata=KeySpec(variants={
        "i2c": KeySpec(one_of(range(MUX_CHANNELS), "a mux channel (0-7)"))}).meta())
    device: int = field(default=0, metadata=KeySpec(variants={
        "spi": KeySpec(one_of((0, 1), "an SPI0 device (0 = CE0, 1 = CE1)"))}).meta())
    dc_pin: int = field(default=-1, metadata=KeySpec(variants={
        "spi": _spi_pin("OLED DC")}).meta())
    rst_pin: int = field(default=-1, metadata=KeySpec(variants={
        "spi": _spi_pin("OLED RST")}).meta())
    kind: ClassVar[str] = "wired"


def _read_serial_id(r: Reading, key: str, ident: object, got: Mapping[str, Any]
                    ) -> str | None:
    """A serial handheld's ``id``: no spaces or control characters, each ``/`` part a file
    name (:data:`NAME_MAX` bytes), a path only under ``/dev/``."""
    if not isinstance(ident, str) or not ident:
        r.problems.add(key, f"expected a /dev/serial/by-id name, got {shown(ident)}")
        return None
    if any(c.isspace() or not c.isprintable() for c in ident):
        r.problems.add(key, f"{short(ident)!r} contains spaces or control characters")
        return None
    longest = max(len(part.encode("utf-8")) for part in ident.split("/"))
    if longest > NAME_MAX:
        r.problems.add(key, f"{short(ident)!r} holds a name of {longest} bytes: a file name "
                            f"(and a /dev/serial/by-id name) has at most {NAME_MAX}")
        return None
    if "/" in ident and not ident.startswith("/dev/"):
        r.problems.add(key, f"{short(ident)!r}: give a bare by-id name or a path under /dev/")
        return None
    return ident


@dataclass(frozen=True, slots=True)
class SerialHandheld:
    """A USB serial handheld: ``id`` is a ``/dev/serial/by-id`` name (or full path) or the
    handheld's HELLO id."""

    id: str = field(metadata=KeySpec(
        _read_serial_id, missing="missing (the handheld's /dev/serial/by-id name or HELLO "
        "id)").meta())
    kind: ClassVar[str] = "serial"


@dataclass(frozen=True, slots=True)
class NoHandheld:
    """No handheld: a seat only a computer player can take."""

    kind: ClassVar[str] = "none"


Handheld = WiredHandheld | SerialHandheld | NoHandheld
"""What a seat holds."""


def _read_handheld(r: Reading, key: str, value: object, got: Mapping[str, Any]
                   ) -> Handheld | None:
    """``[seat.handheld]``, by its ``kind``: each kind's keys (:data:`KINDS`), a key of
    another kind named as such; a wired one by its ``bus``.  The pins it names go to
    ``r.uses``."""
    hand = table(r, key, value)
    if hand is None:
        return None
    if "kind" not in hand:
        r.problems.add(f"{key}.kind", 'missing ("wired", "serial" or "none")')
        return None
    kind = _kind(r, f"{key}.kind", hand["kind"], got)
    if kind == "none":
        unknown(r.problems, key, hand, ("kind",), {
            name: 'only for kind = "wired" or "serial"' for name in hand})
        return NoHandheld() if not any(k != "kind" for k in hand) else None
    if kind == "serial":
        wired = {name: 'only for kind = "wired"' for name in toml_names(WiredHandheld, "i2c")
                 + toml_names(WiredHandheld, "spi")}
        return read_table(r, SerialHandheld, key, hand, known_first=("kind",), elsewhere=wired)
    if kind == "wired":
        return _read_wired(r, key, hand)
    return None


_kind = choice(KINDS, "handheld kind")


def _read_wired(r: Reading, key: str, hand: dict[str, Any]) -> WiredHandheld | None:
    """A wired handheld: its ``bus`` first (which keys it knows), then the rest; ``None``
    on any problem of its own, unknown keys too."""
    start = len(r.problems)
    bus = read_field(r, WiredHandheld, "bus", key, hand)
    serial = {name: 'only for kind = "serial"' for name in toml_names(SerialHandheld)}
    if bus is None:  # the keys every bus knows are still checked
        read_table(r, WiredHandheld, key, hand, strict=False, given={"bus": None})
        return None
    wired = read_table(r, WiredHandheld, key, hand, variant=bus, known_first=("kind",),
                       elsewhere=variant_hints(WiredHandheld, "bus")[bus] | serial,
                       given={"bus": bus})
    return wired if len(r.problems) == start else None


def _seat_check(r: Reading, values: dict[str, Any]) -> bool:
    """A seat with a handheld of kind ``wired``/``serial`` has a ``slap_pin``."""
    handheld = values.get("handheld")
    if "slap_pin" in values and values["slap_pin"] is None and handheld is not None \
            and handheld.kind != "none":
        r.problems.add(f"seat[{values['index']}].slap_pin",
                       "missing (the BCM pin of the seat's slap button)")
        return False
    return True


@dataclass(frozen=True, slots=True)
class SeatConfig:
    """One ``[[seat]]``: its ``index`` (0-based, ``seat[index]``), ``slap_pin`` (BCM, or
    ``None`` for a seat without a handheld and button) and its handheld."""

    index: int
    slap_pin: int | None = field(metadata=KeySpec(
        bcm_pin("slap button"), default=None, unit="BCM",
        doc="optional for a handheld of kind none").meta())
    handheld: Handheld = field(metadata=KeySpec(
        _read_handheld, missing='missing: add [seat.handheld] with kind = "wired", '
        '"serial" or "none"').meta())


def read_seat(r: Reading, index: int, value: dict[str, Any]) -> SeatConfig | None:
    """Seat ``index``'s table (``seat[index]``), or ``None`` on a problem; the pins it
    names go to ``r.uses``."""
    return read_table(r, SeatConfig, f"seat[{index}]", value, given={"index": index},
                      after=_seat_check)


@dataclass(frozen=True, slots=True)
class WiringLine:
    """One GPIO line the config uses: ``seat`` (``None``: shared, e.g. I2C1), what it is
    (``function``: ``"slap button"``, ``"key left"``, ``"OLED DC"``, ``"I2C1 SDA"``), its
    BCM ``gpio``, its ``header_pin`` and the config ``key`` that names it."""

    seat: int | None
    function: str
    gpio: int
    header_pin: int
    key: str


@dataclass(frozen=True, slots=True)
class Config:
    """The whole config.  ``rules``: (game, ((option, value), ...)) for the options the file
    gives (the engine fills in the rest, and RT-8's ``less_influence`` depends on what is
    given); ``source`` names where it came from."""

    seats: tuple[SeatConfig, ...]
    display: DisplayConfig = DisplayConfig()
    gpio: GpioConfig = GpioConfig()
    paths: PathsConfig = PathsConfig()
    sound: SoundConfig = SoundConfig()
    rules: tuple[tuple[str, tuple[tuple[str, StoredOption], ...]], ...] = ()
    source: str = "config"
    warnings: tuple[str, ...] = ()
    """What the file gets wrong that does not stop the console, one line each
    (``key: problem; using ...``): a bad ``[sound] volume`` plays at the default volume
    (device/modes/sound.py: sound is never a reason to stop a game).  :func:`parse_config` logs
    them, ``check-config`` prints them as warnings."""

    def rule_options(self, game: str) -> dict[str, OptionValue]:
        """The options the file gives for ``game`` (``{}`` when none): what the lobby starts
        from, for ``engine.get_game(game).new(seats, seed, options)`` (an inline ``deck``
        as a list of card codes)."""
        return {
            name: list(value) if isinstance(value, tuple) else value
            for name, value in dict(self.rules).get(game, ())
        }

    def slap_pins(self) -> dict[int, int]:
        """Seat -> BCM pin of every seat with a slap button (``drivers.slap.SlapButtons``)."""
        return {s.index: s.slap_pin for s in self.seats if s.slap_pin is not None}

    def wiring(self) -> tuple[WiringLine, ...]:
        """Every GPIO line the config uses: shared functions first, then seat by seat (slap,
        keys, DC/RST), each once.  ``hardware/wiring.md`` is drawn from this."""
        lines = [
            WiringLine(None, function, pin, HEADER_PIN[pin], key)
            for pin, (function, key) in sorted(
                self.gpio.function_pins().items(), key=lambda item: HEADER_PIN[item[0]]
            )
        ]
        for seat in self.seats:
            lines.extend(seat_lines(seat))
        return tuple(lines)

    def free_pins(self) -> tuple[int, ...]:
        """BCM lines in 2..27 that nothing in the config uses."""
        used = {line.gpio for line in self.wiring()}
        return tuple(p for p in range(FIRST_PIN, LAST_PIN + 1) if p not in used)

    def hand_display(
        self, seat: int, sys_i2c: Path = SYS_I2C_DEVICES
    ) -> tuple[str, dict[str, object]]:
        """``(kind, params)`` of seat ``seat``'s wired OLED for
        ``drivers.hand_display.open_hand_display(seat, kind, **params)``.

        A display behind the mux is looked up through the kernel's
        ``<sys_i2c>/1-0070/channel-K -> .../i2c-N`` link (the mux overlay numbers its buses
        at boot).  Raises :class:`ConfigError` (one line naming ``seat[k].handheld``) for a
        seat without a wired handheld or a mux channel the kernel does not show.
        """
        handheld = self.seats[seat].handheld
        where = f"seat[{seat}].handheld"
        if not isinstance(handheld, WiredHandheld):
            raise ConfigError([f"{where}: kind {handheld.kind!r} has no wired display"],
                              self.source)
        params: dict[str, object] = {"bus": handheld.bus, "rotate": handheld.rotation}
        if handheld.bus == "spi":
            params.update(port=handheld.port, device=handheld.device,
                          dc_pin=handheld.dc_pin, reset_pin=handheld.rst_pin)
            return handheld.controller, params
        port = handheld.port
        if handheld.mux_channel is not None and self.gpio.i2c_mux is not None:
            port = _mux_port(self.gpio.i2c_mux, handheld.mux_channel, sys_i2c, where,
                             self.source)
        params.update(port=port, address=handheld.address)
        return handheld.controller, params


def _mux_port(mux: I2cMux, channel: int, sys_i2c: Path, where: str, source: str) -> int:
    """The ``/dev/i2c-N`` number of mux channel ``channel`` from the kernel's link."""
    link = mux.channel_link(channel, sys_i2c)
    try:
        target = os.readlink(link)
    except OSError:
        raise ConfigError([
            f"{where}.mux_channel: the kernel shows no {link} (is {mux.overlay()} in "
            "/boot/firmware/config.txt and the mux wired to GPIO 2/3? see hardware/README.md)"
        ], source) from None
    match = re.fullmatch(r"i2c-(\d+)", Path(target).name)
    if match is None:
        raise ConfigError([f"{where}.mux_channel: {link} points to {target!r}, not an "
                           "i2c-N adapter"], source)
    return int(match.group(1))


def seat_lines(seat: SeatConfig) -> Iterator[WiringLine]:
    """The GPIO lines of one seat (see :meth:`Config.wiring`)."""
    key = f"seat[{seat.index}]"
    if seat.slap_pin is not None:
        yield WiringLine(seat.index, "slap button", seat.slap_pin, HEADER_PIN[seat.slap_pin],
                         f"{key}.slap_pin")
    handheld = seat.handheld
    if isinstance(handheld, WiredHandheld):
        for name, pin in handheld.keys.pins().items():
            yield WiringLine(seat.index, f"key {name}", pin, HEADER_PIN[pin],
                             f"{key}.handheld.keys.{name}")
        if handheld.bus == "spi":
            yield WiringLine(seat.index, "OLED DC", handheld.dc_pin,
                             HEADER_PIN[handheld.dc_pin], f"{key}.handheld.dc_pin")
            yield WiringLine(seat.index, "OLED RST", handheld.rst_pin,
                             HEADER_PIN[handheld.rst_pin], f"{key}.handheld.rst_pin")


# --------------------------------------------------------------------------- finding, loading
