"""AJ2xx: Python loops -> ``lax.while_loop`` / ``lax.fori_loop`` / ``lax.scan``.

A loop whose condition or iteration count depends on a traced value cannot run under ``jax.jit``
(``while i < n`` with a traced ``n`` raises a TracerBoolConversionError), and a long static loop
unrolls into a graph that takes seconds to compile. Each such loop becomes the loop a JAX expert
would write: named helper functions (``_cond``, ``_body``) and the loop state carried as an
explicit tuple of the user's own names.

- AJ201 ``while <traced>:`` -> ``lax.while_loop``.
- AJ202 ``for i in range(...)`` with a traced bound -> ``lax.fori_loop`` (a constant step is
  mapped onto a counter; a traced step, or a ``break``, gives a ``lax.while_loop``).
- AJ203 ``for i in range(N)`` with a static ``N >= UNROLL_LIMIT`` -> ``lax.fori_loop`` (shorter
  static loops stay Python: unrolled, they compile about as fast and run faster).
- AJ204 ``for x in array`` / ``enumerate(array)`` / ``zip(a, b)`` -> ``lax.scan`` over the
  leading axis.
- AJ205 ``break`` / ``continue`` / ``return`` inside a converted loop -> flags carried in the loop
  state and guarded ``if`` statements (the conditionals converter turns those into ``lax.cond``
  or, for scalar carries, ``jnp.where``); ``if c: ...; break`` sets the flag to ``c`` itself; a
  ``return v`` before code that depends on the loop stops it and ``if returned: return v``
  follows it (refused as AJ936 where that is not exact).

Slices ``x[i + a:i + b]`` of static size that the range provably keeps inside ``x`` become
``lax.dynamic_slice_in_dim`` / ``dynamic_update_slice_in_dim`` (other slices on the loop index
are refused, AJ934).

The loop state is every name the loop assigns that is live before or after it. Names first
assigned inside the loop and read after it, and Python scalars that become arrays in the loop,
get their fixed type from ``jax.eval_shape`` of the body. Refused (left as Python, with a reason)
under AJ93x.
"""

from __future__ import annotations

import ast
import functools
import types
from dataclasses import dataclass, field

import gast

from ..analysis import FunctionAnalysis, Kind, Value, dotted_name
from ..analysis.activity import ActivityAnalysis, expr_activity, function_free_reads
from ..analysis.dataflow import Liveness, runs_at_least_once
from ..analysis.dtype_source import WEAK_TYPE_REASON, DtypeSource, covering, dtype_source
from ..analysis.effects import (
    CHANGING_METHODS,
    ValueFacts,
    assigned_value,
    at_method,
    closures_outside,
    container_change,
    declared_outer,
    effect_in,
    effectful_call,
    grows_geometrically,
    int_constant,
    literal_ints,
    named_pairs,
    python_value_use,
    read_by_closures,
    read_telling_weak_from_strong,
    scope_introspection,
    self_step,
    short_circuited_walrus,
    stale_closure_read,
    stateful_call,
    statements_after,
    walrus_in,
    zero_argument_super,
)
from ..analysis.sharing import viewed_through, views_of
from ..analysis.statements import walk_statements
from ..analysis.values import mixed_returned_kinds
from ..gastconv import child_nodes, walk_bfs, walk_nodes
from ..jaxapi import AT_UPDATE_METHODS, ELEMENTWISE_FUNCTIONS, SHAPE_ARGUMENTS
from ..render import _unparse, replace_statements
from ..templates import copy_expr, replace_expr
from ..templates import replace as _template_replace
from .arrays import known_array
from .base import (
    Context,
    bool_argument,
    builtin_reduction,
    first_refused,
    singular_somewhere,
)
from .conditionals import block_of, floating
from .normalize import always_returns, surely_assigned

CODES = ("AJ201", "AJ202", "AJ203", "AJ204", "AJ205")
REFUSAL_CODES = ("AJ930", "AJ931", "AJ932", "AJ933", "AJ934", "AJ935", "AJ936", "AJ937")

# A static `range` with at least this many iterations becomes a fori_loop (see rules/AJ203.md for
# the measurement: below it, the unrolled loop compiles about as fast and runs faster).
UNROLL_LIMIT = 16

_FORBIDDEN = (
    gast.Global,
    gast.Nonlocal,
    gast.Try,
    gast.With,
    gast.AsyncWith,
    gast.Delete,
    gast.Raise,
    gast.ClassDef,
    gast.AsyncFor,
)
_PH = "__aj_{}__"
_POSITION = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def replace(template: str, **replacements) -> list:
    """:func:`autojit.templates.replace`, keeping the positions that generated statements moved
    into the template already had (helper functions of inner loops point at their loop)."""
    saved = []
    for value in replacements.values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, gast.AST):
                for n in walk_nodes(item):
                    if hasattr(n, "lineno") and not getattr(n, "_aj_orig", False):
                        saved.append((n, {a: getattr(n, a) for a in _POSITION if hasattr(n, a)}))
    out = _template_replace(template, **replacements)
    for n, attrs in saved:
        for a, v in attrs.items():
            setattr(n, a, v)
    return out


def convert(ctx: Context) -> None:
    """Convert the loops of ``ctx.fn``, innermost first, re-analysing after each rewrite."""
    _convert_function(ctx)
    # a loop that a later conversion turned into a loop helper's content is reported once, by
    # what finally happened to it
    converted = {
        (c.location.line, c.location.col)
        for c in ctx.changes
        if c.code in CODES and not c.message.startswith("kept")
    }
    seen: set = set()
    kept = []
    for r in ctx.refusals:
        key = (r.code, r.location, r.reason)
        if key in seen or (
            r.code in REFUSAL_CODES and (r.location.line, r.location.col) in converted
        ):
            continue
        seen.add(key)
        kept.append(r)
    ctx.refusals[:] = kept


def _convert_function(ctx: Context) -> None:
    # (keyed by the loop nodes themselves, not their ids: a loop converted or lowered may be
    # freed, and a new loop made later could get its id, and be skipped or take its plan)
    done: set[gast.AST] = set()
    forced: dict[gast.AST, _Plan] = {}
    mixed = _mixed_iteration_loops(ctx, ctx.fn.body)
    _note_reads_by_item(ctx, ctx.fn.body)
    while True:
        found = _next_loop(ctx.fn.body, done)
        if found is None:
            return
        block, loop = found
        done.add(loop)
        if id(loop) in mixed:
            line, name = mixed[id(loop)]
            ctx.refuse(
                "AJ932",
                loop,
                f"inside the `for` at line {line}, which iterates over `{name}` (or an array "
                f"that may share with it) while it changes: converted, this loop would rebind "
                f"`{name}` where NumPy updates it in place; left as Python",
            )
            _keep_writes(loop.body, {name})
            continue
        result = _convert_loop(ctx, block, loop, forced)
        snapshot = getattr(loop, "_aj_unlower", None)
        if not result and snapshot is not None:
            # the lowered form was not converted: the loop as it was, refused as it was
            done.add(snapshot.restore(ctx, refused=getattr(loop, "_aj_refused", None)))
            forced.pop(loop, None)
            _reanalyse(ctx)
            continue
        if result is _LOWERED:
            done.discard(loop)  # a `for` lowered in place is converted again
        if result:
            _reanalyse(ctx)
        if isinstance(result, list):
            for helper in result:
                _convert_helper(ctx, helper)


def _convert_helper(ctx: Context, helper) -> None:
    """Loops kept inside a new loop helper (static before) may read the carry, traced now:
    convert them with the helper's own analysis, which sees its parameters as traced."""
    if not any(isinstance(s, (gast.For, gast.While)) for s in walk_statements(helper.body)):
        return
    an = ctx.analysis
    enclosing = {**an.values.enclosing, **an.env_before(helper)}
    sub = Context(
        ctx.path,
        ctx.source,
        ctx.scope,
        helper,
        FunctionAnalysis(helper, ctx.scope, set(), enclosing),
        ctx.names,
        ctx.options,
        changes=ctx.changes,
        refusals=ctx.refusals,
    )
    _convert_function(sub)


def _reanalyse(ctx: Context) -> None:
    an = ctx.analysis
    ctx.analysis = FunctionAnalysis(ctx.fn, ctx.scope, an.static_params, an.values.enclosing)


class _Snapshot:
    """A loop's block (the list) and every node of the loop as they are, to put back where a
    rewrite of it that was begun is refused: the loop's exits made flags (the tail `return`
    after it included), its slices made dynamic, and the change reported for that."""

    def __init__(self, ctx: Context, block: list, loop) -> None:
        self.block, self.items, self.loop = block, list(block), loop
        # (each node's own dict, its lists copied: lowering assigns fields and new lists)
        self.nodes = [
            (n, {k: list(v) if type(v) is list else v for k, v in n.__dict__.items()})
            for n in walk_nodes(loop)
        ]
        self.n_changes = len(ctx.changes)
        self.dropped = getattr(ctx.fn, "_aj_dropped", None)
        self.changes: list = []

    def done(self, ctx: Context, lowered) -> None:
        """The exits were made flags; ``lowered`` is the loop that is converted next."""
        self.changes = ctx.changes[self.n_changes :]
        lowered._aj_unlower = self

    def restore(self, ctx: Context, refused: str | None = None):
        """Put everything back; the loop is marked refused (``refused``: with that code, which
        a conversion of the lowered loop gave). Returns the loop."""
        refused = refused or self.loop.__dict__.get("_aj_refused")  # (refused meanwhile)
        for node, saved in self.nodes:
            node.__dict__.clear()
            node.__dict__.update(saved)
        self.block[:] = self.items
        taken = set(map(id, self.changes or ctx.changes[self.n_changes :]))
        ctx.changes[:] = [c for c in ctx.changes if id(c) not in taken]
        if self.dropped is None:
            ctx.fn.__dict__.pop("_aj_dropped", None)
        else:
            ctx.fn._aj_dropped = self.dropped
        if refused:
            self.loop._aj_refused = refused
        return self.loop


class _Lowered:
    """Marker: the loop's break/continue/return were turned into flags; convert it again."""

    def __bool__(self) -> bool:
        return True


_LOWERED = _Lowered()


def _next_loop(stmts: list, done: set[gast.AST]):
    for s in stmts:
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        for f in ("body", "orelse", "finalbody"):
            r = _next_loop(getattr(s, f, None) or [], done)
            if r is not None:
                return r
        for h in getattr(s, "handlers", None) or []:
            r = _next_loop(h.body, done)
            if r is not None:
                return r
        if isinstance(s, (gast.For, gast.While)) and s not in done:
            return stmts, s
    return None


# -- plans ---------------------------------------------------------------------------------


@dataclass
class _Plan:
    """How one loop is rewritten."""

    kind: str  # "while" | "fori" | "scan"
    code: str
    what: str  # for the change message
    test: object = None  # while: the condition
    lo: object = None  # fori: bounds
    hi: object = None
    index: str = ""  # fori: the body's index parameter
    index_prelude: list = field(default_factory=list)  # statements computing the target
    xs: object = None  # scan: the sequence(s) scanned
    xs_first: object = None  # scan: an element, for eval_shape
    elem: str = ""  # scan: the body's element parameter
    targets: set[str] = field(default_factory=set)  # names bound by the loop header
    hoisted: list = field(default_factory=list)  # statements before the loop
    index_checks: set[str] = field(default_factory=set)  # names that become traced
    step: object = None  # fori: a traced range step (becomes a while loop)
    # slices `x[i + a:i + b]` proven inside `x` for every index:
    # id(Slice) -> (subscript, slice, size, axis)
    dynamic: dict = field(default_factory=dict)


def _convert_loop(ctx: Context, block: list, loop, forced: dict[gast.AST, _Plan]):
    an = ctx.analysis
    plan: _Plan | None
    if loop in forced:
        plan = forced.pop(loop)
    elif isinstance(loop, gast.While):
        plan = _while_plan(ctx, an, loop)
    else:
        plan = _for_plan(ctx, an, loop)
    if plan is None:
        return False
    if not ctx.allowed(plan.code, loop):
        return False
    kept = first_refused(loop.body)
    if kept is not None:
        ctx.refuse(
            "AJ919",
            loop,
            f"this loop cannot be converted around the statement at line "
            f"{getattr(kept, 'lineno', '?')}, which autojit left as it is ({kept._aj_refused}): "
            f"fix that one first",
        )
        return False
    plan.dynamic = _provable_slices(ctx, an, loop, plan)
    has_exits = any(True for _ in _exits(loop.body))
    problem = _body_problem(ctx, an, block, loop, plan)
    if problem is not None:
        code, node, reason = problem
        ctx.refuse(code, node, reason)
        if plan.code == "AJ204" and plan.kind == "fori" and isinstance(loop, gast.For):
            _python_indexed(ctx, loop, plan)
            return True
        return False
    # a loop whose exits become flags is converted again from the lowered form: where that
    # conversion is refused, the loop is put back as it was (`_put_back`)
    lowering = has_exits or plan.step is not None
    snapshot = _Snapshot(ctx, block, loop) if lowering else None
    if plan.dynamic:
        _dynamic_slices(ctx, loop, plan)
        _reanalyse(ctx)
        an = ctx.analysis
    if has_exits and plan.kind == "scan" and isinstance(loop, gast.For):
        read = sorted(plan.targets & _live_after(an, loop))
        if read and "break" in _has_exit(_live_prefix(loop.body)):
            # a scan binds the loop variable to every element; the flag guards the body only
            ctx.refuse(
                "AJ936",
                loop,
                f"the loop variable `{read[0]}` is read after this loop, which can `break`: "
                f"a scan gives it the last element, not the one it stopped at; assign it to "
                f"a variable before the loop and in it, and read that",
            )
            if snapshot is not None:
                snapshot.restore(ctx)
            return False
    if has_exits or plan.step is not None:
        if has_exits and not ctx.allowed("AJ205", loop):
            return False
        if (
            "return" not in _has_exit(_live_prefix(loop.body))
            and not _state_names(an, loop, plan)
            and not _stacked_appends(ctx, an, block, loop, plan)
        ):
            # nothing to carry: refuse before the exits become flags (the loop stays as written)
            ctx.refuse("AJ932", loop, _NO_STATE)
            if snapshot is not None:
                snapshot.restore(ctx)  # (slices made dynamic taken back)
            return False
        mixed = _returned_kinds(ctx, an, block, loop)
        if mixed is not None:
            ctx.refuse("AJ918", loop, mixed)
            if snapshot is not None:
                snapshot.restore(ctx)
            return False
        lowered = _lower_exits(ctx, block, loop, plan, forced)
        if snapshot is not None:
            snapshot.done(ctx, lowered)
        return _LOWERED
    return _rewrite(ctx, an, block, loop, plan)


def _head_value(an: FunctionAnalysis, loop, expr) -> Value:
    """The value of ``expr`` at the loop head: before the loop, joined with every iteration."""
    v = an.value(expr, loop)
    if loop.body:
        v = v.join(an.value(expr, loop.body[0]))
    return v


def _body_traced(an: FunctionAnalysis, loop) -> bool:
    for s in loop.body:
        for n in walk_nodes(s):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                if an.value(n, s).traced:
                    return True
    return False


def _kept_on_a_name_made_traced(stmts: list, names: set[str]):
    """(loop, name) for a `while` among ``stmts`` kept as Python on a static condition that
    reads one of ``names`` (a loop around it would make them traced), or None."""
    for st in walk_statements(stmts, into_functions=True):  # (a loop converted inside it too)
        if isinstance(st, gast.While) and st.__dict__.get("_aj_static_test"):
            read = sorted(expr_activity(st.test).reads & names)
            if read:
                return st, read[0]
    return None


def _keep(ctx: Context, an: FunctionAnalysis, loop, why: str) -> None:
    """A static loop stays Python; say so when its body computes on traced values."""
    if _body_traced(an, loop):
        ctx.refuse(
            "AJ930",
            loop,
            f"kept as a Python loop ({why}): jax.jit unrolls it, one copy of the body per "
            f"iteration",
        )


def _while_plan(ctx: Context, an: FunctionAnalysis, loop) -> _Plan | None:
    v = _head_value(an, loop, loop.test)
    # `while True:` left by a `break` under a traced condition; or a static `while` with a
    # `continue` under one (what runs after it depends on the condition) that advances its
    # counter before it
    left = v.static and _traced_exit(an, loop, (gast.Break, gast.Return))
    skips = (
        not left
        and v.static
        and _traced_exit(an, loop, (gast.Continue,))
        and _advanced_first(an, loop)
    )
    if left or skips:
        return _Plan(
            "while",
            "AJ201",
            "`while` left by a `break` on a traced condition -> `{lax}.while_loop`"
            if left
            else "`while` with a `continue` on a traced condition -> `{lax}.while_loop`",
            test=loop.test,
        )
    if v.static:
        _keep(ctx, an, loop, "its condition is static")
        loop._aj_static_test = True  # (a loop around it that would make its names traced: AJ931)
        return None
    if v.kind is not Kind.TRACED:
        if _body_traced(an, loop):
            ctx.refuse(
                "AJ933",
                loop,
                "cannot tell whether the loop condition is a traced value; left as Python "
                "(declare the arguments it depends on static, or write jax.lax.while_loop)",
            )
        return None
    return _Plan(
        "while", "AJ201", "`while` on a traced condition -> `{lax}.while_loop`", test=loop.test
    )


def _advanced_first(an: FunctionAnalysis, loop) -> bool:
    """Whether every name of a `while` loop's condition that its body assigns is assigned
    before the body's first statement that may `continue` (`i += 1` first): the loop advances
    past a traced `continue` too. Where not, the counter may stop at the `continue` (Python
    loops forever there, and a converted loop inside XLA, where nothing interrupts it): the
    loop stays Python (AJ914)."""
    body = loop.body
    first = next((k for k, st in enumerate(body) if "continue" in _has_exit([st])), len(body))
    tested = expr_activity(loop.test).reads
    later = an.activity.of_block(body[first:]).writes & tested
    return not (later - an.activity.of_block(body[:first]).writes)


# the methods of CHANGING_METHODS that a jax array has too (`x.sort()`: AJ305 rewrites it)
_ARRAY_METHODS = frozenset({"sort"})


def _at_property(node) -> bool:
    """`x.at[i]`: `x.at[i].add(v)` as a statement is jax's own (its result dropped)."""
    return (
        isinstance(node, gast.Subscript)
        and isinstance(node.value, gast.Attribute)
        and node.value.attr == "at"
    )


# the builtins a `for` header may call that the plans below read as Python's own
_ITERATION_BUILTINS = frozenset({"range", "reversed", "enumerate", "zip", "len"})


def _range_args(call) -> list | None:
    if (
        isinstance(call, gast.Call)
        and dotted_name(call.func) == "range"
        and not call.keywords
        and 1 <= len(call.args) <= 3
        and not any(isinstance(a, gast.Starred) for a in call.args)
    ):
        return list(call.args)
    return None


def _const_int(node, scope=None, an=None) -> int | None:
    """An int literal's value; with ``scope``, also a module constant's (`N = 3`) that the
    function does not bind itself."""
    if (
        scope is not None
        and isinstance(node, gast.Name)
        and node.id in scope.int_values
        and (an is None or node.id not in an.values.locals)
    ):
        return scope.int_values[node.id]
    try:
        value = ast.literal_eval(gast.unparse(node))
    except Exception:
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _for_plan(ctx: Context, an: FunctionAnalysis, loop) -> _Plan | None:
    if loop.orelse is None:
        loop.orelse = []
    it = loop.iter
    if any(
        isinstance(n, gast.Call)
        and isinstance(n.func, gast.Name)
        and n.func.id in _ITERATION_BUILTINS
        and (n.func.id in an.values.locals or ctx.scope.binds(n.func.id))
        for n in walk_nodes(it)
    ):
        return None  # (`def range(n): ...` in the module: not Python's, left as written)
    reverse = False
    if (
        isinstance(it, gast.Call)
        and dotted_name(it.func) == "reversed"
        and len(it.args) == 1
        and _range_args(it.args[0]) is not None
    ):
        reverse = True
        it = it.args[0]
    args = _range_args(it)
    targets = expr_activity(loop.target).writes
    if args is not None:
        if "range" in an.values.locals or "range" in ctx.scope.assigned:
            return None
        return _range_plan(ctx, an, loop, args, reverse, targets)
    return _scan_plan(ctx, an, loop, targets)


