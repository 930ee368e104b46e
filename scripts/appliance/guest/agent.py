"""The appliance VM's control agent: runs inside the guest as root, started by
``appliance-agent.service`` once ``partytable.service`` is READY (``After=`` a
``Type=notify`` unit waits for its ``READY=1``), so it never slows the boot it measures.

It talks to the host over a virtio-serial port (``/dev/virtio-ports/appliance``, qemu
``-device virtserialport,name=appliance``): no network, which the VM has none of and the
service may not use.  One JSON object per line each way:

- at start it sends ``{"hello": {"uptime_s": float, "ready_mono_us": int, "now_mono_us":
  int, "boot_id": str}}``: the guest's CLOCK_MONOTONIC (microseconds) when
  partytable.service last entered "active" (``ActiveEnterTimestampMonotonic``; 0 if it
  never did) and now, so the host can place READY on its own clock (it stamps the line when
  it arrives);
- a request ``{"id": int, "argv": [str, ...], "timeout_s": float}`` runs ``argv`` (no shell)
  and answers ``{"id": int, "rc": int, "out": str, "err": str}`` (``rc`` -9 on timeout,
  127 when the program is missing);
- a request ``{"id": int, "batch": [[str, ...], ...], "timeout_s": float}`` runs every
  command at once (the guest has 2 vCPUs; each ``python -m device history`` takes seconds
  under TCG) and answers ``{"id": int, "results": [{"rc", "out", "err"}, ...]}`` in order.

Standard library only: it runs on Debian's ``/usr/bin/python3`` (3.11), not the project's
venv.  A line that is not a request is answered ``{"id": null, "rc": 2, "err": ...}`` and
the agent goes on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

PORT = "/dev/virtio-ports/appliance"
OPEN_TRIES = 100
"""How many times (every 0.1 s) to try the port before giving up: udev makes its link."""


def _monotonic_us() -> int:
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000


def _ready_mono_us() -> int:
    """partytable.service's ``ActiveEnterTimestampMonotonic`` (µs), 0 if never active."""
    out = subprocess.run(
        ["systemctl", "show", "-p", "ActiveEnterTimestampMonotonic", "--value",
         "partytable.service"], capture_output=True, text=True, check=False).stdout.strip()
    return int(out) if out.isdigit() else 0


def hello() -> dict[str, Any]:
    """The first message (see the module docstring)."""
    with open("/proc/uptime", encoding="ascii") as f:
        uptime = float(f.read().split()[0])
    with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as f:
        boot_id = f.read().strip()
    return {"hello": {"uptime_s": uptime, "ready_mono_us": _ready_mono_us(),
                      "now_mono_us": _monotonic_us(), "boot_id": boot_id}}


def run_all(commands: list[list[str]], timeout: float) -> list[dict[str, Any]]:
    """Run ``commands`` at once; ``{"rc", "out", "err"}`` of each, in order."""
    results: list[dict[str, Any]] = []
    procs: list[subprocess.Popen[str] | dict[str, Any]] = []
    for argv in commands:
        try:
            procs.append(subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          text=True, errors="replace"))
        except OSError as problem:
            procs.append({"rc": 127, "out": "", "err": f"{argv[0]}: {problem}"})
    deadline = time.monotonic() + timeout
    for proc in procs:
        if isinstance(proc, dict):
            results.append(proc)
            continue
        try:
            out, err = proc.communicate(timeout=max(0.0, deadline - time.monotonic()))
            results.append({"rc": proc.returncode, "out": out, "err": err})
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            results.append({"rc": -9, "out": out, "err": f"timed out after {timeout} s"})
    return results


def answer(line: str) -> dict[str, Any]:
    """Run one request line; the reply object (never raises)."""
    try:
        request = json.loads(line)
        ident = request["id"]
        batch = "batch" in request
        commands = ([[str(a) for a in argv] for argv in request["batch"]] if batch
                    else [[str(a) for a in request["argv"]]])
        timeout = float(request.get("timeout_s", 60.0))
    except (ValueError, KeyError, TypeError) as err:
        return {"id": None, "rc": 2, "out": "", "err": f"bad request {line[:80]!r}: {err}"}
    results = run_all(commands, timeout)
    return {"id": ident, "results": results} if batch else {"id": ident, **results[0]}


def send(fd: int, message: dict[str, Any]) -> None:
    """Write ``message`` as one JSON line, all of it (a port write may be partial)."""
    data = (json.dumps(message) + "\n").encode()
    while data:
        data = data[os.write(fd, data):]


def open_port() -> int:
    """The port's file descriptor; raises ``OSError`` when it never appears."""
    for _ in range(OPEN_TRIES - 1):
        try:
            return os.open(PORT, os.O_RDWR | os.O_NOCTTY)
        except FileNotFoundError:
            time.sleep(0.1)
    return os.open(PORT, os.O_RDWR | os.O_NOCTTY)


def main() -> int:
    """Serve the port for good; exit status 1 when the port cannot be opened."""
    try:
        fd = open_port()
    except OSError as err:
        print(f"appliance agent: cannot open {PORT}: {err}", file=sys.stderr)
        return 1
    send(fd, hello())
    pending = b""
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:  # no host on the other end: a virtio port reads 0 bytes then
            time.sleep(0.2)
            continue
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            if line.strip():
                send(fd, answer(line.decode(errors="replace")))


if __name__ == "__main__":
    sys.exit(main())
