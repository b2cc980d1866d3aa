"""tablectl vision read, as a person or a script runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers.paths import DATA

PHOTO = DATA / "cards" / "photos-tfod-test" / "IMG_2383.JPG"


def tablectl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tablectl.cli", *args], capture_output=True, text=True, timeout=300
    )


def test_read_json_prints_each_image_and_skips_a_corrupt_one(tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.jpg"
    corrupt.write_bytes(PHOTO.read_bytes()[:5000])
    result = tablectl("vision", "read", str(PHOTO), str(corrupt), "--json")
    assert result.returncode == 1, result.stderr  # something was skipped
    first, second = (json.loads(line) for line in result.stdout.splitlines())
    assert first["image"] == str(PHOTO)
    assert first["cards"], first
    for card in first["cards"]:
        assert set(card) == {"card", "rank", "suit", "facing", "corners", "confidence", "why"}
        assert len(card["corners"]) == 4 and card["facing"] in ("up", "down", "unknown")
        assert 0.0 <= card["confidence"] <= 1.0
    assert second == {
        "image": str(corrupt),
        "skipped": "truncated JPEG (no end-of-image marker): the file was cut short",
    }


def test_read_in_words(tmp_path: Path) -> None:
    result = tablectl("vision", "read", str(PHOTO))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"{PHOTO}: ")
