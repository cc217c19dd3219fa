"""Static-argument inference: which parameters must be static under ``jax.jit``.

A parameter is static when

- its value reaches a shape, size, axis, dtype or mode position of a jax call or array method
  (the table :data:`autojit.jaxapi.STATIC_PARAMETERS`), or a slice bound that sets a result's size
  (``x[:n]``), directly or through local variables (``m = 2 * n; jnp.zeros(m)``);
- it is passed to a parameter of a helper function of the same module that is static there;
- it is not an array at all: a string (compared to a string), a callable (called as ``fn(x)`` or
  handed to a jax transform), a tuple of ints used as a shape;
- it is a Python flag that picks a code path: it is used only in ``if`` / ``while`` / ``x if c
  else y`` tests and ``is None`` checks, never as an array value. A parameter that is also used as
  an array value (``x * c``) is traced, and a condition on it is a traced condition.

A parameter used as an array (``x[i]``, ``x.sum()``, ``x + 1`` in a jnp call) or annotated as one
(``x: jax.Array``) is never made static: a data-dependent shape stays an error of the user's code,
reported by jax, rather than a static argument that would need an array to be hashable.

:func:`recompile_warnings` adds AJ402 for a static argument that is likely to take many values
(a float default or annotation, a float at a call site, a value that changes at each iteration of
a loop around the call): every new value compiles the function again.
"""

from __future__ import annotations

import ast
import bisect
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from ..gastconv import ChildFields, walk_bfs, walk_nodes
from ..jaxapi import CALLABLE_ARGUMENTS, SHAPE_ARGUMENTS, STATIC_ATTRIBUTES, STATIC_PARAMETERS
from ..model import Change, Location, StaticArgument
from ..scope import ModuleScope
from ..source import SourceText
from .values import dotted_name

# The inference reads the plain ``ast`` tree the pipeline parsed (no gast conversion: most
# functions are never rewritten, and a helper's statics are inferred from its module node). It
# visits nodes in the order ``gast.walk`` visits the gast tree, so ties between reasons resolve
# as they always did.


@dataclass(frozen=True)
class StaticReason:
    name: str
    node: ast.AST
    reason: str


# annotations that say "this is an array": never inferred static
_ARRAY_ANNOTATIONS = {"Array", "ArrayLike", "ndarray", "jax.Array", "jnp.ndarray", "np.ndarray"}

# methods that only an array has: a parameter they are called on is an array
_ARRAY_METHODS = {
    "sum", "mean", "max", "min", "prod", "std", "var", "argmax", "argmin", "any", "all",
    "reshape", "astype", "transpose", "squeeze", "ravel", "flatten", "cumsum", "cumprod",
    "dot", "clip", "round", "item", "tolist", "at", "T", "real", "imag", "conj", "nonzero",
    "argsort", "take", "repeat", "swapaxes", "diagonal", "trace", "ptp", "block_until_ready",
}  # fmt: skip


# -- names read and written by an expression (activity.expr_activity, on the plain ast) ---------

_Name, _Subscript, _Attribute, _Load = ast.Name, ast.Subscript, ast.Attribute, ast.Load
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _names(node, reads: set[str], writes: set[str]) -> None:
    """Add the names ``node`` loads to ``reads`` and stores to ``writes``, scoping lambdas and
    comprehensions: what :func:`autojit.analysis.activity.expr_activity` gives for its gast
    tree."""
    t = type(node)
    if t is _Name:
        c = type(node.ctx)
        if c is _Load:
            reads.add(node.id)
        elif c is ast.Store or c is ast.Del:
            writes.add(node.id)
        return
    if t is _Subscript and type(node.ctx) is not _Load:
        base = _base_name(node)
        if base:
            reads.add(base)
        _names(node.slice, reads, writes)
        inner = node.value
        while isinstance(inner, (_Subscript, _Attribute)):
            if isinstance(inner, _Subscript):
                _names(inner.slice, reads, writes)
            inner = inner.value
        return
    if t is _Attribute and type(node.ctx) is not _Load:
        base = _base_name(node)
        if base:
            reads.add(base)
        return
    if t is ast.NamedExpr:
        _names(node.value, reads, writes)
        writes.add(node.target.id)
        return
    if t is ast.Lambda:
        a = node.args
        for d in a.defaults + [d for d in a.kw_defaults if d is not None]:
            _names(d, reads, writes)
        body_reads: set[str] = set()
        _names(node.body, body_reads, set())
        reads |= body_reads - _lambda_params(a)
        return
    if t in _COMPREHENSIONS:
        bound: set[str] = set()
        gens = node.generators
        for i, gen in enumerate(gens):
            if i == 0:
                _names(gen.iter, reads, writes)
            _names(gen.target, set(), bound)
        elts = [node.key, node.value] if t is ast.DictComp else [node.elt]
        inner = set()
        for n in elts + [g.iter for g in gens[1:]] + [c for g in gens for c in g.ifs]:
            _names(n, inner, set())
        reads |= inner - bound
        return
    for f in _node_fields(t):
        v = getattr(node, f, None)
        if type(v) is list:
            for c in v:
                if isinstance(c, ast.AST):
                    _names(c, reads, writes)
        elif v is not None and isinstance(v, ast.AST):
            _names(v, reads, writes)


def _base_name(node) -> str | None:
    while isinstance(node, (_Subscript, _Attribute)):
        node = node.value
    return node.id if isinstance(node, _Name) else None


def _lambda_params(a: ast.arguments) -> set[str]:
    names = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
    if a.vararg:
        names.add(a.vararg.arg)
    if a.kwarg:
        names.add(a.kwarg.arg)
    return names


def _reads(node) -> set[str]:
    reads: set[str] = set()
    if node is not None:
        _names(node, reads, set())
    return reads


def _writes(node) -> set[str]:
    writes: set[str] = set()
    if node is not None:
        _names(node, set(), writes)
    return writes


# -- the nodes of a function, in gast.walk's order -----------------------------------------------

# fields that never hold a node the inference looks at (names, flags, contexts, operators)
_NOT_NODES = frozenset(
    {"ctx", "op", "ops", "id", "arg", "attr", "name", "kind", "type_comment", "is_async", "level",
     "module", "names", "conversion"}
)  # fmt: skip
_FIELDS = ChildFields(_NOT_NODES)  # (a dict: `_FIELDS[kind]`, filled on first use of a class)
# gast's field order (it walks a function's `args` before its `posonlyargs`)
_FIELDS[ast.arguments] = (
    "args", "posonlyargs", "vararg", "kwonlyargs", "kw_defaults", "kwarg", "defaults"
)  # fmt: skip
_FIELDS[ast.Constant] = ()  # (its value is never a node)


