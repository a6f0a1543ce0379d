"""Page 09's measuring command (bpe_ref/course/figures/benchmark_runs.py) on a tiny plan, and the
figure module on what it writes: the code runs and the tables and figures come out. The real run is
`python -m bpe_ref.course.figures.benchmark_runs`, results in theory/benchmarks/measuring/."""

from __future__ import annotations

import json

import pytest

from bpe_ref.data_files import CORPUS_EN, CS336_FIXTURES

# 4 KB of TinyStories, documents cut by <|endoftext|> (the growth section cuts prefixes at one): the
# sections that train on the growth corpus (growth, clocks, memory) run the code, not a measurement.
TINY_STORIES = CS336_FIXTURES / "tinystories_sample.txt"


@pytest.fixture
def tiny(monkeypatch):
    from bpe_ref.course.figures import benchmark_runs as runs

    for name, value in {"LADDER_CORPUS": CORPUS_EN, "LADDER_VOCABS": (262,), "GROWTH_CORPUS": TINY_STORIES,
                        "GROWTH_VOCABS": (262, 270), "GROWTH_FRACTIONS": (0.125, 1), "GROWTH_SIZE_VOCAB": 262,
                        "CLOCKS_VOCAB": 262, "MEMORY_VOCAB": 262, "NOISE_CORPUS": CORPUS_EN, "NOISE_ROUNDS": 2,
                        "TRAINERS": {"naive": ("naive", 1), "heap": ("heap", 1)}}.items():
        monkeypatch.setattr(runs, name, value)
    return runs


def test_every_section_runs_on_a_tiny_plan(tiny, tmp_path):
    from bpe_ref.course.figures import benchmarks
    from bpe_ref.course.figures.benchmark_runs import HF_ONE_THREAD

    ladder = tiny.ladder(1)
    assert ladder["clock"] == "time.process_time" and ladder["shape"]["W"] > 1000
    assert set(ladder["runs"][0]["seconds"]) == {"naive", "heap", HF_ONE_THREAD}
    growth = tiny.growth(1)
    assert [run["fraction"] for run in growth["by_size"]] == [0.125, 1]
    assert growth["by_size"][0]["shape"]["bytes"] < growth["by_size"][1]["shape"]["bytes"]
    clocks = tiny.clocks(1)
    assert clocks["process"]["time.sleep(0.2)"][0] < 0.05 <= 0.2 <= clocks["wall"]["time.sleep(0.2)"][0]
    encoding = tiny.encoding(2)  # a spread needs two rounds
    assert encoding["tokens"] > 10_000 and len(encoding["seconds"]) == 4
    for kind in ("tracemalloc", "rss"):
        assert all(value > 0 for value in tiny.memory_one("heap", kind).values())
    noise = json.loads(json.dumps(tiny.run_section("noise", 1)))  # the section's JSON document
    assert noise["rounds"] == 2 and len(noise["interleaved"]["starts"]) == 4 and len(noise["blocks"]["starts"]) == 4
    assert noise["machine"] and len(noise["load_average"]) == 2
    # the figure module reads these documents
    dated = {"date": "2026-01-01", "machine": "a machine", "load_average": [1.0, 1.0]}
    assert "| heap |" in benchmarks.growth_snippet({**dated, **growth})
    assert "| time.sleep(0.2) |" in benchmarks.clocks_snippet({**dated, **clocks})
    assert "tiktoken encode" in benchmarks.encoding_snippet({**dated, **encoding})
    assert "interleaved rounds" in benchmarks.noise_snippet(noise)
    # each draws once: every PNG is saved by bench.common.save_png, whose reruns write the same bytes
    # (tests/test_figures.py draws one figure twice; every figure twice under BPE_EXHAUSTIVE=1)
    for draw, data in ((benchmarks.draw_growth, growth), (benchmarks.draw_noise, noise)):
        assert draw(data, tmp_path / f"{draw.__name__}.png").read_bytes().startswith(b"\x89PNG")
