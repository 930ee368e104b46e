"""Slap arbitration: which seat slapped a RIIING! reverse first, fairly.

Implements docs/architecture.md "Slap arbitration" 1-7 for RI-6.3 (the first seat to slap wins the
window), RI-6.5 (a slap while no window is open is a false slap; losing slappers in a window
are not punished), RI-6.6 (a new window can open right after a resolution) and the wake-up
race of RI-2.3 (only human seats can win it).  Pure: no I/O, no clock reads, no threads.
Every time is an ``int`` of CLOCK_MONOTONIC nanoseconds handed in by the caller:

- a press's ``t_ns`` is the edge's own timestamp (the kernel's edge time on gpiozero's lgpio
  pin factory), never the time a Python callback ran;
- ``now_ns`` is the device loop's clock when it handles a call (the same clock).

How the device loop drives one window (the loop owns the arbiter; one thread)::

    arb.engine_window_opened(now)       # the engine applied an action; a reverse is on top
    arb.flipped(t_flip)                 # the frame showing it was flipped: t0 = t_flip
    v = arb.press(p, now)               # for each Press read from the queue
    arb.release(seat, t)                # for each Release read from the queue
    d = arb.poll(now)                   # after handling the events of one wake-up
    ...wait(arb.next_deadline_ns())...  # block until the settle time (or a stuck check) ends
    arb.window_closed(now)              # `slap s` or `timeout` was applied
    for entry in arb.drain_log(): ...   # decisions and notes for the journal (describe())

Closing a window right after its decision is correct: the presses of the seats that lost
the race, read after the close, are :attr:`Verdict.LOSING` (rule 2), and a new window may be
opened at once (RI-6.6, rule 3).  The wake-up race is closed the same way when the game
begins.

Input: debounced edges, as :class:`drivers.slap.SlapButtons` posts them (presses and
releases of a seat alternate; a bounce burst is one press, stamped with its first edge,
docs/architecture.md "Slap arbitration" 5).  Debouncing is the driver's job and is not repeated
here.

Rules, in the order ``press`` applies them:

1. A seat reported stuck (held down longer than ``stuck_ns``, default 3 s) is ignored until
   :meth:`SlapArbiter.release` is called for it (:attr:`Verdict.STUCK`).
2. With no engine window open, a press is judged against the recently closed windows:

   - stamped inside one of them (its callback arrived late): from before its flip,
     :attr:`Verdict.LATE`; from an eligible seat no later than the winning edge, also
     :attr:`Verdict.LATE`, with a ``"late"`` :class:`ButtonNote` carrying the margin by which
     it was earlier (the settle time was too short for it); after the winning edge,
     :attr:`Verdict.LOSING` (RI-6.5: a losing slapper); inside a window closed by
     ``timeout`` (no decision), :attr:`Verdict.LATE`; from a seat that could not win it,
     :attr:`Verdict.NOT_ELIGIBLE`; before its reaction floor, as in rule 3;
   - stamped less than ``grace_ns`` (default :data:`GRACE_NS`, 1 s) after a close: the
     seat slapped at the reverse that was just resolved, after the winner (or just after
     the timeout): :attr:`Verdict.LOSING`, never a false slap (RI-6.5);
   - anything else is a false slap (:attr:`Verdict.FALSE_SLAP`: the device applies the
     engine's ``falseslap s`` when a game is being played and the option allows it).
3. With an engine window open: a press from before the window opened is ignored
   (:attr:`Verdict.EARLY`), one from before the flip too (:attr:`Verdict.BEFORE_FLIP`: the
   reverse was not visible yet).  A press stamped within ``grace_ns`` of a previous close
   and less than ``reaction_floor_ns`` (default :data:`REACTION_FLOOR_NS`, 100 ms) after
   this flip cannot be a reaction to this reverse: it belongs to the previous window
   (:attr:`Verdict.LOSING`, RI-6.6).  Otherwise only a fresh press edge with
   ``t_ns >= t0`` from an eligible seat counts (:attr:`Verdict.CONTENDER`); a held button
   makes no fresh edge.
4. The first contender starts the settle time (``settle_ns``, default 5 ms, on the loop
   clock) so callbacks from other lines and threads arrive; when it has passed, ``poll``
   decides: the earliest timestamp wins, even one that arrived later than another seat's.
   Equal timestamps are a tie broken by the injected device RNG (``rng.randrange``); the
   draw is in the decision and its log entry so a replay is exact (docs/architecture.md "Slap
   arbitration" 7).  A press read after the decision is :attr:`Verdict.DECIDED`; if its edge was no
   later than the winner's it is logged as a ``"late"`` note with its margin (rule 2).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

from drivers.values import is_int

Seat = int
"""A seat number, 0..seats-1."""

SETTLE_NS = 5_000_000
"""Default settle time after the first valid press: 5 ms (docs/architecture.md "Slap arbitration"
3)."""

STUCK_NS = 3_000_000_000
"""Default hold time after which a button is reported stuck: 3 s (docs/architecture.md "Slap
arbitration" 5)."""

GRACE_NS = 1_000_000_000
"""Default grace period after a window closes: 1 s (RI-6.5, RI-6.6).

A press stamped less than this after a close is a losing slapper's (:attr:`Verdict.LOSING`),
never a false slap.  Why 1 s: the window closes a settle time (5 ms) after the winner's
press is read, so every other seat's slap at the same reverse lands after the close by the
difference between its reaction and the winner's.  Simple visual reaction times of adults
are about 0.2-0.3 s, so 1 s leaves room for a loser several times slower than the winner;
by then the table has shown the result ("Seat 2 slapped in 212 ms") for a while, so a slap
after that is a new decision, which RI-6.5 may punish.  A longer grace forgives more real
false slaps right after a resolution; a shorter one punishes slow losers.  Configurable per
arbiter (``grace_ns``), like ``settle_ns``.
"""

REACTION_FLOOR_NS = 100_000_000
"""Default reaction floor: 100 ms, the fastest a person reacts to what a screen shows (RI-6.6).

The sprint false-start rule (World Athletics: a reaction under 0.100 s after the gun, as
the starting blocks measure it, is a false start) puts the limit of human reaction to a
stimulus at 100 ms.  A press that comes sooner than this after a window's flip, and within
:data:`GRACE_NS` of the previous window's close, is not a reaction to the new reverse but a
late slap at the previous one: it is :attr:`Verdict.LOSING` and never a contender.
Configurable per arbiter (``reaction_floor_ns``).
"""

CLOSED_WINDOWS_KEPT = 8
"""How many closed windows are remembered to recognise a late callback or a losing slapper
(rule 2).  One window lasts at least a frame and the grace period is 1 s, so 8 is ample."""

MS = 1_000_000
"""Nanoseconds per millisecond (for the one-line descriptions)."""


class SlapPress(Protocol):
    """A press edge: ``seat`` (int) and ``t_ns`` (int, CLOCK_MONOTONIC ns of the edge).

    ``drivers.slap.Press`` fits, as does any object with these two attributes.
    """

    @property
    def seat(self) -> int:
        """The seat whose slap button was pressed."""
        ...

    @property
    def t_ns(self) -> int:
        """The edge's own timestamp, CLOCK_MONOTONIC nanoseconds."""
        ...


class Verdict(Enum):
    """What :meth:`SlapArbiter.press` made of one press; ``reason`` is one line for logs.

    Only :attr:`CONTENDER` can win; only :attr:`FALSE_SLAP` asks the device to act
    (apply ``falseslap s``, RI-6.5).  Every other verdict means: ignore this press
    (:attr:`LOSING` included: losing slappers are not punished, RI-6.5).
    """

    CONTENDER = "a fresh press inside the window: the decision follows the settle time"
    FALSE_SLAP = "slapped while no window was open: false slap (RI-6.5)"
    LOSING = (
        "slapped after the winner (or just after the timeout) at a reverse already "
        "resolved: a losing slapper, not punished (RI-6.5, RI-6.6)"
    )
    EARLY = "pressed before this window opened: ignored"
    BEFORE_FLIP = "pressed before the reverse was on the screen: ignored"
    LATE = "pressed during a window that has closed since (late callback): ignored"
    DECIDED = "the window was already decided: ignored"
    REPEAT = "this seat already pressed in this window: ignored"
    STUCK = "this seat's button is stuck (held too long): ignored until released"
    NOT_ELIGIBLE = "this seat cannot win this window (e.g. a computer player, RI-2.3): ignored"
    UNKNOWN_SEAT = "no such seat at this table: ignored"

    @property
    def reason(self) -> str:
        """One line saying why, e.g. ``"pressed before the reverse was on the screen: ignored"``."""
        return self.value

    @property
    def counts(self) -> bool:
        """True only for :attr:`CONTENDER`: the press takes part in the decision."""
        return self is Verdict.CONTENDER


@dataclass(frozen=True, slots=True)
class Contender:
    """One seat's counted press in a window: ``t_ns`` (edge time, CLOCK_MONOTONIC ns) and
    ``reaction_ns`` = ``t_ns - t0`` (ns since the reverse's frame was flipped)."""

    seat: Seat
    t_ns: int
    reaction_ns: int


@dataclass(frozen=True, slots=True)
class SlapDecision:
    """Who won a window (RI-6.3): the device applies ``slap <seat>``.

    ``t_ns``: the winning edge (CLOCK_MONOTONIC ns); ``reaction_ns``: ``t_ns - t0`` in ns,
    shown on the table (docs/architecture.md "Slap arbitration" 4).  ``tie``: several seats had
    exactly this timestamp and the device RNG chose; ``draw`` is then the index it drew
    (``rng.randrange(len(tied))`` over the tied seats in ascending order), else ``None``.
    ``contenders``: every counted press, earliest first (ties by seat).
    """

    seat: Seat
    t_ns: int
    reaction_ns: int
    tie: bool
    contenders: tuple[Contender, ...]
    draw: int | None = None

    @property
    def tied(self) -> tuple[Seat, ...]:
        """The seats that shared the winning timestamp, ascending (one seat if no tie)."""
        return tuple(sorted(c.seat for c in self.contenders if c.t_ns == self.t_ns))

    def describe(self) -> str:
        """One line for people (seats counted from 1), e.g. ``"seat 2 slapped first in
        212 ms (3 slaps)"`` or ``"... (tie of seats 2, 4 drawn by the device RNG)"``."""
        line = f"seat {self.seat + 1} slapped first in {_ms(self.reaction_ns)} ms"
        if self.tie:
            seats = ", ".join(str(s + 1) for s in self.tied)
            return f"{line} (tie of seats {seats} drawn by the device RNG)"
        n = len(self.contenders)
        return f"{line} ({n} slap{'s' if n != 1 else ''})"

    def to_json(self) -> dict[str, object]:
        """A JSON-ready object for the journal; :meth:`from_json` reads it back."""
        return {
            "seat": self.seat,
            "t_ns": self.t_ns,
            "reaction_ns": self.reaction_ns,
            "tie": self.tie,
            "draw": self.draw,
            "contenders": [[c.seat, c.t_ns, c.reaction_ns] for c in self.contenders],
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> SlapDecision:
        """Read :meth:`to_json`'s object; raises ``ValueError`` naming the bad field."""

        def integer(value: object, name: str) -> int:
            if not is_int(value):
                raise ValueError(f"slap decision: {name} must be an integer, got {value!r}")
            return value

        raw = obj.get("contenders")
        if not isinstance(raw, list) or not raw:
            raise ValueError(f"slap decision: contenders must be a non-empty list, got {raw!r}")
        contenders: list[Contender] = []
        for i, item in enumerate(raw):
            if not isinstance(item, list) or len(item) != 3:
                raise ValueError(
                    f"slap decision: contenders[{i}] must be [seat, t_ns, reaction_ns]"
                )
            seat, t_ns, reaction_ns = (integer(v, f"contenders[{i}]") for v in item)
            contenders.append(Contender(seat, t_ns, reaction_ns))
        tie = obj.get("tie")
        if not isinstance(tie, bool):
            raise ValueError(f"slap decision: tie must be true or false, got {tie!r}")
        draw = obj.get("draw")
        return cls(
            seat=integer(obj.get("seat"), "seat"),
            t_ns=integer(obj.get("t_ns"), "t_ns"),
            reaction_ns=integer(obj.get("reaction_ns"), "reaction_ns"),
            tie=tie,
            contenders=tuple(contenders),
            draw=None if draw is None else integer(draw, "draw"),
        )


@dataclass(frozen=True, slots=True)
class ButtonNote:
    """A button event worth the journal and the TV.  ``kind`` is:

    - ``"stuck"``: held down longer than the stuck time; ``t_ns`` = when it went down;
    - ``"released"``: a stuck button was let go; ``t_ns`` = the release edge;
    - ``"late"``: a press of an eligible seat read after the decision (the window open or
      already closed) whose edge ``t_ns`` was no later than the winner's: the settle time
      was too short for its callback.  ``margin_ns`` = the winner's edge minus ``t_ns``
      (ns, ``>= 0``; 0 is a tie that arrived late) and ``winner`` = the winning seat; both
      are ``None`` for the other kinds.

    Times are CLOCK_MONOTONIC ns; seats are 0-based (:meth:`describe` counts from 1).
    """

    kind: str
    seat: Seat
    t_ns: int
    margin_ns: int | None = None
    winner: Seat | None = None

    def to_json(self) -> dict[str, object]:
        """A JSON-ready object for the journal: ``kind``, ``seat`` (0-based), ``t_ns``, and
        for a ``"late"`` note also ``margin_ns`` and ``winner``."""
        out: dict[str, object] = {"kind": self.kind, "seat": self.seat, "t_ns": self.t_ns}
        if self.margin_ns is not None:
            out["margin_ns"] = self.margin_ns
        if self.winner is not None:
            out["winner"] = self.winner
        return out

    def describe(self) -> str:
        """One line for people (seats counted from 1), e.g. ``"seat 2 was earlier by 10 ms
        but arrived late (seat 3 won)"`` or ``"seat 1 button stuck (held down too long)"``."""
        who = f"seat {self.seat + 1}"
        if self.kind == "stuck":
            return f"{who} button stuck (held down too long)"
        if self.kind == "released":
            return f"{who} button released"
        if self.kind == "late":
            won = "" if self.winner is None else f" (seat {self.winner + 1} won)"
            if self.margin_ns is None:
                return f"{who} arrived late{won}"
            if self.margin_ns == 0:
                return f"{who} tied with the winner but arrived late{won}"
            return f"{who} was earlier by {_ms(self.margin_ns)} ms but arrived late{won}"
        return f"{who} button: {self.kind}"


LogEntry = SlapDecision | ButtonNote
"""One entry of the arbiter's decision log (:meth:`SlapArbiter.drain_log`)."""


class ReplayMismatchError(ValueError):
    """A journaled slap decision does not follow from the device RNG on replay: the journal
    and the device seed disagree (docs/architecture.md "Slap arbitration" 7)."""


@dataclass
class _Button:
    """What the arbiter knows about one seat's button (times in CLOCK_MONOTONIC ns)."""

    down_since_ns: int | None = None
    stuck: bool = False


def _ms(ns: int) -> str:
    """``ns`` as milliseconds for people: whole ms from 10 ms up, else one decimal
    (``10_000_000`` -> ``"10"``, ``400_000`` -> ``"0.4"``, ``1_000_000`` -> ``"1"``)."""
    if abs(ns) >= 10 * MS:
        return str(round(ns / MS))
    return f"{ns / MS:.1f}".removesuffix(".0")


@dataclass(frozen=True, slots=True)
class _Closed:
    """A window that has closed (times in CLOCK_MONOTONIC ns); ``t0_ns`` is ``None`` if it
    closed before its flip, ``decision`` if it closed without one (``timeout``)."""

    opened_ns: int
    closed_ns: int
    eligible: frozenset[Seat]
    t0_ns: int | None
    decision: SlapDecision | None


@dataclass
class _Window:
    """The open engine window (times in CLOCK_MONOTONIC ns)."""

    opened_ns: int
    eligible: frozenset[Seat]
    t0_ns: int | None = None
    contenders: dict[Seat, int] = field(default_factory=dict)
    settle_end_ns: int | None = None
    decision: SlapDecision | None = None


class SlapArbiter:
    """The fairness core: turns press edges into one :class:`SlapDecision` per window.

    ``seats``: how many seats the table has (1..); ``rng``: the device's own seeded
    ``random.Random`` (docs/architecture.md "Slap arbitration" 7), used only to break ties;
    ``settle_ns``, ``stuck_ns``, ``grace_ns``, ``reaction_floor_ns``: durations in ns (defaults
    :data:`SETTLE_NS` 5 ms, :data:`STUCK_NS` 3 s, :data:`GRACE_NS` 1 s,
    :data:`REACTION_FLOOR_NS` 100 ms).  Raises ``ValueError`` for a seat count below 1 or a
    negative duration.  See the module docstring for the rules and the calling order.
    """

    def __init__(
        self,
        seats: int,
        rng: random.Random,
        *,
        settle_ns: int = SETTLE_NS,
        stuck_ns: int = STUCK_NS,
        grace_ns: int = GRACE_NS,
        reaction_floor_ns: int = REACTION_FLOOR_NS,
    ) -> None:
        if seats < 1:
            raise ValueError(f"slap arbiter: seats must be at least 1, got {seats}")
        for name, value in (
            ("settle_ns", settle_ns),
            ("stuck_ns", stuck_ns),
            ("grace_ns", grace_ns),
            ("reaction_floor_ns", reaction_floor_ns),
        ):
            if value < 0:
                raise ValueError(f"slap arbiter: {name} must not be negative, got {value}")
        self.seats = seats
        self.rng = rng
        self.settle_ns = settle_ns
        self.stuck_ns = stuck_ns
        self.grace_ns = grace_ns
        self.reaction_floor_ns = reaction_floor_ns
        self._buttons = [_Button() for _ in range(seats)]
        self._window: _Window | None = None
        self._closed: deque[_Closed] = deque(maxlen=CLOSED_WINDOWS_KEPT)
        self._log: list[LogEntry] = []

    # --- state the device reads -------------------------------------------------------

    @property
    def window_open(self) -> bool:
        """True between :meth:`engine_window_opened` and :meth:`window_closed`."""
        return self._window is not None

    @property
    def t0_ns(self) -> int | None:
        """The open window's flip time (CLOCK_MONOTONIC ns), or ``None`` before the flip or
        with no window.  The device times ``timeout`` (RI-6.4) and computer players'
        presses from it."""
        return None if self._window is None else self._window.t0_ns

    @property
    def pending(self) -> bool:
        """True while a counted press waits for the settle time: do not apply ``timeout``
        now, call :meth:`poll` at :meth:`next_deadline_ns` first."""
        w = self._window
        return w is not None and w.decision is None and bool(w.contenders)

    @property
    def eligible(self) -> frozenset[Seat]:
        """The seats that can win the open window (empty with no window)."""
        return frozenset() if self._window is None else self._window.eligible

    @property
    def stuck(self) -> frozenset[Seat]:
        """Seats whose button is reported stuck; the device shows them on the TV
        ("Seat 3 button stuck — check it") until each is released."""
        return frozenset(s for s, b in enumerate(self._buttons) if b.stuck)

    # --- calls from the device loop ---------------------------------------------------

    def engine_window_opened(self, now_ns: int, eligible: Collection[Seat] | None = None) -> None:
        """The engine just applied an action after which a reverse shows (RI-6.1, RI-6.6).

        ``now_ns``: loop clock, CLOCK_MONOTONIC ns.  ``eligible``: the seats that can win
        this window, default every seat; for the wake-up race (RI-2.3), which has no engine
        window, call this when the race screen is drawn with the human seats only.  Raises
        ``ValueError`` if a window is already open (call :meth:`window_closed` first) or an
        eligible seat is not at the table.
        """
        if self._window is not None:
            raise ValueError("slap arbiter: a window is already open; call window_closed first")
        seats = frozenset(range(self.seats)) if eligible is None else frozenset(eligible)
        bad = sorted(s for s in seats if not 0 <= s < self.seats)
        if bad:
            raise ValueError(
                f"slap arbiter: eligible seat {bad[0]} is not at this {self.seats}-seat table"
            )
        self._window = _Window(opened_ns=now_ns, eligible=seats)

    def flipped(self, t_ns: int) -> bool:
        """A frame showing the reverse was flipped at ``t_ns`` (CLOCK_MONOTONIC ns): the
        device window opens at ``t0 = t_ns``.  Returns True if this call opened it; False
        (and nothing changes) with no engine window or once ``t0`` is already set, so the
        device may call it after every flip while a reverse shows."""
        w = self._window
        if w is None or w.t0_ns is not None:
            return False
        w.t0_ns = t_ns
        return True

    def press(self, p: SlapPress, now_ns: int) -> Verdict:
        """Judge one press edge ``p`` (``p.t_ns``: edge time) read at loop time ``now_ns``
        (both CLOCK_MONOTONIC ns).  Never raises; see the module docstring for the rules."""
        seat, t = p.seat, p.t_ns
        if not 0 <= seat < self.seats:
            return Verdict.UNKNOWN_SEAT
        button = self._buttons[seat]
        if button.stuck:
            return Verdict.STUCK
        button.down_since_ns = t
        w = self._window
        if w is None:
            return self._judge_closed(seat, t)
        if t < w.opened_ns:
            return Verdict.EARLY
        refused = self._refused(seat, t, w.t0_ns, w.eligible, Verdict.BEFORE_FLIP)
        if refused is not None:
            return refused
        if w.decision is not None:
            self._note_late(seat, t, w.decision)
            return Verdict.DECIDED
        if seat in w.contenders:
            return Verdict.REPEAT
        w.contenders[seat] = t
        if w.settle_end_ns is None:
            w.settle_end_ns = now_ns + self.settle_ns
        return Verdict.CONTENDER

    def release(self, seat: Seat, t_ns: int) -> bool:
        """Seat ``seat``'s button was released at ``t_ns`` (edge time, CLOCK_MONOTONIC ns).

        Feed every release (those :meth:`drivers.slap.SlapButtons.settle` posts late
        included, and one after each computer player's virtual press), or the seat is
        reported stuck after ``stuck_ns``.  Returns True if the seat was stuck and no
        longer is (the device clears the TV notice).  An unknown seat returns False.
        """
        if not 0 <= seat < self.seats:
            return False
        button = self._buttons[seat]
        button.down_since_ns = None
        if button.stuck:
            button.stuck = False
            self._log.append(ButtonNote("released", seat, t_ns))
            return True
        return False

    def next_deadline_ns(self) -> int | None:
        """When :meth:`poll` next has work (CLOCK_MONOTONIC ns): the end of the settle
        time, or the moment a held button becomes stuck; ``None`` when nothing is
        pending, so the loop may block until the next event."""
        deadlines = [
            b.down_since_ns + self.stuck_ns
            for b in self._buttons
            if b.down_since_ns is not None and not b.stuck
        ]
        w = self._window
        if w is not None and w.decision is None and w.settle_end_ns is not None:
            deadlines.append(w.settle_end_ns)
        return min(deadlines, default=None)

    def poll(self, now_ns: int) -> SlapDecision | None:
        """Advance to loop time ``now_ns`` (CLOCK_MONOTONIC ns): mark buttons held down
        for ``stuck_ns`` or longer as stuck (see :attr:`stuck`), and once the settle time
        has passed return the window's decision (once; ``None`` otherwise).  Call it after
        handling every event read in one wake-up, so no counted press is left out."""
        for seat, button in enumerate(self._buttons):
            down = button.down_since_ns
            if not button.stuck and down is not None and now_ns - down >= self.stuck_ns:
                button.stuck = True
                self._log.append(ButtonNote("stuck", seat, down))
        w = self._window
        if (
            w is None
            or w.decision is not None
            or w.settle_end_ns is None
            or w.t0_ns is None
            or now_ns < w.settle_end_ns
        ):
            return None
        w.decision = self._decide(w.contenders, w.t0_ns)
        self._log.append(w.decision)
        return w.decision

    def window_closed(self, now_ns: int) -> None:
        """The engine applied ``slap s`` or ``timeout`` at loop time ``now_ns``
        (CLOCK_MONOTONIC ns): the window is over.  Call it right after the decision (or the
        timeout).  A press stamped inside it and read later is then :attr:`Verdict.LATE`
        (earlier than the winner: logged with its margin) or :attr:`Verdict.LOSING` (after
        the winner), and one stamped less than ``grace_ns`` after ``now_ns`` is
        :attr:`Verdict.LOSING`: none of them is a false slap (RI-6.5).  With no window open,
        nothing happens (and no grace period starts)."""
        w = self._window
        if w is None:
            return
        self._closed.append(_Closed(w.opened_ns, now_ns, w.eligible, w.t0_ns, w.decision))
        self._window = None

    def drain_log(self) -> tuple[LogEntry, ...]:
        """The decisions and button notes since the last call, oldest first, for the
        journal (each has ``to_json()``); the log is then empty."""
        out = tuple(self._log)
        self._log.clear()
        return out

    def replay(self, decision: SlapDecision) -> SlapDecision:
        """Re-make a journaled decision during a replay so the device RNG advances exactly
        as it did (docs/architecture.md "Slap arbitration" 7): a tie is drawn again from ``rng``.
        Returns the decision; raises :class:`ReplayMismatchError` if the draw or the winner
        differs."""
        t0 = decision.t_ns - decision.reaction_ns
        remade = self._decide({c.seat: c.t_ns for c in decision.contenders}, t0)
        if remade != decision:
            raise ReplayMismatchError(
                f"slap replay: journal says seat {decision.seat} (draw {decision.draw}), "
                f"the device RNG gives seat {remade.seat} (draw {remade.draw})"
            )
        return remade

    # --- internals --------------------------------------------------------------------

    def _judge_closed(self, seat: Seat, t: int) -> Verdict:
        """Rule 2: a press ``t`` (edge, ns) read while no window is open."""
        for c in reversed(self._closed):
            if not c.opened_ns <= t < c.closed_ns:
                continue
            refused = self._refused(seat, t, c.t0_ns, c.eligible, Verdict.LATE)
            if refused is not None:
                return refused
            if c.decision is None or t <= c.decision.t_ns:
                if c.decision is not None:
                    self._note_late(seat, t, c.decision)
                return Verdict.LATE
            return Verdict.LOSING
        if any(c.closed_ns <= t < c.closed_ns + self.grace_ns for c in self._closed):
            return Verdict.LOSING
        return Verdict.FALSE_SLAP

    def _refused(
        self, seat: Seat, t: int, t0_ns: int | None, eligible: frozenset[Seat], unflipped: Verdict
    ) -> Verdict | None:
        """The verdict on seat ``seat``'s edge ``t`` inside a window whose flip came at
        ``t0_ns`` (``None``: not yet) for the seats ``eligible``, when it cannot count:
        ``unflipped`` before the flip, :attr:`Verdict.LOSING` for an edge of the previous
        window (rule 3), :attr:`Verdict.NOT_ELIGIBLE`; ``None`` when it may count."""
        if t0_ns is None or t < t0_ns:
            return unflipped
        if self._belongs_to_previous(t, t0_ns):
            return Verdict.LOSING
        if seat not in eligible:
            return Verdict.NOT_ELIGIBLE
        return None

    def _belongs_to_previous(self, t: int, t0_ns: int) -> bool:
        """Rule 3 (RI-6.6): edge ``t`` came sooner than the reaction floor after the flip
        ``t0_ns`` and within the grace period of an earlier window's close."""
        return t - t0_ns < self.reaction_floor_ns and any(
            c.closed_ns <= t < c.closed_ns + self.grace_ns for c in self._closed
        )

    def _note_late(self, seat: Seat, t: int, decision: SlapDecision) -> None:
        """Log a ``"late"`` note if edge ``t`` was no later than the winner's (rule 4)."""
        if t <= decision.t_ns:
            margin = decision.t_ns - t
            self._log.append(ButtonNote("late", seat, t, margin_ns=margin, winner=decision.seat))

    def _decide(self, contenders: Mapping[Seat, int], t0_ns: int) -> SlapDecision:
        """The earliest timestamp wins; equal timestamps drawn with ``rng.randrange``."""
        ordered = tuple(
            Contender(seat, t, t - t0_ns)
            for seat, t in sorted(contenders.items(), key=lambda item: (item[1], item[0]))
        )
        best = ordered[0].t_ns
        tied = [c.seat for c in ordered if c.t_ns == best]
        draw = self.rng.randrange(len(tied)) if len(tied) > 1 else None
        seat = tied[0] if draw is None else tied[draw]
        return SlapDecision(
            seat=seat,
            t_ns=best,
            reaction_ns=best - t0_ns,
            tie=draw is not None,
            contenders=ordered,
            draw=draw,
        )
