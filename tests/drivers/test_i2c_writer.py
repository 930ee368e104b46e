"""Wired OLEDs behind bus writers: display() never waits for the bus, the newest frame wins,
missing and failing panels are reported once, retried at a bounded rate and rebuilt.

The panels sit on a fake smbus handed to luma's own ``i2c(bus=...)`` interface, so the real
luma code runs: a chip that does not acknowledge makes ``write_i2c_block_data`` raise
``OSError(121)``, which luma's ``command()`` turns into ``DeviceNotFoundError`` while its
``data()`` lets the plain ``OSError`` through (docs/hardware-facts.md, "luma.oled").  A panel
that loses power forgets its init sequence: it stays dark until the charge pump is enabled
and the display switched on again, whatever frames it is sent.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest
from luma.core.interface.serial import i2c, noop  # type: ignore[import-untyped]
from PIL import Image, ImageDraw

from drivers.clock import FakeClock
from drivers.errors import DeviceUnavailableError, DriverClosedError, DriverValueError
from drivers.hand_display import NOP, HandDisplays
from drivers.i2c_writer import BusWriter, DisplayState, QueuedDisplay

SECOND = 1_000_000_000
NOT_FOUND = "not found — check its cable, its power and the address jumper (0x3C/0x3D)"


class Panel:
    """An SSD1306/SH1106 as the bus sees it: powered or not, lit only after its init.

    ``ram``: 1024 bytes of display memory (page-major, LSB at the top of a page);
    ``inits``: init sequences received (blocks enabling the charge pump, 8Dh 14h);
    ``blinks``: times a lit panel was switched off; ``lit_with``: the display memory at
    every display-on command (what the panel shows the moment it lights).
    """

    def __init__(self) -> None:
        self.powered = True
        self.charge_pump = False
        self.on = False
        self.inits = 0
        self.blinks = 0
        self.lit_with: list[bytes] = []
        self.ram = bytearray(1024)
        self._ptr = 0

    @property
    def lit(self) -> bool:
        """True when the panel shows its memory: powered, charge pump on, display on."""
        return self.powered and self.charge_pump and self.on

    def power_off(self) -> None:
        """The panel's supply drops: it forgets everything."""
        self.powered = self.charge_pump = self.on = False

    def power_on(self) -> None:
        """The supply is back: the chip answers but is dark until initialised again."""
        self.powered = True
        self.ram = bytearray(1024)

    def command(self, cmd: list[int]) -> None:
        """One command block (register 0x00)."""
        for i, byte in enumerate(cmd[:-1]):
            if byte == 0x8D and cmd[i + 1] == 0x14:
                self.charge_pump = True
                self.inits += 1
        if cmd[0] == 0xAE:
            self.blinks += int(self.lit)
            self.on = False
        if cmd == [0xAF]:
            self.on = True
            self.lit_with.append(bytes(self.ram))
        if cmd[0] == 0x21:  # SSD1306 COLUMNADDR ... PAGEADDR: the whole frame follows
            self._ptr = 0
        if 0xB0 <= cmd[0] <= 0xB7 and len(cmd) == 3:  # SH1106 page address
            self._ptr = (cmd[0] - 0xB0) * 128

    def data(self, data: list[int]) -> None:
        """One data block (register 0x40): written at the pointer, which moves on."""
        for byte in data:
            self.ram[self._ptr % 1024] = byte
            self._ptr += 1

    def image(self) -> Image.Image:
        """What the panel shows, as a 128x64 mode '1' image (all dark when not lit)."""
        image = Image.new("1", (128, 64))
        if not self.lit:
            return image
        for i, byte in enumerate(self.ram):
            page, x = divmod(i, 128)
            for bit in range(8):
                if byte >> bit & 1:
                    image.putpixel((x, page * 8 + bit), 1)
        return image


