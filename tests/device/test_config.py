"""The device's config file (``device/config/loader.py``): the bundled default, one clear line per
malformed config, ``check-config``, the mux channel lookup, and the builder's wiring
documents (``hardware/wiring.md``, ``hardware/wiring.svg``) against the bundled config and
the 40-pin header."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from device.config.loader import (
    bundled_text,
    check_config,
    check_config_main,
    find_config,
    format_config,
    load_config,
    parse_config,
    serial_warnings,
)
from device.config.schema import (
    Config,
    ConfigError,
    NoHandheld,
    SeatConfig,
    SerialHandheld,
    WiredHandheld,
)
from device.main import main
from drivers.hand_display import check_hand_display

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = bundled_text()

# The 40-pin header as the Raspberry Pi documentation draws it, written out here on its own
# so the wiring documents are checked against something other than the code that drew them.
PINOUT = {
    1: "3V3", 2: "5V", 3: "GPIO2", 4: "5V", 5: "GPIO3", 6: "GND", 7: "GPIO4", 8: "GPIO14",
    9: "GND", 10: "GPIO15", 11: "GPIO17", 12: "GPIO18", 13: "GPIO27", 14: "GND",
    15: "GPIO22", 16: "GPIO23", 17: "3V3", 18: "GPIO24", 19: "GPIO10", 20: "GND",
    21: "GPIO9", 22: "GPIO25", 23: "GPIO11", 24: "GPIO8", 25: "GND", 26: "GPIO7",
    27: "GPIO0", 28: "GPIO1", 29: "GPIO5", 30: "GND", 31: "GPIO6", 32: "GPIO12",
    33: "GPIO13", 34: "GND", 35: "GPIO19", 36: "GPIO16", 37: "GPIO26", 38: "GPIO20",
    39: "GND", 40: "GPIO21",
}


def edit(old: str, new: str, nth: int = 0) -> str:
    """The bundled config with the ``nth`` occurrence of ``old`` replaced by ``new``."""
    parts = BUNDLED.split(old)
    assert len(parts) > nth + 1, f"{old!r} occurs {len(parts) - 1} times"
    return old.join(parts[: nth + 1]) + new + old.join(parts[nth + 1:])


def two_seats(gpio: str = "", seat0: str = "", seat1: str = "", top: str = "") -> str:
    """A small config: two seats, seat 0's handheld given by ``seat0`` (default: a wired
    I2C1 OLED), seat 1 a serial handheld; ``gpio`` lines go into ``[gpio]``."""
    hand0 = seat0 or (
        'kind = "wired"\nport = 1\naddress = 0x3C\n'
        "keys = { left = 16, right = 20, select = 21, back = 26 }"
    )
    hand1 = seat1 or 'kind = "serial"\nid = "usb-partytable_handheld_01-if00"'
    return (f"{top}\n[gpio]\n{gpio}\n"
            f"[[seat]]\nslap_pin = 5\n[seat.handheld]\n{hand0}\n"
            f"[[seat]]\nslap_pin = 6\n[seat.handheld]\n{hand1}\n")


def extra_seat(slap: int, keys: tuple[int, int, int, int], channel: int) -> str:
    """One more wired seat behind mux channel ``channel``."""
    left, right, select, back = keys
    return (f"\n[[seat]]\nslap_pin = {slap}\n[seat.handheld]\nkind = \"wired\"\nport = 1\n"
            f"mux_channel = {channel}\n"
            f"keys = {{ left = {left}, right = {right}, select = {select}, back = {back} }}\n")


LAG_LINE = next(i for i, x in enumerate(BUNDLED.splitlines(), 1) if x.startswith("lag_ms"))
"""The line of ``lag_ms`` in the bundled config."""

NONE_SEAT = '\n[[seat]]\n[seat.handheld]\nkind = "none"\n'

CASES: list[Any] = [
    ("lag_ms = 0.0", "lag_ms = = 0.0", "toml", f"line {LAG_LINE}, column 10: invalid value",
     "toml-syntax"),
    pytest.param(BUNDLED + "\n[speaker]\nvolume = 3\n", "speaker", "unknown key", id="unknown-top"),
    ("rotation = 0\n", "rotation = 0\ncolour = 1\n", "seat[0].handheld.colour",
     "unknown key (known:", "unknown-handheld-key"),
    pytest.param(edit("back = 24 ", "").replace("select = 23, }", "select = 23 }"),
                 "seat[0].handheld.keys.back", "missing", id="missing-key"),
    ("lag_ms = 0.0", "lag_ms = true", "display.lag_ms", "true (a bool)", "bool-is-no-number"),
    ("slap_pin = 17", 'slap_pin = "17"', "seat[0].slap_pin",
     "expected a BCM GPIO number, got the text '17'", "pin-as-text"),
    ("slap_pin = 17", "slap_pin = 17.0", "seat[0].slap_pin",
     "expected a BCM GPIO number, got the number 17.0", "pin-as-float"),
    ("slap_pin = 25", "slap_pin = 17", "seat[1].slap_pin", "GPIO 17 is already seat[0].slap_pin",
     "duplicate-slap"),
    ("back = 21", "back = 24", "seat[3].handheld.keys.back",
     "GPIO 24 is already seat[0].handheld.keys.back", "duplicate-key"),
    ("slap_pin = 17", "slap_pin = 2", "seat[0].slap_pin",
     "GPIO 2 is I2C1 SDA (enabled by gpio.i2c); pick a free pin (free: 4, 14, "
     "15, 17, 18)", "pin-taken-by-i2c"),
    pytest.param(two_seats(gpio="spi = true",
                           seat0='kind = "wired"\n'
                                 "keys = { left = 16, right = 20, select = 21, back = 10 }"),
                 "seat[0].handheld.keys.back", "GPIO 10 is SPI0 MOSI (enabled by gpio.spi)",
                 id="pin-taken-by-spi"),
    pytest.param(two_seats(gpio="uart = true", seat1='kind = "serial"\nid = "x"'
                           ).replace("slap_pin = 6", "slap_pin = 14"),
                 "seat[1].slap_pin", "GPIO 14 is UART TXD (enabled by gpio.uart)",
                 id="pin-taken-by-uart"),
    ("slap_pin = 17", "slap_pin = 0", "seat[0].slap_pin", "reserved for the HAT ID EEPROM",
     "id-eeprom-pin"),
    ("slap_pin = 17", "slap_pin = 28", "seat[0].slap_pin",
     "GPIO 28 is outside the 40-pin header's BCM 2-27", "pin-off-header"),
    ('controller = "ssd1306"', 'controller = "ssd1309"', "seat[0].handheld.controller",
     "unknown OLED controller 'ssd1309' (known: \"ssd1306\" | \"sh1106\")", "unknown-controller"),
    ('bus = "i2c"', 'bus = "usb"', "seat[0].handheld.bus", "unknown display bus 'usb'",
     "unknown-bus"),
    ('kind = "wired"', 'kind = "bluetooth"', "seat[0].handheld.kind",
     "unknown handheld kind 'bluetooth' (known: \"wired\" | \"serial\" | \"none\")",
     "unknown-kind"),
    ("mux_channel = 1", "mux_channel = 0", "seat[1].handheld.address",
     "i2c-1 mux channel 0 0x3C is already seat[0]'s display", "same-bus-address"),
    ("port = 1\nmux_channel = 0", "port = 3", "seat[0].handheld.port",
     "i2c-3 is not enabled in [gpio] (enabled: i2c-1)", "i2c-port-not-enabled"),
    ("address = 0x3C", "address = 0x3E", "seat[0].handheld.address",
     "0x3E is not an SSD1306/SH1106 address (0x3C or 0x3D", "bad-address"),
    pytest.param(BUNDLED + extra_seat(4, (14, 15, 18, 17), 4), "seat",
                 "5 seats (5 wired) need 25 GPIO lines but the header has 24 free (BCM 2-27 "
                 "minus I2C1 SDA, I2C1 SCL); a wired seat takes 5 (slap + 4 keys), a serial "
                 'seat 1 (slap): give seat[4] a serial handheld (kind = "serial")',
                 id="fifth-wired-seat"),
    pytest.param(BUNDLED + extra_seat(4, (14, 15, 18, 2), 4) + extra_seat(3, (17, 25, 5, 6), 5),
                 "seat", "give seat[4] and seat[5] serial handhelds", id="sixth-wired-seat"),
    pytest.param(BUNDLED + NONE_SEAT * 3, "seat",
                 "7 [[seat]] tables; a table seats 2 to 6", id="seven-seats"),
    pytest.param(two_seats().split("[[seat]]\nslap_pin = 6")[0], "seat",
                 "1 [[seat]] table; a table seats 2 to 6", id="one-seat"),
    pytest.param("[display]\n", "seat", "missing: give 2 to 6 [[seat]] tables", id="no-seats"),
    ('state_dir = "/var/lib/partytable"', 'state_dir = "state"', "paths.state_dir",
     "'state' is relative: give an absolute path", "relative-path"),
    ("slap_timeout_s = 8", "slap_timeout_s = 8\ncolour = 2", "rules.riiing.colour",
     "unknown option (known: hand_size, slap_timeout_s, "
     "false_slap_penalty, deck)", "unknown-rule-option"),
    ("slap_timeout_s = 8", "slap_timeout_s = 0", "rules.riiing.slap_timeout_s",
     "expected a whole number >= 1, got 0 (RI-6.4)", "bad-rule-value"),
    ("target_points = 3", "target_points = true", "rules.right-on-time.target_points",
     "expected a whole number, got true (a bool)", "rule-bool-is-no-number"),
    ("target_points = 3", 'target_points = "5"', "rules.right-on-time.target_points",
     "expected a whole number, got the text '5'", "rule-text-is-no-number"),
    ("target_points = 3", "target_points = 7", "rules.right-on-time.target_points",
     "7 is not one the console's lobby offers (Points to win: 1, 2, 3, 4, 5)",
     "rule-value-the-lobby-does-not-offer"),
    ("target_points = 3", 'target_points = 3\nless_influence = "yes"',
     "rules.right-on-time.less_influence", "expected true or false, got the text 'yes'",
     "rule-text-is-no-switch"),
    ("target_points = 3", "target_points = 3\nli_joker_seven = 1",
     "rules.right-on-time.li_joker_seven", "expected true or false, got 1",
     "rule-number-is-no-switch"),
    ("slap_timeout_s = 8", 'slap_timeout_s = 8\ndeck = ["1A/<", "1A/O"]', "rules.riiing.deck",
     'the console plays only "standard": its lobby has no deck row', "rule-without-a-lobby-row"),
    ("slap_timeout_s = 8", "hand_size = 30", "rules.riiing.hand_size",
     "4 seats x 30 cards + 2 needs 122 cards, the deck holds 96 (RI-2.1)",
     "rule-value-too-big-for-the-table"),
    ("[rules.riiing]", "[rules.uno]", "rules.uno", "unknown game (known: riiing, right-on-time)",
     "unknown-game"),
    ("lag_ms = 0.0", "lag_ms = -5", "display.lag_ms", "-5 ms is negative", "negative-lag"),
    ("lag_ms = 0.0", "lag_ms = 5000.0", "display.lag_ms", "5000.0 ms is absurd", "absurd-lag"),
    ("lag_ms = 0.0", "lag_ms = nan", "display.lag_ms", "nan is not a finite number", "nan-lag"),
    ("rotation = 0", "rotation = 4", "seat[0].handheld.rotation",
     "4 is not a rotation (0-3 quarter turns)", "bad-rotation"),
    ("mux_channel = 3", "mux_channel = 8", "seat[3].handheld.mux_channel",
     "8 is not a mux channel (0-7)", "bad-mux-channel"),
    pytest.param(two_seats(seat1='kind = "serial"'), "seat[1].handheld.id", "missing",
                 id="serial-without-id"),
    pytest.param(two_seats(seat1='kind = "serial"\nid = "a"\nkeys = { left = 4 }'),
                 "seat[1].handheld.keys", 'only for kind = "wired"', id="serial-with-keys"),
    pytest.param(two_seats(seat0='kind = "serial"\nid = "usb-partytable_handheld_01-if00"'),
                 "seat[1].handheld.id", "is already seat[0]'s handheld", id="same-serial-id"),
    ("i2c = [1]", "i2c = []", "gpio.i2c_mux", "the mux sits on I2C1 (GPIO 2/3): add 1 to gpio.i2c",
     "mux-without-i2c1"),
    ("address = 0x70", "address = 0x50", "gpio.i2c_mux.address",
     "0x50 is not a TCA9548A address (0x70-0x77)", "bad-mux-address"),
    ("i2c_khz = 400", "i2c_khz = 1000", "gpio.i2c_khz",
     "1000 is not an I2C clock in kHz: 400, or 100 for long leads", "bad-i2c-clock"),
    ("i2c = [1]", "i2c = [0]", "gpio.i2c[0]", "0 is no header I2C bus this firmware knows",
     "i2c0-bus"),
    ('chip = "auto"', 'chip = "gpiochip4"', "gpio.chip", 'expected "auto" or a gpiochip number',
     "bad-chip"),
    pytest.param(two_seats(seat0='kind = "wired"\nbus = "spi"\ndc_pin = 24\nrst_pin = 25\n'
                                 "keys = { left = 16, right = 20, select = 21, back = 26 }"),
                 "seat[0].handheld.bus", "SPI is not enabled: set gpio.spi = true",
                 id="spi-display-without-spi"),
    pytest.param(two_seats(seat0='kind = "wired"\nbus = "spi"\ndc_pin = 24\n'
                                 "keys = { left = 16, right = 20, select = 21, back = 26 }",
                           gpio="spi = true"),
                 "seat[0].handheld.rst_pin", "missing (the BCM pin of the OLED RST line)",
                 id="spi-without-rst"),
    pytest.param(two_seats(seat0='kind = "wired"\nbus = "spi"\naddress = 0x3C\ndc_pin = 24\n'
                                 "rst_pin = 25\n"
                                 "keys = { left = 16, right = 20, select = 21, back = 26 }",
                           gpio="spi = true"),
                 "seat[0].handheld.address", 'only for bus = "i2c"', id="address-on-spi"),
    pytest.param(edit("slap_pin = 17", "slap_pin = 4") + "\n[[gpio.i2c_gpio]]\nbus = 3\n"
                 "sda = 4\nscl = 14\n", "seat[0].slap_pin",
                 "GPIO 4 is already gpio.i2c_gpio[0].sda", id="i2c-gpio-pin-clash"),
    ("keys = { left = 27, right = 22, select = 23, back = 24 }", "keys = 5",
     "seat[0].handheld.keys", "expected a table, got 5", "keys-not-a-table"),
    pytest.param('[[seat]]\nslap_pin = 5\n[[seat]]\nslap_pin = 6\n[seat.handheld]\n'
                 'kind = "serial"\nid = "a"\n',
                 "seat[0].handheld", "missing: add [seat.handheld]", id="seat-without-handheld"),
    pytest.param(two_seats(seat0='kind = "wired"\nport = 1\naddress = 0x3C\n'
                                 "keys = { left = 16, right = 20, select = 21, back = 26 }",
                           seat1='kind = "wired"\nport = 1\nmux_channel = 0\naddress = 0x3C\n'
                                 "keys = { left = 12, right = 13, select = 19, back = 7 }",
                           top="[gpio.i2c_mux]\naddress = 0x70\n"),
                 "seat[1].handheld.address", "0x3C is seat[0]'s display address on i2c-1, "
                 "which the selected mux channel is joined to", id="mux-parent-clash"),
]
"""The malformed configs, each with the key its one problem names and a needle of its
words: an ``(old, new, key, needle, id)`` row is the bundled config with ``old`` replaced by
``new`` (:func:`edit`); the other cases give their text whole."""

MALFORMED = [
    pytest.param(edit(case[0], case[1]), case[2], case[3], id=case[4])
    if type(case) is tuple else case  # a pytest.param is a tuple too
    for case in CASES
]


@pytest.mark.parametrize("text, key, needle", MALFORMED)
def test_malformed_config_is_one_line_naming_the_key(text: str, key: str, needle: str) -> None:
    """Each malformed config gives exactly one problem: one line, starting with the key
    path it is about, saying what is wrong; never a traceback."""
    problems = check_config(text)
    assert len(problems) == 1, problems
    (line,) = problems
    assert line.startswith(f"{key}: "), line
    assert needle in line, line
    assert "\n" not in line and "Traceback" not in line


def test_bundled_default_passes_and_is_the_documented_build() -> None:
    """The bundled default is valid: 4 wired SSD1306 seats, each on its own mux channel at
    0x3C, I2C1 on, SPI and UART off, the rule defaults the lobby starts from."""
    assert check_config(BUNDLED) == []
    config = load_config(None)
    assert len(config.seats) == 4
    hands = [s.handheld for s in config.seats]
    assert all(isinstance(h, WiredHandheld) for h in hands)
    assert [(h.port, h.mux_channel, h.address) for h in hands if isinstance(h, WiredHandheld)
            ] == [(1, 0, 0x3C), (1, 1, 0x3C), (1, 2, 0x3C), (1, 3, 0x3C)]
    assert config.gpio.i2c == (1,) and not config.gpio.spi and not config.gpio.uart
    assert config.gpio.i2c_mux is not None and config.gpio.i2c_mux.address == 0x70
    assert config.slap_pins() == {0: 17, 1: 25, 2: 5, 3: 7}
    assert config.rule_options("riiing") == {"slap_timeout_s": 8}
    assert config.rule_options("right-on-time") == {"target_points": 3}
    assert config.free_pins() == (4, 14, 15, 18)
    assert config.paths.state_dir == Path("/var/lib/partytable")
    assert config.source == "bundled config"


def test_the_i2c_clock_for_long_leads_is_the_config_txt_line() -> None:
    """``gpio.i2c_khz = 100`` (long leads) gives the 100 kHz ``config.txt`` line, prints and
    reads back; the bundled 400 gives the 400 kHz one."""
    slow = parse_config(edit("i2c_khz = 400", "i2c_khz = 100"))
    assert slow.gpio.i2c_khz == 100
    assert "dtparam=i2c_arm=on,i2c_baudrate=100000" in slow.gpio.boot_lines()
    assert load_config(None).gpio.boot_lines()[0] == "dtparam=i2c_arm=on,i2c_baudrate=400000"
    again = parse_config(format_config(slow))
    assert again.gpio == slow.gpio


def test_the_bundled_file_loaded_by_path_equals_the_resource() -> None:
    """``load_config(path of device/config.toml)`` is the same config as ``load_config(None)``
    (the package data is the file in the repository)."""
    by_path = load_config(ROOT / "device" / "config.toml")
    assert by_path.seats == load_config(None).seats
    assert by_path.gpio == load_config(None).gpio


def test_several_problems_are_all_reported_in_file_order() -> None:
    """A config with three mistakes lists all three, each naming its own key."""
    text = edit("lag_ms = 0.0", "lag_ms = -1").replace('kind = "wired"', 'kind = "wire"', 1)
    text = text.replace("slap_pin = 7", "slap_pin = 10")
    problems = check_config(text)
    assert [p.split(":")[0] for p in problems] == [
        "display.lag_ms", "seat[0].handheld.kind", "seat[3].slap_pin"]
    assert problems[2].endswith("GPIO 10 is already seat[1].handheld.keys.left")


def test_check_config_command_prints_the_resolved_config_that_reads_back(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``python -m device check-config`` on the bundled config exits 0 and prints TOML with
    every key and its header pin; read back, it is the same config."""
    assert main(["check-config", str(ROOT / "device" / "config.toml")]) == 0
    out = capsys.readouterr().out
    assert "slap_pin = 17  # header pin 11" in out
    assert "hand_size = 7  # engine default" in out
    assert "slap_timeout_s = 8\n" in out
    assert "# GPIO: 22 of 26 lines used; free: 4, 14, 15, 18" in out
    again = parse_config(out, "printed")
    original = load_config(None)
    assert again.seats == original.seats
    assert (again.display, again.gpio, again.paths) == \
        (original.display, original.gpio, original.paths)
    assert again.rule_options("riiing") == {
        "hand_size": 7, "slap_timeout_s": 8, "false_slap_penalty": 1, "deck": "standard"}


