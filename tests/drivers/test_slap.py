"""Slap buttons: edge timestamps, the belief-and-lockout debounce driven the way a bouncing
contact and the kernel's late level read misbehave, guarded callbacks, the fair pin factory,
errors (docs/architecture.md, "Slap arbitration" item 5; docs/hardware-facts.md)."""

from __future__ import annotations

import ast
import dataclasses
import logging
import queue
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from gpiozero import Device  # type: ignore[import-untyped]
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]
from gpiozero.pins.native import NativeFactory  # type: ignore[import-untyped]
from gpiozero.pins.pi import PiPin  # type: ignore[import-untyped]

import drivers
import drivers.pin_factory
from drivers.errors import (
    DeviceUnavailableError,
    DriverClosedError,
    DriverError,
    DriverValueError,
    NotWiredError,
    PinFactoryError,
)
from drivers.gpio import EdgeDebouncer, Transition, edge, fire_edge
from drivers.slap import DEFAULT_LOCKOUT_NS, Press, Release, SlapButtons

MS = 1_000_000
US = 1_000
T = 5_000_000_000  # an arbitrary CLOCK_MONOTONIC time, 5 s after boot
CONFIRM = 1 * MS  # drivers.slap.DEFAULT_CONFIRM_NS: a press is first read then
CHECKED = 2 * CONFIRM  # and posted at the second reading, CONFIRM after the first


def tick(slaps: SlapButtons, now_ns: int, until_ns: int) -> int | None:
    """Run settle() as the device loop does: at ``now_ns``, then at each deadline it returns
    up to ``until_ns``; returns the first deadline past ``until_ns`` (or ``None``)."""
    due = slaps.settle(now_ns)
    while due is not None and due <= until_ns:
        due = slaps.settle(due)
    return due


def spike(pin_factory: Any, pin: int, t_ns: int, width_ns: int, *, reads: bool | None = None
          ) -> None:
    """A glitch: the line dips to the pressed level at ``t_ns`` for ``width_ns``."""
    edge(pin_factory, pin, True, t_ns, reads=reads)
    edge(pin_factory, pin, False, t_ns + width_ns, reads=reads)


def test_press_carries_the_edge_tick(pin_factory: Any, events: list[object]) -> None:
    """A press edge posts Press with the edge's own timestamp, not the time it was handled
    or confirmed (settle() reads the line 1 ms later and 1 ms after that: still pressed)."""
    with SlapButtons({2: 17}, events.append) as slaps:
        edge(pin_factory, 17, True, T + 123)
        assert events == []
        slaps.settle(T + 123 + CONFIRM)
        assert events == []
        slaps.settle(T + 123 + CHECKED)
        assert events == [Press(2, T + 123)]
        assert slaps.seats == (2,)


def test_bounce_burst_gives_one_press_with_first_edge_time(
    pin_factory: Any, events: list[object]
) -> None:
    """A sub-millisecond press bounce burst posts one Press stamped with its FIRST edge."""
    with SlapButtons({0: 17}, events.append) as slaps:
        for i in range(9):  # down, up, down, ... every 100 us: ends down
            edge(pin_factory, 17, i % 2 == 0, T + i * 100 * US)
        tick(slaps, T + 800 * US, T + 100 * MS)
    assert events == [Press(0, T)]


def test_release_bounce_gives_one_release(pin_factory: Any, events: list[object]) -> None:
    """A release followed by a chattering burst posts one Release at the first release edge."""
    with SlapButtons({0: 17}, events.append):
        edge(pin_factory, 17, True, T)
        release = T + 200 * MS
        for i in range(7):  # up, down, up, ... ends up
            edge(pin_factory, 17, i % 2 == 1, release + i * 150 * US)
            if i % 2 == 0:
                edge(pin_factory, 17, False, release + i * 150 * US + 1)
    assert events == [Press(0, T), Release(0, release)]


def test_press_after_lockout_is_a_new_press(pin_factory: Any, events: list[object]) -> None:
    """Press, release and press again, each past the lockout: Press, Release, Press."""
    with SlapButtons({0: 17}, events.append) as slaps:
        edge(pin_factory, 17, True, T)
        edge(pin_factory, 17, False, T + 40 * MS)
        edge(pin_factory, 17, True, T + 80 * MS)
        tick(slaps, T + 80 * MS, T + 200 * MS)
    assert events == [Press(0, T), Release(0, T + 40 * MS), Press(0, T + 80 * MS)]


def test_edge_exactly_at_lockout_end_counts(pin_factory: Any, events: list[object]) -> None:
    """An edge lockout_ns after the accepted edge is outside the lockout; 1 ns earlier is not."""
    with SlapButtons({0: 17, 1: 27}, events.append, lockout_ns=10 * MS):
        edge(pin_factory, 17, True, T)
        edge(pin_factory, 17, False, T + 10 * MS)
        edge(pin_factory, 27, True, T)
        edge(pin_factory, 27, False, T + 10 * MS - 1)
    assert events == [Press(0, T), Release(0, T + 10 * MS), Press(1, T)]


