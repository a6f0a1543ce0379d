"""Figures and tables of theory page 00, ``theory/00-bytes-and-pretokenization.md``: UTF-8 bytes per
character, the GPT-2 pattern piece by piece, special tokens, and the pretoken counts of the sample."""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import regex

from ...corpus import read_corpus
from ...data_files import CS336_FIXTURES, TINYSTORIES_SAMPLE, data_file
from ...pretokenize import (
    DEFAULT_SPECIAL_TOKENS, count_pretokens, pretokenize, split_keeping_special_tokens, split_on_special_tokens,
)
from .common import corpus_counts as shared_corpus_counts
from .common import labelled_bars, name_axes, page_snippets, panels
from .common import code, code_token, markdown_table, save_png, show_token, thousands

PAGE = "00-bytes-and-pretokenization.md"

# UTF-8, character by character

UTF8_EXAMPLES: tuple[tuple[str, str], ...] = (
    ("A", "Latin capital letter A"),
    ("\u00e9", "é as one code point (precomposed)"),
    ("e\u0301", "é as e + combining acute accent"),
    ("\u00df", "German sharp s"),
    ("\u20ac", "euro sign"),
    ("\u4e2d", "CJK ideograph (middle)"),
    ("\U0001f642", "emoji (slightly smiling face)"),
    ("\U0001f44d\U0001f3fd", "emoji + skin-tone modifier"),
    ("\u2600", "sun: a symbol older than emoji, below U+FFFF"),
    ("\u2600\ufe0f", "sun + variation selector-16 (emoji style)"),
)


def utf8_table() -> str:
    """Each example's code points (``U+00E9``) and each code point's UTF-8 bytes."""
    rows = []
    for text, label in UTF8_EXAMPLES:
        encoded = [ch.encode("utf-8") for ch in text]
        hex_bytes = " + ".join(chunk.hex(" ") for chunk in encoded)
        rows.append((text, label, " ".join(f"U+{ord(ch):04X}" for ch in text), code(hex_bytes), sum(map(len, encoded))))
    return markdown_table(["text", "what it is", "code points", "UTF-8 bytes (hex)", "bytes"], rows, align="llllr")


# The GPT-2 pattern, piece by piece

PATTERN_PIECES: tuple[tuple[str, str], ...] = (
    (r"'(?:[sdmt]|ll|ve|re)", "an English contraction suffix: 's 'd 'm 't 'll 've 're"),
    (r" ?\p{L}+", "a run of letters, with at most one space in front"),
    (r" ?\p{N}+", "a run of digits (any numeric character), with at most one space in front"),
    (r" ?[^\s\p{L}\p{N}]+", "a run of other symbols (punctuation, marks, emoji), with at most one space in front"),
    (r"\s+(?!\S)", "a run of whitespace not followed by a non-space: all but the last space before a word"),
    (r"\s+", "any other run of whitespace (for instance one newline before a word)"),
)

PATTERN_EXAMPLE = "We've got 42 cats!!  They're\nhappy."

_PIECES_RE = regex.compile("|".join(f"(?P<p{i}>{piece})" for i, (piece, _) in enumerate(PATTERN_PIECES)))


def pretokens_by_piece(text: str) -> list[tuple[str, int]]:
    """Each pretoken of ``text`` (no special tokens) with the index of the pattern piece that matched it."""
    return [(m.group(), int(m.lastgroup[1:])) for m in _PIECES_RE.finditer(text)]


def pattern_snippet() -> str:
    found = pretokens_by_piece(PATTERN_EXAMPLE)
    rows = []
    for i, (piece, meaning) in enumerate(PATTERN_PIECES):
        matched = [code_token(p.encode()) for p, j in found if j == i]
        rows.append((i + 1, code(piece), meaning, " ".join(matched) or "(none here)"))
    pretokens = " ".join(code_token(p.encode(), in_table=False) for p in pretokenize(PATTERN_EXAMPLE))
    return (
        f"The example is the Python string {code(repr(PATTERN_EXAMPLE), in_table=False)}; its pretokens, in order, are "
        f"{pretokens} (`␣` is a space, `\\n` a newline).\n\n"
        + markdown_table(["#", "piece", "matches", "pretokens of the example"], rows, align="rlll")
    )


# Special tokens

SPECIAL_EXAMPLE = "Tom ran home.<|endoftext|>Sue sat."
OVERLAP_SPECIAL_TOKENS = ("<|eot|>", "<|eot|><|eot|>")
OVERLAP_EXAMPLE = "a<|eot|><|eot|>b"


