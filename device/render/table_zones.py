"""The table display's zones built from a model: :class:`TableZoneBuilder`.

``docs/screens.md`` (table display).  :class:`~device.render.table.TableScene` keeps the
model, the animations and the drawing; once a frame it asks a :class:`TableZoneBuilder`
for every zone's logical rect (:mod:`device.render.layout`) and spec
(:mod:`device.render.zones`): the top strip, the seat badges, the lobby, the wake-up race,
the game's centre zones in play (from the model's plugin, ``TableModel.game``), the
banner over a round's end and the game-over result.  :func:`card_spec` is the top card
with the slide of a new top card onto the pile.

The builder keeps no state between frames and reads no clock: the model, the time
(CLOCK_MONOTONIC ns) and the running turn pulse are passed in; the slide, flash, countdown
and seat names come from the scene through its :class:`~device.render.face.SceneTools`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

from device.common.notices import banner_turn
from device.common.phase import Phase
from device.common.words import seat_name
from device.render import anim
from device.render.layout import (
    BANNER,
    CARD,
    CENTRE,
    LOBBY,
    LOBBY_BANNER,
    ROUND,
    TOP,
    WAKE,
    WAKE_COUNT,
    seat_zones,
)
from device.render.model import LobbyModel, RoundEnd, SeatBadge, TableModel
from device.render.palette import ALERT, INK, TEXT, TEXT_DIM, YELLOW, Colour, seat_colour
from device.render.zones import (
    BannerSpec,
    CardFace,
    CardSpec,
    Chip,
    LobbySpec,
    ResultSpec,
    RoundSpec,
    SeatSpec,
    SlapRow,
    TopSpec,
    WakeSpec,
)

if TYPE_CHECKING:
    import pygame

    from device.render.cards import CardPainter
    from device.render.face import PublicView, SceneTools, Zones

NEW_GAME_HINT = "Press SELECT on any handheld for a new game"
"""The game-over screen's way on: SELECT (or BACK) on a handheld returns to the lobby."""

SLIDE_DISTANCE = 460
"""How far (logical px) a laid card travels onto the pile."""

Slide: TypeAlias = tuple[anim.Timeline, str, str | None, str]
"""A laid card's slide onto the pile: (its timeline, the card's code, the card it covers or
``None``, where it comes from: ``"left"``, ``"right"`` or ``"below"``)."""

Pulse: TypeAlias = tuple[int, anim.Timeline]
"""A new turn's pulse: (the seat to move, its timeline)."""

_CHIP_GREY: Colour = (92, 98, 112)


def public_view(model: TableModel | None) -> PublicView | None:
    """The model's view as its game reads it, or ``None`` (no view, or not the game's)."""
    if model is None or model.view is None:
        return None
    return model.game.public(model.view)


def turn_seat(model: TableModel | None) -> int | None:
    """The seat whose turn marker shows, or ``None`` (also while a round's end shows: the
    next round waits)."""
    view = public_view(model)
    if model is None or model.phase != Phase.PLAY or view is None:
        return None
    if model.round_end is not None:
        return None
    return view.to_move


def slap_window(model: TableModel | None) -> str | None:
    """The slap window open in play (the game's :meth:`GamePlugin.window`), or ``None``
    (also for a view that is not the game's)."""
    view = public_view(model)
    if model is None or model.phase != Phase.PLAY or view is None:
        return None
    return model.game.window(view)


def card_spec(
    face: CardFace | None, slide: Slide | None, top: str | None, now_ns: int, caption: str
) -> CardSpec:
    """The top card zone's spec for card ``top`` at ``now_ns`` (CLOCK_MONOTONIC ns) with
    ``caption`` under it: while ``slide`` moves ``top`` onto the pile, offset toward where
    it comes from by up to :data:`SLIDE_DISTANCE` px (eased out).  ``face`` paints the
    game's card faces; ``None`` (no model yet) paints blank cards."""
    painter = face if face is not None else _no_face
    if slide is not None:
        timeline, code, under, source = slide
        if code == top and timeline.frame(now_ns) is not None:
            left = 1.0 - anim.ease_out(timeline.progress(now_ns))
            d = round(SLIDE_DISTANCE * left)
            offset = {"left": (-d, 0), "right": (d, 0)}.get(source, (0, d))
            return CardSpec(painter, top, under, offset, caption)
    return CardSpec(painter, top, None, (0, 0), caption)


