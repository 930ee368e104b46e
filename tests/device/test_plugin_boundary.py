"""The typed boundary between the device and the games (device/games/base.py): plugins,
hand composers and the session hand over the engine's own action objects, text stays at the
edges (the journal keeps ``str(action)``), the game-free base names no game's action word,
and the registry (device/games/__init__.py) is the one place a game's types are erased."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from device.games import get_plugin
from device.store.session import GameSession
from engine import get_game
from engine.riiing.actions import RiiingAction

DEVICE = Path(__file__).resolve().parents[2] / "device"
RIIING = get_game("riiing")


def test_riiing_slap_timeout_and_false_slap_are_engine_actions() -> None:
    """Riiing!'s slap window actions (RI-6.3, RI-6.4, RI-6.5) are the engine's action
    values, spelled as the notation spells them; a false slap is asked of the engine."""
    windows = get_plugin("riiing").windows
    assert windows is not None
    assert windows.slap_action(2) == RiiingAction.slap(2)
    assert str(windows.timeout_action()) == "timeout"
    pos = RIIING.new(3, 7)
    false = windows.false_slap_action(pos, 1)
    assert isinstance(false, RiiingAction) and str(false) == "falseslap 1"
    off = RIIING.new(3, 7, {"false_slap_penalty": 0})
    assert windows.false_slap_action(off, 1) is None  # RI-6.5: option 0, no action


def test_a_game_without_windows_has_no_slap_actions() -> None:
    """Right on Time has no slap windows: it has no slap, timeout or false-slap actions at
    all (no :class:`SlapWindows`), and its slap buttons matter in no phase of play."""
    plugin = get_plugin("right-on-time")
    assert not plugin.has_slaps and not plugin.wakeup_race
    assert plugin.windows is None


@pytest.mark.parametrize("game", ["riiing", "right-on-time"])
def test_the_session_takes_action_objects_and_journals_their_text(game: str) -> None:
    """A computer move is one of the engine's legal actions (an object, not text); the
    session applies it as it is and records its notation."""
    session = GameSession(get_plugin(game), ("computer",) * 3, 11, {})
    session.start(0)
    seat = session.plugin.to_move(session.dealt)
    assert seat is not None
    action = session.computer_move(seat)
    assert action is not None and not isinstance(action, str)
    assert action in session.engine.legal(session.dealt)
    session.apply(seat, action)
    assert session.record.actions == [str(action)]
    assert session.engine.parse_action(session.record.actions[0]) == action


def _code_strings(path: Path) -> list[str]:
    """The string constants of ``path``'s code, docstrings left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    return [n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


def test_the_base_plugin_names_no_action_word() -> None:
    """The game-free base builds no action text: none of its strings starts with a word
    of an action (``slap``, ``timeout``, ``falseslap``, ``play``, ``draw``, ...)."""
    words = {"slap", "timeout", "falseslap", "play", "draw", "take", "bonus"}
    found = [s for s in _code_strings(DEVICE / "games" / "base.py")
             if s.split(" ", 1)[0] in words]
    assert found == []


def test_only_the_registry_erases_a_game_type() -> None:
    """No device module outside the registry takes a position as ``Any`` or a view as
    ``object``: they take the plugin's own types (or ``PublicView``)."""
    erased = re.compile(r"\bpos: Any\b|\bview: object\b")
    registry = DEVICE / "games" / "__init__.py"
    found = [f"{p.relative_to(DEVICE)}:{i}" for p in sorted(DEVICE.rglob("*.py"))
             if p != registry
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if erased.search(line)]
    assert found == []
