"""A table's configuration file (TOML): the game, the shoe, the decks, the dealer's panel, the
cameras and the zones they watch.

``deploy/table.example.toml`` documents every key. :func:`load_table_config` reads a file
and returns a :class:`TableFile` (its parts are the devices' own configurations, e.g. the
panel's :class:`~tablectl.adapters.panel.PanelConfig`); anything wrong raises
:class:`ConfigFileError`, whose message is for the operator at the Pi: the file, the line
where it can be found, the key, what is wrong and how to fix it::

    table.toml:31: panel.pins.fold: pin 17 is used twice (also panel.pins.check_call);
    give each button, LED and the buzzer its own GPIO pin

Pins are BCM GPIO numbers (the ``GPIO17`` on a Pi pinout, not the header's pin 11).
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_bridge.link import DEFAULT_PORT
from tablectl.adapters.decks import DeckError, DeckRegistry, deck_order, load_registry
from tablectl.adapters.mqtt.topics import PublisherError, Topics
from tablectl.adapters.panel import BUTTON_KEYS, PanelConfig
from tablectl.core.cards import Card
from tablectl.core.table import TableConfig, TableConfigError
from tablectl.core.table.rotation import GAME_KEYS, Rotation, RotationError, amount_step
from vision.zones import (
    DEFAULT_AGREE_FRAMES,
    DEFAULT_RELEASE_FRAMES,
    SEAT_ZONE,
    CameraConfig,
    CameraSource,
    TablePlane,
    VisionConfig,
    ZoneArea,
    polygon_area,
    polygon_is_convex,
    polygon_is_simple,
    rectangle,
)

REQUIRED_BUTTONS = ("fold", "bet", "all_in", "confirm", "new_hand", "misdeal", "exposed")
AMOUNT_PINS = ("encoder_a", "encoder_b", "plus", "minus")
OTHER_PINS = ("buzzer", "seat_leds")
GPIO_PINS = range(2, 28)  # BCM 2..27; 0 and 1 are the HAT ID EEPROM's
UART_PORTS = ("/dev/serial0", "/dev/ttyAMA0", "/dev/ttyS0")
UART_PINS = {14: "TX", 15: "RX"}
BAUDRATES = (9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600, 1000000)

SECTIONS = ("table", "shoe", "decks", "panel", "vision", "cameras", "rotation")
SHOE_KEYS = ("port", "baudrate")
DECKS_KEYS = ("registry", "enrol_order", "start_without_decks")
PANEL_KEYS = ("pins", "debounce", "hold_time", "hold_buttons", "amount_step", "pull_up")
VISION_KEYS = ("backs", "agree_frames", "release_frames")
CAMERA_KEYS = ("source", "size", "zones", "plane", "plane_mm")
ZONE_NAMES = ("shoe", "board", "burn", "muck", "seat1", "seat2", "...")
CAMERA_NAME = re.compile(r"[a-z][a-z0-9_-]{0,15}")
FRAME_SIDES = range(16, 8193)  # pixels
TABLE_KEYS = tuple(f.name for f in dataclasses.fields(TableConfig) if f.name != "rotation")
ROTATION_KEYS = ("name", "change", "orbits", "games")
# The single game's keys of [table], which a [rotation] replaces with each game's own.
SINGLE_GAME_KEYS = (
    "game", "blinds", "ante", "big_blind_ante", "small_bet", "big_bet", "bring_in", "spread_max",
)  # fmt: skip
AMOUNT_KEYS = ("ante", "big_blind_ante", "small_bet", "big_bet", "bring_in", "spread_max")  # chips, 0 = none
REQUIRED_TABLE_KEYS = ("room", "table")

DEFAULT_REGISTRY = "/var/lib/tablectl/decks.json"


class ConfigFileError(ValueError):
    """A table config file that cannot be used; the message names file, line, key and fix."""

    def __init__(self, file: str, key: str | None, message: str, line: int | None = None) -> None:
        self.file = file
        self.key = key
        self.line = line
        where = file if line is None else f"{file}:{line}"
        super().__init__(f"{where}: {key}: {message}" if key else f"{where}: {message}")


@dataclass(frozen=True, slots=True)
class ShoeConfig:
    port: str = DEFAULT_PORT  # the stable name deploy/99-tablectl-shoe.rules gives the shoe
    baudrate: int = 115200

    @property
    def uses_uart(self) -> bool:
        """The shoe is on the Pi's own UART (GPIO 14 and 15), not on USB."""
        return self.port in UART_PORTS


