"""Hand screens as luma devices: kinds by name, error lines, send-only-on-change."""

from __future__ import annotations

import importlib.util
import os
from typing import Any

import luma.core.error  # type: ignore[import-untyped]
import pytest
from luma.core.interface.serial import noop  # type: ignore[import-untyped]
from luma.core.render import canvas  # type: ignore[import-untyped]
from PIL import Image, ImageDraw

from drivers.errors import DeviceUnavailableError, DriverValueError
from drivers.hand_display import (
    HAND_DISPLAY_KINDS,
    ChangedOnly,
    LumaDevice,
    check_hand_display,
    describe_hand_display,
    open_hand_display,
)


class RecordingSerial:
    """A luma serial interface that records what a chip driver sends."""

    def __init__(self) -> None:
        self.commands: list[tuple[int, ...]] = []
        self.data_bytes: list[int] = []

    def command(self, *cmd: int) -> None:
        self.commands.append(cmd)

    def data(self, data: list[int]) -> None:
        self.data_bytes.append(len(data))

    def cleanup(self) -> None:
        return None


class AbsentChip(RecordingSerial):
    """A bus where no chip acknowledges: luma's i2c raises DeviceNotFoundError."""

    def command(self, *cmd: int) -> None:
        raise luma.core.error.DeviceNotFoundError("I2C device not found on address: 0x3C")


def _frame(x: int) -> Image.Image:
    """A 128x64 1-bit frame with one lit pixel at (x, 10)."""
    image = Image.new("1", (128, 64))
    image.putpixel((x, 10), 1)
    return image


def test_dummy_is_a_128x64_mono_luma_device() -> None:
    """kind dummy: luma dummy, mode '1', 128x64, persist set, keeps the last image."""
    device = open_hand_display(0, "dummy")
    assert (device.mode, device.size, device.persist) == ("1", (128, 64), True)
    device.display(_frame(7))
    assert device.image.getpixel((7, 10))
    assert not device.image.getpixel((8, 10))
    assert isinstance(device, LumaDevice)


@pytest.mark.parametrize("kind", ["ssd1306", "sh1106"])
def test_oled_over_noop_serial(kind: str) -> None:
    """ssd1306/sh1106 open over luma's noop interface and take 1-bit frames."""
    device = open_hand_display(2, kind, serial_interface=noop())
    assert type(device).__name__ == kind
    assert (device.mode, device.size, device.persist) == ("1", (128, 64), True)
    device.display(_frame(3))


def test_missing_i2c_bus_is_one_clear_line() -> None:
    """A missing /dev/i2c-N names seat, kind, bus and address, and says how to enable it."""
    port = 250
    if os.path.exists(f"/dev/i2c-{port}"):
        pytest.skip(f"/dev/i2c-{port} exists here")
    with pytest.raises(DeviceUnavailableError) as info:
        open_hand_display(3, "ssd1306", port=port, address=0x3C)
    text = str(info.value)
    assert text.startswith(
        "seat 4 OLED ssd1306 at i2c-250 0x3C: /dev/i2c-250 not found; enable the bus"
    )
    assert "\n" not in text
    assert isinstance(info.value, OSError)
    assert (info.value.seat, info.value.device) == (3, "OLED ssd1306 at i2c-250 0x3C")


def test_chip_that_does_not_answer() -> None:
    """A bus without the chip: 'no display answers' with the wiring/address hint."""
    with pytest.raises(DeviceUnavailableError) as info:
        open_hand_display(1, "sh1106", serial_interface=AbsentChip())
    assert str(info.value).startswith("seat 2 OLED sh1106 at AbsentChip: no display answers")
    assert "check wiring, power and the address jumper (0x3C/0x3D)" in str(info.value)


@pytest.mark.skipif(
    importlib.util.find_spec("spidev") is not None and importlib.util.find_spec("RPi") is not None,
    reason="spidev and RPi.GPIO are installed here",
)
def test_spi_without_its_modules_says_what_to_install() -> None:
    """SPI without spidev/RPi.GPIO is one line naming seat, kind, bus and the packages."""
    with pytest.raises(DeviceUnavailableError) as info:
        open_hand_display(5, "ssd1306", bus="spi", port=0, device=1)
    assert str(info.value).startswith("seat 6 OLED ssd1306 at spi0.1: SPI needs the spidev")


