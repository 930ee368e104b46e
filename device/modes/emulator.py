"""An emulated serial handheld (``python -m device emulate-handheld``).

It runs the firmware's own protocol core — ``hardware/handheld/handheld_core.py``, the module
the RP2040 runs (PROTOCOL.md) — behind a pseudo-terminal: the console opens the pty's slave end
as it opens a USB handheld's ``/dev/ttyACM*``, and the emulator plays the board: it answers
with HELLO, PONG and ACKs, keeps the frames it receives in the core's framebuffer and sends
key presses as KEY messages.  ``unplug()`` closes the pty (the console sees the port vanish)
and ``plug()`` opens a new one, under a new ``/dev/pts/N`` — the same handheld id, so the
console gives it back its seat.  The simulator seats emulated handhelds with
``--serial-seats``; tests run the whole path end to end with them.

Times: the core's clock is u32 milliseconds, taken from the injected clock
(``now_ns // 1_000_000``).
"""

from __future__ import annotations

import collections
import contextlib
import errno
import importlib.util
import logging
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

from PIL import Image

from drivers.clock import Clock, MonotonicClock
from drivers.handheld_codec import pages_image

log = logging.getLogger("partytable")

MS = 1_000_000
CORE_PATH = Path(__file__).resolve().parents[2] / "hardware" / "handheld" / "handheld_core.py"
"""The firmware's protocol core, as copied onto the board."""
PUMP_NS = 10 * MS
"""How often a threaded emulator wakes without bytes arriving (its timers: HELLO, resends)."""


