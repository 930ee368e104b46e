"""The per-seat handheld: its four keys, its state machine and the screen model it shows.

One :class:`HandUI` per seat turns that seat's engine view (``engine.riiing.view`` /
``engine.right_on_time.view``) and the presses of its four keys (:class:`Key`) into action
texts spelled exactly as ``design/notation.md`` (and ``view.legal``) spell them.  It is pure
logic: no I/O, no clock, no randomness.  What the 128x64 OLED shows is a frozen
:class:`HandScreenModel` (``HandUI.screen()``), drawn by ``device.render.hand``.

The device calls ``show(phase, view, message)`` whenever the seat's view may have changed,
``key(k)`` for each key press (submitting the returned action text, if any, to the engine)
and ``notice(text)`` when the engine refused an action or something else must be said.

Riiing! (``rules/riiing.md``): LEFT/RIGHT move the cursor over the hand plus a final tile
``DRAW`` (RI-4.2, RI-5.3) or ``TAKE k`` (RI-5.4) when that action is legal; SELECT plays the
card under the cursor / draws / takes; BACK clears a message.  Slaps come from the slap
button, never from the handheld.

Right on Time (``rules/right-on-time.md``): a lay composer.  Every legal action is read as
a sequence of choices (first card, second card or "alone", each Joker's value, which effect,
the effect's target, RT-3 and RT-4; or a bonus card and the hand card it replaces, RT-6.4;
or ``draw``, RT-5.1).  At every step only the choices that lead to some action in
``view.legal`` are offered; a step with exactly one choice left (alone, a value, an effect,
a target) is taken automatically; BACK undoes the last choice made by a key; the complete
lay is shown for confirmation before SELECT returns it.  Seats are shown to people counting
from 1 (seat 0 is "Seat 1"), as everywhere on the device; action texts keep the engine's
0-based seat numbers.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass

from device.words import SYMBOL_WORDS, seat_name
from engine.right_on_time.cards import RotCard
from engine.right_on_time.view import RightOnTimeView
from engine.riiing.cards import RiiingCard
from engine.riiing.view import RiiingView

GAMES = ("riiing", "right-on-time")
"""The games a handheld knows (the engine's registry names)."""

PHASES = ("lobby", "wakeup", "play", "gameover")
"""The device's game-flow phases a handheld can show."""

VISIBLE_TILES = 5
"""How many card tiles the 128x64 strip shows at once (22 px wide each, screens.md)."""

PROMPT_CHARS = 21
"""About how many characters the prompt line holds (screens.md); the renderer cuts the
rest, so prompts are written to fit."""

NEW_GAME_LINE = "SEL: new game"
"""The game-over banner's way on: SELECT (or BACK) on any handheld returns to the lobby."""


class Key(enum.Enum):
    """The handheld's four keys (architecture: wired/serial handheld)."""

    LEFT = "left"
    RIGHT = "right"
    SELECT = "select"
    BACK = "back"


@dataclass(frozen=True, slots=True)
class Tile:
    """One tile of the card strip.

    - ``kind``: ``"card"`` (a hand card), ``"bonus"`` (a Right on Time bonus card lying in
      front of the seat, RT-6.3) or ``"action"`` (``DRAW`` / ``TAKE 2``)
    - ``label``: the big text (``"7"``, ``"!"``, ``"J"``; ``"+1"`` / ``"+2"`` / ``"+?"`` on an
      action tile: cards it gets); may be empty when the glyph says it all (a Riiing! Phone)
    - ``glyph``: a Riiing! symbol letter drawn as a shape (``"A"``, ``"S"``, ``"C"``, ``"T"``,
      ``"P"``), ``"deck"`` (the draw pile: a draw tile), ``"pull"`` (a Ziehen!: an arrow into a
      card), ``"you"`` (a Du bist!) or
      ``None``
    - ``tag``: small text on the card (``"1-7"`` on a Joker, ``"=0"`` on Zurück auf Null),
      the action of an action tile (``"draw"``, ``"take"``;
      not drawn: its glyph says it), or ``""``
    - ``playable``: selecting it now is a legal choice (the renderer draws a bar under it)
    - ``raised``: chosen for the lay being composed (drawn lifted)
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
    - ``turn``: ``"YOUR TURN"``, ``"SEAT 2"`` (whose turn), ``"SLAP!"`` (a RIIING! window),
      ``"GAME OVER"``, the game title in the lobby; ``my_turn``: this seat is to act
      (the header's turn word is drawn inverted)
    - ``condition``: the condition in short (``"> 6"``, ``"TOAST!"``, ``"PHONE x2"``,
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


# --- Riiing! card reading -------------------------------------------------------------------


def riiing_glyph(card: RiiingCard) -> str:
    """The glyph of a Riiing! card's symbol: ``"A" "S" "C" "T"``, or ``"P"`` for the
    Phone, whose symbol is its own (RI-1.4)."""
    return card.symbol or "P"


def riiing_condition(view: RiiingView) -> str:
    """The condition in force as a short header word (RI-3, RI-5.3, RI-5.4, RI-6.2):
    ``"> 6"``, ``"< 6"``, ``"= 6"``, ``"~COFFEE"``, ``"EVEN"``, ``"ODD"``, ``"2 5 8"``,
    ``"ANY"`` (open), ``"TOAST!"`` (demand), ``"PHONE x2"`` (chain), ``"RIIING!"``."""
    if view.winner is not None:
        return ""
    if view.window is not None:
        return "RIIING!"
    if view.demand is not None:
        return SYMBOL_WORDS.get(view.demand, view.demand) + "!"
    if view.phones:
        return f"PHONE x{view.phones}"
    cond = view.condition
    last = RiiingCard.parse(view.last_card)
    if cond is None:
        return "ANY"
    if cond in (">", "<", "="):  # open after a card with no number (RI-3.4)
        return "ANY" if last.number is None else f"{cond} {last.number}"
    if cond == "~":
        return "ANY" if last.symbol is None else "~" + SYMBOL_WORDS[last.symbol]
    if cond == "E":
        return "EVEN"
    if cond == "O":
        return "ODD"
    if cond.startswith("{") and cond.endswith("}"):
        return " ".join(cond[1:-1].split(","))
    return cond


def _riiing_reason(view: RiiingView, seat: int) -> str:
    """Why the card or tile under the cursor cannot be played now, in about 21 characters."""
    if view.winner is not None:
        return "Game over"
    if view.window is not None:
        return "RIIING! Slap first!"
    if view.to_move != seat:
        return "Not your turn"
    if view.demand is not None:
        return f"No: must play {SYMBOL_WORDS.get(view.demand, view.demand)}"
    if view.phones:
        return "No: PHONE or TAKE"
    cond = riiing_condition(view)
    if cond.startswith("~"):
        return f"No: need {cond[1:]}"
    if cond in ("EVEN", "ODD") or cond[:1] in "<>=" or cond[:1].isdigit():
        return f"No: need {cond}"
    return "No: can't play that"


# --- Right on Time action reading -----------------------------------------------------------

Token = tuple[str, str]
"""One choice of a Right on Time action: ``(kind, value)`` with kind ``card``, ``alone``,
``value``, ``effect``, ``target``, ``bonus``, ``swap``, ``draw`` or ``end``."""

_END: Token = ("end", "")
_ROT_CARD = re.compile(r"(?:[1-7]|J|N|[DZ][1-7])\Z")
_ROT_LAID = re.compile(r"(?:[1-7]|J=[1-7]|N|[DZ][1-7])\Z")
_ROT_SUFFIX = re.compile(r"([>@])(\d+)\Z")
_AUTO_KINDS = frozenset({"alone", "value", "effect", "target", "swap"})


def rot_tokens(text: str) -> tuple[Token, ...] | None:
    """The choices that make up a Right on Time action text (notation.md), ending with
    ``("end", "")``; ``None`` for a text that is not a hand action (RT-3, RT-4, RT-5.1,
    RT-6.4).

    >>> rot_tokens("play 3 J=2")
    (('card', '3'), ('card', 'J'), ('value', '2'), ('end', ''))
    >>> rot_tokens("play D4 >2")
    (('card', 'D4'), ('alone', ''), ('effect', '>'), ('target', '2'), ('end', ''))
    """
    words = text.split(" ")
    if words == ["draw"]:
        return (("draw", ""), _END)
    if len(words) == 3 and words[0] == "bonus":
        if _ROT_CARD.match(words[1]) and _ROT_CARD.match(words[2]):
            return (("bonus", words[1]), ("swap", words[2]), _END)
        return None
    if words[0] != "play" or not 2 <= len(words) <= 4:
        return None
    cards = words[1:]
    suffix: list[Token] = []
    m = _ROT_SUFFIX.match(cards[-1])
    if m:
        suffix = [("effect", m.group(1)), ("target", m.group(2))]
        cards = cards[:-1]
    if not 1 <= len(cards) <= 2 or not all(_ROT_LAID.match(c) for c in cards):
        return None
    out: list[Token] = [("card", c.split("=")[0]) for c in cards]
    if len(cards) == 1:
        out.append(("alone", ""))
    out.extend(("value", c[2:]) for c in cards if c.startswith("J="))
    return (*out, *suffix, _END)


def rot_value(code: str) -> int | None:
    """The value of a Right on Time hand card (RT-1.3, read by the engine's ``RotCard``):
    ``"5"`` -> 5, ``"D3"`` -> 3, ``"N"`` -> 0; ``None`` for a Joker (its value is declared
    when laid) or no card (``""``)."""
    return RotCard.parse(code).value if code else None


def _rot_face(code: str) -> tuple[str, str | None, str]:
    """Big label, glyph and small tag of a Right on Time card tile: a Du bist! shows an
    arrow at a person, a Ziehen! the draw pile (RT-4), a Joker ``1-7``, Null ``=0``."""
    if code == "J":
        return "J", None, "1-7"
    if code == "N":
        return "N", None, "=0"
    if code[:1] == "D":
        return code[1:], "you", ""
    if code[:1] == "Z":
        return code[1:], "pull", ""
    return code, None, ""


# --- the state machine ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Choice:
    """A choice made by a key press: the token and, for strip choices, the tile index."""

    token: Token
    tile: int | None = None


class HandUI:
    """One seat's handheld (see the module docstring for the key map of each game).

    ``seat``: 0-based seat; ``game``: ``"riiing"`` or ``"right-on-time"``.  Raises
    ``ValueError`` for an unknown game or a negative seat.
    """

    def __init__(self, seat: int, game: str) -> None:
        if game not in GAMES:
            raise ValueError(f"unknown game {game!r} (known: {', '.join(GAMES)})")
        if seat < 0:
            raise ValueError(f"seat must be 0 or more, got {seat}")
        self.seat = seat
        self.game = game
        self._phase = "lobby"
        self._view: RiiingView | RightOnTimeView | None = None
        self._message = ""
        self._alert = False
        self._cursor = 0
        self._offset = 0
        self._pending = False
        self._choices: list[_Choice] = []
        self._picker_cursor = 0
        self._plans: dict[tuple[Token, ...], str] = {}
        self._next: dict[tuple[Token, ...], list[Token]] = {}

    def __copy__(self) -> HandUI:
        """An independent handheld in the same state (the view and the table of legal
        actions are immutable and shared; the composed choices are copied).  Lets a
        simulator or a test explore key presses without replaying them."""
        clone = HandUI.__new__(HandUI)
        clone.__dict__.update(self.__dict__)
        clone._choices = list(self._choices)
        return clone

    # --- inputs from the device -------------------------------------------------------------

    def show(
        self, phase: str, view: RiiingView | RightOnTimeView | None, message: str = ""
    ) -> None:
        """Show ``phase`` (one of :data:`PHASES`) with this seat's ``view`` (or ``None``)
        and an optional one-line ``message`` for the prompt.

        The cursor stays on the same card where that card is still in hand.  A view whose
        legal actions or hand differ from the last one resets a half-composed lay and
        re-arms SELECT after a submit.  Showing the same view again changes nothing (the
        message is kept unless a new one is given).  In the lobby and the wake-up race the
        view is not used.  Raises ``ValueError`` for an unknown phase, or in play/game over
        for a view of another game or another seat's view (it must never show a hand that
        is not this seat's).
        """
        if phase not in PHASES:
            raise ValueError(f"unknown phase {phase!r} (known: {', '.join(PHASES)})")
        if phase in ("lobby", "wakeup"):
            view = None  # nothing of a position is shown there (a previous game's is stale)
        if view is not None:
            want = RiiingView if self.game == "riiing" else RightOnTimeView
            if not isinstance(view, want):
                raise ValueError(
                    f"seat {self.seat} handheld ({self.game}) got a {type(view).__name__}"
                )
            if view.seat != self.seat:
                raise ValueError(f"seat {self.seat} handheld got the view of seat {view.seat}")
        old_ids = self._tile_ids()
        old_cursor_id = old_ids[self._cursor] if self._cursor < len(old_ids) else None
        old = self._view
        changed = phase != self._phase or view != old
        if (
            old is None
            or view is None
            or old.legal != view.legal
            or old.hand != view.hand
            or phase != self._phase
        ):
            self._choices.clear()
            self._picker_cursor = 0
        if changed:
            self._pending = False
            self._message, self._alert = message, False
        elif message:
            self._message, self._alert = message, False
        self._phase = phase
        self._view = view
        self._plans = self._read_plans()
        self._next = self._build_next()
        ids = self._tile_ids()
        if old_cursor_id in ids:
            self._cursor = ids.index(old_cursor_id)
        self._cursor = max(0, min(self._cursor, len(ids) - 1))
        if changed and view is not None and view.legal == ("draw",) and ids:
            self._cursor = len(ids) - 1  # nothing can be laid: start on the DRAW tile
        self._scroll()

    def notice(self, text: str) -> None:
        """Show ``text`` on the prompt line as an alert (e.g. the engine refused the
        submitted action: ``"No: ..."``).  SELECT is re-armed so the seat can try again."""
        self._message, self._alert = text, True
        self._pending = False

    def key(self, k: Key) -> str | None:
        """Handle one key press; returns an action text from ``view.legal`` to submit, or
        ``None``.  A press that would make an illegal move returns ``None`` and shows the
        reason on the prompt line; after a submit every key returns ``None`` until a new
        view (or a notice) arrives.  In the lobby, wake-up and game-over phases the device
        handles keys itself and this returns ``None``."""
        view = self._view
        if self._phase != "play" or view is None or self._pending:
            return None
        self._message, self._alert = "", False  # any key clears a message
        if isinstance(view, RiiingView):
            action = self._riiing_key(view, k)
        else:
            action = self._rot_key(view, k)
        if action is not None:
            self._pending = True
        return action

    # --- Riiing! ----------------------------------------------------------------------------

    def _riiing_key(self, view: RiiingView, k: Key) -> str | None:
        tiles = self._riiing_tiles(view)
        if k in (Key.LEFT, Key.RIGHT):
            self._move(k, len(tiles))
            return None
        if k is Key.BACK or not tiles:
            return None
        if self._cursor < len(view.hand):
            code = view.hand[self._cursor]
            action = f"play {code}"
            if action in view.legal:
                return action
            self._refuse(_riiing_reason(view, self.seat))
            return None
        word = tiles[self._cursor].tag
        if word in view.legal:
            return word
        self._refuse(_riiing_reason(view, self.seat))
        return None

    def _riiing_tiles(self, view: RiiingView) -> list[Tile]:
        tiles: list[Tile] = []
        for code in view.hand:
            card = RiiingCard.parse(code)
            label = str(card.number) if card.number is not None else (
                "!" if card.kind == "demand" else "")
            tiles.append(
                Tile("card", label, riiing_glyph(card), playable=f"play {code}" in view.legal)
            )
        if "draw" in view.legal:
            # under a demand the seat draws until the demanded symbol comes (RI-5.3)
            label = "+?" if view.demand else "+1"
            tiles.append(Tile("action", label, "deck", tag="draw", playable=True))
        if "take" in view.legal:
            tiles.append(Tile("action", f"+{max(1, view.phones)}", "P", "take", playable=True))
        return tiles

    def _riiing_prompt(self, view: RiiingView, tiles: Sequence[Tile]) -> str:
        if view.winner is not None:
            return "You win!" if view.winner == self.seat else f"{seat_name(view.winner)} wins"
        if view.window is not None:
            return f"SLAP: drop all {SYMBOL_WORDS.get(view.window, view.window)}"
        if view.to_move != self.seat:
            return f"{seat_name(view.to_move)} to play" if view.to_move is not None else ""
        if self._pending:
            return "Sent..."
        tile = tiles[self._cursor] if tiles else None
        if tile is not None and tile.kind == "action":
            if tile.tag == "draw":
                return (
                    f"SEL draw ({SYMBOL_WORDS[view.demand]})" if view.demand else "SEL draw a card"
                )
            return f"SEL take {view.phones} cards" if view.phones else "SEL take"
        if view.demand is not None:
            return f"Must play {SYMBOL_WORDS.get(view.demand, view.demand)}"
        if view.phones:
            return f"PHONE x{view.phones}: P or take"
        if tile is not None and tile.playable:
            return "SEL play  < > move"
        return "< > move  SEL play"

    # --- Right on Time ----------------------------------------------------------------------

    def _read_plans(self) -> dict[tuple[Token, ...], str]:
        view = self._view
        if not isinstance(view, RightOnTimeView) or self._phase != "play":
            return {}
        plans: dict[tuple[Token, ...], str] = {}
        for text in view.legal:
            tokens = rot_tokens(text)
            if tokens is not None:
                plans[tokens] = text
        return plans

    def _prefix(self) -> tuple[Token, ...]:
        """The choices made by keys, each followed by the choices taken automatically after
        it (a step with one option left of the kinds in ``_AUTO_KINDS``)."""
        prefix: tuple[Token, ...] = ()
        for choice in self._choices:
            prefix = (*prefix, choice.token)
            while True:
                opts = self._options(prefix)
                if len(opts) != 1 or opts[0][0] not in _AUTO_KINDS:
                    break
                prefix = (*prefix, opts[0])
        return prefix

    def _options(self, prefix: tuple[Token, ...]) -> list[Token]:
        """The next choices that lead to a legal action, in a stable order."""
        return self._next.get(prefix, [])

    def _build_next(self) -> dict[tuple[Token, ...], list[Token]]:
        """The table prefix -> next choices of every legal action (a trie, built once per
        view; it is never changed afterwards, so copies may share it)."""
        table: dict[tuple[Token, ...], dict[Token, None]] = {}
        for tokens in self._plans:
            for n in range(len(tokens)):
                table.setdefault(tokens[:n], {}).setdefault(tokens[n])
        return {p: sorted(opts, key=self._order) for p, opts in table.items()}

    def _order(self, token: Token) -> tuple[int, int, str]:
        """Picker order: values ascending, Du bist! before Ziehen!, targets clockwise from
        the seat on the left (so the left neighbour is highlighted first), this seat last."""
        kind, value = token
        seats = max(1, len(self._view.hand_counts)) if self._view is not None else 1
        if kind == "target" and value.isdigit():
            return (0, (int(value) - self.seat - 1) % seats, value)
        if kind == "value" and value.isdigit():
            return (0, int(value), value)
        if kind == "effect":
            return (0, 0 if value == ">" else 1, value)
        return (1 if kind == "end" else 0, 0, "")

    def _rot_tiles(self, view: RightOnTimeView) -> list[Tile]:
        prefix = self._prefix()
        opts = self._options(prefix) if self._is_my_turn() else []
        raised = {c.tile for c in self._choices if c.tile is not None}
        cards = {t[1] for t in opts if t[0] in ("card", "swap")}
        first = self._choices[0].tile if self._choices else None
        second_step = len(prefix) == 1 and prefix[0][0] == "card"
        tiles: list[Tile] = []
        for i, code in enumerate(view.hand):
            label, glyph, tag = _rot_face(code)
            playable = code in cards and i not in raised
            if second_step and i == first:
                playable = ("alone", "") in opts
            tiles.append(Tile("card", label, glyph, tag, playable, i in raised))
        base = len(view.hand)
        for j, code in enumerate(view.bonus):
            label, glyph, tag = _rot_face(code)
            playable = ("bonus", code) in opts
            tiles.append(Tile("bonus", label, glyph, tag, playable, base + j in raised))
        if "draw" in view.legal:
            tiles.append(Tile("action", "+1", "deck", "draw", playable=("draw", "") in opts))
        return tiles

    def _is_my_turn(self) -> bool:
        view = self._view
        return view is not None and view.to_move == self.seat and view.winner is None

    def _step(self) -> tuple[str, list[Token]]:
        """The composer's step: ``("strip"|"picker"|"confirm"|"idle", options)``."""
        if not self._is_my_turn() or not self._plans:
            return "idle", []
        opts = self._options(self._prefix())
        if not opts:
            return "idle", []
        if opts == [_END]:
            return "confirm", opts
        if any(t[0] in ("value", "effect", "target", "end") for t in opts):
            return "picker", opts
        return "strip", opts

    def _rot_key(self, view: RightOnTimeView, k: Key) -> str | None:
        if not self._is_my_turn():
            if k in (Key.LEFT, Key.RIGHT):
                self._move(k, len(self._rot_tiles(view)))
            elif k is Key.SELECT:
                self._refuse("Not your turn" if view.winner is None else "Game over")
            return None
        if k is Key.BACK:
            self._back()
            return None
        step, opts = self._step()
        if step == "picker":
            if k is Key.LEFT:
                self._picker_cursor = max(0, self._picker_cursor - 1)
            elif k is Key.RIGHT:
                self._picker_cursor = min(len(opts) - 1, self._picker_cursor + 1)
            else:
                self._choose(_Choice(opts[min(self._picker_cursor, len(opts) - 1)]))
            return None
        if step == "confirm":
            if k is Key.SELECT:
                return self._plans.get((*self._prefix(), _END))
            return None
        tiles = self._rot_tiles(view)
        if k in (Key.LEFT, Key.RIGHT):
            self._move(k, len(tiles))
            return None
        if step != "strip" or not tiles:
            self._refuse("Not your turn")
            return None
        tile = tiles[self._cursor]
        if not tile.playable:
            self._refuse(self._rot_reason(view, tile))
            return None
        token = self._tile_token(view, tile)
        self._choose(_Choice(token, self._cursor))
        return None

    def _tile_token(self, view: RightOnTimeView, tile: Tile) -> Token:
        """The choice a playable tile under the cursor stands for at the current step."""
        prefix = self._prefix()
        if tile.kind == "action":
            return ("draw", "")
        if tile.kind == "bonus":
            return ("bonus", view.bonus[self._cursor - len(view.hand)])
        code = view.hand[self._cursor]
        if prefix and prefix[0][0] == "bonus":
            return ("swap", code)
        if self._choices and self._cursor == self._choices[0].tile:
            return ("alone", "")
        return ("card", code)

    def _choose(self, choice: _Choice) -> None:
        self._choices.append(choice)
        self._picker_cursor = 0

    def _back(self) -> None:
        """Undo the last choice made by a key; on a picker, re-highlight that choice."""
        if not self._choices:
            return
        popped = self._choices.pop()
        step, opts = self._step()
        if popped.tile is not None:
            self._cursor = popped.tile
            self._scroll()
        self._picker_cursor = opts.index(popped.token) if popped.token in opts else 0
        if step != "picker":
            self._picker_cursor = 0

    def _rot_reason(self, view: RightOnTimeView, tile: Tile) -> str:
        """Why the tile under the cursor is not a choice now, in about 21 characters."""
        prefix = self._prefix()
        top = view.top_value
        if prefix:
            if tile.kind != "card":
                return "No: BACK to undo"
            if prefix[0][0] == "bonus":
                return "No: can't swap that"
            if self._choices and self._cursor == self._choices[0].tile:
                return "No: pick a 2nd card"
            value = rot_value(view.hand[self._cursor])
            if top is not None and value is not None and value > top:
                return f"No: pair needs <={top}"
            return "No: not with that"
        if not any(t[0][0] == "card" for t in self._plans):
            return "No: no lay, DRAW" if "draw" in view.legal else "No: can't lay"
        if tile.kind == "action":
            return "No: you can lay"
        code = view.hand[self._cursor] if tile.kind == "card" else ""
        value = rot_value(code)
        if code == "J" and top == 7:
            return "No: J can't beat 7"
        if top is not None and value is not None and value <= top:
            return f"No: need >{top} or pair"
        return "No: can't lay that"

    def _lay_text(self, prefix: Sequence[Token]) -> str:
        """A composed (maybe partial) action for people: ``"3 J=2 @2"`` (seats from 1)."""
        words: list[str] = []
        cards = [t[1] for t in prefix if t[0] == "card"]
        values = [t[1] for t in prefix if t[0] == "value"]
        for code in cards:
            if code == "J":
                words.append("J=" + (values.pop(0) if values else "?"))
            else:
                words.append(code)
        effect = next((t[1] for t in prefix if t[0] == "effect"), None)
        target = next((t[1] for t in prefix if t[0] == "target"), None)
        if effect is not None:
            words.append(effect + (str(int(target) + 1) if target is not None else "?"))
        return " ".join(words)

    def _rot_prompt(self, view: RightOnTimeView, tiles: Sequence[Tile]) -> str:
        if view.winner is not None:
            return "You win!" if view.winner == self.seat else f"{seat_name(view.winner)} wins"
        if not self._is_my_turn():
            if self.seat in view.out:
                return "You are out: wait"
            return f"{seat_name(view.to_move)} to play" if view.to_move is not None else ""
        if self._pending:
            return "Sent..."
        prefix = self._prefix()
        step = self._step()[0]
        lay = self._lay_text(prefix)
        if step == "confirm":
            if prefix[0][0] == "draw":
                return "DRAW a card? SEL"
            if prefix[0][0] == "bonus":
                return f"SWAP {prefix[0][1]} for {prefix[1][1]}? SEL"
            return f"LAY {lay}? SEL"
        if step == "picker":
            text = f"LAY {lay} BACK undo"
            return text if len(text) <= PROMPT_CHARS else f"LAY {lay} BACK"
        tile = tiles[self._cursor] if tiles else None
        if prefix and prefix[0][0] == "bonus":
            return f"Swap {prefix[0][1]} for? BACK"
        if prefix:
            first = prefix[0][1]
            if tile is not None and tile.raised and tile.playable:
                return f"SEL: {first} alone"
            return f"{first} + 2nd card? BACK"
        if tile is None:
            return ""
        if tile.kind == "action":
            return "SEL draw (no lay)" if tile.playable else "< > move"
        if tile.kind == "bonus":
            return f"SEL swap {tile.label} in" if tile.playable else "< > move"
        if not tile.playable:
            if not any(t[0][0] == "card" for t in self._plans):
                return "No lay: DRAW"
            return "< > move  SEL lay"
        code = view.hand[self._cursor]
        nxt = self._options((("card", code),))
        if all(t[0] != "card" for t in nxt):
            return f"SEL lay {tile.label}" if code != "J" else "SEL lay Joker"
        if ("alone", "") in nxt:
            return f"SEL {tile.label}: alone/pair"
        return f"SEL {tile.label} + 2nd card"

    def _rot_picker(self) -> Picker | None:
        step, opts = self._step()
        if step != "picker":
            return None
        kind = opts[0][0]
        labels: list[str] = []
        for t in opts:
            if t[0] == "target":
                labels.append("ME" if int(t[1]) == self.seat else str(int(t[1]) + 1))
            elif t[0] == "effect":
                labels.append("DU" if t[1] == ">" else "ZIE")
            elif t[0] == "end":
                labels.append("OK")
            else:
                labels.append(t[1])
        prefix = self._prefix()
        if kind == "value":
            jokers = sum(1 for t in prefix if t == ("card", "J"))
            done = sum(1 for t in prefix if t[0] == "value")
            title = "JOKER =" if jokers < 2 else ("1ST JOKER =" if done == 0 else "2ND JOKER =")
        elif kind == "effect":
            title = "WHICH EFFECT?"
        elif kind == "target":
            effect = next((t[1] for t in prefix if t[0] == "effect"), ">")
            title = "WHO GOES NEXT?" if effect == ">" else "WHO DRAWS?"
        else:
            title = "CHOOSE"
        return Picker(title, tuple(labels), min(self._picker_cursor, len(labels) - 1))

    def _refuse(self, reason: str) -> None:
        """Show ``reason`` (why a key was refused) on the prompt line as an alert."""
        self._message, self._alert = reason, True

    # --- cursor and scrolling ---------------------------------------------------------------

    def _tiles(self) -> list[Tile]:
        view = self._view
        if view is None or self._phase != "play":
            return []
        if isinstance(view, RiiingView):
            return self._riiing_tiles(view)
        return self._rot_tiles(view)

    def _tile_ids(self) -> list[tuple[str, str, int]]:
        """A stable identity per tile: (kind, code, occurrence) so the cursor can follow
        a card when the hand changes."""
        view = self._view
        if view is None or self._phase != "play":
            return []
        ids: list[tuple[str, str, int]] = []
        seen: dict[tuple[str, str], int] = {}

        def add(kind: str, code: str) -> None:
            n = seen.get((kind, code), 0)
            seen[(kind, code)] = n + 1
            ids.append((kind, code, n))

        for code in view.hand:
            add("card", code)
        if isinstance(view, RightOnTimeView):
            for code in view.bonus:
                add("bonus", code)
            if "draw" in view.legal:
                add("action", "draw")
        else:
            if "draw" in view.legal:
                add("action", "draw")
            if "take" in view.legal:
                add("action", "take")
        return ids

    def _move(self, k: Key, count: int) -> None:
        step = -1 if k is Key.LEFT else 1
        self._cursor = max(0, min(count - 1, self._cursor + step))
        self._scroll()

    def _scroll(self) -> None:
        count = len(self._tile_ids())
        if self._cursor < self._offset:
            self._offset = self._cursor
        elif self._cursor >= self._offset + VISIBLE_TILES:
            self._offset = self._cursor - VISIBLE_TILES + 1
        self._offset = max(0, min(self._offset, count - VISIBLE_TILES))

    # --- the screen -------------------------------------------------------------------------

    def screen(self) -> HandScreenModel:
        """The frozen model of what this seat's screen shows now."""
        label = str(self.seat + 1)
        view = self._view
        title = "RIIING!" if self.game == "riiing" else "RIGHT ON TIME"
        if self._phase == "lobby":
            return HandScreenModel(
                label,
                title,
                banner=(seat_name(self.seat).upper(),),
                prompt=self._message or "< > move  SEL change",
                alert=self._alert,
            )
        if self._phase == "wakeup":
            return HandScreenModel(
                label,
                "WAKE UP!",
                banner=("SLAP!", "first one starts"),
                prompt=self._message or "SLAP to start!",
                alert=self._alert,
            )
        if self._phase == "gameover" or (view is not None and view.winner is not None):
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
            return HandScreenModel(label, title, prompt=self._message, alert=self._alert)
        tiles = self._tiles()
        my_turn = self._is_my_turn()
        picker: Picker | None = None
        if isinstance(view, RiiingView):
            condition = riiing_condition(view)
            prompt = self._riiing_prompt(view, tiles)
            my_turn = my_turn and view.window is None
        else:
            condition = "OPEN" if view.top_value is None else f"top {view.top_value}"
            prompt = self._rot_prompt(view, tiles)
            picker = self._rot_picker()
        if isinstance(view, RiiingView) and view.window is not None:
            turn = "SLAP!"
        elif my_turn:
            turn = "YOUR TURN"
        elif view.to_move is not None:
            turn = f"SEAT {view.to_move + 1}"
        else:
            turn = ""
        visible = tuple(tiles[self._offset : self._offset + VISIBLE_TILES])
        cursor = self._cursor - self._offset if tiles else None
        if picker is None and self._step()[0] == "confirm":
            cursor = None  # the chosen cards (raised) are what to check now
        return HandScreenModel(
            seat_label=label,
            turn=turn,
            condition=condition,
            my_turn=my_turn,
            tiles=visible,
            cursor=cursor,
            scroll_left=self._offset > 0,
            scroll_right=self._offset + VISIBLE_TILES < len(tiles),
            picker=picker,
            prompt=self._message or prompt,
            alert=self._alert and bool(self._message),
        )
