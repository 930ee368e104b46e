"""Slap arbitration through gpiozero: MockFactory pins with chosen edge ticks ->
drivers.slap.SlapButtons (Press/Release, debounce) -> SlapArbiter (docs/architecture.md "Slap
arbitration" 2, 3, 5, 6)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from device.slaps.arbiter import SlapArbiter, SlapDecision, Verdict
from drivers.gpio import edge, mock_pin_factory
from drivers.slap import Press, Release, SlapButtons

MS = 1_000_000
US = 1_000
OPEN = 5_000 * MS  # the engine applied the action that shows a reverse (loop clock)
T0 = OPEN + 17 * MS  # the frame showing it was flipped
PINS = {0: 17, 1: 27, 2: 22}
CHECKED = 2 * MS
"""A press is posted 2 ms after its last edge: the check reads the line 1 ms after it and
again 1 ms later (drivers.slap.DEFAULT_CONFIRM_NS)."""


class Rig:
    """Three slap buttons on a MockFactory, their posted events and an arbiter."""

    def __init__(self, factory: Any, buttons: SlapButtons, events: list[object]) -> None:
        self.factory = factory
        self.buttons = buttons
        self.events = events
        self.arbiter = SlapArbiter(len(PINS), random.Random(11))
        self.now = 0
        """The loop's clock: the latest time it ran the buttons' ticker (ns)."""
        self.due: int | None = None

    def edge(self, seat: int, pressed: bool, t_ns: int) -> None:
        """Drive seat ``seat``'s line at edge time ``t_ns`` (handlers run now, in order);
        the callback reaches the loop at ``t_ns`` (or, stamped in the loop's past, now: a
        late callback), which runs the buttons' ticker at once, as a wake-up does."""
        edge(self.factory, PINS[seat], pressed, t_ns)
        self.now = max(self.now, t_ns)
        self.due = self.buttons.settle(self.now)

    def tick(self, now_ns: int) -> None:
        """The loop's clock moves on to ``now_ns``, running the buttons' ticker at every
        deadline it gave on the way (a press's check's two readings, a lockout's end)."""
        while self.due is not None and self.due <= now_ns:
            self.now = max(self.now, self.due)
            self.due = self.buttons.settle(self.now)
        self.now = max(self.now, now_ns)

    def feed(self, now_ns: int) -> list[tuple[int, Verdict]]:
        """Hand every posted event to the arbiter as the device loop would, at ``now_ns``
        (the buttons' ticker runs up to then first: it posts the presses whose check is
        due, stamped at their first edge); returns (seat, verdict) per press."""
        self.tick(now_ns)
        verdicts = []
        for event in self.events:
            if isinstance(event, Press):
                verdicts.append((event.seat, self.arbiter.press(event, now_ns)))
            elif isinstance(event, Release):
                self.arbiter.release(event.seat, event.t_ns)
        self.events.clear()
        return verdicts

    def decide(self) -> SlapDecision:
        """Poll at the arbiter's deadline; a decision must be due there."""
        deadline = self.arbiter.next_deadline_ns()
        assert deadline is not None
        decision = self.arbiter.poll(deadline)
        assert decision is not None
        return decision


@pytest.fixture
def rig() -> Iterator[Rig]:
    """A fresh rig; the buttons are closed afterwards (no global pin factory is touched)."""
    factory = mock_pin_factory()
    events: list[object] = []
    with SlapButtons(PINS, events.append, pin_factory=factory) as buttons:
        yield Rig(factory, buttons, events)
    factory.reset()


def bounce(rig: Rig, seat: int, t_ns: int) -> None:
    """A press with a sub-millisecond bounce burst: down, up, down, up, down within 0.8 ms."""
    for k, pressed in enumerate((True, False, True, False, True)):
        rig.edge(seat, pressed, t_ns + k * 200 * US)


