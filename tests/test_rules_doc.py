"""docs/rules.md maps every rule id of ../shared/RULES.md to what the controller does: one row
each, and the scenario files a row names exist."""

from __future__ import annotations

import re

from tests.helpers.paths import DATA, ROOT, SCENARIOS

RULES = (DATA.parent / "RULES.md").read_text(encoding="utf-8")
DOC = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
ROW = re.compile(r"^\| ([A-Z]+-\w+) \|", re.MULTILINE)


def rule_ids() -> list[str]:
    return re.findall(r"^- ([A-Z]+-\w+) ", RULES, re.MULTILINE)


def test_every_rule_has_one_row() -> None:
    rows = ROW.findall(DOC)
    ids = rule_ids()
    assert len(ids) >= 125  # the whole list was read
    missing = [i for i in ids if i not in rows]
    twice = sorted({r for r in rows if rows.count(r) > 1})
    assert not missing, f"no docs/rules.md row for {missing}"
    assert not twice, f"more than one row for {twice}"


def test_the_scenarios_a_row_names_exist() -> None:
    files = {path.stem for path in SCENARIOS.glob("*.scn")}
    named = set()
    for line in DOC.splitlines():
        if ROW.match(line):
            named.update(re.findall(r"\b((?:[a-z]+-[0-9a-z]+)(?:-[0-9a-z]+)+)\b", line.split("|")[-2]))
    named = {n for n in named if re.match(r"(deal|md|irr|board|tbl|bet|pot|stud|draw|ho|st)-", n)}
    assert len(named) > 100
    assert sorted(named - files) == []
