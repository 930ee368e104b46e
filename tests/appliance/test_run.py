"""The appliance test's run logic (``scripts/appliance/harness.py``) against a scripted
guest instead of a VM: a boot's checks through the agent's batch, the watchdog test (the
restart counted once, "Watchdog timeout" in the journal, the resume after exactly the
actions committed before the hang), the seeded cut moments and the figures' lines."""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Sequence
from typing import cast

import pytest

from scripts.appliance import harness
from scripts.appliance.checks import CheckFailed
from scripts.appliance.harness import Figures, Run, report
from scripts.appliance.vm import Machine, Reply


def listing(*games: tuple[int, int, str | None], integrity: str = "ok") -> str:
    """``history --json`` output: ``(id, actions, outcome)`` per game."""
    return json.dumps({"db": "/var/lib/partytable/partytable.db", "integrity": integrity,
                       "games": [{"id": gid, "game": "riiing", "seats": 3, "seed": gid,
                                  "options": {}, "first": 0,
                                  "seat_kinds": ["computer"] * 3, "outcome": outcome,
                                  "winner": None, "actions": [f"a{i}" for i in range(n)]}
                                 for gid, n, outcome in sorted(games, reverse=True)]})


class ScriptedGuest:
    """A stand-in for :class:`scripts.appliance.vm.Machine`: answers the harness's
    commands from ``probe``/``live`` listings, a ``journal`` text and service properties;
    ``restart_after`` polls of NRestarts after SIGUSR1 the service is restarted."""

    def __init__(self, *, probe: str, live: str, journal: str,
                 restart_after: int = 2, restarted_journal: str = "",
                 restarted_live: str = "") -> None:
        self.probe = probe
        self.live = live
        self.journal = journal
        self.restarts = 0
        self.polls_left = -1
        self.restart_after = restart_after
        self.restarted_journal = restarted_journal
        self.restarted_live = restarted_live
        self.started_at = 0.0
        self.cuts: list[float] = []
        self.commands: list[list[str]] = []

    def call(self, argv: Sequence[str], *, timeout_s: float = 60.0) -> Reply:
        argv = list(argv)
        self.commands.append(argv)
        if argv[:3] == ["systemctl", "kill", "-s"]:
            self.polls_left = self.restart_after
            return Reply(0, "", "")
        if argv[:2] == ["systemctl", "show"]:
            name = argv[argv.index("-p") + 1]
            if name == "NRestarts":
                if self.polls_left == 0 and self.restarts == 0:
                    self.restarts = 1
                    self.journal = self.restarted_journal
                    self.live = self.restarted_live
                self.polls_left = max(-1, self.polls_left - 1)
                return Reply(0, f"{self.restarts}\n", "")
            state = {"ActiveState": "active", "SubState": "running"}[name]
            return Reply(0, state + "\n", "")
        if argv[0] == "journalctl":
            return Reply(0, self.journal, "")
        if "--json" in argv:
            source = self.probe if harness.PROBE in argv else self.live
            return Reply(0, source, "")
        if "--check" in argv:
            return Reply(0, "ok\n", "")
        raise AssertionError(f"unexpected command {argv}")

    def call_all(self, commands: Sequence[Sequence[str]], *,
                 timeout_s: float = 60.0) -> list[Reply]:
        return [self.call(c, timeout_s=timeout_s) for c in commands]

    def cut(self) -> float:
        self.cuts.append(time.monotonic())
        return self.cuts[-1]


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    """The harness's sleeps return at once (its polls are counted, not timed)."""
    monkeypatch.setattr(time, "sleep", lambda seconds: None)


def run_on(guest: ScriptedGuest, seed: int = 3) -> Run:
    """A run on the scripted guest (it stands in for the VM's Machine)."""
    return Run(cast(Machine, guest), Figures(seed=seed), random.Random(seed), (0.5, 10.0),
               lambda line: None)


def test_a_boot_reads_the_probe_journal_and_live_database_at_once() -> None:
    guest = ScriptedGuest(probe=listing((1, 12, None)), live=listing((1, 14, None)),
                          journal="WARNING resumed game 1 (riiing) after 12 actions\n")
    run = run_on(guest)
    verdict = run.check(2)
    assert (verdict.resumed, verdict.actions) == (1, 12)
    assert run.f.resumes == 1 and run.f.integrity_checks == 1
    assert run.seen.actions() == 14  # the next boot must keep what the live read saw
    live_reads = [c for c in guest.commands if harness.STATE in c]
    assert live_reads and all(c[0] == "setpriv" and "--reuid=partytable" in c
                              for c in live_reads)


def test_a_damaged_database_after_a_cut_is_counted_and_fails() -> None:
    guest = ScriptedGuest(probe=listing((1, 5, None), integrity="row 3 missing from index"),
                          live=listing((1, 5, None)), journal="")
    run = run_on(guest)
    with pytest.raises(CheckFailed, match="boot 4: integrity_check after the cut: row 3"):
        run.check(4)
    assert run.f.integrity_failures == 1


