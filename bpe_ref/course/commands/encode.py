"""``python -m bpe_ref encode [--model DIR] TEXT``: show a text's tokens, coloured, and their ids.

    python -m bpe_ref encode "Hello world!"                  # the shipped GPT-2 vocabulary
    python -m bpe_ref train --vocab-size 1000 --out out/ts1k
    python -m bpe_ref encode --model out/ts1k "Once upon a time"
    echo "text from a pipe" | python -m bpe_ref encode -

DIR holds ``vocab.json`` and ``merges.txt`` in GPT-2 format (as ``train --out`` and
``Tokenizer.save`` write them). Colours are ANSI escape codes, on when the output is a terminal.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import add_special_token_arguments, load_model, plural, special_tokens_of


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("text", help="the text to encode ('-' reads standard input)")
    parser.add_argument("--model", type=Path, default=None, metavar="DIR",
                        help="folder with vocab.json and merges.txt (default: the shipped GPT-2 files)")
    add_special_token_arguments(parser)
    parser.add_argument("--method", default=None,
                        help="encoder: naive, heap, backtrack or table (default: the fast cached path)")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour the token boundaries (default: auto, when writing to a terminal)")
    parser.add_argument("--no-ids", action="store_true", help="do not print the token ids")


def run(args: argparse.Namespace) -> int:
    from ...corpus import decode_utf8
    from ...tokenizer import Tokenizer
    from ..visualize import show_tokens

    # Standard input as bytes, decoded here and first: Python's own decoding would turn bad bytes
    # into lone surrogates (surrogateescape, under a C locale) and the error would name neither.
    text = decode_utf8(sys.stdin.buffer.read(), "standard input") if args.text == "-" else args.text
    special_tokens = special_tokens_of(args)
    if args.model is None:
        tok = Tokenizer.gpt2(special_tokens)
        source = "GPT-2 (shipped files)"
    else:
        tok, source = load_model(args.model, special_tokens), str(args.model)
    view = show_tokens(tok, text, method=args.method)
    colour = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    print(view.to_ansi() if colour else view.plain("|"))
    size = len(text.encode("utf-8"))
    print(f"{plural(len(view), 'token')} for {plural(size, 'byte')} ({source}, vocabulary of {len(tok):,})")
    if args.model is None:
        print(f"GPT-2's ids are its own numbering, not byte values: 'a' is id {tok.encode('a')[0]}, not {ord('a')}.")
    if not args.no_ids:
        print(" ".join(str(token_id) for span in view.spans for token_id in span.ids))
    return 0
