"""The game flow's phases (docs/architecture.md "Game flow"): lobby -> wake-up race -> play ->
game over -> lobby; from the lobby, the "How to play" pages and back.

A :class:`Phase` is a ``StrEnum``: ``Phase.PLAY == "play"``, so screens and logs may use
the plain words.
"""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    """Where the console is in the game flow."""

    LOBBY = "lobby"
    """Choosing the game, the seats and the rule options."""
    WAKEUP = "wakeup"
    """The wake-up race (RI-2.3): the first person to slap opens the game."""
    PLAY = "play"
    """A game is being played."""
    GAMEOVER = "gameover"
    """The results stay on the TV until a handheld key (or a timer) returns to the lobby."""
    HOWTO = "howto"
    """A "How to play" page of the lobby's game (``device.flow.howto``); BACK returns."""