def test_press_after_an_unsettled_tap_posts_the_missed_release_first(
    pin_factory: Any, events: list[object]
) -> None:
    """A tap's release inside the lockout, no settle() yet: the next press edge first posts
    that release (stamped at the lockout's end: 30 ms after that last edge), then itself."""
    with SlapButtons({0: 17}, events.append) as slaps:
        edge(pin_factory, 17, True, T)
        edge(pin_factory, 17, False, T + 10 * MS)  # inside the 30 ms lockout
        edge(pin_factory, 17, True, T + 50 * MS)
        tick(slaps, T + 50 * MS, T + 200 * MS)
    assert events == [Press(0, T), Release(0, T + 40 * MS), Press(0, T + 50 * MS)]


def test_tap_shorter_than_the_lockout_reports_press_then_release(
    pin_factory: Any, events: list[object]
) -> None:
    """A 12 ms tap: Press at its edge now, Release when settle() runs at the lockout's end
    (30 ms after the release edge)."""
    with SlapButtons({0: 17}, events.append) as slaps:
        edge(pin_factory, 17, True, T)
        edge(pin_factory, 17, False, T + 12 * MS)
        assert slaps.settle(T + 41 * MS) == T + 42 * MS
        assert events == [Press(0, T)]
        assert slaps.settle(T + 42 * MS) is None
        assert events == [Press(0, T), Release(0, T + 42 * MS)]
        edge(pin_factory, 17, True, T + 90 * MS)
        tick(slaps, T + 90 * MS, T + 200 * MS)
    assert events == [Press(0, T), Release(0, T + 42 * MS), Press(0, T + 90 * MS)]


def test_wrong_level_first_edge_of_a_press_is_stamped_at_that_edge(
    pin_factory: Any, events: list[object]
) -> None:
    """The kernel read the level late: the press's first event says "released", a bounce
    says it too, only the third says "pressed".  The Press is the FIRST edge, not a bounce."""
    with SlapButtons({0: 17}, events.append) as slaps:
        edge(pin_factory, 17, True, T, reads=False)
        edge(pin_factory, 17, False, T + 50 * US, reads=False)
        edge(pin_factory, 17, True, T + 100 * US, reads=True)
        assert tick(slaps, T + 30 * MS + 100 * US, T + 100 * MS) is None
        assert slaps.is_held(0)
    assert events == [Press(0, T)]


def test_press_whose_only_event_says_released_is_a_press(
    pin_factory: Any, events: list[object]
) -> None:
    """A clean press edge whose event carries "released" still posts Press at its time:
    the check reads the line, not the event."""
    with SlapButtons({3: 22}, events.append) as slaps:
        edge(pin_factory, 22, True, T, reads=False)
        assert slaps.settle(T + CONFIRM) == T + CHECKED
        assert events == []
        assert slaps.settle(T + CHECKED) == T + DEFAULT_LOCKOUT_NS
        assert events == [Press(3, T)]
        assert slaps.settle(T + 40 * MS) is None  # the line is down: nothing to add
    assert events == [Press(3, T)]


def test_release_chatter_on_a_held_button_makes_no_fresh_press(
    pin_factory: Any, events: list[object]
) -> None:
    """Held since T; its release chatters and the first event even says "pressed".  One
    Release at the first edge, and no phantom Press that could win a window."""
    with SlapButtons({0: 17}, events.append) as slaps:
        edge(pin_factory, 17, True, T)
        assert tick(slaps, T + 30 * MS, T + 100 * MS) is None
        release = T + 800 * MS
        edge(pin_factory, 17, False, release, reads=True)
        edge(pin_factory, 17, True, release + 80 * US, reads=True)
        edge(pin_factory, 17, False, release + 160 * US, reads=False)
        edge(pin_factory, 17, True, release + 400 * US, reads=False)
        edge(pin_factory, 17, False, release + 700 * US, reads=True)
        assert slaps.settle(release + 30 * MS + 700 * US) is None
    assert events == [Press(0, T), Release(0, release)]


def test_release_chatter_longer_than_a_lockout_makes_no_fresh_press(
    pin_factory: Any, events: list[object]
) -> None:
    """A worn switch: the release chatters for 35 ms, longer than one 30 ms lockout, and a
    bounce at +29 ms leaves the line down until +35 ms.  The lockout runs on after each
    bounce, so the settle after it finds the line up: one Release, no phantom Press (a
    phantom Press would win a slap window nobody slapped)."""
    with SlapButtons({0: 17}, events.append) as slaps:
        edge(pin_factory, 17, True, T)
        assert tick(slaps, T + 30 * MS, T + 100 * MS) is None
        release = T + 800 * MS
        edge(pin_factory, 17, False, release)
        edge(pin_factory, 17, True, release + 29 * MS)
        assert slaps.settle(release + 31 * MS) == release + 59 * MS  # not over: no reading
        edge(pin_factory, 17, False, release + 35 * MS)
        assert slaps.settle(release + 65 * MS) is None
    assert events == [Press(0, T), Release(0, release)]


def test_bounce_burst_with_random_wrong_levels_is_one_press(
    pin_factory: Any, events: list[object]
) -> None:
    """A 1 ms burst whose events carry seeded random levels: one Press at its first edge."""
    rnd = random.Random(20240607)
    with SlapButtons({0: 17}, events.append) as slaps:
        for i in range(11):  # down, up, down, ... ends down
            edge(pin_factory, 17, i % 2 == 0, T + i * 100 * US, reads=rnd.random() < 0.5)
        assert tick(slaps, T + 31 * MS, T + 100 * MS) is None
    assert events == [Press(0, T)]


