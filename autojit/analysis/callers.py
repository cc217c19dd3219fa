"""Who calls a function in its module, and whether a caller reads an argument after the call.

The array-update rewrite turns ``x[i] = y`` on a parameter ``x`` into ``x = x.at[i].set(y)``:
the function then returns a new array where NumPy, whose meaning autojit keeps, changed the
caller's array in place. That is the same only where no caller looks at the array it passed
after the call, other than through the value returned: ``u = bc(u)`` is fine, ``bc(u); return
u * 2`` is not. :func:`argument_read_after_call` finds a call of the second kind in the module.

It reads the plain ``ast`` tree of the module (indexed once per tree) and is conservative:

- a call is found by the function's name, as ``name(...)`` or ``obj.name(...)`` anywhere in
  the module (another function of the same name counts too);
- the argument is the one passed at the parameter's position or by its name; a call whose
  ``*args`` / ``**kwargs`` may pass it counts as passing an argument that is read again;
- it is read again where a ``Name`` of it (or, for ``x[i]`` / ``x.attr`` passed, of ``x``: NumPy
  would change a view of ``x``) is loaded after the call: later in the same statement, in a
  later statement of the caller, or anywhere in a loop around the call;
- a statement that assigns ``v`` (``v = f(v)``, ``v = f(v) + 1``) ends what can be read of the
  array the call changed through ``v``: only that statement counts (a read of ``v`` before the
  call in it too: ``v = v + f(v)`` adds the changed array), and what a loop around the call
  runs over (``for r in v``: the loop goes on over the changed array);
- a name bound to the array or a view of it in the caller (``v = u``, ``v = u[1:]``, ``u.T``,
  ``u.reshape(...)``; not ``u.shape[0]`` or ``u * 2``), and assigned nowhere else there, counts
  as the array (a view made inside an expression, ``(v := u)``, or in another function does not);
- an array the caller does not own (a name of an enclosing function, a global) counts as read
  again: its owner may read it at any time;
- where ``v`` is the caller's own parameter (or, by its last assignment before the call, a
  name unpacked or viewed from one: ``x, y = carry``), NumPy changes the array of the caller's
  callers too: the question passes on to them (``return f(v)``, ``v = f(v)`` and all); a tuple
  passed (a carry) passes each of its arrays;
- code after a ``return`` / ``raise`` / ``break`` / ``continue`` never runs: its calls and reads
  do not count (a conversion drops that code).

A function handed to ``lax.cond`` / ``while_loop`` / ``fori_loop`` / ``scan`` counts as called
there with the operands (the conversion of an ``if`` or a loop puts calls in such functions).
A function called nowhere in its module (the one that is jitted, typically) has no such caller:
a jitted function's inputs are never changed, and its caller uses what it returns.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from ..gastconv import child_nodes, walk_bfs, walk_nodes
from ..scope import statements_on_lines
from .sharing import VIEW_FUNCTIONS

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_ENDS_BLOCK = (ast.Return, ast.Raise, ast.Break, ast.Continue)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class ReadAfterCall:
    """A call of the function whose caller reads the argument it passed afterwards."""

    caller: str  # the calling function's name ("<module>" at the top level)
    line: int  # the call's line
    argument: str  # the name read after the call
    # where the callers cannot be followed: why (then ``argument`` is the parameter)
    unknown: str = ""

    def reader(self, line: int | None = None) -> str:
        """Who reads the array after the call, for AJ908's message (``line``: where, in the
        file), ending where "NumPy shows it the new values" follows."""
        at = f", line {line}" if line is not None else ""
        if self.unknown:
            return (
                f"{self.unknown} (`{self.caller}`{at}): a caller may read its array after the "
                f"call, where NumPy shows it"
            )
        where = f" (line {line})" if line is not None else ""
        return f"`{self.caller}` reads `{self.argument}` after calling it{where}: NumPy shows it"


@dataclass
class _Site:
    call: ast.Call
    stmt: ast.stmt  # the statement the call is in (its innermost)
    function: ast.FunctionDef | ast.AsyncFunctionDef | None  # the caller (None: module level)
    loops: tuple[ast.AST, ...]  # the loops around the statement (a lax loop call: one too)


class _Index:
    """The calls of the module by called name (``f(...)`` and ``obj.f(...)``), and the loads of
    each name per function (position order), made in one walk of the tree."""

    def __init__(self, tree: ast.Module) -> None:
        self.calls: dict[str, list[_Site]] = {}
        self.loads: dict[int, dict[str, list[ast.Name]]] = {}  # id(function or tree) -> name
        # id(function or tree) -> name -> the names bound to it or a view of it (`v = u`,
        # `v = u[1:]`, `v = u.T`): NumPy changes what they show with it
        self.aliases: dict[int, dict[str, set[str]]] = {}
        # id(function) -> its parameters and the names it assigns: its own (not an enclosing
        # function's)
        self.local: dict[int, set[str]] = {}
        self.stores: dict[int, dict[str, int]] = {}  # id(function or tree) -> name -> count
        # id(function) -> name -> each assignment: (its place, the name whose array or view it
        # binds, or None)
        self.bindings: dict[int, dict[str, list[tuple[tuple[int, int], str | None]]]] = {}
        self.functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        # name -> where it is read as a value, not called (`g = h`, `partial(h)`, `map(h, xs)`):
        # what then calls it is not known here. (id of each Name called, or given to lax.)
        self.values: dict[str, list[tuple[int, ast.AST | None]]] = {}
        self._called: set[int] = set()
        # id(function or tree) -> ids of the loads of its names made inside functions nested in it
        self.closure_loads: dict[int, set[int]] = {}
        self._tree = tree
        self._block(tree.body, None, (), tree)

    def _block(self, body, function, loops, scope) -> None:
        for stmt in body:
            self._stmt(stmt, function, loops, scope)
            if isinstance(stmt, _ENDS_BLOCK):
                break  # the rest of the block never runs (and a conversion drops it)

    def _stmt(self, stmt, function, loops, scope) -> None:
        if isinstance(stmt, _FUNCTIONS):
            self.functions.setdefault(stmt.name, []).append(stmt)
            for d in stmt.decorator_list:
                self._expr(d, stmt, function, loops, scope)
            for d in stmt.args.defaults + [k for k in stmt.args.kw_defaults if k is not None]:
                self._expr(d, stmt, function, loops, scope)
            self.loads.setdefault(id(stmt), {})
            a = stmt.args
            self.local[id(stmt)] = {
                p.arg
                for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]
                if p is not None
            }
            self._block(stmt.body, stmt, (), stmt)
            # (a closure reading a name of its enclosing function reads it there too, and
            # whenever it is called: at any time after its definition)
            inner = self.loads[id(stmt)]
            outer = self.loads.setdefault(id(scope), {})
            own = self.local.get(id(stmt), set())
            for name, nodes in inner.items():
                outer.setdefault(name, []).extend(nodes)
                if name not in own:  # (a name of the enclosing scope, read when it is called)
                    self.closure_loads.setdefault(id(scope), set()).update(map(id, nodes))
            return
        if isinstance(stmt, ast.ClassDef):
            for d in stmt.decorator_list + stmt.bases:
                self._expr(d, stmt, function, loops, scope)
            self._block(stmt.body, function, loops, scope)
            return
        inner_loops = loops + (stmt,) if isinstance(stmt, _LOOPS) else loops
        self._bindings(stmt, scope)
        if isinstance(stmt, ast.Assign):
            for source in _views_of(stmt.value):
                shared = self.aliases.setdefault(id(scope), {}).setdefault(source, set())
                shared.update(
                    t.id
                    for target in stmt.targets
                    for t in walk_nodes(target)
                    if type(t) is ast.Name and type(t.ctx) is ast.Store and t.id != source
                )
        for field, value in ast.iter_fields(stmt):
            if field in ("body", "orelse", "finalbody"):
                self._block(value, function, inner_loops if field == "body" else loops, scope)
            elif field == "handlers":
                for h in value:
                    if h.type is not None:
                        self._expr(h.type, stmt, function, loops, scope)
                    self._block(h.body, function, loops, scope)
            elif field == "cases":
                for c in value:
                    self._expr(c.pattern, stmt, function, loops, scope)
                    if c.guard is not None:
                        self._expr(c.guard, stmt, function, loops, scope)
                    self._block(c.body, function, loops, scope)
            elif isinstance(value, list):
                for v in value:
                    if isinstance(v, ast.AST):
                        self._expr(v, stmt, function, loops, scope)
            elif isinstance(value, ast.AST):
                self._expr(value, stmt, function, loops, scope)

    def _bindings(self, stmt, scope) -> None:
        """Record where ``stmt`` binds names, and to a view of which name's array."""
        sources: list[str | None]
        if isinstance(stmt, ast.Assign):
            targets, sources = stmt.targets, sorted(_views_of(stmt.value))
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            targets, sources = [stmt.target], sorted(_views_of(stmt.iter))  # (rows: views)
        elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
            targets, sources = [stmt.target], []
        else:
            return
        at = (stmt.lineno, stmt.col_offset)
        table = self.bindings.setdefault(id(scope), {})
        for target in targets:
            for t in walk_nodes(target):
                if type(t) is ast.Name and type(t.ctx) is ast.Store:  # (not `y` of `y[i] = v`)
                    for source in sources or [None]:
                        table.setdefault(t.id, []).append((at, source))

    def _lambda_reads(self, lam: ast.Lambda, scope) -> None:
        """Record the loads of ``scope``'s names in a lambda's body as made by a closure."""
        a = lam.args
        bound = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
        bound |= {p.arg for p in (a.vararg, a.kwarg) if p is not None}
        self.closure_loads.setdefault(id(scope), set()).update(
            id(n)
            for n in walk_nodes(lam.body)
            if type(n) is ast.Name and type(n.ctx) is ast.Load and n.id not in bound
        )

    def _expr(self, node, stmt, function, loops, scope) -> None:
        loads = self.loads.setdefault(id(scope), {})
        local = self.local.get(id(scope))
        for n in walk_bfs(node):  # (a call before its function: ast.walk goes down in order)
            if type(n) is ast.Lambda:  # (its reads happen when it is called: any time after)
                self._lambda_reads(n, scope)
            elif type(n) is ast.Name and type(n.ctx) is ast.Load:
                loads.setdefault(n.id, []).append(n)
                if id(n) not in self._called:
                    self.values.setdefault(n.id, []).append((n.lineno, function))
            elif type(n) is ast.Name:
                stores = self.stores.setdefault(id(scope), {})
                stores[n.id] = stores.get(n.id, 0) + 1
                if local is not None:
                    local.add(n.id)  # (stored or deleted: a name of this function)
            elif type(n) is ast.Call:
                f = n.func
                name = f.id if type(f) is ast.Name else f.attr if type(f) is ast.Attribute else None
                if _partial_transform(f):
                    # `partial(jax.jit, donate_argnums=0)(f)`
                    self._called.update(id(a) for a in n.args if type(a) is ast.Name)
                if name is not None:
                    self._called.add(id(f))
                    if name in _TRANSFORMS:
                        # `jax.jit(f)`: the transformed function never changes its arrays
                        self._called.update(id(a) for a in n.args if type(a) is ast.Name)
                    self.calls.setdefault(name, []).append(_Site(n, stmt, function, loops))
                    for called, call in _lax_calls(name, n):
                        self._called.update(
                            id(a) for a in n.args if type(a) is ast.Name and a.id == called
                        )
                        # (a lax loop runs the body again: the loop call is a loop around it)
                        around = loops + (n,) if name != "cond" else loops
                        self.calls.setdefault(called, []).append(
                            _Site(call, stmt, function, around)
                        )


