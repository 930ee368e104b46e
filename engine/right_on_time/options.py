"""Right on Time rule options (``rules/right-on-time.md``) and how they are resolved.

==================== ======= ==========================================================
option               default rule
==================== ======= ==========================================================
``target_points``    3       RT-7.1 victory points that win the match (>= 1)
``less_influence``   false   RT-8 turns on every ``li_*`` part not given explicitly
``li_du_bist_left``  false   RT-8.1 whole-hand Du bist! goes to the next seat left
``li_joker_seven``   false   RT-8.2 whole-hand Joker counts as 7
``li_higher_on_top`` false   RT-8.3 whole-hand pair: the higher card on top
``hand_size``        7       RT-2.1 cards dealt per seat; not given explicitly: 8 with 2
                             seats (RT-9.1), else 7
``deck``             ""      RT-1.1 deck file path; ``""`` is the bundled ``deck.txt``
==================== ======= ==========================================================

"Not given explicitly" means the key is absent from the options mapping handed to
:func:`resolve_options` (``new``'s ``options``, ``--option key=value``, a position's
``options`` object).  A position stores the *resolved* values and its JSON writes every
option, so after one round trip every ``li_*`` part and ``hand_size`` is explicit and keeps
its value: ``{"less_influence": true}`` is written back as ``less_influence``, all three
``li_*`` parts ``true`` and ``hand_size`` 7 or 8.  A lobby that wants the RT-8/RT-9.1
defaults must therefore leave those keys out rather than pass their default values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from engine.core import NotationError, OptionSpec, OptionValue, parse_options
from engine.right_on_time.cards import load_deck

LI_PARTS = ("li_du_bist_left", "li_joker_seven", "li_higher_on_top")
"""The RT-8 parts that ``less_influence`` switches on."""

OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec("target_points", 3, "RT-7.1", "victory points that win the match"),
    OptionSpec("less_influence", False, "RT-8", "every part of 'less influence of the first'"),
    OptionSpec("li_du_bist_left", False, "RT-8.1", "last lay: Du bist! to the seat on the left"),
    OptionSpec("li_joker_seven", False, "RT-8.2", "last lay: a Joker counts as 7"),
    OptionSpec("li_higher_on_top", False, "RT-8.3", "last lay: the higher of two cards on top"),
    OptionSpec("hand_size", 7, "RT-2.1", "cards dealt per seat (8 with 2 seats unless given)"),
    OptionSpec("deck", "", "RT-1.1", "deck file path; empty = the bundled deck"),
)
"""The options in the order positions and views list them."""


@dataclass(frozen=True, slots=True)
class RotOptions:
    """Resolved rule options of one position (see the module docstring)."""

    target_points: int = 3
    less_influence: bool = False
    li_du_bist_left: bool = False
    li_joker_seven: bool = False
    li_higher_on_top: bool = False
    hand_size: int = 7
    deck: str = ""

    def items(self) -> tuple[tuple[str, OptionValue], ...]:
        """``(name, value)`` pairs in :data:`OPTION_SPECS` order (for JSON and views)."""
        return tuple((spec.name, getattr(self, spec.name)) for spec in OPTION_SPECS)

    @classmethod
    def from_items(cls, items: Iterable[tuple[str, OptionValue]]) -> RotOptions:
        """The options of already resolved ``(name, value)`` pairs (a view's ``options``);
        missing names keep their defaults, unknown names are ignored.

        >>> RotOptions.from_items(RotOptions(hand_size=8).items()).hand_size
        8
        """
        values = dict(items)
        base = cls()
        return cls(
            target_points=int(values.get("target_points", base.target_points)),
            less_influence=bool(values.get("less_influence", base.less_influence)),
            li_du_bist_left=bool(values.get("li_du_bist_left", base.li_du_bist_left)),
            li_joker_seven=bool(values.get("li_joker_seven", base.li_joker_seven)),
            li_higher_on_top=bool(values.get("li_higher_on_top", base.li_higher_on_top)),
            hand_size=int(values.get("hand_size", base.hand_size)),
            deck=str(values.get("deck", base.deck)),
        )


def resolve_options(raw: Mapping[str, object] | None, seats: int) -> RotOptions:
    """Validate ``raw`` and fill in what is not given (RT-8: ``less_influence`` turns on the
    ``li_*`` parts not given; RT-9.1: ``hand_size`` 8 with 2 seats unless given).

    Raises NotationError naming the option: an unknown key (RT-10.2), a bad type,
    ``target_points`` or ``hand_size`` below 1, an unreadable or invalid deck file.

    >>> resolve_options({"less_influence": "on", "li_joker_seven": "off"}, 3).li_joker_seven
    False
    >>> resolve_options({"less_influence": True}, 3).li_higher_on_top
    True
    >>> resolve_options(None, 2).hand_size, resolve_options({"hand_size": 7}, 2).hand_size
    (8, 7)
    """
    given = dict(raw or {})
    try:
        values = parse_options(OPTION_SPECS, given)
    except NotationError as err:
        raise NotationError(err.message, err.rule or "RT-10.2") from None
    if values["less_influence"]:
        for part in LI_PARTS:
            if part not in given:
                values[part] = True
    if "hand_size" not in given:
        values["hand_size"] = 8 if seats == 2 else 7
    options = RotOptions(
        target_points=int(values["target_points"]),
        less_influence=bool(values["less_influence"]),
        li_du_bist_left=bool(values["li_du_bist_left"]),
        li_joker_seven=bool(values["li_joker_seven"]),
        li_higher_on_top=bool(values["li_higher_on_top"]),
        hand_size=int(values["hand_size"]),
        deck=str(values["deck"]),
    )
    for name, rule in (("target_points", "RT-7.1"), ("hand_size", "RT-2.1")):
        value = getattr(options, name)
        if value < 1:
            raise NotationError(f"option {name}: must be at least 1, got {value}", rule)
    load_deck(options.deck)
    return options
