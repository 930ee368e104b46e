"""Hand screens: every handheld display is a luma device.

A luma device is "a thing you give a PIL image to": ``display(image)``, ``width``,
``height``, ``size``, ``mode`` (docs/architecture.md, "Seams").  :func:`open_hand_display` builds
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

An I2C display's bus is opened as its adapter allows (:func:`_open_i2c`): an adapter with
plain I2C transfers (``I2C_FUNC_I2C``: a Pi's) gets each frame as one ``I2C_RDWR`` transfer
through luma's own interface; an SMBus-only one (the kernel's ``i2c-stub``) gets it as
32-byte SMBus I2C-block writes; one offering neither is refused with one line naming its
functionality word (docs/hardware-facts.md, "i2c-stub").

Opened devices get ``persist = True`` so luma's exit hook does not blank them.  luma's
SSD1306/SH1106 resend the whole ~1 KiB frame on every ``display()`` (docs/hardware-facts.md,
"luma.oled"; about 23 ms per frame at 400 kHz I2C), so wrap each in :class:`ChangedOnly`,
which sends a frame only when the image changed.

OS and luma errors become :class:`~drivers.errors.DriverError` lines naming the seat, the
kind, the bus and the address, with the fix when known, e.g.
``seat 3 OLED ssd1306 at i2c-4 0x3C: /dev/i2c-4 not found; enable the bus ...``.

:func:`open_hand_display` is synchronous: its device's ``display()`` runs the whole
transfer on the caller's thread (23 ms per frame at 400 kHz I2C) and raises when the bus
fails; fine for dummy screens and tools.  The console opens its wired OLEDs through
:class:`HandDisplays` instead: one writer thread per I2C bus / SPI port
(:mod:`drivers.i2c_writer`), so ``display()`` returns at once and never runs a transfer on
the loop thread before the table's flip (docs/hardware-facts.md, "luma.oled"); a display that
is missing or fails is reported through ``on_gone(seat, reason)`` once, retried at a
bounded rate, rebuilt (its init sequence sent again) and reported through
``on_back(seat)`` when it answers again; every present one is refreshed every few seconds
(its init sequence and frame again, for a panel that lost power between frames), and one
whose writes fail often is reported through ``on_noisy(seat, reason)`` /
``on_quiet(seat)`` (:mod:`drivers.i2c_writer`).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, cast, runtime_checkable

import luma.core.error  # type: ignore[import-untyped]
import smbus2
from luma.core.device import dummy  # type: ignore[import-untyped]
from luma.core.interface.serial import i2c, spi  # type: ignore[import-untyped]
from PIL import Image

from drivers.clock import Clock, MonotonicClock
from drivers.closing import ClosesOnExit
from drivers.errors import (
    DeviceUnavailableError,
    DriverClosedError,
    DriverError,
    DriverValueError,
)
from drivers.frames import check_frame
from drivers.i2c_writer import (
    MAX_RETRY_NS,
    REFRESH_NS,
    RETRY_NS,
    BackCallback,
    BusWriter,
    GoneCallback,
    NoisyCallback,
    QuietCallback,
    check_refresh,
    check_retry,
)
from drivers.values import is_int

__all__ = [
    "CHIP_SIZES",
    "HAND_DISPLAY_KINDS",
    "NOP",
    "ChangedOnly",
    "HandDisplayKind",
    "HandDisplays",
    "LumaDevice",
    "OpenSerial",
    "check_hand_display",
    "describe_hand_display",
    "display_data",
    "open_hand_display",
]

log = logging.getLogger(__name__)

I2C_ADDRESSES = (0x3C, 0x3D)
"""The only addresses an SSD1306/SH1106 answers on (SA0 jumper low/high)."""

SPI_SPEEDS_HZ = tuple(int(mhz * 1_000_000) for mhz in (0.5, 1, 2, 4, 8, 16, 20, 24, 28, 32))
"""SPI clock rates luma's ``spi`` accepts (it asserts on others), up to what the chips take."""

