"""AJ3xx: in-place array updates -> functional `.at[]` updates and `jnp.where`.

JAX arrays are immutable, so `x[i] = y` raises "JAX arrays are immutable" and `x[mask] = v`
cannot be traced. The meaning kept is NumPy's in-place one:

- AJ301 `x[i] = y` -> `x = x.at[i].set(y)`; `x[i][j] = y` -> `x = x.at[i, j].set(y)` when `x[i]`
  is a view (a scalar integer `i`).
- AJ302 `x[i] op= y` -> `.at[i].add/multiply/divide/power(y)` for indices that cannot repeat, and
  `.at[i].set(x[i] op y)` otherwise (NumPy applies `x[[0, 0]] += 1` once, `.at[].add` twice).
- AJ303 `x[mask] = v`, `x[mask] op= v`, `x.at[mask].set(v)` with a boolean mask ->
  `jnp.where(mask, v, x)` in x's dtype.
- AJ304 an index that may be boolean or integer -> a choice on its dtype, which jit knows.
- AJ305 NumPy's in-place methods of an array, `x.sort(...)` / `x.fill(v)` -> `x = jnp.sort(x,
  ...)` / `x = jnp.full_like(x, v)` (a jax array's `.sort()` returns a sorted copy and leaves
  `x` as it was: silently).

Refused with AJ9xx where the functional form would not keep NumPy's meaning.
"""

from __future__ import annotations

import re

import gast

from ..analysis import Kind, Value, dotted_name
from ..analysis.callers import ReadAfterCall, argument_read_after_call
from ..analysis.dtype_source import KIND_RANK
from ..analysis.effects import effect_in, read_by_closures
from ..analysis.sharing import viewed_through, views_of
from ..analysis.statements import walk_statements
from ..gastconv import ChildFields, walk
from ..jaxapi import AT_METHOD_FOR_AUGOP, BINOP_SYMBOL
from ..render import replace_statements
from ..scope import jax_decorated
from ..templates import copy_expr, name, replace, replace_expr
from .arrays import known_array
from .base import Context, StatementExpressionRewriter

CODES = ("AJ301", "AJ302", "AJ303", "AJ304", "AJ305")

# A function has work for this converter only if its text has an item store (`] =`, `] +=`...),
# a user's `.at[` or an in-place method: the pipeline skips the converter elsewhere.
TRIGGER = re.compile(
    r"\][\s)]*(?:[-+*/%@&|^]|//|\*\*|<<|>>)?=(?!=)|\.at\s*\[|\.\s*(?:sort|fill)\b"
    # an annotated item (`x[i]: float = v`), an item among several targets (`x[0], n = v, 1`)
    r"|\][\s)]*:[^=\n]*=(?!=)|\][\s)\]]*,[^\n]*\s=\s"
)  # (`(x[i]) = v`: a target in parentheses)

# the `.at[mask].method(v)` updates the mask rewrite turns into jnp.where (of jaxapi's
# AT_UPDATE_METHODS, those with an operator for the combined value)
_AT_METHODS = {"set", "add", "multiply", "mul", "divide", "power", "min", "max"}


def convert(ctx: Context) -> None:
    fn = ctx.fn
    returns_value = False
    returned_names: set[str] = set()
    for s in walk_statements(fn.body):
        if type(s) is gast.Return and s.value is not None and not _is_none(s.value):
            returns_value = True  # (`return None` returns nothing, as a bare `return` does)
            returned_names.update(n.id for n in walk(s.value) if type(n) is gast.Name)
    for owner, field, stmt in _subscript_updates(fn.body):
        _update_statement(ctx, owner, field, stmt, returns_value, returned_names)
    _user_at_with_mask(ctx)
    _in_place_methods(ctx, fn.body, returns_value)


# NumPy's in-place methods of an array (as statements): the jax function that makes the array
# they leave, and how many arguments that method takes
_IN_PLACE_METHODS = {"sort": ("sort", 3), "fill": ("full_like", 1)}


def _in_place_methods(ctx: Context, block: list, returns_value: bool) -> None:
    """AJ305: `x.sort(...)` -> `x = jnp.sort(x, ...)`, `x.fill(v)` -> `x = jnp.full_like(x, v)`
    for a jax array `x` (a list's `.sort()` and a NumPy array's stay as they are)."""
    for stmt in list(block):
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if inner and not isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef)):
                _in_place_methods(ctx, inner, returns_value)
        for h in getattr(stmt, "handlers", None) or ():
            _in_place_methods(ctx, h.body, returns_value)
        if _in_place_method_in_expression(ctx, stmt):
            continue
        if type(stmt) is not gast.Expr or type(stmt.value) is not gast.Call:
            continue
        call, f = stmt.value, stmt.value.func
        if (
            isinstance(f, gast.Attribute)
            and f.attr in _IN_PLACE_METHODS
            and isinstance(f.value, gast.Subscript)
            and ctx.analysis.value(f.value, stmt).traced
            and ctx.allowed("AJ909", stmt)
        ):
            if _part_method(ctx, block, stmt, call, f, returns_value):
                continue
            ctx.refuse(
                "AJ909",
                stmt,
                f"`{gast.unparse(f.value).strip()}.{f.attr}(...)` changes a part of an array in "
                f"place in NumPy; a jax array's `.{f.attr}()` leaves it as it was: write "
                f"`x = x.at[i].set(...)` with the new part",
            )
            continue
        if (
            isinstance(f, gast.Attribute)
            and f.attr in _IN_PLACE_METHODS
            and not isinstance(f.value, (gast.Name, gast.Subscript))
            and any(
                ctx.analysis.value(gast.Name(id=n, ctx=gast.Load(), annotation=None,
                                             type_comment=None), stmt).traced
                for n in views_of(f.value)
            )
            and ctx.allowed("AJ909", stmt)
        ):
            # `x.T.sort()`, `x.reshape(-1).sort()`: NumPy sorts x's memory through the view
            ctx.refuse(
                "AJ909",
                stmt,
                f"`{gast.unparse(f.value).strip()}.{f.attr}(...)` changes an array through a "
                f"view of it in NumPy; a jax array's `.{f.attr}()` leaves it as it was: compute "
                f"the new array and assign it",
            )
            continue
        if not (
            isinstance(f, gast.Attribute)
            and f.attr in _IN_PLACE_METHODS
            and isinstance(f.value, gast.Name)
            and len(call.args) + len(call.keywords) <= _IN_PLACE_METHODS[f.attr][1]
            and not any(isinstance(a, gast.Starred) for a in call.args)
            and not any(k.arg is None for k in call.keywords)
        ):
            continue
        if f.attr == "fill" and len(call.args) != 1:
            continue
        x = f.value.id
        if _free_in_place_method(ctx, stmt, x, f.attr):
            continue
        # (a parameter, traced, may be a list: its `.sort()` then fails under jit; a jax sort
        # gives the same values)
        if not (
            known_array(ctx, ctx.analysis, f.value, stmt)
            or (x in ctx.analysis.params and ctx.analysis.value(f.value, stmt).traced)
        ) or not ctx.allowed("AJ305", stmt):
            continue
        if _functional_update_refused(ctx, x, stmt, returns_value):
            continue
        jnp_fn = f"{ctx.names.jnp}.{_IN_PLACE_METHODS[f.attr][0]}"
        new_call = replace_expr(f"{jnp_fn}(X)", X=name(x))
        args, keywords = _method_arguments(f.attr, call)
        new_call.args += args
        new_call.keywords += keywords
        replace_statements(block, [stmt], replace(f"{x} = V", V=new_call))
        if x in ctx.analysis.params:
            ctx.updated_params.add(x)
        ctx.change(
            "AJ305",
            stmt,
            f"`{x}.{f.attr}(...)` -> `{x} = {jnp_fn}({x}, ...)`: a jax array's `.{f.attr}()` "
            f"{'returns a sorted copy' if f.attr == 'sort' else 'does not exist'} and leaves "
            f"`{x}` as it was",
        )


