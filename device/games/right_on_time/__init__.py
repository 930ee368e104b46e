"""Right on Time on the device (``docs/rules/right-on-time.md``): rounds and points, the lay
composer on the hand screen and the table's top-card zones.  No slap windows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from device.common.words import seat_name
from device.games.base import GamePlugin, OptionChoice
from device.games.right_on_time import rt_howto, rt_narrate, rt_rounds, rt_table
from device.games.right_on_time.rt_hand import LayComposer
from device.render.model import RoundEnd
from device.render.palette import TEXT_DIM, Colour
from device.render.zones import Chip
from engine.core import Event, Seat
from engine.right_on_time.actions import RotAction
from engine.right_on_time.options import LI_PARTS
from engine.right_on_time.position import RotPosition
from engine.right_on_time.view import RightOnTimeView

if TYPE_CHECKING:
    from device.render.face import SceneTools

ROUND_PAUSE = 3
"""Computer-move delays to wait after a round ends (RT-2.4), so the table can read who won
it before the next round is dealt."""


class RightOnTimePlugin(GamePlugin[RotPosition, RotAction, RightOnTimeView]):
    """Right on Time for the console; see :class:`device.games.base.GamePlugin`.  Its
    narration, table drawing and pages are :mod:`device.games.right_on_time.rt_narrate`,
    :mod:`device.games.right_on_time.rt_table` and
    :data:`device.games.right_on_time.rt_howto.PAGES`.  No slap windows: the base's slap,
    timeout and false slap answers stand (none)."""

    name = "right-on-time"
    title = "Right on Time"
    table_title = "RIGHT ON TIME"
    view_type = RightOnTimeView
    over_words = "MATCH OVER"
    wins_words = "WINS THE MATCH!"
    narration = rt_narrate
    drawing = rt_table
    pages = rt_howto.PAGES
    lobby_options = (
        OptionChoice("target_points", "Points to win", (3, 1, 2, 4, 5), "RT-7.1"),
        # RT-8 "less influence of the first person", each part on its own
        OptionChoice("li_du_bist_left", "Last Du bist! goes left", (False, True), "RT-8.1"),
        OptionChoice("li_joker_seven", "Last Joker counts 7", (False, True), "RT-8.2"),
        OptionChoice("li_higher_on_top", "Last pair: higher on top", (False, True), "RT-8.3"),
    )
    lobby_parts = (("less_influence", LI_PARTS),)  # RT-8: every part not given on its own

    def pause_after(self, events: Sequence[Event]) -> int:
        """After the action that ends a round (RT-2.4): :data:`ROUND_PAUSE` delays."""
        return ROUND_PAUSE if any(e.kind == "round" for e in events) else 1

    def round_end(self, events: Sequence[Event], pos: RotPosition) -> RoundEnd | None:
        """See :meth:`GamePlugin.round_end` (:mod:`device.games.right_on_time.rt_rounds`)."""
        return rt_rounds.round_end(events, self.engine.view(pos, None))

    def cues(self, events: Sequence[Event]) -> tuple[str, ...]:
        """``"lay"`` for a lay (``play``: RT-3, RT-4), ``"draw"`` for a card that went into
        a hand (``draw``: RT-5.1 and a Ziehen! effect's draw, RT-4; a bonus ``swap``,
        RT-6.4; not when the piles were dry), ``"round"`` for a round won (``round``:
        RT-6.2) unless it also won the match (``match``: the flow plays the win); each
        once, in the order they happened."""
        match = any(e.kind == "match" for e in events)
        cues: list[str] = []
        for event in events:
            if event.kind == "play":
                name = "lay"
            elif event.kind == "swap" or (event.kind == "draw" and event.cards):
                name = "draw"
            elif event.kind == "round" and not match:
                name = "round"
            else:
                continue
            if name not in cues:
                cues.append(name)
        return tuple(cues)

    def results(self, pos: RotPosition) -> tuple[str, ...]:
        """The match's rounds and every seat's points (RT-7.1)."""
        view = self.engine.view(pos, None)
        points = "   ".join(f"{seat_name(i)}: {p}" for i, p in enumerate(view.scores))
        return (f"Rounds: {view.round}   Points: {points}",)

    def summary(self, pos: RotPosition) -> dict[str, Any]:
        """``rounds`` and ``scores`` of the match for ``summary.json``."""
        view = self.engine.view(pos, None)
        return {"rounds": int(view.round), "scores": list(view.scores)}

    # ------------------------------------------------------------------ screens
    def hand(self, seat: Seat) -> LayComposer:
        """See :meth:`GamePlugin.hand` (the lay composer,
        :class:`device.games.right_on_time.rt_hand.LayComposer`)."""
        return LayComposer(seat)

    def top_card(self, view: RightOnTimeView) -> str | None:
        """The discard pile's top card (``None`` before the round's opening lay, RT-2.2)."""
        return view.top

    def status(
        self, scene: SceneTools, view: RightOnTimeView, playing: bool
    ) -> tuple[str, Colour]:
        """The round (RT-2.4); the points that win the match (RT-7.1) show on every seat
        badge ("1/3 pts") and the table's turn plate says whose turn it is."""
        return f"Round {view.round}", TEXT_DIM

    def seat_marks(
        self, view: RightOnTimeView, seat: Seat, winner: bool, playing: bool
    ) -> tuple[tuple[int, int] | None, tuple[Chip, ...], bool]:
        """See :func:`device.games.right_on_time.rt_table.seat_marks`."""
        return rt_table.seat_marks(view, seat, winner, playing)

    def result_lines(self, scene: SceneTools, view: RightOnTimeView) -> tuple[str, ...]:
        """Every seat's points (RT-7.1)."""
        return tuple(f"{scene.name(s)}: {p} point{'' if p == 1 else 's'}"
                     for s, p in enumerate(view.scores))
