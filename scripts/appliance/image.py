"""The appliance VM's disks: a cached Debian Bookworm base and a fresh disk per run.

The base (built once, cached under ``<cache>/base-<key>/``; docs/hardware-facts.md, "A virtual
machine for the appliance tests"):

- ``mmdebstrap --mode=root --variant=minbase bookworm`` from Debian's mirror with systemd,
  udev, the Debian kernel (``linux-image-amd64``), make and the run-time packages
  ``make install`` asks for (``APT_PACKAGES`` in ``systemd/install.sh``, so its apt step
  finds them all installed and needs no network later);
- a boot set up for a headless VM: root on ``/dev/vda`` (fstab), a volatile journal
  forwarded to the serial console, a machine id, and the units a headless test box has no
  use for masked;
- the project's pinned dependencies: wheels built on the host by its own pip
  (``pip wheel -c constraints.txt``: the host's index, proxy and certificates apply) into
  ``/var/cache/partytable-appliance/wheels`` in the tree, then ``make install`` run once in
  a chroot of the tree with ``PIP_NO_INDEX=1 PIP_FIND_LINKS=`` that folder, which builds
  ``/opt/partytable/.venv`` exactly as a Pi gets it.

The key is a hash of everything that went into the base: this module's :data:`BUILDER`
version and package lists, the mirror, ``APT_PACKAGES``, ``pyproject.toml``'s dependencies and
``constraints.txt``.  The project itself changes every run, so it is not in the base: each
run copies the base tree (``cp -a --reflink=auto``), copies the repository's files in, runs
``make install`` in a chroot again (the venv's stamp matches: only the source and the files
around it change), lays the test's guest files in, builds the minimal initramfs
(:mod:`.initramfs`: busybox, virtio, ext4 and overlay; a second or two, so a change to it
needs no new base) and makes an ext4 image of the tree with ``mke2fs -d`` (no mount, no loop
device); for the read-only root layout a second image of the same tree with its own fstab
and an empty state disk (:class:`RunDisks`).  A run never inherits another run's state.

Every step that fails raises :class:`BuildError` with one line naming the step, and the
last lines of its output.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .initramfs import ROOT_MODULES, archive, module_paths

BUILDER = 2
"""Bump to rebuild every cached base (a change in how it is built that the inputs below do
not show)."""

SUITE = "bookworm"
DEFAULT_MIRROR = "http://deb.debian.org/debian"

VM_PACKAGES = ("systemd", "systemd-sysv", "udev", "linux-image-amd64", "busybox-static",
               "make", "python3", "python3-venv")
"""Debian packages of the VM itself (``APT_PACKAGES`` of install.sh come on top); the static
busybox runs the VM's own initramfs (:mod:`.initramfs`).  No git:
the copy of the repository in the tree is the files ``git ls-files`` lists (tracked and new),
so install.sh's own file list (``find``, without git) ships the same ones."""

MASKED_UNITS = (
    # timers and jobs of a long-running box: none of them may fire during a test
    "apt-daily.timer", "apt-daily-upgrade.timer", "dpkg-db-backup.timer", "e2scrub_all.timer",
    "e2scrub_reap.service", "fstrim.timer", "systemd-tmpfiles-clean.timer",
    # kernel interfaces the console never uses (each a unit systemd starts at boot)
    "proc-sys-fs-binfmt_misc.automount", "systemd-binfmt.service",
    "sys-fs-fuse-connections.mount", "sys-kernel-config.mount", "sys-kernel-debug.mount",
    "sys-kernel-tracing.mount", "dev-hugepages.mount", "systemd-pstore.service",
    "kmod-static-nodes.service", "modprobe@.service",
    # logins: nobody logs in to the test VM (the serial console only shows the boot)
    "systemd-logind.service", "getty-static.service", "serial-getty@ttyS0.service",
    "systemd-update-utmp.service",
    "systemd-update-utmp-runlevel.service",
)
"""Units masked in the VM: what a headless test box has no use for, to shorten its boot
(power-on to READY is one of the figures, and a party waits for it)."""

