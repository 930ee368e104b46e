"""The serial handheld's protocol core: framing, CRC, session, KEY and FRAME rules; no I/O.

The handheld half of ``hardware/handheld/PROTOCOL.md`` (protocol version 1), written for
MicroPython on the RP2040 *and* CPython 3.11: it imports nothing, reads no clock and touches
no pin, so the tests run it on CPython against the Pi's codec (``drivers/handheld_codec.py``,
which it must not import: MicroPython has no dataclasses, enum, typing or ``cobs`` package,
and no ``binascii.crc_hqx``).  ``firmware.py`` is the board around it.

- :func:`crc16`: CRC-16/CCITT-FALSE (PROTOCOL.md, "CRC"), table-driven (the datasheet's
  bitwise routine costs 8 loop turns a byte: tens of ms for a 1 KiB FRAME on an RP2040);
- :func:`cobs_encode`, :func:`cobs_decode`: COBS, basic form (PROTOCOL.md, "Framing: COBS");
- :func:`seq_diff`, :func:`ms_diff`: RFC 1982 serial arithmetic on 16 bits (sequence numbers)
  and 32 bits (the wrapping millisecond clock);
- :class:`Clock32`: the handheld's u32 millisecond clock, built from ``time.ticks_diff``
  (PROTOCOL.md, "KEY": ``ticks_ms`` wraps at 2**30 on the rp2 port, ``t_ms`` at 2**32);
- :class:`KeyDebouncer`: the four keys from polled levels (first change after a quiet period
  wins, then a lockout);
- :class:`HandheldCore`: the protocol state machine.  Bytes from USB go to
  :meth:`HandheldCore.feed`, debounced key edges to :meth:`HandheldCore.press`, the clock to
  :meth:`HandheldCore.tick`; :meth:`HandheldCore.take_output` is what to write to USB and
  :attr:`HandheldCore.pages` is the framebuffer (8 pages x 128 bytes, SSD1306 page layout =
  ``framebuf.MONO_VLSB``).

Times are ``t_ms``: ``int`` milliseconds of the handheld's own clock, 0 .. 2**32 - 1,
wrapping (the clock of KEY's and PONG's ``t_ms``); every comparison goes through
:func:`ms_diff`, so the wrap is harmless.  Bad arguments raise ``ValueError`` with one line
naming the argument and the value; bad bytes from the wire never raise: they are counted by
reason in :attr:`HandheldCore.counts` and described in :attr:`HandheldCore.last_error`.

>>> core = HandheldCore("e6614103e7455d2f", "1.0.0", 0x1A2B3C4D)
>>> core.tick(0)
>>> core.take_output()[:11].hex(" ")  # 0x00, then PROTOCOL.md's first wire example
'00 02 01 01 07 01 01 1a 2b 3c 4d'
"""

PROTOCOL_VERSION = 1
"""The protocol version this firmware speaks (PROTOCOL.md, "Session and version negotiation")."""

WIDTH = 128
"""Screen width in pixels (a 128x64 SSD1306 or SH1106)."""

HEIGHT = 64
"""Screen height in pixels."""

PAGES = 8
"""8-row pages per screen: page ``p`` holds rows ``8p .. 8p+7``."""

PAGE_BYTES = 128
"""Bytes per page: byte ``i`` is column ``i``, bit ``b`` is row ``8p + b`` (bit 0 on top)."""

KEY_NAMES = ("left", "right", "select", "back")
"""KEY wire codes 0..3 (PROTOCOL.md, "KEY"), the codec's ``KEY_CODES``."""

HELLO = 0x01
WELCOME = 0x02
PING = 0x03
PONG = 0x04
KEY = 0x05
FRAME = 0x06
FRAME_REQUEST = 0x07
ACK = 0x08
NAK = 0x09

NAK_VERSION = 1
NAK_SCREEN = 2
NAK_HELLO_FIRST = 3
NAK_CORRUPT = 4
NAK_REFUSED = 5

MAX_ID = 32
"""Longest handheld id, bytes of printable ASCII without spaces."""

MAX_FIRMWARE = 16
"""Longest firmware version, bytes of printable ASCII."""

MAX_TEXT = 64
"""Longest NAK text, bytes of printable ASCII."""

MAX_ENCODED = 1035
"""Longest COBS-encoded body; a longer run without a 0x00 is dropped as ``oversized``."""