def test_release_found_by_settle_ignores_its_late_callback(
    pin_factory: Any, events: list[object]
) -> None:
    """The release at T+31 ms is on the line when settle() reads it at T+32 ms, but its
    callback comes after: one Release, stamped when read, and the late event adds nothing."""
    with SlapButtons({0: 17}, events.append) as slaps:
        edge(pin_factory, 17, True, T)
        tick(slaps, T + CONFIRM, T + CHECKED)
        edge(pin_factory, 17, False, T + 31 * MS, deliver=False)
        assert slaps.settle(T + 32 * MS) is None
        fire_edge(pin_factory, 17, False, T + 31 * MS)
        edge(pin_factory, 17, True, T + 200 * MS)
        tick(slaps, T + 200 * MS, T + 300 * MS)
    assert events == [Press(0, T), Release(0, T + 32 * MS), Press(0, T + 200 * MS)]


def test_press_found_by_settle_is_never_stamped_before_its_edge(
    pin_factory: Any, events: list[object]
) -> None:
    """Released at R; pressed again at R+31 ms with the callback late; settle() reads the
    line at R+33 ms: Press stamped R+33 ms (not the lockout's end, R+30 ms, which would be
    earlier than the real edge and could steal a window), posted once the check's two
    readings 1 ms apart agree, and no phantom pair after."""
    release = T + 500 * MS
    with SlapButtons({1: 27}, events.append) as slaps:
        edge(pin_factory, 27, True, T)
        edge(pin_factory, 27, False, release)
        edge(pin_factory, 27, True, release + 31 * MS, deliver=False)
        assert slaps.settle(release + 33 * MS) == release + 34 * MS
        assert events == [Press(1, T), Release(1, release)]
        fire_edge(pin_factory, 27, True, release + 31 * MS)
        assert slaps.settle(release + 100 * MS) == release + 100 * MS + CONFIRM
        assert events == [Press(1, T), Release(1, release)]
        assert slaps.settle(release + 100 * MS + CONFIRM) is None
    assert events == [Press(1, T), Release(1, release), Press(1, release + 33 * MS)]


# --- glitches: a press counts once confirmed, stamped at its first edge -------------------

def test_a_10_us_spike_is_not_a_slap(pin_factory: Any, events: list[object]) -> None:
    """Static on a metre of wire: the line dips low for 10 us.  At the check, 1 ms after its
    last edge, the line is released again: no Press, and no Release after it."""
    with SlapButtons({0: 17}, events.append) as slaps:
        spike(pin_factory, 17, T, 10 * US)
        assert tick(slaps, T + 10 * US, T + 500 * MS) is None
        assert not slaps.is_held(0)
    assert events == []


@pytest.mark.parametrize("width_us", [5, 50, 500])
def test_spikes_of_5_to_500_us_are_not_slaps(
    pin_factory: Any, events: list[object], width_us: int
) -> None:
    """Ten spikes 3 ms apart, their events carrying seeded random levels (the kernel's
    late read): none is a Press, whether the loop checks at each deadline (seat 0) or only
    once, after them all (seat 1: each spike's check is then decided by the next spike's
    edge, from the edges seen)."""
    rnd = random.Random(width_us)
    with SlapButtons({0: 17}, events.append) as ticked, SlapButtons(
        {1: 27}, events.append
    ) as late:
        for k in range(10):
            t = T + k * 3 * MS
            spike(pin_factory, 17, t, width_us * US, reads=rnd.random() < 0.5)
            spike(pin_factory, 27, t, width_us * US, reads=rnd.random() < 0.5)
            tick(ticked, t + width_us * US, t + 3 * MS - 1)
        assert tick(ticked, T + 40 * MS, T + 500 * MS) is None
        assert tick(late, T + 40 * MS, T + 500 * MS) is None
    assert events == []


def test_a_held_press_is_posted_once_confirmed_and_stamped_at_its_first_edge(
    pin_factory: Any, events: list[object]
) -> None:
    """A clean press at T: nothing before the check's second reading at T + 2 ms (the first
    is at T + 1 ms); then exactly one Press, stamped T (the arbiter decides on it), however
    often the loop ticks after."""
    with SlapButtons({0: 17}, events.append) as slaps:
        edge(pin_factory, 17, True, T)
        assert events == []
        assert slaps.settle(T + CONFIRM - 1) == T + CONFIRM
        assert events == []
        assert slaps.settle(T + CONFIRM) == T + CHECKED
        assert events == []
        assert slaps.settle(T + CHECKED) == T + DEFAULT_LOCKOUT_NS
        assert events == [Press(0, T)]
        assert tick(slaps, T + CHECKED, T + 3_000 * MS) is None
        assert slaps.is_held(0)
    assert events == [Press(0, T)]


def test_a_bouncing_press_is_one_press_stamped_at_its_first_edge(
    pin_factory: Any, events: list[object]
) -> None:
    """A microswitch closing: nine edges 100 us apart ending down, the first event reading
    "released".  The check waits for 1 ms of quiet after the last bounce: one Press at T."""
    with SlapButtons({0: 17}, events.append) as slaps:
        for i in range(9):
            edge(pin_factory, 17, i % 2 == 0, T + i * 100 * US, reads=False if i == 0 else None)
        last = T + 800 * US
        assert slaps.settle(last + CONFIRM - 1) == last + CONFIRM
        assert events == []
        tick(slaps, last + CONFIRM, T + 500 * MS)
    assert events == [Press(0, T)]


