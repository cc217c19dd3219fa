"""AJ403: reductions of a boolean selection -> masked reductions with a static shape.

``x[mask]`` has as many elements as ``mask`` has True values, which jit cannot know
(``NonConcreteBooleanIndexError``). Reduced right away, the selection is not needed: the
reduction runs over the whole array with the unselected elements replaced by the reduction's
identity element.

- ``x[mask].sum()``, ``jnp.sum(x[mask])`` -> ``jnp.where(mask, x, 0).sum()``
- ``.prod()`` -> identity 1; ``.mean()`` -> ``jnp.mean(x, where=mask)`` (an empty selection
  gives nan, as NumPy's mean of an empty array does)
- ``.max()`` / ``.min()`` -> identity ``-jnp.inf`` / ``jnp.inf`` for floats, the dtype's smallest /
  largest integer for integers. An empty selection, where NumPy raises "zero-size array to
  reduction operation", gives that identity (a value cannot raise under jit).
- ``len(x[mask])``, ``x[mask].size`` -> ``jnp.count_nonzero(mask)`` (times the size of the axes
  the mask does not cover).

Only when the mask is known to be boolean. A mask of another shape than ``x`` selects along x's
leading axes, as in NumPy: it is broadcast against them. An index whose dtype the analysis cannot
see (a parameter) may be a mask or integers: the rewrite is chosen by its dtype when jax traces
(``... if jnp.result_type(mask) == jnp.bool_ else x[mask].sum()``), as AJ304 does for updates.

The functions whose result size depends on the values (``jnp.nonzero``, one-argument
``jnp.where``, ``jnp.unique``, ``jnp.argwhere``) are refused on traced values unless they pass
``size=`` (AJ940-AJ943): the refusal names ``size=`` and ``fill_value=``.
"""

from __future__ import annotations

import re

import gast

from ..analysis import Kind, dotted_name
from ..analysis.effects import effect_in
from ..analysis.statements import walk_statements
from ..gastconv import ChildFields
from ..templates import copy_expr, name, replace_expr
from .base import Context, StatementExpressionRewriter, WordTrigger, is_index_dtype_choice

CODES = ("AJ403", "AJ921", "AJ940", "AJ941", "AJ942", "AJ943")

# what a function's text must contain for this converter to have work there (a superset): a
# selection reduced (`x[m].sum()`), a size-dependent call (`jnp.nonzero(`), or a reduction call
# in a text with a selection `x[mask]` somewhere (`x.sum()` alone is not)


class _Trigger:
    """`re.search(r"\\]\\s*\\.\\s*(?:sum|...)\\b|\\b(?:nonzero|...)\\s*\\(", text)`, or a `[` and
    `\\b(?:sum|...|len)\\s*\\(` anywhere; with the words found as `WordTrigger` finds them."""

    _SELECTED = re.compile(r"\]\s*\.\s*(?:sum|prod|mean|max|min|size|nonzero)\b")
    _SIZED = WordTrigger("nonzero|flatnonzero|where|unique|argwhere", tail=r"\s*\(")
    _REDUCED = WordTrigger("sum|prod|mean|max|min|amax|amin|len", tail=r"\s*\(")
    # (a boolean mask is made by a comparison or a logical operator: AJ921 where it selects)
    _COMPARED = re.compile(r"[<>~&|]|[=!]=|\b(?:isnan|isinf|isfinite|logical_\w+)\b")

    def search(self, text: str) -> re.Match[str] | None:
        m = self._SELECTED.search(text) or self._SIZED.search(text)
        if m is None and "[" in text:
            m = self._REDUCED.search(text) or self._COMPARED.search(text)
        return m

    def rewrites(self, text: str) -> bool:
        """Whether ``text`` may hold a rewrite or a size refusal (else only AJ921's reports)."""
        return bool(
            self._SELECTED.search(text) or self._SIZED.search(text) or self._REDUCED.search(text)
        )


TRIGGER = _Trigger()

_REDUCTIONS = ("sum", "prod", "mean", "max", "min")
_MAYBE = "; the index may also be integers: chosen by its dtype at trace time"
_JNP_REDUCTIONS = {
    "jax.numpy.sum": "sum",
    "jax.numpy.prod": "prod",
    "jax.numpy.mean": "mean",
    "jax.numpy.max": "max",
    "jax.numpy.min": "min",
    "jax.numpy.amax": "max",
    "jax.numpy.amin": "min",
}
_SIZED = {
    "jax.numpy.nonzero": "AJ940",
    "jax.numpy.flatnonzero": "AJ940",
    "jax.numpy.where": "AJ941",
    "jax.numpy.unique": "AJ942",
    "jax.numpy.argwhere": "AJ943",
}