def _lax_calls(name: str, call: ast.Call) -> list[tuple[str, ast.Call]]:
    """The calls a ``lax`` control-flow call makes of the functions it is given, by name, as
        calls at its own place: ``cond(p, t, e, *ops)`` calls ``t(*ops)`` and ``e(*ops)``,
        ``while_loop(c, b, init)`` ``b(init)``, ``fori_loop(lo, hi, b, init)`` ``b(i, init)``,
        ``scan(b, init, xs)`` ``b(init, xs)`` (a loop index: a new value); a loop's call is a loop
    around the call it makes (what it is given is read again at each step). The conversion of
        an ``if`` or a loop moves a call into such a function: it is checked the same way there."""
    args = call.args
    if call.keywords or any(isinstance(a, ast.Starred) for a in args):
        return []
    fresh = ast.Constant(0)
    plan: list[tuple[ast.expr, list[ast.expr]]] = []
    if name == "cond" and len(args) >= 3:
        plan = [(args[1], args[3:]), (args[2], args[3:])]
    elif name == "while_loop" and len(args) == 3:
        plan = [(args[1], [args[2]])]
    elif name == "fori_loop" and len(args) == 4:
        plan = [(args[2], [fresh, args[3]])]
    elif name == "scan" and len(args) >= 2:
        plan = [(args[0], [args[1], args[2] if len(args) > 2 else fresh])]
    out = []
    for fn, passed in plan:
        if isinstance(fn, ast.Name):
            made = ast.Call(func=ast.Name(fn.id, ast.Load()), args=list(passed), keywords=[])
            ast.copy_location(made, call)
            out.append((fn.id, made))
    return out