def _range_plan(ctx, an, loop, args, reverse: bool, targets: set[str]) -> _Plan | None:
    lax = ctx.names.lax
    vals = [an.value(a, loop) for a in args]
    if len(args) == 1:
        lo, hi, step = None, args[0], None
    else:
        lo, hi = args[0], args[1]
        step = args[2] if len(args) == 3 else None
    if not isinstance(loop.target, gast.Name):
        return None
    target = loop.target.id
    if all(v.static for v in vals):
        consts = [_const_int(a, ctx.scope, an) for a in args]
        if any(c is None for c in consts):
            if not _body_traced(an, loop):
                return None
            what = (
                f"`for` over a static range whose length is only known when jax traces -> "
                f"`{lax}.fori_loop` (not unrolled)"
            )
        else:
            count = len(range(*[c for c in consts if c is not None]))
            if count < UNROLL_LIMIT and not _traced_exit(an, loop):
                _keep(ctx, an, loop, f"{count} iterations, fewer than {UNROLL_LIMIT}")
                return None
            if not _body_traced(an, loop) and not _traced_exit(an, loop):
                # Python arithmetic only (`h = h * 31 + i`): jit runs it at trace time and
                # unrolls nothing; a fori_loop would make its ints int32 (and overflow)
                return None
            what = (
                f"`for` over a static range of {count} iterations -> `{lax}.fori_loop` "
                f"(not unrolled)"
            )
        code = "AJ203"
        # a loop left by a traced `break` fails under jit as Python anyway: convert it as it is
        index_checks = set() if _traced_exit(an, loop) else {target}
    elif any(v.kind is Kind.TRACED for v in vals):
        code = "AJ202"
        what = f"`for` over a range with a traced bound -> `{lax}.fori_loop`"
        index_checks = set()
    else:
        if _body_traced(an, loop):
            ctx.refuse(
                "AJ933",
                loop,
                "cannot tell whether the range bounds are traced values; left as Python",
            )
        return None
    plan = _Plan("fori", code, what, targets=targets, index_checks=index_checks)
    written = an.activity.of_block(loop.body).writes | targets
    step_c = _const_int(step) if step is not None else 1

    def invariant(node, base: str):
        """``node`` itself when the body does not change what it reads, else a hoisted name."""
        if node is None or not (expr_activity(node).reads & written):
            return node
        fresh = ctx.fresh(base)
        plan.hoisted += replace(f"{fresh} = {_PH.format('V')}", **{_PH.format("V"): node})
        return replace_expr(fresh)

    if step is not None and step_c is None:
        if reverse or an.value(step, loop).kind is not Kind.TRACED:
            ctx.refuse(
                "AJ934",
                loop,
                "a `range` whose step is not a constant integer: its sign decides the loop "
                "condition; left as Python (write jax.lax.while_loop)",
            )
            return None
        # a traced step: a while loop over the index, its sign chooses the condition
        lo_i = invariant(lo, "start")
        plan.lo = lo_i if lo_i is not None else replace_expr("0")
        plan.hi = invariant(hi, "stop")
        plan.step = invariant(step, "step")
        plan.index = target
        plan.what = plan.what.replace("fori_loop", "while_loop") + " (a traced step)"
        return plan
    if step_c is None or step_c == 0:
        return None

    if lo is not None and _const_int(lo) == 0:
        lo = None
    if step_c == 1 and not reverse:
        plan.lo = lo if lo is not None else replace_expr("0")
        plan.hi = hi
        plan.index = target
        return plan
    lo_i = invariant(lo, "start") if lo is not None else None
    hi_i = invariant(hi, "stop")
    lo_src = lo_i if lo_i is not None else replace_expr("0")
    k = ctx.fresh("k")
    plan.index = k
    plan.lo = replace_expr("0")
    minus_lo = f" - {_PH.format('LO')}" if lo_i is not None else ""
    if step_c == 1:
        count_e = replace_expr(
            f"{_PH.format('HI')}{minus_lo}",
            **{_PH.format("HI"): hi_i, _PH.format("LO"): copy_expr(lo_src)},
        )
    else:
        # len(range(lo, hi, step)) = (hi - lo + step - sign(step)) // step, clipped at 0 by the
        # loop itself (fori_loop runs no iteration when its upper bound is below the lower)
        adjust = step_c - 1 if step_c > 0 else step_c + 1
        lo_c = _const_int(lo_i) if lo_i is not None else None
        if lo_c is not None:
            adjust, minus_lo = adjust - lo_c, ""
        offset = f" + {adjust}" if adjust > 0 else (f" - {-adjust}" if adjust < 0 else "")
        inner = f"{_PH.format('HI')}{minus_lo}{offset}"
        count_e = replace_expr(
            f"({inner}) // {step_c}" if inner != _PH.format("HI") else f"{inner} // {step_c}",
            **{_PH.format("HI"): hi_i, _PH.format("LO"): copy_expr(lo_src)},
        )
    if reverse:
        nname = ctx.fresh("count")
        plan.hoisted += replace(f"{nname} = {_PH.format('N')}", **{_PH.format("N"): count_e})
        plan.hi = replace_expr(nname)
        position = f"({nname} - 1 - {k})"
    else:
        plan.hi = count_e
        position = k
    if step_c == 1:
        expr = f"{_PH.format('LO')} + {position}" if lo is not None else position
    elif lo is not None:
        expr = f"{_PH.format('LO')} + {position} * {step_c}"
    else:
        expr = f"{position} * {step_c}"
    plan.index_prelude = replace(f"{target} = {expr}", **{_PH.format("LO"): copy_expr(lo_src)})
    return plan


def _scan_plan(ctx, an, loop, targets: set[str]) -> _Plan | None:
    lax = ctx.names.lax
    jnp = ctx.names.jnp

    def seq(node):
        """(xs expression, first-element expression) for an iterable of traced arrays."""
        if isinstance(node, gast.Call) and not node.keywords:
            fname = dotted_name(node.func)
            if fname == "zip" and node.args and "zip" not in an.values.locals:
                parts = [seq(a) for a in node.args]
                if any(p is None for p in parts):
                    return None
                length = parts[0][2]
                elts = [p[0] for p in parts]
                if len(parts) > 1:
                    # Python's zip stops at the shortest; scan needs one length: each array cut
                    # to the least of theirs (known when jax traces)
                    length_name = ctx.fresh("zip_len") if _taken(ctx, "zip_len") else "zip_len"
                    phs = [_PH.format(f"L{k}") for k in range(len(parts))]
                    hoist.extend(
                        replace(
                            f"{length_name} = min({', '.join(phs)})",
                            **{ph: p[2] for ph, p in zip(phs, parts, strict=True)},
                        )
                    )
                    elts = [
                        replace_expr(f"{_PH.format('X')}[:{length_name}]", **{_PH.format("X"): e})
                        for e in elts
                    ]
                    length = gast.Name(length_name, gast.Load(), None, None)
                xs = gast.Tuple(elts=elts, ctx=gast.Load())
                first = gast.Tuple(elts=[p[1] for p in parts], ctx=gast.Load())
                return xs, first, length
            if (
                fname == "enumerate"
                and len(node.args) in (1, 2)
                and "enumerate" not in an.values.locals
            ):
                inner = seq(node.args[0])
                if inner is None:
                    return None
                length = inner[2]
                n_, s_, xs_ = _PH.format("N"), _PH.format("S"), _PH.format("XS")
                if len(node.args) == 2:
                    start = node.args[1]
                    if not an.value(start, loop).static:
                        return None
                    indices = f"{jnp}.arange({s_}, {_PH.format('S2')} + {n_})"
                else:
                    start, indices = None, f"{jnp}.arange({n_})"
                xs = replace_expr(
                    f"({indices}, {xs_})",
                    **{
                        n_: length,
                        xs_: inner[0],
                        s_: start,
                        _PH.format("S2"): copy_expr(start) if start is not None else None,
                    },
                )
                first = replace_expr(f"(0, {_PH.format('F')})", **{_PH.format("F"): inner[1]})
                index_names.update(
                    expr_activity(loop.target.elts[0]).writes
                    if isinstance(loop.target, gast.Tuple) and node is loop.iter
                    else set()
                )
                return xs, first, copy_expr(length)
        if isinstance(node, gast.Call) and dotted_name(node.func) in _PYTHON_ITERATORS:
            return None  # (`enumerate(x, start=1)`, `map(...)`: a Python iterator, no array)
        v = an.value(node, loop)
        if v.kind is not Kind.TRACED or v.scalar is True:
            return None
        if not known_array(ctx, an, node, loop):
            return None  # maybe a list or tuple of arrays: scan would iterate its leaves' rows
        # an element's type, also for a zero-length array (eval_shape of the body)
        first = replace_expr(
            f"{ctx.names.jax}.ShapeDtypeStruct({_PH.format('X')}.shape[1:], {_PH.format('Y')}.dtype)",
            **{_PH.format("X"): copy_expr(node), _PH.format("Y"): copy_expr(node)},
        )
        length = replace_expr(f"len({_PH.format('X')})", **{_PH.format("X"): copy_expr(node)})
        return node, first, length

    index_names: set[str] = set()
    hoist: list = []  # (statements before the loop: a zip's length)
    if not all(
        isinstance(n, (gast.Name, gast.Tuple, gast.List))
        for n in walk_nodes(loop.target)
        if not isinstance(n, gast.expr_context)
    ):
        seq = None  # a recursive closure is a reference cycle: broken here, freed at once
        return None  # `for obj.attr in ...` / `for x[i] in ...`: not a loop variable
    try:
        found = seq(loop.iter)
    finally:
        seq = None
    # the names whose arrays the iteration reads (`y`, `y[::-1]`, `reversed(y)`, `w` of `w = y`)
    # that the body writes (`y`, or `w` of `w = y`): NumPy's iteration reads the array as the
    # body leaves it at each step, a converted (or jax) iteration the array before the loop
    updated, kinds = _updated_while_iterated(ctx, an, loop)
    if found is None and "item" not in kinds:
        # a Python sequence (layers, parameters, names): iterating it while tracing is the
        # idiom, not a problem to report
        return None
    if kinds == {"item"} and found is not None and updated == _plainly_iterated(loop.iter):
        # `x[j] = v` in `for v in x`: NumPy iteration reads the updated array at each step
        indexed = _indexed_plan(ctx, an, loop, targets, lax)
        if indexed is not None:
            return indexed  # (else, `enumerate(x, 1)`: refused below)
    if kinds == {"rebind", "item"} and all(
        _never_updated_in_place(ctx, loop.body, n) for n in updated
    ):
        # (`y = y * 0.5` then `y[j] = v` in `for v in y`: the iterated array never changes)
        kinds = {"rebind"}
    if kinds and kinds != {"rebind"}:
        ctx.refuse(
            "AJ932",
            loop,
            "the loop both updates items of the array it iterates over and rebinds it; "
            "left as Python"
            if "rebind" in kinds or "mixed" in kinds
            else f"the loop updates items of `{sorted(updated)[0]}` and iterates over a view "
            f"of it (a slice, `reversed`, `.T`, another name): NumPy's iteration reads the "
            f"updated values, a converted loop the values before the loop; left as Python",
        )
        _restore_item_updates(ctx, loop, updated)
        _keep_writes(loop.body, updated)
        return None
    if found is None:
        return None
    # (`x = x * 2` in `for v in x`: Python iterates the original array, as scan does)
    # scan reads its sequence once, before the first iteration, as Python's `for` does
    xs, first, _ = found
    plan = _Plan(
        "scan",
        "AJ204",
        f"`for` over the leading axis of an array -> `{lax}.scan`",
        xs=xs,
        xs_first=first,
        targets=targets,
        index_checks=index_names,
    )
    plan.hoisted += hoist
    if isinstance(loop.target, gast.Name):
        plan.elem = loop.target.id
    else:
        plan.elem = ctx.fresh("item") if _taken(ctx, "item") else "item"
        plan.index_prelude = replace(
            f"{_PH.format('T')} = {plan.elem}", **{_PH.format("T"): loop.target}
        )
    return plan


def _restore_item_updates(ctx: Context, loop, names: set[str]) -> None:
    """Put back the item assignments (``x[j] = v``, rewritten to ``x = x.at[j].set(v)``) of a
    ``for v in x`` loop left as Python: iterating an immutable jax array while rebinding ``x``
    would read the rows ``x`` had before the loop, where NumPy reads the updated ones (a silently
    different result). As written, the loop fails under jit, with the refusal that says why."""
    restored = set()
    for block, st in list(_blocks_of(loop.body)):
        orig = getattr(st, "_aj_replaces", None)
        if orig is None or not getattr(orig, "_aj_orig", False) or isinstance(orig, _COMPOUND):
            continue
        if not any(_write_kind(st, n) == "item" for n in names):
            continue
        i = next((k for k, b in enumerate(block) if b is st), None)
        if i is None:
            continue
        while i + 1 < len(block) and getattr(block[i + 1], "_aj_replaces", None) is orig:
            del block[i + 1]  # every statement the item assignment became
        block[i] = orig
        restored.add(ctx.location(orig))
    if restored:
        # the array-update rule reported rewriting them: the pipeline drops those changes
        ctx.fn._aj_retracted = getattr(ctx.fn, "_aj_retracted", set()) | restored
        ctx.tree_changed = True


_COMPOUND = (gast.For, gast.While, gast.If, gast.With, gast.Try)


def _updated_while_iterated(ctx: Context, an: FunctionAnalysis, loop) -> tuple[set[str], set]:
    """The names whose arrays a ``for`` iterates (`y`, `y[::-1]`, `reversed(y)`, `w` of
    `w = y`) that its body writes, and how it writes them (:func:`_write_kind`): NumPy's
    iteration reads the array as the body leaves it at each step, a converted (or jax)
    iteration the array before the loop."""
    updated: set[str] | None = loop.__dict__.get("_aj_updated_while_iterated")
    if updated is None:
        updated = loop._aj_updated_while_iterated = _updated_names(ctx, an, loop)
    kinds = {
        _write_kind(st, n, ctx.scope) for st in _own_statements(loop.body) for n in updated
    }
    if updated and "mixed" not in kinds:
        # (and the functions the body defines, a converted inner loop's `_body` among them:
        # `y = h(y, t)` there changes the iterated array as it did before that conversion)
        inner = [
            st
            for d in walk_statements(loop.body)
            if isinstance(d, (gast.FunctionDef, gast.AsyncFunctionDef))
            for st in walk_statements(d.body, True)
        ]
        if any(_write_kind(st, n, ctx.scope) == "mixed" for st in inner for n in updated):
            kinds.add("mixed")
    kinds.discard(None)
    return updated, kinds


def _updated_names(ctx: Context, an: FunctionAnalysis, loop) -> set[str]:
    """The names of :func:`_updated_while_iterated`, found the first time it is asked, before
    the loops inside are converted: the carry of a converted loop (`x, y = carry`) makes the
    may-share analysis join the arrays it holds, which NumPy never shared (asked again, the
    outer loop would be left as Python around an inner loop converted on the first answer)."""
    env = an.env_before(loop)
    viewed = views_of(loop.iter)
    for n in list(viewed):
        viewed.update(viewed_through(env, n))
    writes = an.activity.of_block(loop.body).writes
    updated = {
        n for n in writes if n in viewed or viewed.intersection(viewed_through(env, n))
    }
    arrays = {n for n in writes - updated if (v := env.get(n)) is not None and v.traced}
    if arrays and any(
        _write_kind(st, n) == "item" for st in _own_statements(loop.body) for n in arrays
    ):
        # (`rows = list(x)`, `rows = [x[0], x[1]]`: an array the body updates items of that
        # the may-share analysis joins with the iterated names)
        shared = set().union(*(ctx.sharing().shared_with(n) for n in viewed))
        updated |= arrays & shared
    return updated


def _write_kind(st, name: str, scope=None) -> str | None:
    """How ``st`` writes ``name``: "item" for an item update rewritten to ``.at[]`` (NumPy's
    in-place meaning), "rebind" for any other assignment, None when it does not. With the
    module's ``scope``: "mixed" for `x = h(x, ...)` of a function of the module that changes
    that parameter's items in place (NumPy's `x` changes before it is rebound)."""
    if isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef)):
        return None
    if name not in expr_activity(getattr(st, "target", None)).writes and not any(
        name in expr_activity(t).writes for t in getattr(st, "targets", []) or []
    ):
        return None
    orig = getattr(st, "_aj_replaces", None)
    if isinstance(orig, _COMPOUND):
        # an inner loop or `if` already converted (`y = lax.fori_loop(...)`): how the code it
        # replaced wrote the name (`y[:k] = v` inside it is an item update, NumPy's in place)
        blocks = _compound_blocks(orig)
        inner = {
            _write_kind(s, name, scope) for b in blocks for s in _own_statements(b or [])
        }
        inner.discard(None)
        if inner == {"item"}:
            return "item"
        # both (`y = y * 0.5` then `y[j] = v`): a rebinding where it surely comes before any
        # item update (the iterated array is never updated), else both at once
        if "mixed" not in inner and (
            inner <= {"rebind"}
            or isinstance(orig, (gast.For, gast.While, gast.If))
            and all(_rebinds_first(b or [], name) for b in blocks)
        ):
            return "rebind"
        return "mixed"
    targets = getattr(orig, "targets", None) or [getattr(orig, "target", None)]
    if orig is not None and any(isinstance(t, gast.Subscript) for t in targets):
        return "item"
    if scope is not None and _passed_to_a_changer(scope, getattr(st, "value", None), name):
        return "mixed"
    return "rebind"


def _passed_to_a_changer(scope, value, name: str) -> bool:
    """Whether ``value`` is a call `h(..., name, ...)` of a function of the module that changes
    items of the parameter it passes ``name`` for (`v[0] = b`, `v[-1] += b`)."""
    if not (
        isinstance(value, gast.Call)
        and isinstance(value.func, gast.Name)
        and value.func.id in scope.functions
    ):
        return False
    fn = scope.functions[value.func.id]
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    for k, a in enumerate(value.args):
        if isinstance(a, gast.Starred):
            return False
        if isinstance(a, gast.Name) and a.id == name and k < len(params):
            if params[k] in _items_changed(fn):
                return True
    return any(
        isinstance(kw.value, gast.Name) and kw.value.id == name and kw.arg in _items_changed(fn)
        for kw in value.keywords
    )


def _items_changed(fn) -> set[str]:
    """The names whose items a module function (an `ast` node) assigns (`v[0] = b`, `v[i] +=
    b`, `v[i][j] = b`, `v[0]: float = b`, `v[0], w = b, c`), found once."""
    found = fn.__dict__.get("_aj_items_changed")
    if found is None:
        found = set()
        for n in walk_nodes(fn):
            if not isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                continue
            targets = list(n.targets if isinstance(n, ast.Assign) else [n.target])
            while targets:
                t = targets.pop()
                if isinstance(t, (ast.Tuple, ast.List)):
                    targets.extend(t.elts)
                elif isinstance(t, ast.Starred):
                    targets.append(t.value)
                while isinstance(t, ast.Subscript):
                    t = t.value
                    if isinstance(t, ast.Name):
                        found.add(t.id)
        fn._aj_items_changed = found
    return found


