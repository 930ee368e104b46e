"""Animation timing for the table display: pure functions of CLOCK_MONOTONIC ns.

``docs/screens.md``: motion means "look here" — a reverse flashes, a laid card slides, the
turn marker pulses for 2 s — and when every animation has ended no frames are drawn.  These
values never read a clock: the scene passes ``now_ns`` (CLOCK_MONOTONIC ns) in.  Each one
quantises time into frames, so a renderer can compare "what frame is this" and redraw only
when it changes, and says when its next frame is due (``None`` once it has settled).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

FRAME_NS = 16_666_667
"""One frame at 60 Hz, ns: the step of continuous motion (the slide)."""

FLASH_NS = 1_200_000_000
"""How long a new reverse flashes, ns."""
FLASH_PERIOD_NS = 150_000_000
"""One flash half-period (on or off), ns."""
SLIDE_NS = 360_000_000
"""How long a laid card slides onto the pile, ns."""
PULSE_NS = 2_000_000_000
"""How long the turn marker pulses after the turn changes, ns (docs/screens.md: two seconds)."""
PULSE_FRAME_NS = 33_333_333
"""One pulse frame (30 Hz), ns."""
PULSE_PERIOD_NS = 500_000_000
"""One pulse beat, ns."""
COUNTDOWN_STEP_NS = 100_000_000
"""A countdown bar moves in steps of this many ns."""


@dataclass(frozen=True, slots=True)
class Timeline:
    """A finite animation from ``start_ns`` lasting ``duration_ns``, in frames of ``frame_ns``.

    All times CLOCK_MONOTONIC ns.  Frame 0 starts at ``start_ns``; a time before the start
    counts as frame 0.  From ``start_ns + duration_ns`` on the animation has settled.
    """

    start_ns: int
    duration_ns: int
    frame_ns: int

    @property
    def end_ns(self) -> int:
        """When the animation settles (CLOCK_MONOTONIC ns)."""
        return self.start_ns + self.duration_ns

    def frame(self, now_ns: int) -> int | None:
        """The frame index at ``now_ns``, or ``None`` once settled."""
        if now_ns >= self.end_ns:
            return None
        return max(0, now_ns - self.start_ns) // self.frame_ns

    def progress(self, now_ns: int) -> float:
        """Fraction done at the start of the current frame: 0.0 .. 1.0 (1.0 once settled)."""
        f = self.frame(now_ns)
        if f is None or self.duration_ns <= 0:
            return 1.0
        return min(1.0, f * self.frame_ns / self.duration_ns)

    def next_ns(self, now_ns: int) -> int | None:
        """When the next frame is due (the settling time for the last one); ``None`` once
        settled."""
        f = self.frame(now_ns)
        if f is None:
            return None
        return min(self.start_ns + (f + 1) * self.frame_ns, self.end_ns)


def flash(start_ns: int) -> Timeline:
    """The flash of a reverse appearing: frames alternate on (even) / off (odd)."""
    return Timeline(start_ns, FLASH_NS, FLASH_PERIOD_NS)


def slide(start_ns: int) -> Timeline:
    """A laid card sliding onto the pile, 60 Hz frames."""
    return Timeline(start_ns, SLIDE_NS, FRAME_NS)


def pulse(start_ns: int) -> Timeline:
    """The turn marker's pulse after the turn changes, 30 Hz frames."""
    return Timeline(start_ns, PULSE_NS, PULSE_FRAME_NS)


def ease_out(t: float) -> float:
    """Cubic ease-out of ``t`` in 0..1: fast start, gentle landing."""
    t = min(1.0, max(0.0, t))
    return 1.0 - (1.0 - t) ** 3


def pulse_level(frame: int) -> float:
    """Brightness/thickness level 0.0 .. 1.0 of pulse frame ``frame`` (a beat per 0.5 s)."""
    t = frame * PULSE_FRAME_NS / PULSE_PERIOD_NS
    return 0.5 + 0.5 * math.cos(2.0 * math.pi * t)


@dataclass(frozen=True, slots=True)
class Countdown:
    """A countdown to ``deadline_ns`` (CLOCK_MONOTONIC ns) in steps of ``step_ns``."""

    deadline_ns: int
    step_ns: int = COUNTDOWN_STEP_NS

    def steps_left(self, now_ns: int) -> int:
        """Whole or started steps until the deadline; 0 once it has passed."""
        remaining = self.deadline_ns - now_ns
        return 0 if remaining <= 0 else -(-remaining // self.step_ns)

    def seconds_left(self, now_ns: int) -> int:
        """Whole or started seconds until the deadline (what the big number shows)."""
        remaining = self.deadline_ns - now_ns
        return 0 if remaining <= 0 else -(-remaining // 1_000_000_000)

    def next_ns(self, now_ns: int) -> int | None:
        """When the shown step changes next; ``None`` once the deadline has passed."""
        left = self.steps_left(now_ns)
        if left == 0:
            return None
        return self.deadline_ns - (left - 1) * self.step_ns
