"""PHH import, replay, check and export against real hands (../shared/data/phh).

The shared data sits beside the project: ``<project>/../shared/data`` (CI clones the
project next to a copy of shared/). It is read in place, never copied. If it is missing
these tests fail: they do not skip.
"""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
import tarfile
import tomllib
import tracemalloc
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from tablectl.core.cards import CardError
from tablectl.core.game import (
    HOLDEM,
    OMAHA,
    OMAHA_HI_LO,
    BetRaise,
    BringIn,
    CheckCall,
    DealBoard,
    DealHole,
    Discard,
    Fold,
    HandConfig,
    Show,
    Structure,
    UnsupportedVariant,
    Variant,
    house_rules,
    variant_from_code,
)
from tablectl.formats.phh import (
    MAX_HAND_BYTES,
    PhhError,
    action_text,
    check,
    export_phh,
    parse_action,
    parse_phh,
    replay,
)
from tablectl.sim.players import play_random_hand
from tests.helpers.paths import DATA, ROOT

PHH = DATA / "phh"
WSOP = PHH / "wsop-2023-43"
PLURIBUS = PHH / "pluribus.tar.gz"
HISTORICAL = PHH / "historical"


def test_shared_data_is_present() -> None:
    assert WSOP.is_dir(), f"missing {WSOP}: the shared data must sit beside the project"
    assert PLURIBUS.is_file(), f"missing {PLURIBUS}"
    assert HISTORICAL.is_dir(), f"missing {HISTORICAL}"


def _wsop_files() -> list[Path]:
    files = sorted(WSOP.glob("*.phh"), key=lambda p: int(p.stem))
    assert files, f"no PHH files in {WSOP}"
    return files


# -- WSOP 2023 Event #43: mixed games -------------------------------------------------------------


def test_wsop_all_83_hands_match_stud_razz_and_draw_included() -> None:
    variants = Counter(tomllib.loads(f.read_text(encoding="utf-8"))["variant"] for f in _wsop_files())
    assert variants == {
        "NT": 11,
        "PO": 7,
        "FT": 7,
        "FO/8": 14,
        "F7S": 13,
        "F7S/8": 7,
        "FR": 10,
        "F2L3D": 7,
        "N2L1D": 7,
    }
    report = check([str(WSOP)])
    assert report.files == 83
    assert report.mismatched == []
    assert report.matched == 83
    assert report.unsupported == {}
    assert report.odd_chip == []
    assert report.no_result == 0
    assert report.as_json()["matched"] == 83


def test_wsop_each_hand_replays_to_the_recorded_finishing_stacks() -> None:
    compared: Counter[str] = Counter()
    for path in _wsop_files():
        hand = parse_phh(path.read_text(encoding="utf-8"), str(path))
        state = replay(hand).state
        assert state.is_complete, path
        assert state.finishing_stacks == tuple(hand.fields["finishing_stacks"]), path
        assert sum(state.finishing_stacks) == sum(hand.fields["starting_stacks"])
        compared[hand.variant_code] += 1
    assert sum(compared.values()) == 83
    assert len(compared) == 9


def test_stud_and_draw_are_refused_at_a_big_bet_structure_or_as_unknown_games() -> None:
    with pytest.raises(UnsupportedVariant, match="fixed limit"):
        variant_from_code("N7S")
    with pytest.raises(UnsupportedVariant):
        variant_from_code("FB")  # badugi


# -- Pluribus: 10,000 six-max no-limit hands ----------------------------------------------------------


def _half_chip_records() -> dict[str, str]:
    """Member name -> text of every Pluribus record with a half chip in its finishing stacks."""
    found = {}
    with tarfile.open(PLURIBUS, "r:gz") as archive:
        for member in archive:
            if not (member.isfile() and member.name.endswith(".phh")):
                continue
            handle = archive.extractfile(member)
            assert handle is not None
            text = handle.read().decode("utf-8")
            if "finishing_stacks" in text and ".5" in text:
                stacks = tomllib.loads(text)["finishing_stacks"]
                if any(not float(s).is_integer() for s in stacks):
                    found[member.name] = text
    return found