KEY_QUEUE = 32
"""Unacknowledged KEYs kept; a key event while it is full is dropped and takes no seq."""

HELLO_MS = 500
"""HELLO period without a session."""

REFUSED_HELLO_MS = 5000
"""HELLO period after a NAK VERSION or NAK SCREEN."""

KEY_RESEND_MS = 100
"""The queued KEYs are resent after this long without an ACK that releases one."""

LINK_TIMEOUT_MS = 1500
"""Silence (no valid packet) after which the session is dropped, unless WELCOME says other."""

FRAME_REQUEST_MS = 1000
"""With no complete picture this long after a WELCOME (or the last FRAME_REQUEST), ask."""

NAK_INTERVAL_MS = 250
"""At most one NAK CORRUPT per this many ms."""

LOCKOUT_MS = 30
"""Key bounce lockout after an accepted change (the Pi's wired keys use 30 ms too)."""

REPL_QUIET_MS = 200
"""Quiet after mpremote's ``\\r\\x03\\r\\x01`` before :attr:`HandheldCore.repl_requested`."""

REASONS = ("bad_cobs", "bad_crc", "bad_length", "unknown_type", "bad_field",
           "wrong_direction", "oversized", "unsupported_version")
"""Every reason a bad packet is counted under (PROTOCOL.md, "Error handling")."""

_NAK_TEXT = {
    "bad_cobs": "bad COBS", "bad_crc": "bad CRC", "bad_length": "bad length",
    "unknown_type": "unknown type", "bad_field": "bad field",
    "wrong_direction": "wrong direction", "oversized": "oversized",
}

_TYPE_NAMES = {HELLO: "HELLO", WELCOME: "WELCOME", PING: "PING", PONG: "PONG", KEY: "KEY",
               FRAME: "FRAME", FRAME_REQUEST: "FRAME_REQUEST", ACK: "ACK", NAK: "NAK"}

_MPREMOTE = b"\r\x03\r\x01"


def _make_table() -> list[int]:
    """The 256 CRC-16/CCITT-FALSE remainders of ``byte << 8`` (polynomial 0x1021)."""
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
        table.append(crc)
    return table


_TABLE = _make_table()