def _start_ints(fn, an, loop, n: str) -> list[int] | None:
    """The ints of the literal that last binds ``n`` before ``loop`` in the loop's own block
    (`r = 16777217`), where that is how it is bound there."""
    block = block_of(fn.body, loop)
    if block is None:
        return None
    k = next(i for i, st in enumerate(block) if st is loop)
    for st in reversed(block[:k]):
        if n not in an.activity.of(st).writes:
            continue
        if (
            isinstance(st, gast.Assign)
            and len(st.targets) == 1
            and isinstance(st.targets[0], gast.Name)
        ):
            return literal_ints(st.value)
        return None
    return None


def _another_kind_given(ctx: Context, an, loop, n: str, kind: str) -> str | None:
    """A dtype kind other than ``kind`` (`bool`, `int`, `float`) that an assignment in the
    loop's body surely gives ``n`` (`r = x * 0.5`, `r += 0.5`, `t, s = t + 0.5, s + 1`), if
    any."""
    for st in walk_statements(loop.body):
        for value in _values_given(st, n):
            got = an.value(value, st).dtype
            if got is None and floating(ctx.scope, value) is True:
                got = "float"
            if got in ("bool", "int", "float") and got != kind:
                return got
    return None


def _values_given(st, n: str) -> list:
    """The expressions an assignment statement gives the name ``n``: `n = v` and `n += v` (as
    `n + v`), and the item of a tuple assigned item by item (`t, n = u, v`)."""
    if isinstance(st, gast.AugAssign):
        given = isinstance(st.target, gast.Name) and st.target.id == n
        return [assigned_value(st)] if given else []
    if not isinstance(st, gast.Assign):
        return []
    out = []
    for t in st.targets:
        if isinstance(t, gast.Name) and t.id == n:
            out.append(st.value)
        elif (
            isinstance(t, (gast.Tuple, gast.List))
            and isinstance(st.value, (gast.Tuple, gast.List))
            and len(t.elts) == len(st.value.elts)
            and not any(isinstance(e, gast.Starred) for e in (*t.elts, *st.value.elts))
        ):
            pairs = zip(t.elts, st.value.elts, strict=True)
            out.extend(v for e, v in pairs if isinstance(e, gast.Name) and e.id == n)
    return out


def _compound_blocks(st) -> list[list]:
    """The statement blocks of a loop, `if`, `with` or `try` (body, else, finally, handlers)."""
    blocks = [st.body, getattr(st, "orelse", None) or [], getattr(st, "finalbody", None) or []]
    return blocks + [h.body for h in getattr(st, "handlers", None) or []]


def _rebinds_first(stmts: list, name: str) -> bool:
    """Whether ``name`` is surely rebound (``y = ...``) in ``stmts`` before any item update of
    it runs: the array it held before the block is then never updated in place."""
    for st in stmts:
        if isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        if isinstance(st, _COMPOUND):
            # a Python loop or `if`: each of its blocks must rebind first; after it the name
            # may still hold the old array, so what follows counts too
            blocks = _compound_blocks(st)
            writes = any(_write_kind(s, name) for b in blocks for s in _own_statements(b or []))
            if writes and not (
                isinstance(st, (gast.For, gast.While, gast.If))
                and all(_rebinds_first(b or [], name) for b in blocks)
            ):
                return False
            continue
        kind = _write_kind(st, name)
        if kind is None:
            continue
        if kind != "rebind":
            return False  # an item update that may run first
        if not isinstance(st, _COMPOUND) and not isinstance(
            getattr(st, "_aj_replaces", None), _COMPOUND
        ):
            return True  # runs whenever the block gets here
    return True


def _never_updated_in_place(ctx: Context, stmts: list, name: str) -> bool:
    """Whether the array ``name`` holds before ``stmts`` is never updated in place by them:
    ``name`` is surely rebound before any item update runs (:func:`_rebinds_first`), and each
    rebinding of it there makes a new array (`y = y * 0.5`, `y = jnp.where(...)`), never a view
    of one (`y = y[::-1]`: NumPy's `y[j] = v` then writes into the array it was before)."""
    return _rebinds_first(stmts, name) and _fresh_rebinds(ctx, stmts, name)


def _fresh_rebinds(ctx: Context, stmts: list, name: str) -> bool:
    """Whether every rebinding of ``name`` in ``stmts`` (item updates aside; in the code an
    inner loop or `if` already converted replaced, too) assigns a new array: arithmetic, a
    constant, or a call of a jax function that returns no view of its arguments."""
    for st in _own_statements(stmts):
        kind = _write_kind(st, name)
        if kind is None:
            continue
        orig = getattr(st, "_aj_replaces", None)
        if isinstance(orig, _COMPOUND):
            if not all(_fresh_rebinds(ctx, b, name) for b in _compound_blocks(orig)):
                return False
            continue
        if kind == "item":
            continue
        if not (
            isinstance(st, gast.Assign)
            and len(st.targets) == 1
            and isinstance(st.targets[0], gast.Name)
            and _makes_new_array(ctx, st.value)
        ):
            return False
    return True


def _makes_new_array(ctx: Context, value) -> bool:
    if isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.Constant)):
        return True
    if isinstance(value, gast.Call) and not views_of(value):
        dotted = dotted_name(value.func)
        qualified = ctx.scope.qualified(dotted) if dotted is not None else None
        return qualified is not None and qualified.startswith("jax.")
    return False


def _iterated_names(node) -> set[str]:
    """The arrays a ``for`` header iterates as they change (``y``, ``enumerate(y)``,
    ``zip(y, z)``, ``y[1:]``), not those it only reads once (``range(len(y))``)."""
    if isinstance(node, gast.Call):
        if dotted_name(node.func) in ("enumerate", "zip", "reversed"):
            return set().union(*(_iterated_names(a) for a in node.args))
        return set()  # range(...), a function's result: a sequence made before the loop
    return {n.id for n in walk_nodes(node) if isinstance(n, gast.Name)}


def _keep_writes(stmts: list, names: set[str]) -> None:
    """Mark the statements of a loop left as Python that write ``names`` as kept: a later
    rewrite of an ``if`` around them (``y = jnp.where(c, y * 0.5, y)``) would turn a rebinding
    on some paths into one on every path, which changes what the loop iterates over."""
    for st in _own_statements(stmts):
        if any(_write_kind(st, n) is not None for n in names):
            st._aj_refused = "AJ932"


def _mixed_iteration_loops(ctx: Context, stmts: list) -> dict[int, tuple[int, str]]:
    """Loops inside a ``for v in y`` that both updates items of ``y`` and rebinds it, an item
    update possibly first, or that only updates items of an array it iterates otherwise than
    row by row from the updated array (a view, `reversed(y)`, an array that may share with it)
    (id -> that ``for``'s line and the name). Such a ``for`` is left as Python (AJ932):
    converting a loop inside it first (innermost first) would leave ``y = lax.fori_loop(...)``,
    which reads as a rebinding, and the ``for``, left as Python, would iterate an array that
    no longer changes."""
    out: dict[int, tuple[int, str]] = {}
    for _block, st in _blocks_of(stmts):
        if not isinstance(st, gast.For):
            continue
        if not _iterated_names(st.iter):
            continue  # (`range(...)`, a function's result: a sequence made before the loop)
        updated, kinds = _updated_while_iterated(ctx, ctx.analysis, st)
        # (a rebinding too: below, where it surely comes first the iterated array never changes)
        if kinds == {"item"} and updated != _plainly_iterated(st.iter):
            for inner in _own_statements(st.body):
                if isinstance(inner, (gast.For, gast.While)) and any(
                    _write_kind(s, n) is not None
                    for s in _own_statements(inner.body)
                    for n in updated
                ):
                    out.setdefault(id(inner), (st.lineno, sorted(updated)[0]))
        for name in _iterated_names(st.iter):
            kinds = {_write_kind(s, name) for s in _own_statements(st.body)} - {None}
            if len(kinds) < 2 and "mixed" not in kinds:
                continue
            if "mixed" not in kinds and _never_updated_in_place(ctx, st.body, name):
                continue
            for inner in _own_statements(st.body):
                if isinstance(inner, (gast.For, gast.While)) and any(
                    _write_kind(s, name) is not None for s in _own_statements(inner.body)
                ):
                    out.setdefault(id(inner), (st.lineno, name))
    return out


def _plainly_iterated(node) -> set[str]:
    """``{x}`` for ``x`` and ``enumerate(x)``: what `_indexed_plan` reads row by row."""
    if isinstance(node, gast.Call) and dotted_name(node.func) == "enumerate" and node.args:
        node = node.args[0]
    return {node.id} if isinstance(node, gast.Name) else set()


def _indexed_plan(ctx: Context, an: FunctionAnalysis, loop, targets: set[str], lax: str):
    """``for v in x`` / ``for i, v in enumerate(x)`` over an array the loop updates in place: a
    fori_loop that reads ``v = x[i]`` from the updated array, as NumPy's iteration does."""
    it = loop.iter
    index: str | None = None
    value_target = loop.target
    if isinstance(it, gast.Call) and dotted_name(it.func) == "enumerate" and len(it.args) == 1:
        if not (isinstance(loop.target, gast.Tuple) and len(loop.target.elts) == 2):
            return None
        first_t, value_target = loop.target.elts
        if not isinstance(first_t, gast.Name):
            return None
        index = first_t.id
        it = it.args[0]
    if not isinstance(it, gast.Name):
        return None
    index = index or ctx.fresh("k")
    plan = _Plan(
        "fori",
        "AJ204",
        f"`for` over an array the loop updates -> `{lax}.fori_loop` reading each row from the "
        f"updated array (NumPy's iteration)",
        targets=targets,
        # as for a range: a loop left by a traced `break`/`return` fails under jit as Python
        index_checks={index} if index in targets and not _traced_exit(an, loop) else set(),
    )
    plan.lo = replace_expr("0")
    plan.hi = replace_expr(f"len({it.id})")
    plan.index = index
    plan.index_prelude = replace(
        f"{_PH.format('T')} = {it.id}[{index}]", **{_PH.format("T"): value_target}
    )
    return plan


def _python_indexed(ctx: Context, loop, plan: _Plan) -> None:
    """Keep a Python loop over an array it updates in place, but iterate by index, so that each
    row is read from the updated array as NumPy's iteration does (iterating the immutable jax
    array would read the rows it had before the loop)."""
    loop.target = replace_expr(plan.index)
    loop.target.ctx = gast.Store()
    loop.iter = replace_expr(f"range({_PH.format('N')})", **{_PH.format("N"): plan.hi})
    loop.body = list(plan.index_prelude) + list(loop.body)
    ctx.change(
        "AJ204",
        loop,
        "kept as a Python loop over an array it updates in place: iterates by index, reading "
        "each row from the updated array as NumPy does",
    )


def _taken(ctx: Context, name: str) -> bool:
    return name in ctx._taken()


# -- checks --------------------------------------------------------------------------------


def _none_before(fn, loop, n: str) -> bool:
    """Whether a statement before ``loop`` (outside it) binds ``n`` to `None` (`best = None`,
    `best: float | None = None`)."""
    inside = {id(st) for st in walk_statements([loop])}
    for st in walk_statements(fn.body):
        if id(st) in inside or (getattr(st, "lineno", None) or 0) >= loop.lineno:
            continue
        if isinstance(st, gast.Assign):
            targets, value = st.targets, st.value
        elif isinstance(st, gast.AnnAssign) and st.value is not None:
            targets, value = [st.target], st.value
        else:
            continue
        if isinstance(value, gast.Constant) and value.value is None:
            if any(isinstance(t, gast.Name) and t.id == n for t in targets):
                return True
    return False


def _run_after(fn, loop) -> list:
    """The statements after ``loop``, and those of the functions defined there (a converted
    loop's `_body`, a branch function: they read the function's names when called; converting
    the output again must find the same reads)."""
    after = statements_after(fn, loop)
    inner = [
        st
        for d in after
        if isinstance(d, (gast.FunctionDef, gast.AsyncFunctionDef))
        for st in walk_statements(d.body, into_functions=True)
    ]
    return after + inner if inner else after


def _loops_around(fn, loop) -> list:
    """The `for` / `while` statements of ``fn`` (not of its nested functions) that hold
    ``loop`` in their bodies."""
    return [
        st
        for st in walk_statements(fn.body)
        if st is not loop
        and isinstance(st, (gast.For, gast.While))
        and any(inner is loop for inner in walk_statements(st.body))
    ]


_SAME_FOR_INT_AND_FLOAT_OPS = (
    gast.Add, gast.Sub, gast.Mult, gast.Div, gast.FloorDiv, gast.Mod, gast.Pow,
)  # fmt: skip
_ORDERING_OPS = (gast.Lt, gast.LtE, gast.Gt, gast.GtE, gast.Eq, gast.NotEq)


def _loop_values(an: FunctionAnalysis, loop, name: str) -> list | None:
    """Every expression the loop's body gives ``name`` (`n = v`, `n += v` as `n + v`, an item
    of a tuple assigned item by item), or None where one of its writes is another kind (a
    `for` target, a call's unpacking, a `with ... as n`)."""
    out: list = []
    for st in walk_statements(loop.body):
        if name not in an.activity.of(st).writes or isinstance(st, _HOLDING_ASSIGNMENTS):
            continue  # (a compound statement's assignments are walked themselves)
        if isinstance(st, gast.For) and not any(
            isinstance(t, gast.Name) and t.id == name for t in walk_nodes(st.target)
        ):
            continue
        given = _values_given(st, name)
        if not given:
            return None
        out += [(v, st) for v in given]
    return out


_HOLDING_ASSIGNMENTS = (gast.If, gast.While, gast.With, gast.Try)


def _carried_source(ctx: Context, an: FunctionAnalysis, loop, name: str, after: list):
    """The :class:`~autojit.analysis.dtype_source.DtypeSource` of the arrays the loop makes
    ``name`` from (`total = total + x[i]`: `x`), where every value it gives it has one and
    none of those arrays is rebound in the loop or after it; else None."""
    values = _loop_values(an, loop, name)
    sources = [dtype_source(v, ctx.scope.qualified) for v, _st in values or ()]
    if not values or None in sources:
        return None
    arrays = set().union(*(src.arrays for src in sources if src is not None)) - {name}
    rebound = set().union(
        *(an.activity.of(st).writes for st in [*walk_statements(loop.body), *after])
    )
    if not arrays or arrays & rebound:
        return None
    return DtypeSource(frozenset(arrays), any(src.floats for src in sources if src), False)


def _trip_count_traced(an: FunctionAnalysis, loop) -> bool:
    """Whether the number of times the loop runs is known only at run time: a `while`, or a
    `range` with a traced bound. (A static count, `range(n)` of a static `n`, an array's rows,
    runs no times only for an empty range, which the converted loop takes as the promoted
    start: README, Limitations.)"""
    if isinstance(loop, gast.While):
        return True
    it = getattr(loop, "iter", None)
    if isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and it.func.id == "range":
        return not all(an.value(a, loop).static for a in it.args)
    return False


def _stays_weak(an: FunctionAnalysis, loop, name: str) -> bool:
    """Whether every value the loop gives ``name`` is made of it, Python number literals and
    Python values only (`h = (h * 31) % 1000`, also under a traced `if`): from a Python number
    start the carried value stays weakly typed, as Python's number is."""
    values = _loop_values(an, loop, name)
    return values is not None and all(
        _made_of_python_values(an, v, st, name) for v, st in values
    )


def _made_of_python_values(an: FunctionAnalysis, node, st, name: str) -> bool:
    if isinstance(node, gast.Constant):
        return type(node.value) in (int, float)
    if isinstance(node, gast.Name):
        return node.id == name or an.value(node, st).static
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        return _made_of_python_values(an, node.operand, st, name)
    if isinstance(node, gast.BinOp):
        return _made_of_python_values(an, node.left, st, name) and _made_of_python_values(
            an, node.right, st, name
        )
    return False


def _read_telling_int_from_float(fn, an: FunctionAnalysis, name: str):
    """The first expression of ``fn`` (nested functions' too) reading ``name`` where a Python
    int gives another result than the float of the same value, or None. The same: a
    comparison (`t < x`), and arithmetic with a float (a Python float, a float array: `y +
    t` is float either way, of `y`'s width); anything else tells them apart (`y * t` of an
    int8 `y`, `return t`, `f(t)`)."""
    for st in walk_statements(fn.body, into_functions=True):
        todo = [st]
        while todo:
            parent = todo.pop()
            for child in child_nodes(parent):
                if isinstance(child, gast.stmt):
                    continue  # (a statement of its own: walked as one)
                if (
                    isinstance(child, gast.Name)
                    and child.id == name
                    and isinstance(child.ctx, gast.Load)
                    and not _same_for_int_and_float(an, parent, child, st)
                ):
                    return parent if isinstance(parent, gast.expr) else child
                todo.append(child)
    return None


def _same_for_int_and_float(an: FunctionAnalysis, parent, read, st) -> bool:
    if isinstance(parent, gast.Compare):
        return all(isinstance(op, _ORDERING_OPS) for op in parent.ops)
    if isinstance(parent, gast.BinOp) and isinstance(parent.op, _SAME_FOR_INT_AND_FLOAT_OPS):
        other = parent.right if parent.left is read else parent.left
        if isinstance(other, gast.Name) and other.id == read.id:
            return False
        return an.value(other, st).dtype == "float"
    return False


# jax.numpy functions whose result has another shape than their array arguments (the loop's
# own state among them: `x = jnp.append(x, v)` grows it at each iteration)
_RESHAPING_FUNCTIONS = frozenset(
    f"jax.numpy.{n}"
    for n in """append concatenate stack hstack vstack dstack column_stack row_stack pad repeat
    tile insert delete expand_dims outer kron atleast_2d atleast_3d""".split()
)


def _reshaped_state(ctx: Context, an: FunctionAnalysis, loop, plan: _Plan):
    """(name, assignment) where the loop body gives a name of its state a value made from
    that name with another shape (`x = x[1:]`, `x = x[0]`, `x = x[None]`, `x = jnp.append(x,
    v)`): lax's loops carry one shape, and their carry-type error names no rule. None where
    none is found (a shape the analysis cannot see is left to jax)."""
    state: set[str] | None = None
    for st in _own_statements(loop.body):
        if not isinstance(st, gast.Assign):
            continue
        for name, value in named_pairs(st) or []:
            if not _reshapes(ctx, value, name) or an.value(value, st).static:
                continue  # (a Python tuple or list, `dims = dims[:-1]`: AJ932's question)
            if state is None:
                state = set(_state_names(an, loop, plan))
            if name in state:
                return name, st
    return None


def _reshapes(ctx: Context, value, name: str) -> bool:
    """Whether ``value`` is ``name`` indexed to another shape (a slice that may leave out an
    item, an integer or `None` index), or a reshaping jax.numpy function given ``name``;
    also inside arithmetic with values that do not read ``name`` (`x[1:] * 0.5 + a`; not `x -
    x[0]`, which broadcasts back to the shape of `x`)."""
    if isinstance(value, gast.BinOp):
        for one, other in ((value.left, value.right), (value.right, value.left)):
            if _reshapes(ctx, one, name) and not any(
                isinstance(n, gast.Name) and n.id == name for n in walk_nodes(other)
            ):
                return True
        return False
    if isinstance(value, gast.UnaryOp):
        return _reshapes(ctx, value.operand, name)
    if isinstance(value, gast.Subscript):
        if not (isinstance(value.value, gast.Name) and value.value.id == name):
            return False
        parts = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
        return any(_reshaping_index(p) for p in parts)
    if isinstance(value, gast.Call):
        fname = dotted_name(value.func)
        if not fname or ctx.scope.qualified(fname) not in _RESHAPING_FUNCTIONS:
            return False
        args = [*value.args, *(k.value for k in value.keywords)]
        for a in args:
            items = a.elts if isinstance(a, (gast.Tuple, gast.List)) else [a]
            if any(isinstance(e, gast.Name) and e.id == name for e in items):
                return True
    return False


