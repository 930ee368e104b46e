"""sd_notify (``device.modes.notify``) against a real bound ``AF_UNIX`` datagram socket, the way
systemd listens (docs/hardware-facts.md, "systemd notify"): READY/WATCHDOG/STOPPING/STATUS, the
watchdog's half interval on a fake monotonic clock, an abstract ``@`` name, no socket at all,
a socket that went away; and ``python -m device`` on a mock rig telling systemd READY after
its first frame and STOPPING on SIGTERM."""

from __future__ import annotations

import logging
import os
import socket
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pytest
from notify_helpers import received
from rig_helpers import main_until_sigterm

from device.modes.notify import Notifier

S = 1_000_000_000




def test_ready_stopping_and_status_arrive_as_datagrams(
    listener: tuple[socket.socket, str]
) -> None:
    sock, path = listener
    notifier = Notifier({"NOTIFY_SOCKET": path})
    notifier.ready()
    notifier.status("Lobby: 4 seats\nwaiting")
    notifier.stopping()
    assert received(sock) == [b"READY=1", b"STATUS=Lobby: 4 seats waiting", b"STOPPING=1"]
    assert notifier.sent == 3
    notifier.close()


def test_ready_with_a_status_is_one_datagram_of_two_lines(
    listener: tuple[socket.socket, str]
) -> None:
    """READY=1 and STATUS= travel together (systemd reads every KEY=VALUE line of one
    datagram), a newline in the status becoming a space."""
    sock, path = listener
    notifier = Notifier({"NOTIFY_SOCKET": path})
    notifier.ready("config.toml: seat[0].slap_pin:\nbad")
    assert received(sock) == [b"READY=1\nSTATUS=config.toml: seat[0].slap_pin: bad"]
    notifier.close()


def test_the_environment_is_read_by_default(
    listener: tuple[socket.socket, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sock, path = listener
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    Notifier().ready()
    assert received(sock) == [b"READY=1"]


def test_watchdog_every_half_interval_on_the_monotonic_clock(
    listener: tuple[socket.socket, str]
) -> None:
    """WATCHDOG_USEC=10 s: a keep-alive at once, then every 5 s; a call in between sends
    nothing and names the same deadline; a late loop sends once, not a burst."""
    sock, path = listener
    notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "10000000"})
    t0 = 1000 * S  # CLOCK_MONOTONIC ns: a fake clock, never the wall clock
    assert notifier.watchdog_ticker(t0) == t0 + 5 * S
    assert received(sock) == [b"WATCHDOG=1"]
    assert notifier.watchdog_ticker(t0 + 5 * S - 1) == t0 + 5 * S
    assert received(sock) == []
    assert notifier.watchdog_ticker(t0 + 5 * S) == t0 + 10 * S
    assert received(sock) == [b"WATCHDOG=1"]
    assert notifier.watchdog_ticker(t0 + 23 * S) == t0 + 28 * S  # 13 s late
    assert received(sock) == [b"WATCHDOG=1"]


def test_watchdog_for_another_process_or_not_asked_is_off(
    listener: tuple[socket.socket, str]
) -> None:
    sock, path = listener
    other = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "10000000",
                      "WATCHDOG_PID": "1"}, pid=4242)
    mine = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "10000000",
                     "WATCHDOG_PID": "4242"}, pid=4242)
    unasked = Notifier({"NOTIFY_SOCKET": path})
    assert other.watchdog_ticker(0) is None
    assert unasked.watchdog_ticker(0) is None
    assert received(sock) == []
    assert mine.watchdog_ticker(0) == 5 * S
    assert received(sock) == [b"WATCHDOG=1"]


def test_a_malformed_watchdog_usec_is_one_line_and_no_watchdog(
    listener: tuple[socket.socket, str], caplog: pytest.LogCaptureFixture
) -> None:
    sock, path = listener
    with caplog.at_level(logging.WARNING, logger="partytable"):
        notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "10s"})
    assert notifier.watchdog_ticker(0) is None
    assert len(caplog.records) == 1 and "WATCHDOG_USEC='10s'" in caplog.records[0].message
    notifier.ready()  # the rest still works
    assert received(sock) == [b"READY=1"]


def test_an_abstract_socket_name_starts_with_at() -> None:
    """``@name`` is Linux's abstract namespace: the address is a NUL byte and the name."""
    name = f"partytable-test-{os.getpid()}-{id(object())}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(5)
    try:
        notifier = Notifier({"NOTIFY_SOCKET": "@" + name, "WATCHDOG_USEC": "2000000"})
        notifier.ready()
        assert notifier.watchdog_ticker(7 * S) == 8 * S
        assert [sock.recv(4096), sock.recv(4096)] == [b"READY=1", b"WATCHDOG=1"]
    finally:
        sock.close()


