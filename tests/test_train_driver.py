"""The one driver of the trainers (bpe_ref.train.driver): how many merges, the trace, the time
budget; the merge loops themselves only yield what each merge did."""

from __future__ import annotations

import gc

import pytest

from bpe_ref import TRAIN_METHODS, train_bpe_on_text
from bpe_ref.train import trainer_module
from bpe_ref.train.driver import MergeStep, run_merges

LOW = {b"low": 5, b"lower": 2, b"newest": 6, b"widest": 3}


def test_no_merge_is_asked_beyond_num_merges():
    asked = []

    def steps():
        for n in range(10):
            asked.append(n)
            yield MergeStep(pair=(bytes([97 + n]), b"z"), count=1, affected_words=1)

    assert run_merges(steps(), 0) == [] and asked == []  # the loop does not even start
    assert len(run_merges(steps(), 3)) == 3 and asked == [0, 1, 2]


def test_the_trainer_is_closed_while_the_collector_is_paused():
    """Its data is freed before gc.enable(): the first collection after it would walk it all."""
    collector_on_at_close = []

    def steps():
        try:
            for n in range(10):
                yield MergeStep(pair=(bytes([97 + n]), b"z"), count=1, affected_words=1)
        finally:
            collector_on_at_close.append(gc.isenabled())

    was_enabled = gc.isenabled()
    gc.enable()
    try:
        assert len(run_merges(steps(), 3)) == 3
        assert collector_on_at_close == [False] and gc.isenabled()
    finally:
        if not was_enabled:
            gc.disable()


def test_a_spent_deadline_stops_after_one_merge():
    trace: list[MergeStep] = []
    merges = run_merges(trainer_module("heap").merge_steps(LOW), 10, trace=trace, deadline=0.0)
    assert merges == [(b"s", b"t")] and [step.pair for step in trace] == merges


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_every_trainer_runs_through_the_driver(method):
    module = trainer_module(method)
    expected = [(b"s", b"t"), (b"e", b"st"), (b"o", b"w")]
    assert module.train(LOW, 3) == expected
    assert [step.pair for step in module.merge_steps(LOW)][:3] == expected  # the loop runs until no pair is left
    _, merges = train_bpe_on_text("low lower", 1000, special_tokens=[], method=method, time_budget=0.0)
    assert len(merges) == 1  # the budget is spent at once: one merge, then stop


def test_merge_step_is_keyword_only():
    with pytest.raises(TypeError):
        MergeStep((b"a", b"b"), 3, 1)  # type: ignore[misc]
    step = MergeStep(pair=(b"a", b"b"), count=3, affected_words=1)
    assert (step.left, step.right, step.heap_size, step.stale_pops) == (b"a", b"b", None, None)
