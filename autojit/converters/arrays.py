"""What is surely a jax array, not a Python list or tuple of arrays (a pytree): the question
a scan over a sequence, a rewrite of an array's in-place method and others must answer the same
way before they treat a value as one array."""

from __future__ import annotations

import ast

import gast

from ..analysis import FunctionAnalysis, dotted_name
from ..analysis.statements import walk_statements
from ..gastconv import walk_bfs
from ..jaxapi import SEQUENCE_RESULT_CALLS, SEQUENCE_RESULT_FORMS
from .base import Context

# attributes and methods that Python lists and tuples do not have
_ARRAY_ATTRS = {
    "shape",
    "ndim",
    "dtype",
    "size",
    "T",
    "mT",
    "at",
    "astype",
    "reshape",
    "ravel",
    "flatten",
    "squeeze",
    "transpose",
    "sum",
    "mean",
    "max",
    "min",
    "prod",
    "any",
    "all",
    "cumsum",
    "dot",
    "clip",
    "argmax",
    "argmin",
    "real",
    "imag",
    "conj",
    "std",
    "var",
    "round",
    "swapaxes",
}
_ARRAY_ONLY_OPS = (gast.Sub, gast.Div, gast.FloorDiv, gast.Mod, gast.Pow, gast.MatMult)


def known_array(ctx: Context, an: FunctionAnalysis, node, stmt) -> bool:
    """Whether ``node`` is surely a jax array, not a list or tuple of arrays (a pytree).

    The analysis calls every parameter traced; a parameter may as well be a list of layers.
    A value computed by jax operations is an array; a parameter (or a name from outside) needs
    evidence: an array-only attribute (``.shape``, ``.sum()``, ``.at``...) or operator on it
    somewhere in the function. (Not on the loop's element: the elements of a list of arrays
    are arrays too, and ``for w in layers: x = x @ w`` iterates such a list.)
    """
    if not an.value(node, stmt).traced:
        return False
    if isinstance(node, gast.Subscript):
        return known_array(ctx, an, node.value, stmt)
    if isinstance(node, _DISPLAYS) or _sequence_call(ctx, node):
        return False  # `(w1, w2)`, `jnp.split(x, 2)`, `helper(x)`: maybe a tuple of arrays
    if not isinstance(node, gast.Name):
        return True  # x.T, jnp.something(...), a * b: computed by jax
    name = node.id
    outside = name in an.params or name not in an.values.locals
    if not outside or name in an.activity.of_block(ctx.fn.body).writes:
        # assigned in this function from traced values: an array, unless one of its
        # assignments gives it a tuple or list
        return not _bound_to_sequence(ctx, ctx.fn, name)
    return _annotated_array(ctx.fn, name) or _array_evidence(ctx.fn, name)


_DISPLAYS = (gast.Tuple, gast.List, gast.Set, gast.ListComp, gast.SetComp, gast.GeneratorExp)


def _sequence_call(ctx: Context, node) -> bool:
    """A call that may give a list or tuple of arrays: one of jax's that does
    (``SEQUENCE_RESULT_CALLS``, or ``jnp.where(c)``...), or a function of this module's (which
    may return a tuple)."""
    if not isinstance(node, gast.Call):
        return False
    fname = dotted_name(node.func)
    if fname is None:
        return False
    qual = ctx.scope.qualified(fname) or (f"builtins.{fname}" if "." not in fname else fname)
    if qual in SEQUENCE_RESULT_CALLS:
        return True
    helper = ctx.scope.functions.get(fname)
    if helper is not None:
        return _returns_sequence(helper)
    if qual in SEQUENCE_RESULT_FORMS:
        name = qual.rsplit(".", 1)[-1]
        if name == "where":
            return len(node.args) == 1 and not node.keywords
        if name == "unique":
            return any((kw.arg or "").startswith("return_") for kw in node.keywords)
        return len(node.args) > 1  # atleast_*d of several arrays
    return False


def _bound_to_sequence(ctx: Context, fn, name: str) -> bool:
    """Whether an assignment in ``fn`` gives ``name`` a tuple or list: a display, a starred
    target (`head, *tail = x`), or a call that may return one."""
    for st in walk_statements(fn.body):
        if not isinstance(st, gast.Assign):
            continue
        for target in st.targets:
            if isinstance(target, gast.Name) and target.id == name:
                if isinstance(st.value, _DISPLAYS) or _sequence_call(ctx, st.value):
                    return True
            elif isinstance(target, (gast.Tuple, gast.List)):
                for elt in target.elts:
                    if (
                        isinstance(elt, gast.Starred)
                        and isinstance(elt.value, gast.Name)
                        and elt.value.id == name
                    ):
                        return True
    return False


def _annotated_array(fn, name: str) -> bool:
    """``x: jax.Array`` / ``np.ndarray`` / ``ArrayLike`` (which has no lists)."""
    args = fn.args
    for a in args.posonlyargs + args.args + args.kwonlyargs:
        if a.id == name and a.annotation is not None:
            text = dotted_name(a.annotation) or ""
            if isinstance(a.annotation, gast.Constant) and isinstance(a.annotation.value, str):
                text = a.annotation.value
            return text.split(".")[-1] in ("Array", "ndarray", "ArrayLike", "DeviceArray")
    return False


def _array_evidence(root, name: str) -> bool:
    for n in walk_bfs(root):  # (gast.walk's nodes in its order, listed at once)
        if (
            isinstance(n, gast.Attribute)
            and isinstance(n.value, gast.Name)
            and n.value.id == name
            and n.attr in _ARRAY_ATTRS
        ):
            return True
        if isinstance(n, gast.BinOp) and isinstance(n.op, _ARRAY_ONLY_OPS):
            if any(isinstance(o, gast.Name) and o.id == name for o in (n.left, n.right)):
                return True
        if (
            isinstance(n, gast.UnaryOp)
            and isinstance(n.op, gast.USub)
            and isinstance(n.operand, gast.Name)
            and n.operand.id == name
        ):
            return True
        if (
            isinstance(n, gast.Subscript)
            and isinstance(n.value, gast.Name)
            and n.value.id == name
            and isinstance(n.slice, gast.Tuple)
        ):
            return True  # x[i, j]: lists cannot take a tuple index
    return False


_AST_DISPLAYS = (ast.Tuple, ast.List, ast.Set, ast.ListComp, ast.SetComp, ast.GeneratorExp)


def _returns_sequence(helper) -> bool:
    """Whether a module function (an ``ast`` node) may return a tuple or list: one of its
    `return` values is a display (`return a, b`), or a call (which may give one)."""
    stack = list(helper.body)
    while stack:
        st = stack.pop()
        if isinstance(st, ast.Return) and st.value is not None:
            if isinstance(st.value, (*_AST_DISPLAYS, ast.Call)):
                return True
        elif not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for field in ("body", "orelse", "finalbody"):
                stack.extend(getattr(st, field, None) or ())
            for h in getattr(st, "handlers", None) or ():
                stack.extend(h.body)
    return False
