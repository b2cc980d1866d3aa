"""The serial link to the card shoe's microcontroller (docs/protocol.md).

- :mod:`firmware_bridge.protocol`: the protocol, pure (framing, CRC-32C, messages, the
  :class:`~firmware_bridge.protocol.ReliableEndpoint` both ends run);
- :mod:`firmware_bridge.link`: :class:`~firmware_bridge.link.ShoeLink`, the host's end on
  pyserial (reader thread, reconnection, status);
- :mod:`firmware_bridge.simshoe`: :class:`~firmware_bridge.simshoe.SimShoe`, the simulated
  shoe's firmware on a pseudo-terminal, with fault knobs for test rigs;
- :mod:`firmware_bridge.faults`, :mod:`firmware_bridge.tags`, :mod:`firmware_bridge.testing`:
  line faults, simulated decks' tag ids, helpers for tests;
- :mod:`firmware_bridge.cli`: ``tablectl sim shoe`` (:func:`~firmware_bridge.cli.add_sim_parser`).

The link produces the shoe's messages (tag id, antenna, face, timestamps); mapping a tag to
a card is the deck registry's work, on the service's side. The package imports nothing from
tablectl (as the shoe's firmware knows nothing of the host): a card notation or a scenario
file is passed in by the caller (:class:`~firmware_bridge.simshoe.CardNames`).
"""