def special_tokens_table() -> str:
    rows = []
    for tokens in ((), DEFAULT_SPECIAL_TOKENS):
        pretokens = " ".join(code_token(p.encode()) for p in pretokenize(SPECIAL_EXAMPLE, tokens))
        label = "none" if not tokens else ", ".join(code(t) for t in tokens)
        rows.append((label, pretokens))
    return (
        f"Text: {code(SPECIAL_EXAMPLE, in_table=False)}\n\n" + markdown_table(["special tokens", "pretokens the trainer sees"], rows)
    )


def overlap_table() -> str:
    """How text splits when one special token is a prefix of another: the longest match wins."""
    rows = []
    for tokens in (OVERLAP_SPECIAL_TOKENS, OVERLAP_SPECIAL_TOKENS[::-1]):
        pieces = " ".join(
            (f"**{code(piece)}**" if special else code(piece)) for piece, special in split_keeping_special_tokens(OVERLAP_EXAMPLE, tokens)
        )
        rows.append((", ".join(code(t) for t in tokens) + " (bpe_ref)", pieces))
    # The pitfall: a plain alternation in the order given matches the shorter token first.
    naive = regex.compile("(" + "|".join(regex.escape(t) for t in OVERLAP_SPECIAL_TOKENS) + ")")
    split = naive.split(OVERLAP_EXAMPLE)  # with a group, text and matched tokens alternate: the tokens at odd places
    pieces = [f"**{code(piece)}**" if i % 2 else code(piece) for i, piece in enumerate(split) if piece]
    label = ", ".join(code(t) for t in OVERLAP_SPECIAL_TOKENS) + " as a plain alternation, shortest first (wrong)"
    rows.append((label, " ".join(pieces)))
    return (
        f"Text: {code(OVERLAP_EXAMPLE, in_table=False)}\n\n"
        + markdown_table(["special tokens, in the order given", "pieces (special tokens in bold)"], rows)
    )


def gpt2_vocabulary_snippet() -> str:
    """What the shipped GPT-2 files hold: 256 bytes + merges + ``<|endoftext|>``."""
    from ...data_files import GPT2_MERGES, GPT2_VOCAB
    from ...serialization import load_vocab_and_merges

    vocab, merges = load_vocab_and_merges(data_file(GPT2_VOCAB), data_file(GPT2_MERGES))
    special = [i for i, token in vocab.items() if token == b"<|endoftext|>"]
    return (
        f"The GPT-2 vocabulary shipped in `data/cs336_fixtures/` has {thousands(len(vocab))} tokens: "
        f"256 single bytes, {thousands(len(merges))} merges and `<|endoftext|>` (id {thousands(special[0])})."
    )


# The worked example: from text to word counts

WORKED_EXAMPLE = "Zoë's cat sat.<|endoftext|>The cat  sat on 2 mats!\n"


def worked_example_snippet(text: str = WORKED_EXAMPLE) -> str:
    pieces = split_on_special_tokens(text, DEFAULT_SPECIAL_TOKENS)
    lines = [
        f"**Step 1, special tokens.** Cutting at {code('<|endoftext|>', in_table=False)} leaves {len(pieces)} pieces: "
        + " and ".join(code(repr(p), in_table=False) for p in pieces)
        + ".\n",
        "**Step 2, the pattern.** Each piece is pretokenized on its own (the number is the piece of the "
        "pattern that matched, from the table above):\n",
    ]
    rows = []
    for i, piece in enumerate(pieces):
        found = " ".join(f"{code_token(p.encode())}<sub>{j + 1}</sub>" for p, j in pretokens_by_piece(piece))
        rows.append((i + 1, found))
    lines.append(markdown_table(["piece", "pretokens (pattern piece)"], rows, align="rl"))
    counts = count_pretokens(text, DEFAULT_SPECIAL_TOKENS)
    lines.append(
        f"**Step 3, bytes and counts.** Each pretoken is UTF-8 encoded and counted; the trainer sees "
        f"{len(counts)} distinct words for {sum(counts.values())} occurrences:\n"
    )
    rows = [(code_token(word), code(word.hex(" ")), len(word), count) for word, count in counts.items()]
    lines.append(markdown_table(["word", "UTF-8 bytes (hex)", "bytes", "count"], rows, align="llrr"))
    return "\n".join(lines)


