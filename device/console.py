"""The console: one object that owns all game state and reacts to the device's events.

Game flow (architecture "Game flow"): lobby -> wake-up race (Riiing!, RI-2.3) -> play ->
game over -> lobby.  The loop (:meth:`Console.run`) blocks on the event queue until the
next timer (bot move, slap settle, slap timeout, animation frame); it never spins and
never sleeps.  Every input — a slap button's ``Press``, a handheld's ``KeyPress``, a
computer player's decision — ends as a text action given to the engine's checked
``apply``; an action the engine refuses is shown on that seat's hand screen and the game
goes on.

Times are CLOCK_MONOTONIC nanoseconds from the injected clock (``clock.now_ns()``).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from device.arbiter import SlapArbiter, SlapDecision, Verdict
from device.events import EventQueue, Quit, Redraw
from device.handheld import HandUI, Key
from device.journal import ActionRecord, DecisionRecord, Journal, JournalHeader, write_atomic
from device.lobby import GAME_OPTIONS, Lobby, LobbyChoices
from device.narrate import narrate
from device.render.model import SeatBadge, TableModel
from device.words import seat_name
from drivers.clock import Clock
from drivers.keys import KeyPress
from drivers.slap import Press, Release
from engine import get_game
from engine.core import Bot, EngineError, Game, Seat

log = logging.getLogger("partytable")

MS = 1_000_000
S = 1_000_000_000
SLAP_SHOWN_NS = 4 * S
"""How long the slap winner's reaction time stays large on the table."""
KEY_NAMES = {"left": Key.LEFT, "right": Key.RIGHT, "select": Key.SELECT, "back": Key.BACK}


@dataclass(frozen=True, slots=True)
class Timing:
    """The console's timing knobs (ns unless named otherwise).

    ``bot_move_ns``: how long a computer player waits before a move, so people can follow
    (architecture "Modes": about a second); ``slap_mean_ms``/``slap_sd_ms``: computer
    players' slap reaction times (issue: about 300 ms, so a quick human wins);
    ``wakeup_ns``: the wake-up race's limit (10 s, RI-2.3); ``gameover_ns``: how long the
    results stay before the lobby returns (0: stay until a key)."""

    bot_move_ns: int = 1 * S
    slap_mean_ms: float = 300.0
    slap_sd_ms: float = 60.0
    wakeup_ns: int = 10 * S
    gameover_ns: int = 0
    settle_ns: int = 5 * MS


class Presenter(Protocol):
    """Where frames go: the table scene and hand screens drawn, then one flip.

    ``present(model, hands, now_ns, force)`` draws what changed and returns the
    CLOCK_MONOTONIC ns just after the flip, or ``None`` if nothing was drawn;
    ``next_frame_ns(now_ns)`` is the next animation deadline (``None`` when still)."""

    def present(
        self, model: TableModel, hands: Sequence[HandUI], now_ns: int, force: bool
    ) -> int | None:
        """Draw and flip; see the class docstring."""

    def next_frame_ns(self, now_ns: int) -> int | None:
        """The next animation frame's deadline, or ``None``."""

    @property
    def unplugged(self) -> set[int]:
        """Seats whose handheld display failed on its last frame."""


@dataclass
class SlapRecord:
    """One decided slap: ``seat``, reaction ``ms`` (t - t0), whether a seeded tie-break
    decided it, and which race (``"wakeup"`` or ``"riiing"``)."""

    seat: Seat
    ms: float
    tie: bool
    race: str

    def to_json(self) -> dict[str, Any]:
        """JSON object for ``summary.json``."""
        return {"seat": self.seat, "reaction_ms": round(self.ms, 1), "tie": self.tie,
                "race": self.race}


