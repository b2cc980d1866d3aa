"""A throwaway mosquitto with the shipped configuration, and the users mkusers makes for it.

The tests, the ``tablectl run`` demo, ``tablectl audit`` and the benchmarks need a real broker
configured exactly as a table's is: the shipped mosquitto.conf (on free ports, in a temporary
folder), the shipped ACL, the users from deploy/mosquitto/mkusers. :class:`LocalBroker` is that
broker; :class:`Credentials` reads the users mkusers writes; :class:`BrokerAccess` says where a
client connects and as whom.

The mosquitto files have one copy, in the checkout's deploy/mosquitto/; pyproject.toml installs
deploy/ as the package ``tablectl._deploy``, so :func:`shipped_config` finds them the same way in
an editable install and in a wheel.
"""

from __future__ import annotations

import functools
import getpass
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from tablectl.adapters.mqtt.topics import SUPERVISOR, supervisor_name

ROLES = ("table", "bridge", "dealer", "public", "floor", "broadcast", "admin")
TABLE_ROLES = ("table", "bridge", "dealer", "public")  # users that belong to one table
ROOM_ROLES = ("floor", "broadcast", "admin")


def table_user(table: str) -> str:
    """The controller's broker user at ``table``, as mkusers names it: ``table.<table>``."""
    return f"table.{table}"


class BrokerError(ValueError):
    """No broker (mosquitto missing, a bad configuration) or no such user; the message says what to do."""


def shipped_config() -> Path:
    """The folder of the shipped mosquitto files (mosquitto.conf, the ACL templates, mkusers,
    bridge.conf): deploy/mosquitto, installed as package data."""
    folder = resources.files("tablectl._deploy") / "mosquitto"
    if not isinstance(folder, Path):
        # mkusers must run from a folder holding the ACL templates: a zipped install has none.
        raise BrokerError(
            f"the shipped mosquitto files are not on disk ({folder}): install tablectl unzipped, "
            f"or give LocalBroker a config_dir"
        )
    return folder


@functools.cache
def shipped_max_packet_size() -> int:
    """The largest MQTT packet, in bytes, that a broker with the shipped mosquitto.conf takes
    (its ``max_packet_size``; 0: no limit). The configuration file is the one place that says
    it: the publisher reads it from there, so the two cannot disagree."""
    conf = resources.files("tablectl._deploy") / "mosquitto" / "mosquitto.conf"
    for line in conf.read_text(encoding="utf-8").splitlines():
        words = line.split("#", 1)[0].split()
        if len(words) == 2 and words[0] == "max_packet_size" and words[1].isdigit():
            return int(words[1])
    return 0  # mosquitto's default: no limit of its own


# -- credentials ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Credentials:
    """Users of one room, as written by deploy/mosquitto/mkusers ("ROLE ROOM TABLE USER PASSWORD")."""

    room: str
    # (role, table or "-") -> (username, password); supervisors: ("supervisor", name)
    users: dict[tuple[str, str], tuple[str, str]]

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> Credentials:
        users: dict[tuple[str, str], tuple[str, str]] = {}
        room = ""
        text = Path(path).read_text()
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split()
            if len(parts) != 5:
                raise BrokerError(
                    f"{path}:{number}: expected 'ROLE ROOM TABLE USERNAME PASSWORD' "
                    f"(the credentials file written by deploy/mosquitto/mkusers)"
                )
            role, line_room, table, username, password = parts
            if room and line_room != room:
                raise BrokerError(f"{path}:{number}: room {line_room!r}, but the file began with {room!r}")
            room = line_room
            if role == SUPERVISOR:
                name = supervisor_name(username)
                if name is None or table != "-":
                    raise BrokerError(
                        f"{path}:{number}: a supervisor's line is 'supervisor ROOM - floor.NAME PASSWORD' "
                        f"(deploy/mosquitto/mkusers --floor NAME)"
                    )
                table = name
            users[(role, table)] = (username, password)
        if not users:
            raise BrokerError(f"{path}: no users; create them with deploy/mosquitto/mkusers")
        return cls(room, users)

    def with_login(self, username: str, password: str) -> Credentials:
        """These credentials with ``username``'s password (role and table read from the name:
        ``admin``, ``floor``, ``broadcast``, ``floor.<name>`` for a supervisor, or
        ``<role>.<table>`` as mkusers names them)."""
        role, _, table = username.partition(".")
        if supervisor_name(username) is not None:
            key = (SUPERVISOR, table)
        elif role in ROOM_ROLES and not table:
            key = (role, "-")
        elif role in TABLE_ROLES and table:
            key = (role, table)
        else:
            raise BrokerError(
                f"user {username!r}: expected admin, floor, broadcast, floor.NAME or ROLE.TABLE with ROLE "
                f"one of {', '.join(TABLE_ROLES)} (the names deploy/mosquitto/mkusers gives)"
            )
        return Credentials(self.room, {**self.users, key: (username, password)})

    def tables(self) -> list[str]:
        return sorted({table for (role, table) in self.users if role == "table"})

    def supervisors(self) -> list[str]:
        """The supervisors' names (their users are floor.<name>)."""
        return sorted({name for (role, name) in self.users if role == SUPERVISOR})

    def user(self, role: str, table: str | None = None) -> tuple[str, str]:
        """The username and password of ``role`` at ``table`` (for ``supervisor``: ``table`` is
        the supervisor's name)."""
        key = (role, "-" if role in ROOM_ROLES else str(table))
        if key not in self.users:
            if role == SUPERVISOR:
                raise BrokerError(
                    f"no user for supervisor {table} in the credentials; run deploy/mosquitto/mkusers "
                    f"--floor {table} ROOM TABLE..."
                )
            where = "the room" if role in ROOM_ROLES else f"table {table}"
            raise BrokerError(f"no {role} user for {where} in the credentials; run deploy/mosquitto/mkusers")
        return self.users[key]


