"""A camera looking across the table: its frames read seen from above (vision/view.py), through
the four corners of a rectangle of known size lying on the cloth (its config's ``plane``)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from tablectl.service.tablefile import load_table_config
from tests.helpers.camera_frames import FELT, face, laid, render_back, write_frames
from tests.vision.test_calibrate import CONFIG, tablectl
from vision.backs import Backs, learn
from vision.calibrate import PLANE_COLOUR, back_samples
from vision.crops import camera_reader
from vision.reader import ACT_CONFIDENCE, CardReader, Facing
from vision.stability import ZoneWatch
from vision.view import View, ViewError, find_sheet, homography, mapped
from vision.zones import CameraConfig, CameraSource, TablePlane, ZoneArea, rectangle

TABLE = (640, 430)  # the cloth seen from above, a pixel a unit
FRAME = (640, 480)
# where the cloth's corners lie in the frame of a camera looking across it from its near side: the
# far edge 480 px wide against the near edge's 640, the cloth's depth 310 px against its width's 640
SEEN = ((80.0, 90.0), (560.0, 90.0), (640.0, 400.0), (0.0, 400.0))
TO_FRAME = homography(rectangle(0, 0, *TABLE), SEEN)
A4 = rectangle(170, 110, 297, 210)  # a sheet laid on the cloth, in the cloth's mm
PLANE = TablePlane(mapped(TO_FRAME, A4), (297.0, 210.0))  # its corners as the frame shows them
FACES = {"seat1": ("As", (110, 330)), "seat2": ("Kd", (320, 340)), "seat3": ("7c", (530, 330))}
BOARD = [("Qh", (210, 100)), ("9s", (320, 100)), ("4d", (430, 100))]


def across(cards: list[tuple[np.ndarray, tuple[int, int], float]]) -> np.ndarray:
    """The camera's frame of ``cards`` (images, centres in the cloth's mm, turns) on the cloth."""
    cloth = np.zeros((TABLE[1], TABLE[0], 3), np.uint8)
    cloth[:] = FELT
    for card, centre, angle in cards:
        cloth = laid(cloth, card, centre, angle)
    frame = cv2.warpPerspective(cloth, TO_FRAME, FRAME, flags=cv2.INTER_AREA)
    noise = np.random.default_rng(1).normal(0, 3, frame.shape)
    return np.clip(frame + noise, 0, 255).astype(np.uint8)


def camera(plane: TablePlane | None = PLANE) -> CameraConfig:
    """The camera, its zones drawn on its frame (each seat's zone round the seat's place)."""
    zones = [ZoneArea("board", mapped(TO_FRAME, rectangle(130, 20, 380, 160)))]
    zones += [
        ZoneArea(seat, mapped(TO_FRAME, rectangle(x - 100, y - 90, 200, 180)))
        for seat, (_, (x, y)) in FACES.items()
    ]
    return CameraConfig("rail", CameraSource("device", device=0), FRAME, tuple(zones), plane)


def faces_frame() -> np.ndarray:
    cards = [
        (face(card, 90), centre, angle)
        for (card, centre), angle in zip(FACES.values(), (20, -35, 60), strict=True)
    ]
    cards += [(face(card, 90), centre, 0.0) for card, centre in BOARD]
    return across(cards)


def test_a_camera_looking_across_the_table_reads_its_cards_seen_from_above() -> None:
    """Seen across the cloth, the far cards are half as wide as the near ones and squashed to
    0.6-0.7 of their depth; seen from above they are cards again: every face read at a confidence
    acted on, in the frame's pixels, each in its zone."""
    reader = CardReader()
    frame = faces_frame()
    cards = camera_reader(reader, camera()).read(frame)
    named = {c.card: c for c in cards if c.card and c.confidence >= ACT_CONFIDENCE}
    assert sorted(named) == sorted([card for card, _ in FACES.values()] + [card for card, _ in BOARD])
    for card, centre in [*FACES.values(), *BOARD]:
        ((x, y),) = mapped(TO_FRAME, [centre])
        seen = named[card].centre
        assert abs(seen[0] - x) < 8 and abs(seen[1] - y) < 8, (card, seen, (x, y))
    watch = ZoneWatch(camera(), agree=1)
    held = sorted((s.zone, s.card) for s in watch.frame(cards, 0.0) if s.face_up)
    assert held == sorted(
        [(seat, card) for seat, (card, _) in FACES.items()] + [("board", c) for c, _ in BOARD]
    )


