"""The Right on Time rules core: move generation and the state transition (RT-2..RT-9).

One implementation serves both paths:

- the public, checked API (:class:`engine.right_on_time.RightOnTimeGame`) thaws a frozen
  :class:`~engine.right_on_time.position.RotPosition` into a :class:`Table`, applies one
  move with events and freezes the result;
- the private fast path (:func:`random_playout`, behind
  ``RightOnTimeGame._fast_random_playout`` and the hard bot's search) keeps one mutable
  :class:`Table` for a whole playout and skips checks and events.  Its uniform move pick
  (:func:`random_move`) counts the lays in closed form from the same constant tables
  :func:`raw_lays` reads instead of listing them (:func:`move_count`), and applies the
  move with the same :func:`apply_move`; ``tests/engine/test_right_on_time_fast.py`` plays
  it in lockstep with the checked path.

A *move* is a compact tuple (an internal form of an action):

- ``("p", hand_codes, pile_codes, kind, target)``: a play.  ``hand_codes`` are the codes
  leaving the hand in the order written (``"J"`` for a Joker), ``pile_codes`` the same
  cards as they lie on the discard pile (``"J4"``), ``kind`` ``">"``/``"@"``/``""`` the
  effect carried out and ``target`` its seat (``-1`` without effect);
- ``("d",)``: ``draw`` (RT-5.1);
- ``("b", bonus_code, hand_code)``: a bonus swap (RT-6.4).

The discard pile's top value (RT-1.3) decides lays; an empty discard pile (the round's
opening lay, RT-2.2) behaves like ``N`` on top: any single card, no pair.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from itertools import chain
from typing import Any, Protocol

from engine.core import Card, Event, FastPath, Seat, shuffle
from engine.right_on_time.actions import DRAW_MOVE, Move
from engine.right_on_time.cards import EFFECT, HAND_CODES, PILE_CODES, VALUE, load_deck, unjoker
from engine.right_on_time.options import RotOptions
from engine.right_on_time.position import RotPosition

_NO_EFFECT: tuple[tuple[str, int], ...] = (("", -1),)

_UNJOKER: dict[Card, Card] = {code: unjoker(code) for code in HAND_CODES | PILE_CODES}
"""Every code as it goes back into a draw pile: ``J<n>`` becomes ``J`` (RT-1.4)."""


class State(Protocol):
    """What move generation reads: a frozen position or a mutable :class:`Table`."""

    @property
    def seats(self) -> int:
        """Number of seats."""

    @property
    def options(self) -> RotOptions:
        """Resolved options."""

    @property
    def hands(self) -> tuple[tuple[Card, ...], ...] | list[list[Card]]:
        """Hands per seat."""

    @property
    def discard(self) -> tuple[Card, ...] | list[Card]:
        """Discard pile, bottom first."""

    @property
    def to_move(self) -> Seat | None:
        """Seat to move."""

    @property
    def out(self) -> tuple[Seat, ...] | list[Seat]:
        """Seats out of this round."""

    @property
    def bonus(self) -> tuple[tuple[Card, ...], ...] | list[list[Card]]:
        """Bonus cards per seat."""

    @property
    def winner(self) -> Seat | None:
        """Match winner."""


class Table:
    """A mutable copy of a position, for applying moves.  Attribute names and meanings are
    those of :class:`RotPosition`; card lists are ``list``s."""

    __slots__ = (
        "bonus", "discard", "draw", "hands", "options", "out", "round", "scores", "seats",
        "seed", "shown", "to_move", "winner",
    )  # fmt: skip

    def __init__(self, pos: RotPosition) -> None:
        self.seats = pos.seats
        self.options = pos.options
        self.hands = [list(h) for h in pos.hands]
        self.draw = list(pos.draw)
        self.discard = list(pos.discard)
        self.to_move = pos.to_move
        self.seed = pos.seed
        self.round = pos.round
        self.scores = list(pos.scores)
        self.out = list(pos.out)
        self.bonus = [list(b) for b in pos.bonus]
        self.winner = pos.winner
        self.shown = [list(s) for s in pos.shown]

    @staticmethod
    def deal(seats: int, seed: int, options: RotOptions, first: Seat) -> Table:
        """Round 1 of a match straight into a table (RT-2.1 .. RT-2.3, RT-9.1): the deck of
        ``options`` shuffled from ``seed``, dealt clockwise from ``first``, who opens.
        Unchecked: ``RightOnTimeGame.new`` validates its arguments and freezes this."""
        cards, next_seed = shuffle(load_deck(options.deck), seed)
        hands, draw = deal(cards, seats, hand_size(seats), first)
        table = Table.__new__(Table)
        table.seats = seats
        table.options = options
        table.hands = hands
        table.draw = draw
        table.discard = []
        table.to_move = first
        table.seed = next_seed
        table.round = 1
        table.scores = [0] * seats
        table.out = []
        table.bonus = [[] for _ in range(seats)]
        table.winner = None
        table.shown = [[] for _ in range(seats)]
        return table

    def freeze(self) -> RotPosition:
        """The frozen position this table holds now."""
        return RotPosition(
            seats=self.seats,
            options=self.options,
            hands=tuple(tuple(h) for h in self.hands),
            draw=tuple(self.draw),
            discard=tuple(self.discard),
            to_move=self.to_move,
            seed=self.seed,
            round=self.round,
            scores=tuple(self.scores),
            out=tuple(self.out),
            bonus=tuple(tuple(b) for b in self.bonus),
            winner=self.winner,
            shown=tuple(tuple(s) for s in self.shown),
        )


# --------------------------------------------------------------------------- generation


def top_value(discard: tuple[Card, ...] | list[Card]) -> int:
    """RT-1.3 value of the discard pile's top card; 0 for an empty pile (RT-2.2)."""
    return VALUE[discard[-1]] if discard else 0


