"""Snapshots of the table's state as JSON: what the journal keeps at hand boundaries so that a
restart folds only the events since the last hand, not the whole day.

The state is made of our own immutable types (NamedTuples, frozen dataclasses, enums, tuples,
frozensets and plain values); this writes each with its type's name and reads back only types
from the tablectl package, so a snapshot can never name code to run.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import importlib
import json
from pathlib import Path
from typing import Any

from tablectl import __version__

_PACKAGE = "tablectl."


class OtherCodeSnapshot(ValueError):
    """Raised by a restore function for a snapshot that other code made (another version, other
    rules): not damage, just not usable here. The journal is folded instead (verified_fold skips
    such a checkpoint; any other ValueError from a restore function is damage)."""


class SnapshotError(ValueError):
    """A snapshot that cannot be read back."""


class SnapshotFromOtherCode(SnapshotError, OtherCodeSnapshot):
    """A sound snapshot that another version or other code made: not used here."""


def _type_name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _encode(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, enum.Enum):
        return {"$e": _type_name(type(value)), "v": value.value}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {"$t": _type_name(type(value)), "f": [_encode(v) for v in value]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # Fields worked out in __post_init__ (init=False) are made again when it is decoded.
        fields = {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init}
        return {"$d": _type_name(type(value)), "f": fields}
    if isinstance(value, tuple):
        return {"$tuple": [_encode(v) for v in value]}
    if isinstance(value, frozenset):
        return {"$frozenset": sorted(_encode(v) for v in value)}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    raise SnapshotError(f"cannot snapshot a {type(value).__name__}")


def _resolve(name: str) -> type:
    module_name, _, qualname = name.partition(":")
    if not module_name.startswith(_PACKAGE):
        raise SnapshotError(f"a snapshot names {name!r}, which is not a tablectl type")
    try:
        obj: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        raise SnapshotError(f"a snapshot names {name!r}, which this version does not have") from None
    # Only a type defined in that tablectl module itself: never one it merely imports
    # (tablectl.journal.store:sqlite3.Connection would open a file).
    if not isinstance(obj, type) or obj.__module__ != module_name or obj.__qualname__ != qualname:
        raise SnapshotError(f"{name!r} is not a tablectl type")
    return obj


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "$tuple" in value:
        return tuple(_decode(v) for v in value["$tuple"])
    if "$frozenset" in value:
        return frozenset(_decode(v) for v in value["$frozenset"])
    if "$e" in value:
        return _resolve(value["$e"])(value["v"])
    if "$t" in value:
        cls = _resolve(value["$t"])
        return cls(*(_decode(v) for v in value["f"]))
    if "$d" in value:
        cls = _resolve(value["$d"])
        return cls(**{k: _decode(v) for k, v in value["f"].items()})
    raise SnapshotError(f"unreadable snapshot node with keys {sorted(value)}")


def dumps(state: Any) -> str:
    return json.dumps(_encode(state), separators=(",", ":"))


def loads(text: str) -> Any:
    try:
        return _decode(json.loads(text))
    except (json.JSONDecodeError, TypeError, ValueError) as exc:
        if isinstance(exc, SnapshotError):
            raise
        raise SnapshotError(f"unreadable snapshot: {exc}") from None


# The code that decides what a fold of the journal gives: every module of the pure core, the fold
# (apply_event: what a step that fails leaves) and this file; not the store, the pool or the
# controller, which only carry entries to the fold and its results back. A snapshot made by other
# code (an upgrade, a fix shipped without a new version number) is not used: the journal is folded.
# Whole folders, so that a new core module can never fall outside the digest.
_FOLD_FOLDERS = ("core",)
_FOLD_FILES = ("journal/fold.py", "journal/snapshot.py")


def fold_code_files() -> list[Path]:
    """The files whose code decides what a fold of the journal gives, in a fixed order."""
    root = Path(__file__).resolve().parents[1]
    files = {root / name for name in _FOLD_FILES}
    for folder in _FOLD_FOLDERS:
        files.update((root / folder).rglob("*.py"))
    return sorted(files, key=lambda file: file.relative_to(root).as_posix())


@functools.cache
def code_fingerprint() -> str:
    """A digest of the code that folds the journal (:func:`fold_code_files`)."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for file in fold_code_files():
        digest.update(file.relative_to(root).as_posix().encode() + b"\0")
        try:
            digest.update(file.read_bytes())
        except OSError:
            return "unknown"  # installed without its sources: the version number alone decides
    return digest.hexdigest()[:16]


def table_snapshot(state: Any) -> str | None:
    """The snapshot to keep after this state, or None: only between hands. It names the version
    and the code that made it: other code (other rules) folds the journal from the start."""
    if getattr(state, "hand", None) is not None:
        return None
    made_by = {"version": __version__, "code": code_fingerprint()}
    return json.dumps({**made_by, "state": _encode(state)}, separators=(",", ":"))


def table_restore(text: str) -> Any:
    """Read a :func:`table_snapshot`; refuses one made by another version or other code."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"unreadable snapshot: {exc}") from None
    if not isinstance(data, dict):
        raise SnapshotError("unreadable snapshot: not a JSON object")
    if data.get("version") != __version__:
        raise SnapshotFromOtherCode("the snapshot was made by another version of tablectl")
    if data.get("code") != code_fingerprint():
        raise SnapshotFromOtherCode(
            "the snapshot was made by other code (the rules may differ): fold the journal"
        )
    try:
        return _decode(data["state"])
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, SnapshotError):
            raise
        raise SnapshotError(f"unreadable snapshot: {exc}") from None


code_fingerprint()  # at import: the digest of the code this process runs, not of files changed since
