"""The compiled engine (tablectl/native.py): it runs when its build matches the source, never when
stale, and it plays every hand exactly as the pure-Python source does."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tablectl import native
from tablectl.core.game import engine
from tablectl.core.game.engine import HandState

ROOT = Path(__file__).resolve().parents[2]
PHH = ROOT.parent / "shared" / "data" / "phh" / "wsop-2023-43"

# Random hands of every game, with refused actions tried at each step: each state and each
# refusal's rule, hashed, so two engines can be compared in two processes.
_PLAY = """
import hashlib, random, sys
from tablectl import native
from tablectl.core.game import BetRaise, CheckCall, Fold, RuleViolation, apply
from tests.helpers.hands import random_hand
from tests.core.test_native import configs, fields_of
from tablectl.sim.players import Style
digest = hashlib.sha256()
rng = random.Random(20261201)
for config in configs():
    for _ in range(40):
        steps, final = random_hand(config, rng, Style())
        for before, action in steps:
            digest.update(repr(fields_of(before)).encode())
            for wrong in (CheckCall((before.actor or 0) + 1), BetRaise(before.actor or 0, 1), Fold(-1)):
                try:
                    apply(before, wrong)
                    digest.update(b"taken")
                except RuleViolation as refused:
                    digest.update(refused.rule.encode())
        digest.update(repr(fields_of(final)).encode())
print(native.running_native(), digest.hexdigest())
"""


def fields_of(state: HandState) -> list[object]:
    """Every field of a state but its config (whose repr names the compiled or the pure types)."""
    return [getattr(state, f.name) for f in dataclasses.fields(state) if f.name != "config"]


def configs() -> list[engine.HandConfig]:
    """One table of each kind of game the engine plays, at stakes that make all-ins common."""
    from tablectl.core.game import (  # noqa: PLC0415
        DEUCE_TO_SEVEN_SINGLE_DRAW,
        DEUCE_TO_SEVEN_TRIPLE_DRAW,
        HOLDEM,
        OMAHA_HI_LO,
        RAZZ,
        SEVEN_CARD_STUD,
        STUD_HI_LO,
        HandConfig,
        Structure,
        Variant,
    )

    fl, nl, pl = Structure.FIXED_LIMIT, Structure.NO_LIMIT, Structure.POT_LIMIT
    stacks = (900, 2_000, 350, 4_000, 1_200)
    stud = {"antes": (10,) * 5, "bring_in": 25, "small_bet": 50, "big_bet": 100}
    draw = {"blinds": (25, 50), "small_bet": 50, "big_bet": 100}
    return [
        HandConfig(Variant(HOLDEM, nl), stacks, blinds=(25, 50)),
        HandConfig(Variant(OMAHA_HI_LO, pl), stacks, blinds=(25, 50)),
        HandConfig(Variant(SEVEN_CARD_STUD, fl), stacks, **stud),
        HandConfig(Variant(STUD_HI_LO, fl), stacks, **stud),
        HandConfig(Variant(RAZZ, fl), stacks, **stud),
        HandConfig(Variant(DEUCE_TO_SEVEN_TRIPLE_DRAW, fl), stacks, **draw),
        HandConfig(Variant(DEUCE_TO_SEVEN_SINGLE_DRAW, nl), stacks, blinds=(25, 50)),
    ]


def _run(arguments: list[str], pure: bool) -> str:
    """What ``python ARGUMENTS`` prints, run from the checkout on the compiled or the pure engine."""
    env = {k: v for k, v in os.environ.items() if k != native.PURE_ENV}
    if pure:
        env[native.PURE_ENV] = "1"
    command = [sys.executable, *arguments]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=True)
    return done.stdout


def _play(pure: bool) -> tuple[str, str]:
    which, digest = _run(["-c", _PLAY], pure).split()
    return which, digest


def test_the_compiled_engine_is_built_and_runs_in_the_test_environment() -> None:
    # ./run tests builds it (ensure_native); without a C compiler the source runs, and this fails
    # to say so rather than pass on the engine nobody measured.
    usable, why = native.state()
    assert usable, why
    assert native.running_native(), "the build matches the source but the source was imported"


def test_the_compiled_and_the_pure_engine_play_every_hand_alike() -> None:
    compiled, pure = _play(pure=False), _play(pure=True)
    assert compiled[0] == "True" and pure[0] == "False"
    assert compiled[1] == pure[1]


def test_phh_check_matches_the_real_hands_on_the_pure_engine_too() -> None:
    report = json.loads(_run(["-m", "tablectl.cli", "phh", "check", str(PHH), "--json"], pure=True))
    assert report["files"] == report["matched"] == 83


def _fake_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sources: dict[str, str]) -> None:
    monkeypatch.setattr(native, "build_dir", lambda: tmp_path)
    monkeypatch.delenv(native.PURE_ENV, raising=False)
    fingerprint = native._fingerprint()
    (tmp_path / native.MANIFEST).write_text(json.dumps({**fingerprint, "sources": sources}))


def test_a_build_of_other_source_is_never_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sources = dict(native._fingerprint()["sources"])  # type: ignore[call-overload]
    sources["tablectl.core.game.pots"] = "0" * 64
    _fake_build(tmp_path, monkeypatch, sources)
    usable, why = native.state()
    assert not usable
    assert "stale" in why and "tablectl.core.game.pots" in why and "tablectl native build" in why
    monkeypatch.setattr(
        sys, "meta_path", [f for f in sys.meta_path if not isinstance(f, native._NativeFinder)]
    )
    with pytest.warns(RuntimeWarning, match="stale"):
        assert native.install() is False
    assert not any(isinstance(f, native._NativeFinder) for f in sys.meta_path)


def test_a_build_of_this_source_is_used_unless_the_pure_engine_is_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_build(tmp_path, monkeypatch, dict(native._fingerprint()["sources"]))  # type: ignore[call-overload]
    assert native.state()[0]
    monkeypatch.setenv(native.PURE_ENV, "1")
    usable, why = native.state()
    assert not usable and native.PURE_ENV in why


def test_an_unreadable_manifest_means_the_pure_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(native, "build_dir", lambda: tmp_path)
    monkeypatch.delenv(native.PURE_ENV, raising=False)
    (tmp_path / native.MANIFEST).write_text("{not json")
    usable, why = native.state()
    assert not usable and "unreadable" in why


def test_the_finder_serves_only_the_compiled_modules(tmp_path: Path) -> None:
    finder = native._NativeFinder(tmp_path)
    engine_file = finder.files["tablectl.core.game.engine"]
    engine_file.parent.mkdir(parents=True)
    engine_file.write_bytes(b"")
    spec = finder.find_spec("tablectl.core.game.engine")
    assert spec is not None and spec.origin == str(engine_file)
    assert finder.find_spec("tablectl.core.procedure.ledger") is None  # not compiled
    assert finder.find_spec("tablectl.core.game.pots") is None  # compiled, but not in this build
