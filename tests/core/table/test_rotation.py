"""HO-13: mixed games at one table, rotating by orbit or by level, with the button frozen during
stud and resumed where it stopped (docs/rules.md, HO-13).

Stud entries are checked twice: in the pure schedule (``advance`` and ``record_deal``, which
know nothing of dealing) and in the pure table state, the hands played through ``step`` with the
bring-in posted and everyone folding to it.
"""

from __future__ import annotations

import pytest

from tablectl.core.effects import Effect, Ruling, Severity
from tablectl.core.events import CardDrawn, DealerInput, DealerKey, FloorCommand, FloorKind
from tablectl.core.game.engine import Phase
from tablectl.core.table import TableConfig, TableConfigError, TableState, new_table, step
from tablectl.core.table.rotation import (
    EIGHT_GAME,
    HORSE,
    Change,
    GameStakes,
    Rotation,
    RotationError,
    RotationProgress,
    advance,
    limit_stakes,
    record_deal,
    upcoming,
)
from tablectl.journal.snapshot import table_restore, table_snapshot

PLO = GameStakes("PO", blinds=(50, 100))
NLH = GameStakes("NT", blinds=(100, 200), big_blind_ante=200)
LHE = GameStakes("FT", blinds=(100, 200), small_bet=200, big_bet=400)


def refusals(effects: tuple[Effect, ...]) -> list[Ruling]:
    return [e for e in effects if isinstance(e, Ruling) and e.severity is Severity.REFUSED]


def rulings(effects: tuple[Effect, ...], rule: str) -> list[Ruling]:
    return [e for e in effects if isinstance(e, Ruling) and e.rule == rule]


def floor(state: TableState, kind: FloorKind, **kw: object) -> tuple[TableState, tuple[Effect, ...]]:
    return step(state, FloorCommand(kind, "Flo", **kw))  # type: ignore[arg-type]


def deal(state: TableState) -> tuple[TableState, tuple[Effect, ...]]:
    state, effects = step(state, DealerInput(DealerKey.NEW_HAND))
    assert state.hand is not None, effects
    return state, effects


def finish(state: TableState) -> TableState:
    """Deal the cards of the hand in progress and fold it round to one player (in stud, the
    bring-in is posted first)."""
    cards = iter(range(52))
    while state.hand is not None:
        if state.hand.game.phase is not Phase.BETTING:
            state, effects = step(state, CardDrawn(next(cards)))
            assert not refusals(effects), effects
            continue
        actor = state.hand.game.actor
        assert actor is not None
        seat = state.hand.seat(actor)
        after, effects = step(state, DealerInput(DealerKey.FOLD, seat=seat))
        if refusals(effects) and state.hand.game.config.bring_in:  # STUD-5: the bring-in first
            amount = state.hand.game.config.bring_in
            after, effects = step(state, DealerInput(DealerKey.BET, seat=seat, amount=amount))
        assert not refusals(effects), effects
        state = after
    return state


def play(state: TableState) -> tuple[TableState, tuple[Effect, ...]]:
    state, effects = deal(state)
    return finish(state), effects


def table(rotation: Rotation, players: int = 4, button: int | None = 1, seats: int = 6) -> TableState:
    config = TableConfig(seats=seats, rotation=rotation)
    return new_table(config, {n: (f"P{n}", 20_000) for n in range(1, players + 1)}, button=button)


def record(state: TableState, hands: int) -> tuple[TableState, list[tuple[str, int | None]]]:
    """Play ``hands`` hands; each one's game and button."""
    dealt = []
    for _ in range(hands):
        state, _effects = play(state)
        assert state.last_hand is not None
        dealt.append((state.last_hand.game.config.variant.code, state.button))
    return state, dealt


# -- the rotation as data ------------------------------------------------------------------------


