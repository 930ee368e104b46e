"""Riiing! on the device (``rules/riiing.md``): the wake-up race (RI-2.3), slap windows
(RI-6), false slaps (RI-6.5), narration, the hand strip and the table's condition zones."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from device.games.base import GamePlugin, OptionChoice, S
from engine.core import Event, Seat


class RiiingPlugin(GamePlugin):
    """Riiing! for the console; see :class:`device.games.base.GamePlugin`."""

    name = "riiing"
    title = "Riiing!"
    wakeup_race = True
    has_slaps = True
    lobby_options = (
        OptionChoice("hand_size", "Cards each", (7, 5, 6, 8, 9, 10), "RI-2.1"),
        OptionChoice("slap_timeout_s", "Slap time (s)", (8, 5, 10, 15), "RI-6.4"),
        OptionChoice("false_slap_penalty", "Early slap costs", (1, 2, 0), "RI-6.5"),
    )

    def window_open(self, pos: Any) -> bool:
        """RI-6.2: a reverse shows on top of the draw pile (the position's ``window``)."""
        return self.engine.view(pos, None).window is not None

    def window_ns(self, pos: Any) -> int:
        """RI-6.4: the position's ``slap_timeout_s`` option, in ns."""
        return int(pos.options.slap_timeout_s) * S

    def narrate(self, events: Sequence[Event]) -> str | None:
        """See :meth:`GamePlugin.narrate`."""
        from device.narrate import narrate

        return narrate(self.name, events)

    def hand(self, seat: Seat) -> Any:
        """See :meth:`GamePlugin.hand`."""
        from device.handheld import HandUI

        return HandUI(seat, self.name)