def _index(tree: ast.Module) -> _Index:
    """The module's callers index, made once and kept on the tree itself: it refers to the
    tree's nodes, so a table keyed by the tree (even weakly) would keep every module ever
    indexed alive (an editor server converting on each save would grow without end)."""
    index = tree.__dict__.get("_aj_callers_index")
    if index is None:
        index = tree._aj_callers_index = _Index(tree)  # type: ignore[attr-defined]
    return index


def _positional(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    return [a.arg for a in fn.args.posonlyargs + fn.args.args]


def argument_read_after_call(
    tree: ast.Module,
    name: str,
    params: list[str],
    param: str,
    method: bool = False,
    function: bool = False,
    dropped: bool = False,
) -> ReadAfterCall | None:
    """A call of the function ``name`` (positional parameters ``params``; ``method``: called as
    ``obj.name(...)`` without its first one) in module ``tree`` whose caller reads the array it
    passed for ``param`` after the call; None where no caller does. ``function``: ``name`` is
    known to be that function (else it is where ``tree`` defines it) and a read of it as a value
    (`g = name`) hands it to callers that cannot be followed. ``dropped``: only calls whose
    result is dropped (`put(y)` as a statement: the caller relies on the change in place), and
    no caller that cannot be followed (for a function that is jitted where it is defined,
    `@autojit.convert`: a caller using its result meant the functional one)."""
    return _search(_index(tree), name, params, param, method, set(), function, dropped)


def arguments_passed(
    tree: ast.Module, name: str, params: list[str], param: str, method: bool = False
) -> set[str]:
    """The names whose arrays the calls of ``name`` in ``tree`` pass for ``param`` (``x`` for
    ``name(x)`` and ``name(x[1:])``): NumPy changes them where the function changes ``param``."""
    index = _index(tree)
    position = params.index(param) if param in params else None
    out: set[str] = set()
    for site in index.calls.get(name, ()):
        k = position
        if k is not None and method and type(site.call.func) is ast.Attribute:
            k -= 1
        arg = _argument(site.call, k, param)
        if arg is not None and arg is not _UNKNOWN:
            base = _base_name(arg)
            if base is not None:
                out.add(base)
    return out


def _search(
    index, name, params, param, method, seen, function=False, dropped=False
) -> ReadAfterCall | None:
    if (name, param) in seen:
        return None
    seen.add((name, param))
    if (function or name in index.functions) and not dropped:
        for line, function in index.values.get(name, ()):
            # handed on as a value: called where this module cannot follow (`g = h; g(x)`)
            where = function.name if function is not None else "<module>"
            return ReadAfterCall(where, line, param, f"`{name}` is passed on as a value there")
    position = params.index(param) if param in params else None
    for site in index.calls.get(name, ()):
        call = site.call
        attribute = type(call.func) is ast.Attribute
        k = position
        if k is not None and attribute and method:
            k -= 1  # `obj.name(a)`: `a` is the second parameter
        arg = _argument(call, k, param)
        if arg is None:
            continue  # not passed here
        if dropped and (arg is _UNKNOWN or not _result_dropped(site.stmt, call)):
            continue
        caller = site.function.name if site.function is not None else "<module>"
        if arg is _UNKNOWN:
            return ReadAfterCall(caller, call.lineno, param)
        # (a tuple passed, as a lax loop's carry: each of its arrays)
        elements = arg.elts if isinstance(arg, (ast.Tuple, ast.List)) else [arg]
        stmt = site.stmt
        scope = site.function if site.function is not None else index._tree
        fn = site.function
        bases = sorted({b for e in elements for b in _arrays_passed(e)})
        # (`row = x[0]; g(row)`, `y = x; g(y)`, `for r in x: g(r)`: NumPy changes `x` too; by
        # every binding of the name in the caller, in any order)
        if fn is not None:
            bases += sorted(_viewed_by(index, fn, bases) - set(bases))
        # (`[h(a) for a in (x, z)]`: `a` is x, then z)
        bases += [n for b in bases for n in _comprehension_sources(stmt, call, b)]
        for base in bases:
            if fn is not None and base not in index.local.get(id(fn), ()):
                # the enclosing function's array (or a global): it may read it at any time
                return ReadAfterCall(caller, call.lineno, base)
            if _loaded_after(index, scope, stmt, call, arg, base, site.loops):
                return ReadAfterCall(caller, call.lineno, base)
            if fn is None:
                continue
            # the array is the caller's own argument (or unpacked from it: a lax loop's carry),
            # changed in place, also where the caller rebinds its name to the result: the
            # caller's callers must not look either
            own = _positional(fn) + [a.arg for a in fn.args.kwonlyargs]
            owner_method = bool(own) and own[0] in ("self", "cls")
            p = _parameter_behind(index, fn, base, (stmt.lineno, stmt.col_offset), set(own))
            if p is not None:
                found = _search(
                    index, fn.name, _positional(fn), p, owner_method, seen, dropped=dropped
                )
                if found is not None:
                    return found
    return None


def _result_dropped(stmt, call) -> bool:
    """Whether ``call`` is its statement's whole expression (`put(y)`, `await put(y)`): its
    result is dropped."""
    if type(stmt) is not ast.Expr:
        return False
    value = stmt.value.value if type(stmt.value) is ast.Await else stmt.value
    return value is call


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _last_name(node) -> str | None:
    return node.id if type(node) is ast.Name else node.attr if type(node) is ast.Attribute else None


def _partial_transform(f) -> bool:
    """`partial(jax.jit, ...)`: a call that makes a transform."""
    return (
        type(f) is ast.Call
        and _last_name(f.func) == "partial"
        and bool(f.args)
        and _last_name(f.args[0]) in _TRANSFORMS
    )


# jax transforms: a function handed to one is called transformed (its arrays never change)
_TRANSFORMS = frozenset(
    """jit pjit vmap pmap grad value_and_grad jacfwd jacrev hessian jvp vjp linearize
    checkpoint remat eval_shape make_jaxpr shard_map custom_jvp custom_vjp
    named_call""".split()
)


def _comprehension_sources(stmt, call, name: str) -> list[str]:
    """The names read in the iterable of a comprehension around ``call`` (in ``stmt``) whose
    target binds ``name``: the arrays ``name`` stands for."""
    out: list[str] = []
    for comp in walk_nodes(stmt):
        if not isinstance(comp, _COMPREHENSIONS) or not any(n is call for n in walk_nodes(comp)):
            continue
        for gen in comp.generators:
            targets = {t.id for t in walk_nodes(gen.target) if type(t) is ast.Name}
            if name in targets:
                out += [n.id for n in walk_nodes(gen.iter) if type(n) is ast.Name and n.id != name]
    return out


class _Unknown:
    pass


_UNKNOWN: ast.AST = _Unknown()  # type: ignore[assignment]


def _argument(call: ast.Call, position: int | None, param: str):
    """The expression passed for the parameter, None where none is, ``_UNKNOWN`` where a
    ``*args`` / ``**kwargs`` may pass it."""
    for kw in call.keywords:
        if kw.arg == param:
            return kw.value
    if position is not None:
        for i, a in enumerate(call.args):
            if isinstance(a, ast.Starred):
                return _UNKNOWN  # (it may stand at the position, or before it)
            if i == position:
                return a
    if any(kw.arg is None for kw in call.keywords):
        return _UNKNOWN
    return None


def _base_name(node) -> str | None:
    """``x`` for ``x``, ``x[i]``, ``x.a`` (NumPy changes ``x`` through a view of it); None for
    a value computed for the call."""
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


# what gives a view of an array in NumPy (the same memory): `u`, `u[...]`, `u.T`, `u.reshape()`
_VIEW_ATTRIBUTES = frozenset({"T", "mT", "real", "imag"})
_VIEW_METHODS = frozenset({"reshape", "view", "ravel", "transpose", "swapaxes", "squeeze"})


def _view_of(node) -> str | None:
    """``u`` where ``node`` may be ``u`` or a view of it (``u[1:]``, ``u.T``, ``u.reshape(...)``),
    else None (``u * 2``, ``u.copy()``, ``u.shape[0]``)."""
    while True:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Attribute) and node.attr in _VIEW_ATTRIBUTES:
            node = node.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _VIEW_METHODS
        ):
            node = node.func.value
        else:
            return None


