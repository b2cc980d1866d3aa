"""The package list, found rather than written out: every package under tablectl/, firmware_bridge/
and vision/, and the deploy/ folder carried as tablectl._deploy (pyproject.toml maps it and names
its data). Everything else is in pyproject.toml."""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["tablectl*", "firmware_bridge*", "vision*"]), "tablectl._deploy"])
