"""An open game database's rows (``device.store.game_db``, schema ``device.store.db_schema``): each
game's header and records written one transaction at a time and read back, its decided
slaps, the finished games pruned.

Writing: every record is one transaction, on disk (WAL fsynced) when
:meth:`GameRows.append` returns; a power cut loses at most the record being written, never a
committed one (https://www.sqlite.org/atomiccommit.html).

Reading (:meth:`GameRows.game`): text is read as bytes and every stored JSON or text value
is decoded by one function (:func:`_decoded`, :func:`_text`): bytes that are not UTF-8,
JSON nested past the parser's depth, a number past Python's digit limit, a value of the
wrong type are a damaged row (:class:`JournalError`), never another exception.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from device.store.db_schema import SCHEMA_VERSION, StateError, first_problem, reason_of
from device.store.records import (
    START_RECORD,
    ActionRecord,
    DecisionRecord,
    JournalError,
    JournalHeader,
    Record,
)
from drivers.closing import ClosesOnExit
from engine.core import Seat

log = logging.getLogger("partytable")

__all__ = [
    "KEEP_GAMES",
    "GameRows",
    "SlapRow",
    "StoredGame",
    "insert_game",
    "json_text",
    "utc_now",
]

KEEP_GAMES = 200
"""Finished games kept; older ones are pruned at start-up and after every game."""


@dataclass(frozen=True)
class SlapRow:
    """A decided slap for the ``slaps`` table: ``race`` (``"wakeup"`` or ``"window"``),
    winning ``seat``, its ``reaction_ms`` (ms after the window opened), ``margin_ms`` to the
    next slapper (``None``: nobody else slapped) and whether a seeded tie-break decided it."""

    race: str
    seat: Seat
    reaction_ms: float
    margin_ms: float | None
    tie: bool


@dataclass(frozen=True)
class StoredGame:
    """One game read back from the database: its ``id``, ``header``, ``records`` in order,
    ``started_at``/``ended_at`` (ISO-8601 UTC text; ``ended_at`` ``None`` while unfinished),
    ``outcome`` (``"won"``, ``"abandoned"`` or ``None``: unfinished) and ``winner``."""

    id: int
    header: JournalHeader
    records: tuple[Record, ...]
    started_at: str
    ended_at: str | None = None
    outcome: str | None = None
    winner: Seat | None = None

    @property
    def actions(self) -> list[str]:
        """The engine actions in order (notation text)."""
        return [r.action for r in self.records if isinstance(r, ActionRecord)]


def utc_now() -> str:
    """The wall-clock time as ISO-8601 UTC text, e.g. ``"2026-12-01T18:14:04Z"`` (for
    people and for ``history``; never used for game timing)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class GameRows(ClosesOnExit):
    """The rows of an open game database: games and their records, slaps and pruning
    (module docstring); ``device.store.game_db.GameDB`` opens one and adds the start-up and
    tonight's leaderboard.  Use it as a context manager or call :meth:`close`
    (idempotent).  Every writing method is one transaction and raises :class:`StateError`
    (one line) when it cannot be written — a full disk, a read-only directory — leaving the
    database as it was before the call."""

    def __init__(self, path: Path, conn: sqlite3.Connection, *, version: int = SCHEMA_VERSION,
                 boot: str = "") -> None:
        """Rows of the database file ``path`` read and written through ``conn`` (autocommit
        mode: the transactions are explicit), of schema ``version``; ``boot``: this boot's
        id, stored with each new game."""
        self.path = path
        self._conn: sqlite3.Connection | None = conn
        self.version = version
        """The schema version of the open database (one of
        :data:`~device.store.db_schema.READ_VERSIONS`)."""
        self.boot = boot
        """This boot's id (``device.store.game_db.boot_id``), stored with each new game."""
        self.skipped = 0
        """How many games the last :meth:`games` left out because their row did not read."""

    # ------------------------------------------------------------------ writing
    def new_game(self, header: JournalHeader, started_at: str | None = None) -> int:
        """Insert a new, unfinished game; returns its id."""
        with self._txn() as c:
            return insert_game(c, header, started_at or utc_now(), self.boot or None)

    def append(self, game_id: int, record: Record, slap: SlapRow | None = None) -> int:
        """Append ``record`` (and its ``slap`` row) to game ``game_id`` in one transaction,
        on disk when this returns (the deal's record, :data:`START_RECORD`, also sets the
        game's first seat in that transaction); returns the record's ``seq`` (0, 1, ...:
        one after the largest whole-number seq below :data:`_SEQ_MAX`, so a damaged row's seq never
        blocks the next record).  Raises
        :class:`JournalError` when the record's data is not JSON, :class:`StateError` when
        it cannot be written."""
        if isinstance(record, ActionRecord):
            row: tuple[str | None, str | None, str | None] = (record.action, None, None)
        else:
            row = (None, record.kind, json_text(dict(record.data)))
        with self._txn() as c:
            if not isinstance(record, ActionRecord) and record.kind == START_RECORD:
                # the deal: its first seat (a wake-up race, journaled before it, decided
                # it) goes into the game's row with the record, so the row never says
                # another seat starts than the one that did
                c.execute("UPDATE games SET first = ? WHERE id = ?",
                          (int(record.data["first"]), game_id))
            # after the last whole-number seq that can grow: a damaged row's seq (text, the
            # largest integer) would make every later insert collide
            seq = c.execute("SELECT COALESCE(MAX(seq) + 1, 0) FROM records WHERE game_id = ? "
                            "AND typeof(seq) = 'integer' AND seq >= 0 AND seq < ?",
                            (game_id, _SEQ_MAX)).fetchone()[0]
            c.execute("INSERT INTO records VALUES (?, ?, ?, ?, ?)", (game_id, seq, *row))
            if slap is not None:
                self._insert_slap(c, game_id, int(seq), slap)
        return int(seq)

    def _insert_slap(self, c: sqlite3.Connection, game_id: int, seq: int,
                     slap: SlapRow) -> None:
        """Insert ``slap`` for record ``seq`` in the open transaction, in a savepoint: when
        the ``slaps`` table refuses the row for its shape (:data:`_ROW_REFUSED`: wrong
        columns, a constraint, a type mismatch) only the row is rolled back and dropped,
        with one log line naming the table, so its record and every later one are still
        written (a row that would fail at every retry must never block the game's other
        rows).  Any other error (full, read-only, I/O, busy) propagates and the whole
        record is retried (https://www.sqlite.org/lang_savepoint.html,
        https://www.sqlite.org/rescode.html)."""
        c.execute("SAVEPOINT slap")
        try:
            c.execute("INSERT INTO slaps VALUES (?, ?, ?, ?, ?, ?, ?)",
                      (game_id, seq, slap.race, slap.seat, slap.reaction_ms,
                       slap.margin_ms, int(slap.tie)))
        except sqlite3.Error as err:
            name = getattr(err, "sqlite_errorname", "")
            if not name.startswith(_ROW_REFUSED):
                raise
            c.execute("ROLLBACK TO slap")
            c.execute("RELEASE slap")
            log.error("%s: table slaps refused game %d record %d's slap row (%s); row "
                      "dropped, the record is kept", self.path, game_id, seq, reason_of(err))
            return
        c.execute("RELEASE slap")

    def end_game(self, game_id: int, *, winner: Seat | None, abandoned: bool = False,
                 summary: Mapping[str, Any] | None = None) -> None:
        """Mark game ``game_id`` finished (``"won"``, or ``"abandoned"``), so it is never
        resumed; then prune old games."""
        with self._txn() as c:
            c.execute("UPDATE games SET ended_at = ?, outcome = ?, winner = ?, summary = ? "
                      "WHERE id = ?",
                      (utc_now(), "abandoned" if abandoned else "won", winner,
                       json_text(dict(summary or {})), game_id))
        self.prune()

    def abandon_unfinished(self) -> int:
        """End every unfinished game without a winner (a run that never resumes, such as
        the headless one, so its cut games do not stay unfinished and unpruned for ever);
        returns how many."""
        with self._txn() as c:
            cur = c.execute("UPDATE games SET ended_at = ?, outcome = 'abandoned', summary = "
                            "'{\"not_resumed\": true}' WHERE outcome IS NULL", (utc_now(),))
            return int(cur.rowcount)

    def cut_back(self, game_id: int, keep: int) -> None:
        """Set aside every record of game ``game_id`` after its first ``keep`` in seq order
        (as :meth:`game` reads them; records the replay could not use: moved to the
        ``dropped`` table, never deleted), so the game goes on from the last good one.  The
        cut is at the seq of record ``keep``, not at seq ``keep``: a seq may be missing."""
        with self._txn() as c:
            row = c.execute("SELECT seq FROM records WHERE game_id = ? ORDER BY seq LIMIT 1 "
                            "OFFSET ?", (game_id, keep)).fetchone()
            if row is None:
                return  # no more than ``keep`` records
            cut = row[0]
            c.execute("INSERT OR REPLACE INTO dropped SELECT game_id, seq, action, decision, "
                      "data FROM records WHERE game_id = ? AND seq >= ?", (game_id, cut))
            c.execute("DELETE FROM records WHERE game_id = ? AND seq >= ?", (game_id, cut))
            c.execute("DELETE FROM slaps WHERE game_id = ? AND seq >= ?", (game_id, cut))

    def prune(self, keep_games: int = KEEP_GAMES) -> int:
        """Delete finished games beyond the newest ``keep_games`` (their records and slaps
        with them) and the boots no game is left of; returns how many games were deleted.
        Unfinished games are never pruned."""
        with self._txn() as c:
            cur = c.execute(
                "DELETE FROM games WHERE outcome IS NOT NULL AND id NOT IN (SELECT id FROM "
                "games WHERE outcome IS NOT NULL ORDER BY id DESC LIMIT ?)", (keep_games,))
            pruned = int(cur.rowcount)
            # a boot with no game left is forgotten (a night is compared by its name)
            c.execute("DELETE FROM boots WHERE boot_id != ? AND boot_id NOT IN (SELECT "
                      "boot_id FROM games WHERE boot_id IS NOT NULL)", (self.boot,))
        if pruned:
            with contextlib.suppress(sqlite3.Error):
                self._c.execute("PRAGMA incremental_vacuum").fetchall()  # every free page
        return pruned

    # ------------------------------------------------------------------ reading
    def unfinished(self) -> StoredGame | None:
        """The newest game with no outcome (the one a power cut interrupted), or ``None``.
        Raises :class:`JournalError` when its stored header does not read."""
        game_id = self.unfinished_id()
        return None if game_id is None else self.game(game_id)

    def unfinished_id(self) -> int | None:
        """The id of :meth:`unfinished`'s game (even when its row does not read), or
        ``None``.  Raises :class:`StateError` when the database cannot be read."""
        try:
            row = self._c.execute("SELECT id FROM games WHERE outcome IS NULL ORDER BY id "
                                  "DESC LIMIT 1").fetchone()
        except sqlite3.Error as err:
            raise StateError(f"{self.path}: {reason_of(err)}") from None
        return None if row is None else int(row[0])

    def game(self, game_id: int) -> StoredGame:
        """Game ``game_id`` with its records.  Raises ``KeyError`` for an unknown id,
        :class:`JournalError` naming the bad field of a damaged row and
        :class:`StateError` when SQLite cannot read it (a damaged page)."""
        conn = self._c
        conn.text_factory = bytes  # text as stored: bad UTF-8 is a damaged row, not an error
        try:
            row = conn.execute(
                "SELECT id, game, seats, seed, options, first, device_seed, seat_kinds, "
                "strengths, started_at, ended_at, outcome, winner FROM games WHERE id = ?",
                (game_id,)).fetchone()
            records = conn.execute(
                "SELECT seq, action, decision, data FROM records WHERE game_id = ? ORDER BY "
                "seq", (game_id,)).fetchall()
        except sqlite3.Error as err:
            raise StateError(f"{self.path}: game {game_id}: {reason_of(err)}",
                             errorname=getattr(err, "sqlite_errorname", "")) from None
        finally:
            conn.text_factory = str
        if row is None:
            raise KeyError(f"no game {game_id}")
        return _stored(row, records)

    def games(self, limit: int = 10) -> list[StoredGame]:
        """The newest ``limit`` games, newest first (a damaged row is one log line and left
        out, counted in :attr:`skipped`).  Raises :class:`StateError` when SQLite cannot
        read the list."""
        out: list[StoredGame] = []
        try:
            ids = self._c.execute("SELECT id FROM games ORDER BY id DESC LIMIT ?",
                                  (limit,)).fetchall()
        except sqlite3.Error as err:
            raise StateError(f"{self.path}: {reason_of(err)}") from None
        self.skipped = 0
        for (game_id,) in ids:
            try:
                out.append(self.game(int(game_id)))
            except (JournalError, KeyError, StateError) as err:
                log.warning("%s: game %s skipped (%s)", self.path, game_id, err)
                self.skipped += 1
        return out

    def slaps(self, game_id: int) -> list[SlapRow]:
        """Game ``game_id``'s decided slaps in order; a row of the wrong shape (a seat that
        is not a number, ...) is left out with one log line."""
        out: list[SlapRow] = []
        bad = 0
        for race, seat, ms, margin, tie in self._c.execute(
                "SELECT race, seat, reaction_ms, margin_ms, tie FROM slaps WHERE game_id = ? "
                "ORDER BY seq", (game_id,)):
            if isinstance(race, str) and isinstance(seat, int) and isinstance(ms, int | float) \
                    and (margin is None or isinstance(margin, int | float)):
                out.append(SlapRow(race, seat, float(ms),
                                   None if margin is None else float(margin), bool(tie)))
            else:
                bad += 1
        if bad:
            log.warning("%s: game %d: %d slap rows of the wrong shape skipped", self.path,
                        game_id, bad)
        return out

    def integrity(self) -> str:
        """``PRAGMA integrity_check``'s result: ``"ok"`` or its first problem (one line)."""
        return first_problem(self._c.execute("PRAGMA integrity_check").fetchall())

    def close(self) -> None:
        """Close the connection (idempotent)."""
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None

    # ------------------------------------------------------------------ internals
    @property
    def _c(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StateError(f"{self.path}: the database is closed")
        return self._conn

    @contextlib.contextmanager
    def _txn(self) -> Any:
        """One transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on error);
        sqlite3 errors become :class:`StateError`."""
        c = self._c
        try:
            c.execute("BEGIN IMMEDIATE")
            try:
                yield c
            except BaseException:
                c.execute("ROLLBACK")
                raise
            c.execute("COMMIT")
        except sqlite3.Error as err:
            with contextlib.suppress(sqlite3.Error):
                if c.in_transaction:
                    c.execute("ROLLBACK")
            raise StateError(f"{self.path}: {reason_of(err)}",
                             errorname=getattr(err, "sqlite_errorname", "")) from None


def insert_game(c: sqlite3.Connection, header: JournalHeader, started_at: str,
                boot: str | None) -> int:
    """Insert an unfinished game of ``header`` started at ``started_at`` (wall-clock text)
    in boot ``boot`` (``None``: unknown, as for a game carried over from the old journal)
    in the open transaction; its id."""
    cur = c.execute(
        "INSERT INTO games(game, seats, seed, options, first, device_seed, seat_kinds, "
        "strengths, started_at, boot_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (header.game, header.seats, header.seed, json_text(dict(header.options)),
         header.first, header.device_seed, json_text(list(header.seat_kinds)),
         json_text(list(header.strengths)), started_at, boot))
    assert cur.lastrowid is not None
    return int(cur.lastrowid)


