"""AJ1xx: value-dependent conditionals -> `jax.lax.cond`, `jax.lax.switch` and `jnp.where`.

Under `jax.jit` a Python `if` on a traced value raises `ConcretizationTypeError`. Each `if` whose
condition the analysis classifies as traced is rewritten; the rest stay Python:

- AJ100 a static condition (shapes, dtypes, `is None`, static arguments, constants) is kept as a
  Python `if` and reported; the static prefix of `S and T` / `S or T` stays a Python `if` too.
- AJ101 `if`/`else` -> named branch functions and `jax.lax.cond`. Branch outputs are the names
  assigned in a branch and read after the `if` (a name assigned in one branch only passes through
  the other). Outputs of different types (Python `0` against a float array) are promoted to the
  type eager Python would give after promotion.
- AJ102 an `if` whose branches only assign (or return) cheap elementwise values of the same shape
  -> `jnp.where` (measured: `benchmarks/conditionals.py`).
- AJ103 an `if`/`elif` chain comparing one integer with constants -> `jax.lax.switch`.
- AJ104 `a if c else b` -> `jnp.where` or `jax.lax.cond`.
- AJ105 `and`, `or`, `not` and chained comparisons on traced values -> `jnp.logical_*` (boolean
  operands) or `jnp.where` (Python's "returns an operand" meaning).
- AJ106 `print` of traced values -> `jax.debug.print`.
- AJ107 `return` under a traced condition -> one exit (see :mod:`.normalize`).

Refused (AJ91x): a name defined in one branch only and read after (AJ910), `raise`/`assert` under
a traced condition or on a traced value (AJ911), side effects that would run on both paths
(AJ912), a condition the analysis cannot classify (AJ913, kept as Python),
`break`/`continue`/`yield`/`try` in a branch (AJ914), a `return` that cannot be brought to one
exit (AJ915), a branch output that is surely not an array, such as a function (AJ916), Python
numbers against arrays in both directions at once (AJ917), a Python container or value of
unknown kind read and rebound in a branch (AJ918).
"""

from __future__ import annotations

import ast
import builtins
import collections
import functools
import struct
from dataclasses import dataclass, field

import gast

from ..analysis import FunctionAnalysis, Kind, Value, dotted_name
from ..analysis.activity import contains, expr_activity
from ..analysis.callers import result_tested_by_identity
from ..analysis.dtype_source import (
    KIND_RANK,
    WEAK_TYPE_REASON,
    DtypeSource,
    covering,
    dtype_source,
    literal_kind,
)
from ..analysis.effects import (
    ASSUMED_INT,
    ValueFacts,
    container_change,
    declared_outer,
    effect_in,
    effectful_call,
    grows_geometrically,
    int32_overflow,
    int_constant,
    int_ranges,
    literal_ints,
    named_pairs,
    overflow_around,
    python_value_use,
    read_by_closures,
    read_telling_weak_from_strong,
    returned_as_is,
    scope_introspection,
    short_circuited_walrus,
    stale_closure_read,
    stateful_call,
    statements_after,
    user_functions,
    user_helper,
    walrus_in,
    weak_or_strong_use,
    zero_argument_super,
)
from ..analysis.statements import walk_statements
from ..analysis.values import arithmetic_dtype, mixed_returned_kinds
from ..gastconv import NodeTransformer, child_nodes, walk_bfs, walk_expression, walk_nodes
from ..jaxapi import ELEMENTWISE_FUNCTIONS, STATIC_ATTRIBUTES
from ..render import _unparse, replace_statements
from ..scope import ModuleScope
from ..templates import copy_expr, name, replace, replace_expr
from .base import (
    _DOMAIN_RESTRICTED,
    Context,
    _outside_its_domain,
    bool_argument,
    builtin_reduction,
    first_refused,
    singular_somewhere,
)
from .normalize import (
    always_returns,
    has_return,
    lift_returns,
    refresh_changed_ifs,
    surely_assigned,
)

CODES = ("AJ100", "AJ101", "AJ102", "AJ103", "AJ104", "AJ105", "AJ106", "AJ107")
REFUSALS = ("AJ910", "AJ911", "AJ912", "AJ913", "AJ914", "AJ915", "AJ916", "AJ917", "AJ918")

# jax.numpy functions that are cheap and elementwise: a branch made only of these (and
# arithmetic) costs about as much as the select itself, so both branches are computed and
# selected with jnp.where (see benchmarks/conditionals.py for the measurement behind the rule)
_ELEMENTWISE = ELEMENTWISE_FUNCTIONS
_BUILTIN_CHEAP = frozenset({"abs", "float", "int", "bool", "min", "max", "round"})
# functions defined on part of the line only: a branch `if x > 0: y = jnp.log(x)` is a guard, and
# `jnp.where` computes both branches, so its gradient is NaN where the other branch is taken
# (`lax.cond` differentiates the branch taken, as Python's `if` does)
# methods and calls that only have effects (no useful result): allowed in a branch
_PURE_STATEMENT_CALLS = ("jax.debug.print", "jax.debug.callback", "jax.debug.breakpoint")
# control flow whose functions jit traces: as a statement it has no effect of its own
_TRACED_CONTROL = frozenset({"jax.lax.cond", "jax.lax.switch"})


@dataclass
class _Plan:
    """What one traced `if` turns into."""

    outs: list[str] = field(default_factory=list)
    operands: list[str] = field(default_factory=list)


class _Refused(Exception):
    def __init__(self, code: str, node, reason: str) -> None:
        super().__init__(reason)
        self.code, self.node, self.reason = code, node, reason


def convert(ctx: Context) -> None:
    _Conditionals(ctx).run()


