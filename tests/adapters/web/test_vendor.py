"""mqtt.js as vendored: the committed bundle is the one the manifest records, with its licence,
and the package ships every file the pages load."""

from __future__ import annotations

import fnmatch
import hashlib
import json
import tomllib

from tablectl.adapters.web.pages import static_folder
from tests.helpers.paths import ROOT

VENDOR = static_folder() / "vendor"


def test_the_bundle_is_the_one_recorded() -> None:
    manifest = json.loads((VENDOR / "mqtt.json").read_text())
    bundle = (VENDOR / manifest["file"]).read_bytes()
    assert hashlib.sha256(bundle).hexdigest() == manifest["sha256"], (
        "static/vendor/mqtt.min.js differs from the sha256 in mqtt.json: vendor it with "
        "tools/refresh-mqttjs VERSION, never by hand"
    )
    assert len(bundle) == manifest["bytes"]
    assert manifest["package"] == "mqtt" and manifest["version"].startswith("5.")


def test_the_licence_travels_with_it() -> None:
    manifest = json.loads((VENDOR / "mqtt.json").read_text())
    licence = (VENDOR / manifest["licence_file"]).read_text()
    assert manifest["licence"] == "MIT" and "MIT License" in licence and "MQTT.js contributors" in licence


def test_the_package_data_holds_every_static_file() -> None:
    # A file the globs miss would be in the checkout and missing from the wheel a Pi installs.
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["tablectl.adapters.web"]
    package = static_folder().parent
    files = [p.relative_to(package).as_posix() for p in static_folder().rglob("*") if p.is_file()]
    assert files
    missed = [f for f in files if not any(fnmatch.fnmatch(f, pattern) for pattern in patterns)]
    assert not missed, f"add these to pyproject.toml's package-data for tablectl.adapters.web: {missed}"
