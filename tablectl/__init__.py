"""tablectl: the controller of a live poker table."""

from tablectl import native as _native

__version__ = "0.1.0"

# The compiled engine, when this environment has a build that matches the source (tablectl/native.py).
_native.install()
