"""ShoeLink (pyserial, a reader thread, reconnection) against the simulated shoe on a real
pseudo-terminal. Every wait is on an event with a timeout; nothing sleeps to synchronise."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware_bridge.faults import Faults
from firmware_bridge.link import ShoeLink
from firmware_bridge.protocol import ErrorCode, Face, Led, SetIndicator, ShoeError, ShoeState
from firmware_bridge.simshoe import SimShoe
from firmware_bridge.tags import card_of, tag_id
from firmware_bridge.testing import LinkRecorder

DECK = "red-1"


@pytest.fixture
def link_path(tmp_path: Path) -> str:
    return str(tmp_path / "tablectl-shoe")


@pytest.fixture
def rec() -> LinkRecorder:
    return LinkRecorder()


@pytest.fixture
def shoe(link_path: str) -> Iterator[SimShoe]:
    with SimShoe(DECK, seed=3, link=link_path, queue_size=128) as sim:
        yield sim


@pytest.fixture
def link(shoe: SimShoe, rec: LinkRecorder) -> Iterator[ShoeLink]:
    with ShoeLink(shoe.path, rec.on_message, rec.on_status) as host:
        assert host.wait_connected(5), host.stats()
        yield host


def dealt_cards(rec: LinkRecorder, deck: str = DECK) -> list[int | None]:
    return [card_of(deck, read.tag) for read in rec.cards()]


def assert_exactly_once_in_order(rec: LinkRecorder, count: int) -> None:
    reads = rec.cards()
    assert [r.read_no for r in reads] == list(range(1, count + 1))
    keys = [m.key for m in rec.card_messages()]
    assert len(set(keys)) == len(keys)


def test_a_whole_deck_arrives_exactly_once_in_order(shoe: SimShoe, link: ShoeLink, rec: LinkRecorder) -> None:
    status = rec.wait_status("up")
    assert status is not None and status.shoe is not None and status.shoe.serial == "SIM-0001"
    order = shoe.deal_deck()
    assert rec.wait_cards(52, timeout=5)
    assert shoe.wait_idle(5)
    assert dealt_cards(rec) == order
    assert_exactly_once_in_order(rec, 52)
    first = rec.card_messages()[0]
    assert first.message.face is Face.BACK  # type: ignore[union-attr]
    assert first.shoe_at is not None and abs(first.shoe_at - first.received_at) < 0.5
    stats = link.stats()
    assert stats["bad_frames"] == 0 and stats["duplicates_dropped"] == 0 and stats["connected"]


def test_boxed_foreign_and_unreadable_cards_say_what_they_are(
    shoe: SimShoe, link: ShoeLink, rec: LinkRecorder
) -> None:
    shoe.boxed(12)
    shoe.foreign(7)
    shoe.unreadable()
    assert rec.wait_cards(3)
    boxed, foreign, unread = rec.cards()
    assert boxed.face is Face.FACE and boxed.face.face_up and card_of(DECK, boxed.tag) == 12
    assert card_of(DECK, foreign.tag) is None and foreign.tag == tag_id(shoe.foreign_deck, 7)
    assert unread.tag == b""


def test_with_faults_on_every_card_still_arrives_exactly_once_in_order(
    shoe: SimShoe, link: ShoeLink, rec: LinkRecorder
) -> None:
    faults = Faults.parse("drop=0.1,corrupt=0.1,duplicate=0.1,garbage=0.05,delay=0.05,delay_ms=30")
    for name, value in vars(faults).items():
        setattr(shoe.faults, name, value)
    order = shoe.deal_deck()
    extra = [shoe.deal_next() for _ in range(40)]
    commands = [SetIndicator(Led(n % 4), n % 2 == 0, 10 * n) for n in range(8)]
    for command in commands:
        link.send(command)
    assert rec.wait_cards(92, timeout=20), link.stats()
    assert shoe.wait_for(lambda: len(shoe.commands) >= len(commands), 10)
    assert dealt_cards(rec) == order + extra
    assert_exactly_once_in_order(rec, 92)
    assert shoe.commands == commands
    stats, sim = link.stats(), shoe.stats()
    assert stats["bad_frames"] > 0 and stats["duplicates_dropped"] > 0, stats
    assert sim["retransmits"] > 0 and sim["tx_dropped"] > 0 and sim["tx_corrupted"] > 0, sim


@pytest.mark.parametrize("long_gap", [False, True], ids=["short-gap", "gap-past-the-shoes-dead-timer"])
def test_unplug_and_replug_mid_deal_loses_and_duplicates_nothing(
    shoe: SimShoe, link: ShoeLink, rec: LinkRecorder, link_path: str, long_gap: bool
) -> None:
    order = shoe.shuffle()
    for _ in range(20):
        shoe.deal_next()
    assert rec.wait_cards(20)
    unplugged = time.monotonic()
    shoe.unplug()
    lost = rec.wait_status("lost", timeout=2)
    assert lost is not None and rec.status_time(lost) - unplugged < 1.0
    assert not Path(link_path).exists() and not link.connected
    for _ in range(12):  # the dealer goes on: the shoe keeps the reads
        shoe.deal_next()
    if long_gap:  # the shoe, too, gives the host up and goes back to HELLOs
        assert shoe.wait_for(lambda: not shoe.connected, timeout=3)
    replugged = time.monotonic()
    shoe.replug()
    back = rec.wait_status("back", timeout=2)
    assert back is not None and rec.status_time(back) - replugged < 1.0
    assert back.gap is not None and back.gap >= replugged - unplugged - 0.05
    assert not back.shoe_restarted and not back.reads_may_be_missing
    for _ in range(20):
        shoe.deal_next()
    assert rec.wait_cards(52, timeout=5)
    assert dealt_cards(rec) == order
    assert_exactly_once_in_order(rec, 52)
    assert link.stats()["opens"] == 2


def test_unplug_with_unacknowledged_reads_in_flight(shoe: SimShoe, link: ShoeLink, rec: LinkRecorder) -> None:
    """The cable goes while frames are on the line: the host never acknowledged them, so
    the shoe sends them again after the HELLO; anything the host did get is not repeated."""
    shoe.faults.delay, shoe.faults.delay_ms = 1.0, 200  # hold every frame on the line
    for card in range(6):
        shoe.deal(card)
    shoe.unplug()
    shoe.faults.delay = 0.0
    assert rec.wait_status("lost", timeout=2)
    shoe.replug()
    assert rec.wait_status("back", timeout=2)
    assert rec.wait_cards(6)
    assert shoe.wait_idle(5)
    assert dealt_cards(rec) == list(range(6))
    assert_exactly_once_in_order(rec, 6)
    assert shoe.stats()["retransmits"] >= 6


def test_a_shoe_power_cut_is_reported_so_the_deck_can_be_checked(
    shoe: SimShoe, link: ShoeLink, rec: LinkRecorder
) -> None:
    shoe.deal(1)
    assert rec.wait_cards(1)
    old_session = shoe.session
    shoe.reboot()
    shoe.deal(2)
    lost = rec.wait_status("lost")
    back = rec.wait_status("back")
    assert lost is not None and back is not None
    assert back.shoe_restarted and back.reads_may_be_missing
    assert back.shoe is not None and back.shoe.session == shoe.session != old_session
    assert rec.wait_cards(2)
    first, second = rec.card_messages()
    assert second.message.read_no == 1  # type: ignore[union-attr]
    assert first.key != second.key


def test_a_new_host_gets_the_reads_made_while_no_host_listened(
    shoe: SimShoe, link: ShoeLink, rec: LinkRecorder
) -> None:
    link.stop()
    for card in (10, 11, 12):
        shoe.deal(card)
    fresh = LinkRecorder()
    with ShoeLink(shoe.path, fresh.on_message, fresh.on_status):
        assert fresh.wait_cards(3)
        assert dealt_cards(fresh) == [10, 11, 12]
        assert fresh.of_kind("up")


def test_commands_and_shoe_state(shoe: SimShoe, link: ShoeLink, rec: LinkRecorder) -> None:
    assert rec.wait_for(lambda: any(isinstance(m.message, ShoeState) for m in rec.messages))
    link.set_indicator(Led.RED, blink=True, buzzer_ms=250)
    assert shoe.wait_for(lambda: shoe.indicator == SetIndicator(Led.RED, True, 250))
    shoe.set_state(lid_open=True, jam=True)
    assert rec.wait_for(lambda: any(isinstance(m.message, ShoeState) and m.message.jam for m in rec.messages))
    link.request_state()
    assert rec.wait_for(lambda: sum(isinstance(m.message, ShoeState) for m in rec.messages) >= 3)
    state = [m.message for m in rec.messages if isinstance(m.message, ShoeState)][-1]
    assert state.lid_open and state.jam and state.deck_present
    shoe.report_error(ErrorCode.ANTENNA_FAULT, "antenna 2 open")
    assert rec.wait_for(lambda: any(isinstance(m.message, ShoeError) for m in rec.messages))
    link.ping(99)
    assert rec.wait_for(lambda: any(getattr(m.message, "nonce", None) == 99 for m in rec.messages))


def test_a_full_shoe_queue_is_reported_as_missed_reads(link_path: str, rec: LinkRecorder) -> None:
    with (
        SimShoe(DECK, link=link_path, queue_size=4) as shoe,
        ShoeLink(shoe.path, rec.on_message, rec.on_status),
    ):
        assert rec.wait_status("up")
        shoe.unplug()
        assert rec.wait_status("lost")
        for card in range(12):  # the shoe holds 4 in flight and 4 queued: the rest is dropped
            shoe.deal(card)
        dropped = shoe.dropped_reads
        assert dropped >= 4
        shoe.replug()
        missed = rec.wait_status("reads_missed")
        assert missed is not None and missed.missed == dropped and missed.reads_may_be_missing
        assert rec.wait_for(
            lambda: any(
                isinstance(m.message, ShoeError) and m.message.code == ErrorCode.QUEUE_OVERFLOW
                for m in rec.messages
            )
        )
        assert rec.wait_cards(12 - dropped)
        shoe.deal(30)  # the next read shows the gap in the numbers: the same reads, not reported again
        assert rec.wait_cards(13 - dropped)
        assert dealt_cards(rec) == [*range(12 - dropped), 30]
        assert len(rec.of_kind("reads_missed")) == 1


def test_manual_confirm_keeps_the_read_in_the_shoe_until_stored(link_path: str, rec: LinkRecorder) -> None:
    with (
        SimShoe(DECK, link=link_path) as shoe,
        ShoeLink(shoe.path, rec.on_message, rec.on_status, confirm="manual") as host,
    ):
        assert host.wait_connected()
        shoe.deal(5)
        assert rec.wait_cards(1)
        assert not shoe.wait_for(lambda: shoe.endpoint.pending == 0, timeout=0.3)
        host.confirm(rec.card_messages()[0])
        assert shoe.wait_for(lambda: shoe.endpoint.pending == 0, timeout=2)
        assert len(rec.cards()) == 1  # it was sent again meanwhile, but delivered once


def test_an_incompatible_shoe_is_reported_with_the_fix(link_path: str, rec: LinkRecorder) -> None:
    with (
        SimShoe(DECK, link=link_path, protocol=(2, 0)) as shoe,
        ShoeLink(shoe.path, rec.on_message, rec.on_status),
    ):
        shoe.deal(1)
        status = rec.wait_status("incompatible")
        assert status is not None and not status.ok
        assert "protocol 2.0" in status.detail and "update tablectl" in status.detail
        assert not rec.wait_cards(1, timeout=0.3)


def test_the_caller_is_never_blocked_and_the_link_waits_for_the_shoe(
    tmp_path: Path, rec: LinkRecorder
) -> None:
    path = str(tmp_path / "not-yet")
    with ShoeLink(path, rec.on_message, rec.on_status) as host:
        started = time.monotonic()
        for _ in range(100):
            host.send(SetIndicator(Led.GREEN))
        assert time.monotonic() - started < 0.1
        assert host.wait_for(lambda: host.open_failures >= 2, timeout=2)  # it keeps trying
        assert not host.connected and "cannot open" in host.stats()["last_error"]
        with SimShoe(DECK, link=path) as shoe:  # the shoe is plugged in later
            assert rec.wait_status("up", timeout=2)
            assert shoe.wait_for(lambda: len(shoe.commands) == 100, timeout=5)
            assert all(c == SetIndicator(Led.GREEN) for c in shoe.commands)
