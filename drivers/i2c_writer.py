"""Wired OLED writers: one thread per I2C bus (or SPI port) sends each display's newest frame.

Why (docs/hardware-facts.md, "luma.oled"): luma's ``display()`` runs the whole transfer on the
calling thread, about 23 ms per 128x64 frame at 400 kHz I2C (92 ms at 100 kHz), and every
display on a bus shares that bus time.  Run on the device loop before the table's flip, it
would push the flip, and so the slap window's ``t0``, back by that much (docs/architecture.md,
"Slap arbitration" item 1: "Hand screens are written off the loop thread").  So a
:class:`BusWriter` owns one bus: :meth:`QueuedDisplay.display` stores the frame and returns
at once; the writer's thread sends the newest frame of each display on its bus, in turn.  A
frame that is replaced before the writer took it is dropped (``frames_dropped``); a frame
equal to the one already given is skipped (``frames_skipped``; luma's SSD1306/SH1106 resend
the whole ~1 KiB on every ``display()``, docs/hardware-facts.md).

A display's :class:`DisplayState`: ``OPENING`` (not tried yet), ``PRESENT``, ``GONE``.

- A display that cannot be reached when it is first tried (no ``/dev/i2c-N``, no chip
  answering) or that fails mid-frame (luma's I2C ``data()`` raises a plain ``OSError``,
  errno 121 or 5; docs/hardware-facts.md) becomes ``GONE``: ``on_gone(seat, reason)`` is called
  once, ``reason`` one line naming seat, controller, bus, port and address and the fix,
  e.g. ``"seat 3 OLED ssd1306 at i2c-4 0x3C: not found — check its cable, ..."``.
- A gone display is tried again at a bounded rate: ``retry_ns`` after the failure (1 s),
  then doubling up to ``max_retry_ns`` (5 s).  A try first *probes* the chip with one
  cheap command (:meth:`PanelLink.probe`, the controller's NOP); only when it answers is the
  luma device built anew on the same serial interface (:meth:`PanelLink.build`): a panel
  that lost power needs its init sequence (charge pump, display on) again, which luma sends
  only in the constructor, and every construction registers another ``atexit`` hook in
  luma that is never released (docs/hardware-facts.md).  Probing first means an unplugged
  display costs one small bus write per try and no construction at all.
- When it answers again, the newest frame is sent whole, then ``on_back(seat)`` is called.

A panel can also lose its init *without* a failed write: re-plugged, or browned out by a
supply dip, between two frames.  It comes back dark, acknowledges every later write, and
would stay dark for good.  So every present display is *refreshed* every ``refresh_ns``
(:data:`REFRESH_NS`, 3 s) since its last init, whether frames change or not
(:meth:`PanelLink.refresh`): its init sequence again, without switching the panel off (a
healthy panel does not blink), then the newest frame whole, then display on, so a panel that
forgot its init lights with the whole frame and is never shown half of one.  Reading the
controller's status instead would not do: luma's ``i2c`` interface only writes, and the
SSD1306's status byte tells at most whether the display is on (its D6 bit), not whether
the charge pump, the addressing mode or the remap survived.  The cost, counted on the
tests' fake bus under luma.oled 3.16: a 128x64 SSD1306 gets 36 command bytes in 5 writes
(init sequence, contrast, address windows, display on) and 1024 data bytes in 32 writes,
1134 bytes on the wire with each write's address and control byte, about 10,300 clocks (9
per byte, plus start and stop): about 26 ms of an I2C bus at 400 kHz every 3 s, under 1 %
of it (about 103 ms, 3.4 %, at 100 kHz); an SH1106 1166 bytes, about 27 ms.  The CPU cost
is small too: an unchanged picture's bytes are replayed, not converted again
(``drivers.hand_display``).  A display's refresh and its frames are sent by the same
thread, one after the other, so a refresh never interleaves with a frame.

A panel whose writes fail often is *noisy*: long leads, weak pull-ups or a bus clock too
fast for its wiring make transfers fail now and then (a NAK: ``OSError`` 121, Remote I/O
error; garbled or partial frames; a panel that drops out and comes back).  A failure after
the panel answered (a present display's write, or a rebuild after its probe answered) is a
*drop-out*; :data:`NOISY_FAULTS` (3) drop-outs within :data:`NOISY_WINDOW_NS` (60 s) call
``on_noisy(seat, reason)`` once, ``reason`` one line with the advice (check the wiring; on
I2C, run the bus at 100 kHz: hardware/README.md, "Long leads"); a
panel that is present with no drop-out for :data:`NOISY_WINDOW_NS` calls
``on_quiet(seat)``.  A panel that is simply unplugged is one drop-out followed by failed
probes: gone, never noisy.

Callbacks run on the writer's thread (the device makes them post ``HandheldGone`` /
``HandheldBack`` / ``HandheldNoisy`` / ``HandheldQuiet`` to its queue; drivers know no
device events).  An exception from a
callback is logged and the writer goes on (a dead writer would freeze every screen on its
bus).  The writer's clock decides the retry times; with ``thread=False`` nothing runs by
itself and :meth:`BusWriter.run_once` does one pass on the caller's thread, so tests drive
retries, refreshes and the noisy window with a :class:`~drivers.clock.FakeClock` and no
sleeping.

Explicit, idempotent :meth:`BusWriter.close` (joins the thread); no ``__del__``, no
``atexit`` of our own (docs/style.md, "drivers/").
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Any, Protocol

import luma.core.error  # type: ignore[import-untyped]
from PIL import Image

from drivers.clock import Clock, MonotonicClock
from drivers.closing import ClosesOnExit
from drivers.errors import DeviceUnavailableError, DriverClosedError, DriverError, DriverValueError
from drivers.frames import check_frame
from drivers.values import is_int

__all__ = [
    "MAX_RETRY_NS",
    "NOISY_FAULTS",
    "NOISY_WINDOW_NS",
    "REFRESH_NS",
    "RETRY_NS",
    "BackCallback",
    "BusWriter",
    "DisplayState",
    "GoneCallback",
    "NoisyCallback",
    "PanelLink",
    "QueuedDisplay",
    "QuietCallback",
    "check_refresh",
    "check_retry",
]

log = logging.getLogger(__name__)

RETRY_NS = 1_000_000_000
"""First retry of a gone display: 1 s after it failed (``int`` ns)."""

MAX_RETRY_NS = 5_000_000_000
"""Longest wait between retries: 5 s (``int`` ns); the wait doubles from :data:`RETRY_NS`."""

REFRESH_NS = 3_000_000_000
"""A present display gets its init sequence and its newest frame whole again this often
since its last init: 3 s (``int`` ns).  A panel that lost power between frames is dark at
most this long; the cost is about 26 ms of a 400 kHz bus per display (module docstring)."""

NOISY_FAULTS = 3
"""Drop-outs within :data:`NOISY_WINDOW_NS` that make a display noisy (``on_noisy``)."""

NOISY_WINDOW_NS = 60_000_000_000
"""The window drop-outs are counted in, 60 s (``int`` ns); a noisy display is quiet again
(``on_quiet``) after this long present without a drop-out."""

CLOSE_TIMEOUT_S = 2.0
"""How long :meth:`BusWriter.close` waits for a transfer in progress (seconds)."""

GoneCallback = Callable[[int, str], None]
"""``on_gone(seat, reason)``: seat ``int``, reason one line; called on the writer thread."""

BackCallback = Callable[[int], None]
"""``on_back(seat)``: seat ``int``; called on the writer thread after the frame went out."""

NoisyCallback = Callable[[int, str], None]
"""``on_noisy(seat, reason)``: seat ``int``, reason one line with the advice; called on the
writer thread when a display's drop-outs pass :data:`NOISY_FAULTS` in
:data:`NOISY_WINDOW_NS`."""

QuietCallback = Callable[[int], None]
"""``on_quiet(seat)``: seat ``int``; called on the writer thread when a noisy display has
been present without a drop-out for :data:`NOISY_WINDOW_NS`."""

_BUS_ERRORS = (luma.core.error.Error, OSError, DriverError)
"""What a failing bus raises: luma's errors (``DeviceNotFoundError`` from ``command()``),
plain ``OSError`` (mid-frame ``data()``, a stale fd), or a driver error from a link."""


class DisplayState(StrEnum):
    """A queued display's state: ``OPENING`` (not tried yet), ``PRESENT``, ``GONE``."""

    OPENING = "opening"
    PRESENT = "present"
    GONE = "gone"


