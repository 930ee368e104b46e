"""The appliance test's run: skip reasons, the phases, the boots and cuts, the figures.

``python -m scripts.appliance [--cuts N] [--seed S] [--delay MIN MAX] [--keep DIR] [--nice N]``
(``make appliance-test ARGS=...``; ``APPLIANCE_CUTS``, ``APPLIANCE_SEED``, ``APPLIANCE_NICE``
and ``APPLIANCE_CACHE`` (the cache folder) set the same from the environment).

1. Skip (exit 0, one line saying why) where the test cannot run: not Linux on x86_64, not
   root (mmdebstrap --mode=root, chroot), qemu-system-x86_64, mmdebstrap or mke2fs missing,
   or a host Python other than 3.11 (its wheels go into Bookworm's 3.11).
2. The base image, cached (:func:`.image.ensure_base`), and the run's own disk
   (:func:`.image.make_run_disk`); then KVM or TCG (:func:`.vm.probe_kvm`).
3. Boot 1 is the first power-on: READY, the checks, then, on that one boot:
   - the service's watchdog: SIGUSR1 (the service's ``PARTYTABLE_DEBUG_HANG``) stops the
     loop; within WatchdogSec (10 s) + RestartSec (3 s) + a start, ``NRestarts`` grows by
     one, the journal says "Watchdog timeout" and the game resumes after exactly the
     actions committed before the hang;
   - ``readonly-check`` (systemd/install.sh) says this root is writable (exit 1);
   - a console that exits 0 comes back: SIGINT to its main process (a clean Quit, exit 0):
     ``NRestarts`` grows by one and the game resumes exactly (``Restart=always``);
   - a handheld plugged in after READY (``guest/hotplug.sh``: a CDC ACM gadget on
     ``dummy_hcd``, udev loads ``cdc_acm`` unless it is loaded already): a process in the
     service's cgroup opens its ``/dev/ttyACM0`` (the unit's device policy let it through),
     the node is dialout 0660 with its ``/dev/serial/by-id`` name (99-partytable.rules);
   - the hardware watchdog: systemd feeds the VM's i6300esb (``RuntimeWatchdogUSec``), then
     the kernel is frozen (``kernel.panic=0`` and a sysrq crash: nothing runs any more and
     nothing but the watchdog resets the machine); the guest must boot again by itself in
     the same qemu (a new boot id): that is boot 2, checked like a boot after a cut.
4. ``cuts`` times: at a random moment after READY (seeded by ``--seed``, printed) the power
   is cut (SIGKILL of qemu) and the VM booted again; after each boot the checks of
   :func:`.checks.check_boot` run on what the agent reports.  A cut never comes before the
   boot's checks are done (so their reads are of this boot); its moment is printed.
5. After the last boot: wait until at least one game has finished, run ``history --check``
   on the last cut's copy and on the live database, and compare every finished game with its
   uncut reference played on the host (:mod:`.reference`).
6. The read-only root (``--overlay-cuts``, 10; 0 skips it): the same tree as an overlay
   root (``overlayroot=tmpfs``: :mod:`.initramfs`) over a root image nothing may write, the
   game database on a second disk at ``/var/lib/partytable`` (:data:`.image.OVERLAY_FSTAB`);
   ``readonly-check`` says ok on its first boot; ``overlay-cuts`` power cuts with the same
   checks, the root image's size and mtime the same after each, its SHA-256 the same at the
   end; ``history --check`` of the last copy and the live database; every game it finished
   equal to its reference.
7. The figures: power-on (qemu's start) to READY (median, min, max), cuts, resumes,
   integrity failures, watchdog restarts, the restart after exit 0, the hot-plug, the
   hardware watchdog's reset, games, the read-only root's run; each phase's time.

Any failed check: the evidence (the console's tail) on stderr, then one line
``appliance-test: FAILED: <check>`` and exit status 1.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import random
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .checks import (
    EMPTY,
    BootVerdict,
    CheckFailed,
    Snapshot,
    check_boot,
    check_kept,
    check_reference,
    parse_history,
    resumes,
)
from .image import INSTALL_SH, BuildError, cache_dir, ensure_base, make_run_disk
from .reference import ReferenceError, reference_actions
from .vm import CMDLINE, Hello, Machine, Reply, VmError, boot_kernel, probe_kvm

REPO = Path(__file__).resolve().parents[2]
GUEST = Path(__file__).resolve().parent / "guest"
PY = "/opt/partytable/.venv/bin/python"
HISTORY = (PY, "-m", "device", "history")
"""The game database's CLI in the VM (the i9 contract: read it only through this)."""
JOURNAL = ("journalctl", "-b", "-u", "partytable.service", "-o", "cat", "--no-pager")
STATE = "/var/lib/partytable"
PROBE = "/run/appliance-probe"
HOTPLUG = "/usr/local/lib/partytable-appliance/hotplug.sh"
BY_ID = "usb-MicroPython_Board_in_FS_mode_appliance0-if00"
"""The hot-plugged gadget's ``/dev/serial/by-id`` name (udev's own rules: manufacturer,
product and serial of ``guest/hotplug.sh``), the form the config's serial ``id`` uses."""
FREEZE = "echo 0 >/proc/sys/kernel/panic; echo c >/proc/sysrq-trigger"
"""The frozen kernel: ``panic=0`` (wait for ever, not reboot at once as the command line's
``panic=-1`` says), then a sysrq crash: no process runs, PID 1 feeds no watchdog."""
BOOT_TIMEOUT_S = 240.0
"""Power-on to the agent's hello (READY comes before it) at most; TCG on a busy 2-core host
needs about 20 s."""
WATCHDOG_TIMEOUT_S = 40.0
"""SIGUSR1 to NRestarts + 1 at most: WatchdogSec (10 s, counted from the last keep-alive,
which went up to 5 s before the signal) + RestartSec (3 s) + slack for a busy TCG guest."""
RESTART_TIMEOUT_S = 120.0
"""SIGUSR1 to the restarted service's READY at most (the restart's start time on top)."""
PLAY_TIMEOUT_S = 60.0
"""READY to the first committed action at most (a computer game starts at once)."""
FINISH_TIMEOUT_S = 240.0
SIGINT_TIMEOUT_S = 60.0
"""SIGINT to the restarted service's READY at most (RestartSec 3 s + a start under TCG)."""
HW_RESET_TIMEOUT_S = 60.0
"""The freeze to the guest's reset at most: RuntimeWatchdogSec (15 s) + slack."""
DEFAULT_CUTS = 30
DEFAULT_OVERLAY_CUTS = 10
DEFAULT_DELAY = (0.5, 10.0)
"""Seconds after READY a cut falls, uniform: a resumed game waits 5 s on the TV, then the
computer players move every 250 ms, so about half the cuts land in play."""