def test_check_config_command_prints_one_line_per_problem_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """Two problems: two stderr lines, each prefixed with the file; exit status 2; nothing
    on stdout."""
    path = tmp_path / "config.toml"
    path.write_text(edit("slap_pin = 25", "slap_pin = 17").replace("rotation = 0",
                                                                   "rotation = 9", 1))
    assert main(["check-config", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        f"{path}: seat[0].handheld.rotation: 9 is not a rotation (0-3 quarter turns)",
        f"{path}: seat[1].slap_pin: GPIO 17 is already seat[0].slap_pin",
    ]


@pytest.mark.parametrize("content, needle", [
    (None, "file: cannot read it: No such file or directory"),
    (b"[display]\nlag_ms = 1.0 # caf\xe9\n", "file: not UTF-8 text: byte 0xe9 at offset 28"),
    (b"#" * ((1 << 20) + 1), "file: larger than 1 MiB; is it the right file?"),
])
def test_unreadable_files_are_one_line(
    tmp_path: Path, content: bytes | None, needle: str, capsys: pytest.CaptureFixture[str],
) -> None:
    """A missing file, a file that is not UTF-8 (naming the byte) and a huge file are one
    line each, exit status 2."""
    path = tmp_path / "config.toml"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.problems == [needle]
    assert check_config_main([str(path)]) == 2
    assert capsys.readouterr().err == f"{path}: {needle}\n"


def test_check_config_command_line_errors(capsys: pytest.CaptureFixture[str]) -> None:
    """Two files or an unknown flag is one usage line and exit 2; --help is exit 0."""
    assert check_config_main(["a.toml", "b.toml"]) == 2
    assert check_config_main(["--strict"]) == 2
    assert capsys.readouterr().err.count("usage: python -m device check-config") == 2
    assert check_config_main(["--help"]) == 0


def test_check_config_runs_as_a_module_without_a_traceback(tmp_path: Path) -> None:
    """``python -m device check-config FILE`` in a fresh process: one line, exit 2."""
    path = tmp_path / "c.toml"
    path.write_text("[gpio]\nspi = 1\n")
    done = subprocess.run(
        [sys.executable, "-m", "device", "check-config", str(path)], cwd=ROOT,
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"},
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"{path}: gpio.spi: expected true or false, got 1",
        f"{path}: seat: missing: give 2 to 6 [[seat]] tables",
    ]


def test_find_config_order(tmp_path: Path) -> None:
    """--config wins, then /etc/partytable/config.toml if present, else the bundled one."""
    etc = tmp_path / "etc.toml"
    flag = tmp_path / "flag.toml"
    assert find_config(None, etc) is None
    assert find_config(flag, etc) == flag
    etc.write_text(BUNDLED)
    assert find_config(None, etc) == etc
    assert find_config(flag, etc) == flag


def test_check_config_without_a_file_uses_the_etc_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """With no FILE, check-config checks what the device would load: the /etc file."""
    etc = tmp_path / "config.toml"
    etc.write_text(edit("lag_ms = 0.0", "lag_ms = 42.5"))
    assert check_config_main([], etc=etc) == 0
    out = capsys.readouterr().out
    assert f"from {etc}" in out and "lag_ms = 42.5" in out


def test_every_kind_of_seat_prints_and_reads_back() -> None:
    """Serial, computer-only and SPI seats, an i2c-gpio bus and rule options print as
    TOML that reads back to the same config."""
    text = (
        "[gpio]\nspi = true\n[[gpio.i2c_gpio]]\nbus = 3\nsda = 23\nscl = 24\n"
        "[rules.riiing]\nhand_size = 5\n[rules.right-on-time]\nless_influence = true\n"
        "[[seat]]\nslap_pin = 5\n[seat.handheld]\nkind = \"wired\"\nbus = \"spi\"\n"
        "device = 1\ndc_pin = 12\nrst_pin = 13\nrotation = 2\ncontroller = \"sh1106\"\n"
        "keys = { left = 16, right = 20, select = 21, back = 26 }\n"
        "[[seat]]\nslap_pin = 6\n[seat.handheld]\nkind = \"wired\"\nport = 3\n"
        "address = 0x3D\nkeys = { left = 17, right = 27, select = 22, back = 25 }\n"
        "[[seat]]\nslap_pin = 19\n[seat.handheld]\nkind = \"serial\"\n"
        "id = \"/dev/serial/by-id/usb-partytable_handheld_7-if00\"\n"
        "[[seat]]\n[seat.handheld]\nkind = \"none\"\n"
    )
    config = parse_config(text)
    spi, gpio_bus, serial, nobody = (s.handheld for s in config.seats)
    assert isinstance(spi, WiredHandheld) and (spi.bus, spi.device, spi.dc_pin) == ("spi", 1, 12)
    assert isinstance(gpio_bus, WiredHandheld) and gpio_bus.port == 3
    assert isinstance(serial, SerialHandheld) and serial.id.endswith("_7-if00")
    assert isinstance(nobody, NoHandheld) and config.seats[3].slap_pin is None
    assert config.rule_options("riiing") == {"hand_size": 5}
    printed = format_config(config)
    assert "device = 1  # CE1 = GPIO 7" in printed
    again = parse_config(printed)
    assert again.seats == config.seats and again.gpio == config.gpio
    assert again.rule_options("riiing")["hand_size"] == 5
    assert again.rule_options("right-on-time")["li_joker_seven"] is True  # RT-8's parts
    assert config.hand_display(0) == ("sh1106", {
        "bus": "spi", "rotate": 2, "port": 0, "device": 1, "dc_pin": 12, "reset_pin": 13})
    assert config.hand_display(1) == ("ssd1306", {
        "bus": "i2c", "rotate": 0, "port": 3, "address": 0x3D})
    with pytest.raises(ConfigError) as caught:
        config.hand_display(2)
    assert caught.value.problems == ["seat[2].handheld: kind 'serial' has no wired display"]


def test_mux_channel_is_found_through_the_kernels_link(tmp_path: Path) -> None:
    """A display behind the mux gets the /dev/i2c-N the kernel gave its channel (read from
    the mux client's ``channel-K`` link), in params the hand-display driver accepts."""
    config = load_config(None)
    mux = tmp_path / "1-0070"
    mux.mkdir()
    for channel, bus in enumerate((22, 23, 24, 25, 26, 27, 28, 29)):
        (tmp_path / f"i2c-{bus}").mkdir()
        os.symlink(f"../i2c-{bus}", mux / f"channel-{channel}")
    kind, params = config.hand_display(2, sys_i2c=tmp_path)
    assert (kind, params) == ("ssd1306", {"bus": "i2c", "rotate": 0, "port": 24,
                                          "address": 0x3C})
    check_hand_display(2, kind, **params)  # the driver's own validation accepts them


def test_a_missing_mux_is_one_line_naming_the_overlay(tmp_path: Path) -> None:
    """No ``1-0070`` under /sys (overlay missing, mux unwired): one line naming
    ``seat[k].handheld.mux_channel``, the link looked for and the overlay line."""
    config = load_config(None)
    with pytest.raises(ConfigError) as caught:
        config.hand_display(1, sys_i2c=tmp_path)
    (line,) = caught.value.problems
    assert line.startswith("seat[1].handheld.mux_channel: the kernel shows no "
                           f"{tmp_path}/1-0070/channel-1")
    assert "dtoverlay=i2c-mux,pca9548,addr=0x70" in line


# ------------------------------------------------------------------ hardware/ documents


def wiring_rows() -> list[dict[str, str]]:
    """The rows of wiring.md's GPIO table (the one headed ``| seat | function | BCM GPIO |
    header pin | wire |``)."""
    lines = (ROOT / "hardware" / "wiring.md").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines)
                 if re.fullmatch(r"\|\s*seat\s*\|\s*function\s*\|\s*BCM GPIO\s*\|.*", line))
    header = [c.strip() for c in lines[start].strip("|").split("|")]
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append(dict(zip(header, (c.strip() for c in line.strip("|").split("|")),
                             strict=True)))
    return rows


