"""A tiny run of the counting benchmark (the real run: ``python -m bpe_ref.course.bench.exact_counts``,
or ``python -m bpe_ref bench encode``)."""

from __future__ import annotations

import io

from bpe_ref import Tokenizer
from bpe_ref.course.bench import exact_counts as bench
from bpe_ref.course.interop import to_tiktoken
from bpe_ref.data_files import CHINESE_NOVEL, TINYSTORIES_SAMPLE


def test_intervals_are_inside_the_text_and_spread():
    spans = bench._intervals("x" * 10_000, 500)
    assert all(0 <= a < b <= 10_000 for a, b in spans)
    lengths = sorted(b - a for a, b in spans)
    assert lengths[0] < 10 and lengths[-1] > 1_000


def test_a_tiny_run_prints_a_row_per_function():
    tok = Tokenizer.gpt2()
    texts = {
        "English": TINYSTORIES_SAMPLE.read_text(encoding="utf-8")[:3_000],
        "Chinese": CHINESE_NOVEL.read_text(encoding="utf-8")[:1_000],
    }
    out = io.StringIO()
    [(title, headers, rows)] = bench.counting_section(tok, texts, quick=True, tk=to_tiktoken(tok), rounds=1, out=out)
    assert len(rows) == 2 * (4 + len(bench.SPLIT_TOKENS))
    assert all(len(row) == len(headers) for row in rows)
    assert "interval counts" in out.getvalue() and title in out.getvalue()
