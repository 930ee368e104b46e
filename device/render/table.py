"""The TV's table display: :class:`TableScene`.

``docs/screens.md`` (table display) and ``docs/architecture.md`` (renderers mark dirty,
the loop flips; idle means no frames).  The device loop hands the scene a
:class:`~device.render.model.TableModel` whenever something changes (:meth:`TableScene.
set_model`), asks it to draw (:meth:`TableScene.draw`, which returns the dirty rects to
flip) and sleeps until :meth:`TableScene.next_frame_ns` (``None``: nothing moves, draw
nothing until the next model).  The scene never reads a clock: every time is a
CLOCK_MONOTONIC ns value passed in, so tests are deterministic.

It lays out a 1920x1080 logical frame (zones in :mod:`device.render.layout`, each frame's
zones built from the model by :class:`~device.render.table_zones.TableZoneBuilder`),
paints it on a logical canvas zone by zone, and copies changed zones onto the target
surface scaled to fit with 16:9 kept (black letterbox bars).  A zone is repainted only when its spec
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

from device.common.notices import banner_turn
from device.common.phase import Phase
from device.common.words import seat_name
from device.render import anim
from device.render.cards import CardPainter
from device.render.layout import LOGICAL_SIZE, Letterbox, seat_zones
from device.render.model import TableModel
from device.render.palette import BACKGROUND, BLACK
from device.render.table_zones import (
    Pulse,
    Slide,
    TableZoneBuilder,
    card_spec,
    public_view,
    slap_window,
    turn_seat,
)
from device.render.text import Typesetter
from device.render.zones import CardSpec, CountSpec, Paint, ZoneSpec

if TYPE_CHECKING:
    from device.render.face import PublicView, Zones


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
        self._slide: Slide | None = None
        self._pulse: Pulse | None = None
        self._count_total = 1
        self._drawn: dict[str, ZoneSpec] = {}
        self._box: Letterbox | None = None
        self._layout: tuple[object, ...] | None = None
        self._moved: pygame.Rect | None = None
        self._builder = TableZoneBuilder(self)

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
        old_view = public_view(old) if same_game else None
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
        window = slap_window(model) if view is not None else None
        if window is not None:
            old_window = game.window(old_view) if old_view is not None else None
            phase_changed = old is None or old.phase != model.phase
            if phase_changed or old_window != window or old_top != top:
                self._flash = anim.flash(now_ns)
        else:
            self._flash = None
        turn = turn_seat(model)
        if turn is None:
            self._pulse = None
        elif turn != turn_seat(old):
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
        if m.phase == Phase.WAKEUP or (public_view(m) is not None and slap_window(m) is not None):
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
        if self._pulse is not None and turn_seat(m) == self._pulse[0]:
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
        """Every zone's rect and spec at ``now_ns``, and the layout key (phase, game, seats):
        :meth:`TableZoneBuilder.build` for the model shown, with the game's symbols set on
        the painting context."""
        if self._model is not None:
            self._paint.symbols = self._model.game.symbols
        return self._builder.build(self._model, now_ns, self._pulse)

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
        top card onto the pile and ``caption`` under it; faces by the game's plugin
        (:func:`device.render.table_zones.card_spec`)."""
        face = self._model.game.card_face if self._model is not None else None
        return card_spec(face, self._slide, top, now_ns, caption)
