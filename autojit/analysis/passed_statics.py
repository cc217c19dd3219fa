"""Static values passed into helpers: which parameters of a function every caller gives a
static value (a Python value at trace time).

A helper called as ``head(x, n)`` from a function jitted with ``n`` static receives a Python
int for its ``n``. Converted on its own, the helper would take ``n`` for a traced value: its
``if n > 2:`` would become a ``lax.cond`` with ``n`` an int32 operand (Python's ints never
overflow, int32 ones wrap) whose branches must agree in shape, where the Python ``if`` it was
ran fine under jit. Where every call passes a static value, the parameter is static in the
helper too, as it is at run time.

A value is static at a call when it is a literal, a static parameter of the caller that the
caller never rebinds, a shape-like property of any value (``len(x)``, ``x.shape[0]``,
``x.ndim``), or arithmetic, comparisons and tuples of static values.

Both users of this module ask the same question of one call site: the pipeline (every call in
the module, with a fixed point for helpers that pass their own parameters on, recursion too) and
the decorator (each converted function's calls, as it binds a converted helper into it).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from ..gastconv import walk_bfs, walk_nodes

_SHAPE_ATTRIBUTES = frozenset({"shape", "ndim", "size", "dtype"})
_LITERALS = (int, float, complex, bool, str, bytes, type(None))


# the node classes that may bind a name (`rebound_names` reads only those)
_BINDING_NODES = frozenset(
    {
        ast.Name, ast.arg, ast.Global, ast.Nonlocal, ast.alias, ast.FunctionDef,
        ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler, ast.MatchAs, ast.MatchStar,
        ast.MatchMapping,
    }
)  # fmt: skip


def rebound_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names ``fn`` (an ``ast`` function) binds anywhere in its body, in nested functions,
    lambdas and comprehensions too (a static parameter rebound there may hold another value)."""
    out: set[str] = set()
    a = fn.args
    own = {id(p) for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if p}
    binders = _BINDING_NODES
    for node in walk_bfs(fn):
        if type(node) not in binders or node is fn or id(node) in own:
            continue  # (most nodes bind nothing: one set lookup for them)
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            out.add(node.id)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            out.update(node.names)
        elif isinstance(node, ast.alias):
            out.add((node.asname or node.name).partition(".")[0])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            out.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            out.add(node.rest)
    return out


def static_value(node: ast.expr | None, static: set[str]) -> bool:
    """Whether ``node`` is a Python value when jax traces, given the names in ``static`` are."""
    if node is None:
        return False
    if isinstance(node, ast.Constant):
        return isinstance(node.value, _LITERALS)
    if isinstance(node, ast.Name):
        return node.id in static
    if isinstance(node, ast.Tuple):
        return all(static_value(e, static) for e in node.elts)
    if isinstance(node, ast.BinOp):
        return static_value(node.left, static) and static_value(node.right, static)
    if isinstance(node, ast.UnaryOp):
        return static_value(node.operand, static)
    if isinstance(node, ast.BoolOp):
        return all(static_value(v, static) for v in node.values)
    if isinstance(node, ast.Compare):
        return all(static_value(v, static) for v in [node.left, *node.comparators]) and not any(
            isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops
        )
    if isinstance(node, ast.IfExp):
        return all(static_value(v, static) for v in (node.test, node.body, node.orelse))
    if isinstance(node, ast.Attribute):
        return node.attr in _SHAPE_ATTRIBUTES and isinstance(node.value, ast.Name)
    if isinstance(node, ast.Subscript):
        # `x.shape[0]`, `x.shape[-1]`
        return (
            isinstance(node.value, ast.Attribute)
            and node.value.attr == "shape"
            and isinstance(node.value.value, ast.Name)
            and static_value(node.slice, static)
        )
    if isinstance(node, ast.Call):
        # `len(x)` (where the module does not bind `len`: `static` never holds it then)
        return (
            isinstance(node.func, ast.Name)
            and node.func.id == "len"
            and "len" not in static
            and len(node.args) == 1
            and not node.keywords
            and not isinstance(node.args[0], ast.Starred)
        )
    return False


