"""``python -m bpe_ref COMMAND``: the course's command line.

Each command's module provides ``add_arguments(parser)`` and ``run(args) -> int``; this file imports
only the module of the command being run, so each command starts without loading the rest.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# command -> (module, one-line help). "bench" has sub-commands of its own, listed below.
COMMANDS: dict[str, tuple[str, str]] = {
    "train": ("bpe_ref.course.commands.train", "train a tokenizer on a corpus (default: the shipped TinyStories sample)"),
    "encode": ("bpe_ref.course.commands.encode", "encode text with a saved tokenizer and show its token boundaries"),
    "encode-corpus": ("bpe_ref.course.commands.encode_corpus",
                      "encode files to a NumPy .npy array of token ids, here or on a Dask cluster (step 10)"),
    "grade": ("bpe_ref.course.grade", "autograde a lab notebook, hidden tests included, and print the grade"),
    "autograde": ("bpe_ref.course.commands.autograde", "nbgrader autograde LAB for a class, on several cores at once"),
    "handout": ("bpe_ref.course.commands.handout", "write the folder a class receives: everything but the lab solutions"),
    "site": ("bpe_ref.course.site", "build the course as a static website that reads offline (open OUT/index.html)"),
    "collect": ("bpe_ref.course.commands.collect",
                "put LMS downloads of a lab where nbgrader zip_collect finds them, named <student>__<lab>.ipynb"),
    "classroom": ("bpe_ref.course.commands.classroom",
                  "a class on JupyterHub on this machine: up, down, or a demo round through it (needs jupyterhub)"),
}
BENCHMARKS: dict[str, tuple[str, str]] = {
    "train": ("bpe_ref.course.bench.train", "time every trainer against HF tokenizers"),
    "encode": ("bpe_ref.course.bench.encode", "encoder and decoder throughput against tiktoken and HF tokenizers"),
    "parallel": ("bpe_ref.course.bench.parallel", "when worker processes pay for counting pretokens (step 03)"),
    "distributed": ("bpe_ref.course.bench.distributed",
                    "distinct pretokens, bytes sent, counting and merge rates, Dask on 1 and 2 workers (step 10)"),
}


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command; only the command ``argv`` names (all of them when ``argv`` is
    None) gets its arguments, which means importing its module."""
    words = [word for word in argv or [] if not word.startswith("-")]
    parser = argparse.ArgumentParser(prog="python -m bpe_ref", description="Fast BPE from Scratch: the reference package.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_commands(commands, COMMANDS, None if argv is None else words[:1])
    bench = commands.add_parser("bench", help="benchmarks: measure against the peers in one run", description="Benchmarks.")
    kinds = bench.add_subparsers(dest="benchmark", metavar="BENCHMARK", required=True)
    _add_commands(kinds, BENCHMARKS, None if argv is None else words[1:2] if words[:1] == ["bench"] else [])
    return parser


def _add_commands(subparsers, table: dict[str, tuple[str, str]], chosen: list[str] | None) -> None:
    """A sub-parser per command of ``table``; the ``chosen`` ones (all when None) get their
    module's arguments, or, when the module cannot be imported, a note of what is missing."""
    for name, (module_name, help_text) in table.items():
        parser = subparsers.add_parser(name, help=help_text, description=help_text)
        parser.set_defaults(_module=module_name)
        if chosen is None or name in chosen:
            try:
                module = importlib.import_module(module_name)
            except ImportError:
                parser.set_defaults(_missing=module_name)
                continue
            module.add_arguments(parser)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(argv).parse_args(argv)
    if getattr(args, "_missing", None):
        print(f"error: this command is not available ({args._missing} is missing)", file=sys.stderr)
        return 2
    module = importlib.import_module(args._module)
    try:
        return int(module.run(args) or 0)
    except (FileNotFoundError, ValueError, IsADirectoryError, NotADirectoryError, PermissionError,
            FileExistsError, ConnectionError) as err:
        # Bad input from the user (a Dask scheduler that does not answer included): say what is
        # wrong, without a traceback from deep inside.
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
