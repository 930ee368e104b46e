"""The GPIO plumbing: tick conversion, the belief-and-lockout debouncer (edges read late, so
often with the wrong level: docs/hardware-facts.md), guarded edge callbacks, the MockPin seam."""

from __future__ import annotations

import logging
import random
from typing import Any

import pytest
from gpiozero import Button  # type: ignore[import-untyped]
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from drivers.errors import DriverValueError
from drivers.gpio import (
    EdgeButton,
    EdgeDebouncer,
    EdgeMockPin,
    Transition,
    drive_at,
    edge,
    fire_edge,
    ns_to_ticks,
    pin_label,
    ticks_to_ns,
)

MS = 1_000_000


@pytest.mark.parametrize(
    "t_ns", [0, 1, 999_999_999, 5_000_000_123, 86_400 * 10**9 + 7, 2_000_000 * 10**9 + 1]
)
def test_ticks_round_trip_to_the_nanosecond(t_ns: int) -> None:
    """ns -> float ticks -> ns is exact for uptimes from 0 to 23 days."""
    assert ticks_to_ns(ns_to_ticks(t_ns)) == t_ns


def test_ticks_to_ns_rounds_to_nearest() -> None:
    """Float seconds round to the nearest nanosecond, not down."""
    assert ticks_to_ns(1.0000000006) == 1_000_000_001
    assert ticks_to_ns(0.25) == 250_000_000


def test_pin_label() -> None:
    """Integer pins read as GPIOn, names stay as written."""
    assert [pin_label(17), pin_label("BOARD11"), pin_label("GPIO4")] == [
        "GPIO17",
        "BOARD11",
        "GPIO4",
    ]


def test_inject_runs_button_handlers_with_the_chosen_tick(pin_factory: Any) -> None:
    """EdgeMockPin.inject drives gpiozero's own Button path: is_pressed and last ticks follow."""
    seen: list[tuple[float, int]] = []

    class Spy(Button):  # type: ignore[misc]
        def _pin_changed(self, ticks: float, state: int) -> None:
            seen.append((ticks, state))
            super()._pin_changed(ticks, state)

    with Spy(17) as button:
        edge(pin_factory, 17, True, 7_000_000_000)
        assert button.is_pressed
        edge(pin_factory, 17, True, 7_100_000_000)  # already low: no edge
        edge(pin_factory, 17, False, 7_200_000_000)
        assert not button.is_pressed
    assert seen == [(7.0, 0), (7.2, 1)]
    assert isinstance(pin_factory.pin(17), EdgeMockPin)


def test_inject_without_a_device_only_moves_the_line(pin_factory: Any) -> None:
    """Driving a pin nobody listens to changes its state and calls nothing."""
    mock = pin_factory.pin(5)
    mock.inject(False, 1_000)
    assert mock.state == 0
    assert mock.states[-1].state is False


def test_drive_at_respects_edge_detection(pin_factory: Any) -> None:
    """A pin watching falling edges only does not fire on a rising one."""
    fired: list[tuple[float, bool]] = []

    def handler(ticks: float, state: bool) -> None:
        fired.append((ticks, state))

    mock = pin_factory.pin(6)
    mock.pull = "up"
    mock.edges = "falling"
    mock.when_changed = handler
    drive_at(mock, False, 1_000_000_000)
    drive_at(mock, True, 2_000_000_000)
    mock.when_changed = None
    assert fired == [(1.0, False)]
    assert mock.state == 1


def test_drive_at_refuses_a_non_mock_pin() -> None:
    """drive_at on anything but a MockPin is a DriverValueError."""
    with pytest.raises(DriverValueError, match="not a gpiozero MockPin"):
        drive_at(object(), True, 0)


def test_inject_refuses_a_float_time(pin_factory: Any) -> None:
    """t_ns must be int nanoseconds: a float (seconds?) is a clear error."""
    with pytest.raises(DriverValueError, match=r"t_ns must be an int of nanoseconds, got 1\.5"):
        edge(pin_factory, 5, True, 1.5)  # type: ignore[arg-type]


