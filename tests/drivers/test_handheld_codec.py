"""The serial handheld codec against its datasheet (hardware/handheld/PROTOCOL.md).

The document's wire examples, log lines and MicroPython reference routines are read from the
file itself and checked against the codec.  The decoder is driven the way a USB serial link
misbehaves: packets split anywhere, bit flips, truncation, duplicated and inserted bytes,
garbage such as a REPL prompt, runs without a delimiter, replays.  KEY and FRAME delivery
are run end to end over a lossy channel with a re-plug, on a simulated clock.
"""

from __future__ import annotations

import ast
import binascii
import doctest
import random
import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cobs import cobs  # type: ignore[import-untyped]
from cobs.cobs import _cobs_py  # type: ignore[import-untyped]
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

import drivers.handheld_codec as codec
from drivers.errors import DriverValueError
from drivers.handheld_codec import (
    KEY_CODES,
    KEY_QUEUE,
    MAX_BOOTS,
    MAX_ENCODED,
    MAX_WIRE,
    PAGE_BYTES,
    PAGES,
    REASONS,
    SENDER,
    Ack,
    Decoder,
    Frame,
    FrameRequest,
    FrameSender,
    Hello,
    Key,
    KeyDedup,
    KeySender,
    KeyVerdict,
    Message,
    MsgType,
    Nak,
    NakReason,
    Packet,
    Ping,
    Pong,
    Welcome,
    apply_frame,
    blank_pages,
    changed_pages,
    crc16,
    diff_frame,
    encode,
    image_pages,
    negotiate,
    pages_image,
    seq_diff,
    seq_next,
    version_problem,
)

DOC = Path(__file__).resolve().parents[2] / "hardware" / "handheld" / "PROTOCOL.md"
MS = 1_000_000


def raw_packet(kind: int, seq: int, payload: bytes) -> bytes:
    """A packet with a correct CRC and framing around any type byte and payload."""
    head = bytes([kind]) + seq.to_bytes(2, "big") + payload
    return bytes(cobs.encode(head + crc16(head).to_bytes(2, "big"))) + b"\x00"


def hello(**kw: Any) -> Hello:
    """A valid HELLO; fields overridable."""
    fields: dict[str, Any] = {"handheld_id": "e6614103e7455d2f", "firmware": "1.0.0",
                              "boot_id": 0x1A2B3C4D, "next_key_seq": 0}
    fields.update(kw)
    return Hello(**fields)


def receiver_for(msg: Message) -> str:
    """The decoder role that takes ``msg``: the side that does not send it."""
    return {"handheld": "pi", "pi": "handheld", "both": "any"}[SENDER[msg.type]]


# --- the datasheet ----------------------------------------------------------------------------


def doc_wire_examples() -> list[dict[str, str]]:
    """Every ```wire block of PROTOCOL.md as {"packet": expr, "body": hex, "wire": hex}."""
    blocks = re.findall(r"^```wire\n(.*?)^```", DOC.read_text(), re.S | re.M)
    out = []
    for block in blocks:
        fields: dict[str, str] = {}
        key = ""
        for line in block.splitlines():
            m = re.match(r"(\w+):\s*(.*)", line)
            if m:
                key = m.group(1)
                fields[key] = m.group(2)
            else:
                fields[key] += " " + line.strip()
        out.append(fields)
    return out


def doc_python(tag: str) -> dict[str, Any]:
    """Run the ```python <tag> block of PROTOCOL.md; return its namespace."""
    m = re.search(rf"^```python {tag}\n(.*?)^```", DOC.read_text(), re.S | re.M)
    assert m, f"no python {tag} block in PROTOCOL.md"
    namespace: dict[str, Any] = {}
    exec(compile(m.group(1), f"PROTOCOL.md:{tag}", "exec"), namespace)
    return namespace


EXAMPLES = doc_wire_examples()


def test_document_has_the_required_examples() -> None:
    """PROTOCOL.md shows at least a HELLO, a one-page FRAME, a KEY, its ACK and a PING."""
    packets = [eval(ex["packet"], vars(codec)) for ex in EXAMPLES]
    kinds = Counter(type(p.msg).__name__ for p in packets)
    assert {"Hello", "Frame", "Key", "Ack", "Ping"} <= set(kinds)
    assert any(isinstance(p.msg, Frame) and len(p.msg.pages) == 1 for p in packets)
    assert any(isinstance(p.msg, Ack) and p.msg.of == MsgType.KEY for p in packets)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda ex: ex["packet"][:40])
def test_document_example_is_what_the_codec_writes_and_reads(example: dict[str, str]) -> None:
    """encode() gives the documented wire bytes, COBS of them the documented body, and the
    decoder reads them back to the documented packet."""
    packet = eval(example["packet"], vars(codec))
    wire = bytes.fromhex(example["wire"])
    body = bytes.fromhex(example["body"])
    assert encode(packet.msg, packet.seq) == wire
    assert cobs.decode(wire[:-1]) == body
    assert crc16(body[:-2]) == int.from_bytes(body[-2:], "big")
    assert binascii.crc_hqx(body, 0xFFFF) == 0
    decoder = Decoder(receiver=receiver_for(packet.msg))
    assert decoder.feed(wire) == [packet]
    assert decoder.bad == 0


def test_document_log_lines_are_the_decoders() -> None:
    """The example log lines in PROTOCOL.md are what the decoder says for those inputs."""
    text = DOC.read_text()
    block = text[text.index("Example log lines"):]
    lines = re.search(r"```\n(.*?)```", block, re.S)
    assert lines
    documented = lines.group(1).splitlines()
    said = []
    pi = Decoder(receiver="pi")
    key = bytearray(encode(Key(key="select", down=True, t_ms=5123), 0))
    key[10] ^= 0x01
    for data in (bytes(key), b"\x09\x41\x42\x00", b"\x01" * 1100 + b"\x00",
                 encode(Frame.of(blank_pages(), [0]), 0)):
        pi.feed(data)
        said.append(pi.last_error)
    fresh = Decoder(receiver="pi")
    fresh.feed(encode(hello(version_min=3, version_max=3), 0))
    said.append(fresh.last_error)
    assert said == documented


@settings(max_examples=300, derandomize=True)
@given(st.binary(max_size=600))
def test_document_crc_routine_is_crc_hqx(data: bytes) -> None:
    """The MicroPython CRC routine in PROTOCOL.md equals binascii.crc_hqx(data, 0xFFFF)."""
    crc = doc_python("crc16")["crc16"]
    assert crc(data) == binascii.crc_hqx(data, 0xFFFF) == crc16(data)


def test_crc_check_value() -> None:
    """CRC-16/CCITT-FALSE's check value: crc("123456789") = 0x29B1 (PROTOCOL.md, CRC)."""
    assert crc16(b"123456789") == 0x29B1
    assert doc_python("crc16")["crc16"](b"123456789") == 0x29B1


