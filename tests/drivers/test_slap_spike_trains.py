"""Spike trains on a slap line: they never count, and they never move a real press's stamp
earlier than its first contact by more than ``drivers.slap.DEFAULT_BOUNCE_NS`` (nor a
bouncing press later by more than that): the bound the ``EdgeDebouncer`` docstring proves.

The line is modelled as it really is: low while any spike or the switch's contact pulls it
low (a spike on a held line changes nothing), its edges driven through gpiozero's
``MockFactory`` and the buttons' ticker run at every deadline, as the device loop does."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bench.bench_fairness import merge_lows
from drivers.errors import DriverValueError
from drivers.gpio import edge, fire_edge
from drivers.slap import DEFAULT_BOUNCE_NS, Press, SlapButtons

MS = 1_000_000
US = 1_000
T = 5_000_000_000  # an arbitrary CLOCK_MONOTONIC time, 5 s after boot
BOUND = DEFAULT_BOUNCE_NS
PINS = {0: 17, 1: 27}

Interval = tuple[int, int]
"""A time the line is pulled low: ``(start_ns, end_ns)``."""


def line_edges(seat: int, lows: list[Interval]) -> list[tuple[int, int, bool]]:
    """The edges ``(t_ns, seat, pressed)`` of a line pulled low during each of ``lows``
    (overlapping or touching intervals merge: ``bench.bench_fairness.merge_lows``)."""
    out: list[tuple[int, int, bool]] = []
    for start, end in merge_lows(lows):
        out += [(start, seat, True), (end, seat, False)]
    return out


def run(pin_factory: Any, edges: list[tuple[int, int, bool]], **options: Any) -> list[object]:
    """Drive ``edges`` (any order) on the seats' lines; run settle() at every deadline
    before each edge and after the last; return the events posted.  ``options`` go to
    :class:`SlapButtons`."""
    events: list[object] = []
    with SlapButtons(PINS, events.append, **options) as slaps:
        due: int | None = None
        for t, seat, pressed in sorted(edges):
            while due is not None and due < t:
                due = slaps.settle(due)
            edge(pin_factory, PINS[seat], pressed, t)
            due = slaps.settle(t)
        while due is not None:
            due = slaps.settle(due)
    return events


def train(start: int, period: int, width: int, until: int) -> list[Interval]:
    """Spikes of ``width`` ns every ``period`` ns from ``start`` while they begin before
    ``until``."""
    return [(t, t + width) for t in range(start, until, period)]


def bounce(first: int, pattern: list[tuple[int, int]], hold: int) -> list[Interval]:
    """A press: contact at ``first``, then ``(closed, open)`` ns pairs of bounce, then held
    for ``hold`` ns."""
    lows: list[Interval] = []
    t = first
    for closed, opened in pattern:
        lows.append((t, t + closed))
        t += closed + opened
    lows.append((t, t + hold))
    return lows


def presses(events: list[object], seat: int) -> list[int]:
    """The stamps of ``seat``'s Press events."""
    return [e.t_ns for e in events if isinstance(e, Press) and e.seat == seat]


def test_a_spike_train_does_not_win_a_race_its_seat_lost(pin_factory: Any) -> None:
    """Seat 0: 50 us spikes every 800 us from T, a real press at T+24 ms; seat 1 presses at
    T+10 ms.  Seat 1's Press is the earlier; seat 0's is within the bound of T+24 ms."""
    lows = [*train(T, 800 * US, 50 * US, T + 24 * MS), (T + 24 * MS, T + 100 * MS)]
    events = run(pin_factory, line_edges(0, lows) + line_edges(1, [(T + 10 * MS, T + 100 * MS)]))
    assert presses(events, 1) == [T + 10 * MS]
    (stamp,) = presses(events, 0)
    assert T + 24 * MS - BOUND <= stamp <= T + 24 * MS
    assert stamp > T + 10 * MS


def test_a_press_after_a_500_us_spike_train_keeps_its_stamp_near(pin_factory: Any) -> None:
    """50 us spikes every 500 us from T, a real press at T+30 ms: stamped within the bound of
    T+30 ms, not at the train's first spike."""
    lows = [*train(T, 500 * US, 50 * US, T + 30 * MS), (T + 30 * MS, T + 100 * MS)]
    (stamp,) = presses(run(pin_factory, line_edges(0, lows)), 0)
    assert T + 30 * MS - BOUND <= stamp <= T + 30 * MS