_SEQ_MAX = (1 << 63) - 1
"""SQLite's largest integer: a stored ``seq`` this large (or one that is not a whole
number) cannot be followed, so :meth:`GameRows.append` numbers after the others."""


_ROW_REFUSED = ("SQLITE_ERROR", "SQLITE_CONSTRAINT", "SQLITE_MISMATCH", "SQLITE_RANGE",
                "SQLITE_TOOBIG")
"""Prefixes of SQLite's error names (https://www.sqlite.org/rescode.html) for an insert the
table refuses because of the row or the table's shape (no such column, wrong column count,
a constraint, a type mismatch, a value too big): retrying the same row fails the same way.
Full, read-only, I/O, busy and locked are about the card, not the row."""


def json_text(value: object) -> str:
    """Compact JSON text; :class:`JournalError` when ``value`` is not JSON."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as err:
        raise JournalError(f"journal record is not JSON: {err}") from None


def _text(value: object, what: str) -> Any:
    """A stored value as read with ``text_factory = bytes`` (:meth:`GameRows.game`): text
    (bytes) decoded as UTF-8, anything else as it is.  Raises :class:`JournalError` naming
    ``what`` when the bytes are not UTF-8."""
    if not isinstance(value, bytes):
        return value
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError as err:
        raise JournalError(f"{what} is not UTF-8 text (byte {err.start})") from None


def _decoded(value: object, what: str) -> Any:
    """The JSON value stored as ``value`` (text or a blob, read as bytes); the one way a
    JSON column is read.  Raises :class:`JournalError` naming ``what`` for anything that
    does not decode: bytes that are not UTF-8, not JSON, nested deeper than the parser
    goes (``RecursionError``), a number past Python's digit limit (``ValueError``), a
    value of another type (a number, ``NULL``: ``TypeError``)."""
    try:
        text = _text(value, what)
        if not isinstance(text, str):
            raise TypeError(f"a stored {type(text).__name__}, not JSON text")
        return json.loads(text)
    except JournalError:
        raise
    except (ValueError, RecursionError, TypeError, OverflowError) as err:
        reason = _clip(str(err).splitlines()[0]) if str(err) else type(err).__name__
        raise JournalError(f"{what} unreadable ({reason})") from None


def _clip(text: str, limit: int = 80) -> str:
    """``text`` cut to at most ``limit`` characters at a word's end, ``...`` after a cut.

    >>> _clip("Exceeds the limit (4300 digits) for integer string conversion", 40)
    'Exceeds the limit (4300 digits) for...'
    """
    if len(text) <= limit:
        return text
    cut = text[: limit - 3]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut) + "..."


def _stored(row: Sequence[Any], records: Sequence[Sequence[Any]]) -> StoredGame:
    """A :class:`StoredGame` from a ``games`` row and its ``records`` rows, read with
    ``text_factory = bytes``; raises :class:`JournalError` naming the first value that
    does not decode (:func:`_decoded`, :func:`_text`) or is of the wrong shape."""
    (game_id, game, seats, seed, options, first, device_seed, kinds, strengths, started,
     ended, outcome, winner) = row
    where = f"game {game_id}"
    opts = _decoded(options, f"{where}: options")
    kind_list = _decoded(kinds, f"{where}: seat kinds")
    strength_list = _decoded(strengths, f"{where}: strengths")
    header = JournalHeader(
        game=_text(game, f"{where}: game"), seats=seats, seed=seed, options=opts,
        first=first, device_seed=device_seed,
        seat_kinds=tuple(kind_list) if isinstance(kind_list, list) else kind_list,
        strengths=tuple(strength_list) if isinstance(strength_list, list) else strength_list)
    out: list[Record] = []
    for seq, action, decision, data in records:
        what = f"{where} record {seq}"
        if action is not None:
            out.append(ActionRecord(str(_text(action, f"{what}: action"))))
            continue
        value = _decoded(data, f"{what}: data") if data is not None else {}
        if not isinstance(value, dict):
            raise JournalError(f"{what}: data is not an object")
        out.append(DecisionRecord(str(_text(decision, f"{what}: kind")), value))
    started_text = _text(started, f"{where}: start time")
    ended_text = _text(ended, f"{where}: end time")
    return StoredGame(int(game_id), header, tuple(out), str(started_text),
                      None if ended_text is None else str(ended_text),
                      _text(outcome, f"{where}: outcome"),
                      winner if isinstance(winner, int) else None)
