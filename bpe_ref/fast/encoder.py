"""The tokenizer's default path (``method=None``): the ids of the encoders, as fast as Python goes.

Text repeats itself, so the default path remembers the ids of what it has encoded, at two
sizes, and runs an encoder only on what it has never seen:

1. **Segments**: a run of whitespace then a run of non-whitespace (``" time,"``), cut by a simple
   regular expression that runs faster than the GPT-2 pattern. Why segments can be encoded one by
   one: :func:`segment_pattern`. Running text repeats its segments, so most of it is one dict
   lookup per segment. A long text is cut more cheaply still, at its spaces (point 5).
2. **Pieces**: a segment not seen before is split into pretokens. An ASCII segment is split by a
   copy of the GPT-2 pattern for ASCII that ``re`` runs (:func:`ascii_pretoken_pattern`); its
   pretokens are never cut, and as each is a segment of its own, the segment cache holds them
   too. Other segments are split by the GPT-2 pattern, and their pretokens are cut where no
   merge can ever cross (:func:`piece_pattern`, one call per segment). Chinese has no spaces,
   so a segment can be a whole paragraph, seen once; cut into pieces, it is mostly single
   characters, which repeat. Only a piece never seen goes to an encoder (:func:`piece_encoder`).
   That byte rule fails a vocabulary *trained* on Chinese: its tokens join nearly every pair of
   bytes, so it cuts nothing, and the pieces are whole clauses, seen once. The same rule one
   level up does cut: :class:`CharJoins` lists the pairs of *characters* some token spans (a few
   thousand of the millions possible), and :func:`char_cutter` cuts between the others; a
   segment with enough non-ASCII characters picks whichever rule cuts it finer (both are
   exact; Russian or Spanish words, never cut by bytes, are not cut at all). Once characters
   are chosen, a long text skips the segments: it is cut whole, in one NumPy pass
   (:meth:`FastEncoder._bulk`).
3. **Whole tokens**: most pieces of English are one token already (``" upon"``). A piece whose
   bytes are a *valid* token (step 08: BPE turns those bytes into that token alone) is that
   token, without running an encoder; :class:`ValidOnDemand` decides validity token by token,
   as pieces ask (many new pieces at once: their tokens together, in rank order,
   :meth:`ValidOnDemand.decide`). Any other piece is *spliced* (:func:`longest_valid_encoder`):
   its first token is the longest valid prefix that is compatible with the first token of the
   rest's encoding, and the rest's encoding is usually remembered (words share their endings):
   a few dict lookups per piece, where merging costs a loop per *merge*.
4. **Many new pieces at once**: a long text (:data:`BULK_TEXT` characters or more) meets its
   new words and pieces together (:meth:`FastEncoder._bulk`): a first call on a novel in
   Spanish or Russian meets tens of thousands of new words, none cut (their accented or Cyrillic
   letters sit between letters that tokens join). Their pretokens are found together (one call
   of a pattern on the new words joined by spaces), and the new ones are merged all at once in
   NumPy (:func:`bulk_merger`: in each round, every piece applies its lowest pair), three times
   faster on Don Quijote than searching them one by one (point 3). A Chinese text cut by
   characters merges its new pieces so too.
5. **Words**: a long text that is not cut into pieces (English, Spanish, Russian with their own
   vocabulary; English with GPT-2's) is cut at its spaces by ``str.split``, twice as fast as a
   pattern finds its segments, and looked up *word* by word (:meth:`FastEncoder._by_spaces`):
   the cache of words maps ``w`` to the ids of ``" " + w``. The space before a word is a
   pretoken boundary unless whitespace stands on both sides of it (:func:`space_is_a_cut`), so a
   word that is empty or starts with whitespace is never cached: it is encoded with the word
   before it. A warm call on a long text is one ``split`` and one lookup per word.

What a first call on a long text costs: what a warm call costs (one ``split`` per part, one
lookup per word), plus one pass that finds the distinct words not cached, and, for each of them,
its share of one pattern call and a store, and, for each distinct pretoken, its share of the
rounds of :func:`bulk_merger` (or a lookup and a validity walk). The TinyStories sample has
15 400 distinct words and 5 300 distinct pretokens, Don Quijote 58 000 and 31 000, the Russian
stories 26 000 and 13 000.

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
from itertools import accumulate, chain, compress, count, filterfalse, islice, repeat
from operator import add, and_, length_hint, not_

from ..corpus import encode_utf8
from ..encode.common import NOT_A_MERGE, MergeTables
from ..encode.step07_heap import HeapEncoder
from ..encode.step08_valid_tokens import ValidTokens
from ..pretokenize import PRETOKEN_RE, special_token_regex, split_keeping_special_tokens

# The possessive mark of a repeat (``*+``, ``++``: keep what was matched, never give it back), which
# ``re`` knows from Python 3.11. The patterns below match the same with plain repeats (each repeat
# is followed by something its items cannot match, or that always matches after them), so on
# Python 3.10 they go without it, a little slower.
POSSESSIVE = "+" if sys.version_info >= (3, 11) else ""

DEFAULT_CACHE_SIZE = 1 << 17  # entries kept in each cache; it is emptied when full, so memory is bounded
SEPARATOR = b"\xff"  # between pretokens when they are cut into pieces: no UTF-8 text holds this byte
SHORT_PIECE = 16  # bytes; with repeated token bytes, a piece this short is merged in a flat list, a longer one by the heap
LONG_PIECE = 256  # bytes; a piece this long or shorter takes step 08's search for valid tokens, a longer one the heap
SHORT_PRETOKEN = 4  # characters; until a longer pretoken that is not ASCII comes, none is cut into pieces
MAX_CACHED_SEGMENT = 4096  # characters; a longer segment is not stored (its pieces are)
MAX_CACHED_PIECE = 256  # bytes; a longer piece is not stored
MAX_COMPATIBLE_PAIRS = 1 << 16  # pairs of tokens whose compatibility the search remembers (then it forgets them all)
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


NOT_AFTER_A_CUT = frozenset(WHITESPACE) | {""}  # how a word after a space that may not be a cut starts


def space_is_a_cut(text: str, i: int) -> bool:
    """Whether the GPT-2 pattern starts a pretoken at ``text[i]``, a space (``i > 0``), whatever
    the text around ``text[i - 1 : i + 2]``: yes unless whitespace stands on both sides of it (or
    before it, and the text ends after it).

    Why. A character before the space that is not whitespace ends its pretoken there (the
    argument of :func:`segment_pattern`). Whitespace before the space and a character ``c``
    after it that is not: the space ends a whitespace run. No pretoken reaches into a run from
    before it (the letter, number and punctuation runs exclude ``\\s``; the optional space only
    comes first), none of the `` ?X`` alternatives matches at the run's start (the character
    after its first is whitespace), so ``\\s+(?!\\S)`` takes the run but its last character: the
    space starts the next pretoken. With whitespace on both sides, the space is inside a run that
    the pattern may keep whole (``"a   b"`` is ``"a"``, ``"  "``, ``" b"``). The pretokens between
    two such cuts do not depend on the text around them (the pattern's only lookahead,
    ``(?!\\S)``, succeeds at the end of a text as before a space), so the text between two cuts
    can be encoded alone. :meth:`FastEncoder._by_spaces` cuts at every space (``str.split``) and
    trusts the cut before a word unless the word is empty or starts with whitespace
    (:data:`NOT_AFTER_A_CUT`); the tests check the rule against the pattern on generated text.

    >>> [space_is_a_cut("a b\\n c  \\n", i) for i in (1, 4, 6, 7)]
    [True, True, True, False]
    """
    return text[i - 1] not in WHITESPACE or i + 1 < len(text) and text[i + 1] not in WHITESPACE


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


# ------------------------------------------------------------------------ pieces cut by characters


def _char_length(lead: int) -> int:
    """How many bytes the UTF-8 character that starts with byte ``lead`` has (0: not a lead byte)."""
    if lead < 0x80:
        return 1
    if 0xC2 <= lead <= 0xDF:
        return 2
    if 0xE0 <= lead <= 0xEF:
        return 3
    if 0xF0 <= lead <= 0xF4:
        return 4
    return 0


def _is_start(byte: int) -> bool:
    return not 0x80 <= byte <= 0xBF  # anything but a continuation byte starts a character (or is invalid)


def _char_of(data: bytes) -> str | None:
    """``data`` decoded if it is exactly one whole character, else ``None``."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text if len(text) == 1 else None


