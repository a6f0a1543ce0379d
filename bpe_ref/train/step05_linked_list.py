"""The linked-list trainer: update only the neighbourhood of each merged occurrence.

V5 still rewrites every affected word whole: take out all its pairs, merge, put them all back,
O(L) per word for a word of L tokens, even when the merge touched one spot of it. Where words are
long (Chinese has no spaces, so a pretoken is a whole run of characters), that is most of the
run. Here the token stream is a doubly linked list, so merging (A, B) at one occurrence costs
O(1), whatever the word's length:

- the left neighbour x loses (x, A) and gains (x, AB);
- the right neighbour y loses (B, y) and gains (AB, y);
- the node of A becomes AB, the node of B is unlinked.

Every distinct word's tokens are nodes of one array-backed list (``token``, ``prev``, ``next_``;
``prev``/``next_`` are -1 at a word's ends), built by :func:`link_words`. ``occurrences[pair]``
lists the nodes where ``pair`` starts, append-only and checked lazily, as V4's index is: a listed
node that no longer starts (A, B) (its token changed, or it was unlinked) is skipped.
:func:`merge_occurrences` merges one pair everywhere (lab 05's task 4).

A merge's changes are summed per pair first (``changes``) and applied to the counts and the heap
once per pair: many occurrences share a neighbour, so this is far fewer heap operations than
occurrences. The summing itself waits for the end of the pass: each occurrence only files its new
node under its neighbour's token (``x`` for ``(x, AB)``, ``y`` for ``(AB, y)``), one dict look-up
per side. Then, once per neighbour, the frequencies of its nodes are summed (``sum`` over
``node_frequency``, a loop in C), the two changes are made, and its list of nodes goes to
``occurrences`` whole. On the Chinese corpus the pass does 1.6 million occurrences for about
0.45 million neighbours: building the pairs and summing once per neighbour instead of once per
occurrence takes about a fifth off :func:`merge_occurrences` (timed merge by merge against the
per-occurrence version). The heap is chosen once, by name (:mod:`bpe_ref.train.pair_heaps`, one
interface for both): V5's lazy heap (``heap="lazy"``, the default: ``heapq``'s sifting runs in C)
or, as in the design this follows, an indexed heap whose keys change priority in place with
increase-key and decrease-key and which never holds a stale entry (``heap="indexed"``).

Pitfall, self-overlap: in ``a a a`` merging (a, a), the first occurrence's right neighbour forms
(a, a) again, the very pair being merged. Occurrences of a pair (A, A) are processed left to right
(node ids grow along a word), the second one finds its node unlinked and is skipped, and changes
to the merged pair itself are dropped (it is gone: every occurrence merged). ``a a a`` becomes
``aa a``, as the rule says. Theory: ``theory/05-heap.md``.

>>> train({b"low": 5, b"lower": 2, b"newest": 6, b"widest": 3}, 3)
[(b's', b't'), (b'e', b'st'), (b'o', b'w')]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping
from functools import partial

from .common import Pair, Word
from .driver import MergeStep, run_merges
from .pair_heaps import pair_heap
from .step01_naive import split_into_bytes

__all__ = ["link_words", "merge_occurrences", "merge_steps", "train"]

_UNLINKED = b""  # the token of a node removed from the list (no real token is empty)


def link_words(
    word_counts: Mapping[Word, int],
) -> tuple[list[bytes], list[int], list[int], list[int], defaultdict[Pair, list[int]]]:
    """The linked list of ``word_counts``: ``(token, prev, next_, node_frequency, occurrences)``.

    One node per token of every distinct word, words one after the other; ``prev``/``next_`` are -1
    at a word's ends; ``node_frequency[node]`` is the frequency of the node's word;
    ``occurrences[pair]`` lists the nodes where ``pair`` starts.

    >>> token, prev, next_, node_frequency, occurrences = link_words({(b"a", b"b", b"a"): 2, (b"a", b"b"): 1})
    >>> token, prev, next_, node_frequency
    ([b'a', b'b', b'a', b'a', b'b'], [-1, 0, 1, -1, 3], [1, 2, -1, 4, -1], [2, 2, 2, 1, 1])
    >>> dict(occurrences)
    {(b'a', b'b'): [0, 3], (b'b', b'a'): [1]}
    """
    token: list[bytes] = []
    prev: list[int] = []
    next_: list[int] = []
    node_frequency: list[int] = []
    occurrences: defaultdict[Pair, list[int]] = defaultdict(list)
    for word, frequency in word_counts.items():
        start, length = len(token), len(word)
        token.extend(word)
        prev.append(-1)
        prev.extend(range(start, start + length - 1))
        next_.extend(range(start + 1, start + length))
        next_.append(-1)
        node_frequency.extend([frequency] * length)
        for node, pair in enumerate(zip(word, word[1:]), start):
            occurrences[pair].append(node)
    return token, prev, next_, node_frequency, occurrences


def merge_occurrences(
    pair: Pair,
    token: list[bytes],
    prev: list[int],
    next_: list[int],
    node_frequency: list[int],
    occurrences: dict[Pair, list[int]],
) -> tuple[dict[Pair, int], list[int]]:
    """Merge every live occurrence of ``pair`` in the linked list, in place, O(1) each.

    Takes the pair's nodes out of ``occurrences`` and skips a node that no longer starts the pair
    (stale: its token changed, or it was unlinked). At a live one, the node of the left token
    becomes the merged token, the node of the right token is unlinked (its token becomes ``b""``),
    and the nodes of the two new pairs are appended to ``occurrences``. Returns the pair count
    changes, summed per pair (zero changes and the merged pair itself left out), and the nodes
    where the pair was merged.

    Self-overlap: the nodes of a pair (A, A) are taken left to right (node ids grow along a word),
    so in ``a a a`` the second occurrence finds its node unlinked: ``aa a``, as the rule says.

    >>> token, prev, next_, node_frequency, occurrences = link_words({(b"a", b"a", b"a"): 1})
    >>> merge_occurrences((b"a", b"a"), token, prev, next_, node_frequency, occurrences)
    ({(b'aa', b'a'): 1}, [0])
    >>> token, next_
    ([b'aa', b'', b'a'], [2, 2, -1])
    """
    left, right = pair
    merged = left + right
    # The nodes of the new pairs, grouped by the neighbour's token: (x, AB) starts at the left
    # neighbour's node, (AB, y) at the merged node. One dict look-up keyed by a token per side,
    # no pair built and no count summed per occurrence: both wait for the loop's end, once per
    # neighbour (see the docstring of merge_steps).
    before_by_x: defaultdict[bytes, list[int]] = defaultdict(list)
    merged_by_y: defaultdict[bytes, list[int]] = defaultdict(list)
    merged_nodes = []
    nodes = occurrences.pop(pair, [])
    if left == right:
        nodes.sort()  # self-overlap: left to right within a word, as the rule says
    for node in nodes:
        if token[node] != left:
            continue  # stale: this node's token has changed since it was listed
        follower = next_[node]
        if follower == -1 or token[follower] != right:
            continue  # stale: its right neighbour has changed
        before, after = prev[node], next_[follower]
        if before != -1:  # x A B -> x AB: (x, A) lost, (x, AB) gained at the node before
            before_by_x[token[before]].append(before)
        if after != -1:  # A B y -> AB y: (B, y) lost, (AB, y) gained at this node
            merged_by_y[token[after]].append(node)
            prev[after] = node
        token[node] = merged
        token[follower] = _UNLINKED
        next_[node] = after
        merged_nodes.append(node)
    # Once per neighbour: the frequencies of its occurrences summed (the node before is in the same
    # word, so it has the same frequency), the two count changes, and the new pair's nodes listed.
    changes: dict[Pair, int] = {}

    def record(lost: Pair, gained: Pair, new_nodes: list[int]) -> None:
        frequency = sum(map(node_frequency.__getitem__, new_nodes))
        changes[lost] = changes.get(lost, 0) - frequency
        changes[gained] = changes.get(gained, 0) + frequency
        listed = occurrences.get(gained)  # a token's bytes can come from two merges: (a, bc) and (ab, c)
        if listed is None:
            occurrences[gained] = new_nodes
        else:
            listed.extend(new_nodes)

    for x, new_nodes in before_by_x.items():
        record((x, left), (x, merged), new_nodes)
    for y, new_nodes in merged_by_y.items():
        record((right, y), (merged, y), new_nodes)
    changes.pop(pair, None)  # self-overlap: the merged pair is gone, whatever its neighbours said
    if 0 in changes.values():  # rare (a pair lost and gained as much): a scan in C decides whether to filter
        changes = {changed: change for changed, change in changes.items() if change}
    return changes, merged_nodes


def merge_steps(pretoken_counts: Mapping[bytes, int], heap: str = "lazy") -> Iterator[MergeStep]:
    """The linked list's merges, one per iteration, until no pair is left (:func:`train` decides how many).

    ``heap`` names the heap of pairs (:data:`~bpe_ref.train.pair_heaps.HEAPS`): ``"lazy"``, V5's, or
    ``"indexed"``, which never holds a stale entry.
    """
    word_counts = {split_into_bytes(pretoken): frequency for pretoken, frequency in pretoken_counts.items()}
    token, prev, next_, node_frequency, occurrences = link_words(word_counts)
    # A pair's count is the frequency of each node where it starts, summed: one pass of C per pair
    # (the list already holds every window, so page 01's count_pairs would walk them all again).
    pair_counts = {pair: sum(map(node_frequency.__getitem__, nodes)) for pair, nodes in occurrences.items()}
    # The word each node belongs to (for the trace's count of words).
    node_word = [word_id for word_id, word in enumerate(word_counts) for _ in word]

    queue = pair_heap(heap, pair_counts)  # "lazy" or "indexed", chosen once: both have one interface
    while pair_counts:
        pair, stale_pops = queue.pop_best(pair_counts)
        count = pair_counts.pop(pair)
        changes, merged_nodes = merge_occurrences(pair, token, prev, next_, node_frequency, occurrences)
        grown, shrunk = [], []
        for changed_pair, change in changes.items():
            new_count = pair_counts.get(changed_pair, 0) + change
            if new_count:
                pair_counts[changed_pair] = new_count
            else:
                del pair_counts[changed_pair]
            (grown if change > 0 else shrunk).append(changed_pair)
        queue.refresh(grown, pair_counts, shrunk)  # the lazy heap pushes the grown; the indexed one moves both
        # The words are counted only if a trace asks (MergeStep): a set per merge is a tenth of the run.
        yield MergeStep(pair=pair, count=count, affected_words=partial(_count_words, node_word, merged_nodes),
                        heap_size=len(queue), stale_pops=stale_pops)


def _count_words(node_word: list[int], nodes: list[int]) -> int:
    """How many distinct words hold these nodes."""
    return len(set(map(node_word.__getitem__, nodes)))


def train(pretoken_counts: Mapping[bytes, int], num_merges: int) -> list[Pair]:
    """Learn up to ``num_merges`` merges from pretoken counts; fewer when no pair is left."""
    return run_merges(merge_steps(pretoken_counts), num_merges)