def skip_reason() -> str | None:
    """Why the test cannot run on this machine (one line), or ``None``."""
    if sys.platform != "linux" or platform.machine() != "x86_64":
        return f"needs an x86_64 Linux host (this is {sys.platform} {platform.machine()})"
    if os.geteuid() != 0:
        return ("needs root (mmdebstrap --mode=root and a chroot build the VM's disk): "
                "sudo make appliance-test")
    for tool in ("qemu-system-x86_64", "mmdebstrap", "mke2fs", "unshare"):
        if shutil.which(tool) is None:
            return f"{tool} not installed: apt-get install qemu-system-x86 mmdebstrap e2fsprogs"
    if sys.version_info[:2] != (3, 11):
        return (f"the host's Python is {platform.python_version()}: the VM's Debian Bookworm "
                "has 3.11 and takes the host's wheels")
    return None


@dataclass
class Figures:
    """What the run measured (seconds, counts)."""

    seed: int = 0
    accel: str = ""
    accel_note: str = ""
    ready_s: list[float] = field(default_factory=list)
    cuts: int = 0
    cut_delays: list[float] = field(default_factory=list)
    late_cuts: int = 0
    resumes: int = 0
    closed_at_start: int = 0
    no_game_open: int = 0
    grown: int = 0
    integrity_checks: int = 0
    integrity_failures: int = 0
    watchdog_restarts: int = 0
    watchdog_detect_s: float = 0.0
    watchdog_ready_s: float = 0.0
    sigint_status: str = ""
    sigint_ready_s: float = 0.0
    hotplug: str = ""
    hw_watchdog: str = ""
    hw_reset_s: float = 0.0
    overlay: Figures | None = None
    overlay_root: str = ""
    finished_games: int = 0
    compared_games: int = 0
    actions: int = 0
    phases: list[tuple[str, float]] = field(default_factory=list)


