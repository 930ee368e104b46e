"""The virtual Pi's GPIO: the kernel's ``gpio-sim`` built for the appliance VM's kernel, and
the lgpio wheel the project's real pin factory needs in the guest.

Debian's kernels build neither ``CONFIG_GPIO_SIM`` nor ``CONFIG_IRQ_SIM``, so
:func:`ensure_gpio_sim` builds both out of tree as ONE module, ``gpio-sim.ko``, for the exact
kernel of the appliance base (read from its ``/boot``):

- in a throwaway copy of the base tree (``cp -a --reflink=auto``), a chroot installs
  Debian's ``linux-source-6.1`` and ``linux-headers-<kver>`` with ``gcc`` and ``make``
  (the tree has Debian's apt sources; the chroot uses the host's network);
- three files come out of the source tarball: ``drivers/gpio/gpio-sim.c``,
  ``drivers/gpio/gpiolib.h`` and ``kernel/irq/irq_sim.c``;
- ``irq_sim.c`` calls ``irq_to_desc``, which the kernel does not export to modules:
  :func:`patch_irq_sim` turns its one ``handle_simple_irq(irq_to_desc(irq))`` into
  ``generic_handle_irq(irq)`` (the same handler reached through the exported entry);
- :data:`KBUILD` links ``gpio-sim-main.o`` (the renamed ``gpio-sim.c``) and ``irq_sim.o``
  into ``gpio-sim.ko`` against ``/lib/modules/<kver>/build``.

The result is cached under ``<cache>/gpio-sim-<kver>-b<BUILDER>/gpio-sim.ko``: the key is the
kernel version and :data:`BUILDER`.  The module is unsigned: ``insmod`` taints the kernel
(Debian's kernel does not enforce signatures without Secure Boot), which the VM accepts.

:func:`lgpio_wheel_argv` is how the host's pip fetches ``lgpio`` for CPython 3.11 on x86-64
(PyPI's manylinux_2_34 wheel contains lg statically; Bookworm's glibc is 2.36): the project's
venv installs lgpio only on ARM (``pyproject.toml``'s marker), so the virtual Pi's base puts
this wheel into ``/opt/partytable/.venv`` itself (:mod:`scripts.virtual_pi.image`); boot it
with :data:`TCG_CPU` under TCG (the wheel needs x86-64-v2).  The guest's tools
(``guest/gpiosim.py``, ``guest/fairness.py``) make the chip and measure the slaps.

Every failure raises :class:`scripts.appliance.image.BuildError` with one line.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from scripts.appliance.image import BuildError, Log, cache_lock, chroot, run

BUILDER = 1
"""Bump to rebuild every cached module (a change in how it is built)."""

SOURCES = {
    "drivers/gpio/gpio-sim.c": "gpio-sim-main.c",
    "drivers/gpio/gpiolib.h": "gpiolib.h",
    "kernel/irq/irq_sim.c": "irq_sim.c",
}
"""Files taken from ``linux-source-6.1``'s tarball and their names in the build folder
(``gpio-sim.c`` is renamed: a module ``gpio-sim`` cannot link an object of its own name)."""

KBUILD = "obj-m := gpio-sim.o\ngpio-sim-y := gpio-sim-main.o irq_sim.o\n"
"""The out-of-tree build's ``Kbuild``: one module of both objects."""

LGPIO_VERSION = "0.2.2.0"
"""The lgpio the project pins (``constraints.txt``)."""

LGPIO_PLATFORM = "manylinux_2_34_x86_64"

_IRQ_TO_DESC = re.compile(r"handle_simple_irq\(\s*irq_to_desc\(\s*([A-Za-z_]\w*)\s*\)\s*\)")


def patch_irq_sim(source: str) -> str:
    """``kernel/irq/irq_sim.c``'s text with its one ``handle_simple_irq(irq_to_desc(X))``
    replaced by ``generic_handle_irq(X)``: ``irq_to_desc`` is not exported to modules, and
    ``generic_handle_irq`` looks the descriptor up itself and runs its flow handler (the
    simulator's ``handle_simple_irq``).  Raises ``ValueError`` when the call is not there
    exactly once, or another ``irq_to_desc`` is left (the module would not link).

    >>> patch_irq_sim("x; handle_simple_irq(irq_to_desc(irqnum));\\n")
    'x; generic_handle_irq(irqnum);\\n'
    """
    patched, count = _IRQ_TO_DESC.subn(r"generic_handle_irq(\1)", source)
    if count != 1:
        raise ValueError(f"irq_sim.c: expected one handle_simple_irq(irq_to_desc(...)) call, "
                         f"found {count}")
    if "irq_to_desc" in patched:
        raise ValueError("irq_sim.c: another irq_to_desc call is left after the patch")
    return patched


def kernel_version(rootfs: Path) -> str:
    """The kernel version of the tree ``rootfs`` (``6.1.0-50-amd64``): its newest
    ``/boot/vmlinuz-*``; raises :class:`BuildError` when there is none."""
    kernels = sorted((rootfs / "boot").glob("vmlinuz-*"))
    if not kernels:
        raise BuildError("gpio-sim", f"no kernel in {rootfs / 'boot'}")
    return kernels[-1].name.removeprefix("vmlinuz-")


