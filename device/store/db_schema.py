"""The game database's schema (``device.store.game_db``): the tables, the schema version and the
migrations from older ones, the checks that an open SQLite file holds this schema, and
:class:`StateError`, the error for a state directory or database that cannot be used.

The schema version is ``PRAGMA user_version`` (:data:`SCHEMA_VERSION`); a database of an
older version is migrated in place at the first open that may write (:data:`_MIGRATIONS`,
:func:`migrate`).  Below the database's opening (``device.store.db_recovery``) and its rows
(``device.store.game_rows``); no file is opened here.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from typing import Any

log = logging.getLogger("partytable")

__all__ = [
    "DB_NAME",
    "READ_VERSIONS",
    "SCHEMA_VERSION",
    "StateError",
    "create_schema",
    "expected_for",
    "first_problem",
    "migrate",
    "readable",
    "reason_of",
    "wrong_columns",
]

DB_NAME = "partytable.db"
"""The database's file name inside the state directory."""

SCHEMA_VERSION = 2
"""``PRAGMA user_version`` of the schema the console writes and reads."""

READ_VERSIONS = (1, 2)
"""Schema versions the console reads: an older one is migrated at the first open that may
write (:data:`_MIGRATIONS`), and read as it is on a card that cannot be written (it has no
boot ids: none of its games is tonight's)."""

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


def expected_for(version: int) -> dict[str, tuple[str, ...]]:
    """:data:`_EXPECTED_COLUMNS` as schema ``version`` (one of :data:`READ_VERSIONS`) has
    them: version 1 has no ``boots`` table and no ``games.boot_id`` (:data:`_MIGRATIONS`)."""
    want = dict(_EXPECTED_COLUMNS)
    if version < 2:
        del want["boots"]
        want["games"] = tuple(c for c in want["games"] if c != "boot_id")
    return want


def wrong_columns(conn: sqlite3.Connection, version: int = SCHEMA_VERSION) -> str | None:
    """One line naming the first table whose columns (names, in order) are not those of
    schema ``version`` — ``"table slaps has columns game_id, seq, who, not game_id, seq,
    race, ..."`` — or ``None`` when every table has the expected columns."""
    for table, want in expected_for(version).items():
        have = _columns(conn, table)
        if have != want:
            return (f"table {table} has columns {', '.join(have) or 'none'}, not "
                    f"{', '.join(want)}")
    return None


def readable(conn: sqlite3.Connection) -> int:
    """The schema version of the database ``conn`` reads, after reading the games table
    once; raises ``sqlite3.Error`` when it cannot be read."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    conn.execute("SELECT COUNT(*) FROM games").fetchone()
    return version


def create_schema(c: sqlite3.Connection) -> None:
    """Create the schema in the open transaction, unless another schema is there."""
    names = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if names and not set(_TABLES) <= names:
        raise sqlite3.DatabaseError(f"not a partytable database (tables {sorted(names)})")
    if not names:
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                c.execute(statement)
    c.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def migrate(c: sqlite3.Connection, version: int) -> None:
    """Bring a database of schema ``version`` (< :data:`SCHEMA_VERSION`) to this one in the
    open transaction, step by step (:data:`_MIGRATIONS`); its rows stay as they are."""
    for step in range(version, SCHEMA_VERSION):
        for statement in _MIGRATIONS[step]:
            c.execute(statement)
        c.execute(f"PRAGMA user_version = {step + 1}")
        log.warning("game database: schema %d migrated to %d", step, step + 1)


def first_problem(rows: Sequence[Sequence[Any]]) -> str:
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


def reason_of(err: BaseException) -> str:
    """One line for an OSError or sqlite3 error."""
    if isinstance(err, OSError) and err.strerror:
        return err.strerror
    text = str(err).splitlines()[0] if str(err) else type(err).__name__
    return text
