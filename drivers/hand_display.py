"""Hand screens: every handheld display is a luma device.

A luma device is "a thing you give a PIL image to": ``display(image)``, ``width``,
``height``, ``size``, ``mode`` (architecture.md, "Seams").  :func:`open_hand_display` builds
one from a kind name and its parameters (the config's table), from :data:`HAND_DISPLAY_KINDS`:

=========  ==============================================================================
kind       what
=========  ==============================================================================
dummy      ``luma.core.device.dummy``: keeps the last image in ``.image`` (tests, simulator,
           headless).  Params: ``width`` (128), ``height`` (64), ``rotate`` (0), ``mode``
           (``"1"``).
ssd1306    luma.oled SSD1306 128x64 OLED.  Params: ``bus`` (``"i2c"`` or ``"spi"``),
           ``width``, ``height``, ``rotate``; I2C: ``port`` (1 = ``/dev/i2c-1``),
           ``address`` (``0x3C`` or ``0x3D``); SPI: ``port`` (0), ``device`` (0 =
           ``/dev/spidev0.0``), ``dc_pin`` (24), ``reset_pin`` (25), ``speed_hz``
           (8_000_000); or ``serial_interface``: a ready luma serial interface (e.g.
           ``luma.core.interface.serial.noop()`` in tests) instead of a bus.
sh1106     luma.oled SH1106 128x64 OLED; the same params as ssd1306.
=========  ==============================================================================

Opened devices get ``persist = True`` so luma's exit hook does not blank them.  luma's
SSD1306/SH1106 resend the whole ~1 KiB frame on every ``display()`` (hardware-facts.md,
"luma.oled"; about 23 ms per frame at 400 kHz I2C), so wrap each in :class:`ChangedOnly`,
which sends a frame only when the image changed.

OS and luma errors become :class:`~drivers.errors.DriverError` lines naming the seat, the
kind, the bus and the address, with the fix when known, e.g.
``seat 3 OLED ssd1306 at i2c-4 0x3C: /dev/i2c-4 not found; enable the bus ...``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeGuard, runtime_checkable

import luma.core.error  # type: ignore[import-untyped]
from luma.core.device import dummy  # type: ignore[import-untyped]
from luma.core.interface.serial import i2c, spi  # type: ignore[import-untyped]
from PIL import Image

from drivers.errors import DeviceUnavailableError, DriverError, DriverValueError

__all__ = [
    "HAND_DISPLAY_KINDS",
    "ChangedOnly",
    "HandDisplayKind",
    "LumaDevice",
    "check_hand_display",
    "describe_hand_display",
    "open_hand_display",
]

I2C_ADDRESSES = (0x3C, 0x3D)
"""The only addresses an SSD1306/SH1106 answers on (SA0 jumper low/high)."""

SPI_SPEEDS_HZ = tuple(int(mhz * 1_000_000) for mhz in (0.5, 1, 2, 4, 8, 16, 20, 24, 28, 32))
"""SPI clock rates luma's ``spi`` accepts (it asserts on others), up to what the chips take."""


