"""The won slap on the TV while a game is played: who slapped, in how many ms, and by how
much over the runner-up (RI-6.3, ``device.slaps.margin``).

:class:`SlapDisplay` is the play phase's slap state (``device.flow.play``): the slap shown
for :data:`SLAP_SHOWN_NS`, its margin, and the :class:`~device.slaps.margin.MarginWatch`
that collects the losers' slaps after the decision.  Presentation only: the winner is the
arbiter's.  Times are ``int`` CLOCK_MONOTONIC ns.
"""

from __future__ import annotations

from collections.abc import Callable

from device.common.words import margin_words, seat_name
from device.reactor.timers import Timer, Timers
from device.slaps.arbiter import SlapDecision
from device.slaps.margin import MarginWatch

MS = 1_000_000
SLAP_SHOWN_NS = 4_000_000_000
"""How long the slap winner's reaction time stays large on the table."""


class SlapDisplay:
    """The last won slap for the TV (see the module docstring).

    ``timers``: the loop's timers; ``on_line(old, new)``: called when a loser's slap after
    the decision changes the slap's top line from ``old`` to ``new`` (the flow replaces its
    top line if it still is ``old``)."""

    def __init__(self, timers: Timers, on_line: Callable[[str, str], None]) -> None:
        self.timers = timers
        self._on_line = on_line
        self.slap_shown: tuple[int, int] | None = None
        """The last won slap for the TV: ``(seat, reaction ms)``."""
        self.slap_margin: tuple[int, int] | None = None
        """With :attr:`slap_shown`: ``(runner-up seat, margin ms)`` when somebody else
        slapped too ("Seat 2 by 12 ms over Seat 4"), else ``None``; a loser's slap up to
        1 s after the decision still counts (:attr:`margin`)."""
        self.margin = MarginWatch(timers, self._margin_changed)
        """Collects the losers' slaps after a decision (``device.slaps.margin``)."""
        self._slap_timer: Timer | None = None

    def won(self, decision: SlapDecision, now_ns: int) -> None:
        """Show ``decision``'s winner and reaction (whole ms) for :data:`SLAP_SHOWN_NS`
        from ``now_ns``, with the runner-up the arbiter counted (if any)."""
        self.slap_shown = (decision.seat, round(decision.reaction_ns / MS))
        self.slap_margin = self.margin.decided(decision, now_ns)
        if self._slap_timer is not None:  # an earlier slap's time must not clear this
            self._slap_timer.cancel()
        self._slap_timer = self.timers.call_at(
            now_ns + SLAP_SHOWN_NS, self._clear_slap, "slap shown")

    def loser(self, seat: int, t_ns: int, now_ns: int) -> None:
        """A losing press of ``seat`` at ``t_ns`` (``Verdict.LOSING``): a runner-up after
        the decision changes the margin and the line."""
        if self.margin.press(seat, t_ns, now_ns):
            self._margin_changed(now_ns)

    def line(self) -> str:
        """The TV's top line for the slap shown: ``"Seat 2 slapped in 212 ms"``, with
        ``", by 12 ms over Seat 4"`` when there is a runner-up (``""``: no slap shown); the
        margin in :func:`device.common.words.margin_words`, as the result box says it (RI-6.3)."""
        if self.slap_shown is None:
            return ""
        seat, ms = self.slap_shown
        margin = self.slap_margin
        return f"{seat_name(seat)} slapped in {ms} ms" + (
            f", {margin_words(margin[1])} over {seat_name(margin[0])}" if margin is not None
            else "")

    def reset(self) -> None:
        """No slap shown and no loser watched (a new game, the lobby)."""
        self.margin.stop()
        self.slap_shown = self.slap_margin = None

    def _margin_changed(self, now_ns: int) -> None:
        """A loser arrived after the decision (:attr:`margin`): the TV's margin, and its
        top line while that is still the slap's (a caption or a newer event stays)."""
        if self.slap_shown is None:
            return
        old = self.line()
        self.slap_margin = self.margin.shown
        self._on_line(old, self.line())

    def _clear_slap(self, now_ns: int) -> None:
        self._slap_timer = None
        self.reset()
