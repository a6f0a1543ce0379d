"""Measure, for theory page 09, the course's trainers and encoders with :mod:`bpe_ref.measure`, beside
HF ``tokenizers`` and ``tiktoken`` in the same runs; write the results as JSON.

``python -m bpe_ref.course.figures.benchmark_runs`` runs six sections (``ladder``, ``growth``,
``clocks``, ``memory``, ``encoding``, ``noise``), each in a fresh Python process (so that HF's
thread count, set by ``RAYON_NUM_THREADS`` when it is imported, and the peak resident set size are
that section's own), and writes ``theory/benchmarks/measuring/NAME.json``; what each section
measures, and on which clock, is that folder's README. The ladder and the growth are timed in CPU
time (``time.process_time``): every contender there runs in one process and one thread (HF is held
to one thread), and CPU time does not count the time the process waited while other processes had
the cores, which on a shared machine is most of the noise.

Page 09 quotes these files (:mod:`.benchmarks`). About twenty minutes on the course's 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from ...corpus import read_corpus
from ...data_files import REPO_ROOT, TINYSTORIES_2MIB, TINYSTORIES_VALID, data_file
from ...measure import interleaved, peak_memory, timed
from ...train import num_merges_for
from ..commands import at_least_one
from ..bench.common import SPECIAL_TOKENS, corpus_counts, in_fresh_process, load_average, peak_rss_mib, record
from ..bench.train import ladder as train_ladder, runner
from .common import distinct_pairs, mean_length, repo_relative, write_json

RESULTS_DIR = REPO_ROOT / "theory" / "benchmarks" / "measuring"
HF_ONE_THREAD = "HF tokenizers (1 thread)"
HF_DEFAULT_THREADS = "HF tokenizers (default threads)"
LADDER_CORPUS = TINYSTORIES_VALID
LADDER_VOCABS = (1000, 2000, 5000)
# label -> (method, pretokenization workers): the ladder V1..V5 and the course's default trainer
TRAINERS: dict[str, tuple[str, int]] = {c.label: (c.method, c.workers) for c in train_ladder(0)}
GROWTH_CORPUS = TINYSTORIES_2MIB
GROWTH_VOCABS = (1000, 2000, 5000, 10_000)
GROWTH_FRACTIONS = (1 / 8, 1 / 4, 1 / 2, 1)
GROWTH_SIZE_VOCAB = 2000
GROWTH_TRAINERS = ("inverted_index", "heap", "linked_list")
CLOCKS_VOCAB = 2000
MEMORY_VOCAB = 5000
MEMORY_TRAINERS = ("inverted_index", "heap", "linked_list")
NOISE_CORPUS = TINYSTORIES_VALID
NOISE_PAIR = ("heap", "linked_list")
NOISE_ROUNDS = 15
SECTIONS = ("ladder", "growth", "clocks", "memory", "encoding", "noise")


def corpus_shape(path: Path) -> dict:
    """W (distinct pretokens), P (distinct pairs of bytes in them), L (bytes per distinct pretoken)
    and the size in bytes: seed 000's symbols, for the seed's tables and this run's side by side."""
    counts = corpus_counts(path)
    return {"bytes": path.stat().st_size, "W": len(counts), "P": distinct_pairs(counts), "L": round(mean_length(counts), 2)}


def on_cpu(path: Path, vocab: int, trainers: dict[str, tuple[str, int]], rounds: int) -> dict[str, list[float]]:
    """``trainers`` and HF on one thread, in interleaved rounds, in CPU time."""
    contenders = {label: runner("bpe_ref", path, vocab, method, workers) for label, (method, workers) in trainers.items()}
    contenders[HF_ONE_THREAD] = runner("hf", path, vocab)
    return interleaved(contenders, rounds, clock=time.process_time)


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# The sections, each run in a fresh process

