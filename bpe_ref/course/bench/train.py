"""``python -m bpe_ref bench train``: every trainer of the ladder and HF ``tokenizers`` timed in one run.

Each measurement runs in a fresh process (so HF's thread count and peak memory are its own) and is
repeated; the tables report medians and ratios against the peers measured in the same run, and
the targets of the course are checked as ratios. Output: a table on stdout, and
``theory/benchmarks/train/README.md`` and ``train_time_vs_vocab.png``.

``--quick`` runs a small plan (for a check that everything works, not for conclusions).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ...data_files import CHINESE_NOVEL, CORPUS_EN, RUSSIAN_STORIES, SPANISH_NOVEL, TINYSTORIES_2MIB, TINYSTORIES_VALID
from ...train import DEFAULT_TRAIN_METHOD
from .common import (RESULTS_DIR, written_by, fixed_width_table, machine_description, markdown_table, median, ratio,
                     run_json_subprocess)

SPECIAL_TOKENS = ["<|endoftext|>"]


@dataclass(frozen=True)
class Contender:
    """One row of the benchmark: a bpe_ref method (with pretokenization workers) or an HF setting."""

    label: str
    kind: str  # "bpe_ref", "hf", or "pretokenize" (the counting phase alone, what V3 changes)
    method: str = ""
    workers: int = 1
    threads: int | None = None  # HF: None = its default (all cores)
    budget: float | None = None  # seconds; slow-by-design trainers stop there and report progress
    options: dict = field(default_factory=dict, hash=False, compare=False)


def ladder(budget: float) -> list[Contender]:
    return [
        Contender("naive", "bpe_ref", "naive", budget=budget),
        Contender("incremental", "bpe_ref", "incremental", budget=budget),
        Contender("parallel (2 workers)", "bpe_ref", "parallel", workers=2, budget=budget),
        Contender("inverted_index", "bpe_ref", "inverted_index", budget=budget),
        Contender("heap", "bpe_ref", "heap"),
        Contender("linked_list", "bpe_ref", "linked_list"),
    ]


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


# ---------------------------------------------------------------------------------------------
# Inside the measuring process


def measure_in_this_process(spec: dict) -> None:
    """Run one measurement and print its result as JSON (called in a fresh subprocess)."""
    import gc
    import resource

    seconds: list[float] = []
    merges_done = 0
    wanted = spec["vocab_size"] - 256 - len(SPECIAL_TOKENS)
    for _ in range(spec["repeats"]):
        gc.collect()
        start = time.perf_counter()
        if spec["kind"] == "hf":
            merges_done = _train_hf(spec["path"], spec["vocab_size"])
        elif spec["kind"] == "pretokenize":
            from bpe_ref.train.step03_parallel import count_pretokens_in_file

            count_pretokens_in_file(spec["path"], SPECIAL_TOKENS, spec["workers"])
            merges_done = wanted  # no merges: the phase is complete
        else:
            from bpe_ref import train_bpe

            # A slow trainer stops once its budget is spent, and reports how far it got.
            _, merges = train_bpe(spec["path"], spec["vocab_size"], SPECIAL_TOKENS, method=spec["method"],
                                  num_workers=spec["workers"], time_budget=spec.get("budget"))
            merges_done = len(merges)
        seconds.append(time.perf_counter() - start)
        if spec.get("budget") and merges_done < wanted:
            break  # out of budget: one run says enough
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"seconds": seconds, "merges_done": merges_done, "merges_wanted": wanted,
                      "peak_rss_mb": peak_kb / 1024}))


def _train_hf(path: str, vocab_size: int) -> int:
    """HF's byte-level BPE on the same file; HF does not split on special tokens while training,
    so the text is split first (as our trainers do). Returns the number of merges learned."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    text = Path(path).read_text(encoding="utf-8")
    documents = text.split(SPECIAL_TOKENS[0])
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(documents, trainer)
    return len(json.loads(tokenizer.to_str())["model"]["merges"])


