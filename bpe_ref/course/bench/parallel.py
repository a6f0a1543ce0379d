"""``python -m bpe_ref bench parallel``: when do worker processes pay for counting pretokens?

Step 03 counts a file's pretokens in worker processes (:func:`~bpe_ref.train.step03_parallel.count_pretokens_in_file`).
Each worker must start, get its job and send its counts back, and the counts must be added up:
fixed costs that the regex work of the file must win back. This benchmark times one process against
two workers on TinyStories prefixes of growing size (and the 2 MiB sample repeated, for 4 and 8 MiB),
each call in a fresh Python process (as a training run pays it: the pool and its fork server start
cold), repeats interleaved, medians reported, and it splits the fixed costs apart at one size.
Theory page 03 reads the results it writes to ``theory/benchmarks/parallel/``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import tempfile
import time
from functools import partial
from pathlib import Path

from ...data_files import TINYSTORIES_2MIB
from ..commands import at_least_one
from .common import (SPECIAL_TOKENS, Laps, Section, add_output_arguments, announce, finish, fixed_width_table,
                     in_fresh_process, markdown_table, median, name_axes, print_tables, pyplot, ratio, save_png, today)

SIZES_MIB = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
QUICK_SIZES_MIB = (0.1, 1.0)
SEPARATOR = SPECIAL_TOKENS[0].encode("utf-8")

# contender -> (num_workers, start_method); None is the course's default (never a bare fork)
CONTENDERS: dict[str, tuple[int, str | None]] = {
    "1 process": (1, None),
    "2 workers": (2, None),
    "2 workers, spawn": (2, "spawn"),
}


def time_one_call(path: str, num_workers: int, start_method: str | None) -> dict:
    """One count of the file, timed (called in a fresh process: the pool starts cold)."""
    from ...train.step03_parallel import count_pretokens_in_file

    started = time.perf_counter()
    counts = count_pretokens_in_file(path, SPECIAL_TOKENS, num_workers=num_workers, start_method=start_method)
    return {"seconds": time.perf_counter() - started, "distinct": len(counts)}


def time_the_parts(path: str) -> dict:
    """Each part of a two-worker count, timed apart (called in a fresh process)."""
    from concurrent.futures import ProcessPoolExecutor

    from ...corpus import read_corpus
    from ...pretokenize import count_pretokens
    from ...train.step03_parallel import count_chunk, find_chunk_boundaries, merge_counts, worker_context

    laps = Laps()
    boundaries = find_chunk_boundaries(path, 2, [t.encode("utf-8") for t in SPECIAL_TOKENS])
    laps.lap("find_chunk_boundaries")
    ranges = list(zip(boundaries, boundaries[1:]))
    with ProcessPoolExecutor(max_workers=2, mp_context=worker_context()) as pool:
        list(pool.map(abs, [1, 2]))  # both workers up and answering
        laps.lap("start 2 workers")
        chunk_counts = list(pool.map(count_chunk, [path] * 2, *zip(*ranges), [SPECIAL_TOKENS] * 2))
        laps.lap("count both halves in the workers")
    laps.restart()  # not the pool's shutdown
    total = merge_counts(chunk_counts)
    laps.lap("merge_counts")
    serial = count_pretokens(read_corpus(path), SPECIAL_TOKENS)
    laps.lap("count the whole file in this process")
    assert total == serial
    return {**laps.seconds, "distinct pretokens per half": [len(c) for c in chunk_counts]}


def corpus_of_size(size_mib: float, directory: Path) -> Path:
    """A TinyStories file of about ``size_mib`` MiB: a prefix of the 2 MiB sample cut at a document
    separator (so it is whole UTF-8), or the sample repeated."""
    data = TINYSTORIES_2MIB.read_bytes()
    size = int(size_mib * 2**20)
    if size <= len(data):
        cut = data.rfind(SEPARATOR, 0, size)
        text = data[: cut if cut > 0 else size]
    else:
        text = data * round(size / len(data))
    path = directory / f"tinystories_{size_mib:g}MiB.txt"
    path.write_bytes(text)
    return path


def measure(sizes: tuple[float, ...], repeats: int, directory: Path, contenders: dict[str, tuple[int, str | None]]) -> list[dict]:
    """Median seconds of one call per (size, contender), each call a fresh process, repeats interleaved
    (the clock runs inside the fresh process, so the rounds are this loop)."""
    paths = {size: corpus_of_size(size, directory) for size in sizes}
    seconds: dict[tuple[float, str], list[float]] = {(size, name): [] for size in sizes for name in contenders}
    for round_number in range(repeats):
        for size in sizes:
            for name, (num_workers, start_method) in contenders.items():
                call = in_fresh_process(time_one_call, str(paths[size]), num_workers, start_method, timeout=600)
                seconds[size, name].append(call["seconds"])
        print(f"  round {round_number + 1}/{repeats} done", flush=True)
    return [{"size_mib": size, "bytes": paths[size].stat().st_size, "contender": name,
             "median_seconds": median(seconds[size, name]), "seconds": seconds[size, name]}
            for size in sizes for name in contenders]


def fixed_costs(size_mib: float, repeats: int, directory: Path) -> dict[str, float]:
    """Medians of each part of a two-worker count at one size."""
    path = str(corpus_of_size(size_mib, directory))
    runs = [in_fresh_process(time_the_parts, path, timeout=600) for _ in range(repeats)]
    costs = {key: median([run[key] for run in runs]) for key in runs[0] if key != "distinct pretokens per half"}
    costs["distinct pretokens per half"] = runs[0]["distinct pretokens per half"]
    return costs


def crossover(results: list[dict], contender: str) -> float | None:
    """The smallest measured size at which ``contender`` beats one process, in MiB (None: never).
    Not :func:`bpe_ref.measure.crossover`'s interpolation: page 03 reports a size that was measured."""
    by_size = {(r["size_mib"], r["contender"]): r["median_seconds"] for r in results}
    return next((size for size in sorted({r["size_mib"] for r in results})
                 if by_size[size, contender] < by_size[size, "1 process"]), None)


