"""Serial handhelds over real pty pairs: sessions, changed pages only, keys exactly once,
unplug and re-plug under a new path, and every kind of bad input counted, logged once and
survived.

The handheld side is a scripted peer on the pty's master fd, built from the codec's
handheld-side helpers (``KeySender``, ``Decoder(receiver="handheld")``, ``apply_frame``).
Closing the master is an unplug: pyserial's ``read()`` then raises (docs/hardware-facts.md,
"pyserial").  The driver runs with ``thread=False`` on a :class:`~drivers.clock.FakeClock`,
one ``run_once`` per step; a pty delivers bytes through a kernel work queue, so each side
waits (with a timeout) until the other's bytes have arrived before going on: every step is
deterministic.  One test runs the real link thread and waits on conditions.
"""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import select
import struct
import termios
import threading
import time
import tty
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import serial  # type: ignore[import-untyped]
from PIL import Image, ImageDraw

from drivers.clock import FakeClock, MonotonicClock
from drivers.errors import DriverClosedError, DriverValueError, NotWiredError
from drivers.handheld_codec import (
    Ack,
    Decoder,
    Frame,
    FrameRequest,
    Hello,
    Key,
    KeySender,
    MsgType,
    Nak,
    NakReason,
    Packet,
    Ping,
    Pong,
    Welcome,
    apply_frame,
    blank_pages,
    encode,
    image_pages,
)
from drivers.keys import KeyPress
from drivers.serial_handheld import (
    FIRST_CONNECT_NS,
    QUIET_RETRY_NS,
    SCAN_NS,
    SerialHandheldDisplay,
    SerialHandhelds,
    SerialStats,
)

MS = 1_000_000
SECOND = 1_000 * MS
WAIT_S = 5.0
"""How long a test waits for bytes to cross a pty or for the link thread (seconds)."""


def _queued(fd: int) -> int:
    """Bytes waiting in a tty's input queue (FIONREAD)."""
    return int(struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0])


def _wait_until(cond: Callable[[], bool], what: str, timeout_s: float = WAIT_S) -> None:
    """Wait for ``cond()``; fail naming ``what`` after ``timeout_s``.

    The kernel offers no event for "N bytes are in the queue", so this checks every 0.5 ms.
    """
    end = time.monotonic() + timeout_s
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.0005)


class Peer:
    """A scripted serial handheld on the master side of a fresh pty.

    ``name``: the path the driver sees (the pty's slave, or ``alias`` for a by-id symlink);
    ``keys``: its :class:`KeySender`; ``pages``: its framebuffer; ``session``: it has had a
    WELCOME since its last NAK HELLO_FIRST.  Knobs: ``answer`` (answer PINGs), ``ack_frames``
    (ACK FRAMEs), ``take_key_acks`` (False: ACKs of KEY are "lost").
    """

    def __init__(self, hid: str = "hh-A", *, boot_id: int = 0x1A2B3C4D,
                 keys: KeySender | None = None, versions: tuple[int, int] = (1, 1),
                 screen: tuple[int, int] = (128, 64), sync: bool = True) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        self.name = self.path
        self.hid = hid
        self.keys = keys if keys is not None else KeySender(boot_id=boot_id)
        self.versions = versions
        self.screen = screen
        self.sync = sync
        self.decoder = Decoder(receiver="handheld")
        self.pages = blank_pages()
        self.session = False
        self.answer = True
        self.ack_frames = True
        self.take_key_acks = True
        self.hello_seq = 0
        self.t_ms = 5000
        self.rx = 0
        self.raw = bytearray()
        self.received: list[Packet] = []
        self.frames: list[tuple[int, Frame]] = []
        self.frame_wire: list[int] = []
        self.naks: list[Nak] = []
        self.welcomes: list[Welcome] = []
        self.key_acks: list[int] = []
        self.open = True

    # --- sending ---------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        """Write ``data`` to the Pi; with ``sync``, wait until all of it is readable there."""
        before = _queued(self.slave) if self.sync else 0
        os.write(self.master, data)
        if self.sync:
            _wait_until(lambda: _queued(self.slave) >= before + len(data),
                        f"{len(data)} bytes to reach {self.path}")

    def send(self, msg: Any, seq: int) -> None:
        """Encode ``msg`` with ``seq`` and write it."""
        self.write(encode(msg, seq))

    def hello(self) -> None:
        """Say HELLO (its id, boot, next_key_seq, versions, screen)."""
        self.send(Hello(handheld_id=self.hid, firmware="1.0.0", boot_id=self.keys.boot_id,
                        next_key_seq=self.keys.next_key_seq, version_min=self.versions[0],
                        version_max=self.versions[1], width=self.screen[0],
                        height=self.screen[1]), self.hello_seq)
        self.hello_seq += 1

    def press(self, key: str, down: bool = True, *, send: bool = True) -> int:
        """Queue a key edge (sent at once in a session when ``send``); returns its seq."""
        self.t_ms += 10
        item = self.keys.press(key, down, self.t_ms)
        assert item is not None
        if send and self.session:
            self.send(item[1], item[0])
        return item[0]

    def resend_keys(self) -> None:
        """Resend every unacknowledged KEY, oldest first (the 100 ms resend)."""
        for seq, key in self.keys.pending():
            self.send(key, seq)

    # --- receiving -------------------------------------------------------------------

    def pump(self, hh: SerialHandhelds) -> list[Packet]:
        """Read everything the driver has written to this port and answer it."""
        want = hh.stats().written.get(self.name, 0)
        data = bytearray()
        end = time.monotonic() + WAIT_S
        while self.rx + len(data) < want:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{self.path}: got {self.rx + len(data)} of {want} bytes")
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                data += os.read(self.master, 65536)
        self.rx += len(data)
        self.raw += data
        packets = self.decoder.feed(bytes(data))
        for packet in packets:
            self.received.append(packet)
            self._answer(packet)
        return packets

    def _answer(self, packet: Packet) -> None:
        msg, seq = packet.msg, packet.seq
        if isinstance(msg, Ping):
            if not self.answer:
                return
            if self.session:
                self.send(Pong(t_ms=self.t_ms), seq)
            else:
                self.hello()
        elif isinstance(msg, Welcome):
            self.session = True
            self.welcomes.append(msg)
            self.keys.welcome(msg)
            self.resend_keys()
        elif isinstance(msg, Nak):
            self.naks.append(msg)
            if msg.reason is NakReason.HELLO_FIRST:
                self.session = False
                self.hello()
        elif isinstance(msg, Frame):
            self.frames.append((seq, msg))
            self.frame_wire.append(len(encode(msg, seq)))
            if self.session:
                self.pages = apply_frame(self.pages, msg)
                if self.ack_frames:
                    self.send(Ack(of=MsgType.FRAME), seq)
        elif isinstance(msg, Ack) and msg.of is MsgType.KEY:
            self.key_acks.append(seq)
            if self.take_key_acks:
                self.keys.acked(seq)

    def unplug(self) -> None:
        """Pull the cable: close the pty (its path goes away)."""
        if self.open:
            self.open = False
            os.close(self.master)
            os.close(self.slave)