def _node_fields(kind: type) -> tuple[str, ...]:
    return _FIELDS[kind]


# the nodes whose parent the inference asks for (a parameter's Name, and on the way up from it
# to a test or a call: attributes, calls, comparisons, and/or, not)
_PARENTED = frozenset({ast.Name, ast.Call, ast.Attribute, ast.Compare, ast.BoolOp, ast.UnaryOp})

# statements after which the rest of their block never runs (the converters leave that dead code
# out of a converted loop: what it alone needs static would differ on a second conversion)
_ENDS_BLOCK = frozenset({ast.Return, ast.Break, ast.Continue, ast.Raise})


class _Indexed:
    """What the inference passes read of a function, found in one traversal (each list in
    ``gast.walk`` order, breadth first; the dead code after a return/break/continue/raise is
    left out)."""

    __slots__ = ("names", "work", "assigns", "parents")

    def __init__(self) -> None:
        self.names: list = []  # the loads of a parameter (ast.Name)
        self.work: list = []  # calls and subscripts
        self.assigns: list = []  # assignments and for loops (what `_derived` reads)
        self.parents: dict[int, ast.AST] = {}  # of a parameter's load, and of _PARENTED nodes


# the lists of _Indexed the nodes of a class go to: True for `work`, False for `assigns`
_ROLE = {ast.Call: True, ast.Subscript: True}
_ROLE.update(dict.fromkeys((ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For), False))


def _index(fn, params: set[str]) -> _Indexed:
    """Index ``fn``'s nodes in one breadth-first traversal (see :class:`_Indexed`)."""
    out = _Indexed()
    names, parents, work, assigns = out.names, out.parents, out.work, out.assigns
    queue = [fn]
    append, AST, fields_of, parented = queue.append, ast.AST, _FIELDS, _PARENTED
    ends, role, Name, Load = _ENDS_BLOCK, _ROLE, ast.Name, ast.Load
    for node in queue:  # (the list grows as it is read)
        for f in fields_of[type(node)]:
            v = getattr(node, f, None)
            if type(v) is list:
                for c in v:
                    t = type(c)
                    if t is Name:  # (a leaf: nothing to walk below it)
                        if c.id in params and type(c.ctx) is Load:
                            names.append(c)
                            parents[id(c)] = node
                    elif isinstance(c, AST):
                        if t in parented:
                            parents[id(c)] = node
                        r = role.get(t)
                        if r is not None:
                            (work if r else assigns).append(c)
                        append(c)
                        if t in ends:
                            break
            elif v is not None:
                t = type(v)
                if t is Name:
                    if v.id in params and type(v.ctx) is Load:
                        names.append(v)
                        parents[id(v)] = node
                elif isinstance(v, AST):
                    if t in parented:
                        parents[id(v)] = node
                    r = role.get(t)
                    if r is not None:
                        (work if r else assigns).append(v)
                    append(v)
    return out


def _as_ast(fn):
    """The plain ast of ``fn`` (a gast function is converted back)."""
    if type(fn).__module__.startswith("gast"):
        from ..gastconv import gast_to_ast

        return gast_to_ast(fn)
    return fn


def infer_static_params(fn, scope: ModuleScope) -> list[StaticReason]:
    """The parameters of ``fn`` (an ``ast`` function node) that must be static, each with the
    node that made it so."""
    # helpers' static parameters are inferred once per module (the scope), not once per caller;
    # a module function is inferred once whether it is converted, called by one converted, or
    # both (where no call was left out as recursive: those results depend on the call stack)
    memo = scope.__dict__.setdefault("_aj_static_memo", {})
    node = _as_ast(fn)
    name = getattr(node, "name", None)
    shared = name is not None and scope.functions.get(name) is node
    clean: set = memo.setdefault(_CLEAN, set())
    if shared and name in clean and memo.get(name) is not None and memo[name][0] is node:
        return list(memo[name][1])
    before = memo.get(_CYCLES, 0)
    out = _infer(node, scope, memo, ())
    if shared and name not in memo and memo.get(_CYCLES, 0) == before:
        memo[name] = (node, out)
        clean.add(name)
        return list(out)
    return out


# memo keys: how many calls were left out as recursive so far, and the names whose results
# were inferred with none left out (the same from any call stack)
_CYCLES = ("<cycles>",)
_CLEAN = ("<clean>",)


def _infer(fn, scope: ModuleScope, memo: dict, stack: tuple) -> list[StaticReason]:
    args = fn.args
    every = args.posonlyargs + args.args + args.kwonlyargs
    params = [a.arg for a in every]
    arrays = {a.arg for a in every if _array_annotation(a.annotation)}
    index = _index(fn, set(params))  # one traversal shared by the passes below
    return _infer_indexed(fn, scope, memo, stack, params, arrays, index)


