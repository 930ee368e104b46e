"""The wake-up race of the game flow (``Phase.WAKEUP``, RI-2.3): who got up earliest? The
first person to slap opens the game; nobody within ``Timing.wakeup_ns``: Seat 1 opens.

:class:`WakeupPhase` opens the race on the flow's slap race (``device.slaps.race``) and
starts the game when it is won or times out.  Times are ``int`` CLOCK_MONOTONIC ns.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from device.common.phase import Phase
from device.common.words import seat_name
from device.hands.seats import Seat
from device.slaps.arbiter import SlapDecision

if TYPE_CHECKING:
    from device.flow.parts import FlowParts

log = logging.getLogger("partytable")

WAKEUP_LINE = "Who got up earliest? SLAP your button!"
"""The TV's top line during the wake-up race."""
NOBODY_LINE = "Nobody slapped: Seat 1 starts"
"""The TV's top line when nobody slapped in time."""


class WakeupPhase:
    """The wake-up race (see the module docstring); ``flow``: the flow it belongs to."""

    def __init__(self, flow: FlowParts) -> None:
        self.flow = flow

    def open(self, humans: set[int], now_ns: int) -> None:
        """Open the race for the people at seats ``humans`` (0-based), for
        ``Timing.wakeup_ns`` from the flip that shows it; ties are broken by the game's
        ``"wakeup"`` device RNG."""
        flow = self.flow
        flow.phase = Phase.WAKEUP
        flow.last_event = WAKEUP_LINE
        flow.race.open(now_ns, length_ns=flow.timing.wakeup_ns, eligible=humans,
                       tie_seed=flow.game_session.rng_seed("wakeup"))
        flow.show_hands()

    def won(self, decision: SlapDecision, now_ns: int) -> None:
        """``decision``'s seat slapped first: it opens the game."""
        log.info("wake-up race: %s slapped first", seat_name(decision.seat))
        self.flow.begin_play(decision.seat, now_ns)

    def timeout(self, now_ns: int) -> None:
        """Nobody slapped in time: Seat 1 opens the game."""
        self.flow.last_event = NOBODY_LINE
        self.flow.begin_play(0, now_ns)

    @staticmethod
    def message(seat: Seat) -> str:
        """What ``seat``'s hand screen says during the race."""
        return "SLAP to start!" if seat.is_human else "computer"
