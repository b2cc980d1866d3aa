"""Tests of the MQTT adapter (tablectl/adapters/mqtt/); the broker ones are marked ``integration``."""
