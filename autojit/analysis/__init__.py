"""Analyses computed once per function and shared by every converter (`effects` and
`statements`: questions about a block of the function, asked by the converters)."""

from __future__ import annotations

import gast

from ..scope import ModuleScope
from .activity import Activity, ActivityAnalysis, param_names
from .dataflow import Definedness, Liveness, terminates
from .values import STATIC, TRACED, UNKNOWN, Kind, Value, ValueAnalysis, dotted_name

__all__ = [
    "Activity",
    "FunctionAnalysis",
    "Kind",
    "Value",
    "dotted_name",
    "terminates",
]


class FunctionAnalysis:
    """Activity, liveness, definedness and traced/static values of one function.

    ``static_params`` are the parameters known to be static (declared by the user, or inferred by
    :mod:`autojit.analysis.statics`); every other array-like parameter is traced.
    """

    def __init__(
        self,
        fn,
        scope: ModuleScope,
        static_params: set[str] | None = None,
        enclosing: dict[str, Value] | None = None,
        activity: ActivityAnalysis | None = None,
    ) -> None:
        # ``activity``: a fresh ActivityAnalysis, or one already filled for ``fn``'s statements on
        # this same tree (`ActivityAnalysis.take_nested` of its enclosing function's)
        self.fn = fn
        self.scope = scope
        self.params = param_names(fn.args)
        self.static_params = set(static_params or ())
        self.activity = activity if activity is not None else ActivityAnalysis()
        self.liveness = Liveness(fn, self.activity)
        self.definedness = Definedness(fn, self.activity, set(self.params))
        self.values = ValueAnalysis(fn, scope, self.activity, self._param_values(), enclosing)

    def _param_values(self) -> dict[str, Value]:
        args = self.fn.args
        out: dict[str, Value] = {}
        positional = args.posonlyargs + args.args
        defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        pairs = list(zip(positional, defaults, strict=True)) + list(
            zip(args.kwonlyargs, args.kw_defaults, strict=True)
        )
        for i, (p, default) in enumerate(pairs):
            name = p.id
            if name in self.static_params:
                out[name] = STATIC
            elif i == 0 and name in ("self", "cls") and args.posonlyargs + args.args:
                out[name] = STATIC
            elif isinstance(default, gast.Constant) and (
                default.value is None or isinstance(default.value, (bool, str))
            ):
                # a flag or option: a Python value chosen by the caller
                out[name] = STATIC
            elif _static_annotation(p.annotation):
                out[name] = STATIC
            elif _container_annotation(p.annotation) is not None:
                out[name] = Value(_container_annotation(p.annotation))
            else:
                out[name] = TRACED
        if args.vararg is not None:
            out[args.vararg.id] = UNKNOWN
        if args.kwarg is not None:
            out[args.kwarg.id] = Value(Kind.DICT)
        return out

    # -- convenience ---------------------------------------------------------------------------
    def value(self, expr, stmt) -> Value:
        return self.values.value_at(expr, stmt)

    def live_out(self, stmt) -> frozenset[str]:
        return self.liveness.live_out.get(id(stmt), frozenset())

    def live_in(self, stmt) -> frozenset[str]:
        return self.liveness.live_in.get(id(stmt), frozenset())

    def defined_before(self, stmt) -> frozenset[str]:
        return self.definedness.defined_before.get(id(stmt), frozenset())

    def maybe_defined_before(self, stmt) -> frozenset[str]:
        return self.definedness.maybe_defined_before.get(id(stmt), frozenset())

    def env_before(self, stmt) -> dict[str, Value]:
        return self.values.env_before.get(id(stmt), {})


def _container_annotation(ann) -> Kind | None:
    """The kind of a parameter annotated as a Python list or dict (`l: list`, `list[int]`,
    `typing.Dict[str, float]`): a container whose items the function may change, never an
    array (`l[0] = 5` stays as written). None for any other annotation."""
    if isinstance(ann, gast.Subscript):
        ann = ann.value
    name = dotted_name(ann) if ann is not None else None
    if name in ("list", "List", "typing.List"):
        return Kind.LIST
    if name in ("dict", "Dict", "typing.Dict"):
        return Kind.DICT
    return None


def _static_annotation(ann) -> bool:
    name = dotted_name(ann) if ann is not None else None
    return name in ("str", "bool", "Callable", "typing.Callable")