# Bytes per character in several scripts

@dataclass(frozen=True)
class ScriptSample:
    name: str
    text: str
    source: str

    @property
    def characters(self) -> int:
        return len(self.text)

    @property
    def utf8_bytes(self) -> int:
        return len(self.text.encode("utf-8"))

    @property
    def pretokens(self) -> int:
        return len(pretokenize(self.text))


# Short sentences written for the course ("the cat sleeps in the sun" and similar).
INLINE_SAMPLES: tuple[tuple[str, str], ...] = (
    ("French", "Le garçon a mangé une crêpe au café près de la forêt."),
    ("Greek", "Η γάτα κοιμάται στον ήλιο."),
    ("Russian", "Кошка спит на солнце."),
    ("Hindi", "बिल्ली धूप में सो रही है।"),
    ("Chinese", "猫在阳光下睡觉。"),
    ("Japanese", "猫は日なたで寝ている。"),
    ("emoji", "🐱☀️😴 👍🏽🎉"),
)


def script_samples(english_chars: int = 20_000) -> list[ScriptSample]:
    """English (the TinyStories sample's start), German (CS336's ``german.txt``), and inline sentences."""
    english = read_corpus(data_file(TINYSTORIES_SAMPLE))[:english_chars]
    german = read_corpus(data_file(CS336_FIXTURES / "german.txt"))
    return [
        ScriptSample("English", english, "data/tinystories"),
        ScriptSample("German", german, "data/cs336_fixtures/german.txt"),
        *(ScriptSample(name, text, "inline") for name, text in INLINE_SAMPLES),
    ]


def draw_bytes_per_character(samples: list[ScriptSample], path: Path) -> Path:
    fig, (left, right) = panels(2)
    names = [s.name for s in samples][::-1]
    per_char = [s.utf8_bytes / s.characters for s in samples][::-1]
    per_pretoken = [s.utf8_bytes / s.pretokens for s in samples][::-1]
    labelled_bars(left, names, per_char, "#4c72b0", lambda v: f"{v:.2f}", lambda v: v + 0.05)
    name_axes(left, "UTF-8 bytes per character", "", "One character = 1 to 4 bytes", grid=None)
    left.set_xlim(0, 4.6)
    labelled_bars(right, names, per_pretoken, "#dd8452", lambda v: f"{v:.1f}", lambda v: v * 1.05)
    name_axes(right, "mean bytes per pretoken (GPT-2 pattern, log scale)", "",
              "Pretokens: words in English, whole sentences in Chinese", grid=None, log="x")
    right.set_xlim(1, max(per_pretoken) * 3)
    return save_png(fig, path)


def hindi_snippet() -> str:
    text = dict(INLINE_SAMPLES)["Hindi"]
    first_word = text.split()[0]
    pieces = " ".join(code(p, in_table=False) for p in pretokenize(first_word))
    marks = sorted({ch for ch in first_word if unicodedata.category(ch).startswith("M")})
    names = ", ".join(f"U+{ord(ch):04X} ({unicodedata.category(ch)})" for ch in marks)
    return (
        f"The Hindi word {code(first_word)} ({len(first_word)} code points, {len(first_word.encode('utf-8'))} "
        f"bytes) becomes {len(pretokenize(first_word))} pretokens: {pieces}. Its vowel signs and virama "
        f"({names}) are Unicode *marks*, not letters, so `\\p{{L}}+` stops at each of them."
    )


# Pretoken counts of TinyStories: the input of training

@dataclass(frozen=True)
class CorpusCounts:
    path: Path
    characters: int
    utf8_bytes: int
    special_tokens: int
    word_counts: dict[bytes, int]

    @property
    def occurrences(self) -> int:
        return sum(self.word_counts.values())

    @property
    def distinct(self) -> int:
        return len(self.word_counts)

    def ranked(self) -> list[tuple[bytes, int]]:
        """Pretokens by count, most frequent first (ties by bytes, so the order is fixed)."""
        return sorted(self.word_counts.items(), key=lambda kv: (-kv[1], kv[0]))


def corpus_counts(path: Path = TINYSTORIES_SAMPLE) -> CorpusCounts:
    """The sample's sizes and its pretoken counts, those the other pages' runs read (one count of them a process)."""
    text = read_corpus(data_file(path))
    counts = shared_corpus_counts(Path(path))
    specials = sum(text.count(t) for t in DEFAULT_SPECIAL_TOKENS)
    return CorpusCounts(Path(path), len(text), len(text.encode("utf-8")), specials, counts)


