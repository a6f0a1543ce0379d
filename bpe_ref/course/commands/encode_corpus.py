"""``python -m bpe_ref encode-corpus PATH [PATH ...] --model DIR --out FILE.npy``: a corpus as token ids.

    python -m bpe_ref train data/tinystories/*.txt --vocab-size 2000 --out out/ts2k
    python -m bpe_ref encode-corpus data/tinystories/*.txt --model out/ts2k --out out/ts2k.npy
    python -m bpe_ref encode-corpus data/tinystories/*.txt --model out/ts2k --out out/ts2k.npy --engine dask --workers 2

The output is one NumPy ``.npy`` file (``np.load(path, mmap_mode="r")`` maps it): exactly
``Tokenizer.encode`` of each file's text, file after file, with nothing marking where a file ends
(the command prints how many ids each gave); ``uint16`` when every id is below 65,536, else
``uint32`` (the command says so).

Each file is cut into byte ranges at special tokens, where encoding is additive
(:func:`bpe_ref.distributed.plan_ranges`), encoded one after another here or on a Dask cluster's
workers (``--engine dask``), and written in order, one range at a time, to a temporary file renamed
only when complete.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from . import add_special_token_arguments, at_least_one, check_output_file, load_model, plural, progress_bar, special_tokens_of
from .engine import add_engine_arguments, check_engine_arguments, dask_client

RANGE_BYTES = 8 << 20  # at most about this much text per range (where special tokens allow a cut)
RANGES_PER_THREAD = 4  # with Dask, at least this many ranges per worker thread, to share the work out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="UTF-8 files, encoded in this order")
    parser.add_argument("--model", type=Path, required=True, metavar="DIR",
                        help="folder with vocab.json and merges.txt (what train --out and Tokenizer.save write)")
    parser.add_argument("--out", type=Path, required=True, metavar="FILE",
                        help="the .npy file to write (uint16 ids, or uint32 for a vocabulary with ids of 65,536 or more)")
    add_special_token_arguments(parser)
    parser.add_argument("--workers", type=at_least_one, default=None,
                        help="with --engine dask: the workers of the local cluster (default: one per core)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_engine_arguments(parser, "one process, one range after another")


def run(args: argparse.Namespace) -> int:
    from ...distributed import cluster_threads, corpus_paths, encoding_model, token_dtype

    # Everything that can be refused is refused before any work: files, model, output, options.
    paths = [os.path.abspath(path) for path in corpus_paths(args.paths)]  # as every worker must see them
    if args.workers is not None and args.engine != "dask":
        raise ValueError("--workers is for --engine dask (the local engine encodes in this process)")
    check_engine_arguments(args)
    check_output_file(args.out)
    if args.out.suffix != ".npy":
        raise ValueError(f"--out {args.out}: the output is a NumPy .npy file, so its name must end in .npy")
    special_tokens = special_tokens_of(args)
    tokenizer = load_model(args.model, special_tokens)
    model = encoding_model(tokenizer)
    dtype = token_dtype(model.vocab)
    largest = max(model.vocab)
    if dtype != "uint16":
        print(f"note: the vocabulary's largest id is {largest:,}, more than uint16 holds (65,535): "
              f"writing {dtype}, 4 bytes per token", file=sys.stderr)
    size = sum(os.path.getsize(path) for path in paths)
    print(f"encoding {plural(len(paths), 'file')} ({plural(size, 'byte')}) with {args.model} "
          f"(vocabulary of {plural(len(tokenizer), 'token')}) into {args.out} as {dtype}", file=sys.stderr)

    started = time.perf_counter()
    progress = not args.no_progress
    if args.engine == "dask":
        with dask_client(args.scheduler, args.workers) as client:
            threads = cluster_threads(client)  # a cluster with no worker: one line, not a division by zero
            ranges = plan(paths, special_tokens, threads * RANGES_PER_THREAD)
            lengths = encode_on_dask(client, ranges, model, dtype, args.out, progress)
    else:
        ranges = plan(paths, special_tokens, 1)
        lengths = encode_here(ranges, model, dtype, args.out, progress)
    seconds = time.perf_counter() - started
    total = sum(lengths)
    print_ids_per_file(paths, ranges, lengths)
    print(f"wrote {args.out}: {plural(total, 'token')} ({dtype}) from {plural(size, 'byte')} in "
          f"{plural(len(ranges), 'range')}, {seconds:.2f} s" + (f", {size / total:.2f} bytes per token" if total else ""))
    return 0


def plan(paths: Sequence[str], special_tokens: Sequence[str], min_ranges: int) -> list[tuple[str, int, int]]:
    """Ranges of every file, in order: at most about ``RANGE_BYTES`` each where special tokens
    allow, and about ``min_ranges`` or more in all, so that every worker has work."""
    from ...distributed import plan_ranges_by_size

    total = sum(os.path.getsize(path) for path in paths)
    return plan_ranges_by_size(paths, special_tokens, max(1, min(RANGE_BYTES, math.ceil(total / min_ranges))))


def write_npy(out: Path, dtype: str, lengths: Sequence[int], fetch: Callable[[int], object]) -> int:
    """Write ranges of ids into the ``.npy`` file ``out``: ``fetch(i)`` gives range ``i``'s ids,
    ``lengths[i]`` of them. One range in memory at a time; ``out`` appears only once complete."""
    import numpy as np

    total = sum(lengths)
    partial = out.with_name(out.name + ".partial")
    try:
        ids = np.lib.format.open_memmap(partial, mode="w+", dtype=dtype, shape=(total,))
        position = 0
        for i, length in enumerate(lengths):
            ids[position : position + length] = fetch(i)
            position += length
        ids.flush()
        del ids  # close the map before renaming (Windows)
        os.replace(partial, out)
    finally:
        if partial.exists():
            partial.unlink()
    return total


def print_ids_per_file(paths: Sequence[str], ranges: Sequence[tuple[str, int, int]], lengths: Sequence[int],
                       shown: int = 20) -> None:
    """On standard error, how many ids each file gave: the array holds them end to end, with no
    separator and no offsets, so these numbers are what cuts it back into files."""
    per_file = dict.fromkeys(paths, 0)
    for (path, _, _), length in zip(ranges, lengths):
        per_file[path] += length
    for path, count in list(per_file.items())[:shown]:
        print(f"  {count:,} ids from {path}", file=sys.stderr)
    if len(per_file) > shown:
        print(f"  ... and {len(per_file) - shown:,} more files", file=sys.stderr)


def encode_here(ranges: list[tuple[str, int, int]], model, dtype: str, out: Path, progress: bool) -> list[int]:
    """The local engine: encode each range in this process, keeping the arrays of ids (2 or 4
    bytes a token, a small fraction of the text) until all are written. Returns each range's count."""
    from ...distributed import encode_range

    arrays = []
    with progress_bar(progress, total=sum(end - start for _, start, end in ranges), desc="encoding", unit="B",
                      unit_scale=True) as update:
        for path, start, end in ranges:
            arrays.append(encode_range(path, start, end, model, dtype))
            if update is not None:
                update(end - start)
    lengths = [len(a) for a in arrays]
    write_npy(out, dtype, lengths, arrays.__getitem__)
    return lengths


