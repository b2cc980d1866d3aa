"""The conventions of DESIGN.md, checked: ruff clean, and mypy --strict on the whole package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False
    )


def test_ruff_finds_nothing() -> None:
    result = run("ruff", "check", "tablectl", "firmware_bridge", "vision", "tests", "bench")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_on_the_package() -> None:
    result = run("mypy", "--strict", "tablectl", "firmware_bridge")
    assert result.returncode == 0, result.stdout + result.stderr