def measure_peak_python_memory(path: Path, vocab_size: int, method: str, options: dict) -> float:
    """Peak memory (MB) that Python allocates while the merge loop of ``method`` runs (tracemalloc)."""
    code = (
        "import json, tracemalloc\n"
        "from bpe_ref.train.step03_parallel import count_pretokens_in_file\n"
        "from bpe_ref.train import train_on_counts\n"
        f"counts = count_pretokens_in_file({str(path)!r}, {SPECIAL_TOKENS!r})\n"
        "tracemalloc.start()\n"
        f"train_on_counts(counts, {vocab_size}, {SPECIAL_TOKENS!r}, {method!r}, **{options!r})\n"
        "print(json.dumps({'peak_mb': tracemalloc.get_traced_memory()[1] / 2**20}))\n"
    )
    return run_json_subprocess(code)["peak_mb"]


# ---------------------------------------------------------------------------------------------
# The plan and the report


def measure(corpus: str, path: Path, vocab_size: int, contender: Contender, repeats: int) -> Measurement:
    spec = {"kind": contender.kind, "method": contender.method, "workers": contender.workers,
            "path": str(path), "vocab_size": vocab_size, "repeats": repeats, "budget": contender.budget}
    env = {}
    if contender.kind == "hf":
        env = {"RAYON_NUM_THREADS": str(contender.threads)} if contender.threads else {}
    code = f"from bpe_ref.course.bench.train import measure_in_this_process as m; m({spec!r})"
    result = run_json_subprocess(code, env=env)
    if contender.kind == "hf" and not contender.threads:
        result.setdefault("env", "default")
    return Measurement(corpus, vocab_size, contender, result["seconds"], result["merges_done"],
                       result["merges_wanted"], result["peak_rss_mb"])


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


def _slow(contender: Contender) -> bool:
    return contender.method in ("naive", "incremental", "parallel")


def run_plan(quick: bool, budget: float, out=sys.stdout) -> list[Measurement]:
    """Measure the plan. Repeats are interleaved (round 1 of every contender, then round 2, ...),
    so a burst of load from elsewhere on a shared machine slows every contender, not just one."""
    results: list[Measurement] = []
    for corpus, path, vocab_sizes, contenders, repeats in plan(quick, budget):
        for vocab_size in vocab_sizes:
            rows: dict[str, Measurement] = {}
            for round_number in range(repeats):
                for contender in contenders:
                    if round_number and _slow(contender):
                        continue  # slow by design: one run says enough
                    m = measure(corpus, path, vocab_size, contender, 1)
                    if contender.label in rows:
                        rows[contender.label].seconds += m.seconds
                        rows[contender.label].peak_rss_mb = max(rows[contender.label].peak_rss_mb, m.peak_rss_mb)
                    else:
                        rows[contender.label] = m
            for m in rows.values():
                results.append(m)
                progress = "" if m.completed else f"  (budget spent: {m.merges_done}/{m.merges_wanted} merges)"
                print(f"  {corpus:<26} vocab {vocab_size:>5}  {m.contender.label:<32} "
                      f"{m.median:8.3f} s  (median of {len(m.seconds)}){progress}", file=out, flush=True)
    return results


def _find(results: list[Measurement], corpus: str, vocab: int, label: str) -> Measurement | None:
    for m in results:
        if m.corpus == corpus and m.vocab_size == vocab and m.contender.label == label:
            return m
    return None


def _time_cell(m: Measurement) -> str:
    text = f"{m.median:.3f}"
    return text if m.completed else f">{text} ({m.merges_done}/{m.merges_wanted} merges)"