def _reshaping_index(part) -> bool:
    """An index part that changes the shape it selects from: an int or `None` (an axis taken
    away or added), or a slice other than the whole axis (`x[1:]`, `x[:k]`, `x[::2]`)."""
    if isinstance(part, gast.Constant) and part.value is None:
        return True
    if isinstance(part, gast.Slice):
        whole = part.lower is None and part.upper is None
        return not (whole and (part.step is None or int_constant(part.step) in (1, -1)))
    return int_constant(part) is not None


def _own_statements(stmts):
    """Every statement of a block, nested ones included; nested functions are yielded but not
    entered."""
    for s in stmts:
        yield s
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        for f in ("body", "orelse", "finalbody"):
            yield from _own_statements(getattr(s, f, None) or [])
        for h in getattr(s, "handlers", None) or []:
            yield from _own_statements(h.body)


def _exits(stmts, nested: bool = False):
    """(kind, stmt) for break/continue that leave this loop and every return inside it."""
    for s in stmts:
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        if isinstance(s, (gast.Break, gast.Continue)) and not nested:
            yield ("break" if isinstance(s, gast.Break) else "continue"), s
        elif isinstance(s, gast.Return):
            yield "return", s
        inner_nested = nested or isinstance(s, (gast.For, gast.While))
        for f in ("body", "orelse"):
            sub = getattr(s, f, None) or []
            if isinstance(s, (gast.For, gast.While)) and f == "orelse":
                yield from _exits(sub, nested)
            else:
                yield from _exits(sub, inner_nested)
        for h in getattr(s, "handlers", None) or []:
            yield from _exits(h.body, inner_nested)


# handlers that catch an IndexError (a bare `except:` too)
_INDEX_ERROR_CATCHERS = frozenset({"IndexError", "LookupError", "Exception", "BaseException"})


def _under_index_error_handler(fn, node) -> bool:
    """Whether ``node`` stands in the body of a `try` of ``fn`` that catches IndexError."""
    for st in walk_statements(fn.body):
        if not isinstance(st, gast.Try) or not any(
            h.type is None
            or any(
                (dotted_name(t) or "").rsplit(".", 1)[-1] in _INDEX_ERROR_CATCHERS
                for t in (h.type.elts if isinstance(h.type, gast.Tuple) else [h.type])
            )
            for h in st.handlers
        ):
            continue
        if any(s is node for s in walk_statements(st.body)):
            return True
    return False


def _body_problem(ctx: Context, an: FunctionAnalysis, block: list, loop, plan: _Plan):
    """(code, node, reason) when the loop body cannot become a function; else None."""
    stacked = set(_stacked_appends(ctx, an, block, loop, plan).values())
    named = walrus_in(loop.test) if isinstance(loop, gast.While) else None
    if named is not None:
        return (
            "AJ931",
            loop,
            f"`{gast.unparse(named).strip()}` in the loop's condition binds `{named.target.id}`, which the "
            f"condition function of a converted loop would bind as its own; assign it in the "
            f"body (and before the loop) instead",
        )
    looked = scope_introspection(loop.body, ctx.scope)
    if looked is not None:
        return (
            "AJ931",
            loop,
            f"`{looked}()` in the loop reads the function's local names; in a loop body "
            f"function it would read that function's instead; left as Python",
        )
    defined = [
        st
        for st in _own_statements(loop.body)
        if isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef))
    ]
    if defined:
        after = _live_after(an, loop) | _exposed_reads(an, loop.body)
        kept = next((d for d in defined if d.name in after), None)
        if kept is not None:
            what = "class" if isinstance(kept, gast.ClassDef) else "def"
            return (
                "AJ931",
                kept,
                f"`{what} {kept.name}` in the loop body binds `{kept.name}`, which is read "
                f"after it (or by the next iteration before it): a converted body is a function "
                f"of its own, where `{kept.name}` would be its own; define it before the loop",
            )
    reshaped = _reshaped_state(ctx, an, loop, plan)
    if reshaped is not None:
        name, st = reshaped
        return (
            "AJ937",
            st,
            f"`{gast.unparse(st).strip()}` gives `{name}`, which the loop carries, another "
            f"shape than it had (each iteration may change it again): a converted loop carries "
            f"one shape; left as Python, which jax unrolls where the range is static (else "
            f"keep a fixed-size array and a count of the items in use)",
        )
    if _under_index_error_handler(ctx.fn, loop):
        return (
            "AJ931",
            loop,
            "the loop stands in a `try` whose `except` catches IndexError: NumPy raises it for "
            "an index out of range, a converted loop's traced index is clamped and never "
            "raises; left as Python",
        )
    effect = (
        effect_in(ctx.fn, ctx.scope, an, [loop.test], loop) if isinstance(loop, gast.While) else None
    )
    if effect is not None:
        return (
            "AJ931",
            loop,
            f"`{gast.unparse(effect).strip()}` in the loop's condition has an effect: Python runs "
            f"it before every iteration, a converted loop's condition function is traced once "
            f"(the loop would not end, or end elsewhere); left as Python",
        )
    if zero_argument_super(ctx.source.text_, loop.body) is not None:
        return (
            "AJ931",
            loop,
            "`super()` in the loop: in a loop body function it cannot find its class; write "
            "`super(Class, self)`",
        )
    changer = effectful_call(ctx.fn, ctx.scope, loop.body)
    if changer is not None:
        return (
            "AJ931",
            loop,
            f"`{changer}` changes something outside itself and is called in the loop: a "
            f"converted body is traced once, so the change would happen once; left as Python",
        )
    body_writes = an.activity.of_block(loop.body).writes
    stale = stale_closure_read(
        ctx.fn, loop.body + ([gast.Expr(value=loop.test)] if isinstance(loop, gast.While) else []),
        body_writes,
    )
    if stale is not None:
        return (
            "AJ931",
            loop,
            f"`{stale[0]}` reads `{stale[1]}`, which the loop changes: in a loop body function it "
            f"would still read the value from before the loop (Python's closure sees each new "
            f"one); pass `{stale[1]}` to it",
        )
    outer = declared_outer(ctx.fn)
    written = sorted(outer & body_writes) if outer else []
    if written:
        return (
            "AJ931",
            loop,
            f"`{written[0]}` is declared `global`/`nonlocal` and assigned in the loop: in a loop "
            f"body function it would be that function's own name; left as Python",
        )
    for s in _own_statements(loop.body):
        if isinstance(s, _FORBIDDEN):
            kind = type(s).__name__.lower()
            return (
                "AJ931",
                s,
                f"a `{kind}` statement inside the loop cannot move into a loop body function; "
                f"left as Python",
            )
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef)):
            continue
        for n in _shallow(s):
            if isinstance(n, (gast.Yield, gast.YieldFrom, gast.Await)):
                return (
                    "AJ931",
                    s,
                    "a generator or coroutine loop cannot be traced; left as Python",
                )
            if isinstance(n, gast.BoolOp) and short_circuited_walrus(n) is not None:
                return (
                    "AJ931",
                    s,
                    f"`{gast.unparse(short_circuited_walrus(n)).strip()}` runs only when "
                    f"Python's `and`/`or` reaches it; in a traced loop body every operand is "
                    f"computed; assign it in a statement",
                )
            if isinstance(n, (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)):
                named = walrus_in(n)
                if named is not None:
                    return (
                        "AJ931",
                        s,
                        f"`{gast.unparse(named).strip()}` in a comprehension binds `{named.target.id}` of "
                        f"the function, which a loop body function would bind as its own; "
                        f"assign it in a statement",
                    )
        targets = []
        if isinstance(s, (gast.Assign,)):
            targets = s.targets
        elif isinstance(s, (gast.AugAssign, gast.AnnAssign)):
            targets = [s.target]
        for t in targets:
            for n in walk_nodes(t):
                if isinstance(n, (gast.Subscript, gast.Attribute)) and isinstance(
                    n.ctx, gast.Store
                ):
                    return (
                        "AJ932",
                        s,
                        "the loop changes a Python object in place (item or attribute "
                        "assignment that is not an array update); a traced loop body can only "
                        "return new values; left as Python",
                    )
        # a method that changes its object, inside an expression (`x + stack.pop()`,
        # `[log.append(v) for v in vs]`): the body is traced once, so it would run once
        # (a statement `log.append(v)` of its own is looked at below)
        for n in _shallow(s):
            own_value = n is getattr(s, "value", None)
            if container_change(an, n, s) and not (
                own_value and (s in stacked or isinstance(s, gast.Expr))
            ):
                base = dotted_name(n.func.value) or "the object"
                return (
                    "AJ935",
                    s,
                    f"`{base}.{n.func.attr}(...)` changes a Python object at each iteration; "
                    f"a converted body is traced once, so it would change it once; left as "
                    f"Python",
                )
        if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call):
            f = s.value.func
            if s in stacked:
                continue
            if isinstance(f, gast.Attribute) and f.attr in CHANGING_METHODS:
                base = dotted_name(f.value)
                v = an.value(f.value, s)
                # (a method no jax array has, `out.append(v)` of a parameter the analysis takes
                # for traced: a Python container all the same)
                if v.kind in (Kind.LIST, Kind.DICT, Kind.NUMPY, Kind.UNKNOWN) or (
                    f.attr not in _ARRAY_METHODS and not _at_property(f.value)
                ):
                    what = "a list" if v.kind is Kind.LIST else "a Python object"
                    if _static_count(an, loop):
                        # (appended under a condition, or read as a list after the loop)
                        why = (
                            "it is not only stacked after the loop with one item per "
                            "iteration, so it has no `lax.scan` form; left as Python, which "
                            "jax unrolls (the count is known when it traces)"
                        )
                    else:
                        why = (
                            "the number of iterations is not known when jax traces, so it has "
                            "no fixed-shape array form; left as Python (preallocate an array "
                            "and update it with `.at[i].set(...)`)"
                        )
                    return (
                        "AJ935",
                        s,
                        f"`{base}.{f.attr}(...)` changes {what} in place at each iteration; "
                        f"{why}",
                    )
            fname = dotted_name(f) or ""
            qual = ctx.scope.qualified(fname) or fname
            if not (qual.startswith("jax.") or fname == "print" or _at_property(
                getattr(f, "value", None)
            )):
                # (its result dropped: called for what it does, `add(v)` of `add = out.append`,
                # `log(step, loss)`, `c.tick()`)
                return (
                    "AJ931",
                    s,
                    f"`{gast.unparse(s.value).strip()}` is called for its effect (its result is "
                    f"not used) at each iteration; a converted loop's body is traced once, so "
                    f"it would run once; left as Python",
                )
    for s in _own_statements(loop.body):
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef)):
            continue
        for n in _shallow(s):
            if isinstance(n, gast.Call) and stateful_call(ctx.scope, an, n, s):
                return (
                    "AJ931",
                    s,
                    f"`{dotted_name(n.func)}(...)` gives a new Python value (an iterator's "
                    f"next, a random number) or has a Python effect at each call: a converted "
                    f"loop's body is traced once, so it would run once for all iterations; "
                    f"left as Python",
                )
    for kind, s in _exits(loop.body):
        if not _exit_reachable_by_ifs(loop.body, s):
            return (
                "AJ931",
                s,
                f"`{kind}` inside a nested loop, `with` or `try` of a traced loop cannot become "
                f"a flag; left as Python",
            )
        if kind == "return" and (
            s.value is None or _tail_return(block, loop, ctx.fn, ctx.scope) is None
        ):
            reason = _return_problem(an, block, loop, plan, s, ctx.fn)
            if reason is not None:
                return ("AJ936", s, reason + "; left as Python")
    loop_values = set(plan.targets) | (
        an.activity.of_block(loop.body).writes & _exposed_reads(an, loop.body)
    )
    for st in _own_statements(loop.body):
        if isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef)):
            continue
        for n in _shallow(st):
            if id(n) in plan.dynamic:
                continue
            if isinstance(n, gast.Slice) and any(
                expr_activity(b).reads & loop_values for b in (n.lower, n.upper, n.step) if b
            ):
                return (
                    "AJ934",
                    loop,
                    f"a slice whose bounds change with the loop (line {_line(st, loop)}): in a "
                    "converted loop they would "
                    "be traced, and slice bounds must be static; left as Python (for a "
                    "constant size write `jax.lax.dynamic_slice_in_dim(x, start, size)`, which "
                    "clamps `start` so that the slice stays inside the array; autojit does so "
                    "itself when the range provably keeps the slice inside the array, e.g. "
                    "`for i in range(len(x) - k + 1): x[i:i + k]`)",
                )
    if plan.kind == "fori" and plan.index and isinstance(loop, gast.For):
        # the index of a range is a Python int: read in Python's way only, it means otherwise
        # traced (also where the bound is traced and the loop cannot stay Python)
        use = python_value_use(list(_own_statements(loop.body)), {plan.index})
        if use is not None:
            return (
                "AJ934",
                loop,
                f"the loop index `{plan.index}` is read by {use[1]}, which means something else "
                f"for a traced int32 index than for Python's int; left as a Python loop",
            )
    if plan.index_checks:
        bad = _static_index_use(ctx, an, loop, plan.index_checks, stacked, set(plan.dynamic))
        if bad is not None:
            base = _indexed_parameter(an, loop, bad)
            if base is not None:
                return (
                    "AJ934",
                    loop,
                    f"the loop index indexes `{base}` (line {_line(bad, loop)}), a parameter "
                    f"not known to be an array: a Python list needs a Python int index, so "
                    f"the loop is left as Python (jax unrolls it); `{base} = "
                    f"{ctx.names.jnp}.asarray({base})` before the loop makes it an array",
                )
            return (
                "AJ934",
                loop,
                f"the loop index is used where a Python integer is needed (line "
                f"{_line(bad, loop)}: a shape, a slice bound, a list index, a Python call or "
                f"an integer power); as a fori_loop/scan index it would be traced; left as a "
                f"Python loop",
            )
    return None


_PYTHON_ITERATORS = frozenset(
    {"enumerate", "zip", "map", "filter", "reversed", "iter", "sorted", "list", "tuple", "range"}
)
def _returns_after(fn, block: list, stmt) -> bool:
    """Whether the function always returns a value after ``stmt`` (in ``block``): in the rest of
    the block, or, for the body of an enclosing loop, after that loop (whose own `return`
    then becomes a flag in turn), and for its `else:` clause after it too (what runs next
    there, kept as Python or put after the converted loop)."""
    idx = next(i for i, s in enumerate(block) if s is stmt)
    if always_returns(block[idx + 1 :]):
        return True
    for parent_block, parent in _blocks_of(fn.body):
        if isinstance(parent, (gast.For, gast.While)) and (
            parent.body is block or parent.orelse is block
        ):
            return _returns_after(fn, parent_block, parent)
    return False


def _blocks_of(stmts: list):
    """(block, statement) for every statement of the function, nested functions excluded."""
    for s in stmts:
        yield stmts, s
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        for f in ("body", "orelse", "finalbody"):
            yield from _blocks_of(getattr(s, f, None) or [])
        for h in getattr(s, "handlers", None) or []:
            yield from _blocks_of(h.body)


def _return_problem(an: FunctionAnalysis, block: list, loop, plan: _Plan, ret, fn) -> str | None:
    """Why ``return v`` inside ``loop`` cannot leave it as ``break`` + ``if returned: return v``
    right after the loop (``v`` computed there from the loop state it had at the return)."""
    if ret.value is None:
        return "a bare `return` inside a traced loop has no value to carry out of it"
    returns = [s for k, s in _exits(loop.body) if k == "return"]
    if len(returns) > 1:
        return (
            "a traced loop with more than one `return` inside it (each would need its own "
            "result); return from one place, or set a variable and `break`"
        )
    if not _returns_after(fn, block, loop):
        return (
            "`return` inside a traced loop that the function does not always leave with a "
            "`return <value>` after it (both paths must give a value under jit)"
        )
    if any(
        isinstance(n, (gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await))
        for n in walk_nodes(ret.value)
    ):
        return "the returned value has a side effect (`:=`, `yield`, `await`)"
    defined = an.defined_before(loop)
    for name in sorted(expr_activity(ret.value).reads):
        if name in plan.targets and plan.kind != "fori":
            return (
                f"the returned value reads the loop variable `{name}`, which a scan gives the "
                f"next element after the loop stops: assign it to a variable before the loop and "
                f"in it, and return that"
            )
        if name not in defined and name not in plan.targets and name in an.values.locals:
            return (
                f"the returned value reads `{name}`, which is first assigned inside the loop "
                f"(its type is not known before the loop): give `{name}` a value before the loop"
            )
    return None


def _linear(node) -> dict[str, int] | None:
    """``node`` as a sum of integer multiples of atoms (names; ``len:x`` for ``len(x)`` and
    ``x.shape[0]``, ``len1:x`` for ``x.shape[1]``...) plus a constant (key ``""``), or None."""
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return {"": node.value}
    if isinstance(node, gast.Name):
        return {node.id: 1}
    if (
        isinstance(node, gast.Call)
        and dotted_name(node.func) == "len"
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], gast.Name)
    ):
        return {f"len:{node.args[0].id}": 1}
    if (
        isinstance(node, gast.Subscript)
        and isinstance(node.value, gast.Attribute)
        and node.value.attr == "shape"
        and isinstance(node.value.value, gast.Name)
        and isinstance(node.slice, gast.Constant)
        and type(node.slice.value) is int
        and node.slice.value >= 0
    ):
        axis = node.slice.value
        return {f"len{axis or ''}:{node.value.value.id}": 1}
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        inner = _linear(node.operand)
        return None if inner is None else {k: -v for k, v in inner.items()}
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub, gast.Mult)):
        a, b = _linear(node.left), _linear(node.right)
        if a is None or b is None:
            return None
        if isinstance(node.op, gast.Mult):
            if set(a) <= {""}:
                a, b = b, a
            if not set(b) <= {""}:
                return None
            c = b.get("", 0)
            return {k: v * c for k, v in a.items()}
        sign = 1 if isinstance(node.op, gast.Add) else -1
        out = dict(a)
        for k, v in b.items():
            out[k] = out.get(k, 0) + sign * v
        return out
    return None


def _plus(*forms: dict[str, int]) -> dict[str, int]:
    out: dict[str, int] = {}
    for f in forms:
        for k, v in f.items():
            out[k] = out.get(k, 0) + v
    return {k: v for k, v in out.items() if v or k == ""}


