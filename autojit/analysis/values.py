"""Traced-or-static analysis: what each name holds at each statement.

A forward dataflow from the parameters. Every expression gets an abstract :class:`Value`:

- ``kind``: STATIC (a Python value known when jax traces: shapes, ndim, dtypes, constants, static
  arguments, modules), TRACED (a jax array or tracer), NUMPY (a mutable NumPy buffer), LIST, DICT
  (mutable Python containers), or UNKNOWN (the analysis cannot tell; rules pick the safe side).
- ``dtype``: 'bool', 'int', 'float' or None, as far as the expression shows it.
- ``scalar``: True for a 0-d value / Python scalar, False for an array of rank >= 1, None unknown.
- ``alias_of``: for a name bound to another array or a view of it (``y = x``, ``y = x[1:]``).
- ``shape_of``: the name of an array this value has exactly the shape of (``m = x > 0``).
"""

from __future__ import annotations

import enum
import re
from typing import NamedTuple

import gast

from ..jaxapi import (
    JAX_ARRAY_RETURNING_STATIC,
    NUMPY_BUFFER_CONSTRUCTORS,
    STATIC_ATTRIBUTES,
    STATIC_RESULT_CALLS,
)
from ..scope import ModuleScope, dotted_name
from .activity import ActivityAnalysis, expr_activity


class Kind(enum.Enum):
    STATIC = "static"
    TRACED = "traced"
    NUMPY = "numpy"
    LIST = "list"
    DICT = "dict"
    UNKNOWN = "unknown"


class Value(NamedTuple):
    """An abstract value: immutable (a named tuple, not a frozen dataclass: made, compared and
    hashed at a tuple's cost)."""

    kind: Kind
    dtype: str | None = None
    scalar: bool | None = None
    alias_of: str | None = None
    shape_of: str | None = None

    @property
    def traced(self) -> bool:
        return self.kind is Kind.TRACED

    @property
    def static(self) -> bool:
        return self.kind is Kind.STATIC

    def join(self, other: Value) -> Value:
        if self is other or self == other:  # (the same object: no field comparison)
            return self
        if self.kind == other.kind:
            kind = self.kind
        elif Kind.TRACED in (self.kind, other.kind) and Kind.STATIC in (self.kind, other.kind):
            # e.g. `i = 0` then `i = i + x`: a traced value on some path
            kind = Kind.TRACED
        else:
            kind = Kind.UNKNOWN
        return Value(
            kind,
            self.dtype if self.dtype == other.dtype else None,
            self.scalar if self.scalar == other.scalar else None,
            self.alias_of if self.alias_of == other.alias_of else None,
            self.shape_of if self.shape_of == other.shape_of else None,
        )


STATIC = Value(Kind.STATIC)
TRACED = Value(Kind.TRACED)
UNKNOWN = Value(Kind.UNKNOWN)

Env = dict[str, Value]

_NAME, _CONSTANT, _CALL, _ATTRIBUTE = gast.Name, gast.Constant, gast.Call, gast.Attribute

# what a constant is, by its Python type
_BOOL_CONSTANT = Value(Kind.STATIC, "bool", True)
_INT_CONSTANT = Value(Kind.STATIC, "int", True)
_FLOAT_CONSTANT = Value(Kind.STATIC, "float", True)
_OTHER_CONSTANT = Value(Kind.STATIC, None, None)

_COMPARE_OPS = (gast.Eq, gast.NotEq, gast.Lt, gast.LtE, gast.Gt, gast.GtE)


def _join_env(a: Env, b: Env) -> Env:
    out = dict(a)
    for k, v in b.items():
        out[k] = out[k].join(v) if k in out else v
    return out


def _text_constant(node) -> bool:
    return isinstance(node, gast.Constant) and isinstance(node.value, (str, bytes))


def _compares_to_text(node: gast.Compare) -> bool:
    """`a == "x"`, `a != b"x"`, `a in ("x", "y")`: an (in)equality with a string or bytes
    literal, or membership in a display of them."""
    operands = [node.left, *node.comparators]
    for k, op in enumerate(node.ops):
        left, right = operands[k], operands[k + 1]
        if isinstance(op, (gast.Eq, gast.NotEq)):
            if not (_text_constant(left) or _text_constant(right)):
                return False
        elif isinstance(op, (gast.In, gast.NotIn)):
            if not (
                isinstance(right, (gast.Tuple, gast.List, gast.Set))
                and right.elts
                and all(_text_constant(e) for e in right.elts)
            ):
                return False
        else:
            return False
    return True


