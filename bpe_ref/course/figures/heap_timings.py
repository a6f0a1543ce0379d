"""Measure the V4/V5 crossover merge by merge, for theory page 05; write the result as JSON.

``python -m bpe_ref.course.figures.heap_timings`` trains V4 (``step04_inverted_index``) and V5
(``step05_heap``) on the shipped TinyStories corpora and records, after every merge, the time
since the merge loop started (the set-up before the first merge included: counting pairs,
building the index, and for V5 the ``heapify``). Each trainer runs ``repeats`` times in turn in
this process, with the garbage collector paused as the trainers' driver does; the file keeps the
median of the repeats at every ``stride``-th merge. Timings change from machine to machine, so
page 05 quotes this committed file (``theory/benchmarks/heap/crossover.json``, with its machine)
instead of timing during figure generation. About half a minute on the course machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime, timezone
from pathlib import Path
from statistics import median

from ...corpus import read_corpus
from ...data_files import DATA_DIR, REPO_ROOT, TINYSTORIES_VALID, data_file
from ...pretokenize import DEFAULT_SPECIAL_TOKENS, count_pretokens
from ...train import MergeStep
from ...train.driver import collector_paused
from ...train.step04_inverted_index import merge_steps as v4_merge_steps
from ...train.step05_heap import merge_steps as v5_merge_steps

CROSSOVER_JSON = REPO_ROOT / "theory" / "benchmarks" / "heap" / "crossover.json"
TINYSTORIES_2MIB = DATA_DIR / "tinystories" / "tinystories_v1_train_head_2MiB.txt"
# (label, corpus): the two TinyStories files the training benchmark also uses
CROSSOVER_CORPORA: tuple[tuple[str, Path], ...] = (
    ("TinyStories valid 0.8 MB", TINYSTORIES_VALID),
    ("TinyStories 2 MiB", TINYSTORIES_2MIB),
)
TRAINERS: dict[str, Callable[[Mapping[bytes, int]], Iterator[MergeStep]]] = {
    "V4 (inverted_index)": v4_merge_steps,
    "V5 (heap)": v5_merge_steps,
}


def cumulative_times(merge_steps: Callable[[Mapping[bytes, int]], Iterator[MergeStep]],
                     pretoken_counts: Mapping[bytes, int], num_merges: int) -> list[float]:
    """Seconds from the start of ``merge_steps`` to the end of each of its first ``num_merges`` merges."""
    times = []
    with collector_paused():
        start = time.perf_counter()
        for step in merge_steps(pretoken_counts):
            times.append(time.perf_counter() - start)
            if len(times) == num_merges:
                break
    return times


def measure(num_merges: int = 3000, repeats: int = 3, stride: int = 10) -> dict:
    """The JSON document: machine, settings, and per corpus the median cumulative times of each trainer."""
    corpora = []
    for label, path in CROSSOVER_CORPORA:
        counts = count_pretokens(read_corpus(data_file(path)), DEFAULT_SPECIAL_TOKENS)
        runs: dict[str, list[list[float]]] = {name: [] for name in TRAINERS}
        for _ in range(repeats):
            for name, merge_steps in TRAINERS.items():  # alternate, so drift hits both alike
                runs[name].append(cumulative_times(merge_steps, counts, num_merges))
        merges = min(len(r) for rs in runs.values() for r in rs)
        ranks = [m for m in range(1, merges + 1) if m % stride == 0 or m == 1]
        corpora.append({
            "label": label,
            "file": path.relative_to(REPO_ROOT).as_posix(),
            "distinct_words": len(counts),
            "merges": ranks,
            "seconds": {name: [round(median(r[m - 1] for r in rs), 5) for m in ranks] for name, rs in runs.items()},
        })
    return {
        "command": "python -m bpe_ref.course.figures.heap_timings",
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "machine": machine(),
        "repeats": repeats,
        "what": "seconds from the start of each trainer's merge loop (set-up included) to the end of merge k, "
                "median of the repeats; garbage collector paused",
        "corpora": corpora,
    }


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bpe_ref.course.figures.heap_timings", description=__doc__.split("\n\n")[0])
    parser.add_argument("--merges", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=CROSSOVER_JSON)
    args = parser.parse_args(argv)
    document = measure(args.merges, args.repeats)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
