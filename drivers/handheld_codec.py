"""The serial handheld's wire protocol as a pure codec: framing, CRC, messages, sequence rules.

The datasheet is ``hardware/handheld/PROTOCOL.md``; this module is its executable half and a
test checks every wire example in the document against it.  It does no I/O, starts no thread
and reads no clock (docs/style.md, drivers: "a pure codec module ... and a thin link thread", the
habit of Klipper's ``klippy/msgproto.py``): the link thread that owns the pyserial port feeds
it bytes and passes times in.

A packet on the wire is ``COBS(body) 0x00`` with ``body = type u8 | seq u16 BE | payload |
CRC u16 BE``; the CRC is CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, no
reflection, no final XOR) = ``binascii.crc_hqx(type|seq|payload, 0xFFFF)``.  COBS comes from
the ``cobs`` package (a C extension with a pure-Python fallback).

What is here:

- the messages, frozen dataclasses validated on construction: :class:`Hello`,
  :class:`Welcome`, :class:`Ping`, :class:`Pong`, :class:`Key`, :class:`Frame`,
  :class:`FrameRequest`, :class:`Ack`, :class:`Nak`; :data:`SENDER` says which side sends
  which; a decoded one arrives as a :class:`Packet` ``(seq, msg)``;
- :func:`encode` ``(msg, seq) -> bytes`` (one whole packet with its delimiter) and the
  incremental :class:`Decoder` (any split of the stream; never raises; counts every bad
  packet by reason with a one-line description);
- sequence numbers: :func:`seq_next`, :func:`seq_diff` (RFC 1982 serial arithmetic on u16);
- version negotiation: :func:`negotiate` (the Pi's answer to a HELLO), :func:`version_problem`;
- the reliability state machines, pure and driven by the link: :class:`KeyDedup` (the Pi:
  each KEY applied exactly once, across resends and reconnects), :class:`KeySender` (the
  handheld's queue of unacknowledged keys, for an emulator and as the firmware's reference),
  :class:`FrameSender` (the Pi: stop-and-wait page shipping with resend);
- pictures: :func:`image_pages` (a 128x64 mode ``"1"`` PIL image -> 8 SSD1306 pages),
  :func:`pages_image`, :func:`changed_pages`, :func:`diff_frame`, :func:`apply_frame`.

Invalid arguments raise :class:`~drivers.errors.DriverValueError` (device ``"handheld
codec"``) with one line naming the field and the value.

>>> wire = encode(Key(key="select", down=True, t_ms=1234), seq=7)
>>> wire.hex(" ")
'02 05 04 07 02 01 01 05 04 d2 70 10 00'
>>> Decoder(receiver="pi").feed(wire)
[Packet(seq=7, msg=Key(key='select', down=True, t_ms=1234))]
"""

from __future__ import annotations

import binascii
import enum
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Final, Self

from cobs import cobs as _cobs  # type: ignore[import-untyped]
from PIL import Image

from drivers.errors import DriverValueError
from drivers.values import is_int

__all__ = [
    "CRC_INIT",
    "FRAME_RESEND_NS",
    "HEIGHT",
    "HELLO_INTERVAL_MS",
    "KEY_CODES",
    "KEY_QUEUE",
    "KEY_RESEND_MS",
    "LINK_TIMEOUT_NS",
    "MAX_BODY",
    "MAX_BOOTS",
    "MAX_ENCODED",
    "MAX_FIRMWARE",
    "MAX_ID",
    "MAX_TEXT",
    "MAX_WIRE",
    "PAGES",
    "PAGE_BYTES",
    "PING_INTERVAL_NS",
    "PROTOCOL_VERSION",
    "REASONS",
    "SENDER",
    "SUPPORTED_VERSIONS",
    "WIDTH",
    "Ack",
    "Decoder",
    "Frame",
    "FrameRequest",
    "FrameSender",
    "Hello",
    "Key",
    "KeyDedup",
    "KeySender",
    "KeyVerdict",
    "Message",
    "MsgType",
    "Nak",
    "NakReason",
    "Packet",
    "Ping",
    "Pong",
    "Welcome",
    "apply_frame",
    "blank_pages",
    "changed_pages",
    "crc16",
    "diff_frame",
    "encode",
    "image_pages",
    "negotiate",
    "pages_image",
    "seq_diff",
    "seq_next",
    "version_problem",
]

_WHO: Final = "handheld codec"

# --- protocol constants (PROTOCOL.md, "Limits" and "Timing") ---------------------------------

PROTOCOL_VERSION: Final = 1
"""The protocol version this codec speaks (PROTOCOL.md, "Version negotiation")."""

SUPPORTED_VERSIONS: Final[tuple[int, ...]] = (1,)
"""Every protocol version this codec can speak, ascending."""

WIDTH: Final = 128
"""Screen width in pixels: an SSD1306/SH1106 128x64 OLED (docs/architecture.md, hardware)."""

HEIGHT: Final = 64
"""Screen height in pixels."""

PAGES: Final = 8
"""SSD1306 pages per frame: page ``p`` holds rows ``8p .. 8p+7``."""

PAGE_BYTES: Final = 128
"""Bytes per page: byte ``i`` is column ``i``, bit ``b`` is row ``8p + b`` (LSB on top)."""

CRC_INIT: Final = 0xFFFF
"""Initial value given to ``binascii.crc_hqx``: CRC-16/CCITT-FALSE (check value 0x29B1)."""

MAX_ID: Final = 32
"""Longest handheld id in a HELLO, bytes of printable ASCII without spaces."""

MAX_FIRMWARE: Final = 16
"""Longest firmware version text in a HELLO, bytes of printable ASCII."""

MAX_TEXT: Final = 64
"""Longest NAK text, bytes of printable ASCII."""

_HEADER: Final = 3
_CRC: Final = 2
_MIN_BODY: Final = _HEADER + _CRC

MAX_BODY: Final = _HEADER + 1 + PAGES * PAGE_BYTES + _CRC
"""Largest body before COBS: a FRAME with all 8 pages, 1,030 bytes."""

MAX_ENCODED: Final = MAX_BODY + (MAX_BODY + 253) // 254
"""Largest COBS-encoded body (without the delimiter), 1,035 bytes; a receiver drops a longer
run without a 0x00 as oversized."""

MAX_WIRE: Final = MAX_ENCODED + 1
"""Largest packet on the wire with its 0x00 delimiter, 1,036 bytes."""

PING_INTERVAL_NS: Final = 250_000_000
"""The Pi sends a PING every 250 ms (PROTOCOL.md, "Heartbeat")."""

LINK_TIMEOUT_NS: Final = 1_500_000_000
"""1.5 s without a valid packet from the other side: the link is gone."""

FRAME_RESEND_NS: Final = 250_000_000
"""An unacknowledged FRAME is replaced by a fresh one after 250 ms."""

KEY_RESEND_MS: Final = 100
"""The handheld resends its unacknowledged KEYs after 100 ms without an ACK that advances."""

HELLO_INTERVAL_MS: Final = 500
"""A handheld without a WELCOME sends HELLO every 500 ms."""

KEY_QUEUE: Final = 32
"""How many unacknowledged KEYs a handheld keeps; a key pressed while it is full is dropped
(and gets no sequence number, so no gap appears)."""

