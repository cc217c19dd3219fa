"""What a block of a function does besides computing values, asked by the converters before
they move the block into a function of its own (a branch or loop body): names it binds that
are not its own (`global`, `nonlocal`, `:=`), closures of the function that read what it
changes, calls that change objects outside it or draw a new value at each call, and uses of a
Python number whose meaning is Python's only. Answers about the whole function (its own
functions, its `global` names) are computed once per function node."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import gast

from ..scope import ModuleScope
from .activity import expr_activity, function_free_reads, names_in
from .statements import walk_statements
from .values import Kind, dotted_name

if TYPE_CHECKING:
    from . import FunctionAnalysis


def declared_outer(fn) -> frozenset[str]:
    """The names ``fn`` declares ``global`` or ``nonlocal`` (not its nested functions' own):
    assigned in a branch or loop body that becomes a function of its own, they would be that
    function's locals there. Computed once per function node."""
    found = fn.__dict__.get("_aj_declared_outer")
    if found is None:
        found = frozenset(
            name
            for st in walk_statements(fn.body)
            if isinstance(st, (gast.Global, gast.Nonlocal))
            for name in st.names
        )
        fn._aj_declared_outer = found
    return found


def walrus_in(node) -> gast.NamedExpr | None:
    """The first ``:=`` inside ``node``, if any: it binds a name of the function, which an
    expression moved into a lambda or a generated function would bind there instead."""
    for n in gast.walk(node):
        if isinstance(n, gast.NamedExpr):
            return n
    return None


def short_circuited_walrus(node) -> gast.NamedExpr | None:
    """A ``:=`` that Python's ``and``/``or`` may skip (in an operand after the first) inside
    ``node``: converted to ``jnp.logical_and`` / ``jnp.where`` / a flag, every operand is
    computed, and the name would always be bound."""
    for n in gast.walk(node):
        if isinstance(n, gast.BoolOp):
            for v in n.values[1:]:
                named = walrus_in(v)
                if named is not None:
                    return named
    return None


def zero_argument_super(stmts) -> gast.Call | None:
    """A ``super()`` call with no arguments in ``stmts`` (not in a function defined there): it
    finds its class and object from the function it is written in, which a generated branch or
    loop body function is not."""
    for st in walk_statements(stmts):
        if isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        for n in gast.walk(st):
            if (
                isinstance(n, gast.Call)
                and isinstance(n.func, gast.Name)
                and n.func.id == "super"
                and not n.args
            ):
                return n
    return None


def user_functions(fn) -> list[tuple[gast.AST, str, set[str]]]:
    """(statement, name, free reads) for each function the user's ``fn`` defines (`def`, and a
    lambda assigned to a name), found once per function (on its first question, before the
    converters' own branch and loop functions exist, or among them: those take what they read
    as parameters)."""
    found = fn.__dict__.get("_ajuser_functions")
    if found is None:
        found = []
        for st in walk_statements(fn.body):
            if isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef)):
                if getattr(st, "_aj_orig", False):
                    found.append((st, st.name, function_free_reads(st)))
            elif (
                isinstance(st, gast.Assign)
                and isinstance(st.value, gast.Lambda)
                and len(st.targets) == 1
                and isinstance(st.targets[0], gast.Name)
            ):
                found.append((st, st.targets[0].id, expr_activity(st.value).reads))
        fn._ajuser_functions = found
    return found


def closures_outside(fn, block: list) -> dict[str, set[str]]:
    """The functions ``fn`` defines outside ``block`` (`def` statements and lambdas assigned to a
    name), each with the names of ``fn`` it reads when called (a closure calling another reads
    what that one reads)."""
    functions = user_functions(fn)
    if not functions:
        return {}
    inside = {id(st) for st in walk_statements(block, into_functions=True)}
    closures: dict[str, set[str]] = {}
    for st, name, reads in functions:
        if id(st) not in inside:
            closures.setdefault(name, set()).update(reads)
    changed = bool(closures)
    while changed:
        changed = False
        for reads in closures.values():
            more = set().union(*(closures[c] for c in reads & closures.keys())) - reads
            if more:
                reads |= more
                changed = True
    return closures


def read_by_closures(fn, block: list) -> set[str]:
    """The names that functions defined outside ``block`` read when called, after it too: a
    value the block gives one of them is an output of the block (`lr` of `apply = lambda g:
    p - lr * g`, set in a branch and read by a later `apply(g)`)."""
    return set().union(*closures_outside(fn, block).values())