def convert(ctx: Context) -> None:
    if not _may_apply(ctx):
        return
    fn = ctx.fn
    if getattr(fn, "_aj_orig", False) and getattr(fn, "lineno", None) is not None:
        text = ctx.source.original(fn)
        if not TRIGGER.rewrites(text):
            _refuse_selections(ctx)  # (nothing to rewrite: only the selections to report)
            return
    for s in list(walk_statements(ctx.fn.body)):
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        rw = _Rewriter(ctx, s)
        for fname, value in gast.iter_fields(s):
            if isinstance(value, gast.expr):
                setattr(s, fname, rw.visit(value))
            elif isinstance(value, list) and value and isinstance(value[0], gast.expr):
                setattr(s, fname, [rw.visit(v) for v in value])
        if not _item_update(s):
            for sel in rw.kept.values():
                rw.refuse_selection(sel)


def _refuse_selections(ctx: Context) -> None:
    """AJ921 for each boolean selection read in the function (where none is reduced): the
    nodes the rewriter visits, without its visit."""
    for s in walk_statements(ctx.fn.body):
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        if _item_update(s):
            continue
        rw: _Rewriter | None = None
        stack = [v for _f, v in gast.iter_fields(s) if isinstance(v, gast.expr)]
        for _f, v in gast.iter_fields(s):
            if isinstance(v, list):
                stack.extend(e for e in v if isinstance(e, gast.expr))
        while stack:
            n = stack.pop()
            kind = type(n)
            if kind in _NOT_ENTERED or (kind is gast.IfExp and is_index_dtype_choice(n)):
                continue
            if kind is gast.Subscript:
                if rw is None:
                    rw = _Rewriter(ctx, s)
                if rw._boolean_selection(n):
                    rw.refuse_selection(n)
            for f in _walk_fields[kind]:
                v = getattr(n, f, None)
                if type(v) is list:
                    stack.extend(x for x in v if isinstance(x, gast.AST))
                elif isinstance(v, gast.AST):
                    stack.append(v)


def _item_update(s) -> bool:
    """`x[...] = value` / `x[...] op= value`: array_updates' statement, which rewrites `x[m] =
    y[m]` into `jnp.where(m, y, x)` or refuses it with its own code."""
    targets = s.targets if isinstance(s, gast.Assign) else [getattr(s, "target", None)]
    return isinstance(s, (gast.Assign, gast.AugAssign)) and any(
        isinstance(t, gast.Subscript) for t in targets
    )


# what the rewriter does not enter: functions (their names are not in this statement's
# analysis) and comprehensions (the names they bind are not either)
_NOT_ENTERED = frozenset(
    {gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp}
)


def _may_apply(ctx: Context) -> bool:
    """Whether the function holds anything the rewriter reacts to: a selection `x[...]` read
    (every reduction and count rewritten holds one) or a call that may return a value-dependent
    size (`nonzero`, `jnp.where`...). One read-only walk, cheaper than the rewriter's visit."""
    scope = ctx.scope
    stack = [ctx.fn]
    pop, push, AST = stack.pop, stack.append, gast.AST
    Subscript, Call, Load, Attribute = gast.Subscript, gast.Call, gast.Load, gast.Attribute
    fields_of = _walk_fields
    while stack:
        n = pop()
        kind = type(n)
        if kind is Subscript:
            if type(n.ctx) is Load:
                return True
        elif kind is Call:
            f = n.func
            if type(f) is Attribute and f.attr == "nonzero":
                return True
            fname = dotted_name(f)
            if fname and scope.qualified(fname) in _SIZED:
                return True
        fields = fields_of[kind]
        for field in fields:
            v = getattr(n, field, None)
            if type(v) is list:
                for x in v:
                    if isinstance(x, AST):
                        push(x)
            elif isinstance(v, AST):
                push(v)
    return False


_LEAVES = frozenset({"ctx", "op", "ops"})  # nodes without children
_walk_fields = ChildFields(_LEAVES)


