"""The game database: every game the console plays, on SQLite, safe against power cuts
(docs/architecture.md "Persistence and power loss").

A game is its header (game name, seats, seed, options, first seat, device seed, seat kinds:
:class:`JournalHeader`) plus its records in order: the applied engine actions (notation
text, ``docs/notation.md``) and the device's decisions (slap decisions with their tie
draws, stuck buttons, late arrivals: :class:`DecisionRecord`).  Replaying the actions from
``engine.new(seats, seed, options, first)`` gives back the exact position after a power
cut; every device draw is seeded from the game's device seed and the action count
(``device.session``), so the replayed game plays on exactly as the cut one would have.

Storage: the standard library's ``sqlite3``, one file ``<state_dir>/partytable.db``
(:data:`DB_NAME`) in WAL mode with ``synchronous=FULL``: every record is one transaction,
on disk (WAL fsynced) when :meth:`GameDB.append` returns; a power cut loses at most the
record being written, never a committed one, and never leaves a database SQLite cannot
open (SQLite's own power-loss testing, https://www.sqlite.org/atomiccommit.html).
The schema version is ``PRAGMA user_version`` (:data:`SCHEMA_VERSION`; a database of an
older version is migrated in place at the first open that may write, :data:`_MIGRATIONS`).
Tables::

    games(id, game, seats, seed, options JSON, first, device_seed, seat_kinds JSON,
          strengths JSON, started_at, ended_at,
          outcome 'won' | 'abandoned' | NULL (unfinished), winner, summary JSON,
          boot_id)   -- the boot of the box the game started in (NULL: before version 2)
    records(game_id, seq, action, decision, data JSON)   -- action XOR decision
    slaps(game_id, seq, race, seat, reaction_ms, margin_ms, tie)
    marks(name, value)   -- e.g. the newest game id when tonight's leaderboard was cleared
    dropped(game_id, seq, action, decision, data)   -- records a replay could not use
    boots(boot_id, night)   -- each boot the database saw and the night it belongs to

so tonight's leaderboard (``SELECT seat, MIN(reaction_ms) FROM slaps ...``) and a game's
history are queries (``python -m device history``, :mod:`device.history`).

Tonight.  A party box has no real-time clock and no network: its wall clock starts each
boot where ``fake-hwclock`` last saved it (at a clean shutdown, and hourly), so wall times
jump back after a power cut and forward when a clock is set.  ``started_at`` (wall-clock
UTC) is therefore kept only for people to read (``history``), never to tell which games
are tonight's.  A night is the time since the box was switched on: every game stores the
kernel's boot id (:func:`boot_id`, ``/proc/sys/kernel/random/boot_id``, new at each boot,
the same across service restarts within one), and tonight's leaderboard counts the games
of this boot's night.  A boot begins a night of its own, except that a game restored
after a power cut which the party takes up again (:meth:`GameDB.carry_night`: a slap or a
key on the restore offer, not the offer running out) carries the night it was played in
on into this boot.

Start-up (:meth:`GameDB.open`): a file that is not a database, of a newer or unknown
schema, with a table whose columns are not the schema's (``PRAGMA table_info``), or that
fails ``PRAGMA quick_check`` is set aside (renamed ``partytable.db.<why>-<UTC time>``,
never deleted) and a new one started; its one-line notice goes on the TV.  A file of 0
bytes is named on the TV; when a -wal file with frames lies beside it, both are set aside
and the database is rebuilt from that WAL; so is a -wal file with frames whose database
file is missing.  A card that cannot be written (full, read-only, a mode or owner the
console's user may not write) is not a damaged database: it is opened for reading only,
so the unfinished game is still restored, and its problem is named
(``GameDB.write_problem``); a state directory the user may not even enter is named the
same way, and the games are not saved.
An old JSON-lines journal (``journal.log``, this module's format before the database) is
read once, carried over as a game, and renamed ``journal.log.carried-over``. Finished
games beyond :data:`KEEP_GAMES` are pruned, so the state directory stays bounded (a few
MB).

Reading (:meth:`GameDB.game`): text is read as bytes and every stored JSON or text value
is decoded by one function (:func:`_decoded`, :func:`_text`): bytes that are not UTF-8,
JSON nested past the parser's depth, a number past Python's digit limit, a value of the
wrong type are a damaged row (:class:`JournalError`), never another exception.

Beside it: the record types (``device.game_records``), the old journal's reader
(``device.legacy_journal``) and ``lobby.json``'s atomic write (``device.atomic_file``).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import pwd
import shutil
import sqlite3
import stat
import tempfile
import time
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from device.atomic_file import fsync_dir
from device.game_records import (
    ActionRecord,
    DecisionRecord,
    JournalError,
    JournalHeader,
    Record,
)
from device.legacy_journal import read_legacy
from drivers.closing import ClosesOnExit
from engine.core import Seat

log = logging.getLogger("partytable")

DB_NAME = "partytable.db"
"""The database's file name inside the state directory."""

LEGACY_NAME = "journal.log"
"""The JSON-lines journal of earlier versions, carried over once (:meth:`GameDB.open`)."""

SCHEMA_VERSION = 2
"""``PRAGMA user_version`` of the schema this module writes and reads."""

READ_VERSIONS = (1, 2)
"""Schema versions this module reads: an older one is migrated at the first open that may
write (:data:`_MIGRATIONS`), and read as it is on a card that cannot be written (it has no
boot ids: none of its games is tonight's)."""