_PlayMove = tuple[str, tuple[Card, ...], tuple[Card, ...], str, int]

Piles = tuple[tuple[Card, ...], ...]
"""The pile-code choices of one lay (``(("J5",), ("J6",))``, ``(("3", "J2"),)``)."""

Effects = tuple[tuple[str, int], ...]
"""The ``(kind, target)`` choices of one lay; ``(("", -1),)`` for none."""

RawGroup = tuple[tuple[Card, ...], Piles, int, int]
"""``(hand_codes, piles, fx, len(piles))``: lays differing only in Joker values and
effect; ``fx`` indexes the effect choices: 0 none, 1 Du bist!, 2 Ziehen!, 3 either."""

Group = tuple[tuple[Card, ...], Piles, Effects]
"""``(hand_codes, piles, effects)``: stands for ``len(piles) * len(effects)`` moves."""

_KIND: dict[Card, int] = {c: {">": 1, "@": 2}.get(EFFECT.get(c, ""), 0) for c in HAND_CODES}
"""Effect kind of a hand code as an ``fx`` index: 0 none, 1 Du bist!, 2 Ziehen!."""


def _tables() -> tuple[
    list[dict[Card, RawGroup]],
    list[dict[Card, tuple[Card, ...]]],
    list[dict[Card, dict[Card, RawGroup]]],
]:
    """Per top value 0..7 (constant tables, built once):

    - ``single[top][code]``: the raw group of ``code`` laid alone, for codes that fit
      (RT-3.1, RT-3.3, RT-3.4);
    - ``pair_codes[top][code]``: the pile codes ``code`` may take in a pair (value <= top,
      never ``N``; RT-3.2, RT-3.3);
    - ``pairs[top][a][b]``: the raw group of ``a`` then ``b`` laid together.
    """
    single: list[dict[Card, RawGroup]] = []
    pair_codes: list[dict[Card, tuple[Card, ...]]] = []
    pairs: list[dict[Card, dict[Card, RawGroup]]] = []
    for top in range(8):
        one: dict[Card, RawGroup] = {}
        two: dict[Card, tuple[Card, ...]] = {}
        for code in sorted(HAND_CODES):
            alone: Piles
            if code == "J":
                alone = tuple((f"J{v}",) for v in range(top + 1, 8))
                two[code] = tuple(f"J{v}" for v in range(1, top + 1))
            elif code == "N":
                alone = (("N",),)
                two[code] = ()
            else:
                alone = ((code,),) if VALUE[code] > top else ()
                two[code] = (code,) if VALUE[code] <= top else ()
            if alone:
                one[code] = ((code,), alone, _KIND[code], len(alone))
        low = [c for c in sorted(HAND_CODES) if two[c]]
        both: dict[Card, dict[Card, RawGroup]] = {}
        for a in low:
            row = both[a] = {}
            for b in low:
                piles: Piles = tuple((x, y) for x in two[a] for y in two[b])
                row[b] = ((a, b), piles, _KIND[a] | _KIND[b], len(piles))
        single.append(one)
        pair_codes.append(two)
        pairs.append(both)
    return single, pair_codes, pairs


_SINGLE, _PAIR, _PAIRS = _tables()
_INFO: list[dict[Card, tuple[int, int, int]]] = [
    {
        code: (_KIND[code], _SINGLE[top][code][3] if code in _SINGLE[top] else 0,
               len(_PAIR[top][code]))
        for code in HAND_CODES
    }
    for top in range(8)
]
"""``_INFO[top][code]``: ``(fx kind, moves laying code alone, its pile choices in a pair)``
(:func:`move_space`'s counts, from the same tables)."""
_J7: Piles = (("J7",),)


@lru_cache(maxsize=1024)
def _effect_table(
    seats: int, layer: Seat, out: tuple[Seat, ...], whole: bool, left: bool
) -> tuple[Effects, Effects, Effects, Effects]:
    """Effect choices by ``fx`` index (none, Du bist!, Ziehen!, either) for a lay by
    ``layer`` with seats ``out``; ``whole``: the lay empties the hand; ``left``: option
    ``li_du_bist_left`` (RT-4.1 .. RT-4.5, RT-8.1, RT-9.4, RT-9.5)."""
    if whole and left:
        ring = [(layer + k) % seats for k in range(1, seats)]
        du = tuple((">", s) for s in ring if s not in out)[:1]
    else:
        du = tuple((">", s) for s in range(seats) if s != layer and s not in out)
        if seats == 2 and not whole:
            du += ((">", layer),)
    zi = tuple(("@", s) for s in range(seats) if seats == 2 or s not in out)
    return _NO_EFFECT, du or _NO_EFFECT, zi or _NO_EFFECT, (du + zi) or _NO_EFFECT


