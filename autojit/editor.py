"""Editor positions and edits: the one place that converts between autojit's positions and LSP's.

Three position systems meet here:

* Python's ``ast``: 1-based lines, 0-based columns in UTF-8 *bytes*.
* autojit's :class:`~autojit.model.Location` (what ``check``'s text/json/sarif/github output
  shows): 1-based lines, 1-based columns in *characters* (Unicode code points), end exclusive.
* the Language Server Protocol: 0-based lines, 0-based ``character`` in *UTF-16 code units*
  (a character outside the Basic Multilingual Plane, such as ``𝄞``, counts 2), end exclusive.

Lines end at ``\\n``, ``\\r\\n`` or ``\\r`` (as in LSP and in Python's tokenizer); a tab is one
character. Everything that produces editor positions (``autojit check --output-format json``,
``autojit fix``, ``autojit lsp``) goes through :class:`LineIndex`.

:func:`code_action` builds the quick-fix for the function at a position: an LSP ``CodeAction``
whose ``WorkspaceEdit`` replaces only the changed line ranges. Nothing here imports jax.
"""

from __future__ import annotations

import ast
import bisect
import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from .model import KEPT_CODES, Conversion, Location
from .source import LINE_END, split_lines

# LSP DiagnosticSeverity
SEVERITY_WARNING = 2
SEVERITY_INFORMATION = 3
SEVERITY_HINT = 4


def utf16_len(text: str) -> int:
    """The length of ``text`` in UTF-16 code units."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def utf16_to_chars(text: str, units: int) -> int:
    """How many characters of ``text`` its first ``units`` UTF-16 code units cover (clamped to
    the text; a position inside a surrogate pair rounds up past the character)."""
    if text.isascii():
        return max(0, min(units, len(text)))
    n = 0
    for i, ch in enumerate(text):
        if n >= units:
            return i
        n += 2 if ord(ch) > 0xFFFF else 1
    return len(text)


class LineIndex:
    """Line starts of a text, and conversions between offsets, autojit and LSP positions."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.line_starts = [0] + [m.end() for m in LINE_END.finditer(text)]

    @property
    def line_count(self) -> int:
        return len(self.line_starts)

    def line_text(self, line0: int) -> str:
        """The text of 0-based line ``line0`` without its line ending ('' past the end)."""
        if line0 < 0 or line0 >= len(self.line_starts):
            return ""
        start = self.line_starts[line0]
        end = self.line_starts[line0 + 1] if line0 + 1 < len(self.line_starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")

    # -- offsets <-> LSP ---------------------------------------------------------------
    def position(self, offset: int) -> dict[str, int]:
        """The LSP ``Position`` of a character offset."""
        offset = max(0, min(offset, len(self.text)))
        line0 = bisect.bisect_right(self.line_starts, offset) - 1
        start = self.line_starts[line0]
        return {"line": line0, "character": utf16_len(self.text[start:offset])}

    def offset(self, position: dict[str, int]) -> int:
        """The character offset of an LSP ``Position``. As LSP asks, a character past the end of
        its line means the end of the line, and a line past the end means the end of the text."""
        line0 = position["line"]
        if line0 < 0:
            return 0
        if line0 >= len(self.line_starts):
            return len(self.text)
        line = self.line_text(line0)
        return self.line_starts[line0] + utf16_to_chars(line, position["character"])

    def range(self, start: int, end: int) -> dict[str, dict[str, int]]:
        """The LSP ``Range`` of character offsets ``[start, end)``."""
        return {"start": self.position(start), "end": self.position(end)}

    # -- autojit (1-based line, 1-based character column) <-> offsets and LSP -------------
    def offset_of(self, line: int, col: int) -> int:
        """The offset of 1-based ``line`` and 1-based character column ``col`` (clamped)."""
        line0 = min(max(line - 1, 0), len(self.line_starts) - 1)
        text = self.line_text(line0)
        return self.line_starts[line0] + max(0, min(col - 1, len(text)))

    def lsp_position(self, line: int, col: int) -> dict[str, int]:
        """The LSP ``Position`` of an autojit position (1-based line, 1-based character col)."""
        return self.position(self.offset_of(line, col))

    def autojit_position(self, position: dict[str, int]) -> tuple[int, int]:
        """(1-based line, 1-based character column) of an LSP ``Position``."""
        offset = self.offset(position)
        line0 = bisect.bisect_right(self.line_starts, offset) - 1
        return line0 + 1, offset - self.line_starts[line0] + 1

    def location_range(self, loc: Location) -> dict[str, dict[str, int]]:
        """The LSP ``Range`` of an autojit :class:`Location` (an empty end means the start)."""
        start = self.offset_of(loc.line, loc.col)
        end = self.offset_of(loc.end_line or loc.line, loc.end_col or loc.col)
        return self.range(start, max(start, end))

    def ast_offset(self, lineno: int, col_byte: int) -> int:
        """The offset of an ``ast`` position (1-based line, UTF-8 byte column)."""
        text = self.line_text(lineno - 1)
        if not text.isascii():
            col_byte = len(text.encode("utf-8")[:col_byte].decode("utf-8", errors="replace"))
        return self.line_starts[min(lineno - 1, len(self.line_starts) - 1)] + col_byte


# -- edits -------------------------------------------------------------------------------------




def diff_lines(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int, int, int]]:
    """The changed runs ``(i1, i2, j1, j2)``: ``a[i1:i2]`` becomes ``b[j1:j2]``, in order.

    A patience diff: lines that occur once in both sides anchor the match (their longest
    increasing run), the gaps between anchors are matched recursively, and only small gaps
    without anchors go to difflib. A conversion changes a few statements per function and every
    ``def`` line is unique, so this stays near linear where difflib on a whole file is quadratic.
    """
    matches: list[tuple[int, int]] = []
    _match(a, b, 0, len(a), 0, len(b), matches, 0)
    out = []
    pi, pj = 0, 0
    for i, j in [*matches, (len(a), len(b))]:
        if i > pi or j > pj:
            out.append((pi, i, pj, j))
        pi, pj = i + 1, j + 1
    return out


