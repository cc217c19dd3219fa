"""Activity analysis: the names each statement reads, writes and mutates.

Computed once per function over the gast tree. For a compound statement (if/for/while/with/try)
the sets cover its header and every statement inside it. A nested function or lambda reads the
free names of its body; a comprehension's own targets are not visible outside it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gast

from ..gastconv import ChildFields


@dataclass
class Activity:
    reads: set[str] = field(default_factory=set)
    writes: set[str] = field(default_factory=set)
    # names whose value is changed in place: x[i] = ..., x.attr = ..., x[i] += ...
    mutates: set[str] = field(default_factory=set)
    # names declared global/nonlocal inside
    nonlocal_: set[str] = field(default_factory=set)

    def update(self, other: Activity) -> None:
        self.reads |= other.reads
        self.writes |= other.writes
        self.mutates |= other.mutates
        self.nonlocal_ |= other.nonlocal_


def _base_name(node: gast.AST) -> str | None:
    while isinstance(node, (gast.Subscript, gast.Attribute)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


class _ExprNames(gast.NodeVisitor):
    """Names loaded and stored by an expression, scoping lambdas and comprehensions."""

    def __init__(self) -> None:
        self.reads: set[str] = set()
        self.writes: set[str] = set()
        self.mutates: set[str] = set()

    def visit_Name(self, node: gast.Name) -> None:
        if isinstance(node.ctx, gast.Load):
            self.reads.add(node.id)
        elif isinstance(node.ctx, (gast.Store, gast.Del)):
            self.writes.add(node.id)

    def visit_Subscript(self, node: gast.Subscript) -> None:
        if isinstance(node.ctx, (gast.Store, gast.Del)):
            base = _base_name(node)
            if base:
                self.mutates.add(base)
                self.reads.add(base)
            sub = _ExprNames()
            sub.visit(node.slice)
            self._merge_reads(sub)
            inner = node.value
            while isinstance(inner, (gast.Subscript, gast.Attribute)):
                if isinstance(inner, gast.Subscript):
                    s2 = _ExprNames()
                    s2.visit(inner.slice)
                    self._merge_reads(s2)
                inner = inner.value
            return
        self.generic_visit(node)

    def visit_Attribute(self, node: gast.Attribute) -> None:
        if isinstance(node.ctx, (gast.Store, gast.Del)):
            base = _base_name(node)
            if base:
                self.mutates.add(base)
                self.reads.add(base)
            return
        self.generic_visit(node)

    def visit_NamedExpr(self, node: gast.NamedExpr) -> None:
        self.visit(node.value)
        self.writes.add(node.target.id)

    def _merge_reads(self, other: _ExprNames) -> None:
        self.reads |= other.reads
        self.writes |= other.writes

    def _scoped(self, bound: set[str], nodes: list) -> None:
        inner = _ExprNames()
        for n in nodes:
            inner.visit(n)
        self.reads |= inner.reads - bound

    def visit_Lambda(self, node: gast.Lambda) -> None:
        for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            self.visit(d)
        self._scoped(_param_names(node.args), [node.body])

    def _comprehension(self, node, elts: list) -> None:
        bound: set[str] = set()
        for i, gen in enumerate(node.generators):
            if i == 0:
                self.visit(gen.iter)
            t = _ExprNames()
            t.visit(gen.target)
            bound |= t.writes
        later = [g.iter for g in node.generators[1:]]
        conds = [c for g in node.generators for c in g.ifs]
        self._scoped(bound, elts + later + conds)

    def visit_ListComp(self, node) -> None:
        self._comprehension(node, [node.elt])

    visit_SetComp = visit_ListComp
    visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node) -> None:
        self._comprehension(node, [node.key, node.value])


def _param_names(args: gast.arguments) -> set[str]:
    names = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    if args.vararg:
        names.add(args.vararg.id)
    if args.kwarg:
        names.add(args.kwarg.id)
    return names


def param_names(args: gast.arguments) -> list[str]:
    out = [a.id for a in args.posonlyargs + args.args]
    if args.vararg:
        out.append(args.vararg.id)
    out += [a.id for a in args.kwonlyargs]
    if args.kwarg:
        out.append(args.kwarg.id)
    return out


def expr_activity(node: gast.AST | None) -> Activity:
    act = Activity()
    if node is None:
        return act
    if type(node).__module__ != _GAST:  # a plain ast node: the visitor reads both
        v = _ExprNames()
        v.visit(node)
        act.reads, act.writes, act.mutates = v.reads, v.writes, v.mutates
        return act
    _names(node, act.reads, act.writes, act.mutates)
    return act


_GAST = gast.Name.__module__


def _add_expr(act: Activity, node) -> None:
    """``act.update(expr_activity(node))``, adding to ``act``'s sets directly."""
    if type(node).__module__ == _GAST:
        _names(node, act.reads, act.writes, act.mutates)
    else:
        act.update(expr_activity(node))


