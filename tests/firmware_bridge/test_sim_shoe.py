"""The simulated shoe as a product for test rigs: its pseudo-terminal, its decks and tags,
its fault knobs, its keyboard commands and its command line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import serial

from firmware_bridge.cli import add_sim_parser, parse_card_list
from firmware_bridge.faults import FaultInjector, Faults, split_frames
from firmware_bridge.link import ShoeLink
from firmware_bridge.protocol import (
    CardRead,
    Delivered,
    Face,
    LinkState,
    ReliableEndpoint,
    Role,
    ShoeError,
    ShoeState,
)
from firmware_bridge.simshoe import CARD_NUMBERS, CardNames, SimShoe
from firmware_bridge.tags import card_of, deck_tags, tag_id
from firmware_bridge.testing import LinkRecorder
from tablectl.core.cards import card_str, parse_card
from tablectl.sim.scenario import scenario_cards
from tests.helpers.paths import ROOT

NAMES = CardNames(parse_card, card_str)  # what tablectl's command line gives the shoe

# -- decks and tags -----------------------------------------------------------------------


def test_tags_are_deterministic_distinct_and_per_deck() -> None:
    red = deck_tags("red-1")
    assert len(set(red)) == 52 and all(len(t) == 7 and t[0] == 0x04 for t in red)
    assert deck_tags("red-1") == red and tag_id("red-1", 51) == red[51]
    assert set(red).isdisjoint(deck_tags("blue-1"))
    assert card_of("red-1", red[17]) == 17 and card_of("blue-1", red[17]) is None
    with pytest.raises(ValueError):
        tag_id("red-1", 52)


def test_the_same_seed_shuffles_the_same_decks() -> None:
    a, b = SimShoe(seed=5), SimShoe(seed=5)
    try:
        assert a.shuffle() == b.shuffle() != SimShoe(seed=6).shuffle()
        assert sorted(a.shuffle()) == list(range(52))
    finally:
        a.stop()
        b.stop()


# -- faults -------------------------------------------------------------------------------


def test_fault_specs_parse_and_explain_mistakes() -> None:
    faults = Faults.parse("drop=0.05, corrupt=0.1,duplicate=0.02,delay=0.1,delay_ms=80,garbage=0.01")
    assert (faults.drop, faults.corrupt, faults.duplicate, faults.delay, faults.delay_ms, faults.garbage) == (
        0.05,
        0.1,
        0.02,
        0.1,
        80,
        0.01,
    )
    assert Faults.parse("") == Faults() and not Faults().any and faults.any
    assert "drop=0.05" in str(faults)
    with pytest.raises(ValueError, match="NAME one of"):
        Faults.parse("lose=0.1")
    with pytest.raises(ValueError, match="probability"):
        Faults.parse("drop=5")
    with pytest.raises(ValueError, match="not a number"):
        Faults.parse("drop=lots")


def test_fault_injector_rates_and_split_frames() -> None:
    import random

    injector = FaultInjector(Faults(drop=0.1, duplicate=0.1, corrupt=0.1, garbage=0.1), random.Random(1))
    frame = b"\x00\x05abcd\x00"
    for _ in range(10_000):
        injector.apply(frame)
    counts = injector.counts
    for n in (counts.dropped, counts.duplicated, counts.corrupted, counts.garbage_bursts):
        assert 800 < n < 1200
    buffer = bytearray()
    assert split_frames(buffer, b"\x00ab\x00\x00c") == [b"\x00ab\x00"]
    assert split_frames(buffer, b"d\x00") == [b"\x00cd\x00"] and buffer == b""


# -- the pseudo-terminal ------------------------------------------------------------------


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[SimShoe]:
    with SimShoe("red-1", seed=1, link=tmp_path / "shoe") as shoe:
        yield shoe


def test_the_pty_is_raw_and_a_bare_endpoint_on_pyserial_talks_to_it(sim: SimShoe) -> None:
    """The host side without ShoeLink: pyserial plus the pure endpoint. Bytes a cooked
    terminal would eat or change (CR, LF, XON, XOFF, Ctrl-C, Ctrl-D, DEL) pass untouched
    both ways, or this exchange could not work."""
    awkward = bytes([0x0D, 0x0A, 0x11, 0x13, 0x03, 0x04, 0x7F, 0x1A])
    port = serial.Serial(sim.path, 115200, timeout=0.05)
    try:
        host = ReliableEndpoint(Role.HOST, 0xC0FFEE)
        import time

        host.start(time.monotonic())
        received: list[object] = []
        sim.deal_tag(awkward + b"\x0d\x0a", Face.FACE, antenna=0x0D)
        sim.report_error(0x0D0A, "line\r\nbreak\x11\x13")
        deadline = time.monotonic() + 5
        while len([m for m in received if isinstance(m, (CardRead, ShoeError))]) < 2:
            assert time.monotonic() < deadline, host.counters
            step = host.step(time.monotonic(), port.read(256))
            received += [e.message for e in step.events if isinstance(e, Delivered)]
            port.write(step.data)
        read = next(m for m in received if isinstance(m, CardRead))
        error = next(m for m in received if isinstance(m, ShoeError))
        assert read.tag == awkward + b"\r\n" and read.antenna == 0x0D and read.face is Face.FACE
        assert error.code == 0x0D0A and error.text == "line\r\nbreak\x11\x13"
        assert any(isinstance(m, ShoeState) for m in received)
        assert host.counters.bad_frames == 0
    finally:
        port.close()


def test_the_stable_link_follows_unplug_and_replug(sim: SimShoe, tmp_path: Path) -> None:
    link = tmp_path / "shoe"
    assert os.readlink(link) == sim.tty
    sim.unplug()
    assert not link.exists() and sim.tty is None
    sim.replug()
    assert sim.tty is not None and os.readlink(link) == sim.tty
    port = serial.Serial(str(link), 115200, timeout=0.1)
    port.close()


def test_a_rebooted_shoe_starts_a_new_session_and_numbers_reads_from_one(sim: SimShoe) -> None:
    sim.deal(1)
    first = sim.session
    sim.reboot()
    assert sim.session != first and sim.read_no == 0 and sim.boots == 2
    assert sim.deal(2) == 1


def test_interactive_commands() -> None:
    shoe = SimShoe("red-1", seed=2, card_names=NAMES)  # not started: commands run in the caller's thread
    try:
        assert "read 1: As" in shoe.command("As")
        assert "boxed" in shoe.command("Td up")
        assert "another deck" in shoe.command("5c foreign")
        assert "dealt" in shoe.command("")
        assert "no tag" in shoe.command("unread")
        assert shoe.command("lid open") == "lid open" and shoe.lid_open
        assert shoe.command("jam on") == "jam on" and shoe.jam
        assert "error 1 reported" in shoe.command("error 1 reader not answering")
        assert "drop=0.1" in shoe.command("faults drop=0.1") and shoe.faults.drop == 0.1
        assert shoe.command("faults none") == "faults: none"
        assert "is not a card" in shoe.command("Zz")
        assert "only 'up'" in shoe.command("As sideways")
        assert "unplug | replug | reboot" in shoe.command("help")
        reads = [e.message for e in shoe.events if e.kind == "dealt"]
        assert reads[0].tag == tag_id("red-1", parse_card("As")) and reads[0].face is Face.BACK
        assert reads[1].face is Face.FACE
        assert reads[2].tag == tag_id(shoe.foreign_deck, parse_card("5c"))
        assert reads[4].tag == b""
        assert shoe.endpoint.state is LinkState.SYNCING  # no host: everything waits in the queue
        assert shoe.endpoint.pending >= 5
    finally:
        shoe.stop()


def test_card_lists_for_the_command_line() -> None:
    assert parse_card_list("As Kd:up, 5c:foreign", NAMES) == [
        (parse_card("As"), Face.BACK, False),
        (parse_card("Kd"), Face.FACE, False),
        (parse_card("5c"), Face.BACK, True),
    ]
    with pytest.raises(ValueError, match=":up"):
        parse_card_list("As:sideways", NAMES)


def test_add_sim_parser_builds_the_shoe_subcommand() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    add_sim_parser(parser.add_subparsers(dest="device"))
    args = parser.parse_args(
        ["shoe", "--deck", "blue-2", "--seed", "4", "--faults", "drop=0.1", "--link", "/x"]
    )
    assert (args.deck, args.seed, args.faults, args.link, args.interactive) == (
        "blue-2",
        4,
        "drop=0.1",
        "/x",
        False,
    )
    assert callable(args.func)


# -- the command line, as a test engineer runs it -----------------------------------------


_WITHOUT_TABLECTL = (
    "import runpy, sys; sys.modules['tablectl'] = None; "  # None in sys.modules: ImportError
    "runpy.run_module('firmware_bridge.cli', run_name='__main__', alter_sys=True)"
)


def run_cli(*args: str, stdin: int | None = None, alone: bool = False) -> subprocess.Popen[str]:
    """``tablectl sim shoe ARGS``; ``alone``: the bridge's own ``python -m firmware_bridge.cli shoe``."""
    # Alone, tablectl cannot even be imported: the bridge must run without it.
    command = ["-c", _WITHOUT_TABLECTL, "shoe"] if alone else ["-m", "tablectl.cli", "sim", "shoe"]
    return subprocess.Popen(
        [sys.executable, *command, *args],
        cwd=ROOT,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def first_line(proc: subprocess.Popen[str]) -> str:
    """The child's first line of output, read from its pipe a byte at a time: the text wrapper's
    readline() reads ahead into its own buffer, which communicate() (reading the pipe itself)
    never sees, so the lines after the first were lost when the child wrote them at once (CI,
    2026-12-07: the interactive shoe's prompt missing from its output)."""
    assert proc.stdout is not None
    line = bytearray()
    while not line.endswith(b"\n"):
        byte = os.read(proc.stdout.fileno(), 1)
        if not byte:
            break
        line += byte
    return line.decode()


def test_cli_deals_shuffled_decks_through_faults_until_interrupted(tmp_path: Path) -> None:
    link = str(tmp_path / "tablectl-shoe")
    proc = run_cli(
        "--link",
        link,
        "--seed",
        "9",
        "--interval",
        "0.02",
        "--faults",
        "drop=0.1,corrupt=0.1",
        "--cards",
        "As:up Kd:foreign",
    )
    try:
        first = first_line(proc)
        assert link in first and "/dev/pts/" in first
        rec = LinkRecorder()
        with ShoeLink(link, rec.on_message, rec.on_status):
            assert rec.wait_cards(12, timeout=10)
        reads = rec.cards()
        assert [r.read_no for r in reads] == list(range(1, len(reads) + 1))
        assert reads[0].face is Face.FACE and card_of("sim-red", reads[0].tag) == parse_card("As")
        assert card_of("sim-red", reads[1].tag) is None  # the foreign card
        assert all(card_of("sim-red", r.tag) is not None for r in reads[2:])
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert "dealt" in out and not Path(link).exists()


def type_at_the_shoe(
    tmp_path: Path, typed: str, cards: int, *args: str, alone: bool = False
) -> tuple[list[CardRead], str]:
    """Run the shoe with ``--interactive``, type ``typed`` once a host is connected, wait for
    ``cards`` reads in all, then quit: the reads and what the shoe printed."""
    link = str(tmp_path / "tablectl-shoe")
    proc = run_cli("--link", link, "--interactive", *args, stdin=subprocess.PIPE, alone=alone)
    try:
        assert proc.stdin is not None
        assert link in first_line(proc)
        rec = LinkRecorder()
        with ShoeLink(link, rec.on_message, rec.on_status):
            assert rec.wait_status("up")
            proc.stdin.write(typed)
            proc.stdin.flush()
            assert rec.wait_cards(cards)
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    return rec.cards(), out


def test_cli_interactive_from_the_keyboard(tmp_path: Path) -> None:
    (first, second), out = type_at_the_shoe(tmp_path, "Qh up\n7c\n", 2)
    assert card_of("sim-red", first.tag) == parse_card("Qh") and first.face is Face.FACE
    assert card_of("sim-red", second.tag) == parse_card("7c")
    assert "read 1: Qh (boxed)" in out


def test_cli_refuses_a_bad_fault_spec() -> None:
    proc = run_cli("--faults", "lose=0.5")
    _, err = proc.communicate(timeout=10)
    assert proc.returncode == 2 and "NAME one of" in err


def test_the_sim_shoe_deals_a_scenario_files_cards() -> None:
    cards = scenario_cards(str(ROOT / "tests" / "scenarios" / "irr-3-boxed-card.scn"))
    assert cards[0] == (parse_card("As"), Face.FACE, False)  # the boxed ace comes first, face up
    assert len(cards) == 7 and all(face is Face.BACK for _, face, _ in cards[1:])


def test_the_scenario_option_deals_through_tablectls_command_line(tmp_path: Path) -> None:
    link = str(tmp_path / "tablectl-shoe")
    scenario = str(ROOT / "tests" / "scenarios" / "irr-3-boxed-card.scn")
    proc = run_cli("--link", link, "--interval", "0", "--scenario", scenario, "--cards", "2c")
    try:
        assert link in first_line(proc)
        rec = LinkRecorder()
        with ShoeLink(link, rec.on_message, rec.on_status):
            assert rec.wait_cards(8)
        dealt = [(card_of("sim-red", r.tag), r.face, False) for r in rec.cards()]
        assert dealt == [*scenario_cards(scenario), (parse_card("2c"), Face.BACK, False)]
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err


# -- the bridge on its own ----------------------------------------------------------------


def test_firmware_bridge_imports_nothing_from_tablectl() -> None:
    import ast

    for path in sorted((ROOT / "firmware_bridge").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            assert not [n for n in names if n.split(".")[0] == "tablectl"], f"{path}:{node.lineno}"


def test_the_bridges_own_card_names_are_the_numbers_of_its_tags() -> None:
    assert [CARD_NUMBERS.parse(CARD_NUMBERS.show(card)) for card in range(52)] == list(range(52))
    assert CARD_NUMBERS.parse("51") == CARD_NUMBERS.parse(" #51 ") == 51
    for text in ("52", "-1", "As", "", "#"):
        with pytest.raises(ValueError, match="is not a card"):
            CARD_NUMBERS.parse(text)
    shoe = SimShoe("red-1", seed=2)  # no card names given: numbers
    try:
        assert shoe.command("51 up") == "read 1: #51 (boxed)"
        assert '"#51", "#33 up"' in shoe.command("help")
        assert "is not a card" in shoe.command("As")
    finally:
        shoe.stop()


def test_the_bridges_own_command_line_runs_without_tablectl(tmp_path: Path) -> None:
    (first, second), out = type_at_the_shoe(tmp_path, "#12 foreign\n", 2, "--cards", "51:up", alone=True)
    assert card_of("sim-red", first.tag) == 51 and first.face is Face.FACE
    assert card_of("sim-foreign", second.tag) == 12
    assert "type a card (#51, #33 up, #12 foreign)" in out and "read 2: #12 (from another deck)" in out
    no_scenarios = run_cli("--scenario", "x.scn", alone=True)
    _, err = no_scenarios.communicate(timeout=10)
    assert no_scenarios.returncode == 2 and "--scenario" in err