def _match(
    a: Sequence[str],
    b: Sequence[str],
    alo: int,
    ahi: int,
    blo: int,
    bhi: int,
    out: list[tuple[int, int]],
    depth: int,
) -> None:
    """Append the matched line pairs of ``a[alo:ahi]`` and ``b[blo:bhi]`` to ``out``, in order."""
    while alo < ahi and blo < bhi and a[alo] == b[blo]:
        out.append((alo, blo))
        alo += 1
        blo += 1
    tail = []
    while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
        ahi -= 1
        bhi -= 1
        tail.append((ahi, bhi))
    if alo < ahi and blo < bhi:
        anchors = _unique_anchors(a, b, alo, ahi, blo, bhi) if depth < 64 else []
        if anchors:
            pi, pj = alo, blo
            for i, j in anchors:
                _match(a, b, pi, i, pj, j, out, depth + 1)
                out.append((i, j))
                pi, pj = i + 1, j + 1
            _match(a, b, pi, ahi, pj, bhi, out, depth + 1)
        elif (ahi - alo) * (bhi - blo) <= 250_000:
            sm = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
            for i, j, n in sm.get_matching_blocks():
                out.extend((alo + i + k, blo + j + k) for k in range(n))
        # else: one replacement of the whole gap
    out.extend(reversed(tail))


def _unique_anchors(
    a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int
) -> list[tuple[int, int]]:
    """The longest in-order run of lines that occur exactly once in each range."""
    count_a: dict[str, int] = {}
    for i in range(alo, ahi):
        count_a[a[i]] = count_a.get(a[i], 0) + 1
    count_b: dict[str, int] = {}
    where_b: dict[str, int] = {}
    for j in range(blo, bhi):
        count_b[b[j]] = count_b.get(b[j], 0) + 1
        where_b[b[j]] = j
    pairs = [
        (i, where_b[a[i]]) for i in range(alo, ahi) if count_a[a[i]] == 1 and count_b.get(a[i]) == 1
    ]
    # longest increasing subsequence of the b indices (patience sorting)
    tops: list[int] = []  # b index at the top of each pile
    top_at: list[int] = []  # index into pairs of each pile's top
    back: list[int] = []
    for k, (_, j) in enumerate(pairs):
        pile = bisect.bisect_left(tops, j)
        back.append(top_at[pile - 1] if pile else -1)
        if pile == len(tops):
            tops.append(j)
            top_at.append(k)
        else:
            tops[pile] = j
            top_at[pile] = k
    run = []
    k = top_at[-1] if top_at else -1
    while k >= 0:
        run.append(pairs[k])
        k = back[k]
    return run[::-1]