def test_earliest_edge_wins_though_its_callback_ran_last(rig: Rig) -> None:
    """Seat 2's edge is delivered (and confirmed) first, seat 1's earlier edge (bouncing)
    after: seat 1 wins."""
    arb = rig.arbiter
    arb.engine_window_opened(OPEN)
    arb.flipped(T0)
    rig.edge(2, True, T0 + 212 * MS)
    rig.tick(T0 + 212 * MS + CHECKED)
    bounce(rig, 1, T0 + 209 * MS)  # its callbacks reach the loop at T0 + 214 ms
    rig.tick(T0 + 216 * MS)  # a late look: read at T0 + 215 ms and T0 + 216 ms
    rig.edge(0, True, T0 + 217 * MS)
    rig.tick(T0 + 217 * MS + CHECKED)
    assert rig.events == [
        Press(2, T0 + 212 * MS),
        Press(1, T0 + 209 * MS),
        Press(0, T0 + 217 * MS),
    ], "one press per button; the bounce burst is stamped with its first edge"
    verdicts = rig.feed(T0 + 217 * MS + CHECKED)
    assert verdicts == [(2, Verdict.CONTENDER), (1, Verdict.CONTENDER), (0, Verdict.CONTENDER)]
    decision = rig.decide()
    assert (decision.seat, decision.reaction_ns, decision.tie) == (1, 209 * MS, False)


def test_bounce_burst_outside_a_window_is_one_false_slap(rig: Rig) -> None:
    """A bouncing press with no window open gives exactly one false slap (RI-6.5)."""
    bounce(rig, 0, OPEN - 400 * MS)
    assert rig.feed(OPEN - 400 * MS + 800 * US + CHECKED) == [(0, Verdict.FALSE_SLAP)]


def test_a_10_us_spike_is_neither_a_false_slap_nor_a_win(rig: Rig) -> None:
    """Static on seat 1's lead: a 10 us dip outside a window (no false slap, no card) and
    one inside it before seat 3's real press (seat 3 wins, at its own edge)."""
    arb = rig.arbiter
    rig.edge(0, True, OPEN - 300 * MS)
    rig.edge(0, False, OPEN - 300 * MS + 10 * US)
    assert rig.feed(OPEN - 290 * MS) == []
    arb.engine_window_opened(OPEN)
    arb.flipped(T0)
    rig.edge(0, True, T0 + 150 * MS)
    rig.edge(0, False, T0 + 150 * MS + 10 * US)
    assert rig.feed(T0 + 160 * MS) == []
    rig.edge(2, True, T0 + 240 * MS)
    assert rig.feed(T0 + 240 * MS + CHECKED) == [(2, Verdict.CONTENDER)]
    decision = rig.decide()
    assert (decision.seat, decision.reaction_ns) == (2, 240 * MS)
    assert rig.arbiter.stuck == frozenset() and rig.events == []


def test_button_bouncing_across_t0_cannot_win(rig: Rig) -> None:
    """A press just before the flip whose bounces run past t0 makes no fresh edge."""
    arb = rig.arbiter
    arb.engine_window_opened(OPEN)
    arb.flipped(T0)
    bounce(rig, 2, T0 - 300 * US)
    assert rig.feed(T0 + 500 * US + CHECKED) == [(2, Verdict.BEFORE_FLIP)]
    assert arb.poll(T0 + 500 * MS) is None and not arb.pending


def test_held_button_wins_only_after_release_and_fresh_press(rig: Rig) -> None:
    """Held down since before t0: no win; released and pressed again after t0: it counts."""
    arb = rig.arbiter
    arb.engine_window_opened(OPEN)
    rig.edge(0, True, OPEN + 2 * MS)
    arb.flipped(T0)
    assert rig.feed(T0 + MS) == [(0, Verdict.BEFORE_FLIP)]
    assert arb.poll(T0 + 900 * MS) is None
    rig.edge(0, False, T0 + 950 * MS)
    rig.edge(0, True, T0 + 1_100 * MS)
    assert rig.feed(T0 + 1_100 * MS + CHECKED) == [(0, Verdict.CONTENDER)]
    assert rig.decide().reaction_ns == 1_100 * MS


def test_short_tap_is_not_reported_stuck(rig: Rig) -> None:
    """A tap shorter than the lockout: the driver's settle posts the swallowed release, so
    the arbiter has no stuck check pending."""
    tap = OPEN - 800 * MS
    rig.edge(1, True, tap)
    rig.edge(1, False, tap + 20 * MS)
    assert rig.feed(tap + 21 * MS) == [(1, Verdict.FALSE_SLAP)]
    assert rig.arbiter.next_deadline_ns() == tap + 3_000 * MS
    rig.buttons.settle(tap + 60 * MS)
    rig.feed(tap + 60 * MS)
    assert rig.arbiter.next_deadline_ns() is None
    assert rig.arbiter.poll(tap + 4_000 * MS) is None and rig.arbiter.stuck == frozenset()


