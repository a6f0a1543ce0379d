"""The tokenizer's default path (``method=None``): the ids of the encoders, as fast as Python goes.

Text repeats itself, so the default path remembers the ids of what it has encoded, at two
sizes, and runs an encoder only on what it has never seen:

1. **Segments**: a run of whitespace then a run of non-whitespace (``" time,"``), cut by a simple
   regular expression that runs faster than the GPT-2 pattern. Why segments can be encoded one by
   one: :func:`segment_pattern`. Running text repeats its segments, so most of it is one dict
   lookup per segment.
2. **Pieces**: a segment not seen before is split into pretokens. An ASCII segment is split by a
   copy of the GPT-2 pattern for ASCII that ``re`` runs (:func:`ascii_pretoken_pattern`); its
   pretokens are never cut, and as each is a segment of its own, the segment cache holds them
   too. Other segments are split by the GPT-2 pattern, and their pretokens are cut where no
   merge can ever cross (:func:`piece_pattern`, one call per segment). Chinese has no spaces,
   so a segment can be a whole paragraph, seen once; cut into pieces, it is mostly single
   characters, which repeat. Only a piece never seen goes to an encoder (:func:`piece_encoder`).
3. **Whole tokens**: most pieces of English are one token already (``" upon"``). A piece whose
   bytes are a *valid* token (step 08: BPE turns those bytes into that token alone) is that
   token, without running an encoder; :class:`ValidOnDemand` decides validity token by token,
   as pieces ask.

What a first call on English costs: what a warm call costs (one regular expression, one
lookup per segment), plus about 2 µs for each distinct segment and, for each distinct
pretoken, a validity check of about 3 µs (the first time a token is met) or an encoder run of
about 6 µs (a flat loop in Python); TinyStories has 12 000 distinct segments and 5 300
distinct pretokens, 4 400 of them single tokens, in 1.4 MB (``theory/benchmarks/encode``).

The same argument as for segments tells :func:`last_safe_cut` where
:meth:`~bpe_ref.tokenizer.Tokenizer.encode_iterable` may cut a stream of text.

>>> segment_pattern().findall("Once upon  a time,\\n")
['Once', ' upon', '  a', ' time,', '\\n']
>>> last_safe_cut("Hello world, again", 0, special_tokens=())   # before " again"
12
"""

from __future__ import annotations

import re
import sys
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import chain, filterfalse, repeat

from .corpus import encode_utf8
from .encode.common import NOT_A_MERGE, MergeTables
from .encode.step07_heap import HeapEncoder
from .encode.step08_valid_tokens import ValidTokens
from .pretokenize import PRETOKEN_RE, special_token_regex, split_keeping_special_tokens

# The possessive mark of a repeat (``*+``, ``++``: keep what was matched, never give it back), which
# ``re`` knows from Python 3.11. The patterns below match the same with plain repeats (each repeat
# is followed by something its items cannot match, or that always matches after them), so on
# Python 3.10 they go without it, a little slower.
POSSESSIVE = "+" if sys.version_info >= (3, 11) else ""

DEFAULT_CACHE_SIZE = 1 << 17  # entries kept in each cache; it is emptied when full, so memory is bounded
SEPARATOR = b"\xff"  # between pretokens when they are cut into pieces: no UTF-8 text holds this byte
SHORT_PIECE = 16  # bytes; a piece this short is merged in a flat list, a longer one by the heap encoder
SHORT_PRETOKEN = 4  # characters; until a longer pretoken that is not ASCII comes, none is cut into pieces
MAX_CACHED_SEGMENT = 4096  # characters; a longer segment is not stored (its pieces are)
MAX_CACHED_PIECE = 256  # bytes; a longer piece is not stored
CACHED_CHARS_PER_KEY = 64  # a cache of n keys also holds at most 64 n characters (or bytes) of keys

# Every character the GPT-2 pattern's ``\s`` matches (Unicode's White_Space), written out because
# asking ``regex`` about all 1.1 million code points takes 0.2 s (the tests ask it).
WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