def _whole_number(node) -> bool:
    """Whether ``node`` is a number literal with a whole value (`2`, `2.0`, `-3.0`)."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        node = node.operand
    return (
        isinstance(node, gast.Constant)
        and type(node.value) in (int, float)
        and float(node.value).is_integer()
    )


def _method_arguments(method: str, call) -> tuple[list, list]:
    """The arguments of NumPy's in-place method that its jax function takes: `x.sort(axis,
    kind, order, stable=)` without `kind` and `stable` (jnp.sort rejects `kind`; sorted values
    are the same whichever algorithm sorts them)."""
    if method != "sort":
        return list(call.args), list(call.keywords)
    keywords = [k for k in call.keywords if k.arg not in ("kind", "stable")]
    if len(call.args) > 2:  # (`order`, the third: a keyword of jnp.sort)
        keywords.append(gast.keyword(arg="order", value=call.args[2]))
    return list(call.args[:1]), keywords


_IN_PLACE_CALL = re.compile(r"\.\s*(?:sort|fill)\b")  # (a call, or the bound method taken)


def _in_place_method_in_expression(ctx: Context, stmt) -> bool:
    """AJ920: `y = x.sort()`, `print(x.sort())`, `[r.sort() for r in x]` on a traced array is
    refused: NumPy sorts (fills) in place and gives None, a jax array's `.sort()` returns a
    sorted copy and leaves the array as it was, with no error. (As a statement of its own, the
    call is AJ305's.) Whether it was refused."""
    text = _written_text(ctx)
    if text is not None and not _IN_PLACE_CALL.search(text):
        return False  # (none written: the cheap case)
    own = stmt.value if type(stmt) is gast.Expr else None
    nodes = list(_evaluated_nodes(stmt))
    # a comprehension's target stands for the items of what it iterates
    items: dict[str, list] = {}
    for n in nodes:
        if isinstance(n, gast.comprehension):
            for t in walk(n.target):
                if isinstance(t, gast.Name):
                    items.setdefault(t.id, []).append(n.iter)
    called = {id(n.func) for n in nodes if type(n) is gast.Call}
    for n in nodes:
        # `x.sort(...)` in an expression, or the method taken to call later (`m = x.sort`)
        if type(n) is gast.Call and isinstance(n.func, gast.Attribute):
            if n is own or n.func.attr not in _IN_PLACE_METHODS:
                continue
            method = n.func
        elif (
            type(n) is gast.Attribute and n.attr in _IN_PLACE_METHODS and id(n) not in called
        ):
            method = n
        else:
            continue
        held = [method.value]
        seen: set[str] = set()
        traced = False
        while held and not traced:
            node = held.pop()
            names_ = views_of(node) or {
                x.id for x in walk(node) if isinstance(x, gast.Name)
            }
            for x in names_ - seen:
                seen.add(x)
                if x in items:
                    held.extend(items[x])
                elif ctx.analysis.value(name(x), stmt).traced:
                    traced = True
        if not traced or not ctx.allowed("AJ920", stmt):
            continue
        what, attr = gast.unparse(method.value).strip(), method.attr
        if attr == "sort":
            numpy, jax_, fix = "sorts", "returns a sorted copy and leaves it as it was", "sort"
        else:
            numpy, jax_, fix = "fills", "does not exist", "full_like"
        if isinstance(method.value, gast.Name) and method.value.id not in items:
            advice = f"write `{what} = {ctx.names.jnp}.{fix}({what}, ...)` as a statement of its own"
        else:  # (a part, a view, a comprehension's row: compute the new array and assign it)
            what = f"({what})" if not isinstance(method.value, (gast.Name, gast.Subscript)) else what
            advice = f"compute the new array with `{ctx.names.jnp}.{fix}` and assign it"
        where = "inside an expression" if method is not n else "taken as a value to call later"
        ctx.refuse(
            "AJ920",
            stmt,
            f"`{what}.{attr}(...)` {where}: NumPy {numpy} the array in place "
            f"and gives None, a jax array's `.{attr}()` {jax_}: {advice}",
        )
        return True
    return False


def _free_in_place_method(ctx: Context, stmt, x: str, attr: str) -> bool:
    """AJ920 for the statement `x.sort()` in a nested function where `x` is the enclosing
    function's (a free name): NumPy sorts that array in place, and `x = jnp.sort(x)` would make
    `x` local to the nested function. Whether it was refused."""
    an = ctx.analysis
    if (
        x in an.params
        or x in an.activity.of_block(ctx.fn.body).writes
        or not an.value(name(x), stmt).traced
        or not ctx.allowed("AJ920", stmt)
    ):
        return False
    fix = "sort" if attr == "sort" else "full_like"
    ctx.refuse(
        "AJ920",
        stmt,
        f"`{x}.{attr}(...)` changes the array `{x}` of the enclosing function in place in NumPy; "
        f"a jax array's `.{attr}()` leaves it as it was: return "
        f"`{ctx.names.jnp}.{fix}({x}, ...)` from `{ctx.fn.name}` and assign it where it is called",
    )
    return True


def _part_method(ctx: Context, block: list, stmt, call, f, returns_value: bool) -> bool:
    """AJ305 for a part of an array: `x[i].sort()` -> `x = x.at[i].set(jnp.sort(x[i]))`,
    `x[i].fill(v)` -> `x = x.at[i].set(v)`, where `x` is a known array the update may rebind.
    Whether it was rewritten (or refused: reported)."""
    part = f.value
    if not (
        isinstance(part.value, gast.Name)
        and (
            known_array(ctx, ctx.analysis, part.value, stmt)
            or (
                part.value.id in ctx.analysis.params
                and ctx.analysis.value(part.value, stmt).traced
            )
        )
        and len(call.args) + len(call.keywords) <= _IN_PLACE_METHODS[f.attr][1]
        and not any(isinstance(a, gast.Starred) for a in call.args)
        and not any(k.arg is None for k in call.keywords)
        and (f.attr != "fill" or (len(call.args) == 1 and not call.keywords))
        and ctx.allowed("AJ305", stmt)
    ):
        return False
    x = part.value.id
    if index_kind(ctx, part.slice, stmt) != _IndexKind.BASIC:
        # (`x[idx].fill(a)` with an array of indices: NumPy fills a copy, `x` stays as it is)
        return False
    if _functional_update_refused(ctx, x, stmt, returns_value):
        return True
    if f.attr == "fill":
        value = call.args[0]
        if _value_of_a_higher_kind(ctx, part.value, value, stmt):  # (NumPy casts it to x's dtype)
            value = replace_expr(f"{ctx.names.jnp}.asarray(V, X.dtype)", V=value, X=name(x))
    else:
        value = replace_expr(f"{ctx.names.jnp}.sort(P)", P=copy_expr(part))
        args, keywords = _method_arguments(f.attr, call)
        value.args += args
        value.keywords += keywords
    new = replace(f"{x} = {x}.at[I].set(V)", I=copy_expr(part.slice), V=value)
    replace_statements(block, [stmt], new)
    if x in ctx.analysis.params:
        ctx.updated_params.add(x)
    text = gast.unparse(part).strip()
    ctx.change(
        "AJ305",
        stmt,
        f"`{text}.{f.attr}(...)` -> `{x} = {x}.at[...].set(...)`: a jax array's "
        f"`.{f.attr}()` {'returns a sorted copy' if f.attr == 'sort' else 'does not exist'} and "
        f"leaves `{x}` as it was",
    )
    return True


def _is_none(node) -> bool:
    return type(node) is gast.Constant and node.value is None


def _subscript_updates(stmts):
    """(block owner, field, statement) for each `x[...] = v` / `x[...] op= v` statement."""
    out: list = []
    _collect_updates(None, "body", stmts, out)
    return out


def _collect_updates(owner, field, block, out: list) -> None:
    # a module function, not a recursive closure: that is a reference cycle, which keeps the
    # tree alive until the garbage collector runs
    for s in block:
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        if (
            isinstance(s, gast.Assign)
            and any(isinstance(t, gast.Subscript) for t in _flat_targets(s.targets))
        ) or (
            isinstance(s, (gast.AugAssign, gast.AnnAssign))
            and isinstance(s.target, gast.Subscript)
            and getattr(s, "value", True) is not None  # (`x[i]: float` alone assigns nothing)
        ):
            out.append((owner, field, s))
        for f in ("body", "orelse", "finalbody"):
            sub = getattr(s, f, None)
            if isinstance(sub, list):
                _collect_updates(s, f, sub, out)
        for h in getattr(s, "handlers", []) or []:
            _collect_updates(h, "body", h.body, out)


def _chain(target: gast.Subscript):
    """`x[i][j]` -> (Name x, [i, j]); None when the base is not a plain name."""
    indices = []
    node = target
    while isinstance(node, gast.Subscript):
        indices.append(node.slice)
        node = node.value
    if not isinstance(node, gast.Name):
        return None
    return node, list(reversed(indices))


class _IndexKind:
    BASIC = "basic"  # ints, slices, ..., None: every position at most once
    INT_ARRAY = "int-array"  # integer arrays: positions may repeat
    MASK = "mask"  # boolean mask
    AMBIGUOUS = "ambiguous"  # may be a mask or integers


def index_kind(ctx: Context, idx, stmt) -> str:
    parts = idx.elts if isinstance(idx, gast.Tuple) else [idx]
    kinds = [_part_kind(ctx, p, stmt) for p in parts]
    if len(kinds) == 1:
        return kinds[0]
    if _IndexKind.MASK in kinds:
        return "mixed-mask"
    if _IndexKind.AMBIGUOUS in kinds:
        # a part that may be a mask inside a tuple: `.at[...]` is right for integers and fails
        # loudly (NonConcreteBooleanIndexError) for a mask, never silently
        return _IndexKind.INT_ARRAY
    if _IndexKind.INT_ARRAY in kinds:
        return _IndexKind.INT_ARRAY
    return _IndexKind.BASIC


def _part_kind(ctx: Context, p, stmt) -> str:
    if isinstance(p, gast.Slice):
        return _IndexKind.BASIC
    if isinstance(p, gast.Constant):
        if p.value is None or p.value is Ellipsis or isinstance(p.value, int):
            return _IndexKind.BASIC if not isinstance(p.value, bool) else _IndexKind.MASK
        return "other"
    if isinstance(p, (gast.List,)):
        if all(isinstance(e, gast.Constant) and isinstance(e.value, bool) for e in p.elts):
            return _IndexKind.MASK
        return _IndexKind.INT_ARRAY
    v: Value = ctx.analysis.value(p, stmt)
    if _int_arithmetic(p) or (
        isinstance(p, gast.BinOp) and isinstance(p.op, (gast.FloorDiv, gast.Mod, gast.Sub))
    ):
        # (`cnt % n`, `i - j`: NumPy's `//`, `%` and `-` never give booleans, even of booleans)
        return _IndexKind.BASIC if v.scalar is True or v.kind is Kind.STATIC else _IndexKind.INT_ARRAY
    if v.dtype == "bool":
        return _IndexKind.MASK
    if v.scalar is True and v.dtype in ("int", None) and v.kind in (Kind.STATIC, Kind.TRACED):
        return _IndexKind.BASIC
    if v.kind is Kind.STATIC:
        return _IndexKind.BASIC if v.dtype == "int" else _IndexKind.INT_ARRAY
    if v.dtype == "int":
        return _IndexKind.INT_ARRAY
    return _IndexKind.AMBIGUOUS