def _views_of(node) -> set[str]:
    """The names whose array (or a view of it) ``node`` may be: ``u`` for ``u``, ``u[1:]``,
    ``u.T``, ``u.reshape(...)``, ``jnp.ravel(u)`` and the other view functions; both sides of
    ``u if c else w`` and of ``u or w``; the value of ``(v := u)``."""
    if isinstance(node, ast.IfExp):
        return _views_of(node.body) | _views_of(node.orelse)
    if isinstance(node, ast.BoolOp):
        return set().union(*(_views_of(v) for v in node.values))
    if isinstance(node, ast.NamedExpr):
        return _views_of(node.value)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):  # (`y, z = x, w`: either)
        return set().union(*(_views_of(e) for e in node.elts))
    if isinstance(node, ast.Dict):
        return set().union(*(_views_of(v) for v in node.values))
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("values", "items", "get", "pop")
    ):
        return _views_of(node.func.value)  # (`d.values()`: what the container holds)
    if isinstance(node, ast.Lambda):
        return _views_of(node.body)
    if isinstance(node, ast.Call) and _last_name(node.func) == "cond":
        # `lax.cond(p, lambda: u[0], lambda: u[1])`: autojit's form of a ternary of views
        return set().union(*(_views_of(a) for a in node.args[1:] if isinstance(a, ast.Lambda)))
    if isinstance(node, ast.Call) and _last_name(node.func) == "where" and len(node.args) == 3:
        # and `jnp.where(p, u, w)` (a new array; taken as either, so that converting the
        # conversion of `u if p else w` again finds what the first conversion found)
        return _views_of(node.args[1]) | _views_of(node.args[2])
    out: set[str] = set()
    if isinstance(node, ast.Call) and node.args:
        f = node.func
        if (type(f) is ast.Attribute and f.attr in VIEW_FUNCTIONS) or (
            type(f) is ast.Name and f.id in _ROW_BUILTINS
        ):
            # `jnp.ravel(u)` (and `u.reshape(-1)`, read as both), `enumerate(u)`, `zip(u, w)`
            args = node.args if type(f) is ast.Name else node.args[:1]
            out = set().union(*(_views_of(a) for a in args))
    one = _view_of(node)
    return out | {one} if one is not None else out