@runtime_checkable
class LumaDevice(Protocol):
    """The part of ``luma.core.device.device`` the project uses (all hand screens)."""

    @property
    def width(self) -> int:
        """Width in pixels."""
        ...

    @property
    def height(self) -> int:
        """Height in pixels."""
        ...

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` in pixels."""
        ...

    @property
    def mode(self) -> str:
        """PIL mode of the images it takes: ``"1"`` for the OLEDs."""
        ...

    def display(self, image: Image.Image) -> None:
        """Show ``image`` (``size`` and ``mode`` as the device's)."""
        ...


@dataclass(frozen=True, slots=True)
class HandDisplayKind:
    """One entry of :data:`HAND_DISPLAY_KINDS`.

    ``name``: the config's word; ``summary``: one line for docs and errors; ``params``:
    accepted parameter names and their defaults (``None`` = no default); ``opener``: builds
    the luma device from ``(seat, checked params)``.
    """

    name: str
    summary: str
    params: Mapping[str, object]
    opener: Callable[[int, dict[str, object]], Any]


def open_hand_display(seat: int, kind: str, **params: object) -> Any:
    """Open seat ``seat``'s hand screen: a luma device of ``kind`` with ``params``.

    ``kind``: a key of :data:`HAND_DISPLAY_KINDS`; ``params``: that kind's parameters (see
    the module docstring); unknown or inapplicable ones are refused.  The device has
    ``persist = True``.  Returns the luma device (``display(image)``, ``width``,
    ``height``, ``size``, ``mode``).

    Raises :class:`~drivers.errors.DriverValueError` for an unknown kind, parameter or bad
    value, and :class:`~drivers.errors.DeviceUnavailableError` when the bus or the chip
    cannot be reached; messages name the seat, kind, bus and address.
    """
    spec, checked = _check(seat, kind, params)
    device = spec.opener(seat, checked)
    device.persist = True
    return device


def check_hand_display(seat: int, kind: str, **params: object) -> None:
    """Validate ``kind`` and ``params`` as :func:`open_hand_display` would, touching nothing.

    For config validation before any hardware is opened.  Raises
    :class:`~drivers.errors.DriverValueError` naming the seat and the bad kind/param.
    """
    _check(seat, kind, params)


def describe_hand_display(kind: str, **params: object) -> str:
    """Name a hand screen for messages: ``"OLED ssd1306 at i2c-1 0x3C"``, ``"OLED dummy"``.

    Uses the kind's defaults for missing params; never raises for odd values.

    >>> describe_hand_display("ssd1306", port=4)
    'OLED ssd1306 at i2c-4 0x3C'
    >>> describe_hand_display("sh1106", bus="spi")
    'OLED sh1106 at spi0.0'
    """
    spec = HAND_DISPLAY_KINDS.get(kind)
    merged = dict(spec.params) if spec is not None else {}
    merged.update(params)
    return _label(kind, merged)


class ChangedOnly:
    """Wrap a luma device so ``display(image)`` reaches it only when the image changed.

    ``device``: any luma device; ``seat``/``name``: for error messages (``name`` e.g. from
    :func:`describe_hand_display`).  Acts as a luma device itself (``display``, ``width``,
    ``height``, ``size``, ``mode``, ``persist``, ``clear``, ``show``, ``hide``,
    ``contrast``, ``cleanup``).  ``frames_sent`` / ``frames_skipped`` count display calls
    forwarded / dropped as unchanged.

    ``display`` raises :class:`~drivers.errors.DriverValueError` for an image of the wrong
    size or mode and :class:`~drivers.errors.DeviceUnavailableError` when the device fails
    (cable pulled: luma raises ``DeviceNotFoundError``/``OSError``); after a failure the
    next image is sent whatever it is.
    """

    def __init__(self, device: Any, *, seat: int | None = None, name: str = "hand display") -> None:
        self.device = device
        self.seat = seat
        self.name = name
        self.frames_sent = 0
        self.frames_skipped = 0
        self._last: bytes | None = None

    @property
    def width(self) -> int:
        """Width in pixels (the wrapped device's)."""
        return int(self.device.width)

    @property
    def height(self) -> int:
        """Height in pixels (the wrapped device's)."""
        return int(self.device.height)

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` in pixels."""
        return (self.width, self.height)

    @property
    def mode(self) -> str:
        """PIL mode of the images the device takes (``"1"`` for the OLEDs)."""
        return str(self.device.mode)

    @property
    def persist(self) -> bool:
        """luma's flag: when True the exit hook leaves the screen as it is."""
        return bool(self.device.persist)

    @persist.setter
    def persist(self, value: bool) -> None:
        self.device.persist = value

    def display(self, image: Image.Image) -> None:
        """Send ``image`` to the device unless it equals the last image sent.

        ``image``: a PIL image of the device's ``size`` and ``mode``.  Errors: see the
        class docstring.
        """
        if image.size != self.size or image.mode != self.mode:
            raise DriverValueError(
                self.name,
                f"frame is {image.mode} {image.size[0]}x{image.size[1]}, "
                f"the screen takes {self.mode} {self.width}x{self.height}",
                seat=self.seat,
            )
        data = image.tobytes()
        if data == self._last:
            self.frames_skipped += 1
            return
        self._last = None
        self._call("display", lambda: self.device.display(image))
        self._last = data
        self.frames_sent += 1

    def invalidate(self) -> None:
        """Forget the last image, so the next :meth:`display` sends whatever it gets.

        For a screen that was reset or replugged.
        """
        self._last = None

    def clear(self) -> None:
        """Show a blank (all-off) frame, through :meth:`display`."""
        self.display(Image.new(self.mode, self.size))

    def show(self) -> None:
        """Switch the panel on (luma ``show``)."""
        self._call("show", lambda: self.device.show())

    def hide(self) -> None:
        """Switch the panel off, keeping its memory (luma ``hide``)."""
        self._call("hide", lambda: self.device.hide())

    def contrast(self, level: int) -> None:
        """Set the contrast, ``level`` an ``int`` 0..255; raises DriverValueError outside."""
        if not isinstance(level, int) or isinstance(level, bool) or not 0 <= level <= 255:
            raise DriverValueError(
                self.name, f"contrast must be an int 0..255, got {level!r}", seat=self.seat
            )
        self._call("contrast", lambda: self.device.contrast(level))

    def cleanup(self) -> None:
        """luma ``cleanup``: blank unless ``persist``, then release the bus."""
        self._call("cleanup", lambda: self.device.cleanup())

    def __repr__(self) -> str:
        """``<ChangedOnly seat 2 OLED ... sent=3 skipped=5>``."""
        where = self.name if self.seat is None else f"seat {self.seat} {self.name}"
        return f"<ChangedOnly {where} sent={self.frames_sent} skipped={self.frames_skipped}>"

    def _call(self, what: str, action: Callable[[], object]) -> None:
        """Run a device call, turning luma/OS failures into DeviceUnavailableError."""

        try:
            action()
        except (luma.core.error.Error, OSError) as exc:
            self._last = None
            raise DeviceUnavailableError(
                self.name, f"{what} failed ({exc}); check the cable", seat=self.seat
            ) from exc


