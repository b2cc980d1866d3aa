"""Tests of the table step (tablectl/core/table/)."""
