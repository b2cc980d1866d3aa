"""The ``tablectl`` command."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tablectl.core.game.profiles import PROFILES, HouseRules, house_rules

if TYPE_CHECKING:
    from firmware_bridge.protocol import Face


def _scenario_cards(path: str) -> list[tuple[int, Face, bool]]:
    """What ``tablectl sim shoe --scenario`` deals; scenarios load only when one is asked for."""
    from tablectl.sim.scenario import scenario_cards

    return scenario_cards(path)


def _rules(args: argparse.Namespace) -> HouseRules:
    return house_rules(args.profile)


def cmd_run(args: argparse.Namespace) -> int:
    if args.tables is None:  # --hands alone is the one narrated table it always was
        args.tables = 1 if args.hands is not None else 6
    if args.tables < 1:
        raise ValueError("--tables: give 1 (one table narrated here) or more (a room of tables)")
    if args.tables > 1:
        from tablectl.sim.room import Room, run_room

        pace = 1.0 if args.pace is None else args.pace
        room = Room(
            tables=args.tables,
            pace=pace,
            fast=args.fast,
            seed=args.seed,
            irregular_every=args.irregular_every,
            hands=args.hands,
            profile=args.profile,
            out=lambda line: print(line, flush=True),
        )
        return run_room(room)
    return narrate_one_table(args)


def narrate_one_table(args: argparse.Namespace) -> int:
    """`tablectl run --tables 1`: one table in this process, every action told in words."""
    import contextlib
    import shutil

    from tablectl.sim.demo import default_hands, run_table

    hands = default_hands(args.profile, seed=args.seed)
    count = 20 if args.hands is None else args.hands
    with contextlib.ExitStack() as stack:
        publisher = None
        if args.broker == "auto" and (shutil.which("mosquitto") or os.path.exists("/usr/sbin/mosquitto")):
            from tablectl.adapters.mqtt import TablePublisher
            from tablectl.adapters.mqtt.broker import LocalBroker

            # A throwaway mosquitto with the shipped configuration and ACL, as at a table.
            broker = stack.enter_context(LocalBroker(room="main", tables=("1",)))
            assert broker.credentials is not None
            username, password = broker.credentials.user("table", "1")
            publisher = TablePublisher(
                "main", "1", host=broker.host, port=broker.port, username=username, password=password
            ).start()
            stack.callback(publisher.stop)
            print(f"Publishing the table to mqtt://{broker.host}:{broker.port} under cardroom/main/table/1/")
        elif args.broker == "auto":
            print("mosquitto is not installed: dealing without publishing (apt-get install mosquitto)")
        totals = run_table(
            hands,
            count,
            print,
            pace=args.pace or 0.0,
            seed=args.seed,
            publish=publisher.publish_state if publisher is not None else None,
        )
        if publisher is not None:
            publisher.wait_delivered(10.0)
            stats = publisher.stats
            print(
                f"Published {stats.published} MQTT messages; {stats.acknowledged} acknowledged by the broker."
            )
    print(
        f"\nDealt {totals['hands']} hands from {totals['events']} table events: "
        f"{totals['rulings']} rulings, {totals['refused']} wrong inputs refused with the rule broken."
    )
    return 0


def cmd_phh_check(args: argparse.Namespace) -> int:
    from tablectl.formats.phh import NO_SUCH_PATH, check

    report = check(args.paths, _rules(args))
    result = report.as_json()
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"{result['files']} files: {result['matched']} matched, "
            f"{len(result['mismatched'])} mismatched, unsupported {result['unsupported']}, "
            f"{len(result['odd_chip'])} half-chip records settled by the odd-chip rule, "
            f"{len(result['unreadable'])} files unreadable"
        )
        for miss in result["mismatched"]:
            print(f"  MISMATCH {miss['file']}: {miss['difference']}")
        for bad in result["unreadable"]:
            print(f"  UNREADABLE {bad['file']}: {bad['reason']}")
    missing = [bad for bad in result["unreadable"] if bad["reason"] == NO_SUCH_PATH]
    for bad in missing:
        print(f"tablectl: {bad['file']}: {bad['reason']}", file=sys.stderr)
    if missing:
        return 2  # a path given that is not there: what was asked for was not checked
    return 1 if result["mismatched"] or result["unreadable"] else 0


def cmd_scenario_run(args: argparse.Namespace) -> int:
    from tablectl.sim.scenario import run_paths

    result = run_paths(args.paths)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{result['passed']} of {result['scenarios']} scenarios passed")
        for failure in result["failed"]:
            print(f"  FAILED {failure['why']}")
    for error in result["errors"]:
        print(f"tablectl: {error['why']}", file=sys.stderr)
    if result["errors"]:
        return 2  # a path with no scenario: what was asked for was not run
    return 1 if result["failed"] else 0


def cmd_replay(args: argparse.Namespace) -> int:
    from tablectl.journal.replay import export_hand_phh, replay_hand, verify_journal

    if not args.verify and (args.workers is not None or args.json):
        raise ValueError("--workers and --json go with --verify")
    if args.verify:
        report = verify_journal(args.journal, args.workers)
        if args.json:
            print(json.dumps(report))
        else:
            state = "in progress" if report["in_progress"] else "between hands"
            print(
                f"{report['events']:,} events folded from the first ({report['hands']} hands, {state}) "
                f"in {report['seconds']} s on {report['workers']} core(s); "
                f"{report['checkpoints_verified']} checkpoints verified"
                + (
                    f", {report['checkpoints_skipped']} made by other code skipped"
                    if report["checkpoints_skipped"]
                    else ""
                )
            )
            if report["checkpoint_mismatch"]:
                print(f"CHECKPOINT MISMATCH: {report['checkpoint_mismatch']} (folded in one pass instead)")
            divergences = report["divergences"]
            for d in divergences[:10]:
                print(f"DIVERGENCE at seq {d['seq']}: recorded {d['recorded']!r}, now {d['now']!r}")
            if len(divergences) > 10:
                print(f"... and {len(divergences) - 10} more divergences (--json lists them all)")
            print("stacks: " + ", ".join(f"seat {s} {n:,}" for s, n in report["stacks"].items()))
        return 0 if report["ok"] else 1
    if args.phh:
        sys.stdout.write(export_hand_phh(args.journal, args.hand))
    else:
        for line in replay_hand(args.journal, args.hand):
            print(line)
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from tablectl.adapters.mqtt.broker import BrokerAccess, Credentials, LocalBroker
    from tablectl.cli.audit import run_audit

    if len(args.user) != len(args.password):
        raise ValueError("give each --user its --password, in the same order")
    if args.host is None:
        with LocalBroker(tables=("audit-a", "audit-b")) as broker:
            result = run_audit(args.hands, broker.access(), seed=args.seed)
    else:
        if args.credentials is None:
            raise ValueError(
                "--credentials FILE: the audit logs in as every role (the file mkusers writes, "
                "with users for two tables named audit-* and two supervisors named audit*)"
            )
        credentials = Credentials.read(args.credentials)
        for username, password in zip(args.user, args.password, strict=True):
            credentials = credentials.with_login(username, password)
        result = run_audit(args.hands, BrokerAccess(args.host, args.port, credentials), seed=args.seed)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        total = sum(result["violations"].values())
        print(f"{result['hands']} hands at tables {', '.join(result['tables'])}: {total} violations")
        for role, count in result["violations"].items():
            print(f"  {role:9} {count}")
        for example in result["examples"]:
            print(f"  {example['role']}: {example['what']} on {example['topic']} ({example['detail']})")
    return 1 if any(result["violations"].values()) else 0


def cmd_serve(args: argparse.Namespace) -> int:
    import logging

    from tablectl.service.serve import BrokerSettings, serve
    from tablectl.service.tablefile import load_table_config

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    password = None
    if args.mqtt_password_file:
        with open(args.mqtt_password_file, encoding="utf-8") as handle:
            password = handle.read().strip()
    if args.mock_gpio:
        from gpiozero import Device  # type: ignore[import-untyped]
        from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

        Device.pin_factory = MockFactory()  # a bench without the Pi's GPIO
    table_file = load_table_config(args.config)
    broker = BrokerSettings(args.mqtt_host, args.mqtt_port, mqtt_user(args, table_file.table.table), password)
    return serve(table_file, args.journal, broker)


def mqtt_user(args: argparse.Namespace, table: str) -> str:
    """The broker user `tablectl serve` logs in as: --mqtt-user, or else the one mkusers makes for
    the table the config names (table.<table>), so that the unit file needs no name of its own."""
    from tablectl.adapters.mqtt.broker import table_user

    return str(args.mqtt_user) if args.mqtt_user else table_user(table)


def cmd_web(args: argparse.Namespace) -> int:
    import logging

    from tablectl.adapters.web import BrokerAddress, parse_address, serve

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    listen = parse_address(args.listen, "0.0.0.0")
    broker = BrokerAddress(*parse_address(args.broker, "127.0.0.1"))
    serve(listen, broker)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tablectl", description="The controller of a live poker table.")
    parser.add_argument(
        "--profile", choices=sorted(PROFILES), default="tda", help="house-rule profile (default tda)"
    )
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser(
        "run",
        help="the demo: a card room of simulated tables dealing real hands, on a local broker",
        description="Without options: six tables, each its own tablectl process, dealing real hands "
        "with now and then an irregularity for the controller to rule on; Ctrl-C stops them. "
        "--tables 1: one table in this process, every action told in words.",
    )
    run.add_argument(
        "--tables",
        type=int,
        default=None,
        help="tables in the room (default 6, or 1 with --hands); 1: one table narrated here",
    )
    run.add_argument(
        "--pace",
        type=float,
        default=None,
        help="seconds between cards and actions (default 1 in a room, 0 for one table)",
    )
    run.add_argument("--fast", action="store_true", help="a room at full speed (tests)")
    run.add_argument(
        "--irregular-every",
        type=int,
        default=4,
        help="one deal in this many has an irregularity at each table (default 4; 0: none)",
    )
    run.add_argument(
        "--hands",
        type=int,
        default=None,
        help="hands to deal (one table: default 20; a room: at each table, default until Ctrl-C)",
    )
    run.add_argument("--seed", type=int, default=0)
    run.add_argument(
        "--broker",
        choices=("auto", "none"),
        default="auto",
        help="--tables 1: auto starts a local mosquitto with the shipped ACL and publishes the table to it",
    )
    run.set_defaults(func=cmd_run)

    phh = sub.add_parser("phh", help="Poker Hand History files")
    phh_sub = phh.add_subparsers(dest="phh_command", required=True)
    chk = phh_sub.add_parser("check", help="replay hands and compare the finishing stacks")
    chk.add_argument("paths", nargs="+", help=".phh files, folders or .tar.gz archives")
    chk.add_argument("--json", action="store_true", help="print one JSON object")
    chk.set_defaults(func=cmd_phh_check)

    scenario = sub.add_parser(
        "scenario", help="scenario files: a situation, its events, the expected rulings"
    )
    scenario_sub = scenario.add_subparsers(dest="scenario_command", required=True)
    srun = scenario_sub.add_parser("run", help="run scenario files or folders")
    srun.add_argument("paths", nargs="+", help=".scn files or folders of them")
    srun.add_argument("--json", action="store_true", help="print one JSON object")
    srun.set_defaults(func=cmd_scenario_run)

    srv = sub.add_parser("serve", help="run the table's service: shoe, panel, journal, MQTT")
    srv.add_argument("--config", default="/etc/tablectl/table.toml", help="the table's config file")
    srv.add_argument("--journal", default="/var/lib/tablectl/table.journal", help="the event journal")
    srv.add_argument("--mqtt-host", default="localhost")
    srv.add_argument("--mqtt-port", type=int, default=1883)
    srv.add_argument(
        "--mqtt-user",
        default=None,
        help="the table's broker user (default: table.<table> of --config, as deploy/mosquitto/mkusers "
        "names it)",
    )
    srv.add_argument("--mqtt-password-file", default=None, help="a file holding that user's password")
    srv.add_argument("--mock-gpio", action="store_true", help="mock GPIO pins (a bench without a Pi)")
    srv.set_defaults(func=cmd_serve)

    aud = sub.add_parser(
        "audit",
        help="deal simulated hands at two tables over MQTT and check what every role sees and may send",
        description="Without --host: a throwaway mosquitto with deploy/mosquitto's configuration.",
    )
    aud.add_argument("--hands", type=int, default=1000, help="hands to deal, shared by two tables")
    aud.add_argument("--json", action="store_true", help="print one JSON object")
    aud.add_argument("--host", help="a live broker (default: start a throwaway one)")
    aud.add_argument("--port", type=int, default=1883)
    aud.add_argument(
        "--credentials",
        help="the credentials file mkusers wrote (two tables named audit-* and two supervisors audit*)",
    )
    aud.add_argument("--user", action="append", default=[], help="log in as USER instead of its line")
    aud.add_argument("--password", action="append", default=[], help="the password of the --user before it")
    aud.add_argument("--seed", type=int, default=2026)
    aud.set_defaults(func=cmd_audit)

    web = sub.add_parser(
        "web",
        help="serve the display pages and relay their MQTT websockets to the broker (a process of its own)",
        description="The pages log in to the broker themselves: the broker authenticates them and "
        "applies its ACL; this server holds no password (docs/displays.md).",
    )
    web.add_argument("--listen", default="0.0.0.0:8080", help="HOST:PORT to serve on (default 0.0.0.0:8080)")
    web.add_argument(
        "--broker", default="127.0.0.1:1883", help="the broker's MQTT TCP listener (default 127.0.0.1:1883)"
    )
    web.set_defaults(func=cmd_web)

    from firmware_bridge.cli import add_sim_parser
    from firmware_bridge.simshoe import CardNames
    from tablectl.core.cards import card_str, parse_card

    sim = sub.add_parser("sim", help="simulated hardware for test rigs (the card shoe on a pseudo-terminal)")
    add_sim_parser(
        sim.add_subparsers(dest="sim_command", required=True),
        card_names=CardNames(parse_card, card_str),
        scenario_cards=_scenario_cards,
    )

    rep = sub.add_parser(
        "replay",
        help="reconstruct a hand from a table's journal, action by action, for the floor (TBL-5)",
        description="The journal holds the table's config and house rules: --profile does not apply.",
    )
    rep.add_argument("journal", help="the table's journal file (it may be in use by the table)")
    rep.add_argument("--hand", type=int, help="hand number (default: the last hand played to the end)")
    rep.add_argument("--phh", action="store_true", help="print the hand as a PHH record instead")
    rep.add_argument(
        "--verify",
        action="store_true",
        help="fold the whole journal from its first event on every core, check every checkpoint "
        "and recorded outcome against it, and print the stacks (exit 1 on any difference)",
    )
    rep.add_argument("--workers", type=int, help="with --verify: processes to use (default: one per core)")
    rep.add_argument("--json", action="store_true", help="with --verify: print one JSON object")
    rep.set_defaults(func=cmd_replay)

    from tablectl.cli.calibrate import add_calibrate_parser
    from vision.cli import add_vision_parser  # the camera pipeline: cv2 loads only when it runs

    add_calibrate_parser(add_vision_parser(sub))
    from tablectl.native import add_native_parser

    add_native_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (FileNotFoundError, ValueError) as exc:
        print(f"tablectl: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
