"""Starting and ending hands (layer 4): the deal of a new hand, a misdeal or void hand, a hand played out.

Between hands the table deals the next hand when the dealer presses new hand: at least two
players with chips (TBL-3), the button moved (TBL-1) or first drawn for (DEAL-5), a new level
of blinds from this deal (TBL-2). A stray card between hands is put back (DEAL-6) or, with a
different back, ruled on (IRR-1). A misdeal (MD-2) or a void hand (IRR-1, IRR-2, the floor)
gives every chip back and is redealt with the same button and blinds; a hand played out pays
its pots, places players out on the same hand (TBL-4) and stays the last hand (TBL-5).
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

from tablectl.core.effects import Effect, HandEnded, Prompt, Ruling, Severity
from tablectl.core.events import CardDrawn, CardSeen, DealerInput, DealerKey, Event
from tablectl.core.game.engine import ConfigError, HandConfig, start_hand
from tablectl.core.game.variants import STUD_HI_LO, Structure, variant_from_code
from tablectl.core.procedure import HandProgress, Refused, new_hand, prompt_for
from tablectl.core.table.button import (
    _draw_for_button,
    _fair_button,
    _next_active,
    _orbit_before_deal,
    _positions,
)
from tablectl.core.table.rotation import GameStakes, RotationProgress, advance, record_deal
from tablectl.core.table.state import (
    ButtonFix,
    Positions,
    TableState,
    _active_seats,
    _evolve,
    _kept_remedies,
)


def _between_hands(state: TableState, event: Event) -> tuple[TableState, tuple[Effect, ...]]:
    if isinstance(event, CardSeen):
        return state, ()  # the camera sees cards gathered and shuffled between hands
    if isinstance(event, CardDrawn) and state.button_draw is not None:
        return _draw_for_button(state, event)
    if isinstance(event, DealerInput) and event.key is DealerKey.NEW_HAND:
        return _start_hand(state)
    if isinstance(event, CardDrawn):
        if event.foreign:
            text = (
                "A card with a different back was found in the stub: the action stands. "
                "Remove it from the deck."
            )
            return state, (Ruling("IRR-1", text, Severity.FLOOR),)
        raise Refused("DEAL-6", "no hand in progress: the next card is not shown; put it back face down")
    raise Refused("INPUT", "no hand in progress: press new hand to deal")


class _Button(NamedTuple):
    """The button of a deal and TBL-1's record of the round with it."""

    seat: int
    effects: tuple[Effect, ...]
    orbit: tuple[Positions, ...]
    fix: ButtonFix


def _choose_button(state: TableState, active: list[int]) -> _Button:
    """TBL-1: where the button goes on this deal (it stays on a redeal, MD-2, or where it was
    just placed); ``state.button`` is known."""
    assert state.button is not None
    effects: tuple[Effect, ...] = ()
    orbit, new_round = _orbit_before_deal(state, active)
    fix = state.button_fix
    if state.redeal or state.keep_button:
        button = state.button if state.button in active else _next_active(state, state.button, active)
    elif fix is not ButtonFix.OFF:
        button, effects = _fair_button(state, orbit, active)  # TBL-1: a misplaced button corrected
        fix = ButtonFix.ROUND
    else:
        button = _next_active(state, state.button, active)  # TBL-1: one seat on each hand
    if new_round:
        fix = ButtonFix.OFF  # the round of the correction is over
    return _Button(button, effects, orbit, fix)