def test_wiring_table_matches_the_bundled_config_and_the_header() -> None:
    """Every pin of the bundled config is in wiring.md's table with its function, the
    header pin matches the 40-pin pinout, and no GPIO or header pin appears twice."""
    raw = tomllib.loads(BUNDLED)
    expected: dict[tuple[str, str], int] = {("all", "I2C1 SDA"): 2, ("all", "I2C1 SCL"): 3}
    for i, seat in enumerate(raw["seat"]):
        expected[(f"Seat {i + 1}", "slap button")] = seat["slap_pin"]
        for name, pin in seat["handheld"]["keys"].items():
            expected[(f"Seat {i + 1}", f"key {name}")] = pin
    rows = wiring_rows()
    got = {(r["seat"], r["function"]): int(r["BCM GPIO"]) for r in rows}
    assert got == expected
    for row in rows:
        assert PINOUT[int(row["header pin"])] == f"GPIO{row['BCM GPIO']}", row
        assert row["wire"], row
    assert len({r["BCM GPIO"] for r in rows}) == len(rows)
    assert len({r["header pin"] for r in rows}) == len(rows)


def test_mux_channels_in_wiring_md_match_the_config() -> None:
    """wiring.md's mux table gives each seat the channel the config names."""
    text = (ROOT / "hardware" / "wiring.md").read_text(encoding="utf-8")
    raw = tomllib.loads(BUNDLED)
    for i, seat in enumerate(raw["seat"]):
        channel = seat["handheld"]["mux_channel"]
        assert re.search(rf"^\| Seat {i + 1} \| SD{channel} / SC{channel} \| 0x3C \|", text,
                         re.MULTILINE), f"seat {i + 1} channel {channel}"


