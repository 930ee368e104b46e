"""``make virtual-pi``: the console on the kernel's simulated buses in the appliance VM, each
part checked and measured from the host.

One boot of the virtual Pi's disk (:func:`build`): qemu TCG with ``-cpu Nehalem`` (lgpio's wheel
needs x86-64-v2, :data:`scripts.virtual_pi.gpio_sim.TCG_CPU`), ``virtio-gpu-pci`` as the TV
and a QMP socket for screendumps.  At boot ``virtual-pi-hardware.service`` makes the gpio-sim
chip (``guest/hardware.sh`` -> ``guest/gpiosim.py setup``) before ``partytable.service``
starts, whose drop-in (``guest/virtual-pi.conf``) keeps the unit's own KMS/DRM on tty1 and
plays its sound into ``snd-aloop``.  Then, in order (:func:`run_parts`):

1. **TV**: the service is active, the journal names no display error, a screendump of the
   TV (``tv-*.png`` in the work folder);
2. **sound**: ``arecord`` of the loopback's other side while the computer game plays: its
   peak and the share of 100 ms windows that are not silence;
3. **GPIO**: ``guest/fairness.py``: slap windows on gpio-sim lines through the project's
   ``SlapButtons`` on the real lgpio pin factory and the arbiter, against "first callback
   wins";
4. **I2C**: ``guest/i2c_check.py``: two OLEDs through ``HandDisplays`` on ``i2c-stub``,
   gone and back with the adapter;
5. **USB**: the config with a serial seat, the service restarted, the gadget-side handheld
   (``guest/gadget_handheld.py``) plugged; keys pressed while the cable is pulled and
   plugged back (:mod:`.usb`): every key applied exactly once, the times to notice and
   recover.

A part that fails is one line ``virtual-pi: FAILED: <part>: <what>`` and the run goes on to
the next; the exit status is 1 when any failed.  Figures go to stdout and ``summary.json`` in
the work folder.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from scripts.appliance.harness import skip_reason
from scripts.appliance.image import (
    GUEST_FILES,
    BuildError,
    cache_dir,
    ensure_base,
    make_run_disk,
)
from scripts.appliance.vm import Machine, VmError, boot_kernel

from . import usb
from .gpio_sim import TCG_CPU, ensure_gpio_sim
from .gpio_sim import cache_dir as gpio_cache
from .image import VIRTUAL_PI, copy_module
from .party import Party, check_wakeup, rules_check

REPO = Path(__file__).resolve().parents[2]
GUEST = Path(__file__).resolve().parent / "guest"
APPLIANCE_GUEST = REPO / "scripts" / "appliance" / "guest"
TOOLS = "/usr/local/lib/partytable-vpi"
"""Where the guest's tools live (the USB handheld's files too, :data:`usb.GUEST_DIR`)."""

VPI_FILES = {
    "agent.py": GUEST_FILES["agent.py"],
    "appliance-agent.service": GUEST_FILES["appliance-agent.service"],
    "config.toml": "/etc/partytable/config.toml",
    "virtual-pi.conf": "/etc/systemd/system/partytable.service.d/virtual-pi.conf",
    "modules.conf": "/etc/modules-load.d/virtual-pi.conf",
    "modprobe.conf": "/etc/modprobe.d/virtual-pi.conf",
    "virtual-pi-hardware.service": "/etc/systemd/system/virtual-pi-hardware.service",
    "hardware.sh": f"{TOOLS}/hardware.sh",
}
"""Guest files (in ``guest/``, the agent's in the appliance's) and where they go."""

TOOL_FILES = ("gpiosim.py", "fairness.py", "i2c_check.py", "serial-seat.toml",
              "scenario.toml", "party_step.py", "sound_check.py")
VENV_PYTHON = "/opt/partytable/.venv/bin/python"
ENABLE = (("appliance-agent.service", "multi-user.target.wants"),
          ("virtual-pi-hardware.service", "multi-user.target.wants"))
DEVICES = (*TCG_CPU, "-device", "virtio-gpu-pci,xres=1280,yres=720")
READY_TIMEOUT_S = 400.0


class PartFailed(Exception):
    """One part's check failed: ``str(err)`` is one line."""


