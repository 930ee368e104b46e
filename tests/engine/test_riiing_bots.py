"""Riiing! computer players and ``RiiingGame.autoplay``: bots decide from their own view,
the heuristic beats random, windows are decided by sampled reaction times."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

import pytest
from riiing_helpers import GAME, make

from engine.core import Bot, NotationError
from engine.riiing import HardBot, HeuristicBot, RandomBot, RiiingAction, RiiingView

WIN_RATE_GAMES = 800


def heuristic_wins(seed: int) -> bool:
    """One seeded 2-seat game, heuristic against random; seats and opener alternate."""
    rng = random.Random(seed)
    seat = seed % 2
    start = GAME.new(2, seed, first=(seed // 2) % 2)
    bots = [HeuristicBot(s, rng) if s == seat else RandomBot(s, rng) for s in range(2)]
    *_, (_line, end, _events) = GAME.autoplay(start, bots, rng)
    return end.winner == seat


def test_heuristic_beats_random_in_two_seat_games() -> None:
    """The heuristic bot wins at least 60% of 800 seeded 2-seat games against random."""
    wins = sum(heuristic_wins(seed) for seed in range(WIN_RATE_GAMES))
    assert wins / WIN_RATE_GAMES >= 0.60, wins


class Recording(Bot[RiiingView, RiiingAction]):
    """Wraps a bot and records the views and legal actions it was given."""

    kind = "recording"

    def __init__(self, inner: Bot[RiiingView, RiiingAction]) -> None:
        super().__init__(inner.seat, inner.rng)
        self.inner = inner
        self.seen: list[tuple[RiiingView, tuple[RiiingAction, ...]]] = []

    def choose(self, view: RiiingView, legal: Sequence[RiiingAction]) -> RiiingAction:
        """The inner bot's choice, after recording what it saw."""
        self.seen.append((view, tuple(legal)))
        return self.inner.choose(view, legal)


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_bots_decide_from_their_own_view_and_choose_legal_actions(seats: int) -> None:
    """Each bot gets only its seat's view (own hand, own legal actions) and picks from it."""
    rng = random.Random(seats)
    bots = [
        Recording(HeuristicBot(s, rng) if s % 2 else RandomBot(s, rng)) for s in range(seats)
    ]
    *_, (_line, end, _events) = GAME.autoplay(GAME.new(seats, seats * 31), bots, rng)
    assert end.winner is not None
    for bot in bots:
        for view, legal in bot.seen:
            assert view.seat == bot.seat and view.legal == tuple(str(a) for a in legal)
            assert view.window is None and len(view.hand) == view.hand_counts[bot.seat]


def view_of(hand: list[str], condition: str, **fields: object) -> tuple[RiiingView, list[str]]:
    """Seat 0's view of a 2-seat position with that hand and condition (last card 5S/O)."""
    pos = make([hand, ["1S/O"]], [f"1C/{condition}"], ["5S/O"], **fields)
    return GAME.view(pos, 0), list(GAME.view(pos, 0).legal)


@pytest.mark.parametrize(
    ("hand", "condition", "fields", "choice"),
    [
        (["P/O", "!A/E", "8C/E"], "E", {}, "play 8C/E"),
        (["2C/E", "8A/E", "9T/<"], ">", {}, "play 9T/<"),
        (["2C/E", "4A/E", "9T/<"], "<", {}, "play 2C/E"),
        (["2C/E", "4A/O", "6A/E"], "E", {}, "play 4A/O"),
        (["P/O", "9C/E"], ">", {"demand": {"phones": 1}}, "play P/O"),
        (["!T/<", "2T/E", "9C/E"], ">", {"demand": {"symbol": "T"}}, "play 2T/E"),
        (["!A/E", "2C/E"], ">", {}, "play !A/E"),
    ],
)
def test_heuristic_choices(
    hand: list[str], condition: str, fields: dict[str, object], choice: str
) -> None:
    """Keeps demand cards and Phones, leaves a hard card, answers chains and demands."""
    view, legal = view_of(hand, condition, **fields)
    actions = [GAME.parse_action(text) for text in legal]
    bot = HeuristicBot(0, random.Random(1))
    assert str(bot.choose(view, actions)) == choice
    assert str(HeuristicBot(0, random.Random(2)).choose(view, actions)) == choice