def win_and_close(rig: Rig, seat: int, t_ns: int) -> tuple[SlapDecision, int]:
    """``seat``'s edge at ``t_ns`` wins the open window (posted once checked); the console
    closes the window at the decision.  Returns the decision and the close time."""
    rig.edge(seat, True, t_ns)
    assert rig.feed(t_ns + CHECKED) == [(seat, Verdict.CONTENDER)]
    decision = rig.decide()
    closed = t_ns + CHECKED + rig.arbiter.settle_ns
    rig.arbiter.window_closed(closed)
    return decision, closed


@pytest.mark.parametrize("after_ms", [1, 50, 200])
def test_losing_slapper_after_the_close_is_not_a_false_slap(rig: Rig, after_ms: int) -> None:
    """RI-6.5: seat 1 slaps (bouncing) 1, 50 or 200 ms after seat 0's winning edge; its one
    press, read after the window closed, is LOSING, never FALSE_SLAP."""
    arb = rig.arbiter
    arb.engine_window_opened(OPEN)
    arb.flipped(T0)
    winner = T0 + 230 * MS
    decision, closed = win_and_close(rig, 0, winner)
    assert decision.seat == 0
    t = winner + after_ms * MS
    bounce(rig, 1, t)
    assert rig.feed(max(t + 800 * US + CHECKED, closed + MS)) == [(1, Verdict.LOSING)]


def test_losing_press_35_ms_after_the_next_flip_cannot_win_it(rig: Rig) -> None:
    """RI-6.6: a new reverse right after the resolution; seat 1's losing slap lands 35 ms
    after its flip (too soon to be a reaction to it): LOSING.  Seat 2's real reaction wins."""
    arb = rig.arbiter
    arb.engine_window_opened(OPEN)
    arb.flipped(T0)
    _, closed = win_and_close(rig, 0, T0 + 190 * MS)
    arb.engine_window_opened(closed)
    flip = closed + 17 * MS
    arb.flipped(flip)
    bounce(rig, 1, flip + 35 * MS)
    assert rig.feed(flip + 35 * MS + 800 * US + CHECKED) == [(1, Verdict.LOSING)]
    assert not arb.pending
    rig.edge(2, True, flip + 240 * MS)
    assert rig.feed(flip + 240 * MS + CHECKED) == [(2, Verdict.CONTENDER)]
    decision = rig.decide()
    assert (decision.seat, decision.reaction_ns) == (2, 240 * MS)


def test_earliest_edge_read_after_the_decision_is_logged_with_its_margin(rig: Rig) -> None:
    """Seat 1's edge is 10 ms earlier than seat 2's but is delivered after the decision:
    the log says so, with the margin, and seat 2 keeps the window."""
    arb = rig.arbiter
    arb.engine_window_opened(OPEN)
    arb.flipped(T0)
    rig.edge(2, True, T0 + 260 * MS)
    assert rig.feed(T0 + 260 * MS + CHECKED) == [(2, Verdict.CONTENDER)]
    decision = rig.decide()
    rig.edge(1, True, T0 + 250 * MS)
    assert rig.feed(T0 + 280 * MS) == [(1, Verdict.DECIDED)]
    log = arb.drain_log()
    assert log[0] == decision and decision.seat == 2
    assert [entry.describe() for entry in log[1:]] == [
        "seat 2 was earlier by 10 ms but arrived late (seat 3 won)"
    ]


def test_earliest_edge_read_after_the_close_is_logged_with_its_margin(rig: Rig) -> None:
    """The same late edge delivered once the window has closed: LATE, logged with the
    margin in its JSON (0-based seat), and no false slap."""
    arb = rig.arbiter
    arb.engine_window_opened(OPEN)
    arb.flipped(T0)
    _, closed = win_and_close(rig, 2, T0 + 260 * MS)
    arb.drain_log()
    rig.edge(0, True, T0 + 257 * MS)
    assert rig.feed(closed + 30 * MS) == [(0, Verdict.LATE)]
    (note,) = arb.drain_log()
    assert note.to_json() == {
        "kind": "late",
        "seat": 0,
        "t_ns": T0 + 257 * MS,
        "margin_ns": 3 * MS,
        "winner": 2,
    }