EXCLUDED_PATHS = (
    "/usr/share/man/*", "/usr/share/doc/*", "/usr/share/locale/*",
    # kernel modules for hardware a qemu VM without network or display never has (Bookworm's
    # kernel package installs under /lib/modules): most of its 400 MB, so each run copies
    # and formats less; sound/ stays (``modules-load.d/partytable.conf`` loads snd)
    *(f"/lib/modules/*/kernel/{d}/*" for d in (
        "drivers/net", "drivers/gpu", "drivers/media", "drivers/infiniband", "drivers/iio",
        "drivers/staging")),
)
"""What dpkg leaves out of the base (``path-exclude``); copyright files stay."""


@dataclass(frozen=True)
class Flavour:
    """Which base to build: ``name`` (the cache folder's prefix, ``base`` for the appliance
    test's), ``excluded`` (dpkg's ``path-exclude`` patterns) and ``post`` (a step run on the
    finished tree, ``post(rootfs, log)``, after the first ``make install``; raises
    :class:`BuildError`).  ``version`` goes into the key with the name, so a change to the
    post step rebuilds that flavour's base and no other."""

    name: str
    excluded: tuple[str, ...]
    post: Callable[[Path, Callable[[str], None]], None] | None = None
    version: int = 0


APPLIANCE = Flavour("base", EXCLUDED_PATHS)
"""The appliance test's base (no display or network modules)."""

JOURNALD = ("[Journal]\nStorage=volatile\nForwardToConsole=yes\nMaxLevelConsole=info\n"
            "TTYPath=/dev/ttyS0\n")
"""The VM's journald.conf.d drop-in: the journal of the current boot is all the test reads
(a journal file cut by every power cut would only add noise), forwarded to ttyS0 for the
run's console logs."""

WHEELS = "/var/cache/partytable-appliance/wheels"
"""Where the base keeps the pinned wheels, for ``make install`` offline in each run."""

SRC = "/usr/src/partytable"
"""Where each run copies the repository in the VM's tree (``make install`` runs there)."""

GUEST_FILES: Mapping[str, str] = {
    "agent.py": "/usr/local/lib/partytable-appliance/agent.py",
    "hotplug.sh": "/usr/local/lib/partytable-appliance/hotplug.sh",
    "appliance-agent.service": "/etc/systemd/system/appliance-agent.service",
    "appliance-probe.service": "/etc/systemd/system/appliance-probe.service",
    "appliance-test.conf": "/etc/systemd/system/partytable.service.d/appliance-test.conf",
    "config.toml": "/etc/partytable/config.toml",
}
"""The test's own files in ``scripts/appliance/guest/`` and where each run lays them."""

INSTALL_SH = "/usr/local/lib/partytable-appliance/install.sh"
"""Where each run lays the repository's ``systemd/install.sh``: the harness runs its
``readonly-check`` in the guest, on both layouts."""

STATE_LABEL = "partytable-state"
OVERLAY_FSTAB = (f"# the read-only root (overlayroot=tmpfs): the games on a disk of their own\n"
                 f"LABEL={STATE_LABEL} /var/lib/partytable ext4 rw,noatime 0 0\n")
"""The read-only root layout's ``/etc/fstab``: no line for ``/`` (the initramfs mounts the
overlay, as the ``overlayroot`` package's does), the state disk at the state directory
(systemd/README.md, "A read-only root")."""

GUEST_ENABLE = (("appliance-agent.service", "multi-user.target.wants"),
                ("appliance-probe.service", "partytable.service.wants"))

CHROOT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

Log = Callable[[str], None]


class BuildError(Exception):
    """A step of the image build failed: ``str(err)`` is one line naming it."""

    def __init__(self, step: str, detail: str, output: str = "") -> None:
        super().__init__(f"{step}: {detail}")
        self.output = output
        """The step's last output lines, for the log above the failure line."""


@dataclass(frozen=True)
class Base:
    """A built base: ``rootfs`` (the tree), ``kernel`` (copied out of its ``/boot``),
    ``key`` (its cache key) and ``built`` (True when this run built it)."""

    rootfs: Path
    kernel: Path
    key: str
    built: bool