@dataclass(frozen=True, slots=True)
class DecksConfig:
    registry: Path = Path(DEFAULT_REGISTRY)
    enrol_order: tuple[Card, ...] = deck_order("us")
    start_without_decks: bool = False  # start even with no deck to deal from (every card foreign)


@dataclass(frozen=True, slots=True)
class TableFile:
    """Everything a table's config file says."""

    path: str
    table: TableConfig
    shoe: ShoeConfig
    decks: DecksConfig
    panel: PanelConfig | None  # None: a table without a button panel (a bench, a touch screen)
    key_lines: Mapping[str, int] = field(default_factory=dict)  # where each key is written
    vision: VisionConfig | None = None  # None: no camera watches this table

    def error(self, key: str, message: str) -> ConfigFileError:
        """An error about ``key`` of this file, found after it was read (e.g. at start-up)."""
        return ConfigFileError(self.path, key, message, _line_of(self.key_lines, key))

    def load_registry(self) -> DeckRegistry:
        """The deck registry the table deals from, read at start-up (the file may be written
        by an enrolment after the config was). A table with no deck to deal from would find
        every card foreign (IRR-1) and void every hand: refused, unless start_without_decks."""
        path = self.decks.registry
        exists = path.is_file()
        registry = load_registry(path) if exists else DeckRegistry()
        if registry.active is not None or self.decks.start_without_decks:
            return registry
        what = "has no active deck" if exists else "does not exist"
        raise self.error(
            "decks.registry",
            f"the deck registry {path} {what}: the table would have no deck to deal from, every "
            f"card would be foreign (IRR-1) and every hand void. Enrol the table's decks into "
            f"that file first (docs/operating.md, Decks), correct decks.registry, or write "
            f"start_without_decks = true under [decks] to start without decks",
        )


