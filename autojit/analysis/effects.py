"""What a block of a function does besides computing values, asked by the converters before
they move the block into a function of its own (a branch or loop body): names it binds that
are not its own (`global`, `nonlocal`, `:=`), closures of the function that read what it
changes, calls that change objects outside it or draw a new value at each call, and uses of a
Python number whose meaning is Python's only. Answers about the whole function (its own
functions, its `global` names) are computed once per function node."""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

import gast

from ..gastconv import child_nodes, walk_bfs, walk_nodes
from ..jaxapi import SHAPE_ARGUMENTS, STATIC_ATTRIBUTES
from ..scope import ModuleScope
from .activity import expr_activity, function_free_reads, names_in
from .dtype_source import KIND_RANK
from .statements import walk_statements
from .values import Kind, Value, dotted_name

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
    for n in walk_nodes(node):
        if isinstance(n, gast.NamedExpr):
            return n
    return None


def short_circuited_walrus(node) -> gast.NamedExpr | None:
    """A ``:=`` that Python's ``and``/``or`` may skip (in an operand after the first) inside
    ``node``: converted to ``jnp.logical_and`` / ``jnp.where`` / a flag, every operand is
    computed, and the name would always be bound."""
    for n in walk_nodes(node):
        if isinstance(n, gast.BoolOp):
            for v in n.values[1:]:
                named = walrus_in(v)
                if named is not None:
                    return named
    return None


def zero_argument_super(text: str, stmts) -> gast.Call | None:
    """A ``super()`` call with no arguments in ``stmts`` (not in a function defined there): it
    finds its class and object from the function it is written in, which a generated branch
    or loop body function is not. (None at once where the file's ``text``, written in ASCII,
    never names `super`: the parser reads other spellings of an identifier as it too.)"""
    if "super" not in text and text.isascii():
        return None
    for st in walk_statements(stmts):
        if isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        for n in walk_bfs(st):
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


def closures_outside(fn, block: list, scope: ModuleScope | None = None) -> dict[str, set[str]]:
    """The functions ``fn`` defines outside ``block`` (`def` statements and lambdas assigned to a
    name), each with the names of ``fn`` it reads when called (a closure calling another
    reads what that one reads). With ``scope``, a function called only where it is defined
    (:func:`called_where_defined`) is left out: what it reads is read by its `def` statement."""
    functions = user_functions(fn)
    if not functions:
        return {}
    inside = {id(st) for st in walk_statements(block, into_functions=True)}
    immediate = called_where_defined(fn, scope) if scope is not None else frozenset()
    closures: dict[str, set[str]] = {}
    for st, name, reads in functions:
        if id(st) not in inside and id(st) not in immediate:
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


def read_by_closures(fn, block: list, scope: ModuleScope | None = None) -> set[str]:
    """The names that functions defined outside ``block`` read when called, after it too: a
    value the block gives one of them is an output of the block (`lr` of `apply = lambda g:
    p - lr * g`, set in a branch and read by a later `apply(g)`). With ``scope``, not those
    of a function called only where it is defined (:func:`called_where_defined`)."""
    return set().union(*closures_outside(fn, block, scope).values())


# the jax.lax functions that call the functions they are given during the call, and keep none
_CALLING_NOW = frozenset(
    f"jax.lax.{n}" for n in ("cond", "while_loop", "fori_loop", "scan", "map", "switch")
)
_SIMPLE_STATEMENTS = (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Return)
# what makes code of a function run after a call of it returns (a `def` in it may not: checked)
_DEFERRED = (gast.Lambda, gast.GeneratorExp, gast.AsyncFunctionDef, gast.ClassDef, gast.Yield,
             gast.YieldFrom, gast.Await, gast.Global, gast.Nonlocal)  # fmt: skip


def called_where_defined(fn, scope: ModuleScope) -> frozenset[int]:
    """The ids of the user's `def` statements in ``fn`` (:func:`user_functions`) whose function
    is only called right where it is defined (:func:`_defs_called_where_defined`): what such a
    function reads is read by its `def` statement, where liveness counts it, and no later call
    reads another value of it. The conversion of an `if` or a loop writes its branch and body
    functions so; giving them the same answer, generated or read back from a converted file,
    keeps a second conversion from changing more."""
    functions = [st for st, _name, _reads in user_functions(fn) if type(st) is gast.FunctionDef]
    if not functions:
        return frozenset()
    immediate = _defs_called_where_defined(fn, scope)
    return frozenset(id(st) for st in functions if id(st) in immediate)


def _defs_called_where_defined(fn, scope: ModuleScope) -> set[int]:
    """The ids of the `def` statements in ``fn``'s own blocks whose every use is a call of the
    function, or an argument of a `jax.lax` function that calls it then (`lax.cond(p, _then,
    _else, x)`), in simple statements after the `def` in its block, with no statement between
    rebinding a name it reads, and whose code never runs after the call returns (no decorator,
    lambda, class, `yield`, `nonlocal`, nor a `def` of its own but one called so in turn)."""
    uses: dict[str, int] = {}  # name -> how many times fn uses it (loads and stores)
    declared: set[str] = set()  # the names a `nonlocal` / `global` rebinds from elsewhere
    for n in walk_bfs(fn):
        t = type(n)
        if t is gast.Name:
            uses[n.id] = uses.get(n.id, 0) + 1
        elif t in (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef) and n is not fn:
            uses[n.name] = uses.get(n.name, 0) + 1
        elif t is gast.Nonlocal or t is gast.Global:
            declared.update(n.names)
    out: set[int] = set()
    if _REFLECTION & uses.keys():
        return out  # (`locals()["g"]`, `eval("g()")`: a function reached without its name)
    for block in _blocks(fn.body):
        for i, st in enumerate(block):
            if type(st) is not gast.FunctionDef or st.decorator_list:
                continue
            reads = function_free_reads(st)
            if reads & declared or _runs_later(st, scope):
                continue
            if _used_right_after(st, reads, block, i, uses.get(st.name, 0) - 1, scope):
                out.add(id(st))
    return out


_REFLECTION = frozenset({"locals", "vars", "globals", "eval", "exec"})


def _runs_later(st, scope: ModuleScope) -> bool:
    """Whether code of the function ``st`` may run after a call of it has returned."""
    defs = False
    for b in st.body:
        for n in walk_nodes(b):
            t = type(n)
            if t is gast.FunctionDef:
                defs = True
            elif t in _DEFERRED:
                return True
    if not defs:
        return False
    inner = _defs_called_where_defined(st, scope)
    return any(
        type(d) is gast.FunctionDef and id(d) not in inner for d in walk_statements(st.body)
    )


def _used_right_after(st, reads: set[str], block: list, i: int, count: int, scope) -> bool:
    """Whether the ``count`` uses (one at least) of the name of the `def` ``st`` (at
    ``block[i]``) are calls now in simple statements after it in ``block``, with only other
    plain `def`s between (so nothing rebinds or changes what it reads before the call), and
    nothing else run before the call in those statements but jax's functions and an array's
    pure methods."""
    name, found = st.name, 0
    if count < 1:
        return False  # (never named: `locals()["g"]()` may reach it any time)
    for later in block[i + 1 :]:
        if found == count:
            return True
        mine = sum(1 for n in walk_nodes(later) if type(n) is gast.Name and n.id == name)
        if not mine:
            if not (
                type(later) is gast.FunctionDef
                and not later.decorator_list
                and not later.args.defaults
                and not any(later.args.kw_defaults)
                and later.name not in reads
            ):
                return False  # (another statement between: it may change what `st` reads)
            continue
        if not isinstance(later, _SIMPLE_STATEMENTS) or _calls_now(later, name, scope) != mine:
            return False
        found += mine
    return found == count


# an array's methods that change nothing (NumPy's `sort`, `fill`, `put`, `resize` do)
_PURE_METHODS = frozenset(
    """sum max min mean prod any all std var argmax argmin astype reshape transpose ravel
    flatten squeeze item dot clip round cumsum cumprod conj take repeat swapaxes""".split()
)


def _calls_now(stmt, name: str, scope: ModuleScope) -> int | None:
    """How many times ``stmt`` calls the function ``name`` while it runs (`name(...)`, or as
    an argument of a jax.lax function that calls it then); None where it may run other code
    of the user's first (a call of another function, a method that may change an array) or
    keep the function for later (a lambda, a generator expression)."""
    calls = 0
    for n in walk_nodes(stmt):
        t = type(n)
        if t in _DEFERRED:
            return None
        if t is not gast.Call:
            continue
        f = n.func
        if type(f) is gast.Name and f.id == name:
            calls += 1
            continue
        dotted = dotted_name(f)
        qualified = scope.qualified(dotted) if dotted is not None else None
        if qualified is not None and qualified.startswith("jax."):
            if qualified in _CALLING_NOW:
                calls += sum(1 for a in n.args if type(a) is gast.Name and a.id == name)
            continue
        if type(f) is gast.Attribute and (f.attr in _PURE_METHODS or at_method(f)):
            continue
        return None
    return calls


def at_method(f) -> bool:
    """Whether the attribute ``f`` is a method of `.at[...]` (`y.at[i].set`: a new array)."""
    v = f.value
    return type(v) is gast.Subscript and type(v.value) is gast.Attribute and v.value.attr == "at"


def _blocks(body: list):
    """Every statement list of a function body (not entering nested functions)."""
    stack = [body]
    while stack:
        block = stack.pop()
        yield block
        for s in block:
            if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
                continue
            for f in ("body", "orelse", "finalbody"):
                sub = getattr(s, f, None)
                if sub:
                    stack.append(sub)
            for h in getattr(s, "handlers", None) or ():
                stack.append(h.body)
            for c in getattr(s, "cases", None) or ():
                stack.append(c.body)