BOOT_ID_PATH = Path("/proc/sys/kernel/random/boot_id")
"""The kernel's boot id (proc(5): a random UUID made at each boot), read by :func:`boot_id`;
tests point it at a file of their own."""

BUSY_S = 0.25
"""How long a write waits for another process's lock (``history`` never takes one) before
it fails and is retried with the next record: never long enough to stall the loop."""

KEEP_GAMES = 200
"""Finished games kept; older ones are pruned at start-up and after every game."""

_SCHEMA = """
CREATE TABLE games(
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    seats INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    options TEXT NOT NULL,
    first INTEGER NOT NULL,
    device_seed INTEGER NOT NULL,
    seat_kinds TEXT NOT NULL,
    strengths TEXT NOT NULL DEFAULT '[]',
    started_at TEXT NOT NULL,
    ended_at TEXT,
    outcome TEXT CHECK (outcome IN ('won', 'abandoned')),
    winner INTEGER,
    summary TEXT,
    boot_id TEXT
);
CREATE TABLE records(
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    action TEXT,
    decision TEXT,
    data TEXT,
    PRIMARY KEY (game_id, seq),
    CHECK ((action IS NULL) != (decision IS NULL))
) WITHOUT ROWID;
CREATE TABLE slaps(
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    race TEXT NOT NULL,
    seat INTEGER NOT NULL,
    reaction_ms REAL NOT NULL,
    margin_ms REAL,
    tie INTEGER NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
CREATE INDEX games_unfinished ON games(id) WHERE outcome IS NULL;
CREATE TABLE dropped(
    game_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    action TEXT,
    decision TEXT,
    data TEXT,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
CREATE TABLE marks(
    name TEXT PRIMARY KEY,
    value INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE boots(
    boot_id TEXT PRIMARY KEY,
    night TEXT NOT NULL
) WITHOUT ROWID;
"""
_TABLES = ("games", "records", "slaps", "marks", "dropped", "boots")

_MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: ("ALTER TABLE games ADD COLUMN boot_id TEXT",
        "CREATE TABLE boots(boot_id TEXT PRIMARY KEY, night TEXT NOT NULL) WITHOUT ROWID"),
}
"""Version -> the statements that make it the next version (one transaction with the
``user_version`` step; https://www.sqlite.org/lang_altertable.html).  The games of
version 1 keep every field and have no boot id."""

SLAP_MS_MAX = 60_000
"""The slowest reaction (ms) tonight's leaderboard believes; a slap row above it, at or
below 0 ms, or not a number is damaged and skipped (only that row: the seat's other slaps
still count)."""


class StateError(OSError):
    """The state directory or its database cannot be used (read-only, full, not a
    directory, a permission): ``str(err)`` is one line naming the path and the reason;
    ``tv``: the shorter line the TV shows after "Games are not saved: " (``""``: none was
    worked out, the caller shortens ``str(err)``); ``errorname``: SQLite's error name
    (``"SQLITE_BUSY"``, ...; ``""`` for an OS error)."""

    def __init__(self, message: str, *, tv: str = "", errorname: str = "") -> None:
        super().__init__(message)
        self.tv = tv
        self.errorname = errorname


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


@dataclass(frozen=True)
class Leaderboard:
    """Tonight's leaderboard: ``fastest`` (seat -> fastest RIIING! slap in ms) and ``wins``
    (seat -> games won); seats from 0."""

    fastest: Mapping[int, float]
    wins: Mapping[int, int]


_PROCESS_BOOT: list[str] = []
"""The stand-in boot id of this process where the kernel gives none (:func:`boot_id`)."""


def boot_id(source: Path | None = None) -> str:
    """This boot's id: the text of ``source`` (default :data:`BOOT_ID_PATH`, the kernel's
    boot id, e.g. ``"6f1f6b0e-9c7e-4a57-a1a5-0d6b1c6f1e3a"``), new at each boot and the
    same for every process of one boot.  Where there is none (not Linux: the simulator on
    a desktop) a random id made once per process stands in, with one log line: each run
    is then a night of its own.  Never raises."""
    path = BOOT_ID_PATH if source is None else source
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        text = ""
    if text:
        return text
    if not _PROCESS_BOOT:
        _PROCESS_BOOT.append(f"process-{os.urandom(8).hex()}")
        log.warning("no boot id in %s: tonight's leaderboard counts this run's games", path)
    return _PROCESS_BOOT[0]


