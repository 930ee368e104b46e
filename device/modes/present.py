"""Presenters: where the console's frames go.

- :class:`TablePresenter` — a Pi (or any single screen): the table scene fills the
  display; every seat's hand screen goes to its own luma device.
- :class:`SimPresenter` — the simulator window: the table scene in the top left, every
  hand screen drawn below as a 2x OLED (white on black, with the seat's label), the key
  map on the right.
- :class:`FrameRecorder` — wraps a presenter and writes PNG frames to a folder after each
  engine action (the headless game).

All of them draw only what changed, flip once, and return the CLOCK_MONOTONIC ns just
after the flip (``drivers.table_display.TableDisplay.update``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pygame

from device.hands.seats import Seat
from device.render.model import TableModel
from device.render.table import TableScene
from drivers.table_display import TableDisplay

log = logging.getLogger("partytable")


class TablePresenter:
    """The table scene on the whole display; each seat's hand screen goes to that seat's
    own handheld (:class:`device.hands.seats.Handheld`).

    ``display``: the opened :class:`TableDisplay`; ``motion``: False starts no animations
    (every frame shows the settled picture: the headless PNGs)."""

    def __init__(self, display: TableDisplay, *, motion: bool = True) -> None:
        self.display = display
        self.scene = TableScene(motion=motion)
        self._model: TableModel | None = None

    def table_surface(self) -> pygame.Surface:
        """The surface the table scene draws on."""
        return self.display.surface

    def draw_hands(self, seats: Sequence[Seat], now_ns: int) -> list[int]:
        """Send each seat's hand screen if it changed; returns the seats redrawn.

        A handheld whose display fails is marked gone by the handheld itself and retried
        later (:meth:`device.hands.seats.Handheld.show`); the other seats and the table are drawn
        as usual, so the game goes on."""
        return [s.index for s in seats if s.handheld.show(s.screen(), now_ns)]

    def present(
        self, model: TableModel, seats: Sequence[Seat], now_ns: int, force: bool
    ) -> int | None:
        """See :class:`device.console.Presenter`."""
        surface = self.table_surface()
        if model.howto is not None:  # a "How to play" page instead of the table
            if model != self._model or force:
                from device.render.howto_page import draw_howto

                shown = model.howto
                draw_howto(surface, model.game, shown.page, number=shown.number,
                           count=shown.count, hint=shown.hint)
                self._model = model
                self.scene.invalidate()  # the table is drawn whole when it comes back
                t_flip: int | None = self.display.flip()
            else:
                t_flip = None
            self.draw_hands(seats, now_ns)
            return t_flip
        if model != self._model:
            self.scene.set_model(model, now_ns)
            self._model = model
        if force:
            self.scene.invalidate()
        rects = self.scene.draw(surface, now_ns)
        t_flip = None
        if force:
            t_flip = self.display.flip()
        elif rects:
            t_flip = self.display.update(rects)
        self.draw_hands(seats, now_ns)  # after the flip: a hand screen never delays the TV
        return t_flip

    def next_frame_ns(self, now_ns: int) -> int | None:
        """The table scene's next animation frame."""
        return self.scene.next_frame_ns(now_ns)


OLED_SCALE = 2
OLED_GAP = 12
LABEL_H = 26