class FakeBus:
    """An smbus2-like bus (``write_i2c_block_data``, ``close``) with panels by address.

    A write to an address without a powered panel raises ``OSError(errno)`` (121, Remote
    I/O error: no acknowledge).  ``cut_after[addr] = n``: the panel loses power at the
    (n+1)-th data block from now (mid-frame).  ``gate``: when set to an Event, every write
    waits for it (a transfer in progress), ``entered`` is set when one is waiting and
    ``stalled`` records a wait that timed out (someone waited for the bus who should not;
    the gate then opens for good, so a failing test fails instead of hanging).  ``nak_next``:
    so many next writes are not acknowledged (``OSError(121)``) though the panel keeps its
    power and state: a marginal line (long leads, weak pull-ups) losing a transfer.
    """

    def __init__(self, **panels: Panel) -> None:
        self.panels: dict[int, Panel] = {int(k[1:], 16): v for k, v in panels.items()}
        self.writes: list[tuple[int, int, tuple[int, ...]]] = []
        self.threads: set[str] = set()
        self.cut_after: dict[int, int] = {}
        self.gate: threading.Event | None = None
        self.entered = threading.Event()
        self.stalled = False
        self.errno = 121
        self.nak_next = 0

    def write_i2c_block_data(self, addr: int, register: int, data: list[int]) -> None:
        self.writes.append((addr, register, tuple(data)))
        self.threads.add(threading.current_thread().name)
        if self.gate is not None:
            self.entered.set()
            if not self.gate.wait(5):
                self.stalled = True
                self.gate.set()  # one stall is enough to fail the test; do not hang it
        if self.nak_next > 0:
            self.nak_next -= 1
            raise OSError(121, os.strerror(121))
        panel = self.panels.get(addr)
        if register == 0x40 and addr in self.cut_after and panel is not None:
            if self.cut_after[addr] == 0:
                del self.cut_after[addr]
                panel.power_off()
            else:
                self.cut_after[addr] -= 1
        if panel is None or not panel.powered:
            raise OSError(self.errno, os.strerror(self.errno))
        if register == 0x00:
            panel.command(list(data))
        else:
            panel.data(list(data))

    def close(self) -> None:
        return None

    def probes(self, addr: int = 0x3C) -> int:
        """How many NOP probes were written to ``addr``."""
        return sum(1 for w in self.writes if w == (addr, 0x00, (NOP,)))

    def data_blocks(self, addr: int = 0x3C) -> int:
        """How many data blocks were written to ``addr``."""
        return sum(1 for a, reg, _ in self.writes if a == addr and reg == 0x40)


def opener(buses: Mapping[int, FakeBus]) -> Callable[[int, str, Mapping[str, object]], Any]:
    """An ``open_serial`` that puts luma's own i2c interface on the fake bus of each port."""

    def open_serial(seat: int, name: str, p: Mapping[str, object]) -> Any:
        return i2c(bus=buses[int(str(p["port"]))], address=p["address"])

    return open_serial


def frame(x: int, text: str = "") -> Image.Image:
    """A 128x64 mode '1' frame: a lit column at ``x`` and ``text``."""
    image = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(image)
    draw.line((x, 0, x, 63), fill=1)
    draw.text((20, 20), text, fill=1)
    return image


class Reports:
    """on_gone / on_back / on_noisy / on_quiet recorder: ``log`` holds ("gone", seat,
    reason) / ("back", seat); ``noise`` holds ("noisy", seat, reason) / ("quiet", seat)."""

    def __init__(self) -> None:
        self.log: list[tuple[object, ...]] = []
        self.noise: list[tuple[object, ...]] = []

    def gone(self, seat: int, reason: str) -> None:
        self.log.append(("gone", seat, reason))

    def back(self, seat: int) -> None:
        self.log.append(("back", seat))

    def noisy(self, seat: int, reason: str) -> None:
        self.noise.append(("noisy", seat, reason))

    def quiet(self, seat: int) -> None:
        self.noise.append(("quiet", seat))


@pytest.fixture
def reports() -> Reports:
    """A fresh callback recorder."""
    return Reports()


@pytest.fixture
def clock() -> FakeClock:
    """A fake clock at 100 s."""
    return FakeClock(start_ns=100 * SECOND)


def synchronous(
    buses: Mapping[int, FakeBus], reports: Reports, clock: FakeClock, *, noise: bool = False
) -> HandDisplays:
    """Hand displays without threads: run_once() drives them on the fake clock; with
    ``noise`` they also report noisy / quiet panels."""
    return HandDisplays(
        on_gone=reports.gone,
        on_back=reports.back,
        on_noisy=reports.noisy if noise else None,
        on_quiet=reports.quiet if noise else None,
        clock=clock,
        thread=False,
        open_serial=opener(buses),
    )


def shown(
    make: Callable[[Mapping[int, FakeBus], Reports, FakeClock], HandDisplays],
    reports: Reports, clock: FakeClock, first: Image.Image, seat: int = 0,
    kind: str = "ssd1306",
) -> tuple[FakeBus, HandDisplays, Any]:
    """One ``kind`` panel at 0x3C on I2C1 for seat ``seat``, its hand displays made by
    ``make`` (:func:`synchronous` or :func:`listening`), ``first`` shown and sent by one
    writer pass: ``(bus, hands, screen)``."""
    bus = FakeBus(x3C=Panel())
    hands = make({1: bus}, reports, clock)
    screen = hands.open(seat, kind, port=1)
    screen.display(first)
    hands.run_once()
    return bus, hands, screen


def gated(threaded_hands: Callable[..., HandDisplays]) -> tuple[FakeBus, HandDisplays, Any]:
    """Seat 0's SSD1306 on I2C1 behind a gated bus (``bus.gate``: its transfers wait until
    the gate opens), opened on threaded hand displays: ``(bus, hands, screen)``."""
    bus = FakeBus(x3C=Panel())
    bus.gate = threading.Event()
    hands = threaded_hands({1: bus})
    screen = hands.open(0, "ssd1306", port=1)
    return bus, hands, screen