def build(work: Path, say: Callable[[str], None]) -> tuple[Path, Path, Path]:
    """The run's disk, initrd and kernel in ``work``: the virtual Pi's base (cached), the
    gpio-sim module (cached), the guest files and tools laid in.  Raises
    :class:`BuildError`."""
    base = ensure_base(REPO, cache_dir(), say, flavour=VIRTUAL_PI)
    module = ensure_gpio_sim(base.rootfs, gpio_cache(), say)
    guest = work / "guest"
    shutil.rmtree(guest, ignore_errors=True)
    guest.mkdir(parents=True)
    for name in ("agent.py", "appliance-agent.service"):
        shutil.copyfile(APPLIANCE_GUEST / name, guest / name)
    for name in VPI_FILES:
        if not (guest / name).exists():
            shutil.copyfile(GUEST / name, guest / name)

    def tree(root: Path) -> None:
        version = (sorted((root / "boot").glob("vmlinuz-*"))[-1].name
                   .removeprefix("vmlinuz-"))
        copy_module(root, module, version)
        tools = root / TOOLS.lstrip("/")
        tools.mkdir(parents=True, exist_ok=True)
        for name in TOOL_FILES:
            shutil.copyfile(GUEST / name, tools / name)
        for source, dest in usb.GUEST_FILES.items():
            target = root / dest.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(REPO / source, target)
            target.chmod(0o755 if dest.endswith((".sh", ".py")) else 0o644)

    disks = make_run_disk(base, REPO, guest, work, lambda line: None,
                          guest_files=VPI_FILES, enable=ENABLE, tree=tree)
    return disks.root, disks.initrd, boot_kernel(base.kernel, work)


def _sh(machine: Machine, script: str, what: str, timeout_s: float = 60.0) -> str:
    reply = machine.call(["sh", "-c", script], timeout_s=timeout_s)
    if reply.rc != 0:
        tail = (reply.err or reply.out).strip().splitlines()[-1:] or ["no output"]
        raise PartFailed(f"{what}: exit {reply.rc}: {tail[0][:200]}")
    return reply.out


def _json_line(text: str, what: str) -> Any:
    """The JSON summary a guest tool printed last (one line, or indented over several)."""
    lines = text.strip().splitlines()
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].startswith("{"):
            try:
                return json.loads("\n".join(lines[i:]))
            except ValueError:
                continue
    raise PartFailed(f"{what}: printed no JSON summary ({text.strip()[-120:]!r})")


def part_tv(machine: Machine, work: Path, figures: dict[str, Any]) -> None:
    """The service is active on KMS/DRM; a screendump of the TV."""
    state = _sh(machine, "systemctl show -p ActiveState --value partytable", "state").strip()
    errors = _sh(machine, "journalctl -b -u partytable -o cat --no-pager | grep -i "
                 "'error:\\|table display' || true", "journal")
    shot = machine.screendump(work / "tv-1.png")
    figures["tv"] = {"state": state, "display_lines": errors.strip().splitlines()[-3:],
                     "screendump": str(shot)}
    if state != "active":
        raise PartFailed(f"partytable.service is {state}: {errors.strip()[-200:]}")


RECORD = r"""
import array, sys, wave
w = wave.open(sys.argv[1])
a = array.array("h", w.readframes(w.getnframes()))
step = w.getframerate() // 10 * w.getnchannels()
windows = [max(map(abs, a[i:i + step]), default=0) for i in range(0, len(a), step)]
print('{"peak": %d, "windows": %d, "loud": %d}' % (max(windows, default=0), len(windows),
      sum(1 for v in windows if v > 300)))
"""


