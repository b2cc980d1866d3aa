"""deploy/tablectl.service logs in to the broker as the user mkusers makes for the table its config
names (issue 10, point 10): the unit's `tablectl serve` line, read as the CLI reads it."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest

from tablectl.adapters.mqtt.broker import Credentials, shipped_config
from tablectl.cli import build_parser, mqtt_user
from tablectl.service.tablefile import load_table_config
from tests.helpers.paths import ROOT

UNIT = ROOT / "deploy" / "tablectl.service"


def _serve_arguments() -> list[str]:
    """The arguments of the unit's ExecStart after the tablectl executable (continuations joined)."""
    text = UNIT.read_text().replace("\\\n", " ")
    line = next(line for line in text.splitlines() if line.startswith("ExecStart="))
    words = shlex.split(line.removeprefix("ExecStart="))
    assert words[0].endswith("/tablectl"), words
    return words[1:]


def _unit_user(config: Path) -> str:
    args = build_parser().parse_args(_serve_arguments())
    assert args.command == "serve"
    return mqtt_user(args, load_table_config(config).table.table)


def test_the_unit_names_no_user_of_its_own() -> None:
    # systemd's %H is the Pi's hostname: no part of the broker user may come from it.
    assert "%" not in " ".join(_serve_arguments())
    assert _unit_user(ROOT / "deploy" / "table.example.toml") == "table.12"


@pytest.mark.usefixtures("mosquitto")
def test_the_units_user_is_the_one_mkusers_makes_for_the_configs_table(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    example = (ROOT / "deploy" / "table.example.toml").read_text()
    config.write_text(example.replace('table = "12"', 'table = "bar-7"'))
    subprocess.run(
        [str(shipped_config() / "mkusers"), "--dir", str(tmp_path / "users"), "main", "bar-7"],
        check=True,
        capture_output=True,
    )
    made = Credentials.read(tmp_path / "users" / "credentials").user("table", "bar-7")[0]
    assert _unit_user(config) == made == "table.bar-7"
    # --mqtt-user still wins where an operator gives one.
    args = build_parser().parse_args([*_serve_arguments(), "--mqtt-user", "table.other"])
    assert mqtt_user(args, "bar-7") == "table.other"
