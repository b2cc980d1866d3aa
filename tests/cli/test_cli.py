"""The tablectl command as a person runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.paths import DATA


def tablectl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tablectl.cli", *args], capture_output=True, text=True, timeout=300
    )


def test_phh_check_json_on_wsop_final_table() -> None:
    result = tablectl("phh", "check", str(DATA / "phh" / "wsop-2023-43"), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["files"] == 83
    assert report["matched"] == 83
    assert report["mismatched"] == []
    assert report["unsupported"] == {}


def test_phh_check_reports_a_missing_path_clearly(tmp_path: Path) -> None:
    (tmp_path / "bad.phh").write_bytes(b"\xff")
    result = tablectl("phh", "check", str(tmp_path / "nope.phh"), str(tmp_path), "--json")
    assert result.returncode == 2
    assert result.stderr == f"tablectl: {tmp_path / 'nope.phh'}: no such file or folder\n"
    assert len(json.loads(result.stdout)["unreadable"]) == 2  # the rest was checked all the same


@pytest.mark.usefixtures("mosquitto")
def test_run_deals_real_hands_with_rulings() -> None:
    result = tablectl("run", "--hands", "30")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.count("=== Hand ") == 30
    assert "wsop-2023-43/" in out
    assert "Stacks:" in out and "shows" in out
    assert "REFUSED BET-14" in out  # an action keyed out of turn is refused with its rule
    assert "RULING IRR-3" in out  # a boxed card in the deal is ruled on and replaced
    assert "Dealt 30 hands from" in out
    # The table is published to a throwaway mosquitto with the shipped ACL, every message acked.
    published = [line for line in out.splitlines() if line.startswith("Published ")]
    assert published and published[0].split()[1] == published[0].split()[4] != "0"