def _infer_indexed(fn, scope, memo, stack, params, arrays, index: _Indexed) -> list[StaticReason]:
    args = fn.args
    parents = index.parents
    arrays |= _used_as_array(index.names, parents, scope)

    candidates: dict[str, list[StaticReason]] = {}
    derived: dict[str, set[str]] = {}

    def mark(expr, why: str) -> None:
        if not derived:  # computed on the first mark (a function may have none)
            derived.update(_derived(index.assigns, params))
        for name in _reads(expr) - _shape_only_reads(expr):
            for p in derived.get(name, ()):
                if p in params and p not in arrays:
                    candidates.setdefault(p, []).append(StaticReason(p, expr, why))

    inner = stack + (fn.name,)
    Call = ast.Call
    positional = [a.arg for a in args.posonlyargs + args.args]
    tested = None  # the parameters read by an `if` / `while` / ternary test (found once)
    for node in index.work:
        if type(node) is Call:
            if not _truth_of_a_test(node, parents, scope):
                _visit_call(node, scope, mark, memo, inner)
            if isinstance(node.func, ast.Name) and node.func.id == fn.name:
                # a call of itself: a parameter it passes on (changed) and tests decides when
                # the recursion ends, which a traced value never could (both branches of a
                # converted `if` are traced, and the recursion with them)
                if tested is None:
                    tested = _tested_params(fn, set(params))
                for i, a in enumerate(node.args):
                    if isinstance(a, ast.Starred) or i >= len(positional):
                        break
                    if positional[i] in tested and positional[i] in _reads(a):
                        mark(a, f"it decides when the recursion of `{fn.name}` ends")
                for kw in node.keywords:
                    if kw.arg in tested and kw.arg in _reads(kw.value):
                        mark(kw.value, f"it decides when the recursion of `{fn.name}` ends")
        else:  # a read x[:n], or an update y[:k] = v
            for part, reason in _slice_bounds(node.slice):
                mark(part, reason)

    # `out = []; for i in range(n): out.append(...)`: a loop that builds a Python list runs
    # as Python (a traced count gives the list no length), so its count must be static
    for loop in index.assigns:
        if type(loop) is ast.For and _range_call(loop.iter, scope):
            grown = _list_grown_in(loop, index.assigns)
            if grown is not None:
                for a in loop.iter.args:
                    if not isinstance(a, ast.Starred):
                        mark(
                            a,
                            f"it is the count of a loop that builds the Python list `{grown}` "
                            f"(its length must be known when jax traces)",
                        )

    for p, why, at in _flags_and_non_arrays(index.names, params, parents, scope):
        if p not in arrays:
            candidates.setdefault(p, []).append(StaticReason(p, at, why))

    # a parameter annotated `str`: a string, which jit can only take as a static argument (the
    # analyses take it as static too)
    for a in args.posonlyargs + args.args + args.kwonlyargs:
        if a.arg not in candidates and _string_annotation(a.annotation):
            why = "it is annotated `str`: a Python string, not an array"
            candidates[a.arg] = [StaticReason(a.arg, a, why)]

    # a string or bool default: a Python option chosen by the caller. The analyses take it as
    # static (its `if`s stay Python), so jit must too.
    for p, default in _defaults(args).items():
        if p in candidates or p in arrays or not isinstance(default, ast.Constant):
            continue
        if isinstance(default.value, (bool, str)):
            kind = "bool" if isinstance(default.value, bool) else "string"
            why = f"its default is a {kind} ({default.value!r}): a Python option, not an array"
            candidates[p] = [StaticReason(p, default, why)]

    out = []
    for p in params:
        if p in candidates:
            out.append(min(candidates[p], key=lambda r: _position(r.node)))
    return out


def _range_call(node, scope: ModuleScope) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "range"
        and not node.keywords
        and not scope.binds("range")
    )


_LIST_GROWERS = frozenset({"append", "extend", "insert"})


def _list_grown_in(loop: ast.For, assigns: list) -> str | None:
    """The name of a list the loop's body grows (`out.append(v)` as a statement), where the
    function binds that name to a list display (`out = []`, `out = [x]`) or `list()`."""
    lists = {
        t.id
        for a in assigns
        if type(a) is ast.Assign
        and (
            isinstance(a.value, ast.List)
            or (
                isinstance(a.value, ast.Call)
                and isinstance(a.value.func, ast.Name)
                and a.value.func.id == "list"
            )
        )
        for t in a.targets
        if isinstance(t, ast.Name)
    }
    if not lists:
        return None
    stack = list(loop.body)
    while stack:
        st = stack.pop()
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if (
            isinstance(st, ast.Expr)
            and isinstance(st.value, ast.Call)
            and isinstance(st.value.func, ast.Attribute)
            and st.value.func.attr in _LIST_GROWERS
            and isinstance(st.value.func.value, ast.Name)
            and st.value.func.value.id in lists
        ):
            return st.value.func.value.id
        for field in ("body", "orelse", "finalbody"):
            stack.extend(getattr(st, field, None) or ())
        for h in getattr(st, "handlers", None) or ():
            stack.extend(h.body)
    return None


def _string_annotation(ann) -> bool:
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):  # (`mode: "str"`)
        return ann.value == "str"
    return isinstance(ann, ast.Name) and ann.id == "str"


def _defaults(args) -> dict:
    positional = args.posonlyargs + args.args
    out = {
        a.arg: d
        for a, d in zip(
            positional[len(positional) - len(args.defaults) :], args.defaults, strict=True
        )
    }
    out.update(
        {a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None}
    )
    return out


def _position(node) -> tuple[int, int]:
    return (getattr(node, "lineno", 0) or 0, getattr(node, "col_offset", 0) or 0)


def _visit_call(node: ast.Call, scope: ModuleScope, mark, memo: dict, stack: tuple) -> None:
    func = node.func
    fname = dotted_name(func)
    qual = scope.qualified(fname) if fname else None
    method = func.attr if isinstance(func, ast.Attribute) else None
    key = qual if qual in STATIC_PARAMETERS else None
    if key is None and method and qual is None and f"<method>.{method}" in STATIC_PARAMETERS:
        key = f"<method>.{method}"
        label = f"`.{method}()`"
    else:
        label = f"`{fname}()`"
    if key is not None:
        table = STATIC_PARAMETERS[key]
        by_position = {pos: p for p, pos in table.items() if pos is not None and p != "*"}
        for i, a in enumerate(node.args):
            if isinstance(a, ast.Starred):
                break
            if "*" in table:
                mark(a, f"it is the shape given to {label}")
            elif i in by_position:
                mark(a, f"it is the `{by_position[i]}` of {label}")
        for kw in node.keywords:
            if kw.arg in table:
                mark(kw.value, f"it is the `{kw.arg}` of {label}")
        return
    # `math.cos(t)`, `min(1.0, t)`, `int(t)`: Python's own number functions need a number at
    # trace time, not a tracer
    if (qual or "").startswith("math.") or (
        isinstance(func, ast.Name)
        and func.id in _PYTHON_NUMBER_FUNCTIONS
        and not scope.binds(func.id)
        and node.args
    ):
        label = f"`{fname}()`"
        for a in node.args:
            if not isinstance(a, ast.Starred):
                mark(a, f"it is an argument of {label}, which needs a Python number")
        return
    # `enumerate(xs, start=k)`: Python counts from `k`, an int it needs at trace time
    if isinstance(func, ast.Name) and func.id == "enumerate" and not scope.binds("enumerate"):
        start = node.args[1] if len(node.args) > 1 else None
        for kw in node.keywords:
            if kw.arg == "start":
                start = kw.value
        if start is not None and not any(isinstance(a, ast.Starred) for a in node.args[:2]):
            mark(start, "it is the `start` of `enumerate()`, a Python int")
        return
    # a helper function of the same module: its static parameters make the arguments static
    if isinstance(func, ast.Name) and func.id in scope.functions:
        helper_name = func.id
        if helper_name in stack:
            memo[_CYCLES] = memo.get(_CYCLES, 0) + 1
            return
        helper = _helper_statics(helper_name, scope, memo, stack)
        if not helper:
            return
        hfn, reasons = helper
        positional = [a.arg for a in hfn.args.posonlyargs + hfn.args.args]
        by_name = {r.name: r for r in reasons}
        for i, a in enumerate(node.args):
            if isinstance(a, ast.Starred):
                break
            if i < len(positional) and positional[i] in by_name:
                r = by_name[positional[i]]
                mark(a, f"it is passed to `{helper_name}`'s static `{r.name}` ({r.reason})")
        for kw in node.keywords:
            if kw.arg in by_name:
                r = by_name[kw.arg]
                mark(kw.value, f"it is passed to `{helper_name}`'s static `{r.name}` ({r.reason})")


