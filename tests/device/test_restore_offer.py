"""The restore offer (device/flow/restore_offer.py): the whole seconds left on the TV, one loop
timer per second, the choices the console was started with given back once; and what the
console restores at its start (device/flow/game_flow.py, device/store/session.py): a damaged
game row is named and marked, a game that was over shows its result."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from card_helpers import console_on

from device.common.notices import Notices
from device.common.phase import Phase
from device.common.words import seat_name
from device.console import GameRecord
from device.flow.lobby import LobbyChoices
from device.flow.restore_offer import RESUMED, RestoreOffer
from device.reactor.timers import Timers
from device.store import game_db as journal
from device.store.db_schema import DB_NAME
from device.store.game_db import GameDB
from drivers.table_display import TableDisplay

MS = 1_000_000
S = 1_000_000_000
DAMAGED = "Last game not restored: its record is damaged"
"""The TV's line for an unfinished game whose row in the database does not read."""


def run(timers: Timers, until_ns: int) -> list[int]:
    """Run ``timers`` deadline by deadline up to ``until_ns``, as the loop does; returns
    the deadlines it woke at."""
    woke: list[int] = []
    for _ in range(100):  # a step cap: a timer that re-arms at its own time cannot loop
        at = timers.next_ns()
        if at is None or at > until_ns:
            break
        timers.run_due(at)
        woke.append(at)
    return woke


def test_a_wait_of_2_5_s_shows_3_2_1_at_the_whole_seconds_before_its_end() -> None:
    """2.5 s left shows "3 s" (rounded up), then "2 s" when 2 s are left and "1 s" at
    1 s; the time is up at 2.5 s and called once; the notice stands first on the banner."""
    timers, notices = Timers(), Notices()
    notices.show("Games are not saved: ... is full")
    ups: list[int] = []
    offer = RestoreOffer(timers, notices, ups.append)
    offer.offer(10 * S, 2_500 * MS, (LobbyChoices(), 7))
    shown = [notices.text()]
    assert shown[0] == f"{RESUMED} (3 s)  ·  Games are not saved: ... is full"
    for at in (10_500 * MS, 11_500 * MS):
        assert run(timers, at) == [at]
        shown.append(notices.text().split("  ·  ")[0])
    assert shown[1:] == [f"{RESUMED} (2 s)", f"{RESUMED} (1 s)"]
    assert run(timers, 20 * S) == [12_500 * MS] and ups == [12_500 * MS]


def test_ending_the_offer_stops_it_and_gives_the_started_with_choices_once() -> None:
    """Answered after a second: the notice goes, no timer of it is left (the time is never
    up), and the started-with choices and seed come back once; ending again is harmless."""
    timers, notices = Timers(), Notices()
    ups: list[int] = []
    offer = RestoreOffer(timers, notices, ups.append)
    asked = (LobbyChoices(game="riiing", kinds=("human", "human", "computer")), 12)
    offer.offer(0, 5 * S, asked)
    run(timers, 1 * S)
    assert offer.held and "(4 s)" in notices.text()
    assert offer.end() == asked
    assert not offer.held and notices.text() == "" and len(timers) == 0
    assert offer.end() is None
    assert run(timers, 10 * S) == [] and ups == []


def cut_game(display: TableDisplay, state_dir: Path, actions: int = 8) -> list[str]:
    """Play an all-computer game in ``state_dir`` for ``actions`` actions and stop the
    console (the game stays unfinished); its actions."""
    first = console_on(display, state_dir, [])
    while first.record is not None and len(first.record.actions) < actions:
        first.step()
    cut = list(first.record.actions) if first.record is not None else []
    first.close()
    return cut


def damaged_restart(display: TableDisplay, tmp_path: Path, sql: str,
                    params: tuple[object, ...] = ()) -> tuple[str | None, str | None]:
    """Cut a game in ``tmp_path``, damage its database with ``sql``, start a console on it,
    assert the TV names the damaged game, and return game 1's ``(outcome, summary)``."""
    cut_game(display, tmp_path)
    conn = sqlite3.connect(tmp_path / DB_NAME)
    conn.execute(sql, params)
    conn.commit()
    conn.close()
    second = console_on(display, tmp_path, [])
    assert DAMAGED in second.model(display.clock.now_ns()).banner
    second.close()
    conn = sqlite3.connect(tmp_path / DB_NAME)
    outcome, summary = conn.execute("SELECT outcome, summary FROM games WHERE id = 1").fetchone()
    conn.close()
    return outcome, summary