def utc_now() -> str:
    """The wall-clock time as ISO-8601 UTC text, e.g. ``"2026-12-01T18:14:04Z"`` (for
    people and for ``history``; never used for game timing)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class GameDB(ClosesOnExit):
    """The open game database (module docstring).  Make one with :meth:`open`; use it as a
    context manager or call :meth:`close` (idempotent).  Every writing method is one
    transaction and raises :class:`StateError` (one line) when it cannot be written — a
    full disk, a read-only directory — leaving the database as it was before the call."""

    def __init__(self, path: Path, conn: sqlite3.Connection, *, version: int = SCHEMA_VERSION,
                 boot: str = "") -> None:
        """Internal: use :meth:`open`."""
        self.path = path
        self._conn: sqlite3.Connection | None = conn
        self.version = version
        """The schema version of the open database (one of :data:`READ_VERSIONS`)."""
        self.boot = boot
        """This boot's id (:func:`boot_id`), stored with each new game."""
        self.notices: list[str] = []
        """One-line notices for the TV from :meth:`open` (a database set aside, an old
        journal carried over)."""
        self.write_problem = ""
        """Why :meth:`open` could only read (a full or read-only card), or ``""``."""
        self.write_tv = ""
        """With :attr:`write_problem`: its TV line (``StateError.tv``)."""
        self.skipped = 0
        """How many games the last :meth:`games` left out because their row did not read."""
        self._scratch: tempfile.TemporaryDirectory[str] | None = None

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, state_dir: Path, *, keep_games: int = KEEP_GAMES,
             read_fallback: bool = True, boot: str | None = None) -> GameDB:
        """Open (or create) ``state_dir/partytable.db``: set aside a database that cannot be
        used (module docstring), create the schema, carry over an old ``journal.log``,
        prune finished games beyond ``keep_games``; ``boot``: this boot's id (default
        :func:`boot_id`), recorded in ``boots`` and with every new game.

        A card that cannot be written (full, read-only, a directory or file the user may
        not write) is not a damaged database: with ``read_fallback`` the database is then
        opened for reading only (:func:`_open_reading`), so the unfinished game is still
        restored, and :attr:`write_problem` says why nothing can be written.  Raises
        :class:`StateError` (with its TV line) when it can be neither written nor read, or
        without ``read_fallback`` when it cannot be written."""
        path = state_dir / DB_NAME
        boot = boot_id() if boot is None else boot
        try:
            return cls._open_writing(state_dir, path, keep_games, boot)
        except StateError as err:
            if not read_fallback:
                raise
            problem = err
        db = _open_reading(path, problem)
        db.boot = boot
        db.write_problem = str(problem)
        db.write_tv = problem.tv
        log.error("game database: %s%s: reading it only, the games are not saved", problem,
                  f" ({problem.tv})" if problem.tv else "")
        return db

    @classmethod
    def _open_writing(cls, state_dir: Path, path: Path, keep_games: int,
                      boot: str) -> GameDB:
        """:meth:`open` for reading and writing; raises :class:`StateError` naming the
        card's problem when it cannot write."""
        notices: list[str] = []
        try:
            state_dir.mkdir(parents=True, exist_ok=True)
            empty = _empty_file(path)  # before SQLite, which would delete its -wal
            if empty is not None:
                notices.append(empty)
            problem = _unusable(path)
            if problem is not None:
                notices.append(_set_aside(path, *problem))
            conn = _connect(path)
        except (OSError, sqlite3.Error) as err:
            raise _state_error(path, err) from None
        db = cls(path, conn, boot=boot)
        db.notices = notices
        try:
            with db._txn() as c:
                version = c.execute("PRAGMA user_version").fetchone()[0]
                if version == 0:
                    _create(c)
                elif version < SCHEMA_VERSION:
                    _migrate(c, version)
                c.execute("INSERT OR IGNORE INTO boots VALUES (?, ?)", (boot, boot))
                # count the starts; a write now says at once whether the card takes any
                c.execute("INSERT OR REPLACE INTO marks SELECT 'starts', COALESCE((SELECT "
                          "value FROM marks WHERE name = 'starts'), 0) + 1")
            legacy = state_dir / LEGACY_NAME
            if legacy.is_file():
                notice = db._carry_over(legacy)
                if notice:
                    notices.append(notice)
            db.prune(keep_games)
        except StateError as err:
            db.close()
            raise StateError(str(err), tv=_card_problem(path), errorname=err.errorname) \
                from None
        except BaseException:
            db.close()
            raise
        for line in notices:
            log.warning("%s", line)
        return db

    # ------------------------------------------------------------------ writing
    def new_game(self, header: JournalHeader, started_at: str | None = None) -> int:
        """Insert a new, unfinished game; returns its id."""
        with self._txn() as c:
            return _insert_game(c, header, started_at or utc_now(), self.boot or None)

    def append(self, game_id: int, record: Record, slap: SlapRow | None = None) -> int:
        """Append ``record`` (and its ``slap`` row) to game ``game_id`` in one transaction,
        on disk when this returns; returns the record's ``seq`` (0, 1, ...: one after the
        largest whole-number seq below :data:`_SEQ_MAX`, so a damaged row's seq never
        blocks the next record).  Raises
        :class:`JournalError` when the record's data is not JSON, :class:`StateError` when
        it cannot be written."""
        if isinstance(record, ActionRecord):
            row: tuple[str | None, str | None, str | None] = (record.action, None, None)
        else:
            row = (None, record.kind, _json(dict(record.data)))
        with self._txn() as c:
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
                      "dropped, the record is kept", self.path, game_id, seq, _reason(err))
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
                       _json(dict(summary or {})), game_id))
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
            raise StateError(f"{self.path}: {_reason(err)}") from None
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
            raise StateError(f"{self.path}: game {game_id}: {_reason(err)}",
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
            raise StateError(f"{self.path}: {_reason(err)}") from None
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

    def leaderboard(self) -> Leaderboard:
        """Tonight's leaderboard: each seat's fastest slap and games won, over the games of
        this boot's night (module docstring "Tonight": never by the wall clock) started
        after :meth:`clear_leaderboard`.  A row of the wrong shape (a seat not 0..5; a
        reaction that is not a number, <= 0 or > :data:`SLAP_MS_MAX` ms) is skipped on its
        own, before the minimum, so it never hides a seat's real fastest slap; the skipped
        rows are one log line.  A database of version 1 (read on a card that cannot be
        written) has no game of tonight."""
        if self.version < 2:
            return Leaderboard({}, {})
        boot = self.boot or boot_id()
        row = self._c.execute("SELECT value FROM marks WHERE name = 'leaderboard'").fetchone()
        after = row[0] if row is not None and isinstance(row[0], int) else 0
        fastest: dict[int, float] = {}
        wins: dict[int, int] = {}
        night = ("g.boot_id IN (SELECT :boot UNION SELECT boot_id FROM boots WHERE night = "
                 "COALESCE((SELECT night FROM boots WHERE boot_id = :boot), :boot)) "
                 "AND g.id > :after")
        tonight = f"FROM slaps s JOIN games g ON g.id = s.game_id WHERE {night} AND " \
            "s.race = 'window'"
        good = ("typeof(s.seat) = 'integer' AND s.seat BETWEEN 0 AND 5 AND "
                "typeof(s.reaction_ms) IN ('integer', 'real') AND s.reaction_ms > 0 AND "
                f"s.reaction_ms <= {SLAP_MS_MAX}")
        args = {"boot": boot, "after": after}
        for seat, ms in self._c.execute(
                f"SELECT s.seat, MIN(s.reaction_ms) {tonight} AND {good} GROUP BY s.seat",
                args):
            fastest[int(seat)] = float(ms)
        bad = int(self._c.execute(f"SELECT COUNT(*) {tonight} AND NOT ({good})",
                                  args).fetchone()[0])
        for seat, count in self._c.execute(
                f"SELECT g.winner, COUNT(*) FROM games g WHERE {night} AND "
                "g.outcome = 'won' AND g.winner IS NOT NULL GROUP BY g.winner", args):
            if isinstance(seat, int) and 0 <= seat < 6 and isinstance(count, int):
                wins[seat] = count
            else:
                bad += 1
        if bad:
            log.warning("%s: %d leaderboard rows of the wrong shape skipped", self.path, bad)
        return Leaderboard(fastest, wins)

    def carry_night(self, game_id: int) -> None:
        """The party takes up game ``game_id`` again, restored from an earlier boot (a
        power cut in the middle of the party): this boot joins the night that game was
        played in, so tonight's leaderboard goes on (module docstring "Tonight").  Nothing
        changes for a game of this boot or one of no known boot."""
        with self._txn() as c:
            c.execute("UPDATE boots SET night = (SELECT b.night FROM games g JOIN boots b ON "
                      "b.boot_id = g.boot_id WHERE g.id = :game) WHERE boot_id = :boot AND "
                      "EXISTS (SELECT 1 FROM games g JOIN boots b ON b.boot_id = g.boot_id "
                      "WHERE g.id = :game)", {"game": game_id, "boot": self.boot})

    def clear_leaderboard(self) -> None:
        """Start tonight's leaderboard afresh: only games after the newest one now count
        (the games stay in the database)."""
        with self._txn() as c:
            c.execute("INSERT OR REPLACE INTO marks SELECT 'leaderboard', COALESCE(MAX(id), 0) "
                      "FROM games")

    def integrity(self) -> str:
        """``PRAGMA integrity_check``'s result: ``"ok"`` or its first problem (one line)."""
        return _first_problem(self._c.execute("PRAGMA integrity_check").fetchall())

    def close(self) -> None:
        """Close the connection (idempotent), and remove the copy :func:`_open_reading`
        read from, if any."""
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None
        if self._scratch is not None:
            with contextlib.suppress(OSError):
                self._scratch.cleanup()
            self._scratch = None

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
            raise StateError(f"{self.path}: {_reason(err)}",
                             errorname=getattr(err, "sqlite_errorname", "")) from None

    def _carry_over(self, legacy: Path) -> str | None:
        """Read the old JSON-lines journal once into a game, rename it; the notice."""
        try:
            header, records, problem = read_legacy(legacy)
        except (OSError, JournalError) as err:
            notice = f"old journal {legacy.name} not carried over ({err})"
        else:
            game_over = [r for r in records
                         if isinstance(r, DecisionRecord) and r.kind == "gameover"]
            kept = [r for r in records
                    if not (isinstance(r, DecisionRecord) and r.kind == "gameover")]
            with self._txn() as c:
                game_id = _insert_game(c, header, utc_now(), None)
                for seq, r in enumerate(kept):
                    if isinstance(r, ActionRecord):
                        c.execute("INSERT INTO records VALUES (?, ?, ?, NULL, NULL)",
                                  (game_id, seq, r.action))
                    else:
                        c.execute("INSERT INTO records VALUES (?, ?, NULL, ?, ?)",
                                  (game_id, seq, r.kind, _json(dict(r.data))))
                if game_over:
                    data = game_over[0].data
                    winner = data.get("winner")
                    c.execute("UPDATE games SET ended_at = ?, outcome = ?, winner = ? "
                              "WHERE id = ?",
                              (utc_now(), "abandoned" if data.get("abandoned") else "won",
                               winner if isinstance(winner, int) else None, game_id))
            notice = (f"old journal {legacy.name} carried over ({len(kept)} records)"
                      + (f"; {problem}" if problem else ""))
        done = ".carried-over" if notice.startswith("old journal") and "not carried" not in \
            notice else ".not-carried-over"
        try:
            os.replace(legacy, legacy.with_name(legacy.name + done))
            fsync_dir(legacy.parent)
        except OSError as err:
            log.error("cannot rename %s after carrying it over: %s", legacy, err)
        return notice


def _insert_game(c: sqlite3.Connection, header: JournalHeader, started_at: str,
                 boot: str | None) -> int:
    """Insert an unfinished game of ``header`` started at ``started_at`` (wall-clock text)
    in boot ``boot`` (``None``: unknown, as for a game carried over from the old journal)
    in the open transaction; its id."""
    cur = c.execute(
        "INSERT INTO games(game, seats, seed, options, first, device_seed, seat_kinds, "
        "strengths, started_at, boot_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (header.game, header.seats, header.seed, _json(dict(header.options)), header.first,
         header.device_seed, _json(list(header.seat_kinds)), _json(list(header.strengths)),
         started_at, boot))
    assert cur.lastrowid is not None
    return int(cur.lastrowid)


