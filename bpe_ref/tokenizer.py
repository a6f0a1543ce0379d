"""The tokenizer: text -> token ids -> text, with the encoders of steps 06-08 behind it.

>>> from bpe_ref import Tokenizer
>>> tok = Tokenizer.gpt2()                       # the shipped GPT-2 files, offline
>>> tok.encode("Hello world<|endoftext|>")
[15496, 995, 50256]
>>> tok.decode([15496, 995])
'Hello world'
>>> tok.encode("Hello world", method="backtrack")   # any of ENCODE_METHODS: the same ids
[15496, 995]

Encoding follows the course's conventions (``theory/conventions.md``): special tokens are
cut out first (the longest where they overlap) and map to their own ids; the rest is split into
pretokens by the GPT-2 pattern, and each pretoken's UTF-8 bytes are encoded by one of the
encoders of :mod:`bpe_ref.encode` (``method=``). Decoding joins the bytes of the tokens and
decodes them once (:mod:`bpe_ref.decode`).

The default path (``method=None``) gives the same ids faster, from caches of text segments and of pieces of pretokens: it is
:mod:`bpe_ref.fast.encoder`, along with where :meth:`Tokenizer.encode_iterable` may cut a stream.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType

from .corpus import StrPath, encode_utf8
from .fast.exact_counts import Appender, CountCache, IntervalCounter, split_at
from .decode import ArenaDecoder
from .encode import ENCODE_METHODS, check_method, make_encoder
from .encode.common import MergeTables, check_vocab_and_merges
from .encode.step08_prefix_counts import AppendableEncoder
from .encode.step08_valid_tokens import ValidTokens
from .fast.encoder import DEFAULT_CACHE_SIZE, FastEncoder, last_safe_cut
from .fast.encoder import segment_pattern, whitespace_chars  # noqa: F401  (still importable from here)
from .pretokenize import PRETOKEN_RE, split_keeping_special_tokens, validate_special_tokens
from .serialization import load_vocab_and_merges, save_vocab_and_merges

STREAM_BLOCK = 1 << 14  # characters encode_iterable gathers before encoding (~100 kB of work at most)


class Tokenizer:
    """A byte-level BPE tokenizer from a vocabulary and its merges.

    ``vocab`` maps ids to token bytes; ``merges`` lists ``(left, right)`` byte pairs in training
    order. ``special_tokens`` are matched in the text before anything else (where they overlap,
    the leftmost match wins, then the longest) and never split; one missing from ``vocab`` is added
    with the next free id. ``method`` (one of ``ENCODE_METHODS``, or ``None`` for the fast default) is the encoder
    that :meth:`encode`, :meth:`encode_iterable` and the counting methods use. Raises
    ``ValueError`` (naming the merge) when vocabulary and merges do not fit together, and for an
    unknown ``method``.
    ``cache_size`` bounds each of the default encoder's two caches (text segments, pieces of pretokens).
    """

    def __init__(
        self,
        vocab: Mapping[int, bytes],
        merges: Sequence[tuple[bytes, bytes]],
        special_tokens: Iterable[str] | None = None,
        method: str | None = None,
        *,
        cache_size: int = DEFAULT_CACHE_SIZE,
    ) -> None:
        special_tokens = validate_special_tokens(special_tokens)
        if method is not None:
            method = check_method(method)
        check_vocab_and_merges(vocab, merges)
        if isinstance(cache_size, bool) or not isinstance(cache_size, int) or cache_size < 1:
            raise ValueError(f"cache_size must be a positive int, got {cache_size!r}")
        vocab = dict(vocab)
        self._tables = MergeTables(vocab, merges, checked=True)
        self.merges: list[tuple[bytes, bytes]] = list(self._tables.merges)
        self.special_tokens: tuple[str, ...] = special_tokens
        self.special_token_ids: dict[str, int] = self._add_special_tokens(vocab, special_tokens)
        self._vocab = vocab
        self._arena: ArenaDecoder | None = None  # built on the first decode (construction stays cheap)
        self._cache_size = cache_size
        self._fast: FastEncoder | None = None  # the default path, built on the first encode
        self._encoders: dict[str, object] = {}
        self._valid: ValidTokens | None = None
        self.method: str | None = method  # the encoder of every path; None: the fast default
        self._counts: CountCache | None = None  # text -> token count, for the counting tools
        self._unique_bytes: bool | None = None  # no two merges make the same bytes (step 08 needs it)

    def _add_special_tokens(self, vocab: dict[int, bytes], special_tokens: tuple[str, ...]) -> dict[str, int]:
        merge_made = set(self._tables.token_ids)  # ids of single bytes and merged tokens
        special_ids: dict[str, int] = {}
        next_id = max(vocab) + 1
        for token in special_tokens:
            token_bytes = encode_utf8(token)
            existing = sorted(i for i, b in vocab.items() if b == token_bytes)
            # Prefer an id that is not also a regular token (GPT-2's <|endoftext|> is 50256).
            preferred = [i for i in existing if i not in merge_made] or existing
            if preferred:
                special_ids[token] = preferred[0]
            else:
                vocab[next_id] = token_bytes
                special_ids[token] = next_id
                next_id += 1
        return special_ids

    # ----------------------------------------------------------------- encoding

    def encode(self, text: str, method: str | None = None) -> list[int]:
        """The token ids of ``text``.

        With ``method`` in ``ENCODE_METHODS``: cut out the special tokens, split the rest into
        pretokens, and run that encoder on the UTF-8 bytes of each, uncached (for teaching,
        testing, benchmarking). ``method=None`` takes the tokenizer's ``method``, and when that is
        ``None`` too, the fastest exact path, cached segments and pieces (:mod:`bpe_ref.fast.encoder`): all
        give the same ids. ``ValueError`` for a lone surrogate.
        """
        if not isinstance(text, str):
            raise TypeError(f"encode takes a str, got {type(text).__name__}" + _bytes_hint(text))
        if method is None:
            method = self.method
        if method is None:
            return self._fast_encoder().encode(text)
        method = check_method(method)
        encode_utf8(text)  # a lone surrogate fails here, before any work
        encode = self._encoder(method).encode
        ids: list[int] = []
        for piece, is_special in split_keeping_special_tokens(text, self.special_tokens):
            if is_special:
                ids.append(self.special_token_ids[piece])
                continue
            for pretoken in PRETOKEN_RE.findall(piece):
                ids += encode(pretoken.encode("utf-8"))
        return ids

    def _encoder(self, method: str):
        encoder = self._encoders.get(method)
        if encoder is None:
            valid = self._valid_tokens() if method in ("backtrack", "table") else None
            encoder = self._encoders[method] = make_encoder(method, self._tables, valid)
        return encoder

    def _valid_tokens(self) -> ValidTokens:
        if self._valid is None:
            self._valid = ValidTokens(self._tables)
        return self._valid

    # ----------------------------------------------------------------- counting (bpe_ref.fast.exact_counts)

    def count(self, text: str, method: str | None = None) -> int:
        """``len(encode(text))``; the default path adds up cached counts without building the ids.

        >>> Tokenizer.gpt2().count("Hello world<|endoftext|>")
        3
        """
        if not isinstance(text, str):
            raise TypeError(f"count takes a str, got {type(text).__name__}" + _bytes_hint(text))
        if method is None and self.method is None:
            return self._fast_encoder().count(text)
        return len(self.encode(text, method))

    count_tokens = count  # the earlier name

    def _count_cache(self) -> CountCache:
        if self._counts is None:
            self._counts = CountCache(self.count)
        return self._counts

    def _appendable(self):
        """A factory of step-08 appendable encoders, for long growing pretokens (None: the
        tokenizer's ``method`` counts everything). The table encoder it needs is built on the
        first long pretoken, not before (about a second for GPT-2)."""
        if self.method not in (None, "table", "backtrack"):
            return None
        if self._unique_bytes is None:
            self._unique_bytes = not self._tables.duplicate_bytes()
        if not self._unique_bytes:
            return None  # repeated token bytes: no valid tokens, no table encoder
        return lambda: AppendableEncoder(encoder=self._encoder("table"))

    def split_at(self, text: str, max_tokens: int) -> tuple[str, str]:
        """``(head, rest)``, ``head + rest == text``: the longest prefix (cut between characters)
        whose encoding has at most ``max_tokens`` tokens. Encodes only up to the cut (see
        :func:`bpe_ref.fast.exact_counts.split_at`). Counts are not monotonic, so a shorter prefix may have
        more tokens; none longer fits. ``ValueError`` for a negative ``max_tokens``.

        >>> Tokenizer.gpt2().split_at("Hello world, again", 2)
        ('Hello world', ', again')
        """
        return split_at(text, max_tokens, self._count_cache().__getitem__, self.special_tokens, self._appendable())

    def interval_counter(self, text: str) -> IntervalCounter:
        """An object whose ``count(start, end) == len(encode(text[start:end]))`` (character offsets),
        answered from prefix sums after one linear pass (:class:`bpe_ref.fast.exact_counts.IntervalCounter`).
        A slice that cuts a word counts as that piece of text on its own (``" ou"`` of ``" out"``:
        2 GPT-2 tokens), not as the tokens of ``encode(text)`` that fall inside it. Where text can
        be cut so that counts add up (*hard boundaries*): :mod:`bpe_ref.fast.exact_counts`.

        >>> counter = Tokenizer.gpt2().interval_counter("Hello world, again")
        >>> counter.count(0, 11), counter.count(5, 18)
        (2, 3)
        """
        return IntervalCounter(text, self._count_cache().__getitem__, self.special_tokens)

    def appender(self) -> Appender:
        """An object with ``append(piece)`` and ``count == len(encode(everything appended))``
        (:class:`bpe_ref.fast.exact_counts.Appender`).

        >>> appender = Tokenizer.gpt2().appender()
        >>> appender.append("Hello wor"); appender.append("ld")
        >>> appender.count
        2
        """
        return Appender(self._count_cache().__getitem__, self.special_tokens, self._appendable())

    # ----------------------------------------------------------------- decoding

    @property
    def _decoder(self) -> ArenaDecoder:
        if self._arena is None:
            self._arena = ArenaDecoder(self._vocab)
        return self._arena

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The bytes of ``ids``, concatenated (``ValueError`` naming an unknown id).

        Exact for any ids, including a sequence that starts or ends inside a character: join the
        bytes of the pieces, then decode the whole once.

        >>> tok = Tokenizer.gpt2()
        >>> ids = tok.encode("🙂")          # one character, two tokens
        >>> tok.decode_bytes(ids[:1])
        b'\\xf0\\x9f'
        >>> (tok.decode_bytes(ids[:1]) + tok.decode_bytes(ids[1:])).decode("utf-8")
        '🙂'
        """
        return self._decoder.decode_bytes(ids)

    def decode(self, ids: Iterable[int]) -> str:
        """The text of ``ids``, UTF-8 decoded with ``errors="replace"``.

        A token can hold part of a character, so ids cut inside a character (half of an emoji, say)
        have no text: the incomplete bytes become U+FFFD (``"\\ufffd"``, shown as ``�``), silently,
        and decoding the pieces one by one and joining the text is lossy. Use :meth:`decode_bytes`
        for the exact bytes.

        >>> tok = Tokenizer.gpt2()
        >>> ids = tok.encode("🙂")
        >>> tok.decode(ids)
        '🙂'
        >>> tok.decode(ids[:1])
        '\\ufffd'
        """
        return self._decoder.decode(ids)

    # ----------------------------------------------------------------- construction helpers

    @classmethod
    def from_files(
        cls,
        vocab_path: StrPath,
        merges_path: StrPath,
        special_tokens: Iterable[str] | None = None,
        **options,
    ) -> Tokenizer:
        """A tokenizer from GPT-2-format ``vocab.json`` and ``merges.txt`` (ids kept as in the file)."""
        vocab, merges = load_vocab_and_merges(vocab_path, merges_path)
        return cls(vocab, merges, special_tokens, **options)

    @classmethod
    def gpt2(cls, special_tokens: Iterable[str] | None = ("<|endoftext|>",), **options) -> Tokenizer:
        """GPT-2's tokenizer, from the files shipped in ``data/cs336_fixtures`` (no download), read once a process."""
        vocab, merges = _gpt2_files()
        return cls(vocab, merges, special_tokens, **options)

    def save(self, directory: StrPath) -> tuple[Path, Path]:
        """Write ``vocab.json`` and ``merges.txt`` (GPT-2 format) into ``directory``."""
        return save_vocab_and_merges(self._vocab, self.merges, directory)

    # ----------------------------------------------------------------- the vocabulary

    @property
    def vocab(self) -> Mapping[int, bytes]:
        """``{id: token bytes}``, special tokens included (read-only)."""
        return MappingProxyType(self._vocab)

    @property
    def vocab_size(self) -> int:
        return len(self._vocab)

    def __len__(self) -> int:
        return len(self._vocab)

    def __repr__(self) -> str:
        method = "" if self.method is None else f", method={self.method!r}"
        return (
            f"Tokenizer(vocab_size={len(self._vocab)}, merges={len(self.merges)}, "
            f"special_tokens={list(self.special_tokens)!r}{method})"
        )

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes of one token (``ValueError`` naming the id if unknown)."""
        return self._decoder.token_bytes(token_id)

    # ----------------------------------------------------------------- the default path, streaming

    def _fast_encoder(self) -> FastEncoder:
        """The default path, built on first use (construction stays cheap)."""
        if self._fast is None:
            self._fast = FastEncoder(self._tables, self.special_token_ids, self._cache_size)
        return self._fast

    def clear_cache(self) -> None:
        """Forget the cached segments and pieces (for cold-cache benchmarks)."""
        if self._fast is not None:
            self._fast.clear_cache()
        if self._counts is not None:
            self._counts.clear()

    def encode_iterable(self, iterable: Iterable[str]) -> Iterator[int]:
        """Token ids of the concatenation of ``iterable`` (e.g. an open text file), lazily.

        Memory holds one block of text at a time (plus the tokenizer's bounded cache), never the
        whole input: chunks are gathered until they hold ``STREAM_BLOCK`` characters, the block is
        encoded up to its last *safe cut*, a point where a pretoken surely ends whatever follows,
        and the rest waits for the next chunks. The ids are exactly those of
        ``encode("".join(iterable))``.
        """
        if isinstance(iterable, (str, bytes)):
            raise TypeError(
                "encode_iterable takes an iterable of strings (e.g. an open text file); "
                "for a single string use encode()"
            )
        encode = self.encode
        pending = ""
        searched = 0  # pending[:searched] holds no usable cut point
        for chunk in iterable:
            if not isinstance(chunk, str):
                raise TypeError(f"encode_iterable needs str chunks, got {type(chunk).__name__}" + _bytes_hint(chunk))
            pending += chunk
            if len(pending) < STREAM_BLOCK:
                continue  # gather a block: one encode call per line would cost more than the lines
            cut = last_safe_cut(pending, searched, self.special_tokens)
            if cut:
                yield from encode(pending[:cut])
                pending = pending[cut:]
            searched = len(pending)
        if pending:
            yield from encode(pending)


def _bytes_hint(value: object) -> str:
    return " (decode bytes to str first)" if isinstance(value, (bytes, bytearray)) else ""


__all__ = ["DEFAULT_CACHE_SIZE", "ENCODE_METHODS", "Tokenizer", "segment_pattern", "whitespace_chars"]


@functools.lru_cache(maxsize=1)
def _gpt2_files() -> tuple[Mapping[int, bytes], tuple[tuple[bytes, bytes], ...]]:
    """GPT-2's shipped vocabulary and merges, parsed once (about half a second of CPU a read), read-only: a
    tokenizer copies what it is given."""
    from .data_files import GPT2_MERGES, GPT2_VOCAB, data_file

    vocab, merges = load_vocab_and_merges(data_file(GPT2_VOCAB), data_file(GPT2_MERGES))
    return MappingProxyType(vocab), tuple(merges)
