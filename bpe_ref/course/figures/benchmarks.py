"""Figures and tables of theory page 09, ``theory/09-benchmarks.md``: every number computed with
:mod:`bpe_ref.measure` (lab 09's harness) from :mod:`.benchmark_runs`' and page 05's measurements, beside
seed 000's tables (:data:`SEED_TABLES`)."""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

from ...measure import crossover, fit_exponent, median, paired_ratio, spread
from .benchmark_runs import HF_ONE_THREAD, RESULTS_DIR, SECTIONS
from .common import grouped_bars, markdown_table, name_axes, panels, plot_series, read_json, save_png, thousands
from .heap_timings import CROSSOVER_JSON

PAGE = "09-benchmarks.md"
NAIVE = "naive"

# Seed 000's tables (seconds for the whole training, TinyStories validation set, Apple M3 Max, 36 GB,
# Python 3.12, 4 worker processes): corpus MB -> vocabulary -> (V1, V2, V3, V4, V5). Facts carried over,
# with the seed's own (W, P, L) per corpus.
SEED_TABLES: dict[int, dict[int, tuple[float, float, float, float, float]]] = {
    1: {1000: (76.4, 5.5, 4.5, 1.3, 1.3), 2000: (162.6, 10.1, 9.0, 2.3, 1.5), 5000: (422.1, 20.9, 20.7, 4.5, 1.7)},
    5: {1000: (143.3, 15.8, 8.3, 2.6, 2.6), 2000: (305.9, 24.0, 17.0, 4.2, 2.8), 5000: (779.6, 45.0, 39.2, 8.4, 3.2)},
    10: {1000: (188.4, 26.3, 10.7, 3.3, 3.4), 2000: (400.8, 37.0, 22.0, 5.2, 3.8), 5000: (1001.3, 65.0, 51.9, 10.7, 4.1)},
    21: {1000: (269.8, 49.2, 14.6, 4.7, 4.9), 2000: (553.8, 63.9, 29.2, 6.9, 5.3), 5000: (1340.9, 104.9, 70.6, 14.0, 5.8)},
}
SEED_SHAPE = {1: (4658, 647, 6.6), 5: (8126, 796, 6.8), 10: (10133, 856, 6.9), 21: (13109, 932, 6.9)}  # W, P, L
SEED_CROSSOVERS = {5: 1180, 10: 1565, 21: 1154}  # its interpolated V4/V5 crossover, vocabulary size
SEED_VERSIONS = ("V1", "V2", "V3", "V4", "V5")
# the course's trainer for each of the seed's versions
COURSE_OF = {"V1": "naive", "V2": "incremental", "V3": "parallel (2 workers)", "V4": "inverted_index", "V5": "heap"}
VERSION_OF = {course: version for version, course in COURSE_OF.items()}


def seed_ratio(slower: str, faster: str, vocab: int, corpus_mb: int = 1) -> float:
    """``slower``'s seconds over ``faster``'s (versions) in seed 000's table of ``corpus_mb`` MB, at ``vocab``."""
    seconds = dict(zip(SEED_VERSIONS, SEED_TABLES[corpus_mb][vocab]))
    return seconds[slower] / seconds[faster]


def measured(name: str) -> dict:
    """One committed measurement, ``theory/benchmarks/measuring/NAME.json``."""
    return read_json(RESULTS_DIR / f"{name}.json")


def run_line(data: dict) -> str:
    """Where and when a measurement was taken, and how busy the machine was."""
    start, end = data["load_average"]
    return (f"Measured {data['date']} on {data['machine']}, load average {start:g} at the start and {end:g} at the "
            f"end (2 cores: above 2, other work waited for a core too)")


def clock_name(data: dict) -> str:
    """How a measurement was timed, in words."""
    return "CPU time" if data.get("clock") == "time.process_time" else "wall time"


def x(value: float) -> str:
    return f"{value:,.1f}×" if value >= 10 else f"{value:.2f}×"


# The worked example: numbers chosen for hand work (not measurements), worked by hand on the page

WORKED_ROUNDS = {"V4": [0.52, 0.50, 0.91, 0.78, 0.53], "V5": [0.26, 0.25, 0.44, 0.40, 0.27]}
WORKED_SIZES = [1, 2, 4, 8, 16]  # MB
WORKED_SECONDS = [0.25, 0.6, 0.9, 1.6, 3.6]
WORKED_VOCABS = [500, 1000, 1500, 2000]
WORKED_CURVES = {"V4": [0.9, 1.3, 1.7, 2.1], "V5": [1.1, 1.35, 1.55, 1.75]}


