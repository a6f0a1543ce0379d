"""The course's tie-break rule, in one place.

BPE merges the most frequent adjacent pair. When several pairs share the highest count, the
course picks the pair whose byte strings are lexicographically greatest as a tuple
``(left_bytes, right_bytes)`` (the rule of the CS336 assignment, so its reference merges hold).

Every trainer orders pairs with :func:`pair_rank_key`: the pair with the *smallest* key is merged
next. A smallest-first key suits Python's ``min`` and ``heapq`` (a min-heap) alike.

>>> keys = [token_sort_key(bytes([b])) for b in range(256)]
>>> a, b, c = ord("a"), ord("b"), ord("c")
>>> best_pair({(a, b): 3, (b, c): 3, (a, c): 2}, keys) == (b, c)   # tie on 3: (b"b", b"c") > (b"a", b"b")
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

# Maps byte value v to the character with code point 255 - v: reverses the order of bytes.
_COMPLEMENT = {v: 255 - v for v in range(256)}
# Ends every key; greater than any complemented byte, so a longer string (b"ab") sorts before its
# prefix (b"a"): in reversed order, the extension is the greater byte string and must come first.
_END = "\u0100"


def token_sort_key(token: bytes) -> str:
    """An order-reversing key for one token's bytes: ``x > y`` exactly when ``key(x) < key(y)``.

    Trainers compute it once per token (when the token is created) and keep it in a list.

    >>> token_sort_key(b"ab") < token_sort_key(b"a") < token_sort_key(b"A")
    True
    """
    return token.decode("latin-1").translate(_COMPLEMENT) + _END


def pair_rank_key(count: int, left_key: str, right_key: str) -> tuple[int, str, str]:
    """THE tie-break rule. The pair with the smallest key is merged next.

    Highest ``count`` first; among equal counts, the greatest ``(left_bytes, right_bytes)``
    (``left_key``/``right_key`` are :func:`token_sort_key` of the two tokens' bytes).
    """
    return (-count, left_key, right_key)


def best_pair(pair_counts: Mapping[tuple[int, int], int], token_keys: Sequence[str]) -> tuple[int, int]:
    """The pair to merge next among ``pair_counts`` (token ids -> count), by :func:`pair_rank_key`.

    A linear scan: what trainers without a priority queue do on every merge.
    """
    return min(
        pair_counts,
        key=lambda pair: pair_rank_key(pair_counts[pair], token_keys[pair[0]], token_keys[pair[1]]),
    )
