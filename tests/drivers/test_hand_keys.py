"""Wired handheld keys on GPIO: KeyPress with edge times, the belief-and-lockout debounce,
auto-repeat on LEFT/RIGHT and the long BACK ("menu") driven by settle(now_ns) with chosen
ticks and a fake now, errors."""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

import pytest

from drivers.errors import DriverClosedError, DriverError, DriverValueError, NotWiredError
from drivers.gpio import edge
from drivers.keys import (
    KEY_NAMES,
    MENU_HOLD_NS,
    MENU_KEY,
    REPEAT_DELAY_NS,
    REPEAT_INTERVAL_NS,
    REPEAT_KEYS,
    HandKeys,
    KeyPress,
)

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
    assert str(info.value) == "seat 3 handheld keys: no key 'back' (keys: left)"


def test_unknown_key_name_is_refused(pin_factory: Any, events: list[object]) -> None:
    """A key name outside left/right/select/back is one line naming the seat and the name."""
    with pytest.raises(DriverValueError) as info:
        HandKeys(4, {"left": 5, "up": 6}, events.append)
    assert str(info.value) == (
        "seat 5 handheld keys: unknown key 'up' (keys: left, right, select, back)"
    )


def test_bad_pin_names_seat_key_and_pin(pin_factory: Any, events: list[object]) -> None:
    """A bad pin names the seat, the key and the pin; the keys opened before are freed."""
    with pytest.raises(DriverError) as info:
        HandKeys(1, {"left": 5, "right": "GPIO77"}, events.append)
    assert str(info.value).startswith("seat 2 right key at GPIO77: not a GPIO pin name")
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
    """KeyPress compares by value (a repeat differs from a press) and cannot be changed."""
    assert KeyPress(1, "left", 5) == KeyPress(1, "left", 5, repeat=False)
    assert KeyPress(1, "left", 5) != KeyPress(1, "left", 5, repeat=True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        KeyPress(1, "left", 5).key = "right"  # type: ignore[misc]


def test_left_held_repeats_after_400_ms_then_every_120_ms(
    pin_factory: Any, events: list[object]
) -> None:
    """A held LEFT: first repeat at press + 400 ms, then every 120 ms; release stops it."""
    with HandKeys(2, PINS, events.append) as keys:
        edge(pin_factory, 5, True, T)
        assert keys.settle(T + 30 * MS) == T + 400 * MS  # lockout over: next is the repeat
        assert keys.settle(T + 399 * MS) == T + 400 * MS
        assert events == [KeyPress(2, "left", T)]
        assert keys.settle(T + 400 * MS) == T + 520 * MS
        assert keys.settle(T + 520 * MS) == T + 640 * MS
        edge(pin_factory, 5, False, T + 600 * MS)
        assert keys.settle(T + 900 * MS) is None
    assert events == [
        KeyPress(2, "left", T),
        KeyPress(2, "left", T + 400 * MS, repeat=True),
        KeyPress(2, "left", T + 520 * MS, repeat=True),
    ]


def test_a_late_ticker_gets_one_repeat_not_a_burst(pin_factory: Any, events: list[object]) -> None:
    """The loop wakes 650 ms late: one repeat, stamped at the latest scheduled time."""
    with HandKeys(0, PINS, events.append) as keys:
        edge(pin_factory, 6, True, T)
        assert keys.settle(T + 1_050 * MS) == T + 1_120 * MS
        assert keys.settle(T + 1_120 * MS) == T + 1_240 * MS
    assert events == [
        KeyPress(0, "right", T),
        KeyPress(0, "right", T + 1_000 * MS, repeat=True),
        KeyPress(0, "right", T + 1_120 * MS, repeat=True),
    ]


def test_left_and_right_repeat_independently_in_time_order(
    pin_factory: Any, events: list[object]
) -> None:
    """Both held (50 ms apart): their repeats interleave by time within one settle call."""
    with HandKeys(1, PINS, events.append) as keys:
        edge(pin_factory, 6, True, T)
        edge(pin_factory, 5, True, T - 50 * MS)  # delivered second, pressed first
        assert keys.settle(T + 400 * MS) == T + 470 * MS
    assert events == [
        KeyPress(1, "right", T),
        KeyPress(1, "left", T - 50 * MS),
        KeyPress(1, "left", T + 350 * MS, repeat=True),
        KeyPress(1, "right", T + 400 * MS, repeat=True),
    ]


def test_select_held_does_not_repeat(pin_factory: Any, events: list[object]) -> None:
    """SELECT held for 5 s posts its one press; the ticker has nothing to wait for."""
    with HandKeys(0, PINS, events.append) as keys:
        edge(pin_factory, 13, True, T)
        assert keys.settle(T + 30 * MS) is None
        assert keys.settle(T + 5_000 * MS) is None
    assert events == [KeyPress(0, "select", T)]


def test_a_tap_shorter_than_the_lockout_never_repeats(
    pin_factory: Any, events: list[object]
) -> None:
    """LEFT tapped for 10 ms: the release hidden in the lockout is found by settle(), so no
    repeat comes at 400 ms."""
    with HandKeys(0, PINS, events.append) as keys:
        edge(pin_factory, 5, True, T)
        edge(pin_factory, 5, False, T + 10 * MS)
        assert keys.settle(T + 40 * MS) is None  # 30 ms after the release edge
        assert keys.settle(T + 1_000 * MS) is None
    assert events == [KeyPress(0, "left", T)]


def test_back_held_two_seconds_posts_menu_once(pin_factory: Any, events: list[object]) -> None:
    """BACK posts "back" at once, then "menu" when it has been down 2 s; only once."""
    with HandKeys(3, PINS, events.append) as keys:
        edge(pin_factory, 19, True, T)
        assert keys.settle(T + 1_999 * MS) == T + 2_000 * MS
        assert events == [KeyPress(3, "back", T)]
        assert keys.settle(T + 2_000 * MS) is None
        assert keys.settle(T + 6_000 * MS) is None
        edge(pin_factory, 19, False, T + 6_500 * MS)
        assert keys.settle(T + 7_000 * MS) is None
    assert events == [KeyPress(3, "back", T), KeyPress(3, MENU_KEY, T + 2_000 * MS)]
    assert MENU_KEY == "menu"


def test_back_released_before_two_seconds_is_an_ordinary_back(
    pin_factory: Any, events: list[object]
) -> None:
    """BACK down 1.5 s: just "back", no menu, however late the ticker runs after."""
    with HandKeys(0, PINS, events.append) as keys:
        edge(pin_factory, 19, True, T)
        edge(pin_factory, 19, False, T + 1_500 * MS)
        assert keys.settle(T + 3_000 * MS) is None
    assert events == [KeyPress(0, "back", T)]


def test_back_released_after_two_seconds_before_the_ticker_ran(
    pin_factory: Any, events: list[object]
) -> None:
    """The loop did not wake between 2 s and the release at 2.3 s: the release itself posts
    the menu it had earned, stamped at 2 s, before the release takes effect."""
    with HandKeys(0, PINS, events.append) as keys:
        edge(pin_factory, 19, True, T)
        edge(pin_factory, 19, False, T + 2_300 * MS)
        assert keys.settle(T + 3_000 * MS) is None
    assert events == [KeyPress(0, "back", T), KeyPress(0, "menu", T + 2_000 * MS)]


def test_timings_can_be_set_and_bad_ones_are_refused(
    pin_factory: Any, events: list[object]
) -> None:
    """repeat_delay_ns / repeat_interval_ns / menu_hold_ns are ints > 0; they are used."""
    with HandKeys(
        0, PINS, events.append, repeat_delay_ns=200 * MS, repeat_interval_ns=50 * MS,
        menu_hold_ns=1_000 * MS,
    ) as keys:
        edge(pin_factory, 5, True, T)
        edge(pin_factory, 19, True, T)
        keys.settle(T + 250 * MS)
        keys.settle(T + 1_000 * MS)
    assert events == [
        KeyPress(0, "left", T),
        KeyPress(0, "back", T),
        KeyPress(0, "left", T + 250 * MS, repeat=True),
        KeyPress(0, "left", T + 1_000 * MS, repeat=True),
        KeyPress(0, "menu", T + 1_000 * MS),
    ]
    bad_timings: list[tuple[str, Any]] = [
        ("repeat_delay_ns", 0), ("repeat_interval_ns", -5), ("menu_hold_ns", 2.0)
    ]
    for name, bad in bad_timings:
        kwargs: dict[str, Any] = {name: bad}
        with pytest.raises(DriverValueError) as info:
            HandKeys(4, PINS, events.append, **kwargs)
        assert str(info.value) == (
            f"seat 5 handheld keys: {name} must be an int > 0 nanoseconds, got {bad!r}"
        )


def test_a_raising_post_does_not_stop_the_repeats(
    pin_factory: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The first repeat's post raises: logged, and the next repeat still goes out."""
    got: list[object] = []

    def post(event: object) -> None:
        got.append(event)
        if len(got) == 2:
            raise OSError("queue gone")

    with caplog.at_level(logging.ERROR, logger="drivers.gpio"), HandKeys(0, PINS, post) as keys:
        edge(pin_factory, 6, True, T)
        assert keys.settle(T + 400 * MS) == T + 520 * MS
        assert keys.settle(T + 520 * MS) == T + 640 * MS
    assert got == [
        KeyPress(0, "right", T),
        KeyPress(0, "right", T + 400 * MS, repeat=True),
        KeyPress(0, "right", T + 520 * MS, repeat=True),
    ]
    assert "seat 1 handheld keys: post(KeyPress(" in caplog.text
    assert "OSError: queue gone" in caplog.text


def test_wrong_level_key_events_still_give_one_press(
    pin_factory: Any, events: list[object]
) -> None:
    """A bouncing SELECT whose first event says "released": one press at the first edge."""
    with HandKeys(0, PINS, events.append) as keys:
        edge(pin_factory, 13, True, T, reads=False)
        edge(pin_factory, 13, False, T + 60_000, reads=True)
        edge(pin_factory, 13, True, T + 90_000, reads=False)
        assert keys.settle(T + 30 * MS + 90_000) is None
    assert events == [KeyPress(0, "select", T)]


def test_closed_keys_settle_to_nothing(pin_factory: Any, events: list[object]) -> None:
    """After close(), settle() posts nothing and has no deadline, even with a key held."""
    keys = HandKeys(0, PINS, events.append)
    edge(pin_factory, 5, True, T)
    keys.close()
    assert keys.settle(T + 1_000 * MS) is None
    assert events == [KeyPress(0, "left", T)]


def test_repeat_and_menu_timings_are_the_documented_ones() -> None:
    """400 ms to the first repeat, 120 ms between, 2 s for the menu; only LEFT/RIGHT repeat."""
    assert (REPEAT_DELAY_NS, REPEAT_INTERVAL_NS, MENU_HOLD_NS) == (400 * MS, 120 * MS, 2_000 * MS)
    assert REPEAT_KEYS == ("left", "right")