def _chars_starting_with(prefix: bytes) -> range:
    """The code points of the characters whose UTF-8 bytes start with ``prefix`` (a lead byte and
    perhaps continuation bytes): UTF-8 keeps the order of code points, so they are one range."""
    length = _char_length(prefix[0])
    missing = length - len(prefix)
    value = prefix[0] & (0x7F >> length)  # the lead byte's payload bits
    for byte in prefix[1:]:
        value = value << 6 | byte & 0x3F
    low, high = value << 6 * missing, (value + 1 << 6 * missing) - 1
    smallest = {2: 0x80, 3: 0x800, 4: 0x10000}[length]  # below: an overlong form, no valid text
    largest = {2: 0x7FF, 3: 0xFFFF, 4: 0x10FFFF}[length]
    return range(max(low, smallest), min(high, largest) + 1)


LONG_SEGMENT = 64  # characters; a longer segment is cut with NumPy
DECIDING_PAIRS = 32  # boundaries between two non-ASCII characters: a segment with this many decides the cut
UNDECIDED_SEGMENTS = 256  # segments too short to decide; after this many, the cut is by bytes
FILL_SEGMENTS = 1 << 14  # segments the bulk path splits into pretokens at a time
BULK_PIECES = 256  # new pieces: this many or more, and the bulk path merges them all at once ...
MAX_BULK_PIECE = 64  # bytes; ... but a longer one alone (it would keep the others' arrays going round after round)
WHOLE_TOKEN_SAMPLE = 64  # new pieces looked at: if three in four are one valid token each, none is merged in bulk
DECIDING_SEGMENTS = 8192  # a long text not yet decided looks at this many non-ASCII segments to choose
BULK_TEXT = 1 << 16  # characters; a longer text is encoded in bulk (FastEncoder._bulk); encode_iterable's blocks are shorter
CUT_MARKS = "\uffff\ufffe\ufdd0\ufdd1"  # noncharacters: the NumPy cut marks its cuts with one the text does not hold
JOIN_TABLE_BITS = 22  # the character cut's table of joined pairs has 2 ** 22 slots (4 MB)


class CharJoins:
    """Where a trained vocabulary's tokens can span the boundary between two characters.

    A token that spans the boundary between characters ``a`` and ``b`` of a text holds the end of
    ``a`` and the start of ``b``. Reading every token at every point where one of its bytes starts
    a character gives, for each such point, the character (or the end of one: continuation bytes
    only) before it and the character (or the start of one) after it:

    - two whole characters: the pair ``a + b`` goes to :attr:`pairs`;
    - the end of a character, then ``b`` whole: ``b`` goes to :attr:`never_before` (never cut
      before ``b``, whatever comes before it; a few tokens of a trained vocabulary start inside
      a character);
    - ``a`` whole, then the start of a character: ``a`` goes to :attr:`never_after`;
    - a part on both sides: every character that starts with the right part goes to
      :attr:`never_before`.

    Bytes that no valid UTF-8 text holds (a lead byte without its continuation bytes before a
    new character) are skipped: no text can put that token there. Pairs of ASCII characters are
    all in :attr:`pairs` (never cut between them, as :func:`piece_pattern` does: English words
    would gain nothing). :meth:`joined` is the test; :func:`char_cuts` makes the cuts.

    >>> joins = CharJoins([b"ab", "中文".encode(), "國".encode()[:2]])
    >>> joins.joined("中", "文"), joins.joined("中", "國"), joins.joined("文", "中")
    (True, False, False)
    """

    def __init__(self, tokens: Iterable[bytes]) -> None:
        ascii_chars = [chr(c) for c in range(128)]
        self.pairs: set[str] = {a + b for a in ascii_chars for b in ascii_chars}
        self.never_after: set[str] = set()
        self.never_before: set[str] = set()
        # (m, value, b): a token holds the last m bytes of a character, of payload `value`, then b.
        # The short path counts b in never_before; the NumPy path tests these exactly.
        self.ends_then: set[tuple[int, int, str]] = set()
        for token in tokens:
            if token.isascii() or len(token) < 2:
                continue  # pairs of ASCII characters are all in already
            try:
                text = token.decode("utf-8")
            except UnicodeDecodeError:
                pass  # a token that starts or ends inside a character: walk its bytes
            else:  # whole characters: most tokens, one pair per boundary
                self.pairs.update(map(add, text, text[1:]))
                continue
            starts = [k for k in range(len(token)) if _is_start(token[k])]
            for j, k in enumerate(starts):
                if k == 0:
                    continue
                before = token[starts[j - 1]:k] if j > 0 else token[:k]
                after = token[k : starts[j + 1] if j + 1 < len(starts) else len(token)]
                length = _char_length(after[0])
                if length == 0 or len(after) > length or (len(after) < length and j + 1 < len(starts)):
                    continue  # no valid text holds these bytes (a character cut short inside the token)
                whole_before = _char_of(before) if j > 0 else None
                if j > 0 and whole_before is None:
                    continue  # a broken character: no valid text holds it
                if j == 0 and len(before) > 3:
                    continue  # more continuation bytes than a character has
                whole_after = _char_of(after) if len(after) == length else None
                if len(after) == length and whole_after is None:
                    continue
                if whole_before is not None and whole_after is not None:
                    self.pairs.add(whole_before + whole_after)
                elif whole_after is not None:  # every character that ends with `before`, then `whole_after`
                    self.never_before.add(whole_after)
                    value = 0
                    for byte in before:
                        value = value << 6 | byte & 0x3F
                    self.ends_then.add((len(before), value, whole_after))
                elif whole_before is not None:  # `whole_before`, then every character that starts with `after`
                    self.pairs.update(map(add, repeat(whole_before), map(chr, _chars_starting_with(after))))
                else:
                    self.never_before.update(map(chr, _chars_starting_with(after)))  # surrogates too: harmless

    def joined(self, a: str, b: str) -> bool:
        """Whether some token could span the boundary between characters ``a`` and ``b``."""
        return a + b in self.pairs or a in self.never_after or b in self.never_before


