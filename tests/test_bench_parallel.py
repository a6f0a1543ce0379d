"""The parallel-counting benchmark's plumbing: its corpora, one measurement in fresh processes,
the crossover it reports, and a quick run that writes its files."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bpe_ref.course.bench import parallel as bench
from bpe_ref.data_files import TINYSTORIES_2MIB


def test_prefixes_end_at_a_document_separator_and_larger_sizes_repeat_the_sample(tmp_path: Path) -> None:
    sample = TINYSTORIES_2MIB.read_bytes()
    small = bench.corpus_of_size(0.25, tmp_path).read_bytes()
    assert sample.startswith(small) and 0.2 * 2**20 < len(small) <= 0.25 * 2**20
    assert sample[len(small):].startswith(bench.SEPARATOR), "a prefix is cut just before a separator"
    small.decode("utf-8")  # whole characters
    assert bench.corpus_of_size(4.0, tmp_path).read_bytes() == sample * 2


def test_the_crossover_is_the_first_size_where_the_workers_win() -> None:
    def row(size: float, name: str, seconds: float) -> dict:
        return {"size_mib": size, "contender": name, "median_seconds": seconds}

    results = [row(1, "1 process", 1.0), row(1, "2 workers", 1.5), row(2, "1 process", 2.0), row(2, "2 workers", 1.9),
               row(4, "1 process", 4.0), row(4, "2 workers", 2.5)]
    assert bench.crossover(results, "2 workers") == 2
    assert bench.crossover(results[:2], "2 workers") is None


def test_a_quick_run_writes_its_table_plot_and_results(tmp_path: Path, capsys) -> None:
    args = argparse.Namespace(quick=True, repeats=1, out=tmp_path, no_write=False)
    assert bench.run(args) == 0
    results = json.loads((tmp_path / "results.json").read_text())
    assert {r["contender"] for r in results["results"]} >= {"1 process", "2 workers"}
    assert all(r["median_seconds"] > 0 for r in results["results"])
    assert results["repeats"] == 1 and all(len(r["seconds"]) == 1 for r in results["results"])  # --quick --repeats 1
    assert (tmp_path / "parallel_counting.png").stat().st_size > 0
    assert "## Where two workers start to pay" in (tmp_path / "README.md").read_text()
    assert "speed-up" in capsys.readouterr().out


def test_a_measurement_of_a_module_run_with_dash_m_runs_in_a_fresh_process_by_its_name(tmp_path: Path, monkeypatch) -> None:
    """``python -m bpe_ref.course.figures.benchmark_runs`` calls its own functions in fresh processes: there
    they are ``__main__.f``, which the fresh process must import by the module's real name."""
    import importlib.util
    import sys

    from bpe_ref.course.bench.common import in_fresh_process

    monkeypatch.setattr(bench.time_one_call, "__module__", "__main__")
    monkeypatch.setattr(sys.modules["__main__"], "__spec__", importlib.util.find_spec(bench.__name__))
    call = in_fresh_process(bench.time_one_call, str(bench.corpus_of_size(0.1, tmp_path)), 1, None)
    assert call["seconds"] > 0 and call["distinct"] > 1000