def whitespace_chars() -> str:
    """Every character that the GPT-2 pattern's ``\\s`` matches."""
    return WHITESPACE


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
    runs the GPT-2 one; ``\\s`` is spelled out as :data:`WHITESPACE`, because ``re`` and
    ``regex`` disagree on four control characters.
    """
    space = "".join(re.escape(c) for c in WHITESPACE)
    return re.compile(f"[{space}]*{POSSESSIVE}[^{space}]+{POSSESSIVE}|[{space}]+{POSSESSIVE}")  # nothing to backtrack into


@lru_cache(maxsize=1)
def ascii_pretoken_pattern() -> re.Pattern:
    """The GPT-2 pattern (:data:`~bpe_ref.pretokenize.GPT2_PATTERN`) for ASCII text only, run by ``re``.

    On ASCII, ``\\p{L}`` is ``[A-Za-z]``, ``\\p{N}`` is ``[0-9]`` and ``\\s`` is ``[\\t\\n\\x0b\\x0c\\r ]``
    (the pattern's ``\\s`` is Unicode's White_Space, which leaves out ``\\x1c``-``\\x1f``), so this
    pattern finds the same pretokens in an ASCII segment (the tests check it), in about a third
    of the time: on a short segment, most of the time is the call, and ``re``'s is cheaper.

    >>> ascii_pretoken_pattern().findall("It's 42 o'clock!")
    ['It', "'s", ' 42', ' o', "'", 'clock', '!']
    """
    space = r"\t\n\x0b\x0c\r "
    return re.compile(
        rf"'(?:[sdmt]|ll|ve|re)| ?[A-Za-z]+| ?[0-9]+| ?[^{space}A-Za-z0-9]+|[{space}]+(?![^{space}])|[{space}]+"
    )


# ------------------------------------------------------------------------ pieces of a pretoken


def joining_byte_pairs(merges: Sequence[tuple[bytes, bytes]]) -> set[tuple[int, int]]:
    """Every pair of adjacent bytes ``(x, y)`` found inside some token that the merges make.

    Where a pretoken's bytes hold a pair that no token holds, no token can ever span that point,
    so no merge crosses it: BPE on the pretoken is BPE on each side, one after the other (the
    merges on one side never look at the other, and lowest rank first, leftmost first, orders
    each side's merges as it orders all of them). A token made by merge ``(left, right)`` holds
    the pairs inside ``left``, those inside ``right`` (tokens made earlier, or single bytes) and
    the one where they meet, so the pairs where merges meet are all of them. GPT-2 has 50 000
    merges but only about 2 700 such pairs: two Chinese characters rarely share a token.

    >>> sorted(joining_byte_pairs([(b"a", b"b"), (b"ab", b"c")]))
    [(97, 98), (98, 99)]
    """
    return {(left[-1], right[0]) for left, right in merges}


def piece_pattern(merges: Sequence[tuple[bytes, bytes]]) -> re.Pattern:
    """A pattern whose ``findall`` cuts pretokens into *pieces* that BPE encodes one by one with
    the same result: it cuts between two characters where no token holds the two bytes that meet
    there (:func:`joining_byte_pairs`).

    It reads the UTF-8 bytes of a segment's pretokens joined by :data:`SEPARATOR` (``0xFF``, a
    byte that UTF-8 never uses) and returns the pieces without the separators: one call per
    segment, not one per pretoken. A piece is a run of characters that each *join* the next (some
    token holds the last byte of one and the first byte of the next), then one more character;
    the separator joins nothing. To stay one quick regular expression the rule cuts a little less
    than it could, never more: it never cuts between two ASCII characters (English words would
    gain nothing).

    Written for ``re``'s speed, as each character of a Chinese paragraph is tried: a character
    is matched whole (its first byte tells its length); a lookahead checks that its last byte
    joins anything at all before the groups of last bytes (one branch per group that joins the
    same first bytes) are tried one by one, so most Chinese characters fail once, not once per
    group; and the repeat is possessive (``*+``, from Python 3.11: :data:`POSSESSIVE`): ``re`` keeps no state to backtrack into.

    >>> pattern = piece_pattern([(b"a", b"b"), (b"\\xe4\\xb8\\xad", b"\\xe6")])  # a token holds 中 and a lead 0xE6
    >>> data = SEPARATOR.join(["ab中文中國".encode(), "中".encode()])   # 文 starts with 0xE6, 國 with 0xE5
    >>> [piece.decode() for piece in pattern.findall(data)]
    ['ab', '中文', '中', '國', '中']
    """
    joins: dict[int, set[int]] = {}  # last byte of a character -> first bytes of the next it joins
    for x, y in joining_byte_pairs(merges):
        if (y < 0x80 or 0xC2 <= y <= 0xF4) and not (x < 0x80 and y < 0x80):
            joins.setdefault(x, set()).add(y)  # y starts a character (ASCII after ASCII: always joined)
    by_next: dict[frozenset[int], list[int]] = {}
    for x, ys in joins.items():
        by_next.setdefault(frozenset(ys), []).append(x)

    def byte_class(values: Iterable[int]) -> bytes:
        return b"[" + b"".join(re.escape(bytes([v])) for v in sorted(values)) + b"]"

    def joins_next(last_bytes: range) -> bytes:
        """A last byte in ``last_bytes`` that joins the next character's first byte."""
        groups = [(ys, [x for x in xs if x in last_bytes]) for ys, xs in by_next.items()]
        groups = sorted(((ys, xs) for ys, xs in groups if xs), key=lambda group: -len(group[1]))
        if not groups:
            return b"(?!)"  # no such byte: never matches
        any_joining = byte_class(x for _, xs in groups for x in xs)
        return b"(?=" + any_joining + b")(?:" + b"|".join(byte_class(xs) + b"(?=" + byte_class(ys) + b")"
                                                          for ys, xs in groups) + b")"

    last = joins_next(range(0x80, 0xC0))  # a continuation byte ends every multi-byte character
    joining = b"|".join([
        rb"[\xe0-\xef][\x80-\xbf]" + last,  # 3 bytes (Chinese) first: tried most often
        rb"[\x00-\x7f](?=[\x00-\x7f])",  # ASCII after ASCII
        joins_next(range(0x80)),  # ASCII before another character
        rb"[\xc0-\xdf]" + last,
        rb"[\xf0-\xf7][\x80-\xbf]{2}" + last,
    ])
    character = rb"[\x00-\x7f]|[\xe0-\xef][\x80-\xbf]{2}|[\xc0-\xdf][\x80-\xbf]|[\xf0-\xf7][\x80-\xbf]{3}"
    return re.compile(re.escape(SEPARATOR) + b"?((?:" + joining + b")*" + POSSESSIVE.encode() + b"(?:" + character + b"))")


