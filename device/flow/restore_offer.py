"""The restore offer: after a power cut or a crash the unfinished game is
restored at its exact position (``device.store.session.GameSession.resume``) and *offered*, not
forced on the party: "Restored: SLAP = go on, BACK = lobby (5 s)" on the TV, counting the
seconds down, then it goes on by itself.

:class:`RestoreOffer` is the part the game flow holds: whether a restored game is held,
the TV's notice with the whole seconds left (redrawn by a loop timer at each whole second,
docs/architecture.md "Data flow": nothing polls), the moment the time is up, and what the console
was started with (the command line's lobby choices and seed), which come back when the
party declines.  The flow does the game's side (going on, ending the declined game).

Times are ``int`` CLOCK_MONOTONIC ns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from device.common.notices import Notices
from device.reactor.timers import Timer, Timers

if TYPE_CHECKING:
    from device.flow.lobby import LobbyChoices

S = 1_000_000_000
RESUMED = "Restored: SLAP = go on, BACK = lobby"
"""The TV's notice while the restored game waits, followed by the whole seconds left until
it goes on by itself: ``"... (5 s)"``, ``"(4 s)"`` and so on."""


class RestoreOffer:
    """A restored game waiting for the party (see the module docstring).

    ``timers``: the loop's timers; ``notices``: the TV's banner, where the offer stands
    first; ``time_up(now_ns)``: called when the wait is over and nobody answered (the
    flow goes on with the game)."""

    def __init__(self, timers: Timers, notices: Notices,
                 time_up: Callable[[int], None]) -> None:
        self._timers = timers
        self._notices = notices
        self._time_up = time_up
        self.held = False
        """A restored game waits for a slap, a key or the time."""
        self.text = ""
        """The notice on the TV now (``"Restored: ... (4 s)"``), or ``""``."""
        self._until_ns = 0
        self._asked: tuple[LobbyChoices, int] | None = None
        self._pending: list[Timer] = []

    def offer(self, now_ns: int, wait_ns: int, asked: tuple[LobbyChoices, int]) -> None:
        """Hold the restored game from ``now_ns`` for ``wait_ns`` (> 0): the notice shows
        the seconds left, ``time_up`` is called at the end.  ``asked``: the lobby choices
        and game seed the console was started with (:meth:`end` gives them back)."""
        self.end()
        self.held = True
        self._asked = asked
        self._until_ns = now_ns + wait_ns
        self._tick(now_ns)
        self._pending.append(self._timers.call_at(self._until_ns, self._up,
                                                  "restored game goes on"))

    def end(self) -> tuple[LobbyChoices, int] | None:
        """The offer is answered (or the game left): the notice goes, the timers stop.
        Returns what the console was started with while a game was held, else ``None``.
        Idempotent."""
        asked = self._asked if self.held else None
        self.held = False
        self._asked = None
        for timer in self._pending:
            timer.cancel()
        self._pending.clear()
        self._notices.drop(self.text)
        self.text = ""
        return asked

    def _tick(self, now_ns: int) -> None:
        """Show the whole seconds left at ``now_ns`` (rounded up: 4.2 s left shows 5) and
        wake again at the next whole second."""
        if not self.held:
            return
        left = max(1, -(-(self._until_ns - now_ns) // S))
        text = f"{RESUMED} ({left} s)"
        if text != self.text:
            self._notices.drop(self.text)
            self.text = text
            self._notices.show(text, first=True)
        if left > 1:
            self._pending.append(self._timers.call_at(self._until_ns - (left - 1) * S,
                                                      self._tick, "restore countdown"))

    def _up(self, now_ns: int) -> None:
        if self.held:
            self._time_up(now_ns)
