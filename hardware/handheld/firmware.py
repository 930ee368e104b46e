"""partytable's serial handheld: the board around ``handheld_core`` (MicroPython on an RP2040).

``main.py`` (what MicroPython runs at power-up) switches Ctrl-C off and then imports this
module, precompiled as ``firmware.mpy``, and calls :func:`run`.  It reads four keys
(``machine.Pin`` with pull-ups, debounced by ``time.ticks_ms``), drives a 128x64
SSD1306/SH1106 OLED on I2C (``ssd1306.py`` beside it) and talks to the Pi over the USB REPL
port (``sys.stdin.buffer`` / ``sys.stdout.buffer``) with the protocol of ``PROTOCOL.md``,
whose rules all live in ``handheld_core.py``.  Wiring and flashing: ``README.md`` beside it.

The loop (:meth:`Firmware.step`, one turn every ~2 ms): read the clock, sample the keys
(:class:`handheld_core.KeyDebouncer` -> :meth:`HandheldCore.press`), read what USB holds
(``select.poll`` with timeout 0, so nothing blocks), :meth:`HandheldCore.feed` and
:meth:`HandheldCore.tick`, write what it answers (a FRAME's ACK goes out before its pages
reach the OLED, as PROTOCOL.md asks), draw a status screen while there is no session, and
push at most one changed page to the OLED (about 3 ms at 400 kHz), so keys are sampled
between pages.

MicroPython firmware notes (PROTOCOL.md, "Transport"): ``micropython.kbd_intr(-1)`` is the
first thing ``main.py`` does (every PING holds a 0x03, which would raise
``KeyboardInterrupt`` while Ctrl-C is on); :func:`run` sets it again before the loop (for a
``run()`` started from the REPL) and back to 3 when the loop stops; nothing here calls
``print`` (it would land inside packets).

Three ways back to the REPL (for ``mpremote``): hold BACK while plugging in (the link never
starts); ``mpremote`` itself (its ``\\r\\x03\\r\\x01`` followed by quiet makes the loop stop:
the first ``mpremote`` command then fails, the next one works); a configuration error
(named on the OLED and in ``crash.txt``).  Any other exception is written to ``crash.txt``,
shown on the OLED, and the board resets after 3 s.
"""

import binascii
import io
import os
import select
import sys
import time

import framebuf
import handheld_core
import machine
import micropython
import ssd1306

TYPE_CHECKING = False
if TYPE_CHECKING:  # for mypy only: never true on the board
    from collections.abc import Callable
    from typing import BinaryIO

FIRMWARE = "1.0.0"
"""This firmware's version, sent in HELLO."""

# --- the board: match these to the wiring (README.md, "Wiring") -----------------------------
I2C_BUS = 0
"""The RP2040's I2C controller the OLED is on: 0 or 1."""
SDA_PIN = 4
"""GPIO of the OLED's SDA (an SDA pin of ``I2C_BUS``: GP4 = Pico pin 6)."""
SCL_PIN = 5
"""GPIO of the OLED's SCL (an SCL pin of ``I2C_BUS``: GP5 = Pico pin 7)."""
I2C_HZ = 400_000
"""I2C clock: 400 kHz, the SSD1306's fast mode (a page in about 3 ms)."""
OLED_ADDRESS = 0x3C
"""The OLED's 7-bit address: 0x3C (the usual jumper) or 0x3D."""
OLED_CONTROLLER = "ssd1306"
"""``"ssd1306"`` or ``"sh1106"`` (most 1.3" modules)."""
OLED_FLIP = False
"""True turns the picture 180 degrees (a panel mounted upside down)."""
KEY_PINS = (10, 11, 12, 13)
"""GPIOs of the keys left, right, select, back, each switch to GND (internal pull-ups)."""
# ----------------------------------------------------------------------------------------------

HEADER_PINS = tuple(range(23)) + (26, 27, 28)  # noqa: RUF005 (MicroPython: no (*x, y))
"""The GPIOs on a Raspberry Pi Pico's header (GP23-25 and GP29 are used on the board)."""
POLL_MS = 2
"""Longest wait for USB bytes per loop turn when no OLED page is waiting."""
READ_LIMIT = 1100
"""Most bytes read per loop turn (a full FRAME is 1,036 on the wire)."""
RETRY_MS = (1000, 2000, 4000, 5000)
"""Waits before re-initialising an OLED that failed: 1 s, doubling, at most 5 s."""
CRASH_FILE = "crash.txt"
"""Where a configuration error or a crash is written (``mpremote cat crash.txt``)."""
BACK = 3
"""Index of BACK in ``KEY_PINS``: held at power-up, the board stays in the REPL."""