def effectful_call(fn, scope, block: list) -> str | None:
    """The name of a function called in ``block`` (a closure of ``fn``, or a function of the
    module) that changes something outside itself: it declares `nonlocal` / `global`, or
    changes an object it did not make (`log.append(v)`, `obj.n = 1`, `buf[i] = v` on a name
    it does not bind). A converted block is traced once (both branches of an `if` once), so
    the change would happen a number of times of its own."""
    called = set()
    for st in block:
        for n in walk_bfs(st):
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Name):
                called.add(n.func.id)
    if not called:
        return _changing_method_call(fn, scope, block)
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
    return _changing_method_call(fn, scope, block)


_INTROSPECTION = frozenset({"locals", "vars", "eval", "exec", "dir"})


def scope_introspection(block: list, scope) -> str | None:
    """The name of a builtin in ``block`` that reads the function's local names (`locals()`,
    `vars()`, `dir()`, `eval(...)`, `exec(...)`): in a branch or loop body function made by the
    conversion it would read that function's names instead."""
    for st in block:
        for n in walk_bfs(st):
            if (
                isinstance(n, gast.Call)
                and isinstance(n.func, gast.Name)
                and n.func.id in _INTROSPECTION
                and not scope.binds(n.func.id)
                and (n.func.id in ("eval", "exec") or not n.args)
            ):
                return n.func.id
    return None


def _changing_method_call(fn, scope, block: list) -> str | None:
    """`c.step(v)` (``c = Counter()`` in ``fn``) or `Counter.step(v)`, where the method of the
    module's class changes its object (`self.n += 1`, `self.log.append(v)`) or something
    outside itself: a block traced once would change it once."""
    classes = getattr(scope, "class_nodes", None)
    if not classes:
        return None
    calls = [
        n
        for st in block
        for n in walk_bfs(st)
        if isinstance(n, gast.Call)
        and isinstance(n.func, gast.Attribute)
        and isinstance(n.func.value, gast.Name)
        and n.func.value.id != "self"  # (`self`'s own methods: its class is not looked up)
    ]
    if not calls:
        return None
    instances = fn.__dict__.get("_aj_instances")
    if instances is None:  # name -> the module class it is made of, in `fn` (found once)
        instances = fn._aj_instances = {}
        for st in walk_statements(fn.body):
            if (
                isinstance(st, gast.Assign)
                and isinstance(st.value, gast.Call)
                and isinstance(st.value.func, gast.Name)
                and st.value.func.id in classes
            ):
                for t in st.targets:
                    if isinstance(t, gast.Name):
                        instances[t.id] = st.value.func.id
    for call in calls:
        owner = call.func.value.id
        cls = instances.get(owner) or (owner if owner in classes else None)
        if cls is None:
            # an object made elsewhere (a parameter, a module-level instance): it may be of a
            # module class whose method of that name changes its object
            if owner in scope.modules or owner in scope.imported_names:
                continue  # (`np.append(...)`: a module's function)
            changer = _changing_method_class(scope, call.func.attr)
            if changer is not None:
                return f"{owner}.{call.func.attr}"
            continue
        method = next(
            (
                s
                for s in classes[cls].body
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                and s.name == call.func.attr
            ),
            None,
        )
        if method is not None and _changes_its_object(method):
            return f"{owner}.{call.func.attr}"
    return None


def _changing_method_class(scope, name: str) -> str | None:
    """The module class of the first method named ``name`` that changes its object (in the
    order of the module's classes and their bodies), or None; found once per module and name,
    only for the names called (a module's methods are not all read)."""
    found = scope.__dict__.get("_aj_changing_methods")
    if found is None:
        found = scope._aj_changing_methods = {}
    if name not in found:
        found[name] = next(
            (
                cls
                for cls, node in scope.class_nodes.items()
                for st in node.body
                if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))
                and st.name == name
                and _changes_its_object(st)
            ),
            None,
        )
    return found[name]


def _changes_its_object(method) -> bool:
    """Whether a method (an ``ast`` node) changes its first parameter's object (`self.n = 1`,
    `self.items.append(v)`) or something outside itself. Found once per method."""
    found = method.__dict__.get("_aj_changes_its_object")
    if found is None:
        a = method.args
        first = (a.posonlyargs + a.args)[:1]
        found = _changes_outside(method) or (
            bool(first) and _changes_name(method, first[0].arg)
        )
        method._aj_changes_its_object = found
    return found


def _changes_name(fn, name: str) -> bool:
    """Whether ``fn`` stores into an attribute or item of ``name``'s object, or calls one of
    its in-place methods (`name.x = v`, `name.items[k] = v`, `name.log.append(v)`)."""
    for n in walk_bfs(fn):
        kind = type(n).__name__
        base = None
        if kind in ("Subscript", "Attribute") and type(n.ctx).__name__ in ("Store", "Del"):
            base = n.value
        elif (
            kind == "Call"
            and type(n.func).__name__ == "Attribute"
            and n.func.attr in CHANGING_METHODS
        ):
            base = n.func.value
        while base is not None and type(base).__name__ in ("Subscript", "Attribute"):
            base = base.value
        if base is not None and type(base).__name__ == "Name" and base.id == name:
            return True
    return False


def _changes_outside(fn) -> bool:
    """Whether a function (a gast or an ast node) declares `nonlocal`/`global`, or changes an
    object held by a name it does not bind. Found once per module function (an `ast` node,
    which no converter changes; a gast one may be rewritten)."""
    if isinstance(fn, gast.AST):
        return _changes_outside_of(fn)
    found = fn.__dict__.get("_aj_changes_outside")
    if found is None:
        found = fn._aj_changes_outside = _changes_outside_of(fn)
    return found


def _changes_outside_of(fn) -> bool:

    own: set[str] = set()
    args = fn.args
    for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
        if a is not None:
            own.add(getattr(a, "id", None) or getattr(a, "arg", None))
    stores: list = []
    for n in walk_bfs(fn):
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
# ...and those that give None, still met in an expression (`[log.append(v) for v in vs]`,
# `(seen.add(k), k)`): a list's own (no array, optimizer or other pure object has them) on
# any object the analysis cannot tell from a list; the others on a known container
_LIST_CHANGES = frozenset({"append", "extend", "insert", "remove", "discard"})
_CONTAINER_CHANGES = frozenset({"update", "add", "clear", "sort", "reverse"})


def container_change(an: FunctionAnalysis, node, stmt) -> bool:
    """Whether ``node`` is a call like `stack.pop()` or `log.append(v)`, inside an expression
    (a comprehension, a tuple display): it changes a Python container (or an object the
    analysis cannot tell from one: a method of a list's that gives a value only so). A traced
    branch or loop body runs it once, at trace time."""
    if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)):
        return False
    attr = node.func.attr
    if attr in _VALUE_RETURNING_CHANGES:
        kinds: tuple[Kind, ...] = (Kind.LIST, Kind.DICT, Kind.NUMPY, Kind.UNKNOWN)
    elif attr in _LIST_CHANGES and isinstance(node.func.value, (gast.Name, gast.Attribute)):
        kinds = (Kind.LIST, Kind.DICT, Kind.NUMPY, Kind.UNKNOWN)
    elif attr in _CONTAINER_CHANGES and isinstance(node.func.value, (gast.Name, gast.Attribute)):
        kinds = (Kind.LIST, Kind.DICT, Kind.NUMPY)
    else:
        return False
    return an.value(node.func.value, stmt).kind in kinds


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
    loaded = _named_before_own_def(block, set())
    for name in sorted(loaded & closures.keys()):
        stale = sorted(closures[name] & writes)
        if stale:
            return name, stale[0]
    return None


def _named_before_own_def(block: list, own: set[str]) -> set[str]:
    """The names ``block`` names, but for those it names only after a `def` of its own has
    bound them (`def g(v): ...` then `g(t)`, at the top of the block or of a block inside it:
    the block's own function, not the one defined outside). A `def` inside a branch or loop
    counts for that block only (after it the name may hold either)."""
    own = set(own)
    out: set[str] = set()
    for st in block:
        if isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef)):
            # (its body as a block of its own, its parameters its own names there)
            a = st.args
            params = {
                p.id
                for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
                if isinstance(p, gast.Name)
            }
            defaults = [d for d in a.kw_defaults if d is not None]
            for d in [*st.decorator_list, *a.defaults, *defaults]:
                out |= names_in(d) - own
            out |= _named_before_own_def(st.body, own | params) - {st.name}
            own.add(st.name)
            continue
        inner = [getattr(st, f, None) or [] for f in ("body", "orelse", "finalbody")]
        inner += [h.body for h in getattr(st, "handlers", None) or []]
        inner += [c.body for c in getattr(st, "cases", None) or []]
        if not any(inner) or isinstance(st, gast.ClassDef):
            out |= names_in(st) - own
            continue
        for field, value in gast.iter_fields(st):  # (the statement's own expressions)
            if field in ("body", "orelse", "finalbody", "handlers", "cases"):
                continue
            for v in value if isinstance(value, list) else [value]:
                if isinstance(v, gast.AST):
                    out |= names_in(v) - own
        for b in inner:
            out |= _named_before_own_def(b, own)
    return out


_PYTHON_ONLY_CALLS = frozenset({"isinstance", "type", "str", "repr", "id", "hash", "format"})


class ValueFacts(NamedTuple):
    """What :func:`python_value_use` may ask of a function's analysis: the abstract value of an
    expression at a statement, and the qualified name of a dotted name (`jnp.arange` ->
    `jax.numpy.arange`)."""

    value: Callable[[Any, Any], Value]
    qualified: Callable[[str], str | None]
    # a function of the user's by name, as gast, and whether it is a closure of the function
    # (defined in it; else a function of the module)
    helper: Callable[[str], tuple[Any, bool] | None] | None = None
    # the names of the functions defined in the function (closures)
    closures: frozenset[str] = frozenset()

    def dtype(self, expr, stmt) -> str | None:
        return self.value(expr, stmt).dtype


