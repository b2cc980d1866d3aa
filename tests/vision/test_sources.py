"""Frame sources: good pictures become frames, bad ones are skipped with a reason."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.helpers.paths import DATA
from vision.sources import Frame, ImageFiles, Skipped, SourceError, VideoFile, read_image

TEST_PHOTOS = DATA / "cards" / "photos-tfod-test"


def test_a_real_photo_is_a_frame() -> None:
    frame = read_image(TEST_PHOTOS / "IMG_2383.JPG")
    assert isinstance(frame, Frame)
    assert frame.image.shape == (504, 378, 3)


def test_a_truncated_jpeg_is_skipped_with_a_reason(tmp_path: Path) -> None:
    cut = tmp_path / "cut.jpg"
    cut.write_bytes((TEST_PHOTOS / "IMG_2383.JPG").read_bytes()[:20000])
    skipped = read_image(cut)
    assert isinstance(skipped, Skipped)
    assert "truncated JPEG" in skipped.reason


def test_garbage_and_missing_files_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "noise.png").write_bytes(b"\x89PNG not really")
    items = list(ImageFiles([tmp_path / "noise.png", tmp_path / "gone.jpg"]).frames())
    assert [type(item) for item in items] == [Skipped, Skipped]
    assert "undecodable" in items[0].reason  # type: ignore[union-attr]
    assert "cannot read the file" in items[1].reason  # type: ignore[union-attr]


def test_a_folder_gives_its_images_in_order(tmp_path: Path) -> None:
    for name in ("b.png", "a.png"):
        cv2.imwrite(str(tmp_path / name), np.full((40, 30, 3), 200, np.uint8))
    (tmp_path / "notes.txt").write_text("not an image")
    labels = [item.label for item in ImageFiles([tmp_path]).frames()]
    assert labels == [str(tmp_path / "a.png"), str(tmp_path / "b.png")]


def test_a_video_file_gives_its_frames(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for level in (50, 100, 150):
        writer.write(np.full((48, 64, 3), level, np.uint8))
    writer.release()
    source = VideoFile(path)
    frames = list(source.frames())
    source.close()
    assert len(frames) == 3 and all(isinstance(f, Frame) for f in frames)


def test_a_missing_video_is_refused_with_its_name(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such video file"):
        VideoFile(tmp_path / "none.mp4")


def test_the_pi_camera_asks_picamera2_for_opencvs_channel_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """picamera2 (libcamera) calls B, G, R in memory "RGB888": asked for "BGR888" it would hand
    OpenCV red and blue swapped. A stand-in for picamera2, as Raspberry Pi OS's is not here."""
    import sys
    import types

    from vision import sources

    configured: list[dict[str, object]] = []

    class Picamera2:
        def __init__(self, number: int) -> None:
            self.number = number

        def create_video_configuration(self, main: dict[str, object]) -> dict[str, object]:
            return {"main": main}

        def configure(self, config: dict[str, object]) -> None:
            configured.append(config)

        def start(self) -> None:
            pass

        def capture_array(self) -> np.ndarray:
            image = np.zeros((480, 640, 3), np.uint8)
            image[:, :, 0] = 200  # what picamera2 gives in RGB888: blue first
            return image

        def stop(self) -> None:
            pass

        def close(self) -> None:
            pass

    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=Picamera2))
    monkeypatch.setattr(sources, "picamera_available", lambda: True)
    camera = sources.PiCamera(640, 480, number=1)
    frame = next(camera.frames())
    camera.close()
    assert configured == [{"main": {"size": (640, 480), "format": "RGB888"}}]
    assert isinstance(frame, Frame) and frame.image[0, 0].tolist() == [200, 0, 0]  # blue, as OpenCV reads it