class ValueAnalysis:
    """Abstract values of names before each statement, and of any expression there."""

    def __init__(
        self,
        fn,
        scope: ModuleScope,
        activity: ActivityAnalysis,
        param_values: dict[str, Value],
        enclosing: dict[str, Value] | None = None,
        outer: ValueAnalysis | None = None,
        packed: dict[str, list[Value]] | None = None,
    ) -> None:
        self.scope = scope
        # local function definitions seen so far (the functions of autojit's own lax.cond /
        # loops, see .generated), tuples a parameter holds, and the generated calls' results
        self.defs: dict[str, gast.FunctionDef] = {}
        self.outer = outer
        self.packed = packed or {}
        self.generated_cache: dict = outer.generated_cache if outer is not None else {}
        # values of the enclosing function's names, for a nested function's free variables
        self.enclosing = enclosing or {}
        self.activity = activity
        self.env_before: dict[int, Env] = {}
        self.env_after: dict[int, Env] = {}
        # the statements of those tables (and liveness's and definedness's, on the same tree),
        # kept alive: a freed statement's id may be given to a new one, which would find its entry
        self._keys: list = []
        self.locals: set[str] = set(param_values) | activity.of_block(fn.body).writes
        env: Env = dict(param_values)
        self.exit_env = self.block(fn.body, env)

    # -- statements ------------------------------------------------------------------------
    def block(self, stmts, env: Env) -> Env:
        for s in stmts:
            prev = self.env_before.get(id(s))
            if prev is None:
                self.env_before[id(s)] = dict(env)
                self._keys.append(s)
            else:
                self.env_before[id(s)] = _join_env(prev, env)
            env = self.stmt(s, dict(env))
            self.env_after[id(s)] = env
        return env

    def stmt(self, s, env: Env) -> Env:
        if isinstance(s, gast.Assign):
            v = self.value(s.value, env)
            if isinstance(s.value, gast.Name) and v.kind in (Kind.TRACED, Kind.NUMPY, Kind.UNKNOWN):
                v = v._replace(alias_of=s.value.id)  # `y = x`: both names are one array
            tree: object = None
            full = False
            if isinstance(s.value, gast.Call) and (self.defs or self.outer is not None):
                tree = generated.results(self, s.value, env)  # autojit's own lax.cond / loops
            elif isinstance(s.value, gast.Name) and s.value.id in self.packed:
                tree, full = self.packed[s.value.id], True  # a loop body unpacking its carry
            for t in s.targets:
                self.bind(t, v, env, s.value)
                if tree is not None:
                    generated.apply(t, tree, env, full)
            return env
        if isinstance(s, gast.AnnAssign):
            if s.value is not None:
                self.bind(s.target, self.value(s.value, env), env, s.value)
            return env
        if isinstance(s, gast.AugAssign):
            if isinstance(s.target, gast.Name):
                cur = env.get(s.target.id, self.global_value(s.target.id))
                if cur.kind not in (Kind.LIST, Kind.NUMPY):
                    _forget(env, s.target.id)  # (a jax array's `x += y` is a new array)
                new = self.binop(cur, self.value(s.value, env))
                if cur.kind in (Kind.LIST, Kind.NUMPY):
                    new = cur._replace(alias_of=None)
                env[s.target.id] = new._replace(alias_of=None)
            return env
        if isinstance(s, gast.If):
            test = self.value(s.test, env)  # (first: a `:=` in it binds for both branches)
            a = self.block(s.body, dict(env))
            b = self.block(s.orelse, dict(env))
            joined = _join_env(a, b)
            if test.traced:
                # a traced `if` becomes lax.cond / jnp.where: what it assigns is traced after it
                for name in self.activity.of(s).writes:
                    if name in joined and joined[name].kind in (Kind.STATIC, Kind.UNKNOWN):
                        joined[name] = joined[name]._replace(kind=Kind.TRACED)
            return joined
        if isinstance(s, (gast.For, gast.While)):
            if isinstance(s, gast.For):
                self.bind_loop_target(s, env, env)
            head = dict(env)
            for _ in range(4):
                after_body = self.block(s.body, dict(head))
                if isinstance(s, gast.For):
                    self.bind_loop_target(s, head, after_body)
                new_head = _join_env(head, after_body)
                if new_head == head:
                    break
                head = new_head
            return self.block(s.orelse, head)
        if isinstance(s, (gast.With, gast.AsyncWith)):
            for item in s.items:
                if item.optional_vars is not None:
                    self.bind(item.optional_vars, UNKNOWN, env, None)
            return self.block(s.body, env)
        if isinstance(s, gast.Try):
            e = self.block(s.body, dict(env))
            for h in s.handlers:
                e = _join_env(e, self.block(h.body, dict(env)))
            e = self.block(s.orelse, e)
            return self.block(s.finalbody, e)
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            env[s.name] = STATIC
            if isinstance(s, gast.FunctionDef):
                self.defs[s.name] = s
            return env
        # anything else: names it writes become unknown
        for name in self.activity.of(s).writes:
            _forget(env, name)
            env[name] = UNKNOWN
        return env

    def bind(self, target, v: Value, env: Env, value_node) -> None:
        if isinstance(target, gast.Name):
            _forget(env, target.id)
            env[target.id] = v
        elif isinstance(target, (gast.Tuple, gast.List)):
            # every value is taken before any name is bound (`s, t = t, s` swaps), and a fact
            # about a name the statement rebinds (`x, w = x * 2, x[1:]`: w views the old x)
            # is not one about its new value
            pairs: list[tuple[str, Value]] = []
            self._element_values(target, v, value_node, env, pairs)
            rebound = {name for name, _ in pairs}
            for name, ev in pairs:
                if ev.alias_of in rebound or ev.shape_of in rebound:
                    ev = ev._replace(
                        alias_of=None if ev.alias_of in rebound else ev.alias_of,
                        shape_of=None if ev.shape_of in rebound else ev.shape_of,
                    )
                _forget(env, name)
                env[name] = ev
        elif isinstance(target, gast.Starred):
            self.bind(target.value, v, env, None)
        # subscript/attribute stores: the container keeps its kind

    def _element_values(self, target, v: Value, value_node, env: Env, out: list) -> None:
        """(name, value) for each name of a tuple or list target given ``v`` (``value_node``:
        its expression, where known), every value taken in ``env`` as it is before the
        statement."""
        if isinstance(target, gast.Name):
            out.append((target.id, v))
        elif isinstance(target, gast.Starred):
            self._element_values(target.value, v, None, env, out)
        elif isinstance(target, (gast.Tuple, gast.List)):
            elts = None
            if isinstance(value_node, (gast.Tuple, gast.List)) and len(value_node.elts) == len(
                target.elts
            ):
                elts = value_node.elts
            for i, t in enumerate(target.elts):
                if isinstance(t, gast.Starred):
                    rest = Value(Kind.LIST) if v.static else v
                    self._element_values(t.value, rest, None, env, out)
                elif elts is not None:
                    self._element_values(t, self.value(elts[i], env), elts[i], env, out)
                else:
                    ev = Value(v.kind) if v.kind in (Kind.STATIC, Kind.TRACED) else UNKNOWN
                    self._element_values(t, ev, None, env, out)
        # subscript/attribute stores: the container keeps its kind

    def bind_loop_target(self, s, env: Env, into: Env) -> None:
        """Bind a for loop's target; rows of an array are views of it (`for row in x`)."""
        self.bind(s.target, self.iter_element(s.iter, env), into, None)
        pairs = []
        it, t = s.iter, s.target
        if isinstance(it, gast.Name):
            pairs.append((t, it))
        elif isinstance(it, gast.Call) and isinstance(t, (gast.Tuple, gast.List)):
            fn = dotted_name(it.func)
            if fn == "enumerate" and len(it.args) == 1 and len(t.elts) == 2:
                pairs.append((t.elts[1], it.args[0]))
            elif fn == "zip" and len(it.args) == len(t.elts):
                pairs.extend(zip(t.elts, it.args, strict=True))
        for target, source in pairs:
            if isinstance(target, gast.Name) and isinstance(source, gast.Name):
                v = self.value(source, env)
                if v.kind in (Kind.TRACED, Kind.NUMPY, Kind.UNKNOWN):
                    cur = into.get(target.id, UNKNOWN)
                    into[target.id] = cur._replace(alias_of=source.id)

    def iter_element(self, it, env: Env) -> Value:
        if isinstance(it, gast.Call):
            fn = dotted_name(it.func)
            args = [self.value(a, env) for a in it.args]
            if fn == "range":
                if all(a.static for a in args):
                    return Value(Kind.STATIC, "int", True)
                return Value(Kind.TRACED, "int", True)
            if fn == "enumerate":
                return UNKNOWN
        v = self.value(it, env)
        if v.traced:
            return Value(Kind.TRACED, v.dtype)
        if v.static or v.kind is Kind.LIST:
            return STATIC if v.static else UNKNOWN
        return UNKNOWN

    def global_value(self, name: str) -> Value:
        if name in self.enclosing:
            v = self.enclosing[name]
            return v._replace(alias_of=None)
        if name in self.scope.modules or name in self.scope.imported_names:
            return STATIC
        if name in self.scope.constants or name in self.scope.functions:
            return STATIC
        if name in self.scope.classes:
            return STATIC
        if name in _BUILTINS:
            return STATIC
        return UNKNOWN

    def local_def(self, name: str) -> gast.FunctionDef | None:
        """The local function ``name`` defined before (here or in an enclosing analysis)."""
        va: ValueAnalysis | None = self
        while va is not None:
            if name in va.defs:
                return va.defs[name]
            va = va.outer
        return None

    # -- expressions -----------------------------------------------------------------------
    def value_at(self, node, stmt) -> Value:
        return self.value(node, self.env_before.get(id(stmt), {}))

    def binop(self, a: Value, b: Value) -> Value:
        if a.traced or b.traced:
            kind = Kind.TRACED
        elif a.kind is Kind.NUMPY or b.kind is Kind.NUMPY:
            kind = Kind.NUMPY if Kind.UNKNOWN not in (a.kind, b.kind) else Kind.UNKNOWN
        elif a.static and b.static:
            kind = Kind.STATIC
        else:
            kind = Kind.UNKNOWN
        scalar = (
            True if (a.scalar and b.scalar) else (False if False in (a.scalar, b.scalar) else None)
        )
        return Value(kind, None, scalar)

    def value(self, node, env: Env) -> Value:
        if node is None:
            return STATIC
        t = type(node)  # (gast classes have no subclasses: `t is` tests `isinstance`)
        if t is _NAME:  # (the commonest: tested first)
            if node.id in env:
                return env[node.id]
            if node.id in self.locals:
                return UNKNOWN
            return self.global_value(node.id)
        if t is _CONSTANT:
            # (values are frozen: one per dtype, shared)
            c = node.value
            return (
                _BOOL_CONSTANT
                if isinstance(c, bool)
                else _INT_CONSTANT
                if isinstance(c, int)
                else _FLOAT_CONSTANT
                if isinstance(c, float)
                else _OTHER_CONSTANT
            )
        if t is _CALL:  # (frequent: tested before the rarer kinds)
            v = self.call(node, env)
            if node.keywords and v.traced and _keeps_dims(node):
                return v._replace(scalar=False)  # (`x.sum(axis=0, keepdims=True)`: an array)
            return v
        if t is _ATTRIBUTE:
            base = self.value(node.value, env)
            if node.attr in STATIC_ATTRIBUTES:
                return Value(Kind.STATIC, "int" if node.attr in ("ndim", "size") else None)
            if base.static:
                if node.attr in _FLOAT_CONSTANTS and isinstance(node.value, gast.Name):
                    return Value(Kind.STATIC, "float", True)  # jnp.nan, np.inf, math.pi
                return STATIC
            if base.traced:
                if node.attr in ("T", "mT", "real", "imag"):
                    alias = node.value.id if isinstance(node.value, gast.Name) else None
                    return Value(Kind.TRACED, base.dtype, base.scalar, alias_of=alias)
                return TRACED
            if base.kind is Kind.NUMPY and node.attr == "T":
                alias = node.value.id if isinstance(node.value, gast.Name) else None
                return Value(Kind.NUMPY, alias_of=alias)
            return UNKNOWN
        if isinstance(node, gast.Subscript):
            base = self.value(node.value, env)
            idx = self.value(node.slice, env)
            if base.static and idx.static:
                if (
                    isinstance(node.value, gast.Attribute)
                    and node.value.attr == "shape"
                    and not isinstance(node.slice, gast.Slice)
                ):
                    return Value(Kind.STATIC, "int", True)  # (`x.shape[0]`: a Python int)
                return STATIC
            if base.kind in (Kind.TRACED, Kind.NUMPY) or idx.traced:
                kind = Kind.TRACED if (base.traced or idx.traced) else Kind.NUMPY
                alias = None
                if isinstance(node.value, gast.Name) and _may_be_view(node.slice, idx):
                    alias = node.value.id
                # (a slice keeps its axis: `x[:1]` is an array, of one item or more)
                scalar = False if _is_basic_index(node.slice) else None
                return Value(kind, base.dtype, scalar, alias_of=alias)
            if base.kind in (Kind.LIST, Kind.DICT):
                return UNKNOWN
            return UNKNOWN
        if isinstance(node, gast.BinOp):
            a, b = self.value(node.left, env), self.value(node.right, env)
            v = self.binop(a, b)
            shape_of = _shape_source(node.left, a, node.right, b)
            if v.traced and isinstance(node.op, (gast.BitAnd, gast.BitOr, gast.BitXor)):
                if a.dtype == "bool" and b.dtype == "bool":
                    return Value(Kind.TRACED, "bool", v.scalar, shape_of=shape_of)
            if v.kind is Kind.LIST or (a.kind is Kind.LIST and isinstance(node.op, gast.Add)):
                return Value(Kind.LIST)
            if isinstance(node.op, gast.Mult) and Kind.LIST in (a.kind, b.kind):
                return Value(Kind.LIST)  # `[0] * n`: a Python list, mutable as it is
            return v._replace(shape_of=shape_of, dtype=arithmetic_dtype(node.op, a, b, v))
        if isinstance(node, gast.UnaryOp):
            v = self.value(node.operand, env)
            if isinstance(node.op, gast.Not):
                return Value(
                    v.kind if v.kind in (Kind.STATIC, Kind.TRACED) else Kind.UNKNOWN, "bool", True
                )
            if isinstance(node.op, gast.Invert) and v.dtype == "bool":
                return Value(v.kind, "bool", v.scalar, shape_of=_own_shape(node.operand, v))
            return Value(v.kind, v.dtype, v.scalar, shape_of=_own_shape(node.operand, v))
        if isinstance(node, gast.Compare):
            vals = [self.value(node.left, env)] + [self.value(c, env) for c in node.comparators]
            if any(isinstance(op, (gast.Is, gast.IsNot)) for op in node.ops):
                return Value(Kind.STATIC, "bool", True)
            if _compares_to_text(node):
                # `cfg.mode == "train"`: no array equals a string, so what is compared is a
                # Python value, and so is the answer
                return Value(Kind.STATIC, "bool", True)
            if any(isinstance(op, (gast.In, gast.NotIn)) for op in node.ops):
                kind = (
                    Kind.TRACED
                    if any(v.traced for v in vals)
                    else (Kind.STATIC if all(v.static for v in vals) else Kind.UNKNOWN)
                )
                return Value(kind, "bool", True)
            kinds = {v.kind for v in vals}
            if Kind.TRACED in kinds or Kind.NUMPY in kinds:
                kind = Kind.TRACED if Kind.TRACED in kinds else Kind.NUMPY
            elif kinds == {Kind.STATIC}:
                kind = Kind.STATIC
            else:
                kind = Kind.UNKNOWN
            shape_of = None
            operands = [node.left, *node.comparators]
            if len(operands) == 2:
                shape_of = _shape_source(operands[0], vals[0], operands[1], vals[1])
            # (an array operand keeps its axes; Python compares a tuple display as a whole)
            arrays = [
                v for v, o in zip(vals, operands, strict=True) if not isinstance(o, _DISPLAYS)
            ]
            scalar = (
                True
                if all(v.scalar for v in vals)
                else (False if any(v.scalar is False for v in arrays) else None)
            )
            return Value(kind, "bool", scalar, shape_of=shape_of)
        if isinstance(node, gast.BoolOp):
            vals = [self.value(v, env) for v in node.values]
            out = vals[0]
            for v in vals[1:]:
                out = out.join(v)
            return out._replace(alias_of=None)
        if isinstance(node, gast.IfExp):
            test = self.value(node.test, env)
            out = self.value(node.body, env).join(self.value(node.orelse, env))
            if test.traced and out.kind in (Kind.STATIC, Kind.UNKNOWN):
                # a traced test selects under jit (jnp.where / lax.cond): a traced result (as
                # for what a traced `if` assigns)
                out = out._replace(kind=Kind.TRACED, alias_of=None)
            return out
        if isinstance(node, (gast.List, gast.ListComp)):
            return Value(Kind.LIST)
        if isinstance(node, (gast.Dict, gast.DictComp)):
            return Value(Kind.DICT)
        if isinstance(node, (gast.Set, gast.SetComp, gast.GeneratorExp)):
            return UNKNOWN
        if isinstance(node, gast.Tuple):
            vals = [self.value(e, env) for e in node.elts]
            if all(v.static for v in vals):
                return STATIC
            if any(v.traced for v in vals):
                return Value(Kind.TRACED, scalar=False)
            return UNKNOWN
        if isinstance(node, gast.Slice):
            vals = [self.value(p, env) for p in (node.lower, node.upper, node.step) if p]
            return Value(Kind.TRACED) if any(v.traced for v in vals) else STATIC
        if isinstance(node, gast.Lambda):
            return STATIC
        if isinstance(node, gast.NamedExpr):
            v = self.value(node.value, env)
            _forget(env, node.target.id)
            env[node.target.id] = v
            return v
        if isinstance(node, gast.JoinedStr):
            return STATIC
        if isinstance(node, gast.Starred):
            return self.value(node.value, env)
        return UNKNOWN

    def call(self, node: gast.Call, env: Env) -> Value:
        name = dotted_name(node.func)
        args = [self.value(a, env) for a in node.args] + [
            self.value(k.value, env) for k in node.keywords
        ]
        any_traced = any(a.traced for a in args)
        all_static = all(a.static for a in args)
        qual = self.scope.qualified(name) if name else None
        if qual is None and name in _BUILTINS:
            qual = f"builtins.{name}"
        if qual:
            if qual in STATIC_RESULT_CALLS:
                return Value(Kind.STATIC, "int" if qual in ("builtins.len",) else None, True)
            if qual in ("builtins.int", "builtins.float", "builtins.bool"):
                dtype = qual.split(".")[1]
                return Value(
                    Kind.TRACED if any_traced else (Kind.STATIC if all_static else Kind.UNKNOWN),
                    dtype,
                    True,
                )
            if qual == "builtins.slice":
                return STATIC  # (a Python object, whatever its bounds: never an array)
            if qual in ("builtins.list",):
                return Value(Kind.LIST)
            if qual in ("builtins.dict",):
                return Value(Kind.DICT)
            if qual in (
                "builtins.range",
                "builtins.tuple",
                "builtins.str",
                "builtins.isinstance",
                "builtins.callable",
                "builtins.type",
                "builtins.hasattr",
            ):
                return STATIC if not any_traced else UNKNOWN
            if qual in (
                "builtins.abs",
                "builtins.min",
                "builtins.max",
                "builtins.sum",
                "builtins.round",
            ):
                return Value(
                    Kind.TRACED if any_traced else (Kind.STATIC if all_static else Kind.UNKNOWN)
                )
            if qual.startswith("jax."):
                return self.jax_call(qual, node, env, args)
            if qual.startswith("numpy."):
                if any_traced:
                    return TRACED
                short = qual.rsplit(".", 1)[1]
                if short in NUMPY_BUFFER_CONSTRUCTORS:
                    return Value(Kind.NUMPY, scalar=False)
                return Value(Kind.STATIC) if all_static else UNKNOWN
            if qual.startswith("builtins."):
                return STATIC if all_static else (TRACED if any_traced else UNKNOWN)
        # methods on values
        if isinstance(node.func, gast.Attribute):
            base = self.value(node.func.value, env)
            method = node.func.attr
            if base.traced:
                if method in ("astype",) and node.args:
                    dtype = _dtype_kind(node.args[0])
                    return Value(
                        Kind.TRACED, dtype, base.scalar, shape_of=_own_shape(node.func.value, base)
                    )
                if method in ("any", "all") and not node.args and not node.keywords:
                    return Value(Kind.TRACED, "bool", True)
                if method in (
                    "sum",
                    "mean",
                    "max",
                    "min",
                    "prod",
                    "std",
                    "var",
                    "argmax",
                    "argmin",
                ):
                    if not node.args and all(
                        k.arg in _WHOLE_ARRAY_KEYWORDS for k in node.keywords
                    ):
                        return Value(Kind.TRACED, _reduced_dtype(method, base.dtype), True)
                if method == "item":
                    return Value(Kind.TRACED, None, True)
                if method in ("tolist",):
                    return UNKNOWN
                if method in ("copy",):
                    return Value(
                        Kind.TRACED,
                        base.dtype,
                        base.scalar,
                        shape_of=_own_shape(node.func.value, base),
                    )
                if method in _VIEW_METHODS and isinstance(node.func.value, gast.Name):
                    # NumPy returns a view: the result shares the array's memory
                    return Value(Kind.TRACED, base.dtype, alias_of=node.func.value.id)
                return TRACED
            if base.kind is Kind.NUMPY:
                if any_traced:
                    return TRACED
                if method in ("copy", "astype", "reshape", "ravel", "flatten"):
                    alias = (
                        node.func.value.id
                        if method in ("reshape", "ravel") and isinstance(node.func.value, gast.Name)
                        else None
                    )
                    return Value(Kind.NUMPY, alias_of=alias)
                return UNKNOWN
            if base.kind is Kind.LIST and method in ("copy",):
                return Value(Kind.LIST)
            if base.static and all_static:
                return UNKNOWN
        if name is not None and (
            name in self.scope.classes or name.rsplit(".", 1)[-1][:1].isupper()
        ):
            # `Pair(x, y)`, `State(...)`: a class makes an object (a NamedTuple, a dataclass)
            # holding the arrays, not an array
            return UNKNOWN
        if any_traced:
            return TRACED
        return UNKNOWN

    def jax_call(self, qual: str, node: gast.Call, env: Env, args: list[Value]) -> Value:
        short = qual.rsplit(".", 1)[1]
        if qual in JAX_ARRAY_RETURNING_STATIC:
            return STATIC
        if qual.startswith("jax.numpy.") and node.args and _SCALAR_TYPE.fullmatch(short):
            # `jnp.float32(0)`: a scalar array; under jit every operation on it is traced
            # (`jnp.float32(0) > 1` cannot decide a Python `if`). Of an array, an array of its
            # shape (`jnp.int32(x * 10)`)
            arg = args[0] if args else UNKNOWN
            if arg.scalar is True or isinstance(node.args[0], gast.Constant):
                return Value(Kind.TRACED, _dtype_kind(node.func), True)
            shape_of = node.args[0].id if isinstance(node.args[0], gast.Name) else arg.shape_of
            return Value(Kind.TRACED, _dtype_kind(node.func), arg.scalar, shape_of=shape_of)
        if short in (
            "isnan",
            "isinf",
            "isfinite",
            "logical_and",
            "logical_or",
            "logical_not",
            "logical_xor",
            "greater",
            "less",
            "equal",
            "not_equal",
            "greater_equal",
            "less_equal",
            "isclose",
            "signbit",
            "isneginf",
            "isposinf",
        ):
            # (the shape of its argument where it has one; of two, they broadcast: unknown)
            shape_of = None
            if len(node.args) == 1 and isinstance(node.args[0], gast.Name):
                shape_of = node.args[0].id
            return Value(Kind.TRACED, "bool", None, shape_of=shape_of)
        if short in _FLOAT_RESULT and qual.startswith("jax.numpy.") and len(node.args) == 1:
            # (a float for an int or bool argument too; complex stays complex, which no
            # Python number's kind outranks either)
            arg = args[0] if args else UNKNOWN
            shape_of = node.args[0].id if isinstance(node.args[0], gast.Name) else arg.shape_of
            return Value(Kind.TRACED, "float", arg.scalar, shape_of=shape_of)
        if short in ("any", "all") and len(node.args) == 1 and not node.keywords:
            return Value(Kind.TRACED, "bool", True)
        if short in ("argmax", "argmin") and len(node.args) == 1 and not node.keywords:
            return Value(Kind.TRACED, "int", True)
        if short == "arange":
            # ints where every bound is an int (`jnp.arange(n)`); `jnp.arange(0.5, 2.0)` and
            # `jnp.arange(n, dtype=jnp.float32)` are floats; a bound of unknown kind, unknown
            dt = [k.value for k in node.keywords if k.arg == "dtype"] + node.args[3:4]
            if dt:
                return Value(Kind.TRACED, _dtype_kind(dt[0]), False)
            bounds = [a.dtype for a in args[: min(3, len(node.args))]]
            if "float" in bounds:
                return Value(Kind.TRACED, "float", False)
            ints = bool(bounds) and all(b in ("int", "bool") for b in bounds)
            return Value(Kind.TRACED, "int" if ints else None, False)
        if short in ("zeros", "ones", "empty") and node.args and qual.startswith("jax.numpy."):
            # floats unless a dtype is given; one number where the shape is `()`
            shape = node.args[0]
            scalar = None
            if isinstance(shape, (gast.Tuple, gast.List)):
                scalar = not shape.elts
            elif isinstance(shape, gast.Constant) and type(shape.value) is int:
                scalar = False
            dt = [k.value for k in node.keywords if k.arg == "dtype"] + node.args[1:2]
            return Value(Kind.TRACED, _dtype_kind(dt[0]) if dt else "float", scalar)
        if short in (
            "argsort",
            "nonzero",
            "argwhere",
            "flatnonzero",
            "searchsorted",
            "digitize",
        ):
            return Value(Kind.TRACED, "int", False)
        if (
            short in ("sum", "mean", "max", "min", "prod", "dot", "vdot", "linalg.norm", "norm",
                      "std", "var")
            and len(node.args) == 1
            and all(k.arg in _WHOLE_ARRAY_KEYWORDS for k in node.keywords)
        ):  # fmt: skip
            # (`jnp.mean(x, where=m)`, the masked reductions' own form: a scalar too)
            dtype = _reduced_dtype(short, args[0].dtype if args else None)
            return Value(Kind.TRACED, dtype, True)
        if short == "count_nonzero" and len(node.args) == 1 and not node.keywords:
            return Value(Kind.TRACED, "int", True)
        if short in ("asarray", "array") and node.args:
            first = self.value(node.args[0], env)
            if (
                isinstance(node.args[0], gast.Name)
                and first.traced
                and len(node.args) == 1
                and not node.keywords
            ):
                return first._replace(alias_of=node.args[0].id if short == "asarray" else None)
            dt = [k.value for k in node.keywords if k.arg == "dtype"] + node.args[1:2]
            return Value(Kind.TRACED, _dtype_kind(dt[0]) if dt else first.dtype, first.scalar)
        if short in ("zeros_like", "ones_like", "full_like", "empty_like") and node.args:
            src = node.args[0].id if isinstance(node.args[0], gast.Name) else None
            return Value(Kind.TRACED, shape_of=src)
        if short == "where" and len(node.args) == 3 and not node.keywords:
            # what a ternary `a if c else b` becomes: one of the two, as the ternary's value is
            # (an alias only where both alias the same array, as the ternary's join gives)
            return _selected(args[1], args[2])  # (the arguments' values, computed once)
        if (
            qual == "jax.lax.cond"
            and len(node.args) == 3
            and all(_thunk(a) for a in node.args[1:])
            and not node.keywords
        ):
            # `lax.cond(p, lambda: a, lambda: b)`, the other form of a ternary
            return _selected(self.value(node.args[1].body, env), self.value(node.args[2].body, env))
        return TRACED