@settings(max_examples=300, derandomize=True)
@given(st.binary(max_size=1100) | st.lists(st.sampled_from([0, 1, 0xFF]), max_size=800).map(
    bytes) | st.integers(250, 520).map(lambda n: b"\x01" * n))
def test_document_cobs_routines_match_the_cobs_package(data: bytes) -> None:
    """The MicroPython COBS routines in PROTOCOL.md encode byte for byte as the cobs package
    (runs of 254 included) and decode its output."""
    ns = doc_python("cobs")
    assert ns["cobs_encode"](data) == cobs.encode(data)
    assert ns["cobs_decode"](cobs.encode(data)) == data


@pytest.mark.parametrize("bad", [b"\x05\x01", b"\x02\x01\x09\x01", b"\xff" + b"\x01" * 100])
def test_document_cobs_decoder_refuses_what_the_codec_refuses(bad: bytes) -> None:
    """Input the codec counts as bad COBS makes the reference decoder raise ValueError."""
    decoder = Decoder()
    decoder.feed(bad + b"\x00")
    assert decoder.counts["bad_cobs"] == 1
    with pytest.raises(ValueError, match="bad COBS code"):
        doc_python("cobs")["cobs_decode"](bad)


def test_document_limits_are_the_codecs() -> None:
    """The sizes PROTOCOL.md states are the codec's constants."""
    text = " ".join(DOC.read_text().split())
    assert (codec.MAX_BODY, MAX_ENCODED, MAX_WIRE) == (1030, 1035, 1036)
    assert "at most **1,036 bytes**" in text
    assert "5..1,030 bytes" in text and "at most 1,035 bytes" in text
    one_page = encode(Frame.of(blank_pages(), [3]), 0x0101)
    assert "a FRAME with one page | 136 bytes on the wire" in text
    assert len(one_page) <= 136


def test_codec_docstring_examples_hold() -> None:
    """The docstring examples in drivers.handheld_codec give the output shown."""
    result = doctest.testmod(codec, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 5 and result.failed == 0


def test_codec_module_is_pure() -> None:
    """The codec imports no I/O, thread, clock or randomness module (docs/style.md, drivers)."""
    tree = ast.parse(Path(codec.__file__).read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    banned = {"serial", "os", "io", "socket", "threading", "time", "select", "selectors",
              "random", "asyncio", "queue", "logging"}
    assert names & banned == set()


# --- round trips ------------------------------------------------------------------------------

printable = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=64)
no_space = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1,
                   max_size=32)
u8, u16, u32 = st.integers(0, 255), st.integers(0, 0xFFFF), st.integers(0, 0xFFFF_FFFF)
page = st.binary(min_size=PAGE_BYTES, max_size=PAGE_BYTES) | st.sampled_from(
    [bytes(PAGE_BYTES), b"\xff" * PAGE_BYTES, bytes([0x10, 0]) * 64])


@st.composite
def hellos(draw: st.DrawFn) -> Hello:
    """Any valid HELLO."""
    lo = draw(u8)
    keys = draw(st.lists(st.sampled_from(KEY_CODES), unique=True))
    return Hello(handheld_id=draw(no_space), firmware=draw(printable.map(lambda s: s[:16])),
                 boot_id=draw(u32), next_key_seq=draw(u16), version_min=lo,
                 version_max=draw(st.integers(lo, 255)), width=draw(u8), height=draw(u8),
                 keys=tuple(sorted(keys, key=KEY_CODES.index)))


@st.composite
def frames(draw: st.DrawFn) -> Frame:
    """Any valid FRAME: any subset of pages."""
    which = draw(st.lists(st.integers(0, PAGES - 1), unique=True, max_size=PAGES))
    return Frame(pages=tuple((i, draw(page)) for i in sorted(which)))


messages: st.SearchStrategy[Message] = st.one_of(
    hellos(),
    st.builds(Welcome, version=u8, key_ack=u16, ping_interval_ms=u16, timeout_ms=u16),
    st.just(Ping()),
    st.builds(Pong, t_ms=u32),
    st.builds(Key, key=st.sampled_from(KEY_CODES), down=st.booleans(), t_ms=u32),
    frames(),
    st.just(FrameRequest()),
    st.builds(Ack, of=st.sampled_from([MsgType.KEY, MsgType.FRAME])),
    st.builds(Nak, of=st.sampled_from([0, *MsgType]), reason=st.sampled_from(list(NakReason)),
              text=printable),
)


@settings(max_examples=600, derandomize=True)
@given(messages, u16)
def test_every_message_round_trips(msg: Message, seq: int) -> None:
    """decode(encode(msg, seq)) is (seq, msg) for every message type; the packet has exactly
    one 0x00, at its end, and fits MAX_WIRE."""
    wire = encode(msg, seq)
    assert wire.index(0) == len(wire) - 1
    assert len(wire) <= MAX_WIRE
    decoder = Decoder(receiver="any", speaks=range(256))
    assert decoder.feed(wire) == [Packet(seq=seq, msg=msg)]
    assert decoder.bad == 0


ONE_OF_EACH: list[Message] = [
    hello(), Welcome(version=1, key_ack=3), Ping(), Pong(t_ms=1), Key(key="back", down=False,
    t_ms=2), Frame.of(blank_pages(), [0, 7]), FrameRequest(), Ack(of=MsgType.FRAME),
    Nak(of=MsgType.KEY, reason=NakReason.HELLO_FIRST, text="say HELLO first"),
]


def test_every_message_type_round_trips_through_its_receivers_decoder() -> None:
    """One message of each MsgType decodes at the side that receives it; SENDER covers all."""
    assert {m.type for m in ONE_OF_EACH} == set(MsgType) == set(SENDER)
    for seq, msg in enumerate(ONE_OF_EACH):
        decoder = Decoder(receiver=receiver_for(msg))
        assert decoder.feed(encode(msg, seq)) == [Packet(seq, msg)]
        assert decoder.bad == 0


def test_a_full_frame_with_no_zero_byte_is_the_largest_packet() -> None:
    """All 8 pages lit and a seq and CRC without a zero byte: exactly MAX_WIRE bytes."""
    full = Frame.of((b"\xff" * PAGE_BYTES,) * PAGES)
    sizes = {len(encode(full, seq)) for seq in range(0x0101, 0x0180)}
    assert max(sizes) == MAX_WIRE


def test_hello_skips_its_extension_and_nothing_else() -> None:
    """A later version's HELLO with a 9-byte extension decodes; one byte more than its
    lengths say is refused (PROTOCOL.md, HELLO)."""
    msg = hello(version_min=1, version_max=4)
    extended = msg.payload()[:-1] + b"\x09" + b"future:\x01\x02"
    assert Decoder(receiver="pi").feed(raw_packet(MsgType.HELLO, 3, extended)) == [
        Packet(seq=3, msg=msg)]
    decoder = Decoder(receiver="pi")
    assert decoder.feed(raw_packet(MsgType.HELLO, 3, extended + b"!")) == []
    assert decoder.counts == Counter(bad_length=1)