_SEQ_MAX = (1 << 63) - 1
"""SQLite's largest integer: a stored ``seq`` this large (or one that is not a whole
number) cannot be followed, so :meth:`GameDB.append` numbers after the others."""


def open_read_only(path: Path) -> GameDB:
    """Open an existing database at ``path`` for reading (``history``): nothing is set
    aside, created, migrated or carried over; where SQLite cannot read it in place (WAL
    mode needs a -shm file this user cannot make) it is read as the console reads a card
    that cannot be written (:func:`_open_reading`).  Raises :class:`StateError` when it is
    missing, when this user may not enter its directory or read it (the line names the
    mode and owner), or when it is not a partytable database of a version this device
    reads (:data:`READ_VERSIONS`)."""
    denied = _read_problem(path)
    if denied:
        raise StateError(denied, tv=denied)
    try:
        there = path.is_file()
    except OSError as err:  # a state directory this user may not enter (0700)
        raise StateError(f"{path}: {_reason(err)}") from None
    if not there:
        raise StateError(f"{path}: no game database there")
    try:
        conn = sqlite3.connect(_uri(path, "mode=ro"), uri=True, isolation_level=None)
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.Error as err:
        return _open_reading(path, StateError(f"{path}: {_reason(err)}"))
    if version not in READ_VERSIONS:
        conn.close()
        raise StateError(f"{path}: schema version {version}, this device reads "
                         f"{', '.join(map(str, READ_VERSIONS))}")
    return GameDB(path, conn, version=version)