def user_helper(fn, scope: ModuleScope, name: str) -> tuple[Any, bool] | None:
    """The function ``name`` that ``fn`` calls, as gast, where the user wrote it, and whether
    it is a `def` in ``fn`` (else a function of the module, converted once per node)."""
    for st, fname, _reads in user_functions(fn):
        if fname == name and isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef)):
            return st, True
    node = scope.functions.get(name)
    if node is None:
        return None
    found = node.__dict__.get("_aj_gast")
    if found is None:
        found = node._aj_gast = gast.ast_to_gast(node)
    return found, False


def python_value_use(
    stmts: list,
    names: set[str],
    facts: ValueFacts | None = None,
    *,
    traced_errors: bool = False,
    kills: frozenset[int] = frozenset(),
) -> tuple[str, str] | None:
    """(name, what) for a use in ``stmts`` (their own expressions: a compound statement's head,
    not its body) of one of ``names`` (Python numbers or bools that a conversion makes traced
    values), or of a name assigned from one of them there (`m = k + 1`, `for j in [k]`, a
    comprehension's `j`), whose meaning is Python's only: inside an `is` test, `isinstance`,
    `type`, `str` and the other text builtins, a `format` / `%` of a string or an f-string
    field; an integer power or a left shift of a Python int (`2 ** -k`, `pow(2, k - 3)`,
    `m **= -k`, `1 << k`: 0.25 of Python ints, 0 of int32; Python's ints never wrap); or, where
    ``facts`` tells the kind of a value, arithmetic on two bools (`True + True` is 2; on traced
    booleans `+` is a logical or, giving True) and `~` / unary `+` / `-` of one (`~True` is
    -2). With ``traced_errors``, also the uses that jax cannot trace at all (they would fail
    under jit instead): `range()`, `int()`, `math.*` and the other builtins that need a
    Python number, `.bit_length()` and the other attributes of Python's numbers, a slice
    bound, an index into a Python list, tuple or dict, an `in` test, a list or string
    repeated, and a shape or size argument of a jax function. ``kills``: the ids of the
    statements that run after the conversion's point whenever it runs (its own block): a
    plain assignment of one of ``names`` there gives it a new value (`k = 3`) for the rest."""
    if not names:
        return None
    given = names
    names = _assigned_from(stmts, names, facts)
    dtype_of = facts.dtype if facts is not None else None
    for st in stmts:
        if (
            id(st) in kills
            and isinstance(st, gast.Assign)
            and len(st.targets) == 1
            and isinstance(st.targets[0], gast.Name)
            and st.targets[0].id in given  # (not a name assigned from one: `flags = []`)
            and not expr_activity(st.value).reads & names
        ):
            names = names - {st.targets[0].id}  # (`k = 3` after the `if`: a new value)
            continue
        if isinstance(st, gast.AugAssign) and isinstance(st.op, (gast.Pow, gast.LShift)):
            # (as `t = t ** k`: a power of the value by an int, or an int's power by the value;
            # `x **= k` of a float array is a float power)
            read = sorted(expr_activity(st.value).reads & names)
            if (read and _python_int(st.target, st, dtype_of)) or (
                isinstance(st.target, gast.Name)
                and st.target.id in names
                and _python_int(st.value, st, dtype_of)
            ):
                power = isinstance(st.op, gast.Pow)
                return (read or [st.target.id])[0], (
                    "an integer power" if power else "a left shift"
                )
        if (
            dtype_of is not None
            and isinstance(st, gast.AugAssign)
            and isinstance(st.op, _INT_ARITHMETIC)
        ):
            found = _bool_arithmetic(st.target, st.value, st, names, dtype_of)
            if found is not None:
                return found, "arithmetic on bools"
        roots = _own_expressions(st)
        if facts is not None and facts.helper is not None and facts.closures:
            found = _use_in_closure(roots, names, facts, traced_errors)
            if found is not None:
                return found
        for root in roots:
            parents: dict[int, object] = {}
            for n in walk_nodes(root):
                for c in child_nodes(n):
                    parents[id(c)] = n
                if not (
                    isinstance(n, gast.Name) and n.id in names and isinstance(n.ctx, gast.Load)
                ):
                    continue
                node, parent = n, parents.get(id(n))
                if dtype_of is not None:
                    if (
                        (
                            isinstance(parent, gast.UnaryOp)
                            and isinstance(parent.op, (gast.Invert, gast.UAdd, gast.USub))
                        )
                        or (isinstance(parent, gast.Call) and dotted_name(parent.func) == "abs")
                    ) and dtype_of(n, st) == "bool":
                        return n.id, "arithmetic on a bool"  # (`abs(True)` is the int 1)
                    if isinstance(parent, gast.BinOp) and isinstance(parent.op, _INT_ARITHMETIC):
                        other = parent.left if n is parent.right else parent.right
                        if _bool_arithmetic(n, other, st, names, dtype_of) is not None:
                            return n.id, "arithmetic on bools"
                # (anywhere inside: `str(k + 10)`, `isinstance(k + 1, int)`, `f"{abs(k)}"`)
                inner, up = node, parent
                while up is not None:
                    if (
                        (isinstance(up, gast.Attribute) and up.attr in STATIC_ATTRIBUTES)
                        or (isinstance(up, gast.Call) and dotted_name(up.func) == "len")
                        or (inner is not getattr(up, "func", None) and _of_types(up, facts))
                    ):
                        # (`y.shape`, `len(y)`, `jnp.result_type(y, 1.0)` of an array: a Python
                        # value whatever `y` is)
                        break
                    sink = _python_only_sink(up, inner, parents)
                    if sink is None and traced_errors:
                        sink = _untraceable_use(up, inner, st, facts)
                    if sink is None and facts is not None and facts.helper is not None:
                        sink = _use_in_helper(up, inner, st, facts, traced_errors)
                    if sink is not None:
                        return n.id, sink
                    inner, up = up, parents.get(id(up))
                while (
                    isinstance(parent, gast.Subscript) and parent.value is node
                ) or isinstance(parent, gast.UnaryOp):
                    # (an element of a container holding it, `cfg["k"]`; `-k`)
                    node, parent = parent, parents.get(id(parent))
                # (through int arithmetic: `10 ** (k - 3)`, `2 ** -k`)
                inner, outer = node, parent
                while isinstance(outer, gast.BinOp) and isinstance(outer.op, _INT_OPS):
                    inner, outer = outer, parents.get(id(outer))
                if (
                    isinstance(outer, gast.BinOp)
                    and isinstance(outer.op, (gast.Pow, gast.LShift))
                    and not (dtype_of is not None and dtype_of(n, st) == "float")
                ):
                    # (of a Python int: a float's power is a float's, traced or not)
                    other = outer.left if inner is outer.right else outer.right
                    if (isinstance(other, gast.Constant) and type(other.value) is int) or (
                        dtype_of is not None and dtype_of(other, st) == "int"
                    ):
                        if isinstance(outer.op, gast.Pow):
                            return n.id, "an integer power"
                        return n.id, "a left shift"
                if (
                    isinstance(outer, gast.Call)
                    and dotted_name(outer.func) in ("pow", "operator.pow")
                    and inner in outer.args[:2]
                ):
                    return n.id, "`pow()`"  # (Python ints of any size; int32 wraps)
    return None


def int_constant(node) -> int | None:
    """The value of an int written with literals only (`2**31`, `-(1 << 40)`, `10**9 + 7`,
    `int(1e6)`)."""
    if isinstance(node, gast.Constant):
        return node.value if type(node.value) is int else None
    if (
        isinstance(node, gast.Call)
        and isinstance(node.func, gast.Name)
        and node.func.id == "int"
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], gast.Constant)
        and type(node.args[0].value) in (int, float)
        and abs(node.args[0].value) < 2**63
    ):
        return int(node.args[0].value)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        v = int_constant(node.operand)
        return None if v is None else (-v if isinstance(node.op, gast.USub) else v)
    if isinstance(node, gast.BinOp):
        a, b = int_constant(node.left), int_constant(node.right)
        if a is None or b is None:
            return None
        if isinstance(node.op, gast.Add):
            return a + b
        if isinstance(node.op, gast.Sub):
            return a - b
        if isinstance(node.op, gast.Mult):
            return a * b
        if isinstance(node.op, gast.Pow) and 0 <= b <= 256 and abs(a) <= 2**16:
            return a**b
        if isinstance(node.op, gast.LShift) and 0 <= b <= 256:
            return a << b
    return None


_INT32 = (-(2**31), 2**31 - 1)

Interval = tuple[int, int]


# The magnitude taken for a Python int whose value the code does not show (a size, a count, a
# static argument: `p = len(x)`, `p = n`), as for a static `while` bound (loops.py): at most 2**20
ASSUMED_INT: Interval = (-(2**20), 2**20)