# ------------------------------------------------------------------------ encoding one piece


class ValidOnDemand:
    """Step 08's valid tokens (BPE turns the token's own bytes into that one token), decided one
    token at a time when first asked, and remembered.

    A token made by merge ``(left, right)`` is valid when both parts are valid, the pair makes
    this very token, and no merge across the parts' boundary comes first
    (:meth:`~bpe_ref.encode.step08_valid_tokens.ValidTokens.compatible`, the same walk). The
    default path asks only about the pretokens it meets: a first call on a megabyte of English
    decides about 7 000 of GPT-2's 50 000 tokens, where ``ValidTokens`` decides them all up front.
    Needs one token per byte string (:meth:`token_with_bytes` answers ``None`` otherwise).

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"bc", 258: b"abc"}
    >>> valid = ValidOnDemand(MergeTables(vocab, [(b"a", b"b"), (b"b", b"c"), (b"ab", b"c")]))
    >>> valid.token_with_bytes(b"abc"), valid.token_with_bytes(b"bc"), valid.token_with_bytes(b"ca")
    (258, 257, None)
    """

    compatible = ValidTokens.compatible  # the walk of step 08: it reads only .tables and .split

    def __init__(self, tables: MergeTables) -> None:
        self.tables = tables
        # Merge k joins merge_parts[k]. None (a merge that can never apply) is never walked: a
        # token is walked only once it and its parts are known to be valid.
        self.split: list[tuple[int, int] | None] = [(b, b) for b in range(256)] + tables.merge_parts
        self.known: list[bool | None] = [True] * 256 + [None] * (tables.num_tokens - 256)
        self._token_with_bytes = tables.token_with_bytes if tables.unique_bytes() else None

    def is_valid(self, token: int) -> bool:
        """Whether BPE encodes ``token``'s bytes to ``[token]``."""
        known = self.known
        pending = [token]  # a stack, not recursion: a merge tree can be thousands deep
        while pending:
            t = pending[-1]
            if known[t] is not None:
                pending.pop()
                continue
            parts = self.split[t]
            if parts is None or self.tables.pair_to_token.get(parts) != t:
                known[t] = False
                pending.pop()
                continue
            left, right = parts
            if known[left] is None or known[right] is None:
                pending += [p for p in parts if known[p] is None]  # decide the parts first
                continue
            known[t] = known[left] and known[right] and self.compatible(left, right, limit=t)
            pending.pop()
        return bool(known[token])

    def token_with_bytes(self, data: bytes) -> int | None:
        """The token whose bytes are ``data`` if it is valid (BPE encodes ``data`` to it alone), else ``None``."""
        if self._token_with_bytes is None:
            return None
        token = self._token_with_bytes(data)
        if token is None:
            return None
        valid = self.known[token]
        if valid is None:
            valid = self.is_valid(token)
        return token if valid else None


