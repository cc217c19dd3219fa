"""Source text, positions and edits.

Rewrites never regenerate a whole function: each rule replaces the character range of the
statements it rewrites, and builds the replacement from the original text of the
sub-expressions and sub-statements it keeps. So everything outside a rewritten statement stays
byte-identical, and comments inside kept sub-statements survive.

Edits nest: a rule that rewrites an outer statement reads the text of its body through
:meth:`SourceText.text`, which applies the edits already made inside that body. Its own edit then
replaces (absorbs) them.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

_INDENT = re.compile(r"[ \t]*")


@dataclass
class Edit:
    start: int
    end: int
    text: str


class SourceText:
    """A file's text with a line index and a set of non-overlapping edits."""

    def __init__(self, text: str) -> None:
        self.text_ = text
        self._ascii = text.isascii()  # (then a byte column is a character column)
        self.line_starts = [0]
        if "\r" not in text:  # the common case, without a regex scan
            find, append = text.find, self.line_starts.append
            i = find("\n")
            while i >= 0:
                append(i + 1)
                i = find("\n", i + 1)
        else:
            for m in re.finditer(r"\r\n|\r|\n", text):
                self.line_starts.append(m.end())
        self.edits: list[Edit] = []
        self._lines_cache: dict[int, str] = {}

    # -- positions -----------------------------------------------------------------------
    def line_text(self, lineno: int) -> str:
        """Text of 1-based line ``lineno`` without its line ending."""
        start = self.line_starts[lineno - 1]
        end = self.line_starts[lineno] if lineno < len(self.line_starts) else len(self.text_)
        return self.text_[start:end].rstrip("\r\n")

    def offset(self, lineno: int, col_byte: int) -> int:
        """Character offset of (1-based line, UTF-8 byte column) as given by ``ast``."""
        if self._ascii:
            return self.line_starts[lineno - 1] + col_byte
        line = self.line_text(lineno)
        if line.isascii():
            col = col_byte
        else:
            col = len(line.encode("utf-8")[:col_byte].decode("utf-8", errors="replace"))
        return self.line_starts[lineno - 1] + col

    def char_col(self, lineno: int, col_byte: int) -> int:
        return self.offset(lineno, col_byte) - self.line_starts[lineno - 1]

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset)

    def span(self, node) -> tuple[int, int]:
        return (
            self.offset(node.lineno, node.col_offset),
            self.offset(node.end_lineno, node.end_col_offset),
        )

    def stmt_span(self, node) -> tuple[int, int]:
        """Span of a statement, extended over its decorators."""
        start, end = self.span(node)
        for dec in getattr(node, "decorator_list", []) or []:
            s = self.offset(dec.lineno, dec.col_offset) - 1  # the '@'
            start = min(start, s)
        return start, end

    def block_span(self, stmts) -> tuple[int, int]:
        return self.stmt_span(stmts[0])[0], self.stmt_span(stmts[-1])[1]

    def indent_of(self, node) -> str:
        """The indentation of the line on which ``node`` starts."""
        return _INDENT.match(self.line_text(node.lineno)).group(0)

    def starts_line(self, node) -> bool:
        """Whether nothing but indentation precedes ``node`` on its line."""
        line = self.line_text(node.lineno)
        return not line[: self.char_col(node.lineno, node.col_offset)].strip()

    # -- text with edits -------------------------------------------------------------------
    def text(self, node_or_span) -> str:
        """The current text of a node or span: original text with the edits inside applied."""
        if isinstance(node_or_span, tuple):
            start, end = node_or_span
        else:
            start, end = self.span(node_or_span)
        out = []
        pos = start
        edits = self.edits  # sorted, non-overlapping: the ones inside are a run from `start`
        i = bisect.bisect_left(edits, start, key=_edit_start)
        while i < len(edits) and edits[i].start <= end:
            e = edits[i]
            if e.end <= end:
                out.append(self.text_[pos : e.start])
                out.append(e.text)
                pos = e.end
            i += 1
        out.append(self.text_[pos:end])
        return "".join(out)

    def end_with_edits(self, start: int, end: int) -> int:
        """``end``, or further where an edit that starts inside ``[start, end)`` runs past it
        (a last statement removed together with its line ending)."""
        edits = self.edits
        i = bisect.bisect_left(edits, start, key=_edit_start)
        while i < len(edits) and edits[i].start < end:
            end = max(end, edits[i].end)
            i += 1
        return end

    def original(self, node_or_span) -> str:
        if isinstance(node_or_span, tuple):
            start, end = node_or_span
        else:
            start, end = self.span(node_or_span)
        return self.text_[start:end]

    def replace(self, start: int, end: int, text: str) -> None:
        """Replace ``[start, end)``; edits inside the range are absorbed, overlaps are a bug."""
        edits = self.edits  # sorted and non-overlapping, so their ends are sorted too
        i = bisect.bisect_left(edits, start, key=_edit_start)
        if i > 0 and edits[i - 1].end > start:
            e = edits[i - 1]
            raise ValueError(f"overlapping edits at {start}:{end} and {e.start}:{e.end}")
        j = i
        while j < len(edits) and edits[j].start <= end:
            e = edits[j]
            if e.end <= end:
                j += 1  # inside: absorbed
            elif e.start >= end:
                break
            else:
                raise ValueError(f"overlapping edits at {start}:{end} and {e.start}:{e.end}")
        edits[i:j] = [Edit(start, end, text)]

    def has_edits_in(self, start: int, end: int) -> bool:
        i = bisect.bisect_left(self.edits, start, key=_edit_start)
        return i < len(self.edits) and self.edits[i].end <= end

    def result(self) -> str:
        return self.text((0, len(self.text_)))


def _edit_start(e: Edit) -> int:
    return e.start


LINE_END = re.compile(r"\r\n|\r|\n")  # the line ends Python's tokenizer knows
# where str.splitlines splits but for `\n`: `\r`, and the breaks the tokenizer does not know
_OTHER_LINE_BREAKS = re.compile("[\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def split_lines(text: str, keepends: bool = True) -> list[str]:
    """``text.splitlines(keepends)`` at the line ends Python's tokenizer knows (``\\n``,
    ``\\r\\n``, ``\\r``) only: ``str.splitlines`` also splits at form feeds, U+2028 and U+0085,
    which may stand inside a string literal (and an LSP client does not count them)."""
    if _OTHER_LINE_BREAKS.search(text) is None:  # (then both split at `\n` alone)
        return text.splitlines(keepends)
    out = []
    pos = 0
    for m in LINE_END.finditer(text):
        out.append(text[pos : m.end() if keepends else m.start()])
        pos = m.end()
    if pos < len(text):
        out.append(text[pos:])
    return out


# PEP 263's encoding declaration (on one of the first two lines)
_CODING = re.compile(r"[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")


def after_header_comments(text: str) -> int:
    """Where code may be inserted at the top of a file: after a `#!` line and an encoding
    declaration (which must stay on the first two lines), else 0."""
    pos = 0
    for k in range(2):
        m = LINE_END.search(text, pos)
        end = m.end() if m else len(text)
        line = text[pos:end]
        if not ((k == 0 and line.startswith("#!")) or _CODING.match(line)):
            break
        pos = end
    return pos


def newline_of(text: str) -> str:
    """The file's line ending, so inserted lines match it."""
    m = re.search(r"\r\n|\r|\n", text)
    return m.group(0) if m else "\n"
