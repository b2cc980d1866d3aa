"""Not code: pyproject.toml installs this folder as the package ``tablectl._deploy``.

That way the mosquitto configuration a throwaway broker starts from
(:mod:`tablectl.adapters.mqtt.broker`) ships with the package and is read with importlib.resources,
while the one copy stays here, where operators look for it (docs/operating.md). The file exists
because an editable install can only map a folder with an ``__init__.py`` to a dotted name.
"""