# What `_ExprNames` computes, as one function dispatching on the node's class (the visitor's
# method lookups and generic visits cost a fifth of the analyses).
_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.GeneratorExp)
_NOT_NODES = frozenset({"ctx", "op", "ops", "id", "attr", "kind", "type_comment", "conversion"})
_FIELDS = ChildFields(_NOT_NODES)


_Name, _Load, _Store, _Del, _Constant, _AST = (
    gast.Name,
    gast.Load,
    gast.Store,
    gast.Del,
    gast.Constant,
    gast.AST,
)
_Attribute, _Call = gast.Attribute, gast.Call
_Assign, _Expr, _Return, _If = gast.Assign, gast.Expr, gast.Return, gast.If
# the classes `_names` treats apart (any other: its children's names)
_SPECIAL = frozenset({gast.Subscript, gast.Attribute, gast.NamedExpr, gast.Lambda, gast.DictComp,
                      *_COMPREHENSIONS})  # fmt: skip


def _names(node, reads: set[str], writes: set[str], mutates: set[str]) -> None:
    t = type(node)
    if t is _Name:
        c = type(node.ctx)
        if c is _Load:
            reads.add(node.id)
        elif c is _Store or c is _Del:
            writes.add(node.id)
        return
    # the next commonest, their children visited directly (what the field loop below does)
    if t is _Attribute and not isinstance(node.ctx, (_Store, _Del)):
        _names(node.value, reads, writes, mutates)
        return
    if t is _Call:
        _names(node.func, reads, writes, mutates)
        for a in node.args:
            _names(a, reads, writes, mutates)
        for k in node.keywords:
            _names(k.value, reads, writes, mutates)
        return
    if t is _Constant:
        return  # (no name in it)
    if t not in _SPECIAL:
        pass
    elif t is gast.Subscript:
        if isinstance(node.ctx, (gast.Store, gast.Del)):
            base = _base_name(node)
            if base:
                mutates.add(base)
                reads.add(base)
            _names(node.slice, reads, writes, set())
            inner = node.value
            while isinstance(inner, (gast.Subscript, gast.Attribute)):
                if isinstance(inner, gast.Subscript):
                    _names(inner.slice, reads, writes, set())
                inner = inner.value
            return
    elif t is gast.Attribute:
        if isinstance(node.ctx, (gast.Store, gast.Del)):
            base = _base_name(node)
            if base:
                mutates.add(base)
                reads.add(base)
            return
    elif t is gast.NamedExpr:
        _names(node.value, reads, writes, mutates)
        writes.add(node.target.id)
        return
    elif t is gast.Lambda:
        a = node.args
        for d in a.defaults + [d for d in a.kw_defaults if d is not None]:
            _names(d, reads, writes, mutates)
        inner_reads: set[str] = set()
        _names(node.body, inner_reads, set(), set())
        reads |= inner_reads - _param_names(a)
        return
    elif t in _COMPREHENSIONS or t is gast.DictComp:
        elts = [node.key, node.value] if t is gast.DictComp else [node.elt]
        bound: set[str] = set()
        gens = node.generators
        for i, gen in enumerate(gens):
            if i == 0:
                _names(gen.iter, reads, writes, mutates)
            _names(gen.target, set(), bound, set())
        inner_reads = set()
        for n in elts + [g.iter for g in gens[1:]] + [c for g in gens for c in g.ifs]:
            _names(n, inner_reads, set(), set())
        reads |= inner_reads - bound
        return
    fields = _FIELDS[t]
    for f in fields:
        v = getattr(node, f, None)
        if type(v) is list:
            for c in v:
                if isinstance(c, _AST):
                    _names(c, reads, writes, mutates)
        elif v is not None and isinstance(v, _AST):
            _names(v, reads, writes, mutates)


def function_free_reads(fn, inner: ActivityAnalysis | None = None) -> set[str]:
    """Names a nested function (or lambda body) reads from its enclosing scope (``inner``: a
    fresh analysis for ``fn``'s statements, which this fills)."""
    if inner is None:
        inner = ActivityAnalysis()
    body = Activity()
    for s in fn.body:
        body.update(inner.of(s))
    local = _param_names(fn.args) | (body.writes - body.nonlocal_)
    return body.reads - local


