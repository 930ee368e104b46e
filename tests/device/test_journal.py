"""The game database and write_atomic (docs/architecture.md "Persistence and power loss")."""

from __future__ import annotations

import json
import os
import pwd
import random
import shutil
import sqlite3
import stat
import tempfile
import zlib
from pathlib import Path

import pytest
from card_helpers import hand_over, run_unprivileged

from device.slaps.arbiter import SlapArbiter
from device.store.atomic_file import write_atomic
from device.store.db_schema import DB_NAME, SCHEMA_VERSION, StateError
from device.store.game_db import GameDB, boot_id, open_read_only
from device.store.game_rows import KEEP_GAMES, SlapRow, utc_now
from device.store.records import ActionRecord, DecisionRecord, JournalError, JournalHeader, Record
from device.store.session import GameStore

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


def legacy_line(obj: object) -> bytes:
    """One line of the old JSON-lines journal: crc32 hex, tab, compact JSON."""
    body = json.dumps(obj, separators=(",", ":")).encode()
    return b"%08x\t%s\n" % (zlib.crc32(body), body)


def stored(db: GameDB, records: tuple[Record, ...] = RECORDS) -> int:
    """A game of HEADER with ``records`` in ``db``; its id."""
    game_id = db.new_game(HEADER)
    for r in records:
        db.append(game_id, r)
    return game_id


def test_a_game_reads_back_record_for_record(tmp_path: Path) -> None:
    """Header and every record (actions, decisions with nested data, quotes, tabs) read
    back equal and in order, after closing and opening again; the pragmas are the ones the
    module promises (WAL, synchronous=FULL, the schema version)."""
    with GameDB.open(tmp_path) as db:
        game_id = stored(db)
        pragmas = [db._c.execute(f"PRAGMA {p}").fetchone()[0]
                   for p in ("journal_mode", "synchronous", "user_version")]
    assert pragmas == ["wal", 2, SCHEMA_VERSION]
    with GameDB.open(tmp_path) as db:
        game = db.unfinished()
    assert game is not None and game.id == game_id
    assert game.header == HEADER
    assert game.records == RECORDS
    assert game.actions == ["play 5C/>", "draw", "slap 2", 'play P/{1,4,7} "quoted"\tand tab']


def test_a_finished_game_is_not_unfinished_and_keeps_its_outcome(tmp_path: Path) -> None:
    """end_game marks a game won or abandoned; unfinished() then finds the newest other
    unfinished game or none; games() lists newest first."""
    with GameDB.open(tmp_path) as db:
        first = stored(db)
        second = stored(db, RECORDS[:2])
        db.end_game(second, winner=2, summary={"rounds": 3})
        assert db.unfinished() is not None and db.unfinished().id == first  # type: ignore[union-attr]
        db.end_game(first, winner=None, abandoned=True)
        assert db.unfinished() is None
        games = db.games()
    assert [(g.id, g.outcome, g.winner) for g in games] == [
        (second, "won", 2), (first, "abandoned", None)]
    assert all(g.ended_at is not None and g.ended_at.endswith("Z") for g in games)


def test_slap_rows_are_queries(tmp_path: Path) -> None:
    """A slap row goes in with its decision record, in the same transaction; tonight's
    fastest slap is a query."""
    with GameDB.open(tmp_path) as db:
        game_id = db.new_game(HEADER)
        db.append(game_id, RECORDS[2], SlapRow("window", 2, 412.5, 31.0, True))
        db.append(game_id, RECORDS[2], SlapRow("window", 0, 380.0, None, False))
        assert db.slaps(game_id) == [SlapRow("window", 2, 412.5, 31.0, True),
                                     SlapRow("window", 0, 380.0, None, False)]
        fastest = db._c.execute("SELECT seat, MIN(reaction_ms) FROM slaps").fetchone()
    assert tuple(fastest) == (0, 380.0)