def test_committed_wiring_documents_equal_the_generators_output(tmp_path: Path) -> None:
    """scripts/make_wiring.py, run into a temp folder, writes exactly the committed
    hardware/wiring.md and hardware/wiring.svg (so they cannot drift from the config)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_wiring.py"), "--out", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"},
    )
    assert done.returncode == 0, done.stderr
    for name in ("wiring.md", "wiring.svg"):
        committed = (ROOT / "hardware" / name).read_text(encoding="utf-8")
        assert (tmp_path / name).read_text(encoding="utf-8") == committed, name


def test_wiring_svg_labels_every_used_header_pin() -> None:
    """The SVG is well-formed XML and names every GPIO the bundled config uses next to its
    header pin."""
    import xml.etree.ElementTree as ET

    svg = ET.parse(ROOT / "hardware" / "wiring.svg").getroot()
    texts = " ".join(t.text or "" for t in svg.iter("{http://www.w3.org/2000/svg}text"))
    config: Config = load_config(None)
    for line in config.wiring():
        assert f"GPIO{line.gpio}" in texts, line


def test_files_and_texts_that_could_hang_or_crash_the_reader_are_one_line(
    tmp_path: Path,
) -> None:
    """A FIFO as the config (it would block the reader), arrays nested thousands deep, an
    integer past Python's digit limit, a key with a newline in it: each one line."""
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError) as err:
        load_config(fifo)
    assert err.value.problems == ["file: not a regular file"]
    deep = "x = " + "[" * 100_000 + "]" * 100_000 + "\n"
    assert check_config(deep) == ["toml: arrays or tables nested too deeply"]
    (problem,) = check_config("x = " + "9" * 5000 + "\n")
    assert problem.startswith("toml: ") and "\n" not in problem
    problems = check_config('"a\\nseat[0].slap_pin: fake problem" = 1\n')
    assert problems and all("\n" not in p for p in problems)
    assert any("\\n" in p for p in problems)


