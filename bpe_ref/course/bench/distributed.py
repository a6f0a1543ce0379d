"""``python -m bpe_ref bench distributed``: the rates page 10 answers from, measured on this machine.

Four parts, each a function below: Heaps' law (distinct pretokens of growing prefixes, no timing), what
would cross the network (pickled sizes of ranges, their counts and Dask's messages), rates (counting,
adding count dicts, the merge loop on counts and on the same counts times 1,000: a corpus a thousand
times larger with the same words takes the same merges and time), and Dask on this machine (1 and 2
workers against one process). Writes ``theory/benchmarks/distributed/results.json`` and a README; page
10's figures (:mod:`bpe_ref.course.figures.beyond_one_machine`) read it and time nothing. About two to
three minutes on two cores.
"""

from __future__ import annotations

import argparse
import math
import pickle
import tempfile
import time
from hashlib import sha256
from pathlib import Path

from ...corpus import read_corpus
from ...data_files import CHINESE_NOVEL, CORPUS_EN, RUSSIAN_STORIES, SPANISH_NOVEL, TINYSTORIES_2MIB, TINYSTORIES_SAMPLE
from ...pretokenize import count_pretokens, pretokenize
from ...measure import fit_exponent
from ..commands import at_least_one
from .common import (SPECIAL_TOKENS, add_output_arguments, announce, corpus_counts, deep_size, finish, load_average,
                     markdown_sections, median_time, pair_counts, today)
from .parallel import corpus_of_size
# (label, file): the shipped corpora of more than 100 KB, as page 10 names them
CORPORA: tuple[tuple[str, Path], ...] = (
    ("TinyStories 2 MiB (en)", TINYSTORIES_2MIB),
    ("TinyStories V2 10k lines (en)", TINYSTORIES_SAMPLE),
    ("corpus.en (en)", CORPUS_EN),
    ("TinyStories ru", RUSSIAN_STORIES),
    ("Don Quijote (es)", SPANISH_NOVEL),
    ("Hongloumeng (zh)", CHINESE_NOVEL),
)
HEAPS_POINTS = 24  # prefix sizes per corpus, evenly spaced on a log scale
RANGE_COUNTS = (2, 8, 32, 128)  # k: ranges the network measurement cuts the 2 MiB sample into
MERGES = (1000, 4000)
COUNT_SCALE = 1000  # "the same corpus 1,000 times": every count multiplied
DASK_CORPUS_COPIES = 8  # the 2 MiB sample 8 times: 16 MiB
ROUND_TRIPS = 50


def heaps_points(path: Path) -> dict:
    """Distinct pretokens ``W`` among the first ``n`` pretokens (in order, special tokens removed, as
    counting does), at ``HEAPS_POINTS`` values of ``n`` evenly spaced on a log scale from 100 to all; with the
    bytes those ``n`` pretokens hold."""
    stream = [pretoken.encode("utf-8") for pretoken in pretokenize(read_corpus(path), SPECIAL_TOKENS)]
    marks = sorted({min(len(stream), round(100 * (len(stream) / 100) ** (i / (HEAPS_POINTS - 1)))) for i in range(HEAPS_POINTS)})
    seen: set[bytes] = set()
    size = 0
    rows = []
    wanted = iter(marks)
    mark = next(wanted)
    for n, pretoken in enumerate(stream, start=1):
        seen.add(pretoken)
        size += len(pretoken)
        if n == mark:
            rows.append({"pretokens": n, "bytes": size, "distinct": len(seen)})
            mark = next(wanted, None)
            if mark is None:
                break
    return {"file": path.name, "file_bytes": path.stat().st_size, "points": rows}


def network_sizes(path: Path) -> list[dict]:
    """For each ``k`` of ``RANGE_COUNTS``: the sizes (pickled bytes, summed over the ranges) of what
    would cross the network if the file were counted in ``k`` ranges."""
    from ...distributed import count_range, plan_ranges

    rows = []
    for k in RANGE_COUNTS:
        ranges = plan_ranges([path], SPECIAL_TOKENS, k)
        text = arguments = counts_size = pairs_size = distinct = 0
        for file, start, end in ranges:
            counts = count_range(file, start, end, SPECIAL_TOKENS)
            with open(file, "rb") as handle:
                handle.seek(start)
                text += len(pickle.dumps(handle.read(end - start), protocol=5))
            arguments += len(pickle.dumps((file, start, end, SPECIAL_TOKENS), protocol=5))
            counts_size += len(pickle.dumps(counts, protocol=5))
            # what each range would send if the cluster counted pairs instead of pretokens
            pairs_size += len(pickle.dumps(pair_counts(counts), protocol=5))
            distinct += len(counts)
        rows.append({"ranges": len(ranges), "asked": k, "text_bytes": text, "argument_bytes": arguments,
                     "count_bytes": counts_size, "pair_count_bytes": pairs_size, "distinct_summed": distinct})
    return rows