def line_edits(old: str, new: str, index: LineIndex | None = None) -> list[dict[str, Any]]:
    """The edits turning ``old`` into ``new``, one per changed run of whole lines.

    Each edit has autojit's form, 1-based ``start_line`` (inclusive) to ``end_line`` (exclusive:
    an insertion has ``start_line == end_line``) and the new ``text``, and LSP's form, ``range``
    and ``newText`` (a ``TextEdit``), for the same change.
    """
    index = index or LineIndex(old)
    a = split_lines(old)
    b = split_lines(new)
    out = []
    for i1, i2, j1, j2 in diff_lines(a, b):
        text = "".join(b[j1:j2])
        start = index.line_starts[i1] if i1 < index.line_count else len(old)
        end = index.line_starts[i2] if i2 < index.line_count else len(old)
        out.append(
            {
                "start_line": i1 + 1,
                "end_line": i2 + 1,
                "text": text,
                "range": index.range(start, end),
                "newText": text,
            }
        )
    return out


def apply_text_edits(text: str, edits: Iterable[dict[str, Any]]) -> str:
    """Apply LSP ``TextEdit``s (positions in the original ``text``, non-overlapping) to ``text``."""
    index = LineIndex(text)
    spans = sorted(
        (
            (index.offset(e["range"]["start"]), index.offset(e["range"]["end"]), e["newText"])
            for e in edits
        ),
        key=lambda s: (s[0], s[1]),
    )
    out = []
    pos = 0
    for start, end, new_text in spans:
        if start < pos:
            raise ValueError("overlapping text edits")
        out.append(text[pos:start])
        out.append(new_text)
        pos = end
    out.append(text[pos:])
    return "".join(out)


# -- functions at a position -------------------------------------------------------------------


@dataclass(frozen=True)
class FunctionSpan:
    """A function autojit can convert on its own (module level, or a method of a module-level
    class): its qualname and the offsets of its text, decorators included."""

    qualname: str
    start: int
    end: int


def convertible_functions(
    text: str, index: LineIndex | None = None, tree: ast.Module | None = None
) -> list[FunctionSpan]:
    """The functions ``convert_source(only=[qualname])`` can convert, in file order. (A nested
    function is converted together with the function it is defined in.)"""
    index = index or LineIndex(text)
    tree = tree if tree is not None else ast.parse(text)
    out = []

    def add(node: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str) -> None:
        first = min([node, *node.decorator_list], key=lambda n: (n.lineno, n.col_offset))
        # (from the start of its first line: a method's `def` or decorator is indented, and a
        # quick-fix asked for at column 1 of that line is for it)
        start = index.line_starts[first.lineno - 1]
        end = index.ast_offset(node.end_lineno or node.lineno, node.end_col_offset or 0)
        out.append(FunctionSpan(qualname, start, end))

    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            add(stmt, stmt.name)
        elif isinstance(stmt, ast.ClassDef):
            for sub in stmt.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    add(sub, f"{stmt.name}.{sub.name}")
    return out


def function_at(spans: Sequence[FunctionSpan], offset: int) -> FunctionSpan | None:
    """The innermost convertible function whose text (decorators included, from the start of its
    first line to the end of its last line) contains ``offset``."""
    best = None
    for s in spans:
        if s.start <= offset <= s.end and (best is None or s.start >= best.start):
            best = s
    return best


def _line_span(index: LineIndex, span: FunctionSpan) -> tuple[int, int]:
    """The offsets of the whole lines ``span`` is on (line ending included)."""
    first = bisect.bisect_right(index.line_starts, span.start) - 1
    last = bisect.bisect_right(index.line_starts, span.end) - 1
    end = index.line_starts[last + 1] if last + 1 < index.line_count else len(index.text)
    return index.line_starts[first], end


# -- LSP objects -------------------------------------------------------------------------------


