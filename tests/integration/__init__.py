"""End-to-end tests: a real mosquitto, subprocesses, an installed wheel; marked ``integration``."""