class _Conditionals:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.an: FunctionAnalysis = ctx.analysis
        # (the tables below are keyed by the nodes themselves, not their ids: a generated node
        # may be freed and its id given to a later one, which would then find its entry)
        self.end_env: dict[object, tuple[dict, dict]] = {}
        self.switch_inner: set[object] = set()
        # generated statements -> the original statement whose analysis they share
        self.stand_in: dict[object, object] = {}
        # generated `y = jnp.where(...)` statements -> the shape key of their value
        self.shape_hint: dict[object, str] = {}
        # ifs whose returns could not be brought to one exit (already reported)
        self.lift_failed: set[object] = set()
        # id(statement) -> the statements around it (set by `run`)
        self.ancestors: dict[int, list] = {}
        # `if`/`while` statements whose test had values rewritten in it -> how to put it back
        # (fields set, in order) and the changes reported for it
        self.test_rewrites: dict[object, tuple[list, list]] = {}
        # traced `if`s -> the names computed again in the branch that reads them (not operands)
        self.recomputed: dict[object, frozenset[str]] = {}
        # `if` -> (branch, statement) for each value computed again in a branch, and the change
        # that says so: taken back where the `if` is then refused
        self.rematerialized: dict[object, tuple[list[tuple[list, object]], object]] = {}
        # the branch functions made here, by id; kept alive, so that an id is not reused by a later
        # node (a freed function's id given to an Assign made `id(st) in created` true)
        self.created: dict[int, object] = {}

    # -- driver ----------------------------------------------------------------------------
    def run(self) -> None:
        if self._normalise_returns():
            self.an = FunctionAnalysis(
                self.ctx.fn, self.ctx.scope, self.an.static_params, self.an.values.enclosing
            )
            self.ctx.analysis = self.an
        ifs = list(_ifs_post_order(self.ctx.fn.body))
        for s, _block in ifs:
            self.end_env[s] = (self._branch_env(s, s.body), self._branch_env(s, s.orelse))
        # (before the expressions: a ternary's loops are looked up there; they only rewrite
        # expressions and `print` statements, never a compound statement around an `if`)
        ancestors = self.ancestors = _ancestors(self.ctx.fn.body)
        self._rewrite_expressions()
        self._find_switch_chains(ifs)
        for s, block in ifs:
            if s in self.switch_inner:
                continue
            try:
                self._convert_if(s, block)
            except _Refused as r:
                self._undo_rematerialize(s)
                self.ctx.refuse(r.code, r.node, r.reason)
                self._keep_test(s)
            # the statements around it hold new code now: their memoised activity is stale
            cache = getattr(self.an.activity, "_cache", None)
            if cache is not None:
                for a in ancestors.get(id(s), ()):
                    cache.pop(id(a), None)
        if self.created:
            self._loops_in_branches()
            self._conditionals_in_branches()
        # "kept as a Python if" is context for the conditionals that were converted or refused:
        # a function with nothing else to report stays silent (so `autojit check` is clean)
        if all(c.code == "AJ100" for c in self.ctx.changes) and not self.ctx.refusals:
            self.ctx.changes[:] = []

    def _keep_test(self, s) -> None:
        """A refused `if` stays Python, as written: the values rewritten inside its test are
        put back, and their changes are not reported (its test is traced, so the `if` fails
        under jit either way: a half-rewritten test only hides the line the user must fix)."""
        entry = self.test_rewrites.pop(s, None)
        if entry is None:
            return
        undo, reported = entry
        for node, fname, old in reversed(undo):
            setattr(node, fname, old)
        dropped = set(map(id, reported))
        self.ctx.changes[:] = [c for c in self.ctx.changes if id(c) not in dropped]

    def _loops_in_branches(self) -> None:
        """A loop moved into a branch function may carry a value that is traced there (a
        lax.cond operand) and was a Python value where the loops converter saw it: the loops
        converter runs again on those branch functions, and this converter on what it made,
        as both would on the converted output (converting twice changes nothing)."""
        ctx, created = self.ctx, self.created
        if not any(
            id(st) in created and _has_loop(st) for st in walk_statements(ctx.fn.body, True)
        ):
            return
        from . import loops

        self._loops_in(
            ctx,
            created,
            loops,
            ctx.fn,
            FunctionAnalysis(ctx.fn, ctx.scope, self.an.static_params, self.an.values.enclosing),
        )

    def _conditionals_in_branches(self) -> None:
        """A value passed into a branch function is a lax.cond operand, traced there, where
        this converter saw its value before the `if` (a Python number, say): a ternary, and/or,
        `not` or `if` on it inside the branch was kept as Python and fails under jit. This
        converter runs again on the branch functions made here that hold one, as it would on
        the converted output (converting twice changes nothing)."""
        ctx, created = self.ctx, self.created
        outermost = [
            st
            for st in walk_statements(ctx.fn.body)  # (a function's own body not entered)
            if id(st) in created and _may_convert(st)
        ]
        if not outermost:
            return
        an = FunctionAnalysis(ctx.fn, ctx.scope, self.an.static_params, self.an.values.enclosing)
        for st in outermost:
            self._conditionals_in(st, {**an.values.enclosing, **an.env_before(st)})

    def _loops_in(self, ctx: Context, created, loops, unit, an) -> None:
        # a method, not a recursive closure: that is a reference cycle (garbage that only the
        # collector frees)
        for st in list(walk_statements(unit.body)):
            if id(st) not in created or not _has_loop(st):
                continue
            enclosing = {**an.values.enclosing, **an.env_before(st)}
            self._loops_in(
                ctx, created, loops, st, FunctionAnalysis(st, ctx.scope, set(), enclosing)
            )
            sub = self._sub_context(st, enclosing)
            loops.convert(sub)
            self._merge(sub)
            if sub.changes:
                self._conditionals_in(st, enclosing)

    def _sub_context(self, fn, enclosing: dict) -> Context:
        c = self.ctx
        an = FunctionAnalysis(fn, c.scope, set(), enclosing)
        # a branch function made here has no line: what is reported in it without a line of
        # its own is reported at its first line of user code
        line = next(
            (n.lineno for n in walk_bfs(fn) if getattr(n, "lineno", None)),
            c.location(c.fn).line,
        )
        return Context(c.path, c.source, c.scope, fn, an, c.names, c.options, fallback_line=line)

    def _merge(self, sub: Context) -> None:
        self.ctx.changes.extend(x for x in sub.changes if x.code != "AJ100")
        seen = {(r.code, r.location, r.reason) for r in self.ctx.refusals}
        self.ctx.refusals.extend(
            r for r in sub.refusals if (r.code, r.location, r.reason) not in seen
        )

    def _conditionals_in(self, fn, enclosing: dict) -> None:
        """This converter on ``fn`` and the functions in it, innermost first."""
        an = FunctionAnalysis(fn, self.ctx.scope, set(), enclosing)
        for st in list(walk_statements(fn.body)):
            if isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef)):
                self._conditionals_in(st, {**an.values.enclosing, **an.env_before(st)})
        sub = self._sub_context(fn, enclosing)
        _Conditionals(sub).run()
        self._merge(sub)

    def _branch_env(self, s, block) -> dict:
        if block:
            return self.an.values.env_after.get(id(block[-1]), {})
        return self.an.env_before(s)

    # -- values ------------------------------------------------------------------------------
    def value(self, expr, stmt) -> Value:
        return self.an.value(expr, self.stand_in.get(stmt, stmt))

    @property
    def _facts(self) -> ValueFacts:
        fn, scope = self.ctx.fn, self.ctx.scope
        closures = frozenset(
            name
            for st, name, _reads in user_functions(fn)
            if isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef))
        )
        return ValueFacts(
            self.value, scope.qualified, lambda name: user_helper(fn, scope, name), closures
        )

    @property
    def jnp(self) -> str:
        return self.ctx.names.jnp

    @property
    def lax(self) -> str:
        return self.ctx.names.lax

    @property
    def jax(self) -> str:
        return self.ctx.names.jax

    def _src(self, node) -> str:
        if getattr(node, "_aj_orig", False) and hasattr(node, "lineno"):
            return self.ctx.source.text(node).strip()
        return _unparse(node)

    # -- returns -----------------------------------------------------------------------------
    def _normalise_returns(self) -> bool:
        def traced_if_with_return(s) -> bool:
            # a stack, not recursion: a recursive closure is a reference cycle that keeps the
            # tree and its analyses alive until the garbage collector runs
            todo = [(s, True)]
            while todo:
                s, top = todo.pop()
                if not isinstance(s, gast.If) or not has_return([s]):
                    continue
                if self._test_kind(s) is Kind.TRACED:
                    if not (self.ctx.allowed("AJ101", s) and self.ctx.allowed("AJ107", s)):
                        continue  # (a noqa comment for AJ101 on it: left as written, nothing lifted)
                    if top or not (always_returns(s.body) and always_returns(s.orelse)):
                        return True
                    # (inside a static `if`, one that returns on every path becomes
                    # `return lax.cond(...)` where it stands: Python's return, nothing to lift)
                    continue
                todo.extend((t, False) for t in reversed(s.body + s.orelse))
            return False

        def fail(node, reason: str) -> None:
            self.lift_failed.add(node)
            self.ctx.refuse("AJ915", node, reason)

        if not any(traced_if_with_return(s) for s in _all_ifs(self.ctx.fn.body)):
            return False
        kept = first_refused(self.ctx.fn.body)
        if kept is not None:
            # lifting would move code (and the statement left as it is) into branch functions
            for s in _all_ifs(self.ctx.fn.body):
                if traced_if_with_return(s):
                    fail(s, _around_refused_reason(kept, "`return` under this traced `if`"))
                    break
            return False
        if not self.ctx.allowed("AJ107", self.ctx.fn):
            return False
        lifted: list = []
        changed = lift_returns(self.ctx.fn.body, traced_if_with_return, fail, lifted)
        if changed:
            for s in lifted or [self.ctx.fn]:
                self.ctx.change(
                    "AJ107",
                    s,
                    "`return` under a traced condition: the code after this `if` moved into "
                    "the path that does not return, so each branch ends in its own `return`",
                )
            refresh_changed_ifs(self.ctx.fn.body)
        return changed

    # -- test classification -----------------------------------------------------------------
    def _test_kind(self, s) -> Kind:
        return self.condition_kind(s.test, s)

    def condition_kind(self, test, s) -> Kind:
        """Whether the condition ``test`` (of an ``if``, or a ternary in statement ``s``) is
        traced, known when jax traces (static), or neither can be told (unknown)."""
        bare = test.operand if isinstance(test, gast.UnaryOp) and isinstance(
            test.op, gast.Not
        ) else test  # fmt: skip
        if (
            isinstance(bare, gast.Attribute)
            and bare.attr not in _ARRAY_ATTRIBUTES
            and self.value(bare.value, s).traced
        ):
            # `if p.use_bias:`: a field of an object (a pytree's), no array's attribute; a
            # flag that is a Python bool when jax traces (a static field) more often than a
            # traced scalar, and `lax.cond` would trace the branch Python skips (`h + None`)
            return Kind.UNKNOWN
        v = self.value(test, s)
        if v.kind is Kind.NUMPY:
            return Kind.STATIC
        if v.kind in (Kind.TRACED, Kind.STATIC):
            return v.kind
        # `x and y` joins to UNKNOWN when one part is static and one traced
        if isinstance(test, gast.BoolOp):
            kinds = {self.value(p, s).kind for p in test.values}
            if Kind.TRACED in kinds:
                return Kind.TRACED
        if self._only_module_values(test, s):
            return Kind.STATIC
        return Kind.UNKNOWN

    def _only_module_values(self, node, stmt) -> bool:
        """Whether an expression reads only module-level names (and builtins): jit sees those
        as Python constants when it traces, whatever they hold."""
        reads = expr_activity(node).reads
        if not reads:
            return True
        env = self.an.env_before(self.stand_in.get(stmt, stmt))
        for n in reads:
            if n in self.an.values.locals or n in env:
                return False
            if n in self.an.values.enclosing:
                return False
        scope = self.ctx.scope
        return all(
            n in scope.modules
            or n in scope.imported_names
            or n in scope.assigned
            or n in scope.functions
            or n in scope.classes
            or hasattr(builtins, n)
            for n in reads
        )

    def _split_test(self, s):
        """(static prefix or None, 'and'/'or', traced rest) of a condition."""
        t = s.test
        if isinstance(t, gast.BoolOp):
            vals = t.values
            k = 0
            while k < len(vals) and self.value(vals[k], s).static:
                k += 1
            if 0 < k < len(vals):
                op = "and" if isinstance(t.op, gast.And) else "or"
                prefix = vals[0] if k == 1 else gast.BoolOp(op=t.op, values=vals[:k])
                rest = vals[k] if k == len(vals) - 1 else gast.BoolOp(op=t.op, values=vals[k:])
                return prefix, op, rest
        return None, None, t

    # -- predicates (truth value of a traced test) ---------------------------------------------
    def pred(self, node, stmt, inner: bool = False):
        """An expression whose value is the truth of ``node`` (traced), without Python's bool().
        Inside a traced predicate (``inner``) `not` and chained comparisons are lowered even on
        Python values: an enclosing `if` converted later may pass those values as operands."""
        v = self.value(node, stmt)
        argument = bool_argument(self.ctx, node) if v.traced else None
        if argument is not None:  # (`if bool(x.sum() > 0):`)
            return self.pred(argument, stmt, inner)
        reduction = builtin_reduction(self.ctx, node, stmt) if v.traced else None
        if reduction is not None:  # (`if all(x > 0):`, of a 1-D `x`)
            return replace_expr(f"{self.jnp}.{reduction[0]}(A)", A=reduction[1])
        lowered = isinstance(node, gast.BoolOp) or (
            inner
            and (
                (isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not))
                or (isinstance(node, gast.Compare) and len(node.ops) > 1)
            )
        )
        if not v.traced and not lowered:
            return node
        jnp = self.jnp
        if isinstance(node, gast.BoolOp):
            fn = "logical_and" if isinstance(node.op, gast.And) else "logical_or"
            parts = [self.pred(p, stmt, inner=True) for p in node.values]
            out = parts[-1]
            for p, part in zip(reversed(node.values[:-1]), reversed(parts[:-1]), strict=True):
                if self.value(p, stmt).static:
                    # a Python value decides at trace time whether Python reads the rest: as
                    # `jnp.logical_and` the rest would be computed when it guards it (`t.ndim
                    # == 0 and t > 0`: a vector `t > 0`, or `w.sum()` of `w = None`)
                    # (tested by Python as written: lowered, `t < s < s` would be a
                    # `jnp.logical_and`, a traced value under jit, whose truth fails)
                    form = "B if A else False" if fn == "logical_and" else "True if A else B"
                    out = replace_expr(form, A=p, B=out)
                else:
                    out = replace_expr(f"{jnp}.{fn}(A, B)", A=part, B=out)
            return out
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
            return replace_expr(
                f"{jnp}.logical_not(A)", A=self.pred(node.operand, stmt, inner=True)
            )
        if isinstance(node, gast.Compare) and len(node.ops) > 1:
            return self.chained(node)
        if (
            isinstance(node, gast.Compare)
            and isinstance(node.ops[0], (gast.In, gast.NotIn))
            and isinstance(node.comparators[0], (gast.Tuple, gast.List, gast.Set))
            and node.comparators[0].elts
            and all(_number_literal(e) for e in node.comparators[0].elts)
        ):
            # `x[0] in (1, 2)`: Python's `in` tests each item with `==` and asks bool() of it
            elts = gast.List(elts=node.comparators[0].elts, ctx=gast.Load())
            form = f"A, {jnp}.array(B)" + ("" if isinstance(node.ops[0], gast.In) else ", invert=True")
            out = replace_expr(f"{jnp}.isin({form})", A=node.left, B=elts)
            if self.value(node.left, stmt).scalar is False:
                # (`x[:1] in (1, 2)`: Python's truth of its one item)
                out = replace_expr(f"{jnp}.reshape(A, ())", A=out)
            return out
        if (
            isinstance(node, gast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], (gast.In, gast.NotIn))
            and self.value(node.comparators[0], stmt).kind is Kind.TRACED
            and self.value(node.comparators[0], stmt).dtype in KIND_RANK
        ):
            # `3 in x` of an array: NumPy's `(x == 3).any()` (bool() of a traced one fails).
            # Only of a known array: of a tuple, list or string (a parameter may be one) `in`
            # is Python's, and `tuple == 3` is False
            form = f"{jnp}.any(C == A)"
            if isinstance(node.ops[0], gast.NotIn):
                form = f"{jnp}.logical_not({form})"
            return replace_expr(form, C=node.comparators[0], A=node.left)
        if v.scalar is False:
            # an array of at least one axis (`x[:1] > 0`): Python's truth of it is that of its
            # one item (and an error for more); jnp.where and lax.cond need a scalar
            return replace_expr(f"{jnp}.reshape(A, ())", A=node)
        return node

    def chained(self, node):
        jnp = self.jnp
        operands = [node.left] + list(node.comparators)
        parts = []
        for i, op in enumerate(node.ops):
            left = operands[i] if i == 0 else copy_expr(operands[i])
            parts.append(gast.Compare(left=left, ops=[op], comparators=[operands[i + 1]]))
        out = parts[-1]
        for p in reversed(parts[:-1]):
            out = replace_expr(f"{jnp}.logical_and(A, B)", A=p, B=out)
        return out

    # -- expression rewrites (AJ104, AJ105, AJ106) ----------------------------------------
    def _rewrite_expressions(self) -> None:
        for s, block in list(_simple_statements(self.ctx.fn.body)):
            if getattr(s, "_aj_refused", None):
                # (left as written by the loops converter: `x = x if c else x * 0.5` in a loop
                # that iterates `x`; as `jnp.where(...)` it would always make a new array)
                continue
            if _is_print(s) and self._builtin_print() and self.ctx.allowed("AJ106", s):
                # (a ternary or `and` / `or` among the printed values first: converted, or
                # refused, before the print is; `print("a" if t else "b")` made a debug print
                # of a Python ternary that the next conversion rewrote)
                chosen = next(
                    (
                        n
                        for a in s.value.args
                        for n in walk_nodes(a)
                        if isinstance(n, gast.IfExp)
                        and any(_is_text(v) for v in (n.body, n.orelse))
                        and self.value(n.test, s).traced
                    ),
                    None,
                )
                if chosen is not None:
                    self.ctx.refuse(
                        "AJ916",
                        s,
                        f"`{self._src(chosen)}` chooses a text by a traced condition, and a "
                        f"traced value is never a text: print each text in its branch of a "
                        f"`jax.lax.cond`, or print the condition itself",
                    )
                    continue
                rw = _ExprRewriter(self, s)
                s.value.args = [rw.visit(a) if _rewritable(a) else a for a in s.value.args]
                self._print(s, block)
                continue
            if isinstance(s, gast.Assert) and self.value(s.test, s).traced:
                self.ctx.refuse(
                    "AJ911",
                    s,
                    f"`assert {self._src(s.test)}` checks a traced value, which jit cannot turn "
                    f"into a Python bool; use jax.experimental.checkify (checkify.check) or "
                    f"drop the assert from the jitted function",
                )
                continue
            rw = _ExprRewriter(self, s, block)
            for fname, val in gast.iter_fields(s):
                if fname in ("body", "orelse", "finalbody", "handlers"):
                    continue
                if isinstance(s, (gast.If, gast.While)) and fname == "test":
                    # the test itself becomes the predicate; the values inside it are values
                    undo: list = [(s, "test", val)]
                    n_changes = len(self.ctx.changes)
                    self._static_operands_first(s, val, undo)
                    s.test = _rewrite_test(rw, val, undo)
                    if len(undo) > 1 or s.test is not val:
                        self.test_rewrites[s] = (undo, self.ctx.changes[n_changes:])
                    continue
                # (an expression with no ternary, and/or, `not` or chained comparison is left
                # as it is, without the visit)
                if isinstance(val, gast.expr):
                    if _rewritable(val):
                        setattr(s, fname, rw.visit(val))
                elif isinstance(val, list) and val and isinstance(val[0], gast.expr):
                    setattr(s, fname, [rw.visit(x) if _rewritable(x) else x for x in val])

    def _builtin_print(self) -> bool:
        """Whether `print` here is Python's (not a parameter, a local or the module's own)."""
        return not (
            self.ctx.scope.binds("print")
            or "print" in self.an.params
            or "print" in self.an.values.enclosing
            or "print" in self.an.activity.of_block(self.ctx.fn.body).writes
        )

    def _static_operands_first(self, s, test, undo: list) -> None:
        """`if t > 0 and flag:` tests the same truth as `if flag and t > 0:` (the operands are
        pure): a static operand after a traced one goes first, where it stays a Python `if`
        around the converted one. Written into the traced predicate instead, `flag` read as a
        value there, and converting the output again no longer made it static."""
        if not isinstance(s, gast.If) or not isinstance(test, gast.BoolOp):
            return
        kinds = [self.value(v, s) for v in test.values]
        first_traced = next((k for k, v in enumerate(kinds) if v.traced), None)
        if first_traced is None:
            return
        moved = [
            k
            for k in range(first_traced + 1, len(test.values))
            if kinds[k].static and _pure_static_operand(test.values[k])
        ]
        if not moved:
            return
        undo.append((test, "values", test.values))
        head = test.values[:first_traced] + [test.values[k] for k in moved]
        test.values = head + [
            v for k, v in enumerate(test.values) if k >= first_traced and k not in moved
        ]

    def _traced_in_print(self, arg, s) -> bool:
        """Whether a printed argument shows a traced value (an f-string: one of its fields)."""
        if isinstance(arg, gast.JoinedStr):
            return any(
                self.value(v.value, s).traced
                for v in arg.values
                if isinstance(v, gast.FormattedValue)
            )
        return self.value(arg, s).traced

    def _print(self, s, block) -> None:
        call = s.value
        traced = any(self._traced_in_print(a, s) for a in call.args)
        if not traced and not (
            self._in_converted_code(s) and all(_literal_text(a) for a in call.args)
        ):
            # (Python's print at trace time, as jit runs any print of Python values; a value
            # other than a literal text or int would print otherwise through jax, a float or
            # a list as arrays)
            return
        sep = " "
        for kw in call.keywords:
            if kw.arg == "sep" and isinstance(kw.value, gast.Constant):
                if "{" in str(kw.value.value) or "}" in str(kw.value.value):
                    return
                sep = kw.value.value
            elif kw.arg == "end" and isinstance(kw.value, gast.Constant) and kw.value.value == "\n":
                pass
            else:
                return  # file=, flush=, a custom end: leave it
        fmt_parts: list[str] = []
        args: list = []
        for a in call.args:
            if isinstance(a, gast.Constant) and isinstance(a.value, str):
                if _has_brace(a.value):
                    # (jax's print formats nothing where its text starts with an escaped
                    # brace, `{{}}`: a text with braces is given as an argument of its own)
                    fmt_parts.append("{}")
                    args.append(a)
                else:
                    fmt_parts.append(a.value)
            elif isinstance(a, gast.JoinedStr):
                piece = ""
                for v in a.values:
                    if isinstance(v, gast.Constant):
                        if _has_brace(str(v.value)):
                            piece += "{}"
                            args.append(gast.Constant(value=str(v.value), kind=None))
                        else:
                            piece += str(v.value)
                    elif isinstance(v, gast.FormattedValue):
                        if v.conversion not in (-1, None):
                            return
                        spec = ""
                        if v.format_spec is not None:
                            if not all(isinstance(p, gast.Constant) for p in v.format_spec.values):
                                return
                            spec = ":" + "".join(str(p.value) for p in v.format_spec.values)
                        piece += "{" + spec + "}"
                        args.append(v.value)
                    else:
                        return
                fmt_parts.append(piece)
            elif isinstance(a, gast.Starred):
                return
            else:
                fmt_parts.append("{}")
                args.append(a)
        fmt = sep.join(fmt_parts)
        new = gast.Expr(
            value=gast.Call(
                func=replace_expr(f"{self.jax}.debug.print"),
                args=[gast.Constant(value=fmt, kind=None)] + args,
                keywords=[],
            )
        )
        replace_statements(block, [s], [new])
        self.ctx.change(
            "AJ106",
            s,
            "`print` of a traced value -> `jax.debug.print` (a Python print would show a tracer "
            "once, at trace time)"
            if traced
            else "`print` in a converted branch or loop body -> `jax.debug.print` (a Python "
            "print would run once, at trace time, on every path)",
        )

    def _in_converted_code(self, s) -> bool:
        """Whether ``s`` runs in code the conversion traces once for many runs: a loop body
        or branch function it made, or the body of a traced `if` it converts here."""
        if not getattr(self.ctx.fn, "_aj_orig", False):
            return True
        return any(
            isinstance(a, gast.If) and self._test_kind(a) is Kind.TRACED
            for a in self.ancestors.get(id(s), ())
        )

    # -- switch chains (AJ103) -------------------------------------------------------------
    def _find_switch_chains(self, ifs) -> None:
        self.switch_of: dict[object, tuple] = {}
        for s, _block in ifs:
            chain = self._switch_chain(s)
            if chain is not None:
                self.switch_of[s] = chain
                for inner in chain[2][1:]:
                    self.switch_inner.add(inner)
        # an inner if of a chain that is itself a chain head: only the outermost wins
        for key in list(self.switch_of):
            if key in self.switch_inner:
                del self.switch_of[key]

    def _switch_chain(self, s):
        """(selector, constants, [if nodes], [branch blocks]) for `if k == 0: .. elif k == 1: ..`."""
        if not self.ctx.allowed("AJ103", s):
            return None
        selector = None
        consts: list[int] = []
        nodes = []
        branches = []
        cur = s
        while True:
            t = cur.test
            if not (
                isinstance(t, gast.Compare)
                and len(t.ops) == 1
                and isinstance(t.ops[0], gast.Eq)
                and isinstance(t.comparators[0], gast.Constant)
                and type(t.comparators[0].value) is int
            ):
                return None
            key = gast.dump(t.left)
            if selector is None:
                selector = t.left
                if not self.value(t.left, cur).traced:
                    return None
            elif key != gast.dump(selector):
                return None
            c = t.comparators[0].value
            if c in consts:
                return None
            consts.append(c)
            nodes.append(cur)
            branches.append(cur.body)
            if len(cur.orelse) == 1 and isinstance(cur.orelse[0], gast.If):
                nxt = cur.orelse[0]
                t2 = nxt.test
                if (
                    isinstance(t2, gast.Compare)
                    and len(t2.ops) == 1
                    and gast.dump(t2.left) == key
                    and isinstance(t2.ops[0], gast.Eq)
                ):
                    cur = nxt
                    continue
            branches.append(cur.orelse)
            break
        if len(consts) < 2:
            return None
        return selector, consts, nodes, branches

    # -- the if statement ----------------------------------------------------------------
    def _convert_if(self, s, block) -> None:
        kind = self._test_kind(s)
        if kind is Kind.STATIC:
            self.ctx.change(
                "AJ100",
                s.test,
                f"condition `{self._src(s.test)}` is known when jax traces: kept as a Python `if`",
            )
            return
        if kind is Kind.UNKNOWN:
            self.ctx.refuse(
                "AJ913",
                s.test,
                f"cannot tell whether `{self._src(s.test)}` is a traced value or a Python "
                f"value; kept as a Python `if` (if it is traced, rewrite it with "
                f"{self.lax}.cond)",
            )
            return
        if not self.ctx.allowed("AJ101", s):
            return
        _refuse_around_refused(s, s.body + s.orelse, "`if`")
        self._check_branches(s)
        returning = has_return(s.body) or has_return(s.orelse)
        if returning and not (always_returns(s.body) and always_returns(s.orelse)):
            if s in self.lift_failed:
                return
            raise _Refused(
                "AJ915",
                s,
                "this `if` returns a value on some paths and falls through on others; under "
                "jit both paths must produce the same kind of result: add the missing `return`",
            )
        if returning:
            self._check_returned_kinds(s)
            self._check_identity_of_result(s)
        chain = self.switch_of.get(s)
        if chain is not None:
            if self._switch(s, block, chain, returning):
                return
            # not a switch after all: the inner ifs of the chain, innermost first, as usual
            nodes = chain[2]
            for k in range(len(nodes) - 1, 0, -1):
                try:
                    self._convert_if(nodes[k], nodes[k - 1].orelse)
                except _Refused as r:
                    self._undo_rematerialize(nodes[k])
                    self.ctx.refuse(r.code, r.node, r.reason)
            self._check_branches(s)
        if chain is None:
            self._rematerialize(s, block)
        prefix, op, rest = self._split_test(s)
        if prefix is not None:
            self.ctx.change(
                "AJ100",
                prefix,
                f"`{self._src(prefix)}` is known when jax traces: kept as a Python `if`",
            )
        if returning:
            self._returning_if(s, block, prefix, op, rest)
        else:
            self._assigning_if(s, block, prefix, op, rest)

    def _kills(self, s) -> frozenset[int]:
        """The statements after ``s`` in its own block, where that runs once (no loop around
        ``s``): an assignment there gives a name a new value for everything after it."""
        around = self.ancestors.get(id(s), ())
        if any(isinstance(a, (gast.For, gast.While, gast.AsyncFor)) for a in around):
            return frozenset()
        parent = around[-1] if around else self.ctx.fn
        blocks = [getattr(parent, f, None) or [] for f in ("body", "orelse", "finalbody")]
        blocks += [h.body for h in getattr(parent, "handlers", None) or []]
        for block in blocks:
            for k, st in enumerate(block):
                if st is s:
                    return frozenset(id(t) for t in block[k + 1 :])
        return frozenset()

    def _surely_after(self, s) -> frozenset[int]:
        """The statements that run after ``s`` whenever it does (``kills`` of
        :func:`returned_as_is`): those after it in its own block, then those after each
        compound statement around it in theirs. Not the other branch of an `if` around it (`r = 1`
        in the `else` of the `if` whose body holds ``s`` runs on another path), nor those a
        `break`/`continue` of a loop around it, or an exception in a `try`, may skip."""
        out: set[int] = set()
        node = s
        for parent in [*reversed(self.ancestors.get(id(s), ())), self.ctx.fn]:
            blocks = [getattr(parent, f, None) or [] for f in ("body", "orelse", "finalbody")]
            block = next((b for b in blocks if any(st is node for st in b)), None)
            if block is None:
                break  # (an exception handler's, a `match` case's: the statements so far)
            if isinstance(parent, gast.Try) or type(parent).__name__ == "TryStar":
                if block is parent.body:
                    out.clear()  # (an exception may skip what follows in the `try`)
                    node = parent
                    continue
            elif (
                isinstance(parent, (gast.For, gast.While, gast.AsyncFor))
                and block is parent.body
                and _breaks_out(parent.body)
            ):
                out.clear()
                node = parent
                continue
            k = next(i for i, st in enumerate(block) if st is node)
            out.update(id(st) for st in block[k + 1 :])
            node = parent
        return frozenset(out)

    def _int_constants(self) -> dict[str, tuple[int, int]]:
        """The names the function only ever gives literal ints (`US_PER_MS = 1000`)."""
        fn = self.ctx.fn
        found = fn.__dict__.get("_aj_int_constants")
        if found is None:
            writes = self.an.activity.of_block(fn.body).writes
            module = {n: r for n, r in _module_int_constants(self.ctx.source).items()
                      if n not in writes}  # fmt: skip
            found = fn._aj_int_constants = {**module, **int_ranges(fn, writes)}
        return found

    def _int_past_float32(self, node) -> int | None:
        """An int past 2**24 in magnitude that ``node`` may hold: an int literal, a module
        constant, or a name the function gives such a literal (`best = 16777217`, whatever
        else it is given). Cast to a float array's dtype (float32) it would be rounded
        (16777216.0) where Python keeps it. None where none is seen."""
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
            found = self._int_past_float32(node.operand)
            return -found if found is not None else None
        if isinstance(node, gast.Constant):
            v = node.value
            return v if type(v) is int and abs(v) > 2**24 else None
        if not isinstance(node, gast.Name):
            return None
        constants = self._int_constants()
        if node.id in constants:
            far = max(constants[node.id], key=abs)
            return far if abs(far) > 2**24 else None
        for st in _walk_all(self.ctx.fn.body):
            if isinstance(st, gast.Assign):
                for target, value in named_pairs(st) or []:
                    if target == node.id and isinstance(value, (gast.Constant, gast.UnaryOp)):
                        found = self._int_past_float32(value)
                        if found is not None:
                            return found
        return None

    def _refuse_int_past_float32(self, s, number, other_dtype: str | None, what: str) -> None:
        """AJ918 where a Python int past 2**24 (``number``: the expression or name that gives
        it) would be cast to the dtype of an array on another path that may hold floats (of a
        dtype not known, or floats): rounded, where Python keeps the int on its path."""
        if other_dtype not in (None, "float"):
            return
        big = self._int_past_float32(number)
        if big is None:
            return
        raise _Refused(
            "AJ918",
            s,
            f"{what} is the Python int {big} on one path of the traced condition "
            f"`{self._src(s.test)}` and an array that may hold floats on the other: "
            f"{_rounded_past_float32(big)}; give both paths one type (an int array, or a float "
            f"on purpose)",
        )

    def _dtype_fixer(self, types: set[str]):
        """``fixes_dtype`` of :func:`returned_as_is` for Python numbers of ``types``."""
        return functools.partial(self._fixes_dtype, max(KIND_RANK.get(t, 2) for t in types))

    def _fixes_dtype(self, top: int, node, st) -> bool:
        """Whether ``node``'s dtype decides that of arithmetic with a Python number of kind
        ``top`` or below (`bool` < `int` < `float`): a float array's does any number's, an
        int array's an int's; an array of unknown dtype (a parameter) decides nothing."""
        return KIND_RANK.get(self.value(node, st).dtype or "", -1) >= top

    def _int_operand(self, node, st) -> tuple[int, int] | None:
        """The range taken for a Python value the code does not show, an operand of arithmetic
        with an int the conversion makes int32 (`n * m` of a static `m`, `n * x.shape[0]`,
        `n * len(x)`): a size's, ASSUMED_INT; None where it is traced, a float or a literal."""
        if not isinstance(node, (gast.Name, gast.Attribute, gast.Subscript, gast.Call)):
            return None
        v = self.value(node, st)
        if not v.static or v.dtype == "float":
            return None
        return (0, 1) if v.dtype == "bool" else ASSUMED_INT

    def _assumed_int(self, st) -> tuple[int, int] | None:
        """The range taken for a Python int an assignment gives from a value the code does not
        show (`k = len(x)`, `k = n`, `k += n`): a size's, ASSUMED_INT; None where the value is
        not a Python value, or is a float (which does not wrap)."""
        v = self.value(st.value, st)
        if not v.static or v.dtype == "float":
            return None
        return (0, 1) if v.dtype == "bool" else ASSUMED_INT

    def _python_values(self, s, branch_writes: set[str] | None = None) -> set[str]:
        """The names the branches of ``s`` write that hold a Python value before it, or that a
        branch gives one (`found = True`)."""
        if branch_writes is None:
            branch_writes = self.an.activity.of_block(s.body + s.orelse).writes
        env = self.an.env_before(s)
        out = {n for n in branch_writes if n in env and env[n].static}
        for st in _walk(s.body + s.orelse):
            if isinstance(st, gast.Assign):
                for name, value in named_pairs(st) or []:
                    if self.value(value, st).static:
                        out.add(name)
        return out

    def _mixed_python_types(self, s, env, python_values: set[str]) -> dict[str, set[str]]:
        """The names of ``python_values`` whose Python type ('bool', 'int', 'float') differs
        between the paths of ``s``, with those types (a path may give an array of a known
        dtype instead: `r = a / d` / `r = 0`)."""
        types: dict[str, set[str | None]] = {}
        for st in _walk_as_written(s.body + s.orelse):
            if (
                isinstance(st, gast.AugAssign)
                and isinstance(st.target, gast.Name)
                and st.target.id in python_values
            ):
                # (`cnt += 0.5` of `cnt = 0`: the kind of the sum)
                before = self.value(st.target, st)
                v = self.value(st.value, st)
                if (before.static or before.traced) and (v.static or v.traced):
                    dtype = arithmetic_dtype(st.op, before, v, before)
                    types.setdefault(st.target.id, set()).add(dtype)
                continue
            if not isinstance(st, gast.Assign):
                continue
            v = self.value(st.value, st)
            if v.static or v.traced:
                for t in st.targets:
                    if isinstance(t, gast.Name) and t.id in python_values:
                        types.setdefault(t.id, set()).add(v.dtype)
        both = self.an.activity.of_block(s.body).writes & self.an.activity.of_block(s.orelse).writes
        for n in types:  # (a path that does not assign it keeps the value from before)
            if n not in both:
                before = env.get(n)
                if before is not None and not before.static:
                    # (in a loop: the value it came in with, on the first pass)
                    before = self._first_pass_value(s, n) or before
                types[n].add(before.dtype if before is not None and before.static else None)
        return {
            n: {t for t in ts if t is not None}
            for n, ts in types.items()
            if None not in ts and len(ts) > 1
        }

    def _check_branches(self, s) -> None:
        named = short_circuited_walrus(s.test)
        if named is not None:
            raise _Refused(
                "AJ912",
                s,
                f"`{self._src(named)}` in `{self._src(s.test)}` runs only when Python's "
                f"`and`/`or` reaches it; as a traced predicate every operand is computed (and "
                f"the `:=` would always bind); assign it in a statement before the `if`",
            )
        effect = _effect_in(self, _evaluated_otherwise(s.test), s)
        if effect is not None:
            raise _Refused(
                "AJ912",
                s,
                f"`{effect}` in `{self._src(s.test)}` has an effect, and Python runs it once or "
                f"not at all (`and` / `or` may skip it; a chained comparison computes its middle "
                f"once); as a traced predicate it would run on every path, or twice: assign its "
                f"value in a statement before the `if`",
            )
        if zero_argument_super(self.ctx.source.text_, s.body + s.orelse) is not None:
            raise _Refused(
                "AJ914",
                s,
                f"`super()` under the traced condition `{self._src(s.test)}`: in a branch "
                f"function it cannot find its class; write `super(Class, self)`",
            )
        changer = effectful_call(self.ctx.fn, self.ctx.scope, s.body + s.orelse)
        if changer is not None:
            raise _Refused(
                "AJ912",
                s,
                f"`{changer}` changes something outside itself and is called under the traced "
                f"condition `{self._src(s.test)}`: jit traces both branches once, so the change "
                f"would happen on both paths, once; return the new value instead",
            )
        looked = scope_introspection(s.body + s.orelse, self.ctx.scope)
        if looked is not None:
            raise _Refused(
                "AJ912",
                s,
                f"`{looked}()` under the traced condition `{self._src(s.test)}` reads the "
                f"function's local names; in a branch function it would read that function's "
                f"instead",
            )
        handler = _trace_error_handler(self.ctx.fn, s)
        if handler is not None:
            raise _Refused(
                "AJ912",
                s,
                f"this `if` stands in a `try` whose `except {handler}` would catch an error "
                f"raised while jax traces the branch Python would not run (both are traced): "
                f"the handler would run instead of the branch; move the `try` inside the "
                f"branches, or the `if` out of the `try`",
            )
        defined = next(
            (
                st
                for st in walk_statements(s.body + s.orelse)  # (nested functions not entered)
                if isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef))
                and getattr(st, "_aj_orig", False)
                and st.name in self.an.live_out(s)
            ),
            None,
        )
        if defined is not None:
            what = "class" if isinstance(defined, gast.ClassDef) else "def"
            raise _Refused(
                "AJ916",
                defined,
                f"`{what} {defined.name}` under the traced condition `{self._src(s.test)}` "
                f"binds `{defined.name}`, which is read after the `if`: `lax.cond` can only "
                f"choose between arrays; decide which to use by a static condition",
            )
        branch_writes = self.an.activity.of_block(s.body + s.orelse).writes
        env = self.an.env_before(s)
        python_values = self._python_values(s, branch_writes)
        wide = next(
            (
                (t.id, value)
                for st in walk_statements(self.ctx.fn.body)
                if isinstance(st, gast.Assign)
                for t in st.targets
                if isinstance(t, gast.Name) and t.id in python_values
                for value in [int_constant(st.value)]
                if value is not None and not -(2**31) <= value < 2**31
            )
            if python_values
            else iter(()),  # (no Python value the branches assign: no statement to look at)
            None,
        )
        if wide is not None:
            raise _Refused(
                "AJ918",
                s,
                f"`{wide[0]}` is given the Python int {wide[1]}, which does not fit in int32; "
                f"the traced condition `{self._src(s.test)}` would make it a traced int32 value "
                f"(jax rejects the int): give it a float value if that is meant",
            )
        after = statements_after(self.ctx.fn, s)
        # in a loop, a name that enters it as a Python value (`e = 0` before the loop) is made
        # traced by this `if` on the first iteration, and every statement of the loop (the
        # ones before the `if` too, on the next iteration) reads it after
        loops = [
            a for a in self.ancestors.get(id(s), ()) if isinstance(a, (gast.For, gast.While))
        ]
        for loop in loops:
            entry = self.an.env_before(loop)
            entering = {n for n in branch_writes if n in entry and entry[n].static}
            growing = sorted(
                n for n in entering if entry[n].dtype == "int" and grows_geometrically(loop, n)
            )
            if growing:
                raise _Refused(
                    "AJ918",
                    s,
                    f"`{growing[0]}` is a Python int that grows by products in the loop around "
                    f"the `if` (Python's ints never overflow); the traced condition "
                    f"`{self._src(s.test)}` would make it an int32 value, which wraps past "
                    f"2**31: start it as a float if that is meant",
                )
            if entering:
                python_values |= entering
                seen = {id(st) for st in after}
                after += [
                    st
                    for st in [loop, *walk_statements(loop.body)]
                    if id(st) not in seen and st is not s
                ]
        use = (
            python_value_use(
                after, python_values, self._facts, traced_errors=True, kills=self._kills(s)
            )
            if python_values
            else None
        )
        where = "after the `if`"
        if use is None:
            # (a name bound before and rebound in a branch is an operand of the branch
            # functions: a traced value in both of them, before its rebinding too)
            reads = self.an.activity.of_block(s.body + s.orelse).reads
            operands = python_values & env.keys() & reads
            branches = list(walk_statements(s.body + s.orelse))
            if operands:
                use = python_value_use(branches, operands, self._facts, traced_errors=True)
                where = "in a branch (an operand of the branch functions there)"
        if use is not None:
            raise _Refused(
                "AJ918",
                s,
                f"`{use[0]}` holds a Python value that the traced condition "
                f"`{self._src(s.test)}` would make a traced one, and {use[1]} reads it {where} "
                f"(a traced value is never `True`, nor an `int`); give it an array value "
                f"before, or test it with jnp",
            )
        mixed = self._mixed_python_types(s, env, python_values)
        # (and those of the traced `if`s around it, an `elif` chain: converted first, this one
        # would leave them a converted chain they could not refuse once, as written, alike)
        refused_around = None
        for a in reversed(self.ancestors.get(id(s), ())):
            if not isinstance(a, gast.If):
                break  # (a loop: the `if`s around it are another question)
            if self._test_kind(a) is Kind.STATIC:
                continue
            outer = self._mixed_python_types(
                a, self.an.env_before(a), self._python_values(a) & branch_writes
            )
            for n, ts in outer.items():
                mixed[n] = mixed.get(n, set()) | ts
            # (one that is refused for the types this one's branches give a name, as it judges
            # them after it: converted, this one would leave it a `jnp.where`/`lax.cond` of them
            # instead, which the next conversion judges otherwise; refused alike, both stay)
            if outer and refused_around is None:
                found = returned_as_is(
                    statements_after(self.ctx.fn, a),
                    set(outer),
                    self._dtype_fixer(set().union(*outer.values())),
                    kills=self._surely_after(a),
                )
                if found is not None:
                    refused_around = (found, outer[found], a)
        returned = (
            returned_as_is(
                after,
                mixed,
                self._dtype_fixer(set().union(*mixed.values())),
                kills=self._surely_after(s),
            )
            if mixed
            else None
        )
        if returned is not None:
            raise _Refused(
                "AJ918",
                s,
                f"`{returned}` is given values of different types "
                f"({', '.join(sorted(mixed.get(returned) or set().union(*mixed.values())))}) "
                f"on the paths of the traced condition `{self._src(s.test)}` and returned as it "
                f"is or in a value whose dtype follows it (`x * k` of an int array): Python "
                f"returns each path's type, a traced value has one dtype; give it one type on "
                f"both paths (`0.0` for `0`)",
            )
        if refused_around is not None:
            n, ts, a = refused_around
            raise _Refused(
                "AJ918",
                s,
                f"`{n}` is given values of different types ({', '.join(sorted(ts))}) on the "
                f"paths of the traced condition `{self._src(a.test)}` around this `if` (its "
                f"own among them) and returned as it is or in a value whose dtype follows it "
                f"(`x * k` of an int array): Python returns each path's type, a traced value "
                f"has one dtype; give it one type on all paths (`0.0` for `0`)",
            )
        kinds = self._arrays_of_two_kinds(s)
        if kinds is not None:
            n, a, b = kinds
            raise _Refused(
                "AJ918",
                s,
                f"`{n}` is an array of {a}s on one path of the traced condition "
                f"`{self._src(s.test)}` and of {b}s on the other, and is read after it: Python "
                f"keeps each path's dtype, a traced value has one (`jnp.where` would promote "
                f"both to one, which rounds ints past 2**24 as float32; `lax.cond` rejects "
                f"them); cast one side (`.astype(...)`) so that both paths give one dtype",
            )
        # The Python ints the branches give, which the `lax.cond` makes int32 values: what they
        # may hold, from every write of the function (`k = 5000`, `k *= 10`, `k = k // 2`,
        # `k = BIG`; a value the code does not show, `k = len(x)`, as a size: ASSUMED_INT)
        given = python_values & {
            n.id
            for st in _walk(s.body + s.orelse)
            if isinstance(st, (gast.Assign, gast.AugAssign))
            for t in (st.targets if isinstance(st, gast.Assign) else [st.target])
            for n in ([t] if isinstance(t, gast.Name) else getattr(t, "elts", []))
            if isinstance(n, gast.Name)
        }
        constants = self._int_constants() if given else {}
        ranges = int_ranges(self.ctx.fn, given, constants, self._assumed_int) if given else {}
        over = (
            int32_overflow(
                [s, *walk_statements(s.body + s.orelse), *after],
                ranges,
                constants,
                self._int_operand,
            )
            if ranges
            else None
        )
        if over is not None:
            name, expr, (lo, hi) = over
            raise _Refused(
                "AJ918",
                s,
                f"`{expr}` reaches {_farthest((lo, hi))} from the Python int "
                f"`{name}`, past int32 (Python's ints never overflow); the traced condition "
                f"`{self._src(s.test)}` would make it an int32 value, which wraps: make `{name}` "
                f"a float if that is meant",
            )
        stale = stale_closure_read(self.ctx.fn, s.body + s.orelse, branch_writes)
        if stale is not None:
            raise _Refused(
                "AJ912",
                s,
                f"`{stale[0]}` reads `{stale[1]}`, which the branches under the traced condition "
                f"`{self._src(s.test)}` change: in a branch function it would still read the "
                f"old value (Python's closure sees the new one); pass `{stale[1]}` to it",
            )
        outer = declared_outer(self.ctx.fn)
        if outer:
            written = sorted(outer & branch_writes)
            if written:
                raise _Refused(
                    "AJ912",
                    s,
                    f"`{written[0]}` is declared `global`/`nonlocal` and assigned under the "
                    f"traced condition `{self._src(s.test)}`: in a branch function it would be "
                    f"that function's own name; return the new value instead",
                )
        for stmt in _walk(s.body + s.orelse):
            if isinstance(stmt, (gast.Raise, gast.Assert)):
                raise _Refused(
                    "AJ911",
                    stmt,
                    f"`{type(stmt).__name__.lower()}` under the traced condition "
                    f"`{self._src(s.test)}`: jit traces both branches, so it would always run "
                    f"(or never be checked); use jax.experimental.checkify or return a flag",
                )
            if isinstance(stmt, (gast.Break, gast.Continue)):
                raise _Refused(
                    "AJ914",
                    stmt,
                    f"`{type(stmt).__name__.lower()}` under the traced condition "
                    f"`{self._src(s.test)}` inside a loop that stays Python",
                )
            if isinstance(stmt, (gast.Try, gast.With, gast.AsyncWith)) or type(stmt).__name__ in (
                "TryStar",
            ):
                raise _Refused(
                    "AJ914",
                    stmt,
                    f"`{type(stmt).__name__.lower()}` inside a branch of a traced condition",
                )
            if isinstance(stmt, (gast.Global, gast.Nonlocal)):
                raise _Refused(
                    "AJ912",
                    stmt,
                    f"`{type(stmt).__name__.lower()}` under a traced condition: the branch "
                    f"functions would change the outer name on both paths at trace time",
                )
            if _own_contains(stmt, (gast.Yield, gast.YieldFrom, gast.Await)):
                raise _Refused("AJ914", stmt, "`yield`/`await` under a traced condition")
            named = _walrus_in_comprehension(stmt)
            if named is not None:
                raise _Refused(
                    "AJ914",
                    stmt,
                    f"`{self._src(named)}` in a comprehension under the traced condition "
                    f"`{self._src(s.test)}` binds `{named.target.id}` of the function, which a "
                    f"branch function would bind as its own; assign it in a statement",
                )
            self._check_effects(s, stmt)

    def _check_effects(self, s, stmt) -> None:
        an = self.an
        locals_ = an.values.locals
        for n in walk_bfs(stmt) if not isinstance(stmt, _COMPOUND) else ():
            if isinstance(n, gast.Call) and stateful_call(self.ctx.scope, an, n, stmt):
                # `rng.normal()`, `next(it)`: both branches are traced, so both would draw
                raise _Refused(
                    "AJ912",
                    stmt,
                    f"`{self._src(n)}` gives a new value at each call, under the traced "
                    f"condition `{self._src(s.test)}`: jit traces both branches, so both would "
                    f"draw (once, at trace time); draw before the `if`",
                )
            # a method that changes its object, inside an expression (`y = stack.pop()`)
            if container_change(an, n, self.stand_in.get(stmt, stmt)) and not (
                isinstance(stmt, gast.Expr) and n is stmt.value  # (checked below)
            ):
                raise _Refused(
                    "AJ912",
                    stmt,
                    f"`{self._src(n)}` changes `{self._src(n.func.value)}` under the traced "
                    f"condition `{self._src(s.test)}`; jit traces both branches, so the change "
                    f"would happen on both paths, at trace time",
                )
        if isinstance(stmt, gast.Delete):
            gone = next(
                (t for t in stmt.targets if isinstance(t, (gast.Subscript, gast.Attribute))),
                None,
            )
            if gone is not None:
                raise _Refused(
                    "AJ912",
                    stmt,
                    f"`del {self._src(gone)}` under the traced condition `{self._src(s.test)}` "
                    f"changes an object in place; jit runs both branches while tracing, so it "
                    f"would always happen",
                )
        if isinstance(stmt, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target]
            for t in targets:
                for sub in walk_nodes(t):
                    if isinstance(sub, (gast.Subscript, gast.Attribute)) and isinstance(
                        sub.ctx, gast.Store
                    ):
                        base = _base(sub)
                        v = self.value(base, stmt) if base is not None else None
                        if v is None or not v.traced or base.id not in locals_:
                            raise _Refused(
                                "AJ912",
                                stmt,
                                f"`{self._src(t)} = ...` under the traced condition "
                                f"`{self._src(s.test)}` changes an object in place; jit runs "
                                f"both branches while tracing, so the change would always "
                                f"happen: compute the new value and assign it to a name",
                            )
                        if isinstance(sub, gast.Subscript) and getattr(stmt, "_aj_orig", False):
                            # the item updates run before: one still here was left as written
                            # (by --ignore, noqa, or a loop refused around it, loops.py)
                            raise _Refused(
                                "AJ919",
                                s,
                                f"`if` cannot be converted around `{self._src(t)} = ...` at "
                                f"line {getattr(stmt, 'lineno', '?')}, an item update autojit "
                                f"left as written: fix that one first",
                            )
        if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call):
            call = stmt.value
            fname = dotted_name(call.func) or ""
            qual = self.ctx.scope.qualified(fname) or fname
            if any(qual.startswith(p) for p in _PURE_STATEMENT_CALLS) or fname == "print":
                return
            if fname in {f.name for f in self.created.values()}:
                return  # a branch function called directly (under a static prefix): pure
            if qual in _TRACED_CONTROL or fname in (f"{self.lax}.cond", f"{self.lax}.switch"):
                # a lax.cond / lax.switch statement (an inner `if` whose outputs are all dead,
                # converted already): its branch functions are traced wherever it stands
                return
            base = _base(call.func) if isinstance(call.func, gast.Attribute) else None
            what = (
                f"`{self._src(call)}` changes `{base.id}`"
                if base is not None
                else f"`{self._src(call)}` is called for its effect"
            )
            raise _Refused(
                "AJ912",
                stmt,
                f"{what} under the traced condition `{self._src(s.test)}`; jit traces both "
                f"branches, so the effect would happen on both paths, once, at trace time",
            )

    # -- outputs and operands --------------------------------------------------------------
    def _plan(self, s, branches: list[list]) -> _Plan:
        an = self.an
        # (a closure defined before may read a name after: `apply(g)` reading `lr`)
        live = an.live_out(s) | read_by_closures(self.ctx.fn, s.body + s.orelse, self.ctx.scope)
        defined = an.defined_before(s)
        acts = [an.activity.of_block(b) for b in branches]
        writes_order: list[str] = []
        for b in branches:
            for n in _names_in_order(b, store=True):
                if n not in writes_order:
                    writes_order.append(n)
        outs = [n for n in writes_order if n in live and any(n in a.writes for a in acts)]
        for n in outs:
            for b in branches:
                if n in surely_assigned(b) or n in defined:
                    continue
                raise _Refused(
                    "AJ910",
                    s,
                    f"`{n}` is assigned on some paths through `if {self._src(s.test)}:` only "
                    f"and is read after it; under jit every branch must produce it: assign "
                    f"`{n}` a value before the `if`",
                )
        reads: list[str] = []
        for b in branches:
            for n in _names_in_order(b, store=False):
                if n not in reads:
                    reads.append(n)
        for n in outs:
            if n not in reads:
                reads.append(n)
        self._check_outputs(s, branches, outs)
        return _Plan(outs, self._ordered(self._operands(s, branches, reads)))

    def _operands(self, s, branches, reads: list[str]) -> list[str]:
        """Traced values the branches read, and names a branch both reads and rebinds (which
        a closure could not do); other values are read from the enclosing function."""
        an = self.an
        defined = an.defined_before(s)
        rebinds: set[str] = set()
        for b in branches:
            act = an.activity.of_block(b)
            # (a name the branch binds before it reads it, `def g(v): ...` then `g(x)`, is the
            # branch's own: not given in; a statement the analysis has not seen narrows nothing)
            entry = an.liveness.live_in.get(id(b[0])) if b else an.live_out(s)
            rebinds |= act.reads & act.writes & (act.reads if entry is None else entry)
            # a name the branch assigns on some paths only: its other paths give the incoming
            # value, which a closure cannot once the name is local to the branch function
            rebinds |= (set(reads) & act.writes) - set(surely_assigned(b))
        out = []
        tested_names: set[str] | None = None  # the names the branches' tests read (once)
        recomputed = self.recomputed.get(s, frozenset())
        for n in reads:
            if n not in defined or n in recomputed:
                continue
            v = an.env_before(s).get(n, Value(Kind.UNKNOWN))
            if v.traced or n in rebinds:
                if not v.traced and tested_names is None:
                    tested_names = set()
                    for st in _walk_all([x for b in branches for x in b]):
                        for t in _tests_of(st):
                            tested_names |= expr_activity(t).reads
                tested = not v.traced and n in tested_names  # type: ignore[operator]
                if not v.traced and (v.kind is not Kind.STATIC or tested):
                    # an operand becomes arrays inside lax.cond; a Python container or
                    # object the branch reads and rebinds would change its nature there
                    raise _Refused(
                        "AJ918",
                        s,
                        f"`{n}` ({_kind_words(v, tested)}) "
                        f"is read and rebound under the traced condition "
                        f"`{self._src(s.test)}`; as a lax.cond operand it would become arrays: "
                        f"compute the new value outside the `if`, or select arrays only",
                    )
                out.append(n)
        return out

    def _rematerialize(self, s, block) -> None:
        """A value computed just before the `if` from a function whose derivative is infinite
        or undefined somewhere (`n = jnp.linalg.norm(v)`, `l = jnp.log(p)`), read by one
        branch only (and by the test): computed again at the start of that branch rather than
        passed in. As a `lax.cond` operand, the branch not taken would give it a zero
        cotangent, and its derivative there makes that NaN (`grad` of a clip-by-norm at 0);
        Python's `if` never differentiates it on that path."""
        k = next((i for i, st in enumerate(block) if st is s), None)
        if k is None or k == 0:
            return
        # (first the cheap part: an assignment before it of such a function)
        singular = {
            st.targets[0].id
            for st in block[:k]
            if isinstance(st, gast.Assign)
            and len(st.targets) == 1
            and isinstance(st.targets[0], gast.Name)
            and singular_somewhere(self.ctx.scope, st.value)
        }
        if not singular:
            return
        an = self.an
        reads = [_exposed(an, b) & singular for b in (s.body, s.orelse)]
        if not (reads[0] ^ reads[1]):
            return
        writes = an.activity.of_block(s.body + s.orelse).writes
        live = an.live_out(s)
        done: set[str] = set()
        inserted: list = []
        for n in sorted(reads[0] ^ reads[1]):
            if n in writes or n in live:
                continue
            st = self._singular_source(block, k, n)
            if st is None:
                continue
            branch = s.body if n in reads[0] else s.orelse
            again = gast.Assign(
                targets=[gast.Name(n, gast.Store(), None, None)],
                value=copy_expr(st.value),
                type_comment=None,
            )
            self.stand_in[again] = self.stand_in.get(s, s)
            branch.insert(0, again)
            inserted.append((branch, again))
            done.add(n)
        if done:
            self.recomputed[s] = frozenset(done)
            self.ctx.change(
                "AJ101",
                s,
                f"{', '.join(f'`{n}`' for n in sorted(done))} computed again in the branch that "
                f"reads it, not passed to `lax.cond`: its derivative is infinite or undefined "
                f"somewhere, and the branch not taken would make its gradient NaN there",
            )
            self.rematerialized[s] = (inserted, self.ctx.changes[-1])

    def _undo_rematerialize(self, s) -> None:
        """Take back what :meth:`_rematerialize` did for ``s``, an `if` then refused: it is
        left as the user wrote it (converting the output again must find the same)."""
        done = self.rematerialized.pop(s, None)
        if done is None:
            return
        inserted, change = done
        for branch, again in inserted:
            branch[:] = [st for st in branch if st is not again]
        self.recomputed.pop(s, None)
        self.ctx.changes[:] = [c for c in self.ctx.changes if c is not change]

    def _singular_source(self, block: list, k: int, n: str):
        """The assignment `n = e` of the user's that last binds ``n`` before ``block[k]``, where
        `e` computes, with no effect, a function whose derivative is infinite or undefined
        somewhere and reads nothing rebound between it and ``block[k]`` (so `e` computed again
        at ``block[k]`` gives the same value); else None."""
        an = self.an
        j = next((i for i in range(k - 1, -1, -1) if n in an.activity.of(block[i]).writes), None)
        if j is None:
            return None
        st = block[j]
        if not (
            isinstance(st, gast.Assign)
            and len(st.targets) == 1
            and isinstance(st.targets[0], gast.Name)
            and st.targets[0].id == n
            and getattr(st, "_aj_orig", False)
        ):
            return None
        inputs = expr_activity(st.value).reads
        if n in inputs or inputs & an.activity.of_block(block[j + 1 : k]).writes:
            return None
        if not (self._pure(st.value, st) and singular_somewhere(self.ctx.scope, st.value)):
            return None
        return st

    def _pure(self, node, st) -> bool:
        """Whether ``node`` computes a value with no effect: arithmetic, items and attributes,
        and calls of jax's functions or of a traced array's methods."""
        for n in walk_nodes(node):
            if isinstance(n, (gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await, gast.Lambda)):
                return False
            if isinstance(n, gast.Call):
                fname = dotted_name(n.func) or ""
                qual = self.ctx.scope.qualified(fname) or fname
                if qual.startswith("jax."):
                    continue
                if isinstance(n.func, gast.Attribute) and self.value(n.func.value, st).traced:
                    continue
                return False
        return True

    def _check_outputs(self, s, branches, outs: list[str]) -> None:
        for n in outs:
            for i, b in enumerate(branches):
                what = _python_object(self, self._final_expr(b, n), b, n)
                if not what and len(branches) == 2:
                    kind = self._out_values(s, i, n).kind
                    if kind in (Kind.LIST, Kind.DICT):
                        what = f"a Python {kind.value}"
                if what:
                    raise _Refused(
                        "AJ916",
                        s,
                        f"`{n}` is {what} on one path of `if {self._src(s.test)}:`; a traced "
                        f"condition can only choose between arrays: choose with a static "
                        f"condition, or compute both results and select them",
                    )

    def _ordered(self, names_: list[str]) -> list[str]:
        """The function's parameters first, in signature order, then the rest as they appear."""
        params = [p for p in self.an.params if p in names_]
        return params + [n for n in names_ if n not in params]

    # -- jnp.where eligibility -------------------------------------------------------------
    def _cheap(self, node) -> bool:
        if isinstance(node, (gast.Constant, gast.Name)):
            return True
        if isinstance(node, gast.Attribute):
            return node.attr in ("T", "real", "imag") and self._cheap(node.value)
        if isinstance(node, gast.BinOp):
            if _outside_its_domain(node):
                return False
            return not isinstance(node.op, gast.MatMult) and all(
                self._cheap(x) for x in (node.left, node.right)
            )
        if isinstance(node, gast.UnaryOp):
            return self._cheap(node.operand)
        if isinstance(node, gast.Compare):
            return all(self._cheap(x) for x in [node.left] + node.comparators)
        if isinstance(node, gast.BoolOp):
            return all(self._cheap(x) for x in node.values)
        if isinstance(node, gast.Call) and not node.keywords:
            fname = dotted_name(node.func) or ""
            qual = self.ctx.scope.qualified(fname) or fname
            short = qual.rsplit(".", 1)[1] if "." in qual else qual
            ok = (
                qual.startswith("jax.numpy.")
                and short in _ELEMENTWISE
                and short not in _DOMAIN_RESTRICTED
            ) or (fname in _BUILTIN_CHEAP)
            if isinstance(node.func, gast.Attribute) and node.func.attr == "astype":
                ok = self._cheap(node.func.value)
            return ok and all(self._cheap(a) for a in node.args)
        return False

    def _shape_key(self, node, stmt) -> str | None:
        if isinstance(node, gast.Constant) and type(node.value) in (int, float, bool):
            return "<python scalar>"
        if stmt in self.shape_hint and getattr(stmt, "value", None) is node:
            return self.shape_hint[stmt]
        v = self.value(node, stmt)
        if v.scalar is True:
            return "<scalar>"
        if isinstance(node, gast.Name):
            return v.shape_of or node.id
        return v.shape_of

    def _same_shape(self, a, sa, b, sb) -> bool:
        ka, kb = self._shape_key(a, sa), self._shape_key(b, sb)
        if ka is None or kb is None:
            return False
        scalars = {"<python scalar>", "<scalar>"}
        if ka in scalars and kb in scalars:
            return True
        return ka == kb and ka not in scalars

    def _same_dtype(self, a, sa, b, sb) -> bool:
        """Whether ``a`` and ``b`` (the two results `jnp.where` would select between) surely
        have one dtype kind: `jnp.where` promotes two dtypes to one without a word, where
        Python keeps each path's (`x` of an int array against `x / 2`: int32 on one path,
        float32 on the other); `lax.cond` rejects two loudly, so any doubt goes to it. One
        kind: both from one array with int literals at most (`x`, `x[i]`, `x + 1`, `-x`,
        `2 * x`; an int of a bool `x`: `x` against `2 * x` is taken for numbers unless `x` is
        known bools), both floats of one array (`x * 0.5`, `x / 2`), or dtype kinds the
        analysis knows equal (the widths are not known: README, Limitations); a Python number
        against an array of a kind it does not lift (`jnp.where(c, 0, x)` of a float `x`), or
        two Python numbers (each path's own type is checked where it is read)."""
        if gast.dump(a) == gast.dump(b):
            return True
        qualified = self.ctx.scope.qualified
        src_a, src_b = dtype_source(a, qualified), dtype_source(b, qualified)
        if (
            src_a is not None
            and src_b is not None
            and src_a.arrays
            and src_a.arrays == src_b.arrays
            and src_a.floats == src_b.floats
        ):
            # (`x` against `2 * x`: one dtype but for bools, whose int arithmetic gives
            # int32; taken for numbers unless known bools: README, Limitations)
            return src_a.ints == src_b.ints or not any(
                self.value(name(n), sa).dtype == "bool" for n in src_a.arrays
            )
        lit_a, lit_b = self._python_number(a, sa), self._python_number(b, sb)
        if lit_a is not None and lit_b is not None:
            return True
        kinds = []
        for e, st, lit in ((a, sa, lit_a), (b, sb, lit_b)):
            if lit is not None:
                kinds.append(None)
                continue
            v = self.value(e, st)
            kind = v.dtype
            if kind is None and floating(self.ctx.scope, e) is True:
                kind = "float"
            if kind not in KIND_RANK:
                return False
            kinds.append(kind)
        if lit_a is not None or lit_b is not None:
            lit, kind = (lit_a, kinds[1]) if lit_a is not None else (lit_b, kinds[0])
            return KIND_RANK[lit] <= KIND_RANK[kind]  # type: ignore[index]
        return kinds[0] == kinds[1]

    def _read_after(self, st) -> list:
        """The statements that may run after ``st``: those after it, and in a loop around it
        all of the loop's (its next iteration)."""
        stmts = statements_after(self.ctx.fn, st)
        for a in self.ancestors.get(id(st), ()):
            if isinstance(a, (gast.For, gast.While)):
                stmts = [*a.body, *stmts]
        return stmts

    def _unchanged_source(self, expr, stmts: list, n: str) -> DtypeSource | None:
        """The dtype source of ``expr`` where none of its arrays (nor ``n``) is rebound in
        ``stmts``: then an operand made of them after has the same dtypes."""
        src = dtype_source(expr, self.ctx.scope.qualified) if expr is not None else None
        if src is None or not src.arrays or n in src.arrays:
            return None
        for st in walk_statements(stmts, into_functions=True):
            if src.arrays & self.an.activity.of(st).writes:
                return None
        return src

    def _python_number(self, e, st) -> str | None:
        """The kind of a Python number ``e`` is (a literal, a static name: `scale = 1`), or
        None."""
        lit = literal_kind(e)
        if lit is not None:
            return lit
        v = self.value(e, st)
        return v.dtype if v.static and v.dtype in KIND_RANK else None

    def _where_values(self, s, branches, outs):
        """For each output, its (expr, stmt) in each branch, or None when not eligible."""
        if not self.ctx.allowed("AJ102", s):
            return None
        out = {n: [] for n in outs}
        for b in branches:
            seen: set[str] = set()
            for st in b:
                if not (
                    isinstance(st, gast.Assign)
                    and len(st.targets) == 1
                    and isinstance(st.targets[0], gast.Name)
                ):
                    return None
                n = st.targets[0].id
                if n not in out or n in seen:
                    return None
                if expr_activity(st.value).reads & seen:
                    return None
                if not self._cheap(st.value):
                    return None
                seen.add(n)
                out[n].append((st.value, st))
            for n in outs:
                if n not in seen:
                    out[n].append((name(n), s))
        # names whose shape the enclosing loop fixes (scalar carry values; set by loops.py)
        fixed = getattr(s, "_aj_scalar_carry", frozenset())
        for _n, vals in out.items():
            (a, sa), (b, sb) = vals
            # (a loop's carry has one type, which the loop checks loudly: `jnp.where` of
            # another shape or dtype fails there)
            if _n not in fixed and not (
                self._same_shape(a, sa, b, sb) and self._same_dtype(a, sa, b, sb)
            ):
                return None
        return out

    # -- assigning if -> cond / where ------------------------------------------------------
    def _assigning_if(self, s, block, prefix, op, rest) -> None:
        branches = [s.body, s.orelse]
        plan = self._plan(s, branches)
        pred = self.pred(rest, s)
        where = None if prefix is not None else self._where_values(s, branches, plan.outs)
        if where is not None and plan.outs:
            jnp = self.jnp
            stmts = []
            test = pred
            if len(plan.outs) > 1 and (not isinstance(pred, gast.Name) or pred.id in plan.outs):
                # (computed once, before the first `jnp.where` rebinds a name it reads: `if n:`
                # where a branch writes `n`)
                p = self.ctx.fresh("pred")
                stmts += replace("P = TEST", P=p, TEST=pred)
                test = name(p)
            for i, n in enumerate(plan.outs):
                (a, sa), (b, sb) = where[n]
                new = replace(
                    f"N = {jnp}.where(TEST, A, B)",
                    N=n,
                    TEST=test if i == 0 or not isinstance(test, gast.AST) else copy_expr(test),
                    A=a,
                    B=b,
                )
                ka, kb = self._shape_key(a, sa), self._shape_key(b, sb)
                hint = ka if ka not in (None, "<python scalar>") else kb
                if hint is not None:
                    self.shape_hint[new[0]] = hint
                stmts += new
            for st in stmts:
                self.stand_in[st] = self.stand_in.get(s, s)
            replace_statements(block, [s], stmts)
            self.ctx.change(
                "AJ102",
                s,
                f"`if {self._src(s.test)}:` on a traced value, both branches cheap and "
                f"elementwise -> `{jnp}.where` for {', '.join(f'`{n}`' for n in plan.outs)}",
            )
            return
        then_name, else_name = self.ctx.fresh("_then"), self.ctx.fresh("_else")
        ops = plan.operands
        then_fn = self._branch_fn(then_name, ops, s.body, plan.outs)
        else_fn = self._branch_fn(else_name, ops, s.orelse, plan.outs)
        rets = [then_fn.body[-1], else_fn.body[-1]]
        before = [gast.dump(r) for r in rets]
        self._promote_outs(s, plan, [then_fn, else_fn], [then_name, else_name])
        direct_body = self._direct_body(s, op, rets, before)
        for fn in (then_fn, else_fn):
            _return_last_value(fn, plan.outs, self.ctx.source)
        stmts = [then_fn, else_fn]
        stmts += self._dispatch(
            s, plan.outs, then_name, else_name, ops, pred, prefix, op, False, direct_body
        )
        replace_statements(block, [s], stmts)
        outs = ", ".join(f"`{n}`" for n in plan.outs) or "nothing"
        self.ctx.change(
            "AJ101",
            s,
            f"`if {self._src(s.test)}:` on a traced value -> `{self.lax}.cond` with branch "
            f"functions `{then_name}`/`{else_name}` (outputs: {outs})",
        )

    def _branch_fn(self, fname: str, ops: list[str], body: list, outs: list[str] | None):
        stmts = list(body)
        if outs is not None:
            if len(outs) == 1:
                stmts += replace("return X", X=outs[0])
            elif outs:
                stmts += replace(
                    "return X", X=gast.Tuple(elts=[name(n) for n in outs], ctx=gast.Load())
                )
            else:
                stmts += replace("return None")
        fn = replace("def F(ARGS):\n    pass", F=fname)[0]
        self.created[id(fn)] = fn
        fn.args.args = [
            gast.Name(id=o, ctx=gast.Param(), annotation=None, type_comment=None) for o in ops
        ]
        fn.body = stmts
        return fn

    def _direct_body(self, s, op, rets, before):
        """Under a static prefix, the path that skips lax.cond runs its branch as written when
        the branch function was given a type promotion (which traces the other branch)."""
        if op is None:
            return None
        k = 0 if op == "or" else 1
        if gast.dump(rets[k]) == before[k]:
            return None
        from .normalize import _copy_stmt

        block = s.body if k == 0 else s.orelse
        fn_body = [_copy_stmt(x) for x in block]
        return fn_body

    def _dispatch(
        self, s, outs, then_name, else_name, ops, pred, prefix, op, returning, direct_body=None
    ):
        """The statements that call the branch functions: lax.cond, under a static prefix."""
        lax = self.lax
        args = ", ".join(ops)
        call = f"{lax}.cond(PRED, {then_name}, {else_name}{', ' if ops else ''}{args})"

        def bind(expr_text: str, **kw):
            if returning:
                return replace(f"return {expr_text}", **kw)
            if not outs:
                return replace(expr_text, **kw)
            target = outs[0] if len(outs) == 1 else ", ".join(outs)
            return replace(f"{target} = {expr_text}", **kw)

        cond_stmts = bind(call, PRED=pred)
        if prefix is None:
            return cond_stmts
        direct = then_name if op == "or" else else_name
        direct_stmts = bind(f"{direct}({args})") if direct_body is None else direct_body
        if op == "and":
            new_if = gast.If(test=prefix, body=cond_stmts, orelse=direct_stmts)
        else:
            new_if = gast.If(test=prefix, body=direct_stmts, orelse=cond_stmts)
        return [new_if]

    # -- type agreement ----------------------------------------------------------------------
    def _out_values(self, s, i: int, n: str) -> Value:
        env = self.end_env.get(s, ({}, {}))[i]
        return env.get(n, Value(Kind.UNKNOWN))

    def _promote_outs(self, s, plan: _Plan, fns, names_) -> None:
        """Make the outputs of both branches the same type: a Python number on one side and
        an array on the other is promoted as eager arithmetic would promote them."""
        if not plan.outs:
            return
        rets = [fn.body[-1] for fn in fns]
        self._fns = fns
        branches = (s.body, s.orelse)
        # which branch must trace the other for its types (eval_shape): never both ways. A
        # name that only may hold a Python number (on entering a loop) is promoted only where
        # that needs no both-ways tracing: else as before, the values the analysis sees decide
        # (converting the output again, where such a name is an array, decides the same)
        for loose in (True, False):
            evals = set()
            for n in plan.outs:
                vals = [self._out_values(s, i, n) for i in range(2)]
                nb = [self._number_like(s, i, n, vals, branches, plan, loose) for i in range(2)]
                if nb[0] != nb[1]:
                    i = 0 if nb[0] else 1
                    if vals[i].dtype != "bool" and not self._passes_through(
                        branches[1 - i], n, plan
                    ):
                        evals.add(i)
            if len(evals) <= 1:
                break
        if len(evals) > 1:
            raise _Refused(
                "AJ917",
                s,
                f"both branches of `if {self._src(s.test)}:` give a Python number for one output "
                f"and an array for another; each would need the other's types: give the "
                f"numbers their array type (e.g. `jnp.float32(0)`)",
            )
        for k, n in enumerate(plan.outs):
            vals = [self._out_values(s, i, n) for i in range(2)]
            nb = [self._number_like(s, i, n, vals, branches, plan, loose) for i in range(2)]
            exprs = [self._final_expr(b, n) for b in (s.body, s.orelse)]
            if vals[0].static and vals[1].static:
                for i, target in enumerate(_python_promotion(vals)):
                    if target is not None:
                        _set_slot(rets[i], k, len(plan.outs), replace_expr(f"{target}(N)", N=n))
                continue
            if not nb[0] and not nb[1]:
                # two arrays: never promoted to one dtype here. Where both are surely one kind
                # they agree; where the analysis does not know one's (`x` of a parameter
                # against `x / 2`), Python keeps each path's dtype (int32 / float32 for an int
                # `x`), which one traced value cannot: `lax.cond` rejects the two loudly, and
                # a float `x` gives floats on both paths, as Python's (a cast of the `x` side
                # to floats gave float32 where Python gave int32: silent)
                continue
            for i in range(2):
                j = 1 - i
                # a Python bool against an array: bool is the lowest type, so jax's own
                # check is enough (an int/float array would fail loudly, not silently)
                if vals[i].dtype == "bool":
                    continue
                if nb[i] and vals[j].kind in (Kind.TRACED, Kind.UNKNOWN):
                    target = self._chain_promotion(vals[i], branches[j], n)
                    if target is not None:
                        if target != vals[i].dtype:
                            _set_slot(rets[i], k, len(plan.outs), replace_expr(f"{target}(N)", N=n))
                        continue
                    # (a loop body's carry that enters the loop as a Python number is one in
                    # the trace for the carry's type only: the loop runs on the carry, an array
                    # of the loop's type, as the loops rule takes it for the body's other reads;
                    # its zero-trip case is that rule's, AJ932. Another width of the same kind
                    # met in the body, float16 data against a float32 carry, is not known:
                    # README, Limitations)
                    carried = not vals[i].static and n in getattr(
                        self.ctx.fn, "_aj_number_params", ()
                    )
                    if _may_be_number(vals[i], exprs[i]) and not carried:
                        self._refuse_weak_or_strong_read(
                            s, n, vals[i].dtype, vals[j].dtype, exprs[j]
                        )
                    # (where the other path assigns it a value of its own: one computed from
                    # the name itself, `c += 1`, has the type the loop joins, not known here)
                    if (
                        vals[i].dtype in ("int", None)
                        and exprs[j] is not None
                        and n not in expr_activity(exprs[j]).reads
                    ):
                        self._refuse_int_past_float32(s, name(n), vals[j].dtype, f"`{n}`")
                    self._promote_static_side(rets, k, len(plan.outs), i, j, n, names_, plan)

    def _refuse_weak_or_strong_read(
        self, s, n: str, number_kind: str | None, array_kind: str | None, array_expr
    ) -> None:
        """Refuse where ``n``, a Python number on one path of ``s`` and an array on the other
        (``array_expr`` there, where known), is read after it (in a loop around it, anywhere
        in the loop) where the two give other dtypes: one `lax.cond` output has one dtype, so
        one path would be wrong (`y * k` of a float16 `y` is float16 for `k = 2.0`, float32
        for a float32 `k`)."""
        stmts = self._read_after(s)
        covered = covering(
            self._unchanged_source(array_expr, stmts, n),
            number_kind == "float",
            False,
            self.ctx.scope.qualified,
        )
        found = read_telling_weak_from_strong(
            stmts, n, self.value, (number_kind, array_kind), covered
        )
        if found is None:
            return
        read, line = found
        raise _Refused(
            "AJ918",
            s,
            f"`{n}` is a Python "
            f"{'number' if number_kind in ('int', 'float') else 'value (a number?)'} on one "
            f"path of the traced condition "
            f"`{self._src(s.test)}` and an array on the other, and `{self._src(read)}` (line "
            f"{line}) gives the two other dtypes ({WEAK_TYPE_REASON}): one "
            f"traced value has one dtype; give the number its array type on its path "
            f"(`{self.jnp}.float32(2.0)`), or the array the number's",
        )

    def _chain_promotion(self, mine: Value, other_branch: list, n: str) -> str | None:
        """Where the other branch gives ``n`` only Python number literals through `if`s (an
        `elif` chain: `rate = 0` / `rate = 0.2` / ...), converted innermost first and each
        level promoted to its widest type: that widest type, when it is also the widest with
        this branch's number ``mine`` (`float`, `int`), which then only needs `float(n)`. No
        `jax.eval_shape` of the other branch: in a chain, each level traced the rest of it
        twice (the trace time doubled with every `elif`). None: not known so."""
        theirs = _literal_number_types(self.an, other_branch, n)
        if not theirs or mine.dtype not in ("int", "float"):
            return None
        widest = _widest_number_type(theirs)
        return widest if widest == _widest_number_type(theirs | {mine.dtype}) else None

    def _number_like(
        self, s, i: int, n: str, vals, branches, plan: _Plan, loose: bool = True
    ) -> bool:
        """Whether branch ``i`` may give ``n`` as a Python number: its value is one, or it
        passes ``n`` through where ``n`` held a Python number on entering a loop around the
        `if` (`best = 0` before `for ...: if x[i] > best: best = x[i]`: the first iteration's
        `best` is that number, which lax.cond cannot return against a float array)."""
        if vals[i].static:
            return True
        if not loose:
            return False
        if vals[i].dtype is not None or not self._passes_through(branches[i], n, plan):
            return False
        if n in getattr(self.ctx.fn, "_aj_number_params", ()):
            return True  # a loop body's carry that enters the loop as a Python number
        probe = name(n)
        for a in self.ancestors.get(id(s), ()):
            if isinstance(a, (gast.For, gast.While)):
                v = self.an.value(probe, a)
                if v.static and v.dtype in ("int", "float"):
                    return True
        return False

    def _final_expr(self, block, n: str):
        for st in reversed(block):
            if isinstance(st, gast.Assign) and any(
                isinstance(t, gast.Name) and t.id == n for t in st.targets
            ):
                return st.value
            if n in self.an.activity.of(st).writes:
                return None
        return None

    def _other_types(self, fn, other_fn: str, ops: list[str]) -> str:
        """`jax.eval_shape(other_fn, *ops)`: the types the other branch gives. Taken at the top
        of ``fn`` when ``fn`` rebinds an operand (the other branch must see the inputs)."""
        call = f"{self.jax}.eval_shape({other_fn}{', ' if ops else ''}{', '.join(ops)})"
        rebinds = set()
        for st in fn.body:
            rebinds |= self.an.activity.of(st).writes
        if not (rebinds & set(ops)):
            return call
        cache = self.__dict__.setdefault("_types_of", {})
        if fn not in cache:
            var = self.ctx.fresh("other_types")
            fn.body.insert(0, replace(f"V = {call}", V=var)[0])
            cache[fn] = var
        return cache[fn]

    def _first_pass_value(self, s, n: str, exact: bool = True) -> Value | None:
        """The value ``n`` holds when a loop around ``s`` first reaches it, where the values
        analysis joins it with the loop's own writes: what the innermost loop whose entry value
        is not such a join came in with. None where the loop's target is ``n``, or (``exact``)
        a statement before ``s`` on the way to it writes ``n``; not ``exact``: the loop's entry
        value all the same (for a refusal, which errs on the safe side)."""
        inner = s
        for a in reversed(self.ancestors.get(id(s), ())):
            for f in ("body", "orelse", "finalbody"):
                block = getattr(a, f, None) or []
                if any(st is inner for st in block):
                    break
            else:
                block = next(
                    (h.body for h in getattr(a, "handlers", []) if any(st is inner for st in h.body)),
                    [],
                )
            for st in block:
                if st is inner:
                    break
                if exact and n in self.an.activity.of(st).writes:
                    return None
            if isinstance(a, (gast.For, gast.While)):
                if isinstance(a, gast.For) and any(
                    isinstance(t, gast.Name) and t.id == n for t in walk_nodes(a.target)
                ):
                    return None
                entry = self.an.env_before(a).get(n)
                if entry is not None and (entry.static or entry.dtype is not None):
                    return entry
            inner = a
        return None

    def _arrays_of_two_kinds(self, s) -> tuple[str, str, str] | None:
        """(name, kind, kind) for a name read after ``s`` that its branches leave arrays of
        two known dtype kinds (`bool`, `int`, `float`): `r = i.astype(jnp.int32)` on one path,
        `r = x * 0.5` on the other."""
        ends = self.end_env.get(s)
        if ends is None:
            return None
        writes = self.an.activity.of_block(s.body + s.orelse).writes
        for n in sorted(writes & self.an.live_out(s)):
            vals = [ends[0].get(n), ends[1].get(n)]
            if any(v is None or v.static for v in vals):
                continue
            kinds = [v.dtype for v in vals]  # type: ignore[union-attr]
            for i, block in enumerate((s.body, s.orelse)):
                if kinds[i] is None:  # (`x * 0.5` of a parameter: surely floats)
                    expr = self._final_expr(block, n)
                    if expr is not None and floating(self.ctx.scope, expr) is True:
                        kinds[i] = "float"
            if kinds[0] in KIND_RANK and kinds[1] in KIND_RANK and kinds[0] != kinds[1]:
                return n, kinds[0], kinds[1]
            # in a loop, the value a branch passes through is the one the loop came in with on
            # its first pass (the analysis joins it with the loop's own writes: no dtype)
            for i, block in enumerate((s.body, s.orelse)):
                other = kinds[1 - i]
                if kinds[i] is not None or other not in KIND_RANK:
                    continue
                if n in self.an.activity.of_block(block).writes:
                    continue
                entry = self._first_pass_value(s, n, exact=False)
                if entry is None or entry.static or entry.dtype not in KIND_RANK:
                    continue
                if entry.dtype != other:
                    return (n, entry.dtype, other) if i == 0 else (n, other, entry.dtype)
        return None

    def _passes_through(self, block, n: str, plan: _Plan) -> bool:
        """Whether ``n`` leaves this branch as the operand that came in."""
        return n in plan.operands and n not in self.an.activity.of_block(block).writes

    def _promote_static_side(self, rets, k, nouts, i, j, n, names_, plan):
        """Give branch ``i``'s Python number ``n`` the type of branch ``j``'s array (as eager
        arithmetic of the two would promote the number)."""
        jnp = self.jnp
        s_branches = self._fns

        def slot(ret, new):
            if nouts == 1:
                ret.value = new
            else:
                ret.value.elts[k] = new

        # (the array side is never cast: a Python float against an int array, `k = x[0]` /
        # `k = 0.5`, gives ints on one path in Python; the number cast to the array's type
        # with the float, float32, makes `lax.cond` reject the two loudly, where a cast of the
        # array to floats gave float32 on the path Python gives ints)
        fn_j_body = s_branches[j].body[:-1]
        if n in plan.operands and not any(n in self.an.activity.of(st).writes for st in fn_j_body):
            # the other branch passes the incoming `n` through: its type is known on entry
            fn = s_branches[i]
            var = self.ctx.fresh(f"{n}_type")
            fn.body.insert(0, replace(f"V = {jnp}.result_type(N)", V=var, N=n)[0])
            slot(rets[i], replace_expr(f"{jnp}.asarray(N, {jnp}.result_type(T, N))", N=n, T=var))
            return
        types = self._other_types(self._fns[i], names_[j], plan.operands)
        index = f"[{k}]" if nouts > 1 else ""
        slot(
            rets[i],
            replace_expr(f"{jnp}.asarray(N, {jnp}.result_type({types}{index}.dtype, N))", N=n),
        )

    # -- returning if -> return cond(...) / return where(...) ---------------------------------
    def _returning_if(self, s, block, prefix, op, rest) -> None:
        pred = self.pred(rest, s)
        if (
            prefix is None
            and len(s.body) == 1
            and len(s.orelse) == 1
            and isinstance(s.body[0], gast.Return)
            and isinstance(s.orelse[0], gast.Return)
            and s.body[0].value is not None
            and s.orelse[0].value is not None
            and self.ctx.allowed("AJ102", s)
        ):
            a, b = s.body[0].value, s.orelse[0].value
            if (
                self._cheap(a)
                and self._cheap(b)
                and self._same_shape(a, s.body[0], b, s.orelse[0])
                and self._same_dtype(a, s.body[0], b, s.orelse[0])
            ):
                new = replace(f"return {self.jnp}.where(TEST, A, B)", TEST=pred, A=a, B=b)
                replace_statements(block, [s], new)
                self.ctx.change(
                    "AJ102",
                    s,
                    f"`if {self._src(s.test)}: return ...` on a traced value, both results "
                    f"cheap and elementwise -> `return {self.jnp}.where(...)`",
                )
                return
        plan = self._plan_returning(s)
        then_name, else_name = self.ctx.fresh("_then"), self.ctx.fresh("_else")
        ops = plan.operands
        then_fn = self._branch_fn(then_name, ops, s.body, None)
        else_fn = self._branch_fn(else_name, ops, s.orelse, None)
        direct_src, direct_copy, before = None, None, None
        if prefix is not None:
            from .normalize import _copy_stmt

            direct_src = s.body if op == "or" else s.orelse
            before = [gast.dump(x) for x in direct_src]
            direct_copy = [_copy_stmt(x) for x in direct_src]
        self._promote_returns(s, [then_fn, else_fn], [then_name, else_name], ops)
        direct_body = None
        if direct_src is not None and [gast.dump(x) for x in direct_src] != before:
            # the promotion traces the other branch: the path that skips lax.cond runs the
            # branch as written instead
            direct_body = direct_copy
        stmts = [then_fn, else_fn]
        stmts += self._dispatch(
            s, [], then_name, else_name, ops, pred, prefix, op, True, direct_body
        )
        replace_statements(block, [s], stmts)
        self.ctx.change(
            "AJ101",
            s,
            f"`if {self._src(s.test)}:` on a traced value, returning in both branches -> "
            f"`return {self.lax}.cond(...)` with branch functions `{then_name}`/`{else_name}`",
        )

    def _check_returned_kinds(self, s) -> None:
        """AJ918 for a returning `if` whose paths return a Python number and a value of
        another kind in one place (`return 16777217` / `return 0.5`, `return 0` / `return
        x.mean()` of a float array): Python returns each path's type, a traced result has one
        dtype (the int was made a float32, 16777216.0). Where a dtype is not known (a
        parameter's) nothing is said, as for an assigned name (`_mixed_python_types`)."""
        rets = [
            (r.value, r)
            for r in _walk(s.body + s.orelse)
            if isinstance(r, gast.Return) and r.value is not None
        ]
        mixed = mixed_returned_kinds(rets, self._value_or_floats)
        if mixed is not None:
            k, kinds = mixed
            place = f" (the result's item {k})" if k is not None else ""
            raise _Refused(
                "AJ918",
                s,
                f"the paths of the traced condition `{self._src(s.test)}` return values of "
                f"different types{place}: {', '.join(kinds)}; Python returns each path's type, "
                f"a traced result has one dtype; give them one type on every path (`0.0` for "
                f"`0`)",
            )

    def _check_identity_of_result(self, s) -> None:
        """AJ918 for a returning `if` that returns Python constants (`return True` / `return
        None`) whose result a caller in the module tests with `is` (`if big(x) is True:`):
        converted, the function returns a traced value, never the constant itself, so the test
        is always False (silent)."""
        constants = [
            c
            for r in _walk(s.body + s.orelse)
            if isinstance(r, gast.Return) and r.value is not None
            for c in ([r.value, *r.value.elts] if isinstance(r.value, gast.Tuple) else [r.value])
            if isinstance(c, gast.Constant) and (c.value is None or isinstance(c.value, bool))
        ]
        tree = getattr(self.ctx.source, "tree", None)
        if not constants or tree is None or not getattr(self.ctx.fn, "_aj_orig", False):
            return
        found = result_tested_by_identity(tree, self.ctx.fn.name, self.ctx.source.text_)
        if found is not None:
            raise _Refused(
                "AJ918",
                s,
                f"`{self.ctx.fn.name}` returns `{constants[0].value}` on a path of the "
                f"traced condition `{self._src(s.test)}`, and `{found[0]}` tests its result "
                f"with `is` (line {found[1]}): converted, it returns a traced value, never "
                f"`{constants[0].value}` itself; compare with `==`, or return an array",
            )

    def _value_or_floats(self, expr, stmt) -> Value:
        """``expr``'s value, an array of floats where its dtype is not known but the expression
        surely gives floats (`x * 0.5`, `x / n` of a parameter)."""
        v = self.value(expr, stmt)
        if v.traced and v.dtype is None and floating(self.ctx.scope, expr) is True:
            return v._replace(dtype="float")
        return v

    def _plan_returning(self, s) -> _Plan:
        an = self.an
        defined = an.defined_before(s)
        reads: list[str] = []
        for n in _names_in_order(s.body + s.orelse, store=False):
            if n not in reads:
                reads.append(n)
        del defined
        for r in _walk(s.body + s.orelse):
            if isinstance(r, gast.Return):
                parts = r.value.elts if isinstance(r.value, gast.Tuple) else [r.value]
                what = next(
                    (w for w in (_python_object(self, p, None, None) for p in parts) if w), None
                )
                if what:
                    raise _Refused(
                        "AJ916",
                        r,
                        f"this path returns {what} under the traced condition "
                        f"`{self._src(s.test)}`; a traced condition can only choose between "
                        f"arrays",
                    )
        return _Plan([], self._ordered(self._operands(s, [s.body, s.orelse], reads)))

    def _promote_returns(self, s, fns, names_, ops) -> None:
        """Returned values of different types (a Python number against an array) are promoted
        as eager arithmetic would; a tuple of results is promoted element by element."""
        rets = [[r for r in _walk(b) if isinstance(r, gast.Return)] for b in (s.body, s.orelse)]
        if any(r.value is None for side in rets for r in side):
            return
        arities = {
            len(r.value.elts) if isinstance(r.value, gast.Tuple) else None
            for side in rets
            for r in side
        }
        if len(arities) != 1:
            return
        arity = arities.pop()
        slots = range(arity) if arity is not None else [None]

        def get(r, k):
            return r.value if k is None else r.value.elts[k]

        def put(r, k, new):
            if k is None:
                r.value = new
            else:
                r.value.elts[k] = new

        jnp = self.jnp
        evals = set()
        for k in slots:
            kinds = [[self.value(get(r, k), r) for r in side] for side in rets]
            for i in range(2):
                if any(v.kind in (Kind.TRACED, Kind.UNKNOWN) for v in kinds[1 - i]) and any(
                    v.static and v.dtype != "bool" for v in kinds[i]
                ):
                    evals.add(i)
        if len(evals) > 1:
            raise _Refused(
                "AJ917",
                s,
                f"both branches of `if {self._src(s.test)}:` return a Python number in one "
                f"place and an array in another; each would need the other's types: give the "
                f"numbers their array type (e.g. `jnp.float32(0)`)",
            )
        for k in slots:
            kinds = [[self.value(get(r, k), r) for r in side] for side in rets]
            flat = [v for side in kinds for v in side]
            if not any(v.static for v in flat):
                # arrays on every path: never promoted to one dtype here (`return x` against
                # `return x / 2` of an int `x`: Python gives each path its dtype, `lax.cond`
                # rejects the two loudly; a cast of `x` to floats was silent)
                continue
            if all(v.static for v in flat):
                # Python numbers on every path: the wider Python type on all of them
                dts = {v.dtype for v in flat}
                if None not in dts and len(dts) > 1:
                    target = "float" if "float" in dts else "int"
                    for side_r, side_v in zip(rets, kinds, strict=True):
                        for r, v in zip(side_r, side_v, strict=True):
                            if v.dtype != target:
                                put(r, k, replace_expr(f"{target}(V)", V=get(r, k)))
                continue
            for i in range(2):
                j = 1 - i
                if not any(v.kind in (Kind.TRACED, Kind.UNKNOWN) for v in kinds[j]):
                    continue
                for r, v in zip(rets[i], kinds[i], strict=True):
                    lit = get(r, k)
                    if not v.static or v.dtype == "bool":
                        continue
                    # (the array side is never cast: `return 0.5` against `return x` of an int
                    # `x` gives a float on one path and ints on the other in Python, which
                    # `lax.cond` rejects loudly; a cast of `x` to floats was silent)
                    if v.dtype == "int" and any(
                        not o.static and o.dtype in (None, "float") for o in kinds[j]
                    ):
                        self._refuse_int_past_float32(s, lit, None, "the value returned")
                    index = f"[{k}]" if k is not None else ""
                    types = self._other_types(fns[i], names_[j], ops)
                    put(
                        r,
                        k,
                        replace_expr(
                            f"{jnp}.asarray(V, {jnp}.result_type({types}{index}.dtype, V2))",
                            V=lit,
                            V2=copy_expr(lit),
                        ),
                    )

    # -- switch ----------------------------------------------------------------------------
    def _switch(self, s, block, chain, returning: bool = False) -> bool:
        selector, consts, nodes, branches = chain
        for n in nodes[1:]:
            self._check_branches(n)
        if returning:
            return self._returning_switch(s, block, chain)
        plan = self._plan(s, branches)
        # types must agree without promotion across several branches
        for n in plan.outs:
            kinds = set()
            for b in branches:
                e = self._final_expr(b, n)
                if e is None:
                    kinds.add("other")
                else:
                    kinds.add("static" if self.value(e, b[-1]).static else "other")
            if len(kinds) > 1:
                return False
        names_ = [self.ctx.fresh(f"_case{c}") for c in consts] + [self.ctx.fresh("_default")]
        fns = [
            self._branch_fn(fname, plan.operands, b, plan.outs)
            for fname, b in zip(names_, branches, strict=True)
        ]
        for fn in fns:
            _return_last_value(fn, plan.outs, self.ctx.source)
        lax = self.lax
        index = self._switch_index(nodes, consts)
        fn_list = gast.List(elts=[name(f) for f in names_], ctx=gast.Load())
        args = ", ".join(plan.operands)
        expr = f"{lax}.switch(INDEX, FNS{', ' if args else ''}{args})"
        if not plan.outs:
            call = replace(expr, INDEX=index, FNS=fn_list)
        else:
            target = ", ".join(plan.outs)
            call = replace(f"{target} = {expr}", INDEX=index, FNS=fn_list)
        replace_statements(block, [s], fns + call)
        self.ctx.change(
            "AJ103",
            s,
            f"`if`/`elif` chain on `{self._src(selector)} == ...` (traced) -> "
            f"`{lax}.switch` over {len(names_)} branch functions",
        )
        return True

    def _switch_index(self, nodes, consts):
        """The case index: the first comparison that holds, else the default (the chain's own
        order; a nested jnp.where traces and compiles faster than jnp.select)."""
        index = gast.Constant(value=len(consts), kind=None)
        for i in reversed(range(len(consts))):
            index = replace_expr(
                f"{self.jnp}.where(C, I, REST)",
                C=nodes[i].test,
                I=gast.Constant(value=i, kind=None),
                REST=index,
            )
        return index

    def _returning_switch(self, s, block, chain) -> bool:
        """`if k == 0: return a elif k == 1: return b else: return c` -> `return lax.switch`."""
        selector, consts, nodes, branches = chain
        if not all(always_returns(b) for b in branches):
            return False
        floats = set()
        for b in branches:
            for r in _walk(b):
                if isinstance(r, gast.Return):
                    # types must agree without promotion across several branches
                    if r.value is None or isinstance(r.value, gast.Tuple):
                        return False
                    if self.value(r.value, r).static or _python_object(self, r.value, None, None):
                        return False
                    floats.add(floating(self.ctx.scope, r.value))
        if True in floats and len(floats) > 1:
            return False
        reads: list[str] = []
        for b in branches:
            for n in _names_in_order(b, store=False):
                if n not in reads:
                    reads.append(n)
        ops = self._ordered(self._operands(s, branches, reads))
        names_ = [self.ctx.fresh(f"_case{c}") for c in consts] + [self.ctx.fresh("_default")]
        fns = [self._branch_fn(f, ops, b, None) for f, b in zip(names_, branches, strict=True)]
        fn_list = gast.List(elts=[name(f) for f in names_], ctx=gast.Load())
        args = ", ".join(ops)
        call = replace(
            f"return {self.lax}.switch(INDEX, FNS{', ' if args else ''}{args})",
            INDEX=self._switch_index(nodes, consts),
            FNS=fn_list,
        )
        replace_statements(block, [s], fns + call)
        self.ctx.change(
            "AJ103",
            s,
            f"`if`/`elif` chain on `{self._src(selector)} == ...` (traced), returning in every "
            f"branch -> `return {self.lax}.switch(...)` over {len(names_)} branch functions",
        )
        return True


