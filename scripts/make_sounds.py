"""Synthesise the console's seven sound cues into ``device/sounds/<cue>.wav``.

Usage (from the project root)::

    .venv/bin/python scripts/make_sounds.py               # -> device/sounds/
    .venv/bin/python scripts/make_sounds.py --out DIR

Every file is 22050 Hz, 16-bit signed little-endian PCM, mono (the format
``device.modes.sound.SoundPlayer`` opens the mixer in, so SDL_mixer loads them without
converting).  They are made here from sines and seeded noise with nothing but the standard
library (``math``, ``array``, ``wave``): no recording, no licence to track.  The same script
on the same machine writes the same bytes (the noise is a fixed xorshift32 stream, never
the ``random`` module; no timestamps go into a WAV), and
``tests/device/test_sound.py`` runs it into a temporary folder and compares the result
with the committed files.  Never edit the WAVs by hand: change this script, rerun it, and
listen.

The cues (``device.flow.game_flow.CUES``), each about as loud as it needs to be over party chatter
(peak levels in :data:`PEAKS`):

- ``ring`` (0.8 s): a mechanical alarm clock's RIIING!: a hammer striking two small bells
  (G6 and A#6, partials at 1, 2.76 and 5.4 times the fundamental as in a thin bell) 22
  times a second, each strike a click plus the bells' decaying ring;
- ``slap`` (0.2 s): a palm on the table: a kick-drum thump falling from 200 to 55 Hz
  under a short burst of low-passed noise;
- ``lay`` (0.14 s): a card laid on felt: a soft tap of band-passed, low-passed noise
  (about 1.5 kHz) over a faint 220 Hz knock;
- ``draw`` (0.32 s): a card slid off the pile: noise through a band-pass sweeping up from
  700 Hz to 3.5 kHz, swelling and fading;
- ``refusal`` (0.36 s): a low "uh-uh" buzz: two pulses of a soft 110 Hz square wave
  (odd harmonics to the 9th) beating against one at 116.5 Hz;
- ``round`` (0.8 s): a chime: C6, E6, G6 struck 90 ms apart, each a sine with two soft
  harmonics ringing out;
- ``win`` (1.5 s): a brass fanfare in C: G4 C5 E5 G5 (held), E5, then G5 + C6 + E5 held
  with vibrato and a long release.

Exit status 0 (or 2 with one line if the folder cannot be written).
"""

from __future__ import annotations

import argparse
import math
import sys
import wave
from array import array
from collections.abc import Callable, Sequence
from pathlib import Path

RATE = 22050
"""Samples per second."""
ROOT = Path(__file__).resolve().parent.parent
SOUNDS = ROOT / "device" / "sounds"
TAU = 2 * math.pi

PEAKS = {
    "ring": 0.70, "slap": 0.85, "lay": 0.35, "draw": 0.35,
    "refusal": 0.38, "round": 0.55, "win": 0.70,
}
"""Each cue's peak level as a share of full scale (a card laid is meant to be soft)."""

Samples = list[float]


def count(seconds: float) -> int:
    """``seconds`` as a number of samples at :data:`RATE`."""
    return round(seconds * RATE)


class Noise:
    """White noise in [-1, 1) from a 32-bit xorshift generator (Marsaglia 2003), so the
    stream depends only on ``seed``, not on Python's ``random`` module."""

    def __init__(self, seed: int) -> None:
        self.state = seed & 0xFFFFFFFF or 1

    def __call__(self) -> float:
        """The next sample."""
        x = self.state
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.state = x
        return x / 2_147_483_648.0 - 1.0


class BandPass:
    """An RBJ audio-cookbook biquad band-pass (constant 0 dB peak gain); :meth:`tune` may
    move its centre every sample (a sweep)."""

    def __init__(self, centre_hz: float, q: float) -> None:
        self.q = q
        self.x1 = self.x2 = self.y1 = self.y2 = 0.0
        self.tune(centre_hz)

    def tune(self, centre_hz: float) -> None:
        """Centre the pass band on ``centre_hz``."""
        w = TAU * centre_hz / RATE
        alpha = math.sin(w) / (2 * self.q)
        a0 = 1 + alpha
        self.b0 = alpha / a0
        self.b2 = -alpha / a0
        self.a1 = -2 * math.cos(w) / a0
        self.a2 = (1 - alpha) / a0

    def __call__(self, x: float) -> float:
        """Filter one sample."""
        y = self.b0 * x + self.b2 * self.x2 - self.a1 * self.y1 - self.a2 * self.y2
        self.x2, self.x1 = self.x1, x
        self.y2, self.y1 = self.y1, y
        return y


