"""The lobby: which game, how many seats, who sits where (human or computer), the rule
options — chosen with any handheld's four keys and remembered between games.

Keys (any handheld, or the simulator's arrows/Enter/Backspace): LEFT/RIGHT move the
highlight up/down the rows, SELECT steps the highlighted value forward (on START: start),
BACK steps it back.  The choices are saved as JSON (``write_atomic``) and read back at
the next start key by key (:func:`load_choices`): a bad value is one log line naming its key
and value and only that key takes its default; a file that cannot be read at all is one
line and defaults; never fatal.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from device.common.words import seat_name
from device.games import PLUGINS, AnyPlugin
from device.hands.seats import SeatKind
from device.render.model import LobbyModel
from device.store.session import DEFAULT_STRENGTH, STRENGTHS, strengths_for
from drivers.values import is_int

log = logging.getLogger(__name__)

MAX_VOLUME = 10
"""The loudest volume step (``device.modes.sound``; 0 is silent)."""

DEFAULT_GAME = next(iter(PLUGINS))
"""The game the lobby offers first."""

KINDS = tuple(SeatKind)
"""What a seat can be: a person or a computer player."""

SEAT_CHOICES = (("human", DEFAULT_STRENGTH),
                *((str(SeatKind.COMPUTER), strength) for strength in STRENGTHS))
"""The values a seat's lobby row steps through: a person, then a computer player of each
strength (easy, normal, hard)."""


def _plugin(game: str) -> AnyPlugin:
    return PLUGINS[game]


@dataclass(frozen=True, slots=True)
class LobbyChoices:
    """What the lobby has chosen: ``game``, ``kinds`` (one per seat, "human"/"computer";
    its length is the seat count), ``options`` per game and ``first`` (the seat that
    opens Right on Time's first round, RT-2.3; Riiing! runs the wake-up race, RI-2.3) and
    ``strengths`` (one per seat, ``device.store.session.STRENGTHS``, for its computer player;
    ``()``: every one ``"normal"``)."""

    game: str = field(default_factory=lambda: DEFAULT_GAME)
    kinds: tuple[str, ...] = ("human", "computer", "computer", "computer")
    options: tuple[tuple[str, tuple[tuple[str, int | bool], ...]], ...] = ()
    first: int = 0
    strengths: tuple[str, ...] = ()
    volume: int | None = None
    """The sound's volume step 0..10 chosen in the lobby (``None``: the config's)."""

    def __post_init__(self) -> None:
        # one strength per seat, always: equal choices compare equal however they were made
        object.__setattr__(self, "strengths", strengths_for(self.kinds, self.strengths))

    def seat_strengths(self) -> tuple[str, ...]:
        """One strength per seat (``"normal"`` where none is chosen)."""
        return self.strengths

    def game_options(self, game: str | None = None) -> dict[str, int | bool]:
        """The chosen option values of ``game`` (default: the chosen game)."""
        game = game or self.game
        chosen = dict(dict(self.options).get(game, ()))
        return {o.name: chosen.get(o.name, o.values[0]) for o in _plugin(game).lobby_options}

    def with_option(self, name: str, value: int | bool) -> LobbyChoices:
        """A copy with option ``name`` of the chosen game set to ``value``."""
        per_game = dict(self.options)
        opts = dict(per_game.get(self.game, ()))
        opts[name] = value
        per_game[self.game] = tuple(sorted(opts.items()))
        return replace(self, options=tuple(sorted(per_game.items())))

    def to_json(self) -> dict[str, Any]:
        """A JSON object of the choices (what ``load`` reads back)."""
        return {
            "game": self.game,
            "kinds": list(self.kinds),
            "first": self.first,
            "options": {g: dict(o) for g, o in self.options},
            "strengths": list(self.seat_strengths()),
            **({} if self.volume is None else {"volume": self.volume}),
        }

    @classmethod
    def from_json(cls, obj: Any) -> LobbyChoices:
        """Read choices saved by :meth:`to_json`, strictly: raises ``ValueError`` naming
        the first bad key and its value (:meth:`read` uses what it can instead)."""
        choices, problems = cls.read(obj)
        if problems:
            raise ValueError(f"lobby choices: {problems[0]}")
        return choices

    @classmethod
    def read(cls, obj: Any) -> tuple[LobbyChoices, tuple[str, ...]]:
        """The choices in ``obj`` (a parsed ``lobby.json``) key by key, plus one line per
        bad key naming the key and its value (one line, defaults, nothing lost): a bad key
        takes its default and every good key is used.  Keys:
        ``game`` (a :data:`~device.games.PLUGINS` name), ``kinds`` (2 to 6 of
        human/computer), ``first`` (a seat of ``kinds``, RT-2.3), ``options`` (per game,
        per option one of the values the lobby offers; each option on its own),
        ``strengths`` (per seat easy/normal/hard, used for computer seats only) and
        ``volume`` (0..:data:`MAX_VOLUME`).  Never raises."""
        default = cls()
        if not isinstance(obj, dict):
            return default, (f"expected a JSON object, got {_kind(obj)}",)
        problems: list[str] = []
        for key in obj:
            if key not in _KEYS:
                problems.append(f"{_shown(key)} is not a lobby choice; left out")
        game = obj.get("game", DEFAULT_GAME)
        if not isinstance(game, str) or game not in PLUGINS:
            problems.append(f"'game' = {_shown(game)} is an unknown game ({'/'.join(PLUGINS)}); "
                            f"{DEFAULT_GAME}")
            game = DEFAULT_GAME
        kinds_ok = True
        kinds = obj.get("kinds", list(default.kinds))
        if (not isinstance(kinds, list) or not 2 <= len(kinds) <= 6
                or any(not isinstance(k, str) or k not in KINDS for k in kinds)):
            problems.append(f"'kinds' = {_shown(kinds)} is not 2 to 6 of human/computer; "
                            f"{seat_kinds_text(default.kinds)}")
            kinds, kinds_ok = list(default.kinds), False
        first = obj.get("first", 0)
        if not is_int(first) or not 0 <= first < len(kinds):
            problems.append(f"'first' = {_shown(first)} is not a seat of {len(kinds)}; "
                            "seat 1 opens")
            first = 0
        options = _read_options(obj.get("options", {}), problems)
        strengths = _read_strengths(obj.get("strengths", []), kinds, kinds_ok, problems)
        volume = obj.get("volume")
        if volume is not None and (not is_int(volume)
                                   or not 0 <= volume <= MAX_VOLUME):
            problems.append(f"'volume' must be 0 to {MAX_VOLUME}, got {_shown(volume)}; "
                            "the configured volume")
            volume = None
        return cls(game, tuple(kinds), options, first, strengths, volume), tuple(problems)


_KEYS = ("game", "kinds", "first", "options", "strengths", "volume")
"""The keys :meth:`LobbyChoices.to_json` writes."""

MAX_FILE_BYTES = 64 * 1024
"""A ``lobby.json`` longer than this is not parsed (the lobby writes well under 1 KiB):
one line, defaults; a huge file never fills the memory of a Pi."""

SHOWN_CHARS = 40
"""A value in a line is its repr cut to this many characters."""


def _shown(value: object) -> str:
    """``value`` as a line shows it: its repr, cut to :data:`SHOWN_CHARS` (a 50 KB value
    stays a short line)."""
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


def _kind(obj: object) -> str:
    """What JSON value ``obj`` is, in words ("a list", "null")."""
    names = {dict: "an object", list: "a list", str: "a string", bool: "true/false",
             int: "a number", float: "a number", type(None): "null"}
    return names.get(type(obj), type(obj).__name__)


def _read_options(
    raw: object, problems: list[str]
) -> tuple[tuple[str, tuple[tuple[str, int | bool], ...]], ...]:
    """``options`` of ``lobby.json``: per game, the options the lobby offers with one of
    their offered values; anything else is a line in ``problems`` and left out (that
    option then has its default, the first offered value)."""
    if not isinstance(raw, dict):
        problems.append(f"'options' = {_shown(raw)} is not an object of games; "
                        "every option its default")
        return ()
    out: list[tuple[str, tuple[tuple[str, int | bool], ...]]] = []
    for g, opts in raw.items():
        if g not in PLUGINS:
            problems.append(f"'options' for {_shown(g)}: not one of {'/'.join(PLUGINS)}; "
                            "left out")
            continue
        if not isinstance(opts, dict):
            problems.append(f"'options.{g}' = {_shown(opts)} is not an object; "
                            "its options their defaults")
            continue
        allowed = {o.name: o.values for o in _plugin(g).lobby_options}
        kept: list[tuple[str, int | bool]] = []
        for k, v in opts.items():
            if k not in allowed:
                problems.append(f"option {g}.{_shown(k)} is not a lobby option; left out")
            # type first: True == 1 in Python, so `true` would pass as the number 1
            elif not any(type(v) is type(a) and v == a for a in allowed[k]):
                problems.append(f"option {g}.{k} = {_shown(v)} is not offered "
                                f"({'/'.join(map(str, allowed[k]))}); {allowed[k][0]}")
            else:
                kept.append((k, v))
        if kept:  # no option kept: as if none were saved (equal choices compare equal)
            out.append((g, tuple(sorted(kept))))
    return tuple(sorted(out))


def _read_strengths(raw: object, kinds: Sequence[str], kinds_ok: bool,
                    problems: list[str]) -> tuple[str, ...]:
    """``strengths`` of ``lobby.json``, one per seat of ``kinds``: a known word for a
    computer seat is used; an unknown word, a strength saved for a person's seat (only
    when ``kinds`` itself was read, ``kinds_ok``) or extra entries are a line each in
    ``problems``, and that seat plays ``"normal"``."""
    if not isinstance(raw, list):
        problems.append(f"'strengths' = {_shown(raw)} is not a list of easy/normal/hard; "
                        "normal")
        return ()
    for i, word in enumerate(raw[: len(kinds)]):
        if not isinstance(word, str) or word not in STRENGTHS:
            problems.append(f"seat {i + 1} strength {_shown(word)} is not easy/normal/hard; "
                            "normal")
        elif kinds_ok and kinds[i] == SeatKind.HUMAN and word != DEFAULT_STRENGTH:
            problems.append(f"seat {i + 1} is a person, its strength {_shown(word)} is not "
                            "used; normal")
    if len(raw) > len(kinds):
        problems.append(f"'strengths' = {_shown(raw)} lists {len(raw)} seats, "
                        f"{len(kinds)} play; the rest left out")
    return strengths_for(kinds, [w if isinstance(w, str) else "" for w in raw])


def load_choices(path: Path | None) -> tuple[LobbyChoices, str | None]:
    """The saved choices at ``path`` (defaults, no line, if it is missing or ``None``),
    read key by key (:meth:`LobbyChoices.read`), plus the line the TV shows when
    something could not be used, else ``None``.  Never raises.

    Every problem is also one log line (warning) naming the file, the key and the value:
    a bad key takes its default, the good keys are used.  A file that cannot be read
    (an OS error, not UTF-8, not JSON, cut short, nested past the parser, longer than
    :data:`MAX_FILE_BYTES`, not a JSON object) is one line, and every choice its
    default.  The TV's line joins the problems with the banner's ``"  ·  "`` (at most
    three, then how many more the log names)."""
    if path is None:
        return LobbyChoices(), None
    try:
        with path.open("rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except (FileNotFoundError, NotADirectoryError):  # none saved yet: a new console
        return LobbyChoices(), None
    except OSError as err:
        return _told(path, LobbyChoices(), (f"{_one_line(err)}; using defaults",))
    try:
        if len(data) > MAX_FILE_BYTES:
            raise ValueError(f"longer than {MAX_FILE_BYTES // 1024} KiB, not a lobby file")
        obj = json.loads(data.decode("utf-8"))
    except RecursionError:
        problems: tuple[str, ...] = ("nested too deep to be lobby choices; using defaults",)
        choices = LobbyChoices()
    except ValueError as err:  # UnicodeDecodeError, JSONDecodeError: ValueErrors
        problems = (f"{_one_line(err)}; using defaults",)
        choices = LobbyChoices()
    else:
        choices, problems = LobbyChoices.read(obj)
        if not isinstance(obj, dict):
            problems = (f"{problems[0]}; using defaults",)
    return _told(path, choices, problems)


def _told(path: Path, choices: LobbyChoices,
          problems: tuple[str, ...]) -> tuple[LobbyChoices, str | None]:
    """``choices`` and the TV's line of ``problems`` (``None`` without any); each problem
    is one log line naming ``path``."""
    if not problems:
        return choices, None
    for problem in problems:
        log.warning("%s: %s", path, problem)
    shown = [f"{path.name}: {p}" for p in problems[:3]]
    if len(problems) > 3:
        shown.append(f"{len(problems) - 3} more in the log")
    return choices, BANNER_SEPARATOR.join(shown)


BANNER_SEPARATOR = "  ·  "
"""What the TV's banner puts between its lines (``device.flow.game_flow``)."""