def encode_on_dask(client, ranges: list[tuple[str, int, int]], model, dtype: str, out: Path, progress: bool) -> list[int]:
    """The Dask engine: the model goes to the workers as one task's result, the ranges are encoded
    there and come back one at a time, in order, as the file is written. Every input is a task's
    (nothing scattered), so a worker that dies costs only the ranges it held, encoded again elsewhere;
    a cluster that cannot go on is a ``ClusterLost`` (:func:`bpe_ref.distributed.wait_for_tasks`)."""
    from distributed import as_completed

    from ...distributed import encode_range, model_task, wait_for_tasks

    if not ranges:  # only empty files: nothing to send
        write_npy(out, dtype, [], lambda i: None)
        return []
    model_on_workers = client.submit(model_task, model, pure=False)
    futures = client.map(encode_range, *zip(*ranges), model=model_on_workers, dtype=dtype, pure=False)
    with progress_bar(progress, total=len(futures), desc=f"encoding {len(ranges)} ranges", unit="range") as update:
        wait_for_tasks(client, as_completed(futures, raise_errors=False), update)
    counted = client.map(len, futures, pure=False)
    wait_for_tasks(client, as_completed(counted, raise_errors=False))
    lengths = client.gather(counted)
    del counted

    def fetch(i: int):
        if futures[i].status != "finished":  # a result lost with a worker is being made again
            wait_for_tasks(client, as_completed([futures[i]], raise_errors=False))
        ids = futures[i].result()
        futures[i] = None  # the worker may forget range i now
        return ids

    write_npy(out, dtype, lengths, fetch)
    return lengths
