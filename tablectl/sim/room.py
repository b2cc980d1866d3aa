"""The demo room: a local mosquitto with the shipped configuration and ACL, and six tables dealing
real hands, each in a process of its own as a room runs them (tablectl.sim.room_table: `serve`'s
wiring, a simulated shoe on a pseudo-terminal, a simulated dealer on mock panel pins, its own
journal, logged in as table.<n>). The room prints where to look, then a compact log of what the
floor sees (rulings as they happen, hands ended), read from the broker as the floor dashboard
reads it. Ctrl-C or SIGTERM stops the tables (each publishes itself offline), then the broker.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from firmware_bridge.tags import tag_id
from tablectl.adapters.decks import Deck, DeckRegistry, save_registry
from tablectl.adapters.mqtt.broker import LocalBroker
from tablectl.core.game.variants import variant_from_code
from tablectl.core.table import TableConfig
from tablectl.core.table.rotation import (
    EIGHT_GAME,
    Change,
    GameStakes,
    Rotation,
    amount_step,
    limit_stakes,
    stakes_text,
)
from tablectl.sim.demo import shared_data_dir
from tablectl.sim.room_dealer import phh_scripts
from tablectl.sim.room_table import SIM_DECK

ROOM = "main"
STOP_TIMEOUT = 20.0  # seconds a table has to stop after SIGTERM before it is killed
SEATING_RULES = ("TBL-1", "TBL-3")  # the demo floor seating each record's players: not news
Out = Callable[[str], None]


@dataclass(frozen=True)
class TablePlan:
    """What one table deals: its game and stakes, the records to deal them from."""

    config: TableConfig
    sources: tuple[Path, ...] = ()
    offset: int = 0


def plan_tables(count: int, data: Path | None, profile: str = "tda") -> list[TablePlan]:
    """The WSOP final table's games, one of each kind with a few hands (a flop game, a stud game, a
    draw game) for the first tables, the Pluribus hands (no-limit hold'em) for the others, each
    from another place in the file; random hands without ../shared/data. From four tables on, the
    last deals the eight-game mix (HO-13)."""
    plans: list[TablePlan] = []
    wsop = data / "phh" / "wsop-2023-43" if data else None
    pluribus = data / "phh" / "pluribus.tar.gz" if data else None
    if wsop is not None and wsop.is_dir():
        groups: Counter[TableConfig] = Counter(
            dataclasses.replace(s.config, seats=9) for s in phh_scripts(wsop, profile)
        )
        kinds: set[str] = set()  # one table of each kind of game: flop, stud, draw
        for config, hands in groups.most_common():
            kind = _kind_of_game(config.game)
            if hands >= 3 and kind not in kinds and len(plans) < min(3, count - 1 or 1):
                kinds.add(kind)
                plans.append(TablePlan(config, (wsop,)))
    if pluribus is not None and pluribus.exists():
        first = next(phh_scripts(pluribus, profile), None)
        if first is not None:
            config = dataclasses.replace(first.config, seats=9)
            while len(plans) < count:
                plans.append(TablePlan(config, (pluribus,), offset=97 * len(plans)))
    while len(plans) < count:
        plans.append(TablePlan(TableConfig(seats=9, game="NT", blinds=(50, 100), profile=profile)))
    if count >= 4:  # mixed games at one table (HO-13): the last the eight-game mix by orbit
        plans[-1] = TablePlan(TableConfig(seats=9, profile=profile, rotation=DEMO_ROTATION))
    return [
        dataclasses.replace(p, config=dataclasses.replace(p.config, room=ROOM, table=str(k)))
        for k, p in enumerate(plans[:count], start=1)
    ]


def _kind_of_game(code: str) -> str:
    game = variant_from_code(code).game
    return "draw" if game.has_draws else "flop" if game.has_button else "stud"


# The demo's table of mixed games (HO-13): the eight-game mix, an orbit each, in the order the
# WSOP deals it; the limit games at 100/200, stud with an ante of 20 and a bring-in of 30, the
# big-bet games at 50/100 (hold'em with a big blind ante).
def _demo_game(code: str) -> GameStakes:
    if code == "NT":
        return GameStakes("NT", blinds=(50, 100), big_blind_ante=100)
    if code == "PO":
        return GameStakes("PO", blinds=(50, 100))
    return limit_stakes(code, 100, ante=20, bring_in=30)


DEMO_ROTATION = Rotation(tuple(map(_demo_game, EIGHT_GAME)), Change.ORBIT, name="8-game")


def _game_keys(config: TableConfig) -> str:
    """[table]'s single game, or the [rotation] section of a table of mixed games."""
    rotation = config.rotation
    if rotation is None:
        posted = ", ".join(str(b) for b in config.blinds)
        blinds = f"blinds = [{posted}]\n" if config.has_button else ""
        return f"""game = "{config.game}"
{blinds}ante = {config.ante}
big_blind_ante = {config.big_blind_ante}
small_bet = {config.small_bet}
big_bet = {config.big_bet}
bring_in = {config.bring_in}
"""
    lines = ["", "[rotation]", f'name = "{rotation.name}"', f'change = "{rotation.change.value}"']
    lines.append(f"orbits = {rotation.orbits}" if rotation.change is Change.ORBIT else "")
    for game in rotation.games:
        lines += ["", "[[rotation.games]]"]
        for key, value in game.to_json().items():
            lines.append(f'{key} = "{value}"' if isinstance(value, str) else f"{key} = {value}")
    return "\n".join(lines) + "\n"


def table_file_text(config: TableConfig, folder: Path, fast: bool) -> str:
    """The table's config file: deploy/table.example.toml's panel, the shoe on the simulated
    shoe's pseudo-terminal, the demo's deck registry. Fast: the shortest presses the file allows."""
    first = config.rotation.games[0] if config.rotation is not None else None
    step = amount_step(first if first is not None else config)
    return f"""# A demo table: the shipped example's panel on mock pins, the simulated shoe.
[table]
room = "{config.room}"
table = "{config.table}"
seats = {config.seats}
profile = "{config.profile}"
{_game_keys(config)}

[shoe]
port = "{folder / "shoe"}"

[decks]
registry = "decks.json"

[panel]
debounce = {0.001 if fast else 0.02}
hold_time = {0.3 if fast else 1.5}
amount_step = {step}

[panel.pins]
fold = 17
check_call = 27
bet = 22
all_in = 23
confirm = 24
new_hand = 25
misdeal = 5
exposed = 6
encoder_a = 20
encoder_b = 21
buzzer = 18
seat_leds = [4, 12, 13, 16, 19, 26, 7, 8, 9]
"""


WEB_PORT = 8080  # the demo's pages, when the port is free (else any free port)


def page_addresses(room: Room) -> list[str]:
    """The addresses to open, printed at the start, each logged in by its fragment (which a
    browser never sends to the server): the floor as supervisor ann, the first table's dealer's
    screen and table display. The passwords are this run's throwaway broker's."""
    if room.web_url is None or room.broker is None or room.broker.credentials is None:
        return []
    credentials = room.broker.credentials
    first = room.running[0].plan.config.table if room.running else "1"

    def login(page: str, role: str, who: str | None, table: str | None) -> str:
        user, password = credentials.user(role, who)
        fragment = f"user={quote(user)}&pass={quote(password)}&room={ROOM}"
        if table is not None:
            fragment += f"&table={table}"
        return f"{room.web_url}/{page}#{fragment}"

    supervisor = credentials.supervisors()[0] if credentials.supervisors() else None
    floor = (
        login("floor", "supervisor", supervisor, None) if supervisor else login("floor", "floor", None, None)
    )
    return [
        f"the floor dashboard:   {floor}",
        f"table {first}'s dealer:     {login('dealer', 'dealer', first, first)}",
        f"table {first}'s display:    {login('table', 'public', first, first)}",
    ]


def _free_port(preferred: int) -> int:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", preferred))
        except OSError:
            probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_web(room: Room) -> None:
    """The pages and the websocket relay: `tablectl web`, a process of its own (never the tables'),
    in front of the room's broker. Like the broker it ignores the terminal's Ctrl-C: the room
    stops it after the tables, so that the pages show them going offline."""
    assert room.broker is not None
    port = _free_port(WEB_PORT)
    argv = [sys.executable, "-m", "tablectl.cli", "web", "--listen", f"127.0.0.1:{port}"]
    argv += ["--broker", f"{room.broker.host}:{room.broker.port}"]
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        web = room.web = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
    output = web.stdout
    assert output is not None
    seen: list[str] = []
    for line in output:  # the server prints its address once it listens
        seen.append(line)
        if line.startswith("tablectl web:"):
            break
    else:
        raise RuntimeError("tablectl web did not start:\n" + "".join(seen[-20:]))
    threading.Thread(target=lambda: [None for _ in output], daemon=True).start()  # keep it drained
    room.web_url = f"http://127.0.0.1:{port}"


def stop_web(room: Room) -> None:
    web, room.web, room.web_url = room.web, None, None
    if web is not None and web.poll() is None:
        web.send_signal(signal.SIGTERM)
        try:
            web.wait(10)
        except subprocess.TimeoutExpired:
            web.kill()
            web.wait(10)


@dataclass
class RoomTable:
    plan: TablePlan
    folder: Path
    process: subprocess.Popen[bytes]
    log: IO[bytes]

    @property
    def name(self) -> str:
        return self.plan.config.table


@dataclass
class Room:
    """``tables`` tables and their broker; :meth:`start`, then :meth:`stop` (idempotent)."""

    tables: int = 6
    pace: float = 1.0
    fast: bool = False
    seed: int = 0
    irregular_every: int = 4
    hands: int | None = None  # at each table, then it stops (None: until stopped)
    profile: str = "tda"
    out: Out = print
    data: Path | None = field(default_factory=shared_data_dir)
    folder: Path | None = None
    broker: LocalBroker | None = None
    running: list[RoomTable] = field(default_factory=list)
    log: RoomLog | None = None
    serve_pages: bool = True  # start `tablectl web` in front of the broker
    web: subprocess.Popen[str] | None = None
    web_url: str | None = None

    def start(self) -> Room:
        self.folder = Path(tempfile.mkdtemp(prefix="tablectl-demo-"))
        plans = plan_tables(self.tables, self.data, self.profile)
        names = tuple(p.config.table for p in plans)
        self.broker = LocalBroker(room=ROOM, tables=names, folder=self.folder / "broker")
        # The broker ignores the terminal's Ctrl-C (it inherits SIGINT blocked): the room stops it
        # last, once every table has said it is offline.
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            self.broker.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        self.log = RoomLog(self.broker, self.out).start()
        for plan in plans:
            self.running.append(self._start_table(plan))
        if self.serve_pages:
            start_web(self)
        return self

    def _start_table(self, plan: TablePlan) -> RoomTable:
        assert self.folder is not None and self.broker is not None and self.broker.credentials
        config = plan.config
        folder = self.folder / f"table-{config.table}"
        folder.mkdir()
        (folder / "table.toml").write_text(table_file_text(config, folder, self.fast))
        registry = DeckRegistry()
        registry.add_deck(Deck(SIM_DECK, "red", {tag_id(SIM_DECK, c): c for c in range(52)}), active=True)
        save_registry(registry, folder / "decks.json")
        user, password = self.broker.credentials.user("table", config.table)
        (folder / "mqtt-password").write_text(password + "\n")
        os.chmod(folder / "mqtt-password", 0o600)
        argv = [
            sys.executable, "-m", "tablectl.sim.room_table",
            "--config", str(folder / "table.toml"),
            "--journal", str(folder / "table.journal"),
            "--mqtt-host", self.broker.host,
            "--mqtt-port", str(self.broker.port),
            "--mqtt-user", user,
            "--mqtt-password-file", str(folder / "mqtt-password"),
            "--pace", str(0.0 if self.fast else self.pace),
            "--offset", str(plan.offset),
            "--irregular-every", str(self.irregular_every),
            "--irregular-offset", str(int(config.table) - 1),
            "--seed", str(self.seed + int(config.table)),
        ]  # fmt: skip
        if self.hands is not None:
            argv += ["--hands", str(self.hands)]
        for source in plan.sources:
            argv += ["--hands-from", str(source)]
        log = open(folder / "table.log", "ab")  # noqa: SIM115 - closed in stop()
        # Its own session: the terminal's Ctrl-C reaches the room only, which stops the tables in
        # order. Its stdin is a pipe from the room: closed however the room ends, it stops the table.
        process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        return RoomTable(plan, folder, process, log)

    @property
    def pids(self) -> list[int]:
        return [t.process.pid for t in self.running]

    def banner(self) -> list[str]:
        assert self.broker is not None
        lines = [
            f"A card room of {len(self.running)} tables, each its own tablectl process with its own "
            f"journal, dealing real hands through the controller.",
            f"Broker: mqtt://{self.broker.host}:{self.broker.port} (shipped configuration and ACL; "
            f"users and passwords in {self.broker.folder}/credentials)",
        ]
        for table in self.running:
            c = table.plan.config
            what = table.plan.sources[0].name if table.plan.sources else "random hands"
            ante = c.ante or c.big_blind_ante
            game = f"{c.game} {stakes_text(c.game, c.blinds, c.small_bet, c.big_bet, ante, c.bring_in)}"
            if c.rotation is not None:  # HO-13
                game = f"mixed games, {c.rotation.title} ({', '.join(g.stakes for g in c.rotation.games)})"
                what = "random hands"
            lines.append(f"  table {c.table}: {game} from {what}: cardroom/{ROOM}/table/{c.table}/#")
        lines.append(f"Each table's journal and log: {self.folder}/table-<n>/ (removed when the room stops)")
        lines += [f"Open {address}" for address in page_addresses(self)]
        lines.append("Ctrl-C stops the room.")
        return lines

    def stop(self) -> None:
        for table in self.running:
            if table.process.poll() is None:
                table.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT
        for table in self.running:
            try:
                table.process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.out(f"table {table.name} did not stop within {STOP_TIMEOUT:.0f} s: killed")
                table.process.kill()
                table.process.wait(10)
            if table.process.stdin is not None:
                with contextlib.suppress(OSError):
                    table.process.stdin.close()
            table.log.close()
        stop_web(self)
        if self.log is not None:
            self.log.stop()
            self.log = None
        if self.broker is not None:
            self.broker.stop()
            self.broker = None
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def stopped_tables(self) -> list[str]:
        return [t.name for t in self.running if t.process.poll() is not None]


class RoomLog:
    """What the floor sees, one line each: tables coming and going, rulings, hands ended. Logged in
    as the floor dashboard (read-only, the whole room)."""

    def __init__(self, broker: LocalBroker, out: Out) -> None:
        assert broker.credentials is not None
        self.broker, self.out = broker, out
        self.seats: dict[str, dict[str, tuple[str, int]]] = {}  # table -> seat -> (name, stack)
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="tablectl-demo-room-log")
        self.client.username_pw_set(*broker.credentials.user("floor"))
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self._lock = threading.Lock()

    def start(self) -> RoomLog:
        self.client.connect(self.broker.host, self.broker.port)
        self.client.loop_start()
        return self

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        prefix = f"cardroom/{ROOM}/table/+/"
        client.subscribe([(prefix + topic, 1) for topic in ("status", "public", "events", "alerts")])

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            payload = json.loads(message.payload)
        except ValueError:
            return
        if not isinstance(payload, dict):
            return
        table = message.topic.split("/")[3]
        with self._lock:
            for line in self.lines(table, message.topic.rsplit("/", 1)[-1], payload):
                self.out(f"{time.strftime('%H:%M:%S')} table {table:>2}  {line}")

    def lines(self, table: str, topic: str, payload: dict[str, Any]) -> Iterator[str]:
        if topic == "status":
            yield f"{payload.get('state')} ({payload.get('reason')})"
        elif topic == "public" and payload.get("state", {}).get("hand") is None:
            seats = payload.get("state", {}).get("seats", [])
            self.seats[table] = {str(s["seat"]): (s["name"], s["stack"]) for s in seats if s.get("name")}
        elif payload.get("kind") == "ruling":
            ruling = payload.get("ruling", {})
            if ruling.get("severity") == "info" and ruling.get("rule") in SEATING_RULES:
                return
            severity = str(ruling.get("severity", "")).upper()
            hand = payload.get("hand")
            when = f"hand {hand}" if hand else "between hands"
            yield f"{when}: {severity} {ruling.get('rule')}: {ruling.get('text')}"
        elif payload.get("kind") == "hand_ended":
            yield self._ended(table, payload.get("hand_ended", {}))

    def _ended(self, table: str, ended: dict[str, Any]) -> str:
        hand = ended.get("hand")
        if ended.get("misdeal"):
            return f"hand {hand}: misdeal, dealt again"
        if ended.get("voided"):
            return f"hand {hand}: void, every chip returned"
        before = self.seats.get(table, {})
        gains = [
            (stack - before[seat][1], before[seat][0])
            for seat, stack in ended.get("stacks", {}).items()
            if seat in before
        ]
        won = [g for g in gains if g[0] > 0]
        if not won:
            return f"hand {hand} ended"
        return f"hand {hand} ended: " + ", ".join(
            f"{name} wins {gain:,}" for gain, name in sorted(won, reverse=True)
        )


def run_room(room: Room) -> int:
    """Run ``room`` until Ctrl-C or SIGTERM (or every table has stopped); 0 once all is stopped."""
    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        room.start()
        for line in room.banner():
            room.out(line)
        while not stop.wait(0.5):  # bounded: the handler runs only when the main thread does
            if len(room.stopped_tables()) == len(room.running):
                room.out("Every table has stopped.")
                break
        room.out("Stopping the room: the tables first, then the broker.")
    finally:
        room.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    room.out("Stopped.")
    return 0