def results_tables(results: list[Measurement]) -> list[tuple[str, list[str], list[list[str]]]]:
    """One table per (corpus, vocab): median seconds, ratio to HF 1 thread, ratio to naive."""
    tables = []
    seen: list[tuple[str, int]] = []
    for m in results:
        if (m.corpus, m.vocab_size) not in seen:
            seen.append((m.corpus, m.vocab_size))
    for corpus, vocab in seen:
        rows = []
        hf1 = _find(results, corpus, vocab, HF_ONE_THREAD.label)
        naive = _find(results, corpus, vocab, "naive")
        previous = None
        serial_counting = _find(results, corpus, vocab, PRETOKENIZE_SERIAL.label)
        for m in [r for r in results if r.corpus == corpus and r.vocab_size == vocab]:
            vs_hf = f"{ratio(m.median, hf1.median):.2f}x" if hf1 and m.contender.kind != "pretokenize" else "-"
            if naive and m.contender.kind == "bpe_ref":
                speedup = ratio(naive.median, m.median)
                vs_naive = f"{speedup:.1f}x faster" if naive.completed else f">{speedup:.1f}x faster"
            else:
                vs_naive = "-"
            step = "-"
            if previous is not None and m.contender.label in [c.label for c in ladder(0)][1:5]:
                step = "yes" if m.median < previous.median or not previous.completed else "no"
            if m.contender.label in [c.label for c in ladder(0)][:5]:
                previous = m
            if m.contender == PRETOKENIZE_PARALLEL and serial_counting is not None:  # what V3 changes
                step = "yes" if m.median < serial_counting.median else "no"
            rows.append([m.contender.label, _time_cell(m), vs_hf, vs_naive, step, f"{m.peak_rss_mb:.0f}"])
        tables.append((f"{corpus}, vocab {vocab}",
                       ["contender", "median s", "time / HF 1 thread", "vs naive", "faster than previous step",
                        "peak RSS MB"], rows))
    return tables


def target_checks(results: list[Measurement], memory: dict[str, float]) -> list[tuple[str, str, str, bool]]:
    """(target, measured, limit, met) for the course's targets that this run measured."""
    checks = []

    def add(name: str, a: Measurement | None, b: Measurement | None, limit: float) -> None:
        if a and b:
            value = ratio(a.median, b.median)
            checks.append((name, f"{value:.2f}x", f"<= {limit}x", value <= limit))

    big = "TinyStories 2 MiB"
    add("heap vs HF 1 thread, 2 MiB, vocab 5000", _find(results, big, 5000, "heap"),
        _find(results, big, 5000, HF_ONE_THREAD.label), 1.0)
    add("heap + 2 workers vs HF default threads, 2 MiB, vocab 5000", _find(results, big, 5000, HEAP_2_WORKERS.label),
        _find(results, big, 5000, HF_DEFAULT.label), 1.2)
    add("heap vs HF 1 thread, corpus.en, vocab 500", _find(results, "corpus.en", 500, "heap"),
        _find(results, "corpus.en", 500, HF_ONE_THREAD.label), 2.0)
    for index, (language, _) in enumerate(LANGUAGES):  # the default (fastest) trainer on every language
        add(f"{DEFAULT_TRAIN_METHOD} vs HF 1 thread, {language}, vocab {LANGUAGE_VOCAB}",
            _find(results, language, LANGUAGE_VOCAB, DEFAULT_TRAIN_METHOD),
            _find(results, language, LANGUAGE_VOCAB, HF_ONE_THREAD.label), 1.0 if index == 0 else LANGUAGE_LIMIT)
    if "heap" in memory and "inverted_index" in memory:
        value = ratio(memory["heap"], memory["inverted_index"])
        checks.append(("heap (compaction) peak memory vs inverted_index", f"{value:.2f}x", "<= 1.5x", value <= 1.5))
    return checks


