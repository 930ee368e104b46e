"""A Right on Time round's end as the TV shows it (RT-2.4, RT-6.2, RT-7.1): who won which
round, the score, and the card whose lay won it — shown over the next round's table while
the flow holds the round end (``device.flow.game_flow.ROUND_SHOW_NS``)."""

from __future__ import annotations

from collections.abc import Sequence

from device.common.words import seat_name
from device.render.model import RoundEnd
from engine.core import Event
from engine.right_on_time.view import RightOnTimeView


def round_end(events: Sequence[Event], view: RightOnTimeView) -> RoundEnd | None:
    """The round end in ``events`` (an action's events; ``view``: the public view after
    it, already the next round's), or ``None`` when no round ended or the match did (the
    game-over screen says that).  The headline counts rounds from 1 ("Seat 1 wins round
    1"); the score lists every seat's points (RT-7.1)."""
    if any(e.kind == "match" for e in events):
        return None
    won = next((e for e in events if e.kind == "round"), None)
    if won is None or won.seat is None:
        return None
    played = [e for e in events if e.kind == "play" and e.seat == won.seat]
    card = played[-1].cards[-1] if played and played[-1].cards else None
    number = won.value if isinstance(won.value, int) else view.round - 1
    score = "   ".join(f"{seat_name(s)}: {p}" for s, p in enumerate(view.scores))
    return RoundEnd(f"{seat_name(won.seat)} wins round {number}", score, won.seat, card)
