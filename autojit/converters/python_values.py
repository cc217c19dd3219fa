"""AJ945: a Python number (or comparison) taken of a traced value, reported.

``float(t)``, ``int(t)``, ``complex(t)``, ``bool(t)`` (outside a test, which the conditionals
rewrite), ``t.item()`` and ``t.tolist()`` ask for the concrete
value of ``t``, which jit does not have (``ConcretizationTypeError``); the builtin ``min(s, t)``
/ ``max(s, t)`` compare their arguments in Python (``TracerBoolConversionError``). No rewrite
keeps their meaning in every case (``max(nan, 1.)`` is nan and ``max(1., nan)`` is 1., where
``jnp.maximum`` gives nan for both), so each such call on a value the analysis knows is traced
is reported, with what to write instead, and left as it is. The report changes nothing else:
the statement and the ``if`` or loop around it are converted as before.

A parameter used so (``int(n)``) is no traced value: the static-argument analysis makes it
static (AJ4xx), which is what the call needs. A call in the body of a ``try`` with ``except``
handlers is not reported (the code may catch the error itself).
"""

from __future__ import annotations

import gast

from ..gastconv import NODE_FIELDS
from .base import Context, WordTrigger

CODES = ("AJ945",)

# what a function's text must contain for this converter to have work there (a superset)
TRIGGER = WordTrigger("float|int|complex|bool|min|max|item|tolist", tail=r"\s*\(")

_NUMBER_BUILTINS = {
    "float": "a Python float",
    "int": "a Python int",
    "complex": "a Python complex",
    "bool": "a Python bool",
}
_NUMBER_METHODS = {"item": "a Python number", "tolist": "Python lists of numbers"}
_COMPARING_BUILTINS = {"min": "minimum", "max": "maximum"}
_REPORTED_BUILTINS = frozenset(_NUMBER_BUILTINS) | frozenset(_COMPARING_BUILTINS)


def convert(ctx: Context) -> None:
    if not getattr(ctx.fn, "_aj_orig", False):
        return  # (generated functions hold the user's calls, reported where they were written)
    writes = ctx.analysis.activity.of_block(ctx.fn.body).writes
    for s in _unguarded_statements(ctx.fn.body):
        for node, in_test in _own_calls(s):
            _check(ctx, s, node, writes, in_test)


def _unguarded_statements(block) -> list:
    """The statements of ``block`` at any depth, but for those in the body of a `try` with
    `except` handlers (the code may catch the error itself: `try: n = int(n) except
    ConcretizationTypeError: ...`) and in nested functions and classes (units of their own)."""
    out: list = []
    stack = list(reversed(block))
    while stack:
        s = stack.pop()
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        out.append(s)
        inner = [] if isinstance(s, gast.Try) and s.handlers else list(getattr(s, "body", ()))
        inner += list(getattr(s, "orelse", None) or ())
        inner += list(getattr(s, "finalbody", None) or ())
        for h in getattr(s, "handlers", None) or ():
            inner += h.body
        for c in getattr(s, "cases", None) or ():
            inner += c.body
        stack += reversed(inner)
    return out


def _own_calls(s) -> list[tuple[object, bool]]:
    """The calls in ``s``'s own expressions (not in the statements of its blocks, nor in a
    lambda's body, which runs later, where its names may hold other values), each with
    whether it lies in a test (`if`, `while`, `assert`, a ternary's) or an operand of
    `and` / `or` / `not`."""
    stack: list[tuple[object, bool]] = []
    for field, value in gast.iter_fields(s):
        if field in ("body", "orelse", "finalbody", "handlers", "cases"):
            continue
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, gast.expr):
                stack.append((v, field == "test"))
    out = []
    while stack:
        n, in_test = stack.pop()
        if isinstance(n, gast.Lambda):
            continue
        if isinstance(n, gast.Call):
            out.append((n, in_test))
        if isinstance(n, gast.IfExp):
            stack += [(n.test, True), (n.body, in_test), (n.orelse, in_test)]
            continue
        if isinstance(n, gast.BoolOp) or (
            isinstance(n, gast.UnaryOp) and isinstance(n.op, gast.Not)
        ):  # (`bool(t) and u`: a truth the conditionals take of `t` itself)
            in_test = True
        for field in NODE_FIELDS[type(n)]:  # (its children but contexts and operators)
            v = getattr(n, field, None)
            if type(v) is list:
                stack += [(x, in_test) for x in v if isinstance(x, gast.AST)]
            elif isinstance(v, gast.AST):
                stack.append((v, in_test))
    return out


def _builtin(ctx: Context, func, writes) -> str | None:
    """The name of the builtin ``func`` calls, where neither the module nor the function binds
    that name."""
    if isinstance(func, gast.Name) and func.id not in writes and not ctx.scope.binds(func.id):
        return func.id
    return None


def _traced(ctx: Context, node, s) -> bool:
    try:
        return ctx.analysis.value(node, s).traced
    except Exception:  # noqa: BLE001 - a node the analysis has no value for: not known
        return False


def _check(ctx: Context, s, call, writes, in_test: bool) -> None:
    func = call.func
    if not (
        (isinstance(func, gast.Name) and func.id in _REPORTED_BUILTINS)
        or (isinstance(func, gast.Attribute) and func.attr in _NUMBER_METHODS)
    ):
        return  # (no call this rule reports: its text is not looked up)
    text = ctx.source.original(call) if getattr(call, "lineno", None) is not None else None
    shown = f"`{text}`" if text and "\n" not in text and len(text) <= 60 else "this call"
    name = _builtin(ctx, call.func, writes)
    args = [a for a in call.args if not isinstance(a, gast.Starred)]
    reason = None
    if name == "bool" and in_test:
        pass  # (`if bool(t > 0):` is a traced test: the conditionals rewrite it)
    elif name in _NUMBER_BUILTINS and len(args) == 1 and not call.keywords:
        if _traced(ctx, args[0], s):
            reason = (
                f"{shown} asks for {_NUMBER_BUILTINS[name]}, and its argument is traced under "
                f"jit, which has no concrete value (ConcretizationTypeError): keep it an array "
                f"(`.astype(...)` for another dtype), or take the number outside the jitted "
                f"function"
            )
    elif name in _COMPARING_BUILTINS and args and not call.keywords:
        if any(_traced(ctx, a, s) for a in args):
            jnp = ctx.names.jnp
            which = _COMPARING_BUILTINS[name]
            reason = (
                f"{shown} compares traced values in Python, which jit cannot "
                f"(TracerBoolConversionError): use `{jnp}.{which}(a, b)` for two values "
                f"(it gives NaN where either is NaN, where `{name}` depends on their order) or "
                f"`{jnp}.{name[:3]}(x)` over an array"
            )
    elif (
        isinstance(call.func, gast.Attribute)
        and call.func.attr in _NUMBER_METHODS
        and not call.args
        and not call.keywords
        and _traced(ctx, call.func.value, s)
    ):
        reason = (
            f"{shown} asks for {_NUMBER_METHODS[call.func.attr]}, and the array is traced "
            f"under jit, which has no concrete value (ConcretizationTypeError): keep the array, "
            f"or take its value outside the jitted function"
        )
    if reason is not None and ctx.allowed("AJ945", call):
        ctx.refuse("AJ945", call, reason)
