"""Step 08: valid tokens, compatible pairs, and the tries the linear encoders look tokens up in.

A token is *valid* when BPE turns its own bytes into exactly that token; tokens that BPE can
never produce are left out. Two adjacent tokens are *compatible* when BPE, run on their
concatenated bytes, stops at exactly those two tokens: a token sequence is the BPE encoding of its
bytes exactly when every adjacent pair is compatible. :meth:`ValidTokens.compatible` decides it by
walking both merge trees, as GitHub's ``bpe`` crate (rust-gems) does. Both need token bytes to be
unique (one token per byte string).

Lab 08 works on ``bytes`` tokens and lab 06's ranks (``{pair: rank}``), and asks first for
:func:`compatible`, the definition itself: step 06's encoder run on the two tokens' bytes. It costs
O(L²) for the ``L`` bytes of the two tokens; :meth:`ValidTokens.compatible` answers the same question
by walking the two merge trees, in O(depth), which is what the encoders call.

The ``backtrack`` and ``table`` encoders search for the token sequence whose pairs are all
compatible, finding the valid tokens that start or end at a position in a trie
(:func:`prefix_trie`, :func:`suffix_trie`). The tokenizer's default path uses the valid tokens
too: a piece of a pretoken whose bytes are a valid token encodes to that one token
(:class:`bpe_ref.fast.encoder.ValidOnDemand` decides validity one token at a time, as pieces ask).

>>> from bpe_ref.encode.step06_naive import merge_ranks
>>> ranks = merge_ranks([(b"a", b"b"), (b"b", b"c"), (b"ab", b"c")])
>>> compatible(b"ab", b"c", ranks), compatible(b"abc", b"bc", ranks)
(False, True)
>>> from bpe_ref.encode.common import MergeTables
>>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"bc", 258: b"abc"}
>>> valid = ValidTokens(MergeTables(vocab, [(b"a", b"b"), (b"b", b"c"), (b"ab", b"c")]))
>>> valid.compatible(256, ord("c"))   # BPE does not stop at "ab" + "c": it merges them into "abc"
False
>>> valid.compatible(258, 257)        # "abc" + "bc" is how BPE encodes "abcbc"
True
"""

from __future__ import annotations

from collections.abc import Mapping

from .common import NO_TOKEN, MergeTables
from .step06_naive import Pair, encode_pretoken


def compatible(left: bytes, right: bytes, ranks: Mapping[Pair, int]) -> bool:
    """Whether BPE encodes ``left + right`` as exactly ``[left, right]`` (lab 08, task 1).

    Then ``left`` and ``right`` are valid tokens too (a prefix of a valid encoding is valid). A token
    sequence is the encoding of its bytes exactly when every adjacent pair is compatible.

    >>> ranks = {(b"a", b"a"): 0}
    >>> compatible(b"aa", b"a", ranks), compatible(b"a", b"aa", ranks), compatible(b"a", b"a", ranks)
    (True, False, False)
    """
    return encode_pretoken(left + right, ranks) == [left, right]


def require_unique_bytes(tables: MergeTables, who: str) -> None:
    """``ValueError`` when two merges make the same bytes: ``who`` needs one token per byte string
    (a valid token is looked up by its bytes)."""
    duplicates = tables.duplicate_bytes()
    if duplicates:
        token, ranks = duplicates[0]
        ids = sorted({tables.token_ids[256 + r] for r in ranks})
        raise ValueError(
            f"{who} needs every token's bytes to be unique, but merges {ranks} all make {token!r} "
            f"(ids {ids}; {len(duplicates)} such byte string(s) in all); "
            "use method='heap' or method='naive', which work with repeated bytes"
        )


