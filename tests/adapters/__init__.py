"""Tests of the adapters (tablectl/adapters/)."""
