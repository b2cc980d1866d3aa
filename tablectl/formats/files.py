"""Reading the offline tools' input files (hand histories, scenarios): never more than a cap.

A file that is too large, not UTF-8 or unreadable is a :class:`BadFile` whose message says
why; the tools report it beside the file's name and go on with the next file.
"""

from __future__ import annotations

import os
from typing import IO

MiB = 1024 * 1024


class BadFile(ValueError):
    """A file the tool cannot read as text; the message says why and what to do."""


def too_large(size: int, cap: int, what: str) -> BadFile:
    return BadFile(
        f"{size:,} bytes, more than the {cap // MiB} MiB a {what} may have: not read "
        f"(split it, or it is not a {what})"
    )


def decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadFile(f"not UTF-8 text (byte {exc.start}): save it as UTF-8") from None


_CHUNK = 64 * 1024


def read_capped(handle: IO[bytes], cap: int, what: str) -> str:
    """The text of ``handle``, read up to ``cap`` bytes and no further."""
    # In chunks: read(cap + 1) would allocate the whole cap up front for every small file.
    chunks: list[bytes] = []
    size = 0
    while chunk := handle.read(min(_CHUNK, cap + 1 - size)):
        chunks.append(chunk)
        size += len(chunk)
        if size > cap:
            raise BadFile(f"more than the {cap // MiB} MiB a {what} may have: not read (split it)")
    return decode(b"".join(chunks))


def read_text(path: str | os.PathLike[str], cap: int, what: str) -> str:
    """A file's text, refused unread when it is larger than ``cap`` bytes."""
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > cap:
                raise too_large(size, cap, what)
            return read_capped(handle, cap, what)  # a file still growing stops at the cap
    except OSError as exc:
        raise BadFile(f"cannot read it: {exc.strerror or exc}") from None
