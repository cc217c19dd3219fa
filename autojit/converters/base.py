"""What every converter gets: the function, its analyses, the file, and a place to report."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import gast

from ..analysis import FunctionAnalysis, Kind, dotted_name
from ..analysis.activity import expr_activity, function_free_reads, names_in
from ..gastconv import NodeTransformer
from ..model import Change, Location, Refusal
from ..scope import ModuleScope
from ..source import SourceText

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*))?", re.I)


def word_char(c: str) -> bool:
    """Whether ``c`` can be part of a word (what `\\w` matches in a str pattern)."""
    return c.isalnum() or c == "_"


class WordTrigger:
    """``re.compile(r"\\b(?:WORD|...)TAIL|OTHER").search``, faster: the words are searched with
    no leading ``\\b`` (a pattern the engine scans for several times faster), each hit checked
    for a word start by hand (a hit inside a word hides no other: what starts inside it is
    inside a word too, and ``TAIL`` must not match a word character's start, as ``\\b`` or
    ``\\s*\\(`` do not); ``OTHER`` only where no word is."""

    def __init__(self, words: str, other: str | None = None, *, tail: str = r"\b") -> None:
        self.words = re.compile(rf"(?:{words}){tail}")
        self.other = re.compile(other) if other else None

    def search(self, text: str) -> re.Match[str] | None:
        for m in self.words.finditer(text):
            i = m.start()
            if i == 0 or not word_char(text[i - 1]):
                return m
        return self.other.search(text) if self.other is not None else None


@dataclass
class Options:
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    line_origins: bool = False  # give each changed function its new lines' original lines

    def enabled(self, code: str) -> bool:
        if self.select and not any(code.startswith(p) for p in self.select):
            return False
        return not any(code.startswith(p) for p in self.ignore)


# Refusals that only report Python code kept because it already works under jit.
INFORMATIONAL_REFUSALS = frozenset({"AJ930"})


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


def _user_functions(fn) -> list[tuple[gast.AST, str, set[str]]]:
    """(statement, name, free reads) for each function the user's ``fn`` defines (`def`, and a
    lambda assigned to a name), found once per function (on its first question, before the
    converters' own branch and loop functions exist, or among them: those take what they read
    as parameters)."""
    found = fn.__dict__.get("_aj_user_functions")
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
        fn._aj_user_functions = found
    return found


def closures_outside(fn, block: list) -> dict[str, set[str]]:
    """The functions ``fn`` defines outside ``block`` (`def` statements and lambdas assigned to a
    name), each with the names of ``fn`` it reads when called (a closure calling another reads
    what that one reads)."""
    functions = _user_functions(fn)
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
        for st, name, _reads in _user_functions(fn)
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


def python_value_use(stmts: list, names: set[str]) -> tuple[str, str] | None:
    """(name, what) for a use in ``stmts`` (their own expressions: a compound statement's head,
    not its body) of one of ``names`` (Python numbers or bools that a conversion makes traced
    values) whose meaning is Python's only: `is` / `is not`, `isinstance`, `type`, `str`, an
    f-string field, or an integer power of a Python int (`2 ** -k`: 0.25 of Python ints, 0 of
    int32)."""
    if not names:
        return None
    for st in stmts:
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
                while isinstance(parent, gast.UnaryOp):
                    node, parent = parent, parents.get(id(parent))
                if isinstance(parent, gast.Compare) and any(
                    isinstance(op, (gast.Is, gast.IsNot)) for op in parent.ops
                ):
                    return n.id, "an `is` test"
                if (
                    isinstance(parent, gast.Call)
                    and isinstance(parent.func, gast.Name)
                    and parent.func.id in _PYTHON_ONLY_CALLS
                    and node in parent.args
                ):
                    return n.id, f"`{parent.func.id}()`"
                if isinstance(parent, gast.FormattedValue):
                    joined = parents.get(id(parent))
                    call = parents.get(id(joined))
                    printed = (
                        isinstance(call, gast.Call)
                        and isinstance(call.func, gast.Name)
                        and call.func.id == "print"
                    )
                    if not printed:  # (a print of a traced value becomes jax.debug.print)
                        return n.id, "an f-string"
                if isinstance(parent, gast.BinOp) and isinstance(parent.op, gast.Pow):
                    other = parent.left if node is parent.right else parent.right
                    if isinstance(other, gast.Constant) and type(other.value) is int:
                        return n.id, "an integer power"
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


def stateful_call(ctx: Context, an: FunctionAnalysis, call, s) -> bool:
    """A call whose Python value changes from call to call: `next(it)`, `random.random()`,
    `np.random.rand()`, or a method of a module-level object (`RS.rand()`, a NumPy
    RandomState) giving a Python value (a traced one is computed in the loop body, fine)."""
    name = dotted_name(call.func)
    if name is None:
        return False
    head = name.split(".")[0]
    local = head in an.values.locals
    if "." not in name:
        return name in _STATEFUL_BUILTINS and not local and not ctx.scope.binds(name)
    qual = ctx.scope.qualified(name) if not local else None
    if qual is not None and qual.startswith(_STATEFUL_MODULES):
        return True
    if local and name.rsplit(".", 1)[-1] in _STATEFUL_METHODS:
        # `rng = np.random.default_rng(0)` in the function: its draws change from call to call
        return _bound_to_a_generator(ctx, an.fn, head)
    if local or head in ctx.scope.modules or head in ctx.scope.imported_names:
        return False
    # `RS.rand()`: a random generator's (or an iterator's) method on a module-level object
    return (
        name.rsplit(".", 1)[-1] in _STATEFUL_METHODS
        and head in ctx.scope.assigned
        and not an.value(call, s).traced
    )




def _bound_to_a_generator(ctx: Context, fn, name: str) -> bool:
    """Whether ``fn`` assigns ``name`` an object made by `random` / `numpy.random`
    (`np.random.default_rng(0)`, `random.Random(1)`)."""
    for st in walk_statements(fn.body):
        if (
            isinstance(st, gast.Assign)
            and any(isinstance(t, gast.Name) and t.id == name for t in st.targets)
            and isinstance(st.value, gast.Call)
        ):
            called = dotted_name(st.value.func)
            qual = ctx.scope.qualified(called) if called else None
            if qual is not None and qual.startswith(_STATEFUL_MODULES):
                return True
    return False


def first_refused(stmts):
    """The first statement in ``stmts`` (at any depth) that a converter refused to rewrite."""
    for s in walk_statements(stmts, into_functions=True):
        if getattr(s, "_aj_refused", None):
            return s
    return None


class Names:
    """The file's own names for jax, jax.numpy and jax.lax; records the imports it must add."""

    def __init__(self, scope: ModuleScope) -> None:
        self.scope = scope
        self.needed: set[str] = set()

    def _module(self, module: str, default_alias: str) -> str:
        alias = self.scope.alias_for(module)
        if alias:
            return alias
        parent, _, leaf = module.rpartition(".")
        if parent:
            p = self.scope.alias_for(parent)
            if p:
                return f"{p}.{leaf}"
        head = default_alias.partition(".")[0]
        if head != "jax" and self._bound(head) and not self._bound("jax"):
            # the file's `jnp` is something else (`from jax._src import numpy as jnp`): adding
            # `import jax.numpy as jnp` would rebind it for the whole module; use `jax.numpy`
            self.needed.add("jax")
            self.scope.pending.setdefault("jax", "jax")
            return module
        self.needed.add(module)
        # the analyses of the code generated from here on resolve it as the import will
        self.scope.pending.setdefault(head, "jax" if head == "jax" else module)
        return default_alias

    def _bound(self, name: str) -> bool:
        return self.scope.binds(name)

    @property
    def jnp(self) -> str:
        return self._module("jax.numpy", "jnp")

    @property
    def lax(self) -> str:
        return self._module("jax.lax", "jax.lax")

    @property
    def jax(self) -> str:
        return self._module("jax", "jax")


