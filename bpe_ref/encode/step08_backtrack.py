"""Step 08: the linear-time backtracking encoder of GitHub's ``bpe`` crate (rust-gems).

Instead of simulating the merges, search directly for the *valid* encoding: the one token
sequence in which every adjacent pair is compatible
(:meth:`~.step08_valid_tokens.ValidTokens.compatible`: BPE run on the two tokens' bytes stops at
exactly those two). Walk the text left to right:

1. at position ``pos``, try the longest valid token that is a prefix of the rest of the text;
2. accept it if it is compatible with the previous token and its end is not a known dead end;
3. otherwise try the next-shorter token that is a prefix of it (``next_prefix``), and so on;
4. if even a single byte fails, ``pos`` cannot be a token boundary of the valid encoding: mark it
   dead in a bitfield, drop the previous token and retry it (its end is now dead, so the retry
   goes on with its next-shorter prefix, or backs up further).

Lab 08 asks for :func:`backtrack_encode` on ``bytes`` tokens and lab 06's ranks; here it runs
:class:`BacktrackEncoder` on the tables of those ranks, so the algorithm is written once.

BPE tokens are long, so the longest candidate is nearly always the right one. A position is given
up at most once: the tokens before it are valid compatible neighbours, so they are that prefix's
unique encoding and no other path of the search reaches it. The bitfield spares the compatibility
test of a candidate that ends at a dead position (the test would fail). ``longest_prefix`` is the token trie
(:func:`~.step08_valid_tokens.prefix_trie`).

>>> from bpe_ref.encode.step06_naive import merge_ranks
>>> backtrack_encode(b"abcbc", merge_ranks([(b"a", b"b"), (b"b", b"c"), (b"ab", b"c")]))
[b'abc', b'bc']
>>> from bpe_ref.encode.common import MergeTables
>>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"bc", 258: b"abc"}
>>> tables = MergeTables(vocab, [(b"a", b"b"), (b"b", b"c"), (b"ab", b"c")])
>>> BacktrackEncoder(tables).encode(b"abcbc")   # longest prefix first: "abc", then "bc"
[258, 257]
"""

from __future__ import annotations

from collections.abc import Mapping

from .common import NO_TOKEN, MergeTables
from .step06_naive import Pair
from .step08_valid_tokens import ValidTokens, prefix_trie


def backtrack_encode(pretoken: bytes, ranks: Mapping[Pair, int]) -> list[bytes]:
    """The tokens of one pretoken, found as its valid encoding by the backtracking search (lab 08,
    task 2): the same tokens as step 06's ``encode_pretoken``, in O(L) for ``L`` bytes.

    Needs every merge to make different bytes (``ValueError`` otherwise, as the encoder says).

    >>> backtrack_encode(b"aaaaa", {(b"a", b"a"): 0, (b"aa", b"a"): 1})
    [b'aa', b'aaa']
    """
    tables = MergeTables.from_ranks(ranks)
    return [tables.token_bytes[t] for t in BacktrackEncoder(tables).encode(pretoken)]  # ids = numbers here


class BacktrackEncoder:
    """Longest-prefix search with backtracking over compatible token pairs."""

    def __init__(self, tables: MergeTables, valid: ValidTokens | None = None) -> None:
        self.valid = valid if valid is not None else ValidTokens(tables)
        self.token_ids = tables.token_ids
        # longest_prefix[p]: the longest valid token that is a prefix of p, for every path p of the trie
        self.longest_prefix = prefix = prefix_trie(self.valid.token_of)
        token_bytes = tables.token_bytes
        # next_prefix[t]: the longest valid token that is a proper prefix of t (NO_TOKEN for a byte)
        self.next_prefix = [
            prefix[token_bytes[t][:-1]] if is_valid and len(token_bytes[t]) > 1 else NO_TOKEN
            for t, is_valid in enumerate(self.valid.valid)
        ]

    def _longest_prefix(self, data: bytes, pos: int) -> int:
        """The longest valid token starting at ``pos``: walk down the trie while the path exists."""
        table = self.longest_prefix
        end = pos + 1
        stop = min(len(data), pos + self.valid.max_token_length)
        while end < stop and data[pos : end + 1] in table:
            end += 1
        return table[data[pos:end]]  # one byte is always a token, so this path always exists

    def encode(self, data: bytes) -> list[int]:
        """The vocabulary ids of one pretoken's bytes."""
        n = len(data)
        length = self.valid.token_length
        next_prefix = self.next_prefix
        compatible = self.valid.compatible
        longest_prefix = self._longest_prefix
        alive = bytearray(b"\x01") * (n + 1)  # the bitfield: alive[p] == 0 once p is a dead end
        tokens: list[int] = []
        pos = 0
        token = longest_prefix(data, 0) if n else NO_TOKEN
        while pos < n:
            last = tokens[-1] if tokens else NO_TOKEN
            end = pos + length[token]
            if alive[end] and (last == NO_TOKEN or compatible(last, token)):
                tokens.append(token)
                pos = end
                if pos < n:
                    token = longest_prefix(data, pos)
                continue
            shorter = next_prefix[token]
            if shorter != NO_TOKEN:
                token = shorter
                continue
            # Nothing fits at `pos`: it is no boundary of the valid encoding. Back up one token
            # and retry it: its end is now dead, so the retry moves on to its shorter prefixes
            # (or, for a single byte, backs up once more).
            alive[pos] = 0
            if last == NO_TOKEN:  # cannot happen: the valid encoding always exists
                raise RuntimeError(f"backtracking encoder found no encoding for {data!r}")
            tokens.pop()
            pos -= length[last]
            token = last
        ids = self.token_ids
        return [ids[t] for t in tokens]
