"""The restore offer (device/restore_offer.py): the whole seconds left on the TV, one loop
timer per second, the choices the console was started with given back once."""

from __future__ import annotations

from device.lobby import LobbyChoices
from device.notices import Notices
from device.restore_offer import RESUMED, RestoreOffer
from device.timers import Timers

MS = 1_000_000
S = 1_000_000_000


def run(timers: Timers, until_ns: int) -> list[int]:
    """Run ``timers`` deadline by deadline up to ``until_ns``, as the loop does; returns
    the deadlines it woke at."""
    woke: list[int] = []
    for _ in range(100):  # a step cap: a timer that re-arms at its own time cannot loop
        at = timers.next_ns()
        if at is None or at > until_ns:
            break
        timers.run_due(at)
        woke.append(at)
    return woke


def test_a_wait_of_2_5_s_shows_3_2_1_at_the_whole_seconds_before_its_end() -> None:
    """2.5 s left shows "3 s" (rounded up), then "2 s" when 2 s are left and "1 s" at
    1 s; the time is up at 2.5 s and called once; the notice stands first on the banner."""
    timers, notices = Timers(), Notices()
    notices.show("Games are not saved: ... is full")
    ups: list[int] = []
    offer = RestoreOffer(timers, notices, ups.append)
    offer.offer(10 * S, 2_500 * MS, (LobbyChoices(), 7))
    shown = [notices.text()]
    assert shown[0] == f"{RESUMED} (3 s)  ·  Games are not saved: ... is full"
    for at in (10_500 * MS, 11_500 * MS):
        assert run(timers, at) == [at]
        shown.append(notices.text().split("  ·  ")[0])
    assert shown[1:] == [f"{RESUMED} (2 s)", f"{RESUMED} (1 s)"]
    assert run(timers, 20 * S) == [12_500 * MS] and ups == [12_500 * MS]


def test_ending_the_offer_stops_it_and_gives_the_started_with_choices_once() -> None:
    """Answered after a second: the notice goes, no timer of it is left (the time is never
    up), and the started-with choices and seed come back once; ending again is harmless."""
    timers, notices = Timers(), Notices()
    ups: list[int] = []
    offer = RestoreOffer(timers, notices, ups.append)
    asked = (LobbyChoices(game="riiing", kinds=("human", "human", "computer")), 12)
    offer.offer(0, 5 * S, asked)
    run(timers, 1 * S)
    assert offer.held and "(4 s)" in notices.text()
    assert offer.end() == asked
    assert not offer.held and notices.text() == "" and len(timers) == 0
    assert offer.end() is None
    assert run(timers, 10 * S) == [] and ups == []