CHIP_SIZES: Mapping[str, tuple[tuple[int, int], ...]] = {
    "ssd1306": ((128, 64), (128, 32), (96, 16), (64, 48), (64, 32)),
    "sh1106": ((128, 128), (128, 64), (128, 32)),
}
"""``(width, height)`` before rotation each chip driver of luma.oled 3.16 supports (its
constructors' settings tables; others raise ``DeviceDisplayModeError``)."""

NOP = 0xE3
"""The no-operation command of the SSD1306 and the SH1106 (both datasheets' command tables:
E3h).  :class:`HandDisplays` sends it to ask whether a gone panel answers again before it
builds a luma device anew (each construction registers an ``atexit`` hook for good)."""

DISPLAY_OFF = 0xAE
"""The display-off command of the SSD1306 and the SH1106 (both datasheets: AEh; luma's
``const.DISPLAYOFF``).  luma's init sequence starts with it; a refresh leaves it out, so a
healthy panel does not blink (:meth:`_OledLink.refresh`)."""

OpenSerial = Callable[[int, str, Mapping[str, object]], Any]
"""``open_serial(seat, name, params)``: open the luma serial interface (``command(*cmd)``,
``data(bytes)``, ``cleanup()``) for checked ``params`` (``bus``, ``port``, ``address`` or
``device``, ``dc_pin``, ``reset_pin``, ``speed_hz``); ``name`` e.g. ``"OLED ssd1306 at
i2c-4 0x3C"`` for messages.  Raises :class:`~drivers.errors.DeviceUnavailableError` when
the bus cannot be opened.  The default opens luma's ``i2c`` / ``spi``; tests pass one that
wraps a fake smbus in luma's ``i2c(bus=...)``."""


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


class _Collect:
    """A luma serial interface that keeps the display data it is sent (:func:`display_data`)."""

    def __init__(self) -> None:
        self.data_bytes = bytearray()

    def command(self, *cmd: int) -> None:
        """Commands are not display data."""

    def data(self, data: list[int]) -> None:
        """Keep ``data``."""
        self.data_bytes += bytes(data)

    def cleanup(self) -> None:
        """Nothing to release."""


def display_data(kind: str, image: Any) -> bytes:
    """The display data luma.oled's controller ``kind`` (``"ssd1306"``, ``"sh1106"``)
    sends for the 128x64 mode ``"1"`` PIL ``image``: its whole frame, in the order it goes
    on the bus (what a bus or a stub chip must have received).  Raises what
    :func:`open_hand_display` raises for a bad ``kind``."""
    collect = _Collect()
    device = open_hand_display(0, kind, serial_interface=collect)
    collect.data_bytes.clear()  # the init sequence's data, if any
    device.display(image)
    return bytes(collect.data_bytes)


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
        check_frame(image, self.size, self.mode, name=self.name, seat=self.seat)
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
        if not is_int(level) or not 0 <= level <= 255:
            raise DriverValueError(
                self.name, f"contrast must be an int 0..255, got {level!r}", seat=self.seat
            )
        self._call("contrast", lambda: self.device.contrast(level))

    def cleanup(self) -> None:
        """luma ``cleanup``: blank unless ``persist``, then release the bus."""
        self._call("cleanup", lambda: self.device.cleanup())

    def __repr__(self) -> str:
        """``<ChangedOnly seat 2 OLED ... sent=3 skipped=5>``."""
        where = self.name if self.seat is None else f"seat {self.seat + 1} {self.name}"
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


