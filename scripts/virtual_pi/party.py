"""The virtual Pi's party: a whole Riiing! game played from the host through the kernel's
simulated buses, by reading the console's screens from its journal as a person reads the OLEDs.

The console runs ``guest/scenario.toml`` (two wired seats on gpio-sim lines with their OLEDs on
i2c-stub, a serial handheld on the USB gadget, a computer seat) with ``-v``: every new hand
screen is a ``Seat N screen {json}`` line (``device.hands.seats.screen_json``), every lobby
key a ``lobby: row ...`` line, every action ``Seat N: <action>``.  :class:`Party` plays each
person's seat the way a person does: in the lobby it walks the rows to START and selects it;
in the wake-up race it slaps; on its turn it moves the cursor right until the tile under it
is playable (the bar under it), then selects (and selects a picker's first choice); in a
RIIING! window ("SLAP!" on the screens) it slaps with two or three seats at a few
milliseconds apart, in turn.  Once per game it slaps outside a window (a false slap), once
it slaps with a contact that bounces (the pull toggled five times within 2 ms), and three
times it pulls the serial handheld's cable and plugs it back mid-game (:mod:`.usb`).  Each
step is one agent call of ``guest/party_step.py``, which presses and then waits for the
console's next line.

:func:`rules_check` compares the game database with what the console said: the finished
game's actions replayed by the engine end in its outcome, and the actions the journal named
are the database's, in order.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import usb

if TYPE_CHECKING:
    from scripts.appliance.vm import Machine

TOOLS = "/usr/local/lib/partytable-vpi"
SHOWN = re.compile(r"TV: Seat \d+'s slap \(\d+ ms\) shown at flip (\d+)")
RACE_PRESS = re.compile(r"Seat (\d+) slap at (\d+): (.*)$")
"""A press the console judged (``device.slaps.race``): seat, stamp (ns), the verdict's reason."""
SCREEN = re.compile(r"^(?:INFO )?Seat (\d+) screen (\{.*\})$")
LOBBY = re.compile(r"^(?:INFO )?lobby: row (\d+) (.+?)(?: = (.*))?$")
ACTION = re.compile(r"^(?:INFO )?(Seat \d+|device): (\S.*)$")


@dataclass(frozen=True)
class Seats:
    """The scenario's wiring: ``slap`` (seat index -> gpio-sim line), ``keys`` (seat index
    -> {key name: line}, the wired seats), ``serial`` (the serial seat's index)."""

    slap: dict[int, int]
    keys: dict[int, dict[str, int]]
    serial: int


SCENARIO = Seats(slap={0: 17, 1: 25, 2: 5},
                 keys={0: {"left": 27, "right": 22, "select": 23, "back": 24},
                       1: {"left": 10, "right": 9, "select": 11, "back": 8}},
                 serial=2)
"""``guest/scenario.toml``'s wiring."""


def press_seq(line: int, hold_ms: float = 80.0) -> str:
    """A press and release of ``line`` (gpiosim.py's sequence syntax).

    >>> press_seq(17)
    '17=press@0 17=release@80ms'
    """
    return f"{line}=press@0 {line}=release@{hold_ms:g}ms"


def bounce_seq(line: int, toggles: int = 5, step_ms: float = 0.18,
               hold_ms: float = 150.0) -> str:
    """A press whose contact bounces: ``toggles`` press/release pairs ``step_ms`` apart
    (within 2 ms for the defaults), then held down ``hold_ms`` and released.

    >>> bounce_seq(25, toggles=2, step_ms=0.3)
    '25=press@0ms 25=release@0.3ms 25=press@0.6ms 25=release@0.9ms 25=press@1.2ms 25=release@150ms'
    """
    steps = []
    t = 0.0
    for _ in range(toggles):
        steps += [f"{line}=press@{t:g}ms", f"{line}=release@{t + step_ms:g}ms"]
        t += 2 * step_ms
    steps += [f"{line}=press@{t:g}ms", f"{line}=release@{hold_ms:g}ms"]
    return " ".join(steps)


def slap_seq(lines: Sequence[int], gap_ms: float, hold_ms: float = 150.0) -> str:
    """``lines`` pressed in that order ``gap_ms`` apart, all released after ``hold_ms``.

    >>> slap_seq([17, 25], 3)
    '17=press@0ms 25=press@3ms 17=release@150ms 25=release@150ms'
    """
    downs = [f"{line}=press@{i * gap_ms:g}ms" for i, line in enumerate(lines)]
    ups = [f"{line}=release@{hold_ms:g}ms" for line in lines]
    return " ".join(downs + ups)