def test_a_dense_spike_train_longer_than_a_lockout_is_not_a_slap(pin_factory: Any) -> None:
    """500 us spikes every 600 us for 100 ms (the line low five sixths of the time, never
    still for 1 ms): no Press, not even where a reading 31 ms after the first spike falls
    inside the 52nd spike."""
    assert run(pin_factory, line_edges(0, train(T, 600 * US, 500 * US, T + 100 * MS))) == []


def _train(period: int, width_share: int, lead: int) -> list[Interval]:
    """A periodic train ending at 0 (the press): spikes of ``width_share`` % of
    ``period`` (5-500 us, always narrower than the period) from ``lead`` ns before."""
    width = max(5 * US, min(500 * US, period * width_share // 100))
    return train(-lead, period, width, 0)


def _burst(spikes: list[tuple[int, int]]) -> list[Interval]:
    """Random spikes before 0 (the press): ``(gap, width)`` pairs laid out backwards, a
    gap of released line before each spike's end."""
    out: list[Interval] = []
    t = 0
    for gap, width in spikes:
        t -= gap
        out.append((t - width, t))
        t -= width
    return out


spike_patterns = st.one_of(
    st.builds(_train, st.integers(50 * US, 5 * MS), st.integers(1, 95),
              st.integers(0, 60 * MS)),
    st.lists(st.tuples(st.integers(5 * US, 5 * MS), st.integers(5 * US, 500 * US)),
             max_size=80).map(_burst),
)
"""Spikes before a time 0, as low intervals: a periodic train of any period from 50 us
to 5 ms, or random spikes of 5-500 us with random gaps (none overlapping)."""

bounces = st.lists(
    st.tuples(st.integers(10 * US, 1_500 * US), st.integers(10 * US, 500 * US)), max_size=12
).map(lambda pairs: _within(pairs, 5 * MS))
"""A switch's bounce: ``(closed, open)`` pairs of 10 us-1.5 ms closed, 10-500 us open,
lasting at most 5 ms in all."""


def _within(pairs: list[tuple[int, int]], total: int) -> list[tuple[int, int]]:
    """The leading ``pairs`` whose sum stays within ``total`` ns."""
    out: list[tuple[int, int]] = []
    for closed, opened in pairs:
        if sum(c + o for c, o in out) + closed + opened > total:
            break
        out.append((closed, opened))
    return out


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spikes=spike_patterns, pattern=bounces)
def test_spikes_never_move_a_press_stamp_beyond_the_bound(
    pin_factory: Any, spikes: list[Interval], pattern: list[tuple[int, int]]
) -> None:
    """Spikes (a periodic train or random ones) before a real press at P that bounces for
    up to 5 ms with 10-500 us opens: exactly one Press, |stamp - P| <= DEFAULT_BOUNCE_NS."""
    pin_factory.reset()
    first = T + 100 * MS
    # a spike still low when the contact closes is the press's own first low (the line
    # cannot tell them apart), so the spikes here all end before it
    lows = [(first + a, first + b) for a, b in spikes if b < 0] + bounce(first, pattern, 100 * MS)
    (stamp,) = presses(run(pin_factory, line_edges(0, lows)), 0)
    assert abs(stamp - first) <= BOUND


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spikes=spike_patterns)
def test_spike_trains_alone_never_count(pin_factory: Any, spikes: list[Interval]) -> None:
    """Any of those spike patterns, with no press: no event at all."""
    pin_factory.reset()
    end = T + 100 * MS
    assert run(pin_factory, line_edges(0, [(end + a, end + b) for a, b in spikes])) == []