def test_random_bot_is_seeded() -> None:
    """RandomBot draws from the device RNG: equal seeds, equal choices."""
    view, legal = view_of(["2C/E", "4A/E", "6A/E", "8T/E"], "E")
    actions = [GAME.parse_action(text) for text in legal]
    picks = [RandomBot(0, random.Random(5)).choose(view, actions) for _ in range(2)]
    assert picks[0] == picks[1] and picks[0] in actions


class Fixed(Bot[RiiingView, RiiingAction]):
    """A bot with a fixed reaction time (ms) that plays the first legal action."""

    kind = "fixed"

    def __init__(self, seat: int, rng: random.Random, ms: float) -> None:
        super().__init__(seat, rng)
        self.ms = ms

    def choose(self, view: RiiingView, legal: Sequence[RiiingAction]) -> RiiingAction:
        """The first legal action."""
        return legal[0]

    def reaction_ns(self, mean_ms: float = 300.0, sd_ms: float = 60.0) -> int:
        """Always ``ms``."""
        return int(self.ms * 1_000_000)


WINDOW = make([["1T/O", "2C/E"], ["3S/E", "4C/E"], ["5A/O", "6C/E"]], ["4A/*S", "7C/E"],
              ["5T/<"], window="S")


def first_line(times: list[float], seed: int) -> str:
    """The log line autoplay writes for WINDOW with bots of these reaction times."""
    rng = random.Random(seed)
    bots = [Fixed(seat, rng, ms) for seat, ms in enumerate(times)]
    line, _pos, _events = next(iter(GAME.autoplay(WINDOW, bots, rng)))
    return str(line)


def test_autoplay_lowest_reaction_time_slaps() -> None:
    """The lowest sampled reaction time wins the window; the log shows it in ms."""
    assert first_line([300.0, 231.4, 250.0], 1) == "seat 1: slap 1 (231 ms)"


def test_autoplay_equal_times_are_broken_by_the_device_rng() -> None:
    """Equal lowest times: the device RNG picks among the tied seats (seeded)."""
    for seed in range(6):
        winner = random.Random(seed).choice([0, 2])
        assert first_line([200.0, 300.0, 200.0], seed) == f"seat {winner}: slap {winner} (200 ms)"


def test_autoplay_sends_timeout_when_nobody_slaps_in_time() -> None:
    """Every time above slap_timeout_s (8 s): the device sends timeout."""
    assert first_line([8001.0, 9000.0, 12000.0], 1) == "device: timeout"
    assert first_line([8000.0, 9000.0, 12000.0], 1) == "seat 0: slap 0 (8000 ms)"


def test_autoplay_log_lines_and_end() -> None:
    """Every log line has the notation's form; the last position has a winner."""
    rng = random.Random(3)
    steps = list(GAME.autoplay(GAME.new(4, 3), [HeuristicBot(s, rng) for s in range(4)], rng))
    lines = [str(line) for line, _pos, _events in steps]
    pattern = re.compile(r"seat \d: (play \S+|draw|take|slap \d \(\d+ ms\))|device: timeout")
    assert lines and all(pattern.fullmatch(line) for line in lines)
    assert GAME.outcome(steps[-1][1]) is not None
    with pytest.raises(NotationError, match="3 bots for 4 seats"):
        next(iter(GAME.autoplay(GAME.new(4, 3), [RandomBot(s, rng) for s in range(3)], rng)))


def test_bot_registry() -> None:
    """RiiingGame.bots names the random, heuristic and hard bots by their kind."""
    assert dict(GAME.bots) == {"random": RandomBot, "heuristic": HeuristicBot, "hard": HardBot}
    assert all(cls.kind == kind for kind, cls in GAME.bots.items())
