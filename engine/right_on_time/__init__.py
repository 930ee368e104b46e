"""Right on Time (``docs/rules/right-on-time.md``): the rules engine as pure, seeded values.

Public API:

- :class:`RightOnTimeGame` (``engine.core.Game``, name ``"right-on-time"``, 2..6 seats):
  ``new``, ``parse_position``, ``position_json``, ``parse_action``, ``legal``, ``apply``,
  ``view``, ``outcome``, ``autoplay``; ``bots`` ``{"random", "heuristic", "hard"}``.
- values: :class:`RotPosition`, :class:`RotOptions`, :class:`RotCard`, actions
  :class:`Play` (of :class:`Lay` and an optional :class:`Effect`), :class:`Draw`,
  :class:`BonusSwap`; :func:`parse_action`.
- bots: :class:`RandomBot`, :class:`HeuristicBot`, :class:`HardBot` (SO-ISMCTS,
  :mod:`engine.right_on_time.hard`).

Modules: ``cards`` (codes, values, decks as data), ``actions`` (notation), ``options``,
``position`` (JSON text and objects, ``str``/``parse``/``from_json`` as for Riiing!),
``rules`` (move generation and transition), ``game``, ``bots``, ``view`` (the view type,
fixed).  Shared JSON/seat/deck helpers live in ``engine._common``.
"""

from engine.right_on_time.actions import (
    BonusSwap,
    Draw,
    Effect,
    Lay,
    Play,
    RotAction,
    parse_action,
)
from engine.right_on_time.bots import HeuristicBot, RandomBot
from engine.right_on_time.cards import RotCard, load_deck
from engine.right_on_time.game import RightOnTimeGame
from engine.right_on_time.hard import HardBot
from engine.right_on_time.options import OPTION_SPECS, RotOptions
from engine.right_on_time.position import RotPosition
from engine.right_on_time.view import RightOnTimeView

__all__ = [
    "OPTION_SPECS",
    "BonusSwap",
    "Draw",
    "Effect",
    "HardBot",
    "HeuristicBot",
    "Lay",
    "Play",
    "RandomBot",
    "RightOnTimeGame",
    "RightOnTimeView",
    "RotAction",
    "RotCard",
    "RotOptions",
    "RotPosition",
    "load_deck",
    "parse_action",
]