def _int_arithmetic(p) -> bool:
    """`i - 1`, `2 * k`: arithmetic with an integer constant gives numbers, never booleans."""
    return (
        isinstance(p, gast.BinOp)
        and isinstance(p.op, (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv, gast.Mod))
        and any(isinstance(o, gast.Constant) and type(o.value) is int for o in (p.left, p.right))
    )


def _is_scalar_int(ctx: Context, idx, stmt) -> bool:
    parts = idx.elts if isinstance(idx, gast.Tuple) else [idx]
    for p in parts:
        if (
            isinstance(p, gast.Constant)
            and isinstance(p.value, int)
            and not isinstance(p.value, bool)
        ):
            continue
        v = ctx.analysis.value(p, stmt)
        if v.scalar is True and v.dtype in ("int", None) and v.kind in (Kind.STATIC, Kind.TRACED):
            continue
        return False
    return True


def _update_statement(ctx: Context, owner, field, stmt, returns_value, returned_names) -> None:
    an = ctx.analysis
    if isinstance(stmt, gast.Assign):
        if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], gast.Subscript):
            if any(_is_array_target(ctx, t, stmt) for t in _flat_targets(stmt.targets)):
                ctx.refuse(
                    "AJ907",
                    stmt,
                    "assignment to several targets including an array item; "
                    "split it into one assignment per line so each can be rewritten",
                )
            return
        target, op = stmt.targets[0], None
    elif isinstance(stmt, gast.AnnAssign):
        # (`x[i]: float = v`: in a function an item's annotation is never evaluated, so the
        # update is all the statement does)
        target, op = stmt.target, None
    else:
        target, op = stmt.target, type(stmt.op).__name__
    chain = _chain(target)
    if chain is None:
        return
    base, indices = chain
    x = base.id
    v = an.value(base, stmt)
    if any(isinstance(p, gast.Constant) and isinstance(p.value, str) for p in indices):
        return  # a dict or record: not an array
    if x in _records(ctx):
        return  # indexed by a string elsewhere (`d["k"]`): `d[key] = v` is a dict update too
    if v.kind in (Kind.LIST, Kind.DICT):
        return  # a Python container, mutable as it is
    values = [an.value(i, stmt) for i in indices] + [an.value(stmt.value, stmt)]
    if v.kind is Kind.NUMPY:
        if any(val.traced for val in values):
            ctx.refuse(
                "AJ906",
                stmt,
                f"`{x}` is a NumPy array, which cannot hold traced values; "
                f"build it with jax.numpy instead (its dtype may differ)",
            )
        return
    if v.kind is Kind.STATIC and not any(val.traced for val in values):
        return
    if _functional_update_refused(ctx, x, stmt, returns_value):
        return
    if len(indices) > 1:
        if not all(_is_scalar_int(ctx, i, stmt) for i in indices[:-1]):
            ctx.refuse(
                "AJ903",
                stmt,
                f"`{x}[...][...]` is only the same as `{x}[..., ...]` when "
                f"the first index is a single integer; write `{x}[i, j] = ...` if that is meant",
            )
            return
        parts = []
        for i in indices:
            parts.extend(i.elts if isinstance(i, gast.Tuple) else [i])
        index = gast.Tuple(elts=parts, ctx=gast.Load())
    else:
        index = indices[0]
    effect = effect_in(ctx.fn, ctx.scope, an, [index], stmt)
    if effect is not None:
        ctx.refuse(
            "AJ903",
            stmt,
            f"the index of `{x}` calls `{gast.unparse(effect).strip()}`, which has an effect: "
            f"NumPy computes the index once, a rewrite may write it more than once; compute "
            f"it in a statement before",
        )
        return
    kind = index_kind(ctx, index, stmt)
    index = _array_index(ctx, index, stmt)
    if x in an.params:
        ctx.updated_params.add(x)
    note = ""
    if x in an.params and x not in returned_names:
        note = (
            f"; note: the caller's `{x}` is no longer modified in place, only the "
            f"function's own copy is updated"
        )
    if kind == "other" or kind == "mixed-mask":
        ctx.refuse(
            "AJ903",
            stmt,
            f"cannot tell what the index of `{x}` selects; write the update with `{x}.at[...]`",
        )
        return
    if kind == _IndexKind.MASK:
        _mask_update(ctx, owner, field, stmt, base, index, op, note)
    elif kind == _IndexKind.AMBIGUOUS:
        _ambiguous_update(ctx, owner, field, stmt, base, index, op, note)
    else:
        _at_update(ctx, owner, field, stmt, base, index, op, kind, note)