def ladder(rounds: int) -> dict:
    path = data_file(LADDER_CORPUS)
    runs = []
    for vocab in LADDER_VOCABS:
        progress(f"ladder: vocabulary {vocab}, {rounds} rounds of {len(TRAINERS) + 1} contenders...")
        runs.append({"vocab_size": vocab, "merges": num_merges_for(vocab, SPECIAL_TOKENS),
                     "seconds": on_cpu(path, vocab, TRAINERS, rounds)})
    return {"corpus": repo_relative(path), "shape": corpus_shape(path), "rounds": rounds, "clock": "time.process_time",
            "runs": runs}


def prefix_file(path: Path, fraction: float, folder: Path) -> Path:
    """The first ``fraction`` of ``path``'s documents (cut where a document starts), as a file."""
    text = read_corpus(path)
    cut = text.find(SPECIAL_TOKENS[0], int(len(text) * fraction)) if fraction < 1 else len(text)
    out = folder / f"prefix_{fraction:.3f}.txt"
    out.write_text(text[: cut if cut != -1 else len(text)], encoding="utf-8")
    return out


def growth(rounds: int) -> dict:
    path = data_file(GROWTH_CORPUS)
    trainers = {m: (m, 1) for m in GROWTH_TRAINERS}
    by_vocab = []
    for vocab in GROWTH_VOCABS:
        progress(f"growth: vocabulary {vocab}...")
        by_vocab.append({"vocab_size": vocab, "seconds": on_cpu(path, vocab, trainers, rounds)})
    by_size = []
    with tempfile.TemporaryDirectory() as folder:
        for fraction in GROWTH_FRACTIONS:
            prefix = prefix_file(path, fraction, Path(folder))
            progress(f"growth: {fraction:.3f} of the corpus...")
            by_size.append({"fraction": fraction, "shape": corpus_shape(prefix),
                            "seconds": on_cpu(prefix, GROWTH_SIZE_VOCAB, trainers, rounds)})
    return {"corpus": repo_relative(path), "rounds": rounds, "clock": "time.process_time", "size_vocab": GROWTH_SIZE_VOCAB,
            "by_vocab": by_vocab, "by_size": by_size}


def clocks(rounds: int) -> dict:
    path = data_file(GROWTH_CORPUS)
    contenders = {
        "heap (1 process)": runner("bpe_ref", path, CLOCKS_VOCAB, "heap"),
        "heap, counting in 2 worker processes": runner("bpe_ref", path, CLOCKS_VOCAB, "heap", 2),
        HF_DEFAULT_THREADS: runner("hf", path, CLOCKS_VOCAB),
        "time.sleep(0.2)": lambda: time.sleep(0.2),
    }
    progress("clocks: wall time, then process time...")
    return {"corpus": repo_relative(path), "vocab_size": CLOCKS_VOCAB, "rounds": rounds, "cpus": os.cpu_count(),
            "wall": interleaved(contenders, rounds, clock=time.perf_counter),
            "process": interleaved(contenders, rounds, clock=time.process_time)}


def memory_one(label: str, kind: str) -> dict:
    """One measurement of peak memory, in this (fresh) process: ``kind`` is ``tracemalloc`` (peak of
    Python's allocations during the run, and how much slower the traced run was) or ``rss`` (the
    process's peak resident set size, before and after the run)."""
    path = data_file(GROWTH_CORPUS)
    run = runner("hf", path, MEMORY_VOCAB) if label.startswith("HF") else runner("bpe_ref", path, MEMORY_VOCAB, label)
    if kind == "tracemalloc":
        untraced = timed(run)
        start = time.perf_counter()
        _, peak = peak_memory(run)
        return {"peak_mib": peak / 2**20, "slowdown": (time.perf_counter() - start) / untraced}
    before = peak_rss_mib()
    run()
    return {"rss_peak_mib": peak_rss_mib(), "rss_before_mib": before}


