"""Which names of a function may hold the same array (or a container holding it): NumPy's
meaning of an item update is in place, so every such name sees it.

The values analysis follows the plain cases flow by flow (``y = x``, ``y = x[1:]``, ``y = x.T``)
and keeps one name per value. This analysis is its conservative complement: flow-insensitive
(every binding of the function at once, in any order, in loops too), it joins two names
whenever one may be bound to an object reachable from the other:

- ``a = b``, ``a = b[...]`` (a row or a view), ``a = b.attr``, ``a = b.reshape(...)`` and the
  other view methods, ``a = jnp.reshape(b, ...)`` and the other view functions, ``a = c if t
  else b``, ``a = b or c``, ``(a := b)``, ``a, c = b, d`` (pairwise), ``a = (b, s)`` / ``[b]`` /
  ``{"k": b}`` (containers), ``for a in (b, c)`` / ``for a in b`` (rows), ``with b as a``;
- ``a = g(b)`` for a function not from jax or numpy (it may return its argument), and
  ``a = c.get(b)`` for a method of an object that is not an array;
- ``c.append(b)`` (any method of a non-array object given ``b``), ``c[k] = b`` / ``c.k = b``
  into a non-array object, ``def g(a=b)`` (a default holds the object).

Arithmetic, reductions, array methods and jax / numpy functions make new arrays. The price of
being flow-insensitive: ``y = x`` then ``y = y * 2`` still joins ``y`` and ``x``, so an update of
``y`` is refused where ``x`` is read after it (a refusal, never a wrong answer).
"""

from __future__ import annotations

import builtins
from typing import Any

import gast

from ..gastconv import walk, walk_expression
from .effects import STORING_METHODS
from .values import _VIEW_METHODS, STATIC_ATTRIBUTES, Kind

# jax.numpy / numpy functions whose result may be (a view of) their first argument
VIEW_FUNCTIONS = frozenset(
    """asarray reshape ravel transpose swapaxes moveaxis squeeze expand_dims atleast_1d
    atleast_2d atleast_3d diagonal broadcast_to matrix_transpose permute_dims rollaxis
    asanyarray ascontiguousarray real imag split array_split hsplit vsplit dsplit flip fliplr
    flipud rot90""".split()
)
# builtins that return a new object (a number, a bool, a string, a range...; not `min`, `max`,
# `sorted`: they hand back what they were given)
_FRESH_BUILTINS = frozenset(
    """len float int bool abs round str repr range isinstance issubclass hasattr callable type
    print id hash format ord chr divmod pow all any sum""".split()
)
_ARRAYS = (Kind.TRACED, Kind.NUMPY)
_BUILTINS = frozenset(dir(builtins))
_VIEW_ATTRIBUTES = frozenset({"T", "mT", "real", "imag", "flat"})
# methods that keep what they are given, and that no array has: their object is a container
_KEEPING_METHODS = STORING_METHODS | {"appendleft", "extendleft", "push"}