def _denied(target: Path, need: int, verb: str) -> str:
    """``"cannot <verb> <target>: permission denied (mode 555, owner root)"`` when this
    process may not access ``target`` as ``need`` (``os.R_OK``, ...; ``access(2)``, real
    ids), else ``""`` (also when it is not there)."""
    try:
        st = os.stat(target)
    except OSError:
        return ""
    if os.access(target, need):
        return ""
    return (f"cannot {verb} {target}: permission denied (mode "
            f"{stat.S_IMODE(st.st_mode):03o}, owner {_owner(st.st_uid)})")


def _read_problem(path: Path) -> str:
    """What keeps this process from reading the database ``path`` (its directory it may
    not enter, the file it may not read) in words, or ``""``.  Never raises."""
    return (_denied(path.parent, os.X_OK, "enter") or _denied(path, os.R_OK, "read"))

FULL_BYTES = 1 << 20
"""Free space (bytes, for this user) below which a card whose write failed is named full:
a record needs a page or two of WAL, a new -shm 32 KiB."""

_WAL_HEADER = 32
"""Bytes of a WAL file's header; each frame adds a 24-byte header and a page
(https://www.sqlite.org/fileformat2.html#walformat)."""

_WAL_FRAME_HEADER = 24

_IN_USE = frozenset({"SQLITE_BUSY", "SQLITE_LOCKED"})
"""SQLite's error names for a database another connection holds (it may be writing)."""


def _uri(path: Path, query: str) -> str:
    """A SQLite ``file:`` URI for ``path`` with ``query`` (``"mode=ro"``), the path quoted
    so that ``?``, ``#`` and ``%`` in it stay part of the name
    (https://www.sqlite.org/uri.html)."""
    return f"file:{urllib.parse.quote(str(path))}?{query}"


def _state_error(path: Path, err: BaseException) -> StateError:
    """A :class:`StateError` for a failed open of ``path``: the path and SQLite's or the
    OS's reason, the TV's line when the card's problem can be named
    (:func:`_card_problem`)."""
    return StateError(f"{path}: {_reason(err)}", tv=_card_problem(path),
                      errorname=getattr(err, "sqlite_errorname", ""))


def _owner(uid: int) -> str:
    """A user name for ``uid`` (the number when it has none)."""
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def _card_problem(path: Path) -> str:
    """What keeps this process from writing the database ``path``, in words for the TV,
    or ``""`` when none of these is it: the file system is mounted read-only
    (``statvfs`` ``ST_RDONLY``: ``"/var/lib/partytable is read-only"``); the directory
    this user may not enter (``"cannot enter /var/lib/partytable: permission denied (mode
    000, owner nobody)"``), the directory,
    the database or its -wal/-shm file has a mode or owner this user may not read or
    write (``access(2)``: ``"cannot write /var/lib/partytable: permission denied (mode
    555, owner root)"``); fewer than :data:`FULL_BYTES` are free for this user
    (``"/var/lib/partytable is full"``).  Never raises."""
    directory = path.parent
    try:
        vfs = os.statvfs(directory)
    except OSError:
        return ""
    if vfs.f_flag & os.ST_RDONLY:
        return f"{directory} is read-only"
    checks = [(directory, os.X_OK, "enter"), (directory, os.W_OK | os.X_OK, "write"),
              (path, os.R_OK, "read"),
              (path, os.W_OK, "write")]
    checks += [(path.with_name(path.name + suffix), os.R_OK | os.W_OK, "write")
               for suffix in ("-wal", "-shm")]
    for target, need, verb in checks:
        denied = _denied(target, need, verb)
        if denied:
            return denied
    if vfs.f_bavail * vfs.f_frsize < FULL_BYTES:
        return f"{directory} is full"
    return ""