def test_the_rotations_card_rooms_spread_are_declared_as_data() -> None:
    horse = Rotation(tuple(limit_stakes(g, 200, ante=25, bring_in=50) for g in HORSE), name="H.O.R.S.E.")
    assert [g.label for g in horse.games] == ["limit hold'em", "limit Omaha/8", "razz", "stud", "stud/8"]
    assert horse.games[0].stakes == "200/400" and horse.games[0].blinds == (100, 200)
    assert horse.games[2].stakes == "200/400 ante 25 bring-in 50" and horse.games[2].blinds == ()
    eight = [
        limit_stakes(g, 400, 50, 100) if g[0] == "F" else GameStakes(g, blinds=(100, 200)) for g in EIGHT_GAME
    ]
    mix = Rotation(tuple(eight), name="8-game")
    assert [g.has_button for g in mix.games] == [True, True, True, False, False, False, True, True]
    assert Rotation.from_json(mix.to_json()) == mix
    assert Rotation(tuple(eight)).title.startswith("limit 2-7 triple draw / limit hold'em / ")


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({"games": [{"game": "NT", "blinds": [50, 100]}, {"game": "XQ"}]}, "games[2].game: variant 'XQ'"),
        (
            {"games": [{"game": "NT", "blinds": [50, 100]}, {"game": "FT", "blinds": [50, 100]}]},
            "games[2].small_bet",
        ),
        (
            {"games": [{"game": "PO"}, {"game": "NT", "blinds": [50, 100]}]},
            "games[1].blinds: PO posts blinds",
        ),
        ({"games": [{"game": "FR", "small_bet": 100, "big_bet": 200}, LHE.to_json()]}, "games[1].bring_in"),
        ({"games": [{"game": "NT", "blinds": [50, 100], "bring_in": 5}, LHE.to_json()]}, "games[1].bring_in"),
        ({"games": [LHE.to_json()]}, "games: a rotation has 2 to 16 games"),
        ({"change": "hourly", "games": [LHE.to_json(), PLO.to_json()]}, 'change: "orbit" or "level"'),
        ({"orbits": 0, "games": [LHE.to_json(), PLO.to_json()]}, "orbits: rounds of the table per game"),
        ({"games": [LHE.to_json(), {"game": "PO", "blind": [1, 2]}]}, "games[2].blind: unknown key"),
    ],
)
def test_a_rotation_that_cannot_work_names_the_key(data: dict[str, object], says: str) -> None:
    with pytest.raises(RotationError) as caught:
        Rotation.from_json(data)
    assert str(caught.value).startswith(says), caught.value


def test_a_rotation_round_trips_and_a_malformed_one_is_refused() -> None:
    horse = TableConfig(rotation=Rotation(tuple(limit_stakes(g, 200, ante=25, bring_in=50) for g in HORSE)))
    assert TableConfig.from_json(horse.to_json()) == horse  # razz and stud included
    config = TableConfig(rotation=Rotation((PLO, NLH), Change.LEVEL, name="PLO / NLH"))
    assert TableConfig.from_json(config.to_json()) == config
    with pytest.raises(TableConfigError, match=r"rotation: games\[1\]\.blinds"):
        TableConfig.from_json({"rotation": {"games": [{"game": "NT"}, PLO.to_json()]}})


# -- the pure schedule, stud included --------------------------------------------------------------


def schedule(rotation: Rotation, seats: list[int], hands: int, button: int) -> list[tuple[str, int]]:
    """Deals by the schedule alone, with this test's own button: one seat on per button hand,
    left alone during stud."""
    progress, out = RotationProgress(), []
    for _ in range(hands):
        following = seats[(seats.index(button) + 1) % len(seats)]
        game = rotation.games[progress.game_index]
        progress, _changed = advance(rotation, progress, following if game.has_button else None, len(seats))
        game = rotation.games[progress.game_index]
        if game.has_button and out:
            button = following
        progress = record_deal(rotation, progress, button if game.has_button else None)
        out.append((game.game, button))
    return out


def test_the_schedule_freezes_the_button_through_the_stud_games_of_horse() -> None:
    horse = Rotation(tuple(limit_stakes(g, 200, ante=25, bring_in=50) for g in HORSE))
    dealt = schedule(horse, [1, 2, 3], 18, button=1)
    assert [g for g, _ in dealt] == ["FT"] * 3 + ["FO/8"] * 3 + ["FR"] * 3 + ["F7S"] * 3 + ["F7S/8"] * 3 + [
        "FT"
    ] * 3
    # The button goes round in each flop game, stays at seat 3 for nine stud hands, then moves on.
    assert [b for _, b in dealt] == [1, 2, 3, 1, 2, 3] + [3] * 9 + [1, 2, 3]


def test_the_eight_game_mix_changes_after_each_orbit_and_stud_orbits_are_the_players() -> None:
    games = [
        limit_stakes(g, 400, 50, 100) if g[0] == "F" else GameStakes(g, blinds=(100, 200)) for g in EIGHT_GAME
    ]
    dealt = schedule(Rotation(tuple(games), orbits=2), [2, 5, 7, 9], 64, button=9)
    assert [g for g, _ in dealt[::8]] == list(EIGHT_GAME)
    assert [b for g, b in dealt if g == "F7S"] == [7] * 8  # frozen after 2-7, hold'em, Omaha/8
    assert [b for g, b in dealt if g == "NT"][:2] == [9, 2]  # resumed one seat after seat 7