def test_cut_back_drops_the_records_after_the_kept_ones(tmp_path: Path) -> None:
    """cut_back(k) keeps exactly the first k records; appending goes on after them."""
    with GameDB.open(tmp_path) as db:
        game_id = stored(db)
        db.cut_back(game_id, 3)
        db.append(game_id, ActionRecord("timeout"))
        assert db.game(game_id).records == (*RECORDS[:3], ActionRecord("timeout"))


def test_cut_back_keeps_the_first_records_in_order_when_a_seq_is_missing(
    tmp_path: Path
) -> None:
    """A record deleted from the middle (seq 1 gone): cut_back(k) still keeps the first k
    records the game reads, not those numbered below k."""
    with GameDB.open(tmp_path) as db:
        game_id = stored(db)
        db._c.execute("DELETE FROM records WHERE game_id = ? AND seq = 1", (game_id,))
        readable = db.game(game_id).records
        db.cut_back(game_id, 3)
        assert db.game(game_id).records == readable[:3]


def test_old_finished_games_are_pruned_unfinished_never(tmp_path: Path) -> None:
    """Finished games beyond the newest ``keep`` go (records and slaps with them); an
    unfinished game stays however old it is, so the state directory stays bounded."""
    with GameDB.open(tmp_path) as db:
        oldest_unfinished = stored(db, RECORDS[:1])
        finished = []
        for _ in range(6):
            game_id = stored(db, RECORDS[:2])
            db.append(game_id, RECORDS[2], SlapRow("window", 1, 300.0, None, False))
            db.end_game(game_id, winner=1)
            finished.append(game_id)
        assert db.prune(keep_games=2) == 4
        ids = [g.id for g in db.games(limit=50)]
        orphans = db._c.execute("SELECT COUNT(*) FROM records WHERE game_id NOT IN "
                                "(SELECT id FROM games)").fetchone()[0]
        slaps = db._c.execute("SELECT COUNT(*) FROM slaps").fetchone()[0]
    assert ids == [finished[-1], finished[-2], oldest_unfinished]
    assert orphans == 0 and slaps == 2
    assert KEEP_GAMES >= 100


def test_a_newer_schema_is_set_aside_not_deleted(tmp_path: Path) -> None:
    """A database a newer device wrote (a higher user_version) is renamed out of the way
    with its contents intact; a new one starts; the notice names the file and why."""
    newer = SCHEMA_VERSION + 1
    with GameDB.open(tmp_path) as db:
        stored(db)
        db._c.execute(f"PRAGMA user_version = {newer}")
    with GameDB.open(tmp_path) as db:
        assert db.games() == []
        (notice,) = db.notices
    assert f"kept as partytable.db.v{newer}-" in notice and "newer" in notice
    (aside,) = [p for p in tmp_path.iterdir() if p.name.startswith(f"{DB_NAME}.v{newer}-")
                and not p.name.endswith(("-wal", "-shm"))]
    conn = sqlite3.connect(aside)
    assert conn.execute("SELECT COUNT(*) FROM records").fetchone()[0] == len(RECORDS)
    conn.close()


def test_another_programs_database_is_set_aside(tmp_path: Path) -> None:
    """A SQLite file with other tables (not ours) is set aside as unknown."""
    conn = sqlite3.connect(tmp_path / DB_NAME)
    conn.execute("CREATE TABLE photos(x)")
    conn.commit()
    conn.close()
    with GameDB.open(tmp_path) as db:
        assert any("not a partytable database" in n for n in db.notices)
        assert db.integrity() == "ok"
    assert list(tmp_path.glob(DB_NAME + ".unknown-*"))


