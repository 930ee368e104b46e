"""The device's config file: one TOML file read into frozen dataclasses and validated before
any hardware is touched (docs/architecture.md "Configuration"; docs/style.md "Config").

Where it comes from (:func:`find_config`): ``--config FILE``, else
``/etc/partytable/config.toml`` if present, else the bundled ``device/config.toml`` (a 4-seat
build with wired handhelds whose OLEDs sit behind a TCA9548A I2C mux; its wiring is
``hardware/wiring.md``).  :func:`load_config` reads and validates it; :func:`check_config`
returns the problems of a text; ``python -m device check-config [FILE]``
(:func:`check_config_main`) prints the resolved config or the problems.

Every problem is one line that starts with the key path it is about
(``seat[3].handheld.keys.back: GPIO 21 is already seat[2].slap_pin``) and, where one exists,
says the fix; :class:`ConfigError` carries them all, never a traceback.  Unknown keys are
fatal.

The schema (every key; ``=`` a default, ``*`` required)::

    [display]       driver = "kmsdrm" (kmsdrm | window | dummy); lag_ms = 0.0 (0 to 500: the
                    TV's own lag, added to each slap window's t0)
    [gpio]          chip = "auto" (found by label) or a gpiochip number;
                    i2c = [1] (I2C1 = GPIO 2/3); i2c_khz = 400 (I2C1's clock: 400, or
                    100 for long leads, hardware/README.md "Long leads");
                    spi = false (SPI0 = GPIO 7-11); uart = false (GPIO 14/15)
    [gpio.i2c_mux]  address = 0x70 (0x70-0x77): a TCA9548A/PCA9548 on I2C1
                    (``dtoverlay=i2c-mux,pca9548,addr=0x70``); absent = no mux
    [[gpio.i2c_gpio]] bus*, sda*, scl*: an extra bit-banged bus
                    (``dtoverlay=i2c-gpio,bus=N,i2c_gpio_sda=S,i2c_gpio_scl=C``), bus 3-9
    [paths]         state_dir = "/var/lib/partytable" (absolute)
    [sound]         volume = 7 (0 to 10; 0: silent, the audio device is never opened);
                    a bad one is a warning and the default (``Config.warnings``)
    [rules.<game>]  rule options the lobby starts from, checked by the engine
    [[seat]]        2 to 6 of them: slap_pin* (BCM; optional for kind "none")
    [seat.handheld] kind* = wired | serial | none
      wired:        controller = "ssd1306" (| sh1106), bus = "i2c" (| spi), rotation = 0 (0-3),
                    keys* = { left, right, select, back } (BCM)
        i2c:        port = 1 (/dev/i2c-N: 1 or an i2c-gpio bus), address = 0x3C (| 0x3D),
                    mux_channel (0-7, on port 1 behind [gpio.i2c_mux])
        spi:        port = 0 (SPI0), device = 0 (CE0 | 1 = CE1), dc_pin*, rst_pin*
      serial:       id* (a /dev/serial/by-id name or the handheld's HELLO id)

Facts it rests on (docs/hardware-facts.md): BCM 0/1 are the HAT ID EEPROM pins; I2C1 takes 2/3,
which leaves 24 free lines in 2..27, and a wired seat takes 5 (slap + 4 keys), so at most 4
wired seats fit ("Pin budget"); an SSD1306/SH1106 answers only on 0x3C/0x3D ("luma.oled"); the
kernel's i2c-mux overlay makes one ``/dev/i2c-N`` per mux channel with N chosen at boot, so a
mux channel is named by ``mux_channel`` and found at run time through the kernel's
``/sys/bus/i2c/devices/1-0070/channel-K`` link (:meth:`Config.hand_display`); ``gpio.chip``
"auto" is found by its label (``pinctrl-rp1`` Pi 5, ``pinctrl-bcm2711`` Pi 4) by
``drivers.pin_factory.open_pin_factory``; lgpio's ``LG_WD`` ``chdir()``\\ s the process, so
paths are absolute.  Rule options are the engine's (``engine.get_game(name).options``,
checked by the game's own ``new``); the games are the device's registry,
``device.games.PLUGINS``.
"""

from __future__ import annotations

import logging
import math
import os
import re
import stat
import sys
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import IO, Any, ClassVar, Literal

from drivers.values import is_int, is_number

log = logging.getLogger("partytable")

__all__ = [
    "BOM",
    "BUNDLED_NAME",
    "ETC_CONFIG",
    "HEADER_PIN",
    "HEADER_POWER",
    "SERIAL_BY_ID",
    "SYS_I2C_DEVICES",
    "Config",
    "ConfigError",
    "DisplayConfig",
    "GpioConfig",
    "Handheld",
    "I2cGpioBus",
    "I2cMux",
    "Keys",
    "NoHandheld",
    "PathsConfig",
    "SeatConfig",
    "SerialHandheld",
    "SoundConfig",
    "WiredHandheld",
    "WiringLine",
    "bundled_text",
    "check_config",
    "check_config_main",
    "find_config",
    "format_config",
    "load_config",
    "parse_config",
    "printable",
    "read_config_text",
    "serial_warnings",
]

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

ID_EEPROM_PINS = (0, 1)
"""BCM 0/1: the HAT ID EEPROM's ID_SD/ID_SC, reserved (docs/hardware-facts.md "Pin budget")."""

FIRST_PIN, LAST_PIN = 2, 27
"""The BCM lines a seat may use: 2..27 on the header."""

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

I2C_KHZ = (100, 400)
"""The I2C1 clocks ``gpio.i2c_khz`` offers: the I2C standard mode (100 kHz, the safe one on
long leads) and fast mode (400 kHz, the SSD1306's and SH1106's top speed)."""
"""A TCA9548A's addresses (A0-A2 jumpers)."""

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
"""``[sound] volume``'s top: volumes are whole steps 0..10 (``device.sound.gain``)."""

DEFAULT_VOLUME = 7
"""``[sound] volume``'s default (and ``--volume``'s: ``device.cli``)."""

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


def printable(text: str) -> str:
    """``text`` with every control or other unprintable character written as Python
    escapes it (``\\n``, ``\\x1b``, ``\\ufeff``): a file name or key with a newline in it
    stays on its line.  Idempotent (a backslash is printable)."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


# --------------------------------------------------------------------------- the values


@dataclass(frozen=True, slots=True)
class DisplayConfig:
    """``[display]``: the SDL video ``driver`` and the TV's own ``lag_ms`` (float ms, >= 0),
    added to each slap window's t0 (docs/architecture.md "Slap arbitration" 1)."""

    driver: str = "kmsdrm"
    lag_ms: float = 0.0

    @property
    def lag_ns(self) -> int:
        """``lag_ms`` as int nanoseconds (CLOCK_MONOTONIC offsets)."""
        return round(self.lag_ms * 1_000_000)


@dataclass(frozen=True, slots=True)
class I2cGpioBus:
    """``[[gpio.i2c_gpio]]``: a bit-banged I2C bus ``/dev/i2c-<bus>`` on BCM ``sda``/``scl``."""

    bus: int
    sda: int
    scl: int

    def overlay(self) -> str:
        """Its ``/boot/firmware/config.txt`` line."""
        return f"dtoverlay=i2c-gpio,bus={self.bus},i2c_gpio_sda={self.sda},i2c_gpio_scl={self.scl}"


