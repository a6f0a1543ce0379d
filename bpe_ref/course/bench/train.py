"""``python -m bpe_ref bench train``: every trainer of the ladder and HF ``tokenizers`` timed in one run.

Each measurement runs in a fresh process (so HF's thread count and peak memory are its own); the tables
report medians and ratios against the peers measured in the same run, the course's targets are checked
as ratios, and ``theory/benchmarks/train/README.md`` (template ``train.md``) gets them with two plots.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

from ...data_files import CHINESE_NOVEL, CORPUS_EN, RUSSIAN_STORIES, SPANISH_NOVEL, TINYSTORIES_2MIB, TINYSTORIES_VALID
from ...measure import peak_memory
from ...train import DEFAULT_TRAIN_METHOD, num_merges_for
from .common import (SPECIAL_TOKENS, Check, add_output_arguments, announce, at_most, finish, grouped_bars,
                     in_fresh_process, markdown_sections, markdown_table, markdown_targets, median, name_axes,
                     peak_rss_mib, print_tables, print_targets, pyplot, ratio, save_png)


@dataclass(frozen=True)
class Contender:
    """One row of the benchmark: a bpe_ref method (with pretokenization workers) or an HF setting."""

    label: str
    kind: str  # "bpe_ref", "hf", or "pretokenize" (the counting phase alone, what V3 changes)
    method: str = ""
    workers: int = 1
    threads: int | None = None  # HF: None = its default (all cores)
    budget: float | None = None  # seconds; slow-by-design trainers stop there and report progress


def ladder(budget: float) -> list[Contender]:
    return [
        Contender("naive", "bpe_ref", "naive", budget=budget),
        Contender("incremental", "bpe_ref", "incremental", budget=budget),
        Contender("parallel (2 workers)", "bpe_ref", "parallel", workers=2, budget=budget),
        Contender("inverted_index", "bpe_ref", "inverted_index", budget=budget),
        Contender("heap", "bpe_ref", "heap"),
        Contender("linked_list", "bpe_ref", "linked_list"),
    ]


LADDER_LABELS = [c.label for c in ladder(0)]
# One corpus of about 2 MB per language, trained to the same vocabulary: how the trainers fare when
# words are long (Chinese) or letters take two bytes (Russian). Page 05 reads these ratios.
LANGUAGES: list[tuple[str, Path]] = [
    ("English (TinyStories 2 MiB)", TINYSTORIES_2MIB),
    ("Spanish (Don Quijote)", SPANISH_NOVEL),
    ("Russian (TinyStories-ru)", RUSSIAN_STORIES),
    ("Chinese (Hong Lou Meng)", CHINESE_NOVEL),
]
LANGUAGE_VOCAB = 10_000
LANGUAGE_LIMIT = 1.2  # the default trainer's time over HF's (1 thread) on every language but English (1.0)

HEAP_2_WORKERS = Contender("heap + 2 workers", "bpe_ref", "heap", workers=2)
PRETOKENIZE_SERIAL = Contender("pretokenization only, 1 process", "pretokenize", workers=1)
PRETOKENIZE_PARALLEL = Contender("pretokenization only, 2 workers", "pretokenize", workers=2)
HF_ONE_THREAD = Contender("HF tokenizers, 1 thread", "hf", threads=1)
HF_DEFAULT = Contender("HF tokenizers, default threads", "hf", threads=None)


@dataclass
class Measurement:
    corpus: str
    vocab_size: int
    contender: Contender
    seconds: list[float]
    merges_done: int
    merges_wanted: int
    peak_rss_mb: float

    @property
    def completed(self) -> bool:
        return self.merges_done >= self.merges_wanted

    @property
    def median(self) -> float:
        return median(self.seconds)


# Inside the measuring process

def runner(kind: str, path: Path | str, vocab_size: int, method: str = "", workers: int = 1,
           budget: float | None = None) -> Callable[[], int]:
    """One run of a contender (a :class:`Contender`'s fields): a function that returns the merges learned."""
    if kind == "hf":
        return lambda: _train_hf(str(path), vocab_size)
    if kind == "pretokenize":
        from bpe_ref.train.step03_parallel import count_pretokens_in_file

        def count() -> int:
            count_pretokens_in_file(str(path), SPECIAL_TOKENS, workers)
            return num_merges_for(vocab_size, SPECIAL_TOKENS)  # no merges: the phase is complete

        return count
    from bpe_ref import train_bpe

    # A slow trainer stops once its budget is spent, and reports how far it got.
    return lambda: len(train_bpe(path, vocab_size, SPECIAL_TOKENS, method=method, num_workers=workers, time_budget=budget)[1])


def measure_in_this_process(contender: dict, path: str, vocab_size: int, repeats: int) -> dict:
    """Run one measurement of a :class:`Contender` (its fields; called in a fresh process): the fields of a
    :class:`Measurement` it fills, its seconds, merges and peak RSS."""
    import gc

    c = Contender(**contender)
    seconds: list[float] = []
    merges_done = 0
    wanted = num_merges_for(vocab_size, SPECIAL_TOKENS)
    run = runner(c.kind, path, vocab_size, c.method, c.workers, c.budget)
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        merges_done = run()
        seconds.append(time.perf_counter() - start)
        if c.budget and merges_done < wanted:
            break  # out of budget: one run says enough
    return {"seconds": seconds, "merges_done": merges_done, "merges_wanted": wanted,
            "peak_rss_mb": peak_rss_mib()}


def _train_hf(path: str, vocab_size: int) -> int:
    """HF's byte-level BPE on the same file; HF does not split on special tokens while training,
    so the text is split first (as our trainers do). Returns the number of merges learned."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    documents = Path(path).read_text(encoding="utf-8").split(SPECIAL_TOKENS[0])
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(documents, trainer)
    return len(json.loads(tokenizer.to_str())["model"]["merges"])


def peak_python_memory(path: str, vocab_size: int, method: str, options: dict) -> float:
    """Peak memory (MB) that Python allocates while the merge loop of ``method`` runs
    (:func:`bpe_ref.measure.peak_memory`, called in a fresh process)."""
    from ...train import train_on_counts
    from ...train.step03_parallel import count_pretokens_in_file

    counts = count_pretokens_in_file(path, SPECIAL_TOKENS)
    _, peak = peak_memory(lambda: train_on_counts(counts, vocab_size, SPECIAL_TOKENS, method, **options))
    return peak / 2**20


# The plan and the report

def measure(corpus: str, path: Path, vocab_size: int, contender: Contender, repeats: int) -> Measurement:
    env = {"RAYON_NUM_THREADS": str(contender.threads)} if contender.kind == "hf" and contender.threads else {}
    return Measurement(corpus, vocab_size, contender,
                       **in_fresh_process(measure_in_this_process, asdict(contender), str(path), vocab_size, repeats, env=env))


def plan(quick: bool, budget: float) -> list[tuple[str, Path, list[int], list[Contender], int]]:
    """(corpus label, path, vocab sizes, contenders, repeats) for each part of the run."""
    peers = [HF_ONE_THREAD, HF_DEFAULT]
    pretokenize = [PRETOKENIZE_SERIAL, PRETOKENIZE_PARALLEL]
    fast = [c for c in ladder(budget) if c.method in ("heap", "linked_list")]
    if quick:
        return [
            ("corpus.en", CORPUS_EN, [500], ladder(budget) + [HEAP_2_WORKERS] + peers, 1),
            ("TinyStories 2 MiB", TINYSTORIES_2MIB, [5000], fast + [HEAP_2_WORKERS] + pretokenize + peers, 1),
        ]
    return [
        ("corpus.en", CORPUS_EN, [500], ladder(budget) + [HEAP_2_WORKERS] + peers, 5),
        ("TinyStories valid 0.8 MB", TINYSTORIES_VALID, [1000, 2000], ladder(budget) + pretokenize + peers, 3),
        ("TinyStories 2 MiB", TINYSTORIES_2MIB, [1000, 2000, 5000],
         [c for c in ladder(budget) if c.method != "naive"] + [HEAP_2_WORKERS] + pretokenize + peers, 5),
    ] + [(label, path, [LANGUAGE_VOCAB], fast + [HF_ONE_THREAD], 3) for label, path in LANGUAGES]


def run_plan(quick: bool, budget: float) -> list[Measurement]:
    """Measure the plan in interleaved rounds, so that a burst of load from elsewhere slows every contender,
    not just one: this loop rather than :func:`bpe_ref.measure.interleaved`, as the clock runs inside each
    fresh process (its start and imports are not timed)."""
    results: list[Measurement] = []
    for corpus, path, vocab_sizes, contenders, repeats in plan(quick, budget):
        for vocab_size in vocab_sizes:
            rows: dict[str, Measurement] = {}
            for round_number in range(repeats):
                # every other round in reverse, so that no contender always runs first (or always
                # right after the one that warmed the caches and the CPU's clock)
                for contender in contenders if round_number % 2 == 0 else contenders[::-1]:
                    if round_number and contender.method in ("naive", "incremental", "parallel"):
                        continue  # slow by design: one run says enough
                    m = measure(corpus, path, vocab_size, contender, 1)
                    row = rows.setdefault(contender.label, m)
                    if row is not m:  # a later round: one more run of the same row
                        row.seconds += m.seconds
                        row.peak_rss_mb = max(row.peak_rss_mb, m.peak_rss_mb)
            for m in rows.values():
                results.append(m)
                progress = "" if m.completed else f"  (budget spent: {m.merges_done}/{m.merges_wanted} merges)"
                print(f"  {corpus:<26} vocab {vocab_size:>5}  {m.contender.label:<32} "
                      f"{m.median:8.3f} s  (median of {len(m.seconds)}){progress}", flush=True)
    return results


def _find(results: list[Measurement], corpus: str, vocab: int, label: str) -> Measurement | None:
    return next((m for m in results if (m.corpus, m.vocab_size, m.contender.label) == (corpus, vocab, label)), None)


def results_tables(results: list[Measurement]) -> list[tuple[str, list[str], list[list[str]]]]:
    """One table per (corpus, vocab): median seconds, ratio to HF 1 thread, ratio to naive."""
    tables = []
    for corpus, vocab in dict.fromkeys((m.corpus, m.vocab_size) for m in results):
        rows = []
        hf1 = _find(results, corpus, vocab, HF_ONE_THREAD.label)
        naive = _find(results, corpus, vocab, "naive")
        serial_counting = _find(results, corpus, vocab, PRETOKENIZE_SERIAL.label)
        previous = None
        for m in [r for r in results if r.corpus == corpus and r.vocab_size == vocab]:
            label = m.contender.label
            vs_hf = f"{ratio(m.median, hf1.median):.2f}x" if hf1 and m.contender.kind != "pretokenize" else "-"
            vs_naive = "-"
            if naive and m.contender.kind == "bpe_ref":
                vs_naive = ("" if naive.completed else ">") + f"{ratio(naive.median, m.median):.1f}x faster"
            step = "-"
            if previous is not None and label in LADDER_LABELS[1:5]:
                step = "yes" if m.median < previous.median or not previous.completed else "no"
            if label in LADDER_LABELS[:5]:
                previous = m
            if m.contender == PRETOKENIZE_PARALLEL and serial_counting is not None:  # what V3 changes
                step = "yes" if m.median < serial_counting.median else "no"
            time_cell = f"{m.median:.3f}" if m.completed else f">{m.median:.3f} ({m.merges_done}/{m.merges_wanted} merges)"
            rows.append([label, time_cell, vs_hf, vs_naive, step, f"{m.peak_rss_mb:.0f}"])
        tables.append((f"{corpus}, vocab {vocab}", ["contender", "median s", "time / HF 1 thread", "vs naive",
                                                    "faster than previous step", "peak RSS MB"], rows))
    return tables


def target_checks(results: list[Measurement], memory: dict[str, float]) -> list[Check]:
    """The course's targets that this run measured."""
    checks = []

    def add(name: str, corpus: str, vocab: int, ours: str, theirs: str, limit: float) -> None:
        a, b = _find(results, corpus, vocab, ours), _find(results, corpus, vocab, theirs)
        if a and b:
            checks.append(at_most(name, ratio(a.median, b.median), limit))

    big = "TinyStories 2 MiB"
    add("heap vs HF 1 thread, 2 MiB, vocab 5000", big, 5000, "heap", HF_ONE_THREAD.label, 1.0)
    add("heap + 2 workers vs HF default threads, 2 MiB, vocab 5000", big, 5000, HEAP_2_WORKERS.label,
        HF_DEFAULT.label, 1.2)
    add("heap vs HF 1 thread, corpus.en, vocab 500", "corpus.en", 500, "heap", HF_ONE_THREAD.label, 2.0)
    for index, (language, _) in enumerate(LANGUAGES):  # the default (fastest) trainer on every language
        add(f"{DEFAULT_TRAIN_METHOD} vs HF 1 thread, {language}, vocab {LANGUAGE_VOCAB}", language, LANGUAGE_VOCAB,
            DEFAULT_TRAIN_METHOD, HF_ONE_THREAD.label, 1.0 if index == 0 else LANGUAGE_LIMIT)
    if "heap" in memory and "inverted_index" in memory:
        checks.append(at_most("heap (compaction) peak memory vs inverted_index", ratio(memory["heap"], memory["inverted_index"]), 1.5))
    return checks


def plot(results: list[Measurement], path: Path) -> None:
    """Time against vocabulary size (log-log) per corpus, bars for a corpus measured at one size; a
    contender keeps its colour in every panel."""
    plt = pyplot()
    # a phase is not a trainer, and the languages have their own figure (plot_languages)
    results = [m for m in results if m.contender.kind != "pretokenize" and m.corpus not in dict(LANGUAGES)]
    labels = list(dict.fromkeys(m.contender.label for m in results))
    corpora = list(dict.fromkeys(m.corpus for m in results))
    if not corpora:
        return
    palette = plt.get_cmap("tab10").colors
    colour = {label: palette[i % len(palette)] for i, label in enumerate(labels)}
    fig, axes = plt.subplots(1, len(corpora), figsize=(5.0 * len(corpora), 4.6), squeeze=False)
    for ax, corpus in zip(axes[0], corpora):
        rows = [m for m in results if m.corpus == corpus]
        sizes = sorted({m.vocab_size for m in rows})
        if len(sizes) == 1:
            names = [m.contender.label for m in rows][::-1]
            ax.barh(names, [m.median for m in rows][::-1], color=[colour[n] for n in names])
            ax.set(xscale="log", xlabel="training time (s, median, log scale)", title=f"{corpus}, vocab {sizes[0]}")
            ax.tick_params(axis="y", labelsize=7)
            ax.grid(True, axis="x", which="both", alpha=0.3)
            continue
        for label in labels:
            points = [(m.vocab_size, m.median, m.completed) for m in rows if m.contender.label == label]
            if points:
                ax.plot([p[0] for p in points], [p[1] for p in points], "--" if label.startswith("HF") else "-",
                        marker="o", color=colour[label])
            for x, y, done in points:
                if not done:  # budget spent: the true time is larger
                    ax.annotate("budget", (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7,
                                color=colour[label])
        name_axes(ax, "vocabulary size", "training time (s, median)", corpus, grid="both", log="xy")
        ax.set_xticks(sizes, [str(v) for v in sizes])
        ax.minorticks_off()
    handles = [plt.Line2D([], [], color=colour[label], marker="o", linestyle="--" if label.startswith("HF") else "-")
               for label in labels]
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 5), fontsize=8, frameon=False)
    fig.suptitle("BPE training time by method (lower is better)")
    save_png(fig, path, tight=True, rect=(0, 0.1, 1, 1))