@pytest.mark.parametrize(("gpio", "needle"), [
    ("[[gpio.i2c_gpio]]\nbus = 3\nsda = 2\nscl = 3\n", "GPIO 2 is I2C1 SDA"),
    ("[[gpio.i2c_gpio]]\nbus = 3\nsda = 4\nscl = 4\n", "GPIO 4 is already"),
    ("[[gpio.i2c_gpio]]\nbus = 3\nsda = 4\nscl = 18\n[[gpio.i2c_gpio]]\nbus = 4\nsda = 4\n"
     "scl = 18\n", "GPIO 4 is already"),
])
def test_i2c_gpio_buses_cannot_share_pins(gpio: str, needle: str) -> None:
    """An extra i2c-gpio bus on the I2C1 pins, SDA = SCL, two buses on the same pins: each
    refused with a line naming the pin (a pin two buses share drives neither)."""
    text = BUNDLED.replace("[gpio.i2c_mux]", gpio + "\n[gpio.i2c_mux]", 1)
    problems = check_config(text)
    assert any(needle in p for p in problems), problems


# ------------------------------------------------------------------ a bad [sound] volume


@pytest.mark.parametrize(("value", "shown"), [("11", "11"), ("3.5", "the number 3.5"),
                                              ('"loud"', "the text 'loud'"),
                                              ("-1", "-1"), ("true", "true (a bool)")])