@dataclass(frozen=True, slots=True)
class I2cMux:
    """``[gpio.i2c_mux]``: a TCA9548A/PCA9548 at ``address`` on I2C1 (bus 1)."""

    address: int = 0x70
    bus: ClassVar[int] = 1

    def overlay(self) -> str:
        """Its ``/boot/firmware/config.txt`` line."""
        return f"dtoverlay=i2c-mux,pca9548,addr=0x{self.address:02x}"

    def channel_link(self, channel: int, sys_i2c: Path = SYS_I2C_DEVICES) -> Path:
        """The kernel's link from the mux to channel ``channel``'s adapter (``i2c-N``):
        ``<sys_i2c>/1-0070/channel-0`` (``drivers/i2c/i2c-mux.c`` names it so)."""
        return sys_i2c / f"{self.bus}-{self.address:04x}" / f"channel-{channel}"


@dataclass(frozen=True, slots=True)
class GpioConfig:
    """``[gpio]``: the GPIO ``chip`` (``"auto"`` or a gpiochip number, for
    ``drivers.pin_factory.open_pin_factory(chip=...)``, which finds "auto" by the chip's
    label) and the header functions enabled in ``/boot/firmware/config.txt`` (they take
    their pins); ``i2c_khz``: I2C1's clock in kHz (:data:`I2C_KHZ`), the value of its
    ``config.txt`` line (hardware/README.md, "Long leads")."""

    chip: int | Literal["auto"] = "auto"
    i2c: tuple[int, ...] = (1,)
    i2c_khz: int = 400
    spi: bool = False
    uart: bool = False
    i2c_gpio: tuple[I2cGpioBus, ...] = ()
    i2c_mux: I2cMux | None = None

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


@dataclass(frozen=True, slots=True)
class PathsConfig:
    """``[paths]``: ``state_dir``, the absolute folder of the journal and lobby choices."""

    state_dir: Path = Path("/var/lib/partytable")


@dataclass(frozen=True, slots=True)
class SoundConfig:
    """``[sound]``: ``volume``, a whole step 0..:data:`MAX_VOLUME` (0: silent, the audio
    device is never opened; ``device.sound.SoundPlayer``)."""

    volume: int = DEFAULT_VOLUME


@dataclass(frozen=True, slots=True)
class Keys:
    """A wired handheld's four keys: BCM GPIO numbers (buttons to GND, internal pull-up)."""

    left: int
    right: int
    select: int
    back: int

    def pins(self) -> dict[str, int]:
        """Key name -> BCM pin, in :data:`KEY_NAMES` order (``drivers.keys.HandKeys``)."""
        return {name: getattr(self, name) for name in KEY_NAMES}


@dataclass(frozen=True, slots=True)
class WiredHandheld:
    """A handheld on the header: an OLED (``controller`` on ``bus``) and four GPIO keys.

    I2C: ``port`` (``/dev/i2c-N``), ``address``, ``mux_channel`` (``None``: the display is
    on ``port`` itself); ``device``/``dc_pin``/``rst_pin`` unused (0/-1/-1).  SPI: ``port``
    0, ``device`` (CE0/CE1), ``dc_pin``, ``rst_pin`` (BCM); ``address`` unused.
    ``rotation``: luma's ``rotate`` (quarter turns).  :meth:`Config.hand_display` turns it
    into ``drivers.hand_display`` parameters.
    """

    keys: Keys
    controller: str = "ssd1306"
    bus: str = "i2c"
    port: int = 1
    address: int = 0x3C
    mux_channel: int | None = None
    rotation: int = 0
    device: int = 0
    dc_pin: int = -1
    rst_pin: int = -1
    kind: ClassVar[str] = "wired"


@dataclass(frozen=True, slots=True)
class SerialHandheld:
    """A USB serial handheld: ``id`` is a ``/dev/serial/by-id`` name (or full path) or the
    handheld's HELLO id."""

    id: str
    kind: ClassVar[str] = "serial"


@dataclass(frozen=True, slots=True)
class NoHandheld:
    """No handheld: a seat only a computer player can take."""

    kind: ClassVar[str] = "none"


Handheld = WiredHandheld | SerialHandheld | NoHandheld
"""What a seat holds."""


@dataclass(frozen=True, slots=True)
class SeatConfig:
    """One ``[[seat]]``: its ``index`` (0-based, ``seat[index]``), ``slap_pin`` (BCM, or
    ``None`` for a seat without a handheld and button) and its handheld."""

    index: int
    slap_pin: int | None
    handheld: Handheld


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
    (device/sound.py: sound is never a reason to stop a game).  :func:`parse_config` logs
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
            lines.extend(_seat_lines(seat))
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


def _seat_lines(seat: SeatConfig) -> Iterator[WiringLine]:
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


def find_config(flag: Path | None, etc: Path = ETC_CONFIG) -> Path | None:
    """The config file to use: ``flag`` (``--config FILE``) when given, else ``etc``
    (``/etc/partytable/config.toml``) when it exists, else ``None`` (the bundled default)."""
    if flag is not None:
        return flag
    if etc.exists():
        return etc
    return None


def computer_only_text(state_dir: Path | str, seats: int = 3) -> str:
    """The config text of a table of ``seats`` computer players only (a demo box, the
    appliance's VM test, the start-up bench): SDL's dummy TV, no slap pin, no handheld, so
    no GPIO is opened and the game deals at once; the games go to ``state_dir``."""
    seat = '[[seat]]\n[seat.handheld]\nkind = "none"\n'
    return (f'[display]\ndriver = "dummy"\n[paths]\nstate_dir = {_toml(str(state_dir))}\n'
            + seat * seats)


def bundled_text() -> str:
    """The bundled default config's text (``device/config.toml``)."""
    return resources.files("device").joinpath(BUNDLED_NAME).read_text(encoding="utf-8")


def load_config(path: Path | None, *, log_warnings: bool = True) -> Config:
    """Read and validate the config at ``path`` (``None``: the bundled default).

    Raises :class:`ConfigError` with one line per problem: the file cannot be read, is not
    a regular file, is larger than 1 MiB, is UTF-16 or not UTF-8 (naming the byte)
    (:func:`read_config_text`), TOML syntax (line and column), or any check of
    :func:`parse_config`.  ``log_warnings``: as for :func:`parse_config`.
    """
    if path is None:
        return parse_config(bundled_text(), "bundled config", log_warnings=log_warnings)
    return parse_config(read_config_text(path), str(path), log_warnings=log_warnings)


def read_config_text(path: Path) -> str:
    """The text of the config file at ``path``, read so that no file can hang or crash the
    reader: only a regular file is opened (a FIFO would block, a device stream never end),
    with ``O_NONBLOCK``, at most :data:`MAX_CONFIG_BYTES`.  Every reader of a config file
    goes through it (``load_config``, ``device.hardware.fault_display_mode``).

    Raises :class:`ConfigError` with one ``file: ...`` line: it cannot be read (the
    ``strerror``), is not a regular file, is larger than 1 MiB, is UTF-16 (a byte order
    mark ``FF FE``/``FE FF``, or NUL bytes every other byte), or is not UTF-8 (naming the
    byte and its offset).  A leading UTF-8 byte order mark stays in the text
    (:func:`parse_config` reads past it)."""
    source = str(path)
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would hang, a device stream
            raise ConfigError(["file: not a regular file"], source)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            data = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ConfigError([f"file: cannot read it: {reason}"], source) from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(["file: larger than 1 MiB; is it the right file?"], source)
    if _utf16(data):
        raise ConfigError(["file: the file is UTF-16: save it as UTF-8"], source)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError([
            f"file: not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start}"
        ], source) from None
    return text