@pytest.mark.parametrize(("column", "value"), [("options", "{bad"), ("seats", "three")])
def test_a_damaged_game_row_is_marked_and_named_on_the_tv_once(
    display: TableDisplay, tmp_path: Path, caplog: pytest.LogCaptureFixture, column: str,
    value: str
) -> None:
    """The unfinished game's row does not read (options that are not JSON, seats that are
    not a number): the TV says the last game is not restored and why, the game is
    marked (abandoned, the reason in its summary) and kept, and the next start neither
    tries it again nor says it again."""
    outcome, summary = damaged_restart(display, tmp_path, f"UPDATE games SET {column} = ?",
                                       (value,))
    assert outcome == "abandoned" and "not_resumed" in json.loads(summary or "{}")
    with GameDB.open(tmp_path) as db:
        assert db.unfinished_id() != 1  # the game the second start dealt, if any
    caplog.clear()
    with caplog.at_level("INFO", logger="partytable"):
        third = console_on(display, tmp_path, [])
    assert DAMAGED not in third.model(display.clock.now_ns()).banner
    assert "damaged" not in caplog.text and "game 1 " not in caplog.text
    third.close()


HOSTILE = {
    "not UTF-8": "x'ff7b7d'",
    "not UTF-8 as text": "CAST(x'ff7b7d' AS TEXT)",
    "nested 100000 deep": "printf('%.*c', 100000, '[') || printf('%.*c', 100000, ']')",
    "a 5000-digit number": "'{\"slap_timeout_s\":1' || printf('%.*c', 5000, '0') || '}'",
}
"""SQL expressions for stored values no JSON or text decoding takes: each is a damaged row."""

HOSTILE_PLACES = {
    "games.options": "UPDATE games SET options = {} WHERE outcome IS NULL",
    "games.seats": "UPDATE games SET seats = {} WHERE outcome IS NULL",
    "games.seat_kinds": "UPDATE games SET seat_kinds = {} WHERE outcome IS NULL",
    "records.data": "UPDATE records SET data = {} WHERE game_id = 1 AND seq = 0",
}


@pytest.mark.parametrize("value", list(HOSTILE.values()), ids=list(HOSTILE))
@pytest.mark.parametrize("place", list(HOSTILE_PLACES.values()), ids=list(HOSTILE_PLACES))
def test_a_stored_value_that_does_not_decode_is_a_damaged_row(
    display: TableDisplay, tmp_path: Path, place: str, value: str
) -> None:
    """Bytes that are not UTF-8, JSON nested past the parser's depth, a number past the
    digit limit, in the unfinished game's row or its first record: the console starts,
    names the game on the TV as damaged and marks it abandoned, so it is not tried
    again."""
    outcome, _summary = damaged_restart(display, tmp_path, place.format(value))
    assert outcome == "abandoned"


def test_a_game_of_more_seats_than_the_console_has_is_named_once_and_marked(
    display: TableDisplay, tmp_path: Path
) -> None:
    """A 3-seat game cut short, resumed on a 2-seat console: the TV says the last game had
    3 seats and is not restored, the game is marked abandoned (the reason in its
    summary), and the next start neither tries it nor says it again."""
    from device.console import Console, make_seats
    from device.modes.present import TablePresenter
    from device.reactor.events import FakeQueue
    from drivers.clock import FakeClock
    from drivers.hand_display import open_hand_display

    clock = display.clock
    assert isinstance(clock, FakeClock)
    first = Console(
        clock=clock, queue=FakeQueue(clock), presenter=TablePresenter(display, motion=False),
        seats=make_seats([open_hand_display(s, "dummy") for s in range(3)]),
        choices=LobbyChoices(game="right-on-time", kinds=("computer",) * 3),
        game_seed=4, state_dir=tmp_path, on_game_over=lambda record: None, skip_lobby=True,
        resume=True)
    first.start()
    while first.record is not None and len(first.record.actions) < 6:
        first.step()
    first.close()
    second = console_on(display, tmp_path, [])
    said = "Last game had 3 seats: not restored"
    assert said in second.model(display.clock.now_ns()).banner
    second.close()
    conn = sqlite3.connect(tmp_path / DB_NAME)
    outcome, summary = conn.execute("SELECT outcome, summary FROM games WHERE id = 1").fetchone()
    conn.close()
    assert outcome == "abandoned" and "not_resumed" in json.loads(summary)
    third = console_on(display, tmp_path, [])
    assert said not in third.model(display.clock.now_ns()).banner
    third.close()


def test_a_replay_cut_short_says_how_many_actions_could_not_be_read(
    display: TableDisplay, tmp_path: Path
) -> None:
    """The fourth stored action is one the engine refuses: the game is restored after 3
    actions and the TV says how many of the stored actions after them could not be
    read."""
    actions = cut_game(display, tmp_path, 10)
    conn = sqlite3.connect(tmp_path / DB_NAME)
    seqs = [seq for (seq,) in conn.execute(
        "SELECT seq FROM records WHERE game_id = 1 AND action IS NOT NULL ORDER BY seq")]
    conn.execute("UPDATE records SET action = 'not an action' WHERE game_id = 1 AND seq = ?",
                 (seqs[3],))
    conn.commit()
    conn.close()
    second = console_on(display, tmp_path, [])
    banner = second.model(display.clock.now_ns()).banner
    second.close()
    assert f"Restored after 3 actions; {len(actions) - 3} could not be read" in banner