def dask_message_sizes(path: Path, repeats: int) -> dict:
    """The frames and bytes of the whole file's count dict as a worker sends a task's result
    (``distributed.protocol.dumps`` of a message holding ``to_serialize(result)``), for the plain
    dict and for it wrapped in :class:`~bpe_ref.distributed.Packed`, with the time to encode each."""
    from distributed.protocol import dumps, to_serialize

    from ...distributed import Packed, count_range

    counts = count_range(str(path), 0, path.stat().st_size, SPECIAL_TOKENS)
    sizes: dict = {"entries": len(counts), "pickle_bytes": len(pickle.dumps(counts, protocol=5))}
    for label, result in (("plain", counts), ("packed", Packed(counts))):
        message = lambda: dumps({"op": "task-finished", "result": to_serialize(result)})
        frames = message()
        sizes[label] = {"frames": len(frames), "bytes": sum(memoryview(frame).nbytes for frame in frames),
                        "seconds": median_time(message, repeats)}
    return sizes


def counting_rates(repeats: int) -> list[dict]:
    """Bytes per second one process counts, per corpus (the text already in memory)."""
    rows = []
    for label, path in CORPORA:
        text = read_corpus(path)
        seconds = median_time(lambda: count_pretokens(text, SPECIAL_TOKENS), repeats)
        rows.append({"corpus": label, "bytes": len(text.encode("utf-8")), "seconds": seconds})
    return rows


def reduce_rate(repeats: int) -> dict:
    """How fast ``merge_two`` adds two count dicts: the two halves of the 2 MiB sample, and the 32
    ranges of it added up by ``tree_reduce``."""
    from ...distributed import count_range, merge_two, plan_ranges, tree_reduce

    halves = [count_range(*r, SPECIAL_TOKENS) for r in plan_ranges([TINYSTORIES_2MIB], SPECIAL_TOKENS, 2)]
    parts = [count_range(*r, SPECIAL_TOKENS) for r in plan_ranges([TINYSTORIES_2MIB], SPECIAL_TOKENS, 32)]
    return {
        "two_halves_entries": sum(map(len, halves)),
        "two_halves_seconds": median_time(lambda: merge_two(*halves), repeats * 4),
        "tree_parts": len(parts),
        "tree_entries": sum(map(len, parts)),
        "tree_seconds": median_time(lambda: tree_reduce(parts, merge_two), repeats),
    }


def merge_loop_times(repeats: int) -> list[dict]:
    """Seconds of the default trainer's merge loop (``train_on_counts``) on each corpus's counts,
    for each number of ``MERGES``; for the TinyStories sample also on its counts times ``COUNT_SCALE``."""
    from ...train import train_on_counts

    rows = []
    for label, path in CORPORA:
        counts = corpus_counts(path)
        cases = [(label, counts, 1)]
        if path == TINYSTORIES_2MIB:
            cases.append((label, {word: count * COUNT_SCALE for word, count in counts.items()}, COUNT_SCALE))
        for name, case_counts, scale in cases:
            for merges in MERGES:
                size = 256 + len(SPECIAL_TOKENS) + merges
                learned: list = []
                seconds = median_time(lambda: learned.append(train_on_counts(case_counts, size, SPECIAL_TOKENS)[1]), repeats)
                rows.append({"corpus": name, "scale": scale, "merges": merges, "learned": len(learned[0]),
                             "distinct": len(case_counts), "distinct_bytes": sum(map(len, case_counts)),
                             "seconds": seconds, "merges_digest": sha256(repr(learned[0]).encode()).hexdigest()[:16]})
    return rows


def memory_per_entry() -> dict:
    """Bytes a count dict takes in this Python, per entry (:func:`.common.deep_size`): the dict itself, the
    pretoken ``bytes`` objects and the ``int`` counts (each small int shared by many entries counted once)."""
    counts = corpus_counts(TINYSTORIES_2MIB)
    total = deep_size(counts)
    return {"entries": len(counts), "bytes": total, "bytes_per_entry": total / len(counts)}