def check_config(i2c_bus: int, sda: int, scl: int, key_pins: "tuple[int, ...]",
                 address: int, controller: str) -> str:
    """What is wrong with the board settings above, in one line, or ``""`` when nothing.

    The RP2040 datasheet's GPIO function table: GPIO ``n`` carries I2C``(n // 2) % 2``, SDA
    when ``n`` is even and SCL when odd (I2C0 SDA on GP0, 4, 8, ...; I2C1 SDA on GP2, 6,
    10, ...).  Pins must be on a Pico's header (:data:`HEADER_PINS`), the four keys on four
    other pins than the I2C pair.

    >>> check_config(0, 4, 5, (10, 11, 12, 13), 0x3C, "ssd1306")
    ''
    >>> check_config(0, 6, 5, (10, 11, 12, 13), 0x3C, "ssd1306")
    'SDA_PIN GP6 is no I2C0 SDA pin (I2C0 SDA: GP0 GP4 GP8 GP12 GP16 GP20 GP28)'
    """
    if i2c_bus not in (0, 1):
        return f"I2C_BUS {i2c_bus!r} must be 0 or 1"
    for name, pin, role in (("SDA_PIN", sda, 0), ("SCL_PIN", scl, 1)):
        if pin not in HEADER_PINS:
            return f"{name} {pin!r} is not a GPIO on a Pico's header (GP0-GP22, GP26-GP28)"
        if (pin // 2) % 2 != i2c_bus or pin % 2 != role:
            what = ("SDA", "SCL")[role]
            good = " ".join(f"GP{p}" for p in HEADER_PINS
                            if (p // 2) % 2 == i2c_bus and p % 2 == role)
            return f"{name} GP{pin} is no I2C{i2c_bus} {what} pin (I2C{i2c_bus} {what}: {good})"
    if len(key_pins) != 4:
        return f"KEY_PINS must name 4 GPIOs (left, right, select, back), got {len(key_pins)}"
    for index, pin in enumerate(key_pins):
        key = handheld_core.KEY_NAMES[index]
        if pin not in HEADER_PINS:
            return (f"KEY_PINS {key} {pin!r} is not a GPIO on a Pico's header "
                    "(GP0-GP22, GP26-GP28)")
        if pin in (sda, scl):
            return f"KEY_PINS {key} GP{pin} is the OLED's {'SDA' if pin == sda else 'SCL'}"
        if pin in key_pins[:index]:
            other = handheld_core.KEY_NAMES[key_pins.index(pin)]
            return f"KEY_PINS {key} GP{pin} is also {other}'s pin"
    if address not in (0x3C, 0x3D):
        return f"OLED_ADDRESS {address!r} must be 0x3C or 0x3D"
    if controller not in ssd1306.CONTROLLERS:
        return f"OLED_CONTROLLER {controller!r} must be one of {', '.join(ssd1306.CONTROLLERS)}"
    return ""


def wrap(text: str, width: int = 16) -> "list[str]":
    """``text`` cut into lines of at most ``width`` characters, at spaces where it can
    (16 characters of MicroPython's 8x8 font fill the 128-pixel row).

    >>> wrap("protocol version 3 not supported")
    ['protocol version', '3 not supported']
    """
    lines: list[str] = []
    line = ""
    for word in text.split():
        while len(word) > width:
            if line:
                lines.append(line)
                line = ""
            lines.append(word[:width])
            word = word[width:]
        if not line:
            line = word
        elif len(line) + 1 + len(word) <= width:
            line = line + " " + word
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    return lines


def draw_status(fb: "framebuf.FrameBuffer", title: str, lines: "list[str]", ident: str) -> None:
    """Draw the handheld's own screen into ``fb`` (128x64): ``title`` on top, a rule, up to
    5 ``lines`` and the handheld id (its last 16 characters) at the bottom."""
    fb.fill(0)
    fb.text(title[:16], (128 - 8 * len(title[:16])) // 2, 0, 1)
    fb.hline(0, 10, 128, 1)
    for row, line in enumerate(lines[:5]):
        fb.text(line[:16], 0, 14 + 8 * row, 1)
    fb.text(ident[-16:], 0, 56, 1)


class Screen:
    """The OLED behind the loop: one page per :meth:`service`, retried when it fails.

    ``oled``: an :class:`ssd1306.OLED` (or None: no display); ``pages``: the 1,024-byte
    framebuffer (:attr:`HandheldCore.pages`).  :meth:`add` names pages to push; a failing
    bus (``OSError``) makes it wait 1 s, then 2, 4, 5, 5 ... s, re-initialise the panel
    (a panel that lost power forgets its settings) and push every page again.  :attr:`fault`
    is one line naming the last failure ("" while fine).
    """

    def __init__(self, oled: "ssd1306.OLED | None", pages: bytearray, bus: int = I2C_BUS) -> None:
        self.oled = oled
        self.pages = pages
        self.bus = bus
        self.pending = 0xFF
        """Bit ``p`` set: page ``p`` still has to go to the panel."""
        self.ready = False
        """True once :meth:`ssd1306.OLED.init` went through (until the next failure)."""
        self.fault = ""
        self.failures = 0
        self._retry_at = 0
        self._tries = 0

    def add(self, pages: "list[int]") -> None:
        """Pages (0..7) whose bytes changed and must go to the panel."""
        for page in pages:
            self.pending |= 1 << page

    @property
    def busy(self) -> bool:
        """True when a page waits and the panel is up: the loop should not sleep."""
        return self.ready and self.pending != 0

    def service(self, now: int) -> None:
        """At ``now`` (u32 ms): initialise the panel when due, else push one waiting page."""
        oled = self.oled
        if oled is None:
            return
        try:
            if not self.ready:
                if handheld_core.ms_diff(now, self._retry_at) < 0:
                    return
                oled.init()
                self.ready = True
                self.pending = 0xFF
                self._tries = 0
                self.fault = ""
                return
            if not self.pending:
                return
            page = 0
            while not self.pending >> page & 1:
                page += 1
            oled.write_page(page, memoryview(self.pages)[page * 128:(page + 1) * 128])
            self.pending &= ~(1 << page)
        except OSError as exc:
            self.ready = False
            self.failures += 1
            self.fault = f"OLED at I2C{self.bus} 0x{oled.address:02X}: {exc}"
            wait = RETRY_MS[min(self._tries, len(RETRY_MS) - 1)]
            self._tries += 1
            self._retry_at = (now + wait) & 0xFFFFFFFF


class Firmware:
    """One handheld's loop: keys, USB and OLED around a :class:`HandheldCore`.

    ``core``: the protocol core; ``keys``: four pins (left, right, select, back) with
    ``value()`` (0 = pressed: the switch pulls the pin to GND); ``screen``: a
    :class:`Screen`; ``fb``: a ``framebuf.FrameBuffer`` over ``core.pages``; ``link_in`` /
    ``link_out``: the USB byte streams (``sys.stdin.buffer`` / ``sys.stdout.buffer``);
    ``poller``: a ``select.poll`` with ``link_in`` registered for POLLIN; ``ticks_ms`` /
    ``ticks_diff``: ``time.ticks_ms`` / ``time.ticks_diff``.  Nothing here blocks longer
    than the ``poll`` wait of :meth:`wait`.
    """

    def __init__(self, core: "handheld_core.HandheldCore", keys: "list[machine.Pin]",
                 screen: Screen, fb: "framebuf.FrameBuffer", link_in: "BinaryIO",
                 link_out: "BinaryIO", poller: "select.poll",
                 ticks_ms: "Callable[[], int]",
                 ticks_diff: "Callable[[int, int], int]") -> None:
        self.core = core
        self.keys = keys
        self.screen = screen
        self.fb = fb
        self.link_in = link_in
        self.link_out = link_out
        self.poller = poller
        self.ticks_ms = ticks_ms
        self.ticks_diff = ticks_diff
        self.debouncer = handheld_core.KeyDebouncer(len(keys))
        self.clock = handheld_core.Clock32()
        self._ticks = ticks_ms()
        self._shown: tuple[str, str] | None = None
        self.bytes_out = 0
        """Bytes written to USB so far."""

    def now(self) -> int:
        """The handheld's u32 millisecond clock (:class:`handheld_core.Clock32`)."""
        ticks = self.ticks_ms()
        self.clock.advance(self.ticks_diff(ticks, self._ticks))
        self._ticks = ticks
        return self.clock.now

    def read(self) -> bytearray:
        """What USB holds now, at most :data:`READ_LIMIT` bytes, without blocking.

        ``sys.stdin.buffer.read(n)`` waits for all ``n`` bytes, and the rp2 port cannot say
        how many are there, so it is one byte per ``poll(0)`` that says one is waiting."""
        data = bytearray()
        reader = self.link_in.read
        while len(data) < READ_LIMIT and self.poller.poll(0):
            byte = reader(1)
            if not byte:
                break
            data += byte
        return data

    def step(self) -> None:
        """One turn of the loop (see the module docstring)."""
        core = self.core
        now = self.now()
        pressed = [pin.value() == 0 for pin in self.keys]
        for index, down, t_ms in self.debouncer.sample(pressed, now):
            core.press(index, down, t_ms)
        data = self.read()
        if data:
            core.feed(data, now)
        core.tick(now)
        out = core.take_output()
        if out:
            self.link_out.write(out)
            self.bytes_out += len(out)
        self.status()
        self.screen.add(core.dirty_pages())
        self.screen.service(now)

    def status(self) -> None:
        """Draw the handheld's own screen when the session state changes: "waiting for the
        console" without a session, the Pi's NAK text when it refused; in a session the
        picture is the Pi's (after a WELCOME it sends every page)."""
        core = self.core
        want = None if core.connected else (core.state, core.notice)
        if want == self._shown:
            return
        self._shown = want
        if want is None:
            return
        if core.state == "refused":
            lines = wrap(core.notice)
            title = "refused"
        else:
            lines = ["waiting for the", "console ...", "", "(USB cable in?)"]
            title = "partytable"
        draw_status(self.fb, title, lines, core.handheld_id)
        core.mark_dirty(0xFF)

    def wait(self) -> None:
        """Sleep until USB bytes come or :data:`POLL_MS` pass (no wait while the OLED has a
        page to take)."""
        self.poller.poll(0 if self.screen.busy else POLL_MS)

    def loop(self) -> None:
        """Run until ``mpremote`` asks for the REPL (:attr:`HandheldCore.repl_requested`)."""
        while not self.core.repl_requested:
            self.step()
            self.wait()


def record(text: str) -> None:
    """Write ``text`` to :data:`CRASH_FILE` unless it already holds exactly that (a crash
    at every boot must not wear the flash); a failing file system is ignored."""
    try:
        with open(CRASH_FILE) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    try:
        with open(CRASH_FILE, "w") as f:
            f.write(text)
    except OSError:
        pass


def run() -> None:
    """Start the handheld: check the settings, open keys, OLED and link, run the loop.

    Returns (to the REPL) after a configuration error, with BACK held at power-up, or when
    ``mpremote`` asked; resets the board 3 s after any other exception.
    """
    problem = check_config(I2C_BUS, SDA_PIN, SCL_PIN, KEY_PINS, OLED_ADDRESS, OLED_CONTROLLER)
    controller = OLED_CONTROLLER if OLED_CONTROLLER in ssd1306.CONTROLLERS else "ssd1306"
    oled = None
    try:  # with bad I2C pins there is no screen to name the problem on: crash.txt has it
        i2c = machine.I2C(I2C_BUS, scl=machine.Pin(SCL_PIN), sda=machine.Pin(SDA_PIN),
                          freq=I2C_HZ)
        oled = ssd1306.OLED(i2c, OLED_ADDRESS, controller, flip=OLED_FLIP)
    except (OSError, ValueError):
        oled = None
    ident = binascii.hexlify(machine.unique_id()).decode()
    core = handheld_core.HandheldCore(ident, FIRMWARE, int.from_bytes(os.urandom(4), "big"))
    fb = framebuf.FrameBuffer(core.pages, 128, 64, framebuf.MONO_VLSB)
    screen = Screen(oled, core.pages)

    def show(title: str, text: str) -> None:
        draw_status(fb, title, wrap(text), ident)
        screen.pending = 0xFF
        for _ in range(12):
            screen.service(time.ticks_ms() & 0xFFFFFFFF)  # type: ignore[attr-defined]

    if problem:
        record(problem + "\n")
        show("config error", problem)
        return
    keys = [machine.Pin(pin, machine.Pin.IN, machine.Pin.PULL_UP) for pin in KEY_PINS]
    time.sleep_ms(5)  # type: ignore[attr-defined]
    if keys[BACK].value() == 0:
        show("REPL mode", "BACK held at power-up: the link is off; mpremote works")
        return
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    firmware = Firmware(core, keys, screen, fb, sys.stdin.buffer, sys.stdout.buffer, poller,
                        time.ticks_ms, time.ticks_diff)  # type: ignore[attr-defined]
    micropython.kbd_intr(-1)
    try:
        firmware.loop()
    except Exception as exc:  # the board resets: a crash must not leave a dead handheld
        micropython.kbd_intr(3)
        text = f"{type(exc).__name__}: {exc}"
        trace = io.StringIO()
        print_exception = getattr(sys, "print_exception", None)  # MicroPython's traceback
        if print_exception is not None:
            print_exception(exc, trace)
        record(text + "\n" + trace.getvalue())
        show("crashed", text)
        time.sleep_ms(3000)  # type: ignore[attr-defined]
        machine.reset()
    micropython.kbd_intr(3)
    show("REPL mode", "mpremote asked for the REPL: run the command again")


if __name__ == "__main__":
    run()