def _read_after_call(ctx: Context, param: str) -> ReadAfterCall | None:
    """A caller in the module that reads the array it passed for ``param`` after the call
    (:mod:`autojit.analysis.callers`), once per function and parameter."""
    memo = getattr(ctx, "_aj_read_after", None)
    if memo is None:
        memo = ctx._aj_read_after = {}  # type: ignore[attr-defined]
    if param not in memo:
        callers = getattr(ctx.source, "callers", None)  # (the module's, for the decorator)
        tree = callers or getattr(ctx.source, "tree", None)
        fn = ctx.fn
        text = ctx.source.text_
        if (
            tree is None
            or not getattr(fn, "_aj_orig", False)
            or jax_decorated(fn, ctx.scope, autojit=False)
        ):
            # (a function autojit made is called only where it made it; callers of a jitted
            # or transformed one never see their arrays change; those of one that
            # `@autojit.convert` converts are the user's NumPy code, which sees them change)
            memo[param] = None
        elif (
            callers is None
            and text.isascii()
            and len(re.findall(rf"\b{re.escape(fn.name)}\b", text)) <= 1
        ):
            memo[param] = None  # its name is written once, at its `def`: nothing calls it
        else:
            params = [a.id for a in fn.args.posonlyargs + fn.args.args]
            method = bool(params) and params[0] in ("self", "cls")
            # (`@autojit.convert`, or converted by it: jitted, and called so by the user; a
            # call that drops its result and then reads the array relies on NumPy's change in
            # place)
            dropped = callers is not None or jax_decorated(fn, ctx.scope)
            memo[param] = argument_read_after_call(
                tree, fn.name, params, param, method, dropped=dropped
            )
    return memo[param]


def _declared_outer(ctx: Context) -> set[str]:
    """The names the function declares global or nonlocal: read once (the statements this
    converter replaces and makes declare none)."""
    names = getattr(ctx, "_aj_outer", None)
    if names is None:
        names = ctx._aj_outer = set(ctx.analysis.activity.of_block(ctx.fn.body).nonlocal_)  # type: ignore[attr-defined]
    return names


def _records(ctx: Context) -> set[str]:
    """Names the function indexes with a string (`d["x"]`, `d[f"k{i}"]`): dicts, not arrays."""
    cached = getattr(ctx, "_aj_records", None)
    if cached is None:
        cached = set()
        text = _written_text(ctx)
        if text is not None and "\r" not in text and not _STRING_INDEX.search(text):
            ctx._aj_records = cached  # type: ignore[attr-defined]
            return cached  # no string index written, and the rewrites before write none
        for n in walk(ctx.fn):
            if isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name):
                sl = n.slice
                if isinstance(sl, gast.JoinedStr) or (
                    isinstance(sl, gast.Constant) and isinstance(sl.value, str)
                ):
                    cached.add(n.value.id)
        ctx._aj_records = cached  # type: ignore[attr-defined]
    return cached


# Where a string can stand as an index: `[`, then spaces, parentheses, line continuations and
# comments, then a string literal (with its prefix). Matched on `\n`-ended lines only.
_STRING_INDEX = re.compile(r"\[[\s(\\]*(?:#[^\n]*\n[\s(\\]*)*[A-Za-z]{0,2}['\"]")
_AT_WORD = re.compile(r"\bat\b")


def _written_text(ctx: Context) -> str | None:
    """The function's text as the user wrote it; None for a function autojit made.

    The function's tree holds the written code, the selections that masked_reductions (the
    converter before this one) replaced, and this converter's own rewrites (of nested
    functions first): a test on the text for something none of those writes holds for the
    tree too."""
    text = getattr(ctx, "_aj_text", False)
    if text is False:
        fn = ctx.fn
        text = None
        if getattr(fn, "_aj_orig", False) and getattr(fn, "lineno", None) is not None:
            text = ctx.source.original(fn)
        ctx._aj_text = text  # type: ignore[attr-defined]
    return text


def _array_index(ctx: Context, index, stmt=None):
    """A list in an index (`x[[0, 0, 2]]`, or a name holding a Python list: `idx = [0, 2];
    x[idx]`) as `jnp.asarray(...)`: JAX rejects list indices (and `jnp.result_type` lists)."""
    if isinstance(index, gast.List) or (
        stmt is not None
        and isinstance(index, gast.Name)
        and ctx.analysis.value(index, stmt).kind is Kind.LIST
    ):
        return replace_expr(f"{ctx.names.jnp}.asarray(LIST)", LIST=index)
    if isinstance(index, gast.Tuple) and any(isinstance(e, gast.List) for e in index.elts):
        elts = [_array_index(ctx, e) for e in index.elts]
        return gast.Tuple(elts=elts, ctx=gast.Load())
    return index


def _array_indices_in(ctx: Context, value, stmt) -> None:
    """The list indices of traced arrays read in ``value`` as `jnp.asarray(...)`, in place:
    `x[[0, p]] = x[[p, 0]]` (a row swap) reads with a list, which JAX rejects."""
    for n in walk(value):
        if (
            isinstance(n, gast.Subscript)
            and (
                isinstance(n.slice, gast.List)
                or (
                    isinstance(n.slice, gast.Tuple)
                    and any(isinstance(e, gast.List) for e in n.slice.elts)
                )
            )
            and ctx.analysis.value(n.value, stmt).traced
        ):
            n.slice = _array_index(ctx, n.slice)


def _flat_targets(targets):
    """Assignment targets with tuple/list targets (`x[0], x[1] = ...`) unpacked."""
    for t in targets:
        if isinstance(t, (gast.Tuple, gast.List)):
            yield from _flat_targets(t.elts)
        elif isinstance(t, gast.Starred):
            yield from _flat_targets([t.value])
        else:
            yield t


def _is_array_target(ctx, t, stmt) -> bool:
    chain = _chain(t) if isinstance(t, gast.Subscript) else None
    if chain is None:
        return False
    v = ctx.analysis.value(chain[0], stmt)
    return v.kind in (Kind.TRACED, Kind.UNKNOWN)