def worked_example_snippet() -> str:
    v4, v5 = WORKED_ROUNDS["V4"], WORKED_ROUNDS["V5"]
    ratios = [a / b for a, b in zip(v4, v5)]
    rounds = markdown_table(
        ["round", "V4 s", "V5 s", "V4 / V5"],
        [[str(r + 1), f"{a:.2f}", f"{b:.2f}", f"{q:.3f}"] for r, (a, b, q) in enumerate(zip(v4, v5, ratios))]
        + [["**median**", f"**{median(v4):.2f}**", f"**{median(v5):.2f}**", f"**{paired_ratio(WORKED_ROUNDS, 'V4', 'V5'):.3f}**"]],
        align="rrrr")
    logs = [(math.log2(s), math.log2(t)) for s, t in zip(WORKED_SIZES, WORKED_SECONDS)]
    mean_x = sum(lx for lx, _ in logs) / len(logs)
    fit = markdown_table(
        ["size (MB)", "seconds", "x = log2 of the size", "y = log2 of the seconds", "x minus its mean"],
        [[str(s), f"{t:g}", f"{lx:g}", f"{ly:.3f}", f"{lx - mean_x:+g}"] for (s, t), (lx, ly) in
         zip(zip(WORKED_SIZES, WORKED_SECONDS), logs)], align="rrrrr")
    d = [a - b for a, b in zip(WORKED_CURVES["V4"], WORKED_CURVES["V5"])]
    curves = markdown_table(
        ["vocabulary", "V4 s", "V5 s", "$d$ = V4 − V5"],
        [[thousands(v), f"{a:.2f}", f"{b:.2f}", f"{e:+.2f}"] for v, a, b, e in
         zip(WORKED_VOCABS, WORKED_CURVES["V4"], WORKED_CURVES["V5"], d)], align="rrrr")
    return (
        "**Five rounds** (seconds chosen for hand work, not measured; in rounds 3 and 4 other work held a core):\n\n"
        + rounds
        + f"\n`paired_ratio(rounds, \"V4\", \"V5\")` = {paired_ratio(WORKED_ROUNDS, 'V4', 'V5'):.3f}; "
        f"`spread` of V4's seconds {spread(v4):.3f}, of the per-round ratios {spread(ratios):.3f}; the mean of V4's "
        f"seconds, {sum(v4) / len(v4):.3f}, is pulled up by rounds 3 and 4, the median is not.\n\n"
        "**Five sizes** (seconds chosen for hand work):\n\n" + fit
        + f"\n`fit_exponent(sizes, seconds)` = {fit_exponent(WORKED_SIZES, WORKED_SECONDS):.3f}.\n\n"
        "**Two curves** (seconds chosen for hand work, by vocabulary size):\n\n" + curves
        + f"\n`crossover(vocabs, v4, v5)` = {crossover(WORKED_VOCABS, WORKED_CURVES['V4'], WORKED_CURVES['V5']):g}.\n"
    )


# The ladder: the course's trainers against naive, beside seed 000's

def ladder_snippet(data: dict) -> str:
    rows = []
    for run in data["runs"]:
        times, vocab = run["seconds"], run["vocab_size"]
        for label, seconds in times.items():
            version = VERSION_OF.get(label, "")
            rows.append([thousands(vocab), f"{version} {label}".strip(), f"{median(seconds):.3f}", f"{spread(seconds):.2f}",
                         x(paired_ratio(times, NAIVE, label)), x(seed_ratio("V1", version, vocab)) if version else "-",
                         x(paired_ratio(times, label, HF_ONE_THREAD))])
    shape = data["shape"]
    seed_w, seed_p, seed_l = SEED_SHAPE[1]
    table = markdown_table(
        ["vocabulary", "trainer", "s (median)", "spread", "naive / trainer", "the blog post, 1 MB: V1 / Vk",
         "trainer / HF"], rows, align="rlrrrrr")
    return (
        f"The whole `train_bpe` from the file (reading and counting included), {data['rounds']} interleaved rounds, "
        f"{clock_name(data)}; ratios are medians of per-round ratios. Corpus: `{data['corpus']}` ({shape['bytes'] / 1e6:.2f} MB, "
        f"$W$ = {thousands(shape['W'])}, $P$ = {shape['P']}, $L$ = {shape['L']}; the blog post's 1 MB corpus: "
        f"{thousands(seed_w)}, {seed_p}, {seed_l}). {run_line(data)}.\n\n" + table
    )