class Rig:
    """A driver on a fake clock plus what it reported: ``events`` (posted), ``gone``
    (``(seat, reason)``), ``back`` (seats); ``ports``: the listing the driver scans."""

    def __init__(self, wanted: dict[int, str], *, open_port: Any = None,
                 clock: FakeClock | None = None) -> None:
        self.clock = clock if clock is not None else FakeClock(start_ns=100 * SECOND)
        self.ports: list[str] = []
        self.events: list[KeyPress] = []
        self.gone: list[tuple[int, str]] = []
        self.back: list[int] = []
        self.hh = SerialHandhelds(
            wanted, post=self.events.append,  # type: ignore[arg-type]
            on_gone=lambda seat, reason: self.gone.append((seat, reason)),
            on_back=self.back.append, clock=self.clock, ports=lambda: list(self.ports),
            thread=False, **({"open_port": open_port} if open_port else {}))
        self.peers: list[Peer] = []

    def plug(self, peer: Peer) -> Peer:
        """List ``peer``'s port (the next scan finds it)."""
        self.ports.append(peer.name)
        self.peers.append(peer)
        peer.rx = self.hh.stats().written.get(peer.name, 0)  # a by-id name may be reused
        return peer

    def unplug(self, peer: Peer) -> None:
        """Pull ``peer``: its pty closes and its path leaves the listing."""
        peer.unplug()
        self.ports.remove(peer.name)

    def step(self, rounds: int = 4) -> None:
        """``rounds`` times: one driver pass, then every plugged peer reads and answers."""
        for _ in range(rounds):
            self.hh.run_once(self.clock.now_ns())
            for peer in self.peers:
                if peer.open:
                    peer.pump(self.hh)

    def advance(self, ns: int, step_ns: int = 250 * MS, rounds: int = 4) -> None:
        """Move the clock ``ns`` forward in steps of ``step_ns``, stepping after each."""
        target = self.clock.now_ns() + ns
        while self.clock.now_ns() < target:
            self.clock.set(min(target, self.clock.now_ns() + step_ns))
            self.step(rounds)

    @property
    def stats(self) -> SerialStats:
        """The driver's counters."""
        return self.hh.stats()


@pytest.fixture
def rigs() -> Iterator[Callable[..., Rig]]:
    """Make rigs; every driver is closed and every pty unplugged afterwards."""
    made: list[Rig] = []

    def make(wanted: dict[int, str], **kwargs: Any) -> Rig:
        rig = Rig(wanted, **kwargs)
        made.append(rig)
        return rig

    yield make
    for rig in made:
        rig.hh.close()
        for peer in rig.peers:
            peer.unplug()


def _picture(cursor: int = 0, text: str = "hand") -> Image.Image:
    """A 128x64 hand screen: a word on pages 0-1 and a cursor bar on page 7 at ``cursor``."""
    image = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(image)
    draw.text((2, 1), text, fill=1)
    draw.rectangle((cursor * 20, 58, cursor * 20 + 16, 62), fill=1)
    return image


def _connect(rig: Rig, peer: Peer, device: SerialHandheldDisplay | None = None,
             image: Image.Image | None = None) -> Peer:
    """Plug ``peer``, optionally show ``image`` first, run until the session is up; returns
    ``peer``."""
    if device is not None and image is not None:
        device.display(image)
    if peer.name not in rig.ports:
        rig.plug(peer)
    rig.step()
    assert peer.session
    return peer


# --- connecting and pictures ---------------------------------------------------------------


def test_connect_welcomes_and_sends_the_whole_newest_frame(rigs: Callable[..., Rig]) -> None:
    """A picture given before the handheld is there reaches it whole after the WELCOME."""
    rig = rigs({2: "hh-A"})
    device = rig.hh.open(2)
    device.display(_picture(0, "old"))
    device.display(_picture(1, "new"))  # the newest picture wins
    peer = _connect(rig, Peer("hh-A"))
    # a 0x00 first ends whatever half packet the handheld holds, then a PING
    assert peer.raw.startswith(b"\x00" + encode(Ping(), 0))
    assert peer.welcomes == [Welcome(version=1, key_ack=0xFFFF)]
    assert [f.mask for _, f in peer.frames] == [0xFF]
    # 1,030 body bytes; COBS adds one code byte (more only for runs of 254 non-zero bytes)
    # and the delimiter: 1,032 to 1,036 bytes on the wire
    assert len(peer.frame_wire) == 1 and 1032 <= peer.frame_wire[0] <= 1036
    assert peer.pages == image_pages(_picture(1, "new"))
    stats = rig.stats.seats[2]
    assert stats.connected and stats.port == peer.path and stats.handheld_id == "hh-A"
    assert (stats.sessions, stats.frames_sent, stats.frames_acked) == (1, 1, 1)
    assert rig.hh.connected(2) and device.connected
    assert rig.gone == [] and rig.back == []  # never reported gone, so no "back" either
    assert rig.hh.open(2) is device


