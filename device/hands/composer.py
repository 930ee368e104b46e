"""The per-seat handheld, game-free part: its four keys, the screen model it shows and the
state machine's interface (:class:`HandComposer`).

A game's plugin (``device.games.<game>``) gives one :class:`HandComposer` per seat
(``plugin.hand(seat)``), generic over the game's view and action types
(``HandComposer[V, A]``).  It turns that seat's engine view and the presses of its four
keys (:class:`HandKey`) into the engine's actions (values of ``A``, each one whose text is in
``view.legal``), never into text.  It is pure logic: no I/O, no clock, no randomness.
What the 128x64 OLED shows is a frozen :class:`HandScreenModel`
(:meth:`HandComposer.screen`), drawn by ``device.hands.screen``.

The device calls ``show(phase, view, message)`` whenever the seat's view may have changed,
``key(k)`` for each key press (submitting the returned action, if any, to the engine)
and ``notice(text)`` when the engine refused an action or something else must be said.

This module holds what every game's composer shares: the lobby, wake-up and game-over
screens, the prompt message and its alert, the cursor over the card strip (it follows the
same card when the hand changes, starts on the only playable tile when there is one, and
wraps around the ends) and the strip's scrolling.  A game's composer adds the
tiles, what SELECT and BACK do, the header's condition and the prompt during play.  Seats
are shown to people counting from 1 (seat 0 is "Seat 1"), as everywhere on the device;
actions keep the engine's 0-based seat numbers.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Generic, Protocol, Self, TypeVar

from device.common.phase import Phase
from device.common.words import seat_name
from device.render.face import PublicView

VISIBLE_TILES = 5
"""How many card tiles the 128x64 strip shows at once (22 px wide each, docs/screens.md)."""

PROMPT_CHARS = 21
"""About how many characters the prompt line holds (docs/screens.md); the renderer cuts the
rest, so prompts are written to fit."""

NEW_GAME_LINE = "SEL: new game"
"""The game-over banner's way on: SELECT (or BACK) on any handheld returns to the lobby."""


class HandKey(enum.Enum):
    """The handheld's four keys (docs/architecture.md "The hardware")."""

    LEFT = "left"
    RIGHT = "right"
    SELECT = "select"
    BACK = "back"


@dataclass(frozen=True, slots=True)
class Tile:
    """One tile of the card strip.

    - ``kind``: ``"card"`` (a hand card), ``"bonus"`` (a card lying in front of the seat,
      e.g. Right on Time's bonus cards, RT-6.3) or ``"action"`` (``DRAW`` / ``TAKE 2``)
    - ``label``: the big text (``"7"``, ``"!"``, ``"J"``; ``"+1"`` / ``"+2"`` / ``"+?"`` on an
      action tile: cards it gets); may be empty when the glyph says it all
    - ``glyph``: the name of an 11x11 shape drawn on the tile (``device.hands.screen.GLYPHS``:
      a symbol letter, ``"deck"`` for the draw pile, ``"pull"``, ``"you"``) or ``None``
    - ``tag``: small text on the card (``"1-7"``, ``"=0"``), the action of an action tile
      (``"draw"``, ``"take"``; not drawn: its glyph says it), or ``""``
    - ``playable``: selecting it now is a legal choice (the renderer draws a bar under it)
    - ``raised``: chosen for the action being composed (drawn lifted)
    """

    kind: str
    label: str
    glyph: str | None = None
    tag: str = ""
    playable: bool = False
    raised: bool = False


@dataclass(frozen=True, slots=True)
class Picker:
    """A picker that takes over the card strip: ``title`` (``"JOKER ="``, ``"WHO DRAWS?"``),
    the ``options`` as large labels (``("1", "2", "3")``; seat numbers from 1, ``"ME"`` for
    this seat; ``("DU", "ZIE")``) and the highlighted ``cursor`` index."""

    title: str
    options: tuple[str, ...]
    cursor: int


