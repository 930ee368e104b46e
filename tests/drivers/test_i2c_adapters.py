"""Wired OLEDs on I2C adapters with and without plain I2C transfers.

``smbus2.SMBus`` is replaced by :class:`FakeSMBus`, an smbus2-like bus with a ``funcs``
word, so the driver's own opening code and luma's own ``i2c`` interface run unchanged (luma
opens ``smbus2.SMBus(port)`` itself for its managed interface): an adapter with
``I2C_FUNC_I2C`` gets each frame as one ``i2c_rdwr``, an SMBus-only one (the kernel's
``i2c-stub``: functionality 0x0C7F0000) 32-byte SMBus I2C-block writes, one with neither is
refused in one line (docs/hardware-facts.md, "i2c-stub").
"""

from __future__ import annotations

import errno
import logging
import os
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
import smbus2
from PIL import Image, ImageDraw

from drivers.clock import FakeClock
from drivers.errors import DeviceUnavailableError
from drivers.hand_display import NOP, HandDisplays, display_data, open_hand_display
from drivers.i2c_writer import DisplayState

SECOND = 1_000_000_000
F = smbus2.I2cFunc
FULL = int(F.I2C | F.SMBUS_QUICK | F.SMBUS_BYTE_DATA | F.SMBUS_I2C_BLOCK)
"""An adapter with plain I2C transfers (a Pi's bcm2835 offers these and more)."""
STUB = 0x0C7F0000
"""``i2c-stub``'s functionality word: SMBus quick, byte, word and I2C-block transfers."""
PIIX4 = int(F.SMBUS_QUICK | F.SMBUS_BYTE | F.SMBUS_BYTE_DATA | F.SMBUS_WORD_DATA
            | F.SMBUS_BLOCK_DATA)
"""An SMBus host with block transfers (a count byte first) but no I2C-block writes."""
CHARGE_PUMP_ON = (0x8D, 0x14)


class Node:
    """One ``/dev/i2c-N``: its ``funcs`` word, the addresses that answer, and every
    transfer (``("block", addr, register, bytes)`` / ``("rdwr", addr, bytes)``).

    ``present``: False = the node is gone (opening raises ENOENT); ``fail``: an errno every
    transfer raises (the adapter went away); ``fail_after``: so many more transfers go
    through before ``fail`` applies.  ``opened`` / ``closed`` count the buses opened on it
    and closed."""

    def __init__(self, funcs: int, addresses: tuple[int, ...] = (0x3C, 0x3D)) -> None:
        self.funcs = funcs
        self.addresses = addresses
        self.transfers: list[tuple[Any, ...]] = []
        self.present = True
        self.fail: int | None = None
        self.fail_after = 0
        self.opened = 0
        self.closed = 0

    def transfer(self, addr: int, record: tuple[Any, ...]) -> None:
        if self.fail is not None:
            if self.fail_after > 0:
                self.fail_after -= 1
            else:
                raise OSError(self.fail, os.strerror(self.fail))
        if addr not in self.addresses:
            raise OSError(errno.ENXIO, os.strerror(errno.ENXIO))
        self.transfers.append(record)

    def data(self, addr: int = 0x3C) -> list[bytes]:
        """The display data sent to ``addr``, one entry per transfer (control byte 0x40
        dropped)."""
        out = []
        for t in self.transfers:
            if t[0] == "block" and t[1] == addr and t[2] == 0x40:
                out.append(t[3])
            elif t[0] == "rdwr" and t[1] == addr and t[2][:1] == b"\x40":
                out.append(t[2][1:])
        return out

    def commands(self, addr: int = 0x3C) -> list[bytes]:
        """The command blocks sent to ``addr`` (register 0x00)."""
        return [t[3] for t in self.transfers if t[0] == "block" and t[1] == addr and t[2] == 0]


class FakeSMBus:
    """Stands in for ``smbus2.SMBus``: ``FakeSMBus(port)`` opens :attr:`nodes` ``[port]``."""

    nodes: ClassVar[dict[int, Node]] = {}

    def __init__(self, bus: int) -> None:
        node = self.nodes.get(bus)
        if node is None or not node.present:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), f"/dev/i2c-{bus}")
        node.opened += 1
        self.node = node
        self.funcs = smbus2.I2cFunc(node.funcs)

    def write_i2c_block_data(self, addr: int, register: int, data: list[int]) -> None:
        if not self.funcs & F.SMBUS_WRITE_I2C_BLOCK and not self.funcs & F.I2C:
            raise OSError(errno.EOPNOTSUPP, os.strerror(errno.EOPNOTSUPP))
        assert len(data) <= 32
        self.node.transfer(addr, ("block", addr, register, bytes(data)))

    def i2c_rdwr(self, *msgs: Any) -> None:
        if not self.funcs & F.I2C:
            raise OSError(errno.EOPNOTSUPP, os.strerror(errno.EOPNOTSUPP))
        for msg in msgs:
            self.node.transfer(msg.addr, ("rdwr", msg.addr, bytes(msg)))

    def close(self) -> None:
        self.node.closed += 1


