"""The conversion pipeline: parse -> analyse -> convert -> splice.

``convert_source(text, filename=...)`` never imports or runs the user's code: it reads text and
returns a :class:`~autojit.model.Conversion`.
"""

from __future__ import annotations

import ast
import bisect
import collections
import functools
import gc
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

import gast

from .analysis import FunctionAnalysis, dotted_name
from .analysis.passed_statics import propagate as propagate_statics
from .analysis.statements import walk_statements
from .analysis.statics import (
    identifiers_literal,
    infer_static_params,
    recompile_warnings,
    static_param_index,
)
from .converters import array_updates, conditionals, loops, masked_reductions, python_values
from .converters.base import Context, Names, Options, WordTrigger, word_char
from .gastconv import NODE_FIELDS, ChildFields, ast_to_gast_original, child_nodes, walk_nodes
from .model import Change, Conversion, FunctionConversion, Location, Refusal, StaticArgument
from .render import Renderer, line_origins_of, splice_block
from .scope import (
    ModuleScope,
    is_jax_module,
    jax_decorated,
    jit_calls,
    module_scope,
    statements_on_lines,
)
from .source import SourceText, after_header_comments, newline_of

_SKIP = re.compile(r"#\s*autojit:\s*skip\b")
_TRANSFORMS = r"(?:jit|vmap|grad|value_and_grad|pmap|jacfwd|jacrev|hessian|checkpoint|remat|convert|scan|fori_loop|while_loop|cond)"
# what `_passed_names` finds (the readable form; tests/test_prescans.py holds it to it)
_PASSED = re.compile(r"\b" + _TRANSFORMS + r"\s*\(\s*([A-Za-z_][A-Za-z_0-9]*)\s*[,)]")
_TRANSFORM_NAMES = _TRANSFORMS[3:-1].split("|")


# `(name,` / `(name)`: the end of a _PASSED match, from its parenthesis
_PASSED_ARGUMENT = re.compile(r"\(\s*([A-Za-z_][A-Za-z_0-9]*)\s*[,)]")


def _passed_names(text: str, names: set[str]) -> set[str]:
    """Which of ``names`` are passed to a jax transform (`jax.jit(f)`): those of
    `_PASSED.findall(text)`. Each `(name,` of one of them is found (a search for a parenthesis,
    cheaper than one for each transform's name), then a transform's name before it."""
    out: set[str] = set()
    for m in _PASSED_ARGUMENT.finditer(text):
        name = m.group(1)
        if name in names and name not in out and _transform_before(text, m.start()):
            out.add(name)
    return out


def _transform_before(text: str, k: int) -> bool:
    """Whether a transform's name (a whole word) ends at ``k``, but for blanks (`\\s*`)."""
    while k > 0 and text[k - 1].isspace():  # (`\\s` is `str.isspace`)
        k -= 1
    for t in _TRANSFORM_NAMES:
        i = k - len(t)
        if i >= 0 and text.startswith(t, i):
            if i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_"):
                return True
    return False


# The converters, in order. Each is a module with `convert(ctx)` and `CODES`.
Converter = Callable[[Context], None]
CONVERTERS: list[Converter] = [
    python_values.convert,  # (reports only: first, on the user's code as written)
    masked_reductions.convert,
    array_updates.convert,
    loops.convert,
    conditionals.convert,
]

# What each converter needs to see in a function's text to have any work there (a superset:
# comments and strings match too). A converter module may define its own `TRIGGER` regex; one
# with neither always runs.
_TRIGGERS: dict[Converter, re.Pattern[str] | WordTrigger] = {
    loops.convert: WordTrigger("for|while"),
    conditionals.convert: WordTrigger(
        # `for` / `while`: a loop's break/continue/return flags become ifs (loops.py);
        # `assert`: one on a traced value is reported (AJ911)
        "if|and|or|not|print|for|while|assert",
        # a chained comparison (`lo < x < hi`): two comparison operators on one line
        r"(?:[<>!=]=|(?<![-<>=!])[<>](?![<>=])|\b(?:in|is)\b)[^\n]*"
        r"(?:[<>!=]=|(?<![-<>=!])[<>](?![<>=])|\b(?:in|is)\b)",
    ),
}


class ConversionError(Exception):
    """A function or file that autojit cannot read or convert."""


@dataclass
class _Candidate:
    node: ast.FunctionDef
    qualname: str


P = ParamSpec("P")
R = TypeVar("R")


