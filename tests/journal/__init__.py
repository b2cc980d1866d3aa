"""Tests of the journal, its fold, snapshots and replay (tablectl/journal/)."""
