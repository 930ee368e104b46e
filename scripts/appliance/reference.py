"""The uncut reference of a game the VM played: the same game, seats, seed, options, first
seat and seat kinds, played on the host without a cut, on a fake clock (no real waiting).

Every device draw (computer choices, slap reaction times, tie breaks) is seeded from the
game's seed and the action count (``tests/device/test_resume_exact.py``), so an all-computer
game is one sequence of actions whatever the clock did, and a game the VM finished through
any number of power cuts must have exactly the actions of this one.  The console's timing
comes from the same device flags the VM's service runs with (``--bot-move-ms`` ...:
:func:`device.modes.cli.timing_of`).  The actions are read back from the game database the
reference journals into, through the same code as ``python -m device history``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

START_NS = 1_000_000_000
MAX_STEPS = 500_000
"""Loop turns before a reference game is declared endless (a game takes a few thousand)."""


class ReferenceError(Exception):
    """The reference game could not be played: ``str(err)`` is one line."""


class _NoScreen:
    """A presenter that draws nothing: every frame flips at the fake clock's time."""

    def __init__(self, clock: Any) -> None:
        self.clock = clock

    def present(self, model: Any, seats: Sequence[Any], now_ns: int, force: bool) -> int:
        """No drawing; the flip is now (ns on the fake clock)."""
        return int(self.clock.now_ns())

    def next_frame_ns(self, now_ns: int) -> int | None:
        """Nothing animates."""
        return None


def reference_actions(header: Mapping[str, Any], device_flags: Sequence[str]) -> list[str]:
    """The actions of the uncut game ``header`` describes (a game object of ``python -m
    device history --json``: ``game``, ``seats``, ``seed``, ``options``, ``first``,
    ``seat_kinds``) with the console timing of ``device_flags`` (the service's
    ``python -m device`` arguments).  Raises :class:`ReferenceError` when the header names
    an unknown game or option, or the game does not end."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    from device.console import Console, make_seats
    from device.flow.lobby import LobbyChoices
    from device.games import PLUGINS
    from device.modes.cli import build_parser, timing_of
    from device.reactor.events import FakeQueue
    from device.store.db_schema import DB_NAME
    from device.store.game_db import open_read_only
    from drivers.clock import FakeClock
    from drivers.hand_display import open_hand_display

    game = str(header["game"])
    if game not in PLUGINS:
        raise ReferenceError(f"reference: unknown game {game!r}")
    kinds = tuple(str(k) for k in header["seat_kinds"])
    options = tuple(sorted((str(k), v) for k, v in dict(header["options"]).items()))
    choices = LobbyChoices(game=game, kinds=kinds, options=((game, options),),
                           first=int(header["first"]))
    args = build_parser().parse_args(list(device_flags))
    clock = FakeClock(START_NS)
    ended: list[Any] = []
    with tempfile.TemporaryDirectory(prefix="appliance-ref-") as state:
        console = Console(
            clock=clock, queue=FakeQueue(clock), presenter=_NoScreen(clock),
            seats=make_seats([open_hand_display(s, "dummy") for s in range(len(kinds))]),
            choices=choices, game_seed=int(header["seed"]), timing=timing_of(args),
            state_dir=Path(state), on_game_over=ended.append, skip_lobby=True)
        try:
            console.start()
            for _ in range(MAX_STEPS):
                if ended:
                    break
                console.step()
        finally:
            console.close()
        if not ended:
            raise ReferenceError(f"reference: {game} seed {header['seed']} did not end in "
                                 f"{MAX_STEPS} loop turns")
        with open_read_only(Path(state) / DB_NAME) as db:
            games = db.games(1)
        if not games:
            raise ReferenceError("reference: the game was not journaled")
        stored = games[0]
        got = {"game": stored.header.game, "seed": stored.header.seed,
               "seats": stored.header.seats, "first": stored.header.first,
               "options": dict(stored.header.options)}
        want = {"game": game, "seed": header["seed"], "seats": header["seats"],
                "first": header["first"], "options": dict(header["options"])}
        if got != want:
            raise ReferenceError(f"reference: played {got}, not the VM's {want}")
        return list(stored.actions)
