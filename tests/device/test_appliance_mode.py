"""The appliance's service side: a computer-only config that plays by itself with no
GPIO at all, a bad config shown on the TV while the service waits for the file to be fixed,
a driver fault shown while the rig is tried again, and the debug hang the VM's watchdog test
uses — on a fake clock and queue with SDL's dummy TV and a real bound ``AF_UNIX`` datagram
socket as ``NOTIFY_SOCKET`` (docs/hardware-facts.md, "systemd notify"), and in a subprocess."""

from __future__ import annotations

import logging
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pytest
from notify_helpers import received

from device.common.phase import Phase
from device.config.loader import computer_only_text, load_config
from device.config.schema import ConfigError
from device.modes.fault_screen import Fault, FaultScreen
from device.modes.hardware import (
    CONFIG_POLL_NS,
    FIX_HINT,
    RIG_RETRY_NS,
    Rig,
    computers_only,
    config_fault,
    fault_display_mode,
    gpio_pins,
    hardware_console,
    open_rig,
    serve,
)
from device.modes.notify import Notifier
from device.reactor.events import FakeQueue, Quit, hang_on_signal
from drivers.clock import FakeClock
from drivers.errors import DeviceUnavailableError
from drivers.table_display import TableDisplay

MS = 1_000_000
S = 1_000_000_000
ROOT = Path(__file__).resolve().parents[2]

BAD = """
[display]
driver = "dummy"
[paths]
state_dir = "{state}"
[[seat]]
slap_pin = 17
[seat.handheld]
kind = "none"
[[seat]]
slap_pin = 17
[seat.handheld]
kind = "nope"
"""
"""Two problems: an unknown handheld kind, and GPIO 17 used twice."""




def no_pin_factory(*args: Any, **kw: Any) -> Any:
    """Stands in for ``drivers.pin_factory.open_pin_factory``: a computer-only config must
    never ask for one (the VM has no GPIO chip)."""
    raise AssertionError("the pin factory was opened for a config without GPIO pins")


class ScriptedQueue(FakeQueue):
    """A :class:`FakeQueue` that runs ``script`` actions at their fake times (ns): a wait
    whose deadline passes an action's time stops there, runs it and returns what it
    posted.  ``timeouts`` records every wait's timeout (ns); ``tap()`` runs at every wait
    (the tests drain the notify socket there: it queues only 10 datagrams)."""

    def __init__(self, clock: FakeClock, script: dict[int, Callable[[], None]],
                 tap: Callable[[], None] = lambda: None) -> None:
        super().__init__(clock)
        self.script = dict(script)
        self.tap = tap
        self.timeouts: list[int | None] = []

    def wait(self, timeout_ns: int | None) -> list[object]:
        self.tap()
        self.timeouts.append(timeout_ns)
        now = self.clock.now_ns()
        due = [t for t in self.script if timeout_ns is None or t <= now + timeout_ns]
        if due and not self._events:
            at = min(due)
            self.clock.set(max(now, at))
            self.script.pop(at)()
            return super().wait(0)
        return super().wait(timeout_ns)


def rewrite(path: Path, text: str) -> None:
    """Replace the file the way an editor does (a new inode), so its state surely moves."""
    tmp = path.with_suffix(".new")
    tmp.write_text(text)
    os.replace(tmp, path)


def fake_opener(clock: FakeClock, queue: FakeQueue) -> Callable[[Any, Any], Rig]:
    """open_rig on the fake clock, drivers on the loop (``threads=False``)."""
    return lambda config, display: open_rig(config, post=queue.post, clock=clock,
                                            threads=False, display=display)


def tv_top_colour() -> tuple[int, int, int]:
    """The colour at the top left of the TV's surface now (the fault band is orange)."""
    import pygame

    surface = pygame.display.get_surface()
    assert surface is not None, "no TV open"
    return tuple(surface.get_at((5, 5)))[:3]  # type: ignore[return-value]


# ----------------------------------------------------------------- computer-only


