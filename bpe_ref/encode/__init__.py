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
share: the merges as rank tables, the valid tokens and the compatibility test of two tokens.
The :class:`~bpe_ref.tokenizer.Tokenizer` splits text into pretokens and calls one of them.

>>> from bpe_ref.encode import ENCODE_METHODS, make_encoder
>>> ENCODE_METHODS
('naive', 'heap', 'backtrack', 'table')
"""

from __future__ import annotations

from .step08_backtrack import BacktrackEncoder
from .common import MergeTables, ValidTokens
from .step07_heap import HeapEncoder
from .step06_naive import NaiveEncoder
from .step08_table import TableEncoder

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