def choose_key(screen: dict[str, Any]) -> str | None:
    """The key a person presses on their turn, from what the screen shows: SELECT on a
    picker or when the tile under the cursor is playable (or a composed action waits to be
    confirmed: no cursor), else RIGHT; ``None`` when it is not their turn.

    >>> choose_key({"my_turn": True, "picker": None, "cursor": 0,
    ...             "tiles": [{"playable": False}, {"playable": True}]})
    'right'
    >>> choose_key({"my_turn": True, "picker": None, "cursor": 1,
    ...             "tiles": [{"playable": False}, {"playable": True}]})
    'select'
    """
    if not screen.get("my_turn"):
        return None
    if screen.get("picker") is not None:
        return "select"
    tiles = screen.get("tiles") or []
    cursor = screen.get("cursor")
    if cursor is None or not tiles:
        return "select"
    return "select" if tiles[cursor].get("playable") else "right"


@dataclass
class Tally:
    """What the party did: keys pressed per seat, windows the people slapped into, the false
    slap, the bouncing press, the cable pulls, the actions the journal named."""

    keys: dict[int, int] = field(default_factory=dict)
    windows: int = 0
    false_slap: bool = False
    false_slap_noticed: bool = False
    pulls: int = 0
    wakeup: bool = False
    wakeup_line: str = ""
    race_presses: list[tuple[int, int, str]] = field(default_factory=list)
    """The wake-up race's presses as the console judged them: ``(seat, t_ns, reason)``
    (1-based seat, the press's stamp), from its ``Seat N slap at T: reason`` lines."""
    false_slaps: int = 0
    winner: str = ""
    actions: list[str] = field(default_factory=list)
    slap_lines: list[str] = field(default_factory=list)
    started: bool = False
    over: bool = False
    press_to_tv_ms: list[float] = field(default_factory=list)
    """Per decided slap: the first press's pull write to the flip that showed the winner
    (guest CLOCK_MONOTONIC; the console's ``TV: ... shown at flip`` line)."""