def _utf16(data: bytes) -> bool:
    """True when ``data`` looks like UTF-16 text: a UTF-16 byte order mark (``FF FE`` or
    ``FE FF``; neither starts valid UTF-8), or, in its first 64 bytes, a NUL in every even
    or every odd position (ASCII text as UTF-16BE or LE; a TOML file has no NUL)."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return True
    head = data[:64]
    if len(head) < 2:
        return False
    return not any(head[0::2]) or not any(head[1::2])


def check_config(text: str, source: str = "config") -> list[str]:
    """The problems of config ``text`` (one line each, see :class:`ConfigError`); ``[]``
    when it is valid."""
    try:
        parse_config(text, source)
    except ConfigError as err:
        return err.problems
    return []


def parse_config(text: str, source: str = "config", *, log_warnings: bool = True) -> Config:
    """Validate config ``text`` and build the :class:`Config`; ``source`` names it in
    messages.  Raises :class:`ConfigError` listing every problem found (see the module
    docstring for the checks); a leading byte order mark (:data:`BOM`) is read past, one
    further in is named with its line, and so is an integer past Python's 4,300-digit
    limit; ``source`` is shown with control characters escaped (:func:`printable`).  What
    does not stop the console (:attr:`Config.warnings`,
    e.g. ``[sound] volume = 11``: the default volume) is one ``WARNING`` log line each,
    ``source: key: problem; using ...``, unless ``log_warnings`` is false."""
    source = printable(source)
    body = text.removeprefix(BOM)
    try:
        raw = tomllib.loads(body)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([_bom_problem(body) or _toml_problem(exc)], source) from None
    except RecursionError:
        raise ConfigError(["toml: arrays or tables nested too deeply"], source) from None
    except ValueError as exc:  # int() past Python's 4,300-digit limit, or another refusal
        raise ConfigError([_digits_problem(body) or f"toml: {_first_line(exc)}"],
                          source) from None
    problems = _Problems()
    config = _read(problems, raw, source)
    if problems or config is None:
        raise ConfigError(problems, source)
    if log_warnings:
        for warning in config.warnings:
            log.warning("%s: %s", source, warning)
    return config


def _first_line(exc: Exception) -> str:
    """The first line of ``exc``'s message, at most 120 characters, cut at a word."""
    line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return line if len(line) <= 120 else line[:120].rsplit(" ", 1)[0] + " ..."


def _bom_problem(body: str) -> str | None:
    """The line for a byte order mark inside the file (after the start, where an editor
    that joined two files left it), or ``None`` when there is none."""
    at = body.find(BOM)
    if at < 0:
        return None
    line = body.count("\n", 0, at) + 1
    return f"toml: line {line}: a byte order mark (U+FEFF) in the middle of the file: delete it"


def _digits_problem(body: str) -> str | None:
    """The line for an integer past Python's digit limit (``sys.get_int_max_str_digits()``,
    4300 by default: ``int()`` refuses longer decimal strings), naming its line, or
    ``None`` when the text holds none."""
    limit = sys.get_int_max_str_digits()
    match = re.search(rf"[0-9][0-9_]{{{limit},}}", body) if limit > 0 else None
    if match is None:
        return None
    line = body.count("\n", 0, match.start()) + 1
    return f"toml: line {line}: a number with more than {limit} digits"


def _toml_problem(exc: tomllib.TOMLDecodeError) -> str:
    """One line for a TOML syntax error: ``toml: line 3, column 9: invalid value``."""
    message = str(exc).splitlines()[0] if str(exc) else "unreadable"
    match = re.fullmatch(r"(.*) \(at line (\d+), column (\d+)\)", message)
    if match:
        what, line, column = match.groups()
        return f"toml: line {line}, column {column}: {what[:1].lower()}{what[1:]}"
    match = re.fullmatch(r"(.*) \(at end of document\)", message)
    if match:
        what = match.group(1)
        return f"toml: at the end of the file: {what[:1].lower()}{what[1:]}"
    return f"toml: {message}"


# --------------------------------------------------------------------------- reading


class _Problems(list[str]):
    """The problems found so far, one line each."""

    def add(self, key: str, message: str) -> None:
        """Record ``key: message``, control characters escaped (a key written with a
        newline in it must not look like a second problem)."""
        self.append(printable(f"{key}: {message}"))



def _number(value: int | float, unit: str = "") -> str:
    """A number for a message, with its ``unit`` (``" ms"``): as written (``600 ms``), or
    ``a 310-digit number of ms`` for an int past 20 digits (a message stays one short
    line)."""
    if isinstance(value, float) or -10**20 < value < 10**20:
        return f"{value}{unit}"
    digits = len(str(abs(value)))
    sign = "negative " if value < 0 else ""
    return f"a {digits}-digit {sign}number" + (f" of{unit}" if unit else "")


def _shown(value: object) -> str:
    """How a TOML value is named in a message: ``true (a bool)``, ``the text 'x'``."""
    if isinstance(value, bool):
        return f"{'true' if value else 'false'} (a bool)"
    if isinstance(value, int):
        return _number(value)
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, str):
        text = value if len(value) <= 30 else value[:27] + "..."
        return f"the text {text!r}"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"


def _unknown(p: _Problems, key: str, table: Mapping[str, Any], known: Sequence[str],
             elsewhere: Mapping[str, str] | None = None) -> None:
    """Report every key of ``table`` not in ``known`` (``elsewhere``: keys that exist for
    another kind or bus, with the hint to give instead)."""
    for name in table:
        if name in known:
            continue
        hint = (elsewhere or {}).get(name)
        p.add(f"{key}.{name}", hint or f"unknown key (known: {', '.join(known)})")


def _table(p: _Problems, key: str, value: object) -> dict[str, Any] | None:
    """``value`` when it is a TOML table, else a problem."""
    if isinstance(value, dict):
        return value
    p.add(key, f"expected a table, got {_shown(value)}")
    return None


def _int(p: _Problems, key: str, value: object, allowed: Sequence[int], what: str,
         hex_: bool = False) -> int | None:
    """``value`` when it is a whole number in ``allowed``, else a problem saying ``what``."""
    if not is_int(value):
        p.add(key, f"expected {what}, got {_shown(value)}")
        return None
    if value not in allowed:
        shown = f"0x{value:02X}" if hex_ and value >= 0 else str(value)
        p.add(key, f"{shown} is not {what}")
        return None
    return value


def _choice(p: _Problems, key: str, value: object, choices: Sequence[str], what: str
            ) -> str | None:
    """``value`` when it is one of ``choices``, else a problem naming them."""
    if isinstance(value, str) and value in choices:
        return value
    listed = " | ".join(f'"{c}"' for c in choices)
    if isinstance(value, str):
        p.add(key, f"unknown {what} {value!r} (known: {listed})")
    else:
        p.add(key, f"expected a {what} ({listed}), got {_shown(value)}")
    return None


def _bool(p: _Problems, key: str, value: object) -> bool | None:
    """``value`` when it is ``true``/``false``, else a problem."""
    if isinstance(value, bool):
        return value
    p.add(key, f"expected true or false, got {_shown(value)}")
    return None


