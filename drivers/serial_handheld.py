"""Serial handhelds on the Pi: one link thread owns every USB CDC port and posts decoded events.

A serial handheld is a microcontroller with a 128x64 OLED and four keys on USB CDC ACM
serial, speaking the protocol of ``hardware/handheld/PROTOCOL.md`` (the pure codec is
:mod:`drivers.handheld_codec`).  :class:`SerialHandhelds` is the Pi's side of every such
link (docs/style.md, drivers: "a pure codec module ... and a thin link thread that owns the port
and only posts decoded events"):

- ``wanted`` maps each serial seat to its handheld: a ``/dev/serial/by-id/...`` path (or the
  bare by-id name, or another ``/dev`` path) or the handheld's HELLO ``handheld_id``.  Ports
  are listed every :data:`SCAN_NS` (500 ms; pyserial has no hot-plug events, so the
  listing is polled: docs/hardware-facts.md, "pyserial"), opened with pyserial, and matched to a
  seat by their path or, once the handheld says HELLO, by its id.  So a seat keeps its
  handheld whatever ``/dev/ttyACM*`` node it gets after a re-plug.
- :meth:`SerialHandhelds.open` gives each seat a luma-like device,
  :class:`SerialHandheldDisplay` (``width`` 128, ``height`` 64, ``mode "1"``, ``size``,
  ``display(image)``): ``display()`` returns at once and hands the picture to that seat's
  :class:`~drivers.handheld_codec.FrameSender`, so only the changed 128-byte pages go out
  (136 bytes on the wire for one page against 1,036 for a whole frame; docs/style.md "Send only
  what changed").  It works before the handheld is connected: the newest picture is kept
  and sent whole after every (re)connect.
- Keys: each KEY is passed through the :class:`~drivers.handheld_codec.KeyDedup` of its
  handheld id, kept for the life of the process, so every key event is applied exactly once,
  in order, across lost ACKs, resends, replays and re-plugs (PROTOCOL.md, "KEY delivery").
  A new DOWN event posts ``drivers.keys.KeyPress(seat, key, t_ns)`` stamped with the
  injected clock when the packet was read (the handheld's ms clock is not ours).  As on a
  wired handheld (:mod:`drivers.keys`), LEFT/RIGHT held auto-repeat (400 ms, then every
  120 ms, ``repeat=True``) and BACK held 2 s posts one ``KeyPress(seat, "menu", t)``; a
  hold counts only while the handheld is heard (a repeat due at ``t`` waits for a packet
  received at or after ``t``, asked for with a PING), so a silently pulled cable repeats
  nothing; a handheld that goes away ends its holds.
- Heartbeat: a PING every 250 ms on every open port.  A port is given up after 1.5 s without
  a valid packet, or at once when pyserial raises on it: ``SerialException``, ``OSError``
  (EIO) or ``termios.error`` (not an ``OSError``), the three things a vanished port raises
  (docs/hardware-facts.md, "pyserial").  A seat whose handheld is lost is reported once through
  ``on_gone(seat, reason)``, e.g. ``"seat 3 serial handheld usb-Party_hh-if00: unplugged
  from /dev/serial/by-id/usb-Party_hh-if00 (read failed: [Errno 5] Input/output error)"``
  (seats counted from 1 in messages, as :mod:`drivers.errors` does), and through
  ``on_back(seat)`` when a new session has started and its whole picture is on its way.  A
  seat whose handheld has not connected :data:`FIRST_CONNECT_NS` (3 s) after start is
  reported gone too, naming why (no such port, a refusal, an open error).
- Refusals, each one log line per port and counted: a HELLO offering no version we speak
  (NAK VERSION) or another screen (NAK SCREEN), an id no seat wants (NAK REFUSED, ignored),
  a second handheld claiming an id that is connected elsewhere (NAK REFUSED; the first keeps
  the seat).  A refused handheld's port stays open: the handheld shows the NAK's text on its
  own screen, and the second of two same-id handhelds is welcomed as soon as the first goes.
- Bad input (garbage, truncated, oversized, corrupted packets) never stops anything: the
  codec's :class:`~drivers.handheld_codec.Decoder` counts it per reason (kept per seat in
  :meth:`SerialHandhelds.stats`), its lines go to the log at most :data:`ERROR_LINES` a
  second per port, and a handheld in a session is answered NAK CORRUPT (at most one per
  250 ms) so it resends at once.

Why one thread with :mod:`selectors` over all ports rather than a thread per port: the
state that matters crosses ports -- which port holds which handheld id (two handhelds
claiming one id), which seat is taken, the per-id KEY state, the scanning -- so one owner
needs no locks around it (Klipper's ``reactor.py`` habit: one reactor owns the state,
timers return their next wake time).  ``thread=False`` runs exactly the same pass on the
caller's thread (:meth:`SerialHandhelds.run_once`, for fake-clock tests).  A stuck port
cannot stall the others: ports are opened with ``write_timeout=0`` and written only when
the selector says they take data (pyserial's non-blocking ``write()`` returns the count
written; on EAGAIN it would spin, so it is never called on a full port), and unsent bytes
wait in a per-port buffer (a port holding more than :data:`MAX_UNSENT` is given up).  The
thread owns every pyserial object; the loop thread only stores pictures (under a lock) and
wakes the thread through a pipe.

Use (the device's rig)::

    handhelds = SerialHandhelds(
        {seat: handheld.id for each serial seat},
        post=queue.post,
        on_gone=lambda seat, reason: queue.post(HandheldGone(seat, reason, clock.now_ns())),
        on_back=lambda seat: queue.post(HandheldBack(seat, clock.now_ns())),
        clock=clock, thread=threads)
    closers.append(handhelds.close)
    if not threads:
        tickers.append(handhelds.run_once)   # fn(now_ns) -> next deadline
    device = handhelds.open(seat)             # a 128x64 mode "1" luma-like device

With ``thread=True`` nothing goes on the loop's tickers.

Callbacks (``post``, ``on_gone``, ``on_back``) run on the link thread (or in
:meth:`~SerialHandhelds.run_once`), outside the driver's lock, in the order the events
happened; one that raises is logged and the link goes on.  Explicit, idempotent
:meth:`~SerialHandhelds.close` (joins the thread, closes the ports); no ``__del__``, no
``atexit`` (docs/style.md, drivers).
"""

from __future__ import annotations

import contextlib
import errno
import glob
import logging
import os
import selectors
import termios
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

import serial  # type: ignore[import-untyped]
from PIL import Image

from drivers.clock import Clock, MonotonicClock
from drivers.closing import ClosesOnExit
from drivers.errors import DriverClosedError, DriverValueError, NotWiredError
from drivers.frames import check_frame
from drivers.handheld_codec import (
    HEIGHT,
    LINK_TIMEOUT_NS,
    MAX_TEXT,
    PING_INTERVAL_NS,
    WIDTH,
    Ack,
    Decoder,
    FrameRequest,
    FrameSender,
    Hello,
    Key,
    KeyDedup,
    KeyVerdict,
    Message,
    MsgType,
    Nak,
    NakReason,
    Packet,
    Ping,
    Pong,
    Welcome,
    encode,
    image_pages,
    negotiate,
    version_problem,
)
from drivers.i2c_writer import BackCallback, GoneCallback
from drivers.keys import (
    MENU_HOLD_NS,
    MENU_KEY,
    REPEAT_DELAY_NS,
    REPEAT_INTERVAL_NS,
    REPEAT_KEYS,
    KeyPress,
)
from drivers.values import is_int