def apt_packages(repo: Path) -> list[str]:
    """``APT_PACKAGES`` of ``systemd/install.sh`` (the run-time packages ``make install``
    checks for), sorted; raises :class:`BuildError` when the script has none."""
    script = repo / "systemd" / "install.sh"
    try:
        text = script.read_text(encoding="utf-8")
    except OSError as err:
        raise BuildError("base image", f"cannot read {script}: {err.strerror}") from None
    match = re.search(r'^APT_PACKAGES="([^"]*)"', text, re.MULTILINE)
    if match is None:
        raise BuildError("base image", f"{script} has no APT_PACKAGES=\"...\" line")
    return sorted(set(match.group(1).split()))


def dependencies(repo: Path) -> list[str]:
    """``[project] dependencies`` of ``pyproject.toml``, as written (with markers)."""
    with open(repo / "pyproject.toml", "rb") as f:
        deps = tomllib.load(f)["project"]["dependencies"]
    return [str(d) for d in deps]


def base_inputs(repo: Path, mirror: str, flavour: Flavour = APPLIANCE) -> dict[str, object]:
    """Everything that goes into the base of ``flavour``, as a JSON-able object (its hash is
    the key; the appliance's has no ``flavour`` entry)."""
    constraints = repo / "constraints.txt"
    inputs: dict[str, object] = {
        "builder": BUILDER,
        "suite": SUITE,
        "mirror": mirror,
        "packages": sorted(set(VM_PACKAGES) | set(apt_packages(repo))),
        "masked": list(MASKED_UNITS),
        "excluded": list(flavour.excluded),
        "boot": [JOURNALD],
        "dependencies": dependencies(repo),
        "constraints": constraints.read_text(encoding="utf-8") if constraints.exists() else "",
        "python": f"{sys.version_info.major}.{sys.version_info.minor}",
    }
    if flavour != APPLIANCE:
        inputs["flavour"] = [flavour.name, flavour.version]
    return inputs


def base_key(inputs: Mapping[str, object]) -> str:
    """The cache key: 16 hex digits of the SHA-256 of ``inputs`` as canonical JSON."""
    canonical = json.dumps(inputs, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def run(step: str, argv: Sequence[str], *, env: Mapping[str, str] | None = None,
        cwd: Path | None = None, timeout: float = 1200.0) -> str:
    """Run ``argv``; its combined output.  Raises :class:`BuildError` naming ``step``
    when it fails, is missing or runs over ``timeout`` seconds."""
    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, errors="replace",
                              env=dict(env) if env is not None else None, cwd=cwd,
                              timeout=timeout, check=False, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise BuildError(step, f"{argv[0]} is not installed") from None
    except subprocess.TimeoutExpired:
        raise BuildError(step, f"{argv[0]} ran over {timeout:.0f} s") from None
    output = done.stdout + done.stderr
    if done.returncode != 0:
        tail = output.strip().splitlines()[-1:] or ["(no output)"]
        raise BuildError(step, f"{argv[0]} failed (exit {done.returncode}): {tail[0][:200]}",
                         "\n".join(output.strip().splitlines()[-30:]))
    return output


def chroot(step: str, root: Path, argv: Sequence[str], *,
           env: Mapping[str, str] | None = None, timeout: float = 1200.0) -> str:
    """Run ``argv`` in a chroot of ``root`` with ``/proc``, ``/sys`` and ``/dev`` mounted in
    a private mount namespace (``unshare --mount``: the mounts go away with it, even when
    the step fails) and a clean environment (``PATH``, ``HOME``, ``LANG`` and ``env``: no
    host setting leaks into the tree).  Raises :class:`BuildError` naming ``step``."""
    inner = {"PATH": CHROOT_PATH, "HOME": "/root", "LANG": "C.UTF-8", **(env or {})}
    script = ('set -e; r="$1"; shift; mount -t proc proc "$r/proc"; '
              'mount -t sysfs sysfs "$r/sys"; mount --rbind /dev "$r/dev"; '
              'exec chroot "$r" "$@"')
    return run(step, ["unshare", "--mount", "--propagation", "private", "--fork", "--",
                      "sh", "-c", script, "sh", str(root), "env", "-i",
                      *(f"{k}={v}" for k, v in inner.items()), *argv],
               timeout=timeout)


def project_files(repo: Path) -> list[str]:
    """The repository's files as its working tree has them (tracked and new, not ignored;
    deleted ones left out), relative paths; every file but ``.git`` and ignored ones when
    ``repo`` is no git checkout."""
    try:
        out = subprocess.run(
            ["git", "-C", str(repo), "ls-files", "-z", "--cached", "--others",
             "--exclude-standard"], capture_output=True, check=True, timeout=60).stdout
        names = [n for n in out.decode().split("\0") if n]
        return [n for n in names if (repo / n).is_file()]
    except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired):
        skip = {".git", ".venv", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache",
                ".hypothesis", "out", "build"}
        found = []
        for path in sorted(repo.rglob("*")):
            rel = path.relative_to(repo)
            if path.is_file() and not skip.intersection(rel.parts):
                found.append(str(rel))
        return found


