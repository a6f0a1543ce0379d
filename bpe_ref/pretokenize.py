"""Step 00: from raw text to pretokens and their counts.

BPE never merges across a *pretoken* boundary. The GPT-2 pattern cuts text into words with their
leading space, numbers, runs of punctuation and runs of whitespace. Special tokens such as
``<|endoftext|>`` are cut out *before* the pattern runs, so no merge can touch them.

>>> pretokenize("Hello world!<|endoftext|>It's 42.", special_tokens=["<|endoftext|>"])
['Hello', ' world', '!', 'It', "'s", ' 42', '.']

Training needs only how often each pretoken occurs (:func:`count_pretokens`). Step 03
(:mod:`bpe_ref.train.step03_parallel`) counts a file in several processes with these functions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

import regex

from .corpus import encode_utf8

GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
PRETOKEN_RE = regex.compile(GPT2_PATTERN)

DEFAULT_SPECIAL_TOKENS: tuple[str, ...] = ("<|endoftext|>",)


def validate_special_tokens(special_tokens: Iterable[str] | None) -> tuple[str, ...]:
    """Special tokens as a tuple, in the order given; rejects the mistakes that corrupt training."""
    if special_tokens is None:
        return ()
    if isinstance(special_tokens, (str, bytes)):
        raise TypeError(
            f"special_tokens must be a sequence of strings, not a single {type(special_tokens).__name__}: "
            f"write special_tokens=[{special_tokens!r}]"
        )
    tokens = tuple(special_tokens)
    for token in tokens:
        if not isinstance(token, str):
            raise TypeError(f"special tokens must be str, got {token!r} ({type(token).__name__})")
        if not token:
            raise ValueError("a special token cannot be the empty string")
        encode_utf8(token)
    duplicates = sorted({t for t in tokens if tokens.count(t) > 1})
    if duplicates:
        raise ValueError(f"special tokens listed more than once: {duplicates}")
    return tokens


def special_token_regex(special_tokens: Sequence[str]) -> regex.Pattern | None:
    """A pattern matching any special token: scanned from the left, the leftmost match wins; of two that
    start at the same place, the longer (the alternation is ordered longest first)."""
    if not special_tokens:
        return None
    ordered = sorted(special_tokens, key=len, reverse=True)
    return regex.compile("|".join(regex.escape(token) for token in ordered))


def split_on_special_tokens(text: str, special_tokens: Sequence[str]) -> list[str]:
    """The pieces of ``text`` between special tokens (the special tokens themselves dropped).

    >>> split_on_special_tokens("a<|eot|>b<|eot|>", ["<|eot|>"])
    ['a', 'b', '']
    """
    pattern = special_token_regex(special_tokens)
    return [text] if pattern is None else pattern.split(text)


def split_keeping_special_tokens(text: str, special_tokens: Sequence[str]) -> Iterator[tuple[str, bool]]:
    """``(piece, is_special)`` in text order: what an encoder walks. Empty pieces are skipped.

    >>> list(split_keeping_special_tokens("a<|eot|>b", ["<|eot|>"]))
    [('a', False), ('<|eot|>', True), ('b', False)]
    """
    pattern = special_token_regex(special_tokens)
    if pattern is None:
        if text:
            yield text, False
        return
    start = 0
    for match in pattern.finditer(text):
        if match.start() > start:
            yield text[start : match.start()], False
        yield match.group(), True
        start = match.end()
    if start < len(text):
        yield text[start:], False


def pretokenize(text: str, special_tokens: Sequence[str] = ()) -> list[str]:
    """The pretokens of ``text`` in order, special tokens removed."""
    findall = PRETOKEN_RE.findall
    return [pretoken for piece in split_on_special_tokens(text, special_tokens) for pretoken in findall(piece)]


def _count_str_pretokens(text: str, special_tokens: Sequence[str]) -> Counter[str]:
    counts: Counter[str] = Counter()
    findall = PRETOKEN_RE.findall
    for piece in split_on_special_tokens(text, special_tokens):
        counts.update(findall(piece))  # Counter.update over a list runs in C
    return counts


def _to_bytes(counts: Counter[str]) -> dict[bytes, int]:
    return {encode_utf8(pretoken): count for pretoken, count in counts.items()}


def count_pretokens(text: str, special_tokens: Sequence[str] = DEFAULT_SPECIAL_TOKENS) -> dict[bytes, int]:
    """How often each pretoken (as UTF-8 bytes) occurs in ``text``: the input of every trainer.

    >>> count_pretokens("low low low lower", special_tokens=())
    {b'low': 1, b' low': 2, b' lower': 1}
    """
    special_tokens = validate_special_tokens(special_tokens)
    try:
        return _to_bytes(_count_str_pretokens(text, special_tokens))
    except ValueError:
        encode_utf8(text)  # a lone surrogate: report its index in ``text``, not in its pretoken
        raise
