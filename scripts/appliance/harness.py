"""The appliance test's run: skip reasons, the phases, the boots and cuts, the figures.

``python -m scripts.appliance [--cuts N] [--seed S] [--delay MIN MAX] [--keep DIR] [--nice N]``
(``make appliance-test ARGS=...``; ``APPLIANCE_CUTS``, ``APPLIANCE_SEED``, ``APPLIANCE_NICE``
and ``APPLIANCE_CACHE`` (the cache folder) set the same from the environment).

1. Skip (exit 0, one line saying why) where the test cannot run: not Linux on x86_64, not
   root (mmdebstrap --mode=root, chroot), qemu-system-x86_64, mmdebstrap or mke2fs missing,
   or a host Python other than 3.11 (its wheels go into Bookworm's 3.11).
2. The base image, cached (:func:`.image.ensure_base`), and the run's own disk
   (:func:`.image.make_run_disk`); then KVM or TCG (:func:`.vm.probe_kvm`).
3. Boot 1 is the first power-on: READY, the checks, then the watchdog test — SIGUSR1 (the
   service's ``PARTYTABLE_DEBUG_HANG``) stops the loop; within WatchdogSec (10 s) +
   RestartSec (3 s) + a start, ``NRestarts`` grows by one, the journal says "Watchdog
   timeout" and the game resumes after exactly the actions committed before the hang.
4. ``cuts`` times: at a random moment after READY (seeded by ``--seed``, printed) the power
   is cut (SIGKILL of qemu) and the VM booted again; after each boot the checks of
   :func:`.checks.check_boot` run on what the agent reports.  A cut never comes before the
   boot's checks are done (so their reads are of this boot); its moment is printed.
5. After the last boot: wait until at least one game has finished, run ``history --check``
   on the last cut's copy and on the live database, and compare every finished game with its
   uncut reference played on the host (:mod:`.reference`).
6. The figures: power-on (qemu's start) to READY (median, min, max), cuts, resumes,
   integrity failures, watchdog restarts, games; each phase's time.

Any failed check: the evidence (the console's tail) on stderr, then one line
``appliance-test: FAILED: <check>`` and exit status 1.
"""

from __future__ import annotations

import argparse
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
from .image import BuildError, cache_dir, ensure_base, make_run_disk
from .reference import ReferenceError, reference_actions
from .vm import Machine, Reply, VmError, boot_kernel, probe_kvm

REPO = Path(__file__).resolve().parents[2]
GUEST = Path(__file__).resolve().parent / "guest"
PY = "/opt/partytable/.venv/bin/python"
HISTORY = (PY, "-m", "device", "history")
"""The game database's CLI in the VM (the i9 contract: read it only through this)."""
JOURNAL = ("journalctl", "-b", "-u", "partytable.service", "-o", "cat", "--no-pager")
STATE = "/var/lib/partytable"
PROBE = "/run/appliance-probe"
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
DEFAULT_CUTS = 30
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

    def power_on(self, boot: int) -> float:
        """Boot, wait for READY; the host time READY came (raises :class:`CheckFailed`)."""
        self.m.boot()
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

    def finish(self, boot: int) -> Snapshot:
        """Wait until a game has finished; the live database then (checked)."""
        deadline = time.monotonic() + FINISH_TIMEOUT_S
        while True:
            live = self.g.history(STATE, "end", as_service_user=True)
            check_kept(self.seen, live, "end")
            self.seen = live
            if any(g.finished for g in live.games.values()):
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
        f"  games: {f.finished_games} finished, {f.compared_games} equal to their uncut "
        f"reference; {f.actions} actions committed in all",
        "  phases: " + ", ".join(f"{name} {secs:.0f} s" for name, secs in f.phases)
        + f"; total {total:.0f} s",
    ]
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
    args = p.parse_args(list(argv))
    if args.cuts < 1:
        p.error("--cuts must be at least 1")
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
    say(f"appliance-test: passed ({figures.cuts} power cuts, {figures.resumes} exact resumes, "
        f"{figures.integrity_failures} integrity failures, {figures.watchdog_restarts} "
        "watchdog restart)")
    return 0


def _run(args: argparse.Namespace, work: Path, f: Figures, say: Callable[[str], None],
         machines: list[Machine]) -> None:
    def phase(name: str, start: float) -> None:
        f.phases.append((name, time.monotonic() - start))

    t = time.monotonic()
    say(f"appliance-test: {args.cuts} power cuts, seed {args.seed} "
        f"(APPLIANCE_SEED={args.seed} repeats the cut moments), work in {work}")
    base = ensure_base(REPO, cache_dir(), say)
    phase("base image (built)" if base.built else "base image (cached)", t)
    t = time.monotonic()
    disk = make_run_disk(base, REPO, GUEST, work, lambda line: None)
    phase("run disk", t)
    say(f"appliance-test: disk {disk} ready in {time.monotonic() - t:.0f} s")
    t = time.monotonic()
    why = probe_kvm(base.kernel, work, timeout_s=4.0, niceness=args.nice)
    f.accel, f.accel_note = ("kvm", "") if why is None else ("tcg", f"KVM unusable: {why}")
    say(f"appliance-test: accelerator {f.accel}{f' ({why})' if why else ''}")
    phase("kvm probe", t)
    machine = Machine(kernel=boot_kernel(base.kernel, work), initrd=base.initrd, disk=disk,
                      work=work, accel=f.accel, niceness=args.nice)
    machines.append(machine)
    flags = device_flags((GUEST / "appliance-test.conf").read_text())
    rng = random.Random(args.seed)
    run = Run(machine, f, rng, tuple(args.delay), say)
    t = time.monotonic()
    try:
        for boot in range(1, args.cuts + 2):
            ready = run.power_on(boot)
            verdict = run.check(boot)
            state = (f"resumed game {verdict.resumed} after {verdict.actions} actions"
                     if verdict.resumed is not None else
                     f"closed game {verdict.closed}" if verdict.closed is not None else
                     "no game was open")
            say(f"boot {boot}: READY {f.ready_s[-1]:.1f} s after power-on; {state}; "
                f"integrity ok; {run.seen.actions()} actions in "
                f"{len(run.seen.games)} games")
            if boot == 1:
                run.wait_playing(boot)
                ready = run.watchdog()
            if boot <= args.cuts:
                run.cut(boot, ready)
        phase("boots and cuts", t)
        t = time.monotonic()
        final = run.finish(args.cuts + 1)
        f.actions = final.actions()
        f.finished_games = sum(1 for g in final.games.values() if g.finished)
    finally:
        machine.cut()
    f.compared_games = check_reference(final, lambda h: _reference(h, flags))
    phase("end and reference", t)
    say(f"appliance-test: {f.compared_games} finished games equal their uncut reference")


def _reference(header: Any, flags: Sequence[str]) -> list[str]:
    return reference_actions(header, flags)