def plot_languages(results: list[Measurement], path: Path) -> None:
    """Each trainer's time over HF's (one thread) on each language's corpus: bars, 1.0 marked."""
    languages = [label for label, _ in LANGUAGES if _find(results, label, LANGUAGE_VOCAB, HF_ONE_THREAD.label)]
    methods = [m.contender.label for m in results if languages and m.corpus == languages[0] and m.contender.kind == "bpe_ref"]
    if not methods:
        return
    fig, ax = pyplot().subplots(figsize=(7.5, 4.2))

    def vs_hf(method: str, language: str) -> float:
        ours, hf = (_find(results, language, LANGUAGE_VOCAB, label) for label in (method, HF_ONE_THREAD.label))
        return ratio(ours.median, hf.median) if ours and hf else float("nan")

    series = [([vs_hf(method, language) for language in languages], {"label": method}) for method in methods]
    names = [language.replace(" (", "\n(") for language in languages]
    for bars, (ratios, _) in zip(grouped_bars(ax, names, series), series):
        ax.bar_label(bars, [f"{r:.2f}x" for r in ratios], fontsize=8)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(LANGUAGE_LIMIT, color="grey", linewidth=0.8, linestyle="--")
    ax.set(ylabel="training time / HF tokenizers (1 thread)", title=f"vocab {LANGUAGE_VOCAB:,}: below 1.0 is faster than HF")
    ax.legend(fontsize=8, frameon=False)
    save_png(fig, path, tight=True)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quick", action="store_true", help="a small plan: checks the benchmark runs, in ~1 minute")
    parser.add_argument("--budget", type=float, default=60.0,
                        help="seconds given to each slow-by-design trainer run before it reports how far it got")
    add_output_arguments(parser, "train", "README.md and the plot")


