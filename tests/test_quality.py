"""The conventions of DESIGN.md, checked: ruff clean, mypy --strict on the whole package, and the
docs naming only files and modules that exist."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False
    )


def test_ruff_finds_nothing() -> None:
    result = run("ruff", "check", "tablectl", "firmware_bridge", "vision", "tests", "bench")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_on_the_package() -> None:
    result = run("mypy", "--strict", "tablectl", "firmware_bridge")
    assert result.returncode == 0, result.stdout + result.stderr


# A path in the docs: tests/..., tablectl/..., bench/..., firmware_bridge/... (a glob such as
# tests/scenarios/*.scn is left out); a dotted name: tablectl.core.game, tablectl.adapters.mqtt.Follower.
# Not preceded by a path or a word, so deploy/tablectl.service and /var/lib/tablectl/ are no match.
DOC_PATH = re.compile(r"(?<![\w./-])((?:tests|tablectl|bench|firmware_bridge)/[\w./-]*)(?![\w*])")
DOC_NAME = re.compile(r"(?<![\w./-])(tablectl(?:\.[A-Za-z_]\w*)+)")


def _docs() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _resolves(name: str) -> bool:
    """A module, or an attribute of the longest module prefix of ``name``."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(target, attribute):
                return False
            target = getattr(target, attribute)
        return True
    return False


def test_the_docs_name_only_paths_that_exist() -> None:
    missing = [
        f"{doc.relative_to(ROOT)}:{number}: {path}"
        for doc in _docs()
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1)
        for path in (m.group(1).rstrip(".") for m in DOC_PATH.finditer(line))
        if not (ROOT / path).exists()
    ]
    assert not missing, "files moved or gone, the docs still name them:\n" + "\n".join(missing)


def test_the_docs_name_only_modules_that_exist() -> None:
    missing = [
        f"{doc.relative_to(ROOT)}:{number}: {name}"
        for doc in _docs()
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1)
        for name in (m.group(1).rstrip(".") for m in DOC_NAME.finditer(line))
        if not _resolves(name)
    ]
    assert not missing, "modules moved or gone, the docs still name them:\n" + "\n".join(missing)
