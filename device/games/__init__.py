"""The games the device plays, as plugins (``device.games.base.GamePlugin``).

``PLUGINS`` maps the engine's game name to the plugin, in the lobby's order;
:func:`get_plugin` looks one up.  Adding a game is a new folder here and one line below.

This is the one place the games' types are erased: each plugin is a
``GamePlugin[Position, Action, View]`` of its own engine's types, and the game-free device
code (the flow, the session, the console, the renderers) holds whichever game the lobby
chose as an :data:`AnyPlugin`, handing the plugin back the positions, actions and views it
got from it.

May import: device.common, device.render, device.hands.
"""

from __future__ import annotations

from typing import Any, TypeAlias

from device.games.base import GamePlugin, OptionChoice
from device.games.right_on_time import RightOnTimePlugin
from device.games.riiing import RiiingPlugin

AnyPlugin: TypeAlias = GamePlugin[Any, Any, Any]
"""A plugin of any game: its position, action and view types erased."""

PLUGINS: dict[str, AnyPlugin] = {p.name: p for p in (RiiingPlugin(), RightOnTimePlugin())}
"""Engine game name -> plugin, in the order the lobby offers them."""


def get_plugin(name: str) -> AnyPlugin:
    """The plugin of game ``name``; raises ``ValueError`` naming the known games."""
    try:
        return PLUGINS[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r} (known: {', '.join(PLUGINS)})") from None


__all__ = ["PLUGINS", "AnyPlugin", "GamePlugin", "OptionChoice", "get_plugin"]