@pytest.fixture
def nodes(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[int, Node]]:
    """The fake ``/dev/i2c-N`` nodes by port; ``smbus2.SMBus`` opens them meanwhile."""
    made: dict[int, Node] = {}
    monkeypatch.setattr(FakeSMBus, "nodes", made)
    monkeypatch.setattr(smbus2, "SMBus", FakeSMBus)
    yield made


class Reports:
    """on_gone / on_back recorder."""

    def __init__(self) -> None:
        self.log: list[tuple[object, ...]] = []

    def gone(self, seat: int, reason: str) -> None:
        self.log.append(("gone", seat, reason))

    def back(self, seat: int) -> None:
        self.log.append(("back", seat))


def frame(x: int) -> Image.Image:
    """A 128x64 mode '1' frame: a lit column at ``x`` and a box."""
    image = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(image)
    draw.line((x, 0, x, 63), fill=1)
    draw.rectangle((40, 20, 90, 40), outline=1)
    return image


def hands_on(reports: Reports, clock: FakeClock) -> HandDisplays:
    """Hand displays with the default bus opener, without threads."""
    return HandDisplays(on_gone=reports.gone, on_back=reports.back, clock=clock, thread=False)


def settle(hands: HandDisplays, clock: FakeClock, passes: int = 8) -> None:
    """Run writer passes, moving the fake clock to each next retry."""
    for _ in range(passes):
        deadline = hands.run_once()
        if deadline is None:
            return
        clock.set(max(deadline, clock.now_ns()))


@pytest.fixture
def clock() -> FakeClock:
    """A fake clock at 100 s."""
    return FakeClock(start_ns=100 * SECOND)


def test_a_full_adapter_gets_each_frame_as_one_i2c_rdwr(
    nodes: dict[int, Node], clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    """I2C_FUNC_I2C: luma's managed interface; the frame is one transfer of 0x40 + 1024
    bytes; the bus opened to ask its functionality is closed again; logged once."""
    node = nodes[11] = Node(FULL)
    reports = Reports()
    hands = hands_on(reports, clock)
    with caplog.at_level(logging.INFO, logger="drivers.hand_display"):
        first = hands.open(0, "ssd1306", port=11, address=0x3C)
        second = hands.open(1, "ssd1306", port=11, address=0x3D)
        first.display(frame(5))
        second.display(frame(6))
        hands.run_once()
    assert reports.log == []
    assert (first.state, second.state) == (DisplayState.PRESENT, DisplayState.PRESENT)
    rdwr = [t for t in node.transfers if t[0] == "rdwr" and t[1] == 0x3C]
    assert [len(t[2]) for t in rdwr] == [1025, 1025]  # the blank first frame, then frame(5)
    assert node.data(0x3C)[-1] == display_data("ssd1306", frame(5))
    assert node.data(0x3D)[-1] == display_data("ssd1306", frame(6))
    assert not any(t[0] == "block" and t[2] == 0x40 for t in node.transfers)
    assert (node.opened, node.closed) == (4, 2)  # per panel: the funcs check, luma's own
    lines = [r.getMessage() for r in caplog.records]
    assert lines == ["OLEDs on /dev/i2c-11: plain I2C: each frame one I2C_RDWR transfer"]
    hands.close()
    assert node.closed == 4


@pytest.mark.parametrize("kind", ["ssd1306", "sh1106"])
def test_an_smbus_only_adapter_gets_frames_as_32_byte_block_writes(
    nodes: dict[int, Node], clock: FakeClock, caplog: pytest.LogCaptureFixture, kind: str
) -> None:
    """i2c-stub's functionality: commands as 0x00 blocks, data as 0x40 blocks of at most
    32 bytes whose bytes are luma's whole frame; no i2c_rdwr; logged once; close() closes
    the bus the driver opened."""
    port = 12 if kind == "ssd1306" else 13
    node = nodes[port] = Node(STUB)
    reports = Reports()
    hands = hands_on(reports, clock)
    with caplog.at_level(logging.INFO, logger="drivers.hand_display"):
        screen = hands.open(2, kind, port=port)
        hands.run_once()
        start = len(node.transfers)
        screen.display(frame(9))
        hands.run_once()
    assert reports.log == []
    assert screen.state is DisplayState.PRESENT
    assert not any(t[0] == "rdwr" for t in node.transfers)
    assert node.commands()[0] == bytes([NOP])  # the probe, then luma's init sequence
    assert node.commands()[1][:1] == b"\xae"
    assert any(CHARGE_PUMP_ON[0] in c for c in node.commands())
    sent = [t for t in node.transfers[start:] if t[0] == "block"]
    data = [t[3] for t in sent if t[2] == 0x40]
    assert {t[2] for t in sent} == {0x00, 0x40}
    assert all(1 <= len(d) <= 32 for d in data)
    assert b"".join(data) == display_data(kind, frame(9))
    assert len(b"".join(data)) == 1024
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        f"OLEDs on /dev/i2c-{port}: SMBus only (functionality 0x0C7F0000, no I2C_FUNC_I2C):"
        " frames as 32-byte SMBus I2C-block writes"
    ]
    assert (node.opened, node.closed) == (1, 0)
    hands.close()
    assert node.closed == 1


