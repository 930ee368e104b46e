"""The TV's table display for both games: :class:`TableScene`.

``design/screens.md`` (table display) and ``design/architecture.md`` (renderers mark dirty,
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
"""

from __future__ import annotations

import pygame

from device.render import anim
from device.render.cards import CardPainter, riiing_face, rot_face
from device.render.layout import (
    BANNER,
    CARD,
    CENTRE,
    COND,
    COUNT,
    LOBBY,
    LOBBY_BANNER,
    LOGICAL_SIZE,
    PILE,
    TOP,
    WAKE,
    WAKE_COUNT,
    Letterbox,
    seat_zones,
)
from device.render.model import GameView, LobbyModel, SeatBadge, TableModel
from device.render.palette import (
    ALERT,
    BACKGROUND,
    BLACK,
    HIGHLIGHT,
    INK,
    PAPER,
    SYMBOL_NAMES,
    SYMBOL_SHORT,
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
    CondSpec,
    CountSpec,
    LobbySpec,
    Paint,
    PileSpec,
    ResultSpec,
    SeatSpec,
    TopSpec,
    WakeSpec,
    ZoneSpec,
)
from device.words import seat_name
from engine.right_on_time.view import RightOnTimeView
from engine.riiing.view import RiiingView

Zones = dict[str, tuple[pygame.Rect, ZoneSpec]]
"""Zone name -> (logical rect, spec)."""

NEW_GAME_HINT = "Press SELECT on any handheld for a new game"
"""The game-over screen's way on: SELECT (or BACK) on a handheld returns to the lobby."""

SLIDE_DISTANCE = 460
"""How far (logical px) a laid card travels onto the pile."""

_CHIP_GREY: Colour = (92, 98, 112)
_ORDINALS = ("1st", "2nd", "3rd", "4th", "5th", "6th")


def _top_card(view: GameView | None) -> str | None:
    """The card on top of the discard pile: Riiing!'s last card, Right on Time's top."""
    if isinstance(view, RiiingView):
        return view.last_card
    if isinstance(view, RightOnTimeView):
        return view.top
    return None


def _turn(model: TableModel | None) -> int | None:
    """The seat whose turn marker shows, or ``None``."""
    if model is None or model.phase != "play" or model.view is None:
        return None
    return model.view.to_move