def effectful_call(fn, scope, block: list) -> str | None:
    """The name of a function called in ``block`` (a closure of ``fn``, or a function of the
    module) that changes something outside itself: it declares `nonlocal` / `global`, or
    changes an object it did not make (`log.append(v)`, `obj.n = 1`, `buf[i] = v` on a name
    it does not bind). A converted block is traced once (both branches of an `if` once), so
    the change would happen a number of times of its own."""
    called = set()
    for st in block:
        for n in gast.walk(st):
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Name):
                called.add(n.func.id)
    if not called:
        return None
    local = {
        name: st
        for st, name, _reads in user_functions(fn)
        if isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef))
    }
    for name in sorted(called):
        node = local.get(name)
        if node is not None:
            if _changes_outside(node):
                return name
        elif name in scope.functions and _changes_outside(scope.functions[name]):
            return name
    return None


def _changes_outside(fn) -> bool:
    """Whether a function (a gast or an ast node) declares `nonlocal`/`global`, or changes an
    object held by a name it does not bind."""
    import ast as _ast

    own: set[str] = set()
    args = fn.args
    for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
        if a is not None:
            own.add(getattr(a, "id", None) or getattr(a, "arg", None))
    stores: list = []
    walker = gast.walk if isinstance(fn, gast.AST) else _ast.walk
    for n in walker(fn):
        kind = type(n).__name__
        if kind in ("Global", "Nonlocal"):
            return True
        if kind == "Name" and type(n.ctx).__name__ == "Store":
            own.add(n.id)
        elif kind in ("Subscript", "Attribute") and type(n.ctx).__name__ == "Store":
            stores.append(n.value)
        elif (
            kind == "Call"
            and type(n.func).__name__ == "Attribute"
            and n.func.attr in CHANGING_METHODS
        ):
            stores.append(n.func.value)
    for base in stores:
        while type(base).__name__ in ("Subscript", "Attribute"):
            base = base.value
        if type(base).__name__ == "Name" and base.id not in own:
            return True
    return False


# methods that change their object in place: of lists, dicts and sets, and of NumPy arrays (a
# jax array has `sort` too, which returns a copy: AJ305 rewrites that one)
CHANGING_METHODS = frozenset(
    {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "add",
     "discard", "popitem", "sort", "reverse", "fill", "resize", "itemset"}
)  # fmt: skip


# methods of lists, dicts and sets that change their object and give a value (the others give
# None: where their result is used, they are some other object's, `opt.update(grads, state)`)
_VALUE_RETURNING_CHANGES = frozenset({"pop", "popitem", "setdefault"})


def container_change(an: FunctionAnalysis, node, stmt) -> bool:
    """Whether ``node`` is a call like `stack.pop()`, inside an expression: it changes a Python
    container (or an object the analysis cannot tell from one) and gives a value. A traced
    branch or loop body runs it once, at trace time."""
    return (
        isinstance(node, gast.Call)
        and isinstance(node.func, gast.Attribute)
        and node.func.attr in _VALUE_RETURNING_CHANGES
        and an.value(node.func.value, stmt).kind
        in (Kind.LIST, Kind.DICT, Kind.NUMPY, Kind.UNKNOWN)
    )


def stale_closure_read(fn, block: list, writes: set[str]) -> tuple[str, str] | None:
    """(closure, name) where ``block``, to become a function of its own, calls (or passes on) a
    function defined in ``fn`` outside it that reads ``name``, one of ``writes``: the block's
    new function would change its own copy of ``name`` while the closure reads ``fn``'s, as
    it was before the block (closures read late: Python's closure sees each new value).
    Functions are ``def`` statements and lambdas assigned to a name; a closure calling another
    reads what that one reads."""
    if not writes:
        return None
    closures = closures_outside(fn, block)
    if not closures:
        return None
    loaded = set()
    for st in block:
        loaded |= names_in(st)
    for name in sorted(loaded & closures.keys()):
        stale = sorted(closures[name] & writes)
        if stale:
            return name, stale[0]
    return None


_PYTHON_ONLY_CALLS = frozenset({"isinstance", "type", "str", "repr", "id", "hash", "format"})