def _pin(p: _Problems, key: str, value: object) -> int | None:
    """A BCM GPIO number a seat may use (2..27, not the ID EEPROM pins), else a problem."""
    if not is_int(value):
        p.add(key, f"expected a BCM GPIO number, got {_shown(value)}")
        return None
    if value in ID_EEPROM_PINS:
        p.add(key, f"GPIO {value} is reserved for the HAT ID EEPROM (ID_SD/ID_SC, header "
                   "pins 27/28); use another pin in 2-27")
        return None
    if not FIRST_PIN <= value <= LAST_PIN:
        p.add(key, f"GPIO {value} is outside the 40-pin header's BCM {FIRST_PIN}-{LAST_PIN}")
        return None
    return value


@dataclass
class _PinUse:
    """A pin as the config names it (for the cross-checks)."""

    key: str
    pin: int
    function: str


def _read(p: _Problems, raw: dict[str, Any], source: str) -> Config | None:
    """Check everything; the :class:`Config` (meaningful only when ``p`` stays empty)."""
    known = ("display", "gpio", "paths", "rules", "seat", "sound")
    for name in raw:
        if name not in known:
            p.add(name, f"unknown key (known: {', '.join(known)})")
    display = _read_display(p, raw.get("display", {}))
    gpio = _read_gpio(p, raw.get("gpio", {}))
    paths = _read_paths(p, raw.get("paths", {}))
    warnings = _Problems()
    sound = _read_sound(p, warnings, raw.get("sound", {}))
    reads = _read_seats(p, raw.get("seat"))
    seats = [r.seat for r in reads or () if r.seat is not None]
    if reads is not None and gpio is not None:
        _check_pins(p, gpio, reads, seats)
        _check_displays(p, gpio, seats)
        _check_serial_ids(p, seats)
    rules = _read_rules(p, raw.get("rules", {}), len(reads) if reads else MIN_SEATS)
    if p or display is None or gpio is None or paths is None or reads is None \
            or len(seats) < len(reads) or rules is None or sound is None:
        return None
    return Config(
        seats=tuple(seats), display=display, gpio=gpio, paths=paths, sound=sound,
        rules=rules, source=source, warnings=tuple(warnings),
    )


def _read_display(p: _Problems, value: object) -> DisplayConfig | None:
    """``[display]``."""
    table = _table(p, "display", value)
    if table is None:
        return None
    _unknown(p, "display", table, ("driver", "lag_ms"))
    base = DisplayConfig()
    driver = _choice(p, "display.driver", table.get("driver", base.driver), DRIVERS,
                     "video driver")
    lag = table.get("lag_ms", base.lag_ms)
    lag_ms: float | None = None
    # compared as written (an int of any size compares exactly with a float; float(int)
    # overflows past 1e308), and shown short
    if not is_number(lag):
        p.add("display.lag_ms", f"expected a number of milliseconds, got {_shown(lag)}")
    elif isinstance(lag, float) and not math.isfinite(lag):
        p.add("display.lag_ms", f"{lag} is not a finite number of milliseconds")
    elif lag < 0:
        p.add("display.lag_ms", f"{_number(lag, ' ms')} is negative: a TV shows a frame "
                                "after the flip, never before (measure it: hardware/README.md)")
    elif lag > MAX_LAG_MS:
        p.add("display.lag_ms", f"{_number(lag, ' ms')} is absurd for a TV (most lag "
                                f"10-150 ms; at most {MAX_LAG_MS:.0f})")
    else:
        lag_ms = float(lag)
    if driver is None or lag_ms is None:
        return None
    return DisplayConfig(driver=driver, lag_ms=lag_ms)


def _read_sound(p: _Problems, warnings: _Problems, value: object) -> SoundConfig | None:
    """``[sound]``.  A bad ``volume`` (11, 3.5, "loud") is no problem but a line in
    ``warnings`` naming the key, the value and :data:`DEFAULT_VOLUME`, which is used:
    sound is a courtesy, never a reason to stop a game (device/sound.py)."""
    table = _table(p, "sound", value)
    if table is None:
        return None
    _unknown(p, "sound", table, ("volume",))
    bad = _Problems()
    volume = _int(bad, "sound.volume", table.get("volume", DEFAULT_VOLUME),
                  range(MAX_VOLUME + 1), f"a volume 0-{MAX_VOLUME} (0: silent)")
    for line in bad:
        warnings.append(f"{line}; using the default volume {DEFAULT_VOLUME}")
    return SoundConfig(volume=DEFAULT_VOLUME if volume is None else volume)


def _read_gpio(p: _Problems, value: object) -> GpioConfig | None:
    """``[gpio]`` with its ``[gpio.i2c_mux]`` and ``[[gpio.i2c_gpio]]`` tables."""
    table = _table(p, "gpio", value)
    if table is None:
        return None
    _unknown(p, "gpio", table,
             ("chip", "i2c", "i2c_khz", "spi", "uart", "i2c_mux", "i2c_gpio"))
    ok = True
    raw_chip = table.get("chip", "auto")
    chip: int | Literal["auto"] = "auto"
    if is_int(raw_chip) and raw_chip >= 0:
        chip = raw_chip
    elif raw_chip != "auto":
        p.add("gpio.chip", f'expected "auto" or a gpiochip number, got {_shown(raw_chip)}')
        ok = False
    i2c = _read_i2c_list(p, table.get("i2c", [1]))
    khz = _int(p, "gpio.i2c_khz", table.get("i2c_khz", 400), I2C_KHZ,
               "an I2C clock in kHz: 400, or 100 for long leads")
    spi = _bool(p, "gpio.spi", table.get("spi", False))
    uart = _bool(p, "gpio.uart", table.get("uart", False))
    mux = None
    if "i2c_mux" in table:
        mux = _read_mux(p, table["i2c_mux"], i2c)
        ok = ok and mux is not None
    extras = _read_i2c_gpio(p, table.get("i2c_gpio", []), i2c)
    if not ok or i2c is None or khz is None or spi is None or uart is None or extras is None:
        return None
    return GpioConfig(chip=chip, i2c=i2c, i2c_khz=khz, spi=spi, uart=uart, i2c_gpio=extras,
                      i2c_mux=mux)


def _read_i2c_list(p: _Problems, value: object) -> tuple[int, ...] | None:
    """``gpio.i2c``: the hardware I2C buses enabled on the header."""
    if not isinstance(value, list):
        p.add("gpio.i2c", f"expected an array of I2C bus numbers ([1] or []), got "
                          f"{_shown(value)}")
        return None
    buses: list[int] = []
    for i, bus in enumerate(value):
        if not is_int(bus) or bus not in I2C_HAT_BUSES:
            p.add(f"gpio.i2c[{i}]", f"{_shown(bus)} is no header I2C bus this firmware "
                  "knows (1 = GPIO 2/3); add more buses as [[gpio.i2c_gpio]] tables")
            return None
        if bus in buses:
            p.add(f"gpio.i2c[{i}]", f"bus {bus} is listed twice")
            return None
        buses.append(bus)
    return tuple(buses)


def _read_mux(p: _Problems, value: object, i2c: tuple[int, ...] | None) -> I2cMux | None:
    """``[gpio.i2c_mux]``."""
    table = _table(p, "gpio.i2c_mux", value)
    if table is None:
        return None
    _unknown(p, "gpio.i2c_mux", table, ("address",))
    address = _int(p, "gpio.i2c_mux.address", table.get("address", 0x70), MUX_ADDRESSES,
                   "a TCA9548A address (0x70-0x77)", hex_=True)
    if i2c is not None and I2cMux.bus not in i2c:
        p.add("gpio.i2c_mux", "the mux sits on I2C1 (GPIO 2/3): add 1 to gpio.i2c")
        return None
    return None if address is None else I2cMux(address=address)