def test_pluribus_all_10000_hands_match_with_half_chips_reported_as_odd_chips() -> None:
    report = check([str(PLURIBUS)])
    assert report.files == 10_000
    assert report.unsupported == {}
    assert report.mismatched == []
    assert report.no_result == 0
    assert report.matched == 10_000

    half_chip = _half_chip_records()
    assert half_chip, "the archive records some split pots in half chips"
    reported = {entry["file"].split(":", 1)[1]: entry for entry in report.odd_chip}
    assert set(reported) == set(half_chip)

    for name, entry in reported.items():
        assert "POT-6" in entry["rule"]
        hand = parse_phh(half_chip[name], name)
        state = replay(hand).state
        ours = state.finishing_stacks
        recorded = hand.finishing_stacks
        assert recorded is not None
        assert list(ours) == entry["ours"]
        diffs = [Fraction(o) - Fraction(r) for o, r in zip(ours, recorded, strict=True)]
        assert sum(diffs) == 0
        assert all(d in (0, Fraction(1, 2), Fraction(-1, 2)) for d in diffs)
        gainers = [p for p, d in enumerate(diffs) if d > 0]
        losers = [p for p, d in enumerate(diffs) if d < 0]
        assert entry["odd_chip_to"] == [f"p{p + 1}" for p in gainers]
        assert len(gainers) == len(losers) >= 1
        for g in gainers:
            # the split pot g won: g is the first winner clockwise from the button
            # (lowest position), the pot did not divide evenly and g got the larger share
            splits = [a for a in state.awards if g in dict(a.shares) and len(a.shares) > 1]
            assert splits, (name, g)
            assert any(
                min(dict(a.shares)) == g
                and a.amount % len(a.shares) != 0
                and dict(a.shares)[g] == max(dict(a.shares).values())
                and set(losers) & set(dict(a.shares))
                for a in splits
            ), (name, g, state.awards)


# -- historical hands -------------------------------------------------------------------------------


def test_historical_dwan_ivey_replays_with_unknown_cards_and_early_shows() -> None:
    # Antonius's cards are unknown (????); the hands are shown before the river is dealt.
    path = HISTORICAL / "dwan-ivey-2009.phh"
    state = replay(parse_phh(path.read_text(encoding="utf-8"), str(path))).state
    assert state.is_complete
    # Dwan's 7-high straight beats Ivey's wheel; Dwan all-in wins the main pot only
    assert state.finishing_stacks == (1_125_600 - 553_500, 2_000_000 - 2_500, 1_109_500)


def test_historical_report_names_unsupported_games_and_fractional_stacks() -> None:
    report = check([str(HISTORICAL)])
    assert report.files == 5
    assert report.unsupported == {"FB": 1, "NS": 1}
    assert len(report.mismatched) == 1
    assert "antonius-blom" in report.mismatched[0]["file"]
    assert "whole number" in report.mismatched[0]["difference"]
    assert report.no_result == 2  # dwan-ivey and arieh-yockey have no finishing stacks


def test_historical_triple_draw_replays_the_bad_beat() -> None:
    # Arieh draws to 7-5-4-3-2 against Yockey's pat 7-6-4-3-2 and wins Yockey's last chips.
    path = HISTORICAL / "arieh-yockey-2019.phh"
    state = replay(parse_phh(path.read_text(encoding="utf-8"), str(path))).state
    assert state.is_complete
    assert state.finishing_stacks == (0, 4_340_000 - 150_000, 5_910_000, 10_765_000 + 1_180_000 + 150_000)


# -- export, parse, replay round trip ---------------------------------------------------------------


