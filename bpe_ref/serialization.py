"""Saving and loading a vocabulary and its merges in the GPT-2 file format.

GPT-2 stores each token's bytes as a printable string: every byte value maps to one visible
Unicode character (:func:`bytes_to_unicode`), so ``b" the"`` is written ``"Ġthe"``. ``vocab.json``
maps those strings to ids; ``merges.txt`` lists one merge per line, ``left right``, in training
order after a ``#version`` header.

>>> unicode = bytes_to_unicode()
>>> "".join(unicode[b] for b in b" the")
'Ġthe'
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from .corpus import StrPath, decode_utf8

Vocab = dict[int, bytes]
Merges = list[tuple[bytes, bytes]]

VOCAB_FILENAME = "vocab.json"
MERGES_FILENAME = "merges.txt"
MERGES_HEADER = "#version: 0.2"


@lru_cache(maxsize=1)
def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's map from each byte value to a printable character.

    Printable Latin-1 bytes map to themselves; the other 68 (control characters, space, ...) map
    to the code points 256, 257, ... in byte order, so the map is a bijection.
    """
    printable = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    mapping = {b: chr(b) for b in printable}
    next_code_point = 256
    for b in range(256):
        if b not in mapping:
            mapping[b] = chr(next_code_point)
            next_code_point += 1
    return mapping


@lru_cache(maxsize=1)
def unicode_to_bytes() -> dict[str, int]:
    """The inverse of :func:`bytes_to_unicode`."""
    return {char: b for b, char in bytes_to_unicode().items()}


def token_to_string(token: bytes) -> str:
    """A token's bytes as GPT-2 writes them (``b" the"`` -> ``"Ġthe"``)."""
    table = bytes_to_unicode()
    return "".join(table[b] for b in token)


@lru_cache(maxsize=1)
def _to_latin1() -> dict[int, str]:
    """For ``str.translate``: each mapped character -> the Latin-1 character of its byte; every
    other Latin-1 character -> one that Latin-1 cannot encode (so that it fails, as it must)."""
    table = {ord(char): chr(b) for char, b in unicode_to_bytes().items()}
    for code_point in range(256):
        table.setdefault(code_point, "\uffff")
    return table


def string_to_token(text: str, source: str = "GPT-2 file") -> bytes:
    """The inverse of :func:`token_to_string`; ``ValueError`` for a character outside the map."""
    try:
        return text.translate(_to_latin1()).encode("latin-1")  # two calls in C: loading is quick
    except UnicodeEncodeError:
        pass  # some character is outside the map: find it, for the message
    table = unicode_to_bytes()
    try:
        return bytes(table[char] for char in text)
    except KeyError as err:
        raise ValueError(
            f"{source}: {text!r} has the character {err.args[0]!r}, which is not in GPT-2's byte-to-unicode map"
        ) from None


def save_vocab_and_merges(vocab: Vocab, merges: Merges, directory: StrPath) -> tuple[Path, Path]:
    """Write ``vocab.json`` and ``merges.txt`` into ``directory`` (created if needed); returns both paths."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    vocab_path = directory / VOCAB_FILENAME
    merges_path = directory / MERGES_FILENAME
    encoded = {token_to_string(token): token_id for token_id, token in sorted(vocab.items())}
    if len(encoded) != len(vocab):
        # vocab.json maps strings to ids, so two ids with the same bytes cannot both be written.
        seen: dict[bytes, int] = {}
        for token_id, token in sorted(vocab.items()):
            if token in seen:
                raise ValueError(
                    f"ids {seen[token]} and {token_id} have the same bytes {token!r}: vocab.json cannot hold both"
                )
            seen[token] = token_id
    vocab_path.write_text(json.dumps(encoded, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    lines = [MERGES_HEADER] + [f"{token_to_string(left)} {token_to_string(right)}" for left, right in merges]
    merges_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return vocab_path, merges_path


def load_vocab(vocab_path: StrPath) -> Vocab:
    """Read a GPT-2 ``vocab.json`` into ``{id: bytes}``."""
    vocab_path = Path(vocab_path)
    if not vocab_path.exists():
        raise FileNotFoundError(f"vocabulary file not found: {vocab_path}")
    try:
        raw = json.loads(decode_utf8(vocab_path.read_bytes(), str(vocab_path)))
    except json.JSONDecodeError as err:
        raise ValueError(f"{vocab_path} is not valid JSON: {err}") from None
    if not isinstance(raw, dict):
        raise ValueError(f"{vocab_path} must hold a JSON object mapping token strings to ids")
    vocab: Vocab = {}
    for text, token_id in raw.items():
        if not isinstance(token_id, int):
            raise ValueError(f"{vocab_path}: token {text!r} has the id {token_id!r}, not an integer")
        if token_id in vocab:
            raise ValueError(f"{vocab_path}: id {token_id} is used twice")
        vocab[token_id] = string_to_token(text, str(vocab_path))
    return vocab


def load_merges(merges_path: StrPath) -> Merges:
    """Read a GPT-2 ``merges.txt`` into ``[(left_bytes, right_bytes), ...]`` in training order."""
    merges_path = Path(merges_path)
    if not merges_path.exists():
        raise FileNotFoundError(f"merges file not found: {merges_path}")
    merges: Merges = []
    text = decode_utf8(merges_path.read_bytes(), str(merges_path))
    for line_number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        if not line or line.startswith("#version"):
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise ValueError(f"{merges_path}, line {line_number}: expected 'left right', got {line!r}")
        source = f"{merges_path}, line {line_number}"
        merges.append((string_to_token(parts[0], source), string_to_token(parts[1], source)))
    return merges


def load_vocab_and_merges(vocab_path: StrPath, merges_path: StrPath) -> tuple[Vocab, Merges]:
    """Both files at once: ``(vocab, merges)``."""
    return load_vocab(vocab_path), load_merges(merges_path)
