"""The appliance test's plumbing, without a VM: the guest agent's protocol, the kernel the
VM boots (the ELF inside Debian's bzImage), qemu's command line (no network device at all),
the base image's cache key and package list, the files a run copies in, and the device
flags the reference game shares with the VM's service."""

from __future__ import annotations

import json
import lzma
import subprocess
import zlib
from pathlib import Path

import pytest

from scripts.appliance.guest import agent
from scripts.appliance.harness import GUEST, REPO, device_flags
from scripts.appliance.image import (
    BuildError,
    apt_packages,
    base_inputs,
    base_key,
    project_files,
)
from scripts.appliance.vm import Hello, extract_vmlinux, qemu_argv

ELF = b"\x7fELF" + bytes(range(256)) * 64


# ------------------------------------------------------------------ the guest agent
def test_the_agent_runs_a_command_and_answers_its_exit_status_and_output() -> None:
    line = json.dumps({"id": 7, "argv": ["sh", "-c", "echo out; echo err >&2; exit 3"]})
    assert agent.answer(line) == {"id": 7, "rc": 3, "out": "out\n", "err": "err\n"}


def test_the_agent_answers_a_batch_in_order() -> None:
    line = json.dumps({"id": 8, "batch": [["sh", "-c", "sleep 0.2; echo first"],
                                          ["sh", "-c", "echo second"],
                                          ["/nonexistent/program"]]})
    reply = agent.answer(line)
    assert reply["id"] == 8
    assert [(r["rc"], r["out"]) for r in reply["results"]] == [
        (0, "first\n"), (0, "second\n"), (127, "")]
    assert "/nonexistent/program" in reply["results"][2]["err"]


def test_the_agent_kills_a_command_that_runs_over_its_time() -> None:
    reply = agent.answer(json.dumps({"id": 9, "argv": ["sleep", "30"], "timeout_s": 0.3}))
    assert (reply["id"], reply["rc"]) == (9, -9)
    assert "timed out" in reply["err"]


@pytest.mark.parametrize("line", ["not json", "[1, 2]", '{"argv": ["true"]}',
                                  '{"id": 1, "argv": 5}'])
def test_a_bad_request_is_answered_not_fatal(line: str) -> None:
    reply = agent.answer(line)
    assert (reply["id"], reply["rc"]) == (None, 2)
    assert "bad request" in reply["err"]


def test_ready_is_placed_on_the_host_clock_from_the_guest_clock() -> None:
    hello = Hello(at=100.0, ready_mono_us=14_000_000, now_mono_us=15_500_000, boot_id="b")
    assert hello.ready_at == pytest.approx(98.5)
    assert Hello(at=100.0, ready_mono_us=0, now_mono_us=1, boot_id="b").ready_at is None


# ------------------------------------------------------------------ the VM
def test_the_elf_kernel_is_found_inside_an_xz_bzimage() -> None:
    payload = lzma.compress(ELF, format=lzma.FORMAT_XZ)
    # a stray XZ magic in the setup code must not stop the search
    bzimage = b"MZ" + b"\x00" * 500 + b"\xfd7zXZ\x00garbage" + payload + b"\x00" * 64
    assert extract_vmlinux(bzimage) == ELF


def test_the_elf_kernel_is_found_inside_a_gzip_bzimage() -> None:
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    payload = packer.compress(ELF) + packer.flush()
    assert extract_vmlinux(b"HdrS" + b"\x01" * 100 + payload + b"tail") == ELF


def test_a_kernel_without_a_known_payload_is_booted_as_it_is() -> None:
    not_elf = lzma.compress(b"just data", format=lzma.FORMAT_XZ)
    assert extract_vmlinux(b"MZ" + not_elf) is None
    assert extract_vmlinux(b"MZ" + b"\x00" * 1000) is None


def test_the_vm_has_no_network_device_and_a_raw_virtio_disk(tmp_path: Path) -> None:
    argv = qemu_argv(kernel=tmp_path / "k", initrd=tmp_path / "i", disk=tmp_path / "d.img",
                     console=tmp_path / "c.log", control=tmp_path / "s", accel="tcg")
    assert argv[argv.index("-nic") + 1] == "none"
    assert "-nodefaults" in argv  # no default NIC, VGA, floppy or CD either
    assert not any("netdev" in a or a == "-net" for a in argv)
    assert argv[argv.index("-accel") + 1] == "tcg,thread=multi"
    drive = argv[argv.index("-drive") + 1]
    assert f"file={tmp_path / 'd.img'}" in drive and "format=raw" in drive
    assert "if=virtio" in drive and "cache=unsafe" not in drive
    assert "root=/dev/vda" in argv[argv.index("-append") + 1]
    kvm = qemu_argv(kernel=tmp_path / "k", initrd=tmp_path / "i", disk=tmp_path / "d.img",
                    console=tmp_path / "c.log", control=tmp_path / "s", accel="kvm")
    assert kvm[kvm.index("-accel") + 1] == "kvm" and "host" in kvm


