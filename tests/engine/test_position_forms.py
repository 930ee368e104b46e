"""Both games' positions have the same text/JSON forms (docs/notation.md): ``str(p)`` is
the canonical one-line JSON, ``Type.parse(str(p)) == p``, ``Type.from_json(p.to_json()) ==
p``, and the CLI prints exactly ``str(p)``; checked on every position of seeded games."""

from __future__ import annotations

import io
import json
import random
from typing import Any

import pytest

from engine import get_game
from engine.cli import main
from engine.right_on_time import RotPosition
from engine.riiing import RiiingPosition

GAMES = {"riiing": RiiingPosition, "right-on-time": RotPosition}

SETUPS: list[tuple[str, int, int, dict[str, Any]]] = [
    ("riiing", 3, 11, {}),
    ("riiing", 2, 12, {"hand_size": 5, "deck": [f"{n}C/{b}" for n in range(1, 10)
                                                for b in "EO<>"]}),
    ("right-on-time", 2, 13, {}),
    ("right-on-time", 4, 14, {"less_influence": True, "target_points": 2}),
    ("right-on-time", 3, 15, {"deck": ["1", "2", "3", "J", "N", "D3", "Z5"] * 6}),
]  # fmt: skip
"""(game, seats, seed, options) of the seeded games walked."""


def walk(name: str, seats: int, seed: int, options: dict[str, Any]) -> list[Any]:
    """Every position of a seeded random-bot game, the new one first (at most 300)."""
    game = get_game(name)
    pos = game.new(seats, seed, options)
    rng = random.Random(seed)
    bots = [game.bots["random"](seat, rng) for seat in range(seats)]
    out = [pos]
    for _line, after, _events in game.autoplay(pos, bots, rng):
        out.append(after)
        if len(out) == 300:
            break
    return out


@pytest.mark.parametrize(("name", "seats", "seed", "options"), SETUPS)
def test_text_and_json_forms_round_trip(
    name: str, seats: int, seed: int, options: dict[str, Any]
) -> None:
    """parse(str(p)) == p and from_json(to_json()) == p for every position of the game;
    str(p) is one line and equals json.dumps(position_json(p))."""
    game = get_game(name)
    cls = GAMES[name]
    positions = walk(name, seats, seed, options)
    assert len(positions) > 20
    for pos in positions:
        assert isinstance(pos, cls)
        text = str(pos)
        assert "\n" not in text and text == json.dumps(game.position_json(pos))
        assert cls.parse(text) == pos
        assert cls.from_json(pos.to_json()) == pos == game.parse_position(json.loads(text))
        assert sorted(map(str, cls.parse(text).cards())) == sorted(map(str, pos.cards()))


@pytest.mark.parametrize(("name", "seats", "seed", "options"), SETUPS)
def test_cli_new_prints_str_of_the_position(
    name: str, seats: int, seed: int, options: dict[str, Any]
) -> None:
    """`new` prints str(game.new(...)) byte for byte, inline decks given as one string."""
    argv = ["new", name, "--seats", str(seats), "--seed", str(seed)]
    for key, value in options.items():
        written = " ".join(value) if isinstance(value, list) else str(value).lower()
        argv += ["--option", f"{key}={written}"]
    out = io.StringIO()
    assert main(argv, io.StringIO(""), out, io.StringIO()) == 0
    assert out.getvalue() == str(get_game(name).new(seats, seed, options)) + "\n"


def test_both_position_types_offer_the_same_forms() -> None:
    """RiiingPosition and RotPosition have the same public form methods."""
    forms = ("parse", "from_json", "to_json", "cards", "__str__")
    for cls in GAMES.values():
        assert all(callable(getattr(cls, name)) for name in forms), cls
        assert cls.__str__ is not object.__str__