def test_edge_on_a_bad_pin_name(pin_factory: Any) -> None:
    """edge() on something that is not a pin name is a DriverValueError naming it."""
    with pytest.raises(DriverValueError, match=r"^mock pin GPIO99: cannot drive"):
        edge(pin_factory, 99, True, 0)


def test_reads_gives_the_event_a_wrong_level_but_moves_the_line(pin_factory: Any) -> None:
    """edge(..., reads=) makes the handler see the given level; the line goes where pressed says."""
    seen: list[tuple[bool, int]] = []
    button = EdgeButton(17, on_edge=lambda level, t: seen.append((level, t)))
    try:
        edge(pin_factory, 17, True, 1_000, reads=False)
        assert seen == [(False, 1_000)]
        assert button.is_pressed
        edge(pin_factory, 17, False, 2_000, reads=True)
        assert seen[-1] == (True, 2_000)
        assert not button.is_pressed
    finally:
        button.close()


def test_deliver_false_then_fire_edge_is_a_late_callback(pin_factory: Any) -> None:
    """deliver=False moves the line silently; fire_edge later delivers the event it owed."""
    seen: list[tuple[bool, int]] = []
    button = EdgeButton(17, on_edge=lambda level, t: seen.append((level, t)))
    try:
        edge(pin_factory, 17, True, 5_000, deliver=False)
        assert button.is_pressed
        assert seen == []
        fire_edge(pin_factory, 17, True, 5_000)
        assert seen == [(True, 5_000)]
        assert button.is_pressed
    finally:
        button.close()


def test_fire_edge_refuses_a_float_time(pin_factory: Any) -> None:
    """fire_edge's t_ns must be int nanoseconds too."""
    with pytest.raises(DriverValueError, match=r"^mock pin GPIO5: t_ns must be an int"):
        fire_edge(pin_factory, 5, True, 0.5)  # type: ignore[arg-type]


