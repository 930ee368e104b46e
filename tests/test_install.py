"""``make install`` / ``make uninstall`` run for real into a temporary root (``DESTDIR``),
and what they lay down there, file by file (systemd/install.sh, systemd/README.md).

The scenario (one module-scoped run, about 12 s: two venv builds with pip, both from the
machine's pip cache once it is warm):

1. ``make install DESTDIR=<root> NO_APT=1`` into an empty root: the exact list of paths outside
   the venv with their modes, the source equal to what ``git ls-files`` ships, compiled; the
   venv holding exactly the runtime pins of ``constraints.txt``; the unit enabled (the
   ``multi-user.target.wants/`` link); the user and groups written by ``systemd-sysusers
   --root`` into ``<root>/etc``; the unit's ExecStart python importing ``device`` from
   ``/opt/partytable`` with ``PYTHONPATH`` unset.
2. the same install again: every file, link and directory identical (content, mode, mtime).
3. ``make uninstall`` twice, on a copy of that root: exactly the install's paths are gone,
   config and the accounts are kept.
4. a config of the party's own (here a broken one), a state directory and a Raspberry Pi's
   ``/boot/firmware/config.txt`` and kernel with ``spidev`` present before the install: config
   and games come through install and uninstall byte for byte, the install names the config's
   problem in one line, adds the watchdog's three lines to config.txt once (a second install
   leaves all as it is) and ``spidev`` to the modules; the uninstall leaves config.txt as it
   was.

Skipped, with the reason, where systemctl or systemd-sysusers (Debian's ``systemd`` package)
or Debian's ``/usr/bin/python3`` with ``venv`` is missing.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import subprocess
import tempfile
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "systemd" / "install.sh"
PYTHON3 = "/usr/bin/python3"
PREFIX = "opt/partytable"
SOURCE_DIRS = ("engine", "drivers", "device", "docs")
TOP_FILES = ("pyproject.toml", "README.md", "constraints.txt")
GROUPS = ("gpio", "i2c", "spi", "dialout", "video", "render", "input", "audio")
RUN_TIMEOUT_S = 900


def _missing_tools() -> str | None:
    """Why the DESTDIR install cannot run here, or None."""
    for tool in ("make", "systemctl", "systemd-sysusers"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed here (Debian's systemd package / make)"
    if not os.access(PYTHON3, os.X_OK):
        return f"{PYTHON3} is not installed here (apt-get install python3 python3-venv)"
    ok = subprocess.run([PYTHON3, "-c", "import venv, ensurepip"], capture_output=True,
                        check=False)
    if ok.returncode != 0:
        return f"{PYTHON3} has no venv/ensurepip here (apt-get install python3-venv)"
    return None


MISSING = _missing_tools()
needs_tools = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")


# --- helpers ----------------------------------------------------------------------------------


def run_make(target: str, root: Path) -> subprocess.CompletedProcess[str]:
    """``make <target> DESTDIR=<root> NO_APT=1`` from the repository, PYTHONPATH unset;
    returns the finished process (stdout and stderr as text)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DESTDIR", "NO_APT")}
    return subprocess.run(["make", "-s", "-C", str(REPO), target, f"DESTDIR={root}", "NO_APT=1"],
                          capture_output=True, text=True, env=env, timeout=RUN_TIMEOUT_S,
                          check=False)


def snapshot(root: Path) -> dict[str, tuple[object, ...]]:
    """Every path under ``root`` (relative, "" for the root itself) -> (kind, mode, mtime_ns,
    content): a file's sha256, a link's target, a directory's nothing."""
    out: dict[str, tuple[object, ...]] = {}
    for path in [root, *sorted(root.rglob("*"))]:
        st = path.lstat()
        rel = path.relative_to(root).as_posix() if path != root else ""
        mode = stat.S_IMODE(st.st_mode)
        if stat.S_ISLNK(st.st_mode):
            out[rel] = ("link", os.readlink(path))
        elif stat.S_ISDIR(st.st_mode):
            out[rel] = ("dir", mode, st.st_mtime_ns)
        else:
            out[rel] = ("file", mode, st.st_mtime_ns,
                        hashlib.sha256(path.read_bytes()).hexdigest())
    return out


def outside_venv(snap: dict[str, tuple[object, ...]]) -> dict[str, tuple[object, ...]]:
    """The snapshot without the venv's own files (checked by what it imports and holds)."""
    venv = f"{PREFIX}/.venv"
    return {p: v for p, v in snap.items() if p != venv and not p.startswith(venv + "/")}