def python_value_use(
    stmts: list, names: set[str], dtype_of: Callable[[Any, Any], str | None] | None = None
) -> tuple[str, str] | None:
    """(name, what) for a use in ``stmts`` (their own expressions: a compound statement's head,
    not its body) of one of ``names`` (Python numbers or bools that a conversion makes traced
    values), or of a name assigned from one of them there (`m = k + 1`), whose meaning is
    Python's only: inside an `is` test, `isinstance`, `type`, `str` and the other text
    builtins, a `format` / `%` of a string or an f-string field; an integer power of a Python
    int (`2 ** -k`, `pow(2, k - 3)`: 0.25 of Python ints, 0 of int32); or, where
    ``dtype_of(expr, statement)`` tells the kind of a value ('bool', 'int', 'float' or None),
    arithmetic on two bools (`True + True` is 2; on traced booleans `+` is a logical or,
    giving True) and `~` / unary `+` / `-` of one (`~True` is -2)."""
    if not names:
        return None
    own = names
    names = _assigned_from(stmts, names)  # (arithmetic on bools: of `names` themselves only)
    for st in stmts:
        if (
            dtype_of is not None
            and isinstance(st, gast.AugAssign)
            and isinstance(st.op, _INT_ARITHMETIC)
        ):
            found = _bool_arithmetic(st.target, st.value, st, own, dtype_of)
            if found is not None:
                return found, "arithmetic on bools"
        roots = []
        for _field, value in gast.iter_fields(st):
            if isinstance(value, gast.expr):
                roots.append(value)
            elif isinstance(value, list):
                roots += [v for v in value if isinstance(v, gast.expr)]
        for root in roots:
            parents: dict[int, object] = {}
            for n in gast.walk(root):
                for c in gast.iter_child_nodes(n):
                    parents[id(c)] = n
                if not (
                    isinstance(n, gast.Name) and n.id in names and isinstance(n.ctx, gast.Load)
                ):
                    continue
                node, parent = n, parents.get(id(n))
                if dtype_of is not None and n.id in own:
                    if (
                        isinstance(parent, gast.UnaryOp)
                        and isinstance(parent.op, (gast.Invert, gast.UAdd, gast.USub))
                        and dtype_of(n, st) == "bool"
                    ):
                        return n.id, "arithmetic on a bool"
                    if isinstance(parent, gast.BinOp) and isinstance(parent.op, _INT_ARITHMETIC):
                        other = parent.left if n is parent.right else parent.right
                        if _bool_arithmetic(n, other, st, own, dtype_of) is not None:
                            return n.id, "arithmetic on bools"
                # (anywhere inside: `str(k + 10)`, `isinstance(k + 1, int)`, `f"{abs(k)}"`)
                inner, up = node, parent
                while up is not None:
                    sink = _python_only_sink(up, inner, parents)
                    if sink is not None:
                        return n.id, sink
                    inner, up = up, parents.get(id(up))
                while isinstance(parent, gast.UnaryOp):
                    node, parent = parent, parents.get(id(parent))
                # (through int arithmetic: `10 ** (k - 3)`, `2 ** -k`)
                inner, outer = node, parent
                while isinstance(outer, gast.BinOp) and isinstance(outer.op, _INT_OPS):
                    inner, outer = outer, parents.get(id(outer))
                if isinstance(outer, gast.BinOp) and isinstance(outer.op, gast.Pow):
                    other = outer.left if inner is outer.right else outer.right
                    if (isinstance(other, gast.Constant) and type(other.value) is int) or (
                        dtype_of is not None and dtype_of(other, st) == "int"
                    ):
                        return n.id, "an integer power"
                if (
                    isinstance(outer, gast.Call)
                    and dotted_name(outer.func) in ("pow", "operator.pow")
                    and inner in outer.args[:2]
                ):
                    return n.id, "`pow()`"  # (Python ints of any size; int32 wraps)
    return None


# builtins whose result from a number is Python's own: text, a type, a hash
_TEXT_CALLS = _PYTHON_ONLY_CALLS | {"ascii", "bin", "hex", "oct", "chr"}


