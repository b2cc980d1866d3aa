"""The corner-index classifier: a patch in, a rank and a suit (or none) with probabilities out.

The model (vision/models/index_classifier.onnx, made by tools/train_index_classifier.py) is a
16 k-parameter CNN (64 KB) with two heads: 13 ranks + none, 4 suits + none. It runs through OpenCV's own
dnn module, so the Pi needs nothing beyond opencv-python-headless.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from tablectl.core.cards import RANKS, SUITS
from vision.types import FloatArray

RANK_LABELS = RANKS  # tablectl.core.cards' order: 2..9, T, J, Q, K, A
NONE_RANK = len(RANK_LABELS)
NONE_SUIT = len(SUITS)
MODEL_PATH = Path(__file__).resolve().parent / "models" / "index_classifier.onnx"


@dataclass(frozen=True)
class IndexRead:
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


class IndexReader:
    def __init__(self, model_path: Path = MODEL_PATH) -> None:
        self._net = cv2.dnn.readNetFromONNX(str(model_path))

    def read(self, patches: FloatArray) -> list[IndexRead]:
        """patches: (n, 2, h, w) from vision.index_patch.normalise."""
        if len(patches) == 0:
            return []
        self._net.setInput(np.ascontiguousarray(patches, dtype=np.float32))
        logits = np.asarray(self._net.forward(), dtype=np.float32)
        ranks = _softmax(logits[:, : NONE_RANK + 1])
        suits = _softmax(logits[:, NONE_RANK + 1 :])
        reads: list[IndexRead] = []
        for rank_row, suit_row in zip(ranks, suits, strict=True):
            rank, suit = int(rank_row.argmax()), int(suit_row.argmax())
            reads.append(IndexRead(rank, suit, float(rank_row[rank]), float(suit_row[suit])))
        return reads