@pytest.mark.parametrize("msg", ONE_OF_EACH, ids=lambda m: m.type.name)
def test_a_delimiter_hit_by_a_bit_error_is_refused_by_length(msg: Message) -> None:
    """0x00 -> 0x01 at the end of a packet, then a spare 0x00: COBS appends a zero byte to
    the body and the CRC still passes (crc(M|h) = l*256); the exact payload size refuses
    it, for every message type."""
    wire = bytearray(encode(msg, 0x1234))
    wire[-1] = 0x01
    body = cobs.decode(bytes(wire))
    assert crc16(body[:-2]) == int.from_bytes(body[-2:], "big")
    decoder = Decoder(receiver="any")
    assert decoder.feed(bytes(wire) + b"\x00") == []
    assert decoder.counts == Counter(bad_length=1)


# --- splits, garbage, oversized ---------------------------------------------------------------


def sample_stream() -> tuple[bytes, list[Packet]]:
    """Several packets (a full FRAME among them) with garbage and spare delimiters."""
    packets = [
        Packet(0, hello()),
        Packet(1, Frame.of(tuple(bytes([i]) * PAGE_BYTES for i in range(PAGES)))),
        Packet(7, Key(key="back", down=False, t_ms=0xFFFF_FFFF)),
        Packet(65535, Ping()),
        Packet(2, Ack(of=MsgType.FRAME)),
    ]
    wires = [encode(p.msg, p.seq) for p in packets]
    stream = (b"\x00" + wires[0] + b">>> \r\n\x00" + wires[1] + b"\x00\x00" + wires[2]
              + b"\x13\x37garbage\x00" + wires[3] + wires[4])
    return stream, packets


def test_a_stream_split_at_every_byte_boundary_decodes_the_same() -> None:
    """Cutting the stream in two at any byte gives the same packets and the same counts."""
    stream, packets = sample_stream()
    whole = Decoder()
    assert whole.feed(stream) == packets
    assert whole.counts == Counter(bad_cobs=2)
    for cut in range(len(stream) + 1):
        decoder = Decoder()
        got = decoder.feed(stream[:cut]) + decoder.feed(stream[cut:])
        assert got == packets, cut
        assert decoder.counts == whole.counts, cut


def test_a_stream_fed_byte_by_byte_decodes_the_same() -> None:
    """One byte at a time: the same packets, the same bad count, error offsets unchanged."""
    stream, packets = sample_stream()
    whole = Decoder()
    whole.feed(stream)
    decoder = Decoder()
    got = [p for i in range(len(stream)) for p in decoder.feed(stream[i:i + 1])]
    assert got == packets
    assert decoder.counts == whole.counts
    assert decoder.last_error == whole.last_error
    assert decoder.bytes_in == len(stream)


def test_garbage_costs_one_packet_and_the_next_0x00_resynchronises() -> None:
    """A REPL banner glued to a packet spoils that packet only; after a 0x00 all is well."""
    banner = b"MicroPython v1.22.2 on 2024-02-22; Raspberry Pi Pico with RP2040\r\n>>> "
    key = encode(Key(key="left", down=True, t_ms=1), 1)
    decoder = Decoder(receiver="pi")
    assert decoder.feed(banner + key) == []
    assert decoder.bad == 1
    assert decoder.feed(key) == [Packet(1, Key(key="left", down=True, t_ms=1))]
    assert decoder.feed(banner + b"\x00" + key) == [Packet(1, Key(key="left", down=True,
                                                                  t_ms=1))]
    assert decoder.bad == 2


def test_an_oversized_run_is_dropped_counted_once_and_the_buffer_stays_bounded() -> None:
    """5,000 bytes without a 0x00 (swallowing a packet) count one oversized; the buffer never
    holds more than MAX_ENCODED; the packet after the next 0x00 decodes."""
    key = encode(Key(key="right", down=True, t_ms=9), 4)
    decoder = Decoder(receiver="pi")
    peak = 0
    for byte in b"\x07" * 5000 + key:
        decoder.feed(bytes([byte]))
        peak = max(peak, decoder.buffered)
    assert peak <= MAX_ENCODED
    assert decoder.counts == Counter(oversized=1)
    assert "more than 1035 bytes without a 0x00" in decoder.last_error
    assert decoder.feed(key) == [Packet(4, Key(key="right", down=True, t_ms=9))]
    assert decoder.buffered == 0


def test_oversized_begins_one_byte_past_max_encoded() -> None:
    """A run of exactly MAX_ENCODED bytes is read as a packet (bad COBS here); one more byte
    makes it oversized."""
    at_limit = Decoder()
    at_limit.feed(b"\xff" * MAX_ENCODED + b"\x00")
    over = Decoder()
    over.feed(b"\xff" * (MAX_ENCODED + 1) + b"\x00")
    assert at_limit.counts == Counter(bad_cobs=1)
    assert over.counts == Counter(oversized=1)


def test_reset_forgets_a_half_packet() -> None:
    """After reset() (the port reopened) a half packet does not spoil the next one."""
    key = encode(Key(key="select", down=False, t_ms=3), 8)
    decoder = Decoder(receiver="pi")
    decoder.feed(key[:5])
    decoder.reset()
    assert decoder.buffered == 0
    assert decoder.feed(key) == [Packet(8, Key(key="select", down=False, t_ms=3))]
    assert decoder.bad == 0


# --- refused packets, one line each -----------------------------------------------------------