def int_ranges(
    fn,
    names: set[str],
    constants: dict[str, Interval] | None = None,
    assume: Callable[[Any], Interval | None] | None = None,
) -> dict[str, Interval]:
    """For each of ``names`` that ``fn`` only ever gives ints written with literals (`k = 3`,
    `k = 60 * 60 * 1000`, `k *= 10_000` or `k //= 2` outside a loop, a name of ``constants``:
    `k = BIG`), the least and greatest of them: what Python's int may hold there. A name bound
    otherwise (from a value, in a loop) is left out; with ``assume``, an assignment from a value
    that reads neither the name itself nor anything of a loop's growth takes the range
    ``assume(statement)`` gives it (None: left out), and `k op= value` outside a loop applies it
    (`k = len(x)`, `k += n` with `ASSUMED_INT`)."""
    out: dict[str, Interval] = {}
    unknown: set[str] = set()
    augmented: list = []

    def widen(name: str, r: Interval) -> None:
        lo, hi = out.get(name, r)
        out[name] = (min(lo, r[0]), max(hi, r[1]))

    # (a stack, not a recursive closure: that is a reference cycle, which keeps the tree alive
    # until the garbage collector runs)
    todo: list[tuple[list, bool]] = [(fn.body, False)]
    while todo:
        stmts, in_loop = todo.pop()
        for st in stmts:
            if isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
                unknown.update({st.name} & names)
                continue
            pairs = named_pairs(st) if isinstance(st, gast.Assign) else None
            if pairs is not None:
                for name, value in pairs:
                    if name not in names:
                        continue
                    values = literal_ints(value)
                    if values is None and isinstance(value, gast.Name) and constants:
                        held = constants.get(value.id)
                        values = list(held) if held is not None else None
                    step = self_step(name, value)
                    if values is not None:
                        widen(name, (min(values), max(values)))
                    elif step is not None and not in_loop:
                        op, c = step
                        augmented.append((name, op, (c, c)))  # (`k = k - 1`: as `k -= 1`)
                    else:
                        assumed = None
                        if assume is not None and name not in expr_activity(value).reads:
                            assumed = assume(st)
                        if assumed is None:
                            unknown.add(name)
                        else:
                            widen(name, assumed)
            elif isinstance(st, gast.AugAssign) and isinstance(st.target, gast.Name):
                name = st.target.id
                if name in names:
                    step = self_step(name, assigned_value(st))
                    by = None if step is None else (step[1], step[1])
                    if by is None and assume is not None and not in_loop:
                        if name not in expr_activity(st.value).reads:
                            by = assume(st)
                    if by is None or in_loop:
                        unknown.add(name)
                    else:
                        augmented.append((name, step[0] if step else st.op, by))
            else:  # (any other binding: a `for` target, `:=`, `with ... as`, an import)
                for root in _own_expressions(st):
                    unknown.update(_stored_names(root) & names)
                for item in getattr(st, "items", None) or []:
                    if getattr(item, "optional_vars", None) is not None:
                        unknown.update(_stored_names(item.optional_vars) & names)
                if isinstance(st, (gast.Import, gast.ImportFrom)):
                    unknown.update({(a.asname or a.name).split(".")[0] for a in st.names} & names)
            inner = in_loop or isinstance(st, (gast.For, gast.AsyncFor, gast.While))
            for field in ("body", "orelse", "finalbody"):
                todo.append((getattr(st, field, None) or [], inner))
            for h in getattr(st, "handlers", None) or []:
                if isinstance(h.name, gast.AST):
                    unknown.update(_stored_names(h.name) & names)
                todo.append((h.body, inner))
            for case in getattr(st, "cases", None) or []:
                todo.append((case.body, inner))
    for name, op, by in augmented:  # (each once: none of them is in a loop)
        if name in out and name not in unknown:
            now = _apply(op, out[name], by)
            if now is None:
                unknown.add(name)
            else:
                lo, hi = out[name]
                out[name] = (min(lo, now[0]), max(hi, now[1]))
    return {n: r for n, r in out.items() if n not in unknown}


def named_pairs(st) -> list | None:
    """(name, value) for each name an assignment binds to a value of its own: `k = v`,
    `k = j = v`, `k, m = a, b`; None where a target is anything else (`x[i]`, `a, b = t`)."""
    out = []
    for t in st.targets:
        if isinstance(t, gast.Name):
            out.append((t.id, st.value))
        elif (
            isinstance(t, (gast.Tuple, gast.List))
            and isinstance(st.value, (gast.Tuple, gast.List))
            and len(t.elts) == len(st.value.elts)
            and all(isinstance(e, gast.Name) for e in t.elts)
            and not any(isinstance(v, gast.Starred) for v in st.value.elts)
        ):
            out += [(e.id, v) for e, v in zip(t.elts, st.value.elts, strict=True)]
        else:
            return None
    return out


def _interval(ranges: dict[str, Interval], node, leaf=None) -> Interval | None:
    """The least and greatest Python value of an int expression of literals and of names of
    ``ranges`` (None where it is not one). ``leaf(node)``: the range of any other operand (a
    size, a static argument: `ASSUMED_INT`), or None."""
    if isinstance(node, gast.Name) and node.id in ranges:
        return ranges[node.id]
    v = int_constant(node)
    if v is not None:
        return v, v
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        a = _interval(ranges, node.operand, leaf)
        return None if a is None else (-a[1], -a[0])
    if isinstance(node, gast.BinOp):
        a, b = _interval(ranges, node.left, leaf), _interval(ranges, node.right, leaf)
        if a is not None and b is not None:
            return _apply(node.op, a, b)
        return None
    return leaf(node) if leaf is not None else None


def self_step(name: str, value) -> tuple[Any, int] | None:
    """(operator, int) where ``value`` is ``name`` combined with a literal int (`k - 1`,
    `10 * k`; `k + k` as `k * 2`): the step an assignment `name = value` takes."""
    if not isinstance(value, gast.BinOp):
        return None
    left, right = value.left, value.right
    is_name = [isinstance(x, gast.Name) and x.id == name for x in (left, right)]
    if all(is_name) and isinstance(value.op, gast.Add):
        return gast.Mult(), 2
    if is_name[0]:
        c = int_constant(right)
        return (value.op, c) if c is not None else None
    if is_name[1] and isinstance(value.op, (gast.Add, gast.Mult)):
        c = int_constant(left)
        return (value.op, c) if c is not None else None
    return None


def assigned_value(st):
    """The value an assignment gives its target: `p += q` gives `p + q` (a node made for the
    question, never put in the tree); an `Assign`'s or `AnnAssign`'s own value."""
    if isinstance(st, gast.AugAssign) and isinstance(st.target, gast.Name):
        return gast.BinOp(gast.Name(st.target.id, gast.Load(), None, None), st.op, st.value)
    return getattr(st, "value", None)


def literal_ints(node) -> list[int] | None:
    """The ints an expression of literals may give: one, or either of a ternary's
    (`3_600_000 if c else 60_000`)."""
    if isinstance(node, gast.IfExp):
        a, b = literal_ints(node.body), literal_ints(node.orelse)
        return None if a is None or b is None else a + b
    v = int_constant(node)
    return None if v is None else [v]