class Guest:
    """The harness's view of the guest through the agent: the game database through its
    CLI (``python -m device history``), the journal, the service's properties."""

    def __init__(self, machine: Machine) -> None:
        self.m = machine

    @staticmethod
    def history_argv(state_dir: str, *, check: bool = False,
                     as_service_user: bool) -> list[str]:
        """``history --json`` (or ``--check``) of ``state_dir``.  The live database is read
        as the service's user: a root reader could leave files the service cannot open
        (setpriv, not runuser: no PAM session lines in the journal)."""
        argv = [*HISTORY, *(["--check"] if check else ["--json", "--limit", "1000"]),
                "--state-dir", state_dir]
        if as_service_user:
            argv = ["setpriv", "--reuid=partytable", "--regid=partytable", "--init-groups",
                    "--", *argv]
        return argv

    @staticmethod
    def snapshot(reply: Reply, what: str) -> Snapshot:
        """A ``history --json`` reply as a :class:`Snapshot` (``EMPTY``: no database)."""
        if reply.rc != 0 and "no game database there" in reply.err:
            return EMPTY
        if reply.rc != 0:
            raise CheckFailed(f"{what}: history --json failed (exit {reply.rc}): "
                              f"{reply.err.strip()[-200:]}")
        return parse_history(reply.out, what)

    @staticmethod
    def check_line(reply: Reply, what: str) -> str:
        """A ``history --check`` reply: its one line (``"ok"``), ``""``: no database."""
        if reply.rc != 0 and "no game database there" in reply.err:
            return ""
        line = (reply.out.strip() or reply.err.strip()).splitlines()[-1:] or ["(nothing)"]
        if reply.rc not in (0, 1):
            raise CheckFailed(f"{what}: history --check failed (exit {reply.rc}): {line[0]}")
        return line[0]

    def history(self, state_dir: str, what: str, *, as_service_user: bool) -> Snapshot:
        """One ``history --json`` read of ``state_dir``."""
        reply = self.m.call(self.history_argv(state_dir, as_service_user=as_service_user),
                            timeout_s=90)
        return self.snapshot(reply, what)

    def check(self, state_dir: str, what: str, *, as_service_user: bool) -> str:
        """One ``history --check`` of ``state_dir``."""
        reply = self.m.call(self.history_argv(state_dir, check=True,
                                              as_service_user=as_service_user), timeout_s=90)
        return self.check_line(reply, what)

    def boot_reads(self, what: str) -> tuple[Snapshot, str, Snapshot]:
        """At once: the probe, the journal, the live database: ``(probe, journal, live)``.
        The probe's ``history --json`` carries its ``PRAGMA integrity_check`` result (the
        CLI runs it for the ``integrity`` key): no separate ``--check`` per boot, which
        would cost another interpreter start under TCG; the end runs ``--check``."""
        replies = self.m.call_all([
            self.history_argv(PROBE, as_service_user=False),
            JOURNAL,
            self.history_argv(STATE, as_service_user=True),
        ], timeout_s=120)
        return (self.snapshot(replies[0], f"{what}: probe"), replies[1].out,
                self.snapshot(replies[2], f"{what}: live"))

    def journal(self) -> str:
        """This boot's journal of partytable.service (messages only)."""
        return self.m.call(JOURNAL, timeout_s=60).out

    def prop(self, name: str) -> str:
        """``systemctl show -p NAME --value partytable.service``."""
        return self.m.call(["systemctl", "show", "-p", name, "--value",
                            "partytable.service"], timeout_s=30).out.strip()


def device_flags(dropin: str) -> list[str]:
    """The ``python -m device`` arguments of the drop-in's last ``ExecStart=``."""
    commands = [line.partition("=")[2].strip() for line in dropin.splitlines()
                if line.strip().startswith("ExecStart=")]
    words = shlex.split(commands[-1]) if commands and commands[-1] else []
    if "device" in words:
        return words[words.index("device") + 1:]
    return []


