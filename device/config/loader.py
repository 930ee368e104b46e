"""The device's config file: one TOML file read into frozen dataclasses and validated before
any hardware is touched (docs/architecture.md "Configuration"; docs/style.md "Config").

Where it comes from (:func:`find_config`): ``--config FILE``, else
``/etc/partytable/config.toml`` if present, else the bundled ``device/config.toml`` (a 4-seat
build with wired handhelds whose OLEDs sit behind a TCA9548A I2C mux; its wiring is
``hardware/wiring.md``).  :func:`load_config` reads and validates it; :func:`check_config`
returns the problems of a text; ``python -m device check-config [FILE]``
(:func:`check_config_main`) prints the resolved config or the problems.

The types are ``device.config.schema`` (each key's check, default, unit and doc written
once, in its dataclass field's metadata), read by the one generic reader
``device.config.table_reader.read_table``; the checks across keys (pins, buses, seats,
rules) are ``device.config.checks``; this module finds, reads, checks and prints a config
(callers import each name from the module that defines it).

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
import os
import re
import stat
import sys
import tomllib
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import IO, Any

from device.config.checks import (
    check_displays,
    check_pins,
    check_serial_ids,
    read_rules,
    read_seats,
)
from device.config.schema import (
    BOM,
    BUNDLED_NAME,
    ETC_CONFIG,
    HEADER_PIN,
    MAX_CONFIG_BYTES,
    MAX_VOLUME,
    MIN_SEATS,
    SERIAL_BY_ID,
    SPI_CE,
    Config,
    ConfigError,
    DisplayConfig,
    GpioConfig,
    PathsConfig,
    SeatConfig,
    SerialHandheld,
    SoundConfig,
    WiredHandheld,
)
from device.config.table_reader import (
    FIRST_PIN,
    LAST_PIN,
    Reading,
    printable,
    read_table,
    short,
)

log = logging.getLogger("partytable")

__all__ = [
    "CHECK_USAGE",
    "bundled_text",
    "check_config",
    "check_config_main",
    "computer_only_text",
    "find_config",
    "format_config",
    "load_config",
    "parse_config",
    "read_config_text",
    "serial_warnings",
]


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
    goes through it (``load_config``, ``device.modes.hardware.fault_display_mode``).

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
    reading = Reading()
    config = _read(reading, raw, source)
    if reading.problems or config is None:
        raise ConfigError(reading.problems, source)
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


def _read(r: Reading, raw: dict[str, Any], source: str) -> Config | None:
    """Read every table (``device.config.table_reader.read_table``), then the checks across them
    (``device.config.checks``); the :class:`Config` (meaningful only when ``r.problems``
    stays empty)."""
    p = r.problems
    known = ("display", "gpio", "paths", "rules", "seat", "sound")
    for name in raw:
        if name not in known:
            p.add(name, f"unknown key (known: {', '.join(known)})")
    display = read_table(r, DisplayConfig, "display", raw.get("display", {}))
    gpio = read_table(r, GpioConfig, "gpio", raw.get("gpio", {}))
    paths = read_table(r, PathsConfig, "paths", raw.get("paths", {}))
    sound = read_table(r, SoundConfig, "sound", raw.get("sound", {}))
    reads = read_seats(r, raw.get("seat"))
    seats = [s.seat for s in reads or () if s.seat is not None]
    if reads is not None and gpio is not None:
        check_pins(p, gpio, reads, seats)
        check_displays(p, gpio, seats)
        check_serial_ids(p, seats)
    rules = read_rules(r, raw.get("rules", {}), len(reads) if reads else MIN_SEATS)
    if p or display is None or gpio is None or paths is None or reads is None \
            or len(seats) < len(reads) or rules is None or sound is None:
        return None
    return Config(
        seats=tuple(seats), display=display, gpio=gpio, paths=paths, sound=sound,
        rules=rules, source=source, warnings=tuple(r.warnings),
    )


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
        shown = short(shown, 100)
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
