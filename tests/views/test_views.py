"""The views: no hole card reaches any view but private before it is shown at the showdown;
burn cards and folded or mucked hands never do."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from tablectl.core.cards import CARD_TOKEN, card_str, parse_card
from tablectl.core.effects import Ruling
from tablectl.core.events import CardDrawn, DealerInput, DealerKey
from tablectl.core.sentences import Mention, render, sentence
from tablectl.core.table import TableConfig, TableState, step
from tablectl.sim.dealer import SimDealer, seated_table
from tablectl.views import RecentRuling, secrecy
from tablectl.views.audiences import dealer, floor, private, public
from tablectl.views.operations import summary
from tests.helpers.faulty_dealer import Dealer
from tests.helpers.faulty_dealer import seated_table as random_table


def secret_cards(state: TableState) -> set[str]:
    """Cards no non-private view may hold now: unshown hole cards and burns."""
    return {card_str(c) for c in secrecy.secret_cards(state)}


def test_no_view_but_private_leaks_a_hole_card_over_many_hands() -> None:
    rng = random.Random(5)
    for game in ("NT", "PO", "FO/8", "F7S", "F7S/8", "FR", "F2L3D", "N2L1D"):
        stud = game in ("F7S", "F7S/8", "FR")
        config = TableConfig(
            seats=9, game=game, blinds=(50, 100), small_bet=100, big_bet=200, bring_in=25 if stud else 0
        )
        state = seated_table(config, players=6)
        sim = SimDealer(rng)
        hands = checked = 0
        while hands < 150:
            before = state.hand
            state, _ = step(state, sim.next_event(state))
            if before is not None and state.hand is None:
                hands += 1
            secret = secret_cards(state)
            tile = summary(state, secrecy.speaker(state))
            for view in (public(state), dealer(state), floor(state), tile):
                text = json.dumps(view)
                leaked = {c for c in secret if f'"{c}"' in text}
                assert not leaked, (view["view"], leaked)
                checked += 1
            if state.hand is not None:
                hole = private(state)["hole"]
                held = sum(len(secrecy.held(state.hand, p)) for p in range(state.hand.n))
                assert sum(len(c) for c in hole.values()) == held
        assert checked > 1000


def test_public_view_shows_the_board_pot_and_shown_hands() -> None:
    config = TableConfig(seats=6, game="NT", blinds=(50, 100))
    state = seated_table(config, players=3)
    sim = SimDealer(random.Random(2))
    saw_board = saw_shown = False
    for _ in range(2000):
        state, _ = step(state, sim.next_event(state))
        view = public(state)
        if state.hand is not None:
            assert view["pot"] == state.hand.game.pot
            saw_board |= bool(view["board"])
            saw_shown |= any(s.get("shown") for s in view["seats"])
    assert saw_board and saw_shown


_ESCAPED = re.compile(r"\\(?:u[0-9a-fA-F]{4}|.)")


def view_text(view: Any) -> str:
    """Every string of a JSON-ready view, keys included, as one text: each string stays between its
    quotes and an escaped character is a space, so a card token matches only inside one string, as
    if each were searched alone (one search of the whole text is what makes the leak tests fast)."""
    return _ESCAPED.sub(" ", json.dumps(view, ensure_ascii=False))


def named_cards(view: Any) -> set[int]:
    return {parse_card(token) for token in CARD_TOKEN.findall(view_text(view))}


def test_a_second_card_of_a_hole_card_is_not_named_to_the_dealer() -> None:
    # IRR-2: the shoe draws a second Kh while Kh is seat 1's hole card. The ruling voids the hand;
    # the dealer's screen says so without naming the card (the players can read it).
    config = TableConfig(seats=6, game="NT", blinds=(50, 100))
    state = seated_table(config, players=3)
    state, _ = step(state, DealerInput(DealerKey.NEW_HAND))
    assert state.hand is not None
    first_seat = state.hand.seat(0)
    king = parse_card("Kh")
    state, _ = step(state, CardDrawn(king))
    state, effects = step(state, CardDrawn(king))
    assert state.hand is not None and state.hand.pending is not None
    assert private(state)["hole"][str(first_seat)] == ["Kh"]
    (ruling,) = [e for e in effects if isinstance(e, Ruling)]
    assert ruling.rule == "IRR-2" and "a second Kh came out" in ruling.text  # the journal's replay
    for view in (dealer(state), floor(state)):
        assert view["pending"]["rule"] == "IRR-2"
        assert view["pending"]["text"].startswith(f"a second {secrecy.HIDDEN_CARD} came out")
        assert secrecy.HIDDEN_CARD in view["prompt"]
        assert "Kh" not in json.dumps(view)
        assert named_cards(view) == set()


def test_no_view_but_private_names_a_card_that_is_not_face_up_whatever_goes_wrong() -> None:
    # Thousands of hands dealt by a dealer who makes every mistake the procedure knows (boxed,
    # exposed, extra, premature, duplicate, foreign and unread cards, misdeals, kills, voids,
    # floor commands): every string of every view but private, the rulings they list included,
    # names only face-up cards.
    hands = blanked = named = 0
    for seed in range(80):
        rng = random.Random(seed)
        state = random_table(rng)
        sim = Dealer(random.Random(seed + 1), fault_rate=0.3 if seed % 2 else 0.12)
        recent: list[RecentRuling] = []  # as the publisher keeps them: this hand's rulings
        for index in range(800):  # stud and draw hands take more events than hold'em's
            before = state.hand
            state, effects = step(state, sim.next_event(state))
            if before is not None and state.hand is None:
                hands += 1
            number = state.hand_number or None
            recent = [r for r in recent if r.hand == number]
            recent += [RecentRuling(index, 0.0, number, e) for e in effects if isinstance(e, Ruling)]
            up = secrecy.face_up(state)
            shown = public(state)
            to_dealer = dealer(state, recent, base=shown)
            tile = summary(state, secrecy.speaker(state))
            for view in (shown, to_dealer, floor(state, recent, base=to_dealer), tile):
                text = view_text(view)
                cards = {parse_card(token) for token in CARD_TOKEN.findall(text)}
                assert cards <= up, (seed, view["view"], sorted(card_str(c) for c in cards - up), view)
                named += len(cards)
                blanked += text.count(secrecy.HIDDEN_CARD)
    assert hands >= 2000
    assert named > 1000 and blanked > 100  # the check saw both: cards named, and cards kept back


def test_a_sentence_names_only_the_cards_face_up() -> None:
    # (was the MQTT adapter's regex redaction: now the sentence carries its cards as data)
    king, ace = parse_card("Kh"), parse_card("As")
    text = sentence("a second ", Mention(king), " came out")
    assert render(text, secrecy.card_namer(frozenset({king}))) == "a second Kh came out"
    text = sentence(text, ": ", Mention(ace), " too")
    assert render(text, secrecy.card_namer(frozenset())) == "a second [card] came out: [card] too"
    assert (
        render("Action: seat 2, 117 to call.", secrecy.card_namer(frozenset()))
        == "Action: seat 2, 117 to call."
    )


def test_stud_up_cards_are_public_and_down_cards_private() -> None:
    config = TableConfig(seats=6, game="F7S", small_bet=100, big_bet=200, bring_in=25)
    state = seated_table(config, players=2)
    state, _ = step(state, DealerInput(DealerKey.NEW_HAND))
    for card in ("2h", "3h", "4h", "5h", "9s"):  # two down each, then seat 1's up card
        state, _ = step(state, CardDrawn(parse_card(card)))
    assert state.hand is not None
    seats = {s["seat"]: s for s in public(state)["seats"]}
    assert seats[1]["up"] == ["9s"] and seats[2]["up"] == []  # face up as soon as it lands
    text = json.dumps(public(state)) + json.dumps(dealer(state))
    assert '"9s"' in text and not {c for c in ("2h", "3h", "4h", "5h") if f'"{c}"' in text}
    assert private(state)["hole"]["1"] == ["2h", "4h", "9s"]


def test_draw_counts_are_public_and_the_cards_are_not() -> None:
    config = TableConfig(seats=6, game="F2L3D", blinds=(50, 100), small_bet=100, big_bet=200)
    state = seated_table(config, players=2)
    state, _ = step(state, DealerInput(DealerKey.NEW_HAND))
    dealt = ["2c", "3c", "4c", "5d", "6d", "7d", "8h", "9h", "Th", "Js"]
    for card in dealt:
        state, _ = step(state, CardDrawn(parse_card(card)))
    state, _ = step(state, DealerInput(DealerKey.CALL, seat=2))
    state, _ = step(state, DealerInput(DealerKey.CHECK, seat=1))
    state, _ = step(state, DealerInput(DealerKey.DISCARD, seat=1, cards=(parse_card("2c"), parse_card("4c"))))
    for card in ("As", "Ad", "Ah"):  # the burn, then seat 1's two
        state, _ = step(state, CardDrawn(parse_card(card)))
    state, _ = step(state, DealerInput(DealerKey.DISCARD, seat=2, amount=0))
    seats = {s["seat"]: s for s in public(state)["seats"]}
    assert seats[1]["drew"] == [2] and seats[2]["drew"] == [0]
    text = json.dumps(public(state)) + json.dumps(dealer(state)) + json.dumps(floor(state))
    assert not {c for c in [*dealt, "As", "Ad", "Ah"] if f'"{c}"' in text or f" {c}" in text}
    assert private(state)["hole"]["1"] == ["6d", "8h", "Th", "Ad", "Ah"]