def module_dir(cache: Path, kver: str) -> Path:
    """Where the module for kernel ``kver`` is cached: ``<cache>/gpio-sim-<kver>-b<BUILDER>``."""
    return cache / f"gpio-sim-{kver}-b{BUILDER}"


def build_script(kver: str) -> str:
    """The chroot's shell script: install the source, headers and compiler, unpack
    :data:`SOURCES` into ``/build/src``.  ``kver``: the kernel version."""
    members = " ".join(f"'*/{name}'" for name in SOURCES)
    return (
        "set -e; export DEBIAN_FRONTEND=noninteractive; "
        "apt-get update -q; "
        "apt-get install -y -q --no-install-recommends "
        f"linux-source-6.1 linux-headers-{kver} gcc make xz-utils; "
        "rm -rf /build; mkdir -p /build/src; "
        "tar -xJf /usr/src/linux-source-6.1.tar.xz -C /build/src --strip-components=1 "
        f"--wildcards {members}"
    )


def ensure_gpio_sim(base_rootfs: Path, cache: Path, log: Log) -> Path:
    """The cached ``gpio-sim.ko`` for the kernel of ``base_rootfs`` (the appliance base's
    tree, only read: it is copied), built when missing (a few minutes: the source and
    headers packages are downloaded in a chroot of the copy) under an exclusive lock of
    ``cache``.  Returns the module's path; raises :class:`BuildError` with one line."""
    kver = kernel_version(base_rootfs)
    if cache.resolve() == base_rootfs.resolve().parent.parent:
        raise BuildError("gpio-sim", f"cache {cache} is the appliance cache: give another folder")
    done = module_dir(cache, kver)
    module = done / "gpio-sim.ko"
    with cache_lock(cache, exclusive=True):
        if module.exists():
            log(f"gpio-sim: cached ({module})")
            return module
        work = cache / f"gpio-sim-{kver}-b{BUILDER}.partial"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        root = work / "rootfs"
        try:
            t0 = time.monotonic()
            with cache_lock(base_rootfs.parent.parent, exclusive=False):
                run("gpio-sim: copy base", ["cp", "-a", "--reflink=auto", str(base_rootfs),
                                            str(root)])
            log(f"gpio-sim: apt-get install linux-source-6.1 linux-headers-{kver} ...")
            chroot("gpio-sim: packages", root, ["sh", "-c", build_script(kver)],
                   timeout=1800)
            build = root / "build"
            for name, dest in SOURCES.items():
                source = build / "src" / name
                try:
                    text = source.read_text(encoding="utf-8")
                except OSError as err:
                    raise BuildError("gpio-sim", f"cannot read {name} from linux-source-6.1: "
                                     f"{err.strerror}") from None
                if dest == "irq_sim.c":
                    try:
                        text = patch_irq_sim(text)
                    except ValueError as err:
                        raise BuildError("gpio-sim", str(err)) from None
                (build / dest).write_text(text, encoding="utf-8")
            (build / "Kbuild").write_text(KBUILD, encoding="ascii")
            log("gpio-sim: make modules ...")
            chroot("gpio-sim: make", root, ["make", "-C", f"/lib/modules/{kver}/build",
                                            "M=/build", "modules"], timeout=1200)
            done.mkdir(parents=True, exist_ok=True)
            staged = done / "gpio-sim.ko.partial"
            shutil.copyfile(build / "gpio-sim.ko", staged)
            (done / "irq_sim.c.patched").write_text((build / "irq_sim.c").read_text())
            staged.rename(module)
            log(f"gpio-sim: built {module} in {time.monotonic() - t0:.0f} s")
            return module
        except OSError as err:
            raise BuildError("gpio-sim", f"{err.filename}: {err.strerror}") from None
        finally:
            shutil.rmtree(work, ignore_errors=True)


def cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$VIRTUAL_PI_CACHE``, else ``${XDG_CACHE_HOME:-~/.cache}/partytable/virtual-pi``
    (apart from the appliance cache, whose lock guards its base)."""
    env = os.environ if environ is None else environ
    if env.get("VIRTUAL_PI_CACHE"):
        return Path(env["VIRTUAL_PI_CACHE"])
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "partytable" / "virtual-pi"


def lgpio_wheel_argv(dest: Path, python: str = sys.executable) -> list[str]:
    """``pip download`` of lgpio :data:`LGPIO_VERSION` for CPython 3.11 on x86-64 into
    ``dest`` (binary only, no dependencies: lgpio has none)."""
    return [python, "-m", "pip", "download", "--quiet", "--no-input", "--only-binary=:all:",
            "--platform", LGPIO_PLATFORM, "--python-version", "3.11", "--no-deps",
            f"lgpio=={LGPIO_VERSION}", "-d", str(dest)]


TCG_CPU = ("-cpu", "Nehalem")
"""qemu's CPU for a TCG boot that runs lgpio: PyPI's manylinux_2_34 wheel is compiled for
x86-64-v2 (its ``PyInit__lgpio`` uses SSE4.1's ``pinsrq``), which TCG's default CPU
(``qemu64``) lacks -- ``import lgpio`` dies of SIGILL ("trap invalid opcode ... in
_lgpio.cpython-311-x86_64-linux-gnu.so").  Nehalem has SSE4.2 and no AVX: with ``max``
(AVX2 and more) Mesa's llvmpipe JIT-compiles AVX code that crashed the console with
SIGSEGV in its page flips under TCG, again and again."""
