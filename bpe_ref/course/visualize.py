"""See the tokens: a text with its token boundaries coloured (HTML in a notebook, ANSI in a terminal).

>>> from bpe_ref import Tokenizer
>>> view = show_tokens(Tokenizer.gpt2(), "Hello world!")
>>> [span.text for span in view.spans]
['Hello', ' world', '!']
>>> view.plain()
'Hello| world|!'

In a notebook, ``show_tokens(tok, text)`` as the last line of a cell renders as HTML (hover a
token to see its id); ``print(show_tokens(tok, text))`` colours it with ANSI escape codes.

A token may end inside a character (an emoji is 4 bytes, often 2 or 3 tokens): such tokens are
shown together as one span, so every span is whole characters; its ``ids`` lists them all.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..tokenizer import Tokenizer

# Soft background colours for HTML and the matching 256-colour ANSI backgrounds, cycled per span.
_HTML_COLOURS = ("#fde68a", "#bfdbfe", "#bbf7d0", "#fbcfe8", "#ddd6fe", "#fed7aa")
_ANSI_COLOURS = (229, 153, 157, 218, 189, 223)
_ANSI_RESET = "\x1b[0m"
# Whitespace made visible, so a token of spaces or a newline still shows its colour.
_VISIBLE = {" ": "\u00b7", "\n": "\u21b5\n", "\t": "\u2192", "\r": "\u240d"}


@dataclass(frozen=True)
class TokenSpan:
    """One coloured span: the text of one or more tokens (more when a token splits a character)."""

    text: str
    ids: tuple[int, ...]


@dataclass(frozen=True)
class TokenView:
    """The spans of a text, rendered as HTML (``_repr_html_``) or ANSI (``str``)."""

    spans: tuple[TokenSpan, ...]

    def __len__(self) -> int:
        return sum(len(span.ids) for span in self.spans)

    def plain(self, separator: str = "|") -> str:
        """The text with ``separator`` between spans (for doctests and logs)."""
        return separator.join(span.text for span in self.spans)

    def to_html(self) -> str:
        parts = []
        for i, span in enumerate(self.spans):
            colour = _HTML_COLOURS[i % len(_HTML_COLOURS)]
            title = " ".join(map(str, span.ids))
            text = html.escape("".join(_VISIBLE.get(c, c) for c in span.text))
            parts.append(f'<span style="background:{colour}" title="{title}">{text}</span>')
        return (
            '<div style="font-family:monospace;white-space:pre-wrap;line-height:1.6">'
            + "".join(parts)
            + f'</div><div style="font-size:small">{len(self)} tokens</div>'
        )

    def _repr_html_(self) -> str:  # Jupyter calls this
        return self.to_html()

    def to_ansi(self) -> str:
        parts = []
        for i, span in enumerate(self.spans):
            colour = _ANSI_COLOURS[i % len(_ANSI_COLOURS)]
            text = "".join(_VISIBLE.get(c, c) for c in span.text)
            # Colour each line separately: a background running past a newline smears the terminal.
            lines = text.split("\n")
            parts.append("\n".join(f"\x1b[48;5;{colour}m\x1b[30m{line}{_ANSI_RESET}" if line else "" for line in lines))
        return "".join(parts)

    def __str__(self) -> str:
        return self.to_ansi()


def token_spans(tok: Tokenizer, text: str, method: str | None = None) -> tuple[TokenSpan, ...]:
    """Encode ``text`` and group its tokens into spans of whole characters."""
    spans: list[TokenSpan] = []
    pending: bytes = b""
    pending_ids: list[int] = []
    for token_id in tok.encode(text, method=method):
        pending += tok.token_bytes(token_id)
        pending_ids.append(token_id)
        try:
            piece = pending.decode("utf-8")
        except UnicodeDecodeError:
            continue  # this token ends inside a character: join it with the next
        spans.append(TokenSpan(piece, tuple(pending_ids)))
        pending, pending_ids = b"", []
    if pending_ids:  # cannot happen for text that encodes; kept for safety
        spans.append(TokenSpan(pending.decode("utf-8", errors="replace"), tuple(pending_ids)))
    return tuple(spans)


def show_tokens(tok: Tokenizer, text: str, method: str | None = None) -> TokenView:
    """The token boundaries of ``text``: HTML in a notebook, ANSI colours when printed."""
    return TokenView(token_spans(tok, text, method))


__all__ = ["TokenSpan", "TokenView", "show_tokens", "token_spans"]
