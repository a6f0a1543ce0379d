"""The counting functions (:mod:`bpe_ref.fast.exact_counts`: ``count``, ``interval_counter``, ``appender``,
``split_at``) against re-encoding from scratch (and tiktoken, for intervals), with the same GPT-2 tokenizer,
every answer checked first; :func:`bpe_ref.measure.interleaved` rounds, ratios the medians of per-round ratios.

``python -m bpe_ref.course.bench.exact_counts [--quick]`` runs it alone; ``bench encode`` calls :func:`counting_section`.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Mapping

from ...measure import interleaved, median, paired_ratio
from .common import announce, print_tables

INTERVALS = 200  # interval queries per round
SPLIT_TOKENS = (100, 10_000)


def _intervals(text: str, count: int) -> list[tuple[int, int]]:
    """Random (start, end), lengths log-uniform from 1 character to the whole text (seeded: the same every run)."""
    rng = random.Random(0)
    n = len(text)
    out = []
    for _ in range(count):
        length = min(n, max(1, int(n ** rng.random())))
        start = rng.randrange(n - length + 1)
        out.append((start, start + length))
    return out


def counting_section(tok, texts: Mapping[str, str], quick: bool, tk=None, rounds: int | None = None, out=sys.stdout):
    """Measure the counting functions on each text with ``tok`` (and ``tk``, tiktoken of the same vocabulary,
    for the interval queries); print and return ``[(title, headers, rows)]``."""
    rounds = rounds or (3 if quick else 5)
    size, append_size = (20_000, 300) if quick else (200_000, 2_000)
    queries = INTERVALS // 4 if quick else INTERVALS
    headers = ["corpus: function", "ms (median)", "re-encode ms", "speed-up"]
    if tk is not None:
        headers += ["tiktoken re-encode ms", "speed-up vs tiktoken"]
    rows = []

    def row(label: str, contenders: dict) -> None:
        """Time ``contenders`` (ours first, then what it replaces) in interleaved rounds; one row."""
        times = interleaved(contenders, rounds)
        ours, *others = list(times)
        cells = [label, f"{median(times[ours]) * 1e3:.2f}"]
        for peer in others:
            cells += [f"{median(times[peer]) * 1e3:.2f}", f"{paired_ratio(times, peer, ours):.1f}x"]
        rows.append(cells + [""] * (len(headers) - len(cells)))

    for name, full_text in texts.items():
        text = full_text[:size]
        print(f"counting on {name} ({len(text):,} characters), {rounds} rounds...", file=out, flush=True)
        tok.encode(text)  # warm the segment cache: both sides read it
        assert tok.count(text) == len(tok.encode(text))
        row(f"{name}: count(text)", {"count": lambda: tok.count(text), "len(encode)": lambda: len(tok.encode(text))})
        row(f"{name}: interval_counter(text), built",
            {"build": lambda: tok.interval_counter(text), "encode": lambda: tok.encode(text)})
        counter = tok.interval_counter(text)
        spans = _intervals(text, queries)
        for start, end in spans[:20]:
            assert counter.count(start, end) == len(tok.encode(text[start:end])), (name, start, end)
        contenders = {"queries": lambda: [counter.count(a, b) for a, b in spans],
                      "re-encode": lambda: [len(tok.encode(text[a:b])) for a, b in spans]}
        if tk is not None:
            contenders["tiktoken"] = lambda: [len(tk.encode(text[a:b], allowed_special="all")) for a, b in spans]
        row(f"{name}: {queries} interval counts", contenders)

        prefix = text[:append_size]  # appended one character at a time: re-encoding each prefix is quadratic

        def append_all() -> int:
            appender = tok.appender()
            for ch in prefix:
                appender.append(ch)
            return appender.count

        def reencode_all() -> int:
            return [len(tok.encode(prefix[:end])) for end in range(1, len(prefix) + 1)][-1]

        assert append_all() == reencode_all()
        row(f"{name}: {len(prefix):,} appends of 1 character", {"append": append_all, "re-encode": reencode_all})
        for max_tokens in SPLIT_TOKENS:
            head, _ = tok.split_at(text, max_tokens)
            assert tok.count(head) <= max_tokens
            row(f"{name}: split_at(text, {max_tokens:,})",
                {"split_at": lambda: tok.split_at(text, max_tokens), "encode": lambda: tok.encode(text)[:max_tokens]})
    sections = [("Counting against re-encoding from scratch (GPT-2; the same warm segment cache for both)", headers, rows)]
    print_tables(sections, out)
    return sections


def main(argv: list[str] | None = None) -> int:
    from ...tokenizer import Tokenizer
    from ..interop import to_tiktoken
    from .encode import CORPORA

    parser = argparse.ArgumentParser(prog="python -m bpe_ref.course.bench.exact_counts",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="short texts, 3 rounds")
    args = parser.parse_args(argv)
    announce()
    tok = Tokenizer.gpt2()
    texts = {name.split()[0]: path.read_text(encoding="utf-8") for name, path in CORPORA.items()}
    counting_section(tok, texts, args.quick, tk=to_tiktoken(tok, "gpt2"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
