"""Slap buttons: edge timestamps, timestamp debounce, errors (architecture.md, item 5)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from drivers.errors import (
    DeviceUnavailableError,
    DriverClosedError,
    DriverError,
    DriverValueError,
    NotWiredError,
)
from drivers.gpio import edge
from drivers.slap import DEFAULT_LOCKOUT_NS, Press, Release, SlapButtons

MS = 1_000_000
US = 1_000
T = 5_000_000_000  # an arbitrary CLOCK_MONOTONIC time, 5 s after boot


def test_press_carries_the_edge_tick(pin_factory: Any, events: list[object]) -> None:
    """A press edge posts Press with the edge's own timestamp, not the time it was handled."""
    with SlapButtons({2: 17}, events.append) as slaps:
        edge(pin_factory, 17, True, T + 123)
        assert events == [Press(2, T + 123)]
        assert slaps.seats == (2,)


def test_bounce_burst_gives_one_press_with_first_edge_time(
    pin_factory: Any, events: list[object]
) -> None:
    """A sub-millisecond press bounce burst posts one Press stamped with its FIRST edge."""
    with SlapButtons({0: 17}, events.append):
        for i in range(9):  # down, up, down, ... every 100 us: ends down
            edge(pin_factory, 17, i % 2 == 0, T + i * 100 * US)
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
    with SlapButtons({0: 17}, events.append):
        edge(pin_factory, 17, True, T)
        edge(pin_factory, 17, False, T + 40 * MS)
        edge(pin_factory, 17, True, T + 80 * MS)
    assert events == [Press(0, T), Release(0, T + 40 * MS), Press(0, T + 80 * MS)]


def test_edge_exactly_at_lockout_end_counts(pin_factory: Any, events: list[object]) -> None:
    """An edge lockout_ns after the accepted edge is outside the lockout; 1 ns earlier is not."""
    with SlapButtons({0: 17, 1: 27}, events.append, lockout_ns=10 * MS):
        edge(pin_factory, 17, True, T)
        edge(pin_factory, 17, False, T + 10 * MS)
        edge(pin_factory, 27, True, T)
        edge(pin_factory, 27, False, T + 10 * MS - 1)
    assert events == [Press(0, T), Release(0, T + 10 * MS), Press(1, T)]


def test_press_while_believed_down_posts_the_swallowed_release_first(
    pin_factory: Any, events: list[object]
) -> None:
    """A quick tap's release swallowed by the lockout is posted before the next Press."""
    with SlapButtons({0: 17}, events.append):
        edge(pin_factory, 17, True, T)
        edge(pin_factory, 17, False, T + 10 * MS)  # inside the 30 ms lockout
        edge(pin_factory, 17, True, T + 50 * MS)
    assert events == [Press(0, T), Release(0, T + 10 * MS), Press(0, T + 50 * MS)]


def test_settle_posts_a_swallowed_release_once_the_line_is_quiet(
    pin_factory: Any, events: list[object]
) -> None:
    """settle(now) posts a tap's swallowed release only a full lockout after that edge."""
    with SlapButtons({0: 17}, events.append) as slaps:
        edge(pin_factory, 17, True, T)
        edge(pin_factory, 17, False, T + 10 * MS)
        assert slaps.settle(T + 39 * MS) == T + 40 * MS
        assert events == [Press(0, T)]
        assert slaps.settle(T + 40 * MS) is None
        assert events == [Press(0, T), Release(0, T + 10 * MS)]
        edge(pin_factory, 17, True, T + 35 * MS)  # a bounce pair within 30 ms of the
        edge(pin_factory, 17, False, T + 36 * MS)  # settled release: swallowed
        edge(pin_factory, 17, True, T + 90 * MS)
    assert events == [Press(0, T), Release(0, T + 10 * MS), Press(0, T + 90 * MS)]


def test_settle_with_nothing_swallowed_posts_nothing(
    pin_factory: Any, events: list[object]
) -> None:
    """settle() on clean edges posts nothing and has no deadline."""
    with SlapButtons({0: 17}, events.append) as slaps:
        edge(pin_factory, 17, True, T)
        assert slaps.settle(T + 1_000 * MS) is None
    assert events == [Press(0, T)]