def test_a_computer_only_config_plays_at_once_without_any_pin_factory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three seats of kind "none" and no slap_pin: no pin factory is opened (the VM has no
    gpiochip), no lobby waits for a person: the game starts on the first step with every
    seat a computer and computer players' actions are applied."""
    monkeypatch.setattr("drivers.pin_factory.open_pin_factory", no_pin_factory)
    path = tmp_path / "config.toml"
    path.write_text(computer_only_text(tmp_path / "state"))
    config = load_config(path)
    assert computers_only(config) and gpio_pins(config) == ()
    clock = FakeClock(10 * S)
    fake = FakeQueue(clock)
    rig = open_rig(config, post=fake.post, clock=clock, threads=False)
    try:
        assert rig.tickers == []  # no buttons to settle
        console = hardware_console(config, rig, clock=clock, queue=fake)
        console.start()
        assert console.phase is Phase.PLAY
        assert console.record is not None
        assert console.record.kinds == ("computer",) * 3
        for _ in range(200):
            console.step()
            if len(console.record.actions) >= 3:
                break
        assert len(console.record.actions) >= 3, console.record.actions
    finally:
        rig.close()


def test_a_remembered_lobby_with_people_still_deals_every_config_seat_to_a_computer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """lobby.json from another config (Right on Time, two people): the game and its options
    are kept, the seats become the config's three, all computers."""
    monkeypatch.setattr("drivers.pin_factory.open_pin_factory", no_pin_factory)
    state = tmp_path / "state"
    state.mkdir()
    (state / "lobby.json").write_text(
        '{"game": "right-on-time", "kinds": ["human", "human"], "first": 1, '
        '"options": {"right-on-time": {"target_points": 2}}}')
    path = tmp_path / "config.toml"
    path.write_text(computer_only_text(state))
    config = load_config(path)
    clock = FakeClock(10 * S)
    fake = FakeQueue(clock)
    rig = open_rig(config, post=fake.post, clock=clock, threads=False)
    try:
        console = hardware_console(config, rig, clock=clock, queue=fake)
        console.start()
        assert console.phase is Phase.PLAY
        record = console.record
        assert record is not None
        assert (record.game, record.kinds) == ("right-on-time", ("computer",) * 3)
        assert record.options["target_points"] == 2
    finally:
        rig.close()


def test_gpio_pins_are_the_slap_buttons_and_wired_keys() -> None:
    """The bundled build needs gpiozero for its 4 slap buttons and 16 keys."""
    pins = gpio_pins(load_config(None))
    assert len(pins) == 20 and 17 in pins and 27 in pins
    assert not computers_only(load_config(None))


# ----------------------------------------------------------------- a bad config at boot


