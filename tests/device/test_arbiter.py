"""Slap arbitration (docs/architecture.md "Slap arbitration" 1-7; RI-6.3, RI-6.5, RI-2.3) on a fake
clock: every edge tick and every loop time is an int of ns chosen by the test."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from device.slaps.arbiter import (
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
    late = ButtonNote("late", 2, T0 + 299 * MS, margin_ns=MS, winner=1)
    assert arb.drain_log() == (decision, late)
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
    """A press stamped during a window but read after it closed is ignored: LATE if from
    before the flip or before the winner's edge, LOSING (RI-6.5) if after the winner's."""
    arb = open_window()
    arb.press(Press(0, T0 + 100 * MS), T0 + 101 * MS)
    assert settle(arb).seat == 0
    closed = T0 + 120 * MS
    arb.window_closed(closed)
    assert not arb.window_open and arb.t0_ns is None
    assert arb.press(Press(1, T0 - MS), closed + MS) is Verdict.LATE
    assert arb.press(Press(2, closed - MS), closed + 2 * MS) is Verdict.LOSING
    assert arb.press(Press(3, T0 + 90 * MS), closed + 2 * MS) is Verdict.LATE


def test_press_after_a_timeout_close_is_judged_like_after_a_decision() -> None:
    """A window closed by ``timeout`` (no decision): a press stamped inside it read late is
    LATE with no note; one just after the close is LOSING; after the grace a false slap."""
    arb = open_window()
    closed = T0 + 8_000 * MS
    arb.window_closed(closed)
    assert arb.press(Press(1, closed - MS), closed + MS) is Verdict.LATE
    assert arb.press(Press(2, closed + 300 * MS), closed + 301 * MS) is Verdict.LOSING
    assert arb.drain_log() == ()
    t = closed + arb.grace_ns
    assert arb.press(Press(3, t), t + MS) is Verdict.FALSE_SLAP


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


# --- losing slappers after the close (RI-6.5), the next window (RI-6.6), late margins ------


def decided_and_closed(arb: SlapArbiter, seat: int, t_ns: int) -> tuple[SlapDecision, int]:
    """``seat`` presses at edge ``t_ns`` (read 1 ms later); the window is decided at its
    deadline and closed there, as the console does.  Returns the decision and the close."""
    assert arb.press(Press(seat, t_ns), t_ns + MS) is Verdict.CONTENDER
    decision = settle(arb)
    closed = t_ns + MS + arb.settle_ns
    arb.window_closed(closed)
    return decision, closed


@pytest.mark.parametrize("after_ms", [1, 50, 200])
def test_losing_slapper_read_after_the_close_is_not_a_false_slap(after_ms: int) -> None:
    """RI-6.5: a seat slapping 1, 50 or 200 ms after the winner, its press read once the
    window closed, lost the race: LOSING, never FALSE_SLAP."""
    arb = open_window()
    winner = T0 + 300 * MS
    decision, closed = decided_and_closed(arb, 0, winner)
    assert decision.seat == 0
    t = winner + after_ms * MS
    verdict = arb.press(Press(2, t), max(t, closed) + MS)
    assert verdict is not Verdict.FALSE_SLAP
    assert verdict is Verdict.LOSING and not verdict.counts


def test_press_after_the_grace_period_is_a_false_slap_again() -> None:
    """The grace runs ``grace_ns`` (default 1 s) from the close; from then on RI-6.5 holds."""
    arb = open_window()
    _, closed = decided_and_closed(arb, 0, T0 + 300 * MS)
    assert arb.grace_ns == 1_000 * MS
    assert arb.press(Press(1, closed + arb.grace_ns - 1), closed + arb.grace_ns) is Verdict.LOSING
    arb.release(1, closed + arb.grace_ns + 10 * MS)
    t = closed + arb.grace_ns
    assert arb.press(Press(2, t), t + MS) is Verdict.FALSE_SLAP


def test_grace_period_is_configurable() -> None:
    """``grace_ns=0``: a press just after the close is a false slap; negative is refused."""
    arb = SlapArbiter(4, random.Random(1), grace_ns=0)
    arb.engine_window_opened(OPEN)
    arb.flipped(T0)
    _, closed = decided_and_closed(arb, 0, T0 + 300 * MS)
    assert arb.press(Press(2, closed + MS), closed + 2 * MS) is Verdict.FALSE_SLAP
    with pytest.raises(ValueError, match="grace_ns must not be negative, got -1"):
        SlapArbiter(2, random.Random(0), grace_ns=-1)
    with pytest.raises(ValueError, match="reaction_floor_ns must not be negative, got -5"):
        SlapArbiter(2, random.Random(0), reaction_floor_ns=-5)


def test_losing_wake_up_slap_is_not_a_false_slap_in_the_game() -> None:
    """RI-2.3 then RI-6.5: the wake-up race closes when the game begins; a human who slapped
    50 ms after the race's winner is not punished in the game that just began."""
    arb = open_window(eligible={0, 2})
    decision, closed = decided_and_closed(arb, 0, T0 + 400 * MS)
    assert decision.seat == 0
    t = decision.t_ns + 50 * MS
    assert t > closed, "read and stamped after the race closed"
    assert arb.press(Press(2, t), t + MS) is Verdict.LOSING


