"""Measure, for theory page 07, how encoding one long pretoken grows with its length: step 06's naive
encoder, step 07's heap encoder and tiktoken, on GPT-2's vocabulary; write the results as JSON.

``python -m bpe_ref.course.figures.long_pieces`` times each encoder on pieces the GPT-2 pattern keeps
whole (:data:`KINDS`, :data:`LENGTHS`) with the benchmarks' harness (:func:`bpe_ref.course.bench.common.growth`:
CPU time, interleaved rounds, every answer checked against tiktoken's, built from the same vocabulary;
its time includes its regex, which is linear), and fits each growth exponent over the longer half of
the lengths, where fixed costs no longer count, into ``theory/benchmarks/heap_encoding/long_pieces.json``.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from ...data_files import REPO_ROOT
from ...measure import fit_exponent
from ...tokenizer import Tokenizer
from ..commands import at_least_one
from ..bench.common import growth, record
from ..interop import to_tiktoken
from .common import write_json

LONG_PIECES_JSON = REPO_ROOT / "theory" / "benchmarks" / "heap_encoding" / "long_pieces.json"
LENGTHS = (250, 500, 1000, 2000, 4000, 8000, 16000, 32000)
KINDS = {
    "random digits": "0123456789",
    "one letter (a)": "a",
    "random letters": "abcdefghijklmnopqrstuvwxyz",
}
NAIVE_LIMIT = 16000  # the naive encoder is left out above this length (it takes seconds)


def long_piece(kind: str, length: int, seed: int = 7) -> str:
    """A piece of ``length`` characters the GPT-2 pattern keeps as one pretoken."""
    alphabet = KINDS[kind]
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(length))


STEP_OF = {"naive": "06", "heap": "07", "backtrack": "08", "table": "08"}  # encode method -> its step


def encoders(methods: Sequence[str] = ("naive", "heap")) -> dict[str, Callable[[str], object]]:
    """label -> encode one piece: bpe_ref's encoders ``methods`` (one pretoken's bytes; page 07 times
    steps 06 and 07, page 08 all four) and tiktoken."""
    tokenizer = Tokenizer.gpt2()
    encoding = to_tiktoken(tokenizer, name="gpt2")
    contenders: dict[str, Callable[[str], object]] = {}
    for method in methods:
        encode = tokenizer._encoder(method).encode
        contenders[f"{method} (step {STEP_OF[method]})"] = lambda piece, encode=encode: encode(piece.encode("utf-8"))
    contenders["tiktoken"] = encoding.encode_ordinary
    return contenders


def fit_range(lengths: Sequence[int]) -> list[int]:
    """The lengths an exponent is fitted over: the longer half (at least three)."""
    return list(lengths[-max(3, (len(lengths) + 1) // 2):])


def measure(lengths: Sequence[int] = LENGTHS, repeats: int = 5, kinds: Sequence[str] = tuple(KINDS),
            methods: Sequence[str] = ("naive", "heap"), command: str = "python -m bpe_ref.course.figures.long_pieces") -> dict:
    """``{kind: {encoder: {"lengths": [...], "seconds": [...], "exponent": e}}}`` and the machine."""
    contenders = encoders(methods)
    naive = {label: NAIVE_LIMIT for label in contenders if label.startswith("naive")}
    results: dict = {}
    for kind in kinds:
        pieces = {length: long_piece(kind, length) for length in lengths}
        points = growth(contenders, pieces, contenders["tiktoken"], f"tiktoken on {kind}", repeats, longest=naive)
        results[kind] = {label: {"lengths": [n for n, _ in row], "seconds": [s for _, s in row]} for label, row in points.items()}
        for row in results[kind].values():
            fitted = fit_range(row["lengths"])
            row["exponent"] = round(fit_exponent(fitted, row["seconds"][-len(fitted):]), 2)
            row["fitted_over"] = [fitted[0], fitted[-1]]
    return record(command, what="CPU seconds to encode one pretoken of GPT-2 (median of repeats, the encoders in "
                  "interleaved rounds), by length; exponent: log-log slope over the longer half of the lengths",
                  repeats=repeats, results=results)


def main(argv: Sequence[str] | None = None, kinds: Sequence[str] = tuple(KINDS), methods: Sequence[str] = ("naive", "heap"),
         out: Path = LONG_PIECES_JSON, command: str = "python -m bpe_ref.course.figures.long_pieces") -> int:
    """Measure ``methods`` on ``kinds`` of pieces into ``out`` (page 08's :func:`.linear_encoding.main` too)."""
    parser = argparse.ArgumentParser(prog=command, description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=at_least_one, default=5)
    parser.add_argument("--out", type=Path, default=out)
    args = parser.parse_args(argv)
    data = measure(repeats=args.repeats, kinds=kinds, methods=methods, command=command)
    for kind, rows in data["results"].items():
        print(kind + ": " + ", ".join(f"{label} n^{row['exponent']}" for label, row in rows.items()))
    write_json(args.out, data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