def memory(rounds: int) -> dict:
    rows = {}
    for label in (*MEMORY_TRAINERS, HF_ONE_THREAD):
        progress(f"memory: {label}...")
        rows[label] = {key: value for kind in ("tracemalloc", "rss")
                       for key, value in in_fresh_process(memory_one, label, kind, env={"RAYON_NUM_THREADS": "1"}).items()}
    return {"corpus": repo_relative(data_file(GROWTH_CORPUS)), "vocab_size": MEMORY_VOCAB, "rows": rows}


def encoding(rounds: int) -> dict:
    from ...tokenizer import Tokenizer
    from ..bench.encode import agreed_documents, cache_contenders
    from ..interop import to_hf_tokenizer, to_tiktoken

    path = data_file(LADDER_CORPUS)
    text = read_corpus(path)
    tok = Tokenizer.gpt2()
    tk, hf = to_tiktoken(tok, name="gpt2"), to_hf_tokenizer(tok)
    documents, expected = agreed_documents(tok, tk, hf, text)
    contenders = {**cache_contenders(tok, tk, text),
                  "HF encode_batch of documents (1 thread)": lambda: hf.encode_batch(documents)}
    progress(f"encoding: {rounds} rounds...")
    tok.encode(text)  # fill the cache: "warm" follows "cold" in one round of the rotation only
    return {"corpus": repo_relative(path), "bytes": len(text.encode("utf-8")), "tokens": len(expected), "rounds": rounds,
            "seconds": interleaved(contenders, rounds)}


def noise(rounds: int) -> dict:
    """Every clock reading of two trainers, interleaved and then in blocks: what a shared machine's
    load does to seconds and to ratios, over time."""
    path = data_file(NOISE_CORPUS)
    readings: list[float] = []

    def clock() -> float:  # perf_counter, every reading kept: the runs' places in time
        readings.append(time.perf_counter())
        return readings[-1]

    contenders = {label: runner("bpe_ref", path, CLOCKS_VOCAB, label) for label in NOISE_PAIR}
    progress(f"noise: {NOISE_ROUNDS} interleaved rounds, then two blocks...")
    origin = time.perf_counter()
    together = interleaved(contenders, NOISE_ROUNDS, clock=clock)
    together_readings = [t - origin for t in readings]
    readings.clear()
    blocks = {label: interleaved({label: contenders[label]}, NOISE_ROUNDS, clock=clock)[label] for label in NOISE_PAIR}
    block_readings = [t - origin for t in readings]
    return {"corpus": repo_relative(path), "vocab_size": CLOCKS_VOCAB, "rounds": NOISE_ROUNDS,
            "interleaved": {"seconds": together, "starts": together_readings[::2]},
            "blocks": {"seconds": blocks, "starts": block_readings[::2]}}


def run_section(name: str, rounds: int) -> dict:
    """Run one section in this process (:func:`main` calls it in a fresh one): its JSON document."""
    load = load_average()
    started = time.perf_counter()
    result = globals()[name](rounds)
    return record("python -m bpe_ref.course.figures.benchmark_runs", load_average=[load, load_average()],
                  elapsed_seconds=round(time.perf_counter() - started, 1), **result)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bpe_ref.course.figures.benchmark_runs",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=SECTIONS, action="append", help="run this section only (repeatable)")
    parser.add_argument("--rounds", type=at_least_one, default=3, help="interleaved rounds per comparison (default 3; "
                        "encoding takes twice as many)")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR, help="output folder")
    args = parser.parse_args(argv)
    for name in args.only or SECTIONS:
        rounds = 2 * args.rounds if name == "encoding" else args.rounds
        env = {} if name == "clocks" else {"RAYON_NUM_THREADS": "1"}  # HF on one thread, but for clocks
        document = in_fresh_process(run_section, name, rounds, env=env, show_progress=True)
        write_json(args.out / f"{name}.json", document)
        print(f"  ({document['elapsed_seconds']} s, load {document['load_average']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