def test_a_cursor_move_sends_only_the_changed_page(rigs: Callable[..., Rig]) -> None:
    """Moving the cursor changes page 7 only: one 136-byte FRAME instead of 1,036 bytes."""
    rig = rigs({0: "hh-A"})
    device = rig.hh.open(0)
    peer = Peer("hh-A")
    _connect(rig, peer, device, _picture(0))
    before = rig.stats.seats[0].frame_bytes
    device.display(_picture(1))
    rig.step()
    assert [f.mask for _, f in peer.frames[1:]] == [1 << 7]
    assert peer.frame_wire[1:] == [136]
    assert rig.stats.seats[0].frame_bytes - before == 136
    assert peer.pages == image_pages(_picture(1))
    device.display(_picture(1))  # the same picture again: nothing goes out
    rig.step()
    assert len(peer.frames) == 2
    device.display(_picture(1, "xy"))  # the word's pages 0 and 1
    rig.step()
    assert peer.frames[-1][1].mask == 0b11
    assert peer.pages == image_pages(_picture(1, "xy"))


def test_an_unacknowledged_frame_is_replaced_after_250_ms(rigs: Callable[..., Rig]) -> None:
    """No ACK: 250 ms later a fresh FRAME (new seq) carries the pages in doubt, newest wins."""
    rig = rigs({0: "hh-A"})
    device = rig.hh.open(0)
    peer = Peer("hh-A")
    _connect(rig, peer, device, _picture(0))
    peer.ack_frames = False
    device.display(_picture(1))
    rig.step()
    device.display(_picture(2))  # while the first is out: nothing more is sent yet
    rig.step()
    assert len(peer.frames) == 2
    rig.clock.advance(249 * MS)
    rig.step()
    assert len(peer.frames) == 2
    peer.ack_frames = True
    rig.clock.advance(1 * MS)
    rig.step()
    (seq1, _), (seq2, resent) = peer.frames[1], peer.frames[2]
    assert seq2 == seq1 + 1 and resent.mask == 1 << 7
    assert peer.pages == image_pages(_picture(2))
    assert rig.stats.seats[0].frame_resends == 1


def test_frame_request_gets_every_page(rigs: Callable[..., Rig]) -> None:
    """A handheld that lost its picture asks, and gets all 8 pages again."""
    rig = rigs({0: "hh-A"})
    device = rig.hh.open(0)
    peer = Peer("hh-A")
    _connect(rig, peer, device, _picture(0))
    peer.pages = blank_pages()
    peer.send(FrameRequest(), 0)
    rig.step()
    assert peer.frames[-1][1].mask == 0xFF
    assert peer.pages == image_pages(_picture(0))


def test_display_checks_its_picture_and_the_driver_checks_its_arguments(
        rigs: Callable[..., Rig]) -> None:
    """Wrong pictures, seats and ids are one-line errors naming what is wrong."""
    rig = rigs({1: "hh-A"})
    device = rig.hh.open(1)
    with pytest.raises(DriverValueError, match=r"seat 2 serial handheld hh-A: frame is L "
                                               r"128x64, the screen takes 1 128x64"):
        device.display(Image.new("L", (128, 64)))
    with pytest.raises(DriverValueError, match="frame is 1 128x32"):
        device.display(Image.new("1", (128, 32)))
    with pytest.raises(NotWiredError, match=r"seat 0 has no serial handheld \(serial seats: 2\)"):
        rig.hh.open(0)
    with pytest.raises(DriverValueError, match="given to seat 1 too"):
        SerialHandhelds({0: "x", 1: "x"}, post=print, thread=False)
    with pytest.raises(DriverValueError, match="without spaces"):
        SerialHandhelds({0: "a b"}, post=print, thread=False)
    with pytest.raises(DriverValueError, match="seat must be an int >= 0, got -1"):
        SerialHandhelds({-1: "x"}, post=print, thread=False)
    rig.hh.close()
    rig.hh.close()  # idempotent
    with pytest.raises(DriverClosedError):
        device.display(_picture())
    with pytest.raises(DriverClosedError):
        rig.hh.run_once(rig.clock.now_ns())


# --- keys -------------------------------------------------------------------------------------


def _keys(rig: Rig) -> list[tuple[int, str, bool]]:
    return [(e.seat, e.key, e.repeat) for e in rig.events]


def test_keys_are_applied_once_across_lost_acks_duplicates_and_gaps(
        rigs: Callable[..., Rig], caplog: pytest.LogCaptureFixture) -> None:
    """Resends, a lost ACK and a lost KEY: each DOWN is posted once, in order; each KEY
    applied is one INFO line naming the seat, its seq, key and edge (the log a test on real
    USB matches against what the handheld sent), a resend none."""
    caplog.set_level(logging.INFO, logger="drivers.serial_handheld")
    rig = rigs({0: "hh-A"})
    peer = Peer("hh-A")
    _connect(rig, peer)
    peer.take_key_acks = False
    peer.press("select")
    rig.step()
    peer.resend_keys()  # its ACK was lost: the same KEY again
    rig.step()
    assert _keys(rig) == [(0, "select", False)]
    assert peer.key_acks == [0, 0]
    peer.take_key_acks = True
    peer.resend_keys()
    rig.step()
    assert peer.keys.pending() == []
    peer.press("left")                     # seq 1
    peer.press("left", False, send=False)  # seq 2: lost on the way
    peer.press("right")                    # seq 3: a gap, not applied
    rig.step()
    assert _keys(rig) == [(0, "select", False), (0, "left", False)]
    peer.resend_keys()  # 2 and 3
    rig.step()
    assert _keys(rig) == [(0, "select", False), (0, "left", False), (0, "right", False)]
    stats = rig.stats.seats[0]
    assert (stats.keys_applied, stats.keys_duplicate, stats.keys_gap) == (4, 2, 1)
    assert stats.keys_posted == 3
    assert all(e.t_ns == rig.clock.now_ns() for e in rig.events)  # our clock, not the handheld's
    applied = [r.getMessage().split(": KEY ", 1)[1] for r in caplog.records
               if ": KEY seq " in r.getMessage() and r.getMessage().endswith(" applied")]
    assert applied == ["seq 0 select down applied", "seq 1 left down applied",
                       "seq 2 left up applied", "seq 3 right down applied"]
    assert all(r.getMessage().startswith("seat 1 serial handheld") for r in caplog.records
               if r.getMessage().endswith(" applied"))


