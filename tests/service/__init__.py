"""Tests of the running table's service and its table file (tablectl/service/)."""
