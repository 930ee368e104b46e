"""The builder's self-test on a fake clock: test pattern, each seat's slap button and keys
asked in turn, faults for missing presses, crossed wires and silent screens."""

from __future__ import annotations

import os
import re
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pytest
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from device.console import make_seats
from device.games import PLUGINS
from device.modes.present import TablePresenter
from device.modes.selftest import KEYS, PATTERN_NS, SelfTest, pattern_image, run_selftest
from device.reactor.events import FakeQueue
from drivers.clock import FakeClock
from drivers.hand_display import open_hand_display
from drivers.keys import KeyPress
from drivers.slap import Press
from drivers.table_display import TableDisplay

S = 1_000_000_000
PLUGIN = next(iter(PLUGINS.values()))


@pytest.fixture
def display() -> Iterator[TableDisplay]:
    """A small dummy table display on a fake clock."""
    d = TableDisplay("dummy", (480, 270), clock=FakeClock(10 * S))
    try:
        yield d
    finally:
        d.close()


class SilentOled:
    """A luma-like 128x64 display whose bus is dead (errno 121)."""

    width, height, mode, size = 128, 64, "1", (128, 64)

    def display(self, image: Any) -> None:
        raise OSError(121, "Remote I/O error")


def run(display: TableDisplay, answer: Any, devices: list[Any] | None = None) -> SelfTest:
    """Run the self-test with ``answer(step) -> event | None`` pressing for the people."""
    clock = display.clock
    assert isinstance(clock, FakeClock)
    queue = FakeQueue(clock)
    devices = devices or [open_hand_display(s, "dummy") for s in range(2)]
    seats = make_seats(devices)
    test = SelfTest(seats, PLUGIN, step_ns=5 * S)

    def press_for_people(now_ns: int) -> int:
        step = test.step
        event = answer(step, now_ns) if step is not None else None
        if event is not None:
            queue.post(event)
        return now_ns + S // 2

    return run_selftest(test, clock=clock, queue=queue,
                        presenter=TablePresenter(display, motion=False),
                        tickers=[press_for_people], result_ns=S)


def right(step: Any, now_ns: int) -> object:
    """The press the step asks for."""
    return Press(step.seat, now_ns) if step.what == "slap" else \
        KeyPress(step.seat, step.what, now_ns)


def test_every_check_passes_when_every_seat_presses_what_it_is_asked(
    display: TableDisplay
) -> None:
    """Two seats: 2 x (slap + 4 keys) checks, all OK, no faults."""
    test = run(display, right)
    assert len(test.steps) == 2 * (1 + len(KEYS))
    assert set(test.results.values()) == {"OK"} and len(test.results) == len(test.steps)
    assert test.faults == []
    assert test.report()[-1] == "self-test: all OK"


def test_a_button_never_pressed_and_a_crossed_wire_are_faults(display: TableDisplay) -> None:
    """Seat 2's SELECT never comes (fault after the step time); seat 1's slap is answered by
    seat 2's button first (crossed wires), then correctly."""
    crossed = {"done": False}

    def answer(step: Any, now_ns: int) -> object | None:
        if step.seat == 1 and step.what == "select":
            return None
        if step.seat == 0 and step.what == "slap" and not crossed["done"]:
            crossed["done"] = True
            return Press(1, now_ns)
        return right(step, now_ns)

    test = run(display, answer)
    assert "Seat 2 key SELECT: no press in 5 s" in test.faults
    assert any("Seat 2 slap button pressed while Seat 1 slap button was asked" in f
               for f in test.faults)
    assert test.report()[-1] == "self-test: 2 fault(s)"


def test_a_silent_screen_is_a_fault_and_the_pattern_shows_the_seat(
    display: TableDisplay
) -> None:
    """Seat 2's OLED does not answer: a fault naming it; seat 1's shows the pattern first."""
    ok = open_hand_display(0, "dummy")
    clock = display.clock
    assert isinstance(clock, FakeClock)
    seats = make_seats([ok, SilentOled()])
    test = SelfTest(seats, PLUGIN)
    test.start(clock.now_ns())
    assert ok.image.tobytes() == pattern_image(0).tobytes()
    assert any(f.startswith("Seat 2 screen: not answering") for f in test.faults)
    assert test.tick(clock.now_ns() + PATTERN_NS) is not None
    assert test.step is not None and test.step.seat == 0 and test.step.what == "slap"
    asked = test.hand_screen(seats[0])
    assert asked.my_turn and "SLAP" in asked.prompt
    assert "Seat 1, press your SLAP button" in test.model().last_event


# ------------------------------------------------------------ on the Pi, while the service runs

ROOT = Path(__file__).resolve().parents[2]
STOP = "sudo systemctl stop partytable"
START = "sudo systemctl start partytable"

SELFTEST_CONFIG = """
[display]
driver = "dummy"
[paths]
state_dir = "{state}"
[[seat]]
slap_pin = 17
[seat.handheld]
kind = "serial"
id = "usb-MicroPython_Board_in_FS_mode_e6614c31-if00"
[[seat]]
slap_pin = 25
[seat.handheld]
kind = "serial"
id = "usb-MicroPython_Board_in_FS_mode_e6614c32-if00"
"""


