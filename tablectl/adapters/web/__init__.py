"""The display pages and the websocket relay (``tablectl web``, its own process).

One aiohttp application: ``/``, ``/dealer``, ``/table`` and ``/floor`` and the files under
``static/`` (pages.py), and ``/mqtt``, MQTT over websockets relayed byte for byte to the
broker's TCP listener (relay.py), so mosquitto authenticates every page and applies its ACL.
docs/displays.md says how a screen logs in and stays logged in.
"""

from tablectl.adapters.web.relay import BrokerAddress
from tablectl.adapters.web.server import make_app, parse_address, run_in_loop, serve

__all__ = ["BrokerAddress", "make_app", "parse_address", "run_in_loop", "serve"]
