"""The virtual Pi's serial handheld on real USB, driven from the host through the VM's agent
(:class:`scripts.appliance.vm.Machine`).

In the guest: ``guest/usb-gadget.sh`` makes a configfs CDC ACM gadget with MicroPython's ids
on ``dummy_hcd``; ``guest/gadget_handheld.py`` runs the firmware's protocol core
(``hardware/handheld/handheld_core.py``) on its ``/dev/ttyGS0`` and takes commands on a
unix socket; the console opens the host side, ``/dev/ttyACM<n>`` through ``cdc_acm``,
named by :func:`by_id_path`, and with ``-v`` logs every KEY it applies
(``drivers/serial_handheld.py``: ``<seat> serial handheld <id>: KEY seq <n> <key> down
applied``).

This module has two halves:

- pure: the command lines (:func:`ctl_argv`, :func:`start_argv`, ...), the config seat
  (:func:`serial_seat_toml`), and the parsers of what comes back (:func:`parse_reply`,
  :func:`parse_status`, :func:`parse_keys`, :func:`parse_events`, :func:`parse_journal`,
  :func:`console_keys`), the key check (:func:`check_keys`), the pull timings
  (:func:`pull_timings`) and their figures (:func:`percentile`);
- the calls (:func:`install`, :func:`setup`, :func:`start`, :func:`plug`,
  :func:`unplug`, :func:`press`, :func:`status`, :func:`sent_keys`, :func:`events`,
  :func:`journal`), each one agent request, raising :class:`UsbError` (one line) when the
  guest's answer is not ``ok``.

Times from the guest are its CLOCK_MONOTONIC in seconds (the handheld's logs; the journal's
``__MONOTONIC_TIMESTAMP`` divided by 10^6).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scripts.appliance.vm import Machine

REPO = Path(__file__).resolve().parents[2]
GUEST = Path(__file__).resolve().parent / "guest"
GUEST_DIR = "/usr/local/lib/partytable-vpi"
"""Where the handheld's files live in the guest."""
GUEST_FILES: Mapping[str, str] = {
    "scripts/virtual_pi/guest/gadget_handheld.py": f"{GUEST_DIR}/gadget_handheld.py",
    "scripts/virtual_pi/guest/usb-gadget.sh": f"{GUEST_DIR}/usb-gadget.sh",
    "hardware/handheld/handheld_core.py": f"{GUEST_DIR}/handheld_core.py",
}
"""Repository file -> guest path: what :func:`install` (or an image build) lays in."""
PYTHON = "/usr/bin/python3"
"""The client's interpreter: Debian's (``-S``: no site, it needs only the standard
library); the handheld itself runs on the project's venv (:data:`VENV_PYTHON`)."""
VENV_PYTHON = "/opt/partytable/.venv/bin/python"
UNIT = "vpi-handheld"
"""The transient systemd unit the handheld runs in (``systemd-run --unit``)."""
SOCKET = "/run/vpi-handheld/ctl.sock"
SERIAL = "7669727470693031"
"""The default USB serial number and HELLO id (16 hex digits, as a Pico gives)."""
KEYS = ("left", "right", "select", "back")
SERIAL_RE = re.compile(r"[0-9A-Za-z]{1,32}")
"""A serial number this module accepts: it becomes part of a by-id file name and the HELLO
id, so letters and digits only."""



class UsbError(Exception):
    """A handheld command failed or answered what cannot be read: ``str(err)`` is one
    line naming the command."""


# ------------------------------------------------------------------------ command lines
def check_serial(serial: str) -> str:
    """``serial`` when it is 1..32 letters and digits; else ``ValueError`` naming it."""
    if not SERIAL_RE.fullmatch(serial):
        raise ValueError(f"serial {serial!r}: 1 to 32 letters and digits")
    return serial