KEY_CODES: Final[tuple[str, ...]] = ("left", "right", "select", "back")
"""KEY wire codes 0..3, the same names as ``drivers.keys.KEY_NAMES``."""


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE of ``data``: ``binascii.crc_hqx(data, 0xFFFF)``, an int 0..0xFFFF.

    >>> hex(crc16(b"123456789"))
    '0x29b1'
    """
    return binascii.crc_hqx(data, CRC_INIT)


# --- sequence numbers -------------------------------------------------------------------------


def seq_next(seq: int) -> int:
    """The sequence number after ``seq`` (u16, 65535 wraps to 0).

    >>> seq_next(65535)
    0
    """
    return (seq + 1) & 0xFFFF


def seq_diff(a: int, b: int) -> int:
    """``a - b`` in u16 serial arithmetic (RFC 1982), an int in -32768 .. 32767.

    Positive means ``a`` is after ``b``; numbers exactly 32768 apart count as ``a`` before
    ``b``.  Every window in the protocol is far smaller than 32768.

    >>> seq_diff(2, 65534), seq_diff(65534, 2), seq_diff(5, 5)
    (4, -4, 0)
    """
    return ((a - b + 0x8000) & 0xFFFF) - 0x8000


# --- messages ---------------------------------------------------------------------------------


class MsgType(enum.IntEnum):
    """The type byte, byte 0 of every body (PROTOCOL.md, "Messages")."""

    HELLO = 0x01
    WELCOME = 0x02
    PING = 0x03
    PONG = 0x04
    KEY = 0x05
    FRAME = 0x06
    FRAME_REQUEST = 0x07
    ACK = 0x08
    NAK = 0x09


class NakReason(enum.IntEnum):
    """Why a NAK refuses (PROTOCOL.md, "NAK")."""

    VERSION = 1
    """No protocol version in common (answers a HELLO; the handheld shows the text)."""
    SCREEN = 2
    """The handheld's screen is not 128x64 (answers a HELLO)."""
    HELLO_FIRST = 3
    """The receiver has no session with the sender: send HELLO first."""
    CORRUPT = 4
    """A bad packet arrived (``of`` = 0, seq 0): resend everything unacknowledged now."""
    REFUSED = 5
    """Anything else; the text says what."""


def _fail(problem: str) -> DriverValueError:
    return DriverValueError(_WHO, problem)


def _check_uint(owner: str, name: str, value: object, bits: int) -> None:
    """Raise DriverValueError unless ``value`` is an int (not bool) in 0 .. 2**bits - 1."""
    if not is_int(value) or not 0 <= value < 1 << bits:
        raise _fail(f"{owner}.{name} must be an integer 0..{(1 << bits) - 1}, got {value!r}")


def _check_text(owner: str, name: str, value: object, limit: int, *, spaces: bool,
                empty: bool) -> None:
    """Raise DriverValueError unless ``value`` is printable ASCII of at most ``limit`` bytes."""
    if not isinstance(value, str):
        raise _fail(f"{owner}.{name} must be a str, got {value!r}")
    if len(value) > limit or (not empty and not value):
        low = 0 if empty else 1
        raise _fail(f"{owner}.{name} must be {low}..{limit} characters, got {len(value)}")
    low_char = 0x20 if spaces else 0x21
    bad = [c for c in value if not low_char <= ord(c) <= 0x7E]
    if bad:
        what = "printable ASCII" if spaces else "printable ASCII without spaces"
        raise _fail(f"{owner}.{name} must be {what}, got {bad[0]!r} in {value!r}")


def _text_ok(raw: bytes, *, spaces: bool) -> bool:
    low = 0x20 if spaces else 0x21
    return all(low <= b <= 0x7E for b in raw)


class _Bad(Exception):
    """A packet the decoder refuses: ``reason`` (one of :data:`REASONS`) and one line."""

    def __init__(self, reason: str, text: str) -> None:
        super().__init__(text)
        self.reason = reason
        self.text = text


def _need(payload: bytes, size: int, name: str, *, exact: bool = True) -> None:
    if (len(payload) != size) if exact else (len(payload) < size):
        want = f"{size}" if exact else f"at least {size}"
        raise _Bad("bad_length", f"{name} payload is {len(payload)} bytes, expected {want}")


@dataclass(frozen=True, slots=True)
class Hello:
    """Handheld -> Pi, first after connecting: who it is and what it speaks (type 0x01).

    - ``handheld_id``: 1..32 characters of printable ASCII without spaces (the config's
      serial handheld ``id`` may name it), e.g. ``machine.unique_id()`` in hex;
    - ``firmware``: 0..16 characters of printable ASCII, e.g. ``"1.0.0"``;
    - ``version_min``, ``version_max``: the protocol versions it speaks (u8, min <= max);
    - ``boot_id``: u32 drawn at random at power-up (same value = same KEY counter);
    - ``next_key_seq``: u16, the seq of its oldest unacknowledged KEY, or of its next new
      KEY when none is waiting;
    - ``width``, ``height``: its screen in pixels (u8 each; the Pi drives 128x64);
    - ``keys``: the key names it has, in :data:`KEY_CODES` order (a bit mask on the wire).

    On the wire the payload ends with an extension (a length byte, then later versions'
    fields); this codec writes it empty and skips it when reading.  Raises
    DriverValueError naming the field when a value is out of range.
    """

    handheld_id: str
    firmware: str
    boot_id: int
    next_key_seq: int
    version_min: int = PROTOCOL_VERSION
    version_max: int = PROTOCOL_VERSION
    width: int = WIDTH
    height: int = HEIGHT
    keys: tuple[str, ...] = KEY_CODES
    type: ClassVar[MsgType] = MsgType.HELLO

    def __post_init__(self) -> None:
        """Check every field (see the class docstring)."""
        _check_text("Hello", "handheld_id", self.handheld_id, MAX_ID, spaces=False, empty=False)
        _check_text("Hello", "firmware", self.firmware, MAX_FIRMWARE, spaces=True, empty=True)
        _check_uint("Hello", "boot_id", self.boot_id, 32)
        _check_uint("Hello", "next_key_seq", self.next_key_seq, 16)
        for name in ("version_min", "version_max", "width", "height"):
            _check_uint("Hello", name, getattr(self, name), 8)
        if self.version_min > self.version_max:
            raise _fail(f"Hello.version_min {self.version_min} is above "
                        f"version_max {self.version_max}")
        if not isinstance(self.keys, tuple) or any(k not in KEY_CODES for k in self.keys):
            raise _fail(f"Hello.keys must be a tuple of {', '.join(KEY_CODES)}, "
                        f"got {self.keys!r}")
        if list(self.keys) != sorted(set(self.keys), key=KEY_CODES.index):
            raise _fail(f"Hello.keys must be unique and in the order {', '.join(KEY_CODES)}, "
                        f"got {self.keys!r}")

    def payload(self) -> bytes:
        """The payload bytes (PROTOCOL.md, "HELLO")."""
        mask = sum(1 << KEY_CODES.index(k) for k in self.keys)
        ident = self.handheld_id.encode("ascii")
        firmware = self.firmware.encode("ascii")
        return (bytes([self.version_min, self.version_max]) + self.boot_id.to_bytes(4, "big")
                + self.next_key_seq.to_bytes(2, "big")
                + bytes([self.width, self.height, mask, len(ident)]) + ident
                + bytes([len(firmware)]) + firmware + b"\x00")

    @classmethod
    def parse(cls, payload: bytes) -> Hello:
        """Read a HELLO payload; its extension bytes (later versions' fields) are skipped.

        Raises :class:`_Bad` (``bad_length`` / ``bad_field``) naming the byte.
        """
        _need(payload, 13, "HELLO", exact=False)
        id_len = payload[11]
        if not 1 <= id_len <= MAX_ID:
            raise _Bad("bad_field", f"HELLO id length {id_len} at payload byte 11 is not "
                                    f"1..{MAX_ID}")
        fw_at = 12 + id_len
        _need(payload, fw_at + 1, "HELLO", exact=False)
        fw_len = payload[fw_at]
        if fw_len > MAX_FIRMWARE:
            raise _Bad("bad_field", f"HELLO firmware length {fw_len} at payload byte {fw_at} "
                                    f"is above {MAX_FIRMWARE}")
        ext_at = fw_at + 1 + fw_len
        _need(payload, ext_at + 1, "HELLO", exact=False)
        _need(payload, ext_at + 1 + payload[ext_at],
              f"HELLO (id {id_len}, firmware {fw_len}, extension {payload[ext_at]} bytes)")
        ident = payload[12:fw_at]
        firmware = payload[fw_at + 1:fw_at + 1 + fw_len]
        if not _text_ok(ident, spaces=False):
            raise _Bad("bad_field", f"HELLO id {ident!r} at payload byte 12 is not printable "
                                    "ASCII without spaces")
        if not _text_ok(firmware, spaces=True):
            raise _Bad("bad_field", f"HELLO firmware {firmware!r} at payload byte {fw_at + 1} "
                                    "is not printable ASCII")
        mask = payload[10]
        if mask > 0x0F:
            raise _Bad("bad_field", f"HELLO key mask 0x{mask:02x} at payload byte 10 has bits "
                                    "above bit 3")
        if payload[0] > payload[1]:
            raise _Bad("bad_field", f"HELLO version_min {payload[0]} (payload byte 0) is above "
                                    f"version_max {payload[1]}")
        return cls(handheld_id=ident.decode("ascii"), firmware=firmware.decode("ascii"),
                   version_min=payload[0], version_max=payload[1],
                   boot_id=int.from_bytes(payload[2:6], "big"),
                   next_key_seq=int.from_bytes(payload[6:8], "big"),
                   width=payload[8], height=payload[9],
                   keys=tuple(k for i, k in enumerate(KEY_CODES) if mask >> i & 1))