class LowPass:
    """A one-pole low-pass at ``cutoff_hz``."""

    def __init__(self, cutoff_hz: float) -> None:
        self.k = 1 - math.exp(-TAU * cutoff_hz / RATE)
        self.y = 0.0

    def __call__(self, x: float) -> float:
        """Filter one sample."""
        self.y += self.k * (x - self.y)
        return self.y


def decay(t: float, tau: float) -> float:
    """``exp(-t / tau)`` for ``t >= 0``, else 0 (an envelope that starts at ``t = 0``)."""
    return math.exp(-t / tau) if t >= 0 else 0.0


def ring() -> Samples:
    """The RIIING! alarm clock (0.8 s): strikes every 45 ms alternating between two bells;
    each bell's oscillators run continuously and the strikes feed their envelope, so
    overlapping rings add in phase the way a struck bell does."""
    n = count(0.80)
    strikes = [i * 0.045 for i in range(16)]  # the hammer stops at 0.68 s
    bells = ((1568.0, strikes[0::2]), (1865.0, strikes[1::2]))
    partials = ((1.0, 1.0, 0.070), (2.76, 0.45, 0.035), (5.40, 0.18, 0.018))
    noise = Noise(0xA1A7)
    click = BandPass(4000.0, 0.9)
    out: Samples = []
    for i in range(n):
        t = i / RATE
        x = 0.0
        for f0, hits in bells:
            for ratio, amp, tau in partials:
                env = sum(decay(t - h, tau) for h in hits if h <= t)
                x += amp * env * math.sin(TAU * f0 * ratio * t)
        since = t - max(h for h in strikes if h <= t)
        x += 1.2 * decay(since, 0.002) * click(noise())
        out.append(x * min(1.0, (n - i) / count(0.08)))  # the bells damped at the end
    return out


def slap() -> Samples:
    """A palm on the table (0.2 s): a falling-pitch thump plus a smack of noise."""
    n = count(0.20)
    noise = Noise(0x51A9)
    smack = LowPass(2500.0)
    phase = 0.0
    out: Samples = []
    for i in range(n):
        t = i / RATE
        freq = 55.0 + 145.0 * math.exp(-t / 0.030)
        phase += TAU * freq / RATE
        thump = math.sin(phase) * decay(t, 0.065)
        out.append(thump + 0.9 * decay(t, 0.012) * smack(noise()))
    return out


def lay() -> Samples:
    """A card laid on felt (0.14 s): a soft tap of band-passed noise and a faint knock."""
    n = count(0.14)
    noise = Noise(0x1A4)
    band = BandPass(1500.0, 1.0)
    soft = LowPass(3000.0)
    out: Samples = []
    for i in range(n):
        t = i / RATE
        attack = min(1.0, t / 0.003)
        tap = soft(band(noise())) * attack * decay(t, 0.025)
        knock = 0.25 * math.sin(TAU * 220.0 * t) * attack * decay(t, 0.020)
        out.append(tap + knock)
    return out


def draw() -> Samples:
    """A card slid off the pile (0.32 s): noise through a band-pass sweeping upwards."""
    length = 0.32
    n = count(length)
    noise = Noise(0xD4A3)
    band = BandPass(700.0, 3.0)
    out: Samples = []
    for i in range(n):
        t = i / RATE
        u = t / length
        band.tune(700.0 * (3500.0 / 700.0) ** u)
        swell = math.sin(math.pi * min(1.0, u / 0.4) / 2) * (1 - max(0.0, u - 0.4) / 0.6)
        out.append(band(noise()) * swell ** 2)
    return out


def refusal() -> Samples:
    """"Uh-uh" (0.36 s): two soft square-wave buzzes, 110 Hz against 116.5 Hz."""
    n = count(0.36)
    pulses = ((0.0, 0.13), (0.19, 0.15))
    out: Samples = []
    for i in range(n):
        t = i / RATE
        env = 0.0
        for start, length in pulses:
            u = t - start
            if 0 <= u <= length:
                env = min(1.0, u / 0.006, (length - u) / 0.025)
        x = 0.0
        if env > 0:
            for f in (110.0, 116.5):
                x += sum(math.sin(TAU * f * k * t) / k for k in (1, 3, 5, 7, 9))
        out.append(x * env)
    return out