def _functional_update_refused(ctx: Context, x: str, stmt, returns_value: bool) -> bool:
    """Whether a functional update of the array ``x`` (rebinding it) would not keep NumPy's
    in-place meaning at ``stmt``, reported (AJ904 not the function's own, AJ902 an argument
    changed and nothing returned, AJ901 another name holds it, AJ908 a caller reads it after)."""
    an = ctx.analysis
    if x not in an.values.locals:
        ctx.refuse(
            "AJ904",
            stmt,
            f"`{x}` is not a local variable of `{ctx.fn.name}`; rebinding it "
            f"would not update the caller's array: pass it in and return it",
        )
        return True
    if x in _declared_outer(ctx):
        ctx.refuse(
            "AJ904",
            stmt,
            f"`{x}` is declared global/nonlocal; the functional update "
            f"cannot change the outer array",
        )
        return True
    if x in an.params and not returns_value:
        ctx.refuse(
            "AJ902",
            stmt,
            f"`{ctx.fn.name}` only mutates its argument `{x}` and returns "
            f"nothing; a jitted function cannot mutate its input: return `{x}` instead",
        )
        return True
    # NumPy view semantics: another name that shares x's memory sees the update; a copy won't
    aliases, direct = _aliases(ctx, x, stmt)
    if aliases:
        ctx.refuse(
            "AJ901",
            stmt,
            (
                f"`{aliases[0]}` refers to the same array as `{x}`"
                if direct
                else f"`{aliases[0]}` may hold `{x}`'s array (or a view of it, or a container "
                f"with it)"
            )
            + " and is read after this update; with immutable arrays it would keep the old "
            "values",
        )
        return True
    kept = _kept_outside(ctx, x, stmt)
    if kept is not None:
        holder, how = kept
        ctx.refuse(
            "AJ901",
            stmt,
            f"`{holder}` ({how}) may be given `{x}`'s array (or a view of it) before this "
            f"update and outlives `{ctx.fn.name}`: NumPy's `{holder}` holds the changed "
            f"array, a functional update would leave it the old one; store `{x}` after its "
            f"last update, or a copy (`{x}.copy()`)",
        )
        return True
    if x in an.params:
        found = _read_after_call(ctx, x)
        if found is not None:
            ctx.refuse(
                "AJ908",
                stmt,
                f"`{ctx.fn.name}` changes its argument `{x}` in place, and "
                f"{found.reader(found.line)} the new values, a functional update would not; "
                f"use the array `{ctx.fn.name}` returns there instead",
            )
            return True
        return False
    # `for r in m: r[0] = v`, `s = m[1:]; s[0] = v`: NumPy changes the argument `m` through
    # a view of it, which a functional update of `r` / `s` never reaches
    # (and the values analysis's views: `r` of `for r in m`, a chain of them)
    viewed = ctx.sharing().shared_with(x) | set(viewed_through(an.env_before(stmt), x))
    if viewed & set(an.params) and _fresh_before(ctx, x, stmt):
        viewed = set()  # (bound to a new array before, which no parameter's can be)
    for p in sorted(viewed & set(an.params)):
        if not returns_value:
            ctx.refuse(
                "AJ902",
                stmt,
                f"`{x}` may hold a view of the argument `{p}`, which NumPy changes in place "
                f"here, and `{ctx.fn.name}` returns nothing: a jitted function cannot change "
                f"its input; update `{p}` and return it",
            )
            return True
        found = _read_after_call(ctx, p)
        if found is not None:
            ctx.refuse(
                "AJ908",
                stmt,
                f"`{x}` may hold a view of the argument `{p}` of `{ctx.fn.name}`, which NumPy "
                f"changes in place here, and {found.reader(found.line)} the new values, a "
                f"functional update would not; update `{p}` and return it",
            )
            return True
    return False


def _aliases(ctx: Context, x: str, stmt) -> tuple[list[str], bool]:
    """The other names that may hold x's array (or a container or view of it) and are read
    after the update: the values analysis's `y = x` at this point, and every name the
    function may bind to what x holds anywhere (`Sharing`: tuples, containers, branches,
    loops, helpers that may return their argument)."""
    env = ctx.analysis.env_before(stmt)
    # (and what the function's closures read: called after the update, they read it then)
    live = ctx.analysis.live_out(stmt) | read_by_closures(ctx.fn, [stmt], ctx.scope)
    out = []
    # (through chains of views: `rr = r` of a row `r` of `for r in x` shows x's memory)
    mine = set(viewed_through(env, x))
    for other in env:
        if other == x or other not in live:
            continue
        theirs = viewed_through(env, other)
        if x in theirs or other in mine or mine.intersection(theirs):
            out.append(other)
    if out:
        return out, True
    # every name the may-share analysis joins with x, and the arrays those are views of by the
    # values analysis (the rows of `for r in x` are its: `rows.append(r)` holds x's rows)
    sharing = ctx.sharing()

    def reach(name: str) -> set[str]:
        found = {name, *viewed_through(env, name)}
        for other in sharing.shared_with(name):
            found.add(other)
            found.update(viewed_through(env, other))
        return found

    mine = reach(x)
    found = sorted(n for n in live if n != x and n in env and mine & reach(n))
    if found and _fresh_before(ctx, x, stmt):
        return [], False  # (what may share x's array elsewhere never holds this one)
    return found, False


def _fresh_before(ctx: Context, x: str, stmt) -> bool:
    """Whether ``x`` holds, at ``stmt``, a new array that no other name can hold: a plain `x =
    <new array>` (`jnp.zeros_like(u)`, `u * 2`, `u.copy()`) runs before ``stmt`` on every path
    to it (earlier in a block around it), and what runs between them (with every statement of a
    loop around ``stmt`` inside that block: the loop's earlier iterations) names ``x`` only to
    update its items (`x[i] = ...`, whose values are copied in), inside such a value, or for
    its `.shape` / `.ndim` / `.dtype` / `.size`. Double buffering, `new = jnp.zeros_like(u)`
    ... `u = new` in a time loop: `u` holds the last step's array, never this one. The
    may-share analysis joins `u` and `new` wherever they are bound; this is the flow it does
    not see."""
    parents = _statement_parents(ctx.fn)
    window: list = []
    cur = stmt
    while True:
        entry = parents.get(id(cur))
        if entry is None:
            return False
        parent, block = entry
        k = next(i for i, st in enumerate(block) if st is cur)
        for prev in reversed(block[:k]):
            if x in ctx.analysis.activity.of(prev).writes:
                fresh = (
                    isinstance(prev, gast.Assign)
                    and len(prev.targets) == 1
                    and isinstance(prev.targets[0], gast.Name)
                    and prev.targets[0].id == x
                    and ctx.sharing().holds_nothing(prev.value, prev)
                )
                return fresh and all(_names_only_to_update(st, x) for st in window)
            window.append(prev)
        if parent is ctx.fn:
            return False
        if isinstance(parent, (gast.For, gast.While)):
            window.extend(parent.body + parent.orelse)
        window.append(_header_of(parent))
        cur = parent


def _header_of(compound):
    """A statement standing for ``compound``'s own expressions (its test, target, iterable,
    items), none of its blocks."""
    parts = [
        v
        for f, v in gast.iter_fields(compound)
        if f not in ("body", "orelse", "finalbody", "handlers") and isinstance(v, gast.AST)
    ]
    parts += [i for i in getattr(compound, "items", ()) or ()]
    return gast.Expr(value=gast.Tuple(elts=parts, ctx=gast.Load()))


def _statement_parents(fn) -> dict[int, tuple]:
    """id(statement) -> (the statement or function around it, the block it is in)."""
    out: dict[int, tuple] = {}
    todo = [fn]
    while todo:
        node = todo.pop()
        blocks = [getattr(node, f, None) or [] for f in ("body", "orelse", "finalbody")]
        blocks += [h.body for h in getattr(node, "handlers", None) or []]
        for block in blocks:
            for st in block:
                out[id(st)] = (node, block)
                if not isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
                    todo.append(st)
    return out