def part_sound(machine: Machine, figures: dict[str, Any]) -> None:
    """The console's sound, recorded from the loopback's capture side for 15 s."""
    params = _sh(machine, "cat /proc/asound/card0/pcm0p/sub0/hw_params", "hw_params")
    fields = dict(line.split(": ", 1) for line in params.splitlines() if ": " in line)
    if "channels" not in fields:
        raise PartFailed(f"nothing plays into the loopback ({params.strip()[:80]!r})")
    rate = fields.get("rate", "44100").split()[0]
    out = _sh(machine, f"arecord -q -D hw:Loopback,1,0 -f {fields.get('format', 'S16_LE')} "
              f"-c {fields['channels']} -r {rate} -d 15 /tmp/vpi-sound.wav && python3 -c '"
              + RECORD.replace("'", "'\\''") + "' /tmp/vpi-sound.wav", "arecord",
              timeout_s=60)
    figures["sound_params"] = {k: fields[k] for k in ("format", "channels", "rate")
                               if k in fields}
    sound = _json_line(out, "sound")
    figures["sound"] = sound
    if sound["peak"] <= 300:
        raise PartFailed(f"the loopback recorded silence (peak {sound['peak']})")


def part_gpio(machine: Machine, figures: dict[str, Any], windows: int) -> None:
    """The slap windows on gpio-sim lines (``guest/fairness.py``)."""
    reply = machine.call([VENV_PYTHON, f"{TOOLS}/fairness.py", "--windows", str(windows)],
                         timeout_s=900)
    summary = _json_line(reply.out, "fairness")
    figures["gpio"] = summary
    if reply.rc != 0:
        raise PartFailed(f"fairness.py exited {reply.rc}: {reply.err.strip()[-200:]}")
    bouncing = summary.get("gaps", {}).get("bouncing") or {}
    if bouncing and bouncing.get("pressed_once") != 1.0:
        raise PartFailed(f"a bouncing press was lost or posted twice: {bouncing}")


def part_i2c(machine: Machine, figures: dict[str, Any]) -> None:
    """Two OLEDs on i2c-stub, gone and back (``guest/i2c_check.py``)."""
    reply = machine.call([VENV_PYTHON, f"{TOOLS}/i2c_check.py"], timeout_s=300)
    figures["i2c"] = _json_line(reply.out, "i2c_check")
    if reply.rc != 0:
        raise PartFailed(f"i2c_check.py exited {reply.rc}: {reply.err.strip()[-200:]}")


def part_usb(machine: Machine, figures: dict[str, Any], pulls: int) -> None:
    """A serial seat on the USB gadget: keys across ``pulls`` cable pulls."""
    _sh(machine, f"cat {TOOLS}/serial-seat.toml > /etc/partytable/config.toml && "
        "systemctl restart partytable", "restart with the serial seat", timeout_s=300)
    usb.setup(machine)
    usb.start(machine)
    time.sleep(5.0)
    usb.auto(machine, 0.3)
    for _ in range(pulls):
        time.sleep(2.0)
        usb.unplug(machine)
        time.sleep(1.5)
        usb.plug(machine)
    time.sleep(4.0)
    usb.auto(machine, 0)
    time.sleep(3.0)
    sent = usb.sent_keys(machine)
    lines = usb.journal(machine)
    problems = usb.check_keys(sent, usb.console_keys(lines))
    timings = usb.pull_timings(usb.events(machine), lines)
    gone = [t.gone_s * 1000 for t in timings if t.gone_s is not None]
    back = [t.connected_s * 1000 for t in timings if t.connected_s is not None]

    figures["usb"] = {"presses": len(sent), "problems": problems, "unplug_to_gone_ms":
                      _figure(gone), "plug_to_connected_ms": _figure(back)}
    if problems:
        raise PartFailed("; ".join(problems))
    if len(gone) < pulls or len(back) < pulls:
        raise PartFailed(f"{pulls} pulls, {len(gone)} noticed, {len(back)} recovered")


LOBBY_JSON = json.dumps({"game": "riiing", "kinds": ["human", "human", "human", "computer"],
                         "first": 0, "options": {}, "strengths": ["normal"] * 4})
"""The party's remembered lobby: three people (the wired seats and the serial one) and a
computer, as a host would have set it up before."""

HISTORY = [VENV_PYTHON, "-m", "device", "history", "--json", "--state-dir",
           "/var/lib/partytable"]


def _figure(values: Sequence[float]) -> dict[str, float] | None:
    """Median, p99 and count of ``values`` (``None`` for none)."""
    if not values:
        return None
    return {"median": usb.percentile(values, 50), "p99": usb.percentile(values, 99),
            "n": len(values)}


