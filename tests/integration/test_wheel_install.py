"""The package installed the way users install it: a wheel, not editable, in a fresh virtualenv.

``./run`` installs with ``pip install -e``, which reads every file from the checkout and so hides
anything the wheel forgets. Here the wheel is built from a copy of the checkout, installed into a
temporary virtual environment (dependencies from the package index, through pip's cache), and its
own ``bin/tablectl`` runs the demo and the MQTT audit from a folder far from the checkout; both
start mosquitto from the mosquitto files the wheel carries (deploy/mosquitto, as package data).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.brokers import require_mosquitto
from tests.helpers.paths import ROOT

TOP_LEVEL = ("tablectl", "firmware_bridge", "vision")


def _run(args: list[str], cwd: Path, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, dict[str, str]]]:
    """(the venv, a working folder outside the checkout, the environment to run it in)."""
    base = tmp_path_factory.mktemp("wheel")
    # Build from a copy: pip builds in the source tree, and a stale build/ there would leak old
    # files into the wheel (and new ones into the checkout).
    source = base / "source"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "build", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", "tests"
        ),
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    wheels = base / "wheels"
    built = _run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(source)],
        base,
        env,
        300,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = wheels.glob("tablectl-*.whl")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    pip = _run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)], base, env, 300)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    work = base / "work"
    work.mkdir()
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    yield venv, work, env


@pytest.mark.integration
def test_the_installed_package_is_the_wheel_and_carries_the_mosquitto_files(
    installed: tuple[Path, Path, dict[str, str]],
) -> None:
    venv, work, env = installed
    probe = (
        "import json, tablectl\n"
        "from tablectl.adapters.mqtt.broker import shipped_config\n"
        "print(json.dumps([tablectl.__file__, str(shipped_config())]))\n"
    )
    result = _run([str(venv / "bin" / "python"), "-c", probe], work, env, 60)
    assert result.returncode == 0, result.stderr
    package, config = (Path(p) for p in json.loads(result.stdout))
    assert package.is_relative_to(venv), f"{package} is not the installed wheel"
    assert config.is_relative_to(venv), f"{config} is not the installed package data"
    # Every package of the tree is in the wheel (setup.py finds them; deploy/ is mapped in).
    site = package.parents[1]
    for top in TOP_LEVEL:
        for init in (ROOT / top).rglob("__init__.py"):
            assert (site / init.relative_to(ROOT)).is_file(), (
                f"{init.parent.relative_to(ROOT)} is not in the wheel"
            )
    shipped = {p.name for p in config.iterdir()}
    assert {
        "mosquitto.conf",
        "acl.room.in",
        "acl.supervisor.in",
        "acl.table.in",
        "mkusers",
        "bridge.conf",
    } <= shipped
    assert os.access(config / "mkusers", os.X_OK), "mkusers lost its executable bit in the wheel"


@pytest.mark.integration
def test_the_installed_tablectl_runs_the_demo_on_its_own_broker(
    installed: tuple[Path, Path, dict[str, str]],
) -> None:
    require_mosquitto()
    venv, work, env = installed
    result = _run([str(venv / "bin" / "tablectl"), "run", "--hands", "2"], work, env, 120)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Publishing the table to mqtt://127.0.0.1:" in out, out
    assert out.count("=== Hand ") == 2, out
    assert "Dealt 2 hands" in out, out


@pytest.mark.integration
def test_the_installed_audit_finds_no_violation(installed: tuple[Path, Path, dict[str, str]]) -> None:
    require_mosquitto()
    venv, work, env = installed
    result = _run([str(venv / "bin" / "tablectl"), "audit", "--hands", "5", "--json"], work, env, 300)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["hands"] == 5
    assert report["violations"] == {
        role: 0
        for role in ("table", "bridge", "dealer", "public", "floor", "broadcast", "admin", "supervisor")
    }, report["examples"]
    assert set(report["unobserved"].values()) == {0}
