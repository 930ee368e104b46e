"""The appliance VM: qemu-system-x86_64 booting the run's disk, a power cut, the control
channel to the guest agent (``guest/agent.py``).

- Acceleration (docs/hardware-facts.md, "A virtual machine for the appliance tests"): ``/dev/kvm``
  exists on these machines but nested KVM fails (qemu aborts setting an MSR, or hangs), so
  :func:`probe_kvm` boots the kernel once under KVM with a short time limit; where that does
  not print the kernel's banner, every boot uses TCG (``-accel tcg,thread=multi``).
- The machine: ``-m 1024``, 2 vCPUs, no network device at all (``-nic none``, the service
  has PrivateNetwork= and the VM needs none), no display, the kernel and initrd from the
  base's ``/boot`` (``-kernel``/``-initrd``, ``root=/dev/vda``), the disk a raw virtio-blk
  image (qemu's default ``cache=writeback``: a write the guest's kernel issued reaches the
  host's page cache at once and survives qemu's death, while what sits in the guest's page
  cache is lost, exactly as at a power cut), further disks as ``/dev/vdb``... (the read-only
  root layout's state disk), ttyS0 to a log file, a virtio-rng (the guest's random seed
  service would otherwise wait for entropy), a virtio-serial port ``appliance`` to the agent
  (a unix socket on the host) and an Intel 6300ESB watchdog (``-device i6300esb``, the
  board's hardware watchdog that systemd feeds; ``-action watchdog=reset``: when it runs
  out, qemu resets the machine).
- ``-no-reboot`` (a reboot or a reset ends qemu: a panic or a failed initramfs never loops)
  except on a boot that lets the guest reset itself (``reboot=True``: the hardware watchdog
  test, where the reset is the thing to see and the guest boots again in the same qemu).
- A power cut is SIGKILL of qemu: no shutdown, nothing flushed (:meth:`Machine.cut`).

Times are the host's CLOCK_MONOTONIC (``time.monotonic()``, seconds).
"""

from __future__ import annotations

import json
import lzma
import os
import signal
import socket
import subprocess
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

QEMU = "qemu-system-x86_64"
CMDLINE = ("root=/dev/vda rw console=ttyS0 quiet loglevel=4 panic=-1 mitigations=off "
           "lpj=10000000 cryptomgr.notests systemd.show_status=false rd.udev.log_level=3")
"""The guest kernel's command line: ``panic=-1`` with ``-no-reboot`` (a panic ends qemu);
``lpj=`` skips the second vCPU's delay-loop calibration, which fails under TCG after 0.6 s
("calibrate_delay_direct() failed"; udelay uses the TSC anyway) and ``cryptomgr.notests``
the crypto self-tests: a shorter power-on to READY, nothing the service relies on."""

ELF = b"\x7fELF"


def extract_vmlinux(bzimage: bytes) -> bytes | None:
    """The ELF kernel inside a bzImage (Debian's is XZ-compressed; gzip too), or ``None``.
    qemu boots an ELF kernel with a PVH entry note (``CONFIG_PVH=y``, Debian's) directly,
    skipping the decompression that takes about 1.5 s under TCG on every boot."""
    for magic, make in ((b"\xfd7zXZ\x00", lzma.LZMADecompressor),
                        (b"\x1f\x8b\x08", lambda: zlib.decompressobj(16 + zlib.MAX_WBITS))):
        start = bzimage.find(magic)
        while start != -1:
            try:
                out = make().decompress(bzimage[start:])
            except (lzma.LZMAError, zlib.error):
                out = b""
            if out.startswith(ELF):
                return out
            start = bzimage.find(magic, start + 1)
    return None


def boot_kernel(kernel: Path, work: Path) -> Path:
    """The kernel to boot: ``work/vmlinux`` extracted from ``kernel`` when it holds an ELF
    kernel (:func:`extract_vmlinux`), else ``kernel`` itself."""
    elf = extract_vmlinux(kernel.read_bytes())
    if elf is None:
        return kernel
    out = work / "vmlinux"
    out.write_bytes(elf)
    return out


class VmError(Exception):
    """The VM did not do what the harness asked: ``str(err)`` is one line."""


