"""Attract mode's captions (device/flow/attract.py and the plugins' ``caption``): the rule being
applied in words, on the worked examples of docs/notation.md and along seeded whole games;
public information only; bad input gives "" and one log line."""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from typing import Any

import pytest
from view_builders import rview

from device.flow.attract import DEMO_SEED_STEP, AttractMode, caption
from device.flow.lobby import LobbyChoices
from device.games import PLUGINS, get_plugin
from device.games.riiing import RiiingPlugin
from device.reactor.timers import Timers
from engine import get_game
from engine.core import Event

RIIING = get_game("riiing")
ROT = get_game("right-on-time")

PRIVATE = {"riiing": {"draw", "take", "falseslap"},
           "right-on-time": {"draw", "bonus", "swap"}}
"""Event kinds whose cards only their seat sees (the engines' event tables)."""

CAPTION_CHARS = 44
"""Longest caption: one of the TV top strip's two 48 px lines beside the title and the
whose-turn words holds about that many characters."""


def riiing_pos(**fields: Any) -> Any:
    """A Riiing! position from JSON fields (docs/notation.md), defaults for the rest."""
    obj: dict[str, Any] = {
        "game": "riiing", "seats": 3, "options": {}, "hands": [], "draw": [], "discard": [],
        "to_move": 0, "seed": 42, "demand": None, "window": None, "winner": None,
    }
    obj.update(fields)
    deck = [c for h in obj["hands"] for c in h] + obj["draw"] + obj["discard"]
    obj["options"] = {"deck": deck, **obj["options"]}
    return RIIING.parse_position(obj)


def after(game: Any, pos: Any, action: str) -> tuple[Sequence[Event], Any]:
    """Apply ``action`` (notation) to ``pos``: ``(events, position after)``."""
    new, events = game.apply(pos, game.parse_action(action))
    return events, new


def test_worked_example_1_demand_draws_till_the_symbol() -> None:
    """docs/notation.md example 1 (RI-5.3): seat 0 under a TOAST demand draws till a toast comes
    and plays it; the caption says so, without naming the card it kept."""
    pos = riiing_pos(
        hands=[["4S/O", "9C/>"], ["2T/=", "!A/<"], ["7A/E"]], draw=["3C/~", "6T/<"],
        discard=["8S/E", "5A/>", "!T/{1,4,7}"], demand={"symbol": "T"},
    )
    events, new = after(RIIING, pos, "draw")
    text = caption(get_plugin("riiing"), events, new)
    assert text == "Seat 1 drew till a TOAST came, played it"
    assert "3" not in text  # the drawn 3C/~ stays private


def test_worked_example_2_fastest_slap_drops_every_soap() -> None:
    """docs/notation.md example 2 (RI-6.3): slap 3 in a SOAP window."""
    pos = riiing_pos(
        seats=4, hands=[["5C/>", "1S/O"], ["3S/E", "!S/~", "8A/<"], ["2C/="], ["6T/>", "9S/O"]],
        draw=["4A/*S", "7C/E"], discard=["5T/<"], to_move=1, window="S",
    )
    events, new = after(RIIING, pos, "slap 3")
    assert caption(get_plugin("riiing"), events, new) == "Fastest slap: Seat 4 drops every SOAP"


def test_worked_example_3_ziehen_names_who_draws() -> None:
    """docs/notation.md example 3 (RT-4.2): play 2 Z3 @2 makes seat 2 draw."""
    cards = ["J", "2", "6", "Z3", "1", "5", "4", "4", "7", "3", "N", "5", "J"]
    pos = ROT.parse_position({
        "game": "right-on-time", "seats": 3, "options": {"deck": cards},
        "hands": [["J", "2", "6", "Z3"], ["1", "5"], ["4", "4", "7"]], "draw": ["3", "N"],
        "discard": ["5", "J4"], "to_move": 0, "seed": 1, "round": 1, "scores": [0, 0, 0],
        "out": [], "bonus": [[], [], []], "winner": None,
    })
    events, new = after(ROT, pos, "play 2 Z3 @2")
    assert caption(get_plugin("right-on-time"), events, new) == \
        "Ziehen!: Seat 1 made Seat 3 draw a card"