@dataclass(frozen=True, slots=True)
class HandScreenModel:
    """Everything one hand screen shows; equal models give identical frames.

    - ``seat_label``: the seat number people read (``"3"`` for seat 2)
    - ``turn``: ``"YOUR TURN"``, ``"SEAT 2"`` (whose turn), ``"SLAP!"`` (a slap window),
      ``"GAME OVER"``, the game title in the lobby; ``my_turn``: this seat is to act
      (the header's turn word is drawn inverted)
    - ``condition``: the condition in short (``"OVER 6"``, ``"TOAST!"``, ``"PHONE x2"``,
      ``"top 5"``) or ``""``
    - ``tiles``: the visible part of the card strip (at most :data:`VISIBLE_TILES`);
      ``cursor``: index into ``tiles`` of the cursor tile or ``None``; ``scroll_left`` /
      ``scroll_right``: more tiles hidden on that side
    - ``picker``: a value/effect/target picker over the strip, or ``None``
    - ``banner``: big centred lines instead of the strip (lobby, wake-up, game over)
    - ``prompt``: the bottom line (about 21 characters); ``alert``: it is a refusal or a
      notice (drawn inverted)
    """

    seat_label: str
    turn: str
    condition: str = ""
    my_turn: bool = False
    tiles: tuple[Tile, ...] = ()
    cursor: int | None = None
    scroll_left: bool = False
    scroll_right: bool = False
    picker: Picker | None = None
    banner: tuple[str, ...] = ()
    prompt: str = ""
    alert: bool = False


class SeatView(PublicView, Protocol):
    """The fields every engine view of one seat has (``engine.core.Game.view``): the
    table's (:class:`device.render.face.PublicView`: seat count, hand counts, the seat to
    move, the winner) and the seat's own: the seat, its hand codes, its legal action texts."""

    @property
    def seat(self) -> int | None: ...
    @property
    def hand(self) -> tuple[str, ...]: ...
    @property
    def legal(self) -> tuple[str, ...]: ...


V = TypeVar("V", bound=SeatView)
"""The game's view type (``engine.core.Game``'s ``V``)."""
A = TypeVar("A")
"""The game's action type (``engine.core.Game``'s ``A``)."""

TileId = tuple[str, str, int]
"""A stable identity per tile: ``(kind, code, occurrence)``, so the cursor can follow a
card when the hand changes."""