@dataclass(frozen=True, slots=True)
class Welcome:
    """Pi -> handheld, the answer to a HELLO it accepts (type 0x02; seq = the HELLO's seq).

    - ``version``: the protocol version both will speak from now on (u8);
    - ``key_ack``: u16, the last KEY seq the Pi has applied from this handheld's boot: the
      handheld drops queued KEYs up to it and resends the rest, in order;
    - ``ping_interval_ms``, ``timeout_ms``: u16, the heartbeat the Pi keeps (250, 1500).

    Raises DriverValueError naming the field when a value is out of range.
    """

    version: int
    key_ack: int
    ping_interval_ms: int = PING_INTERVAL_NS // 1_000_000
    timeout_ms: int = LINK_TIMEOUT_NS // 1_000_000
    type: ClassVar[MsgType] = MsgType.WELCOME

    def __post_init__(self) -> None:
        """Check every field."""
        _check_uint("Welcome", "version", self.version, 8)
        for name in ("key_ack", "ping_interval_ms", "timeout_ms"):
            _check_uint("Welcome", name, getattr(self, name), 16)

    def payload(self) -> bytes:
        """The payload bytes (PROTOCOL.md, "WELCOME")."""
        return (bytes([self.version]) + self.key_ack.to_bytes(2, "big")
                + self.ping_interval_ms.to_bytes(2, "big") + self.timeout_ms.to_bytes(2, "big"))

    @classmethod
    def parse(cls, payload: bytes) -> Welcome:
        """Read a WELCOME payload; raises :class:`_Bad` on a wrong length."""
        _need(payload, 7, "WELCOME")
        return cls(version=payload[0], key_ack=int.from_bytes(payload[1:3], "big"),
                   ping_interval_ms=int.from_bytes(payload[3:5], "big"),
                   timeout_ms=int.from_bytes(payload[5:7], "big"))


class _Empty:
    """A message without a payload (PING, FRAME_REQUEST): its ``type`` names it."""

    __slots__ = ()
    type: ClassVar[MsgType]

    def payload(self) -> bytes:
        """Empty."""
        return b""

    @classmethod
    def parse(cls, payload: bytes) -> Self:
        """Read the message's payload (empty); raises :class:`_Bad` on a wrong length."""
        _need(payload, 0, cls.type.name)
        return cls()


@dataclass(frozen=True, slots=True)
class Ping(_Empty):
    """Pi -> handheld heartbeat every 250 ms (type 0x03; seq = the Pi's ping counter)."""

    type: ClassVar[MsgType] = MsgType.PING


@dataclass(frozen=True, slots=True)
class Pong:
    """Handheld -> Pi, the answer to a PING (type 0x04; seq = the PING's seq).

    ``t_ms``: u32, the handheld's millisecond clock when it answered (the same clock as
    :attr:`Key.t_ms`), so the link can relate key times to its own clock.
    """

    t_ms: int
    type: ClassVar[MsgType] = MsgType.PONG

    def __post_init__(self) -> None:
        """Check ``t_ms``."""
        _check_uint("Pong", "t_ms", self.t_ms, 32)

    def payload(self) -> bytes:
        """The payload bytes (PROTOCOL.md, "PONG")."""
        return self.t_ms.to_bytes(4, "big")

    @classmethod
    def parse(cls, payload: bytes) -> Pong:
        """Read a PONG payload; raises :class:`_Bad` on a wrong length."""
        _need(payload, 4, "PONG")
        return cls(t_ms=int.from_bytes(payload, "big"))


@dataclass(frozen=True, slots=True)
class Key:
    """Handheld -> Pi: a key went down or up (type 0x05; seq = the handheld's KEY counter).

    - ``key``: one of :data:`KEY_CODES` (``"left"``, ``"right"``, ``"select"``, ``"back"``);
    - ``down``: True when pressed, False when released;
    - ``t_ms``: u32, the handheld's millisecond clock at the (debounced) edge; wraps.

    Acknowledged by the Pi (cumulative ACK); resent until acknowledged.  Raises
    DriverValueError naming the field when a value is out of range.
    """

    key: str
    down: bool
    t_ms: int
    type: ClassVar[MsgType] = MsgType.KEY

    def __post_init__(self) -> None:
        """Check every field."""
        if self.key not in KEY_CODES:
            raise _fail(f"Key.key must be one of {', '.join(KEY_CODES)}, got {self.key!r}")
        if not isinstance(self.down, bool):
            raise _fail(f"Key.down must be a bool, got {self.down!r}")
        _check_uint("Key", "t_ms", self.t_ms, 32)

    def payload(self) -> bytes:
        """The payload bytes (PROTOCOL.md, "KEY")."""
        return bytes([KEY_CODES.index(self.key), int(self.down)]) + self.t_ms.to_bytes(4, "big")

    @classmethod
    def parse(cls, payload: bytes) -> Key:
        """Read a KEY payload; raises :class:`_Bad` naming the byte."""
        _need(payload, 6, "KEY")
        if payload[0] >= len(KEY_CODES):
            raise _Bad("bad_field", f"KEY key code {payload[0]} at payload byte 0 is not 0..3")
        if payload[1] > 1:
            raise _Bad("bad_field", f"KEY state {payload[1]} at payload byte 1 is not 0 or 1")
        return cls(key=KEY_CODES[payload[0]], down=payload[1] == 1,
                   t_ms=int.from_bytes(payload[2:6], "big"))