def _rewrite_test(rw: gast.NodeTransformer, node, undo: list):
    """An `if`/`while` test with its truth structure kept (`and`/`or`/`not` and comparisons at
    its top become the predicate, see ``pred``) and every value inside it rewritten by ``rw``
    (ternaries, and chained comparisons or `and`/`or` inside a call, on traced values).
    ``undo`` gets (node, field, old value) for each field set, to put the test back as written
    where its `if` is then refused."""
    if isinstance(node, gast.BoolOp):
        values = [_rewrite_test(rw, v, undo) for v in node.values]
        if any(a is not b for a, b in zip(values, node.values, strict=True)):
            undo.append((node, "values", node.values))
            node.values = values
        return node
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
        operand = _rewrite_test(rw, node.operand, undo)
        if operand is not node.operand:
            undo.append((node, "operand", node.operand))
            node.operand = operand
        return node
    if isinstance(node, gast.Compare):
        left = rw.visit(node.left)
        comparators = [rw.visit(c) for c in node.comparators]
        if left is not node.left:
            undo.append((node, "left", node.left))
            node.left = left
        if any(a is not b for a, b in zip(comparators, node.comparators, strict=True)):
            undo.append((node, "comparators", node.comparators))
            node.comparators = comparators
        return node
    return rw.visit(node)