class HandComposer(ABC, Generic[V, A]):
    """One seat's handheld state machine (see the module docstring), over the game's view
    type ``V`` and action type ``A``.

    ``seat``: 0-based seat; raises ``ValueError`` for a negative seat.  Subclasses (one per
    game, in ``device/games/<game>/hand.py``: ``HandComposer[View, Action]``) set
    :attr:`title`, :attr:`game` and :attr:`view_type` and implement the play phase:
    :meth:`_tile_keys`, :meth:`_tiles`, :meth:`_play_key`, :meth:`_condition` and
    :meth:`_prompt`; they may override the other ``_`` hooks.
    """

    title: ClassVar[str]
    """The game's name on the header in the lobby (``"RIIING!"``)."""
    game: ClassVar[str]
    """The engine's name of the game (``"riiing"``), for messages."""
    view_type: type[V]
    """The class of the game's views (:meth:`show` refuses any other)."""

    def __init__(self, seat: int) -> None:
        if seat < 0:
            raise ValueError(f"seat must be 0 or more, got {seat}")
        self.seat = seat
        self._phase = Phase.LOBBY
        self._view: V | None = None
        self._message = ""
        self._alert = False
        self._cursor = 0
        self._offset = 0
        self._pending = False
        self._refused = False

    def __copy__(self) -> Self:
        """An independent handheld in the same state (views and tables built from a view
        are immutable and shared; lists of choices are copied).  Lets a simulator or a test
        explore key presses without replaying them."""
        clone = type(self).__new__(type(self))
        clone.__dict__.update(
            {k: list(v) if type(v) is list else v for k, v in self.__dict__.items()}
        )
        return clone

    # --- inputs from the device -------------------------------------------------------------

    def show(self, phase: Phase | str, view: V | None, message: str = "") -> None:
        """Show ``phase`` (a :class:`device.common.phase.Phase` or its word) with this seat's
        ``view`` (the engine's view for this seat, or ``None``) and an optional one-line
        ``message`` for the prompt.

        The cursor stays on the same card where that card is still in hand, except that a
        new view with exactly one playable tile starts on that tile.  A view whose
        legal actions or hand differ from the last one resets a half-composed action and
        re-arms SELECT after a submit.  Showing the same view again changes nothing (the
        message is kept unless a new one is given).  In the lobby and the wake-up race the
        view is not used.  Raises ``ValueError`` for an unknown phase, or in play/game over
        for a view of another game (not :attr:`view_type`) or another seat's view (it must
        never show a hand that is not this seat's).
        """
        try:
            phase = Phase(phase)
        except ValueError:
            known = ", ".join(p.value for p in Phase)
            raise ValueError(f"unknown phase {phase!r} (known: {known})") from None
        seat_view: V | None = None
        if phase in (Phase.PLAY, Phase.GAMEOVER) and view is not None:
            if not isinstance(view, self.view_type):
                raise ValueError(
                    f"seat {self.seat} handheld ({self.game}) got a {type(view).__name__}"
                )
            seat_view = view
            if seat_view.seat != self.seat:
                raise ValueError(
                    f"seat {self.seat} handheld got the view of seat {seat_view.seat}"
                )
        old_ids = self._tile_ids()
        old_cursor_id = old_ids[self._cursor] if self._cursor < len(old_ids) else None
        old = self._view
        changed = phase != self._phase or seat_view != old
        if (
            old is None
            or seat_view is None
            or old.legal != seat_view.legal
            or old.hand != seat_view.hand
            or phase != self._phase
        ):
            self._reset()
        if changed:
            self._pending = False
            self._message, self._alert = message, False
        elif message:
            self._message, self._alert = message, False
        self._phase = phase
        self._view = seat_view
        self._prepare()
        ids = self._tile_ids()
        if old_cursor_id in ids:
            self._cursor = ids.index(old_cursor_id)
        self._cursor = max(0, min(self._cursor, len(ids) - 1))
        if changed and seat_view is not None:
            self._start_on_only_choice()
        self._scroll()

    def notice(self, text: str) -> None:
        """Show ``text`` on the prompt line as an alert (e.g. the engine refused the
        submitted action: ``"No: ..."``).  SELECT is re-armed so the seat can try again."""
        self._message, self._alert = text, True
        self._pending = False

    def key(self, k: HandKey) -> A | None:
        """Handle one key press; returns the action to submit (its text is in
        ``view.legal``), or ``None``.  A press that would make an illegal move returns
        ``None`` and shows the reason on the prompt line; after a submit every key returns
        ``None`` until a new view (or a notice) arrives.  In the lobby, wake-up and
        game-over phases the device handles keys itself and this returns ``None``."""
        self._refused = False
        if self._phase != Phase.PLAY or self._view is None or self._pending:
            return None
        self._message, self._alert = "", False  # any key clears a message
        action = self._play_key(k)
        if action is not None:
            self._pending = True
        return action

    @property
    def refused(self) -> bool:
        """The last :meth:`key` was refused by this composer: it would have made an illegal
        move (a card the condition forbids, RI-4.1, RT-3) or acted out of turn, and the
        reason is on the prompt line.  The device plays its "refusal" cue for it, as for an
        action the engine refuses.  False after a key that moved, chose
        or submitted, or did nothing at all."""
        return self._refused

    # --- the screen -------------------------------------------------------------------------

    def screen(self) -> HandScreenModel:
        """The frozen model of what this seat's screen shows now."""
        label = str(self.seat + 1)
        view = self._view
        if self._phase == Phase.LOBBY:
            return HandScreenModel(
                label,
                self.title,
                banner=(seat_name(self.seat).upper(),),
                prompt=self._message or "< > move  SEL change",
                alert=self._alert,
            )
        if self._phase == Phase.WAKEUP:
            return HandScreenModel(
                label,
                "WAKE UP!",
                banner=("SLAP!", "first one starts"),
                prompt=self._message or "SLAP to start!",
                alert=self._alert,
            )
        if self._phase == Phase.GAMEOVER or (view is not None and view.winner is not None):
            winner = view.winner if view is not None else None
            if winner is None:
                headline, prompt = "GAME OVER", "Game over"
            elif winner == self.seat:
                headline, prompt = "YOU WIN!", "You win!"
            else:
                headline, prompt = f"SEAT {winner + 1} WINS", f"{seat_name(winner)} wins"
            return HandScreenModel(
                label,
                "GAME OVER",
                banner=(headline, NEW_GAME_LINE),
                prompt=self._message or prompt,
                alert=self._alert,
            )
        if view is None:
            return HandScreenModel(label, self.title, prompt=self._message, alert=self._alert)
        tiles = self._tiles()
        my_turn = self._acting()
        turn = self._turn_word()
        if turn is None:
            if my_turn:
                turn = "YOUR TURN"
            elif view.to_move is not None:
                turn = f"SEAT {view.to_move + 1}"
            else:
                turn = ""
        picker = self._picker()
        visible = tuple(tiles[self._offset : self._offset + VISIBLE_TILES])
        cursor = self._cursor - self._offset if tiles else None
        if picker is None and self._confirming():
            cursor = None  # the chosen cards (raised) are what to check now
        return HandScreenModel(
            seat_label=label,
            turn=turn,
            condition=self._condition(),
            my_turn=my_turn,
            tiles=visible,
            cursor=cursor,
            scroll_left=self._offset > 0,
            scroll_right=self._offset + VISIBLE_TILES < len(tiles),
            picker=picker,
            prompt=self._message or self._prompt(tiles),
            alert=self._alert and bool(self._message),
        )

    # --- hooks for a game's composer ---------------------------------------------------------

    @abstractmethod
    def _tile_keys(self) -> list[tuple[str, str]]:
        """``(kind, code)`` of every strip tile in play, in strip order (see :data:`TileId`)."""

    @abstractmethod
    def _tiles(self) -> list[Tile]:
        """The whole card strip in play (``[]`` outside play or without a view)."""

    @abstractmethod
    def _play_key(self, k: HandKey) -> A | None:
        """A key in play with a view and nothing pending: the action to submit."""

    @abstractmethod
    def _condition(self) -> str:
        """The header's condition in short during play."""

    @abstractmethod
    def _prompt(self, tiles: Sequence[Tile]) -> str:
        """The prompt line during play when no message is shown (``tiles``: the strip)."""

    def _reset(self) -> None:
        """Forget a half-composed action (a new hand, legal set or phase); default none."""
        return None

    def _prepare(self) -> None:
        """Read a newly shown view (e.g. build a table of legal actions); default none."""
        return None

    def _acting(self) -> bool:
        """The header's turn word is drawn inverted: default, it is this seat's turn."""
        return self._is_my_turn()

    def _turn_word(self) -> str | None:
        """A turn word that overrides ``YOUR TURN`` / ``SEAT n`` (e.g. ``"SLAP!"``)."""
        return None

    def _picker(self) -> Picker | None:
        """A picker over the strip now, or ``None`` (default)."""
        return None

    def _confirming(self) -> bool:
        """A complete action is shown for confirmation (no cursor is drawn)."""
        return False

    # --- shared helpers ---------------------------------------------------------------------

    def _in_play(self) -> V | None:
        """The view while in play, else ``None``."""
        return self._view if self._phase == Phase.PLAY else None

    def _is_my_turn(self) -> bool:
        view = self._view
        return view is not None and view.to_move == self.seat and view.winner is None

    def _tile_ids(self) -> list[TileId]:
        if self._in_play() is None:
            return []
        ids: list[TileId] = []
        seen: dict[tuple[str, str], int] = {}
        for key in self._tile_keys():
            n = seen.get(key, 0)
            seen[key] = n + 1
            ids.append((*key, n))
        return ids

    def _move(self, k: HandKey, count: int) -> None:
        """LEFT/RIGHT move the cursor one tile, wrapping around the ends of the strip."""
        step = -1 if k is HandKey.LEFT else 1
        self._cursor = (self._cursor + step) % count if count > 0 else 0
        self._scroll()

    def _start_on_only_choice(self) -> None:
        """Put the cursor on the one playable tile when exactly one is (e.g. the DRAW tile
        when nothing can be laid, RI-4.2 / RT-5.1), so one SELECT does it."""
        playable = [i for i, tile in enumerate(self._tiles()) if tile.playable]
        if len(playable) == 1:
            self._cursor = playable[0]

    def _scroll(self) -> None:
        count = len(self._tile_ids())
        if self._cursor < self._offset:
            self._offset = self._cursor
        elif self._cursor >= self._offset + VISIBLE_TILES:
            self._offset = self._cursor - VISIBLE_TILES + 1
        self._offset = max(0, min(self._offset, count - VISIBLE_TILES))

    def _refuse(self, reason: str) -> None:
        """Show ``reason`` (why a key was refused) on the prompt line as an alert; the
        key counts as refused (:attr:`refused`)."""
        self._message, self._alert = reason, True
        self._refused = True
