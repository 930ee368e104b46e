"""The crash-safe game journal and atomic file replacement (architecture "Persistence and
power loss").

A game is its header (game name, seats, seed, options, first seat, device seed, seat kinds)
plus the list of applied engine actions (notation text, ``design/notation.md``) and device
decisions (slap decisions with their tie draws, stuck buttons, ...).  Replaying the actions
from ``engine.new(seats, seed, options, first)`` gives back the exact position after a power
cut; the decisions let the device RNG be replayed exactly (architecture "Slap arbitration" 7).

File format: UTF-8 text, one record per line::

    <crc>\\t<json>\\n

``<json>`` is one compact JSON object (JSON escapes newlines, so it never spans lines) and
``<crc>`` is ``zlib.crc32`` of its UTF-8 bytes as 8 lowercase hex digits.  Line 1 is the
header, ``{"journal": "partytable", "version": 1, "game": ..., "seats": ..., "seed": ...,
"options": {...}, "first": ..., "device_seed": ..., "seat_kinds": [...]}``; every later line
is ``{"action": "<action text>"}`` or ``{"decision": "<kind>", "data": {...}}``.

Durability: :meth:`Journal.create` writes the header to a temporary file, fsyncs it,
``os.replace``-s it into place and fsyncs the directory, so a journal always has a whole
header; every :meth:`Journal.append` writes one line, flushes and ``os.fsync``-s.  A power
cut can leave only a torn (or garbled) last line: :meth:`Journal.read` stops cleanly before
the first bad line and names it in one line.  :func:`write_atomic` replaces small files
(the lobby's remembered choices) with old-or-new semantics.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import tempfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from drivers.closing import ClosesOnExit
from engine.core import OptionValue, Seat

FORMAT_NAME = "partytable"
"""The header's ``"journal"`` field: this file is a partytable journal."""

FORMAT_VERSION = 1
"""The header's ``"version"`` field this module writes and reads."""

StrPath = str | os.PathLike[str]
"""A file path as ``open`` takes it."""


class JournalError(ValueError):
    """A journal that cannot be read (a missing, torn or corrupt header: the message names
    the file and line 1) or a record that cannot be written (not JSON, a closed journal).
    ``str(err)`` is one line."""


@dataclass(frozen=True)
class JournalHeader:
    """What starts a game: ``game`` (registry name, e.g. ``"riiing"``), ``seats`` (>= 1),
    ``seed`` (the position's shuffle seed), ``options`` (rule options, name -> int, bool or
    str), ``first`` (the seat that opens, 0..seats-1), ``device_seed`` (seed of the device
    RNG: ties, computer players) and ``seat_kinds`` (one word per seat, e.g. ``"human"``,
    ``"computer"``).  Raises :class:`JournalError` naming the first bad field."""

    game: str
    seats: int
    seed: int
    options: Mapping[str, OptionValue]
    first: Seat
    device_seed: int
    seat_kinds: tuple[str, ...]

    def __post_init__(self) -> None:
        def whole(name: str, value: object) -> int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise JournalError(f"journal header: {name} must be an integer, got {value!r}")
            return value

        if not isinstance(self.game, str) or not self.game:
            raise JournalError(f"journal header: game must be a name, got {self.game!r}")
        if whole("seats", self.seats) < 1:
            raise JournalError(f"journal header: seats must be at least 1, got {self.seats}")
        whole("seed", self.seed)
        whole("device_seed", self.device_seed)
        if not 0 <= whole("first", self.first) < self.seats:
            raise JournalError(
                f"journal header: first must be a seat 0..{self.seats - 1}, got {self.first}"
            )
        if not isinstance(self.options, Mapping):
            raise JournalError(f"journal header: options must be an object, got {self.options!r}")
        for key, value in self.options.items():
            if not isinstance(key, str) or not isinstance(value, int | str):
                raise JournalError(
                    f"journal header: option {key!r} must be a number, true/false or text, "
                    f"got {value!r}"
                )
        kinds = self.seat_kinds
        if (
            not isinstance(kinds, tuple)
            or len(kinds) != self.seats
            or not all(isinstance(k, str) and k for k in kinds)
        ):
            raise JournalError(
                f"journal header: seat_kinds must be {self.seats} words, one per seat, "
                f"got {kinds!r}"
            )
        object.__setattr__(self, "options", dict(self.options))

    def to_json(self) -> dict[str, Any]:
        """The header line's JSON object, ``"journal"`` and ``"version"`` included."""
        return {
            "journal": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "game": self.game,
            "seats": self.seats,
            "seed": self.seed,
            "options": dict(self.options),
            "first": self.first,
            "device_seed": self.device_seed,
            "seat_kinds": list(self.seat_kinds),
        }

    @classmethod
    def from_json(cls, obj: object) -> JournalHeader:
        """Read :meth:`to_json`'s object; raises :class:`JournalError` naming what is wrong
        (not a partytable journal, another version, a missing or bad field)."""
        if not isinstance(obj, dict) or obj.get("journal") != FORMAT_NAME:
            raise JournalError("not a partytable journal header")
        if obj.get("version") != FORMAT_VERSION:
            raise JournalError(
                f"journal version {obj.get('version')!r} is not supported "
                f"(this device reads {FORMAT_VERSION})"
            )
        names = ("game", "seats", "seed", "options", "first", "device_seed", "seat_kinds")
        missing = [n for n in names if n not in obj]
        if missing:
            raise JournalError(f"journal header: {missing[0]} is missing")
        kinds = obj["seat_kinds"]
        fields: dict[str, Any] = {n: obj[n] for n in names}
        fields["seat_kinds"] = tuple(kinds) if isinstance(kinds, list) else kinds
        return cls(**fields)


