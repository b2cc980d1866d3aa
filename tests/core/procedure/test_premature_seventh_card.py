"""STUD-12 at the table: a premature seventh card kept by its player is his down card from then
on, named to nobody but him (the rulings that tell the dealer about it included), and the betting
limit it brings is the engine's, in the dealer's prompt and in what a bet keyed for him becomes."""

from __future__ import annotations

import json

from tablectl.core.cards import CARD_TOKEN, parse_card
from tablectl.core.effects import Applied, Ruling
from tablectl.core.game.actions import CheckCall, DealHole
from tablectl.core.game.engine import dealt_ahead
from tablectl.core.table import new_table, step
from tablectl.sim.scenario import parse
from tablectl.views import RecentRuling
from tablectl.views.audiences import dealer, floor, private, public
from tests.helpers.paths import SCENARIOS

KEPT = SCENARIOS / "stud-12-premature-seventh-card-kept.scn"


def test_the_kept_card_is_the_players_down_card_and_no_other_view_names_it() -> None:
    scenario = parse(KEPT.read_text(encoding="utf-8"), str(KEPT))
    state = new_table(scenario.config, scenario.players, scenario.button)
    ace = parse_card("As")
    recent: list[RecentRuling] = []
    kept_at = None
    for index, item in enumerate(scenario.steps):
        state, effects = step(state, item.event)
        recent += [RecentRuling(index, 0.0, state.hand_number, e) for e in effects if isinstance(e, Ruling)]
        applied = [e.action for e in effects if isinstance(e, Applied)]
        if DealHole(0, (ace,)) in applied:
            kept_at = index
        shown = public(state)
        to_dealer = dealer(state, recent, base=shown)
        for view in (shown, to_dealer, floor(state, recent, base=to_dealer)):
            assert "As" not in CARD_TOKEN.findall(json.dumps(view)), view["view"]
        if kept_at is not None and state.hand is not None:
            assert private(state)["hole"]["1"][-1] == "As"
    assert kept_at is not None
    assert state.hand is not None and state.hand.game.hole[0][-1] == ace


def test_a_bet_keyed_for_the_player_holding_seven_cards_is_his_check() -> None:
    scenario = parse(KEPT.read_text(encoding="utf-8"), str(KEPT))
    state = new_table(scenario.config, scenario.players, scenario.button)
    for item in scenario.steps:
        before = state
        state, effects = step(state, item.event)
        game = before.hand.game if before.hand is not None else None
        if game is not None and dealt_ahead(game, 0) and game.actor == 0 and not game.high_bet:
            # "bet 1 200" while nobody has bet: the engine is given a check, and the dealer told.
            assert [e.action for e in effects if isinstance(e, Applied)] == [CheckCall(0)]
            said = [e for e in effects if isinstance(e, Ruling) and e.rule == "STUD-12"]
            assert said and "it is a check" in said[0].text
            return
    raise AssertionError("the scenario never keyed a bet for the player holding seven cards")
