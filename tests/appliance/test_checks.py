"""The appliance test's checks after a power cut (``scripts/appliance/checks.py``), on
databases as ``python -m device history --json`` prints them: what must pass (an exact
resume, a game closed at start, a cut between games) and what must fail, each naming the
boot and what was wrong (lost committed actions, a resume after the wrong count or of the
wrong game, a changed finished game, a failed integrity check, a vanished database)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from scripts.appliance.checks import (
    EMPTY,
    CheckFailed,
    Snapshot,
    check_boot,
    check_reference,
    parse_history,
    resumes,
)

ACTIONS = [f"play {i}" for i in range(40)]


def game(gid: int, n: int, outcome: str | None = None, *, seed: int = 1,
         actions: list[str] | None = None) -> dict[str, Any]:
    """One game object of ``history --json`` (the i9 contract's keys)."""
    return {"id": gid, "game": "riiing", "seats": 3, "seed": seed,
            "options": {"hand_size": 7}, "first": 0,
            "seat_kinds": ["computer", "computer", "computer"],
            "started_at": "2026-12-01T18:00:00Z",
            "ended_at": None if outcome is None else "2026-12-01T18:01:00Z",
            "outcome": outcome, "winner": None if outcome is None else 1,
            "actions": (actions if actions is not None else ACTIONS)[:n], "slaps": []}


def snap(*games: dict[str, Any], integrity: str = "ok") -> Snapshot:
    """A snapshot parsed from the JSON text the CLI would print (newest first)."""
    text = json.dumps({"db": "/var/lib/partytable/partytable.db", "integrity": integrity,
                       "games": sorted(games, key=lambda g: -g["id"])})
    return parse_history(text, "test")


def log(*lines: str) -> str:
    """A journal text (``journalctl -o cat``) around the given device lines."""
    return "\n".join(["Starting partytable.service - partytable party card-game console...",
                      "WARNING debug hang armed: SIGUSR1 stops the main loop for good",
                      *lines, "Started partytable.service - partytable party card-game console."])


def test_an_exact_resume_passes() -> None:
    seen = snap(game(1, 10))
    probe = snap(game(1, 12))  # two more were committed after the last read
    live = snap(game(1, 15))
    verdict = check_boot(2, probe, log("WARNING resumed game 1 (riiing) after 12 actions"),
                         live, seen)
    assert (verdict.resumed, verdict.actions, verdict.closed) == (1, 12, None)


def test_a_resume_after_fewer_actions_than_committed_fails() -> None:
    probe = snap(game(1, 12))
    with pytest.raises(CheckFailed, match=r"boot 4: game 1 resumed after 11 actions, 12 were "
                                          r"committed"):
        check_boot(4, probe, log("WARNING resumed game 1 (riiing) after 11 actions"),
                   snap(game(1, 12)), snap(game(1, 10)))


def test_a_resume_of_another_game_fails() -> None:
    probe = snap(game(1, 30, "won"), game(2, 4, seed=2))
    with pytest.raises(CheckFailed, match=r"resumed game 1 \(riiing\), but the unfinished "
                                          r"game is 2"):
        check_boot(3, probe, log("WARNING resumed game 1 (riiing) after 4 actions"),
                   probe, EMPTY)


def test_committed_actions_that_vanish_in_a_cut_fail() -> None:
    seen = snap(game(1, 10))
    probe = snap(game(1, 8))
    with pytest.raises(CheckFailed, match=r"boot 5: after the cut: game 1 had 10 committed "
                                          r"actions, now 8"):
        check_boot(5, probe, log("WARNING resumed game 1 (riiing) after 8 actions"),
                   probe, seen)


def test_a_committed_action_rewritten_fails() -> None:
    seen = snap(game(1, 10))
    changed = [*ACTIONS[:6], "take", *ACTIONS[7:]]
    probe = snap(game(1, 10, actions=changed))
    with pytest.raises(CheckFailed, match=r"differing from action 7"):
        check_boot(2, probe, log("WARNING resumed game 1 (riiing) after 10 actions"),
                   probe, seen)


def test_a_finished_game_that_changes_fails() -> None:
    seen = snap(game(1, 30, "won"), game(2, 3, seed=2))
    probe = snap(game(1, 30), game(2, 3, seed=2))  # game 1 lost its end
    with pytest.raises(CheckFailed, match=r"finished game 1 changed \(won, 30 actions -> "
                                          r"None, 30\)"):
        check_boot(6, probe, log("WARNING resumed game 2 (riiing) after 3 actions"),
                   probe, seen)


def test_a_game_gone_after_the_cut_fails() -> None:
    seen = snap(game(1, 30, "won"), game(2, 3, seed=2))
    probe = snap(game(2, 3, seed=2))
    with pytest.raises(CheckFailed, match=r"game 1 \(riiing, 30 actions\) is gone"):
        check_boot(2, probe, log("WARNING resumed game 2 (riiing) after 3 actions"),
                   probe, seen)


def test_the_service_shortening_the_resumed_game_fails() -> None:
    probe = snap(game(1, 12))
    live = snap(game(1, 9))  # e.g. the replay refused an action and cut the game back
    with pytest.raises(CheckFailed, match=r"after the restart: game 1 had 12 committed"):
        check_boot(2, probe, log("WARNING resumed game 1 (riiing) after 12 actions"),
                   live, EMPTY)


def test_a_failed_integrity_check_fails() -> None:
    probe = snap(game(1, 5), integrity="*** in database main *** Page 7: btreeInitPage() "
                                       "returns error code 11")
    with pytest.raises(CheckFailed, match=r"boot 3: integrity_check after the cut: \*\*\* "
                                          r"in database main"):
        check_boot(3, probe, log(), probe, EMPTY)


def test_a_database_gone_after_the_cut_fails() -> None:
    with pytest.raises(CheckFailed, match="the game database is gone"):
        check_boot(2, EMPTY, log(), EMPTY, snap(game(1, 3)))


def test_the_first_boot_has_nothing_to_resume() -> None:
    verdict = check_boot(1, EMPTY, log(), snap(game(1, 2)), EMPTY)
    assert (verdict.resumed, verdict.closed) == (None, None)


def test_a_resume_with_no_unfinished_game_fails() -> None:
    probe = snap(game(1, 30, "won"))
    with pytest.raises(CheckFailed, match="no unfinished game"):
        check_boot(2, probe, log("WARNING resumed game 1 (riiing) after 30 actions"),
                   probe, EMPTY)


def test_a_cut_between_games_resumes_nothing() -> None:
    probe = snap(game(1, 30, "won"))
    verdict = check_boot(2, probe, log(), snap(game(1, 30, "won"), game(2, 1, seed=2)), probe)
    assert (verdict.resumed, verdict.closed) == (None, None)


def test_a_game_over_but_not_yet_marked_is_closed_at_start() -> None:
    """The cut fell between a game's last action and its end: the service marks it over
    with the same actions and resumes nothing."""
    probe = snap(game(1, 30))
    live = snap(game(1, 30, "won"), game(2, 1, seed=2))
    verdict = check_boot(2, probe, log(), live, EMPTY)
    assert (verdict.resumed, verdict.actions, verdict.closed) == (None, 30, 1)


def test_an_unfinished_game_not_resumed_fails() -> None:
    probe = snap(game(1, 12))
    with pytest.raises(CheckFailed, match=r"game 1 \(riiing\) was unfinished with 12 actions "
                                          r"but the service did not resume it"):
        check_boot(2, probe, log(), snap(game(1, 12), game(2, 1, seed=2)), EMPTY)


def test_resume_lines_are_read_from_the_journal() -> None:
    text = log("WARNING resumed game 3 (right-on-time) after 17 actions",
               "partytable.service: Watchdog timeout (limit 10s)!",
               "WARNING resumed game 3 (right-on-time) after 25 actions")
    assert [(r.id, r.game, r.actions) for r in resumes(text)] == [
        (3, "right-on-time", 17), (3, "right-on-time", 25)]


def test_output_that_is_not_the_listing_fails_naming_it() -> None:
    with pytest.raises(CheckFailed, match=r"boot 2: probe: history --json printed no "
                                          r"database listing"):
        parse_history("error: something else\n", "boot 2: probe")


def test_every_finished_game_must_equal_its_reference() -> None:
    final = snap(game(1, 30, "won"), game(2, 25, "won", seed=2), game(3, 4, seed=3))
    asked: list[int] = []

    def reference(header: Any) -> list[str]:
        asked.append(header["seed"])
        return ACTIONS[:30] if header["seed"] == 1 else ACTIONS[:25]

    assert check_reference(final, reference) == 2
    assert sorted(asked) == [1, 2]  # the unfinished game 3 has no end to compare


def test_a_finished_game_unlike_its_reference_fails_at_the_first_difference() -> None:
    final = snap(game(1, 30, "won"))
    other = [*ACTIONS[:20], "draw", *ACTIONS[21:30]]
    with pytest.raises(CheckFailed, match=r"game 1 \(riiing seed 1\) differs from the uncut "
                                          r"game at action 21: 'play 20', uncut 'draw'"):
        check_reference(final, lambda header: other)


def test_an_abandoned_game_fails_the_reference_check() -> None:
    final = snap(game(1, 12, "abandoned"))
    with pytest.raises(CheckFailed, match="game 1 \\(riiing\\) was abandoned"):
        check_reference(final, lambda header: ACTIONS)