class Sharing:
    """Groups of names that may share an object, for one function (and the functions nested
    in it, their names taken as its own)."""

    def __init__(self, fn, analysis, scope) -> None:
        self._an, self._scope = analysis, scope
        self._local_names = analysis.values.locals
        self._parent: dict[str, str] = {}
        self._closures: dict[str, set[str]] = {}  # a nested function -> the names it reads
        # a nested function -> what it returns (`def _then(s): return y[2]`), read where the
        # function is passed on as a value (`s = lax.cond(p, _then, _else, s)`)
        self._returned: dict[str, list] = {}
        self._params: dict[str, list[str]] = {}  # (those with positional parameters only)
        # (container, the names it is given, statement) for each store into a container:
        # `c[k] = b`, `c.a = b`, `setattr(c, "a", b)`, `c.append(b)`
        self.stores: list[tuple[str, set[str], Any]] = []
        statements: list = []
        stack = _live(fn.body)
        while stack:
            s = stack.pop()
            statements.append(s)
            if isinstance(s, gast.ClassDef):
                continue
            if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef)):
                # (a name defined more than once, `def g` in each branch: a call may run any
                # of them, so it reads and returns what any of them does)
                again = s.name in self._returned
                self._closures.setdefault(s.name, set()).update(_free_reads(s) - {s.name})
                self._returned.setdefault(s.name, []).extend(_returns_of(s))
                a = s.args
                params = (
                    [p.id for p in [*a.posonlyargs, *a.args] if isinstance(p, gast.Name)]
                    if not (a.vararg or a.kwarg or a.kwonlyargs or a.defaults)
                    else None
                )
                if again and self._params.get(s.name, params) != params:
                    params = None  # (defined with other parameters: not read place by place)
                if params is None or (again and s.name not in self._params):
                    self._params.pop(s.name, None)
                else:
                    self._params[s.name] = params
            # (a nested function's body too, its names taken as the function's own: more
            # joined, never fewer; autojit's own branch and loop-body functions are read so,
            # which keeps what converting its output again refuses the same)
            for f in ("body", "orelse", "finalbody"):
                stack.extend(_live(getattr(s, f, None) or ()))
            for h in getattr(s, "handlers", None) or ():
                stack.extend(_live(h.body))
        # names bound otherwise than by a `def` (`g = h`, a parameter, a loop target), and
        # the functions defined with a `yield` (read only for the functions defined here: no
        # walk where there is none)
        self._bound_otherwise = {
            n.id for n in walk(fn) if type(n) is gast.Name and type(n.ctx) is not gast.Load
        } if self._returned else set()
        self._generators = {
            s.name
            for s in statements
            if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef))
            and any(isinstance(n, (gast.Yield, gast.YieldFrom)) for n in walk(s))
        }
        for s in statements:
            self._statement(s)

    # -- union-find ------------------------------------------------------------------------
    def _root(self, n: str) -> str:
        parent = self._parent
        while parent.get(n, n) != n:
            parent[n] = parent.get(parent[n], parent[n])
            n = parent[n]
        return n

    def _join(self, a: str, refs: set[str]) -> None:
        ra = self._root(a)
        for b in refs:
            rb = self._root(b)
            if rb != ra:
                self._parent[rb] = ra

    def shared_with(self, name: str) -> set[str]:
        """The other names that may hold ``name``'s object (or hold it inside them)."""
        root = self._root(name)
        return {n for n in self._parent if n != name and self._root(n) == root} | (
            {root} if root != name else set()
        )

    # -- statements ------------------------------------------------------------------------
    def _statement(self, s) -> None:
        for node in _calls_and_walruses(s):
            if type(node) is gast.NamedExpr and isinstance(node.target, gast.Name):
                self._join(node.target.id, self._refs(node.value, s))
            elif type(node) is gast.Call:
                self._method_call(node, s)
        if isinstance(s, gast.Assign):
            for t in s.targets:
                self._bind(t, s.value, s)
            if len(s.targets) > 1:
                # `a = b = x * 2`: one new object, held by every target
                names = [t.id for t in s.targets if isinstance(t, gast.Name)]
                for n in names[1:]:
                    self._join(names[0], {n})
        elif isinstance(s, gast.AnnAssign) and s.value is not None:
            self._bind(s.target, s.value, s)
        elif isinstance(s, gast.AugAssign):
            if isinstance(s.target, gast.Name):
                if not self._is_array(s.target, s):  # `xs += [b]`: the list holds b
                    self._join(s.target.id, self._refs(s.value, s))
            else:
                self._bind(s.target, s.value, s)
        elif isinstance(s, (gast.For, gast.AsyncFor)):
            # (the rows of an array, `for row in x` / `enumerate(x)` / `zip(x, y)`, are the
            # values analysis's: each iteration takes a row of x as it is then)
            if not (isinstance(s.iter, gast.Name) and self._is_array(s.iter, s)) and not (
                isinstance(s.iter, gast.Call)
                and _dotted(s.iter.func) in ("enumerate", "zip")
                and all(isinstance(a, gast.Name) and self._is_array(a, s) for a in s.iter.args)
            ):
                self._bind_all(s.target, self._refs(s.iter, s))
        elif isinstance(s, (gast.With, gast.AsyncWith)):
            for item in s.items:
                if item.optional_vars is not None:
                    self._bind_all(item.optional_vars, self._refs(item.context_expr, s))
        elif isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef)):
            defaults = [*s.args.defaults, *(d for d in s.args.kw_defaults if d is not None)]
            for d in defaults:
                self._join(s.name, self._refs(d, s))
            # (a closure may return what it reads of this function, `def g(): return x`: that
            # is taken at its calls; joined here, every two names it reads would be joined)

    def _bind(self, target, value, s) -> None:
        if isinstance(target, gast.Name):
            self._join(target.id, self._refs(value, s))
        elif isinstance(target, (gast.Tuple, gast.List)):
            by_element = self._lax_results_by_element(target, value)
            if by_element is not None:
                # `t, y = lax.cond(p, _then, _else, ...)` with each branch returning `(t, y)`:
                # each target holds what that place of the results holds (not all of it)
                for t, refs in zip(target.elts, by_element, strict=True):
                    self._bind_all(t, refs)
                return
            if (
                isinstance(value, (gast.Tuple, gast.List))
                and len(value.elts) == len(target.elts)
                and not any(isinstance(e, gast.Starred) for e in [*value.elts, *target.elts])
            ):
                for t, v in zip(target.elts, value.elts, strict=True):
                    self._bind(t, v, s)
            else:
                self._bind_all(target, self._refs(value, s))
        elif isinstance(target, gast.Starred):
            self._bind(target.value, value, s)
        elif isinstance(target, (gast.Subscript, gast.Attribute)):
            base = _base_name(target)
            # (an attribute set, `s.prev = b`, or a text key, `d["k"] = b`, is no array's, even
            # of a name the values analysis takes for one: a parameter)
            not_an_array = isinstance(target, gast.Attribute) or (
                isinstance(target.slice, gast.Constant) and isinstance(target.slice.value, str)
            )
            if base is not None and (
                not_an_array
                or not self._is_array(
                    gast.Name(id=base, ctx=gast.Load(), annotation=None, type_comment=None), s
                )
            ):
                refs = self._refs(value, s)
                self._join(base, refs)  # `c[k] = b`: the container holds b
                self._stored(base, refs, s)

    def _lax_results_by_element(self, target, value) -> list[set[str]] | None:
        """For a tuple target bound to a call of this function's own functions that all return
        tuples of the target's length (`t, y = g(y, t)`, `t, y = lax.cond(p, _then, _else, y,
        t)`), what each place of the result may hold: its element, the functions' parameters
        read as the operands given to them; else None (then every target holds everything)."""
        call = value
        if (
            not isinstance(call, gast.Call)
            or call.keywords
            or any(isinstance(a, gast.Starred) for a in call.args)
            or any(isinstance(e, gast.Starred) for e in target.elts)
        ):
            return None
        if isinstance(call.func, gast.Name) and call.func.id in self._returned:
            fns, operands = [call.func.id], call.args
        else:
            name = _dotted(call.func)
            head = name.split(".")[0] if name else None
            qual = self._scope.qualified(name) if name and head not in self._local_names else None
            if qual != "jax.lax.cond" or len(call.args) < 3:
                return None
            branches = call.args[1:3]
            if not all(isinstance(b, gast.Name) and b.id in self._returned for b in branches):
                return None
            fns, operands = [b.id for b in branches], call.args[3:]
        out: list[set[str]] = [set() for _ in target.elts]
        for f in fns:
            params, returns = self._params.get(f), self._returned[f]
            if params is None or len(params) != len(operands) or not returns:
                return None
            given = {p: self._refs(op, call) for p, op in zip(params, operands, strict=True)}
            for r in returns:
                if not isinstance(r.value, gast.Tuple) or len(r.value.elts) != len(out):
                    return None
                for k, e in enumerate(r.value.elts):
                    for n in self._refs(e, r):
                        out[k] |= given.get(n, {n})
        return out

    def _bind_all(self, target, refs: set[str]) -> None:
        for node in walk(target):
            if type(node) is gast.Name:
                self._join(node.id, refs)
            elif isinstance(node, (gast.Subscript, gast.Attribute)):
                base = _base_name(node)
                if base is not None:
                    self._join(base, refs)

    def _method_call(self, call, s) -> None:
        """`c.append(b)`: a method of a non-array object given a value may keep it;
        `setattr(c, "k", b)` too."""
        f = call.func
        if (
            isinstance(f, gast.Name)
            and f.id == "setattr"
            and len(call.args) == 3
            and not self._scope.binds("setattr")
            and "setattr" not in self._local_names
        ):
            base = _base_name(call.args[0])
            if base is not None and not self._module_name(base):
                refs = self._refs(call.args[2], s)
                self._join(base, refs)
                self._stored(base, refs, s)
            return
        if not isinstance(f, gast.Attribute) or not (call.args or call.keywords):
            return
        base = _base_name(f.value)
        if base is None or self._module_name(base):
            return
        if self._is_array(f.value, s) and f.attr not in _KEEPING_METHODS:
            return  # (an array's method; `hist.append(b)` of a parameter is a list's)
        refs: set[str] = set()
        for a in [*call.args, *(k.value for k in call.keywords)]:
            refs |= self._refs(a, s)
        self._join(base, refs)
        if f.attr in _KEEPING_METHODS:
            self._stored(base, refs, s)

    def _stored(self, container: str, refs: set[str], s) -> None:
        if refs:
            self.stores.append((container, refs, s))

    def holds_nothing(self, node, s) -> bool:
        """Whether ``node``'s value is a new object that holds no name's (`jnp.zeros_like(u)`,
        `x * 2`, `u.copy()`)."""
        return not self._refs(node, s)

    # -- what an expression may hand out ---------------------------------------------------
    def _refs(self, node, s) -> set[str]:
        t = type(node)
        if t is gast.Name:
            if self._module_name(node.id):
                return set()
            returns = self._returned.get(node.id)
            if returns:
                # a function given as a value (to lax.cond, a loop): what it returns comes back
                out = {node.id}
                self._returned[node.id] = []  # (a recursive function: read once)
                for r in returns:
                    out |= self._refs(r.value, r)
                self._returned[node.id] = returns
                return out
            return {node.id}
        if t is gast.Subscript or t is gast.Starred:
            return self._refs(node.value, s)
        if t is gast.Attribute:
            if node.attr in STATIC_ATTRIBUTES:
                return set()  # `x.shape`, `x.dtype`: no array in them
            if node.attr not in _VIEW_ATTRIBUTES and self._is_array(node.value, s):
                return set()
            return self._refs(node.value, s)  # `x.T`, `obj.buf`
        if t is gast.NamedExpr:
            return self._refs(node.value, s)
        if t is gast.IfExp:
            return self._refs(node.body, s) | self._refs(node.orelse, s)
        if t is gast.BoolOp:
            return set().union(*(self._refs(v, s) for v in node.values))
        if t in (gast.Tuple, gast.List, gast.Set):
            return set().union(*(self._refs(e, s) for e in node.elts))
        if t is gast.Dict:
            return set().union(*(self._refs(v, s) for v in node.values))
        if t in (gast.ListComp, gast.SetComp, gast.GeneratorExp, gast.DictComp, gast.Lambda):
            # (every name it reads: an element, a default, may be one of them)
            return {n.id for n in walk(node) if type(n) is gast.Name} - set(
                _comprehension_targets(node)
            )
        if t is gast.Call:
            return self._call_refs(node, s)
        return set()  # arithmetic, comparisons, constants, f-strings: new objects

    def _call_refs(self, call, s) -> set[str]:
        f = call.func
        args = [*call.args, *(k.value for k in call.keywords)]
        name = _dotted(f)
        if name is not None:
            head = name.split(".")[0]
            qual = self._scope.qualified(name) if head not in self._local_names else None
            if qual is not None and (qual.startswith("jax.") or qual.startswith("numpy.")):
                leaf = qual.rsplit(".", 1)[-1]
                if (leaf in VIEW_FUNCTIONS or _no_copy(call)) and call.args:
                    return self._refs(call.args[0], s)
                if qual in _TREE_CALLS:
                    # `tree_leaves(p)` gives p's own arrays; `tree_map(f, p)` what f returns,
                    # which may be its argument
                    return set().union(*(self._refs(a, s) for a in args))
                if qual.startswith("jax.lax."):
                    # `lax.cond(p, lambda: x, lambda: z)`, a loop's carry: what the branches
                    # and bodies are given may come back (autojit writes a ternary so)
                    return set().union(*(self._refs(a, s) for a in args))
                if leaf == "where" and len(call.args) == 3:
                    # (autojit writes `y = flag and x` as `jnp.where(flag, x, flag)`)
                    return self._refs(call.args[1], s) | self._refs(call.args[2], s)
                return set()
            if "." not in name and name in _FRESH_BUILTINS and name not in self._local_names:
                if not self._scope.binds(name):
                    return set()
        if isinstance(f, gast.Name) and f.id in self._local_names:
            returned = self._def_call_refs(f.id, call)
            if returned is not None:
                return returned
            # a function of this one (a closure, a lambda): it and what it holds may come back
            out = {f.id} | {n for n in self._closures.get(f.id, ()) if not self._module_name(n)}
            for a in args:
                out |= self._refs(a, s)
            return out
        if isinstance(f, gast.Attribute):
            obj = f.value
            if f.attr in _VIEW_METHODS or f.attr == "view" or _no_copy(call):
                return self._refs(obj, s)
            if self._is_array(obj, s) or _is_at(obj):
                return set()  # an array's method (or `.at[i].set`) makes a new array
            out = self._refs(obj, s)  # `d.get(k)`, `xs.pop()`: what the object holds
        else:
            out = set()
        for a in args:
            out |= self._refs(a, s)  # a user's function may return its argument
        return out

    def _def_call_refs(self, name: str, call) -> set[str] | None:
        """What a call of a function this one defines (`def g(v): return v * 0.5 + x[0]`) may
        hand back: what its `return`s may (`v * 0.5 + x[0]`: nothing), its parameters read as
        the arguments given. None where that is not known: the name is bound otherwise too
        (`g = h`, a parameter), or a definition yields (a generator holds what it reads)."""
        returns = self._returned.get(name)
        if returns is None or name in self._bound_otherwise or name in self._generators:
            return None
        params = self._params.get(name)
        given: dict[str, set[str]] | None = None
        every_arg: set[str] = set()
        if (
            params is not None
            and not call.keywords
            and len(call.args) == len(params)
            and not any(isinstance(a, gast.Starred) for a in call.args)
        ):
            given = {p: self._refs(a, call) for p, a in zip(params, call.args, strict=True)}
        else:  # (a parameter may be any argument)
            for a in [*call.args, *(k.value for k in call.keywords)]:
                every_arg |= self._refs(a, call)
        out = {name} | every_arg
        self._returned[name] = []  # (a recursive function: read once)
        try:
            for r in returns:
                for n in self._refs(r.value, r):
                    out |= given.get(n, {n}) if given is not None else {n}
        finally:
            self._returned[name] = returns
        return out

    def _is_array(self, node, s) -> bool:
        try:
            return self._an.value(node, s).kind in _ARRAYS
        except Exception:  # noqa: BLE001 - a node the analysis has no value for: not known
            return False

    def _module_name(self, name: str) -> bool:
        """A module, an imported name, a module function or class, or a builtin (not bound in
        the function): never one of the arrays or containers it works on."""
        if name in self._local_names:
            return False
        scope = self._scope
        return (
            name in scope.modules
            or name in scope.imported_names
            or name in scope.functions
            or name in scope.classes
            or (name in _BUILTINS and not scope.binds(name))
        )


