"""``python -m device history``: the last games, as lines, as JSON, and the integrity check."""

from __future__ import annotations

import contextlib
import io
import json
import os
import pwd
import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest
from card_helpers import hand_over, run_unprivileged

from device.modes.history import main
from device.store.db_schema import DB_NAME
from device.store.game_db import GameDB
from device.store.game_rows import SlapRow
from device.store.records import ActionRecord, DecisionRecord, JournalHeader

HEADER = JournalHeader(game="riiing", seats=3, seed=42, options={"false_slap_penalty": 1},
                       first=1, device_seed=977, seat_kinds=("human", "computer", "human"))


def fill(state_dir: Path) -> tuple[int, int]:
    """A finished game with two slaps and an unfinished one; their ids."""
    with GameDB.open(state_dir) as db:
        won = db.new_game(HEADER, started_at="2026-12-01T20:00:00Z")
        db.append(won, ActionRecord("draw"))
        db.append(won, DecisionRecord("window", {"seat": 2}),
                  SlapRow("window", 2, 431.0, 12.0, False))
        db.append(won, ActionRecord("slap 2"))
        db.append(won, DecisionRecord("window", {"seat": 0}),
                  SlapRow("window", 0, 388.4, None, False))
        db.end_game(won, winner=2)
        open_game = db.new_game(HEADER, started_at="2026-12-01T20:30:00Z")
        db.append(open_game, ActionRecord("draw"))
    return won, open_game