@dataclass
class GameRecord:
    """What a finished game leaves: seed, seats, winner, actions, slaps, rounds/scores."""

    game: str
    seed: int
    kinds: tuple[str, ...]
    options: dict[str, Any]
    first: int = 0
    actions: list[str] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    slaps: list[SlapRecord] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    winner: Seat | None = None
    rounds: int | None = None
    scores: list[int] | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``summary.json`` object."""
        return {
            "game": self.game,
            "seed": self.seed,
            "seats": [{"seat": i, "kind": k} for i, k in enumerate(self.kinds)],
            "options": self.options,
            "first": self.first,
            "winner": self.winner,
            "actions": len(self.actions),
            "log": list(self.log),
            "slaps": [s.to_json() for s in self.slaps],
            "refused": self.refused,
            "rounds": self.rounds,
            "scores": self.scores,
        }


class Console:
    """The application object: owns the lobby, the engine position, the arbiter and the
    per-seat handheld UIs; fed events by :meth:`handle`, woken by timers.

    ``game_seed``: the seed of the next game (each later game adds 1); ``state_dir``: where
    the journal and the lobby's last choices live (``None``: nowhere);
    ``on_game_over(record)`` is called once per finished game (headless stops there).
    """

    def __init__(
        self,
        *,
        clock: Clock,
        queue: EventQueue,
        presenter: Presenter,
        choices: LobbyChoices,
        game_seed: int,
        timing: Timing | None = None,
        state_dir: Path | None = None,
        on_game_over: Callable[[GameRecord], None] | None = None,
        on_action: Callable[[int], None] | None = None,
        keymap: tuple[str, ...] = (),
        skip_lobby: bool = False,
        driver_timers: Sequence[Callable[[int], int | None]] = (),
        notice: str = "",
        resume: bool = False,
    ) -> None:
        from device.timers import Timers

        self.clock = clock
        self.queue = queue
        self.presenter = presenter
        self.timing = timing or Timing()
        self.state_dir = state_dir
        self.on_game_over = on_game_over
        self.on_action = on_action
        self.keymap = keymap
        self.timers = Timers()
        self.driver_timers = list(driver_timers)
        self._driver_deadline: int | None = None
        self.lobby = Lobby(choices)
        self.game_seed = game_seed
        self.running = True
        self.phase = "lobby"
        self.banner = notice  # e.g. "lobby.json: ...; using defaults", until a game starts
        self.last_event = ""
        self.deadline_ns: int | None = None
        self.slap_shown: tuple[int, int] | None = None
        self.results: tuple[str, ...] = ()
        self.headline = ""
        self.game: Game[Any, Any, Any] = get_game(choices.game)
        self.pos: Any = None
        self.bots: dict[Seat, Bot[Any, Any]] = {}
        self.device_seed = device_seed_of(game_seed)
        self.device_rng = random.Random(self.device_seed)
        self.arbiter = self._new_arbiter(len(choices.kinds))
        self.record: GameRecord | None = None
        self.journal: Journal | None = None
        self.hands: list[HandUI] = []
        self._game_timers: list[Any] = []
        self._window_pending = False
        self._force_redraw = True
        self._settle_timer: Any = None
        self._make_hands()
        if resume and self.resume_game(self.clock.now_ns()):
            return
        if skip_lobby:
            self.start_game(self.clock.now_ns())
        else:
            self.enter_lobby(self.clock.now_ns())

    # ---------------------------------------------------------------- the loop
    def run(self) -> None:
        """Serve events until :class:`Quit` (or ``stop()``): block until the next event or
        deadline, handle, fire due timers, draw what changed."""
        self.render(self.clock.now_ns())
        while self.running:
            self.step()

    def step(self) -> None:
        """One turn of the loop: wait for events or the next deadline, handle the events,
        fire due timers, draw what changed.  Tests call it directly."""
        if self._window_pending:
            self.render(self.clock.now_ns())  # the window opens at this frame's flip
        deadline = self.next_deadline_ns()
        now = self.clock.now_ns()
        timeout = None if deadline is None else max(0, deadline - now)
        for event in self.queue.wait(timeout):
            self.handle(event)
            if not self.running:
                return
        now = self.clock.now_ns()
        self._run_driver_timers(now)
        try:
            self.timers.run_due(now)
        except Exception:  # as in handle(): log, show, carry on with the next timer
            log.exception("error in a timer; the game goes on")
            self.banner = "Something went wrong; the game goes on"
        self.render(self.clock.now_ns())

    def _run_driver_timers(self, now_ns: int) -> None:
        # e.g. SlapButtons.settle: posts the release a sub-lockout tap swallowed
        deadlines = [d for fn in self.driver_timers if (d := fn(now_ns)) is not None]
        self._driver_deadline = min(deadlines, default=None)

    def stop(self) -> None:
        """Leave :meth:`run` after the current step."""
        self.running = False

    def next_deadline_ns(self) -> int | None:
        """The earliest of the timers and the next animation frame (``None``: idle)."""
        candidates = [t for t in (self.timers.next_ns(), self._driver_deadline,
                                  self.presenter.next_frame_ns(self.clock.now_ns()))
                      if t is not None]
        return min(candidates) if candidates else None

    # ---------------------------------------------------------------- input
    def handle(self, event: object) -> None:
        """React to one queued event; never raises for bad input (logs one line)."""
        now = self.clock.now_ns()
        try:
            if isinstance(event, Press):
                self._on_press(event, now)
            elif isinstance(event, Release):
                if self.arbiter.release(event.seat, event.t_ns):
                    self._update_banner()
            elif isinstance(event, KeyPress):
                self.on_key(event.seat, event.key, now)
            elif isinstance(event, Quit):
                self.stop()
            elif isinstance(event, Redraw):
                self._force_redraw = True
            else:
                log.warning("ignored event %r", event)
        except EngineError as err:
            log.error("engine refused input %r: %s", event, err)
            self.last_event = str(err)
        except Exception:  # a party console keeps going: log it, show it, carry on
            log.exception("error while handling %r; the game goes on", event)
            self.banner = "Something went wrong; the game goes on"

    def on_key(self, seat: Seat, key: str, now_ns: int) -> None:
        """A handheld key (``"left"``, ``"right"``, ``"select"``, ``"back"``) of ``seat``."""
        k = KEY_NAMES.get(key)
        if k is None or not 0 <= seat < len(self.hands):
            log.warning("seat %s: unknown handheld key %r ignored", seat + 1, key)
            return
        if self.phase == "lobby":
            self._lobby_key(k, now_ns)
        elif self.phase == "gameover":
            if k in (Key.SELECT, Key.BACK):
                self.enter_lobby(now_ns)
        elif self.phase == "play":
            if self.record is not None and self.record.kinds[seat] != "human":
                return
            action = self.hands[seat].key(k)
            if action is not None:
                self.submit(seat, action, now_ns)

    def _lobby_key(self, k: Key, now_ns: int) -> None:
        if k is Key.LEFT:
            self.lobby.move(-1)
        elif k is Key.RIGHT:
            self.lobby.move(1)
        elif self.lobby.change(1 if k is Key.SELECT else -1):
            self.start_game(now_ns)
            return
        if len(self.lobby.choices.kinds) != len(self.hands) or \
                self.lobby.choices.game != self.hands[0].game:
            self._make_hands()
            self._show_hands()

    def _new_arbiter(self, seats: int) -> SlapArbiter:
        return SlapArbiter(seats, self.device_rng, settle_ns=self.timing.settle_ns)

    def _on_press(self, press: Press, now_ns: int) -> None:
        verdict = self.arbiter.press(press, now_ns)
        if self.phase in ("play", "wakeup"):
            log.info("%s slap at %d: %s", seat_name(press.seat), press.t_ns, verdict.reason)
        if verdict is Verdict.FALSE_SLAP and self.phase == "play":
            self._false_slap(press.seat, now_ns)
        self._arm_settle()

    def _update_banner(self) -> None:
        stuck = sorted(self.arbiter.stuck)
        self.banner = " ".join(f"{seat_name(s)} button stuck: check it." for s in stuck)
        if stuck:
            log.warning("%s", self.banner)

    def _arm_settle(self) -> None:
        deadline = self.arbiter.next_deadline_ns()
        if self._settle_timer is not None:
            self._settle_timer.cancel()
            self._settle_timer = None
        if deadline is not None:
            self._settle_timer = self.timers.call_at(deadline, self._decide, "settle")

    def _decide(self, now_ns: int) -> None:
        self._settle_timer = None
        decision = self.arbiter.poll(now_ns)
        self._update_banner()
        if decision is None:
            self._arm_settle()
            return
        if self.phase == "wakeup":
            log.info("wake-up race: %s slapped first", seat_name(decision.seat))
            self._record_slap(decision, "wakeup")
            self.arbiter.window_closed(now_ns)
            self.begin(decision.seat, now_ns)
        elif self.phase == "play":
            self._record_slap(decision, "riiing")
            self.arbiter.window_closed(now_ns)
            self.slap_shown = (decision.seat, round(decision.reaction_ns / MS))
            self.timers.call_at(now_ns + SLAP_SHOWN_NS, self._clear_slap, "slap shown")
            self.submit(None, f"slap {decision.seat}", now_ns,
                        note=f"{decision.reaction_ns / MS:.0f} ms")

    def _clear_slap(self, now_ns: int) -> None:
        self.slap_shown = None

    def _record_slap(self, decision: SlapDecision, race: str) -> None:
        ms = decision.reaction_ns / MS
        if self.record is not None:
            self.record.slaps.append(SlapRecord(decision.seat, ms, decision.tie, race))
        if decision.tie:
            log.info("slap tie broken by the device RNG: seat %d wins", decision.seat + 1)
        if self.journal is not None:
            self.journal.append(DecisionRecord(race, decision.to_json()))

    def _false_slap(self, seat: Seat, now_ns: int) -> None:
        action = f"falseslap {seat}"
        if self.pos is None or self.game.outcome(self.pos) is not None:
            return
        if int(self._option("false_slap_penalty", 0)) <= 0:
            return
        self.submit(None, action, now_ns)

    def _option(self, name: str, default: Any) -> Any:
        if self.pos is None:
            return default
        return self.game.position_json(self.pos).get("options", {}).get(name, default)

    # ---------------------------------------------------------------- flow
    def enter_lobby(self, now_ns: int) -> None:
        """Show the lobby (seats, game, options); the party starts with START."""
        self._cancel_game_timers()
        self.phase = "lobby"
        self.deadline_ns = None
        self.slap_shown = None
        self.pos = None
        self.arbiter.window_closed(now_ns)
        self.last_event = "Choose a game, then START"
        self._show_hands()

    def start_game(self, now_ns: int) -> None:
        """Leave the lobby: save the choices, then run the wake-up race (Riiing!, RI-2.3)
        or open the first round with the chosen seat (Right on Time, RT-2.3)."""
        choices = self.lobby.choices
        if self.state_dir is not None:
            try:
                self.state_dir.mkdir(parents=True, exist_ok=True)
                import json

                write_atomic(self.state_dir / "lobby.json", json.dumps(choices.to_json()))
            except OSError as err:
                log.error("cannot save the lobby choices in %s: %s", self.state_dir, err)
        self._prepare_game()
        humans = {s for s, k in enumerate(choices.kinds) if k == "human"}
        if choices.game == "riiing" and humans:
            self.phase = "wakeup"
            self.last_event = "Who got up earliest? SLAP your button!"
            self.deadline_ns = None
            self.pos = None
            self.arbiter.engine_window_opened(now_ns, eligible=humans)
            self._window_pending = True
            self._game_timer(now_ns + self.timing.wakeup_ns, self._wakeup_timeout, "wakeup")
            self._show_hands()
        else:
            self.begin(choices.first if choices.game != "riiing" else 0, now_ns)

    def _prepare_game(self) -> None:
        """Set up the record, computer players, arbiter and handhelds of the lobby's game."""
        choices = self.lobby.choices
        self.banner = ""
        self.game = get_game(choices.game)
        self._make_hands()  # the game or the seat count may have changed in the lobby
        self.record = GameRecord(choices.game, self.game_seed, choices.kinds,
                                 dict(choices.game_options()))
        self.device_seed = device_seed_of(self.game_seed)
        self.device_rng.seed(self.device_seed)
        self.bots = {}
        for seat, kind in enumerate(choices.kinds):
            if kind == "computer":
                self.bots[seat] = self.game.bots["heuristic"](seat, self.device_rng)
        self.slap_shown = None
        self.results = ()
        self.arbiter = self._new_arbiter(len(choices.kinds))

    def play_from(self, pos: Any, now_ns: int) -> None:
        """Continue playing from ``pos``, a position of the lobby's chosen game with as many
        seats as the lobby (rule tests in notation drive the device this way; the power-cut
        resume will too).  Raises ``ValueError`` when the seat counts differ."""
        seats = int(get_game(self.lobby.choices.game).position_json(pos)["seats"])
        wanted = len(self.lobby.choices.kinds)
        if seats != wanted:
            raise ValueError(f"position has {seats} seats, the lobby {wanted}")
        self._cancel_game_timers()
        self._prepare_game()
        self.phase = "play"
        self.deadline_ns = None
        self.pos = pos
        self._after_action((), now_ns)

    def resume_game(self, now_ns: int) -> bool:
        """After a power cut or crash: continue the unfinished game of the journal in
        ``state_dir`` (architecture "Persistence"): its header gives the game, seats, seed,
        options and seat kinds; its actions are replayed through the checked engine to the
        exact position; a torn last line is cut off.  Returns False (and the lobby opens)
        when there is no journal, its game ended, or it cannot be used (one log line)."""
        path = self.state_dir / "journal.log" if self.state_dir is not None else None
        if path is None or not path.exists():
            return False
        try:
            contents = Journal.read(path)
            if any(isinstance(r, DecisionRecord) and r.kind == "gameover"
                   for r in contents.records):
                return False
            h = contents.header
            game = get_game(h.game)
            pos = game.new(h.seats, h.seed, dict(h.options), h.first)
            actions = [r.action for r in contents.records if isinstance(r, ActionRecord)]
            for text in actions:
                pos, _ = game.apply(pos, game.parse_action(text))
            if game.outcome(pos) is not None or len(h.seat_kinds) != h.seats:
                return False
            journal, _ = Journal.resume(path)
        except (OSError, ValueError) as err:  # JournalError and EngineError are ValueErrors
            log.error("the last game cannot be resumed (%s); opening the lobby", err)
            return False
        choices = LobbyChoices(game=h.game, kinds=tuple(h.seat_kinds), first=h.first)
        offered = {o.name: o.values for o in GAME_OPTIONS[h.game]}
        for name, value in h.options.items():
            if not isinstance(value, str) and value in offered.get(name, ()):
                choices = choices.with_option(name, value)
        self.lobby.choices = choices
        self.game_seed = h.seed
        self.play_from(pos, now_ns)
        assert self.record is not None
        self.record.options = dict(h.options)
        self.record.first = h.first
        self.record.actions = actions
        self.record.log = [f"(resumed): {a}" for a in actions]
        for r in contents.records:
            if isinstance(r, DecisionRecord) and r.kind in ("riiing", "wakeup"):
                self.record.slaps.append(SlapRecord(
                    int(r.data["seat"]), int(r.data["reaction_ns"]) / MS,
                    bool(r.data.get("tie")), r.kind))
        self.journal = journal
        self.banner = "Game resumed where it stopped"
        self.timers.call_at(now_ns + 8 * S, self._clear_banner, "resumed notice")
        if contents.problem:
            log.warning("journal: %s", contents.problem)
        log.info("resumed %s after %d actions", h.game, len(actions))
        return True

    def _clear_banner(self, now_ns: int) -> None:
        if self.banner == "Game resumed where it stopped":
            self.banner = ""

    def abandon(self, now_ns: int) -> None:
        """End the game being played without a winner and return to the lobby; the journal
        records it, so it is not resumed later."""
        if self.phase not in ("play", "wakeup"):
            return
        if self.journal is not None:
            try:
                self.journal.append(DecisionRecord("gameover", {"winner": None,
                                                               "abandoned": True}))
            except OSError as err:
                log.error("journal append failed (%s)", err)
            self.journal.close()
            self.journal = None
        log.info("game abandoned; back to the lobby")
        self.enter_lobby(now_ns)

    def _wakeup_timeout(self, now_ns: int) -> None:
        if self.phase == "wakeup":
            self.arbiter.window_closed(now_ns)
            self.last_event = "Nobody slapped: Seat 1 starts"
            self.begin(0, now_ns)

    def begin(self, first: Seat, now_ns: int) -> None:
        """Deal a new game with ``first`` to move and start playing."""
        assert self.record is not None
        self._cancel_game_timers()
        self.phase = "play"
        self.deadline_ns = None
        self.record.first = first
        self.pos = self.game.new(len(self.record.kinds), self.game_seed,
                                 self.record.options, first)
        self._open_journal()
        if not self.last_event.startswith("Nobody"):
            self.last_event = f"{seat_name(first)} starts"
        self._after_action((), now_ns)

    def _open_journal(self) -> None:
        if self.state_dir is None or self.record is None:
            return
        header = JournalHeader(
            game=self.record.game, seats=len(self.record.kinds), seed=self.record.seed,
            options=self.record.options, first=self.record.first,
            device_seed=self.device_seed, seat_kinds=self.record.kinds)
        try:
            self.state_dir.mkdir(parents=True, exist_ok=True)
            self.journal = Journal.create(self.state_dir / "journal.log", header)
        except OSError as err:
            self.journal = None
            log.error("journal not written (%s): the game goes on without it", err)

    def submit(self, seat: Seat | None, text: str, now_ns: int, note: str = "") -> bool:
        """Apply action ``text`` for ``seat`` (``None``: the device itself).  An action the
        engine refuses is shown on that seat's hand screen; returns whether it applied."""
        if self.pos is None or self.record is None:
            return False
        try:
            action = self.game.parse_action(text)
            pos, events = self.game.apply(self.pos, action)
        except EngineError as err:
            self.record.refused.append(f"{text}: {err}")
            log.warning("refused %r: %s", text, err)
            if seat is not None and 0 <= seat < len(self.hands):
                self.hands[seat].notice(_short(err))
            return False
        self.pos = pos
        self.record.actions.append(text)
        self.record.log.append(f"{'device' if seat is None else f'seat {seat}'}: {text}"
                               + (f" ({note})" if note else ""))
        if self.journal is not None:
            try:
                self.journal.append(ActionRecord(text))
            except OSError as err:
                log.error("journal append failed (%s): the game goes on", err)
                self.journal = None
        log.info("%s: %s%s", "device" if seat is None else seat_name(seat), text,
                 f" ({note})" if note else "")
        self._after_action(events, now_ns)
        return True

    def _after_action(self, events: Sequence[Any], now_ns: int) -> None:
        assert self.record is not None
        self._cancel_game_timers()
        line = narrate(self.record.game, events)
        if line:
            self.last_event = line
            log.info("table: %s", line)
        if self.slap_shown is not None and any(e.kind == "slap" for e in events):
            seat, ms = self.slap_shown
            self.last_event = f"{seat_name(seat)} slapped in {ms} ms"
        if self.on_action is not None:
            self.on_action(len(self.record.actions))
        outcome = self.game.outcome(self.pos)
        table = self.game.view(self.pos, None)
        if outcome is not None:
            self._game_over(outcome.winner, outcome.reason, now_ns)
            return
        window = getattr(table, "window", None)
        self.deadline_ns = None
        if window is not None:
            # RI-6.1: a reverse appeared; the device window opens at the flip that shows it.
            self.arbiter.window_closed(now_ns)
            self.arbiter.engine_window_opened(now_ns)
            self._window_pending = True
        else:
            self.arbiter.window_closed(now_ns)
            to_move = table.to_move
            if to_move in self.bots:
                # after a round ends (RT-2.4) give people time to read who won it
                pause = 3 if any(e.kind == "round" for e in events) else 1
                self._game_timer(now_ns + pause * self.timing.bot_move_ns, self._bot_move,
                                 "bot")
        self._show_hands()

    def _window_flipped(self, t0_ns: int) -> None:
        """The frame showing the reverse (or the wake-up screen) is on the glass at t0."""
        self._window_pending = False
        self.arbiter.flipped(t0_ns)
        self.deadline_ns = t0_ns + self._window_length_ns()
        if self.phase == "wakeup":
            return
        self._game_timer(self.deadline_ns, self._window_timeout, "slap timeout")
        for seat, bot in self.bots.items():
            t = t0_ns + bot.reaction_ns(self.timing.slap_mean_ms, self.timing.slap_sd_ms)
            if t < self.deadline_ns:
                self._game_timer(t, self._bot_slap(seat), "bot slap")

    def _window_length_ns(self) -> int:
        """How long the open window lasts: the wake-up race's 10 s (RI-2.3) or the
        ``slap_timeout_s`` option (RI-6.4)."""
        if self.phase == "wakeup":
            return self.timing.wakeup_ns
        return int(self._option("slap_timeout_s", 8)) * S

    def _bot_slap(self, seat: Seat) -> Callable[[int], None]:
        def fire(now_ns: int) -> None:
            # A computer player's press enters the same arbiter path as a button edge;
            # its virtual button is released 120 ms later (or it would count as stuck).
            self.queue.post(Press(seat, now_ns))
            self.queue.post(Release(seat, now_ns + 120 * MS))
        return fire

    def _window_timeout(self, now_ns: int) -> None:
        if self.phase != "play":
            return
        if self.arbiter.pending:
            # a press is settling: decide it first; the timeout comes back if nobody won
            self._game_timer(now_ns + self.timing.settle_ns, self._window_timeout, "timeout")
            return
        self.arbiter.window_closed(now_ns)
        self.submit(None, "timeout", now_ns)

    def _bot_move(self, now_ns: int) -> None:
        if self.phase != "play" or self.pos is None:
            return
        table = self.game.view(self.pos, None)
        seat = table.to_move
        bot = self.bots.get(seat)
        if bot is None:
            return
        legal = self.game.legal(self.pos)
        if not legal:
            return
        action = bot.choose(self.game.view(self.pos, seat), legal)
        if not self.submit(seat, str(action), now_ns):
            # a computer player must never stall the table: take the first legal action
            self.submit(seat, str(legal[0]), now_ns)

    def _game_over(self, winner: Seat | None, reason: str, now_ns: int) -> None:
        assert self.record is not None
        self.phase = "gameover"
        self.deadline_ns = None
        self.arbiter.window_closed(now_ns)
        self.record.winner = winner
        data = self.game.position_json(self.pos)
        if "scores" in data:
            self.record.scores = list(data["scores"])
            self.record.rounds = int(data.get("round", 0))
        headline = f"{seat_name(winner)} WINS!" if winner is not None else "Game over"
        lines: list[str] = []  # the table draws the headline itself, from the view
        if self.record.scores is not None:
            pts = "  ".join(f"S{i + 1}: {p}" for i, p in enumerate(self.record.scores))
            lines.append(f"Rounds: {self.record.rounds}   Points: {pts}")
        for i, s in enumerate(self.record.slaps, 1):
            what = "wake-up race" if s.race == "wakeup" else f"RIIING! #{i}"
            lines.append(f"{what}: {seat_name(s.seat)} in {s.ms:.0f} ms")
        self.results = tuple(lines[:11])
        self.headline = headline
        if self.journal is not None:
            self.journal.append(DecisionRecord("gameover", {"winner": winner}))
            self.journal.close()
            self.journal = None
        self.last_event = "Game over"
        log.info("game over: %s (%s)", headline, reason)
        self.game_seed += 1
        self._show_hands()
        if self.timing.gameover_ns > 0:
            self._game_timer(now_ns + self.timing.gameover_ns, self.enter_lobby, "lobby")
        if self.on_game_over is not None:
            self.on_game_over(self.record)

    # ---------------------------------------------------------------- timers
    def _game_timer(self, at_ns: int, fn: Callable[[int], None], name: str) -> None:
        self._game_timers.append(self.timers.call_at(at_ns, fn, name))

    def _cancel_game_timers(self) -> None:
        for t in self._game_timers:
            t.cancel()
        self._game_timers.clear()

    # ---------------------------------------------------------------- output
    def _make_hands(self) -> None:
        game = self.lobby.choices.game if self.phase == "lobby" else self.game.name
        self.hands = [HandUI(s, game) for s in range(len(self.lobby.choices.kinds))]

    def _show_hands(self) -> None:
        for seat, ui in enumerate(self.hands):
            view = self.game.view(self.pos, seat) if self.pos is not None else None
            message = ""
            if self.phase == "gameover":
                message = self.headline
            elif self.phase == "wakeup":
                kinds = self.lobby.choices.kinds
                message = "SLAP to start!" if kinds[seat] == "human" else "computer"
            ui.show(self.phase, view, message)

    def model(self, now_ns: int) -> TableModel:
        """The table display's model at ``now_ns`` (public information only)."""
        kinds = self.record.kinds if self.record and self.phase != "lobby" \
            else self.lobby.choices.kinds
        unplugged = self.presenter.unplugged
        seats = tuple(SeatBadge(i, seat_name(i), k, connected=i not in unplugged)
                      for i, k in enumerate(kinds))
        notes = [self.banner] if self.banner else []
        notes += [f"{seat_name(s)} handheld unplugged: plug it back in." for s in sorted(unplugged)]
        banner = " ".join(notes)
        view = self.game.view(self.pos, None) if self.pos is not None else None
        lobby = None
        if self.phase == "lobby":
            lobby = self.lobby.model("Any handheld: < > move   SEL next value   BACK previous")
        return TableModel(
            game=self.lobby.choices.game if self.phase == "lobby" else self.game.name,
            phase=self.phase,
            view=view,
            seats=seats,
            last_event=self.last_event,
            deadline_ns=self.deadline_ns,
            slap=self.slap_shown,
            results=self.results,
            banner=banner,
            lobby=lobby,
            keymap=self.keymap,
        )

    def render(self, now_ns: int) -> None:
        """Draw the current model if anything changed or an animation runs; after the flip
        that shows a new RIIING! reverse (or the wake-up screen), open the slap window."""
        if self._window_pending and self.deadline_ns is None:
            # provisional countdown for the first frame; exact from the flip time below
            self.deadline_ns = now_ns + self._window_length_ns()
        model = self.model(now_ns)
        t_flip = self.presenter.present(model, self.hands, now_ns, self._force_redraw)
        self._force_redraw = False
        if self._window_pending:
            if t_flip is None:
                t_flip = self.clock.now_ns()
            self._window_flipped(t_flip)


def device_seed_of(game_seed: int) -> int:
    """The device RNG's seed for a game (ties, computer players; architecture 7), kept
    apart from the position's shuffle seed."""
    return (game_seed ^ 0x5EED5EED) & 0xFFFFFFFF


def _short(err: EngineError) -> str:
    """A refusal cut to one hand-screen line (about 21 characters)."""
    text = err.message
    return ("No: " + text)[:21]