# builtins that compare or convert Python numbers (a tracer fails in them under jit)
_PYTHON_NUMBER_FUNCTIONS = frozenset({"min", "max", "int", "float", "round", "bool", "divmod"})


def _helper_statics(name: str, scope: ModuleScope, memo: dict, stack: tuple):
    if name not in memo:
        node = _as_ast(scope.functions[name])
        memo[name] = None  # recursion guard
        before = memo.get(_CYCLES, 0)
        memo[name] = (node, _infer(node, scope, memo, stack))
        if memo.get(_CYCLES, 0) == before:
            memo.setdefault(_CLEAN, set()).add(name)
    elif memo[name] is None:  # in progress: a recursive call, left out
        memo[_CYCLES] = memo.get(_CYCLES, 0) + 1
    return memo[name]


def _tested_params(fn, params: set[str]) -> set[str]:
    """The parameters of ``fn`` read in the test of an `if`, `while` or ternary."""
    out: set[str] = set()
    for node in walk_nodes(fn):
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            out |= {n.id for n in walk_nodes(node.test) if isinstance(n, ast.Name)} & params
    return out


def _derived(assigns_found: list, params: list[str]) -> dict[str, set[str]]:
    """local name -> the parameters its value is computed from (transitively), from the
    assignments and for loops of a function (``_Indexed.assigns``)."""
    derived: dict[str, set[str]] = {p: {p} for p in params}
    assigns: list[tuple[set[str], set[str]]] = []
    Assign, AnnAssign, AugAssign, For = ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For
    for node in assigns_found:
        t = type(node)
        if t is Assign:
            targets: set[str] = set()
            for tg in node.targets:
                targets |= _writes(tg)
            assigns.append((targets, _reads(node.value) - _shape_only_reads(node.value)))
        elif t is AnnAssign and node.value is not None:
            targets = _writes(node.target)
            assigns.append((targets, _reads(node.value) - _shape_only_reads(node.value)))
        elif t is AugAssign and isinstance(node.target, ast.Name):
            assigns.append(({node.target.id}, _reads(node.value) | {node.target.id}))
        elif t is For:
            # `for i in range(n): x[:i]`: a loop whose counter sets a shape needs a static
            # count (the loop then stays Python, unrolled when jax traces)
            targets = _writes(node.target)
            assigns.append((targets, _reads(node.iter) - _shape_only_reads(node.iter)))
    if not assigns:
        return derived
    for _ in range(4):
        grew = False
        for targets, reads in assigns:
            src: set[str] = set()
            for r in reads:
                src |= derived.get(r, set())
            for target in targets:
                now = derived.setdefault(target, set())
                if not src <= now:
                    now |= src
                    grew = True
        if not grew:
            break  # (a pass that adds nothing: so would every later one)
    return derived


def _array_annotation(ann) -> bool:
    if ann is None:
        return False
    name = dotted_name(ann)
    if name is None and isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        name = ann.value
    if not name:
        return False
    return name in _ARRAY_ANNOTATIONS or name.rsplit(".", 1)[-1] == "Array"


def _used_as_array(names: list, parents: dict, scope: ModuleScope) -> set[str]:
    """Parameters used as arrays (``names``: the loads of a parameter): indexed, array methods
    called on them, data of a jax call."""
    out: set[str] = set()
    for node in names:
        name: str = node.id
        parent = parents.get(id(node))
        if isinstance(parent, ast.Subscript) and parent.value is node:
            if not _constant_index(parent.slice) or not isinstance(parent.ctx, ast.Load):
                # x[i], x[mask], x[1:]: an array (a tuple shape is read by ints); `x[0] = v`,
                # `x[0] += v`: changed in place, never a static (hashable) value
                out.add(name)
        elif isinstance(parent, ast.Attribute) and parent.value is node:
            if parent.attr in _ARRAY_METHODS:
                out.add(name)
        elif isinstance(parent, ast.Call) and node in parent.args:
            q = scope.qualified(dotted_name(parent.func) or "") or ""
            if q.startswith("jax.") and q not in SHAPE_ARGUMENTS and q not in CALLABLE_ARGUMENTS:
                out.add(name)
            elif q in SHAPE_ARGUMENTS:
                positions = SHAPE_ARGUMENTS[q][0]
                if positions != "*" and parent.args.index(node) not in positions:
                    out.add(name)
    return out


def _constant_index(sl) -> bool:
    """`t[0]`, `t[-1]`, `t[1:]`: how a tuple of ints (a shape) is read as well as an array."""
    if isinstance(sl, ast.Slice):
        return all(p is None or _constant_int(p) for p in (sl.lower, sl.upper, sl.step))
    return _constant_int(sl)