def test_an_exception_in_the_edge_handler_is_caught_and_the_next_edge_works(
    pin_factory: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A raising on_edge never escapes into gpiozero's (lgpio's) callback thread.

    gpiozero's own state still follows the line and the next edge reaches the handler.
    """
    calls: list[int] = []

    def on_edge(level: bool, t_ns: int) -> None:
        calls.append(t_ns)
        if len(calls) == 1:
            raise ZeroDivisionError("debouncer bug")

    button = EdgeButton(17, on_edge=on_edge, name="seat 5 slap button at GPIO17")
    try:
        with caplog.at_level(logging.ERROR, logger="drivers.gpio"):
            edge(pin_factory, 17, True, 1 * MS)  # must not raise
        assert button.is_pressed
        assert "seat 5 slap button at GPIO17: the edge handler failed" in caplog.text
        assert "ZeroDivisionError: debouncer bug" in caplog.text
        edge(pin_factory, 17, False, 50 * MS)
        assert calls == [1 * MS, 50 * MS]
        assert not button.is_pressed
    finally:
        button.close()


def test_debouncer_first_edge_flips_whatever_level_it_says() -> None:
    """Believed released, an edge saying "released" is a press, stamped with its own time."""
    d = EdgeDebouncer(lockout_ns=30 * MS)
    assert d.edge(False, 7 * MS) == [(True, 7 * MS)]
    assert d.down and d.reported
    assert d.edge(False, 60 * MS) == [(False, 60 * MS)]  # the release, level as it says


def test_debouncer_held_at_open_reports_nothing_until_pressed_again() -> None:
    """Believed down at open (nothing reported yet): the release posts nothing, the press does."""
    d = EdgeDebouncer(lockout_ns=30 * MS, down=True)
    assert d.edge(True, 0) == []  # its release, whatever the event says
    assert not d.down
    assert d.settle(30 * MS, level=False) == []
    assert d.edge(False, 60 * MS) == [(True, 60 * MS)]


def test_debouncer_earlier_tick_on_same_line_is_swallowed() -> None:
    """An edge with a tick before the accepted edge cannot start anything."""
    d = EdgeDebouncer(lockout_ns=30 * MS)
    assert d.edge(True, 100 * MS) == [(True, 100 * MS)]
    assert d.edge(False, 50 * MS) == []


def test_debouncer_zero_lockout_reports_every_edge_as_a_change() -> None:
    """With lockout 0 every edge flips the state, even if every event says "pressed"."""
    d = EdgeDebouncer(lockout_ns=0)
    got = [t for e in [(True, 1), (True, 2), (True, 3)] for t in d.edge(*e)]
    assert got == [(True, 1), (False, 2), (True, 3)]


def test_debouncer_deadline_and_a_settle_that_agrees() -> None:
    """deadline_ns is the last bounce + lockout; settle before it does nothing, at it
    closes."""
    d = EdgeDebouncer(lockout_ns=30)
    assert d.deadline_ns() is None
    d.edge(True, 100)
    assert d.deadline_ns() == 130
    d.edge(False, 105)
    d.edge(True, 107)
    assert d.deadline_ns() == 137
    assert d.settle(136, level=False) == []  # the lockout still runs: not even read
    assert d.deadline_ns() == 137
    assert d.settle(137, level=True) == []  # the line is down, as believed
    assert d.deadline_ns() is None


def test_debouncer_settle_posts_a_transition_a_bounce_showed_at_the_lockout_end() -> None:
    """A tap whose release fell inside the lockout: reported at the lockout's end (a
    lockout after that last edge)."""
    d = EdgeDebouncer(lockout_ns=30)
    assert d.edge(True, 100) == [(True, 100)]
    assert d.edge(False, 112) == []
    assert d.settle(145, level=False) == [(False, 142)]
    assert not d.down


def test_debouncer_settle_without_a_level_uses_the_last_bounce() -> None:
    """settle(now) with no line reading trusts the latest-stamped bounce's level."""
    d = EdgeDebouncer(lockout_ns=30)
    d.edge(True, 100)
    d.edge(True, 110)
    d.edge(False, 120)
    d.edge(True, 115)  # delivered late, stamped earlier: not the latest evidence
    assert d.settle(149) == []  # 30 after the latest bounce (120): not yet
    assert d.settle(150) == [(False, 150)]


def test_debouncer_unexplained_change_is_stamped_when_read() -> None:
    """A change no edge showed (its callback still on its way) is stamped at the reading."""
    d = EdgeDebouncer(lockout_ns=30)
    d.edge(True, 100)  # a release at 140 is on its way
    assert d.settle(150, level=False) == [(False, 150)]
    assert d.edge(False, 140) == []  # the late callback: part of what was read
    assert d.edge(True, 200) == [(True, 200)]


def test_debouncer_edge_after_an_unsettled_lockout_closes_it_first() -> None:
    """No settle ran: an edge past the lockout first posts the release a bounce showed."""
    d = EdgeDebouncer(lockout_ns=30)
    d.edge(True, 100)
    d.edge(False, 110)
    assert d.edge(True, 150) == [(False, 140), (True, 150)]


LOCKOUT = 30 * MS
CONFIRM = 1 * MS  # drivers.slap.DEFAULT_CONFIRM_NS


def _level_at(toggles: list[int], t_ns: int) -> bool:
    """The line (True = pressed) at ``t_ns``, starting released and toggling at ``toggles``."""
    return sum(1 for x in toggles if x <= t_ns) % 2 == 1


def _replay(
    d: EdgeDebouncer,
    toggles: list[int],
    reads_delay: list[int],
    settles: list[int],
    readings: list[int] | None = None,
) -> list[Transition]:
    """Feed each toggle as an event whose level is read ``reads_delay`` later (as the
    kernel does), interleaved in time with settle(now, real level); events first on ties.
    After the last settle, the loop follows the debouncer's own deadlines until none is
    left (a check that waits is then decided).  ``readings`` collects every settle time."""
    timeline = [(t, 0, i) for i, t in enumerate(toggles)] + [(t, 1, -1) for t in settles]
    out: list[Transition] = []
    last = 0
    for t, kind, i in sorted(timeline):
        if kind == 0:
            out += d.edge(_level_at(toggles, t + reads_delay[i]), t)
        else:
            out += d.settle(t, level=_level_at(toggles, t))
            last = t
            if readings is not None:
                readings.append(t)
    for _ in range(10):
        due = d.deadline_ns()
        if due is None:
            break
        last = max(last, due)
        out += d.settle(last, level=_level_at(toggles, last))
        if readings is not None:
            readings.append(last)
    return out


