"""``python -m device`` command line: one-line errors, exit status 2, and the fallback from
a window that cannot open to the headless game."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from device.main import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["--seats", "9"], "--seats"),
        (["--seed", "x"], "--seed"),
        (["--headless", "--seed", str(2**63)], "--seed"),
        (["--headless", "--seed", "-1"], "--seed"),
        (["--headless", "--humans", "3"], "--humans"),
        (["--headless", "--config", "/etc/partytable/config.toml"], "--config"),
        (["--game", "chess"], "--game"),
        (["--bogus"], "--bogus"),
        (["--sim", "--humans", "9"], "--humans"),
        (["--bot-slap-ms", "1"], "--bot-slap-ms"),
        (["--bot-move-ms", "-5"], "--bot-move-ms"),
        (["history", "--frob"], "--frob"),
        (["history", "--limit", "x"], "--limit"),
        (["history", "--limit", "0"], "--limit"),
        (["emulate-handheld", "--out"], "--out"),
        (["emulate-handheld", "--frob"], "--frob"),
    ],
)
def test_bad_flags_exit_2_with_one_line(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each bad flag is exit status 2 and one stderr line naming the flag."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err


@pytest.mark.parametrize("given, why", [("", "1..32 characters"),
                                        ("a b", "printable ASCII without spaces")])
def test_a_bad_emulated_handheld_id_is_one_line_naming_the_flag(
    given: str, why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``emulate-handheld --id`` with an id the firmware refuses: exit 2 and one stderr
    line naming ``--id`` (the flag the person typed), with the firmware's reason."""
    assert main(["emulate-handheld", "--id", given]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: --id must be ") and why in err
    assert "handheld_id" not in err


def test_unwritable_out_folder_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--out pointing at a file (or anywhere unwritable) is one line, exit 2."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["--headless", "--game", "riiing", "--seats", "2", "--out", str(blocker)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(blocker) in err


def test_a_window_that_cannot_open_falls_back_to_the_headless_game(tmp_path: Path) -> None:
    """A stale DISPLAY (e.g. an SSH login's) makes --sim say so in one line and play the
    headless game instead: exit 0, summary written."""
    env = {k: v for k, v in os.environ.items() if k not in ("SDL_VIDEODRIVER", "WAYLAND_DISPLAY")}
    env["DISPLAY"] = ":59"  # no X server there
    env["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "device", "--sim", "--game", "riiing", "--seats", "2",
         "--out", str(tmp_path / "out"), "--state-dir", str(tmp_path / "state")],
        env=env, capture_output=True, text=True, timeout=300, cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-1500:]
    assert "Traceback" not in done.stderr
    assert "headless" in done.stdout.splitlines()[0]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["games"][0]["winner"] is not None


def test_a_headless_game_leaves_the_state_dir_alone(tmp_path: Path) -> None:
    """--headless with --state-dir (also the simulator's fallback): the folder's lobby
    choices and game database are not touched (a headless game there would end the
    console's unfinished game and rewrite lobby.json); its games are kept beside its
    frames, said in one line."""
    state = tmp_path / "state"
    state.mkdir()
    choices = '{"game": "riiing", "strengths": ["hard", "hard", "normal"], "volume": 0}'
    (state / "lobby.json").write_text(choices)
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy",
               PYGAME_HIDE_SUPPORT_PROMPT="1")
    done = subprocess.run(
        [sys.executable, "-m", "device", "--headless", "--game", "riiing", "--seats", "2",
         "--out", str(tmp_path / "out"), "--state-dir", str(state)],
        env=env, capture_output=True, text=True, timeout=300, cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-1500:]
    assert (state / "lobby.json").read_text() == choices
    assert sorted(p.name for p in state.iterdir()) == ["lobby.json"]
    assert (tmp_path / "out" / "state" / "partytable.db").exists()
    assert "not in --state-dir" in done.stderr