def part_party(machine: Machine, work: Path, figures: dict[str, Any],
               say: Callable[[str], None]) -> None:
    """A whole Riiing! game through the buses (:mod:`.party`), its database checked."""
    if "usb" not in figures:  # the USB part did not run: the handheld is not there yet
        usb.setup(machine)
        usb.start(machine)
    # a box as the party finds it: no game left open (a game the USB part's computers left
    # would be offered and restored), the lobby set up for three people and a computer
    _sh(machine, f"cat {TOOLS}/scenario.toml > /etc/partytable/config.toml && "
        "systemctl stop partytable && rm -f /var/lib/partytable/partytable.db* && "
        f"printf '%s' '{LOBBY_JSON}' > /var/lib/partytable/lobby.json && "
        "chown partytable:partytable /var/lib/partytable/lobby.json && "
        "systemctl start partytable", "start with the party's config", timeout_s=300)
    t_start = float(_sh(machine, "python3 -c 'import time; print(time.monotonic())'",
                        "the guest's clock"))
    restarts = _sh(machine, "systemctl show -p NRestarts --value partytable", "NRestarts")
    party = Party(machine, say)
    shots: list[str] = []

    def moment(name: str) -> None:
        shots.append(str(machine.screendump(work / f"tv-{name}.png")))

    party.on_moment = moment
    _sh(machine, f"python3 {TOOLS}/sound_check.py start", "start the recording")
    t0 = time.monotonic()
    tally = party.play()
    heard = _json_line(_sh(machine, f"python3 {TOOLS}/sound_check.py stop",
                           "stop the recording", timeout_s=300), "sound_check")
    reply = machine.call(["setpriv", "--reuid=partytable", "--regid=partytable",
                          "--init-groups", "--", *HISTORY], timeout_s=120)
    if reply.rc != 0:
        raise PartFailed(f"history --json: exit {reply.rc}: {reply.err.strip()[-200:]}")
    problems = rules_check(json.loads(reply.out), tally)
    after = _sh(machine, "systemctl show -p NRestarts --value partytable", "NRestarts")
    if after.strip() != restarts.strip():
        crash = _sh(machine, "journalctl -b -u partytable -o cat --no-pager | grep -B2 -A12 "
                    r"'Fatal Python error\|code=killed\|code=exited' | tail -30", "the crash")
        say(crash)
        problems.append(f"the console was restarted during the party (NRestarts "
                        f"{restarts.strip()} -> {after.strip()}): {crash.strip()[-300:]}")
    # the serial seat's keys across the game's cable pulls: each applied once, in order
    sent = [k for k in usb.sent_keys(machine) if k.t >= t_start]
    decided = [d for d in usb.console_keys(usb.journal(machine)) if d.t >= t_start]
    problems += [f"serial keys: {p}" for p in usb.check_keys(sent, decided)]
    race_problems, race = check_wakeup(tally.wakeup_line, tally.race_presses)
    problems += race_problems
    if tally.false_slaps != 1 or not tally.false_slap_noticed:
        problems.append(f"{tally.false_slaps} false slaps judged (1 made), "
                        f"{'' if tally.false_slap_noticed else 'not '}shown on the hand")
    cues = heard.get("cues", {})
    for cue in ("ring", "slap", "win"):
        got = cues.get(cue, {"played": 0, "heard": 0})
        if cue == "win" and got["played"] == 0:
            problems.append("the game's fanfare (win) was never played")
        if got["heard"] < got["played"]:
            problems.append(f"{cue}: played {got['played']} times, heard {got['heard']} "
                            "in the recording")
    if tally.pulls != 3:
        problems.append(f"{tally.pulls} cable pulls in the game, 3 wanted")
    figures["party"] = {"seconds": round(time.monotonic() - t0, 1),
                        "actions": len(tally.actions), "keys": tally.keys,
                        "windows_seen": tally.windows, "windows_decided": len(tally.slap_lines),
                        "wakeup": tally.wakeup_line, "wakeup_bounce": race, "winner": tally.winner,
                        "false_slaps": tally.false_slaps,
                        "false_slap_noticed": tally.false_slap_noticed,
                        "pulls": tally.pulls, "serial_presses": len(sent),
                        "slap_lines": tally.slap_lines[-6:],
                        "press_to_tv_ms": _figure(tally.press_to_tv_ms),
                        "sound": heard,
                        "problems": problems, "screendumps": shots}
    if problems:
        raise PartFailed("; ".join(problems))


