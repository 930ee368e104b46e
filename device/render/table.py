"""The TV's table display: :class:`TableScene`.

``docs/screens.md`` (table display) and ``docs/architecture.md`` (renderers mark dirty,
the loop flips; idle means no frames).  The device loop hands the scene a
:class:`~device.render.model.TableModel` whenever something changes (:meth:`TableScene.
set_model`), asks it to draw (:meth:`TableScene.draw`, which returns the dirty rects to
flip) and sleeps until :meth:`TableScene.next_frame_ns` (``None``: nothing moves, draw
nothing until the next model).  The scene never reads a clock: every time is a
CLOCK_MONOTONIC ns value passed in, so tests are deterministic.

It lays out a 1920x1080 logical frame (zones in :mod:`device.render.layout`), paints it on
a logical canvas zone by zone, and copies changed zones onto the target surface scaled to
fit with 16:9 kept (black letterbox bars).  A zone is repainted only when its spec
(:mod:`device.render.zones`: everything it shows, animation frame included) changed.

The scene knows no game: the model's plugin (``TableModel.game``, a
``device.games.GamePlugin``) gives the centre zones in play, the titles, the seat badges'
game marks, the card faces and symbols; the scene draws the frame, the seat ring, the
lobby, the wake-up race and game over, and runs the animations (the plugin's specs read
the slide, flash and countdown through :meth:`TableScene.card_spec`,
:meth:`TableScene.flash_frame` and :meth:`TableScene.count_spec`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygame

from device.notices import banner_turn
from device.phase import Phase
from device.render import anim
from device.render.cards import CardPainter
from device.render.layout import (
    BANNER,
    CARD,
    CENTRE,
    LOBBY,
    LOBBY_BANNER,
    LOGICAL_SIZE,
    ROUND,
    TOP,
    WAKE,
    WAKE_COUNT,
    Letterbox,
    seat_zones,
)
from device.render.model import LobbyModel, RoundEnd, SeatBadge, TableModel
from device.render.palette import (
    ALERT,
    BACKGROUND,
    BLACK,
    INK,
    TEXT,
    TEXT_DIM,
    YELLOW,
    Colour,
    seat_colour,
)
from device.render.text import Typesetter
from device.render.zones import (
    BannerSpec,
    CardSpec,
    Chip,
    CountSpec,
    LobbySpec,
    Paint,
    ResultSpec,
    RoundSpec,
    SeatSpec,
    SlapRow,
    TopSpec,
    WakeSpec,
    ZoneSpec,
)
from device.words import seat_name

if TYPE_CHECKING:
    from device.render.face import PublicView, Zones

NEW_GAME_HINT = "Press SELECT on any handheld for a new game"
"""The game-over screen's way on: SELECT (or BACK) on a handheld returns to the lobby."""

SLIDE_DISTANCE = 460
"""How far (logical px) a laid card travels onto the pile."""

_CHIP_GREY: Colour = (92, 98, 112)


def _public(model: TableModel | None) -> PublicView | None:
    """The model's view as its game reads it, or ``None`` (no view, or not the game's)."""
    if model is None or model.view is None:
        return None
    return model.game.public(model.view)


def _turn(model: TableModel | None) -> int | None:
    """The seat whose turn marker shows, or ``None`` (also while a round's end shows: the
    next round waits)."""
    view = _public(model)
    if model is None or model.phase != Phase.PLAY or view is None:
        return None
    if model.round_end is not None:
        return None
    return view.to_move


def _window(model: TableModel | None) -> str | None:
    """The slap window open in play (the game's :meth:`GamePlugin.window`), or ``None``
    (also for a view that is not the game's)."""
    view = _public(model)
    if model is None or model.phase != Phase.PLAY or view is None:
        return None
    return model.game.window(view)