@pytest.mark.parametrize(
    ("kind", "params", "message"),
    [
        (
            "sh1107",
            {},
            "seat 3 hand display: unknown kind 'sh1107' (kinds: dummy, ssd1306, sh1106)",
        ),
        (
            "ssd1306",
            {"adress": 0x3C},
            "seat 3 OLED ssd1306 at i2c-1 0x3C: unknown parameter 'adress' (known: width,"
            " height, rotate, bus, port, address, device, dc_pin, reset_pin, speed_hz,"
            " serial_interface)",
        ),
        (
            "ssd1306",
            {"address": 0x27},
            "seat 3 OLED ssd1306 at i2c-1 0x27: address must be 0x3C or 0x3D, got 0x27",
        ),
        (
            "ssd1306",
            {"address": "sixty"},
            "seat 3 OLED ssd1306 at i2c-1 sixty: address must be 0x3C or 0x3D, got 'sixty'",
        ),
        (
            "sh1106",
            {"bus": "spi", "address": 0x3C},
            "seat 3 OLED sh1106 at spi0.0: parameter 'address' does not apply to bus 'spi'",
        ),
        (
            "sh1106",
            {"bus": "usb"},
            "seat 3 OLED sh1106 at i2c-1 0x3C: bus must be 'i2c' or 'spi', got 'usb'",
        ),
        ("dummy", {"rotate": 5}, "seat 3 OLED dummy: rotate must be 0, 1, 2 or 3 (quarter"),
        ("dummy", {"width": 0}, "seat 3 OLED dummy: width must be a positive int, got 0"),
        ("ssd1306", {"port": -1}, "seat 3 OLED ssd1306 at i2c--1 0x3C: port must be an int >= 0"),
        (
            "ssd1306",
            {"bus": "spi", "speed_hz": 3},
            "seat 3 OLED ssd1306 at spi0.0: speed_hz must be one of",
        ),
    ],
)
def test_bad_kind_or_params_are_one_line(kind: str, params: dict[str, Any], message: str) -> None:
    """Config mistakes are DriverValueErrors naming seat, kind, bus, address and the param."""
    with pytest.raises(DriverValueError) as info:
        check_hand_display(2, kind, **params)
    assert str(info.value).startswith(message)
    with pytest.raises(DriverValueError):
        open_hand_display(2, kind, **params)


def test_check_accepts_a_string_address_and_touches_nothing() -> None:
    """'0x3D' is a fine address; check_hand_display opens no bus (port 250 need not exist)."""
    check_hand_display(0, "ssd1306", port=250, address="0x3D")
    check_hand_display(0, "sh1106", bus="spi", port=0, device=1, speed_hz=4_000_000)


def test_describe() -> None:
    """describe_hand_display names kind, bus and address with the kind's defaults."""
    assert describe_hand_display("ssd1306") == "OLED ssd1306 at i2c-1 0x3C"
    assert describe_hand_display("sh1106", port=3, address=0x3D) == "OLED sh1106 at i2c-3 0x3D"
    assert describe_hand_display("ssd1306", bus="spi", device=1) == "OLED ssd1306 at spi0.1"
    assert describe_hand_display("dummy") == "OLED dummy"


def test_kinds_table() -> None:
    """The kinds table lists the three kinds by name."""
    assert list(HAND_DISPLAY_KINDS) == ["dummy", "ssd1306", "sh1106"]
    assert all(k == v.name for k, v in HAND_DISPLAY_KINDS.items())


def test_changed_only_skips_repeated_frames() -> None:
    """Only a frame that differs from the last one sent reaches the device; counts kept."""
    device = open_hand_display(0, "dummy")
    screen = ChangedOnly(device, seat=0, name="OLED dummy")
    screen.display(_frame(1))
    screen.display(_frame(1))
    screen.display(_frame(2))
    screen.display(_frame(2))
    screen.display(_frame(1))
    assert (screen.frames_sent, screen.frames_skipped) == (3, 2)
    assert device.image.getpixel((1, 10))
    screen.invalidate()
    screen.display(_frame(1))
    assert screen.frames_sent == 4


