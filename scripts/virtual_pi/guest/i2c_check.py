"""Guest check: wired OLEDs through the project's real HandDisplays on the kernel's i2c-stub.

Run as root in the virtual Pi with the project's venv
(``/opt/partytable/.venv/bin/python i2c_check.py``).  It loads ``i2c-dev`` and ``i2c-stub
chip_addr=0x3c,0x3d``, finds the stub's ``/dev/i2c-N`` by its adapter name ("SMBus stub
driver" in ``/sys/class/i2c-dev/*/name``) and opens an SSD1306 at 0x3C and an SH1106 at
0x3D on it through :class:`drivers.hand_display.HandDisplays` (writer threads, as the
console does).  Then:

1. frames: each panel gets frames; i2c-stub keeps the last byte written to each register
   and an SMBus I2C-block write of 32 bytes at register 0x40 fills registers 0x40-0x5F, so
   those 32 registers must equal the last 32 bytes of luma's framebuffer of the newest
   frame; the driver's log must name the SMBus-only path (the stub has no
   ``I2C_FUNC_I2C``);
2. ``rmmod i2c-stub`` mid-stream: the kernel refuses while a process holds the bus open
   (the i2c-dev file holds a reference on the adapter's module), and frames keep flowing;
3. the adapter gone and back: the hand displays are closed (their buses released), the stub
   removed, new hand displays opened on the missing bus (each panel reported gone once, one
   line), the stub loaded again: each panel reported back, initialised anew (the reloaded
   stub's registers start at zero) and holding its newest frame;
4. an adapter with neither plain I2C nor I2C-block writes, when the VM has one (qemu's
   PIIX4 SMBus host): one DeviceUnavailableError line.

Prints one JSON object; exit status 0 when every check held, else 1, with
``i2c_check: FAILED: <check>: <what>`` on stderr.
"""

from __future__ import annotations

import glob
import json
import logging
import os
import platform
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import smbus2
from PIL import Image, ImageDraw

from drivers.errors import DeviceUnavailableError
from drivers.hand_display import HandDisplays, display_data, open_hand_display

STUB_NAME = "SMBus stub driver"
PANELS = ((0, "ssd1306", 0x3C), (1, "sh1106", 0x3D))
"""``(seat, kind, address)`` of the two panels."""
WAIT_S = 30.0
"""Longest wait for the driver to do something (TCG is slow)."""


class Failed(Exception):
    """A check that did not hold: ``str()`` is ``"<check>: <what>"``."""


def sh(*argv: str) -> subprocess.CompletedProcess[str]:
    """Run ``argv``; its result (never raises for a non-zero exit)."""
    return subprocess.run(argv, capture_output=True, text=True, check=False)


def adapters() -> dict[int, str]:
    """``/dev/i2c-N`` numbers and their adapters' names."""
    found = {}
    for path in glob.glob("/sys/class/i2c-dev/i2c-*/name"):
        number = int(path.split("/")[-2].removeprefix("i2c-"))
        with open(path, encoding="utf-8") as f:
            found[number] = f.read().strip()
    return found


def stub_port() -> int | None:
    """The stub's bus number, or None when it is not loaded."""
    ports = [n for n, name in adapters().items() if name == STUB_NAME]
    return ports[0] if ports else None


def load_stub() -> int:
    """modprobe i2c-stub at 0x3c,0x3d; its bus number."""
    done = sh("modprobe", "i2c-stub", "chip_addr=0x3c,0x3d")
    if done.returncode != 0:
        raise Failed(f"modprobe i2c-stub: {done.stderr.strip()}")
    port = wait_for(stub_port, 5.0)
    if port is None:
        raise Failed(f"i2c-stub: no adapter named {STUB_NAME!r} in /sys/class/i2c-dev")
    return port