def test_no_notify_socket_is_a_no_op(monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside systemd nothing is sent and no socket is even made."""

    def no_socket(*args: Any, **kw: Any) -> Any:
        raise AssertionError("a socket was made without NOTIFY_SOCKET")

    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    monkeypatch.setattr("device.modes.notify.socket.socket", no_socket)
    for notifier in (Notifier(), Notifier({"WATCHDOG_USEC": "10000000"})):
        assert not notifier.enabled
        notifier.ready()
        notifier.status("x")
        assert notifier.watchdog_ticker(0) is None
        notifier.stopping()
        assert notifier.sent == 0


def test_a_notify_socket_that_is_no_address_is_one_line(
    caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="partytable"):
        notifier = Notifier({"NOTIFY_SOCKET": "run/notify"})
        notifier.ready()
    assert not notifier.enabled and notifier.sent == 0
    assert [r.message for r in caplog.records] == [
        "sd_notify: NOTIFY_SOCKET='run/notify' is neither a path ('/...') nor an abstract "
        "name ('@...'): not notifying systemd"]


def test_a_socket_that_is_gone_is_one_log_line_and_no_exception(
    caplog: pytest.LogCaptureFixture
) -> None:
    """systemd's socket went away (or was never bound): every message fails, the log gets
    one line for the whole outage, and the next success ends it."""
    with tempfile.TemporaryDirectory(prefix="ptn") as folder:
        path = os.path.join(folder, "notify")
        notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "1000000"})
        with caplog.at_level(logging.WARNING, logger="partytable"):
            notifier.ready()
            for k in range(4):  # the unsent READY=1 is tried again every 100 ms
                assert notifier.watchdog_ticker(k * S) == k * S + S // 10
            notifier.status("still here")
            notifier.stopping()
        assert notifier.sent == 0
        assert len(caplog.records) == 1
        assert f"NOTIFY_SOCKET {path}" in caplog.records[0].message
        assert "READY" in caplog.records[0].message
        back = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        back.bind(path)
        back.settimeout(5)
        try:
            notifier.ready()
            assert back.recv(4096) == b"READY=1" and notifier.sent == 1
        finally:
            back.close()
        Path(path).unlink()
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="partytable"):
            notifier.stopping()
        assert len(caplog.records) == 1, "a new outage after a success is logged again"
        notifier.close()


def test_a_full_socket_queue_never_blocks_the_loop(
    listener: tuple[socket.socket, str], caplog: pytest.LogCaptureFixture
) -> None:
    """A service manager that does not read: the datagram queue fills (Linux keeps
    ``net.unix.max_dgram_qlen`` messages), later messages are dropped with one log line
    instead of blocking the caller; once read, sending works again."""
    sock, path = listener
    notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "2000000"})
    with caplog.at_level(logging.WARNING, logger="partytable"):
        for k in range(200):
            notifier.watchdog_ticker(k * S)
    assert 0 < notifier.sent < 200
    assert len(caplog.records) == 1
    assert len(received(sock)) == notifier.sent
    notifier.stopping()
    assert received(sock) == [b"STOPPING=1"]


CONFIG = """
[display]
driver = "dummy"
[gpio]
chip = "auto"
[paths]
state_dir = "{state}"
[[seat]]
slap_pin = 17
[seat.handheld]
kind = "none"
[[seat]]
slap_pin = 25
[seat.handheld]
kind = "none"
"""


def test_python_m_device_tells_systemd_ready_after_its_first_frame_and_stopping_on_sigterm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, listener: tuple[socket.socket, str]
) -> None:
    """The hook in ``run_hardware``: on a mock pin factory and SDL's dummy TV, under a
    NOTIFY_SOCKET with a 1 s watchdog, the first datagram is READY=1 and it comes after a
    frame was presented; the loop sends WATCHDOG=1; SIGTERM ends it with STOPPING=1, exit 0."""
    from device.modes.present import TablePresenter
    from drivers.gpio import mock_pin_factory

    sock, path = listener
    config = tmp_path / "config.toml"
    config.write_text(CONFIG.format(state=tmp_path / "state"))
    factory = mock_pin_factory()
    monkeypatch.setattr("drivers.pin_factory.open_pin_factory", lambda *a, **kw: factory)
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    monkeypatch.setenv("WATCHDOG_USEC", "1000000")
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    order: list[bytes] = []
    present = TablePresenter.present

    def presented(self: Any, *args: Any, **kw: Any) -> Any:
        order.append(b"frame")
        return present(self, *args, **kw)

    monkeypatch.setattr(TablePresenter, "present", presented)
    ready = Notifier.ready

    def noted_ready(self: Notifier, status: str | None = None) -> None:
        order.append(b"READY=1")
        ready(self, status)

    monkeypatch.setattr(Notifier, "ready", noted_ready)
    try:
        status = main_until_sigterm(["--config", str(config)])
    finally:
        factory.close()
    assert status == 0
    got = received(sock)
    assert got[0] == b"READY=1\nSTATUS=playing", got
    assert got[-1] == b"STOPPING=1", got
    assert b"WATCHDOG=1" in got[1:-1], got
    assert set(got[1:-1]) == {b"WATCHDOG=1"}, got
    assert order.index(b"frame") < order.index(b"READY=1"), order


def test_ready_that_does_not_fit_is_sent_again(listener: tuple[socket.socket, str]) -> None:
    """A full notify socket queue (a busy PID 1) makes READY=1 fail: it is sent again by
    the loop's ticker once there is room, so the start job never times out; a tiny
    WATCHDOG_USEC never makes the ticker spin (at least 50 ms between keep-alives)."""
    sock, path = listener
    filler = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_NONBLOCK)
    sent = 0
    while True:
        try:
            filler.sendto(b"X=1", path)
            sent += 1
        except BlockingIOError:
            break
    filler.close()
    notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "1"})
    notifier.ready()
    assert notifier.watchdog_ticker(0) == 50_000_000  # the keep-alive also failed: full
    for _ in range(sent):
        assert sock.recv(64) == b"X=1"
    assert notifier.watchdog_ticker(10_000_000) == 50_000_000
    got = [sock.recv(64)]
    assert got == [b"READY=1"]
    assert notifier.watchdog_ticker(20_000_000) == 50_000_000  # no spin, no burst
    notifier.close()