def _random_config(rng: random.Random, structures: list[Structure]) -> HandConfig:
    n = rng.randint(2, 9)
    structure = rng.choice(structures)
    game = rng.choice([HOLDEM, OMAHA, OMAHA_HI_LO])
    sb = rng.randint(1, 50)
    bb = rng.choice([sb, 2 * sb, 2 * sb, 3 * sb])
    blinds: tuple[int, ...] = (sb, bb, 2 * bb) if n >= 3 and rng.random() < 0.2 else (sb, bb)
    ante = rng.choice([0, 0, 1, bb // 4])
    antes = (ante,) * n if ante else ()
    stacks = tuple(
        rng.choice([rng.randint(ante + 1, ante + 3 * bb), rng.randint(ante + blinds[-1], 200 * bb)])
        for _ in range(n)
    )
    kw: dict[str, int] = {}
    if structure is Structure.FIXED_LIMIT:
        kw = {"small_bet": bb, "big_bet": 2 * bb}
    elif structure is Structure.SPREAD_LIMIT:
        kw = {"min_bet": bb, "spread_max": max(blinds) * 3}
    profile = rng.choice(["btr", "classic", "tda"])
    return HandConfig(
        Variant(game, structure), stacks, blinds=blinds, antes=antes, rules=house_rules(profile), **kw
    )  # type: ignore[arg-type]


def test_export_parse_replay_round_trip_gives_the_same_finishing_stacks() -> None:
    rng = random.Random(2023)
    structures = [Structure.NO_LIMIT, Structure.POT_LIMIT, Structure.FIXED_LIMIT]
    for _ in range(300):
        config = _random_config(rng, structures)
        final, actions = play_random_hand(config, rng)
        text = export_phh(config, actions, final.finishing_stacks)
        hand = parse_phh(text, "<export>")
        assert hand.variant_code == config.variant.code
        assert [parse_action(t) for t in hand.fields["actions"]] == actions
        again = replay(hand, config.rules)
        assert again.state.is_complete
        assert again.state.finishing_stacks == final.finishing_stacks
        assert tuple(hand.fields["finishing_stacks"]) == final.finishing_stacks
        assert again.state.awards == final.awards


def test_export_writes_the_fields_phh_readers_expect() -> None:
    config = HandConfig(
        Variant(HOLDEM, Structure.NO_LIMIT), (1000, 2000, 3000), blinds=(50, 100), antes=(10, 10, 10)
    )
    final, actions = play_random_hand(config, random.Random(1))
    fields = tomllib.loads(export_phh(config, actions, final.finishing_stacks))
    assert fields["variant"] == "NT"
    assert fields["antes"] == [10, 10, 10]
    assert fields["blinds_or_straddles"] == [50, 100, 0]
    assert fields["min_bet"] == 100
    assert fields["starting_stacks"] == [1000, 2000, 3000]
    assert fields["finishing_stacks"] == list(final.finishing_stacks)
    assert len(fields["actions"]) == len(actions)
    limit = HandConfig(
        Variant(OMAHA_HI_LO, Structure.FIXED_LIMIT), (500, 500), blinds=(5, 10), small_bet=10, big_bet=20
    )
    fields = tomllib.loads(export_phh(limit, []))
    assert fields["variant"] == "FO/8"
    assert (fields["small_bet"], fields["big_bet"]) == (10, 20)
    assert "finishing_stacks" not in fields


def test_export_round_trip_spread_limit() -> None:
    config = HandConfig(
        Variant(HOLDEM, Structure.SPREAD_LIMIT), (1000,) * 4, blinds=(1, 2), min_bet=2, spread_max=10
    )
    final, actions = play_random_hand(config, random.Random(1))
    text = export_phh(config, actions, final.finishing_stacks)
    assert replay(parse_phh(text)).state.finishing_stacks == final.finishing_stacks


# -- reading actions --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("p1 f", Fold(0)),
        ("p2 cc", CheckCall(1)),
        ("p3 cbr 300", BetRaise(2, 300)),
        ("p3 cbr 300.0", BetRaise(2, 300)),
        ("p4 sm", Show(3, None)),
        ("p4 sm 6d5h", Show(3, (17, 14))),
        ("d dh p1 AcKd", DealHole(0, (48, 45))),
        ("d dh p2 ????", DealHole(1, (-1, -1))),
        ("d db JcTs2d", DealBoard((36, 35, 1))),
        ("d db Qs", DealBoard((43,))),
        ("p1 f  # a comment", Fold(0)),
        ("  p9 cc  ", CheckCall(8)),
        ("p2 pb", BringIn(1)),
        ("p1 sd QdJc", Discard(0, (41, 36))),
        ("p2 sd", Discard(1, ())),
        ("p3 sd ????", Discard(2, (-1, -1))),
    ],
)
def test_parse_action(text: str, action: object) -> None:
    assert parse_action(text) == action


@pytest.mark.parametrize(
    "action",
    [
        Fold(0),
        CheckCall(5),
        BetRaise(2, 12345),
        Show(1, None),
        Show(1, (17, 14)),
        DealHole(0, (48, 45)),
        DealHole(3, (-1, -1)),
        DealBoard((36, 35, 1)),
    ],
)
def test_action_text_round_trips(action: object) -> None:
    assert parse_action(action_text(action)) == action  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "p1",
        "p1 x",
        "p1 f f",
        "p1 cbr",
        "p1 cbr 1 2",
        "p1 cbr 10.5",
        "q1 f",
        "1 f",
        "d",
        "d db",
        "d dh",
        "d dh px As",
        "d xx p1 As",
        "p1 sm As Kd",
        "p1 sd As Kd",
        "p1 pb 100",
    ],
)
def test_parse_action_refuses_what_it_cannot_read(text: str) -> None:
    with pytest.raises(PhhError):
        parse_action(text)


@pytest.mark.parametrize("text", ["p1 sm AsAs", "d db AsXx", "d dh p1 Zz"])
def test_parse_action_refuses_bad_cards(text: str) -> None:
    with pytest.raises((PhhError, CardError)):
        parse_action(text)


def test_parse_action_refuses_a_non_number_amount() -> None:
    with pytest.raises(ValueError):
        parse_action("p1 cbr abc")


def test_parse_action_refuses_player_zero() -> None:
    with pytest.raises(PhhError):
        parse_action("p0 f")