_contacts = st.lists(
    st.tuples(
        # quiet time before the change: a lockout after the previous change's last bounce
        # (its bounces span at most 9 x 0.4 ms)
        st.integers(min_value=LOCKOUT + 4 * MS, max_value=200 * MS),
        st.lists(st.integers(min_value=1_000, max_value=400_000), max_size=9),  # bounce gaps
        st.one_of(st.none(), st.integers(min_value=0, max_value=25 * MS)),  # settle lateness
    ),
    min_size=1,
    max_size=12,
)


@pytest.mark.parametrize("confirm", [0, CONFIRM], ids=["unconfirmed", "confirmed"])
@seed(20240611)
@settings(max_examples=300, deadline=None)
@given(contacts=_contacts, rnd=st.randoms(use_true_random=False))
def test_each_contact_change_is_one_transition_at_its_first_edge(
    confirm: int, contacts: list[tuple[int, list[int], int | None]], rnd: random.Random
) -> None:
    """Bouncing presses and releases, events read up to 300 us late (so often the wrong
    level), settle() at the lockout end (a lockout after the last bounce) or later or not at
    all: each change of the contact is reported exactly once, in the right direction,
    stamped with its first edge -- with presses confirmed (1 ms) or not."""
    t = 1_000 * MS
    toggles: list[int] = []
    settles: list[int] = []
    firsts: list[int] = []
    for quiet, gaps, late in contacts:
        t += quiet
        firsts.append(t)
        toggles.append(t)
        bounce = t
        for gap in gaps[: len(gaps) // 2 * 2]:  # an even number: the contact ends changed
            bounce += gap
            toggles.append(bounce)
        if late is not None:
            settles.append(bounce + LOCKOUT + late)
    settles.append(bounce + LOCKOUT + 1)
    delays = [rnd.randint(0, 300_000) for _ in toggles]
    out = _replay(EdgeDebouncer(lockout_ns=LOCKOUT, confirm_ns=confirm), toggles, delays, settles)
    assert out == [(i % 2 == 0, first) for i, first in enumerate(firsts)]


@pytest.mark.parametrize("confirm", [0, CONFIRM], ids=["unconfirmed", "confirmed"])
@seed(20240612)
@settings(max_examples=300, deadline=None)
@given(
    gaps=st.lists(st.integers(min_value=0, max_value=80 * MS), min_size=1, max_size=40),
    rnd=st.randoms(use_true_random=False),
)
def test_any_edge_storm_alternates_and_ends_at_the_real_level(
    confirm: int, gaps: list[int], rnd: random.Random
) -> None:
    """Arbitrary toggles and late reads, settle() at random times: reports alternate from a
    press, never go back in time, are stamped at an edge, a lockout end or a reading, and
    once the line is quiet the believed and reported state equal the line's real level."""
    t = 1_000 * MS
    toggles = []
    for gap in gaps:
        t += gap
        toggles.append(t)
    settles = sorted(rnd.randint(toggles[0], t + LOCKOUT) for _ in range(rnd.randint(0, 10)))
    settles.append(t + 2 * LOCKOUT)
    delays = [rnd.randint(0, 300_000) for _ in toggles]
    d = EdgeDebouncer(lockout_ns=LOCKOUT, confirm_ns=confirm)
    readings: list[int] = []
    out = _replay(d, toggles, delays, settles, readings)
    assert [p for p, _ in out] == [i % 2 == 0 for i in range(len(out))]
    assert [s for _, s in out] == sorted(s for _, s in out)
    lockout_ends = {x + LOCKOUT for x in toggles}
    assert all(s in set(toggles) | lockout_ends | set(readings) for _, s in out)
    assert d.down == d.reported == _level_at(toggles, t)


@pytest.mark.parametrize("confirm", [0, CONFIRM], ids=["unconfirmed", "confirmed"])
@seed(20240603)
@settings(max_examples=200, deadline=None)
@given(
    gaps=st.lists(st.integers(min_value=0, max_value=500_000), min_size=1, max_size=40),
    rnd=st.randoms(use_true_random=False),
)
def test_debouncer_burst_inside_lockout_is_one_press(
    confirm: int, gaps: list[int], rnd: random.Random
) -> None:
    """A burst under the lockout (< 20 ms here, the line never low for 1 ms at a time),
    any levels read, is one press at its first edge; if the line ends released, settle()
    then reports one release at the lockout end (a lockout after the last bounce) -- or,
    with presses confirmed, nothing at all: a burst that ends released is a glitch."""
    t = 1_000 * MS
    toggles = []
    for gap in gaps:
        t += gap
        toggles.append(t)
    delays = [rnd.randint(0, 300_000) for _ in toggles]
    d = EdgeDebouncer(lockout_ns=LOCKOUT, confirm_ns=confirm)
    out = _replay(d, toggles, delays, [toggles[-1] + LOCKOUT])
    first, end = toggles[0], toggles[-1] + LOCKOUT  # the lockout runs on after each bounce
    ends_down = _level_at(toggles, t)
    if ends_down:
        assert out == [(True, first)]
    else:
        assert out == ([] if confirm else [(True, first), (False, end)])


def test_debouncer_edge_stamped_at_the_reading_itself_is_new() -> None:
    """The simulator stamps a key edge with the same now_ns the ticker just settled at: that
    edge is a real change, not part of the reading (only earlier stamps are)."""
    d = EdgeDebouncer(lockout_ns=30)
    d.edge(True, 100)
    assert d.settle(130, level=True) == []
    assert d.edge(False, 129) == []  # stamped before the reading: already in it
    assert d.edge(False, 130) == [(False, 130)]


_spikes = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=20 * MS),  # gap before the spike
        st.integers(min_value=5_000, max_value=500_000),  # spike width: 5-500 us
    ),
    min_size=1,
    max_size=30,
)


