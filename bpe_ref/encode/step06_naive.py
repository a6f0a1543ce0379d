"""Step 06: the encoder a learner writes first: apply the merges in training order.

A pretoken starts as its bytes. Find the merge of lowest rank (earliest in training) among the
adjacent pairs, apply it everywhere in one left-to-right pass, and repeat until no adjacent pair
is a merge. Merges that do not occur are skipped, so this is "every merge in training order, one
pass per merge" without scanning the 50 000 merges that cannot apply (it is GPT-2's original
``encoder.py``). Each round costs a scan of the pretoken, and a pretoken of ``L`` bytes can take
up to ``L - 1`` rounds: O(L²), fine for words, hopeless for one long piece (see the benchmark).

>>> from bpe_ref.encode.common import MergeTables
>>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"aa", 257: b"aaa"}
>>> NaiveEncoder(MergeTables(vocab, [(b"a", b"a"), (b"aa", b"a")])).encode(b"aaaa")
[256, 256]
"""

from __future__ import annotations

from .common import MergeTables

_NOT_A_MERGE = 1 << 62  # ranks above every merge: "this pair is not a merge"


class NaiveEncoder:
    """Lowest-rank merge first, one pass per merge, until no merge applies."""

    def __init__(self, tables: MergeTables) -> None:
        self.pair_to_token = tables.pair_to_token
        self.token_ids = tables.token_ids

    def encode(self, data: bytes) -> list[int]:
        """The vocabulary ids of one pretoken's bytes."""
        rank_of = self.pair_to_token.get
        parts = list(data)  # token number of a single byte = the byte
        while len(parts) > 1:
            # Merged tokens are numbered by rank: the smallest number is the earliest merge.
            best = min(rank_of(pair, _NOT_A_MERGE) for pair in zip(parts, parts[1:]))
            if best == _NOT_A_MERGE:
                break
            merged: list[int] = []
            i = 0
            last = len(parts) - 1
            while i <= last:
                # `== best` rather than a fixed (left, right): with repeated token bytes, several
                # pairs of token numbers can stand for the same merge.
                if i < last and rank_of((parts[i], parts[i + 1])) == best:
                    merged.append(best)
                    i += 2  # non-overlapping: "aaa" -> ["aa", "a"]
                else:
                    merged.append(parts[i])
                    i += 1
            parts = merged
        ids = self.token_ids
        return [ids[t] for t in parts]