def piece_encoder(tables: MergeTables) -> Callable[[bytes], tuple[int, ...]]:
    """The ids of one piece's bytes: one token if the piece is a valid token (:class:`ValidOnDemand`:
    most English words are), else the ``heap`` encoder, or for a piece of at most
    :data:`SHORT_PIECE` bytes a flat list of ranks (tiktoken's loop), whose setup is two calls
    in C where the heap's is a loop in Python.

    The flat loop keeps ``ranks[i]``, the merge of parts ``i`` and ``i + 1``; it takes the
    smallest (``index`` finds the leftmost), merges those two parts, and recomputes the two
    pairs around the new part: lowest rank first, leftmost first, as every encoder. It costs
    O(n) per merge, fine for short pieces; a long piece (one long word, random letters) goes to
    the heap, O(n log n) in all.

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"aa", 257: b"aaa"}
    >>> piece_encoder(MergeTables(vocab, [(b"a", b"a"), (b"aa", b"a")]))(b"aaaaa")
    (256, 257)
    """
    heap = HeapEncoder(tables).encode
    merge_of = tables.pair_to_token.get
    ids = tables.token_ids.__getitem__
    valid_token = ValidOnDemand(tables).token_with_bytes

    def encode_piece(data: bytes) -> tuple[int, ...]:
        token = valid_token(data)
        if token is not None:
            return (ids(token),)
        if len(data) > SHORT_PIECE:
            return tuple(heap(data))
        parts = list(data)
        ranks = list(map(merge_of, zip(parts, parts[1:]), repeat(NOT_A_MERGE)))
        while ranks:
            best = min(ranks)
            if best == NOT_A_MERGE:
                break
            i = ranks.index(best)
            parts[i : i + 2] = (best,)
            del ranks[i]
            if i:
                ranks[i - 1] = merge_of((parts[i - 1], best), NOT_A_MERGE)
            if i < len(ranks):
                ranks[i] = merge_of((best, parts[i + 1]), NOT_A_MERGE)
        return tuple(map(ids, parts))

    return encode_piece


# ------------------------------------------------------------------------ the caches


class _Memo(dict):
    """text (or bytes) -> tuple of ids; ``__missing__`` computes a new key's ids (called from C by
    ``map``) and keeps them if the key is at most ``max_key`` long, emptying itself when it holds
    ``max_size`` keys or ``max_chars`` characters in all (bounded memory, whatever the keys'
    lengths; the hit path stays a plain dict lookup)."""

    __slots__ = ("compute", "max_size", "max_key", "max_chars", "chars")

    def __init__(self, compute: Callable, max_size: int, max_key: int) -> None:
        super().__init__()
        self.compute, self.max_size, self.max_key = compute, max_size, max_key
        self.max_chars = max_size * CACHED_CHARS_PER_KEY
        self.chars = 0

    def clear(self) -> None:
        super().clear()
        self.chars = 0

    def __missing__(self, key: str | bytes) -> tuple[int, ...]:
        ids = self.compute(key)
        if len(key) <= self.max_key:
            if len(self) >= self.max_size or self.chars >= self.max_chars:
                self.clear()
            self[key] = ids
            self.chars += len(key)
        return ids


def _extend(ids: list[int], id_runs: Iterable[Sequence[int]]) -> None:
    """``ids += run`` for each run in turn, with one ``list.extend`` per run called from C
    (a ``deque`` of length 0 only drives the ``map``): for many runs, faster than chaining
    them id by id into a new list; for two or three, ``tuple(chain(...))`` is faster."""
    deque(map(ids.extend, id_runs), maxlen=0)