@dataclass
class BrokerAccess:
    """Where the audit connects, and as whom."""

    host: str
    port: int
    credentials: Credentials
    tables: tuple[str, str] | None = None  # the two tables to deal at (default: the first two)
    supervisors: tuple[str, str] | None = None  # the two supervisors it logs in as (default: audit*)

    def audit_tables(self) -> tuple[str, str]:
        """The two tables to deal at: given, or the first two named audit-* (never a real table:
        the audit publishes fake hands and clears what it leaves retained)."""
        if self.tables is not None:
            return self.tables
        tables = [t for t in self.credentials.tables() if t.startswith("audit")]
        if len(tables) < 2:
            raise BrokerError(
                "the audit deals at two tables of its own (one must never see the other), named "
                "audit-*: create them on the broker with deploy/mosquitto/mkusers ROOM audit-a audit-b"
            )
        return tables[0], tables[1]

    def audit_supervisors(self) -> tuple[str, str]:
        """The two supervisors the audit logs in as (each must reach only its own command topic):
        given, or the first two named audit*."""
        if self.supervisors is not None:
            return self.supervisors
        names = [n for n in self.credentials.supervisors() if n.startswith("audit")]
        if len(names) < 2:
            raise BrokerError(
                "the audit logs in as two supervisors of its own (one must never send as the other), "
                "named audit*: create them with deploy/mosquitto/mkusers --floor audit-ann,audit-bob ROOM ..."
            )
        return names[0], names[1]


# -- a throwaway broker with the shipped configuration --------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _broker_config(source: Path, port: int, ws_port: int, folder: Path, persistence: bool) -> str:
    """The mosquitto.conf at ``source`` with this machine's ports and files: same users, ACL, limits;
    with ``ws_port``, mosquitto's own websockets listener too (to measure it: bench/transport.py)."""
    replacements = [
        (r"(?m)^listener 1883$", f"listener {port} 127.0.0.1"),
        (r"(?m)^password_file .*$", f"password_file {folder / 'passwd'}"),
        (r"(?m)^acl_file .*$", f"acl_file {folder / 'acl'}"),
        (r"(?m)^persistence_location .*$", f"persistence_location {folder}/"),
        (r"(?m)^pid_file .*$", ""),
        (r"(?m)^include_dir .*$", ""),
    ]
    text = source.read_text()
    for pattern, value in replacements:
        text, count = re.subn(pattern, value, text)
        if count != 1:
            raise BrokerError(
                f"{source}: expected one line matching {pattern!r}; the test broker "
                f"is made from that file: keep its listeners and file options on lines of their own"
            )
    if not persistence:
        text = re.sub(r"(?m)^persistence true$", "persistence false", text)
    # Started by root (CI), mosquitto would drop to the mosquitto user, who cannot read a
    # private temporary folder: stay the user who started it.
    text += f"\nuser {getpass.getuser()}\n"
    if ws_port:  # last: a listener's options are the lines after it
        text += f"listener {ws_port} 127.0.0.1\nprotocol websockets\n"
    return text


