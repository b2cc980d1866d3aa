"""The test suite: one folder per package folder of tablectl/ and firmware_bridge/, shared helpers in
helpers/, end-to-end runs in integration/ (marked ``integration`` by conftest.py)."""

import os

# The vision pipeline's source in the test process, set before anything imports tablectl (which puts
# the compiled builds in front, tablectl/native.py): the vision tests patch its functions and flags,
# which a compiled caller never sees. tests/core/test_native.py runs the compiled pipeline in
# children and compares its reads with the source's. Any other TABLECTL_PURE asked for is kept.
_ASKED = os.environ.get("TABLECTL_PURE", "").strip()
if _ASKED in ("", "engine"):
    os.environ["TABLECTL_PURE"] = "engine,vision" if _ASKED else "vision"
