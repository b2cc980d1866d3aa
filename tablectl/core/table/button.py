"""Where the button goes (layer 4): the draw for the button (DEAL-5) and the round of the button (TBL-1).

DEAL-5: a new game deals one card face up to each player until an ace appears; the button
starts there. TBL-1: the button moves one seat each hand (heads-up the button posts the small
blind, DEAL-4), or the floor places it (``move_button``, in ``floor``).

TBL-1's correction: the table keeps who had the button and the blinds on each hand of the
current round of the button (``TableState.orbit``). After the floor's ``button_misplaced`` every
deal until the round is over gives the big blind to a player who has not had it this round, the
small blind and then the button likewise where it can, and otherwise moves as usual (docs/rules.md).
A misplaced button is reported once a misdealt hand's redeal (MD-2) is played.
"""

from __future__ import annotations

from collections import Counter

from tablectl.core.cards import rank_of
from tablectl.core.effects import Effect, Prompt, Ruling, Severity
from tablectl.core.events import CardDrawn, FloorCommand
from tablectl.core.procedure import Refused
from tablectl.core.sentences import Mention, sentence
from tablectl.core.table.state import ButtonFix, Positions, TableState, _active_seats, _evolve, _remedied

ACE = 12


def _draw_for_button(state: TableState, event: CardDrawn) -> tuple[TableState, tuple[Effect, ...]]:
    active = _active_seats(state)
    draw = tuple(s for s in state.button_draw or () if s in active)  # players who left draw no more
    if len(draw) < 2:
        return _evolve(state, button_draw=None), (
            Ruling("DEAL-5", "Too few players left to deal for the button.", Severity.INFO),
        )
    seat = draw[0]
    card = event.card
    if card is not None and rank_of(card) == ACE:
        text = sentence(
            f"Seat {seat} drew the first ace (",
            Mention(card),
            "): the button starts there. Reshuffle and deal.",
        )
        return _evolve(state, button=seat, button_draw=None, keep_button=True), (
            Ruling("DEAL-5", text, Severity.INFO),
        )
    rest = draw[1:] + (seat,)
    shown = Mention(card) if card is not None else "a card"
    return _evolve(state, button_draw=rest), (
        Prompt(sentence(f"Seat {seat} drew ", shown, f". Next card to seat {rest[0]}.")),
    )


# -- TBL-1: every player gets one chance at each position in the round -------------------------


def _next_active(state: TableState, seat: int, active: list[int]) -> int:
    total = len(state.seats)
    for step_ in range(1, total + 1):
        candidate = (seat - 1 + step_) % total + 1
        if candidate in active:
            return candidate
    raise Refused("TBL-1", "no active seat for the button")


def _positions(button: int, seats: list[int] | tuple[int, ...]) -> Positions:
    """The button and the blinds with the button at ``button`` among ``seats`` (in seat order)."""
    at = seats.index(button)
    n = len(seats)
    if n == 2:  # heads-up the button posts the small blind (DEAL-4)
        return Positions(button, button, seats[(at + 1) % n])
    return Positions(button, seats[(at + 1) % n], seats[(at + 2) % n])


def _orbit_before_deal(state: TableState, active: list[int]) -> tuple[tuple[Positions, ...], bool]:
    """The hands of this round before the next deal, and whether that deal starts a new round.

    A redeal (MD-2) takes the place of the hand misdealt. The round is over once every active
    player has had the big blind in it; a round kept longer than twice the seats (players coming
    and going) is closed too, so that the record stays small."""
    orbit = state.orbit[:-1] if state.redeal else state.orbit
    bigs = {p.big for p in orbit}
    if orbit and (all(seat in bigs for seat in active) or len(orbit) >= 2 * len(state.seats)):
        return (), True
    return orbit, False


def _fair_button(
    state: TableState, orbit: tuple[Positions, ...], active: list[int]
) -> tuple[int, tuple[Ruling, ...]]:
    """The button for the next deal that keeps every position once a round where it can.

    Each active seat could take the button; that fixes the blinds. The choice gives the big blind
    to a player who has had it least this round (no one pays a second while another active
    player has had none: any seat can be made the big blind), then the small blind, then the
    button likewise, and among equals the seat nearest the usual move: one seat clockwise from
    where the button really was."""
    assert state.button is not None
    buttons = Counter(p.button for p in orbit)
    smalls = Counter(p.small for p in orbit)
    bigs = Counter(p.big for p in orbit)
    usual = _next_active(state, state.button, active)
    start = active.index(usual)
    clockwise = active[start:] + active[:start]

    def cost(distance: int) -> tuple[int, int, int, int]:
        p = _positions(clockwise[distance], active)
        return (bigs[p.big], smalls[p.small], buttons[p.button], distance)

    best = min(range(len(clockwise)), key=cost)
    button = clockwise[best]
    if button == usual and state.button_fix is not ButtonFix.REPORTED:
        return button, ()  # the usual move already keeps every position once this round
    chosen = _positions(button, active)
    buttons[chosen.button] += 1
    smalls[chosen.small] += 1
    bigs[chosen.big] += 1
    once = all(count[seat] <= 1 for count in (buttons, smalls, bigs) for seat in active)
    if once:
        why = "every player gets each position once this round"
    else:  # a position was already had twice (the misplaced hand), or the seats allow no better
        why = "every player has the big blind this round before anyone has it again"
    text = f"Button corrected for this hand: seat {button} has the button so that {why}."
    return button, (Ruling("TBL-1", text, Severity.INFO),)


def _button_misplaced(
    state: TableState, event: FloorCommand, by: str
) -> tuple[TableState, tuple[Effect, ...]]:
    """TBL-1: the floor reports that the last hand's button was misplaced; ``seat``: where it
    really was (the blinds were posted by the players after it), or none if the table's record
    of that hand stands. The next deals correct the button and blinds until the round is over."""
    if state.hand is not None:
        raise Refused("TBL-1", "the button is corrected between hands: report it once this hand is over")
    last = state.last_hand
    if last is None or not state.orbit:
        raise Refused("TBL-1", "no hand has been dealt yet: there is no misplaced button to correct")
    if not last.game.config.variant.game.has_button:
        raise Refused(
            "HO-13",
            f"hand {last.number} was stud: it had no button (frozen during stud); move_button places "
            "the button where the next flop or draw game starts",
        )
    if state.redeal:
        raise Refused(
            "MD-2",
            "the misdealt hand is redealt with the same button and blinds: "
            "report a misplaced button once the redeal is played",
        )
    number = event.seat
    orbit = state.orbit
    if number is not None:
        if number not in last.seats_in:
            dealt = ", ".join(str(s) for s in sorted(last.seats_in))
            why = "is empty" if state.seat(number) is None else "was not dealt in last hand"
            raise Refused("INPUT", f"seat {number} {why}: the button was at one of seats {dealt}")
        actual = _positions(number, sorted(last.seats_in))
        # A player who has left since takes their positions along (as remove_player does).
        actual = Positions(*(0 if s in state.vacated else s for s in actual))
        orbit = (*orbit[:-1], actual)
        text = f"The button was at seat {number} on hand {last.number}: the next deal corrects it."
        decision = f"button misplaced: seat {number}"
    else:
        text = f"The button was misplaced on hand {last.number}: the next deal corrects it."
        decision = "button misplaced"
    state = _evolve(
        state,
        button=number if number is not None else state.button,
        keep_button=False,
        orbit=orbit,
        button_fix=ButtonFix.REPORTED,
        overrides=_remedied(state, by, "TBL-1", decision, event.user),
    )
    return state, (Ruling("TBL-1", text, Severity.INFO),)
