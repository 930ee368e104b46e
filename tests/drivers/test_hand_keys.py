"""Wired handheld keys on GPIO: KeyPress with edge times, timestamp debounce, errors."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from drivers.errors import DriverClosedError, DriverError, DriverValueError, NotWiredError
from drivers.gpio import edge
from drivers.keys import KEY_NAMES, HandKeys, KeyPress

MS = 1_000_000
T = 9_000_000_000
PINS = {"left": 5, "right": 6, "select": 13, "back": 19}


def test_each_key_posts_its_press_with_the_edge_time(
    pin_factory: Any, events: list[object]
) -> None:
    """Pressing each key posts KeyPress(seat, key, edge time); releases post nothing."""
    with HandKeys(3, PINS, events.append) as keys:
        for i, name in enumerate(KEY_NAMES):
            edge(pin_factory, PINS[name], True, T + i * 100 * MS)
            edge(pin_factory, PINS[name], False, T + i * 100 * MS + 50 * MS)
        assert keys.seat == 3
        assert keys.keys == KEY_NAMES
    assert events == [KeyPress(3, name, T + i * 100 * MS) for i, name in enumerate(KEY_NAMES)]


def test_key_bounce_gives_one_press(pin_factory: Any, events: list[object]) -> None:
    """A chattering key press posts one KeyPress at its first edge."""
    with HandKeys(0, PINS, events.append):
        for i in range(7):
            edge(pin_factory, 13, i % 2 == 0, T + i * 200_000)
        edge(pin_factory, 13, False, T + 60 * MS)
        edge(pin_factory, 13, True, T + 120 * MS)
    assert events == [KeyPress(0, "select", T), KeyPress(0, "select", T + 120 * MS)]


def test_some_keys_may_be_left_out(pin_factory: Any, events: list[object]) -> None:
    """A handheld without a back key opens with the keys it has, in KEY_NAMES order."""
    with HandKeys(1, {"right": 6, "left": 5}, events.append) as keys:
        assert keys.keys == ("left", "right")
        edge(pin_factory, 6, True, T)
    assert events == [KeyPress(1, "right", T)]


def test_is_held_reads_the_line(pin_factory: Any, events: list[object]) -> None:
    """is_held(key) follows the line; an unwired key is a NotWiredError (LookupError)."""
    with HandKeys(2, {"left": 5}, events.append) as keys:
        assert not keys.is_held("left")
        edge(pin_factory, 5, True, T)
        assert keys.is_held("left")
        with pytest.raises(LookupError) as info:
            keys.is_held("back")
    assert isinstance(info.value, NotWiredError)
    assert str(info.value) == "seat 2 handheld keys: no key 'back' (keys: left)"


def test_unknown_key_name_is_refused(pin_factory: Any, events: list[object]) -> None:
    """A key name outside left/right/select/back is one line naming the seat and the name."""
    with pytest.raises(DriverValueError) as info:
        HandKeys(4, {"left": 5, "up": 6}, events.append)
    assert str(info.value) == (
        "seat 4 handheld keys: unknown key 'up' (keys: left, right, select, back)"
    )


def test_bad_pin_names_seat_key_and_pin(pin_factory: Any, events: list[object]) -> None:
    """A bad pin names the seat, the key and the pin; the keys opened before are freed."""
    with pytest.raises(DriverError) as info:
        HandKeys(1, {"left": 5, "right": "GPIO77"}, events.append)
    assert str(info.value).startswith("seat 1 right key at GPIO77: not a GPIO pin name")
    with HandKeys(1, {"left": 5}, events.append):
        edge(pin_factory, 5, True, T)
    assert events == [KeyPress(1, "left", T)]


def test_close_twice_and_no_events_after(pin_factory: Any, events: list[object]) -> None:
    """close() is idempotent; a closed handheld posts nothing and refuses is_held."""
    keys = HandKeys(0, PINS, events.append)
    keys.close()
    keys.close()
    edge(pin_factory, 5, True, T)
    assert events == []
    with pytest.raises(DriverClosedError):
        keys.is_held("left")


@pytest.mark.parametrize("seat", [-1, True, "2"])
def test_bad_seat_is_refused(pin_factory: Any, events: list[object], seat: Any) -> None:
    """The seat must be an int >= 0."""
    with pytest.raises(DriverValueError, match="seat must be an int >= 0"):
        HandKeys(seat, PINS, events.append)


def test_keypress_is_a_frozen_value() -> None:
    """KeyPress compares by value and cannot be changed."""
    assert KeyPress(1, "left", 5) == KeyPress(1, "left", 5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        KeyPress(1, "left", 5).key = "right"  # type: ignore[misc]
