"""Helpers of the game database's card tests: a console that resumes from a state
directory (:func:`console_on`), and running a check as a user the kernel's permission bits
apply to (:func:`run_unprivileged`): the file modes of a state directory (0555, 000) mean
nothing to root, so a root test run forks a child that drops to ``nobody`` (no exec: the
child keeps this interpreter and its imports) and sends back the check's JSON result; an
unprivileged run calls the check directly."""

from __future__ import annotations

import encodings.ascii  # noqa: F401  (the child may not read the library to import it)
import json
import os
import pwd
from collections.abc import Callable
from pathlib import Path
from typing import Any

from device.console import Console, GameRecord, make_seats
from device.flow.lobby import LobbyChoices
from device.modes.present import TablePresenter
from device.reactor.events import FakeQueue
from drivers.clock import FakeClock
from drivers.hand_display import open_hand_display
from drivers.table_display import TableDisplay

UNPRIVILEGED = "nobody"
"""The user a root test run drops to."""


def owner_for_test() -> tuple[int, int]:
    """The ``(uid, gid)`` that runs the check: ``nobody``'s when this process is root,
    else this process's own."""
    if os.geteuid() != 0:
        return os.getuid(), os.getgid()
    entry = pwd.getpwnam(UNPRIVILEGED)
    return entry.pw_uid, entry.pw_gid


def hand_over(path: Path) -> None:
    """Give ``path`` and everything under it to :func:`owner_for_test`'s user (a no-op
    when this process is not root)."""
    if os.geteuid() != 0:
        return
    uid, gid = owner_for_test()
    for root, dirs, files in os.walk(path):
        for name in (*dirs, *files):
            os.chown(os.path.join(root, name), uid, gid)
    os.chown(path, uid, gid)


def run_unprivileged(check: Callable[[], Any]) -> Any:
    """``check()``'s JSON-ready result, computed by a process the file modes apply to.
    Raises ``RuntimeError`` with the child's error when the check fails there."""
    if os.geteuid() != 0:
        return check()
    uid, gid = owner_for_test()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop root for good, run the check, report, never return
        code = 0
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            out = json.dumps({"ok": check()})
        except BaseException as err:  # everything goes back to the parent
            out = json.dumps({"error": f"{type(err).__name__}: {err}"})
            code = 1
        with os.fdopen(write, "w") as f:
            f.write(out)
        os._exit(code)
    os.close(write)
    with os.fdopen(read) as f:
        text = f.read()
    os.waitpid(pid, 0)
    answer = json.loads(text or '{"error": "the child sent nothing"}')
    if "error" in answer:
        raise RuntimeError(answer["error"])
    return answer["ok"]


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
