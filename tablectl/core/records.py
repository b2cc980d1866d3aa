"""One copier for the core's immutable records (NamedTuples): a state with a few fields changed.

Every action, card and event makes one or two copies (the engine's HandState, the procedure's
HandProgress, the table's TableState), so the copier is built once per type, with the field
positions looked up once: cheaper than NamedTuple._replace, which builds a dict of every field.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

Record = TypeVar("Record", bound=NamedTuple)


def copier(cls: type[Record]) -> Callable[..., Record]:
    """``copy(record, **changes)`` for records of ``cls``."""
    index = {name: position for position, name in enumerate(cls._fields)}
    new = tuple.__new__

    def copy(record: Record, /, **changes: Any) -> Record:
        values = list(record)
        for name, value in changes.items():
            values[index[name]] = value
        made: Record = new(cls, values)
        return made

    copy.__doc__ = f"A copy of a {cls.__name__} with ``changes``."
    return copy