def copy_project(repo: Path, dest: Path) -> int:
    """Copy :func:`project_files` of ``repo`` under ``dest``; how many files."""
    files = project_files(repo)
    for name in files:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo / name, target)
    return len(files)


def make_install(step: str, root: Path, repo: Path) -> str:
    """Copy the repository to :data:`SRC` in ``root`` and run ``make install`` there in a
    chroot, pip offline from the base's wheels; its output."""
    src = root / SRC.lstrip("/")
    shutil.rmtree(src, ignore_errors=True)
    copy_project(repo, src)
    return chroot(step, root, ["make", "-C", SRC, "install"],
                  env={"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": WHEELS,
                       "PIP_DISABLE_PIP_VERSION_CHECK": "1"})


def build_wheels(repo: Path, dest: Path) -> str:
    """The runtime dependencies at the pinned versions as wheels in ``dest``, by the host
    venv's pip (this interpreter, a CPython 3.11 like Bookworm's, so compiled wheels fit)."""
    dest.mkdir(parents=True, exist_ok=True)
    reqs = dest / "requirements.txt"
    reqs.write_text("\n".join(dependencies(repo)) + "\n", encoding="utf-8")
    argv = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-input", "-w", str(dest),
            "-r", str(reqs)]
    if (repo / "constraints.txt").exists():
        argv[5:5] = ["-c", str(repo / "constraints.txt")]
    out = run("wheels", argv)
    reqs.unlink()
    return out


def setup_boot(root: Path) -> None:
    """The VM's boot: fstab, hostname, machine id, volatile journal to the console, masked
    units."""
    etc = root / "etc"
    (etc / "fstab").write_text("/dev/vda / ext4 rw,errors=remount-ro 0 0\n")
    (etc / "hostname").write_text("partytable-vm\n")
    (etc / "machine-id").write_text(uuid.uuid4().hex + "\n")
    journald = etc / "systemd" / "journald.conf.d"
    journald.mkdir(parents=True, exist_ok=True)
    (journald / "appliance.conf").write_text(JOURNALD)
    system = etc / "systemd" / "system"
    for unit in MASKED_UNITS:
        link = system / unit
        link.unlink(missing_ok=True)
        link.symlink_to("/dev/null")
    for wants in system.glob("*.wants"):
        for link in wants.iterdir():
            if link.name in MASKED_UNITS:
                link.unlink()


def make_initramfs(root: Path, version: str) -> bytes:
    """The VM's initramfs (:mod:`.initramfs`) for kernel ``version`` of the tree ``root``:
    its busybox and the root disk's modules; raises :class:`BuildError`."""
    outputs = [chroot("initramfs", root, ["modprobe", "--show-depends", "-S", version, name])
               for name in ROOT_MODULES]
    paths = module_paths(outputs)
    if not paths:
        raise BuildError("initramfs", f"modprobe lists no modules for {', '.join(ROOT_MODULES)}")
    busybox = root / "bin" / "busybox"
    try:
        modules = [(Path(p).name, (root / p.lstrip("/")).read_bytes()) for p in paths]
        return archive(busybox.read_bytes(), modules)
    except OSError as err:
        raise BuildError("initramfs", f"cannot read {err.filename}: {err.strerror}") from None