# builtins whose result holds the rows of their arguments (views of them in NumPy)
_ROW_BUILTINS = frozenset(
    {"enumerate", "zip", "reversed", "iter", "next", "list", "tuple", "sorted"}
)


def _arrays_passed(arg) -> set[str]:
    """The names whose arrays an argument expression may hand a function: what ``_base_name``
    finds (``x`` of ``x.data``) and every name ``arg`` may be a view of."""
    base = _base_name(arg)
    return _views_of(arg) | ({base} if base is not None else set())


def _viewed_by(index, fn, names) -> set[str]:
    """The names of ``fn`` whose arrays ``names`` may be views of, by any of their bindings in
    ``fn`` (``v = u``, ``v = u[1:]``, ``for v in u``), through one another."""
    table = index.bindings.get(id(fn), {})
    out: set[str] = set()
    todo = list(names)
    while todo:
        for _at, source in table.get(todo.pop(), ()):
            if source is not None and source not in out:
                out.add(source)
                todo.append(source)
    return out


def _rebinds(stmt: ast.stmt, name: str) -> bool:
    """Whether ``stmt`` assigns ``name`` (``u = f(u)``, ``u = f(u) + 1``, ``u, v = ...``):
    every read after it reads the new value, not the array the call changed."""
    if isinstance(stmt, ast.Assign):
        return any(
            type(t) is ast.Name and type(t.ctx) is ast.Store and t.id == name
            for target in stmt.targets
            for t in walk_nodes(target)
        )
    if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        return isinstance(stmt.target, ast.Name) and stmt.target.id == name
    return False