class ActivityAnalysis:
    """Per-statement activity, memoised by node identity."""

    def __init__(self) -> None:
        self._cache: dict[int, Activity] = {}
        # the nodes of `_cache`, kept alive: a freed node's id may be given to a new node, which
        # would then find the freed one's activity
        self._keys: list[gast.AST] = []
        # the analyses of the functions defined here, filled for their free reads: handed to
        # their own FunctionAnalysis (see `take_nested`), which would compute the same again
        self._nested: dict[int, ActivityAnalysis] = {}

    def take_nested(self, fn: gast.AST) -> ActivityAnalysis | None:
        """The analysis of the statements of ``fn``, a function defined in this one, as made for
        its free reads (None if it was not): for the analysis of ``fn`` made right after this
        one's, on the same tree. It is handed over once."""
        return self._nested.pop(id(fn), None)

    def of(self, stmt: gast.AST) -> Activity:
        act = self._cache.get(id(stmt))
        if act is None:
            act = self._cache[id(stmt)] = self._compute(stmt)
            self._keys.append(stmt)
        return act

    def of_block(self, stmts: list) -> Activity:
        act = Activity()
        for s in stmts:
            act.update(self.of(s))
        return act

    def _compute(self, stmt: gast.AST) -> Activity:
        act = Activity()
        t = type(stmt)
        # the commonest statements first: what the field loop at the end gives them, in its order
        if t is _Assign:
            for target in stmt.targets:
                _add_expr(act, target)
            _add_expr(act, stmt.value)
            return act
        if t is _Expr or t is _Return:
            if stmt.value is not None:
                _add_expr(act, stmt.value)
            return act
        if t is _If:
            _add_expr(act, stmt.test)
            for item in stmt.body:
                act.update(self.of(item))
            for item in stmt.orelse:
                act.update(self.of(item))
            return act
        if isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef)):
            for d in stmt.decorator_list:
                act.update(expr_activity(d))
            for d in stmt.args.defaults + [d for d in stmt.args.kw_defaults if d is not None]:
                act.update(expr_activity(d))
            inner = self._nested[id(stmt)] = ActivityAnalysis()
            act.reads |= function_free_reads(stmt, inner)
            act.writes.add(stmt.name)
            return act
        if isinstance(stmt, gast.ClassDef):
            for d in stmt.decorator_list + stmt.bases:
                act.update(expr_activity(d))
            act.writes.add(stmt.name)
            return act
        if isinstance(stmt, (gast.Global, gast.Nonlocal)):
            act.nonlocal_ |= set(stmt.names)
            return act
        if isinstance(stmt, gast.AugAssign):
            act.update(expr_activity(stmt.value))
            t = expr_activity(stmt.target)
            act.update(t)
            if isinstance(stmt.target, gast.Name):
                act.reads.add(stmt.target.id)
                act.writes.add(stmt.target.id)
            return act
        for field_name in stmt._fields:  # (gast.iter_fields, without its generator)
            try:
                value = getattr(stmt, field_name)
            except AttributeError:
                continue
            if type(value) is list:
                for item in value:
                    if isinstance(item, gast.stmt):
                        act.update(self.of(item))
                    elif isinstance(item, gast.ExceptHandler):
                        if item.type is not None:
                            act.update(expr_activity(item.type))
                        if item.name is not None:
                            act.writes.add(item.name.id if hasattr(item.name, "id") else item.name)
                        act.update(self.of_block(item.body))
                    elif isinstance(item, gast.withitem):
                        act.update(expr_activity(item.context_expr))
                        act.update(expr_activity(item.optional_vars))
                    elif isinstance(item, gast.match_case):
                        act.update(expr_activity(item.guard))
                        act.update(self.of_block(item.body))
                    elif isinstance(item, gast.AST):
                        _add_expr(act, item)
            elif isinstance(value, gast.AST) and field_name not in ("type_comment",):
                _add_expr(act, value)
        return act


def names_in(root) -> set[str]:
    """Every ``Name`` id in ``root``, and the name of every ``def`` / ``class`` (not ``async
    def``) in it, ``root`` included: a walk of ``gast.walk``'s nodes, without its cost."""
    out: set[str] = set()
    stack = [root]
    pop, push, AST = stack.pop, stack.append, gast.AST
    Name, defs = gast.Name, (gast.FunctionDef, gast.ClassDef)
    while stack:
        node = pop()
        t = type(node)
        if t is Name:
            out.add(node.id)
        elif t in defs:
            out.add(node.name)
        fields = _WALK_FIELDS[t]
        for f in fields:
            v = getattr(node, f, None)
            if type(v) is list:
                for c in v:
                    if isinstance(c, AST):
                        push(c)
            elif v is not None and isinstance(v, AST):
                push(v)
    return out


_WALK_FIELDS = ChildFields(("ctx", "op", "ops", "kind", "type_comment"))


def contains(root, kinds: tuple[type, ...]) -> bool:
    """Whether ``root`` or a node inside it is of one of the classes ``kinds`` (exactly)."""
    stack = [root]
    pop, push, AST = stack.pop, stack.append, gast.AST
    while stack:
        node = pop()
        t = type(node)
        if t in kinds:
            return True
        fields = _WALK_FIELDS[t]
        for f in fields:
            v = getattr(node, f, None)
            if type(v) is list:
                for c in v:
                    if isinstance(c, AST):
                        push(c)
            elif v is not None and isinstance(v, AST):
                push(v)
    return False
