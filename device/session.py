"""The game session: one game being played — its plugin, position, seat kinds, computer
players, device RNG, journal and record (architecture "Persistence and power loss").

Exact resume.  Every device draw (a computer player's choice, its slap reaction time, a
tie-break) comes from an RNG seeded from the game's device seed, the number of actions
applied so far and what the draw is for (:meth:`GameSession.rng`).  A game cut after any
action and resumed from its journal (the actions replayed through the checked engine) is
therefore in the same state, RNGs included, and plays on action for action as the
uninterrupted game would have.

Journal writes never stop a game: a failed append (a full disk) is logged once and kept;
the next append writes it again before the new record, so the journal loses nothing once
the disk has room again.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from device.arbiter import SlapDecision
from device.games import PLUGINS, GamePlugin
from device.journal import ActionRecord, DecisionRecord, Journal, JournalHeader, Record
from device.seats import SeatKind
from device.slap_race import RaceTiming, computer_reaction_ns
from engine.core import Bot, EngineError, Event, OptionValue, Seat

log = logging.getLogger("partytable")

MS = 1_000_000
WAKEUP_RACE = "wakeup"
"""The journal's decision kind of the wake-up race's slap (RI-2.3)."""
WINDOW_RACE = "window"
"""The journal's decision kind of a slap window's decision (RI-6.3)."""
JOURNAL_NAME = "journal.log"
"""The journal's file name inside the state directory."""


def device_seed_of(game_seed: int) -> int:
    """The device RNG's seed for a game (ties, computer players; architecture 7), kept
    apart from the position's shuffle seed."""
    return (game_seed ^ 0x5EED5EED) & 0xFFFFFFFF


@dataclass
class SlapRecord:
    """One decided slap: ``seat``, reaction ``ms`` (t - t0), whether a seeded tie-break
    decided it, and which race (:data:`WAKEUP_RACE` or :data:`WINDOW_RACE`)."""

    seat: Seat
    ms: float
    tie: bool
    race: str

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


class JournalWriter:
    """Appends records to the journal at ``path``, creating it with ``header`` on first
    use; a failed write is kept and written again before the next record (module
    docstring).  ``path`` ``None``: nothing is written."""

    def __init__(self, path: Path | None, header: JournalHeader) -> None:
        self.path = path
        self.header = header
        self._journal: Journal | None = None
        self._pending: list[Record] = []
        self._failing = False

    def adopt(self, journal: Journal) -> None:
        """Continue an existing, already open journal (a resumed game)."""
        self._journal = journal

    def append(self, record: Record) -> bool:
        """Queue ``record`` and write everything queued; returns True when all of it is on
        disk.  Never raises: an ``OSError`` is logged once per failing stretch."""
        if self.path is None:
            return False
        self._pending.append(record)
        try:
            if self._journal is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._journal = Journal.create(self.path, self.header)
            while self._pending:
                self._journal.append(self._pending[0])
                self._pending.pop(0)
        except OSError as err:
            if not self._failing:
                log.error("journal write failed (%s): the game goes on; retrying with the "
                          "next action", err)
            self._failing = True
            return False
        if self._failing:
            log.warning("journal writes work again (%s)", self.path)
        self._failing = False
        return True

    def close(self) -> None:
        """Close the journal file (idempotent)."""
        if self._journal is not None:
            self._journal.close()
            self._journal = None