def test_a_bad_sound_volume_is_one_log_line_and_the_default_volume(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str],
    value: str, shown: str,
) -> None:
    """``[sound] volume = 11`` (or 3.5, "loud"): sound is never a reason to stop a game
    (device/modes/sound.py), so the config loads with the default volume 7 and one log line
    names the key, the value and the default; ``check-config`` accepts the file (exit 0)
    and warns on stderr with the same words: a wrong volume never keeps the console from
    starting."""
    from device.config.schema import DEFAULT_VOLUME

    text = edit("volume = 7 ", f"volume = {value} ")
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    caplog.set_level(logging.WARNING)
    config = load_config(path)
    assert config.sound.volume == DEFAULT_VOLUME == 7
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{path}: sound.volume: ")
    assert shown in lines[0] and "using the default volume 7" in lines[0]
    assert check_config(text) == []
    caplog.clear()
    assert check_config_main([str(path)]) == 0
    out, err = capsys.readouterr()
    assert "volume = 7" in out
    assert err.splitlines() == [f"{path}: warning: {lines[0].split(': ', 1)[1]}"]
    assert caplog.records == []  # check-config says it once, on stderr, not twice


def test_a_good_sound_volume_is_kept_without_a_word(caplog: pytest.LogCaptureFixture) -> None:
    """``volume = 3`` and ``volume = 0`` (silent) are taken as they are, nothing logged."""
    caplog.set_level(logging.WARNING)
    for value in (3, 0):
        assert parse_config(edit("volume = 7 ", f"volume = {value} ")).sound.volume == value
    assert caplog.records == []