@pytest.fixture
def threaded_hands(reports: Reports) -> Iterator[Callable[..., HandDisplays]]:
    """Make threaded HandDisplays on given fake buses; afterwards every gate is opened (so
    no writer stays blocked) and every one is closed."""
    made: list[tuple[HandDisplays, Mapping[int, FakeBus]]] = []

    def make(buses: Mapping[int, FakeBus]) -> HandDisplays:
        hands = HandDisplays(on_gone=reports.gone, on_back=reports.back, open_serial=opener(buses))
        made.append((hands, buses))
        return hands

    yield make
    for hands, buses in made:
        for bus in buses.values():
            if bus.gate is not None:
                bus.gate.set()
        hands.close()


# --- off the loop thread ----------------------------------------------------------------


def test_display_returns_while_the_bus_is_busy_and_the_newest_frame_wins(
    threaded_hands: Callable[..., HandDisplays],
) -> None:
    """display() returns during a transfer; frames replaced meanwhile are dropped."""
    bus, hands, screen = gated(threaded_hands)
    assert isinstance(screen, QueuedDisplay)
    assert bus.entered.wait(5)  # the writer is inside a bus transfer now
    returned = threading.Event()

    def loop_thread() -> None:
        for x in (1, 2, 3):
            screen.display(frame(x))
        returned.set()

    threading.Thread(target=loop_thread, daemon=True).start()
    assert returned.wait(5)  # all three returned while the transfer was still going on
    assert not bus.gate.is_set()
    assert screen.frames_dropped == 2
    bus.gate.set()
    assert hands.flush(5)
    assert not bus.stalled
    panel = bus.panels[0x3C]
    assert panel.image().tobytes() == frame(3).tobytes()
    assert screen.frames_sent == 1
    assert bus.threads == {"oled-writer i2c-1"}


def test_displays_of_one_bus_share_its_writer_and_each_gets_its_newest_frame(
    threaded_hands: Callable[..., HandDisplays],
) -> None:
    """Two addresses on i2c-1 share one thread, i2c-4 has its own; each panel its frame."""
    bus1 = FakeBus(x3C=Panel(), x3D=Panel())
    bus4 = FakeBus(x3C=Panel())
    hands = threaded_hands({1: bus1, 4: bus4})
    screens = [
        hands.open(0, "ssd1306", port=1, address=0x3C),
        hands.open(1, "sh1106", port=1, address=0x3D),
        hands.open(2, "ssd1306", port=4),
    ]
    for seat, screen in enumerate(screens):
        screen.display(frame(10 + seat, f"seat {seat}"))
        screen.display(frame(20 + seat, f"seat {seat}"))
    assert hands.flush(5)
    assert sorted(hands.writers) == ["i2c-1", "i2c-4"]
    assert bus1.threads == {"oled-writer i2c-1"}
    assert bus4.threads == {"oled-writer i2c-4"}
    shown = [bus1.panels[0x3C], bus1.panels[0x3D], bus4.panels[0x3C]]
    for seat, panel in enumerate(shown):
        assert panel.image().tobytes() == frame(20 + seat, f"seat {seat}").tobytes()
    assert [s.state for s in screens] == [DisplayState.PRESENT] * 3


def test_a_stalled_bus_does_not_hold_up_another(
    threaded_hands: Callable[..., HandDisplays],
) -> None:
    """While i2c-3 is stuck in a transfer, frames still reach the panel on i2c-4."""
    bus3, bus4 = FakeBus(x3C=Panel()), FakeBus(x3C=Panel())
    bus3.gate = threading.Event()
    hands = threaded_hands({3: bus3, 4: bus4})
    stuck = hands.open(0, "ssd1306", port=3)
    free = hands.open(1, "ssd1306", port=4)
    stuck.display(frame(5))
    free.display(frame(6))
    assert bus3.entered.wait(5)
    assert hands.writers["i2c-4"].flush(5)
    assert bus4.panels[0x3C].image().tobytes() == frame(6).tobytes()
    assert not bus3.panels[0x3C].lit
    bus3.gate.set()
    assert hands.flush(5)
    assert bus3.panels[0x3C].image().tobytes() == frame(5).tobytes()


def test_close_sends_the_pending_frame_joins_and_is_idempotent(
    threaded_hands: Callable[..., HandDisplays],
) -> None:
    """close() lets the writer send the newest frame, joins its thread, refuses later use."""
    bus, hands, screen = gated(threaded_hands)
    writer = hands.writers["i2c-1"]
    thread = writer._thread
    assert thread is not None and thread.is_alive()
    assert bus.entered.wait(5)
    screen.display(frame(7))
    closer = threading.Thread(target=hands.close)
    closer.start()
    bus.gate.set()
    closer.join(5)
    assert not closer.is_alive()
    assert not thread.is_alive()
    assert bus.panels[0x3C].image().tobytes() == frame(7).tobytes()
    hands.close()
    with pytest.raises(DriverClosedError, match=r"^seat 1 OLED ssd1306 at i2c-1 0x3C: used after"):
        screen.display(frame(8))
    with pytest.raises(DriverClosedError):
        hands.open(1, "ssd1306", port=1, address=0x3D)