def by_id_path(serial: str = SERIAL) -> str:
    """The console's name of the handheld:
    ``/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_<serial>-if00`` (udev's
    ``60-serial.rules``: vendor and model strings with spaces as ``_``, the serial, the
    interface).  Raises ``ValueError`` for a bad serial."""
    return f"/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_{check_serial(serial)}-if00"


def serial_seat_toml(serial: str = SERIAL, *, slap_pin: int = 17) -> str:
    """One ``[[seat]]`` of ``/etc/partytable/config.toml`` whose handheld is this one:
    ``kind = "serial"``, ``id`` the by-id path, and the ``slap_pin`` a serial seat must
    have (BCM: a gpio-sim line in the virtual Pi)."""
    return (f'[[seat]]\nslap_pin = {int(slap_pin)}\n[seat.handheld]\nkind = "serial"\n'
            f'id = "{by_id_path(serial)}"\n')


def gadget_argv(action: str, serial: str = SERIAL) -> list[str]:
    """``sh usb-gadget.sh ACTION SERIAL`` (``setup``, ``bind``, ``unbind``, ``status``,
    ``remove``); ``ValueError`` for another action or a bad serial."""
    if action not in ("setup", "bind", "unbind", "status", "remove"):
        raise ValueError(f"gadget action {action!r}: setup, bind, unbind, status or remove")
    return ["sh", f"{GUEST_DIR}/usb-gadget.sh", action, check_serial(serial)]


def start_argv(serial: str = SERIAL, *, plug: bool = True) -> list[str]:
    """Start the handheld as the transient unit :data:`UNIT` (it outlives the agent's
    request): HELLO id ``serial``, bound at once when ``plug``."""
    return ["systemd-run", f"--unit={UNIT}", "--collect", "--quiet",
            "--property=Restart=no", VENV_PYTHON, f"{GUEST_DIR}/gadget_handheld.py",
            "--id", check_serial(serial), "--socket", SOCKET, *(["--plug"] if plug else [])]


def ctl_argv(*words: str) -> list[str]:
    """The client's command line for one handheld command (``ctl_argv("key", "select")``).
    Raises ``ValueError`` for an empty command or a word with white space in it."""
    if not words:
        raise ValueError("a handheld command needs at least one word")
    for word in words:
        if not word or any(c.isspace() for c in word):
            raise ValueError(f"handheld command word {word!r}: empty or with white space")
    return [PYTHON, "-S", f"{GUEST_DIR}/gadget_handheld.py", "ctl", "--socket", SOCKET,
            *words]


def key_argv(key: str) -> list[str]:
    """``key NAME``'s command line; ``ValueError`` naming a key not in :data:`KEYS`."""
    name = key.lower()
    if name not in KEYS:
        raise ValueError(f"key {key!r}: one of {', '.join(KEYS)}")
    return ctl_argv("key", name)


def write_file_argv(dest: str, data: bytes, mode: int = 0o644) -> list[str]:
    """A command that writes ``data`` to ``dest`` in the guest (its folder made), mode
    ``mode``; the bytes travel base64-encoded in the argument list."""
    code = ("import base64,os,sys;d=sys.argv[1];os.makedirs(os.path.dirname(d),exist_ok=True);"
            "open(d,'wb').write(base64.b64decode(sys.argv[2]));os.chmod(d,int(sys.argv[3],8))")
    return [PYTHON, "-S", "-c", code, dest, base64.b64encode(data).decode(), f"{mode:o}"]


def journal_argv(unit: str = "partytable.service", *, boot: bool = True) -> list[str]:
    """``journalctl`` of ``unit`` as JSON lines (this boot only with ``boot``)."""
    return ["journalctl", "-u", unit, "-o", "json", "--no-pager", "--output-fields",
            "MESSAGE,__MONOTONIC_TIMESTAMP", *(["-b"] if boot else [])]