class SimPresenter(TablePresenter):
    """The simulator's one window: table scene, hand screens as OLEDs, key map.

    The window is split: the table scene keeps 16:9 at the top left, a row of 2x OLEDs
    (256x128 each) runs along the bottom, the key map fills the right column."""

    def __init__(self, display: TableDisplay) -> None:
        super().__init__(display)
        self._layout_size: tuple[int, int] | None = None
        self._font: pygame.font.Font | None = None
        self._keymap: tuple[str, ...] = ()
        self._active: int | None = None
        self._hand_count = 0

        self.active_seat: Callable[[], int | None] = lambda: None
        """Which handheld the simulator's arrow keys drive now (set by the keyboard)."""
        self.pictures: dict[int, Callable[[], Any]] = {}
        """Seat -> what its handheld really shows (an emulated serial handheld's own
        framebuffer), drawn instead of the frame the console rendered for it."""

    def _layout(self) -> tuple[pygame.Rect, pygame.Rect, pygame.Rect]:
        w, h = self.display.surface.get_size()
        hands_h = 64 * OLED_SCALE + LABEL_H + OLED_GAP
        table_h = max(90, h - hands_h)
        table_w = min(w, table_h * 16 // 9)
        table_h = table_w * 9 // 16
        table = pygame.Rect(0, 0, table_w, table_h)
        hands = pygame.Rect(0, table_h, w, h - table_h)
        keys = pygame.Rect(table_w, 0, w - table_w, table_h)
        return table, hands, keys

    def table_surface(self) -> pygame.Surface:
        """The table scene's part of the window."""
        table, _, _ = self._layout()
        return self.display.surface.subsurface(table)

    def present(
        self, model: TableModel, seats: Sequence[Seat], now_ns: int, force: bool
    ) -> int | None:
        """Draw the three parts of the window; see :class:`device.console.Presenter`."""
        active = self.active_seat()
        if active != self._active:
            self._active = active
            force = True
        size = self.display.surface.get_size()
        if size != self._layout_size or model.keymap != self._keymap:
            force = True
            self._layout_size = size
            self._keymap = model.keymap
        table, hands_rect, keys = self._layout()
        surface = self.display.surface
        if model.howto is not None:  # a "How to play" page in the table's place
            redraw = force or model != self._model
            if redraw:
                from device.render.howto_page import draw_howto

                shown = model.howto
                draw_howto(self.table_surface(), model.game, shown.page, number=shown.number,
                           count=shown.count, hint=shown.hint)
                self._model = model
                self.scene.invalidate()
            rects = [table] if redraw else []
        else:
            if model != self._model:
                self.scene.set_model(model, now_ns)
                self._model = model
            if force:
                surface.fill((12, 12, 16))
                self.scene.invalidate()
            rects = [r.move(table.topleft)
                     for r in self.scene.draw(self.table_surface(), now_ns)]
        changed = self.draw_hands(seats, now_ns)
        if changed or force or len(seats) != self._hand_count:
            self._hand_count = len(seats)
            rects.append(self._blit_hands(hands_rect, seats))
        if force:
            self._draw_keymap(keys, model.keymap)
            return self.display.flip()
        if rects:
            return self.display.update(rects)
        return None

    def _font_of(self) -> pygame.font.Font:
        if self._font is None:
            self._font = pygame.font.Font(None, 26)
        return self._font

    def _blit_hands(self, area: pygame.Rect, seats: Sequence[Seat]) -> pygame.Rect:
        surface = self.display.surface
        surface.fill((12, 12, 16), area)
        font = self._font_of()
        x = area.x + OLED_GAP
        # 2x OLEDs where they fit, smaller with many seats so all stay inside the window
        scale = min(float(OLED_SCALE), (area.width - OLED_GAP) / max(1, len(seats)) / 128 - 0.1)
        for s in seats:
            device = s.handheld.device
            picture = self.pictures.get(s.index)
            if picture is not None:
                image = picture().convert("RGB")
            else:
                image = device.image.convert("RGB") if hasattr(device, "image") else None
            label = s.name + ("  < keys" if s.index == self._active else "")
            colour = (255, 220, 90) if s.index == self._active else (200, 200, 200)
            surface.blit(font.render(label, True, colour), (x, area.y + 4))
            oled = pygame.Rect(x, area.y + LABEL_H, int(128 * scale), int(64 * scale))
            if image is not None:
                raw = pygame.image.frombytes(image.tobytes(), image.size, "RGB")
                pix = pygame.transform.scale(raw, oled.size)
                # an OLED's lit pixels: tint white to a pale cyan like the real panels
                pix.fill((170, 235, 255), special_flags=pygame.BLEND_MULT)
                surface.blit(pix, oled)
            pygame.draw.rect(surface, colour, oled.inflate(4, 4), 2)
            x += oled.width + round(OLED_GAP * scale / OLED_SCALE)
        return area

    def _draw_keymap(self, area: pygame.Rect, lines: Sequence[str]) -> None:
        if area.width < 40:
            return
        surface = self.display.surface
        surface.fill((24, 24, 32), area)
        font = self._font_of()
        y = area.y + 12
        for line in lines:
            text = font.render(line, True, (230, 230, 230))
            if text.get_width() > area.width - 16:
                text = pygame.transform.smoothscale(
                    text, (area.width - 16, text.get_height() * (area.width - 16)
                           // text.get_width()))
            surface.blit(text, (area.x + 8, y))
            y += text.get_height() + 6


class FrameRecorder:
    """Wraps a presenter; after each engine action, the next frame is written to ``out``
    as ``table-NNNN.png`` and ``hand-S-NNNN.png`` for each hand screen that changed since
    the last write (NNNN = the action count; S = seat from 1).  Animation deadlines are
    not reported, so a headless game never waits for an animation."""

    def __init__(self, inner: TablePresenter, out: Path) -> None:
        self.inner = inner
        self.out = out
        self.frames = 0
        self._pending: int | None = 0
        self._last_hands: list[bytes] = []

    def action(self, count: int) -> None:
        """An engine action was applied (the console's ``on_action``)."""
        self._pending = count

    def present(
        self, model: TableModel, seats: Sequence[Seat], now_ns: int, force: bool
    ) -> int | None:
        """Draw through the wrapped presenter; write PNGs when an action is pending."""
        t = self.inner.present(model, seats, now_ns, force)
        if self._pending is None:
            return t
        n = self._pending
        self._pending = None
        self.out.mkdir(parents=True, exist_ok=True)
        pygame.image.save(self.inner.table_surface(), str(self.out / f"table-{n:04d}.png"))
        self.frames += 1
        for s in seats:
            image = s.handheld.device.image
            data = image.tobytes()
            while s.index >= len(self._last_hands):
                self._last_hands.append(b"")
            if data != self._last_hands[s.index]:
                self._last_hands[s.index] = data
                image.save(self.out / f"hand-{s.index + 1}-{n:04d}.png")
                self.frames += 1
        return t

    def next_frame_ns(self, now_ns: int) -> int | None:
        """Never an animation deadline: headless games do not wait for animations."""
        return None
