"""bpe_ref: the reference byte-pair-encoding package of *Fast BPE from Scratch*.

Every lab of the course is graded against it. One module per idea:

- :mod:`bpe_ref.pretokenize`: the GPT-2 pattern, special tokens, pretoken counts (steps 00, 03)
- :mod:`bpe_ref.train`: six trainers from the naive loop to the heap (steps 01-05)
- :mod:`bpe_ref.tiebreak`: the tie-break rule, in one place
- :mod:`bpe_ref.serialization`: GPT-2 ``vocab.json`` / ``merges.txt``
- :mod:`bpe_ref.tokenizer`, :mod:`bpe_ref.encode`, :mod:`bpe_ref.decode`: four encoders and the
  arena decoder behind one ``Tokenizer`` (steps 06-08)
- :mod:`bpe_ref.measure`: the measuring harness (interleaved rounds, medians and spreads, per-round
  ratios, fitted exponents, crossovers, peak memory; step 09)
- :mod:`bpe_ref.distributed`: pretoken counts of many files on a Dask cluster, merged centrally
  (step 10; needs ``dask`` and ``distributed``)

Outside the steps, what makes the tokenizer fast (no page or lab teaches it):

- :mod:`bpe_ref.fast.encoder`: ``Tokenizer.encode``'s default path, caches of text segments and of
  pieces of pretokens
- :mod:`bpe_ref.fast.exact_counts`: exact token counts of slices, of growing text, and the longest
  prefix within a budget (``Tokenizer.count``, ``interval_counter``, ``appender``, ``split_at``)

The course's tooling: :mod:`bpe_ref.course.checks`, the graders of the labs; :mod:`bpe_ref.course.bench`,
the benchmarks.

>>> from bpe_ref import train_bpe_on_text
>>> vocab, merges = train_bpe_on_text("the cat the hat", 258, special_tokens=[])
>>> merges   # (t, h), (h, e) and (a, t) all occur twice: (b"t", b"h") is the greatest
[(b't', b'h'), (b'th', b'e')]
"""

from __future__ import annotations

from .tokenizer import ENCODE_METHODS, Tokenizer
from .train import TRAIN_METHODS, MergeStep, train_bpe, train_bpe_on_text, train_on_counts

__all__ = [
    "ENCODE_METHODS",
    "TRAIN_METHODS",
    "MergeStep",
    "Tokenizer",
    "train_bpe",
    "train_bpe_on_text",
    "train_on_counts",
]