def round_won() -> Samples:
    """A round won (0.8 s): C6 E6 G6 struck 90 ms apart, each ringing out."""
    n = count(0.80)
    notes = ((0.00, 1046.5), (0.09, 1318.5), (0.18, 1568.0))
    out: Samples = []
    for i in range(n):
        t = i / RATE
        x = 0.0
        for start, f in notes:
            u = t - start
            if u < 0:
                continue
            attack = min(1.0, u / 0.004)
            x += attack * (math.sin(TAU * f * u) * decay(u, 0.28)
                           + 0.22 * math.sin(TAU * 2 * f * u) * decay(u, 0.12)
                           + 0.07 * math.sin(TAU * 3 * f * u) * decay(u, 0.07))
        out.append(x)
    return out


def _brass(f: float, u: float, length: float, release: float) -> float:
    """One brass note of ``length`` s at ``u`` s into it (0 outside it and its release):
    eight harmonics whose upper ones open with the attack, vibrato after 150 ms."""
    if u < 0 or u > length + release:
        return 0.0
    if u < 0.015:
        env = u / 0.015
    elif u < 0.075:
        env = 1.0 - 0.2 * (u - 0.015) / 0.06
    else:
        env = 0.8
    if u > length:
        env *= max(0.0, 1 - (u - length) / release)
    # vibrato: +-0.4 % at 5.5 Hz, faded in from 150 ms; the phase is its integral
    w = TAU * 5.5
    wobble = 0.004 * (1 - math.cos(w * u)) / w * min(1.0, max(0.0, u - 0.15) / 0.1)
    x = 0.0
    for k in range(1, 9):
        if k * f >= RATE / 2 - 500:
            break
        x += env ** (1 + k / 3) / k ** 1.1 * math.sin(TAU * f * k * (u + wobble))
    return x


def win() -> Samples:
    """A game won (1.5 s): a short fanfare in C major ending on a held chord."""
    n = count(1.50)
    notes = (  # (start s, frequency Hz, length s, release s)
        (0.00, 392.0, 0.10, 0.03), (0.13, 523.25, 0.10, 0.03),
        (0.26, 659.25, 0.10, 0.03), (0.39, 784.0, 0.27, 0.04),
        (0.72, 659.25, 0.11, 0.03),
        (0.86, 784.0, 0.30, 0.34), (0.86, 1046.5, 0.30, 0.34), (0.86, 659.25, 0.30, 0.34),
    )
    out: Samples = []
    for i in range(n):
        t = i / RATE
        out.append(sum(_brass(f, t - start, length, release)
                       for start, f, length, release in notes))
    return out


MAKERS: dict[str, Callable[[], Samples]] = {
    "ring": ring, "slap": slap, "lay": lay, "draw": draw,
    "refusal": refusal, "round": round_won, "win": win,
}
"""Cue name -> its synthesiser, in ``device.flow.game_flow.CUES`` order."""


def finish(samples: Sequence[float], peak: float) -> array[int]:
    """Scale ``samples`` so the loudest is ``peak`` of full scale, fade the first 2 ms and
    the last 5 ms (no click at either end), and round to 16-bit signed integers."""
    loudest = max(abs(x) for x in samples) or 1.0
    scale = peak * 32767 / loudest
    n = len(samples)
    fade_in, fade_out = count(0.002), count(0.005)
    out = array("h")
    for i, x in enumerate(samples):
        gain = min(1.0, i / fade_in, (n - 1 - i) / fade_out)
        out.append(max(-32768, min(32767, round(x * scale * gain))))
    return out


def write_wav(path: Path, pcm: array[int]) -> None:
    """Write ``pcm`` to ``path`` as a mono 16-bit :data:`RATE` Hz WAV (little-endian)."""
    data = array("h", pcm)
    if sys.byteorder == "big":
        data.byteswap()
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(data.tobytes())


def make_sounds(out: Path) -> list[tuple[str, float, int]]:
    """Write every cue's WAV into ``out`` (created if missing); returns (file name,
    seconds, bytes) per file.  Raises ``OSError`` if ``out`` cannot be written."""
    out.mkdir(parents=True, exist_ok=True)
    made = []
    for name, maker in MAKERS.items():
        pcm = finish(maker(), PEAKS[name])
        path = out / f"{name}.wav"
        write_wav(path, pcm)
        made.append((path.name, len(pcm) / RATE, path.stat().st_size))
    return made


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description="synthesise device/sounds/*.wav")
    parser.add_argument("--out", type=Path, default=SOUNDS, help="folder (default %(default)s)")
    args = parser.parse_args(argv)
    try:
        made = make_sounds(args.out)
    except OSError as err:
        print(f"error: --out {args.out}: {err}", file=sys.stderr)
        return 2
    for name, seconds, size in made:
        print(f"{args.out / name}: {seconds:.2f} s, {size} bytes")
    print(f"total: {sum(size for *_, size in made)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
