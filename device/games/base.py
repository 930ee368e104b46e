"""The device side of one game: everything the console needs to know about it.

Games plug into the device as variants plug into python-chess's board: one
:class:`GamePlugin` subclass per game, in its own folder under ``device/games/``, found
through the registry of ``device.games``.  The console, the lobby, the presenter and the
renderers ask the plugin; they never ask which game is being played.

A plugin is generic over its engine's types, ``GamePlugin[P, A, V]`` as the engine's
``engine.core.Game[P, A, V]``: ``P`` the position, ``A`` the action, ``V`` the view.  It
takes and returns those values, never their text: a slap, a timeout, a false slap and a
key on a hand are action objects; text is read and written only at the edges (the
journal, the logs, the engine's command line).  The registry (``device.games``) is the
one place the game's types are erased for the game-free code.

A plugin answers four kinds of question:

- **flow** (the game flow, the session and the slap race): the title, the lobby's option
  rows, whether the game opens with a wake-up race (RI-2.3) and has slap windows, whether a
  slap window is open in a position and for how long, the action a slap, a timeout or a
  false slap becomes (asked of the engine, never re-derived), how long computer players wait
  after an action, the narration of an action's events, the results lines;
- **hands**: a :class:`device.hands.composer.HandComposer` for one seat (what its 128x64 screen
  shows and what its four keys do);
- **table**: the zones of the table display that belong to this game (top card, condition
  or value, pile), its card faces and symbols, the titles and the seat badges' marks
  (drawn with the generic specs and painters of ``device.render``);
- **teaching**: the "How to play" pages (``device.flow.howto``) and the demo game's one-line
  captions of the rule being applied (``device.flow.attract``).

Positions and views are the engine's own values (``engine.core.Game``); the plugin is the
only device code that reads their game-specific fields.  What every game's plugin forwards
to its own modules (the narration, the table drawing, the pages) is done here once, from
:attr:`GamePlugin.narration`, :attr:`GamePlugin.drawing` and :attr:`GamePlugin.pages`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from device.hands.composer import HandComposer, SeatView
from device.render.face import SceneTools, TableFace, Zones
from engine import get_game
from engine.core import Event, Game, Seat

if TYPE_CHECKING:
    import pygame

    from device.render.cards import CardPainter
    from device.render.howto_model import HowtoPage
    from device.render.model import RoundEnd

S = 1_000_000_000
"""Nanoseconds per second."""


@dataclass(frozen=True, slots=True)
class OptionChoice:
    """A lobby row for one rule option: engine option ``name``, ``label`` people read,
    the ``values`` offered (the first is the lobby's default) and the rule id."""

    name: str
    label: str
    values: tuple[int | bool, ...]
    rule: str


P = TypeVar("P")
"""The game's position type (``engine.core.Game``'s ``P``)."""
A = TypeVar("A")
"""The game's action type (``engine.core.Game``'s ``A``)."""
V = TypeVar("V", bound=SeatView)
"""The game's view type (``engine.core.Game``'s ``V``): one type for the table's view and
a seat's (``Game.view(pos, seat)``, ``seat=None`` for the table), so a
:class:`device.hands.composer.SeatView`, which is a :class:`device.render.face.PublicView`."""
P_contra = TypeVar("P_contra", contravariant=True)
"""A position type a protocol below takes."""
V_contra = TypeVar("V_contra", contravariant=True)
"""A view type a protocol below takes."""


class Narration(Protocol[V_contra]):
    """What a game's narration module gives (``device/games/<game>/narrate.py``): the
    table's line for an action's events and the demo's caption from the table's view.  The
    module itself is the value (a module satisfies a protocol with its functions; mypy
    checks it where a plugin assigns it)."""

    def narrate(self, events: Sequence[Event], /) -> str | None:
        """See :meth:`GamePlugin.narrate`."""

    def caption(self, events: Sequence[Event], view: V_contra, /) -> str | None:
        """See :meth:`GamePlugin.caption`."""


class Drawing(Protocol[P_contra, V_contra]):
    """What a game's table module gives (``device/games/<game>/table.py``, the module
    itself, as :class:`Narration`): its card faces, its centre zones in play and the words
    of how a finished game was won."""

    def card_face(self, cards: CardPainter, code: str, height: int, /) -> pygame.Surface:
        """See :meth:`GamePlugin.card_face`."""

    def zones(self, scene: SceneTools, view: V_contra, now_ns: int, /) -> Zones:
        """See :meth:`GamePlugin.table_zones`."""

    def win_reason(self, pos: P_contra, /) -> str:
        """See :meth:`GamePlugin.win_reason`."""


class SlapWindows(ABC, Generic[P, A]):
    """A game's slap windows (RI-6) as the device meets them: whether a position shows one
    and for how long, the actions a won slap and a timeout become, and what a press outside
    any window becomes.  Asked of the engine, never re-derived; a game without windows has
    no :class:`SlapWindows` (``GamePlugin.windows`` is ``None``)."""

    @abstractmethod
    def window_open(self, pos: P) -> bool:
        """True while a slap window is open in ``pos`` (RI-6.2): only slaps and the
        device's timeout are legal then."""

    @abstractmethod
    def window_ns(self, pos: P) -> int:
        """How long the open window in ``pos`` lasts before the device times it out, in ns
        (RI-6.4).  Only asked while :meth:`window_open`."""

    @abstractmethod
    def slap_action(self, seat: Seat) -> A:
        """The action that gives ``seat`` the open window (RI-6.3)."""

    @abstractmethod
    def timeout_action(self) -> A:
        """The action the device applies when nobody slapped in time (RI-6.4)."""

    @abstractmethod
    def false_slap_action(self, pos: P, seat: Seat) -> A | None:
        """The action a press of ``seat`` outside any window becomes in ``pos``, or
        ``None`` when the rules make it no action (RI-6.5)."""


class GamePlugin(TableFace[V], Generic[P, A, V]):
    """One game as the device sees it; subclasses live in ``device/games/<game>/`` and name
    their engine's types: ``GamePlugin[Position, Action, View]``.

    Class attributes: ``name`` (the engine registry name, also the key in the journal and
    ``lobby.json``), ``title`` (what the lobby and logs say, e.g. ``"Riiing!"``),
    ``lobby_options`` (the option rows the lobby offers; other options keep their engine
    defaults), ``lobby_parts`` (options the lobby shows as the rows of their parts, as
    ``(option, parts)`` pairs: a config's ``true`` turns each part's row on),
    ``wakeup_race`` (the game opens with the wake-up race of RI-2.3: the first
    person to slap moves first; otherwise the lobby's ``first`` seat opens, RT-2.3) and
    ``windows`` (the game's slap windows and false slaps, :class:`SlapWindows`, or
    ``None`` for a game whose slap buttons matter only in the wake-up race) and
    ``window_name`` (what the
    results call a slap window).  ``narration``, ``drawing`` and ``pages`` are the game's
    own modules and pages the plugin forwards to.
    """

    title: ClassVar[str]
    lobby_options: ClassVar[tuple[OptionChoice, ...]] = ()
    lobby_parts: ClassVar[tuple[tuple[str, tuple[str, ...]], ...]] = ()
    """Boolean options without a row of their own that switch on other options' rows, as
    ``(option, parts)`` pairs (Right on Time's ``less_influence``: its three RT-8 parts)."""
    wakeup_race: ClassVar[bool] = False
    window_name: ClassVar[str] = "Slap window"
    """What the results screen calls one slap window (e.g. ``"RIIING!"``)."""
    narration: Narration[V]
    """The game's narration module (:class:`Narration`)."""
    drawing: Drawing[P, V]
    """The game's table module (:class:`Drawing`)."""
    pages: ClassVar[tuple[HowtoPage, ...]] = ()
    """The game's "How to play" pages (:meth:`howto_pages`)."""

    windows: SlapWindows[P, A] | None = None
    """The game's slap windows (RI-6), or ``None``: it has none."""

    @property
    def has_slaps(self) -> bool:
        """Slap buttons matter during play: the game has slap windows (:attr:`windows`)."""
        return self.windows is not None

    def window_open(self, pos: P) -> bool:
        """True while a slap window is open in ``pos`` (RI-6.2); always false for a game
        without windows."""
        return self.windows is not None and self.windows.window_open(pos)

    @cached_property
    def engine(self) -> Game[P, A, V]:
        """The engine's rules object for this game (``engine.get_game(name)``)."""
        return get_game(self.name)

    # ------------------------------------------------------------------ flow
    def pause_after(self, events: Sequence[Event]) -> int:
        """How many computer-move delays to wait after an action with ``events`` before a
        computer player moves (1; more where people need time to read the TV, e.g. after
        a round ends)."""
        return 1

    def round_end(self, events: Sequence[Event], pos: P) -> RoundEnd | None:
        """When an action with ``events`` ended a round and the game goes on (``pos``: the
        position after it, the next round's): what the TV shows over the table while the
        flow holds it (:class:`device.render.model.RoundEnd`: "Seat 1 wins round 1", the
        score, the winning card), else ``None``.  Default none (a game without rounds)."""
        return None

    def cues(self, events: Sequence[Event]) -> tuple[str, ...]:
        """The sound cues an action with ``events`` gives (``device.flow.game_flow.CUES``:
        ``"lay"``, ``"draw"``, ``"round"``); the flow itself cues ``"ring"``, ``"slap"``,
        ``"refusal"`` and ``"win"``.  Default none."""
        return ()

    def narrate(self, events: Sequence[Event]) -> str | None:
        """One line for the table's top strip telling what an action did (public
        information only), or ``None`` when nothing has words (:attr:`narration`)."""
        return self.narration.narrate(events)

    def caption(self, events: Sequence[Event], view: V) -> str | None:
        """The demo game's one-line caption of the rule being applied after an action with
        ``events`` (``view``: the table's public view after it), e.g. ``"LOWER than 3:
        play a card below 3"``; public information only (never a card drawn into a
        hand).  ``None``: no rule worth a caption, or ``view`` is not this game's
        (:attr:`narration`, for ``device.flow.attract``)."""
        if not isinstance(view, self.view_type):
            return None
        return self.narration.caption(events, view)

    def howto_pages(self) -> tuple[HowtoPage, ...]:
        """The game's "How to play" pages (:class:`device.render.howto_model.HowtoPage`: a title, a
        few short rule lines, pictures of its cards), in reading order: :attr:`pages`
        (none: ``device.flow.howto.pages`` then shows a page saying so)."""
        return self.pages

    def results(self, pos: P) -> tuple[str, ...]:
        """Lines for the game-over screen beyond the winner and the slap times (e.g. the
        rounds and points of a match); default none."""
        return ()

    def win_reason(self, pos: P) -> str:
        """How the game in the finished position ``pos`` was won, one line for the
        game-over screen ("Seat 3 played their last card", "Seat 2 took the third
        point"); ``""`` when there is nothing to say (no winner).  Never raises: a
        position it cannot read gives ``""`` (:attr:`drawing`)."""
        return self.drawing.win_reason(pos)

    def summary(self, pos: P) -> dict[str, Any]:
        """Extra fields for ``summary.json`` of a finished game (e.g. ``rounds``,
        ``scores``); default none."""
        return {}

    def to_move(self, pos: P) -> Seat | None:
        """The seat whose move the game waits for in ``pos`` (``None``: nobody's, e.g. a
        window is open or the game is over)."""
        seat = self.engine.view(pos, None).to_move
        return None if seat is None else int(seat)

    def seats(self, pos: P) -> int:
        """How many seats ``pos`` has."""
        return int(self.engine.view(pos, None).seats)

    # ------------------------------------------------------------------ screens
    # (the rest of the table's questions: device.render.face.TableFace)
    @abstractmethod
    def hand(self, seat: Seat) -> HandComposer[V, A]:
        """A new hand composer for ``seat``: the seat's screen model and what its keys do.
        Raises ``ValueError`` for a negative seat."""

    def card_face(self, cards: CardPainter, code: str, height: int) -> pygame.Surface:
        """The face of card ``code`` at ``height`` px, painted (and cached) with ``cards``;
        an unreadable code is a ``"?"`` card, never an error (:attr:`drawing`)."""
        return self.drawing.card_face(cards, code, height)

    def table_zones(self, scene: SceneTools, view: V, now_ns: int) -> Zones:
        """The centre zones of the table in play for ``view`` at ``now_ns``: the top card
        (``scene.card_spec``), the condition or value, the countdown and the pile (zone
        name -> logical rect and spec; ``device.render.layout`` has the rects;
        :attr:`drawing`)."""
        return self.drawing.zones(scene, view, now_ns)
