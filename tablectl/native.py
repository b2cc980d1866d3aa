"""The hot pure modules compiled: the rules engine and the camera's reader built with mypyc into
this environment.

    tablectl native build     # compile them (a minute or two here, several on a Pi 4)
    tablectl native status    # which of them run compiled, and why

The pure-Python source is the reference and the fallback; the compiled modules are the same
source through mypyc (the engine about twice as fast: bench/engine.py; a camera frame about 5 %:
docs/vision.md). Each group (the engine, the vision pipeline) is built apart, so that one edited
leaves the other compiled, and is used only when its build's manifest names the same source (a
SHA-256 of every module), the same Python and the same extension tag, and ``TABLECTL_PURE`` does
not ask for its source. A stale build never runs: the source does, with one warning, so edited
code is never shadowed by an old build. ``./run`` builds what is stale when a C compiler and
Python's headers are there.

``TABLECTL_PURE=1`` runs every group's source; ``TABLECTL_PURE=vision`` (group names, comma
separated) runs those groups' source only. The test suite runs the vision source (tests patch its
functions, which a compiled caller never sees), and tests/core/test_native.py compares each
compiled group with its source.

The builds live beside the environment (``sys.prefix/tablectl-native/<group>``), not in the source
tree, and are loaded by a finder for exactly the compiled modules.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import shutil
import sys
import sysconfig
import tempfile
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType


@dataclass(frozen=True)
class Group:
    """Modules compiled together into one mypyc library; a group calls another's modules as
    Python modules (its own build does not compile them), so either may run without the other."""

    name: str  # as TABLECTL_PURE names it
    what: str  # for messages: "the rules engine"
    library: str  # mypyc's shared library of the group: <library>__mypyc
    modules: tuple[str, ...]


# Everything an action runs through, and nothing that does I/O (they are pure core modules).
ENGINE = Group(
    "engine",
    "the rules engine",
    "tablectl_native",
    (
        "tablectl.core.cards",
        "tablectl.core.evaluator",
        "tablectl.core.records",
        "tablectl.core.game.actions",
        "tablectl.core.game.errors",
        "tablectl.core.game.profiles",
        "tablectl.core.game.variants",
        "tablectl.core.game.wagers",
        "tablectl.core.game.pots",
        "tablectl.core.game.engine",
    ),
)
# What a camera frame is read through, from its paper blobs to its checked sightings: the modules
# whose Python (per-card geometry, per-window bookkeeping) is about half a frame's time.
VISION = Group(
    "vision",
    "the vision pipeline",
    "tablectl_vision",
    (
        "vision.corners",
        "vision.index_patch",
        "vision.index_reader",
        "vision.backs",
        "vision.faces",
        "vision.pip_suits",
        "vision.segments",
        "vision.reader",
    ),
)
GROUPS = (ENGINE, VISION)
NATIVE_MODULES = tuple(module for group in GROUPS for module in group.modules)
PURE_ENV = "TABLECTL_PURE"
MANIFEST = "manifest.json"
SOURCE_ROOT = Path(__file__).resolve().parent.parent  # the folder holding the tablectl package


def build_dir() -> Path:
    return Path(sys.prefix) / "tablectl-native"


def _source(module: str) -> Path:
    return SOURCE_ROOT.joinpath(*module.split(".")).with_suffix(".py")


def _fingerprint(group: Group = ENGINE) -> dict[str, object]:
    """What a group's build must match to be run: the sources, the Python, the extension tag."""
    sources = {m: hashlib.sha256(_source(m).read_bytes()).hexdigest() for m in group.modules}
    return {
        "python": sys.version,
        "ext_suffix": sysconfig.get_config_var("EXT_SUFFIX"),
        "sources": sources,
    }


def pure_groups() -> frozenset[str]:
    """The groups whose source TABLECTL_PURE asks for: the ones it names, or every one."""
    asked = os.environ.get(PURE_ENV, "").strip()
    if not asked:
        return frozenset()
    names = {name.strip() for name in asked.split(",")}
    known = {group.name for group in GROUPS}
    return frozenset(names) if names <= known else frozenset(known)


def state(group: Group = ENGINE) -> tuple[bool, str]:
    """Whether the group's compiled build would be used, and why (or why not)."""
    usable, why, _stale = _check(group)
    return usable, why


def _check(group: Group, honour_pure: bool = True) -> tuple[bool, str, bool]:
    """state(), and whether the build is stale: the one case worth a warning (code edited or
    upgraded since its build). ``honour_pure`` False: whether the build matches, whatever
    TABLECTL_PURE asks (`native build --if-stale` runs under it, so as not to load a build)."""
    source_runs = f": the pure-Python source of {group.what} runs"
    if honour_pure and group.name in pure_groups():
        return False, f"{PURE_ENV} is set{source_runs}", False
    manifest = build_dir() / group.name / MANIFEST
    if not manifest.is_file():
        return False, f"no compiled build in {manifest.parent}{source_runs}", False
    try:
        built = json.loads(manifest.read_text())
        current = _fingerprint(group)
    except (OSError, ValueError) as err:
        return False, f"the compiled build's manifest is unreadable ({err}){source_runs}", False
    stale = [m for m in group.modules if built.get("sources", {}).get(m) != current["sources"][m]]  # type: ignore[index]
    if stale:
        why = (
            f"the compiled build is stale ({', '.join(stale)} changed since){source_runs};"
            " rebuild with `tablectl native build`"
        )
        return False, why, True
    if built.get("python") != current["python"] or built.get("ext_suffix") != current["ext_suffix"]:
        # Another interpreter on this environment (another user may reach another python3): its own
        # modules, the source; not a fault of the build, so no warning.
        return False, f"the compiled build is for Python {built.get('python')}{source_runs}", False
    return True, f"{group.what} runs compiled (mypyc, {manifest.parent})", False


