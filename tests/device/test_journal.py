"""The crash-safe game journal and write_atomic (architecture "Persistence and power loss")."""

from __future__ import annotations

import json
import os
import random
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from device.arbiter import SlapArbiter
from device.journal import (
    ActionRecord,
    DecisionRecord,
    Journal,
    JournalError,
    JournalHeader,
    Record,
    write_atomic,
)

HEADER = JournalHeader(
    game="riiing",
    seats=3,
    seed=42,
    options={"hand_size": 7, "false_slap_penalty": 1, "deck": "default"},
    first=2,
    device_seed=977,
    seat_kinds=("human", "computer", "human"),
)


class _Press:
    """A press edge: seat and edge time in ns."""

    def __init__(self, seat: int, t_ns: int) -> None:
        self.seat = seat
        self.t_ns = t_ns


def slap_decision_record() -> DecisionRecord:
    """A real tie decision from the arbiter (seed 5), as the device journals it."""
    arb = SlapArbiter(3, random.Random(5))
    arb.engine_window_opened(1_000)
    arb.flipped(2_000)
    for seat in (0, 2):
        arb.press(_Press(seat, 9_000), 9_500)
    decision = arb.poll(9_500 + arb.settle_ns)
    assert decision is not None and decision.tie
    return DecisionRecord("slap", decision.to_json())


RECORDS: tuple[Record, ...] = (
    ActionRecord("play 5C/>"),
    ActionRecord("draw"),
    slap_decision_record(),
    ActionRecord("slap 2"),
    DecisionRecord("stuck", {"seat": 1, "t_ns": 123}),
    ActionRecord('play P/{1,4,7} "quoted"\tand tab'),
)


def write_game(path: Path) -> None:
    """Create a journal at ``path`` with HEADER and RECORDS."""
    with Journal.create(path, HEADER) as journal:
        for record in RECORDS:
            journal.append(record)


def test_round_trip(tmp_path: Path) -> None:
    """Header, actions and decisions read back equal, with no problem reported."""
    path = tmp_path / "game.journal"
    write_game(path)
    contents = Journal.read(path)
    assert contents.header == HEADER
    assert contents.records == RECORDS
    assert contents.problem is None
    assert contents.valid_bytes == path.stat().st_size


def test_line_format_is_crc32_hex_tab_json(tmp_path: Path) -> None:
    """Each line is 8 hex digits of zlib.crc32 over the JSON bytes, a tab, the JSON."""
    path = tmp_path / "game.journal"
    write_game(path)
    lines = path.read_bytes().split(b"\n")
    assert len(lines) == 1 + len(RECORDS) + 1 and lines[-1] == b""
    crc, body = lines[2].split(b"\t", 1)
    assert body == b'{"action":"draw"}'
    assert crc == b"%08x" % zlib.crc32(body)


def test_every_append_is_fsynced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """create fsyncs the header file and the directory; each append fsyncs once more."""
    calls: list[int] = []
    real_fsync = os.fsync

    def spy(fd: int) -> None:
        calls.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", spy)
    journal = Journal.create(tmp_path / "g.journal", HEADER)
    assert len(calls) == 2
    journal.append(ActionRecord("draw"))
    journal.append(ActionRecord("timeout"))
    assert len(calls) == 4
    assert Journal.read(tmp_path / "g.journal").records == (
        ActionRecord("draw"),
        ActionRecord("timeout"),
    ), "on disk before close"
    journal.close()
    journal.close()
    with pytest.raises(JournalError, match="journal is closed"):
        journal.append(ActionRecord("draw"))


def test_torn_last_line_is_dropped(tmp_path: Path) -> None:
    """A power cut mid-write: the torn last line is dropped and named, nothing raised."""
    path = tmp_path / "game.journal"
    write_game(path)
    path.write_bytes(path.read_bytes()[:-7])
    contents = Journal.read(path)
    assert contents.records == RECORDS[:-1]
    assert contents.problem is not None
    assert f"line {len(RECORDS) + 1}: torn last line" in contents.problem
    assert "\n" not in contents.problem