def run_parts(machine: Machine, work: Path, args: argparse.Namespace,
              say: Callable[[str], None]) -> tuple[dict[str, Any], list[str]]:
    """Every part in order (the module docstring); the figures and the failure lines."""
    figures: dict[str, Any] = {}
    failed: list[str] = []
    parts: list[tuple[str, Callable[[], None]]] = [
        ("tv", lambda: part_tv(machine, work, figures)),
        ("sound", lambda: part_sound(machine, figures)),
        ("gpio", lambda: part_gpio(machine, figures, args.windows)),
        ("i2c", lambda: part_i2c(machine, figures)),
        ("usb", lambda: part_usb(machine, figures, args.pulls)),
        ("party", lambda: part_party(machine, work, figures, say)),
    ]
    for name, part in parts:
        if name in args.skip:
            say(f"virtual-pi: {name}: skipped (--skip)")
            continue
        t = time.monotonic()
        try:
            part()
            say(f"virtual-pi: {name}: ok in {time.monotonic() - t:.0f} s: "
                f"{json.dumps(figures.get(name))[:400]}")
        except (PartFailed, VmError, usb.UsbError, ValueError, KeyError, RuntimeError) as err:
            failed.append(f"{name}: {err}")
            say(f"virtual-pi: FAILED: {name}: {err}")
    return figures, failed


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """``--windows N`` (slap windows, default 408), ``--pulls N`` (cable pulls, default
    10), ``--keep DIR`` (the work folder, kept), ``--skip PART`` (leave a part out, e.g.
    while working on another; repeatable)."""
    p = argparse.ArgumentParser(prog="python -m scripts.virtual_pi")
    p.add_argument("--skip", action="append", default=[],
                   choices=["tv", "sound", "gpio", "i2c", "usb", "party"])
    p.add_argument("--windows", type=int, default=408)
    p.add_argument("--pulls", type=int, default=10)
    p.add_argument("--keep", type=Path, default=None)
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Build, boot, run the parts; exit status 0 (passed or skipped) or 1."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    reason = skip_reason()
    if reason is not None:
        print(f"virtual-pi: skipped: {reason}")
        return 0

    def say(line: str) -> None:
        print(line, flush=True)

    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="partytable-virtual-pi-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        try:
            disk, initrd, kernel = build(work, say)
        except BuildError as err:
            print(getattr(err, "output", ""), file=sys.stderr)
            say(f"virtual-pi: FAILED: build: {err}")
            return 1
        say(f"virtual-pi: disk ready in {time.monotonic() - t0:.0f} s")
        machine = Machine(kernel=kernel, initrd=initrd, disk=disk, work=work, accel="tcg",
                          devices=DEVICES, qmp=True, name="virtual-pi")
        try:
            machine.boot()
            hello = machine.hello(READY_TIMEOUT_S)
            ready = (hello.ready_at - machine.started_at) if hello.ready_at else None
            say(f"virtual-pi: agent after {hello.at - machine.started_at:.1f} s, READY "
                + (f"{ready:.1f} s after power-on" if ready else "not reached"))
            figures, failed = run_parts(machine, work, args, say)
            figures["ready_s"] = ready
        except VmError as err:
            say(f"virtual-pi: FAILED: boot: {err}")
            say(machine.console_tail())
            return 1
        finally:
            machine.cut()
        figures["total_s"] = time.monotonic() - t0
        (work / "summary.json").write_text(json.dumps(figures, indent=1) + "\n")
        say(f"virtual-pi: {'FAILED' if failed else 'passed'} in {figures['total_s']:.0f} s"
            + (f" ({len(failed)} parts failed)" if failed else ""))
        return 1 if failed else 0