# --- missing and failing ----------------------------------------------------------------


def test_missing_at_start_is_reported_once_and_back_when_plugged_in(
    reports: Reports, clock: FakeClock
) -> None:
    """No chip: one on_gone line; retries are silent; plugged in: newest frame, on_back."""
    bus = FakeBus()
    hands = synchronous({4: bus}, reports, clock)
    screen = hands.open(3, "ssd1306", port=4, address=0x3C)
    screen.display(frame(1))
    hands.run_once()
    reason = f"seat 4 OLED ssd1306 at i2c-4 0x3C: {NOT_FOUND}"
    assert reports.log == [("gone", 3, reason)]
    assert (screen.state, screen.error) == (DisplayState.GONE, reason)
    for _ in range(3):
        clock.advance(5 * SECOND)
        hands.run_once()
    assert reports.log == [("gone", 3, reason)]
    screen.display(frame(2))
    bus.panels[0x3C] = Panel()
    clock.advance(5 * SECOND)
    assert hands.run_once() is None
    assert reports.log == [("gone", 3, reason), ("back", 3)]
    panel = bus.panels[0x3C]
    assert panel.image().tobytes() == frame(2).tobytes()
    assert (screen.state, screen.error, screen.device.persist) == (DisplayState.PRESENT, None, True)


def test_a_missing_bus_node_names_the_node_and_the_fix(reports: Reports, clock: FakeClock) -> None:
    """No /dev/i2c-250 (luma's own i2c, no fake): the line says how to enable the bus."""
    if os.path.exists("/dev/i2c-250"):
        pytest.skip("/dev/i2c-250 exists here")
    hands = HandDisplays(on_gone=reports.gone, clock=clock, thread=False)
    screen = hands.open(3, "ssd1306", port=250, address=0x3C)
    hands.run_once()
    ((kind, seat, reason),) = reports.log
    assert (kind, seat) == ("gone", 3)
    assert isinstance(reason, str)
    assert reason.startswith(
        "seat 4 OLED ssd1306 at i2c-250 0x3C: /dev/i2c-250 not found; enable the bus"
    )
    assert "\n" not in reason
    assert screen.state is DisplayState.GONE


def test_a_bus_that_appears_later_is_opened_then(reports: Reports, clock: FakeClock) -> None:
    """The bus node is missing for two tries (mux overlay loading late), then opens."""
    bus = FakeBus(x3C=Panel())
    calls: list[int] = []

    def open_serial(seat: int, name: str, p: Mapping[str, object]) -> Any:
        calls.append(seat)
        if len(calls) <= 2:
            raise DeviceUnavailableError(name, "/dev/i2c-5 not found; enable the bus", seat=seat)
        return i2c(bus=bus, address=0x3C)

    hands = HandDisplays(
        on_gone=reports.gone,
        on_back=reports.back,
        clock=clock,
        thread=False,
        open_serial=open_serial,
    )
    screen = hands.open(1, "ssd1306", port=5)
    screen.display(frame(9))
    deadline = hands.run_once()
    while deadline is not None:
        clock.set(deadline)
        deadline = hands.run_once()
    assert calls == [1, 1, 1]
    assert reports.log == [
        ("gone", 1, "seat 2 OLED ssd1306 at i2c-5 0x3C: /dev/i2c-5 not found; enable the bus"),
        ("back", 1),
    ]
    assert bus.panels[0x3C].image().tobytes() == frame(9).tobytes()


def test_power_lost_mid_frame_rebuilds_the_panel_and_sends_the_newest_frame(
    reports: Reports, clock: FakeClock
) -> None:
    """errno 121 inside data(): gone once; power back: init sent again, newest frame shown."""
    bus, hands, screen = shown(synchronous, reports, clock, frame(1))
    panel = bus.panels[0x3C]
    first_device = screen.device
    assert panel.image().tobytes() == frame(1).tobytes()
    bus.cut_after[0x3C] = 5  # the supply drops six 32-byte blocks into the next frame
    screen.display(frame(2))
    hands.run_once()
    reason = (
        "seat 1 OLED ssd1306 at i2c-1 0x3C: stopped answering ([Errno 121] Remote I/O error)"
        " — check its cable"
    )
    assert reports.log == [("gone", 0, reason)]
    screen.display(frame(3))
    panel.power_on()
    first_device.display(frame(3))  # a resend without the init sequence leaves it dark
    assert not panel.lit
    clock.advance(SECOND)
    hands.run_once()
    assert reports.log == [("gone", 0, reason), ("back", 0)]
    assert screen.device is not first_device
    assert panel.lit and panel.inits == 2
    assert panel.image().tobytes() == frame(3).tobytes()
    assert screen.state is DisplayState.PRESENT


BROWN_OUT_WITHIN_S = 5
"""A panel that lost its init without a failed write lights again within this (the
writer's refresh period, a few seconds)."""