def _keeps_dims(node: gast.Call) -> bool:
    return any(
        k.arg == "keepdims" and isinstance(k.value, gast.Constant) and k.value.value is True
        for k in node.keywords
    )


_DISPLAYS = (gast.Tuple, gast.List)
_RANK = {"bool": 0, "int": 1, "float": 2}
_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv, gast.Mod, gast.Pow)


# keywords of a reduction that leave it a reduction of the whole array to one number
_WHOLE_ARRAY_KEYWORDS = frozenset({"where", "initial"})


def _reduced_dtype(reduction: str, dtype: str | None) -> str | None:
    """The kind of a whole-array reduction's result of an array of kind ``dtype``: a float for
    `std` / `var` (of complex ones too) and `mean` of a real array, an int for `argmax`, the
    array's own for `max` / `min`, and for `sum` / `prod` a float array's float or a bool or
    int array's int; None where it is not known."""
    if reduction in ("std", "var"):
        return "float"
    if reduction in ("argmax", "argmin"):
        return "int"
    if reduction == "mean":
        return "float" if dtype in ("bool", "int", "float") else None
    if reduction in ("max", "min"):
        return dtype if dtype in ("bool", "int", "float") else None
    if reduction in ("sum", "prod"):
        return {"bool": "int", "int": "int", "float": "float"}.get(dtype or "")
    return None


