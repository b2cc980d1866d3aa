"""The test suite: one folder per package folder of tablectl/ and firmware_bridge/, shared helpers in
helpers/, end-to-end runs in integration/ (marked ``integration`` by conftest.py)."""