def _python_only_sink(node, child, parents: dict) -> str | None:
    """What makes ``node`` (an ancestor of a use, ``child`` the one of its children on the way)
    Python's only: None where it is not."""
    if isinstance(node, gast.Compare) and any(
        isinstance(op, (gast.Is, gast.IsNot)) for op in node.ops
    ):
        return "an `is` test"
    if isinstance(node, gast.Call) and child is not node.func:
        f = node.func
        if isinstance(f, gast.Name) and f.id in _TEXT_CALLS:
            return f"`{f.id}()`"
        if (
            isinstance(f, gast.Attribute)
            and f.attr == "format"
            and isinstance(f.value, gast.Constant)
            and isinstance(f.value.value, str)
        ):
            return "`str.format()`"
    if (
        isinstance(node, gast.BinOp)
        and isinstance(node.op, gast.Mod)
        and isinstance(node.left, gast.Constant)
        and isinstance(node.left.value, str)
    ):
        return "a `%` format"
    if isinstance(node, gast.FormattedValue):
        call = parents.get(id(parents.get(id(node))))
        printed = (
            isinstance(call, gast.Call)
            and isinstance(call.func, gast.Name)
            and call.func.id == "print"
        )
        if not printed:  # (a print of a traced value becomes jax.debug.print)
            return "an f-string"
    return None


