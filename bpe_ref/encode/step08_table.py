"""Step 08: the valid encoding by dynamic programming over prefixes.

The same theory as the backtracking encoder, organised as a table. For every prefix
``data[:end]``, keep ``last[end]``: the last token of that prefix's valid encoding. It is one of
the tokens that *end* at ``end``: the token ``t = data[start:end]`` whose predecessor
``last[start]`` is compatible with it (exactly one is, because the valid encoding of a prefix is
unique). The encoding of the whole text is then read backwards: ``last[n]``, then ``last`` at that
token's start, and so on. The tokens that end at a position are found in a trie of the *reversed*
tokens (:func:`~.step08_valid_tokens.suffix_trie`), so each position costs at most
``max_token_length`` steps: linear in the text.

Lab 08 asks for the table on ``bytes`` tokens and lab 06's ranks: :func:`last_tokens` runs
:meth:`TableEncoder.last_tokens` on the tables of those ranks.

>>> from bpe_ref.encode.step06_naive import merge_ranks
>>> last_tokens(b"abcbc", merge_ranks([(b"a", b"b"), (b"b", b"c"), (b"ab", b"c")]))
[None, b'a', b'ab', b'abc', b'b', b'bc']
>>> from bpe_ref.encode.common import MergeTables
>>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"bc", 258: b"abc"}
>>> tables = MergeTables(vocab, [(b"a", b"b"), (b"b", b"c"), (b"ab", b"c")])
>>> TableEncoder(tables).encode(b"abcbc")
[258, 257]
"""

from __future__ import annotations

from collections.abc import Mapping

from .common import NO_TOKEN, MergeTables
from .step06_naive import Pair
from .step08_valid_tokens import ValidTokens, suffix_trie


def last_tokens(pretoken: bytes, ranks: Mapping[Pair, int]) -> list[bytes | None]:
    """``last[end]``: the last token of the valid encoding (= the BPE encoding) of ``pretoken[:end]``,
    for every ``end`` in ``0..len(pretoken)``; ``last[0]`` is ``None`` (lab 08, task 3).

    >>> last_tokens(b"aaa", {(b"a", b"a"): 0})   # a | aa | aa a
    [None, b'a', b'aa', b'a']
    """
    tables = MergeTables.from_ranks(ranks)
    last = TableEncoder(tables).last_tokens(pretoken)
    return [None] + [tables.token_bytes[t] for t in last[1:]]


class TableEncoder:
    """``last[end]`` = last token of the valid encoding of ``data[:end]``, for every ``end``."""

    def __init__(self, tables: MergeTables, valid: ValidTokens | None = None) -> None:
        self.valid = valid if valid is not None else ValidTokens(tables)
        self.token_ids = tables.token_ids
        # suffix_token[s]: for every suffix s of a valid token, the token with exactly those bytes
        # (NO_TOKEN when s is only the end of longer tokens): the trie of the reversed tokens.
        self.suffix_token = suffix_trie(self.valid.token_of)

    def last_tokens(self, data: bytes, last: list[int] | None = None) -> list[int]:
        """``last[end]`` for every ``end`` in ``0..len(data)`` (``last[0]`` is ``NO_TOKEN``).

        With ``last`` given (it covers ``data[:len(last) - 1]``), extend it in place to cover all of
        ``data``: the appendable encoder of :mod:`.step08_prefix_counts` feeds a pretoken byte by byte.
        A candidate whose predecessor is ``NO_TOKEN`` (it starts the text) needs no compatibility.

        >>> from bpe_ref.encode.common import MergeTables
        >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"bc", 258: b"abc"}
        >>> encoder = TableEncoder(MergeTables(vocab, [(b"a", b"b"), (b"b", b"c"), (b"ab", b"c")]))
        >>> encoder.last_tokens(b"abcbc")   # a, ab, abc, b (after abc), bc (after abc)
        [-1, 97, 256, 258, 98, 257]
        """
        suffix_token = self.suffix_token
        compatible = self.valid.compatible
        max_length = self.valid.max_token_length
        if last is None:
            last = [NO_TOKEN]
        append = last.append
        for end in range(len(last), len(data) + 1):
            # The tokens ending at `end`, shortest first (walking down the reversed trie).
            candidates = []
            start = end - 1
            floor = max(0, end - max_length)
            while start >= floor:
                token = suffix_token.get(data[start:end])
                if token is None:
                    break
                if token != NO_TOKEN:
                    candidates.append((start, token))
                start -= 1
            # Try the longest first: BPE tokens are long, so it is usually the one.
            for start, token in reversed(candidates):
                before = last[start]
                if before == NO_TOKEN or compatible(before, token):
                    append(token)
                    break
            else:  # cannot happen: a single byte is always a candidate and exactly one fits
                raise RuntimeError(f"table encoder found no token ending at byte {end} of {data!r}")
        return last

    def encode(self, data: bytes) -> list[int]:
        """The vocabulary ids of one pretoken's bytes."""
        last = self.last_tokens(data)
        tokens = []
        end = len(data)
        length = self.valid.token_length
        while end > 0:
            token = last[end]
            tokens.append(token)
            end -= length[token]
        tokens.reverse()
        ids = self.token_ids
        return [ids[t] for t in tokens]
