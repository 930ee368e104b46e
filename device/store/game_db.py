"""The game database: every game the console plays, on SQLite, safe against power cuts
(docs/architecture.md "Persistence and power loss").

A game is its header (game name, seats, seed, options, first seat, device seed, seat kinds:
:class:`JournalHeader`) plus its records in order: the applied engine actions (notation
text, ``docs/notation.md``) and the device's decisions (slap decisions with their tie
draws, stuck buttons, late arrivals: :class:`DecisionRecord`).  Replaying the actions from
``engine.new(seats, seed, options, first)`` gives back the exact position after a power
cut; every device draw is seeded from the game's device seed and the action count
(``device.store.session``), so the replayed game plays on exactly as the cut one would have.

Storage: the standard library's ``sqlite3``, one file ``<state_dir>/partytable.db``
(:data:`DB_NAME`) in WAL mode with ``synchronous=FULL``: every record is one transaction,
on disk (WAL fsynced) when :meth:`GameDB.append` returns; a power cut loses at most the
record being written, never a committed one, and never leaves a database SQLite cannot
open (SQLite's own power-loss testing, https://www.sqlite.org/atomiccommit.html).
The schema version is ``PRAGMA user_version`` (:data:`SCHEMA_VERSION`; a database of an
older version is migrated in place at the first open that may write,
``device.store.db_schema.migrate``).
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
history are queries (``python -m device history``, :mod:`device.modes.history`).

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
is decoded by one function (``device.store.game_rows``): bytes that are not UTF-8, JSON nested
past the parser's depth, a number past Python's digit limit, a value of the wrong type are
a damaged row (:class:`~device.store.records.JournalError`), never another exception.

This module is the database's API (:class:`GameDB`, :func:`open_read_only`); beneath it,
each imported from where it is defined: the schema and :class:`StateError`
(``device.store.db_schema``), the file's recovery and the read-only connections
(``device.store.db_recovery``), the games' rows (``device.store.game_rows``), the record
types (``device.store.records``), the old journal's reader
(``device.store.legacy_journal``) and ``lobby.json``'s atomic write
(``device.store.atomic_file``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from device.store.atomic_file import fsync_dir
from device.store.db_recovery import (
    ReadConnection,
    card_problem,
    read_only_connection,
    reading_connection,
    writing_connection,
)
from device.store.db_schema import (
    DB_NAME,
    SCHEMA_VERSION,
    StateError,
    create_schema,
    migrate,
)
from device.store.game_rows import (
    KEEP_GAMES,
    GameRows,
    insert_game,
    json_text,
    utc_now,
)
from device.store.legacy_journal import read_legacy
from device.store.records import ActionRecord, DecisionRecord, JournalError

__all__ = [
    "BOOT_ID_PATH",
    "LEGACY_NAME",
    "SLAP_MS_MAX",
    "GameDB",
    "Leaderboard",
    "boot_id",
    "open_read_only",
]

log = logging.getLogger("partytable")

LEGACY_NAME = "journal.log"
"""The JSON-lines journal of earlier versions, carried over once (:meth:`GameDB.open`)."""

BOOT_ID_PATH = Path("/proc/sys/kernel/random/boot_id")
"""The kernel's boot id (proc(5): a random UUID made at each boot), read by :func:`boot_id`;
tests point it at a file of their own."""

SLAP_MS_MAX = 60_000
"""The slowest reaction (ms) tonight's leaderboard believes; a slap row above it, at or
below 0 ms, or not a number is damaged and skipped (only that row: the seat's other slaps
still count)."""


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


class GameDB(GameRows):
    """The console's open game database (module docstring): the rows of its games
    (:class:`~device.store.game_rows.GameRows`), opened from the state directory with the file's
    recovery (:meth:`open`), the old journal carried over, and tonight's leaderboard over
    the boots' nights.  Make one with :meth:`open`; use it as a context manager or call
    :meth:`close` (idempotent).  Every writing method is one transaction and raises
    :class:`StateError` (one line) when it cannot be written — a full disk, a read-only
    directory — leaving the database as it was before the call."""

    def __init__(self, path: Path, conn: sqlite3.Connection, *, version: int = SCHEMA_VERSION,
                 boot: str = "",
                 scratch: tempfile.TemporaryDirectory[str] | None = None) -> None:
        """Internal: use :meth:`open` (or :func:`open_read_only`).  ``scratch``: the
        temporary directory of the copy ``conn`` reads (a card that cannot be written,
        :class:`~device.store.db_recovery.ReadConnection`), removed by :meth:`close`."""
        super().__init__(path, conn, version=version, boot=boot)
        self.notices: list[str] = []
        """One-line notices for the TV from :meth:`open` (a database set aside, an old
        journal carried over)."""
        self.write_problem = ""
        """Why :meth:`open` could only read (a full or read-only card), or ``""``."""
        self.write_tv = ""
        """With :attr:`write_problem`: its TV line (``StateError.tv``)."""
        self._scratch = scratch

    @classmethod
    def _reading(cls, path: Path, read: ReadConnection) -> GameDB:
        """The database ``path`` read through ``read`` only."""
        return cls(path, read.conn, version=read.version, scratch=read.scratch)

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
        opened for reading only (``device.store.db_recovery.reading_connection``), so the
        unfinished game is still restored, and :attr:`write_problem` says why nothing can
        be written.  Raises
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
        db = cls._reading(path, reading_connection(path, problem))
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
        conn, notices = writing_connection(state_dir, path)
        db = cls(path, conn, boot=boot)
        db.notices = notices
        try:
            with db._txn() as c:
                version = c.execute("PRAGMA user_version").fetchone()[0]
                if version == 0:
                    create_schema(c)
                elif version < SCHEMA_VERSION:
                    migrate(c, version)
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
            raise StateError(str(err), tv=card_problem(path), errorname=err.errorname) \
                from None
        except BaseException:
            db.close()
            raise
        for line in notices:
            log.warning("%s", line)
        return db

    # ------------------------------------------------------------------ tonight
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

    # ------------------------------------------------------------------ closing
    def close(self) -> None:
        """Close the connection (idempotent), and remove the copy it read from, if any
        (a card that cannot be written)."""
        super().close()
        if self._scratch is not None:
            with contextlib.suppress(OSError):
                self._scratch.cleanup()
            self._scratch = None

    # ------------------------------------------------------------------ the old journal
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
                game_id = insert_game(c, header, utc_now(), None)
                for seq, r in enumerate(kept):
                    if isinstance(r, ActionRecord):
                        c.execute("INSERT INTO records VALUES (?, ?, ?, NULL, NULL)",
                                  (game_id, seq, r.action))
                    else:
                        c.execute("INSERT INTO records VALUES (?, ?, NULL, ?, ?)",
                                  (game_id, seq, r.kind, json_text(dict(r.data))))
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


def open_read_only(path: Path) -> GameDB:
    """Open an existing database at ``path`` for reading (``history``): nothing is set
    aside, created, migrated or carried over; where SQLite cannot read it in place (WAL
    mode needs a -shm file this user cannot make) it is read as the console reads a card
    that cannot be written (``device.store.db_recovery.read_only_connection``).  Raises
    :class:`StateError` when it is missing, when this user may not enter its directory or
    read it (the line names the mode and owner), or when it is not a partytable database
    of a version this device reads (:data:`READ_VERSIONS`)."""
    return GameDB._reading(path, read_only_connection(path))
