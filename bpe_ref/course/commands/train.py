"""``python -m bpe_ref train [PATH ...]``: train a tokenizer and print a short summary.

With no PATH it trains on the shipped TinyStories sample, so a fresh clone can see BPE work:

    python -m bpe_ref train --vocab-size 1000
    python -m bpe_ref train data/cs336_fixtures/corpus.en --vocab-size 500 --method naive --out out/corpus_en
    python -m bpe_ref train data/tinystories/*.txt --engine dask --workers 2 --out out/ts   # step 10

Several files are one corpus, as if a special token separated them (no pretoken spans two files).
With ``--engine dask`` the pretokens are counted on a Dask cluster and ``--method``'s merge loop runs
here on the counts: the same merges as the local engine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ...data_files import TINYSTORIES_SAMPLE
from ...train import DEFAULT_TRAIN_METHOD, TRAIN_METHODS, num_merges_for
from . import add_special_token_arguments, at_least_one, check_output_folder, plural, special_tokens_of
from .engine import add_engine_arguments, check_engine_arguments, dask_client

SHOWN_MERGES = 10


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                        help=f"UTF-8 training corpus, one file or several (default: the shipped sample {TINYSTORIES_SAMPLE.name})")
    parser.add_argument("--vocab-size", type=int, default=1000,
                        help="256 bytes + special tokens + merges (default: 1000)")
    add_special_token_arguments(parser, without="train with no special token at all")
    parser.add_argument("--method", choices=TRAIN_METHODS, default=DEFAULT_TRAIN_METHOD,
                        help=f"which trainer of the course's ladder (default: {DEFAULT_TRAIN_METHOD})")
    parser.add_argument("--workers", type=at_least_one, default=None,
                        help="processes for pretokenization (default: 1; all cores for --method parallel); with "
                             "--engine dask, the workers of the local cluster (default: one per core)")
    parser.add_argument("--out", type=Path, default=None,
                        help="write vocab.json and merges.txt (GPT-2 format) into this folder")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_engine_arguments(parser, "this machine, with --workers processes")


def check_input(path: Path, vocab_size: int, special_tokens: tuple[str, ...]) -> None:
    """Refuse bad input before anything is printed: a missing path, a folder, a vocabulary smaller
    than the bytes and special tokens (``train_bpe``'s own check, asked first)."""
    if not path.exists():
        raise FileNotFoundError(f"corpus file not found: {path}")
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a folder, not a corpus file: pass a UTF-8 text file")
    num_merges_for(vocab_size, special_tokens)


def run(args: argparse.Namespace) -> int:
    from ...corpus import read_corpus
    from ...serialization import save_vocab_and_merges
    from ...tokenizer import Tokenizer

    paths: list[Path] = list(args.paths) or [TINYSTORIES_SAMPLE]
    special_tokens = special_tokens_of(args)
    for path in paths:  # every file, before anything is printed or counted
        check_input(path, args.vocab_size, special_tokens)
    check_engine_arguments(args)
    if args.out is not None:
        check_output_folder(args.out)  # before the work, not after it
    size = sum(path.stat().st_size for path in paths)
    corpus = str(paths[0]) if len(paths) == 1 else f"{plural(len(paths), 'file')}"
    engine = "" if args.engine == "local" else ", pretokens counted on Dask"
    print(f"training on {corpus} ({plural(size, 'byte')}), vocab size {args.vocab_size}, method {args.method}{engine}",
          file=sys.stderr)
    start = time.perf_counter()
    vocab, merges = train(paths, special_tokens, args)
    seconds = time.perf_counter() - start

    print(f"trained in {seconds:.2f} s: {plural(len(merges), 'merge')}, vocabulary of {plural(len(vocab), 'token')}"
          + ("" if len(vocab) == args.vocab_size else " (stopped early: no pair left to merge)"))
    if args.engine == "local":
        tokenizer = Tokenizer(vocab, merges, special_tokens)
        tokens = sum(len(tokenizer.encode(read_corpus(path))) for path in paths)  # bytes decoded: \r\n kept
        print(f"compression on the training text: {plural(size, 'byte')} -> {plural(tokens, 'token')} = "
              f"{size / max(tokens, 1):.2f} bytes per token")
    else:  # reading the whole corpus here is what the cluster was for
        print("compression: not measured with --engine dask (python -m bpe_ref encode-corpus --engine dask does it)")
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


def train(paths: list[Path], special_tokens: tuple[str, ...], args: argparse.Namespace):
    """``(vocab, merges)``: one file trains as ``train_bpe`` does; several files, or the Dask engine,
    count pretokens first and run the same merge loop on the counts (``train_on_counts``)."""
    from ...train import train_bpe, train_on_counts
    from ...train.step03_parallel import count_pretokens_in_file, default_num_workers, merge_counts

    progress = not args.no_progress
    if args.engine == "dask":
        from ...distributed import count_pretokens_with

        started = time.perf_counter()
        with dask_client(args.scheduler, args.workers) as client:
            counts = count_pretokens_with(client, paths, special_tokens, progress=progress)
        print(f"counted {plural(sum(counts.values()), 'pretoken')} ({len(counts):,} distinct) "
              f"on Dask in {time.perf_counter() - started:.2f} s; merging here", file=sys.stderr)
        return train_on_counts(counts, args.vocab_size, special_tokens, args.method, progress=progress)
    if len(paths) == 1:
        return train_bpe(paths[0], args.vocab_size, special_tokens, method=args.method, num_workers=args.workers,
                         progress=progress)
    workers = args.workers or (default_num_workers() if args.method == "parallel" else 1)
    counts = merge_counts(count_pretokens_in_file(path, special_tokens, workers) for path in paths)
    return train_on_counts(counts, args.vocab_size, special_tokens, args.method, progress=progress)
