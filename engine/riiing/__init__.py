"""Riiing! (``docs/rules/riiing.md``): cards, positions, rules, views, bots and notation.

``RiiingGame`` is the registered game ``"riiing"`` (2-6 seats).  Values: ``RiiingCard``
(``7C/>``), ``RiiingAction`` (``play 7C/>``, ``draw``, ``take``, ``slap 2``, ``timeout``,
``falseslap 2``), ``RiiingPosition`` (JSON notation), ``RiiingOptions``, ``Demand``;
views: ``RiiingView``; computer players ``RandomBot``, ``HeuristicBot`` and ``HardBot``
(SO-ISMCTS, :mod:`engine.riiing.hard`), registered in ``RiiingGame.bots`` as
``"random"``, ``"heuristic"``, ``"hard"``.  The event kinds ``apply`` reports are listed in
:mod:`engine.riiing.rules`.
"""

from __future__ import annotations

from engine.riiing.actions import DRAW, TAKE, TIMEOUT, RiiingAction
from engine.riiing.bots import HeuristicBot, RandomBot
from engine.riiing.cards import SYMBOLS, RiiingCard
from engine.riiing.deck import default_deck, load_deck
from engine.riiing.game import RiiingGame
from engine.riiing.hard import HardBot
from engine.riiing.position import Demand, RiiingOptions, RiiingPosition
from engine.riiing.view import RiiingView

__all__ = [
    "DRAW",
    "SYMBOLS",
    "TAKE",
    "TIMEOUT",
    "Demand",
    "HardBot",
    "HeuristicBot",
    "RandomBot",
    "RiiingAction",
    "RiiingCard",
    "RiiingGame",
    "RiiingOptions",
    "RiiingPosition",
    "RiiingView",
    "default_deck",
    "load_deck",
]
