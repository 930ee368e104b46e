"""The game session: one game being played — its plugin, position, seat kinds, computer
players, device RNG, journal and record (docs/architecture.md "Persistence and power loss").

Exact resume.  Every device draw (a computer player's choice, its slap reaction time, a
tie-break) comes from an RNG seeded from the game's device seed, the number of actions
applied so far and what the draw is for (:meth:`GameSession.rng`).  A game cut after any
action and resumed from its journal (the actions replayed through the checked engine) is
therefore in the same state, RNGs included, and plays on action for action as the
uninterrupted game would have.

Games are kept in the game database (``device.store.game_db``, one transaction per record).
Its writes never stop a game: a failed write (a full disk, a read-only state directory) is
logged once, named on the TV (:attr:`GameStore.problem`) and kept; the next write writes it
again before the new record, so nothing is lost once the disk has room again.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Generic, TypeAlias

from device.games import PLUGINS, GamePlugin
from device.games.base import A, P, V
from device.hands.seats import SeatKind
from device.slaps.arbiter import SlapDecision
from device.slaps.race import RaceTiming, computer_reaction_ns
from device.store.db_schema import StateError
from device.store.game_db import GameDB
from device.store.game_rows import SlapRow
from device.store.records import (
    START_RECORD,
    ActionRecord,
    DecisionRecord,
    JournalError,
    JournalHeader,
    Record,
)
from engine.core import (
    Bot,
    EngineError,
    Event,
    OptionValue,
    Outcome,
    Seat,
    observes,
    tell_observers,
)

log = logging.getLogger("partytable")

MS = 1_000_000
WAKEUP_RACE = "wakeup"
"""The journal's decision kind of the wake-up race's slap (RI-2.3)."""
WINDOW_RACE = "window"
"""The journal's decision kind of a slap window's decision (RI-6.3)."""


STRENGTHS = ("easy", "normal", "hard")
"""A computer player's strength, chosen per seat in the lobby."""
DEFAULT_STRENGTH = "normal"
BOT_KINDS = {"easy": "random", "normal": "heuristic", "hard": "hard"}
"""The engine's bot kind (``Game.bots``) each strength plays with."""
SLAP_PACE = {"easy": 1.3, "normal": 1.0, "hard": 0.8}
"""Each strength's slap reaction time as a share of ``RaceTiming``'s mean and floor: an easy
player slaps at about 650 ms, a hard one at about 400 ms (never faster than its floor)."""


def losers(decision: SlapDecision) -> tuple[tuple[Seat, float], ...]:
    """The ``(seat, reaction ms)`` of every press ``decision`` counted but its winner's,
    earliest first (a seat at the table only)."""
    return tuple((c.seat, c.reaction_ns / MS) for c in decision.contenders
                 if c.seat != decision.seat and 0 <= c.seat < 6)


def strengths_for(kinds: Sequence[str], strengths: Sequence[str]) -> tuple[str, ...]:
    """One strength per seat: ``strengths`` where it is a known word for a computer seat,
    else :data:`DEFAULT_STRENGTH` (a person's seat, a short or missing list, an unknown
    word)."""
    return tuple(
        strengths[i] if i < len(strengths) and strengths[i] in STRENGTHS
        and kind == SeatKind.COMPUTER else DEFAULT_STRENGTH
        for i, kind in enumerate(kinds))


def device_seed_of(game_seed: int) -> int:
    """The device RNG's seed for a game (ties, computer players; docs/architecture.md "Slap
    arbitration" 7), kept apart from the position's shuffle seed."""
    return (game_seed ^ 0x5EED5EED) & 0xFFFFFFFF


