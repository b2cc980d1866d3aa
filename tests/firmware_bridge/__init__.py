"""Tests of the shoe's protocol, link and simulated shoe (firmware_bridge/)."""