def _parameter_behind(index, fn, name: str, at: tuple[int, int], params: set[str]) -> str | None:
    """The parameter of ``fn`` whose array (or a view of it) ``name`` holds at ``at`` (the
    statement of a call: what it assigns comes after the call): by the last assignment of
    ``name`` before it (``x, y = carry``, ``row`` of ``for row in xs``), or
    ``name`` itself where none is before it; None where ``name`` holds a value of its own."""
    table = index.bindings.get(id(fn), {})
    for _ in range(16):  # (a chain of views: a few links)
        before = [b for b in table.get(name, ()) if b[0] < at]
        if not before:
            return name if name in params else None
        place, source = max(before, key=lambda b: b[0])
        if source is None:
            return None
        name, at = source, place
    return None


def _aliases_of(index, scope, name: str) -> set[str]:
    """The names bound in ``scope`` to ``name``'s array or a view of it, each assigned only
    there (a name assigned again may hold something else by then), through one another."""
    aliases = index.aliases.get(id(scope), {})
    stores = index.stores.get(id(scope), {})
    shared: set[str] = set()
    todo = [name]
    while todo:
        for other in aliases.get(todo.pop(), ()):
            if other not in shared and other != name and stores.get(other) == 1:
                shared.add(other)
                todo.append(other)
    return shared