def plot(results: list[dict], path: Path) -> None:
    fig, (left, right) = pyplot().subplots(1, 2, figsize=(10.0, 4.0))
    contenders = list(dict.fromkeys(r["contender"] for r in results))
    colour = dict(zip(contenders, ["#4c72b0", "#dd8452", "#55a868"]))  # the same contender, the same colour
    one = {r["size_mib"]: r["median_seconds"] for r in results if r["contender"] == "1 process"}
    for name in contenders:
        rows = [r for r in results if r["contender"] == name]
        mib = [r["bytes"] / 2**20 for r in rows]
        left.plot(mib, [r["median_seconds"] for r in rows], marker="o", label=name, color=colour[name])
        if name != "1 process":
            right.plot(mib, [one[r["size_mib"]] / r["median_seconds"] for r in rows], marker="o", label=name,
                       color=colour[name])
    name_axes(left, "file size (MiB)", "seconds to count its pretokens (median)", "time to count", "best", grid=None, log="xy")
    right.axhline(1.0, color="grey", linestyle="--", linewidth=1)
    right.axhline(2.0, color="grey", linestyle=":", linewidth=1)
    name_axes(right, "file size (MiB)", "speed-up over 1 process", "above 1: the workers pay", "best", grid=None, log="x")
    save_png(fig, path, tight=True)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quick", action="store_true",
                        help="two sizes, two repeats (fewer if --repeats says so): checks the benchmark runs")
    parser.add_argument("--repeats", type=at_least_one, default=5, help="fresh-process runs per size and contender (median)")
    add_output_arguments(parser, "parallel", "README.md, results.json and the plot")


def run(args: argparse.Namespace) -> int:
    sizes = QUICK_SIZES_MIB if args.quick else SIZES_MIB
    repeats = min(2, args.repeats) if args.quick else args.repeats
    parts_mib = 1 if args.quick else 2  # the size the parts of a two-worker count are timed at
    contenders = {name: how for name, how in CONTENDERS.items()
                  if how[1] is None or how[1] in multiprocessing.get_all_start_methods()}
    machine, started = announce()
    print(f"timing {len(contenders)} contenders x {len(sizes)} sizes x {repeats} repeats, each call in a fresh process...")
    with tempfile.TemporaryDirectory(prefix="bpe-bench-parallel-") as tmp:
        results = measure(sizes, repeats, Path(tmp), contenders)
        costs = fixed_costs(parts_mib, repeats, Path(tmp))

    others = list(contenders)[1:]
    headers = ["size (MiB)"] + [f"{name} (s)" for name in contenders] + [f"speed-up, {name}" for name in others]
    rows = []
    for size in sizes:
        seconds = {r["contender"]: r["median_seconds"] for r in results if r["size_mib"] == size}
        mib = next(r["bytes"] for r in results if r["size_mib"] == size) / 2**20
        rows.append([f"{mib:.2f}"] + [f"{seconds[name]:.3f}" for name in contenders]
                    + [f"{ratio(seconds['1 process'], seconds[name]):.2f}x" for name in others])
    parts: Section = (f"parts of a two-worker count ({parts_mib} MiB, medians)", ["part", "time"],
                      [[name, f"{took * 1000:.0f} ms" if isinstance(took, float) else ", ".join(map(str, took))]
                       for name, took in costs.items()])
    crossovers = {name: crossover(results, name) for name in others}
    verdicts = "\n".join(f"- {name}: " + (f"first faster than one process at {size:g} MiB." if size else
                                          "never faster at these sizes.") for name, size in crossovers.items())
    print(f"\n{fixed_width_table(headers, rows)}")
    print_tables([parts])
    print(verdicts)
    document = {"machine": machine, "date": today(), "quick": args.quick, "repeats": repeats, "results": results,
                "fixed_costs": costs, "crossovers": crossovers}
    return finish(args, "parallel", started, {"parallel_counting.png": partial(plot, results)}, document,
                  machine=machine, repeats=repeats, table=markdown_table(headers, rows), parts_mib=parts_mib,
                  parts=markdown_table(*parts[1:]), verdicts=verdicts)
