"""Every benchmark still runs and prints its one JSON object (at a tiny size: the figures are
measured by running the scripts themselves, never asserted here)."""

from __future__ import annotations

import json
import runpy
import subprocess
import sys

import pytest

from tests.helpers.paths import ROOT

BENCH = ROOT / "bench"
SMALL = {
    "engine.py": (["--hands", "20", "--repeat", "1"], "ratio"),
    "evaluator.py": (["--hands", "2000", "--repeats", "1"], "ratio"),
    "procedure.py": (["60"], "replay_hands_per_s"),
    "serial.py": (["--frames", "500", "--cards", "50"], "latency_p99_ms"),
    "vision.py": (["--limit", "3", "--repeats", "1"], "accuracy"),
}


def run_bench(name: str, args: list[str]) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, str(BENCH / name), *args], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1, result.stdout[-2000:]  # one JSON object, on one line
    report: dict[str, object] = json.loads(lines[0])
    return report


@pytest.mark.parametrize("name", sorted(SMALL))
def test_a_benchmark_runs_and_prints_one_json_object(name: str) -> None:
    args, key = SMALL[name]
    assert key in run_bench(name, args)


@pytest.mark.usefixtures("mosquitto")
def test_the_latency_benchmark_runs_on_its_own_broker() -> None:
    assert "e2e_p99_ms" in run_bench("latency.py", ["--cards", "100"])


@pytest.mark.usefixtures("mosquitto")
def test_the_commands_benchmark_runs_on_its_own_broker() -> None:
    assert "card_flood_p99_ratio" in run_bench("commands.py", ["--commands", "100", "--cards", "30"])


@pytest.mark.usefixtures("mosquitto")
def test_the_transport_benchmark_runs_on_its_own_broker() -> None:
    args = ["--tables", "5", "--rate", "20", "--settle", "0.2", "--seconds", "0.5", "--timeout", "30"]
    report = run_bench("transport.py", args)
    assert report["relay"]["burst_complete"] and "mosquitto_ws_burst_ratio" in report  # type: ignore[index]


def test_the_census_imports() -> None:
    # 133 million hands is a job for bench/, not for the suite: its module must still load.
    runpy.run_path(str(BENCH / "seven_card_census.py"), run_name="census_check")


def test_every_benchmark_is_checked() -> None:
    checked = {*SMALL, "latency.py", "commands.py", "transport.py", "seven_card_census.py"}
    assert {path.name for path in BENCH.glob("*.py")} == checked