def test_open_hand_display_on_an_smbus_only_adapter(nodes: dict[int, Node]) -> None:
    """The synchronous opener takes the same path; cleanup() closes the bus."""
    node = nodes[14] = Node(STUB)
    device = open_hand_display(0, "ssd1306", port=14)
    device.display(frame(3))
    assert node.data()[-32:] and b"".join(node.data()[-32:]) == display_data("ssd1306", frame(3))
    device.cleanup()
    assert (node.opened, node.closed) == (1, 1)


def test_an_adapter_with_neither_is_one_clear_line(
    nodes: dict[int, Node], clock: FakeClock
) -> None:
    """No I2C_FUNC_I2C and no I2C-block writes: one line naming seat, bus, address and
    what the adapter lacks; nothing written, the bus closed; reported gone once."""
    node = nodes[0] = Node(PIIX4)
    line = (
        "seat 4 OLED ssd1306 at i2c-0 0x3C: /dev/i2c-0 offers neither plain I2C transfers nor"
        " SMBus I2C-block writes (functionality 0x037F0000); wire the display to another"
        " I2C bus"
    )
    with pytest.raises(DeviceUnavailableError) as info:
        open_hand_display(3, "ssd1306", port=0)
    assert str(info.value) == line
    reports = Reports()
    hands = hands_on(reports, clock)
    screen = hands.open(3, "ssd1306", port=0)
    screen.display(frame(1))
    settle(hands, clock)
    assert reports.log == [("gone", 3, line)]
    assert screen.state is DisplayState.GONE
    assert node.transfers == []
    assert node.opened == node.closed > 1


@pytest.mark.parametrize(
    ("code", "reopened"), [(errno.ENODEV, True), (errno.ENXIO, True), (errno.EIO, False)]
)
def test_an_smbus_only_adapter_going_away_mid_frame_and_back(
    nodes: dict[int, Node], clock: FakeClock, code: int, reopened: bool
) -> None:
    """The adapter fails inside a frame's data and its node goes: gone once; when it is
    back the panel gets its init sequence again and the newest frame whole, then back.  A
    bus error other than a NAK (ENODEV, ENXIO) reopens the node; EIO (luma's NAK) keeps
    the bus open."""
    node = nodes[1] = Node(STUB)
    reports = Reports()
    hands = hands_on(reports, clock)
    screen = hands.open(0, "ssd1306", port=1)
    screen.display(frame(1))
    hands.run_once()
    node.fail, node.fail_after = code, 3 + 5  # the frame's address window, then 5 blocks
    screen.display(frame(2))
    hands.run_once()
    node.present = False
    reason = (
        f"seat 1 OLED ssd1306 at i2c-1 0x3C: stopped answering ([Errno {code}]"
        f" {os.strerror(code)}) — check its cable"
    )
    assert reports.log == [("gone", 0, reason)]
    assert screen.state is DisplayState.GONE
    screen.display(frame(3))
    settle(hands, clock, passes=3)
    assert reports.log == [("gone", 0, reason)]
    node.present, node.fail = True, None
    start = len(node.transfers)
    settle(hands, clock)
    assert reports.log == [("gone", 0, reason), ("back", 0)]
    assert screen.state is DisplayState.PRESENT
    after = node.transfers[start:]
    assert any(t[0] == "block" and t[2] == 0 and t[3][:2] == b"\xae\xd5" for t in after)
    assert any(t[0] == "block" and t[2] == 0 and bytes(CHARGE_PUMP_ON) in t[3] for t in after)
    data = [t[3] for t in after if t[0] == "block" and t[2] == 0x40]
    assert b"".join(data[-32:]) == display_data("ssd1306", frame(3))
    assert (node.opened > 1) is reopened
    hands.close()
    assert node.opened == node.closed