@dataclass
class Context:
    path: str
    source: SourceText
    scope: ModuleScope
    fn: gast.FunctionDef
    analysis: FunctionAnalysis
    names: Names
    options: Options
    changes: list[Change] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    counter: dict[str, int] = field(default_factory=dict)
    # the function's parameters whose items a rewrite now updates functionally (NumPy changed
    # the caller's array there: the decorator checks the callers it binds, AJ908)
    updated_params: set[str] = field(default_factory=set)
    # the line reported for a node with no position (generated) in a function with none (a
    # branch function a converter made and converts again)
    fallback_line: int = 1
    # set by a converter that changed the tree without reporting a change (statements another
    # converter rewrote, put back as written): the analyses must be computed afresh
    tree_changed: bool = False

    def location(self, node) -> Location:
        line = getattr(node, "lineno", None) or getattr(self.fn, "lineno", None)
        line = line or self.fallback_line
        col = getattr(node, "col_offset", None)
        col = self.source.char_col(line, col) + 1 if col is not None else 1
        end_line = getattr(node, "end_lineno", None) or line
        end_col = getattr(node, "end_col_offset", None)
        end_col = self.source.char_col(end_line, end_col) + 1 if end_col is not None else col
        return Location(self.path, line, col, end_line, end_col)

    def noqa(self, code: str, node) -> bool:
        line = getattr(node, "lineno", None)
        if line is None:
            return False
        for ln in {line, getattr(node, "end_lineno", line) or line}:
            m = _NOQA.search(self.source.line_text(ln))
            if m:
                codes = m.group("codes")
                if codes is None or any(
                    code.startswith(c.strip().upper()) for c in codes.split(",")
                ):
                    return True
        return False

    def allowed(self, code: str, node) -> bool:
        return self.options.enabled(code) and not self.noqa(code, node)

    def change(self, code: str, node, message: str) -> None:
        self.changes.append(Change(code, self.location(node), message))

    def refuse(self, code: str, node, reason: str) -> None:
        if code not in INFORMATIONAL_REFUSALS and isinstance(node, gast.stmt):
            # left as it is: no later rewrite may move it into generated code (where the
            # analysis that refused it could not see what it saw), see `first_refused`
            node._aj_refused = code
        if self.options.enabled(code) and not self.noqa(code, node):
            self.refusals.append(Refusal(code, self.location(node), reason))

    def fresh(self, base: str) -> str:
        """A helper name not used anywhere in the function or module."""
        taken = self._taken()
        n = self.counter.get(base, 0)
        while True:
            candidate = base if n == 0 else f"{base}_{n}"
            n += 1
            if candidate not in taken:
                self.counter[base] = n
                taken.add(candidate)
                return candidate

    def _taken(self) -> set[str]:
        if not hasattr(self, "_taken_names"):
            names = set(self.scope.modules) | set(self.scope.imported_names) | self.scope.assigned
            names |= set(self.scope.functions) | self.scope.classes
            names |= names_in(self.fn)  # its Name ids and def / class names
            self._taken_names = names
        return self._taken_names