def shipped_sources() -> list[str]:
    """What the install must copy: the files git tracks under engine/ drivers/ device/ (that
    exist in the work tree) and the three top-level files."""
    done = subprocess.run(["git", "-c", f"safe.directory={REPO}", "-C", str(REPO), "ls-files",
                           "--", *SOURCE_DIRS], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip("not a git checkout: the shipped file list comes from git ls-files")
    files = [f for f in done.stdout.splitlines() if (REPO / f).is_file()]
    return sorted(files) + list(TOP_FILES)


def pins() -> dict[str, tuple[str, Requirement]]:
    """constraints.txt as {canonical name: (version, requirement)}; raises AssertionError on a
    line that is not ``name==version [; marker]``."""
    out: dict[str, tuple[str, Requirement]] = {}
    for raw in (REPO / "constraints.txt").read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        req = Requirement(line)
        specs = list(req.specifier)
        assert len(specs) == 1 and specs[0].operator == "==", f"not an exact pin: {line!r}"
        out[canonicalize_name(req.name)] = (specs[0].version, req)
    return out


def unit_settings(path: Path) -> dict[str, list[str]]:
    """The unit file's keys (all sections) -> values in order."""
    out: dict[str, list[str]] = {}
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";", "[")):
            continue
        key, _, value = line.partition("=")
        out.setdefault(key.strip(), []).append(value.strip())
    return out


def etc_table(root: Path, name: str) -> dict[str, list[str]]:
    """``<root>/etc/passwd`` or ``group`` as {name: the other fields}."""
    rows = (line.split(":") for line in (root / "etc" / name).read_text().splitlines() if line)
    return {row[0]: row[1:] for row in rows}


def clean_env() -> dict[str, str]:
    """This environment without PYTHONPATH and the venv's markers (as systemd starts it)."""
    return {k: v for k, v in os.environ.items()
            if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}


@dataclass
class Scenario:
    """What the module's one run recorded (see the module docstring)."""

    root: Path
    first: subprocess.CompletedProcess[str]
    after_first: dict[str, tuple[object, ...]]
    second: subprocess.CompletedProcess[str]
    after_second: dict[str, tuple[object, ...]]
    device_file: str
    device_help_rc: int
    check_config: subprocess.CompletedProcess[str]
    uninstall: subprocess.CompletedProcess[str]
    after_uninstall: dict[str, tuple[object, ...]]
    uninstall_again: subprocess.CompletedProcess[str]
    after_uninstall_again: dict[str, tuple[object, ...]]
    own_root: Path
    own_before: dict[str, tuple[object, ...]]
    own_install: subprocess.CompletedProcess[str]
    own_after_install: dict[str, tuple[object, ...]]
    own_modules: str
    own_install_again: subprocess.CompletedProcess[str]
    own_after_install_again: dict[str, tuple[object, ...]]
    own_uninstall: subprocess.CompletedProcess[str]
    own_after_uninstall: dict[str, tuple[object, ...]]


OWN_CONFIG = '# the Muellers\' box\n[display]\ndriver = "hdmi-please"\n'
OWN_DB = b"SQLite format 3\x00 stands in for the party's games"
OWN_FIRMWARE = ("# the Pi's own config.txt\ndtparam=audio=on\n\n[pi4]\narm_boost=1\n\n"
                "[cm4]\notg_mode=1")  # no newline at the end, as an editor may leave it
SPIDEV = "lib/modules/6.6.51+rpt-rpi-v8/kernel/drivers/spi/spidev.ko.xz"


@pytest.fixture(scope="module")
def scenario() -> Iterator[Scenario]:
    """Runs the whole install / reinstall / uninstall sequence once for the module."""
    if MISSING is not None:
        pytest.skip(MISSING)
    base = Path(tempfile.mkdtemp(prefix="partytable-destdir-"))
    try:
        root = base / "root"
        root.mkdir()
        first = run_make("install", root)
        assert first.returncode == 0, first.stdout + first.stderr
        after_first = snapshot(root)
        python = root / PREFIX / ".venv" / "bin" / "python"
        probe = subprocess.run([str(python), "-c", "import device; print(device.__file__)"],
                               capture_output=True, text=True, env=clean_env(), cwd=root,
                               timeout=120, check=False)
        assert probe.returncode == 0, probe.stderr
        helped = subprocess.run([str(python), "-m", "device", "--help"], capture_output=True,
                                text=True, env=clean_env(), cwd=root, timeout=120, check=False)
        checked = subprocess.run([str(python), "-m", "device", "check-config",
                                  str(root / "etc/partytable/config.toml")],
                                 capture_output=True, text=True, env=clean_env(), cwd=root,
                                 timeout=120, check=False)
        # the probes must not have written anything (no bytecode next to the sources)
        assert snapshot(root) == after_first
        second = run_make("install", root)
        after_second = snapshot(root)
        # uninstall a copy (cp -a keeps modes, times and links), so the tests can still read
        # the installed root
        gone = base / "uninstalled"
        subprocess.run(["cp", "-a", str(root), str(gone)], check=True, timeout=300)
        assert snapshot(gone) == after_second
        uninstall = run_make("uninstall", gone)
        after_uninstall = snapshot(gone)
        uninstall_again = run_make("uninstall", gone)
        after_uninstall_again = snapshot(gone)

        own = base / "own"
        (own / "etc/partytable").mkdir(parents=True)
        (own / "etc/partytable/config.toml").write_text(OWN_CONFIG)
        state = own / "var/lib/partytable"
        state.mkdir(parents=True, mode=0o700)
        (state / "partytable.db").write_bytes(OWN_DB)
        (own / "boot/firmware").mkdir(parents=True)
        (own / "boot/firmware/config.txt").write_text(OWN_FIRMWARE)
        (own / SPIDEV).parent.mkdir(parents=True)
        (own / SPIDEV).write_bytes(b"stands in for the Pi kernel's spidev module")
        own_before = snapshot(own)
        own_install = run_make("install", own)
        own_after_install = snapshot(own)
        modules = own / "etc/modules-load.d/partytable.conf"
        own_modules = modules.read_text() if modules.exists() else ""
        own_install_again = run_make("install", own)
        own_after_install_again = snapshot(own)
        own_uninstall = run_make("uninstall", own)
        own_after_uninstall = snapshot(own)
        yield Scenario(root, first, after_first, second, after_second, probe.stdout.strip(),
                       helped.returncode, checked, uninstall, after_uninstall,
                       uninstall_again, after_uninstall_again, own, own_before, own_install,
                       own_after_install, own_modules, own_install_again, own_after_install_again,
                       own_uninstall, own_after_uninstall)
    finally:
        shutil.rmtree(base, ignore_errors=True)


