"""What the appliance test checks after each power cut, on what the VM reports: the game
database as ``python -m device history --json`` prints it (i9 contract: ``{"db",
"integrity", "games": [{"id", "game", "seats", "seed", "options", "first", "seat_kinds",
"outcome", "winner", "actions": [text, ...], ...}]}``, newest first) and the service's log
line ``resumed game <id> (<game>) after <n> actions`` (device/store/session.py).

Per boot (:func:`check_boot`), with ``probe`` the database exactly as the cut left it (a copy
taken before the service started) and ``live`` the database read after READY:

1. the probe's ``PRAGMA integrity_check`` is ``ok``;
2. nothing committed went away: every game of the last database the harness saw (``seen``)
   is still there, a finished one unchanged, an unfinished one with at least the actions it
   had then, in the same order (what SQLite committed with ``synchronous=FULL`` survives);
3. the resume is exact: the probe's unfinished game (if any) is what the service resumed —
   one resume line naming its id and game and exactly its number of committed actions — or,
   when the cut fell after its last action but before it was marked over, the service
   closed it with those same actions and logged no resume; with no unfinished game, no
   resume line;
4. the live database extends the probe: the same games with their actions as a prefix.

At the end (:func:`check_reference`): every finished game's actions equal the uncut
reference game's.  A failed check raises :class:`CheckFailed`: one line naming it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

RESUME = re.compile(r"resumed game (\d+) \(([^)]+)\) after (\d+) actions")


class CheckFailed(Exception):
    """A check failed: ``str(err)`` is the one line the harness ends with."""


@dataclass(frozen=True)
class Game:
    """One game of ``history --json``: ``id``, ``game``, ``seed``, ``outcome`` (``"won"``,
    ``"abandoned"`` or ``None`` while unfinished), ``actions`` (notation texts) and the
    whole JSON object (``header``, for the reference game)."""

    id: int
    game: str
    seed: int
    outcome: str | None
    actions: tuple[str, ...]
    header: Mapping[str, Any]

    @property
    def finished(self) -> bool:
        """True once the game was marked over (won or abandoned)."""
        return self.outcome is not None


@dataclass(frozen=True)
class Snapshot:
    """A database as ``history --json`` read it: ``integrity`` (``"ok"`` or SQLite's
    first problem) and ``games`` by id (``None`` integrity: no database yet)."""

    integrity: str | None
    games: Mapping[int, Game]

    @property
    def unfinished(self) -> Game | None:
        """The newest unfinished game, the one a restart resumes (``None``: none)."""
        open_games = [g for g in self.games.values() if not g.finished]
        return max(open_games, key=lambda g: g.id) if open_games else None

    def actions(self) -> int:
        """How many actions all its games hold."""
        return sum(len(g.actions) for g in self.games.values())


EMPTY = Snapshot(integrity=None, games={})
"""The state before the first boot: no database."""


@dataclass(frozen=True)
class Resume:
    """One resume line: game ``id``, ``game`` name, ``actions`` it was resumed after."""

    id: int
    game: str
    actions: int


def parse_history(text: str, what: str) -> Snapshot:
    """``history --json`` output as a :class:`Snapshot`; raises :class:`CheckFailed`
    naming ``what`` when it is not that JSON."""
    try:
        obj = json.loads(text)
        games = {}
        for g in obj["games"]:
            game = Game(id=int(g["id"]), game=str(g["game"]), seed=int(g["seed"]),
                        outcome=g["outcome"], actions=tuple(str(a) for a in g["actions"]),
                        header=g)
            games[game.id] = game
        return Snapshot(integrity=str(obj["integrity"]), games=games)
    except (ValueError, KeyError, TypeError) as err:
        raise CheckFailed(f"{what}: history --json printed no database listing "
                          f"({type(err).__name__}: {err}; {text[:120]!r})") from None


def resumes(journal: str) -> list[Resume]:
    """Every resume line of a journal text, in order."""
    return [Resume(int(m.group(1)), m.group(2), int(m.group(3)))
            for m in RESUME.finditer(journal)]


def check_kept(before: Snapshot, after: Snapshot, what: str) -> None:
    """Check 2/4: ``after`` keeps every game of ``before`` (a finished one unchanged, an
    unfinished one's actions as a prefix); raises :class:`CheckFailed` naming ``what``."""
    for gid, old in sorted(before.games.items()):
        new = after.games.get(gid)
        if new is None:
            raise CheckFailed(f"{what}: game {gid} ({old.game}, {len(old.actions)} actions) "
                              "is gone")
        if old.finished and (new.outcome != old.outcome or new.actions != old.actions):
            raise CheckFailed(f"{what}: finished game {gid} changed ({old.outcome}, "
                              f"{len(old.actions)} actions -> {new.outcome}, "
                              f"{len(new.actions)})")
        if new.actions[: len(old.actions)] != old.actions:
            lost = next((i for i, (a, b) in enumerate(zip(old.actions, new.actions, strict=False))
                         if a != b), len(new.actions))
            raise CheckFailed(f"{what}: game {gid} had {len(old.actions)} committed actions, "
                              f"now {len(new.actions)}, differing from action {lost + 1}")


@dataclass(frozen=True)
class BootVerdict:
    """What a boot showed: ``resumed`` (the game id resumed, or ``None``), ``actions``
    (how many committed actions it was resumed after), ``closed`` (a game the service
    marked over at start instead: the cut fell between its last action and its end)."""

    resumed: int | None
    actions: int
    closed: int | None


def check_boot(boot: int, probe: Snapshot, journal: str, live: Snapshot,
               seen: Snapshot) -> BootVerdict:
    """Checks 1-4 of the module docstring for boot ``boot`` (1 = the first power-on);
    ``journal``: that boot's journal of partytable.service up to the live read.  Raises
    :class:`CheckFailed`."""
    what = f"boot {boot}"
    if probe.integrity is not None and probe.integrity != "ok":
        raise CheckFailed(f"{what}: integrity_check after the cut: {probe.integrity}")
    if probe.integrity is None and seen.games:
        raise CheckFailed(f"{what}: the game database is gone after the cut")
    check_kept(seen, probe, f"{what}: after the cut")
    check_kept(probe, live, f"{what}: after the restart")
    lines = resumes(journal)
    open_game = probe.unfinished
    if open_game is None:
        if lines:
            raise CheckFailed(f"{what}: resumed game {lines[0].id} but the database had no "
                              "unfinished game")
        return BootVerdict(resumed=None, actions=0, closed=None)
    n = len(open_game.actions)
    if not lines:
        closed = live.games.get(open_game.id)
        if closed is not None and closed.finished and closed.actions == open_game.actions:
            return BootVerdict(resumed=None, actions=n, closed=open_game.id)
        raise CheckFailed(f"{what}: game {open_game.id} ({open_game.game}) was unfinished "
                          f"with {n} actions but the service did not resume it")
    first = lines[0]
    if (first.id, first.game) != (open_game.id, open_game.game):
        raise CheckFailed(f"{what}: resumed game {first.id} ({first.game}), but the "
                          f"unfinished game is {open_game.id} ({open_game.game})")
    if first.actions != n:
        raise CheckFailed(f"{what}: game {first.id} resumed after {first.actions} actions, "
                          f"{n} were committed")
    return BootVerdict(resumed=first.id, actions=n, closed=None)


def check_reference(final: Snapshot,
                    reference: Callable[[Mapping[str, Any]], Sequence[str]]) -> int:
    """Every finished game of ``final`` has the actions ``reference(header)`` gives (the
    uncut game); no game was abandoned.  How many games were compared; raises
    :class:`CheckFailed`."""
    compared = 0
    for gid, game in sorted(final.games.items()):
        if game.outcome == "abandoned":
            raise CheckFailed(f"reference: game {gid} ({game.game}) was abandoned, not "
                              "resumed")
        if not game.finished:
            continue
        want = tuple(reference(game.header))
        if game.actions != want:
            at = next((i for i, (a, b) in enumerate(zip(game.actions, want, strict=False))
                       if a != b), min(len(want), len(game.actions)))
            got_at = game.actions[at] if at < len(game.actions) else "(end)"
            want_at = want[at] if at < len(want) else "(end)"
            raise CheckFailed(f"reference: game {gid} ({game.game} seed {game.seed}) differs "
                              f"from the uncut game at action {at + 1}: {got_at!r}, uncut "
                              f"{want_at!r} ({len(game.actions)} vs {len(want)} actions)")
        compared += 1
    return compared
