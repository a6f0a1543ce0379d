"""The heaps behind V5 and the linked-list trainer: the indexed heap against a model, compaction
that changes memory but never the merges, and the trace fields the theory pages plot."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_ref
from bpe_ref.data_files import CORPUS_EN
from bpe_ref.train.indexed_heap import IndexedMinHeap

SETTINGS = settings(derandomize=True, deadline=None, database=None, max_examples=200)

operations = st.lists(
    st.tuples(st.sampled_from(["push", "update", "pop", "remove"]), st.integers(0, 15), st.integers(-50, 50)),
    max_size=80,
)


@SETTINGS
@given(operations)
def test_indexed_heap_behaves_like_a_dict_with_min(ops: list[tuple[str, int, int]]) -> None:
    heap, model = IndexedMinHeap(), {}
    for op, key, priority in ops:
        if op == "push" and key not in model:
            heap.push(key, (priority, key))
            model[key] = (priority, key)
        elif op == "update" and key in model:
            heap.update(key, (priority, key))
            model[key] = (priority, key)
        elif op == "remove" and key in model:
            heap.remove(key)
            del model[key]
        elif op == "pop" and model:
            expected = min(model.items(), key=lambda kv: kv[1])
            assert heap.pop() == expected
            del model[expected[0]]
        assert len(heap) == len(model)
        assert all(heap.priority(k) == p for k, p in model.items())
    drained = [heap.pop() for _ in range(len(heap))]
    assert drained == sorted(model.items(), key=lambda kv: kv[1])


def test_indexed_heap_rejects_a_second_push_of_the_same_key() -> None:
    heap = IndexedMinHeap()
    heap.push("a", 1)
    with pytest.raises(KeyError, match="already in the heap"):
        heap.push("a", 2)


def test_compaction_bounds_the_heap_and_never_changes_the_merges() -> None:
    runs = {}
    for threshold in (None, 1.2):
        trace: list = []
        _, merges = bpe_ref.train_bpe(CORPUS_EN, 1000, method="heap", trace=trace, compaction_threshold=threshold)
        runs[threshold] = (merges, max(step.heap_size for step in trace), sum(s.stale_pops for s in trace))
    assert runs[None][0] == runs[1.2][0]
    assert runs[1.2][1] < runs[None][1], "compaction at 1.2 should keep the heap smaller"
    assert runs[1.2][2] < runs[None][2], "compaction drops stale entries before they are popped"


def test_compaction_threshold_must_exceed_one() -> None:
    with pytest.raises(ValueError, match="compaction_threshold"):
        bpe_ref.train_bpe_on_text("a b c", 260, special_tokens=[], method="heap", compaction_threshold=1.0)


@pytest.mark.parametrize("method", ["heap", "linked_list"])
def test_heap_trainers_trace_heap_size_and_stale_pops(method: str) -> None:
    trace: list = []
    _, merges = bpe_ref.train_bpe_on_text("the cat sat on the mat with the hat " * 3, 270,
                                          special_tokens=[], method=method, trace=trace)
    assert len(trace) == len(merges) > 0
    assert all(step.heap_size is not None and step.heap_size >= 0 for step in trace)
    assert all(step.stale_pops is not None and step.stale_pops >= 0 for step in trace)


def test_linked_list_with_the_indexed_heap_never_pops_a_stale_entry() -> None:
    trace: list = []
    bpe_ref.train_bpe_on_text("the cat sat on the mat with the hat " * 3, 270, special_tokens=[],
                              method="linked_list", trace=trace, heap="indexed")
    assert trace and all(step.stale_pops == 0 for step in trace)  # updated in place: nothing is stale


def test_linked_list_rejects_an_unknown_heap() -> None:
    with pytest.raises(ValueError, match="heap must be one of lazy, indexed"):
        bpe_ref.train_bpe_on_text("a b c", 260, special_tokens=[], method="linked_list", heap="fibonacci")


@given(st.text(alphabet="ab c\n", max_size=200), st.integers(257, 300))
@settings(derandomize=True, deadline=None, database=None, max_examples=150)
def test_both_heaps_of_the_linked_list_give_v5s_merges(text: str, vocab_size: int) -> None:
    """The lazy and the indexed heap pop the same pairs as V5, runs of one letter included."""
    expected = bpe_ref.train_bpe_on_text(text, vocab_size, special_tokens=[], method="heap")[1]
    for heap in ("lazy", "indexed"):
        trace: list = []
        got = bpe_ref.train_bpe_on_text(text, vocab_size, special_tokens=[], method="linked_list", heap=heap,
                                        trace=trace)[1]
        assert got == expected, f"heap={heap!r}"


def test_linked_list_self_overlap_merges_left_to_right() -> None:
    # "aaaaa": (a, a) x4 windows -> [aa, aa, a]; then (aa, aa) and (aa, a) tie on count 1:
    # (b"aa", b"aa") > (b"aa", b"a"), so (aa, aa) is merged first.
    _, merges = bpe_ref.train_bpe_on_text("aaaaa", 259, special_tokens=[], method="linked_list")
    assert merges == [(b"a", b"a"), (b"aa", b"aa"), (b"aaaa", b"a")]