def mixed_returned_kinds(returned: list, value) -> tuple[int | None, list[str]] | None:
    """For the values that the paths of a traced choice return (``returned``: (expression,
    statement) pairs; ``value(expression, statement)`` their values): where in one place (the
    whole value, or item k of a tuple of the same length on every path) they are Python numbers
    or arrays of two kinds or more, every kind known ('bool' / 'int' / 'float'): (k or None,
    each kind in words, `a Python int`, `an array of floats`). Python returns each path's type;
    a traced result has one dtype (an int32 array promoted to float32 rounds past 2**24). None
    otherwise."""
    arities = {len(e.elts) if isinstance(e, gast.Tuple) else None for e, _ in returned}
    if len(arities) != 1:
        return None
    arity = arities.pop()
    for k in range(arity) if arity is not None else [None]:
        values = [value(e if k is None else e.elts[k], st) for e, st in returned]
        if any(not (v.static or v.traced) or v.dtype not in _RANK for v in values):
            continue
        if len({v.dtype for v in values}) > 1:
            words = {
                f"a Python {v.dtype}" if v.static else f"an array of {v.dtype}s" for v in values
            }
            return k, sorted(words)
    return None


def arithmetic_dtype(op, a: Value, b: Value, v: Value) -> str | None:
    """The kind of `a op b` where both operands' kinds are known and the operation is
    arithmetic: the higher of the two (an int array times a float is a float), a float for `/`;
    None for two bools (Python's `True + True` is 2, jax's a bool) and for Python containers."""
    if v.kind not in (Kind.TRACED, Kind.STATIC):
        return None
    if isinstance(op, gast.Div) and v.kind is Kind.TRACED:
        return "float"  # (true division of arrays of any real dtype; complex outranks it too)
    if (
        v.kind is Kind.TRACED
        and isinstance(op, _ARITHMETIC)
        and "float" in (a.dtype, b.dtype)
        and all(k.dtype in _RANK or (k.dtype is None and k.kind is Kind.TRACED) for k in (a, b))
    ):
        # (`x * 0.5`, `y + x` of a float array `y`: floats whatever the other array's real
        # dtype, a float outranking ints and bools; complex outranks it too)
        return "float"
    if a.dtype is None or b.dtype is None:
        return None
    if a.dtype == "bool" and b.dtype == "bool":
        return None
    if a.dtype not in _RANK or b.dtype not in _RANK:
        return None
    if isinstance(op, gast.Div):
        return "float"
    if isinstance(op, gast.Pow) and b.dtype != "float":
        return None  # (`2 ** -1` is a float in Python, an error of jax's ints)
    if isinstance(op, _ARITHMETIC):
        return a.dtype if _RANK[a.dtype] >= _RANK[b.dtype] else b.dtype
    return None


