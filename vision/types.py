"""The array types the pipeline passes around.

Images are uint8 arrays as OpenCV returns them; OpenCV's own stubs type its results as arrays of
any number type, so the image aliases say the shape in a comment and leave the dtype open.
"""

from __future__ import annotations

from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

BGRImage: TypeAlias = npt.NDArray[Any]  # (h, w, 3) uint8, OpenCV's channel order
GrayImage: TypeAlias = npt.NDArray[Any]  # (h, w) uint8
FloatArray: TypeAlias = npt.NDArray[np.float32]