def parameters(callee: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The parameters of ``callee`` a call can give a value by position or keyword."""
    a = callee.args
    return [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]


def static_at_call(
    call: ast.Call, callee: ast.FunctionDef | ast.AsyncFunctionDef, static: set[str]
) -> set[str]:
    """The parameters of ``callee`` that ``call`` gives a static value (``static``: the names
    that are static where the call is): by position, by keyword, or by a literal default."""
    a = callee.args
    positional = [p.arg for p in a.posonlyargs + a.args]
    if any(isinstance(x, ast.Starred) for x in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return set()  # (`*args` / `**kwargs`: which value reaches which parameter is unknown)
    given: dict[str, ast.expr] = {}
    for name, value in zip(positional, call.args, strict=False):
        given[name] = value
    for k in call.keywords:
        given[k.arg] = k.value  # type: ignore[index]  # (None excluded above)
    defaults = dict(zip(positional[len(positional) - len(a.defaults) :], a.defaults, strict=True))
    defaults.update(
        (p.arg, d) for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None
    )
    out: set[str] = set()
    for p in parameters(callee):
        value = given.get(p)
        if value is not None:
            if static_value(value, static):
                out.add(p)
        elif p in defaults and static_value(defaults[p], set()):
            out.add(p)
    return out


def calls_of(root: ast.AST, name: str) -> tuple[list[ast.Call], bool]:
    """The calls of ``name`` (a plain name) inside ``root``, and whether ``root`` reads the
    name otherwise too (passes the function on: `jax.vmap(h)`, `map(h, xs)`)."""
    calls: list[ast.Call] = []
    named: list[ast.Name] = []
    for node in walk_nodes(root):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
            calls.append(node)
        elif isinstance(node, ast.Name) and node.id == name:
            named.append(node)
    called = {id(c.func) for c in calls}
    return calls, any(id(n) not in called for n in named)


def static_parameters_passed(
    caller: ast.FunctionDef | ast.AsyncFunctionDef,
    name: str,
    callee: ast.FunctionDef | ast.AsyncFunctionDef,
    static: Iterable[str],
) -> set[str]:
    """The parameters of ``callee`` that every call of it (as ``name``) in ``caller`` gives a
    static value, where ``static`` are the caller's static parameters; empty where the caller
    does not call it, or uses it otherwise than by calling it."""
    calls, other = calls_of(caller, name)
    rebound = rebound_names(caller)
    if not calls or other or name in rebound:
        return set()
    names = set(static) - rebound
    out: set[str] | None = None
    for call in calls:
        here = static_at_call(call, callee, names)
        out = here if out is None else out & here
    return out or set()


def control_parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef, params: set[str]) -> set[str]:
    """The parameters of ``params`` whose value may decide ``fn``'s control flow: read (or a
    local computed from one read) in the test of an `if`, `while`, ternary or `assert`, an
    operand of `and` / `or` / `not`, or a `range(...)` argument. Elsewhere a static value and a
    traced one convert alike, and the parameter is not reported static for nothing."""
    flows: dict[str, set[str]] = {}  # name -> the names computed from it
    tested: set[str] = set()
    for node in walk_bfs(fn):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
            value = node.value
            if value is None:
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            written = {t.id for tt in targets for t in walk_nodes(tt) if isinstance(t, ast.Name)}
            for n in walk_nodes(value):
                if isinstance(n, ast.Name):
                    flows.setdefault(n.id, set()).update(written)
        elif isinstance(node, (ast.For, ast.comprehension)):
            written = {t.id for t in walk_nodes(node.target) if isinstance(t, ast.Name)}
            for n in walk_nodes(node.iter):
                if isinstance(n, ast.Name):
                    flows.setdefault(n.id, set()).update(written)
        parts: list = []
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            parts = [node.test]
        elif isinstance(node, ast.BoolOp):
            parts = node.values
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            parts = [node.operand]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "range":
                parts = node.args
        for part in parts:
            tested.update(n.id for n in walk_nodes(part) if isinstance(n, ast.Name))
    out: set[str] = set()
    for p in params:
        seen, todo = {p}, [p]
        while todo:
            for m in flows.get(todo.pop(), ()):
                if m not in seen:
                    seen.add(m)
                    todo.append(m)
        if seen & tested:
            out.add(p)
    return out


# where a line may rebind a name it holds: an assignment (`=`, `+=`, not `==`), a `for`, `as`,
# `lambda`, `def`, `del`, `global`, `nonlocal`, `import`, `:=` on it
_REBINDING_LINE = re.compile(
    r"(?<![=!<>])=(?!=)|\b(?:for|as|lambda|def|del|global|nonlocal|import|case)\b|:="
)


_WORD_CHAR = re.compile(r"\w")
# what follows a function's name where it is assigned or annotated (`h = ...`, `h += ...`,
# `h: T`), whitespace and line breaks between
_ASSIGNED_AFTER = re.compile(r"\s*(?:[-+*/%@&|^:]|//|\*\*|<<|>>)?=(?!=)|\s*:")
_BINDING_KEYWORD = re.compile(r"\b(?:def|as|for|import|global|nonlocal|del|lambda|case)\b")


def _rebinds_function(text: str, name: str) -> bool:
    """Whether ``text`` may rebind the function ``name``: the name, not after a word character
    or a dot, followed by an assignment or a `:`; or written as a whole word after a binding
    keyword on its line (`def h`, `import m.h`). (Its occurrences found with `str.find`: no
    pattern compiled per name.)"""
    i = text.find(name)
    while i >= 0:
        j = i + len(name)
        before = text[i - 1] if i else " "
        if _WORD_CHAR.match(before) is None:
            if before != "." and _ASSIGNED_AFTER.match(text, j):
                return True
            if (j == len(text) or _WORD_CHAR.match(text, j) is None) and _BINDING_KEYWORD.search(
                text, text.rfind("\n", 0, i) + 1, i
            ):
                return True
        i = text.find(name, i + 1)
    return False


def may_rebind(text: str, names: set[str], functions: set[str] = frozenset()) -> bool:
    """Whether a function's ``text`` may rebind one of ``names`` (a superset: a line holding
    one of them and an assignment, a keyword argument `f(n=1)` too, or a binding keyword), or
    one of the function names ``functions`` (`h = ...`, `def h`, `as h`, `for h`, `import`).
    (One search for all the functions, and a line looked at only where it names one of
    ``names``.)"""
    if any(_rebinds_function(text, f) for f in functions):
        return True
    if not names:
        return False
    named = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(names))) + r")\b")
    done = -1  # (the end of the last line looked at)
    for m in named.finditer(text):
        if m.start() < done:
            continue
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        done = len(text) if end < 0 else end
        if _REBINDING_LINE.search(text, start, done):
            return True
    return False


def propagate(
    functions: dict[str, tuple[ast.FunctionDef | ast.AsyncFunctionDef, set[str]]],
    sites: dict[str, list[tuple[str, ast.Call]]],
    texts: dict[str, str] | None = None,
) -> dict[str, dict[str, tuple[str, ast.Call]]]:
    """For the functions converted in a module (qualified name -> (node, its static
    parameters)) and, for module-level ones, every call of them in the module (``sites``: the
    calling function and the call; the module names them nowhere else), the parameters each is
    given a static value by every call: name -> parameter -> (calling function, first call).

    A greatest fixed point: a parameter a function passes on to itself or to another helper
    (`h(x, n - 1)`) stays static while every call around the cycle passes a static value."""
    sites = {n: s for n, s in sites.items() if n in functions and all(c in functions for c, _ in s)}
    if not sites:
        return {}
    # start from every parameter not already static, remove those a call does not pass static
    candidates: dict[str, set[str]] = {
        name: set(parameters(functions[name][0])) - functions[name][1] for name in sites
    }
    # (walked only where the text may rebind a static parameter or the helper's name: `texts`)
    rebound: dict[str, set[str]] = {}
    for c in {c for s in sites.values() for c, _ in s}:
        # (the names its calls pass, and the helpers it calls: only their rebinding counts)
        watch: set[str] = set()
        called: set[str] = set()
        for n, found in sites.items():
            for cc, call in found:
                if cc == c:
                    called.add(n)
                    watch |= {
                        x.id
                        for a in [*call.args, *(k.value for k in call.keywords)]
                        for x in walk_nodes(a)
                        if isinstance(x, ast.Name)
                    } & (functions[c][1] | candidates.get(c, set()))
        text = (texts or {}).get(c)
        if text is not None and not may_rebind(text, watch, called):
            rebound[c] = set()
        else:
            rebound[c] = rebound_names(functions[c][0])
    # (a helper's name rebound in a function that calls it: that function calls another one)
    for name in list(sites):
        if any(name in rebound[c] for c, _ in sites[name]):
            del sites[name], candidates[name]  # (and its parameters: none is known static)
    if not sites:
        return {}
    changed = True
    while changed:
        changed = False
        for name, calls in sites.items():
            keep = candidates[name]
            for caller, call in calls:
                if not keep:
                    break
                static = (functions[caller][1] | candidates.get(caller, set())) - rebound[caller]
                here = static_at_call(call, functions[name][0], static)
                if keep - here:
                    keep = keep & here
                    changed = True
            candidates[name] = keep
    out: dict[str, dict[str, tuple[str, ast.Call]]] = {}
    for name, params in candidates.items():
        params = control_parameters(functions[name][0], params) if params else params
        if params:
            first = min(sites[name], key=lambda s: (s[1].lineno, s[1].col_offset))
            out[name] = {p: first for p in params}
    return out