# --- what the first install lays down ---------------------------------------------------------


def expected_paths() -> dict[str, tuple[str, int | None]]:
    """Every path outside the venv after an install into an empty root -> (kind, mode);
    a link's mode is None."""
    tag = subprocess.run([PYTHON3, "-c", "import sys; print(sys.implementation.cache_tag)"],
                         capture_output=True, text=True, check=True).stdout.strip()
    dirs = {"", "etc", "etc/systemd", "etc/systemd/system",
            "etc/systemd/system/multi-user.target.wants", "etc/sysusers.d", "etc/udev",
            "etc/udev/rules.d", "etc/partytable", "etc/modules-load.d",
            "etc/systemd/system.conf.d", "opt", PREFIX, f"{PREFIX}/.venv"}
    out: dict[str, tuple[str, int | None]] = {
        "etc/systemd/system/partytable.service": ("file", 0o644),
        "etc/systemd/system/multi-user.target.wants/partytable.service": ("link", None),
        "etc/sysusers.d/partytable.conf": ("file", 0o644),
        "etc/udev/rules.d/99-partytable.rules": ("file", 0o644),
        "etc/modules-load.d/partytable.conf": ("file", 0o644),
        "etc/systemd/system.conf.d/partytable.conf": ("file", 0o644),
        "etc/partytable/config.toml": ("file", 0o644),
        # systemd-sysusers --root: the account files, shadow ones unreadable, and its lock
        "etc/passwd": ("file", 0o644), "etc/group": ("file", 0o644),
        "etc/shadow": ("file", 0o000), "etc/gshadow": ("file", 0o000),
        "etc/.pwd.lock": ("file", 0o600),
        f"{PREFIX}/.created-dirs": ("file", 0o644),
    }
    for rel in shipped_sources():
        out[f"{PREFIX}/{rel}"] = ("file", 0o644)
        parts = rel.split("/")
        for i in range(1, len(parts)):
            dirs.add(f"{PREFIX}/{'/'.join(parts[:i])}")
        if rel.endswith(".py"):
            cache = "/".join([*parts[:-1], "__pycache__"])
            dirs.add(f"{PREFIX}/{cache}")
            out[f"{PREFIX}/{cache}/{parts[-1][:-3]}.{tag}.pyc"] = ("file", 0o644)
    for d in dirs:
        out[d] = ("dir", 0o755)
    return out


@needs_tools
def test_install_lays_down_exactly_these_paths_with_these_modes(scenario: Scenario) -> None:
    got = {p: (v[0], None if v[0] == "link" else v[1])
           for p, v in outside_venv(scenario.after_first).items()}
    got[f"{PREFIX}/.venv"] = ("dir", scenario.after_first[f"{PREFIX}/.venv"][1])
    want = expected_paths()
    assert sorted(set(got) - set(want)) == [], "laid down but not expected"
    assert sorted(set(want) - set(got)) == [], "expected but not laid down"
    wrong = {p: (got[p], want[p]) for p in want if got[p] != want[p]}
    assert wrong == {}


