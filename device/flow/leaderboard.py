"""Tonight's leaderboard in the lobby, where fast hands are celebrated: the
fastest slaps and the games won per seat, read from the device's game database
(``device.store.game_db.GameDB.leaderboard``), and clearing it with a question first.

One stray SELECT on "Clear tonight's board" must not wipe a party's evening:
:meth:`TonightsBoard.ask` puts the question (:data:`CLEAR_QUESTION`) and only a second
SELECT within :data:`CLEAR_CONFIRM_NS` clears (:meth:`TonightsBoard.clear`); anything
else, or the time running out, keeps the board (:meth:`TonightsBoard.keep`).  Clearing
keeps every game in the database (``GameDB.clear_leaderboard`` only marks where tonight
starts again).  The game flow holds one :class:`TonightsBoard` and says the question on
the TV.

Bad input: a board that cannot be read (a damaged database, rows of the wrong shape) is
one log line and no rows; a failed clear is the game store's problem line on the TV.

Times are ``int`` CLOCK_MONOTONIC ns.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable

from device.common.words import seat_name
from device.reactor.timers import Timer, Timers
from device.store.db_schema import StateError
from device.store.session import GameStore

log = logging.getLogger("partytable")

S = 1_000_000_000
CLEAR_QUESTION = "Clear tonight's board? press again"
"""What the TV asks after the first SELECT on "Clear tonight's board"."""
CLEAR_CONFIRM_NS = 3 * S
"""How long the question waits for the second SELECT; then the board stays."""
CLEARED = "Tonight's board cleared"
"""What the TV says once it is cleared."""


class TonightsBoard:
    """Tonight's leaderboard and its clear question (see the module docstring).

    ``store``: the console's game database; ``timers``: the loop's timers (the question's
    end); ``question_over()``: called when a question ends without clearing (another key,
    a slap, the time up, the lobby left), so the caller takes it off the TV."""

    def __init__(self, store: GameStore, timers: Timers,
                 question_over: Callable[[], None]) -> None:
        self.store = store
        self._timers = timers
        self._question_over = question_over
        self._question: Timer | None = None

    def rows(self) -> tuple[tuple[str, str], ...]:
        """The lobby's rows: ``("Fastest slaps", "Seat 2 212 ms  Seat 1 240 ms ...")``
        (the three fastest), ``("Games won", "Seat 3: 2  Seat 1: 1")`` (most first, at most
        four); ``()`` without a database, with no games tonight, or when it cannot be read
        (one log line)."""
        db = self.store.db()
        if db is None:
            return ()
        try:
            board = db.leaderboard()
        except (StateError, sqlite3.Error, ValueError) as err:
            log.warning("tonight's leaderboard cannot be read (%s)", err)
            return ()
        rows: list[tuple[str, str]] = []
        fastest = sorted(board.fastest.items(), key=lambda kv: kv[1])[:3]
        if fastest:
            rows.append(("Fastest slaps", "  ".join(
                f"{seat_name(seat)} {ms:.0f} ms" for seat, ms in fastest)))
        wins = sorted(board.wins.items(), key=lambda kv: (-kv[1], kv[0]))[:4]
        if wins:
            rows.append(("Games won", "  ".join(f"{seat_name(seat)}: {n}" for seat, n in wins)))
        return tuple(rows)

    @property
    def asking(self) -> bool:
        """The clear question is open: the next SELECT on the clear row clears."""
        return self._question is not None

    def ask(self, now_ns: int) -> None:
        """The first SELECT on the clear row at ``now_ns``: the question is open until
        ``now_ns + CLEAR_CONFIRM_NS`` (then :meth:`keep`)."""
        self.keep()
        self._question = self._timers.call_at(now_ns + CLEAR_CONFIRM_NS,
                                              lambda now: self.keep(), "clear board?")

    def keep(self) -> None:
        """End an open question without clearing (calls ``question_over``); nothing
        happens when none is open."""
        if self._question is not None:
            self._question.cancel()
            self._question = None
            self._question_over()

    def clear(self) -> tuple[tuple[str, str], ...]:
        """Clear tonight's board in the game database (the games stay) and return the
        rows now (none, unless the write failed: the store names that on the TV).  Ends
        an open question without calling ``question_over``."""
        if self._question is not None:
            self._question.cancel()
            self._question = None
        db = self.store.writable()
        if db is not None:
            try:
                db.clear_leaderboard()
            except StateError as err:
                self.store.failed(err)
        log.info("tonight's leaderboard cleared from the lobby")
        return self.rows()