def test_seen_from_above_a_tables_backs_are_learned_and_face_down() -> None:
    """A rail camera's frames of backs warped as the adapter warps them: calibration learns the
    back there, and the backs are face down, never face up, in the frame's pixels."""
    back = render_back((150, 30, 20), 110)
    places = [(120, 320), (320, 320), (520, 320), (200, 110), (440, 110)]
    frame = across(
        [(back, centre, angle) for centre, angle in zip(places, (20, -35, 60, 0, 10), strict=True)]
    )
    view = View.of(PLANE, FRAME, camera().zones)
    learned, _ = learn("red", back_samples([view.warp(frame)], CardReader()))
    cards = camera_reader(CardReader(backs=Backs((learned,))), camera()).read(frame)
    assert [c.facing for c in cards] == [Facing.DOWN] * len(places)
    assert all(c.why == "the red back" for c in cards)


def test_the_view_is_as_fine_as_the_frame_where_it_sees_the_cloth_coarsest() -> None:
    """Nowhere finer than the camera resolves: the far edge of the board's zone as long in the
    view as in the frame, the near side shrunk to the same scale; the way back is the way there."""
    zones = camera().zones
    view = View.of(PLANE, FRAME, zones)
    board = zones[0].points
    far = math.dist(board[0], board[1])
    seen = mapped(view.matrix, board)
    assert math.dist(seen[0], seen[1]) == pytest.approx(far, rel=0.02)
    near = mapped(view.matrix, SEEN[2:])
    assert math.dist(*near) < 0.8 * math.dist(*SEEN[2:])
    points = [(100.0, 200.0), (600.0, 440.0)]
    assert np.allclose(mapped(view.inverse, mapped(view.matrix, points)), points)
    # the zones with a margin, cut at the frame's own edges
    assert view.size[0] * view.size[1] < FRAME[0] * FRAME[1]


def test_a_view_past_the_horizon_or_too_steep_is_refused() -> None:
    # the far edge of the sheet nearly as short as nothing: the top of the frame is sky
    steep = TablePlane(((300.0, 300.0), (340.0, 300.0), (600.0, 470.0), (40.0, 470.0)), (297.0, 210.0))
    with pytest.raises(ViewError, match="horizon"):
        View.of(steep, FRAME, (ZoneArea("board", rectangle(0, 0, 640, 480)),))
    # a sheet seen a thirtieth as deep as it is: the zone would be twenty times its frame's pixels
    grazing = TablePlane(((100.0, 300.0), (400.0, 300.0), (400.0, 309.0), (100.0, 309.0)), (297.0, 210.0))
    with pytest.raises(ViewError, match="too steeply"):
        View.of(grazing, FRAME, (ZoneArea("board", rectangle(0, 0, 640, 480)),))
    # three corners on one line: no rectangle, and OpenCV's map of it says nothing by itself
    flat = TablePlane(((100.0, 300.0), (200.0, 350.0), (300.0, 400.0), (100.0, 400.0)), (297.0, 210.0))
    with pytest.raises(ViewError, match="on one line"):
        View.of(flat, FRAME, (ZoneArea("board", rectangle(0, 0, 640, 480)),))


RAIL = (
    CONFIG.split("[cameras.table]")[0]
    + """[cameras.rail]
source = "frames"
size = [640, 480]
plane = {plane}
plane_mm = [297, 210]
[cameras.rail.zones]
{zones}
"""
)


def rail_config(tmp_path: Path, plane: TablePlane | None = PLANE) -> Path:
    zones = "\n".join(f"{z.name} = {[[round(x), round(y)] for x, y in z.points]}" for z in camera().zones)
    text = RAIL.format(
        plane=[[round(x, 1), round(y, 1)] for x, y in plane.corners] if plane else "", zones=zones
    )
    if plane is None:
        text = text.replace("plane = \n", "").replace("plane_mm = [297, 210]\n", "")
    path = tmp_path / "table.toml"
    path.write_text(text)
    return path


