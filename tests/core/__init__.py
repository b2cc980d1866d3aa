"""Tests of the pure core (tablectl/core/): the quick loop, ``pytest tests/core``."""
