"""Step 03's counting pool never forks a process that runs threads.

Python 3.12+ warns that ``fork()`` in a multi-threaded process may deadlock the child (a Jupyter
kernel always runs threads), and 3.14 no longer forks by default on Linux, so the pool chooses its
start method itself (:func:`bpe_ref.train.step03_parallel.worker_context`). These tests keep it that way.
"""

from __future__ import annotations

import multiprocessing
import random
import sys
import threading
import warnings
from concurrent.futures import ProcessPoolExecutor

import pytest

from bpe_ref.pretokenize import count_pretokens
from bpe_ref.train import step03_parallel
from bpe_ref.train.step03_parallel import count_pretokens_in_file, worker_context

EOT = "<|endoftext|>"
TEXT = EOT.join(f"Story {i}: the cat sat on the mat, {i} times." for i in range(200))


def test_the_workers_are_not_started_by_fork():
    method = worker_context().get_start_method()
    assert method != "fork"
    if sys.platform.startswith("linux"):
        assert method == "forkserver"  # as fast as fork once running, and 3.14's default there
    assert method in multiprocessing.get_all_start_methods()


def test_the_counting_pool_is_given_that_context(monkeypatch, write_corpus):
    methods: list[str | None] = []

    class RecordingPool(ProcessPoolExecutor):
        def __init__(self, *args, **kwargs):
            context = kwargs.get("mp_context")
            methods.append(context.get_start_method() if context is not None else None)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(step03_parallel, "ProcessPoolExecutor", RecordingPool)
    assert count_pretokens_in_file(write_corpus(TEXT), [EOT], num_workers=2) == count_pretokens(TEXT, [EOT])
    assert methods == [worker_context().get_start_method()], f"the pool was created with start methods {methods}"


def test_counting_beside_a_running_thread_raises_no_deprecation_warning(write_corpus):
    """What a kernel does: a thread is alive while the pool starts; on 3.12+ a fork would warn.

    The warnings are recorded rather than turned into errors: CPython issues this one in the
    parent right after ``fork()`` and does not let an "error" filter raise it there.
    """
    path = write_corpus(TEXT)
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, daemon=True)
    thread.start()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            counts = count_pretokens_in_file(path, [EOT], num_workers=2)
    finally:
        stop.set()
        thread.join()
    deprecations = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    assert not deprecations, deprecations
    assert counts == count_pretokens(TEXT, [EOT])


# ---- equal to the serial count under every start method ------------------------------------------

PIECES = ["the", " cat", " 42", "!!", "  ", "\n", "é", "日本", "🙂", " don't", "<|endoftext|>", "<s>", "<|end"]


def generated_text(seed: int, length: int = 3000) -> str:
    """Text with special tokens anywhere (at the start, the end, twice in a row), multi-byte
    characters and a special token's prefix that is not one."""
    rng = random.Random(seed)
    return "".join(rng.choice(PIECES) for _ in range(length))


@pytest.mark.parametrize("start_method", multiprocessing.get_all_start_methods())
@pytest.mark.parametrize("num_workers, chunks_per_worker", [(2, 1), (3, 4)])
def test_parallel_counts_equal_the_serial_count_under_every_start_method(write_corpus, start_method, num_workers,
                                                                       chunks_per_worker):
    """``spawn`` (macOS, Windows), ``forkserver`` and ``fork`` workers all count what one process counts."""
    special_tokens = [EOT, "<s>"]
    for seed in range(2):
        text = generated_text(seed)
        counts = count_pretokens_in_file(write_corpus(text), special_tokens, num_workers=num_workers,
                                         chunks_per_worker=chunks_per_worker, start_method=start_method)
        assert counts == count_pretokens(text, special_tokens), (
            f"{start_method}, {num_workers} workers x {chunks_per_worker} chunks, text seed {seed}: "
            "the parallel count differs from the serial one")


def test_an_unknown_start_method_is_refused_before_any_work(write_corpus):
    with pytest.raises(ValueError, match="start_method must be one of"):
        count_pretokens_in_file(write_corpus(TEXT), [EOT], num_workers=2, start_method="thread")