def _one_line(err: BaseException) -> str:
    """``err`` as one short line (a JSON error names its line and column)."""
    text = " ".join(str(err).split()) or type(err).__name__
    if isinstance(err, json.JSONDecodeError):
        text = f"not JSON ({text})"
    return text if len(text) <= 120 else text[:117] + "..."


@dataclass
class Lobby:
    """The lobby menu's state: the choices, the highlighted row and ``max_seats`` (how many
    seats the console has: 2 to 6; the seat count cycles within it)."""

    choices: LobbyChoices = field(default_factory=LobbyChoices)
    cursor: int = 0
    max_seats: int = 6
    board: tuple[tuple[str, str], ...] = ()
    """Tonight's leaderboard as ``(label, value)`` pairs after START (the flow reads it from
    the game database), a value listing its entries two spaces apart (``"Seat 2 231 ms
    Seat 4 260 ms"``); :meth:`rows` gives each entry a row of its own; with rows, a last
    row clears it."""
    clear_asked: bool = False
    """SELECT on the clear row: the flow clears the leaderboard and resets this."""
    sound: bool = False
    """The console has a sound player: the lobby offers a Volume row."""

    def rows(self) -> list[tuple[str, str, str]]:
        """``(key, label, value)`` per row; ``key`` says what the row changes."""
        c = self.choices
        plugin = _plugin(c.game)
        rows = [("game", "Game", plugin.title), ("seats", "Seats", str(len(c.kinds)))]
        strengths = c.seat_strengths()
        for i, kind in enumerate(c.kinds):
            shown = "person" if kind == SeatKind.HUMAN else f"computer ({strengths[i]})"
            rows.append((f"kind:{i}", seat_name(i), shown))
        if not plugin.wakeup_race:  # RT-2.3: the oldest person opens; RI-2.3 races instead
            rows.append(("first", "Opens (oldest)", seat_name(c.first)))
        values = c.game_options()
        for opt in plugin.lobby_options:
            v = values[opt.name]
            shown = ("on" if v else "off") if isinstance(v, bool) else str(v)
            rows.append((f"opt:{opt.name}", opt.label, shown))
        if self.sound:
            rows.append(("volume", "Volume", "off" if c.volume == 0 else str(c.volume)))
        rows.append(("howto", "How to play", plugin.title))
        rows.append(("start", "START", ""))
        for label, value in self.board:
            rows += board_rows(label, value)
        if self.board:
            rows.append(("clear", "Clear tonight's board", "SELECT"))
        return rows

    def model(self, hint: str) -> LobbyModel:
        """The lobby as the table display draws it."""
        rows = self.rows()
        self.cursor = min(self.cursor, len(rows) - 1)
        return LobbyModel(tuple((label, value) for _, label, value in rows), self.cursor, hint)

    def move(self, step: int) -> None:
        """Move the highlight by ``step`` rows, wrapping around."""
        self.cursor = (self.cursor + step) % len(self.rows())

    def change(self, step: int) -> bool:
        """Step the highlighted value by ``step`` (+1 SELECT, -1 BACK); returns True when
        the highlighted row is START and ``step`` is +1 (the caller starts the game)."""
        key = self.rows()[self.cursor][0]
        c = self.choices
        if key == "start":
            return step > 0
        if key == "clear" and step > 0:
            self.clear_asked = True
        if key == "game":
            games = list(PLUGINS)
            c = replace(c, game=games[(games.index(c.game) + step) % len(games)])
        elif key == "seats":
            n = (len(c.kinds) - 2 + step) % (self.max_seats - 1) + 2
            kinds = (c.kinds + ("computer",) * 6)[:n]
            strengths = (c.seat_strengths() + (DEFAULT_STRENGTH,) * 6)[:n]
            c = replace(c, kinds=kinds, first=min(c.first, n - 1), strengths=strengths)
        elif key.startswith("kind:"):
            i = int(key[5:])
            seat_kinds, chosen = list(c.kinds), list(c.seat_strengths())
            now = (seat_kinds[i], DEFAULT_STRENGTH if seat_kinds[i] == SeatKind.HUMAN
                   else chosen[i])
            seat_kinds[i], chosen[i] = SEAT_CHOICES[
                (SEAT_CHOICES.index(now) + step) % len(SEAT_CHOICES)]
            c = replace(c, kinds=tuple(seat_kinds), strengths=tuple(chosen))
        elif key == "first":
            c = replace(c, first=(c.first + step) % len(c.kinds))
        elif key == "volume":  # SELECT louder, BACK softer, within 0..10
            c = replace(c, volume=max(0, min(MAX_VOLUME, (c.volume or 0) + step)))
        elif key.startswith("opt:"):
            name = key[4:]
            opt = next(o for o in _plugin(c.game).lobby_options if o.name == name)
            cur = c.game_options()[name]
            idx = opt.values.index(cur) if cur in opt.values else 0
            c = c.with_option(name, opt.values[(idx + step) % len(opt.values)])
        self.choices = c
        return False


BOARD_ENTRY_GAP = "  "
"""What separates the entries of a leaderboard value (``Lobby.board``)."""


def board_rows(label: str, value: str) -> list[tuple[str, str, str]]:
    """The lobby rows ``("board", label, entry)`` of one leaderboard pair: one row per
    entry of ``value`` (split at :data:`BOARD_ENTRY_GAP`), ``label`` on the first and
    ``""`` on the rest, so every entry is drawn at the rows' full size
    (``device.render.zones.LobbySpec.TEXT_PX``: a whole list in one row was shrunk to
    40 px and cut, unreadable at 480x270; ``docs/screens.md``).  An empty ``value`` is
    one row with the label alone.

    >>> board_rows("Games won", "Seat 1: 3  Seat 2: 1")
    [('board', 'Games won', 'Seat 1: 3'), ('board', '', 'Seat 2: 1')]
    """
    entries = [e.strip() for e in value.split(BOARD_ENTRY_GAP) if e.strip()] or [""]
    return [("board", label if i == 0 else "", entry) for i, entry in enumerate(entries)]


def seat_kinds_text(kinds: Sequence[str]) -> str:
    """``"H C C"``-style summary of seat kinds for logs."""
    return " ".join("H" if k == "human" else "C" for k in kinds)