def _provable_slices(ctx: Context, an: FunctionAnalysis, loop, plan: _Plan) -> dict:
    """Slices ``x[i + a:i + b]`` of a ``for i in range(lo, hi)`` loop with a static size
    ``b - a`` that stay inside ``x`` for every ``i`` (``lo + a >= 0`` and ``hi - 1 + b <=
    len(x)``, proven on the bound expressions): Python's slice and ``lax.dynamic_slice`` (which
    moves the start back inside the array) are then the same rows."""
    if (
        plan.kind != "fori"
        or plan.index_prelude
        or plan.step is not None
        or not isinstance(loop, gast.For)
        or plan.lo is None
        or plan.hi is None
    ):
        return {}
    index = plan.index
    written = an.activity.of_block(loop.body).writes
    if index in written:
        return {}
    lo, hi = _linear(plan.lo), _linear(plan.hi)
    if lo is None or hi is None:
        return {}

    def fixed(*forms: dict[str, int]) -> bool:
        """The names in the bounds keep their values through the loop."""
        return not any(k in written for f in forms for k in f if k and not k.startswith("len"))

    if not fixed(lo, hi):
        return {}
    out: dict = {}
    for st in _own_statements(loop.body):
        if isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        if any(
            isinstance(
                n, (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp, gast.Lambda)
            )
            for n in _shallow(st)
        ):
            continue  # a comprehension or lambda may bind its own `i`
        parents: dict[int, object] = {}
        for n in _shallow(st):
            for c in child_nodes(n):
                parents[id(c)] = n
        for n in _shallow(st):
            if not (isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Load)):
                continue
            # one bounded slice; on another axis than the first, the others are full `:`
            parts = n.slice.elts if isinstance(n.slice, gast.Tuple) else [n.slice]
            bounded = [
                (axis, p)
                for axis, p in enumerate(parts)
                if isinstance(p, gast.Slice) and (p.lower or p.upper or p.step)
            ]
            if len(bounded) != 1:
                continue
            axis, sl = bounded[0]
            if not (sl.step is None and sl.lower is not None and sl.upper is not None):
                continue
            if any(not isinstance(p, gast.Slice) for p in parts):
                continue
            base = n.value
            if isinstance(base, gast.Attribute) and base.attr == "at":
                setter = parents.get(id(n))
                call = parents.get(id(setter))
                if not (
                    isinstance(setter, gast.Attribute)
                    and setter.attr == "set"
                    and isinstance(call, gast.Call)
                    and call.func is setter
                    and len(call.args) == 1
                    and not call.keywords
                ):
                    continue
                base = base.value  # x.at[i:i + k].set(v)
            if not isinstance(base, gast.Name):
                continue
            start, stop = _linear(sl.lower), _linear(sl.upper)
            if start is None or stop is None or start.get(index) != 1 or stop.get(index) != 1:
                continue
            if not fixed({k: v for k, v in start.items() if k != index}) or not fixed(
                {k: v for k, v in stop.items() if k != index}
            ):
                continue
            if not known_array(ctx, an, base, st):
                continue  # a list's slice stays a list
            size = _plus(stop, {k: -v for k, v in start.items()})
            if not set(size) - {""} and size.get("", 0) < 0:
                continue  # (`x[i:i - 1]`: NumPy's slice is empty, a negative size is an error)
            if index in size or any(
                k.startswith("len")
                or not an.value(
                    gast.Name(id=k, ctx=gast.Load(), annotation=None, type_comment=None), loop
                ).static
                for k in size
                if k
            ):
                continue
            offset = {k: v for k, v in start.items() if k != index}
            first = _plus(lo, offset)  # the start at i = lo
            last_stop = _plus(hi, {"": -1}, {k: v for k, v in stop.items() if k != index})
            # the stop at i = hi - 1, minus the length of that axis
            over = _plus(last_stop, {f"len{axis or ''}:{base.id}": -1})
            if set(first) - {""} or first.get("", 0) < 0:
                continue
            if set(over) - {""} or over.get("", 0) > 0:
                continue
            out[id(sl)] = (n, sl, size, axis)
    return out


def _size_text(size: dict[str, int]) -> str:
    parts = [k if v == 1 else f"{v} * {k}" for k, v in size.items() if k]
    c = size.get("", 0)
    text = " + ".join(parts)
    if not parts:
        return str(c)
    return text + (f" + {c}" if c > 0 else f" - {-c}" if c < 0 else "")


def _dynamic_slices(ctx: Context, loop, plan: _Plan) -> None:
    """Rewrite the proven slices: reads -> ``lax.dynamic_slice_in_dim``, ``x.at[...].set(v)``
    -> ``lax.dynamic_update_slice_in_dim``."""
    lax, jnp = ctx.names.lax, ctx.names.jnp
    subs = {id(sub): (sub, sl, size, axis) for sub, sl, size, axis in plan.dynamic.values()}
    done: list[str] = []

    class _Rewrite(gast.NodeTransformer):
        def visit_Call(self, node):
            f = node.func
            if (
                isinstance(f, gast.Attribute)
                and f.attr == "set"
                and id(f.value) in subs
                and len(node.args) == 1
                and not node.keywords
            ):
                sub, sl, size, axis = subs.pop(id(f.value))
                x = sub.value.value
                before = f"{_PH.format('X4')}.shape[:{axis}] + " if axis else ""
                shape = f"{before}({_size_text(size)},) + {_PH.format('X2')}.shape[{axis + 1}:]"
                new = replace_expr(
                    f"{lax}.dynamic_update_slice_in_dim({_PH.format('X')}, "
                    f"{jnp}.broadcast_to({_PH.format('V')}, {shape})"
                    f".astype({_PH.format('X3')}.dtype), {_PH.format('S')}, {axis})",
                    **{
                        _PH.format("X"): x,
                        _PH.format("X2"): copy_expr(x),
                        _PH.format("X3"): copy_expr(x),
                        _PH.format("X4"): copy_expr(x) if axis else None,
                        _PH.format("V"): self.visit(node.args[0]),
                        _PH.format("S"): sl.lower,
                    },
                )
                done.append(
                    f"`{gast.unparse(sub).strip()}.set(...)` -> `{lax}.dynamic_update_slice_in_dim`"
                )
                return new
            self.generic_visit(node)
            return node

        def visit_Subscript(self, node):
            if id(node) in subs and not (
                isinstance(node.value, gast.Attribute) and node.value.attr == "at"
            ):
                sub, sl, size, axis = subs.pop(id(node))
                done.append(f"`{gast.unparse(sub).strip()}` -> `{lax}.dynamic_slice_in_dim`")
                at_axis = f", {axis}" if axis else ""
                return replace_expr(
                    f"{lax}.dynamic_slice_in_dim({_PH.format('X')}, {_PH.format('S')}, "
                    f"{_size_text(size)}{at_axis})",
                    **{_PH.format("X"): self.visit(node.value), _PH.format("S"): sl.lower},
                )
            self.generic_visit(node)
            return node

    rw = _Rewrite()
    for st in _own_statements(loop.body):
        if isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        for fname, value in gast.iter_fields(st):
            if isinstance(value, gast.expr):
                setattr(st, fname, rw.visit(value))
            elif isinstance(value, list) and value and isinstance(value[0], gast.expr):
                setattr(st, fname, [rw.visit(v) for v in value])
    if done:
        plan.what += " (slices inside the array for every index: " + ", ".join(done) + ")"


def _line(node, loop) -> int:
    line = getattr(node, "lineno", None)
    return line if isinstance(line, int) else getattr(loop, "lineno", 0)


def _shallow(stmt):
    """The expression nodes of ``stmt`` itself (not of the statements in it), in `gast.walk`
    order."""
    for _f, value in gast.iter_fields(stmt):
        if isinstance(value, gast.expr):
            yield from walk_bfs(value)
        elif isinstance(value, list):
            for v in value:
                if isinstance(v, gast.expr):
                    yield from walk_bfs(v)


_ARITH = (gast.BinOp, gast.UnaryOp, gast.Compare, gast.BoolOp, gast.IfExp)


def _static_index_use(
    ctx: Context,
    an: FunctionAnalysis,
    loop,
    names: set[str],
    stacked=frozenset(),
    dynamic: set[int] | frozenset = frozenset(),
    place=None,
):
    """The first use of a loop index that needs a Python integer, or None. ``place``: the
    statement whose values stand for those of the statements looked at (the definition of the
    body function of an inner loop, whose statements this function's analysis does not hold)."""
    for s in _own_statements(loop.body):
        if s in stacked:
            s = gast.Expr(value=s.value.args[0])  # the appended value, stacked by scan
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef)):
            if not getattr(s, "_aj_orig", False) and not s.decorator_list:
                # the body function of an inner loop converted before (`def _body(j, carry)`):
                # traced there, the index reads of its statements are asked the same question
                found = _static_index_use(
                    ctx,
                    an,
                    types.SimpleNamespace(body=s.body),
                    names,
                    stacked,
                    dynamic,
                    place if place is not None else s,
                )
                if found is not None:
                    return found
                continue
            if expr_activity(s).reads & names or _free_reads(s) & names:
                return s
            continue
        at = s if place is None else place
        parents: dict[int, object] = {}
        roots = [v for _f, v in gast.iter_fields(s) if isinstance(v, gast.expr)]
        for _f, v in gast.iter_fields(s):
            if isinstance(v, list):
                roots += [e for e in v if isinstance(e, gast.expr)]
        for r in roots:
            for n in walk_nodes(r):
                for c in child_nodes(n):
                    parents[id(c)] = n
        for r in roots:
            for n in walk_nodes(r):
                if not (
                    isinstance(n, gast.Name) and n.id in names and isinstance(n.ctx, gast.Load)
                ):
                    continue
                node = n
                parent = parents.get(id(node))
                while isinstance(parent, _ARITH):
                    if isinstance(parent, gast.BinOp) and isinstance(
                        parent.op, (gast.Pow, gast.LShift)
                    ):
                        # `10 ** -k`, `2 ** k`, `1 << k`: an int power of Python ints is a float
                        # for a negative exponent and never overflows; of int32, 0 and wraps
                        other = parent.left if node is parent.right else parent.right
                        if _python_int(an, other, at):
                            return n
                    node, parent = parent, parents.get(id(parent))
                if parent is None:
                    continue  # the whole expression of an assignment, test, return
                if id(parent) in dynamic:
                    continue  # becomes lax.dynamic_slice / dynamic_update_slice
                if isinstance(parent, gast.Subscript) and parent.slice is node:
                    if known_array(ctx, an, parent.value, at):
                        continue
                    return n
                if isinstance(parent, gast.Tuple):
                    grand = parents.get(id(parent))
                    if isinstance(grand, gast.Subscript) and known_array(ctx, an, grand.value, at):
                        continue
                    return n
                if isinstance(parent, gast.Call) and node in parent.args:
                    if _at_update(parent) and known_array(ctx, an, parent.func.value.value, at):
                        continue  # `x.at[j].set(value)`: jax's own update takes a traced value
                    fname = dotted_name(parent.func) or ""
                    qual = an.scope.qualified(fname) or ""
                    spec = SHAPE_ARGUMENTS.get(qual)
                    shape_pos = spec[0] if spec else set()
                    if (
                        qual.startswith(("jax.numpy.", "jax.lax.", "jax.nn.", "jax.scipy."))
                        and shape_pos != "*"
                        and parent.args.index(node) not in shape_pos
                    ):
                        continue
                    return n
                return n
    return None


def _bounded_above(an: FunctionAnalysis, loop, test, name: str) -> bool:
    """Whether the loop condition ``test`` holds only while ``name`` is below a bound (`k < n`,
    `n >= k`, one of them in an `and`) that keeps it in int32's range, the loop's last steps
    of it included (:func:`_steps_stay_in_int32`): a literal, or a Python value known when
    jax traces (a size: `x.shape[0]`, taken as at most 2**20). A traced bound may be
    anything: `while p < lim: p *= 3` with `lim = 3e9` never ended converted (`p` wrapped
    past 2**31 and stayed below it), as `while p < 1000: p = p << 25` did."""
    if isinstance(test, gast.BoolOp) and isinstance(test.op, gast.And):
        return any(_bounded_above(an, loop, v, name) for v in test.values)
    if isinstance(test, gast.Call) and (dotted_name(test.func) or "").endswith("logical_and"):
        return any(_bounded_above(an, loop, v, name) for v in test.args)  # (a break flag's)
    if not (isinstance(test, gast.Compare) and len(test.ops) == 1):
        return False
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(op, (gast.Gt, gast.GtE)):
        left, right = right, left
    elif not isinstance(op, (gast.Lt, gast.LtE)):
        return False
    if not (isinstance(left, gast.Name) and left.id == name):
        return False
    bound = int_constant(right)
    if bound is None and isinstance(right, gast.Constant) and type(right.value) is float:
        bound = int(min(abs(right.value), 2**62))
    if bound is None and an.value(right, loop).static:
        bound = 2**20
    return bound is not None and _steps_stay_in_int32(loop, name, abs(bound))


def _steps_stay_in_int32(loop, name: str, bound: int) -> bool:
    """Whether ``name``, below ``bound`` when the loop tests it, stays in int32's range
    through one pass of the body: each assignment of it there is a step by a literal (`p = p
    * 3`, `p <<= 1`, `p += 7`, `p //= 2`), all taken at their largest."""
    grow, add = 1, 0
    inner = {
        id(s)
        for s in walk_statements(loop.body)
        if isinstance(s, (gast.For, gast.AsyncFor, gast.While))
        for s in walk_statements(s.body)
    }
    for st in walk_statements(loop.body):
        if isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        if not _binds_in_own_parts(st, name):
            continue
        if id(st) in inner:
            return False  # (a step in an inner loop: taken any number of times per pass)
        value = None
        if isinstance(st, gast.Assign) and len(st.targets) == 1:
            value = st.value if isinstance(st.targets[0], gast.Name) else None
        elif isinstance(st, gast.AugAssign) and isinstance(st.target, gast.Name):
            value = assigned_value(st)
        step = self_step(name, value) if value is not None else None
        if step is None:
            return False  # (through a temporary, a call, a tuple: not followed)
        op, c = step
        if isinstance(op, gast.Mult):
            grow *= max(abs(c), 1)
        elif isinstance(op, gast.LShift) and 0 <= c <= 62:
            grow <<= c
        elif isinstance(op, (gast.Add, gast.Sub)):
            add += abs(c)
        elif not isinstance(op, (gast.FloorDiv, gast.Mod, gast.RShift)):
            return False  # (a power)
    return (bound + add) * grow < 2**31


def _binds_in_own_parts(st, name: str) -> bool:
    """Whether ``st`` itself (not a statement nested in it) binds ``name``."""
    for part_name in st._fields:
        if part_name in ("body", "orelse", "finalbody", "handlers", "cases"):
            continue
        value = getattr(st, part_name, None)
        for part in value if isinstance(value, list) else [value]:
            if isinstance(part, gast.AST) and any(
                isinstance(n, gast.Name) and n.id == name and not isinstance(n.ctx, gast.Load)
                for n in walk_nodes(part)
            ):
                return True
    return False


def _python_int(an: FunctionAnalysis, node, stmt) -> bool:
    """An int literal, or a name or expression the analysis holds for a Python int."""
    if isinstance(node, gast.Constant):
        return type(node.value) is int
    v = an.value(node, stmt)
    return v.static and v.dtype == "int"


def _at_update(call) -> bool:
    """Whether ``call`` is `... .at[index].method(...)`, an update method of jax's `.at`."""
    f = call.func
    return isinstance(f, gast.Attribute) and f.attr in AT_UPDATE_METHODS and at_method(f)


def _free_reads(fn) -> set[str]:
    from ..analysis.activity import function_free_reads

    return function_free_reads(fn)


# -- the rewrite ---------------------------------------------------------------------------


def _exposed_reads(an: FunctionAnalysis, stmts: list) -> frozenset[str]:
    """Names a block reads before assigning them (one pass through it)."""
    return (
        Liveness(types.SimpleNamespace(body=stmts), an.activity).live_in.get(
            id(stmts[0]), frozenset()
        )
        if stmts
        else frozenset()
    )


def _ordered_names(nodes) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for n in nodes:
        _ordered_names_of(n, seen, out)
    return out


def _ordered_names_of(n, seen: set[str], out: list[str]) -> None:
    # a module function, not a recursive closure: that is a reference cycle (garbage that
    # only the collector frees)
    if isinstance(n, gast.Name) and n.id not in seen:
        seen.add(n.id)
        out.append(n.id)
    for c in child_nodes(n):
        _ordered_names_of(c, seen, out)


_NO_STATE = (
    "the loop changes no value that is used after it or in its next iteration; left as Python"
)


def _state_names(an: FunctionAnalysis, loop, plan: _Plan) -> list[str]:
    """The loop state: names the loop assigns that are live after it or read in the next
    iteration, in order of appearance."""
    defs = {s.name for s in loop.body if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef))}
    writes = (_reachable_writes(an, loop.body) | plan.targets) - defs
    live_after = _live_after(an, loop) | read_by_closures(an.fn, loop.body, an.scope)
    exposed = _exposed_reads(an, loop.body)
    if isinstance(loop, gast.While):
        exposed = exposed | expr_activity(loop.test).reads
    header = [loop.target] if isinstance(loop, gast.For) else [loop.test]
    order = _ordered_names(header + list(loop.body))
    return [
        n
        for n in order
        if n in writes and (n in live_after or (n in exposed and n not in plan.targets))
    ]


def _returned_kinds(ctx: Context, an: FunctionAnalysis, block: list, loop) -> str | None:
    """AJ918's reason where the loop returns (`return 16777215 + i` in it) and the `return`
    after it gives a value of another kind (`return 0.5`): converted, both are one carried
    result, of one dtype (the int came back a float32); Python returns each one's type."""
    if "return" not in _has_exit(_live_prefix(loop.body)):
        return None
    tail = _tail_return(block, loop, ctx.fn, ctx.scope)
    if tail is None:
        return None  # (`if returned: return v` follows the loop: the conditionals judge it)
    returned = [(s.value, s) for kind, s in _exits(loop.body) if kind == "return" and s.value]
    mixed = mixed_returned_kinds([*returned, (tail.value, tail)], an.value)
    if mixed is None:
        return None
    k, kinds = mixed
    place = f" (the result's item {k})" if k is not None else ""
    return (
        f"the loop returns a value of another type than the `return` after it{place}: "
        f"{', '.join(kinds)}; converted, both would be one carried result of one dtype, and "
        f"Python returns each one's type; give them one type (`0.0` for `0`)"
    )


def _indexed_parameter(an: FunctionAnalysis, loop, index_use) -> str | None:
    """The parameter ``index_use`` (a use of the loop index) indexes directly (`x[i]`, `x[i,
    j]`), where that is why the loop stays Python; None otherwise."""
    rebound = an.activity.of_block(an.fn.body).writes
    for node in (n for st in loop.body for n in walk_bfs(st)):
        if not isinstance(node, gast.Subscript) or not isinstance(node.value, gast.Name):
            continue
        parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        name = node.value.id
        if any(p is index_use for p in parts) and name in an.params and name not in rebound:
            return name
    return None


def _static_count(an: FunctionAnalysis, loop) -> bool:
    """Whether the loop is a `for` over a `range` whose bounds are known when jax traces."""
    it = getattr(loop, "iter", None)
    return (
        isinstance(loop, gast.For)
        and isinstance(it, gast.Call)
        and dotted_name(it.func) == "range"
        and all(an.value(a, loop).static for a in it.args)
    )


def _live_after(an: FunctionAnalysis, loop) -> frozenset[str] | set[str]:
    """The names read after the loop: after the statement, or in its `else:` (which runs once
    it ends without a `break`, seeing the loop variable's last value)."""
    if loop.orelse:
        return an.live_out(loop) | an.live_in(loop.orelse[0])
    return an.live_out(loop)


def _reachable_writes(an: FunctionAnalysis, stmts: list) -> set[str]:
    """Names a block assigns, leaving out the dead code after a break/continue/return (the
    flag lowering drops it)."""
    out: set[str] = set()
    for s in stmts:
        if isinstance(s, (gast.Break, gast.Continue, gast.Return)):
            break
        if isinstance(s, gast.If):
            out |= expr_activity(s.test).writes  # `if (m := ...)`
            out |= _reachable_writes(an, s.body) | _reachable_writes(an, s.orelse)
        else:
            out |= an.activity.of_block([s]).writes
    return out