def _constant_int(node) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def _flags_and_non_arrays(names: list, params: list[str], parents: dict, scope: ModuleScope):
    """(parameter, why, node) for flags, strings and callables (``names``: the loads of a
    parameter)."""
    uses: dict[str, list[tuple[str, ast.AST]]] = {p: [] for p in params}
    for node in names:
        uses[node.id].append((_use_kind(node, parents, scope), node))
    out = []
    for p, occ in uses.items():
        kinds = {k for k, _ in occ}
        callable_use = [n for k, n in occ if k == "callable"]
        string_use = [n for k, n in occ if k == "string"]
        if callable_use:
            out.append(
                (p, "it is called as a function (a callable is not an array)", callable_use[0])
            )
            continue
        pytype_use = [n for k, n in occ if k == "pytype"]
        if pytype_use:
            # (whatever its other uses: traced, it would take the other path silently)
            out.append(
                (
                    p,
                    "it is tested for a Python type (`isinstance(s, float)`), which a traced "
                    "argument never is",
                    pytype_use[0],
                )
            )
            continue
        if string_use:
            # a string (compared to one, `mode == "train"`, or given a string method): whatever
            # else reads it (`raise ValueError(f"bad {mode}")`, `print(mode)`), never an array
            out.append((p, _string_use_reason(string_use[0], parents), string_use[0]))
            continue
        if (
            kinds
            and kinds <= {"flag", "string", "neutral", "none-check"}
            and kinds
            & {
                "flag",
                "string",
            }
        ):
            if string_use:
                out.append((p, _string_use_reason(string_use[0], parents), string_use[0]))
            else:
                first = next(n for k, n in occ if k == "flag")
                out.append(
                    (p, "it is a Python flag that chooses a code path (used only in tests)", first)
                )
    return out


def _string_use_reason(node, parents: dict) -> str:
    """Why a parameter read as a string (see `_use_kind`) is static, in words."""
    parent = parents.get(id(node))
    if isinstance(parent, ast.Call):
        return f"it names an attribute (`{dotted_name(parent.func)}()`): a string is not an array"
    if isinstance(parent, ast.Attribute):
        return f"it is a string (`.{parent.attr}()`): a string is not an array"
    return "it is compared to a string (a string is not an array)"


def _use_kind(node, parents: dict, scope: ModuleScope) -> str:
    """How one read of a parameter uses it: flag / string / none-check / callable / neutral /
    value."""
    parent = parents.get(id(node))
    if isinstance(parent, ast.Call):
        if parent.func is node:
            return "callable"
        q = scope.qualified(dotted_name(parent.func) or "") or ""
        if q in CALLABLE_ARGUMENTS:
            positions, keywords = CALLABLE_ARGUMENTS[q]
            if node in parent.args and parent.args.index(node) in positions:
                return "callable"
            if any(kw.value is node and kw.arg in keywords for kw in parent.keywords):
                return "callable"
        if (
            dotted_name(parent.func) == "isinstance"
            and parent.args[:1] == [node]
            and len(parent.args) == 2
            and _python_scalar_types(parent.args[1], scope)
        ):
            return "pytype"  # `isinstance(s, float)`: never true of a traced argument
        if dotted_name(parent.func) == "type" and len(parent.args) == 1 and not scope.binds("type"):
            # `type(s) is float` / `type(s) == int`
            cmp = parents.get(id(parent))
            if isinstance(cmp, ast.Compare) and all(
                _python_scalar_types(o, scope)
                for o in [cmp.left, *cmp.comparators]
                if o is not parent
            ):
                return "pytype"
        if dotted_name(parent.func) in ("isinstance", "callable") and parent.args[:1] == [node]:
            return "none-check"
        if dotted_name(parent.func) == "len":
            return "neutral"
        if (
            dotted_name(parent.func) in ("getattr", "hasattr")
            and parent.args[1:2] == [node]
            and not scope.binds(dotted_name(parent.func) or "")
        ):
            return "string"  # (`getattr(jnp, mode)`: an attribute's name)
        return "value"
    if isinstance(parent, ast.Attribute) and parent.attr in STATIC_ATTRIBUTES:
        return "neutral"
    if isinstance(parent, ast.Attribute) and parent.attr in _STR_METHODS:
        # `mode.lower() == "train"`, `m = mode.lower()`: a method of strings that arrays do not
        # have
        call = parents.get(id(parent))
        if isinstance(call, ast.Call) and call.func is parent:
            return "string"
    if isinstance(parent, ast.Compare):
        operands = [parent.left, *parent.comparators]
        others = [o for o in operands if o is not node]
        if all(isinstance(op, (ast.Is, ast.IsNot)) for op in parent.ops):
            return "none-check"
        if others and all(_is_string_constant(o) for o in others):
            return "string"
        if _in_test(parent, parents) and others and all(_is_bool_constant(o) for o in others):
            return "flag"  # `if flag == True:`; a comparison with a number is a traced test
        return "value"
    if _in_test(node, parents):
        return "flag"
    return "value"


_STR_METHODS = {
    "lower", "upper", "casefold", "strip", "lstrip", "rstrip", "startswith", "endswith",
    "isdigit", "isalpha", "title", "capitalize",
}  # fmt: skip


_PYTHON_SCALARS = frozenset({"float", "int", "bool", "complex", "str"})


def _python_scalar_types(node, scope: ModuleScope) -> bool:
    """`float`, `(int, float)`: builtin Python scalar types (not rebound in the module)."""
    elts = node.elts if isinstance(node, ast.Tuple) else [node]
    return bool(elts) and all(
        isinstance(e, ast.Name) and e.id in _PYTHON_SCALARS and not scope.binds(e.id) for e in elts
    )


def _is_string_constant(node) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_is_string_constant(e) for e in node.elts)
    return False


def _is_bool_constant(node) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, bool)


def _truth_of_a_test(node: ast.Call, parents: dict, scope: ModuleScope) -> bool:
    """`bool(t)` as the test of an `if` / `while` / ternary (through not / and / or): the
    conversion tests `t` itself, so it needs no Python number."""
    return (
        isinstance(node.func, ast.Name)
        and node.func.id == "bool"
        and len(node.args) == 1
        and not node.keywords
        and not isinstance(node.args[0], (ast.Starred, ast.Name, ast.Attribute))
        and not scope.binds("bool")
        and _in_test(node, parents)
    )


def _in_test(node, parents: dict) -> bool:
    """Whether ``node`` is (through not / and / or) the test of an if, while, assert or x if c
    else y."""
    cur = node
    while True:
        parent = parents.get(id(cur))
        if isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            return parent.test is cur
        if isinstance(parent, ast.BoolOp) or (
            isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not)
        ):
            cur = parent
            continue
        return False


_SIZE_BOUND = "it is a slice bound, which sets the size of the slice"
_START_BOUND = "it is the start of a slice, and jax's slices need static bounds"


