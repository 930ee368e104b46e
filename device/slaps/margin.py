"""The slap margin on the TV: a RIIING! window's winner by how much over the runner-up
("Seat 2 slapped in 212 ms, by 12 ms over Seat 4": fast hands celebrated).

The arbiter decides a window a settle time after the first counted press (docs/architecture.md
"Slap arbitration" 3; ``RaceTiming.settle_ns``, 25 ms), so the presses it counted rarely
include a person who lost by 80 ms: that press arrives after the decision and the arbiter
calls it :attr:`device.slaps.arbiter.Verdict.LOSING` (RI-6.5: a losing slapper, never punished).
:class:`MarginWatch` keeps collecting those losers for :data:`COLLECT_NS` after the
decision and names the nearest one as the runner-up, so the TV's line can grow a margin or
get a nearer one while the result shows.  It never changes the winner (the decision is
the arbiter's and is journaled as it was made): this is presentation only.

A computer player's virtual press is cancelled when the window closes
(``device.slaps.race.SlapRace.close``), so a computer that would have slapped after the
winner never presses.  Its planned reaction (``GameSession.computer_reactions``, drawn from
the window's device RNG) is still what it would have done: the watch puts it on a loop
timer at ``t0 + reaction`` and counts it then, as if its press had arrived (it makes no
action and reaches no arbiter).

Times are ``int`` CLOCK_MONOTONIC ns: ``t_ns`` a press edge's own timestamp, ``now_ns``
the loop's clock.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from device.reactor.timers import Timer, Timers
from device.slaps.arbiter import GRACE_NS, SlapDecision

MS = 1_000_000

COLLECT_NS = GRACE_NS
"""How long after a decision a losing slap still counts for the margin: 1 s, the arbiter's
grace period (``device.slaps.arbiter.GRACE_NS``), within which a later slap is a loser at this
reverse and not a new (false) slap."""


class MarginWatch:
    """The runner-up of the latest won window (see the module docstring).

    ``timers``: the loop's timers (a computer loser's planned press); ``on_change(now_ns)``:
    called when :attr:`shown` changed after the decision (the flow redraws the TV's line).
    """

    def __init__(self, timers: Timers, on_change: Callable[[int], None]) -> None:
        self._timers = timers
        self._on_change = on_change
        self.planned: dict[int, int] = {}
        """Computer seat -> its planned reaction (ns after the flip) in the window opened
        last (:meth:`window`)."""
        self._decision: SlapDecision | None = None
        self._until_ns = 0
        self._runner_up: tuple[int, int] | None = None
        self._pending: list[Timer] = []

    @property
    def shown(self) -> tuple[int, int] | None:
        """``(runner-up seat, margin in whole ms)`` of the latest decision, or ``None``
        when nobody else slapped (yet) or nothing is watched."""
        if self._decision is None or self._runner_up is None:
            return None
        seat, reaction_ns = self._runner_up
        return seat, round((reaction_ns - self._decision.reaction_ns) / MS)

    def window(self, reactions: Mapping[int, int]) -> None:
        """A window opens with these computer players' planned reactions (seat -> ns after
        its flip).  The previous decision is still watched until this window's decision:
        a loser of the previous reverse may press just after this flip (RI-6.6: the
        arbiter calls it ``LOSING``, never a contender here)."""
        self.planned = dict(reactions)

    def decided(self, decision: SlapDecision, now_ns: int) -> tuple[int, int] | None:
        """The window was won at loop time ``now_ns``: start watching for
        :data:`COLLECT_NS`.  The runner-up is first the nearest other counted press
        (``decision.contenders``); a computer that had not pressed yet is timed to press at
        its planned reaction.  Returns :attr:`shown`."""
        self.stop()
        self._decision = decision
        self._until_ns = now_ns + COLLECT_NS
        others = sorted((c.reaction_ns, c.seat) for c in decision.contenders
                        if c.seat != decision.seat)
        self._runner_up = (others[0][1], others[0][0]) if others else None
        counted = {c.seat for c in decision.contenders}
        t0 = decision.t_ns - decision.reaction_ns
        for seat, reaction in sorted(self.planned.items()):
            at = t0 + reaction
            if seat not in counted and now_ns < at <= self._until_ns:
                self._pending.append(self._timers.call_at(
                    at, self._computer(seat, at), "computer loser's slap"))
        return self.shown

    def press(self, seat: int, t_ns: int, now_ns: int) -> bool:
        """A losing slap (``Verdict.LOSING``) of ``seat`` with edge ``t_ns``, read at
        ``now_ns``: it becomes the runner-up when it is read within :data:`COLLECT_NS` of
        the decision, is not the winner's, comes after the winning edge and is nearer than
        the runner-up so far.  Returns whether :attr:`shown` changed (the caller redraws;
        :meth:`decided`'s timers call ``on_change`` themselves)."""
        d = self._decision
        if d is None or now_ns > self._until_ns or seat == d.seat or t_ns <= d.t_ns:
            return False
        reaction = t_ns - (d.t_ns - d.reaction_ns)
        if self._runner_up is not None and self._runner_up[1] <= reaction:
            return False
        before = self.shown
        self._runner_up = (seat, reaction)
        return self.shown != before

    def stop(self) -> None:
        """Stop watching (the result is no longer shown, a new window opens, the game
        left): cancel the computers' timers; :attr:`shown` is ``None``.  Idempotent."""
        for timer in self._pending:
            timer.cancel()
        self._pending.clear()
        self._decision = None
        self._runner_up = None

    def _computer(self, seat: int, t_ns: int) -> Callable[[int], None]:
        def pressed(now_ns: int) -> None:
            if self.press(seat, t_ns, now_ns):
                self._on_change(now_ns)
        return pressed