def test_the_vm_has_a_watchdog_and_ends_at_a_reset_unless_told(tmp_path: Path) -> None:
    common = dict(kernel=tmp_path / "k", initrd=tmp_path / "i", disk=tmp_path / "d.img",
                  console=tmp_path / "c.log", control=tmp_path / "s", accel="tcg")
    argv = qemu_argv(**common)  # type: ignore[arg-type]
    assert argv[argv.index("-device", argv.index("i6300esb") - 1) + 1] == "i6300esb"
    assert argv[argv.index("-action") + 1] == "watchdog=reset"
    assert "-no-reboot" in argv
    resets = qemu_argv(**common, reboot=True, disks=[tmp_path / "state.img"],  # type: ignore[arg-type]
                       cmdline="root=/dev/vda overlayroot=tmpfs")
    assert "-no-reboot" not in resets
    drives = [resets[i + 1] for i, a in enumerate(resets) if a == "-drive"]
    assert [d.split(",")[0] for d in drives] == [f"file={tmp_path / 'd.img'}",
                                                  f"file={tmp_path / 'state.img'}"]
    assert resets[resets.index("-append") + 1] == "root=/dev/vda overlayroot=tmpfs"


# ------------------------------------------------------------------ the images
def test_the_base_has_every_package_make_install_checks_for() -> None:
    packages = apt_packages(REPO)
    assert {"python3-venv", "libgbm1", "libasound2"} <= set(packages)
    assert packages == sorted(set(packages))


def test_a_script_without_apt_packages_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "systemd").mkdir()
    (tmp_path / "systemd" / "install.sh").write_text("#!/bin/sh\necho nothing\n")
    with pytest.raises(BuildError, match=r"install.sh has no APT_PACKAGES"):
        apt_packages(tmp_path)


def test_the_cache_key_follows_the_pins_not_the_project(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "systemd").mkdir(parents=True)
    (repo / "systemd" / "install.sh").write_text('APT_PACKAGES="python3 libgbm1"\n')
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\ndependencies = ["a>=1"]\n')
    (repo / "constraints.txt").write_text("a==1.0\n")
    (repo / "engine.py").write_text("x = 1\n")
    key = base_key(base_inputs(repo, "http://deb.debian.org/debian"))
    (repo / "engine.py").write_text("x = 2\n")  # the project changes every run
    assert base_key(base_inputs(repo, "http://deb.debian.org/debian")) == key
    (repo / "constraints.txt").write_text("a==1.1\n")
    pinned = base_key(base_inputs(repo, "http://deb.debian.org/debian"))
    assert pinned != key
    assert base_key(base_inputs(repo, "http://mirror.example/debian")) != pinned


def test_a_run_copies_tracked_and_new_files_but_not_ignored_or_deleted(
    tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)

    git("init", "-q")
    (repo / ".gitignore").write_text("out/\n*.pyc\n")
    (repo / "kept.py").write_text("1\n")
    (repo / "gone.py").write_text("2\n")
    git("add", ".")
    git("-c", "user.email=t@e", "-c", "user.name=t", "commit", "-q", "-m", "x")
    (repo / "gone.py").unlink()
    (repo / "new.py").write_text("3\n")
    (repo / "out").mkdir()
    (repo / "out" / "frame.png").write_text("x")
    (repo / "kept.pyc").write_text("x")
    assert sorted(project_files(repo)) == [".gitignore", "kept.py", "new.py"]


# ------------------------------------------------------------------ the service's flags
def test_the_reference_game_gets_the_flags_the_vm_service_runs_with() -> None:
    flags = device_flags((GUEST / "appliance-test.conf").read_text())
    assert flags == ["--bot-move-ms", "250"]
    from device.modes.cli import build_parser

    assert build_parser().parse_args(flags).bot_move_ms == 250


def test_device_flags_read_the_last_exec_start() -> None:
    text = ("[Service]\nExecStart=\nExecStart=/opt/partytable/.venv/bin/python -m device "
            "--bot-move-ms 100 --seed 5\n")
    assert device_flags(text) == ["--bot-move-ms", "100", "--seed", "5"]
    assert device_flags("[Service]\nEnvironment=A=1\n") == []