def test_check_reports_a_record_with_an_infinite_amount(tmp_path: Path) -> None:
    record = tmp_path / "bad.phh"
    record.write_text(
        'variant = "NT"\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\n'
        "starting_stacks = [100, 100]\n"
        'actions = ["d dh p1 AsKs", "d dh p2 QsQh", "p2 cbr inf"]\n'
        "finishing_stacks = [100, 100]\n",
        encoding="utf-8",
    )
    report = check([str(record)])
    assert report.files == 1 and len(report.mismatched) == 1


def test_parse_phh_names_a_missing_field_and_bad_toml() -> None:
    with pytest.raises(PhhError, match="starting_stacks"):
        parse_phh('variant = "NT"\nactions = []\n')
    with pytest.raises(PhhError, match="TOML"):
        parse_phh("variant = \n")


def test_check_reports_a_file_that_does_not_exist() -> None:
    report = check([str(PHH / "no-such-file.phh")])
    assert report.unreadable == [{"file": str(PHH / "no-such-file.phh"), "reason": "no such file or folder"}]


# -- odd files: each reported with the reason, the rest checked ------------------------------------


def add_member(archive: tarfile.TarFile, name: str, size: int, data: io.BufferedIOBase) -> None:
    info = tarfile.TarInfo(name)
    info.size = size
    archive.addfile(info, data)


def a_matching_hand() -> bytes:
    """One WSOP record that replays to its finishing stacks."""
    for record in sorted(WSOP.glob("*.phh")):
        if check([str(record)]).matched == 1:
            return record.read_bytes()
    raise AssertionError("no WSOP record matches")


def test_check_reports_each_odd_file_and_goes_on(tmp_path: Path) -> None:
    good = a_matching_hand()
    folder = tmp_path / "hands"
    (folder / "sub").mkdir(parents=True)
    (folder / "a-good.phh").write_bytes(good)
    (folder / "latin1.phh").write_bytes(b"# caf\xe9\n" + good)
    (folder / "not-gzip.tar.gz").write_bytes(b"this is a plain text file named like an archive\n" * 10)
    with tarfile.open(folder / "sub" / "big.tar.gz", "w:gz") as archive:
        # A generated member just over the cap, incompressible (zeros would inflate tenfold in
        # tarfile's own buffer while it skips them): never read.
        noise = random.Random(2).randbytes(MAX_HAND_BYTES + 1)
        add_member(archive, "huge.phh", len(noise), io.BytesIO(noise))
        del noise
        add_member(archive, "after.phh", len(good), io.BytesIO(good))
    with tarfile.open(tmp_path / "whole.tgz", "w:gz") as archive:
        add_member(archive, "first.phh", len(good), io.BytesIO(good))
        add_member(archive, "noise.phh", 200_000, io.BytesIO(random.Random(1).randbytes(200_000)))
    whole = (tmp_path / "whole.tgz").read_bytes()
    (folder / "sub" / "truncated.tgz").write_bytes(whole[:-50_000])  # cut inside noise.phh
    tracemalloc.start()
    try:
        report = check([str(folder), str(tmp_path / "missing.phh")])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # a-good.phh, big.tar.gz:after.phh and truncated.tgz:first.phh, read before the damage
    assert report.files == 3 and report.matched == 3, report.as_json()
    reasons = {bad["file"]: bad["reason"] for bad in report.as_json()["unreadable"]}
    assert set(reasons) == {
        str(folder / "latin1.phh"),
        str(folder / "not-gzip.tar.gz"),
        f"{folder / 'sub' / 'big.tar.gz'}:huge.phh",
        str(folder / "sub" / "truncated.tgz"),
        str(tmp_path / "missing.phh"),
    }
    assert reasons[str(folder / "latin1.phh")] == "not UTF-8 text (byte 5): save it as UTF-8"
    assert reasons[str(folder / "not-gzip.tar.gz")].startswith("not a .tar.gz archive (")
    assert reasons[f"{folder / 'sub' / 'big.tar.gz'}:huge.phh"].startswith(
        f"{MAX_HAND_BYTES + 1:,} bytes, more than the 4 MiB a hand history may have: not read"
    )
    assert reasons[str(folder / "sub" / "truncated.tgz")].startswith("damaged after 2 members (")
    assert peak < MAX_HAND_BYTES // 2, f"{peak:,} bytes at the peak: the large member was read"


def test_phh_check_cli_lists_the_unreadable_files_and_exits_1(tmp_path: Path) -> None:
    (tmp_path / "good.phh").write_bytes(a_matching_hand())
    (tmp_path / "binary.phh").write_bytes(bytes(range(256)))
    result = subprocess.run(
        [sys.executable, "-m", "tablectl.cli", "phh", "check", str(tmp_path), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["matched"] == 1
    assert report["unreadable"] == [
        {"file": str(tmp_path / "binary.phh"), "reason": "not UTF-8 text (byte 128): save it as UTF-8"}
    ]
