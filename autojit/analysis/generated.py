"""What autojit's own generated control flow gives back, for the alias analysis.

A converted `if` is ``t, s = jax.lax.cond(pred, _then, _else, x, s, t)`` with ``_then`` and
``_else`` defined just before it; a converted loop is ``a, b = jax.lax.while_loop(_cond, _body,
(a, b))`` (or ``fori_loop`` / ``scan``). Seen as plain calls, their results are fresh arrays, while
the code they replaced kept NumPy's aliases (``s = x[0]`` before a loop that reassigns ``s`` under
an ``if``: ``s`` still shares ``x``'s memory after it). A second conversion must see what the first
saw, or it rewrites an update the first refused (AJ901).

So for these calls, when the functions are local definitions, each result position gets what the
code they came from gets: the branch functions (or the loop body, to a fixpoint over the carry) are
analysed with their parameters bound to the operands' values, and result ``j`` is the join
(:meth:`Value.join`, the same join the original ``if`` / loop gets) of what each returns at
``j``. Only ``alias_of`` is taken from it; the results keep the kind the plain call gives them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

import gast

from ..scope import dotted_name
from .values import Kind, Value

if TYPE_CHECKING:
    from .values import Env, ValueAnalysis

# a result: one value, or a tuple of results
Tree: TypeAlias = "Value | list[Tree]"

_FORMS = {
    "jax.lax.cond": "cond",
    "jax.lax.while_loop": "while",
    "jax.lax.fori_loop": "fori",
    "jax.lax.scan": "scan",
}

_INDEX = Value(Kind.TRACED, "int", True)


def form_of(va: ValueAnalysis, call: gast.Call) -> str | None:
    name = dotted_name(call.func)
    if not name:
        return None
    return _FORMS.get(va.scope.qualified(name) or "")


def results(va: ValueAnalysis, call: gast.Call, env: Env) -> Tree | None:
    """The values (for their aliases) of a generated lax.cond / while_loop / fori_loop / scan
    call's results, or None when the call is not one autojit writes (its functions are not local
    definitions, operands not the parameters' names...)."""
    form = form_of(va, call)
    if form is None or call.keywords:
        return None
    cache = va.generated_cache
    key = (id(call), frozenset(env.items()), frozenset(va.enclosing.items()))
    if key in cache:
        return cache[key]
    cache[key] = None  # a call reached again while it is analysed gives nothing
    try:
        out = _results(va, form, call, env)
    except RecursionError:
        out = None
    cache[key] = out
    return out


def _results(va: ValueAnalysis, form: str, call: gast.Call, env: Env) -> Tree | None:
    args = call.args
    if form == "cond":
        if len(args) < 3:
            return None
        operands = args[3:]
        trees = []
        for f in args[1:3]:
            fn = _local_def(va, f)
            if fn is None:
                return None
            seeded = _seed_params(va, fn, [None] * len(operands), operands, env)
            if seeded is None:
                return None
            tree = _returned(va, fn, seeded[0], seeded[1], env)
            if tree is None:
                return None
            trees.append(tree)
        return _join(trees[0], trees[1])
    if form == "while" and len(args) == 3:
        body, init, lead = args[1], args[2], []
    elif form == "fori" and len(args) == 4:
        body, init, lead = args[2], args[3], [_INDEX]
    elif form == "scan" and len(args) == 3:
        body, init, lead = args[0], args[1], []
    else:
        return None
    fn = _local_def(va, body)
    if fn is None:
        return None
    head: Tree = _tree_of(va, init, env)
    for _ in range(4):  # the loop analysis's own bound
        if form == "scan":
            elem = _element(va, args[2], env)
            seeded = _seed_params(va, fn, [head, elem], [init, None], env)
        else:
            seeded = _seed_params(va, fn, lead + [head], [None] * len(lead) + [init], env)
        if seeded is None:
            return None
        out = _returned(va, fn, seeded[0], seeded[1], env)
        if form == "scan":
            if not isinstance(out, list) or len(out) != 2:
                return None
            out = out[0]
        if out is None:
            return None
        new = _join(head, out)
        if new is None:
            return None
        if new == head:
            break
        head = new
    if form == "scan":
        return [head, Value(Kind.TRACED)]
    return head


def _local_def(va: ValueAnalysis, node) -> gast.FunctionDef | None:
    if not isinstance(node, gast.Name):
        return None
    fn = va.local_def(node.id)
    if fn is None:
        return None
    a = fn.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults or fn.decorator_list:
        return None
    return fn