def _wal_frames(path: Path) -> bool:
    """Whether ``path``'s -wal file is there and long enough to hold a frame (a committed
    record that is not in the database file yet)."""
    try:
        size = path.with_name(path.name + "-wal").stat().st_size
    except OSError:
        return False
    return size >= _WAL_HEADER + _WAL_FRAME_HEADER


def _readable(conn: sqlite3.Connection) -> int:
    """The schema version of the database ``conn`` reads, after reading the games table
    once; raises ``sqlite3.Error`` when it cannot be read."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    conn.execute("SELECT COUNT(*) FROM games").fetchone()
    return version


def _open_reading(path: Path, problem: StateError) -> GameDB:
    """Open the database ``path`` for reading only, on a card that cannot be written
    (``problem`` says why): nothing is created, changed or set aside there.

    WAL mode needs SQLite's -shm file (the WAL index) to read, and a read-only connection
    cannot make it (https://www.sqlite.org/wal.html#readonly), so this tries in turn:
    ``mode=ro`` (the -wal and -shm files are there, as after a power cut); ``immutable=1``
    when there is no -wal frame to lose (a clean stop removed the -wal file, or it is
    empty: immutable reads the database file alone) and no other program holds the
    database (``problem`` is not busy or locked: immutable takes no lock); else a copy of
    the database and its -wal file in a temporary directory (RAM where the card is full:
    ``/dev/shm``), read with ``query_only`` so that nothing is ever written to it.
    Raises ``problem`` (the card's TV line kept) when none reads a database of a version
    this device reads (:data:`READ_VERSIONS`: an older one is read as it is, not
    migrated)."""
    try:
        there = path.is_file()
    except OSError:  # a directory this user may not enter: ``problem`` names it
        there = False
    if not there:
        raise problem
    tries = [_uri(path, "mode=ro")]
    # immutable reads without locks: never beside another program that holds the database
    if not _wal_frames(path) and problem.errorname not in _IN_USE:
        tries.append(_uri(path, "immutable=1"))
    for uri in tries:
        try:
            conn = sqlite3.connect(uri, uri=True, isolation_level=None)
        except sqlite3.Error:
            continue
        try:
            version = _readable(conn)
            if version in READ_VERSIONS:
                return GameDB(path, conn, version=version)
        except sqlite3.Error:
            pass
        conn.close()
    for where in (None, "/dev/shm"):
        try:
            scratch = tempfile.TemporaryDirectory(prefix="partytable-", dir=where)
        except OSError:
            continue
        try:
            copy = Path(scratch.name) / DB_NAME
            shutil.copyfile(path, copy)
            if _wal_frames(path):
                shutil.copyfile(path.with_name(path.name + "-wal"),
                                copy.with_name(copy.name + "-wal"))
            conn = sqlite3.connect(copy, isolation_level=None)
            try:
                conn.execute("PRAGMA query_only = ON")
                version = _readable(conn)
                if version in READ_VERSIONS:
                    db = GameDB(path, conn, version=version)
                    db._scratch = scratch
                    return db
            except sqlite3.Error:
                pass
            conn.close()
        except (OSError, sqlite3.Error):
            pass
        with contextlib.suppress(OSError):
            scratch.cleanup()
    raise problem


def _connect(path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit) with the pragmas."""
    new = not path.exists() or path.stat().st_size == 0
    conn = sqlite3.connect(path, isolation_level=None, timeout=BUSY_S)
    try:
        if new:  # only takes on a new, empty file (and writes: not on a full card)
            conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
        with contextlib.suppress(sqlite3.OperationalError):  # full or read-only: WAL reads
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
    except BaseException:
        conn.close()
        raise
    return conn


def _create(c: sqlite3.Connection) -> None:
    """Create the schema in the open transaction, unless another schema is there."""
    names = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if names and not set(_TABLES) <= names:
        raise sqlite3.DatabaseError(f"not a partytable database (tables {sorted(names)})")
    if not names:
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                c.execute(statement)
    c.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _migrate(c: sqlite3.Connection, version: int) -> None:
    """Bring a database of schema ``version`` (< :data:`SCHEMA_VERSION`) to this one in the
    open transaction, step by step (:data:`_MIGRATIONS`); its rows stay as they are."""
    for step in range(version, SCHEMA_VERSION):
        for statement in _MIGRATIONS[step]:
            c.execute(statement)
        c.execute(f"PRAGMA user_version = {step + 1}")
        log.warning("game database: schema %d migrated to %d", step, step + 1)


_ROW_REFUSED = ("SQLITE_ERROR", "SQLITE_CONSTRAINT", "SQLITE_MISMATCH", "SQLITE_RANGE",
                "SQLITE_TOOBIG")
"""Prefixes of SQLite's error names (https://www.sqlite.org/rescode.html) for an insert the
table refuses because of the row or the table's shape (no such column, wrong column count,
a constraint, a type mismatch, a value too big): retrying the same row fails the same way.
Full, read-only, I/O, busy and locked are about the card, not the row."""

_CORRUPT = frozenset({"SQLITE_CORRUPT", "SQLITE_NOTADB"})
"""SQLite's error names for a file that is damaged or is not a database; any other error
(busy, locked, full, read-only, cannot open, I/O) says nothing about the file itself."""


def _unusable(path: Path) -> tuple[str, str] | None:
    """Why the database at ``path`` cannot be used — ``(tag, one line)`` — or ``None`` (it
    is fine, or there is none yet).  Only a file that is damaged, not a database, of a
    newer or unknown schema, or not a regular file is unusable; an error that says nothing
    about the file (locked by another process, a full or read-only card) raises
    ``sqlite3.Error`` for the caller to report, and the file stays where it is."""
    if not path.exists() and not path.is_symlink():
        return None
    if not path.is_file():
        return "unreadable", "not a regular file"
    try:
        conn = sqlite3.connect(path, isolation_level=None, timeout=BUSY_S)
    except sqlite3.Error as err:
        if getattr(err, "sqlite_errorname", "") in _CORRUPT:
            return "unreadable", _reason(err)
        raise
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        names = {r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if version > SCHEMA_VERSION:
            return f"v{version}", (f"schema version {version} is newer than this device's "
                                   f"({SCHEMA_VERSION})")
        if version and version not in READ_VERSIONS:
            return "unknown", f"not a partytable database (version {version})"
        if (version == 0 and names) or (version and not set(_expected_for(version)) <= names):
            return "unknown", f"not a partytable database (version {version})"
        if version:
            shape = _wrong_columns(conn, version)
            if shape is not None:
                return "unknown", shape
        check = _first_problem(conn.execute("PRAGMA quick_check").fetchall())
        if check != "ok":
            return "damaged", f"integrity check failed ({check})"
    except sqlite3.Error as err:
        if getattr(err, "sqlite_errorname", "") in _CORRUPT:
            return "damaged", _reason(err)
        raise
    finally:
        conn.close()
    return None


def _columns(conn: sqlite3.Connection, table: str) -> tuple[str, ...]:
    """``table``'s column names in order (``PRAGMA table_info``, https://www.sqlite.org/
    pragma.html#pragma_table_info: one row per column, its name second)."""
    return tuple(str(r[1]) for r in conn.execute(f"PRAGMA table_info({table})"))


def _expected_columns() -> dict[str, tuple[str, ...]]:
    """Each of :data:`_TABLES`' column names in order, as :data:`_SCHEMA` makes them (read
    from an in-memory database, so the schema text stays the one source)."""
    mem = sqlite3.connect(":memory:")
    try:
        mem.executescript(_SCHEMA)
        return {t: _columns(mem, t) for t in _TABLES}
    finally:
        mem.close()


_EXPECTED_COLUMNS = _expected_columns()
"""Table name -> its column names in order; the inserts give values by position."""


def _expected_for(version: int) -> dict[str, tuple[str, ...]]:
    """:data:`_EXPECTED_COLUMNS` as schema ``version`` (one of :data:`READ_VERSIONS`) has
    them: version 1 has no ``boots`` table and no ``games.boot_id`` (:data:`_MIGRATIONS`)."""
    want = dict(_EXPECTED_COLUMNS)
    if version < 2:
        del want["boots"]
        want["games"] = tuple(c for c in want["games"] if c != "boot_id")
    return want


def _wrong_columns(conn: sqlite3.Connection, version: int = SCHEMA_VERSION) -> str | None:
    """One line naming the first table whose columns (names, in order) are not those of
    schema ``version`` — ``"table slaps has columns game_id, seq, who, not game_id, seq,
    race, ..."`` — or ``None`` when every table has the expected columns."""
    for table, want in _expected_for(version).items():
        have = _columns(conn, table)
        if have != want:
            return (f"table {table} has columns {', '.join(have) or 'none'}, not "
                    f"{', '.join(want)}")
    return None


def _set_aside(path: Path, tag: str, why: str) -> str:
    """Rename the database at ``path`` (and its -wal/-shm files) out of the way; the
    notice.  Raises ``OSError`` when it cannot be renamed."""
    aside = _move_aside(path, tag)
    return f"Game database set aside ({why}): kept as {aside.name}"


def _move_aside(path: Path, tag: str) -> Path:
    """Rename the database at ``path`` and its -wal/-shm files to
    ``<name>.<tag>-<UTC time>`` (plus the suffix), durably; the new path of the database.
    Raises ``OSError`` when it cannot be renamed."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    aside = path.with_name(f"{path.name}.{tag}-{stamp}")
    for suffix in ("-wal", "-shm"):
        extra = path.with_name(path.name + suffix)
        if extra.exists():
            os.replace(extra, aside.with_name(aside.name + suffix))
    if path.exists() or path.is_symlink():  # a missing database keeps its -wal/-shm only
        os.replace(path, aside)
    fsync_dir(path.parent)
    return aside


EMPTY = "Game database was empty (0 bytes)"
"""The start of the notice for a database file of 0 bytes (:func:`_empty_file`)."""

MISSING = "Game database file was missing"
"""The start of the notice for a database file that is not there beside a -wal file that
holds a frame (:func:`_empty_file`)."""


def _empty_file(path: Path) -> str | None:
    """The notice for a database file of 0 bytes, or one that is missing beside a -wal
    file that holds a frame (a card that lost the file's data, a copy gone wrong, a file
    deleted by hand), or ``None`` when it is neither.  SQLite takes such a file for a new
    database and deletes the -wal file beside it; but that WAL may hold every committed
    page (a young database is never checkpointed: the WAL is copied back into the file
    only every 1000 pages and at a clean stop), so when it holds a frame the database and
    its -wal/-shm are first set aside (``partytable.db.empty-<UTC time>`` or
    ``.missing-<UTC time>``, never deleted) and the database is rebuilt from the WAL
    (:func:`_rebuild_from_wal`); when that does not give a whole database of this schema
    a new one is started.  Raises ``OSError`` when the files cannot be set aside."""
    try:
        if not path.exists() and not path.is_symlink():
            if not _wal_frames(path):
                return None  # a new console: nothing to save
            tag, head = "missing", MISSING
        elif not path.is_file() or path.stat().st_size != 0:
            return None
        else:
            tag, head = "empty", EMPTY
    except OSError:
        return None
    if not _wal_frames(path):
        return f"{head}: a new one is started"
    aside = _move_aside(path, tag)
    kept = aside.name + ("-wal" if tag == "missing" else "")  # the file there is to keep
    try:
        games = _rebuild_from_wal(aside, path)
    except (OSError, sqlite3.Error, ValueError) as err:
        with contextlib.suppress(OSError):
            path.unlink()  # a part the rebuild wrote; the file set aside stays
        return (f"{head}: its -wal file could not rebuild it ({_reason(err)}); a new one "
                f"is started, kept as {kept}")
    return (f"{head}: rebuilt from its -wal file ({games} game{'' if games == 1 else 's'})"
            f"; kept as {kept}")


def _wal_pages(wal: bytes) -> tuple[int, int]:
    """``(page size, database size in pages)`` a WAL file describes: its header's page
    size, and the largest page number or commit size among its frames (the WAL format,
    https://www.sqlite.org/fileformat2.html#walformat: a 32-byte header with the magic
    0x377f0682/3 and the page size at byte 8; frames of a 24-byte header, page number
    then database size for a commit, and the page).  Raises ``ValueError`` when it is
    not a WAL file."""
    magic = int.from_bytes(wal[:4], "big")
    page_size = int.from_bytes(wal[8:12], "big")
    if magic not in (0x377F0682, 0x377F0683) or page_size not in {1 << k for k in
                                                                  range(9, 17)}:
        raise ValueError("not a WAL file")
    pages = 0
    step = _WAL_FRAME_HEADER + page_size
    for at in range(_WAL_HEADER, len(wal) - step + 1, step):
        pages = max(pages, int.from_bytes(wal[at:at + 4], "big"),
                    int.from_bytes(wal[at + 4:at + 8], "big"))
    if pages == 0:
        raise ValueError("the WAL holds no page")
    return page_size, pages


def _rebuild_from_wal(aside: Path, path: Path) -> int:
    """Rebuild the database ``path`` (not there) from the WAL set aside beside ``aside``:
    in a temporary directory next to it, a database file of the WAL's size in zero bytes
    and a copy of the WAL are opened by SQLite, which replays the WAL's valid frames
    (checksums and salts checked, up to the last commit) over the file; when that reads
    as a whole database of a version this device reads (``PRAGMA quick_check``: a page
    the WAL did not hold is zeros and fails it) it is copied to ``path`` with the backup
    API (an older schema is migrated by the open that follows).  Returns how many games
    it holds.  Raises ``ValueError``, ``OSError`` or ``sqlite3.Error`` saying why not."""
    wal = aside.with_name(aside.name + "-wal").read_bytes()
    page_size, pages = _wal_pages(wal)
    with tempfile.TemporaryDirectory(prefix=".rebuild-", dir=path.parent) as scratch:
        work = Path(scratch) / DB_NAME
        with open(work, "wb") as f:
            f.truncate(page_size * pages)
        work.with_name(work.name + "-wal").write_bytes(wal)
        src = sqlite3.connect(work, isolation_level=None)
        try:
            check = _first_problem(src.execute("PRAGMA quick_check").fetchall())
            if check != "ok":
                raise ValueError(f"integrity check failed ({check})")
            version = _readable(src)
            if version not in READ_VERSIONS or _wrong_columns(src, version) is not None:
                raise ValueError("not a partytable database of a version this device reads")
            games = int(src.execute("SELECT COUNT(*) FROM games").fetchone()[0])
            dst = sqlite3.connect(path)
            try:
                src.backup(dst)
            finally:
                dst.close()
        finally:
            src.close()
    fsync_dir(path.parent)
    return games


def _first_problem(rows: Sequence[Sequence[Any]]) -> str:
    """``"ok"``, or the first line of an integrity/quick check that names a problem, plus
    how many more there are."""
    lines = [line for row in rows for line in str(row[0]).splitlines()
             if line and not line.startswith("***")]
    if lines == ["ok"]:
        return "ok"
    if not lines:
        return "no result"
    more = f" and {len(lines) - 1} more" if len(lines) > 1 else ""
    return f"{lines[0]}{more}"


def _reason(err: BaseException) -> str:
    """One line for an OSError or sqlite3 error."""
    if isinstance(err, OSError) and err.strerror:
        return err.strerror
    text = str(err).splitlines()[0] if str(err) else type(err).__name__
    return text


def _json(value: object) -> str:
    """Compact JSON text; :class:`JournalError` when ``value`` is not JSON."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as err:
        raise JournalError(f"journal record is not JSON: {err}") from None


def _text(value: object, what: str) -> Any:
    """A stored value as read with ``text_factory = bytes`` (:meth:`GameDB.game`): text
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
