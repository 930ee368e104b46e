"""The GPIO plumbing: tick conversion, the timestamp debouncer, the EdgeMockPin seam."""

from __future__ import annotations

from typing import Any

import pytest
from gpiozero import Button  # type: ignore[import-untyped]
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from drivers.errors import DriverValueError
from drivers.gpio import (
    EdgeDebouncer,
    EdgeMockPin,
    Transition,
    drive_at,
    edge,
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


def test_debouncer_first_release_edge_when_up_reports_nothing() -> None:
    """Believed up (held at open), a release edge reports nothing; the next press reports."""
    d = EdgeDebouncer(lockout_ns=30 * MS)
    assert d.edge(False, 0) == []
    assert d.edge(True, 10 * MS) == []  # within the lockout of that release
    assert d.edge(False, 20 * MS) == []
    assert d.edge(True, 60 * MS) == [(True, 60 * MS)]


def test_debouncer_earlier_tick_on_same_line_is_swallowed() -> None:
    """An edge with a tick before the accepted edge cannot start anything."""
    d = EdgeDebouncer(lockout_ns=30 * MS)
    assert d.edge(True, 100 * MS) == [(True, 100 * MS)]
    assert d.edge(False, 50 * MS) == []


def test_debouncer_zero_lockout_reports_every_change() -> None:
    """With lockout 0 every level change is reported."""
    d = EdgeDebouncer(lockout_ns=0)
    got = [t for e in [(True, 1), (False, 2), (True, 3)] for t in d.edge(*e)]
    assert got == [(True, 1), (False, 2), (True, 3)]


def test_debouncer_deadline() -> None:
    """deadline_ns is the last swallowed edge + lockout, None when nothing is pending."""
    d = EdgeDebouncer(lockout_ns=30)
    assert d.deadline_ns() is None
    d.edge(True, 100)
    d.edge(False, 105)
    d.edge(True, 107)
    assert d.deadline_ns() == 137
    assert d.settle(137) == []  # the line ended down, as believed
    assert d.deadline_ns() is None


_gaps = st.lists(st.integers(min_value=0, max_value=80 * MS), min_size=1, max_size=40)


def _run(gaps: list[int], lockout: int) -> tuple[list[Transition], list[Transition]]:
    """Feed alternating press/release edges with the given gaps; return (edges, reports)."""
    d = EdgeDebouncer(lockout_ns=lockout)
    t = 1_000 * MS
    edges: list[Transition] = []
    out: list[Transition] = []
    for i, gap in enumerate(gaps):
        t += gap
        edges.append((i % 2 == 0, t))
        out += d.edge(i % 2 == 0, t)
    out += d.settle(t + lockout)
    return edges, out


@seed(20240601)
@settings(max_examples=300, deadline=None)
@given(gaps=_gaps)
def test_debouncer_reports_alternate_and_use_real_edge_times(gaps: list[int]) -> None:
    """Reports alternate press/release from a press; each press time is a real press edge."""
    edges, out = _run(gaps, 30 * MS)
    assert [p for p, _ in out] == [i % 2 == 0 for i in range(len(out))]
    press_times = {t for p, t in edges if p}
    edge_times = {t for _, t in edges}
    assert all(t in press_times for p, t in out if p)
    assert all(t in edge_times for _, t in out)
    assert [t for _, t in out] == sorted(t for _, t in out)


@seed(20240602)
@settings(max_examples=200, deadline=None)
@given(gaps=_gaps)
def test_debouncer_passes_clean_edges_through(gaps: list[int]) -> None:
    """When every gap is at least the lockout, every edge is reported as it came."""
    edges, out = _run([max(g, 30 * MS) for g in gaps], 30 * MS)
    assert out == edges


@seed(20240603)
@settings(max_examples=200, deadline=None)
@given(gaps=st.lists(st.integers(min_value=0, max_value=500_000), min_size=1, max_size=40))
def test_debouncer_burst_inside_lockout_is_one_press(gaps: list[int]) -> None:
    """A burst under the lockout (< 20 ms here) is one press at its first edge.

    If the burst ends released, settle() then reports one release at its last edge.
    """
    edges, out = _run(gaps, 30 * MS)
    expected = [edges[0]] if edges[-1][0] else [edges[0], edges[-1]]
    assert out == expected
