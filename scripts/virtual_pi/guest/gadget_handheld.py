"""The virtual Pi's serial handheld on real USB: the firmware's protocol core
(``hardware/handheld/handheld_core.py``, the module the RP2040 runs) on the gadget side of a
USB CDC ACM link, so the console opens a real ``/dev/ttyACM*`` through the kernel's
``cdc_acm`` driver, as it opens a Pico's.

The USB device is a configfs gadget on ``dummy_hcd`` (``usb-gadget.sh`` next to this file
makes it: MicroPython's ids 2e8a:0005, manufacturer ``MicroPython``, product ``Board in FS
mode``, the serial number given, one ACM function).  The console's side is
``/dev/ttyACM<n>``, ``/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_<serial>-if00``;
this program's side is the function's ``/dev/ttyGS<n>``, put in raw mode (a tty echoes by
default, and an echoed FRAME is a packet from the wrong side).

The cable is the UDC: ``unplug`` writes an empty line to the gadget's ``UDC`` file (the host
sees a disconnect and its node goes, the gadget's tty is hung up), ``plug`` writes the UDC's
name back (a new ``/dev/ttyACM<n>``, the same by-id name).  The tty is reopened whenever it
was hung up.  By default a pull keeps the core's state, as a handheld that stays powered
does (its KEY queue and counter survive, PROTOCOL.md "KEY delivery");
``unplug power`` also restarts the core with a fresh ``boot_id``, as a USB-powered board
that loses power does (its queued keys are gone with it, recorded as ``lost_by_power``).

Commands, one line each on the unix socket ``--socket`` (default
``/run/vpi-handheld/ctl.sock``), each answered by one JSON line (``{"ok": true, ...}`` or
``{"ok": false, "error": "..."}``):

- ``key NAME``: NAME pressed and released (``left``/``right``/``select``/``back``, any
  case): two KEY edges; the answer names their seqs (``down_seq``, ``up_seq``) and the
  press number ``n``, or ``queued: false`` when the core's queue (32 edges) has no room;
- ``auto SECONDS [NAME ...]``: press the names in turn every SECONDS (default names
  ``left right``) until ``auto 0``; every press is logged like ``key``'s;
- ``unplug [power]``, ``plug``: the cable (see above);
- ``status``: the counters (:func:`status`);
- ``keys [FROM]``: the sent-key log from press number FROM (default 0);
- ``events [FROM]``: the event log (``plug``, ``unplug``, ``tty_open``, ``tty_hangup``,
  ``session``, ``session_lost``, ``frame``: the first frame of each session) from FROM;
- ``quit``.

Times are this machine's CLOCK_MONOTONIC in seconds (``time.monotonic()``): the journal's
``__MONOTONIC_TIMESTAMP`` is on the same clock (in µs), so a host can put the console's log
lines and this log on one time line.

``gadget_handheld.py ctl COMMAND ...`` is the client: it sends one command and prints the
answer (exit status 1 when it says ``ok: false``, 2 when the socket is not there).

Standard library only; it runs on the guest's python3 or the project's venv.  Bad input
(an unknown command, a bad key name) is answered with one line naming it, never a crash.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import hashlib
import importlib.util
import json
import os
import selectors
import socket
import sys
import termios
import time
import tty
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
SOCKET = "/run/vpi-handheld/ctl.sock"
GADGET = "/sys/kernel/config/usb_gadget/vpi-handheld"
TTY = "/dev/ttyGS0"
SERIAL = "7669727470693031"
"""The default USB serial number and HELLO id: 16 hex digits, as a Pico's
``machine.unique_id()`` gives (these spell ``virtpi01``)."""
TURN_S = 0.01
"""How long the loop waits when nothing arrives (the core's timers: HELLO, KEY resend)."""
REOPEN_S = 0.02
"""How often a hung-up tty is tried again while the gadget is bound."""
UDC_CHECK_S = 0.1
"""How often the gadget's ``UDC`` file is read (someone else may unbind it)."""
CORE_CANDIDATES = (HERE / "handheld_core.py",
                   HERE.parents[2] / "hardware" / "handheld" / "handheld_core.py")
"""Where the firmware's core is looked for: next to this file (as laid in the guest), then
in the repository (a checkout)."""


def load_core(path: Path | None = None) -> ModuleType:
    """The firmware's ``handheld_core`` module from ``path`` (default: the first of
    :data:`CORE_CANDIDATES` that exists); raises ``ImportError`` naming where it looked."""
    paths = [path] if path is not None else [p for p in CORE_CANDIDATES if p.is_file()]
    if not paths or not paths[0].is_file():
        where = path if path is not None else " or ".join(str(p) for p in CORE_CANDIDATES)
        raise ImportError(f"the handheld firmware's core is not at {where}")
    spec = importlib.util.spec_from_file_location("handheld_core", paths[0])
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {paths[0]}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ms(now_s: float) -> int:
    """The core's u32 millisecond clock at ``now_s`` (monotonic seconds)."""
    return int(now_s * 1000) & 0xFFFFFFFF


def frame_hash(pages: bytes | bytearray) -> str:
    """The first 16 hex digits of the SHA-256 of the 1,024-byte framebuffer."""
    return hashlib.sha256(bytes(pages)).hexdigest()[:16]


class Handheld:
    """The handheld: the core, the tty, the UDC, the logs (see the module docstring).

    ``core``: the loaded ``handheld_core`` module; ``handheld_id``: its HELLO id;
    ``gadget``: the configfs gadget folder; ``tty``: the gadget's tty; ``udc``: the UDC
    name to bind (default: the first in ``/sys/class/udc``)."""

    def __init__(self, core: ModuleType, handheld_id: str, *, gadget: str = GADGET,
                 tty_path: str = TTY, udc: str | None = None) -> None:
        self.core_module = core
        self.handheld_id = handheld_id
        self.gadget = gadget
        self.tty_path = tty_path
        self.udc = udc
        self.core: Any = self._new_core()
        self.fd: int | None = None
        self.bound = self._read_udc() != ""
        self.keys: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.skipped = 0
        """Presses refused because the core's queue was full (no seq taken)."""
        self.lost_by_power = 0
        """Key edges still queued when ``unplug power`` restarted the core."""
        self.reopens = 0
        self.frames_changed = 0
        self.last_frame_at = 0.0
        self._out = b""
        self._was_session = False
        self._frame_in_session = False
        self._frames_seen = 0
        self._next_open = 0.0
        self._next_udc_check = 0.0
        self.auto_period = 0.0
        self.auto_keys: list[str] = ["left", "right"]
        self._auto_next = 0.0
        self._auto_i = 0

    def _new_core(self) -> Any:
        boot_id = int.from_bytes(os.urandom(4), "big")
        return self.core_module.HandheldCore(self.handheld_id, "vpi-usb-1", boot_id)

    def event(self, what: str, at: float | None = None, **extra: Any) -> None:
        """Log one event at ``at`` (monotonic s; default now)."""
        self.events.append({"i": len(self.events), "what": what,
                            "t": time.monotonic() if at is None else at, **extra})

    # --- the cable --------------------------------------------------------------------
    def _udc_file(self) -> str:
        return os.path.join(self.gadget, "UDC")

    def _read_udc(self) -> str:
        try:
            with open(self._udc_file(), encoding="ascii") as f:
                return f.read().strip()
        except OSError:
            return ""

    def plug(self) -> dict[str, Any]:
        """Bind the gadget to the UDC (the cable plugged in)."""
        if self._read_udc():
            self.bound = True
            return {"ok": True, "already": True}
        udc = self.udc or (sorted(os.listdir("/sys/class/udc")) or [""])[0]
        if not udc:
            return {"ok": False, "error": "no UDC in /sys/class/udc (modprobe dummy_hcd)"}
        t = time.monotonic()
        try:
            with open(self._udc_file(), "w", encoding="ascii") as f:
                f.write(udc + "\n")
        except OSError as err:
            return {"ok": False, "error": f"plug: writing {udc} to {self._udc_file()}: {err}"}
        self.bound = True
        self._next_open = 0.0
        self.event("plug", t, udc=udc, took_s=time.monotonic() - t)
        return {"ok": True, "t": t}

    def unplug(self, power: bool = False) -> dict[str, Any]:
        """Unbind the gadget (the cable pulled); ``power``: the board loses power too."""
        t = time.monotonic()
        if self._read_udc():
            try:
                with open(self._udc_file(), "w", encoding="ascii") as f:
                    f.write("\n")
            except OSError as err:
                return {"ok": False, "error": f"unplug: {self._udc_file()}: {err}"}
        self.bound = False
        self._close_tty("unplug")
        lost = 0
        if power:
            lost = len(self.core.pending_keys())
            self.lost_by_power += lost
            self.core = self._new_core()
        self.event("unplug", t, power=power, lost=lost, took_s=time.monotonic() - t)
        return {"ok": True, "t": t, "lost": lost}

    # --- the tty ----------------------------------------------------------------------
    def _open_tty(self, now: float) -> None:
        if self.fd is not None or not self.bound or now < self._next_open:
            return
        self._next_open = now + REOPEN_S
        try:
            fd = os.open(self.tty_path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        except OSError:
            return
        try:
            tty.setraw(fd)
            attrs = termios.tcgetattr(fd)
            attrs[2] |= termios.CLOCAL  # a hang-up of the host's side is ours to see
            termios.tcsetattr(fd, termios.TCSANOW, attrs)
        except termios.error:
            os.close(fd)
            return
        self.fd = fd
        self.reopens += 1
        self._out = b""
        self.event("tty_open", path=self.tty_path)

    def _close_tty(self, why: str) -> None:
        if self.fd is None:
            return
        with contextlib.suppress(OSError):
            os.close(self.fd)
        self.fd = None
        self._out = b""
        self.event("tty_hangup", why=why)

    def pump(self, now: float) -> None:
        """One turn: read the tty, run the timers and the auto typer, write the output."""
        if now >= self._next_udc_check:
            self._next_udc_check = now + UDC_CHECK_S
            bound = self._read_udc() != ""
            if bound != self.bound:
                self.event("udc", bound=bound)
                self.bound = bound
                if not bound:
                    self._close_tty("unbound")
        self._open_tty(now)
        t = ms(now)
        if self.fd is not None:
            while True:
                try:
                    data = os.read(self.fd, 4096)
                except BlockingIOError:
                    break
                except OSError as err:
                    self._close_tty(f"read: {errno.errorcode.get(err.errno or 0, str(err.errno))}")
                    break
                if not data:  # a hung-up tty reads end of file
                    self._close_tty("read: end of file")
                    break
                self.core.feed(data, t)
        self.core.tick(t)
        if self.auto_period and now >= self._auto_next:
            self._auto_next = now + self.auto_period
            self.press(self.auto_keys[self._auto_i % len(self.auto_keys)], now)
            self._auto_i += 1
        self._watch(now)
        self._flush()

    def _watch(self, now: float) -> None:
        if self.core.dirty_pages():
            self.frames_changed += 1
        session = bool(self.core.connected)
        if session and not self._was_session:
            self._frame_in_session = False
            self.event("session", sessions=self.core.sessions)
        elif self._was_session and not session:
            self.event("session_lost")
        self._was_session = session
        if self.core.frames != self._frames_seen:
            self._frames_seen = self.core.frames
            self.last_frame_at = now
            if session and not self._frame_in_session:
                self._frame_in_session = True
                self.event("frame", frames=self.core.frames, hash=frame_hash(self.core.pages))

    def _flush(self) -> None:
        out = self._out + self.core.take_output()
        self._out = b""
        if self.fd is None or not out:
            return  # unplugged: what the core says goes nowhere, as on a pulled cable
        try:
            written = os.write(self.fd, out)
        except BlockingIOError:
            written = 0
        except OSError as err:
            self._close_tty(f"write: {errno.errorcode.get(err.errno or 0, str(err.errno))}")
            return
        self._out = out[written:][-65536:]

    # --- keys ---------------------------------------------------------------------------
    def press(self, name: str, now: float | None = None) -> dict[str, Any]:
        """``name`` pressed and released: two edges on the core's queue, logged."""
        key = name.lower()
        if key not in self.core_module.KEY_NAMES:
            return {"ok": False,
                    "error": f"key: {name!r} is not one of "
                             f"{', '.join(self.core_module.KEY_NAMES)}"}
        now = time.monotonic() if now is None else now
        if len(self.core.pending_keys()) > self.core_module.KEY_QUEUE - 2:
            self.skipped += 1
            return {"ok": True, "queued": False, "pending": len(self.core.pending_keys())}
        t = ms(now)
        self.core.press(key, True, t)
        down_seq = self.core.pending_keys()[-1][0]
        self.core.press(key, False, (t + 60) & 0xFFFFFFFF)
        up_seq = self.core.pending_keys()[-1][0]
        entry = {"n": len(self.keys), "key": key, "down_seq": down_seq, "up_seq": up_seq,
                 "t": now, "boot_id": self.core.boot_id, "connected": bool(self.core.connected)}
        self.keys.append(entry)
        self._flush()
        return {"ok": True, "queued": True, **entry}

    def status(self) -> dict[str, Any]:
        """The counters: ``bound``, ``tty_open``, ``state`` (the core's), ``sessions``,
        ``frames`` (FRAMEs applied), ``frames_changed`` (turns whose frames changed the
        screen), ``last_frame_hash``/``last_frame_at``, ``keys_sent`` (presses logged),
        ``pending`` (edges not yet ACKed), ``next_key_seq``, ``skipped``,
        ``lost_by_power``, ``keys_dropped`` (the core's), ``reopens``, ``bad`` (the
        core's bad-packet counts), ``boot_id``, ``events``, ``now``."""
        core = self.core
        return {"ok": True, "id": self.handheld_id, "bound": self.bound,
                "tty_open": self.fd is not None, "state": core.state,
                "sessions": core.sessions, "frames": core.frames,
                "frames_changed": self.frames_changed,
                "last_frame_hash": frame_hash(core.pages), "last_frame_at": self.last_frame_at,
                "keys_sent": len(self.keys), "pending": len(core.pending_keys()),
                "next_key_seq": core.next_key_seq, "skipped": self.skipped,
                "lost_by_power": self.lost_by_power, "keys_dropped": core.keys_dropped,
                "reopens": self.reopens, "bad": dict(core.counts),
                "last_error": core.last_error, "boot_id": core.boot_id,
                "events": len(self.events), "auto_s": self.auto_period,
                "now": time.monotonic()}

    # --- commands ------------------------------------------------------------------------
    def command(self, line: str) -> dict[str, Any]:
        """Run one command line (see the module docstring); never raises."""
        words = line.split()
        if not words:
            return {"ok": False, "error": "empty command"}
        verb, args = words[0].lower(), words[1:]
        try:
            if verb == "key" and len(args) == 1:
                return self.press(args[0])
            if verb == "auto" and args:
                period = float(args[0])
                if not 0 <= period <= 60:
                    return {"ok": False, "error": f"auto: {args[0]} s is not 0..60"}
                names = [a.lower() for a in args[1:]] or ["left", "right"]
                bad = [n for n in names if n not in self.core_module.KEY_NAMES]
                if bad:
                    return {"ok": False, "error": f"auto: {bad[0]!r} is not a key"}
                self.auto_period, self.auto_keys = period, names
                self._auto_next = 0.0
                return {"ok": True, "auto_s": period, "keys": names}
            if verb == "plug" and not args:
                return self.plug()
            if verb == "unplug" and args in ([], ["power"]):
                return self.unplug(power=bool(args))
            if verb == "status" and not args:
                return self.status()
            if verb in ("keys", "events") and len(args) <= 1:
                start = int(args[0]) if args else 0
                log = self.keys if verb == "keys" else self.events
                return {"ok": True, verb: log[start:]}
            if verb == "quit" and not args:
                return {"ok": True, "quit": True}
        except ValueError as err:
            return {"ok": False, "error": f"{verb}: {err}"}
        return {"ok": False, "error": f"unknown command {line.strip()[:80]!r} (key NAME, "
                                      "auto S [NAME...], plug, unplug [power], status, "
                                      "keys [FROM], events [FROM], quit)"}


def serve(handheld: Handheld, sock_path: str) -> int:
    """Run the handheld and its control socket until ``quit``; exit status 0."""
    Path(sock_path).parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(sock_path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(sock_path)
    listener.listen(8)
    listener.setblocking(False)
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ, None)
    clients: dict[socket.socket, bytes] = {}
    watched: int | None = None
    running = True
    while running:
        if handheld.fd != watched:
            if watched is not None:
                with contextlib.suppress(KeyError, ValueError):
                    sel.unregister(watched)
            watched = handheld.fd
            if watched is not None:
                sel.register(watched, selectors.EVENT_READ, "tty")
        for key, _ in sel.select(TURN_S):
            if key.fileobj is listener:
                with contextlib.suppress(BlockingIOError):
                    conn, _ = listener.accept()
                    conn.setblocking(False)
                    sel.register(conn, selectors.EVENT_READ, "client")
                    clients[conn] = b""
            elif key.data == "client":
                peer = key.fileobj
                assert isinstance(peer, socket.socket)
                conn = peer
                try:
                    chunk = conn.recv(4096)
                except OSError:
                    chunk = b""
                if not chunk:
                    sel.unregister(conn)
                    conn.close()
                    clients.pop(conn, None)
                    continue
                pending = clients[conn] + chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    reply = handheld.command(line.decode(errors="replace"))
                    with contextlib.suppress(OSError):
                        conn.setblocking(True)
                        conn.sendall((json.dumps(reply) + "\n").encode())
                        conn.setblocking(False)
                    if reply.get("quit"):
                        running = False
                clients[conn] = pending
        handheld.pump(time.monotonic())
    for conn in clients:
        conn.close()
    listener.close()
    with contextlib.suppress(FileNotFoundError):
        os.unlink(sock_path)
    return 0


def ctl(sock_path: str, words: list[str], timeout_s: float = 10.0) -> int:
    """Send one command, print its answer; exit status 0, 1 (``ok: false``) or 2 (no
    socket or no answer)."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout_s)
            s.connect(sock_path)
            s.sendall((" ".join(words) + "\n").encode())
            data = b""
            while not data.endswith(b"\n"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
    except OSError as err:
        print(json.dumps({"ok": False, "error": f"{sock_path}: {err}"}))
        return 2
    text = data.decode(errors="replace").strip()
    print(text)
    try:
        return 0 if json.loads(text).get("ok") else 1
    except ValueError:
        return 2


def main(argv: list[str]) -> int:
    """``gadget_handheld.py [--id ID] [--socket PATH] [--tty PATH] [--gadget DIR] [--core
    FILE] [--plug]`` runs the handheld; ``gadget_handheld.py ctl [--socket PATH] COMMAND
    ...`` sends it one command.  Exit status 2 for a bad command line or a missing core."""
    if argv[:1] == ["ctl"]:
        rest = argv[1:]
        path = SOCKET
        if rest[:1] == ["--socket"] and len(rest) >= 2:
            path, rest = rest[1], rest[2:]
        if not rest:
            print("usage: gadget_handheld.py ctl [--socket PATH] COMMAND ...", file=sys.stderr)
            return 2
        return ctl(path, rest)
    parser = argparse.ArgumentParser(prog="gadget_handheld.py",
                                     description="a serial handheld on a USB gadget")
    parser.add_argument("--id", default=SERIAL, help=f"HELLO id (default {SERIAL})")
    parser.add_argument("--socket", default=SOCKET)
    parser.add_argument("--tty", default=TTY)
    parser.add_argument("--gadget", default=GADGET)
    parser.add_argument("--udc", default=None)
    parser.add_argument("--core", type=Path, default=None)
    parser.add_argument("--plug", action="store_true", help="bind the gadget at start")
    args = parser.parse_args(argv)
    try:
        core = load_core(args.core)
        handheld = Handheld(core, args.id, gadget=args.gadget, tty_path=args.tty,
                            udc=args.udc)
    except (ImportError, ValueError) as err:
        print(f"gadget_handheld: {err}", file=sys.stderr)
        return 2
    if args.plug:
        reply = handheld.plug()
        if not reply["ok"]:
            print(f"gadget_handheld: {reply['error']}", file=sys.stderr)
            return 1
    return serve(handheld, args.socket)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