@dataclass(frozen=True)
class Hello:
    """The agent's first line of a boot: ``at`` (host monotonic s, when it arrived),
    ``ready_mono_us``/``now_mono_us`` (guest CLOCK_MONOTONIC µs: partytable.service
    active, and the agent's now), ``boot_id``."""

    at: float
    ready_mono_us: int
    now_mono_us: int
    boot_id: str

    @property
    def ready_at(self) -> float | None:
        """When READY came, on the host's clock (``None``: the service never got active).
        Under TCG and KVM alike the guest's monotonic clock runs at the host's pace."""
        if self.ready_mono_us <= 0:
            return None
        return self.at - (self.now_mono_us - self.ready_mono_us) / 1e6


@dataclass(frozen=True)
class Reply:
    """A command's result in the guest: exit status ``rc``, ``out`` and ``err`` text."""

    rc: int
    out: str
    err: str


def qemu_argv(*, kernel: Path, initrd: Path, disk: Path, console: Path, control: Path,
              accel: str, cmdline: str = CMDLINE, disks: Sequence[Path] = (),
              reboot: bool = False, devices: Sequence[str] = (),
              qmp: Path | None = None) -> list[str]:
    """The qemu command line of one boot (see the module docstring); ``accel`` is
    ``"kvm"`` or ``"tcg"``; ``disks``: more drives after ``disk`` (``/dev/vdb``, ...);
    ``reboot``: the guest may reset itself and boot again (no ``-no-reboot``);
    ``devices``: more qemu arguments (a scenario's own hardware, e.g. ``-device
    virtio-gpu-pci``); ``qmp``: a unix socket for qemu's monitor protocol (QMP)."""
    accel_args = (["-accel", "kvm", "-cpu", "host"] if accel == "kvm"
                  else ["-accel", "tcg,thread=multi"])
    drives: list[str] = []
    for d in (disk, *disks):
        drives += ["-drive", f"file={d},format=raw,if=virtio,cache=writeback,discard=unmap"]
    return [
        QEMU, *accel_args, "-smp", "2", "-m", "1024",
        "-nodefaults", "-no-user-config", "-nic", "none", "-display", "none",
        *([] if reboot else ["-no-reboot"]),
        "-kernel", str(kernel), "-initrd", str(initrd), "-append", cmdline,
        *drives,
        "-device", "i6300esb", "-action", "watchdog=reset",
        "-chardev", f"file,id=con,path={console}", "-serial", "chardev:con",
        "-device", "virtio-rng-pci",
        "-device", "virtio-serial-pci",
        "-chardev", f"socket,id=ctl,path={control},server=on,wait=off",
        "-device", "virtserialport,chardev=ctl,name=appliance",
        *devices,
        *(["-qmp", f"unix:{qmp},server=on,wait=off"] if qmp is not None else []),
    ]


def _nice(niceness: int) -> Any:
    def lower() -> None:
        os.nice(niceness)

    return lower if niceness else None


def probe_kvm(kernel: Path, work: Path, *, timeout_s: float = 10.0,
              niceness: int = 0) -> str | None:
    """``None`` when KVM boots ``kernel`` here (its banner on ttyS0 within ``timeout_s``),
    else the one-line reason to use TCG."""
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "/dev/kvm is missing or not accessible"
    log = work / "kvm-probe.log"
    argv = [QEMU, "-accel", "kvm", "-cpu", "host", "-m", "256", "-nodefaults",
            "-no-user-config", "-nic", "none", "-display", "none", "-no-reboot",
            "-kernel", str(kernel), "-append", "console=ttyS0 panic=-1 root=/dev/nonexistent",
            "-chardev", f"file,id=con,path={log}", "-serial", "chardev:con"]
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, preexec_fn=_nice(niceness))
    deadline = time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline:
            text = log.read_text(errors="replace") if log.exists() else ""
            if "Linux version" in text:
                return None
            if proc.poll() is not None:
                err = (proc.stderr.read().decode(errors="replace").strip().splitlines()
                       if proc.stderr else [])
                return f"qemu -accel kvm exited ({err[-1][:160] if err else proc.returncode})"
            time.sleep(0.1)
        return f"qemu -accel kvm printed nothing in {timeout_s:.0f} s (nested KVM hangs)"
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait()
        if proc.stderr:
            proc.stderr.close()