class Party:
    """One game played through the VM (module docstring); ``machine`` the running virtual
    Pi, ``say`` the progress log, ``seats`` the wiring."""

    def __init__(self, machine: Machine, say: Callable[[str], None],
                 seats: Seats = SCENARIO) -> None:
        self.m = machine
        self.say = say
        self.seats = seats
        self.cursor: str | None = None
        self.screens: dict[int, dict[str, Any]] = {}
        self.lobby_row = ""
        self.tally = Tally()
        self.on_moment: Callable[[str], None] = lambda name: None
        """Called once with ``"lobby"``, ``"window"`` and ``"gameover"`` when the screens
        first show each (the harness takes a screendump of the TV)."""
        self._moments: set[str] = set()
        self._press_ns: int | None = None
        self._windows_armed = 0
        self._race_open = False
        """The console logged the flip that opens a race (``TV: a slap window opens``)."""

    def moment(self, name: str) -> None:
        """Tell :attr:`on_moment` about ``name`` the first time it happens."""
        if name not in self._moments:
            self._moments.add(name)
            self.on_moment(name)

    def window_slap(self) -> str:
        """The slap the people make when a window opens: every person's button, ``gap`` ms
        apart (0.2, 1, 5, 20 in turn), in seat order and reversed in turn."""
        self._windows_armed += 1
        order = [self.seats.slap[s] for s in self.people()]
        if self._windows_armed % 2:
            order.reverse()
        return slap_seq(order, (0.2, 1.0, 5.0, 20.0)[self._windows_armed % 4])

    def step(self, do: Sequence[Sequence[object]] = (), wait_s: float = 1.5) -> list[str]:
        """Play ``do`` in the guest and read the console's lines after it
        (``guest/party_step.py``, armed with :meth:`window_slap` once the game started);
        the new lines.  Raises ``RuntimeError`` naming the failure."""
        armed = self.window_slap() if self.tally.started and self.tally.wakeup_line else None
        request = json.dumps({"after": self.cursor, "do": [list(d) for d in do],
                              "wait_s": wait_s, "on_window": armed})
        reply = self.m.call(["python3", f"{TOOLS}/party_step.py", request], timeout_s=60)
        if reply.rc != 0:
            raise RuntimeError(f"party_step: exit {reply.rc}: {reply.err.strip()[-200:]}")
        answer = json.loads(reply.out.strip().splitlines()[-1])
        fired = answer.get("window_writes") or []
        if fired:
            self.tally.windows += 1
            self._press_ns = min(int(w[2]) for w in fired if w[1] == "pull-down")
        self.cursor = answer["cursor"]
        lines: list[str] = answer["lines"]
        for line in lines:
            self._read(line)
        return lines

    def _read(self, line: str) -> None:
        if "False slap" in line and self.tally.started:
            self.tally.false_slap_noticed = True
        m = SCREEN.match(line)
        if m:
            self.screens[int(m[1]) - 1] = json.loads(m[2])
            return
        m = LOBBY.match(line)
        if m:
            self.lobby_row = m[2]
            return
        m = ACTION.match(line)
        if m and self.tally.started:
            self.tally.actions.append(f"{m[1]}: {m[2]}")
        if "TV: a slap window opens" in line:
            self._race_open = True
        if not self.tally.started:
            return
        shown = SHOWN.search(line)
        if shown and self._press_ns is not None:
            self.tally.press_to_tv_ms.append((int(shown[1]) - self._press_ns) / 1e6)
            self._press_ns = None
        race = RACE_PRESS.search(line)
        if race and not self.tally.wakeup_line:
            self.tally.race_presses.append((int(race[1]), int(race[2]), race[3]))
        if "wake-up race: " in line:
            self.tally.wakeup_line = line.split("wake-up race: ", 1)[1]
        elif "slap: " in line:
            self.tally.slap_lines.append(line)
        if "false slap (RI-6.5)" in line:
            self.tally.false_slaps += 1
        if "game over: " in line:
            self.tally.winner = line.split("game over: ", 1)[1]
            self.tally.over = True
            time.sleep(0.5)  # the frame after the last action is the game-over screen
            self.moment("gameover")  # now: a key pressed on a stale turn would end it

    def key(self, seat: int, name: str) -> list[object]:
        """The step that presses ``name`` on ``seat``'s handheld."""
        self.tally.keys[seat] = self.tally.keys.get(seat, 0) + 1
        if seat == self.seats.serial:
            return ["usb", name]
        return ["seq", press_seq(self.seats.keys[seat][name])]

    def people(self) -> list[int]:
        """The seats a person plays (those with a slap line), in order."""
        return sorted(self.seats.slap)

    def turns(self) -> set[str]:
        """The turn words on the people's screens now."""
        return {str(self.screens.get(s, {}).get("turn", "")) for s in self.people()}

    def play(self, *, limit_s: float = 900.0, pulls: int = 3) -> Tally:
        """Play one game from the lobby to its end (at most ``limit_s``); the tally.
        Raises ``RuntimeError`` when the console stops answering or the time runs out."""
        t_end = time.monotonic() + limit_s
        self.step(wait_s=0.0)
        quiet_since = time.monotonic()
        seen = len(self.tally.actions)
        while time.monotonic() < t_end:
            turns = self.turns()
            if len(self.tally.actions) != seen:
                if len(self.tally.actions) // 20 != seen // 20:
                    self.say(f"virtual-pi: party: {len(self.tally.actions)} actions, "
                             f"{len(self.tally.slap_lines)} windows decided, "
                             f"{self.tally.pulls} pulls")
                seen, quiet_since = len(self.tally.actions), time.monotonic()
            elif time.monotonic() - quiet_since > 120.0:
                raise RuntimeError(f"no action for 120 s; screens say {sorted(turns)}")
            if self.tally.over:
                return self.tally
            if not self.tally.started and "WAKE UP!" in turns:
                self.tally.started = True
            if "WAKE UP!" in turns and not self.tally.wakeup and not self._race_open:
                self.step(wait_s=1.0)  # the race starts at the flip that shows it
                continue
            if "WAKE UP!" in turns and not self.tally.wakeup:
                # the wake-up race: seat 2's contact bounces, seat 1 comes 2 ms later;
                # seat 2's first edge is the earliest, so seat 2 starts
                self.tally.wakeup = True
                b, a = self.seats.slap[1], self.seats.slap[0]
                self.step([["seq", f"{bounce_seq(b)} {a}=press@2ms {a}=release@150ms"]],
                          wait_s=4.0)
                continue
            if "WAKE UP!" in turns:
                self.step(wait_s=1.0)
                continue
            if not self.tally.started:
                # the lobby (or its demo game, which a key ends): walk to START on seat 1's
                # keys, then select it
                self.moment("lobby")
                name = "select" if self.lobby_row == "START" else "right"
                self.step([self.key(0, name)])
                continue
            if "SLAP!" in turns:  # the guest slapped when it opened: wait for the decision
                self.moment("window")
                self.step(wait_s=2.0)
                continue
            if self.tally.pulls < pulls and len(self.tally.actions) >= 8 * (self.tally.pulls + 1):
                self.tally.pulls += 1
                usb.unplug(self.m)
                self.step(wait_s=1.5)
                usb.plug(self.m)
                self.step(wait_s=2.0)
                continue
            if not self.tally.false_slap and len(self.tally.actions) >= 4:
                self.tally.false_slap = True
                self.step([["seq", press_seq(self.seats.slap[0], 150.0)]], wait_s=2.0)
                continue
            moves = [(s, choose_key(self.screens.get(s, {}))) for s in self.people()]
            todo = [(s, k) for s, k in moves if k is not None]
            if todo:
                seat, name = todo[0]
                self.step([self.key(seat, name)])
            else:
                self.step(wait_s=2.0)
        raise RuntimeError(f"the game did not end within {limit_s:.0f} s "
                           f"({len(self.tally.actions)} actions)")


