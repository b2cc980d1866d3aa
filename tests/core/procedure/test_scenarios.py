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
    cited = re.search(r"\b((DEAL|MD|IRR|BOARD|TBL|BET|POT)-\w+|INPUT|FLOOR)\b", first)
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