class TableScene:
    """The table display (TV) for Riiing! and Right on Time, from a :class:`TableModel`.

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
        view = model.view
        old_view = old.view if old is not None else None
        top, old_top = _top_card(view), _top_card(old_view)
        same_game = old is not None and old.game == model.game and type(view) is type(old_view)
        if (
            model.phase == "play"
            and same_game
            and old is not None
            and old.phase == "play"
            and top is not None
            and top != old_top
        ):
            self._slide = (anim.slide(now_ns), top, old_top, self._slide_source(old_view, view))
        if isinstance(view, RiiingView) and view.window is not None and model.phase == "play":
            old_window = old_view.window if isinstance(old_view, RiiingView) else None
            phase_changed = old is None or old.phase != model.phase
            if phase_changed or old_window != view.window or old_top != top:
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

    def _slide_source(self, old: GameView | None, new: GameView | None) -> str:
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
        if m.phase == "wakeup" or (
            m.phase == "play" and isinstance(m.view, RiiingView) and m.view.window is not None
        ):
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
        if self._slide is not None and m.phase == "play":
            due.append(self._slide[0].next_ns(now_ns))
        if self._pulse is not None and _turn(m) == self._pulse[0]:
            due.append(self._pulse[1].next_ns(now_ns))
        countdown = self._countdown(now_ns)
        if countdown is not None:
            due.append(countdown.next_ns(now_ns))
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
        phase = m.phase if m.phase in ("lobby", "wakeup", "play", "gameover") else "other"
        if phase == "play" and m.view is None:
            phase = "other"
        zones: Zones = {"top": (TOP, self._top_spec(m))}
        if phase == "lobby":
            lobby = m.lobby or LobbyModel((), 0, "")
            zones["lobby"] = (LOBBY, LobbySpec(lobby.rows, lobby.cursor, lobby.hint))
            zones["banner"] = (LOBBY_BANNER, BannerSpec(m.banner))
            return zones, (phase,)
        for seat, (rect, inner) in enumerate(seat_zones(len(m.seats))):
            zones[f"seat{seat}"] = (rect, self._seat_spec(m, seat, inner, now_ns))
        countdown = self._countdown(now_ns)
        if phase == "wakeup":
            steps = countdown.steps_left(now_ns) if countdown else 0
            tilt = (12 if steps % 2 else -12) if steps else 0
            zones["wake"] = (WAKE, WakeSpec(tilt))
            zones["count"] = (WAKE_COUNT, self._count_spec(countdown, now_ns, "seconds to slap"))
        elif phase == "play" and isinstance(m.view, RiiingView):
            self._riiing_zones(zones, m, m.view, now_ns)
        elif phase == "play" and isinstance(m.view, RightOnTimeView):
            self._rot_zones(zones, m, m.view, now_ns)
        elif phase == "gameover":
            zones["result"] = (CENTRE, self._result_spec(m))
        else:
            text = "Starting..." if m.phase == "play" else f"Unknown screen {m.phase!r}"
            zones["result"] = (CENTRE, ResultSpec(text, TEXT_DIM, (), None))
        zones["banner"] = (BANNER, BannerSpec(m.banner))
        return zones, (phase, m.game, len(m.seats))

    def _name(self, seat: int | None) -> str:
        """Seat ``seat``'s badge name, ``"Seat <n>"`` if it has no badge, ``"?"`` for None."""
        if seat is None:
            return "?"
        m = self._model
        if m is not None:
            for badge in m.seats:
                if badge.seat == seat:
                    return badge.name
        return seat_name(seat)

    def _top_spec(self, m: TableModel) -> TopSpec:
        titles = {"riiing": "RIIING!", "right-on-time": "RIGHT ON TIME"}
        title = "partytable" if m.phase == "lobby" else titles.get(m.game, m.game.upper())
        right = ""
        right_colour = TEXT_DIM
        v = m.view
        if m.phase == "wakeup":
            right = "WAKE-UP RACE"
        elif m.phase == "gameover":
            right = "MATCH OVER" if isinstance(v, RightOnTimeView) else "GAME OVER"
        elif isinstance(v, RightOnTimeView):
            right = f"Round {v.round}  |  {v.target_points} points win"
        elif isinstance(v, RiiingView) and m.phase == "play" and v.window is not None:
            right = "SLAP NOW!"  # the turn waits while a window is open (RI-6.2)
            right_colour = YELLOW
        elif isinstance(v, RiiingView) and m.phase == "play" and v.to_move is not None:
            right = f"{self._name(v.to_move)} to play"
        return TopSpec(title, YELLOW, m.last_event, right, right_colour)

    def _seat_spec(self, m: TableModel, index: int, inner: str, now_ns: int) -> SeatSpec:
        badge = m.seats[index] if index < len(m.seats) else SeatBadge(index, seat_name(index))
        seat = badge.seat
        v = m.view
        colour = seat_colour(seat)
        count = None
        if v is not None and m.phase in ("play", "gameover") and 0 <= seat < len(v.hand_counts):
            count = v.hand_counts[seat]
        turn = _turn(m) == seat
        pulse = None
        if turn and self._pulse is not None and self._pulse[0] == seat:
            pulse = self._pulse[1].frame(now_ns)
        chips: list[Chip] = []
        if turn:
            chips.append(("TURN", HIGHLIGHT, INK))
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
        points = None
        dim = False
        if isinstance(v, RightOnTimeView):
            if 0 <= seat < len(v.scores):
                points = (v.scores[seat], v.target_points)
            if seat in v.out and not winner:
                place = v.out.index(seat)
                chips.append((f"OUT {_ORDINALS[min(place, 5)]}", TEXT_DIM, INK))
                dim = m.phase == "play"
            if 0 <= seat < len(v.shown) and v.shown[seat]:
                chips.append(("shows " + " ".join(v.shown[seat]), PAPER, INK))
            if 0 <= seat < len(v.bonus_counts) and v.bonus_counts[seat]:
                chips.append((f"+{v.bonus_counts[seat]} bonus", _CHIP_GREY, TEXT))
        return SeatSpec(
            str(seat + 1), badge.name, colour, count, turn, pulse, inner, points, tuple(chips),
            dim, winner,
        )

    def _count_spec(self, countdown: anim.Countdown | None, now_ns: int, label: str) -> CountSpec:
        if countdown is None:
            return CountSpec(None, 0, 1, "")
        steps = countdown.steps_left(now_ns)
        total = max(self._count_total, steps)
        return CountSpec(countdown.seconds_left(now_ns), steps, total, label)

    def _card_spec(self, game: str, top: str | None, now_ns: int, caption: str) -> CardSpec:
        if self._slide is not None:
            timeline, code, under, source = self._slide
            if code == top and timeline.frame(now_ns) is not None:
                left = 1.0 - anim.ease_out(timeline.progress(now_ns))
                d = round(SLIDE_DISTANCE * left)
                offset = {"left": (-d, 0), "right": (d, 0)}.get(source, (0, d))
                return CardSpec(game, top, under, offset, caption)
        return CardSpec(game, top, None, (0, 0), caption)

    def _riiing_zones(self, zones: Zones, m: TableModel, v: RiiingView, now_ns: int) -> None:
        zones["card"] = (CARD, self._card_spec("riiing", v.last_card, now_ns, "LAST CARD"))
        countdown = self._countdown(now_ns)
        mover = self._name(v.to_move)
        if v.window is not None:
            frame = self._flash.frame(now_ns) if self._flash is not None else None
            name = SYMBOL_NAMES.get(v.window, v.window)
            cond = CondSpec(
                "window", "RIIING!  SLAP!", sub=name,
                symbol=v.window if v.window in SYMBOL_NAMES else None,
                flash_on=frame is not None and frame % 2 == 0,
            )
            zones["cond"] = (COND, cond)
            zones["count"] = (COUNT, self._count_spec(countdown, now_ns, "seconds to slap"))
        else:
            zones["cond"] = (COND, riiing_condition(v))
            zones["count"] = (COUNT, CountSpec(None, 0, 1, ""))
        if m.slap is not None:
            seat, ms = m.slap
            pile = PileSpec(
                v.draw_count, f"{self._name(seat)}  {ms} ms", "fastest slap!", None, "star",
                seat_colour(seat),
            )
        elif v.window is not None:
            name = SYMBOL_SHORT.get(v.window, v.window)
            pile = PileSpec(
                v.draw_count, "RIIING!", f"first slap drops every {name}", v.window
                if v.window in SYMBOL_NAMES else None, None, YELLOW,
            )
        elif v.demand is not None:
            short = SYMBOL_SHORT.get(v.demand, v.demand)
            pile = PileSpec(
                v.draw_count, f"{mover}: {short}!", f"play {short} or draw",
                v.demand if v.demand in SYMBOL_NAMES else None, None, YELLOW,
            )
        elif v.phones > 0:
            pile = PileSpec(
                v.draw_count, f"{mover}: PHONE x{v.phones}",
                f"play a PHONE to pass it on, or take {v.phones}", "P", None, YELLOW,
            )
        else:
            pile = PileSpec(v.draw_count)
        zones["pile"] = (PILE, pile)

    def _rot_zones(self, zones: Zones, m: TableModel, v: RightOnTimeView, now_ns: int) -> None:
        zones["card"] = (CARD, self._card_spec("right-on-time", v.top, now_ns, "TOP CARD"))
        zones["cond"] = (COND, rot_value(v, self._name(v.to_move)))
        zones["count"] = (COUNT, CountSpec(None, 0, 1, ""))
        if v.out:
            names = "   ".join(f"{i + 1}. {self._name(s)}" for i, s in enumerate(v.out))
            sub = "next seat out wins the round" if len(v.out) == 1 else ""
            pile = PileSpec(v.draw_count, f"OUT: {names}", sub)
        else:
            pile = PileSpec(v.draw_count)
        zones["pile"] = (PILE, pile)

    def _result_spec(self, m: TableModel) -> ResultSpec:
        v = m.view
        winner = v.winner if v is not None else None
        if winner is None:
            return ResultSpec("GAME OVER", TEXT, m.results, None, NEW_GAME_HINT)
        what = "WINS THE MATCH!" if isinstance(v, RightOnTimeView) else "WINS!"
        lines = m.results
        if not lines and isinstance(v, RightOnTimeView):
            lines = tuple(f"{self._name(s)}: {p} points" for s, p in enumerate(v.scores))
        return ResultSpec(
            f"{self._name(winner)} {what}", seat_colour(winner), lines, hint=NEW_GAME_HINT
        )


