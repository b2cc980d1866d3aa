"""The array types the pipeline passes around (numpy arrays as OpenCV returns them)."""

from __future__ import annotations

from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

BGRImage: TypeAlias = npt.NDArray[np.uint8]  # (h, w, 3), OpenCV's channel order
GrayImage: TypeAlias = npt.NDArray[np.uint8]  # (h, w)
FloatArray: TypeAlias = npt.NDArray[np.float32]
AnyArray: TypeAlias = npt.NDArray[Any]
