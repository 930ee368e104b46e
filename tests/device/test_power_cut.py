"""Power cuts at the process level: a computer game killed with SIGKILL at 200 chosen
moments and started again each time.

Each run is a fresh process (``os.fork`` of this test before any console exists, so it
starts in milliseconds instead of the ~0.25 s of a new interpreter; it builds its console
from nothing but the database, exactly as ``python -m device`` does at boot) that resumes
the unfinished game and plays on, committing one transaction per record, until it is
killed.  After every kill this test opens the database read-only and checks it
(``PRAGMA integrity_check``), replays the committed actions of the unfinished game through
the engine, and checks that the next run restores exactly that position after exactly
that many actions.

The moments are chosen by what the database holds, not by the wall clock, so a loaded
machine cuts at the same points as an idle one: each run first reports what it restored
(the test waits for that line), then this test watches the database read-only until the
run has committed a chosen 1-6 more actions of its game (or ended it), and kills it a
random 0-3 ms later, inside whatever write comes next.  At the end a last run plays the
current game to its end, and every finished game's actions equal those of the same game
played without a cut.

A SIGKILL cannot lose what the kernel's page cache holds, so this proves the transaction
logic, not the fsyncs; the machine-level test (``make appliance-test``) kills a VM for that.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import signal
import time
import traceback
from pathlib import Path
from typing import Any

import pytest

from device.console import Console, make_seats
from device.flow.lobby import LobbyChoices
from device.games import get_plugin
from device.reactor.events import FakeQueue
from device.store.db_schema import DB_NAME
from device.store.game_db import open_read_only
from device.store.session import GameRecord
from drivers.clock import FakeClock
from drivers.hand_display import open_hand_display

CUTS = 200
SEATS = 3
SEED = 11
START_NS = 1_000_000_000


class NoScreen:
    """A presenter that draws nothing (the TV is not what is being cut)."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock

    def present(self, model: Any, seats: Any, now_ns: int, force: bool) -> int | None:
        """No drawing; the flip happens now."""
        return self.clock.now_ns()

    def next_frame_ns(self, now_ns: int) -> int | None:
        """Nothing animates."""
        return None


def position_digest(game: str, pos: Any) -> str:
    """A short digest of the position's JSON (what "the same position" means)."""
    text = get_plugin(game).engine.position_json(pos)
    return hashlib.sha256(str(text).encode()).hexdigest()[:16]


def console(game: str, state_dir: Path | None, on_game_over: Any) -> Console:
    """The all-computer console of ``game`` every run builds, resuming from
    ``state_dir``."""
    clock = FakeClock(START_NS)
    return Console(
        clock=clock, queue=FakeQueue(clock), presenter=NoScreen(clock),
        seats=make_seats([open_hand_display(s, "dummy") for s in range(SEATS)]),
        choices=LobbyChoices(game=game, kinds=("computer",) * SEATS),
        game_seed=SEED, state_dir=state_dir, on_game_over=on_game_over,
        skip_lobby=True, resume=state_dir is not None)


def child(game: str, state_dir: Path, report: int, last: bool) -> None:
    """One run (in the forked process): resume, say what was restored on ``report``
    (``R <step> <digest>`` or ``N``), play until killed (or, ``last``, until the current
    game ends)."""
    def over(record: GameRecord) -> None:
        if last:
            c.stop()

    c = console(game, state_dir, over)
    c.start()
    session = c.flow.session
    if c.flow.snapshot().held and session is not None:
        line = f"R {session.step} {position_digest(session.plugin.name, session.pos)}\n"
    else:
        line = "N\n"
    os.write(report, line.encode())
    c.run()


