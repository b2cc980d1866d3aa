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


def test_read_of_a_jumbo_index_deck_not_calibrated_withholds_the_names_and_says_why(tmp_path: Path) -> None:
    from tests.helpers.camera_frames import DECK, face, jumbo_face, spread_of, write_frames

    write_frames(tmp_path / "jumbo", [spread_of([jumbo_face(card) for card in DECK[34:42]])])
    write_frames(tmp_path / "normal", [spread_of([face(card) for card in DECK[34:42]])])
    jumbo = tablectl("vision", "read", str(tmp_path / "jumbo"), "--json")
    assert jumbo.returncode == 0, jumbo.stderr
    [line] = jumbo.stdout.splitlines()
    cards = json.loads(line)["cards"]
    assert len(cards) >= 6 and all(card["card"] is None for card in cards)
    assert any("withheld: the deck's index is larger than the window" in card["why"] for card in cards)
    assert "(a jumbo index): names withheld from here on; learn the deck's faces" in jumbo.stderr
    normal = tablectl("vision", "read", str(tmp_path / "normal"), "--json")
    assert normal.returncode == 0 and normal.stderr == ""
    named = {card["card"] for card in json.loads(normal.stdout)["cards"]} - {None}
    assert len(named) >= 6 and named <= set(DECK[34:42])