def draw_ladder(data: dict, path: Path) -> Path:
    runs = data["runs"]
    labels = [label for label in runs[0]["seconds"] if label != NAIVE]
    fig, ax = panels()
    series = []
    for run, colour in zip(runs, ["#9ecae1", "#4292c6", "#08519c"]):
        vocabulary = f"vocabulary {thousands(run['vocab_size'])}"
        series += [([paired_ratio(run["seconds"], NAIVE, label) for label in labels], {"color": colour, "label": f"course, {vocabulary}"}),
                   ([seed_ratio("V1", VERSION_OF[label], run["vocab_size"]) if label in VERSION_OF else math.nan for label in labels],
                    {"color": colour, "alpha": 0.35, "hatch": "//", "label": f"the blog post (1 MB), {vocabulary}"})]
    grouped_bars(ax, [label.replace(" (", "\n(") for label in labels], series)
    ax.set_yscale("log")
    top = max(max(seed_ratio("V1", "V5", run["vocab_size"]) for run in runs),
              max(paired_ratio(run["seconds"], NAIVE, label) for run in runs for label in labels))
    ax.set_ylim(top=top * 8)  # room for the legend above the bars
    ax.set(ylabel="times faster than naive (log scale)",
           title=f"The ladder: speed-up over naive, median of per-round ratios ({clock_name(data)})")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=7, ncols=3, loc="upper left")
    return save_png(fig, path)


def seed_rows(data: dict) -> list[list[str]]:
    """The blog post's claims beside the course's ladder, each computed from the two tables."""
    runs = {run["vocab_size"]: run["seconds"] for run in data["runs"]}
    merges_1000 = 1000 - 256 - 1  # 256 bytes and one special token first (the post says 744)
    seed_v2 = [seed_ratio("V1", "V2", vocab, mb) for mb, corpus in SEED_TABLES.items() for vocab in corpus]
    ours_v2 = [paired_ratio(times, NAIVE, COURSE_OF["V2"]) for times in runs.values()]
    course_v1 = median(runs[1000][NAIVE]) / merges_1000
    seed_v1 = SEED_TABLES[1][1000][0] / merges_1000
    return [
        ["V1's seconds per merge, vocabulary 1,000", f"{seed_v1:.3f} (1 MB)", f"{course_v1:.4f} ({clock_name(data)})",
         f"the post's V1 spends {seed_v1 / course_v1:.0f} times as long per merge"],
        ["V1 / V2, every table", f"{min(seed_v2):.1f}× to {max(seed_v2):.1f}×",
         f"{min(ours_v2):.1f}× to {max(ours_v2):.1f}×", "the post's prose: \"5-20x\" and \"5-15x\""],
        ["V1 / V5, vocabulary 5,000", f"{seed_ratio('V1', 'V5', 5000):.0f}× (1 MB), "
         f"{seed_ratio('V1', 'V5', 5000, 21):.0f}× (21 MB)", x(paired_ratio(runs[5000], NAIVE, "heap")),
         "a ratio against a slow baseline"],
        ["V4 / V5, vocabulary 1,000", f"{seed_ratio('V4', 'V5', 1000):.2f} (1 MB), {seed_ratio('V4', 'V5', 1000, 21):.2f} (21 MB)",
         f"{paired_ratio(runs[1000], 'inverted_index', 'heap'):.2f}", "below 1: V4 faster"],
        ["V5 / HF tokenizers (1 thread), vocabulary 5,000", "not measured (\"10-100x faster\" is asserted)",
         f"{paired_ratio(runs[5000], 'heap', HF_ONE_THREAD):.2f}", "below 1: the course's V5 faster"],
    ]


def seed_snippet(data: dict) -> str:
    return (
        markdown_table(["", "the blog post's tables", "the course's ladder", "note"], seed_rows(data), align="lrrl")
        + "\nThe blog post's figures are from its tables (TinyStories, Apple M3 Max, 4 counting workers); the course's "
        f"are medians of per-round ratios of the ladder above (0.8 MB, {clock_name(data)}).\n"
    )


# Growth: time against vocabulary and corpus size, fitted exponents

