"""Every scenario file in tests/scenarios passes, and the runner reports failures clearly."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tablectl.sim.scenario import ScenarioError, parse, run, run_paths
from tests.helpers.paths import SCENARIOS

FILES = sorted(SCENARIOS.rglob("*.scn"))


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario(path: Path) -> None:
    assert run(parse(path.read_text(encoding="utf-8"), str(path))) is None


# The RULES.md ids of the dealing procedure and the table: each has at least one scenario,
# named by its id (md-c-two-boxed-cards-before-cutoff.scn).
PROCEDURE_RULES = (
    [f"DEAL-{n}" for n in range(1, 7)]
    + ["MD-1", "MD-2", "MD-3"]
    + [f"MD-{c}" for c in "abcdefghij"]
    + [f"IRR-{n}" for n in range(1, 10)]
    + [f"BOARD-{n}" for n in range(1, 8)]
    + [f"TBL-{n}" for n in range(1, 6)]
    # Stud and draw at the table (docs/rules.md says which are the engine's and which not built).
    + [f"STUD-{n}" for n in (1, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18)]
    + [f"DRAW-{n}" for n in (3, 4, 5, 6, 7, 8, 9, 11, 12)]
    + [f"HO-{n}" for n in (1, 2, 3, 4, 5, 6, 7, 8, 9, 11)]
)


@pytest.mark.parametrize("rule", PROCEDURE_RULES)
def test_every_procedure_rule_has_a_scenario(rule: str) -> None:
    named = [p for p in FILES if p.stem.startswith(rule.lower() + "-")]
    assert named, f"no scenario file named {rule.lower()}-*.scn"


@pytest.mark.parametrize("cause", "abcdefghij")
def test_every_misdeal_cause_is_shown_on_both_sides_of_the_cutoff(cause: str) -> None:
    stems = [p.stem for p in FILES if p.stem.startswith(f"md-{cause}-")]
    assert any(s.endswith("-before-cutoff") for s in stems), stems
    assert any(s.endswith("-after-cutoff-tda") for s in stems), stems
    assert any(s.endswith(("-after-cutoff-btr", "-after-cutoff-classic")) for s in stems), stems


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_each_scenario_opens_with_the_rule_it_shows(path: Path) -> None:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    cited = re.search(r"\b((DEAL|MD|IRR|BOARD|TBL|BET|POT|STUD|DRAW|HO)-\w+|INPUT|FLOOR)\b", first)
    assert first.startswith("# ") and cited, first


def test_cli_prints_one_json_object() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tablectl.cli", "scenario", "run", str(SCENARIOS), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    report = json.loads(result.stdout)
    assert report["scenarios"] == len(FILES) and report["passed"] == len(FILES), report["failed"]
    assert result.returncode == 0


def test_a_failing_scenario_says_where_and_why(tmp_path: Path) -> None:
    bad = tmp_path / "bad.scn"
    bad.write_text("seat 1 A 100\nseat 2 B 100\nbutton 2\nnew hand\n=> ruling MD-a\n")
    report = run_paths([str(tmp_path)])
    assert report["scenarios"] == 1 and report["passed"] == 0
    assert "bad.scn:5" in report["failed"][0]["why"]
    assert "expected ruling MD-a" in report["failed"][0]["why"]


def test_unreadable_line_names_file_and_line() -> None:
    with pytest.raises(ScenarioError, match="x.scn:2"):
        parse("seat 1 A 100\nfrobnicate 3\n", "x.scn")


# -- odd files: each reported with the reason, the rest run ---------------------------------------


def test_odd_scenario_files_fail_each_with_the_reason_and_the_rest_run(tmp_path: Path) -> None:
    from tablectl.sim.scenario import MAX_SCENARIO_BYTES

    good = FILES[0].read_bytes()
    (tmp_path / "a-good.scn").write_bytes(good)
    (tmp_path / "empty.scn").write_bytes(b"")
    (tmp_path / "only-a-table.scn").write_text("table seats=6\nseat 1 Ann 1000\nseat 2 Bob 1000\n")
    (tmp_path / "latin1.scn").write_bytes(b"# Jos\xe9's misdeal\n" + good)
    (tmp_path / "bad-blinds.scn").write_text("table blinds=fifty/100\nseat 1 A 100\nnew hand\n=> nothing\n")
    with open(tmp_path / "huge.scn", "wb") as huge:  # sparse: just over the cap, no disk used
        huge.truncate(MAX_SCENARIO_BYTES + 1)
    report = run_paths([str(tmp_path)])
    assert report["scenarios"] == 6 and report["passed"] == 1 and report["errors"] == []
    why = {Path(f["file"]).name: f["why"] for f in report["failed"]}
    assert why["empty.scn"].startswith(f"{tmp_path / 'empty.scn'}: the scenario checks nothing")
    assert why["only-a-table.scn"].startswith(f"{tmp_path / 'only-a-table.scn'}: the scenario checks nothing")
    assert why["latin1.scn"] == f"{tmp_path / 'latin1.scn'}: not UTF-8 text (byte 5): save it as UTF-8"
    assert why["bad-blinds.scn"].startswith(f"{tmp_path / 'bad-blinds.scn'}")
    assert why["huge.scn"].startswith(
        f"{tmp_path / 'huge.scn'}: {MAX_SCENARIO_BYTES + 1:,} bytes, more than the 1 MiB a scenario may have"
    )


def test_a_folder_without_scenarios_or_a_missing_path_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "empty-folder").mkdir()
    (tmp_path / "empty-folder" / "notes.txt").write_text("no scenarios here\n")
    (tmp_path / "a-good.scn").write_bytes(FILES[0].read_bytes())
    paths = [str(tmp_path / "empty-folder"), str(tmp_path / "a-good.scn"), str(tmp_path / "missing.scn")]
    report = run_paths(paths)
    assert report["scenarios"] == 1 and report["passed"] == 1 and not report["failed"]
    assert [e["why"] for e in report["errors"]] == [
        f"{tmp_path / 'empty-folder'}: no scenario (.scn file) in this folder or below it: nothing was run",
        f"{tmp_path / 'missing.scn'}: no such scenario file or folder",
    ]
    for args, code in (([str(tmp_path / "empty-folder")], 2), ([str(tmp_path / "a-good.scn")], 0)):
        result = subprocess.run(
            [sys.executable, "-m", "tablectl.cli", "scenario", "run", *args, "--json"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert result.returncode == code, result.stdout + result.stderr
    assert json.loads(result.stdout)["errors"] == []
    (tmp_path / "empty.scn").write_bytes(b"")
    result = subprocess.run(
        [sys.executable, "-m", "tablectl.cli", "scenario", "run", str(tmp_path / "empty.scn")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1 and "FAILED" in result.stdout and "checks nothing" in result.stdout
