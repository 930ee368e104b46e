"""The appliance VM's initramfs: the few kernel modules the root disk needs (virtio-pci,
virtio-blk, ext4, overlay and what they depend on, in ``modprobe --show-depends`` order), a
static busybox and a short ``/init`` that loads them, mounts ``/dev/vda`` and hands over to
systemd.

With ``overlayroot=tmpfs`` on the kernel command line (the switch of Debian's and Raspberry
Pi OS's ``overlayroot`` package, which ``raspi-config nonint do_overlayfs 0`` sets) the root
is read-only the way that package makes it: ``/dev/vda`` mounted ``ro,noload`` (no journal
replay: nothing is written to it, ever), a tmpfs for the changes, the overlay of the two as
``/``, the lower and upper trees kept at ``/media/root-ro`` and ``/media/root-rw``.  What the
system writes lives in RAM and is gone at the next boot; only mounts of their own in
``/etc/fstab`` (the game database's partition) keep anything.

Debian's kernel builds virtio and ext4 as modules, so some initramfs is needed; the one
initramfs-tools makes runs udev and its scripts, which takes about 2 s of every boot under
TCG.  A Raspberry Pi boots without one at all, so a minimal one is closer to the appliance
than the general-purpose one.  Without udev, devtmpfs makes ``/dev/vda`` by itself.  When
the disk cannot be mounted, ``/init`` says so on the console and reboots, which ends qemu
(``-no-reboot``) at once rather than leaving a VM that never reaches READY.

The archive is the kernel's "newc" cpio format (``Documentation/driver-api/early-userspace/
buffer-format.rst``), uncompressed: unpacking it is cheaper under TCG than inflating it.
"""

from __future__ import annotations

import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

ROOT_MODULES = ("virtio_pci", "virtio_blk", "ext4", "overlay")
"""What the root disk needs; their dependencies come with them."""

INIT = """#!/bin/busybox sh
# The appliance VM's /init (scripts/appliance/initramfs.py): load virtio, ext4 and overlay,
# mount /dev/vda read-write (or, with overlayroot=tmpfs, read-only under a tmpfs overlay),
# hand over to systemd.  A failure to mount: one line, then reboot (qemu ends).  A module that
# does not load is one line and no more: a CPU-specific alternative such as crc32c-intel
# refuses a CPU without its instructions (TCG), the generic one loads.
b=/bin/busybox
fail() { echo "initramfs: $*"; $b sleep 1; $b reboot -f; }
$b mount -t devtmpfs devtmpfs /dev || fail "cannot mount devtmpfs"
$b mount -t proc proc /proc || fail "cannot mount /proc"
overlay=no
for word in $($b cat /proc/cmdline); do
    [ "$word" != overlayroot=tmpfs ] || overlay=yes
done
$b umount /proc
for m in /modules/*.ko; do $b insmod "$m" 2>/dev/null || echo "initramfs: $m not loaded"; done
i=0
while [ ! -b /dev/vda ]; do
    i=$((i + 1))
    [ $i -le 1000 ] || fail "no /dev/vda after 10 s"
    $b usleep 10000
done
if [ $overlay = yes ]; then
    $b mkdir -p /lower /rw
    $b mount -t ext4 -o ro,noload /dev/vda /lower || fail "cannot mount /dev/vda read-only"
    $b mount -t tmpfs -o mode=0755 tmpfs /rw || fail "cannot mount the overlay's tmpfs"
    $b mkdir -p /rw/upper /rw/work
    $b mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work overlay /root \
        || fail "cannot mount the overlay root"
    $b mkdir -p /root/media/root-ro /root/media/root-rw
    $b mount --move /lower /root/media/root-ro || fail "cannot move the lower root"
    $b mount --move /rw /root/media/root-rw || fail "cannot move the overlay's tmpfs"
else
    $b mount -t ext4 -o rw /dev/vda /root || fail "cannot mount /dev/vda"
fi
$b mount --move /dev /root/dev || fail "cannot move /dev"
exec $b switch_root /root /sbin/init
"""


@dataclass(frozen=True)
class Entry:
    """One archive member: ``name`` (no leading slash), ``mode`` (type and permission
    bits, ``stat.S_IF*``), ``data`` (a file's bytes, a symlink's target), ``rdev``
    (``(major, minor)`` of a device node)."""

    name: str
    mode: int
    data: bytes = b""
    rdev: tuple[int, int] = (0, 0)


def newc(entries: Iterable[Entry]) -> bytes:
    """``entries`` as a newc cpio archive with its ``TRAILER!!!`` (uid/gid 0, mtime 0,
    one link each, inode numbers from 1).  Raises ``ValueError`` for a name with a NUL or
    a leading slash."""
    out = bytearray()
    members = [*entries, Entry("TRAILER!!!", 0)]
    for ino, e in enumerate(members, start=1):
        if "\0" in e.name or e.name.startswith("/"):
            raise ValueError(f"initramfs: bad member name {e.name!r}")
        name = e.name.encode() + b"\0"
        fields = (ino if e.name != "TRAILER!!!" else 0, e.mode, 0, 0,
                  2 if stat.S_ISDIR(e.mode) else 1, 0, len(e.data), 0, 0, e.rdev[0],
                  e.rdev[1], len(name), 0)
        out += b"070701" + b"".join(b"%08X" % f for f in fields)
        out += name
        out += b"\0" * (-len(out) % 4)
        out += e.data
        out += b"\0" * (-len(out) % 4)
    return bytes(out)


def module_paths(show_depends: Sequence[str]) -> list[str]:
    """The ``.ko`` paths of ``modprobe --show-depends`` outputs, dependencies first, each
    once (``builtin`` lines name modules the kernel has already)."""
    seen: list[str] = []
    for text in show_depends:
        for line in text.splitlines():
            words = line.split()
            if len(words) >= 2 and words[0] == "insmod" and words[1] not in seen:
                seen.append(words[1])
    return seen


def archive(busybox: bytes, modules: Sequence[tuple[str, bytes]]) -> bytes:
    """The initramfs: ``/init``, ``/bin/busybox``, ``/dev/console`` (the kernel opens it
    for init's output), empty ``/proc``, ``/sys``, ``/root`` and ``modules`` (``(file name,
    bytes)`` in load order, numbered so the shell's glob keeps that order)."""
    dirs = ("bin", "dev", "proc", "sys", "root", "modules")
    entries = [Entry(d, stat.S_IFDIR | 0o755) for d in dirs]
    entries += [
        Entry("init", stat.S_IFREG | 0o755, INIT.encode()),
        Entry("bin/busybox", stat.S_IFREG | 0o755, busybox),
        Entry("dev/console", stat.S_IFCHR | 0o600, rdev=(5, 1)),
    ]
    entries += [Entry(f"modules/{i:02d}-{name}", stat.S_IFREG | 0o644, data)
                for i, (name, data) in enumerate(modules)]
    return newc(entries)
