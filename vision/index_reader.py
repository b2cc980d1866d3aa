"""The corner-index classifier: a patch in, a rank and a suit (or none) with probabilities out.

The model (vision/models/index_classifier.onnx, made by tools/train_index_classifier.py) is a
16 k-parameter CNN (64 KB) with two heads: 13 ranks + none, 4 suits + none. It runs through
onnxruntime where it is installed (a dependency of the package, with aarch64 wheels): for a frame's
batch of ~80 patches it takes about half of cv2.dnn's time (docs/vision.md, Measured). OpenCV's own
dnn module is the fallback, so a Pi with only opencv-python-headless still reads cards; the two give
the same reads (tests/vision/test_index_reader.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, NamedTuple, Protocol

import cv2
import numpy as np

from tablectl.core.cards import RANKS, SUITS
from vision import PACKAGE_DIR
from vision.types import FloatArray

RANK_LABELS = RANKS  # tablectl.core.cards' order: 2..9, T, J, Q, K, A
NONE_RANK = len(RANK_LABELS)
NONE_SUIT = len(SUITS)
MODEL_PATH = PACKAGE_DIR / "models" / "index_classifier.onnx"
# The same network trained with printed matter (a book's text, a box's) among its 'none' patches
# (tools/train_index_classifier.py --text): asked again about a card read at one corner only,
# where the committed classifier has read a book's text as an index (vision/reader.py)
PRINT_MODEL_PATH = MODEL_PATH.with_name("index_classifier_print.onnx")
# The same network trained with backs of patterns that are no lattice (harlequins, checks, dots,
# stripes: --patterned-backs) among its 'none' patches: asked again about every card about to be
# acted on, where the committed classifier has named a back's pattern (vision/reader.py)
PATTERN_MODEL_PATH = MODEL_PATH.with_name("index_classifier_pattern.onnx")
Backend = Literal["onnxruntime", "cv2"]


class IndexRead(NamedTuple):
    """One window's read (a named tuple: a frame reads ~70 windows, and a frozen dataclass took
    four times as long to make)."""

    rank: int  # 0..12, or NONE_RANK
    suit: int  # 0..3, or NONE_SUIT
    rank_p: float
    suit_p: float

    @property
    def is_index(self) -> bool:
        return self.rank != NONE_RANK and self.suit != NONE_SUIT

    @property
    def confidence(self) -> float:
        return self.rank_p * self.suit_p if self.is_index else 0.0


def _softmax(logits: FloatArray) -> FloatArray:
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    result: FloatArray = shifted / shifted.sum(axis=1, keepdims=True)
    return result


class _Model(Protocol):
    def logits(self, patches: FloatArray) -> FloatArray: ...


class _OpenCvModel:
    def __init__(self, model_path: Path) -> None:
        self._net = cv2.dnn.readNetFromONNX(str(model_path))

    def logits(self, patches: FloatArray) -> FloatArray:
        self._net.setInput(patches)
        return np.asarray(self._net.forward(), dtype=np.float32)


class _OnnxRuntimeModel:
    def __init__(self, model_path: Path) -> None:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        # one thread, as OpenCV runs in the bench: the Pi's other cores are the table's, and a
        # thread pool spinning between frames would burn them
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(
            str(model_path), options, providers=["CPUExecutionProvider"]
        )
        self._input = self._session.get_inputs()[0].name

    def logits(self, patches: FloatArray) -> FloatArray:
        return np.asarray(self._session.run(None, {self._input: patches})[0], dtype=np.float32)


def onnxruntime_installed() -> bool:
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


class IndexReader:
    """``backend``: 'onnxruntime' (the default where it is installed) or 'cv2' (OpenCV's dnn)."""

    def __init__(self, model_path: Path = MODEL_PATH, backend: Backend | None = None) -> None:
        if backend is None:
            backend = "onnxruntime" if onnxruntime_installed() else "cv2"
        self.backend: Backend = backend
        self._model: _Model = (
            _OnnxRuntimeModel(model_path) if backend == "onnxruntime" else _OpenCvModel(model_path)
        )

    def read(self, patches: FloatArray) -> list[IndexRead]:
        """patches: (n, 2, h, w) from vision.index_patch.normalise."""
        if len(patches) == 0:
            return []
        logits = self._model.logits(np.ascontiguousarray(patches, dtype=np.float32))
        ranks = _softmax(logits[:, : NONE_RANK + 1])
        suits = _softmax(logits[:, NONE_RANK + 1 :])
        rank, suit = ranks.argmax(axis=1), suits.argmax(axis=1)
        rows = np.arange(len(logits))
        # whole columns to Python values at once: per element, numpy's scalars cost more than the rest
        return [
            IndexRead(*read)
            for read in zip(
                rank.tolist(),
                suit.tolist(),
                ranks[rows, rank].tolist(),
                suits[rows, suit].tolist(),
                strict=True,
            )
        ]