class TableScene:
    """The table display (TV) for any game, from a :class:`TableModel`.

    ``size``: the logical frame size in px; the layout is defined at (1920, 1080) and
    :meth:`draw` scales it to any surface, so this must be (1920, 1080) (``ValueError``
    otherwise).  ``motion``: False starts no animations (flash, slide, pulse), so every
    frame shows the settled picture at once (headless PNGs); countdowns still count.
    Needs ``pygame.font`` (initialised here if needed); no display is needed to draw onto
    plain surfaces.
    """

    def __init__(self, size: tuple[int, int] = LOGICAL_SIZE, *, motion: bool = True) -> None:
        if tuple(size) != LOGICAL_SIZE:
            raise ValueError(
                f"TableScene lays out a {LOGICAL_SIZE[0]}x{LOGICAL_SIZE[1]} logical frame, "
                f"got size {size[0]}x{size[1]}: pass the default and let draw() scale"
            )
        self._size = LOGICAL_SIZE
        self._motion = motion
        self._canvas = pygame.Surface(LOGICAL_SIZE, 0, 32)
        self._text = Typesetter()
        self._paint = Paint(self._canvas, self._text, CardPainter(self._text))
        self._model: TableModel | None = None
        self._flash: anim.Timeline | None = None
        self._slide: tuple[anim.Timeline, str, str | None, str] | None = None
        self._pulse: tuple[int, anim.Timeline] | None = None
        self._count_total = 1
        self._drawn: dict[str, ZoneSpec] = {}
        self._box: Letterbox | None = None
        self._layout: tuple[object, ...] | None = None
        self._moved: pygame.Rect | None = None

    # ------------------------------------------------------------------ model and motion

    def set_model(self, model: TableModel, now_ns: int) -> None:
        """Show ``model`` from ``now_ns`` (CLOCK_MONOTONIC ns) on; compared with the previous
        model it starts animations: a reverse appearing flashes, a new top card slides onto
        the pile, a new turn pulses for 2 s, a new deadline starts a countdown.

        Never raises for odd content: whatever cannot be read is drawn as "?".
        """
        old = self._model
        game = model.game
        same_game = old is not None and old.game is game
        view = game.public(model.view) if model.view is not None else None
        old_view = _public(old) if same_game else None
        top = game.top_card(view) if view is not None else None
        old_top = game.top_card(old_view) if old_view is not None else None
        if (
            model.phase == Phase.PLAY
            and old_view is not None
            and view is not None
            and old is not None
            and old.phase == Phase.PLAY
            and top is not None
            and top != old_top
        ):
            self._slide = (anim.slide(now_ns), top, old_top, self._slide_source(old_view, view))
        window = _window(model) if view is not None else None
        if window is not None:
            old_window = game.window(old_view) if old_view is not None else None
            phase_changed = old is None or old.phase != model.phase
            if phase_changed or old_window != window or old_top != top:
                self._flash = anim.flash(now_ns)
        else:
            self._flash = None
        turn = _turn(model)
        if turn is None:
            self._pulse = None
        elif turn != _turn(old):
            self._pulse = (turn, anim.pulse(now_ns))
        if not self._motion:
            self._slide = self._flash = self._pulse = None
        if model.deadline_ns is not None and (old is None or old.deadline_ns != model.deadline_ns):
            self._count_total = max(1, anim.Countdown(model.deadline_ns).steps_left(now_ns))
        self._model = model

    def _slide_source(self, old: PublicView | None, new: PublicView | None) -> str:
        """Where a new top card slides in from: the side of the seat whose hand shrank most
        (``"left"``/``"right"``), else from the draw pile (``"below"``)."""
        if old is None or new is None:
            return "below"
        drops = [
            (before - after, seat)
            for seat, (before, after) in enumerate(
                zip(old.hand_counts, new.hand_counts, strict=False)
            )
            if after < before
        ]
        if not drops:
            return "below"
        seat = max(drops)[1]
        zones = seat_zones(len(self._model.seats) if self._model else new.seats)
        if seat >= len(zones):
            return "below"
        return "left" if zones[seat][1] == "right" else "right"

    def _countdown(self, now_ns: int) -> anim.Countdown | None:
        """The countdown shown now (open RIIING! window or wake-up race), if any."""
        m = self._model
        if m is None or m.deadline_ns is None:
            return None
        if m.phase == Phase.WAKEUP or (_public(m) is not None and _window(m) is not None):
            return anim.Countdown(m.deadline_ns)
        return None

    def next_frame_ns(self, now_ns: int) -> int | None:
        """When the next animation frame is due (CLOCK_MONOTONIC ns), or ``None`` when the
        picture is still: then no frame needs drawing until the next :meth:`set_model`."""
        m = self._model
        if m is None:
            return None
        due: list[int | None] = []
        if self._flash is not None:
            due.append(self._flash.next_ns(now_ns))
        if self._slide is not None and m.phase == Phase.PLAY:
            due.append(self._slide[0].next_ns(now_ns))
        if self._pulse is not None and _turn(m) == self._pulse[0]:
            due.append(self._pulse[1].next_ns(now_ns))
        countdown = self._countdown(now_ns)
        if countdown is not None:
            due.append(countdown.next_ns(now_ns))
        due.append(banner_turn(m.banner, now_ns)[1])  # several notices take turns
        times = [t for t in due if t is not None]
        return min(times) if times else None

    # ------------------------------------------------------------------ drawing

    def invalidate(self) -> None:
        """Forget what the target surface shows: the next :meth:`draw` redraws it all (use
        when something else drew over it)."""
        self._box = None

    def draw(self, surface: pygame.Surface, now_ns: int) -> list[pygame.Rect]:
        """Draw the scene at ``now_ns`` onto ``surface`` (any size; 16:9 kept, black bars).

        Returns the rects of ``surface`` that changed (``surface`` coordinates): the whole
        surface on the first call, after a size change, a layout change (phase, game, seat
        count) or :meth:`invalidate`; otherwise the zones whose content changed plus, while
        a laid card slides, the areas it left and now covers; ``[]`` when nothing changed.
        """
        box = Letterbox.fit(surface.get_size())
        if box.content.width <= 0 or box.content.height <= 0:
            return []
        zones, layout = self._zones(now_ns)
        moving = self._moving(zones)
        frame = self._canvas.get_rect()
        # Scaled targets: smoothscale of separate rects bleeds the sliding card's edge into
        # the pixel next to a rect; when the slide ends, one full repaint leaves no trace.
        slide_ended = self._moved is not None and moving is None and box.content.size != self._size
        if box != self._box or layout != self._layout or slide_ended:
            self._canvas.fill(BACKGROUND)
            self._drawn = {}
            for name, (rect, spec) in zones.items():
                self._paint_zone(rect, spec)
                self._drawn[name] = spec
            self._paint_moving(moving)
            surface.fill(BLACK)
            if box.content.size == self._size:
                surface.blit(self._canvas, box.content)
            else:
                scaled = pygame.transform.smoothscale(self._canvas, box.content.size)
                surface.blit(scaled, box.content)
            self._box, self._layout = box, layout
            self._moved = moving[0] if moving else None
            return [surface.get_rect()]
        stale = self._moved
        if stale is not None:  # where the sliding card was: background until zones repaint
            self._canvas.fill(BACKGROUND, stale)
        changed: list[pygame.Rect] = []
        for name, (rect, spec) in zones.items():
            if self._drawn.get(name) == spec and (stale is None or not rect.colliderect(stale)):
                continue
            self._paint_zone(rect, spec)
            self._drawn[name] = spec
            changed.append(rect)
        self._paint_moving(moving)
        self._moved = moving[0] if moving else None
        changed += [r for r in (stale, self._moved) if r is not None]
        dirty: list[pygame.Rect] = []
        for rect in changed:
            rect = rect.clip(frame)
            target = box.map_rect(rect)
            if target.width <= 0 or target.height <= 0:
                continue
            if target.size == rect.size:
                surface.blit(self._canvas, target, rect)
            else:
                part = pygame.transform.smoothscale(self._canvas.subsurface(rect), target.size)
                surface.blit(part, target)
            dirty.append(target)
        return dirty

    def _moving(self, zones: Zones) -> tuple[pygame.Rect, CardSpec, pygame.Rect] | None:
        """The sliding card now: (the logical area it covers, clipped to the frame, its
        spec, its zone rect), or ``None`` when no card slides."""
        entry = zones.get("card")
        if entry is None:
            return None
        rect, spec = entry
        if not isinstance(spec, CardSpec):
            return None
        area = spec.moving_rect(rect)
        if area is None:
            return None
        area = area.clip(self._canvas.get_rect())
        return (area, spec, rect) if area.width > 0 and area.height > 0 else None

    def _paint_moving(self, moving: tuple[pygame.Rect, CardSpec, pygame.Rect] | None) -> None:
        """Paint the sliding card above every zone (clipped only to the frame)."""
        if moving is not None:
            _area, spec, rect = moving
            spec.paint_moving(self._paint, rect)

    def _paint_zone(self, rect: pygame.Rect, spec: ZoneSpec) -> None:
        """Fill ``rect`` of the canvas with the background and paint ``spec`` clipped to it."""
        canvas = self._canvas
        canvas.set_clip(rect)
        canvas.fill(BACKGROUND, rect)
        spec.paint(self._paint, rect)
        canvas.set_clip(None)

    # ------------------------------------------------------------------ zone specs

    def _zones(self, now_ns: int) -> tuple[Zones, tuple[object, ...]]:
        """Every zone's rect and spec at ``now_ns``, and the layout key (phase, game, seats)."""
        m = self._model
        if m is None:
            top = TopSpec("partytable", YELLOW, "", "")
            return {"top": (TOP, top)}, ("none",)
        phase = m.phase if m.phase in tuple(Phase) else "other"
        view = _public(m)
        if phase == Phase.PLAY and view is None:
            phase = "other"
        self._paint.symbols = m.game.symbols
        zones: Zones = {"top": (TOP, self._top_spec(m))}
        if phase == Phase.LOBBY:
            lobby = m.lobby or LobbyModel((), 0, "")
            zones["lobby"] = (LOBBY, LobbySpec(lobby.rows, lobby.cursor, lobby.hint))
            zones["banner"] = (LOBBY_BANNER, BannerSpec(banner_turn(m.banner, now_ns)[0]))
            return zones, (phase,)
        for seat, (rect, inner) in enumerate(seat_zones(len(m.seats))):
            zones[f"seat{seat}"] = (rect, self._seat_spec(m, seat, inner, now_ns))
        if phase == Phase.WAKEUP:
            countdown = self._countdown(now_ns)
            steps = countdown.steps_left(now_ns) if countdown else 0
            tilt = (12 if steps % 2 else -12) if steps else 0
            zones["wake"] = (WAKE, WakeSpec(tilt, m.game.wake_symbol))
            zones["count"] = (WAKE_COUNT, self.count_spec(now_ns, "seconds to slap"))
        elif phase == Phase.PLAY and view is not None:
            zones.update(m.game.table_zones(self, view, now_ns))
            if m.round_end is not None:
                zones.pop("count", None)  # the banner covers the countdown strip too
                zones.update(self._round_zones(m.round_end, now_ns))
        elif phase == Phase.GAMEOVER:
            zones["result"] = (CENTRE, self._result_spec(m, view))
        else:
            text = "Starting..." if m.phase == Phase.PLAY else f"Unknown screen {m.phase!r}"
            zones["result"] = (CENTRE, ResultSpec(text, TEXT_DIM, (), None))
        zones["banner"] = (BANNER, BannerSpec(banner_turn(m.banner, now_ns)[0]))
        return zones, (phase, m.game.name, len(m.seats), m.round_end is not None)

    def _round_zones(self, end: RoundEnd, now_ns: int) -> Zones:
        """While a round's end shows: the banner over the condition and countdown zones
        (the condition is the next round's), and the card whose lay ended the round as
        the top card when it is known."""
        colour = YELLOW if end.seat is None else seat_colour(end.seat)
        out: Zones = {"cond": (ROUND, RoundSpec(end.headline, end.score, colour))}
        if end.card is not None:
            out["card"] = (CARD, self.card_spec(end.card, now_ns, "THE WINNING LAY"))
        return out

    # ------------------------------------------------------------------ for a game's zones

    @property
    def slap(self) -> tuple[int, int] | None:
        """``(seat, reaction ms)`` of the latest slap winner shown, or ``None``."""
        return self._model.slap if self._model is not None else None

    @property
    def slap_margin(self) -> tuple[int, int] | None:
        """``(runner-up seat, margin ms)`` of the latest slap shown, or ``None``."""
        return self._model.slap_margin if self._model is not None else None

    def name(self, seat: int | None) -> str:
        """Seat ``seat``'s badge name, ``"Seat <n>"`` if it has no badge, ``"?"`` for None."""
        if seat is None:
            return "?"
        m = self._model
        if m is not None:
            for badge in m.seats:
                if badge.seat == seat:
                    return badge.name
        return seat_name(seat)

    def flash_frame(self, now_ns: int) -> int | None:
        """The flash's frame at ``now_ns`` while a new slap window flashes, else ``None``."""
        return self._flash.frame(now_ns) if self._flash is not None else None

    def count_spec(self, now_ns: int, label: str) -> CountSpec:
        """The countdown strip at ``now_ns`` (``label`` beside the seconds): the model's
        deadline while the wake-up race or a slap window runs, else an empty strip."""
        countdown = self._countdown(now_ns)
        if countdown is None:
            return CountSpec(None, 0, 1, "")
        steps = countdown.steps_left(now_ns)
        total = max(self._count_total, steps)
        return CountSpec(countdown.seconds_left(now_ns), steps, total, label)

    def card_spec(self, top: str | None, now_ns: int, caption: str) -> CardSpec:
        """The top card zone's spec for card ``top`` at ``now_ns``, with the slide of a new
        top card onto the pile and ``caption`` under it; faces by the game's plugin."""
        face = self._model.game.card_face if self._model is not None else _no_face
        if self._slide is not None:
            timeline, code, under, source = self._slide
            if code == top and timeline.frame(now_ns) is not None:
                left = 1.0 - anim.ease_out(timeline.progress(now_ns))
                d = round(SLIDE_DISTANCE * left)
                offset = {"left": (-d, 0), "right": (d, 0)}.get(source, (0, d))
                return CardSpec(face, top, under, offset, caption)
        return CardSpec(face, top, None, (0, 0), caption)

    # ------------------------------------------------------------------ core zones

    def _top_spec(self, m: TableModel) -> TopSpec:
        title = "partytable" if m.phase == Phase.LOBBY else m.game.table_title
        right = ""
        right_colour = TEXT_DIM
        view = _public(m)
        if m.phase == Phase.WAKEUP:
            right = "WAKE-UP RACE"
        elif m.phase == Phase.GAMEOVER:
            right = m.game.over_words if view is not None else "GAME OVER"
        elif view is not None:
            right, right_colour = m.game.status(self, view, m.phase == Phase.PLAY)
        turn = _turn(m)
        if turn is None or _window(m) is not None:  # a window suspends the turn (RI-6.2)
            return TopSpec(title, YELLOW, m.last_event, right, right_colour)
        return TopSpec(title, YELLOW, m.last_event, right, right_colour,
                       f"{self.name(turn)} to play", seat_colour(turn))

    def _seat_spec(self, m: TableModel, index: int, inner: str, now_ns: int) -> SeatSpec:
        badge = m.seats[index] if index < len(m.seats) else SeatBadge(index, seat_name(index))
        seat = badge.seat
        v = _public(m)
        colour = seat_colour(seat)
        count = None
        playing = m.phase == Phase.PLAY
        if v is not None and m.phase in (Phase.PLAY, Phase.GAMEOVER) and (
            0 <= seat < len(v.hand_counts)
        ):
            count = v.hand_counts[seat]
        turn = _turn(m) == seat
        pulse = None
        if turn and self._pulse is not None and self._pulse[0] == seat:
            pulse = self._pulse[1].frame(now_ns)
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
            str(seat + 1), badge.name, colour, count, turn, pulse, inner, points, tuple(chips),
            dim, winner,
        )

    def _result_spec(self, m: TableModel, v: PublicView | None) -> ResultSpec:
        winner = v.winner if v is not None else None
        chart = self._chart(m)
        if winner is None or v is None:
            return ResultSpec("GAME OVER", TEXT, m.results, None, NEW_GAME_HINT,
                              m.win_reason, chart)
        lines = m.results or m.game.result_lines(self, v)
        return ResultSpec(
            f"{self.name(winner)} {m.game.wins_words}", seat_colour(winner), lines,
            hint=NEW_GAME_HINT, reason=m.win_reason, chart=chart,
        )

    def _chart(self, m: TableModel) -> tuple[SlapRow, ...]:
        """The game-over chart's rows: every seat in the game with its reaction times (ms)
        in the slap windows, won or not, in order; ``()`` when no window was decided."""
        if not m.reactions:
            return ()
        seats = [b.seat for b in m.seats] or sorted({s for s, _ms in m.reactions})
        return tuple(
            (str(seat + 1), self.name(seat), seat_colour(seat),
             tuple(round(ms) for s, ms in m.reactions if s == seat))
            for seat in seats
        )


def _no_face(cards: CardPainter, code: str, height: int) -> pygame.Surface:
    """A blank card (no model yet, so no game to paint faces)."""
    return cards.blank(height, TEXT_DIM)
