"""The virtual Pi's party driver (``scripts/virtual_pi/party.py``) without a VM: its pull
sequences, a person's choice of key from a screen, the reading of the console's lines, and
the check of the game database against the journal."""

from __future__ import annotations

import doctest
import json
import random

from engine import get_game
from scripts.virtual_pi import party
from scripts.virtual_pi.party import Party, Tally, choose_key, rules_check


def test_the_module_examples_hold() -> None:
    """The docstrings' examples (pull sequences, choose_key) are right."""
    result = doctest.testmod(party)
    assert result.attempted >= 5 and result.failed == 0


def test_a_bounce_toggles_within_two_ms_then_holds() -> None:
    """The bouncing press's edges all fall within 2 ms, its last one is the release."""
    spec = party.bounce_seq(25)
    times = [float(step.split("@")[1].removesuffix("ms")) for step in spec.split()]
    assert max(times[:-1]) < 2.0 and times[-1] == 150.0
    assert spec.split()[-1].startswith("25=release")


def test_a_person_moves_right_until_a_playable_tile_then_selects() -> None:
    """From any cursor, right presses reach the playable tile and then select; a picker or
    a confirmation is a select; someone else's turn is no key."""
    tiles = [{"playable": i == 3} for i in range(6)]
    for start in range(6):
        screen = {"my_turn": True, "picker": None, "cursor": start, "tiles": tiles}
        presses = 0
        while choose_key(screen) == "right":
            screen["cursor"] = (screen["cursor"] + 1) % 6
            presses += 1
        assert screen["cursor"] == 3 and presses == (3 - start) % 6
    assert choose_key({"my_turn": True, "picker": {"options": ["1"]}, "cursor": 0,
                       "tiles": tiles}) == "select"
    assert choose_key({"my_turn": True, "picker": None, "cursor": None, "tiles": tiles}) \
        == "select"
    assert choose_key({"my_turn": False, "cursor": 3, "tiles": tiles}) is None


class Lines:
    """A stand-in machine: ``party_step.py`` answers with the given lines once."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    def call(self, argv: list[str], *, timeout_s: float = 60.0) -> object:
        from scripts.appliance.vm import Reply

        out = json.dumps({"cursor": "c1", "lines": self.lines, "writes": []})
        self.lines = []
        return Reply(0, out + "\n", "")


def test_the_consoles_lines_become_screens_rows_and_actions() -> None:
    """Screen lines update that seat's screen, lobby lines the row, action lines the tally
    (once the game started); other lines are ignored."""
    screen = {"seat_label": "2", "turn": "YOUR TURN", "my_turn": True, "tiles": [],
              "cursor": None, "picker": None}
    p = Party(Lines([f"INFO Seat 2 screen {json.dumps(screen)}", "INFO lobby: row 7 START",
                     "INFO Seat 2: draw", "WARNING something else"]), lambda s: None)
    p.tally.started = True
    p.step()
    assert p.screens[1] == screen and p.lobby_row == "START"
    assert p.tally.actions == ["Seat 2: draw"] and p.cursor == "c1"


def played_game(seed: int) -> dict[str, object]:
    """A finished Riiing! game as ``history --json`` lists it."""
    engine = get_game("riiing")
    pos = engine.new(3, seed, {}, 0)
    rng = random.Random(seed)
    actions = []
    while engine.outcome(pos) is None:
        action = rng.choice(engine.legal(pos))
        actions.append(str(action))
        pos, _ = engine.apply(pos, action)
    return {"games": [{"id": 1, "game": "riiing", "seats": 3, "seed": seed, "options": {},
                       "first": 0, "outcome": "done", "actions": actions}]}


def test_the_database_check_accepts_the_game_the_journal_named_and_nothing_else() -> None:
    """The finished game whose non-slap actions the journal named in order passes; a
    missing action, an unfinished game or an action that does not apply is named."""
    history = played_game(5)
    game = history["games"][0]  # type: ignore[index]
    named = [f"Seat 1: {a}" for a in game["actions"] if not a.startswith("slap")]
    assert rules_check(history, Tally(actions=named)) == []
    assert rules_check(history, Tally(actions=named[:-1]))
    unfinished = {"games": [{**game, "outcome": None}]}
    assert any("not finished" in p for p in rules_check(unfinished, Tally(actions=named)))
    broken = {"games": [{**game, "actions": ["play 9Z/Q", *game["actions"]]}]}
    assert any("does not apply" in p for p in rules_check(broken, Tally(actions=named)))
    assert rules_check({"games": []}, Tally()) == ["the game database holds no game"]


def test_the_guest_slaps_only_into_a_window_still_open() -> None:
    """The armed slap fires on a SLAP! screen, never once the window's decision is in
    the same lines (that slap would be a false one)."""
    import importlib.util
    from pathlib import Path

    here = Path(party.__file__).parent / "guest"
    import sys

    sys.path.insert(0, str(here))
    try:
        spec = importlib.util.spec_from_file_location("party_step", here / "party_step.py")
        assert spec is not None and spec.loader is not None
        step = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(step)
    finally:
        sys.path.remove(str(here))
    slap_screen = 'INFO Seat 1 screen {"turn":"SLAP!"}'
    assert step.window_open(["INFO lobby: row 1", slap_screen])
    assert not step.window_open([slap_screen, "INFO slap: seat 4 slapped first in 1013 ms"])
    assert step.window_open(["INFO slap: seat 4 slapped first in 90 ms", slap_screen])
    assert not step.window_open(["INFO Seat 1 screen {\"turn\":\"SEAT 2\"}"])