@seed(20261202)
@settings(max_examples=300, deadline=None)
@given(
    spikes=_spikes,
    quiet=st.integers(min_value=2 * MS, max_value=50 * MS),
    bounces=st.lists(st.integers(min_value=1_000, max_value=400_000), max_size=9),
    hold=st.integers(min_value=LOCKOUT + 5 * MS, max_value=300 * MS),
    rnd=st.randoms(use_true_random=False),
)
def test_glitches_are_never_presses_and_a_real_press_keeps_its_first_edge(
    spikes: list[tuple[int, int]],
    quiet: int,
    bounces: list[int],
    hold: int,
    rnd: random.Random,
) -> None:
    """Spikes of 5-500 us at any spacing (bursts included), events read up to 300 us late,
    settle() at random times or not at all: no transition; then a real press (bouncing,
    held past its lockout) and its release: exactly those two, each at its first edge."""
    t = 1_000 * MS
    toggles: list[int] = []
    for gap, width in spikes:
        t = max(t + gap, toggles[-1] + 1 if toggles else t)
        toggles += [t, t + width]
        t += width
    press = t + quiet
    toggles.append(press)
    b = press
    for gap in bounces[: len(bounces) // 2 * 2]:
        b += gap
        toggles.append(b)
    release = b + hold
    toggles.append(release)
    settles = sorted(rnd.randint(toggles[0], release) for _ in range(rnd.randint(0, 12)))
    settles.append(release + 2 * LOCKOUT)
    delays = [rnd.randint(0, 300_000) for _ in toggles]
    d = EdgeDebouncer(lockout_ns=LOCKOUT, confirm_ns=CONFIRM)
    assert _replay(d, toggles, delays, settles) == [(True, press), (False, release)]
