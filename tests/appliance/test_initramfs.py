"""The appliance VM's initramfs (``scripts/appliance/initramfs.py``): the newc cpio the
kernel unpacks (read back here by the format's rules: a "070701" header of 13 eight-digit
hex fields, the name and the data each padded to 4 bytes, a ``TRAILER!!!`` last), its
members, and the module load order taken from ``modprobe --show-depends``."""

from __future__ import annotations

import stat
from typing import NamedTuple

import pytest

from scripts.appliance.initramfs import INIT, ROOT_MODULES, Entry, archive, module_paths, newc


class Member(NamedTuple):
    name: str
    mode: int
    nlink: int
    data: bytes
    rdev: tuple[int, int]


def read_newc(blob: bytes) -> list[Member]:
    """The members of a newc archive up to its trailer; asserts the format's alignment."""
    out: list[Member] = []
    at = 0
    while True:
        assert at % 4 == 0, f"header at {at} is not 4-byte aligned"
        assert blob[at:at + 6] == b"070701"
        fields = [int(blob[at + 6 + 8 * i: at + 14 + 8 * i], 16) for i in range(13)]
        mode, nlink, size, rmajor, rminor, namesize = (fields[1], fields[4], fields[6],
                                                       fields[9], fields[10], fields[11])
        name_at = at + 110
        name = blob[name_at:name_at + namesize]
        assert name.endswith(b"\0")
        data_at = name_at + namesize
        data_at += -data_at % 4
        if name == b"TRAILER!!!\0":
            assert len(blob) - (data_at + size) < 4
            return out
        out.append(Member(name[:-1].decode(), mode, nlink, blob[data_at:data_at + size],
                          (rmajor, rminor)))
        at = data_at + size
        at += -at % 4


def test_an_archive_reads_back_member_for_member() -> None:
    entries = [Entry("bin", stat.S_IFDIR | 0o755), Entry("bin/x", stat.S_IFREG | 0o755, b"abc"),
               Entry("odd-name-length", stat.S_IFREG | 0o644, b"12345"),
               Entry("dev/console", stat.S_IFCHR | 0o600, rdev=(5, 1))]
    got = read_newc(newc(entries))
    assert [(m.name, m.mode, m.data, m.rdev) for m in got] == [
        (e.name, e.mode, e.data, e.rdev) for e in entries]
    assert got[0].nlink == 2 and got[1].nlink == 1


@pytest.mark.parametrize("name", ["/init", "a\0b"])
def test_a_bad_member_name_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match="bad member name"):
        newc([Entry(name, stat.S_IFREG | 0o644)])


def test_the_initramfs_has_init_busybox_a_console_and_modules_in_load_order() -> None:
    members = {m.name: m for m in read_newc(archive(b"BUSYBOX", [("virtio.ko", b"v"),
                                                                ("virtio_blk.ko", b"b")]))}
    init = members["init"]
    assert init.data == INIT.encode() and init.mode & 0o111
    assert init.data.startswith(b"#!/bin/busybox sh\n")
    assert members["bin/busybox"].data == b"BUSYBOX"
    console = members["dev/console"]
    assert stat.S_ISCHR(console.mode) and console.rdev == (5, 1)
    modules = sorted(n for n in members if n.startswith("modules/") and n.endswith(".ko"))
    assert modules == ["modules/00-virtio.ko", "modules/01-virtio_blk.ko"]
    for folder in ("dev", "proc", "sys", "root"):
        assert stat.S_ISDIR(members[folder].mode)


def test_init_mounts_the_root_disk_and_hands_over_to_systemd() -> None:
    assert "mount -t ext4 -o rw /dev/vda /root" in INIT
    assert INIT.rstrip().endswith("exec $b switch_root /root /sbin/init")
    assert "reboot -f" in INIT  # a failure ends the VM (qemu -no-reboot) instead of hanging


def test_init_with_overlayroot_mounts_the_disk_read_only_under_a_tmpfs_overlay() -> None:
    """overlayroot=tmpfs (the overlayroot package's switch): /dev/vda read-only without a
    journal replay, a tmpfs upper, both kept where the package keeps them."""
    assert "overlayroot=tmpfs" in INIT
    assert "mount -t ext4 -o ro,noload /dev/vda /lower" in INIT
    assert "mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work" in INIT
    assert "/root/media/root-ro" in INIT and "/root/media/root-rw" in INIT
    assert "overlay" in ROOT_MODULES


def test_modules_load_dependencies_first_each_once() -> None:
    blk = ("insmod /lib/modules/6.1/kernel/drivers/virtio/virtio.ko \n"
           "insmod /lib/modules/6.1/kernel/drivers/virtio/virtio_ring.ko \n"
           "insmod /lib/modules/6.1/kernel/drivers/block/virtio_blk.ko \n")
    pci = ("insmod /lib/modules/6.1/kernel/drivers/virtio/virtio.ko \n"
           "insmod /lib/modules/6.1/kernel/drivers/virtio/virtio_pci.ko \n")
    ext4 = ("builtin crc16\n"
            "insmod /lib/modules/6.1/kernel/fs/jbd2/jbd2.ko \n"
            "insmod /lib/modules/6.1/kernel/fs/ext4/ext4.ko \n")
    assert [p.rsplit("/", 1)[1] for p in module_paths([pci, blk, ext4])] == [
        "virtio.ko", "virtio_pci.ko", "virtio_ring.ko", "virtio_blk.ko", "jbd2.ko", "ext4.ko"]