@pytest.mark.parametrize(
    ("back", "played", "want"),
    [
        ("<", "3C/>", "LOWER than 3: play a card below 3"),
        (">", "3C/>", "HIGHER than 3: play a card above 3"),
        ("=", "3C/>", "SAME NUMBER: play a 3"),
        ("~", "3A/>", "SAME SYMBOL: play an ALARM"),
        ("E", "3C/>", "EVEN: play a 2, 4, 6 or 8"),
        ("O", "3C/>", "ODD: play a 1, 3, 5, 7 or 9"),
        ("{2,5,8}", "3C/>", "ONE OF 2 5 8: play a 2, 5 or 8"),
        (">", "9C/>", "HIGHER than 9: no number fits, so draw"),
        ("<", "P/>", "LOWER: last card has no number, any goes"),
    ],
)
def test_after_a_plain_play_the_condition_in_force_is_said(
    back: str, played: str, want: str
) -> None:
    """After a plain play the caption is the condition the next seat must meet, against
    the card just laid (RI-3.2, RI-3.4), e.g. "LOWER than 3: play a card below 3"."""
    view = rview([], [], seat=None, condition=back, last_card=played, to_move=1)
    events = (Event("play", 0, (played,)),)
    assert get_plugin("riiing").caption(events, view) == want


def test_special_rules_are_captioned() -> None:
    """A demand card (RI-5.2), a Phone (RI-5.4) and a false slap (RI-6.5) each say their
    rule, not the condition."""
    plugin = get_plugin("riiing")
    base = {"hands": [["!C/>", "P/<", "8S/E"], ["2T/=", "5A/<"], ["7A/E"]],
            "draw": ["4S/<", "6T/<"], "discard": ["1T/O"]}
    events, new = after(RIIING, riiing_pos(**base), "play !C/>")
    assert caption(plugin, events, new) == "COFFEE!: play a COFFEE, or draw till one"
    events, new = after(RIIING, riiing_pos(**base), "play P/<")
    assert caption(plugin, events, new) == "PHONE x1: play a PHONE too, or take 1"
    events, new = after(RIIING, riiing_pos(**base), "falseslap 2")
    assert caption(plugin, events, new) == "Too early! Slap only on a RIIING!: +1 card"


def test_a_game_start_has_a_caption() -> None:
    """Right after the deal (no events): Riiing! says the condition, Right on Time the
    opening lay (RT-2.2)."""
    assert caption(get_plugin("right-on-time"), (), ROT.new(3, 5)) == \
        "Opening lay: any one card"
    pos = RIIING.new(3, 5)
    text = caption(get_plugin("riiing"), (), pos)
    assert text and ":" in text


def _masked(events: Sequence[Event], private: set[str]) -> tuple[Event, ...]:
    """``events`` with the cards of private kinds replaced by unknown codes."""
    return tuple(
        Event(e.kind, e.seat, tuple("??" for _ in e.cards), e.value) if e.kind in private else e
        for e in events
    )


@pytest.mark.parametrize("game", list(PLUGINS))
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_every_action_of_a_seeded_game_gets_a_short_public_caption(game: str, seed: int) -> None:
    """Along a seeded random game: every action has a caption of at most 44 characters,
    written in words (no card codes: no "/", "J=", "@"), and the same caption with every
    private card hidden (public information only)."""
    plugin = PLUGINS[game]
    engine = plugin.engine
    rng = random.Random(seed)
    pos = engine.new(rng.randint(2, 5), seed)
    kinds: set[str] = set()
    for _ in range(500):
        if engine.outcome(pos) is not None:
            break
        pos, events = engine.apply(pos, rng.choice(engine.legal(pos)))
        text = caption(plugin, events, pos)
        assert text, [str(e) for e in events]
        assert len(text) <= CAPTION_CHARS, text
        assert not any(mark in text for mark in ("/", "J=", "@", "{")), text
        view = engine.view(pos, None)
        assert plugin.caption(_masked(events, PRIVATE[game]), view) == text
        kinds |= {e.kind for e in events}
    assert engine.outcome(pos) is not None  # a whole game: its end was captioned too
    assert len(kinds) >= 4