def test_a_lone_misread_edge_decided_by_its_release_is_not_a_slap(pin_factory: Any) -> None:
    """A press whose only event says "released" (its bounce edges lost), held 50 ms, the
    loop first looking 60 ms later: decided from the edges, not a press (EdgeDebouncer,
    "A lone edge ..."); the same press with the loop on time is read on the line (twice,
    1 ms apart): one Press at its edge."""
    events: list[object] = []
    with SlapButtons({0: 17}, events.append) as on_time:
        edge(pin_factory, 17, True, T, reads=False)
        on_time.settle(T + 1 * MS)  # the check: the line is read, pressed
        on_time.settle(T + 2 * MS)  # and read again: still pressed
    assert events == [Press(0, T)]
    pin_factory.reset()
    events.clear()
    with SlapButtons({0: 17}, events.append) as late:
        edge(pin_factory, 17, True, T, reads=False)
        edge(pin_factory, 17, False, T + 50 * MS)
        due = late.settle(T + 60 * MS)
        while due is not None:
            due = late.settle(due)
    assert events == []


@pytest.mark.parametrize("bounce", [-1, 2.5, True, "2.5ms"])
def test_bad_bounce_time_is_refused(pin_factory: Any, bounce: Any) -> None:
    """bounce_ns must be int nanoseconds >= 0 (or None): anything else is one clear line."""
    with pytest.raises(DriverValueError, match="bounce_ns must be an int >= 0 nanoseconds"):
        SlapButtons({0: 17}, [].append, bounce_ns=bounce)


def test_without_the_bound_a_press_keeps_its_bursts_first_edge(pin_factory: Any) -> None:
    """bounce_ns=None (the bench's comparison): the 800 us train's first spike stamps the
    press, as the bound exists to prevent."""
    lows = [*train(T, 800 * US, 50 * US, T + 24 * MS), (T + 24 * MS, T + 100 * MS)]
    events = run(pin_factory, line_edges(0, lows), bounce_ns=None)
    assert presses(events, 0) == [T]


def run_late(pin_factory: Any, edges: list[tuple[int, int, bool]], delay_ns: int) -> list[object]:
    """As :func:`run`, but each line moves at its edge's time and the edge's callback comes
    ``delay_ns`` later (in order, as lgpio delivers one line's events); settle() runs at
    every deadline and at each callback."""
    timeline = sorted([(t, 0, seat, pressed) for t, seat, pressed in edges]
                      + [(t + delay_ns, 1, seat, pressed) for t, seat, pressed in edges])
    events: list[object] = []
    with SlapButtons(PINS, events.append) as slaps:
        due: int | None = None
        for at, kind, seat, pressed in timeline:
            while due is not None and due < at:
                due = slaps.settle(due)
            if kind == 0:
                edge(pin_factory, PINS[seat], pressed, at, deliver=False)
            else:
                fire_edge(pin_factory, PINS[seat], pressed, at - delay_ns)
                due = slaps.settle(at)
        while due is not None:
            due = slaps.settle(due)
    return events


def test_a_spike_train_with_late_callbacks_is_not_a_slap(pin_factory: Any) -> None:
    """109 us spikes every 465 us for 30 ms, each callback 2.8 ms late: when the line is
    read, a later spike may hold it low while its edges are still on their way.  Each
    callback that arrives starts the check over, so the line is read once the edges have
    stopped coming: no Press."""
    lows = train(T, 465_342, 109_441, T + 30 * MS)
    assert run_late(pin_factory, line_edges(0, lows), 2_827_602) == []