def test_a_press_open_at_one_ms_after_its_first_edge_still_counts(
    pin_factory: Any, events: list[object]
) -> None:
    """The contact is open exactly 1 ms after the first edge (a bounce from 0.9 to 1.1 ms):
    the check is 1 ms after the LAST edge, so it reads the closed contact: Press at T."""
    with SlapButtons({0: 17}, events.append) as slaps:
        edge(pin_factory, 17, True, T)
        edge(pin_factory, 17, False, T + 900 * US)
        assert slaps.settle(T + CONFIRM) == T + 900 * US + CONFIRM  # not yet: it bounced
        edge(pin_factory, 17, True, T + 1_100 * US)
        tick(slaps, T + 1_100 * US, T + 500 * MS)
    assert events == [Press(0, T)]


@pytest.mark.parametrize("checked", [True, False], ids=["checked", "loop-late"])
def test_a_spike_then_a_real_press_is_stamped_at_the_press(
    pin_factory: Any, events: list[object], checked: bool
) -> None:
    """A 10 us spike at T, a real press at T + 5 ms: one Press at T + 5 ms, whether the
    loop checked the spike before the press (checked) or not (the press's edge then
    decides the spike from its last edge's level first)."""
    with SlapButtons({0: 17}, events.append) as slaps:
        spike(pin_factory, 17, T, 10 * US)
        if checked:
            # a glitch: nothing posted, the line read once more a lockout after the check
            assert tick(slaps, T, T + 4 * MS) == T + 10 * US + CONFIRM + DEFAULT_LOCKOUT_NS
            assert events == []
        edge(pin_factory, 17, True, T + 5 * MS)
        edge(pin_factory, 17, False, T + 5 * MS + 200 * US)
        edge(pin_factory, 17, True, T + 5 * MS + 400 * US)
        tick(slaps, T + 5 * MS, T + 500 * MS)
    assert events == [Press(0, T + 5 * MS)]


def test_a_spike_just_before_a_press_is_its_first_bounce(
    pin_factory: Any, events: list[object]
) -> None:
    """A 10 us spike 200 us before a real press is, on the line, a contact bounce: one
    Press, stamped at the spike (the limit of any first-edge debounce: at most a check's
    1 ms early, and only when a glitch falls in that millisecond)."""
    with SlapButtons({0: 17}, events.append) as slaps:
        spike(pin_factory, 17, T, 10 * US)
        edge(pin_factory, 17, True, T + 200 * US)
        tick(slaps, T + 200 * US, T + 500 * MS)
    assert events == [Press(0, T)]


def test_a_release_is_posted_at_its_edge_without_a_check(
    pin_factory: Any, events: list[object]
) -> None:
    """Releases are not confirmed: the release edge of a confirmed press posts its Release
    at once, stamped at that edge, and its chatter adds nothing."""
    with SlapButtons({0: 17}, events.append) as slaps:
        edge(pin_factory, 17, True, T)
        tick(slaps, T, T + 100 * MS)
        release = T + 200 * MS
        edge(pin_factory, 17, False, release)
        assert events == [Press(0, T), Release(0, release)]
        edge(pin_factory, 17, True, release + 100 * US)
        edge(pin_factory, 17, False, release + 300 * US)
        assert tick(slaps, release, release + 500 * MS) is None
    assert events == [Press(0, T), Release(0, release)]


def test_a_tap_the_loop_never_checked_is_a_press_then_a_release(
    pin_factory: Any, events: list[object]
) -> None:
    """A 12 ms tap while the loop was busy: the release edge arrives after the press's
    check was due and decides it from the press edge's level (pressed): Press at T; the
    release falls in the press's lockout and settle() posts it at the lockout's end."""
    with SlapButtons({0: 17}, events.append) as slaps:
        edge(pin_factory, 17, True, T)
        edge(pin_factory, 17, False, T + 12 * MS)
        assert events == [Press(0, T)]
        tick(slaps, T + 13 * MS, T + 500 * MS)
    assert events == [Press(0, T), Release(0, T + 42 * MS)]


def test_a_late_check_reads_the_line_and_keeps_the_first_edge_stamp(
    pin_factory: Any, events: list[object]
) -> None:
    """The loop was busy for 50 ms: its first settle() after the press is late, so it
    gives callbacks still on their way 1 ms more, then confirms from two readings of the
    line 1 ms apart (still pressed), stamped at the edge, and closes the lockout in the
    second reading."""
    with SlapButtons({0: 17}, events.append) as slaps:
        edge(pin_factory, 17, True, T)
        assert slaps.settle(T + 50 * MS) == T + 50 * MS + CONFIRM
        assert events == []
        assert slaps.settle(T + 50 * MS + CONFIRM) == T + 50 * MS + CHECKED
        assert events == []
        assert slaps.settle(T + 50 * MS + CHECKED) is None
    assert events == [Press(0, T)]