def _apply(op, a: Interval, b: Interval) -> Interval | None:
    """The least and greatest of ``a op b`` for Python ints in the two ranges (None where the
    operator is not one of + - * << ** // >> % or the range would be too wide to compute, or
    the divisor may be 0)."""
    if isinstance(op, gast.Add):
        return a[0] + b[0], a[1] + b[1]
    if isinstance(op, gast.Sub):
        return a[0] - b[1], a[1] - b[0]
    if isinstance(op, gast.Mult):
        c = [x * y for x in a for y in b]
        return min(c), max(c)
    if isinstance(op, gast.LShift) and b[0] >= 0 and b[1] <= 1024:
        c = [x << y for x in a for y in b]
        return min(c), max(c)
    if isinstance(op, gast.Pow) and b[0] >= 0 and b[1] <= 256 and max(map(abs, a)) <= 2**16:
        c = [x**y for x in a for y in (b[0], b[1], min(b[1], b[0] + 1))]
        return min(c), max(c)
    if isinstance(op, (gast.FloorDiv, gast.RShift)) and (b[0] > 0 or b[1] < 0):
        if isinstance(op, gast.RShift) and b[0] < 0:
            return None  # (a negative shift raises)
        # (monotone in each operand where the divisor keeps its sign: the corners bound it)
        c = [x // y if isinstance(op, gast.FloorDiv) else x >> y for x in a for y in b]
        return min(c), max(c)
    if isinstance(op, gast.Mod) and b[0] > 0:
        if 0 <= a[0] and a[1] < b[0]:
            return a  # (smaller than every divisor: itself)
        return 0, b[1] - 1
    return None


def int32_overflow(
    stmts: list,
    ranges: dict[str, Interval],
    constants: dict[str, Interval] | None = None,
    leaf: Callable[[Any, Any], Interval | None] | None = None,
) -> tuple[str, str, Interval] | None:
    """(name, expression, range) for an expression in ``stmts`` (in order: a name assigned
    from one of ``ranges``' names there takes its range) computed from a name of ``ranges``
    (Python ints of those ranges that a conversion makes int32 values) whose Python value may
    leave int32's range: Python's ints never overflow; jax's int32 wraps. ``constants``: other
    names holding literal ints (`US_PER_MS = 1000`), which stay Python's, read with their
    values; ``leaf(node, statement)``: the range of another operand there (`n * m` of a static
    `m`, `n * x.shape[0]`), or None."""
    given, ranges = ranges, dict(ranges)
    for name, r in sorted(given.items()):
        if not (_INT32[0] <= r[0] and r[1] <= _INT32[1]):
            return name, name, r
    ranges = {**(constants or {}), **ranges}
    traced = set(given)

    for st in stmts:
        at = functools.partial(leaf, st=st) if leaf is not None else None
        for root in _own_expressions(st):
            for n in walk_nodes(root):
                if not isinstance(n, (gast.BinOp, gast.UnaryOp)):
                    continue
                r = _interval(ranges, n, at)
                if r is None or (_INT32[0] <= r[0] and r[1] <= _INT32[1]):
                    continue
                reads = {x.id for x in walk_nodes(n) if isinstance(x, gast.Name)} & traced
                if reads:
                    return sorted(reads)[0], gast.unparse(n).strip(), r
        if isinstance(st, gast.Assign) and len(st.targets) == 1:
            t = st.targets[0]
            if isinstance(t, gast.Name) and t.id not in given:  # (those: every value's range)
                r = _interval(ranges, st.value, at)
                if r is not None and expr_activity(st.value).reads & traced:
                    ranges[t.id] = r
                    traced.add(t.id)
                elif t.id not in (constants or {}):
                    ranges.pop(t.id, None)
                    traced.discard(t.id)
        elif isinstance(st, gast.AugAssign) and isinstance(st.target, gast.Name):
            name = st.target.id
            if name in traced and name not in given:
                r = _interval(ranges, st.value, at)
                now = _apply(st.op, ranges[name], r) if r is not None else None
                if now is not None and not (_INT32[0] <= now[0] and now[1] <= _INT32[1]):
                    return name, gast.unparse(st).strip(), now
                ranges.pop(name, None)
                traced.discard(name)
    return None


def overflow_around(st, source, source_range: Interval, leaf) -> tuple[str, Interval] | None:
    """(expression, range) of arithmetic in ``st``'s own expressions around the expression
    ``source`` (a ternary of int literals the conversion makes an int32 value), of the range
    ``source_range``, that may leave int32 (`(100000 if c else 3) * 100000`); ``leaf(node, st)``
    gives other operands' ranges, as for :func:`int32_overflow`."""

    def operand(node):
        return source_range if node is source else leaf(node, st)

    for root in _own_expressions(st):
        for n in walk_nodes(root):
            if not isinstance(n, (gast.BinOp, gast.UnaryOp)):
                continue
            if not any(x is source for x in walk_nodes(n)):
                continue
            r = _interval({}, n, operand)
            if r is not None and not (_INT32[0] <= r[0] and r[1] <= _INT32[1]):
                return gast.unparse(n).strip(), r
    return None


def _own_expressions(st) -> list:
    """The expressions of a statement itself (a compound statement's head, not its body)."""
    out = []
    for _field, value in gast.iter_fields(st):
        if isinstance(value, gast.expr):
            out.append(value)
        elif isinstance(value, list):
            out += [v for v in value if isinstance(v, gast.expr)]
    return out


def returned_as_is(
    stmts: list,
    names: set[str],
    fixes_dtype: Callable[[Any, Any], bool] | None = None,
    sources: frozenset[int] = frozenset(),
    kills: frozenset[int] | None = None,
) -> str | None:
    """One of ``names`` that a `return` in ``stmts`` gives back as it is, or in a tuple, list
    or dict, or through arithmetic with literals only (`return k`, `return x, k + 1`), also
    through a name assigned so: where its Python type differs by path (`k = 0` / `k = 1.5`),
    eager code returns that path's type, a converted one a single dtype. Arithmetic with
    another value (`x * k`) is followed too where ``fixes_dtype(value, statement)`` is False:
    the value's dtype does not decide the result's (`x * k` of an int array `x` is int32 where
    `k` is an int, float32 where it is a float), and so is a call of it (`jnp.abs(k)`).
    ``sources``: the ids of expressions that count as one of ``names`` (a ternary).
    ``kills``: where given, the ids of the statements of ``stmts`` that run whenever the point
    they follow does: only an assignment among them gives a name a new value for the rest (one
    elsewhere, in a branch, may not run, or runs on another path: `r = 1` in the `else` of an
    `if` around the point); where None, every assignment does (``stmts`` one path)."""
    names = set(names)
    for st in stmts:
        if isinstance(st, gast.Assign):
            for name, value in named_pairs(st) or []:
                if _as_is(value, names, st, fixes_dtype, sources):
                    names.add(name)
                elif kills is None or id(st) in kills:
                    names.discard(name)
        elif isinstance(st, gast.AugAssign) and isinstance(st.target, gast.Name):
            # (`s += r`: `s + r`, whose type follows `r` where `s`'s does not decide it)
            if _as_is(assigned_value(st), names, st, fixes_dtype, sources):
                names.add(st.target.id)
        elif isinstance(st, gast.Return) and st.value is not None:
            found = _as_is(st.value, names, st, fixes_dtype, sources)
            if found:
                return found
    return None


def _as_is(node, names: set[str], st, fixes_dtype, sources: frozenset[int]) -> str | None:
    if id(node) in sources:
        return "the ternary"
    if isinstance(node, gast.Name):
        return node.id if node.id in names else None
    if isinstance(node, (gast.Tuple, gast.List)):
        found = (_as_is(e, names, st, fixes_dtype, sources) for e in node.elts)
        return next((f for f in found if f), None)
    if isinstance(node, gast.Dict):
        found = (_as_is(v, names, st, fixes_dtype, sources) for v in node.values)
        return next((f for f in found if f), None)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        return _as_is(node.operand, names, st, fixes_dtype, sources)
    if isinstance(node, gast.BinOp):
        left = _as_is(node.left, names, st, fixes_dtype, sources)
        right = _as_is(node.right, names, st, fixes_dtype, sources)
        other = node.right if left else node.left
        if (left or right) and (
            isinstance(other, gast.Constant)
            or (left and right)
            or (fixes_dtype is not None and not fixes_dtype(other, st))
        ):
            return left or right
    if fixes_dtype is not None and isinstance(node, gast.Subscript):
        return _as_is(node.value, names, st, fixes_dtype, sources)  # (`(x * k)[0]`)
    if fixes_dtype is not None and isinstance(node, gast.Call) and not fixes_dtype(node, st):
        args = [*node.args, *(k.value for k in node.keywords)]
        if isinstance(node.func, gast.Attribute):
            args.append(node.func.value)  # (`(x * k).max()`: a method of the value)
        found = (_as_is(a, names, st, fixes_dtype, sources) for a in args)
        return next((f for f in found if f), None)
    return None


_TRUTH_TESTS = (gast.If, gast.While, gast.Assert, gast.IfExp)
_CONVERTED_TERNARIES = frozenset({"lax.cond", "jax.lax.cond"})


def read_telling_weak_from_strong(
    stmts: list,
    name: str,
    value_of: Callable[[Any, Any], Value],
    kinds: tuple[str | None, ...],
    covered: Callable[[Any], bool] | None = None,
) -> tuple[Any, int] | None:
    """(expression, line) of the first read of ``name`` in ``stmts`` (nested functions'
    statements too) whose result differs between a Python number and a jax array of the same
    value, or None. Python's numbers are weakly typed (`y * 2.0` keeps a float16 `y` float16)
    and arrays are not (`y * k` of a float32 `k` is float32), so where one path of a traced `if`
    leaves ``name`` a Python number and the other an array, one dtype after a `lax.cond` is
    wrong on one path. ``kinds``: the dtype kinds of the two (None: unknown). The same either
    way: an index (`x[k]`), a truth test (`if k:`), a comparison (a bool; a Python number
    rounds to a narrower array's dtype, a rounding's difference), a value stored into an
    array's item (`x[i] = k`, `x[i] += k`: the array's dtype), arithmetic with a traced
    array of a kind above both (`k * z` of an int `k` and a float `z`: `z`'s dtype), and giving
    it back (`return k`, `return x, k`: a jitted function gives back arrays, a Python number as
    one of its dtype). Arithmetic with a Python value (`k * 0.5`) gives a value that is again
    one or the other, followed as ``name`` is, also through a name assigned it (`t = k * 0.5`).
    Anything else (arithmetic with an array of unknown width, a call) tells them apart, but
    arithmetic of ``name`` itself with an operand that ``covered`` (of the operand) accepts:
    one whose dtype is made by the arrays that made the array (`x * k` of `k = x[1]`, see
    :func:`autojit.analysis.dtype_source.covers`). Only the user's own reads count: the
    conversion's glue (`lax.cond(p, f, g, k)`) passes the value to functions whose reads are
    the user's. (A Python int given back against a float array is given the float type, as
    arithmetic would give it: AJ101.)"""
    top = _top_kind(kinds)
    every = walk_statements(stmts, into_functions=True)
    tracked, todo_names = {name}, [name]
    while todo_names:
        current = todo_names.pop()
        for st in every:
            if (
                isinstance(st, gast.AugAssign)
                and isinstance(st.target, gast.Name)
                and st.target.id == current
            ):
                # (`k += a`: `k + a`, whose dtype `a`'s decides only where `a` is above both)
                if not (
                    _python_value(st.value, st, value_of, tracked)
                    or _weak_strong_operand(st.value, st, value_of, top, tracked)
                    or (current == name and covered is not None and covered(st.value))
                ):
                    return st, getattr(st, "lineno", 0)
            todo = [(root, st) for root in _own_expressions(st)]
            while todo:
                node, parent = todo.pop()
                if type(node) is gast.Name:
                    if (
                        node.id == current
                        and isinstance(node.ctx, gast.Load)
                        and node.__dict__.get("_aj_orig", False)
                    ):
                        bound = _weak_strong_read(
                            node, parent, st, value_of, top, tracked,
                            covered if current == name else None,
                        )  # fmt: skip
                        if bound is False:
                            shown = parent if isinstance(parent, gast.expr) else node
                            return shown, getattr(node, "lineno", None) or getattr(st, "lineno", 0)
                        if isinstance(bound, str) and bound not in tracked:
                            tracked.add(bound)
                            todo_names.append(bound)
                    continue
                todo.extend((child, node) for child in child_nodes(node))
    return None


def _top_kind(kinds: tuple[str | None, ...]) -> int:
    """The rank of the highest of ``kinds`` (an unknown one taken for floats, the highest)."""
    return max((KIND_RANK.get(k or "float", 2) for k in kinds), default=2)


def weak_or_strong_use(
    node, st, value_of: Callable[[Any, Any], Value], kinds: tuple[str | None, ...]
) -> bool | str:
    """For an expression ``node`` of statement ``st`` that is a Python number on one path and
    an array on the other (a ternary): True where its use gives the same dtype either way, the
    name an assignment binds it to (whose reads decide: :func:`read_telling_weak_from_strong`),
    False where its use tells them apart (`y * (2.0 if c else x[1])`)."""
    top = _top_kind(kinds)
    return _weak_strong_read(node, _parent_in(st, node), st, value_of, top, set())


def _weak_strong_read(
    read, parent, st, value_of, top: int, tracked: set[str], covered=None
) -> bool | str:
    """Whether the read ``read`` (of a value that is a Python number on one path, an array on
    the other) gives the same either way; or the name an assignment binds to a value that is
    again one or the other (`t = k * 0.5`: followed too)."""
    node = read
    # up through arithmetic with Python values: the result is again one or the other
    while True:
        if isinstance(parent, gast.UnaryOp) and isinstance(parent.op, (gast.USub, gast.UAdd)):
            node, parent = parent, _parent_in(st, parent)
            continue
        if isinstance(parent, gast.BinOp):
            other = parent.right if parent.left is node else parent.left
            if _python_value(other, st, value_of, tracked):
                node, parent = parent, _parent_in(st, parent)
                continue
            if node is read and covered is not None and covered(other):
                return True  # (`x * k` of `k = x[1]`: `x`'s dtype decides both)
            if _stored_into_item(parent, st):
                return True  # (`x[1] - k` stored into `x`: `x`'s dtype either way)
            return _weak_strong_operand(other, st, value_of, top, tracked)
        if isinstance(parent, gast.IfExp) and parent.test is not node:
            node, parent = parent, _parent_in(st, parent)  # (an arm: the ternary's value)
            continue
        if isinstance(parent, gast.Lambda) and not parent.args.args:
            # (an arm of a ternary converted before: `lax.cond(p, lambda: A, lambda: B)`)
            call = _parent_in(st, parent)
            if isinstance(call, gast.Call) and dotted_name(call.func) in _CONVERTED_TERNARIES:
                node, parent = call, _parent_in(st, call)
                continue
        break
    if parent is None:
        return False
    if isinstance(parent, gast.Subscript):
        return parent.slice is node
    if isinstance(parent, (gast.Slice, gast.Compare)):
        return True
    if isinstance(parent, _TRUTH_TESTS) and parent.test is node:
        return True
    if isinstance(parent, gast.UnaryOp) and isinstance(parent.op, gast.Not):
        return True
    if isinstance(parent, gast.Return):
        return True
    if isinstance(parent, (gast.Tuple, gast.List)) and isinstance(st, gast.Return):
        return st.value is parent
    if (
        isinstance(parent, gast.Assign)
        and parent.value is node
        and len(parent.targets) == 1
        and isinstance(parent.targets[0], gast.Name)
    ):
        return parent.targets[0].id
    if _stored_into_item(node, st):
        return True  # (an item stored into an array takes the array's dtype either way)
    if isinstance(parent, gast.AugAssign) and parent.value is node:
        if node is read and covered is not None and covered(parent.target):
            return True
        return _weak_strong_operand(parent.target, st, value_of, top, tracked)
    return False


_ITEM_UPDATES = frozenset({"set", "add", "multiply", "divide", "power", "min", "max"})


def _stored_into_item(node, st) -> bool:
    """Whether the value of ``node`` (through arithmetic, a selection or an elementwise function
    around it) is stored into an array's item: `x[i] = v`, `x[i] += v`, `x.at[i].set(v)` (the
    converted form)."""
    parent = _parent_in(st, node)
    while (
        isinstance(parent, (gast.BinOp, gast.UnaryOp))
        or _selected_by(parent, node)
        or _elementwise_of(parent, node)
    ):
        node, parent = parent, _parent_in(st, parent)
    if isinstance(parent, (gast.Assign, gast.AugAssign)) and parent.value is node:
        targets = parent.targets if isinstance(parent, gast.Assign) else [parent.target]
        return all(isinstance(t, gast.Subscript) for t in targets)
    if isinstance(parent, gast.Call) and node in parent.args:
        f = parent.func
        return (
            isinstance(f, gast.Attribute)
            and f.attr in _ITEM_UPDATES
            and isinstance(f.value, gast.Subscript)
            and isinstance(f.value.value, gast.Attribute)
            and f.value.value.attr == "at"
        )
    return False


# elementwise functions whose result, stored into an item, is the array's dtype either way
# (as arithmetic's is): `x[i] += jnp.maximum(k, t)`
_ELEMENTWISE = frozenset({"maximum", "minimum", "abs", "absolute", "negative", "fmax", "fmin"})


def _elementwise_of(parent, node) -> bool:
    """Whether ``parent`` is `jnp.maximum(...)` (or another of ``_ELEMENTWISE``) with ``node``
    among its positional arguments."""
    return (
        isinstance(parent, gast.Call)
        and not parent.keywords
        and isinstance(parent.func, gast.Attribute)
        and parent.func.attr in _ELEMENTWISE
        and isinstance(parent.func.value, gast.Name)
        and any(a is node for a in parent.args)
    )


def _selected_by(parent, node) -> bool:
    """Whether ``parent`` gives the value of ``node`` as its own on some path: an arm of a
    ternary or of `where(c, a, b)`."""
    if isinstance(parent, gast.IfExp):
        return parent.test is not node
    if isinstance(parent, gast.Call) and len(parent.args) == 3 and not parent.keywords:
        f = parent.func
        return (
            isinstance(f, gast.Attribute)
            and f.attr == "where"
            and any(a is node for a in parent.args[1:])
        )
    return False


def _weak_strong_operand(other, st, value_of, top: int, tracked: set[str]) -> bool:
    """Whether arithmetic with ``other`` gives one dtype for a Python number and for an array
    of a kind at most ``top``: ``other`` is a traced array of a kind above it."""
    if isinstance(other, gast.Name) and other.id in tracked:
        return False
    v = value_of(other, st)
    return v.traced and KIND_RANK.get(v.dtype or "", -1) > top


def _python_value(node, st, value_of, tracked: set[str]) -> bool:
    """A Python value (a literal, a static name): arithmetic with it keeps a Python number one
    and an array one."""
    if isinstance(node, gast.Name) and node.id in tracked:
        return False
    return isinstance(node, gast.Constant) or value_of(node, st).static


def _parent_in(st, target):
    """The node of statement ``st`` holding ``target`` (None where it is ``st``'s own)."""
    for root in _own_expressions(st):
        if root is target:
            return st
        for n in walk_nodes(root):
            if any(c is target for c in child_nodes(n)):
                return n
    return None


def _python_int(node, st, dtype_of) -> bool:
    """An int literal, or an expression whose dtype the analysis tells is int."""
    if isinstance(node, gast.Constant):
        return type(node.value) is int
    return dtype_of is not None and dtype_of(node, st) == "int"


# builtins (and `math`) that need a Python number: a traced one raises under jit
_NUMBER_CALLS = frozenset({"range", "int", "float", "bool", "complex", "sorted", "max", "min"})
# attributes of Python's ints and floats that a jax array does not have
_NUMBER_ATTRIBUTES = frozenset(
    {"bit_length", "bit_count", "to_bytes", "is_integer", "as_integer_ratio", "numerator",
     "denominator", "hex", "fromhex"}
)  # fmt: skip
# literal Python containers: indexed by, repeated by or testing membership of a traced value
_PYTHON_CONTAINERS = (
    gast.List, gast.Tuple, gast.Dict, gast.Set, gast.ListComp, gast.DictComp, gast.SetComp
)  # fmt: skip


# calls that take traced values as well as Python ones and give a Python value, their types'
# (what the conversion's own promotions compute: `jnp.asarray(r, jnp.result_type(r, 0.5))`)
_TYPE_CALLS = frozenset(
    {"jax.numpy.result_type", "jax.dtypes.result_type", "jax.numpy.shape", "jax.numpy.ndim"}
)


def _of_types(node, facts: ValueFacts | None) -> bool:
    """Whether ``node`` is a call of :data:`_TYPE_CALLS`."""
    if facts is None or not isinstance(node, gast.Call):
        return False
    name = dotted_name(node.func)
    return name is not None and (facts.qualified(name) or "") in _TYPE_CALLS


def _untraceable_use(node, child, st, facts: ValueFacts | None) -> str | None:
    """What makes ``node`` (an ancestor of a use, ``child`` the one of its children on the way)
    need a Python number, which jax cannot trace: None where a traced value serves."""
    if isinstance(node, gast.Call) and child is not node.func:
        name = dotted_name(node.func)
        if name in _NUMBER_CALLS or (name or "").startswith("math."):
            return f"`{name}()`"
        if isinstance(node.func, gast.Attribute) and node.func.attr in ("count", "index"):
            return f"`.{node.func.attr}()`"
        if facts is not None and name is not None:
            qual = facts.qualified(name) or ""
            if qual == "jax.lax.fori_loop" and (
                child in node.args[:2]
                or any(child is kw.value and kw.arg in ("lower", "upper") for kw in node.keywords)
            ):
                # (as `range()`'s, which a conversion makes it: of Python ints the loop is a
                # scan with a trip count known when tracing, which reverse mode differentiates)
                return f"a bound of `{name}()`"
            spec = SHAPE_ARGUMENTS.get(qual)
            if spec is not None:
                positions, keywords = spec
                at = next((k for k, a in enumerate(node.args) if a is child), None)
                if (at is not None and (positions == "*" or at in positions)) or any(
                    child in (kw, kw.value) and kw.arg in keywords for kw in node.keywords
                ):
                    return f"a shape or size argument of `{name}()`"
    if isinstance(node, gast.Attribute) and node.attr in _NUMBER_ATTRIBUTES:
        return f"`.{node.attr}`"
    if (
        isinstance(node, gast.Attribute)
        and node.attr in ("count", "index")
        and _python_container(node.value, st, facts)
    ):
        return f"`.{node.attr}()` of a Python list"  # (`[k, j].count(True)` compares with `==`)
    if isinstance(node, gast.Slice):
        return "a slice bound"
    if isinstance(node, gast.Compare) and any(
        isinstance(op, (gast.In, gast.NotIn)) for op in node.ops
    ):
        return "an `in` test"
    if isinstance(node, gast.Subscript) and child is node.slice:
        if _python_container(node.value, st, facts):
            return "an index into a Python list, tuple or dict"
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
        other = node.left if child is node.right else node.right
        if _python_container(other, st, facts) or (
            isinstance(other, gast.Constant) and isinstance(other.value, (str, bytes))
        ):
            return "a list or string repeated"
    return None


def _use_in_helper(call, arg, stmt, facts: ValueFacts, traced_errors: bool) -> str | None:
    """Where ``arg`` is an argument of ``call``, a call of a function of the user's: the
    Python-only use of its parameter there (its own uses, with the arguments' kinds; the
    helper's helpers are not followed)."""
    if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Name)):
        return None
    assert facts.helper is not None
    at = next((k for k, a in enumerate(call.args) if a is arg), None)
    keyword = next((kw.arg for kw in call.keywords if arg in (kw, kw.value)), None)
    if at is None and keyword is None:
        return None
    if isinstance(arg, gast.keyword):
        arg = arg.value
    if not _python_valued(facts, arg, stmt):
        return None  # (`halves(x * s)`: an array; its shape is a Python value)
    found = facts.helper(call.func.id)
    if found is None:
        return None
    helper = found[0]
    params = [*helper.args.posonlyargs, *helper.args.args]
    if at is not None:
        param = params[at].id if at < len(params) else None
    else:
        names = [p.id for p in (*params, *helper.args.kwonlyargs)]
        param = keyword if keyword in names else None
    if param is None:
        return None
    body = list(walk_statements(helper.body))
    use = python_value_use(body, {param}, _helper_facts(call, helper, body, stmt, facts),
                           traced_errors=traced_errors)  # fmt: skip
    if use is None:
        return None
    return f"{use[1]} in `{call.func.id}()` (its parameter `{param}`)"