@dataclass(frozen=True)
class ActionRecord:
    """An engine action the device applied, in notation (``"play 5C/>"``, ``"slap 3"``,
    ``"timeout"``, ``"falseslap 1"``)."""

    action: str

    def to_json(self) -> dict[str, Any]:
        """``{"action": <text>}``."""
        return {"action": self.action}


@dataclass(frozen=True)
class DecisionRecord:
    """A device decision: ``kind`` (e.g. ``"slap"`` with ``SlapDecision.to_json()`` as
    ``data``, ``"stuck"``, ``"race"``) and ``data``, a JSON object (tuples read back as
    lists)."""

    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """``{"decision": <kind>, "data": {...}}``."""
        return {"decision": self.kind, "data": dict(self.data)}


Record = ActionRecord | DecisionRecord
"""One line after the header."""


class JournalContents(NamedTuple):
    """What :meth:`Journal.read` found: the ``header``, the good ``records`` in order,
    ``problem`` (``None``, or one line naming the first bad line and what was dropped),
    ``valid_bytes`` (length of the good prefix of the file, in bytes) and ``ends`` (the byte
    offset just after each record's line, so a reader can keep only the first k records:
    :meth:`Journal.resume`) and ``header_bytes`` (the header line's length)."""

    header: JournalHeader
    records: tuple[Record, ...]
    problem: str | None
    valid_bytes: int
    ends: tuple[int, ...] = ()
    header_bytes: int = 0