def _without_gc(fn: Callable[P, R]) -> Callable[P, R]:
    """Run ``fn`` with the cyclic garbage collector paused: conversion allocates many small
    acyclic nodes, and collection passes over them cost a sixth of the time. Restored after."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            gc.enable()

    return wrapper


@_without_gc
def convert_source(
    text: str,
    filename: str = "<string>",
    *,
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    static_argnames: dict[str, Sequence[str]] | None = None,
    only: Sequence[str] | None = None,
    all_functions: bool = False,
    line_origins: bool = False,
    callers: ast.Module | None = None,
) -> Conversion:
    """Convert every JAX function in ``text``; return the new text, changes and refusals.

    A function is converted when it uses jax, is decorated with or passed to a jax transform
    (``jax.jit(f)``), or ``only``/``all_functions`` asks for it. ``# autojit: skip`` on the
    ``def`` line leaves a function alone. ``line_origins``: also give each changed function's
    :attr:`~autojit.model.FunctionConversion.line_origins` (for tracebacks of converted code).
    ``callers``: the tree of the whole module where ``text`` is part of it (the decorator
    converts a function's own text): a function that changes its argument in place is checked
    against the callers there (AJ908) rather than in ``text``.
    """
    tree = ast.parse(text, filename=filename)
    scope = module_scope(tree)
    options = Options(
        tuple(s.upper() for s in select), tuple(s.upper() for s in ignore), line_origins
    )
    src = SourceText(text)
    src.tree = tree  # type: ignore[attr-defined]  # shared with analyses that read the module
    src.callers = callers  # type: ignore[attr-defined]
    names = Names(scope)
    conversion = Conversion(filename, text, text, tree=tree)
    candidates = _candidates(tree, text, src, scope, only, all_functions)
    jitted = _jit_call_statics(tree, text, scope) if candidates else {}
    plans = {}
    for cand in candidates:
        declared = set((static_argnames or {}).get(cand.qualname, ())) | set(
            (static_argnames or {}).get(cand.node.name, ())
        )
        jit_call = jitted.get(cand.qualname)  # (`g_jit = jax.jit(g, static_argnums=1)`)
        plans[cand.qualname] = _static_plan(cand, src, scope, declared, jit_call)
    passed = _passed_statics(candidates, plans, scope, src, text)
    for cand in candidates:
        result = _convert_function(
            cand, src, scope, names, options, filename, plans[cand.qualname],
            passed.get(cand.qualname, {}),
        )  # fmt: skip
        conversion.functions.append(result)
    needed = _still_needed(names.needed, conversion.functions)
    if needed:
        _insert_imports(src, scope, needed, text)
    conversion.text = src.result()
    # per-function new text (after imports were inserted, positions are by function span)
    return conversion


# A function that jits, times or synchronises jax work itself, or checks results with
# numpy.testing, runs eagerly around traced code: it is a driver, never traced, so using jax
# does not make it a candidate (it still is when decorated, passed to a transform or named).
_EAGER_DRIVER = re.compile(
    r"\bjit\s*\(|\.block_until_ready\s*\(|\bdevice_get\s*\(|\bnp\.testing\.|\bnumpy\.testing\."
    r"|\btime\.(?:perf_counter|time|monotonic)\s*\(|\btimeit\b"
)


def _candidates(tree, text, src, scope, only, all_functions) -> list[_Candidate]:
    aliases = scope.jax_aliases
    if any(m == "jax" or m.startswith("jax.") for m in scope.modules.values()) or any(
        m.startswith("jax.") for m in scope.imported_names.values()
    ):
        # the names a conversion may import (`import jax`, `import jax.numpy as jnp`) count as
        # jax already, so converting the output again picks the same functions (idempotence)
        bound = set(scope.modules) | set(scope.imported_names) | scope.assigned
        bound |= set(scope.functions) | scope.classes
        aliases = aliases | {n for n in ("jax", "jnp") if n not in bound}
    alias_re = (
        re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(aliases))) + r")\b")
        if aliases
        else None
    )
    out: list[_Candidate] = []
    # where the file names jax (whole words, found once): a function uses jax when one lies in
    # its code (no word runs across a line start or a docstring's quotes)
    alias_at = sorted(i for a in aliases for i in _word_at(text, a)) if alias_re is not None else []

    def names_jax(a: int, b: int) -> bool:
        i = bisect.bisect_left(alias_at, a)
        return i < len(alias_at) and alias_at[i] < b

    def consider(node, prefix: str) -> None:
        qual = f"{prefix}{node.name}"
        if _skipped(node, src):
            return
        if only is not None:
            if qual in only or node.name in only:
                out.append(_Candidate(node, qual))
            return
        if all_functions or node.name in passed or jax_decorated(node, scope):
            out.append(_Candidate(node, qual))
            return
        if alias_re is not None:
            start = src.line_starts[node.lineno - 1]
            end = (
                src.line_starts[node.end_lineno]
                if node.end_lineno < len(src.line_starts)
                else len(text)
            )
            if not names_jax(start, end):  # (nor then on either side of its docstring)
                return
            doc = _docstring_span(node, src)
            if (names_jax(start, doc[0]) or names_jax(doc[1], end)) and not _eager_driver(
                text, start, end
            ):
                out.append(_Candidate(node, qual))

    defs: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]] = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs.append((stmt, ""))
        elif isinstance(stmt, ast.ClassDef):
            for sub in stmt.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    defs.append((sub, f"{stmt.name}."))
    # (only the functions of the file are looked up: the names passed of theirs)
    passed = _passed_names(text, {node.name for node, _ in defs}) if only is None else set()
    for node, prefix in defs:
        consider(node, prefix)
    # helpers called by a candidate are traced with it: convert them too. Each candidate is
    # scanned once; a plain text search finds the module functions it may call, and only a
    # candidate whose text names a function not yet converted is walked to confirm the call.
    by_name = {c.node.name for c in out}
    # the words of a candidate's text name the functions it may call (where no identifier is
    # spelled otherwise than the parser reads it; else a substring search)
    words_ok = bool(scope.functions) and identifiers_literal(text)
    words_ok = words_ok and all(n.isascii() for n in scope.functions)
    words: bytes | None = None  # an ASCII text's bytes, every non-word character a blank
    functions: dict[bytes, str] = {}  # (then the module's function names, as bytes)
    k = 0
    while scope.functions and only is None and k < len(out):
        c = out[k]
        k += 1
        start, end = src.stmt_span(c.node)
        if words_ok and text.isascii():  # (the words of `_WORD.findall`, split at blanks)
            if words is None:
                words = text.encode("ascii").translate(_BLANK_NON_WORD)
                functions = {n.encode("ascii"): n for n in scope.functions}
            maybe = {
                functions[w]
                for w in set(words[start:end].split())
                if w in functions and functions[w] not in by_name
            }
        elif words_ok:
            maybe = {
                n
                for n in set(_WORD.findall(text, start, end))
                if n in scope.functions and n not in by_name
            }
        else:
            maybe = {
                n for n in scope.functions if n not in by_name and text.find(n, start, end) >= 0
            }
        if not maybe:
            continue
        # (where each identifier is written as the parser reads it, only the nodes on a line
        # that names one of `maybe` are walked)
        lines = _lines_naming(text, src, maybe, start, end) if words_ok else None
        for n in _calls(c.node, lines):
            if isinstance(n.func, ast.Name) and n.func.id in maybe:
                fn = scope.functions.get(n.func.id)
                if (
                    fn is not None
                    and fn.name not in by_name
                    and not _skipped(fn, src)
                ):
                    out.append(_Candidate(fn, fn.name))
                    by_name.add(fn.name)
    out.sort(key=lambda c: c.node.lineno)
    return out


def _skipped(node, src: SourceText) -> bool:
    """Whether ``# autojit: skip`` stands on the function's `def` line or on another line of
    its signature (a long one ends with `):  # autojit: skip`)."""
    # (the body's first statement with a place: a converted nested function's may be one the
    # conversion put there, `break_ = False` before its loop)
    first = next((getattr(st, "lineno", None) for st in node.body if hasattr(st, "lineno")), None)
    last = first - 1 if first is not None and first > node.lineno else node.lineno
    return any(_SKIP.search(src.line_text(n)) for n in range(node.lineno, last + 1))


_WORD = re.compile(r"\w+")
# bytes.translate table: each ASCII character that `\w` does not match becomes a blank
_BLANK_NON_WORD = bytes(c if chr(c).isalnum() or c == ord("_") else ord(" ") for c in range(128))
_BLANK_NON_WORD += b" " * 128  # (never read: the text is ASCII)
_LEAVES = frozenset({"ctx", "op", "ops", "id", "arg", "attr", "name", "kind", "type_comment"})
_CHILD_FIELDS = ChildFields(_LEAVES)


def _calls(node, lines: list[int] | None = None):
    """Every call inside ``node`` (in no particular order): `ast.walk`, without its cost. With
    ``lines`` (sorted), only the nodes that span one of them are entered, as
    `statics._index_calls` does: a call of a name, and every node around it, spans a line that
    names it (a definition's decorators come before its own line; positions inside an f-string
    are not relied on)."""
    stack = [(node, lines is None)]
    pop, push, AST, Call, Joined = stack.pop, stack.append, ast.AST, ast.Call, ast.JoinedStr
    find, n_lines = bisect.bisect_left, len(lines) if lines is not None else 0
    while stack:
        n, entire = pop()
        kind = type(n)
        if not entire:
            lo = getattr(n, "lineno", None)
            if lo is not None:
                if kind in _DEFINITIONS:
                    for d in n.decorator_list:
                        lo = min(lo, d.lineno)
                i = find(lines, lo)  # type: ignore[arg-type]
                if i == n_lines or lines[i] > (n.end_lineno or lo):  # type: ignore[index]
                    continue
            if kind is Joined:
                entire = True
        if kind is Call:
            yield n
        fields = _CHILD_FIELDS[kind]
        for f in fields:
            v = getattr(n, f, None)
            if type(v) is list:
                for x in v:
                    if isinstance(x, AST):
                        push((x, entire))
            elif v is not None and isinstance(v, AST):
                push((v, entire))


_DEFINITIONS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})


def _lines_naming(text: str, src: SourceText, names: set[str], start: int, end: int) -> list[int]:
    """The lines (1-based, sorted) on which one of ``names`` is written between the offsets
    ``start`` and ``end`` of ``text``."""
    starts, out = src.line_starts, set()
    for name in names:
        i = text.find(name, start, end)
        while i >= 0:
            out.add(bisect.bisect_right(starts, i))
            i = text.find(name, i + 1, end)
    return sorted(out)


def _word_at(text: str, word: str):
    """Where ``word`` stands in ``text`` as a whole word (what `\\bword\\b` matches)."""
    n = len(word)
    i = text.find(word)
    while i >= 0:
        j = i + n
        if (i == 0 or not word_char(text[i - 1])) and (j == len(text) or not word_char(text[j])):
            yield i
        i = text.find(word, i + 1)


# where a match of _EAGER_DRIVER may start: at each of these words, less the offset (`.`
# before block_until_ready, `np.` / `numpy.` before testing.)
_EAGER_STARTS = (
    ("jit", (0,)), ("block_until_ready", (1,)), ("device_get", (0,)), ("testing.", (3, 6)),
    ("time", (0,)),
)  # fmt: skip


def _eager_driver(text: str, start: int, end: int) -> bool:
    """`_EAGER_DRIVER.search(text, start, end)`, tried only where a match may start: before the
    occurrences of a few words (plain text searches)."""
    for word, offsets in _EAGER_STARTS:
        i = text.find(word, start, end)
        while i >= 0:
            for back in offsets:
                if i - back >= start and _EAGER_DRIVER.match(text, i - back, end):
                    return True
            i = text.find(word, i + 1, end)
    return False


def _docstring_span(node, src: SourceText) -> tuple[int, int]:
    """The offsets of a function's docstring (an empty span at its body when it has none):
    a mention of `jnp` in prose does not make a function use jax."""
    first = node.body[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return src.span(first)
    at = src.span(first)[0]
    return at, at


_STATIC_KEYWORD = re.compile(r"\bstatic_arg(?:nums|names)\b")


def _object_parameters(names: set[str], text: str) -> set[str]:
    """Those of ``names`` (parameters of the function whose code is ``text``) read only through
    their attributes, one of them a value (`cfg.n`, `self.size`; not only methods called,
    `mode.lower()`, nor an array's `.shape`): objects, not numbers, strings or callables. Read
    from the text (a mention in a comment or a string counts as a read otherwise)."""
    return {n for n in names if _object_by_text(text, n)}


_ARRAY_ATTRIBUTES = frozenset({"shape", "ndim", "dtype", "size", "T"})


def _object_by_text(text: str, name: str) -> bool:
    """Whether every whole-word ``name`` of ``text`` but one (its parameter) is followed by
    `.attribute`, none an array's attribute, one of them not called."""
    data, other = False, 0
    n = len(text)
    for i in _word_at(text, name):
        j = i + len(name)
        while j < n and text[j] in " \t\r\n":
            j += 1
        if j >= n or text[j] != ".":
            other += 1
            if other > 1:
                return False
            continue
        k = j + 1
        while k < n and text[k] in " \t":
            k += 1
        e = k
        while e < n and word_char(text[e]):
            e += 1
        if text[k:e] in _ARRAY_ATTRIBUTES:
            return False
        while e < n and text[e] in " \t":
            e += 1
        if e >= n or text[e] != "(":
            data = True
    return data


def _attribute_reason(reason: str) -> str:
    """A static-argument reason ("it is the `shape` of ...") said of an attribute."""
    return reason[3:] if reason.startswith("it ") else f"makes it static ({reason})"


def _jit_call_statics(tree, text: str, scope: ModuleScope) -> dict[str, tuple[set[str], Any]]:
    """The static arguments the module gives where it jits one of its functions by a call
    (`g_jit = jax.jit(g, static_argnums=1)`, `partial(jax.jit, static_argnames="k")(g)`), by
    function name, with the (first) call: they are static there as a decorator's are (a name
    a function around the call binds is not the module's)."""
    if "static_arg" not in text:
        return {}
    # (only the top-level statements on whose lines the keyword is written are walked)
    roots = statements_on_lines(tree.body, text, _STATIC_KEYWORD)
    out: dict[str, tuple[set[str], Any]] = {}
    for name, sites in jit_calls(roots, scope).items():
        fn = scope.functions.get(name)
        if fn is None:
            continue
        for jit_call, _kind in sites:
            given = _static_keywords(jit_call, fn)
            if given:
                before = out.get(name)
                out[name] = (before[0] | given, before[1]) if before else (given, jit_call)
    return out


def declared_static(fn, scope: ModuleScope) -> set[str]:
    """Static arguments the user declared in a jit / partial(jit) / autojit.convert decorator."""
    out: set[str] = set()
    for d in fn.decorator_list:
        if isinstance(d, ast.Call):
            out |= _static_keywords(d, fn)
    return out


def _static_keywords(call, fn) -> set[str]:
    """The parameters of ``fn`` (an ast function) that a jit call's `static_argnames` /
    `static_argnums` keywords name."""
    out: set[str] = set()
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    for kw in call.keywords:
        if kw.arg == "static_argnames":
            for c in walk_nodes(kw.value):
                if isinstance(c, ast.Constant) and isinstance(c.value, str):
                    out.add(c.value)
        elif kw.arg == "static_argnums":
            for c in walk_nodes(kw.value):
                if (
                    isinstance(c, ast.Constant)
                    and isinstance(c.value, int)
                    and -len(params) <= c.value < len(params)
                ):
                    out.add(params[c.value])
    return out


def _wants(convert: Converter, text: str) -> bool:
    """Whether ``convert`` may have work in a function with this source text (a cheap scan)."""
    trigger = _TRIGGERS.get(convert)
    if trigger is None:
        module = sys.modules.get(getattr(convert, "__module__", ""), None)
        trigger = getattr(module, "TRIGGER", None)
    return trigger is None or trigger.search(text) is not None


@dataclass
class _StaticPlan:
    """The static parameters of a candidate, before it is converted: the user's (``declared``:
    given to ``convert_source``, or in a jit decorator), the module's jit call's, the
    inferred ones, and the function's code text (its docstring left out)."""

    declared: set[str]
    user_static: set[str]
    inferred: list
    jit_call: tuple[set[str], Any] | None
    code_text: str
    objects: set[str]

    @property
    def names(self) -> set[str]:
        """The parameters static in the conversion (an object read by its attributes is not:
        AJ944)."""
        out = self.user_static | ({r.name for r in self.inferred} - self.objects)
        return out | self.jit_call[0] if self.jit_call is not None else out


def _static_plan(
    cand, src: SourceText, scope: ModuleScope, declared: set[str], jit_call
) -> _StaticPlan:
    fn_ast = cand.node
    start, end = src.stmt_span(fn_ast)
    original_text = src.original((start, end))
    # a docstring is prose, not code: its "if" or "and" does not make a converter run
    doc_start, doc_end = _docstring_span(fn_ast, src)
    code_text = original_text[: doc_start - start] + original_text[doc_end - start :]
    a = fn_ast.args
    may_infer = bool(a.args or a.posonlyargs or a.kwonlyargs)  # static inference needs params
    user_static = declared | declared_static(fn_ast, scope)
    # static arguments are inferred on the plain ast (a function with no converter to run is
    # never converted to gast)
    inferred = infer_static_params(fn_ast, scope) if may_infer else []
    if jit_call is not None:
        inferred = [r for r in inferred if r.name not in jit_call[0] | user_static]
    objects = _object_parameters({r.name for r in inferred} - user_static, code_text)
    return _StaticPlan(declared, user_static, inferred, jit_call, code_text, objects)


def _passed_statics(candidates, plans, scope: ModuleScope, src: SourceText, text: str):
    """qualified name -> parameter -> (calling function, call): the parameters of the
    module's helpers that every call in the module passes a static value
    (:mod:`autojit.analysis.passed_statics`). Only the helpers a function with a static
    parameter names are looked at; their calls are found on the lines that name them, and
    they count only where the module writes their name nowhere else (the words of its text,
    counted once: an attribute of that name counts too, which only leaves a helper out)."""
    helpers = {c.qualname for c in candidates if scope.functions.get(c.qualname) is c.node}
    if not helpers or not identifiers_literal(text) or not text.isascii():
        return {}
    # (the words of each candidate's text, as the module's bytes split at every non-word
    # character; only the helpers' names among them are kept)
    blanked = text.encode("ascii").translate(_BLANK_NON_WORD)
    names_b = {h.encode("ascii"): h for h in helpers}
    words_of: dict[str, set[str]] = {}
    for c in candidates:
        start, end = src.stmt_span(c.node)
        words_of[c.qualname] = {names_b[w] for w in set(blanked[start:end].split()) & names_b.keys()}
    relevant: set[str] = set()
    for c in candidates:
        if plans[c.qualname].names:
            relevant |= (words_of[c.qualname] & helpers) - {c.qualname}
    todo = list(relevant)  # (and the helpers those name: a static value passed on)
    while todo:
        more = (words_of[todo.pop()] & helpers) - relevant
        relevant |= more
        todo += more
    if not relevant:
        return {}
    wanted = {h.encode("ascii") for h in relevant}
    counts = collections.Counter(names_b[w] for w in blanked.split() if w in wanted)
    sites: dict[str, list[tuple[str, ast.Call]]] = {}
    for name in sorted(relevant):
        found: list[tuple[str, ast.Call]] = []
        for c in candidates:
            if name not in words_of[c.qualname]:
                continue
            start, end = src.stmt_span(c.node)
            lines = _lines_naming(text, src, {name}, start, end)
            found += [
                (c.qualname, call)
                for call in _calls(c.node, lines)
                if isinstance(call.func, ast.Name) and call.func.id == name
            ]
        # (every word of the name is its `def` or one of these calls; a function only
        # calling itself is an entry point of its own)
        if counts[name] == 1 + len(found) and any(c != name for c, _ in found):
            sites[name] = found
    if not sites:
        return {}
    functions = {c.qualname: (c.node, plans[c.qualname].names) for c in candidates}
    # (each caller's body, its signature left out: `def f(x, n=3):` rebinds nothing)
    callers = {c for found in sites.values() for c, _ in found}
    texts = {
        c.qualname: text[src.line_starts[c.node.body[0].lineno - 1] : src.stmt_span(c.node)[1]]
        for c in candidates
        if c.qualname in callers
    }
    return propagate_statics(functions, sites, texts)


def _convert_function(
    cand, src, scope, names, options, filename, plan: _StaticPlan, passed=None
) -> FunctionConversion:
    fn_ast = cand.node
    start, end = src.stmt_span(fn_ast)
    original_text = src.original((start, end))
    loc = Location(filename, fn_ast.lineno, fn_ast.col_offset + 1)
    result = FunctionConversion(fn_ast.name, cand.qualname, loc, original_text, original_text)
    code_text = plan.code_text
    active = [c for c in CONVERTERS if _wants(c, code_text)]
    a = fn_ast.args
    may_infer = bool(a.args or a.posonlyargs or a.kwonlyargs)
    if not active and not may_infer and not plan.declared and not fn_ast.decorator_list:
        return result  # nothing to convert and nothing to infer: no gast parse at all

    user_static, inferred, jit_call = plan.user_static, plan.inferred, plan.jit_call
    static_names = set(user_static) | {r.name for r in inferred}
    for pname in sorted(user_static, key=lambda n: (static_param_index(fn_ast, n) is None, n)):
        result.static_arguments.append(
            StaticArgument(pname, static_param_index(fn_ast, pname), loc, "declared static", True)
        )
    if jit_call is not None:
        # static where the module jits it by a call: static in the conversion as a decorator's
        # are (and warned about by AJ402 where it takes many values: the call is not the
        # function's own declaration)
        names_given, at = jit_call
        for pname in sorted(names_given - user_static):
            static_names.add(pname)
            result.static_arguments.append(
                StaticArgument(
                    pname,
                    static_param_index(fn_ast, pname),
                    Location(filename, at.lineno, src.char_col(at.lineno, at.col_offset) + 1),
                    "it is declared static where the module jits the function (`jax.jit(...)`)",
                )
            )
    for pname, (caller, call) in sorted((passed or {}).items()):
        # (a helper's parameter every call in the module gives a static value)
        static_names.add(pname)
        result.static_arguments.append(
            StaticArgument(
                pname,
                static_param_index(fn_ast, pname),
                Location(filename, call.lineno, src.char_col(call.lineno, call.col_offset) + 1),
                f"every call of `{fn_ast.name}` in the module passes it a static value "
                f"(`{caller}`, line {call.lineno})",
            )
        )
    objects = plan.objects
    for r in inferred:
        if r.name in user_static:
            continue
        line = getattr(r.node, "lineno", fn_ast.lineno)
        col = getattr(r.node, "col_offset", 0)
        if r.name in objects:
            if options.enabled("AJ944"):
                result.refusals.append(
                    Refusal(
                        "AJ944",
                        Location(filename, line, src.char_col(line, col) + 1),
                        f"`{r.name}` is an object whose attribute {_attribute_reason(r.reason)}, "
                        f"so jit needs `{r.name}` static; not made static for you: jax keeps "
                        f"the trace for "
                        f"as long as the argument hashes equal, by identity for most objects, "
                        f"so a changed attribute would be ignored; pass the attribute as an "
                        f"argument, or declare `static_argnames=('{r.name}',)` for an "
                        f"immutable value (a frozen dataclass, a NamedTuple)",
                    )
                )
            continue
        result.static_arguments.append(
            StaticArgument(
                r.name,
                static_param_index(fn_ast, r.name),
                Location(filename, line, src.char_col(line, col) + 1),
                r.reason,
            )
        )
    if options.enabled("AJ402"):
        result.changes.extend(recompile_warnings(fn_ast, result.static_arguments, src, filename))
    if not active:
        return result
    fn = ast_to_gast_original(fn_ast)  # every node marked original as it is made

    # Each converter sees the tree as the previous ones left it, with analyses computed afresh
    # once for that pass and shared by everything in it (reused while the tree is unchanged).
    # Nested functions (user's or generated) are converted innermost first; each sees its
    # enclosing function's values. A converter whose trigger is absent from the function's
    # text has nothing to do there and is skipped.
    ctxs: list[Context] = []
    units = None
    last: list[tuple[Context, FunctionAnalysis]] = []
    for convert in active:
        if units is None or any(
            c.changes or c.tree_changed or c.analysis is not a for c, a in last
        ):
            units = analyse_units(fn, scope, static_names)  # the tree may have changed
        last = []
        for unit, analysis in reversed(units):
            if unit is not fn and getattr(unit, "_aj_orig", False) and _skipped(unit, src):
                continue  # (`# autojit: skip` on a nested function's `def` line)
            ctx = Context(filename, src, scope, unit, analysis, names, options)
            convert(ctx)
            ctxs.append(ctx)
            last.append((ctx, analysis))
    # a later converter may put back statements an earlier one rewrote (loops.py: item updates
    # of a loop it leaves as written): the changes reported there are dropped
    retracted = set().union(*(getattr(c.fn, "_aj_retracted", ()) for c in ctxs))
    # and dead code after a loop's break/continue/return is left out of the converted loop:
    # what was reported inside it is not in the output either
    dropped = [d for c in ctxs for d in getattr(c.fn, "_aj_dropped", ())]
    result.updated_arguments = sorted(set().union(*(c.updated_params for c in ctxs if c.fn is fn)))
    for ctx in ctxs:
        result.changes.extend(
            c for c in ctx.changes if c.location not in retracted and not _within(c, dropped)
        )
        result.refusals.extend(r for r in ctx.refusals if not _within(r, dropped))
    if result.changes:
        shadowed = _shadowed_module_name(fn, scope, original_text)
        if shadowed is not None:
            # (left as it is: the text is only changed by the splice below)
            result.changes = []
            result.updated_arguments = []
            result.refusals.append(
                Refusal(
                    "AJ922",
                    loc,
                    f"the converted code would read `{shadowed}` as jax's module, and "
                    f"`{fn_ast.name}` (or the module) binds `{shadowed}` to something else: "
                    f"rename that name, then convert again",
                )
            )
    if result.changes:
        renderer = Renderer(src, _indent_unit(src, fn_ast))
        splice_block(renderer, src, fn, "body")
    new_end = src.end_with_edits(start, end)
    result.new_text = src.text((start, new_end))
    if new_end > end:  # (its last statement removed with its line: ends at code, as before)
        result.new_text = result.new_text.rstrip("\r\n")
    if options.line_origins and result.changed:
        result.line_origins = line_origins_of(fn, src, start, new_end, result.new_text)
    return result


def _shadowed_module_name(fn, scope: ModuleScope, written: str) -> str | None:
    """A name the converted function's generated code reads as a jax module (`jax`, `jnp`,
    `lax`, the file's alias) where the function binds it (a parameter, an assignment, a nested
    `def`; in the scope of that code or one around it), or the module binds it to something
    other than a jax module: there the generated `lax.fori_loop(...)` would read the
    function's own `lax`. ``written``: the function's text as the user wrote it (generated code
    binds none of these names)."""
    heads = {n for n, full in scope.modules.items() if is_jax_module(full)}
    names = heads | {"jax", "jnp", "lax"}
    module_bound = {n for n in ("jax", "jnp", "lax") if scope.binds(n) and n not in heads}
    if not module_bound and not _may_bind_any(written, names):
        return None  # (the cheap case: each of them written only as `name.attribute`)
    stack: list[tuple[Any, frozenset[str]]] = [(fn, frozenset())]
    while stack:
        f, outer = stack.pop()
        own, loads, inner = _own_scope(f)
        visible = outer | own
        for n in loads:
            if n in module_bound or (n in names and n in visible):
                return n
        stack.extend((g, visible) for g in inner)
    return None


def _may_bind_any(text: str, names: set[str]) -> bool:
    """Whether ``text`` may bind one of ``names``: an `import`, or one of them written other
    than as the head of an attribute (`lax.cond`; a binding, `lax = ...`, `def f(lax)`, `for
    lax in`, `as lax`, is never followed by a dot)."""
    if _IMPORT_STATEMENT.search(text):
        return True
    for n in names:
        for i in _word_at(text, n):
            j = i + len(n)
            while j < len(text) and text[j] in " \t":
                j += 1
            if j == len(text) or text[j] != ".":
                return True
    return False


_IMPORT_STATEMENT = re.compile(r"\bimport\b")
_NEW_SCOPES = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def _own_scope(f) -> tuple[set[str], list[str], list]:
    """For a gast function: the names its own scope binds (not a lambda's, a comprehension's
    or a nested function's: their own), the names its generated code reads there, and the
    functions defined in it."""
    own: set[str] = set()
    loads: list[str] = []
    inner: list = []
    stack = [f.args, *f.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            own.add(node.name)
            if not isinstance(node, gast.ClassDef):
                inner.append(node)
            stack.extend(node.decorator_list)
            continue
        if isinstance(node, _NEW_SCOPES):
            continue
        if isinstance(node, gast.Name):
            if isinstance(node.ctx, gast.Load):
                if not node.__dict__.get("_aj_orig", False):
                    loads.append(node.id)
            else:
                own.add(node.id)
        elif isinstance(node, gast.Import):  # (`import jax.numpy as jnp` inside: jax's own)
            own.update(
                (a.asname or a.name).partition(".")[0]
                for a in node.names
                if not is_jax_module(a.name)
            )
        elif isinstance(node, gast.ImportFrom) and not is_jax_module(node.module or ""):
            own.update(a.asname or a.name for a in node.names)
        for field in NODE_FIELDS[type(node)]:  # (its children but contexts and operators)
            v = getattr(node, field, None)
            if type(v) is list:
                stack.extend([x for x in v if isinstance(x, ast.AST)])
            elif isinstance(v, ast.AST):
                stack.append(v)
    return own, loads, inner


def _within(report: Change | Refusal, spans: list[Location]) -> bool:
    """Whether ``report`` points inside one of ``spans``."""
    at = report.location
    return any(
        (s.line, s.col) <= (at.line, at.col) and (at.end_line, at.end_col) <= (s.end_line, s.end_col)
        for s in spans
    )


def _indent_unit(src: SourceText, fn_ast) -> str:
    """One level of indentation as the function's own body writes it (2 spaces, a tab...)."""
    first = fn_ast.body[0]
    if first.lineno > fn_ast.lineno and src.starts_line(first):
        inner, outer = src.indent_of(first), src.indent_of(fn_ast)
        if inner.startswith(outer) and len(inner) > len(outer):
            return inner[len(outer) :]
    return "    "


def analyse_units(fn, scope: ModuleScope, static_names: set[str]):
    """(function, analysis) for ``fn`` and every function nested in it, outermost first."""
    out: list = []
    _analyse_unit(fn, {}, scope, static_names, out)
    return out


def _analyse_unit(
    unit, enclosing, scope: ModuleScope, static_names: set[str], out: list, activity=None
) -> None:
    # a module function, not a recursive closure: that is a reference cycle, which keeps the
    # tree and its analyses alive until the garbage collector runs
    statics = static_names if not out else set()
    analysis = FunctionAnalysis(unit, scope, statics, enclosing, activity)
    out.append((unit, analysis))
    for s in walk_statements(unit.body):  # (a function's body not entered)
        if not isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef)):
            continue
        # (the activity of its statements, computed here for its free reads: the tree is the same)
        inner = analysis.activity.take_nested(s)
        _analyse_unit(s, {**enclosing, **analysis.env_before(s)}, scope, static_names, out, inner)


def _depth(root, target) -> int:
    def walk(node, d):
        if node is target:
            return d
        for child in child_nodes(node):
            r = walk(child, d + 1)
            if r is not None:
                return r
        return None

    return walk(root, 0) or 0


def _still_needed(needed: set[str], functions: list[FunctionConversion]) -> set[str]:
    """The imports to add: those the changed functions' new text uses (a rewrite may have been
    taken back after it asked for its module, as in a refused `if` whose test is put back)."""
    texts = [f.new_text for f in functions if f.changed]
    if not needed or not texts:
        return set()
    words = {m: _IMPORT_WORD.get(m) for m in needed}
    uses = {w: any(_word_in(t, w) for t in texts) for w in set(words.values()) if w is not None}
    return {m for m, w in words.items() if w is None or uses[w]}


# the word that code using a module added by `_insert_imports` writes
_IMPORT_WORD = {"jax": "jax", "jax.lax": "jax", "jax.numpy": "jnp"}


def _word_in(text: str, word: str) -> bool:
    return next(_word_at(text, word), None) is not None


def _insert_imports(src: SourceText, scope: ModuleScope, needed: set[str], text: str) -> None:
    nl = newline_of(text)
    lines = []
    if "jax" in needed or ("jax.lax" in needed and not scope.alias_for("jax")):
        if not scope.alias_for("jax"):
            lines.append("import jax")
    if "jax.numpy" in needed:
        lines.append("import jax.numpy as jnp")
    if not lines:
        return
    block = nl.join(lines)
    after = scope.last_import_end
    if not after:  # (no docstring and no import opens the module: at its top, after a `#!`)
        pos = after_header_comments(text)
    else:
        pos = src.line_starts[after] if after < len(src.line_starts) else len(text)
    if pos == len(text) and not text.endswith(("\n", "\r")):
        src.replace(pos, pos, nl + block + nl)  # (after a last line with no line end)
    else:
        src.replace(pos, pos, block + nl)


__all__ = ["convert_source", "ConversionError", "CONVERTERS", "dotted_name"]
