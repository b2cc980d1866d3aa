"""The cameras and their zones in a table's config file: the example's load; a zone outside its
frame, malformed or watched twice is refused with the file, the line and the fix."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tablectl.service.tablefile import (
    CAMERA_KEYS,
    VISION_KEYS,
    ConfigFileError,
    load_table_config,
    parse_table_config,
)
from tests.helpers.paths import ROOT
from vision.zones import CameraSource

EXAMPLE = (ROOT / "deploy" / "table.example.toml").read_text(encoding="utf-8")
CAMERAS_START = "# [vision]\n"


def with_cameras(text: str = EXAMPLE) -> str:
    """The example with its commented camera sections written in."""
    head, _, tail = text.partition(CAMERAS_START)
    assert tail, "the example has no commented [vision] section"
    lines = (CAMERAS_START + tail).splitlines()
    # section headers and key = value lines are uncommented; the explanations stay comments
    body = [re.sub(r"^# (\[(?:vision|cameras)|[a-z_0-9]+ = )", r"\1", line) for line in lines]
    return head + "\n".join(body) + "\n"


def line_of(text: str, start: str) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(start):
            return number
    raise AssertionError(start)


def error(text: str, base: Path | None = None) -> str:
    with pytest.raises(ConfigFileError) as caught:
        parse_table_config(text, "table.toml", base)
    return str(caught.value)


def test_the_example_has_no_camera_until_one_is_written_in() -> None:
    assert load_table_config(ROOT / "deploy" / "table.example.toml").vision is None


def test_the_examples_cameras_load() -> None:
    vision = parse_table_config(with_cameras()).vision
    assert vision is not None
    assert vision.agree_frames == 4 and vision.release_frames == 15
    assert vision.backs == Path("/var/lib/tablectl/backs.json")
    mouth, table, rail = vision.cameras
    assert mouth.name == "mouth" and mouth.device_name == "mouth camera"
    assert mouth.source == CameraSource("device", device="/dev/video0") and mouth.size == (640, 480)
    assert [z.name for z in mouth.zones] == ["shoe"]
    assert mouth.zones[0].points == ((200, 140), (440, 140), (440, 340), (200, 340))
    assert table.source == CameraSource("picamera", device=0)
    assert {z.name: z.kind for z in table.zones} == {
        "board": "board",
        "muck": "muck",
        "burn": "burn",
        "seat1": "seat",
        "seat2": "seat",
    }
    seat1 = table.zones[3]
    assert seat1.seat == 1 and seat1.contains((350, 1000)) and not seat1.contains((100, 1000))
    assert table.zone_at((900, 500)) is table.zones[0]  # the board
    assert table.zone_at((10, 10)) is None
    assert mouth.plane is None and table.plane is None
    assert rail.plane is not None and rail.plane.size_mm == (297.0, 210.0)
    assert rail.plane.corners == ((500, 430), (780, 430), (830, 560), (450, 560))


def test_the_example_documents_every_camera_key() -> None:
    for key in (*VISION_KEYS, *CAMERA_KEYS):
        assert re.search(rf"^#\s*{key}\b|\b{key}\b", EXAMPLE, re.MULTILINE), key


def test_a_zone_outside_the_frame_names_the_line_the_frame_and_the_fix() -> None:
    text = with_cameras().replace("shoe = [200, 140, 240, 200]", "shoe = [500, 140, 240, 200]")
    message = error(text)
    line = line_of(text, "shoe = ")
    size_line = line_of(text, "size = [640, 480]")
    assert message.startswith(f"table.toml:{line}: cameras.mouth.zones.shoe: the point (740, 140) is outside")
    assert f"640x480 frame (cameras.mouth.size, line {size_line})" in message
    assert "keep x within 0 to 640" in message


def test_a_polygon_corner_outside_the_frame_is_refused() -> None:
    text = with_cameras().replace("[140, 1250]]", "[140, 1300]]")
    message = error(text)
    assert message.startswith(f"table.toml:{line_of(text, 'seat1 = ')}: cameras.table.zones.seat1:")
    assert "(140, 1300) is outside the camera's 2304x1296 frame" in message


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("[200, 140, 240]", "expected [x, y, width, height]"),
        ('"the left half"', "expected [x, y, width, height]"),
        ("[200, 140, 0, 200]", "the width and height must be more than 0"),
        ("[[0, 0], [10, 10]]", "expected [x, y, width, height]"),
        ("[[0, 0], [10, 10], [20, 20]]", "encloses no area"),
        ("[[0, 0], [100, 100], [100, 0], [0, 100]]", "crosses itself"),
        ("[true, 1, 2, 3]", "expected [x, y, width, height]"),
    ],
)
def test_a_malformed_zone_is_refused_with_its_line(value: str, said: str) -> None:
    text = with_cameras().replace("shoe = [200, 140, 240, 200]", f"shoe = {value}")
    message = error(text)
    assert message.startswith(f"table.toml:{line_of(text, 'shoe = ')}: cameras.mouth.zones.shoe: ")
    assert said in message


def test_an_unknown_zone_and_a_seat_the_table_lacks_are_refused() -> None:
    text = with_cameras().replace("muck = [1620", "much = [1620")
    assert "did you mean muck?" in error(text)
    text = with_cameras().replace("seat2 = [600", "seat10 = [600")
    message = error(text)
    assert f":{line_of(text, 'seat10 = ')}: cameras.table.zones.seat10: the table has 9 seats" in message


def test_a_zone_watched_by_two_cameras_is_refused() -> None:
    text = with_cameras().replace("shoe = [200, 140, 240, 200]", "board = [200, 140, 240, 200]")
    message = error(text)
    assert "cameras.table.zones.board: the board zone is already watched by camera mouth" in message
    assert f"line {line_of(text, 'board = [200')}" in message


@pytest.mark.parametrize(
    ("old", "new", "key", "said"),
    [
        ("size = [640, 480]", "size = [640]", "cameras.mouth.size", "expected the frame's [width, height]"),
        ("size = [640, 480]", "size = [640, 0]", "cameras.mouth.size", "16 to 8192"),
        ('source = "/dev/video0"', "source = 99", "cameras.mouth.source", "not a camera number"),
        ('source = "/dev/video0"', "source = true", "cameras.mouth.source", "expected a camera source"),
        ('source = "/dev/video0"', 'source = "nowhere.mp4"', "cameras.mouth.source", "neither a video"),
        ("agree_frames = 4", "agree_frames = 1", "vision.agree_frames", "2 to 30"),
        ("size = [640, 480]", "sise = [640, 480]", "cameras.mouth.sise", "did you mean size?"),
    ],
)
def test_camera_mistakes_name_the_key_and_the_fix(old: str, new: str, key: str, said: str) -> None:
    text = with_cameras().replace(old, new, 1)
    message = error(text)
    first = new.split(" =")[0]
    assert message.startswith(f"table.toml:{line_of(text, first + ' =')}: {key}: "), message
    assert said in message


PLANE = "plane = [[500, 430], [780, 430], [830, 560], [450, 560]]"


@pytest.mark.parametrize(
    ("old", "new", "key", "said"),
    [
        (PLANE, "plane = [[500, 430], [780, 430], [830, 560]]", "plane", "expected four [x, y] corners"),
        (PLANE, "plane = [500, 430, 280, 130]", "plane", "expected four [x, y] corners"),
        (PLANE, "plane = [[500, 430], [450, 560], [830, 560], [780, 430]]", "plane", "clockwise"),
        (PLANE, "plane = [[500, 430], [780, 430], [830, 760], [450, 560]]", "plane", "outside the camera's"),
        (PLANE, "plane = [[600, 430], [680, 430], [830, 560], [450, 560]]", "plane", "horizon"),
        ("plane_mm = [297, 210]", "plane_mm = [297, 0]", "plane_mm", "10 to 10000"),
        ("plane_mm = [297, 210]", 'plane_mm = "A4"', "plane_mm", "the rectangle's two sides in mm"),
        ("plane_mm = [297, 210]", "plane_mn = [297, 210]", "plane_mn", "did you mean plane_mm?"),
    ],
)
def test_a_cameras_plane_is_refused_with_its_line_and_the_fix(
    old: str, new: str, key: str, said: str
) -> None:
    """A camera looking across the table gives a rectangle lying on the cloth (vision/view.py):
    its corners in the frame, clockwise, in front of the camera's horizon, and its size."""
    text = with_cameras().replace(old, new, 1)
    message = error(text)
    first = new.split(" =")[0]
    assert message.startswith(f"table.toml:{line_of(text, first + ' =')}: cameras.rail.{key}: "), message
    assert said in message