def dask_scaling(repeats: int, directory: Path) -> dict:
    """A 16 MiB corpus counted serially here, and with ``count_pretokens_with`` on a local cluster of
    1 and 2 worker processes; cluster start and a tiny task's round trip timed apart."""
    from ...distributed import connect, packed_call, count_pretokens_with, count_range, plan_ranges, serial_count
    from ...train.step03_parallel import count_pretokens_in_file

    load_before = load_average()
    path = corpus_of_size(2.0 * DASK_CORPUS_COPIES, directory)
    reference = serial_count([path], SPECIAL_TOKENS)
    result: dict = {"bytes": path.stat().st_size,
                    "serial_seconds": median_time(lambda: count_pretokens_in_file(path, SPECIAL_TOKENS, 1), repeats),
                    "workers": []}
    one_range = plan_ranges([path], SPECIAL_TOKENS, DASK_CORPUS_COPIES // 2)[0]
    result["one_range"] = {"bytes": one_range[2] - one_range[1],
                           "here_seconds": median_time(lambda: count_range(*one_range, SPECIAL_TOKENS), repeats)}
    for workers in (1, 2):
        started = time.perf_counter()
        with connect(None, workers) as client:
            client.submit(abs, -1, pure=False).result()  # every worker up and answering
            start_seconds = time.perf_counter() - started
            if workers == 1:  # the same call as a task: what running on a worker costs by itself,
                # returning the plain dict (sent entry by entry) and returning it Packed (one pickle)
                result["one_range"]["worker_seconds"] = median_time(
                    lambda: client.submit(count_range, *one_range, SPECIAL_TOKENS, pure=False).result(), repeats)
                result["one_range"]["worker_packed_seconds"] = median_time(
                    lambda: client.submit(packed_call, count_range, *one_range, SPECIAL_TOKENS, pure=False).result(),
                    repeats)
            counted: list = []
            seconds = median_time(lambda: counted.append(count_pretokens_with(client, [path], SPECIAL_TOKENS)), repeats)
            assert counted[0] == reference, "the Dask count differs from the serial count"
            round_trip_seconds = median_time(lambda: client.submit(abs, -1, pure=False).result(), ROUND_TRIPS)
        result["workers"].append({"workers": workers, "start_seconds": start_seconds, "count_seconds": seconds,
                                  "round_trip_seconds": round_trip_seconds})
    # The 1-minute load average around the measurement: above the number of cores, other work was
    # competing with it, and the timings are slower than on an idle machine.
    result["load_average"] = [load_before, load_average()]
    return result


def fit_heaps(points: list[dict]) -> tuple[float, float]:
    """Least squares of ``log W = log K + beta log n`` over the points with n >= 1,000: ``(K, beta)``
    (``beta`` is :func:`bpe_ref.measure.fit_exponent`; the line passes through the mean of the logs)."""
    ns, ws = zip(*((p["pretokens"], p["distinct"]) for p in points if p["pretokens"] >= 1000))
    beta = fit_exponent(ns, ws)
    return math.exp((sum(map(math.log, ws)) - beta * sum(map(math.log, ns))) / len(ns)), beta


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repeats", type=at_least_one, default=5, help="repeats of each timing (median)")
    parser.add_argument("--quick", action="store_true", help="one run of each timing: checks the benchmark runs")
    add_output_arguments(parser, "distributed", "results.json and README.md")


def run(args: argparse.Namespace) -> int:
    if args.quick:
        args.repeats = 1
    machine, started = announce()
    print("1/4 distinct pretokens of growing prefixes (Heaps' law)...", flush=True)
    heaps = {label: heaps_points(path) for label, path in CORPORA}
    print("2/4 what crosses the network...", flush=True)
    network = {"file": TINYSTORIES_2MIB.name, "rows": network_sizes(TINYSTORIES_2MIB),
               "dask_message": dask_message_sizes(TINYSTORIES_2MIB, args.repeats)}
    memory = memory_per_entry()
    print("3/4 rates: counting, reducing, the merge loop...", flush=True)
    rates = {"counting": counting_rates(args.repeats), "reduce": reduce_rate(args.repeats),
             "merge_loop": merge_loop_times(max(1, args.repeats // 2))}
    print("4/4 Dask on this machine: 1 and 2 workers against one process...", flush=True)
    with tempfile.TemporaryDirectory(prefix="bpe-bench-distributed-") as tmp:
        dask = dask_scaling(args.repeats, Path(tmp))

    heaps_rows = []
    for label, data in heaps.items():
        k, beta = fit_heaps(data["points"])
        last = data["points"][-1]
        heaps_rows.append([label, f"{last['pretokens']:,}", f"{last['distinct']:,}", f"{k:.2f}", f"{beta:.3f}"])
    sections = [
        ("Distinct pretokens (Heaps' law, fitted on prefixes of 1,000 pretokens and more)",
         ["corpus", "pretokens", "distinct", "K", "beta"], heaps_rows),
        ("One process counts pretokens at", ["corpus", "MiB/s, one process"],
         [[r["corpus"], f"{r['bytes'] / r['seconds'] / 2**20:.1f}"] for r in rates["counting"]]),
        ("The merge loop (default trainer) on the counts", ["counts of", "distinct", "merges", "seconds"],
         [[r["corpus"] + (f" (counts x{r['scale']:,})" if r["scale"] != 1 else ""), f"{r['distinct']:,}", r["merges"],
           f"{r['seconds']:.2f}"] for r in rates["merge_loop"]]),
        ("Counting 16 MiB on Dask, on this machine", ["16 MiB counted by", "cluster start (s)", "count (s)", "round trip (ms)"],
         [["1 process, no Dask", "", f"{dask['serial_seconds']:.2f}", ""]]
         + [[f"Dask, {w['workers']} worker{'s' if w['workers'] > 1 else ''}", f"{w['start_seconds']:.2f}",
             f"{w['count_seconds']:.2f}", f"{w['round_trip_seconds'] * 1000:.1f}"] for w in dask["workers"]]),
    ]
    tables = markdown_sections(sections).removeprefix("\n")
    print(f"\n{tables}")
    document = {"machine": machine, "date": today(), "repeats": args.repeats, "special_tokens": SPECIAL_TOKENS,
                "heaps": heaps, "network": network, "memory": memory, "rates": rates, "dask": dask}
    return finish(args, "distributed", started, document=document, machine=machine, repeats=args.repeats,
                  loop_repeats=max(1, args.repeats // 2), tables=tables)
