"""The headless game: computer players in every seat play whole games on a fake clock.

No real waiting: the fake clock jumps to each deadline (a computer player's move, its
slap, the slap timeout).  After every engine action the table frame and each changed hand
screen are written as PNG to ``<out>/<game>/``; each game's record goes to
``<out>/<game>/summary.json`` and all of them to ``<out>/summary.json``.  The games are kept
in a game database (``device.store.game_db``) like the device's: ``--state-dir`` when given, else
``<out>/state`` (never the simulator's, which would then offer a computer game to resume),
so ``python -m device history --state-dir out/state`` lists them.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import pygame

from device.common.words import seat_name
from device.console import Console, GameRecord, make_seats
from device.flow.game_flow import Timing
from device.flow.lobby import LobbyChoices
from device.games import PLUGINS
from device.modes.cli import dump_summary, timing_of
from device.modes.present import FrameRecorder, TablePresenter
from device.reactor.events import FakeQueue
from drivers.clock import FakeClock
from drivers.hand_display import open_hand_display
from drivers.table_display import TableDisplay

START_NS = 1_000_000_000


def play_headless_game(
    game: str, seats: int, seed: int, out: Any, timing: Timing | None = None,
    state_dir: Path | None = None,
) -> dict[str, Any]:
    """Play one all-computer game of ``game`` with ``seats`` seats from ``seed``; write
    its frames and ``summary.json`` under ``out`` and the game to the database in
    ``state_dir`` (``None``: nowhere); return the summary (a JSON object)."""
    clock = FakeClock(START_NS)
    display = TableDisplay("dummy", (1920, 1080), clock=clock)
    try:
        devices = [open_hand_display(s, "dummy") for s in range(seats)]
        # motion=False: every PNG shows the finished picture, not a slide's first frame
        recorder = FrameRecorder(TablePresenter(display, motion=False), out)
        records: list[GameRecord] = []
        queue = FakeQueue(clock)

        def finished(record: GameRecord) -> None:
            records.append(record)
            console.stop()

        console = Console(
            clock=clock,
            queue=queue,
            presenter=recorder,
            seats=make_seats(devices),
            choices=LobbyChoices(game=game, kinds=("computer",) * seats),
            game_seed=seed,
            timing=timing or Timing(),
            on_game_over=finished,
            on_action=recorder.action,
            skip_lobby=True,
            state_dir=state_dir,
        )
        console.run()
    finally:
        display.close()
    summary = records[0].to_json()
    summary["frames"] = recorder.frames
    summary["out"] = str(out)
    dump_summary(out / "summary.json", summary)
    return summary


def run_headless(args: argparse.Namespace) -> int:
    """``python -m device --headless``: one game of each (or ``--game``); exit status 0."""
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    games = list(PLUGINS) if args.game in (None, "both") else [args.game]
    seats = args.seats or 4
    # a headless game keeps its journal beside its frames, never in --state-dir: there it
    # would end the console's unfinished game and overwrite its lobby choices
    state_dir = (args.out / "state").absolute()
    if args.state_dir is not None:
        print(f"headless: games are kept in {state_dir}, not in --state-dir {args.state_dir} "
              "(its unfinished game and lobby choices stay as they are)", file=sys.stderr)
    summaries = []
    try:
        for game in games:
            (args.out / game).mkdir(parents=True, exist_ok=True)
        for i, game in enumerate(games):
            summary = play_headless_game(game, seats, args.seed + i, args.out / game,
                                         timing_of(args), state_dir)
            summaries.append(summary)
            winner = summary["winner"]
            shown = seat_name(winner) if winner is not None else "nobody"
            print(f"{PLUGINS[game].title}: {summary['actions']} actions, winner {shown}, "
                  f"{summary['frames']} frames in {args.out / game}/")
        dump_summary(args.out / "summary.json", {"seed": args.seed, "games": summaries})
    except (OSError, pygame.error) as err:
        print(f"error: --out {args.out}: cannot write frames there ({err})", file=sys.stderr)
        return 2
    print(f"summary: {args.out / 'summary.json'}")
    return 0