@dataclass(frozen=True, slots=True)
class Frame:
    """Pi -> handheld: some 8-row pages of the picture (type 0x06; seq = the Pi's FRAME counter).

    ``pages``: ``(page index 0..7, 128 bytes)`` pairs in ascending index order, any subset
    (empty allowed); each page in SSD1306 layout (byte ``i`` = column ``i``, bit ``b`` = row
    ``8p + b``).  Pages are absolute contents, so applying a FRAME twice is harmless.  The
    handheld acknowledges each FRAME (ACK of FRAME, same seq).

    Raises DriverValueError naming the page when an index or size is wrong.
    """

    pages: tuple[tuple[int, bytes], ...]
    type: ClassVar[MsgType] = MsgType.FRAME

    def __post_init__(self) -> None:
        """Check indices (0..7, ascending, unique) and sizes (128 bytes each)."""
        if not isinstance(self.pages, tuple):
            raise _fail(f"Frame.pages must be a tuple of (index, bytes), got {self.pages!r}")
        last = -1
        for item in self.pages:
            if not (isinstance(item, tuple) and len(item) == 2):
                raise _fail(f"Frame.pages items must be (index, bytes) pairs, got {item!r}")
            index, data = item
            _check_uint("Frame", "pages index", index, 3)
            if index <= last:
                raise _fail(f"Frame.pages indices must be ascending and unique, "
                            f"got {index} after {last}")
            if not isinstance(data, bytes) or len(data) != PAGE_BYTES:
                size = len(data) if isinstance(data, bytes | bytearray) else type(data).__name__
                raise _fail(f"Frame page {index} must be {PAGE_BYTES} bytes, got {size}")
            last = index

    @classmethod
    def of(cls, pages: Sequence[bytes], which: Iterable[int] = range(PAGES)) -> Frame:
        """The FRAME carrying pages ``which`` (default all 8) of ``pages`` (8 x 128 bytes)."""
        return cls(pages=tuple((i, bytes(pages[i])) for i in sorted(set(which))))

    @property
    def mask(self) -> int:
        """The page mask byte: bit ``p`` set when page ``p`` is carried."""
        return sum(1 << index for index, _ in self.pages)

    def payload(self) -> bytes:
        """The payload bytes: the mask, then each carried page in ascending order."""
        return bytes([self.mask]) + b"".join(data for _, data in self.pages)

    @classmethod
    def parse(cls, payload: bytes) -> Frame:
        """Read a FRAME payload; raises :class:`_Bad` when its length does not fit its mask."""
        _need(payload, 1, "FRAME", exact=False)
        mask = payload[0]
        indices = [p for p in range(PAGES) if mask >> p & 1]
        _need(payload, 1 + PAGE_BYTES * len(indices), f"FRAME (mask 0x{mask:02x})")
        return cls(pages=tuple(
            (p, bytes(payload[1 + k * PAGE_BYTES:1 + (k + 1) * PAGE_BYTES]))
            for k, p in enumerate(indices)))

    def __repr__(self) -> str:
        """``Frame(pages=((3, bytes.fromhex('00ff...')),))``: short enough to log."""
        shown = ", ".join(f"({i}, bytes.fromhex('{d.hex()}'))" for i, d in self.pages)
        return f"Frame(pages=({shown}{',' if len(self.pages) == 1 else ''}))"


@dataclass(frozen=True, slots=True)
class FrameRequest(_Empty):
    """Handheld -> Pi: "my picture is incomplete, send every page" (type 0x07).

    seq = the handheld's request counter.  The Pi answers with a FRAME of all 8 pages.
    """

    type: ClassVar[MsgType] = MsgType.FRAME_REQUEST


_ACKED: Final = (MsgType.KEY, MsgType.FRAME)


@dataclass(frozen=True, slots=True)
class Ack:
    """Acknowledges the packet whose seq is this packet's seq (type 0x08).

    ``of``: the acknowledged type, :attr:`MsgType.KEY` (Pi -> handheld, cumulative: every
    KEY up to and including seq has been applied) or :attr:`MsgType.FRAME` (handheld -> Pi:
    that FRAME's pages are in the handheld's framebuffer).
    """

    of: MsgType
    type: ClassVar[MsgType] = MsgType.ACK

    def __post_init__(self) -> None:
        """Check ``of``."""
        if self.of not in _ACKED:
            raise _fail(f"Ack.of must be MsgType.KEY or MsgType.FRAME, got {self.of!r}")

    def payload(self) -> bytes:
        """The payload byte: the acknowledged type."""
        return bytes([self.of])

    @classmethod
    def parse(cls, payload: bytes) -> Ack:
        """Read an ACK payload; raises :class:`_Bad` for a type that is never acknowledged."""
        _need(payload, 1, "ACK")
        if payload[0] not in _ACKED:
            raise _Bad("bad_field", f"ACK of type 0x{payload[0]:02x} at payload byte 0: only "
                                    "KEY (0x05) and FRAME (0x06) are acknowledged")
        return cls(of=MsgType(payload[0]))


@dataclass(frozen=True, slots=True)
class Nak:
    """Refuses the packet whose seq is this packet's seq, and says why (type 0x09).

    - ``of``: the refused packet's type, or 0 when it could not be read (``CORRUPT``);
    - ``reason``: a :class:`NakReason`;
    - ``text``: 0..64 characters of printable ASCII for a log line or the handheld's screen,
      e.g. ``"protocol version 3 not supported (this Pi speaks 1)"``.
    """

    of: int
    reason: NakReason
    text: str = ""
    type: ClassVar[MsgType] = MsgType.NAK

    def __post_init__(self) -> None:
        """Check every field."""
        if self.of != 0 and self.of not in set(MsgType):
            raise _fail(f"Nak.of must be 0 or a MsgType, got {self.of!r}")
        if not isinstance(self.reason, NakReason):
            raise _fail(f"Nak.reason must be a NakReason, got {self.reason!r}")
        _check_text("Nak", "text", self.text, MAX_TEXT, spaces=True, empty=True)

    def payload(self) -> bytes:
        """The payload bytes: of, reason, text length, text."""
        return bytes([self.of, self.reason, len(self.text)]) + self.text.encode("ascii")

    @classmethod
    def parse(cls, payload: bytes) -> Nak:
        """Read a NAK payload; raises :class:`_Bad` naming the byte."""
        _need(payload, 3, "NAK", exact=False)
        _need(payload, 3 + payload[2], f"NAK (text {payload[2]} bytes)")
        of, reason, text = payload[0], payload[1], payload[3:]
        if of != 0 and of not in set(MsgType):
            raise _Bad("bad_field", f"NAK of type 0x{of:02x} at payload byte 0 is unknown")
        if reason not in set(NakReason):
            raise _Bad("bad_field", f"NAK reason {reason} at payload byte 1 is unknown")
        if len(text) > MAX_TEXT or not _text_ok(text, spaces=True):
            raise _Bad("bad_field", f"NAK text at payload byte 3 is not 0..{MAX_TEXT} bytes of "
                                    "printable ASCII")
        return cls(of=MsgType(of) if of else 0, reason=NakReason(reason),
                   text=text.decode("ascii"))


Message = Hello | Welcome | Ping | Pong | Key | Frame | FrameRequest | Ack | Nak
"""Any protocol message."""

_CLASSES: Final[dict[int, Callable[[bytes], Message]]] = {
    MsgType.HELLO: Hello.parse,
    MsgType.WELCOME: Welcome.parse,
    MsgType.PING: Ping.parse,
    MsgType.PONG: Pong.parse,
    MsgType.KEY: Key.parse,
    MsgType.FRAME: Frame.parse,
    MsgType.FRAME_REQUEST: FrameRequest.parse,
    MsgType.ACK: Ack.parse,
    MsgType.NAK: Nak.parse,
}