def _start_hand(state: TableState) -> tuple[TableState, tuple[Effect, ...]]:
    active = _active_seats(state)
    if len(active) < 2:
        raise Refused("TBL-3", "a hand needs at least two players with chips in their seats")
    cfg = state.config
    rotation, progress = cfg.rotation, state.rotation
    entry: GameStakes | None = None
    changed = False
    choice: _Button | None = None
    if rotation is not None:
        # HO-13: the game of this deal. A button game's round is over once the button would go
        # back to a seat that had it this round, so the button is chosen first.
        progress = progress or RotationProgress()
        if not state.redeal:
            if rotation.games[progress.game_index].has_button and state.button is not None:
                choice = _choose_button(state, active)
            progress, changed = advance(
                rotation, progress, choice.seat if choice is not None else None, len(active)
            )
        entry = rotation.games[progress.game_index]
    frozen = entry is not None and not entry.has_button
    if not frozen and state.button is None:
        # DEAL-5: the button goes to the first ace dealt face up, clockwise from seat 1.
        draw = tuple(active)
        text = "New game: deal one card face up to each player from the first seat until an ace appears."
        return _evolve(state, button_draw=draw), (Ruling("DEAL-5", text, Severity.INFO), Prompt(text))
    effects: list[Effect] = []
    if frozen:
        # HO-13: stud has no button: it stays where the last button game left it.
        button, orbit, fix = state.button, state.orbit, state.button_fix
    else:
        if choice is None:
            choice = _choose_button(state, active)
        button, orbit, fix = choice.seat, (*choice.orbit, _positions(choice.seat, active)), choice.fix
        effects.extend(choice.effects)
    if entry is not None:
        blinds, ante, bb_ante = entry.blinds, entry.ante, entry.big_blind_ante
        if changed:
            effects.append(Ruling("HO-13", _game_change(entry, state.button, button), Severity.INFO))
    else:
        blinds, ante, bb_ante = state.blinds, state.ante, state.big_blind_ante
        if state.next_level is not None and not state.redeal:
            (blinds, ante), bb_ante = state.next_level, state.big_blind_ante
            effects.append(
                Ruling(
                    "TBL-2",
                    f"New level from this deal: blinds {'/'.join(f'{b:,}' for b in blinds)}.",
                    Severity.INFO,
                )
            )
    if frozen:
        seats_in = tuple(active)  # stud deals from the dealer's left, seat 1 first (SS-11)
    else:
        assert button is not None
        start = active.index(button) + 1
        seats_in = tuple(active[(start + k) % len(active)] for k in range(len(active)))
    n = len(seats_in)
    stacks = tuple(state.seats[s - 1].stack for s in seats_in)  # type: ignore[union-attr]
    antes: tuple[int, ...] = ()
    if ante:
        antes = (ante,) * n
    elif bb_ante:
        # The engine takes antes in posting order: index 1 is the big blind's, heads-up too.
        antes = tuple(bb_ante if p == 1 else 0 for p in range(n))
    variant = variant_from_code(entry.game if entry is not None else cfg.game)
    try:
        hand_config = HandConfig(
            variant=variant,
            starting_stacks=stacks,
            # A straddle needs a player to post it; stud has no blinds (the bring-in, STUD-5).
            blinds=() if frozen or not variant.game.has_button else blinds[: 2 if n == 2 else n],
            antes=antes,
            min_bet=blinds[-1] if variant.structure is Structure.SPREAD_LIMIT else 0,
            small_bet=entry.small_bet if entry is not None else cfg.small_bet,
            big_bet=entry.big_bet if entry is not None else cfg.big_bet,
            spread_max=entry.spread_max if entry is not None else cfg.spread_max,
            bring_in=entry.bring_in if entry is not None else cfg.bring_in,
            chip_unit=cfg.chip_unit,
            rules=cfg.rules(),
        )
    except ConfigError as exc:
        raise Refused("INPUT", f"this hand cannot be dealt ({exc}): the floor sets blinds that fit") from None
    number = state.hand_number + 1
    hand = new_hand(number, seats_in, start_hand(hand_config))
    holder = state.action_button
    if holder is not None and holder in seats_in and variant.game is STUD_HI_LO:
        # STUD-18: the action button posts a full completion before the deal (003 glossary).
        hand = hand._replace(action_button=seats_in.index(holder))
        text = (
            f"Seat {holder} has the action button: seat {holder} posts {hand_config.small_bet:,} before the "
            f"deal; when the betting reaches seat {holder}, it stands as the raise of the bring-in."
        )
        effects.append(Ruling("STUD-18", text, Severity.INFO))
    if rotation is not None and progress is not None and not state.redeal:
        progress = record_deal(rotation, progress, None if frozen else button)
    state = _evolve(
        state,
        button=button,
        blinds=blinds,
        ante=ante,
        big_blind_ante=bb_ante,
        next_level=None if not state.redeal else state.next_level,
        hand_number=number,
        overrides=_kept_remedies(state.overrides, number),
        hand=hand,
        last_hand=None,
        redeal=False,
        keep_button=state.keep_button if frozen else False,
        orbit=orbit,
        button_fix=fix,
        vacated=state.vacated if frozen else (),
        rotation=progress,
    )
    if frozen:
        where = f"the button stays at seat {button}" if button is not None else "no button"
        opening = f"Hand {number}, {entry.label if entry else ''}: {where} (stud). "
    elif entry is not None:
        opening = f"Hand {number}, {entry.label}: button at seat {button}. "
    else:
        opening = f"Hand {number}: button at seat {button}. "
    effects.append(Prompt(opening + prompt_for(hand).text))
    return state, tuple(effects)