def _assigned_from(stmts: list, names: set[str]) -> set[str]:
    """``names`` and the names ``stmts`` assign a value read from one of them (`m = k`,
    `m = k + 1`, `(m := k)`), through one another."""
    out = set(names)
    for _ in range(8):
        more: set[str] = set()
        for st in stmts:
            for n in gast.walk(st) if isinstance(st, gast.expr) else _own_nodes(st):
                if isinstance(n, gast.NamedExpr) and expr_activity(n.value).reads & out:
                    more.add(n.target.id)
            if isinstance(st, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
                value = st.value
                if value is not None and expr_activity(value).reads & out:
                    targets = st.targets if isinstance(st, gast.Assign) else [st.target]
                    for t in targets:
                        more |= {
                            x.id
                            for x in gast.walk(t)
                            if isinstance(x, gast.Name) and isinstance(x.ctx, gast.Store)
                        }
        if more <= out:
            break
        out |= more
    return out


def _own_nodes(st):
    """The nodes of a statement's own expressions (not of its body)."""
    for _field, value in gast.iter_fields(st):
        if isinstance(value, gast.expr):
            yield from gast.walk(value)
        elif isinstance(value, list):
            for v in value:
                if isinstance(v, gast.expr):
                    yield from gast.walk(v)


# the operators of int arithmetic through which an integer power still reads a Python int
_INT_OPS = (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv, gast.Mod)

# operators whose result on two Python bools is an int, and another thing on jax booleans
_INT_ARITHMETIC = (
    gast.Add, gast.Sub, gast.Mult, gast.FloorDiv, gast.Mod, gast.Pow, gast.LShift, gast.RShift
)  # fmt: skip


def _bool_arithmetic(a, b, st, names: set[str], dtype_of) -> str | None:
    """The name of ``names`` among the operands ``a`` and ``b`` when both are bools."""
    mine = [e for e in (a, b) if isinstance(e, gast.Name) and e.id in names]
    if mine and all(
        (isinstance(e, gast.Constant) and type(e.value) is bool) or dtype_of(e, st) == "bool"
        for e in (a, b)
    ):
        return mine[0].id
    return None


def statements_after(fn, node) -> list:
    """The statements of ``fn`` (nested ones included, not nested functions') that start after
    ``node`` ends."""
    end = getattr(node, "end_lineno", None) or getattr(node, "lineno", None)
    if end is None:
        return []
    # (not its own statements, whatever their lines: a rewrite may have moved code into it)
    inside = {id(st) for st in walk_statements([node], into_functions=True)}
    return [
        st
        for st in walk_statements(fn.body)
        if (getattr(st, "lineno", None) or 0) > end and id(st) not in inside
    ]


_STATEFUL_BUILTINS = frozenset({"next", "input"})
_STATEFUL_METHODS = frozenset(
    """rand randn randint random random_sample random_integers integers normal uniform choice
    shuffle permutation permuted standard_normal binomial poisson exponential beta gamma
    multinomial bytes __next__ send""".split()
)
_STATEFUL_MODULES = ("random.", "numpy.random.", "time.", "secrets.", "uuid.")


def stateful_call(scope: ModuleScope, an: FunctionAnalysis, call, s) -> bool:
    """A call whose Python value changes from call to call: `next(it)`, `random.random()`,
    `np.random.rand()`, or a method of a module-level object (`RS.rand()`, a NumPy
    RandomState) giving a Python value (a traced one is computed in the loop body, fine)."""
    name = dotted_name(call.func)
    if name is None:
        return False
    head = name.split(".")[0]
    local = head in an.values.locals
    if "." not in name:
        return name in _STATEFUL_BUILTINS and not local and not scope.binds(name)
    qual = scope.qualified(name) if not local else None
    if qual is not None and qual.startswith(_STATEFUL_MODULES):
        return True
    if local and name.rsplit(".", 1)[-1] in _STATEFUL_METHODS:
        # `rng = np.random.default_rng(0)` in the function: its draws change from call to call
        return _bound_to_a_generator(scope, an.fn, head)
    if local or head in scope.modules or head in scope.imported_names:
        return False
    # `RS.rand()`: a random generator's (or an iterator's) method on a module-level object
    return (
        name.rsplit(".", 1)[-1] in _STATEFUL_METHODS
        and head in scope.assigned
        and not an.value(call, s).traced
    )




def _bound_to_a_generator(scope: ModuleScope, fn, name: str) -> bool:
    """Whether ``fn`` assigns ``name`` an object made by `random` / `numpy.random`
    (`np.random.default_rng(0)`, `random.Random(1)`)."""
    for st in walk_statements(fn.body):
        if (
            isinstance(st, gast.Assign)
            and any(isinstance(t, gast.Name) and t.id == name for t in st.targets)
            and isinstance(st.value, gast.Call)
        ):
            called = dotted_name(st.value.func)
            qual = scope.qualified(called) if called else None
            if qual is not None and qual.startswith(_STATEFUL_MODULES):
                return True
    return False


def effect_in(fn, scope: ModuleScope, an: FunctionAnalysis, parts: list, stmt) -> gast.AST | None:
    """A call in the expressions ``parts`` (of statement ``stmt`` of ``fn``) whose running more
    than once, or not at all, matters: a function of the user's that changes something outside
    itself, a draw (`next(it)`, `rng.normal()`), or a container method with a value
    (`stack.pop()`). A rewrite that writes such an expression twice, or computes what Python
    may skip, changes what the program does."""
    if not parts:
        return None
    changer = effectful_call(fn, scope, [gast.Expr(value=p) for p in parts])
    for p in parts:
        for n in gast.walk(p):
            if not isinstance(n, gast.Call):
                continue
            if changer is not None and isinstance(n.func, gast.Name) and n.func.id == changer:
                return n
            if stateful_call(scope, an, n, stmt) or container_change(an, n, stmt):
                return n
    return None


def grows_geometrically(loop, name: str) -> bool:
    """Whether the loop makes ``name`` grow geometrically: assigns it a product, power or shift
    of itself anywhere in the value (`fact = fact * k`, `p *= 2`, `c = 2 * c + 1`,
    `c = (c << 1) | 1`), a sum of itself (`c = c + c`, `c += c`), or, in a tuple assignment, a
    sum of two names the loop assigns (`a, b = b, a + b`)."""
    growing = (gast.Mult, gast.Pow, gast.LShift)
    written = None
    for st in walk_statements(loop.body):
        if isinstance(st, gast.AugAssign):
            if not (isinstance(st.target, gast.Name) and st.target.id == name):
                continue
            if isinstance(st.op, growing) or (
                isinstance(st.op, gast.Add) and name in expr_activity(st.value).reads
            ):
                return True
            value = st.value
        elif isinstance(st, gast.Assign) and len(st.targets) == 1:
            target, value = st.targets[0], st.value
            if isinstance(target, gast.Tuple) and isinstance(value, gast.Tuple):
                pairs = [
                    (t, v)
                    for t, v in zip(target.elts, value.elts, strict=False)
                    if isinstance(t, gast.Name) and t.id == name
                ]
                if not pairs:
                    continue
                value = pairs[0][1]
                if written is None:
                    written = _loop_writes(loop)
                if isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add):
                    if len(expr_activity(value).reads & written) >= 2:
                        return True  # (`a, b = b, a + b`)
            elif not (isinstance(target, gast.Name) and target.id == name):
                continue
        else:
            continue
        for n in gast.walk(value):
            if not isinstance(n, gast.BinOp):
                continue
            if isinstance(n.op, growing) and name in expr_activity(n).reads:
                return True
            if (
                isinstance(n.op, gast.Add)
                and name in expr_activity(n.left).reads
                and name in expr_activity(n.right).reads
            ):
                return True
    return False


def _loop_writes(loop) -> set[str]:
    """The names the loop's own statements assign."""
    out: set[str] = set()
    for st in walk_statements(loop.body):
        for t in getattr(st, "targets", None) or [getattr(st, "target", None)]:
            if t is not None:
                out |= expr_activity(t).writes
    return out
