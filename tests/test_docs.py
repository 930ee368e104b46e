"""The documents inside the repository are the ones the code cites (docs/README.md).

- Every rule id cited in the code, the tests and the documents (``RI-<n>[.<m>]`` for
  Riiing!, ``RT-<n>[.<m>]`` for Right on Time) is defined in ``docs/rules/`` (a heading
  ``## RI-6 ...`` or a list item ``- RI-6.3 ...``), and no id is defined twice.
- Every document named anywhere in the repository's text files (a ``<name>.md``, bare or
  with folders) is a file of the repository: a name with folders resolves from the root or
  from the citing file's folder, a bare name is the name of some file. The service's
  ``/opt/partytable/`` is where ``make install`` puts the repository.
- Every repository path ``docs/`` cites in backticks (``device/reactor/loop.py``,
  ``hardware/handheld/``) exists, so the documents follow the tree (the hardware facts
  cite the libraries' own files and are left out).

The file list is ``git ls-files`` (tracked and untracked files, ignored ones left out), or
a walk of the tree where git is not available.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable
from functools import cache
from pathlib import Path, PurePosixPath

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules"
RULE_ID = re.compile(r"\bR[IT]-\d+(?:\.\d+)*")
"""A rule id as the code cites it; a trailing ``.`` is punctuation (``RT-2.4.``)."""
DEFINED_ID = re.compile(r"^(?:#+|-)\s+(R[IT]-\d+(?:\.\d+)*)\b", re.MULTILINE)
"""A rule id at the start of a heading or a list item of a rules file: its definition."""
DOC_REF = re.compile(r"(?<![\w./-])((?:/|\.\.?/)?(?:[\w.-]+/)*[\w-]+\.md)(?![\w/])")
"""A document named in text: ``architecture.md``, ``docs/rules/riiing.md``,
``../notation.md``, ``/opt/partytable/README.md``."""
URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+")
INSTALL_PREFIX = "/opt/partytable/"
"""Where ``make install`` puts the repository (``systemd/partytable.service``)."""
CITED_DIRS = ("engine", "drivers", "device", "tests")
"""Where rule ids are cited in code and tests."""
TEXT_SUFFIXES = frozenset({
    ".py", ".pyi", ".md", ".toml", ".txt", ".service", ".rules", ".sh", ".sysusers",
    ".conf", ".cfg", ".ini", ".json",
})
TEXT_NAMES = frozenset({"Makefile", "run"})
PATH_HEADS = ("engine/", "drivers/", "device/", "tests/", "hardware/", "systemd/",
              "scripts/", "bench/", "docs/")
"""First folders of the repository paths the documents cite."""
BACKTICKED = re.compile(r"`([^`\s]+)`")
FOREIGN_PATHS = frozenset({"docs/hardware-facts.md"})
"""Documents whose paths are the libraries' and the kernel's own files (gpiozero's
``tests/conftest.py``, the kernel's ``drivers/gpio/gpio-sim.c``), not this tree's."""


@cache
def repo_files() -> frozenset[str]:
    """Every file of the repository, as POSIX paths relative to its root."""
    try:
        done = subprocess.run(
            ["git", "-c", f"safe.directory={ROOT}", "-C", str(ROOT), "ls-files", "-z",
             "--cached", "--others", "--exclude-standard"],
            capture_output=True, check=True, timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        found = set()
        for folder, dirs, files in os.walk(ROOT):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d not in {"out", "__pycache__"}]
            for name in files:
                found.add(Path(folder, name).relative_to(ROOT).as_posix())
        return frozenset(found)
    names = {name for name in done.stdout.decode().split("\0") if name}
    return frozenset(name for name in names if (ROOT / name).is_file())


def repo_dirs() -> frozenset[str]:
    """Every folder that holds a repository file."""
    return frozenset(str(parent) for name in repo_files()
                     for parent in PurePosixPath(name).parents if str(parent) != ".")


def text_files(under: Iterable[str] | None = None) -> list[str]:
    """The repository's text files (by suffix or name), optionally only under ``under``."""
    heads = None if under is None else tuple(f"{d}/" for d in under)
    return sorted(
        name for name in repo_files()
        if (PurePosixPath(name).suffix in TEXT_SUFFIXES or PurePosixPath(name).name in TEXT_NAMES)
        and (heads is None or name.startswith(heads))
    )


def read(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8", errors="replace")


def defined_ids() -> dict[str, list[str]]:
    """Rule id -> the rules files that define it."""
    out: dict[str, list[str]] = {}
    for path in sorted(RULES.glob("*.md")):
        for rule in DEFINED_ID.findall(path.read_text(encoding="utf-8")):
            out.setdefault(rule, []).append(path.name)
    return out


def cited_ids() -> dict[str, str]:
    """Rule id -> the first file citing it, in the code, the tests, README.md and docs/."""
    out: dict[str, str] = {}
    for name in [*text_files(CITED_DIRS), *text_files(["docs"]), "README.md"]:
        for rule in RULE_ID.findall(read(name)):
            out.setdefault(rule, name)
    return out


def test_every_cited_rule_id_is_defined_in_the_rules() -> None:
    """Every RI-/RT- id the code, tests, README and docs cite is defined in docs/rules."""
    defined = defined_ids()
    cited = cited_ids()
    assert len(cited) > 50, "the code cites rule ids: the pattern must find them"
    missing = {rule: where for rule, where in cited.items() if rule not in defined}
    if missing:
        pytest.fail(f"rule ids cited but not defined in docs/rules: {missing}")


def test_no_rule_id_is_defined_twice() -> None:
    """Each rule id has one definition, in the rules file of its own game."""
    defined = defined_ids()
    assert defined, "docs/rules defines no rule id"
    twice = {rule: files for rule, files in defined.items() if len(files) > 1}
    assert not twice, twice
    home = {"RI": "riiing.md", "RT": "right-on-time.md"}
    strays = {rule: files for rule, files in defined.items() if files != [home[rule[:2]]]}
    assert not strays, strays


def unresolved_doc_refs() -> list[str]:
    """``file: name`` for every document named in a text file that is no repository file."""
    files = repo_files()
    basenames = {PurePosixPath(name).name for name in files}
    bad = []
    for name in text_files():
        if name == "tests/test_docs.py":
            continue  # its docstring shows the forms the pattern reads
        here = PurePosixPath(name).parent
        for ref in DOC_REF.findall(URL.sub(" ", read(name))):
            if ref.startswith(INSTALL_PREFIX):
                ref = ref[len(INSTALL_PREFIX):]
            if "/" not in ref:
                ok = ref in basenames
            else:
                tries = [PurePosixPath(ref)] if ref.startswith("/") else [
                    PurePosixPath(os.path.normpath(ref)),
                    PurePosixPath(os.path.normpath(here / ref)),
                ]
                ok = any(str(t) in files for t in tries)
            if not ok:
                bad.append(f"{name}: {ref}")
    return sorted(set(bad))


def test_every_named_document_is_in_the_repository() -> None:
    """Every <name>.md the code, tests, README and documents name is a repository file."""
    bad = unresolved_doc_refs()
    assert not bad, "documents named but not in the repository:\n" + "\n".join(bad)


def test_the_reference_check_reads_every_form() -> None:
    """The document check finds bare names, folder paths, relative links and the install
    prefix, and leaves out URLs."""
    text = ("see architecture.md, `docs/rules/riiing.md` and [x](../notation.md); "
            "/opt/partytable/README.md; https://example.org/a/b." + "md; rules/*.md")
    got = DOC_REF.findall(URL.sub(" ", text))
    assert got == ["architecture.md", "docs/rules/riiing.md", "../notation.md",
                   "/opt/partytable/README.md"]


def test_paths_the_docs_cite_exist() -> None:
    """Every repository path docs/ cites in backticks is a file or folder of the tree."""
    files = repo_files()
    dirs = repo_dirs()
    bad = []
    for name in text_files(["docs"]):
        if name in FOREIGN_PATHS:
            continue
        for token in BACKTICKED.findall(read(name)):
            path = token.rstrip(".,:;")
            if not path.startswith(PATH_HEADS) or any(c in path for c in "*<>{}"):
                continue
            if path.rstrip("/") not in files | dirs:
                bad.append(f"{name}: {path}")
    assert not bad, "paths cited in docs/ that are not in the tree:\n" + "\n".join(bad)