def _game_change(entry: GameStakes, before: int | None, button: int | None) -> str:
    """HO-13's ruling when the rotation's game changes with a deal."""
    text = f"The game changes from this deal: {entry.label}, {entry.stakes}."
    if not entry.has_button:
        if button is not None:
            text += f" The button is frozen at seat {button} during stud."
    elif before is not None and button is not None:
        text += f" Button at seat {button}."
    return text


def _end_without_play(state: TableState, kind: str, rule: str) -> tuple[TableState, tuple[Effect, ...]]:
    """A misdeal (MD-2) or a void hand (IRR-1, IRR-2, floor): every chip goes back."""
    hand = state.hand
    assert hand is not None
    stacks = {seat: hand.game.config.starting_stacks[p] for p, seat in enumerate(hand.seats_in)}
    # MD-2: a misdeal is redealt with the same button and blinds; so is a void hand.
    state = _evolve(state, hand=None, last_hand=hand, redeal=True)
    with_button = hand.game.config.variant.game.has_button  # stud has neither (STUD-19)
    text = (
        "Hand void: every chip goes back to who bet it; redeal."
        if kind != "misdeal"
        else "Misdeal: every chip goes back; redeal with the same button and blinds."
        if with_button
        else "Misdeal: every chip goes back; redeal."
    )
    effects: tuple[Effect, ...] = (
        Ruling(
            "MD-2" if kind == "misdeal" else rule,
            text,
            Severity.MISDEAL if kind == "misdeal" else Severity.VOID,
        ),
        HandEnded(hand.number, stacks, voided=(kind == "void"), misdeal=(kind == "misdeal")),
        Prompt("Press new hand to redeal."),
    )
    return state, effects


def _hand_complete(state: TableState, effects: tuple[Effect, ...]) -> tuple[TableState, tuple[Effect, ...]]:
    hand = state.hand
    assert hand is not None
    finishing = hand.game.finishing_stacks
    seats = list(state.seats)
    result: dict[int, int] = {}
    for position, seat in enumerate(hand.seats_in):
        current = seats[seat - 1]
        assert current is not None
        seats[seat - 1] = dataclasses.replace(current, stack=finishing[position])
        result[seat] = finishing[position]
    out = list(effects)
    broke = [p for p in range(hand.n) if finishing[p] == 0]
    if len(broke) >= 2 and state.config.rules().tournament:
        # TBL-4: more chips at the start of the hand places higher; equal: first left of the dealer.
        order = sorted(broke, key=lambda p: (-hand.game.config.starting_stacks[p], p))
        places = ", ".join(f"seat {hand.seat(p)}" for p in order)
        out.append(
            Ruling("TBL-4", f"Players out on the same hand, higher place first: {places}.", Severity.INFO)
        )
    out.append(HandEnded(hand.number, result))
    won: dict[int, int] = {}
    for award in hand.game.awards:
        for position, chips in award.shares:
            won[hand.seat(position)] = won.get(hand.seat(position), 0) + chips
    pushes = ", ".join(f"seat {seat} {chips:,}" for seat, chips in sorted(won.items()))
    holder = _action_button_won(state, hand)
    if holder is not None:
        text = (
            f"Seat {holder} scooped a pot of more than {state.config.action_button:,}: seat {holder} takes "
            "the action button and posts a completion on the next deal."
        )
        out.append(Ruling("STUD-18", text, Severity.INFO))
    out.append(Prompt(f"Push the pot: {pushes}. Press new hand to deal the next one."))
    return _evolve(state, seats=tuple(seats), hand=None, last_hand=hand, action_button=holder), tuple(out)


def _action_button_won(state: TableState, hand: HandProgress) -> int | None:
    """STUD-18: the seat that won the whole of a stud/8 pot (every half and side pot, chips returned
    left out) of more than the table's ``action_button`` chips; None: nobody (it lapses)."""
    if not state.config.action_button or hand.game.config.variant.game is not STUD_HI_LO:
        return None
    awards = [award for award in hand.game.awards if award.half != "returned"]
    winners = {position for award in awards for position, chips in award.shares if chips}
    pot = sum(award.amount for award in awards)
    if len(winners) != 1 or pot <= state.config.action_button:
        return None
    return hand.seat(winners.pop())
