"""A state directory that is full, read-only, not writable for the console's user or
locked: the database is never set aside for it, an unfinished game is still restored from
what can be read (also when SQLite's -wal and -shm files are gone and cannot be made
again), the TV names the problem and the game goes on unsaved; once there is room again
nothing is lost.  The cards are real: a small tmpfs filled to its last byte, a read-only
bind mount, a directory of mode 0555 seen by an unprivileged user."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import sqlite3
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from card_helpers import console_on, hand_over, owner_for_test, run_unprivileged

from device.console import GameRecord
from device.store.db_schema import DB_NAME
from device.store.game_db import GameDB
from device.store.session import GameSession, GameStore
from drivers.table_display import TableDisplay

S = 1_000_000_000


@pytest.fixture
def small_card(tmp_path: Path) -> Iterator[Path]:
    """A 512 KiB tmpfs: a card that can be filled (mount needs root, as CI and the
    appliance test have)."""
    where = tmp_path / "card"
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(where)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs to fill (needs root): {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


@contextlib.contextmanager
def read_only_view(source: Path, where: Path) -> Iterator[Path]:
    """``source`` seen through a read-only bind mount at ``where`` (a card the kernel
    remounted read-only after an error); skips the test where this process may not
    mount."""
    where.mkdir()
    done = subprocess.run(["mount", "--bind", str(source), str(where)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot bind-mount a read-only view (needs root): {done.stderr.strip()}")
    try:
        ro = subprocess.run(["mount", "-o", "remount,bind,ro", str(where)],
                            capture_output=True, text=True)
        if ro.returncode != 0:
            pytest.skip(f"cannot remount the view read-only: {ro.stderr.strip()}")
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(card: Path) -> Path:
    """Fill the card to its last byte; the filler file."""
    filler = card / "filler"
    with contextlib.suppress(OSError), open(filler, "wb", buffering=0) as f:
        while True:
            f.write(b"\0" * 4096)
    with contextlib.suppress(OSError), open(filler, "ab") as f:
        f.write(b"\0")
    return filler


@pytest.mark.parametrize("closed", [False, True], ids=["cut", "closed-then-full"])
def test_a_full_card_restores_the_game_and_keeps_every_action_once_there_is_room(
    display: TableDisplay, small_card: Path, closed: bool
) -> None:
    """Cut a game (or stop the console cleanly, so SQLite's -wal and -shm files are gone
    and a full card cannot make them again), fill the card: the database is not set
    aside, the game is restored at its position, the TV says the card is full, the game
    goes on; free the card: the actions played meanwhile are written, and the database
    ends with the whole game."""
    done: list[GameRecord] = []
    first = console_on(display, small_card, done)
    while first.record is not None and len(first.record.actions) < 8:
        first.step()
    cut_at = list(first.record.actions) if first.record else []
    if closed:
        first.close()
        assert not (small_card / (DB_NAME + "-wal")).exists()
    filler = fill(small_card)
    second = console_on(display, small_card, done)
    assert sorted(p.name for p in small_card.iterdir() if p.name.startswith(DB_NAME + "."))\
        == []
    assert second.record is not None and second.record.actions == cut_at
    assert second.flow.snapshot().held
    banner = second.model(display.clock.now_ns()).banner
    assert f"Games are not saved: {small_card} is full" in banner
    while len(second.record.actions) < 20:
        second.step()
    filler.unlink()
    while not done:
        second.step()
    second.close()
    with GameDB.open(small_card) as db:
        (game,) = db.games()
        assert db.integrity() == "ok"
    assert game.outcome == "won" and game.actions == done[0].actions
    assert game.actions[:8] == cut_at


@pytest.mark.parametrize("left", [("", "-wal", "-shm"), ("", "-wal"), ("",)],
                         ids=["cut", "cut-without-shm", "closed"])
def test_a_read_only_card_restores_the_game_and_plays_on_unsaved(
    display: TableDisplay, tmp_path: Path, left: tuple[str, ...]
) -> None:
    """A card the kernel remounted read-only holding the files a power cut left (the
    database, its -wal and -shm), those without the -shm, or the database alone (a clean
    stop removes the others, and a read-only card cannot make them again): the game is
    restored at its position, the TV says the card is read-only, the game plays on, and
    nothing on the card is changed or set aside."""
    played = tmp_path / "played"
    played.mkdir()
    done: list[GameRecord] = []
    first = console_on(display, played, done)
    while first.record is not None and len(first.record.actions) < 8:
        first.step()
    cut_at = list(first.record.actions) if first.record else []
    if left == ("",):
        first.close()
    card = tmp_path / "card"
    card.mkdir()
    for suffix in left:  # the card as the cut (or the stop) left it
        shutil.copyfile(played / (DB_NAME + suffix), card / (DB_NAME + suffix))
    first.close()
    names = sorted(p.name for p in card.iterdir())
    with read_only_view(card, tmp_path / "ro") as view:
        second = console_on(display, view, done)
        assert second.record is not None and second.record.actions == cut_at
        assert second.flow.snapshot().held
        banner = second.model(display.clock.now_ns()).banner
        assert f"Games are not saved: {view} is read-only" in banner
        for _ in range(30):
            second.step()
        assert len(second.record.actions) > len(cut_at)
        second.close()
        assert sorted(p.name for p in card.iterdir()) == names
    with GameDB.open(card) as db:
        game = db.unfinished()
    assert game is not None and game.actions == cut_at


def test_a_state_directory_the_console_may_not_write_restores_the_game(
    display: TableDisplay
) -> None:
    """The state directory is mode 0555 for the console's user and SQLite's -wal and -shm
    files are gone (a clean stop): the game is still restored from what can be read, and
    the TV names the directory, the permission, its mode and owner.  Run by an
    unprivileged process, since root ignores the mode."""
    where = Path(tempfile.mkdtemp(prefix="pt-ro-", dir="/tmp"))
    try:
        done: list[GameRecord] = []
        first = console_on(display, where, done)
        while first.record is not None and len(first.record.actions) < 8:
            first.step()
        cut_at = list(first.record.actions) if first.record else []
        first.close()
        hand_over(where)
        where.chmod(0o555)

        def restore() -> dict[str, object]:
            store = GameStore(where)
            session = GameSession.resume(store)
            store.close()
            return {"actions": None if session is None else session.record.actions,
                    "problem": store.problem}

        got = run_unprivileged(restore)
        owner = pwd.getpwuid(owner_for_test()[0]).pw_name
        assert got == {"actions": cut_at, "problem": (
            f"Games are not saved: cannot write {where}: permission denied "
            f"(mode 555, owner {owner})")}
        assert stat.S_IMODE(where.stat().st_mode) == 0o555
        assert sorted(p.name for p in where.iterdir()) == ["lobby.json", DB_NAME]
    finally:
        where.chmod(0o755)
        shutil.rmtree(where)


def test_a_database_locked_by_another_process_is_not_set_aside(
    display: TableDisplay, tmp_path: Path
) -> None:
    """Another program holding the database exclusively: one line on the TV, the file is
    left where it is (it is not damaged), the game goes on unsaved."""
    GameDB.open(tmp_path).close()  # an empty database of ours
    other = sqlite3.connect(tmp_path / DB_NAME, isolation_level=None)
    other.execute("PRAGMA locking_mode = EXCLUSIVE")
    other.execute("BEGIN EXCLUSIVE")
    try:
        done: list[GameRecord] = []
        console = console_on(display, tmp_path, done)
        assert "Games are not saved" in console.model(display.clock.now_ns()).banner
        assert [p.name for p in tmp_path.iterdir() if ".db." in p.name] == []
        for _ in range(30):
            console.step()
        assert console.record is not None and len(console.record.actions) > 5
    finally:
        other.close()
    assert os.path.getsize(tmp_path / DB_NAME) > 0


def test_a_read_only_card_with_a_damaged_page_opens_the_console_and_says_so(
    display: TableDisplay, tmp_path: Path
) -> None:
    """A read-only card (nothing can be set aside) whose records table has a page of
    noise: the console starts, the TV says the last game is not restored and that
    the card is read-only, and a new game is played unsaved."""
    card = tmp_path / "card"
    card.mkdir()
    first = console_on(display, card, [])
    while first.record is not None and len(first.record.actions) < 8:
        first.step()
    first.close()
    conn = sqlite3.connect(card / DB_NAME)
    (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'records'")\
        .fetchone()
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    with open(card / DB_NAME, "r+b") as f:  # the records table's root page: noise
        f.seek((root - 1) * page)
        f.write(bytes(range(256)) * (page // 256))
    with read_only_view(card, tmp_path / "ro") as view:
        second = console_on(display, view, [])
        banner = second.model(display.clock.now_ns()).banner
        assert "Last game not restored: database cannot be read" in banner
        assert f"Games are not saved: {view} is read-only" in banner
        for _ in range(10):
            second.step()
        assert second.record is not None and second.record.actions
        second.close()


@pytest.mark.parametrize("owned_by_user", [True, False], ids=["000 own", "700 root"])
def test_a_state_directory_the_console_may_not_enter_is_one_line_and_it_plays(
    display: TableDisplay, owned_by_user: bool
) -> None:
    """The state directory is mode 000 (the console's own) or a root directory of mode
    700: the lobby's choices are the defaults without an error, the TV says the games
    are not saved because the directory cannot be entered (its mode and owner), and the
    console deals and plays.  Run by an unprivileged process, since root ignores the
    mode."""
    from device.config.loader import computer_only_text, parse_config
    from device.modes.hardware import lobby_choices

    where = Path(tempfile.mkdtemp(prefix="pt-noenter-", dir="/tmp"))
    try:
        if owned_by_user:
            hand_over(where)
            where.chmod(0o000)
        else:
            where.chmod(0o700)
            if os.geteuid() != 0:
                pytest.skip("a directory this user may not enter needs another owner (root)")
        config = parse_config(computer_only_text(where))

        def play() -> dict[str, object]:
            choices, warning = lobby_choices(config, where)
            console = console_on(display, where, [])
            for _ in range(20):
                console.step()
            banner = console.model(display.clock.now_ns()).banner
            played = 0 if console.record is None else len(console.record.actions)
            console.close()
            return {"game": choices.game, "warning": warning, "banner": banner,
                    "played": played > 0}

        got = run_unprivileged(play)
        st = where.stat()
        owner = pwd.getpwuid(st.st_uid).pw_name
        mode = f"{stat.S_IMODE(st.st_mode):03o}"
        assert got["played"] and got["warning"] is None
        assert (f"Games are not saved: cannot enter {where}: permission denied (mode {mode}, "
                f"owner {owner})") in str(got["banner"])
    finally:
        where.chmod(0o755)
        shutil.rmtree(where)


@pytest.mark.parametrize(("refusal", "logged"), [
    ("CREATE TRIGGER refuse BEFORE INSERT ON records BEGIN SELECT RAISE(ABORT, 'no'); END",
     "partytable.db: no: the game goes on"),
    ("CREATE UNIQUE INDEX one_more ON records(game_id) WHERE seq >= {stored}",
     "UNIQUE constraint failed: records.game_id"),
], ids=["a trigger", "a unique index"])
def test_a_database_that_refuses_writes_says_so_in_words_and_logs_the_details(
    display: TableDisplay, tmp_path: Path, caplog: pytest.LogCaptureFixture, refusal: str,
    logged: str
) -> None:
    """The database refuses new records (a trigger that aborts, a unique index): the TV
    says writes are refused and points to the log, never SQLite's words;
    the log line has them; the game goes on."""
    console = console_on(display, tmp_path, [])
    while console.record is not None and len(console.record.actions) < 3:
        console.step()
    other = sqlite3.connect(tmp_path / DB_NAME, isolation_level=None)
    stored = other.execute("SELECT COUNT(*) FROM records").fetchone()[0]
    other.execute(refusal.format(stored=stored))  # the index: one more record, then none
    other.close()
    with caplog.at_level("ERROR", logger="partytable"):
        for _ in range(10):
            console.step()
    banner = console.model(display.clock.now_ns()).banner
    assert "Games are not saved: writes refused (see the log)" in banner
    assert str(tmp_path) not in banner
    assert logged in caplog.text
    assert console.record is not None and len(console.record.actions) > 3
    console.close()


@pytest.mark.parametrize("seq", ["9223372036854775807", "'zz'"], ids=["largest", "text"])
def test_a_record_whose_seq_cannot_grow_does_not_stop_the_next_records(
    display: TableDisplay, tmp_path: Path, seq: str
) -> None:
    """A record of the game with the largest integer or a word for its seq (a damaged
    row): the next records are still written, after the others, and the TV says nothing
    about saving."""
    console = console_on(display, tmp_path, [])
    while console.record is not None and len(console.record.actions) < 3:
        console.step()
    other = sqlite3.connect(tmp_path / DB_NAME, isolation_level=None)
    before = other.execute("SELECT COUNT(*) FROM records").fetchone()[0]
    other.execute(f"INSERT INTO records VALUES (1, {seq}, 'draw', NULL, NULL)")
    for _ in range(10):
        console.step()
    banner = console.model(display.clock.now_ns()).banner
    after = other.execute("SELECT COUNT(*) FROM records").fetchone()[0]
    other.close()
    console.close()
    assert "not saved" not in banner
    assert after > before + 1