def test_upcoming_says_the_next_game_and_the_hands_left() -> None:
    rotation = Rotation((PLO, NLH), orbits=2)
    progress = RotationProgress()
    assert upcoming(rotation, progress, 4) == (PLO, NLH, 8, False)
    progress = record_deal(rotation, progress, 3)
    assert upcoming(rotation, progress, 4).hands_left == 7
    level = Rotation((PLO, NLH), Change.LEVEL)
    assert upcoming(level, RotationProgress(), 4).hands_left is None
    assert upcoming(level, RotationProgress(level_up=True), 4).hands_left == 0


# -- at the table: hold'em and Omaha ----------------------------------------------------------------


def test_by_orbit_each_game_has_one_round_of_the_button() -> None:
    state = table(Rotation((PLO, NLH), name="PLO / NLH"))
    state, effects = deal(state)
    assert not rulings(effects, "HO-13")  # the first game is no change
    state = finish(state)
    state, dealt = record(state, 11)
    games = ["PO"] + [g for g, _ in dealt]
    assert games == ["PO"] * 4 + ["NT"] * 4 + ["PO"] * 4
    assert [b for _, b in dealt] == [2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4]  # the button never stops
    assert state.blinds == (50, 100) and state.big_blind_ante == 0


def test_the_game_change_is_ruled_with_the_new_stakes_and_dealt_at_them() -> None:
    state, _ = record(table(Rotation((PLO, NLH))), 4)
    state, effects = deal(state)
    (change,) = rulings(effects, "HO-13")
    assert change.said == "The game changes from this deal: NL hold'em, 100/200 ante 200. Button at seat 1."
    game = state.hand.game.config  # type: ignore[union-attr]
    assert (game.variant.code, game.blinds, game.antes) == ("NT", (100, 200), (0, 200, 0, 0))


def test_orbits_per_game() -> None:
    _, dealt = record(table(Rotation((PLO, LHE), orbits=2), players=3), 13)
    assert [g for g, _ in dealt] == ["PO"] * 6 + ["FT"] * 6 + ["PO"]


def test_a_player_leaving_mid_orbit_shortens_it() -> None:
    state, dealt = record(table(Rotation((PLO, NLH)), players=5), 2)  # buttons 1, 2
    state, _ = floor(state, FloorKind.REMOVE_PLAYER, seat=4)  # before the button reaches seat 4
    state, more = record(state, 4)
    assert dealt + more == [("PO", 1), ("PO", 2), ("PO", 3), ("PO", 5), ("NT", 1), ("NT", 2)]


def test_the_seat_the_orbit_started_at_leaving_ends_it_where_the_button_comes_round() -> None:
    state, dealt = record(table(Rotation((PLO, NLH)), players=4), 1)  # button 1
    state, _ = floor(state, FloorKind.REMOVE_PLAYER, seat=1)
    state, more = record(state, 4)
    assert dealt + more == [("PO", 1), ("PO", 2), ("PO", 3), ("PO", 4), ("NT", 2)]


def test_a_newcomer_behind_the_button_does_not_lengthen_the_orbit() -> None:
    state, dealt = record(table(Rotation((PLO, NLH)), players=4, seats=6), 2)  # buttons 1, 2
    state, _ = floor(state, FloorKind.SEAT_PLAYER, seat=6, name="New", amount=20_000)
    state, more = record(state, 4)  # seat 6 has the button this round, seat 5 stays empty
    assert dealt + more == [("PO", 1), ("PO", 2), ("PO", 3), ("PO", 4), ("PO", 6), ("NT", 1)]
    # A newcomer the button has still to reach gets the button in this round.
    state, _ = floor(state, FloorKind.SEAT_PLAYER, seat=5, name="Late", amount=20_000)
    state, more = record(state, 6)
    assert more == [("NT", 2), ("NT", 3), ("NT", 4), ("NT", 5), ("NT", 6), ("PO", 1)]


def test_a_void_hand_is_redealt_in_the_same_game_and_not_counted() -> None:
    state, _ = record(table(Rotation((PLO, NLH))), 3)
    state, _ = deal(state)  # the fourth PLO hand, button 4
    state, effects = floor(state, FloorKind.VOID_HAND)
    assert state.hand is None and not refusals(effects)
    state, dealt = record(state, 2)
    assert dealt == [("PO", 4), ("NT", 1)]


