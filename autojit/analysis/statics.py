"""Static-argument inference: which parameters must be static under ``jax.jit``.

A parameter is static when its value reaches a shape, size or axis position of a jax call
(the table in :mod:`autojit.jaxapi`), directly or through local variables; when it picks a code
path as a Python flag; or when it is not an array at all (strings, callables).
"""

from __future__ import annotations

from dataclasses import dataclass

import gast

from ..jaxapi import SHAPE_ARGUMENTS
from ..scope import ModuleScope
from .activity import expr_activity, param_names
from .values import dotted_name


@dataclass(frozen=True)
class StaticReason:
    name: str
    node: gast.AST
    reason: str


def _reads(node) -> set[str]:
    return expr_activity(node).reads


def infer_static_params(fn, scope: ModuleScope) -> list[StaticReason]:
    params = param_names(fn.args)
    # local name -> parameters it is computed from (transitively)
    derived: dict[str, set[str]] = {p: {p} for p in params}
    assigns: list[tuple[set[str], set[str]]] = []
    for node in gast.walk(fn):
        if isinstance(node, gast.Assign):
            targets = set()
            for t in node.targets:
                targets |= expr_activity(t).writes
            assigns.append((targets, _reads(node.value) - _shape_only_reads(node.value)))
        elif isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
            assigns.append(({node.target.id}, _reads(node.value) | {node.target.id}))
    for _ in range(3):
        for targets, reads in assigns:
            src = set()
            for r in reads:
                src |= derived.get(r, set())
            for t in targets:
                derived.setdefault(t, set()).update(src)

    found: dict[str, StaticReason] = {}

    def mark(expr, why: str, at) -> None:
        for name in _reads(expr) - _shape_only_reads(expr):
            for p in derived.get(name, ()):
                if p in params and p not in found:
                    found[p] = StaticReason(p, at, why)

    for node in gast.walk(fn):
        if isinstance(node, gast.Call):
            qual = scope.qualified(dotted_name(node.func) or "") if dotted_name(node.func) else None
            method = node.func.attr if isinstance(node.func, gast.Attribute) else None
            spec = SHAPE_ARGUMENTS.get(qual or "") if qual else None
            if spec is None and method and qual is None:
                spec = SHAPE_ARGUMENTS.get(f"<method>.{method}")
            if spec is None:
                continue
            positions, keywords = spec
            label = qual or f".{method}()"
            for i, a in enumerate(node.args):
                if positions == "*" or i in positions:
                    mark(a, f"it is a shape, size or axis of {label}", a)
            for kw in node.keywords:
                if kw.arg in keywords:
                    mark(kw.value, f"it is the `{kw.arg}` of {label}", kw.value)
        elif isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Load):
            for part in _slice_bounds(node.slice):
                mark(part, "it is a slice bound, which sets the result's shape", part)
        elif isinstance(node, gast.Call) is False and isinstance(node, gast.For):
            it = node.iter
            if isinstance(it, gast.Call) and dotted_name(it.func) == "range":
                pass  # loops over a traced range are converted, not made static
    return list(found.values())


def _slice_bounds(sl) -> list:
    parts = []
    elts = sl.elts if isinstance(sl, gast.Tuple) else [sl]
    for e in elts:
        if isinstance(e, gast.Slice):
            lo, hi = e.lower, e.upper
            # x[i:i + 3] keeps a static size; only a bound alone sets the size
            if lo is not None and hi is not None and _same_base_offset(lo, hi):
                continue
            parts += [p for p in (lo, hi, e.step) if p is not None]
    return parts


def _same_base_offset(lo, hi) -> bool:
    return (
        isinstance(hi, gast.BinOp)
        and isinstance(hi.op, gast.Add)
        and gast.dump(hi.left) == gast.dump(lo)
        and isinstance(hi.right, gast.Constant)
    )


def _shape_only_reads(node) -> set[str]:
    """Names read only through `.shape` / `.ndim` / `len()`: those do not make them static."""
    out = set()
    for sub in gast.walk(node):
        if isinstance(sub, gast.Attribute) and sub.attr in ("shape", "ndim", "dtype", "size"):
            if isinstance(sub.value, gast.Name):
                out.add(sub.value.id)
        if (
            isinstance(sub, gast.Call)
            and dotted_name(sub.func) == "len"
            and sub.args
            and isinstance(sub.args[0], gast.Name)
        ):
            out.add(sub.args[0].id)
    # a name also read elsewhere in the expression is not shape-only
    plain = set()
    for sub in gast.walk(node):
        if isinstance(sub, gast.Name) and isinstance(sub.ctx, gast.Load):
            plain.add(sub.id)
    counted: dict[str, int] = {}
    for sub in gast.walk(node):
        if isinstance(sub, gast.Name):
            counted[sub.id] = counted.get(sub.id, 0) + 1
    return {n for n in out if counted.get(n, 0) == 1}


def static_param_index(fn, name: str) -> int | None:
    positional = [a.id for a in fn.args.posonlyargs + fn.args.args]
    return positional.index(name) if name in positional else None


def params_of(fn) -> list[str]:
    return param_names(fn.args)