REFUSED = [
    (raw_packet(0x2A, 1, b""), "unknown_type", "unknown message type 0x2a at byte 0"),
    (raw_packet(MsgType.KEY, 5, b"\x02\x01\x00\x00\x00"), "bad_length",
     "seq 5: KEY payload is 5 bytes, expected 6"),
    (raw_packet(MsgType.KEY, 5, b"\x07\x01\x00\x00\x00\x00"), "bad_field",
     "seq 5: KEY key code 7 at payload byte 0 is not 0..3"),
    (raw_packet(MsgType.KEY, 5, b"\x01\x02\x00\x00\x00\x00"), "bad_field",
     "seq 5: KEY state 2 at payload byte 1 is not 0 or 1"),
    (raw_packet(MsgType.FRAME_REQUEST, 0, b"\x00"), "bad_length",
     "seq 0: FRAME_REQUEST payload is 1 bytes, expected 0"),
    (raw_packet(MsgType.ACK, 9, b"\x03"), "bad_field",
     "seq 9: ACK of type 0x03 at payload byte 0: only KEY (0x05) and FRAME (0x06) are "
     "acknowledged"),
    (raw_packet(MsgType.NAK, 9, b"\x05\x63\x00"), "bad_field",
     "seq 9: NAK reason 99 at payload byte 1 is unknown"),
    (raw_packet(MsgType.NAK, 9, b"\x05\x04\x01\xff"), "bad_field",
     "seq 9: NAK text at payload byte 3 is not 0..64 bytes of printable ASCII"),
    (raw_packet(MsgType.NAK, 9, b"\x05\x04\x05oops"), "bad_length",
     "seq 9: NAK (text 5 bytes) payload is 7 bytes, expected 8"),
    (raw_packet(MsgType.HELLO, 0, hello().payload().replace(b"e661", b"e 61")), "bad_field",
     "seq 0: HELLO id b'e 614103e7455d2f' at payload byte 12 is not printable ASCII without "
     "spaces"),
    (raw_packet(MsgType.HELLO, 0, hello().payload()[:20]), "bad_length",
     "seq 0: HELLO payload is 20 bytes, expected at least 29"),
    (raw_packet(MsgType.HELLO, 0, bytes([2, 1]) + hello().payload()[2:]), "bad_field",
     "seq 0: HELLO version_min 2 (payload byte 0) is above version_max 1"),
    (raw_packet(MsgType.FRAME, 2, b"\x03" + bytes(PAGE_BYTES)), "bad_length",
     "seq 2: FRAME (mask 0x03) payload is 129 bytes, expected 257"),
    (b"\x02\x05\x00", "bad_length",
     "1 bytes after COBS, fewer than the 5 of type, seq and CRC"),
]


@pytest.mark.parametrize(("wire", "reason", "line"), REFUSED, ids=[r[2][:30] for r in REFUSED])
def test_a_refused_packet_is_counted_and_named_in_one_line(wire: bytes, reason: str,
                                                           line: str) -> None:
    """Each malformed packet is counted under its reason, nothing is returned, and
    last_error is one line with its stream offset, size and what is wrong."""
    decoder = Decoder(receiver="any")
    decoder.feed(b"\x00\x00")
    assert decoder.feed(wire) == []
    assert decoder.counts == Counter({reason: 1})
    assert decoder.last_error == f"packet at stream byte 2 ({len(wire) - 1} bytes): {line}"
    assert "\n" not in decoder.last_error


def test_wrong_direction_is_refused_by_role() -> None:
    """A Pi's decoder refuses a FRAME, a handheld's a KEY; ACK and NAK go both ways."""
    frame = encode(Frame.of(blank_pages(), [1]), 3)
    key = encode(Key(key="left", down=True, t_ms=0), 3)
    ack = encode(Ack(of=MsgType.KEY), 3)
    pi, handheld, anyone = Decoder(receiver="pi"), Decoder(receiver="handheld"), Decoder()
    assert pi.feed(frame + key + ack) == [Packet(3, Key(key="left", down=True, t_ms=0)),
                                          Packet(3, Ack(of=MsgType.KEY))]
    assert handheld.feed(frame + key + ack) == [Packet(3, Frame.of(blank_pages(), [1])),
                                                Packet(3, Ack(of=MsgType.KEY))]
    assert len(anyone.feed(frame + key + ack)) == 3
    assert pi.counts == handheld.counts == Counter(wrong_direction=1)
    assert handheld.last_error.endswith(
        "KEY (type 0x05) comes only from the handheld, never from the Pi (an echo?)")


def test_bad_crc_names_both_values() -> None:
    """A flipped payload bit: bad_crc, with the CRC the packet carries and the computed one."""
    wire = bytearray(encode(Pong(t_ms=5000), 17))
    wire[7] ^= 0x40
    decoder = Decoder(receiver="pi")
    assert decoder.feed(bytes(wire)) == []
    assert decoder.counts == Counter(bad_crc=1)
    assert re.fullmatch(r"packet at stream byte 0 \(10 bytes\): bad CRC: packet says "
                        r"0xd8a3, contents give 0x[0-9a-f]{4} \(type byte 0x04\)",
                        decoder.last_error)


def test_drain_errors_keeps_a_bounded_list() -> None:
    """drain_errors gives each line once, at most keep_errors of them plus a summary."""
    decoder = Decoder(keep_errors=3)
    decoder.feed(b"\x09\x00" * 5)
    lines = decoder.drain_errors()
    assert len(lines) == 4 and lines[-1] == "... and 2 more bad packets"
    assert lines[0].startswith("packet at stream byte 0 (1 bytes): bad COBS")
    assert decoder.drain_errors() == []
    assert decoder.bad == 5


# --- 100,000 mutated packets ------------------------------------------------------------------


def random_message(rng: random.Random) -> Message:
    """A random valid message, mostly small, sometimes a FRAME of several pages."""
    kind = rng.randrange(10)
    if kind == 0:
        return Hello(handheld_id="".join(rng.choice("0123456789abcdef")
                                         for _ in range(rng.randint(1, 32))),
                     firmware=rng.choice(["", "1.0.0", "0.9.13-dev"]),
                     boot_id=rng.getrandbits(32), next_key_seq=rng.getrandbits(16))
    if kind == 1:
        return Welcome(version=1, key_ack=rng.getrandbits(16))
    if kind == 2:
        return Ping()
    if kind == 3:
        return Pong(t_ms=rng.getrandbits(32))
    if kind in (4, 5):
        return Key(key=rng.choice(KEY_CODES), down=rng.random() < 0.5, t_ms=rng.getrandbits(32))
    if kind == 6:
        which = rng.sample(range(PAGES), rng.choice([1, 1, 2, 8]))
        pages = [rng.choice([bytes(PAGE_BYTES), rng.randbytes(PAGE_BYTES),
                             bytes([0x10, 0]) * 64]) for _ in range(PAGES)]
        return Frame.of(pages, which)
    if kind == 7:
        return FrameRequest()
    if kind == 8:
        return Ack(of=rng.choice([MsgType.KEY, MsgType.FRAME]))
    return Nak(of=rng.choice([0, MsgType.HELLO]), reason=rng.choice(list(NakReason)),
               text=rng.choice(["", "bad CRC", "protocol version 3 not supported"]))


def mutate(rng: random.Random, wire: bytes) -> tuple[str, bytes, list[Packet]]:
    """One way a serial link spoils a packet: (name, spoiled bytes, packets spliced in)."""
    data = bytearray(wire)
    spliced: list[Packet] = []
    how = rng.choice(["flip", "flip", "truncate", "duplicate", "insert", "garbage", "delete",
                      "splice"])
    if how == "flip":
        for _ in range(rng.choice([1, 1, 2, 3, 8])):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif how == "truncate":
        del data[rng.randrange(1, len(data)):]
    elif how == "duplicate":
        at = rng.randrange(len(data))
        size = rng.randint(1, 8)
        data[at:at] = data[at:at + size]
    elif how == "insert":
        at = rng.randrange(len(data))
        data[at:at] = rng.randbytes(rng.randint(1, 4))
    elif how == "garbage":
        at = rng.randrange(len(data))
        size = rng.randint(1, 16)
        data[at:at + size] = rng.randbytes(size)
    elif how == "delete":
        at = rng.randrange(len(data))
        del data[at:at + rng.randint(1, 3)]
    else:
        other = Packet(rng.getrandbits(16), random_message(rng))
        spliced.append(other)
        tail = encode(other.msg, other.seq)
        data = data[:rng.randrange(len(data))] + bytearray(tail[rng.randrange(len(tail)):])
    return how, bytes(data), spliced