def rules_check(history: dict[str, Any], tally: Tally) -> list[str]:
    """What is wrong between the game database (``history --json``) and the party: the
    newest game must be finished, its actions replayed by the engine must end in its
    outcome, and the actions the journal named must be the database's, in order (slaps
    come from the slap path, which the journal names as ``slap:`` lines)."""
    from engine import get_game

    games = history.get("games") or []
    if not games:
        return ["the game database holds no game"]
    game = max(games, key=lambda g: g["id"])
    problems = []
    if game.get("outcome") is None:
        problems.append(f"game {game['id']} is not finished ({len(game['actions'])} actions)")
    engine = get_game(game["game"])
    pos = engine.new(game["seats"], game["seed"], game.get("options") or {},
                     game.get("first") or 0)
    for i, text in enumerate(game["actions"]):
        try:
            pos, _ = engine.apply(pos, engine.parse_action(text))
        except Exception as err:  # one line per problem, whatever the engine raises
            problems.append(f"action {i} {text!r} does not apply: {err}")
            break
    if game.get("outcome") is not None and engine.outcome(pos) is None:
        problems.append("the replayed game is not over")
    said = [a.split(": ", 1)[1] for a in tally.actions]
    said = [a for a in said if not a.startswith("slap")]
    stored = [a for a in game["actions"] if not a.startswith("slap")]
    if said != stored:
        differ = next((i for i, (a, b) in enumerate(zip(said, stored, strict=False)) if a != b),
                      min(len(said), len(stored)))
        problems.append(f"the journal named {len(said)} actions, the database holds "
                        f"{len(stored)}; they differ from action {differ}")
    return problems


def check_wakeup(winner_line: str, presses: Sequence[tuple[int, int, str]],
                 bouncer: int = 2, other: int = 1) -> tuple[list[str], str]:
    """The wake-up race's problems and how it went: ``bouncer``'s contact bounced first,
    ``other`` pressed 2 ms later.  The bouncing press must be judged exactly once; the race
    goes to ``bouncer``, or -- when the kernel dropped its edges and the debounce's wait for
    them outlasted the race's settle time -- to ``other`` with ``bouncer``'s press stamped
    earlier and judged after the decision (docs/hardware-facts.md, "gpio-sim drops edges").
    ``winner_line``: the text after ``wake-up race: ``; ``presses``: :attr:`Tally.race_presses`.

    >>> check_wakeup("Seat 2 slapped first", [(2, 100_000, "first"), (1, 2_100_000, "first")])
    ([], 'won by the bouncing press')
    >>> check_wakeup("Seat 1 slapped first", [(1, 2_100_000, "first"), (2, 100_000, "late")])
    ([], 'the bouncing press was stamped 2.0 ms earlier but judged after the decision')
    >>> check_wakeup("Seat 1 slapped first", [(1, 2100, "a contender")])[0]
    ['the bouncing press of Seat 2 was judged 0 times (1 expected)']
    """
    mine = [(t, why) for seat, t, why in presses if seat == bouncer]
    theirs = [t for seat, t, _ in presses if seat == other]
    if len(mine) != 1:
        return [f"the bouncing press of Seat {bouncer} was judged {len(mine)} times "
                "(1 expected)"], ""
    if winner_line.startswith(f"Seat {bouncer} "):
        return [], "won by the bouncing press"
    if winner_line.startswith(f"Seat {other} ") and theirs and mine[0][0] < theirs[0]:
        return [], (f"the bouncing press was stamped {(theirs[0] - mine[0][0]) / 1e6:.1f} ms "
                    "earlier but judged after the decision")
    return [f"the wake-up race went to {winner_line or 'nobody'}, not Seat {bouncer} whose "
            f"bouncing contact came first (its press: {mine[0][1]})"], ""