def test_a_replayed_key_and_a_late_frame_ack_change_nothing(rigs: Callable[..., Rig]) -> None:
    """A KEY packet replayed byte for byte is a duplicate; an ACK of an old FRAME is ignored."""
    rig = rigs({0: "hh-A"})
    device = rig.hh.open(0)
    peer = Peer("hh-A")
    _connect(rig, peer, device, _picture(0))
    seq = peer.press("back")
    rig.step()
    old_frame_seq = peer.frames[-1][0]
    peer.ack_frames = False
    device.display(_picture(3))
    rig.step()
    peer.write(encode(Key(key="back", down=True, t_ms=peer.t_ms), seq) * 3)  # replayed
    peer.send(Ack(of=MsgType.FRAME), old_frame_seq)  # late, for a frame already acknowledged
    rig.step()
    assert _keys(rig) == [(0, "back", False)]
    assert rig.stats.seats[0].keys_duplicate == 3
    assert rig.stats.seats[0].frames_acked == 1  # only the first, whole frame


def test_a_restarted_handheld_starts_its_keys_over(rigs: Callable[..., Rig]) -> None:
    """A new boot_id is a new key counter: its seq 0 is new, not a duplicate."""
    rig = rigs({0: "hh-A"})
    device = rig.hh.open(0)
    peer = Peer("hh-A", boot_id=1)
    _connect(rig, peer, device, _picture(2))
    peer.press("select")
    peer.press("select", False)
    rig.step()
    # its program restarted while USB stayed up (a soft reset): a new boot, counter at 0,
    # an empty framebuffer, and a HELLO on the same port
    peer.keys = KeySender(boot_id=2)
    peer.session = False
    peer.pages = blank_pages()
    peer.hello()
    rig.step()
    peer.press("right")
    rig.step()
    assert _keys(rig) == [(0, "select", False), (0, "right", False)]
    assert peer.welcomes[-1].key_ack == 0xFFFF
    assert peer.frames[-1][1].mask == 0xFF and peer.pages == image_pages(_picture(2))
    assert rig.gone == []  # the link never dropped


def test_an_impostor_with_the_same_id_does_not_make_the_real_handhelds_keys_count_twice(
        rigs: Callable[..., Rig]) -> None:
    """Handheld A applies keys whose ACKs are lost, is pulled; B, another board with A's id
    and its own boot, holds the seat and plays; A comes back (the same power-up) and resends
    its unacknowledged keys: each of A's keys is applied once, B's once."""
    rig = rigs({0: "hh-A"})
    real = Peer("hh-A", boot_id=0xA)
    _connect(rig, real)
    real.take_key_acks = False
    real.press("select")
    real.press("select", False)
    real.press("left")
    rig.step()
    assert _keys(rig) == [(0, "select", False), (0, "left", False)]
    assert len(real.keys.pending()) == 3  # applied, but not one ACK arrived
    rig.unplug(real)
    rig.step()
    impostor = Peer("hh-A", boot_id=0xB)
    rig.plug(impostor)
    rig.advance(SCAN_NS)
    assert impostor.session
    impostor.press("right")
    rig.step()
    rig.unplug(impostor)
    rig.step()
    back = Peer("hh-A", keys=real.keys)  # A again: the same power-up, the same key queue
    back.hello_seq = real.hello_seq
    rig.plug(back)
    rig.advance(SCAN_NS)
    assert back.session
    back.take_key_acks = True
    back.resend_keys()
    rig.step()
    assert _keys(rig) == [(0, "select", False), (0, "left", False), (0, "right", False)]
    assert back.welcomes[-1].key_ack == 2  # A's 0..2 were applied before the impostor came
    assert back.keys.pending() == []


def test_a_board_that_repeats_its_boot_id_has_its_keys_applied_after_a_restart(
        rigs: Callable[..., Rig]) -> None:
    """A firmware whose random is not seeded draws the same boot_id at every power-up: its
    second boot starts its KEY and HELLO counters at 0 again, and its keys still count."""
    rig = rigs({0: "hh-A"})
    first = Peer("hh-A", boot_id=0x5EED)
    _connect(rig, first)
    for _ in range(3):
        first.press("select")
        first.press("select", False)
    rig.step()
    assert _keys(rig) == [(0, "select", False)] * 3
    rig.unplug(first)
    rig.step()
    again = Peer("hh-A", boot_id=0x5EED)  # power-up: counters at 0, the same boot_id
    rig.plug(again)
    rig.advance(SCAN_NS)
    assert again.session
    again.press("left")
    again.press("left", False)
    again.press("right")
    rig.step()
    assert _keys(rig) == [(0, "select", False)] * 3 + [(0, "left", False), (0, "right", False)]
    assert again.welcomes[-1].key_ack == 0xFFFF
    assert again.keys.pending() == []


def test_a_restart_on_the_same_port_with_a_repeated_boot_id_starts_its_keys_over(
        rigs: Callable[..., Rig]) -> None:
    """The same boot_id after a soft reset with USB up (no unplug): its HELLO counter starts
    again, so its keys from seq 0 are new, and its queue is not jammed by duplicates."""
    rig = rigs({0: "hh-A"})
    peer = Peer("hh-A", boot_id=0x5EED)
    _connect(rig, peer)
    for _ in range(2):
        peer.press("back")
        peer.press("back", False)
    rig.step()
    peer.keys = KeySender(boot_id=0x5EED)
    peer.session = False
    peer.hello_seq = 0
    peer.hello()
    rig.step()
    peer.press("select")
    rig.step()
    assert _keys(rig) == [(0, "back", False)] * 2 + [(0, "select", False)]
    assert peer.keys.pending() == []