# ------------------------------------------------------------------------ what comes back
@dataclass(frozen=True)
class Status:
    """The handheld's counters (``gadget_handheld.py``'s ``status``): ``bound`` (the
    gadget on its UDC), ``tty_open``, ``state`` (``waiting``/``session``/``refused``),
    ``sessions``, ``frames`` (FRAMEs applied), ``last_frame_hash`` (16 hex digits of the
    framebuffer's SHA-256), ``last_frame_at`` (guest monotonic s, 0 before any),
    ``keys_sent`` (presses logged), ``pending`` (edges not ACKed), ``next_key_seq``,
    ``skipped`` (presses refused by a full queue), ``lost_by_power``, ``bad`` (bad packets
    by reason), ``now`` (guest monotonic s)."""

    bound: bool
    tty_open: bool
    state: str
    sessions: int
    frames: int
    last_frame_hash: str
    last_frame_at: float
    keys_sent: int
    pending: int
    next_key_seq: int
    skipped: int
    lost_by_power: int
    bad: Mapping[str, int]
    now: float

    @property
    def connected(self) -> bool:
        """True while the handheld has a session with the console."""
        return self.state == "session"


@dataclass(frozen=True)
class SentKey:
    """One press the handheld sent: press number ``n``, ``key``, the seqs of its two edges,
    ``t`` (guest monotonic s), the core's ``boot_id``."""

    n: int
    key: str
    down_seq: int
    up_seq: int
    t: float
    boot_id: int


@dataclass(frozen=True)
class Event:
    """One handheld event: ``what`` (``plug``, ``unplug``, ``tty_open``, ``tty_hangup``,
    ``udc``, ``session``, ``session_lost``, ``frame``) at ``t`` (guest monotonic s)."""

    i: int
    what: str
    t: float


@dataclass(frozen=True)
class JournalLine:
    """One journal line: ``t`` (guest monotonic s) and its ``message``."""

    t: float
    message: str


@dataclass(frozen=True)
class ConsoleKey:
    """One KEY the console applied (the serial link's ``KEY seq <n> <key> <down|up>
    applied`` line; resends it drops are not applied and have no such line)."""

    t: float
    seat: int
    seq: int
    key: str
    down: bool
    applied: bool