def _after(node, call: ast.Call) -> bool:
    end = (call.end_lineno or call.lineno, call.end_col_offset or 0)
    return (node.lineno, node.col_offset) >= end


def _inside(node, outer) -> bool:
    if getattr(outer, "lineno", None) is None:
        return False  # (an argument a lax loop's modelled call is given: the index, unwritten)
    start = (outer.lineno, outer.col_offset)
    end = (outer.end_lineno or outer.lineno, outer.end_col_offset or 0)
    return start <= (node.lineno, node.col_offset) < end


def _literal_slice(node) -> tuple[str, int, float] | None:
    """(name, start, stop) of `x[a:b]` with literal non-negative bounds and no step."""
    if not (type(node) is ast.Subscript and type(node.value) is ast.Name):
        return None
    sl = node.slice
    if type(sl) is not ast.Slice or sl.step is not None:
        return None
    bounds: list[float] = []
    for b, default in ((sl.lower, 0), (sl.upper, float("inf"))):
        if b is None:
            bounds.append(default)
        elif type(b) is ast.Constant and type(b.value) is int and b.value >= 0:
            bounds.append(b.value)
        else:
            return None
    return node.value.id, int(bounds[0]), bounds[1]


def _disjoint_slices(a, b) -> bool:
    """Whether `a` and `b` are slices of one name's first axis that share no item (`x[:1]`
    and `x[1:]`): a change through one never shows through the other."""
    sa, sb = _literal_slice(a), _literal_slice(b)
    if sa is None or sb is None or sa[0] != sb[0]:
        return False
    return sa[2] <= sb[1] or sb[2] <= sa[1]


def _operand_around(stmt, node, call: ast.Call):
    """The largest part of ``stmt`` that holds ``node`` and not ``call`` (positions compared):
    what Python computes from ``node`` before it calls ``call`` (`x * 2` of `x * 2 + g(x)`)."""
    cur = stmt
    while True:
        inner = next(
            (c for c in child_nodes(cur) if getattr(c, "lineno", None) and _inside(node, c)),
            None,
        )
        if inner is None:
            return None
        if not _inside(call, inner):
            return inner
        cur = inner


def _loaded_after(index, scope, stmt, call, arg, name, loops) -> bool:
    """Whether ``name`` is loaded in ``scope`` after ``call`` (in ``stmt``; ``arg``: what the
    call is passed), or anywhere in one of the loops around it; where ``stmt`` assigns ``name``,
    only later in ``stmt`` itself."""
    rebound = _rebinds(stmt, name)
    loads = index.loads.get(id(scope), {})
    # what a loop around the call runs over holds the array whatever the name is bound to
    # (`for v in x: x = f(x)` goes on over the changed array; a lax loop over its arguments)
    sources = [
        loop.iter if isinstance(loop, (ast.For, ast.AsyncFor)) else loop
        for loop in loops
        if isinstance(loop, (ast.For, ast.AsyncFor, ast.Call))
    ]
    others = [a for a in [*call.args, *(k.value for k in call.keywords)] if a is not arg]
    for node in loads.get(name, ()):
        if _inside(node, arg):
            continue  # the argument itself (`f(x)`, `f(x[i])`, a carry `(x, y)`)
        passed_with = next((o for o in others if _inside(node, o)), None)
        if passed_with is not None:
            if name not in _arrays_passed(passed_with):
                continue  # consumed before the call, into a new value (`x = h(x, jnp.min(x))`)
            # (a view of it passed for another parameter, `h(x, x[2])`: NumPy's changes show
            # through it inside the callee, whatever the caller does with the result; so also
            # `return h(x, x[2])`, as the same call becomes in a branch function)
            return True
        if id(node) in index.closure_loads.get(id(scope), ()) and not _inside(node, stmt):
            return True  # a closure of the caller reads it: it may be called after
        if any(_inside(node, source) for source in sources):
            return True
        if _inside(node, stmt):
            # (before the call too: `x + g(x)`, `return x, g(x)`, `x = x.at[1].set(g(x[0]))`
            # hold the array read there and use it after the call, changed by NumPy; not a
            # read made into a new value before it, `x * 2 + g(x)`, `jnp.min(x) + g(x)`)
            if not _after(node, call):
                part = _operand_around(stmt, node, call)
                if part is not None and (
                    name not in _arrays_passed(part) or _disjoint_slices(part, arg)
                ):
                    continue
            return True
        if not rebound and (
            (_after(node, call) and not _apart(scope, call, node))
            or any(_inside(node, loop) for loop in loops)
        ):
            return True
    # a name bound to the array (or a view of it) in the caller shows the change too
    for other in _aliases_of(index, scope, name):
        for node in loads.get(other, ()):
            if (_after(node, call) and not _apart(scope, call, node)) or any(
                _inside(node, loop) for loop in loops
            ):
                return True
    return False


