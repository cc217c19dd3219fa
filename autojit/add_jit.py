"""``autojit convert --add-jit``: give converted functions a ``jax.jit`` decorator.

Works on the text that :func:`autojit.convert_source` produced: each function that was changed
gets ``@jax.jit``, or ``@partial(jax.jit, static_argnames=(...))`` when it has static arguments.
An existing ``@jax.jit`` / ``@jit`` / ``@jax.jit(...)`` / ``@partial(jax.jit, ...)`` decorator
(on any converted function, changed or not) gets the inferred static arguments it lacks. The
file's own names for ``jax``, ``jax.jit`` and ``functools.partial`` are reused; ``import jax`` and
``from functools import partial`` are added only when the file has no name for them. Nothing
here imports jax or autojit into the output.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .gastconv import child_nodes
from .model import Conversion, FunctionConversion, Location
from .scope import (
    ModuleScope,
    jit_calls,
    jit_decorator_kind,
    module_scope,
    resolved_name,
)
from .source import SourceText, after_header_comments, newline_of

# decorators that jit can sit on top of (they keep the signature through functools.wraps)
_JAX_TRANSFORMS = {
    "jax.vmap",
    "jax.grad",
    "jax.value_and_grad",
    "jax.jacfwd",
    "jax.jacrev",
    "jax.hessian",
    "jax.checkpoint",
    "jax.remat",
}


@dataclass(frozen=True)
class Note:
    """Why ``--add-jit`` left a function's decorators as they are."""

    location: Location
    message: str

    def __str__(self) -> str:
        return f"{self.location}: note: {self.message}"


@dataclass
class _Edit:
    start: int
    end: int
    text: str


def _top_level_functions(
    tree: ast.Module,
) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    out: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append((stmt.name, stmt))
        elif isinstance(stmt, ast.ClassDef):
            for sub in stmt.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out.append((f"{stmt.name}.{sub.name}", sub))
    return out


class _Namer:
    """The file's names for jax.jit and functools.partial; the imports that must be added."""

    def __init__(self, scope: ModuleScope) -> None:
        self.scope = scope
        self.imports: list[str] = []

    def _taken(self, name: str) -> bool:
        return self.scope.binds(name)

    def jit(self) -> str:
        for local, full in self.scope.imported_names.items():
            if full == "jax.jit":
                return local
        alias = self.scope.alias_for("jax")
        if alias:
            return f"{alias}.jit"
        self._add("import jax")
        return "jax.jit"

    def partial(self) -> str:
        for local, full in self.scope.imported_names.items():
            if full == "functools.partial":
                return local
        alias = self.scope.alias_for("functools")
        if alias:
            return f"{alias}.partial"
        if not self._taken("partial"):
            self._add("from functools import partial")
            return "partial"
        self._add("import functools")
        return "functools.partial"

    def _add(self, line: str) -> None:
        if line not in self.imports:
            self.imports.append(line)


def _literal_strings(node: ast.AST) -> list[str] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List)):
        out = []
        for e in node.elts:
            if not (isinstance(e, ast.Constant) and isinstance(e.value, str)):
                return None
            out.append(e.value)
        return out
    return None


def _literal_ints(node: ast.AST) -> list[int] | None:
    def one(e: ast.AST) -> int | None:
        if isinstance(e, ast.Constant) and type(e.value) is int:
            return e.value
        if (
            isinstance(e, ast.UnaryOp)
            and isinstance(e.op, ast.USub)
            and isinstance(e.operand, ast.Constant)
            and type(e.operand.value) is int
        ):
            return -e.operand.value
        return None

    if isinstance(node, (ast.Tuple, ast.List)):
        out = []
        for e in node.elts:
            v = one(e)
            if v is None:
                return None
            out.append(v)
        return out
    v = one(node)
    return None if v is None else [v]


def _tuple_text(values: list[str]) -> str:
    inner = ", ".join(values)
    return f"({inner},)" if len(values) == 1 else f"({inner})"


def add_jit(text: str, conversion: Conversion) -> tuple[str, list[Note]]:
    """Return ``text`` (the conversion's output) with jit decorators added or completed."""
    original_tree = ast.parse(conversion.original)
    tree = ast.parse(text)
    scope = module_scope(tree)
    src = SourceText(text)
    nl = newline_of(text)
    namer = _Namer(scope)
    notes: list[Note] = []
    edits: list[_Edit] = []

    # match each converted function with its def in `text` (only bodies were rewritten, so the
    # k-th top-level def named N in the original is the k-th one named N in `text`)
    old = _top_level_functions(original_tree)
    new = _top_level_functions(tree)
    calls = jit_calls([tree], scope)
    for fc in conversion.functions:
        ordinal = [q for q, n in old if q == fc.qualname and n.lineno < fc.location.line]
        same = [n for q, n in new if q == fc.qualname]
        if len(ordinal) >= len(same):
            continue
        node = same[len(ordinal)]
        sites = calls.get(fc.qualname, []) if len(same) == 1 else []
        edits.extend(_function_edits(fc, node, sites, scope, src, namer, notes, nl))

    if namer.imports:
        edits.append(_import_edit(src, text, nl, namer.imports, scope.last_import_end))
    for e in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        text = text[: e.start] + e.text + text[e.end :]
    return text, notes