def char_cutter(joins: CharJoins) -> Callable[[str, list[str]], list[str]]:
    """``cut(segment, pretokens)``: the segment's pretokens cut into pieces at every boundary
    between two characters that no token can span (:class:`CharJoins`), as ``str``.

    Written as a chain of ``map`` calls that run in C: the pairs of adjacent characters, whether
    each is joined, the indices of those that are not (``compress``), united with the ends of
    the pretokens (a piece never crosses a pretoken), then the slices between them.

    >>> cut = char_cutter(CharJoins(["中文".encode()]))
    >>> cut("中文中國人", ["中文中國人"])
    ['中文', '中', '國', '人']
    """
    joined_pair = joins.pairs.__contains__
    never_after, never_before = joins.never_after, joins.never_before
    exact_never_before = never_before - {b for _, _, b in joins.ends_then}  # the NumPy path tests the rest exactly

    import numpy as np  # only here: a vocabulary cut by characters pays its import

    # The joined pairs in a table of 2 ** JOIN_TABLE_BITS booleans, indexed by a hash of the two
    # code points: a long text looks up all its pairs at once (one gather), where map() would take
    # each pair in turn. Two pairs can share a slot, so a pair no token spans may read "joined":
    # the cut is then a little coarser (a longer piece), never wrong; with 23 000 pairs (a
    # vocabulary of 10 000 trained on Chinese, 16 384 of them pairs of ASCII characters) that is
    # about one pair in 200.
    both = np.frombuffer("".join(joins.pairs).encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.int64)
    mask = (1 << JOIN_TABLE_BITS) - 1

    def slot(left, right):  # code points < 2 ** 21: the products fit in 64 bits
        return (left * 0x9E3779B1 + right * 0x85EBCA77 >> 16) & mask

    table = np.zeros(1 << JOIN_TABLE_BITS, dtype=np.bool_)
    table[slot(both[0::2], both[1::2])] = True
    never = np.array(sorted(map(ord, never_after)) or [-1], dtype=np.int64), np.array(
        sorted(map(ord, exact_never_before)) or [-1], dtype=np.int64)
    # The rules "a character ending with these m bytes, then b" as numbers, one sorted array per m.
    ends_then = {m: np.sort(np.array([value << 21 | ord(b) for n, value, b in joins.ends_then if n == m], dtype=np.int64))
                 for m in {m for m, _, _ in joins.ends_then}}
    smallest_with = {1: 0x80, 2: 0x800, 3: 0x10000}  # the first code point with more than m bytes

    def member(sorted_keys, values):  # which values are in the sorted array
        at = np.searchsorted(sorted_keys, values)
        return sorted_keys[np.minimum(at, len(sorted_keys) - 1)] == values

    def cut_long(segment: str, pretokens: list[str]) -> list[str]:
        """The cut of a long segment, or of a whole text (its pretokens in order), in NumPy."""
        points = np.frombuffer(segment.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
        left, right = points[:-1], points[1:]
        joined = table[slot(left, right)]
        if never_after:
            joined |= np.isin(left, never[0])
        if exact_never_before:
            joined |= np.isin(right, never[1])
        for m, rules in ends_then.items():
            joined |= member(rules, (left & (64**m - 1)) << 21 | right) & (left >= smallest_with[m])
        ends = np.fromiter(map(len, pretokens), dtype=np.intp, count=len(pretokens))
        joined[np.cumsum(ends[:-1]) - 1] = False  # a piece never crosses a pretoken
        cuts = np.flatnonzero(~joined) + 1
        # Slicing in Python (a slice object and a call per piece) costs more than all the rest:
        # put a character the text does not hold at every cut, and let str.split make the pieces.
        mark = next((m for m in CUT_MARKS if m not in segment), None)
        if mark is None:  # the text holds every candidate (made on purpose): slice
            bounds = cuts.tolist()
            starts = [0, *bounds]
            bounds.append(len(segment))
            return list(map(segment.__getitem__, map(slice, starts, bounds)))
        marked = np.insert(points.astype(np.uint32), cuts, ord(mark))
        return marked.tobytes().decode("utf-32-le").split(mark)

    def cut(segment: str, pretokens: list[str]) -> list[str]:
        if len(segment) > LONG_SEGMENT:
            return cut_long(segment, pretokens)
        ends = set(accumulate(map(len, pretokens)))
        cuts = map(not_, map(joined_pair, map(add, segment, segment[1:])))  # one bool per boundary between characters
        if never_after and not never_after.isdisjoint(segment):
            cuts = map(and_, cuts, map(not_, map(never_after.__contains__, segment)))
        if never_before and not never_before.isdisjoint(segment):
            cuts = map(and_, cuts, map(not_, map(never_before.__contains__, islice(segment, 1, None))))
        ends.update(compress(count(1), cuts))
        bounds = sorted(ends)
        if len(bounds) == 1:
            return [segment]
        return list(map(segment.__getitem__, map(slice, [0, *bounds], bounds)))

    cut.whole = cut_long  # for a whole text (FastEncoder's bulk path)
    return cut


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

    def decide(self, tokens: Iterable[int]) -> None:
        """Decide the validity of many tokens at once (a first call's new pieces): :meth:`is_valid`
        without its stack per token. The tokens and their parts not decided yet are gathered,
        then decided in rank order, so that a token's parts are decided before it (they were made
        earlier), each by step 08's walk (:meth:`compatible`, called, not
        copied: on English with a trained vocabulary the whole of this takes about 10 ms of a first
        call's 140)."""
        known, split = self.known, self.split
        merged_of = self.tables.pair_to_token.get
        undecided: set[int] = set()
        pending = [t for t in tokens if known[t] is None]
        while pending:
            t = pending.pop()
            if known[t] is None and t not in undecided:
                undecided.add(t)
                if split[t] is not None:
                    pending += split[t]
        for token in sorted(undecided):
            parts = split[token]
            if parts is None or merged_of(parts) != token or not (known[parts[0]] and known[parts[1]]):
                known[token] = False
                continue
            known[token] = self.compatible(parts[0], parts[1], limit=token)

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


def longest_valid_encoder(tables: MergeTables, valid: ValidOnDemand,
                          max_pairs: int = MAX_COMPATIBLE_PAIRS) -> Callable[[bytes], list[int]]:
    """Step 08's search for valid tokens (:class:`~bpe_ref.encode.step08_backtrack.BacktrackEncoder`),
    over :class:`ValidOnDemand`'s tokens, for pieces: the token numbers of ``data``, written as a
    recursion on the rest of the piece so that pieces share the work on their endings.

    Step 08: BPE's encoding is the only way to cut the piece into *valid* tokens whose
    neighbours are *compatible*. So it is its first token ``t``, then the encoding of the rest,
    and ``t`` is the longest valid prefix whose rest's encoding starts with a token compatible
    with ``t`` (every length that fits is tried, longest first: a piece is short). The encodings
    of the rests are remembered (at most ``max_pairs``, then forgotten): Spanish and Russian
    words share their endings, so the rest is usually one lookup, and a word costs the few
    lookups that find its first token. Compatibility is remembered per pair of tokens (as
    many). Each suffix of a piece is solved at most once per piece, with at most the longest
    token's length tried: linear in the piece. Needs unique token bytes.

    ``.text(piece)`` runs the same recursion over the characters of a ``str`` with the tokens
    whose bytes are whole characters (a third of the lengths to try on Chinese), and the bytes
    when that finds nothing.
    """
    tokens_of = tables.tokens_by_bytes.get  # bytes -> [token] (unique bytes: one token each)
    token_bytes = tables.token_bytes
    max_length = max(map(len, token_bytes))
    known = valid.known
    is_valid = valid.is_valid
    walk = valid.compatible
    # Compatibility of two tokens, remembered under the key left * width + right; emptied when
    # it holds max_pairs entries, so its memory is bounded whatever the input.
    compatible_pairs: dict[int, bool] = {}
    width = tables.num_tokens

    def token_of_text(text: str) -> list[int] | None:  # the token of whole characters (no table of its own)
        return tokens_of(text.encode())

    def spliced(data, tokens_of: Callable, max_length: int, known_ends: dict):
        """The encoding of ``data`` (token numbers, a tuple), ``None`` if it has none with these
        tokens. BPE's encoding of a piece is its first token, then the encoding of the rest: the
        rest's tokens are valid and neighbours compatible, the unique such sequence. So the first
        token is the longest valid prefix ``t`` whose rest's encoding starts with a token that is
        compatible with ``t``. The rests (suffixes) are remembered in ``known_ends`` (bounded):
        words share their endings, so most rests are looked up, not searched. Each suffix is
        solved once per piece, with at most ``max_length`` lengths tried: linear in the piece."""
        tokens = known_ends.get(data)
        if tokens is not None:
            return tokens
        n = len(data)
        if not n:
            return ()
        for end in range(min(n, max_length), 0, -1):
            found = tokens_of(data[:end])
            if found is None:
                continue
            token = found[0]
            ok = known[token]
            if ok is None:
                ok = is_valid(token)
            if not ok:
                continue
            if end == n:
                tokens = (token,)
                break
            rest = spliced(data[end:], tokens_of, max_length, known_ends)
            if rest is None:
                continue
            pair = token * width + rest[0]
            ok = compatible_pairs.get(pair)
            if ok is None:
                if len(compatible_pairs) >= max_pairs:
                    compatible_pairs.clear()
                ok = compatible_pairs[pair] = walk(token, rest[0])
            if ok:
                tokens = (token, *rest)
                break
        else:
            return None
        if len(known_ends) >= max_pairs:
            known_ends.clear()
        known_ends[data] = tokens
        return tokens

    byte_ends: dict[bytes, tuple[int, ...]] = {}
    text_ends: dict[str, tuple[int, ...]] = {}

    def encode(data: bytes) -> list[int]:
        tokens = spliced(data, tokens_of, max_length, byte_ends)
        if tokens is None:
            raise RuntimeError(f"no valid encoding found for {data!r}")  # cannot happen
        return tokens

    def encode_text(text: str) -> list[int]:
        """The same search over the characters of ``text``, with the tokens whose bytes are whole
        characters: a third of the lengths to try on Chinese. Whatever it finds is a sequence of
        valid tokens, neighbours compatible: the BPE encoding (step 08: there is only one). If
        the encoding needs a token that ends inside a character, it finds nothing, and the
        search over bytes runs."""
        tokens = spliced(text, token_of_text, max_length, text_ends)
        return encode(text.encode()) if tokens is None else tokens

    encode.text = encode_text
    return encode


def piece_encoder(tables: MergeTables, cache_size: int = MAX_COMPATIBLE_PAIRS) -> Callable[[bytes], tuple[int, ...]]:
    """The ids of one piece's bytes: one token if the piece is a valid token (:class:`ValidOnDemand`:
    most English words are); else, for a piece of at most :data:`LONG_PIECE` bytes, step 08's
    search for the longest valid tokens (:func:`longest_valid_encoder`), and the ``heap`` encoder
    for a longer one (one long word, random letters).

    A vocabulary where two tokens have the same bytes has no "valid token" for those bytes: its
    pieces of at most :data:`SHORT_PIECE` bytes go through a flat list of ranks (tiktoken's loop),
    the others through the heap. The flat loop keeps ``ranks[i]``, the merge of parts ``i`` and
    ``i + 1``; it takes the smallest (``index`` finds the leftmost), merges those two parts, and
    recomputes the two pairs around the new part: lowest rank first, leftmost first, as every
    encoder, in O(n) per merge.

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"aa", 257: b"aaa"}
    >>> piece_encoder(MergeTables(vocab, [(b"a", b"a"), (b"aa", b"a")]))(b"aaaaa")
    (256, 257)
    """
    heap = HeapEncoder(tables).encode
    merge_of = tables.pair_to_token.get
    ids = tables.token_ids.__getitem__
    valid = ValidOnDemand(tables)
    valid_token = valid.token_with_bytes

    if tables.unique_bytes():
        search = longest_valid_encoder(tables, valid, max_pairs=min(cache_size, MAX_COMPATIBLE_PAIRS))

        tokens_of = tables.tokens_by_bytes.get
        known = valid.known

        def encode_piece(data: bytes) -> tuple[int, ...]:
            found = tokens_of(data)  # valid_token(data), inline: most pieces of English are one token
            if found is not None:
                token = found[0]
                ok = known[token]
                if ok or ok is None and valid.is_valid(token):
                    return (ids(token),)
            if len(data) > LONG_PIECE:
                return tuple(heap(data))
            return tuple(map(ids, search(data)))

        search_text = search.text

        def encode_text_piece(piece: str) -> tuple[int, ...]:
            data = piece.encode()
            if len(data) < 2 * len(piece):  # mostly ASCII: the characters save nothing over the bytes
                return encode_piece(data)
            token = valid_token(data)
            if token is not None:
                return (ids(token),)
            if len(data) > LONG_PIECE:
                return tuple(heap(data))
            return tuple(map(ids, search_text(piece)))

        def encode_many(pieces: list[str]) -> list[tuple[int, ...]]:
            """``encode_text_piece`` of each piece, with the validity of every token whose bytes are a
            piece decided together first (:meth:`ValidOnDemand.decide`)."""
            found = list(map(tokens_of, map(str.encode, pieces)))
            valid.decide([tokens[0] for tokens in found if tokens is not None])
            return [(ids(tokens[0]),) if tokens is not None and known[tokens[0]] else encode_text_piece(piece)
                    for tokens, piece in zip(found, pieces)]

        encode_piece.text = encode_text_piece
        encode_piece.many = encode_many
        encode_piece.one_token = valid_token  # the valid token with these bytes, or None
        return encode_piece

    def encode_piece_flat(data: bytes) -> tuple[int, ...]:
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

    encode_piece_flat.text = lambda piece: encode_piece_flat(piece.encode())
    encode_piece_flat.many = lambda pieces: list(map(encode_piece_flat.text, pieces))
    encode_piece_flat.one_token = valid_token  # always None: bytes do not name one token here
    return encode_piece_flat


# ------------------------------------------------------------------------ many pieces at once


def pair_table(np, keys, values, missing: int) -> Callable:
    """``lookup(wanted)``: the value of each key in the array ``wanted`` (``missing`` where it is
    not a key), from a hash table in NumPy arrays: each key goes to the first free slot from
    its hash on (linear probing), so a lookup walks from the hash until it meets the key or a free
    slot; with four times more slots than keys, one or two steps. All the keys are looked up
    together, step by step (where ``np.searchsorted`` would take fourteen steps for each).

    >>> import numpy as np
    >>> pair_table(np, [5, 21, 37], [50, 210, 370], -1)(np.array([37, 6, 5]))
    array([370,  -1,  50], dtype=int32)
    """
    bits = max(4, (4 * len(keys)).bit_length())
    mask = (1 << bits) - 1
    slot_keys = np.full(1 << bits, -1, dtype=np.int64)  # -1: a free slot (keys are not negative)
    slot_values = np.full(1 << bits, missing, dtype=np.int32)

    def home(wanted):  # Fibonacci hashing: the top bits of the key times 2**64 / golden ratio
        return (wanted.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15) >> np.uint64(64 - bits)).astype(np.int64)

    all_keys, all_values = np.asarray(keys, dtype=np.int64), np.asarray(values, dtype=np.int32)
    waiting, slot = np.arange(len(keys)), home(all_keys)
    while len(waiting):  # each step, one key per free slot wanted takes it; the others move on
        free = slot_keys[slot] == -1
        taken, first = np.unique(slot[free], return_index=True)
        placed = waiting[free][first]
        slot_keys[taken], slot_values[taken] = all_keys[placed], all_values[placed]
        moving = np.ones(len(waiting), dtype=bool)
        moving[np.flatnonzero(free)[first]] = False
        waiting, slot = waiting[moving], (slot[moving] + 1) & mask

    def lookup(wanted):
        found = np.full(len(wanted), missing, dtype=np.int32)
        waiting, slot = np.arange(len(wanted)), home(wanted)
        while len(waiting):
            there = slot_keys[slot]
            hit = there == wanted[waiting]
            found[waiting[hit]] = slot_values[slot[hit]]
            going_on = ~hit & (there != -1)
            waiting, slot = waiting[going_on], (slot[going_on] + 1) & mask
        return found

    return lookup


