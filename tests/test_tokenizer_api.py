"""The Tokenizer's API around encoding: special tokens, files, interop, the token view, the CLI."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bpe_ref import Tokenizer, train_bpe_on_text
from bpe_ref.course.cli import main
from bpe_ref.data_files import CORPUS_EN, TINYSTORIES_SAMPLE
from bpe_ref.course.interop import gpt2_hf_tokenizer, gpt2_tiktoken, to_hf_tokenizer, to_tiktoken
from bpe_ref.course.visualize import show_tokens

BYTES = {i: bytes([i]) for i in range(256)}


@pytest.fixture(scope="module")
def gpt2_tokenizer() -> Tokenizer:
    return Tokenizer.gpt2()


@pytest.fixture(scope="module")
def trained() -> Tokenizer:
    specials = ["<|endoftext|>", "<|pad|>"]
    vocab, merges = train_bpe_on_text(CORPUS_EN.read_text(encoding="utf-8"), 700, special_tokens=specials)
    return Tokenizer(vocab, merges, specials)


# ---------------------------------------------------------------- special tokens

def test_special_tokens_missing_from_the_vocabulary_are_appended():
    tok = Tokenizer(BYTES | {300: b"ab"}, [(b"a", b"b")], ["<s>", "</s>"])
    assert tok.special_token_ids == {"<s>": 301, "</s>": 302}
    assert tok.vocab[301] == b"<s>" and len(tok) == 259
    assert tok.encode("ab<s>ab</s>") == [300, 301, 300, 302]
    assert tok.decode([301, 300]) == "<s>ab"


def test_special_tokens_in_the_vocabulary_keep_their_ids(gpt2_tokenizer):
    assert gpt2_tokenizer.special_token_ids == {"<|endoftext|>": 50256}
    assert len(gpt2_tokenizer) == 50257


def test_special_tokens_are_never_split_and_longest_wins():
    tok = Tokenizer(BYTES, [], ["<a>", "<a><b>", "b>"])
    ids = tok.encode("x<a><b>y<a>b>")
    a, ab, b = (tok.special_token_ids[t] for t in ("<a>", "<a><b>", "b>"))
    assert ids == [ord("x"), ab, ord("y"), a, b]
    # a special token is one token even where the text around it would merge
    assert Tokenizer.gpt2().encode(" <|endoftext|> ") == [220, 50256, 220]


def test_vocab_is_read_only(gpt2_tokenizer):
    with pytest.raises(TypeError):
        gpt2_tokenizer.vocab[0] = b"x"
    assert "vocab_size=50257" in repr(gpt2_tokenizer)


# ---------------------------------------------------------------- files

def test_save_and_load_round_trip(trained, tmp_path):
    vocab_path, merges_path = trained.save(tmp_path / "model")
    loaded = Tokenizer.from_files(vocab_path, merges_path, trained.special_tokens)
    assert dict(loaded.vocab) == dict(trained.vocab)
    assert loaded.merges == trained.merges
    text = CORPUS_EN.read_text(encoding="utf-8")[:5000] + "<|pad|>"
    assert loaded.encode(text) == trained.encode(text)


def test_count_tokens(gpt2_tokenizer):
    assert gpt2_tokenizer.count_tokens("Hello world<|endoftext|>") == 3
    assert gpt2_tokenizer.count_tokens("") == 0


def test_cache_is_bounded(gpt2_tokenizer):
    tok = Tokenizer.gpt2(cache_size=8)
    text = " ".join(f"w{i}" for i in range(100))
    assert tok.encode(text) == gpt2_tokenizer.encode(text, method="heap")
    assert len(tok._fast.cache) <= 8 and len(tok._fast.pieces) <= 8
    tok.clear_cache()
    assert len(tok._fast.cache) == 0 and len(tok._fast.pieces) == 0
    # Long segments (up to MAX_CACHED_SEGMENT characters are kept): bounded by characters too.
    from bpe_ref.fast.encoder import CACHED_CHARS_PER_KEY, MAX_CACHED_SEGMENT

    text = " ".join(f"{i}" + "中文" * 500 for i in range(20))
    assert tok.encode(text) == gpt2_tokenizer.encode(text, method="heap")
    assert sum(map(len, tok._fast.cache)) <= 8 * CACHED_CHARS_PER_KEY + MAX_CACHED_SEGMENT
    tok.clear_cache()
    assert tok._fast.cache.chars == 0


# ---------------------------------------------------------------- interop

def test_interop_gpt2_matches_on_tinystories(gpt2_tokenizer):
    text = TINYSTORIES_SAMPLE.read_text(encoding="utf-8")[:100_000]
    ids = gpt2_tokenizer.encode(text)
    assert gpt2_tiktoken().encode(text, allowed_special="all") == ids
    hf = gpt2_hf_tokenizer()
    assert hf.encode(text).ids == ids
    lines = text.splitlines(keepends=True)[:200]
    assert [e.ids for e in hf.encode_batch(lines)] == [gpt2_tokenizer.encode(line) for line in lines]
    assert gpt2_tiktoken().decode(ids) == hf.decode(ids, skip_special_tokens=False) == gpt2_tokenizer.decode(ids)


def test_interop_trained_vocabulary(trained):
    text = CORPUS_EN.read_text(encoding="utf-8")[:20_000] + "<|pad|> x<|endoftext|>"
    ids = trained.encode(text)
    assert to_tiktoken(trained).encode(text, allowed_special="all") == ids
    assert to_hf_tokenizer(trained).encode(text).ids == ids


def test_interop_refusals():
    tok = Tokenizer(BYTES | {256: b"bc", 257: b"abc", 258: b"ab", 259: b"abc"},
                    [(b"b", b"c"), (b"a", b"bc"), (b"a", b"b"), (b"ab", b"c")])
    with pytest.raises(ValueError, match="one token per byte string"):
        to_hf_tokenizer(tok)
    out_of_order = Tokenizer(BYTES | {300: b"ab", 299: b"abc"}, [(b"a", b"b"), (b"ab", b"c")])
    with pytest.raises(ValueError, match="tiktoken uses token ids as merge ranks"):
        to_tiktoken(out_of_order)


# ---------------------------------------------------------------- the token view and the CLI

def test_show_tokens(gpt2_tokenizer):
    view = show_tokens(gpt2_tokenizer, "Hi 👋<|endoftext|>\n")
    assert [s.text for s in view.spans] == ["Hi", " 👋", "<|endoftext|>", "\n"]
    assert view.spans[1].ids == (50169, 233)  # the emoji's bytes end inside the second token
    assert len(view) == 5
    html = view._repr_html_()
    assert html.count("<span") == 4 and 'title="50169 233"' in html and "&lt;|endoftext|&gt;" in html
    ansi = str(view)
    assert "\x1b[48;5;" in ansi and ansi.endswith("\n")


def test_cli_encode(capsys):
    assert main(["encode", "--color", "never", "Hello world!"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Hello| world|!"
    assert out[1].startswith("3 tokens for 12 bytes")
    assert out[2] == "GPT-2's ids are its own numbering, not byte values: 'a' is id 64, not 97."
    assert out[3] == "15496 995 0"


def test_cli_encode_counts_in_the_singular_for_one(capsys):
    assert main(["encode", "--color", "never", "--no-ids", "a"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "1 token for 1 byte (GPT-2 (shipped files), vocabulary of 50,257)"


def test_cli_encode_says_gpt2_ids_are_not_bytes_only_for_gpt2(trained, tmp_path, capsys):
    assert Tokenizer.gpt2().encode("a") == [64] and ord("a") == 97  # the numbers the note quotes
    trained.save(tmp_path / "m")
    assert main(["encode", "--model", str(tmp_path / "m"), "--color", "never", "a"]) == 0
    assert "not byte values" not in capsys.readouterr().out  # a course vocabulary: id = byte value


def test_cli_encode_with_a_saved_model(trained, tmp_path, capsys):
    trained.save(tmp_path / "m")
    assert main(["encode", "--model", str(tmp_path / "m"), "--color", "always", "--method", "table", "the cat"]) == 0
    out = capsys.readouterr().out
    assert "\x1b[48;5;" in out
    assert " ".join(map(str, trained.encode("the cat"))) in out


def test_cli_encode_errors(tmp_path, capsys):
    assert main(["encode", "--model", str(tmp_path / "missing"), "x"]) == 2
    assert "model folder not found" in capsys.readouterr().err
    assert main(["encode", "--method", "nope", "x"]) == 2


def test_cli_runs_as_a_module():
    done = subprocess.run([sys.executable, "-m", "bpe_ref", "encode", "-"], input="from a pipe",
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "from| a| pipe"