def _rewrite(ctx: Context, an: FunctionAnalysis, block: list, loop, plan: _Plan):
    lax = ctx.names.lax
    exposed = _exposed_reads(an, loop.body)
    if plan.kind == "while":
        exposed = exposed | expr_activity(plan.test).reads
    carry = _state_names(an, loop, plan)
    stacks = _stacked_appends(ctx, an, block, loop, plan)
    items: dict[str, str] = {}
    if stacks:
        for lst, stmt in stacks.items():
            item = ctx.fresh(f"{lst}_item")
            items[lst] = item
            loop.body[loop.body.index(stmt)] = replace(
                f"{item} = {_PH.format('V')}", **{_PH.format("V"): stmt.value.args[0]}
            )[0]
        if plan.kind == "fori":
            # the stacked results come from scan: iterate over the index values
            jnp_ = ctx.names.jnp
            lo_zero = _const_int(plan.lo) == 0
            plan.xs = replace_expr(
                f"{jnp_}.arange({'' if lo_zero else _PH.format('LO') + ', '}{_PH.format('HI')})",
                **{_PH.format("LO"): plan.lo, _PH.format("HI"): plan.hi},
            )
            plan.xs_first = replace_expr("0")
            plan.elem = plan.index
            plan.kind = "scan"
            plan.what = plan.what.replace("fori_loop", "scan")
        plan.what += (
            "; " + ", ".join(f"`{n}.append(...)`" for n in stacks) + (" -> stacked by scan")
        )
        unstack = {}
        for lst in stacks:
            for call in _stacker_calls(ctx, loop, lst) or []:
                unstack[id(call)] = lst
        rewriter = _Unstack(unstack)
        for st in walk_statements(ctx.fn.body):
            if st is loop or isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef)):
                continue
            for fname, value in gast.iter_fields(st):
                if isinstance(value, gast.expr):
                    setattr(st, fname, rewriter.visit(value))
                elif isinstance(value, list) and value and isinstance(value[0], gast.expr):
                    setattr(st, fname, [rewriter.visit(v) for v in value])
    if not carry and not stacks:
        ctx.refuse("AJ932", loop, _NO_STATE)
        return False
    kept = _kept_on_a_name_made_traced(loop.body, set(carry) | plan.targets)
    if kept is not None:
        inner, n = kept
        ctx.refuse(
            "AJ931",
            loop,
            f"the `while` at line {inner.lineno} inside it is kept as Python on its condition "
            f"`{_unparse(inner.test).strip()}`, static here, which reads `{n}`: converted, "
            f"this loop would make `{n}` a traced value there; left as Python",
        )
        return False
    for around in _loops_around(ctx.fn, loop):
        # (a `while` kept on a static condition in a loop around this one runs again after it,
        # on that loop's next pass, and would read the traced value there)
        kept = _kept_on_a_name_made_traced(around.body, set(carry))
        if kept is not None:
            inner, n = kept
            ctx.refuse(
                "AJ931",
                loop,
                f"the `while` at line {inner.lineno} in the loop around it (line "
                f"{around.lineno}) is kept as Python on its condition "
                f"`{_unparse(inner.test).strip()}`, static here, which reads `{n}` on that "
                f"loop's next pass: converted, this loop would make `{n}` a traced value there; "
                f"left as Python",
            )
            return False
    defined = an.defined_before(loop)
    maybe = an.maybe_defined_before(loop)
    env = an.env_before(loop)
    undefined: list[str] = []
    promote: list[str] = []
    numbers: set[str] = set()  # (of them, those that enter the loop as a Python number)
    floated: set[str] = set()  # Python ints the body makes Python floats: start as floats
    shape_only: set[str] = set()  # (of `promote`, arrays given the body's shape, not its dtype)
    end_env = an.values.env_after.get(id(loop.body[-1]), {}) if loop.body else {}
    # break/continue flags: `False`, then an `if` test (a scalar bool, or the `if` fails eagerly)
    flags: frozenset[str] = getattr(loop, "_aj_flags", frozenset())
    for n in carry:
        if n not in defined:
            if n not in plan.targets and (n in maybe or n in exposed):
                ctx.refuse(
                    "AJ932",
                    loop,
                    f"`{n}` may be unbound when the loop starts and is read in it; give it a "
                    f"value before the loop",
                )
                return False
            if n in plan.targets and n in maybe:
                # (a loop that runs no times leaves the loop variable as it was, and the
                # traced state cannot start from "unbound or that value")
                ctx.refuse(
                    "AJ932",
                    loop,
                    f"`{n}` is read after the loop and may hold a value from before it, which "
                    f"Python keeps when the loop runs no times, or be unbound; give it a value "
                    f"before the loop (`{n} = -1`, say)",
                )
                return False
            if n not in plan.targets and n not in surely_assigned(loop.body):
                # (the body's first trace, for the state's type, would give it no value on a
                # path: a branch function returning nothing for it)
                ctx.refuse(
                    "AJ932",
                    loop,
                    f"`{n}` is first assigned in the loop, and not on every path through its "
                    f"body (a traced loop's state needs a value from the start; Python leaves "
                    f"it unbound, or to an `else:`); give it a value before the loop "
                    f"(`{n} = -1`, say)",
                )
                return False
            undefined.append(n)
            continue
        v = env.get(n)
        if v is None:
            continue
        use = (
            python_value_use(
                [*_own_statements(loop.body), *_run_after(ctx.fn, loop)],
                {n},
                ValueFacts(an.value, ctx.scope.qualified),
                traced_errors=True,
            )
            if v.static
            else None
        )
        if use is not None:
            ctx.refuse(
                "AJ932",
                loop,
                f"`{n}` holds a Python value that the loop would make a traced one, and "
                f"{use[1]} reads it (a traced value is never `True`, nor an `int`, and its int "
                f"powers are int32's); left as Python",
            )
            return False
        bounded = isinstance(loop, gast.While) and _bounded_above(an, loop, loop.test, n)
        if v.static and v.dtype == "int" and not bounded and grows_geometrically(loop, n):
            # (one the loop's condition bounds, `while k < n: k = k * 2`, stays in range)
            ctx.refuse(
                "AJ932",
                loop,
                f"`{n}` is a Python int multiplied (or raised to a power) in the loop: Python's "
                f"ints never overflow, a traced loop's int32 state wraps past 2**31; start it "
                f"as a float (`{n} = 1.0`) if that is meant; left as Python",
            )
            return False
        if v.kind in (Kind.LIST, Kind.DICT, Kind.NUMPY):
            kind = {Kind.LIST: "a list", Kind.DICT: "a dict", Kind.NUMPY: "a NumPy array"}[v.kind]
            ctx.refuse(
                "AJ932",
                loop,
                f"`{n}` is {kind} and changes in the loop; a traced loop can only carry "
                f"jax arrays; left as Python",
            )
            return False
        end = end_env.get(n, v)
        if n in plan.targets or n in flags:
            continue
        if (
            v.static
            and v.dtype == "int"
            and _another_kind_given(ctx, an, loop, n, "int") == "float"
            and not (n in surely_assigned(loop.body) and not flags and runs_at_least_once(loop))
            and any(abs(k) > 2**24 for k in _start_ints(ctx.fn, an, loop, n) or ())
        ):
            ctx.refuse(
                "AJ932",
                loop,
                f"`{n}` enters the loop as a Python int past 2**24 and the loop may make it a "
                f"float: a traced loop carries one dtype, float32, which rounds that int where "
                f"the loop runs no times or does not reach that assignment (Python keeps it); "
                f"start it as a float (`{n} = float(...)`) if that is meant; left as Python",
            )
            return False
        if v.static and _none_before(ctx.fn, loop, n):
            ctx.refuse(
                "AJ932",
                loop,
                f"`{n}` may enter the loop as `None` (the loop gives it a value): a traced "
                f"loop's state has one type from the start, and `None` is none; give it a "
                f"value of the loop's type before the loop (`{n} = x[0]`, `{n} = -jnp.inf`), "
                f"or a flag beside it; left as Python",
            )
            return False
        if (
            v.static
            and v.dtype in ("int", "float")
            and end.kind is not Kind.STATIC
            and not (n in surely_assigned(loop.body) and not flags and runs_at_least_once(loop))
            and _trip_count_traced(an, loop)
            and not _stays_weak(an, loop, n)
        ):
            # where the loop runs no times (or skips the assignment) Python keeps the number,
            # weakly typed; the traced loop gives the array's dtype on every path
            after = statements_after(ctx.fn, loop)
            source = _carried_source(ctx, an, loop, n, after)
            told = read_telling_weak_from_strong(
                after,
                n,
                an.value,
                (v.dtype, end.dtype),
                covering(source, v.dtype == "float", True, ctx.scope.qualified),
            )
            if told is not None:
                ctx.refuse(
                    "AJ932",
                    loop,
                    f"`{n}` enters the loop as a Python number that the loop makes an array, "
                    f"and Python keeps the number where the loop runs no times or does not "
                    f"reach that assignment; `{_unparse(told[0]).strip()}` (line {told[1]}) "
                    f"gives the two other dtypes ({WEAK_TYPE_REASON}); start it as an array "
                    f"of the loop's type (`{n} = "
                    f"jnp.float32(...)`) if that is meant; left as Python",
                )
                return False
        if v.static and not (end.scalar is True and end.kind is Kind.STATIC):
            # a Python scalar is weakly typed: jax promotes its dtype by itself, not its shape
            if end.scalar is not True or (v.dtype == "bool" and end.dtype != "bool"):
                promote.append(n)
                if v.dtype in ("int", "float"):
                    numbers.add(n)
        elif (
            v.static
            and v.dtype == "int"
            and end.dtype in ("float", None)
            and _another_kind_given(ctx, an, loop, n, "int") == "float"
        ):
            # (`t = 0` made `t + 0.5` by the body: the loop's own promotion of a weak int gives
            # a float that is no longer weak; a Python float start stays weak, as Python's does)
            if not (n in surely_assigned(loop.body) and not flags and runs_at_least_once(loop)):
                # Python keeps the int where the loop runs no times (or skips the assignment):
                # only where every read gives an int what it gives the same float is that one
                shown = _read_telling_int_from_float(ctx.fn, an, n)
                if shown is not None:
                    ctx.refuse(
                        "AJ932",
                        loop,
                        f"`{n}` enters the loop as a Python int that the loop makes a float, and "
                        f"Python keeps the int where the loop runs no times or does not reach "
                        f"that assignment; a traced loop carries one type, and "
                        f"`{_unparse(shown).strip()}` gives an int another dtype than a float "
                        f"(an int array times an int stays ints); start it as a float "
                        f"(`{n} = 0.0`) if that is meant; left as Python",
                    )
                    return False
            floated.add(n)
        elif v.traced and v.scalar is True and end.scalar is not True and n not in flags:
            # an array scalar the body may make an array (`acc = jnp.zeros(())` plus rows of
            # `x`): the carry is given the body's shape and dtype, as a Python number is
            promote.append(n)
            if _trip_count_traced(an, loop):
                # (its shape only where the loop may run no times: Python keeps the array's
                # dtype there, `jnp.max(y)` of bools where the body gives it `1.5`; a body
                # that changes the dtype fails loudly in lax, a carry of two types)
                shape_only.add(n)
        elif v.traced and v.dtype in ("int", "bool") and end.dtype != v.dtype:
            other = _another_kind_given(ctx, an, loop, n, v.dtype)
            if other is not None and not (
                n in surely_assigned(loop.body) and not flags and runs_at_least_once(loop)
            ):
                ctx.refuse(
                    "AJ932",
                    loop,
                    f"`{n}` enters the loop as an array of {v.dtype}s and the loop gives it "
                    f"{other}s: Python keeps the {v.dtype}s where the loop runs no times or does "
                    f"not reach that assignment, a traced loop carries one dtype (as float32, "
                    f"ints past 2**24 are rounded); cast it before the loop (`{n} = "
                    f"{n}.astype(...)`) if one dtype is meant; left as Python",
                )
                return False
            if not _trip_count_traced(an, loop):
                # (where the loop may run no times it keeps its dtype, as Python's does: the
                # body giving it another fails loudly in lax)
                promote.append(n)

    # A promoted start is the scalar filled into the shape the loop gives it: what Python's
    # first pass computes from the scalar where the body reads it item by item (`p * a`; not
    # `jnp.dot(p, a)`, `jnp.sum(p)`, `x[p]`). Read otherwise, it keeps its shape and takes the
    # loop's dtype only: exact where the loop keeps it a scalar, a loud error of lax where not
    # (a carry of two shapes); refused where the loop surely makes it an array.
    noted = loop.__dict__.get("_aj_read_by_item", {})
    scalar_start: set[str] = set()
    for n in promote:
        other = (
            noted[n]
            if n in noted
            else _read_otherwise_than_by_item(loop.body, n, ctx.scope.qualified)
        )
        if other is None:
            continue
        end = end_env.get(n)
        if end is not None and end.scalar is False:
            ctx.refuse(
                "AJ932",
                loop,
                f"`{n}` enters the loop as a scalar that the loop makes an array, and "
                f"`{other}` reads it otherwise than item by item: converted, it would start "
                f"as that array filled with the scalar (Python's first pass computes with the "
                f"scalar itself); start it as an array of the shape the loop gives it; left as "
                f"Python",
            )
            return False
        scalar_start.add(n)
    for n in scalar_start & shape_only:
        # (a scalar kept a scalar, in a loop that may run no times: its own type, unpromoted)
        promote.remove(n)
        scalar_start.discard(n)
        shape_only.discard(n)

    # a carry keeps its type: a scalar carry is a scalar wherever its value reaches the body's
    # end, so the conditionals rule may select it with jnp.where (no lax.cond in the body)
    scalar_carry = {
        n
        for n in carry
        if n in defined
        and n not in promote
        and env.get(n) is not None
        and env[n].scalar is True
        and env[n].kind in (Kind.STATIC, Kind.TRACED)
    }
    if scalar_carry:
        _mark_scalar_carry(an, loop.body, frozenset(scalar_carry), frozenset())

    # names and pieces
    jax = ctx.names.jax
    jnp = ctx.names.jnp
    body_fn = ctx.fresh("_body")
    cond_fn = ctx.fresh("_cond") if plan.kind == "while" else None
    carry_param = "carry" if not _taken(ctx, "carry") else ctx.fresh("carry")
    # the throw-away name: `_`, unless the function uses it (`for _ in range(n)`: a counter)
    unused = "_" if not _taken(ctx, "_") else ctx.fresh("_unused")
    single = len(carry) == 1
    tuple_text = ", ".join(carry)
    starts = [f"float({n})" if n in floated else n for n in carry]
    carry_expr = starts[0] if single else f"({', '.join(starts)})"

    def unpack(skip: set[str], used: set[str] | None = None) -> list:
        if single:
            return []
        names = [unused if (n in skip or (used is not None and n not in used)) else n for n in carry]
        if all(x == unused for x in names):
            return []
        return replace(f"{', '.join(names)} = {carry_param}")

    param_for_body = carry[0] if single else carry_param
    if (single and carry[0] in plan.targets and plan.kind != "while") or not carry:
        param_for_body = unused
    if param_for_body in (plan.index, plan.elem):
        param_for_body = carry_param
    # body function
    body_stmts = list(plan.index_prelude) + list(loop.body)
    ret = carry[0] if single else (tuple_text if carry else "None")
    if not carry:
        carry_expr = "None"
    if plan.kind == "while":
        head = f"def {body_fn}({param_for_body}):"
        ret_text = f"return {ret}"
    elif plan.kind == "fori":
        head = f"def {body_fn}({plan.index}, {param_for_body}):"
        ret_text = f"return {ret}"
    else:
        head = f"def {body_fn}({param_for_body}, {plan.elem}):"
        ys = ", ".join(items.values()) if items else "None"
        if len(items) > 1:
            ys = f"({ys})"
        ret_text = f"return {'(' + ret + ')' if len(carry) > 1 else ret}, {ys}"
    body_def = replace(
        f"{head}\n    {_PH.format('UNPACK')}\n    {_PH.format('BODY')}\n    {ret_text}\n",
        **{
            _PH.format("UNPACK"): unpack(plan.targets if plan.kind != "while" else set()),
            _PH.format("BODY"): body_stmts,
        },
    )
    if numbers:
        # the conditionals converter, run on the body next, promotes a branch that passes
        # such a carry through (the body's first trace, for the carry's type, sees the number)
        body_def[0]._aj_number_params = numbers
    new: list = list(plan.hoisted)
    if plan.kind == "while":
        plan.test = _while_test(ctx, an, loop, plan.test)
        test_reads = expr_activity(plan.test).reads
        cond_param = carry[0] if single else carry_param
        if single and carry[0] not in test_reads:
            cond_param = unused
        new += replace(
            f"def {cond_fn}({cond_param}):\n    {_PH.format('UNPACK')}\n"
            f"    return {_PH.format('TEST')}\n",
            **{
                _PH.format("UNPACK"): unpack(set(), test_reads),
                _PH.format("TEST"): plan.test,
            },
        )
    new += body_def
    # fixed types for the carry
    if promote or undefined:
        init_parts = ["None" if n in undefined else n for n in carry]
        init = init_parts[0] if single else f"({', '.join(init_parts)})"
        types_name = f"{carry[0]}_type" if single else "carry_types"
        types_name = ctx.fresh(types_name) if _taken(ctx, types_name) else types_name
        if plan.kind == "while":
            call = f"{jax}.eval_shape({body_fn}, {init})"
        elif plan.kind == "fori":
            call = f"{jax}.eval_shape({body_fn}, 0, {init})"
        else:
            call = f"{jax}.eval_shape({body_fn}, {init}, {_PH.format('FIRST')})[0]"
        new += replace(f"{types_name} = {call}", **{_PH.format("FIRST"): plan.xs_first})
        for i, n in enumerate(carry):
            t = types_name if single else f"{types_name}[{i}]"
            if n in undefined and _assigned_tuple(loop, n):
                new += replace(
                    f"{n} = {jax}.tree.map(lambda t: {jnp}.zeros(t.shape, t.dtype), {t})"
                )
            elif n in undefined:
                new += replace(f"{n} = {jnp}.zeros({t}.shape, {t}.dtype)")
            elif n in scalar_start and _assigned_tuple(loop, n):
                new += replace(
                    f"{n} = {jax}.tree.map(lambda t, v: {jnp}.asarray(v, "
                    f"{jnp}.result_type(v, t.dtype)), {t}, {n})"
                )
            elif n in scalar_start and n in numbers:
                # (read otherwise than item by item: its dtype only, a scalar as it starts; a
                # Python number stays weakly typed where the body keeps it so, as Python's
                # does: `int8 * k` stays int8)
                new += replace(
                    f"{n} = {jnp}.asarray({n}, None if {t}.weak_type else "
                    f"{jnp}.result_type({n}, {t}.dtype))"
                )
            elif n in scalar_start:
                # (read otherwise than item by item: its dtype only, a scalar as it starts)
                new += replace(f"{n} = {jnp}.asarray({n}, {jnp}.result_type({n}, {t}.dtype))")
            elif n in promote and _assigned_tuple(loop, n):
                # (a tuple of Python numbers, say: each element given its type)
                new += replace(
                    f"{n} = {jax}.tree.map(lambda t, v: {jnp}.full(t.shape, v, "
                    f"{jnp}.result_type(v, t.dtype)), {t}, {n})"
                )
            elif n in promote and n in numbers:
                # (a Python number stays weakly typed where the body keeps it so, as Python's
                # does: `int8 * k` stays int8)
                new += replace(
                    f"{n} = {jnp}.full({t}.shape, {n}, None if {t}.weak_type else "
                    f"{jnp}.result_type({n}, {t}.dtype))"
                )
            elif n in shape_only:
                new += replace(f"{n} = {jnp}.broadcast_to({n}, {t}.shape)")
            elif n in promote:
                # (widened only: a start the body's type cannot hold, `acc = 0.75` where the
                # body makes an int, is no value to cut; the loop then fails loudly on the
                # two types)
                new += replace(
                    f"{n} = {jnp}.full({t}.shape, {n}, {jnp}.result_type({n}, {t}.dtype))"
                )
    targets_text = carry[0] if single else tuple_text
    if plan.kind == "while":
        new += replace(f"{targets_text} = {lax}.while_loop({cond_fn}, {body_fn}, {carry_expr})")
    elif plan.kind == "fori":
        new += replace(
            f"{targets_text} = {lax}.fori_loop({_PH.format('LO')}, {_PH.format('HI')}, "
            f"{body_fn}, {carry_expr})",
            **{_PH.format("LO"): plan.lo, _PH.format("HI"): plan.hi},
        )
    else:
        lhs = carry[0] if single else (f"({tuple_text})" if carry else unused)
        ys_lhs = ", ".join(items) if items else unused
        if len(items) > 1:
            ys_lhs = f"({ys_lhs})"
        new += replace(
            f"{lhs}, {ys_lhs} = {lax}.scan({body_fn}, {carry_expr}, {_PH.format('XS')})",
            **{_PH.format("XS"): plan.xs},
        )
    new += list(loop.orelse or [])
    _position_defs(new, loop)
    replace_statements(block, [loop], new)
    msg = plan.what.format(lax=lax) + f"; loop state: {', '.join(carry) or 'none'}"
    if promote:
        msg += (
            f"; {', '.join('`' + n + '`' for n in promote)} given the type the loop gives it "
            f"(a loop that runs zero times returns it in that type)"
        )
    if undefined:
        msg += (
            f"; {', '.join('`' + n + '`' for n in undefined)} first assigned in the loop "
            f"(zeros if it runs zero times)"
        )
    ctx.change(plan.code, loop, msg)
    return [st for st in new if isinstance(st, gast.FunctionDef)]