def bulk_merger(tables: MergeTables) -> Callable[[list[bytes]], list[tuple[int, ...]]]:
    """``encode_all(pieces)``: the ids of many pieces, by BPE on all of them at once, in NumPy.

    A first call on a novel meets tens of thousands of words that are not one token (Spanish,
    Russian: inflected words, never cut into pieces), and each costs a search in Python
    (:func:`longest_valid_encoder`, about 10 µs). Here the pieces' bytes are laid end to end in
    one array and merged in *rounds*: in each round, every piece applies its lowest-ranked pair
    at each of its occurrences (leftmost first where they overlap, as in ``a a a``), all pieces
    in one pass of array operations. That is BPE's own order: merging a pair makes a token
    numbered above that pair's rank, so every pair it creates ranks above it, and the
    occurrences of the lowest pair are all merged before anything else in that piece. A piece
    needs as many rounds as it has distinct merges (about ten for a word); a piece with no pair
    left leaves the arrays. Only the pairs next to a merge change, so only those are looked up
    again, in a hash table of the merges (:func:`pair_table`).

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"aa", 257: b"ab"}
    >>> tables = MergeTables(vocab, [(b"a", b"a"), (b"a", b"b")])
    >>> bulk_merger(tables)([b"aaab", b"b", b"aaa"])
    [(256, 257), (98,), (256, 97)]
    """
    import numpy as np  # only here: the first call that meets many new pieces pays its import

    num_tokens = tables.num_tokens
    no_pair = np.iinfo(np.int32).max  # the rank of a pair that is not a merge, or crosses two pieces
    pairs = tables.pair_to_token
    parts = np.fromiter(chain.from_iterable(pairs), dtype=np.int64, count=2 * len(pairs)).reshape(-1, 2)
    left, right = parts[:, 0], parts[:, 1]
    merged = np.fromiter(pairs.values(), dtype=np.int32, count=len(pairs))
    merge_of = pair_table(np, left * num_tokens + right, merged, no_pair)
    byte_pairs = np.full(1 << 16, no_pair, dtype=np.int32)  # the first round's pairs, all of two bytes
    of_bytes = (left < 256) & (right < 256)
    byte_pairs[left[of_bytes] << 8 | right[of_bytes]] = merged[of_bytes]
    token_ids = np.array(tables.token_ids, dtype=np.int64)

    def leftmost_first(at):
        """The positions of ``at`` (sorted) that BPE merges: in a run of consecutive ones (the pair
        (x, x) in ``x x x``), the first, the third, ...; the others overlap the merge before them."""
        if len(at) < 2:
            return at
        follows = np.empty(len(at), dtype=bool)
        follows[0] = False
        np.equal(at[1:], at[:-1] + 1, out=follows[1:])
        if not follows.any():
            return at
        run_start = np.maximum.accumulate(np.where(follows, 0, at))
        return at[(at - run_start) % 2 == 0]

    def encode_all(pieces: list[bytes]) -> list[tuple[int, ...]]:
        result: list[tuple[int, ...]] = [()] * len(pieces)
        merging = [k for k, piece in enumerate(pieces) if piece]  # an empty piece has no token
        if not merging:
            return result
        data = np.frombuffer(b"".join(pieces), dtype=np.uint8)
        token = data.astype(np.int32)  # the tokens of every piece, end to end
        alive = np.array(merging)  # the pieces still merging, in order ...
        sizes = np.fromiter(map(len, map(pieces.__getitem__, merging)), dtype=np.int64, count=len(merging))  # ... their tokens
        ends = np.cumsum(sizes)
        rank = np.empty(len(token), dtype=np.int32)  # rank[i]: the merge of token i with token i + 1
        rank[:-1] = byte_pairs[data[:-1].astype(np.int32) << 8 | data[1:]]
        rank[ends - 1] = no_pair  # a piece's last token pairs with nothing
        done_pieces, done_tokens = [], []
        while len(token):
            lowest = np.minimum.reduceat(rank, ends - sizes)  # each piece's next merge
            finished = lowest == no_pair
            if finished.any():  # pieces with no merge left: out of the arrays
                out = np.repeat(finished, sizes)
                done_pieces.append(np.repeat(alive[finished], sizes[finished]))
                done_tokens.append(token[out])
                token, rank = token[~out], rank[~out]
                going = ~finished
                alive, sizes, lowest = alive[going], sizes[going], lowest[going]
                if not len(token):
                    break
                ends = np.cumsum(sizes)
            at = leftmost_first(np.flatnonzero(rank == np.repeat(lowest, sizes)))
            # Merge: the left token becomes the merged one, the right one goes, its piece one token shorter.
            token[at] = rank[at]
            kept = np.ones(len(token), dtype=bool)
            kept[at + 1] = False
            token, rank = token[kept], rank[kept]
            sizes -= np.bincount(np.searchsorted(ends, at, side="right"), minlength=len(sizes))
            ends = np.cumsum(sizes)
            # Look up again the pairs that changed: the merged token's and its left neighbour's,
            # unless that token is the last of its piece.
            at -= np.arange(len(at), dtype=at.dtype)  # where the merged tokens are now
            changed = np.concatenate((at, at[at > 0] - 1))
            last = np.zeros(len(token), dtype=bool)
            last[ends - 1] = True
            is_last = last[changed]
            rank[changed[is_last]] = no_pair
            changed = changed[~is_last]
            rank[changed] = merge_of(token[changed].astype(np.int64) * num_tokens + token[changed + 1])
        # The pieces finished in any order, each whole: sort them back, keeping each one's order.
        piece = np.concatenate(done_pieces)
        order = np.argsort(piece, kind="stable")
        ids = token_ids[np.concatenate(done_tokens)[order]].tolist()
        counts = np.bincount(piece, minlength=len(pieces))[merging]
        bounds = np.cumsum(counts).tolist()
        for k, start, end in zip(merging, [0, *bounds[:-1]], bounds):
            result[k] = tuple(ids[start:end])
        return result

    return encode_all