def test_a_notice_of_opening_the_database_is_logged_once(
    display: TableDisplay, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An empty database file at the start: its notice is on the TV and in the log once."""
    (tmp_path / DB_NAME).write_bytes(b"")
    with caplog.at_level("INFO", logger="partytable"):
        console = console_on(display, tmp_path, [])
    said = "Game database was empty (0 bytes): a new one is started"
    assert said in console.model(display.clock.now_ns()).banner
    console.close()
    assert caplog.text.count(said) == 1


def test_a_damaged_row_that_cannot_be_marked_is_not_logged_as_marked(
    display: TableDisplay, tmp_path: Path, caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch
) -> None:
    """The unfinished game's row does not read and the card refuses the mark: the TV
    names the game as damaged, and the log says it stays unfinished, never that it was
    marked."""
    cut_game(display, tmp_path)
    conn = sqlite3.connect(tmp_path / DB_NAME)
    conn.execute("UPDATE games SET options = '{bad'")
    conn.commit()
    conn.close()

    def refuse(*args: object, **kwargs: object) -> None:
        raise journal.StateError(f"{tmp_path / DB_NAME}: attempt to write a readonly database")

    monkeypatch.setattr(GameDB, "end_game", refuse)
    with caplog.at_level("INFO", logger="partytable"):
        console = console_on(display, tmp_path, [])
    assert DAMAGED in console.model(display.clock.now_ns()).banner
    console.close()
    assert "marked abandoned" not in caplog.text
    assert "stays unfinished" in caplog.text


def test_a_game_cut_between_its_last_action_and_its_end_mark_shows_its_result(
    display: TableDisplay, tmp_path: Path
) -> None:
    """A game whose last action is journaled but whose end mark is not (a kill between
    the two): at the next start its result is on the TV (the game-over screen with its
    winner, the game's record reported once), it is marked won, and no new game is dealt
    in its place."""
    done: list[GameRecord] = []
    first = console_on(display, tmp_path, done)
    while not done:
        first.step()
    first.close()
    conn = sqlite3.connect(tmp_path / DB_NAME)
    conn.execute("UPDATE games SET ended_at = NULL, outcome = NULL, winner = NULL, "
                 "summary = NULL")
    conn.commit()
    conn.close()
    again: list[GameRecord] = []
    second = console_on(display, tmp_path, again)
    assert second.phase is Phase.GAMEOVER
    assert second.record is not None and second.record.actions == done[0].actions
    assert [r.winner for r in again] == [done[0].winner]
    assert second.flow.snapshot().headline == f"{seat_name(done[0].winner)} WINS!"
    second.close()
    with GameDB.open(tmp_path) as db:
        (game,) = db.games()
        assert db.unfinished() is None
    assert (game.outcome, game.winner, game.actions) == ("won", done[0].winner,
                                                          done[0].actions)


@pytest.mark.parametrize("answer", ["select", None], ids=["taken-up", "went-on-by-itself"])
def test_tonights_board_goes_on_after_a_power_cut_when_the_party_takes_the_game_up(
    display: TableDisplay, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    answer: str | None
) -> None:
    """A game won and the next one cut by a power cut; the box boots again (a new boot id
    in the kernel's file): a party that takes the restored game up again (SELECT on a
    handheld) keeps tonight's board, the won game on it; a restored game left to go on by
    itself starts a new night, the board empty."""
    source = tmp_path / "boot_id"
    monkeypatch.setattr(journal, "BOOT_ID_PATH", source)
    state = tmp_path / "state"
    source.write_text("a1b2c3d4-0000-4000-8000-000000000001\n")
    done: list[GameRecord] = []
    first = console_on(display, state, done)
    while not done:
        first.step()
    while first.record is None or first.record is done[0] or len(first.record.actions) < 4:
        first.step()  # the next game deals and is cut after a few actions
    first.close()
    source.write_text("a1b2c3d4-0000-4000-8000-000000000002\n")
    second = console_on(display, state, [])
    assert second.flow.snapshot().held
    if answer is not None:
        second.flow.on_key(0, answer, display.clock.now_ns())
    else:
        while second.flow.snapshot().held:
            second.step()
    rows = dict(second.flow.lobby_phase.board.rows())
    second.close()
    won = {"Games won": f"{seat_name(done[0].winner)}: 1"} if answer else {}
    assert {k: v for k, v in rows.items() if k == "Games won"} == won


def test_the_game_databases_tv_lines_fit_the_banner_whole() -> None:
    """Each line the game database puts on the TV (a game not restored, games not saved
    for a refused write or a database in use) fits the banner whole at its smallest text
    size, so the reason is never cut off with "..."."""
    from device.render.layout import BANNER
    from device.render.text import Typesetter
    from device.store.session import IN_USE, NOT_RESTORED, REFUSES

    width = BANNER.width - 140  # BannerSpec.paint: the text beside the warning mark
    lines = [DAMAGED, f"{NOT_RESTORED}: database cannot be read",
             "Last game had 6 seats: not restored",
             "Restored after 999 actions; 999 could not be read",
             f"Games are not saved: {REFUSES}", f"Games are not saved: {IN_USE}"]
    for line in lines:
        assert Typesetter().truncate(line, 44, width) == line
