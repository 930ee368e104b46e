"""The old JSON-lines journal (``journal.log``, the format before the game database): read
once at start-up and carried over as a game by ``device.store.game_db.GameDB``.

Format: one ``<crc32 hex>\t<json>\n`` per line, line 1 the header
(:class:`~device.store.records.JournalHeader`), then ``{"action": ...}`` and
``{"decision": ..., "data": {...}}`` records.  Reading stops at the first torn or corrupt
line, which is named.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

from device.store.records import ActionRecord, DecisionRecord, JournalError, JournalHeader, Record


def read_legacy(path: Path) -> tuple[JournalHeader, list[Record], str | None]:
    """Read an old JSON-lines journal (``<crc32 hex>\\t<json>\\n`` per line, line 1 the
    header): the header, the good records up to the first torn or corrupt line, and that
    line's one-line problem (or ``None``).  Raises :class:`JournalError` for a bad header,
    ``OSError`` when it cannot be read."""
    data = path.read_bytes()[: 16 * 1024 * 1024]
    lines = data.split(b"\n")
    if len(lines) < 2:
        raise JournalError(f"{path.name} line 1: header line is torn or missing")
    try:
        header = JournalHeader.from_json(_decode_line(lines[0]))
    except JournalError as err:
        raise JournalError(f"{path.name} line 1: {err}") from None
    records: list[Record] = []
    for number, raw in enumerate(lines[1:-1], start=2):
        try:
            records.append(_record_from_json(_decode_line(raw)))
        except JournalError as err:
            return header, records, f"{path.name} line {number}: {err}"
    return header, records, None if not lines[-1] else f"{path.name}: torn last line"


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


__all__ = ["read_legacy"]
