"""Reading a training corpus from disk, with the clear errors of the course design (section 4)."""

from __future__ import annotations

import os
from pathlib import Path

StrPath = str | os.PathLike


def decode_utf8(data: bytes, source: str, offset: int = 0) -> str:
    """Decode ``data`` as UTF-8, or raise ``ValueError`` naming ``source`` and the bad byte's offset.

    ``offset`` is where ``data`` starts inside ``source`` (for a chunk of a larger file).
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        position = offset + err.start
        bad = data[err.start : err.start + 4]
        raise ValueError(
            f"{source} is not valid UTF-8: byte offset {position} ({bad!r}...: {err.reason})"
        ) from None


def read_corpus(path: StrPath) -> str:
    """The whole text of a UTF-8 file.

    Raises ``FileNotFoundError`` (with the path) when it does not exist and ``ValueError`` (with
    the path and byte offset) when it is not UTF-8.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"corpus file not found: {path}")
    if path.is_dir():
        raise IsADirectoryError(f"corpus path is a directory, not a file: {path}")
    return decode_utf8(path.read_bytes(), str(path))


def encode_utf8(text: str) -> bytes:
    """``text.encode('utf-8')``, or ``ValueError`` when it holds a lone surrogate (not encodable)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as err:
        code_point = ord(text[err.start])
        raise ValueError(
            f"text cannot be UTF-8 encoded: lone surrogate U+{code_point:04X} at index {err.start}"
        ) from None