@pytest.mark.parametrize("delay", [726 * US, 3 * MS])
def test_a_spike_train_with_late_callbacks_does_not_win_a_race(
    pin_factory: Any, delay: int
) -> None:
    """Seat 0: 426 us spikes every 953 us from T (the reading 1 ms after a spike's callback
    falls inside the next spike, whose edges are still on their way), a real press at
    T+30 ms; seat 1 presses at T+20 ms; every callback ``delay`` late.  The check's second
    reading sees the callbacks in between: seat 1's Press is the earlier one."""
    lows0 = [(T + k * 953 * US, T + k * 953 * US + 426 * US) for k in range(11)]
    lows0.append((T + 30 * MS, T + 200 * MS))
    events = run_late(
        pin_factory, line_edges(0, lows0) + line_edges(1, [(T + 20 * MS, T + 200 * MS)]), delay
    )
    assert presses(events, 1) == [T + 20 * MS]
    (stamp,) = presses(events, 0)
    assert T + 30 * MS - BOUND <= stamp <= T + 30 * MS


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spikes=spike_patterns, delay=st.integers(0, 3 * MS))
# trains whose check, 1 ms after a callback, reads the line inside a later spike
@example(spikes=train(-60 * MS, 953 * US, 426 * US, -60 * MS + 11 * 953 * US), delay=726 * US)
@example(spikes=train(-60 * MS, 794 * US, 305 * US, -60 * MS + 60 * 794 * US), delay=867 * US)
@example(spikes=train(-60 * MS, 924 * US, 169 * US, -60 * MS + 11 * 924 * US), delay=866 * US)
def test_spike_trains_alone_with_late_callbacks_never_count(
    pin_factory: Any, spikes: list[Interval], delay: int
) -> None:
    """Any of those spike patterns, no press, each callback ``delay`` (0-3 ms) late: no
    event at all, however the readings fall inside spikes whose edges are on their way."""
    pin_factory.reset()
    end = T + 100 * MS
    lows = [(end + a, end + b) for a, b in spikes]
    assert run_late(pin_factory, line_edges(0, lows), delay) == []


@pytest.mark.parametrize("delivered", [(0, 1), (0, 5), (1, 2), (0,), (0, 1, 2), (0, 3, 4)])
def test_a_bouncing_press_whose_edges_the_kernel_dropped_keeps_its_first_contact(
    pin_factory: Any, delivered: tuple[int, ...]
) -> None:
    """gpio-sim drops an edge that comes while the line's interrupt is masked for the one
    before's threaded handler (docs/hardware-facts.md, "gpio-sim drops edges"): of a press
    bouncing five times within 1.8 ms only the edges ``delivered`` (indices) reach lgpio,
    the rest move the line unseen, and it ends held.  Seat 1 presses cleanly 2 ms after
    seat 0's first contact.  Seat 0's Press is stamped within the bound of its first
    contact whether the edges seen are odd or even in number, so it wins; today an even
    count was read as "no edge explains this press" and stamped when read, 30 ms late."""
    lows = bounce(T, [(180 * US, 180 * US)] * 5, 150 * MS)
    bouncer = line_edges(0, lows)
    events: list[object] = []
    plan = [(t, s, p, i in delivered) for i, (t, s, p) in enumerate(bouncer[:-1])]
    plan += [(T + 2 * MS, 1, True, True), (T + 150 * MS, 1, False, True), (*bouncer[-1], True)]
    with SlapButtons(PINS, events.append) as slaps:
        due: int | None = None
        for t, seat, pressed, seen in sorted(plan):
            while due is not None and due < t:
                due = slaps.settle(due)
            edge(pin_factory, PINS[seat], pressed, t, deliver=seen)
            due = slaps.settle(t)
        while due is not None:
            due = slaps.settle(due)
    first = presses(events, 0)
    assert len(first) == 1 and len(presses(events, 1)) == 1
    assert T - BOUND <= first[0] <= T + BOUND
    assert first[0] < presses(events, 1)[0]


def test_a_silent_spike_at_the_second_look_after_a_glitch_is_not_a_slap(
    pin_factory: Any,
) -> None:
    """A 10 us spike at T is decided a glitch at its check; the line is read once more a
    lockout later, in case a dropped edge left it pressed.  A second spike whose edges were
    both dropped holds the line low at that reading for 0.5 ms: the press found there is
    confirmed like any other, read again 1 ms later, released, so it is no slap."""
    events: list[object] = []
    with SlapButtons(PINS, events.append) as slaps:
        edge(pin_factory, 17, True, T)
        edge(pin_factory, 17, False, T + 10 * US)
        look = slaps.settle(T + 10 * US)
        while look is not None and look < T + 20 * MS:
            look = slaps.settle(look)
        assert look == T + 10 * US + 1 * MS + 30 * MS  # the second look
        edge(pin_factory, 17, True, look - 100 * US, deliver=False)
        due = slaps.settle(look)
        edge(pin_factory, 17, False, look + 400 * US, deliver=False)
        while due is not None:
            due = slaps.settle(due)
    assert events == []