def segments(data: bytes) -> int:
    """How many non-empty packets the receiver sees in ``data`` + a closing 0x00."""
    return sum(1 for part in data.split(b"\x00") if part)


FUZZ_COUNT = 100_000


def run_fuzz(count: int, seed: int) -> tuple[Counter[str], Decoder, bytes]:
    """Feed ``count`` mutated packets, each closed by a 0x00, into one decoder; check the
    accounting of each; return the outcome tally, the decoder and the whole stream."""
    rng = random.Random(seed)
    decoder = Decoder(receiver="any")
    outcomes: Counter[str] = Counter()
    stream = bytearray()
    for _ in range(count):
        msg, seq = random_message(rng), rng.getrandbits(16)
        wire = encode(msg, seq)
        how, spoiled, spliced = mutate(rng, wire)
        sent = [Packet(seq, msg), *spliced]
        before_bad, before_good = decoder.bad, decoder.good
        before_delivered_bad = decoder.counts["unsupported_version"]
        got = decoder.feed(spoiled + b"\x00")
        stream += spoiled + b"\x00"
        # an unsupported_version packet is both counted and delivered: count it once
        bad = (decoder.bad - before_bad
               - (decoder.counts["unsupported_version"] - before_delivered_bad))
        assert decoder.good - before_good == len(got)
        assert len(got) + bad == segments(spoiled), (how, spoiled.hex())
        if spoiled == wire:
            outcomes["unchanged"] += 1
        elif any(p not in sent for p in got):
            outcomes["a packet never sent"] += 1
        elif bad and got:
            outcomes["bad, with a sent packet intact"] += 1
        elif bad:
            outcomes["bad"] += 1
        elif got:
            outcomes["only packets that were sent (repeats, splices)"] += 1
        else:
            outcomes["only delimiters left"] += 1
    return outcomes, decoder, bytes(stream)


def test_100000_mutated_packets_are_each_decoded_or_counted() -> None:
    """100,000 spoiled packets (bit flips, truncation, duplication, insertion, garbage,
    deletion, splices): nothing escapes the decoder; each non-empty piece between 0x00s is
    either one returned packet or one bad count; a spoiled packet passing as one never
    sent is rare (CRC-16 misses about 1 in 65,536 random errors, exact sizes the rest)."""
    outcomes, decoder, _ = run_fuzz(FUZZ_COUNT, seed=20240611)
    print("\nmutated packets:", dict(outcomes), "bad by reason:", dict(decoder.counts))
    assert sum(outcomes.values()) == FUZZ_COUNT
    assert set(decoder.counts) <= set(REASONS)
    spoiled = outcomes["bad"] + outcomes["bad, with a sent packet intact"]
    assert spoiled > 0.85 * FUZZ_COUNT
    assert decoder.bad >= spoiled
    # about 24,000 of them reach the CRC check, which misses 1 in 65,536 random errors
    assert outcomes["a packet never sent"] <= 3
    for reason in ("bad_cobs", "bad_crc", "bad_length"):
        assert decoder.counts[reason] > 100


def test_the_fuzz_stream_in_random_chunks_gives_the_same_counts() -> None:
    """The same spoiled stream fed in random chunk sizes: identical packets and counts."""
    _, whole, stream = run_fuzz(3000, seed=7)
    rng = random.Random(8)
    decoder = Decoder(receiver="any")
    pos = 0
    while pos < len(stream):
        step = rng.choice([1, 2, 3, 17, 64, 255, 1500])
        decoder.feed(stream[pos:pos + step])
        pos += step
    assert decoder.counts == whole.counts
    assert decoder.good == whole.good


@settings(max_examples=400, derandomize=True)
@given(st.lists(st.binary(max_size=64) | messages.map(lambda m: encode(m, 1)), max_size=8))
def test_any_bytes_are_decoded_or_counted(chunks: list[bytes]) -> None:
    """Arbitrary byte soup never raises, and every non-empty piece is accounted for."""
    data = b"".join(chunks) + b"\x00"
    decoder = Decoder(receiver="any", speaks=range(256))
    got = decoder.feed(data)
    pieces = [p for p in data.split(b"\x00") if p]
    oversized = sum(1 for p in pieces if len(p) > MAX_ENCODED)
    assert len(got) + decoder.bad == len(pieces)
    assert decoder.counts["oversized"] == oversized