def test_a_damaged_database_is_set_aside(tmp_path: Path) -> None:
    """Pages overwritten with noise (a failing SD card): the integrity check fails, the
    file is set aside, the console starts a new one, nothing raises."""
    with GameDB.open(tmp_path) as db:
        for _ in range(30):
            stored(db)
        db._c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    path = tmp_path / DB_NAME
    data = bytearray(path.read_bytes())
    rng = random.Random(3)
    for offset in range(4096 + 200, len(data), 4096):  # every page but the first
        data[offset:offset + 600] = bytes(rng.randrange(256) for _ in range(600))
    path.write_bytes(bytes(data))
    with GameDB.open(tmp_path) as db:
        assert db.games() == [] and db.integrity() == "ok"
        (notice,) = db.notices
    assert "set aside" in notice and "\n" not in notice
    assert list(tmp_path.glob(DB_NAME + ".damaged-*")) or list(
        tmp_path.glob(DB_NAME + ".unreadable-*"))


def test_an_old_journal_is_carried_over_once(tmp_path: Path) -> None:
    """journal.log of earlier versions (unfinished game, torn last line) becomes a game in
    the database with every good record; the file is renamed, so it is read once."""
    legacy = tmp_path / "journal.log"
    legacy.write_bytes(legacy_line(HEADER.to_json())
                       + b"".join(legacy_line(r.to_json()) for r in RECORDS)
                       + b'1234abcd\t{"action": "pl')
    with GameDB.open(tmp_path) as db:
        game = db.unfinished()
        assert any("carried over (6 records)" in n for n in db.notices)
    assert game is not None and game.header == HEADER and game.records == RECORDS
    assert not legacy.exists() and (tmp_path / "journal.log.carried-over").exists()
    with GameDB.open(tmp_path) as db:
        assert len(db.games()) == 1 and db.notices == []


def test_an_old_finished_journal_is_carried_over_as_finished(tmp_path: Path) -> None:
    """An old journal whose game ended (its gameover record) is a finished game."""
    (tmp_path / "journal.log").write_bytes(
        legacy_line(HEADER.to_json()) + legacy_line(RECORDS[0].to_json())
        + legacy_line({"decision": "gameover", "data": {"winner": 1}}))
    with GameDB.open(tmp_path) as db:
        assert db.unfinished() is None
        (game,) = db.games()
    assert (game.outcome, game.winner, game.records) == ("won", 1, RECORDS[:1])


def test_a_garbage_old_journal_is_one_notice(tmp_path: Path) -> None:
    """A journal.log that is not one (bad header) is named in one line, renamed, ignored."""
    (tmp_path / "journal.log").write_bytes(b"\x00\xffgarbage\n")
    with GameDB.open(tmp_path) as db:
        (notice,) = db.notices
        assert db.games() == []
    assert "journal.log not carried over" in notice and "line 1" in notice


def test_a_state_dir_that_cannot_hold_a_database_is_one_line(tmp_path: Path) -> None:
    """A state directory that is a file (or unwritable) raises StateError, one line."""
    blocker = tmp_path / "state"
    blocker.write_text("not a directory")
    with pytest.raises(StateError) as err:
        GameDB.open(blocker)
    assert str(blocker) in str(err.value) and "\n" not in str(err.value)


def test_a_record_that_is_not_json_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    """Data JSON cannot hold is a JournalError at append, and the game has no record."""
    with GameDB.open(tmp_path) as db:
        game_id = db.new_game(HEADER)
        with pytest.raises(JournalError, match="not JSON"):
            db.append(game_id, DecisionRecord("slap", {"when": object()}))
        assert db.game(game_id).records == ()


def test_a_damaged_row_is_skipped_in_the_list(tmp_path: Path) -> None:
    """A game row whose options are not JSON is one log line in games(), not a crash."""
    with GameDB.open(tmp_path) as db:
        good = stored(db)
        bad = stored(db)
        db._c.execute("UPDATE games SET options = '{broken' WHERE id = ?", (bad,))
        assert [g.id for g in db.games()] == [good]
        with pytest.raises(JournalError, match=f"game {bad}"):
            db.game(bad)


def test_read_only_open_never_creates_or_sets_aside(tmp_path: Path) -> None:
    """history's read-only open: a missing database and another schema version are
    StateError lines; nothing is created or renamed."""
    with pytest.raises(StateError, match="no game database"):
        open_read_only(tmp_path / DB_NAME)
    assert list(tmp_path.iterdir()) == []
    with GameDB.open(tmp_path) as db:
        stored(db)
        db._c.execute("PRAGMA user_version = 7")
    with pytest.raises(StateError, match="schema version 7"):
        open_read_only(tmp_path / DB_NAME)
    assert (tmp_path / DB_NAME).exists()


