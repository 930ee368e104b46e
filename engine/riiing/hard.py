"""The ``"hard"`` Riiing! computer player: SO-ISMCTS (:mod:`engine.ismcts`) over its own
:class:`~engine.riiing.view.RiiingView` only, on the private fast path
(:mod:`engine.riiing._fast`).

What the view shows and a determinization keeps (RI-1.4, RI-3.1, RI-5, RI-6):

- the seat's own hand, every seat's card count, the pile sizes, the discard pile (laid
  face up), the pending demand or phone chain, the deck (option ``deck``, public);
- the condition in force is the back of the draw pile's top card, so the sampled top card
  has that back (the deck pairs every front with a fixed back).

Everything else (the other hands, the draw pile below its top, the shuffle seed) is
sampled from the cards the seat cannot see, consistently with what the seat has seen
happen: each card of another hand is one the public history has not ruled out
(:mod:`engine.riiing.inference`: a seat that drew held nothing playable, a demanded seat
that drew held none of the symbol, a slapper kept none of the window's symbol; the bot
learns it through :meth:`HardBot.observe`).  Slap windows are
the device's business (it times computer slaps), so inside the search a window that
opens is resolved at once by a uniformly random slapper, as between computer players of
equal speed.  The default policy of the playouts is the heuristic's rule on the fast
path: lay a number card (a random one) while there is one, keep demand cards and Phones
for turns without one, pass a phone chain on rather than take (RI-4, RI-5) — random among
the number cards on purpose: playouts by the heuristic's own pick won 49.8% where these won
52.0% (2,000 games each); after
:data:`PLAYOUT_DEPTH` actions a playout is scored by the hand sizes.  The heuristic's own
choice stands unless the search beats it by :data:`CONFIDENCE` standard errors.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from typing import ClassVar

from engine.core import Bot
from engine.ismcts import Search, search
from engine.riiing._fast import DRAW, SLAP, TAKE, FastState, card_table
from engine.riiing.actions import RiiingAction
from engine.riiing.bots import HeuristicBot
from engine.riiing.cards import SYMBOLS
from engine.riiing.deck import load_deck
from engine.riiing.inference import FREE, HandTracker
from engine.riiing.position import RiiingOptions
from engine.riiing.view import RiiingView

ITERATIONS = 400
"""Iterations per decision (fixed, so a game replays from its seed).  About 15 ms of CPU
a decision on the bench machine (median; ``bench/bench_strength.py`` prints the spread),
well inside the 80 ms that stand for 250 ms on a Raspberry Pi."""

PLAYOUT_DEPTH = 20
"""Actions a playout plays at most before it is scored by hand sizes (:meth:`rewards`):
a short horizon keeps the luck of later draws and slaps out of the comparison, and every
iteration equally cheap."""

SIZE_WEIGHT = 0.35
"""How much one card in hand lowers a seat's estimated chance to win, per card."""

CONFIDENCE = 0.5
"""Standard errors by which the search must beat the heuristic's choice to override it
(:func:`engine.ismcts.search`).  Chosen on 2,000 seeded 2-seat games against the
heuristic on deals the bench does not use: 53.5% won with 0.5, 52.9% with 0 (the search
alone), 52.0% with 1.0; with 2.5 and no inference (the first version) the search hardly
ever overrode the heuristic (50.2% over the bench's games)."""

_NUMBER = 0


