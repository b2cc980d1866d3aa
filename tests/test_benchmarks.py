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
    "backs_stress.py": (["--designs", "1", "--frames", "1"], "all"),
    "camera.py": (["--frames", "5", "--events", "20", "--runs", "1"], "ruling_ms_p50"),
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


def test_the_vision_benchmark_measures_the_reader_the_product_runs() -> None:
    """Its readers are given the classifier measured (--model), and a reader given its classifier
    has no print check unless given one: the bench gives it, as `tablectl serve`'s reader has it.
    (Without it, Kennard's jumbo rows read 13 and 11 cards wrongly instead of 12 and 9.)"""
    from vision.backs import Backs

    bench = runpy.run_path(str(BENCH / "vision.py"))
    assert bench["measured_reader"]().checks_print
    assert bench["measured_reader"](Backs(())).checks_print
    assert bench["measured_reader"]().checks_patterns
    assert bench["measured_reader"](Backs(())).checks_patterns


def test_the_vision_benchmark_reads_cachegrinds_count_and_its_counted_child_runs() -> None:
    """frame_instructions_m (--instructions, under valgrind, not in CI) is the difference of two
    runs of the child mode, each count read from cachegrind's summary."""
    bench = runpy.run_path(str(BENCH / "vision.py"))
    summary = "==12446== \n==12446== I   refs:      11,508,203,461\n"
    assert bench["counted_instructions"](summary) == 11_508_203_461
    with pytest.raises(ValueError, match="no instruction count"):
        bench["counted_instructions"]("==1== ERROR SUMMARY: 0 errors")
    child = subprocess.run(
        [sys.executable, str(BENCH / "vision.py"), "--count-reads", "1", "--frames", "2"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert child.returncode == 0, child.stderr[-2000:]
    assert child.stdout == ""  # the counted child reads and prints nothing


def test_the_counted_children_run_the_build_or_source_the_caller_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A full run imports the test helpers before it counts, and the test package asks for the
    vision source in its process: the children must not inherit that (they counted the source)."""
    monkeypatch.delenv("TABLECTL_PURE", raising=False)
    bench = runpy.run_path(str(BENCH / "vision.py"))
    monkeypatch.setenv("TABLECTL_PURE", "vision")  # as importing tests/ sets it
    env = bench["counted_env"]()
    assert "TABLECTL_PURE" not in env and env["PYTHONHASHSEED"] == "0"
    monkeypatch.setenv("TABLECTL_PURE", "1")
    asked = runpy.run_path(str(BENCH / "vision.py"))
    monkeypatch.setenv("TABLECTL_PURE", "vision")
    assert asked["counted_env"]()["TABLECTL_PURE"] == "1"


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


@pytest.mark.usefixtures("mosquitto")
def test_the_displays_benchmark_runs_in_chromium() -> None:
    args = ["--cards", "3", "--rtt", "3", "--tables", "6", "--realistic-seconds", "1", "--burst-seconds", "1"]
    report = run_bench("displays.py", args)
    card, floor = report["card"], report["floor"]
    assert isinstance(card, dict) and isinstance(floor, dict)
    assert card["cards"] == 3 and card["rtt_samples"] >= 3
    for key in ("card_p50_ms", "card_p99_ms", "rtt_p50_ms", "fsync_p50_ms", "card_p50_ratio"):
        assert card[key] > 0, key
    assert floor["tiles"] == 6 and floor["grid_complete_ms"] > 0
    for phase in ("realistic", "burst"):  # six tables at 30 hands an hour may send nothing in 1 s
        assert floor[phase]["frames"] > 0 and floor[phase]["main_thread_share"] >= 0, phase
    assert floor["burst"]["tile_samples"] == 6  # every table once, each seen on its tile
    assert len(report["load_average_at_start"]) == 3  # type: ignore[arg-type]


def test_the_census_imports() -> None:
    # 133 million hands is a job for bench/, not for the suite: its module must still load.
    runpy.run_path(str(BENCH / "seven_card_census.py"), run_name="census_check")


def test_every_benchmark_is_checked() -> None:
    checked = {*SMALL, "latency.py", "commands.py", "transport.py", "displays.py", "seven_card_census.py"}
    assert {path.name for path in BENCH.glob("*.py")} == checked
