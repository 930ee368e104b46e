"""The TV's notices (device/common/notices.py): a list of (text, until_ns) drawn with one join."""

from __future__ import annotations

from device.common.notices import SEPARATOR, Notice, Notices

S = 1_000_000_000


def test_notices_join_in_order_and_one_text_is_one_notice() -> None:
    """Notices show in the order they came, a first one before them; showing a text again
    keeps one copy in its place; an empty text is not shown; dropping takes one back."""
    n = Notices()
    n.show("Games are not saved: /var/lib/partytable is full")
    n.show("Seat 4's button is not in this game (2 seats play)", until_ns=20 * S)
    n.show("")
    n.show("Restored: SLAP = go on, BACK = lobby (5 s)", first=True)
    n.show("Games are not saved: /var/lib/partytable is full")
    assert n.text() == SEPARATOR.join([
        "Restored: SLAP = go on, BACK = lobby (5 s)",
        "Games are not saved: /var/lib/partytable is full",
        "Seat 4's button is not in this game (2 seats play)"])
    n.drop("Restored: SLAP = go on, BACK = lobby (5 s)")
    n.drop("never shown")
    assert n.text().startswith("Games are not saved") and "Restored" not in n
    assert "Seat 4's button is not in this game (2 seats play)" in n


def test_a_timed_notice_goes_at_its_end_and_a_repeat_extends_it() -> None:
    """A notice until 20 s is live before and gone at 20 s (also before expire() runs);
    shown again until 25 s, the first one's end no longer removes it."""
    n = Notices()
    n.show("x", until_ns=20 * S)
    assert n.text(19 * S) == "x" and n.text(20 * S) == ""
    n.show("x", until_ns=25 * S)
    n.expire(20 * S)
    assert n.items == [Notice("x", 25 * S)]
    n.expire(25 * S)
    assert n.items == [] and n.text() == ""


def test_lobby_lines_go_when_a_game_starts_and_the_others_stay() -> None:
    """A game's start drops the lobby's lines (a damaged lobby.json, the demo's hint), not a
    notice that runs on its own; a text shown both ways is no longer a lobby line."""
    n = Notices()
    n.show("lobby.json: bad 'kinds'; using defaults", lobby=True)
    n.show("Games are not saved: ... is full")
    n.show("both", lobby=True)
    n.show("both")
    n.game_starts()
    assert n.text() == SEPARATOR.join(["Games are not saved: ... is full", "both"])