def rule_href(code: str) -> str | None:
    """A URI for a rule's documentation: the rule file shipped with autojit, if it exists."""
    from .registry import RULES_DIR

    path = RULES_DIR / f"{code}.md"
    return path.as_uri() if path.is_file() else None


def diagnostic(
    index: LineIndex, code: str, message: str, loc: Location, kind: str, function: str = ""
) -> dict[str, Any]:
    """An LSP ``Diagnostic`` for a change (``kind='change'``: a warning, with a quick-fix) or a
    refusal (``kind='refusal'``: information, code left as is); a note that code already correct
    under jit was kept (``KEPT_CODES``) is a hint."""
    if code in KEPT_CODES:
        severity = SEVERITY_HINT
    else:
        severity = SEVERITY_WARNING if kind == "change" else SEVERITY_INFORMATION
    out: dict[str, Any] = {
        "range": index.location_range(loc),
        "severity": severity,
        "code": code,
        "source": "autojit",
        "message": message,
        "data": {"kind": kind, "function": function},
    }
    href = rule_href(code)
    if href:
        out["codeDescription"] = {"href": href}
    return out


def diagnostics(conversion: Conversion, index: LineIndex | None = None) -> list[dict[str, Any]]:
    """LSP ``Diagnostic``s for every change and refusal of a conversion, in file order."""
    index = index or LineIndex(conversion.original)
    out = []
    for f in conversion.functions:
        for c in f.changes:
            out.append(diagnostic(index, c.code, c.message, c.location, "change", f.qualname))
        for r in f.refusals:
            out.append(diagnostic(index, r.code, r.reason, r.location, "refusal", f.qualname))
    out.sort(key=lambda d: (d["range"]["start"]["line"], d["range"]["start"]["character"]))
    return out


def path_to_uri(path: str) -> str:
    """A ``file://`` URI for a path (stdin's ``-`` becomes ``untitled:-``)."""
    if path == "-":
        return "untitled:-"
    return Path(path).resolve().as_uri()


def uri_to_path(uri: str) -> str:
    """The file path of a ``file://`` URI (other URIs are returned as they are)."""
    from urllib.parse import unquote, urlparse

    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return uri
    path = unquote(parsed.path)
    if re.match(r"^/[A-Za-z]:", path):  # file:///C:/x -> C:/x
        path = path[1:]
    return path


def code_action(
    text: str,
    filename: str,
    position: dict[str, int],
    *,
    uri: str | None = None,
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
) -> dict[str, Any] | None:
    """The quick-fix for the function at LSP ``position``: an LSP ``CodeAction`` that converts
    that function (and adds the imports it needs), or ``None`` when there is no function there or
    nothing to change. Raises ``SyntaxError`` for a file that does not parse."""
    from .pipeline import convert_source

    index = LineIndex(text)
    tree = ast.parse(text, filename)
    spans = convertible_functions(text, index, tree)
    target = function_at(spans, index.offset(position))
    if target is None:
        return None
    conversion = convert_source(
        text, filename, select=select, ignore=ignore, only=[target.qualname]
    )
    return action_for_function(conversion, target, spans, index, uri or path_to_uri(filename))


def action_for_function(
    conversion: Conversion,
    target: FunctionSpan,
    spans: Sequence[FunctionSpan],
    index: LineIndex,
    uri: str,
) -> dict[str, Any] | None:
    """The ``CodeAction`` for ``target`` from a conversion made with ``only=[target.qualname]``
    (``None`` when it changes nothing)."""
    fc = next((f for f in conversion.functions if f.qualname == target.qualname), None)
    if fc is None or not fc.changed:
        return None
    edits = line_edits(conversion.original, conversion.text, index)
    # `only` also matches a method of the same bare name: keep the target's edits (and the
    # import lines), never another function's.
    others = [
        _line_span(index, s)
        for s in spans
        if s.qualname != target.qualname
        and any(f.qualname == s.qualname and f.changed for f in conversion.functions)
    ]

    def elsewhere(e: dict[str, Any]) -> bool:
        start = index.offset(e["range"]["start"])
        end = index.offset(e["range"]["end"])
        return any(start < o_end and end > o_start for o_start, o_end in others)

    text_edits = [{"range": e["range"], "newText": e["newText"]} for e in edits if not elsewhere(e)]
    if others:
        # never a partial fix: the result must hold the target's new text and the others' old
        result = apply_text_edits(conversion.original, text_edits)
        if fc.new_text not in result or any(
            f.original_text not in result
            for f in conversion.functions
            if f.qualname != fc.qualname and f.changed
        ):
            return None
    diags = [
        diagnostic(index, c.code, c.message, c.location, "change", fc.qualname) for c in fc.changes
    ] + [
        diagnostic(index, r.code, r.reason, r.location, "refusal", fc.qualname) for r in fc.refusals
    ]
    diags.sort(key=lambda d: (d["range"]["start"]["line"], d["range"]["start"]["character"]))
    return {
        "title": f"Make `{fc.qualname}` jittable (autojit)",
        "kind": "quickfix",
        "diagnostics": diags,
        "isPreferred": True,
        "edit": {"changes": {uri: text_edits}},
    }