def walk_statements(stmts: Iterable, into_functions: bool = False) -> list:
    """Every statement in a block, depth first, children before the statement holding them
    (listed at once: a recursive generator costs a frame per level for every statement)."""
    out: list = []
    _statements_into(stmts, into_functions, out)
    return out


_DEFINITIONS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)


def _statements_into(stmts: Iterable, into_functions: bool, out: list) -> None:
    for s in list(stmts):
        if not into_functions and isinstance(s, _DEFINITIONS):
            out.append(s)
            continue
        for f in ("body", "orelse", "finalbody"):
            block = getattr(s, f, None)
            if block:
                _statements_into(block, into_functions, out)
        for h in getattr(s, "handlers", None) or ():
            _statements_into(h.body, into_functions, out)
        out.append(s)


def blocks_of(stmt):
    """The statement lists directly inside a statement, as (owner, field) pairs."""
    for f in ("body", "orelse", "finalbody"):
        if isinstance(getattr(stmt, f, None), list):
            yield stmt, f
    for h in getattr(stmt, "handlers", []) or []:
        yield h, "body"


def is_index_dtype_choice(node) -> bool:
    """autojit's own `A if jnp.result_type(index) == jnp.bool_ else B` (AJ304 / AJ403 output),
    which already handles an index that may be a mask or integers."""
    t = node.test if isinstance(node, gast.IfExp) else None
    return (
        isinstance(t, gast.Compare)
        and isinstance(t.left, gast.Call)
        and isinstance(t.left.func, gast.Attribute)
        and t.left.func.attr == "result_type"
    )


class StatementExpressionRewriter(NodeTransformer):
    """Rewrites the expressions of one statement. It does not enter nested functions or
    lambdas (their names are not in this statement's analysis), nor autojit's own dtype choice
    on an index, so converting the output again changes nothing."""

    def __init__(self, ctx: Context, stmt) -> None:
        self.ctx = ctx
        self.stmt = stmt

    def visit_FunctionDef(self, node):
        return node

    def visit_Lambda(self, node):
        return node

    def visit_IfExp(self, node):
        if is_index_dtype_choice(node):
            return node
        self.generic_visit(node)
        return node