SENDER: Final[dict[MsgType, str]] = {
    MsgType.HELLO: "handheld",
    MsgType.WELCOME: "pi",
    MsgType.PING: "pi",
    MsgType.PONG: "handheld",
    MsgType.KEY: "handheld",
    MsgType.FRAME: "pi",
    MsgType.FRAME_REQUEST: "handheld",
    MsgType.ACK: "both",
    MsgType.NAK: "both",
}
"""The direction table: who sends each type, ``"pi"``, ``"handheld"`` or ``"both"``."""


@dataclass(frozen=True, slots=True)
class Packet:
    """One decoded packet: ``seq`` (u16 header sequence number) and ``msg`` (a Message)."""

    seq: int
    msg: Message


def encode(msg: Message, seq: int) -> bytes:
    """One whole packet on the wire: ``COBS(type | seq | payload | CRC) 0x00``.

    ``msg``: a message; ``seq``: the header sequence number, an int 0..65535 (PROTOCOL.md,
    "Sequence numbers" says which number each type carries).  Returns at most
    :data:`MAX_WIRE` bytes, ending in the only 0x00.  Raises DriverValueError for a seq out
    of range or an object that is not a message.

    >>> encode(Ping(), seq=1).hex(" ")
    '02 03 04 01 85 ed 00'
    """
    _check_uint("encode", "seq", seq, 16)
    if not isinstance(msg, Hello | Welcome | Ping | Pong | Key | Frame | FrameRequest | Ack
                      | Nak):
        raise _fail(f"encode: not a protocol message: {msg!r}")
    head = bytes([msg.type]) + seq.to_bytes(2, "big") + msg.payload()
    body = head + crc16(head).to_bytes(2, "big")
    return bytes(_cobs.encode(body)) + b"\x00"


# --- version negotiation ----------------------------------------------------------------------


def _versions(versions: Sequence[int]) -> str:
    ordered = sorted(versions)
    if len(ordered) > 1 and ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"{ordered[0]}-{ordered[-1]}"
    return ", ".join(str(v) for v in ordered)


def version_problem(hello: Hello, speaks: Sequence[int] = SUPPORTED_VERSIONS) -> str | None:
    """Why no version is common to ``hello``'s range and ``speaks``, or None when one is.

    >>> h = Hello(handheld_id="hh", firmware="", boot_id=0, next_key_seq=0,
    ...           version_min=3, version_max=3)
    >>> version_problem(h)
    'protocol version 3 not supported (this Pi speaks 1)'
    """
    if any(hello.version_min <= v <= hello.version_max for v in speaks):
        return None
    if hello.version_min == hello.version_max:
        offered = f"version {hello.version_min}"
    else:
        offered = f"versions {hello.version_min}-{hello.version_max}"
    return f"protocol {offered} not supported (this Pi speaks {_versions(speaks)})"


def negotiate(hello: Hello, dedup: KeyDedup, *, speaks: Sequence[int] = SUPPORTED_VERSIONS,
              ping_interval_ms: int = PING_INTERVAL_NS // 1_000_000,
              timeout_ms: int = LINK_TIMEOUT_NS // 1_000_000,
              hello_seq: int | None = None) -> Welcome | Nak:
    """The Pi's answer to ``hello``: a Welcome with the highest common version, or a Nak.

    ``dedup``: this handheld id's :class:`KeyDedup`; only when the answer is a Welcome is
    ``dedup.hello(hello, hello_seq)`` called, giving the Welcome's ``key_ack``
    (``hello_seq``: the HELLO's header seq, which tells a restarted board that repeats its
    ``boot_id``; None skips that check).  ``speaks``: the
    versions this Pi speaks.  A Nak has ``of=HELLO`` and reason VERSION (no common version)
    or SCREEN (not 128x64), with a text the handheld shows (PROTOCOL.md, "Session and
    version negotiation").  Send the answer with the HELLO's seq.

    >>> h = Hello(handheld_id="hh", firmware="", boot_id=0, next_key_seq=0, width=128,
    ...           height=32)
    >>> negotiate(h, KeyDedup()).text
    'screen 128x32 not supported (this Pi drives 128x64)'
    """
    problem = version_problem(hello, speaks)
    if problem is not None:
        return Nak(of=MsgType.HELLO, reason=NakReason.VERSION, text=problem)
    if (hello.width, hello.height) != (WIDTH, HEIGHT):
        return Nak(of=MsgType.HELLO, reason=NakReason.SCREEN,
                   text=f"screen {hello.width}x{hello.height} not supported "
                        f"(this Pi drives {WIDTH}x{HEIGHT})")
    version = max(v for v in speaks if hello.version_min <= v <= hello.version_max)
    return Welcome(version=version, key_ack=dedup.hello(hello, hello_seq),
                   ping_interval_ms=ping_interval_ms, timeout_ms=timeout_ms)


# --- the decoder ------------------------------------------------------------------------------

REASONS: Final[tuple[str, ...]] = (
    "bad_cobs", "bad_crc", "bad_length", "unknown_type", "bad_field", "wrong_direction",
    "oversized", "unsupported_version",
)
"""Every reason :class:`Decoder` counts a bad packet under (PROTOCOL.md, "Error handling")."""

_RECEIVERS: Final = ("pi", "handheld", "any")
_LABEL: Final = {"pi": "Pi", "handheld": "handheld"}


