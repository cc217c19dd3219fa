"""What decides an expression's dtype where only arrays' names and number literals make it:
shared by the checks that a rewrite keeps each path's dtype (`jnp.where` of two results, a
Python number on one path of a `lax.cond` and an array on the other)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import gast

from .values import dotted_name

_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.FloorDiv, gast.Mod, gast.Pow)

#: dtype kinds in jax's order of promotion (a bool array with an int gives ints, ...)
KIND_RANK = {"bool": 0, "int": 1, "float": 2}

#: why a Python number and an array of the same value differ (the refusals' messages)
WEAK_TYPE_REASON = (
    "a Python number takes the other operand's dtype, `y * 2.0` of a float16 `y` is float16; "
    "a float32 array makes it float32"
)


@dataclass(frozen=True)
class DtypeSource:
    """What decides an expression's dtype where only arrays' names and number literals make
    it (`x`, `x[i]`, `-x`, `2 * x + s`, `x / 2`): jax's promotion of those arrays' dtypes,
    a float one where it has a true division or a float literal (``floats``), an int one of
    bools where it has int literals (``ints``)."""

    arrays: frozenset[str]
    floats: bool
    ints: bool


def dtype_source(expr, qualified: Callable[[str], str | None]) -> DtypeSource | None:
    """The :class:`DtypeSource` of ``expr``, or None where something else (a call, a
    comparison) takes part; `jnp.where(c, a, b)` (an `if` converted before) promotes its
    ``a`` and ``b``. ``qualified``: the module's names' full names."""
    if isinstance(expr, gast.Call) and len(expr.args) == 3 and not expr.keywords:
        fname = dotted_name(expr.func)
        if fname is not None and qualified(fname) == "jax.numpy.where":
            promoted = gast.BinOp(left=expr.args[1], op=gast.Add(), right=expr.args[2])
            return dtype_source(promoted, qualified)
        return None
    if isinstance(expr, gast.Name):
        return DtypeSource(frozenset({expr.id}), False, False)
    if isinstance(expr, gast.Subscript) and isinstance(expr.value, gast.Name):
        return DtypeSource(frozenset({expr.value.id}), False, False)
    if isinstance(expr, gast.Attribute) and expr.attr in ("T", "mT"):
        return dtype_source(expr.value, qualified)
    kind = literal_kind(expr)
    if kind in ("int", "float"):
        return DtypeSource(frozenset(), kind == "float", kind == "int")
    if isinstance(expr, gast.UnaryOp) and isinstance(expr.op, (gast.USub, gast.UAdd)):
        return dtype_source(expr.operand, qualified)
    if isinstance(expr, gast.BinOp) and isinstance(expr.op, _ARITHMETIC):
        left, right = dtype_source(expr.left, qualified), dtype_source(expr.right, qualified)
        if left is None or right is None:
            return None
        return DtypeSource(
            left.arrays | right.arrays,
            left.floats or right.floats or isinstance(expr.op, gast.Div),
            left.ints or right.ints,
        )
    return None


def literal_kind(expr) -> str | None:
    """The kind of a Python number written as a literal (`2`, `-0.5`, `True`), or None."""
    if isinstance(expr, gast.UnaryOp) and isinstance(expr.op, (gast.USub, gast.UAdd)):
        expr = expr.operand
    if isinstance(expr, gast.Constant):
        t = type(expr.value)
        return {bool: "bool", int: "int", float: "float"}.get(t)
    return None


def covers(
    other: DtypeSource | None, array: DtypeSource | None, number_float: bool, carried: bool
) -> bool:
    """Whether arithmetic of ``other`` with a value that is a Python number (a float where
    ``number_float``) on one path and an array made from ``array`` on the other gives one
    dtype on both: where every array that made it takes part in ``other`` too, its dtype is
    in ``other``'s promotion either way (`x * total` of `total = total + x[i]`). A float on
    one side only can still tell them apart: of the number's path where ``carried`` (a loop's
    carry, whose array is its start promoted through the loop), of both paths otherwise."""
    if other is None or array is None or not array.arrays <= other.arrays:
        return False
    if carried:
        return other.floats or number_float or not array.floats
    return other.floats or array.floats == number_float


def covering(
    array: DtypeSource | None,
    number_float: bool,
    carried: bool,
    qualified: Callable[[str], str | None],
) -> Callable[[object], bool] | None:
    """``covered`` of :func:`autojit.analysis.effects.read_telling_weak_from_strong`: whether
    an operand expression :func:`covers` ``array``. None where ``array`` is."""
    if array is None:
        return None
    return lambda other: covers(dtype_source(other, qualified), array, number_float, carried)