class _Rewriter(StatementExpressionRewriter):
    def __init__(self, ctx: Context, stmt) -> None:
        super().__init__(ctx, stmt)
        # the boolean selections read in the statement that no rewrite reduced (by id)
        self.kept: dict[int, gast.Subscript] = {}

    def visit_ListComp(self, node):
        return node  # names bound by the comprehension are not in the analysis

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if self._boolean_selection(node):
            self.kept[id(node)] = node
        return node

    def _boolean_selection(self, node) -> bool:
        """Whether ``node`` reads `x[mask]` (or `x[mask, j]`) with a traced mask known to be
        boolean: a data-dependent number of elements (a scalar's too: 0 or 1)."""
        if not isinstance(node.ctx, gast.Load) or (
            isinstance(node.value, gast.Attribute) and node.value.attr == "at"
        ):
            return False
        parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        an = self.ctx.analysis
        for p in parts:
            if isinstance(p, (gast.Slice, gast.Constant)):
                continue
            v = an.value(p, self.stmt)
            if v.dtype == "bool" and v.traced:  # (a Python bool is concrete: jit takes it)
                return True
        return False

    def refuse_selection(self, node) -> None:
        if not self._allowed("AJ921", node):
            return
        jnp = self.ctx.names.jnp
        self.ctx.refuse(
            "AJ921",
            node,
            f"`{self._text(node)}` selects as many elements as the mask holds True values, "
            f"which jit cannot know (NonConcreteBooleanIndexError): reduce the selection right "
            f"away (`x[mask].sum()`, `.max()`, `.mean()`, `len(x[mask])` are rewritten), keep "
            f"the shape with `{jnp}.where(mask, x, fill)`, or take `{jnp}.nonzero(mask, size=N)` "
            f"indices",
        )

    def _consumed(self, sel, new, node):
        """``new`` (a rewrite of ``node``, which reduces the selection ``sel``) as the result;
        the selection is no longer read."""
        if new is not node:
            self.kept.pop(id(sel), None)
        return new

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr == "size" and isinstance(node.ctx, gast.Load):
            sel = self._selection(node.value)
            if sel is not None:
                return self._consumed(node.value, self._count(node, *sel, self._text(node)), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        # x[mask].sum()
        if (
            isinstance(f, gast.Attribute)
            and f.attr in _REDUCTIONS
            and not node.args
            and not node.keywords
        ):
            sel = self._selection(f.value)
            if sel is not None:
                return self._consumed(f.value, self._reduce(node, f.attr, *sel), node)
        fname = dotted_name(f) or ""
        qual = self.ctx.scope.qualified(fname) if fname else None
        # jnp.sum(x[mask])
        if qual in _JNP_REDUCTIONS and len(node.args) == 1 and not node.keywords:
            sel = self._selection(node.args[0])
            if sel is not None:
                return self._consumed(
                    node.args[0], self._reduce(node, _JNP_REDUCTIONS[qual], *sel), node
                )
        # len(x[mask])
        if fname == "len" and qual is None and len(node.args) == 1 and not node.keywords:
            if "len" not in self.ctx.analysis.values.locals:
                sel = self._selection(node.args[0])
                if sel is not None:
                    return self._consumed(
                        node.args[0], self._count(node, *sel, self._text(node)), node
                    )
        # functions whose result size depends on the values
        if qual in _SIZED or (isinstance(f, gast.Attribute) and f.attr == "nonzero" and not qual):
            self._refuse_sized(node, qual or "nonzero")
        return node

    # -- matching ---------------------------------------------------------------------------
    def _selection(self, node):
        """(x, mask, same_shape) for `x[mask]` with a boolean mask on a traced array x."""
        if not (isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Load)):
            return None
        x, mask = node.value, node.slice
        if not isinstance(x, gast.Name) or isinstance(mask, (gast.Tuple, gast.Slice)):
            return None
        an = self.ctx.analysis
        xv, mv = an.value(x, self.stmt), an.value(mask, self.stmt)
        if not (xv.traced or mv.traced):
            return None
        if xv.kind not in (Kind.TRACED, Kind.NUMPY) and not xv.traced:
            return None
        if mv.scalar is True:
            return None
        effect = effect_in(self.ctx.fn, self.ctx.scope, an, [mask], self.stmt)
        if effect is not None:
            # (`x[g(x) > 2].sum()`: the rewrite may write the mask more than once)
            self.ctx.refuse(
                "AJ903",
                node,
                f"the mask of `{self._text(node)}` calls `{gast.unparse(effect).strip()}`, which "
                f"has an effect: NumPy computes it once, the masked rewrite may write it more "
                f"than once; compute the mask in a statement before",
            )
            return None
        if mv.dtype is None and mv.kind is Kind.TRACED and _of_names(mask):
            if an.values.enclosing:
                # a nested function's `x[i]`: its caller gives `i` (a lax loop's index or carry,
                # autojit's own loop bodies): integers work as written, a mask fails loudly
                # (as for `.at[i]` in array_updates); the first conversion knew `i` an int
                return None
            # a parameter (or a value of unknown dtype; `~m`, `m & (x > 0)` of one) may be a
            # boolean mask or integer indices: chosen by its dtype at trace time, the integer
            # form kept as written
            same = isinstance(mask, gast.Name) and mask.id == x.id
            return name(x.id), copy_expr(mask), same, True
        if mv.dtype != "bool":
            return None
        same = (
            mv.shape_of == x.id
            or (mv.shape_of is not None and mv.shape_of == xv.shape_of)
            or (isinstance(mask, gast.Name) and mask.id == x.id)
            or _elementwise_of(mask, x.id)
        )
        return x, mask, same, False

    def _allowed(self, code: str, node) -> bool:
        return self.ctx.allowed(code, self.stmt) and self.ctx.allowed(code, node)

    def _text(self, node) -> str:
        if getattr(node, "lineno", None) is None:
            return "x[mask]"
        return self.ctx.source.original(node)

    # -- rewrites ---------------------------------------------------------------------------
    def _mask_for(self, x, mask, same: bool):
        """The mask broadcast against x: NumPy's `x[mask]` selects along x's leading axes."""
        if same:
            return mask
        return replace_expr(
            "MASK.reshape(MASK.shape + (1,) * (ARR.ndim - MASK.ndim))", MASK=mask, ARR=x.id
        )

    def _reduce(self, node, op: str, x, mask, same: bool, maybe: bool):
        if not self._allowed("AJ403", node):
            return node
        jnp = self.ctx.names.jnp
        before = self._text(node)
        m = self._mask_for(x, mask, same)
        if op in ("sum", "prod"):
            ident = "0" if op == "sum" else "1"
            new = replace_expr(f"{jnp}.where(MASK, ARR, {ident}).{op}()", MASK=m, ARR=x)
            what = f"identity {ident}"
        elif op == "mean":
            # (jnp.mean's own sum: in float for ints, widened for float16, as NumPy's mean of
            # the selected elements is; a sum in x's dtype would overflow)
            new = replace_expr(f"{jnp}.mean(ARR, where=MASK)", MASK=m, ARR=x)
            what = "the mean over the selected elements (nan if none)"
        else:
            xv = self.ctx.analysis.value(x, self.stmt)
            sign = "-" if op == "max" else ""
            bound = "min" if op == "max" else "max"
            if xv.dtype == "bool":  # (jnp.iinfo has no bool: any / all of the selection)
                ident = "False" if op == "max" else "True"
            elif xv.dtype == "float":
                ident = f"{sign}{jnp}.inf"
            elif xv.dtype == "int":
                ident = f"{jnp}.iinfo(ARR.dtype).{bound}"
            else:
                ident = (
                    f"({sign}{jnp}.inf if {jnp}.issubdtype(ARR.dtype, {jnp}.inexact) "
                    f"else {jnp}.iinfo(ARR.dtype).{bound})"
                )
            new = replace_expr(f"{jnp}.where(MASK, ARR, {ident}).{op}()", MASK=m, ARR=x)
            what = (
                f"identity {sign}inf for floats, the dtype's {bound} for integers; an empty "
                f"selection gives that identity where NumPy raises"
            )
            if xv.dtype == "bool":
                what = f"identity {ident}; an empty selection gives {ident} where NumPy raises"
        self.ctx.change(
            "AJ403",
            node,
            f"`{before}` -> masked {op} with `{jnp}.where` ({what}): a boolean selection has a "
            f"data-dependent size, which jit cannot trace" + (_MAYBE if maybe else ""),
        )
        return self._by_dtype(node, new, mask) if maybe else new

    def _by_dtype(self, node, new, mask):
        """`new if jnp.result_type(mask) == jnp.bool_ else <the original>`: jit knows the dtype."""
        jnp = self.ctx.names.jnp
        return replace_expr(
            f"NEW if {jnp}.result_type(MASK) == {jnp}.bool_ else ORIGINAL",
            NEW=new,
            MASK=copy_expr(mask),
            ORIGINAL=node,
        )

    def _count(self, node, x, mask, same: bool, maybe: bool, before: str):
        if not self._allowed("AJ403", node):
            return node
        jnp = self.ctx.names.jnp
        if same:
            new = replace_expr(f"{jnp}.count_nonzero(MASK)", MASK=mask)
        elif isinstance(node, gast.Call):  # len(): the selected rows
            new = replace_expr(f"{jnp}.count_nonzero(MASK)", MASK=mask)
        else:
            new = replace_expr(
                f"{jnp}.count_nonzero(MASK) * (ARR.size // MASK2.size)",
                MASK=mask,
                ARR=name(x.id),
                MASK2=copy_expr(mask),
            )
        self.ctx.change(
            "AJ403",
            node,
            f"`{before}` -> `{jnp}.count_nonzero(mask)`: a boolean selection has a "
            f"data-dependent size, which jit cannot trace" + (_MAYBE if maybe else ""),
        )
        return self._by_dtype(node, new, mask) if maybe else new

    # -- refusals ---------------------------------------------------------------------------
    def _refuse_sized(self, node, qual: str) -> None:
        if any(kw.arg == "size" for kw in node.keywords):
            return
        short = qual.rsplit(".", 1)[-1]
        jnp = self.ctx.names.jnp
        if short == "where":
            if len(node.args) != 1:
                return
            subject = node.args[0]
        elif isinstance(node.func, gast.Attribute) and not self.ctx.scope.qualified(
            dotted_name(node.func) or ""
        ):
            subject = node.func.value  # x.nonzero()
        elif node.args:
            subject = node.args[0]
        else:
            return
        if not self.ctx.analysis.value(subject, self.stmt).traced:
            return
        code = _SIZED.get(qual, "AJ940")
        call = self._text(node)
        if short == "unique":
            hint = (
                f"`{jnp}.unique(..., size=N, fill_value=v)` returns exactly N values, padded "
                f"with v (by default the smallest value)"
            )
        else:
            hint = (
                f"`{jnp}.{short}(..., size=N, fill_value=v)` returns exactly N indices, padded "
                f"with v (by default 0)"
            )
        self.ctx.refuse(
            code,
            node,
            f"`{call}` on a traced value returns as many elements as the data holds, which jit "
            f"cannot know: {hint}; pick N as the most you expect (e.g. the array's size). To "
            f"reduce over a mask, use `{jnp}.where(mask, x, identity)` instead",
        )


