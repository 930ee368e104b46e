"""The virtual Pi's GPIO header in the guest: a ``gpio-sim`` chip and its lines' pulls.

Runs as root in the VM on any Python 3.11 (standard library only)::

    gpiosim.py setup --module /path/gpio-sim.ko   # load it, make the chip; prints JSON
    gpiosim.py press 17 | release 17              # one slap button down / up
    gpiosim.py pull 17 pull-up|pull-down          # a line's pull as gpio-sim names it
    gpiosim.py seq '17=press@0 25=press@1ms 17=release@50ms 25=release@50ms'
    gpiosim.py serve                              # sequences as JSON lines on stdin
    gpiosim.py status                             # the chip and each line's pull, as JSON

``setup``: ``/proc/cpuinfo`` given a ``Revision`` line (:func:`with_revision`, bind-mounted
over it; a PC has none and gpiozero finds a Pi's header by it), ``modprobe configfs``,
configfs mounted at ``/sys/kernel/config``, ``insmod`` of the module (once), then the chip
``/sys/kernel/config/gpio-sim/<name>/`` with one bank of :data:`LINES` lines labelled
:data:`LABEL` -- a Pi 4's header chip, so ``drivers.pin_factory`` finds it by its label
unchanged -- made live.  The kernel then shows
it as ``/dev/gpiochipN``; ``bank0/chip_name`` names it and ``dev_name`` its platform device,
under whose sysfs folder each line has ``sim_gpio<K>/pull`` (:func:`pull_path`).

A slap button is a switch from the line to GND with the internal pull-up: pressed is the line
low, which on the simulator is its pull set to ``pull-down`` (:func:`pull_for`); released is
``pull-up``.  Line numbers are the chip's offsets, the BCM GPIO numbers of the header
(0..57).

``seq`` and ``serve`` play a timed sequence (:func:`parse_sequence`): each pull written at
its offset from the start, waited for by busy-waiting on ``time.perf_counter_ns`` (a sleep
overshoots by far more than the gaps measured), with the pull files opened beforehand.  Each
step's write is bracketed by ``time.monotonic_ns()`` -- CLOCK_MONOTONIC, the clock of the
kernel's edge timestamps -- and printed as JSON: ``{"writes": [[line, pull, before_ns,
after_ns], ...]}``.  ``serve`` reads ``{"seq": "<spec>"}`` lines and answers one such line
each, until end of input.

Bad input exits with status 2 and one line naming it; a kernel interface that refuses exits
with status 1 and one line.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

LABEL = "pinctrl-bcm2711"
"""The chip's label: a Pi 4's header chip (``drivers.pin_factory.HEADER_CHIP_LABELS``)."""

LINES = 58
"""A BCM2711's GPIO lines (0..57)."""

REVISION = "c03112"
"""The board revision code the guest reports (a Pi 4 Model B 4 GB, rev 1.2): gpiozero's
``LGPIOFactory`` maps pin names to lines through the board's header table, found by this
code in ``/proc/device-tree/system/linux,revision`` or else ``/proc/cpuinfo``'s ``Revision``
line (``gpiozero.pins.local.get_pi_revision``), neither of which a PC has."""

NAME = "header"
"""The chip's folder under ``/sys/kernel/config/gpio-sim``."""

CONFIGFS = Path("/sys/kernel/config")
PULLS = ("pull-up", "pull-down")
ACTIONS = {"press": "pull-down", "release": "pull-up", "pull-down": "pull-down",
           "pull-up": "pull-up"}
"""Sequence actions and the pull each writes."""

_STEP = re.compile(r"(?P<line>\d+)=(?P<action>[a-z-]+)@(?P<num>\d+(?:\.\d+)?)(?P<unit>ns|us|ms|s)?")
_UNIT_NS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000, None: 1_000_000}


class UsageError(ValueError):
    """Bad input: ``str(err)`` is one line naming it (exit status 2)."""


@dataclass(frozen=True, slots=True)
class Step:
    """One write of a sequence: ``line``'s pull set to ``pull`` (``"pull-up"`` or
    ``"pull-down"``) at ``at_ns`` nanoseconds after the sequence starts."""

    at_ns: int
    line: int
    pull: str


def pull_for(pressed: bool) -> str:
    """The pull that puts a slap button's line where a press (``True``) or a release leaves
    it: a switch to GND on a pull-up, so pressed is ``"pull-down"``.

    >>> pull_for(True), pull_for(False)
    ('pull-down', 'pull-up')
    """
    return "pull-down" if pressed else "pull-up"


def check_line(text: str | int, lines: int = LINES) -> int:
    """``text`` as a line number 0..``lines``-1; raises :class:`UsageError` naming it."""
    value = str(text).strip()
    if not value.isdigit() or int(value) >= lines:
        raise UsageError(f"line {text!r}: must be a number 0..{lines - 1}")
    return int(value)


