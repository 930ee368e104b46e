"""The legal Right on Time actions of one seat's view as sequences of choices, and the
choices made so far (``docs/rules/right-on-time.md``), for the lay composer
(:class:`device.games.right_on_time.rt_hand.LayComposer`).

Every legal action is read as a sequence of tokens (:data:`Token`): first card, second card
or "alone", each Joker's value, which effect, the effect's target (RT-3, RT-4); or a bonus
card and the hand card it replaces (RT-6.4); or ``draw`` (RT-5.1); each ends with
``("end", "")``.  :class:`LayPlan` keeps them as a trie: at every step only the choices that
lead to some legal action are offered, and a step with exactly one choice left of the
kinds in :data:`AUTO_KINDS` is taken automatically.  Action texts are read by the engine's
own ``parse_action``; the plan hands back the engine's action objects.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import NotationError
from engine.right_on_time.actions import BonusSwap, Draw, Play, RotAction, parse_action
from engine.right_on_time.view import RightOnTimeView

Token = tuple[str, str]
"""One choice of a Right on Time action: ``(kind, value)`` with kind ``card``, ``alone``,
``value``, ``effect``, ``target``, ``bonus``, ``swap``, ``draw`` or ``end``."""

END: Token = ("end", "")
"""The token that ends every action's choices."""
AUTO_KINDS = frozenset({"alone", "value", "effect", "target", "swap"})
"""The kinds of choice taken automatically when they are the only one left."""


def action_tokens(action: RotAction) -> tuple[Token, ...]:
    """The choices that make up ``action`` (RT-3, RT-4, RT-5.1, RT-6.4), ending with
    :data:`END`.

    >>> action_tokens(parse_action("play 3 J=2"))
    (('card', '3'), ('card', 'J'), ('value', '2'), ('end', ''))
    """
    if isinstance(action, Draw):
        return (("draw", ""), END)
    if isinstance(action, BonusSwap):
        return (("bonus", action.bonus), ("swap", action.hand), END)
    out: list[Token] = [("card", lay.card) for lay in action.cards]
    if len(action.cards) == 1:
        out.append(("alone", ""))
    out.extend(("value", str(lay.declared)) for lay in action.cards if lay.declared is not None)
    if action.effect is not None:
        out += [("effect", action.effect.kind), ("target", str(action.effect.seat))]
    return (*out, END)


def rot_tokens(text: str) -> tuple[Token, ...] | None:
    """The choices that make up a Right on Time action text (docs/notation.md, read by the
    engine's ``parse_action``; :func:`action_tokens`), ending with ``("end", "")``;
    ``None`` for a text that is not a hand action (RT-3, RT-4, RT-5.1, RT-6.4).

    >>> rot_tokens("play 3 J=2")
    (('card', '3'), ('card', 'J'), ('value', '2'), ('end', ''))
    >>> rot_tokens("play D4 >2")
    (('card', 'D4'), ('alone', ''), ('effect', '>'), ('target', '2'), ('end', ''))
    """
    try:
        action = parse_action(text)
    except NotationError:
        return None
    if not isinstance(action, Draw | BonusSwap | Play):
        return None
    return action_tokens(action)


@dataclass(frozen=True, slots=True)
class Choice:
    """A choice made by a key press: the token and, for strip choices, the tile index."""

    token: Token
    tile: int | None = None


class LayPlan:
    """The legal actions of one view of ``seat`` as a trie of choices, and the choices
    made by keys (:attr:`choices`).  :meth:`read` takes a new view; the trie is never
    changed afterwards, so copies (``copy.copy``) share it and copy only the choices."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.choices: list[Choice] = []
        """The choices made by keys, in order."""
        self.plans: dict[tuple[Token, ...], RotAction] = {}
        """Every legal action of the view by its tokens."""
        self._next: dict[tuple[Token, ...], list[Token]] = {}
        self._seats = 1

    def __copy__(self) -> LayPlan:
        """A plan with the same trie (shared) and its own list of choices."""
        clone = LayPlan.__new__(LayPlan)
        clone.seat, clone.plans, clone._next, clone._seats = (
            self.seat, self.plans, self._next, self._seats)
        clone.choices = list(self.choices)
        return clone

    def read(self, view: RightOnTimeView | None) -> None:
        """Build the trie of ``view``'s legal actions (none for ``None``); the choices made
        stay (the composer resets them when the legal set changes)."""
        self._seats = max(1, len(view.hand_counts)) if view is not None else 1
        plans: dict[tuple[Token, ...], RotAction] = {}
        for text in view.legal if view is not None else ():
            try:
                action = parse_action(text)
            except NotationError:
                continue
            plans[action_tokens(action)] = action
        self.plans = plans
        table: dict[tuple[Token, ...], dict[Token, None]] = {}
        for tokens in plans:
            for n in range(len(tokens)):
                table.setdefault(tokens[:n], {}).setdefault(tokens[n])
        self._next = {p: sorted(opts, key=self._order) for p, opts in table.items()}

    def reset(self) -> None:
        """Forget the choices made."""
        self.choices.clear()

    def prefix(self) -> tuple[Token, ...]:
        """The choices made by keys, each followed by the choices taken automatically after
        it (a step with one option left of the kinds in :data:`AUTO_KINDS`)."""
        prefix: tuple[Token, ...] = ()
        for choice in self.choices:
            prefix = (*prefix, choice.token)
            while True:
                opts = self.options(prefix)
                if len(opts) != 1 or opts[0][0] not in AUTO_KINDS:
                    break
                prefix = (*prefix, opts[0])
        return prefix

    def options(self, prefix: tuple[Token, ...]) -> list[Token]:
        """The next choices after ``prefix`` that lead to a legal action, in a stable
        order."""
        return self._next.get(prefix, [])

    def step(self, my_turn: bool) -> tuple[str, list[Token]]:
        """The composer's step: ``("strip"|"picker"|"confirm"|"idle", options)``; idle
        unless it is the seat's turn (``my_turn``) with something legal."""
        if not my_turn or not self.plans:
            return "idle", []
        opts = self.options(self.prefix())
        if not opts:
            return "idle", []
        if opts == [END]:
            return "confirm", opts
        if any(t[0] in ("value", "effect", "target", "end") for t in opts):
            return "picker", opts
        return "strip", opts

    def action(self) -> RotAction | None:
        """The complete action the choices made stand for, or ``None``."""
        return self.plans.get((*self.prefix(), END))

    def can_lay(self) -> bool:
        """Some legal action lays a card (RT-3; otherwise only draw or nothing)."""
        return any(t[0][0] == "card" for t in self.plans)

    def _order(self, token: Token) -> tuple[int, int, str]:
        """Picker order: values ascending, Du bist! before Ziehen!, targets clockwise from
        the seat on the left (so the left neighbour is highlighted first), this seat last."""
        kind, value = token
        if kind == "target" and value.isdigit():
            return (0, (int(value) - self.seat - 1) % self._seats, value)
        if kind == "value" and value.isdigit():
            return (0, int(value), value)
        if kind == "effect":
            return (0, 0 if value == ">" else 1, value)
        return (1 if kind == "end" else 0, 0, "")
