"""Clocks: the monotonic clock and the fake clock tests and headless runs drive."""

from __future__ import annotations

import pytest

from drivers.clock import Clock, FakeClock, MonotonicClock


def test_monotonic_clock_never_goes_back() -> None:
    """Two readings of the real clock are ints and do not decrease."""
    clock = MonotonicClock()
    first = clock.now_ns()
    second = clock.now_ns()
    assert isinstance(first, int)
    assert second >= first


def test_fake_clock_moves_only_when_told() -> None:
    """FakeClock reads its start, then exactly what advance/set make it."""
    clock = FakeClock(start_ns=10)
    assert clock.now_ns() == 10
    assert clock.now_ns() == 10
    assert clock.advance(5) == 15
    assert clock.set(100) == 100
    assert clock.now_ns() == 100
    assert clock.advance(0) == 100
    assert repr(clock) == "FakeClock(start_ns=100)"


def test_fake_clock_refuses_to_go_back() -> None:
    """A negative step, a set into the past or a float are ValueErrors."""
    clock = FakeClock(start_ns=50)
    with pytest.raises(ValueError, match="ns must be >= 0"):
        clock.advance(-1)
    with pytest.raises(ValueError, match="49 is before the current time 50"):
        clock.set(49)
    with pytest.raises(ValueError, match="must be an int of nanoseconds"):
        clock.advance(1.5)  # type: ignore[arg-type]
    assert clock.now_ns() == 50


def test_both_clocks_satisfy_the_protocol() -> None:
    """MonotonicClock and FakeClock are Clocks."""
    assert isinstance(MonotonicClock(), Clock)
    assert isinstance(FakeClock(), Clock)