def test_a_bad_config_is_shown_on_the_tv_and_the_service_waits_until_it_is_fixed(
    tmp_path: Path, listener: tuple[socket.socket, str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Boot with a config that fails: every problem printed; READY=1 with STATUS=<the first
    problem's line> (systemd's start timeout must not kill and restart it in a loop);
    WATCHDOG=1 keeps coming from the waiting loop, which sleeps to each deadline (no busy
    wait); the TV shows the fault.  The file is fixed at 21 s: at the next 2 s poll the
    console starts and plays, on the same TV."""
    import pygame

    monkeypatch.setattr("drivers.pin_factory.open_pin_factory", no_pin_factory)
    sock, address = listener
    path = tmp_path / "config.toml"
    path.write_text(BAD.format(state=tmp_path / "state"))
    clock = FakeClock(100 * S)
    seen: dict[str, Any] = {}
    fixed_at = 121 * S
    got: list[bytes] = []
    fake = ScriptedQueue(clock, {
        110 * S: lambda: seen.update(colour=tv_top_colour(), early=list(got),
                                     tv=pygame.display.get_surface()),
        fixed_at: lambda: rewrite(path, computer_only_text(tmp_path / "state")),
    }, tap=lambda: got.extend(received(sock)))
    notifier = Notifier({"NOTIFY_SOCKET": address, "WATCHDOG_USEC": "1000000"})
    played: list[int] = []

    def play(config: Any, rig: Rig) -> int:
        played.append(clock.now_ns())
        seen["same_tv"] = rig.display.surface is seen["tv"]
        console = hardware_console(config, rig, clock=clock, queue=fake)
        console.start()
        seen["phase"] = console.phase
        return 0

    status = serve(path, clock=clock, queue=fake, notifier=notifier, play=play,
                   opener=fake_opener(clock, fake), environ={})
    assert status == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        f"{path}: seat[1].handheld.kind: unknown handheld kind 'nope' (known: "
        '"wired" | "serial" | "none")',
        f"{path}: seat[1].slap_pin: GPIO 17 is already seat[0].slap_pin",
        FIX_HINT]
    early = seen["early"]
    assert early[0].startswith(b"READY=1\nSTATUS=" + str(path).encode() +
                               b": seat[1].handheld.kind: unknown handheld kind"), early
    assert early[0].endswith(b"(1 more problem: python -m device check-config "
                             + str(path).encode() + b")"), early
    assert early.count(b"WATCHDOG=1") >= 15, early  # 10 s at one every 0.5 s
    assert seen["colour"] == (230, 159, 0)  # the fault's orange band is on the TV
    assert played and fixed_at < played[0] <= fixed_at + CONFIG_POLL_NS
    assert seen["phase"] is Phase.PLAY
    assert seen["same_tv"], "the console plays on the fault screen's TV (no new mode set)"
    waits = [t for t in fake.timeouts if t is not None]
    assert min(waits[1:]) > 0, "the waiting loop never spins"
    assert len(fake.timeouts) < 100, "it wakes for the watchdog and the polls only"


def test_a_config_edited_but_still_bad_shows_its_new_first_problem(
    tmp_path: Path, listener: tuple[socket.socket, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """One of the two problems is fixed, the other is not: the file's problems are printed
    again, the TV shows the one left (no "more problems" now) and systemd gets it as
    STATUS=; SIGTERM (Quit) then ends the wait with exit status 2 (STOPPING=1 is
    run_hardware's), the console never started."""
    sock, address = listener
    path = tmp_path / "config.toml"
    path.write_text(BAD.format(state=tmp_path / "state"))
    clock = FakeClock(0)
    shown: list[Fault | None] = []
    real_show = FaultScreen.show

    def show(self: FaultScreen, fault: Fault) -> bool:
        shown.append(fault)
        return real_show(self, fault)

    fake = ScriptedQueue(clock, {
        5 * S: lambda: rewrite(path, BAD.format(state=tmp_path / "state").replace(
            '"nope"', '"none"')),
        20 * S: lambda: fake.post(Quit()),
    })
    notifier = Notifier({"NOTIFY_SOCKET": address})
    mp = pytest.MonkeyPatch()
    mp.setattr(FaultScreen, "show", show)
    try:
        status = serve(path, clock=clock, queue=fake, notifier=notifier,
                       play=lambda c, r: pytest.fail("the console started"),  # type: ignore[arg-type,return-value]
                       opener=fake_opener(clock, fake), environ={})
    finally:
        mp.undo()
    assert status == 2
    assert len(shown) == 2 and shown[0] is not None and shown[1] is not None
    assert shown[0].more == f"1 more problem: python -m device check-config {path}"
    left = "seat[1].slap_pin: GPIO 17 is already seat[0].slap_pin"
    assert (shown[1].problem, shown[1].more) == (left, "")
    got = received(sock)
    assert got[0].startswith(b"READY=1\nSTATUS=")
    assert got[1:] == [f"STATUS={path}: {left}".encode()], got
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines()[2:] == [FIX_HINT, f"{path}: {left}"]  # the hint once


def test_the_fault_screen_uses_the_driver_the_broken_file_names(tmp_path: Path) -> None:
    """The TV's driver for a broken config: its own ``[display] driver`` if that key reads;
    a file whose TOML does not parse falls back to SDL_VIDEODRIVER (auto), else the
    bundled config's kmsdrm."""
    named = tmp_path / "named.toml"
    named.write_text('[display]\ndriver = "window"\n[[seat]]\nslap_pin = "x"\n')
    assert fault_display_mode(named, {}) == "window"
    broken = tmp_path / "broken.toml"
    broken.write_text('[display\ndriver = "window"\n')
    assert fault_display_mode(broken, {"SDL_VIDEODRIVER": "dummy"}) == "auto"
    assert fault_display_mode(broken, {}) == "kmsdrm"
    assert fault_display_mode(tmp_path / "missing.toml", {}) == "kmsdrm"
    odd = tmp_path / "odd.toml"
    odd.write_text('[display]\ndriver = "vga"\n')
    assert fault_display_mode(odd, {"SDL_VIDEODRIVER": "dummy"}) == "auto"


def test_the_config_fault_counts_the_other_problems() -> None:
    """One problem: no count; three: "2 more problems" and the command (the default file:
    no path in it)."""
    from device.config.schema import ETC_CONFIG

    one = config_fault(ConfigError(["a: bad"], str(ETC_CONFIG)), ETC_CONFIG)
    assert (one.problem, one.more) == ("a: bad", "")
    assert one.line == f"{ETC_CONFIG}: a: bad"
    three = config_fault(ConfigError(["a: bad", "b: bad", "c: bad"], str(ETC_CONFIG)),
                         ETC_CONFIG)
    assert three.more == "2 more problems: python -m device check-config"


# ----------------------------------------------------------------- a driver fault


def test_a_driver_fault_is_shown_and_the_rig_is_tried_every_5_s_on_the_same_tv(
    tmp_path: Path, listener: tuple[socket.socket, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The rig fails twice (a USB hub late at boot), then opens: one ``error:`` line per
    distinct problem, READY=1 with STATUS=<it>, WATCHDOG=1 while waiting, tries 5 s apart on
    the fault screen's TV (no second video mode set), then the console plays on it."""
    from drivers.errors import DeviceUnavailableError as Unavailable

    sock, address = listener
    path = tmp_path / "config.toml"
    path.write_text(computer_only_text(tmp_path / "state"))
    clock = FakeClock(7 * S)
    got: list[bytes] = []
    fake = ScriptedQueue(clock, {}, tap=lambda: got.extend(received(sock)))
    tries: list[tuple[int, Any]] = []
    problems = ["no USB hub yet", "no USB hub yet"]
    real = fake_opener(clock, fake)

    def opener(config: Any, display: Any) -> Rig:
        tries.append((clock.now_ns(), display))
        if problems:
            raise Unavailable("serial", problems.pop(0))
        return real(config, display)

    played: list[Rig] = []

    def play(config: Any, rig: Rig) -> int:
        played.append(rig)
        return 0

    notifier = Notifier({"NOTIFY_SOCKET": address, "WATCHDOG_USEC": "2000000"})
    status = serve(path, clock=clock, queue=fake, notifier=notifier, play=play,
                   opener=opener, environ={})
    assert status == 0
    times = [t for t, _ in tries]
    assert times == [7 * S, 7 * S + RIG_RETRY_NS, 7 * S + 2 * RIG_RETRY_NS]
    assert tries[0][1] is None and tries[1][1] is not None and tries[2][1] is tries[1][1]
    assert played[0].display is tries[1][1]  # the rig plays on the fault screen's TV
    out, err = capsys.readouterr()
    assert (out, err.splitlines()) == ("", ["error: serial: no USB hub yet"])
    got.extend(received(sock))
    assert got[0] == b"READY=1\nSTATUS=serial: no USB hub yet", got
    assert got.count(b"WATCHDOG=1") >= 10, got  # 10 s at one a second


def test_a_tv_that_cannot_open_exits_1_for_systemd_to_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The rig fails because the TV is not there yet: the fault screen cannot open either,
    so the service exits 1 at once (RestartSec=3s brings it back) without READY."""
    path = tmp_path / "config.toml"
    path.write_text(computer_only_text(tmp_path / "state"))
    clock = FakeClock(0)
    fake = FakeQueue(clock)

    def no_tv(*args: Any, **kw: Any) -> TableDisplay:
        raise DeviceUnavailableError("table display (kmsdrm)", "no screen connected")

    monkeypatch.setattr("device.modes.hardware.TableDisplay", no_tv)
    notifier = Notifier({})
    sent: list[str] = []
    monkeypatch.setattr(notifier, "_send", sent.append)

    def opener(config: Any, display: Any) -> Rig:
        return no_tv()

    status = serve(path, clock=clock, queue=fake, notifier=notifier, play=lambda c, r: 0,
                   opener=opener, environ={})
    assert status == 1 and sent == []
    out, err = capsys.readouterr()
    assert (out, err.splitlines()) == ("", ["error: table display (kmsdrm): no screen connected"])


def test_a_bad_config_without_a_tv_says_on_stderr_that_it_waits_for_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bad config and no TV to show it on: stdout stays empty; stderr has each problem,
    the line that the TV cannot show it and then, once, what to do (the console starts by
    itself once the file is right), so a person at a terminal knows it waits; the file
    still bad after an edit prints its problems again without the hint; SIGTERM (Quit)
    ends the wait with exit status 2."""
    path = tmp_path / "config.toml"
    bad = BAD.format(state=tmp_path / "state")
    path.write_text(bad)
    clock = FakeClock(0)

    def no_tv(*args: Any, **kw: Any) -> TableDisplay:
        raise DeviceUnavailableError("table display (kmsdrm)", "no screen connected")

    monkeypatch.setattr("device.modes.hardware.TableDisplay", no_tv)
    fake = ScriptedQueue(clock, {
        5 * S: lambda: rewrite(path, bad.replace('"nope"', '"none"')),
        20 * S: lambda: fake.post(Quit()),
    })
    status = serve(path, clock=clock, queue=fake, notifier=Notifier({}),
                   play=lambda c, r: pytest.fail("the console started"),  # type: ignore[arg-type,return-value]
                   opener=fake_opener(clock, fake), environ={})
    assert status == 2
    out, err = capsys.readouterr()
    assert out == ""
    kind = (f"{path}: seat[1].handheld.kind: unknown handheld kind 'nope' (known: "
            '"wired" | "serial" | "none")')
    pin = f"{path}: seat[1].slap_pin: GPIO 17 is already seat[0].slap_pin"
    assert err.splitlines() == [
        kind, pin, "error: the TV cannot show it: table display (kmsdrm): no screen connected",
        FIX_HINT, pin]


def test_sigterm_during_a_driver_fault_exits_1(tmp_path: Path) -> None:
    """Quit while the rig keeps failing: exit status 1, the TV closed."""
    import pygame

    from drivers.errors import DeviceUnavailableError as Unavailable

    path = tmp_path / "config.toml"
    path.write_text(computer_only_text(tmp_path / "state"))
    clock = FakeClock(0)
    fake = ScriptedQueue(clock, {12 * S: lambda: fake.post(Quit())})

    def opener(config: Any, display: Any) -> Rig:
        raise Unavailable("GPIO", "no gpiochip")

    status = serve(path, clock=clock, queue=fake, notifier=Notifier({}),
                   play=lambda c, r: 0, opener=opener, environ={})
    assert status == 1
    assert pygame.display.get_surface() is None or not pygame.display.get_init()


# ----------------------------------------------------------------- the debug hang


def test_the_debug_hang_is_armed_only_by_a_signal_name(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Unset: off, no line.  A bad name or a signal the console needs: one line, off.
    ``usr2`` (any case, with or without SIG): armed with one line."""
    old = signal.getsignal(signal.SIGUSR2)
    try:
        with caplog.at_level(logging.WARNING, logger="partytable"):
            assert hang_on_signal({}) is None
            assert caplog.records == []
            assert hang_on_signal({"PARTYTABLE_DEBUG_HANG": "SIGNOPE"}) is None
            assert hang_on_signal({"PARTYTABLE_DEBUG_HANG": "SIGTERM"}) is None
            assert hang_on_signal({"PARTYTABLE_DEBUG_HANG": "kill"}) is None
            assert len(caplog.records) == 3
            assert all("debug hang off" in r.getMessage() for r in caplog.records)
            caplog.clear()
            assert hang_on_signal({"PARTYTABLE_DEBUG_HANG": "usr2"}) is signal.SIGUSR2
            assert signal.getsignal(signal.SIGUSR2) not in (old, signal.SIG_DFL)
            assert [r.getMessage() for r in caplog.records] == [
                "debug hang armed: SIGUSR2 stops the main loop for good "
                "(PARTYTABLE_DEBUG_HANG)"]
    finally:
        signal.signal(signal.SIGUSR2, old)


def child_env(address: str, **extra: str) -> dict[str, str]:
    """The service's environment for a subprocess: SDL dummy, a 400 ms watchdog."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WATCHDOG_", "NOTIFY_"))}
    env.update(SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", NOTIFY_SOCKET=address,
               WATCHDOG_USEC="400000", PYTHONUNBUFFERED="1", **extra)
    return env


def lines_of(stream: Any) -> queue.Queue[str]:
    """A queue that a thread fills with ``stream``'s lines (until it closes)."""
    out: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        for line in stream:
            out.put(line.rstrip("\n"))

    threading.Thread(target=pump, daemon=True).start()
    return out


def wait_for(lines: queue.Queue[str], needle: str, timeout_s: float = 60.0) -> list[str]:
    """Read ``lines`` until one contains ``needle``; every line read so far."""
    seen: list[str] = []
    while True:
        line = lines.get(timeout=timeout_s)
        seen.append(line)
        if needle in line:
            return seen


def recv_until(sock: socket.socket, wanted: bytes, timeout_s: float = 60.0) -> list[bytes]:
    """Datagrams from ``sock`` until one equals (or starts with) ``wanted``; all of them."""
    got: list[bytes] = []
    sock.settimeout(timeout_s)
    try:
        while not (got and got[-1].startswith(wanted)):
            got.append(sock.recv(4096))
    finally:
        sock.setblocking(False)
    return got


def test_the_debug_signal_stops_the_watchdog_keep_alive_in_a_real_process(
    tmp_path: Path, listener: tuple[socket.socket, str]
) -> None:
    """``python -m device`` on the computer-only config with PARTYTABLE_DEBUG_HANG=SIGUSR1:
    READY=1 and WATCHDOG=1 (one every 0.2 s) arrive; after SIGUSR1 (once its log line is
    out, everything sent before is already queued on the socket) no WATCHDOG=1 comes for
    1.5 s — more than 3 watchdog periods, so systemd would kill and restart it."""
    import time

    sock, address = listener
    config = tmp_path / "config.toml"
    config.write_text(computer_only_text(tmp_path / "state"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "device", "--config", str(config)], cwd=ROOT,
        env=child_env(address, PARTYTABLE_DEBUG_HANG="SIGUSR1"),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        log_lines = lines_of(proc.stderr)
        got = recv_until(sock, b"READY=1")
        assert got == [b"READY=1\nSTATUS=playing"], got
        for _ in range(3):
            assert recv_until(sock, b"WATCHDOG=1")[-1] == b"WATCHDOG=1"
        proc.send_signal(signal.SIGUSR1)
        wait_for(log_lines, "debug hang: SIGUSR1 received")
        received(sock)  # what the loop sent before the handler ran
        time.sleep(1.5)
        assert b"WATCHDOG=1" not in received(sock)
        assert proc.poll() is None, "it hangs, it does not exit"
    finally:
        proc.kill()
        proc.wait(timeout=30)


def test_a_bad_config_in_a_real_process_waits_and_stops_on_sigterm_with_status_2(
    tmp_path: Path, listener: tuple[socket.socket, str]
) -> None:
    """``python -m device`` with a bad config under NOTIFY_SOCKET: its problems on stderr
    (stdout stays empty), then once the hint that it waits for the file; READY=1 with
    STATUS=<the first one>, WATCHDOG=1 from the wait; SIGTERM: STOPPING=1 and exit status 2
    (the unit's RestartPreventExitStatus)."""
    sock, address = listener
    config = tmp_path / "config.toml"
    config.write_text(BAD.format(state=tmp_path / "state"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "device", "--config", str(config)], cwd=ROOT,
        env=child_env(address), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        got = recv_until(sock, b"READY=1")
        assert got[0].startswith(b"READY=1\nSTATUS=" + str(config).encode()), got
        assert b"unknown handheld kind 'nope'" in got[0]
        assert recv_until(sock, b"WATCHDOG=1")[-1] == b"WATCHDOG=1"
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert proc.returncode == 2
    assert recv_until(sock, b"STOPPING=1")[-1] == b"STOPPING=1"
    assert out == ""
    problems = [f"{config}: seat[1].handheld.kind: unknown handheld kind 'nope' (known: "
                '"wired" | "serial" | "none")',
                f"{config}: seat[1].slap_pin: GPIO 17 is already seat[0].slap_pin"]
    lines = err.splitlines()
    assert lines[:2] == problems, lines
    assert lines.count(FIX_HINT) == 1, lines


def test_the_fault_screens_driver_is_read_as_safely_as_the_config(tmp_path: Path) -> None:
    """Choosing the fault screen's driver reads the file the way ``check-config`` does: a
    file nested thousands deep falls back to the bundled driver, and a FIFO is never opened
    for reading (it would block the service, deaf to SIGTERM)."""
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 3000 + "]" * 3000 + "\n")
    assert fault_display_mode(deep, {}) == "kmsdrm"
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    modes: list[str] = []
    reader = threading.Thread(target=lambda: modes.append(fault_display_mode(fifo, {})),
                              daemon=True)
    reader.start()
    reader.join(10)
    if reader.is_alive():  # let the blocked open() end, then fail
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(10)
        pytest.fail("fault_display_mode blocked on a FIFO")
    assert modes == ["kmsdrm"]