def _elementwise_of(mask, x: str) -> bool:
    """`x < t`, `(x > a) & (x < b)`, `~(x == 0)`: a comparison with x itself as an operand. Its
    shape is x's broadcast with the other operands; NumPy's `x[mask]` needs it to be x's, so a
    valid selection has exactly x's shape."""
    if isinstance(mask, gast.Compare):
        return any(isinstance(o, gast.Name) and o.id == x for o in [mask.left, *mask.comparators])
    if isinstance(mask, gast.BinOp) and isinstance(mask.op, (gast.BitAnd, gast.BitOr, gast.BitXor)):
        return _elementwise_of(mask.left, x) or _elementwise_of(mask.right, x)
    if isinstance(mask, gast.UnaryOp) and isinstance(mask.op, gast.Invert):
        return _elementwise_of(mask.operand, x)
    return False


def _of_names(mask) -> bool:
    """Whether ``mask`` is a name, or names and comparisons joined by `~`, `&`, `|`, `^`
    (`~m`, `m & (x > 0)`): an expression with no call, cheap to write twice."""
    if isinstance(mask, gast.Name):
        return True
    if isinstance(mask, gast.UnaryOp) and isinstance(mask.op, gast.Invert):
        return _of_names(mask.operand)
    if isinstance(mask, gast.BinOp) and isinstance(mask.op, (gast.BitAnd, gast.BitOr, gast.BitXor)):
        return all(_of_names(p) or _plain_comparison(p) for p in (mask.left, mask.right))
    return False


def _plain_comparison(node) -> bool:
    return isinstance(node, gast.Compare) and all(
        isinstance(p, (gast.Name, gast.Constant, gast.Attribute, gast.Subscript))
        for p in [node.left, *node.comparators]
    )
