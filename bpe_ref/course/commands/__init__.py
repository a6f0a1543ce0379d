"""The commands of ``python -m bpe_ref`` (one module each; :mod:`bpe_ref.course.cli` routes to them), and what
several of them share (the benchmarks too): output checks, count and special-token options, loading a saved
model, a progress bar."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...tokenizer import Tokenizer


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``count`` and the noun, singular for exactly one: ``1 token``, ``2 tokens``, ``1,000 bytes``.

    >>> plural(1, "byte"), plural(0, "merge"), plural(1234, "token")
    ('1 byte', '0 merges', '1,234 tokens')
    """
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"


def at_least_one(text: str) -> int:
    """The type of a count option (``--repeats``, ``--rounds``, ``--jobs``, ``--workers``): a whole number of 1 or
    more, checked when the command line is parsed, before any work."""
    number = int(text)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {number}")
    return number


def _writable_folder(folder: Path, what: str) -> None:
    """``folder`` (which exists) must be a folder this user can write into; ``what`` starts the message."""
    if not folder.is_dir():
        raise NotADirectoryError(f"{what}: {folder} is a file, not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(f"{what}: folder {folder} is not writable")


def check_output_folder(folder: Path, option: str = "--out") -> None:
    """Refuse, before any work, a folder a command could not write into: a file in its place or in a
    parent's, or a nearest existing folder this user cannot write to. ``option`` names the argument."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise NotADirectoryError(f"{option} {folder}: a file is there, and this writes a folder (give a folder path)")
    existing = folder.absolute()  # the nearest existing folder: mkdir(parents=True) creates the rest
    while not existing.exists():
        existing = existing.parent
    _writable_folder(existing, f"{option} {folder}")


def check_output_file(path: Path, option: str = "--out") -> None:
    """Refuse, before any work, a file path that could not be written: a folder in its place, or a
    folder to hold it that is missing, a file, or not writable."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{option} {path}: a folder is there, and this writes a file (give a file path)")
    if not path.parent.exists():
        raise FileNotFoundError(f"{option} {path}: folder {path.parent} not found")
    _writable_folder(path.parent, f"{option} {path}")


def add_special_token_arguments(parser: argparse.ArgumentParser, without: str = "treat every character as text") -> None:
    """``--special-token`` (repeatable) and ``--no-special-tokens``, whose help is ``without``."""
    parser.add_argument("--special-token", action="append", dest="special_tokens", metavar="TOKEN",
                        help="a special token; repeat for several (default: <|endoftext|>)")
    parser.add_argument("--no-special-tokens", action="store_true", help=without)


def special_tokens_of(args: argparse.Namespace) -> tuple[str, ...]:
    from ...pretokenize import DEFAULT_SPECIAL_TOKENS

    return () if args.no_special_tokens else tuple(args.special_tokens or DEFAULT_SPECIAL_TOKENS)


def load_model(folder: Path, special_tokens: tuple[str, ...]) -> Tokenizer:
    """The tokenizer saved in ``folder`` (``vocab.json`` and ``merges.txt``, as ``train --out`` writes them)."""
    from ...serialization import MERGES_FILENAME, VOCAB_FILENAME
    from ...tokenizer import Tokenizer

    if not folder.is_dir():
        raise FileNotFoundError(f"model folder not found: {folder} (it should hold {VOCAB_FILENAME} and {MERGES_FILENAME})")
    return Tokenizer.from_files(folder / VOCAB_FILENAME, folder / MERGES_FILENAME, special_tokens)


@contextmanager
def progress_bar(shown: bool, **options) -> Iterator[Callable[[int], object] | None]:
    """A tqdm bar's ``update`` while the block runs (the bar closed after it), or None if not ``shown``."""
    if not shown:
        yield None
        return
    from tqdm.auto import tqdm

    bar = tqdm(leave=False, **options)
    try:
        yield bar.update
    finally:
        bar.close()