class PanelLink(Protocol):
    """How a writer reaches one panel: ``drivers.hand_display`` makes one per wired OLED.

    All four are called on the writer's thread only.
    """

    def probe(self) -> None:
        """Check that the chip answers, cheaply and registering nothing (no luma device).

        Opens the serial interface first if it is not open.  Raises
        :class:`~drivers.errors.DeviceUnavailableError` (one line, with the fix) or a
        luma/OS error when the bus or the chip cannot be reached.
        """
        ...

    def build(self) -> Any:
        """Build the luma device anew on the serial interface (sends its init sequence).

        Returns the device (``display(image)``, ``persist`` set True).  Raises like
        :meth:`probe`.
        """
        ...

    def refresh(self, device: Any, image: Image.Image) -> None:
        """Bring a panel that may have lost its init back without a visible change on one
        that did not: send ``device``'s init sequence again without switching the panel
        off, then ``image`` whole, then display on.

        ``device``: what :meth:`build` returned; ``image``: a PIL image of the display's
        size and mode.  Raises a luma/OS error (or a driver error) when a write fails.
        """
        ...

    def release(self) -> None:
        """Release what the link opened (its serial interface); idempotent, never raises."""
        ...


class QueuedDisplay:
    """A wired OLED as a luma device whose ``display()`` hands the frame to its bus's writer.

    Made by :meth:`BusWriter.add` (``drivers.hand_display.HandDisplays.open`` for
    ssd1306/sh1106).  ``seat``: ``int``; ``name``: e.g. ``"OLED ssd1306 at i2c-4 0x3C"``;
    ``bus``: the writer's bus name (``"i2c-4"``); ``size``: ``(width, height)`` pixels after
    rotation; ``mode``: ``"1"``.

    Counters (read from any thread; exact once the writer is idle): ``frames_sent`` (frames
    that reached a panel), ``frames_dropped`` (replaced before the writer took them),
    ``frames_skipped`` (equal to the frame already given), ``refreshes`` (init sequence and
    frame sent again, :data:`REFRESH_NS`).  :attr:`state`, :attr:`error` (the one-line
    reason while gone), :attr:`noisy` (True while its drop-outs call for the wiring advice)
    and :attr:`device` (the current luma device, ``None`` before the first success)
    describe the connection.
    """

    persist = True
    """The luma devices the writer builds have ``persist = True`` (luma's exit hook leaves
    the last frame on the panel)."""

    def __init__(
        self,
        writer: BusWriter,
        seat: int,
        name: str,
        link: PanelLink,
        size: tuple[int, int],
        mode: str = "1",
    ) -> None:
        self.seat = seat
        self.name = name
        self.bus = writer.bus
        self.frames_sent = 0
        self.frames_dropped = 0
        self.frames_skipped = 0
        self.refreshes = 0
        self._writer = writer
        self._link = link
        self._size = size
        self._mode = mode
        # Guarded by the writer's condition:
        self._newest: Image.Image | None = None
        self._newest_bytes: bytes | None = None
        self._dirty = False
        self._state = DisplayState.OPENING
        self._error: str | None = None
        self._reported = False
        self._failures = 0
        self._next_try_ns = 0
        self._next_refresh_ns = 0
        self._drop_outs: deque[int] = deque()
        self._noisy = False
        # Writer thread only:
        self._device: Any = None
        self._shown: bytes | None = None

    @property
    def width(self) -> int:
        """Width in pixels."""
        return self._size[0]

    @property
    def height(self) -> int:
        """Height in pixels."""
        return self._size[1]

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` in pixels."""
        return self._size

    @property
    def mode(self) -> str:
        """PIL mode of the images it takes: ``"1"``."""
        return self._mode

    @property
    def state(self) -> DisplayState:
        """The connection: :class:`DisplayState`."""
        with self._writer._cond:
            return self._state

    @property
    def error(self) -> str | None:
        """Why the display is gone (one line), ``None`` otherwise."""
        with self._writer._cond:
            return self._error

    @property
    def noisy(self) -> bool:
        """True from ``on_noisy`` to ``on_quiet`` (see the module docstring)."""
        with self._writer._cond:
            return self._noisy

    @property
    def device(self) -> Any:
        """The luma device the writer built last, or ``None`` before the first success."""
        return self._device

    def display(self, image: Image.Image) -> None:
        """Hand ``image`` to the writer and return at once (the transfer runs on its thread).

        ``image``: a PIL image of this display's ``size`` and ``mode``; copied, so the
        caller may reuse it.  A bus failure never raises here: it reaches ``on_gone``.
        Raises :class:`~drivers.errors.DriverValueError` for an image of the wrong size or
        mode and :class:`~drivers.errors.DriverClosedError` after the writer's ``close()``.
        """
        check_frame(image, self._size, self._mode, name=self.name, seat=self.seat)
        data = image.tobytes()
        cond = self._writer._cond
        with cond:
            if self._writer._closed:
                raise DriverClosedError(self.name, "used after close()", seat=self.seat)
            if data == self._newest_bytes:
                self.frames_skipped += 1
                return
            if self._dirty:
                self.frames_dropped += 1
            self._newest = image.copy()
            self._newest_bytes = data
            self._dirty = True
            cond.notify_all()

    def clear(self) -> None:
        """Show a blank (all-off) frame, through :meth:`display`."""
        self.display(Image.new(self._mode, self._size))

    def __repr__(self) -> str:
        """``<QueuedDisplay seat 2 OLED ... present sent=3 dropped=1 skipped=5>``."""
        return (
            f"<QueuedDisplay seat {self.seat + 1} {self.name} {self._state} sent={self.frames_sent}"
            f" dropped={self.frames_dropped} skipped={self.frames_skipped}>"
        )


class BusWriter(ClosesOnExit):
    """One I2C bus's (or SPI port's) writer: a thread that sends its displays' newest frames.

    ``bus``: a name for logs and the thread, e.g. ``"i2c-4"``; ``clock``: the
    :class:`~drivers.clock.Clock` that times retries, refreshes and the noisy window
    (default :class:`~drivers.clock.MonotonicClock`); ``on_gone(seat, reason)`` /
    ``on_back(seat)`` / ``on_noisy(seat, reason)`` / ``on_quiet(seat)``: called on the
    writer thread (see the module docstring); ``retry_ns`` / ``max_retry_ns``: ``int`` ns,
    the first and the longest wait between tries of a gone display; ``refresh_ns``: ``int``
    ns between a present display's refreshes (:data:`REFRESH_NS`); ``thread``: False starts
    no thread; then :meth:`run_once` does one pass on the caller's thread (tests, with a
    fake clock).

    Raises :class:`~drivers.errors.DriverValueError` for a ``retry_ns`` that is not an
    ``int`` > 0, a ``max_retry_ns`` below it or a ``refresh_ns`` that is not an ``int`` > 0.
    """

    def __init__(
        self,
        bus: str,
        *,
        clock: Clock | None = None,
        on_gone: GoneCallback | None = None,
        on_back: BackCallback | None = None,
        on_noisy: NoisyCallback | None = None,
        on_quiet: QuietCallback | None = None,
        retry_ns: int = RETRY_NS,
        max_retry_ns: int = MAX_RETRY_NS,
        refresh_ns: int = REFRESH_NS,
        thread: bool = True,
    ) -> None:
        check_retry(f"OLED writer {bus}", retry_ns, max_retry_ns)
        check_refresh(f"OLED writer {bus}", refresh_ns)
        self.bus = bus
        self.clock: Clock = clock if clock is not None else MonotonicClock()
        self._on_gone = on_gone
        self._on_back = on_back
        self._on_noisy = on_noisy
        self._on_quiet = on_quiet
        self._retry_ns = retry_ns
        self._max_retry_ns = max_retry_ns
        self._refresh_ns = refresh_ns
        self._cond = threading.Condition()
        self._displays: list[QueuedDisplay] = []
        self._closed = False
        self._busy = False
        self._thread: threading.Thread | None = None
        if thread:
            self._thread = threading.Thread(
                target=self._run, name=f"oled-writer {bus}", daemon=True
            )
            self._thread.start()

    @property
    def displays(self) -> Sequence[QueuedDisplay]:
        """The displays on this bus, in the order they were added."""
        with self._cond:
            return tuple(self._displays)

    @property
    def threaded(self) -> bool:
        """True when the writer has its own thread (``thread=True``)."""
        return self._thread is not None

    def add(
        self, seat: int, name: str, link: PanelLink, size: tuple[int, int], mode: str = "1"
    ) -> QueuedDisplay:
        """Add a display on this bus; the writer tries it on its next pass.

        ``seat``: ``int``; ``name``: the display in messages (``"OLED ssd1306 at i2c-4
        0x3C"``); ``link``: its :class:`PanelLink`; ``size``: ``(width, height)`` pixels of
        the frames it takes; ``mode``: their PIL mode.  Returns the
        :class:`QueuedDisplay`.  Raises :class:`~drivers.errors.DriverClosedError` after
        :meth:`close`.
        """
        display = QueuedDisplay(self, seat, name, link, size, mode)
        with self._cond:
            if self._closed:
                raise DriverClosedError(name, "used after close()", seat=seat)
            self._displays.append(display)
            self._cond.notify_all()
        return display

    def run_once(self) -> int | None:
        """One pass on the caller's thread (a writer made with ``thread=False``).

        For each display in turn: a present one gets its newest frame if it has a new one,
        or its init sequence and newest frame whole when its refresh time (by the writer's
        clock) has come; an opening one, or a gone one whose retry time has come, is
        probed, rebuilt and sent its newest frame whole.  Returns the next retry time
        (``int`` CLOCK_MONOTONIC ns of the writer's clock) or ``None`` when no display is
        gone.  Raises :class:`~drivers.errors.DriverValueError` on a threaded writer (two
        senders on one bus) and :class:`~drivers.errors.DriverClosedError` after
        :meth:`close`.
        """
        if self._thread is not None:
            raise DriverValueError(
                f"OLED writer {self.bus}", "run_once() is for a writer made with thread=False"
            )
        if self._closed:
            raise DriverClosedError(f"OLED writer {self.bus}", "used after close()")
        self._pass(final=False)
        with self._cond:
            return self._next_retry_ns()

    def flush(self, timeout_s: float = 1.0) -> bool:
        """Wait until every present display's newest frame went out (or failed).

        ``timeout_s``: seconds to wait at most (a threaded writer); a writer without a
        thread runs one pass instead.  Gone displays waiting for their retry do not count.
        Returns True when nothing is left to send, False on timeout.
        """
        if self._thread is None:
            if not self._closed:
                self._pass(final=False)
            with self._cond:
                return not self._pending()
        with self._cond:
            return self._cond.wait_for(lambda: not self._busy and not self._pending(), timeout_s)

    def close(self, timeout_s: float = CLOSE_TIMEOUT_S) -> None:
        """Stop the writer; idempotent.

        The thread sends the newest frames still pending to present displays (no retries),
        then ends; :meth:`close` joins it, waiting at most ``timeout_s`` seconds (a transfer
        stuck in the kernel; the thread is a daemon and cannot hold the process), then
        releases the links' serial interfaces.  Nothing is reported after it returns.
        """
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._cond.notify_all()
        thread = self._thread
        if thread is not None:
            thread.join(timeout_s)
            if thread.is_alive():
                log.warning("OLED writer %s: a transfer did not end in %.1f s", self.bus, timeout_s)
                return
        for display in self._displays:
            display._link.release()

    def __repr__(self) -> str:
        """``<BusWriter i2c-4 2 displays>``; ``closed`` after :meth:`close`."""
        if self._closed:
            return f"<BusWriter {self.bus} closed>"
        return f"<BusWriter {self.bus} {len(self._displays)} displays>"

    # --- the writer -------------------------------------------------------------------

    def _run(self) -> None:
        """The thread: wait for work (a frame, a due retry or refresh, close), do a pass,
        repeat."""
        while True:
            with self._cond:
                while not self._closed and not self._due(self.clock.now_ns()):
                    self._cond.wait(self._timeout_s())
                closing = self._closed
            self._pass(final=closing)
            if closing:
                return

    def _pass(self, *, final: bool) -> None:
        """Serve every display once; ``final``: send pending frames only (closing)."""
        with self._cond:
            self._busy = True
            displays = list(self._displays)
        try:
            for display in displays:
                self._serve(display, final)
        finally:
            with self._cond:
                self._busy = False
                self._cond.notify_all()

    def _serve(self, d: QueuedDisplay, final: bool) -> None:
        """Send ``d``'s newest frame, refresh it when due, or (re)connect it when it is
        opening or due; a present noisy display with no drop-out for the window is quiet."""
        now = self.clock.now_ns()
        with self._cond:
            state = d._state
            refresh = idle = quiet = False
            if state is DisplayState.PRESENT:
                refresh = not final and now >= d._next_refresh_ns
                idle = not d._dirty and not refresh
                quiet = idle and self._quiet_now(d, now)
            elif final or (state is DisplayState.GONE and now < d._next_try_ns):
                return
            frame, data = d._newest, d._newest_bytes
            if not idle:
                d._dirty = False
        if idle:
            if quiet:
                self._callback(self._on_quiet, d.seat)
            return
        if state is not DisplayState.PRESENT:
            self._connect(d, frame, data)
            return
        if refresh:
            sent = self._refresh(d, frame, data)
        else:
            sent = frame is None or data == d._shown or self._send(d, frame, data)
        if sent:
            with self._cond:
                quiet = self._quiet_now(d, self.clock.now_ns())
            if quiet:
                self._callback(self._on_quiet, d.seat)

    def _transfer(self, d: QueuedDisplay, what: str, call: Callable[[], object]) -> bool:
        """Run ``call`` (one transfer to ``d``'s device: ``what`` names it in messages); a
        bus error or any other failure marks ``d`` gone (logged with the traceback when it is
        not a bus error).  Returns True when it went through."""
        try:
            call()
        except _BUS_ERRORS as exc:
            reason = f"stopped answering ({_one_line(exc)}) — check its cable"
        except Exception as exc:
            log.exception("%s seat %d: %s raised", d.name, d.seat, what)
            reason = f"{what} failed ({_one_line(exc)})"
        else:
            return True
        self._failed(d, DeviceUnavailableError(d.name, reason, seat=d.seat), answered=True)
        return False

    def _refresh(self, d: QueuedDisplay, frame: Image.Image | None, data: bytes | None) -> bool:
        """Send ``d``'s init sequence and newest frame (a blank one before any) whole again
        (:meth:`PanelLink.refresh`); a failure marks ``d`` gone.  Returns True when sent."""
        image = frame if frame is not None else Image.new(d._mode, d._size)
        if not self._transfer(d, "refresh", lambda: d._link.refresh(d._device, image)):
            return False
        with self._cond:
            d.refreshes += 1
            if frame is not None and data != d._shown:
                d.frames_sent += 1
            d._next_refresh_ns = self.clock.now_ns() + self._refresh_ns
        if frame is not None:
            d._shown = data
        return True

    def _send(self, d: QueuedDisplay, frame: Image.Image, data: bytes | None) -> bool:
        """Send one frame to ``d``'s current device; a failure marks ``d`` gone."""
        if not self._transfer(d, "display", lambda: d._device.display(frame)):
            return False
        d._shown = data
        with self._cond:
            d.frames_sent += 1
        return True

    def _connect(self, d: QueuedDisplay, frame: Image.Image | None, data: bytes | None) -> None:
        """Probe, build anew, send the newest frame whole; report ``on_back`` if it was gone.

        A failure after the probe answered is a drop-out (it counts towards noisy)."""
        answered = False
        try:
            d._link.probe()
            answered = True
            device = d._link.build()
        except DriverError as exc:
            self._failed(d, exc, answered=answered)
            return
        except _BUS_ERRORS as exc:
            self._failed(
                d,
                DeviceUnavailableError(
                    d.name, f"not found ({_one_line(exc)}) — check its cable", seat=d.seat
                ),
                answered=answered,
            )
            return
        except Exception as exc:
            log.exception("%s seat %d: opening raised", d.name, d.seat)
            self._failed(
                d,
                DeviceUnavailableError(d.name, f"open failed ({_one_line(exc)})", seat=d.seat),
                answered=answered,
            )
            return
        d._device = device
        d._shown = None
        if frame is not None and not self._send(d, frame, data):
            return
        with self._cond:
            was_reported = d._reported
            d._state = DisplayState.PRESENT
            d._error = None
            d._reported = False
            d._failures = 0
            d._next_refresh_ns = self.clock.now_ns() + self._refresh_ns
        if was_reported:
            self._callback(self._on_back, d.seat)

    def _failed(self, d: QueuedDisplay, err: DriverError, *, answered: bool) -> None:
        """Mark ``d`` gone, schedule its next try, report ``on_gone`` if not yet reported.

        ``answered``: the panel had answered (present, or its probe answered): a drop-out,
        counted in the noisy window; the one that passes :data:`NOISY_FAULTS` reports
        ``on_noisy`` (once until ``on_quiet``)."""
        now = self.clock.now_ns()
        reason = _one_line(err)
        noisy: str | None = None
        with self._cond:
            first = not d._reported
            d._state = DisplayState.GONE
            d._error = reason
            d._reported = True
            d._shown = None
            d._next_try_ns = now + min(self._retry_ns << min(d._failures, 32), self._max_retry_ns)
            d._failures += 1
            if answered:
                drops = d._drop_outs
                drops.append(now)
                while drops and drops[0] <= now - NOISY_WINDOW_NS:
                    drops.popleft()
                if len(drops) >= NOISY_FAULTS and not d._noisy:
                    d._noisy = True
                    noisy = _noisy_reason(d, len(drops))
        if first:
            self._callback(self._on_gone, d.seat, reason)
        if noisy is not None:
            self._callback(self._on_noisy, d.seat, noisy)

    def _callback(self, callback: Callable[..., None] | None, *args: object) -> None:
        """Call ``callback(*args)``; an exception is logged, never kills the writer."""
        if callback is None:
            return
        try:
            callback(*args)
        except Exception:
            log.exception("OLED writer %s: callback %r raised", self.bus, callback)

    # --- bookkeeping (called with the condition held) -----------------------------------

    def _quiet_now(self, d: QueuedDisplay, now_ns: int) -> bool:
        """True (and ``d`` marked quiet) when noisy ``d`` is present and had no drop-out in
        the last :data:`NOISY_WINDOW_NS`; the caller then reports ``on_quiet``."""
        if not d._noisy or d._state is not DisplayState.PRESENT:
            return False
        if d._drop_outs and d._drop_outs[-1] > now_ns - NOISY_WINDOW_NS:
            return False
        d._noisy = False
        d._drop_outs.clear()
        return True

    def _pending(self) -> bool:
        """True while a display is opening or a present one has a frame to send."""
        return any(
            d._state is DisplayState.OPENING or (d._state is DisplayState.PRESENT and d._dirty)
            for d in self._displays
        )

    def _due(self, now_ns: int) -> bool:
        """True when a pass would do something at ``now_ns``."""
        wake = self._next_wake_ns()
        return self._pending() or (wake is not None and wake <= now_ns)

    def _next_wake_ns(self) -> int | None:
        """The earliest retry of a gone display or refresh of a present one, or ``None``."""
        times = [
            d._next_try_ns if d._state is DisplayState.GONE else d._next_refresh_ns
            for d in self._displays
            if d._state is not DisplayState.OPENING
        ]
        return min(times) if times else None

    def _next_retry_ns(self) -> int | None:
        """The earliest retry time of a gone display, ``None`` when none is gone."""
        times = [d._next_try_ns for d in self._displays if d._state is DisplayState.GONE]
        return min(times) if times else None

    def _timeout_s(self) -> float | None:
        """Seconds until the next retry or refresh (by the writer's clock), ``None``: wait
        for a frame."""
        wake = self._next_wake_ns()
        if wake is None:
            return None
        return max(0.0, (wake - self.clock.now_ns()) / 1e9)


def check_retry(where: str, retry_ns: object, max_retry_ns: object) -> None:
    """Check a retry policy: ``retry_ns`` an ``int`` > 0, ``max_retry_ns`` an ``int`` >= it.

    ``where`` names the owner in the message.  Raises
    :class:`~drivers.errors.DriverValueError` naming the bad argument.

    >>> check_retry("OLED writer i2c-1", 0, 5)
    Traceback (most recent call last):
    ...
    drivers.errors.DriverValueError: OLED writer i2c-1: retry_ns must be an int > 0 ns, got 0
    """
    if not is_int(retry_ns) or retry_ns <= 0:
        raise DriverValueError(where, f"retry_ns must be an int > 0 ns, got {retry_ns!r}")
    if not is_int(max_retry_ns) or max_retry_ns < retry_ns:
        raise DriverValueError(
            where, f"max_retry_ns must be an int >= retry_ns ({retry_ns}), got {max_retry_ns!r}"
        )


def check_refresh(where: str, refresh_ns: object) -> None:
    """Check a refresh period: ``refresh_ns`` an ``int`` > 0 (ns).

    ``where`` names the owner in the message.  Raises
    :class:`~drivers.errors.DriverValueError` naming the bad argument.

    >>> check_refresh("OLED writer i2c-1", -1)
    Traceback (most recent call last):
    ...
    drivers.errors.DriverValueError: OLED writer i2c-1: refresh_ns must be an int > 0 ns, got -1
    """
    if not is_int(refresh_ns) or refresh_ns <= 0:
        raise DriverValueError(where, f"refresh_ns must be an int > 0 ns, got {refresh_ns!r}")


def _noisy_reason(d: QueuedDisplay, drop_outs: int) -> str:
    """The one line ``on_noisy`` gets: the display, how many drop-outs, the advice.

    I2C (``d.bus`` ``"i2c-N"``): check the wiring and its pull-ups, run the bus at 100 kHz
    (hardware/README.md, "Long leads").  Another bus: check the wiring.
    """
    window_s = NOISY_WINDOW_NS // 1_000_000_000
    if d.bus.startswith("i2c"):
        advice = (
            "check the wiring and its pull-ups; on long leads run I2C at 100 kHz"
            " (hardware/README.md, \"Long leads\")"
        )
    else:
        advice = "check the wiring"
    problem = f"{drop_outs} bus errors in {window_s} s — {advice}"
    return str(DriverError(d.name, problem, seat=d.seat))



def _one_line(exc: BaseException | str) -> str:
    """``str(exc)`` on one line (luma and OS messages are single lines, but be sure)."""
    text = (str(exc) or type(exc).__name__) if isinstance(exc, BaseException) else exc
    return " ".join(text.split())