def _read_i2c_gpio(p: _Problems, value: object, i2c: tuple[int, ...] | None
                   ) -> tuple[I2cGpioBus, ...] | None:
    """``[[gpio.i2c_gpio]]``: extra bit-banged buses."""
    if not isinstance(value, list):
        p.add("gpio.i2c_gpio", f"expected [[gpio.i2c_gpio]] tables, got {_shown(value)}")
        return None
    out: list[I2cGpioBus] = []
    ok = True
    for i, item in enumerate(value):
        key = f"gpio.i2c_gpio[{i}]"
        table = _table(p, key, item)
        if table is None:
            ok = False
            continue
        _unknown(p, key, table, ("bus", "sda", "scl"))
        got: dict[str, int | None] = {}
        for name in ("bus", "sda", "scl"):
            if name not in table:
                what = "its /dev/i2c-N number, 3-9" if name == "bus" else "a BCM pin"
                p.add(f"{key}.{name}", f"missing ({what})")
                got[name] = None
            elif name == "bus":
                got[name] = _int(p, f"{key}.bus", table["bus"], I2C_GPIO_BUS_NUMBERS,
                                 "an i2c-gpio bus number (3-9: 0-2 and 10+ are the "
                                 "board's own)")
            else:
                got[name] = _pin(p, f"{key}.{name}", table[name])
        bus, sda, scl = got["bus"], got["sda"], got["scl"]
        if bus is not None and (bus in (i2c or ()) or bus in (b.bus for b in out)):
            p.add(f"{key}.bus", f"i2c-{bus} is already enabled")
            bus = None
        if bus is None or sda is None or scl is None:
            ok = False
            continue
        out.append(I2cGpioBus(bus=bus, sda=sda, scl=scl))
    return tuple(out) if ok else None


def _read_paths(p: _Problems, value: object) -> PathsConfig | None:
    """``[paths]``."""
    table = _table(p, "paths", value)
    if table is None:
        return None
    _unknown(p, "paths", table, ("state_dir",))
    state = table.get("state_dir", str(PathsConfig().state_dir))
    if not isinstance(state, str) or not state:
        p.add("paths.state_dir", f"expected an absolute folder path, got {_shown(state)}")
        return None
    if "\x00" in state:
        p.add("paths.state_dir", "contains a NUL character")
        return None
    if not state.startswith("/"):
        p.add("paths.state_dir", f"{state!r} is relative: give an absolute path (lgpio's "
                                 "LG_WD changes the working directory)")
        return None
    return PathsConfig(state_dir=Path(state))


@dataclass
class _SeatRead:
    """One ``[[seat]]`` as read: the seat (``None`` when it has a problem) and every pin it
    names that could be read (the cross-checks look at those too)."""

    index: int
    seat: SeatConfig | None
    uses: list[_PinUse]


def _read_seats(p: _Problems, value: object) -> list[_SeatRead] | None:
    """``[[seat]]``: each seat with the pins it names; ``None`` when the list itself is
    wrong (missing, not tables, a bad count)."""
    if value is None:
        p.add("seat", f"missing: give {MIN_SEATS} to {MAX_SEATS} [[seat]] tables")
        return None
    if not isinstance(value, list) or not all(isinstance(s, dict) for s in value):
        p.add("seat", f"expected [[seat]] tables, got {_shown(value)}")
        return None
    if not MIN_SEATS <= len(value) <= MAX_SEATS:
        tables = "table" if len(value) == 1 else "tables"
        p.add("seat", f"{len(value)} [[seat]] {tables}; a table seats {MIN_SEATS} to "
                      f"{MAX_SEATS}")
        return None
    return [_read_seat(p, i, table) for i, table in enumerate(value)]


def _read_seat(p: _Problems, index: int, table: dict[str, Any]) -> _SeatRead:
    """One ``[[seat]]`` table."""
    key = f"seat[{index}]"
    _unknown(p, key, table, ("slap_pin", "handheld"))
    uses: list[_PinUse] = []
    slap: int | None = None
    bad = False
    if "slap_pin" in table:
        slap = _pin(p, f"{key}.slap_pin", table["slap_pin"])
        if slap is None:
            bad = True
        else:
            uses.append(_PinUse(f"{key}.slap_pin", slap, "slap button"))
    if "handheld" not in table:
        p.add(f"{key}.handheld", 'missing: add [seat.handheld] with kind = "wired", '
                                 '"serial" or "none"')
        return _SeatRead(index, None, uses)
    hand_table = _table(p, f"{key}.handheld", table["handheld"])
    if hand_table is None:
        return _SeatRead(index, None, uses)
    handheld = _read_handheld(p, f"{key}.handheld", hand_table, uses)
    if "slap_pin" not in table and handheld is not None and handheld.kind != "none":
        p.add(f"{key}.slap_pin", "missing (the BCM pin of the seat's slap button)")
        bad = True
    if handheld is None or bad:
        return _SeatRead(index, None, uses)
    return _SeatRead(index, SeatConfig(index=index, slap_pin=slap, handheld=handheld), uses)


_WIRED_KEYS = ("kind", "controller", "bus", "rotation", "keys", "port")
_I2C_KEYS = ("address", "mux_channel")
_SPI_KEYS = ("device", "dc_pin", "rst_pin")


def _read_handheld(p: _Problems, key: str, table: dict[str, Any], uses: list[_PinUse]
                   ) -> Handheld | None:
    """``[seat.handheld]``; appends the pins it names to ``uses``."""
    if "kind" not in table:
        p.add(f"{key}.kind", 'missing ("wired", "serial" or "none")')
        return None
    kind = _choice(p, f"{key}.kind", table["kind"], KINDS, "handheld kind")
    if kind is None:
        return None
    if kind == "none":
        _unknown(p, key, table, ("kind",), {
            name: 'only for kind = "wired" or "serial"' for name in table})
        return NoHandheld() if not any(k != "kind" for k in table) else None
    if kind == "serial":
        _unknown(p, key, table, ("kind", "id"), {
            name: 'only for kind = "wired"' for name in (*_WIRED_KEYS, *_I2C_KEYS, *_SPI_KEYS)
        })
        return _read_serial(p, key, table)
    return _read_wired(p, key, table, uses)


def _read_serial(p: _Problems, key: str, table: dict[str, Any]) -> SerialHandheld | None:
    """A serial handheld's ``id``."""
    if "id" not in table:
        p.add(f"{key}.id", "missing (the handheld's /dev/serial/by-id name or HELLO id)")
        return None
    ident = table["id"]
    if not isinstance(ident, str) or not ident:
        p.add(f"{key}.id", f"expected a /dev/serial/by-id name, got {_shown(ident)}")
        return None
    if any(c.isspace() or not c.isprintable() for c in ident):
        p.add(f"{key}.id", f"{_short(ident)!r} contains spaces or control characters")
        return None
    longest = max(len(part.encode("utf-8")) for part in ident.split("/"))
    if longest > NAME_MAX:
        p.add(f"{key}.id", f"{_short(ident)!r} holds a name of {longest} bytes: a file name "
                           f"(and a /dev/serial/by-id name) has at most {NAME_MAX}")
        return None
    if "/" in ident and not ident.startswith("/dev/"):
        p.add(f"{key}.id", f"{_short(ident)!r}: give a bare by-id name or a path under /dev/")
        return None
    return SerialHandheld(id=ident)


