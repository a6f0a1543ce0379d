"""The tokenizer's default path (``method=None``): the ids of the encoders, as fast as Python goes.

Text repeats its words, so the default path keeps a cache from pieces of text to their ids, and
only encodes a piece it has not seen. The pieces are *segments* (a run of whitespace followed by a
run of non-whitespace, such as ``" time,"``), cut by a simple regular expression that runs faster
than the GPT-2 pattern; why segments are safe to encode one by one is explained at
:func:`segment_pattern`. A segment not in the cache is split into pretokens; a pretoken that is a
single token is looked up, any other goes to the ``heap`` encoder (the fastest of the four in
Python). The same argument tells :func:`last_safe_cut` where
:meth:`~bpe_ref.tokenizer.Tokenizer.encode_iterable` may cut a stream of text.

>>> segment_pattern().findall("Once upon  a time,\\n")
['Once', ' upon', '  a', ' time,', '\\n']
>>> last_safe_cut("Hello world, again", 0, special_tokens=())   # before " again"
12
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from itertools import chain

import regex

from .corpus import encode_utf8
from .encode.common import MergeTables
from .encode.step07_heap import HeapEncoder
from .encode.step08_valid_tokens import ValidTokens
from .pretokenize import PRETOKEN_RE, special_token_regex, split_keeping_special_tokens

DEFAULT_CACHE_SIZE = 1 << 16  # segments kept in the cache; it is emptied when full, so memory is bounded
MAX_CACHED_SEGMENT = 256  # characters; a longer segment (one long piece) is encoded, not stored


@lru_cache(maxsize=1)
def whitespace_chars() -> str:
    """Every character that the GPT-2 pattern's ``\\s`` matches (asked of ``regex`` itself)."""
    every_char = "".join(map(chr, range(0x110000)))
    return "".join(regex.findall(r"\s", every_char))


@lru_cache(maxsize=1)
def segment_pattern() -> re.Pattern:
    """``[ws]*[^ws]+|[ws]+``: a run of whitespace then a run of non-whitespace (or trailing space).

    Why a segment can be encoded on its own. Every segment after the first starts where a
    whitespace run follows a non-whitespace character ``c``. No alternative of the GPT-2 pattern
    matches a non-whitespace character followed by a whitespace one (the letter, number and
    punctuation runs exclude ``\\s``; the optional leading space only comes first; the whitespace
    runs exclude ``c``), so the pretoken holding ``c`` ends at ``c``: the segment boundary is a
    pretoken boundary, whatever the text around it. Inside a segment, the pattern's only
    lookahead, ``\\s+(?!\\S)``, looks at the character after a whitespace run, which is inside the
    segment. So the pretokens of a text are those of its segments, one after the other (the
    tests check it on generated text). ``re`` runs this pattern about twice as fast as ``regex``
    runs the GPT-2 one; ``\\s`` is spelled out as :func:`whitespace_chars`, because ``re`` and
    ``regex`` disagree on four control characters.
    """
    space = "".join(re.escape(c) for c in whitespace_chars())
    return re.compile(f"[{space}]*[^{space}]+|[{space}]+")


class _SegmentCache(dict):
    """segment -> tuple of ids; ``__missing__`` encodes a new segment (called from C by ``map``)."""

    __slots__ = ("encode_segment", "max_size")

    def __missing__(self, segment: str) -> tuple[int, ...]:
        ids = self.encode_segment(segment)
        if len(segment) <= MAX_CACHED_SEGMENT:
            if len(self) >= self.max_size:
                self.clear()  # simplest bound on memory; the hit path stays a plain dict lookup
            self[segment] = ids
        return ids


def single_token_ids(tables: MergeTables, valid: ValidTokens) -> dict[str, int]:
    """``{text: id}`` for every valid token whose bytes are whole UTF-8 text.

    A pretoken whose bytes are a valid token encodes to that one token, without running an encoder.
    """
    single: dict[str, int] = {}
    for token_bytes, token in valid.token_of.items():
        try:
            single[token_bytes.decode("utf-8")] = tables.token_ids[token]
        except UnicodeDecodeError:
            pass  # part of a character: never a whole pretoken
    return single