def test_held_keys_repeat_and_a_long_back_opens_the_menu(rigs: Callable[..., Rig]) -> None:
    """LEFT held repeats after 400 ms then every 120 ms; BACK held 2 s posts 'menu' once."""
    rig = rigs({0: "hh-A"})
    peer = Peer("hh-A")
    _connect(rig, peer)
    t0 = rig.clock.now_ns()
    peer.press("left")
    rig.step()
    for at in (399, 400, 520, 640):  # each due repeat waits for the handheld's answer
        rig.clock.set(t0 + at * MS)     # to a PING: a pass, the answer, the next pass
        rig.step(2)
    rig.clock.set(t0 + 950 * MS)  # a late pass: one repeat, at the latest scheduled time
    rig.step(2)
    peer.press("left", False)
    rig.step()
    rig.clock.set(t0 + 1500 * MS)
    rig.step()
    assert [(e.key, e.repeat, e.t_ns - t0) for e in rig.events] == [
        ("left", False, 0), ("left", True, 400 * MS), ("left", True, 520 * MS),
        ("left", True, 640 * MS), ("left", True, 880 * MS)]
    rig.events.clear()
    peer.press("back")
    rig.step()
    rig.advance(1999 * MS)  # heartbeats go on meanwhile (a jump past 1.5 s is a lost link)
    assert [e.key for e in rig.events] == ["back"]
    rig.advance(201 * MS)
    rig.advance(3 * SECOND)
    assert [(e.key, e.t_ns - t0) for e in rig.events] == [("back", 1500 * MS),
                                                          ("menu", 3500 * MS)]
    rig.events.clear()
    peer.press("back", False)
    peer.press("right")
    rig.step()
    rig.unplug(peer)  # a held key ends with its handheld: no repeats while it is gone
    rig.advance(2 * SECOND)
    assert [e.key for e in rig.events] == ["right"]


def test_a_held_key_does_not_repeat_once_the_handheld_goes_silent(
        rigs: Callable[..., Rig]) -> None:
    """A cable pulled silently while LEFT is held (nothing more arrives, the port reports
    nothing): no repeat in the 1.5 s before the link is declared gone."""
    rig = rigs({0: "hh-A"})
    peer = _connect(rig, Peer("hh-A"))
    peer.press("left")
    rig.advance(300 * MS, step_ns=10 * MS, rounds=2)  # PINGs answered: the link is alive
    peer.answer = False  # the cable is pulled: not one byte more comes from the handheld
    rig.advance(1550 * MS, step_ns=10 * MS, rounds=2)  # until the link is declared gone
    assert [(e.key, e.repeat) for e in rig.events] == [("left", False)]
    assert rig.gone and rig.gone[0][1].startswith("seat 1 serial handheld hh-A: no answer")


def test_a_key_before_hello_is_answered_hello_first(rigs: Callable[..., Rig]) -> None:
    """A handheld that thinks it has a session is told to say HELLO first, then is welcomed."""
    rig = rigs({0: "hh-A"})
    peer = rig.plug(Peer("hh-A"))
    peer.answer = False
    rig.step(1)
    peer.session = True  # it believes in a session from before the Pi restarted
    peer.press("select")
    rig.step(3)
    assert NakReason.HELLO_FIRST in [n.reason for n in peer.naks]
    assert peer.session and rig.hh.connected(0)
    assert _keys(rig) == [(0, "select", False)]  # resent after the WELCOME, applied once


# --- unplug and re-plug -----------------------------------------------------------------------


def test_unplug_is_seen_at_once_and_a_replug_under_a_new_path_resumes(
        rigs: Callable[..., Rig]) -> None:
    """Closing the pty reports the seat gone on the next pass; the still-powered handheld
    on a NEW path is the same seat: whole frame resent, keys go on exactly once."""
    rig = rigs({1: "hh-A"})
    device = rig.hh.open(1)
    first = Peer("hh-A", boot_id=77)
    _connect(rig, first, device, _picture(0))
    first.press("select")
    rig.step()
    first.take_key_acks = False
    first.press("left")  # applied, but its ACK is lost with the cable
    rig.step()
    assert _keys(rig) == [(1, "select", False), (1, "left", False)]
    second = Peer("hh-A", keys=first.keys)  # the same power-up, so the same key queue
    second.hello_seq = first.hello_seq  # and the same HELLO counter
    assert second.path != first.path  # opened while the first still holds its node
    rig.unplug(first)
    rig.hh.run_once(rig.clock.now_ns())
    assert len(rig.gone) == 1
    seat, reason = rig.gone[0]
    assert seat == 1
    assert reason.startswith(f"seat 2 serial handheld hh-A: unplugged from {first.path} "
                             "(read failed: ")
    assert not rig.hh.connected(1)
    device.display(_picture(2))  # the game goes on meanwhile
    second.press("right", send=False)  # pressed while unplugged
    rig.plug(second)
    rig.advance(SCAN_NS)
    assert rig.back == [1]
    assert second.welcomes[-1].key_ack == 1  # select 0 and left 1 were applied
    assert [f.mask for _, f in second.frames] == [0xFF]
    assert second.pages == image_pages(_picture(2))
    second.press("select")
    rig.step()
    assert _keys(rig) == [(1, "select", False), (1, "left", False), (1, "right", False),
                          (1, "select", False)]
    stats = rig.stats.seats[1]
    assert (stats.sessions, stats.gone, stats.port) == (2, 1, second.path)


