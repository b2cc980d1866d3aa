"""Where the tests find the repository and the shared data, whatever folder the test file is in."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The shared data sits beside the project: <project>/../shared/data (CI clones it there).
DATA = ROOT.parent / "shared" / "data"
SCENARIOS = ROOT / "tests" / "scenarios"
