"""Encoding a pretoken's bytes into token ids: four encoders, one module (and one idea) each.

=============  ====================================================================  ===========
method         idea                                                                  theory page
=============  ====================================================================  ===========
``naive``      apply the lowest-rank merge everywhere, repeat: O(L²)                  06
``heap``       priority queue of pairs over a linked list of parts: O(L log L)        07
``backtrack``  longest-prefix search over compatible token pairs (rust-gems): O(L)    08
``table``      dynamic programming: last token of the valid encoding of each prefix   08
=============  ====================================================================  ===========

All four return identical ids (tests/test_encode_equivalence.py). :mod:`.common` holds what they
all share: the merges as rank tables. :mod:`.step08_valid_tokens` holds what the two step-08
encoders add: the valid tokens, the compatibility test of two tokens, and the tries of tokens.
:mod:`.step08_prefix_counts` counts tokens from the table encoder's ``last[]`` array without the
ids: every prefix of a pretoken at once (``prefix_token_counts``), or byte by byte as it grows
(``AppendableEncoder``).
The :class:`~bpe_ref.tokenizer.Tokenizer` splits text into pretokens and calls one of them.

>>> from bpe_ref.encode import ENCODE_METHODS, make_encoder
>>> ENCODE_METHODS
('naive', 'heap', 'backtrack', 'table')
"""

from __future__ import annotations

from .common import MergeTables
from .step06_naive import NaiveEncoder
from .step07_heap import HeapEncoder
from .step08_backtrack import BacktrackEncoder
from .step08_table import TableEncoder
from .step08_valid_tokens import ValidTokens

ENCODE_METHODS: tuple[str, ...] = ("naive", "heap", "backtrack", "table")

_ENCODERS = {"naive": NaiveEncoder, "heap": HeapEncoder, "backtrack": BacktrackEncoder, "table": TableEncoder}


def check_method(method: str) -> str:
    """``method`` if it names an encoder, else a ``ValueError`` listing them."""
    if method not in _ENCODERS:
        raise ValueError(f"unknown encode method {method!r}; choose one of {', '.join(ENCODE_METHODS)}")
    return method


def make_encoder(method: str, tables: MergeTables, valid: ValidTokens | None = None):
    """The encoder object for ``method``: it has ``encode(pretoken_bytes) -> list[int]``.

    ``valid`` (for ``backtrack`` and ``table``) shares one :class:`ValidTokens` between them.
    """
    cls = _ENCODERS[check_method(method)]
    if cls in (BacktrackEncoder, TableEncoder):
        return cls(tables, valid)
    return cls(tables)


__all__ = [
    "ENCODE_METHODS",
    "BacktrackEncoder",
    "HeapEncoder",
    "MergeTables",
    "NaiveEncoder",
    "TableEncoder",
    "ValidTokens",
    "check_method",
    "make_encoder",
]