def test_a_plane_needs_its_size_and_its_size_a_plane() -> None:
    text = with_cameras().replace("plane_mm = [297, 210]\n", "")
    assert "cameras.rail.plane_mm: missing: a plane needs both plane and plane_mm" in error(text)
    text = with_cameras().replace(PLANE + "\n", "")
    assert "cameras.rail.plane: missing" in error(text)


def test_a_camera_without_zones_or_source_is_refused() -> None:
    text = '[table]\nroom = "main"\ntable = "3"\n\n[cameras.mouth]\nsource = 0\nsize = [640, 480]\n'
    assert error(text).startswith("table.toml:5: cameras.mouth.zones: missing")
    text = (
        '[table]\nroom = "main"\ntable = "3"\n\n[cameras.mouth]\nsize = [640, 480]\n'
        "[cameras.mouth.zones]\nshoe = [0, 0, 10, 10]\n"
    )
    assert error(text).startswith("table.toml:5: cameras.mouth.source: missing")
    text = '[table]\nroom = "main"\ntable = "3"\n\n[vision]\nagree_frames = 3\n'
    assert "no camera is configured" in error(text)


def test_a_folder_or_a_video_is_a_source_relative_to_the_file(tmp_path: Path) -> None:
    (tmp_path / "frames").mkdir()
    (tmp_path / "clip.avi").write_bytes(b"")
    text = (
        '[table]\nroom = "main"\ntable = "3"\nseats = 6\n\n'
        '[cameras.bench]\nsource = "frames"\nsize = [640, 480]\n'
        "[cameras.bench.zones]\nseat1 = [0, 0, 640, 480]\n"
        '[cameras.clip]\nsource = "clip.avi"\nsize = [320, 240]\n'
        "[cameras.clip.zones]\nshoe = [0, 0, 10, 10]\n"
    )
    vision = parse_table_config(text, "table.toml", tmp_path).vision
    assert vision is not None
    assert vision.cameras[0].source == CameraSource("images", path=tmp_path / "frames")
    assert vision.cameras[1].source == CameraSource("video", path=tmp_path / "clip.avi")


def test_serve_with_a_zone_outside_its_frame_exits_2_with_the_one_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    text = with_cameras().replace("shoe = [200, 140, 240, 200]", "shoe = [200, 140, 240, 400]")
    config = tmp_path / "table.toml"
    config.write_text(text)
    result = subprocess.run(
        [sys.executable, "-m", "tablectl.cli", "serve", "--mock-gpio", "--config", str(config)]
        + ["--journal", str(tmp_path / "table.journal"), "--mqtt-port", "9"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert result.returncode == 2, result.stderr
    zone, size = line_of(text, "shoe = "), line_of(text, "size = [640")
    assert result.stderr.strip() == (
        f"tablectl: {config}:{zone}: cameras.mouth.zones.shoe: the point (440, 540) is outside the "
        f"camera's 640x480 frame (cameras.mouth.size, line {size}): keep x within 0 to 640 and y within "
        "0 to 480 (tablectl vision calibrate draws the zones on a frame), or correct the size"
    )
    assert not (tmp_path / "table.journal").exists()