def test_a_late_first_look_waits_for_the_rest_of_the_burst(
    pin_factory: Any, events: list[object]
) -> None:
    """Callbacks 15 ms late: a 100 us spike's first callback arrives while a second spike
    holds the line down.  The late first look gives the burst 1 ms more, its second
    callback arrives, and the check reads the line released again: no Press."""
    with SlapButtons({0: 17}, events.append) as slaps:
        edge(pin_factory, 17, True, T, deliver=False)
        edge(pin_factory, 17, False, T + 100 * US, deliver=False)
        edge(pin_factory, 17, True, T + 15 * MS, deliver=False)  # the second spike
        fire_edge(pin_factory, 17, True, T)
        assert slaps.settle(T + 15_200 * US) == T + 16_200 * US  # the line reads pressed
        fire_edge(pin_factory, 17, False, T + 100 * US)
        edge(pin_factory, 17, False, T + 15_500 * US, deliver=False)
        tick(slaps, T + 15_300 * US, T + 16_500 * US)
        fire_edge(pin_factory, 17, True, T + 15 * MS)
        fire_edge(pin_factory, 17, False, T + 15_500 * US)
        assert tick(slaps, T + 16_600 * US, T + 500 * MS) is None
    assert events == []


def test_a_glitch_read_at_a_lockout_end_is_not_a_press(
    pin_factory: Any, events: list[object]
) -> None:
    """A release's lockout ends while a spike holds the line down (its callbacks late): the
    press the reading finds must be confirmed too, and 1 ms later the line is released."""
    with SlapButtons({0: 17}, events.append) as slaps:
        edge(pin_factory, 17, True, T)
        tick(slaps, T, T + 100 * MS)
        release = T + 200 * MS
        edge(pin_factory, 17, False, release)
        edge(pin_factory, 17, True, release + 29_900 * US, deliver=False)
        assert slaps.settle(release + 30 * MS) == release + 31 * MS  # reads pressed
        edge(pin_factory, 17, False, release + 30_400 * US, deliver=False)
        fire_edge(pin_factory, 17, True, release + 29_900 * US)
        fire_edge(pin_factory, 17, False, release + 30_400 * US)
        assert tick(slaps, release + 31 * MS, release + 500 * MS) is None
    assert events == [Press(0, T), Release(0, release)]


def test_a_waiting_press_wakes_the_loop_once(pin_factory: Any, events: list[object]) -> None:
    """wake() is called when a press starts waiting (a bouncing press: once), never for a
    release, and again for the next spike; the check then happens in settle()."""
    wakes: list[int] = []
    with SlapButtons({0: 17}, events.append, wake=lambda: wakes.append(len(events))) as slaps:
        for i in range(5):
            edge(pin_factory, 17, i % 2 == 0, T + i * 100 * US)
        assert wakes == [0]
        tick(slaps, T, T + 100 * MS)
        edge(pin_factory, 17, False, T + 200 * MS)
        tick(slaps, T + 200 * MS, T + 300 * MS)
        assert wakes == [0]
        spike(pin_factory, 17, T + 400 * MS, 10 * US)
        assert wakes == [0, 2]
        tick(slaps, T + 400 * MS, T + 500 * MS)
    assert events == [Press(0, T), Release(0, T + 200 * MS)]


def test_a_wake_that_raises_is_logged_and_the_press_still_counts(
    pin_factory: Any, events: list[object], caplog: pytest.LogCaptureFixture
) -> None:
    """A wake() that raises on the callback thread is caught and logged (lgpio's thread
    would die of it); the press is still checked and posted."""

    def wake() -> None:
        raise RuntimeError("queue gone")

    with caplog.at_level(logging.ERROR), SlapButtons(
        {0: 17}, events.append, wake=wake
    ) as slaps:
        edge(pin_factory, 17, True, T)
        tick(slaps, T, T + 100 * MS)
    assert events == [Press(0, T)]
    assert "wake() failed" in caplog.text


def test_confirm_zero_posts_every_first_edge_at_once(
    pin_factory: Any, events: list[object]
) -> None:
    """confirm_ns=0 turns the check off: a spike is a Press at its edge (and a Release at
    its lockout's end), as a line with no glitches could afford."""
    with SlapButtons({0: 17}, events.append, confirm_ns=0) as slaps:
        spike(pin_factory, 17, T, 10 * US)
        assert events == [Press(0, T)]
        tick(slaps, T, T + 100 * MS)
    assert events == [Press(0, T), Release(0, T + 30 * MS + 10 * US)]


@pytest.mark.parametrize("confirm", [-1, 1.5, True, "1ms"])
def test_bad_confirm_time_is_refused(
    pin_factory: Any, events: list[object], confirm: Any
) -> None:
    """confirm_ns must be int nanoseconds >= 0: anything else is one clear line."""
    with pytest.raises(DriverValueError, match="confirm_ns must be an int >= 0 nanoseconds"):
        SlapButtons({0: 17}, events.append, confirm_ns=confirm)


def test_default_confirmation_is_1_ms() -> None:
    """drivers.slap.DEFAULT_CONFIRM_NS: 1 ms of a still, pressed line makes a press."""
    from drivers.slap import DEFAULT_CONFIRM_NS

    assert DEFAULT_CONFIRM_NS == CONFIRM


def test_settle_refuses_a_float_time(pin_factory: Any, events: list[object]) -> None:
    """settle(now_ns) takes int nanoseconds: a float is one clear line."""
    with SlapButtons({0: 17}, events.append) as slaps, pytest.raises(
        DriverValueError, match=r"^slap buttons: now_ns must be an int of nanoseconds, got 1\.5"
    ):
        slaps.settle(1.5)  # type: ignore[arg-type]