def _helper_facts(call, helper, body: list, stmt, facts: ValueFacts) -> ValueFacts:
    """What a helper's own statements may be asked of the values it is given by ``call``: a
    parameter it never rebinds holds the argument's value (`count(a, b)` of two bools adds
    bools); a literal is its type; anything else unknown. Its own helpers are not followed."""
    params = [*helper.args.posonlyargs, *helper.args.args]
    given: dict[str, Value] = {}
    for p, a in zip(params, call.args, strict=False):
        if not isinstance(a, gast.Starred):
            given[p.id] = facts.value(a, stmt)
    names = {p.id for p in (*params, *helper.args.kwonlyargs)}
    for kw in call.keywords:
        if kw.arg in names:
            given[kw.arg] = facts.value(kw.value, stmt)
    rebound = set().union(*(expr_activity(t).writes for st in body for t in _targets(st)))
    given = {n: v for n, v in given.items() if n not in rebound}

    def value(expr, _st) -> Value:
        if isinstance(expr, gast.Name) and expr.id in given:
            return given[expr.id]
        if isinstance(expr, gast.Constant) and type(expr.value) in _LITERAL_DTYPES:
            return Value(Kind.STATIC, _LITERAL_DTYPES[type(expr.value)], True)
        return Value(Kind.UNKNOWN)

    return ValueFacts(value, facts.qualified)