class Decoder:
    """Incremental packet decoder: bytes in any split -> :class:`Packet` list; never raises.

    ``receiver``: ``"pi"`` (accepts what a handheld sends), ``"handheld"`` (what the Pi
    sends) or ``"any"``; a type from the wrong side is counted ``wrong_direction`` (e.g. a
    loopback echo).  ``speaks``: the protocol versions this side speaks; a HELLO or WELCOME
    outside them is counted ``unsupported_version`` and still returned, because the Pi must
    answer such a HELLO with a NAK that names the problem.  ``keep_errors``: how many error
    lines :meth:`drain_errors` keeps between drains.

    Packets end at each 0x00; empty packets (extra delimiters, allowed anywhere) are
    skipped silently.  A run of more than :data:`MAX_ENCODED` bytes without a 0x00 is
    dropped up to the next 0x00 and counted ``oversized`` once, so :attr:`buffered` never
    exceeds :data:`MAX_ENCODED`.  Every other bad packet is counted under one of
    :data:`REASONS` in :attr:`counts`, and :attr:`last_error` is one line naming it, its
    stream offset and the offending byte, e.g. ``"packet at stream byte 120 (12 bytes): bad
    CRC: packet says 0xb07b, contents give 0xb17b (type byte 0x05)"``.

    Raises DriverValueError only from the constructor (unknown receiver, bad speaks).
    """

    def __init__(self, *, receiver: str = "any", speaks: Sequence[int] = SUPPORTED_VERSIONS,
                 keep_errors: int = 32) -> None:
        if receiver not in _RECEIVERS:
            raise _fail(f"Decoder receiver must be one of {', '.join(_RECEIVERS)}, "
                        f"got {receiver!r}")
        for v in speaks:
            _check_uint("Decoder", "speaks", v, 8)
        if not speaks:
            raise _fail("Decoder speaks must name at least one version")
        self.receiver = receiver
        self.speaks = tuple(sorted(speaks))
        self.counts: Counter[str] = Counter()
        """Bad packets by reason (keys from :data:`REASONS`)."""
        self.good = 0
        """Packets returned so far (including ``unsupported_version`` ones)."""
        self.bytes_in = 0
        """Bytes fed so far: the stream offset of the next byte."""
        self.last_error = ""
        """One line about the latest bad packet ("" while there has been none)."""
        self._keep = keep_errors
        self._errors: list[str] = []
        self._dropped_errors = 0
        self._buf = bytearray()
        self._start = 0
        self._dropping = False

    @property
    def bad(self) -> int:
        """Bad packets so far, all reasons together."""
        return sum(self.counts.values())

    @property
    def buffered(self) -> int:
        """Bytes held of an unfinished packet (at most :data:`MAX_ENCODED`)."""
        return len(self._buf)

    def drain_errors(self) -> list[str]:
        """The error lines since the last drain, oldest first (at most ``keep_errors``, then
        one ``"... and N more bad packets"`` line); the link logs each."""
        out = self._errors
        if self._dropped_errors:
            out = [*out, f"... and {self._dropped_errors} more bad packets"]
        self._errors = []
        self._dropped_errors = 0
        return out

    def reset(self) -> None:
        """Forget a half-received packet (after the port was reopened); counts stay."""
        self._buf.clear()
        self._dropping = False
        self._start = self.bytes_in

    def feed(self, data: bytes) -> list[Packet]:
        """Take the next bytes of the stream; return the packets completed by them, in order.

        ``data``: any bytes-like chunk (one byte, several packets, garbage).  Never raises.
        """
        packets: list[Packet] = []
        view = bytes(data)
        pos = 0
        base = self.bytes_in
        while pos < len(view):
            end = view.find(0, pos)
            stop = len(view) if end < 0 else end
            if not self._dropping:
                if not self._buf:
                    self._start = base + pos
                if len(self._buf) + stop - pos > MAX_ENCODED:
                    self._bad("oversized", f"packet at stream byte {self._start}: more than "
                                           f"{MAX_ENCODED} bytes without a 0x00 delimiter; "
                                           "dropped up to the next 0x00")
                    self._buf.clear()
                    self._dropping = True
                else:
                    self._buf += view[pos:stop]
            if end < 0:
                break
            if self._dropping:
                self._dropping = False
            elif self._buf:
                packet = self._packet(bytes(self._buf), self._start)
                if packet is not None:
                    packets.append(packet)
                self._buf.clear()
            pos = end + 1
        self.bytes_in = base + len(view)
        return packets

    def _bad(self, reason: str, text: str) -> None:
        self.counts[reason] += 1
        self.last_error = text
        if len(self._errors) < self._keep:
            self._errors.append(text)
        else:
            self._dropped_errors += 1

    def _packet(self, seg: bytes, start: int) -> Packet | None:
        where = f"packet at stream byte {start} ({len(seg)} bytes)"
        try:
            packet = self._read(seg, where)
        except _Bad as bad:
            self._bad(bad.reason, f"{where}: {bad.text}")
            return None
        self.good += 1
        return packet

    def _read(self, seg: bytes, where: str) -> Packet:
        i = 0
        while i < len(seg):
            code = seg[i]
            if i + code > len(seg):
                raise _Bad("bad_cobs", f"bad COBS: code 0x{code:02x} at byte {i} runs past the "
                                       "end")
            i += code
        try:
            body = bytes(_cobs.decode(seg))
        except _cobs.DecodeError as exc:
            raise _Bad("bad_cobs", f"bad COBS: {exc}") from None
        if len(body) < _MIN_BODY:
            raise _Bad("bad_length", f"{len(body)} bytes after COBS, fewer than the "
                                     f"{_MIN_BODY} of type, seq and CRC")
        got = int.from_bytes(body[-2:], "big")
        want = crc16(body[:-2])
        if got != want:
            raise _Bad("bad_crc", f"bad CRC: packet says 0x{got:04x}, contents give "
                                  f"0x{want:04x} (type byte 0x{body[0]:02x})")
        kind = body[0]
        parse = _CLASSES.get(kind)
        if parse is None:
            raise _Bad("unknown_type", f"unknown message type 0x{kind:02x} at byte 0")
        sender = SENDER[MsgType(kind)]
        if self.receiver != "any" and sender not in ("both", self._other()):
            raise _Bad("wrong_direction", f"{MsgType(kind).name} (type 0x{kind:02x}) comes "
                                          f"only from the {_LABEL[sender]}, never from the "
                                          f"{_LABEL[self._other()]} (an echo?)")
        seq = int.from_bytes(body[1:3], "big")
        try:
            msg = parse(body[_HEADER:-_CRC])
        except DriverValueError as exc:
            raise _Bad("bad_field", f"{MsgType(kind).name}: {exc.problem}") from None
        except _Bad as bad:
            raise _Bad(bad.reason, f"seq {seq}: {bad.text}") from None
        problem = None
        if isinstance(msg, Hello):
            problem = version_problem(msg, self.speaks)
            if problem is not None:
                problem = f"HELLO seq {seq} from {msg.handheld_id!r}: {problem}"
        elif isinstance(msg, Welcome) and msg.version not in self.speaks:
            problem = (f"WELCOME seq {seq} chose protocol version {msg.version}, this side "
                       f"speaks {_versions(self.speaks)}")
        if problem is not None:
            self._bad("unsupported_version", f"{where}: {problem}")
        return Packet(seq=seq, msg=msg)

    def _other(self) -> str:
        return "handheld" if self.receiver == "pi" else "pi"


# --- reliability: KEY exactly once, FRAME stop-and-wait ---------------------------------------


class KeyVerdict(enum.Enum):
    """What :meth:`KeyDedup.accept` decided about a KEY's seq."""

    NEW = "new"
    """The next KEY in order: apply it, then ACK it (:attr:`KeyDedup.ack`)."""
    DUPLICATE = "duplicate"
    """Already applied (a resend or a replay): do not apply; ACK :attr:`KeyDedup.ack`."""
    GAP = "gap"
    """Ahead of the next expected seq (one before it was lost): do not apply; ACK
    :attr:`KeyDedup.ack` and the handheld resends from there."""
    NO_SESSION = "no_session"
    """No HELLO seen yet: answer NAK HELLO_FIRST."""


MAX_BOOTS: Final = 8
"""Boots of one handheld id whose KEY state :class:`KeyDedup` keeps (the least recently
welcomed one is forgotten first): the real handheld and a few impostors or restarts."""


class _Boot:
    """One boot's KEY state in :class:`KeyDedup`: ``last`` applied KEY seq (u16) and the
    ``hello_seq`` (u16 or None) of the latest HELLO welcomed from it."""

    __slots__ = ("hello_seq", "last")

    def __init__(self, last: int, hello_seq: int | None) -> None:
        self.last = last
        self.hello_seq = hello_seq


