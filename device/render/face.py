"""A game's face on the table display: what the renderers ask of a game, declared below
both (the game's plugin is a :class:`TableFace`; the table scene draws one).

- :class:`PublicView`: the fields every engine view has that the table reads without asking
  the game (seat count, cards in each hand, the seat to move, the winner).
- :class:`SceneTools`: what a game's zones may ask of the table scene while they are built
  (the top card's spec with its slide, the countdown strip, the flash frame, seat names,
  the slap shown); :class:`device.render.table.TableScene` is one.
- :class:`TableFace`: the game's part of the table display, generic over its engine's view
  type ``V``: its titles, symbols, card faces, centre zones, status words, seat marks and
  game-over lines (docs/screens.md, table display).
- :data:`Zones`: zone name -> (logical rect, spec), what a game's centre zones are.
- :data:`AnyFace`: a face whose view type the renderer does not know (the model holds the
  plugin of whatever game is played).

Times are ``int`` CLOCK_MONOTONIC ns; sizes are pixels of the 1920x1080 logical frame.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeAlias, TypeVar

from device.render.palette import TEXT_DIM, Colour
from engine.core import Seat

if TYPE_CHECKING:
    import pygame

    from device.render.cards import CardPainter
    from device.render.icons import Symbol
    from device.render.zones import CardSpec, Chip, CountSpec, ZoneSpec

Zones = dict[str, tuple["pygame.Rect", "ZoneSpec"]]
"""A table's zones: zone name -> (logical rect, spec)."""


class PublicView(Protocol):
    """The fields every engine view has that the table reads without asking the game:
    seat count, cards in each hand, the seat to move and the winner."""

    @property
    def seats(self) -> int: ...
    @property
    def hand_counts(self) -> tuple[int, ...]: ...
    @property
    def to_move(self) -> Seat | None: ...
    @property
    def winner(self) -> Seat | None: ...


class SceneTools(Protocol):
    """What a game's zones ask of the table scene while they are built."""

    @property
    def slap(self) -> tuple[int, int] | None:
        """``(seat, reaction ms)`` of the latest slap winner shown, or ``None``."""

    @property
    def slap_margin(self) -> tuple[int, int] | None:
        """``(runner-up seat, margin ms)`` of the latest slap shown, or ``None``."""

    def name(self, seat: int | None) -> str:
        """Seat ``seat``'s badge name (``"?"`` for ``None``)."""

    def flash_frame(self, now_ns: int) -> int | None:
        """The flash's frame at ``now_ns`` while a new slap window flashes, else ``None``."""

    def count_spec(self, now_ns: int, label: str) -> CountSpec:
        """The countdown strip at ``now_ns`` with ``label`` beside the seconds."""

    def card_spec(self, top: str | None, now_ns: int, caption: str) -> CardSpec:
        """The top card zone's spec for card ``top`` at ``now_ns``, ``caption`` under it."""


V = TypeVar("V", bound=PublicView)
"""The game's view type (``engine.core.Game``'s ``V``)."""


class TableFace(ABC, Generic[V]):
    """A game's part of the table display (the screens part of its plugin,
    ``device.games.base.GamePlugin``).  The table scene hands the view methods only a view
    that :meth:`public` accepted."""

    name: ClassVar[str]
    """The game's engine registry name (``"riiing"``), also its key in the journal."""
    view_type: type[V]
    """The class of the engine's views of this game (``engine.get_game(name).view``)."""
    table_title: ClassVar[str]
    """The game's name on the table's top strip (``"RIIING!"``)."""
    over_words: ClassVar[str] = "GAME OVER"
    """The top strip's right-hand words once the game is over."""
    wins_words: ClassVar[str] = "WINS!"
    """What follows the winner's name on the game-over screen."""
    wake_symbol: ClassVar[str | None] = None
    """The symbol (a name in :attr:`symbols`) the wake-up race shows, or ``None``."""

    @property
    def symbols(self) -> Mapping[str, Symbol]:
        """The game's shape-coded symbols by name, for the table's zones (docs/screens.md:
        shape first, colour second); default none."""
        return {}

    def public(self, view: PublicView) -> V | None:
        """``view`` if it is a view of this game (:attr:`view_type`), else ``None`` (the
        table draws an odd view as "unknown", never crashes)."""
        return view if isinstance(view, self.view_type) else None

    def top_card(self, view: V) -> str | None:
        """The code of the card on top of the discard pile in ``view`` (``None``: no card
        yet); a new one slides onto the pile."""
        return None

    def window(self, view: V) -> str | None:
        """The open slap window shown in ``view`` (its symbol), or ``None``: while it is
        open the table counts down and a new one flashes.  Default: no windows."""
        return None

    @abstractmethod
    def card_face(self, cards: CardPainter, code: str, height: int) -> pygame.Surface:
        """The face of card ``code`` at ``height`` px, painted (and cached) with ``cards``;
        an unreadable code is a ``"?"`` card, never an error."""

    @abstractmethod
    def table_zones(self, scene: SceneTools, view: V, now_ns: int) -> Zones:
        """The centre zones of the table in play for ``view`` at ``now_ns``: the top card
        (``scene.card_spec``), the condition or value, the countdown and the pile (zone
        name -> logical rect and spec; ``device.render.layout`` has the rects)."""

    def status(self, scene: SceneTools, view: V, playing: bool) -> tuple[str, Colour]:
        """The top strip's right-hand words and their colour outside the wake-up race and
        game over (``playing``: in the play phase), e.g. whose turn; default none."""
        return "", TEXT_DIM

    def seat_marks(
        self, view: V, seat: Seat, winner: bool, playing: bool
    ) -> tuple[tuple[int, int] | None, tuple[Chip, ...], bool]:
        """A seat badge's game marks: ``(points, chips, dim)`` with ``points`` (points,
        target) or ``None``, extra ``chips`` (``(text, background, text colour)``) and
        ``dim`` (the seat is out of the round); default none."""
        return None, (), False

    def result_lines(self, scene: SceneTools, view: V) -> tuple[str, ...]:
        """Game-over lines when the console gave none (e.g. every seat's points)."""
        return ()


AnyFace: TypeAlias = TableFace[Any]
"""A game's face as the renderers hold it, whatever the game (its view methods get only a
view that :meth:`TableFace.public` accepted)."""