_BLOCKS = frozenset({"body", "orelse", "finalbody", "handlers"})


_TREE_CALLS = frozenset(
    {
        "jax.tree_util.tree_leaves", "jax.tree.leaves", "jax.tree_util.tree_flatten",
        "jax.tree.flatten", "jax.tree_util.tree_map", "jax.tree.map",
        "jax.tree_util.tree_unflatten", "jax.tree.unflatten",
    }
)  # fmt: skip
_EXITS = (gast.Return, gast.Break, gast.Continue, gast.Raise)


def _live(block) -> list:
    """The statements of ``block`` that can run: up to its first `return`/`break`/`continue`/
    `raise` (what follows never runs, and a conversion drops it: it must not decide what is
    refused, or converting the output again would decide otherwise)."""
    for k, st in enumerate(block):
        if isinstance(st, _EXITS):
            return list(block[: k + 1])
    return list(block)


def _calls_and_walruses(s) -> list:
    """The calls and `:=` of ``s``'s own expressions (not of the statements in its blocks, nor
    of a nested function's or class's body), in the order of ``walk`` over each expression."""
    if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
        return []
    out: list = []
    for field, value in gast.iter_fields(s):
        if field in _BLOCKS:
            continue
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, gast.AST):
                out += [n for n in walk_expression(v) if type(n) in _CALL_OR_WALRUS]
    return out


