"""Computer players' strengths: chosen per seat in the lobby, played by
the engine's bot of that kind, paced slaps, journaled so a resumed game keeps them."""

from __future__ import annotations

import json
from pathlib import Path

from device.flow.lobby import Lobby, LobbyChoices, load_choices
from device.games import get_plugin
from device.slaps.race import RaceTiming
from device.store.session import BOT_KINDS, GameSession, GameStore


def test_a_seat_row_steps_person_easy_normal_hard() -> None:
    """SELECT on a seat row: person -> computer (easy) -> (normal) -> (hard) -> person;
    BACK the other way; the other seats keep theirs."""
    lobby = Lobby(LobbyChoices(kinds=("human", "computer")))
    row = next(i for i, r in enumerate(lobby.rows()) if r[0] == "kind:0")
    lobby.cursor = row
    shown = []
    for _ in range(4):
        lobby.change(1)
        shown.append(lobby.rows()[row][2])
    assert shown == ["computer (easy)", "computer (normal)", "computer (hard)", "person"]
    lobby.change(-1)
    assert lobby.choices.kinds == ("computer", "computer")
    assert lobby.choices.seat_strengths() == ("hard", "normal")


def test_strengths_round_trip_and_a_persons_strength_is_one_line(tmp_path: Path) -> None:
    """lobby.json keeps the strengths; a strength for a person's seat or an unknown word is
    one line, that seat's strength is "normal", every other choice is kept."""
    path = tmp_path / "lobby.json"
    chosen = LobbyChoices(game="right-on-time", kinds=("human", "computer", "computer"),
                          strengths=("normal", "hard", "easy"), first=2)
    path.write_text(json.dumps(chosen.to_json()))
    assert load_choices(path) == (chosen, None)
    path.write_text(json.dumps({**chosen.to_json(), "strengths": ["hard", "hard", "wild"]}))
    choices, warning = load_choices(path)
    assert warning is not None and "\n" not in warning and "seat 1 is a person" in warning
    assert choices.seat_strengths() == ("normal", "hard", "normal")
    assert (choices.game, choices.kinds, choices.first) == ("right-on-time", chosen.kinds, 2)


def test_each_strength_plays_its_bot_and_slaps_at_its_pace() -> None:
    """easy = the engine's random bot, normal = heuristic, hard = the engine's "hard" bot
    (heuristic where a game has none); for the same draw an easy player's slap takes
    1.3/0.8 times a hard one's."""
    plugin = get_plugin("riiing")
    kinds = ("computer", "computer", "computer")
    session = GameSession(plugin, kinds, 5, {}, strengths=("easy", "normal", "hard"))
    bots = plugin.engine.bots
    for seat, strength in enumerate(("easy", "normal", "hard")):
        wanted = bots.get(BOT_KINDS[strength], bots["heuristic"])
        assert type(session.bots[seat]) is wanted
    assert type(session.bots[0]) is bots["random"]
    easy = GameSession(plugin, kinds, 5, {}, strengths=("easy",) * 3)
    hard = GameSession(plugin, kinds, 5, {}, strengths=("hard",) * 3)
    timing = RaceTiming()
    slow, fast = easy.computer_reactions(timing), hard.computer_reactions(timing)
    for seat in range(3):
        assert abs(slow[seat] / fast[seat] - 1.3 / 0.8) < 1e-6
        assert fast[seat] >= 0.8 * timing.floor_ms * 1_000_000 - 1


def test_a_resumed_game_keeps_its_strengths(tmp_path: Path) -> None:
    """The strengths are in the game database: a resumed game has the same players."""
    plugin = get_plugin("right-on-time")
    store = GameStore(tmp_path)
    session = GameSession(plugin, ("human", "computer", "computer"), 8, {}, store=store,
                          strengths=("normal", "hard", "easy"))
    session.start(0)
    store.close()
    again = GameSession.resume(GameStore(tmp_path))
    assert again is not None and again.strengths == ("normal", "hard", "easy")
    assert type(again.bots[2]) is plugin.engine.bots["random"]