class Machine:
    """One VM: :meth:`boot` starts qemu on ``disk`` (a power-on), :meth:`hello` waits for
    the agent, :meth:`call` runs a command in the guest, :meth:`cut` kills qemu.  Console
    output of boot ``n`` goes to ``work/<name>-<n>.log``.  ``disks``: more drives
    (``/dev/vdb``...), ``cmdline``: the kernel's, ``niceness``: added to qemu's nice value
    (a shared build machine)."""

    def __init__(self, *, kernel: Path, initrd: Path, disk: Path, work: Path, accel: str,
                 niceness: int = 0, disks: Sequence[Path] = (), cmdline: str = CMDLINE,
                 name: str = "console", devices: Sequence[str] = (),
                 qmp: bool = False) -> None:
        self.kernel = kernel
        self.initrd = initrd
        self.disk = disk
        self.disks = tuple(disks)
        self.cmdline = cmdline
        self.name = name
        self.devices = tuple(devices)
        self.qmp = work / "qmp.sock" if qmp else None
        self.work = work
        self.accel = accel
        self.niceness = niceness
        self.proc: subprocess.Popen[bytes] | None = None
        self.sock: socket.socket | None = None
        self.started_at = 0.0
        """Host monotonic time of the last power-on (qemu's start), s."""
        self.console = work / f"{name}-0.log"
        self._pending = b""
        self._next_id = 0
        self.boots = 0

    def boot(self, *, reboot: bool = False) -> None:
        """Power on: start qemu and connect to its control socket (raises
        :class:`VmError` when qemu exits or its socket never appears); ``reboot``: the
        guest may reset itself and boot again in this qemu (:func:`qemu_argv`)."""
        if self.proc is not None:
            raise VmError("boot: the VM is still running")
        self.boots += 1
        self.console = self.work / f"{self.name}-{self.boots}.log"
        control = self.work / "control.sock"
        control.unlink(missing_ok=True)
        argv = qemu_argv(kernel=self.kernel, initrd=self.initrd, disk=self.disk,
                         console=self.console, control=control, accel=self.accel,
                         cmdline=self.cmdline, disks=self.disks, reboot=reboot,
                         devices=self.devices, qmp=self.qmp)
        self.started_at = time.monotonic()
        with open(self.work / "qemu.err", "ab") as err:  # qemu keeps its own copy
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=err,
                                         preexec_fn=_nice(self.niceness))
        self._pending = b""
        deadline = self.started_at + 10.0
        while True:
            if self.proc.poll() is not None:
                raise VmError(f"qemu exited at once (exit {self.proc.returncode}; "
                              f"{self._qemu_err()})")
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(str(control))
                self.sock = sock
                return
            except OSError:
                sock.close()
                if time.monotonic() > deadline:
                    self.cut()
                    raise VmError("qemu's control socket never appeared in 10 s") from None
                time.sleep(0.02)

    def _qemu_err(self) -> str:
        lines = (self.work / "qemu.err").read_text(errors="replace").strip().splitlines()
        return lines[-1][:200] if lines else "no message"

    def _line(self, deadline: float) -> dict[str, Any]:
        """The next JSON line from the agent; raises :class:`VmError` at ``deadline`` or
        when qemu is gone."""
        assert self.sock is not None and self.proc is not None
        while b"\n" not in self._pending:
            left = deadline - time.monotonic()
            if left <= 0:
                raise VmError("timeout")
            if self.proc.poll() is not None:
                raise VmError(f"qemu exited (exit {self.proc.returncode}; {self._qemu_err()})")
            self.sock.settimeout(min(left, 0.5))
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError:
                continue
            if not chunk:
                self.proc.wait()
                raise VmError(f"qemu ended (exit {self.proc.returncode}): see the console "
                              "log")
            self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        try:
            obj = json.loads(line)
        except ValueError:
            raise VmError(f"the agent sent a line that is not JSON: {line[:80]!r}") from None
        if not isinstance(obj, dict):
            raise VmError(f"the agent sent {line[:80]!r}")
        return obj

    def hello(self, timeout_s: float, *, since: float | None = None) -> Hello:
        """Wait for the agent's hello of this boot, at most ``timeout_s`` after the
        power-on (or after ``since``, host monotonic s: a reset the guest made itself);
        raises :class:`VmError` on timeout.  Replies to requests that never came back
        (the guest froze) are skipped."""
        start = self.started_at if since is None else since
        what = "power-on" if since is None else "the freeze"
        deadline = start + timeout_s
        while True:
            try:
                obj = self._line(deadline)
            except VmError as err:
                when = (f"within {timeout_s:.0f} s of {what}" if str(err) == "timeout"
                        else f"{time.monotonic() - start:.0f} s after {what}")
                raise VmError(f"no word from the VM's agent {when} ({err})") from None
            if "hello" in obj:
                h = obj["hello"]
                return Hello(at=time.monotonic(), ready_mono_us=int(h["ready_mono_us"]),
                             now_mono_us=int(h["now_mono_us"]), boot_id=str(h["boot_id"]))

    def call(self, argv: Sequence[str], *, timeout_s: float = 60.0) -> Reply:
        """Run ``argv`` in the guest (as root); raises :class:`VmError` when no answer
        comes within ``timeout_s`` + 10 s."""
        assert self.sock is not None
        self._next_id += 1
        ident = self._next_id
        request = {"id": ident, "argv": list(argv), "timeout_s": timeout_s}
        self.sock.sendall((json.dumps(request) + "\n").encode())
        deadline = time.monotonic() + timeout_s + 10.0
        while True:
            try:
                obj = self._line(deadline)
            except VmError as err:
                raise VmError(f"{' '.join(argv)[:80]}: no answer ({err})") from None
            if obj.get("id") == ident:
                return Reply(rc=int(obj["rc"]), out=str(obj["out"]), err=str(obj["err"]))

    def send(self, argv: Sequence[str]) -> None:
        """Start ``argv`` in the guest and wait for nothing (a command that never answers:
        the freeze of the hardware watchdog test)."""
        assert self.sock is not None
        self._next_id += 1
        request = {"id": self._next_id, "argv": list(argv), "timeout_s": 60.0}
        self.sock.sendall((json.dumps(request) + "\n").encode())

    def call_all(self, commands: Sequence[Sequence[str]], *,
                 timeout_s: float = 60.0) -> list[Reply]:
        """Run ``commands`` in the guest at once (the agent's batch); their results in
        order.  Raises :class:`VmError` when no answer comes within ``timeout_s`` + 10 s."""
        assert self.sock is not None
        self._next_id += 1
        ident = self._next_id
        request = {"id": ident, "batch": [list(c) for c in commands], "timeout_s": timeout_s}
        self.sock.sendall((json.dumps(request) + "\n").encode())
        deadline = time.monotonic() + timeout_s + 10.0
        while True:
            try:
                obj = self._line(deadline)
            except VmError as err:
                raise VmError(f"{len(commands)} commands: no answer ({err})") from None
            if obj.get("id") == ident:
                return [Reply(rc=int(r["rc"]), out=str(r["out"]), err=str(r["err"]))
                        for r in obj["results"]]

    def cut(self) -> float:
        """The power cut: SIGKILL qemu (no shutdown, nothing flushed), wait for it; the
        host monotonic time of the kill."""
        at = time.monotonic()
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
            self.proc = None
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        return at

    def monitor(self, command: str, arguments: dict[str, Any] | None = None, *,
                timeout_s: float = 30.0) -> Any:
        """Run one QMP ``command`` (with ``arguments``) on this boot's monitor socket; its
        ``return`` value.  Raises :class:`VmError` when the machine has no monitor, qemu
        does not answer within ``timeout_s`` or answers with an error."""
        if self.qmp is None:
            raise VmError(f"{command}: this machine has no QMP socket (qmp=True)")
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(timeout_s)
                sock.connect(str(self.qmp))
                stream = sock.makefile("rwb")
                stream.readline()  # the greeting
                for request in ({"execute": "qmp_capabilities"},
                                {"execute": command, "arguments": arguments or {}}):
                    stream.write(json.dumps(request).encode() + b"\n")
                    stream.flush()
                    while True:
                        answer = json.loads(stream.readline() or b"{}")
                        if "return" in answer or "error" in answer or not answer:
                            break  # events ("event": ...) are skipped
                    if "error" in answer or not answer:
                        raise VmError(f"{command}: {answer.get('error', 'no answer')}")
                return answer["return"]
        except (OSError, ValueError) as err:
            raise VmError(f"{command}: the monitor failed ({err})") from None

    def screendump(self, path: Path) -> Path:
        """The guest's screen now, as a PNG at ``path`` (QMP ``screendump``); raises
        :class:`VmError`."""
        self.monitor("screendump", {"filename": str(path), "format": "png"})
        return path

    def console_tail(self, lines: int = 40) -> str:
        """The last ``lines`` of this boot's serial console."""
        try:
            text = self.console.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.rstrip().splitlines()[-lines:])
