"""The compiled groups (tablectl/native.py): each runs when its build matches the source, never when
stale; the engine plays every hand exactly as its pure-Python source does, and the vision pipeline
reads every frame exactly as its source does."""

from __future__ import annotations

import argparse
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


def _run(arguments: list[str], pure: bool | str) -> str:
    """What ``python ARGUMENTS`` prints, run from the checkout on every compiled group (the test
    process runs the vision source: tests/__init__.py), on every source (``pure``), or on the
    sources TABLECTL_PURE names (``pure`` a string)."""
    env = {k: v for k, v in os.environ.items() if k != native.PURE_ENV}
    if pure:
        env[native.PURE_ENV] = pure if isinstance(pure, str) else "1"
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
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / native.MANIFEST).write_text(json.dumps({**fingerprint, "sources": sources}))


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
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / native.MANIFEST).write_text("{not json")
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
    assert finder.find_spec("vision.reader") is None
    assert finder.find_spec("vision.sources") is None  # never compiled: it does the I/O


# The vision pipeline read by the compiled group or by its source, in a child: the bench's ten-card
# frames, backs-cardcounter's photos, every fourth training photo, and backs-cardcounter's photos
# again with the back learned from them (calibration's path); every sighting's repr, hashed.
_READ = """
import hashlib, runpy
from pathlib import Path
import cv2
from tablectl import native
from vision.backs import Backs, learn
from vision.calibrate import back_samples
from vision.sources import read_image
bench = runpy.run_path("bench/vision.py")
cv2.setNumThreads(1)
reader = bench["measured_reader"]()
photos = [read_image(p).image for p in sorted((bench["BACKS"] / "images").glob("*.[jJ][pP]*[gG]"))]
training = sorted((bench["CARDS"] / "photos-tfod-train" / "images").glob("*.[jJ][pP]*[gG]"))[::4]
digest = hashlib.sha256()
for image in bench["ten_card_frames"](20) + photos + [read_image(p).image for p in training]:
    digest.update(repr(reader.read(image)).encode())
back, _ = learn("black", [sample for image in photos for sample in back_samples([image], reader)])
calibrated = bench["measured_reader"](Backs((back,)))
for image in photos:
    digest.update(repr(calibrated.read(image)).encode())
print(native.running_native(native.VISION), digest.hexdigest())
"""


def test_the_test_process_reads_with_the_vision_source_and_plays_with_the_compiled_engine() -> None:
    import vision.reader  # noqa: PLC0415

    assert vision.reader.__file__.endswith(".py")  # what the vision tests patch is what runs
    assert "vision" in native.pure_groups() and "engine" not in native.pure_groups()


def test_the_compiled_vision_pipeline_is_built_and_runs_outside_the_tests() -> None:
    printed = _run(["-c", "from tablectl import native; print(native.state(native.VISION)[1])"], pure=False)
    assert "the vision pipeline runs compiled" in printed, printed


def test_the_compiled_and_the_source_vision_pipeline_read_every_frame_alike() -> None:
    compiled = _run(["-c", _READ], pure=False).split()
    source = _run(["-c", _READ], pure="vision").split()
    assert compiled[0] == "True" and source[0] == "False"
    assert compiled[1] == source[1]


@pytest.mark.parametrize(
    ("asked", "pure"),
    [
        ("", set()),
        ("1", {"engine", "vision"}),
        ("yes", {"engine", "vision"}),
        ("vision", {"vision"}),
        (" engine , vision ", {"engine", "vision"}),
        ("vision,cameras", {"engine", "vision"}),  # a name not known: every source, not none
    ],
)
def test_tablectl_pure_names_groups_or_asks_for_every_source(
    asked: str, pure: set[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(native.PURE_ENV, asked)
    assert native.pure_groups() == pure


def test_a_stale_vision_build_leaves_the_engine_compiled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(native, "build_dir", lambda: tmp_path)
    monkeypatch.delenv(native.PURE_ENV, raising=False)
    for group in native.GROUPS:
        (tmp_path / group.name).mkdir()
        fingerprint = native._fingerprint(group)
        (tmp_path / group.name / native.MANIFEST).write_text(json.dumps(fingerprint))
    vision_manifest = tmp_path / "vision" / native.MANIFEST
    built = json.loads(vision_manifest.read_text())
    built["sources"]["vision.corners"] = "0" * 64
    vision_manifest.write_text(json.dumps(built))
    assert native.state(native.ENGINE)[0]
    usable, why = native.state(native.VISION)
    assert not usable and "vision.corners" in why and "stale" in why


def test_build_if_stale_builds_no_group_whose_build_matches_even_when_every_source_is_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """./run builds with TABLECTL_PURE=1 (the building process loads no build): a build that
    matches is kept, not compiled again for minutes."""
    monkeypatch.setattr(native, "build_dir", lambda: tmp_path)
    for group in native.GROUPS:
        (tmp_path / group.name).mkdir()
        (tmp_path / group.name / native.MANIFEST).write_text(json.dumps(native._fingerprint(group)))
    monkeypatch.setattr(native, "build", lambda *a, **k: pytest.fail("built again"))
    monkeypatch.setenv(native.PURE_ENV, "1")
    args = argparse.Namespace(native_command="build", if_stale=True, quiet=True)
    assert native.cmd_native(args) == 0
    assert capsys.readouterr().out.count("its build matches the source") == 2