class FastEncoder:
    """Text (a ``str``, special tokens and all) -> ids, through the caches of segments and of
    words (pretokens and their pieces).

    ``special_token_ids`` maps each special token to its id, in the tokenizer's order;
    ``cache_size`` bounds each cache. Nothing is built before the first text needs it: the
    pattern of pieces waits for the first pretoken that is not ASCII and is longer than
    :data:`SHORT_PRETOKEN` characters (building it takes 5 ms for GPT-2, 5% of a first call on a
    megabyte of English, which does not need it).
    """

    def __init__(
        self,
        tables: MergeTables,
        special_token_ids: Mapping[str, int],
        cache_size: int = DEFAULT_CACHE_SIZE,
    ) -> None:
        self.special_tokens: tuple[str, ...] = tuple(special_token_ids)
        self.special_token_ids = special_token_ids
        self.special_re = special_token_regex(self.special_tokens)
        self._tables = tables
        self._cut: Callable[[bytes], list[bytes]] | None = None  # built for the first non-ASCII segment
        pretokens = PRETOKEN_RE.findall
        ascii_pretokens = ascii_pretoken_pattern().findall
        utf8 = str.encode

        encode_piece = piece_encoder(tables)

        def encode_segment(segment: str) -> tuple[int, ...]:
            if segment.isascii():
                # ASCII is never cut: the pieces are the pretokens. A pretoken is a segment of its
                # own (the pattern finds just itself in it), so the segment cache holds them too:
                # " upon" is encoded once, whether it comes as a segment or inside " upon,".
                found = ascii_pretokens(segment)
                if len(found) == 1:
                    return encode_piece(segment.encode())
                return tuple(chain.from_iterable(map(segments.__getitem__, found)))
            found = pretokens(segment)
            cut = self._cut
            if cut is None:
                if max(map(len, filterfalse(str.isascii, found))) <= SHORT_PRETOKEN:
                    # Short pretokens (the quotes and dashes of English text) are pieces as they
                    # are: until longer ones come, the pattern would cost more to build than it saves.
                    return tuple(chain.from_iterable(map(pieces.__getitem__, map(utf8, found))))
                cut = self._build_cut()
            # The pretokens' bytes, each followed by 0xFF (no UTF-8 byte): the pattern cuts
            # the pieces out of them, and never joins across 0xFF (a pretoken boundary).
            found = cut(SEPARATOR.join(map(utf8, found)))
            if len(found) <= 8:
                return tuple(chain.from_iterable(map(pieces.__getitem__, found)))
            ids: list[int] = []  # a Chinese paragraph: hundreds of pieces
            _extend(ids, map(pieces.__getitem__, found))
            return tuple(ids)

        pieces = _Memo(encode_piece, cache_size, MAX_CACHED_PIECE)
        segments = _Memo(encode_segment, cache_size, MAX_CACHED_SEGMENT)
        self.cache = segments
        self.pieces = pieces

    def _build_cut(self) -> Callable[[bytes], list[bytes]]:
        self._cut = piece_pattern(self._tables.merges).findall
        return self._cut

    def encode(self, text: str) -> list[int]:
        """The token ids of ``text`` (``ValueError`` for a lone surrogate)."""
        lookup = self.cache.__getitem__
        segments = segment_pattern().findall
        ids: list[int] = []
        try:
            if self.special_re is None or self.special_re.search(text) is None:
                _extend(ids, map(lookup, segments(text)))
                return ids
            for piece, is_special in split_keeping_special_tokens(text, self.special_tokens):
                if is_special:
                    ids.append(self.special_token_ids[piece])
                else:
                    _extend(ids, map(lookup, segments(piece)))
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
        """Forget the cached segments and pieces."""
        self.cache.clear()
        self.pieces.clear()


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
    return frozenset(WHITESPACE)


__all__ = [
    "DEFAULT_CACHE_SIZE",
    "MAX_CACHED_PIECE",
    "MAX_CACHED_SEGMENT",
    "SEPARATOR",
    "WHITESPACE",
    "FastEncoder",
    "ValidOnDemand",
    "joining_byte_pairs",
    "piece_encoder",
    "last_safe_cut",
    "piece_pattern",
    "segment_pattern",
    "whitespace_chars",
]