class Journal(ClosesOnExit):
    """An open journal that appends one fsynced line per record.

    Make one with :meth:`create` (a new game) or :meth:`resume` (continue after a power
    cut); read one with :meth:`read`.  Use it as a context manager or call :meth:`close`
    (idempotent).
    """

    def __init__(self, path: Path, file: BinaryIO) -> None:
        """Internal: use :meth:`create` or :meth:`resume`."""
        self.path = path
        self._file: BinaryIO | None = file
        self._size = file.seek(0, os.SEEK_END)
        """Bytes of whole, fsynced records: a failed append is cut back to this."""

    @classmethod
    def create(cls, path: StrPath, header: JournalHeader) -> Journal:
        """Start a journal at ``path`` holding only ``header``; an existing file there is
        replaced atomically (old journal or new one, never half of either).  The header is
        fsynced and so is the directory.  Raises ``OSError`` if the directory is not
        writable."""
        target = Path(path)
        _replace_bytes(target, _encode_line(header.to_json()))
        return cls(target, open(target, "ab", buffering=0))

    @classmethod
    def resume(
        cls, path: StrPath, keep: int | None = None
    ) -> tuple[Journal, JournalContents]:
        """Open an existing journal to continue its game: read it (see :meth:`read`), cut
        off a torn or corrupt tail — and, with ``keep``, every record after the first
        ``keep`` (a record the reader could not use) — so new lines follow good ones
        (fsynced), and open it for appending.  Raises what :meth:`read` raises."""
        target = Path(path)
        contents = cls.read(target)
        size = contents.valid_bytes
        if keep is not None and keep < len(contents.records):
            size = contents.ends[keep - 1] if keep > 0 else contents.header_bytes
        if target.stat().st_size != size:
            with open(target, "r+b") as f:
                f.truncate(size)
                f.flush()
                os.fsync(f.fileno())
        return cls(target, open(target, "ab", buffering=0)), contents

    @staticmethod
    def read(path: StrPath) -> JournalContents:
        """Read the journal at ``path``: the header and every good record up to the first
        bad line.  A torn or corrupt line (power cut mid-write, a flipped byte) ends the
        replay there and is reported in ``problem`` as one line naming the file and line
        number; it is never raised.  Raises :class:`JournalError` for an empty file or a
        bad header (line 1), ``OSError`` (e.g. ``FileNotFoundError``) if it cannot be
        read."""
        target = Path(path)
        data = target.read_bytes()
        if not data:
            raise JournalError(f"{target}: empty journal (no header line)")
        lines = data.split(b"\n")
        if len(lines) == 1:
            raise JournalError(f"{target} line 1: header line is torn (no end of line)")
        try:
            header = JournalHeader.from_json(_decode_line(lines[0]))
        except JournalError as err:
            raise JournalError(f"{target} line 1: {err}") from None
        offset = len(lines[0]) + 1
        records: list[Record] = []
        ends: list[int] = []
        problem: str | None = None
        body = lines[1:]
        for index, raw in enumerate(body):
            number = index + 2
            if index == len(body) - 1:
                if raw:
                    problem = (
                        f"{target} line {number}: torn last line ({len(raw)} bytes, no end "
                        f"of line): dropped"
                    )
                break
            try:
                records.append(_record_from_json(_decode_line(raw)))
            except JournalError as err:
                later = len(body) - index - 2 + (1 if body[-1] else 0)
                dropped = f" ({later} later lines dropped)" if later else ""
                problem = f"{target} line {number}: {err}: the replay stops before it{dropped}"
                break
            offset += len(raw) + 1
            ends.append(offset)
        return JournalContents(header, tuple(records), problem, offset, tuple(ends),
                               len(lines[0]) + 1)

    def append(self, record: Record) -> None:
        """Write ``record`` as one line, flush and ``os.fsync``: on disk when this returns.
        Raises :class:`JournalError` if the journal is closed or the record's data is not
        JSON, ``OSError`` if the write fails (e.g. a full disk); the file is then cut back to
        its last whole record, so calling ``append`` again later retries cleanly."""
        if self._file is None:
            raise JournalError(f"{self.path}: journal is closed")
        line = _encode_line(record.to_json())
        f = self._file
        try:
            if f.seek(0, os.SEEK_END) != self._size:
                f.truncate(self._size)  # a failed append left part of a line: cut it off
            view = memoryview(line)
            while view:  # unbuffered: a short write leaves nothing behind in a buffer
                written = f.write(view)
                if not written:
                    raise OSError(errno.ENOSPC, "journal write made no progress")
                view = view[written:]
            os.fsync(f.fileno())
        except OSError:
            with contextlib.suppress(OSError):
                f.truncate(self._size)
            raise
        self._size += len(line)

    def close(self) -> None:
        """Close the file; calling it again does nothing."""
        if self._file is not None:
            self._file.close()
            self._file = None


def write_atomic(path: StrPath, text: str) -> None:
    """Replace the file at ``path`` with ``text`` (UTF-8) so that after a power cut it holds
    either the old content or the new, never a mix: write a temporary file in the same
    directory, fsync it, ``os.replace`` it over ``path``, fsync the directory.  The
    temporary file is removed if anything fails.  Raises ``OSError``."""
    _replace_bytes(Path(path), text.encode("utf-8"))


def _replace_bytes(path: Path, data: bytes) -> None:
    """Atomically replace ``path`` with ``data`` (see :func:`write_atomic`)."""
    directory = path.parent
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(directory)


def _fsync_dir(directory: Path) -> None:
    """fsync a directory so a new or renamed entry in it survives a power cut."""
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _encode_line(obj: Mapping[str, Any]) -> bytes:
    """``<crc32 hex>\\t<compact json>\\n`` as UTF-8 bytes; JournalError if not JSON."""
    try:
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as err:
        raise JournalError(f"journal record is not JSON: {err}") from None
    body = text.encode("utf-8")
    return b"%08x\t%s\n" % (zlib.crc32(body), body)


def _decode_line(raw: bytes) -> object:
    """The JSON value of one line (without its newline); JournalError saying what is bad."""
    crc, tab, body = raw[:8], raw[8:9], raw[9:]
    if tab != b"\t":
        raise JournalError("not a journal line (no checksum field)")
    if crc != b"%08x" % zlib.crc32(body):
        raise JournalError("checksum mismatch (corrupt line)")
    try:
        value: object = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise JournalError(f"unreadable JSON ({err})") from None
    return value


def _record_from_json(obj: object) -> Record:
    """An :class:`ActionRecord` or :class:`DecisionRecord`; JournalError if neither."""
    if isinstance(obj, dict):
        if set(obj) == {"action"} and isinstance(obj["action"], str):
            return ActionRecord(obj["action"])
        if (
            set(obj) == {"decision", "data"}
            and isinstance(obj["decision"], str)
            and isinstance(obj["data"], dict)
        ):
            return DecisionRecord(obj["decision"], obj["data"])
    raise JournalError("not an action or decision record")