def watchdog_guest(resumed_after: int, *, timeout_line: bool = True) -> ScriptedGuest:
    before = "WARNING debug hang armed\n"
    after = (before + ("partytable.service: Watchdog timeout (limit 10s)!\n" if timeout_line
                       else "partytable.service: Main process exited\n")
             + f"WARNING resumed game 1 (riiing) after {resumed_after} actions\n")
    return ScriptedGuest(probe=listing(), live=listing((1, 20, None)), journal=before,
                         restarted_journal=after, restarted_live=listing((1, 22, None)))


def test_the_watchdog_restart_resumes_after_the_actions_committed_before_the_hang() -> None:
    guest = watchdog_guest(20)
    run = run_on(guest)
    run.watchdog()
    assert run.f.watchdog_restarts == 1
    assert run.seen.actions() == 22
    assert ["systemctl", "kill", "-s", "SIGUSR1", "partytable.service"] in guest.commands


def test_a_watchdog_resume_after_another_count_fails() -> None:
    run = run_on(watchdog_guest(19))
    with pytest.raises(CheckFailed, match="game 1 resumed after 19 actions, 20 were committed"):
        run.watchdog()


def test_a_restart_without_the_watchdog_line_fails() -> None:
    run = run_on(watchdog_guest(20, timeout_line=False))
    with pytest.raises(CheckFailed, match="no 'Watchdog timeout' line"):
        run.watchdog()


def test_a_service_the_watchdog_never_restarts_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    guest = watchdog_guest(20)
    guest.restart_after = 10**9
    clock = iter(range(0, 10**6, 5))
    monkeypatch.setattr(time, "monotonic", lambda: float(next(clock)))
    with pytest.raises(CheckFailed, match="watchdog: NRestarts still 0 40 s after SIGUSR1"):
        run_on(guest).watchdog()


def test_the_cut_moments_follow_the_seed() -> None:
    def drawn(seed: int) -> list[str]:
        lines: list[str] = []
        guest = ScriptedGuest(probe=listing(), live=listing(), journal="")
        run = Run(cast(Machine, guest), Figures(seed=seed), random.Random(seed), (0.5, 10.0),
                  lines.append)
        for boot in range(1, 6):
            run.cut(boot, time.monotonic() - 100)  # the checks ran long: cut now
        return [re.search(r"drawn (\S+) s", line).group(1) for line in lines]  # type: ignore[union-attr]

    assert drawn(11) == drawn(11)
    assert drawn(11) != drawn(12)
    assert all(0.5 <= float(d) <= 10.0 for d in drawn(11))


def test_the_figures_name_every_count_the_issue_asks_for() -> None:
    f = Figures(seed=5, accel="tcg", accel_note="KVM unusable: hangs",
                ready_s=[14.0, 16.0, 15.0], cuts=30, cut_delays=[0.6, 9.5], resumes=21,
                integrity_checks=31, watchdog_restarts=1, finished_games=10,
                compared_games=10, actions=334, phases=[("boots and cuts", 700.0)])
    text = "\n".join(report(f, 800.0))
    for needle in ("power-on (qemu start) to READY: median 15.0 s, min 14.0 s, max 16.0 s "
                   "over 3 boots", "power cuts: 30", "seed 5", "resumes: 21 exact",
                   "integrity failures: 0 of 31", "watchdog restarts: 1",
                   "10 equal to their uncut reference", "total 800 s"):
        assert needle in text


class UnitGuest:
    """A scripted guest for boot 1's checks after the service's watchdog: the unit's
    properties as the SIGINT test polls them (``exits`` polls of MainPID until the console
    is gone, then ``restart``: whether systemd starts it again), the hot-plug script's
    ``hotplug`` output, the watchdog's properties."""

    def __init__(self, *, restart: bool = True, hotplug: str = "",
                 runtime_watchdog: str = "15s") -> None:
        self.restart = restart
        self.hotplug = hotplug
        self.runtime_watchdog = runtime_watchdog
        self.killed = False
        self.polls = 0
        self.commands: list[list[str]] = []
        self.sent: list[list[str]] = []
        self.started_at = 0.0

    def prop(self, name: str) -> str:
        gone = self.killed and self.polls > 2
        back = gone and self.restart and self.polls > 4
        if name == "MainPID":
            return "200" if back else "0" if gone else "100"
        if name == "NRestarts":
            return "2" if back else "1"
        if name == "ActiveState":
            return "active" if back or not gone else "activating" if self.restart \
                else "inactive"
        if name == "SubState":
            return "running" if back or not gone else "auto-restart" if self.restart \
                else "dead"
        if name == "ExecMainStatus":
            return "0"
        raise AssertionError(name)

    def call(self, argv: Sequence[str], *, timeout_s: float = 60.0) -> Reply:
        argv = list(argv)
        self.commands.append(argv)
        if argv[:2] == ["systemctl", "kill"]:
            self.killed = True
            return Reply(0, "", "")
        if argv[:2] == ["systemctl", "show"] and argv[-1] == "partytable.service":
            self.polls += 1
            return Reply(0, self.prop(argv[argv.index("-p") + 1]) + "\n", "")
        if argv[:2] == ["systemctl", "show"]:
            return Reply(0, self.runtime_watchdog + "\n", "")
        if argv[0] == "journalctl":
            return Reply(0, "Scheduled restart job, restart counter is at 2.\n"
                         "resumed game 1 (riiing) after 4 actions\n", "")
        if "--json" in argv:
            return Reply(0, listing((1, 4, None)), "")
        if argv[:2] == ["sh", harness.HOTPLUG]:
            return Reply(0, self.hotplug if argv[2] == "plug" else "", "")
        if argv[0] == "cat":
            return Reply(0, {"identity": "i6300ESB timer\n", "boot_id": "b1\n"}[
                argv[1].rsplit("/", 1)[1]], "")
        raise AssertionError(f"unexpected command {argv}")

    def call_all(self, commands: Sequence[Sequence[str]], *,
                 timeout_s: float = 60.0) -> list[Reply]:
        return [self.call(c, timeout_s=timeout_s) for c in commands]

    def send(self, argv: Sequence[str]) -> None:
        self.sent.append(list(argv))