def _debootstrap(root: Path, mirror: str, packages: Sequence[str],
                 excluded: Sequence[str] = EXCLUDED_PATHS) -> str:
    # force-unsafe-io: no fsync per unpacked file (a failed build is thrown away anyway)
    opts = ["--dpkgopt=force-unsafe-io",
            *(f"--dpkgopt=path-exclude={p}" for p in excluded),
            "--dpkgopt=path-include=/usr/share/doc/*/copyright"]
    return run("mmdebstrap", ["mmdebstrap", "--mode=root", "--variant=minbase", "--quiet",
                              f"--include={','.join(packages)}", *opts, SUITE,
                              str(root), mirror], timeout=1500)


@contextlib.contextmanager
def cache_lock(cache: Path, *, exclusive: bool) -> Iterator[None]:
    """``flock`` on ``<cache>/lock``: exclusive to build or remove a base, shared to copy
    one, so two runs at once neither build twice nor copy a base being removed."""
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield


def ensure_base(repo: Path, cache: Path, log: Log, *, mirror: str = DEFAULT_MIRROR,
                flavour: Flavour = APPLIANCE) -> Base:
    """The base of ``flavour`` for ``repo``: from ``cache`` when its key is there, else
    built (a few minutes) and cached, that flavour's other keys' bases removed so the cache
    holds one of each (an exclusive :func:`cache_lock`).  Raises :class:`BuildError`."""
    inputs = base_inputs(repo, mirror, flavour)
    key = base_key(inputs)
    prefix = flavour.name
    with cache_lock(cache, exclusive=True):
        done = cache / f"{prefix}-{key}"
        if (done / "complete").exists():
            log(f"{prefix} image: cached ({done})")
            return _base(done, key, built=False)
        for old in cache.glob(f"{prefix}-*"):
            shutil.rmtree(old, ignore_errors=True)
        work = cache / f"{prefix}-{key}.partial"
        root = work / "rootfs"
        work.mkdir(parents=True)
        (work / "inputs.json").write_text(json.dumps(inputs, indent=1) + "\n")
        packages = list(inputs["packages"])  # type: ignore[call-overload]
        t0 = time.monotonic()
        log(f"base image: mmdebstrap {SUITE} from {mirror} ({len(packages)} packages) ...")
        _debootstrap(root, mirror, packages, flavour.excluded)
        log(f"base image: mmdebstrap done in {time.monotonic() - t0:.0f} s")
        t1 = time.monotonic()
        build_wheels(repo, root / WHEELS.lstrip("/"))
        setup_boot(root)
        make_install("make install (base)", root, repo)
        shutil.rmtree(root / SRC.lstrip("/"), ignore_errors=True)
        boot = sorted((root / "boot").glob("vmlinuz-*"))
        if not boot:
            raise BuildError("base image", f"no kernel in {root / 'boot'}")
        shutil.copy2(boot[-1], work / "vmlinuz")
        for unused in (root / "boot").glob("initrd.img-*"):  # initramfs-tools' own, 36 MB
            unused.unlink()
        if flavour.post is not None:
            flavour.post(root, log)
        log(f"base image: wheels, boot set-up and venv in {time.monotonic() - t1:.0f} s")
        (work / "complete").write_text(key + "\n")
        work.rename(done)
        return _base(done, key, built=True)


def _base(path: Path, key: str, *, built: bool) -> Base:
    return Base(rootfs=path / "rootfs", kernel=path / "vmlinuz", key=key, built=built)


@dataclass(frozen=True)
class RunDisks:
    """A run's disks: ``root`` (``disk.img``, the root read-write with the state directory
    on it), ``initrd`` (:mod:`.initramfs` for the tree's kernel) and, for the read-only
    root layout, ``overlay_root`` (``overlay-root.img``: the same tree with
    :data:`OVERLAY_FSTAB`) and ``state`` (``state.img``: an empty ext4 labelled
    :data:`STATE_LABEL`), or ``None``."""

    root: Path
    initrd: Path
    overlay_root: Path | None
    state: Path | None


