"""Golden Right on Time transcripts: seeded play logs and position walks, regenerated only
by ``scripts/make_golden.py`` (never by hand), must match what the engine produces now."""

from __future__ import annotations

import re

from test_riiing_golden import GOLDEN_DIR, load_script

from engine.right_on_time import RightOnTimeGame, RotPosition


def test_golden_transcripts_match() -> None:
    """Every right-on-time golden file equals the script's output today, and no other
    right-on-time file exists."""
    expected: dict[str, str] = load_script().golden("right-on-time")
    on_disk = {path.name for path in GOLDEN_DIR.glob("right-on-time-*.txt")}
    assert on_disk == set(expected) and len(expected) == 5
    for name, text in expected.items():
        assert (GOLDEN_DIR / name).read_text(encoding="utf-8") == text, (
            f"{name} differs: rerun scripts/make_golden.py and review the diff"
        )


def test_golden_play_logs_end_with_the_match_winner() -> None:
    """Each play log ends with 'winner: seat N' after one line per action, and a line
    notes the match won."""
    for path in GOLDEN_DIR.glob("right-on-time-play-*.txt"):
        lines = path.read_text(encoding="utf-8").splitlines()
        assert re.fullmatch(r"winner: seat \d", lines[-1]) and len(lines) > 2, path.name
        assert lines[-2].endswith("; match won)"), path.name


def test_golden_walks_replay_through_the_checked_apply() -> None:
    """Each walk's positions follow from the one before by its logged action (replayed
    through the public, checked apply), and each is str() of a parsed position."""
    game = RightOnTimeGame()
    for path in GOLDEN_DIR.glob("right-on-time-walk-*.txt"):
        lines = path.read_text(encoding="utf-8").splitlines()
        pos = RotPosition.parse(lines[1])
        assert str(pos) == lines[1]
        actions = [line.split(": ", 1)[1].split(" (")[0] for line in lines if line[:2] == "> "]
        states = [line for line in lines[2:] if line.startswith("{")]
        assert len(actions) == len(states) > 10, path.name
        for action, state in zip(actions, states, strict=True):
            pos, _events = game.apply(pos, game.parse_action(action))
            assert str(pos) == state, path.name