def _slice_bounds(sl) -> list[tuple[ast.expr, str]]:
    """The bounds of the slices in an index that must be static, each with the reason."""
    parts: list[tuple[ast.expr, str]] = []
    elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
    for e in elts:
        if isinstance(e, ast.Slice):
            lo, hi = e.lower, e.upper
            step = [(e.step, _SIZE_BOUND)] if e.step is not None else []
            # x[i:i + 3] keeps a static size, but its start must be static too (jax: "Array
            # slice indices must have static start/stop/step"; a converted loop's own index is
            # made a dynamic slice by the loops converter)
            if lo is not None and hi is not None and _same_base_offset(lo, hi):
                parts += [(lo, _START_BOUND), *step]
                continue
            parts += [(p, _SIZE_BOUND) for p in (lo, hi) if p is not None] + step
    return parts


def _same_base_offset(lo, hi) -> bool:
    return (
        isinstance(hi, ast.BinOp)
        and isinstance(hi.op, ast.Add)
        and ast.dump(hi.left) == ast.dump(lo)
        and isinstance(hi.right, ast.Constant)
    )


_SHAPE_ATTRS = frozenset({"shape", "ndim", "dtype", "size"})


def _shape_only_reads(node) -> set[str]:
    """Names read only through `.shape` / `.ndim` / `len()`: those do not make them static."""
    out: dict[str, set[int]] = {}  # the Name nodes of each name read for shape only
    # a name also read elsewhere in the expression is not shape-only
    counted: dict[str, int] = {}
    Name, Attribute, Call, arg = ast.Name, ast.Attribute, ast.Call, ast.arg
    stack = [node]
    pop, push = stack.pop, stack.append
    while stack:  # every node once (the order does not matter here)
        sub = pop()
        t = type(sub)
        if t is Name:
            counted[sub.id] = counted.get(sub.id, 0) + 1
            continue
        if t is arg:  # a lambda's parameter: a Name in gast's tree
            counted[sub.arg] = counted.get(sub.arg, 0) + 1
        elif t is Attribute:
            if sub.attr in _SHAPE_ATTRS:
                for n in _broadcast_names(sub.value):
                    out.setdefault(n.id, set()).add(id(n))
        elif t is Call:
            if sub.args and type(sub.args[0]) is Name and dotted_name(sub.func) == "len":
                out.setdefault(sub.args[0].id, set()).add(id(sub.args[0]))
            elif (dotted_name(sub.func) or "").endswith(("result_type", "eval_shape")):
                # `result_type(x, ...)` / `eval_shape(f, x)` read only dtypes and shapes
                for a in sub.args:
                    for read in walk_nodes(a):
                        if type(read) is Name:
                            out.setdefault(read.id, set()).add(id(read))
        for f in _node_fields(t):
            v = getattr(sub, f, None)
            if type(v) is list:
                for c in v:
                    if isinstance(c, ast.AST):
                        push(c)
            elif v is not None and isinstance(v, ast.AST):
                push(v)
    return {n for n, c in out.items() if counted.get(n, 0) == len(c)} if out else set()


def _broadcast_names(node) -> list[ast.Name]:
    """Names (their nodes) whose values cannot change the shape of ``node``: a name, or names
    combined by elementwise operators (`(y > 0.5).shape`); none when a part's shape may depend
    on a value (`jnp.zeros(n) + y`)."""
    if isinstance(node, ast.Name):
        return [node]
    if isinstance(node, ast.BinOp):
        parts = [node.left, node.right]
    elif isinstance(node, ast.UnaryOp):
        parts = [node.operand]
    elif isinstance(node, ast.Compare):
        parts = [node.left, *node.comparators]
    else:
        return []
    out: list[ast.Name] = []
    for p in parts:
        if isinstance(p, ast.Constant):
            continue
        names = _broadcast_names(p)
        if not names:
            return []
        out += names
    return out


def static_param_index(fn, name: str) -> int | None:
    positional = [_param_id(a) for a in fn.args.posonlyargs + fn.args.args]
    return positional.index(name) if name in positional else None


def _param_id(a) -> str:
    """A parameter's name: an ``ast.arg``'s ``arg``, a gast parameter ``Name``'s ``id``."""
    return a.arg if type(a) is ast.arg else a.id


# -- AJ402: static arguments likely to take many values ------------------------------------------


_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*))?", re.I)


def _noqa(line: str, code: str) -> bool:
    m = _NOQA.search(line)
    if not m:
        return False
    codes = m.group("codes")
    return codes is None or any(code.startswith(c.strip().upper()) for c in codes.split(","))