# --- kinds ---------------------------------------------------------------------------------

_COMMON: dict[str, object] = {"width": 128, "height": 64, "rotate": 0}
_OLED: dict[str, object] = {
    **_COMMON,
    "bus": "i2c",
    "port": None,
    "address": 0x3C,
    "device": 0,
    "dc_pin": 24,
    "reset_pin": 25,
    "speed_hz": 8_000_000,
    "serial_interface": None,
}
_I2C_ONLY = ("address",)
_SPI_ONLY = ("device", "dc_pin", "reset_pin", "speed_hz")


def _label(kind: str, p: Mapping[str, object]) -> str:
    """``"OLED <kind> at <bus>"`` for messages (params already merged with defaults)."""
    if kind not in ("ssd1306", "sh1106"):
        return f"OLED {kind}"
    if p.get("serial_interface") is not None:
        return f"OLED {kind} at {type(p['serial_interface']).__name__}"
    if p.get("bus") == "spi":
        port = 0 if p.get("port") is None else p.get("port")
        return f"OLED {kind} at spi{port}.{p.get('device')}"
    port = 1 if p.get("port") is None else p.get("port")
    address = p.get("address")
    shown = f"0x{address:02X}" if isinstance(address, int) else str(address)
    return f"OLED {kind} at i2c-{port} {shown}"