def test_calibrate_learns_a_rail_cameras_backs_seen_from_above_and_draws_its_plane(tmp_path: Path) -> None:
    """`tablectl vision calibrate --backs` from a camera looking across the table learns the back
    from its frames seen from above, as the camera is read; without the plane it finds too few.
    The drawing shows the plane's rectangle, its corners numbered."""
    back = render_back((40, 30, 170), 110)
    places = [(120, 320), (320, 320), (520, 320), (200, 110), (440, 110)]
    frame = across(
        [(back, centre, angle) for centre, angle in zip(places, (20, -35, 60, 0, 10), strict=True)]
    )
    write_frames(tmp_path / "frames", [frame])
    config = rail_config(tmp_path)
    result = tablectl(
        "vision", "calibrate", "--config", str(config), "--backs", "--camera", "rail", "--deck", "red"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("red back learned from 5 face-down card(s)")
    result = tablectl("vision", "calibrate", "--config", str(config), "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    assert "5 card(s)" in result.stdout
    drawn = cv2.imread(str(tmp_path / "out" / "zones-rail.png"))
    x, y = (round(v) for v in PLANE.corners[0])
    assert tuple(drawn[y, x + 20]) == PLANE_COLOUR  # the plane's first side
    (tmp_path / "backs.json").unlink()
    config = rail_config(tmp_path, plane=None)
    result = tablectl(
        "vision", "calibrate", "--config", str(config), "--backs", "--camera", "rail", "--deck", "red"
    )
    assert result.returncode == 2 and "2 face-down card(s) of one back found" in result.stderr


def test_calibrate_plane_measures_a_sheet_on_the_cloth_and_prints_the_lines_to_add(tmp_path: Path) -> None:
    """The installer lays a sheet of A4 on the cleared cloth and runs `tablectl vision calibrate --plane`:
    the sheet's corners as the frame shows them, clockwise from the top left, within 2 px of
    where they are, in the two lines the camera's section takes, and the frame drawn."""
    sheet = np.full((210, 297, 3), 245, np.uint8)
    frame = across([(sheet, (170 + 148, 110 + 105), 0.0)])
    image = tmp_path / "sheet.png"
    cv2.imwrite(str(image), frame)
    (tmp_path / "frames").mkdir()  # the camera's source, not read: --frame is
    config = rail_config(tmp_path, plane=None)
    result = tablectl(
        "vision", "calibrate", "--config", str(config), "--camera", "rail", "--plane", "--frame", str(image),
        "--out", str(tmp_path),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    head, plane_line, size_line = result.stdout.strip().splitlines()
    assert (
        head == f"rail camera: a sheet found, drawn in {tmp_path / 'plane-rail.png'}; add to [cameras.rail]:"
    )
    assert size_line == "plane_mm = [297, 210]"
    corners = json.loads(plane_line.removeprefix("plane = "))
    assert np.abs(np.array(corners) - np.array(PLANE.corners)).max() < 2.0
    assert cv2.imread(str(tmp_path / "plane-rail.png")).shape == (480, 640, 3)
    # the lines as printed make a config that loads, its view from above the one measured
    config.write_text(
        config.read_text().replace("[cameras.rail.zones]", f"{plane_line}\n{size_line}\n[cameras.rail.zones]")
    )
    vision = load_table_config(config).vision
    assert vision is not None and vision.cameras[0].plane is not None
    cv2.imwrite(str(image), across([]))
    result = tablectl(
        "vision", "calibrate", "--config", str(config), "--camera", "rail", "--plane", "--frame", str(image)
    )
    assert (
        result.returncode == 1
        and "no sheet of paper found: lay a sheet of A4 flat on the cleared cloth" in result.stdout
    )


@pytest.mark.parametrize("light", [1.0, 0.55])
def test_the_sheet_is_found_in_a_bright_room_and_a_dim_one(light: float) -> None:
    """A sheet under a dim light is greyer than paper in a bright one (its whiteness about 130):
    the brightest level that shows a four-sided shape is taken."""
    sheet = np.full((210, 297, 3), 245, np.uint8)
    frame = np.clip(across([(sheet, (170 + 148, 110 + 105), 0.0)]) * light, 0, 255).astype(np.uint8)
    corners = find_sheet(frame)
    assert corners is not None
    assert np.abs(np.array(corners) - np.array(PLANE.corners)).max() < 2.0
