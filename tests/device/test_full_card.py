"""A state directory that is full, read-only or locked (issue 9 "Bad input"): the database
is never set aside for it, an unfinished game is still restored from what can be read,
the TV names the problem and the game goes on unsaved; once there is room again nothing
is lost."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from device.console import Console, GameRecord, make_seats
from device.events import FakeQueue
from device.journal import DB_NAME, GameDB
from device.lobby import LobbyChoices
from device.present import TablePresenter
from drivers.clock import FakeClock
from drivers.hand_display import open_hand_display
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


def console_on(display: TableDisplay, state_dir: Path, done: list[GameRecord]) -> Console:
    """An all-computer Right on Time console resuming from ``state_dir``."""
    clock = display.clock
    assert isinstance(clock, FakeClock)
    console = Console(
        clock=clock, queue=FakeQueue(clock), presenter=TablePresenter(display, motion=False),
        seats=make_seats([open_hand_display(s, "dummy") for s in range(2)]),
        choices=LobbyChoices(game="right-on-time", kinds=("computer", "computer")),
        game_seed=4, state_dir=state_dir, on_game_over=done.append, skip_lobby=True,
        resume=True)
    console.start()
    return console


def fill(card: Path) -> Path:
    """Fill the card to its last byte; the filler file."""
    filler = card / "filler"
    with contextlib.suppress(OSError), open(filler, "wb", buffering=0) as f:
        while True:
            f.write(b"\0" * 4096)
    with contextlib.suppress(OSError), open(filler, "ab") as f:
        f.write(b"\0")
    return filler


def test_a_full_card_restores_the_game_and_keeps_every_action_once_there_is_room(
    display: TableDisplay, small_card: Path
) -> None:
    """Cut a game, fill the card: the database is not set aside, the game is restored at
    its position, the TV says the card is full, the game goes on; free the card: the
    actions played meanwhile are written, and the database ends with the whole game."""
    done: list[GameRecord] = []
    first = console_on(display, small_card, done)
    while first.record is not None and len(first.record.actions) < 8:
        first.step()
    cut_at = list(first.record.actions) if first.record else []
    filler = fill(small_card)
    second = console_on(display, small_card, done)
    assert sorted(p.name for p in small_card.iterdir() if p.name.startswith(DB_NAME + "."))\
        == []
    assert second.record is not None and second.record.actions == cut_at
    assert second.flow.held
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
