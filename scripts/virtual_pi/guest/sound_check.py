"""The virtual Pi's ears: record what the console plays into ``snd-aloop`` during a game and
find each sound cue it logged in the recording.

    python3 sound_check.py start    # arecord of hw:Loopback,1,0 in the background
    python3 sound_check.py stop     # stop it; one JSON line: each cue, played and heard

``start`` reads the playing side's format, channels and rate
(``/proc/asound/card0/pcm0p/sub0/hw_params``: the capture side must ask for the same) and
records with ``arecord`` into ``/tmp/vpi-party.wav``, noting its start on CLOCK_MONOTONIC.
``stop`` ends it with SIGINT (arecord then writes the WAV header's lengths), reads the
console's ``sound: <cue>`` lines from partytable.service's journal with their monotonic
times, and for each cue within the recording compares the loudest sample from 1 s before to
2 s after it (:data:`WINDOW_S`) with the quiet 100 ms windows of the whole recording: a cue
is heard when its window is at least four times as loud as the recording's median window.  Prints
``{"cues": {"ring": {"played": n, "heard": m}, ...}, "seconds": s, "median_peak": p}``.
Standard library only; exit status 2 and one line for bad use.
"""

from __future__ import annotations

import array
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import wave
from pathlib import Path

WAV = Path("/tmp/vpi-party.wav")
STATE = Path("/tmp/vpi-party.json")
PARAMS = Path("/proc/asound/card0/pcm0p/sub0/hw_params")
WINDOW_S = 3.0
"""How long after a cue's log line its sound is looked for, from 1 s before: the loopback's
capture side only advances while the playing side writes, so each ALSA underrun (frequent
under TCG) moves the recording's timeline a little behind the journal's."""
BEFORE_S = 1.0


def start() -> int:
    """Start the recording (see the module docstring)."""
    fields = dict(line.split(": ", 1) for line in PARAMS.read_text().splitlines()
                  if ": " in line)
    if "channels" not in fields:
        print("sound_check: nothing plays into the loopback", file=sys.stderr)
        return 1
    argv = ["arecord", "-q", "-D", "hw:Loopback,1,0", "-f", fields.get("format", "S16_LE"),
            "-c", fields["channels"], "-r", fields.get("rate", "44100").split()[0], str(WAV)]
    t0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    STATE.write_text(json.dumps({"pid": proc.pid, "t0_ns": t0}))
    print(json.dumps({"recording": str(WAV), "pid": proc.pid}))
    return 0


def cue_times(since_ns: int) -> list[tuple[str, int]]:
    """``(cue, CLOCK_MONOTONIC ns)`` of every ``sound: <cue>`` line after ``since_ns``."""
    out = subprocess.run(["journalctl", "-b", "-u", "partytable.service", "-o", "json",
                          "--no-pager"], capture_output=True, text=True, check=False).stdout
    found = []
    for row in out.splitlines():
        try:
            entry = json.loads(row)
        except ValueError:
            continue
        message = entry.get("MESSAGE")
        if isinstance(message, str) and message.startswith(("INFO sound: ", "sound: ")):
            t_ns = int(entry["__MONOTONIC_TIMESTAMP"]) * 1000
            if t_ns >= since_ns:
                found.append((message.rsplit(" ", 1)[1], t_ns))
    return found


def stop() -> int:
    """Stop the recording and find the cues in it (see the module docstring)."""
    state = json.loads(STATE.read_text())
    with contextlib.suppress(ProcessLookupError):
        os.kill(int(state["pid"]), signal.SIGINT)
    time.sleep(1.0)
    with wave.open(str(WAV)) as w:
        rate, channels = w.getframerate(), w.getnchannels()
        samples = array.array("h", w.readframes(w.getnframes()))
    step = max(1, int(rate * 0.1)) * channels
    peaks = [max(map(abs, samples[i:i + step]), default=0)
             for i in range(0, len(samples), step)]
    median = sorted(peaks)[len(peaks) // 2] if peaks else 0
    seconds = len(samples) / channels / rate if rate else 0.0
    cues: dict[str, dict[str, int]] = {}
    for cue, t_ns in cue_times(int(state["t0_ns"])):
        offset = max(0.0, (t_ns - int(state["t0_ns"])) / 1e9 - BEFORE_S)
        if offset + WINDOW_S > seconds:
            continue
        first = int(offset * rate) * channels
        window = samples[first:first + int(WINDOW_S * rate) * channels]
        loudest = max(map(abs, window), default=0)
        tally = cues.setdefault(cue, {"played": 0, "heard": 0})
        tally["played"] += 1
        tally["heard"] += int(loudest >= max(4 * median, 300))
    print(json.dumps({"cues": cues, "seconds": round(seconds, 1), "median_peak": median}))
    return 0


def main(argv: list[str]) -> int:
    """``start`` or ``stop``."""
    if argv[1:] == ["start"]:
        return start()
    if argv[1:] == ["stop"]:
        return stop()
    print("usage: sound_check.py start|stop", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
