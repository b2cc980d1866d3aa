"""Tests of the ``tablectl`` command (tablectl/cli/)."""