class FastEncoder:
    """Text (a ``str``, special tokens and all) -> ids, through the segment cache.

    ``special_token_ids`` maps each special token to its id, in the tokenizer's order; ``valid``
    gives the single-token shortcut (``None``: no shortcut, for vocabularies with repeated token
    bytes, where the ``heap`` encoder does it all); ``cache_size`` bounds the cached segments.
    """

    def __init__(
        self,
        tables: MergeTables,
        special_token_ids: Mapping[str, int],
        valid: ValidTokens | None,
        cache_size: int = DEFAULT_CACHE_SIZE,
    ) -> None:
        self.special_tokens: tuple[str, ...] = tuple(special_token_ids)
        self.special_token_ids = special_token_ids
        self.special_re = special_token_regex(self.special_tokens)
        single = single_token_ids(tables, valid) if valid is not None else {}
        heap = HeapEncoder(tables)
        pretokens = PRETOKEN_RE.findall

        def encode_segment(segment: str) -> tuple[int, ...]:
            ids: list[int] = []
            for pretoken in pretokens(segment):
                token_id = single.get(pretoken)
                if token_id is None:
                    ids += heap.encode(pretoken.encode("utf-8"))
                else:
                    ids.append(token_id)
            return tuple(ids)

        self.cache = _SegmentCache()
        self.cache.encode_segment = encode_segment
        self.cache.max_size = cache_size

    def encode(self, text: str) -> list[int]:
        """The token ids of ``text`` (``ValueError`` for a lone surrogate)."""
        lookup = self.cache.__getitem__
        segments = segment_pattern().findall
        try:
            if self.special_re is None or self.special_re.search(text) is None:
                return list(chain.from_iterable(map(lookup, segments(text))))
            ids: list[int] = []
            for piece, is_special in split_keeping_special_tokens(text, self.special_tokens):
                if is_special:
                    ids.append(self.special_token_ids[piece])
                else:
                    ids += chain.from_iterable(map(lookup, segments(piece)))
            return ids
        except UnicodeEncodeError:
            encode_utf8(text)  # raises the ValueError that names the character and its index
            raise

    def count(self, text: str) -> int:
        """``len(self.encode(text))``, adding up the lengths of the cached segments' ids."""
        lookup = self.cache.__getitem__
        segments = segment_pattern().findall
        try:
            if self.special_re is None or self.special_re.search(text) is None:
                return sum(map(len, map(lookup, segments(text))))
            total = 0
            for piece, is_special in split_keeping_special_tokens(text, self.special_tokens):
                total += 1 if is_special else sum(map(len, map(lookup, segments(piece))))
            return total
        except UnicodeEncodeError:
            encode_utf8(text)  # raises the ValueError that names the character and its index
            raise

    def clear_cache(self) -> None:
        """Forget the cached segments."""
        self.cache.clear()


def last_safe_cut(text: str, searched_from: int, special_tokens: Sequence[str]) -> int:
    """The last index ``i >= searched_from`` where ``text[i]`` is whitespace after a
    non-whitespace character (a pretoken boundary, see :func:`segment_pattern`) and no special
    token could straddle ``i``; 0 if there is none. Earlier points were already rejected (for
    good: both conditions depend only on the text before ``i`` and at ``i``)."""
    space = _whitespace_set()
    for i in range(len(text) - 1, max(searched_from, 1) - 1, -1):
        if text[i] in space and text[i - 1] not in space and not _may_straddle(text, i, special_tokens):
            return i
    return 0


def _may_straddle(text: str, cut: int, special_tokens: Sequence[str]) -> bool:
    # A special token could straddle the cut if the text before it ends with a proper prefix
    # of one: the next chunk might complete it (or a longer one that wins). A cut is made at
    # a whitespace character, so only special tokens that contain whitespace can straddle it.
    space = _whitespace_set()
    for token in special_tokens:
        if space.isdisjoint(token):
            continue
        for k in range(1, len(token)):
            if text.endswith(token[:k], 0, cut):
                return True
    return False


@lru_cache(maxsize=1)
def _whitespace_set() -> frozenset[str]:
    return frozenset(whitespace_chars())


__all__ = [
    "DEFAULT_CACHE_SIZE",
    "MAX_CACHED_SEGMENT",
    "FastEncoder",
    "last_safe_cut",
    "segment_pattern",
    "single_token_ids",
    "whitespace_chars",
]
