"""The slap race: the arbiter's choreography for one table (docs/architecture.md "Slap
arbitration"; RI-2.3 the wake-up race, RI-6.2-6.6 RIIING! windows).

:class:`SlapRace` opens a window when the game flow says a reverse shows (or the wake-up
screen is drawn), starts it at the flip that shows it (``t0``), feeds the arbiter every
press and release, decides after the settle time, times the window out, and makes the
computer players' presses: each is a virtual button edge at ``t0 + reaction`` that enters
the same arbiter path as a GPIO edge.  Outcomes go back through three callbacks:
``on_won(decision, now_ns)``, ``on_timeout(now_ns)`` and ``on_false_slap(seat, now_ns)``;
``on_note(entry)`` receives every arbiter log entry (decisions, stuck buttons, late
arrivals) for the journal and the log.

Times are ``int`` CLOCK_MONOTONIC ns.  The tie-break RNG is reseeded by the caller for every
window (``open(..., tie_seed=...)``), so a resumed game breaks ties as the cut one did.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

from device.common.words import seat_name
from device.reactor.timers import Timer, Timers
from device.slaps.arbiter import LogEntry, SlapArbiter, SlapDecision, SlapPress, Verdict
from drivers.slap import Press, Release
from drivers.values import is_int

log = logging.getLogger("partytable")

MS = 1_000_000
FUTURE_NS = 5_000 * MS
"""How far after the loop's clock a press edge may be stamped (the loop reads its clock
before it handles a batch of events; generous, a real edge is never in the future)."""
PAST_NS = 60_000 * MS
"""How far before the loop's clock a press edge may be stamped (a callback a minute late
is a driver fault, not a slap)."""


@dataclass(frozen=True, slots=True)
class RaceTiming:
    """The slap race's knobs.

    ``settle_ns``: how long after the first counted press the arbiter waits for other
    callbacks (docs/architecture.md "Slap arbitration" 3): 25 ms here, above the 5 ms
    docs/architecture.md names, because ``make bench``'s fairness figure shows that the arbiter is
    exact only for callbacks that arrive within the settle time (callbacks 0-20 ms late: 68% right
    with 5 ms, 100% with 25 ms), and 25 ms more before the TV names the winner is not something a
    person sees; ``mean_ms``/``sd_ms``/``floor_ms``: computer players'
    reaction times, a normal distribution cut at the floor — by default a mean of 500 ms
    with a floor of 320 ms, well above a fast person's 200 ms, so a typical person wins
    most windows; ``release_ns``: how long a computer's virtual button stays down (120 ms).
    """

    settle_ns: int = 25 * MS
    mean_ms: float = 500.0
    sd_ms: float = 100.0
    floor_ms: float = 320.0
    release_ns: int = 120 * MS


def computer_reaction_ns(rng: random.Random, timing: RaceTiming) -> int:
    """One computer player's slap reaction time in ns: ``gauss(mean_ms, sd_ms)`` floored
    at ``floor_ms``, drawn from ``rng`` (the device RNG of that window)."""
    ms = max(timing.floor_ms, rng.gauss(timing.mean_ms, timing.sd_ms))
    return int(ms * MS)


class ComputerPress(Press):
    """A computer player's slap: a ``Press`` like a button edge (the arbiter judges both the
    same way), but the flow knows nobody at the table pressed it (a demo game goes on)."""

    __slots__ = ()


class SlapRace:
    """One table's slap windows (see the module docstring).

    ``seats``: the seat count; ``timers``: the loop's timers; ``post``: the device queue's
    ``post`` (computer presses travel as ``Press``/``Release`` events like GPIO edges)."""

    def __init__(
        self,
        seats: int,
        *,
        timers: Timers,
        post: Callable[[object], None],
        timing: RaceTiming,
        on_won: Callable[[SlapDecision, int], None],
        on_timeout: Callable[[int], None],
        on_false_slap: Callable[[int, int], None],
        on_note: Callable[[LogEntry], None],
    ) -> None:
        self.timing = timing
        self.rng = random.Random(0)
        self.arbiter = SlapArbiter(seats, self.rng, settle_ns=timing.settle_ns)
        self._timers = timers
        self._post = post
        self._on_won = on_won
        self._on_timeout = on_timeout
        self._on_false_slap = on_false_slap
        self._on_note = on_note
        self._flip_wait: tuple[int, Mapping[int, int]] | None = None
        self._window_timers: list[Timer] = []
        self._settle: Timer | None = None
        self.deadline_ns: int | None = None
        """When the open window times out (for the TV's countdown), or ``None``."""

    # ------------------------------------------------------------------ windows
    @property
    def awaiting_flip(self) -> bool:
        """True between :meth:`open` and the flip that shows the window."""
        return self._flip_wait is not None

    def open(
        self,
        now_ns: int,
        *,
        length_ns: int,
        eligible: Collection[int] | None = None,
        reactions: Mapping[int, int] | None = None,
        tie_seed: int | str = 0,
    ) -> None:
        """A window opens at the next flip (RI-6.1 a reverse shows; RI-2.3 the wake-up
        race).  ``length_ns``: how long it stays open after the flip; ``eligible``: seats
        that can win it (default all); ``reactions``: computer seat -> reaction ns after
        the flip; ``tie_seed``: seeds the tie-break RNG of this window."""
        self.close(now_ns)
        self.rng.seed(tie_seed)
        self.arbiter.engine_window_opened(now_ns, eligible=eligible)
        self._flip_wait = (length_ns, dict(reactions or {}))
        self.deadline_ns = now_ns + length_ns  # provisional, exact from the flip

    def flipped(self, t0_ns: int) -> None:
        """The frame showing the window went out at ``t0_ns``: start it, schedule the
        timeout and the computers' presses.  Does nothing when no window waits."""
        if self._flip_wait is None:
            return
        length_ns, reactions = self._flip_wait
        self._flip_wait = None
        self.arbiter.flipped(t0_ns)
        self.deadline_ns = t0_ns + length_ns
        self._window_timers.append(
            self._timers.call_at(self.deadline_ns, self._timeout, "slap timeout"))
        for seat, reaction in sorted(reactions.items()):
            t = t0_ns + reaction
            if t < self.deadline_ns:
                self._window_timers.append(
                    self._timers.call_at(t, self._computer_press(seat), "computer slap"))

    def close(self, now_ns: int) -> None:
        """The window is over (its ``slap``/``timeout`` was applied, or the game left):
        cancel its timers.  Harmless with no window."""
        self.arbiter.window_closed(now_ns)
        self._flip_wait = None
        self.deadline_ns = None
        for t in self._window_timers:
            t.cancel()
        self._window_timers.clear()
        self._drain()

    # ------------------------------------------------------------------ input
    def press(self, p: SlapPress, now_ns: int) -> Verdict | None:
        """Judge one press edge read at ``now_ns``; a false slap goes to ``on_false_slap``.
        A press whose time is not plausible (not an ``int``, more than
        :data:`FUTURE_NS` after ``now_ns`` or :data:`PAST_NS` before it: a driver fault)
        is one log line and ``None``, never a slap."""
        t = p.t_ns
        if not is_int(t) or not \
                now_ns - PAST_NS <= t <= now_ns + FUTURE_NS:
            log.warning("%s slap ignored: edge time %.40r is not plausible at %d",
                        seat_name(p.seat) if isinstance(p.seat, int) else "?", t, now_ns)
            return None
        verdict = self.arbiter.press(p, now_ns)
        log.info("%s slap at %d: %s", seat_name(p.seat), p.t_ns, verdict.reason)
        self._drain()
        if verdict is Verdict.FALSE_SLAP:
            self._on_false_slap(p.seat, now_ns)
        self._arm_settle()
        return verdict

    def release(self, seat: int, t_ns: int) -> bool:
        """A release edge; returns True when a stuck button was let go."""
        freed = self.arbiter.release(seat, t_ns)
        self._drain()
        self._arm_settle()
        return freed

    @property
    def stuck(self) -> frozenset[int]:
        """Seats whose slap button is held down too long (the TV says so)."""
        return self.arbiter.stuck

    # ------------------------------------------------------------------ internals
    def _computer_press(self, seat: int) -> Callable[[int], None]:
        def fire(now_ns: int) -> None:
            # a computer's press enters the same arbiter path as a button edge; its virtual
            # button comes up again after release_ns (or it would count as stuck)
            self._post(ComputerPress(seat, now_ns))
            self._post(Release(seat, now_ns + self.timing.release_ns))
        return fire

    def _arm_settle(self) -> None:
        """One timer at the arbiter's next deadline: the settle time's end, or the moment
        a held button becomes stuck (docs/architecture.md "Slap arbitration" 5).  Re-armed after
        every press, release and poll, the decision included: a winner who keeps holding is still
        reported."""
        if self._settle is not None:
            self._settle.cancel()
            self._settle = None
        deadline = self.arbiter.next_deadline_ns()
        if deadline is not None:
            self._settle = self._timers.call_at(deadline, self._decide, "slap settle")

    def _decide(self, now_ns: int) -> None:
        self._settle = None
        decision = self.arbiter.poll(now_ns)
        self._drain()
        if decision is None:
            self._arm_settle()
            return
        self._on_won(decision, now_ns)
        self._arm_settle()  # the winner may still hold its button: its stuck check stays

    def _timeout(self, now_ns: int) -> None:
        if self.arbiter.pending:
            # a press is settling: decide it first; the timeout comes back if nobody won
            self._window_timers.append(self._timers.call_at(
                now_ns + self.timing.settle_ns, self._timeout, "slap timeout"))
            return
        self._on_timeout(now_ns)

    def _drain(self) -> None:
        for entry in self.arbiter.drain_log():
            self._on_note(entry)