def parse_reply(text: str, what: str = "handheld") -> dict[str, Any]:
    """The JSON object of a handheld answer (the last non-empty line of ``text``); raises
    :class:`UsbError` naming ``what`` when it is not JSON, not an object, or ``ok`` is not
    true (with the handheld's ``error``)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise UsbError(f"{what}: no answer")
    try:
        obj = json.loads(lines[-1])
    except ValueError:
        raise UsbError(f"{what}: answer is not JSON: {lines[-1][:80]!r}") from None
    if not isinstance(obj, dict):
        raise UsbError(f"{what}: answer is not an object: {lines[-1][:80]!r}")
    if obj.get("ok") is not True:
        raise UsbError(f"{what}: {obj.get('error', 'not ok')}")
    return obj


def _field(obj: Mapping[str, Any], name: str, kind: type, what: str) -> Any:
    value = obj.get(name)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise UsbError(f"{what}: field {name!r} is {value!r}, not {kind.__name__}")
    return value


def parse_status(text: str) -> Status:
    """:class:`Status` from a ``status`` answer; :class:`UsbError` naming a missing or
    mistyped field."""
    obj = parse_reply(text, "status")
    w = "status"
    bad = obj.get("bad", {})
    if not isinstance(bad, dict) or not all(isinstance(v, int) for v in bad.values()):
        raise UsbError(f"status: field 'bad' is {bad!r}, not counts by reason")
    return Status(
        bound=_field(obj, "bound", bool, w), tty_open=_field(obj, "tty_open", bool, w),
        state=_field(obj, "state", str, w), sessions=_field(obj, "sessions", int, w),
        frames=_field(obj, "frames", int, w),
        last_frame_hash=_field(obj, "last_frame_hash", str, w),
        last_frame_at=_field(obj, "last_frame_at", float, w),
        keys_sent=_field(obj, "keys_sent", int, w), pending=_field(obj, "pending", int, w),
        next_key_seq=_field(obj, "next_key_seq", int, w),
        skipped=_field(obj, "skipped", int, w),
        lost_by_power=_field(obj, "lost_by_power", int, w),
        bad=dict(bad), now=_field(obj, "now", float, w))


def _entries(text: str, name: str, ident: str) -> list[tuple[dict[str, Any], str]]:
    """The objects of the ``name`` list of an answer, each with its place for messages
    (``keys[3]``, by its ``ident`` field); :class:`UsbError` for a missing list or an entry
    that is not an object."""
    entries = parse_reply(text, name).get(name)
    if not isinstance(entries, list):
        raise UsbError(f"{name}: no '{name}' list in the answer")
    for e in entries:
        if not isinstance(e, dict):
            raise UsbError(f"{name}: entry {e!r} is not an object")
    return [(e, f"{name}[{e.get(ident)}]") for e in entries]


def parse_keys(text: str) -> list[SentKey]:
    """The sent-key log of a ``keys`` answer."""
    out = []
    for e, w in _entries(text, "keys", "n"):
        out.append(SentKey(n=_field(e, "n", int, w), key=_field(e, "key", str, w),
                           down_seq=_field(e, "down_seq", int, w),
                           up_seq=_field(e, "up_seq", int, w), t=_field(e, "t", float, w),
                           boot_id=_field(e, "boot_id", int, w)))
    return out


def parse_events(text: str) -> list[Event]:
    """The event log of an ``events`` answer."""
    out = []
    for e, w in _entries(text, "events", "i"):
        out.append(Event(i=_field(e, "i", int, w), what=_field(e, "what", str, w),
                         t=_field(e, "t", float, w)))
    return out


def parse_journal(text: str) -> list[JournalLine]:
    """``journalctl -o json`` output as :class:`JournalLine` s; lines that are not JSON
    objects with a text ``MESSAGE`` and a ``__MONOTONIC_TIMESTAMP`` are skipped (a binary
    message is a list of bytes in journald's JSON)."""
    out = []
    for raw in text.splitlines():
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(obj, dict):
            continue
        message, stamp = obj.get("MESSAGE"), obj.get("__MONOTONIC_TIMESTAMP")
        if isinstance(message, str) and isinstance(stamp, str) and stamp.isdigit():
            out.append(JournalLine(t=int(stamp) / 1e6, message=message))
    return out


KEY_LINE = re.compile(r"seat (\d+) serial handheld \S+: KEY seq (\d+) (\w+) (down|up) applied")
LINK_LINE = re.compile(r"seat (\d+) serial handheld \S+: (.*)")


def console_keys(lines: Iterable[JournalLine]) -> list[ConsoleKey]:
    """The console's KEY decisions, in journal order."""
    out = []
    for line in lines:
        m = KEY_LINE.search(line.message)
        if m:
            out.append(ConsoleKey(t=line.t, seat=int(m[1]), seq=int(m[2]), key=m[3],
                                  down=m[4] == "down", applied=True))
    return out


def link_lines(lines: Iterable[JournalLine], kind: str) -> list[JournalLine]:
    """The serial link's lines of one ``kind``: ``"connected"`` (``...: connected on
    ...``) or ``"gone"`` (the seat's handheld reported gone: any other seat line but a KEY
    or a refusal)."""
    out = []
    for line in lines:
        m = LINK_LINE.search(line.message)
        if not m or KEY_LINE.search(line.message):
            continue
        rest = m[2]
        connected = rest.startswith("connected on ")
        other = rest.startswith("KEY seq ") or " refused: " in rest
        if (kind == "connected" and connected) or (kind == "gone" and not connected
                                                  and not other):
            out.append(line)
    return out


def check_keys(sent: Sequence[SentKey], decided: Sequence[ConsoleKey], *,
               key_map: Mapping[str, str] | None = None) -> list[str]:
    """What is wrong between the handheld's sent keys and the console's decisions, one
    line each ([] when every sent edge was applied exactly once, in order, with its key
    and direction).  Seqs are one boot's (pulls without ``power``): a new boot's counter
    starts again at 0.  ``key_map``: the console's name of each handheld key, if another."""
    names = key_map or {}
    want: list[tuple[int, str, bool]] = []
    for k in sent:
        want += [(k.down_seq, names.get(k.key, k.key), True),
                 (k.up_seq, names.get(k.key, k.key), False)]
    applied = [(d.seq, d.key, d.down) for d in decided if d.applied]
    problems: list[str] = []
    counts: dict[int, int] = {}
    for seq, _, _ in applied:
        counts[seq] = counts.get(seq, 0) + 1
    twice = sorted(s for s, n in counts.items() if n > 1)
    if twice:
        problems.append(f"{len(twice)} KEY seqs applied more than once: {twice[:10]}")
    lost = [s for s, _, _ in want if s not in counts]
    if lost:
        problems.append(f"{len(lost)} KEY edges sent but never applied: seqs {lost[:10]}")
    extra = sorted(set(counts) - {s for s, _, _ in want})
    if extra:
        problems.append(f"{len(extra)} KEY seqs applied that were never sent: {extra[:10]}")
    first: dict[int, tuple[str, bool]] = {}
    for seq, key, down in applied:
        first.setdefault(seq, (key, down))
    wrong = [s for s, key, down in want if s in first and first[s] != (key, down)]
    if wrong:
        problems.append(f"{len(wrong)} KEY edges applied as another key or direction: "
                        f"seqs {wrong[:10]}")
    pos = {seq: i for i, (seq, _, _) in enumerate(want)}
    order = [pos[seq] for seq in first if seq in pos]
    if order != sorted(order):
        problems.append("KEY edges applied out of the order they were pressed")
    return problems


@dataclass(frozen=True)
class PullTiming:
    """One cable pull: ``gone_s`` (unplug to the console's "gone" line), ``session_s``
    (plug to the handheld's session), ``frame_s`` (plug to the first frame after it),
    ``connected_s`` (plug to the console's "connected" line); ``None`` when not seen."""

    gone_s: float | None
    session_s: float | None
    frame_s: float | None
    connected_s: float | None


def _first_after(times: Iterable[float], start: float, end: float) -> float | None:
    after = [t for t in times if start <= t < end]
    return min(after) - start if after else None


def pull_timings(events: Sequence[Event], journal: Sequence[JournalLine]) -> list[PullTiming]:
    """One :class:`PullTiming` per ``unplug`` event followed by a ``plug``: each measured
    up to the next ``unplug``."""
    gone = [line.t for line in link_lines(journal, "gone")]
    connected = [line.t for line in link_lines(journal, "connected")]
    sessions = [e.t for e in events if e.what == "session"]
    frames = [e.t for e in events if e.what == "frame"]
    unplugs = [e.t for e in events if e.what == "unplug"]
    plugs = [e.t for e in events if e.what == "plug"]
    out = []
    for i, pulled in enumerate(unplugs):
        nxt = unplugs[i + 1] if i + 1 < len(unplugs) else float("inf")
        back = [t for t in plugs if pulled < t < nxt]
        if not back:
            continue
        plugged = back[0]
        out.append(PullTiming(gone_s=_first_after(gone, pulled, nxt),
                              session_s=_first_after(sessions, plugged, nxt),
                              frame_s=_first_after(frames, plugged, nxt),
                              connected_s=_first_after(connected, plugged, nxt)))
    return out


def percentile(values: Sequence[float], p: float) -> float:
    """The nearest-rank ``p``-th percentile (0 < p <= 100) of ``values``; ``ValueError``
    for no values or a ``p`` out of range."""
    if not values:
        raise ValueError("percentile of no values")
    if not 0 < p <= 100:
        raise ValueError(f"percentile {p}: 0 < p <= 100")
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * p // 100))
    return ordered[int(rank) - 1]


# ------------------------------------------------------------------------ the calls
def _call(machine: Machine, argv: Sequence[str], what: str, timeout_s: float = 30.0) -> str:
    reply = machine.call(argv, timeout_s=timeout_s)
    if reply.rc != 0 and not reply.out.strip():
        raise UsbError(f"{what}: exit {reply.rc}: {(reply.err.strip() or 'no output')[-200:]}")
    return reply.out


def install(machine: Machine, repo: Path = REPO) -> None:
    """Lay :data:`GUEST_FILES` in the guest (each one agent request)."""
    for source, dest in GUEST_FILES.items():
        mode = 0o755 if dest.endswith((".sh", "gadget_handheld.py")) else 0o644
        _call(machine, write_file_argv(dest, (repo / source).read_bytes(), mode),
              f"install {dest}")


def setup(machine: Machine, serial: str = SERIAL) -> str:
    """Make the gadget (unbound); its tty (``/dev/ttyGS<n>``)."""
    out = _call(machine, gadget_argv("setup", serial), "usb-gadget.sh setup")
    for line in out.splitlines():
        if line.startswith("tty="):
            return line.removeprefix("tty=")
    raise UsbError(f"usb-gadget.sh setup: no tty= line in {out.strip()[:120]!r}")


def start(machine: Machine, serial: str = SERIAL, *, plug: bool = True) -> None:
    """Start the handheld (unit :data:`UNIT`) and wait for its socket to answer."""
    _call(machine, start_argv(serial, plug=plug), "start the handheld")
    wait = ("import os,sys,time\nfor _ in range(200):\n if os.path.exists(sys.argv[1]): "
            "sys.exit(0)\n time.sleep(0.05)\nsys.exit(1)")
    reply = machine.call([PYTHON, "-S", "-c", wait, SOCKET], timeout_s=20)
    if reply.rc != 0:
        raise UsbError(f"the handheld's socket {SOCKET} never appeared "
                       f"(journalctl -u {UNIT})")


def command(machine: Machine, *words: str) -> dict[str, Any]:
    """One handheld command; its answer (:class:`UsbError` when not ``ok``)."""
    return parse_reply(_call(machine, ctl_argv(*words), " ".join(words)), " ".join(words))


def plug(machine: Machine) -> float:
    """Plug the cable in; when (guest monotonic s)."""
    return float(command(machine, "plug").get("t", 0.0))


def unplug(machine: Machine, *, power: bool = False) -> float:
    """Pull the cable (``power``: the board loses power too); when (guest monotonic s)."""
    return float(command(machine, "unplug", *(["power"] if power else []))["t"])


def press(machine: Machine, key: str) -> dict[str, Any]:
    """Press and release ``key``; the answer (``queued``, ``down_seq``, ``up_seq``)."""
    return parse_reply(_call(machine, key_argv(key), f"key {key}"), f"key {key}")


def auto(machine: Machine, period_s: float, keys: Sequence[str] = ("left", "right")) -> None:
    """Press ``keys`` in turn every ``period_s`` in the guest (0 stops)."""
    command(machine, "auto", f"{period_s:g}", *keys)


def status(machine: Machine) -> Status:
    """The handheld's counters."""
    return parse_status(_call(machine, ctl_argv("status"), "status"))


def sent_keys(machine: Machine) -> list[SentKey]:
    """Every press the handheld sent."""
    return parse_keys(_call(machine, ctl_argv("keys"), "keys"))


def events(machine: Machine) -> list[Event]:
    """The handheld's event log."""
    return parse_events(_call(machine, ctl_argv("events"), "events"))


def journal(machine: Machine, unit: str = "partytable.service") -> list[JournalLine]:
    """This boot's journal of ``unit``."""
    return parse_journal(_call(machine, journal_argv(unit), f"journalctl -u {unit}", 60.0))