_STATIC_ARRAY_ATTRIBUTES = frozenset({"shape", "ndim", "dtype", "size"})


def _names_only_to_update(st, x: str) -> bool:
    """Whether every `x` in ``st`` (its nested statements and functions too) is the array of an
    item update of `x` (`x[i] = v`, `x[i] += v`), read for a static attribute (`x.shape`), or,
    inside such an update's value, read for its items or as an operand of arithmetic (a new
    value, copied into `x`); not passed to a call, bound to a name, or stored."""
    for s in walk_statements([st], into_functions=True):
        targets = s.targets if isinstance(s, gast.Assign) else [getattr(s, "target", None)]
        update = isinstance(s, (gast.Assign, gast.AugAssign)) and all(
            isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name) and t.value.id == x
            for t in targets
        )
        roots = [
            r
            for f, v in gast.iter_fields(s)
            if f not in ("body", "orelse", "finalbody", "handlers")
            for r in (v if isinstance(v, list) else [v])
            if isinstance(r, gast.AST)
        ]
        parent: dict[int, object] = {}
        reads = []
        for root in roots:
            for node in walk(root):
                for child in gast.iter_child_nodes(node):
                    parent[id(child)] = node
                if isinstance(node, gast.Name) and node.id == x:
                    reads.append(node)
        for read in reads:
            up = parent.get(id(read))
            if isinstance(up, gast.Attribute) and up.attr in _STATIC_ARRAY_ATTRIBUTES:
                continue
            if update and isinstance(up, gast.Subscript) and up.value is read:
                continue  # (the update's target, or an item read in its value)
            if update and isinstance(up, (gast.BinOp, gast.UnaryOp, gast.Compare)):
                continue  # (arithmetic on it: a new value)
            return False
    return True


def _kept_outside(ctx: Context, x: str, stmt) -> tuple[str, str] | None:
    """(container, what it is) for a container that outlives the function (a parameter, one
    of `self`'s attributes, a module-level or enclosing name) that a store which may run
    before ``stmt`` (`log.append(x)`, `CACHE["k"] = x`, `self.last = x`, earlier in the code
    or in a loop around both) gives x's array, a view of it or a name that may hold it: the
    caller reads that container after the call, whatever the function reads."""
    sharing = ctx.sharing()
    if not sharing.stores:
        return None
    an = ctx.analysis
    env = an.env_before(stmt)
    mine = {x, *viewed_through(env, x)}
    for other in sharing.shared_with(x):
        mine.add(other)
        mine.update(viewed_through(env, other))
    for holder, refs, st in sharing.stores:
        if holder == x or not refs & mine:
            continue
        if holder in an.params:
            how = "a parameter"
        elif holder not in an.values.locals:
            how = "not a local name"
        else:
            continue
        if _may_run_before(ctx, st, stmt):
            return holder, how
    return None


def _may_run_before(ctx: Context, first, then) -> bool:
    """Whether the statement ``first`` may run before ``then``: it starts before it, or a loop
    holds both (a statement without a place, a generated one, may)."""
    a, b = getattr(first, "lineno", None), getattr(then, "lineno", None)
    if a is None or b is None:
        return True
    if (a, first.col_offset) < (b, then.col_offset):
        return True
    for loop in walk_statements(ctx.fn.body):
        if isinstance(loop, (gast.For, gast.While)):
            inside = {id(st) for st in walk_statements(loop.body, into_functions=True)}
            if id(first) in inside and id(then) in inside:
                return True
    return False


def _replace_stmt(ctx: Context, owner, field, stmt, new_stmts) -> None:
    block = getattr(owner, field) if owner is not None else ctx.fn.body
    replace_statements(block, [stmt], new_stmts)
    made = getattr(ctx, "_aj_made", None)
    if made is None:
        made = ctx._aj_made = {}  # type: ignore[attr-defined]
    for s in walk_statements(new_stmts):
        made[id(s)] = s  # in the order walk_statements gives them in the function
        s._aj_made_from = stmt  # (what the analysis knows before it is known before them)


def _value_of_a_higher_kind(ctx, base, value, stmt) -> bool:
    """Whether ``value`` may be of a higher kind (bool < int < float) than ``base``, an array
    known to hold bools or ints (`x[i] = 0.5`, or a value of a dtype not known, into an int
    array): NumPy casts it to the array's dtype, as jax's scatter does now with a FutureWarning
    ("cannot safely cast", an error in later releases), so the conversion casts it itself, as
    NumPy does (`jnp.asarray(v, x.dtype)` truncates). A float array takes any value as it is."""
    array_kind = ctx.analysis.value(base, stmt).dtype
    if array_kind not in ("bool", "int"):
        return False
    value_kind = ctx.analysis.value(value, stmt).dtype
    return KIND_RANK.get(value_kind or "", 2) > KIND_RANK[array_kind]


def _cast_to_array_dtype(ctx, base, op, stmt) -> bool:
    """Whether the item an update writes into ``base`` (an array known to hold ints or bools)
    is cast to its dtype: the value may be of a higher kind, or (`x[i] /= 2`) the new item is
    the float quotient, which NumPy casts back."""
    return _value_of_a_higher_kind(ctx, base, stmt.value, stmt) or (
        op == "Div" and ctx.analysis.value(base, stmt).dtype in ("bool", "int")
    )


def _at_update(ctx, owner, field, stmt, base, index, op, kind, note) -> None:
    x = base.id
    code = "AJ301" if op is None else "AJ302"
    if not ctx.allowed(code, stmt):
        return
    jnp = ctx.names.jnp
    cast = _cast_to_array_dtype(ctx, base, op, stmt)
    if op is None:
        _array_indices_in(ctx, stmt.value, stmt)
        value = f"{jnp}.asarray(VALUE, X.dtype)" if cast else "VALUE"
        new = replace(f"X = X.at[INDEX].set({value})", X=x, INDEX=index, VALUE=stmt.value)
        msg = f"`{x}[...] = ...` -> `{x} = {x}.at[...].set(...)`"
        if cast:
            msg += " (the value cast to the array's dtype, as NumPy casts it)"
    else:
        method = AT_METHOD_FOR_AUGOP.get(op)
        dtype = ctx.analysis.value(base, stmt).dtype
        if method == "divide" and dtype != "float":
            method = None  # `.at[].divide` makes an integer array float; NumPy keeps its dtype
        if (
            method == "power"
            and dtype != "float"
            and ctx.analysis.value(stmt.value, stmt).dtype not in ("int", "bool")
            and not _whole_number(stmt.value)
        ):
            # `.at[].power(0.5)` of an int array casts the exponent to int first (16 ** 0 = 1);
            # NumPy computes 16 ** 0.5 and casts the result (4)
            method = None
        if dtype == "bool":
            method = None  # (`.at[].add(True)` of a bool array: jax has no bool scatter-add)
        if cast:
            method = None  # (NumPy computes `x[i] + 0.5` and casts the sum: so does `.set`)
        if method and kind == _IndexKind.BASIC:
            new = replace(f"X = X.at[INDEX].{method}(VALUE)", X=x, INDEX=index, VALUE=stmt.value)
            msg = f"`{x}[...] {BINOP_SYMBOL[op]}= ...` -> `{x} = {x}.at[...].{method}(...)`"
        else:
            sym = BINOP_SYMBOL[op]
            updated = f"X[INDEX] {sym} VALUE"
            if cast:
                updated = f"{jnp}.asarray({updated}, X.dtype)"
            new = replace(
                f"X = X.at[INDEX].set({updated})",
                X=x,
                INDEX=index,
                VALUE=_paren(stmt.value),
            )
            why = "" if kind == _IndexKind.BASIC else " (the index may repeat positions)"
            msg = f"`{x}[...] {sym}= ...` -> `{x} = {x}.at[...].set({x}[...] {sym} ...)`{why}"
    if kind == _IndexKind.INT_ARRAY:
        msg += _repeats_note(ctx, index, stmt)
    _replace_stmt(ctx, owner, field, stmt, new)
    ctx.change(code, stmt, msg + note)