def _uncut(segment: str, found: list[str]) -> list[bytes]:
    """The pieces of a segment that is not cut: its pretokens' bytes."""
    return list(map(str.encode, found))


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
        self.store(key, ids)
        return ids

    def store_many(self, keys: Sequence[str | bytes], ids: Sequence[tuple[int, ...]]) -> None:
        """Keep the ids of many keys at once, within the bounds (none if they alone exceed them:
        a lookup computes a missing key's ids again)."""
        lengths = list(map(len, keys))
        if lengths and max(lengths) > self.max_key:  # rare: leave out the keys too long to keep
            kept = [k for k, length in enumerate(lengths) if length <= self.max_key]
            keys, ids, lengths = [keys[k] for k in kept], [ids[k] for k in kept], [lengths[k] for k in kept]
        chars = sum(lengths)
        if len(self) + len(keys) > self.max_size or self.chars + chars > self.max_chars:
            self.clear()
            if len(keys) > self.max_size or chars > self.max_chars:
                return
        self.update(zip(keys, ids))
        self.chars += chars

    def store(self, key: str | bytes, ids: tuple[int, ...]) -> None:
        """Keep ``ids`` for ``key``, within the bounds."""
        if len(key) <= self.max_key:
            if len(self) >= self.max_size or self.chars >= self.max_chars:
                self.clear()
            self[key] = ids
            self.chars += len(key)


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
        self._cut: Callable[[str, list[str]], list] | None = None  # chosen on long non-ASCII pretokens
        self._cut_bytes: Callable[[str, list[str]], list] | None = None  # built for the first of them
        self._undecided = 0  # segments cut by bytes before the choice was made ...
        self._undecided_cuts = 0  # ... and the cuts the bytes made inside their pretokens
        self._merge_all: Callable[[list[bytes]], list[tuple[int, ...]]] | None = None  # bulk_merger, built when first needed
        pretokens = PRETOKEN_RE.findall
        ascii_pretokens = ascii_pretoken_pattern().findall
        utf8 = str.encode

        encode_piece = self._encode_piece = piece_encoder(tables, cache_size)

        def encode_segment(segment: str) -> tuple[int, ...]:
            # A word (letters, perhaps after one space) is one pretoken (`` ?\p{L}+``): no pattern
            # to run. ``str.isalpha`` is Unicode's letters, which the GPT-2 pattern's ``\p{L}``
            # matches (the tests check every code point).
            word = segment.isalpha() or segment[0] == " " and segment[1:].isalpha()
            if segment.isascii():
                # ASCII is never cut: the pieces are the pretokens. A pretoken is a segment of its
                # own (the pattern finds just itself in it), so the segment cache holds them too:
                # " upon" is encoded once, whether it comes as a segment or inside " upon,".
                if word:
                    return encode_piece(segment.encode())
                found = ascii_pretokens(segment)
                if len(found) == 1:
                    return encode_piece(segment.encode())
                return tuple(chain.from_iterable(map(segments.__getitem__, found)))
            found = [segment] if word else pretokens(segment)
            cut = self._cut
            if cut is None:
                if max(map(len, filterfalse(str.isascii, found))) <= SHORT_PRETOKEN:
                    # Short pretokens (the quotes and dashes of English text) are pieces as they
                    # are: until longer ones come, the cutting rules would cost more to build than they save.
                    return tuple(chain.from_iterable(map(pieces.__getitem__, map(utf8, found))))
                cut = self._build_cut(segment, found)
            found = cut(segment, found)
            lookup = self._cut_pieces.__getitem__
            if len(found) <= 8:
                return tuple(chain.from_iterable(map(lookup, found)))
            ids: list[int] = []  # a Chinese paragraph: hundreds of pieces
            _extend(ids, map(lookup, found))
            return tuple(ids)

        pieces = _Memo(encode_piece, cache_size, MAX_CACHED_PIECE)
        segments = _Memo(encode_segment, cache_size, MAX_CACHED_SEGMENT)
        self.cache = segments
        self.pieces = pieces  # bytes -> ids
        self.char_pieces = _Memo(encode_piece.text, cache_size, MAX_CACHED_PIECE)  # str -> ids
        self._cut_pieces: _Memo = pieces  # the cache of whichever kind of pieces the cut makes
        find_segments = segment_pattern().findall

        def encode_word(word: str) -> tuple[int, ...]:  # the ids of " " + word (the bulk path fills them in bulk)
            return tuple(chain.from_iterable(map(segments.__getitem__, find_segments(" " + word))))

        self.words = _Memo(encode_word, cache_size, MAX_CACHED_SEGMENT)  # word -> ids of " " + word (FastEncoder._by_spaces)

    def _build_cut(self, segment: str, found: list[str]) -> Callable[[str, list[str]], list]:
        """Choose how to cut pretokens into pieces: by bytes (:func:`piece_pattern`) or by
        characters (:class:`CharJoins`), whichever cuts a segment into more pieces; returns the cut
        for this segment, and keeps it for all once it has decided. Both cut only where no token
        can span, so the choice changes the speed, never the ids: GPT-2 keeps a pair of bytes only
        where it merged it, so its bytes cut Chinese into characters; a vocabulary trained on
        Chinese joins nearly every pair of bytes (its tokens span every kind of character
        boundary), but only a few thousand pairs of characters.

        It decides on the first segment that is worth it: bytes at once when they cut at least
        half of the boundaries between two non-ASCII characters, and there are some (GPT-2 on
        Chinese; a Spanish word, whose accented letters sit between ASCII ones, has none);
        characters are tried on a segment with at least :data:`DECIDING_PAIRS` such boundaries
        (a Chinese clause). Until
        then a segment is cut by bytes; after :data:`UNDECIDED_SEGMENTS` short ones (Russian or
        Spanish words: nothing to gain by cutting them), bytes for good, without building the
        character rule; or no cut at all if the bytes cut hardly any of those segments' pretokens."""
        utf8 = str.encode
        cut_bytes = self._cut_bytes
        if cut_bytes is None:
            by_bytes = piece_pattern(self._tables.merges).findall

            def cut_bytes(segment: str, found: list[str]) -> list[bytes]:
                return by_bytes(SEPARATOR.join(map(utf8, found)))

            self._cut_bytes = cut_bytes
        self._cut_pieces = self.pieces
        byte_pieces = len(cut_bytes(segment, found))
        # Characters can only cut between two characters that are not both ASCII; try them when
        # the bytes cut fewer than half of the boundaries between two non-ASCII characters (Chinese
        # with a trained vocabulary), not when they cut most (GPT-2) or there are few (Spanish).
        wide = [not char.isascii() for char in segment]
        wide_pairs = sum(map(and_, wide, wide[1:]))
        if wide_pairs and 2 * (byte_pieces - len(found)) >= wide_pairs:
            self._cut = cut_bytes
        elif wide_pairs < DECIDING_PAIRS:
            self._undecided += 1
            self._undecided_cuts += byte_pieces - len(found)
            if self._undecided >= UNDECIDED_SEGMENTS:
                # Words: if the bytes cut hardly any (fewer than one segment in 8), they are pieces
                # as they are (no cutting at all: exact too, and the bulk path can take them).
                self._cut = cut_bytes if 8 * self._undecided_cuts >= self._undecided else _uncut
        else:
            cut_chars = char_cutter(CharJoins(self._tables.token_bytes))
            self._cut = cut_bytes
            if len(cut_chars(segment, found)) > byte_pieces:
                self._cut, self._cut_pieces = cut_chars, self.char_pieces
            return self._cut
        return cut_bytes

    def encode(self, text: str) -> list[int]:
        """The token ids of ``text`` (``ValueError`` for a lone surrogate).

        A short text goes segment by segment through the cache. A long one (:data:`BULK_TEXT`
        characters or more) is encoded *in bulk*, which moves the per-segment work of a first
        call out of Python loops (:meth:`_bulk`)."""
        ids: list[int] = []
        try:
            if self.special_re is None or self.special_re.search(text) is None:
                parts = [(text, False)]
            else:
                parts = list(split_keeping_special_tokens(text, self.special_tokens))
            if len(text) >= BULK_TEXT:
                self._bulk(ids, parts)
                return ids
            lookup = self.cache.__getitem__
            segments = segment_pattern().findall
            for piece, is_special in parts:
                if is_special:
                    ids.append(self.special_token_ids[piece])
                else:
                    _extend(ids, map(lookup, segments(piece)))
            return ids
        except UnicodeEncodeError:
            encode_utf8(text)  # raises the ValueError that names the character and its index
            raise

    def _bulk(self, ids: list[int], parts: list[tuple[str, bool]]) -> None:
        """``ids += `` the ids of a long text, given as its parts (special tokens or not).

        First the cut is chosen, if it has not been, on the text's first segments that need one
        (:meth:`_decide`). Then, by what was chosen:

        - **characters** (a vocabulary trained on Chinese): each part is cut whole, in one NumPy
          pass over the GPT-2 pattern's pretokens (:func:`char_cutter`), one lookup per piece. A
          Chinese paragraph is a segment seen once: caching segments buys nothing, and cutting
          them one by one costs a dozen NumPy calls each.
        - **no cut** (words: English, Spanish, Russian with their own vocabulary, English with
          GPT-2's): each part is cut at its spaces by ``str.split`` and looked up *word* by word
          (:meth:`_by_spaces`, :func:`space_is_a_cut`); the words not yet cached, from every
          part, are split into pretokens together (:meth:`_fill_words`), the new pretokens
          merged all at once (:meth:`_encode_new_pieces`).
        - **bytes** (GPT-2 on Chinese): segment by segment, as a short text.

        Segment ends are pretoken ends (:func:`segment_pattern`), and so are the cuts of the words
        (:func:`space_is_a_cut`), so cutting a whole part changes no pretoken: the ids are those
        of the segment path."""
        findall = segment_pattern().findall
        if self._cut is None:  # only parts that are not ASCII can decide (one str.isascii per part, not per segment)
            finditer = segment_pattern().finditer  # lazily: a few hundred segments usually decide
            self._decide(map(re.Match.group, chain.from_iterable(finditer(piece) for piece, is_special in parts
                                                                 if not is_special and not piece.isascii())))
        if self._cut is None or self._cut is _uncut:
            self._by_spaces(ids, parts)
            return
        lookup = self.cache.__getitem__
        by_chars = self._cut_pieces is self.char_pieces
        lookup_piece = self.char_pieces.__getitem__
        for piece, is_special in parts:
            if is_special:
                ids.append(self.special_token_ids[piece])
            elif by_chars and len(piece) > LONG_SEGMENT:
                pieces = self._cut.whole(piece, PRETOKEN_RE.findall(piece))
                self._encode_new_pieces(pieces)
                _extend(ids, map(lookup_piece, pieces))
            else:
                _extend(ids, map(lookup, findall(piece)))

    def _by_spaces(self, ids: list[int], parts: list[tuple[str, bool]]) -> None:
        """``ids += `` the ids of a long text's parts, cut at their spaces (the no-cut case of :meth:`_bulk`).

        ``part.split(" ")`` cuts a part into *words*, ``w0 + " " + w1 + " " + ...``, twice as
        fast as the segment pattern finds its segments (the split makes the strings; the pattern
        also has to match them). A cut before a space is a pretoken boundary unless whitespace
        stands on both sides of that space (:func:`space_is_a_cut`): a word that is empty or
        starts with whitespace is never cached, so the cut before it is never trusted blindly.
        The cache of words (:attr:`words`) maps ``w`` to the ids of ``" " + w``; the first word
        ``w0`` (no space before it) is looked up in the cache of segments, which encodes any text
        that starts and ends at pretoken boundaries.

        Each part is looked up word by word (:meth:`_words_into`). From the first part with a
        word missing on (a first call: the first part), the parts are only split: their missing
        words are encoded together (:meth:`_fill_words`), then they are looked up. A warm call is
        one ``split`` and one lookup per word: no pattern, no pass to find the missing words."""
        done = 0  # parts whose ids are in
        for piece, is_special in parts:
            if is_special:
                ids.append(self.special_token_ids[piece])
            else:
                words = piece.split(" ")
                if not self._words_into(ids, words, fill=False):
                    break
            done += 1
        else:
            return
        # the part that stopped (split once: a novel is one part), then the others
        rest = [words, *(None if is_special else piece.split(" ") for piece, is_special in parts[done + 1 :])]
        self._fill_words(chain.from_iterable(islice(words, 1, None) for words in rest if words is not None))
        for (piece, _), words in zip(parts[done:], rest):
            if words is None:
                ids.append(self.special_token_ids[piece])
            else:
                self._words_into(ids, words)

    def _words_into(self, ids: list[int], words: list[str], fill: bool = True) -> bool:
        """``ids += `` the ids of a part, given as its words (:meth:`_by_spaces`): the first looked
        up in the cache of segments, the others in the cache of words, by ``dict.get`` from C. A
        word not cached gives ``None``, which ``list.extend`` refuses: the word is found (where
        the lookups stopped) and taken on its own. If the space before it is a cut
        (:func:`space_is_a_cut`: the word does not start with whitespace, or the word before it
        does not end with whitespace), ``" " + word`` is looked up in the cache of segments (a
        word too long to keep, one the cache forgot as it filled, or ``" \\nThe"`` after a word);
        if it may not be a cut, the words from the one before it to the last such word in a row
        are looked up there as one text, whose ends are cuts. With ``fill=False``, it returns
        ``False`` (``ids`` as they were) at a word the cache of words would keep."""
        get = self.words.get
        lookup = self.cache.__getitem__  # encodes any text whose ends are pretoken boundaries
        start = len(ids)
        head = lookup(words[0]) if words[0] else ()  # the first word, without a space before it
        ids += head
        rest = iter(words)
        next(rest)
        while True:
            try:
                _extend(ids, map(get, rest))
                return True
            except TypeError:  # extend(None)
                i = len(words) - length_hint(rest) - 1  # the word not cached; the lookups go on after it
            word = words[i]
            if word[:1] not in NOT_AFTER_A_CUT:
                if not fill and len(word) <= self.words.max_key:
                    del ids[start:]
                    return False
                ids += lookup(" " + word)
            elif words[i - 1][-1:] not in NOT_AFTER_A_CUT:
                ids += lookup(" " + word)
            else:  # whitespace on both sides of the space: take back the word before, and join
                end = i + 1
                while end < len(words) and words[end][:1] in NOT_AFTER_A_CUT:
                    end += 1
                deque(islice(rest, end - i - 1), maxlen=0)  # skip the words joined
                before = head if i == 1 else get(words[i - 1]) or lookup(" " + words[i - 1])
                del ids[len(ids) - len(before):]
                joined = " ".join(words[i - 1 : end])
                ids += lookup(joined if i == 1 else " " + joined)

    def _decide(self, segments: Iterable[str]) -> None:
        """Choose the cut on the first segments that need one (a non-ASCII pretoken longer than
        :data:`SHORT_PRETOKEN` characters), without encoding them; at most
        :data:`DECIDING_SEGMENTS` non-ASCII segments are looked at."""
        pretokens = PRETOKEN_RE.findall
        for segment in islice(filterfalse(str.isascii, segments), DECIDING_SEGMENTS):
            found = pretokens(segment)
            if max(map(len, filterfalse(str.isascii, found))) > SHORT_PRETOKEN:
                self._build_cut(segment, found)
                if self._cut is not None:
                    return

    def _fill_words(self, words: Iterable[str]) -> None:
        """Cache the ids of ``" " + word`` for the words not cached yet, in bulk: split into
        pretokens (the words joined by spaces, one call of the ASCII copy of the pattern for the
        ASCII ones, one of the GPT-2 pattern for the others), the new pretokens encoded together
        (:meth:`_encode_new_pieces`), one lookup per pretoken in the cache of pieces (pretokens
        are pieces: nothing is cut), and each word's ids stored. A word that is empty or starts
        with whitespace is left out (the space before it may not be a cut: :meth:`_words_into`
        takes it with its neighbour)."""
        cache = self.words
        # Distinct first (one pass in C), then the cache asked once per distinct word: a first
        # call asks about 12 000 words of English, not 280 000.
        missing = [word for word in filterfalse(cache.__contains__, dict.fromkeys(words)) if word[:1] not in NOT_AFTER_A_CUT]
        for start in range(0, len(missing), FILL_SEGMENTS):  # a group at a time: bounded memory
            self._fill_group(missing[start : start + FILL_SEGMENTS])

    def _fill_group(self, missing: list[str]) -> None:
        # The words joined by spaces are pretokenized in one call per kind (the ASCII copy of the
        # pattern, or the GPT-2 pattern): no word in ``missing`` is empty or starts with
        # whitespace, so the space before each is a cut (space_is_a_cut), and each word's
        # pretokens are the run that starts with the one pretoken holding that space.
        lookup_piece = self.char_pieces.__getitem__
        groups = []
        for group, pretokens in ((list(filter(str.isascii, missing)), ascii_pretoken_pattern().findall),
                                 (list(filterfalse(str.isascii, missing)), PRETOKEN_RE.findall)):
            if group:
                found = pretokens(" " + " ".join(group))
                starts = list(compress(count(), map(str.startswith, found, repeat(" "))))
                if len(starts) != len(group):  # cannot happen (the tests check the cuts)
                    raise AssertionError("the spaces between words are not all pretoken boundaries")
                groups.append((group, found, starts))
        self._encode_new_pieces(chain.from_iterable(found for _, found, _ in groups))
        for group, found, starts in groups:
            piece_ids = list(map(lookup_piece, found))
            ends = [*islice(starts, 1, None), len(found)]
            self.words.store_many(group, [piece_ids[start] if end - start == 1 else
                                          tuple(chain.from_iterable(piece_ids[start:end]))
                                          for start, end in zip(starts, ends)])

    def _encode_new_pieces(self, pieces: Iterable[str]) -> None:
        """Cache the ids of the pieces not cached yet: when there are many
        (:data:`BULK_PIECES`) and most are not one valid token each (a sample of
        :data:`WHOLE_TOKEN_SAMPLE`), those of at most :data:`MAX_BULK_PIECE` bytes are merged all
        at once (:func:`bulk_merger`), the others encoded one by one (:func:`piece_encoder`); else
        all are encoded one by one. Either way they are stored together (one ``store_many``, not a
        call of the cache's ``__missing__`` and ``store`` per piece); a piece too long to be kept
        is left to the cache's lookup, which encodes it alone."""
        memo = self.char_pieces
        new = list(filterfalse(memo.__contains__, dict.fromkeys(pieces)))
        short = [(piece, data) for piece, data in zip(new, map(str.encode, new)) if len(data) <= MAX_BULK_PIECE]
        if len(short) >= BULK_PIECES and self._mostly_merged([data for _, data in short]):
            if self._merge_all is None:
                self._merge_all = bulk_merger(self._tables)
            texts, data = zip(*short)
            memo.store_many(texts, self._merge_all(list(data)))
            if len(short) == len(new):
                return
            new = [piece for piece in new if piece not in memo]  # the long ones (or all, if the cache was full)
        # A piece too long to keep is left to the lookup, which encodes it (encoded here, it would be twice).
        new = [piece for piece in new if len(piece) <= memo.max_key]
        memo.store_many(new, self._encode_piece.many(new))

    def _mostly_merged(self, data: list[bytes]) -> bool:
        """Whether fewer than three in four of these new pieces (a sample of
        :data:`WHOLE_TOKEN_SAMPLE`, spread over them) are one valid token each. English words mostly
        are: a lookup apiece, nothing to merge, and building the merger's tables would cost more
        (30 ms for GPT-2) than it saves. The first pieces met are the commonest words, tokens of
        their own: hence the spread."""
        sample = data[:: len(data) // WHOLE_TOKEN_SAMPLE]
        whole_tokens = sum(self._encode_piece.one_token(piece) is not None for piece in sample)
        return 4 * whole_tokens < 3 * len(sample)

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
        self.words.clear()
        self.pieces.clear()
        self.char_pieces.clear()


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
    "bulk_merger",
    "joining_byte_pairs",
    "piece_encoder",
    "last_safe_cut",
    "piece_pattern",
    "segment_pattern",
    "space_is_a_cut",
    "whitespace_chars",
]
