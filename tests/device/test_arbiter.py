"""Slap arbitration (architecture "Slap arbitration" 1-7; RI-6.3, RI-6.5, RI-2.3) on a fake
clock: every edge tick and every loop time is an int of ns chosen by the test."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from device.arbiter import (
    ButtonNote,
    Contender,
    ReplayMismatchError,
    SlapArbiter,
    SlapDecision,
    Verdict,
)

MS = 1_000_000
OPEN = 1_000 * MS  # the engine applied the action that shows a reverse (loop clock)
T0 = OPEN + 20 * MS  # the frame showing it was flipped


@dataclass(frozen=True)
class Press:
    """A press edge as drivers.slap delivers it: seat and the edge's own ns timestamp."""

    seat: int
    t_ns: int


def open_window(seats: int = 4, seed: int = 1, eligible: set[int] | None = None) -> SlapArbiter:
    """An arbiter with an engine window opened at OPEN and the reverse flipped at T0."""
    arb = SlapArbiter(seats, random.Random(seed))
    arb.engine_window_opened(OPEN, eligible)
    assert arb.flipped(T0)
    return arb


def settle(arb: SlapArbiter) -> SlapDecision:
    """Poll at the arbiter's deadline and return the decision it must make there."""
    deadline = arb.next_deadline_ns()
    assert deadline is not None
    decision = arb.poll(deadline)
    assert decision is not None
    return decision


def test_earlier_edge_arriving_later_wins() -> None:
    """An edge with an earlier timestamp wins although its callback was read second."""
    arb = open_window()
    assert arb.press(Press(2, T0 + 180 * MS), T0 + 181 * MS) is Verdict.CONTENDER
    assert arb.press(Press(1, T0 + 179 * MS), T0 + 182 * MS) is Verdict.CONTENDER
    decision = settle(arb)
    assert (decision.seat, decision.t_ns, decision.reaction_ns) == (1, T0 + 179 * MS, 179 * MS)
    assert not decision.tie
    assert decision.contenders == (
        Contender(1, T0 + 179 * MS, 179 * MS),
        Contender(2, T0 + 180 * MS, 180 * MS),
    )


def test_press_during_settle_time_with_earlier_timestamp_wins() -> None:
    """A press read inside the settle time that carries an earlier edge wins; the settle
    time runs from the first counted press on the loop clock and is not extended."""
    arb = open_window()
    first_read = T0 + 250 * MS
    arb.press(Press(3, T0 + 240 * MS), first_read)
    assert arb.next_deadline_ns() == first_read + 5 * MS
    assert arb.poll(first_read + 2 * MS) is None
    assert arb.press(Press(0, T0 + 238 * MS), first_read + 4 * MS) is Verdict.CONTENDER
    assert arb.next_deadline_ns() == first_read + 5 * MS
    assert arb.poll(first_read + 5 * MS - 1) is None
    decision = arb.poll(first_read + 5 * MS)
    assert decision is not None and decision.seat == 0
    assert arb.poll(first_read + 6 * MS) is None, "a window is decided once"


def test_press_read_after_the_decision_is_ignored_and_logged_as_late() -> None:
    """A counted press read after the decision is ignored; an earlier one is logged 'late'."""
    arb = open_window()
    arb.press(Press(1, T0 + 300 * MS), T0 + 301 * MS)
    decision = settle(arb)
    assert decision.seat == 1
    assert arb.press(Press(2, T0 + 299 * MS), T0 + 400 * MS) is Verdict.DECIDED
    assert arb.press(Press(3, T0 + 350 * MS), T0 + 401 * MS) is Verdict.DECIDED
    assert arb.drain_log() == (decision, ButtonNote("late", 2, T0 + 299 * MS))
    assert arb.drain_log() == ()


def tie_winner(seed: int) -> SlapDecision:
    """Seats 1 and 3 press at the same tick; the device RNG seeded ``seed`` decides."""
    arb = open_window(seed=seed)
    arb.press(Press(3, T0 + 200 * MS), T0 + 201 * MS)
    arb.press(Press(1, T0 + 200 * MS), T0 + 201 * MS)
    arb.press(Press(0, T0 + 210 * MS), T0 + 211 * MS)
    return settle(arb)