def plot(results: list[Measurement], path: Path) -> None:
    """Time against vocabulary size (log-log) per corpus measured at several sizes, and bars for a
    corpus measured at one size. A contender keeps its colour in every panel; one shared legend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels: list[str] = []
    corpora: list[str] = []
    results = [m for m in results if m.contender.kind != "pretokenize"]  # a phase, not a trainer
    results = [m for m in results if m.corpus not in dict(LANGUAGES)]  # their own figure: plot_languages
    for m in results:
        if m.contender.label not in labels:
            labels.append(m.contender.label)
        if m.corpus not in corpora:
            corpora.append(m.corpus)
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
            times = [m.median for m in rows][::-1]
            ax.barh(names, times, color=[colour[n] for n in names])
            ax.set_xscale("log")
            ax.set_xlabel("training time (s, median, log scale)")
            ax.set_title(f"{corpus}, vocab {sizes[0]}")
            ax.tick_params(axis="y", labelsize=7)
            ax.grid(True, axis="x", which="both", alpha=0.3)
            continue
        for label in labels:
            points = [(m.vocab_size, m.median, m.completed) for m in rows if m.contender.label == label]
            if not points:
                continue
            ax.plot([p[0] for p in points], [p[1] for p in points], "--" if label.startswith("HF") else "-",
                    marker="o", color=colour[label])
            for x, y, done in points:
                if not done:  # budget spent: the true time is larger
                    ax.annotate("budget", (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7,
                                color=colour[label])
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(sizes, [str(v) for v in sizes])
        ax.minorticks_off()
        ax.set_xlabel("vocabulary size")
        ax.set_ylabel("training time (s, median)")
        ax.set_title(corpus)
        ax.grid(True, which="both", alpha=0.3)
    handles = [matplotlib.lines.Line2D([], [], color=colour[label], marker="o",
                                       linestyle="--" if label.startswith("HF") else "-") for label in labels]
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 5), fontsize=8, frameon=False)
    fig.suptitle("BPE training time by method (lower is better)")
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)


def plot_languages(results: list[Measurement], path: Path) -> None:
    """Each trainer's time over HF's (one thread) on each language's corpus: bars, 1.0 marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    languages = [label for label, _ in LANGUAGES if _find(results, label, LANGUAGE_VOCAB, HF_ONE_THREAD.label)]
    methods = [m.contender.label for m in results if m.corpus == languages[0] and m.contender.kind == "bpe_ref"] \
        if languages else []
    if not methods:
        return
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    width = 0.8 / len(methods)
    for i, method in enumerate(methods):
        ratios = []
        for language in languages:
            ours, hf = _find(results, language, LANGUAGE_VOCAB, method), _find(results, language, LANGUAGE_VOCAB,
                                                                                HF_ONE_THREAD.label)
            ratios.append(ratio(ours.median, hf.median) if ours and hf else float("nan"))
        xs = [x + (i - (len(methods) - 1) / 2) * width for x in range(len(languages))]
        bars = ax.bar(xs, ratios, width, label=method)
        ax.bar_label(bars, [f"{r:.2f}x" for r in ratios], fontsize=8)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(LANGUAGE_LIMIT, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xticks(range(len(languages)), [language.replace(" (", "\n(") for language in languages], fontsize=8)
    ax.set_ylabel("training time / HF tokenizers (1 thread)")
    ax.set_title(f"vocab {LANGUAGE_VOCAB:,}: below 1.0 is faster than HF")
    ax.legend(fontsize=8, frameon=False)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)


