"""Publishing the table over MQTT (DESIGN.md, Contracts: MQTT; docs/mqtt.md for the topics).

:class:`TablePublisher` puts the views of the table's state on the broker, under
``cardroom/<room>/table/<table>/``:

* ``status``: retained, ``online`` on every (re)connection, ``offline`` by the last will
  when the broker loses the table (and explicitly when it stops);
* ``public``, ``dealer``, ``floor``: retained QoS 1 snapshots of the views, published when
  they change, with an MQTT 5 message expiry so that a dead table's state disappears;
* ``events`` and ``alerts``: rulings and ended hands as non-retained QoS 1 messages; alerts
  are the rulings that need someone now (floor, void, misdeal);
* ``private/hole``: the hole cards (the ``private`` view), retained, and nowhere else;
* ``broadcast/hole``: the same, held back for the broadcast delay (30 minutes by default);
* ``cmd/floor/<user>`` in, ``cmd_result`` out: floor commands, parsed (with the sending
  supervisor's user, the topic's last level) and handed to a callback.

Every payload is JSON with ``schema``, ``epoch`` (this run of the table: it changes on every
restart, so displays re-read), ``seq`` (one counter per table and epoch, over everything the
table publishes) and ``ts``. Events and alerts also carry ``prev``, the seq of the previous
message on the same topic: a display whose last seq there differs has missed one and re-reads
the retained snapshot (the dealer and floor snapshots list the recent rulings with their seq).

Publishing never blocks the caller: paho's network loop runs in its own thread, and
:meth:`TablePublisher.publish_state` only computes the views and queues what changed. While
the broker is away the queue keeps the newest snapshot per topic and every event; when the
connection comes back, paho first delivers what was in flight, then the table publishes its
status, sends again the events and alerts the broker acknowledged in the last
``replay_window`` s before the connection was lost (a broker killed loses what it acknowledged
since it last saved its database), and republishes every retained snapshot as it stands now,
so the broker holds current state even if it lost everything (killed, restarted without its
database). Displays drop the repeats by seq. Hole cards never leave the
private topics: ruling texts in the dealer and floor snapshots, events and alerts name only
cards that are face up on the table; any other card is written ``[card]``.

The package, by job:

* :mod:`.topics`: the topic names and the envelope;
* :mod:`.outbox`: what is published and when, pure (seq and ``prev``, coalescing, the pending
  cap, the replay window, the resynchronisation, the broadcast delay, the snapshot refresh);
* :mod:`.commands`: reading a floor command and writing its result, pure;
* :mod:`.publisher`: :class:`TablePublisher`, the paho client around the outbox, and the run id
  (``epoch``);
* :mod:`.follower`: :class:`Follower`, the displays' side;
* :mod:`.broker`: a local mosquitto with the shipped configuration (the demo, tests, the audit).

The adapter hides no card: every view it publishes is safe as it comes (tablectl.views.secrecy).
"""

from tablectl.adapters.mqtt.commands import (
    CommandRefused,
    command_result,
    parse_floor_command,
)
from tablectl.adapters.mqtt.follower import Follower
from tablectl.adapters.mqtt.outbox import (
    ALERT_SEVERITIES,
    SEQUENCED_KINDS,
    Message,
    Outbox,
    OutboxConfig,
    Outgoing,
    PublisherStats,
)
from tablectl.adapters.mqtt.publisher import CommandHandler, TablePublisher, new_epoch
from tablectl.adapters.mqtt.topics import (
    CONTENT_TYPE,
    SCHEMA_VERSION,
    VIEW_NAMES,
    PublisherError,
    Topics,
    envelope,
)

__all__ = [
    "ALERT_SEVERITIES",
    "CONTENT_TYPE",
    "SCHEMA_VERSION",
    "SEQUENCED_KINDS",
    "VIEW_NAMES",
    "CommandHandler",
    "CommandRefused",
    "Follower",
    "Message",
    "Outbox",
    "OutboxConfig",
    "Outgoing",
    "PublisherError",
    "PublisherStats",
    "TablePublisher",
    "Topics",
    "command_result",
    "envelope",
    "new_epoch",
    "parse_floor_command",
]