def test_losing_wake_up_slap_cannot_win_a_reverse_dealt_at_setup() -> None:
    """A reverse at setup opens a window at once (game flow); a losing wake-up slap landing
    28 ms after its flip belongs to the race, not to this reverse."""
    arb = open_window(eligible={0, 2})
    _, closed = decided_and_closed(arb, 0, T0 + 400 * MS)
    arb.engine_window_opened(closed)
    flip = closed + 16 * MS
    assert arb.flipped(flip)
    t = flip + 28 * MS
    assert arb.press(Press(2, t), t + MS) is Verdict.LOSING
    assert not arb.pending and arb.poll(t + 100 * MS) is None


def second_window(arb: SlapArbiter, closed: int) -> int:
    """RI-6.6: a new reverse right after the resolution: opened at the close, flipped 20 ms
    later; returns the flip time."""
    arb.engine_window_opened(closed)
    flip = closed + 20 * MS
    assert arb.flipped(flip)
    return flip


def test_losing_press_never_wins_the_next_window() -> None:
    """RI-6.6: seat 1 lost window 1; its press lands 35 ms after window 2's flip, sooner than
    anyone can react to that flip: LOSING.  Seat 2's later, real reaction wins window 2."""
    arb = open_window()
    _, closed = decided_and_closed(arb, 0, T0 + 300 * MS)
    flip = second_window(arb, closed)
    assert arb.reaction_floor_ns == 100 * MS
    assert arb.press(Press(1, flip + 35 * MS), flip + 36 * MS) is Verdict.LOSING
    assert not arb.pending
    assert arb.press(Press(2, flip + 260 * MS), flip + 261 * MS) is Verdict.CONTENDER
    decision = settle(arb)
    assert decision.seat == 2 and [c.seat for c in decision.contenders] == [2]


def test_press_at_the_reaction_floor_counts_in_the_next_window() -> None:
    """A press exactly ``reaction_floor_ns`` after the new flip (still inside the grace of
    the previous close) is a fresh reaction: it counts and wins."""
    arb = open_window()
    _, closed = decided_and_closed(arb, 0, T0 + 300 * MS)
    flip = second_window(arb, closed)
    t = flip + arb.reaction_floor_ns
    assert t < closed + arb.grace_ns
    assert arb.press(Press(1, t - 1), t) is Verdict.LOSING
    arb.release(1, t + 50 * MS)
    assert arb.press(Press(3, t), t + MS) is Verdict.CONTENDER
    assert settle(arb).seat == 3


def test_fast_press_long_after_any_close_counts() -> None:
    """The floor applies only within the grace of a previous close: a 60 ms press in a window
    that follows no recent one is an ordinary contender."""
    arb = open_window()
    _, closed = decided_and_closed(arb, 0, T0 + 300 * MS)
    arb.engine_window_opened(closed + 5_000 * MS)
    flip = closed + 5_020 * MS
    arb.flipped(flip)
    assert arb.press(Press(1, flip + 60 * MS), flip + 61 * MS) is Verdict.CONTENDER


def test_reaction_floor_is_configurable() -> None:
    """``reaction_floor_ns=0``: the 35 ms press of a losing seat counts in the next window."""
    arb = SlapArbiter(4, random.Random(1), reaction_floor_ns=0)
    arb.engine_window_opened(OPEN)
    arb.flipped(T0)
    _, closed = decided_and_closed(arb, 0, T0 + 300 * MS)
    flip = second_window(arb, closed)
    assert arb.press(Press(1, flip + 35 * MS), flip + 36 * MS) is Verdict.CONTENDER


def test_late_note_while_open_carries_the_margin() -> None:
    """An earlier edge read after the decision (window still open): the log says by how much
    it was earlier and that it arrived late; seats are counted from 1 for people."""
    arb = open_window()
    arb.press(Press(2, T0 + 300 * MS), T0 + 301 * MS)
    decision = settle(arb)
    assert arb.press(Press(1, T0 + 290 * MS), T0 + 320 * MS) is Verdict.DECIDED
    log = arb.drain_log()
    assert log[0] == decision
    note = log[1]
    assert isinstance(note, ButtonNote)
    assert (note.kind, note.seat, note.t_ns) == ("late", 1, T0 + 290 * MS)
    assert note.margin_ns == 10 * MS and note.winner == 2
    assert note.describe() == "seat 2 was earlier by 10 ms but arrived late (seat 3 won)"
    assert note.to_json() == {
        "kind": "late",
        "seat": 1,
        "t_ns": T0 + 290 * MS,
        "margin_ns": 10 * MS,
        "winner": 2,
    }