def test_changed_only_saves_ssd1306_bus_traffic() -> None:
    """Over an SSD1306, an unchanged frame sends no 1 KiB data block."""
    serial = RecordingSerial()
    screen = ChangedOnly(open_hand_display(1, "ssd1306", serial_interface=serial), seat=1)
    serial.data_bytes.clear()
    for x in (5, 5, 5, 6):
        screen.display(_frame(x))
    assert serial.data_bytes == [1024, 1024]


def test_changed_only_is_a_luma_device_for_canvas() -> None:
    """luma's canvas draws through ChangedOnly like through the device itself."""
    device = open_hand_display(0, "dummy")
    screen = ChangedOnly(device)
    assert isinstance(screen, LumaDevice)
    assert (screen.width, screen.height, screen.size, screen.mode) == (128, 64, (128, 64), "1")
    with canvas(screen) as draw:
        draw.rectangle((0, 0, 9, 9), fill="white")
    with canvas(screen) as draw:
        draw.rectangle((0, 0, 9, 9), fill="white")
    assert (screen.frames_sent, screen.frames_skipped) == (1, 1)
    assert device.image.getpixel((9, 9))
    screen.clear()
    assert device.image.getbbox() is None


def test_changed_only_refuses_a_wrong_frame() -> None:
    """A frame of another size or mode is a one-line DriverValueError, nothing sent."""
    screen = ChangedOnly(open_hand_display(4, "dummy"), seat=4, name="OLED dummy")
    with pytest.raises(DriverValueError) as info:
        screen.display(Image.new("L", (128, 64)))
    assert str(info.value) == "seat 5 OLED dummy: frame is L 128x64, the screen takes 1 128x64"
    with pytest.raises(DriverValueError):
        screen.display(Image.new("1", (64, 32)))
    assert screen.frames_sent == 0


class FlakyDevice:
    """A luma-like device whose bus fails once (a pulled cable), then works."""

    width, height, size, mode, persist = 128, 64, (128, 64), "1", True

    def __init__(self) -> None:
        self.shown: list[Image.Image] = []
        self.fail_next = False

    def display(self, image: Image.Image) -> None:
        if self.fail_next:
            self.fail_next = False
            raise OSError(121, "Remote I/O error")
        self.shown.append(image)


def test_changed_only_turns_bus_errors_into_driver_errors() -> None:
    """A failing display() is DeviceUnavailableError naming the seat; the frame is resent."""
    device = FlakyDevice()
    screen = ChangedOnly(device, seat=3, name="OLED ssd1306 at i2c-4 0x3C")
    device.fail_next = True
    with pytest.raises(DeviceUnavailableError) as info:
        screen.display(_frame(0))
    assert str(info.value).startswith("seat 4 OLED ssd1306 at i2c-4 0x3C: display failed")
    screen.display(_frame(0))
    assert len(device.shown) == 1
    assert screen.frames_sent == 1


def test_contrast_is_checked() -> None:
    """contrast outside 0..255 is refused before reaching the chip."""
    screen = ChangedOnly(open_hand_display(0, "ssd1306", serial_interface=RecordingSerial()))
    screen.contrast(128)
    with pytest.raises(DriverValueError, match=r"contrast must be an int 0\.\.255, got 300"):
        screen.contrast(300)


def test_frames_reach_a_png(tmp_path: Any) -> None:
    """A frame drawn with PIL arrives pixel-exact in the dummy device (saved for a look)."""
    device = open_hand_display(0, "dummy")
    image = Image.new("1", (128, 64))
    ImageDraw.Draw(image).text((4, 4), "seat 0", fill=1)
    ChangedOnly(device).display(image)
    device.image.save(tmp_path / "hand.png")
    assert Image.open(tmp_path / "hand.png").convert("1").tobytes() == image.tobytes()
