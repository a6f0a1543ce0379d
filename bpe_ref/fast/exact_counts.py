"""Exact token counting of pieces of a text: where text can be cut so that counts add up.

Counting tokens of a slice, of a growing text, or finding how much text fits in a budget all
rest on one question: where can a text be cut so that ``encode(a + b) == encode(a) + encode(b)``?
Not anywhere: BPE's merges and the GPT-2 pattern both look across a cut (`` o`` + ``ut`` is two
tokens, `` out`` one; ``"x  "`` + ``"y"`` moves a space from one pretoken to the next).

**Hard boundaries.** Call index ``i`` (``0 < i < len(text)``) a *hard boundary* of ``text`` when

1. ``text[i - 1]`` is not whitespace, and ``text[i]`` is in another class of the GPT-2 pattern
   (the classes: letters ``\\p{L}``, numbers ``\\p{N}``, whitespace ``\\s``, everything else),
   except an apostrophe ``'`` followed by a letter (``'s``, ``'ll``: one pretoken);
2. no occurrence of a special token contains both ``text[i - 1]`` and ``text[i]``.

At a hard boundary the pretokens of ``text`` are those of ``text[:i]`` followed by those of
``text[i:]``, so ``encode(text) == encode(text[:i]) + encode(text[i:])``. Why: no alternative of
the pattern matches a non-whitespace character followed by a character of another class (each
run is of one class; the optional leading space comes first; a contraction starts with the
apostrophe), so the pretoken holding ``text[i - 1]`` ends at ``i``, and the pattern has no
lookbehind, so matching from ``i`` on does not depend on what came before. Special tokens are cut
out first: when no occurrence straddles ``i``, cutting there changes none of them. Both conditions
look only at the text around ``i``, so ``i`` stays a hard boundary of every slice of ``text``
that contains ``text[i - 1]`` and ``text[i]``; and of every text that continues ``text`` when
condition 2 is checked with the continuation unknown (no special token could still be completed
across ``i``), which is how a growing text is cut. The segments of the
default path (:func:`bpe_ref.fast.encoder.segment_pattern`) are cut at the hard boundaries where
``text[i]`` is whitespace; the class changes add cuts inside CJK text, numbers and punctuation,
and the *blocks* of this module (whitespace, then one run) end exactly at them. Between hard
boundaries nothing can be assumed: ``" o"`` then ``"ut"`` is inside one pretoken, and
``"x  "`` then ``"y"`` is a whitespace run whose last space joins the next word.

So a slice ``text[start:end]`` that cuts a word counts as the cut piece would on its own:
``count(" out"[:2]) == count(" o")``. The tools below keep the counts of the blocks between hard
boundaries and re-encode only the ragged piece at each end of a slice, or the text since the
last hard boundary of a growing text:

>>> from bpe_ref import Tokenizer
>>> tok = Tokenizer.gpt2()
>>> hard_boundaries("Hello, world!\\n", special_tokens=())
[5, 6, 12, 13]
>>> counter = tok.interval_counter("Hello, world!")
>>> counter.count(0, 5), counter.count(7, 9), len(tok.encode("wo"))
(1, 1, 1)
>>> tok.split_at("Hello, world!", 2)
('Hello,', ' world!')
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from itertools import accumulate, chain, islice

import regex

from ..corpus import encode_utf8
from ..encode.step08_prefix_counts import AppendableEncoder
from ..pretokenize import PRETOKEN_RE, special_token_regex

CountText = Callable[[str], int]  # text -> len(encode(text)), for any text

# A *block*: whitespace, then one run of letters, numbers or other characters (a run of other
# characters ending with an apostrophe takes the letters after it: "'s"); or whitespace that ends
# the text. Consecutive blocks tile the text, and a block ends exactly at the first index after its
# start that satisfies condition 1 (or at the end of the text), wherever the match starts.
_BLOCK = regex.compile(r"\s*(?:\p{L}+|\p{N}+|[^\s\p{L}\p{N}]*'\p{L}+|[^\s\p{L}\p{N}]+)|\s+")
# A last pretoken that stays one pretoken while characters of its class are appended: whitespace
# (at the end of the text), or an optional space then a run of letters, numbers or other
# characters (not a contraction). The pretokens before it do not change either.
_RUN_PRETOKEN = regex.compile(r"(?P<S>\s+)| ?(?:(?P<L>\p{L}+)|(?P<N>\p{N}+)|(?P<P>[^\s\p{L}\p{N}]+))")
_CLASS_RUN = {
    "S": regex.compile(r"\s+"),
    "L": regex.compile(r"\p{L}+"),
    "N": regex.compile(r"\p{N}+"),
    "P": regex.compile(r"[^\s\p{L}\p{N}]+"),
}

RUN_MIN_LENGTH = 64  # characters: a longer growing pretoken is counted byte by byte (AppendableEncoder)
COUNT_CACHE_SIZE = 1 << 16  # pieces of text whose counts a tokenizer remembers
MAX_CACHED_TEXT = 256  # characters: the counts of longer pieces are not remembered
SPLIT_BATCH = 256  # blocks split_at counts at a time


class _Specials:
    """The special tokens, and whether one straddles an index (condition 2)."""

    def __init__(self, special_tokens: tuple[str, ...]) -> None:
        self.tokens = special_tokens
        # A token can straddle i only if it holds text[i - 1] followed by text[i]: a quick filter.
        self.pairs = {(token[k - 1], token[k]) for token in special_tokens for k in range(1, len(token))}
        self.max_length = max(map(len, special_tokens), default=0)
        self.regex = special_token_regex(special_tokens)

    def straddle(self, text: str, i: int, complete: bool) -> bool:
        """Whether a special token occurs across ``i`` (``complete=False``: or may still, once
        more text follows ``text``)."""
        if (text[i - 1], text[i]) not in self.pairs:
            return False
        for token in self.tokens:
            for k in range(1, min(len(token), i + 1)):
                if not text.startswith(token[:k], i - k):
                    continue
                rest = token[k:]
                if text.startswith(rest, i):
                    return True
                if not complete and len(text) - i < len(rest) and rest.startswith(text[i:]):
                    return True
        return False


@lru_cache(maxsize=64)
def _specials(special_tokens: tuple[str, ...]) -> _Specials:
    return _Specials(special_tokens)


def iter_hard_boundaries(
    text: str, special_tokens: Sequence[str] = (), start: int = 0, *, complete: bool = True
) -> Iterator[int]:
    """The hard boundaries ``i >= start`` of ``text``, in order, lazily (see the module's docstring).

    ``complete=False`` treats ``text`` as the beginning of a longer text: an index where a special
    token could still complete across it is left out.
    """
    ends = _block_ends(text, start)
    if not special_tokens:
        return ends
    straddle = _specials(tuple(special_tokens)).straddle
    return (end for end in ends if not straddle(text, end, complete))


def _block_ends(text: str, start: int) -> Iterator[int]:
    """The indexes ``i >= start`` (``0 < i < len(text)``) that satisfy condition 1: blocks
    matched from ``start - 1`` end there."""
    n = len(text)
    return (end for end in map(_match_end, _BLOCK.finditer(text, max(start - 1, 0))) if end < n)


_match_end = regex.Match.end


def hard_boundaries(text: str, special_tokens: Sequence[str] = ()) -> list[int]:
    """Every hard boundary of ``text``: ``encode(text)`` is the encodings of the pieces between them.

    >>> hard_boundaries("it's 42!", special_tokens=())   # not inside "'s", not before " 42"
    [2, 4, 7]
    """
    return list(iter_hard_boundaries(text, special_tokens))


class CountCache(dict):
    """``text -> number of tokens``, counted on a miss by ``count_text``. Only short texts are
    kept (blocks are words; a long one is counted, not stored), and it is emptied when full."""

    __slots__ = ("count_text", "max_size")

    def __init__(self, count_text: CountText, max_size: int = COUNT_CACHE_SIZE) -> None:
        super().__init__()
        self.count_text = count_text
        self.max_size = max_size

    def __missing__(self, text: str) -> int:
        count = self.count_text(text)
        if len(text) <= MAX_CACHED_TEXT:
            if len(self) >= self.max_size:
                self.clear()
            self[text] = count
        return count


def _check_text(text: object, who: str) -> str:
    if not isinstance(text, str):
        hint = " (decode bytes to str first)" if isinstance(text, (bytes, bytearray)) else ""
        raise TypeError(f"{who} takes a str, got {type(text).__name__}{hint}")
    encode_utf8(text)  # a lone surrogate: ValueError naming it, as encode() gives
    return text


def _straddled_edges(text: str, edges: list[int], specials: _Specials) -> list[int]:
    """Indexes ``k`` of ``edges`` that fail condition 2, in order. Only an edge strictly inside an
    occurrence of a special token can (every occurrence: ``overlapped`` finds one at each start,
    the longest, which holds the shorter ones)."""
    if specials.regex is None or specials.regex.search(text) is None:
        return []
    straddled: set[int] = set()
    for match in specials.regex.finditer(text, overlapped=True):
        for k in range(bisect_right(edges, match.start()), bisect_left(edges, match.end())):
            if specials.straddle(text, edges[k], True):
                straddled.add(k)
    return sorted(straddled)


def _merge_blocks(text: str, blocks: list[str], edges: list[int], straddled: list[int]) -> list[str]:
    """``blocks`` with the two blocks on either side of each straddled edge joined (list slices:
    the blocks between stay as they are, at C speed)."""
    merged: list[str] = []
    done = 0  # blocks[:done] are in `merged`
    i = 0
    while i < len(straddled):
        first = last = straddled[i]  # a run of consecutive straddled edges joins blocks first-1..last
        while i + 1 < len(straddled) and straddled[i + 1] == last + 1:
            i += 1
            last = straddled[i]
        merged += blocks[done : first - 1]
        merged.append(text[edges[first - 1] : edges[last + 1]])
        done = last + 1
        i += 1
    merged += blocks[done:]
    return merged


class IntervalCounter:
    """``count(start, end) == len(encode(text[start:end]))`` for character offsets, fast.

    Built in linear time: the counts of the blocks between hard boundaries, as prefix sums. A query
    adds the whole blocks inside the slice from the prefix sums and re-encodes only the two ragged
    ends (the piece from ``start`` to the next hard boundary, from the last one to ``end``), so
    its time does not grow with ``end - start`` when blocks are short (words). A slice inside one
    block is encoded as it is. Made by :meth:`bpe_ref.Tokenizer.interval_counter`.

    >>> from bpe_ref import Tokenizer
    >>> counter = Tokenizer.gpt2().interval_counter("Fetch the ball outside.")
    >>> counter.count(0, 23), counter.count(14, 17)   # " ou" of " outside" counts on its own: " o", "u"
    (6, 2)
    """

    def __init__(self, text: str, count_text: CountText, special_tokens: Sequence[str] = ()) -> None:
        self.text = _check_text(text, "interval_counter")
        self._count = count_text
        blocks = _BLOCK.findall(text)  # they tile the text and end where condition 1 holds
        edges = [0, *accumulate(map(len, blocks))]
        straddled = _straddled_edges(text, edges, _specials(tuple(special_tokens)))
        if straddled:
            blocks = _merge_blocks(text, blocks, edges, straddled)
            edges = [0, *accumulate(map(len, blocks))]
        self._edges = edges
        self._prefix = [0, *accumulate(map(count_text, blocks))]  # tokens of text[:edges[j]]

    def count(self, start: int, end: int) -> int:
        """Tokens of ``text[start:end]`` encoded on its own (``0 <= start <= end <= len(text)``)."""
        for name, value in (("start", start), ("end", end)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{name} must be an int character offset, got {value!r}")
        if not 0 <= start <= end <= len(self.text):
            raise ValueError(
                f"need 0 <= start <= end <= len(text) = {len(self.text)}, got start={start}, end={end}"
            )
        if start == end:
            return 0
        edges, prefix, text = self._edges, self._prefix, self.text
        first = bisect_right(edges, start)  # the first edge after start
        last = bisect_left(edges, end) - 1  # the last edge before end
        if first > last:  # no hard boundary inside: a piece of one block
            return self._count(text[start:end])
        total = prefix[last] - prefix[first]
        if edges[first - 1] == start:
            total += prefix[first] - prefix[first - 1]
        else:
            total += self._count(text[start : edges[first]])
        if edges[last + 1] == end:
            total += prefix[last + 1] - prefix[last]
        else:
            total += self._count(text[edges[last] : end])
        return total

    @property
    def total(self) -> int:
        """Tokens of the whole text."""
        return self._prefix[-1]

    def __len__(self) -> int:
        return len(self.text)


class Appender:
    """``append(piece)`` text; ``count == len(encode(everything appended))`` after every append.

    Everything before the last hard boundary is counted once and kept as a number; only the text
    since that boundary (usually the word being written) is counted again after an append: O(1)
    per character when words are short. A long pretoken that grows one class of characters at a
    time (a run of CJK letters, a long number) is counted byte by byte by the step-08
    :class:`~bpe_ref.encode.step08_prefix_counts.AppendableEncoder` when ``appendable`` makes one.
    Memory holds that text and a few characters before it, not all the text.
    Made by :meth:`bpe_ref.Tokenizer.appender`.

    >>> from bpe_ref import Tokenizer
    >>> appender = Tokenizer.gpt2().appender()
    >>> for piece in ["Hel", "lo", " wor", "ld"]:
    ...     appender.append(piece)
    ...     print(repr(piece), appender.count)
    'Hel' 1
    'lo' 1
    ' wor' 2
    'ld' 2
    """

    def __init__(
        self,
        count_text: CountText,
        special_tokens: Sequence[str] = (),
        appendable: Callable[[], AppendableEncoder] | None = None,
    ) -> None:
        self._count_text = count_text
        self._special_tokens = tuple(special_tokens)
        specials = _specials(self._special_tokens)
        self._special_re = specials.regex
        self._straddle = specials.straddle if specials.tokens else None
        # Characters before the pending text kept for condition 2 (a special token reaching back).
        self._context = max(specials.max_length - 1, 0)
        self._maybe: list[int] = []  # indexes of `_pending` that a special token may yet straddle
        self._new_run = appendable
        self._committed = 0  # tokens of the text before the last hard boundary
        self._before = ""  # its last `_context` characters
        self._pending = ""  # the text since the last hard boundary
        self._pending_count = 0
        # When the last pretoken of `_pending` is one growing run: its appendable encoder, and the
        # tokens of the pretokens before it.
        self._run: AppendableEncoder | None = None
        self._run_base = 0
        self._run_class = None
        self._length = 0

    def append(self, piece: str) -> None:
        """Add ``piece`` at the end of the text (``TypeError`` for non-str, ``ValueError`` for a
        lone surrogate)."""
        _check_text(piece, "Appender.append")
        if not piece:
            return
        self._length += len(piece)
        old = len(self._pending)
        pending = self._pending + piece
        # Condition 1 looks at two characters: indexes before the old end were decided. Blocks
        # matched from there (within `pending`: no hard boundary lies before it) end at the new
        # candidates; the latest one that passes condition 2 is where counting restarts.
        candidates = [end for end in self._maybe if end < len(pending)]
        candidates += _block_ends(pending, max(old, 1))
        cut = None
        if self._straddle is None:
            cut = candidates[-1] if candidates else None
        elif candidates:
            # A special token could complete across an index only with characters not yet seen:
            # such indexes are checked again on the next append.
            text = self._before + pending
            offset = len(self._before)
            maybe = []
            for end in reversed(candidates):
                if not self._straddle(text, offset + end, False):
                    cut = end
                    break
                maybe.append(end)
            self._maybe = maybe[::-1]
        if cut is not None:
            done = pending[:cut]
            self._committed += self._count_text(done)
            if self._context:
                self._before = (self._before + done)[-self._context :]
            pending = pending[cut:]
            self._maybe = [end - cut for end in self._maybe]
            self._run = None
        self._pending = pending
        run = self._run
        if run is not None and self._extends_run(piece):
            run.append(piece.encode("utf-8"))
            self._pending_count = self._run_base + run.count
            return
        self._run = None
        self._pending_count = self._count_text(pending)
        if self._new_run is not None and len(pending) >= RUN_MIN_LENGTH:
            self._start_run(pending)

    def _extends_run(self, piece: str) -> bool:
        if not self._run_class.fullmatch(piece):
            return False
        if self._special_re is None:
            return True
        size = self._context + len(piece)  # an occurrence that holds a new character lies in here
        window = self._pending[-size:]
        if len(window) < size:
            window = (self._before + self._pending)[-size:]
        return self._special_re.search(window) is None

    def _start_run(self, pending: str) -> None:
        if self._special_re is not None and self._special_re.search(pending):
            return
        pretokens = PRETOKEN_RE.findall(pending)
        match = _RUN_PRETOKEN.fullmatch(pretokens[-1]) if pretokens else None
        if match is None or len(pretokens[-1]) < RUN_MIN_LENGTH // 2:
            return
        run = self._new_run()
        run.append(pretokens[-1].encode("utf-8"))
        self._run = run
        # Each pretoken on its own: together they may pretokenize otherwise ("\n" "\n" vs "\n\n").
        self._run_base = sum(map(self._count_text, pretokens[:-1]))
        self._run_class = _CLASS_RUN[match.lastgroup]

    @property
    def count(self) -> int:
        """Tokens of everything appended so far."""
        return self._committed + self._pending_count

    def __len__(self) -> int:
        """Characters appended so far."""
        return self._length


def split_at(
    text: str,
    max_tokens: int,
    count_text: CountText,
    special_tokens: Sequence[str] = (),
    appendable: Callable[[], AppendableEncoder] | None = None,
) -> tuple[str, str]:
    """``(head, rest)``: the longest prefix ``head`` with at most ``max_tokens`` tokens, cut at a
    character, and the rest of ``text`` (``head + rest == text``).

    Counts are not monotonic (GPT-2: ``" ou"`` is two tokens, ``" out"`` one), so "longest" means
    it: no longer prefix fits, though some shorter one might not. Whole blocks between hard boundaries
    are added while they fit; in the block that does not fit, every prefix is counted with an
    :class:`Appender`. The blocks after that one are never looked at: every block adds at least
    one token. Used by :meth:`bpe_ref.Tokenizer.split_at`.
    """
    _check_text(text, "split_at")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int):
        raise TypeError(f"max_tokens must be an int, got {max_tokens!r}")
    if max_tokens < 0:
        raise ValueError(f"max_tokens must be >= 0, got {max_tokens}")
    total = 0
    start = 0
    edges = chain(iter_hard_boundaries(text, special_tokens), (len(text),) if text else ())
    while True:
        batch = list(islice(edges, SPLIT_BATCH))  # counted together: one map() over the cache
        if not batch:
            return text, ""
        starts = [start, *batch[:-1]]
        counts = list(map(count_text, map(text.__getitem__, map(slice, starts, batch))))
        sums = list(accumulate(counts, initial=total))
        if sums[-1] <= max_tokens:
            total, start = sums[-1], batch[-1]
            continue
        j = bisect_right(sums, max_tokens) - 1  # blocks before j fit, block j does not
        total, start, edge = sums[j], starts[j], batch[j]
        break
    # The limit falls inside text[start:edge]: the longest prefix of the block that still fits.
    appender = Appender(count_text, special_tokens, appendable)
    best = start
    for end in range(start + 1, edge):
        appender.append(text[end - 1])
        if total + appender.count <= max_tokens:
            best = end
    return text[:best], text[best:]


__all__ = [
    "Appender",
    "CountCache",
    "IntervalCounter",
    "hard_boundaries",
    "iter_hard_boundaries",
    "split_at",
]