def test_header_of_a_bad_shape_is_refused() -> None:
    """A header with a bad field is a JournalError naming it (the carry-over and the
    database read it through the same checks)."""
    for obj, message in [
        ({**HEADER.to_json(), "version": 9}, "journal version 9 is not supported"),
        ({**HEADER.to_json(), "seat_kinds": ["human"]}, "seat_kinds must be 3 words"),
        ({**HEADER.to_json(), "first": 3}, r"first must be a seat 0\.\.2, got 3"),
        ({"game": "riiing"}, "not a partytable journal header"),
    ]:
        with pytest.raises(JournalError, match=message):
            JournalHeader.from_json(obj)


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


def test_write_atomic_removes_what_a_power_cut_left(tmp_path: Path) -> None:
    """A temporary file left by a cut between its creation and the rename (seen after the
    power-cut test: one per cut, piling up) is removed by the next write; other files stay."""
    path = tmp_path / "lobby.json"
    (tmp_path / ".lobby.json.ab12cd34.tmp").write_text("half")
    (tmp_path / ".other.json.ab12cd34.tmp").write_text("not ours")
    write_atomic(path, "choices")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".other.json.ab12cd34.tmp",
                                                          "lobby.json"]


def test_tonights_leaderboard_counts_this_nights_games_until_cleared(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Fastest RIIING! slap and games won per seat over the games of this boot of the box;
    a game of the boot before and the wake-up race do not count; clearing starts afresh
    (games are kept); a row of the wrong shape is one log line."""
    with GameDB.open(tmp_path, boot="boot-before") as db:
        old = db.new_game(HEADER)
        db.append(old, RECORDS[2], SlapRow("window", 0, 150.0, None, False))
        db.end_game(old, winner=0)
    with GameDB.open(tmp_path, boot="boot-now") as db:
        for winner, ms in ((2, 412.0), (2, 380.5), (1, 300.0)):
            g = db.new_game(HEADER)
            db.append(g, RECORDS[2], SlapRow("window", winner, ms, None, False))
            db.append(g, RECORDS[2], SlapRow("wakeup", 0, 90.0, None, False))
            db.end_game(g, winner=winner)
        board = db.leaderboard()
        assert dict(board.fastest) == {2: 380.5, 1: 300.0}
        assert dict(board.wins) == {2: 2, 1: 1}
        db._c.execute("INSERT INTO slaps VALUES (?, 99, 'window', 'x', 1.0, NULL, 0)", (g,))
        with caplog.at_level("WARNING", logger="partytable"):
            assert dict(db.leaderboard().fastest) == {2: 380.5, 1: 300.0}
        assert "1 leaderboard rows of the wrong shape skipped" in caplog.text
        db.clear_leaderboard()
        board = db.leaderboard()
        assert (dict(board.fastest), dict(board.wins)) == ({}, {})
        assert len(db.games()) == 4


def won_games(db: GameDB, starts: tuple[str, ...]) -> None:
    """One game per ``starts`` (its wall-clock start), each won by seat 1 with a 300 ms
    RIIING! slap."""
    for started in starts:
        g = db.new_game(HEADER, started_at=started)
        db.append(g, RECORDS[2], SlapRow("window", 1, 300.0, None, False))
        db.end_game(g, winner=1)


def test_tonight_is_this_boot_of_the_box_whatever_the_wall_clock_says(
    tmp_path: Path
) -> None:
    """A box without a real-time clock: games started "in 2001" (the clock stepped back:
    fake-hwclock's last saved time) and "in 2038" (stepped forward) count like one started
    now, also after the service restarts in the same boot; after the box is switched off
    and on (a new boot id) the board is empty, the games are kept."""
    with GameDB.open(tmp_path, boot="boot-1") as db:
        won_games(db, ("2001-01-01T00:00:00Z", "2038-01-01T00:00:00Z", utc_now()))
        assert dict(db.leaderboard().wins) == {1: 3}
    with GameDB.open(tmp_path, boot="boot-1") as db:  # the service restarted
        board = db.leaderboard()
        assert (dict(board.wins), dict(board.fastest)) == ({1: 3}, {1: 300.0})
    with GameDB.open(tmp_path, boot="boot-2") as db:  # the next power-on
        board = db.leaderboard()
        assert (dict(board.wins), dict(board.fastest)) == ({}, {})
        assert len(db.games()) == 3


def test_a_restored_game_taken_up_again_carries_tonight_into_the_new_boot(
    tmp_path: Path
) -> None:
    """A power cut in the middle of a party: the restored game the party takes up again
    (carry_night) brings the board of the boot it was played in into this boot, for this
    boot's later starts too; the boot after that is a new night."""
    with GameDB.open(tmp_path, boot="party") as db:
        won_games(db, (utc_now(),))
        cut = db.new_game(HEADER)
    with GameDB.open(tmp_path, boot="after-the-cut") as db:
        assert dict(db.leaderboard().wins) == {}
        db.carry_night(cut)
        won_games(db, (utc_now(),))
        assert dict(db.leaderboard().wins) == {1: 2}
    with GameDB.open(tmp_path, boot="after-the-cut") as db:
        assert dict(db.leaderboard().wins) == {1: 2}
    with GameDB.open(tmp_path, boot="next-week") as db:
        assert dict(db.leaderboard().wins) == {}


def test_boot_id_is_the_kernels_and_stays_for_the_boot(tmp_path: Path) -> None:
    """The boot id is read from the kernel's file (a UUID and a newline, proc(5));
    without it (not Linux) one random id serves the whole process."""
    source = tmp_path / "boot_id"
    source.write_text("6f1f6b0e-9c7e-4a57-a1a5-0d6b1c6f1e3a\n")
    assert boot_id(source) == "6f1f6b0e-9c7e-4a57-a1a5-0d6b1c6f1e3a"
    missing = tmp_path / "none"
    assert boot_id(missing) == boot_id(missing) != boot_id(source)


SCHEMA_1 = """
CREATE TABLE games(id INTEGER PRIMARY KEY, game TEXT NOT NULL, seats INTEGER NOT NULL,
    seed INTEGER NOT NULL, options TEXT NOT NULL, first INTEGER NOT NULL,
    device_seed INTEGER NOT NULL, seat_kinds TEXT NOT NULL,
    strengths TEXT NOT NULL DEFAULT '[]', started_at TEXT NOT NULL, ended_at TEXT,
    outcome TEXT CHECK (outcome IN ('won', 'abandoned')), winner INTEGER, summary TEXT);
CREATE TABLE records(game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL, action TEXT, decision TEXT, data TEXT, PRIMARY KEY (game_id, seq),
    CHECK ((action IS NULL) != (decision IS NULL))) WITHOUT ROWID;
CREATE TABLE slaps(game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL, race TEXT NOT NULL, seat INTEGER NOT NULL,
    reaction_ms REAL NOT NULL, margin_ms REAL, tie INTEGER NOT NULL,
    PRIMARY KEY (game_id, seq)) WITHOUT ROWID;
CREATE INDEX games_unfinished ON games(id) WHERE outcome IS NULL;
CREATE TABLE dropped(game_id INTEGER NOT NULL, seq INTEGER NOT NULL, action TEXT,
    decision TEXT, data TEXT, PRIMARY KEY (game_id, seq)) WITHOUT ROWID;
CREATE TABLE marks(name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
PRAGMA user_version = 1;
"""
"""The schema of version 1 (before games had a boot id)."""


def test_a_schema_1_database_is_migrated_and_keeps_its_games(tmp_path: Path) -> None:
    """A database of schema 1 (a won game with a slap started a minute ago by the wall
    clock, an unfinished game): opened, it is schema 2 with both games and every record;
    the old games are of no boot, so not tonight; a game of this boot is."""
    conn = sqlite3.connect(tmp_path / DB_NAME)
    conn.executescript(SCHEMA_1)
    now = utc_now()
    for outcome in ("won", None):
        conn.execute("INSERT INTO games(game, seats, seed, options, first, device_seed, "
                     "seat_kinds, started_at, outcome, winner) VALUES ('riiing', 3, 42, "
                     "?, 2, 977, ?, ?, ?, ?)",
                     (json.dumps(HEADER.options), json.dumps(list(HEADER.seat_kinds)), now,
                      outcome, 1 if outcome else None))
    conn.execute("INSERT INTO records VALUES (1, 0, 'slap 2', NULL, NULL)")
    conn.execute("INSERT INTO slaps VALUES (1, 0, 'window', 1, 250.0, NULL, 0)")
    conn.execute("INSERT INTO records VALUES (2, 0, 'draw', NULL, NULL)")
    conn.commit()
    conn.close()
    with GameDB.open(tmp_path, boot="boot-1") as db:
        assert db.notices == []
        assert db._c.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
        game = db.unfinished()
        assert game is not None and game.header == HEADER and game.actions == ["draw"]
        assert [g.id for g in db.games()] == [2, 1]
        assert dict(db.leaderboard().wins) == {}
        won_games(db, (now,))
        assert dict(db.leaderboard().wins) == {1: 1}
        assert db.integrity() == "ok"
WRONG_SLAPS = "DROP TABLE slaps; CREATE TABLE slaps(game_id INTEGER, seq INTEGER, who TEXT);"
"""A slaps table of the wrong shape (three columns where the schema has seven)."""


def test_a_table_of_the_wrong_shape_is_set_aside_on_open(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A database of this schema version whose slaps table has other columns (PRAGMA
    table_info) is set aside like a damaged one, with one notice naming the table; the new
    database takes a slap row with its record."""
    with GameDB.open(tmp_path) as db:
        stored(db)
        db._c.executescript(WRONG_SLAPS)
    with caplog.at_level("WARNING", logger="partytable"), GameDB.open(tmp_path) as db:
        (notice,) = db.notices
        assert db.games() == []
        game_id = db.new_game(HEADER)
        db.append(game_id, RECORDS[2], SlapRow("window", 1, 309.0, None, False))
        assert db.slaps(game_id) == [SlapRow("window", 1, 309.0, None, False)]
    assert "slaps" in notice and "set aside" in notice and "\n" not in notice
    assert notice in caplog.text
    (aside,) = [p for p in tmp_path.iterdir() if p.name.startswith(DB_NAME + ".unknown-")
                and not p.name.endswith(("-wal", "-shm"))]
    conn = sqlite3.connect(aside)
    assert conn.execute("SELECT COUNT(*) FROM records").fetchone()[0] == len(RECORDS)
    conn.close()


def test_a_slap_row_the_table_refuses_never_blocks_the_game(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The slaps table goes wrong while the console runs (after the open-time check): each
    slap row it refuses is dropped with one log line naming the table, and its record and
    every later one are still written, so the game is saved in full."""
    from device.store.session import GameStore, JournalWriter

    store = GameStore(tmp_path)
    writer = JournalWriter(store, HEADER)
    assert writer.append(RECORDS[0])
    db = store.db()
    assert db is not None
    db._c.executescript(WRONG_SLAPS)
    with caplog.at_level("WARNING", logger="partytable"):
        for r in RECORDS[1:]:
            slap = SlapRow("window", 2, 412.5, None, False) if r == RECORDS[2] else None
            assert writer.append(r, slap)
        assert writer.end(2, abandoned=False, summary={})
    assert store.problem == "" and writer.game_id is not None
    game = db.game(writer.game_id)
    store.close()
    refused = [m for m in caplog.messages if "slaps" in m]
    assert len(refused) == 1 and "dropped" in refused[0]
    assert game.records == RECORDS and game.outcome == "won"


def test_a_full_card_drops_no_slap_row(tmp_path: Path) -> None:
    """A slap row that fails for the card (SQLITE_FULL: ``PRAGMA max_page_count`` at the
    pages there are, and a row that needs new ones), not for its shape, is never dropped:
    append raises StateError, neither the record nor the row is written, and once there is
    room the same append writes both."""
    slap = SlapRow("w" * 20_000, 1, 309.0, None, False)  # overflow pages: needs room
    with GameDB.open(tmp_path) as db:
        game_id = db.new_game(HEADER)
        pages = db._c.execute("PRAGMA page_count").fetchone()[0]
        db._c.execute(f"PRAGMA max_page_count = {pages}").fetchone()
        with pytest.raises(StateError, match="full"):
            db.append(game_id, RECORDS[2], slap)
        assert db.game(game_id).records == () and db.slaps(game_id) == []
        db._c.execute("PRAGMA max_page_count = 1000000").fetchone()
        db.append(game_id, RECORDS[2], slap)
        assert db.slaps(game_id) == [slap] and db.game(game_id).records == (RECORDS[2],)


@pytest.mark.parametrize("bad_ms", [-5.0, 0.0, 60_001.0, 1e300, "fast"])
def test_one_damaged_slap_row_never_hides_a_seats_real_fastest(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, bad_ms: object
) -> None:
    """Seat 4's genuine 309 ms stays its fastest slap whatever one damaged row beside it
    holds (negative, zero, over 60 s, absurd, text); the damaged row is one log line."""
    seats6 = JournalHeader(game="riiing", seats=6, seed=1, options={}, first=0,
                           device_seed=2, seat_kinds=("human",) * 6)
    with GameDB.open(tmp_path) as db:
        g = db.new_game(seats6)
        db.append(g, RECORDS[2], SlapRow("window", 4, 309.0, None, False))
        db.append(g, RECORDS[2], SlapRow("window", 1, 500.0, None, False))
        db._c.execute("INSERT INTO slaps VALUES (?, 99, 'window', 4, ?, NULL, 0)", (g, bad_ms))
        with caplog.at_level("WARNING", logger="partytable"):
            board = db.leaderboard()
    assert dict(board.fastest) == {4: 309.0, 1: 500.0}
    assert "1 leaderboard rows of the wrong shape skipped" in caplog.text


def test_an_empty_database_file_is_named_and_started_afresh(tmp_path: Path) -> None:
    """A 0-byte partytable.db with no -wal file beside it (a card that lost the file's
    data) is a new database, and the TV says so."""
    (tmp_path / DB_NAME).write_bytes(b"")
    with GameDB.open(tmp_path) as db:
        assert db.games() == [] and db.integrity() == "ok"
        (notice,) = db.notices
    assert notice == "Game database was empty (0 bytes): a new one is started"


def test_an_empty_database_file_is_rebuilt_from_its_wal(tmp_path: Path) -> None:
    """A 0-byte partytable.db beside the -wal file that holds every committed page (a
    young database, never checkpointed, whose file lost its data): the game is rebuilt
    from the WAL record for record (SQLite alone would delete that WAL), both files are
    kept under another name, and the notice says what happened."""
    db = GameDB.open(tmp_path)
    game_id = stored(db)
    wal = (tmp_path / f"{DB_NAME}-wal").read_bytes()
    db.close()
    (tmp_path / DB_NAME).write_bytes(b"")
    (tmp_path / f"{DB_NAME}-wal").write_bytes(wal)
    with GameDB.open(tmp_path) as db:
        game = db.unfinished()
        assert db.integrity() == "ok"
        (notice,) = db.notices
    assert game is not None and game.id == game_id and game.records == RECORDS
    (kept,) = tmp_path.glob(f"{DB_NAME}.empty-*-wal")
    assert kept.read_bytes() == wal
    assert notice == (f"Game database was empty (0 bytes): rebuilt from its -wal file "
                      f"(1 game); kept as {kept.name.removesuffix('-wal')}")


@pytest.mark.parametrize("shm", [True, False], ids=["with -shm", "without -shm"])
def test_a_missing_database_file_is_rebuilt_from_its_wal(tmp_path: Path, shm: bool) -> None:
    """partytable.db gone but its -wal file (holding every committed page) still there,
    with or without the -shm: the game is rebuilt from the WAL (SQLite alone would start
    a new database and delete that WAL), the WAL is kept under another name, and the
    notice says what happened."""
    db = GameDB.open(tmp_path)
    game_id = stored(db)
    wal = (tmp_path / f"{DB_NAME}-wal").read_bytes()
    db.close()
    (tmp_path / DB_NAME).unlink()
    (tmp_path / f"{DB_NAME}-wal").write_bytes(wal)
    if shm:
        (tmp_path / f"{DB_NAME}-shm").write_bytes(bytes(32768))
    with GameDB.open(tmp_path) as db:
        game = db.unfinished()
        assert db.integrity() == "ok"
        (notice,) = db.notices
    assert game is not None and game.id == game_id and game.records == RECORDS
    (kept,) = tmp_path.glob(f"{DB_NAME}.missing-*-wal")
    assert kept.read_bytes() == wal
    assert notice == (f"Game database file was missing: rebuilt from its -wal file "
                      f"(1 game); kept as {kept.name}")


def test_an_empty_database_whose_wal_is_not_whole_is_kept_and_started_afresh(
    tmp_path: Path
) -> None:
    """A 0-byte partytable.db beside a -wal file that holds only the last pages (the
    database was checkpointed before): what the WAL holds is not a database, so a new
    one is started, both files are kept, and the notice says the WAL could not rebuild
    it."""
    with GameDB.open(tmp_path) as db:
        for _ in range(3):
            stored(db)
        db._c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        stored(db, RECORDS[:1])
        wal = (tmp_path / f"{DB_NAME}-wal").read_bytes()
    (tmp_path / DB_NAME).write_bytes(b"")
    (tmp_path / f"{DB_NAME}-wal").write_bytes(wal)
    with GameDB.open(tmp_path) as db:
        assert db.games() == [] and db.integrity() == "ok"
        (notice,) = db.notices
    (kept,) = tmp_path.glob(f"{DB_NAME}.empty-*-wal")
    assert kept.read_bytes() == wal
    assert notice.startswith("Game database was empty (0 bytes): its -wal file could not "
                             "rebuild it (")
    assert notice.endswith(f"); a new one is started, kept as "
                           f"{kept.name.removesuffix('-wal')}")


def test_a_database_this_user_may_not_read_is_named_with_its_mode_and_owner() -> None:
    """partytable.db of mode 000 (left by someone who ran the console as root): nothing
    is set aside or replaced, and the TV line names the file, the permission, its mode
    and its owner instead of SQLite's "unable to open database file".  Run by an
    unprivileged process, since root ignores the mode."""
    where = Path(tempfile.mkdtemp(prefix="pt-000-", dir="/tmp"))
    path = where / DB_NAME
    try:
        with GameDB.open(where) as db:
            stored(db)
        hand_over(where)  # the directory is the console user's, the file root's
        if os.geteuid() == 0:
            os.chown(path, 0, 0)
        path.chmod(0)

        def look() -> dict[str, object]:
            store = GameStore(where)
            db = store.db()
            store.close()
            return {"opened": db is not None, "problem": store.problem}

        got = run_unprivileged(look)
        owner = pwd.getpwuid(path.stat().st_uid).pw_name
        assert got == {"opened": False, "problem": (
            f"Games are not saved: cannot read {path}: permission denied (mode 000, "
            f"owner {owner})")}
        assert sorted(p.name for p in where.iterdir()) == [DB_NAME]
        assert stat.S_IMODE(path.stat().st_mode) == 0
    finally:
        shutil.rmtree(where)
