"""Computer players for Right on Time.  Both decide from their own seat's
:class:`~engine.right_on_time.view.RightOnTimeView` only (docs/architecture.md "Hidden information")
and draw randomness only from the device RNG they are given.

- :class:`RandomBot` picks uniformly among the legal actions.
- :class:`HeuristicBot` scores every legal action by the hand it keeps and the top value it
  leaves, estimating chances over the next top value from the deck's public make-up:

  * 3+ seats, nobody out yet: never go out first while it can help it (the first seat out
    gets no point, RT-6.2, so going out first hands the point to someone else); keep a hand
    that will not be forced out next turn (three cards, or a last card that is hard to lay)
    and the cards that keep small hands safe; give the turn (Du bist!) to seats with few
    cards and make seats with many cards draw (Ziehen!).
  * 3+ seats, a seat is out: race to empty the hand (now, else next turn), leave the next
    seat a top value it cannot use, make seats close to going out draw.
  * 2 seats: go out first when the other seat is unlikely to empty its hand in its single
    turn (RT-9.2); in its own single turn use Du bist! on itself (RT-9.5) and Ziehen! on the
    other seat to bring it back (RT-9.4).
  * Bonus swaps (RT-6.4) are looked one swap ahead and made only when they gain much.

  Ties are broken by the device RNG.  Against two :class:`RandomBot` it wins about two
  thirds of 3-seat matches (``bench/bench_rot.py`` measures it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from engine._common import STANDARD_DECK
from engine.core import Bot, Card, Seat
from engine.right_on_time.actions import BonusSwap, Draw, Play, RotAction, to_action
from engine.right_on_time.cards import VALUE, load_deck
from engine.right_on_time.options import RotOptions
from engine.right_on_time.rules import gen_moves
from engine.right_on_time.view import RightOnTimeView

WIN = 10_000.0
"""Score of an action that wins the round now."""


class RandomBot(Bot[RightOnTimeView, RotAction]):
    """Uniformly random among the legal actions (``rng.choice``)."""

    kind = "random"

    def choose(self, view: RightOnTimeView, legal: Sequence[RotAction]) -> RotAction:
        """One of ``legal``, uniformly at random."""
        return self.rng.choice(legal)


@dataclass(frozen=True, slots=True)
class _Seen:
    """What the bot knows, in the shape :func:`engine.right_on_time.rules.gen_moves` reads
    (other seats' hands are unknown and left empty: generation reads only the mover's)."""

    seats: int
    options: RotOptions
    hands: tuple[tuple[Card, ...], ...]
    discard: tuple[Card, ...]
    to_move: Seat | None
    out: tuple[Seat, ...]
    bonus: tuple[tuple[Card, ...], ...]
    winner: Seat | None


def _seen(view: RightOnTimeView, hand: tuple[Card, ...], bonus: tuple[Card, ...]) -> _Seen:
    me = view.seat
    assert me is not None
    hands = tuple(hand if s == me else () for s in range(view.seats))
    bonuses = tuple(bonus if s == me else () for s in range(view.seats))
    options = RotOptions.from_items(view.options)
    discard = () if view.top is None else (view.top,)
    return _Seen(view.seats, options, hands, discard, me, view.out, bonuses, None)


def _without(cards: Sequence[Card], gone: Sequence[Card]) -> tuple[Card, ...]:
    rest = list(cards)
    for code in gone:
        rest.remove(code)
    return tuple(rest)


class HeuristicBot(Bot[RightOnTimeView, RotAction]):
    """Scores each legal action (module docstring) and plays the best; ties by the RNG."""

    kind = "heuristic"

    w_race = 1000.0
    """Racing (a seat is out): weight of (next seat does not empty) x (chance I empty next)."""
    w_base = 0.3
    """Racing: value of surviving the next seat's turn without being ready myself."""
    w_size = 10.0
    """Racing: cost per card kept."""
    w_ready2 = 0.1
    """Racing with 3+ cards kept: weight of the best two cards' chance to empty together."""
    w_risk = 200.0
    """Nobody out: cost of the chance of being forced out first next turn."""
    w_risk2 = 30.0
    """Nobody out, 3+ cards kept: cost of the safest two-card end's risk."""
    w_ready = 20.0
    """Nobody out: value of being able to empty the hand once someone else is out."""
    w_keep = 5.0
    """Nobody out: cost per card kept (shed steadily)."""
    w_hit = 15.0
    """Nobody out: cost of a Ziehen! on a seat with few cards (let it go out first)."""
    w_give = 10.0
    """Nobody out: value of a Du bist! on a seat with few cards."""
    w_keep_bonus = 300.0
    """Cost of using a bonus card (kept for a race it decides)."""

    def choose(self, view: RightOnTimeView, legal: Sequence[RotAction]) -> RotAction:
        """The best-scoring of ``legal`` (non-empty) for ``view.seat``."""
        if len(legal) == 1:
            return legal[0]
        scored = [(self._score(view, view.hand, view.bonus, a, 1), i) for i, a in enumerate(legal)]
        best = max(s for s, _ in scored)
        choices = [legal[i] for s, i in scored if s == best]
        return choices[0] if len(choices) == 1 else self.rng.choice(choices)

    # ------------------------------------------------------------------ scoring

    def _score(
        self,
        view: RightOnTimeView,
        hand: tuple[Card, ...],
        bonus: tuple[Card, ...],
        action: RotAction,
        depth: int,
    ) -> float:
        if isinstance(action, BonusSwap):
            if depth <= 0:
                return -WIN
            new_hand = (*_without(hand, [action.hand]), action.bonus)
            new_bonus = _without(bonus, [action.bonus])
            follow = [
                self._score(view, new_hand, new_bonus, a, depth - 1)
                for a in _actions(view, new_hand, new_bonus)
            ]
            return max(follow) - self.w_keep_bonus
        if isinstance(action, Draw):
            return self._score_draw(view, hand)
        return self._score_play(view, hand, action)

    def _score_draw(self, view: RightOnTimeView, hand: tuple[Card, ...]) -> float:
        me = view.seat
        if view.seats == 2 and (1 - (me or 0)) in view.out:
            return -WIN  # my single turn ends with cards left (RT-9.2)
        if view.seats >= 3 and view.out:
            return -50.0 - 10.0 * len(hand)
        return -5.0 * len(hand)

    def _score_play(self, view: RightOnTimeView, hand: tuple[Card, ...], play: Play) -> float:
        me = view.seat
        assert me is not None
        n = view.seats
        laid = [lay.card for lay in play.cards]
        left = _without(hand, laid)
        top_after = VALUE[play.cards[-1].pile_code]
        kind = play.effect.kind if play.effect else ""
        target = play.effect.seat if play.effect else -1
        can_draw = view.draw_count > 0 or view.discard_count + len(laid) > 1
        gets_card = kind == "@" and target == me and can_draw
        size = len(left) + (1 if gets_card else 0)
        counts = list(view.hand_counts)
        if kind == "@" and target != me and can_draw:
            counts[target] += 1
        if n == 2:
            return self._two_seats(view, play, size, top_after, counts, kind, target, can_draw)
        racing = bool(view.out)
        if size == 0:
            return WIN if racing else -WIN
        kept = (*left, "?") if gets_card else left
        others = [s for s in range(n) if s != me and s not in view.out]
        score = 0.0
        if racing:
            nxt = target if kind == ">" else next_seat(view.seats, view.out, me)
            deck = str(dict(view.options).get("deck", STANDARD_DECK))
            danger = empty_chance(deck, counts[nxt], top_after) if nxt != me else 0.0
            alone = len(others) == 1 and counts[nxt] == 1
            ready = _ready_on(kept, top_after) if alone else ready_chance(kept)
            if len(kept) >= 3:
                ready = self.w_ready2 * max(ready_chance(pair) for pair in _pairs(kept))
            score += self.w_race * (1.0 - danger) * (self.w_base + ready)
            score -= self.w_size * size
        else:
            score -= self.w_risk * risk_chance(kept)
            if len(kept) >= 3:
                score -= self.w_risk2 * min(risk_chance(pair) for pair in _pairs(kept))
            score += self.w_ready * ready_chance(kept) - self.w_keep * size
            if kind == "@" and target != me:
                score -= self.w_hit / max(1, view.hand_counts[target])
            if kind == ">":
                score += self.w_give / max(1, view.hand_counts[target])
        return score

    def _two_seats(
        self,
        view: RightOnTimeView,
        play: Play,
        size: int,
        top_after: int,
        counts: list[int],
        kind: str,
        target: Seat,
        can_draw: bool,
    ) -> float:
        me = view.seat
        assert me is not None
        other = 1 - me
        mine = other in view.out  # my single turn (RT-9.2, RT-9.6)
        back = kind == "@" and target == other and can_draw
        if size == 0:
            if mine and not back:
                return WIN
            return 2000.0 + _single_turn_risk(counts[other], top_after)
        if kind == ">" and target == me:
            return (3000.0 if mine else 50.0) - 10.0 * size
        if mine:
            return (1000.0 if back else -WIN) - 10.0 * size
        score = -20.0 * size + _pressure(counts[other], top_after)
        if kind == "@":
            score += 25.0 if target == other else -25.0
        return score


