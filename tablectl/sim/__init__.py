"""Simulation for test rigs and the demo: random players, the simulated dealer, real PHH hands
dealt as table events, the scenario files of tests/scenarios, and ``tablectl run``."""