def load_core() -> ModuleType:
    """The firmware's ``handheld_core`` module, loaded from the checkout
    (:data:`CORE_PATH`); raises ``ImportError`` naming the file when it is not there."""
    if not CORE_PATH.is_file():
        raise ImportError(f"the handheld firmware's core is not at {CORE_PATH} "
                          "(the emulator runs from a checkout of the repository)")
    spec = importlib.util.spec_from_file_location("handheld_core", CORE_PATH)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {CORE_PATH}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class EmulatedHandheld:
    """One emulated serial handheld on a pty (see the module docstring).

    ``handheld_id``: its HELLO id (1..32 printable ASCII characters, no spaces);
    ``boot_id``: u32 of this "power-up" (default: drawn at random, as the board does at every
    power-up, so a restarted emulator's keys are not taken for repeats); ``clock``: the
    clock its milliseconds come from; ``on_frame``: see the attribute.
    Not thread-safe by itself: call :meth:`pump`, :meth:`press`, :meth:`plug` and
    :meth:`unplug` from one thread, or use :meth:`start` (then :meth:`press` and
    :meth:`unplug`/:meth:`plug` take the emulator's lock)."""

    def __init__(self, handheld_id: str, *, boot_id: int | None = None,
                 clock: Clock | None = None,
                 on_frame: Callable[[], None] | None = None) -> None:
        core = load_core()
        if boot_id is None:  # a new power-up, as the board draws it: a new KEY counter
            boot_id = int.from_bytes(os.urandom(4), "big")
        self.on_frame = on_frame
        """Called (on the pumping thread) when a frame changed the screen."""
        self.core: Any = core.HandheldCore(handheld_id, "emulator-1", boot_id)
        self.key_queue: int = core.KEY_QUEUE
        """How many key edges the core holds until the console ACKs them (32)."""
        self.handheld_id = handheld_id
        self.clock: Clock = clock if clock is not None else MonotonicClock()
        self.path: str | None = None
        """The pty's slave path the console opens (``None`` while unplugged)."""
        self.plugs = 0
        self.frames_seen = 0
        self._master: int | None = None
        self._slave: int | None = None
        self._pending = b""
        self._lock = threading.RLock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    # --- the cable ------------------------------------------------------------------
    def plug(self) -> str:
        """Plug in: a new pty pair; returns the slave path (a new ``/dev/pts/N``)."""
        with self._lock:
            if self._master is not None:
                return self.path or ""
            master, slave = os.openpty()
            os.set_blocking(master, False)
            self._master, self._slave = master, slave
            self.path = os.ttyname(slave)
            self._pending = b""
            self.plugs += 1
            return self.path

    def unplug(self) -> None:
        """Pull the cable: close the pty (the console's reads fail, as on a vanished USB
        port); the core keeps its state, as the board's RAM does while it is powered."""
        with self._lock:
            for fd in (self._master, self._slave):
                if fd is not None:
                    with contextlib.suppress(OSError):
                        os.close(fd)
            self._master = self._slave = None
            self.path = None

    @property
    def plugged(self) -> bool:
        """True while the pty is open."""
        return self._master is not None

    # --- the board ------------------------------------------------------------------
    def press(self, key: str, now_ns: int | None = None) -> bool:
        """A key pressed and released (``"left"``, ``"right"``, ``"select"``, ``"back"``):
        both edges join the core's KEY queue.  Returns False, queueing neither, while the
        queue has no room for both (:attr:`key_queue` edges wait for the console's ACK):
        press it again once the console has acknowledged some (:class:`KeyTyper` does)."""
        with self._lock:
            if len(self.core.pending_keys()) > self.key_queue - 2:
                return False
            t = self._ms(now_ns)
            down = bool(self.core.press(key, True, t))
            self.core.press(key, False, (t + 60) & 0xFFFFFFFF)
            self._flush()
            return down

    def pump(self, now_ns: int | None = None) -> int:
        """One turn of the board's loop: read what the console sent, run the core's timers,
        write what it has to say.  Returns when to pump again (CLOCK_MONOTONIC ns, a loop
        ticker)."""
        with self._lock:
            now = self.clock.now_ns() if now_ns is None else now_ns
            t = self._ms(now)
            if self._master is not None:
                while True:
                    try:
                        data = os.read(self._master, 4096)
                    except BlockingIOError:
                        break
                    except OSError as err:
                        if err.errno == errno.EIO:  # the console closed its end
                            break
                        raise
                    if not data:
                        break
                    self.core.feed(data, t)
            self.core.tick(t)
            changed = bool(self.core.dirty_pages())
            if changed:
                self.frames_seen += 1
            self._flush()
        if changed and self.on_frame is not None:
            self.on_frame()
        return now + PUMP_NS

    def image(self) -> Image.Image:
        """What the handheld's OLED shows now (a 128x64 mode ``"1"`` image)."""
        with self._lock:
            pages = bytes(self.core.pages)
        return pages_image([pages[i * 128:(i + 1) * 128] for i in range(8)])

    @property
    def connected(self) -> bool:
        """True while the core has a session with the console."""
        return bool(self.core.connected)

    def _ms(self, now_ns: int | None) -> int:
        now = self.clock.now_ns() if now_ns is None else now_ns
        return (now // MS) & 0xFFFFFFFF

    def _flush(self) -> None:
        out = self._pending + self.core.take_output()
        self._pending = b""
        if self._master is None or not out:
            return  # unplugged: what the core says goes nowhere, as on a loose cable
        try:
            written = os.write(self._master, out)
        except (BlockingIOError, OSError):
            written = 0
        self._pending = out[written:][-65536:]

    # --- a thread of its own --------------------------------------------------------
    def start(self) -> None:
        """Run :meth:`pump` on a thread, woken by bytes from the console or every
        :data:`PUMP_NS`; :meth:`stop` ends it."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"emulated {self.handheld_id}",
                                            daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop the thread (idempotent) and unplug."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2.0)
            self._thread = None
        self.unplug()

    def _run(self) -> None:
        while not self._stop.is_set():
            master = self._master
            if master is not None:
                with contextlib.suppress(OSError, ValueError):
                    select.select([master], [], [], PUMP_NS / 1e9)
            else:
                self._stop.wait(PUMP_NS / 1e9)
            try:
                self.pump()
            except Exception:  # the emulator never dies quietly, nor stops on one bad turn
                log.exception("emulated handheld %s", self.handheld_id)


class KeyLines:
    """The key lines typed into the emulator's terminal (or piped into it), read from the
    file descriptor itself.

    ``fd``: the descriptor (``sys.stdin.fileno()``).  Reading through ``sys.stdin`` after
    ``select`` would lose lines: its buffer takes every line the kernel holds at the first
    ``readline``, and ``select`` then says nothing is waiting while the rest sit in that
    buffer.  Here each :meth:`read` takes every byte the descriptor has and hands back every
    complete line; a line without its newline waits for the rest.  At end of file the last
    partial line is handed back and the descriptor is no longer watched.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.eof = False
        self._partial = b""

    def read(self, timeout_s: float) -> list[str]:
        """Wait up to ``timeout_s`` seconds for input; return the complete lines that came
        (without their newlines; undecodable bytes replaced), ``[]`` when none did."""
        if self.eof:
            time.sleep(timeout_s)
            return []
        ready, _, _ = select.select([self.fd], [], [], timeout_s)
        if not ready:
            return []
        try:
            data = os.read(self.fd, 4096)
        except BlockingIOError:
            return []
        if not data:
            self.eof = True
            rest, self._partial = self._partial, b""
            return [rest.decode(errors="replace")] if rest else []
        *lines, self._partial = (self._partial + data).split(b"\n")
        return [line.decode(errors="replace") for line in lines]


KEY_NAMES = {"l": "left", "r": "right", "s": "select", "b": "back"}
"""The terminal's letters for the handheld's keys."""


class KeyTyper:
    """The keys typed at the emulator's terminal, pressed on ``handheld`` in order with none
    dropped: a key waits in :attr:`pending` while the core's KEY queue is full (the console
    has not ACKed the earlier ones yet) and :meth:`feed` presses it later.  The terminal
    loop reads no more input while keys wait, so a fast writer (a script, a paste) is held
    back by its pipe, the way a terminal holds back a fast typist."""

    def __init__(self, handheld: EmulatedHandheld) -> None:
        self.handheld = handheld
        self.pending: collections.deque[str] = collections.deque()
        """Key names typed and not yet pressed, oldest first."""

    def type(self, line: str) -> None:
        """Queue each key letter of ``line`` (``l r s b``; other characters are ignored)
        and press what fits."""
        self.pending.extend(KEY_NAMES[ch] for ch in line if ch in KEY_NAMES)
        self.feed()

    def feed(self) -> None:
        """Press the waiting keys, oldest first, until the core's queue is full."""
        while self.pending and self.handheld.press(self.pending[0]):
            self.pending.popleft()


def main(argv: list[str]) -> int:
    """``python -m device emulate-handheld [--id ID] [--out DIR]``: one emulated handheld on
    a pty until Ctrl-C; prints the path to give the console (``seat.handheld.id`` or its
    HELLO id), writes each new picture as a PNG to ``--out`` (default: none), and reads
    keys from the terminal (l, r, s, b + Enter), every one pressed (:class:`KeyTyper`)."""
    from device.modes.cli import UsageError, _Parser  # a usage error is one line

    parser = _Parser(prog="python -m device emulate-handheld",
                     description="an emulated serial handheld on a pty")
    parser.add_argument("--id", default="emulated-1", help="its HELLO id (default emulated-1)")
    parser.add_argument("--out", type=Path, default=None, help="write each picture here")
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help: argparse printed it
        return int(done.code or 0)
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    try:
        handheld = EmulatedHandheld(args.id)
    except ImportError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except ValueError as err:  # the firmware's check of its HELLO id: named by its flag
        message = str(err)
        if message.startswith("handheld_id "):
            message = "--id " + message.removeprefix("handheld_id ")
        print(f"error: {message}", file=sys.stderr)
        return 2
    path = handheld.plug()
    print(f"handheld {args.id} on {path} (keys: l r s b + Enter; Ctrl-C ends)", flush=True)
    stop = threading.Event()

    def end(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, end)
    signal.signal(signal.SIGTERM, end)
    handheld.start()
    shown = 0
    keys = KeyLines(sys.stdin.fileno())
    typer = KeyTyper(handheld)
    try:
        while not stop.is_set():
            if typer.pending:  # the console has not ACKed enough yet: read nothing more
                stop.wait(PUMP_NS / 1e9)
                typer.feed()
            else:
                for line in keys.read(0.1):
                    typer.type(line)
            if args.out is not None and handheld.frames_seen != shown:
                shown = handheld.frames_seen
                args.out.mkdir(parents=True, exist_ok=True)
                handheld.image().save(args.out / f"frame-{shown:04d}.png")
    finally:
        handheld.stop()
    return 0