@lru_cache(maxsize=1024)
def _effect_counts(
    seats: int, layer: Seat, out: tuple[Seat, ...], whole: bool, left: bool
) -> tuple[tuple[Effects, ...], tuple[int, ...]]:
    """:func:`_effect_table` and the number of choices of each of its entries."""
    table = _effect_table(seats, layer, out, whole, left)
    return table, tuple(len(e) for e in table)


def effect_table(st: State, layer: Seat, whole: bool) -> tuple[Effects, ...]:
    """The effect choices of a lay by ``layer`` in ``st`` by ``fx`` index (none, Du bist!,
    Ziehen!, either); ``whole``: the lay uses the whole hand."""
    return _effect_table(st.seats, layer, tuple(st.out), whole, st.options.li_du_bist_left)


def raw_lays(
    st: State,
) -> tuple[list[RawGroup], tuple[Effects, ...], list[RawGroup], tuple[Effects, ...]]:
    """Every legal lay of the seat to move as raw groups: ``(singles, their effect table,
    pairs, their effect table)`` (RT-2.2, RT-3, RT-4, RT-8).  All empty when the seat
    cannot lay or the match is won.  The groups hold distinct moves."""
    seat = st.to_move
    if seat is None or st.winner is not None:
        return [], (), [], ()
    hand = st.hands[seat]
    size = len(hand)
    discard = st.discard
    top = VALUE[discard[-1]] if discard else 0
    opts = st.options
    out = tuple(st.out)
    distinct = list(dict.fromkeys(hand))
    left = opts.li_du_bist_left
    # RT-3.1 / RT-3.3 / RT-3.4: one card.
    single_fx = _effect_table(st.seats, seat, out, size == 1, left)
    table = _SINGLE[top]
    singles = [table[c] for c in distinct if c in table]
    if size == 1 and opts.li_joker_seven and distinct[0] == "J":  # RT-8.2
        singles = [(("J",), _J7, 0, 1)] if top < 7 else []
    # RT-3.2: two cards, each <= top (never on N or an empty pile).
    if size < 2 or top < 1:
        return singles, single_fx, [], ()
    whole = size == 2
    pair_fx = _effect_table(st.seats, seat, out, whole, left) if whole else single_fx
    rows = _PAIRS[top]
    low = [c for c in distinct if c in rows]
    pairs: list[RawGroup] = []
    if whole and (opts.li_joker_seven or opts.li_higher_on_top):  # RT-8.2, RT-8.3
        for a in low:
            for b in low:
                if a != b or hand.count(a) > 1:
                    piles = _whole_pair(top, a, b, opts)
                    if piles:
                        pairs.append(((a, b), piles, _KIND[a] | _KIND[b], len(piles)))
        return singles, single_fx, pairs, pair_fx
    for a in low:
        row = rows[a]
        for b in low:
            if a != b or hand.count(a) > 1:
                pairs.append(row[b])
    return singles, single_fx, pairs, pair_fx


def _whole_pair(top: int, a: Card, b: Card, opts: RotOptions) -> Piles:
    """The piles of a pair that is the whole hand: RT-8.2 (a Joker counts as 7) and RT-8.3
    (the higher card on top) where those options are on."""
    codes = _PAIR[top]
    joker: tuple[Card, ...] = ("J7",) if top == 7 else ()
    a_piles = joker if opts.li_joker_seven and a == "J" else codes[a]
    b_piles = joker if opts.li_joker_seven and b == "J" else codes[b]
    if opts.li_higher_on_top:
        return tuple((x, y) for x in a_piles for y in b_piles if VALUE[y] >= VALUE[x])
    return tuple((x, y) for x in a_piles for y in b_piles)


def lay_groups(st: State) -> list[Group]:
    """Every legal lay of the seat to move, grouped with its effect choices."""
    singles, single_fx, pairs, pair_fx = raw_lays(st)
    groups = [(codes, piles, single_fx[fx]) for codes, piles, fx, _n in singles]
    groups += [(codes, piles, pair_fx[fx]) for codes, piles, fx, _n in pairs]
    return groups


def swap_moves(st: State) -> list[Move]:
    """RT-6.4: the bonus swaps of the seat to move (one per bonus code and hand code)."""
    seat = st.to_move
    if seat is None or st.winner is not None:
        return []
    bonus = st.bonus[seat]
    hand = st.hands[seat]
    if not bonus or not hand:
        return []
    return [("b", b, h) for b in dict.fromkeys(bonus) for h in dict.fromkeys(hand)]


def gen_moves(st: State) -> list[Move]:
    """Every legal move of the seat to move, without duplicates, in a fixed order (lays,
    or ``draw`` when there is none, RT-5.1; then bonus swaps, RT-6.4).  Empty once the
    match is won."""
    if st.to_move is None or st.winner is not None:
        return []
    moves: list[Move] = [
        ("p", codes, piles, kind, target)
        for codes, pile_choices, effects in lay_groups(st)
        for piles in pile_choices
        for kind, target in effects
    ]
    if not moves:
        moves.append(DRAW_MOVE)
    moves += swap_moves(st)
    return moves