class Run:
    """One appliance test run on ``machine``; ``say`` prints a progress line."""

    def __init__(self, machine: Machine, figures: Figures, rng: random.Random,
                 delay: tuple[float, float], say: Callable[[str], None]) -> None:
        self.m = machine
        self.g = Guest(machine)
        self.f = figures
        self.rng = rng
        self.delay = delay
        self.say = say
        self.seen: Snapshot = EMPTY

    def power_on(self, boot: int, *, reboot: bool = False) -> float:
        """Boot, wait for READY; the host time READY came (raises :class:`CheckFailed`);
        ``reboot``: the guest may reset itself (:meth:`.vm.Machine.boot`)."""
        self.m.boot(reboot=reboot)
        try:
            hello = self.m.hello(BOOT_TIMEOUT_S)
        except VmError as err:
            raise CheckFailed(f"boot {boot}: READY: {err}") from None
        ready = hello.ready_at
        if ready is None:
            state = self.g.prop("ActiveState") + "/" + self.g.prop("SubState")
            tail = self.g.journal().strip().splitlines()[-3:]
            raise CheckFailed(f"boot {boot}: READY: partytable.service never became active "
                              f"({state}; {' | '.join(tail)[:300]})")
        self.f.ready_s.append(ready - self.m.started_at)
        return ready

    def check(self, boot: int) -> BootVerdict:
        """The checks of a boot (:func:`.checks.check_boot`)."""
        probe, journal, live = self.g.boot_reads(f"boot {boot}")
        if probe.integrity is not None:
            self.f.integrity_checks += 1
            if probe.integrity != "ok":
                self.f.integrity_failures += 1
                raise CheckFailed(f"boot {boot}: integrity_check after the cut: "
                                  f"{probe.integrity}")
        verdict = check_boot(boot, probe, journal, live, self.seen)
        if probe.actions() > self.seen.actions():
            self.f.grown += 1
        self.seen = live
        if verdict.resumed is not None:
            self.f.resumes += 1
        elif verdict.closed is not None:
            self.f.closed_at_start += 1
        elif boot > 1:
            self.f.no_game_open += 1
        return verdict

    def wait_playing(self, boot: int) -> None:
        """Wait until the service has committed an action (a computer game is on); raises
        :class:`CheckFailed` with the journal's last lines after :data:`PLAY_TIMEOUT_S`."""
        deadline = time.monotonic() + PLAY_TIMEOUT_S
        while self.seen.actions() == 0:
            if time.monotonic() > deadline:
                tail = " | ".join(self.g.journal().strip().splitlines()[-3:])
                raise CheckFailed(f"boot {boot}: no game action committed "
                                  f"{PLAY_TIMEOUT_S:.0f} s after READY (journal: {tail[:300]})")
            time.sleep(2.0)
            live = self.g.history(STATE, f"boot {boot}: live", as_service_user=True)
            check_kept(self.seen, live, f"boot {boot}: live")
            self.seen = live

    def watchdog(self) -> float:
        """The watchdog test (module docstring, step 3); the host time the restarted
        service was seen active (READY again).  Raises :class:`CheckFailed`."""
        before = int(self.g.prop("NRestarts") or 0)
        sent = time.monotonic()
        reply = self.m.call(["systemctl", "kill", "-s", "SIGUSR1", "partytable.service"])
        if reply.rc != 0:
            raise CheckFailed(f"watchdog: systemctl kill -s SIGUSR1 failed: {reply.err.strip()}")
        time.sleep(1.0)  # the loop stops at the signal; nothing is committed after it
        hung = self.g.history(STATE, "watchdog: hung", as_service_user=True)
        check_kept(self.seen, hung, "watchdog: hung")
        restarted = 0.0
        while True:
            now = time.monotonic()
            if not restarted and now - sent > WATCHDOG_TIMEOUT_S:
                raise CheckFailed(f"watchdog: NRestarts still {before} "
                                  f"{WATCHDOG_TIMEOUT_S:.0f} s after SIGUSR1")
            if now - sent > RESTART_TIMEOUT_S:
                raise CheckFailed(f"watchdog: the restarted service not active "
                                  f"{RESTART_TIMEOUT_S:.0f} s after SIGUSR1")
            count = int(self.g.prop("NRestarts") or 0)
            if not restarted and count > before:
                if count != before + 1:
                    raise CheckFailed(f"watchdog: NRestarts went from {before} to {count}")
                restarted = now
            if restarted and self.g.prop("SubState") == "running" and \
                    self.g.prop("ActiveState") == "active":
                break
            time.sleep(0.5)
        active = time.monotonic()
        journal = self.g.journal()
        if "Watchdog timeout" not in journal:
            raise CheckFailed("watchdog: the journal has no 'Watchdog timeout' line")
        after = journal.rsplit("Watchdog timeout", 1)[1]
        live = self.g.history(STATE, "watchdog: restarted", as_service_user=True)
        verdict = check_boot(1, hung, after, live, hung)
        if hung.unfinished is not None and verdict.resumed is None and verdict.closed is None:
            raise CheckFailed("watchdog: the game was not resumed after the restart")
        self.seen = live
        self.f.watchdog_restarts += 1
        self.f.watchdog_detect_s = restarted - sent
        self.f.watchdog_ready_s = active - sent
        n = len(resumes(after))
        self.say(f"  watchdog: SIGUSR1 -> NRestarts {before}->{before + 1} after "
                 f"{restarted - sent:.1f} s, active again after {active - sent:.1f} s, "
                 f"{n} resume line(s): {verdict.actions} actions")
        return active

    def wait_restart(self, what: str, before: int, sent: float, timeout_s: float) -> float:
        """Wait until ``NRestarts`` is ``before + 1`` and the service is running again; the
        host time it was.  Raises :class:`CheckFailed` after ``timeout_s`` from ``sent``,
        naming what the unit was doing (an exit it did not restart: inactive)."""
        restarted = 0.0
        while True:
            now = time.monotonic()
            count = int(self.g.prop("NRestarts") or 0)
            if not restarted and count > before:
                if count != before + 1:
                    raise CheckFailed(f"{what}: NRestarts went from {before} to {count}")
                restarted = now
            active, sub = self.g.prop("ActiveState"), self.g.prop("SubState")
            if restarted and (active, sub) == ("active", "running"):
                return time.monotonic()
            if now - sent > timeout_s:
                status = self.g.prop("ExecMainStatus")
                raise CheckFailed(f"{what}: NRestarts {count} (was {before}), the service "
                                  f"{active}/{sub} {timeout_s:.0f} s later (its main process "
                                  f"exited with status {status}): not restarted")
            time.sleep(0.5)

    def readonly_check(self, *, want_ok: bool) -> str:
        """``sh install.sh readonly-check`` in the guest: its line; raises
        :class:`CheckFailed` when its exit status is not what this layout calls for."""
        reply = self.m.call(["sh", INSTALL_SH, "readonly-check"], timeout_s=60)
        line = (reply.out.strip() or reply.err.strip()).splitlines()[-1:] or ["(nothing)"]
        if (reply.rc == 0) != want_ok or not line[0].startswith("readonly-check: "):
            raise CheckFailed(f"readonly-check: exit {reply.rc} on a "
                              f"{'read-only' if want_ok else 'writable'} root: {line[0]}")
        self.say(f"  {line[0]}")
        return line[0]

    def sigint(self) -> float:
        """A console that exits 0 comes back (module docstring, step 3); the host time the
        restarted service was running.  Raises :class:`CheckFailed`."""
        before = int(self.g.prop("NRestarts") or 0)
        pid = self.g.prop("MainPID")
        sent = time.monotonic()
        reply = self.m.call(["systemctl", "kill", "-s", "SIGINT", "--kill-whom=main",
                             "partytable.service"])
        if reply.rc != 0:
            raise CheckFailed(f"SIGINT: systemctl kill failed: {reply.err.strip()}")
        # the main process is gone once the unit waits out RestartSec (or stopped for good):
        # nothing commits until the next start has resumed the game and waited on the TV
        while self.g.prop("MainPID") == pid and self.g.prop("SubState") == "running":
            if time.monotonic() - sent > SIGINT_TIMEOUT_S:
                raise CheckFailed(f"SIGINT: the console (pid {pid}) still runs "
                                  f"{SIGINT_TIMEOUT_S:.0f} s after SIGINT")
            time.sleep(0.3)
        ended = self.g.history(STATE, "SIGINT: ended", as_service_user=True)
        check_kept(self.seen, ended, "SIGINT: ended")
        status = self.g.prop("ExecMainStatus")
        active = self.wait_restart("SIGINT", before, sent, SIGINT_TIMEOUT_S)
        journal = self.g.journal()
        marker = "Scheduled restart job"
        if marker not in journal:
            raise CheckFailed("SIGINT: the journal has no 'Scheduled restart job' line")
        after = journal.rsplit(marker, 1)[1]
        live = self.g.history(STATE, "SIGINT: restarted", as_service_user=True)
        verdict = check_boot(1, ended, after, live, ended)
        if ended.unfinished is not None and verdict.resumed is None and verdict.closed is None:
            raise CheckFailed("SIGINT: the game was not resumed after the restart")
        self.seen = live
        self.f.sigint_status = status
        self.f.sigint_ready_s = active - sent
        self.say(f"  SIGINT: the console exited with status {status}, NRestarts {before}->"
                 f"{before + 1}, running again after {active - sent:.1f} s, "
                 f"{'resumed' if verdict.resumed else 'no game open'}: "
                 f"{verdict.actions} actions")
        return active

    def hotplug(self) -> None:
        """A handheld plugged in after READY (module docstring, step 3).  Raises
        :class:`CheckFailed` naming what the node or the service's cgroup did."""
        reply = self.m.call(["sh", HOTPLUG, "plug"], timeout_s=90)
        got = dict(line.split("=", 1) for line in reply.out.splitlines() if "=" in line)
        if reply.rc != 0 or got.get("node") != "/dev/ttyACM0":
            tail = (reply.err.strip() or reply.out.strip()).splitlines()[-1:] or ["(nothing)"]
            raise CheckFailed(f"hot-plug: no /dev/ttyACM0 after the plug-in (exit {reply.rc}: "
                              f"{tail[0][:200]})")
        problems = []
        if got.get("open") != "ok":
            problems.append(f"the service's cgroup cannot open it ({got.get('open')}; "
                            "ttyACM was not in /proc/devices when the service started)")
        if (got.get("group"), got.get("mode")) != ("dialout", "660"):
            problems.append(f"it is {got.get('group')} {got.get('mode')}, not dialout 660")
        if BY_ID not in got.get("by_id", "").split():
            problems.append(f"no /dev/serial/by-id/{BY_ID} (by-id: {got.get('by_id')})")
        self.m.call(["sh", HOTPLUG, "unplug"], timeout_s=60)
        if problems:
            raise CheckFailed("hot-plug: /dev/ttyACM0 plugged in after READY: "
                              + "; ".join(problems))
        self.f.hotplug = f"/dev/ttyACM0 (char {got.get('class')}) opened in the service's cgroup"
        self.say(f"  hot-plug: {self.f.hotplug}, dialout 0660, by-id {BY_ID}")

    def hardware_watchdog(self) -> Hello:
        """The hardware watchdog (module docstring, step 3): the hello of the boot the
        watchdog's reset started.  Raises :class:`CheckFailed`."""
        replies = self.m.call_all([
            ["systemctl", "show", "-p", "RuntimeWatchdogUSec", "--value"],
            ["cat", "/sys/class/watchdog/watchdog0/identity"],
            ["cat", "/proc/sys/kernel/random/boot_id"],
        ], timeout_s=30)
        runtime, identity, boot_id = (r.out.strip() for r in replies)
        if runtime in ("", "0", "infinity"):
            raise CheckFailed(f"hardware watchdog: systemd does not feed it "
                              f"(RuntimeWatchdogUSec={runtime or 'unset'})")
        if not identity:
            raise CheckFailed("hardware watchdog: no /dev/watchdog0 in the guest "
                              f"({replies[1].err.strip()[:120]})")
        self.m.send(["sh", "-c", FREEZE])
        frozen = time.monotonic()
        try:
            hello = self.m.hello(HW_RESET_TIMEOUT_S + BOOT_TIMEOUT_S, since=frozen)
        except VmError as err:
            raise CheckFailed(f"hardware watchdog: the frozen guest did not boot again "
                              f"({err})") from None
        if hello.boot_id == boot_id:
            raise CheckFailed("hardware watchdog: the agent answered again without a reboot")
        if hello.ready_at is None:
            raise CheckFailed("hardware watchdog: partytable.service never became active "
                              "after the reset")
        self.f.hw_watchdog = f"{identity}, RuntimeWatchdogSec {runtime}"
        self.f.hw_reset_s = hello.ready_at - frozen
        self.say(f"  hardware watchdog: {self.f.hw_watchdog}; the frozen kernel was reset, "
                 f"READY again {hello.ready_at - frozen:.1f} s after the freeze")
        return hello

    def cut(self, boot: int, ready: float) -> None:
        """Cut the power at READY + a random delay (not before the checks are done)."""
        delay = self.rng.uniform(*self.delay)
        wait = ready + delay - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        else:
            self.f.late_cuts += 1
        at = self.m.cut()
        self.f.cuts += 1
        self.f.cut_delays.append(at - ready)
        self.say(f"  cut {self.f.cuts}: {at - ready:.2f} s after READY "
                 f"(drawn {delay:.2f} s){'' if wait > 0 else ', after the checks'}")

    def finish(self, boot: int, *, wait: bool = True) -> Snapshot:
        """Wait until a game has finished (``wait``), run ``history --check`` on the last
        copy and the live database; the live database then (checked)."""
        deadline = time.monotonic() + FINISH_TIMEOUT_S
        while True:
            live = self.g.history(STATE, "end", as_service_user=True)
            check_kept(self.seen, live, "end")
            self.seen = live
            if not wait or any(g.finished for g in live.games.values()):
                break
            if time.monotonic() > deadline:
                raise CheckFailed(f"end: no game finished {FINISH_TIMEOUT_S:.0f} s after "
                                  "the last boot")
            time.sleep(3.0)
        for state, who, user in ((PROBE, "the last cut's", False), (STATE, "the live", True)):
            line = self.g.check(state, "end", as_service_user=user)
            self.f.integrity_checks += 1
            if line not in ("ok", ""):
                self.f.integrity_failures += 1
                raise CheckFailed(f"end: history --check of {who} database: {line}")
        return live


