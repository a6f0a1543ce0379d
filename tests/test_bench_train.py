"""The training benchmark's plumbing: a measurement in a fresh process (ours and HF's), the
time budget of slow trainers, and the ratio tables and target checks built from measurements."""

from __future__ import annotations

from pathlib import Path

from bpe_ref.course.bench import train as bench
from bpe_ref.data_files import CORPUS_EN


def test_one_measurement_of_ours_and_of_hf_in_fresh_processes() -> None:
    ours = bench.measure("corpus.en", CORPUS_EN, 300, bench.Contender("heap", "bpe_ref", "heap"), repeats=2)
    hf = bench.measure("corpus.en", CORPUS_EN, 300, bench.HF_ONE_THREAD, repeats=1)
    assert len(ours.seconds) == 2 and ours.completed and ours.merges_done == 300 - 257
    assert hf.completed and hf.merges_done == 300 - 257  # same vocab accounting: 256 + special + merges
    assert ours.peak_rss_mb > 0 and hf.peak_rss_mb > 0


def test_the_pretokenization_phase_alone_is_measured_too() -> None:
    m = bench.measure("corpus.en", CORPUS_EN, 300, bench.PRETOKENIZE_PARALLEL, repeats=1)
    assert m.completed and len(m.seconds) == 1 and m.seconds[0] > 0


def test_a_trainer_out_of_budget_reports_how_far_it_got() -> None:
    slow = bench.Contender("naive", "bpe_ref", "naive", budget=0.05)
    m = bench.measure("corpus.en", CORPUS_EN, 2000, slow, repeats=1)
    assert not m.completed
    assert 0 < m.merges_done < m.merges_wanted


def _m(label: str, seconds: float, kind: str = "bpe_ref", done: int = 10) -> bench.Measurement:
    contender = bench.Contender(label, kind, label)
    return bench.Measurement("TinyStories 2 MiB", 5000, contender, [seconds], done, 10, 1.0)


def test_tables_and_targets_are_ratios_of_the_same_run() -> None:
    results = [
        _m("naive", 10.0, done=3),
        _m("heap", 0.5),
        _m(bench.HEAP_2_WORKERS.label, 0.4),
        _m(bench.HF_ONE_THREAD.label, 1.0, "hf"),
        _m(bench.HF_DEFAULT.label, 0.2, "hf"),
    ]
    counting = [bench.Measurement("TinyStories 2 MiB", 5000, c, [t], 10, 10, 1.0)
                for c, t in ((bench.PRETOKENIZE_SERIAL, 0.12), (bench.PRETOKENIZE_PARALLEL, 0.07))]
    (title, headers, rows), = bench.results_tables(results + counting)
    by_label = {row[0]: row for row in rows}
    assert by_label[bench.PRETOKENIZE_PARALLEL.label][4] == "yes"  # V3's phase: 2 workers beat 1
    assert by_label[bench.PRETOKENIZE_PARALLEL.label][2] == "-"  # a phase is not compared with HF
    assert by_label["heap"][2] == "0.50x"
    assert by_label["naive"][1].startswith(">10.000")  # stopped by its budget: a lower bound
    assert by_label["heap"][3] == ">20.0x faster"
    checks = {name: (value, met) for name, value, _, met in bench.target_checks(results, {"heap": 3.0, "inverted_index": 2.5})}
    assert checks["heap vs HF 1 thread, 2 MiB, vocab 5000"] == ("0.50x", True)
    assert checks["heap + 2 workers vs HF default threads, 2 MiB, vocab 5000"] == ("2.00x", False)
    assert checks["heap (compaction) peak memory vs inverted_index"] == ("1.20x", True)


def test_plot_is_written(tmp_path: Path) -> None:
    results = [_m("heap", 0.5), _m(bench.HF_ONE_THREAD.label, 1.0, "hf")]
    bench.plot(results, tmp_path / "plot.png")
    assert (tmp_path / "plot.png").stat().st_size > 1000


def test_every_language_gets_a_target_and_a_bar(tmp_path: Path) -> None:
    """The default trainer against HF on each shipped language: 1.0x on English, 1.2x elsewhere."""
    results = []
    for index, (language, _) in enumerate(bench.LANGUAGES):
        for label, kind, seconds in (("heap", "bpe_ref", 3.0 + index), ("linked_list", "bpe_ref", 1.5 + index),
                                     (bench.HF_ONE_THREAD.label, "hf", 1.0 + index)):
            results.append(bench.Measurement(language, bench.LANGUAGE_VOCAB, bench.Contender(label, kind, label),
                                             [seconds], 10, 10, 1.0))
    checks = {name: (value, limit, met) for name, value, limit, met in bench.target_checks(results, {})}
    english, spanish, chinese = bench.LANGUAGES[0][0], bench.LANGUAGES[1][0], bench.LANGUAGES[-1][0]
    assert checks[f"linked_list vs HF 1 thread, {english}, vocab 10000"] == ("1.50x", "<= 1.0x", False)
    assert checks[f"linked_list vs HF 1 thread, {spanish}, vocab 10000"] == ("1.25x", "<= 1.2x", False)
    assert checks[f"linked_list vs HF 1 thread, {chinese}, vocab 10000"] == ("1.12x", "<= 1.2x", True)
    assert sum(name.startswith("linked_list vs HF") for name in checks) == len(bench.LANGUAGES) == 4
    bench.plot_languages(results, tmp_path / "languages.png")
    assert (tmp_path / "languages.png").stat().st_size > 1000
    bench.plot(results, tmp_path / "plot.png")  # the languages have their own figure, not a panel here