@dataclass
class LocalBroker:
    """A mosquitto process with the shipped configuration, users and ACL, on free ports.

    ``start()``, ``kill()`` (SIGKILL), ``start()`` again on the same ports and files, ``stop()``.
    Users are made by mkusers for ``room`` and ``tables``. The mosquitto files (mosquitto.conf,
    the ACL templates, mkusers) are read from ``config_dir``: by default the shipped ones
    (:func:`shipped_config`).
    """

    room: str = "main"
    tables: Sequence[str] = ("1", "2")
    supervisors: Sequence[str] = ("ann", "bob")  # mkusers --floor: users floor.ann, floor.bob
    persistence: bool = True
    folder: Path | None = None
    host: str = "127.0.0.1"
    port: int = 0
    ws_port: int = 0  # mosquitto's own websockets listener, when set (-1: on a free port)
    process: subprocess.Popen[bytes] | None = None
    credentials: Credentials | None = None
    extra_config: str = ""  # appended to the configuration (a bridge, for tests)
    config_dir: Path = field(default_factory=shipped_config)
    _owned_folder: bool = False

    def prepare(self) -> None:
        exe = shutil.which("mosquitto") or (
            "/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None
        )
        if (
            exe is None
            or shutil.which("mosquitto_passwd") is None
            and not Path("/usr/bin/mosquitto_passwd").exists()
        ):
            raise BrokerError("mosquitto is not installed: apt-get install mosquitto")
        self._exe = exe
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="tablectl-broker-"))
            self._owned_folder = True
        self.folder.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ)
        env["PATH"] = env.get("PATH", "") + ":/usr/bin:/usr/sbin"
        result = subprocess.run(
            [
                str(self.config_dir / "mkusers"),
                "--dir",
                str(self.folder),
                *(["--floor", ",".join(self.supervisors)] if self.supervisors else []),
                self.room,
                *self.tables,
            ],
            capture_output=True,
            text=True,
            env=env,
        )
        if result.returncode != 0:
            raise BrokerError(f"{self.config_dir / 'mkusers'} failed: {result.stderr.strip()}")
        self.credentials = Credentials.read(self.folder / "credentials")
        self.port = self.port or free_port()
        if self.ws_port < 0:
            self.ws_port = free_port()
        config = _broker_config(
            self.config_dir / "mosquitto.conf", self.port, self.ws_port, self.folder, self.persistence
        )
        config += self.extra_config
        (self.folder / "mosquitto.conf").write_text(config)

    def start(self, timeout: float = 10.0) -> LocalBroker:
        if self.credentials is None:
            self.prepare()
        assert self.folder is not None
        logfile = open(self.folder / "mosquitto.log", "ab")  # noqa: SIM115 - closed in stop()
        self._logfile = logfile
        self.process = subprocess.Popen(
            [self._exe, "-c", str(self.folder / "mosquitto.conf")],
            stdout=logfile,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise BrokerError(f"mosquitto exited at start:\n{self.log()}")
            if all(self._listening(port) for port in (self.port, self.ws_port) if port):
                return self
            if time.monotonic() > deadline:
                self.kill()
                raise BrokerError(
                    f"mosquitto did not listen on {self.port} within {timeout} s:\n{self.log()}"
                )
            time.sleep(0.01)  # polling the port until it listens (a readiness wait, with a deadline)

    def _listening(self, port: int) -> bool:
        try:
            with socket.create_connection((self.host, port), timeout=0.2):
                return True
        except OSError:
            return False

    def log(self) -> str:
        if self.folder is None or not (self.folder / "mosquitto.log").exists():
            return ""
        return (self.folder / "mosquitto.log").read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL: no goodbye, no database saved."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)
        self.process = None
        self._close_log()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.process = None
        self._close_log()

    def _close_log(self) -> None:
        logfile = getattr(self, "_logfile", None)
        if logfile is not None:
            logfile.close()
            del self._logfile

    def cleanup(self) -> None:
        self.stop()
        if self._owned_folder and self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)

    def access(self) -> BrokerAccess:
        assert self.credentials is not None
        tables, names = tuple(self.tables), tuple(self.supervisors)
        return BrokerAccess(
            self.host,
            self.port,
            self.credentials,
            (tables[0], tables[1]) if len(tables) >= 2 else None,
            (names[0], names[1]) if len(names) >= 2 else None,
        )

    def __enter__(self) -> LocalBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.cleanup()