def test_by_level_the_game_changes_on_the_deal_after_the_new_level() -> None:
    state, dealt = record(table(Rotation((PLO, NLH), Change.LEVEL)), 6)
    assert {g for g, _ in dealt} == {"PO"}
    state, effects = floor(state, FloorKind.SET_BLINDS, blinds=(300, 600))
    (ruling,) = rulings(effects, "TBL-2")
    assert "changes to NL hold'em, 100/200 ante 200" in str(ruling.said)
    assert state.next_level is None  # the rotation's stakes, not the blinds typed
    _, again = floor(state, FloorKind.SET_BLINDS, blinds=(300, 600))
    assert refusals(again) and refusals(again)[0].rule == "HO-13"
    state, more = record(state, 6)
    assert [g for g, _ in more] == ["NT"] * 6
    assert [b for _, b in dealt + more] == [1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4]


def test_by_orbit_a_new_level_is_refused() -> None:
    state = table(Rotation((PLO, NLH)))
    after, effects = floor(state, FloorKind.SET_BLINDS, blinds=(300, 600))
    assert after is state and refusals(effects)[0].rule == "HO-13"


def test_the_rotation_survives_a_snapshot() -> None:
    state, _ = record(table(Rotation((PLO, NLH), orbits=2)), 5)
    text = table_snapshot(state)
    assert text is not None
    restored = table_restore(text)
    assert restored == state
    assert record(restored, 4)[1] == record(state, 4)[1]


# -- stud in the pure table state --------------------------------------------------------------------


def horse(orbits: int = 1) -> Rotation:
    return Rotation(tuple(limit_stakes(g, 200, ante=25, bring_in=50) for g in HORSE), orbits=orbits)


def test_a_stud_entry_freezes_the_button_and_it_resumes_one_seat_on() -> None:
    state = table(horse())
    state, dealt = record(state, 8)  # hold'em and Omaha/8, buttons 1 to 4 twice
    assert state.button == 4
    orbit_before = state.orbit
    state, effects = deal(state)
    (change,) = rulings(effects, "HO-13")
    assert change.said == "The game changes from this deal: razz, 200/400 ante 25 bring-in 50. " + (
        "The button is frozen at seat 4 during stud."
    )
    config = state.hand.game.config  # type: ignore[union-attr]
    assert (config.blinds, config.antes, config.bring_in) == ((), (25,) * 4, 50)
    assert state.hand.seats_in == (1, 2, 3, 4)  # type: ignore[union-attr]
    state = finish(state)
    state, stud = record(state, 11)
    assert [g for g, _ in stud] == ["FR"] * 3 + ["F7S"] * 4 + ["F7S/8"] * 4
    assert {b for _, b in stud} == {4}
    assert state.orbit == orbit_before  # TBL-1's round of the button waits for the button games
    state, back = record(state, 4)
    assert back == [("FT", 1), ("FT", 2), ("FT", 3), ("FT", 4)]


def test_a_player_leaving_during_stud_the_button_resumes_at_the_next_player() -> None:
    state, _ = record(table(horse(), players=5), 10)  # buttons 1..5 in hold'em, again in Omaha/8
    assert state.button == 5
    state, _ = record(state, 3)  # razz
    state, _ = floor(state, FloorKind.REMOVE_PLAYER, seat=1)  # the seat after the frozen button
    state, stud = record(state, 12)
    assert [g for g, _ in stud] == ["FR"] * 1 + ["F7S"] * 4 + ["F7S/8"] * 4 + ["FT"] * 3
    assert [b for _, b in stud] == [5] * 9 + [2, 3, 4]  # a stud orbit is the four players now


def test_during_stud_the_floor_places_the_button_for_the_next_button_game() -> None:
    state, _ = record(table(horse()), 9)  # hold'em, Omaha/8, one razz hand; the button at 4
    after, effects = floor(state, FloorKind.BUTTON_MISPLACED, seat=2)
    assert after is state and refusals(effects)[0].rule == "HO-13"  # stud had no button
    state, _ = floor(state, FloorKind.MOVE_BUTTON, seat=2)
    state, stud = record(state, 11)
    assert {b for _, b in stud} == {2}  # the floor's seat, kept through stud
    state, back = record(state, 2)
    assert back == [("FT", 2), ("FT", 3)]  # placed: the first button hand starts there