def _statics(fc: FunctionConversion, node: ast.FunctionDef | ast.AsyncFunctionDef):
    posonly = [a.arg for a in node.args.posonlyargs]
    positional = posonly + [a.arg for a in node.args.args]
    named = positional + [a.arg for a in node.args.kwonlyargs]
    seen: set[str] = set()
    out = []
    for s in fc.static_arguments:
        if s.name in named and s.name not in seen:
            seen.add(s.name)
            out.append(s.name)
    out.sort(key=named.index)
    return out, posonly, positional


def _function_edits(
    fc: FunctionConversion,
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    sites: list[tuple[ast.Call, str]],
    scope: ModuleScope,
    src: SourceText,
    namer: _Namer,
    notes: list[Note],
    nl: str,
) -> list[_Edit]:
    statics, posonly, positional = _statics(fc, node)
    jits = [(d, k) for d in node.decorator_list if (k := jit_decorator_kind(d, scope))]
    loc = fc.location

    if jits:
        dec, kind = jits[0]
        return _merge(dec, kind, statics, posonly, positional, src, namer, notes, loc)
    if sites and "." not in fc.qualname:
        # `g = jax.jit(f)`: jitting `f` again would hide its static arguments from that call
        out: list[_Edit] = []
        for call, kind in sites:
            out += _merge(call, kind, statics, posonly, positional, src, namer, notes, loc)
        return out

    if not fc.changed:
        return []
    if "." in fc.qualname:
        notes.append(Note(loc, f"--add-jit: `{fc.qualname}` is a method; add jax.jit by hand"))
        return []
    if isinstance(node, ast.AsyncFunctionDef):
        notes.append(Note(loc, f"--add-jit: `{fc.name}` is async; not adding jax.jit"))
        return []
    for d in node.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        q = resolved_name(target, scope)
        if q is not None and (q.startswith("autojit.") or q == "autojit"):
            return []  # @autojit.convert already jits it
        if q not in _JAX_TRANSFORMS:
            shown = src.original(src.span(d))
            notes.append(
                Note(loc, f"--add-jit: `{fc.name}` has decorator @{shown}; add jax.jit by hand")
            )
            return []
    if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _own_nodes(node)):
        notes.append(Note(loc, f"--add-jit: `{fc.name}` is a generator; not adding jax.jit"))
        return []
    star = (
        f"*{node.args.vararg.arg}"
        if node.args.vararg is not None
        else f"**{node.args.kwarg.arg}" if node.args.kwarg is not None else None
    )
    if star is not None:
        # (an item used as a shape or flag needs to be static, which jax.jit cannot make it)
        notes.append(
            Note(
                loc,
                f"--add-jit: `{fc.name}` takes `{star}`, whose items jax.jit cannot make "
                f"static; add jax.jit by hand",
            )
        )
        return []

    jit = namer.jit()
    plan = _plan(statics, posonly, positional, None, None)
    if plan is not None:
        decorator = f"@{namer.partial()}({jit}, {', '.join(_keywords(*plan))})"
    else:
        decorator = f"@{jit}"
    first = min([d.lineno for d in node.decorator_list] + [node.lineno])
    indent = src.indent_of(node)
    pos = src.line_starts[first - 1]
    return [_Edit(pos, pos, f"{indent}{decorator}{nl}")]


def _own_nodes(fn: ast.AST):
    """Nodes of ``fn`` not inside nested functions, lambdas or classes."""
    stack = list(child_nodes(fn))
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(child_nodes(n))