def crc16(data: bytes | bytearray | memoryview, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE of ``data`` (an int 0..0xFFFF), continuing from ``crc``.

    Polynomial 0x1021, initial value 0xFFFF, not reflected, no final XOR (PROTOCOL.md,
    "CRC"); equals ``binascii.crc_hqx(data, crc)`` and the datasheet's bitwise routine.

    >>> hex(crc16(b"123456789"))
    '0x29b1'
    """
    table = _TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ byte]
    return crc


def cobs_encode(data: bytes | bytearray) -> bytes:
    """COBS-encode one body (PROTOCOL.md, "Framing: COBS"): no 0x00 in the result.

    Each block up to a 0x00 becomes its length + 1 and its bytes; a run of 254 non-zero
    bytes is a full block (code 0xFF) with no zero after it.  Byte for byte the ``cobs``
    package's ``cobs.encode``; the delimiter is not added.

    >>> cobs_encode(b"\\x03\\x00\\x11").hex()
    '02030211'
    """
    out = bytearray()
    start = 0
    end = len(data)
    while True:
        zero = data.find(b"\x00", start)
        stop = end if zero < 0 else zero
        full = False
        while stop - start >= 254:
            out.append(0xFF)
            out.extend(data[start:start + 254])
            start += 254
            full = True
        if zero >= 0 or stop > start or not full:
            out.append(stop - start + 1)
            out.extend(data[start:stop])
        if zero < 0:
            return bytes(out)
        start = zero + 1


def cobs_decode(data: bytes | bytearray | memoryview) -> bytes:
    """Decode one COBS packet (without its 0x00 delimiter) back to the body.

    Raises ``ValueError`` naming the bad code byte and its offset when a code is 0x00 or
    runs past the end (the decoder counts that ``bad_cobs``).

    >>> cobs_decode(bytes.fromhex("02030211"))
    b'\\x03\\x00\\x11'
    """
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0 or i + code > n:
            raise ValueError(f"bad COBS: code 0x{code:02x} at byte {i} runs past the end")
        out.extend(data[i + 1:i + code])
        i += code
        if code < 0xFF and i < n:
            out.append(0)
    return bytes(out)


def seq_diff(a: int, b: int) -> int:
    """``a - b`` of two u16 sequence numbers, -32768 .. 32767 (RFC 1982; PROTOCOL.md,
    "Sequence numbers"): positive when ``a`` is after ``b``.

    >>> seq_diff(0, 65535), seq_diff(65535, 0)
    (1, -1)
    """
    return ((a - b + 0x8000) & 0xFFFF) - 0x8000


def ms_diff(a: int, b: int) -> int:
    """``a - b`` of two u32 wrapping millisecond times, -2**31 .. 2**31 - 1.

    >>> ms_diff(5, 0xFFFFFFFB)
    10
    """
    return ((a - b + 0x80000000) & 0xFFFFFFFF) - 0x80000000


def _printable(raw: bytes | bytearray, spaces: bool) -> bool:
    low = 0x20 if spaces else 0x21
    return all(low <= byte <= 0x7E for byte in raw)


def _bits(mask: int) -> int:
    """How many bits are set in the byte ``mask``."""
    count = 0
    while mask:
        count += mask & 1
        mask >>= 1
    return count


def _u(value: object, bits: int) -> bool:
    """True when ``value`` is an int (not a bool) in 0 .. 2**bits - 1."""
    return (not isinstance(value, bool) and isinstance(value, int)
            and 0 <= value < (1 << bits))


def packet(kind: int, seq: int, payload: bytes | bytearray = b"") -> bytes:
    """One packet on the wire: ``COBS(type | seq | payload | CRC) 0x00`` (PROTOCOL.md,
    "Packet").  ``kind``: the type byte; ``seq``: u16 header sequence number.

    >>> packet(ACK, 1, bytes([FRAME])).hex(" ")
    '02 08 05 01 06 52 f4 00'
    """
    head = bytearray(3 + len(payload))
    head[0] = kind
    head[1] = seq >> 8
    head[2] = seq & 0xFF
    head[3:] = payload
    crc = crc16(head)
    head.append(crc >> 8)
    head.append(crc & 0xFF)
    return cobs_encode(head) + b"\x00"


class Clock32:
    """The handheld's u32 millisecond clock from a clock that wraps earlier.

    MicroPython's ``time.ticks_ms()`` wraps at ``TICKS_PERIOD`` (2**30 on the rp2 port);
    KEY and PONG carry ``t_ms`` modulo 2**32 (PROTOCOL.md, "KEY").  Feed it
    ``time.ticks_diff(now, last)`` each loop turn: :meth:`advance` adds it, modulo 2**32.
    ``start``: the first reading (default 0, the handheld starts its clock at power-up).

    >>> c = Clock32(0xFFFFFFF0)
    >>> c.advance(32)
    16
    """

    def __init__(self, start: int = 0) -> None:
        if not _u(start, 32):
            raise ValueError(f"Clock32 start must be 0..4294967295, got {start!r}")
        self.now = start
        """The clock now: ``int`` milliseconds modulo 2**32."""

    def advance(self, delta_ms: int) -> int:
        """Add ``delta_ms`` (an ``int``; a negative one, a clock that went back, adds 0);
        return the new :attr:`now`."""
        if delta_ms > 0:
            self.now = (self.now + delta_ms) & 0xFFFFFFFF
        return self.now


class KeyDebouncer:
    """Debounce polled key levels: the first change after a quiet period is the edge.

    ``count``: how many keys (4); ``lockout_ms``: after an accepted change, later samples of
    that key are ignored for this long (:data:`LOCKOUT_MS`).  :meth:`sample` takes every key's
    level (True = pressed: the pin reads 0 with its pull-up) at ``t_ms`` and returns the
    changes, each stamped with the time of the sample that first showed it (a polled loop's
    analogue of the Pi's ``drivers.gpio.EdgeDebouncer``: no wait for the line to settle, so a
    bouncing key is not stamped late).  When a lockout ends with the key back where it was
    (a short glitch), that is reported as the change back, stamped at that sample.  The
    first sample only sets the state: a key held at power-up reports nothing until it is
    released and pressed again.

    >>> d = KeyDebouncer(count=1)
    >>> d.sample([False], 0), d.sample([True], 10), d.sample([False], 12), d.sample([True], 14)
    ([], [(0, True, 10)], [], [])
    >>> d.sample([False], 50)
    [(0, False, 50)]
    """

    def __init__(self, count: int = 4, lockout_ms: int = LOCKOUT_MS) -> None:
        if not _u(count, 8) or count < 1:
            raise ValueError(f"KeyDebouncer count must be 1..255, got {count!r}")
        if not _u(lockout_ms, 16):
            raise ValueError(f"KeyDebouncer lockout_ms must be 0..65535, got {lockout_ms!r}")
        self.count = count
        self.lockout_ms = lockout_ms
        self.down = [False] * count
        """The believed state of each key (True = pressed)."""
        self._reported = [False] * count
        self._since: list[int | None] = [None] * count
        self._started = False

    def sample(self, pressed: list[bool], t_ms: int) -> list[tuple[int, bool, int]]:
        """Take every key's level at ``t_ms``; return ``(key index, down, t_ms)`` changes.

        Raises ``ValueError`` when ``pressed`` does not hold one level per key.
        """
        if len(pressed) != self.count:
            raise ValueError(f"KeyDebouncer.sample wants {self.count} levels, "
                             f"got {len(pressed)}")
        out: list[tuple[int, bool, int]] = []
        if not self._started:
            self._started = True
            for i in range(self.count):
                self.down[i] = bool(pressed[i])
                self._reported[i] = False
            return out
        for i in range(self.count):
            since = self._since[i]
            if since is not None:
                if ms_diff(t_ms, since) < self.lockout_ms:
                    continue
                self._since[i] = None
            level = bool(pressed[i])
            if level != self.down[i]:
                self.down[i] = level
                self._since[i] = t_ms
                if level != self._reported[i]:
                    self._reported[i] = level
                    out.append((i, level, t_ms))
        return out


class HandheldCore:
    """The handheld's side of the serial protocol (PROTOCOL.md, version 1); pure.

    ``handheld_id``: 1..32 characters of printable ASCII without spaces (on the board the
    hex of ``machine.unique_id()``); ``firmware``: 0..16 characters of printable ASCII;
    ``boot_id``: u32 drawn at random at power-up (``os.urandom(4)``).  ``version_min``,
    ``version_max``, ``width``, ``height``, ``keys_mask`` fill the HELLO (defaults: version
    1, 128x64, all four keys) and exist so a test can offer what the Pi must refuse.
    Raises ``ValueError`` naming the argument when one is out of range.

    What it does (PROTOCOL.md sections in brackets):

    - without a session: HELLO at the first :meth:`tick`, then every 500 ms, and at once in
      answer to any other packet from the Pi; FRAMEs are ignored ["Session"];
    - WELCOME: a session; KEYs up to its ``key_ack`` are dropped and the rest resent at
      once; a FRAME_REQUEST goes out when no complete picture came within 1 s ["FRAME
      delivery"];
    - PING: PONG at once with the clock ["Heartbeat"];
    - FRAME: its pages are written into :attr:`pages` and it is ACKed in the same call;
      :meth:`dirty_pages` then names the pages whose bytes changed, for the OLED;
    - KEY: each :meth:`press` takes the next seq and joins the queue (32 at most; when full
      the event is dropped and takes no seq); in a session it is sent at once; the queue is
      resent after 100 ms without an ACK that releases a key, on NAK CORRUPT and after a
      WELCOME; the counter and the queue live across link loss ["KEY delivery"];
    - 1.5 s without a valid packet (or WELCOME's ``timeout_ms``), or NAK HELLO_FIRST: the
      session is dropped and HELLO starts again ["Reconnect"];
    - NAK VERSION / SCREEN: :attr:`state` ``"refused"``, :attr:`notice` holds the Pi's text,
      HELLO every 5 s; NAK REFUSED: :attr:`notice` holds its text;
    - a bad packet is counted (:attr:`counts`, :attr:`last_error`) and in a session
      answered by NAK CORRUPT, at most one per 250 ms ["Error handling"].

    Output starts with one 0x00 (ends whatever half packet the Pi holds) and accumulates
    until :meth:`take_output`.
    """

    def __init__(self, handheld_id: str, firmware: str, boot_id: int, version_min: int = 1,
                 version_max: int = 1, width: int = WIDTH, height: int = HEIGHT,
                 keys_mask: int = 0x0F) -> None:
        if not isinstance(handheld_id, str) or not 1 <= len(handheld_id) <= MAX_ID:
            raise ValueError(f"handheld_id must be 1..{MAX_ID} characters, got {handheld_id!r}")
        ident = handheld_id.encode()
        if len(ident) != len(handheld_id) or not _printable(ident, False):
            raise ValueError("handheld_id must be printable ASCII without spaces, "
                             f"got {handheld_id!r}")
        if not isinstance(firmware, str) or len(firmware) > MAX_FIRMWARE:
            raise ValueError(f"firmware must be 0..{MAX_FIRMWARE} characters, got {firmware!r}")
        fw = firmware.encode()
        if len(fw) != len(firmware) or not _printable(fw, True):
            raise ValueError(f"firmware must be printable ASCII, got {firmware!r}")
        if not _u(boot_id, 32):
            raise ValueError(f"boot_id must be an integer 0..4294967295, got {boot_id!r}")
        for name, value in (("version_min", version_min), ("version_max", version_max),
                            ("width", width), ("height", height), ("keys_mask", keys_mask)):
            if not _u(value, 8):
                raise ValueError(f"{name} must be an integer 0..255, got {value!r}")
        if version_min > version_max:
            raise ValueError(f"version_min {version_min} is above version_max {version_max}")
        self.handheld_id = handheld_id
        self.firmware = firmware
        self.boot_id = boot_id
        self.version_min = version_min
        self.version_max = version_max
        self._hello_tail = (bytes([width, height, keys_mask, len(ident)]) + ident
                            + bytes([len(fw)]) + fw + b"\x00")
        self.pages = bytearray(PAGES * PAGE_BYTES)
        """The framebuffer: page ``p`` is bytes ``128p .. 128p+127`` (SSD1306 page layout,
        ``framebuf.MONO_VLSB`` of a 128x64 buffer)."""
        self.state = "waiting"
        """``"waiting"`` (no session: HELLO every 500 ms), ``"session"`` (after WELCOME) or
        ``"refused"`` (after NAK VERSION/SCREEN: HELLO every 5 s)."""
        self.notice = ""
        """The text of the last NAK VERSION, SCREEN or REFUSED, for the screen ("" if none)."""
        self.version = 0
        """The protocol version the WELCOME chose (0 before one)."""
        self.counts: dict[str, int] = {}
        """Bad packets received, by reason (keys from :data:`REASONS`)."""
        self.last_error = ""
        """One line about the latest bad packet ("" while there has been none)."""
        self.keys_dropped = 0
        """Key events dropped because 32 were already waiting for their ACK."""
        self.frames = 0
        """Valid FRAMEs applied (in a session)."""
        self.sessions = 0
        """WELCOMEs accepted."""
        self.repl_requested = False
        """True once mpremote's ``\\r\\x03\\r\\x01`` came and then 200 ms of quiet: the board
        should leave the link for the REPL (the Pi never pauses inside a packet)."""
        self.bytes_in = 0
        """Bytes fed so far: the stream offset of the next byte."""
        self._out = bytearray(b"\x00")
        self._now = 0
        self._started = False
        self._hello_seq = 0
        self._req_seq = 0
        self._key_next = 0
        self._queue: list[tuple[int, bytes]] = []
        self._key_at = 0
        self._hello_at = 0
        self._last_rx = 0
        self._timeout = LINK_TIMEOUT_MS
        self._fresh = 0
        self._req_at = 0
        self._nak_at: int | None = None
        self._dirty = 0
        self._rx = bytearray()
        self._rx_start = 0
        self._rx_at = 0
        self._dropping = False

    # --- what the board calls ---------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """True while in a session (between a WELCOME and its loss)."""
        return self.state == "session"

    @property
    def next_key_seq(self) -> int:
        """HELLO's ``next_key_seq``: the oldest queued KEY seq, else the next new one."""
        return self._queue[0][0] if self._queue else self._key_next

    def pending_keys(self) -> list[tuple[int, str, bool, int]]:
        """The unacknowledged key events, oldest first: ``(seq, key name, down, t_ms)``."""
        out = []
        for seq, payload in self._queue:
            t_ms = (payload[2] << 24) | (payload[3] << 16) | (payload[4] << 8) | payload[5]
            out.append((seq, KEY_NAMES[payload[0]], payload[1] == 1, t_ms))
        return out

    def take_output(self) -> bytes:
        """Everything to write to USB now (possibly ``b""``); the buffer is emptied."""
        out = bytes(self._out)
        self._out = bytearray()
        return out

    def dirty_pages(self) -> list[int]:
        """The pages (0..7, ascending) whose bytes changed since the last call, for the OLED."""
        mask = self._dirty
        self._dirty = 0
        return [p for p in range(PAGES) if mask >> p & 1]

    def mark_dirty(self, mask: int = 0xFF) -> None:
        """Name pages the board drew into :attr:`pages` itself (bit ``p`` = page ``p``), so
        :meth:`dirty_pages` returns them; the picture is no longer the Pi's, so a session
        asks for a full FRAME (FRAME_REQUEST) when it does not get one."""
        self._dirty |= mask & 0xFF
        self._fresh &= ~mask & 0xFF

    def press(self, key: int | str, down: bool, t_ms: int) -> bool:
        """A debounced key edge: ``key`` (a name from :data:`KEY_NAMES` or its code 0..3),
        ``down`` (True pressed, False released) at ``t_ms`` (u32 ms, the edge's time).

        Returns True when it was queued (and, in a session, sent), False when 32 events were
        already waiting and it was dropped.  A ``t_ms`` after the last time given moves the
        core's clock there (the KEY resend timer starts at the later of the two).  Raises
        ``ValueError`` naming a bad key or time.
        """
        if isinstance(key, str):
            if key not in KEY_NAMES:
                raise ValueError(f"press: key must be one of {', '.join(KEY_NAMES)}, "
                                 f"got {key!r}")
            code = KEY_NAMES.index(key)
        elif _u(key, 2):
            code = key
        else:
            raise ValueError(f"press: key code must be 0..3, got {key!r}")
        if not _u(t_ms, 32):
            raise ValueError(f"press: t_ms must be 0..4294967295, got {t_ms!r}")
        if ms_diff(t_ms, self._now) > 0:
            self._now = t_ms
        if len(self._queue) >= KEY_QUEUE:
            self.keys_dropped += 1
            return False
        payload = bytes([code, 1 if down else 0, t_ms >> 24, (t_ms >> 16) & 0xFF,
                         (t_ms >> 8) & 0xFF, t_ms & 0xFF])
        seq = self._key_next
        self._key_next = (seq + 1) & 0xFFFF
        if not self._queue:
            self._key_at = self._now
        self._queue.append((seq, payload))
        if self.state == "session":
            self._out += packet(KEY, seq, payload)
        return True

    def tick(self, t_ms: int) -> None:
        """Run the timers at ``t_ms`` (u32 ms): HELLO, KEY resend, link timeout,
        FRAME_REQUEST, the mpremote check.  Call it every loop turn.  Raises ``ValueError``
        for a bad time."""
        self._set_now(t_ms)
        now = self._now
        if not self._started:
            self._send_hello()
        if self.state == "session":
            if ms_diff(now, self._last_rx) >= self._timeout:
                self._drop_session()
                self._send_hello()
            else:
                if self._queue and ms_diff(now, self._key_at) >= KEY_RESEND_MS:
                    self._resend_keys()
                if self._fresh != 0xFF and ms_diff(now, self._req_at) >= FRAME_REQUEST_MS:
                    self._out += packet(FRAME_REQUEST, self._req_seq)
                    self._req_seq = (self._req_seq + 1) & 0xFFFF
                    self._req_at = now
        elif ms_diff(now, self._hello_at) >= 0:
            self._send_hello()
        if (not self._dropping and self._rx.endswith(_MPREMOTE)
                and ms_diff(now, self._rx_at) >= REPL_QUIET_MS):
            self.repl_requested = True

    def feed(self, data: bytes | bytearray, t_ms: int | None = None) -> None:
        """Take bytes read from USB, in any split; ``t_ms``: when they were read (default:
        the last time given).  Never raises for bad bytes (they are counted); raises
        ``ValueError`` for a bad time."""
        if t_ms is not None:
            self._set_now(t_ms)
        if not data:
            return
        self._rx_at = self._now
        pos = 0
        end = len(data)
        base = self.bytes_in
        while pos < end:
            zero = data.find(b"\x00", pos)
            stop = end if zero < 0 else zero
            if not self._dropping:
                if not self._rx:
                    self._rx_start = base + pos
                if len(self._rx) + stop - pos > MAX_ENCODED:
                    self._bad("oversized", f"packet at stream byte {self._rx_start}: more "
                                           f"than {MAX_ENCODED} bytes without a 0x00; dropped "
                                           "up to the next 0x00")
                    self._rx = bytearray()
                    self._dropping = True
                else:
                    self._rx += data[pos:stop]
            if zero < 0:
                break
            if self._dropping:
                self._dropping = False
            elif self._rx:
                segment = self._rx
                self._rx = bytearray()
                self._segment(segment)
            pos = zero + 1
        self.bytes_in = base + end

    # --- internals --------------------------------------------------------------------------

    def _set_now(self, t_ms: int) -> None:
        if not _u(t_ms, 32):
            raise ValueError(f"t_ms must be 0..4294967295, got {t_ms!r}")
        self._now = t_ms

    def _send_hello(self) -> None:
        self._started = True
        nks = self.next_key_seq
        payload = (bytes([self.version_min, self.version_max, self.boot_id >> 24,
                          (self.boot_id >> 16) & 0xFF, (self.boot_id >> 8) & 0xFF,
                          self.boot_id & 0xFF, nks >> 8, nks & 0xFF]) + self._hello_tail)
        self._out += packet(HELLO, self._hello_seq, payload)
        self._hello_seq = (self._hello_seq + 1) & 0xFFFF
        period = REFUSED_HELLO_MS if self.state == "refused" else HELLO_MS
        self._hello_at = (self._now + period) & 0xFFFFFFFF

    def _resend_keys(self) -> None:
        for seq, payload in self._queue:
            self._out += packet(KEY, seq, payload)
        self._key_at = self._now

    def _release(self, seq: int) -> int:
        """Drop queued KEYs up to and including ``seq`` (a cumulative ACK); how many went."""
        if not self._queue:
            return 0
        count = seq_diff(seq, self._queue[0][0]) + 1
        if not 1 <= count <= len(self._queue):
            return 0
        del self._queue[:count]
        self._key_at = self._now
        return count

    def _drop_session(self) -> None:
        self.state = "waiting"
        self._fresh = 0

    def _bad(self, reason: str, text: str) -> None:
        self.counts[reason] = self.counts.get(reason, 0) + 1
        self.last_error = text
        if self.state == "session" and reason in _NAK_TEXT and (
                self._nak_at is None or ms_diff(self._now, self._nak_at) >= NAK_INTERVAL_MS):
            self._nak_at = self._now
            text_bytes = _NAK_TEXT[reason].encode()
            self._out += packet(NAK, 0, bytes([0, NAK_CORRUPT, len(text_bytes)]) + text_bytes)

    def _segment(self, segment: bytearray) -> None:
        where = f"packet at stream byte {self._rx_start} ({len(segment)} bytes)"
        try:
            body = cobs_decode(segment)
        except ValueError as exc:
            self._bad("bad_cobs", f"{where}: {exc}")
            return
        if len(body) < 5:
            self._bad("bad_length", f"{where}: {len(body)} bytes after COBS, fewer than the 5 "
                                    "of type, seq and CRC")
            return
        got = (body[-2] << 8) | body[-1]
        want = crc16(memoryview(body)[:-2])
        if got != want:
            self._bad("bad_crc", f"{where}: bad CRC: packet says 0x{got:04x}, contents give "
                                 f"0x{want:04x} (type byte 0x{body[0]:02x})")
            return
        kind = body[0]
        seq = (body[1] << 8) | body[2]
        payload = body[3:-2]
        if kind not in _TYPE_NAMES:
            self._bad("unknown_type", f"{where}: unknown message type 0x{kind:02x} at byte 0")
            return
        if kind in (HELLO, PONG, KEY, FRAME_REQUEST):
            self._bad("wrong_direction", f"{where}: {_TYPE_NAMES[kind]} (type 0x{kind:02x}) "
                                         "comes only from a handheld, never from the Pi "
                                         "(an echo?)")
            return
        problem = self._check(kind, payload)
        if problem:
            reason, text = problem
            self._bad(reason, f"{where}: seq {seq}: {text}")
            return
        self._last_rx = self._now
        if kind == WELCOME:
            self._welcome(seq, payload, where)
        elif kind == NAK:
            self._nak(payload)
        elif self.state != "session":
            if self.state == "waiting":
                self._send_hello()
        elif kind == PING:
            t = self._now
            self._out += packet(PONG, seq, bytes([t >> 24, (t >> 16) & 0xFF, (t >> 8) & 0xFF,
                                                  t & 0xFF]))
        elif kind == FRAME:
            self._frame(seq, payload)
        elif kind == ACK and payload[0] == KEY:
            self._release(seq)

    def _check(self, kind: int, payload: bytes) -> tuple[str, str] | None:
        """Why ``payload`` is not a valid one of type ``kind``: ``(reason, text)``, or None."""
        size = len(payload)
        name = _TYPE_NAMES[kind]
        if kind == WELCOME:
            want = 7
        elif kind == PING:
            want = 0
        elif kind == ACK:
            want = 1
        elif kind == FRAME:
            if size < 1:
                return ("bad_length", "FRAME payload is 0 bytes, expected at least 1")
            want = 1 + PAGE_BYTES * _bits(payload[0])
            name = f"FRAME (mask 0x{payload[0]:02x})"
        else:
            if size < 3:
                return ("bad_length", f"NAK payload is {size} bytes, expected at least 3")
            want = 3 + payload[2]
            name = f"NAK (text {payload[2]} bytes)"
        if size != want:
            return ("bad_length", f"{name} payload is {size} bytes, expected {want}")
        if kind == ACK and payload[0] not in (KEY, FRAME):
            return ("bad_field", f"ACK of type 0x{payload[0]:02x} at payload byte 0: only KEY "
                                 "(0x05) and FRAME (0x06) are acknowledged")
        if kind == NAK:
            if payload[0] != 0 and payload[0] not in _TYPE_NAMES:
                return ("bad_field", f"NAK of type 0x{payload[0]:02x} at payload byte 0 is "
                                     "unknown")
            if not NAK_VERSION <= payload[1] <= NAK_REFUSED:
                return ("bad_field", f"NAK reason {payload[1]} at payload byte 1 is unknown")
            if payload[2] > MAX_TEXT or not _printable(payload[3:], True):
                return ("bad_field", f"NAK text at payload byte 3 is not 0..{MAX_TEXT} bytes "
                                     "of printable ASCII")
        return None

    def _welcome(self, seq: int, payload: bytes, where: str) -> None:
        version = payload[0]
        if not self.version_min <= version <= self.version_max:
            self._bad("unsupported_version", f"{where}: WELCOME seq {seq} chose protocol "
                                             f"version {version}, this handheld speaks "
                                             f"{self.version_min}-{self.version_max}")
            return
        now = self._now
        self.version = version
        self.state = "session"
        self.notice = ""
        self.sessions += 1
        timeout = (payload[5] << 8) | payload[6]
        self._timeout = timeout if timeout else LINK_TIMEOUT_MS
        self._fresh = 0
        self._req_at = now
        self._last_rx = now
        self._release((payload[1] << 8) | payload[2])
        self._resend_keys()

    def _nak(self, payload: bytes) -> None:
        reason = payload[1]
        text = bytes(payload[3:]).decode()
        if reason in (NAK_VERSION, NAK_SCREEN):
            self.state = "refused"
            self._fresh = 0
            self.notice = text
            self._hello_at = (self._now + REFUSED_HELLO_MS) & 0xFFFFFFFF
        elif reason == NAK_HELLO_FIRST:
            if self.state != "refused":
                self._drop_session()
                self._send_hello()
        elif reason == NAK_CORRUPT:
            if self.state == "session" and self._queue:
                self._resend_keys()
        else:
            self.notice = text

    def _frame(self, seq: int, payload: bytes) -> None:
        mask = payload[0]
        pages = self.pages
        at = 1
        for p in range(PAGES):
            if mask >> p & 1:
                start = p * PAGE_BYTES
                data = payload[at:at + PAGE_BYTES]
                if pages[start:start + PAGE_BYTES] != data:
                    pages[start:start + PAGE_BYTES] = data
                    self._dirty |= 1 << p
                at += PAGE_BYTES
        self._fresh |= mask
        self.frames += 1
        self._out += packet(ACK, seq, bytes([FRAME]))
