"""Tests of the hand procedure (tablectl/core/procedure/), driven by tests/scenarios/*.scn."""