def _apart(scope, a, b) -> bool:
    """Whether ``a`` and ``b`` stand in the two branches of one `if` of ``scope`` (its body and
    its `else`): one never runs after the other, but in a loop around the `if` (which the
    caller looks at itself)."""
    for n in ast.walk(scope):
        if type(n) is ast.If and n.orelse and _inside(a, n) and _inside(b, n):
            body = [any(_inside(x, st) for st in n.body) for x in (a, b)]
            orelse = [any(_inside(x, st) for st in n.orelse) for x in (a, b)]
            if (body[0] and orelse[1]) or (orelse[0] and body[1]):
                return True
    return False


def result_tested_by_identity(
    tree: ast.Module, name: str, text: str | None = None
) -> tuple[str, int] | None:
    """(caller, line) of a use of the result of a call of ``name`` in module ``tree`` in an `is`
    / `is not` test (`if big(x) is True:`, or `b = big(x)` then `b is None` in the same
    function): Python's identity of the value the function returns, which a traced result
    never has. None where no caller does. With the module's ``text``, only the top-level
    statements on whose lines ``name`` is written are walked (kept on the tree, by name)."""
    memo = tree.__dict__.get("_aj_identity_index")
    if memo is None:
        memo = tree._aj_identity_index = {}  # type: ignore[attr-defined]
    if name not in memo:
        body = tree.body
        if text is not None:
            body = statements_on_lines(body, text, re.compile(rf"\b{re.escape(name)}\b"))
        memo[name] = _identity_index(body).get(name)
    return memo[name]


def _called_name(node) -> str | None:
    if type(node) is ast.Call:
        f = node.func
        return f.id if type(f) is ast.Name else f.attr if type(f) is ast.Attribute else None
    return None


def _identity_index(body: list) -> dict[str, tuple[str, int]]:
    out: dict[str, tuple[str, int]] = {}
    scopes: list[tuple[str, list]] = [("<module>", body)]
    while scopes:
        caller, body = scopes.pop()
        assigned: dict[str, str] = {}  # name -> the function whose result it holds
        compares: list[ast.Compare] = []
        stack = list(body)
        while stack:
            node = stack.pop()
            if isinstance(node, _FUNCTIONS):
                scopes.append((node.name, node.body))
                continue
            if type(node) is ast.Assign and len(node.targets) == 1:
                target, called = node.targets[0], _called_name(node.value)
                if called is not None:  # (`b = big(x)`, `y, b = check(x)`)
                    for t in [target, *getattr(target, "elts", ())]:
                        if type(t) is ast.Name:
                            assigned[t.id] = called
            elif type(node) is ast.Compare and any(
                type(op) in (ast.Is, ast.IsNot) for op in node.ops
            ):
                compares.append(node)
            stack.extend(child_nodes(node))
        for c in compares:
            for operand in [c.left, *c.comparators]:
                called = _called_name(operand)
                if called is None and type(operand) is ast.Name:
                    called = assigned.get(operand.id)
                if called is not None and called not in out:
                    out[called] = (caller, c.lineno)
    return out