def load_table_config(path: str | os.PathLike[str]) -> TableFile:
    """Read a table's config file; relative paths in it are relative to its directory."""
    name = os.fspath(path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        raise ConfigFileError(
            name, None, "no such file: copy deploy/table.example.toml there and edit it"
        ) from None
    except OSError as exc:
        raise ConfigFileError(name, None, f"cannot read it: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigFileError(name, None, f"not UTF-8 text (byte {exc.start}): save it as UTF-8") from None
    return parse_table_config(text, name, Path(path).parent)


def parse_table_config(text: str, name: str = "table.toml", base: Path | None = None) -> TableFile:
    """Read a config file's text; ``name`` is used in messages, ``base`` for relative paths."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        match = re.search(r"\(at line (\d+), column (\d+)\)", message)
        line = int(match.group(1)) if match else None
        detail = message[: match.start()].strip() if match else message
        column = f", column {match.group(2)}" if match else ""
        raise ConfigFileError(
            name,
            None,
            f"not valid TOML{column}: {detail}; write keys as key = value, text in quotes",
            line,
        ) from None
    return _Reader(text, name, base or Path(".")).read(data)


class _Reader:
    def __init__(self, text: str, name: str, base: Path) -> None:
        self.lines = _key_lines(text)
        self.name = name
        self.base = base

    def error(self, key: str, message: str) -> ConfigFileError:
        return ConfigFileError(self.name, key, message, self.line_of(key))

    def line_of(self, key: str) -> int | None:
        return _line_of(self.lines, key)

    def unknown(self, section: str, data: Mapping[str, Any], valid: tuple[str, ...], what: str) -> None:
        for key in data:
            if key not in valid:
                close = difflib.get_close_matches(key, valid, n=1)
                hint = f"did you mean {close[0]}? " if close else ""
                full = f"{section}.{key}" if section else key
                raise self.error(full, f"unknown {what}; {hint}valid: {', '.join(valid)}")

    def section(self, data: Mapping[str, Any], key: str, full: str | None = None) -> dict[str, Any]:
        full = full or key
        value = data.get(key, {})
        if not isinstance(value, dict):
            raise self.error(full, f"expected a section: write [{full}] on a line of its own, then its keys")
        return value

    def read(self, data: dict[str, Any]) -> TableFile:
        self.unknown("", data, SECTIONS, "section")
        if "table" not in data:
            raise ConfigFileError(
                self.name,
                "table",
                "the [table] section is missing: add it with room, table, seats and game "
                "(see deploy/table.example.toml)",
            )
        table = self.table(self.section(data, "table"))
        if "rotation" in data:
            table = self.rotation(self.section(data, "rotation"), table, data["table"])
        shoe = self.shoe(self.section(data, "shoe"))
        decks = self.decks(self.section(data, "decks"))
        panel = self.panel(self.section(data, "panel"), table, shoe) if "panel" in data else None
        vision = self.vision(self.section(data, "vision"), self.section(data, "cameras"), table)
        return TableFile(self.name, table, shoe, decks, panel, dict(self.lines), vision)

    # -- [table] --------------------------------------------------------------------------

    def table(self, data: dict[str, Any]) -> TableConfig:
        self.unknown("table", data, TABLE_KEYS, "key")
        for key in REQUIRED_TABLE_KEYS:
            if key not in data:
                example = {"room": 'room = "main"', "table": 'table = "12"'}[key]
                raise self.error(
                    f"table.{key}",
                    f"missing: name the {key} as the floor and the displays know it, e.g. {example}",
                )
        for key in ("room", "table", "game", "profile"):
            if key in data and not isinstance(data[key], str):
                raise self.error(
                    f"table.{key}", f'expected text in quotes, got {data[key]!r}: write {key} = "{data[key]}"'
                )
        if "blinds" in data:
            blinds = data["blinds"]
            if not isinstance(blinds, list) or any(
                isinstance(b, bool) or not isinstance(b, int) for b in blinds
            ):
                raise self.error(
                    "table.blinds", f"expected a list of whole chips, e.g. blinds = [50, 100], got {blinds!r}"
                )
        for key in ("room", "table"):
            if key in data:
                try:
                    Topics(room=data[key], table=data[key])  # one name, checked by the topics' own rule
                except PublisherError:
                    raise self.error(
                        f"table.{key}",
                        f"{data[key]!r} cannot be an MQTT topic level (cardroom/<room>/table/<table>/...): "
                        f"use 1 to 32 letters, digits, '_' or '-', the name given to "
                        f'deploy/mosquitto/mkusers, e.g. {key} = "{"main" if key == "room" else "12"}"',
                    ) from None
        try:
            config = TableConfig.from_json(data)
        except TableConfigError as exc:
            message = str(exc)
            match = re.match(r"([a-z_]+)(?:[/,][^:]*)?: (.*)", message, re.DOTALL)
            if match:
                key, rest = match.groups()
                raise self.error(f"table.{key}", rest) from None
            raise self.error("table", message) from None
        stud = not config.has_button
        if stud and "blinds" in data:
            # TableConfig keeps its default blinds at a stud table, unused: written, they would be
            # a promise the deal does not keep (a rotation's stud game refuses them the same way).
            raise self.error(
                "table.blinds",
                f"{config.game} is a stud game: no blinds, an ante and a bring-in instead; "
                "remove blinds (STUD-5)",
            )
        self.stakes(config, stud)
        return config

    def stakes(self, config: TableConfig, stud: bool) -> None:
        """What TableConfig lets through but no hand could be dealt with (or not as meant)."""
        unit = config.chip_unit
        if unit < 1:
            raise self.error(
                "table.chip_unit",
                f"{unit} is not a chip: give the smallest chip in play, 1 or more, e.g. chip_unit = 1",
            )
        for key in AMOUNT_KEYS:
            if getattr(config, key) < 0:
                raise self.error(f"table.{key}", f"{getattr(config, key)} chips: give 0 (none) or more")
        blinds = config.blinds
        if any(later < earlier for earlier, later in zip(blinds, blinds[1:], strict=False)):
            raise self.error(
                "table.blinds",
                f"{list(blinds)}: the small blind comes first, e.g. blinds = {sorted(blinds)}",
            )
        if config.ante and config.big_blind_ante:
            raise self.error(
                "table.big_blind_ante" if self.line_of("table.big_blind_ante") else "table.ante",
                f"both an ante ({config.ante}) and a big-blind ante ({config.big_blind_ante}): a table "
                f"has one or the other; set ante = 0 or big_blind_ante = 0",
            )
        if self.line_of("rotation") is None:  # each game of a rotation has its own, checked with it
            where = self.line_of("table.chip_unit")
            unit_text = f"chip_unit = {unit}{f', line {where}' if where else ''}"
            posted = AMOUNT_KEYS if stud else ("blinds", *AMOUNT_KEYS)
            self.whole_chips(config, posted, "table", unit, unit_text)

    def whole_chips(self, stakes: Any, keys: tuple[str, ...], prefix: str, unit: int, unit_text: str) -> None:
        """Every amount of ``stakes`` (a [table] or one game of its rotation) a multiple of ``unit``."""
        for key in keys:
            value = getattr(stakes, key)
            odd = [a for a in (value if isinstance(value, tuple) else (value,)) if a % unit]
            if odd:
                raise self.error(
                    f"{prefix}.{key}",
                    f"{odd[0]} is not a whole number of the smallest chip ({unit_text}): make every "
                    f"amount a multiple of {unit}, or lower chip_unit",
                )

    # -- [rotation] and [[rotation.games]] --------------------------------------------------

    def rotation(self, data: dict[str, Any], table: TableConfig, written: dict[str, Any]) -> TableConfig:
        """Mixed games (HO-13): the games in order, each with its stakes, and when they change."""
        self.unknown("rotation", data, ROTATION_KEYS, "key")
        for key in SINGLE_GAME_KEYS:
            if key in written:
                raise self.error(
                    f"table.{key}",
                    f"the table plays the games of its [rotation] (line {self.line_of('rotation')}), "
                    f"each at its own stakes: remove {key} from [table] and give it under the game's "
                    "[[rotation.games]]",
                )
        games = data.get("games")
        if not isinstance(games, list) or not games or not all(isinstance(g, dict) for g in games):
            raise self.error(
                "rotation.games",
                "missing: give each game in the order played as a [[rotation.games]] section with "
                'its game and stakes, e.g. game = "PO" and blinds = [50, 100]',
            )
        for number, game in enumerate(games, start=1):
            self.unknown(f"rotation.games[{number}]", game, GAME_KEYS, "key")
        try:
            rotation = Rotation.from_json(data)
            config = dataclasses.replace(table, rotation=rotation)
        except (RotationError, TableConfigError) as exc:
            message = str(exc).removeprefix("rotation: ")
            match = re.match(r"([a-z_]+(?:\[\d+\]\.[a-z_]+)?)(?:, [a-z_]+)*: (.*)", message, re.DOTALL)
            if match:
                key, rest = match.groups()
                raise self.error(f"rotation.{key}", rest) from None
            raise self.error("rotation", message) from None
        unit = config.chip_unit
        for number, game in enumerate(rotation.games, start=1):
            where = f"rotation.games[{number}]"
            self.whole_chips(game, GAME_KEYS[1:], where, unit, f"table.chip_unit = {unit}")
        return config

    # -- [shoe] ---------------------------------------------------------------------------

    def shoe(self, data: dict[str, Any]) -> ShoeConfig:
        self.unknown("shoe", data, SHOE_KEYS, "key")
        port = data.get("port", DEFAULT_PORT)
        if not isinstance(port, str) or not port:
            raise self.error(
                "shoe.port", f'expected the serial device in quotes, e.g. port = "{DEFAULT_PORT}"'
            )
        baudrate = data.get("baudrate", 115200)
        if isinstance(baudrate, bool) or not isinstance(baudrate, int) or baudrate not in BAUDRATES:
            raise self.error(
                "shoe.baudrate",
                f"{baudrate!r} is not a baud rate the shoe speaks; use the firmware's, one of "
                f"{', '.join(map(str, BAUDRATES))} (usually 115200)",
            )
        return ShoeConfig(port, baudrate)

    # -- [decks] --------------------------------------------------------------------------

    def decks(self, data: dict[str, Any]) -> DecksConfig:
        self.unknown("decks", data, DECKS_KEYS, "key")
        registry = data.get("registry", DEFAULT_REGISTRY)
        if not isinstance(registry, str) or not registry.strip():
            raise self.error(
                "decks.registry", f'expected a file path in quotes, e.g. registry = "{DEFAULT_REGISTRY}"'
            )
        path = Path(registry).expanduser()
        if not path.is_absolute():
            path = self.base / path
        order_text = data.get("enrol_order", "us")
        if not isinstance(order_text, str):
            raise self.error("decks.enrol_order", 'expected text in quotes, e.g. enrol_order = "us"')
        try:
            order = deck_order(order_text)
        except DeckError as exc:
            raise self.error("decks.enrol_order", str(exc)) from None
        without = data.get("start_without_decks", False)
        if not isinstance(without, bool):
            raise self.error(
                "decks.start_without_decks",
                "expected true (start even with no deck enrolled: every card foreign) or false",
            )
        return DecksConfig(path, order, without)

    # -- [panel] --------------------------------------------------------------------------

    def panel(self, data: dict[str, Any], table: TableConfig, shoe: ShoeConfig) -> PanelConfig:
        self.unknown("panel", data, PANEL_KEYS, "key")
        if "pins" not in data:
            raise self.error("panel.pins", "missing: add a [panel.pins] section with each button's GPIO pin")
        pins = _Pins(self, self.section(data, "pins", "panel.pins"), table, shoe)
        debounce = self.seconds(data, "debounce", 0.02, 0.001, 0.2, "contacts settle within 5 to 50 ms")
        hold_time = self.seconds(data, "hold_time", 1.5, 0.3, 10.0, "long enough not to happen by accident")
        hold = data.get("hold_buttons", ["misdeal", "new_hand"])
        if not isinstance(hold, list) or not all(isinstance(h, str) for h in hold):
            raise self.error(
                "panel.hold_buttons", 'expected a list of button names, e.g. ["misdeal", "new_hand"]'
            )
        for button in hold:
            if button not in pins.buttons:
                raise self.error(
                    "panel.hold_buttons",
                    f"{button!r} is not a button of this panel; buttons: {', '.join(pins.buttons)}",
                )
        smallest = amount_step(table)
        step = data.get("amount_step", smallest)
        if isinstance(step, bool) or not isinstance(step, int) or step <= 0:
            raise self.error(
                "panel.amount_step",
                f"expected whole chips > 0 per step, e.g. amount_step = {smallest}",
            )
        pull_up = data.get("pull_up", True)
        if not isinstance(pull_up, bool):
            raise self.error("panel.pull_up", "expected true (buttons switch to ground) or false (to 3.3 V)")
        return PanelConfig(
            buttons=pins.buttons,
            seat_leds=pins.seat_leds,
            encoder=pins.encoder,
            plus_minus=pins.plus_minus,
            buzzer=pins.buzzer,
            pull_up=pull_up,
            debounce=debounce,
            hold_time=hold_time,
            hold_buttons=frozenset(hold),
            amount_step=step,
        )

    def seconds(
        self, data: dict[str, Any], key: str, default: float, low: float, high: float, why: str
    ) -> float:
        value = data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise self.error(f"panel.{key}", f"expected seconds, e.g. {key} = {default}")
        if not low <= value <= high:
            raise self.error(f"panel.{key}", f"{value} s is out of range: give {low} to {high} s ({why})")
        return float(value)

    # -- [vision] and [cameras.<name>] ---------------------------------------------------------

    def vision(
        self, data: dict[str, Any], cameras: dict[str, Any], table: TableConfig
    ) -> VisionConfig | None:
        self.unknown("vision", data, VISION_KEYS, "key")
        if data and not cameras:
            raise self.error(
                "vision",
                "no camera is configured: add a [cameras.<name>] section with its source, size and "
                "zones (see deploy/table.example.toml), or remove [vision]",
            )
        if not cameras:
            return None
        backs = None
        if "backs" in data:
            value = data["backs"]
            if not isinstance(value, str) or not value.strip():
                raise self.error(
                    "vision.backs",
                    'expected a file path in quotes, e.g. backs = "/var/lib/tablectl/backs.json" '
                    "(written by tablectl vision calibrate)",
                )
            backs = self.path(value)
        agree = self.count(data, "agree_frames", DEFAULT_AGREE_FRAMES, 2, 30, "frames that must agree")
        release = self.count(data, "release_frames", DEFAULT_RELEASE_FRAMES, 1, 300, "frames without it")
        seen: dict[str, str] = {}  # zone name -> the camera that watches it
        configured = []
        for name, section in cameras.items():
            full = f"cameras.{name}"
            if not isinstance(section, dict):
                raise self.error(
                    full, f"expected a section: write [cameras.{name}] on a line of its own, then its keys"
                )
            if not CAMERA_NAME.fullmatch(name):
                raise self.error(
                    full,
                    f"{name!r} cannot name a camera: use 1 to 16 lower-case letters, digits, '_' or '-', "
                    "starting with a letter, e.g. [cameras.mouth]",
                )
            configured.append(self.camera(name, section, table, seen))
        return VisionConfig(tuple(configured), backs, agree, release)

    def camera(
        self, name: str, data: dict[str, Any], table: TableConfig, seen: dict[str, str]
    ) -> CameraConfig:
        full = f"cameras.{name}"
        self.unknown(full, data, CAMERA_KEYS, "key")
        for key in ("source", "size", "zones"):
            if key not in data:
                example = {
                    "source": 'source = "/dev/video0" (or 0, "picamera", a video file, a folder of images)',
                    "size": "size = [640, 480]",
                    "zones": f"a [cameras.{name}.zones] section, e.g. shoe = [200, 140, 240, 200]",
                }[key]
                raise self.error(f"{full}.{key}", f"missing: give the camera's {key}, e.g. {example}")
        source = self.source(f"{full}.source", data["source"])
        size = data["size"]
        if (
            not isinstance(size, list)
            or len(size) != 2
            or any(isinstance(v, bool) or not isinstance(v, int) or v not in FRAME_SIDES for v in size)
        ):
            raise self.error(
                f"{full}.size",
                f"expected the frame's [width, height] in pixels, 16 to 8192 each, e.g. size = [640, 480], "
                f"got {size!r}",
            )
        width, height = size
        zones_data = data["zones"]
        if not isinstance(zones_data, dict):
            raise self.error(
                f"{full}.zones",
                f"expected a section: write [cameras.{name}.zones] on a line of its own, then one zone "
                "a line, e.g. board = [100, 80, 400, 120]",
            )
        if not zones_data:
            raise self.error(
                f"{full}.zones",
                "no zone: give at least one (shoe, board, burn, muck, seat1 ...) or remove the camera",
            )
        zones = []
        for zone_name, value in zones_data.items():
            key = f"{full}.zones.{zone_name}"
            self.zone_name(key, zone_name, table)
            if zone_name in seen:
                other = f"cameras.{seen[zone_name]}.zones.{zone_name}"
                where = self.line_of(other)
                raise self.error(
                    key,
                    f"the {zone_name} zone is already watched by camera {seen[zone_name]} "
                    f"({other}{f', line {where}' if where else ''}): each zone is watched by one "
                    "camera, so that a card is reported once; remove one of them",
                )
            seen[zone_name] = name
            zones.append(ZoneArea(zone_name, self.zone_points(key, value, width, height, f"{full}.size")))
        camera = CameraConfig(name, source, (width, height), tuple(zones))
        return dataclasses.replace(camera, plane=self.plane(full, data, camera))

    def plane(self, full: str, data: dict[str, Any], camera: CameraConfig) -> TablePlane | None:
        """The camera's table plane (vision/view.py), checked: four corners in the frame, clockwise,
        a rectangle's size, and a view from above that holds the camera's zones."""
        from vision.view import View, ViewError

        if "plane" not in data and "plane_mm" not in data:
            return None
        example = (
            "plane = [[120, 300], [520, 300], [600, 460], [40, 460]] with plane_mm = [297, 210]: the "
            "corners of a sheet of A4 paper laid flat on the cloth, as the frame shows them, clockwise "
            "from the top left, and the sheet's sides in mm (the first from corner 1 to 2)"
        )
        for key in ("plane", "plane_mm"):
            if key not in data:
                raise self.error(
                    f"{full}.{key}", f"missing: a plane needs both plane and plane_mm, e.g. {example}"
                )
        width, height = camera.size
        corners = self.zone_points(f"{full}.plane", data["plane"], width, height, f"{full}.size")
        if len(corners) != 4 or not all(isinstance(p, list) for p in data["plane"]):
            raise self.error(
                f"{full}.plane", f"expected four [x, y] corners, got {data['plane']!r}: e.g. {example}"
            )
        if polygon_area(corners) <= 0 or not polygon_is_convex(corners):
            raise self.error(
                f"{full}.plane",
                "the corners must go clockwise round the rectangle as the frame shows it (a "
                f"rectangle seen at a slant is convex): e.g. {example}",
            )
        size = data["plane_mm"]
        if (
            not isinstance(size, list)
            or len(size) != 2
            or any(
                isinstance(v, bool) or not isinstance(v, (int, float)) or not 10 <= v <= 10_000 for v in size
            )
        ):
            raise self.error(
                f"{full}.plane_mm",
                f"expected the rectangle's two sides in mm, 10 to 10000 each, got {size!r}: e.g. {example}",
            )
        plane = TablePlane(corners, (float(size[0]), float(size[1])))
        try:
            View.of(plane, camera.size, camera.zones)
        except ViewError as error:
            raise self.error(f"{full}.plane", str(error)) from None
        return plane

    def source(self, key: str, value: Any) -> CameraSource:
        fix = (
            'give a camera device\'s number (source = 0) or path (source = "/dev/video0"), '
            'source = "picamera" (or "picamera:1", the Pi\'s second camera port), a video file or '
            "a folder of images"
        )
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise self.error(key, f"expected a camera source, got {value!r}: {fix}")
        if isinstance(value, int):
            if not 0 <= value <= 63:
                raise self.error(key, f"{value} is not a camera number (/dev/video0 to /dev/video63): {fix}")
            return CameraSource("device", device=value)
        text = value.strip()
        if not text:
            raise self.error(key, f"empty: {fix}")
        picamera = re.fullmatch(r"picamera(?::([0-9]))?", text)
        if picamera:
            return CameraSource("picamera", device=int(picamera.group(1) or 0))
        if text.startswith("/dev/"):
            return CameraSource("device", device=text)  # may be plugged in later: not checked here
        path = self.path(text)
        if path.is_dir():
            return CameraSource("images", path=path)
        if path.is_file():
            return CameraSource("video", path=path)
        raise self.error(key, f"{path} is neither a video file nor a folder of images: {fix}")

    def zone_name(self, key: str, name: str, table: TableConfig) -> None:
        seat = SEAT_ZONE.fullmatch(name)
        if seat:
            if int(seat.group(1)) > table.seats:
                raise self.error(
                    key,
                    f"the table has {table.seats} seats (table.seats): give seat1 to seat{table.seats}",
                )
            return
        if name not in ("shoe", "board", "burn", "muck"):
            valid = ("shoe", "board", "burn", "muck", *(f"seat{n}" for n in range(1, table.seats + 1)))
            close = difflib.get_close_matches(name, valid, n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            raise self.error(
                key,
                f"unknown zone; {hint}a zone is shoe (the shoe's mouth), board, burn, muck or "
                f"seat1 to seat{table.seats}",
            )

    def zone_points(
        self, key: str, value: Any, width: int, height: int, size_key: str
    ) -> tuple[tuple[float, float], ...]:
        shape = (
            "expected [x, y, width, height] in pixels of this camera's frame (x, y: its top left corner), "
            "or a polygon as a list of three or more [x, y] points"
        )

        def number(v: Any) -> bool:
            return not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v)

        if isinstance(value, list) and len(value) == 4 and all(number(v) for v in value):
            x, y, w, h = (float(v) for v in value)
            if w <= 0 or h <= 0:
                raise self.error(key, f"{value!r}: the width and height must be more than 0; {shape}")
            points = rectangle(x, y, w, h)
        elif (
            isinstance(value, list)
            and len(value) >= 3
            and all(isinstance(p, list) and len(p) == 2 and all(number(v) for v in p) for p in value)
        ):
            points = tuple((float(p[0]), float(p[1])) for p in value)
            if abs(polygon_area(points)) < 1.0 or not polygon_is_simple(points):
                raise self.error(
                    key, f"{value!r} encloses no area or crosses itself: give its corners in order around it"
                )
        else:
            raise self.error(key, f"{shape}; got {value!r}")
        for px, py in points:
            if not (0 <= px <= width and 0 <= py <= height):
                where = self.line_of(size_key)
                raise self.error(
                    key,
                    f"the point ({px:g}, {py:g}) is outside the camera's {width}x{height} frame "
                    f"({size_key}{f', line {where}' if where else ''}): keep x within 0 to {width} "
                    f"and y within 0 to {height} (tablectl vision calibrate draws the zones on a frame), "
                    "or correct the size",
                )
        return points

    def count(self, data: dict[str, Any], key: str, default: int, low: int, high: int, what: str) -> int:
        value = data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self.error(
                f"vision.{key}", f"expected a whole number of {what}, {low} to {high}, e.g. {key} = {default}"
            )
        return value

    def path(self, text: str) -> Path:
        path = Path(text).expanduser()
        return path if path.is_absolute() else self.base / path


class _Pins:
    """The [panel.pins] section, checked: every pin a usable GPIO, each used once."""

    def __init__(self, reader: _Reader, data: dict[str, Any], table: TableConfig, shoe: ShoeConfig) -> None:
        self.reader = reader
        self.shoe = shoe
        self.used: dict[int, list[str]] = {}
        reader.unknown("panel.pins", data, (*BUTTON_KEYS, *AMOUNT_PINS, *OTHER_PINS), "pin name")
        self.buttons = {
            name: self.pin(f"panel.pins.{name}", v) for name, v in data.items() if name in BUTTON_KEYS
        }
        self.seat_leds = self.leds(data.get("seat_leds"), table.seats)
        self.encoder = self.pair(data, "encoder_a", "encoder_b", "encoder")
        self.plus_minus = self.pair(data, "plus", "minus", "plus/minus buttons")
        self.buzzer = self.pin("panel.pins.buzzer", data["buzzer"]) if "buzzer" in data else None
        self.check_buttons()
        if self.encoder and self.plus_minus:
            raise reader.error(
                "panel.pins.plus",
                "the amount has one entry: an encoder (encoder_a, encoder_b) or plus and minus",
            )
        if not self.encoder and not self.plus_minus:
            raise reader.error(
                "panel.pins", "the bet amount needs an entry: give encoder_a and encoder_b, or plus and minus"
            )
        for number, keys in self.used.items():
            if len(keys) > 1:
                keys.sort(key=lambda k: reader.line_of(k) or math.inf)  # as they read in the file
                raise reader.error(
                    keys[0],
                    f"pin {number} is used twice (also {', '.join(keys[1:])}); "
                    "give each button, LED and the buzzer its own GPIO pin",
                )

    def pin(self, key: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.reader.error(key, f"expected a BCM GPIO number such as 17, got {value!r}")
        if value not in GPIO_PINS:
            raise self.reader.error(
                key, f"GPIO {value} is not a pin for a panel: use BCM numbers 2 to 27 (0 and 1 are reserved)"
            )
        if self.shoe.uses_uart and value in UART_PINS:
            raise self.reader.error(
                key,
                f"GPIO {value} is the UART's {UART_PINS[value]}, used by the shoe on {self.shoe.port}; "
                "choose another pin, or connect the shoe by USB",
            )
        self.used.setdefault(value, []).append(key)
        return value

    def leds(self, value: Any, seats: int) -> tuple[int, ...]:
        key = "panel.pins.seat_leds"
        if value is None:
            raise self.reader.error(key, f"missing: give one LED pin per seat, seat 1 first ({seats} in all)")
        if not isinstance(value, list):
            raise self.reader.error(
                key, "expected a list of pins, seat 1 first, e.g. seat_leds = [4, 12, 13]"
            )
        if len(value) != seats:
            raise self.reader.error(
                key, f"{len(value)} LEDs for a table of {seats} seats (table.seats): give one pin per seat"
            )
        return tuple(self.pin(f"{key}[{i}]", v) for i, v in enumerate(value, start=1))

    def pair(self, data: dict[str, Any], a: str, b: str, what: str) -> tuple[int, int] | None:
        if a not in data and b not in data:
            return None
        if a not in data or b not in data:
            given, other = (a, b) if a in data else (b, a)
            raise self.reader.error(f"panel.pins.{given}", f"{other} is missing: the {what} needs both pins")
        return self.pin(f"panel.pins.{a}", data[a]), self.pin(f"panel.pins.{b}", data[b])

    def check_buttons(self) -> None:
        buttons = self.buttons
        for name in REQUIRED_BUTTONS:
            if name not in buttons:
                raise self.reader.error(
                    f"panel.pins.{name}", f"missing: give the {name.replace('_', ' ')} button's GPIO pin"
                )
        if "check_call" in buttons and ("check" in buttons or "call" in buttons):
            raise self.reader.error(
                "panel.pins.check_call",
                "give either one check_call button or separate check and call buttons",
            )
        if "check_call" not in buttons and not ("check" in buttons and "call" in buttons):
            raise self.reader.error(
                "panel.pins.check_call", "missing: give the check/call button's pin (or both check and call)"
            )


_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_.\- ]+?)\s*\]\s*(#.*)?$")
_ARRAY_HEADER = re.compile(r"^\s*\[\[\s*([A-Za-z0-9_.\- ]+?)\s*\]\]\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-]+(?:\s*\.\s*[A-Za-z0-9_\-]+)*)\s*=")


def _line_of(lines: Mapping[str, int], key: str) -> int | None:
    """The line where ``key`` is written, else where its section starts (None: nowhere). A key
    of an array of tables names its table by number: ``rotation.games[2].small_bet``."""
    candidate = key
    while "[" in candidate:  # the key in its numbered table, else that table's header
        line = lines.get(candidate)
        if line is not None:
            return line
        candidate = candidate.rpartition(".")[0]
    key = key.split("[", 1)[0]
    while key:
        line = lines.get(key)
        if line is not None:
            return line
        key = key.rpartition(".")[0]
    return None


def _key_lines(text: str) -> dict[str, int]:
    """Where each dotted key is written (first occurrence), for messages; bare keys only."""
    lines: dict[str, int] = {}
    section = ""
    tables: dict[str, int] = {}  # arrays of tables: how many of each so far
    for number, line in enumerate(text.splitlines(), start=1):
        array = _ARRAY_HEADER.match(line)
        if array:
            name = ".".join(part.strip() for part in array.group(1).split("."))
            tables[name] = tables.get(name, 0) + 1
            section = f"{name}[{tables[name]}]"
            lines.setdefault(name, number)
            lines.setdefault(section, number)
            continue
        header = _HEADER.match(line)
        if header:
            section = ".".join(part.strip() for part in header.group(1).split("."))
            lines.setdefault(section, number)
            continue
        key = _KEY.match(line)
        if key:
            name = ".".join(part.strip() for part in key.group(1).split("."))
            full = f"{section}.{name}" if section else name
            lines.setdefault(full, number)
    return lines
