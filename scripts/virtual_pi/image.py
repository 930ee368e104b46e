"""The virtual Pi's disks: the appliance's base with the modules and libraries a Pi's hardware
needs, and a run disk with the virtual Pi's guest files.

The base (:data:`VIRTUAL_PI`, cached beside the appliance's as ``virtual-pi-<key>``) is the
appliance base (:func:`scripts.appliance.image.ensure_base`) but for two things:

- Debian's DRM modules stay (the appliance base leaves ``drivers/gpu`` out): ``virtio-gpu``
  is the TV, through Mesa's software GBM/EGL (``libgbm1``, ``libegl-mesa0``,
  ``libgl1-mesa-dri``, which ``make install`` installs on a Pi too);
- lgpio is installed into ``/opt/partytable/.venv``: the project's dependency on it holds
  only on ARM (a Pi), and PyPI's x86-64 wheel (``manylinux_2_34``, lg's C library linked in;
  Bookworm has glibc 2.36) runs the real lgpio pin factory against the VM's GPIO character
  device (:func:`lgpio_wheel`).

A change to what goes in (:data:`VERSION`, the appliance base's inputs) rebuilds it.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from scripts.appliance.image import (
    EXCLUDED_PATHS,
    WHEELS,
    BuildError,
    Flavour,
    chroot,
    run,
)

from .gpio_sim import lgpio_wheel_argv

VERSION = 1
"""Bump to rebuild the virtual Pi's base (a change to :func:`post_install`)."""

VENV_PIP = "/opt/partytable/.venv/bin/pip"


def lgpio_wheel(dest: Path) -> Path:
    """PyPI's lgpio wheel for CPython 3.11 on x86-64 (``manylinux_2_34``) in ``dest``, by
    the host's pip (:func:`scripts.virtual_pi.gpio_sim.lgpio_wheel_argv`); its path.
    Raises :class:`BuildError` when pip finds none."""
    dest.mkdir(parents=True, exist_ok=True)
    found = sorted(dest.glob("lgpio-*.whl"))
    if not found:
        run("lgpio wheel", lgpio_wheel_argv(dest), timeout=300)
        found = sorted(dest.glob("lgpio-*.whl"))
    if not found:
        raise BuildError("lgpio wheel", f"pip downloaded no lgpio wheel into {dest}")
    return found[-1]


def post_install(root: Path, log: Callable[[str], None]) -> None:
    """The virtual Pi's step on the finished base tree ``root``: lgpio into the project's
    venv from the wheel (offline, in a chroot).  Raises :class:`BuildError`."""
    wheels = root / WHEELS.lstrip("/")
    wheel = lgpio_wheel(wheels)
    chroot("lgpio", root, [VENV_PIP, "install", "--quiet", "--no-index", "--no-deps",
                           f"{WHEELS}/{wheel.name}"],
           env={"PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    chroot("lgpio import", root, ["/opt/partytable/.venv/bin/python", "-c", "import lgpio"])
    log(f"virtual-pi image: {wheel.name} in /opt/partytable/.venv")


VIRTUAL_PI = Flavour(
    "virtual-pi",
    tuple(p for p in EXCLUDED_PATHS if "drivers/gpu" not in p),
    post=post_install,
    version=VERSION,
)
"""The virtual Pi's base: DRM modules kept, lgpio in the venv."""


def copy_module(root: Path, module: Path, version: str) -> str:
    """Lay ``module`` (an out-of-tree ``.ko``) under ``root``'s ``/lib/modules/<version>/
    extra`` and run ``depmod`` there, so ``modprobe`` finds it; its path in the tree."""
    extra = root / "lib" / "modules" / version / "extra"
    extra.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(module, extra / module.name)
    chroot("depmod", root, ["depmod", version])
    return f"/lib/modules/{version}/extra/{module.name}"