def seed_exponents() -> dict[str, float]:
    """Exponents fitted to seed 000's tables: time against vocabulary (21 MB corpus) and against
    corpus size (vocabulary 5000), and its W and P against corpus size."""
    sizes = sorted(SEED_TABLES)
    out = {}
    for i, version in ((3, "V4"), (4, "V5")):
        out[f"{version} vs vocabulary"] = fit_exponent([1000, 2000, 5000], [SEED_TABLES[21][v][i] for v in (1000, 2000, 5000)])
        out[f"{version} vs corpus"] = fit_exponent(sizes, [SEED_TABLES[s][5000][i] for s in sizes])
    out["W vs corpus"] = fit_exponent(sizes, [SEED_SHAPE[s][0] for s in sizes])
    out["P vs corpus"] = fit_exponent(sizes, [SEED_SHAPE[s][1] for s in sizes])
    return out


def growth_series(data: dict) -> tuple[list[int], dict[str, list[float]], list[int], dict[str, list[float]], list[int]]:
    vocabs = [run["vocab_size"] for run in data["by_vocab"]]
    by_vocab = {label: [median(run["seconds"][label]) for run in data["by_vocab"]] for label in data["by_vocab"][0]["seconds"]}
    sizes = [run["shape"]["bytes"] for run in data["by_size"]]
    by_size = {label: [median(run["seconds"][label]) for run in data["by_size"]] for label in data["by_size"][0]["seconds"]}
    words = [run["shape"]["W"] for run in data["by_size"]]
    return vocabs, by_vocab, sizes, by_size, words


def growth_snippet(data: dict) -> str:
    vocabs, by_vocab, sizes, by_size, words = growth_series(data)
    seed = seed_exponents()
    seed_of = {"inverted_index": "V4", "heap": "V5"}
    rows = []
    for label in by_vocab:
        version = seed_of.get(label)
        rows.append([label, *(f"{s:.3f}" for s in by_vocab[label]), f"{fit_exponent(vocabs, by_vocab[label]):.2f}",
                     f"{seed[version + ' vs vocabulary']:.2f}" if version else "-",
                     *(f"{s:.3f}" for s in by_size[label]), f"{fit_exponent(sizes, by_size[label]):.2f}",
                     f"{seed[version + ' vs corpus']:.2f}" if version else "-"])
    rows.append(["$W$ (distinct pretokens)", *["" for _ in vocabs], "", "",
                 *(thousands(w) for w in words), f"{fit_exponent(sizes, words):.2f}", f"{seed['W vs corpus']:.2f}"])
    pairs = [run["shape"]["P"] for run in data["by_size"]]
    rows.append(["$P$ (distinct pairs)", *["" for _ in vocabs], "", "",
                 *(thousands(p) for p in pairs), f"{fit_exponent(sizes, pairs):.2f}", f"{seed['P vs corpus']:.2f}"])
    headers = ["trainer", *(f"vocab {thousands(v)}" for v in vocabs), "$k$, vocabulary", "the blog post's $k$",
               *(f"{s / 2**20:.3g} MiB" for s in sizes), "$k$, corpus", "the blog post's $k$"]
    return (
        f"Seconds ({clock_name(data)}, median of {data['rounds']} interleaved rounds) of the whole training on `{data['corpus']}` at four "
        f"vocabularies, then on its first 1/8, 1/4, 1/2 and all of it (cut where a document starts) at vocabulary "
        f"{thousands(data['size_vocab'])}; $k$ is `fit_exponent` over the four points. The blog post's $k$: the same fit on its "
        "tables (vocabulary 1,000 to 5,000 on 21 MB; 1 to 21 MB at vocabulary 5,000). "
        f"{run_line(data)}.\n\n" + markdown_table(headers, rows, align="l" + "r" * (len(headers) - 1))
    )


STYLE = {"inverted_index": ("o-", "#c44e52"), "heap": ("s-", "#4c72b0"), "linked_list": ("^-", "#55a868"),
         HF_ONE_THREAD: ("D--", "#2f2f2f")}


def draw_growth(data: dict, path: Path) -> Path:
    vocabs, by_vocab, sizes, by_size, _ = growth_series(data)
    fig, (left, right) = panels(2)
    for ax, xs, series, xlabel, ylabel, title in (
            (left, vocabs, by_vocab, "vocabulary size", f"seconds ({clock_name(data)}), median (log scale)",
             "2 MiB of TinyStories, growing vocabulary"),
            (right, sizes, by_size, "corpus bytes", "", f"vocabulary {thousands(data['size_vocab'])}, growing corpus")):
        plot_series(ax, [(label, xs, seconds) for label, seconds in series.items()], STYLE,
                    lambda label, xs, seconds: f"{label}: k = {fit_exponent(xs, seconds):.2f}")
        name_axes(ax, f"{xlabel} (log scale)", ylabel, title, "upper left", 7, grid="both", log="xy")
    return save_png(fig, path)