READING_NOTES = """## Reading the results

- *faster than previous step* compares each rung of the ladder (V1 naive, V2 incremental, V3
  parallel, V4 inverted index, V5 heap) with the one before it, by median time.
- V3 changes only the pretokenization of V2 (two processes instead of one). On these corpora
  pretokenization is a few percent of V2's time, so V2 and V3 are equal within noise; the rows
  *pretokenization only* time that phase alone, which is what V3 speeds up. It pays off on large
  corpora, where counting pretokens dominates (theory page 03).
- V4 and V5 differ in how the best pair is found: a scan of every pair count per merge (V4) or a
  heap (V5). The scan costs O(P) per merge, so V4 falls further behind as the vocabulary grows;
  on a tiny run the heap's constant costs can make V4 competitive (the V4/V5 crossover).
- `linked_list` (the default trainer) keeps V5's heap but updates only the neighbourhood of each
  merged occurrence, on a linked list of tokens, instead of rewriting every affected word whole.
  The two agree on short words (English) and part ways as words grow: Chinese pretokens are whole
  runs of characters, 22 bytes on average (page 05).
- HF `tokenizers` with one thread (`RAYON_NUM_THREADS=1`) is the target for the single-process
  trainers; its default uses every core, the target for `heap + 2 workers`. HF breaks ties
  differently from the course, so its merges are compared by time only.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quick", action="store_true", help="a small plan: checks the benchmark runs, in ~1 minute")
    parser.add_argument("--budget", type=float, default=60.0,
                        help="seconds given to each slow-by-design trainer run before it reports how far it got")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "train", help="where to write README.md and the plot")
    parser.add_argument("--no-write", action="store_true", help="print only; write no files")


def run(args: argparse.Namespace) -> int:
    machine = machine_description()
    print(f"machine: {machine}")
    print("measuring (each in a fresh process; medians of the repeats)...")
    started = time.perf_counter()
    results = run_plan(args.quick, args.budget)
    print("peak Python memory of the merge loop, TinyStories 2 MiB, vocab 5000 (tracemalloc)...")
    memory = {}
    for method, options in [("inverted_index", {}), ("heap", {}), ("heap", {"compaction_threshold": None}),
                            ("linked_list", {})]:
        label = method if options == {} else f"{method} (no compaction)"
        memory[label] = measure_peak_python_memory(TINYSTORIES_2MIB, 5000, method, options)
        print(f"  {label:<26} {memory[label]:7.1f} MB", flush=True)
    tables = results_tables(results)
    checks = target_checks(results, memory)
    elapsed = time.perf_counter() - started

    for title, headers, rows in tables:
        print(f"\n{title}\n{fixed_width_table(headers, rows)}")
    print("\ntargets (ratios measured in this run)")
    print(fixed_width_table(["target", "measured", "limit", "met"],
                            [[n, v, lim, "yes" if ok else "NO"] for n, v, lim, ok in checks]))
    print(f"\nbenchmark took {elapsed:.0f} s")

    if not args.no_write:
        out: Path = args.out
        out.mkdir(parents=True, exist_ok=True)
        plot(results, out / "train_time_vs_vocab.png")
        plot_languages(results, out / "train_languages.png")
        lines = [
            "# Training benchmark",
            "",
            written_by("train", args.quick),
            "",
            f"Machine: {machine}. Each time is the median of the repeats of one fresh process; ratios compare",
            "contenders measured in the same run. Machines are shared and noisy: read ratios, not seconds.",
            f"Slow-by-design trainers get a budget of {args.budget:.0f} s per run; `>` marks a run stopped there.",
            "",
            "![training time against vocabulary size](train_time_vs_vocab.png)",
            "",
            f"![training time over HF's on four languages, vocab {LANGUAGE_VOCAB}](train_languages.png)",
            "",
            "## Targets",
            "",
            markdown_table(["target", "measured", "limit", "met"],
                           [[n, v, lim, "yes" if ok else "**no**"] for n, v, lim, ok in checks]),
            "",
            "## Peak Python memory of the merge loop (TinyStories 2 MiB, vocab 5000, tracemalloc)",
            "",
            markdown_table(["method", "peak MB"], [[k, f"{v:.1f}"] for k, v in memory.items()]),
            "",
            "## Times",
        ]
        for title, headers, rows in tables:
            lines += ["", f"### {title}", "", markdown_table(headers, rows)]
        lines += ["", READING_NOTES]
        (out / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {out / 'README.md'}, {out / 'train_time_vs_vocab.png'} and {out / 'train_languages.png'}")
    return 0
