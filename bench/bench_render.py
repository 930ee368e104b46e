"""Table-scene frame times on the SDL dummy video driver, beside a fill-and-flip baseline.

Measured in one run, per frame (median of ``FRAMES``):

- baseline: ``screen.fill`` + ``pygame.display.flip()`` of the 1920x1080 display, the least
  any full-screen renderer does per frame;
- full redraw: :meth:`TableScene.invalidate` + ``draw`` + ``flip`` (every zone painted, the
  first frame of a screen or after a size change);
- incremental: one countdown step of an open RIIING! window (only the countdown strip is
  repainted) + ``display.update(rects)``;
- both again on a 960x540 subsurface (the simulator's scaled table, smooth-scaled zones).

Numbers are printed, never asserted (``docs/architecture.md``, benchmarks).
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable

import pygame

from device.common.phase import Phase
from device.games import get_plugin
from device.render.model import SeatBadge, TableModel
from device.render.table import TableScene
from engine.riiing.view import RiiingView

FRAMES = 40
S = 1_000_000_000


def _median_ms(frame: Callable[[int], object], frames: int = FRAMES) -> float:
    """Median wall time of ``frame(i)`` for i in 0..frames-1, in ms."""
    times = []
    for i in range(frames):
        t0 = time.perf_counter_ns()
        frame(i)
        times.append(time.perf_counter_ns() - t0)
    return statistics.median(times) / 1e6


def _model() -> TableModel:
    """A 4-seat Riiing! table with an open window and a far deadline."""
    view = RiiingView(
        seats=4, seat=None, hand=(), hand_counts=(7, 5, 6, 3), draw_count=42,
        discard_count=12, condition="*C", last_card="6T/<", to_move=2, demand=None,
        phones=0, window="C", winner=None, legal=(),
    )
    seats = tuple(SeatBadge(i, f"Seat {i + 1}") for i in range(4))
    game = get_plugin("riiing")
    return TableModel(game, Phase.PLAY, view, seats, "RIIING!", deadline_ns=1_000 * S)


def run() -> list[str]:
    """Measure and return the printed lines (ms per frame and ratio to the baseline)."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    owned = not pygame.display.get_init()
    pygame.display.init()
    pygame.font.init()
    try:
        screen = pygame.display.set_mode((1920, 1080))
        model = _model()
        scene = TableScene()
        scene.set_model(model, 0)
        scene.draw(screen, 0)
        start = 3 * S  # flash and pulse have settled; only the countdown moves

        def baseline(i: int) -> None:
            screen.fill((i % 2, 0, 0))
            pygame.display.flip()

        def full(i: int) -> None:
            scene.invalidate()
            scene.draw(screen, start)
            pygame.display.flip()

        def tick(i: int) -> None:
            rects = scene.draw(screen, start + (i + 1) * 100_000_000)
            pygame.display.update(rects)

        base = _median_ms(baseline)
        full_ms = _median_ms(full)
        scene.draw(screen, start)
        tick_ms = _median_ms(tick)

        small = screen.subsurface(pygame.Rect(0, 0, 960, 540))
        scaled = TableScene()
        scaled.set_model(model, 0)
        scaled.draw(small, start)

        def full_small(i: int) -> None:
            scaled.invalidate()
            scaled.draw(small, start)
            pygame.display.flip()

        def tick_small(i: int) -> None:
            rects = scaled.draw(small, start + (i + 1) * 100_000_000)
            pygame.display.update(rects)

        full_small_ms = _median_ms(full_small)
        scaled.draw(small, start)
        tick_small_ms = _median_ms(tick_small)
    finally:
        if owned:
            pygame.display.quit()

    def line(what: str, ms: float) -> str:
        return f"{what}: {ms:.2f} ms/frame ({ms / base:.1f}x baseline)"

    return [
        f"baseline fill + flip 1920x1080: {base:.2f} ms/frame (SDL dummy driver)",
        line("full redraw 1920x1080", full_ms),
        line("incremental countdown step 1920x1080", tick_ms),
        line("full redraw scaled to 960x540", full_small_ms),
        line("incremental countdown step scaled to 960x540", tick_small_ms),
    ]


if __name__ == "__main__":
    for text in run():
        print(text)
