"""Attract mode's words: the one-line caption of the rule a demo game is applying.

Issue 10 scope 5: when the lobby has been idle for a minute, computer players play a demo
game on the TV (the game flow runs it) and the top strip carries a caption of the rule
being applied, so a passer-by learns the game by watching ("LOWER than 3: play a card
below 3", "Du bist!: Seat 2 goes next").  The words are the game's
(:meth:`device.games.base.GamePlugin.caption`, read from the table's public view only, so
a demo never shows a hidden card); this module asks the plugin and never fails.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.core import Event

if TYPE_CHECKING:
    from device.games.base import GamePlugin

log = logging.getLogger("partytable")


def caption(plugin: GamePlugin, events: Sequence[Event], pos: Any) -> str:
    """The caption for the top strip after an action of the demo game.

    ``plugin``: the demo's game; ``events``: what the action did (the engine's ``apply``
    events, in order; ``()`` right after the deal); ``pos``: the engine position after it.
    The plugin reads the table's public view of ``pos`` (``engine.view(pos, None)``).
    Returns ``""`` when the plugin has no caption for it, or when ``pos`` cannot be read
    or the plugin fails: then one log line names the game and the error.  Never raises.
    """
    try:
        view = plugin.engine.view(pos, None)
        text = plugin.caption(tuple(events), view)
    except Exception as exc:  # a demo's caption must never stop the demo
        log.warning("demo caption for %s failed: %s: %s", plugin.title, type(exc).__name__, exc)
        return ""
    return text if isinstance(text, str) else ""
