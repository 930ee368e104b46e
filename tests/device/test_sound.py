"""Sound (device/modes/sound.py, scripts/make_sounds.py, device/sounds/, the plugins' cues).

On SDL's ``dummy`` audio driver: which sound plays on which event through whole console
games, a WAV that will not load, the volume; on ``disk`` (in a child process, since SDL
reads the driver when audio starts) that a cue really reaches the output and volume 0
writes nothing; an audio driver that does not exist is one log line and silence.
"""

from __future__ import annotations

import array
import itertools
import logging
import os
import subprocess
import sys
import textwrap
import wave
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame
import pytest

from device.config.loader import check_config, load_config, parse_config
from device.config.schema import DEFAULT_VOLUME, MAX_VOLUME
from device.console import Console, GameRecord, Timing, make_seats
from device.flow.game_flow import CUES
from device.flow.lobby import LobbyChoices
from device.games import PLUGINS, get_plugin
from device.modes.cli import VOLUME, UsageError, build_parser, check_args
from device.modes.present import TablePresenter
from device.modes.sound import RATE, SOUNDS_DIR, SoundPlayer, gain, sound_files
from device.reactor.events import FakeQueue
from drivers.clock import FakeClock
from drivers.hand_display import open_hand_display
from drivers.keys import KeyPress
from drivers.table_display import TableDisplay
from engine.core import Event

ROOT = Path(__file__).resolve().parents[2]
S = 1_000_000_000


def frames(path: Path) -> array.array[int]:
    """The 16-bit samples of a mono WAV."""
    with wave.open(str(path)) as w:
        data = array.array("h", w.readframes(w.getnframes()))
    if sys.byteorder == "big":
        data.byteswap()
    return data


@pytest.fixture
def dummy_audio(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """SDL's dummy audio driver, and the mixer closed again after the test."""
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    assert pygame.mixer.get_init() is None
    yield
    pygame.mixer.quit()


# --------------------------------------------------------------------------- the files


def test_committed_sounds_equal_the_generators_output(tmp_path: Path) -> None:
    """scripts/make_sounds.py, run into a temporary folder, writes exactly the committed
    device/sounds/*.wav (one per cue, nothing else), so they cannot drift from it."""
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_sounds.py"),
                           "--out", str(tmp_path)], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    names = sorted(f"{cue}.wav" for cue in CUES)
    assert sorted(p.name for p in tmp_path.iterdir()) == names
    assert sorted(p.name for p in SOUNDS_DIR.iterdir()) == names
    for name in names:
        assert (tmp_path / name).read_bytes() == (SOUNDS_DIR / name).read_bytes(), name
    assert done.stdout.splitlines()[-1] == \
        f"total: {sum((SOUNDS_DIR / n).stat().st_size for n in names)} bytes"


def zero_crossings_per_s(samples: array.array[int]) -> float:
    """How often the waveform crosses zero, per second (a rough pitch/brightness)."""
    signs = [s > 0 for s in samples if s != 0]
    return sum(a != b for a, b in itertools.pairwise(signs)) * RATE / len(samples)


def test_every_sound_is_short_mono_16_bit_22050_and_they_differ() -> None:
    """Each WAV is 22050 Hz 16-bit mono (the mixer's format), starts and ends silent (no
    click), is loud enough to hear and never clips; the RIIING! is about 0.8 s and the
    fanfare about 1.5 s; all seven together stay small; the bright ring crosses zero far
    more often than the low refusal buzz and the slap's thump."""
    total = 0
    seconds = {}
    crossings = {}
    for cue, path in sound_files().items():
        with wave.open(str(path)) as w:
            assert (w.getframerate(), w.getsampwidth(), w.getnchannels()) == (RATE, 2, 1)
        samples = frames(path)
        assert samples[0] == 0 and samples[-1] == 0, cue
        assert 0.3 * 32767 <= max(abs(s) for s in samples) < 32767, cue
        seconds[cue] = len(samples) / RATE
        crossings[cue] = zero_crossings_per_s(samples)
        total += path.stat().st_size
    assert seconds["ring"] == pytest.approx(0.8, abs=0.05)
    assert seconds["win"] == pytest.approx(1.5, abs=0.05)
    assert max(seconds.values()) == seconds["win"]
    assert min(seconds.values()) == seconds["lay"]
    assert total < 250_000
    assert crossings["ring"] > 3 * crossings["refusal"]
    assert crossings["ring"] > 3 * crossings["slap"]
    assert len({path.read_bytes() for path in sound_files().values()}) == len(CUES)


