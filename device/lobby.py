"""The lobby: which game, how many seats, who sits where (human or computer), the rule
options — chosen with any handheld's four keys and remembered between games.

Keys (any handheld, or the simulator's arrows/Enter/Backspace): LEFT/RIGHT move the
highlight up/down the rows, SELECT steps the highlighted value forward (on START: start),
BACK steps it back.  The choices are saved as JSON (``write_atomic``) and read back at
the next start; a damaged file is ignored with one line, never fatal.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from device.games import PLUGINS, GamePlugin
from device.render.model import LobbyModel
from device.seats import SeatKind
from device.session import DEFAULT_STRENGTH, STRENGTHS, strengths_for
from device.words import seat_name

MAX_VOLUME = 10
"""The loudest volume step (``device.sound``; 0 is silent)."""

DEFAULT_GAME = next(iter(PLUGINS))
"""The game the lobby offers first."""

KINDS = tuple(SeatKind)
"""What a seat can be: a person or a computer player."""

SEAT_CHOICES = (("human", DEFAULT_STRENGTH),
                *((str(SeatKind.COMPUTER), strength) for strength in STRENGTHS))
"""The values a seat's lobby row steps through: a person, then a computer player of each
strength (easy, normal, hard)."""


def _plugin(game: str) -> GamePlugin:
    return PLUGINS[game]


@dataclass(frozen=True, slots=True)
class LobbyChoices:
    """What the lobby has chosen: ``game``, ``kinds`` (one per seat, "human"/"computer";
    its length is the seat count), ``options`` per game and ``first`` (the seat that
    opens Right on Time's first round, RT-2.3; Riiing! runs the wake-up race, RI-2.3) and
    ``strengths`` (one per seat, ``device.session.STRENGTHS``, for its computer player;
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
        """Read choices saved by :meth:`to_json`; raises ``ValueError`` naming the bad key."""
        if not isinstance(obj, dict):
            raise ValueError("lobby choices: expected a JSON object")
        game = obj.get("game", DEFAULT_GAME)
        if game not in PLUGINS:
            raise ValueError(f"lobby choices: unknown game {game!r}")
        kinds = obj.get("kinds", list(cls().kinds))
        if (
            not isinstance(kinds, list)
            or not 2 <= len(kinds) <= 6
            or any(k not in KINDS for k in kinds)
        ):
            raise ValueError("lobby choices: 'kinds' must list 2 to 6 of human/computer")
        first = obj.get("first", 0)
        if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < len(kinds):
            raise ValueError("lobby choices: 'first' is not a seat")
        options: list[tuple[str, tuple[tuple[str, int | bool], ...]]] = []
        raw_opts = obj.get("options", {})
        if not isinstance(raw_opts, dict):
            raise ValueError("lobby choices: 'options' must be an object")
        for g, opts in raw_opts.items():
            if g not in PLUGINS or not isinstance(opts, dict):
                raise ValueError(f"lobby choices: bad options for {g!r}")
            allowed = {o.name: o.values for o in _plugin(g).lobby_options}
            for k, v in opts.items():
                # type first: True == 1 in Python, so `true` would pass as the number 1
                if k not in allowed or not any(type(v) is type(a) and v == a
                                               for a in allowed[k]):
                    raise ValueError(f"lobby choices: option {g}.{k} = {v!r} is not offered")
            options.append((g, tuple(sorted(opts.items()))))
        strengths = obj.get("strengths", [])
        if not isinstance(strengths, list) or not all(isinstance(x, str) for x in strengths):
            raise ValueError("lobby choices: 'strengths' must list easy/normal/hard")
        volume = obj.get("volume")
        if volume is not None and (isinstance(volume, bool) or not isinstance(volume, int)
                                   or not 0 <= volume <= MAX_VOLUME):
            raise ValueError(f"lobby choices: 'volume' must be 0 to {MAX_VOLUME}, got {volume!r}")
        return cls(game, tuple(kinds), tuple(sorted(options)), first,
                   strengths_for(kinds, strengths), volume)


def load_choices(path: Path | None) -> tuple[LobbyChoices, str | None]:
    """The saved choices at ``path`` (defaults if missing), plus a one-line warning when
    the file exists but cannot be used (it is then ignored, never fatal)."""
    if path is None or not path.exists():
        return LobbyChoices(), None
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
        choices = LobbyChoices.from_json(obj)
    except (OSError, ValueError) as err:
        return LobbyChoices(), f"{path}: {err}; using defaults"
    return choices, _strength_warning(path, obj, choices)


def _strength_warning(path: Path, obj: dict[str, Any], choices: LobbyChoices) -> str | None:
    """One line for strengths that were not used: an unknown word, or a strength for a
    seat a person plays (the choice is kept as "normal"; everything else is used)."""
    raw = obj.get("strengths", [])
    for i, word in enumerate(raw[: len(choices.kinds)]):
        if word not in STRENGTHS:
            return f"{path}: seat {i + 1} strength {word!r} is not easy/normal/hard; normal"
        if choices.kinds[i] == SeatKind.HUMAN and word != DEFAULT_STRENGTH:
            return (f"{path}: seat {i + 1} is a person, its strength {word!r} is not used; "
                    "normal")
    return None


@dataclass
class Lobby:
    """The lobby menu's state: the choices, the highlighted row and ``max_seats`` (how many
    seats the console has: 2 to 6; the seat count cycles within it)."""

    choices: LobbyChoices = field(default_factory=LobbyChoices)
    cursor: int = 0
    max_seats: int = 6
    board: tuple[tuple[str, str], ...] = ()
    """Tonight's leaderboard as ``(label, value)`` rows after START (the flow reads it from
    the game database); with rows, a last row clears it."""
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
        rows += [("board", label, value) for label, value in self.board]
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


def seat_kinds_text(kinds: Sequence[str]) -> str:
    """``"H C C"``-style summary of seat kinds for logs."""
    return " ".join("H" if k == "human" else "C" for k in kinds)
