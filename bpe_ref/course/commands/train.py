"""``python -m bpe_ref train [PATH]``: train a tokenizer and print a short summary.

With no PATH it trains on the shipped TinyStories sample, so a fresh clone can see BPE work:

    python -m bpe_ref train --vocab-size 1000
    python -m bpe_ref train data/cs336_fixtures/corpus.en --vocab-size 500 --method naive --out out/corpus_en
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ...data_files import TINYSTORIES_SAMPLE
from ...pretokenize import DEFAULT_SPECIAL_TOKENS
from ...train import DEFAULT_TRAIN_METHOD, TRAIN_METHODS, num_merges_for
from . import plural

SHOWN_MERGES = 10


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", type=Path, default=None,
                        help=f"UTF-8 training corpus (default: the shipped sample {TINYSTORIES_SAMPLE.name})")
    parser.add_argument("--vocab-size", type=int, default=1000,
                        help="256 bytes + special tokens + merges (default: 1000)")
    parser.add_argument("--special-token", action="append", dest="special_tokens", metavar="TOKEN",
                        help="a special token; repeat for several (default: <|endoftext|>)")
    parser.add_argument("--no-special-tokens", action="store_true", help="train with no special token at all")
    parser.add_argument("--method", choices=TRAIN_METHODS, default=DEFAULT_TRAIN_METHOD,
                        help=f"which trainer of the course's ladder (default: {DEFAULT_TRAIN_METHOD})")
    parser.add_argument("--workers", type=int, default=None,
                        help="processes for pretokenization (default: 1; all cores for --method parallel)")
    parser.add_argument("--out", type=Path, default=None,
                        help="write vocab.json and merges.txt (GPT-2 format) into this folder")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def check_input(path: Path, vocab_size: int, special_tokens: tuple[str, ...]) -> None:
    """Refuse bad input before anything is printed: a missing path, a folder, a vocabulary smaller
    than the bytes and special tokens (``train_bpe``'s own check, asked first)."""
    if not path.exists():
        raise FileNotFoundError(f"corpus file not found: {path}")
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a folder, not a corpus file: pass a UTF-8 text file")
    num_merges_for(vocab_size, special_tokens)


def run(args: argparse.Namespace) -> int:
    from ...serialization import save_vocab_and_merges
    from ...tokenizer import Tokenizer
    from ...train import train_bpe

    path = args.path if args.path is not None else TINYSTORIES_SAMPLE
    if args.no_special_tokens:
        special_tokens: tuple[str, ...] = ()
    else:
        special_tokens = tuple(args.special_tokens or DEFAULT_SPECIAL_TOKENS)
    check_input(path, args.vocab_size, special_tokens)
    print(f"training on {path} ({plural(path.stat().st_size, 'byte')}), "
          f"vocab size {args.vocab_size}, method {args.method}", file=sys.stderr)
    start = time.perf_counter()
    vocab, merges = train_bpe(path, args.vocab_size, special_tokens, method=args.method,
                              num_workers=args.workers, progress=not args.no_progress)
    seconds = time.perf_counter() - start

    text = path.read_text(encoding="utf-8")
    ids = Tokenizer(vocab, merges, special_tokens).encode(text)
    size = len(text.encode("utf-8"))
    print(f"trained in {seconds:.2f} s: {plural(len(merges), 'merge')}, vocabulary of {plural(len(vocab), 'token')}"
          + ("" if len(vocab) == args.vocab_size else " (stopped early: no pair left to merge)"))
    print(f"compression on the training text: {plural(size, 'byte')} -> {plural(len(ids), 'token')} = "
          f"{size / max(len(ids), 1):.2f} bytes per token")
    if merges:
        shown = min(SHOWN_MERGES, len(merges))
        print("first merge:" if shown == 1 else f"first {shown} merges:")
        for number, (left, right) in enumerate(merges[:SHOWN_MERGES], start=1):  # from 1, as on the pages
            print(f"  {number:>3}  {left!r} + {right!r} -> {left + right!r}")
    if args.out is not None:
        vocab_path, merges_path = save_vocab_and_merges(vocab, merges, args.out)
        print(f"saved {vocab_path} and {merges_path}")
    else:
        print("(not saved: pass --out DIR to write vocab.json and merges.txt)")
    return 0