__all__ = [
    "BY_ID_DIR",
    "ERROR_LINES",
    "FIRST_CONNECT_NS",
    "MAX_QUIET_RETRY_NS",
    "MAX_UNSENT",
    "NAK_INTERVAL_NS",
    "PORT_ERRORS",
    "QUIET_RETRY_NS",
    "SCAN_NS",
    "HandheldStats",
    "OpenPort",
    "PortStats",
    "SerialHandheldDisplay",
    "SerialHandhelds",
    "SerialPort",
    "SerialStats",
    "default_ports",
    "open_serial_port",
]

log = logging.getLogger(__name__)

BY_ID_DIR = "/dev/serial/by-id"
"""udev's stable names for serial devices (docs/hardware-facts.md, "pyserial")."""

SCAN_NS = 500_000_000
"""How often the port listing is read for (re)appearing ports: 500 ms (``int`` ns)."""

FIRST_CONNECT_NS = 3_000_000_000
"""A seat whose handheld has no session this long after start is reported gone: 3 s
(``int`` ns): a plugged-in handheld answers within one scan plus one HELLO period (1 s)."""

QUIET_RETRY_NS = 5_000_000_000
"""A port that never sent a valid packet (not a handheld, or one still booting) is opened
again after 5 s (``int`` ns), the wait doubling to :data:`MAX_QUIET_RETRY_NS`; opening a port
asserts DTR, which resets some boards, so strangers are not poked every scan."""

MAX_QUIET_RETRY_NS = 60_000_000_000
"""Longest wait before a quiet (or unopenable) port is tried again: 60 s (``int`` ns)."""

NAK_INTERVAL_NS = 250_000_000
"""At most one NAK of each reason per port per 250 ms (PROTOCOL.md, "Heartbeat")."""

ERROR_LINES = 3
"""Decoder error lines logged per port per second; the rest are counted in one line."""

ERROR_WINDOW_NS = 1_000_000_000
"""The window :data:`ERROR_LINES` applies to: 1 s (``int`` ns)."""

MAX_UNSENT = 32 * 1024
"""Bytes a port may hold unsent before it is given up (a handheld that stopped reading;
a live link never holds more than a few frames)."""

READ_SIZE = 8192
"""Bytes asked of ``read()`` per ready port per pass."""

CLOSE_TIMEOUT_S = 2.0
"""How long :meth:`SerialHandhelds.close` waits for the link thread (seconds)."""

PORT_ERRORS: tuple[type[BaseException], ...] = (serial.SerialException, OSError, termios.error)
"""What a vanished port raises (docs/hardware-facts.md, "pyserial"): ``read()`` raises
``SerialException`` ("device reports readiness to read but returned no data", or "read
failed: [Errno 5] ..."), ``in_waiting`` a plain ``OSError`` (EIO), ``flush()``
``termios.error``, which is not an ``OSError``.  ``SerialException`` is an ``OSError``;
it is named for the reader."""

_OPEN_ERRORS: tuple[type[BaseException], ...] = (*PORT_ERRORS, ValueError)


class SerialPort(Protocol):
    """The part of ``serial.Serial`` the link uses (opened with ``timeout=0``,
    ``write_timeout=0``: every call returns at once).

    Any method may raise one of :data:`PORT_ERRORS` when the port vanishes.
    """

    def fileno(self) -> int:
        """The file descriptor, for the selector."""
        ...

    def read(self, size: int = 1) -> bytes:
        """Up to ``size`` bytes already received (``b""`` when none)."""
        ...

    def write(self, data: bytes) -> int | None:
        """Write what the port takes now; return the count written (``None``: all)."""
        ...

    def close(self) -> None:
        """Close the port."""
        ...


OpenPort = Callable[[str], SerialPort]
"""``open_port(path)``: open the port at ``path`` (default :func:`open_serial_port`);
raises one of :data:`PORT_ERRORS` (or ``ValueError``) when it cannot be opened."""


def open_serial_port(path: str) -> SerialPort:
    """Open ``path`` with pyserial: ``serial.Serial(path, timeout=0, write_timeout=0,
    exclusive=True)``.

    Raw mode and DTR asserted, as pyserial does (PROTOCOL.md, "Transport"; CDC ignores the
    line speed).  ``timeout=0``: ``read()`` returns what has arrived; ``write_timeout=0``:
    ``write()`` writes what the port takes and returns the count (call it only when the
    port is writable: on EAGAIN pyserial 3.5 retries in a loop).  ``exclusive=True``:
    pyserial's ``flock``, so a second console process (the self-test while the service
    runs) cannot steal bytes.  Raises ``serial.SerialException`` (no such port, permission
    denied -- the user needs the ``dialout`` group --, locked by another process).
    """
    port: SerialPort = serial.Serial(path, timeout=0, write_timeout=0, exclusive=True)
    return port


def default_ports(extra: Iterable[str] = ()) -> list[str]:
    """The ports to look at: every entry of :data:`BY_ID_DIR`, every ``/dev/ttyACM*``, and
    each path of ``extra`` that exists (a seat may name e.g. ``/dev/ttyUSB0``).

    Returns paths, by-id names first; the same device appears under several names (the
    link groups them by ``os.path.realpath``).  Never raises (a missing directory is an
    empty list).
    """
    names = sorted(glob.glob(os.path.join(BY_ID_DIR, "*"))) + sorted(glob.glob("/dev/ttyACM*"))
    names += [p for p in extra if p not in names and os.path.exists(p)]
    return names


# --- statistics -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HandheldStats:
    """One serial seat's link, counted over the life of the driver.

    ``seat``: 0-based; ``wanted``: the configured id; ``connected``: a session is up;
    ``port``: the port of the current (or last) session; ``handheld_id``: its HELLO id;
    ``sessions``: WELCOMEs sent; ``gone``: ``on_gone`` reports; ``keys_applied`` /
    ``keys_duplicate`` / ``keys_gap``: KEY packets by :class:`~drivers.handheld_codec.KeyVerdict`
    (down and up events); ``keys_posted``: ``KeyPress`` events posted (DOWN, repeats, menu);
    ``frames_sent`` / ``frame_resends`` / ``frame_bytes``: FRAME packets written, those that
    replaced an unacknowledged one, and their bytes on the wire; ``frames_acked``;
    ``bytes_in`` / ``bytes_out``: bytes read from and written to its ports while they were
    this seat's; ``bad``: the decoder's bad packets by reason while a port was this seat's;
    ``refused``: HELLOs refused by reason (``"version"``, ``"screen"``, ``"duplicate_id"``,
    ``"seat_taken"``); ``rtt_ns``: the latest PING -> PONG round trip (``int`` ns) or None.
    """

    seat: int
    wanted: str
    connected: bool
    port: str | None
    handheld_id: str | None
    sessions: int
    gone: int
    keys_applied: int
    keys_duplicate: int
    keys_gap: int
    keys_posted: int
    frames_sent: int
    frame_resends: int
    frames_acked: int
    frame_bytes: int
    bytes_in: int
    bytes_out: int
    bad: Mapping[str, int]
    refused: Mapping[str, int]
    rtt_ns: int | None


@dataclass(frozen=True, slots=True)
class PortStats:
    """One open port: ``name`` (the listed path), ``seat`` (the seat its path or its HELLO
    gave it, or None), ``session`` (a WELCOME was sent), ``handheld_id`` (the HELLO id, or
    None), ``bytes_in`` / ``bytes_out`` since it was opened, ``bad`` (bad packets since then)."""

    name: str
    seat: int | None
    session: bool
    handheld_id: str | None
    bytes_in: int
    bytes_out: int
    bad: int