def test_flipped_byte_in_the_middle_stops_the_replay_there(tmp_path: Path) -> None:
    """A corrupt middle line ends the replay before it; the message names that line."""
    path = tmp_path / "game.journal"
    write_game(path)
    data = bytearray(path.read_bytes())
    lines = data.split(b"\n")
    start = sum(len(line) + 1 for line in lines[:3])  # line 4 = the third record
    data[start + 12] ^= 0x01
    path.write_bytes(bytes(data))
    contents = Journal.read(path)
    assert contents.records == RECORDS[:2]
    assert contents.problem == (
        f"{path} line 4: checksum mismatch (corrupt line): the replay stops before it "
        f"(3 later lines dropped)"
    )


def test_resume_cuts_the_bad_tail_and_appends_after_good_lines(tmp_path: Path) -> None:
    """After a torn write, resume truncates to the good prefix so new lines read back."""
    path = tmp_path / "game.journal"
    write_game(path)
    path.write_bytes(path.read_bytes()[:-3])
    journal, contents = Journal.resume(path)
    with journal:
        assert contents.problem is not None
        journal.append(ActionRecord("timeout"))
    again = Journal.read(path)
    assert again.problem is None
    assert again.records == (*RECORDS[:-1], ActionRecord("timeout"))


def test_empty_file_is_a_clear_error(tmp_path: Path) -> None:
    """An empty journal has no header: JournalError with one line naming the file."""
    path = tmp_path / "game.journal"
    path.write_bytes(b"")
    with pytest.raises(JournalError, match="empty journal"):
        Journal.read(path)


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda d: d[:20], "line 1: header line is torn"),
        (lambda d: b"0" + d[1:], "line 1: checksum mismatch"),
        (lambda d: b"not a journal\n", "line 1: not a journal line"),
    ],
)
def test_corrupt_header_raises(
    tmp_path: Path, mangle: Callable[[bytes], bytes], message: str
) -> None:
    """A torn or corrupt header is a JournalError naming line 1."""
    path = tmp_path / "game.journal"
    write_game(path)
    path.write_bytes(mangle(path.read_bytes()))
    with pytest.raises(JournalError, match=message):
        Journal.read(path)


def test_header_of_another_version_or_shape_is_refused(tmp_path: Path) -> None:
    """A well-checksummed header of another version or with a bad field is refused."""
    path = tmp_path / "game.journal"
    for obj, message in [
        ({**HEADER.to_json(), "version": 9}, "journal version 9 is not supported"),
        ({**HEADER.to_json(), "seat_kinds": ["human"]}, "seat_kinds must be 3 words"),
        ({**HEADER.to_json(), "first": 3}, r"first must be a seat 0\.\.2, got 3"),
        ({"game": "riiing"}, "not a partytable journal header"),
    ]:
        body = json.dumps(obj).encode()
        path.write_bytes(b"%08x\t%s\n" % (zlib.crc32(body), body))
        with pytest.raises(JournalError, match=message):
            Journal.read(path)


def test_record_that_is_not_json_is_refused(tmp_path: Path) -> None:
    """Data JSON cannot hold is a JournalError at append, and nothing is written."""
    with (
        Journal.create(tmp_path / "g.journal", HEADER) as journal,
        pytest.raises(JournalError, match="not JSON"),
    ):
        journal.append(DecisionRecord("slap", {"when": object()}))
    assert Journal.read(tmp_path / "g.journal").records == ()


def test_write_atomic_writes_new_content(tmp_path: Path) -> None:
    """write_atomic creates or replaces the file and leaves no temporary file behind."""
    path = tmp_path / "lobby.json"
    write_atomic(path, '{"game": "riiing"}')
    write_atomic(path, '{"game": "right-on-time", "seats": 4}')
    assert path.read_text() == '{"game": "right-on-time", "seats": 4}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lobby.json"]


@pytest.mark.parametrize("fails", ["fsync", "replace"])
def test_write_atomic_failure_leaves_the_old_content(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fails: str
) -> None:
    """A failure before the rename (power cut stand-in) keeps the old file whole."""
    path = tmp_path / "lobby.json"
    write_atomic(path, "old choices")

    def broken(*args: object) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, fails, broken)
    with pytest.raises(OSError, match="Input/output error"):
        write_atomic(path, "new choices")
    monkeypatch.undo()
    assert path.read_text() == "old choices"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lobby.json"]
