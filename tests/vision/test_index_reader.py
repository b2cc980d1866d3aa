"""The index classifier through either backend: onnxruntime where installed, cv2.dnn otherwise."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from tests.helpers.paths import DATA
from vision.corners import corner_frames, find_blobs
from vision.index_patch import cut_patch, normalise_all
from vision.index_reader import IndexReader, onnxruntime_installed
from vision.sources import Frame, read_image


def photo_patches() -> np.ndarray:
    """Every index window of a real photo of overlapping cards, as the reader cuts them."""
    frame = read_image(DATA / "cards" / "photos-tfod-test" / "IMG_2639.JPG")
    assert isinstance(frame, Frame), frame
    image = frame.image
    blobs = find_blobs(image)
    frames = corner_frames(blobs, image.shape)
    patches = np.array([cut_patch(image, f) for f in frames], np.uint8)
    return normalise_all(patches, np.array([blobs[f.blob].dark for f in frames], bool))


def test_both_backends_give_the_same_reads() -> None:
    pytest.importorskip("onnxruntime")
    patches = photo_patches()
    assert len(patches) > 20
    by_runtime = IndexReader(backend="onnxruntime").read(patches)
    by_opencv = IndexReader(backend="cv2").read(patches)
    assert [(r.rank, r.suit) for r in by_runtime] == [(r.rank, r.suit) for r in by_opencv]
    assert any(r.is_index for r in by_opencv)  # the photo's cards are read: not only 'none'
    for one, other in zip(by_runtime, by_opencv, strict=True):
        assert one.rank_p == pytest.approx(other.rank_p, abs=1e-4)
        assert one.suit_p == pytest.approx(other.suit_p, abs=1e-4)


def test_onnxruntime_is_the_default_where_installed() -> None:
    assert IndexReader().backend == ("onnxruntime" if onnxruntime_installed() else "cv2")


def test_without_onnxruntime_opencv_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import onnxruntime now raises ImportError
    assert not onnxruntime_installed()
    reader = IndexReader()
    assert reader.backend == "cv2"
    assert len(reader.read(photo_patches()[:5])) == 5