def parse_sequence(spec: str, lines: int = LINES) -> tuple[Step, ...]:
    """Steps of a sequence ``spec``: items ``<line>=<action>@<time>`` separated by spaces or
    commas; ``action`` one of :data:`ACTIONS`, ``time`` the offset from the start with a unit
    ``ns``, ``us``, ``ms`` (default) or ``s``.  Returned in time order (a stable sort: steps
    at the same time keep the order written).  Raises :class:`UsageError` naming the item
    for a bad one or an empty spec.

    >>> parse_sequence("17=press@0 25=press@0.2ms")
    (Step(at_ns=0, line=17, pull='pull-down'), Step(at_ns=200000, line=25, pull='pull-down'))
    """
    steps: list[Step] = []
    for item in spec.replace(",", " ").split():
        match = _STEP.fullmatch(item)
        if match is None:
            raise UsageError(f"sequence item {item!r}: expected <line>=<action>@<time>, "
                             "e.g. 17=press@1.5ms")
        action = match["action"]
        if action not in ACTIONS:
            raise UsageError(f"sequence item {item!r}: action must be one of "
                             f"{', '.join(ACTIONS)}")
        line = check_line(match["line"], lines)
        at_ns = round(float(match["num"]) * _UNIT_NS[match["unit"]])
        steps.append(Step(at_ns, line, ACTIONS[action]))
    if not steps:
        raise UsageError("empty sequence")
    return tuple(sorted(steps, key=lambda s: s.at_ns))


def format_sequence(steps: Iterable[Step]) -> str:
    """The spec :func:`parse_sequence` reads back as ``steps`` (times in ns).

    >>> format_sequence([Step(0, 17, "pull-down"), Step(1000, 25, "pull-up")])
    '17=pull-down@0ns 25=pull-up@1000ns'
    """
    return " ".join(f"{s.line}={s.pull}@{s.at_ns}ns" for s in steps)


def pull_path(sysfs_chip: Path, line: int) -> Path:
    """A line's pull attribute: ``<sysfs_chip>/sim_gpio<line>/pull`` (``sysfs_chip``: the
    chip's device folder, :func:`chip_sysfs`)."""
    return sysfs_chip / f"sim_gpio{line}" / "pull"


def chip_dir(name: str = NAME, configfs: Path = CONFIGFS) -> Path:
    """The chip's configfs folder."""
    return configfs / "gpio-sim" / name


def chip_sysfs(name: str = NAME, configfs: Path = CONFIGFS,
               sys_root: Path = Path("/sys")) -> Path:
    """The live chip's sysfs device folder ``<sys>/devices/platform/<dev_name>/<chip_name>``
    (both read from its configfs folder); raises ``OSError`` when it is not live."""
    folder = chip_dir(name, configfs)
    dev_name = (folder / "dev_name").read_text().strip()
    chip_name = (folder / "bank0" / "chip_name").read_text().strip()
    path = sys_root / "devices" / "platform" / dev_name / chip_name
    if not path.is_dir():
        raise FileNotFoundError(2, "no such chip device", str(path))
    return path


def _write(path: Path, text: str) -> None:
    with open(path, "w", encoding="ascii") as f:
        f.write(text)


