"""tablectl vision calibrate: the zones drawn on a frame of each camera, a deck's back and the size
of its faces' index learned into the file the table's config names."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.helpers.camera_frames import (
    face,
    felt,
    four_colour_face,
    jumbo_face,
    laid,
    render_back,
    spread_of,
    with_card,
    write_frames,
)
from tests.helpers.paths import ROOT
from vision.backs import BacksError, load_backs
from vision.calibrate import ZONE_COLOURS, learn_faces
from vision.reader import ACT_CONFIDENCE, CardReader
from vision.sources import ImageFiles

CONFIG = """
[table]
room = "main"
table = "3"
seats = 3

[vision]
backs = "backs.json"

[cameras.table]
source = "frames"
size = [640, 480]
[cameras.table.zones]
board = [100, 20, 440, 180]
seat1 = [0, 240, 213, 240]
seat2 = [[213, 240], [426, 240], [426, 479], [213, 479]]
"""


def tablectl(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tablectl.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )


def table(tmp_path: Path) -> Path:
    write_frames(tmp_path / "frames", [with_card(felt(), "Qd", (106, 360))])
    path = tmp_path / "table.toml"
    path.write_text(CONFIG)
    return path


def test_calibrate_draws_the_zones_and_the_cards_on_a_frame_from_the_camera(tmp_path: Path) -> None:
    config = table(tmp_path)
    result = tablectl("vision", "calibrate", "--config", str(config), "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    drawn_path = tmp_path / "out" / "zones-table.png"
    assert result.stdout.startswith(
        f"table camera: {drawn_path} (640x480, zones board, seat1, seat2, 1 card(s)"
    )
    drawn = cv2.imread(str(drawn_path))
    assert drawn.shape == (480, 640, 3)
    assert tuple(drawn[20, 300]) == ZONE_COLOURS["board"]  # the board's top edge
    assert tuple(drawn[400, 213]) == ZONE_COLOURS["seat"]  # the edge between seats 1 and 2
    assert tuple(drawn[100, 600]) == tuple(felt()[100, 600])  # outside every zone: the frame
    red = drawn[:, :, 2].astype(int) - drawn[:, :, 1]
    assert (red[280:440, 40:170] > 200).any()  # the queen's outline, red: face up


def test_calibrate_on_a_frame_of_another_size_says_so(tmp_path: Path) -> None:
    config = table(tmp_path)
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), np.zeros((240, 320, 3), np.uint8))
    result = tablectl(
        "vision", "calibrate", "--config", str(config), "--camera", "table", "--frame", str(small)
    )
    assert result.returncode == 1
    assert "is 320x240, the table camera's zones are drawn on 640x480 (cameras.table.size)" in result.stdout


def test_calibrate_backs_learns_a_deck_into_the_configs_file(tmp_path: Path) -> None:
    config = table(tmp_path)
    back = render_back((150, 60, 20))
    frames = []
    for shift in (0, 40):
        frame = felt()
        for n, (x, y) in enumerate(((120, 120), (330, 140), (520, 320))):
            frame = laid(frame, back, (x + shift // 2, y + shift), 20.0 * n)
        frames.append(frame)
    write_frames(tmp_path / "backs", frames)
    result = tablectl(
        "vision", "calibrate", "--config", str(config), "--backs", str(tmp_path / "backs"), "--deck", "blue"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"blue back learned from 6 face-down card(s): {tmp_path / 'backs.json'}")
    assert [b.name for b in load_backs(tmp_path / "backs.json").backs] == ["blue"]


def test_calibrate_backs_without_a_file_names_the_key_to_add(tmp_path: Path) -> None:
    config = table(tmp_path)
    config.write_text(CONFIG.replace('[vision]\nbacks = "backs.json"\n', ""))
    result = tablectl("vision", "calibrate", "--config", str(config), "--backs", str(tmp_path / "frames"))
    assert result.returncode == 2
    assert "vision.backs: no file to keep the backs in: add backs = " in result.stderr


def test_calibrate_backs_from_the_camera_itself(tmp_path: Path) -> None:
    config = table(tmp_path)
    back = render_back((40, 30, 170))
    frame = felt()
    for n, (x, y) in enumerate(((120, 120), (330, 140), (520, 320))):
        frame = laid(frame, back, (x, y), 25.0 * n)
    write_frames(tmp_path / "frames", [frame] * 2)  # the camera's source: a folder of its frames
    result = tablectl("vision", "calibrate", "--config", str(config), "--backs", "--deck", "red")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("red back learned from 6 face-down card(s)")
    assert [b.name for b in load_backs(tmp_path / "backs.json").backs] == ["red"]


CARDS = ["As", "9c", "Td", "Qh", "5s", "Kd", "2h", "8c"]


def learn_a_back(tmp_path: Path, config: Path) -> None:
    """The 'deck' back learned from three blue backs, as the CLI learns it."""
    frame = felt()
    for n, (x, y) in enumerate(((120, 120), (330, 140), (520, 320))):
        frame = laid(frame, render_back((150, 60, 20)), (x, y), 20.0 * n)
    write_frames(tmp_path / "backs", [frame])
    result = tablectl("vision", "calibrate", "--config", str(config), "--backs", str(tmp_path / "backs"))
    assert result.returncode == 0, result.stderr


def test_calibrate_faces_learns_a_jumbo_index_and_keeps_the_backs(tmp_path: Path) -> None:
    """A jumbo index fills the standard window and its suit is cut off: the cards are read at a
    larger window, and the size that reads the most is learned (the back learned before stays)."""
    config = table(tmp_path)
    learn_a_back(tmp_path, config)
    jumbo = spread_of([jumbo_face(card) for card in CARDS])
    write_frames(tmp_path / "faces", [jumbo])
    result = tablectl("vision", "calibrate", "--config", str(config), "--faces", str(tmp_path / "faces"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(
        f"index size 1.5 times the standard window learned: {tmp_path / 'backs.json'}"
    )
    learned = load_backs(tmp_path / "backs.json")
    assert learned.index_scale == 1.5 and [b.name for b in learned.backs] == ["deck"]
    assert learned.faces_learned  # no camera watches this deck's index size any more

    def acted(reader: CardReader) -> set[str]:
        return {s.card for s in reader.read(jumbo) if s.card and s.confidence >= ACT_CONFIDENCE}

    assert acted(CardReader(backs=learned)) == set(CARDS)
    # the standard window names few of them (the straight edges' Ls, read at a ladder of widths,
    # name them all: not how an index's size is measured)
    assert len(acted(CardReader().without_straight_edges())) < 4


def test_calibrate_faces_of_a_normal_deck_learns_the_standard_window_and_two_colours(tmp_path: Path) -> None:
    write_frames(tmp_path / "faces", [spread_of([face(card) for card in CARDS])])
    learned = learn_faces(ImageFiles([str(tmp_path / "faces")]).frames(), tmp_path / "b.json")
    assert learned.index_scale == 1.0 and learned.read[1.0][0] == len(CARDS) and learned.skipped == []
    assert not learned.four_colour and learned.blue_or_green == (0, 6)  # As 9c Td 5s 2h 8c: no court
    saved = load_backs(tmp_path / "b.json")
    assert saved.index_scale == 1.0 and not saved.four_colour and saved.faces_learned


def test_calibrate_faces_learns_a_four_colour_deck_and_the_reader_uses_it(tmp_path: Path) -> None:
    """Blue diamonds and green clubs: the number cards read are mostly printed so (the 9c, Td and
    8c of the six), and the deck's readers from then on read blue ink as red."""
    config = table(tmp_path)
    write_frames(tmp_path / "faces", [spread_of([four_colour_face(card) for card in CARDS])])
    result = tablectl("vision", "calibrate", "--config", str(config), "--faces", str(tmp_path / "faces"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1] == (
        "faces four-colour (blue diamonds, green clubs): 3 of the 6 number card(s) read printed blue or green"
    )
    learned = load_backs(tmp_path / "backs.json")
    assert learned.four_colour and learned.index_scale == 1.0
    assert CardReader(backs=learned).four_colour
    # court cards alone say nothing of the colours (their pictures have blue and green in any deck)
    write_frames(tmp_path / "courts", [spread_of([face(card) for card in COURTS])])
    again = tablectl("vision", "calibrate", "--config", str(config), "--faces", str(tmp_path / "courts"))
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[1].startswith(
        "faces' colours not learned, kept four-colour (blue diamonds, green clubs): 0 number card(s) read"
    )
    assert load_backs(tmp_path / "backs.json").four_colour


COURTS = ["Jc", "Qd", "Kh", "Js", "Qs", "Kd"]


def test_calibrate_faces_without_enough_faces_says_what_to_give(tmp_path: Path) -> None:
    write_frames(tmp_path / "faces", [felt()])
    with pytest.raises(BacksError, match="0 card.s. read at the best index size of 1 frame.s.: give frames"):
        learn_faces(ImageFiles([str(tmp_path / "faces")]).frames(), tmp_path / "b.json")
    assert not (tmp_path / "b.json").exists()


def test_backs_learned_after_the_faces_keep_the_index_size_and_the_reader_of_images_uses_it(
    tmp_path: Path,
) -> None:
    config = table(tmp_path)
    write_frames(tmp_path / "faces", [spread_of([jumbo_face(card) for card in CARDS])])
    assert (
        tablectl(
            "vision", "calibrate", "--config", str(config), "--faces", str(tmp_path / "faces")
        ).returncode
        == 0
    )
    learn_a_back(tmp_path, config)
    learned = load_backs(tmp_path / "backs.json")
    assert learned.index_scale == 1.5 and [b.name for b in learned.backs] == ["deck"]
    image = str(tmp_path / "faces" / "frame-0000.png")
    plain = tablectl("vision", "read", image, "--json")
    calibrated = tablectl("vision", "read", image, "--json", "--backs-file", str(tmp_path / "backs.json"))

    def acted(result: subprocess.CompletedProcess[str]) -> set[str]:
        [line] = result.stdout.splitlines()
        return {
            c["card"] for c in json.loads(line)["cards"] if c["card"] and c["confidence"] >= ACT_CONFIDENCE
        }

    assert acted(calibrated) == set(CARDS) and len(acted(plain)) < 4


def test_calibrate_faces_from_a_camera_that_gives_no_frame_says_so(tmp_path: Path) -> None:
    config = table(tmp_path)
    for frame in (tmp_path / "frames").iterdir():
        frame.unlink()  # the camera's source: a folder of frames, now empty
    result = tablectl("vision", "calibrate", "--config", str(config), "--faces")
    assert result.returncode == 2
    assert "gave no frame" in result.stderr and "give image files after --faces" in result.stderr
    assert "Traceback" not in result.stderr


def test_calibrate_backs_over_a_damaged_file_keeps_it_aside_and_begins_a_new_one(tmp_path: Path) -> None:
    """A damaged backs file (the camera adapter refuses it: tests/adapters/test_camera.py) is no
    dead end: learning again renames it, keeping every byte, and writes a new file."""
    config = table(tmp_path)
    damaged = '{"format": "tablectl-backs", "version": 1, "backs": [{"name": "red"'  # cut short
    (tmp_path / "backs.json").write_text(damaged)
    learn_a_back(tmp_path, config)
    assert [b.name for b in load_backs(tmp_path / "backs.json").backs] == ["deck"]
    assert (tmp_path / "backs.json.damaged").read_text() == damaged
    # damaged again: the first file set aside stays as it was, the second is numbered
    (tmp_path / "backs.json").write_text("{}")
    result = tablectl("vision", "calibrate", "--config", str(config), "--backs", str(tmp_path / "backs"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(
        f"{tmp_path / 'backs.json'}: not a tablectl-backs file of version 1: learn the backs again: kept "
        f"as {tmp_path / 'backs.json.damaged.1'}, and {tmp_path / 'backs.json'} begun anew: learn the "
        "other decks' backs (--backs) and their faces (--faces) again if they were in it\n"
        "deck back learned from 3 face-down card(s)"
    )
    assert (tmp_path / "backs.json.damaged").read_text() == damaged
    assert (tmp_path / "backs.json.damaged.1").read_text() == "{}"


def test_calibrate_faces_over_a_damaged_file_keeps_it_aside_and_begins_a_new_one(tmp_path: Path) -> None:
    (tmp_path / "b.json").write_text('{"format": "tablectl-backs", "version": 1, "backs": [{"name": 7}]}')
    write_frames(tmp_path / "faces", [spread_of([face(card) for card in CARDS])])
    learned = learn_faces(ImageFiles([str(tmp_path / "faces")]).frames(), tmp_path / "b.json")
    assert learned.set_aside is not None and learned.set_aside.path == tmp_path / "b.json.damaged"
    assert "a back is damaged" in learned.set_aside.why
    saved = load_backs(tmp_path / "b.json")
    assert saved.backs == () and saved.index_scale == 1.0
    assert "backs" in json.loads((tmp_path / "b.json.damaged").read_text())
