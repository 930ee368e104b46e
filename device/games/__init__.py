"""The games the device plays, as plugins (``device.games.base.GamePlugin``).

``PLUGINS`` maps the engine's game name to the plugin, in the lobby's order;
:func:`get_plugin` looks one up.  Adding a game is a new folder here and one line below.
"""

from __future__ import annotations

from device.games.base import GamePlugin, OptionChoice
from device.games.right_on_time import RightOnTimePlugin
from device.games.riiing import RiiingPlugin

PLUGINS: dict[str, GamePlugin] = {p.name: p for p in (RiiingPlugin(), RightOnTimePlugin())}
"""Engine game name -> plugin, in the order the lobby offers them."""


def get_plugin(name: str) -> GamePlugin:
    """The plugin of game ``name``; raises ``ValueError`` naming the known games."""
    try:
        return PLUGINS[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r} (known: {', '.join(PLUGINS)})") from None


__all__ = ["PLUGINS", "GamePlugin", "OptionChoice", "get_plugin"]
