"""STUD-12 in the engine: a premature last down card that its player took in is kept (002
premature dealing). For the rest of sixth street's betting he may not bet or raise a player with
only six cards; seventh street deals him nothing. Positions: 0 is the dealer's left."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from tablectl.core.cards import parse_cards
from tablectl.core.game import (
    HOLDEM,
    RAZZ,
    SEVEN_CARD_STUD,
    BetRaise,
    CheckCall,
    DealHole,
    Fold,
    HandConfig,
    HandState,
    Phase,
    RuleViolation,
    Structure,
    Variant,
    apply,
    house_rules,
    legal,
    show_down_all,
    start_hand,
)
from tablectl.core.game.engine import dealt_ahead
from tablectl.core.game.variants import Game
from tests.core.game.test_stud_draw import check_round, street, stud


def _sixth_street(
    starts: Sequence[str], later: Sequence[Sequence[str]], game: Game = SEVEN_CARD_STUD, **kw: object
) -> HandState:
    """Checked down to sixth street's betting: ``later`` holds fourth to sixth street's cards."""
    state = check_round(stud(game, starts, **kw))  # type: ignore[arg-type]
    for cards in later[:-1]:
        state = check_round(street(state, cards))
    state = street(state, later[-1])
    assert state.phase is Phase.BETTING and state.street == 3, (state.phase, state.street)
    return state


THREE = ["2s3dAc", "2h3h5c", "4c4d9d"]
THREE_LATER = [["Kd", "5d", "8s"], ["7c", "8c", "Ts"], ["9c", "Td", "Js"]]  # 5-5 showing opens


def _keep(state: HandState, position: int, card: str) -> HandState:
    return apply(state, DealHole(position, parse_cards(card)))


def test_a_kept_premature_seventh_card_joins_the_hand_during_sixth_streets_betting() -> None:
    state = _sixth_street(THREE, THREE_LATER)
    kept = _keep(state, 0, "As")
    assert kept.hole[0][-1] == parse_cards("As")[0] and len(kept.hole[0]) == 7
    assert kept.up[0] == state.up[0]  # a down card: nothing new shows
    assert kept.phase is Phase.BETTING and kept.actor == state.actor == 1
    assert not dealt_ahead(state, 0) and len(state.hole[0]) == 6  # the state given is unchanged
    with pytest.raises(RuleViolation) as err:
        apply(kept, DealHole(1, parse_cards("As")))  # IRR-2 still applies to a kept card
    assert err.value.rule == "IRR-2"


def test_the_player_with_seven_cards_may_not_bet_or_raise_a_player_with_six() -> None:
    state = _keep(_sixth_street(THREE, THREE_LATER), 0, "As")
    state = apply(state, CheckCall(1))  # position 1 opens (5-5 showing) and checks
    options = legal(state)
    assert options is not None and options.player == 2 and options.can_raise  # six cards: may bet
    state = apply(state, CheckCall(2))
    options = legal(state)
    assert options is not None and options.player == 0
    assert not options.can_raise and options.can_check and options.can_fold
    assert options.why_no_raise.startswith("STUD-12:") and "only 6" in options.why_no_raise
    with pytest.raises(RuleViolation) as err:
        apply(state, BetRaise(0, 4))
    assert err.value.rule == "STUD-12"
    # A bet from a player with six cards: the seven-card player calls or folds, never raises.
    state = _keep(_sixth_street(THREE, THREE_LATER), 0, "As")
    state = apply(state, BetRaise(1, 4))
    state = apply(state, CheckCall(2))
    options = legal(state)
    assert options is not None and options.player == 0 and options.call_amount == 4
    assert not options.can_raise and options.why_no_raise.startswith("STUD-12")
    assert apply(state, CheckCall(0)).phase is Phase.DEALING_HOLE
    assert apply(state, Fold(0)).phase is Phase.DEALING_HOLE


def test_no_limit_when_every_opponent_who_could_call_holds_seven_cards_too() -> None:
    # Heads-up, both took in their seventh card early: each may bet the other.
    state = _sixth_street(THREE[:2], [cards[:2] for cards in THREE_LATER])
    state = _keep(_keep(state, 0, "As"), 1, "Ah")
    options = legal(state)
    assert options is not None and options.can_raise and options.why_no_raise == ""
    state = apply(apply(state, BetRaise(1, 4)), CheckCall(0))
    # Seventh street has no card for either: its betting opens at once, with the same opener.
    assert state.phase is Phase.BETTING and state.street == 4 and state.actor == 1
    assert not dealt_ahead(state, 0) and not dealt_ahead(state, 1)
    # Three players, the one with six cards all-in since third street: a bet by a seven-card
    # player is made against the other seven-card player only.
    state = _sixth_street(THREE, THREE_LATER, stacks=(1000, 1000, 2))
    assert state.stacks[2] == 0
    state = _keep(_keep(state, 0, "As"), 1, "Ah")
    state = apply(state, BetRaise(1, 4))
    options = legal(state)
    assert options is not None and options.player == 0 and options.can_raise
    # While he still has chips, the six-card player is bet by any wager: no bet for seven cards.
    state = _keep(_sixth_street(THREE, THREE_LATER, stacks=(1000, 1000, 6)), 1, "Ah")
    options = legal(state)
    assert options is not None and options.player == 1 and not options.can_raise


def test_seventh_street_deals_nothing_to_the_player_who_kept_his_card() -> None:
    state = _keep(_sixth_street(THREE, THREE_LATER), 0, "As")
    state = check_round(state)
    assert state.phase is Phase.DEALING_HOLE and state.street == 4 and not dealt_ahead(state, 0)
    assert [state.cards_due(p) for p in range(3)] == [0, 1, 1]
    with pytest.raises(RuleViolation) as err:
        apply(state, DealHole(0, parse_cards("Ks")))
    assert err.value.rule == "MD-e"
    state = apply(apply(state, DealHole(1, parse_cards("Kh"))), DealHole(2, parse_cards("Kc")))
    assert state.phase is Phase.BETTING and state.street == 4 and state.actor == 1
    state = apply(state, CheckCall(1))
    state = apply(state, CheckCall(2))
    options = legal(state)
    assert options is not None and options.player == 0 and options.can_raise  # the limit is over
    done = show_down_all(check_round(state))
    assert done.is_complete and sum(done.finishing_stacks) == 3000
    # Position 0's seven cards play: A-A (the kept ace of spades and the ace of clubs) wins.
    assert done.finishing_stacks[0] > 1000


def test_only_the_last_down_card_is_kept_and_only_once() -> None:
    state = check_round(stud(SEVEN_CARD_STUD, THREE))
    state = street(state, THREE_LATER[0])
    with pytest.raises(RuleViolation) as err:
        _keep(state, 0, "As")  # a premature fifth street card is never kept
    assert err.value.rule == "DEAL-1" and "STUD-12" in str(err.value)
    sixth = _sixth_street(THREE, THREE_LATER)
    with pytest.raises(RuleViolation) as err:
        _keep(_keep(sixth, 0, "As"), 0, "Ah")
    assert err.value.rule == "STUD-12"
    with pytest.raises(RuleViolation) as err:
        apply(sixth, DealHole(0, parse_cards("AsAh")))
    assert err.value.rule == "STUD-12"
    folded = apply(sixth, Fold(1))
    with pytest.raises(RuleViolation) as err:
        _keep(folded, 1, "As")
    assert err.value.rule == "MD-i"
    # Razz deals its last card down too: the same rule.
    razz = _sixth_street(["Ks3dAc", "KhQh5c"], [["Ad", "6d"], ["2c", "3c"], ["4s", "7h"]], RAZZ)
    assert len(_keep(razz, 1, "8d").hole[1]) == 7
    # Hold'em deals no card during the betting at all.
    config = HandConfig(Variant(HOLDEM, Structure.NO_LIMIT), (1000, 1000), blinds=(1, 2), rules=house_rules())
    holdem = start_hand(config)
    for p, cards in enumerate(("AsKd", "QhQc")):
        holdem = apply(holdem, DealHole(p, parse_cards(cards)))
    with pytest.raises(RuleViolation) as err:
        apply(holdem, DealHole(0, parse_cards("2c")))
    assert err.value.rule == "DEAL-1"


def test_a_kept_card_replayed_as_dealt_face_up_shows_with_the_up_cards() -> None:
    # HO-4's correction replays the log with the card marked up: it is then public like any up card.
    state = _sixth_street(THREE, THREE_LATER)
    kept = apply(state, DealHole(0, parse_cards("As"), (True,)))
    assert kept.up[0] == state.up[0] + tuple(parse_cards("As"))
    assert dealt_ahead(kept, 0) and not dealt_ahead(kept, 1)