@needs_tools
def test_copied_files_equal_the_repository(scenario: Scenario) -> None:
    root = scenario.root
    for rel in shipped_sources():
        assert (root / PREFIX / rel).read_bytes() == (REPO / rel).read_bytes(), rel
    assert (root / "etc/partytable/config.toml").read_bytes() == \
        (REPO / "device/config.toml").read_bytes()
    for name, dest in (("partytable.service", "etc/systemd/system/partytable.service"),
                       ("partytable.sysusers", "etc/sysusers.d/partytable.conf"),
                       ("99-partytable.rules", "etc/udev/rules.d/99-partytable.rules"),
                       # no spidev in this root's kernel (none at all): the list as it ships
                       ("partytable.modules", "etc/modules-load.d/partytable.conf"),
                       ("partytable-watchdog.conf",
                        "etc/systemd/system.conf.d/partytable.conf")):
        assert (root / dest).read_bytes() == (REPO / "systemd" / name).read_bytes(), dest
    created = (root / PREFIX / ".created-dirs").read_text().split()
    assert "/opt" in created and "/etc/sysusers.d" in created and "/etc" in created


@needs_tools
def test_the_unit_is_enabled_for_multi_user(scenario: Scenario) -> None:
    root = scenario.root
    link = root / "etc/systemd/system/multi-user.target.wants/partytable.service"
    assert os.readlink(link) == "/etc/systemd/system/partytable.service"
    wanted = unit_settings(root / "etc/systemd/system/partytable.service")["WantedBy"]
    assert wanted == ["multi-user.target"]
    state = subprocess.run(["systemctl", f"--root={root}", "is-enabled", "partytable.service"],
                           capture_output=True, text=True, timeout=60, check=False)
    assert state.stdout.strip() == "enabled", state.stdout + state.stderr


@needs_tools
def test_sysusers_made_the_units_user_with_every_group_it_asks_for(scenario: Scenario) -> None:
    root = scenario.root
    unit = unit_settings(root / "etc/systemd/system/partytable.service")
    user, group = unit["User"][0], unit["Group"][0]
    extra = " ".join(unit["SupplementaryGroups"]).split()
    assert set(extra) == set(GROUPS)
    passwd, groups = etc_table(root, "passwd"), etc_table(root, "group")
    assert user in passwd, passwd
    _, uid, gid, _, home, shell = passwd[user]
    assert 0 < int(uid) < 1000, "a system user"
    assert groups[group][1] == gid, "its primary group"
    assert shell.endswith("nologin") and home == "/"
    for name in extra:
        assert user in groups[name][2].split(","), f"{user} is not in group {name}"
    # systemd-sysusers reads the installed file again without complaint and changes nothing
    again = subprocess.run(["systemd-sysusers", f"--root={root}", "--dry-run",
                            "partytable.conf"], capture_output=True, text=True, timeout=60,
                           check=False)
    assert again.returncode == 0 and "Creating" not in again.stdout + again.stderr


@needs_tools
def test_execstart_python_imports_device_from_the_prefix(scenario: Scenario) -> None:
    root = scenario.root
    exec_start = unit_settings(root / "etc/systemd/system/partytable.service")["ExecStart"]
    python, *args = exec_start[0].split()
    assert args == ["-m", "device"]
    assert os.access(root / python.lstrip("/"), os.X_OK)
    assert scenario.device_file == str(root / PREFIX / "device" / "__init__.py")
    assert scenario.device_help_rc == 0
    assert scenario.check_config.returncode == 0, scenario.check_config.stderr
    pth = next((root / PREFIX / ".venv/lib").glob("python3.*/site-packages/partytable.pth"))
    assert pth.read_text() == "../../../..\n", "relative: the same venv works under DESTDIR"


@needs_tools
def test_the_venv_holds_exactly_the_pinned_runtime_set(scenario: Scenario) -> None:
    python = scenario.root / PREFIX / ".venv" / "bin" / "python"
    listed = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m\n"
         "for d in m.distributions(): print(d.metadata['Name'], d.version)"],
        capture_output=True, text=True, env=clean_env(), cwd=scenario.root, timeout=120,
        check=True).stdout
    have: dict[str, str] = {canonicalize_name(n): v
                            for n, v in (line.split() for line in listed.splitlines())}
    pinned = pins()
    runtime = runtime_closure(pinned)
    # pip and setuptools come with the venv itself (python3 -m venv), not from the pins
    assert set(have) - {"pip", "setuptools"} == runtime
    assert {n: have[n] for n in runtime} == {n: pinned[n][0] for n in runtime}


def runtime_closure(pinned: dict[str, tuple[str, Requirement]]) -> set[str]:
    """The canonical names pyproject's runtime dependencies pull in on this machine, read
    from the dev venv's installed metadata (each at its pinned version)."""
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    env = {k: str(v) for k, v in default_environment().items()}
    todo = [Requirement(d) for d in deps]
    seen: set[str] = set()
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({**env, "extra": ""}):
            continue
        name = canonicalize_name(req.name)
        if name in seen or name == "setuptools":
            continue
        seen.add(name)
        for sub in metadata.requires(req.name) or []:
            todo.append(Requirement(sub))
    return seen