def test_lines_name_each_game_newest_first(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """One line per game: id, start, game, seats, outcome (seats from 1), actions, the
    fastest slap."""
    won, open_game = fill(tmp_path)
    assert main(["--state-dir", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"#{open_game} 2026-12-01T20:30:00Z riiing 3 seats: unfinished, 1 actions",
        f"#{won} 2026-12-01T20:00:00Z riiing 3 seats: won by seat 3, 2 actions, fastest slap "
        "seat 1 in 388 ms",
    ]


def test_json_has_every_field_and_the_actions(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """--json: one object with the integrity result and each game's actions and slaps."""
    won, open_game = fill(tmp_path)
    assert main(["--state-dir", str(tmp_path), "--json", "--limit", "5"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["integrity"] == "ok" and out["db"] == str(tmp_path / DB_NAME)
    assert [g["id"] for g in out["games"]] == [open_game, won]
    finished = out["games"][1]
    assert finished["outcome"] == "won" and finished["winner"] == 2
    assert finished["actions"] == ["draw", "slap 2"]
    assert finished["seat_kinds"] == ["human", "computer", "human"] and finished["first"] == 1
    assert [s["reaction_ms"] for s in finished["slaps"]] == [431.0, 388.4]
    assert out["games"][0]["outcome"] is None and out["games"][0]["ended_at"] is None


def test_check_says_ok_or_names_the_problem(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """--check: exit 0 and "ok" for a good database; exit 1 and one line for pages of
    noise (the database is left where it is: history never sets aside)."""
    fill(tmp_path)
    assert main(["--state-dir", str(tmp_path), "--check"]) == 0
    assert capsys.readouterr().out == "ok\n"
    with GameDB.open(tmp_path) as db:
        for _ in range(40):
            db.new_game(HEADER)
        db._c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    path = tmp_path / DB_NAME
    data = bytearray(path.read_bytes())
    for offset in range(4096 + 100, len(data), 4096):
        data[offset:offset + 300] = b"\xa5" * 300
    path.write_bytes(bytes(data))
    status = main(["--state-dir", str(tmp_path), "--check"])
    captured = capsys.readouterr()
    assert status == 1
    assert len((captured.out + captured.err).strip().splitlines()) == 1
    assert path.exists() and not list(tmp_path.glob(DB_NAME + ".*-2*"))


def test_missing_database_and_bad_arguments_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No database: exit 1, one line, nothing created; --limit 0: exit 2."""
    assert main(["--state-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no game database" in err
    assert list(tmp_path.iterdir()) == []
    assert main(["--state-dir", str(tmp_path), "--limit", "0"]) == 2
    assert main(["--bogus"]) == 2


def test_without_state_dir_a_desktop_lists_the_simulators_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No --state-dir, no database where the config says (/var/lib/partytable on a Pi):
    the simulator's ($XDG_STATE_HOME/partytable) games are listed."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    if Path("/var/lib/partytable", DB_NAME).exists() or Path("/etc/partytable").exists():
        pytest.skip("this machine is a console (/etc/partytable or /var/lib/partytable): "
                    "history lists its games, not the simulator's")
    won, _ = fill(tmp_path / "xdg" / "partytable")
    assert main([]) == 0
    assert f"#{won} " in capsys.readouterr().out


def test_python_m_device_history_runs_it(tmp_path: Path) -> None:
    """`python -m device history --json` in a new process prints the games; --help lists
    the subcommand."""
    import subprocess
    import sys

    won, _ = fill(tmp_path)
    out = subprocess.run([sys.executable, "-m", "device", "history", "--json", "--state-dir",
                          str(tmp_path)], capture_output=True, text=True, check=True).stdout
    assert won in [g["id"] for g in json.loads(out)["games"]]
    usage = subprocess.run([sys.executable, "-m", "device", "--help"], capture_output=True,
                           text=True, check=True).stdout
    assert "history [--json]" in usage


def test_a_damaged_database_or_a_huge_limit_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A corrupt page (what an admin meets after a bad power cut) is one line and exit 1
    for the listing, --json and --check alike; an absurd --limit is exit 2 (never a
    traceback)."""
    with GameDB.open(tmp_path) as db:
        for _ in range(60):
            db.new_game(HEADER)
        db._c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    path = tmp_path / DB_NAME
    data = bytearray(path.read_bytes())
    for offset in range(4096, len(data), 4096):  # every page header after the first
        data[offset:offset + 64] = b"\xff" * 64
    path.write_bytes(bytes(data))
    for extra in ([], ["--json"], ["--check"]):
        status = main(["--state-dir", str(tmp_path), *extra])
        out = capsys.readouterr()
        assert status == 1, extra
        assert len((out.out + out.err).strip().splitlines()) == 1, (extra, out)
    assert main(["--state-dir", str(tmp_path), "--limit", "99999999999999999999"]) == 2


def test_a_slap_row_of_the_wrong_shape_is_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A slaps row whose seat is text (a damaged row) is left out of the listing and the
    JSON with one log line; the rest is listed (no traceback)."""
    won, _ = fill(tmp_path)
    with GameDB.open(tmp_path) as db:
        db._c.execute("UPDATE slaps SET seat = 'seat one' WHERE game_id = ? AND reaction_ms "
                      "= 431.0", (won,))
    assert main(["--state-dir", str(tmp_path), "--json"]) == 0
    games = json.loads(capsys.readouterr().out)["games"]
    assert [s["reaction_ms"] for g in games if g["id"] == won for s in g["slaps"]] == [388.4]
    assert main(["--state-dir", str(tmp_path)]) == 0


def test_a_database_this_user_may_not_read_is_named_with_its_mode_and_owner() -> None:
    """history run by a user the database's mode 000 shuts out: exit 1 and one line
    naming the file, the permission, the mode and the owner.  Run by an unprivileged
    process, since root ignores the mode."""
    where = Path(tempfile.mkdtemp(prefix="pt-hist-", dir="/tmp"))
    path = where / DB_NAME
    try:
        fill(where)
        hand_over(where)
        if os.geteuid() == 0:
            os.chown(path, 0, 0)
        path.chmod(0)

        def run() -> list[object]:
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                code = main(["--state-dir", str(where)])
            return [code, err.getvalue()]

        owner = pwd.getpwuid(path.stat().st_uid).pw_name
        assert run_unprivileged(run) == [1, f"error: cannot read {path}: permission denied "
                                            f"(mode 000, owner {owner})\n"]
    finally:
        shutil.rmtree(where)


def test_a_database_this_user_may_read_but_not_beside_is_listed() -> None:
    """A database after a clean stop (no -wal/-shm) in a directory this user may not
    write: SQLite cannot make the -shm a WAL database needs to be read in place, and
    history lists the games all the same.  Run by an unprivileged process."""
    where = Path(tempfile.mkdtemp(prefix="pt-hist-", dir="/tmp"))
    try:
        won, open_game = fill(where)
        if os.geteuid() == 0:
            os.chown(where, 0, 0)
        where.chmod(0o755)
        (where / DB_NAME).chmod(0o644)

        def run() -> list[object]:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                code = main(["--state-dir", str(where)])
            return [code, [line.split()[0] for line in out.getvalue().splitlines()]]

        assert run_unprivileged(run) == [0, [f"#{open_game}", f"#{won}"]]
    finally:
        shutil.rmtree(where)


NOT_UTF8, NOT_UTF8_TEXT = "x'ff7b7d'", "CAST(x'ff7b7d' AS TEXT)"
DEEP = "printf('%.*c', 100000, '[') || printf('%.*c', 100000, ']')"
DIGITS = "'{\"slap_timeout_s\":1' || printf('%.*c', 5000, '0') || '}'"


HOSTILE = {"not UTF-8": NOT_UTF8, "not UTF-8 as text": NOT_UTF8_TEXT,
           "nested 100000 deep": DEEP, "a 5000-digit number": DIGITS}


@pytest.mark.parametrize(("column", "value"), [
    pytest.param(column, value, id=f"{column}-{name}")
    for column in ("options", "seat_kinds", "records.data", "game", "started_at")
    for name, value in HOSTILE.items()
    if column not in ("game", "started_at") or "UTF-8" in name  # plain text: any is a name
])
def test_a_game_whose_stored_value_does_not_decode_is_skipped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], column: str, value: str) -> None:
    """A value no decoding takes in one game's row or in its record's data: that game is
    skipped (one log line naming it), the other is listed, and the exit status is 0."""
    won, open_game = fill(tmp_path)
    conn = sqlite3.connect(tmp_path / DB_NAME)
    if column == "records.data":
        conn.execute(f"UPDATE records SET data = {value}, action = NULL, decision = 'window' "
                     "WHERE game_id = ?", (open_game,))
    else:
        conn.execute(f"UPDATE games SET {column} = {value} WHERE id = ?", (open_game,))
    conn.commit()
    conn.close()
    assert main(["--state-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out if line.startswith("#")] == [f"#{won}"]


def test_a_database_whose_only_game_is_skipped_does_not_say_no_games(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The one game's row does not read: it is skipped, and the last line counts it
    instead of saying there are no games."""
    with GameDB.open(tmp_path) as db:
        db.new_game(HEADER, started_at="2026-12-01T20:00:00Z")
    conn = sqlite3.connect(tmp_path / DB_NAME)
    conn.execute("UPDATE games SET options = '{bad'")
    conn.commit()
    conn.close()
    assert main(["--state-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [f"no other games in {tmp_path / DB_NAME} (1 skipped: its row does not read)"]
    assert main(["--state-dir", str(tmp_path), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["games"] == [] and got["skipped"] == 1