def _around_refused_reason(kept, what: str) -> str:
    return (
        f"{what} cannot be converted around the statement at line "
        f"{getattr(kept, 'lineno', '?')}, which autojit left as it is ({kept._aj_refused}): "
        f"fix that one first"
    )


def _refuse_around_refused(s, stmts, what: str) -> None:
    kept = first_refused(stmts)
    if kept is not None:
        raise _Refused("AJ919", s, _around_refused_reason(kept, what))


def _pure_static_operand(node) -> bool:
    """A name, a constant, `not` of one, or a comparison of names, constants, attributes and
    constant-indexed items (`x.shape[0] == 4`): evaluating it earlier changes nothing."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
        return _pure_static_operand(node.operand)
    if isinstance(node, gast.Compare):
        return all(_pure_static_operand(o) for o in [node.left, *node.comparators])
    while isinstance(node, (gast.Attribute, gast.Subscript)):
        if isinstance(node, gast.Subscript) and not isinstance(node.slice, gast.Constant):
            return False
        node = node.value
    return isinstance(node, (gast.Name, gast.Constant))



_COMPOUND = (gast.If, gast.For, gast.While, gast.With, gast.Try, gast.FunctionDef, gast.ClassDef)


def _walrus_in_comprehension(stmt):
    """A ``:=`` inside a comprehension of ``stmt`` (it binds a name of the enclosing function)."""
    for n in walk_bfs(stmt):
        if isinstance(n, (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)):
            named = walrus_in(n)
            if named is not None:
                return named
    return None


def _farthest(r: tuple[int, int]) -> int:
    """The end of a range farther from 0 (what a refusal says a value reaches)."""
    return r[0] if abs(r[0]) > abs(r[1]) else r[1]


def _a_kind(v: Value) -> str:
    """`a Python int`, `an array of floats`: what a value of a known dtype is, in words."""
    if v.static:
        return f"a Python {v.dtype}"
    return f"an array of {v.dtype}s"


def _rank(kind: str | None) -> int:
    return KIND_RANK.get(kind or "", 3)  # (another kind, complex: above them all)


def _module_int_constants(source) -> dict[str, tuple[int, int]]:
    """The module's names assigned once, at its top level, an int written with literals
    (`US_PER_MS = 1000`), found once per module."""
    tree = getattr(source, "tree", None)
    if tree is None:
        return {}
    found = tree.__dict__.get("_aj_int_constants")
    if found is None:
        counts: dict[str, int] = {}
        values: dict[str, int] = {}
        walrus = ":=" in getattr(source, "text_", ":=")
        for st in tree.body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(st, (ast.Import, ast.ImportFrom)):
                for a in st.names:
                    n = a.asname or a.name.split(".")[0]
                    counts[n] = counts.get(n, 0) + 1
                continue
            # (a plain assignment's targets, where the module has no `:=`; any other
            # statement walked whole for what it binds)
            plain = isinstance(st, ast.Assign) and not walrus
            for root in st.targets if plain else [st]:  # type: ignore[attr-defined]
                for n in walk_nodes(root):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                        counts[n.id] = counts.get(n.id, 0) + 1
            if (
                isinstance(st, ast.Assign)
                and len(st.targets) == 1
                and isinstance(st.targets[0], ast.Name)
                and (
                    isinstance(st.value, (ast.Constant, ast.UnaryOp, ast.BinOp))
                    or (
                        isinstance(st.value, ast.Call)
                        and isinstance(st.value.func, ast.Name)
                        and st.value.func.id == "int"
                    )
                )
            ):
                v = int_constant(gast.ast_to_gast(st.value))
                if v is not None:
                    values[st.targets[0].id] = v
        found = {n: (v, v) for n, v in values.items() if counts.get(n) == 1}
        tree._aj_int_constants = found
    return found


def _number_literal(node) -> bool:
    return isinstance(node, gast.Constant) and type(node.value) in (int, float)


# the nodes _ExprRewriter rewrites
def _rewritable(root) -> bool:
    """Whether ``root`` holds a node that `_ExprRewriter` may rewrite (its other visits return
    their node as it is)."""
    return any(_rewritten(n) for n in walk_expression(root))


def _rewritten(node) -> bool:
    """A ternary, `and`/`or`, `not` or a chained comparison: what `_ExprRewriter` rewrites."""
    t = type(node)
    if t is gast.IfExp or t is gast.BoolOp:
        return True
    if t is gast.UnaryOp:
        return type(node.op) is gast.Not
    return t is gast.Compare and len(node.ops) > 1


def _may_convert(fn) -> bool:
    """Whether this converter may have work in ``fn``'s body: an `if`, `while`, `assert`, a
    `print` call, or what `_ExprRewriter` rewrites."""
    for st in fn.body:
        for node in walk_bfs(st):
            t = type(node)
            if t is gast.If or t is gast.While or t is gast.Assert or _rewritten(node):
                return True
            if t is gast.Call and type(node.func) is gast.Name and node.func.id == "print":
                return True
    return False


# expressions that make a Python object jnp.where cannot stand for (a tuple, a list, text...)
_PYTHON_DISPLAYS = (
    gast.Tuple,
    gast.List,
    gast.Dict,
    gast.Set,
    gast.ListComp,
    gast.SetComp,
    gast.DictComp,
    gast.GeneratorExp,
    gast.JoinedStr,
)


def _written_as_python_object(node) -> bool:
    """Whether ``node`` is written as a Python object that is no array: a display (tuple, list,
    dict, set, comprehension, f-string), None, a string or bytes."""
    if isinstance(node, _PYTHON_DISPLAYS):
        return True
    return isinstance(node, gast.Constant) and (
        node.value is None or isinstance(node.value, (str, bytes))
    )


# attributes of a jax array that are arrays too (`x.T or y` is no field of an object)
_ARRAY_VALUED_ATTRIBUTES = frozenset({"T", "mT", "real", "imag"})


def _field_of_parameter(node, an: FunctionAnalysis) -> bool:
    """Whether ``node`` is an attribute (or a string-keyed item) of a parameter, or of a name
    from outside the function (the enclosing function's parameter in a helper autojit made),
    through any chain of them: `cfg.tile`, `eqn.params["axis"]`, `ctx.mesh.size`. An array has
    no such fields: the parameter is an object, and the field a Python value."""
    seen = False
    while True:
        if isinstance(node, gast.Attribute):
            if node.attr in _ARRAY_VALUED_ATTRIBUTES:
                return False
            node, seen = node.value, True
        elif (
            isinstance(node, gast.Subscript)
            and isinstance(node.slice, gast.Constant)
            and isinstance(node.slice.value, str)
        ):
            node, seen = node.value, True
        else:
            return (
                seen
                and isinstance(node, gast.Name)
                and (node.id in an.params or node.id not in an.values.locals)
            )


class _ExprRewriter(NodeTransformer):  # (gast.NodeTransformer's visits, faster)
    """Ternaries, `and`/`or`/`not` and chained comparisons on traced values (AJ104, AJ105)."""

    def __init__(self, conv: _Conditionals, stmt, block: list | None = None) -> None:
        self.conv = conv
        self.stmt = stmt
        self.block = block  # (the statements around ``stmt``: what was computed before it)
        self.tested: set[int] = set()  # the `and`/`or`s whose truth alone is taken (ids)

    def _truth_taken(self, node) -> None:
        if isinstance(node, gast.BoolOp):
            self.tested.add(id(node))

    def visit_comprehension(self, node):
        for test in node.ifs:
            self._truth_taken(test)
        return self.generic_visit(node)

    def _traced(self, node) -> bool:
        return self.conv.value(node, self.stmt).traced

    def visit_Lambda(self, node):
        return node

    def visit_FunctionDef(self, node):
        return node

    def visit_IfExp(self, node):
        test_v = self.conv.value(node.test, self.stmt)
        self._truth_taken(node.test)
        self.generic_visit(node)
        if not (test_v.traced or _mixed_boolop(self.conv, node.test, self.stmt)):
            if self.conv.condition_kind(
                node.test, self.stmt
            ) is Kind.UNKNOWN and self.conv.ctx.allowed("AJ913", node):
                self.conv.ctx.refuse(
                    "AJ913",
                    node.test,
                    f"cannot tell whether `{self.conv._src(node.test)}` is a traced value or a "
                    f"Python value; kept as a Python `... if ... else ...` (if it is traced, "
                    f"rewrite it with {self.conv.jnp}.where or {self.conv.lax}.cond)",
                )
            return node
        if not self.conv.ctx.allowed("AJ104", node):
            return node
        c = self.conv
        changer = effectful_call(
            c.ctx.fn, c.ctx.scope, [gast.Expr(value=node.body), gast.Expr(value=node.orelse)]
        )
        if changer is not None:
            c.ctx.refuse(
                "AJ912",
                node,
                f"`{changer}` changes something outside itself, in a branch of `... if "
                f"{c._src(node.test)} else ...`: converted, both branches are traced once",
            )
            return node
        suspends = next(
            (
                n
                for e in (node.body, node.orelse)
                for n in walk_nodes(e)
                if isinstance(n, (gast.Yield, gast.YieldFrom, gast.Await))
            ),
            None,
        )
        if suspends is not None:
            c.ctx.refuse(
                "AJ912",
                node,
                f"`{c._src(suspends)}` in a branch of `... if {c._src(node.test)} else ...`: "
                f"converted, each branch is a `lambda`, where `yield` / `await` cannot stand",
            )
            return node
        named = walrus_in(node.body) or walrus_in(node.orelse)
        if named is not None:
            c.ctx.refuse(
                "AJ912",
                node,
                f"`{c._src(named)}` in a branch of `... if {c._src(node.test)} else ...`: "
                f"converted, both branches are traced (the `:=` would run on both paths, or "
                f"bind a name of a lambda); assign it in a statement before",
            )
            return node
        arms = [c._value_or_floats(e, self.stmt) for e in (node.body, node.orelse)]
        for k, e in enumerate((node.body, node.orelse)):
            if arms[k].traced and arms[k].dtype is None and isinstance(e, gast.Name):
                # (in a loop: the value it came in with, which the first pass meets)
                entry = c._first_pass_value(self.stmt, e.id, exact=False)
                if entry is not None and entry.traced and entry.dtype in KIND_RANK:
                    arms[k] = entry
        if (
            all(v.traced and v.dtype in KIND_RANK for v in arms)
            and arms[0].dtype != arms[1].dtype
        ):
            c.ctx.refuse(
                "AJ918",
                node,
                f"`... if {c._src(node.test)} else ...` gives an array of {arms[0].dtype}s on "
                f"one path and of {arms[1].dtype}s on the other: Python keeps each path's dtype, "
                f"a traced value has one (`lax.cond` rejects the two, `jnp.where` would promote "
                f"the ints to float32, rounding past 2**24); kept as Python's: cast one side "
                f"(`.astype(...)`) so that both paths give one dtype",
            )
            return node
        kinds = self._kinds_returned_by_path(node)
        if kinds is not None:
            c.ctx.refuse(
                "AJ918",
                node,
                f"`... if {c._src(node.test)} else ...` gives {kinds[0]} on one path and "
                f"{kinds[1]} on the other, and a `return` gives a value whose dtype "
                f"follows it (Python returns each path's type, a traced value has one dtype); "
                f"kept as Python's: give both paths one type (`2.0` for `2`)",
            )
            return node
        values = literal_ints(node) if not self._assigned_as_is(node) else None
        over = (
            overflow_around(self.stmt, node, (min(values), max(values)), c._int_operand)
            if values
            else None
        )
        if over is not None:
            c.ctx.refuse(
                "AJ918",
                node,
                f"`{over[0]}` reaches {_farthest(over[1])} from the Python ints of "
                f"`... if {c._src(node.test)} else ...`, past int32 "
                f"(Python's ints never overflow); converted, they would be an int32 value, "
                f"which wraps; kept as Python's",
            )
            return node
        use = self._python_value_use_after(node)
        if use is not None:
            c.ctx.refuse(
                "AJ918",
                node,
                f"`{use[0]}` is given a Python value by `... if {c._src(node.test)} else ...`, "
                f"which converted would make it a traced one, and {use[1]} reads it after (a "
                f"traced value is never `True`, nor an `int`); kept as Python's",
            )
            return node
        told = self._weak_or_strong_read(node, arms)
        if told is not None:
            c.ctx.refuse(
                "AJ918",
                node,
                f"`... if {c._src(node.test)} else ...` gives a Python number on one path and "
                f"an array on the other, and `{c._src(told[0])}` (line {told[1]}) gives the "
                f"two other dtypes ({WEAK_TYPE_REASON}): one traced "
                f"value has one dtype; kept as Python's: give the number its array type "
                f"(`{c.jnp}.float32(2.0)`), or the array the number's",
            )
            return node
        pred = c.pred(node.test, self.stmt)
        a, b = self._recomputed_in_arms(node)
        # (an arm with a function whose derivative is infinite somewhere, `jnp.sqrt(x)`, `v /
        # n`: `jnp.where` differentiates both arms, and the one Python does not take would make
        # the gradient NaN there; `lax.cond` differentiates the arm it takes)
        singular = any(singular_somewhere(c.ctx.scope, e) for e in (a, b))
        if (
            not singular
            and c._cheap(a)
            and c._cheap(b)
            and c._same_shape(a, self.stmt, b, self.stmt)
            and c._same_dtype(a, self.stmt, b, self.stmt)
        ):
            c.ctx.change(
                "AJ104", node, f"`... if {c._src(node.test)} else ...` -> `{c.jnp}.where(...)`"
            )
            return replace_expr(f"{c.jnp}.where(P, A, B)", P=pred, A=a, B=b)
        va, vb = c.value(a, self.stmt), c.value(b, self.stmt)
        jnp = c.jnp
        # a Python number on one side: both sides get the type eager promotion gives
        for lit_first in (False, True):
            lit, other = (a, b) if lit_first else (b, a)
            vl, vo = (va, vb) if lit_first else (vb, va)
            if not (
                isinstance(lit, gast.Constant)
                and type(lit.value) in (int, float)
                and vo.kind is not Kind.STATIC
            ):
                continue
            big = c._int_past_float32(lit) if vo.dtype in (None, "float") else None
            if big is not None:
                c.ctx.refuse(
                    "AJ918",
                    node,
                    f"`... if {c._src(node.test)} else ...` gives the Python int {big} on one "
                    f"path and an array that may hold floats on the other: "
                    f"{_rounded_past_float32(big)}; kept as Python's: give both paths one type",
                )
                return node
            common = f"{jnp}.result_type(O, L)"
            new_lit = replace_expr(
                f"{jnp}.asarray(L2, {common})", L2=lit, O=copy_expr(other), L=copy_expr(lit)
            )
            # (the other side is never cast: `x[0] if c else 0.5` of an int `x` gives ints on
            # one path in Python, which `lax.cond` rejects against the float loudly)
            a, b = (new_lit, other) if lit_first else (other, new_lit)
            break
        c.ctx.change(
            "AJ104",
            node,
            f"`... if {c._src(node.test)} else ...` on a traced value -> `{c.lax}.cond`",
        )
        return replace_expr(f"{c.lax}.cond(P, lambda: A, lambda: B)", P=pred, A=a, B=b)

    def _recomputed_in_arms(self, node) -> tuple:
        """The ternary's arms, where a value computed just before the statement by a function
        whose derivative is infinite somewhere (`n = jnp.linalg.norm(v)`, `l = jnp.log(p)`)
        and read by one arm only (nowhere else after) is computed again in that arm: as a
        `lax.cond` operand, the arm not taken would give it a zero cotangent, which its
        derivative makes NaN (`grad` of `v / n if n > 1 else v` at v = 0). As the `if`
        statement's branches do (AJ101)."""
        c, st, block = self.conv, self.stmt, self.block
        arms = [node.body, node.orelse]
        k = next((i for i, x in enumerate(block or ()) if x is st), None)
        if not k or any(isinstance(x, gast.NamedExpr) for x in walk_nodes(st)):
            return arms[0], arms[1]
        an = c.an
        loads = [_loaded_names(e) for e in arms]
        in_statement = _loaded_names(st)
        for n in sorted(set(loads[0]) ^ set(loads[1])):
            arm = 0 if n in loads[0] else 1
            if in_statement[n] != loads[arm][n] + _loaded_names(node.test)[n]:
                continue  # (read elsewhere in the statement: its gradient flows there too)
            if n in an.live_out(st) or any(
                isinstance(x, (gast.Lambda, *_COMPREHENSIONS)) for x in walk_nodes(arms[arm])
            ):
                continue
            source = c._singular_source(block, k, n)
            if source is None:
                continue
            arms[arm] = _NameReplacer(n, source.value).visit(arms[arm])
            c.ctx.change(
                "AJ104",
                node,
                f"`{n}` computed again in the branch of `... if {c._src(node.test)} else ...` "
                f"that reads it, not passed to `{c.lax}.cond`: its derivative is infinite or "
                f"undefined somewhere, and the branch not taken would make its gradient NaN",
            )
        return arms[0], arms[1]

    def _weak_or_strong_read(self, node, arms) -> tuple | None:
        """For a ternary with a Python number in one arm and an array in the other: (the
        expression, its line) of a use that gives the two other dtypes, as an `if` statement's
        branches are checked (`_refuse_weak_or_strong_read`)."""
        c, st = self.conv, self.stmt
        found = next(
            (
                (arms[k], arms[1 - k])
                for k in range(2)
                if arms[k].static
                and arms[k].dtype in ("int", "float")
                and arms[1 - k].kind in (Kind.TRACED, Kind.UNKNOWN)
            ),
            None,
        )
        if found is None:
            return None
        kinds = (found[0].dtype, found[1].dtype)
        use = weak_or_strong_use(node, st, c.value, kinds)
        if use is False:
            return node, getattr(node, "lineno", None) or getattr(st, "lineno", 0)
        if use is True:
            return None
        stmts = c._read_after(st)
        array_expr = node.orelse if found[0] is arms[0] else node.body
        covered = covering(
            c._unchanged_source(array_expr, stmts, use), kinds[0] == "float", False,
            c.ctx.scope.qualified,
        )  # fmt: skip
        return read_telling_weak_from_strong(stmts, use, c.value, kinds, covered)

    def _assigned_as_is(self, node) -> bool:
        """Whether the statement is `name = <node>` (followed by `_python_value_use_after`)."""
        st = self.stmt
        return isinstance(st, gast.Assign) and st.value is node

    def _kinds_returned_by_path(self, node) -> tuple[str, str] | None:
        """For a ternary of Python numbers of two kinds inside an expression (not the value of
        an assignment of a name, which `_python_value_use_after` follows): the two kinds, where
        a `return` gives back a value whose dtype follows the ternary's
        (`return x * (2 if c else 0.5)` of an int array `x`)."""
        st, c = self.stmt, self.conv
        if self._assigned_as_is(node):
            return None
        body, orelse = c.value(node.body, st), c.value(node.orelse, st)
        if not ((body.static or orelse.static) and body.dtype and orelse.dtype):
            return None
        if not all(v.kind in (Kind.STATIC, Kind.TRACED) for v in (body, orelse)):
            return None
        if body.dtype == orelse.dtype:
            return None
        stmts = [st, *statements_after(c.ctx.fn, st)]
        fixer = c._dtype_fixer({body.dtype, orelse.dtype})
        kills = c._surely_after(st)
        if returned_as_is(stmts, set(), fixer, frozenset({id(node)}), kills) is None:
            return None
        return _a_kind(body), _a_kind(orelse)

    def _python_value_use_after(self, node):
        """For `k = A if c else B` with Python values `A` and `B`: a use after the statement
        that only Python's value has (:func:`autojit.analysis.effects.python_value_use`)."""
        st, c = self.stmt, self.conv
        if not (
            isinstance(st, gast.Assign)
            and st.value is node
            and len(st.targets) == 1
            and isinstance(st.targets[0], gast.Name)
        ):
            return None
        name = st.targets[0].id
        # (in a loop that makes it grow: a Python int on entry, whose products the analysis
        # already holds for traced values)
        for loop in c.ancestors.get(id(st), ()):
            if not isinstance(loop, (gast.For, gast.While)):
                continue
            entry = c.an.env_before(loop).get(name)
            if entry is not None and entry.static and entry.dtype == "int":
                if grows_geometrically(loop, name):
                    return name, "a product in the loop around it (int32 wraps past 2**31)"
        body, orelse = c.value(node.body, st), c.value(node.orelse, st)
        after = statements_after(c.ctx.fn, st)
        if (
            (body.static or orelse.static)
            and body.kind in (Kind.STATIC, Kind.TRACED)
            and orelse.kind in (Kind.STATIC, Kind.TRACED)
            and body.dtype
            and orelse.dtype
            and body.dtype != orelse.dtype
        ):
            # (a Python number against one of another kind, or an array of a known dtype)
            fixer = c._dtype_fixer({body.dtype, orelse.dtype})
            if returned_as_is(after, {name}, fixer, kills=c._surely_after(st)):
                return name, (
                    f"a `return` giving it as it is ({body.dtype} on one path, {orelse.dtype} "
                    f"on the other: a traced value has one dtype)"
                )
        if not (body.static and orelse.static):
            return None
        ranges = int_ranges(c.ctx.fn, {name}) if literal_ints(node) else {}
        over = (
            int32_overflow(after, ranges, c._int_constants(), c._int_operand) if ranges else None
        )
        if over is not None:
            return name, f"`{over[1]}`, past int32 (Python's ints never overflow; int32 wraps),"
        return python_value_use(after, {name}, c._facts, traced_errors=True)

    def visit_BoolOp(self, node):
        vals = [self.conv.value(v, self.stmt) for v in node.values]
        if id(node) in self.tested:  # (the truth of `(a and b) or c` is that of its operands)
            for v in node.values:
                self._truth_taken(v)
        self.generic_visit(node)
        if not any(v.traced for v in vals):
            return node
        if any(v.kind not in (Kind.TRACED, Kind.STATIC) for v in vals):
            return node  # an operand that may be any Python object: keep Python's and/or
        if any(_written_as_python_object(v) for v in node.values):
            # `names or ()`, `x and None`: a tuple, None or a string is no array, and
            # jnp.where cannot give it back as Python's `or` does (`names` is then no array
            # either: a traced value is never `or`ed with a tuple)
            self._keep_python_boolop(
                node, "an operand is a tuple, list, None or text, which jnp.where cannot return"
            )
            return node
        if not self.conv.ctx.allowed("AJ105", node):
            return node
        c = self.conv
        jnp = c.jnp
        # a static prefix stays Python: `S and T` is S when S is falsy, else T
        k = 0
        while k < len(vals) and vals[k].static:
            k += 1
        rest = node.values[k:]
        rest_vals = vals[k:]
        if len(rest) == 1:
            return node  # `S and T`, `S` static: Python reads `S`, then gives `S` or `T` as is
        op = "or" if isinstance(node.op, gast.Or) else "and"
        dtypes = {v.dtype for v in rest_vals}
        arrays = {v.dtype for v, e in zip(rest_vals, rest, strict=True) if not _number_literal(e)}
        literals = dtypes - arrays
        if (
            None not in dtypes
            and len(dtypes) > 1
            and (
                len(arrays) > 1
                # (a literal of a higher kind than the arrays promotes them: `n or 1.5` of an
                # int array gave float32, where Python gives the ints back)
                or max(map(_rank, literals), default=-1) > max(map(_rank, arrays), default=-1)
            )
        ):
            # `flag and x`: Python gives the bool or the float array, by the value; one traced
            # value has one dtype (a number literal is promoted below, as eager `a or 1` does)
            self._keep_python_boolop(
                node,
                f"its operands are of different types ({', '.join(sorted(dtypes))}) and Python "
                f"gives one or the other, by the value, where a traced result has one dtype",
            )
            return node
        named = next((w for w in map(walrus_in, rest[1:]) if w is not None), None)
        if named is not None:
            c.ctx.refuse(
                "AJ912",
                node,
                f"`{c._src(named)}` runs only when Python's `{op}` reaches it; converted, "
                f"every operand is computed (and `:=` would always bind); kept as Python's "
                f"`{op}`: assign it in a statement before",
            )
            return node
        # (every operand is computed, and the first may be written twice, `jnp.where(A, A, B)`)
        effect = _effect_in(c, rest, self.stmt)
        if effect is not None:
            c.ctx.refuse(
                "AJ912",
                node,
                f"`{effect}` has an effect, and Python's `{op}` runs it once or not at all; "
                f"converted, it would run on every path: kept as Python's `{op}`, compute it "
                f"in a statement before",
            )
            return node
        if all(v.dtype == "bool" for v in rest_vals):
            fn = "logical_and" if isinstance(node.op, gast.And) else "logical_or"
            out = rest[-1]
            for p in reversed(rest[:-1]):
                out = replace_expr(f"{jnp}.{fn}(A, B)", A=p, B=out)
            msg = f"`{c._src(node)}` on traced booleans -> `{jnp}.{fn}`"
        elif any(_field_of_parameter(p, c.an) for p in rest[:-1]):
            # `cfg.tile or 128`, `eqn.params["axis"] or 0`: the field of an object passed in,
            # tested for truth (None or a number, as a rule): no array to select with
            self._keep_python_boolop(
                node, "it tests a field of a parameter, taken for a Python value (None, a number)"
            )
            return node
        elif all(
            c._same_shape(p, self.stmt, rest[-1], self.stmt)
            and c._same_dtype(p, self.stmt, rest[-1], self.stmt)
            for p in rest[:-1]
        ):
            out = rest[-1]
            for p in reversed(rest[:-1]):
                if isinstance(node.op, gast.Or):
                    out = replace_expr(f"{jnp}.where(A, A2, B)", A=p, A2=copy_expr(p), B=out)
                else:
                    out = replace_expr(f"{jnp}.where(A, B, A2)", A=p, A2=copy_expr(p), B=out)
            msg = (
                f"`{c._src(node)}` on traced values -> `{jnp}.where`, which returns an operand "
                f"as Python's `{op}` does"
            )
        elif "bool" in arrays and None in arrays and id(node) not in self.tested:
            # `s = x.sum() > 0 and x.max()`: Python gives the bool or the other array, whose
            # dtype is not known (a `lax.cond` of a bool and a float failed with no rule code);
            # where only its truth is taken (a test) the operands' types do not matter
            self._keep_python_boolop(
                node,
                "one operand is a bool and another an array whose dtype is not known, and "
                "Python gives one or the other, by the value, where a traced result has one "
                "dtype (unless both are bools: compare the other too, or use `jnp.where`)",
            )
            return node
        else:
            # operands not known to have one shape: `jnp.where` would broadcast the one it
            # returns (`a or v`, a scalar `a`: Python gives `a`, where gave `a` spread to v's
            # shape); `lax.cond` returns it as it is, and refuses two shapes loudly
            out = rest[-1]
            for p in reversed(rest[:-1]):
                pred = c.pred(p, self.stmt)
                mine, other = copy_expr(p), out
                big = c._int_past_float32(other) if _number_literal(other) else None
                if big is not None and c.value(p, self.stmt).dtype in (None, "float"):
                    c.ctx.refuse(
                        "AJ918",
                        node,
                        f"`{c._src(node)}` gives the Python int {big} on one path and an array "
                        f"that may hold floats on the other: {_rounded_past_float32(big)}; kept "
                        f"as Python's: give both paths one type",
                    )
                    return node
                if _number_literal(other):
                    # (one type for both branches: the one eager promotion gives `p or 1`)
                    other = replace_expr(
                        f"{jnp}.asarray(L, {jnp}.result_type(O, L2))",
                        L=other,
                        O=copy_expr(p),
                        L2=copy_expr(other),
                    )
                t, f = (mine, other) if isinstance(node.op, gast.Or) else (other, mine)
                out = replace_expr(f"{c.lax}.cond(P, lambda: T, lambda: F)", P=pred, T=t, F=f)
            msg = (
                f"`{c._src(node)}` on traced values -> `{c.lax}.cond`, which returns an operand "
                f"as Python's `{op}` does"
            )
        c.ctx.change("AJ105", node, msg)
        if k == 0:
            return out
        return gast.BoolOp(op=node.op, values=node.values[:k] + [out])

    def _keep_python_boolop(self, node, why: str) -> None:
        """Report an `and` / `or` over a value read as traced that stays Python's (AJ913, on
        the expression: the statement around it may still be rewritten)."""
        c = self.conv
        op = "or" if isinstance(node.op, gast.Or) else "and"
        c.ctx.refuse(
            "AJ913",
            node,
            f"`{c._src(node)}` kept as Python's `{op}`: {why}; if the value tested is a traced "
            f"array, jit rejects it: write `{c.jnp}.where(...)` for it",
        )

    def visit_UnaryOp(self, node):
        traced = isinstance(node.op, gast.Not) and self._traced(node.operand)
        if isinstance(node.op, gast.Not):
            self._truth_taken(node.operand)
        self.generic_visit(node)
        if not traced or not self.conv.ctx.allowed("AJ105", node):
            return node
        c = self.conv
        c.ctx.change("AJ105", node, f"`not` on a traced value -> `{c.jnp}.logical_not`")
        return replace_expr(f"{c.jnp}.logical_not(A)", A=node.operand)

    def visit_Compare(self, node):
        traced = len(node.ops) > 1 and any(self._traced(x) for x in [node.left] + node.comparators)
        self.generic_visit(node)
        if not traced or not self.conv.ctx.allowed("AJ105", node):
            return node
        c = self.conv
        effect = _effect_in(c, node.comparators, self.stmt)
        if effect is not None:
            c.ctx.refuse(
                "AJ912",
                node,
                f"`{effect}` has an effect, and the chained comparison `{c._src(node)}` runs "
                f"it once; converted to a `logical_and` of its parts it would run twice: kept "
                f"as it is, compute it in a statement before",
            )
            return node
        c.ctx.change(
            "AJ105",
            node,
            f"chained comparison `{c._src(node)}` on traced values -> "
            f"`{c.jnp}.logical_and` of its parts",
        )
        return c.chained(node)


# -- helpers ------------------------------------------------------------------------------
def _evaluated_otherwise(node) -> list:
    """The parts of ``node`` that a traced predicate or value evaluates otherwise than Python:
    every operand of an `and` / `or` after the first (Python may skip them; converted, each is
    computed) and of a chained comparison, all but the first (`a < m < b`: Python computes `m`
    once, and `b` only where `a < m`; converted, `m` is computed twice and `b` always). Lambdas
    are not entered."""
    out: list = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, gast.Lambda):
            continue
        if isinstance(n, gast.BoolOp):
            out += n.values[1:]
        elif isinstance(n, gast.Compare) and len(n.ops) > 1:
            out += n.comparators  # (the middles written twice, the rest maybe skipped)
        stack.extend(child_nodes(n))
    return out