# jax functions whose integer arrays never repeat a position
_DISTINCT_INDICES = frozenset(
    {"jax.numpy.argsort", "jax.numpy.arange", "jax.random.permutation", "jax.numpy.lexsort"}
)


def _repeats_note(ctx: Context, index, stmt) -> str:
    """What to know of an update with integer-array indices that may repeat a position with
    different values (NumPy keeps the last; jax's scatter is unordered): '' where the value is
    one number, or the indices are a permutation or a range."""
    if _one_value(ctx, stmt.value, stmt):
        return ""
    # (one such call as the whole index: `x[idx, jnp.arange(3)]` may still repeat a position)
    if isinstance(index, gast.Call) and (
        ctx.scope.qualified(dotted_name(index.func) or "") in _DISTINCT_INDICES
    ):
        return ""
    return (
        "; note: where the indices repeat a position with different values, NumPy keeps the "
        "last and `.set` one of them, in an order the device decides (it may differ between "
        "runs on a GPU)"
    )


def _one_value(ctx: Context, value, stmt) -> bool:
    """Whether ``value`` is one number for every position an update writes (a Python number, a
    scalar array): repeated positions then get the same value, in any order."""
    if isinstance(value, gast.Constant):
        return True
    v = ctx.analysis.value(value, stmt)
    return v.scalar is True or (v.static and v.dtype in ("int", "float", "bool"))


def _paren(node):
    return node


def _mask_value(ctx, stmt, x, mask, value) -> tuple[object, bool]:
    """The value to select where the mask holds, and whether it is safe (scalar or same-mask).

    `y[mask]` stands for `y` only where the mask has x's own shape (then `y` has it too); a
    mask over x's leading axes may select from a `y` of the mask's shape, whose `y[mask]`
    NumPy broadcasts along x's last axis: `jnp.where` would spread `y` along the mask's."""
    if isinstance(value, gast.Subscript) and _same_dump(value.slice, mask):
        if _mask_has_shape_of(ctx, stmt, x, mask):
            return value.value, True
    v = ctx.analysis.value(value, stmt)
    if v.scalar is True:
        return value, True
    return value, False


_ABSENT = object()


def _same_dump(a, b) -> bool:
    """`gast.dump(a) == gast.dump(b)`, compared without writing the dumps (`ast.dump` makes a
    recursive closure per call: a reference cycle, garbage for the collector)."""
    if isinstance(a, gast.AST):
        kind = type(a)
        if type(b) is not kind:
            return False
        for f in kind._fields:
            x, y = getattr(a, f, _ABSENT), getattr(b, f, _ABSENT)
            if (x is None or y is None) and getattr(kind, f, ...) is None:
                x = _ABSENT if x is None else x  # dump leaves out a field at its default None
                y = _ABSENT if y is None else y
            if x is _ABSENT or y is _ABSENT:
                if x is not y:
                    return False
            elif not _same_dump(x, y):
                return False
        return True
    if isinstance(a, list):
        return (
            isinstance(b, list)
            and len(a) == len(b)
            and all(_same_dump(x, y) for x, y in zip(a, b, strict=True))
        )
    if isinstance(b, (gast.AST, list)):
        return False
    return repr(a) == repr(b)


def _mask_has_shape_of(ctx, stmt, x: str, mask) -> bool:
    """Whether the mask is known to have exactly x's shape (`m = x > 0`, x not rebound since)."""
    mv = ctx.analysis.value(mask, stmt)
    return mv.shape_of == x or (isinstance(mask, gast.Name) and mask.id == x)


def _mask_expr(ctx, stmt, x: str, mask):
    """The mask, broadcast against x: NumPy's `x[mask]` selects along x's leading axes."""
    if _mask_has_shape_of(ctx, stmt, x, mask):
        return mask
    return replace_expr("MASK.reshape(MASK.shape + (1,) * (X.ndim - MASK.ndim))", MASK=mask, X=x)


def _mask_update(ctx, owner, field, stmt, base, mask, op, note) -> None:
    x = base.id
    if not ctx.allowed("AJ303", stmt):
        return
    value, ok = _mask_value(ctx, stmt, x, mask, stmt.value)
    if not ok:
        ctx.refuse(
            "AJ905",
            stmt,
            f"`{x}[mask] = value` with a value that may not be a scalar: NumPy "
            f"fills the selected places in order, which has no static-shape form; use "
            f"`jnp.where(mask, other_array, {x})` if a same-shaped array is meant",
        )
        return
    jnp = ctx.names.jnp
    m = _mask_expr(ctx, stmt, x, mask)
    if op is None:
        # (the value cast to x's dtype, not the result: `jnp.where` of an int array and a float
        # would make the whole array float32 and round its large ints on the way back)
        new = replace(
            f"X = {jnp}.where(MASK, {jnp}.asarray(VALUE, X.dtype), X)", X=x, MASK=m, VALUE=value
        )
        msg = f"`{x}[mask] = ...` -> `{jnp}.where(mask, ..., {x})`"
    else:
        sym = BINOP_SYMBOL[op]
        new = replace(
            f"X = {jnp}.where(MASK, (X {sym} VALUE).astype(X.dtype), X)", X=x, MASK=m, VALUE=value
        )
        msg = f"`{x}[mask] {sym}= ...` -> `{jnp}.where(mask, {x} {sym} ..., {x})`"
    _replace_stmt(ctx, owner, field, stmt, new)
    ctx.change("AJ303", stmt, msg + " (a boolean mask cannot index under jit)" + note)


def _ambiguous_update(ctx, owner, field, stmt, base, index, op, note) -> None:
    x = base.id
    if not ctx.allowed("AJ304", stmt):
        return
    jnp = ctx.names.jnp
    value, scalar = _mask_value(ctx, stmt, x, index, stmt.value)
    sym = BINOP_SYMBOL[op] if op else None
    at_value = f"X[INDEX] {sym} VALUE" if op else "VALUE"
    if _cast_to_array_dtype(ctx, base, op, stmt):  # (the integer form's item, as `_at_update`'s)
        at_value = f"{jnp}.asarray({at_value}, X.dtype)"
    if not scalar:
        new = replace(f"X = X.at[INDEX].set({at_value})", X=x, INDEX=index, VALUE=stmt.value)
        _replace_stmt(ctx, owner, field, stmt, new)
        ctx.change(
            "AJ304",
            stmt,
            f"`{x}[index] {sym + '=' if sym else '='} ...` -> `.at[index].set(...)`;"
            f" if `index` is a boolean mask jit will reject it, since the value is not a scalar"
            + _repeats_note(ctx, index, stmt)
            + note,
        )
        return
    m = _mask_expr(ctx, stmt, x, index)
    where_value = (
        f"(X {sym} SELECTED).astype(X.dtype)" if op else f"{jnp}.asarray(SELECTED, X.dtype)"
    )
    # (`y[index]` stands for `y` where the index is a mask, never for the integer form)
    new = replace(
        f"X = {jnp}.where(MASK, {where_value}, X) "
        f"if {jnp}.result_type(INDEX) == {jnp}.bool_ else X.at[INDEX].set({at_value})",
        X=x,
        MASK=m,
        INDEX=index,
        SELECTED=value,
        VALUE=stmt.value,
    )
    _replace_stmt(ctx, owner, field, stmt, new)
    ctx.change(
        "AJ304",
        stmt,
        f"`{x}[index] {'=' if not sym else sym + '='} ...` with an index that "
        f"may be a boolean mask or integers: chosen by its dtype at trace time" + note,
    )