class HandDisplays(ClosesOnExit):
    """Every seat's hand screen for the console; wired OLEDs are written off the loop thread.

    ``on_gone(seat, reason)`` / ``on_back(seat)``: called on a writer thread when a wired
    OLED stops answering (or is missing when first tried; ``reason`` one line naming seat,
    controller, bus, port, address and the fix) and when it answers again (its newest frame
    already sent whole); each report is made once per change.  ``on_noisy(seat, reason)`` /
    ``on_quiet(seat)``: called on a writer thread when a wired OLED's writes fail often
    (``reason`` one line with the advice: check the wiring, run I2C at 100 kHz) and when it
    has been healthy again for a while (:mod:`drivers.i2c_writer`).  ``clock``: the
    :class:`~drivers.clock.Clock` that times retries and refreshes (default
    :class:`~drivers.clock.MonotonicClock`); ``retry_ns`` / ``max_retry_ns``: ``int`` ns, the
    first and the longest wait between tries of a gone display (1 s, doubling to 5 s);
    ``refresh_ns``: ``int`` ns between a present display's refreshes (init sequence and
    frame again, 3 s); ``thread``: False starts no writer threads, :meth:`run_once` then
    does one pass of every writer on the caller's thread (tests with a fake clock);
    ``open_serial``: how a bus is opened (:data:`OpenSerial`; default luma's
    ``i2c``/``spi``).

    :meth:`open` returns a luma device: for ``ssd1306``/``sh1106`` a
    :class:`~drivers.i2c_writer.QueuedDisplay` whose ``display()`` returns at once (one
    :class:`~drivers.i2c_writer.BusWriter` per ``/dev/i2c-N`` or SPI port: the displays of
    a bus share its thread, each TCA9548A channel is a bus of its own), for ``dummy`` the
    plain luma dummy device.  Nothing is opened or started before the first :meth:`open`;
    :meth:`close` stops every writer (idempotent).  Raises
    :class:`~drivers.errors.DriverValueError` for a bad retry policy or refresh period.
    """

    def __init__(
        self,
        *,
        on_gone: GoneCallback | None = None,
        on_back: BackCallback | None = None,
        on_noisy: NoisyCallback | None = None,
        on_quiet: QuietCallback | None = None,
        clock: Clock | None = None,
        retry_ns: int = RETRY_NS,
        max_retry_ns: int = MAX_RETRY_NS,
        refresh_ns: int = REFRESH_NS,
        thread: bool = True,
        open_serial: OpenSerial | None = None,
    ) -> None:
        check_retry("hand displays", retry_ns, max_retry_ns)
        check_refresh("hand displays", refresh_ns)
        self.clock: Clock = clock if clock is not None else MonotonicClock()
        self._new_writer = partial(
            BusWriter, clock=self.clock, on_gone=on_gone, on_back=on_back, on_noisy=on_noisy,
            on_quiet=on_quiet, retry_ns=retry_ns, max_retry_ns=max_retry_ns,
            refresh_ns=refresh_ns, thread=thread,
        )
        """A bus's writer (``self._new_writer(bus)``) with this object's callbacks and policy."""
        self._open_serial: OpenSerial = open_serial if open_serial is not None else _open_bus
        self._lock = threading.Lock()
        self._writers: dict[str, BusWriter] = {}
        self._devices: dict[int, Any] = {}
        self._names: dict[int, str] = {}
        self._places: dict[tuple[object, ...], int] = {}
        self._closed = False

    @property
    def writers(self) -> Mapping[str, BusWriter]:
        """The bus writers by bus name (``"i2c-4"``, ``"spi0"``), one per bus in use."""
        with self._lock:
            return dict(self._writers)

    @property
    def devices(self) -> Mapping[int, Any]:
        """The opened hand screens by seat."""
        with self._lock:
            return dict(self._devices)

    def open(self, seat: int, kind: str, **params: object) -> Any:
        """Open seat ``seat``'s hand screen: ``kind`` and ``params`` as :func:`open_hand_display`.

        Never touches the bus itself: a wired OLED is first tried by its writer, and a
        missing one is reported through ``on_gone``, not raised.  Returns the luma device
        (``display(image)``, ``width``, ``height``, ``size``, ``mode``).  Raises
        :class:`~drivers.errors.DriverValueError` for an unknown kind, a bad parameter, a
        size the chip does not support, a seat opened twice or a display (bus and address)
        given to two seats, and :class:`~drivers.errors.DriverClosedError` after
        :meth:`close`.
        """
        spec, p = _check(seat, kind, params)
        where = _label(kind, p)
        bus, place = _place(kind, p)
        with self._lock:
            if self._closed:
                raise DriverClosedError(where, "used after close()", seat=seat)
            if seat in self._names:
                raise DriverValueError(
                    where, f"this seat already has a hand display ({self._names[seat]})", seat=seat
                )
            other = self._places.get(place)
            if other is not None:
                raise DriverValueError(
                    where,
                    f"this display is already seat {other}'s (one display per seat)",
                    seat=seat,
                )
            if kind == "dummy":
                device = spec.opener(seat, p)
                device.persist = True
            else:
                writer = self._writers.get(bus)
                if writer is None:
                    writer = self._new_writer(bus)
                    self._writers[bus] = writer
                link = _OledLink(seat, kind, p, where, self._open_serial)
                device = writer.add(seat, where, link, _rotated_size(p))
            self._devices[seat] = device
            self._names[seat] = where
            self._places[place] = seat
        return device

    def run_once(self) -> int | None:
        """One pass of every writer on the caller's thread (made with ``thread=False``).

        Returns the earliest next retry time (``int`` ns of :attr:`clock`) or ``None``.
        Raises as :meth:`drivers.i2c_writer.BusWriter.run_once`.
        """
        times = [t for w in self.writers.values() if (t := w.run_once()) is not None]
        return min(times) if times else None

    def flush(self, timeout_s: float = 1.0) -> bool:
        """Wait until every present display's newest frame went out; False on timeout.

        ``timeout_s``: seconds, per writer.  See
        :meth:`drivers.i2c_writer.BusWriter.flush`.
        """
        return all([w.flush(timeout_s) for w in self.writers.values()])

    def close(self) -> None:
        """Stop and join every writer, release the buses; idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            writers = list(self._writers.values())
        for writer in writers:
            writer.close()

    def __repr__(self) -> str:
        """``<HandDisplays 3 seats on i2c-1, i2c-4>``."""
        with self._lock:
            if self._closed:
                return "<HandDisplays closed>"
            buses = ", ".join(self._writers) or "no bus"
            return f"<HandDisplays {len(self._devices)} seats on {buses}>"


class _OledLink:
    """How a writer reaches one ssd1306/sh1106 (a :class:`drivers.i2c_writer.PanelLink`).

    Keeps one serial interface for every rebuild (docs/hardware-facts.md, "luma.oled": recover
    by building the luma device anew on the same serial interface); one it opened itself
    is dropped and reopened only when the bus node itself fails (not a chip's NAK).  The
    luma device is built on a :class:`_Recorder` around it, which keeps the command blocks
    luma's constructor sends before its first frame data (the init sequence and the
    contrast): :meth:`refresh` sends them again, and the bytes of the frame it refreshed
    last, so a refresh of an unchanged picture (the idle case) sends those bytes again
    without luma's pixel conversion (measured on a desktop with luma's noop interface: a
    refresh that converts 0.3-0.6 ms of CPU, a replay about 0.04 ms).
    """

    def __init__(
        self, seat: int, kind: str, p: dict[str, object], where: str, open_serial: OpenSerial
    ) -> None:
        self._seat = seat
        self._kind = kind
        self._p = p
        self._where = where
        self._open_serial = open_serial
        self._given = p["serial_interface"]
        self._serial: Any = self._given
        self._recorder: _Recorder | None = None
        self._replay: tuple[bytes, tuple[tuple[bool, tuple[int, ...]], ...]] | None = None

    def probe(self) -> None:
        """Open the bus if needed and send :data:`NOP`; raise DeviceUnavailableError if not."""
        if self._serial is None:
            self._serial = self._open_serial(self._seat, self._where, self._p)
        try:
            self._serial.command(NOP)
        except luma.core.error.DeviceNotFoundError as exc:
            raise self._absent() from exc
        except (luma.core.error.Error, OSError) as exc:
            self.release()
            raise DeviceUnavailableError(
                self._where, f"bus failed ({_flat(exc)}) — check its cable", seat=self._seat
            ) from exc

    def build(self) -> Any:
        """Build the luma device anew (its init sequence); ``persist`` set True."""
        chip = _chip_class(self._kind)
        p = self._p
        recorder = _Recorder(self._serial)
        try:
            device = chip(recorder, width=p["width"], height=p["height"], rotate=p["rotate"])
        except luma.core.error.DeviceNotFoundError as exc:
            raise self._absent() from exc
        except (luma.core.error.Error, OSError) as exc:
            raise DeviceUnavailableError(
                self._where, f"init failed ({_flat(exc)}) — check its cable", seat=self._seat
            ) from exc
        device.persist = True
        self._recorder = recorder
        self._replay = None
        return device

    def refresh(self, device: Any, image: Image.Image) -> None:
        """Send the recorded init blocks again, the first without its leading
        :data:`DISPLAY_OFF` (a lit panel stays lit), then ``image`` whole (luma's
        ``display``: the address window, 1024 data bytes for 128x64), then display on
        (luma's ``show``).  For an SSD1306 128x64 on I2C 1134 bytes on the bus, about 26 ms
        at 400 kHz (:mod:`drivers.i2c_writer`).  The frame's bytes are those luma sent for
        the same ``image`` at the last refresh when there was one (replayed as they were),
        else luma's ``display`` converts and sends it.  Raises luma/OS errors as luma
        does."""
        recorder = self._recorder
        for block in recorder.init if recorder is not None else ():
            sent = block[1:] if block[:1] == (DISPLAY_OFF,) else block
            if sent:
                device.command(*sent)
        key = image.tobytes()
        if recorder is not None and self._replay is not None and self._replay[0] == key:
            for is_data, payload in self._replay[1]:
                if is_data:
                    recorder.data(list(payload))
                else:
                    recorder.command(*payload)
        elif recorder is not None:
            self._replay = None
            with recorder.capture() as calls:
                device.display(image)
            self._replay = (key, tuple(calls))
        else:
            device.display(image)
        device.show()

    def release(self) -> None:
        """Release a serial interface this link opened; idempotent, never raises."""
        if self._given is None and self._serial is not None:
            _quiet_cleanup(self._serial)
            self._serial = None

    def _absent(self) -> DeviceUnavailableError:
        """No chip answers: "not found — check its cable, ..." with the bus's hint."""
        if self._p.get("bus") == "spi":
            problem = "not answering — check its cable, its power and the DC/RST pins"
        else:
            problem = "not found — check its cable, its power and the address jumper (0x3C/0x3D)"
        return DeviceUnavailableError(self._where, problem, seat=self._seat)


class _Recorder:
    """A luma serial interface around ``serial`` that passes every call on and keeps the
    command blocks sent before the first ``data()`` call (:attr:`init`: a luma.oled
    constructor's init sequence and contrast, and the address window of its blank first
    frame); inside :meth:`capture` it also lists every call made.

    luma.oled's ssd1306/sh1106 send their whole init sequence only in the constructor
    (``luma/oled/device/__init__.py``); recording it at the serial interface replays exactly
    what the installed luma sends, for each chip and size, without copying its tables.
    """

    def __init__(self, serial: Any) -> None:
        self.serial = serial
        self.init: tuple[tuple[int, ...], ...] = ()
        self._in_init = True
        self._calls: list[tuple[bool, tuple[int, ...]]] | None = None

    @contextlib.contextmanager
    def capture(self) -> Iterator[list[tuple[bool, tuple[int, ...]]]]:
        """Within the block, list every call as ``(is_data, bytes as ints)``; the list
        is complete when the block ends without an error."""
        calls: list[tuple[bool, tuple[int, ...]]] = []
        self._calls = calls
        try:
            yield calls
        finally:
            self._calls = None

    def command(self, *cmd: int) -> None:
        """Record (before the first data; in :meth:`capture`) and send one command block."""
        if self._in_init:
            self.init = (*self.init, tuple(cmd))
        if self._calls is not None:
            self._calls.append((False, tuple(cmd)))
        self.serial.command(*cmd)

    def data(self, data: Any) -> None:
        """Send display data (recorded in :meth:`capture`); the init sequence ends here."""
        self._in_init = False
        if self._calls is not None:
            self._calls.append((True, tuple(data)))
        self.serial.data(data)

    def cleanup(self) -> None:
        """Release the wrapped interface (luma's ``cleanup``)."""
        self.serial.cleanup()


def _place(kind: str, p: Mapping[str, object]) -> tuple[str, tuple[object, ...]]:
    """The writer's bus name and the display's place on it, for ``kind`` and checked ``p``.

    I2C: ``("i2c-4", ("i2c-4", 0x3C))``; SPI: ``("spi0", ("spi0", 1))`` (chip select);
    a given serial interface is a bus of its own; a dummy has no bus (and no place anyone
    else can take).
    """
    serial = p.get("serial_interface")
    if kind == "dummy":
        return "", ("dummy", object())
    if serial is not None:
        bus = f"{type(serial).__name__}@{id(serial):x}"
        return bus, (bus,)
    if p["bus"] == "spi":
        bus = f"spi{p['port']}"
        return bus, (bus, p["device"])
    bus = f"i2c-{p['port']}"
    return bus, (bus, p["address"])


def _rotated_size(p: Mapping[str, object]) -> tuple[int, int]:
    """``(width, height)`` of the frames after ``rotate`` quarter turns (as luma's)."""
    width, height = cast(int, p["width"]), cast(int, p["height"])
    return (height, width) if p["rotate"] in (1, 3) else (width, height)


def _flat(exc: BaseException) -> str:
    """``str(exc)`` (or its type's name) on one line."""
    return " ".join((str(exc) or type(exc).__name__).split())


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
    if not is_int(seat) or seat < 0:
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
        if not (is_int(value) and value > 0):
            raise bad(f"{name} must be a positive int, got {value!r}")
    if merged["rotate"] not in (0, 1, 2, 3) or isinstance(merged["rotate"], bool):
        raise bad(f"rotate must be 0, 1, 2 or 3 (quarter turns), got {merged['rotate']!r}")
    if kind == "dummy":
        if merged["mode"] not in ("1", "L", "RGB"):
            raise bad(f"mode must be '1', 'L' or 'RGB', got {merged['mode']!r}")
        return spec, merged
    size = (merged["width"], merged["height"])
    if size not in CHIP_SIZES[kind]:
        shown = ", ".join(f"{w}x{h}" for w, h in CHIP_SIZES[kind])
        raise bad(f"size {size[0]}x{size[1]} is not one the {kind} supports ({shown})")
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
        if not (is_int(value) and value >= 0):
            raise bad(f"{name} must be an int >= 0, got {value!r}")
    if bus == "i2c":
        merged["address"] = _address(merged["address"], bad)
    elif merged["speed_hz"] not in SPI_SPEEDS_HZ or isinstance(merged["speed_hz"], bool):
        raise bad(f"speed_hz must be one of {', '.join(map(str, SPI_SPEEDS_HZ))}")
    return spec, merged



def _address(value: object, bad: Callable[[str], DriverValueError]) -> int:
    """Parse an I2C address (``0x3C``, ``60`` or ``"0x3C"``) and check the chip allows it."""
    address: object = value
    if isinstance(value, str):
        try:
            address = int(value, 0)
        except ValueError:
            address = None
    if is_int(address) and address in I2C_ADDRESSES:
        return address
    shown = f"0x{value:02X}" if is_int(value) else repr(value)
    raise bad(f"address must be 0x3C or 0x3D, got {shown}")


def _open_dummy(seat: int, p: dict[str, object]) -> Any:
    """Open a ``luma.core.device.dummy`` (never fails for checked params)."""

    return dummy(width=p["width"], height=p["height"], rotate=p["rotate"], mode=p["mode"])


def _oled_opener(kind: str) -> Callable[[int, dict[str, object]], Any]:
    """Return the opener for luma.oled chip ``kind`` (``"ssd1306"`` / ``"sh1106"``)."""

    def open_oled(seat: int, p: dict[str, object]) -> Any:
        chip = _chip_class(kind)
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


def _chip_class(kind: str) -> Any:
    """luma.oled's device class for chip ``kind`` (``"ssd1306"`` / ``"sh1106"``).

    Imported here, not at the top: importing luma.oled starts luma.core.virtual's 4-thread
    pool, and ``import drivers`` starts no thread.
    """
    import luma.oled.device  # type: ignore[import-untyped]

    return getattr(luma.oled.device, kind)


def _open_bus(seat: int, where: str, p: Mapping[str, object]) -> Any:
    """Open the luma I2C or SPI serial interface for checked params ``p``."""

    port = p["port"]
    if p["bus"] == "i2c":
        return _open_i2c(seat, where, cast(int, port), cast(int, p["address"]))
    return _open_explained(
        lambda: spi(
            port=port,
            device=p["device"],
            gpio_DC=p["dc_pin"],
            gpio_RST=p["reset_pin"],
            bus_speed_hz=p["speed_hz"],
        ),
        where, seat, f"/dev/spidev{port}.{p['device']}",
        (
            (ImportError,
             "SPI needs the spidev and RPi.GPIO modules ({exc}); install spidev and"
             " rpi-lgpio (Pi 5) or RPi.GPIO"),
            (luma.core.error.DeviceNotFoundError, "{node} not found; enable SPI (dtparam=spi=on)"),
            ((luma.core.error.Error, OSError, RuntimeError), "cannot open {node} ({exc})"),
        ),
    )


_Advice = tuple[type[BaseException] | tuple[type[BaseException], ...], str]
"""An error a bus's opener may raise, and what to say: ``"{node} not found; ..."``
(``{node}``: the device node, ``{exc}``: the error)."""

_I2C_ADVICE: tuple[_Advice, ...] = (
    (luma.core.error.DeviceNotFoundError,
     "{node} not found; enable the bus (dtparam=i2c_arm=on, or the i2c-mux /"
     " i2c-gpio overlay for more buses)"),
    (luma.core.error.DevicePermissionError,
     "permission denied on {node}; add the user to group i2c"),
    ((luma.core.error.Error, OSError, ImportError), "cannot open {node} ({exc})"),
)
"""What to say when ``/dev/i2c-N`` cannot be opened (:func:`_open_explained`)."""


def _open_i2c(seat: int, where: str, port: int, address: int) -> Any:
    """Open ``/dev/i2c-<port>`` for the panel at ``address`` as the adapter allows.

    The adapter's functionality word (smbus2's ``SMBus.funcs``, the ``I2C_FUNCS`` ioctl)
    decides: with ``I2C_FUNC_I2C`` (a Pi's bcm2835, its i2c-gpio buses and TCA9548A
    channels) luma's own managed interface, which sends each frame as one ``I2C_RDWR``
    transfer of up to 4 KiB; without it but with ``I2C_FUNC_SMBUS_WRITE_I2C_BLOCK`` (an
    SMBus-only adapter such as the kernel's ``i2c-stub``) luma's interface on a bus this
    function opened, which sends frames as SMBus I2C-block writes of 32 bytes (register
    0x40; commands go as such writes to register 0x00 either way) and whose ``cleanup()``
    closes that bus.  Plain SMBus block writes would not do: they put a count byte before
    the data, which the controller would take for pixels.  Which of the two is used is
    logged once per bus (INFO).  Returns the luma serial interface.

    Raises :class:`~drivers.errors.DeviceUnavailableError` naming seat, kind, bus and
    address: the node missing or not permitted (with the fix), or an adapter that offers
    neither (its functionality word in the line).
    """
    node = f"/dev/i2c-{port}"
    bus = _open_explained(lambda: _smbus(port), where, seat, node, _I2C_ADVICE)
    try:
        funcs = int(bus.funcs)
    except (AttributeError, TypeError, ValueError):
        funcs = 0
    if funcs & smbus2.I2cFunc.I2C:
        bus.close()
        serial = _open_explained(
            lambda: i2c(port=port, address=address), where, seat, node, _I2C_ADVICE
        )
        _log_path(node, "plain I2C: each frame one I2C_RDWR transfer")
        return serial
    if funcs & smbus2.I2cFunc.SMBUS_WRITE_I2C_BLOCK:
        _log_path(
            node,
            f"SMBus only (functionality 0x{funcs:08X}, no I2C_FUNC_I2C): frames as 32-byte"
            " SMBus I2C-block writes",
        )
        return _OwnedBusI2C(bus, address)
    _quiet_close(bus)
    raise DeviceUnavailableError(
        where,
        f"{node} offers neither plain I2C transfers nor SMBus I2C-block writes (functionality"
        f" 0x{funcs:08X}); wire the display to another I2C bus",
        seat=seat,
    )


def _smbus(port: int) -> Any:
    """``smbus2.SMBus(port)``, its open errors as luma's ``i2c`` raises them (a missing
    node: ``DeviceNotFoundError``; no permission: ``DevicePermissionError``)."""
    try:
        return smbus2.SMBus(port)
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            raise luma.core.error.DeviceNotFoundError(
                f"I2C device not found: {exc.filename}"
            ) from exc
        if exc.errno in (errno.EPERM, errno.EACCES):
            raise luma.core.error.DevicePermissionError(
                f"I2C device permission denied: {exc.filename}"
            ) from exc
        raise


_logged_paths: set[tuple[str, str]] = set()
_logged_lock = threading.Lock()


def _log_path(node: str, how: str) -> None:
    """Log (INFO) how frames go to ``node``, once per node and way in this process."""
    with _logged_lock:
        if (node, how) in _logged_paths:
            return
        _logged_paths.add((node, how))
    log.info("OLEDs on %s: %s", node, how)


def _quiet_close(bus: Any) -> None:
    """Close an smbus2 bus; its own error would hide the one being reported."""
    try:
        bus.close()
    except OSError:
        return


class _OwnedBusI2C:
    """luma's I2C interface on an SMBus-only adapter: luma's ``i2c(bus=...)`` (frames as
    32-byte SMBus I2C-block writes) on ``bus``, an smbus2 bus this object owns:
    :meth:`cleanup` closes it (luma's own leaves a given bus open)."""

    def __init__(self, bus: Any, address: int) -> None:
        self._bus = bus
        self._serial = i2c(bus=bus, address=address)

    def command(self, *cmd: int) -> None:
        """Send one command block (at most 32 bytes; luma's ``command``)."""
        self._serial.command(*cmd)

    def data(self, data: Any) -> None:
        """Send display data in 32-byte blocks (luma's ``data``)."""
        self._serial.data(data)

    def cleanup(self) -> None:
        """Close the bus; raises ``OSError`` as ``SMBus.close`` does."""
        self._bus.close()


def _open_explained(
    opener: Callable[[], Any], where: str, seat: int, node: str, advice: tuple[_Advice, ...]
) -> Any:
    """``opener()``; an error it raises that ``advice`` names (the first entry it matches,
    as ``except`` clauses in order) becomes :class:`~drivers.errors.DeviceUnavailableError`
    for ``where`` and ``seat`` with that entry's words; any other error propagates."""
    caught = tuple(
        kind for kinds, _ in advice for kind in (kinds if isinstance(kinds, tuple) else (kinds,))
    )
    try:
        return opener()
    except caught as exc:
        for kinds, words in advice:
            if isinstance(exc, kinds):
                raise DeviceUnavailableError(
                    where, words.format(node=node, exc=exc), seat=seat
                ) from exc
        raise


def _quiet_cleanup(serial: Any) -> None:
    """Release a serial interface after a failed open; its own error would hide the first."""
    try:
        serial.cleanup()
    except (OSError, DriverError, AttributeError, luma.core.error.Error):
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