def _short(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters with ``...`` (a message stays one short line)."""
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _read_wired(p: _Problems, key: str, table: dict[str, Any], uses: list[_PinUse]
                ) -> WiredHandheld | None:
    """A wired handheld: OLED and keys."""
    start = len(p)
    bus = _choice(p, f"{key}.bus", table.get("bus", "i2c"), BUSES, "display bus")
    if bus == "i2c":
        _unknown(p, key, table, (*_WIRED_KEYS, *_I2C_KEYS),
                 {name: 'only for bus = "spi"' for name in _SPI_KEYS} | {"id": 'only for kind '
                  '= "serial"'})
    elif bus == "spi":
        _unknown(p, key, table, (*_WIRED_KEYS, *_SPI_KEYS),
                 {name: 'only for bus = "i2c"' for name in _I2C_KEYS} | {"id": 'only for kind '
                  '= "serial"'})
    controller = _choice(p, f"{key}.controller", table.get("controller", "ssd1306"),
                         CONTROLLERS, "OLED controller")
    rotation = _int(p, f"{key}.rotation", table.get("rotation", 0), range(4),
                    "a rotation (0-3 quarter turns)")
    keys = _read_keys(p, f"{key}.keys", table.get("keys"), uses)
    params: dict[str, int | None] = {}
    if bus == "i2c":
        params["port"] = _int(p, f"{key}.port", table.get("port", 1), range(0, 1 << 16),
                              "an I2C bus number (/dev/i2c-N)")
        address = table.get("address", 0x3C)
        if is_int(address) and address >> 1 in OLED_ADDRESSES:
            # boards print the 8-bit bus address (7-bit << 1, plus the R/W bit): 0x78, 0x7A
            p.add(f"{key}.address", f"0x{address:02X} is the 8-bit form (with the R/W bit) "
                                    f"of 0x{address >> 1:02X}: write address = "
                                    f"0x{address >> 1:02X}")
            params["address"] = None
        else:
            params["address"] = _int(p, f"{key}.address", address, OLED_ADDRESSES,
                                     "an SSD1306/SH1106 address (0x3C or 0x3D, the SA0 "
                                     "jumper)", hex_=True)
        params["mux_channel"] = None
        if "mux_channel" in table:
            params["mux_channel"] = _int(p, f"{key}.mux_channel", table["mux_channel"],
                                         range(MUX_CHANNELS), "a mux channel (0-7)")
    elif bus == "spi":
        params["port"] = _int(p, f"{key}.port", table.get("port", 0), (0,),
                              "an SPI port this firmware drives (0 = SPI0)")
        params["device"] = _int(p, f"{key}.device", table.get("device", 0), (0, 1),
                                "an SPI0 device (0 = CE0, 1 = CE1)")
        for name, what in (("dc_pin", "OLED DC"), ("rst_pin", "OLED RST")):
            if name not in table:
                p.add(f"{key}.{name}", f"missing (the BCM pin of the {what} line)")
                params[name] = None
                continue
            params[name] = _pin(p, f"{key}.{name}", table[name])
            pin = params[name]
            if pin is not None:
                uses.append(_PinUse(f"{key}.{name}", pin, what))
    if len(p) > start or bus is None or controller is None or rotation is None \
            or keys is None:
        return None
    return WiredHandheld(
        keys=keys, controller=controller, bus=bus, rotation=rotation,
        port=params["port"] or 0,
        address=params.get("address") or 0x3C,
        mux_channel=params.get("mux_channel"),
        device=params.get("device") or 0,
        dc_pin=params.get("dc_pin") or -1,
        rst_pin=params.get("rst_pin") or -1,
    )


def _read_keys(p: _Problems, key: str, value: object, uses: list[_PinUse]) -> Keys | None:
    """``keys = { left, right, select, back }``."""
    if value is None:
        p.add(key, "missing: keys = { left = ..., right = ..., select = ..., back = ... } "
                   "(BCM pins)")
        return None
    table = _table(p, key, value)
    if table is None:
        return None
    _unknown(p, key, table, KEY_NAMES)
    pins: dict[str, int] = {}
    for name in KEY_NAMES:
        if name not in table:
            p.add(f"{key}.{name}", f"missing (the BCM pin of the {name} key)")
            continue
        pin = _pin(p, f"{key}.{name}", table[name])
        if pin is not None:
            pins[name] = pin
            uses.append(_PinUse(f"{key}.{name}", pin, f"key {name}"))
    if len(pins) < len(KEY_NAMES):
        return None
    return Keys(**pins)


def _check_pins(p: _Problems, gpio: GpioConfig, reads: Sequence[_SeatRead],
                seats: Sequence[SeatConfig]) -> None:
    """The pin budget, then each pin against the enabled functions and every earlier use
    (``reads``: every seat's pins; ``seats``: the seats without problems of their own)."""
    hat = gpio.function_pins(i2c_gpio=False)  # I2C1, SPI0, UART: the header's own
    uses = [
        _PinUse(f"gpio.i2c_gpio[{i}].{name}", pin, f"i2c-{extra.bus} {name.upper()}")
        for i, extra in enumerate(gpio.i2c_gpio)
        for name, pin in (("sda", extra.sda), ("scl", extra.scl))
    ]
    free = LAST_PIN - FIRST_PIN + 1 - len(hat) - len(uses)
    need = sum(len(r.uses) for r in reads)
    if need > free:
        p.add("seat", _budget_problem(gpio, seats, need, free))
        return
    uses.extend(u for r in reads for u in r.uses)
    seen: dict[int, str] = {}
    for use in uses:
        if use.pin in hat:
            function, by = hat[use.pin]
            p.add(use.key, f"GPIO {use.pin} is {function} (enabled by {by}); pick a free pin "
                           f"({_free_list(gpio, reads)})")
        elif use.pin in seen:
            p.add(use.key, f"GPIO {use.pin} is already {seen[use.pin]}")
        else:
            seen[use.pin] = use.key


def _budget_problem(gpio: GpioConfig, seats: Sequence[SeatConfig], need: int, free: int
                    ) -> str:
    """The one line for seats that need more GPIO lines than the header has free: which
    seats should take a serial handheld (1 line: the slap button) instead."""
    moved: list[int] = []
    short = need - free
    for seat in reversed(seats):
        if short <= 0:
            break
        h = seat.handheld
        if isinstance(h, WiredHandheld):
            short -= len(KEY_NAMES) + (2 if h.bus == "spi" else 0)
            moved.append(seat.index)
    taken = ", ".join(f for _, (f, _) in sorted(gpio.function_pins().items())) or "nothing"
    wired = sum(isinstance(s.handheld, WiredHandheld) for s in seats)
    names = " and ".join(f"seat[{i}]" for i in sorted(moved))
    handhelds = "serial handhelds" if len(moved) > 1 else "a serial handheld"
    return (f"{len(seats)} seats ({wired} wired) need {need} GPIO lines but the header has "
            f"{free} free (BCM {FIRST_PIN}-{LAST_PIN} minus {taken}); a wired seat takes "
            f"{LINES_PER_WIRED_SEAT} (slap + 4 keys), a serial seat 1 (slap): give {names} "
            f'{handhelds} (kind = "serial")')


def _free_list(gpio: GpioConfig, reads: Sequence[_SeatRead]) -> str:
    """``free: 4, 14`` or ``none free``."""
    used = set(gpio.function_pins()) | {u.pin for r in reads for u in r.uses}
    free = [str(pin) for pin in range(FIRST_PIN, LAST_PIN + 1) if pin not in used]
    return f"free: {', '.join(free)}" if free else "none free"


def _check_displays(p: _Problems, gpio: GpioConfig, seats: Sequence[SeatConfig]) -> None:
    """Each wired OLED's bus is enabled, and no two share a bus and address (or SPI CE)."""
    enabled = gpio.i2c_buses()
    taken: dict[tuple[str, int, int | None, int], str] = {}
    for seat in seats:
        h = seat.handheld
        if not isinstance(h, WiredHandheld):
            continue
        key = f"seat[{seat.index}].handheld"
        if h.bus == "spi":
            if not gpio.spi:
                p.add(f"{key}.bus", _spi_advice(gpio, seats))
                continue
            slot: tuple[str, int, int | None, int] = ("spi", h.port, None, h.device)
            if slot in taken:
                p.add(f"{key}.device", f"SPI{h.port} device {h.device} (CE{h.device}) is "
                                       f"already {taken[slot]}'s display")
            taken[slot] = f"seat[{seat.index}]"
            continue
        if h.port not in enabled:
            buses = ", ".join(f"i2c-{b}" for b in enabled) or "none"
            p.add(f"{key}.port", f"i2c-{h.port} is not enabled in [gpio] (enabled: {buses}); "
                                 "add it to gpio.i2c or as a [[gpio.i2c_gpio]] bus")
            continue
        if h.mux_channel is not None:
            if gpio.i2c_mux is None:
                p.add(f"{key}.mux_channel", "no mux: add [gpio.i2c_mux] (a TCA9548A on I2C1)")
                continue
            if h.port != I2cMux.bus:
                p.add(f"{key}.mux_channel", f"the mux sits on I2C1: set port = {I2cMux.bus}")
                continue
        slot = ("i2c", h.port, h.mux_channel, h.address)
        where = _i2c_name(h.port, h.mux_channel, h.address)
        if slot in taken:
            p.add(f"{key}.address", f"{where} is already {taken[slot]}'s display: give each "
                                    "display its own mux channel, bus or address")
            taken[slot] = f"seat[{seat.index}]"
            continue
        # while a channel is selected it is joined to the mux's own bus: a display on
        # the bus itself and one behind the mux must not share an address
        if gpio.i2c_mux is not None and h.port == I2cMux.bus:
            for (bus, port, channel, address), who in taken.items():
                if (bus, port, address) == ("i2c", h.port, h.address) \
                        and (channel is None) != (h.mux_channel is None):
                    p.add(f"{key}.address", f"0x{h.address:02X} is {who}'s display address "
                          f"on i2c-{h.port}, which the selected mux channel is joined to: "
                          "use the other address or put both behind the mux")
                    break
        taken[slot] = f"seat[{seat.index}]"


def _spi_advice(gpio: GpioConfig, seats: Sequence[SeatConfig]) -> str:
    """The line for an SPI display while ``gpio.spi`` is off: set it, and move first every
    seat's pin that ``dtparam=spi=on`` would take (:data:`SPI0_PINS`), each named with its
    key, with the pins that stay free."""
    advice = "SPI is not enabled: set gpio.spi = true (dtparam=spi=on takes GPIO 7-11)"
    lines = [line for seat in seats for line in _seat_lines(seat)]
    taken = [line for line in lines if line.gpio in SPI0_PINS]
    if not taken:
        return advice
    used = set(gpio.function_pins()) | set(SPI0_PINS) | {line.gpio for line in lines}
    free = [str(pin) for pin in range(FIRST_PIN, LAST_PIN + 1) if pin not in used]
    named = ", ".join(f"{line.key} (GPIO {line.gpio})" for line in taken)
    where = f"free: {', '.join(free)}" if free else "none free"
    if len(free) < len(taken):
        where += f'; {len(taken)} to move: give a seat a serial handheld (kind = "serial")'
    return f"{advice}, and first move {named} to other pins ({where})"


def _i2c_name(port: int, channel: int | None, address: int) -> str:
    """``i2c-1 mux channel 2, 0x3C`` / ``i2c-3 0x3D``."""
    via = f" mux channel {channel}" if channel is not None else ""
    return f"i2c-{port}{via} 0x{address:02X}"


def _check_serial_ids(p: _Problems, seats: Sequence[SeatConfig]) -> None:
    """No two serial handhelds with one id."""
    seen: dict[str, int] = {}
    for seat in seats:
        h = seat.handheld
        if isinstance(h, SerialHandheld):
            name = h.id.rsplit("/", 1)[-1]
            if name in seen:
                p.add(f"seat[{seat.index}].handheld.id", f"{h.id!r} is already "
                                                         f"seat[{seen[name]}]'s handheld")
            else:
                seen[name] = seat.index


def _read_rules(p: _Problems, value: object, seats: int
                ) -> tuple[tuple[str, tuple[tuple[str, StoredOption], ...]], ...] | None:
    """``[rules.<game>]``: each game one of ``device.games.PLUGINS``, each option checked by
    the engine's own ``new`` for ``seats`` seats."""
    table = _table(p, "rules", value)
    if table is None:
        return None
    from device.games import PLUGINS

    out: list[tuple[str, tuple[tuple[str, StoredOption], ...]]] = []
    ok = True
    for game_name, options in table.items():
        key = f"rules.{game_name}"
        if game_name not in PLUGINS:
            p.add(key, f"unknown game (known: {', '.join(PLUGINS)})")
            ok = False
            continue
        given = _table(p, key, options)
        if given is None:
            ok = False
            continue
        problem = _engine_problem(game_name, given, seats)
        if problem is not None:
            p.add(*problem)
            ok = False
            continue
        out.append((game_name, tuple(
            (name, tuple(value) if isinstance(value, list) else value)
            for name, value in given.items()
        )))
    return tuple(out) if ok else None


def _engine_problem(game_name: str, given: Mapping[str, object], seats: int
                    ) -> tuple[str, str] | None:
    """``(key, message)`` of the first option the engine refuses, or ``None``."""
    import engine

    game = engine.get_game(game_name)
    known = [spec.name for spec in game.options]
    for name in given:
        if name not in known:
            return f"rules.{game_name}.{name}", f"unknown option (known: {', '.join(known)})"
    try:
        game.new(seats, 0, dict(given))
    except (engine.EngineError, ValueError, TypeError) as exc:
        message = " ".join(str(exc).split())
        match = re.match(r"option (\w+): (.*)", message)
        if match and match.group(1) in given:
            return f"rules.{game_name}.{match.group(1)}", match.group(2)
        return f"rules.{game_name}", message
    return None


# --------------------------------------------------------------------------- resolved view


def _toml(value: object) -> str:
    """``value`` as a TOML literal (strings with JSON-compatible escapes)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, Path):
        value = str(value)
    if isinstance(value, str):
        out = ['"']
        for ch in value:
            if ch in '"\\':
                out.append("\\" + ch)
            elif ch.isprintable():
                out.append(ch)
            else:
                out.append(f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}")
        out.append('"')
        return "".join(out)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def _pin_note(pin: int) -> str:
    """``  # header pin 11``."""
    return f"  # header pin {HEADER_PIN[pin]}"


def format_config(config: Config) -> str:
    """The resolved config as TOML: every key with its value, defaults filled in, pins with
    their header pin, rule options the file leaves out marked ``# engine default`` (the
    values the engine resolves them to).  Parsing the text again gives the same config,
    except that the rule options it shows become explicit."""
    import engine

    out = [f"# partytable config from {config.source}: every key, defaults filled in", ""]
    out += ["[display]", f"driver = {_toml(config.display.driver)}",
            f"lag_ms = {_toml(config.display.lag_ms)}", ""]
    g = config.gpio
    out += ["[gpio]", f"chip = {_toml(g.chip)}", f"i2c = {_toml(list(g.i2c))}",
            f"i2c_khz = {g.i2c_khz}  # 400, or 100 for long leads",
            f"spi = {_toml(g.spi)}", f"uart = {_toml(g.uart)}", ""]
    if g.i2c_mux is not None:
        out += ["[gpio.i2c_mux]", f"address = 0x{g.i2c_mux.address:02X}"
                f"  # {g.i2c_mux.overlay()}", ""]
    for extra in g.i2c_gpio:
        out += ["[[gpio.i2c_gpio]]", f"bus = {extra.bus}", f"sda = {extra.sda}"
                + _pin_note(extra.sda), f"scl = {extra.scl}" + _pin_note(extra.scl), ""]
    out += ["[paths]", f"state_dir = {_toml(config.paths.state_dir)}", ""]
    out += ["[sound]", f"volume = {config.sound.volume}  # 0 (silent) to {MAX_VOLUME}", ""]
    from device.games import PLUGINS

    for game_name in PLUGINS:
        game = engine.get_game(game_name)
        given = config.rule_options(game_name)
        resolved = {spec.name: spec.default for spec in game.options}
        resolved.update(game.position_json(game.new(len(config.seats), 0, given))["options"])
        out.append(f"[rules.{game_name}]")
        for name, value in resolved.items():
            note = "" if name in given else "  # engine default"
            out.append(f"{name} = {_toml(value)}{note}")
        out.append("")
    for seat in config.seats:
        out += _format_seat(seat)
    used = len(config.wiring())
    free = ", ".join(map(str, config.free_pins())) or "none"
    out.append(f"# GPIO: {used} of {LAST_PIN - FIRST_PIN + 1} lines used; free: {free}")
    out.append("# /boot/firmware/config.txt: " + "; ".join(g.boot_lines()))
    return "\n".join(out) + "\n"


def _format_seat(seat: SeatConfig) -> list[str]:
    """One seat's lines for :func:`format_config`."""
    h = seat.handheld
    out = [f"[[seat]]  # seat[{seat.index}], Seat {seat.index + 1} on the TV"]
    if seat.slap_pin is not None:
        out.append(f"slap_pin = {seat.slap_pin}" + _pin_note(seat.slap_pin))
    out += ["[seat.handheld]", f"kind = {_toml(h.kind)}"]
    if isinstance(h, SerialHandheld):
        out.append(f"id = {_toml(h.id)}")
    elif isinstance(h, WiredHandheld):
        out += [f"controller = {_toml(h.controller)}", f"bus = {_toml(h.bus)}",
                f"port = {h.port}"]
        if h.bus == "i2c":
            out.append(f"address = 0x{h.address:02X}")
            if h.mux_channel is not None:
                out.append(f"mux_channel = {h.mux_channel}")
        else:
            out += [f"device = {h.device}  # CE{h.device} = GPIO {SPI_CE[h.device]}",
                    f"dc_pin = {h.dc_pin}" + _pin_note(h.dc_pin),
                    f"rst_pin = {h.rst_pin}" + _pin_note(h.rst_pin)]
        out.append(f"rotation = {h.rotation}")
        pins = h.keys.pins()
        out.append("keys = { " + ", ".join(f"{n} = {v}" for n, v in pins.items()) + " }"
                   "  # header pins " + ", ".join(str(HEADER_PIN[v]) for v in pins.values()))
    out.append("")
    return out


# --------------------------------------------------------------------------- the command


CHECK_USAGE = "usage: python -m device check-config [FILE]"


def serial_warnings(config: Config, serial_dir: Path = SERIAL_BY_ID) -> list[str]:
    """One line per serial seat whose port is not there now: an ``id`` under
    ``/dev/serial/by-id`` (``serial_dir``, tests pass another) or a bare by-id name
    (``usb-...-ifNN``) with no entry in ``serial_dir``, or another ``/dev`` path that does
    not exist.  A warning, not a problem: the handheld may be plugged in later, and the
    console waits for it.  A bare id of another shape may be the handheld's HELLO id,
    which only the handheld itself can answer: nothing is said about it."""
    lines: list[str] = []
    for seat in config.seats:
        h = seat.handheld
        if not isinstance(h, SerialHandheld):
            continue
        prefix = f"{SERIAL_BY_ID}/"
        if h.id.startswith(prefix) or _BY_ID_NAME.fullmatch(h.id):
            name = h.id.removeprefix(prefix)
            shown, there = f"{prefix}{name}", _exists(serial_dir / name)
        elif h.id.startswith("/dev/"):
            shown, there = h.id, _exists(Path(h.id))
        else:
            continue
        shown = _short(shown, 100)
        if not there:
            lines.append(f"seat[{seat.index}].handheld.id: no {shown} now: plug the handheld "
                         f"in, or write the name ls {SERIAL_BY_ID} shows (the console waits "
                         "for it)")
    return lines


def _exists(path: Path) -> bool:
    """True when ``path`` exists; False also when it cannot be looked up at all (a name
    too long, ``ENAMETOOLONG``; a permission)."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


_BY_ID_NAME = re.compile(r"(usb|pci|platform)-\S+-if[0-9]+(-port[0-9]+)?")
"""A bare ``/dev/serial/by-id`` name as udev's ``60-serial.rules`` makes them
(``usb-<vendor>_<model>_<serial>-if<interface>``)."""


def check_config_main(argv: Sequence[str], etc: Path = ETC_CONFIG,
                      out: IO[str] | None = None, err: IO[str] | None = None,
                      serial_dir: Path = SERIAL_BY_ID) -> int:
    """``python -m device check-config [FILE]``: validate FILE (default: what the device
    would load, :func:`find_config`) and print the resolved config (:func:`format_config`),
    exit 0; or print one line per problem on ``err``, exit 2.  A bad command line is one
    usage line, exit 2.  What does not stop the console (:attr:`Config.warnings`, and
    :func:`serial_warnings`: a serial handheld not plugged in, looked for in
    ``serial_dir``) is one ``source: warning: ...`` line each on ``err``, exit 0."""
    out = out or sys.stdout
    err = err or sys.stderr
    args = list(argv)
    if args in (["-h"], ["--help"]):
        print(CHECK_USAGE, file=out)
        return 0
    if len(args) > 1 or (args and args[0].startswith("-")):
        print(f"error: {CHECK_USAGE}", file=err)
        return 2
    path = find_config(Path(args[0]) if args else None, etc)
    try:
        config = load_config(path, log_warnings=False)
    except ConfigError as exc:
        for problem in exc.problems:
            print(f"{exc.source}: {problem}", file=err)
        return 2
    # the console starts anyway (Config.warnings, a handheld not plugged in yet)
    for warning in (*config.warnings, *serial_warnings(config, serial_dir)):
        print(f"{config.source}: warning: {warning}", file=err)
    out.write(format_config(config))
    return 0
