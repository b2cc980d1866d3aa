"""DESIGN.md's layers, checked on the code: each layer imports only the layers below it, the pure
core does no I/O, and the shoe's protocol package stands on its own.

Read from the source with ``ast`` (every import, also inside functions and under TYPE_CHECKING),
so a violation names the file and line. docs/code-map.md explains the layers.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Top to bottom. A unit may import itself, the units below it and nothing above; units on one
# row are independent of each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("tablectl.cli",),
    ("tablectl.sim",),
    ("tablectl.service",),
    ("tablectl.adapters", "tablectl.journal"),
    ("tablectl.views", "tablectl.formats"),
    # the pure core, DESIGN.md layers 4 to 1
    ("tablectl.core.table",),
    ("tablectl.core.procedure",),
    ("tablectl.core.events", "tablectl.core.effects"),
    ("tablectl.core.game",),
    ("tablectl.core.sentences",),
    ("tablectl.core.cards", "tablectl.core.evaluator", "tablectl.core.records"),
)
BELOW_EVERYTHING = ("tablectl", "tablectl.core")  # the faces: __version__, a docstring
# Part of the package's face: the loader of the compiled engine, which imports no module of ours;
# tablectl/__init__.py installs it before any layer is imported.
PART_OF_THE_FACE = {"tablectl.native": "tablectl"}

# What the pure core may import from outside tablectl: the standard library's pure modules.
# Anything else (time, random, os, threading, socket, sqlite3, logging, serial, paho, gpiozero,
# cv2, ...) is I/O, a clock or randomness, which come in on the events or stay in the adapters.
CORE_MAY_IMPORT = frozenset(
    {
        "__future__",
        "abc",
        "bisect",
        "collections",
        "dataclasses",
        "enum",
        "fractions",
        "functools",
        "heapq",
        "itertools",
        "math",
        "operator",
        "re",
        "string",
        "types",
        "typing",
    }
)
NAMED_IN_DESIGN = (
    "time",
    "random",
    "os",
    "threading",
    "socket",
    "sqlite3",
    "serial",
    "paho",
    "gpiozero",
    "cv2",
)

PACKAGES = ("tablectl", "firmware_bridge", "vision")
# vision/ sits beside the adapters: it turns camera frames into what a camera adapter reports, so
# only the units that may import an adapter may import it (and it imports only the pure core).
VISION_USERS = ("tablectl.cli", "tablectl.sim", "tablectl.service", "tablectl.adapters")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    base = ROOT.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) for every import in the file; ``from a import b`` names a.b when b is a module."""
    here = _module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            for alias in node.names:
                child = f"{base}.{alias.name}"
                found.append((node.lineno, child if _is_module(child) else base))
    return list(dict.fromkeys(found))


def _unit(module: str) -> str | None:
    if module in PART_OF_THE_FACE:
        return PART_OF_THE_FACE[module]
    for row in LAYERS:
        for unit in row:
            if module == unit or module.startswith(unit + "."):
                return unit
    return module if module in BELOW_EVERYTHING else None


def _rank(unit: str) -> int:
    if unit in BELOW_EVERYTHING:
        return len(LAYERS)
    return next(index for index, row in enumerate(LAYERS) if unit in row)


def _sources() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def layer_violations() -> list[str]:
    problems: list[str] = []
    for path in _sources():
        where = path.relative_to(ROOT).as_posix()
        here = _module_name(path)
        for line, target in _imports(path):
            top = target.partition(".")[0]
            if here.startswith("firmware_bridge") and top == "tablectl":
                problems.append(f"{where}:{line} imports {target}: firmware_bridge stands alone")
            if here.startswith("vision") and top == "tablectl" and not target.startswith("tablectl.core"):
                problems.append(f"{where}:{line} imports {target}: vision may use only tablectl.core")
            if top == "vision" and not here.startswith(("vision", *VISION_USERS)):
                problems.append(
                    f"{where}:{line} imports {target}: only {', '.join(VISION_USERS)} may use vision "
                    "(the camera pipeline is an adapter's business)"
                )
            if not here.startswith("tablectl"):
                continue
            source_unit = _unit(here)
            if source_unit is None:
                problems.append(f"{where}: {here} is in no layer of tests/test_layers.py: give it one")
                continue
            if source_unit.startswith("tablectl.core") and top != "tablectl" and top not in CORE_MAY_IMPORT:
                problems.append(
                    f"{where}:{line} imports {target}: the pure core does no I/O, reads no clock and "
                    "draws no random number (move it to an adapter, or pass the value in on an event)"
                )
            if top != "tablectl":
                continue
            target_unit = _unit(target)
            if target_unit is None or target_unit == source_unit:
                continue
            if _rank(target_unit) < _rank(source_unit):
                problems.append(
                    f"{where}:{line} imports {target}: {source_unit} may not import {target_unit}, above it"
                )
            elif _rank(target_unit) == _rank(source_unit):
                problems.append(
                    f"{where}:{line} imports {target}: {source_unit} and {target_unit} are independent "
                    "(one layer); move the shared piece below both"
                )
    return problems


def test_imports_point_down_the_layers() -> None:
    problems = layer_violations()
    assert not problems, "\n".join(problems)


def test_every_module_has_a_layer() -> None:
    modules = [_module_name(p) for p in _sources() if p.is_relative_to(ROOT / "tablectl")]
    assert [m for m in modules if _unit(m) is None] == []
    assert len(modules) > 30  # the walk found the package


def test_the_core_may_import_none_of_the_modules_design_names() -> None:
    assert not CORE_MAY_IMPORT & set(NAMED_IN_DESIGN)
    assert all(name in sys.stdlib_module_names for name in CORE_MAY_IMPORT)


@pytest.mark.parametrize(
    ("file", "source", "expected"),
    [
        ("tablectl/core/table/x.py", "import time\n", "the pure core does no I/O"),
        ("tablectl/core/game/x.py", "from random import Random\n", "the pure core does no I/O"),
        (
            "tablectl/core/procedure/x.py",
            "from tablectl.views import dealer\n",
            "may not import tablectl.views",
        ),
        ("tablectl/core/cards_x.py", "import os\n", "is in no layer"),
        ("tablectl/adapters/x.py", "from tablectl.service.tablefile import PanelConfig\n", "above it"),
        ("tablectl/adapters/x.py", "from tablectl.journal import Journal\n", "independent"),
        (
            "tablectl/core/game/x.py",
            "from ..procedure import step_hand\n",
            "may not import tablectl.core.procedure",
        ),
        (
            "firmware_bridge/x.py",
            "def f():\n    from tablectl.core.cards import parse_card\n",
            "stands alone",
        ),
        ("vision/x.py", "from tablectl.adapters import shoe\n", "vision may use only tablectl.core"),
        ("tablectl/views/x.py", "from vision.reader import CardReader\n", "may use vision"),
        ("firmware_bridge/x.py", "import vision.sources\n", "may use vision"),
    ],
)
def test_the_check_finds_a_violation(
    file: str, source: str, expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same walk over a copy of the package tree with one bad file planted in it.
    fake = tmp_path / file
    fake.parent.mkdir(parents=True, exist_ok=True)
    fake.write_text(source)
    for package in PACKAGES:
        for init in (ROOT / package).rglob("__init__.py"):
            copy = tmp_path / init.relative_to(ROOT)
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.touch()
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    problems = layer_violations()
    assert any(expected in problem and file in problem for problem in problems), problems