# jnp functions whose result is a float for an argument of any real dtype (`jnp.sin` of ints)
_FLOAT_RESULT = frozenset(
    {"sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh",
     "arccosh", "arctanh", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt",
     "cbrt", "deg2rad", "rad2deg", "radians", "degrees", "sinc"}
)  # fmt: skip


def _selected(a: Value, b: Value) -> Value:
    """One of two values (`jnp.where(c, a, b)`): the dtype and alias both have."""
    alias = a.alias_of if a.alias_of == b.alias_of else None
    dtype = a.dtype if a.dtype == b.dtype else None
    return Value(Kind.TRACED, dtype, alias_of=alias) if alias or dtype else TRACED


def _thunk(node) -> bool:
    """`lambda: expr`: no parameters."""
    if not isinstance(node, gast.Lambda):
        return False
    a = node.args
    return not (a.args or a.posonlyargs or a.kwonlyargs or a.vararg or a.kwarg)


def _is_basic_index(node) -> bool:
    """An index that makes a NumPy view (ints and slices), so the result aliases the base."""
    if isinstance(node, gast.Slice):
        return True
    if isinstance(node, gast.Tuple):
        return any(isinstance(e, gast.Slice) for e in node.elts) and all(
            isinstance(e, (gast.Slice, gast.Constant)) for e in node.elts
        )
    return False