def _effect_in(conv, parts: list, stmt) -> str | None:
    """The source of a call in ``parts`` whose running twice, or at all, matters
    (:func:`autojit.analysis.effects.effect_in`)."""
    ctx = conv.ctx
    call = effect_in(ctx.fn, ctx.scope, conv.an, parts, conv.stand_in.get(stmt, stmt))
    return conv._src(call) if call is not None else None


def _mixed_boolop(conv, node, stmt) -> bool:
    return isinstance(node, gast.BoolOp) and any(conv.value(v, stmt).traced for v in node.values)


# the exceptions whose handler catches what tracing a branch may raise (a shape or type error, a
# concretization error, an index or key error of Python values)
_TRACE_ERROR_CATCHERS = frozenset(
    {"Exception", "BaseException", "TypeError", "ValueError", "IndexError", "KeyError",
     "LookupError", "AttributeError", "ArithmeticError", "ZeroDivisionError", "RuntimeError",
     "ConcretizationTypeError", "TracerBoolConversionError", "JaxRuntimeError"}
)  # fmt: skip


def _trace_error_handler(fn, node) -> str | None:
    """The exception (in words) of a handler of a `try` of ``fn`` around ``node`` (in its body)
    that catches what tracing a branch may raise; None where there is none."""
    tries = fn.__dict__.get("_aj_tries")
    if tries is None:  # (the function's `try` statements, found once)
        tries = fn._aj_tries = [
            st
            for st in walk_statements(fn.body)
            if isinstance(st, gast.Try) or type(st).__name__ == "TryStar"
        ]
    for st in tries:
        caught = None
        for h in st.handlers:
            if h.type is None:
                caught = "(everything)"
                break
            names = [dotted_name(t) or "" for t in (
                h.type.elts if isinstance(h.type, gast.Tuple) else [h.type]
            )]  # fmt: skip
            hit = next((n for n in names if n.rsplit(".", 1)[-1] in _TRACE_ERROR_CATCHERS), None)
            if hit is not None:
                caught = hit
                break
        if caught is not None and any(x is node for x in walk_statements(st.body)):
            return caught
    return None