def _check(
    seat: int, kind: str, params: Mapping[str, object]
) -> tuple[HandDisplayKind, dict[str, object]]:
    """Validate ``kind`` and ``params``; return the kind and the params with defaults."""
    if not isinstance(seat, int) or isinstance(seat, bool) or seat < 0:
        raise DriverValueError(f"OLED {kind}", f"seat must be an int >= 0, got {seat!r}")
    spec = HAND_DISPLAY_KINDS.get(kind)
    if spec is None:
        raise DriverValueError(
            "hand display",
            f"unknown kind {kind!r} (kinds: {', '.join(HAND_DISPLAY_KINDS)})",
            seat=seat,
        )
    merged = {**spec.params, **params}
    where = _label(kind, merged)

    def bad(problem: str) -> DriverValueError:
        return DriverValueError(where, problem, seat=seat)

    unknown = sorted(set(params) - set(spec.params))
    if unknown:
        raise bad(f"unknown parameter {unknown[0]!r} (known: {', '.join(spec.params)})")
    for name in ("width", "height"):
        value = merged[name]
        if not (_is_int(value) and value > 0):
            raise bad(f"{name} must be a positive int, got {value!r}")
    if merged["rotate"] not in (0, 1, 2, 3) or isinstance(merged["rotate"], bool):
        raise bad(f"rotate must be 0, 1, 2 or 3 (quarter turns), got {merged['rotate']!r}")
    if kind == "dummy":
        if merged["mode"] not in ("1", "L", "RGB"):
            raise bad(f"mode must be '1', 'L' or 'RGB', got {merged['mode']!r}")
        return spec, merged
    if merged["serial_interface"] is not None:
        return spec, merged
    bus = merged["bus"]
    if bus not in ("i2c", "spi"):
        raise bad(f"bus must be 'i2c' or 'spi', got {bus!r}")
    foreign = _SPI_ONLY if bus == "i2c" else _I2C_ONLY
    for name in foreign:
        if name in params:
            raise bad(f"parameter {name!r} does not apply to bus {bus!r}")
    if merged["port"] is None:
        merged["port"] = 1 if bus == "i2c" else 0
    for name in ("port", "device", "dc_pin", "reset_pin"):
        value = merged[name]
        if not (_is_int(value) and value >= 0):
            raise bad(f"{name} must be an int >= 0, got {value!r}")
    if bus == "i2c":
        merged["address"] = _address(merged["address"], bad)
    elif merged["speed_hz"] not in SPI_SPEEDS_HZ or isinstance(merged["speed_hz"], bool):
        raise bad(f"speed_hz must be one of {', '.join(map(str, SPI_SPEEDS_HZ))}")
    return spec, merged