_LITERAL_DTYPES = {bool: "bool", int: "int", float: "float"}


def _targets(st) -> list:
    """The expressions a statement binds (assignment targets, a `for` target)."""
    if isinstance(st, gast.Assign):
        return list(st.targets)
    target = getattr(st, "target", None)
    return [target] if isinstance(target, gast.expr) else []


def _use_in_closure(roots: list, names: set[str], facts: ValueFacts, traced_errors: bool):
    """(name, what) for a closure of the function called in ``roots`` that reads one of
    ``names`` Python's way (its own uses)."""
    assert facts.helper is not None
    for root in roots:
        for n in walk_nodes(root):
            if not (
                isinstance(n, gast.Call)
                and isinstance(n.func, gast.Name)
                and n.func.id in facts.closures
            ):
                continue
            found = facts.helper(n.func.id)
            if found is None or not found[1]:
                continue
            read = function_free_reads(found[0]) & names
            use = (
                python_value_use(
                    list(walk_statements(found[0].body)), read, None, traced_errors=traced_errors
                )
                if read
                else None
            )
            if use is not None:
                return use[0], f"{use[1]} in the closure `{n.func.id}()`"
    return None


def _python_container(node, st, facts: ValueFacts | None) -> bool:
    """Whether ``node`` is a Python list, tuple, dict or string (written so, or by the
    analysis), never a jax array."""
    if isinstance(node, _PYTHON_CONTAINERS) or (
        isinstance(node, gast.Constant) and isinstance(node.value, (str, bytes))
    ):
        return True
    if facts is None:
        return False
    v = facts.value(node, st)
    return v.kind in (Kind.LIST, Kind.DICT, Kind.NUMPY) or (v.static and v.scalar is False)


# builtins whose result from a number is Python's own: text, a type, a hash
_TEXT_CALLS = _PYTHON_ONLY_CALLS | {"ascii", "bin", "hex", "oct", "chr"}


def _python_only_sink(node, child, parents: dict) -> str | None:
    """What makes ``node`` (an ancestor of a use, ``child`` the one of its children on the way)
    Python's only: None where it is not."""
    if isinstance(node, gast.Compare) and any(
        isinstance(op, (gast.Is, gast.IsNot)) for op in node.ops
    ):
        operands = [node.left, *node.comparators]
        if not any(isinstance(o, gast.Constant) and o.value is None for o in operands):
            return "an `is` test"  # (`k is None` is False of a number, traced or not)
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


def _assigned_from(stmts: list, names: set[str], facts: ValueFacts | None = None) -> set[str]:
    """``names`` and the names ``stmts`` assign a value read from one of them (`m = k`,
    `m = k + 1`, `(m := k)`), through one another; where ``facts`` tells the value, only a
    Python one (`y = x * scale` is an array: its `.shape` and `len()` are no Python number's)."""
    out = set(names)
    for _ in range(8):
        more: set[str] = set()
        for st in stmts:
            for n in walk_nodes(st) if isinstance(st, gast.expr) else _own_nodes(st):
                if isinstance(n, gast.NamedExpr) and expr_activity(n.value).reads & out:
                    more.add(n.target.id)
                elif isinstance(n, gast.comprehension) and expr_activity(n.iter).reads & out:
                    more |= _stored_names(n.target)
            if isinstance(st, (gast.For, gast.AsyncFor)) and expr_activity(st.iter).reads & out:
                more |= _stored_names(st.target)
            # (a container given the value: `flags.append(k)`, `cfg["k"] = k`)
            if (
                isinstance(st, gast.Expr)
                and isinstance(st.value, gast.Call)
                and isinstance(st.value.func, gast.Attribute)
                and st.value.func.attr in STORING_METHODS
                and isinstance(st.value.func.value, gast.Name)
                and any(
                    expr_activity(a).reads & out
                    and (facts is None or _python_valued(facts, a, st))
                    for a in st.value.args
                )
            ):
                more.add(st.value.func.value.id)
            if (
                isinstance(st, gast.Assign)
                and expr_activity(st.value).reads & out
                and (facts is None or _python_valued(facts, st.value, st))
            ):
                for t in st.targets:
                    if isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name):
                        more.add(t.value.id)
            if isinstance(st, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
                # (`x **= k` computes `x ** k`: with a traced `x`, a jax value already)
                value = assigned_value(st)
                if (
                    value is not None
                    and expr_activity(st.value).reads & out  # (memoised: the cheap test first)
                    and _value_reads(value) & out
                    and (facts is None or _python_valued(facts, value, st))
                    and (facts is None or not _computed_with_traced(facts, value, st, out))
                ):
                    targets = st.targets if isinstance(st, gast.Assign) else [st.target]
                    for t in targets:
                        more |= _stored_names(t)
        if more <= out:
            break
        out |= more
    return out


def _python_valued(facts: ValueFacts, value, st) -> bool:
    """Whether ``value`` may be a number: the analysis does not hold it for an array (of rank
    1 or more) or a container. (A traced scalar may be one a conversion made traced.)"""
    v = facts.value(value, st)
    return v.scalar is not False and v.kind not in (Kind.LIST, Kind.DICT, Kind.NUMPY)


def _computed_with_traced(facts: ValueFacts, value, st, followed: set[str]) -> bool:
    """Whether ``value`` computes with a traced name other than those ``followed`` (`x ** k`,
    `x * k` of a traced `x`): it is a jax value in the function as written too, and what a
    conversion makes of ``followed`` changes nothing of its nature."""
    return any(
        facts.value(gast.Name(n, gast.Load(), None, None), st).traced
        for n in _value_reads(value) - followed
    )


def _value_reads(node) -> set[str]:
    """The names whose value ``node`` computes with: not those only in an index (`x[i]`,
    `y.at[i].set(v)` give an element of an array, not the index), nor only under a static
    attribute (`y.shape`)."""
    out: set[str] = set()
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, gast.Name):
            if isinstance(n.ctx, gast.Load):
                out.add(n.id)
            continue
        if isinstance(n, gast.Subscript):
            todo.append(n.value)
            continue
        if isinstance(n, gast.Attribute) and n.attr in STATIC_ATTRIBUTES:
            continue
        todo.extend(child_nodes(n))
    return out


STORING_METHODS = frozenset({"append", "extend", "insert", "add", "update", "setdefault"})


def _stored_names(target) -> set[str]:
    """The names an assignment target binds (`a`, `a, (b, c)`; not `x[i]`'s `x`)."""
    if type(target) is gast.Name:  # (the commonest: no walk)
        return {target.id} if isinstance(target.ctx, gast.Store) else set()
    return {
        x.id for x in walk_bfs(target) if isinstance(x, gast.Name) and isinstance(x.ctx, gast.Store)
    }