def _actions(
    view: RightOnTimeView, hand: tuple[Card, ...], bonus: tuple[Card, ...]
) -> list[RotAction]:
    return [to_action(m) for m in gen_moves(_seen(view, hand, bonus))]


_TOPS = (0.5, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)
"""Rough weights of the top value (0..7) at the seat's next turn."""
_TOPS_SUM = sum(_TOPS)


def _single_ok(card: Card, top: int) -> float:
    """1 when ``card`` can be laid alone on ``top`` ("?" = an unknown card: a chance)."""
    if card == "?":
        return (7 - top) / 7
    if card == "N":
        return 1.0
    if card == "J":
        return 1.0 if top < 7 else 0.0
    return 1.0 if VALUE[card] > top else 0.0


def _pair_ok(a: Card, b: Card, top: int) -> float:
    """1 when ``a`` and ``b`` can be laid together on ``top``."""
    if top == 0 or "N" in (a, b):
        return 0.0
    chance = 1.0
    for card in (a, b):
        if card == "?":
            chance *= top / 7
        elif card != "J" and VALUE[card] > top:
            return 0.0
    return chance


def risk_chance(hand: Sequence[Card]) -> float:
    """Chance that ``hand`` must go out at the seat's next turn (no lay that keeps a card)."""
    if len(hand) >= 3:
        return 0.0
    return _risk_of(tuple(sorted(hand)))