def _dtype_kind(node) -> str | None:
    """'int', 'bool' or 'float' for a dtype expression such as `jnp.int32`, `bool`, 'float32'."""
    if isinstance(node, gast.Constant) and isinstance(node.value, str):
        t = node.value
    else:
        t = (dotted_name(node) or "").rpartition(".")[2]
    if t in ("bool", "bool_"):
        return "bool"
    if t.startswith(("int", "uint")):
        return "int"
    if t.startswith(("float", "bfloat")):
        return "float"
    return None


# jnp's scalar types, which called make a 0-d array: `jnp.float32(0)`, `jnp.int32(n)`
_SCALAR_TYPE = re.compile(r"bool_|u?int(8|16|32|64|_)?|float(16|32|64|_)?|bfloat16|complex(64|128)?")

_FLOAT_CONSTANTS = {"nan", "inf", "pi", "e", "euler_gamma", "NaN", "NAN", "Inf", "PINF", "NINF"}

_VIEW_METHODS = {"reshape", "ravel", "transpose", "swapaxes", "squeeze", "view", "diagonal"}


def _may_be_view(node, idx: Value) -> bool:
    """Whether `x[node]` may be a NumPy view of x: anything but a known advanced index.

    `x[0]` is a copy for a 1-D x but a view (a row) for a 2-D one, so ints count as views.
    """
    if _is_basic_index(node):
        return True
    if isinstance(node, (gast.List, gast.ListComp)):
        return False
    if isinstance(node, gast.Tuple):
        return not any(isinstance(e, (gast.List, gast.ListComp)) for e in node.elts)
    return idx.scalar is not False and idx.dtype != "bool"