def _own_nodes(st):
    """The nodes of a statement's own expressions (not of its body)."""
    for value in _own_expressions(st):
        yield from walk_bfs(value)


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
        for n in walk_nodes(p):
            if not isinstance(n, gast.Call):
                continue
            if changer is not None and isinstance(n.func, gast.Name) and n.func.id == changer:
                return n
            if stateful_call(scope, an, n, stmt) or container_change(an, n, stmt):
                return n
    return None


def grows_geometrically(loop, name: str) -> bool:
    """Whether the loop makes ``name`` grow geometrically: a chain of its assignments leads from
    ``name`` back to it through a product, power or shift (`fact = fact * k`, `p *= 2`,
    `c = 2 * c + 1`, `c = (c << 1) | 1`, `p = p * k if c else p`, `(p := p * k)`, `t = p * k`
    then `p = t`), or one of the names on such a cycle is given a sum of two of them (`c = c +
    c`, `c += c`, `a, b = b, a + b`, `t = a + b; a = b; b = t`, `q = p; p = p + q`): each
    step adds the cycle's values to one another, as Fibonacci's does."""
    edges: dict[str, list[tuple[str, bool]]] = {}  # source -> (target, through a product)
    sums: list[tuple[str, Any]] = []  # (target, value) of each assignment

    def assigned(target: str, value) -> None:
        reads = expr_activity(value).reads
        coefficients = _linear_coefficients(value, reads)
        if coefficients is not None:  # (`2 * c + 1` grows `c`; `lo + (hi - lo) // 2` does not)
            growing = {n for n, c in coefficients.items() if abs(c) > 1}
        else:
            growing = _growing_reads(value)
        for r in reads:
            edges.setdefault(r, []).append((target, r in growing))
        sums.append((target, value))

    for st in walk_statements(loop.body):
        for root in _own_expressions(st):
            for n in walk_nodes(root):
                if isinstance(n, gast.NamedExpr) and isinstance(n.target, gast.Name):
                    assigned(n.target.id, n.value)
        if isinstance(st, gast.AugAssign) and isinstance(st.target, gast.Name):
            # (`p *= k` read as `p = p * k`: `sign *= -1` does not grow, as `sign * -1` does not)
            assigned(st.target.id, assigned_value(st))
        elif isinstance(st, gast.Assign) and len(st.targets) == 1:
            target, value = st.targets[0], st.value
            if isinstance(target, gast.Name):
                assigned(target.id, value)
            elif isinstance(target, (gast.Tuple, gast.List)) and isinstance(
                value, (gast.Tuple, gast.List)
            ):  # (`a, b = b, a + b`, `a, b = [b, a + b]`)
                for t, v in zip(target.elts, value.elts, strict=False):
                    if isinstance(t, gast.Name):
                        assigned(t.id, v)
    # a path from `name` back to itself with a product on it
    seen = {(name, False)}
    todo = [(name, False)]
    while todo:
        at, grew = todo.pop()
        for target, growing in edges.get(at, ()):
            state = (target, grew or growing)
            if state == (name, True):
                return True
            if state not in seen:
                seen.add(state)
                todo.append(state)
    # the names on a cycle through `name`: reached from it, and reaching it
    cycle = {n for n, _ in seen} & _reaching(edges, name)
    return any(t in cycle and _expands(v, cycle) for t, v in sums)


def _expands(value, cycle: set[str]) -> bool:
    """Whether an assignment's value adds up two or more of the cycle's values: where it is
    linear in them, whether their coefficients' magnitudes add up past 1 (`a + b`: 2; the
    bisection step `lo + (hi - lo) // 2`: 1/2 + 1/2, which never grows); else by
    :func:`_additive_uses`."""
    coefficients = _linear_coefficients(value, cycle)
    if coefficients is not None:
        return sum(abs(c) for c in coefficients.values()) > 1
    return _additive_uses(value, cycle) >= 2


def _linear_coefficients(node, names: set[str]) -> dict[str, float] | None:
    """The coefficient of each of ``names`` in ``node`` where it is a sum of them times
    constants, divided by constants (`lo + (hi - lo) // 2`: lo 1/2, hi 1/2), other values
    adding a term of their own (not a coefficient); None where it is not one."""
    t = type(node)
    if t is gast.Name:
        return {node.id: 1.0} if node.id in names else {}
    if t is gast.Constant:
        return {} if type(node.value) in (int, float) else None
    if t is gast.UnaryOp and isinstance(node.op, (gast.USub, gast.UAdd)):
        inner = _linear_coefficients(node.operand, names)
        if inner is None:
            return None
        return {k: -v for k, v in inner.items()} if isinstance(node.op, gast.USub) else inner
    if t is not gast.BinOp:
        return {} if not expr_activity(node).reads & names else None
    left = _linear_coefficients(node.left, names)
    right = _linear_coefficients(node.right, names)
    if left is None or right is None:
        return None
    if isinstance(node.op, (gast.Add, gast.Sub)):
        sign = 1.0 if isinstance(node.op, gast.Add) else -1.0
        out = dict(left)
        for k, v in right.items():
            out[k] = out.get(k, 0.0) + sign * v
        return out
    c = int_constant(node.right) if isinstance(node.right, gast.Constant) else None
    if isinstance(node.op, (gast.FloorDiv, gast.Div)) and c:
        return {k: v / c for k, v in left.items()}
    if isinstance(node.op, gast.Mult):
        k_left = int_constant(node.left) if isinstance(node.left, gast.Constant) else None
        if c is not None and not right:
            return {k: v * c for k, v in left.items()}
        if k_left is not None and not left:
            return {k: v * k_left for k, v in right.items()}
    return None if left or right else {}


def _reaching(edges: dict[str, list[tuple[str, bool]]], name: str) -> set[str]:
    """The names from which a path of ``edges`` leads to ``name`` (``name`` too)."""
    back: dict[str, set[str]] = {}
    for source, targets in edges.items():
        for target, _ in targets:
            back.setdefault(target, set()).add(source)
    out, todo = {name}, [name]
    while todo:
        for source in back.get(todo.pop(), ()):
            if source not in out:
                out.add(source)
                todo.append(source)
    return out


def _additive_uses(node, names: set[str]) -> int:
    """How many of ``names``' values ``node`` adds up (`a + b`: 2, `(a + b) // 2`: 1, `a - b`:
    1, `x[a]`: 0; a product counts once: the product rule sees it)."""
    t = type(node)
    if t is gast.Name:
        return 1 if node.id in names else 0
    if t is gast.BinOp:
        op = type(node.op)
        left, right = _additive_uses(node.left, names), _additive_uses(node.right, names)
        if op in (gast.Add, gast.BitOr, gast.BitXor):
            return left + right
        if op is gast.Sub:
            return max(left, right)  # (two values of one sign: their difference is no sum)
        if op in (gast.FloorDiv, gast.Div, gast.RShift, gast.Mod, gast.BitAnd):
            return min(left, 1) if not _bounds_its_value(node) else 0
        return min(left + right, 1)  # (a product, a power, a shift: the product rule's)
    if t is gast.UnaryOp:
        return _additive_uses(node.operand, names)
    if t is gast.IfExp:
        return max(_additive_uses(node.body, names), _additive_uses(node.orelse, names))
    if t is gast.NamedExpr:
        return _additive_uses(node.value, names)
    if t is gast.Call:
        if _bounds_its_value(node):
            return 0
        f = node.func
        if type(f) is gast.Name and f.id == "sum" and node.args:
            items = node.args[0]
            if type(items) in (gast.List, gast.Tuple, gast.Set):
                return sum(_additive_uses(e, names) for e in items.elts)
        return max((_additive_uses(a, names) for a in node.args), default=0)
    return 0


def _growing_reads(value) -> set[str]:
    """The names that ``value`` reads inside a product, power or shift, or on both sides of a
    sum (`c + c`)."""
    out: set[str] = set()
    todo = [value]
    while todo:
        n = todo.pop()
        if _bounds_its_value(n):
            continue  # (`(h * 31) % 1000`, `min(w * 2, 64)`: the product stays in range)
        todo.extend(child_nodes(n))
        if not isinstance(n, gast.BinOp):
            continue
        if isinstance(n.op, gast.Mult):
            if not any(_unit_constant(o) for o in (n.left, n.right)):  # (`sign * -1`)
                out |= expr_activity(n).reads
        elif isinstance(n.op, (gast.Pow, gast.LShift)):
            out |= expr_activity(n).reads
        elif isinstance(n.op, gast.Add):
            out |= expr_activity(n.left).reads & expr_activity(n.right).reads
    return out


def _unit_constant(node) -> bool:
    """A number literal of magnitude at most 1 (`-1`, `0.5`)."""
    v = int_constant(node)
    if v is None and isinstance(node, gast.Constant) and type(node.value) is float:
        return abs(node.value) <= 1
    return v is not None and abs(v) <= 1


def _bounds_its_value(node) -> bool:
    """`a % c` with a literal `c`, `min(a, c)` / `jnp.minimum` / `jnp.clip` with a literal
    bound: a value kept in range whatever ``a`` is. The bound is below 2**16, so that what
    the next iteration computes with the value before bounding it (`(h * 131 + i) % c`)
    stays in int32 too: `% 1000000007` bounds `h`, not `h * 131`, which wraps."""
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mod):
        return _small_bound(node.right)
    if isinstance(node, gast.Call):
        name = (dotted_name(node.func) or "").rsplit(".", 1)[-1]
        if name in ("min", "minimum", "clip"):
            return any(_small_bound(a) for a in node.args[1:])
    return False


def _small_bound(node) -> bool:
    v = int_constant(node)
    return v is not None and abs(v) < 2**16