class _NativeFinder(importlib.abc.MetaPathFinder):
    """Finds exactly the compiled modules (and their groups' libraries) in the build folder."""

    def __init__(self, root: Path, groups: Sequence[Group] = GROUPS) -> None:
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        self.files: dict[str, Path] = {}
        for group in groups:
            folder = root / group.name
            self.files.update({m: folder / (m.replace(".", "/") + suffix) for m in group.modules})
            self.files[f"{group.library}__mypyc"] = folder / f"{group.library}__mypyc{suffix}"

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        file = self.files.get(fullname)
        if file is None or not file.is_file():
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, str(file))
        return importlib.util.spec_from_file_location(fullname, file, loader=loader)


def install() -> bool:
    """Put each group's compiled build in front of its source where it matches it; True when any
    does. Called from tablectl/__init__.py (which vision/__init__.py imports first), before any
    compiled module is imported."""
    if any(isinstance(f, _NativeFinder) for f in sys.meta_path):
        return True
    usable: list[Group] = []
    for group in GROUPS:
        ok, why, stale = _check(group)
        if ok:
            usable.append(group)
        elif stale:
            warnings.warn(why, RuntimeWarning, stacklevel=2)
    if not usable:
        return False
    sys.meta_path.insert(0, _NativeFinder(build_dir(), usable))
    return True


def running_native(group: Group = ENGINE) -> bool:
    """Whether the group's modules in this process are the compiled ones (by its last module, the
    one that imports the rest)."""
    module = sys.modules.get(group.modules[-1])
    return module is not None and not str(getattr(module, "__file__", "")).endswith(".py")


def build(groups: Sequence[Group] = GROUPS, quiet: bool = False) -> list[Path]:
    """Compile each group with mypyc into its folder of build_dir(), replacing what was there."""
    folders = {group.name for group in GROUPS}
    if build_dir().is_dir():  # a build of one group for all, in the folder itself: never loaded now
        for old in build_dir().iterdir():
            if old.name in folders:
                continue
            if old.is_dir():
                shutil.rmtree(old)
            else:
                old.unlink()
    return [_build(group, quiet) for group in groups]


def _build(group: Group, quiet: bool) -> Path:
    from mypyc.build import mypycify  # noqa: PLC0415  (build time only)
    from setuptools import Distribution  # type: ignore[import-untyped]  # noqa: PLC0415

    target = build_dir() / group.name
    fingerprint = _fingerprint(group)
    with tempfile.TemporaryDirectory(prefix="tablectl-native-") as scratch:
        out = Path(scratch) / "lib"
        here = Path.cwd()
        os.chdir(SOURCE_ROOT)  # mypy names the modules by their paths from the source root
        try:
            paths = [str(_source(m).relative_to(SOURCE_ROOT)) for m in group.modules]
            extensions = mypycify(
                paths, opt_level="3", target_dir=str(Path(scratch) / "c"), group_name=group.library
            )
            dist = Distribution({"name": f"tablectl-native-{group.name}", "ext_modules": extensions})
            command = dist.get_command_obj("build_ext")
            command.build_lib = str(out)
            command.build_temp = str(Path(scratch) / "temp")
            command.inplace = False
            dist.verbose = not quiet
            dist.run_command("build_ext")
        finally:
            os.chdir(here)
        (out / MANIFEST).write_text(json.dumps(fingerprint, indent=1) + "\n")
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(out, target)
    return target


def add_native_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    native = sub.add_parser(
        "native",
        help="the rules engine and the vision pipeline compiled with mypyc: build them, or say which run",
    )
    native.add_argument("native_command", choices=("build", "status"))
    native.add_argument("--if-stale", action="store_true", help="build only the groups no build matches")
    native.add_argument("--quiet", action="store_true", help="build without the compiler's output")
    native.set_defaults(func=cmd_native)


def cmd_native(args: argparse.Namespace) -> int:
    states = {group.name: state(group) for group in GROUPS}
    if args.native_command == "status":
        for _name, (_usable, why) in states.items():
            print(why)
        return 0 if all(usable for usable, _ in states.values()) else 1
    built = {group.name: _check(group, honour_pure=False) for group in GROUPS}
    wanted = [g for g in GROUPS if not (args.if_stale and built[g.name][0])]
    for group in GROUPS:
        if group not in wanted:
            print(f"{group.what}: its build matches the source ({build_dir() / group.name})")
    if not wanted:
        return 0
    try:
        import mypyc  # noqa: F401, PLC0415
    except ImportError:
        print("tablectl native: mypyc is not installed (pip install 'tablectl[native]')", file=sys.stderr)
        return 2
    for group, where in zip(wanted, build(wanted, quiet=args.quiet), strict=True):
        print(f"compiled {group.what} ({len(group.modules)} modules) into {where}")
    return 0