# --- twice, and back out ----------------------------------------------------------------------


@needs_tools
def test_a_second_install_changes_nothing(scenario: Scenario) -> None:
    assert scenario.second.returncode == 0, scenario.second.stdout + scenario.second.stderr
    changed = {p for p in scenario.after_first.keys() | scenario.after_second.keys()
               if scenario.after_first.get(p) != scenario.after_second.get(p)}
    assert changed == set()
    out = scenario.second.stdout
    assert "source: /opt/partytable is up to date" in out
    assert "venv: /opt/partytable/.venv is up to date" in out
    assert "config: kept /etc/partytable/config.toml" in out


@needs_tools
def test_a_newer_checkout_replaces_the_source_and_drops_removed_files(
        scenario: Scenario, tmp_path: Path) -> None:
    """An upgrade: a checkout (no .git) with README.md changed and one module gone, installed
    over a copy of the installed root: those two change, the venv (same pins) and everything
    else stay as they were."""
    root = tmp_path / "root"
    subprocess.run(["cp", "-a", str(scenario.root), str(root)], check=True, timeout=300)
    checkout = tmp_path / "checkout"
    systemd = [f"systemd/{p.name}" for p in (REPO / "systemd").iterdir() if p.is_file()]
    for rel in [*shipped_sources(), *systemd]:
        (checkout / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / rel, checkout / rel)
    (checkout / "README.md").write_text("# partytable, a later version\n")
    dropped = "engine/riiing/view.py"
    assert dropped in shipped_sources()
    (checkout / dropped).unlink()
    env = {**clean_env(), "DESTDIR": str(root), "NO_APT": "1"}
    done = subprocess.run(["sh", str(checkout / "systemd/install.sh"), "install"],
                          capture_output=True, text=True, env=env, cwd="/",
                          timeout=RUN_TIMEOUT_S, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "venv: /opt/partytable/.venv is up to date" in done.stdout
    assert (root / PREFIX / "README.md").read_text() == "# partytable, a later version\n"
    before = outside_venv(scenario.after_second)
    after = outside_venv(snapshot(root))
    pyc = [p for p in before if p.startswith(f"{PREFIX}/engine/riiing/__pycache__/view.")]
    assert len(pyc) == 1
    assert set(before) - set(after) == {f"{PREFIX}/{dropped}", *pyc}
    assert set(after) - set(before) == set()
    # outside the prefix (whose own directory changed: README.md was replaced) all stays
    same = {p for p in after
            if not (p == PREFIX or p.startswith(f"{PREFIX}/")) or p.endswith(".created-dirs")}
    assert {p: after[p] for p in same} == {p: before[p] for p in same}
    venv = {p: v for p, v in snapshot(root).items() if p.startswith(f"{PREFIX}/.venv/")}
    assert venv == {p: v for p, v in scenario.after_second.items()
                    if p.startswith(f"{PREFIX}/.venv/")}


@needs_tools
def test_uninstall_removes_what_install_added_and_keeps_config_and_accounts(
        scenario: Scenario) -> None:
    assert scenario.uninstall.returncode == 0, scenario.uninstall.stderr
    kept = {"", "etc", "etc/partytable", "etc/partytable/config.toml", "etc/passwd",
            "etc/group", "etc/shadow", "etc/gshadow", "etc/.pwd.lock"}
    assert set(scenario.after_uninstall) == kept
    assert {p: scenario.after_first[p] for p in kept - {"", "etc"}} == \
        {p: scenario.after_uninstall[p] for p in kept - {"", "etc"}}
    kept_line = [line for line in scenario.uninstall.stdout.splitlines()
                 if line.startswith("kept:")]
    assert kept_line == ["kept: /etc/partytable/config.toml, /var/lib/partytable (the "
                         "party's games) and the partytable user and groups"]


@needs_tools
def test_a_second_uninstall_succeeds_and_changes_nothing(scenario: Scenario) -> None:
    assert scenario.uninstall_again.returncode == 0, scenario.uninstall_again.stderr
    assert scenario.after_uninstall_again == scenario.after_uninstall
    assert "removed: nothing" in scenario.uninstall_again.stdout


@needs_tools
def test_the_partys_own_config_and_games_survive_install_and_uninstall(
        scenario: Scenario) -> None:
    assert scenario.own_install.returncode == 0, scenario.own_install.stderr
    assert scenario.own_uninstall.returncode == 0, scenario.own_uninstall.stderr
    for snap in (scenario.own_after_install, scenario.own_after_uninstall):
        for rel in ("etc/partytable/config.toml", "var/lib/partytable",
                    "var/lib/partytable/partytable.db"):
            assert snap[rel] == scenario.own_before[rel], rel
    out = scenario.own_install.stdout
    assert "config: kept /etc/partytable/config.toml" in out
    # check-config's verdict on the kept config: the broken key by name
    assert re.search(r"config\.toml: display\.driver: unknown video driver 'hdmi-please'",
                     out), out
    assert (scenario.own_root / "etc/partytable/config.toml").read_text() == OWN_CONFIG


def modules_listed(text: str) -> list[str]:
    """A modules-load.d file's module names, in order."""
    return [line.strip() for line in text.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


@needs_tools
def test_systemd_loads_the_device_class_drivers_at_boot(scenario: Scenario) -> None:
    """/etc/modules-load.d/partytable.conf: what systemd-modules-load.service loads before the
    unit starts, so DeviceAllow=char-ttyACM (and the others) resolve at its start; spidev
    only where the kernel has it."""
    shipped = modules_listed((REPO / "systemd/partytable.modules").read_text())
    assert {"cdc_acm", "usbserial", "i2c-dev", "snd", "drm"} <= set(shipped)
    assert "spidev" not in shipped
    installed = scenario.root / "etc/modules-load.d/partytable.conf"
    assert modules_listed(installed.read_text()) == shipped
    assert modules_listed(scenario.own_modules) == [*shipped, "spidev"]
    assert "modules: cdc_acm usbserial i2c-dev drm snd spidev loaded at boot" in \
        scenario.own_install.stdout


@needs_tools
def test_systemd_feeds_the_hardware_watchdog(scenario: Scenario) -> None:
    conf = scenario.root / "etc/systemd/system.conf.d/partytable.conf"
    settings = unit_settings(conf)
    assert conf.read_text().splitlines().count("[Manager]") == 1
    # the Pi's BCM2835 watchdog counts at most 15 s: a longer timeout is refused by its driver
    assert settings["RuntimeWatchdogSec"] == ["15s"]
    assert "not a Raspberry Pi" in scenario.first.stdout


@needs_tools
def test_on_a_pi_config_txt_turns_the_watchdog_on_once_and_uninstall_takes_it_out(
        scenario: Scenario) -> None:
    fw = "boot/firmware/config.txt"
    installed = scenario.own_root / fw
    after = (scenario.own_after_install[fw], scenario.own_after_install_again[fw])
    assert after[0] == after[1], "a second install leaves config.txt as it is"
    text = (OWN_FIRMWARE + "\n# partytable: the hardware watchdog that systemd feeds (make "
            "uninstall removes these 3 lines)\n[all]\ndtparam=watchdog=on\n")
    assert scenario.own_install_again.returncode == 0, scenario.own_install_again.stderr
    assert "watchdog: /boot/firmware/config.txt turns it on" in \
        scenario.own_install_again.stdout
    assert after[0][3] == hashlib.sha256(text.encode()).hexdigest()
    # uninstall: the Pi's own lines stay, with the newline the install had to add at the end
    assert installed.read_text() == OWN_FIRMWARE + "\n"
    assert "config.txt's watchdog lines" in scenario.own_uninstall.stdout
    first, again = scenario.own_after_install, scenario.own_after_install_again
    assert {p for p in first.keys() | again.keys() if first.get(p) != again.get(p)} == set()


@pytest.mark.parametrize(("mounts", "rc", "says"), [
    ({"/": "/ overlay overlay rw,relatime", "/var/lib/partytable":
      "/var/lib/partytable /dev/mmcblk0p3 ext4 rw,noatime"}, 0, "ok: / is a read-only overlay"),
    ({"/": "/ overlay overlay rw,relatime", "/var/lib/partytable":
      "/ overlay overlay rw,relatime"}, 1, "is on it (in RAM): the games are lost"),
    ({"/": "/ overlay overlay rw,relatime", "/var/lib/partytable":
      "/var/lib/partytable /dev/sda1 ext4 ro,noatime"}, 1, "mounted read-only"),
    ({"/": "/ /dev/mmcblk0p2 ext4 rw,noatime", "/var/lib/partytable":
      "/ /dev/mmcblk0p2 ext4 rw,noatime"}, 1, "first give /var/lib/partytable a partition"),
    ({"/": "/ /dev/mmcblk0p2 ext4 rw,noatime", "/var/lib/partytable":
      "/var/lib/partytable /dev/mmcblk0p3 ext4 rw"}, 1, "ready, turn the overlay on"),
])
def test_readonly_check_says_whether_the_games_survive_a_read_only_root(
        tmp_path: Path, mounts: dict[str, str], rc: int, says: str) -> None:
    """``make readonly-check`` on the mounts findmnt reports (a stand-in findmnt first on
    PATH prints what util-linux's prints with ``-n -r -o TARGET,SOURCE,FSTYPE,OPTIONS
    --target``); the appliance test runs the real one on both of its VM layouts."""
    fake = tmp_path / "findmnt"
    # the state directory, or /var/lib where this machine has none (install.sh looks there)
    cases = "\n".join(f'    "{path}"{"|/var/lib" if path != "/" else ""}) echo "{line}" ;;'
                      for path, line in mounts.items())
    fake.write_text(f'#!/bin/sh\nfor a; do t=$a; done\ncase $t in\n{cases}\n'
                    '    *) echo "/ overlay overlay rw" ;;\nesac\n')
    fake.chmod(0o755)
    env = {**clean_env(), "PATH": f"{tmp_path}:{os.environ['PATH']}"}
    env.pop("DESTDIR", None)
    done = subprocess.run(["sh", str(SCRIPT), "readonly-check"], capture_output=True, text=True,
                          env=env, cwd="/", timeout=60, check=False)
    assert done.returncode == rc, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("readonly-check: ") and says in lines[0], lines


def install_sh_files(script: Path) -> list[str]:
    """``sh <script> files``: the source files that install would copy, one a line."""
    done = subprocess.run(["sh", str(script), "files"], capture_output=True, text=True,
                          env=clean_env(), cwd="/", timeout=60, check=True)
    return done.stdout.splitlines()


def test_a_copy_without_git_ships_the_same_files(tmp_path: Path) -> None:
    """The VM's image and a tarball have no .git: install.sh then lists the files itself and
    must ship the same ones, bytecode and lgpio's FIFO left out."""
    shipped = shipped_sources()
    assert sorted(install_sh_files(SCRIPT)) == sorted(shipped)
    copy = tmp_path / "partytable"
    for rel in [*shipped, "systemd/install.sh"]:
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / rel, copy / rel)
    (copy / "device/__pycache__").mkdir()
    (copy / "device/__pycache__/main.cpython-311.pyc").write_bytes(b"stale")
    (copy / "device/.lgd-nfy0").write_bytes(b"")
    assert sorted(install_sh_files(copy / "systemd/install.sh")) == sorted(shipped)


# --- refusals, one line each ------------------------------------------------------------------


def as_nobody(script: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Runs ``sh script args`` as uid/gid 65534 (setpriv) when this test runs as root, else
    as this user (who is then not root anyway)."""
    cmd = ["sh", str(script), *args]
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("setpriv (util-linux) is not installed: cannot drop root")
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *cmd]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd="/", timeout=60,
                          check=False)


@pytest.mark.parametrize("action", ["install", "uninstall"])
def test_without_root_and_without_destdir_it_asks_for_root(action: str) -> None:
    # a copy of the script in a directory anyone may read (pytest's tmp_path is 0700)
    tmp = Path(tempfile.mkdtemp(prefix="partytable-noroot-"))
    try:
        tmp.chmod(0o755)
        (tmp / "systemd").mkdir(mode=0o755)
        copy = tmp / "systemd" / "install.sh"
        shutil.copyfile(SCRIPT, copy)
        copy.chmod(0o644)
        env = {k: v for k, v in clean_env().items() if k != "DESTDIR"}
        done = as_nobody(copy, action, env=env)
        assert done.returncode == 1
        assert done.stderr.splitlines() == [f"make {action} needs root (sudo make {action})"]
        assert done.stdout == ""
        assert sorted(p.name for p in tmp.rglob("*")) == ["install.sh", "systemd"]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_a_relative_destdir_is_refused_in_one_line() -> None:
    env = {**clean_env(), "DESTDIR": "some/root"}
    done = subprocess.run(["sh", str(SCRIPT), "install"], capture_output=True, text=True,
                          env=env, cwd=tempfile.gettempdir(), timeout=60, check=False)
    assert done.returncode == 1
    assert done.stderr.splitlines() == \
        ["make install: DESTDIR must be an absolute path, got 'some/root'"]


# --- constraints.txt --------------------------------------------------------------------------


def test_constraints_pin_every_dependency_exactly_and_the_dev_venv_has_them() -> None:
    """Every requirement of pyproject (runtime and dev, and what they pull in here) has an
    ``==`` pin that satisfies it, and the environment running this test holds exactly the
    pinned versions (CI and ``make install`` use the same file)."""
    pinned = pins()
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    declared = [Requirement(d) for d in project["dependencies"]]
    declared += [Requirement(d) for d in project["optional-dependencies"]["dev"]]
    for req in declared:
        name = canonicalize_name(req.name)
        assert name in pinned, f"{req.name} is not pinned in constraints.txt (make constraints)"
        version, pin = pinned[name]
        assert req.specifier.contains(version, prereleases=True), f"{pin} breaks {req}"
        assert str(req.marker or "") == str(pin.marker or ""), f"{pin}: marker differs from {req}"
    env = {k: str(v) for k, v in default_environment().items()}
    todo = list(declared)
    seen: set[str] = set()
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({**env, "extra": ""}):
            continue
        name = canonicalize_name(req.name)
        if name in seen or name == "setuptools":
            continue
        seen.add(name)
        assert name in pinned, f"{req.name} (pulled in here) is not pinned (make constraints)"
        assert metadata.version(req.name) == pinned[name][0], \
            f"{req.name} {metadata.version(req.name)} is installed, {pinned[name][0]} pinned"
        todo.extend(Requirement(r) for r in metadata.requires(req.name) or [])
    applicable = {n for n, (_, r) in pinned.items()
                  if r.marker is None or r.marker.evaluate({**env, "extra": ""})}
    assert applicable == seen, "pinned but not needed: " + ", ".join(sorted(applicable - seen))


def test_the_pi_only_lgpio_pin_applies_on_the_pi_and_nowhere_else() -> None:
    version, req = pins()["lgpio"]
    assert version.startswith("0.2.2")
    assert req.marker is not None
    for machine, applies in (("aarch64", True), ("armv7l", True), ("x86_64", False)):
        assert req.marker.evaluate({"platform_machine": machine}) is applies, machine


# --- the udev rules ---------------------------------------------------------------------------

RULES = REPO / "systemd" / "99-partytable.rules"
TOKEN = re.compile(r'\s*([A-Z_]+)(?:\{([^}]+)\})?\s*(==|!=|\+=|-=|:=|=)\s*"([^"]*)"\s*(?:,|$)')
MATCH_KEYS = {"ACTION", "SUBSYSTEM", "KERNEL", "ATTRS", "ENV"}
ASSIGN_KEYS = {"GROUP", "MODE", "ENV", "TAG", "GOTO", "LABEL"}


def rules() -> list[list[tuple[str, str | None, str, str]]]:
    """The rules file as lines of (key, {attribute}, operator, value); raises AssertionError
    naming the first line that is not a comma-separated list of such tokens."""
    out = []
    for number, raw in enumerate(RULES.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        tokens, pos = [], 0
        while pos < len(line):
            m = TOKEN.match(line, pos)
            assert m, f"99-partytable.rules:{number}: cannot read {line[pos:]!r}"
            key, attr, op, value = m.groups()
            tokens.append((key, attr, op, value))
            pos = m.end()
        out.append(tokens)
    return out


def test_udev_rules_are_well_formed() -> None:
    labels, gotos = set(), set()
    for tokens in rules():
        for key, _, op, value in tokens:
            if op in ("==", "!="):
                assert key in MATCH_KEYS, f"{key} cannot be matched"
            else:
                assert key in ASSIGN_KEYS and op in ("=", "+="), f"{key}{op} is not an assignment"
            if key == "MODE":
                assert re.fullmatch(r"0[0-7]{3}", value), value
            labels |= {value} if key == "LABEL" else set()
            gotos |= {value} if key == "GOTO" else set()
    assert gotos <= labels


def test_udev_rules_give_handhelds_and_gpio_i2c_spi_to_the_units_groups() -> None:
    """A MicroPython board's ttyACM port (USB id 2e8a:0005, or the manufacturer string that
    also names its /dev/serial/by-id link in hardware/handheld/README.md) gets dialout 0660,
    is kept from ModemManager and tagged for systemd; gpiochip/i2c/spidev get their groups."""
    lines = rules()
    marked = [t for t in lines if ("ENV", "PARTYTABLE_HANDHELD", "=", "1") in t]
    assert marked and all(("KERNEL", None, "==", "ttyACM[0-9]*") in t for t in marked)
    ids = {(a, v) for t in marked for k, a, _, v in t if k == "ATTRS"}
    assert ("idVendor", "2e8a") in ids and ("idProduct", "0005") in ids
    maker = next(v for a, v in ids if a == "manufacturer")
    readme = (REPO / "hardware/handheld/README.md").read_text()
    assert f"/dev/serial/by-id/usb-{maker}_" in readme
    acting = next(t for t in lines if ("ENV", "PARTYTABLE_HANDHELD", "==", "1") in t)
    assert ("GROUP", None, "=", "dialout") in acting and ("MODE", None, "=", "0660") in acting
    assert ("ENV", "ID_MM_DEVICE_IGNORE", "=", "1") in acting
    assert ("TAG", None, "+=", "systemd") in acting
    unit = unit_settings(REPO / "systemd" / "partytable.service")
    extra = set(" ".join(unit["SupplementaryGroups"]).split())
    for kernel, group in (("gpiochip[0-9]*", "gpio"), ("i2c-[0-9]*", "i2c"),
                          ("spidev[0-9]*", "spi")):
        rule = next(t for t in lines if ("KERNEL", None, "==", kernel) in t)
        assert ("GROUP", None, "=", group) in rule and ("MODE", None, "=", "0660") in rule
        assert group in extra
    assert "dialout" in extra
    # sysusers declares every group the rules hand out
    sysusers = (REPO / "systemd" / "partytable.sysusers").read_text().split("\n")
    members = {line.split()[2] for line in sysusers if line.startswith("m ")}
    assert members == extra
