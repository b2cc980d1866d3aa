"""Where frames come from, behind one interface: a folder or list of image files, a video file, a
USB camera (OpenCV), the Pi camera (picamera2, where it is installed).

A source yields a Frame for every good picture and a Skipped, with the reason, for every bad one
(an unreadable or truncated file, an empty frame), so one corrupt frame never stops a pipeline.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from vision.types import BGRImage
from vision.zones import CameraConfig

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")
MAX_IMAGE_BYTES = 64 * 1024 * 1024  # a phone photo is < 15 MB; more is not a photo
MAX_MISSED_FRAMES = 30  # a camera that delivers nothing for about a second at 30 fps is lost


class SourceError(RuntimeError):
    """A source that cannot start at all (no such file, no camera): the message says what to do."""


@dataclass(frozen=True)
class Frame:
    label: str  # the file's path, or 'frame N' of a video or camera
    image: BGRImage


@dataclass(frozen=True)
class Skipped:
    label: str
    reason: str


class FrameSource(Protocol):
    def frames(self) -> Iterator[Frame | Skipped]: ...

    def close(self) -> None: ...


def _usable(label: str, image: Any) -> Frame | Skipped:
    if image is None or not isinstance(image, np.ndarray) or image.size == 0:
        return Skipped(label, "no picture in it (empty or undecodable)")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.ndim != 3 or image.shape[2] not in (3, 4):
        return Skipped(label, f"not a colour or grey picture (shape {image.shape})")
    elif image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if min(image.shape[:2]) < 16:
        return Skipped(label, f"too small to hold a card ({image.shape[1]}x{image.shape[0]})")
    return Frame(label, image)


def read_image(path: Path) -> Frame | Skipped:
    label = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_IMAGE_BYTES:
            return Skipped(label, f"{size} bytes is more than a photo ({MAX_IMAGE_BYTES} at most)")
        data = path.read_bytes()
    except OSError as error:
        return Skipped(label, f"cannot read the file: {error.strerror or error}")
    if path.suffix.lower() in (".jpg", ".jpeg") and data.rstrip(b"\0\r\n ")[-2:] != b"\xff\xd9":
        # OpenCV decodes a cut-off JPEG into a half-grey picture and only warns: refuse it here
        return Skipped(label, "truncated JPEG (no end-of-image marker): the file was cut short")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    return _usable(label, image)


class ImageFiles:
    """Image files, or every image in the folders given (sorted by name)."""

    def __init__(self, paths: Iterable[Path | str]) -> None:
        self._paths: list[Path] = []
        for entry in map(Path, paths):
            if entry.is_dir():
                self._paths += sorted(p for p in entry.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            else:
                self._paths.append(entry)

    def frames(self) -> Iterator[Frame | Skipped]:
        for path in self._paths:
            yield read_image(path)

    def close(self) -> None:
        pass


class _Capture:
    """A cv2.VideoCapture read until it ends, or until it has given nothing for too long."""

    def __init__(self, capture: Any, what: str, ends: bool) -> None:
        self._capture = capture
        self._what = what
        self._ends = ends  # a file ends at its last frame; a camera that stops is lost

    def frames(self) -> Iterator[Frame | Skipped]:
        number, missed = 0, 0
        while True:
            ok, image = self._capture.read()
            number += 1
            if not ok:
                if self._ends:
                    return
                missed += 1
                yield Skipped(f"{self._what} frame {number}", "the camera gave no frame")
                if missed >= MAX_MISSED_FRAMES:
                    return
                continue
            missed = 0
            yield _usable(f"{self._what} frame {number}", image)

    def close(self) -> None:
        self._capture.release()


class VideoFile(_Capture):
    def __init__(self, path: Path | str) -> None:
        if not Path(path).is_file():
            raise SourceError(f"{path}: no such video file")
        capture = cv2.VideoCapture(str(path))
        if not capture.isOpened():
            raise SourceError(f"{path}: OpenCV cannot open this video (is it a video, and complete?)")
        super().__init__(capture, str(path), ends=True)


class UsbCamera(_Capture):
    """A V4L2 camera by its number (0 is /dev/video0) or its device path."""

    def __init__(self, device: int | str = 0, width: int = 640, height: int = 480) -> None:
        capture = cv2.VideoCapture(device)
        if not capture.isOpened():
            name = f"{device} (/dev/video{device})" if isinstance(device, int) else device
            raise SourceError(f"camera {name} does not open: is it plugged in?")
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        # the newest frame, not one queued while the reader was busy (V4L2 queues 4 by default);
        # a driver that cannot is left as it is
        capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        super().__init__(capture, f"camera {device}", ends=False)


def picamera_available() -> bool:
    return importlib.util.find_spec("picamera2") is not None


class PiCamera:
    """The Raspberry Pi camera through picamera2 (Raspberry Pi OS's python3-picamera2)."""

    FORMAT = "RGB888"  # what gives OpenCV's B, G, R (below)

    def __init__(self, width: int = 640, height: int = 480, number: int = 0) -> None:
        if not picamera_available():
            raise SourceError(
                "picamera2 is not installed: sudo apt-get install python3-picamera2, and make the "
                "venv with --system-site-packages so that it sees it"
            )
        from picamera2 import Picamera2  # type: ignore[import-not-found]

        try:
            self._camera = Picamera2(number)
        except (IndexError, RuntimeError) as error:
            raise SourceError(f"Pi camera {number} does not open: {error}") from None
        # libcamera names formats by their order in a little-endian word: "RGB888" is B, G, R in
        # memory, OpenCV's order ("BGR888" would hand OpenCV red and blue swapped, and red suits
        # read as black ink); picamera2's maintainers say so in raspberrypi/picamera2#191
        config = self._camera.create_video_configuration(
            main={"size": (width, height), "format": self.FORMAT}
        )
        self._camera.configure(config)
        self._camera.start()

    def frames(self) -> Iterator[Frame | Skipped]:
        number = 0
        while True:
            number += 1
            try:
                image = self._camera.capture_array()
            except RuntimeError as error:
                yield Skipped(f"picamera frame {number}", f"the camera failed: {error}")
                return
            yield _usable(f"picamera frame {number}", image)

    def close(self) -> None:
        self._camera.stop()
        self._camera.close()


def open_camera(camera: CameraConfig) -> FrameSource:
    """The source a table's config names for a camera (vision/zones.py), at the config's size."""
    source = camera.source
    width, height = camera.size
    if source.kind == "device":
        assert source.device is not None
        return UsbCamera(source.device, width, height)
    if source.kind == "picamera":
        return PiCamera(width, height, int(source.device or 0))
    assert source.path is not None
    if source.kind == "video":
        return VideoFile(source.path)
    if not source.path.is_dir():
        raise SourceError(f"{source.path}: no such folder of images")
    return ImageFiles([source.path])