class TableZoneBuilder:
    """Every zone of one table frame from a :class:`TableModel`.

    ``tools``: the scene the zones are built for (:class:`~device.render.face.SceneTools`):
    the game's plugin gets it for its centre zones, status and result lines, and the
    builder reads seat names and the countdown strip from it.  Never raises for odd
    content: whatever cannot be read is shown as "?" or as an "Unknown screen" result.
    """

    def __init__(self, tools: SceneTools) -> None:
        self._tools = tools

    def build(
        self, m: TableModel | None, now_ns: int, pulse: Pulse | None
    ) -> tuple[Zones, tuple[object, ...]]:
        """Every zone's logical rect and spec at ``now_ns`` (CLOCK_MONOTONIC ns), and the
        layout key (phase, game, seat count, round end shown): a changed key means the
        whole frame is repainted.  ``pulse`` is the running turn pulse, if any."""
        if m is None:
            top = TopSpec("partytable", YELLOW, "", "")
            return {"top": (TOP, top)}, ("none",)
        phase = m.phase if m.phase in tuple(Phase) else "other"
        view = public_view(m)
        if phase == Phase.PLAY and view is None:
            phase = "other"
        zones: Zones = {"top": (TOP, self.top_spec(m))}
        if phase == Phase.LOBBY:
            lobby = m.lobby or LobbyModel((), 0, "")
            zones["lobby"] = (LOBBY, LobbySpec(lobby.rows, lobby.cursor, lobby.hint))
            zones["banner"] = (LOBBY_BANNER, BannerSpec(banner_turn(m.banner, now_ns)[0]))
            return zones, (phase,)
        for seat, (rect, inner) in enumerate(seat_zones(len(m.seats))):
            zones[f"seat{seat}"] = (rect, self.seat_spec(m, seat, inner, now_ns, pulse))
        if phase == Phase.WAKEUP:
            count = self._tools.count_spec(now_ns, "seconds to slap")
            steps = count.steps
            tilt = (12 if steps % 2 else -12) if steps else 0
            zones["wake"] = (WAKE, WakeSpec(tilt, m.game.wake_symbol))
            zones["count"] = (WAKE_COUNT, count)
        elif phase == Phase.PLAY and view is not None:
            zones.update(m.game.table_zones(self._tools, view, now_ns))
            if m.round_end is not None:
                zones.pop("count", None)  # the banner covers the countdown strip too
                zones.update(self.round_zones(m.round_end, now_ns))
        elif phase == Phase.GAMEOVER:
            zones["result"] = (CENTRE, self.result_spec(m, view))
        else:
            text = "Starting..." if m.phase == Phase.PLAY else f"Unknown screen {m.phase!r}"
            zones["result"] = (CENTRE, ResultSpec(text, TEXT_DIM, (), None))
        zones["banner"] = (BANNER, BannerSpec(banner_turn(m.banner, now_ns)[0]))
        return zones, (phase, m.game.name, len(m.seats), m.round_end is not None)

    def round_zones(self, end: RoundEnd, now_ns: int) -> Zones:
        """While a round's end shows: the banner over the condition and countdown zones
        (the condition is the next round's), and the card whose lay ended the round as
        the top card when it is known."""
        colour = YELLOW if end.seat is None else seat_colour(end.seat)
        out: Zones = {"cond": (ROUND, RoundSpec(end.headline, end.score, colour))}
        if end.card is not None:
            out["card"] = (CARD, self._tools.card_spec(end.card, now_ns, "THE WINNING LAY"))
        return out

    def top_spec(self, m: TableModel) -> TopSpec:
        """The top strip: the title, the last event, the phase's or game's status words on
        the right and, while a seat is to play and no slap window is open, its turn plate
        (a window suspends the turn, RI-6.2)."""
        title = "partytable" if m.phase == Phase.LOBBY else m.game.table_title
        right = ""
        right_colour = TEXT_DIM
        view = public_view(m)
        if m.phase == Phase.WAKEUP:
            right = "WAKE-UP RACE"
        elif m.phase == Phase.GAMEOVER:
            right = m.game.over_words if view is not None else "GAME OVER"
        elif view is not None:
            right, right_colour = m.game.status(self._tools, view, m.phase == Phase.PLAY)
        turn = turn_seat(m)
        if turn is None or slap_window(m) is not None:  # a window suspends the turn (RI-6.2)
            return TopSpec(title, YELLOW, m.last_event, right, right_colour)
        return TopSpec(title, YELLOW, m.last_event, right, right_colour,
                       f"{self._tools.name(turn)} to play", seat_colour(turn))

    def seat_spec(
        self, m: TableModel, index: int, inner: str, now_ns: int, pulse: Pulse | None
    ) -> SeatSpec:
        """Seat badge ``index`` (``inner``: the side facing the centre): number, name,
        colour, cards in hand, turn marker with ``pulse``'s frame at ``now_ns`` while it
        pulses this seat, chips (winner, slap ms, CPU, empty, unplugged, the game's marks),
        the game's points and dimming."""
        badge = m.seats[index] if index < len(m.seats) else SeatBadge(index, seat_name(index))
        seat = badge.seat
        v = public_view(m)
        colour = seat_colour(seat)
        count = None
        playing = m.phase == Phase.PLAY
        if v is not None and m.phase in (Phase.PLAY, Phase.GAMEOVER) and (
            0 <= seat < len(v.hand_counts)
        ):
            count = v.hand_counts[seat]
        turn = turn_seat(m) == seat
        frame = None
        if turn and pulse is not None and pulse[0] == seat:
            frame = pulse[1].frame(now_ns)
        chips: list[Chip] = []
        winner = v is not None and v.winner == seat
        if winner:
            chips.append(("WINNER", YELLOW, INK))
        if m.slap is not None and m.slap[0] == seat:
            chips.append((f"{m.slap[1]} ms", YELLOW, INK))
        if badge.controller == "computer":
            chips.append(("CPU", _CHIP_GREY, TEXT))
        elif badge.controller == "empty":
            chips.append(("EMPTY", _CHIP_GREY, TEXT))
        if not badge.connected:
            chips.append(("UNPLUGGED", ALERT, INK))
        points: tuple[int, int] | None = None
        dim = False
        if v is not None:
            points, marks, dim = m.game.seat_marks(v, seat, winner, playing)
            chips.extend(marks)
        return SeatSpec(
            str(seat + 1), badge.name, colour, count, turn, frame, inner, points,
            tuple(chips), dim, winner,
        )

    def result_spec(self, m: TableModel, v: PublicView | None) -> ResultSpec:
        """The game-over result: the winner (or "GAME OVER" without one), the model's
        result lines or the game's, the way on (:data:`NEW_GAME_HINT`), the win reason
        and the slap chart."""
        winner = v.winner if v is not None else None
        chart = self.chart(m)
        if winner is None or v is None:
            return ResultSpec("GAME OVER", TEXT, m.results, None, NEW_GAME_HINT,
                              m.win_reason, chart)
        lines = m.results or m.game.result_lines(self._tools, v)
        return ResultSpec(
            f"{self._tools.name(winner)} {m.game.wins_words}", seat_colour(winner), lines,
            hint=NEW_GAME_HINT, reason=m.win_reason, chart=chart,
        )

    def chart(self, m: TableModel) -> tuple[SlapRow, ...]:
        """The game-over chart's rows: every seat in the game with its reaction times (ms)
        in the slap windows, won or not, in order; ``()`` when no window was decided."""
        if not m.reactions:
            return ()
        seats = [b.seat for b in m.seats] or sorted({s for s, _ms in m.reactions})
        return tuple(
            (str(seat + 1), self._tools.name(seat), seat_colour(seat),
             tuple(round(ms) for s, ms in m.reactions if s == seat))
            for seat in seats
        )


def _no_face(cards: CardPainter, code: str, height: int) -> pygame.Surface:
    """A blank card (no model yet, so no game to paint faces)."""
    return cards.blank(height, TEXT_DIM)