def _forget(env: Env, name: str) -> None:
    """``name`` is bound anew: a fact about the array it held is not one about its new value
    (`m = x > 0; x = jnp.stack(...)` leaves m without x's shape, nor is `y = x` the new x)."""
    for other, ov in env.items():
        if ov[3] == name or ov[4] == name:  # (alias_of, shape_of: by index, this runs often)
            env[other] = ov._replace(
                shape_of=None if ov.shape_of == name else ov.shape_of,
                alias_of=None if ov.alias_of == name else ov.alias_of,
            )


def _own_shape(node, v: Value) -> str | None:
    if v.shape_of:
        return v.shape_of
    if isinstance(node, gast.Name) and v.scalar is not True:
        return node.id
    return None


def _shape_source(left, lv: Value, right, rv: Value) -> str | None:
    """For an elementwise op of an array and a scalar, the array whose shape the result has."""
    if rv.scalar is True or (isinstance(right, gast.Constant)):
        return _own_shape(left, lv)
    if lv.scalar is True or isinstance(left, gast.Constant):
        return _own_shape(right, rv)
    ls, rs = _own_shape(left, lv), _own_shape(right, rv)
    if ls and ls == rs:
        return ls
    return None


_BUILTINS = {
    "len",
    "slice",
    "range",
    "int",
    "float",
    "bool",
    "str",
    "tuple",
    "list",
    "dict",
    "set",
    "isinstance",
    "print",
    "abs",
    "min",
    "max",
    "sum",
    "round",
    "enumerate",
    "zip",
    "reversed",
    "sorted",
    "callable",
    "type",
    "hasattr",
    "getattr",
    "repr",
    "ValueError",
    "TypeError",
    "RuntimeError",
    "NotImplementedError",
    "KeyError",
    "IndexError",
    "AssertionError",
    "Exception",
    "None",
    "True",
    "False",
    "object",
    "super",
    "iter",
    "next",
    "map",
    "filter",
    "any",
    "all",
    "divmod",
}


def expression_reads(node) -> set[str]:
    return expr_activity(node).reads


# autojit's own lax.cond / loop forms; imported last: it reads Kind and Value from here
from . import generated  # noqa: E402