class _AtMaskRewriter(StatementExpressionRewriter):
    def __init__(self, ctx: Context, stmt) -> None:
        super().__init__(ctx, stmt)
        self.changed = False

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if not (isinstance(f, gast.Attribute) and f.attr in _AT_METHODS):
            return node
        sub = f.value
        if not (
            isinstance(sub, gast.Subscript)
            and isinstance(sub.value, gast.Attribute)
            and sub.value.attr == "at"
            and isinstance(sub.value.value, gast.Name)
        ):
            return node
        x = sub.value.value.id
        mask = sub.slice
        if _int_arithmetic(mask):
            return node  # `x.at[i - 1]`: arithmetic with an integer is never a boolean mask
        # (an update made here from `x[i] = v` is read with the values before `x[i] = v`)
        at = getattr(self.stmt, "_aj_made_from", self.stmt)
        kind = _part_kind(self.ctx, mask, at)
        if kind not in (_IndexKind.MASK, _IndexKind.AMBIGUOUS) or isinstance(mask, gast.Tuple):
            return node
        if len(node.args) != 1 or node.keywords:
            return node
        if kind == _IndexKind.AMBIGUOUS and self.ctx.analysis.values.enclosing:
            # a nested function's `.at[i]`: its caller gives `i` (a lax loop's index, a carry,
            # autojit's own loop helpers); integers work as written, a mask fails loudly
            return node
        code = "AJ303" if kind == _IndexKind.MASK else "AJ304"
        if not self.ctx.allowed(code, self.stmt):
            return node
        value, ok = _mask_value(self.ctx, self.stmt, x, mask, node.args[0])
        if not ok and kind == _IndexKind.AMBIGUOUS:
            return node  # integer indices work as written; a mask would fail loudly, not silently
        if not ok:
            self.ctx.refuse(
                "AJ905",
                node,
                f"`{x}.at[mask].{f.attr}(value)` with a value that may "
                f"not be a scalar has no static-shape form",
            )
            return node
        jnp = self.ctx.names.jnp
        if f.attr in ("divide", "power"):
            # jax's own `.at[i].divide(v)` is `x / ones_like(x).at[i].multiply(v)` (`**` for
            # power): the scatter promotes `v` with x's dtype and casts the result back to it,
            # then the whole array is divided (an int array gives floats)
            sym = "/" if f.attr == "divide" else "**"
            ones = f"{jnp}.ones_like(X)"
            masked = f"X {sym} {jnp}.where(MASK, VALUE * {ones}, 1).astype(X.dtype)"
        else:
            combined = {
                "set": "VALUE",
                "add": "X + VALUE",
                "multiply": "X * VALUE",
                "mul": "X * VALUE",
                "min": f"{jnp}.minimum(X, VALUE)",
                "max": f"{jnp}.maximum(X, VALUE)",
            }[f.attr]
            masked = f"{jnp}.where(MASK, {combined}, X).astype(X.dtype)"
        mask = _array_index(self.ctx, mask)
        m = _mask_expr(self.ctx, self.stmt, x, mask)
        if kind == _IndexKind.AMBIGUOUS:
            new = replace_expr(
                f"{masked} if {jnp}.result_type(INDEX) == {jnp}.bool_ else ORIGINAL",
                MASK=m,
                X=x,
                VALUE=value,
                INDEX=mask,
                ORIGINAL=node,
            )
            self.ctx.change(
                "AJ304",
                node,
                f"`{x}.at[index].{f.attr}(...)` with an index that may be "
                f"a boolean mask or integers: chosen by its dtype at trace time",
            )
            self.changed = True
            return new
        new = replace_expr(masked, MASK=m, X=x, VALUE=value)
        self.ctx.change(
            "AJ303",
            node,
            f"`{x}.at[mask].{f.attr}(...)` -> `{jnp}.where(mask, ...)` "
            f"(a boolean mask cannot index under jit)",
        )
        self.changed = True
        return new


def _user_at_with_mask(ctx: Context) -> None:
    text = _written_text(ctx)
    # where the function's text has no word `at`, only the statements made here may hold one
    # (masked_reductions, which ran before, writes none)
    # (the updates it replaced are simple statements, listed in the order walk_statements
    # lists them, and so are the statements made for them)
    if text is None or not text.isascii() or _AT_WORD.search(text):
        stmts = list(walk_statements(ctx.fn.body))
    else:
        stmts = list(getattr(ctx, "_aj_made", {}).values())
    for s in stmts:
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        if not _reads_at(s):
            continue
        rw = _AtMaskRewriter(ctx, s)
        for fname, value in gast.iter_fields(s):
            if isinstance(value, gast.expr):
                setattr(s, fname, rw.visit(value))
            elif isinstance(value, list) and value and isinstance(value[0], gast.expr):
                setattr(s, fname, [rw.visit(v) for v in value])


_AT_SKIP = frozenset({"ctx", "op", "ops"})  # nodes without children, never an attribute
_at_fields = ChildFields(_AT_SKIP)


def _reads_at(stmt) -> bool:
    """Whether a statement's own expressions (not the statements nested in it) hold an
    attribute `.at`: `any(... for n in _shallow_nodes(stmt))`, stopping at the first."""
    stack = [v for _f, v in gast.iter_fields(stmt) if isinstance(v, gast.expr)]
    for _f, v in gast.iter_fields(stmt):
        if isinstance(v, list):
            stack.extend(e for e in v if isinstance(e, gast.expr))
    pop, push, AST, Attribute = stack.pop, stack.append, gast.AST, gast.Attribute
    fields_of = _at_fields
    while stack:
        n = pop()
        kind = type(n)
        if kind is Attribute and n.attr == "at":
            return True
        fields = fields_of[kind]
        for f in fields:
            v = getattr(n, f, None)
            if type(v) is list:
                for x in v:
                    if isinstance(x, AST):
                        push(x)
            elif isinstance(v, AST):
                push(v)
    return False


def _shallow_nodes(stmt):
    """Nodes of a statement's own expressions (not of the statements nested in it)."""
    for _field, value in gast.iter_fields(stmt):
        if isinstance(value, gast.expr):
            yield from walk(value)
        elif isinstance(value, list):
            for v in value:
                if isinstance(v, gast.expr):
                    yield from walk(v)


def _evaluated_nodes(stmt):
    """Nodes of the expressions a statement evaluates where it stands (not in the statements
    nested in it): its own expressions, a `with`'s items, a `match`'s subject and guards, and a
    definition's decorators, defaults and bases (a function's body runs when it is called)."""
    if isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef)):
        a = stmt.args
        exprs = [*stmt.decorator_list, *a.defaults, *(d for d in a.kw_defaults if d is not None)]
    elif isinstance(stmt, gast.ClassDef):
        exprs = [*stmt.decorator_list, *stmt.bases, *(k.value for k in stmt.keywords)]
    else:
        yield from _shallow_nodes(stmt)
        exprs = [
            e
            for item in getattr(stmt, "items", None) or ()  # (a `with`'s)
            for e in (item.context_expr, item.optional_vars)
            if e is not None
        ]
        exprs += [c.guard for c in getattr(stmt, "cases", None) or () if c.guard is not None]
    for e in exprs:
        yield from walk(e)


__all__ = ["convert", "CODES", "dotted_name", "name"]