# the attributes of a jax array whose truth a test may take (its static ones: STATIC_ATTRIBUTES)
_ARRAY_ATTRIBUTES = frozenset({"T", "mT", "real", "imag", "at", "flat"}) | STATIC_ATTRIBUTES


_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def _loaded_names(node) -> collections.Counter[str]:
    """How many times each name is read in ``node``."""
    return collections.Counter(
        n.id for n in walk_nodes(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)
    )


class _NameReplacer(NodeTransformer):
    """Each read of ``name`` replaced by a copy of ``value``."""

    def __init__(self, name: str, value) -> None:
        self.name, self.value = name, value

    def visit_Name(self, node):
        if node.id == self.name and isinstance(node.ctx, gast.Load):
            return copy_expr(self.value)
        return node


def _exposed(an: FunctionAnalysis, stmts: list) -> set[str]:
    """The names a block reads before it assigns them."""
    if not stmts:
        return set()
    from types import SimpleNamespace

    from ..analysis.dataflow import Liveness

    return set(Liveness(SimpleNamespace(body=stmts), an.activity).live_in.get(id(stmts[0]), ()))


def _literal_text(node) -> bool:
    """A literal a print shows alike through jax.debug.print: a text, an int or a bool, or an
    f-string of texts only."""
    if isinstance(node, gast.Constant):
        return type(node.value) in (str, int, bool)
    return isinstance(node, gast.JoinedStr) and all(
        isinstance(v, gast.Constant) for v in node.values
    )