def make_run_disk(base: Base, repo: Path, guest: Path, work: Path, log: Log,
                  *, size_mb: int = 3072, overlay: bool = False,
                  state_mb: int = 256, guest_files: Mapping[str, str] = GUEST_FILES,
                  enable: Sequence[tuple[str, str]] = GUEST_ENABLE,
                  tree: Callable[[Path], None] | None = None) -> RunDisks:
    """A fresh ``work/disk.img`` (raw ext4, ``size_mb`` MiB, sparse) of the base with the
    project installed by ``make install`` and the test's guest files (``guest_files``: a
    name in ``guest/`` -> its path in the tree, default :data:`GUEST_FILES`; ``enable``:
    ``(unit, wants folder)`` links, default :data:`GUEST_ENABLE`; and :data:`INSTALL_SH`)
    laid in, ``tree(rootfs)`` run on the tree after ``make install`` (a scenario's own
    files), its initramfs, and with ``overlay`` the read-only root layout's two disks
    (:class:`RunDisks`); the copied tree is removed afterwards.  Raises
    :class:`BuildError`."""
    root = work / "rootfs"
    with cache_lock(base.rootfs.parent.parent, exclusive=False):
        run("copy base", ["cp", "-a", "--reflink=auto", str(base.rootfs), str(root)])
    try:
        boot = sorted((root / "boot").glob("vmlinuz-*"))
        if not boot:
            raise BuildError("initramfs", f"no kernel in {root / 'boot'}")
        initrd = work / "initrd.img"
        initrd.write_bytes(make_initramfs(root, boot[-1].name.removeprefix("vmlinuz-")))
        target = root / INSTALL_SH.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(repo / "systemd" / "install.sh", target)
        target.chmod(0o644)
        # the computer-only config first: make install keeps a config that is there
        for name, dest in guest_files.items():
            target = root / dest.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(guest / name, target)
            target.chmod(0o644)
        for unit, wants in enable:
            folder = root / "etc" / "systemd" / "system" / wants
            folder.mkdir(parents=True, exist_ok=True)
            (folder / unit).unlink(missing_ok=True)
            (folder / unit).symlink_to(f"/etc/systemd/system/{unit}")
        out = make_install("make install", root, repo)
        for line in out.strip().splitlines():
            log(f"  {line}")
        shutil.rmtree(root / SRC.lstrip("/"), ignore_errors=True)
        if tree is not None:
            tree(root)
        disk = work / "disk.img"
        run("mke2fs", ["mke2fs", "-q", "-F", "-t", "ext4", "-L", "partytable-vm", "-d",
                       str(root), str(disk), f"{size_mb}M"])
        if not overlay:
            return RunDisks(root=disk, initrd=initrd, overlay_root=None, state=None)
        (root / "etc" / "fstab").write_text(OVERLAY_FSTAB)
        (root / "var" / "lib" / "partytable").mkdir(mode=0o755, exist_ok=True)
        lower = work / "overlay-root.img"
        run("mke2fs (read-only root)", ["mke2fs", "-q", "-F", "-t", "ext4", "-L",
                                        "partytable-vm", "-d", str(root), str(lower),
                                        f"{size_mb}M"])
        state = work / "state.img"
        run("mke2fs (state disk)", ["mke2fs", "-q", "-F", "-t", "ext4", "-L", STATE_LABEL,
                                    str(state), f"{state_mb}M"])
        return RunDisks(root=disk, initrd=initrd, overlay_root=lower, state=state)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$APPLIANCE_CACHE``, else ``${XDG_CACHE_HOME:-~/.cache}/partytable/appliance``."""
    env = os.environ if environ is None else environ
    if env.get("APPLIANCE_CACHE"):
        return Path(env["APPLIANCE_CACHE"])
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "partytable" / "appliance"