def fork_run(game: str, state_dir: Path, *, last: bool = False) -> tuple[int, int]:
    """Fork a run; returns (pid, read end of its report pipe)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the run: never returns into pytest
        status = 0
        try:
            os.close(r)
            child(game, state_dir, w, last)
        except BaseException:
            traceback.print_exc()
            status = 1
        finally:
            os._exit(status)
    os.close(w)
    return pid, r


def read_report(fd: int) -> str:
    """The run's report line: read up to its newline (the run goes on playing after it);
    "" when the run ended before writing one.  Closes ``fd``."""
    data = b""
    while not data.endswith(b"\n") and (chunk := os.read(fd, 1)):
        data += chunk
    os.close(fd)
    return data.decode().strip()


WATCH_LIMIT_S = 120.0
"""How long a run may take to commit the chosen actions before the test fails (a guard
against a run that hangs, far above what any machine needs)."""


def wait_for_commits(state_dir: Path, pid: int, steps: int, more: int) -> None:
    """Return once the unfinished game holds ``steps + more`` committed actions, has ended
    or been replaced by the next game, or the run has exited; fails after
    :data:`WATCH_LIMIT_S`."""
    deadline = time.monotonic() + WATCH_LIMIT_S
    while time.monotonic() < deadline:
        if os.waitpid(pid, os.WNOHANG) != (0, 0):
            return
        with open_read_only(state_dir / DB_NAME) as db:
            game = db.unfinished()
        if game is None or len(game.actions) >= steps + more or len(game.actions) < steps:
            return
        time.sleep(0.001)
    pytest.fail(f"the run did not commit {more} more actions in {WATCH_LIMIT_S:.0f} s")


def committed(state_dir: Path) -> tuple[str, str | None, int, str | None]:
    """What the database holds now: its integrity result and the unfinished game's
    expected restore (``None`` when no game would be restored), its committed action
    count and the digest of the replay of those actions through the engine."""
    with open_read_only(state_dir / DB_NAME) as db:
        integrity = db.integrity()
        game = db.unfinished()
    if game is None:
        return integrity, None, 0, None
    engine = get_plugin(game.header.game).engine
    h = game.header
    pos = engine.new(h.seats, h.seed, dict(h.options), h.first)
    for text in game.actions:
        pos, _ = engine.apply(pos, engine.parse_action(text))
    if engine.outcome(pos) is not None:
        return integrity, None, len(game.actions), None  # ended; marked so at the next start
    return integrity, game.header.game, len(game.actions), position_digest(h.game, pos)


@pytest.mark.slow
@pytest.mark.parametrize("game", ["riiing", "right-on-time"])
def test_sigkill_at_200_moments_resumes_exactly_and_ends_as_uncut(
    tmp_path: Path, game: str
) -> None:
    """See the module docstring."""
    rng = random.Random(2026)
    state = tmp_path / "state"
    first_pid, first_fd = fork_run(game, state)
    assert read_report(first_fd) == "N"
    wait_for_commits(state, first_pid, 0, 3)
    os.kill(first_pid, signal.SIGKILL)
    os.waitpid(first_pid, 0)
    resumes = exact = integrity_failures = 0
    counts: list[int] = []
    for _ in range(CUTS):
        integrity, open_game, steps, digest = committed(state)
        integrity_failures += integrity != "ok"
        pid, fd = fork_run(game, state)
        report = read_report(fd)
        wait_for_commits(state, pid, steps, rng.randint(1, 6))
        time.sleep(rng.uniform(0.0, 0.003))
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status) or os.WEXITSTATUS(status) == 0, "a run failed"
        assert report, "a run ended before it reported what it restored"
        if open_game is None:
            assert report == "N"
            continue
        resumes += 1
        assert report == f"R {steps} {digest}", f"restored {report!r}, committed {steps}"
        exact += 1
        counts.append(steps)
    assert integrity_failures == 0
    assert resumes == exact and resumes >= CUTS // 2
    last_pid, last_fd = fork_run(game, state, last=True)
    _, status = os.waitpid(last_pid, 0)
    read_report(last_fd)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    with open_read_only(state / DB_NAME) as db:
        assert db.integrity() == "ok"
        every = sorted(db.games(limit=1000), key=lambda g: g.id)
    finished = [g for g in every if g.outcome == "won"]
    assert len(finished) >= 2, "the cuts should span more than one game"
    assert [g.header.seed for g in finished] == list(
        range(finished[0].header.seed, finished[-1].header.seed + 1)), "a game is missing"
    uncut: dict[int, GameRecord] = {}

    def over(record: GameRecord) -> None:
        uncut[record.seed] = record
        if record.seed == finished[-1].header.seed:
            reference.stop()

    reference = console(game, None, over)
    reference.run()
    for stored in finished:  # the oldest may have been pruned (KEEP_GAMES): the rest
        record = uncut[stored.header.seed]
        assert stored.actions == record.actions, f"game seed {record.seed} differs"
        assert stored.winner == record.winner
    print(f"power cuts ({game}): {CUTS} kills, {resumes} resumes, all exact, 0 integrity failures, "
          f"{len(finished)} games finished, committed actions at the cuts "
          f"{min(counts)}..{max(counts)}")