class RiiingSearch(Search[FastState, int]):
    """One decision of the seat whose ``view`` this is (the seat to move, no window)."""

    def __init__(self, view: RiiingView, tracker: HandTracker | None = None) -> None:
        seat = view.seat
        if seat is None or view.to_move != seat:
            raise ValueError(f"hard bot: the view of seat {seat!r} is not the seat to move")
        self.view = view
        self.seat = seat
        self.options = RiiingOptions.from_mapping({"deck": view.deck})
        codes = [card.code for card in load_deck(view.deck)]
        visible = {*view.hand, *view.discard, view.last_card}  # a hand-made view may hold
        self.table = card_table(frozenset(codes) | visible)  # cards its deck lacks
        ids = self.table.ids
        pool = Counter(ids[code] for code in codes if code in ids)
        below = list(view.discard[:-1])
        if len(view.discard) != view.discard_count or view.discard[-1:] != (view.last_card,):
            below = []  # a view without the pile: its lower cards are sampled too
        self.below = [ids[code] for code in below if code in ids]
        seen = (*view.hand, *below, view.last_card)
        known = [ids[code] for code in seen if code in ids]
        for card in known:
            if pool[card] > 0:
                pool[card] -= 1
        self.pool = sorted(pool.elements())
        self.hand = [ids[code] for code in view.hand if code in ids]
        self.last = ids.get(view.last_card, self.pool[0] if self.pool else 0)
        back = {back: i for i, back in enumerate(sorted({c.back for c in self.table.cards}))}
        self.top_back = -1 if view.condition is None else back.get(view.condition, -1)
        self.demand = -1 if view.demand is None else SYMBOLS.index(view.demand)
        self.slots: list[tuple[int, int, frozenset[int]]] = []
        """Every other seat's hidden cards as (seat, slot number, ids it is not), most
        constrained first: the order :meth:`determinize` fills them in."""
        for s, count in enumerate(view.hand_counts):
            if s == seat:
                continue
            facts = list(tracker.hand(s)) if tracker is not None else []
            facts = (facts + [FREE] * count)[:count]
            for i, slot in enumerate(facts):
                self.slots.append((s, i, frozenset(ids[c] for c in slot if c in ids)))
        self.slots.sort(key=lambda item: -len(item[2]))

    def determinize(self, rng: random.Random) -> FastState:
        """The other hands, the draw pile (its top's back the condition in force) and the
        discard pile below its top, sampled from the unseen cards; each hidden card of a
        hand is one its slot allows (:mod:`engine.riiing.inference`), filled in most
        constrained first, the first such card of the shuffled unseen cards."""
        view = self.view
        table = self.table
        unseen = list(self.pool)
        rng.shuffle(unseen)
        draw_count = view.draw_count
        top: int | None = None
        if draw_count and self.top_back >= 0:
            backs = table.back
            for i, card in enumerate(unseen):
                if backs[card] == self.top_back:
                    top = unseen.pop(i)
                    break
        hands: list[list[int]] = [
            list(self.hand) if s == self.seat else [0] * count
            for s, count in enumerate(view.hand_counts)
        ]
        for s, i, cannot in self.slots:
            pick = 0
            if cannot:
                for j, card in enumerate(unseen):
                    if card not in cannot:
                        pick = j
                        break
            hands[s][i] = unseen.pop(pick)  # a fact that fits no card left: any card
        if self.below:
            discard = [*self.below, self.last]
        else:
            below = max(0, view.discard_count - 1)
            discard = [*unseen[:below], self.last]
            del unseen[:below]
        rest = draw_count - (top is not None)
        draw = unseen[:rest]
        if top is not None:
            draw.append(top)  # the fast path keeps the draw pile reversed: top last
        state = FastState(
            table, self.options, hands, draw, discard, self.seat, rng.getrandbits(32)
        )
        state.demand = self.demand
        state.phones = view.phones
        state.window = -1
        return state

    def legal(self, state: FastState) -> Sequence[int]:
        """The fast path's legal action ids (no window is ever open here)."""
        return state.legal()

    def to_move(self, state: FastState) -> int | None:
        """The seat to move, ``None`` once a seat won (RI-7.1)."""
        return None if state.winner >= 0 else state.to_move

    def step(self, state: FastState, action: int, rng: random.Random) -> None:
        """Apply ``action``; a window that opens goes to a uniformly random slapper
        (RI-6.3), again while windows open (RI-6.6)."""
        state.step(action)
        seats = state.seats
        while state.window >= 0 and state.winner < 0:
            state.step(SLAP - int(rng.random() * seats))

    def playout(self, state: FastState, rng: random.Random) -> list[float]:
        """The default policy (module docstring) for up to :data:`PLAYOUT_DEPTH` actions;
        the rewards of the end (:meth:`rewards`)."""
        kind = self.table.kind
        uniform = rng.random
        seats = state.seats
        for _ in range(PLAYOUT_DEPTH):
            if state.winner >= 0:
                break
            if state.window >= 0:
                state.step(SLAP - int(uniform() * seats))
                continue
            legal = state.legal()
            if len(legal) > 1:
                numbers = [a for a in legal if a >= 0 and kind[a] == _NUMBER]
                if numbers:
                    legal = numbers
                elif state.phones and legal[-1] == TAKE:
                    legal = legal[:-1]
            state.step(legal[int(uniform() * len(legal))])
        return self.rewards(state)

    def rewards(self, state: FastState) -> list[float]:
        """1 for the winner (RI-7.1); before the end, each seat's share of
        ``exp(-SIZE_WEIGHT * cards in hand)``: fewer cards, nearer the win."""
        if state.winner >= 0:
            out = [0.0] * state.seats
            out[state.winner] = 1.0
            return out
        weights = [math.exp(-SIZE_WEIGHT * len(hand)) for hand in state.hands]
        total = sum(weights)
        return [w / total for w in weights]

    def fast_action(self, action: RiiingAction) -> int:
        """The fast path's id of a turn action (``play``, ``draw``, ``take``)."""
        if action.card is not None:
            return self.table.ids[action.card.code]
        return DRAW if action.kind == "draw" else TAKE


class HardBot(Bot[RiiingView, RiiingAction]):
    """SO-ISMCTS over the seat's own view (module docstring), :data:`ITERATIONS`
    iterations a decision, every random draw from ``self.rng``.  The heuristic's choice
    (:class:`~engine.riiing.bots.HeuristicBot`, from the view alone) stands unless the
    search beats it by :data:`CONFIDENCE` standard errors.  A single legal action is taken
    without searching; a view that is not this seat's turn (another seat's, a window
    open) gets the first legal action."""

    kind: ClassVar[str] = "hard"
    iterations: int = ITERATIONS

    def __init__(self, seat: int, rng: random.Random) -> None:
        super().__init__(seat, rng)
        self.tracker = HandTracker(seat)
        """What the public history says of the other hands (:mod:`engine.riiing.inference`)."""

    def observe(self, before: RiiingView, action: RiiingAction, after: RiiingView) -> None:
        """Take in one public action (:meth:`HandTracker.update`)."""
        self.tracker.update(before, action, after)

    def choose(self, view: RiiingView, legal: Sequence[RiiingAction]) -> RiiingAction:
        """The search's choice among ``legal`` (non-empty, the seat's turn actions)."""
        if len(legal) == 1:
            return legal[0]
        if view.seat != self.seat or view.to_move != self.seat or view.window is not None:
            return legal[0]  # not a turn of this seat (a window: the device times slaps)
        fallback = HeuristicBot(self.seat, self.rng).choose(view, legal)
        game = RiiingSearch(view, self.tracker)
        ids = [game.fast_action(action) for action in legal]
        default = game.fast_action(fallback)
        best = search(
            game, ids, self.iterations, self.rng, default=default, confidence=CONFIDENCE
        )
        return legal[ids.index(best)]
