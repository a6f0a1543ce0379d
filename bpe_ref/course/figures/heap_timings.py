"""Measure, for theory page 05, the V4/V5 crossover merge by merge and V5 against the linked list as
words get longer (:func:`grouped_pretokens`), into ``theory/benchmarks/heap/`` (``crossover.json``, about
half a minute, and ``word_length.json``, a minute and a half; each file's ``what`` says what it holds).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from itertools import islice
from pathlib import Path

from ...corpus import read_corpus
from ...data_files import REPO_ROOT, TINYSTORIES_2MIB, TINYSTORIES_VALID, data_file
from ...measure import interleaved, median
from ...pretokenize import DEFAULT_SPECIAL_TOKENS, pretokenize, split_on_special_tokens
from ...train import MergeStep
from ...train.driver import collector_paused
from ...train.step04_inverted_index import merge_steps as v4_merge_steps
from ...train.step05_heap import merge_steps as v5_merge_steps
from ...train.step05_linked_list import merge_steps as linked_list_merge_steps
from ..commands import at_least_one
from ..bench.common import record
from .common import corpus_counts, mean_length, repo_relative, write_json

CROSSOVER_JSON = REPO_ROOT / "theory" / "benchmarks" / "heap" / "crossover.json"
WORD_LENGTH_JSON = REPO_ROOT / "theory" / "benchmarks" / "heap" / "word_length.json"
COMMAND = "python -m bpe_ref.course.figures.heap_timings"
WORD_LENGTH_CHARACTERS = 200_000
WORD_LENGTH_GROUPS = (1, 2, 4, 8, 16)
WORD_LENGTH_MERGES = 1000
# (label, corpus): the two TinyStories files the training benchmark also uses
CROSSOVER_CORPORA: tuple[tuple[str, Path], ...] = (
    ("TinyStories valid 0.8 MB", TINYSTORIES_VALID),
    ("TinyStories 2 MiB", TINYSTORIES_2MIB),
)
MergeSteps = Callable[[Mapping[bytes, int]], Iterator[MergeStep]]
TRAINERS: dict[str, MergeSteps] = {"V4 (inverted_index)": v4_merge_steps, "V5 (heap)": v5_merge_steps}


def cumulative_times(merge_steps: MergeSteps, pretoken_counts: Mapping[bytes, int], num_merges: int) -> list[float]:
    """Seconds from the start of ``merge_steps`` to the end of each of its first ``num_merges`` merges."""
    times = []
    with collector_paused():
        start = time.perf_counter()
        for _ in islice(merge_steps(pretoken_counts), num_merges):
            times.append(time.perf_counter() - start)
    return times


def measure(num_merges: int = 3000, repeats: int = 3, stride: int = 10) -> dict:
    """The JSON document: machine, settings, and per corpus the median cumulative times of each trainer."""
    corpora = []
    for label, path in CROSSOVER_CORPORA:
        counts = corpus_counts(path)
        runs: dict[str, list[list[float]]] = {name: [] for name in TRAINERS}
        for _ in range(repeats):
            for name, merge_steps in TRAINERS.items():  # alternate, so drift hits both alike
                runs[name].append(cumulative_times(merge_steps, counts, num_merges))
        merges = min(len(r) for rs in runs.values() for r in rs)
        ranks = [m for m in range(1, merges + 1) if m % stride == 0 or m == 1]
        corpora.append({
            "label": label,
            "file": repo_relative(path),
            "distinct_words": len(counts),
            "merges": ranks,
            "seconds": {name: [round(median([r[m - 1] for r in rs]), 5) for m in ranks] for name, rs in runs.items()},
        })
    return record(COMMAND, repeats=repeats,
                  what="seconds from the start of each trainer's merge loop (set-up included) to the end of merge k, "
                  "median of the repeats; garbage collector paused", corpora=corpora)


def grouped_pretokens(text: str, n: int) -> dict[bytes, int]:
    """Pretoken counts of ``text`` with every ``n`` consecutive pretokens of a document glued into
    one word (special tokens still split documents, and no word spans one)."""
    counts: dict[bytes, int] = {}
    for document in split_on_special_tokens(text, DEFAULT_SPECIAL_TOKENS):
        pieces = pretokenize(document)
        for i in range(0, len(pieces), n):
            word = "".join(pieces[i : i + n]).encode("utf-8")
            counts[word] = counts.get(word, 0) + 1
    return counts


def word_length_text() -> str:
    return read_corpus(data_file(TINYSTORIES_VALID))[:WORD_LENGTH_CHARACTERS]


def measure_word_length(repeats: int = 5) -> dict:
    """The JSON document of the word-length measurement."""
    text = word_length_text()
    rows = []
    for n in WORD_LENGTH_GROUPS:
        counts = grouped_pretokens(text, n)
        times = interleaved({name: lambda steps=steps, counts=counts: sum(1 for _ in islice(steps(counts), WORD_LENGTH_MERGES))
                             for name, steps in (("V5 (heap)", v5_merge_steps), ("linked list", linked_list_merge_steps))},
                            repeats)
        rows.append({
            "group": n,
            "distinct_words": len(counts),
            "bytes_per_distinct_word": round(mean_length(counts), 2),
            "seconds": {name: round(median(ts), 4) for name, ts in times.items()},
        })
    file = repo_relative(TINYSTORIES_VALID)
    return record(COMMAND, repeats=repeats, file=file, characters=WORD_LENGTH_CHARACTERS, merges=WORD_LENGTH_MERGES,
                  what=f"seconds of each trainer's merge loop (set-up included) for {WORD_LENGTH_MERGES} merges, median "
                  f"of the repeats, on the first {WORD_LENGTH_CHARACTERS} characters of {file} with every `group` "
                  "consecutive pretokens glued into one word; garbage collector paused", rows=rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0])
    parser.add_argument("--merges", type=int, default=3000)
    parser.add_argument("--repeats", type=at_least_one, help="runs per trainer (default: 3 for the crossover, 5 for the "
                        "word length, whose shortest runs take a tenth of a second)")
    parser.add_argument("--out", type=Path, default=CROSSOVER_JSON.parent, help="output folder")
    parser.add_argument("--only", choices=("crossover", "word-length"), help="one of the two measurements")
    args = parser.parse_args(argv)
    jobs = {"crossover": (lambda: measure(args.merges, args.repeats or 3), CROSSOVER_JSON.name),
            "word-length": (lambda: measure_word_length(args.repeats or 5), WORD_LENGTH_JSON.name)}
    for name, (run, file_name) in jobs.items():
        if not args.only or name == args.only:
            write_json(args.out / file_name, run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
