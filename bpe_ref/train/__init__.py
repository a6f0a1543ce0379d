"""Training a byte-level BPE tokenizer: one module per step of the course's ladder.

=================  ==========================  ====================================================  ====
method             module                      idea                                                  page
=================  ==========================  ====================================================  ====
``naive``          :mod:`.step01_naive`          V1: recount all pairs, rewrite all words, every merge  01
``incremental``    :mod:`.step02_incremental`    V2: update the counts of the words that hold the pair  02
``parallel``       :mod:`.step03_parallel`       V3: V2 fed by pretokenization in worker processes      03
``inverted_index`` :mod:`.step04_inverted_index` V4: pair -> ids of the words holding it; no word scan  04
``heap``           :mod:`.step05_heap`           V5: V4 + a lazy-deletion max-heap with compaction      05
``linked_list``    :mod:`.step05_linked_list`    linked token stream: O(1) per merged occurrence        05
=================  ==========================  ====================================================  ====

All six return identical merges (tests/test_train_equivalence.py proves it on generated corpora).
Each module writes its merge loop as a generator, ``merge_steps(pretoken_counts, **options)``,
that yields one :class:`MergeStep` per merge; :func:`~bpe_ref.train.driver.run_merges` applies the
number of merges, the trace, the progress bar and the time budget to any of them. Each module's
``train(pretoken_counts, num_merges)`` is the lab's signature on top of the two.

>>> vocab, merges = train_bpe_on_text("low low low lower lowest", 259, special_tokens=[])
>>> merges
[(b'o', b'w'), (b'l', b'ow'), (b' ', b'low')]
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Mapping, Sequence

from ..corpus import StrPath, encode_utf8
from ..pretokenize import DEFAULT_SPECIAL_TOKENS, count_pretokens, validate_special_tokens
from .step03_parallel import count_pretokens_in_file
from .driver import MergeStep, run_merges

TRAIN_METHODS: tuple[str, ...] = ("naive", "incremental", "parallel", "inverted_index", "heap", "linked_list")
# Each method's module, named by its step of the course so that the files sort in the ladder's order.
TRAINER_MODULES: dict[str, str] = {
    "naive": "step01_naive",
    "incremental": "step02_incremental",
    "parallel": "step03_parallel",
    "inverted_index": "step04_inverted_index",
    "heap": "step05_heap",
    "linked_list": "step05_linked_list",
}
DEFAULT_TRAIN_METHOD = "linked_list"  # the ladder's fastest on every shipped corpus (bench train)

Vocab = dict[int, bytes]
Merges = list[tuple[bytes, bytes]]


def trainer_module(method: str):
    """The module that implements ``method``: each has ``merge_steps(pretoken_counts, **options)``
    and ``train(pretoken_counts, num_merges)``."""
    if method not in TRAIN_METHODS:
        raise ValueError(f"unknown training method {method!r}; choose one of {', '.join(TRAIN_METHODS)}")
    return importlib.import_module(f"{__name__}.{TRAINER_MODULES[method]}")


def num_merges_for(vocab_size: int, special_tokens: Sequence[str]) -> int:
    """How many merges fill ``vocab_size``: it counts 256 bytes + special tokens + merges."""
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise TypeError(f"vocab_size must be an int, got {vocab_size!r}")
    base = 256 + len(special_tokens)
    if vocab_size < base:
        raise ValueError(
            f"vocab_size {vocab_size} is smaller than the base vocabulary of {base} "
            f"(256 byte tokens + {len(special_tokens)} special token{'' if len(special_tokens) == 1 else 's'})"
        )
    return vocab_size - base


def build_vocab(merges: Merges, special_tokens: Sequence[str]) -> Vocab:
    """Ids 0..255 are the bytes, then the special tokens in order, then one id per merge."""
    vocab: Vocab = {b: bytes([b]) for b in range(256)}
    for token in special_tokens:
        vocab[len(vocab)] = encode_utf8(token)
    for left, right in merges:
        vocab[len(vocab)] = left + right
    return vocab


def train_on_counts(
    pretoken_counts: Mapping[bytes, int],
    vocab_size: int,
    special_tokens: Sequence[str] = DEFAULT_SPECIAL_TOKENS,
    method: str = DEFAULT_TRAIN_METHOD,
    *,
    progress: bool = False,
    trace: list[MergeStep] | None = None,
    time_budget: float | None = None,
    **options,
) -> tuple[Vocab, Merges]:
    """Train from pretoken counts (``{b" the": 1200, ...}``): the core every entry point shares.

    ``options`` go to the trainer's ``merge_steps`` (for ``heap``: ``compaction_threshold``).
    Pass a list as ``trace`` to receive one :class:`MergeStep` per merge. With ``time_budget``
    (seconds), training stops after the merge during which the budget ran out, with the merges
    made so far.
    """
    deadline = None if time_budget is None else time.perf_counter() + time_budget
    return _train(pretoken_counts, vocab_size, special_tokens, method, progress, trace, deadline, options)


def _train(
    pretoken_counts: Mapping[bytes, int],
    vocab_size: int,
    special_tokens: Sequence[str],
    method: str,
    progress: bool,
    trace: list[MergeStep] | None,
    deadline: float | None,
    options: dict,
) -> tuple[Vocab, Merges]:
    """What every entry point ends with: ``method``'s merge loop through the driver, then the
    vocabulary. ``deadline`` is a ``time.perf_counter()`` value: each entry point starts the
    clock of its ``time_budget`` itself."""
    special_tokens = validate_special_tokens(special_tokens)
    num_merges = num_merges_for(vocab_size, special_tokens)
    steps = trainer_module(method).merge_steps(pretoken_counts, **options)
    merges = run_merges(
        steps, num_merges, trace=trace, progress=progress, deadline=deadline, description=f"merges ({method})"
    )
    return build_vocab(merges, special_tokens), merges


def train_bpe(
    input_path: StrPath,
    vocab_size: int,
    special_tokens: Sequence[str] = DEFAULT_SPECIAL_TOKENS,
    method: str = DEFAULT_TRAIN_METHOD,
    num_workers: int | None = None,
    progress: bool = False,
    *,
    trace: list[MergeStep] | None = None,
    time_budget: float | None = None,
    **options,
) -> tuple[Vocab, Merges]:
    """Train a byte-level BPE tokenizer on the UTF-8 file at ``input_path``.

    Returns ``(vocab, merges)``: ``vocab`` maps id -> bytes (0..255 the bytes, then the special
    tokens, then one token per merge), ``merges`` lists ``(left, right)`` in training order.
    Training stops early, with a smaller vocabulary, when no pair is left to merge.

    ``num_workers`` processes pretokenize the file (default 1, or every core for
    ``method="parallel"``, whose whole point that is). ``time_budget`` (seconds, counted from
    this call, so pretokenization included) stops training early, as in :func:`train_on_counts`.
    Errors: ``FileNotFoundError`` for a missing file, ``ValueError`` for a file that is not UTF-8
    (with the byte offset) or a ``vocab_size`` below ``256 + len(special_tokens)``.
    """
    deadline = None if time_budget is None else time.perf_counter() + time_budget
    special_tokens = validate_special_tokens(special_tokens)
    num_merges_for(vocab_size, special_tokens)  # fail on a bad size before reading the corpus
    trainer_module(method)
    if num_workers is None:
        num_workers = 0 if method == "parallel" else 1
    if method == "parallel":
        from .step03_parallel import count_pretokens_in_parallel

        pretoken_counts = count_pretokens_in_parallel(input_path, special_tokens, num_workers or None)
    else:
        pretoken_counts = count_pretokens_in_file(input_path, special_tokens, num_workers)
    return _train(pretoken_counts, vocab_size, special_tokens, method, progress, trace, deadline, options)


def train_bpe_on_text(
    text: str,
    vocab_size: int,
    special_tokens: Sequence[str] = DEFAULT_SPECIAL_TOKENS,
    method: str = DEFAULT_TRAIN_METHOD,
    progress: bool = False,
    *,
    trace: list[MergeStep] | None = None,
    time_budget: float | None = None,
    **options,
) -> tuple[Vocab, Merges]:
    """:func:`train_bpe` on a string instead of a file (for notebooks and tests); ``TypeError``
    for anything else (bytes too: decode them first)."""
    if not isinstance(text, str):
        hint = " (decode bytes to str first: data.decode('utf-8'))" if isinstance(text, (bytes, bytearray)) else ""
        raise TypeError(f"train_bpe_on_text takes the text as a str, got {type(text).__name__}{hint}; "
                        "for a file, call train_bpe(path, ...)")
    deadline = None if time_budget is None else time.perf_counter() + time_budget
    special_tokens = validate_special_tokens(special_tokens)
    num_merges_for(vocab_size, special_tokens)
    encode_utf8(text)  # a clear error for lone surrogates
    pretoken_counts = count_pretokens(text, special_tokens)
    return _train(pretoken_counts, vocab_size, special_tokens, method, progress, trace, deadline, options)


__all__ = [
    "TRAIN_METHODS",
    "MergeStep",
    "build_vocab",
    "num_merges_for",
    "train_bpe",
    "train_bpe_on_text",
    "train_on_counts",
    "trainer_module",
]