def run(args: argparse.Namespace) -> int:
    machine, started = announce()
    print("measuring (each in a fresh process; medians of the repeats)...")
    results = run_plan(args.quick, args.budget)
    print("peak Python memory of the merge loop, TinyStories 2 MiB, vocab 5000 (tracemalloc)...")
    memory = {}
    for method, options in [("inverted_index", {}), ("heap", {}), ("heap", {"compaction_threshold": None}),
                            ("linked_list", {})]:
        label = method if options == {} else f"{method} (no compaction)"
        memory[label] = in_fresh_process(peak_python_memory, str(TINYSTORIES_2MIB), 5000, method, options)
        print(f"  {label:<26} {memory[label]:7.1f} MB", flush=True)
    tables = results_tables(results)
    checks = target_checks(results, memory)
    print_tables(tables)
    print_targets(checks, "targets (ratios measured in this run)")
    return finish(args, "train", started, {"train_time_vs_vocab.png": partial(plot, results),
                                           "train_languages.png": partial(plot_languages, results)},
                  machine=machine, budget=args.budget, language_vocab=LANGUAGE_VOCAB, targets=markdown_targets(checks),
                  memory=markdown_table(["method", "peak MB"], [[k, f"{v:.1f}"] for k, v in memory.items()]),
                  tables=markdown_sections(tables, "###"))