# The V4/V5 crossover, from page 05's measurement

def crossover_snippet() -> str:
    data = read_json(CROSSOVER_JSON)
    rows = []
    for corpus in data["corpora"]:
        merges = corpus["merges"]
        v4, v5 = corpus["seconds"].values()
        found = crossover(merges, v4, v5)
        rows.append([corpus["label"], "V5 ahead from the first recorded merge" if found is None else f"merge {found:.1f}",
                     f"{v4[merges.index(1000)]:.2f} s / {v5[merges.index(1000)]:.2f} s",
                     f"{v4[-1]:.2f} s / {v5[-1]:.2f} s ({thousands(merges[-1])} merges)"])
    seed = ", ".join(f"{mb} MB: {thousands(v)}" for mb, v in SEED_CROSSOVERS.items())
    return (
        markdown_table(["corpus", "`crossover(merges, v4, v5)`", "V4 / V5 after 1,000 merges", "at the end"], rows,
                       align="llrr")
        + f"\nPage 05's measurement ([`benchmarks/heap/crossover.json`](benchmarks/heap/crossover.json): cumulative "
        f"seconds of each merge loop, set-up included, median of {data['repeats']} runs, {data['date']}, "
        f"{data['machine']}). The blog post's crossovers, in vocabulary size: {seed}.\n"
    )


# Clocks, memory, caches, noise

def clocks_snippet(data: dict) -> str:
    rows = []
    for label in data["wall"]:
        wall, cpu = median(data["wall"][label]), median(data["process"][label])
        rows.append([label, f"{wall:.3f}", f"{cpu:.3f}", f"{cpu / wall:.2f}"])
    return (
        markdown_table(["contender", "wall s (`perf_counter`)", "CPU s (`process_time`)", "CPU / wall"], rows, align="lrrr")
        + f"\nTraining on `{data['corpus']}` at vocabulary {thousands(data['vocab_size'])}, medians of {data['rounds']} "
        f"interleaved rounds on each clock. {run_line(data)}.\n"
    )


def memory_snippet(data: dict) -> str:
    rows = [[label, f"{row['peak_mib']:.1f}", f"{row['rss_peak_mib'] - row['rss_before_mib']:.1f}",
             f"{row['rss_peak_mib']:.1f}", f"{row['slowdown']:.1f}×"] for label, row in data["rows"].items()]
    return (
        markdown_table(["contender", "tracemalloc peak MiB", "RSS peak − RSS before MiB", "RSS peak MiB",
                        "traced run / untraced"], rows, align="lrrrr")
        + f"\nTraining on `{data['corpus']}` at vocabulary {thousands(data['vocab_size'])}; tracemalloc (`peak_memory`) "
        "in one fresh process, the resident set size (`ru_maxrss`, before and after the run) in another. HF's row "
        "includes reading the file and splitting it into documents in Python (what tracemalloc sees of it). "
        f"{run_line(data)}.\n"
    )


def encoding_snippet(data: dict) -> str:
    times = data["seconds"]
    mb = data["bytes"] / 1e6
    rows = [[label, f"{mb / median(seconds):.1f}", f"{spread(seconds):.2f}", x(paired_ratio(times, 'tiktoken encode', label))]
            for label, seconds in times.items()]
    return (
        markdown_table(["contender", "MB/s (median)", "spread", "speed vs tiktoken (per-round)"], rows, align="lrrr")
        + f"\nGPT-2's vocabulary on `{data['corpus']}` ({mb:.2f} MB, {thousands(data['tokens'])} tokens, the same ids "
        f"from all three), {data['rounds']} interleaved rounds, wall time; *warm*: the cache filled once before the "
        "rounds (and after each *cold* call, which empties it first), *cold*: emptied before the call, the tables "
        f"kept. {run_line(data)}.\n"
    )


