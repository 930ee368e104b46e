"""One step of the virtual Pi's party, in the guest (``scripts/virtual_pi/party.py`` on the
host calls it through the agent): press what the host asks, then read what the console said.

    python3 party_step.py '{"after": CURSOR, "do": [...], "wait_s": 1.5}'

``do`` is a list of steps, played in order:

- ``["seq", "<gpiosim sequence>"]``: timed pulls of gpio-sim lines (``gpiosim.py``'s
  syntax, e.g. ``"17=press@0 17=release@60ms"``): slap buttons and wired handhelds' keys;
- ``["usb", "<key>"]``: a key on the USB gadget's handheld (``gadget_handheld.py``'s
  control socket);
- ``["sleep", seconds]``.

``on_window`` (optional) is a gpiosim sequence played the moment a hand screen line says
``SLAP!`` while it waits (a RIIING! window opened): the slap a person makes when the TV
rings, without a round trip to the host.  Its writes are in the answer's ``window_writes``.

Then it reads partytable.service's journal after the cursor ``after`` (``null``: all of the
service's current run) until a line that says a screen, a lobby row or an action came (and then
``settle_s`` more, default 0.4 s: the other seats' screens follow within that), or
``wait_s`` seconds passed, and prints one JSON line: ``{"cursor": str, "lines": [str, ...],
"writes": [...]}`` (the pulls' write times, CLOCK_MONOTONIC ns).  Standard library only; bad
input is exit status 2 and one line.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gpiosim  # type: ignore[import-not-found]  # beside this file in the guest

SOCKET = "/run/vpi-handheld/ctl.sock"
MARKS = (" screen {", "lobby: row ", ": ")


def usb_key(key: str) -> None:
    """Press and release ``key`` on the gadget's handheld."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(SOCKET)
        s.sendall(f"key {key}\n".encode())
        s.recv(65536)


def journal(after: str | None) -> tuple[str | None, list[str]]:
    """partytable.service's lines after ``after`` (``None``: every line of the service's
    current run, its invocation); the new cursor and the messages."""
    argv = ["journalctl", "-b", "-u", "partytable.service", "-o", "json", "--no-pager"]
    if after:
        argv += ["--after-cursor", after]
    else:
        invocation = subprocess.run(
            ["systemctl", "show", "-p", "InvocationID", "--value", "partytable.service"],
            capture_output=True, text=True, check=False).stdout.strip()
        if invocation:
            argv = ["journalctl", "-b", "-o", "json", "--no-pager",
                    f"_SYSTEMD_INVOCATION_ID={invocation}"]
    out = subprocess.run(argv, capture_output=True, text=True, check=False).stdout
    cursor, lines = after, []
    for row in out.splitlines():
        try:
            entry = json.loads(row)
        except ValueError:
            continue
        cursor = entry.get("__CURSOR", cursor)
        message = entry.get("MESSAGE")
        if isinstance(message, str):
            lines.append(message)
    return cursor, lines


def window_open(lines: list[str]) -> bool:
    """A screen in ``lines`` says SLAP! and no slap decision came after it: the window is
    still open (a decided one is closed, and a slap then would be a false slap)."""
    opened = [i for i, line in enumerate(lines) if '"turn":"SLAP!"' in line]
    if not opened:
        return False
    return not any("slap: seat " in line for line in lines[opened[-1]:])


def main(argv: list[str]) -> int:
    """See the module docstring."""
    try:
        request = json.loads(argv[1])
        steps = list(request.get("do", []))
        wait_s = float(request.get("wait_s", 1.5))
        after = request.get("after")
        settle_s = float(request.get("settle_s", 0.4))
        on_window = request.get("on_window")
    except (IndexError, ValueError, TypeError, AttributeError) as err:
        print(f"party_step: bad request: {err}", file=sys.stderr)
        return 2
    writes: list[list[object]] = []
    for step in steps:
        kind = step[0]
        if kind == "seq":
            writes += gpiosim.play(gpiosim.parse_sequence(str(step[1])))
        elif kind == "usb":
            usb_key(str(step[1]))
        elif kind == "sleep":
            time.sleep(float(step[1]))
        else:
            print(f"party_step: unknown step {kind!r}", file=sys.stderr)
            return 2
    deadline = time.monotonic() + wait_s
    lines: list[str] = []
    window_writes: list[list[object]] = []
    while True:
        after, new = journal(after)
        lines += new
        if on_window and not window_writes and window_open(new):
            window_writes = gpiosim.play(gpiosim.parse_sequence(str(on_window)))
            deadline = max(deadline, time.monotonic() + 2.0)  # the decision follows
        now = time.monotonic()
        if any(mark in line for line in new for mark in MARKS):
            deadline = min(deadline, now + settle_s)
        if now >= deadline:
            break
        time.sleep(0.1)
    print(json.dumps({"cursor": after, "lines": lines, "writes": writes,
                      "window_writes": window_writes}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
