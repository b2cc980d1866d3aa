"""tablectl: the controller of a live poker table."""

__version__ = "0.1.0"