def _sh(argv: Sequence[str]) -> str:
    done = subprocess.run(list(argv), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise OSError(f"{' '.join(argv)}: exit {done.returncode}: "
                      f"{(done.stderr or done.stdout).strip()[:200]}")
    return done.stdout


def with_revision(cpuinfo: str, revision: str = REVISION) -> str | None:
    """``cpuinfo`` with a ``Revision`` line for ``revision`` added, or ``None`` when it has
    one already.

    >>> with_revision("processor : 0\\n\\n")
    'processor : 0\\n\\nRevision\\t: c03112\\n'
    """
    if any(line.startswith("Revision") for line in cpuinfo.splitlines()):
        return None
    return f"{cpuinfo.rstrip(chr(10))}\n\nRevision\t: {revision}\n"


def fake_revision(revision: str = REVISION, run_dir: Path = Path("/run/virtual-pi")) -> bool:
    """Bind-mount a copy of ``/proc/cpuinfo`` with a ``Revision`` line over it (see
    :data:`REVISION`); False when nothing was needed (a device tree or the line is there).
    Raises ``OSError`` with one line."""
    if Path("/proc/device-tree/system/linux,revision").exists():
        return False
    text = with_revision(Path("/proc/cpuinfo").read_text(), revision)
    if text is None:
        return False
    run_dir.mkdir(parents=True, exist_ok=True)
    copy = run_dir / "cpuinfo"
    copy.write_text(text)
    _sh(["mount", "--bind", str(copy), "/proc/cpuinfo"])
    return True


def setup(module: Path, name: str = NAME, label: str = LABEL,
          lines: int = LINES) -> dict[str, object]:
    """Load ``module`` (``gpio-sim.ko``) and make the chip live (see the module docstring);
    a chip already live is kept.  Returns ``{"chip": "gpiochipN", "dev": "/dev/gpiochipN",
    "dev_name", "sysfs", "label", "lines"}``; raises ``OSError`` with one line."""
    revision = fake_revision()
    _sh(["modprobe", "configfs"])
    if not (CONFIGFS / "gpio-sim").exists() and not os.path.ismount(CONFIGFS):
        _sh(["mount", "-t", "configfs", "none", str(CONFIGFS)])
    if not Path("/sys/module/gpio_sim").exists():
        _sh(["insmod", str(module)])
    folder = chip_dir(name)
    bank = folder / "bank0"
    if not (folder / "live").exists() or (folder / "live").read_text().strip() != "1":
        bank.mkdir(parents=True, exist_ok=True)
        _write(bank / "num_lines", str(lines))
        _write(bank / "label", label)
        _write(folder / "live", "1")
    chip = (bank / "chip_name").read_text().strip()
    dev = Path("/dev") / chip
    for _ in range(100):  # devtmpfs makes the node; udev may still be at its permissions
        if dev.exists():
            break
        time.sleep(0.02)
    return {"chip": chip, "dev": str(dev), "dev_name": (folder / "dev_name").read_text().strip(),
            "sysfs": str(chip_sysfs(name)), "label": label, "lines": lines,
            "revision": REVISION if revision else None}


def set_pull(line: int, pull: str, name: str = NAME) -> None:
    """Write ``pull`` (:data:`PULLS`) to ``line``'s pull attribute; ``OSError`` if refused."""
    if pull not in PULLS:
        raise UsageError(f"pull {pull!r}: must be one of {', '.join(PULLS)}")
    _write(pull_path(chip_sysfs(name), line), pull)


def play(steps: Sequence[Step], name: str = NAME) -> list[list[object]]:
    """Write each step's pull at its offset from now, busy-waiting on
    ``time.perf_counter_ns``; ``[[line, pull, before_ns, after_ns], ...]`` with each write's
    CLOCK_MONOTONIC bracket.  Raises ``OSError`` when a pull file cannot be opened or
    written."""
    sysfs = chip_sysfs(name)
    fds = {line: os.open(pull_path(sysfs, line), os.O_WRONLY)
           for line in {s.line for s in steps}}
    data = {pull: pull.encode() for pull in PULLS}
    out: list[list[object]] = []
    try:
        start = time.perf_counter_ns()
        for step in steps:
            due = start + step.at_ns
            while time.perf_counter_ns() < due:
                pass
            before = time.monotonic_ns()
            os.pwrite(fds[step.line], data[step.pull], 0)
            out.append([step.line, step.pull, before, time.monotonic_ns()])
    finally:
        for fd in fds.values():
            os.close(fd)
    return out


def status(name: str = NAME) -> dict[str, object]:
    """The chip's ``chip_name``, label and each line's pull, as a JSON-able object."""
    sysfs = chip_sysfs(name)
    folder = chip_dir(name)
    lines = int((folder / "bank0" / "num_lines").read_text())
    return {"chip": (folder / "bank0" / "chip_name").read_text().strip(),
            "label": (folder / "bank0" / "label").read_text().strip(),
            "pulls": {k: pull_path(sysfs, k).read_text().strip() for k in range(lines)}}


def serve(name: str = NAME) -> int:
    """Play ``{"seq": spec}`` lines from stdin, one JSON answer line each (``{"writes":
    ...}`` or ``{"error": one line}``), until end of input."""
    for raw in sys.stdin:
        if not raw.strip():
            continue
        try:
            request = json.loads(raw)
            answer: dict[str, object] = {"writes": play(parse_sequence(str(request["seq"])),
                                                        name)}
        except (ValueError, KeyError, TypeError, OSError) as err:
            answer = {"error": f"{type(err).__name__}: {err}"}
        print(json.dumps(answer), flush=True)
    return 0


def main(argv: Sequence[str]) -> int:
    """The command line (module docstring); exit status 0, 1 (kernel refused) or 2 (usage)."""
    try:
        if not argv:
            raise UsageError("usage: gpiosim.py setup|press|release|pull|seq|serve|status ...")
        command, args = argv[0], list(argv[1:])
        if command == "setup":
            if len(args) != 2 or args[0] != "--module":
                raise UsageError("usage: gpiosim.py setup --module PATH")
            print(json.dumps(setup(Path(args[1]))))
        elif command in ("press", "release") and len(args) == 1:
            set_pull(check_line(args[0]), ACTIONS[command])
        elif command == "pull" and len(args) == 2:
            set_pull(check_line(args[0]), args[1])
        elif command == "seq" and len(args) == 1:
            print(json.dumps({"writes": play(parse_sequence(args[0]))}))
        elif command == "serve" and not args:
            return serve()
        elif command == "status" and not args:
            print(json.dumps(status()))
        else:
            raise UsageError(f"gpiosim.py: bad command {' '.join(argv)!r}")
    except UsageError as err:
        print(f"gpiosim: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"gpiosim: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
