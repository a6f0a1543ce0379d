"""The encoding benchmark's arithmetic, and a tiny run of each of its parts (the real run is
`python -m bpe_ref bench encode`, results in theory/benchmarks/encode/)."""

from __future__ import annotations

import io
import math
import time

import pytest

from bpe_ref.course.bench import encode as bench
from bpe_ref.course.bench.common import write_results


def test_the_benchmark_uses_the_courses_measuring_harness():
    """Medians, rounds, per-round ratios and exponents are bpe_ref.measure's (tests/test_measure.py),
    written once; an encoder stopped after one size has no exponent."""
    from bpe_ref import measure
    from bpe_ref.course.bench import common, exact_counts

    assert bench.median is measure.median and bench.growth is common.growth  # the worst case: timed by common
    assert common.median is measure.median and exact_counts.interleaved is measure.interleaved
    assert common.interleaved is measure.interleaved and common.timed is measure.timed
    # The bench reads measure's ratio as a throughput (faster, slower) and has no exponent for one size.
    times = {"a": [1.0, 2.0], "b": [3.0, 6.0]}
    assert bench.ratio({"times": times, "cpu": times}, "a", "b") == measure.paired_ratio(times, "b", "a") == 3.0
    assert math.isnan(bench.fit_exponent([(10, 1.0)])) and bench.fit_exponent([(10, 1.0), (20, 4.0)]) == pytest.approx(2.0)


def test_a_ratio_is_the_median_of_per_round_ratios():
    times = {"ours": [1.0, 2.0, 1.0], "theirs": [2.0, 2.0, 4.0]}
    assert bench.ratio({"times": {}, "cpu": times}, "ours", "theirs") == 2.0  # ratios 2, 1, 4


def test_ratios_compare_cpu_time_on_one_thread_and_wall_time_against_a_batch():
    # Wall times say ours is 2x faster than tiktoken; CPU times (what each did) say 4x.
    measured = {"times": {"ours": [1.0], "tiktoken": [2.0], "HF encode_batch (lines)": [3.0]},
                "cpu": {"ours": [0.5], "tiktoken": [2.0], "HF encode_batch (lines)": [6.0]}}
    assert bench.ratio(measured, "ours", "tiktoken") == 4.0
    assert bench.ratio(measured, "ours", "HF encode_batch (lines)") == 3.0  # both cores: wall time


def test_rounds_time_every_contender_each_round_on_both_clocks():
    from bpe_ref.course.bench.common import wall_and_cpu

    calls = []
    measured = wall_and_cpu({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, 3)
    assert calls == ["a", "b", "b", "a", "a", "b"]  # measure.interleaved: the first contender rotates
    for clock in ("times", "cpu"):
        assert set(measured[clock]) == {"a", "b"} and all(len(t) == 3 and min(t) >= 0 for t in measured[clock].values())
    spin = wall_and_cpu({"sleep": lambda: time.sleep(0.05), "spin": lambda: sum(range(300_000))}, 1)
    assert spin["cpu"]["sleep"][0] < 0.02 <= 0.05 <= spin["times"]["sleep"][0]  # the two clocks are not mixed up


def test_a_tiny_run_of_every_part(tmp_path):
    from bpe_ref import Tokenizer
    from bpe_ref.data_files import TINYSTORIES_SAMPLE
    from bpe_ref.course.interop import to_hf_tokenizer, to_tiktoken

    tok = Tokenizer.gpt2()
    tk, hf = to_tiktoken(tok), to_hf_tokenizer(tok)
    text = TINYSTORIES_SAMPLE.read_text(encoding="utf-8")[:5_000]
    out = io.StringIO()
    texts = {name: path.read_text(encoding="utf-8")[:3_000] for name, path in bench.CORPORA.items()}
    # the tokenizer built above stands for each round's fresh one: the test checks the arithmetic, not a build
    corpora = bench.measure_corpora(tk, texts, 1, out, hf=hf, make_tokenizer=lambda: tok)
    assert list(corpora["corpora"]) == list(bench.CORPORA) and len(corpora["builds"]) == 4
    assert all(len(t) == 1 for c in corpora["corpora"].values() for t in c["times"].values())
    headers, rows = bench.corpora_rows(corpora)
    assert len(rows) == 4 and len(headers) == len(rows[0]) == 10
    assert [c[2] for c in bench.corpora_checks(corpora)] == [">= 0.5x", ">= 0.3x", ">= 0.3x", ">= 0.3x"]
    bench.plot_corpora(corpora, tmp_path / "c.png")
    encoding = bench.measure_throughput(tok, tk, hf, text, 1, out)
    encoders = bench.measure_encoders(tok, tk, text, 1, out)
    decoding = bench.measure_decode(tok, tk, hf, text, 1, out)
    sizes = (300, 600)
    worst = bench.measure_worst_case(tok, tk, hf, sizes, budget=5.0, repeats=1, out=out)
    assert set(worst) == {"random lowercase letters", "random CJK ideographs"}
    assert all(len(points) == 2 for per in worst.values() for points in per.values())
    checks = bench.target_checks(encoding, decoding, worst)
    assert len(checks) == 10 and {c[0] for c in checks} >= {"default encode (warm cache) vs tiktoken"}
    headers, rows = bench.worst_case_rows(worst, sizes)
    assert len(rows) == 14 and len(headers) == 5
    bench.plot_worst_case(worst, tmp_path / "w.png")
    bench.plot_throughput(encoding, encoders, decoding, tmp_path / "t.png")
    assert all((tmp_path / name).stat().st_size > 1000 for name in ("w.png", "t.png", "c.png"))
    sections = [("Encoding", ["contender", "MB/s", "vs tiktoken", "vs HF"],
                 bench.throughput_rows(encoding, "tiktoken encode", [encoding["best_hf_batch"]]))]
    write_results(tmp_path, "encode", True, took=1.0, machine="a machine", rounds=1, trained_vocab=10,
                  sections=bench.markdown_sections(sections), targets=bench.markdown_targets([("t", "1x", ">= 1x", True)]))
    readme = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "--quick" in readme and "a machine" in readme and "| t | 1x | >= 1x | yes |" in readme


def test_every_benchmark_ends_alike_timed_then_written_unless_no_write(tmp_path, capsys):
    """:func:`bench.common.finish`, the end of ``bench train``, ``encode``, ``parallel`` and ``distributed``: the time
    taken on stdout; with ``--no-write`` nothing drawn nor written, else the plots, then the page (and JSON)."""
    import argparse
    import json

    from bpe_ref.course.bench.common import finish

    drawn: list = []
    plots = {"a.png": drawn.append}
    fields = {"machine": "a machine", "repeats": 1, "loop_repeats": 1, "tables": "| t |"}
    args = argparse.Namespace(quick=True, out=tmp_path / "out", no_write=True)
    assert finish(args, "distributed", time.perf_counter(), plots, {"n": 1}, **fields) == 0
    assert capsys.readouterr().out == "\nbenchmark took 0 s\n" and not drawn and not args.out.exists()
    args.no_write = False
    assert finish(args, "distributed", time.perf_counter(), plots, {"n": 1}, **fields) == 0
    assert drawn == [args.out / "a.png"] and json.loads((args.out / "results.json").read_text()) == {"n": 1}
    readme = (args.out / "README.md").read_text(encoding="utf-8")
    assert "`python -m bpe_ref bench distributed --quick` on " in readme and " in 0 s" not in readme and "| t |" in readme
    finish(args, "distributed", time.perf_counter(), timed=True, **fields)  # the page says how long it took
    assert " in 0 s; rerun it" in (args.out / "README.md").read_text(encoding="utf-8")