def _note_reads_by_item(ctx: Context, stmts: list) -> None:
    """For each loop with a loop inside, before the loops inside are converted (their
    `lax.while_loop(..., (j, total))` reads the carry as a whole): the answer of
    :func:`_read_otherwise_than_by_item` for each name it writes that holds a Python value or
    a traced int or bool before it (those a loop may start as a scalar filled into an array),
    kept on the loop."""
    for _block, loop in _blocks_of(stmts):
        if not isinstance(loop, (gast.For, gast.While)):
            continue
        if not any(isinstance(s, (gast.For, gast.While)) for s in _own_statements(loop.body)):
            continue
        env = ctx.analysis.env_before(loop)
        written = ctx.analysis.activity.of_block(loop.body).writes
        noted = {}
        for n in sorted(written):
            v = env.get(n)
            if v is not None and (v.static or (v.traced and v.dtype in ("int", "bool"))):
                noted[n] = _read_otherwise_than_by_item(loop.body, n, ctx.scope.qualified)
        loop._aj_read_by_item = noted


def _read_otherwise_than_by_item(body: list, name: str, qualified) -> str | None:
    """The first expression of ``body`` that reads ``name``, or a name computed from it, in
    another way than item by item: not through arithmetic, comparisons and jnp's elementwise
    functions (an index, an attribute, a reduction, a call, a container, a `return`, an item
    update), or None. Where every read is item by item, computing from the scalar filled into
    an array's shape gives that array filled with what the scalar gives. A test (`if p > 0`)
    counts as item by item: Python's truth of an array of more than one item is an error."""
    found = _first_read_otherwise(body, name, qualified)
    if found is None:
        return None
    text = _unparse(found).strip()
    return text if len(text) <= 60 else text[:57] + "..."


def _first_read_otherwise(body: list, name: str, qualified):
    # (the body's last write of the name, not under a condition: `eval_shape` of the body with
    # the scalar gives the shape Python's first pass gives it there, so from there on the filled
    # array holds what Python's value does, as on every later pass)
    last = None
    for st in body:
        targets = st.targets if isinstance(st, gast.Assign) else [getattr(st, "target", None)]
        if isinstance(st, (gast.Assign, gast.AugAssign)) and any(
            isinstance(t, gast.Name) and t.id == name for t in targets
        ):
            last = st
    derived = {name}
    for _ in range(2):  # (twice: a name computed from it late in the body is read early next pass)
        todo = list(reversed(body))
        while todo:
            st = todo.pop()
            if st is last:
                bad = _statement_not_by_item(st, derived, qualified)
                if bad is not None:
                    return bad
                derived.discard(name)
                continue
            if isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
                if isinstance(st, gast.ClassDef):
                    reads = {n.id for n in walk_nodes(st) if isinstance(n, gast.Name)}
                else:
                    reads = function_free_reads(st)
                if reads & derived:
                    return st  # (a closure or a class: what it does with it is not followed)
                continue
            tests = [getattr(st, "test", None)] if isinstance(st, (gast.If, gast.While)) else []
            for t in tests:
                bad = _not_by_item(t, derived, qualified)
                if bad is not None:
                    return bad
            if isinstance(st, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
                bad = _statement_not_by_item(st, derived, qualified)
                if bad is not None:
                    return bad
                continue
            if isinstance(st, (gast.For, gast.AsyncFor)):
                if expr_activity(st.iter).reads & derived:
                    return st.iter
            elif not isinstance(st, (gast.If, gast.While)):
                # (any other statement's own expressions: `return p`, `print(p)`, `with`...)
                for _f, v in gast.iter_fields(st):
                    parts = v if isinstance(v, list) else [v]
                    for part in parts:
                        if isinstance(part, gast.expr) and expr_activity(part).reads & derived:
                            return part
            for block in ("orelse", "finalbody", "body"):
                todo += reversed(getattr(st, block, None) or [])
            for h in reversed(getattr(st, "handlers", None) or []):
                todo += reversed(h.body)
    return None


def _statement_not_by_item(st, derived: set[str], qualified):
    """For an assignment: the part of it that reads a name of ``derived`` otherwise than item
    by item, or None, the names it binds from them added to ``derived`` (those it binds from
    other values taken out)."""
    value = st.value
    if value is None:
        return None
    targets = st.targets if isinstance(st, gast.Assign) else [st.target]
    pairs = []
    for t in targets:
        if isinstance(t, gast.Tuple) and isinstance(value, gast.Tuple) and len(t.elts) == len(
            value.elts
        ):
            pairs += list(zip(t.elts, value.elts, strict=True))
        else:
            pairs.append((t, value))
    for t, v in pairs:
        bad = _not_by_item(v, derived, qualified)
        if bad is not None:
            return bad
        reads = bool(expr_activity(v).reads & derived)
        if isinstance(st, gast.AugAssign) and isinstance(t, gast.Name):
            reads = reads or t.id in derived
        if not reads:
            if isinstance(t, gast.Name) and isinstance(st, gast.Assign):
                derived.discard(t.id)
            continue
        if isinstance(t, gast.Subscript):
            continue  # (an item update puts the value's items in: broadcast)
        names = _unpacked_names(t)
        if names is None:
            return st  # (an attribute)
        derived.update(names)  # (a tuple state: each part filled, as promoted)
    return None


def _unpacked_names(target) -> list[str] | None:
    """The names a target binds (`p`, `a, b`, `(a, *rest)`), or None where it binds anything
    else (an attribute, an item)."""
    if isinstance(target, gast.Name):
        return [target.id]
    if isinstance(target, gast.Starred):
        return _unpacked_names(target.value)
    if isinstance(target, (gast.Tuple, gast.List)):
        out: list[str] = []
        for e in target.elts:
            names = _unpacked_names(e)
            if names is None:
                return None
            out += names
        return out
    return None


def _not_by_item(node, derived: set[str], qualified):
    """The part of ``node`` that reads a name of ``derived`` otherwise than item by item, or
    None (see `_read_otherwise_than_by_item`)."""
    if isinstance(node, gast.Name) or isinstance(node, gast.Constant):
        return None
    if isinstance(node, gast.BinOp) and not isinstance(node.op, gast.MatMult):
        return _not_by_item(node.left, derived, qualified) or _not_by_item(
            node.right, derived, qualified
        )
    if isinstance(node, gast.UnaryOp):
        return _not_by_item(node.operand, derived, qualified)
    if isinstance(node, gast.Compare):
        for part in [node.left, *node.comparators]:
            bad = _not_by_item(part, derived, qualified)
            if bad is not None:
                return bad
        return None
    if isinstance(node, gast.BoolOp):
        for part in node.values:  # (a truth test of each: jnp.logical_and's, item by item)
            bad = _not_by_item(part, derived, qualified)
            if bad is not None:
                return bad
        return None
    if isinstance(node, (gast.Tuple, gast.List)):
        for part in node.elts:  # (a tuple state: each part promoted on its own)
            bad = _not_by_item(part, derived, qualified)
            if bad is not None:
                return bad
        return None
    if isinstance(node, gast.IfExp):
        for part in (node.test, node.body, node.orelse):
            bad = _not_by_item(part, derived, qualified)
            if bad is not None:
                return bad
        return None
    if not expr_activity(node).reads & derived:
        return None
    if isinstance(node, gast.Call) and not any(
        expr_activity(k.value).reads & derived for k in node.keywords
    ):
        fname = dotted_name(node.func) or ""
        qual = qualified(fname) or fname
        short = qual.rsplit(".", 1)[1] if "." in qual else qual
        by_item = qual.startswith("jax.numpy.") and short in ELEMENTWISE_FUNCTIONS
        if _at_update(node):
            # `y.at[i].set(p)`: the value's items put in (broadcast), as `y[i] = p` does
            if expr_activity(node.func.value).reads & derived:
                return node
            for a in node.args:
                bad = _not_by_item(a, derived, qualified)
                if bad is not None:
                    return bad
            return None
        if isinstance(node.func, gast.Attribute) and node.func.attr == "astype":
            by_item = _not_by_item(node.func.value, derived, qualified) is None
            by_item = by_item and not any(expr_activity(a).reads & derived for a in node.args)
            return None if by_item else node
        if by_item:
            for a in node.args:
                bad = _not_by_item(a, derived, qualified)
                if bad is not None:
                    return bad
            return None
    return node


def _mark_scalar_carry(an: FunctionAnalysis, stmts: list, scalars: frozenset, later: frozenset):
    """Mark each ``if`` of a loop body with the scalar carry names whose value after it reaches
    the body's end unchanged (``later``: names written after the block, up to the end).

    The loop's carry has a fixed type, and ``jnp.where`` of two values broadcasts to a scalar
    only when both are scalars: for these names selecting with ``jnp.where`` is exact.
    """
    after = set(later)
    for s in reversed(stmts):
        if isinstance(s, gast.If):
            inner = frozenset(after)
            s._aj_scalar_carry = scalars - inner
            _mark_scalar_carry(an, s.body, scalars, inner)
            _mark_scalar_carry(an, s.orelse, scalars, inner)
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            after.add(s.name)
        else:
            after |= an.activity.of_block([s]).writes


# -- break / continue / return -> flags ---------------------------------------------------


def _exit_reachable_by_ifs(stmts: list, target) -> bool:
    """Whether ``target`` sits in ``stmts`` or in `if` statements nested in them, only."""
    for s in stmts:
        if s is target:
            return True
        if isinstance(s, gast.If) and (
            _exit_reachable_by_ifs(s.body, target) or _exit_reachable_by_ifs(s.orelse, target)
        ):
            return True
    return False


def _live_prefix(stmts: list) -> list:
    """``stmts`` up to its first break/continue/return (what follows it never runs)."""
    k = next((k for k, s in enumerate(stmts) if isinstance(s, _EXITS)), None)
    return stmts if k is None else stmts[: k + 1]


def _has_exit(stmts: list) -> set[str]:
    """The kinds of exit (break/continue/return) in a block of this loop's body."""
    return {k for k, _ in _exits(stmts)}


_FLAG_COMPARE = (gast.Eq, gast.NotEq, gast.Lt, gast.LtE, gast.Gt, gast.GtE)


def _boolean_test(test) -> bool:
    """Whether ``test`` surely gives a bool: one comparison, a flag of an inner loop, or
    and/or/not of such."""
    if getattr(test, "_aj_flag", False):
        return True
    if isinstance(test, gast.Compare):
        return len(test.ops) == 1 and isinstance(test.ops[0], _FLAG_COMPARE)
    if isinstance(test, gast.BoolOp):
        return all(_boolean_test(v) for v in test.values)
    if isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not):
        return _boolean_test(test.operand)
    return False


def _ends_in_exit(s) -> bool:
    """``if <bool test>: ...; break`` (or continue / return), with no other exit in the `if`."""
    return (
        bool(s.body)
        and isinstance(s.body[-1], (gast.Break, gast.Continue, gast.Return))
        and not _has_exit(s.body[:-1] + s.orelse)
        and _boolean_test(s.test)
        and not any(isinstance(n, gast.NamedExpr) for n in walk_nodes(s.test))
    )


def _init_flag(body: list, flag: str) -> list:
    """``flag = False`` at the start of an iteration, unless its first statements set it."""
    for st in body:
        if _assigns(st, flag):
            return body
        if not (isinstance(st, gast.Assign) and isinstance(st.value, gast.Constant)):
            break
    return replace(f"{flag} = False") + body


def _assigns(stmt, name: str) -> bool:
    return (
        isinstance(stmt, gast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], gast.Name)
        and stmt.targets[0].id == name
    )


def _not_flags(flags: list[str]) -> str:
    return f"not {flags[0]}" if len(flags) == 1 else f"not ({' or '.join(flags)})"


_EXITS = (gast.Break, gast.Continue, gast.Return)


def _lower_exits(ctx: Context, block: list, loop, plan: _Plan, forced: dict[gast.AST, _Plan]):
    """Rewrite break/continue/return in ``loop`` as flags and guarded ``if`` statements, in place.

    ``break`` sets ``break_`` (carried; the loop stops on it), ``continue`` sets ``continue_``
    (reset at the start of each iteration), ``return v`` sets ``do_return``/``retval`` and
    ``break_``; the statements after each of them run under ``if not <flag>:``. A `for` over a
    range that can break becomes a `while` over a counter, so it stops early.
    """
    dead: list = []  # statements after an exit: never run, left out of the converted loop
    first = next((k for k, s in enumerate(loop.body) if isinstance(s, _EXITS)), None)
    if first and isinstance(loop.body[first], gast.Continue):
        # a `continue` at the end of the body (what follows it is dead) only ends the iteration,
        # as the end of the body does: no flag for it
        dead += loop.body[first + 1 :]
        loop.body = loop.body[:first]
    kinds = _has_exit(_live_prefix(loop.body))  # an exit in dead code makes no flag
    jnp = ctx.names.jnp
    brk = ctx.fresh("break_") if kinds & {"break", "return"} else None
    cont = ctx.fresh("continue_") if "continue" in kinds else None
    tail = _tail_return(block, loop, ctx.fn, ctx.scope) if "return" in kinds else None
    # `return v` before a loop-independent final return: `result` carried, starting as that
    # value; otherwise the loop stops (break) and `if returned: return v` follows it, `v`
    # computed from the state the loop had when it returned
    retval = ctx.fresh("result") if tail is not None else None
    ret_node = None
    returned = None
    if "return" in kinds and tail is None:
        ret_node = next(s for k, s in _exits(loop.body) if k == "return")
        returned = ctx.fresh("returned") if "break" in kinds else brk

    def flags_of(kset: set[str]) -> list[str]:
        out = []
        if kset & {"break", "return"} and brk:
            out.append(brk)
        if "continue" in kset and cont:
            out.append(cont)
        return out

    def guard(stmts: list) -> list:
        out: list = []
        for idx, s in enumerate(stmts):
            if isinstance(s, _EXITS):
                dead.extend(stmts[idx + 1 :])
            if isinstance(s, gast.Break):
                out += replace(f"{brk} = True")
                return out
            if isinstance(s, gast.Continue):
                out += replace(f"{cont} = True")
                return out
            if isinstance(s, gast.Return) and retval:
                out += replace(
                    f"{retval} = {_PH.format('V')}\n{brk} = True",
                    **{_PH.format("V"): s.value},
                )
                return out
            if isinstance(s, gast.Return):
                out += replace(f"{brk} = True")
                if returned != brk:
                    out += replace(f"{returned} = True")
                return out
            inner = _has_exit([s]) if isinstance(s, gast.If) else set()
            if inner and _ends_in_exit(s):
                # `if c: ...; break` -> `break_ = c` then `if break_: ...`: the flag is the
                # condition itself (no select of a constant into the flag in the body)
                last = s.body[-1]
                flag = (cont if isinstance(last, gast.Continue) else brk) or ""
                out += replace(
                    f"{flag} = {_PH.format('T')}", **{_PH.format("T"): _logical(ctx, s.test)}
                )
                _copy_position(out[-1], s)
                s.body = s.body[:-1]
                if isinstance(last, gast.Return) and retval:
                    s.body += replace(
                        f"{retval} = {_PH.format('V')}", **{_PH.format("V"): last.value}
                    )
                elif isinstance(last, gast.Return) and returned != brk:
                    # `returned` is False while the loop runs: it becomes the condition too
                    out += replace(f"{returned} = {brk}")
                if s.body or s.orelse:
                    s.test = replace_expr(flag if s.body else f"not {flag}")
                    if not s.body:
                        s.body, s.orelse = s.orelse, []
                    out.append(s)
            elif inner:
                s.body = guard(s.body) or replace("pass")
                s.orelse = guard(s.orelse)
                out.append(s)
            if inner:
                rest = stmts[idx + 1 :]
                if rest:
                    guarded = replace(
                        f"if {_not_flags(flags_of(inner))}:\n    {_PH.format('B')}",
                        **{_PH.format("B"): guard(rest)},
                    )
                    _copy_position(guarded[0], s)
                    out += guarded
                return out
            out.append(s)
        return out

    try:
        body = guard(list(loop.body))
    finally:
        guard = None  # a recursive closure is a reference cycle: broken here, freed at once
    if dead:
        # what was reported inside the dead code (a nested loop kept, an update rewritten) is
        # not in the output: the pipeline drops those reports
        ctx.fn._aj_dropped = getattr(ctx.fn, "_aj_dropped", []) + [ctx.location(d) for d in dead]
    if cont:
        body = _init_flag(body, cont)
    # the loop's own state may tell that it broke: then `break_` is local to the body
    encoded = (
        _stop_encoded(ctx, block, loop, body, brk, plan)
        if brk and kinds == {"break"} and not loop.orelse and plan.kind in ("while", "fori")
        else None
    )
    before: list = []
    if brk and encoded is None:
        before += replace(f"{brk} = False")
    if retval and tail is not None:
        # the value returned when the loop does not return: computed before the loop (it reads
        # nothing the loop changes), replaced in the loop by the value it returns
        before += replace(f"{retval} = {_PH.format('V')}", **{_PH.format("V"): tail.value})
        replace_statements(block, [tail], replace(f"return {retval}"))
    after: list = []
    if ret_node is not None:
        if returned != brk:
            before += replace(f"{returned} = False")
        after += replace(
            f"if {returned}:\n    return {_PH.format('V')}", **{_PH.format("V"): ret_node.value}
        )
        _copy_position(after[-1], ret_node)
        after[-1].test._aj_flag = True  # a bool: an enclosing loop's flag can be set to it
    orelse = list(loop.orelse or [])
    if orelse and brk:
        after += replace(f"if not {brk}:\n    {_PH.format('B')}", **{_PH.format("B"): orelse})
        orelse = []
    parts = [k for k in ("break", "continue", "return") if k in kinds]
    what = ", ".join(f"`{k}`" for k in parts)
    flags = ", ".join(f"`{f}`" for f in dict.fromkeys((brk, cont, retval, returned)) if f)
    new_loop = loop
    if isinstance(loop, gast.While):
        loop.body = body
        loop.orelse = orelse
        going = encoded or f"{jnp}.logical_not({brk})"
        if brk and isinstance(loop.test, gast.Constant) and loop.test.value is True:
            loop.test = replace_expr(going)
        elif brk:
            loop.test = replace_expr(
                f"{jnp}.logical_and({going}, {_PH.format('T')})",
                **{_PH.format("T"): _while_test(ctx, ctx.analysis, loop, loop.test)},
            )
        plan.test = loop.test
        forced[loop] = plan
    elif plan.kind == "fori" and (brk or plan.step is not None):
        # a range that can stop early, or whose step is traced: a while loop over a counter
        an = ctx.analysis
        own_index = (
            not plan.index_prelude
            and (ret_node is None or plan.index not in expr_activity(ret_node.value).reads)
            and plan.index not in an.activity.of_block(loop.body).writes
            and plan.index not in _live_after(an, loop)
            and plan.index not in read_by_closures(an.fn, loop.body, an.scope)  # (by a later call)
        )
        if own_index:
            # the loop variable is only read in the body: it is the counter itself
            counter, prelude = plan.index, []
        else:
            counter = plan.index if plan.index_prelude else ctx.fresh("k")
            prelude = list(plan.index_prelude)
            if not prelude:
                prelude = replace(f"{plan.index} = {counter}")
        before += plan.hoisted
        written = an.activity.of_block(loop.body).writes | plan.targets
        if expr_activity(plan.hi).reads & written:
            # `range` reads its stop once; the while loop's condition reads it every iteration
            stop = ctx.fresh("stop")
            before += replace(f"{stop} = {_PH.format('HI')}", **{_PH.format("HI"): plan.hi})
            plan.hi = replace_expr(stop)
        before += replace(f"{counter} = {_PH.format('LO')}", **{_PH.format("LO"): plan.lo})
        hi, st = _PH.format("HI"), _PH.format("ST")
        if plan.step is not None:
            # Python's range: up to `stop` for a positive step, down to it for a negative one
            in_range = f"{jnp}.where({st} > 0, {counter} < {hi}, ({st} < 0) & ({counter} > {hi}))"
            step_text = st
        else:
            in_range = f"{counter} < {hi}"
            step_text = "1"
        going = encoded or f"{jnp}.logical_not({brk})"
        test_text = f"{jnp}.logical_and({going}, {in_range})" if brk else in_range
        test = replace_expr(
            test_text,
            **{hi: plan.hi, st: copy_expr(plan.step) if plan.step is not None else None},
        )
        increment = replace(
            f"{counter} = {counter} + {step_text}", **{st: plan.step} if plan.step else {}
        )
        new_loop = gast.While(test=test, body=prelude + body + increment, orelse=orelse)
        _copy_position(new_loop, loop)
        why = " (it can stop early)" if brk else ""
        forced[new_loop] = _Plan(
            "while", plan.code, plan.what.replace("fori_loop", "while_loop") + why, test=test
        )
    else:
        loop.body = (
            replace(f"if not {brk}:\n    {_PH.format('B')}", **{_PH.format("B"): body})
            if (brk)
            else body
        )
        loop.orelse = orelse
        if plan.kind == "fori":
            # (converted by this plan, made for its traced exits: planned again without them,
            # a short static range would stay Python, its lowered `continue` a traced `if`)
            forced[loop] = plan
    new_loop._aj_flags = frozenset(f for f in (brk, cont, returned) if f)
    replace_statements(block, [loop], before + [new_loop] + after)
    if not kinds:
        return new_loop
    ctx.change(
        "AJ205",
        loop,
        f"{what} inside a converted loop -> flags {flags} carried in the loop state and "
        f"guarded `if` statements"
        if encoded is None
        else f"{what} inside a converted loop -> flag {flags} in the body and guarded `if` "
        f"statements; the loop runs while `{encoded}` (true in its state until the break), "
        f"no flag carried",
    )
    return new_loop