@dataclass(frozen=True, slots=True)
class SerialStats:
    """A snapshot of :class:`SerialHandhelds`: ``seats`` (:class:`HandheldStats` by seat),
    ``ports`` (:class:`PortStats` of each open port by name), ``written`` (bytes written to
    each port name over the driver's life, across re-opens), ``unknown_ids`` (HELLOs from
    ids no seat wants), ``unbound_bad`` (bad packets on ports that were no seat's),
    ``opened`` (ports opened), ``open_failures`` (opens that raised)."""

    seats: Mapping[int, HandheldStats]
    ports: Mapping[str, PortStats]
    written: Mapping[str, int]
    unknown_ids: int
    unbound_bad: Mapping[str, int]
    opened: int
    open_failures: int


# --- the seat's device ------------------------------------------------------------------------


class SerialHandheldDisplay:
    """A serial handheld's screen as a luma device: ``display()`` hands the picture on.

    Made by :meth:`SerialHandhelds.open`.  ``width`` 128, ``height`` 64, ``size``, ``mode``
    ``"1"``, ``persist`` (True: nothing blanks it at exit); :meth:`display` stores the
    picture's 8 SSD1306 pages and returns at once (the link thread ships the changed pages);
    :attr:`connected` says whether a session is up.  ``frames_given`` counts
    :meth:`display` calls.
    """

    persist = True
    """luma's flag; a serial handheld keeps its last picture when the console stops."""

    def __init__(self, owner: SerialHandhelds, seat: int, name: str) -> None:
        self.seat = seat
        self.name = name
        self.frames_given = 0
        self._owner = owner

    @property
    def width(self) -> int:
        """Width in pixels: 128."""
        return WIDTH

    @property
    def height(self) -> int:
        """Height in pixels: 64."""
        return HEIGHT

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` in pixels: ``(128, 64)``."""
        return (WIDTH, HEIGHT)

    @property
    def mode(self) -> str:
        """PIL mode of the pictures it takes: ``"1"``."""
        return "1"

    @property
    def connected(self) -> bool:
        """True while the handheld has a session (read from any thread)."""
        return self._owner.connected(self.seat)

    def display(self, image: Image.Image) -> None:
        """Hand ``image`` to the link and return at once (the link sends the changed pages).

        ``image``: a 128x64 mode ``"1"`` PIL image; its pages are copied, so the caller may
        reuse it.  A link failure never raises here: it reaches ``on_gone``.  Raises
        :class:`~drivers.errors.DriverValueError` for another size or mode and
        :class:`~drivers.errors.DriverClosedError` after the driver's ``close()``.
        """
        check_frame(image, (WIDTH, HEIGHT), "1", name=self.name, seat=self.seat)
        self._owner._show(self.seat, image_pages(image))
        self.frames_given += 1

    def clear(self) -> None:
        """Show a blank (all-off) picture, through :meth:`display`."""
        self.display(Image.new("1", (WIDTH, HEIGHT)))

    def cleanup(self) -> None:
        """luma's ``cleanup``: nothing to release here (the driver's ``close()`` does)."""

    def __repr__(self) -> str:
        """``<SerialHandheldDisplay seat 3 serial handheld hh-A connected>``."""
        state = "connected" if self.connected else "not connected"
        return f"<SerialHandheldDisplay seat {self.seat + 1} {self.name} {state}>"


# --- internal state ---------------------------------------------------------------------------


@dataclass
class _Seat:
    """One serial seat (owned by the link; ``newest``/``dirty`` guarded by the lock)."""

    seat: int
    wanted: str
    name: str
    frames: FrameSender = field(default_factory=FrameSender)
    link: _Link | None = None
    reported: bool = False
    first_deadline_ns: int | None = None
    problem: str | None = None
    newest: tuple[bytes, ...] | None = None
    dirty: bool = False
    repeat_at: dict[str, int] = field(default_factory=dict)
    menu_at: int | None = None
    probe_ns: int | None = None
    port: str | None = None
    handheld_id: str | None = None
    sessions: int = 0
    gone: int = 0
    keys_applied: int = 0
    keys_duplicate: int = 0
    keys_gap: int = 0
    keys_posted: int = 0
    frames_sent: int = 0
    frame_resends: int = 0
    frames_acked: int = 0
    frame_bytes: int = 0
    bytes_in: int = 0
    bytes_out: int = 0
    bad: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    rtt_ns: int | None = None

    def where(self) -> str:
        """``"seat 3 serial handheld hh-A"`` for messages."""
        return f"seat {self.seat + 1} {self.name}"


@dataclass
class _Link:
    """One open port (link thread only)."""

    key: str
    name: str
    names: tuple[str, ...]
    port: SerialPort
    fd: int
    opened_ns: int
    bound: int | None
    decoder: Decoder = field(default_factory=lambda: Decoder(receiver="pi"))
    seen: Counter[str] = field(default_factory=Counter)
    seat: int | None = None
    session: bool = False
    hid: str | None = None
    last_rx_ns: int = 0
    valid: bool = False
    next_ping_ns: int = 0
    ping_seq: int = 0
    pings: dict[int, int] = field(default_factory=dict)
    out: bytearray = field(default_factory=bytearray)
    writing: bool = False
    bytes_in: int = 0
    bytes_out: int = 0
    last_nak_ns: dict[int, int] = field(default_factory=dict)
    err_window_ns: int = 0
    err_lines: int = 0
    err_suppressed: int = 0
    closed: bool = False

    def owner(self) -> int | None:
        """The seat this port's bytes count for: its session's, else its path's."""
        return self.seat if self.seat is not None else self.bound


@dataclass
class _Quiet:
    """A port not to open again before ``retry_ns``; ``wait_ns`` doubles each time."""

    retry_ns: int
    wait_ns: int


_Call = tuple[Callable[..., None], tuple[object, ...]]


class SerialHandhelds(ClosesOnExit):
    """Every serial handheld of the console behind one link (see the module docstring).

    - ``wanted``: seat (``int`` >= 0) -> the seat's handheld: a path under ``/dev``
      (``/dev/serial/by-id/usb-...``), a bare by-id name (``usb-...-if00``, matched against
      the names of the listed ports) or a HELLO ``handheld_id`` (matched when the handheld
      says HELLO); one without ``/`` is tried both ways.
    - ``post``: thread-safe, called with each ``drivers.keys.KeyPress``.
    - ``on_gone(seat, reason)`` / ``on_back(seat)``: see the module docstring; each report
      once per change.
    - ``clock``: the :class:`~drivers.clock.Clock` (default
      :class:`~drivers.clock.MonotonicClock`) that times pings, timeouts, scans and
      repeats and stamps key presses (``int`` CLOCK_MONOTONIC ns).
    - ``ports``: lists candidate port paths (default :func:`default_ports` with the wanted
      ``/dev`` paths); called every :data:`SCAN_NS` on the link thread.
    - ``open_port``: :data:`OpenPort` (default :func:`open_serial_port`).
    - ``thread``: True starts the link thread now; False starts none, and
      :meth:`run_once` does one pass on the caller's thread (fake-clock tests; the device
      loop's ticker convention ``fn(now_ns) -> next deadline``).

    Raises :class:`~drivers.errors.DriverValueError` for a bad seat or id, or one id
    given to two seats.
    """

    def __init__(
        self,
        wanted: Mapping[int, str],
        *,
        post: Callable[[object], None],
        on_gone: GoneCallback | None = None,
        on_back: BackCallback | None = None,
        clock: Clock | None = None,
        ports: Callable[[], Iterable[str]] | None = None,
        open_port: OpenPort | None = None,
        thread: bool = True,
    ) -> None:
        self._check_wanted(wanted)
        self.clock: Clock = clock if clock is not None else MonotonicClock()
        self._post = post
        self._on_gone = on_gone
        self._on_back = on_back
        self._probe_ids = any(not w.startswith("/") for w in wanted.values())
        if ports is None:
            extra = tuple(w for w in wanted.values() if w.startswith("/"))
            self._ports: Callable[[], Iterable[str]] = lambda: default_ports(extra)
        else:
            self._ports = ports
        self._open_port: OpenPort = open_port if open_port is not None else open_serial_port
        self._lock = threading.Lock()
        self._closed = False
        start = self.clock.now_ns()
        self._seats: dict[int, _Seat] = {}
        for seat, ident in sorted(wanted.items()):
            name = f"serial handheld {_label(ident)}"
            self._seats[seat] = _Seat(seat, ident, name, first_deadline_ns=start + FIRST_CONNECT_NS)
        self._devices: dict[int, SerialHandheldDisplay] = {}
        self._dedup: dict[str, KeyDedup] = {}
        self._links: dict[str, _Link] = {}
        self._quiet: dict[str, _Quiet] = {}
        self._said: dict[str, set[str]] = {}
        self._known: set[str] = set()
        self._next_scan_ns = start
        self._now = start
        self._listing_failed: str | None = None
        self._unknown_ids = 0
        self._unbound_bad: Counter[str] = Counter()
        self._written: Counter[str] = Counter()
        self._opened = 0
        self._open_failures = 0
        self._selector = selectors.DefaultSelector()
        self._wake_r: int | None = None
        self._wake_w: int | None = None
        self._thread: threading.Thread | None = None
        if thread:
            self._wake_r, self._wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
            self._selector.register(self._wake_r, selectors.EVENT_READ, None)
            self._thread = threading.Thread(target=self._run, name="serial handhelds",
                                            daemon=True)
            self._thread.start()

    # --- public API --------------------------------------------------------------------

    @property
    def seats(self) -> tuple[int, ...]:
        """The serial seats, ascending."""
        return tuple(self._seats)

    @property
    def threaded(self) -> bool:
        """True when the link runs on its own thread (``thread=True``)."""
        return self._thread is not None

    def open(self, seat: int) -> SerialHandheldDisplay:
        """Seat ``seat``'s screen (the same object on every call), usable at once.

        Raises :class:`~drivers.errors.NotWiredError` (a ``LookupError``) for a seat not in
        ``wanted`` and :class:`~drivers.errors.DriverClosedError` after :meth:`close`.
        """
        with self._lock:
            state = self._seat_or_raise(seat)
            if self._closed:
                raise DriverClosedError(state.name, "used after close()", seat=seat)
            device = self._devices.get(seat)
            if device is None:
                device = self._devices[seat] = SerialHandheldDisplay(self, seat, state.name)
            return device

    def connected(self, seat: int) -> bool:
        """True while seat ``seat``'s handheld has a session.  Raises NotWiredError for a
        seat not in ``wanted``."""
        with self._lock:
            link = self._seat_or_raise(seat).link
            return link is not None and link.session

    def stats(self) -> SerialStats:
        """A consistent snapshot of the counters (:class:`SerialStats`), from any thread."""
        with self._lock:
            seats = {n: self._seat_stats(s) for n, s in self._seats.items()}
            ports = {
                link.name: PortStats(link.name, link.owner(), link.session, link.hid,
                                     link.bytes_in, link.bytes_out, link.decoder.bad)
                for link in self._links.values()
            }
            return SerialStats(seats, ports, dict(self._written), self._unknown_ids,
                               dict(self._unbound_bad), self._opened, self._open_failures)

    def run_once(self, now_ns: int) -> int:
        """One pass on the caller's thread (a driver made with ``thread=False``).

        ``now_ns``: the clock's reading, ``int`` CLOCK_MONOTONIC ns.  Lists ports if a scan
        is due and opens new ones, reads every port that has data (packets answered at
        once), sends PINGs and FRAMEs that are due, gives up silent ports, posts repeats,
        runs the callbacks.  Returns the next deadline (``int`` ns, never more than
        :data:`SCAN_NS` ahead: the next scan, PING, timeout, FRAME resend or repeat).
        Raises :class:`~drivers.errors.DriverValueError` on a threaded driver (two owners
        of the ports) and :class:`~drivers.errors.DriverClosedError` after :meth:`close`.
        """
        if self._thread is not None:
            raise DriverValueError("serial handhelds",
                                   "run_once() is for a driver made with thread=False")
        calls: list[_Call] = []
        with self._lock:
            if self._closed:
                raise DriverClosedError("serial handhelds", "used after close()")
            deadline = self._pass(now_ns, calls)
        self._call_all(calls)
        return deadline

    def close(self, timeout_s: float = CLOSE_TIMEOUT_S) -> None:
        """Stop the link and close every port; idempotent.  Nothing is reported after it
        returns.  ``timeout_s``: how long to wait for the thread (seconds)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        thread = self._thread
        if thread is not None:
            self._wake()
            thread.join(timeout_s)
            if thread.is_alive():
                log.warning("serial handhelds: the link thread did not end in %.1f s",
                            timeout_s)
                return
        else:
            with self._lock:
                self._close_all()
        for fd in (self._wake_r, self._wake_w):
            if fd is not None:
                os.close(fd)
        self._wake_r = self._wake_w = None

    def __repr__(self) -> str:
        """``<SerialHandhelds seats [3, 4] 1 port open>``; ``closed`` after close()."""
        if self._closed:
            return "<SerialHandhelds closed>"
        seats = [n + 1 for n in self._seats]
        return f"<SerialHandhelds seats {seats} {len(self._links)} port(s) open>"

    # --- the thread --------------------------------------------------------------------

    def _run(self) -> None:
        """The link thread: a pass, then wait on the ports and the wake pipe until the next
        deadline; the ports are closed on the way out."""
        try:
            while True:
                calls: list[_Call] = []
                with self._lock:
                    if self._closed:
                        break
                    now = self.clock.now_ns()
                    try:
                        deadline = self._pass(now, calls)
                    except Exception:  # a bug must not end every handheld's link
                        log.exception("serial handhelds: the link pass failed")
                        deadline = now + SCAN_NS
                self._call_all(calls)
                self._selector.select(max(0.0, (deadline - self.clock.now_ns()) / 1e9))
        finally:
            with self._lock:
                self._close_all()

    def _wake(self) -> None:
        """Wake the link thread (from any thread): one byte in the pipe, drained by the
        next pass."""
        if self._wake_w is None:
            return
        with contextlib.suppress(OSError):  # a full pipe wakes the thread anyway
            os.write(self._wake_w, b"!")

    def _call_all(self, calls: list[_Call]) -> None:
        """Run the collected callbacks in order; one that raises is logged."""
        for func, args in calls:
            if self._closed:
                return
            try:
                func(*args)
            except Exception:
                log.exception("serial handhelds: callback %r raised", func)

    # --- one pass (the lock is held) ---------------------------------------------------

    def _pass(self, now: int, calls: list[_Call]) -> int:
        """Everything due at ``now``; returns the next deadline (``int`` ns)."""
        self._now = now
        if self._wake_r is not None:
            with contextlib.suppress(BlockingIOError):
                while os.read(self._wake_r, 4096):
                    pass
        if now >= self._next_scan_ns:
            self._next_scan_ns = now + SCAN_NS
            self._scan(now)
        for key, events in self._selector.select(0):
            link = key.data
            if isinstance(link, _Link) and not link.closed and events & selectors.EVENT_READ:
                self._guarded(self._read, link, calls)
        for link in list(self._links.values()):
            self._guarded(self._timers, link, calls)
        for state in self._seats.values():
            self._seat_pass(state, now, calls)
        self._flush(calls)
        return self._deadline(now)

    def _guarded(self, action: Callable[[_Link, list[_Call]], None], link: _Link,
                 calls: list[_Call]) -> None:
        """Run ``action(link, calls)``; a bug in it drops that port, never the others."""
        try:
            action(link, calls)
        except Exception as exc:
            log.exception("serial handhelds: handling %s failed", link.name)
            if not link.closed:
                self._drop(link, f"link error on {link.name} ({_one_line(exc)})", calls)

    def _scan(self, now: int) -> None:
        """List the ports, group them by device, open the new ones that may be ours."""
        try:
            listed = [str(p) for p in self._ports()]
        except Exception as exc:
            text = _one_line(exc)
            if text != self._listing_failed:
                log.warning("serial handhelds: listing the serial ports failed (%s)", text)
                self._listing_failed = text
            return
        self._listing_failed = None
        groups: dict[str, list[str]] = {}
        for name in listed:
            names = groups.setdefault(os.path.realpath(name), [])
            if name not in names:
                names.append(name)
        for key in [k for k in self._quiet if k not in groups]:
            del self._quiet[key]
        for key in [k for k in self._said if k not in groups and k not in self._links]:
            del self._said[key]
        self._known &= set(groups) | set(self._links)
        for key, names in groups.items():
            link = self._links.get(key)
            if link is not None:
                link.names = tuple(dict.fromkeys((*link.names, *names)))
                continue
            quiet = self._quiet.get(key)
            if quiet is not None and now < quiet.retry_ns:
                continue
            bound = self._bound_seat(key, names)
            if bound is None and not self._probe_ids:
                continue
            self._open(key, names, bound, now)

    def _bound_seat(self, key: str, names: list[str]) -> int | None:
        """The seat whose wanted path (or bare by-id name) names this device, or None."""
        for state in self._seats.values():
            wanted = state.wanted
            for name in names:
                if name == wanted or ("/" not in wanted and os.path.basename(name) == wanted):
                    return state.seat
            if wanted.startswith("/") and os.path.realpath(wanted) == key:
                return state.seat
        return None

    def _open(self, key: str, names: list[str], bound: int | None, now: int) -> None:
        """Open one port, send 0x00 and a PING; a failure backs off and is logged once."""
        name = next((n for n in names if n.startswith(BY_ID_DIR + "/")), names[0])
        try:
            port = self._open_port(name)
            fd = port.fileno()
        except _OPEN_ERRORS as exc:
            self._open_failures += 1
            detail = _error_detail(exc)
            hint = " — is the user in the dialout group?" if _is_permission(exc) else ""
            self._say(key, f"serial port {name}: cannot open it ({detail}){hint}")
            if bound is not None:
                self._seats[bound].problem = f"cannot open {name} ({detail}){hint}"
            self._back_off(key, now, SCAN_NS)
            return
        self._opened += 1
        link = _Link(key=key, name=name, names=tuple(names), port=port, fd=fd, opened_ns=now,
                     bound=bound, last_rx_ns=now, next_ping_ns=now + PING_INTERVAL_NS)
        self._links[key] = link
        self._selector.register(fd, selectors.EVENT_READ, link)
        # PROTOCOL.md, "Reconnect procedure": end whatever half packet the handheld holds.
        self._send(link, b"\x00" + encode(Ping(), link.ping_seq))
        link.pings[link.ping_seq] = now
        link.ping_seq = (link.ping_seq + 1) & 0xFFFF

    def _back_off(self, key: str, now: int, first_ns: int) -> None:
        """Do not open ``key`` again before its wait is over: ``first_ns`` the first time
        (:data:`SCAN_NS` after an open failure: udev may not have set the node's group yet;
        :data:`QUIET_RETRY_NS` after silence), then doubling to :data:`MAX_QUIET_RETRY_NS`."""
        quiet = self._quiet.get(key)
        wait = first_ns if quiet is None else min(quiet.wait_ns * 2, MAX_QUIET_RETRY_NS)
        self._quiet[key] = _Quiet(now + wait, wait)

    # --- reading -----------------------------------------------------------------------

    def _read(self, link: _Link, calls: list[_Call]) -> None:
        """Read what the port has, decode it, answer every packet."""
        try:
            data = link.port.read(READ_SIZE)
        except PORT_ERRORS as exc:
            self._drop(link, f"unplugged from {link.name} (read failed: {_error_detail(exc)})",
                       calls)
            return
        if not data:
            return
        t_ns = self.clock.now_ns()
        link.bytes_in += len(data)
        owner = link.owner()
        if owner is not None:
            self._seats[owner].bytes_in += len(data)
        bad_before = link.decoder.bad
        packets = link.decoder.feed(data)
        self._count_bad(link)
        self._log_errors(link, packets, t_ns)
        if packets:
            link.last_rx_ns = t_ns
            if not link.valid:
                link.valid = True
                self._quiet.pop(link.key, None)
                self._known.add(link.key)
        if link.decoder.bad > bad_before and link.session:
            self._nak(link, 0, NakReason.CORRUPT, "bad packet", t_ns)
        ack_keys = False
        for packet in packets:
            if link.closed:
                return
            ack_keys |= self._handle(link, packet, t_ns, calls)
        if ack_keys and link.session and link.hid is not None and not link.closed:
            ack = self._dedup[link.hid].ack
            if ack is not None:
                self._send(link, encode(Ack(of=MsgType.KEY), ack))

    def _count_bad(self, link: _Link) -> None:
        """Add the decoder's new bad-packet counts to the port's seat (or the unbound)."""
        fresh = link.decoder.counts - link.seen
        if not fresh:
            return
        link.seen = Counter(link.decoder.counts)
        owner = link.owner()
        (self._seats[owner].bad if owner is not None else self._unbound_bad).update(fresh)

    def _log_errors(self, link: _Link, packets: list[Packet], now: int) -> None:
        """Log the decoder's lines, at most :data:`ERROR_LINES` a second for this port.

        A HELLO offering no version we speak is delivered *and* counted by the decoder;
        its refusal is logged once by :meth:`_refuse`, so its decoder line is left out.
        """
        lines = link.decoder.drain_errors()
        versions = [problem for p in packets if isinstance(p.msg, Hello)
                    and (problem := version_problem(p.msg)) is not None]
        lines = [line for line in lines if not any(line.endswith(v) for v in versions)]
        self._error_summary(link, now)
        for line in lines:
            if link.err_lines < ERROR_LINES:
                link.err_lines += 1
                log.warning("%s: %s", self._where(link), line)
            else:
                link.err_suppressed += 1

    def _error_summary(self, link: _Link, now: int) -> None:
        """Start a new error-log window once the last is over, logging how many lines it
        left out (one line)."""
        if now - link.err_window_ns < ERROR_WINDOW_NS:
            return
        if link.err_suppressed:
            log.warning("%s: %d more bad packets in the last second", self._where(link),
                        link.err_suppressed)
        link.err_window_ns, link.err_lines, link.err_suppressed = now, 0, 0

    def _handle(self, link: _Link, packet: Packet, t_ns: int, calls: list[_Call]) -> bool:
        """Answer one packet; True when it was a KEY (an ACK of KEY is due)."""
        msg: Message = packet.msg
        seq = packet.seq
        if isinstance(msg, Hello):
            self._hello(link, seq, msg, t_ns, calls)
            return False
        if not link.session:
            if not isinstance(msg, Nak):
                # PROTOCOL.md, "Session": anything but HELLO without a session.
                self._nak(link, msg.type, NakReason.HELLO_FIRST, "send HELLO first", t_ns,
                          seq=seq)
            return False
        state = self._seats[link.seat] if link.seat is not None else None
        if state is None:
            return False
        if isinstance(msg, Key):
            self._key(link, state, seq, msg, t_ns, calls)
            return True
        if isinstance(msg, Ack):
            if msg.of is MsgType.FRAME and state.frames.acked(seq):
                state.frames_acked += 1
        elif isinstance(msg, Pong):
            sent = link.pings.pop(seq, None)
            if sent is not None:
                state.rtt_ns = t_ns - sent
        elif isinstance(msg, FrameRequest):
            state.frames.restart()
        elif isinstance(msg, Nak):
            self._handheld_nak(link, state, msg)
        return False

    def _handheld_nak(self, link: _Link, state: _Seat, nak: Nak) -> None:
        """A NAK from the handheld: CORRUPT resends the FRAME, HELLO_FIRST ends the session
        (it re-HELLOs at once), anything else is logged once."""
        if nak.reason is NakReason.CORRUPT:
            state.frames.resend_now()
        elif nak.reason is NakReason.HELLO_FIRST:
            link.session = False
        else:
            self._say(link.key, f"{self._where(link)}: the handheld refused a packet: "
                                f"{nak.reason.name} {nak.text!r}")

    def _hello(self, link: _Link, seq: int, hello: Hello, t_ns: int,
               calls: list[_Call]) -> None:
        """Match a HELLO to a seat, refuse it or answer WELCOME and start the session."""
        hid = hello.handheld_id
        seat = link.bound if link.bound is not None else self._seat_for_id(hid)
        if seat is None:
            self._unknown_ids += 1
            self._refuse(link, seq, None, None, f"id {hid} is in no seat of the config",
                         f"serial port {link.name}: handheld id {hid!r} is in no seat of the "
                         "config; ignored", t_ns, calls)
            return
        state = self._seats[seat]
        other = next((o for o in self._links.values()
                      if o is not link and o.session and o.hid == hid), None)
        if other is not None:
            where = f"seat {other.seat + 1}" if other.seat is not None else other.name
            self._refuse(link, seq, state, "duplicate_id", f"id {hid} already plays at {where}",
                         f"{state.where()}: a second handheld with id {hid!r} on {link.name} "
                         f"refused; the one on {other.name} keeps the seat", t_ns, calls)
            return
        if state.link is not None and state.link is not link:
            self._refuse(link, seq, state, "seat_taken",
                         f"seat {seat + 1} already has its handheld",
                         f"{state.where()}: handheld {hid!r} on {link.name} refused; the seat's "
                         f"handheld is on {state.link.name}", t_ns, calls)
            return
        dedup = self._dedup.setdefault(hid, KeyDedup())
        answer = negotiate(hello, dedup, hello_seq=seq)
        if isinstance(answer, Nak):
            kind = "version" if answer.reason is NakReason.VERSION else "screen"
            self._refuse(link, seq, state, kind, answer.text,
                         f"{state.where()}: handheld {hid!r} on {link.name} refused: "
                         f"{answer.text}", t_ns, calls, nak=answer)
            return
        if link.session and link.seat is not None and link.seat != seat:
            self._end_session(link, f"{link.name} now says it is handheld {hid!r}", calls)
        self._welcome(link, state, seq, hello, answer, calls)

    def _welcome(self, link: _Link, state: _Seat, seq: int, hello: Hello, welcome: Welcome,
                 calls: list[_Call]) -> None:
        """Send WELCOME, bind the port to the seat, make the next FRAME a whole one."""
        self._send(link, encode(welcome, seq))
        fresh = not link.session
        link.session = True
        link.seat = state.seat
        link.hid = hello.handheld_id
        state.link = link
        state.port = link.name
        state.handheld_id = hello.handheld_id
        state.sessions += 1
        state.frames.restart()
        state.first_deadline_ns = None
        state.problem = None
        if fresh:
            log.info("%s: connected on %s (id %s, firmware %r, protocol %d)", state.where(),
                     link.name, hello.handheld_id, hello.firmware, welcome.version)
        if state.reported:
            state.reported = False
            if self._on_back is not None:
                calls.append((self._on_back, (state.seat,)))

    def _refuse(self, link: _Link, seq: int, state: _Seat | None, kind: str | None,
                text: str, line: str, t_ns: int, calls: list[_Call], *,
                nak: Nak | None = None) -> None:
        """Refuse a HELLO: NAK it (rate-limited), count it, log ``line`` once per port."""
        if link.session:
            self._end_session(link, line, calls)
        if state is not None and kind is not None:
            state.refused[kind] += 1
            if state.link is None:
                state.problem = f"handheld on {link.name} refused: {text}"
        self._say(link.key, line)
        answer = nak if nak is not None else Nak(of=MsgType.HELLO, reason=NakReason.REFUSED,
                                                 text=_clip(text))
        self._nak_send(link, answer, seq, t_ns)

    def _seat_for_id(self, hid: str) -> int | None:
        """The seat whose wanted id is this HELLO id (ids with a ``/`` are paths)."""
        for state in self._seats.values():
            if state.wanted == hid:
                return state.seat
        return None

    def _key(self, link: _Link, state: _Seat, seq: int, key: Key, t_ns: int,
             calls: list[_Call]) -> None:
        """Apply a KEY exactly once (PROTOCOL.md, "KEY delivery"); post DOWN events."""
        verdict = self._dedup[link.hid or ""].accept(seq)
        if verdict is KeyVerdict.DUPLICATE:
            state.keys_duplicate += 1
            if state.keys_duplicate in (1, 10, 100) or state.keys_duplicate % 1000 == 0:
                log.info("%s: KEY seq %d already applied (a resend): not applied again "
                         "(%d so far)", state.name, seq, state.keys_duplicate)
            return
        if verdict is not KeyVerdict.NEW:
            state.keys_gap += 1
            if state.keys_gap in (1, 10, 100) or state.keys_gap % 1000 == 0:
                log.warning("%s: KEY seq %d is not the next one (%s): held back until the "
                            "missing ones come (%d so far)", state.name, seq,
                            verdict.name.lower(), state.keys_gap)
            return
        state.keys_applied += 1
        log.info("%s: KEY seq %d %s %s applied", state.where(), seq, key.key,
                 "down" if key.down else "up")
        if key.down:
            self._emit(state, KeyPress(state.seat, key.key, t_ns), calls)
            if key.key in REPEAT_KEYS:
                state.repeat_at[key.key] = t_ns + REPEAT_DELAY_NS
            elif key.key == "back":
                state.menu_at = t_ns + MENU_HOLD_NS
        else:
            self._holds(state, t_ns, calls)
            state.repeat_at.pop(key.key, None)
            if key.key == "back":
                state.menu_at = None

    def _emit(self, state: _Seat, event: KeyPress, calls: list[_Call]) -> None:
        """Queue ``post(event)``."""
        state.keys_posted += 1
        calls.append((self._post, (event,)))

    def _holds(self, state: _Seat, now: int, calls: list[_Call]) -> None:
        """Post the repeats and the menu due by ``now`` (drivers.keys' rules): one repeat
        per held key per pass, stamped at its latest scheduled time <= ``now``.

        A hold counts only while the handheld is heard: a repeat (or the menu) due at ``t``
        is posted once a valid packet has arrived at or after ``t``.  The byte stream keeps
        its order, so a packet sent after the key's release arrives after the release
        itself: traffic at ``t`` without a release before it proves the key still held.
        Until then the moment waits and a PING asks for an answer (at most one per
        :data:`REPEAT_INTERVAL_NS`); a silently pulled cable therefore posts no repeat in
        the 1.5 s before the link is declared gone.  With the handheld there, a repeat
        comes one PING round trip after its time (about a millisecond on USB), stamped at
        its time."""
        link = state.link
        heard = link.last_rx_ns if link is not None and link.session else None
        due: list[KeyPress] = []
        waiting = False
        for name, at in state.repeat_at.items():
            if now >= at:
                latest = at + (now - at) // REPEAT_INTERVAL_NS * REPEAT_INTERVAL_NS
                if heard is not None and heard >= latest:
                    due.append(KeyPress(state.seat, name, latest, repeat=True))
                    state.repeat_at[name] = latest + REPEAT_INTERVAL_NS
                else:
                    state.repeat_at[name] = latest
                    waiting = True
        if state.menu_at is not None and now >= state.menu_at:
            if heard is not None and heard >= state.menu_at:
                due.append(KeyPress(state.seat, MENU_KEY, state.menu_at))
                state.menu_at = None
            else:
                waiting = True
        if not waiting:
            state.probe_ns = None
        elif (link is not None and link.session and not link.closed
              and (state.probe_ns is None or now - state.probe_ns >= REPEAT_INTERVAL_NS)):
            state.probe_ns = now
            self._ping(link, now)
        for event in sorted(due, key=lambda e: e.t_ns):
            self._emit(state, event, calls)

    # --- timers, pictures, writing -----------------------------------------------------

    def _timers(self, link: _Link, calls: list[_Call]) -> None:
        """Give up a silent port; send the PING that is due; log the count of error lines
        left out in the last second."""
        now = self._now
        if link.closed:
            return
        self._error_summary(link, now)
        if now - link.last_rx_ns >= LINK_TIMEOUT_NS:
            seconds = LINK_TIMEOUT_NS / 1e9
            if link.session:
                self._drop(link, f"no answer for {seconds:g} s on {link.name} — check its "
                                 "USB cable", calls)
                return
            if not link.valid and link.key not in self._known:
                wait = self._quiet.get(link.key)
                again = (QUIET_RETRY_NS if wait is None
                         else min(wait.wait_ns * 2, MAX_QUIET_RETRY_NS)) / 1e9
                self._say(link.key, f"serial port {link.name}: no handheld answered in "
                                    f"{seconds:g} s; trying it again in {again:g} s")
                if link.bound is not None:
                    self._seats[link.bound].problem = f"nothing answered on {link.name}"
            self._drop(link, f"no answer for {seconds:g} s on {link.name}", calls)
            return
        if now >= link.next_ping_ns:
            link.next_ping_ns = now + PING_INTERVAL_NS
            self._ping(link, now)

    def _ping(self, link: _Link, now: int) -> None:
        """Send a PING on ``link`` (``now``: ``int`` ns, remembered for the round trip)."""
        self._send(link, encode(Ping(), link.ping_seq))
        link.pings[link.ping_seq] = now
        link.pings = {s: t for s, t in link.pings.items() if now - t < LINK_TIMEOUT_NS}
        link.ping_seq = (link.ping_seq + 1) & 0xFFFF

    def _seat_pass(self, state: _Seat, now: int, calls: list[_Call]) -> None:
        """Ship the seat's newest picture, post its due repeats, report a late first
        connection."""
        if state.dirty and state.newest is not None:
            state.frames.show(state.newest)
            state.dirty = False
        link = state.link
        if link is not None and link.session and not link.closed:
            resends = state.frames.resends
            item = state.frames.due(now)
            if item is not None:
                wire = encode(item[1], item[0])
                state.frames_sent += 1
                state.frame_resends += state.frames.resends - resends
                state.frame_bytes += len(wire)
                self._send(link, wire)
        self._holds(state, now, calls)
        if (state.first_deadline_ns is not None and now >= state.first_deadline_ns
                and not state.reported):
            state.first_deadline_ns = None
            self._report_gone(state, self._not_found(state), calls)

    def _not_found(self, state: _Seat) -> str:
        """Why a seat's handheld has not connected, with the fix."""
        seconds = FIRST_CONNECT_NS / 1e9
        if state.problem is not None:
            why = state.problem
        elif state.wanted.startswith("/"):
            why = f"no port {state.wanted}"
        else:
            why = f"no handheld with id {state.wanted} on any port"
        return f"not connected {seconds:g} s after start ({why}) — check its USB cable"

    def _send(self, link: _Link, data: bytes) -> None:
        """Queue ``data`` for ``link``; the flush writes it when the port takes it."""
        if link.closed:
            return
        link.out += data
        if not link.writing:
            link.writing = True
            self._selector.modify(link.fd, selectors.EVENT_READ | selectors.EVENT_WRITE, link)

    def _flush(self, calls: list[_Call]) -> None:
        """Write queued bytes to every port that takes data now."""
        if not any(link.out for link in self._links.values()):
            return
        for key, events in self._selector.select(0):
            link = key.data
            if not isinstance(link, _Link) or link.closed or not events & selectors.EVENT_WRITE:
                continue
            try:
                written = link.port.write(bytes(link.out))
            except PORT_ERRORS as exc:
                self._drop(link, f"unplugged from {link.name} (write failed: "
                                 f"{_error_detail(exc)})", calls)
                continue
            count = len(link.out) if written is None else written
            del link.out[:count]
            link.bytes_out += count
            self._written[link.name] += count
            owner = link.owner()
            if owner is not None:
                self._seats[owner].bytes_out += count
            if not link.out:
                link.writing = False
                self._selector.modify(link.fd, selectors.EVENT_READ, link)
        for link in list(self._links.values()):
            if len(link.out) > MAX_UNSENT:
                self._drop(link, f"{link.name} stopped taking data ({len(link.out)} bytes "
                                 "waiting) — restart the handheld", calls)

    def _deadline(self, now: int) -> int:
        """The earliest time a pass has something to do."""
        times = [self._next_scan_ns]
        for link in self._links.values():
            times += [link.next_ping_ns, link.last_rx_ns + LINK_TIMEOUT_NS]
            if link.err_suppressed:
                times.append(link.err_window_ns + ERROR_WINDOW_NS)
        for state in self._seats.values():
            if state.link is not None and state.link.session:
                resend = state.frames.deadline_ns()
                if resend is not None:
                    times.append(resend)
            for at in (*state.repeat_at.values(), state.menu_at):
                if at is None:
                    continue
                if at > now or state.probe_ns is None:
                    times.append(at)
                else:  # due, waiting to hear from the handheld: a read wakes us, or asks again
                    times.append(state.probe_ns + REPEAT_INTERVAL_NS)
            if state.first_deadline_ns is not None:
                times.append(state.first_deadline_ns)
        return max(min(times), now)

    # --- losing a port -----------------------------------------------------------------

    def _drop(self, link: _Link, reason: str, calls: list[_Call]) -> None:
        """Close ``link``'s port; end its session (reporting the seat gone); a port that
        never sent a valid packet waits before it is opened again."""
        if link.closed:
            return
        link.closed = True
        self._links.pop(link.key, None)
        with contextlib.suppress(KeyError, ValueError, OSError):
            self._selector.unregister(link.fd)
        try:
            link.port.close()
        except Exception as exc:  # closing a vanished port may raise anything pyserial has
            log.debug("serial handhelds: closing %s raised %s", link.name, _one_line(exc))
        if not link.valid and link.key not in self._known:
            self._back_off(link.key, self._now, QUIET_RETRY_NS)
        if link.session or (link.seat is not None
                            and self._seats[link.seat].link is link):
            self._end_session(link, reason, calls)
        elif link.bound is not None and self._seats[link.bound].link is None:
            state = self._seats[link.bound]
            if state.problem is None:
                state.problem = reason

    def _end_session(self, link: _Link, reason: str, calls: list[_Call]) -> None:
        """The seat of ``link``'s session has lost its handheld: report it once."""
        link.session = False
        if link.seat is None:
            return
        state = self._seats[link.seat]
        if state.link is link:
            state.link = None
        state.repeat_at.clear()
        state.menu_at = None
        state.probe_ns = None
        state.frames.restart()
        self._report_gone(state, reason, calls)

    def _report_gone(self, state: _Seat, reason: str, calls: list[_Call]) -> None:
        """``on_gone(seat, "seat N serial handheld X: reason")`` unless already reported."""
        if state.reported:
            return
        state.reported = True
        state.first_deadline_ns = None
        state.gone += 1
        line = f"{state.where()}: {reason}"
        log.info("%s", line)  # the device logs the report it is given (one line, not two)
        if self._on_gone is not None:
            calls.append((self._on_gone, (state.seat, line)))

    def _close_all(self) -> None:
        """Close every port (on the owning thread, at close); nothing is reported."""
        for link in list(self._links.values()):
            link.closed = True
            try:
                link.port.close()
            except Exception as exc:  # a vanished port may raise anything on close
                log.debug("serial handhelds: closing %s raised %s", link.name, _one_line(exc))
        self._links.clear()
        self._selector.close()

    # --- small helpers -----------------------------------------------------------------

    def _nak(self, link: _Link, of: int, reason: NakReason, text: str, t_ns: int, *,
             seq: int = 0) -> None:
        """Send a NAK of ``reason`` unless one went out less than 250 ms ago."""
        self._nak_send(link, Nak(of=of, reason=reason, text=text), seq, t_ns)

    def _nak_send(self, link: _Link, nak: Nak, seq: int, t_ns: int) -> None:
        """Send ``nak`` (rate-limited per reason per port, :data:`NAK_INTERVAL_NS`)."""
        last = link.last_nak_ns.get(nak.reason)
        if last is not None and t_ns - last < NAK_INTERVAL_NS:
            return
        link.last_nak_ns[nak.reason] = t_ns
        self._send(link, encode(nak, seq))

    def _say(self, key: str, line: str) -> None:
        """Log ``line`` once per device (until it leaves the port listing)."""
        said = self._said.setdefault(key, set())
        if line not in said:
            said.add(line)
            log.warning("%s", line)

    def _where(self, link: _Link) -> str:
        """``"seat 3 serial handheld X on /dev/ttyACM0"`` or ``"serial port /dev/ttyACM0"``."""
        owner = link.owner()
        if owner is None:
            return f"serial port {link.name}"
        return f"{self._seats[owner].where()} on {link.name}"

    def _show(self, seat: int, pages: tuple[bytes, ...]) -> None:
        """Store seat ``seat``'s newest picture (from :meth:`SerialHandheldDisplay.display`)."""
        with self._lock:
            state = self._seats[seat]
            if self._closed:
                raise DriverClosedError(state.name, "used after close()", seat=seat)
            state.newest = pages
            state.dirty = True
        self._wake()

    def _seat_or_raise(self, seat: int) -> _Seat:
        """The seat's state, or NotWiredError naming the serial seats."""
        state = self._seats.get(seat) if isinstance(seat, int) else None
        if state is None:
            seats = ", ".join(str(n + 1) for n in self._seats) or "none"
            raise NotWiredError("serial handhelds",
                                f"seat {seat!r} has no serial handheld (serial seats: {seats})")
        return state

    def _seat_stats(self, s: _Seat) -> HandheldStats:
        """A frozen copy of one seat's counters."""
        link = s.link
        return HandheldStats(
            seat=s.seat, wanted=s.wanted, connected=link is not None and link.session,
            port=s.port, handheld_id=s.handheld_id, sessions=s.sessions, gone=s.gone,
            keys_applied=s.keys_applied, keys_duplicate=s.keys_duplicate, keys_gap=s.keys_gap,
            keys_posted=s.keys_posted, frames_sent=s.frames_sent,
            frame_resends=s.frame_resends, frames_acked=s.frames_acked,
            frame_bytes=s.frame_bytes, bytes_in=s.bytes_in, bytes_out=s.bytes_out,
            bad=dict(s.bad), refused=dict(s.refused), rtt_ns=s.rtt_ns)

    @staticmethod
    def _check_wanted(wanted: Mapping[int, str]) -> None:
        """Raise DriverValueError for a bad seat or id, or one id at two seats."""
        if not isinstance(wanted, Mapping):
            raise DriverValueError("serial handhelds",
                                   f"wanted must map seat -> handheld id, got {wanted!r}")
        seen: dict[str, int] = {}
        for seat, ident in wanted.items():
            if not is_int(seat) or seat < 0:
                raise DriverValueError("serial handhelds",
                                       f"seat must be an int >= 0, got {seat!r}")
            if not isinstance(ident, str) or not ident or any(
                    c.isspace() or not c.isprintable() for c in ident):
                raise DriverValueError("serial handhelds",
                                       f"handheld id must be a non-empty string without "
                                       f"spaces, got {ident!r}", seat=seat)
            if ident in seen:
                raise DriverValueError("serial handhelds",
                                       f"handheld {ident!r} is given to seat "
                                       f"{seen[ident] + 1} too", seat=seat)
            seen[ident] = seat



def _label(ident: str) -> str:
    """A wanted id for messages: a by-id path's name, anything else as it is."""
    if ident.startswith(BY_ID_DIR + "/"):
        return ident[len(BY_ID_DIR) + 1:]
    return ident


def _clip(text: str) -> str:
    """``text`` cut to a NAK's :data:`~drivers.handheld_codec.MAX_TEXT` characters."""
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 3] + "..."


def _one_line(exc: BaseException) -> str:
    """``str(exc)`` on one line (its type's name when empty)."""
    return " ".join((str(exc) or type(exc).__name__).split())


def _error_detail(exc: BaseException) -> str:
    """What a port error says, without pyserial's ``"read failed: "`` prefix; a
    ``termios.error`` ``(5, 'Input/output error')`` reads ``[Errno 5] Input/output error``."""
    if isinstance(exc, termios.error) and len(exc.args) == 2:
        return f"[Errno {exc.args[0]}] {exc.args[1]}"
    text = _one_line(exc)
    for prefix in ("read failed: ", "write failed: "):
        if text.startswith(prefix):
            return text[len(prefix):]
    return text


def _is_permission(exc: BaseException) -> bool:
    """True for EACCES / EPERM, as an ``OSError`` or inside pyserial's message."""
    if isinstance(exc, OSError) and exc.errno in (errno.EACCES, errno.EPERM):
        return True
    return "Permission denied" in str(exc)

