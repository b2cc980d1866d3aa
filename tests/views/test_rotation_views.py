"""HO-13 on every view: the game in play, the next one and when it changes, on the public, dealer
and floor views and the floor grid's tile, as the schemas say; no button shown during stud."""

from __future__ import annotations

import random

from tablectl.adapters.mqtt.topics import envelope
from tablectl.core.table import TableConfig, new_table, step
from tablectl.core.table.rotation import HORSE, Change, GameStakes, Rotation, limit_stakes
from tablectl.sim.dealer import SimDealer
from tablectl.views import dealer, floor, public, secrecy, summary
from tablectl.views.hands import HandBook, record_hands
from tests.core.table.test_rotation import deal, finish
from tests.helpers.brokers import schemas

PLO = GameStakes("PO", blinds=(50, 100))
NLH = GameStakes("NT", blinds=(100, 200), big_blind_ante=200)


def snapshot(view: dict[str, object], name: str) -> dict[str, object]:
    return {**envelope("snapshot", "main", "7", "e1", 1, 1.0), "view": name, "state": view}


def views(state, at: float = 0.0):  # type: ignore[no-untyped-def]
    out = {"public": public(state)}
    out["dealer"] = dealer(state, base=out["public"])
    out["floor"] = floor(state, base=out["dealer"], now=at)
    out["summary"] = summary(state, secrecy.speaker(state), at)
    return out


def test_every_view_shows_the_game_in_play_the_next_and_when_it_changes() -> None:
    validate = schemas()
    config = TableConfig(seats=6, rotation=Rotation((PLO, NLH), name="PLO / NLH"))
    state = new_table(config, {n: (f"P{n}", 50_000) for n in range(1, 5)}, button=1)
    sim = SimDealer(random.Random(3))
    seen: list[tuple[str, int | None]] = []
    for _ in range(6000):
        state, _ = step(state, sim.next_event(state))
        shown = views(state)
        for name, view in shown.items():
            validate(f"snapshot-{name}", snapshot(view, name))
        rotation = shown["public"]["rotation"]
        assert rotation["name"] == "PLO / NLH" and rotation["change"] == "orbit"
        assert rotation["frozen_button"] is None and shown["public"]["button"] == state.button
        code = rotation["game"]["code"]
        assert shown["public"]["game"] == shown["summary"]["game"] == code
        assert rotation["next"]["code"] == {"PO": "NT", "NT": "PO"}[code]
        assert shown["summary"]["rotation"] == {
            "name": "PLO / NLH",
            "next": rotation["next"]["code"],
            "hands_left": rotation["hands_left"],
        }
        assert shown["summary"]["stakes"] == rotation["game"]["stakes"]
        if state.hand is not None:
            assert code == state.hand.game.config.variant.code
            if not seen or seen[-1] != (code, state.hand_number):
                seen.append((code, state.hand_number))
        if len(seen) >= 9:
            break
    games = [code for code, _ in seen]
    assert games[:9] == ["PO"] * 4 + ["NT"] * 4 + ["PO"]


def test_hands_left_counts_down_to_the_change() -> None:
    config = TableConfig(seats=6, rotation=Rotation((PLO, NLH), orbits=2))
    state = new_table(config, {n: (f"P{n}", 50_000) for n in range(1, 4)}, button=1)
    assert public(state)["rotation"]["hands_left"] == 6
    counted = []
    for _ in range(7):
        state, _ = deal(state)
        state = finish(state)
        rotation = public(state)["rotation"]
        counted.append((rotation["game"]["code"], rotation["hands_left"]))
    assert counted == [("PO", 5), ("PO", 4), ("PO", 3), ("PO", 2), ("PO", 1), ("PO", 0), ("NT", 5)]
    level = TableConfig(seats=6, rotation=Rotation((PLO, NLH), Change.LEVEL))
    state = new_table(level, {n: (f"P{n}", 50_000) for n in range(1, 4)}, button=1)
    assert summary(state, secrecy.speaker(state))["rotation"]["hands_left"] is None


def test_a_table_of_one_game_has_no_rotation() -> None:
    state = new_table(TableConfig(seats=6), {1: ("A", 1000), 2: ("B", 1000)})
    assert public(state)["rotation"] is None
    assert summary(state, secrecy.speaker(state))["rotation"] is None


def test_during_stud_no_button_is_shown_and_the_seat_it_waits_at_is() -> None:
    validate = schemas()
    rotation = Rotation(tuple(limit_stakes(g, 200, ante=25, bring_in=50) for g in HORSE), name="H.O.R.S.E.")
    state = new_table(TableConfig(seats=6, rotation=rotation), {n: (f"P{n}", 50_000) for n in range(1, 4)}, 1)
    for _ in range(6):  # hold'em and Omaha/8, buttons 1 to 3 twice
        state, _ = deal(state)
        state = finish(state)
    assert public(state)["rotation"]["hands_left"] == 0
    state, effects = deal(state)
    book = record_hands(HandBook(), state, effects, 0.0)
    shown = views(state)
    for name, view in shown.items():
        validate(f"snapshot-{name}", snapshot(view, name))
    assert shown["public"]["game"] == "FR" and shown["public"]["button"] is None
    assert shown["public"]["blind_seats"] is None
    assert shown["public"]["rotation"]["frozen_button"] == 3
    assert shown["public"]["rotation"]["game"] == {
        "code": "FR",
        "name": "razz",
        "stakes": "200/400 ante 25 bring-in 50",
    }
    assert shown["public"]["rotation"]["next"]["code"] == "F7S"
    assert shown["summary"]["stakes"] == "200/400 ante 25 bring-in 50"
    assert book.live is not None
    assert book.live.head["game"] == "FR" and book.live.head["button"] is None