# --------------------------------------------------------------------------- the player


def test_gain_is_silent_at_0_full_at_10_and_rises() -> None:
    """Volume steps map to gains 0.0 .. 1.0, each louder than the last."""
    gains = [gain(v) for v in range(MAX_VOLUME + 1)]
    assert gains[0] == 0.0 and gains[-1] == 1.0
    assert all(a < b for a, b in itertools.pairwise(gains))


def test_each_cue_plays_its_own_file_at_the_volume(
    dummy_audio: None, caplog: pytest.LogCaptureFixture
) -> None:
    """Every cue plays the sound loaded from ``<cue>.wav`` (the same samples: the mixer
    runs in the files' format) on a channel at the volume's gain, and is logged at INFO
    (what a recording of the output is matched against); a new cue finds a channel even
    while all are busy (the oldest gives way)."""
    import logging

    caplog.set_level(logging.INFO, logger="partytable")
    player = SoundPlayer(7)
    assert pygame.mixer.get_init() is None  # lazily: nothing before the first cue
    try:
        for cue in CUES:
            channel = player.play_channel(cue)
            assert channel is not None
            assert channel.get_sound() is player.sounds[cue]
            assert player.sounds[cue].get_raw() == frames(SOUNDS_DIR / f"{cue}.wav").tobytes()
            assert channel.get_volume() == pytest.approx(gain(7), abs=1 / 128)
        assert pygame.mixer.get_init() == (RATE, -16, 1)
        said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("sound: ")]
        assert said == [f"sound: {cue}" for cue in CUES]
        for _ in range(3 * pygame.mixer.get_num_channels()):
            assert player.play_channel("win") is not None
    finally:
        player.close()
    assert pygame.mixer.get_init() is None


def test_volume_0_never_opens_the_mixer(dummy_audio: None) -> None:
    """At volume 0 no cue opens the audio device, and nothing plays."""
    player = SoundPlayer(0)
    for cue in CUES:
        assert player.play_channel(cue) is None
    assert not player.open()
    assert pygame.mixer.get_init() is None
    player.volume = 4  # the lobby turns it up: the next cue opens the mixer
    try:
        assert player.play_channel("ring") is not None
    finally:
        player.close()


def test_volume_set_at_run_time(dummy_audio: None, caplog: pytest.LogCaptureFixture) -> None:
    """The lobby sets the volume while the console runs: the next cue plays at the new
    gain; 0 stops what is playing and silences the next cues; a bad value is one log
    line (a number out of range takes the nearest step, a non-number changes nothing)."""
    player = SoundPlayer(7)
    try:
        player.play("win")
        player.volume = 3
        channel = player.play_channel("lay")
        assert channel is not None
        assert channel.get_volume() == pytest.approx(gain(3), abs=1 / 128)
        assert pygame.mixer.get_busy()
        player.volume = 0
        assert not pygame.mixer.get_busy()
        assert player.play_channel("ring") is None
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="partytable"):
            assert player.set_volume(14) == 10
            assert player.set_volume("loud") == 10
            assert player.set_volume(float("nan")) == 10
            assert player.set_volume(2.6) == 3
        assert [r.getMessage() for r in caplog.records] == [
            "sound: volume 14 is not a whole step 0-10; 10 is used",
            "sound: volume 'loud' is not a number 0-10; it stays 10",
            "sound: volume nan is not a number 0-10; it stays 10",
            "sound: volume 2.6 is not a whole step 0-10; 3 is used",
        ]
        assert player.volume == 3
    finally:
        player.close()