@dataclass
class SlapRecord:
    """One decided slap: ``seat``, reaction ``ms`` (t - t0), whether a seeded tie-break
    decided it, which race (:data:`WAKEUP_RACE` or :data:`WINDOW_RACE`), and ``others``:
    the ``(seat, ms)`` of every other press the arbiter counted in it (the losers, RI-6.3;
    the game-over chart shows them all)."""

    seat: Seat
    ms: float
    tie: bool
    race: str
    others: tuple[tuple[Seat, float], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """JSON object for ``summary.json``."""
        return {"seat": self.seat, "reaction_ms": round(self.ms, 1), "tie": self.tie,
                "race": self.race}


@dataclass
class GameRecord:
    """What a game leaves: plugin name, seed, seat kinds, options, first seat, applied
    actions, log lines, slaps, refused inputs, winner and the plugin's summary fields."""

    game: str
    seed: int
    kinds: tuple[str, ...]
    options: dict[str, Any]
    first: int = 0
    actions: list[str] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    slaps: list[SlapRecord] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    winner: Seat | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The ``summary.json`` object."""
        return {
            "game": self.game,
            "seed": self.seed,
            "seats": [{"seat": i, "kind": k} for i, k in enumerate(self.kinds)],
            "options": self.options,
            "first": self.first,
            "winner": self.winner,
            "actions": len(self.actions),
            "log": list(self.log),
            "slaps": [s.to_json() for s in self.slaps],
            "refused": self.refused,
            **self.extra,
        }


class GameStore:
    """The console's game database in ``state_dir`` (``device.store.game_db.GameDB``), opened on
    first use and shared by its games; ``state_dir`` ``None``: games are not kept.

    Never raises: a state directory that cannot hold the database (read-only, full) is
    :attr:`problem`, one line for the TV, and opening is tried again at the next write, so
    the games are kept again once the disk has room.  ``boot``: this boot's id
    (``device.store.game_db.boot_id``, read at the first open when ``None``).  The constructor
    does no I/O."""

    def __init__(self, state_dir: Path | None, *, boot: str | None = None) -> None:
        self.state_dir = state_dir
        self.boot = boot
        self.problem = ""
        """``""``, or one line for the TV while games cannot be saved."""
        self.notices: list[str] = []
        """One-line notices from opening the database (set aside, carried over)."""
        self.restore_problem = ""
        """Why the last unfinished game could not be restored (``GameSession.resume``:
        :data:`DAMAGED`, ...), for the TV, or ``""``."""
        self._db: GameDB | None = None

    def db(self) -> GameDB | None:
        """The open database, or ``None`` (no state directory, or it can be neither
        written nor read: :attr:`problem` says why).  On a card that cannot be written it
        is open for reading only (``GameDB.write_problem``, named in :attr:`problem`), so
        the unfinished game is still restored."""
        if self.state_dir is None:
            return None
        if self._db is None:
            try:
                self._db = GameDB.open(self.state_dir, boot=self.boot)
            except StateError as err:
                self.failed(err)
                return None
            self.notices = list(self._db.notices)
            if self._db.write_problem:  # readable (a game is restored), not writable now
                self.failed(StateError(self._db.write_problem, tv=self._db.write_tv))
        return self._db

    def writable(self) -> GameDB | None:
        """The database to write to now, or ``None`` (:attr:`problem` says why).  While it
        is open for reading only, each call tries once to open it for writing (the card
        may have room again): it replaces the reading one when that works."""
        db = self.db()
        if db is None or not db.write_problem:
            return db
        assert self.state_dir is not None
        try:
            new = GameDB.open(self.state_dir, read_fallback=False, boot=self.boot)
        except StateError as err:
            self.failed(err)
            return None
        db.close()
        self._db = new
        return new

    def carry_night(self, game_id: int) -> None:
        """Game ``game_id``, restored from an earlier boot, is taken up again: tonight's
        leaderboard goes on with that game's night (``GameDB.carry_night``).  Never
        raises: a failed write is :meth:`failed`."""
        db = self.writable()
        if db is None:
            return
        try:
            db.carry_night(game_id)
        except StateError as err:
            self.write_failed(err)

    def write_failed(self, err: StateError) -> None:
        """A write to :meth:`writable`'s database failed: :meth:`failed`, and the database
        is opened again at the next write (its connection may be what is broken)."""
        self.failed(err)
        self.close()

    def failed(self, err: StateError) -> None:
        """A write failed: log it once per failing stretch and set :attr:`problem`."""
        if not self.problem:
            log.error("game database: %s%s: the game goes on without being saved; retrying "
                      "with the next action", err, f" ({err.tv})" if err.tv else "")
        self.problem = f"Games are not saved: {err.tv or tv_reason(err, self.state_dir)}"

    def worked(self) -> None:
        """A write worked: clear :attr:`problem` (one log line if it was set)."""
        if self.problem:
            log.warning("game database writes work again (%s)", self.state_dir)
        self.problem = ""

    def close(self) -> None:
        """Close the database (idempotent); a later :meth:`db` opens it again."""
        if self._db is not None:
            self._db.close()
            self._db = None


IN_USE = "database in use elsewhere"
"""The TV's reason while another connection holds the database (SQLite busy or locked).
Each TV line here fits the banner whole at its smallest size (tests/device/
test_restore_offer.py)."""

REFUSES = "writes refused (see the log)"
"""The TV's reason for a write the database refuses for a cause a person cannot read off
the TV (a constraint, a trigger, a damaged page): the log line has SQLite's words."""


def tv_reason(err: StateError, state_dir: Path | None) -> str:
    """``err`` in words for the TV, the reason before the path so that a cut-off line
    keeps it: ``"/var/lib/partytable is read-only"``, ``"... is full"``,
    :data:`IN_USE`, else :data:`REFUSES` (SQLite's own words, a constraint's column names
    or a trigger's message, say nothing a person at the TV can act on; the caller logs
    them)."""
    text = str(err)
    where = str(state_dir) if state_dir is not None else "the state directory"
    low = text.lower()
    if "readonly" in low or "read-only" in low or "permission denied" in low:
        return f"{where} is read-only"
    if "full" in low or "no space" in low:
        return f"{where} is full"
    if err.errorname in ("SQLITE_BUSY", "SQLITE_LOCKED") or "locked" in low:
        return IN_USE
    return REFUSES


NOT_RESTORED = "Last game not restored"
"""The start of the TV's line for an unfinished game that cannot be played on."""

DAMAGED = f"{NOT_RESTORED}: its record is damaged"
"""The TV's line for an unfinished game whose row or records in the database do not read
(options that are not JSON, seats that are not a number, ...)."""


def not_resumed(store: GameStore, db: GameDB, game_id: int, tv: str, why: str) -> None:
    """Game ``game_id`` cannot be played on: ``tv`` goes to
    :attr:`GameStore.restore_problem`, and the game is marked abandoned with ``why`` in
    its summary (``not_resumed``), so no later start tries it again (on a card that
    cannot be written it stays unfinished and is named again at the next start).  One log
    line says which of the two happened."""
    store.restore_problem = tv
    try:
        db.end_game(game_id, winner=None, abandoned=True, summary={"not_resumed": why[:200]})
    except StateError as err:
        store.failed(err)
        log.error("game %d stays unfinished (%s): it cannot be marked (%s); opening the "
                  "lobby", game_id, why, err)
        return
    log.error("game %d marked abandoned (%s); opening the lobby", game_id, why)


class JournalWriter:
    """Writes one game to the :class:`GameStore`: the game row on the first write, then one
    transaction per record; a failed write is kept and written again before the next one
    (module docstring).  ``store`` ``None``: nothing is written."""

    def __init__(self, store: GameStore | None, header: JournalHeader) -> None:
        self.store = store
        self.header = header
        self.game_id: int | None = None
        self._pending: list[tuple[Record, SlapRow | None]] = []
        self._end: dict[str, Any] | None = None

    def adopt(self, game_id: int) -> None:
        """Continue game ``game_id``, already in the database (a resumed game)."""
        self.game_id = game_id

    def append(self, record: Record, slap: SlapRow | None = None) -> bool:
        """Queue ``record`` (with its ``slap`` row) and write everything queued; returns
        True when all of it is committed.  Never raises."""
        if self.store is None:
            return False
        self._pending.append((record, slap))
        return self._flush()

    def end(self, winner: Seat | None, *, abandoned: bool,
            summary: Mapping[str, Any]) -> bool:
        """Mark the game finished after writing what is queued; True when committed."""
        if self.store is None:
            return False
        self._end = {"winner": winner, "abandoned": abandoned, "summary": dict(summary)}
        return self._flush()

    def _flush(self) -> bool:
        assert self.store is not None
        db = self.store.writable()
        if db is None:
            return False
        try:
            if self.game_id is None:
                self.game_id = db.new_game(self.header)
            while self._pending:
                db.append(self.game_id, *self._pending[0])
                self._pending.pop(0)
            if self._end is not None:
                db.end_game(self.game_id, **self._end)
                self._end = None
        except StateError as err:
            self.store.write_failed(err)  # opened again at the next write
            return False
        self.store.worked()
        return True


class GameSession(Generic[P, A, V]):
    """One game of ``plugin`` (a ``GamePlugin[P, A, V]``): seat ``kinds``
    (``"human"``/``"computer"`` per seat), each computer seat's ``strengths``
    (:data:`STRENGTHS`; missing: ``"normal"``), the position ``seed``, rule ``options``,
    the ``first`` seat, ``store`` (the game database; ``None``: the game is not kept).  The
    constructor does no I/O and deals nothing: call :meth:`start` (a new game) or build one
    with :meth:`resume`.  Raises ``EngineError`` (from :meth:`start`) for options the
    engine refuses.  Actions go in and out as the engine's objects (:meth:`apply`,
    :meth:`computer_move`); the journal and the record keep their text (``str(action)``,
    the engine's notation), which a resume reads back with ``parse_action``."""

    def __init__(
        self,
        plugin: GamePlugin[P, A, V],
        kinds: Sequence[str],
        seed: int,
        options: Mapping[str, OptionValue],
        *,
        first: Seat = 0,
        store: GameStore | None = None,
        strengths: Sequence[str] = (),
    ) -> None:
        self.plugin = plugin
        self.engine = plugin.engine
        self.kinds = tuple(kinds)
        self.strengths = strengths_for(self.kinds, strengths)
        self.seed = seed
        self.device_seed = device_seed_of(seed)
        self.record = GameRecord(plugin.name, seed, self.kinds, dict(options), first)
        self.pos: P | None = None
        """The position being played; ``None`` until the game is dealt."""
        self._bot_rng = random.Random(0)
        bots = plugin.engine.bots
        self.bots: dict[Seat, Bot[V, A]] = {
            s: bots.get(BOT_KINDS[self.strengths[s]], bots["heuristic"])(s, self._bot_rng)
            for s, k in enumerate(self.kinds) if k == SeatKind.COMPUTER}
        header = JournalHeader(game=plugin.name, seats=len(self.kinds), seed=seed,
                               options=dict(options), first=first,
                               device_seed=self.device_seed, seat_kinds=self.kinds,
                               strengths=self.strengths)
        self.journal = JournalWriter(store, header)
        self.unread = 0
        """After :meth:`resume`: how many stored actions the replay could not use (from
        the first one the engine refused on), ``0`` when it used them all."""

    # ------------------------------------------------------------------ life
    def start(self, first: Seat) -> None:
        """Deal the game with ``first`` to move and write the journal's header."""
        self.record.first = first
        self.journal.header = JournalHeader(
            game=self.plugin.name, seats=len(self.kinds), seed=self.seed,
            options=self.record.options, first=first, device_seed=self.device_seed,
            seat_kinds=self.kinds, strengths=self.strengths)
        self.pos = self.engine.new(len(self.kinds), self.seed, self.record.options, first)
        self.journal.append(DecisionRecord(START_RECORD, {"first": first}))

    @classmethod
    def resume(cls, store: GameStore) -> AnySession | None:
        """The unfinished game in ``store``'s database, replayed through the checked engine
        to its exact position, or ``None`` when there is none or it cannot be used.  A
        game that cannot be used (its row or a record does not read: :data:`DAMAGED`; an
        unknown game or seat kind) is one log line and :attr:`GameStore.restore_problem`
        for the TV, and it is marked abandoned (the reason in its summary), so it is not
        tried at every start.  Records after the last one the replay could use are
        dropped from the database.  A game whose replayed position is over (a cut between
        its last action and its end mark) is returned as it is, over: the caller shows
        its result and ends it (``GameSession.close``)."""
        store.restore_problem = ""
        db = store.db()
        if db is None:
            return None
        try:
            game_id = db.unfinished_id()
        except StateError as err:
            log.error("the last game cannot be looked up (%s); opening the lobby", err)
            return None
        if game_id is None:
            return None
        try:
            stored = db.game(game_id)
        except StateError as err:  # SQLite cannot read it now: not marked, tried again
            log.error("the last game (game %d) cannot be read (%s); opening the lobby",
                      game_id, err)
            store.restore_problem = f"{NOT_RESTORED}: database cannot be read"
            return None
        except (JournalError, KeyError) as err:
            not_resumed(store, db, game_id, DAMAGED, f"damaged: {err}")
            return None
        h = stored.header
        try:
            plugin = PLUGINS.get(h.game)
            if plugin is None:
                raise ValueError(f"unknown game {h.game!r}")
            if any(k not in tuple(SeatKind) for k in h.seat_kinds):
                raise ValueError(f"unknown seat kind in {list(h.seat_kinds)}")
            # the deal's record names the first seat; a row written before it (the wake-up
            # race's record comes first) may say seat 0 in a database from before the row
            # took it from the record
            first = next((int(r.data["first"]) for r in stored.records
                          if not isinstance(r, ActionRecord) and r.kind == START_RECORD),
                         h.first)
            session = cls(plugin, h.seat_kinds, h.seed, h.options, first=first, store=store,
                          strengths=h.strengths)
            session.pos = plugin.engine.new(h.seats, h.seed, dict(h.options), first)
            keep = session._replay(stored.records)
            if keep is not None:
                session.unread = sum(isinstance(r, ActionRecord) for r in stored.records[keep:])
        except (ValueError, KeyError, TypeError) as err:  # EngineError is a ValueError
            not_resumed(store, db, stored.id, f"{NOT_RESTORED}: {err}"[:120], str(err))
            return None
        try:
            if keep is not None:
                db.cut_back(stored.id, keep)
        except StateError as err:
            store.failed(err)
        session.journal.adopt(stored.id)
        log.warning("resumed game %d (%s) after %d actions%s", stored.id, h.game,
                    len(session.record.actions),
                    "; it was over" if session.outcome is not None else "")
        return session

    def _replay(self, records: Sequence[Record]) -> int | None:
        """Apply the journal's actions through the checked engine and restore the slap
        records; returns ``None`` when every record was used, else how many to keep: the
        replay stops before an action the engine refuses (a journal from another engine
        version, a line damaged but for its checksum), one log line, the game goes on from
        there.  A slap record that does not read is skipped with one line."""
        for i, r in enumerate(records):
            if isinstance(r, ActionRecord):
                try:
                    action = self.engine.parse_action(r.action)
                    before = self.dealt
                    self.pos, _ = self.engine.apply(before, action)
                    self._observed(before, action)
                except EngineError as err:
                    log.warning("journal record %d: %.60r refused (%s): the game goes on "
                                "from the action before it", i + 1, r.action, err)
                    return i
                self.record.actions.append(r.action)
                self.record.log.append(f"(resumed): {r.action}")
            elif r.kind in (WINDOW_RACE, WAKEUP_RACE):
                try:
                    decision = SlapDecision.from_json(r.data)
                    if not 0 <= decision.seat < len(self.kinds):
                        raise ValueError(f"seat {decision.seat} is not at the table")
                except ValueError as err:
                    log.warning("journal record %d: slap record skipped (%s)", i + 1, err)
                    continue
                self.record.slaps.append(SlapRecord(
                    decision.seat, decision.reaction_ns / MS, decision.tie, r.kind,
                    losers(decision)))
        return None

    def close(self, winner: Seat | None, *, abandoned: bool = False) -> None:
        """The game is over (or abandoned): journal it so it is never resumed, close."""
        self.record.winner = winner
        if self.pos is not None:
            self.record.extra.update(self.plugin.summary(self.pos))
        self.journal.end(winner, abandoned=abandoned, summary=self.record.extra)

    # ------------------------------------------------------------------ play
    @property
    def step(self) -> int:
        """How many actions have been applied."""
        return len(self.record.actions)

    def rng(self, purpose: str) -> random.Random:
        """A fresh device RNG for one draw at this point of the game: seeded from the
        device seed, :attr:`step` and ``purpose`` (e.g. ``"move"``, ``"slap 2"``,
        ``"tie"``), so a resumed game draws exactly what the cut one would have."""
        return random.Random(self.rng_seed(purpose))

    def rng_seed(self, purpose: str) -> str:
        """The seed :meth:`rng` uses (a string: Python hashes it with SHA-512)."""
        return f"{self.device_seed}:{self.step}:{purpose}"

    @property
    def dealt(self) -> P:
        """The position being played; raises ``RuntimeError`` before the game is dealt."""
        if self.pos is None:
            raise RuntimeError("the game is not dealt")  # a caller's bug
        return self.pos

    def apply(self, seat: Seat | None, action: A, note: str = "") -> tuple[Event, ...]:
        """Apply ``action`` for ``seat`` (``None``: the device) through the engine's
        checked ``apply``, journal its text (``str(action)``) and return its events.
        Raises ``EngineError`` when the engine refuses (recorded in ``record.refused``)."""
        text = str(action)
        before = self.dealt
        try:
            pos, events = self.engine.apply(before, action)
        except EngineError as err:
            self.record.refused.append(f"{text}: {err}")
            raise
        self.pos = pos
        self._observed(before, action)
        self.record.actions.append(text)
        who = "device" if seat is None else f"seat {seat}"
        self.record.log.append(f"{who}: {text}" + (f" ({note})" if note else ""))
        self.journal.append(ActionRecord(text))
        return events

    def _observed(self, before: P, action: A) -> None:
        """Send the action just applied (``before`` -> :attr:`pos`) to every computer
        player that learns from the table's public history (``engine.core.observes``),
        live and in a journal's replay alike, so a resumed player knows what it knew."""
        watchers = [bot for bot in self.bots.values() if observes(bot)]
        tell_observers(watchers, self.engine.view, before, action, self.pos)

    def note(self, kind: str, data: Mapping[str, Any]) -> None:
        """Journal a device decision (a stuck button, a late arrival)."""
        self.journal.append(DecisionRecord(kind, data))

    def note_slap(self, race: str, decision: SlapDecision) -> None:
        """Record and journal a decided slap of ``race`` (:data:`WAKEUP_RACE` or
        :data:`WINDOW_RACE`), with its reaction time and its margin to the next slapper
        (the ``slaps`` table)."""
        ms = decision.reaction_ns / MS
        self.record.slaps.append(SlapRecord(decision.seat, ms, decision.tie, race,
                                            losers(decision)))
        others = [c.reaction_ns for c in decision.contenders if c.seat != decision.seat]
        margin = (min(others) - decision.reaction_ns) / MS if others else None
        self.journal.append(DecisionRecord(race, decision.to_json()),
                            SlapRow(race, decision.seat, ms, margin, decision.tie))

    def computer_move(self, seat: Seat) -> A | None:
        """The action computer ``seat`` makes now (from its own view only), or ``None``
        when it has nothing to do.  Its choice is drawn from :meth:`rng` ``("move")``; a
        choice that is not legal becomes the first legal action."""
        bot = self.bots.get(seat)
        pos = self.dealt
        legal = self.engine.legal(pos)
        if bot is None or not legal:
            return None
        self._bot_rng.seed(self.rng_seed("move"))
        action = bot.choose(self.engine.view(pos, seat), legal)
        return action if action in legal else legal[0]

    def computer_reactions(self, timing: RaceTiming) -> dict[Seat, int]:
        """Every computer seat's slap reaction time for the window open now, in ns, paced
        by its strength (:data:`SLAP_PACE`)."""
        out = {}
        for s in self.bots:
            pace = SLAP_PACE[self.strengths[s]]
            paced = replace(timing, mean_ms=timing.mean_ms * pace, sd_ms=timing.sd_ms * pace,
                            floor_ms=timing.floor_ms * pace)
            out[s] = computer_reaction_ns(self.rng(f"slap {s}"), paced)
        return out

    @property
    def outcome(self) -> Outcome | None:
        """The engine's ``Outcome`` of the position, or ``None`` while it goes on; raises
        ``RuntimeError`` before the game is dealt."""
        return self.engine.outcome(self.dealt)


AnySession: TypeAlias = GameSession[Any, Any, Any]
"""A session of any game (its plugin a ``device.games.AnyPlugin``): what the game-free flow
holds."""