def test_a_post_that_raises_is_logged_and_the_next_edge_still_posts(
    pin_factory: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """post() raising on the callback thread is caught (lgpio's thread would die of it)."""
    got: list[object] = []

    def post(event: object) -> None:
        got.append(event)
        if len(got) == 1:
            raise RuntimeError("queue full")

    with caplog.at_level(logging.ERROR, logger="drivers.gpio"), SlapButtons(
        {0: 17}, post
    ) as slaps:
        edge(pin_factory, 17, True, T)
        slaps.settle(T + CONFIRM)  # posts the Press: must not raise
        edge(pin_factory, 17, False, T + 100 * MS)
        edge(pin_factory, 17, True, T + 200 * MS)
        tick(slaps, T + 200 * MS, T + 300 * MS)
    assert got == [Press(0, T), Release(0, T + 100 * MS), Press(0, T + 200 * MS)]
    assert "slap buttons: post(Press(seat=0, t_ns=5000000000)) failed" in caplog.text
    assert "RuntimeError: queue full" in caplog.text


def test_a_debouncer_bug_is_logged_and_the_next_edge_still_works(
    pin_factory: Any,
    events: list[object],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An exception inside the debouncer on one edge is caught and logged; the other seat is
    untouched, and settle() at the lockout's end reads the line and posts the lost press
    (stamped when read: late, never early; posted once its check agrees), after which
    every edge works as before."""
    real = EdgeDebouncer.edge
    calls = []

    def buggy(self: EdgeDebouncer, level: bool, t_ns: int) -> list[Transition]:
        calls.append(t_ns)
        if len(calls) == 1:
            raise IndexError("debouncer bug")
        return real(self, level, t_ns)

    monkeypatch.setattr(EdgeDebouncer, "edge", buggy)
    with caplog.at_level(logging.ERROR, logger="drivers.gpio"), SlapButtons(
        {0: 17, 1: 27}, events.append
    ) as slaps:
        edge(pin_factory, 17, True, T)  # lost to the bug, not raised
        edge(pin_factory, 27, True, T + 1 * MS)
        assert slaps.settle(T + 1 * MS + CONFIRM) == T + 1 * MS + CHECKED
        assert slaps.settle(T + 1 * MS + CHECKED) == T + 30 * MS
        assert tick(slaps, T + 31 * MS, T + 100 * MS) is None
        edge(pin_factory, 17, False, T + 100 * MS)
        edge(pin_factory, 17, True, T + 200 * MS)
        tick(slaps, T + 200 * MS, T + 300 * MS)
    assert "seat 1 slap button at GPIO17: the edge handler failed" in caplog.text
    assert "IndexError: debouncer bug" in caplog.text
    assert events == [
        Press(1, T + 1 * MS),
        Press(0, T + 31 * MS),
        Release(0, T + 100 * MS),
        Press(0, T + 200 * MS),
    ]


def test_garbage_ticks_from_the_backend_do_not_kill_the_callback_path(
    pin_factory: Any, events: list[object], caplog: pytest.LogCaptureFixture
) -> None:
    """A NaN tick (a backend bug) fails inside the handler, is logged, and the pin lives on."""
    with caplog.at_level(logging.ERROR, logger="drivers.gpio"), SlapButtons(
        {0: 17}, events.append
    ) as slaps:
        mock = pin_factory.pin(17)
        PiPin._call_when_changed(mock, float("nan"), False)
        edge(pin_factory, 17, True, T)
        tick(slaps, T, T + 100 * MS)
    assert "the edge handler failed" in caplog.text
    assert events == [Press(0, T)]


def test_posting_needs_no_display_and_works_from_another_thread(pin_factory: Any) -> None:
    """Edges driven on a background thread (as lgpio's) post into a plain queue.Queue: no
    SDL, no display, nothing opened but the pins.  (The releases arrive after the presses'
    checks were due, so each press is decided and posted on that thread too.)"""
    posted: queue.Queue[object] = queue.Queue()
    with SlapButtons({0: 17, 1: 27}, posted.put):

        def callback_thread() -> None:
            edge(pin_factory, 27, True, T + 2 * MS)
            edge(pin_factory, 17, True, T + 1 * MS)
            edge(pin_factory, 27, False, T + 100 * MS)
            edge(pin_factory, 17, False, T + 101 * MS)

        worker = threading.Thread(target=callback_thread)
        worker.start()
        worker.join()
    assert [posted.get_nowait() for _ in range(4)] == [
        Press(1, T + 2 * MS),
        Release(1, T + 100 * MS),
        Press(0, T + MS),
        Release(0, T + 101 * MS),
    ]
    assert posted.empty()


def test_slap_drivers_import_no_display_library() -> None:
    """drivers.gpio/slap/keys/pin_factory import neither pygame nor luma: posting cannot
    depend on a display being open."""
    root = Path(drivers.__file__).parent
    offenders = []
    for name in ("gpio.py", "slap.py", "keys.py", "pin_factory.py"):
        for node in ast.walk(ast.parse((root / name).read_text())):
            if isinstance(node, ast.Import):
                mods = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                mods = [node.module or ""]
            else:
                continue
            offenders += [f"{name}: {m}" for m in mods if m.split(".")[0] in ("pygame", "luma")]
    assert offenders == []


def test_settle_with_nothing_swallowed_posts_nothing(
    pin_factory: Any, events: list[object]
) -> None:
    """settle() on clean edges posts nothing and has no deadline."""
    with SlapButtons({0: 17}, events.append) as slaps:
        edge(pin_factory, 17, True, T)
        assert tick(slaps, T + 1_000 * MS, T + 1_100 * MS) is None
    assert events == [Press(0, T)]


def test_out_of_order_ticks_across_seats_keep_their_own_times(
    pin_factory: Any, events: list[object]
) -> None:
    """A later callback with an earlier tick is posted later, unreordered, with its own time."""
    with SlapButtons({0: 17, 1: 27}, events.append) as slaps:
        edge(pin_factory, 27, True, T + 2 * MS)
        slaps.settle(T + 3 * MS)
        edge(pin_factory, 17, True, T + 1 * MS)  # its callback ran late
        tick(slaps, T + 4 * MS, T + 10 * MS)
    assert events == [Press(1, T + 2 * MS), Press(0, T + 1 * MS)]
    assert min(events, key=lambda e: e.t_ns) == Press(0, T + 1 * MS)  # type: ignore[attr-defined]


def test_lockout_is_per_seat(pin_factory: Any, events: list[object]) -> None:
    """Two seats pressing 1 us apart both get their Press (one seat's lockout is its own)."""
    with SlapButtons({0: 17, 1: 27}, events.append) as slaps:
        edge(pin_factory, 17, True, T)
        edge(pin_factory, 27, True, T + 1 * US)
        tick(slaps, T + CONFIRM, T + 10 * MS)
    assert events == [Press(0, T), Press(1, T + 1 * US)]


def test_is_held_reads_the_line(pin_factory: Any, events: list[object]) -> None:
    """is_held follows the line itself, even when the debounce swallowed the edge."""
    with SlapButtons({0: 17, 1: 27}, events.append) as slaps:
        assert not slaps.is_held(0)
        edge(pin_factory, 17, True, T)
        assert slaps.is_held(0)
        assert not slaps.is_held(1)
        edge(pin_factory, 17, False, T + 1 * MS)  # swallowed
        assert not slaps.is_held(0)
    assert events == [Press(0, T)]


def test_plain_drive_low_also_posts_a_press(pin_factory: Any, events: list[object]) -> None:
    """MockPin.drive_low() (ticks = monotonic now) runs the same path and posts one Press."""
    with SlapButtons({0: 17}, events.append) as slaps:
        pin_factory.pin(17).drive_low()
        now = time.monotonic_ns() + CONFIRM
        tick(slaps, now, now + 10 * MS)
    assert len(events) == 1
    assert isinstance(events[0], Press)
    assert events[0].seat == 0
    assert events[0].t_ns > 0


def test_explicit_pin_factory_argument(events: list[object]) -> None:
    """pin_factory= is used instead of gpiozero's global factory (the simulator's way)."""
    from drivers.gpio import mock_pin_factory

    factory = mock_pin_factory()
    with SlapButtons({4: "GPIO22"}, events.append, pin_factory=factory) as slaps:
        edge(factory, "GPIO22", True, T)
        tick(slaps, T + CONFIRM, T + CHECKED)
    assert events == [Press(4, T)]


def test_close_is_idempotent_and_stops_events(pin_factory: Any, events: list[object]) -> None:
    """close() twice is fine; edges after close post nothing; the pins are free again."""
    slaps = SlapButtons({0: 17}, events.append)
    slaps.close()
    slaps.close()
    edge(pin_factory, 17, True, T)
    assert events == []
    assert "closed" in repr(slaps)
    with pytest.raises(DriverClosedError, match="seat 1 slap button: used after close"):
        slaps.is_held(0)
    with SlapButtons({0: 17}, events.append) as again:
        edge(pin_factory, 17, False, T + 100 * MS)
        edge(pin_factory, 17, True, T + 200 * MS)
        tick(again, T + 200 * MS + CONFIRM, T + 200 * MS + CHECKED)
    assert events == [Press(0, T + 200 * MS)]


def test_bad_pin_names_the_seat_and_pin(pin_factory: Any, events: list[object]) -> None:
    """A pin that is not a pin name is one line naming the seat and pin; opened pins freed."""
    with pytest.raises(DriverError) as info:
        SlapButtons({0: 17, 3: "GPIO99"}, events.append)
    assert isinstance(info.value, DriverValueError)
    assert isinstance(info.value, ValueError)
    assert str(info.value) == (
        "seat 4 slap button at GPIO99: not a GPIO pin name (GPIO99 is not a valid pin name)"
    )
    assert info.value.seat == 3
    with SlapButtons({0: 17}, events.append) as slaps:  # seat 0's pin was released
        edge(pin_factory, 17, True, T)
        tick(slaps, T + CONFIRM, T + CHECKED)
    assert events == [Press(0, T)]


def test_pin_used_twice_names_the_second_seat(pin_factory: Any, events: list[object]) -> None:
    """Two seats on one pin: DeviceUnavailableError naming the second seat and the pin."""
    with pytest.raises(DeviceUnavailableError) as info:
        SlapButtons({0: 17, 1: 17}, events.append)
    assert isinstance(info.value, OSError)
    assert str(info.value) == (
        "seat 2 slap button at GPIO17: pin already in use; each button needs its own pin"
    )


class _BusyPinFactory(MockFactory):  # type: ignore[misc]
    """A MockFactory whose pins fail to open like a GPIO line claimed by another process."""

    def pin(self, name: Any, pin_class: Any = None, **kwargs: Any) -> Any:
        raise OSError(16, "GPIO busy")


def test_backend_failure_becomes_device_unavailable(events: list[object]) -> None:
    """A backend error while opening (lgpio 'GPIO busy') names the seat and pin."""
    with pytest.raises(DeviceUnavailableError, match=r"^seat 6 slap button at GPIO6: cannot open"):
        SlapButtons({5: 6}, events.append, pin_factory=_BusyPinFactory())


@pytest.mark.parametrize("lockout", [-1, 1.5, True])
def test_bad_lockout_is_refused(pin_factory: Any, events: list[object], lockout: Any) -> None:
    """lockout_ns must be an int >= 0."""
    with pytest.raises(DriverValueError, match="lockout_ns must be an int >= 0"):
        SlapButtons({0: 17}, events.append, lockout_ns=lockout)


def test_bad_seat_is_refused(pin_factory: Any, events: list[object]) -> None:
    """A negative seat is refused with a line naming it."""
    with pytest.raises(DriverValueError, match=r"seat -1: seat must be an int >= 0"):
        SlapButtons({-1: 17}, events.append)


def test_unknown_seat_is_a_lookup_error(pin_factory: Any, events: list[object]) -> None:
    """is_held on a seat without a button raises NotWiredError (a LookupError)."""
    with SlapButtons({0: 17}, events.append) as slaps, pytest.raises(LookupError) as info:
        slaps.is_held(1)
    assert isinstance(info.value, NotWiredError)
    assert str(info.value) == "seat 2 slap button: no such seat (seats: [0])"


def test_edge_works_on_a_plain_mock_factory(events: list[object]) -> None:
    """edge() drives a plain MockFactory's MockPin with the chosen tick too."""
    factory = MockFactory()
    with SlapButtons({1: 27}, events.append, pin_factory=factory):
        edge(factory, 27, True, T)
        edge(factory, 27, False, T + 50 * MS)
    assert events == [Press(1, T), Release(1, T + 50 * MS)]


def test_edge_refuses_a_real_pin_factory() -> None:
    """edge() on something that is not a MockFactory explains what to use."""
    with pytest.raises(DriverValueError, match=r"use drivers\.mock_pin_factory\(\)"):
        edge(object(), 17, True, T)


def test_events_are_frozen_values() -> None:
    """Press/Release compare by value, hash, and cannot be changed."""
    both: list[object] = [Press(1, 5), Release(1, 5)]
    assert both[0] == Press(1, 5)
    assert both[0] != both[1]
    assert len({Press(1, 5), Press(1, 5), Release(1, 5)}) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        Press(1, 5).t_ns = 6  # type: ignore[misc]


def test_default_lockout_is_30_ms() -> None:
    """The default lockout is 30 ms, as docs/architecture.md item 5 says."""
    assert DEFAULT_LOCKOUT_NS == 30 * MS


def test_an_unfair_pin_factory_is_refused(events: list[object]) -> None:
    """gpiozero's native factory stamps callback times: SlapButtons will not open on it."""
    unfair = NativeFactory.__new__(NativeFactory)  # the real class, no /dev/gpiomem needed
    with pytest.raises(PinFactoryError) as info:
        SlapButtons({0: 17}, events.append, pin_factory=unfair)
    assert str(info.value).startswith(
        "GPIO: pin factory NativeFactory stamps edges with time.monotonic() when its Python "
        "callback runs, so slaps would be unfair"
    )
    assert isinstance(info.value, DeviceUnavailableError)


def test_no_pin_factory_opens_lgpio_explicitly_never_gpiozeros_fallback(
    events: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no factory anywhere, the driver asks open_pin_factory (whose error comes out as
    it is) and never gpiozero's _default_pin_factory, which would fall back silently."""

    def fallback() -> Any:
        raise AssertionError("gpiozero's fallback chain was used")

    def no_lgpio(*args: Any, **kwargs: Any) -> Any:
        raise PinFactoryError("GPIO", "lgpio is not installed: pip install lgpio")

    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(fallback))
    monkeypatch.setattr(drivers.pin_factory, "open_pin_factory", no_lgpio)
    with pytest.raises(PinFactoryError, match=r"^GPIO: lgpio is not installed: pip install lgpio$"):
        SlapButtons({0: 17}, events.append)
    assert Device.pin_factory is None


def test_no_pin_factory_shares_the_one_it_opened(
    events: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The factory open_pin_factory gives becomes Device.pin_factory, so later drivers share it."""
    opened = MockFactory()
    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setattr(drivers.pin_factory, "open_pin_factory", lambda: opened)
    try:
        with SlapButtons({0: 17}, events.append) as slaps:
            assert Device.pin_factory is opened
            edge(opened, 17, True, T)
            tick(slaps, T + CONFIRM, T + CHECKED)
    finally:
        opened.reset()
    assert events == [Press(0, T)]
