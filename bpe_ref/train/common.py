"""How every trainer of the course holds its data: tokens are ``bytes``.

A trainer's input is the *pretoken counts* of page 00 (``{b" low": 5, ...}``, named
``pretoken_counts``). Each pretoken becomes a *word*: a tuple of tokens that starts as its single
bytes and shrinks as merges apply. A token is the ``bytes`` it stands for, so merging
``(b"l", b"o")`` makes the token ``b"lo"``, and ``(b" ", b"lo", b"w")`` is a word anyone can read.
The *word counts* map each word to its frequency; a *pair* is two adjacent tokens; the trainers
return the merges as pairs, in training order.

Integer ids come later, once: :func:`bpe_ref.train.build_vocab` numbers the 256 bytes, then the
special tokens, then one token per merge. Nothing inside a trainer depends on ids, and the
tie-break compares the tokens' bytes directly (:mod:`bpe_ref.tiebreak`).
"""

from __future__ import annotations

Token = bytes
Word = tuple[bytes, ...]  # (b" ", b"lo", b"w")
Pair = tuple[bytes, bytes]  # (b"lo", b"w")

__all__ = ["Pair", "Token", "Word"]