def test_seeded_tie_is_reproducible_and_flagged() -> None:
    """Equal timestamps: the same seed gives the same winner, and the tie is flagged."""
    first, again = tie_winner(7), tie_winner(7)
    assert first == again
    assert first.tie and first.tied == (1, 3)
    assert first.draw is not None and first.seat == (1, 3)[first.draw]
    assert first.reaction_ns == 200 * MS


def test_seeded_tie_can_go_either_way() -> None:
    """Over seeds 0..19 both tied seats win sometimes; the slower seat 0 never wins."""
    winners = {tie_winner(seed).seat for seed in range(20)}
    assert winners == {1, 3}


def test_held_button_pressed_before_t0_cannot_win() -> None:
    """A button pressed before the flip and never released makes no fresh edge: no winner."""
    arb = SlapArbiter(4, random.Random(3))
    arb.engine_window_opened(OPEN)
    assert arb.press(Press(2, OPEN + 5 * MS), OPEN + 6 * MS) is Verdict.BEFORE_FLIP
    arb.flipped(T0)
    assert not arb.pending
    assert arb.poll(T0 + 2_000 * MS) is None
    assert arb.next_deadline_ns() == OPEN + 5 * MS + 3_000 * MS, "only the stuck check is due"


def test_press_before_flip_is_neither_win_nor_false_slap_while_window_open() -> None:
    """Inside an engine window: pressed before it opened or before the flip -> ignored."""
    arb = SlapArbiter(3, random.Random(2))
    arb.engine_window_opened(OPEN)
    assert arb.press(Press(0, OPEN - 3 * MS), OPEN + MS) is Verdict.EARLY
    assert arb.press(Press(1, OPEN + 4 * MS), OPEN + 5 * MS) is Verdict.BEFORE_FLIP
    arb.flipped(T0)
    assert arb.press(Press(2, T0 - MS), T0 + MS) is Verdict.BEFORE_FLIP
    assert not arb.pending and arb.poll(T0 + 100 * MS) is None
    assert not any(v.counts for v in (Verdict.EARLY, Verdict.BEFORE_FLIP))


def test_press_before_window_handled_with_no_window_is_false_slap() -> None:
    """Stamped before the engine's window opened and read while none is open: false slap."""
    arb = SlapArbiter(3, random.Random(2))
    assert arb.press(Press(1, OPEN - 10 * MS), OPEN - 9 * MS) is Verdict.FALSE_SLAP
    assert Verdict.FALSE_SLAP.reason == "slapped while no window was open: false slap (RI-6.5)"


def test_press_inside_a_closed_window_read_late_is_ignored() -> None:
    """A press stamped during a window but read after it closed is LATE; one stamped after
    the close is a false slap again."""
    arb = open_window()
    arb.press(Press(0, T0 + 100 * MS), T0 + 101 * MS)
    assert settle(arb).seat == 0
    closed = T0 + 120 * MS
    arb.window_closed(closed)
    assert not arb.window_open and arb.t0_ns is None
    assert arb.press(Press(2, closed - MS), closed + 2 * MS) is Verdict.LATE
    assert arb.press(Press(3, closed + MS), closed + 2 * MS) is Verdict.FALSE_SLAP


def test_computer_players_cannot_win_the_wake_up_race() -> None:
    """RI-2.3: with only seats 0 and 2 eligible, seat 1's earlier press is not counted."""
    arb = open_window(eligible={0, 2})
    assert arb.eligible == frozenset({0, 2})
    assert arb.press(Press(1, T0 + 150 * MS), T0 + 151 * MS) is Verdict.NOT_ELIGIBLE
    assert arb.press(Press(2, T0 + 400 * MS), T0 + 401 * MS) is Verdict.CONTENDER
    decision = settle(arb)
    assert decision.seat == 2 and [c.seat for c in decision.contenders] == [2]


def test_eligible_seat_off_the_table_is_refused() -> None:
    """An eligible set naming a seat the table does not have is a clear ValueError."""
    arb = SlapArbiter(3, random.Random(0))
    with pytest.raises(ValueError, match="eligible seat 5 is not at this 3-seat table"):
        arb.engine_window_opened(OPEN, {0, 5})


