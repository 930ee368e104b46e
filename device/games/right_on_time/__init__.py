"""Right on Time on the device (``rules/right-on-time.md``): rounds and points, the lay
composer on the hand screen and the table's top-card zones.  No slap windows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from device.games.base import GamePlugin, OptionChoice
from engine.core import Event, Seat

ROUND_PAUSE = 3
"""Computer-move delays to wait after a round ends (RT-2.4), so the table can read who won
it before the next round is dealt."""


class RightOnTimePlugin(GamePlugin):
    """Right on Time for the console; see :class:`device.games.base.GamePlugin`."""

    name = "right-on-time"
    title = "Right on Time"
    lobby_options = (
        OptionChoice("target_points", "Points to win", (3, 1, 2, 4, 5), "RT-7.1"),
        # RT-8 "less influence of the first person", each part on its own
        OptionChoice("li_du_bist_left", "Last Du bist! goes left", (False, True), "RT-8.1"),
        OptionChoice("li_joker_seven", "Last Joker counts 7", (False, True), "RT-8.2"),
        OptionChoice("li_higher_on_top", "Last pair: higher on top", (False, True), "RT-8.3"),
    )

    def pause_after(self, events: Sequence[Event]) -> int:
        """After the action that ends a round (RT-2.4): :data:`ROUND_PAUSE` delays."""
        return ROUND_PAUSE if any(e.kind == "round" for e in events) else 1

    def narrate(self, events: Sequence[Event]) -> str | None:
        """See :meth:`GamePlugin.narrate`."""
        from device.narrate import narrate

        return narrate(self.name, events)

    def results(self, pos: Any) -> tuple[str, ...]:
        """The match's rounds and every seat's points (RT-7.1)."""
        view = self.engine.view(pos, None)
        points = "  ".join(f"S{i + 1}: {p}" for i, p in enumerate(view.scores))
        return (f"Rounds: {view.round}   Points: {points}",)

    def summary(self, pos: Any) -> dict[str, Any]:
        """``rounds`` and ``scores`` of the match for ``summary.json``."""
        view = self.engine.view(pos, None)
        return {"rounds": int(view.round), "scores": list(view.scores)}

    def hand(self, seat: Seat) -> Any:
        """See :meth:`GamePlugin.hand`."""
        from device.handheld import HandUI

        return HandUI(seat, self.name)
