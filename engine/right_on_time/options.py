"""Right on Time rule options (``docs/rules/right-on-time.md``) and how they are resolved.

==================== ========== =======================================================
option               default    rule
==================== ========== =======================================================
``target_points``    3          RT-7.1 victory points that win the match (>= 1)
``less_influence``   false      RT-8 turns on every ``li_*`` part not given explicitly
``li_du_bist_left``  false      RT-8.1 whole-hand Du bist! goes to the next seat left
``li_joker_seven``   false      RT-8.2 whole-hand Joker counts as 7
``li_higher_on_top`` false      RT-8.3 whole-hand pair: the higher card on top
``deck``             "standard" RT-1.1/RT-1.2 the deck ``new`` shuffles: the bundled deck
                                or the cards inline (``engine.right_on_time.cards``);
                                never a file name
==================== ========== =======================================================

The cards per seat are not an option: 7, or 8 with two seats (RT-2.1, RT-9.1).  A
position writes the five options the rules file names, and ``deck`` only when it is not
the bundled deck (the deck is data, RT-1.2: ``"deck": ["1", "1", "J", ...]``).

"Not given explicitly" means the key is absent from the options mapping handed to
:func:`resolve_options` (``new``'s ``options``, ``--option key=value``, a position's
``options`` object).  A position stores the *resolved* values and its JSON writes them,
so after one round trip every ``li_*`` part is explicit and keeps its value:
``{"less_influence": true}`` is written back as ``less_influence`` and all three ``li_*``
parts ``true``.  A lobby that wants the RT-8 defaults must therefore leave those keys out
rather than pass their default values.  Every reader refuses an unknown option, naming it
(RT-10.2).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from engine._common import STANDARD_DECK, is_int
from engine.core import NotationError, OptionSpec, OptionValue, parse_options, short_repr
from engine.right_on_time.cards import deck_value

LI_PARTS = ("li_du_bist_left", "li_joker_seven", "li_higher_on_top")
"""The RT-8 parts that ``less_influence`` switches on."""

OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec("target_points", 3, "RT-7.1", "victory points that win the match"),
    OptionSpec("less_influence", False, "RT-8", "every part of 'less influence of the first'"),
    OptionSpec("li_du_bist_left", False, "RT-8.1", "last lay: Du bist! to the seat on the left"),
    OptionSpec("li_joker_seven", False, "RT-8.2", "last lay: a Joker counts as 7"),
    OptionSpec("li_higher_on_top", False, "RT-8.3", "last lay: the higher of two cards on top"),
    OptionSpec(
        "deck", STANDARD_DECK, "RT-1.2",
        "the bundled deck 'standard', or the cards inline (never a file name)",
    ),
)
"""The options in the order positions and views list them."""

_KNOWN = ", ".join(sorted(spec.name for spec in OPTION_SPECS))


@dataclass(frozen=True, slots=True)
class RotOptions:
    """Resolved rule options of one position (see the module docstring): ``target_points``
    (>= 1, RT-7.1), the RT-8 switches (``bool``), ``deck`` (``"standard"`` or inline hand
    codes joined by single spaces, RT-1.2).

    Raises NotationError naming the option for a value of the wrong type or range.

    >>> RotOptions(target_points=0)
    Traceback (most recent call last):
    ...
    engine.core.NotationError: option target_points: expected a whole number >= 1, got 0 (RT-7.1)
    """

    target_points: int = 3
    less_influence: bool = False
    li_du_bist_left: bool = False
    li_joker_seven: bool = False
    li_higher_on_top: bool = False
    deck: str = STANDARD_DECK

    def __post_init__(self) -> None:
        if not is_int(self.target_points) or self.target_points < 1:
            raise NotationError(
                f"option target_points: expected a whole number >= 1, got "
                f"{short_repr(self.target_points)}",
                "RT-7.1",
            )
        for spec in OPTION_SPECS[1:5]:
            value = getattr(self, spec.name)
            if not isinstance(value, bool):
                raise NotationError(
                    f"option {spec.name}: expected true/false, got {short_repr(value)}", spec.rule
                )
        object.__setattr__(self, "deck", deck_value(self.deck))

    def items(self) -> tuple[tuple[str, OptionValue], ...]:
        """``(name, value)`` pairs in :data:`OPTION_SPECS` order, as a position writes them
        (for JSON and views): ``deck`` only when it is not the bundled deck."""
        return tuple(
            (spec.name, getattr(self, spec.name))
            for spec in OPTION_SPECS
            if spec.name != "deck" or self.deck != STANDARD_DECK
        )

    @classmethod
    def from_items(cls, items: Iterable[tuple[str, OptionValue]]) -> RotOptions:
        """The options of already resolved ``(name, value)`` pairs (a view's ``options``);
        missing names keep their defaults.  Raises NotationError naming an unknown name
        (RT-10.2) or a value of the wrong type.

        >>> RotOptions.from_items(RotOptions(target_points=5).items()).target_points
        5
        >>> RotOptions.from_items([("hand_size", 8)])
        Traceback (most recent call last):
        ...
        engine.core.NotationError: unknown option 'hand_size' (known: deck, less_influence,
            li_du_bist_left, li_higher_on_top, li_joker_seven, target_points) (RT-10.2)
        """
        values: dict[str, OptionValue] = {}
        for name, value in items:
            if name not in {spec.name for spec in OPTION_SPECS}:
                raise NotationError(
                    f"unknown option {short_repr(name)} (known: {_KNOWN})", "RT-10.2"
                )
            values[name] = value
        base = cls()
        return cls(
            target_points=_whole(values.get("target_points", base.target_points)),
            less_influence=_flag(values, "less_influence"),
            li_du_bist_left=_flag(values, "li_du_bist_left"),
            li_joker_seven=_flag(values, "li_joker_seven"),
            li_higher_on_top=_flag(values, "li_higher_on_top"),
            deck=str(values.get("deck", base.deck)),
        )


def _whole(value: OptionValue) -> int:
    """``value`` unchanged when it is a whole number (``RotOptions`` checks the range)."""
    if not is_int(value):
        raise NotationError(
            f"option target_points: expected a whole number, got {short_repr(value)}", "RT-7.1"
        )
    return value


def _flag(values: Mapping[str, OptionValue], name: str) -> bool:
    """Option ``name`` of ``values`` (default false) when it is true/false."""
    value = values.get(name, False)
    if not isinstance(value, bool):
        raise NotationError(f"option {name}: expected true/false, got {short_repr(value)}", "RT-8")
    return value


def resolve_options(raw: Mapping[str, object] | None, text_codes: bool = True) -> RotOptions:
    """Validate ``raw`` and fill in what is not given (RT-8: ``less_influence`` turns on the
    ``li_*`` parts not given).  ``deck`` may be ``"standard"``, a list of hand codes or,
    with ``text_codes`` (CLI and lobby strings), one string of codes separated by spaces.

    Raises NotationError naming the option: an unknown key (RT-10.2: ``hand_size`` too,
    which RT-2.1/RT-9.1 fix), a bad type, ``target_points`` below 1, a bad deck.

    >>> resolve_options({"less_influence": "on", "li_joker_seven": "off"}).li_joker_seven
    False
    >>> resolve_options({"less_influence": True}).li_higher_on_top
    True
    >>> resolve_options({"deck": "7 7 N"}).deck
    '7 7 N'
    """
    given = dict(raw or {})
    deck = given.pop("deck", STANDARD_DECK)
    try:
        values = parse_options(OPTION_SPECS[:5], given)
    except NotationError as err:
        message = err.message
        if message.startswith("unknown option"):
            message = message.split(" (known:", 1)[0] + f" (known: {_KNOWN})"
        raise NotationError(message, err.rule or "RT-10.2") from None
    if values["less_influence"]:
        for part in LI_PARTS:
            if part not in given:
                values[part] = True
    return RotOptions(
        target_points=int(values["target_points"]),
        less_influence=bool(values["less_influence"]),
        li_du_bist_left=bool(values["li_du_bist_left"]),
        li_joker_seven=bool(values["li_joker_seven"]),
        li_higher_on_top=bool(values["li_higher_on_top"]),
        deck=deck_value(deck, text_codes),
    )