def riiing_condition(v: RiiingView) -> CondSpec:
    """The condition zone's spec for Riiing! view ``v`` outside a window (RI-3).

    Words name the condition against the last card ("HIGHER than 6"); a condition made
    open by a last card with no number (RI-3.4) or an empty draw pile (RI-3.5) says so.  A
    pending demand or phone chain decides the move instead (RI-5.3, RI-5.4), so it takes
    the zone ("TOAST!", "PHONE x2") and the condition is named as on hold.
    """
    base = _condition(v)
    if v.demand is not None:
        name = SYMBOL_NAMES.get(v.demand, v.demand)
        symbol = v.demand if v.demand in SYMBOL_NAMES else None
        glyph = None if symbol else "open"
        return CondSpec("condition", f"{name}!", f"{_flat(base.headline)} on hold", glyph, symbol)
    if v.phones > 0:
        return CondSpec(
            "condition", f"PHONE x{v.phones}", f"{_flat(base.headline)} on hold", None, "P"
        )
    return base


def _flat(text: str) -> str:
    return " ".join(text.split())


def _condition(v: RiiingView) -> CondSpec:
    """The condition in force (RI-3.1) as a spec, ignoring demands and phone chains."""
    last = riiing_face(v.last_card)
    n = last.number
    cond = v.condition
    open_sub = "last card has no number: any number"
    if cond is None:
        return CondSpec("condition", "OPEN: any card", "the draw pile is empty", "open")
    if cond in (">", "<", "="):
        word = {">": "HIGHER", "<": "LOWER", "=": "SAME NUMBER"}[cond]
        glyph = {">": "up", "<": "down", "=": "equal"}[cond]
        if n is None:
            return CondSpec("condition", f"{word}: open", open_sub, glyph)
        joint = " than " if cond != "=" else " "
        return CondSpec("condition", f"{word}{joint}{n}", "", glyph)
    if cond == "~":
        sym = last.symbol
        if sym is None or sym == "P":
            return CondSpec("condition", "SAME SYMBOL: open", "last card is a Phone", "open")
        return CondSpec("condition", "SAME SYMBOL", SYMBOL_NAMES[sym], None, sym)
    if cond == "E":
        return CondSpec("condition", "EVEN", "2  4  6  8", "even")
    if cond == "O":
        return CondSpec("condition", "ODD", "1  3  5  7  9", "odd")
    if cond.startswith("{") and cond.endswith("}"):
        parts = [p.strip() for p in cond[1:-1].split(",")]
        if parts and all(p.isdigit() and len(p) == 1 for p in parts):
            digits = tuple(int(p) for p in parts)
            return CondSpec("condition", "ONE OF " + " ".join(parts), "", digits=digits[:4])
    if cond.startswith("*") and len(cond) == 2:
        sym = cond[1]
        symbol = sym if sym in SYMBOL_NAMES else None
        return CondSpec("condition", "RIIING!", SYMBOL_NAMES.get(sym, sym), "star", symbol)
    return CondSpec("condition", cond, "unknown condition", "open", dim=True)


def rot_value(v: RightOnTimeView, opener: str) -> CondSpec:
    """The value zone's spec for Right on Time view ``v`` (RT-1.3, RT-2.2, RT-3).

    The top card's value huge, its name ("Joker as 5", "NULL = 0", "Du bist! 3",
    "Ziehen! 5") and what beats it; "Opening lay: any card" before the round's first lay.
    """
    if v.top is None:
        return CondSpec("value", "Opening lay:\nany card", f"{opener} opens round {v.round}",
                        glyph="open")
    face = rot_face(v.top)
    value = v.top_value if v.top_value is not None else face.value
    shown = "?" if value is None else str(value)
    names = {
        "number": "TOP VALUE",
        "joker": f"Joker as {shown}",
        "null": "NULL = 0",
        "dubist": f"Du bist! {shown}",
        "ziehen": f"Ziehen! {shown}",
    }
    headline = names.get(face.kind, v.top)
    if value is None:
        hint = ""
    elif value <= 0:
        hint = "any single card beats it (no pairs)"
    elif value >= 7:
        hint = "only a pair up to 7, or NULL"
    else:
        hint = f"one card above {value}, or two up to {value}"
    return CondSpec("value", headline, hint, big=shown)