def test_the_pure_python_cobs_fallback_gives_the_same_results(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With the cobs package's pure-Python fallback instead of its C extension, the document's
    examples and a fuzz run come out the same."""
    _, with_ext, stream = run_fuzz(2000, seed=99)
    monkeypatch.setattr(codec, "_cobs", _cobs_py)
    for example in EXAMPLES:
        packet = eval(example["packet"], vars(codec))
        assert encode(packet.msg, packet.seq) == bytes.fromhex(example["wire"])
    fallback = Decoder(receiver="any")
    fallback.feed(stream)
    assert fallback.counts == with_ext.counts
    assert fallback.good == with_ext.good


# --- version negotiation ----------------------------------------------------------------------


def test_a_handheld_speaking_an_unknown_version_gets_a_nak_naming_it() -> None:
    """HELLO offering only version 3: the Pi's decoder delivers and counts it; negotiate
    answers NAK VERSION with the one-line reason, and the KEY state is untouched."""
    wire = encode(hello(version_min=3, version_max=3), 0)
    decoder = Decoder(receiver="pi")
    [packet] = decoder.feed(wire)
    assert decoder.counts == Counter(unsupported_version=1)
    dedup = KeyDedup()
    assert isinstance(packet.msg, Hello)
    answer = negotiate(packet.msg, dedup)
    assert answer == Nak(of=MsgType.HELLO, reason=NakReason.VERSION,
                         text="protocol version 3 not supported (this Pi speaks 1)")
    assert dedup.ack is None
    handheld = Decoder(receiver="handheld")
    assert handheld.feed(encode(answer, packet.seq)) == [Packet(0, answer)]


def test_version_ranges_pick_the_highest_common_version() -> None:
    """A range overlapping the Pi's versions gets the highest common one; a disjoint range
    is named as a range."""
    assert negotiate(hello(version_min=1, version_max=3), KeyDedup()) == Welcome(
        version=1, key_ack=0xFFFF)
    both = negotiate(hello(version_min=2, version_max=3), KeyDedup(), speaks=(1, 2))
    assert isinstance(both, Welcome) and both.version == 2
    assert version_problem(hello(version_min=2, version_max=3)) == (
        "protocol versions 2-3 not supported (this Pi speaks 1)")
    assert version_problem(hello(version_min=0, version_max=0), speaks=(1, 2, 4)) == (
        "protocol version 0 not supported (this Pi speaks 1, 2, 4)")


def test_a_welcome_with_a_version_the_handheld_does_not_speak_is_counted() -> None:
    """A handheld's decoder counts a WELCOME choosing version 2 as unsupported_version."""
    decoder = Decoder(receiver="handheld")
    assert len(decoder.feed(encode(Welcome(version=2, key_ack=0), 4))) == 1
    assert decoder.counts == Counter(unsupported_version=1)
    assert decoder.last_error.endswith(
        "WELCOME seq 4 chose protocol version 2, this side speaks 1")


def test_a_wrong_screen_size_gets_a_nak() -> None:
    """A 128x32 handheld is refused with NAK SCREEN."""
    answer = negotiate(hello(height=32), KeyDedup())
    assert isinstance(answer, Nak) and answer.reason is NakReason.SCREEN
    assert answer.text == "screen 128x32 not supported (this Pi drives 128x64)"


# --- sequence numbers -------------------------------------------------------------------------


@given(u16, st.integers(-32768, 32767))
def test_seq_diff_inverts_modular_addition(a: int, step: int) -> None:
    """seq_diff((a + step) mod 2^16, a) == step for every step in the window."""
    assert seq_diff((a + step) & 0xFFFF, a) == step


def test_seq_wraps() -> None:
    """65535 -> 0 is one step forward; exactly half the space apart counts as before."""
    assert seq_next(65535) == 0
    assert seq_diff(0, 65535) == 1 and seq_diff(65535, 0) == -1
    assert seq_diff(32768, 0) == -32768


# --- KEY: exactly once ------------------------------------------------------------------------


def test_dedup_applies_in_order_and_recognises_replays() -> None:
    """A replayed KEY packet (the same bytes five times) is applied once; a gap waits."""
    dedup = KeyDedup()
    assert dedup.accept(0) is KeyVerdict.NO_SESSION
    assert dedup.hello(hello(next_key_seq=10)) == 9
    wire = encode(Key(key="select", down=True, t_ms=77), 10)
    decoder = Decoder(receiver="pi")
    verdicts = [dedup.accept(p.seq) for p in decoder.feed(wire * 5)]
    assert verdicts == [KeyVerdict.NEW] + [KeyVerdict.DUPLICATE] * 4
    assert dedup.accept(12) is KeyVerdict.GAP
    assert dedup.accept(11) is KeyVerdict.NEW
    assert (dedup.applied, dedup.duplicates, dedup.gaps, dedup.ack) == (2, 4, 1, 11)


def test_dedup_across_the_wrap_and_a_replug() -> None:
    """Seq 65535 then 0 are both new; the same boot keeps the state, a new boot restarts."""
    dedup = KeyDedup()
    dedup.hello(hello(boot_id=5, next_key_seq=65535))
    assert [dedup.accept(s) for s in (65535, 0, 65535)] == [
        KeyVerdict.NEW, KeyVerdict.NEW, KeyVerdict.DUPLICATE]
    assert dedup.hello(hello(boot_id=5, next_key_seq=65535)) == 0
    assert dedup.accept(0) is KeyVerdict.DUPLICATE
    assert dedup.hello(hello(boot_id=6, next_key_seq=0)) == 65535
    assert dedup.accept(0) is KeyVerdict.NEW


def test_dedup_never_waits_for_keys_the_handheld_no_longer_holds() -> None:
    """Same boot, but HELLO's next_key_seq is past last + 1: last moves up to it, so the
    next KEY is new instead of a gap forever; an older next_key_seq leaves last alone."""
    dedup = KeyDedup()
    dedup.hello(hello(boot_id=7, next_key_seq=100))
    assert dedup.accept(100) is KeyVerdict.NEW
    assert dedup.hello(hello(boot_id=7, next_key_seq=104)) == 103
    assert dedup.accept(104) is KeyVerdict.NEW
    assert dedup.hello(hello(boot_id=7, next_key_seq=90)) == 104


def test_dedup_keeps_each_boots_state_and_forgets_the_least_recent() -> None:
    """Another boot in between (an impostor with the same id) leaves a boot's ``last``
    alone; past MAX_BOOTS boots the least recently welcomed one is forgotten."""
    dedup = KeyDedup()
    dedup.hello(hello(boot_id=1, next_key_seq=0), 0)
    assert [dedup.accept(s) for s in (0, 1)] == [KeyVerdict.NEW, KeyVerdict.NEW]
    assert dedup.hello(hello(boot_id=2, next_key_seq=50), 3) == 49
    assert dedup.accept(50) is KeyVerdict.NEW
    assert dedup.hello(hello(boot_id=1, next_key_seq=0), 4) == 1  # its 0 and 1 were applied
    assert dedup.accept(1) is KeyVerdict.DUPLICATE
    for boot in range(100, 100 + MAX_BOOTS):
        dedup.hello(hello(boot_id=boot, next_key_seq=7), 0)
    assert 1 not in dedup.boots and len(dedup.boots) == MAX_BOOTS
    assert dedup.hello(hello(boot_id=1, next_key_seq=0), 9) == 0xFFFF  # forgotten: anew
    assert dedup.restarts == 0


@pytest.mark.parametrize(("hello_seq", "next_key_seq", "restart"), [
    (0, 0, True),                  # its HELLO counter started again
    (5, 0, True),                  # the same HELLO seq as the last welcomed one
    (6, 40 - KEY_QUEUE, False),    # the oldest key a full queue can still hold
    (6, 39 - KEY_QUEUE, True),     # older than any key the same boot can hold
    (None, 39 - KEY_QUEUE, True),
    (None, 0, True),
    (6, 0xFFFF, True),
    (6, 41, False),
])
def test_dedup_a_repeated_boot_id_whose_counters_started_again_starts_over(
        hello_seq: int | None, next_key_seq: int, restart: bool) -> None:
    """A known boot_id whose HELLO is not after the last welcomed one, or whose oldest key
    is older than a queue of KEY_QUEUE can hold, is a new boot: its keys count again."""
    dedup = KeyDedup()
    dedup.hello(hello(boot_id=3, next_key_seq=0), 5)
    for seq in range(40):
        dedup.accept(seq)
    ack = dedup.hello(hello(boot_id=3, next_key_seq=next_key_seq), hello_seq)
    if restart:
        assert ack == (next_key_seq - 1) & 0xFFFF and dedup.restarts == 1
        assert dedup.accept(next_key_seq) is KeyVerdict.NEW
    else:
        assert ack == 40 if next_key_seq == 41 else ack == 39
        assert dedup.restarts == 0


def test_key_sender_queue_releases_on_cumulative_acks_only() -> None:
    """ACK n releases keys up to n; an ACK outside the queue releases nothing; a full queue
    drops the new key without taking a seq."""
    sender = KeySender(boot_id=1, first_seq=65534, capacity=3)
    seqs = [sender.press("left", d, t_ms=i) for i, d in enumerate([True, False, True, False])]
    assert [s[0] if s else None for s in seqs] == [65534, 65535, 0, None]
    assert sender.dropped == 1
    assert sender.acked(100) == 0 and sender.acked(65533) == 0
    assert sender.acked(65535) == 2
    assert sender.next_key_seq == 0
    assert [s for s, _ in sender.pending()] == [0]
    assert sender.press("back", True, t_ms=9) == (1, Key(key="back", down=True, t_ms=9))


class Wire:
    """One direction of a lossy serial link: real encode/decode, packets lost or spoiled."""

    def __init__(self, rng: random.Random, receiver: str, loss: float) -> None:
        self.rng = rng
        self.loss = loss
        self.decoder = Decoder(receiver=receiver)
        self.queue: list[bytes] = []

    def send(self, msg: Message, seq: int) -> None:
        """Put a packet on the wire; it may be lost, or arrive with a flipped bit."""
        wire = bytearray(encode(msg, seq))
        roll = self.rng.random()
        if roll < self.loss:
            return
        if roll < 2 * self.loss:
            wire[self.rng.randrange(len(wire))] ^= 1 << self.rng.randrange(8)
        self.queue.append(bytes(wire))

    def deliver(self) -> list[Packet]:
        """Everything in flight, decoded at the receiver."""
        data, self.queue = b"".join(self.queue), []
        return self.decoder.feed(data)

    def unplug(self) -> None:
        """Bytes in flight are lost; the receiver's half packet with them."""
        self.queue.clear()
        self.decoder.reset()


def run_key_link(seed: int, presses: int, loss: float) -> tuple[list[Key], list[Key], Counter[str]]:
    """A handheld pressing keys at random over a lossy link with two re-plugs (same boot),
    following PROTOCOL.md's KEY rules on a simulated 10 ms clock; returns (pressed, applied,
    stats)."""
    rng = random.Random(seed)
    up, down = Wire(rng, "pi", loss), Wire(rng, "handheld", loss)
    sender = KeySender(boot_id=rng.getrandbits(32))
    dedup = KeyDedup()
    pressed: list[Key] = []
    applied: list[Key] = []
    session_hh = session_pi = False
    last_progress = hello_seq = 0
    stats: Counter[str] = Counter()
    t_ms = 0
    while len(pressed) < presses or sender.pending() or not session_hh:
        t_ms += 10
        if t_ms in (4000, 9000):
            up.unplug()
            down.unplug()
            session_hh = session_pi = False
            stats["replugs"] += 1
        if len(pressed) < presses and rng.random() < 0.05:
            item = sender.press(rng.choice(KEY_CODES), rng.random() < 0.5, t_ms)
            if item is None:
                stats["dropped, queue full"] += 1
            else:
                pressed.append(item[1])
                if session_hh:
                    up.send(item[1], item[0])
        if not session_hh and t_ms % 500 == 0:
            up.send(sender.hello("hh1", "1.0"), hello_seq)
            hello_seq = seq_next(hello_seq)
        if session_hh and sender.pending() and t_ms - last_progress >= 100:
            stats["resends"] += 1
            last_progress = t_ms
            for seq, key in sender.pending():
                up.send(key, seq)
        for packet in up.deliver():
            if isinstance(packet.msg, Hello):
                answer = negotiate(packet.msg, dedup)
                session_pi = isinstance(answer, Welcome)
                down.send(answer, packet.seq)
            elif isinstance(packet.msg, Key):
                if not session_pi:
                    down.send(Nak(of=MsgType.KEY, reason=NakReason.HELLO_FIRST), packet.seq)
                    continue
                verdict = dedup.accept(packet.seq)
                stats[verdict.value] += 1
                if verdict is KeyVerdict.NEW:
                    applied.append(packet.msg)
                ack = dedup.ack
                assert ack is not None
                down.send(Ack(of=MsgType.KEY), ack)
        for packet in down.deliver():
            if isinstance(packet.msg, Welcome) and not session_hh:
                session_hh = True
                sender.welcome(packet.msg)
                last_progress = t_ms - 100
            elif isinstance(packet.msg, Ack) and sender.acked(packet.seq):
                last_progress = t_ms
            elif isinstance(packet.msg, Nak) and packet.msg.reason is NakReason.HELLO_FIRST:
                session_hh = False
        assert t_ms < 600_000, "the link never delivered every key"
    stats["bad_up"] = up.decoder.bad
    stats["bad_down"] = down.decoder.bad
    return pressed, applied, stats


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_key_is_applied_exactly_once_over_a_lossy_link_with_replugs(seed: int) -> None:
    """20% of packets lost and 20% spoiled each way, two re-plugs: the Pi applies exactly the
    pressed keys, each once, in order, and it did have to drop duplicates."""
    pressed, applied, stats = run_key_link(seed, presses=300, loss=0.2)
    print(f"\nseed {seed}:", dict(stats))
    assert applied == pressed
    assert stats["duplicate"] > 0 and stats["replugs"] == 2 and stats["bad_up"] > 0


# --- FRAME delivery ---------------------------------------------------------------------------


def pages_with(page: int, fill: int, base: tuple[bytes, ...] | None = None) -> tuple[bytes, ...]:
    """``base`` (default blank) with page ``page`` filled with byte ``fill``."""
    out = list(base or blank_pages())
    out[page] = bytes([fill]) * PAGE_BYTES
    return tuple(out)


def test_frame_sender_sends_full_then_changed_pages_and_resends_what_is_in_doubt() -> None:
    """First a full frame; after its ACK only changed pages; an unacknowledged frame is
    replaced after 250 ms by a fresh seq carrying its pages; a late ACK is ignored."""
    sender = FrameSender(first_seq=65535)
    assert sender.due(0) is None
    first = pages_with(0, 0xAA)
    sender.show(first)
    seq, frame = sender.due(0) or (None, None)
    assert seq == 65535 and frame is not None and frame.mask == 0xFF
    assert sender.due(1) is None and sender.deadline_ns() == 250 * MS
    assert sender.acked(65535) and sender.in_sync and sender.deadline_ns() is None
    second = pages_with(5, 0x11, first)
    sender.show(second)
    due = sender.due(300 * MS)
    assert due == (0, Frame.of(second, [5]))
    third = pages_with(2, 0x22, second)
    sender.show(third)
    assert sender.due(400 * MS) is None
    resend = sender.due(550 * MS)
    assert resend == (1, Frame.of(third, [2, 5]))
    assert sender.acked(0) is False
    assert sender.acked(1) and sender.in_sync
    assert (sender.sent, sender.resends) == (3, 1)


def test_frame_sender_restart_and_nak_corrupt() -> None:
    """restart() (WELCOME, FRAME_REQUEST) makes the next frame full; resend_now() (NAK
    CORRUPT) replaces the outstanding frame at once."""
    sender = FrameSender()
    sender.show(pages_with(1, 1))
    sender.due(0)
    sender.resend_now()
    again = sender.due(1)
    assert again is not None and again[0] == 1 and again[1].mask == 0xFF
    sender.acked(1)
    sender.restart()
    full = sender.due(2)
    assert full is not None and full[1].mask == 0xFF


def test_frames_over_a_lossy_link_end_on_the_newest_picture() -> None:
    """600 random picture changes over a link losing or spoiling 40% of packets: the
    handheld's framebuffer ends equal to the newest picture, and no ACK is believed for a
    frame that never arrived."""
    rng = random.Random(11)
    down, up = Wire(rng, "handheld", 0.2), Wire(rng, "pi", 0.2)
    sender = FrameSender()
    screen = blank_pages()
    latest = blank_pages()
    now = 0
    for step in range(3000):
        now += 10 * MS
        if step < 600:
            latest = pages_with(rng.randrange(PAGES), rng.randrange(256), latest)
            sender.show(latest)
        due = sender.due(now)
        if due:
            down.send(due[1], due[0])
        for packet in down.deliver():
            assert isinstance(packet.msg, Frame)
            screen = apply_frame(screen, packet.msg)
            up.send(Ack(of=MsgType.FRAME), packet.seq)
        for packet in up.deliver():
            sender.acked(packet.seq)
    assert sender.in_sync
    assert screen == latest
    assert sender.resends > 0


# --- pictures ---------------------------------------------------------------------------------


def test_image_pages_use_the_ssd1306_page_layout() -> None:
    """Pixel (column 5, row 29) lands in page 3, byte 5, bit 5; nothing else is lit."""
    image = Image.new("1", (128, 64))
    image.putpixel((5, 29), 1)
    pages = image_pages(image)
    assert len(pages) == PAGES and all(len(p) == PAGE_BYTES for p in pages)
    assert pages[3][5] == 1 << 5
    assert sum(bin(b).count("1") for p in pages for b in p) == 1


def random_image(rng: random.Random) -> Image.Image:
    """A 128x64 mode "1" image of random pixels."""
    return Image.frombytes("1", (128, 64), rng.randbytes(1024))


def test_image_pages_match_a_pixel_by_pixel_reading_and_invert() -> None:
    """For seeded random images, image_pages equals reading each pixel, and pages_image
    gives the image back."""
    rng = random.Random(3)
    for _ in range(10):
        image = random_image(rng)
        px = image.load()
        assert px is not None
        slow = tuple(bytes(sum(1 << b for b in range(8) if px[i, 8 * p + b])
                           for i in range(128)) for p in range(8))
        assert image_pages(image) == slow
        assert pages_image(slow).tobytes() == image.tobytes()


def test_diff_and_apply_pages() -> None:
    """changed_pages finds the changed page, diff_frame carries it, apply_frame blits it."""
    rng = random.Random(4)
    old = image_pages(random_image(rng))
    new = list(old)
    new[6] = bytes(PAGE_BYTES)
    assert changed_pages(old, new) == (6,)
    assert changed_pages(None, new) == tuple(range(8))
    frame = diff_frame(old, new)
    assert [i for i, _ in frame.pages] == [6]
    assert apply_frame(old, frame) == tuple(new)
    assert diff_frame(new, new) == Frame(pages=())


def test_image_of_the_wrong_mode_or_size_is_one_line() -> None:
    """An RGB image or a 128x32 one is refused with its mode and size named."""
    with pytest.raises(DriverValueError, match=r"image must be mode '1' 128x64, got mode "
                                               r"'RGB' 128x64"):
        image_pages(Image.new("RGB", (128, 64)))
    with pytest.raises(DriverValueError, match="got mode '1' 128x32"):
        image_pages(Image.new("1", (128, 32)))


# --- building messages ------------------------------------------------------------------------

BAD_MESSAGES: list[tuple[Callable[[], object], str]] = [
    (lambda: Key(key="up", down=True, t_ms=0),
     "Key.key must be one of left, right, select, back, got 'up'"),
    (lambda: Key(key="left", down=1, t_ms=0), "Key.down must be a bool, got 1"),  # type: ignore[arg-type]
    (lambda: Pong(t_ms=1 << 32), "Pong.t_ms must be an integer 0..4294967295, got 4294967296"),
    (lambda: Frame(pages=((3, b"\x00" * 127),)), "Frame page 3 must be 128 bytes, got 127"),
    (lambda: Frame(pages=((3, bytes(128)), (1, bytes(128)))),
     "Frame.pages indices must be ascending and unique, got 1 after 3"),
    (lambda: hello(handheld_id="seat 3"),
     "Hello.handheld_id must be printable ASCII without spaces, got ' ' in 'seat 3'"),
    (lambda: hello(handheld_id="x" * 33), "Hello.handheld_id must be 1..32 characters, got 33"),
    (lambda: hello(version_min=2, version_max=1), "Hello.version_min 2 is above version_max 1"),
    (lambda: Ack(of=MsgType.PING), "Ack.of must be MsgType.KEY or MsgType.FRAME"),
    (lambda: Nak(of=0, reason=NakReason.CORRUPT, text="é"),
     "Nak.text must be printable ASCII, got 'é' in 'é'"),
    (lambda: encode(Ping(), 65536), "encode.seq must be an integer 0..65535, got 65536"),
    (lambda: encode("PING", 1), "encode: not a protocol message: 'PING'"),  # type: ignore[arg-type]
    (lambda: Decoder(receiver="tv"), "Decoder receiver must be one of pi, handheld, any"),
]


@pytest.mark.parametrize(("build", "line"), BAD_MESSAGES, ids=[b[1][:30] for b in BAD_MESSAGES])
def test_a_bad_field_is_one_line_naming_it(build: Callable[[], object], line: str) -> None:
    """Building a message with a bad field raises DriverValueError naming field and value."""
    with pytest.raises(DriverValueError) as info:
        build()
    assert str(info.value).startswith("handheld codec: " + line)


def iter_messages_in_doc() -> Iterator[str]:
    """The message names of PROTOCOL.md's layout sections."""
    yield from re.findall(r"^### (\w+) \(0x[0-9A-F]{2}\)", DOC.read_text(), re.M)


def test_document_describes_every_message_type_with_its_code() -> None:
    """PROTOCOL.md has a layout section for each MsgType, headed with its type byte."""
    text = DOC.read_text()
    assert list(iter_messages_in_doc()) == [t.name for t in MsgType]
    for t in MsgType:
        assert f"### {t.name} (0x{t.value:02X})" in text
