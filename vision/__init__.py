"""The camera pipeline: frames in (sources), cards out (reader.CardReader). docs/vision.md explains
how it decides and what it measures; it imports only tablectl's pure core."""

from pathlib import Path

# tablectl's package (run by importing its pure core, all vision may import) puts the compiled build
# of the pipeline's hot modules in front of their source (tablectl/native.py): before any of them is
# imported
import tablectl.core  # noqa: F401

# The package's own folder, for its data files (vision/models): a compiled module's __file__ is its
# build's, beside the environment
PACKAGE_DIR = Path(__file__).resolve().parent