class FakeLgpioError(Exception):
    """``lgpio.error`` as the real one is: its text in ``value``, ``str()`` its repr."""

    def __init__(self, value: str) -> None:
        self.value = value

    def __str__(self) -> str:
        return repr(self.value)


class BusyLineFactory(MockFactory):  # type: ignore[misc]
    """A pin factory whose line requests fail as lgpio's do when another process holds the
    line: the kernel's line request says EBUSY, lgpio raises ``error("GPIO busy")``."""

    def pin(self, name: Any, pin_class: Any = None, **kwargs: Any) -> Any:
        """Every pin is held elsewhere."""
        raise sys.modules["lgpio"].error("GPIO busy")


def selftest_on_the_pi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                       capsys: pytest.CaptureFixture[str], *, service: str | None,
                       factory: Any = None) -> tuple[int, list[str]]:
    """``python -m device selftest --config FILE`` with systemd saying the service is
    ``service`` (``None``: no systemctl) and ``factory`` as the GPIO pin factory (``None``:
    opening the GPIO chip fails the test); returns the exit status and the printed lines."""
    import signal

    from device.main import main

    path = tmp_path / "config.toml"
    path.write_text(SELFTEST_CONFIG.format(state=tmp_path / "state"))
    lgpio = types.ModuleType("lgpio")
    lgpio.error = FakeLgpioError  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "lgpio", lgpio)
    monkeypatch.setattr("device.modes.hardware.service_state", lambda: service)

    def open_pin_factory(*args: Any, **kwargs: Any) -> Any:
        assert factory is not None, "the self-test opened the GPIO chip"
        return factory

    monkeypatch.setattr("drivers.pin_factory.open_pin_factory", open_pin_factory)
    old = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    capsys.readouterr()
    try:
        status = main(["selftest", "--config", str(path)])
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
    return status, capsys.readouterr().out.strip().splitlines()


def test_a_busy_gpio_line_says_to_stop_the_service_and_start_it_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The slap button's line is held by another process (the running service; lgpio:
    "GPIO busy"): one FAULT line naming the pin, that it is busy, the command that stops
    the service and the one that starts it again; exit status 1."""
    with BusyLineFactory() as factory:
        status, lines = selftest_on_the_pi(tmp_path, monkeypatch, capsys, service=None,
                                           factory=factory)
    assert status == 1
    assert len(lines) == 1, lines
    line = lines[0]
    assert line.startswith("FAULT: seat 1 slap button at GPIO17: busy: another program "
                           "holds this GPIO line"), line
    assert STOP in line and START in line and line.index(STOP) < line.index(START)


def test_the_running_service_is_named_before_any_hardware_is_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """systemd says partytable is active (or activating, between restarts): the self-test
    opens nothing and says to stop the service, then start it again."""
    for state in ("active", "activating"):
        status, lines = selftest_on_the_pi(tmp_path, monkeypatch, capsys, service=state)
        assert status == 1
        assert lines == [
            f"FAULT: the partytable service is running ({state}) and holds the TV, the GPIO "
            f"lines and the handhelds: stop it ({STOP}), run the self-test, then start it "
            f"again ({START})"]


def test_a_busy_line_while_the_service_is_stopped_names_another_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """systemd says the service is not running, yet the line is busy: the line says so and
    does not send the builder to systemctl."""
    with BusyLineFactory() as factory:
        status, lines = selftest_on_the_pi(tmp_path, monkeypatch, capsys, service="inactive",
                                           factory=factory)
    assert status == 1 and len(lines) == 1
    assert "the partytable service is not running (inactive)" in lines[0]
    assert "systemctl" not in lines[0]


def test_service_state_asks_systemctl_and_needs_no_systemd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``systemctl is-active partytable.service``'s word (it exits 3 for anything but
    active, and says "activating" during a restart); ``None`` without systemctl."""
    from device.modes.hardware import service_state

    fake = tmp_path / "systemctl"
    fake.write_text('#!/bin/sh\n[ "$1 $2" = "is-active partytable.service" ] || exit 9\n'
                    'echo activating\nexit 3\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert service_state() == "activating"
    fake.unlink()
    assert service_state() is None


def test_the_self_test_docs_name_every_group_of_the_service_and_the_stop_command() -> None:
    """hardware/README.md's self-test section names every group the service runs with
    (partytable.service SupplementaryGroups=) and how to stop the service first and start
    it again after."""
    unit = (ROOT / "systemd" / "partytable.service").read_text()
    groups = next(line.split("=", 1)[1].split() for line in unit.splitlines()
                  if line.startswith("SupplementaryGroups="))
    assert "render" in groups
    readme = (ROOT / "hardware" / "README.md").read_text()
    section = readme.split("## Self-test", 1)[1].split("\n## ", 1)[0]
    missing = [g for g in groups if not re.search(rf"\b{g}\b", section)]
    assert missing == []
    assert STOP in section and START in section
