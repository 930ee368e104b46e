"""Serial handheld latency and bytes.

The whole path on this machine with real threads and a real pty: a key pressed on the
emulated handheld (the firmware's own protocol core) -> KEY over the pty -> the Pi-side link
thread -> the device queue -> the console's loop (a Right on Time game, the seat's lay
composer moves its cursor) -> the hand screen rendered -> the changed pages over the pty ->
the handheld's framebuffer.  Printed: median and p99 of key-to-updated-frame in ms (goal:
median <= 10 ms, p99 <= 30 ms here), and the bytes on the wire for one cursor move against a
full 1,024-byte frame (and what a full frame costs framed).
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from collections.abc import Sequence

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

PRESSES = 300


def run() -> list[str]:
    """Measure; return the printed lines."""
    from device.console import Console, make_seats
    from device.flow.lobby import LobbyChoices
    from device.hands.seats import Handheld, Seat
    from device.modes.emulator import EmulatedHandheld
    from device.reactor.events import DeviceQueue, HandheldBack, HandheldGone
    from drivers.clock import MonotonicClock
    from drivers.hand_display import open_hand_display
    from drivers.serial_handheld import SerialHandhelds

    clock = MonotonicClock()
    queue = DeviceQueue()
    handheld = EmulatedHandheld("bench-1", boot_id=5, clock=clock)
    handheld.plug()
    handheld.start()
    link = SerialHandhelds(
        {0: "bench-1"}, post=queue.post, clock=clock,
        on_gone=lambda s, r: queue.post(HandheldGone(s, r, clock.now_ns())),
        on_back=lambda s: queue.post(HandheldBack(s, clock.now_ns())),
        ports=lambda: [handheld.path] if handheld.path else [])

    class NoTv:
        def present(self, model: object, seats: Sequence[Seat], now_ns: int,
                    force: bool) -> int | None:
            for s in seats:
                s.handheld.show(s.screen(), now_ns)
            return None

        def next_frame_ns(self, now_ns: int) -> int | None:
            return None

    seats = make_seats([open_hand_display(0, "dummy"), open_hand_display(1, "dummy")])
    seats[0] = Seat(0, Handheld(0, link.open(0), "serial", reports_link=True))
    console = Console(clock=clock, queue=queue, presenter=NoTv(), seats=seats,
                      choices=LobbyChoices(game="right-on-time", kinds=("human", "computer")),
                      game_seed=3, skip_lobby=True)
    loop = threading.Thread(target=console.run, daemon=True)
    loop.start()
    try:
        end = time.monotonic() + 10
        while not (handheld.connected and handheld.frames_seen) and time.monotonic() < end:
            time.sleep(0.01)
        if not handheld.connected:
            return ["serial handheld bench: the emulated handheld did not connect in 10 s"]
        time.sleep(0.3)
        latencies = []
        bytes_per_move = []
        for i in range(PRESSES):
            seen = handheld.frames_seen
            before = link.stats().seats[0].frame_bytes
            t0 = time.perf_counter()
            handheld.press("right" if i % 2 == 0 else "left")
            while handheld.frames_seen == seen and time.perf_counter() - t0 < 1.0:
                time.sleep(0.0002)
            if handheld.frames_seen != seen:
                latencies.append((time.perf_counter() - t0) * 1000)
                time.sleep(0.02)  # the ACK settles
                bytes_per_move.append(link.stats().seats[0].frame_bytes - before)
            time.sleep(0.01)
    finally:
        from device.reactor.events import Quit

        queue.post(Quit())
        loop.join(5)
        link.close()
        handheld.stop()
    if not latencies:
        return ["serial handheld bench: no frame came back"]
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]
    move = statistics.median(bytes_per_move) if bytes_per_move else 0
    return [
        f"key on the emulated handheld -> updated frame back: median "
        f"{statistics.median(latencies):.2f} ms, p99 {p99:.2f} ms over {len(latencies)} "
        f"presses (goal: median <= 10 ms, p99 <= 30 ms)",
        f"bytes on the wire for one cursor move: {move:.0f} (median; the card strip and the "
        f"prompt span 7 of the 8 pages), against 1,024 bytes of pixels in a full frame",
    ]


if __name__ == "__main__":
    print("\n".join(run()))