@pytest.mark.parametrize("kind", ["ssd1306", "sh1106"])
def test_a_panel_that_loses_power_between_frames_lights_again_with_its_frame(
    reports: Reports, clock: FakeClock, kind: str
) -> None:
    """Power lost and back while the picture does not change: no write fails, the panel
    comes back dark and uninitialised; the writer's refresh lights it again with its frame,
    written whole before the display goes on, and nothing is reported gone."""
    bus, hands, screen = shown(synchronous, reports, clock, frame(1, "hand"), kind=kind)
    panel = bus.panels[0x3C]
    assert panel.image().tobytes() == frame(1, "hand").tobytes()
    clock.advance(SECOND // 2)
    panel.power_off()  # a brown-out between two frames: nothing was being written
    panel.power_on()
    assert not panel.lit
    start = clock.now_ns()
    while not panel.lit and clock.now_ns() - start <= BROWN_OUT_WITHIN_S * SECOND:
        clock.advance(SECOND // 2)
        screen.display(frame(1, "hand"))  # the same picture: skipped, nothing to send
        hands.run_once()
    assert panel.lit, f"still dark {BROWN_OUT_WITHIN_S} s after it lost its init"
    assert panel.image().tobytes() == frame(1, "hand").tobytes()
    assert panel.lit_with[-1] == bytes(bus.panels[0x3C].ram)  # lit only once it was whole
    assert reports.log == []
    assert screen.state is DisplayState.PRESENT


def test_a_panel_that_loses_power_while_frames_change_lights_again(
    reports: Reports, clock: FakeClock
) -> None:
    """New frames every half second keep the writer busy; a panel that lost its init in
    between still gets it again within the refresh period and shows the newest frame."""
    bus = FakeBus(x3C=Panel())
    hands = synchronous({1: bus}, reports, clock)
    screen = hands.open(0, "ssd1306", port=1)
    panel = bus.panels[0x3C]
    for x in range(4):
        screen.display(frame(x))
        hands.run_once()
        clock.advance(SECOND // 2)
    panel.power_off()
    panel.power_on()
    x = 4
    start = clock.now_ns()
    while not panel.lit and clock.now_ns() - start <= BROWN_OUT_WITHIN_S * SECOND:
        screen.display(frame(x))  # every frame is acknowledged by the dark panel
        hands.run_once()
        clock.advance(SECOND // 2)
        x += 1
    assert panel.lit
    assert panel.image().tobytes() == frame(x - 1).tobytes()
    assert reports.log == []


def test_the_refresh_leaves_a_healthy_panel_lit_and_costs_about_one_frame(
    reports: Reports, clock: FakeClock
) -> None:
    """A refresh of a panel that never lost power: it never goes dark (no display-off), its
    picture stays, and the refresh is one frame plus a few dozen command bytes."""
    bus, hands, screen = shown(synchronous, reports, clock, frame(7, "steady"))
    panel = bus.panels[0x3C]
    blinks = panel.blinks
    before = len(bus.writes)
    start = clock.now_ns()
    while len(bus.writes) == before and clock.now_ns() - start <= BROWN_OUT_WITHIN_S * SECOND:
        clock.advance(SECOND // 2)
        hands.run_once()
        assert panel.image().tobytes() == frame(7, "steady").tobytes()
    refresh = bus.writes[before:]
    assert refresh, "no refresh within the period"
    assert panel.blinks == blinks
    data = [d for _, reg, d in refresh if reg == 0x40]
    commands = [d for _, reg, d in refresh if reg == 0x00]
    assert sum(map(len, data)) == 1024  # the whole frame, once
    assert sum(map(len, commands)) <= 48  # the init sequence, the address window, display on
    assert panel.image().tobytes() == frame(7, "steady").tobytes()
    assert screen.frames_sent == 1
    assert reports.log == []


def test_a_refresh_of_an_unchanged_picture_sends_the_same_bytes_again(
    reports: Reports, clock: FakeClock
) -> None:
    """The second refresh of the same picture sends exactly the bytes of the first (luma
    converts the picture once, not at every refresh), and they still light a panel that
    lost its init in between."""
    bus, hands, screen = shown(synchronous, reports, clock, frame(9, "idle"), kind="sh1106")
    device = screen.device
    conversions: list[int] = []
    convert = device.display
    device.display = lambda image: (conversions.append(1), convert(image))
    refreshes: list[list[tuple[int, int, tuple[int, ...]]]] = []
    panel = bus.panels[0x3C]
    for _ in range(2):
        before = len(bus.writes)
        start = clock.now_ns()
        while len(bus.writes) == before and clock.now_ns() - start <= 5 * SECOND:
            clock.advance(SECOND // 2)
            hands.run_once()
        refreshes.append(bus.writes[before:])
        panel.power_off()
        panel.power_on()
    assert panel.lit is False
    assert refreshes[0] == refreshes[1] and refreshes[0]
    assert screen.refreshes == 2 and len(conversions) == 1
    clock.advance(5 * SECOND)
    hands.run_once()
    assert panel.image().tobytes() == frame(9, "idle").tobytes()
    screen.display(frame(10, "new"))
    hands.run_once()
    assert len(conversions) == 2  # a new picture goes through luma
    assert panel.image().tobytes() == frame(10, "new").tobytes()


def test_a_threaded_writer_refreshes_a_panel_by_itself() -> None:
    """On its own thread and the monotonic clock, with no frame given after the first, the
    writer refreshes a panel that lost its init (a 20 ms period here, 3 s by default)."""
    bus = FakeBus(x3C=Panel())
    hands = HandDisplays(refresh_ns=20_000_000, open_serial=opener({1: bus}))
    try:
        screen = hands.open(0, "ssd1306", port=1)
        screen.display(frame(3, "alone"))
        assert hands.flush(5)
        panel = bus.panels[0x3C]
        panel.power_off()
        panel.power_on()
        lit = threading.Event()
        for _ in range(500):  # at most 5 s
            if panel.lit:
                lit.set()
                break
            lit.wait(0.01)
        assert lit.is_set()
        assert panel.image().tobytes() == frame(3, "alone").tobytes()
        assert screen.refreshes >= 1
    finally:
        hands.close()


NOISY = (
    "3 bus errors in 60 s — check the wiring and its pull-ups; on long leads run I2C at"
    ' 100 kHz (hardware/README.md, "Long leads")'
)


def listening(buses: Mapping[int, FakeBus], reports: Reports, clock: FakeClock) -> HandDisplays:
    """Hand displays without threads that also report noisy / quiet panels."""
    return synchronous(buses, reports, clock, noise=True)


def test_a_panel_whose_writes_fail_often_is_noisy_once_then_quiet_when_healthy(
    reports: Reports, clock: FakeClock
) -> None:
    """Three lost transfers (NAKs) in 30 s on a panel that keeps its power: each is one
    gone/back as before, the third reports it noisy once with the advice; 60 s without a
    failure and it is reported quiet once."""
    bus, hands, screen = shown(listening, reports, clock, frame(0), seat=1)
    last_fault = clock.now_ns()
    for x in (1, 2, 3):
        clock.advance(10 * SECOND)
        bus.nak_next = 1
        screen.display(frame(x))
        hands.run_once()
        last_fault = clock.now_ns()
        assert screen.state is DisplayState.GONE
        clock.advance(SECOND)
        hands.run_once()
        assert screen.state is DisplayState.PRESENT
        assert screen.noisy is (x == 3)
    assert [entry[0] for entry in reports.log] == ["gone", "back"] * 3
    assert reports.noise == [("noisy", 1, f"seat 2 OLED ssd1306 at i2c-1 0x3C: {NOISY}")]
    assert bus.panels[0x3C].image().tobytes() == frame(3).tobytes()
    while clock.now_ns() - last_fault < 60 * SECOND:
        assert len(reports.noise) == 1, "quiet before a whole window without a failure"
        clock.advance(SECOND // 2)
        hands.run_once()
    clock.advance(SECOND // 2)
    hands.run_once()
    assert reports.noise[1:] == [("quiet", 1)]
    assert not screen.noisy
    assert len(reports.log) == 6


def test_failures_during_refreshes_count_and_a_rebuild_that_fails_counts(
    reports: Reports, clock: FakeClock
) -> None:
    """With no new frame at all, the refreshes are the writes: NAKs there count, and so does
    a rebuild that fails after its probe answered."""
    bus, hands, _screen = shown(listening, reports, clock, frame(5), kind="sh1106")
    for _ in range(2):
        bus.nak_next = 1
        before = len(reports.log)
        while len(reports.log) == before:  # the next refresh fails
            clock.advance(SECOND // 2)
            hands.run_once()
        clock.advance(SECOND)
        hands.run_once()
    assert reports.noise == []
    before = len(bus.writes)
    bus.nak_next = 1
    clock.advance(5 * SECOND)
    hands.run_once()  # the refresh fails (drop-out 3): gone, noisy
    assert reports.noise == [("noisy", 0, f"seat 1 OLED sh1106 at i2c-1 0x3C: {NOISY}")]
    assert len(bus.writes) > before


def test_an_unplugged_panel_is_gone_and_never_noisy(reports: Reports, clock: FakeClock) -> None:
    """A panel pulled for two minutes: one drop-out, then probes that are not answered;
    it is reported gone once and never noisy."""
    bus, hands, screen = shown(listening, reports, clock, frame(1))
    del bus.panels[0x3C]
    for step in range(240):
        screen.display(frame(2 + step % 2))
        hands.run_once()
        clock.advance(SECOND // 2)
    assert [entry[0] for entry in reports.log] == ["gone"]
    assert reports.noise == []
    assert not screen.noisy


def test_failures_spread_wider_than_the_window_are_not_noisy(
    reports: Reports, clock: FakeClock
) -> None:
    """One lost transfer every 40 s for four minutes: never three within 60 s, never noisy."""
    bus, hands, screen = shown(listening, reports, clock, frame(0))
    for x in range(1, 7):
        clock.advance(39 * SECOND)
        hands.run_once()
        bus.nak_next = 1
        screen.display(frame(x))
        hands.run_once()
        clock.advance(SECOND)
        hands.run_once()
        assert screen.state is DisplayState.PRESENT
    assert [entry[0] for entry in reports.log] == ["gone", "back"] * 6
    assert reports.noise == []


def test_retries_back_off_and_build_nothing_while_the_chip_is_absent(
    reports: Reports, clock: FakeClock
) -> None:
    """Tries at +1, +3, +7, +12, +17 s (1 s doubling to 5 s), each one NOP, no init."""
    bus = FakeBus()
    hands = synchronous({1: bus}, reports, clock)
    hands.open(0, "ssd1306", port=1)
    start = clock.now_ns()
    tried_at: list[float] = []
    deadlines: list[int | None] = []
    for step in range(41):
        clock.set(start + step * SECOND // 2)
        before = len(bus.writes)
        deadline = hands.run_once()
        if len(bus.writes) > before:
            tried_at.append((clock.now_ns() - start) / SECOND)
            deadlines.append(None if deadline is None else (deadline - start) // (SECOND // 10))
    assert tried_at == [0.0, 1.0, 3.0, 7.0, 12.0, 17.0]
    assert deadlines == [10, 30, 70, 120, 170, 220]
    assert bus.writes == [(0x3C, 0x00, (NOP,))] * 6
    assert len(reports.log) == 1


def test_a_failing_bus_node_is_opened_again(reports: Reports, clock: FakeClock) -> None:
    """A bus error that is not a NAK (ENODEV: the adapter went away) reopens the node."""
    bus = FakeBus(x3C=Panel())
    bus.errno = 19
    del bus.panels[0x3C]
    opened: list[int] = []

    def open_serial(seat: int, name: str, p: Mapping[str, object]) -> Any:
        opened.append(seat)
        return i2c(bus=bus, address=0x3C)

    hands = HandDisplays(on_gone=reports.gone, clock=clock, thread=False, open_serial=open_serial)
    hands.open(2, "ssd1306", port=1)
    hands.run_once()
    clock.advance(SECOND)
    hands.run_once()
    assert opened == [2, 2]
    assert reports.log == [
        (
            "gone",
            2,
            "seat 3 OLED ssd1306 at i2c-1 0x3C: bus failed ([Errno 19] No such device)"
            " — check its cable",
        ),
    ]


def test_one_failing_display_leaves_the_others_on_its_bus_alone(
    reports: Reports, clock: FakeClock
) -> None:
    """0x3D missing on i2c-1: seat 1 is reported, seat 0 on 0x3C gets every frame."""
    bus = FakeBus(x3C=Panel())
    hands = synchronous({1: bus}, reports, clock)
    good = hands.open(0, "ssd1306", port=1, address=0x3C)
    hands.open(1, "ssd1306", port=1, address=0x3D)
    for x in (4, 5, 6):
        good.display(frame(x))
        hands.run_once()
        assert bus.panels[0x3C].image().tobytes() == frame(x).tobytes()
        clock.advance(SECOND)
    assert [entry[:2] for entry in reports.log] == [("gone", 1)]
    assert good.frames_sent == 3


def test_an_unchanged_frame_is_not_sent_again(reports: Reports, clock: FakeClock) -> None:
    """A frame equal to the one given, or to the one the panel shows, is not sent again."""
    bus, hands, screen = shown(synchronous, reports, clock, frame(1))
    blocks = bus.data_blocks()
    screen.display(frame(1))
    hands.run_once()
    assert bus.data_blocks() == blocks
    assert (screen.frames_sent, screen.frames_skipped) == (1, 1)
    screen.display(frame(2))
    hands.run_once()
    assert bus.data_blocks() == blocks + 1024 // 32
    screen.display(frame(3))
    screen.display(frame(2))  # back to what the panel shows before frame 3 went out
    hands.run_once()
    assert bus.data_blocks() == blocks + 1024 // 32
    assert (screen.frames_sent, screen.frames_dropped) == (2, 1)


def test_a_callback_that_raises_does_not_stop_the_writer(
    clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    """An exception in on_gone is logged; the writer still retries and reports on_back."""
    bus = FakeBus()
    backs: list[int] = []

    def gone(seat: int, reason: str) -> None:
        raise RuntimeError("device queue full")

    hands = HandDisplays(
        on_gone=gone,
        on_back=backs.append,
        clock=clock,
        thread=False,
        open_serial=opener({1: bus}),
    )
    hands.open(4, "sh1106", port=1)
    with caplog.at_level(logging.ERROR, logger="drivers.i2c_writer"):
        hands.run_once()
    assert "device queue full" in caplog.text
    bus.panels[0x3C] = Panel()
    clock.advance(SECOND)
    hands.run_once()
    assert backs == [4]


def test_oleds_over_luma_noop_serial(reports: Reports, clock: FakeClock) -> None:
    """ssd1306 and sh1106 open over luma's noop interface, each on a writer of its own."""
    hands = HandDisplays(on_gone=reports.gone, clock=clock, thread=False)
    screens = [
        hands.open(seat, kind, serial_interface=noop())
        for seat, kind in enumerate(("ssd1306", "sh1106"))
    ]
    for screen in screens:
        screen.display(frame(3))
    hands.run_once()
    assert [type(s.device).__name__ for s in screens] == ["ssd1306", "sh1106"]
    assert [s.frames_sent for s in screens] == [1, 1]
    assert all(s.device.persist for s in screens)
    assert len(hands.writers) == 2
    assert all(name.startswith("noop@") for name in hands.writers)
    assert reports.log == []


def test_dummy_kind_is_the_plain_luma_dummy(reports: Reports, clock: FakeClock) -> None:
    """kind dummy needs no writer: display() lands in .image at once."""
    hands = HandDisplays(on_gone=reports.gone, clock=clock, thread=False)
    device = hands.open(0, "dummy")
    device.display(frame(9))
    assert device.image.tobytes() == frame(9).tobytes()
    assert hands.writers == {}
    assert hands.devices == {0: device}


def test_rotated_display_takes_rotated_frames(reports: Reports, clock: FakeClock) -> None:
    """rotate=1 makes a 64x128 screen; a 128x64 frame is refused naming both sizes."""
    hands = HandDisplays(clock=clock, thread=False)
    screen = hands.open(0, "ssd1306", serial_interface=noop(), rotate=1)
    assert screen.size == (64, 128)
    with pytest.raises(DriverValueError) as info:
        screen.display(frame(1))
    assert str(info.value) == (
        "seat 1 OLED ssd1306 at noop: frame is 1 128x64, the screen takes 1 64x128"
    )
    screen.display(Image.new("1", (64, 128), 1))
    hands.run_once()
    assert screen.frames_sent == 1


@pytest.mark.parametrize(
    ("opens", "message"),
    [
        (
            [(0, {"port": 1, "adress": 0x3C})],
            "seat 1 OLED ssd1306 at i2c-1 0x3C: unknown parameter 'adress'",
        ),
        (
            [(0, {"port": 1, "width": 100, "height": 50})],
            "seat 1 OLED ssd1306 at i2c-1 0x3C: size 100x50 is not one the ssd1306 supports"
            " (128x64, 128x32, 96x16, 64x48, 64x32)",
        ),
        (
            [(0, {"port": 1}), (0, {"port": 2})],
            "seat 1 OLED ssd1306 at i2c-2 0x3C: this seat already has a hand display"
            " (OLED ssd1306 at i2c-1 0x3C)",
        ),
        (
            [(1, {"port": 1, "address": "0x3D"}), (2, {"port": 1, "address": 0x3D})],
            "seat 3 OLED ssd1306 at i2c-1 0x3D: this display is already seat 1's"
            " (one display per seat)",
        ),
    ],
)
def test_config_mistakes_raise_at_open_and_touch_no_bus(
    reports: Reports, clock: FakeClock, opens: list[tuple[int, dict[str, Any]]], message: str
) -> None:
    """Bad params, unsupported sizes, a seat or an address twice: one DriverValueError line."""
    bus = FakeBus(x3C=Panel(), x3D=Panel())
    hands = synchronous({1: bus, 2: bus}, reports, clock)
    *fine, (seat, params) = opens
    for ok_seat, ok_params in fine:
        hands.open(ok_seat, "ssd1306", **ok_params)
    with pytest.raises(DriverValueError) as info:
        hands.open(seat, "ssd1306", **params)
    assert str(info.value).startswith(message)
    assert bus.writes == []


@pytest.mark.parametrize(
    ("retry_ns", "max_retry_ns", "message"),
    [
        (0, SECOND, "retry_ns must be an int > 0 ns, got 0"),
        (1.5, SECOND, "retry_ns must be an int > 0 ns, got 1.5"),
        (
            SECOND,
            SECOND // 2,
            "max_retry_ns must be an int >= retry_ns (1000000000), got 500000000",
        ),
    ],
)
def test_a_bad_retry_policy_is_refused(retry_ns: Any, max_retry_ns: int, message: str) -> None:
    """retry_ns and max_retry_ns are checked before anything starts."""
    with pytest.raises(DriverValueError, match="^hand displays: " + re.escape(message)):
        HandDisplays(retry_ns=retry_ns, max_retry_ns=max_retry_ns)


def test_run_once_is_refused_on_a_threaded_writer() -> None:
    """Two senders on one bus would interleave transfers: run_once() needs thread=False."""
    with BusWriter("i2c-9") as writer:
        assert writer.threaded
        with pytest.raises(DriverValueError, match=r"run_once\(\) is for a writer made with"):
            writer.run_once()
    assert repr(writer) == "<BusWriter i2c-9 closed>"


def test_docstring_examples_hold() -> None:
    """The writer module's doctest examples give the output shown."""
    import doctest

    import drivers.i2c_writer

    result = doctest.testmod(drivers.i2c_writer, optionflags=doctest.ELLIPSIS)
    assert (result.failed, result.attempted > 0) == (0, True)