def _is_text(node) -> bool:
    return isinstance(node, gast.JoinedStr) or (
        isinstance(node, gast.Constant) and isinstance(node.value, (str, bytes))
    )


def _has_brace(text: str) -> bool:
    return "{" in text or "}" in text


def _is_print(s) -> bool:
    return (
        isinstance(s, gast.Expr)
        and isinstance(s.value, gast.Call)
        and isinstance(s.value.func, gast.Name)
        and s.value.func.id == "print"
    )


def _base(node):
    while isinstance(node, (gast.Subscript, gast.Attribute, gast.Call)):
        node = node.func if isinstance(node, gast.Call) else node.value
    return node if isinstance(node, gast.Name) else None


def _own(stmt):
    """Expression nodes of a statement itself (not of the statements nested in it)."""
    for fname, value in gast.iter_fields(stmt):
        if fname in ("body", "orelse", "finalbody", "handlers"):
            continue
        if isinstance(value, gast.AST):
            yield from walk_bfs(value)  # (gast.walk's nodes in its order, listed at once)
        elif isinstance(value, list):
            for v in value:
                if isinstance(v, gast.AST):
                    yield from walk_bfs(v)


def _own_contains(stmt, kinds: tuple) -> bool:
    """Whether a node of ``stmt`` itself (not of the statements nested in it) is of one of the
    classes ``kinds`` (exactly): ``any(isinstance(n, kinds) for n in _own(stmt))``, with no
    subclass among ``kinds``."""
    for fname, value in gast.iter_fields(stmt):
        if fname in ("body", "orelse", "finalbody", "handlers"):
            continue
        if isinstance(value, gast.AST):
            if contains(value, kinds):
                return True
        elif isinstance(value, list):
            for v in value:
                if isinstance(v, gast.AST) and contains(v, kinds):
                    return True
    return False