def unit_run(guest: UnitGuest) -> Run:
    run = Run(cast(Machine, guest), Figures(seed=1), random.Random(1), (0.5, 10.0),
              lambda line: None)
    run.seen = harness.Guest.snapshot(Reply(0, listing((1, 4, None)), ""), "seen")
    return run


def test_a_console_that_exits_0_is_restarted_and_resumes_exactly() -> None:
    guest = UnitGuest(restart=True)
    run = unit_run(guest)
    run.sigint()
    assert ["systemctl", "kill", "-s", "SIGINT", "--kill-whom=main",
            "partytable.service"] in guest.commands
    assert run.f.sigint_status == "0"


def test_a_console_that_exits_0_and_stays_down_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter(range(0, 10_000, 5))
    monkeypatch.setattr(time, "monotonic", lambda: float(next(clock)))
    with pytest.raises(CheckFailed, match=r"SIGINT: .*inactive/dead .*status 0\): not "
                                          r"restarted"):
        unit_run(UnitGuest(restart=False)).sigint()


PLUGGED = ("node=/dev/ttyACM0\ngroup=dialout\nmode=660\nby_id=" + harness.BY_ID +
           " \nclass=166\n")


def test_a_hot_plugged_handheld_the_service_can_open_passes() -> None:
    guest = UnitGuest(hotplug=PLUGGED + "open=ok\n")
    run = unit_run(guest)
    run.hotplug()
    assert "(char 166) opened in the service's cgroup" in run.f.hotplug
    assert ["sh", harness.HOTPLUG, "unplug"] in guest.commands


def test_a_hot_plugged_handheld_the_device_cgroup_refuses_fails() -> None:
    guest = UnitGuest(hotplug=PLUGGED.replace("dialout", "root") +
                      "open=Operation not permitted\n")
    with pytest.raises(CheckFailed) as err:
        unit_run(guest).hotplug()
    assert "cannot open it (Operation not permitted" in str(err.value)
    assert "root 660, not dialout 660" in str(err.value)
    assert ["sh", harness.HOTPLUG, "unplug"] in guest.commands


def test_a_hardware_watchdog_systemd_does_not_feed_fails_before_the_freeze() -> None:
    guest = UnitGuest(runtime_watchdog="0")
    with pytest.raises(CheckFailed, match=r"systemd does not feed it \(RuntimeWatchdogUSec=0"):
        unit_run(guest).hardware_watchdog()
    assert guest.sent == []  # the guest was not frozen for nothing


def test_the_figures_name_the_restart_the_hot_plug_the_watchdog_and_the_read_only_root(
        ) -> None:
    f = Figures(seed=5, sigint_status="0", sigint_ready_s=20.5, hotplug="/dev/ttyACM0 ok",
                hw_watchdog="i6300ESB timer, RuntimeWatchdogSec 15s", hw_reset_s=41.0,
                overlay=Figures(cuts=10, resumes=6, ready_s=[20.0]),
                overlay_root="the root image unchanged (sha256 ab...)")
    text = "\n".join(report(f, 900.0))
    for needle in ("exit 0 (SIGINT): status 0, restarted and running again after 20.5 s",
                   "hot-plug after READY: /dev/ttyACM0 ok",
                   "hardware watchdog: i6300ESB timer, RuntimeWatchdogSec 15s; the frozen "
                   "kernel reset and READY again 41.0 s after the freeze",
                   "read-only root: power-on to READY median 20.0 s", "10 power cuts",
                   "6 exact resumes", "the root image unchanged"):
        assert needle in text
