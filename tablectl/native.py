"""The rules engine compiled: the core's hot modules built with mypyc into this environment.

    tablectl native build     # compile them (about a minute here, a few on a Pi 4)
    tablectl native status    # which engine runs, and why

The pure-Python source is the reference and the fallback; the compiled modules are the same
source through mypyc (about twice as fast: bench/engine.py). They are used only when the build's
manifest names the same source (a SHA-256 of every module), the same Python and the same
extension tag, and ``TABLECTL_PURE`` is not set. A stale build never runs: the source does,
with one warning, so an edited engine is never shadowed by an old one. ``./run`` builds it when
a C compiler and Python's headers are there.

The build lives beside the environment (``sys.prefix/tablectl-native``), not in the source tree,
and is loaded by a finder for exactly the compiled modules.
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
from pathlib import Path
from types import ModuleType

# Everything an action runs through, and nothing that does I/O (they are pure core modules).
NATIVE_MODULES = (
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
)
GROUP = "tablectl_native"  # mypyc's shared library of the group: tablectl_native__mypyc
PURE_ENV = "TABLECTL_PURE"
MANIFEST = "manifest.json"
SOURCE_ROOT = Path(__file__).resolve().parent.parent  # the folder holding the tablectl package
_SOURCE_RUNS = ": the pure-Python engine runs"


def build_dir() -> Path:
    return Path(sys.prefix) / "tablectl-native"


def _source(module: str) -> Path:
    return SOURCE_ROOT.joinpath(*module.split(".")).with_suffix(".py")


def _fingerprint() -> dict[str, object]:
    """What a build must match to be run: the sources, the Python, the extension tag."""
    sources = {m: hashlib.sha256(_source(m).read_bytes()).hexdigest() for m in NATIVE_MODULES}
    return {
        "python": sys.version,
        "ext_suffix": sysconfig.get_config_var("EXT_SUFFIX"),
        "sources": sources,
    }


def state() -> tuple[bool, str]:
    """Whether the compiled build would be used, and why (or why not)."""
    usable, why, _stale = _check()
    return usable, why


def _check() -> tuple[bool, str, bool]:
    """state(), and whether the build is stale: the one case worth a warning (an engine edited or
    upgraded since its build)."""
    if os.environ.get(PURE_ENV):
        return False, f"{PURE_ENV} is set{_SOURCE_RUNS}", False
    manifest = build_dir() / MANIFEST
    if not manifest.is_file():
        return False, f"no compiled build in {build_dir()}{_SOURCE_RUNS}", False
    try:
        built = json.loads(manifest.read_text())
        current = _fingerprint()
    except (OSError, ValueError) as err:
        return (
            False,
            f"the compiled build's manifest is unreadable ({err}){_SOURCE_RUNS}",
            False,
        )
    stale = [m for m in NATIVE_MODULES if built.get("sources", {}).get(m) != current["sources"][m]]  # type: ignore[index]
    if stale:
        why = (
            f"the compiled build is stale ({', '.join(stale)} changed since){_SOURCE_RUNS};"
            " rebuild with `tablectl native build`"
        )
        return False, why, True
    if built.get("python") != current["python"] or built.get("ext_suffix") != current["ext_suffix"]:
        # Another interpreter on this environment (another user may reach another python3): its own
        # engine, the source; not a fault of the build, so no warning.
        return (
            False,
            f"the compiled build is for Python {built.get('python')}{_SOURCE_RUNS}",
            False,
        )
    return True, f"the compiled engine runs (mypyc, {build_dir()})", False


class _NativeFinder(importlib.abc.MetaPathFinder):
    """Finds exactly the compiled modules (and their group library) in the build folder."""

    def __init__(self, root: Path) -> None:
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        self.files = {m: root / (m.replace(".", "/") + suffix) for m in NATIVE_MODULES}
        self.files[f"{GROUP}__mypyc"] = root / f"{GROUP}__mypyc{suffix}"

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        file = self.files.get(fullname)
        if file is None or not file.is_file():
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, str(file))
        return importlib.util.spec_from_file_location(fullname, file, loader=loader)


def install() -> bool:
    """Put the compiled build in front of the source if it matches it; True when it does.
    Called from tablectl/__init__.py, before any core module is imported."""
    if any(isinstance(f, _NativeFinder) for f in sys.meta_path):
        return True
    usable, why, stale = _check()
    if not usable:
        if stale:
            warnings.warn(why, RuntimeWarning, stacklevel=2)
        return False
    sys.meta_path.insert(0, _NativeFinder(build_dir()))
    return True


def running_native() -> bool:
    """Whether the engine in this process is the compiled one."""
    engine = sys.modules.get("tablectl.core.game.engine")
    return engine is not None and not str(getattr(engine, "__file__", "")).endswith(".py")


def build(quiet: bool = False) -> Path:
    """Compile NATIVE_MODULES with mypyc into build_dir(), replacing what was there."""
    from mypyc.build import mypycify  # noqa: PLC0415  (build time only)
    from setuptools import Distribution  # type: ignore[import-untyped]  # noqa: PLC0415

    target = build_dir()
    fingerprint = _fingerprint()
    with tempfile.TemporaryDirectory(prefix="tablectl-native-") as scratch:
        out = Path(scratch) / "lib"
        here = Path.cwd()
        os.chdir(SOURCE_ROOT)  # mypy names the modules by their paths from the source root
        try:
            paths = [str(_source(m).relative_to(SOURCE_ROOT)) for m in NATIVE_MODULES]
            extensions = mypycify(paths, opt_level="3", target_dir=str(Path(scratch) / "c"), group_name=GROUP)
            dist = Distribution({"name": "tablectl-native", "ext_modules": extensions})
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
        "native", help="the rules engine compiled with mypyc: build it, or say which engine runs"
    )
    native.add_argument("native_command", choices=("build", "status"))
    native.add_argument("--if-stale", action="store_true", help="build only when no build matches the source")
    native.add_argument("--quiet", action="store_true", help="build without the compiler's output")
    native.set_defaults(func=cmd_native)


def cmd_native(args: argparse.Namespace) -> int:
    usable, why = state()
    if args.native_command == "status":
        print(why)
        return 0 if usable else 1
    if args.if_stale and usable:
        print(why)
        return 0
    try:
        import mypyc  # noqa: F401, PLC0415
    except ImportError:
        print("tablectl native: mypyc is not installed (pip install 'tablectl[native]')", file=sys.stderr)
        return 2
    where = build(quiet=args.quiet)
    print(f"compiled {len(NATIVE_MODULES)} modules into {where}")
    return 0