def _seed_params(va, fn, values: list, operands: list, env: Env):
    """(parameter values, packed tuples) for calling ``fn`` with ``operands``: each parameter is
    the operand's own name (or ``_``, or takes a tuple unpacked in the body); None otherwise."""
    params = [p.id for p in fn.args.args]
    if len(params) != len(values):
        return None
    param_values: dict[str, Value] = {}
    packed: dict[str, list[Value]] = {}
    for p, v, op in zip(params, values, operands, strict=True):
        if v is None:  # a cond operand: passed by name
            if not isinstance(op, gast.Name) or op.id != p:
                return None
            v = va.value(op, env)
        if isinstance(v, list):
            flat = [e if isinstance(e, Value) else Value(Kind.TRACED) for e in v]
            packed[p] = flat
            param_values[p] = Value(Kind.TRACED, scalar=False)
        else:
            if isinstance(op, gast.Name) and op.id != p and p != "_":
                return None  # a single carry under another name
            param_values[p] = v
    return param_values, packed


def _tree_of(va: ValueAnalysis, node, env: Env) -> Tree:
    if isinstance(node, gast.Tuple):
        return [_tree_of(va, e, env) for e in node.elts]
    return va.value(node, env)


def _element(va: ValueAnalysis, xs, env: Env) -> Tree:
    """A scanned element: a row of the array (a view of it, as `for row in x` binds)."""
    if isinstance(xs, gast.Tuple):
        return [_element(va, e, env) for e in xs.elts]
    v = va.value(xs, env)
    alias = xs.id if isinstance(xs, gast.Name) and v.kind in (Kind.TRACED, Kind.NUMPY) else None
    return Value(Kind.TRACED, v.dtype, alias_of=alias)


def _returned(va: ValueAnalysis, fn, params: dict, packed: dict, env: Env) -> Tree | None:
    """The join of what ``fn`` returns, analysed with ``params``; None where unknown."""
    from .values import ValueAnalysis

    enclosing = {**va.enclosing, **env}
    sub = ValueAnalysis(fn, va.scope, va.activity, params, enclosing, outer=va, packed=packed)
    out: Tree | None = None
    found = False
    for ret in _returns(fn.body):
        at = sub.env_before.get(id(ret))
        if at is None:
            continue
        if ret.value is None:
            return None
        tree = _expr_tree(sub, ret.value, at)
        if tree is None:
            return None
        out = tree if not found else _join(out, tree)
        found = True
        if out is None:
            return None
    return out


def _expr_tree(sub: ValueAnalysis, node, env: Env) -> Tree | None:
    if isinstance(node, gast.Tuple):
        elts = [_expr_tree(sub, e, env) for e in node.elts]
        return None if any(e is None for e in elts) else elts  # type: ignore[return-value]
    if isinstance(node, gast.Call):
        tree = results(sub, node, env)
        if tree is not None:
            return tree
        name = dotted_name(node.func) or ""
        if (
            name.endswith(".asarray")
            and node.args
            and isinstance(node.args[0], gast.Name)
            and (sub.scope.qualified(name) or "") == "jax.numpy.asarray"
        ):
            # `jnp.asarray(t, dtype)`: a branch output given the other branch's type (the
            # original kept `t` itself)
            return sub.value(node.args[0], env)
    return sub.value(node, env)


def _returns(stmts) -> list:
    out = []
    for s in stmts:
        if isinstance(s, gast.Return):
            out.append(s)
        elif isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        else:
            for f in ("body", "orelse", "finalbody"):
                sub = getattr(s, f, None)
                if isinstance(sub, list):
                    out.extend(_returns(sub))
            for h in getattr(s, "handlers", []) or []:
                out.extend(_returns(h.body))
    return out


def _join(a: Tree | None, b: Tree | None) -> Tree | None:
    if a is None or b is None:
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return None
        out = [_join(x, y) for x, y in zip(a, b, strict=True)]
        return None if any(o is None for o in out) else out  # type: ignore[return-value]
    if isinstance(a, Value) and isinstance(b, Value):
        return a.join(b)
    return None


def apply(target, tree: Tree, env: Env, full: bool) -> None:
    """After the assignment's own binding: the aliases of ``tree`` onto ``target``'s names (the
    whole values where ``full``)."""
    if isinstance(target, gast.Name):
        if isinstance(tree, Value):
            cur = env.get(target.id)
            if full or cur is None:
                env[target.id] = tree
            else:
                env[target.id] = Value(cur.kind, cur.dtype, cur.scalar, tree.alias_of, cur.shape_of)
        return
    if isinstance(target, (gast.Tuple, gast.List)) and isinstance(tree, list):
        if len(tree) != len(target.elts) or any(isinstance(t, gast.Starred) for t in target.elts):
            return
        for t, sub in zip(target.elts, tree, strict=True):
            apply(t, sub, env, full)
