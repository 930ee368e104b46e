"""Random play through every registered game (OpenSpiel's ``random_sim_test`` as model).

Each game in ``engine.GAME_MODULES`` gets the same checks, without a line of its own: seeded
random games at every seat count, with the invariants of the game protocol
(``engine.core``) checked after every action, and the game's fast path
(``Game.fast_path``) stepped in lockstep with the checked ``apply``.  A new game is covered
by registering it.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

from engine import GAME_MODULES, get_game
from engine.core import Game, IllegalActionError

GAMES = sorted(GAME_MODULES)
STEP_CAP = 20_000
"""Actions after which a random game counts as never ending (a failure)."""


def cards(pos: Any) -> Counter[str]:
    """The multiset of every card the position holds (RI-8.3, RT-10.1)."""
    return Counter(str(card) for card in pos.cards())


def random_game(game: Game[Any, Any, Any], seats: int, seed: int) -> int:
    """Play one seeded random game, checking the protocol's invariants after every
    action; returns its length."""
    rng = random.Random(seed)
    pos = game.new(seats, seed, None, first=seed % seats)
    fast = game.fast_path()
    state = None if fast is None else fast.state(pos)
    held = cards(pos)
    seen: set[str] = set()
    steps = 0
    while game.outcome(pos) is None:
        assert steps < STEP_CAP, f"{game.name} {seats} seats seed {seed}: no end"
        legal = game.legal(pos)
        texts = [str(action) for action in legal]
        assert texts, f"{game.name}: no legal action while the game goes on"
        assert texts == sorted(texts) and len(set(texts)) == len(texts)
        assert [game.parse_action(text) for text in texts] == list(legal)
        if fast is not None and state is not None:
            assert sorted(fast.legal(state)) == texts
        for seat in (None, *range(seats)):
            game.view(pos, seat)
        for text in sorted(seen - set(texts))[:3]:
            with pytest.raises(IllegalActionError):
                game.apply(pos, game.parse_action(text))
        seen.update(texts)
        action = legal[rng.randrange(len(legal))]
        pos, _events = game.apply(pos, action)
        text = json.dumps(game.position_json(pos))
        assert game.parse_position(json.loads(text)) == pos
        assert type(pos).parse(str(pos)) == pos
        assert cards(pos) == held
        if fast is not None and state is not None:
            fast.step(state, str(action))
            assert fast.position(state) == pos, f"fast path differs after {action}"
        steps += 1
    assert game.legal(pos) == ()
    return steps


@pytest.mark.parametrize("name", GAMES)
def test_random_play_keeps_every_invariant(name: str) -> None:
    """12 seeded random games per seat count (min..max): legal actions sorted, unique and
    re-readable, refused once they are no longer legal, every view readable, the position
    round-trips through JSON and text, every card kept, the game ends, and the fast path
    agrees with the checked apply after every action."""
    game = get_game(name)
    lengths = [
        random_game(game, seats, 100 * seats + i)
        for seats in range(game.min_seats, game.max_seats + 1)
        for i in range(12)
    ]
    assert min(lengths) > 0


def test_every_registered_game_has_a_fast_path() -> None:
    """Both games' computer players search on a fast path; the lockstep above covers it."""
    assert all(get_game(name).fast_path() is not None for name in GAMES)