def test_silence_is_gone_after_1_5_s_of_the_fake_clock(
        rigs: Callable[..., Rig], caplog: pytest.LogCaptureFixture) -> None:
    """A handheld that stops answering is reported gone at 1.5 s, not before, once."""
    rig = rigs({0: "hh-A"})
    peer = Peer("hh-A")
    _connect(rig, peer)
    last = rig.clock.now_ns()
    peer.answer = False
    rig.advance(1250 * MS)
    assert rig.gone == []
    rig.clock.set(last + 1500 * MS - 1)
    rig.step(1)
    assert rig.gone == []
    rig.clock.set(last + 1500 * MS)
    rig.step(1)
    assert rig.gone == [(0, f"seat 1 serial handheld hh-A: no answer for 1.5 s on "
                            f"{peer.path} — check its USB cable")]
    opened = rig.stats.opened
    with caplog.at_level(logging.WARNING, logger="drivers.serial_handheld"):
        rig.advance(2 * SECOND)
    assert len(rig.gone) == 1  # reported once, although the port is opened again
    assert rig.stats.opened == opened + 1  # a handheld seen before: no back-off
    assert caplog.records == []  # and no "not a handheld?" line about it
    peer.answer = True
    rig.advance(SCAN_NS)
    assert rig.back == [0] and rig.hh.connected(0)


def test_pings_go_out_every_250_ms_and_pongs_keep_the_link(rigs: Callable[..., Rig]) -> None:
    """Eight seconds of heartbeats: one PING per 250 ms, no gone report, an RTT measured."""
    rig = rigs({0: "hh-A"})
    peer = Peer("hh-A")
    _connect(rig, peer)
    pings = sum(isinstance(p.msg, Ping) for p in peer.received)
    now = rig.clock.now_ns()
    assert rig.hh.run_once(now) == now + 250 * MS  # the next PING is the next deadline
    rig.advance(8 * SECOND)
    assert sum(isinstance(p.msg, Ping) for p in peer.received) - pings == 32
    assert rig.gone == []
    assert rig.stats.seats[0].rtt_ns == 0  # the fake clock did not move within a step


def test_a_by_id_symlink_keeps_its_seat_when_it_points_at_a_new_node(
        rigs: Callable[..., Rig], tmp_path: Path) -> None:
    """Wanted by its by-id path: matched by path before HELLO, and again after a re-plug
    under another node; the bare by-id name works as well."""
    link = tmp_path / "usb-Party_Handheld_e661-if00"
    rig = rigs({0: str(link), 1: "usb-Party_Handheld_f00d-if00"})
    first = Peer("e661")
    link.symlink_to(first.path)
    first.name = str(link)
    _connect(rig, first)
    assert rig.stats.seats[0].port == str(link)
    rig.unplug(first)
    rig.step(1)
    assert rig.gone[0][1].startswith("seat 1 serial handheld "
                                     f"{link}: unplugged from {link} (read failed:")
    second = Peer("e661-renamed")  # the path decides, whatever the HELLO id
    link.unlink()
    link.symlink_to(second.path)
    second.name = str(link)
    rig.plug(second)
    rig.advance(SCAN_NS)
    assert rig.back == [0] and rig.hh.connected(0)
    bare = tmp_path / "usb-Party_Handheld_f00d-if00"
    third = Peer("f00d")
    bare.symlink_to(third.path)
    third.name = str(bare)
    rig.plug(third)
    rig.advance(SCAN_NS)
    assert rig.hh.connected(1)
    assert rig.stats.seats[1].port == str(bare)


def test_ports_nobody_names_are_left_alone_when_every_seat_names_a_path(
        rigs: Callable[..., Rig], tmp_path: Path) -> None:
    """Seats wanted by path only: a stranger's port is never opened (opening pokes DTR)."""
    link = tmp_path / "usb-Party_Handheld_e661-if00"
    rig = rigs({0: str(link)})
    mine, stranger = Peer("e661"), Peer("hh-Z")
    link.symlink_to(mine.path)
    mine.name = str(link)
    rig.plug(stranger)
    _connect(rig, mine)
    rig.advance(2 * SECOND)
    assert rig.stats.opened == 1 and stranger.rx == 0 and rig.hh.connected(0)


def test_a_missing_handheld_is_reported_after_3_s_and_back_when_it_comes(
        rigs: Callable[..., Rig]) -> None:
    """No port at all: one gone report naming the id, then back when it is plugged in."""
    rig = rigs({0: "hh-A"})
    rig.advance(FIRST_CONNECT_NS - 250 * MS)
    assert rig.gone == []
    rig.advance(250 * MS)
    assert rig.gone == [(0, "seat 1 serial handheld hh-A: not connected 3 s after start (no "
                            "handheld with id hh-A on any port) — check its USB cable")]
    rig.plug(Peer("hh-A"))
    rig.advance(SCAN_NS)
    assert rig.back == [0]


# --- bad input --------------------------------------------------------------------------------


def test_garbage_truncated_and_oversized_input_is_counted_and_survived(
        rigs: Callable[..., Rig], caplog: pytest.LogCaptureFixture) -> None:
    """Garbage, a cut packet, 2,000 bytes without a delimiter and a corrupted KEY: counted
    per reason, answered NAK CORRUPT once, a few log lines; the next good KEY is applied."""
    rig = rigs({0: "hh-A"})
    peer = Peer("hh-A")
    _connect(rig, peer)
    good = encode(Key(key="select", down=True, t_ms=1), 0)
    flipped = bytearray(good)
    flipped[5] ^= 0x01
    junk = (b"\x13\x37garbage\x00" + good[:6] + b"\x00" + bytes([0x41]) * 2000 + b"\x00"
            + bytes(flipped) + b"MicroPython v1.22 >>> \r\n\x00")
    with caplog.at_level(logging.WARNING, logger="drivers.serial_handheld"):
        peer.write(junk)
        rig.step(2)
        peer.press("right")
        rig.step()
    bad = rig.stats.seats[0].bad
    assert bad["oversized"] == 1 and bad["bad_crc"] >= 1 and sum(bad.values()) >= 4
    assert [n.reason for n in peer.naks] == [NakReason.CORRUPT]  # at most one per 250 ms
    assert _keys(rig) == [(0, "right", False)]
    assert rig.hh.connected(0) and rig.gone == []
    lines = [r.getMessage() for r in caplog.records]
    assert 1 <= len(lines) <= 3
    assert all(line.startswith(f"seat 1 serial handheld hh-A on {peer.path}: packet at stream "
                               "byte ") for line in lines)
    rig.clock.advance(SECOND)
    with caplog.at_level(logging.WARNING, logger="drivers.serial_handheld"):
        rig.step(1)
    assert caplog.records[-1].getMessage().endswith("more bad packets in the last second")


