"""Graders of lab 00, pretokenization: from text to UTF-8 bytes, pieces, pretokens and their counts.

Theory: ``theory/00-bytes-and-pretokenization.md``. Reference: :mod:`bpe_ref.pretokenize`.

=========================  =====================================  =====================================
task                       visible test                           hidden test
=========================  =====================================  =====================================
1 ``utf8_bytes``           :func:`check_utf8_bytes`               :func:`check_utf8_bytes_properties`
2 ``split_on_special...``  :func:`check_split_on_special_tokens`  ``..._properties``
3 ``pretokenize``          :func:`check_pretokenize`              :func:`check_pretokenize_properties`
4 ``count_pretokens``      :func:`check_count_pretokens`          ``..._properties``
=========================  =====================================  =====================================
"""

from __future__ import annotations

from hypothesis import strategies as st

from ...corpus import encode_utf8
from ...pretokenize import count_pretokens, pretokenize, split_on_special_tokens
from .core import Task, task_graders

# The reference functions these graders compare with (bpe_ref.course.checks.fresh checks they are private).
REFERENCES = (encode_utf8, split_on_special_tokens, pretokenize, count_pretokens)

EOT = "<|endoftext|>"

# ---- strategies: small alphabets that hit the interesting cases often ----------------------

any_text = st.text(st.characters(codec="utf-8"), max_size=30)  # every code point but lone surrogates

SPECIAL_TOKENS = ["<|eot|>", "<s>", "<|eot|><s>", "<|", "s>", EOT]
special_token_lists = st.lists(st.sampled_from(SPECIAL_TOKENS), unique=True, max_size=3)
text_around_specials = st.lists(
    st.sampled_from(["a", "b", " ", "\n", "<", ">", "|", "s", "é", "eot", "<|eot|>", "<s>", EOT]), max_size=14
).map("".join)

PRETOKEN_PIECES = [
    "the", " cat", "Hello", " world", "'s", "'t", "'ll", "'ve", "'re", "'d", "'m", "'", "42", " 7", "3.14",
    "!", "?!", ",", " ...", " ", "  ", "   ", "\n", "\n\n", "\t", " \n", "é", " café", "日本", " 語",
    "٣", "½", "_", "-", "🙂", "<|eot|>", "<s>", EOT,
]
text_for_pretokens = st.one_of(
    st.lists(st.sampled_from(PRETOKEN_PIECES), max_size=12).map("".join),
    any_text,
    st.lists(st.sampled_from(["<|eot|>", "<s>", "<|eot|><s>", "a", " b", "s>", "\n"]), max_size=8).map("".join),
)
# The last two overlap ("<|eot|>" begins "<|eot|><s>"): the longest must win, also in a pretokenize
# or count_pretokens that splits without calling split_on_special_tokens.
pretoken_special_lists = st.sampled_from([[], [EOT], ["<|eot|>"], ["<|eot|>", EOT], ["<|eot|>", "<|eot|><s>"],
                                          ["<|eot|><s>", "<|eot|>"]])

# ---- task 1: UTF-8 bytes ---------------------------------------------------------------------


def reference_utf8_bytes(text: str) -> list[int]:
    return list(encode_utf8(text))


check_utf8_bytes, check_utf8_bytes_properties = task_graders(
    Task("utf8_bytes", ("text",), what="a list of ints, one per byte"),
    reference_utf8_bytes,
    [("hi",), ("",), ("é",), ("naïve café",), ("日本",), ("🙂!",), ("a\nb\t",)],
    any_text.map(lambda text: (text,)),
    max_examples=150,
)

# ---- task 2: split on special tokens ---------------------------------------------------------


def empty_pattern_hint(args: tuple, expected: object, got: object) -> str | None:
    """An empty list of special tokens joins into the empty pattern, which matches everywhere."""
    special_tokens = args[1] if len(args) > 1 else None
    if special_tokens == [] and isinstance(got, list) and len(got) > len(expected or []):  # type: ignore[arg-type]
        return ("with no special tokens, '|'.join(...) is the empty pattern, which matches between every two "
                "characters: return [text] (or nothing for empty text) before building a pattern")
    return None



check_split_on_special_tokens, check_split_on_special_tokens_properties = task_graders(
    Task("split_on_special_tokens", ("text", "special_tokens"), what="a list of str", hint=empty_pattern_hint),
    lambda text, special_tokens: split_on_special_tokens(text, special_tokens),
    [
        ("no special tokens here", []),
        (f"Hello{EOT}world", [EOT]),
        (f"a{EOT}b{EOT}", [EOT]),
        (f"{EOT}{EOT}", [EOT]),
        ("x<|eot|><|eot|>y", ["<|eot|>", "<|eot|><|eot|>"]),  # longest first
        ("1+1=2? (yes)", ["+", "(yes)"]),  # regex metacharacters are plain text
        ("a<s>b<|eot|>c", ["<|eot|>", "<s>"]),
    ],
    st.tuples(text_around_specials, special_token_lists),
    max_examples=150,
)

# ---- task 3: pretokenize with the GPT-2 pattern ----------------------------------------------


check_pretokenize, check_pretokenize_properties = task_graders(
    Task("pretokenize", ("text", "special_tokens"), what="a list of str", stand_ins=(split_on_special_tokens,)),
    lambda text, special_tokens: pretokenize(text, special_tokens),
    [
        ("Hello world!", []),
        ("It's 42.", []),
        ("Hello world!<|endoftext|>It's 42.", [EOT]),
        ("we'll see   you\n\nsoon ", []),
        ("café 日本語 ½", []),
        ("a<|endoftext|>b", []),  # without the special token it is ordinary text
    ],
    st.tuples(text_for_pretokens, pretoken_special_lists),
    max_examples=150,
)

# ---- task 4: count pretokens as bytes --------------------------------------------------------


check_count_pretokens, check_count_pretokens_properties = task_graders(
    Task("count_pretokens", ("text", "special_tokens"), what="a dict mapping bytes to int",
         stand_ins=(pretokenize, split_on_special_tokens)),
    lambda text, special_tokens: count_pretokens(text, special_tokens),
    [
        ("low low lower", []),
        ("", []),
        (f"the cat{EOT}the cat sat", [EOT]),
        ("é é e", []),
        (f"{EOT}", [EOT]),
    ],
    st.tuples(text_for_pretokens, pretoken_special_lists),
    max_examples=120,
)