def noise_snippet(data: dict) -> str:
    rows = []
    spreads = noise_spreads(data)
    for mode, title in (("interleaved", "interleaved rounds"), ("blocks", "two blocks, one after the other")):
        times = data[mode]["seconds"]
        heap, linked = median(times["heap"]), median(times["linked_list"])
        rows.append([title, f"{heap:.3f} ({spreads[mode][0]:.2f})", f"{linked:.3f} ({spreads[mode][1]:.2f})",
                     f"{paired_ratio(times, 'heap', 'linked_list'):.3f} ({spreads[mode][2]:.2f})", f"{heap / linked:.3f}"])
    return (
        markdown_table(["how", "heap s (spread)", "linked_list s (spread)", "per-round ratio (spread)",
                        "ratio of medians"], rows, align="lrrrr")
        + f"\nTraining on `{data['corpus']}` at vocabulary {thousands(data['vocab_size'])}, {data['rounds']} runs of each, "
        f"wall time. {run_line(data)}.\n\n{noise_comparison(data)}\n"
    )


def noise_spreads(data: dict) -> dict[str, tuple[float, float, float]]:
    """``{mode: (spread of heap's seconds, of linked_list's, of their per-round ratios)}``, the numbers
    page 09's prose compares (rounded as the table shows them)."""
    found = {}
    for mode in ("interleaved", "blocks"):
        times = data[mode]["seconds"]
        ratios = [a / b for a, b in zip(times["heap"], times["linked_list"])]
        found[mode] = tuple(round(spread(values), 2) for values in (times["heap"], times["linked_list"], ratios))
    return found


def noise_comparison(data: dict) -> str:
    """One sentence per mode: is the per-round ratio's spread below both trainers' spreads, above both, or between?"""
    sentences = []
    for mode, title in (("interleaved", "Interleaved"), ("blocks", "In blocks")):
        heap, linked, ratio = noise_spreads(data)[mode]
        where = ("below both" if ratio < min(heap, linked) else "above both" if ratio > max(heap, linked)
                 else "between the")
        sentences.append(f"{title}, the spread of the per-round ratio ({ratio:.2f}) is {where} trainers' "
                         f"({heap:.2f} and {linked:.2f}).")
    return " ".join(sentences)


def draw_noise(data: dict, path: Path) -> Path:
    fig, (left, right) = panels(2)
    colours = {"heap": "#4c72b0", "linked_list": "#55a868"}
    for mode, marker in (("interleaved", "o"), ("blocks", "s")):
        starts = data[mode]["starts"]
        times = data[mode]["seconds"]
        if mode == "interleaved":  # rounds alternate which contender starts: the readings are in call order
            order = [label for r in range(data["rounds"]) for label in (["heap", "linked_list"] if r % 2 == 0
                                                                        else ["linked_list", "heap"])]
        else:
            order = ["heap"] * data["rounds"] + ["linked_list"] * data["rounds"]
        seen = {label: 0 for label in times}
        for start, label in zip(starts, order):
            value = times[label][seen[label]]
            seen[label] += 1
            left.plot(start, value, marker, color=colours[label], markersize=4,
                      label=f"{label}, {mode}" if seen[label] == 1 else None, fillstyle="full" if mode == "blocks" else "none")
        ratios = [a / b for a, b in zip(times["heap"], times["linked_list"])]
        right.plot(range(1, len(ratios) + 1), ratios, marker + "-", label=f"heap / linked_list, {mode}",
                   fillstyle="full" if mode == "blocks" else "none", color="#2f2f2f" if mode == "blocks" else "#dd8452")
    name_axes(left, "seconds since the start of the run", "wall seconds of one training run",
              "every run, where it happened in time", "best", 7)
    name_axes(right, "round (or pair of runs with the same number)", "heap / linked_list", "the ratio, round by round",
              "best", 7)
    return save_png(fig, path)


@lru_cache(maxsize=1)
def _all() -> dict[str, dict]:
    return {name: measured(name) for name in SECTIONS}


def snippets() -> dict[str, str]:
    data = _all()
    return {
        "09-worked-example.md": worked_example_snippet(),
        "09-ladder.md": ladder_snippet(data["ladder"]),
        "09-seed.md": seed_snippet(data["ladder"]),
        "09-growth.md": growth_snippet(data["growth"]),
        "09-crossover.md": crossover_snippet(),
        "09-clocks.md": clocks_snippet(data["clocks"]),
        "09-memory.md": memory_snippet(data["memory"]),
        "09-encoding.md": encoding_snippet(data["encoding"]),
        "09-noise.md": noise_snippet(data["noise"]),
    }


def draw_figures(out_dir: Path) -> list[Path]:
    data = _all()
    return [draw_ladder(data["ladder"], out_dir / "09-ladder.png"),
            draw_growth(data["growth"], out_dir / "09-growth.png"),
            draw_noise(data["noise"], out_dir / "09-noise.png")]
