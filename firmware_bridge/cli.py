"""``tablectl sim shoe``: the simulated shoe for test rigs and bench work.

tablectl wires it in (``tablectl/cli/__init__.py``) with::

    sim = sub.add_parser("sim", help="simulated devices for test rigs")
    add_sim_parser(
        sim.add_subparsers(dest="sim_command", required=True),
        card_names=CardNames(parse_card, card_str),  # its card notation
        scenario_cards=scenario_cards,  # what --scenario FILE deals
    )

The bridge knows no card notation and no scenario files: the caller passes both. It also
runs on its own, ``python -m firmware_bridge.cli shoe --link /tmp/tablectl-shoe``, where
cards are written as the numbers the shoe deals them by (``#51``, ``51:up``) and there is
no ``--scenario``.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

from firmware_bridge.faults import Faults
from firmware_bridge.protocol import Face
from firmware_bridge.simshoe import CARD_NUMBERS, CardNames, SimEvent, SimShoe

DealtCard = tuple[int, Face, bool]  # (card 0..51, face, from another deck)


def add_sim_parser(
    subparsers: Any,
    *,
    card_names: CardNames = CARD_NUMBERS,
    scenario_cards: Callable[[str], list[DealtCard]] | None = None,
) -> argparse.ArgumentParser:
    """Add ``shoe`` to ``subparsers`` (from ``parser.add_subparsers()``); returns its parser.

    ``card_names``: how ``--cards`` and the keyboard write cards. ``scenario_cards``: the
    cards a scenario file draws, in order; without it there is no ``--scenario``.
    """
    a, b, c = card_names.examples()
    shoe: argparse.ArgumentParser = subparsers.add_parser(
        "shoe",
        help="a simulated card shoe on a pseudo-terminal (prints its path)",
        description=(
            "Run the shoe's firmware on a pseudo-terminal that the host opens like a real shoe. "
            "It deals shuffled decks at --interval, the --cards you give, or what you type "
            "(--interactive). Runs until interrupted (Ctrl-C)."
        ),
    )
    shoe.add_argument(
        "--deck", default="sim-red", help="deck id: its tag ids follow from it (default sim-red)"
    )
    shoe.add_argument("--seed", type=int, default=None, help="shuffle and fault seed, to replay a run")
    shoe.add_argument("--interactive", action="store_true", help="deal from the keyboard (type help)")
    shoe.add_argument(
        "--faults",
        default="",
        metavar="SPEC",
        help=(
            "line faults per frame, e.g. "
            "drop=0.05,corrupt=0.05,duplicate=0.02,delay=0.1,delay_ms=80,garbage=0.01"
        ),
    )
    shoe.add_argument(
        "--link",
        metavar="PATH",
        default=None,
        help="keep a symlink at PATH pointing at the current pty (like the udev rule's /dev/tablectl-shoe)",
    )
    shoe.add_argument("--serial", default="SIM-0001", help="the serial number the shoe reports")
    shoe.add_argument(
        "--interval",
        type=float,
        default=2.0,
        help="seconds between cards when dealing by itself (0: do not deal)",
    )
    shoe.add_argument("--cards", default="", help=f'deal these first, e.g. "{a} {b}:up {c}:foreign"')
    if scenario_cards is not None:
        shoe.add_argument(
            "--scenario",
            default=None,
            help="deal the cards a scenario file draws (tests/scenarios/*.scn), in order, first",
        )
    shoe.add_argument(
        "--queue", type=int, default=64, help="reads the shoe can hold for the host (default 64)"
    )
    shoe.set_defaults(func=run_sim_shoe, card_names=card_names, scenario_cards=scenario_cards)
    return shoe


def parse_card_list(text: str, card_names: CardNames = CARD_NUMBERS) -> list[DealtCard]:
    """``"As Kd:up 5c:foreign"`` (in ``card_names``' notation) -> (card, face, foreign) triples."""
    out: list[DealtCard] = []
    for item in text.replace(",", " ").split():
        name, *flags = item.split(":")
        unknown = [f for f in flags if f not in ("up", "foreign")]
        if unknown:
            raise ValueError(f"--cards: {item!r}: after a card only :up (boxed) and :foreign are allowed")
        out.append((card_names.parse(name), Face.FACE if "up" in flags else Face.BACK, "foreign" in flags))
    return out


def run_sim_shoe(args: argparse.Namespace) -> int:
    faults = Faults.parse(args.faults)
    names: CardNames = args.card_names
    scenario = getattr(args, "scenario", None)  # only there when the caller reads scenarios
    cards = (args.scenario_cards(scenario) if scenario else []) + parse_card_list(args.cards, names)
    printer = threading.Lock()

    def say(text: str) -> None:
        with printer:
            print(text, flush=True)

    def on_event(event: SimEvent) -> None:
        if event.kind in (
            "connected",
            "link_down",
            "incompatible",
            "command",
            "unplugged",
            "replugged",
            "rebooted",
        ):
            say(f"[shoe] {event.detail}")

    shoe = SimShoe(
        args.deck,
        seed=args.seed,
        faults=faults,
        link=args.link,
        serial=args.serial,
        queue_size=args.queue,
        on_event=on_event,
        card_names=names,
    )
    with shoe:
        where = f"{args.link} -> {shoe.tty}" if args.link else shoe.tty
        say(f"simulated shoe {args.serial}: {where}")
        say(f"deck {args.deck}, seed {args.seed}, faults {faults}; open it with ShoeLink({shoe.path!r})")
        for card, face, foreign in cards:
            if foreign:
                shoe.foreign(card, face)
            else:
                shoe.deal(card, face)
        try:
            if args.interactive:
                a, b, c = names.examples()
                say(f"type a card ({a}, {b} up, {c} foreign), Enter for the next card, help, or quit")
                for line in sys.stdin:
                    if line.strip().lower() in ("quit", "exit", "q"):
                        break
                    say(shoe.command(line))
            elif args.interval > 0:
                # Ctrl-C or SIGTERM ends the loop between two cards: a KeyboardInterrupt raised
                # inside deal_next() would leave the shoe's lock held and its stop() waiting.
                stop = threading.Event()
                for number in (signal.SIGINT, signal.SIGTERM):
                    signal.signal(number, lambda *_: stop.set())
                while not stop.wait(args.interval):
                    card = shoe.deal_next()
                    say(f"dealt {names.show(card)} (read {shoe.read_no}, {shoe.cards_left} left)")
            else:
                threading.Event().wait()
        except KeyboardInterrupt:
            pass
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="firmware_bridge.cli", description="Simulated devices for test rigs."
    )
    add_sim_parser(parser.add_subparsers(dest="device", required=True))
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except ValueError as exc:
        print(f"sim: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