class GameSession:
    """One game: ``plugin``, seat ``kinds`` (``"human"``/``"computer"`` per seat), the
    position ``seed``, rule ``options``, the ``first`` seat, ``journal_path`` (``None``: no
    journal).  The constructor does no I/O and deals nothing: call :meth:`start` (a new
    game) or build one with :meth:`resume`.  Raises ``EngineError`` (from :meth:`start`)
    for options the engine refuses."""

    def __init__(
        self,
        plugin: GamePlugin,
        kinds: Sequence[str],
        seed: int,
        options: Mapping[str, OptionValue],
        *,
        first: Seat = 0,
        journal_path: Path | None = None,
    ) -> None:
        self.plugin = plugin
        self.engine = plugin.engine
        self.kinds = tuple(kinds)
        self.seed = seed
        self.device_seed = device_seed_of(seed)
        self.record = GameRecord(plugin.name, seed, self.kinds, dict(options), first)
        self.pos: Any = None
        self._bot_rng = random.Random(0)
        self.bots: dict[Seat, Bot[Any, Any]] = {
            s: plugin.engine.bots["heuristic"](s, self._bot_rng)
            for s, k in enumerate(self.kinds) if k == SeatKind.COMPUTER}
        header = JournalHeader(game=plugin.name, seats=len(self.kinds), seed=seed,
                               options=dict(options), first=first,
                               device_seed=self.device_seed, seat_kinds=self.kinds)
        self.journal = JournalWriter(journal_path, header)

    # ------------------------------------------------------------------ life
    def start(self, first: Seat) -> None:
        """Deal the game with ``first`` to move and write the journal's header."""
        self.record.first = first
        self.journal.header = JournalHeader(
            game=self.plugin.name, seats=len(self.kinds), seed=self.seed,
            options=self.record.options, first=first, device_seed=self.device_seed,
            seat_kinds=self.kinds)
        self.pos = self.engine.new(len(self.kinds), self.seed, self.record.options, first)
        if self.journal.path is not None:
            self.journal.append(DecisionRecord("start", {"first": first}))

    @classmethod
    def resume(cls, state_dir: Path) -> GameSession | None:
        """The unfinished game journaled in ``state_dir``, replayed through the checked
        engine to its exact position, or ``None`` when there is none, it ended, or it
        cannot be used (one log line).  The journal's torn tail is cut off."""
        path = state_dir / JOURNAL_NAME
        if not path.exists():
            return None
        try:
            contents = Journal.read(path)
            if any(isinstance(r, DecisionRecord) and r.kind == "gameover"
                   for r in contents.records):
                return None
            h = contents.header
            plugin = PLUGINS.get(h.game)
            if plugin is None:
                raise ValueError(f"unknown game {h.game!r}")
            if any(k not in tuple(SeatKind) for k in h.seat_kinds):
                raise ValueError(f"unknown seat kind in {list(h.seat_kinds)}")
            session = cls(plugin, h.seat_kinds, h.seed, h.options, first=h.first,
                          journal_path=path)
            session.pos = plugin.engine.new(h.seats, h.seed, dict(h.options), h.first)
            keep = session._replay(contents.records)
            if session.engine.outcome(session.pos) is not None:
                return None
            journal, _ = Journal.resume(path, keep)
        except (OSError, ValueError, KeyError, TypeError) as err:
            # JournalError and EngineError are ValueErrors
            log.error("the last game cannot be resumed (%s); opening the lobby", err)
            return None
        session.journal.adopt(journal)
        if contents.problem:
            log.warning("journal: %s", contents.problem)
        log.info("resumed %s after %d actions", h.game, len(session.record.actions))
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
                    self.pos, _ = self.engine.apply(self.pos, self.engine.parse_action(r.action))
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
                    decision.seat, decision.reaction_ns / MS, decision.tie, r.kind))
        return None

    def close(self, winner: Seat | None, *, abandoned: bool = False) -> None:
        """The game is over (or abandoned): journal it so it is never resumed, close."""
        data: dict[str, Any] = {"winner": winner}
        if abandoned:
            data["abandoned"] = True
        self.journal.append(DecisionRecord("gameover", data))
        self.journal.close()
        self.record.winner = winner
        if self.pos is not None:
            self.record.extra.update(self.plugin.summary(self.pos))

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

    def apply(self, seat: Seat | None, text: str, note: str = "") -> tuple[Event, ...]:
        """Apply action ``text`` for ``seat`` (``None``: the device) through the engine's
        checked ``apply``, journal it and return its events.  Raises ``EngineError`` when
        the engine refuses (recorded in ``record.refused``)."""
        try:
            pos, events = self.engine.apply(self.pos, self.engine.parse_action(text))
        except EngineError as err:
            self.record.refused.append(f"{text}: {err}")
            raise
        self.pos = pos
        self.record.actions.append(text)
        who = "device" if seat is None else f"seat {seat}"
        self.record.log.append(f"{who}: {text}" + (f" ({note})" if note else ""))
        self.journal.append(ActionRecord(text))
        return events

    def note(self, kind: str, data: Mapping[str, Any]) -> None:
        """Journal a device decision (a slap decision, a stuck button, a late arrival)."""
        self.journal.append(DecisionRecord(kind, data))

    def computer_move(self, seat: Seat) -> str | None:
        """The action computer ``seat`` makes now (from its own view only), or ``None``
        when it has nothing to do.  Its choice is drawn from :meth:`rng` ``("move")``."""
        bot = self.bots.get(seat)
        legal = self.engine.legal(self.pos)
        if bot is None or not legal:
            return None
        self._bot_rng.seed(self.rng_seed("move"))
        action = bot.choose(self.engine.view(self.pos, seat), legal)
        return str(action) if action in legal else str(legal[0])

    def computer_reactions(self, timing: RaceTiming) -> dict[Seat, int]:
        """Every computer seat's slap reaction time for the window open now, in ns."""
        return {s: computer_reaction_ns(self.rng(f"slap {s}"), timing) for s in self.bots}

    @property
    def outcome(self) -> Any:
        """The engine's ``Outcome`` of the position, or ``None`` while it goes on."""
        return self.engine.outcome(self.pos)