def test_an_unknown_protocol_version_is_refused_with_one_line(
        rigs: Callable[..., Rig], caplog: pytest.LogCaptureFixture) -> None:
    """A handheld speaking only version 3 gets NAK VERSION naming both sides, one log line,
    no session; the seat's gone report says why."""
    rig = rigs({0: "hh-A"})
    peer = Peer("hh-A", versions=(3, 3))
    with caplog.at_level(logging.WARNING, logger="drivers.serial_handheld"):
        rig.plug(peer)
        rig.advance(FIRST_CONNECT_NS)
    text = "protocol version 3 not supported (this Pi speaks 1)"
    assert peer.naks and all(n == Nak(of=MsgType.HELLO, reason=NakReason.VERSION, text=text)
                             for n in peer.naks)
    assert [r.getMessage() for r in caplog.records if "version" in r.getMessage()] == [
        f"seat 1 serial handheld hh-A: handheld 'hh-A' on {peer.path} refused: {text}"]
    assert not rig.hh.connected(0)
    assert rig.stats.seats[0].refused["version"] == len(peer.naks)
    assert rig.gone == [(0, f"seat 1 serial handheld hh-A: not connected 3 s after start "
                            f"(handheld on {peer.path} refused: {text}) — check its USB cable")]


def test_a_screen_of_another_size_is_refused(rigs: Callable[..., Rig]) -> None:
    """A 128x32 handheld gets NAK SCREEN and no session."""
    rig = rigs({0: "hh-A"})
    peer = rig.plug(Peer("hh-A", screen=(128, 32)))
    rig.step()
    assert peer.naks[0].reason is NakReason.SCREEN
    assert not rig.hh.connected(0) and rig.stats.seats[0].refused["screen"] >= 1


def test_two_handhelds_with_one_id_the_first_keeps_the_seat(
        rigs: Callable[..., Rig], caplog: pytest.LogCaptureFixture) -> None:
    """The second claimant is refused (NAK REFUSED, one log line) while the first plays;
    once the first is unplugged the second is welcomed at that seat."""
    rig = rigs({0: "hh-A"})
    first = Peer("hh-A")
    _connect(rig, first)
    second = Peer("hh-A", boot_id=99)
    with caplog.at_level(logging.WARNING, logger="drivers.serial_handheld"):
        rig.plug(second)
        rig.advance(SECOND)
    assert second.naks and {n.reason for n in second.naks} == {NakReason.REFUSED}
    assert second.naks[0].text == "id hh-A already plays at seat 1"
    assert [r.getMessage() for r in caplog.records] == [
        f"seat 1 serial handheld hh-A: a second handheld with id 'hh-A' on {second.path} "
        f"refused; the one on {first.path} keeps the seat"]
    assert rig.stats.seats[0].port == first.path and rig.stats.seats[0].refused["duplicate_id"]
    first.press("select")
    second.session = True  # a confused second one tries a key anyway: not applied
    second.press("back")
    rig.step()
    assert _keys(rig) == [(0, "select", False)]
    rig.unplug(first)
    rig.advance(250 * MS)
    assert rig.back == [0] and rig.stats.seats[0].port == second.path


def test_an_id_no_seat_wants_is_one_line_and_ignored(
        rigs: Callable[..., Rig], caplog: pytest.LogCaptureFixture) -> None:
    """A stranger's HELLO: NAK REFUSED naming the id, one log line however often it asks."""
    rig = rigs({0: "hh-A"})
    mine = Peer("hh-A")
    _connect(rig, mine)
    stranger = Peer("hh-Z")
    with caplog.at_level(logging.WARNING, logger="drivers.serial_handheld"):
        rig.plug(stranger)
        rig.advance(2 * SECOND)
    assert stranger.naks[0] == Nak(of=MsgType.HELLO, reason=NakReason.REFUSED,
                                   text="id hh-Z is in no seat of the config")
    assert [r.getMessage() for r in caplog.records] == [
        f"serial port {stranger.path}: handheld id 'hh-Z' is in no seat of the config; ignored"]
    assert rig.stats.unknown_ids >= 4
    assert rig.hh.connected(0) and rig.gone == []


def test_a_silent_port_is_closed_and_tried_again_only_after_5_s(
        rigs: Callable[..., Rig], caplog: pytest.LogCaptureFixture) -> None:
    """A port that never answers (not a handheld) is let go after 1.5 s with one line and
    not opened again for 5 s (opening pokes DTR)."""
    rig = rigs({0: "hh-A"})
    silent = Peer("nobody")
    silent.answer = False
    with caplog.at_level(logging.WARNING, logger="drivers.serial_handheld"):
        rig.plug(silent)
        rig.step(1)  # opened now
        rig.advance(1500 * MS + QUIET_RETRY_NS - 250 * MS)
    assert rig.stats.opened == 1
    rig.advance(250 * MS)
    assert rig.stats.opened == 2
    assert [r.getMessage() for r in caplog.records
            if r.getMessage().startswith("serial port")] == [
        f"serial port {silent.path}: no handheld answered in 1.5 s; trying it again in 5 s"]


class Flaky:
    """A real pyserial port that raises once armed: ``fail_read`` / ``fail_write`` (a port
    vanishing under a read or in the middle of a write)."""

    def __init__(self, path: str) -> None:
        self.port = serial.Serial(path, timeout=0, write_timeout=0)
        self.fail_read: BaseException | None = None
        self.fail_write: BaseException | None = None

    def fileno(self) -> int:
        return int(self.port.fileno())

    def read(self, size: int = 1) -> bytes:
        if self.fail_read is not None:
            raise self.fail_read
        return bytes(self.port.read(size))

    def write(self, data: bytes) -> int:
        if self.fail_write is not None:
            raise self.fail_write
        return int(self.port.write(data))

    def close(self) -> None:
        self.port.close()