def _is_int(value: object) -> TypeGuard[int]:
    """True for an ``int`` that is not a ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool)


def _address(value: object, bad: Callable[[str], DriverValueError]) -> int:
    """Parse an I2C address (``0x3C``, ``60`` or ``"0x3C"``) and check the chip allows it."""
    address: object = value
    if isinstance(value, str):
        try:
            address = int(value, 0)
        except ValueError:
            address = None
    if _is_int(address) and address in I2C_ADDRESSES:
        return address
    shown = f"0x{value:02X}" if _is_int(value) else repr(value)
    raise bad(f"address must be 0x3C or 0x3D, got {shown}")


def _open_dummy(seat: int, p: dict[str, object]) -> Any:
    """Open a ``luma.core.device.dummy`` (never fails for checked params)."""

    return dummy(width=p["width"], height=p["height"], rotate=p["rotate"], mode=p["mode"])


def _oled_opener(kind: str) -> Callable[[int, dict[str, object]], Any]:
    """Return the opener for luma.oled chip ``kind`` (``"ssd1306"`` / ``"sh1106"``)."""

    def open_oled(seat: int, p: dict[str, object]) -> Any:
        # Imported here: importing luma.oled starts luma.core.virtual's 4-thread pool.
        import luma.oled.device  # type: ignore[import-untyped]

        chip = getattr(luma.oled.device, kind)
        where = _label(kind, p)
        serial = p["serial_interface"]
        own_serial = serial is None
        if serial is None:
            serial = _open_bus(seat, where, p)
        try:
            return chip(serial, width=p["width"], height=p["height"], rotate=p["rotate"])
        except luma.core.error.DeviceDisplayModeError as exc:
            raise DriverValueError(
                where, f"unsupported size {p['width']}x{p['height']} ({exc})", seat=seat
            ) from exc
        except (luma.core.error.Error, OSError) as exc:
            if own_serial:
                _quiet_cleanup(serial)
            hint = (
                "check wiring, power and the address jumper (0x3C/0x3D)"
                if p["bus"] == "i2c"
                else "check wiring, power and the DC/RST pins"
            )
            raise DeviceUnavailableError(
                where, f"no display answers ({exc}); {hint}", seat=seat
            ) from exc
        except BaseException:
            if own_serial:
                _quiet_cleanup(serial)
            raise

    return open_oled


def _open_bus(seat: int, where: str, p: dict[str, object]) -> Any:
    """Open the luma I2C or SPI serial interface for checked params ``p``."""

    port = p["port"]
    if p["bus"] == "i2c":
        node = f"/dev/i2c-{port}"
        try:
            return i2c(port=port, address=p["address"])
        except luma.core.error.DeviceNotFoundError as exc:
            raise DeviceUnavailableError(
                where,
                f"{node} not found; enable the bus (dtparam=i2c_arm=on, or the i2c-mux /"
                " i2c-gpio overlay for more buses)",
                seat=seat,
            ) from exc
        except luma.core.error.DevicePermissionError as exc:
            raise DeviceUnavailableError(
                where, f"permission denied on {node}; add the user to group i2c", seat=seat
            ) from exc
        except (luma.core.error.Error, OSError, ImportError) as exc:
            raise DeviceUnavailableError(where, f"cannot open {node} ({exc})", seat=seat) from exc
    node = f"/dev/spidev{port}.{p['device']}"
    try:
        return spi(
            port=port,
            device=p["device"],
            gpio_DC=p["dc_pin"],
            gpio_RST=p["reset_pin"],
            bus_speed_hz=p["speed_hz"],
        )
    except ImportError as exc:
        raise DeviceUnavailableError(
            where,
            f"SPI needs the spidev and RPi.GPIO modules ({exc}); install spidev and"
            " rpi-lgpio (Pi 5) or RPi.GPIO",
            seat=seat,
        ) from exc
    except luma.core.error.DeviceNotFoundError as exc:
        raise DeviceUnavailableError(
            where, f"{node} not found; enable SPI (dtparam=spi=on)", seat=seat
        ) from exc
    except (luma.core.error.Error, OSError, RuntimeError) as exc:
        raise DeviceUnavailableError(where, f"cannot open {node} ({exc})", seat=seat) from exc


def _quiet_cleanup(serial: Any) -> None:
    """Release a serial interface after a failed open; its own error would hide the first."""
    try:
        serial.cleanup()
    except (OSError, DriverError, AttributeError):
        return


HAND_DISPLAY_KINDS: Mapping[str, HandDisplayKind] = {
    "dummy": HandDisplayKind(
        "dummy",
        "luma dummy device: keeps the last frame in .image (tests, simulator, headless)",
        {**_COMMON, "mode": "1"},
        _open_dummy,
    ),
    "ssd1306": HandDisplayKind(
        "ssd1306", "SSD1306 128x64 OLED on I2C or SPI (luma.oled)", _OLED, _oled_opener("ssd1306")
    ),
    "sh1106": HandDisplayKind(
        "sh1106", "SH1106 128x64 OLED on I2C or SPI (luma.oled)", _OLED, _oled_opener("sh1106")
    ),
}
"""Hand screen kinds by config name (see the module docstring for their params)."""