def test_a_file_that_will_not_load_is_one_line_and_the_others_play(
    dummy_audio: None, tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    """A WAV of garbage bytes and a missing one: one warning each, naming the file; their
    cues are silent (every time, with no more lines), every other cue plays its sound."""
    files = sound_files()
    garbage = tmp_path / "slap.wav"
    garbage.write_bytes(bytes(range(256)) * 8)
    files["slap"] = garbage
    files["draw"] = tmp_path / "gone.wav"
    player = SoundPlayer(7, files)
    try:
        with caplog.at_level(logging.WARNING, logger="partytable"):
            for _ in range(3):
                for cue in CUES:
                    channel = player.play_channel(cue)
                    if cue in ("slap", "draw"):
                        assert channel is None
                    else:
                        assert channel is not None
                        assert channel.get_sound() is player.sounds[cue]
        lines = [r.getMessage() for r in caplog.records]
        assert len(lines) == 2
        assert lines[0].startswith(f"sound: {garbage} will not load (")
        assert lines[0].endswith("); the 'slap' cue stays silent")
        assert lines[1].startswith(f"sound: {tmp_path / 'gone.wav'} will not load (")
        assert sorted(player.sounds) == sorted(set(CUES) - {"slap", "draw"})
    finally:
        player.close()


def test_no_audio_device_is_one_line_and_silence(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    """An audio driver SDL does not have: one warning naming SDL's error, then every cue
    is silent without another line or an exception; the console game goes on."""
    monkeypatch.setenv("SDL_AUDIODRIVER", "nonexistent")
    assert pygame.mixer.get_init() is None
    player = SoundPlayer(7)
    with caplog.at_level(logging.WARNING, logger="partytable"):
        assert not player.open()
        for _ in range(5):
            for cue in CUES:
                assert player.play_channel(cue) is None
        player.play("ring")
    assert [r.getMessage() for r in caplog.records] == [
        "sound: no audio device (SDL_AUDIODRIVER=nonexistent): SDL says "
        "\"Audio target 'nonexistent' not available\"; the console plays silently"]
    assert player.failed == "Audio target 'nonexistent' not available"
    assert pygame.mixer.get_init() is None
    player.close()


def test_an_unknown_cue_is_said_once(dummy_audio: None,
                                     caplog: pytest.LogCaptureFixture) -> None:
    """A cue with no sound (a name the flow does not give) is one line, then silence."""
    player = SoundPlayer(7)
    try:
        with caplog.at_level(logging.WARNING, logger="partytable"):
            assert player.play_channel("fireworks") is None
            assert player.play_channel("fireworks") is None
        assert [r.getMessage() for r in caplog.records] == [
            "sound: no sound for cue 'fireworks' (known: " + ", ".join(CUES) + ")"]
    finally:
        player.close()


# --------------------------------------------------------------------------- disk driver

DISK_CHILD = textwrap.dedent("""
    import sys, time
    import pygame
    from device.modes.sound import SoundPlayer
    volume, cue, stop_at_0 = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "1"
    player = SoundPlayer(volume if not stop_at_0 else 7)
    if stop_at_0:
        assert player.open()
        player.volume = 0
    player.play(cue)
    print("mixer", pygame.mixer.get_init())
    end = time.monotonic() + 10
    time.sleep(0.1)
    while pygame.mixer.get_busy() and time.monotonic() < end:
        time.sleep(0.02)
    time.sleep(0.2)  # a few more buffers of what follows the sound
    player.close()
""")


def run_disk(tmp_path: Path, volume: int, cue: str, stop_at_0: bool = False
             ) -> tuple[str, Path]:
    """Play ``cue`` in a child process on SDL's disk driver; its stdout and the raw file."""
    out = tmp_path / f"{cue}-{volume}-{int(stop_at_0)}.raw"
    env = {**os.environ, "SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": str(out),
           "PYGAME_HIDE_SUPPORT_PROMPT": "1"}
    done = subprocess.run([sys.executable, "-c", DISK_CHILD, str(volume), cue,
                           "1" if stop_at_0 else "0"], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout, out


def test_a_cue_reaches_the_disk_drivers_output_at_its_volume(tmp_path: Path) -> None:
    """On SDL's disk driver the mixed output holds the RIIING! file's samples scaled by
    volume 7's gain (SDL_mixer: sample * volume // 128, volume = int(gain * 128)), and
    silence before and after it."""
    stdout, raw = run_disk(tmp_path, 7, "ring")
    assert "mixer (22050, -16, 1)" in stdout
    out = array.array("h", raw.read_bytes())
    if sys.byteorder == "big":
        out.byteswap()
    level = int(gain(7) * 128)
    want = [int(s * level / 128) for s in frames(SOUNDS_DIR / "ring.wav")]
    start = next(i for i, s in enumerate(out) if s != 0)
    first = next(i for i, s in enumerate(want) if s != 0)
    got = out[start - first: start - first + len(want)]
    assert len(got) == len(want)
    assert max(abs(a - b) for a, b in zip(got, want, strict=True)) <= 1
    assert max(abs(s) for s in got) > 0.3 * 32767 * gain(7)
    assert not any(out[: start - first]) and not any(out[start - first + len(want):])


def test_volume_0_writes_no_sound_to_the_disk_driver(tmp_path: Path) -> None:
    """Volume 0 from the start: the disk driver never opens (no file, no mixer); set to 0
    with the mixer open: the output the driver writes is all silence."""
    stdout, raw = run_disk(tmp_path, 0, "ring")
    assert "mixer None" in stdout
    assert not raw.exists()
    stdout, raw = run_disk(tmp_path, 0, "win", stop_at_0=True)
    assert "mixer (22050, -16, 1)" in stdout
    data = raw.read_bytes()
    assert len(data) > 0 and not any(data)


# --------------------------------------------------------------------------- cues in games


def riiing_events(*events: tuple[str, tuple[str, ...]]) -> tuple[Event, ...]:
    """Events of (kind, cards) for seat 0."""
    return tuple(Event(kind, 0, cards) for kind, cards in events)


def test_riiing_cues() -> None:
    """RI: a card played lays; cards into a hand (draw, take, false slap) draw; a dry
    draw, a flip, a window or a demand make no sound; each cue once per action, in
    order; the wake-up race's draw-then-play under a demand gives both."""
    plugin = get_plugin("riiing")
    assert plugin.cues(riiing_events(("play", ("5C/>",)))) == ("lay",)
    assert plugin.cues(riiing_events(("draw", ("5C/>", "2T/=")))) == ("draw",)
    assert plugin.cues(riiing_events(("draw", ()))) == ()
    assert plugin.cues(riiing_events(("take", ("5C/>",)), ("flip", ("9S/O",)))) == ("draw",)
    assert plugin.cues(riiing_events(("falseslap", ("5C/>",)))) == ("draw",)
    assert plugin.cues(riiing_events(("draw", ("5C/>",)), ("play", ("9S/O",)),
                                     ("draw", ("2T/=",)))) == ("draw", "lay")
    assert plugin.cues(riiing_events(("flip", ("9S/O",)), ("window", ()),
                                     ("demand", ()))) == ()
    assert plugin.cues(riiing_events(("play", ("5C/>",)), ("win", ()))) == ("lay",)


def test_right_on_time_cues() -> None:
    """RT: a lay lays, a draw (own or a Ziehen!'s) or a bonus swap draws, a round won
    chimes, but the round that wins the match leaves it to the flow's fanfare."""
    plugin = get_plugin("right-on-time")
    ev = riiing_events
    assert plugin.cues(ev(("play", ("3",)))) == ("lay",)
    assert plugin.cues(ev(("show", ("3",)), ("draw", ("5",)))) == ("draw",)
    assert plugin.cues(ev(("draw", ()))) == ()
    assert plugin.cues(ev(("play", ("7",)), ("effect_draw", ()), ("draw", ("2",)))) == \
        ("lay", "draw")
    assert plugin.cues(ev(("swap", ("B", "4")))) == ("draw",)
    assert plugin.cues(ev(("play", ("1",)), ("out", ()), ("round", ()), ("shuffle", ()),
                          ("deal", ()))) == ("lay", "round")
    assert plugin.cues(ev(("play", ("1",)), ("out", ()), ("round", ()), ("match", ()))) == \
        ("lay",)


def play_console_game(game: str, seats: int, seed: int,
                      options: tuple[tuple[str, int], ...] = ()
                      ) -> tuple[list[tuple[str, pygame.mixer.Sound | None]], GameRecord,
                                 SoundPlayer]:
    """One all-computer console game on a fake clock with a real :class:`SoundPlayer` on
    the dummy driver; returns every cue with the sound its channel was playing right after
    it, the game's record and the player (still open)."""
    clock = FakeClock(100 * S)
    display = TableDisplay("dummy", (640, 360), clock=clock)
    player = SoundPlayer(7)
    played: list[tuple[str, pygame.mixer.Sound | None]] = []
    records: list[GameRecord] = []

    def cue(name: str) -> None:
        channel = player.play_channel(name)
        played.append((name, None if channel is None else channel.get_sound()))

    def finished(record: GameRecord) -> None:
        records.append(record)
        console.stop()

    try:
        console = Console(
            clock=clock, queue=FakeQueue(clock),
            presenter=TablePresenter(display, motion=False),
            seats=make_seats([open_hand_display(s, "dummy") for s in range(seats)]),
            choices=LobbyChoices(game=game, kinds=("computer",) * seats,
                                 options=((game, options),) if options else ()),
            game_seed=seed, timing=Timing(), on_game_over=finished, skip_lobby=True,
            cue=cue)
        console.run()
    finally:
        display.close()
    return played, records[0], player


def expected_cues(record: GameRecord) -> list[str]:
    """The cues the game's actions call for, from replaying its journaled actions: a slap
    before the slap's action, the plugin's cues for each action's events, a ring where
    a window opened after it, the fanfare when it won the game."""
    plugin = PLUGINS[record.game]
    engine = plugin.engine
    pos = engine.new(len(record.kinds), record.seed, record.options, record.first)
    cues: list[str] = ["ring"] if plugin.window_open(pos) else []
    for text in record.actions:
        pos, events = engine.apply(pos, engine.parse_action(text))
        if any(e.kind == "slap" for e in events):
            cues.append("slap")
        cues.extend(plugin.cues(events))
        outcome = engine.outcome(pos)
        if outcome is not None:
            if outcome.winner is not None:
                cues.append("win")
        elif plugin.window_open(pos):
            cues.append("ring")
    return cues


@pytest.mark.parametrize(("game", "seats", "seed", "options"), [
    ("riiing", 4, 3, (("hand_size", 10),)),  # two RIIING! windows in this one
    ("right-on-time", 3, 2, (("target_points", 2),)),
], ids=["riiing", "right-on-time"])
def test_a_whole_console_game_plays_the_sound_of_each_event(
    dummy_audio: None, game: str, seats: int, seed: int,
    options: tuple[tuple[str, int], ...],
) -> None:
    """Through a whole all-computer game on the dummy driver, the cues played are exactly
    what the game's events call for, in order (a ring for every window opened, a slap for
    every window won, a lay per card laid, ...), each on a channel playing that cue's own
    sound, with one fanfare at the very end; Riiing! rings and never chimes a round, Right
    on Time chimes the rounds before the last one and never rings."""
    played, record, player = play_console_game(game, seats, seed, options)
    try:
        names = [name for name, _ in played]
        assert names == expected_cues(record)
        for name, sound in played:
            assert sound is player.sounds[name], name
        assert names.count("win") == 1 and names[-1] == "win"
        assert {"lay", "draw"} <= set(names)
        if game == "riiing":
            assert names.count("ring") >= 1 and names.count("slap") >= 1
            assert "round" not in names
        else:
            assert "ring" not in names and "slap" not in names
            assert names.count("round") == sum(record.extra["scores"]) - 1
    finally:
        player.close()


@contextmanager
def cued_console(game: str) -> Iterator[tuple[Console, FakeClock, FakeQueue, list[str]]]:
    """A started two-person console of ``game`` whose cues play on a real
    :class:`SoundPlayer` (each cue's channel holds that cue's sound); yields the console,
    its clock and queue, and the names of the cues played, in order."""
    clock = FakeClock(100 * S)
    display = TableDisplay("dummy", (640, 360), clock=clock)
    player = SoundPlayer(7)
    played: list[str] = []

    def cue(name: str) -> None:
        channel = player.play_channel(name)
        assert channel is not None and channel.get_sound() is player.sounds[name]
        played.append(name)

    try:
        queue = FakeQueue(clock)
        console = Console(
            clock=clock, queue=queue, presenter=TablePresenter(display),
            seats=make_seats([open_hand_display(s, "dummy") for s in range(2)]),
            choices=LobbyChoices(game=game, kinds=("human", "human")),
            game_seed=4, timing=Timing(), skip_lobby=True, cue=cue)
        console.start()
        yield console, clock, queue, played
    finally:
        display.close()
        player.close()


def test_a_refused_action_buzzes(dummy_audio: None) -> None:
    """An action the engine refuses (here a card seat 0 does not hold) plays the refusal
    buzz, and the game goes on."""
    with cued_console("right-on-time") as (console, clock, _queue, played):
        assert console.phase == "play"
        held = set(console.plugin.engine.view(console.pos, 0).hand)
        card = next(c for c in "1234567" if c not in held)
        action = console.plugin.engine.parse_action(f"play {card}")
        assert not console.flow.submit(0, action, clock.now_ns())
        assert played == ["refusal"]
        assert console.phase == "play"


def riiing_soap_position() -> object:
    """A 2-seat Riiing! position, seat 0 to move under ``>`` 7 holding 5C/> (illegal,
    RI-4.1) and 9S/O (its only legal card)."""
    return get_plugin("riiing").engine.parse_position({
        "game": "riiing", "seats": 2, "hands": [["5C/>", "9S/O"], ["2T/=", "4A/<"]],
        "draw": ["3T/>", "6S/<", "8C/E"], "discard": ["7A/E"], "to_move": 0, "seed": 42,
        "demand": None, "window": None, "winner": None})


@pytest.mark.parametrize(("game", "keys", "seat"), [
    ("riiing", ("left", "select"), 0),  # 5C/> under '>' 7: an illegal lay
    ("riiing", ("select",), 1),  # seat 2 is not to move
    ("right-on-time", ("select",), 1),  # seat 2 is not to move: "Not your turn"
], ids=["illegal-lay", "riiing-not-your-turn", "rot-not-your-turn"])
def test_a_key_the_hand_composer_refuses_buzzes(
    dummy_audio: None, game: str, keys: tuple[str, ...], seat: int,
) -> None:
    """A key the seat's hand composer refuses on its own (an illegal lay, SELECT while
    another seat is to move: the reason shows on that hand, nothing reaches the engine)
    plays the refusal buzz once per refused key, like a refusal from the engine; a key
    that only moves the cursor is silent."""
    with cued_console(game) as (console, clock, queue, played):
        if game == "riiing":
            console.play_from(riiing_soap_position(), clock.now_ns())
        assert console.phase == "play"
        played.clear()
        for key in keys:
            queue.post(KeyPress(seat, key, clock.now_ns()))
            console.step()
        screen = console.flow.playing[seat].hand.screen()
        assert screen.alert and screen.prompt
        assert console.record is not None and console.record.actions == []
        assert console.record.refused == []  # the composer refused: the engine saw nothing
        assert played == ["refusal"]
        queue.post(KeyPress(seat, keys[-1], clock.now_ns()))  # the same refusal again
        console.step()
        assert played == ["refusal", "refusal"]
        queue.post(KeyPress(seat, "right", clock.now_ns()))
        console.step()
        assert played == ["refusal", "refusal"]


# --------------------------------------------------------------------------- config, flags


def test_sound_volume_in_the_config() -> None:
    """``[sound] volume``: the bundled config says 7, the default when absent is 7, any
    whole 0..10 is taken, anything else is one warning naming the key and the default 7
    is used (sound never stops the console); an unknown key is still a problem;
    check-config prints it and reads back."""
    bundled = load_config(None)
    assert bundled.sound.volume == DEFAULT_VOLUME == 7
    text = (ROOT / "device" / "config.toml").read_text()
    assert "[sound]\nvolume = 7" in text
    without = text.replace("[sound]\nvolume = 7", "")
    assert parse_config(without, "t").sound.volume == 7
    quiet = text.replace("[sound]\nvolume = 7", "[sound]\nvolume = 0")
    assert parse_config(quiet, "t").sound.volume == 0
    for bad, line in [
        ("volume = 11", "sound.volume: 11 is not a volume 0-10 (0: silent)"),
        ("volume = -1", "sound.volume: -1 is not a volume 0-10 (0: silent)"),
        ("volume = 5.5", "sound.volume: expected a volume 0-10 (0: silent), got the "
                         "number 5.5"),
        ('volume = "loud"', "sound.volume: expected a volume 0-10 (0: silent), got the "
                            "text 'loud'"),
        ("volume = true", "sound.volume: expected a volume 0-10 (0: silent), got true "
                          "(a bool)"),
    ]:
        bad_text = text.replace("volume = 7", bad, 1)
        assert check_config(bad_text) == [], bad
        warned = parse_config(bad_text, "t", log_warnings=False)
        assert warned.sound.volume == 7, bad
        assert warned.warnings == (f"{line}; using the default volume 7",), bad
    assert check_config(text.replace("volume = 7", "volume = 3\nbass = 2", 1)) == [
        "sound.bass: unknown key (known: volume)"]
    assert check_config("sound = 3\n" + without) == [
        "sound: expected a table, got 3"]
    from device.config.loader import format_config

    printed = format_config(parse_config(quiet, "t"))
    assert "[sound]\nvolume = 0  # 0 (silent) to 10\n" in printed
    assert parse_config(printed, "printed").sound.volume == 0


def test_volume_flag() -> None:
    """``--volume 0-10``: absent by default (the simulator then uses 7, agreeing with the
    config's default; hardware mode the config's); outside 0..10 is a one-line error."""
    assert VOLUME == DEFAULT_VOLUME
    parser = build_parser()
    assert parser.parse_args([]).volume is None
    assert parser.parse_args(["--volume", "0"]).volume == 0
    check_args(parser.parse_args(["--volume", "10"]))
    with pytest.raises(UsageError, match="--volume must be 0 to 10"):
        check_args(parser.parse_args(["--volume", "11"]))