@lru_cache(maxsize=8)
def _module_tree(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except SyntaxError:
        return None


def recompile_warnings(
    fn, statics: list[StaticArgument], src: SourceText, filename: str
) -> list[Change]:
    """AJ402 for each inferred static argument that is likely to take many values (a float
    default or annotation; at a call site in the module: a float, a value that changes at each
    iteration of a loop around the call, a random value)."""
    out: list[Change] = []
    module_text = src.text_

    def at(node) -> Location:
        line = node.lineno
        return Location(filename, line, src.char_col(line, node.col_offset) + 1)

    inferred = [s for s in statics if not s.user_declared]
    if not inferred:
        return out
    fn = _as_ast(fn)
    args = fn.args
    positional = args.posonlyargs + args.args
    defaults = dict(
        zip(
            [a.arg for a in positional[len(positional) - len(args.defaults) :]],
            args.defaults,
            strict=True,
        )
    )
    defaults.update(
        {a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None}
    )
    annotations = {a.arg: a.annotation for a in positional + args.kwonlyargs}
    sites: list = []
    first = module_text.find(fn.name)  # (then a second one, not overlapping: `count(name) > 1`)
    if module_text.find(fn.name, first + len(fn.name)) >= 0 or not module_text.isascii():
        # (a name written once in the file, at its `def`, has no call sites to index)
        tree = getattr(src, "tree", None) or _module_tree(module_text)  # the pipeline's parse
        sites = _call_sites(tree, fn.name, module_text, src.line_starts) if tree is not None else []
    for s in inferred:
        why = None
        where = Location(filename, fn.lineno, fn.col_offset + 1)
        d = defaults.get(s.name)
        ann = annotations.get(s.name)
        if isinstance(d, ast.Constant) and isinstance(d.value, float):
            why = f"its default is a float ({d.value!r})"
            where = at(d)
        elif ann is not None and dotted_name(ann) == "float":
            why = "it is annotated as a float"
            where = at(ann)
        else:
            for call, loops in sites:
                arg = _argument_for(call, s, [a.arg for a in positional])
                if arg is None:
                    continue
                site_why = _many_values(arg, loops)
                if site_why:
                    why = site_why
                    where = at(arg)
                    break
        if why and not _noqa(src.line_text(where.line), "AJ402"):
            out.append(
                Change(
                    "AJ402",
                    where,
                    f"static argument `{s.name}` of `{fn.name}` is likely to take many values: "
                    f"{why}; jax.jit compiles the function again for every new value "
                    f"(pass it as an array, or round it to a few values, if it varies)",
                )
            )
    return out


def _call_sites(
    tree: ast.Module, name: str, text: str | None = None, starts: list[int] | None = None
) -> list[tuple[ast.Call, list[ast.AST]]]:
    """Calls of ``name`` (also as ``jax.jit(name)(...)`` and through ``g = jax.jit(name)``), each
    with the loops around it, in the order of the module. Only the top-level statements whose
    text holds the name (or an alias of it) are indexed, each once per module: a call or alias
    of the name names it."""
    index = _module_index(tree, text, starts)  # `starts`: the offset of each line of text
    index.cover({name})
    aliases = {name} | index.aliases_of.get(name, set())  # assigned where the name is named
    if len(aliases) > 1:
        index.cover(aliases - {name})
    found = [site for a in aliases for site in index.by_func.get(a, ())]
    found += index.by_jitted.get(name, [])
    found.sort(key=lambda site: site[0])
    return [(call, loops) for _seq, call, loops in found]


class _ModuleIndex:
    """The calls of a module's top-level statements (and of its classes' statements), indexed
    statement by statement on demand."""

    def __init__(self, tree: ast.Module, text: str | None, starts: list[int] | None) -> None:
        self.tree, self.text = tree, text
        self.aliases_of: dict[str, set[str]] = {}
        self.by_func: dict[str, list] = {}
        self.by_jitted: dict[str, list] = {}
        self.done: set[tuple[int, int, str]] = set()  # (statement, part, name) indexed
        # (the parser NFKC-normalises identifiers: a file where a name may be spelled otherwise
        # than it reads is indexed whole)
        self.whole = text is None or starts is None or not identifiers_literal(text)
        self.starts = starts or []
        self.firsts = _first_lines(tree.body) if not self.whole else []
        self.class_firsts: dict[int, list[int]] = {}

    def cover(self, names: set[str]) -> None:
        """Index the calls of ``names`` in every statement whose lines hold one of them (each
        statement once per name; within it, only the nodes whose lines hold one)."""
        body = self.tree.body
        picked: dict[tuple[int, int], set[str]] = {}
        lines: list[int] | None = None
        if self.whole or not all(n.isascii() for n in names):
            for j, stmt in enumerate(body):
                parts = len(stmt.body) + 2 if isinstance(stmt, ast.ClassDef) else 1
                for k in range(parts):
                    picked[(j, k)] = set(names)
        else:
            text, starts, firsts = self.text or "", self.starts, self.firsts
            at_lines: set[int] = set()
            for name in names:
                for i in _name_occurrences(text, name):
                    line = bisect.bisect_right(starts, i)  # 1-based
                    at_lines.add(line)
                    j = bisect.bisect_right(firsts, line) - 1
                    while j >= 0 and (body[j].end_lineno or body[j].lineno) >= line:
                        for part in self._parts_at(j, line):
                            picked.setdefault(part, set()).add(name)
                        j -= 1
            lines = sorted(at_lines)
        for j, k in sorted(picked):
            todo = {n for n in picked[(j, k)] if (j, k, n) not in self.done}
            if not todo:
                continue
            self.done.update((j, k, n) for n in todo)
            stmt = body[j]
            nodes: list[ast.AST]
            if not isinstance(stmt, ast.ClassDef):
                nodes = [stmt]
            elif k == 0:  # its header; then each statement of its body; then its decorators
                nodes = [*stmt.bases, *stmt.keywords]
            elif k <= len(stmt.body):
                nodes = [stmt.body[k - 1]]
            else:
                nodes = list(stmt.decorator_list)
            _index_calls(nodes, (j, k), self.by_func, self.by_jitted, self.aliases_of, todo, lines)

    def _parts_at(self, j: int, line: int) -> list[tuple[int, int]]:
        """The parts of top-level statement ``j`` on ``line``: the statement, or for a class the
        statements of its body there (its header and decorators when none is)."""
        stmt = self.tree.body[j]
        if not isinstance(stmt, ast.ClassDef):
            return [(j, 0)]
        firsts = self.class_firsts.get(j)
        if firsts is None:
            firsts = self.class_firsts[j] = _first_lines(stmt.body)
        inner = stmt.body
        k = bisect.bisect_right(firsts, line) - 1
        out = []
        while k >= 0 and (inner[k].end_lineno or inner[k].lineno) >= line:
            out.append((j, k + 1))
            k -= 1
        if not out or line <= firsts[0]:  # (the header and decorators end before the body)
            out += [(j, 0), (j, len(inner) + 1)]
        return out


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def identifiers_literal(text: str) -> bool:
    """Whether every ASCII identifier in ``text`` is written as it is (no non-ASCII character
    that NFKC normalisation, which the parser applies to identifiers, turns into letters,
    digits or underscores: `ﬁ` is `fi`)."""
    if text.isascii():
        return True
    for c in set(_NON_ASCII.findall(text)):
        normal = unicodedata.normalize("NFKC", c)
        if any(ch.isascii() and (ch.isalnum() or ch == "_") for ch in normal):
            return False
    return True


def _first_lines(stmts: list) -> list[int]:
    out = []
    for stmt in stmts:
        first = stmt.lineno
        for d in getattr(stmt, "decorator_list", ()) or ():
            first = min(first, d.lineno)
        out.append(first)
    return out


def _name_occurrences(text: str, name: str):
    """Offsets of ``name`` in ``text`` where it may be a variable (a superset): a whole word,
    not an attribute (`.name`) and not the name a `def` / `class` defines."""
    n = len(name)
    i = text.find(name)
    while i >= 0:
        j = i + n
        if (j >= len(text) or not _ident_char(text[j])) and (
            i == 0 or not _ident_char(text[i - 1])
        ):
            k = i - 1
            while k >= 0 and text[k] in " \t":
                k -= 1
            if not (k >= 0 and text[k] == "." or _defines(text, k)):
                yield i
        i = text.find(name, i + 1)


def _ident_char(c: str) -> bool:
    return c.isalnum() or c == "_"


def _defines(text: str, k: int) -> bool:
    """Whether the word ending at ``k`` (then blanks, then the name) is `def` or `class`."""
    for kw in ("def", "class"):
        start = k - len(kw) + 1
        if start >= 0 and text.startswith(kw, start) and k + 1 < len(text) and text[k + 1] in " \t":
            if start == 0 or not _ident_char(text[start - 1]):
                return True
    return False


_INDEX: dict[int, _ModuleIndex] = {}


def _module_index(tree: ast.Module, text: str | None, starts: list[int] | None) -> _ModuleIndex:
    entry = _INDEX.get(id(tree))
    if entry is None or entry.tree is not tree or entry.text is not text:
        entry = _ModuleIndex(tree, text, starts)
        _INDEX.clear()  # one module at a time
        _INDEX[id(tree)] = entry
    return entry


def _index_calls(
    stmts: list,
    key: tuple,
    by_func: dict,
    by_jitted: dict,
    aliases_of: dict,
    names: set[str],
    lines: list[int] | None = None,
) -> None:
    """Index the calls of ``names`` in ``stmts`` (and the assignments that alias them), each
    keyed ``(key, path)``: the child positions from the statement down, which sort in pre-order
    (children in order: the order of the recursive visit). With ``lines`` (sorted), a node none
    of whose lines is one of them is not entered: a call of a name, and every node around it,
    spans a line that names it (a definition's decorators come before its own line; positions
    inside an f-string are not relied on)."""
    loop_types = (ast.For, ast.While, ast.comprehension)
    AST, Joined, leaves = ast.AST, ast.JoinedStr, _LEAVES
    find, n_lines = bisect.bisect_left, len(lines) if lines is not None else 0
    stack: list[tuple[ast.AST, list, tuple, bool]] = [
        (s, [], (i,), lines is None) for i, s in reversed(list(enumerate(stmts)))
    ]
    pop, push = stack.pop, stack.append
    while stack:
        node, loops, path, entire = pop()
        if not entire:
            lo = getattr(node, "lineno", None)
            if lo is not None:
                if type(node) in _DEFINITIONS:
                    for d in node.decorator_list:  # type: ignore[attr-defined]
                        lo = min(lo, d.lineno)
                i = find(lines, lo)  # type: ignore[arg-type]
                if i == n_lines or lines[i] > (node.end_lineno or lo):  # type: ignore[index]
                    continue
            if type(node) is Joined:
                entire = True
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            first = node.value.args[:1]
            if first and isinstance(first[0], ast.Name) and first[0].id in names:
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        aliases_of.setdefault(first[0].id, set()).add(t.id)
        elif isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name):
                if f.id in names:
                    by_func.setdefault(f.id, []).append(((key, path), node, loops))
            elif isinstance(f, ast.Call) and f.args and isinstance(f.args[0], ast.Name):
                if f.args[0].id in names:
                    by_jitted.setdefault(f.args[0].id, []).append(((key, path), node, loops))
        inner = loops + [node] if isinstance(node, loop_types) else loops
        children: list[ast.AST] = []  # (no context: `ctx` is not one of the fields)
        for name in _CALL_FIELDS[type(node)]:
            v = getattr(node, name, None)
            if type(v) is list:
                children += [c for c in v if isinstance(c, AST)]
            elif isinstance(v, AST):
                children.append(v)
        for i in range(len(children) - 1, -1, -1):
            c = children[i]
            if type(c) not in leaves:  # (a name or a constant holds no call: not visited)
                push((c, inner, path + (i,), entire))