# --------------------------------------------------------------------------- fast path


def _kind_bits() -> tuple[dict[Card, int], tuple[tuple[Card, ...], ...]]:
    """A bit per hand code, grouped by effect kind (kind 0 codes in the low bits, then
    Du bist!, then Ziehen!), and the codes of each kind in bit order."""
    groups = tuple(
        tuple(sorted(c for c in HAND_CODES if _KIND[c] == kind)) for kind in range(3)
    )
    bits: dict[Card, int] = {}
    for codes in groups:
        for code in codes:
            bits[code] = 1 << len(bits)
    return bits, groups


_BIT, _GROUPS = _kind_bits()
_S1 = len(_GROUPS[0])
_S2 = _S1 + len(_GROUPS[1])
_M0 = (1 << _S1) - 1
_M1 = (1 << len(_GROUPS[1])) - 1

_Slot = tuple[Card, Card]
"""One card of a lay as ``(hand code, pile code)``: ``("J", "J4")``, ``("5", "5")``."""

_Census = tuple[tuple[Move, ...], tuple[_Slot, ...], int, int, int]
"""Per top value, kind and held subset: ``(single lays as moves without effect, the pile
choices of those codes in a pair as slots, sum of squares of each
code's pile choices, number of single lays, number of slots)``."""


def _census_tables() -> list[tuple[list[_Census], ...]]:
    """``table[top][kind][mask]`` (:data:`_Census`) for every subset ``mask`` of a kind's
    codes (bits as :data:`_BIT`, shifted to 0), read off :data:`_SINGLE` (RT-3.1, RT-3.3,
    RT-3.4) and :data:`_PAIR` (RT-3.2, RT-3.3): constant, built once."""
    table: list[tuple[list[_Census], ...]] = []
    for top in range(8):
        one = _SINGLE[top]
        two = _PAIR[top]
        kinds: list[list[_Census]] = []
        for codes in _GROUPS:
            rows: list[_Census] = []
            for mask in range(1 << len(codes)):
                held = [c for i, c in enumerate(codes) if mask >> i & 1]
                singles = tuple(
                    ("p", one[c][0], p, "", -1) for c in held if c in one for p in one[c][1]
                )
                slots = tuple((c, p) for c in held for p in two[c])
                squares = sum(len(two[c]) ** 2 for c in held)
                rows.append((singles, slots, squares, len(singles), len(slots)))
            kinds.append(rows)
        table.append(tuple(kinds))
    return table


_CENSUS = _census_tables()

_CLASS_KINDS: tuple[tuple[tuple[int, int], ...], ...] = (
    ((0, 0),),
    ((0, 1), (1, 0), (1, 1)),
    ((0, 2), (2, 0), (2, 2)),
    ((1, 2), (2, 1)),
)
"""The (first, second) card kinds of the pairs of each effect class (``fx`` index)."""

_FREE_EFFECTS = [
    [
        [[_effect_counts(seats, layer, (), whole, left) for left in (False, True)]
         for whole in (False, True)]
        for layer in range(seats)
    ]
    for seats in range(7)
]  # fmt: skip
"""``_FREE_EFFECTS[seats][layer][whole][left]``: :func:`_effect_counts` while nobody is
out (the common case, without the cache call)."""


def move_count(st: State) -> int:
    """The number of :func:`gen_moves` of the seat to move, counted without listing them
    (:func:`_pick`'s census); 0 once the match is won."""
    count: int = _pick(st, None)
    return count


def random_move(st: State, random: Callable[[], float]) -> Move:
    """One of :func:`gen_moves` chosen uniformly with ``random`` (``rng.random``: a float in
    [0, 1)) without building the list: the fast path's move choice (:func:`_pick`).  The
    match must not be won."""
    move: Move = _pick(st, random)
    return move