_CALL_OR_WALRUS = frozenset({gast.Call, gast.NamedExpr})


def _returns_of(fn) -> list:
    """The `return v` statements of a function (not of the functions inside it)."""
    out, stack = [], list(fn.body)
    while stack:
        st = stack.pop()
        if isinstance(st, gast.Return):
            if st.value is not None:
                out.append(st)
            continue
        if isinstance(st, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        for f in ("body", "orelse", "finalbody"):
            stack.extend(getattr(st, f, None) or ())
        for h in getattr(st, "handlers", None) or ():
            stack.extend(h.body)
    return out


def _free_reads(fn) -> set[str]:
    """The names a nested function reads that it does not bind (its enclosing function's)."""
    a = fn.args
    own = {p.id for p in [*a.posonlyargs, *a.args, *a.kwonlyargs] if isinstance(p, gast.Name)}
    own |= {p.id for p in (a.vararg, a.kwarg) if isinstance(p, gast.Name)}
    reads: set[str] = set()
    for st in fn.body:
        for n in walk(st):
            if type(n) is gast.Name:
                if isinstance(n.ctx, gast.Load):
                    reads.add(n.id)
                else:
                    own.add(n.id)
    return reads - own


def _no_copy(call) -> bool:
    """`x.astype(dtype, copy=False)`, `jnp.array(x, copy=None)`, `jnp.nan_to_num(x,
    copy=False)`: x itself where no conversion is needed (NumPy copies only for `copy=True`)."""
    return any(
        k.arg == "copy" and not (isinstance(k.value, gast.Constant) and k.value.value is True)
        for k in call.keywords
    )


def _base_name(node) -> str | None:
    while isinstance(node, (gast.Subscript, gast.Attribute)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def _is_at(node) -> bool:
    return (
        isinstance(node, gast.Subscript)
        and isinstance(node.value, gast.Attribute)
        and (node.value.attr == "at")
    )


def _dotted(node) -> str | None:
    parts = []
    while isinstance(node, gast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, gast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _comprehension_targets(node):
    for gen in getattr(node, "generators", ()) or ():
        for n in walk(gen.target):
            if type(n) is gast.Name:
                yield n.id
    if isinstance(node, gast.Lambda):
        for a in [*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs]:
            if isinstance(a, gast.Name):
                yield a.id


# builtins whose result holds the rows (or items) of their arguments: views of them in NumPy
_ROW_BUILTINS = frozenset(
    {"reversed", "list", "tuple", "iter", "next", "enumerate", "zip", "sorted"}
)
# methods of a container that hand back what it holds
_HOLDER_METHODS = frozenset({"values", "items", "get", "pop", "copy"})


def views_of(node) -> set[str]:
    """The names whose arrays (or rows) ``node`` may be, or hold, in NumPy, without copying:
    ``y`` of ``y``, ``y[::-1]``, ``y.T``, ``y.reshape(...)``, ``jnp.flip(y)``,
    ``reversed(y)``, ``zip(y, z)``, ``next(it)``, ``d.values()``, ``{"a": y[0]}``, either side
    of ``y if c else z``; not ``y.copy()`` (of an array) or ``y * 2``."""
    if isinstance(node, gast.Name):
        return {node.id}
    if isinstance(node, (gast.Subscript, gast.Starred)):
        return views_of(node.value)
    if isinstance(node, gast.Attribute) and node.attr in _VIEW_ATTRIBUTES:
        return views_of(node.value)
    if isinstance(node, gast.IfExp):
        return views_of(node.body) | views_of(node.orelse)
    if isinstance(node, gast.BoolOp):
        return set().union(*(views_of(v) for v in node.values))
    if isinstance(node, gast.NamedExpr):
        return views_of(node.value)
    if isinstance(node, (gast.Tuple, gast.List, gast.Set)):
        return set().union(*(views_of(e) for e in node.elts))
    if isinstance(node, gast.Dict):
        return set().union(*(views_of(v) for v in node.values))
    if isinstance(node, gast.Call):
        f = node.func
        if _no_copy(node):  # (`jnp.array(y, copy=False)`, `y.astype(t, copy=None)`: y itself)
            first = views_of(node.args[0]) if node.args else set()
            return first | (views_of(f.value) if isinstance(f, gast.Attribute) else set())
        if isinstance(f, gast.Name) and f.id in _ROW_BUILTINS:
            return set().union(*(views_of(a) for a in node.args))
        if isinstance(f, gast.Attribute):
            out: set[str] = set()
            if f.attr in _VIEW_METHODS or f.attr in _HOLDER_METHODS and f.attr != "copy":
                out |= views_of(f.value)  # (`y.reshape(-1)`, read as `jnp.reshape(y)` too)
            if f.attr in VIEW_FUNCTIONS and node.args:
                out |= views_of(node.args[0])
            return out
    return set()


def viewed_through(env: dict, name: str) -> list[str]:
    """The names whose arrays ``name`` holds a view of by the values analysis's environment
    ``env`` (`y = x[1:]`, the row `r` of `for r in x`), through a chain of such views."""
    out: list[str] = []
    held = env.get(name)
    while held is not None and held.alias_of is not None and len(out) < 16:
        if held.alias_of == name or held.alias_of in out:
            break
        out.append(held.alias_of)
        held = env.get(held.alias_of)
    return out