class KeyDedup:
    """The Pi's exactly-once rule for one handheld id's KEYs; keep one per handheld id, for
    the life of the process, across reconnects (PROTOCOL.md, "KEY delivery").

    State, per boot (``boot_id``) of that id, for the :data:`MAX_BOOTS` boots welcomed last:
    ``last``, the last KEY seq applied (u16), and the seq of the latest HELLO welcomed.  KEYs
    count for the boot of the latest accepted HELLO (:attr:`boot_id`) and are applied
    strictly in order: only ``seq == last + 1`` is new.  Keeping every boot's state, not only
    the latest, means a second board that claims the same id (an impostor holding the seat
    while the real one is unplugged) cannot make the real one's resent keys count twice.

    :meth:`hello` is called with every accepted HELLO and its header seq.  A known boot keeps
    ``last`` (keys resent after a re-plug are recognised) unless ``next_key_seq`` is past
    ``last + 1`` (nothing older is coming: ``last`` moves up to ``next_key_seq - 1``).  A
    known ``boot_id`` whose counters started again is a new boot that repeats the id (a
    firmware whose random is not seeded): its state starts over from ``next_key_seq - 1``.
    That is the case when the HELLO's seq is not after the one welcomed last from that boot
    (a board's HELLO counter starts at 0 at power-up and only goes up), or when
    ``next_key_seq`` is more than :data:`KEY_QUEUE` behind ``last + 1`` (the same boot cannot
    still hold a key that old).  An unknown boot starts from ``next_key_seq - 1``.  Pure: no
    clock, no I/O.

    >>> d = KeyDedup()
    >>> d.hello(Hello(handheld_id="hh", firmware="", boot_id=9, next_key_seq=40), 0)
    39
    >>> [d.accept(s).value for s in (40, 40, 42, 41)]
    ['new', 'duplicate', 'gap', 'new']
    >>> d.hello(Hello(handheld_id="hh", firmware="", boot_id=9, next_key_seq=40), 1)
    41
    >>> d.hello(Hello(handheld_id="hh", firmware="", boot_id=9, next_key_seq=0), 0)
    65535
    """

    def __init__(self, max_boots: int = MAX_BOOTS) -> None:
        if max_boots < 1:
            raise _fail(f"KeyDedup max_boots must be at least 1, got {max_boots!r}")
        self.max_boots = max_boots
        self.boot_id: int | None = None
        """The boot of the latest accepted HELLO: the one KEYs count for."""
        self._boots: dict[int, _Boot] = {}
        self._current: _Boot | None = None
        self.applied = 0
        """KEYs accepted as NEW."""
        self.duplicates = 0
        """KEYs refused as DUPLICATE (resends and replays)."""
        self.gaps = 0
        """KEYs refused as GAP."""
        self.restarts = 0
        """HELLOs of a known ``boot_id`` whose counters had started again (a repeated id)."""

    @property
    def last(self) -> int | None:
        """The last KEY seq applied from :attr:`boot_id` (u16), None before any HELLO."""
        return None if self._current is None else self._current.last

    @property
    def boots(self) -> tuple[int, ...]:
        """The boot ids whose state is kept, the least recently welcomed first."""
        return tuple(self._boots)

    def hello(self, hello: Hello, hello_seq: int | None = None) -> int:
        """Start or resume the session for ``hello`` (``hello_seq``: its header seq, u16;
        None skips the HELLO counter check); return the ``key_ack`` for its WELCOME."""
        before = (hello.next_key_seq - 1) & 0xFFFF
        boot = self._boots.pop(hello.boot_id, None)
        if boot is not None and (
                (hello_seq is not None and boot.hello_seq is not None
                 and seq_diff(hello_seq, boot.hello_seq) <= 0)
                or seq_diff(before, boot.last) < -KEY_QUEUE):
            self.restarts += 1
            boot = None
        if boot is None:
            boot = _Boot(before, hello_seq)
        else:
            if seq_diff(before, boot.last) > 0:
                # The handheld holds nothing older than next_key_seq: keys up to it are not
                # coming, so waiting for them would be a gap forever.
                boot.last = before
            if hello_seq is not None:
                boot.hello_seq = hello_seq
        self._boots[hello.boot_id] = boot
        while len(self._boots) > self.max_boots:
            del self._boots[next(iter(self._boots))]
        self.boot_id = hello.boot_id
        self._current = boot
        return boot.last

    @property
    def ack(self) -> int | None:
        """The seq to put in an ACK of KEY (the last applied), None before any HELLO."""
        return self.last

    def accept(self, seq: int) -> KeyVerdict:
        """Decide about a KEY with header ``seq`` (u16) from :attr:`boot_id`; NEW advances
        :attr:`last`."""
        boot = self._current
        if boot is None:
            return KeyVerdict.NO_SESSION
        step = seq_diff(seq, boot.last)
        if step == 1:
            boot.last = seq
            self.applied += 1
            return KeyVerdict.NEW
        if step <= 0:
            self.duplicates += 1
            return KeyVerdict.DUPLICATE
        self.gaps += 1
        return KeyVerdict.GAP


class KeySender:
    """The handheld's side of KEY delivery: numbers keys and keeps them until acknowledged.

    The firmware's reference and an emulator's engine (PROTOCOL.md, "KEY delivery").
    ``boot_id``: u32 drawn at power-up; ``first_seq``: u16 of the first key; ``capacity``:
    how many unacknowledged keys are kept (:data:`KEY_QUEUE`).  Timing is the caller's:
    send each new key at once; resend :meth:`pending` after :data:`KEY_RESEND_MS` without an
    ACK that advances, after a NAK CORRUPT and after a WELCOME.

    >>> s = KeySender(boot_id=9, first_seq=40)
    >>> s.press("left", True, t_ms=10)
    (40, Key(key='left', down=True, t_ms=10))
    >>> s.next_key_seq, s.acked(40), s.next_key_seq
    (40, 1, 41)
    """

    def __init__(self, *, boot_id: int, first_seq: int = 0, capacity: int = KEY_QUEUE) -> None:
        _check_uint("KeySender", "boot_id", boot_id, 32)
        _check_uint("KeySender", "first_seq", first_seq, 16)
        if not is_int(capacity) or not (
                1 <= capacity <= 1024):
            raise _fail(f"KeySender.capacity must be 1..1024, got {capacity!r}")
        self.boot_id = boot_id
        self._next = first_seq
        self._capacity = capacity
        self._queue: list[tuple[int, Key]] = []
        self.dropped = 0
        """Keys refused because the queue was full (they got no seq)."""

    def press(self, key: str, down: bool, t_ms: int) -> tuple[int, Key] | None:
        """Number a key event: ``(seq, Key)`` to send now, or None when the queue is full.

        Raises DriverValueError for a bad key name, state or time (as :class:`Key`).
        """
        msg = Key(key=key, down=down, t_ms=t_ms)
        if len(self._queue) >= self._capacity:
            self.dropped += 1
            return None
        item = (self._next, msg)
        self._queue.append(item)
        self._next = seq_next(self._next)
        return item

    def acked(self, seq: int) -> int:
        """Take an ACK of KEY ``seq`` (cumulative); return how many keys it released.

        An ACK outside the keys sent (before the oldest waiting or after the newest) releases
        nothing.
        """
        if not self._queue or not 0 <= seq_diff(seq, self._queue[0][0]) < len(self._queue):
            return 0
        count = seq_diff(seq, self._queue[0][0]) + 1
        del self._queue[:count]
        return count

    def welcome(self, welcome: Welcome) -> int:
        """Take a WELCOME's ``key_ack``; return how many keys it released."""
        return self.acked(welcome.key_ack)

    def pending(self) -> list[tuple[int, Key]]:
        """The unacknowledged ``(seq, Key)`` pairs, oldest first: what a resend sends."""
        return list(self._queue)

    @property
    def next_key_seq(self) -> int:
        """For HELLO: the oldest unacknowledged seq, or the next new one when none waits."""
        return self._queue[0][0] if self._queue else self._next

    def hello(self, handheld_id: str, firmware: str, *,
              version_min: int = PROTOCOL_VERSION,
              version_max: int = PROTOCOL_VERSION) -> Hello:
        """This handheld's HELLO (a 128x64 screen and all four keys)."""
        return Hello(handheld_id=handheld_id, firmware=firmware, boot_id=self.boot_id,
                     next_key_seq=self.next_key_seq, version_min=version_min,
                     version_max=version_max)