def _pick(st: State, random: Callable[[], float] | None) -> Any:
    """The fast path's move space: a move chosen uniformly with ``random``, or with
    ``random=None`` the number of moves (``Any``: a :data:`Move` or an ``int``;
    :func:`random_move` and :func:`move_count` type it).

    Lays are counted in closed form from the constant tables :func:`raw_lays` reads,
    looked up by the set of codes the hand holds (a bit mask per effect kind): singles
    (RT-3.1, RT-3.3, RT-3.4) and ordered pairs of low codes by effect class (RT-3.2;
    ``W_i`` the pile choices of kind ``i``, ``Q_i`` the squares of those of codes held
    once, which cannot pair with themselves), each times its effect choices (RT-4, RT-9);
    ``draw`` when there is no lay (RT-5.1); the bonus swaps (RT-6.4).  The pick is
    uniform: a move number ``int(random() * count)`` picks the block (singles of a kind,
    pairs of a class and kind order) and the effect, the slots within it directly; two
    slots of one kind are drawn again (fresh ``random()``) while they are one code held
    once.  A lay of the whole hand under RT-8.2/RT-8.3 is listed by :func:`gen_moves`
    instead (a rare case).  ``tests/engine/test_right_on_time_fast.py`` checks the count
    and the pick against :func:`gen_moves`."""
    seat = st.to_move
    if seat is None:  # the match is won (RT-7.1: to_move is null exactly then)
        return 0
    hand = st.hands[seat]
    size = len(hand)
    if size <= 2 and (st.options.li_joker_seven or st.options.li_higher_on_top):
        moves = gen_moves(st)
        return len(moves) if random is None else moves[int(random() * len(moves))]
    discard = st.discard
    top = VALUE[discard[-1]] if discard else 0
    held = dup = 0
    bits = _BIT
    for code in hand:
        bit = bits[code]
        if held & bit:
            dup |= bit
        else:
            held |= bit
    census = _CENSUS[top]
    c0 = census[0][held & _M0]
    if not held >> _S1:  # no Du bist! or Ziehen! in hand (most hands): no effect choices
        lays = c0[3]
        pairs = 0
        if size >= 2 and top >= 1:
            w0 = c0[4]
            pairs = w0 * w0 - census[0][(held & ~dup) & _M0][2]
            lays += pairs
        base = lays or 1
        bonus = st.bonus[seat]
        if bonus:
            swaps = len(dict.fromkeys(bonus)) * len(dict.fromkeys(hand))
            if random is None:
                return base + swaps
            index = int(random() * (base + swaps))
            if index >= base:
                return swap_moves(st)[index - base]
        elif random is None:
            return base
        else:
            index = int(random() * base)
        if not lays:
            return DRAW_MOVE
        if index < c0[3]:
            return c0[0][index]
        slots = c0[1]
        width = c0[4]
        while True:
            a, b = slots[int(random() * width)], slots[int(random() * width)]
            if a[0] != b[0] or dup & bits[a[0]]:
                return ("p", (a[0], b[0]), (a[1], b[1]), "", -1)
    out = st.out
    left = st.options.li_du_bist_left
    if out:
        outs = tuple(out)
        e1, l1 = _effect_counts(st.seats, seat, outs, size == 1, left)
    else:
        free = _FREE_EFFECTS[st.seats][seat]
        e1, l1 = free[size == 1][left]
    c1 = census[1][held >> _S1 & _M1]
    c2 = census[2][held >> _S2]
    s0 = c0[3] * l1[0]
    s1 = c1[3] * l1[1]
    singles = s0 + s1 + c2[3] * l1[2]
    lays = singles
    if size >= 2 and top >= 1:
        if size > 2:
            e2, l2 = e1, l1
        elif out:
            e2, l2 = _effect_counts(st.seats, seat, outs, True, left)
        else:
            e2, l2 = free[True][left]
        once = held & ~dup
        w0 = c0[4]
        w1 = c1[4]
        w2 = c2[4]
        q0 = census[0][once & _M0][2]
        q1 = census[1][once >> _S1 & _M1][2]
        q2 = census[2][once >> _S2][2]
        p0 = (w0 * w0 - q0) * l2[0]
        p1 = (2 * w0 * w1 + w1 * w1 - q1) * l2[1]
        p2 = (2 * w0 * w2 + w2 * w2 - q2) * l2[2]
        lays += p0 + p1 + p2 + 2 * w1 * w2 * l2[3]
    base = lays or 1
    bonus = st.bonus[seat]
    if random is None:
        return base + (len(dict.fromkeys(bonus)) * len(dict.fromkeys(hand)) if bonus else 0)
    if bonus:
        index = int(random() * (base + len(dict.fromkeys(bonus)) * len(dict.fromkeys(hand))))
        if index >= base:
            return swap_moves(st)[index - base]
    else:
        index = int(random() * base)
    if not lays:
        return DRAW_MOVE
    if index < singles:
        if index < s0:
            kind, lays_of = 0, c0[0]
        elif index < s0 + s1:
            kind, lays_of, index = 1, c1[0], index - s0
        else:
            kind, lays_of, index = 2, c2[0], index - s0 - s1
        many = l1[kind]
        lay = lays_of[index // many]
        if many == 1 and not kind:
            return lay
        effect = e1[kind][index % many]
        return ("p", lay[1], lay[2], effect[0], effect[1])
    index -= singles
    if index < p0:
        fx = 0
    elif index < p0 + p1:
        fx, index = 1, index - p0
    elif index < p0 + p1 + p2:
        fx, index = 2, index - p0 - p1
    else:
        fx, index = 3, index - p0 - p1 - p2
    many = l2[fx]
    effect = e2[fx][index % many]
    index //= many
    kinds = (c0, c1, c2)
    squares = (q0, q1, q2)
    for ka, kb in _CLASS_KINDS[fx]:
        first = kinds[ka]
        second = kinds[kb]
        block = first[4] * second[4]
        if ka == kb:
            block -= squares[ka]
        if index < block:
            break
        index -= block
    width = second[4]
    if ka != kb:
        a, b = first[1][index // width], second[1][index % width]
    else:
        square = first[1]
        while True:
            a, b = square[int(random() * width)], square[int(random() * width)]
            if a[0] != b[0] or not once & bits[a[0]]:
                break
    return ("p", (a[0], b[0]), (a[1], b[1]), effect[0], effect[1])


@lru_cache(maxsize=1 << 16)
def move_text(move: Move) -> str:
    """The notation of a move (``play 2 J=4``, ``draw``, ``bonus J 3``)."""
    tag = move[0]
    if tag == "d":
        return "draw"
    if tag == "b":
        return f"bonus {move[1]} {move[2]}"
    piles = move[2]
    assert isinstance(piles, tuple)
    words = ["play"] + [f"J={p[1]}" if p[0] == "J" else p for p in piles]
    if move[3]:
        words.append(f"{move[3]}{move[4]}")
    return " ".join(words)


# --------------------------------------------------------------------------- transition


def _emit(
    events: list[Event] | None,
    kind: str,
    seat: Seat | None,
    cards: tuple[Card, ...] = (),
    value: int | None = None,
) -> None:
    """Append ``Event(kind, seat, cards, value)`` unless ``events`` is ``None``."""
    if events is not None:
        events.append(Event(kind, seat, cards, value))


def _take_top(t: Table, events: list[Event] | None) -> Card | None:
    """Take the draw pile's top card, refilling from the discard pile first if the draw
    pile is empty (RT-6.5); ``None`` when nothing can be drawn."""
    if not t.draw:
        if len(t.discard) <= 1:
            return None
        rest = list(map(_UNJOKER.__getitem__, t.discard[:-1]))
        del t.discard[:-1]
        t.draw, t.seed = shuffle(rest, t.seed)
        _emit(events, "shuffle", None, (), t.seed)
    return t.draw.pop(0)


def _next_in_round(t: Table, seat: Seat) -> Seat:
    """The next seat clockwise from ``seat`` that is still in the round."""
    n = t.seats
    out = t.out
    if not out:
        return (seat + 1) % n
    for k in range(1, n):
        nxt = (seat + k) % n
        if nxt not in out:
            return nxt
    return seat


HAND_SIZE, HAND_SIZE_TWO_SEATS = 7, 8
"""Cards dealt per seat (RT-2.1), and with two seats (RT-9.1).  Not an option."""


def hand_size(seats: int) -> int:
    """Cards each seat is dealt: 7, or 8 with two seats (RT-2.1, RT-9.1).

    >>> hand_size(2), hand_size(5)
    (8, 7)
    """
    return HAND_SIZE_TWO_SEATS if seats == 2 else HAND_SIZE


def deal(
    cards: list[Card], seats: int, hand_size: int, first: Seat
) -> tuple[list[list[Card]], list[Card]]:
    """RT-2.1: deal ``cards`` (top first) one at a time clockwise from ``first`` until
    every seat has ``hand_size`` cards or the cards run out; returns hands and the rest
    (the draw pile, top first)."""
    total = len(cards)
    dealt = seats * hand_size
    if total >= dealt:  # the common case, in slices: seat first + k gets cards k, k + seats, ...
        full: list[list[Card]] = [[] for _ in range(seats)]
        for k in range(seats):
            full[(first + k) % seats] = cards[k:dealt:seats]
        return full, cards[dealt:]
    hands: list[list[Card]] = [[] for _ in range(seats)]
    i = 0
    for _ in range(hand_size):
        for k in range(seats):
            if i == total:
                return hands, []
            hands[(first + k) % seats].append(cards[i])
            i += 1
    return hands, cards[i:]


def _round_won(t: Table, seat: Seat, events: list[Event] | None) -> None:
    """RT-6.2, RT-7.1, RT-2.4: score the round for ``seat``; end the match or deal the next
    round (hands seat 0 first, draw pile top first, discard bottom first, ``J<n>`` as ``J``)."""
    t.scores[seat] += 1
    _emit(events, "round", seat, (), t.round)
    if t.scores[seat] >= t.options.target_points:
        t.winner = seat
        t.to_move = None
        if seat not in t.out:
            t.out.append(seat)
        _emit(events, "match", seat, (), t.scores[seat])
        return
    cards = list(chain.from_iterable(t.hands))
    cards += t.draw
    cards += map(_UNJOKER.__getitem__, t.discard)
    shuffled, t.seed = shuffle(cards, t.seed)
    if shuffled:
        _emit(events, "shuffle", None, (), t.seed)
    t.hands, t.draw = deal(shuffled, t.seats, hand_size(t.seats), seat)
    t.discard = []
    t.out = []
    t.shown = [[] for _ in range(t.seats)]
    t.round += 1
    t.to_move = seat
    _emit(events, "deal", seat, (), t.round)


def _leave_hand(t: Table, seat: Seat, code: Card) -> None:
    t.hands[seat].remove(code)
    shown = t.shown[seat]
    if code in shown:
        shown.remove(code)


def apply_move(t: Table, move: Move, events: list[Event] | None) -> None:
    """Apply a legal ``move`` of the seat to move to ``t`` in place; append what happened to
    ``events`` (``None``: no events, the fast path).  Unchecked: the caller guarantees the
    move is in :func:`gen_moves`.  A lay: RT-3, RT-4, RT-6.1, RT-6.3."""
    seat: Seat = t.to_move  # type: ignore[assignment]  # a seat is to move (caller)
    if move[0] != "p":
        _apply_draw_or_swap(t, seat, move, events)
        return
    play: _PlayMove = move  # type: ignore[assignment]  # a lay (tag "p")
    _, hand_codes, pile_codes, kind, target = play
    hand = t.hands[seat]
    shown = t.shown[seat]
    for code in hand_codes:
        hand.remove(code)
        if shown and code in shown:
            shown.remove(code)
    t.discard.extend(pile_codes)
    if events is not None:
        jokers = [VALUE[p] for p in pile_codes if p[0] == "J"]
        events.append(Event("play", seat, pile_codes, jokers[-1] if jokers else None))
    if not kind and hand and not t.out:  # the common case of _end_turn, 3+ seats
        seats = t.seats
        if seats > 2:
            t.to_move = seat + 1 if seat + 1 < seats else 0
            return
    up: Seat | None = None
    if kind == ">":
        up = target
        _emit(events, "effect_up", target)
    elif kind == "@":
        _emit(events, "effect_draw", target)
        card = _take_top(t, events)
        if card is not None:
            t.hands[target].append(card)
            if target in t.out:
                t.out.remove(target)
                _emit(events, "back", target)
        _emit(events, "draw", target, () if card is None else (card,))
    if not hand:
        t.out.append(seat)
        _emit(events, "out", seat, (), len(t.out))
        if t.seats >= 3 and len(t.out) == 1:
            card = _take_top(t, events)
            if card is not None:
                t.bonus[seat].append(card)
                _emit(events, "bonus", seat, (card,))
    _end_turn(t, seat, up, events)


def _apply_draw_or_swap(t: Table, seat: Seat, move: Move, events: list[Event] | None) -> None:
    """:func:`apply_move` for ``draw`` (RT-5.1) and a bonus swap (RT-6.4)."""
    if move[0] == "b":
        bonus_code, hand_code = move[1], move[2]
        assert isinstance(bonus_code, str) and isinstance(hand_code, str)
        _leave_hand(t, seat, hand_code)
        t.bonus[seat].remove(bonus_code)
        t.hands[seat].append(bonus_code)
        t.draw.append(hand_code)
        _emit(events, "swap", seat, (bonus_code, hand_code))
        return
    hand = t.hands[seat]
    if hand:
        _emit(events, "show", seat, tuple(hand))
    t.shown[seat] = list(hand)
    card = _take_top(t, events)
    if card is not None:
        hand.append(card)
    _emit(events, "draw", seat, () if card is None else (card,))
    _end_turn(t, seat, None, events)


def _end_turn(t: Table, seat: Seat, up: Seat | None, events: list[Event] | None) -> None:
    """After a lay or draw of ``seat``: score a round that ended (RT-6.2, RT-9.2) or pass
    the turn (Du bist! ``up`` or the next seat in the round clockwise)."""
    if t.seats == 2:
        other = 1 - seat
        if seat in t.out:
            if other in t.out:
                _round_won(t, seat, events)  # second out, RT-9.2
            else:
                t.to_move = other  # first out: the other's single turn, RT-9.2
        elif up == seat:
            t.to_move = seat  # RT-9.5: the same turn goes on
        elif other in t.out:
            _round_won(t, other, events)  # single turn ended with cards left, RT-9.2
        else:
            t.to_move = other
        return
    out = t.out
    if not out:
        t.to_move = (seat + 1) % t.seats if up is None else up
    elif len(out) >= 2:
        _round_won(t, seat, events)
    elif up is not None:
        t.to_move = up
    else:
        t.to_move = _next_in_round(t, seat)


# --------------------------------------------------------------------------- playouts

STALL_CYCLES = 2
"""Playouts stop when every seat in the round had to ``draw`` with nothing to draw this many
times round the table (no card can move any more: only possible with a tiny custom deck or
dozens of bonus cards out of play)."""


def dead_draw(t: Table | RotPosition, forced: bool) -> bool:
    """True after a forced ``draw`` (no lay and no bonus swap was possible) when nothing
    can be drawn any more: the draw changed nothing."""
    return forced and not t.draw and len(t.discard) <= 1


def forced_draw(t: Table | RotPosition, seat: Seat) -> bool:
    """True when a ``draw`` by ``seat`` now is its only legal action (no bonus swap)."""
    return not t.bonus[seat] or not t.hands[seat]


def random_playout(
    t: Table,
    random: Callable[[], float],
    record: list[str] | None = None,
    round_only: bool = False,
) -> int:
    """The private fast path: play ``t`` on in place with uniformly random legal moves
    (:func:`random_move`, ``random`` = ``rng.random``) until the match is won, or with
    ``round_only`` until the round in play ends (RT-2.4) or the match is won; stops early
    when no card can move any more (:data:`STALL_CYCLES`).  Returns the number of moves
    applied; ``record`` (optional) receives each move's text (:func:`move_text`)."""
    steps = 0
    stuck = 0
    limit = STALL_CYCLES * t.seats
    start = t.round
    pick = _pick
    apply = apply_move
    while t.winner is None:
        move: Move = pick(t, random)
        if record is not None:
            record.append(move_text(move))
        if move is DRAW_MOVE:
            seat = t.to_move
            forced = not t.bonus[seat] or not t.hands[seat]  # type: ignore[index]
            apply(t, move, None)
            if forced and not t.draw and len(t.discard) <= 1:
                stuck += 1
                if stuck > limit:
                    return steps + 1
            else:
                stuck = 0
        else:
            apply(t, move, None)
            stuck = 0
        steps += 1
        if round_only and t.round != start:
            break
    return steps


# --------------------------------------------------------------------------- explanations


def _effect_name(kind: str) -> str:
    return "Du bist!" if kind == ">" else "Ziehen!"


def explain(st: State, move: Move) -> tuple[str, str]:
    """Why ``move`` is not legal in ``st``: ``(message, rule id)``.  Only called for moves
    that :func:`gen_moves` leaves out; the message names the first rule broken."""
    seat = st.to_move
    if seat is None or st.winner is not None:
        return "the match is over", "RT-7.1"
    hand = list(st.hands[seat])
    tag = move[0]
    if tag == "d":
        return f"seat {seat} can lay; draw only without a legal lay", "RT-5.1"
    if tag == "b":
        if move[1] not in st.bonus[seat]:
            return f"seat {seat} has no bonus card {move[1]}", "RT-6.4"
        if move[2] not in hand:
            return f"seat {seat} holds no {move[2]}", "RT-6.4"
        return "a bonus swap is not allowed here", "RT-6.4"
    _, hand_codes, pile_codes, kind, target = move
    assert isinstance(hand_codes, tuple) and isinstance(pile_codes, tuple)
    assert isinstance(kind, str) and isinstance(target, int)
    for code in hand_codes:
        if code not in hand:
            return f"seat {seat} does not hold {code}", "RT-10.1"
        hand.remove(code)
    opts = st.options
    top = top_value(st.discard)
    whole = not hand
    values = [VALUE[p] for p in pile_codes]
    jokers = [VALUE[p] for p in pile_codes if p[0] == "J"]
    if len(pile_codes) == 1:
        if hand_codes[0] != "N":
            if hand_codes[0] == "J" and top == 7:
                return "a Joker can never be laid alone on a 7", "RT-3.4"
            if values[0] <= top:
                return f"one card must be higher than the top value {top}", "RT-3.1"
    else:
        if not st.discard:
            return "the opening lay is exactly one card", "RT-2.2"
        if "N" in hand_codes:
            return "Zurück auf Null is always laid alone", "RT-3.3"
        if top == 0:
            return "no pair fits on Zurück auf Null (value 0)", "RT-3.3"
        if max(values) > top:
            return f"two cards must each be at most the top value {top}", "RT-3.2"
        if whole and opts.li_higher_on_top and values[1] < values[0]:
            return "a lay of the whole hand puts the higher card on top", "RT-8.3"
    if whole and opts.li_joker_seven and any(v != 7 for v in jokers):
        return "a Joker in a lay of the whole hand counts as 7", "RT-8.2"
    table = effect_table(st, seat, whole)
    effects = table[_KIND[hand_codes[0]] | _KIND[hand_codes[-1]]]
    if (kind, target) not in effects:
        has = {EFFECT[c] for c in hand_codes if c in EFFECT}
        rule = "RT-4.1" if kind == ">" else "RT-4.2"
        if not kind:
            return "a lay with Du bist! or Ziehen! names the effect (>s or @s)", "RT-4.3"
        if not has:
            return "no Du bist! or Ziehen! in this lay: no effect suffix", "RT-4.3"
        if effects == _NO_EFFECT:
            return "the effect has no allowed target: write the lay without a suffix", "RT-4.5"
        if kind not in has:
            return f"this lay has no {_effect_name(kind)} card", "RT-4.3"
        if not 0 <= target < st.seats:
            return f"there is no seat {target}", rule
        if kind == ">":
            if whole and opts.li_du_bist_left:
                left = table[1][0][1]
                if left < 0:
                    return "no seat is left in the round for Du bist!", "RT-8.1"
                return (
                    f"Du bist! in a lay of the whole hand goes to seat {left}, "
                    "the next seat to the left in the round",
                    "RT-8.1",
                )
            if target == seat:
                if st.seats == 2:
                    return "a seat that empties its hand cannot choose itself", "RT-9.5"
                return "Du bist! may not choose the layer", "RT-4.1"
        if target in st.out:
            return f"seat {target} is out of this round", rule
    return "not a legal action here", "RT-3"


class RotFastPath(FastPath[RotPosition, Table]):
    """:class:`Table` with :func:`gen_moves` and :func:`apply_move`, as
    :class:`engine.core.FastPath` sees it (``RightOnTimeGame.fast_path``)."""

    def state(self, pos: RotPosition) -> Table:
        """A :class:`Table` of ``pos``."""
        return Table(pos)

    def legal(self, state: Table) -> list[str]:
        """The texts (:func:`move_text`) of :func:`gen_moves`."""
        return [move_text(move) for move in gen_moves(state)]

    def step(self, state: Table, text: str) -> None:
        """:func:`apply_move` of the generated move spelled ``text``; ``ValueError`` if
        none is."""
        for move in gen_moves(state):
            if move_text(move) == text:
                apply_move(state, move, None)
                return
        raise ValueError(f"not a legal action here: {text!r}")

    def position(self, state: Table) -> RotPosition:
        """:meth:`Table.freeze`."""
        return state.freeze()
