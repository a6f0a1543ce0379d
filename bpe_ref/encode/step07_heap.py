"""Step 07: lowest rank first with a priority queue over a linked list of parts.

The naive encoder rescans the whole pretoken after each merge, though a merge only changes the
pairs next to it. Here the parts of a pretoken form a doubly linked list (``next_start`` /
``prev_start`` arrays indexed by a part's first byte), and a min-heap holds ``(merged token,
start)`` for every adjacent pair that is a merge. Merged tokens are numbered by rank, so the heap
pops the lowest rank first, and on equal rank the smallest start: the leftmost, as the course's
rule says. Applying a merge creates at most two new pairs (with the left and right neighbours),
pushed onto the heap. Entries made stale by earlier merges are not removed; they are recognised
when popped (the part is gone, or the pair at that start no longer makes that token) and
skipped. Each merge costs O(log L): O(L log L) per pretoken.

>>> from bpe_ref.encode.common import MergeTables
>>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"aa", 257: b"aaa"}
>>> HeapEncoder(MergeTables(vocab, [(b"a", b"a"), (b"aa", b"a")])).encode(b"aaaaa")
[256, 257]
"""

from __future__ import annotations

from heapq import heapify, heappop, heappush

from .common import MergeTables

_GONE = -1  # marks a byte position that is no longer the start of a part


class HeapEncoder:
    """Priority queue of mergeable adjacent pairs over a linked list of parts."""

    def __init__(self, tables: MergeTables) -> None:
        self.pair_to_token = tables.pair_to_token
        self.token_ids = tables.token_ids

    def encode(self, data: bytes) -> list[int]:
        """The vocabulary ids of one pretoken's bytes."""
        n = len(data)
        ids = self.token_ids
        if n < 2:
            return [ids[b] for b in data]
        merge_of = self.pair_to_token.get
        part = list(data)  # part[start]: token of the part starting at that byte, or _GONE
        next_start = list(range(1, n + 1))  # n means "no next part"
        prev_start = list(range(-1, n - 1))  # -1 means "no previous part"
        heap = []
        for start in range(n - 1):
            merged = merge_of((part[start], part[start + 1]))
            if merged is not None:
                heap.append((merged, start))
        heapify(heap)
        while heap:
            merged, start = heappop(heap)
            left = part[start]
            if left == _GONE:
                continue  # stale: this part was merged into its left neighbour
            right_start = next_start[start]
            if right_start == n or merge_of((left, part[right_start])) != merged:
                continue  # stale: the part or its right neighbour changed since the push
            # Merge: the part at `start` becomes `merged`, its right neighbour disappears.
            part[start] = merged
            part[right_start] = _GONE
            after = next_start[right_start]
            next_start[start] = after
            if after != n:
                prev_start[after] = start
                new = merge_of((merged, part[after]))
                if new is not None:
                    heappush(heap, (new, start))
            before = prev_start[start]
            if before != -1:
                new = merge_of((part[before], merged))
                if new is not None:
                    heappush(heap, (new, before))
        out = []
        start = 0
        while start != n:
            out.append(ids[part[start]])
            start = next_start[start]
        return out