def _plan(
    statics: list[str],
    posonly: list[str],
    positional: list[str],
    have_names: list[str] | None,
    have_nums: list[int] | None,
) -> tuple[list[int] | None, list[str] | None] | None:
    """The static_argnums / static_argnames a jit decorator needs (None: leave that keyword
    out), or None when the decorator already covers every static argument.

    jax.jit fills in one of the two from the signature only when the other is not given; when
    both are given, a parameter is static only in the form(s) it is listed in. So the result is
    either one complete list, or two lists that each name every static parameter they can.
    """
    n = len(positional)
    nums_norm = [k % n for k in have_nums or [] if -n <= k < n]
    covered = set(have_names or []) | {positional[k] for k in nums_norm}
    missing = [s for s in statics if s not in covered]
    if not missing:
        return None
    every = [*(have_names or []), *(positional[k] for k in nums_norm), *missing]
    every = list(dict.fromkeys(every))
    all_positional = all(s in positional for s in every)
    no_posonly = all(s not in posonly for s in every)
    if have_nums is not None and have_names is None and all_positional:
        return have_nums + [positional.index(s) for s in missing], None
    if have_nums is None and no_posonly:
        return None, (have_names or []) + missing
    if have_nums is None and have_names is None and all_positional:
        return [positional.index(s) for s in missing], None
    nums = list(have_nums or [])
    for s in every:
        if s in positional and positional.index(s) not in nums_norm:
            nums.append(positional.index(s))
            nums_norm.append(positional.index(s))
    names = list(have_names or [])
    names += [s for s in every if s not in posonly and s not in names]
    return nums, names


def _keywords(nums: list[int] | None, names: list[str] | None) -> list[str]:
    out = []
    if nums is not None:
        out.append(f"static_argnums={_tuple_text([str(k) for k in nums])}")
    if names is not None:
        out.append(f"static_argnames={_tuple_text([repr(s) for s in names])}")
    return out


def _merge(
    dec: ast.expr,
    kind: str,
    statics: list[str],
    posonly: list[str],
    positional: list[str],
    src: SourceText,
    namer: _Namer,
    notes: list[Note],
    loc: Location,
) -> list[_Edit]:
    """Edits that add the missing static arguments to an existing jit decorator."""
    have_names: list[str] | None = None
    have_nums: list[int] | None = None
    kw_names: ast.keyword | None = None
    kw_nums: ast.keyword | None = None
    if isinstance(dec, ast.Call):
        for kw in dec.keywords:
            if kw.arg == "static_argnames":
                have_names = _literal_strings(kw.value)
                if have_names is None:
                    notes.append(
                        Note(loc, "--add-jit: static_argnames is not a literal; left as is")
                    )
                    return []
                kw_names = kw
            elif kw.arg == "static_argnums":
                have_nums = _literal_ints(kw.value)
                if have_nums is None:
                    notes.append(
                        Note(loc, "--add-jit: static_argnums is not a literal; left as is")
                    )
                    return []
                kw_nums = kw
            elif kw.arg is None:
                notes.append(Note(loc, "--add-jit: jit decorator takes **kwargs; left as is"))
                return []
    plan = _plan(statics, posonly, positional, have_names, have_nums)
    if plan is None:
        return []
    nums, names = plan

    if kind == "bare":
        start, end = src.span(dec)
        text = (
            f"{namer.partial()}({src.original((start, end))}, {', '.join(_keywords(nums, names))})"
        )
        return [_Edit(start, end, text)]

    assert isinstance(dec, ast.Call)
    edits: list[_Edit] = []
    appended: list[str] = []
    pending: list[tuple[ast.keyword | None, bool, str]] = [
        (kw_nums, nums is not None and nums != have_nums, _keywords(nums, None)[0] if nums else ""),
        (
            kw_names,
            names is not None and names != have_names,
            _keywords(None, names)[0] if names else "",
        ),
    ]
    for existing, differs, text in pending:
        if not differs:
            continue
        if existing is not None:
            start, end = src.span(existing.value)
            edits.append(_Edit(start, end, text.partition("=")[2]))
        else:
            appended.append(text)
    if appended:
        last = [*dec.args, *dec.keywords]
        if last:
            pos = max(src.span(a)[1] for a in last)
            edits.append(_Edit(pos, pos, ", " + ", ".join(appended)))
        else:
            pos = src.span(dec)[1] - 1  # before the closing parenthesis of `jax.jit()`
            edits.append(_Edit(pos, pos, ", ".join(appended)))
    return edits


def _import_edit(
    src: SourceText, text: str, nl: str, lines: list[str], last_import_end: int
) -> _Edit:
    """The imports go where the module scope says (``last_import_end``: after the module's
    first import of jax, else after the imports and docstring that open it), else at the top
    of the file, after a `#!` line and an encoding declaration."""
    block = nl.join(lines) + nl
    after = last_import_end
    if after == 0:
        pos = after_header_comments(text)
    else:
        pos = src.line_starts[after] if after < len(src.line_starts) else len(text)
    if pos == len(text) and not text.endswith(("\n", "\r")):
        # the import / docstring is the last line and has no line ending
        return _Edit(pos, pos, nl + block.rstrip("\r\n"))
    return _Edit(pos, pos, block)