def _breaks_out(stmts) -> bool:
    """Whether a `break` or `continue` of the loop whose body is ``stmts`` is among them (not
    one of a loop or function inside)."""
    for st in stmts:
        if isinstance(st, (gast.Break, gast.Continue)):
            return True
        if isinstance(st, (gast.For, gast.While, gast.AsyncFor)):
            if _breaks_out(st.orelse):
                return True
            continue
        if isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        for f in ("body", "orelse", "finalbody"):
            if _breaks_out(getattr(st, f, None) or []):
                return True
        for h in getattr(st, "handlers", None) or []:
            if _breaks_out(h.body):
                return True
        for c in getattr(st, "cases", None) or []:
            if _breaks_out(c.body):
                return True
    return False


def _may_be_number(value: Value, expr) -> bool:
    """Whether a static ``value`` (of the expression ``expr``, where known) may be a Python
    int or float: not `None`, a string, a tuple, a list, a dict or a set written so."""
    if value.dtype in ("int", "float"):
        return True
    if value.dtype is not None:
        return False
    return not isinstance(
        expr, (gast.Constant, gast.Tuple, gast.List, gast.Dict, gast.Set, gast.JoinedStr)
    )


def _walk(stmts):
    """Statements in a block, nested ones included, not entering function definitions."""
    for s in stmts:
        yield s
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        for f in ("body", "orelse", "finalbody"):
            yield from _walk(getattr(s, f, []) or [])
        for h in getattr(s, "handlers", []) or []:
            yield from _walk(h.body)


def _walk_as_written(stmts):
    """:func:`_walk`, with an `if` converted already (innermost first: an `elif`) walked as it
    was written instead of the statements that replace it (whose branches are functions)."""
    seen: set[int] = set()
    for s in _walk(stmts):
        orig = None if getattr(s, "_aj_orig", False) else getattr(s, "_aj_replaces", None)
        if isinstance(orig, gast.If):
            if id(orig) not in seen:
                seen.add(id(orig))
                yield from _walk_as_written(orig.body + orig.orelse)
            continue
        yield s


def _ancestors(stmts, chain: tuple = (), out: dict | None = None) -> dict:
    """id(statement) -> the compound statements around it (not entering functions)."""
    out = {} if out is None else out
    for st in stmts:
        out[id(st)] = chain
        if isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        inner = (*chain, st)
        for f in ("body", "orelse", "finalbody"):
            _ancestors(getattr(st, f, []) or [], inner, out)
        for h in getattr(st, "handlers", []) or []:
            _ancestors(h.body, inner, out)
    return out


def _walk_all(stmts):
    """Statements in a block, nested ones included, function definitions (the branch
    functions of inner ifs converted already, closures) included."""
    for s in stmts:
        yield s
        for f in ("body", "orelse", "finalbody"):
            yield from _walk_all(getattr(s, f, []) or [])
        for h in getattr(s, "handlers", []) or []:
            yield from _walk_all(h.body)


def _all_ifs(stmts):
    for s in _walk(stmts):
        if isinstance(s, gast.If):
            yield s


_DEFINITIONS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)


def _ifs_post_order(stmts, out: list | None = None) -> list:
    """(if statement, the block holding it), inner ifs before the ifs holding them (listed at
    once: a recursive generator costs a frame per level for every item)."""
    out = [] if out is None else out
    for s in list(stmts):
        if isinstance(s, _DEFINITIONS):
            continue
        for f in ("body", "orelse", "finalbody"):
            block = getattr(s, f, None)
            if block:
                _ifs_post_order(block, out)
        for h in getattr(s, "handlers", None) or ():
            _ifs_post_order(h.body, out)
        if isinstance(s, gast.If):
            out.append((s, stmts))
    return out


def _simple_statements(stmts, out: list | None = None) -> list:
    """(statement, block) for every statement, not entering function definitions (listed at
    once, in the order of a pre-order walk)."""
    out = [] if out is None else out
    for s in list(stmts):
        out.append((s, stmts))
        if isinstance(s, _DEFINITIONS):
            continue
        for f in ("body", "orelse", "finalbody"):
            block = getattr(s, f, None)
            if block:
                _simple_statements(block, out)
        for h in getattr(s, "handlers", None) or ():
            _simple_statements(h.body, out)
    return out


def _has_loop(fn) -> bool:
    return any(
        isinstance(x, (gast.For, gast.While)) for x in walk_statements(fn.body, into_functions=True)
    )


def _names_in_order(stmts, store: bool) -> list[str]:
    """Names stored (or loaded) in source order, not entering nested scopes."""
    out: list[str] = []
    for s in stmts:
        _names_in_order_of(s, store, out)
    return out


def _names_in_order_of(node, store: bool, out: list[str]) -> None:
    # a module function, not a recursive closure: that is a reference cycle (garbage that
    # only the collector frees)
    if isinstance(node, (gast.Lambda,)):
        if not store:  # (what it reads of the enclosing scope, in source order)
            free = expr_activity(node).reads
            inner: list[str] = []
            for part in [*node.args.defaults, *node.args.kw_defaults, node.body]:
                if part is not None:
                    _names_in_order_of(part, False, inner)
            out.extend(n for n in inner if n in free and n not in out)
        return
    if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
        if store and node.name not in out:
            out.append(node.name)
        if not store:
            for n in sorted(expr_activity_fn(node)):
                if n not in out:
                    out.append(n)
        return
    if isinstance(node, gast.Name):
        is_store = isinstance(node.ctx, (gast.Store, gast.Del))
        if is_store == store and node.id not in out:
            out.append(node.id)
        return
    if not store and isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
        if node.target.id not in out:  # `s -= 1` reads `s` (its target is a Store)
            out.append(node.target.id)
    for child in child_nodes(node):
        _names_in_order_of(child, store, out)


def expr_activity_fn(fn) -> set[str]:
    from ..analysis.activity import function_free_reads

    return function_free_reads(fn)




def _return_last_value(fn, outs: list[str], src) -> None:
    """`y = expr; return y` at the end of a branch function -> `return expr` (unless the
    assignment carries a comment, which would be lost)."""
    if len(outs) != 1 or len(fn.body) < 2:
        return
    ret, last = fn.body[-1], fn.body[-2]
    if getattr(last, "_aj_span", False) and any(
        "#" in src.line_text(ln) for ln in range(last.lineno, last.end_lineno + 1)
    ):
        return
    n = outs[0]
    if not (isinstance(ret, gast.Return) and isinstance(ret.value, gast.Name)):
        return
    if ret.value.id != n or getattr(ret.value, "_aj_orig", False):
        return
    if not (
        isinstance(last, gast.Assign)
        and len(last.targets) == 1
        and isinstance(last.targets[0], gast.Name)
        and last.targets[0].id == n
    ):
        return
    new = replace("return V", V=last.value)
    new[0]._aj_replaces = getattr(last, "_aj_replaces", None) or last
    fn.body[-2:] = new


def block_of(stmts: list, target) -> list | None:
    """The statement list (in ``stmts`` or nested in it) that holds ``target``."""
    if any(x is target for x in stmts):
        return stmts
    for x in stmts:
        if isinstance(x, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        for f in ("body", "orelse", "finalbody"):
            sub = getattr(x, f, None)
            if isinstance(sub, list):
                found = block_of(sub, target)
                if found is not None:
                    return found
    return None


# the float constants of the modules (`jnp.nan`, `np.inf`, `math.pi`), numbers, not functions
_NUMBER_MODULES = frozenset({"jax.numpy", "numpy", "math"})
_NUMBER_CONSTANTS = frozenset({"nan", "inf", "pi", "e", "tau", "euler_gamma", "NaN", "NAN", "Inf"})


def _python_object(conv, expr, block, n) -> str | None:
    """A description of ``expr`` when it is surely not an array (a function, a string)."""
    if block is not None and expr is None and n is not None:
        for st in reversed(block):
            if isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef)) and st.name == n:
                return "a function"
            if isinstance(st, gast.ClassDef) and st.name == n:
                return "a class"
        return None
    if expr is None:
        return None
    if isinstance(expr, gast.Lambda):
        return "a function"
    if isinstance(expr, gast.Constant) and isinstance(expr.value, (str, bytes)):
        return "a string"
    if isinstance(expr, gast.Constant) and expr.value is None:
        return "None"
    if isinstance(expr, gast.JoinedStr):
        return "a string"
    if isinstance(expr, (gast.Name, gast.Attribute)):
        dotted = dotted_name(expr)
        qual = conv.ctx.scope.qualified(dotted) if dotted else None
        if qual and "." in qual and dotted not in conv.an.values.locals:
            module, _, attr = qual.rpartition(".")
            if module in _NUMBER_MODULES and attr in _NUMBER_CONSTANTS:
                return None  # `jnp.nan`, `math.pi`: a float
            return f"the function `{dotted}`"
        if isinstance(expr, gast.Name) and expr.id in conv.ctx.scope.functions:
            return f"the function `{expr.id}`"
    return None


def _python_promotion(vals: list[Value]) -> list[str | None]:
    """For two Python numbers of known, different types: the conversion (`float`/`int`) each
    side needs so both have the wider type, as eager arithmetic would promote them."""
    d = [v.dtype for v in vals]
    if None in d or d[0] == d[1]:
        return [None, None]
    target = "float" if "float" in d else "int"
    return [None if x == target else target for x in d]


def _widest_number_type(types: set[str]) -> str:
    return "float" if "float" in types else "int" if "int" in types else "bool"


def _literal_number_types(an: FunctionAnalysis, block: list, n: str) -> set[str] | None:
    """The types of the Python number literals the last assignment of ``n`` in ``block`` may
    give it (`rate = 0.2`), through `if`s (kept, or converted: the `if` a statement replaces);
    None where any other value may reach the end of the block (or none is assigned there)."""
    for st in reversed(block):
        if isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Return)):
            continue
        if n not in an.activity.of(st).writes:
            continue
        orig = st if isinstance(st, gast.If) else getattr(st, "_aj_replaces", None)
        if isinstance(orig, gast.If):
            a = _literal_number_types(an, orig.body, n)
            b = _literal_number_types(an, orig.orelse, n) if a else None
            return a | b if a and b else None
        if (
            isinstance(st, gast.Assign)
            and len(st.targets) == 1
            and isinstance(st.targets[0], gast.Name)
            and st.targets[0].id == n
        ):
            value = st.value
            if isinstance(value, gast.UnaryOp) and isinstance(value.op, (gast.USub, gast.UAdd)):
                value = value.operand
            if isinstance(value, gast.Constant) and type(value.value) in (bool, int, float):
                return {type(value.value).__name__}
        return None
    return None


def _set_slot(ret, k: int, nouts: int, new) -> None:
    if nouts == 1:
        ret.value = new
    else:
        ret.value.elts[k] = new


_FLOAT_FUNCS = frozenset(
    """sin cos tan arcsin arccos arctan arctan2 sinh cosh tanh arcsinh arccosh arctanh exp exp2
    expm1 log log1p log2 log10 sqrt cbrt mean std var average divide true_divide reciprocal
    sigmoid softmax log_softmax logsumexp erf erfc gelu silu relu6 hypot deg2rad rad2deg
    radians degrees float32 float16 bfloat16 float64 linspace""".split()
)


_KEEPS_DTYPE = frozenset(
    """abs absolute negative positive sign square maximum minimum clip sum max min prod cumsum
    cumprod dot matmul vdot transpose reshape ravel flatten squeeze expand_dims concatenate
    stack roll flip sort where select take zeros_like ones_like full_like copy""".split()
)


def floating(scope: ModuleScope, expr) -> bool | None:
    """True when an expression surely gives a floating result whatever its inputs (a true
    division, a float constant, a transcendental function); False when it surely keeps its
    inputs' type (names, integer constants, arithmetic, reductions); None when unknown (a
    comparison gives bool; a call of unknown type gives what it gives, whatever its arguments).
    """
    if isinstance(expr, (gast.Name, gast.Attribute)):
        return False
    if isinstance(expr, gast.Constant):
        if isinstance(expr.value, float):
            return True
        return False if type(expr.value) is int else None
    if isinstance(expr, gast.Subscript):
        return floating(scope, expr.value)
    if isinstance(expr, gast.UnaryOp):
        return None if isinstance(expr.op, gast.Not) else floating(scope, expr.operand)
    if isinstance(expr, gast.BinOp):
        if isinstance(expr.op, gast.Div):
            return True
        parts = [floating(scope, expr.left), floating(scope, expr.right)]
        if True in parts:
            return True
        return False if parts == [False, False] else None
    if isinstance(expr, gast.Call):
        fname = dotted_name(expr.func) or ""
        short = fname.rsplit(".", 1)[-1]
        if isinstance(expr.func, gast.Attribute):
            short = expr.func.attr
        qual = scope.qualified(fname) or "" if fname else ""
        if short in _FLOAT_FUNCS and (qual.startswith("jax.") or "." in fname):
            return True
        if short not in _KEEPS_DTYPE or qual.startswith("jax.lax"):
            return None
        if any(kw.arg == "dtype" for kw in expr.keywords):
            return None
        # where(cond, a, b): the condition's type does not reach the result
        args = list(expr.args[1:] if short == "where" else expr.args)
        if isinstance(expr.func, gast.Attribute) and not qual:
            args.append(expr.func.value)  # a method: `x.sum()` has the type of `x`
        out = _floating_all(scope, args)
        return None if out is False and not fname else out
    if isinstance(expr, (gast.Tuple, gast.List)):
        return _floating_all(scope, expr.elts)
    return None


def _floating_all(scope, exprs) -> bool | None:
    parts = [floating(scope, a) for a in exprs]
    if True in parts:
        return True
    return False if all(p is False for p in parts) else None


def _kind_words(v: Value, tested: bool) -> str:
    if v.kind in (Kind.LIST, Kind.DICT):
        return f"a Python {v.kind.value}"
    if v.kind is Kind.STATIC and tested:
        return "a Python value that a condition in the branch tests"
    return "a value of unknown kind"


def _tests_of(st) -> list:
    """What a statement takes Python's truth of: `if`/`while` tests, the tests of
    `a if c else b`, the operands of `and`/`or`/`not` and of chained comparisons."""
    out = []
    if isinstance(st, (gast.If, gast.While)):
        out.append(st.test)
    for node in _own(st):
        if isinstance(node, gast.IfExp):
            out.append(node.test)
        elif isinstance(node, gast.BoolOp):
            out += node.values
        elif isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
            out.append(node.operand)
        elif isinstance(node, gast.Compare) and len(node.ops) > 1:
            out.append(node)
    return out


def _rounded_past_float32(big: int) -> str:
    """Why a Python int past 2**24 cannot take a float array's dtype on its path."""
    try:  # (``big`` as float32 holds it: 16777217 -> 16777216.0)
        held = repr(struct.unpack("f", struct.pack("f", big))[0])
    except OverflowError:
        held = "inf" if big > 0 else "-inf"
    return (
        f"a traced value has one dtype, and float32 rounds ints past 2**24 ({big} would come "
        f"back {held})"
    )