_CALL_FIELDS = ChildFields(_NOT_NODES)  # contexts and fields with no node left out
_LEAVES = frozenset({ast.Name, ast.Constant})
_DEFINITIONS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})


def _argument_for(call: ast.Call, s: StaticArgument, positional: list[str]):
    for kw in call.keywords:
        if kw.arg == s.name:
            return kw.value
    if s.index is not None and s.index < len(call.args):
        a = call.args[s.index]
        if not any(isinstance(x, ast.Starred) for x in call.args[: s.index + 1]):
            return a
    return None


def _many_values(arg, loops: list[ast.AST]) -> str | None:
    # (walk_bfs: ast.walk's nodes in its order, listed at once)
    if isinstance(arg, ast.Constant) and isinstance(arg.value, float):
        return f"it is called with a float ({arg.value!r})"
    if isinstance(arg, ast.Lambda) or (
        isinstance(arg, ast.Call) and ast.unparse(arg.func).rsplit(".", 1)[-1] == "partial"
    ):
        # a static callable is compared by identity: a new one at each call never hits the cache
        return f"it is called with `{ast.unparse(arg)}`, a new function object at each call"
    names = {n.id for n in walk_bfs(arg) if isinstance(n, ast.Name)}
    for loop in loops:
        if isinstance(loop, (ast.For, ast.comprehension)):
            written = {n.id for n in walk_bfs(loop.target) if isinstance(n, ast.Name)}
            if isinstance(loop, ast.For):
                for sub in walk_bfs(loop):
                    if isinstance(sub, (ast.Assign, ast.AugAssign)):
                        for t in sub.targets if isinstance(sub, ast.Assign) else [sub.target]:
                            written |= {n.id for n in walk_bfs(t) if isinstance(n, ast.Name)}
        else:
            written = set()
            for sub in walk_bfs(loop):
                if isinstance(sub, (ast.Assign, ast.AugAssign)):
                    for t in sub.targets if isinstance(sub, ast.Assign) else [sub.target]:
                        written |= {n.id for n in walk_bfs(t) if isinstance(n, ast.Name)}
        if names & written:
            at = f" at line {loop.lineno}" if isinstance(loop, (ast.For, ast.While)) else ""
            return (
                f"it is called with `{ast.unparse(arg)}`, which changes at each iteration of "
                f"the loop{at}"
            )
    for n in walk_bfs(arg):
        if isinstance(n, ast.Call):
            callee = ast.unparse(n.func)
            if "random" in callee.split(".") or callee.startswith(("random.", "np.random")):
                return f"it is called with a random value (`{ast.unparse(arg)}`)"
    return None