def wait_for(probe: Callable[[], Any], timeout_s: float = WAIT_S) -> Any:
    """``probe()`` every 50 ms until it is truthy or ``timeout_s`` passed; its last value."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = probe()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def frame(n: int, kind: str) -> Image.Image:
    """Frame ``n``: a column at ``n``, the kind and the number, and ``n``'s bits as bars in
    the last 32 columns of the last page (the bytes the stub's registers 0x40-0x5F keep)."""
    image = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(image)
    draw.line((n % 128, 0, n % 128, 63), fill=1)
    draw.text((10, 20), f"{kind} {n}", fill=1)
    for bit in range(8):  # n's low byte in the last page's tail: registers 0x40-0x5F
        if n >> bit & 1:
            draw.rectangle((96 + 4 * bit, 56, 98 + 4 * bit, 63), fill=1)
    return image


def registers(port: int, address: int) -> bytes:
    """The stub chip's registers 0x40-0x5F (one SMBus I2C-block read on a bus of its own)."""
    bus = smbus2.SMBus(port)
    try:
        return bytes(bus.read_i2c_block_data(address, 0x40, 32))
    finally:
        bus.close()


class Reports:
    """on_gone / on_back recorder (called on writer threads)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.gone: list[tuple[int, str]] = []
        self.back: list[int] = []

    def on_gone(self, seat: int, reason: str) -> None:
        with self.lock:
            self.gone.append((seat, reason))

    def on_back(self, seat: int) -> None:
        with self.lock:
            self.back.append(seat)


class LogLines(logging.Handler):
    """Keeps the messages of the driver's log."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def open_panels(port: int, reports: Reports) -> tuple[HandDisplays, dict[int, Any]]:
    """The two panels on ``port`` through threaded hand displays."""
    hands = HandDisplays(on_gone=reports.on_gone, on_back=reports.on_back)
    screens = {seat: hands.open(seat, kind, port=port, address=addr) for seat, kind, addr in PANELS}
    return hands, screens


def show(hands: HandDisplays, screens: dict[int, Any], n: int) -> dict[int, bytes]:
    """Give each panel frame ``n``; the tail of each one's framebuffer (what registers
    0x40-0x5F must hold once it went out)."""
    tails = {}
    for seat, kind, _ in PANELS:
        image = frame(n, kind)
        screens[seat].display(image)
        tails[seat] = display_data(kind, image)[-32:]
    return tails


def verify(port: int, tails: dict[int, bytes], check: str) -> dict[str, Any]:
    """Wait until each stub chip's registers 0x40-0x5F equal its panel's tail."""
    got: dict[int, bytes] = {}

    def matches() -> bool:
        for seat, _, addr in PANELS:
            got[seat] = registers(port, addr)
        return all(got[s] == tails[s] for s in tails)

    if not wait_for(matches):
        raise Failed(f"{check}: registers 0x40-0x5F " + ", ".join(
            f"0x{a:02X}={got[s].hex()} (want {tails[s].hex()})" for s, _, a in PANELS))
    return {f"0x{a:02X}": got[s].hex() for s, _, a in PANELS}


def run(summary: dict[str, Any]) -> None:
    """The checks (see the module docstring); fills ``summary``, raises :class:`Failed`."""
    summary["kernel"] = platform.release()
    log_lines = LogLines()
    logging.getLogger("drivers.hand_display").addHandler(log_lines)
    logging.getLogger("drivers.hand_display").setLevel(logging.INFO)
    sh("modprobe", "i2c-dev")
    if stub_port() is not None:
        sh("rmmod", "i2c-stub")
    port = load_stub()
    with open(f"/sys/class/i2c-dev/i2c-{port}/name", encoding="utf-8") as f:
        name = f.read().strip()
    probe = smbus2.SMBus(port)
    funcs = int(probe.funcs)
    probe.close()
    summary["adapter"] = {"port": port, "name": name, "funcs": f"0x{funcs:08X}"}

    # 1. frames
    reports = Reports()
    hands, screens = open_panels(port, reports)
    started = time.monotonic()
    tails = show(hands, screens, 1)
    first = verify(port, tails, "frames")
    n = 1
    for n in range(2, 11):
        tails = show(hands, screens, n)
        hands.flush(WAIT_S)
    regs = verify(port, tails, "frames")
    path = [line for line in log_lines.lines if line.startswith(f"OLEDs on /dev/i2c-{port}")]
    summary["frames"] = {
        "sent": {s: screens[s].frames_sent for s in screens},
        "first_frame_s": round(time.monotonic() - started, 2),
        "registers_0x40": regs, "first": first, "path_log": path,
    }
    if len(path) != 1 or "SMBus only" not in path[0]:
        raise Failed(f"path: the driver's log says {path!r}")
    if reports.gone:
        raise Failed(f"frames: reported gone: {reports.gone!r}")

    # 2. rmmod while the driver holds the bus
    stop = threading.Event()

    def stream() -> None:
        k = 100
        while not stop.is_set():
            show(hands, screens, k)
            k += 1
            time.sleep(0.05)

    streamer = threading.Thread(target=stream, name="stream")
    streamer.start()
    time.sleep(0.5)
    refused = sh("rmmod", "i2c-stub")
    time.sleep(0.5)
    stop.set()
    streamer.join()
    tails = show(hands, screens, 200)
    after = verify(port, tails, "rmmod while open")
    summary["rmmod_while_open"] = {
        "rc": refused.returncode, "stderr": refused.stderr.strip(),
        "loaded_after": stub_port() is not None, "registers_after": after,
        "gone_reports": list(reports.gone),
    }
    if refused.returncode == 0:
        raise Failed("rmmod while open: the kernel removed i2c-stub under an open bus")

    # 3. the adapter gone, then back
    hands.close()
    removed = sh("rmmod", "i2c-stub")
    if removed.returncode != 0 or stub_port() is not None:
        raise Failed(f"rmmod after close: rc {removed.returncode} {removed.stderr.strip()}")
    reports = Reports()
    hands, screens = open_panels(port, reports)
    show(hands, screens, 300)
    gone = wait_for(lambda: len(reports.gone) >= 2 and list(reports.gone))
    if not gone:
        raise Failed(f"gone: reported {reports.gone!r}, want both seats")
    tails = show(hands, screens, 301)
    t = time.monotonic()
    back_port = load_stub()
    back = wait_for(lambda: sorted(reports.back) == [0, 1])
    back_s = time.monotonic() - t
    summary["gone_and_back"] = {
        "gone": [{"seat": s, "line": line} for s, line in gone],
        "port_after_modprobe": back_port,
        "back": sorted(reports.back), "back_after_s": round(back_s, 2),
    }
    if not back:
        raise Failed(f"back: reported back {reports.back!r} within {WAIT_S} s")
    if back_port != port:
        raise Failed(f"back: the stub came back as i2c-{back_port}, not i2c-{port}")
    if len(reports.gone) != 2 or any("\n" in line for _, line in gone):
        raise Failed(f"gone: want one line per seat, got {reports.gone!r}")
    summary["gone_and_back"]["registers_0x40"] = verify(port, tails, "back")
    tails = show(hands, screens, 302)
    summary["gone_and_back"]["registers_next_frame"] = verify(port, tails, "frames after back")
    hands.close()

    # 4. an adapter with neither
    others = {n: a for n, a in adapters().items() if a != STUB_NAME}
    summary["neither"] = []
    for other, other_name in sorted(others.items()):
        bus = smbus2.SMBus(other)
        other_funcs = int(bus.funcs)
        bus.close()
        try:
            device = open_hand_display(5, "ssd1306", port=other)
        except DeviceUnavailableError as exc:
            line = str(exc)
        else:
            device.cleanup()
            line = ""
        summary["neither"].append(
            {"port": other, "name": other_name, "funcs": f"0x{other_funcs:08X}", "line": line}
        )
        lacks = not other_funcs & (smbus2.I2cFunc.I2C | smbus2.I2cFunc.SMBUS_WRITE_I2C_BLOCK)
        if lacks and "offers neither" not in line:
            raise Failed(f"neither: i2c-{other} ({other_name}): {line!r}")


def main() -> int:
    """Run the checks, print the JSON summary; 0 when all held."""
    if os.geteuid() != 0:
        print("i2c_check: needs root (modprobe, rmmod)", file=sys.stderr)
        return 2
    summary: dict[str, Any] = {}
    status = 0
    try:
        run(summary)
        summary["ok"] = True
    except Failed as exc:
        summary["ok"] = False
        summary["failed"] = str(exc)
        print(f"i2c_check: FAILED: {exc}", file=sys.stderr)
        status = 1
    print(json.dumps(summary, indent=1))
    return status


if __name__ == "__main__":
    sys.exit(main())