def test_late_note_after_the_close_carries_the_margin() -> None:
    """The same earlier edge read after the window closed: LATE (ignored) and logged with its
    margin; a press stamped after the winner but inside the window is a losing slapper."""
    arb = open_window()
    decision, closed = decided_and_closed(arb, 2, T0 + 300 * MS)
    arb.drain_log()
    assert arb.press(Press(1, T0 + 299 * MS), closed + 40 * MS) is Verdict.LATE
    assert arb.press(Press(3, T0 + 302 * MS), closed + 41 * MS) is Verdict.LOSING
    (note,) = arb.drain_log()
    assert isinstance(note, ButtonNote)
    assert (note.kind, note.seat, note.margin_ns, note.winner) == ("late", 1, MS, 2)
    assert note.describe() == "seat 2 was earlier by 1 ms but arrived late (seat 3 won)"
    assert decision.seat == 2


def test_late_note_names_a_sub_millisecond_margin_and_a_tie() -> None:
    """Margins below 1 ms keep their tenths; an equal timestamp read late is a missed tie."""
    arb = open_window()
    arb.press(Press(0, T0 + 300 * MS), T0 + 301 * MS)
    settle(arb)
    arb.drain_log()
    arb.press(Press(1, T0 + 300 * MS - 400_000), T0 + 330 * MS)
    arb.press(Press(3, T0 + 300 * MS), T0 + 331 * MS)
    first, second = arb.drain_log()
    assert isinstance(first, ButtonNote) and isinstance(second, ButtonNote)
    assert first.describe() == "seat 2 was earlier by 0.4 ms but arrived late (seat 1 won)"
    assert second.margin_ns == 0
    assert second.describe() == "seat 4 tied with the winner but arrived late (seat 1 won)"


def test_no_late_note_for_a_seat_that_could_not_win() -> None:
    """A computer seat in the wake-up race (RI-2.3) stamped before the winner gets no note."""
    arb = open_window(eligible={0, 2})
    _, closed = decided_and_closed(arb, 2, T0 + 300 * MS)
    arb.drain_log()
    assert arb.press(Press(1, T0 + 250 * MS), closed + MS) is Verdict.NOT_ELIGIBLE
    assert arb.drain_log() == ()


def test_every_log_entry_describes_itself_in_one_line() -> None:
    """Decisions and button notes have describe(): one line, seats counted from 1."""
    decision = tie_winner(7)
    line = decision.describe()
    assert "\n" not in line
    assert line.startswith(f"seat {decision.seat + 1} slapped first in 200 ms")
    assert "tie of seats 2, 4" in line
    assert ButtonNote("stuck", 0, 5).describe() == "seat 1 button stuck (held down too long)"
    assert ButtonNote("released", 3, 5).describe() == "seat 4 button released"


def test_a_winner_who_keeps_holding_is_reported_stuck_after_the_stuck_time() -> None:
    """The slap race on the loop's timers: seat 1 presses, wins the window after the settle
    time and never lets go; its stuck check is still scheduled, and when it comes (the
    press's edge + 3 s) the seat is stuck (the TV names :attr:`SlapRace.stuck`)."""
    from device.reactor.timers import Timers
    from device.slaps.race import RaceTiming, SlapRace
    from drivers.slap import Press as DriverPress

    timers = Timers()
    won: list[SlapDecision] = []
    notes: list[object] = []
    race = SlapRace(2, timers=timers, post=lambda event: None, timing=RaceTiming(),
                    on_won=lambda decision, now: (won.append(decision), race.close(now)),
                    on_timeout=lambda now: None, on_false_slap=lambda seat, now: None,
                    on_note=notes.append)
    race.open(OPEN, length_ns=2_000 * MS)
    race.flipped(T0)
    down = T0 + 250 * MS
    assert race.press(DriverPress(1, down), down + MS) is Verdict.CONTENDER
    decided = timers.next_ns()
    assert decided is not None
    timers.run_due(decided)
    assert [d.seat for d in won] == [1] and not race.arbiter.window_open
    assert timers.next_ns() == down + race.arbiter.stuck_ns, "the stuck check is scheduled"
    timers.run_due(down + race.arbiter.stuck_ns - 1)
    assert race.stuck == frozenset()
    timers.run_due(down + race.arbiter.stuck_ns)
    assert race.stuck == frozenset({1})
    assert ButtonNote("stuck", 1, down) in notes