EIO_ERRORS = [
    pytest.param(lambda op: serial.SerialException(f"{op} failed: [Errno 5] Input/output error"),
                 id="SerialException"),
    pytest.param(lambda op: OSError(errno.EIO, "Input/output error"), id="OSError"),
    pytest.param(lambda op: termios.error(5, "Input/output error"), id="termios.error"),
]


@pytest.mark.parametrize("make_error", EIO_ERRORS)
@pytest.mark.parametrize("op", ["read", "write"])
def test_a_port_that_raises_is_gone_at_once_and_reopened(
        rigs: Callable[..., Rig], op: str, make_error: Callable[[str], BaseException]) -> None:
    """Each error a vanished port raises, on a read or mid-write: gone on that pass, named;
    the port is opened again at the next scan, the whole frame resent, play goes on."""
    opened: list[Flaky] = []

    def open_port(path: str) -> Flaky:
        opened.append(Flaky(path))
        return opened[-1]

    rig = rigs({0: "hh-A"}, open_port=open_port)
    device = rig.hh.open(0)
    peer = Peer("hh-A")
    _connect(rig, peer, device, _picture(0))
    if op == "read":
        opened[-1].fail_read = make_error(op)
        peer.press("select")
    else:
        opened[-1].fail_write = make_error(op)
        device.display(_picture(1))
    rig.hh.run_once(rig.clock.now_ns())
    assert rig.gone == [(0, f"seat 1 serial handheld hh-A: unplugged from {peer.path} "
                            f"({op} failed: [Errno 5] Input/output error)")]
    rig.advance(SCAN_NS)
    assert len(opened) == 2 and rig.back == [0]
    assert peer.frames[-1][1].mask == 0xFF
    peer.press("right")
    rig.step()
    assert rig.hh.connected(0)
    assert peer.pages == image_pages(_picture(1 if op == "write" else 0))
    expected = [(0, "select", False)] if op == "read" else []
    assert _keys(rig) == [*expected, (0, "right", False)]


def test_a_port_that_cannot_be_opened_is_one_line_with_the_fix(
        rigs: Callable[..., Rig], caplog: pytest.LogCaptureFixture) -> None:
    """Permission denied: one log line naming the dialout group; the gone report says so."""

    def open_port(path: str) -> Any:
        raise serial.SerialException(f"[Errno 13] could not open port {path}: [Errno 13] "
                                     f"Permission denied: '{path}'")

    rig = rigs({0: "/dev/serial/by-id/usb-hh-if00"}, open_port=open_port)
    rig.ports.append("/dev/serial/by-id/usb-hh-if00")
    with caplog.at_level(logging.WARNING, logger="drivers.serial_handheld"):
        rig.advance(FIRST_CONNECT_NS)
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0] == ("serial port /dev/serial/by-id/usb-hh-if00: cannot open it ([Errno 13] "
                        "could not open port /dev/serial/by-id/usb-hh-if00: [Errno 13] Permission"
                        " denied: '/dev/serial/by-id/usb-hh-if00') — is the user in the dialout "
                        "group?")
    assert rig.stats.open_failures == 3  # at 0, 0.5 and 1.5 s: backing off, not every scan
    assert len(lines) == 1
    assert rig.gone[0][1].startswith("seat 1 serial handheld usb-hh-if00: not connected 3 s "
                                     "after start (cannot open /dev/serial/by-id/usb-hh-if00")


def test_callbacks_that_raise_do_not_stop_the_link(
        rigs: Callable[..., Rig], caplog: pytest.LogCaptureFixture) -> None:
    """A post() that raises is logged; the next key still arrives."""
    rig = rigs({0: "hh-A"})
    seen: list[KeyPress] = []

    def post(event: object) -> None:
        assert isinstance(event, KeyPress)
        seen.append(event)
        if len(seen) == 1:
            raise RuntimeError("queue full")

    rig.hh._post = post
    peer = Peer("hh-A")
    _connect(rig, peer)
    with caplog.at_level(logging.ERROR, logger="drivers.serial_handheld"):
        peer.press("left")
        peer.press("left", False)
        peer.press("select")
        rig.step()
    assert [e.key for e in seen] == ["left", "select"]
    assert "queue full" in caplog.text


# --- the real thread --------------------------------------------------------------------------


def test_the_link_thread_connects_posts_keys_and_reports_an_unplug() -> None:
    """With its own thread and the real clock: session, a key, an unplug, close()."""
    events: list[object] = []
    gone: list[str] = []
    got = threading.Condition()

    def note(target: list[Any], item: Any) -> None:
        with got:
            target.append(item)
            got.notify_all()

    peer = Peer("hh-T", sync=False)
    hh = SerialHandhelds({0: "hh-T"}, post=lambda e: note(events, e),
                         on_gone=lambda seat, reason: note(gone, reason),
                         clock=MonotonicClock(), ports=lambda: [peer.path])
    try:
        device = hh.open(0)
        device.display(_picture(4))
        end = time.monotonic() + WAIT_S
        while peer.pages != image_pages(_picture(4)):
            assert time.monotonic() < end, "no whole frame from the link thread"
            if select.select([peer.master], [], [], 0.05)[0]:
                data = os.read(peer.master, 65536)
                for packet in peer.decoder.feed(data):
                    peer._answer(packet)
        peer.press("select")
        with got:
            assert got.wait_for(lambda: events, WAIT_S)
        assert events == [KeyPress(0, "select", events[0].t_ns)]  # type: ignore[attr-defined]
        peer.unplug()
        with got:
            assert got.wait_for(lambda: gone, WAIT_S)
        assert gone[0].startswith(f"seat 1 serial handheld hh-T: unplugged from {peer.path}")
        with pytest.raises(DriverValueError, match="thread=False"):
            hh.run_once(0)
    finally:
        hh.close()
        peer.unplug()
    assert not any(t.name == "serial handhelds" and t.is_alive() for t in threading.enumerate())