def blank_pages() -> tuple[bytes, ...]:
    """Eight pages of 128 zero bytes: a dark screen."""
    return (bytes(PAGE_BYTES),) * PAGES


def _check_pages(pages: Sequence[bytes], name: str) -> None:
    if len(pages) != PAGES or any(len(p) != PAGE_BYTES for p in pages):
        sizes = [len(p) for p in pages]
        raise _fail(f"{name} must be {PAGES} pages of {PAGE_BYTES} bytes, got sizes {sizes}")


def changed_pages(old: Sequence[bytes] | None, new: Sequence[bytes]) -> tuple[int, ...]:
    """Indices of the pages that differ between ``old`` and ``new`` (8 x 128 bytes each);
    all eight when ``old`` is None (the handheld's picture is unknown).

    Raises DriverValueError when either is not 8 pages of 128 bytes.
    """
    _check_pages(new, "new pages")
    if old is None:
        return tuple(range(PAGES))
    _check_pages(old, "old pages")
    return tuple(p for p in range(PAGES) if old[p] != new[p])


def diff_frame(old: Sequence[bytes] | None, new: Sequence[bytes]) -> Frame:
    """The FRAME that turns ``old`` into ``new``: the changed pages (all when ``old`` is
    None); empty when nothing changed.  Raises DriverValueError as :func:`changed_pages`."""
    return Frame.of(new, changed_pages(old, new))


def apply_frame(pages: Sequence[bytes], frame: Frame) -> tuple[bytes, ...]:
    """``pages`` (8 x 128 bytes) with ``frame``'s pages written over them: what a handheld's
    framebuffer holds after blitting it.  Raises DriverValueError for wrong page sizes."""
    _check_pages(pages, "pages")
    out = [bytes(p) for p in pages]
    for index, data in frame.pages:
        out[index] = data
    return tuple(out)


def image_pages(image: Image.Image) -> tuple[bytes, ...]:
    """Split a 128x64 mode ``"1"`` PIL image into its 8 SSD1306 pages of 128 bytes.

    Byte ``i`` of page ``p`` is column ``i``; bit ``b`` is row ``8p + b`` (1 = lit), the
    layout of the SSD1306 datasheet's page addressing mode and of MicroPython's
    ``framebuf.MONO_VLSB``.  Raises DriverValueError for another mode or size.
    """
    if image.mode != "1" or image.size != (WIDTH, HEIGHT):
        raise _fail(f"image must be mode '1' {WIDTH}x{HEIGHT}, got mode {image.mode!r} "
                    f"{image.size[0]}x{image.size[1]}")
    # Rotated a quarter turn clockwise, row i of the result is column i of the image read
    # bottom to top; mode "1" packs 8 pixels a byte, leftmost in the top bit.  So byte
    # 7 - p of each 8-byte row holds rows 8p..8p+7 with row 8p in bit 0.
    raw = image.transpose(Image.Transpose.ROTATE_270).tobytes()
    return tuple(raw[7 - p::PAGES] for p in range(PAGES))


def pages_image(pages: Sequence[bytes]) -> Image.Image:
    """The 128x64 mode ``"1"`` PIL image of 8 SSD1306 pages (the inverse of
    :func:`image_pages`), e.g. for an emulated handheld's screen.  Raises DriverValueError
    for wrong page sizes."""
    _check_pages(pages, "pages")
    raw = bytearray(PAGES * PAGE_BYTES)
    for p in range(PAGES):
        raw[7 - p::PAGES] = pages[p]
    return Image.frombytes("1", (HEIGHT, WIDTH), bytes(raw)).transpose(
        Image.Transpose.ROTATE_90)


class FrameSender:
    """The Pi's side of FRAME delivery to one handheld: stop-and-wait, newest picture wins.

    It tracks what the handheld is known to show, page by page (unknown after
    :meth:`restart`), and the newest picture (:meth:`show`).  At most one FRAME is
    unacknowledged.  :meth:`due` returns the next FRAME to send: the pages that differ from
    what is known (an unacknowledged frame's pages count as unknown); when its ACK is not
    back after ``resend_ns`` (:data:`FRAME_RESEND_NS`), a fresh FRAME with a new seq carries
    every page still in doubt.  An ACK for any other seq is ignored.  Pure: times are passed
    in, ``int`` CLOCK_MONOTONIC nanoseconds.

    Call :meth:`due` after every :meth:`show`, :meth:`acked` and :meth:`restart`, and at
    :meth:`deadline_ns`.  Raises DriverValueError for bad arguments.
    """

    def __init__(self, *, first_seq: int = 0, resend_ns: int = FRAME_RESEND_NS) -> None:
        _check_uint("FrameSender", "first_seq", first_seq, 16)
        if not is_int(resend_ns) or resend_ns <= 0:
            raise _fail(f"FrameSender.resend_ns must be a positive int, got {resend_ns!r}")
        self._next = first_seq
        self._resend_ns = resend_ns
        self._known: list[bytes | None] = [None] * PAGES
        self._latest: tuple[bytes, ...] | None = None
        self._out: tuple[int, Frame, int] | None = None
        self.sent = 0
        """FRAMEs handed out by :meth:`due`."""
        self.resends = 0
        """FRAMEs sent because an earlier one was not acknowledged in time."""

    def show(self, pages: Sequence[bytes]) -> None:
        """Make ``pages`` (8 x 128 bytes, e.g. :func:`image_pages`) the picture to reach the
        handheld."""
        _check_pages(pages, "pages")
        self._latest = tuple(bytes(p) for p in pages)

    def restart(self) -> None:
        """The handheld's picture is unknown (after a WELCOME or a FRAME_REQUEST): forget the
        unacknowledged FRAME; the next one carries all 8 pages."""
        self._known = [None] * PAGES
        self._out = None

    def acked(self, seq: int) -> bool:
        """Take an ACK of FRAME ``seq``; True when it acknowledged the outstanding FRAME."""
        if self._out is None or self._out[0] != seq:
            return False
        for index, data in self._out[1].pages:
            self._known[index] = data
        self._out = None
        return True

    def resend_now(self) -> None:
        """Give up on the unacknowledged FRAME at once (after a NAK CORRUPT): the next
        :meth:`due` sends a fresh one carrying its pages."""
        if self._out is not None:
            self.resends += 1
            self._out = None

    @property
    def in_sync(self) -> bool:
        """True when the handheld is known to show the newest picture."""
        return (self._out is None and self._latest is not None
                and all(k == n for k, n in zip(self._known, self._latest, strict=True)))

    def deadline_ns(self) -> int | None:
        """When :meth:`due` must run next for a resend, or None when no FRAME is waiting."""
        return None if self._out is None else self._out[2] + self._resend_ns

    def due(self, now_ns: int) -> tuple[int, Frame] | None:
        """The ``(seq, Frame)`` to send at ``now_ns``, or None when nothing is due."""
        if self._latest is None:
            return None
        if self._out is not None:
            if now_ns - self._out[2] < self._resend_ns:
                return None
            self.resends += 1
            self._out = None
        latest = self._latest
        which = [p for p in range(PAGES) if self._known[p] != latest[p]]
        if not which:
            return None
        frame = Frame.of(latest, which)
        seq = self._next
        self._next = seq_next(seq)
        for p in which:
            self._known[p] = None
        self._out = (seq, frame, now_ns)
        self.sent += 1
        return seq, frame