# -- `autojit fix` -----------------------------------------------------------------------------


@click.command("fix")
@click.argument("file", metavar="FILE")
@click.option(
    "--line", "line", type=click.IntRange(min=1), required=True, help="1-based line of the cursor."
)
@click.option(
    "--column",
    "column",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="1-based column of the cursor, in characters.",
)
@click.option(
    "--stdin-filename",
    metavar="PATH",
    help="The name of the buffer read from stdin (`-`): its URI and where the config is found.",
)
@click.option("--select", multiple=True, metavar="CODES", help="Only these rule codes or prefixes.")
@click.option("--ignore", multiple=True, metavar="CODES", help="Skip these rule codes or prefixes.")
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    help="Read [tool.autojit] from this pyproject.toml instead of the nearest one.",
)
def fix_command(
    file: str,
    line: int,
    column: int,
    stdin_filename: str | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    config_path: str | None,
) -> None:
    """Print the quick-fix for the function at the cursor as an LSP CodeAction (JSON).

    FILE is a path, or `-` to read the (unsaved) buffer from stdin. --line and --column are
    1-based, as editors show them (the column counts characters; a tab is one). The output's
    positions are LSP's: 0-based lines, characters in UTF-16 code units. The innermost module
    level function or method around the cursor is converted (a nested function is converted
    with the function it is in). Prints `null` (exit 0) when there is no function at the cursor
    or nothing to change; exit 2 on an error (syntax error, unreadable file).
    """
    import json
    import sys

    from . import cli

    name = (stdin_filename or "-") if file == "-" else file
    if file == "-":
        data = cli.binary_stream("stdin").read()
    else:
        try:
            with open(file, "rb") as f:
                data = f.read()
        except OSError as exc:
            cli._echo_err(f"{file}:1:1: E902 {exc.strerror or exc}")
            sys.exit(cli.EXIT_ERROR)
    try:
        text, _ = cli.decode(data)
    except UnicodeDecodeError as exc:
        e = cli._decode_error(data, exc)
        cli._echo_err(f"{name}:{e.line}:{e.col}: {e.code} {e.message}")
        sys.exit(cli.EXIT_ERROR)
    settings = cli._settings(
        [file],
        stdin_filename,
        config_path,
        cli._codes(None, None, select),  # type: ignore[arg-type]
        cli._codes(None, None, ignore),  # type: ignore[arg-type]
        False,
        (),
    )
    index = LineIndex(text)
    position = index.position(index.offset_of(line, column))
    try:
        action = code_action(
            text,
            name,
            position,
            uri=path_to_uri(name),
            select=settings.select,
            ignore=settings.ignore,
        )
    except SyntaxError as exc:
        e = cli._syntax_error(exc)
        cli._echo_err(f"{name}:{e.line}:{e.col}: {e.code} {e.message}")
        sys.exit(cli.EXIT_ERROR)
    except Exception as exc:  # ConversionError or a bug: report, never a traceback
        cli._echo_err(f"{name}:{line}:{column}: E000 cannot convert: {type(exc).__name__}: {exc}")
        sys.exit(cli.EXIT_ERROR)
    click.echo(json.dumps(action, indent=2, ensure_ascii=False))