@lru_cache(maxsize=4096)
def _risk_of(hand: tuple[Card, ...]) -> float:
    """:func:`risk_chance` of a sorted hand of at most two cards (cached)."""
    if not hand:
        return 1.0
    total = 0.0
    for top, weight in enumerate(_TOPS):
        if len(hand) == 1:
            total += weight * _single_ok(hand[0], top)
        else:
            keep = max(_single_ok(hand[0], top), _single_ok(hand[1], top))
            total += weight * (1.0 - keep) * _pair_ok(hand[0], hand[1], top)
    return total / _TOPS_SUM


def _pairs(hand: Sequence[Card]) -> list[tuple[Card, Card]]:
    """Every two-card subset of ``hand`` (by position)."""
    return [(a, b) for i, a in enumerate(hand) for b in hand[i + 1 :]]


def _ready_on(hand: Sequence[Card], top: int) -> float:
    """Chance that ``hand`` can be emptied in one lay on ``top``."""
    if len(hand) == 1:
        return _single_ok(hand[0], top)
    if len(hand) == 2:
        return _pair_ok(hand[0], hand[1], top)
    return 0.0 if hand else 1.0


def ready_chance(hand: Sequence[Card]) -> float:
    """Chance that ``hand`` can be emptied at the seat's next turn."""
    if len(hand) >= 3 or not hand:
        return 0.0 if hand else 1.0
    return _ready_of(tuple(sorted(hand)))


@lru_cache(maxsize=4096)
def _ready_of(hand: tuple[Card, ...]) -> float:
    """:func:`ready_chance` of a sorted hand of one or two cards (cached)."""
    total = 0.0
    for top, weight in enumerate(_TOPS):
        if len(hand) == 1:
            total += weight * _single_ok(hand[0], top)
        else:
            total += weight * _pair_ok(hand[0], hand[1], top)
    return total / _TOPS_SUM


@lru_cache(maxsize=8)
def _deck_odds(deck: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """From the deck's make-up (public: option ``deck``, ``"standard"`` the default): per top value
    0..7, the chance that one unknown card can be laid alone, and two as a pair."""
    cards = load_deck(deck)
    one = []
    two = []
    for top in range(8):
        alone = sum(_single_ok(c, top) for c in cards) / len(cards)
        low = sum(1 for c in cards if c == "J" or (c != "N" and VALUE[c] <= top)) / len(cards)
        one.append(alone)
        two.append(low * low if top else 0.0)
    return tuple(one), tuple(two)


def empty_chance(deck: str, count: int, top: int) -> float:
    """Chance that a seat with ``count`` unknown cards of deck ``deck`` (option value) empties its
    hand on ``top`` now."""
    if count == 1:
        return _deck_odds(deck)[0][top]
    if count == 2:
        return _deck_odds(deck)[1][top]
    return 0.0


def next_seat(seats: int, out: Sequence[Seat], seat: Seat) -> Seat:
    """The next seat clockwise from ``seat`` still in the round (not in ``out``, RT-6.1),
    or ``seat`` if none."""
    for k in range(1, seats):
        nxt = (seat + k) % seats
        if nxt not in out:
            return nxt
    return seat


def _pressure(count: int, top: int) -> float:
    """How hard the top value makes it for a seat with ``count`` cards to empty its hand:
    one card wants a low top, two cards want a high top (a pair needs values <= top)."""
    if count == 1:
        return 8.0 * top
    if count == 2:
        return 8.0 * (7 - top)
    return 0.0


def _single_turn_risk(count: int, top: int) -> float:
    """Score of going out first with 2 seats: the other seat has one turn with ``count``
    cards on top value ``top`` (RT-9.2)."""
    if count >= 3:
        return 500.0
    if count == 2:
        return -500.0 + 60.0 * (7 - top)
    return -500.0 + 60.0 * top
