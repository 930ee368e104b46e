"""The round-end hold: a round's end stays on the TV before anybody plays on (RT-2.4,
``Timing.round_ns`` in ``device.flow.game_flow``).

The engine deals the next round at once; :class:`RoundHold` keeps the round that ended and
the position it ended from, so the TV and the hand screens show that position, not the
next deal, while the round's end shows.  Presentation only: the position, the journal and
every seeded draw are the same.
"""

from __future__ import annotations

from device.render.model import RoundEnd


class RoundHold:
    """The round held on the TV, or none (see the module docstring)."""

    def __init__(self) -> None:
        self.round_end: RoundEnd | None = None
        """The round that just ended, on the TV while play waits (``Timing.round_ns``)."""
        self._round_pos: object = None  # the position the held round ended from (TV, hands)

    def hold(self, ended: RoundEnd, pos: object) -> None:
        """Hold ``ended``, a round that ended from engine position ``pos``."""
        self.round_end = ended
        self._round_pos = pos

    def release(self) -> None:
        """No round held: play goes on (the position the hold showed is kept until the
        next hold, never shown without one)."""
        self.round_end = None

    def shown_pos(self, pos: object) -> object:
        """The position the TV and the hand screens show while ``pos`` is played: the one
        the held round ended from while a round is held, else ``pos``."""
        if self.round_end is not None and self._round_pos is not None:
            return self._round_pos
        return pos
