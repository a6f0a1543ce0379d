"""The course's tie-break rule, in one place.

BPE merges the most frequent adjacent pair. When several pairs share the highest count, the
course picks the pair whose byte strings are lexicographically greatest as a tuple
``(left_bytes, right_bytes)`` (the rule of the CS336 assignment, so its reference merges hold).
Tokens are ``bytes``, and Python already compares tuples of ``bytes`` that way, so the rule is
one ``max`` (:func:`best_pair`): every trainer that scans the pair counts calls it.

A heap cannot use ``max``: ``heapq`` pops the *smallest* entry. :func:`pair_rank_key` is the same
order turned around, smallest first, for the trainers that keep a heap; the tests prove that it
ranks every two pairs exactly as :func:`best_pair` does. Negating the count is easy; turning the
byte order around needs :func:`token_sort_key`, a key with a *total* order (a wrapper class that
only defines ``__lt__`` looks right and breaks ``heapq`` on ties).

>>> best_pair({(b"a", b"b"): 3, (b"b", b"c"): 3, (b"a", b"c"): 2})  # tie on 3: (b"b", b"c") > (b"a", b"b")
(b'b', b'c')
"""

from __future__ import annotations

from collections.abc import Mapping

# Maps byte value v to the character with code point 255 - v: reverses the order of bytes.
_COMPLEMENT = {v: 255 - v for v in range(256)}
# Ends every key; greater than any complemented byte, so a longer string (b"ab") sorts before its
# prefix (b"a"): in reversed order, the extension is the greater byte string and must come first.
_END = "\u0100"


def best_pair(pair_counts: Mapping[tuple[bytes, bytes], int]) -> tuple[bytes, bytes]:
    """THE rule: the pair to merge next is the one with the highest count; among equal counts,
    the greatest ``(left, right)`` tuple of bytes. A linear scan of ``pair_counts``.

    >>> best_pair({(b"a", b"bc"): 1, (b"ab", b"c"): 1})  # b"ab" > b"a": the tuple, not the concatenation
    (b'ab', b'c')
    """
    return max(pair_counts, key=lambda pair: (pair_counts[pair], pair))


def token_sort_key(token: bytes) -> str:
    """An order-reversing key for one token's bytes: ``x > y`` exactly when ``key(x) < key(y)``.

    >>> token_sort_key(b"ab") < token_sort_key(b"a") < token_sort_key(b"A")
    True
    """
    return token.decode("latin-1").translate(_COMPLEMENT) + _END


def pair_rank_key(count: int, left_key: str, right_key: str) -> tuple[int, str, str]:
    """:func:`best_pair`'s order as a key for a min-heap: the pair with the smallest key merges next.

    Highest ``count`` first; among equal counts, the greatest ``(left_bytes, right_bytes)``
    (``left_key``/``right_key`` are :func:`token_sort_key` of the two tokens).
    """
    return (-count, left_key, right_key)


class SortKeys(dict[bytes, str]):
    """``token -> token_sort_key(token)``, each computed once, on first use; and a pair's heap key.

    Heaps rank a pair many times as its count changes; its tokens' keys never change.

    >>> keys = SortKeys()
    >>> keys.rank_key(5, (b"a", b"b")) < keys.rank_key(5, (b"a", b"a")) < keys.rank_key(4, (b"z", b"z"))
    True
    """

    def __missing__(self, token: bytes) -> str:
        key = self[token] = token_sort_key(token)
        return key

    def rank_key(self, count: int, pair: tuple[bytes, bytes]) -> tuple[int, str, str]:
        """:func:`pair_rank_key` of ``pair`` with ``count``."""
        return pair_rank_key(count, self[pair[0]], self[pair[1]])
