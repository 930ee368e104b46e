"""The game database's file at start-up (``device.store.game_db``, docs/architecture.md
"Persistence and power loss"): the connections :meth:`device.store.game_db.GameDB.open` and
``history`` read and write through, and the recovery of a file that is damaged, empty or on
a card that cannot be written.

- Writing (:func:`writing_connection`): a file that is not a database, of a newer or
  unknown schema, with a table whose columns are not the schema's (``PRAGMA table_info``),
  or that fails ``PRAGMA quick_check`` is set aside (renamed ``partytable.db.<why>-<UTC
  time>``, never deleted) and a new one started.  A file of 0 bytes is named; when a -wal
  file with frames lies beside it, both are set aside and the database is rebuilt from that
  WAL; so is a -wal file with frames whose database file is missing.
- Reading only (:func:`reading_connection`): a card that cannot be written (full,
  read-only, a mode or owner the console's user may not write) is not a damaged database:
  it is read in place or from a copy, never changed, and :func:`card_problem` names why
  it cannot be written, in words for the TV.
- ``history`` (:func:`read_only_connection`): an existing database, nothing set aside or
  created.

Every failure is a one-line :class:`~device.store.db_schema.StateError`.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import sqlite3
import stat
import tempfile
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

from device.store.atomic_file import fsync_dir
from device.store.db_schema import (
    DB_NAME,
    READ_VERSIONS,
    SCHEMA_VERSION,
    StateError,
    expected_for,
    first_problem,
    readable,
    reason_of,
    wrong_columns,
)

__all__ = [
    "EMPTY",
    "FULL_BYTES",
    "MISSING",
    "ReadConnection",
    "card_problem",
    "read_only_connection",
    "reading_connection",
    "writing_connection",
]

BUSY_S = 0.25
"""How long a write waits for another process's lock (``history`` never takes one) before
it fails and is retried with the next record: never long enough to stall the loop."""


def writing_connection(state_dir: Path, path: Path) -> tuple[sqlite3.Connection, list[str]]:
    """The connection to the database ``path`` in ``state_dir`` (made when missing) that
    :meth:`device.store.game_db.GameDB.open` writes through, after the file's recovery: a file of
    0 bytes, or a missing one beside a -wal file with frames, rebuilt from that WAL
    (:func:`_empty_file`, before SQLite, which would delete the -wal file), and a file that
    cannot be used set aside (:func:`_unusable`).  Returns it with the one-line notices of
    what was done, in order.  Raises :class:`StateError` (its TV line when the card's
    problem can be named, :func:`card_problem`) when the directory or the file cannot be
    made, set aside or opened."""
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
    return conn, notices


@dataclass(frozen=True)
class ReadConnection:
    """A connection that only reads the database (:func:`reading_connection`,
    :func:`read_only_connection`): ``conn``, the schema ``version`` it holds (one of
    :data:`~device.store.db_schema.READ_VERSIONS`) and ``scratch``, the temporary directory of the
    copy it reads when it could not read the database in place (``None``: in place), to be
    removed when the connection is closed."""

    conn: sqlite3.Connection
    version: int
    scratch: tempfile.TemporaryDirectory[str] | None = None


def read_only_connection(path: Path) -> ReadConnection:
    """Open an existing database at ``path`` for reading (``history``): nothing is set
    aside, created, migrated or carried over; where SQLite cannot read it in place (WAL
    mode needs a -shm file this user cannot make) it is read as the console reads a card
    that cannot be written (:func:`reading_connection`).  Raises :class:`StateError` when
    it is missing, when this user may not enter its directory or read it (the line names
    the mode and owner), or when it is not a partytable database of a version this device
    reads (:data:`~device.store.db_schema.READ_VERSIONS`)."""
    denied = _read_problem(path)
    if denied:
        raise StateError(denied, tv=denied)
    try:
        there = path.is_file()
    except OSError as err:  # a state directory this user may not enter (0700)
        raise StateError(f"{path}: {reason_of(err)}") from None
    if not there:
        raise StateError(f"{path}: no game database there")
    try:
        conn = sqlite3.connect(_uri(path, "mode=ro"), uri=True, isolation_level=None)
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.Error as err:
        return reading_connection(path, StateError(f"{path}: {reason_of(err)}"))
    if version not in READ_VERSIONS:
        conn.close()
        raise StateError(f"{path}: schema version {version}, this device reads "
                         f"{', '.join(map(str, READ_VERSIONS))}")
    return ReadConnection(conn, version)


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
    (:func:`card_problem`)."""
    return StateError(f"{path}: {reason_of(err)}", tv=card_problem(path),
                      errorname=getattr(err, "sqlite_errorname", ""))


def _owner(uid: int) -> str:
    """A user name for ``uid`` (the number when it has none)."""
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def card_problem(path: Path) -> str:
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


def reading_connection(path: Path, problem: StateError) -> ReadConnection:
    """A connection that reads the database ``path`` only, on a card that cannot be written
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
            version = readable(conn)
            if version in READ_VERSIONS:
                return ReadConnection(conn, version)
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
                version = readable(conn)
                if version in READ_VERSIONS:
                    return ReadConnection(conn, version, scratch)
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
            return "unreadable", reason_of(err)
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
        if (version == 0 and names) or (version and not set(expected_for(version)) <= names):
            return "unknown", f"not a partytable database (version {version})"
        if version:
            shape = wrong_columns(conn, version)
            if shape is not None:
                return "unknown", shape
        check = first_problem(conn.execute("PRAGMA quick_check").fetchall())
        if check != "ok":
            return "damaged", f"integrity check failed ({check})"
    except sqlite3.Error as err:
        if getattr(err, "sqlite_errorname", "") in _CORRUPT:
            return "damaged", reason_of(err)
        raise
    finally:
        conn.close()
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
        return (f"{head}: its -wal file could not rebuild it ({reason_of(err)}); a new one "
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
            check = first_problem(src.execute("PRAGMA quick_check").fetchall())
            if check != "ok":
                raise ValueError(f"integrity check failed ({check})")
            version = readable(src)
            if version not in READ_VERSIONS or wrong_columns(src, version) is not None:
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
