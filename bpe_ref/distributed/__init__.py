"""Beyond one machine (step 10): the corpus on a Dask cluster, one module per idea.

- :mod:`.pretoken_counts`: step 10, the pretoken counts of many files as a map and a reduce on
  the cluster's workers, then merged centrally for any trainer (lab 10's functions live here);
- :mod:`.cluster`: connecting to a cluster (a local one, or a running one by address), sending a
  task's result as one pickle, and waiting for the tasks with one clear error when the cluster
  cannot go on;
- :mod:`.corpus_encoding`: encoding a corpus into token ids range by range on the workers, for
  ``python -m bpe_ref encode-corpus``.

Each needs ``dask`` and ``distributed`` only when a cluster is used. Their public names are
importable from here too (``from bpe_ref.distributed import count_range, connect``).
"""

from __future__ import annotations

from .cluster import (
    CONNECT_TIMEOUT,
    FIRST_WORKER_TIMEOUT,
    WORKERLESS_SECONDS,
    ClusterLost,
    NotAScheduler,
    Packed,
    check_scheduler_answers,
    cluster_threads,
    connect,
    packed_call,
    submitting,
    wait_for_tasks,
    worker_error,
)
from .corpus_encoding import EncodingModel, encode_range, encoding_model, model_task, token_dtype
from .pretoken_counts import (
    MAX_RANGE_BYTES,
    RANGES_PER_WORKER,
    FileRange,
    check_paths,
    corpus_paths,
    count_pretokens_on_cluster,
    count_pretokens_with,
    count_range,
    count_ranges,
    merge_two,
    plan_ranges,
    plan_ranges_by_size,
    range_bytes_for,
    serial_count,
    tree_reduce,
)

__all__ = [
    "CONNECT_TIMEOUT", "FIRST_WORKER_TIMEOUT", "MAX_RANGE_BYTES", "RANGES_PER_WORKER", "WORKERLESS_SECONDS", "ClusterLost", "EncodingModel",
    "FileRange", "NotAScheduler", "Packed", "check_paths", "check_scheduler_answers", "cluster_threads", "connect",
    "corpus_paths", "count_pretokens_on_cluster", "count_pretokens_with", "count_range", "count_ranges", "encode_range",
    "encoding_model", "merge_two", "model_task", "packed_call", "plan_ranges", "plan_ranges_by_size", "range_bytes_for",
    "serial_count", "submitting", "token_dtype", "tree_reduce", "wait_for_tasks", "worker_error",
]
