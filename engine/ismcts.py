"""Single-observer information-set Monte Carlo tree search (SO-ISMCTS), the search behind
both games' ``"hard"`` computer players.

The algorithm is Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree
Search", IEEE Transactions on Computational Intelligence and AI in Games 4(2), 2012,
section IV (SO-ISMCTS): one tree for the observer's information set; every iteration

1. **determinizes**: samples the hidden cards (other hands, the draw pile's order, cards
   out of play) consistently with what the observer's view shows
   (:meth:`Search.determinize`);
2. **selects** from the root with UCB1 among the children whose actions are legal in
   that determinization, counting each such child's *availability* (the number of times
   it could have been chosen), since a child is not selectable in every determinization;
3. **expands** one action legal here that has no child yet (a random one);
4. **plays out** with the game's fast default policy on its private fast path
   (:meth:`Search.playout`);
5. **backs up** the result: every node on the path gains a visit and the reward (in
   [0, 1]) of the seat that chose its action.

The root's most visited legal child is the choice.  The budget is a fixed number of
iterations, and optionally a fixed amount of work in the game's own unit (tree steps and
playout moves, or moves generated, counted by the game in :attr:`Search.spent`) after
which no new iteration starts; never a clock, so a decision's cost is bounded however
long its playouts run; and every random draw comes from the ``random.Random`` the caller
passes, so a decision is reproducible from the rng's seed.  Nothing here knows a
game: a game supplies a :class:`Search`.
"""

from __future__ import annotations

import math
import random
from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from typing import Generic, TypeVar

S = TypeVar("S")
"""A determinized state of the game's fast path (mutable; one per iteration)."""

Act = TypeVar("Act", bound=Hashable)
"""A fast-path action (hashable: tree children are keyed by it)."""

EXPLORATION = 0.7
"""UCB1's exploration constant c in ``wins / visits + c * sqrt(ln(avail) / visits)``
(rewards are 0 or 1; Cowling et al. use 0.7 for their card games)."""


class Search(ABC, Generic[S, Act]):
    """What the search needs from a game, for one decision of one observer seat.

    ``spent`` counts the work done so far in the game's own unit (e.g. tree steps and
    playout moves, or moves generated and scored): a game that supports a budget
    (:func:`search`'s ``moves``) adds to it in :meth:`step` and :meth:`playout`."""

    spent: int = 0

    @abstractmethod
    def determinize(self, rng: random.Random) -> S:
        """A fresh full state consistent with the observer's view, hidden cards sampled
        with ``rng``; the observer is to move."""

    @abstractmethod
    def legal(self, state: S) -> Sequence[Act]:
        """The legal actions of the seat to move in ``state``, in a fixed order (empty once
        :meth:`to_move` is ``None``)."""

    @abstractmethod
    def to_move(self, state: S) -> int | None:
        """The seat that chooses the next action, ``None`` when the search's horizon is
        reached (game or round over)."""

    @abstractmethod
    def step(self, state: S, action: Act, rng: random.Random) -> None:
        """Apply ``action`` in place; chance and other seats' reflexes (a slap race) are
        resolved with ``rng`` until a seat must choose again or the horizon is reached."""

    @abstractmethod
    def playout(self, state: S, rng: random.Random) -> Sequence[float]:
        """Play ``state`` on with the default policy; returns each seat's reward in [0, 1]
        (1 for a win; an estimate where the playout stops early)."""

    @abstractmethod
    def rewards(self, state: S) -> Sequence[float]:
        """Each seat's reward at the horizon (``to_move(state) is None``)."""


class Node:
    """A tree node: the action leading here was chosen by ``player``; ``visits`` and
    ``wins`` count playouts through it, ``avail`` the times it was selectable."""

    __slots__ = ("avail", "children", "player", "visits", "wins")

    def __init__(self, player: int) -> None:
        self.player = player
        self.visits = 0
        self.wins = 0.0
        self.avail = 0
        self.children: dict[Hashable, Node] = {}


def search(
    game: Search[S, Act],
    root_actions: Sequence[Act],
    iterations: int,
    rng: random.Random,
    exploration: float = EXPLORATION,
    default: Act | None = None,
    confidence: float = 0.0,
    moves: int | None = None,
) -> Act:
    """The SO-ISMCTS choice among ``root_actions`` (the observer's legal actions, the same
    in every determinization) after ``iterations`` iterations (module docstring).  With
    one action, or ``iterations < 1``, returns the first (or ``default``) without drawing
    from ``rng``.  Ties in visits go to the earlier action in ``root_actions``.

    ``default`` (one of ``root_actions``, e.g. a heuristic's choice) is kept unless the
    most visited action's mean reward beats it by ``confidence`` standard errors of the
    difference of the two means: the search overrides a sound rule of thumb only where
    its playouts show it clearly wrong (a decision rule on top of SO-ISMCTS, in the
    spirit of progressive bias, Chaslot et al. 2008).

    ``moves`` (optional) caps the work (``game.spent``'s unit): once ``game.spent`` reaches
    it after an iteration, the search stops early (at least one iteration runs).  Counted,
    not timed, so the choice stays reproducible from the rng's seed."""
    if len(root_actions) == 1 or iterations < 1:
        return root_actions[0] if default is None else default
    root = Node(-1)
    log = math.log
    sqrt = math.sqrt
    for _ in range(iterations):
        if moves is not None and game.spent >= moves and root.visits:
            break
        state = game.determinize(rng)
        node = root
        path = [root]
        while True:
            player = game.to_move(state)
            if player is None:
                break
            actions = root_actions if node is root else game.legal(state)
            children = node.children
            untried = [a for a in actions if a not in children]
            if untried:
                action = untried[int(rng.random() * len(untried))]
                child = Node(player)
                children[action] = child
                for a in actions:
                    known = children.get(a)
                    if known is not None:
                        known.avail += 1
                game.step(state, action, rng)
                path.append(child)
                break
            best_value = -1.0
            best_action = actions[0]
            for a in actions:
                child = children[a]
                child.avail += 1
                value = child.wins / child.visits + exploration * sqrt(
                    log(child.avail) / child.visits
                )
                if value > best_value:
                    best_value = value
                    best_action = a
            node = children[best_action]
            game.step(state, best_action, rng)
            path.append(node)
        done = game.to_move(state) is None
        reward = game.rewards(state) if done else game.playout(state, rng)
        root.visits += 1
        for visited in path[1:]:
            visited.visits += 1
            visited.wins += reward[visited.player]
    best = root_actions[0]
    most = -1
    for action in root_actions:
        known = root.children.get(action)
        visits = known.visits if known is not None else 0
        if visits > most:
            most = visits
            best = action
    if default is None or default == best:
        return best
    return best if _clearly_better(root.children, best, default, confidence) else default


def _clearly_better(
    children: dict[Hashable, Node], best: Hashable, other: Hashable, confidence: float
) -> bool:
    """True when child ``best``'s mean reward exceeds ``other``'s by more than
    ``confidence`` standard errors of the difference (binomial variance of the pooled
    mean; an unvisited ``other`` is always beaten)."""
    a = children.get(best)
    b = children.get(other)
    if a is None or not a.visits:
        return False
    if b is None or not b.visits:
        return True
    mean_a = a.wins / a.visits
    mean_b = b.wins / b.visits
    pooled = (a.wins + b.wins) / (a.visits + b.visits)
    spread = math.sqrt(max(pooled * (1.0 - pooled), 1e-9) * (1 / a.visits + 1 / b.visits))
    return mean_a - mean_b > confidence * spread
