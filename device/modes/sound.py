"""The console's sound cues through ``pygame.mixer`` (docs/architecture.md "The hardware": the
speaker, HDMI or 3.5 mm): :class:`SoundPlayer` plays ``device/sounds/<cue>.wav`` for each cue the
flow gives (``device.flow.game_flow.CUES``: a RIIING! window opens, a slap wins it, a card is
laid, a card is drawn, an action is refused, a round is won, a game is won).

The WAVs are synthesised by ``scripts/make_sounds.py`` (22050 Hz, 16-bit, mono: the format
the mixer is opened in, so nothing is converted at load).  Sound is a courtesy, never a
reason to stop a game: no audio device is one log line and silence, a file that will not
load is one line naming it and that cue silent, and :meth:`SoundPlayer.play` never raises.

What it rests on (pygame-ce 2.5.8 ``src_c/mixer.c``, SDL 2.32, SDL_mixer 2.8; checked here):

- ``pygame.mixer.init`` runs ``SDL_InitSubSystem(SDL_INIT_AUDIO)`` and
  ``Mix_OpenAudioDevice``; either failing raises ``pygame.error`` with SDL's message (an
  unknown ``SDL_AUDIODRIVER``: "Audio target 'x' not available"; no server or card: e.g.
  "Could not setup connection to PulseAudio", the last driver SDL tried).  SDL never falls
  back to its ``dummy`` or ``disk`` driver by itself: those run only when named.  A second
  ``init`` while the mixer is open changes nothing (:func:`pygame.mixer.get_init` tells).
- ``Sound(file=...)`` raises ``FileNotFoundError`` for a missing file and ``pygame.error``
  for one SDL_mixer cannot decode ("Unrecognized audio format", "Couldn't read first 4 bytes
  of audio data"); it needs the mixer open ("mixer not initialized").
- ``Sound.play()`` asks SDL_mixer for a free channel and returns ``None`` when all are busy
  (despite its stub's ``-> Channel``); ``pygame.mixer.find_channel(True)`` takes the oldest
  busy channel instead, so a new cue always sounds.  ``Channel.play`` keeps the channel's
  volume (``Sound.play`` resets it to full), so :meth:`SoundPlayer.play` sets it first.
- ``SDL_AUDIODRIVER=dummy`` mixes into nothing in real time (a channel stays busy for the
  sound's length); ``SDL_AUDIODRIVER=disk`` writes the mixed output, raw in the opened
  format, to ``SDL_DISKAUDIOFILE`` (default ``sdlaudio.raw``) as time passes.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
from collections.abc import Mapping
from pathlib import Path

import pygame

from device.config.schema import DEFAULT_VOLUME, MAX_VOLUME
from drivers.values import is_number

log = logging.getLogger("partytable")

SOUNDS_DIR = Path(__file__).resolve().parents[1] / "sounds"
"""Where the cue WAVs are (package data)."""

RATE = 22050
"""The mixer's (and the WAVs') sample rate, Hz; samples are 16-bit signed, mono."""

BUFFER = 512
"""The mixer's buffer in sample frames: 512 / 22050 Hz = 23 ms from a cue to the speaker
(plus the device's own)."""


def sound_files(folder: Path = SOUNDS_DIR) -> dict[str, Path]:
    """Cue -> its WAV in ``folder`` (``<cue>.wav``), one per ``device.flow.game_flow.CUES``."""
    from device.flow.game_flow import CUES  # here, so the lobby or the flow may import this module

    return {cue: folder / f"{cue}.wav" for cue in CUES}


def gain(volume: int) -> float:
    """The mixer gain (0.0..1.0) of a volume step 0..:data:`MAX_VOLUME`: ``(v / 10) ** 2``,
    so equal steps sound roughly equal (loudness follows amplitude far from linearly: the
    square law spreads the 10 steps over about 40 dB, like an audio taper)."""
    step = max(0, min(MAX_VOLUME, volume))
    return (step / MAX_VOLUME) ** 2


class SoundPlayer:
    """Plays the console's sound cues (see the module docstring).

    ``volume``: 0..:data:`~device.config.loader.MAX_VOLUME` (0: silent, and the mixer is never
    opened); ``files``: cue -> WAV (default :func:`sound_files`).  The constructor does no
    I/O; the mixer opens on :meth:`open` or the first :meth:`play` with a volume above 0,
    once (a failure is not retried), and every sound is loaded then, once.

    Pass :meth:`play` as the console's ``cue``; the lobby changes :attr:`volume` (or calls
    :meth:`set_volume`) at run time."""

    def __init__(self, volume: int = DEFAULT_VOLUME,
                 files: Mapping[str, Path] | None = None) -> None:
        self.files = dict(sound_files() if files is None else files)
        self.sounds: dict[str, pygame.mixer.Sound] = {}
        """Cue -> its loaded sound (a cue whose file would not load is missing)."""
        self.failed: str | None = None
        """Why the mixer did not open (SDL's message), or ``None``."""
        self._volume = DEFAULT_VOLUME
        self._opened = False
        self._owner = False
        self._told: set[str] = set()
        self.volume = volume

    # ---------------------------------------------------------------- volume
    @property
    def volume(self) -> int:
        """The volume step 0..:data:`~device.config.loader.MAX_VOLUME` (0: silent).  Setting it
        takes effect at the next cue; 0 also stops what is playing.  A value that is not a
        whole number 0..10 is one log line: the nearest step is taken (a non-number keeps
        the volume as it was)."""
        return self._volume

    @volume.setter
    def volume(self, value: int) -> None:
        self.set_volume(value)

    def set_volume(self, value: object) -> int:
        """Set :attr:`volume` (see there); returns the volume now in force."""
        if not is_number(value) \
                or not math.isfinite(value):
            log.warning("sound: volume %r is not a number 0-%d; it stays %d",
                        value, MAX_VOLUME, self._volume)
            return self._volume
        step = max(0, min(MAX_VOLUME, round(value)))
        if step != value:
            log.warning("sound: volume %r is not a whole step 0-%d; %d is used",
                        value, MAX_VOLUME, step)
        self._volume = step
        if step == 0 and self.ready:
            with contextlib.suppress(pygame.error):
                pygame.mixer.stop()
        return step

    @property
    def ready(self) -> bool:
        """True once the mixer is open (sounds are loaded or logged as not loading)."""
        return self._opened and self.failed is None

    # ---------------------------------------------------------------- life
    def open(self) -> bool:
        """Open the mixer (:data:`RATE`, 16-bit mono, :data:`BUFFER`; unless it is open
        already) and load every sound; returns :attr:`ready`.  With volume 0 nothing is
        opened (``False``).  No audio device: one warning naming SDL's error,
        :attr:`failed` set, and every later call returns ``False`` at once.  A file that
        will not load: one warning naming it; that cue stays silent, the others play."""
        if self._opened:
            return self.failed is None
        if self._volume == 0:
            return False
        self._opened = True
        try:
            if pygame.mixer.get_init() is None:
                pygame.mixer.init(frequency=RATE, size=-16, channels=1, buffer=BUFFER)
                self._owner = True
        except Exception as err:  # sound must never stop the console
            self.failed = str(err) or type(err).__name__
            driver = os.environ.get("SDL_AUDIODRIVER")
            where = f" (SDL_AUDIODRIVER={driver})" if driver else ""
            log.warning("sound: no audio device%s: SDL says %r; the console plays silently",
                        where, self.failed)
            return False
        for cue, path in self.files.items():
            try:
                self.sounds[cue] = pygame.mixer.Sound(file=str(path))
            except Exception as err:  # a damaged or missing file silences its cue only
                log.warning("sound: %s will not load (%s); the %r cue stays silent",
                            path, err, cue)
        return True

    def play(self, cue: str) -> None:
        """Play ``cue`` (a name in ``device.flow.game_flow.CUES``) at :attr:`volume`: the console's
        ``cue`` callback (:meth:`play_channel` without its result).  Never raises."""
        self.play_channel(cue)

    def play_channel(self, cue: str) -> pygame.mixer.Channel | None:
        """Play ``cue`` at :attr:`volume`; returns the channel it plays on, or ``None``
        when it is silent (volume 0, no audio device, its file did not load, an unknown
        cue: said once).  Each cue played is logged at INFO (``sound: ring``), so a recording
        of the output can be matched against it.  Never raises."""
        if self._volume == 0 or not self.open():
            return None
        sound = self.sounds.get(cue)
        if sound is None:
            if cue not in self.files and cue not in self._told:
                self._told.add(cue)
                log.warning("sound: no sound for cue %r (known: %s)", cue, ", ".join(self.files))
            return None
        try:
            channel = pygame.mixer.find_channel(True)
            if channel is None:
                return None
            channel.set_volume(gain(self._volume))
            channel.play(sound)
            log.info("sound: %s", cue)
        except Exception as err:  # e.g. the mixer was closed under us
            if cue not in self._told:
                self._told.add(cue)
                log.warning("sound: cannot play %r: %s", cue, err)
            return None
        return channel

    def close(self) -> None:
        """Close the mixer if this player opened it (idempotent); a later :meth:`play`
        stays silent."""
        if self._owner:
            self._owner = False
            with contextlib.suppress(pygame.error):
                pygame.mixer.quit()
        self.sounds.clear()
        self._opened = True
        self.failed = self.failed or "closed"
