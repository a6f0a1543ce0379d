"""The commands of ``python -m bpe_ref`` (one module each; :mod:`bpe_ref.course.cli` routes to them)."""

from __future__ import annotations

import os
from pathlib import Path


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``count`` and the noun, singular for exactly one: ``1 token``, ``2 tokens``, ``1,000 bytes``.

    >>> plural(1, "byte"), plural(0, "merge"), plural(1234, "token")
    ('1 byte', '0 merges', '1,234 tokens')
    """
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"


def check_output_folder(folder: Path, option: str = "--out") -> None:
    """Refuse, before any work, a folder that a command could not write into: a file in its place
    (or in the place of a folder above it), or a nearest existing folder this user cannot write to.
    ``option`` names the argument in the message (``--out``, or the handout's folder)."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise NotADirectoryError(f"{option} {folder}: a file is there, and this writes a folder (give a folder path)")
    _check_writable_parent(folder, option)


def check_output_file(path: Path, option: str = "--out") -> None:
    """Refuse, before any work, a file path that could not be written: a folder in its place, a
    missing folder to hold it or a file in that folder's place, a folder this user cannot write to."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{option} {path}: a folder is there, and this writes a file (give a file path)")
    parent = path.parent
    if not parent.exists():
        raise FileNotFoundError(f"{option} {path}: folder {parent} not found")
    if not parent.is_dir():
        raise NotADirectoryError(f"{option} {path}: {parent} is a file, not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise PermissionError(f"{option} {path}: folder {parent} is not writable")


def _check_writable_parent(folder: Path, option: str) -> None:
    """The nearest existing folder at or above ``folder`` must be a folder this user can write to
    (``mkdir(parents=True)`` creates the rest)."""
    existing = folder.absolute()
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise NotADirectoryError(f"{option} {folder}: {existing} is a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise PermissionError(f"{option} {folder}: folder {existing} is not writable")
