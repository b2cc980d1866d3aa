"""`tablectl serve` checks its journal can be written before it says it is serving (issue 10,
point 7): a journal file it cannot write, a folder it cannot write in, a full disk. Each ends the
process with exit 2 and one line naming the path and the fix, instead of serving and dying on the
first event with a bare SQLite error and a traceback (a crash loop under systemd).

The real `tablectl serve` in a subprocess, as an unprivileged user: as root (this sandbox, some
CI runners) the child drops to nobody (root writes any file whatever its mode), else it runs as
the test's user. The full disk is a real one, a tiny tmpfs mounted for the test: that needs root,
so without it that one test is skipped (it says why)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablectl.journal.store import Journal
from tablectl.service.tablefile import load_table_config
from tests.helpers.paths import ROOT

NOBODY = 65534
ROOT_USER = os.geteuid() == 0


@pytest.fixture
def place() -> Iterator[Path]:
    """A folder the unprivileged child can reach (pytest's tmp_path is under a 0700 folder)."""
    folder = Path(tempfile.mkdtemp(prefix="tablectl-startup-"))
    folder.chmod(0o755)
    yield folder
    for path in folder.rglob("*"):
        if path.is_dir():
            path.chmod(0o755)
    shutil.rmtree(folder, ignore_errors=True)


def table_toml(folder: Path) -> Path:
    example = (ROOT / "deploy" / "table.example.toml").read_text()
    config = (
        example.replace('port = "/dev/tablectl-shoe"', f'port = "{folder / "no-shoe"}"')
        .replace('registry = "/var/lib/tablectl/decks.json"', f'registry = "{folder / "decks.json"}"')
        .replace(
            "start_without_decks = false",
            "start_without_decks = true",  # the journal is what is tested
        )
    )
    path = folder / "table.toml"
    path.write_text(config)
    path.chmod(0o644)
    return path


def give_away(*paths: Path) -> None:
    if ROOT_USER:
        for path in paths:
            os.chown(path, NOBODY, NOBODY)


def serve(config: Path, journal: Path, timeout: float = 15.0) -> subprocess.CompletedProcess[str]:
    tablectl = Path(sys.executable).parent / "tablectl"
    command = [str(tablectl), "serve", "--mock-gpio", "--config", str(config), "--journal", str(journal)]
    command += ["--mqtt-host", "127.0.0.1", "--mqtt-port", "9"]  # no broker: the journal comes first
    if ROOT_USER:
        command = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *command]
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"tablectl serve did not refuse its journal within {timeout} s; it said: {exc.stderr!r}")


def the_one_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert "Traceback" not in result.stderr and "serving" not in result.stderr
    return lines[0]


def new_journal(config: Path, journal: Path) -> None:
    Journal(journal, load_table_config(config).table).close()


def test_a_read_only_journal_is_refused_before_serving(place: Path) -> None:
    config = table_toml(place)
    journal = place / "table.journal"
    new_journal(config, journal)
    give_away(place, journal)
    journal.chmod(0o444)
    line = the_one_line(serve(config, journal))
    assert line.startswith(f"tablectl: {journal}: the journal cannot be written")
    assert f"chmod u+rw {journal}" in line


def test_a_folder_the_service_cannot_write_is_refused_before_serving(place: Path) -> None:
    config = table_toml(place)
    folder = place / "state"
    folder.mkdir()
    give_away(folder)
    folder.chmod(0o555)
    line = the_one_line(serve(config, folder / "table.journal"))
    assert line.startswith(
        f"tablectl: {folder / 'table.journal'}: the journal's folder {folder} is not writable"
    )
    assert f"chown tablectl:tablectl {folder}" in line


def test_a_full_disk_is_refused_before_serving_naming_the_file(place: Path) -> None:
    disk = place / "disk"
    disk.mkdir()
    if (
        not ROOT_USER
        or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(disk)]).returncode
    ):
        pytest.skip("a real full disk needs a tmpfs mounted, which needs root")
    try:
        config = table_toml(place)
        journal = disk / "table.journal"
        new_journal(config, journal)
        give_away(disk, journal)
        with open(disk / "filler", "wb") as filler:  # fill the disk to the last block
            try:
                while True:
                    filler.write(b"\0" * 65536)
                    filler.flush()
            except OSError:
                pass
        line = the_one_line(serve(config, journal))
        assert line.startswith(f"tablectl: {journal}: the journal cannot be written: the disk is full")
        assert f"df -h {disk}" in line
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)