def _int_literal(node) -> int | bool | None:
    """The value of an int or bool literal (``-1`` included), else None."""
    if isinstance(node, gast.Constant) and type(node.value) in (int, bool):
        return node.value
    if (
        isinstance(node, gast.UnaryOp)
        and isinstance(node.op, (gast.USub, gast.UAdd))
        and isinstance(node.operand, gast.Constant)
        and type(node.operand.value) is int
    ):
        return -node.operand.value if isinstance(node.op, gast.USub) else node.operand.value
    return None


def _stop_encoded(ctx: Context, block: list, loop, body: list, brk: str, plan: _Plan) -> str | None:
    """A test on the loop's own state that is false exactly once the loop broke, or None.

    ``v = c`` (an int or bool literal) before the loop, and the body's only write of ``v`` is
    ``v = w`` in the ``if break_:`` that follows ``break_ = <test>``, where ``w`` surely differs
    from ``c`` (another literal of the same type, the counter of a ``range(lo, ...)`` with
    ``c < lo``, or a name set to a literal ``lo > c`` before the loop that the loop only
    increases, ``k += 1``): then ``v`` still holds ``c`` while the loop runs, and the condition reads it
    instead of carrying ``break_`` (one value less in the loop state; the flag is local to the
    body). The test is an order comparison (``v < lo``), which XLA's CPU code runs faster than an
    equality.
    """
    sets = [k for k, s in enumerate(body) if _assigns(s, brk)]
    stores = [
        n
        for n in walk_nodes(gast.Module(body=body, type_ignores=[]))
        if isinstance(n, gast.Name) and n.id == brk and isinstance(n.ctx, (gast.Store, gast.Del))
    ]
    if len(sets) != 1 or len(stores) != 1 or sets[0] + 1 >= len(body):
        return None
    k = sets[0]
    taken = body[k + 1]
    if not (
        isinstance(taken, gast.If)
        and isinstance(taken.test, gast.Name)
        and taken.test.id == brk
        and not taken.orelse
    ):
        return None
    i = next((j for j, s in enumerate(block) if s is loop), None)
    if i is None:
        return None
    declared = {
        name
        for n in walk_nodes(ctx.fn)
        if isinstance(n, (gast.Global, gast.Nonlocal))
        for name in n.names
    }
    everything = gast.Module(body=body, type_ignores=[])
    for st in taken.body:
        if not (isinstance(st, gast.Assign) and len(st.targets) == 1):
            continue
        target = st.targets[0]
        if not isinstance(target, gast.Name) or target.id in declared or target.id == brk:
            continue
        v = target.id
        writes = [
            n
            for n in walk_nodes(everything)
            if isinstance(n, gast.Name) and n.id == v and isinstance(n.ctx, (gast.Store, gast.Del))
        ]
        if writes != [target] or v in ActivityAnalysis().of_block(body).mutates:
            continue
        initial = _initial_literal(ctx, block[:i], v)
        if initial is None or not -(2**31) <= initial < 2**31:
            continue
        new = _int_literal(st.value)
        if new is not None and type(new) is type(initial) and new != initial:
            if isinstance(initial, bool):
                return v if initial else f"{ctx.names.jnp}.logical_not({v})"
            if -(2**31) <= new < 2**31:
                return f"{v} < {new}" if initial < new else f"{v} > {new}"
            continue
        if type(initial) is not int or not isinstance(st.value, gast.Name):
            continue
        w = st.value.id
        lo: int | bool | None = None
        if (
            plan.kind == "fori"
            and w == plan.index
            and plan.step is None
            and not plan.index_prelude
            and plan.index not in ctx.analysis.activity.of_block(loop.body).writes
        ):
            lo = _const_int(plan.lo)  # the counter of a range with step 1
        elif w not in declared and w not in (v, brk, plan.index) and _grows_only(body, w):
            lo = _initial_literal(ctx, block[:i], w)  # a counter that only grows
        if type(lo) is int and initial < lo:
            return f"{v} < {lo}"
    return None


def _initial_literal(ctx: Context, before: list, name: str) -> int | bool | None:
    """The int or bool literal ``name`` is set to by the last of ``before`` that writes it."""
    for prev in reversed(before):
        if isinstance(prev, gast.Assign) and _assigns(prev, name):
            return _int_literal(prev.value)
        act = ctx.analysis.activity.of(prev)
        if name in act.writes | act.mutates or any(
            isinstance(n, gast.Name) and n.id == name and not isinstance(n.ctx, gast.Load)
            for n in walk_nodes(prev)
        ):
            return None
    return None


def _grows_only(body: list, name: str) -> bool:
    """Whether every write of ``name`` in ``body`` adds a positive int literal to it
    (``k += 1``, ``k = k + 2``)."""
    added = set()
    for n in walk_nodes(gast.Module(body=body, type_ignores=[])):
        if isinstance(n, gast.AugAssign) and isinstance(n.op, gast.Add):
            target, step = n.target, n.value
        elif (
            isinstance(n, gast.Assign)
            and len(n.targets) == 1
            and isinstance(n.value, gast.BinOp)
            and isinstance(n.value.op, gast.Add)
            and isinstance(n.value.left, gast.Name)
            and n.value.left.id == name
        ):
            target, step = n.targets[0], n.value.right
        else:
            continue
        lit = _int_literal(step)
        if isinstance(target, gast.Name) and target.id == name and type(lit) is int and lit > 0:
            added.add(id(target))
    return all(
        id(n) in added
        for n in walk_nodes(gast.Module(body=body, type_ignores=[]))
        if isinstance(n, gast.Name) and n.id == name and not isinstance(n.ctx, gast.Load)
    )


def _logical(ctx: Context, test, leaf=None):
    """``a and b`` / ``a or b`` / ``not a`` on traced values -> jnp.logical_and/or/not (each
    operand given to ``leaf`` first, where one is given)."""
    jnp = ctx.names.jnp
    if isinstance(test, gast.BoolOp):
        fn = "logical_and" if isinstance(test.op, gast.And) else "logical_or"
        out = _logical(ctx, test.values[0], leaf)
        for v in test.values[1:]:
            out = replace_expr(
                f"{jnp}.{fn}({_PH.format('A')}, {_PH.format('B')})",
                **{_PH.format("A"): out, _PH.format("B"): _logical(ctx, v, leaf)},
            )
        return out
    if isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not):
        return replace_expr(
            f"{jnp}.logical_not({_PH.format('A')})",
            **{_PH.format("A"): _logical(ctx, test.operand, leaf)},
        )
    return test if leaf is None else leaf(test)


def _while_test(ctx: Context, an: FunctionAnalysis, loop, test):
    """A `while` test as `lax.while_loop`'s `cond_fun` returns it: `and` / `or` / `not` ->
    jnp's logical functions, their operands of one item each made a scalar (`not y` of
    `y = x[:1]`), a test of its own a bool scalar (:func:`_truth`)."""
    if isinstance(test, gast.BoolOp) or (
        isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not)
    ):
        return _logical(ctx, test, functools.partial(_truth, ctx, an, loop, as_bool=False))
    return _truth(ctx, an, loop, test)


def _truth(ctx: Context, an: FunctionAnalysis, loop, test, as_bool: bool = True):
    """A `while` test the user wrote as a bool scalar, as `lax.while_loop`'s `cond_fun` must
    return it: Python's truth of a number is `!= 0` (`while n:` of an int), and of an array of
    one item its item (`while x[:1] > 0:`). Tests jnp's logical functions or autojit's own flags
    make are bools already."""
    if not getattr(test, "_aj_orig", False):
        return test
    argument = bool_argument(ctx, test)
    if argument is not None:  # (`while bool(x[i] > 0):`)
        return _truth(ctx, an, loop, argument, as_bool)
    reduction = builtin_reduction(ctx, test, loop)
    if reduction is not None:  # (`while any(x > 1):`, of a 1-D `x`)
        return replace_expr(f"{ctx.names.jnp}.{reduction[0]}(A)", A=reduction[1])
    v = _head_value(an, loop, test)
    jnp = ctx.names.jnp
    if v.scalar is False:
        test = replace_expr(f"{jnp}.reshape({_PH.format('T')}, ())", **{_PH.format("T"): test})
    if as_bool and v.dtype != "bool" and not isinstance(test, gast.Compare):
        test = gast.Compare(left=test, ops=[gast.NotEq()], comparators=[gast.Constant(0, None)])
    return test


def _copy_position(node, src) -> None:
    for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
        if hasattr(src, attr):
            setattr(node, attr, getattr(src, attr))


def _position_defs(stmts: list, loop) -> None:
    """Give the generated helper functions the loop's position, for diagnostics inside them."""
    src = loop if hasattr(loop, "lineno") else getattr(loop, "_aj_replaces", None)
    if src is None or not hasattr(src, "lineno"):
        return
    for s in stmts:
        if isinstance(s, gast.FunctionDef) and not hasattr(s, "lineno"):
            for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
                if hasattr(src, attr):
                    setattr(s, attr, getattr(src, attr))


def _tail_return(block: list, loop, fn, scope=None):
    """The ``return <value>`` right after ``loop`` when the value does not depend on the loop
    (nor do the closures of ``fn`` it calls: `return h()` with `h = lambda: s * 10`), and is
    no function whose derivative is infinite somewhere (`(x / y).sum()`): carried as the
    result from the start, it would be computed before the loop, where a `return` in the loop
    guards it in Python (its gradient NaN where that `return` avoided a division by 0)."""
    idx = next((i for i, s in enumerate(block) if s is loop), None)
    if idx is None or idx + 1 >= len(block) or loop.orelse:
        return None
    ret = block[idx + 1]
    if not isinstance(ret, gast.Return) or ret.value is None:
        return None
    changed = set()
    for s in _own_statements(loop.body):
        changed |= expr_activity(s).writes if not isinstance(s, gast.FunctionDef) else set()
        for t in getattr(s, "targets", []) or []:
            changed |= expr_activity(t).writes
        if isinstance(s, (gast.AugAssign, gast.AnnAssign, gast.For)):
            changed |= expr_activity(s.target).writes
    if isinstance(loop, gast.For):
        changed |= expr_activity(loop.target).writes
    reads = expr_activity(ret.value).reads
    closures = closures_outside(fn, loop.body)
    for name in reads & closures.keys():
        reads = reads | closures[name]
    if reads & changed:
        return None
    if any(isinstance(n, (gast.NamedExpr, gast.Yield, gast.Await)) for n in walk_nodes(ret.value)):
        return None
    if scope is not None and singular_somewhere(scope, ret.value):
        return None
    return ret


_STACKERS = {"jax.numpy.stack", "jax.numpy.array", "jax.numpy.asarray"}


def _stacked_appends(ctx: Context, an: FunctionAnalysis, block: list, loop, plan: _Plan) -> dict:
    """Lists filled by one ``lst.append(v)`` per iteration of a loop with a static count.

    ``{name: append statement}`` when each list starts empty right before the loop, is appended
    to once at the top level of the body, and is only read after it as ``jnp.stack(lst)`` /
    ``jnp.array(lst)``: scan then stacks the values (its ``ys``), which is the same array.
    """
    if plan.code not in ("AJ203", "AJ204"):
        return {}
    out: dict = {}
    for s in loop.body:
        call = s.value if isinstance(s, gast.Expr) else None
        if not (
            isinstance(call, gast.Call)
            and isinstance(call.func, gast.Attribute)
            and call.func.attr == "append"
            and isinstance(call.func.value, gast.Name)
            and len(call.args) == 1
            and not call.keywords
        ):
            continue
        name = call.func.value.id
        if name in out or an.value(call.func.value, s).kind is not Kind.LIST:
            return {}
        out[name] = s
    if not out:
        return {}
    idx = next(i for i, s in enumerate(block) if s is loop)
    for name, stmt in out.items():
        # the only use inside the loop is the append
        uses = [
            n for b in loop.body for n in walk_nodes(b) if isinstance(n, gast.Name) and n.id == name
        ]
        if len(uses) != 1 or uses[0] is not stmt.value.func.value:
            return {}
        # starts empty right before the loop
        started = False
        for prev in reversed(block[:idx]):
            act = an.activity.of(prev)
            if (
                isinstance(prev, gast.Assign)
                and len(prev.targets) == 1
                and isinstance(prev.targets[0], gast.Name)
                and prev.targets[0].id == name
                and isinstance(prev.value, gast.List)
                and not prev.value.elts
            ):
                started = True
                break
            if name in act.reads | act.writes:
                break
        if not started:
            return {}
        if not _only_stacked_after(ctx, an, loop, name):
            return {}
    return out


def _only_stacked_after(ctx: Context, an: FunctionAnalysis, loop, name: str) -> bool:
    return _stacker_calls(ctx, loop, name) is not None


def _stacker_calls(ctx: Context, loop, name: str) -> list | None:
    """The ``jnp.stack(name)``-like calls that are the only reads of ``name`` outside ``loop``."""
    calls = []
    parents: dict[int, object] = {}
    for n in walk_bfs(ctx.fn):  # (gast.walk's nodes in its order, listed at once)
        for c in child_nodes(n):
            parents[id(c)] = n
    inside = {id(n) for n in walk_bfs(loop)}
    for n in walk_bfs(ctx.fn):
        if not (isinstance(n, gast.Name) and n.id == name) or id(n) in inside:
            continue
        if isinstance(n.ctx, gast.Store):
            continue
        parent = parents.get(id(n))
        if not (
            isinstance(parent, gast.Call)
            and parent.args == [n]
            and not parent.keywords
            and (ctx.scope.qualified(dotted_name(parent.func) or "") or "") in _STACKERS
        ):
            return None
        calls.append(parent)
    return calls


class _Unstack(gast.NodeTransformer):
    """``jnp.stack(out)`` -> ``out`` once scan gives ``out`` stacked (stacking an array's rows
    again would trace one slice per row)."""

    def __init__(self, calls: dict[int, str]) -> None:
        self.calls = calls

    def visit_Call(self, node):
        if id(node) in self.calls:
            return gast.Name(
                id=self.calls[id(node)], ctx=gast.Load(), annotation=None, type_comment=None
            )
        self.generic_visit(node)
        return node


_EXITS = (gast.Break, gast.Continue, gast.Return)


def _traced_exit(an: FunctionAnalysis, loop, kinds: tuple = _EXITS) -> bool:
    """Whether a break/continue/return of this loop sits under an `if` whose condition is
    traced: the loop fails under jit as Python (a `continue` too: what runs after it depends on
    the traced condition), so it is converted, its exits lowered to flags."""
    return _exit_under_traced_if(an, loop.body, False, kinds)


def _exit_under_traced_if(an: FunctionAnalysis, stmts: list, traced: bool, kinds: tuple) -> bool:
    # a module function, not a recursive closure: that is a reference cycle (garbage that
    # only the collector frees)
    for st in stmts:
        if isinstance(st, kinds) and traced:
            return True
        if isinstance(st, gast.If):
            t = traced or an.value(st.test, st).kind is not Kind.STATIC
            if _exit_under_traced_if(an, st.body, t, kinds) or _exit_under_traced_if(
                an, st.orelse, t, kinds
            ):
                return True
    return False


def _assigned_tuple(loop, name: str) -> bool:
    """Whether the loop assigns a tuple or list display to ``name`` (its zeros are a tree)."""
    for st in _own_statements(loop.body):
        if (
            isinstance(st, gast.Assign)
            and any(isinstance(t, gast.Name) and t.id == name for t in st.targets)
            and isinstance(st.value, (gast.Tuple, gast.List))
        ):
            return True
    return False