def test_stuck_button_is_reported_and_cannot_win_until_released() -> None:
    """Held 3 s: reported stuck (log and .stuck), ignored while stuck, fine once released."""
    arb = SlapArbiter(2, random.Random(0))
    down = 10 * MS
    arb.press(Press(1, down), down + MS)
    assert arb.next_deadline_ns() == down + 3_000 * MS
    assert arb.poll(down + 3_000 * MS - 1) is None and arb.stuck == frozenset()
    arb.poll(down + 3_000 * MS)
    assert arb.stuck == frozenset({1})
    assert arb.drain_log() == (ButtonNote("stuck", 1, down),)
    assert arb.next_deadline_ns() is None
    opened = down + 4_000 * MS
    arb.engine_window_opened(opened)
    arb.flipped(opened + 10 * MS)
    assert arb.press(Press(1, opened + 200 * MS), opened + 201 * MS) is Verdict.STUCK
    assert arb.release(1, opened + 300 * MS) is True
    assert arb.stuck == frozenset()
    assert arb.drain_log()[0].to_json() == {
        "kind": "released",
        "seat": 1,
        "t_ns": opened + 300 * MS,
    }
    assert arb.press(Press(1, opened + 500 * MS), opened + 501 * MS) is Verdict.CONTENDER


def test_next_deadline_is_none_when_nothing_is_pending() -> None:
    """No pending press and no held button: no deadline, the loop may block on events."""
    arb = SlapArbiter(2, random.Random(0))
    assert arb.next_deadline_ns() is None
    arb.engine_window_opened(OPEN)
    arb.flipped(T0)
    assert arb.next_deadline_ns() is None
    arb.press(Press(0, T0 + 90 * MS), T0 + 91 * MS)
    arb.release(0, T0 + 150 * MS)
    assert arb.pending and arb.next_deadline_ns() == T0 + 96 * MS
    settle(arb)
    assert not arb.pending and arb.next_deadline_ns() is None


def test_repeat_press_in_the_same_window_keeps_the_first() -> None:
    """A seat's second fresh press in one window does not replace its first."""
    arb = open_window()
    arb.press(Press(0, T0 + 100 * MS), T0 + 101 * MS)
    arb.release(0, T0 + 102 * MS)
    assert arb.press(Press(0, T0 + 140 * MS), T0 + 141 * MS) is Verdict.REPEAT
    assert settle(arb).t_ns == T0 + 100 * MS


def test_bad_input_never_raises_in_press_and_release() -> None:
    """A press or release from a seat the table does not have is ignored, not an error."""
    arb = open_window(seats=2)
    assert arb.press(Press(7, T0 + MS), T0 + 2 * MS) is Verdict.UNKNOWN_SEAT
    assert arb.press(Press(-1, T0 + MS), T0 + 2 * MS) is Verdict.UNKNOWN_SEAT
    assert arb.release(9, T0) is False
    assert not arb.pending


def test_call_order_errors_and_bad_settings() -> None:
    """Misuse by the loop is a one-line ValueError; flips outside a window change nothing."""
    arb = SlapArbiter(2, random.Random(0))
    assert arb.flipped(T0) is False
    arb.window_closed(T0)
    arb.engine_window_opened(OPEN)
    with pytest.raises(ValueError, match="already open; call window_closed first"):
        arb.engine_window_opened(OPEN + 1)
    assert arb.flipped(T0) is True and arb.flipped(T0 + MS) is False and arb.t0_ns == T0
    with pytest.raises(ValueError, match="seats must be at least 1, got 0"):
        SlapArbiter(0, random.Random(0))
    with pytest.raises(ValueError, match="settle_ns must not be negative, got -1"):
        SlapArbiter(2, random.Random(0), settle_ns=-1)


def test_decision_json_round_trip_and_replay() -> None:
    """A journaled tie replays exactly from the same device seed and is refused from another."""
    decision = tie_winner(7)
    restored = SlapDecision.from_json(decision.to_json())
    assert restored == decision
    assert SlapArbiter(4, random.Random(7)).replay(restored) == decision
    other = next(s for s in range(1, 50) if tie_winner(s).seat != decision.seat)
    with pytest.raises(ReplayMismatchError, match=f"journal says seat {decision.seat}"):
        SlapArbiter(4, random.Random(other)).replay(restored)


def test_decision_from_bad_json_names_the_field() -> None:
    """A malformed journaled decision is a ValueError naming the field."""
    good = tie_winner(1).to_json()
    with pytest.raises(ValueError, match="seat must be an integer"):
        SlapDecision.from_json({**good, "seat": "two"})
    with pytest.raises(ValueError, match="contenders must be a non-empty list"):
        SlapDecision.from_json({**good, "contenders": []})