class ValidTokens:
    """Valid tokens, their merge trees and the compatibility test of two adjacent tokens.

    - ``split[t]``: the two tokens merge ``t`` joined (``(t, t)`` for a single byte, ``NO_TOKEN``
      twice for a token that is not valid);
    - ``valid[t]``: BPE encodes ``token_bytes[t]`` to ``[t]``;
    - ``token_of[bytes]``: the valid token with those bytes.
    """

    def __init__(self, tables: MergeTables) -> None:
        require_unique_bytes(tables, "this encoder")
        self.tables = tables
        token_bytes = tables.token_bytes
        pair_to_token = tables.pair_to_token
        self.split: list[tuple[int, int]] = [(b, b) for b in range(256)]
        self.valid: list[bool] = [True] * 256
        token_of: dict[bytes, int] = {bytes([b]): b for b in range(256)}
        for token in range(256, tables.num_tokens):
            left_bytes, right_bytes = tables.merges[token - 256]
            # Unique bytes: the parts are the valid tokens holding those bytes, made before this
            # merge (token_of holds only those so far), and the pair must make this very token.
            left = token_of.get(left_bytes, NO_TOKEN)
            right = token_of.get(right_bytes, NO_TOKEN)
            is_valid = (
                left != NO_TOKEN
                and right != NO_TOKEN
                and pair_to_token.get((left, right)) == token
                # the pair itself makes `token`; is anything across its boundary merged first?
                and self.compatible(left, right, limit=token)
            )
            self.split.append((left, right) if is_valid else (NO_TOKEN, NO_TOKEN))
            self.valid.append(is_valid)
            if is_valid:
                token_of[token_bytes[token]] = token
        self.token_of = token_of
        self.token_length: list[int] = [len(b) for b in token_bytes]
        self.max_token_length = max(len(b) for b in token_of)

    def compatible(self, left: int, right: int, limit: int = 1 << 62) -> bool:
        """Whether ``[left, right]`` is how BPE encodes ``bytes(left) + bytes(right)``.

        Undo the two tokens' merges, the latest first. Before each undone merge was applied, BPE
        had a chance to merge the pair straddling the boundary instead; if that pair is a merge of
        lower rank (``< limit``), BPE would have taken it, and the two tokens never both appear.
        On the right-hand side an *equal* rank also wins (leftmost first), hence ``right + 1``.
        ``limit`` starts above every rank; ``ValidTokens`` passes the token itself when it asks
        whether a merge's own two parts survive until that merge.
        """
        pair_to_token = self.tables.pair_to_token
        split = self.split
        while True:
            merged = pair_to_token.get((left, right))
            if merged is not None and merged < limit:
                return False
            if left > right:  # the left token was made last: undo it, keep its right part
                limit = left
                left = split[left][1]
                if left == limit:  # it was a single byte: nothing left to undo on that side
                    limit = right + 1
                    right = split[right][0]
                    if right + 1 == limit:
                        return True
            else:  # undo the right token, keep its left part
                limit = right + 1
                right = split[right][0]
                if right + 1 == limit:
                    limit = left
                    left = split[left][1]
                    if left == limit:
                        return True


def prefix_trie(token_of: Mapping[bytes, int]) -> dict[bytes, int]:
    """The trie of the tokens, as a dict from each node's path to the answer at that node.

    For every prefix ``p`` of a token: the longest token that is a prefix of ``p`` (``NO_TOKEN``
    if none). Walking down the trie is "extend ``p`` by one byte while it is a key"; the value at
    the last node reached is the longest token that starts there.

    >>> prefix_trie({b"a": 97, b"abc": 300})
    {b'a': 97, b'ab': 97, b'abc': 300}
    """
    trie: dict[bytes, int] = {}
    for token in token_of:
        best = NO_TOKEN
        for end in range(1, len(token) + 1):
            prefix = token[:end]
            best = token_of.get(prefix, best)
            trie[prefix] = best
    return trie


def suffix_trie(token_of: Mapping[bytes, int]) -> dict[bytes, int]:
    """The trie of the *reversed* tokens: every suffix ``s`` of a token -> the token with exactly
    those bytes, or ``NO_TOKEN`` when ``s`` is only the end of longer tokens.

    >>> suffix_trie({b"c": 99, b"abc": 300})
    {b'c': 99, b'bc': -1, b'abc': 300}
    """
    trie: dict[bytes, int] = {}
    for token in token_of:
        for start in range(len(token) - 1, -1, -1):
            suffix = token[start:]
            trie[suffix] = token_of.get(suffix, NO_TOKEN)
    return trie