def test_round_and_match_captions_say_how_they_were_won() -> None:
    """RT-6.2 / RT-7.1: the action that ends a round says the second out wins it; the one
    that ends the match names the point that won it."""
    plugin = get_plugin("right-on-time")
    rng = random.Random(11)
    pos = ROT.new(3, 11)
    rounds: list[str] = []
    match = ""
    while ROT.outcome(pos) is None:
        pos, events = ROT.apply(pos, rng.choice(ROT.legal(pos)))
        kinds = {e.kind for e in events}
        if "match" in kinds:
            match = caption(plugin, events, pos)
        elif "round" in kinds:
            rounds.append(caption(plugin, events, pos))
    assert rounds and all(r.startswith("Second out wins: Seat ") for r in rounds)
    assert match.endswith("took the third point: wins the match")


class _Failing(RiiingPlugin):
    """A plugin whose caption raises."""

    def caption(self, events: Sequence[Event], view: object) -> str | None:
        raise KeyError("window")


def test_bad_input_gives_an_empty_caption_and_one_line(caplog: pytest.LogCaptureFixture) -> None:
    """Another game's position, or a plugin that fails: "" and one log line naming the
    game and the error; never an exception."""
    with caplog.at_level(logging.WARNING, logger="partytable"):
        assert caption(get_plugin("riiing"), (), ROT.new(3, 1)) == ""
        assert caption(_Failing(), (), RIIING.new(3, 1)) == ""
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 2
    assert messages[0].startswith("demo caption for Riiing! failed: ")
    assert messages[1] == "demo caption for Riiing! failed: KeyError: 'window'"
    assert get_plugin("riiing").caption((), ROT.view(ROT.new(3, 1), None)) is None


S = 1_000_000_000


def test_the_idle_timer_starts_the_demo_once_and_any_touch_moves_it_on() -> None:
    """The demo starts a minute after the lobby was last touched: a touch 30 s in moves
    the start to 90 s; leaving the lobby (disarm) starts none."""
    timers = Timers()
    started: list[int] = []
    attract = AttractMode(timers, started.append)
    attract.arm(0)
    attract.arm(30 * S)
    timers.run_due(89 * S)
    assert started == []
    timers.run_due(90 * S)
    assert started == [90 * S] and len(timers) == 0
    attract.arm(100 * S)
    attract.disarm()
    timers.run_due(1000 * S)
    assert started == [90 * S]


def test_demo_games_have_their_own_seeds_and_computer_seats_only() -> None:
    """Demo n deals seed game_seed + n * DEMO_SEED_STEP with every seat a computer player,
    the lobby's seat count and options, and no game database; Riiing! opens at seat 0
    (no wake-up race in a demo), Right on Time at the lobby's first seat."""
    attract = AttractMode(Timers(), lambda now: None)
    choices = LobbyChoices(game="riiing", kinds=("human", "computer", "human"), first=2,
                           options=(("riiing", (("hand_size", 9),)),))
    plugin = get_plugin("riiing")
    first, second = (attract.session(plugin, choices, 40) for _ in range(2))
    assert (first.seed, second.seed) == (40 + DEMO_SEED_STEP, 40 + 2 * DEMO_SEED_STEP)
    assert first.kinds == ("computer",) * 3 and first.record.options["hand_size"] == 9
    assert first.journal.store is None
    assert attract.first_seat(plugin, choices) == 0
    rot = LobbyChoices(game="right-on-time", kinds=("human", "human"), first=1)
    assert attract.first_seat(get_plugin("right-on-time"), rot) == 1


def test_the_demo_is_ended_by_people_and_captions_only_while_on() -> None:
    """Only a person's key or slap ends a demo, never a computer player's slap; the top
    line is the rule's caption while a demo plays, the narration otherwise."""
    attract = AttractMode(Timers(), lambda now: None)
    plugin = get_plugin("riiing")
    pos = riiing_pos(hands=[["9C/>", "1S/O"], ["2T/="], ["4A/<"]], draw=["3T/>"],
                     discard=["7A/E"])
    events, pos = after(RIIING, pos, "play 9C/>")
    assert not attract.ends(True) and attract.line(plugin, events, pos, "told") == "told"
    attract.on = True
    assert attract.ends(True) and not attract.ends(False)
    line = attract.line(plugin, events, pos, "told")
    assert line == caption(plugin, events, pos) and line not in ("", "told")
    assert attract.line(plugin, (), "not a position", None) == ""