def word_counts_snippet(stats: CorpusCounts, top: int = 12) -> str:
    ranked = stats.ranked()
    top_share = sum(c for _, c in ranked[:100]) / stats.occurrences
    once = sum(1 for _, c in ranked if c == 1)
    intro = (
        f"The shipped sample `{stats.path.name}` has {thousands(stats.characters)} characters "
        f"({thousands(stats.utf8_bytes)} UTF-8 bytes) and {thousands(stats.special_tokens)} "
        f"`<|endoftext|>` separators. Pretokenized, it is {thousands(stats.occurrences)} pretokens "
        f"but only {thousands(stats.distinct)} distinct ones: on average each distinct pretoken occurs "
        f"{stats.occurrences / stats.distinct:.0f} times. The 100 most frequent cover "
        f"{100 * top_share:.0f}% of all occurrences, and {thousands(once)} pretokens occur only once.\n\n"
    )
    rows = [(i + 1, code_token(word), len(word), thousands(count)) for i, (word, count) in enumerate(ranked[:top])]
    return intro + markdown_table(["rank", "pretoken", "bytes", "count"], rows, align="rlrr")


def draw_pretoken_counts(stats: CorpusCounts, path: Path) -> Path:
    fig, (left, right) = panels(2)
    ranked = stats.ranked()
    counts = [c for _, c in ranked]
    left.loglog(range(1, len(counts) + 1), counts, color="#4c72b0")
    name_axes(left, "rank of the pretoken (most frequent first)", "occurrences",
              f"{thousands(stats.occurrences)} pretokens, {thousands(stats.distinct)} distinct")
    left.set_ylim(0.5, counts[0] * 8)
    for rank in (1, 10, 100, 1000):
        if rank <= len(counts):
            left.plot([rank], [counts[rank - 1]], "o", color="#c44e52", markersize=4)
            label = f"{show_token(ranked[rank - 1][0])}: {thousands(counts[rank - 1])}"
            left.annotate(label, (rank, counts[rank - 1]), textcoords="offset points", xytext=(6, 6))
    by_length_distinct = Counter(map(len, stats.word_counts))
    by_length_occurrences: Counter[int] = Counter()
    for word, count in stats.word_counts.items():
        by_length_occurrences[len(word)] += count
    lengths = list(range(1, max(by_length_distinct) + 1))
    distinct = [by_length_distinct[n] / stats.distinct for n in lengths]
    occurrences = [by_length_occurrences[n] / stats.occurrences for n in lengths]
    width = 0.4
    right.bar([n - width / 2 for n in lengths], occurrences, width, label="share of all occurrences", color="#4c72b0")
    right.bar([n + width / 2 for n in lengths], distinct, width, label="share of distinct pretokens", color="#dd8452")
    right.set_xticks(lengths)
    name_axes(right, "pretoken length in bytes", "share", "Frequent pretokens are short; rare ones are long", "best", grid=None)
    return save_png(fig, path)


def snippets(corpus: Path = TINYSTORIES_SAMPLE) -> dict[str, str]:
    stats = corpus_counts(corpus)
    return page_snippets("00", {
        "00-gpt2-vocabulary.md": gpt2_vocabulary_snippet(),
        "00-utf8-examples.md": utf8_table(),
        "00-pattern-pieces.md": pattern_snippet(),
        "00-special-tokens.md": special_tokens_table(),
        "00-special-overlap.md": overlap_table(),
        "00-worked-example.md": worked_example_snippet(),
        "00-scripts.md": markdown_table(
            ["sample", "characters", "UTF-8 bytes", "bytes / char", "pretokens", "bytes / pretoken"],
            [(s.name, thousands(s.characters), thousands(s.utf8_bytes), f"{s.utf8_bytes / s.characters:.2f}",
              thousands(s.pretokens), f"{s.utf8_bytes / s.pretokens:.1f}") for s in script_samples()], align="lrrrrr"),
        "00-hindi.md": hindi_snippet(),
        "00-tinystories-word-counts.md": word_counts_snippet(stats),
    })


def draw_figures(out_dir: Path) -> list[Path]:
    return [
        draw_bytes_per_character(script_samples(), out_dir / "00-bytes-per-character.png"),
        draw_pretoken_counts(corpus_counts(), out_dir / "00-tinystories-pretokens.png"),
    ]