def test_out_of_order_ticks_across_seats_keep_their_own_times(
    pin_factory: Any, events: list[object]
) -> None:
    """A later callback with an earlier tick is posted later, unreordered, with its own time."""
    with SlapButtons({0: 17, 1: 27}, events.append):
        edge(pin_factory, 27, True, T + 2 * MS)
        edge(pin_factory, 17, True, T + 1 * MS)
    assert events == [Press(1, T + 2 * MS), Press(0, T + 1 * MS)]
    assert min(events, key=lambda e: e.t_ns) == Press(0, T + 1 * MS)  # type: ignore[attr-defined]


def test_lockout_is_per_seat(pin_factory: Any, events: list[object]) -> None:
    """Two seats pressing 1 us apart both get their Press (one seat's lockout is its own)."""
    with SlapButtons({0: 17, 1: 27}, events.append):
        edge(pin_factory, 17, True, T)
        edge(pin_factory, 27, True, T + 1 * US)
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
    with SlapButtons({0: 17}, events.append):
        pin_factory.pin(17).drive_low()
    assert len(events) == 1
    assert isinstance(events[0], Press)
    assert events[0].seat == 0
    assert events[0].t_ns > 0


def test_explicit_pin_factory_argument(events: list[object]) -> None:
    """pin_factory= is used instead of gpiozero's global factory (the simulator's way)."""
    from drivers.gpio import mock_pin_factory

    factory = mock_pin_factory()
    with SlapButtons({4: "GPIO22"}, events.append, pin_factory=factory):
        edge(factory, "GPIO22", True, T)
    assert events == [Press(4, T)]


def test_close_is_idempotent_and_stops_events(pin_factory: Any, events: list[object]) -> None:
    """close() twice is fine; edges after close post nothing; the pins are free again."""
    slaps = SlapButtons({0: 17}, events.append)
    slaps.close()
    slaps.close()
    edge(pin_factory, 17, True, T)
    assert events == []
    assert "closed" in repr(slaps)
    with pytest.raises(DriverClosedError, match="seat 0 slap button: used after close"):
        slaps.is_held(0)
    with SlapButtons({0: 17}, events.append):
        edge(pin_factory, 17, False, T + 100 * MS)
        edge(pin_factory, 17, True, T + 200 * MS)
    assert events == [Press(0, T + 200 * MS)]


def test_bad_pin_names_the_seat_and_pin(pin_factory: Any, events: list[object]) -> None:
    """A pin that is not a pin name is one line naming the seat and pin; opened pins freed."""
    with pytest.raises(DriverError) as info:
        SlapButtons({0: 17, 3: "GPIO99"}, events.append)
    assert isinstance(info.value, DriverValueError)
    assert isinstance(info.value, ValueError)
    assert str(info.value) == (
        "seat 3 slap button at GPIO99: not a GPIO pin name (GPIO99 is not a valid pin name)"
    )
    assert info.value.seat == 3
    with SlapButtons({0: 17}, events.append):  # seat 0's pin was released
        edge(pin_factory, 17, True, T)
    assert events == [Press(0, T)]


def test_pin_used_twice_names_the_second_seat(pin_factory: Any, events: list[object]) -> None:
    """Two seats on one pin: DeviceUnavailableError naming the second seat and the pin."""
    with pytest.raises(DeviceUnavailableError) as info:
        SlapButtons({0: 17, 1: 17}, events.append)
    assert isinstance(info.value, OSError)
    assert str(info.value) == (
        "seat 1 slap button at GPIO17: pin already in use; each button needs its own pin"
    )


class _BusyPinFactory(MockFactory):  # type: ignore[misc]
    """A MockFactory whose pins fail to open like a GPIO line claimed by another process."""

    def pin(self, name: Any, pin_class: Any = None, **kwargs: Any) -> Any:
        raise OSError(16, "GPIO busy")


def test_backend_failure_becomes_device_unavailable(events: list[object]) -> None:
    """A backend error while opening (lgpio 'GPIO busy') names the seat and pin."""
    with pytest.raises(DeviceUnavailableError, match=r"^seat 5 slap button at GPIO6: cannot open"):
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
    assert str(info.value) == "seat 1 slap button: no such seat (seats: [0])"


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
    """The default lockout is 30 ms, as architecture.md item 5 says."""
    assert DEFAULT_LOCKOUT_NS == 30 * MS
