"""Tests of the betting engine (tablectl/core/game/)."""