def test_a_byte_order_mark_before_the_config_is_read_past(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Windows editors (Notepad) save UTF-8 with a byte order mark, EF BB BF, which TOML
    does not allow: the file is read as the same config, at load and at check-config."""
    path = tmp_path / "config.toml"
    path.write_bytes(b"\xef\xbb\xbf" + BUNDLED.encode("utf-8"))
    assert load_config(path).seats == load_config(None).seats
    assert check_config("\ufeff" + BUNDLED) == []
    assert check_config_main([str(path)]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(("written", "meant"), [(0x78, 0x3C), (0x7A, 0x3D)])
def test_an_eight_bit_oled_address_names_the_seven_bit_one(written: int, meant: int) -> None:
    """A display board printed "0x78" (or "0x7A") gives the 8-bit bus address, the 7-bit
    one shifted left with the R/W bit: the line names the address to write instead."""
    text = edit("address = 0x3C", f"address = 0x{written:02X}", 1)
    assert check_config(text) == [
        f"seat[1].handheld.address: 0x{written:02X} is the 8-bit form (with the R/W bit) of "
        f"0x{meant:02X}: write address = 0x{meant:02X}"]


def test_the_spi_advice_names_every_seat_whose_pins_spi_would_take() -> None:
    """A seat's OLED on SPI while SPI is off: the advice to set gpio.spi = true names every
    seat whose pins dtparam=spi=on would take (the bundled build's seat[1] keys on GPIO
    10, 9, 11, 8 and seat[3]'s slap button on GPIO 7), so the builder moves them first."""
    text = edit('bus = "i2c"\nport = 1\nmux_channel = 2\naddress = 0x3C\n',
                'bus = "spi"\ndc_pin = 14\nrst_pin = 15\n')
    problems = check_config(text)
    assert len(problems) == 1, problems
    line = problems[0]
    assert line.startswith("seat[2].handheld.bus: SPI is not enabled: set gpio.spi = true")
    for key in ("seat[1].handheld.keys.left (GPIO 10)", "seat[1].handheld.keys.right (GPIO 9)",
                "seat[1].handheld.keys.select (GPIO 11)", "seat[1].handheld.keys.back (GPIO 8)",
                "seat[3].slap_pin (GPIO 7)"):
        assert key in line, line
    assert "seat[0]" not in line and "seat[2]." not in line.split(":", 1)[1]


def test_a_serial_handheld_not_plugged_in_is_a_warning_at_check_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A serial seat whose /dev/serial/by-id entry is not there (the handheld is not plugged
    in, or the name is mistyped) is one warning at check-config naming the key and where
    to look, exit 0 (it may be plugged in later); one that is there says nothing."""
    by_id = tmp_path / "by-id"
    by_id.mkdir()
    (by_id / "usb-MicroPython_Board_in_FS_mode_e6614c31-if00").touch()
    text = two_seats(seat1='kind = "serial"\n'
                           'id = "/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_e66-if00"')
    text += ('\n[[seat]]\nslap_pin = 12\n[seat.handheld]\nkind = "serial"\n'
             'id = "usb-MicroPython_Board_in_FS_mode_e6614c31-if00"\n')
    path = tmp_path / "config.toml"
    path.write_text(text)
    assert check_config_main([str(path)], serial_dir=by_id) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"{path}: warning: seat[1].handheld.id: no /dev/serial/by-id/"
        "usb-MicroPython_Board_in_FS_mode_e66-if00 now: plug the handheld in, or write the "
        "name ls /dev/serial/by-id shows (the console waits for it)"]
    (by_id / "usb-MicroPython_Board_in_FS_mode_e66-if00").touch()
    assert check_config_main([str(path)], serial_dir=by_id) == 0
    assert capsys.readouterr().err == ""


def test_spi_on_names_every_seat_whose_pin_it_takes() -> None:
    """gpio.spi = true with two seats on SPI0 pins: one line per pin, each naming its seat's
    key, the function that takes it and the pins still free."""
    text = two_seats(gpio="spi = true", seat0='kind = "wired"\n'
                     "keys = { left = 16, right = 20, select = 21, back = 10 }"
                     ).replace("slap_pin = 6", "slap_pin = 7")
    problems = check_config(text)
    assert [p.split(": ", 1)[0] for p in problems] == ["seat[0].handheld.keys.back",
                                                       "seat[1].slap_pin"]
    assert "GPIO 10 is SPI0 MOSI (enabled by gpio.spi); pick a free pin (free: 4," \
        in problems[0]
    assert "GPIO 7 is SPI0 CE1 (enabled by gpio.spi); pick a free pin (free: 4," in problems[1]


# ------------------------------------------------ values and files at the reader's limits


@pytest.mark.parametrize("digits", ["1" + "0" * 309, "9" * 400, "-" + "9" * 400])
def test_a_lag_too_large_for_a_float_is_one_line_naming_the_key(digits: str) -> None:
    """``lag_ms`` written with hundreds of digits (past a float's range) is one line naming
    ``display.lag_ms``, short, without the digits spelled out."""
    problems = check_config(edit("lag_ms = 0.0", f"lag_ms = {digits}"))
    assert len(problems) == 1, problems
    assert problems[0].startswith("display.lag_ms: "), problems
    assert len(problems[0]) < 200, problems


def test_a_serial_id_too_long_for_a_file_name_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A serial ``id`` longer than a file name can be (255 bytes), as a by-id path or a bare
    by-id name, is one problem naming ``seat[1].handheld.id``, exit 2; the warnings for a
    serial port that is not there never raise either."""
    by_id = tmp_path / "by-id"
    by_id.mkdir()
    for ident in ("/dev/serial/by-id/" + "a" * 5000, "usb-" + "a" * 300 + "-if00"):
        path = tmp_path / "config.toml"
        path.write_text(two_seats(seat1=f'kind = "serial"\nid = "{ident}"'))
        assert check_config_main([str(path)], serial_dir=by_id) == 2
        out, err = capsys.readouterr()
        (line,) = err.splitlines()
        assert line.startswith(f"{path}: seat[1].handheld.id: "), line
        assert len(line) < 300 and out == ""
        seats = (SeatConfig(0, None, NoHandheld()), SeatConfig(1, 6, SerialHandheld(ident)))
        (warning,) = serial_warnings(Config(seats=seats), by_id)
        assert warning.startswith("seat[1].handheld.id: ") and len(warning) < 300, warning


def test_an_integer_past_pythons_digit_limit_names_its_line() -> None:
    """``volume = <5000 digits>``: tomllib gives up with Python's own advice; the line
    names the file's line and says what is wrong in words a builder can act on."""
    text = edit("volume = 7 ", "volume = " + "7" * 5000 + " ")
    line = next(i for i, x in enumerate(text.splitlines(), 1) if x.startswith("volume"))
    assert check_config(text) == [f"toml: line {line}: a number with more than 4300 digits"]


def test_a_file_name_with_a_newline_is_printed_on_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A config file whose name holds a newline: each problem is still one line, the name
    written with the newline escaped (``\\n``)."""
    path = tmp_path / "bad\nname.toml"
    path.write_text(edit("slap_pin = 25", "slap_pin = 17").replace("rotation = 0",
                                                                   "rotation = 9", 1))
    assert check_config_main([str(path)]) == 2
    err = capsys.readouterr().err.splitlines()
    shown = str(path).replace("\n", "\\n")
    assert len(err) == 2 and all(line.startswith(f"{shown}: seat[") for line in err), err


def test_a_byte_order_mark_inside_the_file_is_named(tmp_path: Path) -> None:
    """A byte order mark anywhere but the start (two files joined by an editor) is named,
    with its line: it is invisible in every editor."""
    lines = BUNDLED.splitlines(keepends=True)
    text = "".join(lines[:28]) + "\ufeff" + "".join(lines[28:])
    assert check_config(text) == ["toml: line 29: a byte order mark (U+FEFF) in the middle "
                                  "of the file: delete it"]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_a_utf16_file_says_save_it_as_utf8(tmp_path: Path, encoding: str) -> None:
    """A config saved as UTF-16 (Notepad's "Unicode"), with its byte order mark or
    without, is one line saying so."""
    path = tmp_path / "config.toml"
    data = BUNDLED.encode(encoding)
    if encoding == "utf-16":
        assert data[:2] in (b"\xff\xfe", b"\xfe\xff")
    path.write_bytes(data)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.problems == ["file: the file is UTF-16: save it as UTF-8"]


def test_the_rule_options_the_config_gives_start_the_lobby_and_reach_the_game(
    tmp_path: Path,
) -> None:
    """Every rule option check-config accepts is what the lobby starts from (no
    ``lobby.json`` yet) and what the game is dealt with: a row's value on its row, and
    ``less_influence = true`` as the RT-8 rows of the parts the file does not give."""
    import engine
    from device.modes.hardware import lobby_choices

    text = edit("target_points = 3", "target_points = 5\nless_influence = true\n"
                "li_joker_seven = false").replace("slap_timeout_s = 8", "slap_timeout_s = 15\n"
                                                  "false_slap_penalty = 0")
    assert check_config(text) == []
    choices, warning = lobby_choices(parse_config(text), tmp_path)
    assert warning is None
    rot = choices.game_options("right-on-time")
    assert rot == {"target_points": 5, "li_du_bist_left": True, "li_joker_seven": False,
                   "li_higher_on_top": True}
    assert choices.game_options("riiing") == {"hand_size": 7, "slap_timeout_s": 15,
                                              "false_slap_penalty": 0}
    game = engine.get_game("right-on-time")
    dealt = game.position_json(game.new(4, 0, rot))["options"]
    assert dealt["target_points"] == 5 and dealt["li_higher_on_top"] is True


def test_every_rule_problem_is_its_own_line_naming_the_option() -> None:
    """Two bad options of one game give two lines, each starting with its key path."""
    problems = check_config(edit("target_points = 3", 'target_points = "5"\nless_influence = 1'))
    assert problems == [
        "rules.right-on-time.target_points: expected a whole number, got the text '5'",
        "rules.right-on-time.less_influence: expected true or false, got 1",
    ]
