"""Attract mode, a TV that teaches: when the lobby has been idle for
a minute, computer players play a demo game on the TV and the top strip carries a caption
of the rule being applied, so a passer-by learns the game by watching ("LOWER than 3: play
a card below 3", "Du bist!: Seat 2 goes next"); any key or slap returns to the lobby.

:class:`AttractMode` is the part the game flow holds (as it holds the slap race): the
lobby's idle timer, whether a demo is playing, the demo game's session (its own seeds, no
journal, never on the leaderboard), which key ends it and the caption of each action.
The flow runs the demo game itself with the same code as a party's game.

The words are the game's (:meth:`device.games.base.GamePlugin.caption`, read from the
table's public view only, so a demo never shows a hidden card); :func:`caption` asks the
plugin and never fails.

Times are ``int`` CLOCK_MONOTONIC ns.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from device.reactor.timers import Timer, Timers
from device.store.session import GameSession
from engine.core import Event

if TYPE_CHECKING:
    from device.flow.lobby import LobbyChoices
    from device.games import AnyPlugin
    from device.games.base import A, GamePlugin, P, V

log = logging.getLogger("partytable")

S = 1_000_000_000
ATTRACT_NS = 60 * S
"""How long the lobby waits untouched before computer players play a demo game on the TV."""
DEMO_HINT = "DEMO: press any key or slap to play"
"""The TV's banner while the demo game plays."""
DEMO_SEED_STEP = 1000
"""Demo game ``n`` deals with the party's next seed plus ``n`` times this, so a demo never
deals the game the party plays next and the party's seed is not moved on."""


def caption(plugin: GamePlugin[P, A, V], events: Sequence[Event], pos: P) -> str:
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


class AttractMode:
    """The lobby's idle timer and the demo game (see the module docstring).

    ``timers``: the loop's timers; ``start(now_ns)``: called when the lobby has been idle
    for ``idle_ns`` (default :data:`ATTRACT_NS`): the flow starts a demo game there
    (:meth:`session`) and sets :attr:`on`."""

    def __init__(self, timers: Timers, start: Callable[[int], None],
                 idle_ns: int = ATTRACT_NS) -> None:
        self._timers = timers
        self._start = start
        self.idle_ns = idle_ns
        self.on = False
        """A demo game is playing (computer players only, captioned, not journaled)."""
        self.games = 0
        """How many demo games were dealt since the start (each has its own seed)."""
        self._idle: Timer | None = None

    def arm(self, now_ns: int) -> None:
        """The lobby shows or was touched at ``now_ns``: the demo starts ``idle_ns`` later
        unless the lobby is touched again (:meth:`disarm` or another :meth:`arm`)."""
        self.disarm()
        self._idle = self._timers.call_at(now_ns + self.idle_ns, self._start, "attract")

    def disarm(self) -> None:
        """The lobby is left (a game, the How to play pages): no demo starts.  Idempotent."""
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None

    def session(self, plugin: GamePlugin[P, A, V], choices: LobbyChoices, game_seed: int
                ) -> GameSession[P, A, V]:
        """The next demo game: ``plugin``'s game with the lobby's seat count and options,
        every seat a computer player, seed ``game_seed + n * DEMO_SEED_STEP`` for the
        ``n``-th demo, and no game database (not journaled, never on the leaderboard)."""
        self.games += 1
        return GameSession(plugin, ("computer",) * len(choices.kinds),
                           game_seed + DEMO_SEED_STEP * self.games, choices.game_options(),
                           first=choices.first)

    @staticmethod
    def first_seat(plugin: AnyPlugin, choices: LobbyChoices) -> int:
        """Who opens the demo game: the lobby's first seat (RT-2.3), or seat 0 where the
        game runs a wake-up race (RI-2.3: nobody at the table slaps in a demo)."""
        return 0 if plugin.wakeup_race else choices.first

    def ends(self, by_a_person: bool) -> bool:
        """Whether an input ends the demo: any key or slap of somebody at the table
        (``by_a_person``), never a computer player's own slap in the demo game."""
        return self.on and by_a_person

    def line(self, plugin: GamePlugin[P, A, V], events: Sequence[Event], pos: P,
             line: str | None) -> str:
        """The TV's top line after an action: during a demo the rule it applied
        (:func:`caption`) when the plugin has one, else ``line`` (the narration; ``None``
        or ``""``: none, and ``""`` is returned)."""
        if self.on:
            return caption(plugin, events, pos) or line or ""
        return line or ""
