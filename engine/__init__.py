"""partytable's rules engine: Riiing! and Right on Time as pure, seeded, immutable values.

``GAMES`` maps a game name to its :class:`engine.core.Game`; ``get_game(name)`` looks one
up and raises :class:`engine.core.NotationError` for an unknown name.  This package
imports nothing from ``device/`` or ``drivers/`` (``tests/engine/test_engine_package.py``)
and reads no file a position names: positions are data (``engine._common``).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from engine.core import (
    Bot,
    EngineError,
    Event,
    Game,
    IllegalActionError,
    LogLine,
    NotationError,
    Outcome,
    Seat,
)

GAME_MODULES: dict[str, tuple[str, str]] = {
    "riiing": ("engine.riiing", "RiiingGame"),
    "right-on-time": ("engine.right_on_time", "RightOnTimeGame"),
}
"""Game name -> (module, class).  Modules load on first use."""


def get_game(name: str) -> Game[Any, Any, Any]:
    """The game registered as ``name``; raises NotationError naming the known games."""
    try:
        module, cls = GAME_MODULES[name]
    except KeyError:
        raise NotationError(
            f"unknown game {name!r} (known: {', '.join(sorted(GAME_MODULES))})"
        ) from None
    game: Game[Any, Any, Any] = getattr(import_module(module), cls)()
    return game


__all__ = [
    "GAME_MODULES",
    "Bot",
    "EngineError",
    "Event",
    "Game",
    "IllegalActionError",
    "LogLine",
    "NotationError",
    "Outcome",
    "Seat",
    "get_game",
]