def _fmt(values: Sequence[float]) -> str:
    if not values:
        return "none"
    return (f"median {statistics.median(values):.1f} s, min {min(values):.1f} s, "
            f"max {max(values):.1f} s over {len(values)} boots")


def report(f: Figures, total: float) -> list[str]:
    """The figures as printed lines."""
    lines = [
        "appliance-test figures:",
        f"  machine: {f.accel}{f' ({f.accel_note})' if f.accel_note else ''}, 2 vCPUs, "
        "1024 MiB, no network",
        f"  power-on (qemu start) to READY: {_fmt(f.ready_s)}",
        f"  power cuts: {f.cuts} (SIGKILL of qemu; seed {f.seed}; "
        f"{min(f.cut_delays, default=0):.1f}-{max(f.cut_delays, default=0):.1f} s after "
        f"READY; {f.late_cuts} waited for the checks; after {f.grown} of them the database "
        "held more actions than the last read before the cut)",
        f"  resumes: {f.resumes} exact (the committed action count), {f.closed_at_start} "
        f"games closed at start (cut after their last action), {f.no_game_open} boots "
        "with no game open (cut between games)",
        f"  integrity failures: {f.integrity_failures} of {f.integrity_checks} checks",
        f"  watchdog restarts: {f.watchdog_restarts} (SIGUSR1 to NRestarts+1 "
        f"{f.watchdog_detect_s:.1f} s, to active again {f.watchdog_ready_s:.1f} s)",
        f"  exit 0 (SIGINT): status {f.sigint_status or '-'}, restarted and running again "
        f"after {f.sigint_ready_s:.1f} s",
        f"  hot-plug after READY: {f.hotplug or '-'}",
        f"  hardware watchdog: {f.hw_watchdog or '-'}; the frozen kernel reset and READY "
        f"again {f.hw_reset_s:.1f} s after the freeze",
        f"  games: {f.finished_games} finished, {f.compared_games} equal to their uncut "
        f"reference; {f.actions} actions committed in all",
    ]
    o = f.overlay
    if o is not None:
        lines += [
            f"  read-only root: power-on to READY {_fmt(o.ready_s)}; {o.cuts} power cuts, "
            f"{o.resumes} exact resumes, {o.closed_at_start} closed at start, "
            f"{o.no_game_open} with no game open; integrity failures "
            f"{o.integrity_failures} of {o.integrity_checks}; {o.finished_games} games "
            f"finished, {o.compared_games} equal to their reference; {f.overlay_root}",
        ]
    lines.append("  phases: " + ", ".join(f"{name} {secs:.0f} s" for name, secs in f.phases)
                 + f"; total {total:.0f} s")
    return lines


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    p = argparse.ArgumentParser(prog="python -m scripts.appliance",
                                description="The appliance test: power cuts in a VM.")
    p.add_argument("--cuts", type=int, default=int(os.environ.get("APPLIANCE_CUTS", 0)
                                                   or DEFAULT_CUTS))
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the cut moments (default $APPLIANCE_SEED, else random)")
    p.add_argument("--delay", type=float, nargs=2, default=DEFAULT_DELAY,
                   metavar=("MIN", "MAX"), help="seconds after READY a cut falls")
    p.add_argument("--keep", type=Path, default=None,
                   help="keep the run's files (disk, console logs) in this folder")
    p.add_argument("--nice", type=int, default=int(os.environ.get("APPLIANCE_NICE", 0) or 0),
                   help="niceness added to qemu (a shared machine)")
    overlay = os.environ.get("APPLIANCE_OVERLAY_CUTS", "")
    p.add_argument("--overlay-cuts", type=int,
                   default=int(overlay) if overlay else DEFAULT_OVERLAY_CUTS,
                   help="power cuts on the read-only root layout (0: not run)")
    args = p.parse_args(list(argv))
    if args.cuts < 1:
        p.error("--cuts must be at least 1")
    if args.overlay_cuts < 0:
        p.error("--overlay-cuts must be 0 or more")
    if not 0 <= args.delay[0] <= args.delay[1]:
        p.error("--delay needs 0 <= MIN <= MAX")
    if args.seed is None:
        env = os.environ.get("APPLIANCE_SEED")
        args.seed = int(env) if env else random.SystemRandom().randrange(1, 1_000_000)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the test; exit status 0 (passed or skipped) or 1 (a check failed)."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    reason = skip_reason()
    if reason is not None:
        print(f"appliance-test: skipped: {reason}")
        return 0
    t0 = time.monotonic()
    figures = Figures(seed=args.seed)

    def say(line: str) -> None:
        print(line, flush=True)

    machines: list[Machine] = []
    with tempfile.TemporaryDirectory(prefix="partytable-appliance-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        try:
            _run(args, work, figures, say, machines)
        except (CheckFailed, BuildError, VmError, ReferenceError) as err:
            for machine in machines:
                machine.cut()
            tail = getattr(err, "output", "") or "\n".join(m.console_tail() for m in machines)
            if tail:
                print(tail, file=sys.stderr, flush=True)
            print(f"appliance-test: FAILED: {err}", flush=True)
            return 1
    for line in report(figures, time.monotonic() - t0):
        say(line)
    o = figures.overlay
    say(f"appliance-test: passed ({figures.cuts} power cuts, {figures.resumes} exact resumes, "
        f"{figures.integrity_failures} integrity failures, {figures.watchdog_restarts} "
        "watchdog restart, the restart after exit 0, the hot-plug, the hardware watchdog's "
        "reset" + (f"; read-only root: {o.cuts} power cuts, {o.resumes} exact resumes, the "
                   "root image unchanged)" if o is not None else ")"))
    return 0


def _run(args: argparse.Namespace, work: Path, f: Figures, say: Callable[[str], None],
         machines: list[Machine]) -> None:
    def phase(name: str, start: float) -> None:
        f.phases.append((name, time.monotonic() - start))

    t = time.monotonic()
    say(f"appliance-test: {args.cuts} power cuts (and {args.overlay_cuts} on the read-only "
        f"root), seed {args.seed} (APPLIANCE_SEED={args.seed} repeats the cut moments), work "
        f"in {work}")
    base = ensure_base(REPO, cache_dir(), say)
    phase("base image (built)" if base.built else "base image (cached)", t)
    t = time.monotonic()
    disks = make_run_disk(base, REPO, GUEST, work, lambda line: None,
                          overlay=args.overlay_cuts > 0)
    phase("run disks", t)
    say(f"appliance-test: disk {disks.root} ready in {time.monotonic() - t:.0f} s")
    t = time.monotonic()
    why = probe_kvm(base.kernel, work, timeout_s=4.0, niceness=args.nice)
    f.accel, f.accel_note = ("kvm", "") if why is None else ("tcg", f"KVM unusable: {why}")
    say(f"appliance-test: accelerator {f.accel}{f' ({why})' if why else ''}")
    phase("kvm probe", t)
    kernel = boot_kernel(base.kernel, work)
    machine = Machine(kernel=kernel, initrd=disks.initrd, disk=disks.root, work=work,
                      accel=f.accel, niceness=args.nice)
    machines.append(machine)
    flags = device_flags((GUEST / "appliance-test.conf").read_text())
    rng = random.Random(args.seed)
    run = Run(machine, f, rng, tuple(args.delay), say)
    t = time.monotonic()
    last = args.cuts + 2  # boot 1, boot 2 after the watchdog's reset, one after each cut
    try:
        reset: Hello | None = None
        for boot in range(1, last + 1):
            if reset is not None:
                ready = reset.ready_at or 0.0
                note = f"READY {f.hw_reset_s:.1f} s after the freeze (the watchdog's reset)"
                reset = None
            else:
                ready = run.power_on(boot, reboot=boot == 1)
                note = f"READY {f.ready_s[-1]:.1f} s after power-on"
            _say_boot(say, run, boot, note)
            if boot == 1:
                run.wait_playing(boot)
                run.watchdog()
                reset = _first_boot_checks(run, say)
                continue
            if boot < last:
                run.cut(boot, ready)
        phase("boots and cuts", t)
        t = time.monotonic()
        final = run.finish(last)
        f.actions = final.actions()
        f.finished_games = sum(1 for g in final.games.values() if g.finished)
    finally:
        machine.cut()
    f.compared_games = check_reference(final, lambda h: _reference(h, flags))
    phase("end and reference", t)
    say(f"appliance-test: {f.compared_games} finished games equal their uncut reference")
    if args.overlay_cuts > 0:
        assert disks.overlay_root is not None and disks.state is not None
        _overlay(args, work, f, say, machines, kernel, disks.initrd, disks.overlay_root,
                 disks.state, flags)


def _first_boot_checks(run: Run, say: Callable[[str], None]) -> Hello:
    """Boot 1's checks after the service's watchdog (module docstring, step 3), each run
    even when one before it failed (a console not restarted is started again, so the
    hot-plug still meets the service's cgroup); the hello of the boot the hardware
    watchdog's reset started.  Raises :class:`CheckFailed` with every failure in its line."""
    failures: list[str] = []

    def attempt(check: Callable[[], object]) -> None:
        try:
            check()
        except CheckFailed as err:
            failures.append(str(err))
            say(f"  FAILED: {err}")

    attempt(lambda: run.readonly_check(want_ok=False))
    attempt(run.sigint)
    if run.g.prop("ActiveState") != "active":
        run.m.call(["systemctl", "start", "partytable.service"], timeout_s=180)
    attempt(run.hotplug)
    try:
        hello = run.hardware_watchdog()
    except CheckFailed as err:
        failures.append(str(err))
        raise CheckFailed("; ".join(failures)) from None
    if failures:
        raise CheckFailed("; ".join(failures))
    return hello


def _say_boot(say: Callable[[str], None], run: Run, boot: int, ready: str) -> None:
    """The checks of boot ``boot`` and its line (``ready``: how READY came)."""
    verdict = run.check(boot)
    state = (f"resumed game {verdict.resumed} after {verdict.actions} actions"
             if verdict.resumed is not None else
             f"closed game {verdict.closed}" if verdict.closed is not None else
             "no game was open")
    say(f"boot {boot}: {ready}; {state}; integrity ok; {run.seen.actions()} actions in "
        f"{len(run.seen.games)} games")


def image_state(path: Path) -> tuple[int, int]:
    """``(size, mtime_ns)`` of a disk image: qemu's first write to it changes the mtime."""
    st = path.stat()
    return st.st_size, st.st_mtime_ns


def sha256(path: Path) -> str:
    """The SHA-256 of a file (a sparse image reads its holes as zeros)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _overlay(args: argparse.Namespace, work: Path, f: Figures, say: Callable[[str], None],
             machines: list[Machine], kernel: Path, initrd: Path, lower: Path, state: Path,
             flags: Sequence[str]) -> None:
    """The read-only root run (module docstring, step 6); its figures in ``f.overlay``."""
    t = time.monotonic()
    o = f.overlay = Figures(seed=args.seed, accel=f.accel)
    before, digest = image_state(lower), sha256(lower)
    machine = Machine(kernel=kernel, initrd=initrd, disk=lower, disks=[state], work=work,
                      accel=f.accel, niceness=args.nice,
                      cmdline=f"{CMDLINE} overlayroot=tmpfs", name="overlay")
    machines.append(machine)
    run = Run(machine, o, random.Random(args.seed + 1), tuple(args.delay), say)
    last = args.overlay_cuts + 1
    say(f"appliance-test: the read-only root: {args.overlay_cuts} power cuts, the games on "
        f"{state.name}")
    try:
        for boot in range(1, last + 1):
            ready = run.power_on(boot)
            _say_boot(lambda line: say(f"read-only root: {line}"), run, boot,
                      f"READY {o.ready_s[-1]:.1f} s after power-on")
            if boot == 1:
                root = machine.call(["findmnt", "-n", "-o", "FSTYPE", "/"]).out.strip()
                if root != "overlay":
                    raise CheckFailed(f"read-only root: / is {root or 'unknown'}, not an "
                                      "overlay")
                run.readonly_check(want_ok=True)
            if boot < last:
                run.cut(boot, ready)
                if image_state(lower) != before:
                    raise CheckFailed(f"read-only root: boot {boot} wrote to the root image "
                                      f"{lower.name} (its size or mtime changed)")
        final = run.finish(last, wait=False)
        o.actions = final.actions()
        o.finished_games = sum(1 for g in final.games.values() if g.finished)
    finally:
        machine.cut()
    if image_state(lower) != before or sha256(lower) != digest:
        raise CheckFailed(f"read-only root: the root image {lower.name} changed")
    o.compared_games = check_reference(final, lambda h: _reference(h, flags))
    f.overlay_root = f"the root image unchanged (sha256 {digest[:16]}...)"
    f.phases.append(("read-only root", time.monotonic() - t))


def _reference(header: Any, flags: Sequence[str]) -> list[str]:
    return reference_actions(header, flags)
