"""Fast ``ast`` <-> ``gast`` conversion, node for node the same trees as gast's own.

``gast.ast_to_gast`` / ``gast.gast_to_ast`` are ``NodeTransformer``s: a method lookup, a dict
of keyword arguments and several ``hasattr`` calls per node. These convert with one function
per node class, made once from the class's fields, and give exactly the trees gast gives (the
same classes, fields, positions; ``arg`` -> ``Name(ctx=Param)``, ``type_params=[]`` on
definitions, an ``except ... as name`` name as a ``Name`` without position, and back).

Also ``walk`` (the nodes ``ast.walk`` yields, as one list) and a ``NodeTransformer`` that
visits as gast's does with less overhead per node.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

import gast

Converter = Callable[[Any], Any]


_new_node = ast.AST.__new__  # a node with no attributes set (its class's __init__ not run)


def _empty_list() -> list:
    return []


class _Table(dict):
    """type(node) -> the function converting such a node (made on first use)."""

    def __init__(
        self,
        target: Any,
        special: Callable[[_Table, type], Converter | None],
        positions: bool | str = True,
        marks: bool = False,
    ) -> None:
        super().__init__()
        self.target = target
        self.special = special
        # True: copy the nodes' positions (lineno...); False: none; "line 1": every positioned
        # node at line 1, column 0 (all that ast.unparse needs)
        self.positions = positions
        # each new node marked original as it is made (what `render.mark_original` writes)
        self.marks = marks

    def locate(self, new: Any, node: Any) -> Any:
        """``ast.copy_location(new, node)``, as this table places nodes."""
        if self.positions == "line 1":
            new.lineno = new.end_lineno = 1
            new.col_offset = new.end_col_offset = 0
            return new
        return ast.copy_location(new, node) if self.positions else new

    def __missing__(self, kind: type) -> Converter:
        fn = self.special(self, kind)
        if fn is not None and self.marks and not getattr(fn, "marks", False):
            fn = _marking(fn)
        fn = fn or self._generic(kind)
        self[kind] = fn
        return fn

    def _generic(self, kind: type) -> Converter:
        new_cls = getattr(self.target, kind.__name__, None)
        if new_cls is None:
            return _none
        return self.make(kind, new_cls)

    def make(
        self,
        kind: Any,
        new_cls: Any,
        drop: tuple[str, ...] = (),
        extra: tuple[tuple[str, Callable[[], Any]], ...] = (),
        ast_location: bool = False,
    ) -> Converter:
        """A converter from ``kind`` to ``new_cls``: each field of ``kind`` but ``drop``
        converted, in order, then the ``extra`` fields (name, value factory), then the position
        attributes where ``new_cls`` has them: copied as gast's generic visit does, or as
        ``ast.copy_location`` does (``ast_location``)."""
        fields = tuple(f for f in kind._fields if f not in drop)
        copy_attrs: tuple[str, ...] = ()
        if self.positions is True:
            copy_attrs = tuple(a for a in kind._attributes if a in new_cls._attributes)
        checked = frozenset(("lineno", "col_offset")) if ast_location else frozenset()
        line_1 = self.positions == "line 1" and "lineno" in new_cls._attributes
        table, new_node, AST = self, _new_node, ast.AST

        if self.marks and not line_1 and not checked:
            return _marked_plain(self, new_cls, fields, copy_attrs, extra)

        if not extra and not line_1 and not checked:
            # the common case, kept lean: fields, then positions copied as they are

            def plain(node: Any) -> Any:
                new: Any = new_node(new_cls)
                d = new.__dict__
                for field in fields:
                    try:
                        v = getattr(node, field)
                    except AttributeError:
                        continue
                    if type(v) is list:
                        d[field] = [table[type(x)](x) if isinstance(x, AST) else x for x in v]
                    elif isinstance(v, AST):
                        d[field] = table[type(v)](v)
                    else:
                        d[field] = v
                for attr in copy_attrs:
                    try:
                        d[attr] = getattr(node, attr)
                    except AttributeError:
                        pass
                return new

            return plain

        def conv(node: Any) -> Any:
            new: Any = new_node(new_cls)
            d = new.__dict__
            for field in fields:
                try:
                    v = getattr(node, field)
                except AttributeError:
                    continue
                if type(v) is list:
                    d[field] = [table[type(x)](x) if isinstance(x, AST) else x for x in v]
                elif isinstance(v, AST):
                    d[field] = table[type(v)](v)
                else:
                    d[field] = v
            for field, value in extra:
                d[field] = value()
            if line_1:
                d["lineno"] = d["end_lineno"] = 1
                d["col_offset"] = d["end_col_offset"] = 0
            for attr in copy_attrs:
                try:
                    v = getattr(node, attr)
                except AttributeError:
                    continue
                if v is not None or attr not in checked:
                    d[attr] = v
            return new

        return conv

    def item(self, x: Any) -> Any:
        return self[type(x)](x) if isinstance(x, ast.AST) else x

    def __call__(self, node: Any) -> Any:
        if isinstance(node, list):
            return [self.item(x) for x in node]
        return self.item(node)


def _none(node: Any) -> None:
    return None


# -- marks of the original nodes ------------------------------------------------------------------
# (`render.mark_original`'s attributes, written as each node is made: ``_aj_orig``; for a node
# other than a context or operator, ``_aj_children`` (the ids of its child nodes, contexts and
# operators left out), ``_aj_span`` (it has a position) and ``_aj_orig_<block>`` (a copy of each
# statement list); a context or operator gets ``_aj_children = ()``.)

# fields of gast nodes that never hold a node
SCALAR_FIELDS = frozenset({"id", "attr", "kind", "type_comment", "conversion", "is_async", "level",
                           "module", "arg", "asname"})  # fmt: skip
BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers")
_LEAF_BASES = (gast.expr_context, gast.operator, gast.unaryop, gast.cmpop, gast.boolop)
# the gast classes of nodes that are children (contexts and operators are not)
CHILD_CLASSES = frozenset(
    c
    for c in vars(gast).values()
    if isinstance(c, type) and issubclass(c, gast.AST) and not issubclass(c, _LEAF_BASES)
)


def _mark_info(new_cls: type) -> tuple[bool, tuple[str, ...], bool, bool, bool]:
    """(context or operator, the fields that may hold child nodes, whether the class has
    ``end_lineno`` / ``lineno`` itself, whether it holds statement blocks)."""
    fields = tuple(new_cls._fields)
    return (
        issubclass(new_cls, _LEAF_BASES),
        tuple(f for f in fields if f not in SCALAR_FIELDS),
        hasattr(new_cls, "end_lineno"),
        hasattr(new_cls, "lineno"),
        "body" in fields or "handlers" in fields,
    )


def mark_node(new: Any) -> Any:
    """Mark a node original, and the nodes in it not marked yet (a special converter's own
    nodes: ``gast.Param()``, an except handler's name)."""
    leaf, mfields, has_end, has_line, blocks = _MARK_INFO[type(new)]
    d = new.__dict__
    d["_aj_orig"] = True
    if leaf:
        d["_aj_children"] = ()
        return new
    kids = []
    child = CHILD_CLASSES
    for f in mfields:
        v = d.get(f)
        for x in v if type(v) is list else (v,):
            if isinstance(x, gast.AST):
                if "_aj_orig" not in x.__dict__:
                    mark_node(x)
                if type(x) in child:
                    kids.append(id(x))
    d["_aj_children"] = tuple(kids)
    if ("end_lineno" in d or has_end) and ("lineno" in d or has_line):
        d["_aj_span"] = True
    if blocks:
        for f in BLOCK_FIELDS:
            blk = d.get(f)
            if type(blk) is list:
                d["_aj_orig_" + f] = list(blk)
    return new


class _MarkInfo(dict):
    def __missing__(self, kind: type) -> tuple[bool, tuple[str, ...], bool, bool, bool]:
        info = self[kind] = _mark_info(kind)
        return info


_MARK_INFO = _MarkInfo()


def _marking(fn: Converter) -> Converter:
    def marked(node: Any) -> Any:
        new = fn(node)
        return mark_node(new) if new is not None else new

    return marked


# list fields that may hold other than child nodes (None, a string, an operator)
_MIXED_LISTS = frozenset({"ops", "kw_defaults", "keys", "names", "kwd_attrs"})
_POSITIONS = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def _marked_plain(
    table: _Table,
    new_cls: Any,
    fields: tuple[str, ...],
    copy_attrs: tuple[str, ...],
    extra: tuple[tuple[str, Callable[[], Any]], ...],
) -> Converter:
    """``_Table.make``'s converter, each new node marked as :func:`mark_node` marks it, in the
    same pass (the child ids listed in the gast class's field order)."""
    leaf, mfields, has_end, has_line, blocks = _MARK_INFO[new_cls]
    new_node, AST, child = _new_node, ast.AST, CHILD_CLASSES
    if leaf:  # a context or operator: no fields, no position

        def leaf_node(node: Any) -> Any:
            new: Any = new_node(new_cls)
            d = new.__dict__
            d["_aj_orig"] = True
            d["_aj_children"] = ()
            return new

        leaf_node.marks = True  # type: ignore[attr-defined]
        return leaf_node
    block_fields = tuple(f for f in BLOCK_FIELDS if f in new_cls._fields) if blocks else ()
    # the children listed as they are converted where the fields come in the gast class's
    # order (all classes but `arguments`; the extra fields hold no node)
    in_order = [f for f in fields if f in mfields] == [f for f in mfields if f in fields]
    in_order = in_order and all(f in fields or f in (e[0] for e in extra) for f in mfields)

    if not extra and in_order and set(fields) == set(new_cls._fields):
        # the common case: the ast node's own dict (its fields, then its positions, all of
        # which the gast class has) copied at once, then each node in it converted
        child_lists = frozenset(f for f in fields if f not in _MIXED_LISTS)

        def marked_copy(node: Any) -> Any:
            new: Any = new_node(new_cls)
            d = new.__dict__
            d.update(node.__dict__)
            kids: list = []
            for field in fields:
                v = d.get(field)
                if type(v) is list:
                    w = d[field] = [table[type(x)](x) if isinstance(x, AST) else x for x in v]
                    if field in child_lists:  # (only child nodes in it: no filter)
                        kids += map(id, w)
                    else:
                        kids += [id(x) for x in w if type(x) in child]
                elif isinstance(v, AST):
                    w = d[field] = table[type(v)](v)
                    if type(w) in child:
                        kids.append(id(w))
            d["_aj_orig"] = True
            d["_aj_children"] = tuple(kids)
            if ("end_lineno" in d or has_end) and ("lineno" in d or has_line):
                d["_aj_span"] = True
            for f in block_fields:
                blk = d.get(f)
                if type(blk) is list:
                    d["_aj_orig_" + f] = list(blk)
            return new

        if table.positions is True and set(copy_attrs) == set(_POSITIONS) & set(new_cls._attributes):
            marked_copy.marks = True  # type: ignore[attr-defined]
            return marked_copy

    def marked(node: Any) -> Any:
        new: Any = new_node(new_cls)
        d = new.__dict__
        kids: list = []
        for field in fields:
            try:
                v = getattr(node, field)
            except AttributeError:
                continue
            if type(v) is list:
                w = d[field] = [table[type(x)](x) if isinstance(x, AST) else x for x in v]
                kids += [id(x) for x in w if type(x) in child]
            elif isinstance(v, AST):
                w = d[field] = table[type(v)](v)
                if type(w) in child:
                    kids.append(id(w))
            else:
                d[field] = v
        for field, value in extra:
            d[field] = value()
        for attr in copy_attrs:
            try:
                d[attr] = getattr(node, attr)
            except AttributeError:
                pass
        d["_aj_orig"] = True
        if not in_order:
            kids = []
            for f in mfields:
                v = d.get(f)
                if type(v) is list:
                    kids += [id(x) for x in v if type(x) in child]
                elif type(v) in child:
                    kids.append(id(v))
        d["_aj_children"] = tuple(kids)
        if ("end_lineno" in d or has_end) and ("lineno" in d or has_line):
            d["_aj_span"] = True
        for f in block_fields:
            blk = d.get(f)
            if type(blk) is list:
                d["_aj_orig_" + f] = list(blk)
        return new

    marked.marks = True  # type: ignore[attr-defined]
    return marked


# -- ast -> gast --------------------------------------------------------------------------------


def _to_gast_special(table: _Table, kind: type) -> Converter | None:
    if kind is ast.Name:
        # gast.Name(id, ctx, annotation=None, type_comment=None), located as the ast node
        # the most common node, written out: gast.Name(id, ctx, None, None), then
        # ast.copy_location (a None lineno / col_offset is not copied)
        name_cls, new_node, placed = gast.Name, _new_node, table.positions is True
        if table.marks:
            # marked as `mark_node` marks it: no child node (a context is none), a span where
            # the node has a line (gast.Name has a class `end_lineno`, no class `lineno`)
            assert placed and _mark_info(name_cls)[1:4] == (("ctx", "annotation"), True, False)

            def conv_name_marked(node: Any) -> Any:
                new = new_node(name_cls)
                d = new.__dict__
                d["id"] = node.id
                ctx = node.ctx
                d["ctx"] = table[type(ctx)](ctx)
                d["annotation"] = d["type_comment"] = None
                v = getattr(node, "lineno", None)
                if v is not None:
                    d["lineno"] = v
                    d["_aj_span"] = True
                v = getattr(node, "col_offset", None)
                if v is not None:
                    d["col_offset"] = v
                d["end_lineno"] = node.end_lineno
                d["end_col_offset"] = node.end_col_offset
                d["_aj_orig"] = True
                d["_aj_children"] = ()
                return new

            conv_name_marked.marks = True  # type: ignore[attr-defined]
            return conv_name_marked

        def conv_name(node: Any) -> Any:
            new = new_node(name_cls)
            d = new.__dict__
            d["id"] = node.id
            ctx = node.ctx
            d["ctx"] = table[type(ctx)](ctx)
            d["annotation"] = d["type_comment"] = None
            if placed:
                v = getattr(node, "lineno", None)
                if v is not None:
                    d["lineno"] = v
                v = getattr(node, "col_offset", None)
                if v is not None:
                    d["col_offset"] = v
                d["end_lineno"] = node.end_lineno
                d["end_col_offset"] = node.end_col_offset
            return new

        return conv_name
    if kind is ast.arg:

        def conv_arg(node: Any) -> Any:
            ann = node.annotation
            new = gast.Name(
                node.arg,
                gast.Param(),
                None if ann is None else table[type(ann)](ann),
                node.type_comment,
            )
            return table.locate(new, node)

        return conv_arg
    if kind is ast.ExceptHandler:
        generic = table.make(kind, gast.ExceptHandler)

        def conv_handler(node: Any) -> Any:
            if not node.name:
                return generic(node)
            new = gast.ExceptHandler(
                table.item(node.type),
                gast.Name(node.name, gast.Store(), None, None),
                [table.item(x) for x in node.body],
            )
            return table.locate(new, node)

        return conv_handler
    if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef) and "type_params" not in (
        kind._fields
    ):
        # before 3.12: gast's definitions carry an empty type_params
        return table.make(kind, getattr(gast, kind.__name__), extra=(("type_params", _empty_list),))
    return None


_to_gast = _Table(gast, _to_gast_special)
_to_gast_unplaced = _Table(gast, _to_gast_special, positions=False)
_to_gast_marked = _Table(gast, _to_gast_special, marks=True)


def ast_to_gast(node: Any, positions: bool = True) -> Any:
    """``gast.ast_to_gast(node)``, faster; with ``positions=False`` the new nodes have no
    ``lineno``/``col_offset``/``end_lineno``/``end_col_offset`` (generated code)."""
    return (_to_gast if positions else _to_gast_unplaced)(node)


def ast_to_gast_original(node: Any) -> Any:
    """``ast_to_gast(node)`` with every new node marked original as ``render.mark_original``
    marks it, in the same pass (the user's parsed code, before any converter runs)."""
    return _to_gast_marked(node)


# -- gast -> ast --------------------------------------------------------------------------------


def _to_ast_special(table: _Table, kind: type) -> Converter | None:
    if kind is gast.Name:
        return table.make(kind, ast.Name, ("annotation", "type_comment"), ast_location=True)
    if kind is gast.Assign:
        return table.make(kind, ast.Assign, ("type_comment",), ast_location=True)
    if kind in (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef) and "type_params" not in (
        getattr(ast, kind.__name__)._fields
    ):
        return table.make(kind, getattr(ast, kind.__name__), ("type_params",), ast_location=True)
    if kind is gast.ExceptHandler:
        generic = table.make(kind, ast.ExceptHandler)

        def conv_handler(node: Any) -> Any:
            if not node.name:
                return generic(node)
            new = ast.ExceptHandler(table.item(node.type), node.name.id, table(node.body))
            return table.locate(new, node)

        return conv_handler
    if kind is gast.arguments:

        def arg(node: Any) -> Any:
            if node is None:
                return None
            new = ast.arg(node.id, table.item(node.annotation), node.type_comment)
            return table.locate(new, node)

        def conv_arguments(node: Any) -> Any:
            return ast.arguments(
                [arg(a) for a in node.posonlyargs],
                [arg(a) for a in node.args],
                arg(node.vararg),
                [arg(a) for a in node.kwonlyargs],
                table(node.kw_defaults),
                arg(node.kwarg),
                table(node.defaults),
            )

        return conv_arguments
    return None


_to_ast = _Table(ast, _to_ast_special)
_to_ast_line_1 = _Table(ast, _to_ast_special, positions="line 1")


def gast_to_ast(node: Any) -> Any:
    """``gast.gast_to_ast(node)``, faster."""
    return _to_ast(node)


def gast_to_ast_line_1(node: Any) -> Any:
    """``gast_to_ast(node)`` with every positioned node at line 1, column 0 (for unparsing:
    ``ast.unparse`` reads ``lineno`` but its value does not change the text)."""
    return _to_ast_line_1(node)


# -- traversal ----------------------------------------------------------------------------------

_child_fields: dict[type, tuple[str, ...]] = {}


class ChildFields(dict):
    """The table of the hand-written tree walks: for each node class, the fields that may hold
    child nodes (``kind._fields`` less ``skip``), computed on first use of a class."""

    def __init__(self, skip: frozenset[str] | set[str] | tuple[str, ...]) -> None:
        super().__init__()
        self.skip = frozenset(skip)

    def __missing__(self, kind: type) -> tuple[str, ...]:
        fields = self[kind] = tuple(f for f in kind._fields if f not in self.skip)
        return fields


def walk(node: Any) -> list:
    """The nodes of ``node``'s tree, itself included: the nodes ``ast.walk`` yields (in
    depth-first order, not breadth-first), listed at once without a generator per node."""
    out: list = []
    stack = [node]
    pop, push, append, AST = stack.pop, stack.append, out.append, ast.AST
    fields_of = _child_fields
    while stack:
        n = pop()
        append(n)
        kind = type(n)
        fields = fields_of.get(kind)
        if fields is None:
            fields = fields_of[kind] = tuple(kind._fields)
        for field in fields:
            try:
                value = getattr(n, field)
            except AttributeError:
                continue
            if isinstance(value, AST):
                push(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, AST):
                        push(item)
    return out


# for each node class, the fields that may hold child nodes less contexts and operators (leaves
# with no field): the table of the walks that look for expressions, shared
NODE_FIELDS = ChildFields(("ctx", "op", "ops"))
_EXPRESSION_LEAVES = frozenset({gast.Name, gast.Constant})


def walk_expression(node: Any) -> list:
    """The nodes of an expression as ``walk`` lists them (depth first), less what lies below a
    name or a constant, and less contexts and operators: the nodes where a call, a `:=`, a
    ternary or any other expression can be. (In a plain `walk`, names and contexts are half the
    nodes.)"""
    out: list = []
    stack = [node]
    pop, push, append, AST = stack.pop, stack.append, out.append, ast.AST
    fields_of, leaves = NODE_FIELDS, _EXPRESSION_LEAVES
    while stack:
        n = pop()
        append(n)
        kind = type(n)
        if kind in leaves:
            continue
        for field in fields_of[kind]:
            v = getattr(n, field, None)
            if isinstance(v, AST):
                push(v)
            elif type(v) is list:
                for item in v:
                    if isinstance(item, AST):
                        push(item)
    return out


def child_nodes(node: Any) -> list:
    """``list(ast.iter_child_nodes(node))``: the same nodes in the same order, without a
    generator per field."""
    out: list = []
    AST = ast.AST
    fields = _child_fields.get(type(node))
    if fields is None:
        fields = _child_fields[type(node)] = tuple(type(node)._fields)
    for field in fields:
        v = getattr(node, field, None)
        if isinstance(v, AST):
            out.append(v)
        elif isinstance(v, list):
            out += [x for x in v if isinstance(x, AST)]
    return out


def walk_nodes(node: Any) -> Iterator[Any]:
    """``ast.walk(node)``: the same nodes in the same order (breadth first, each node's
    children queued before it is yielded), lazily, at about half its cost (no generators per
    node and field; one field table per node class)."""
    todo = deque((node,))
    pop, extend, AST, fields_of = todo.popleft, todo.extend, ast.AST, _child_fields
    while todo:
        n = pop()
        kind = type(n)
        fields = fields_of.get(kind)
        if fields is None:
            fields = fields_of[kind] = tuple(kind._fields)
        for field in fields:
            v = getattr(n, field, None)
            if isinstance(v, AST):
                todo.append(v)
            elif isinstance(v, list):
                extend([x for x in v if isinstance(x, AST)])
        yield n


def walk_bfs(node: Any) -> list:
    """The nodes ``ast.walk`` yields, in its order (breadth first), listed at once."""
    out = [node]
    AST = ast.AST
    for n in out:  # (the list grows as it is read)
        for field in n._fields:
            try:
                v = getattr(n, field)
            except AttributeError:
                continue
            if isinstance(v, AST):
                out.append(v)
            elif isinstance(v, list):
                out += [x for x in v if isinstance(x, AST)]
    return out


def _methods_of(cls: type) -> dict[type, Callable[..., Any] | None]:
    """node class -> ``cls``'s visit method for it (None: generic_visit), kept on ``cls``."""
    methods = cls.__dict__.get("_aj_visit_methods")  # this class's own, not a base class's
    if methods is None:
        methods = {}
        cls._aj_visit_methods = methods  # type: ignore[attr-defined]
    return methods


# the node classes with no fields that `NodeTransformer.generic_visit` may leave unvisited, and
# the fields that hold only those (a gast node's ctx, op, ops)
_LEAF_CLASSES = tuple(
    c for c in vars(gast).values() if isinstance(c, type) and issubclass(c, _LEAF_BASES)
)
_VISITED_FIELDS = ChildFields(("ctx", "op", "ops"))


class NodeTransformer(gast.NodeTransformer):
    """``gast.NodeTransformer`` with the same visits, in the same order, and the same results,
    faster: the ``visit_<Class>`` method is looked up once per (transformer class, node class)
    (on the class: a ``visit_...`` set on an instance is not seen), and ``generic_visit`` reads
    the fields without a generator."""

    _aj_methods: dict[type, Callable[..., Any] | None]

    def visit(self, node: Any) -> Any:
        try:
            methods = self._aj_methods
        except AttributeError:
            methods = self._aj_methods = _methods_of(type(self))
        kind = type(node)
        try:
            method = methods[kind]
        except KeyError:
            method = methods[kind] = getattr(type(self), "visit_" + kind.__name__, None)
        if method is None:
            return self.generic_visit(node)
        return method(self, node)

    def generic_visit(self, node: Any) -> Any:
        AST = ast.AST
        # contexts and operators (no fields: each is its own visit's result) are not visited
        # where the class has no visit method for one and `visit` is this class's
        cls = type(self)
        skip = cls.__dict__.get("_aj_skip_leaves")
        if skip is None:
            skip = cls._aj_skip_leaves = cls.visit is NodeTransformer.visit and not any(
                hasattr(cls, "visit_" + c.__name__) for c in _LEAF_CLASSES
            )
        for field in _VISITED_FIELDS[type(node)] if skip else node._fields:
            try:
                old_value = getattr(node, field)
            except AttributeError:
                continue
            if isinstance(old_value, list):
                new_values = []
                for value in old_value:
                    if isinstance(value, AST):
                        value = self.visit(value)
                        if value is None:
                            continue
                        if not isinstance(value, AST):
                            new_values.extend(value)
                            continue
                    new_values.append(value)
                old_value[:] = new_values
            elif isinstance(old_value, AST):
                new_node = self.visit(old_value)
                if new_node is None:
                    delattr(node, field)
                else:
                    setattr(node, field, new_node)
        return node


__all__ = ["NodeTransformer", "ast_to_gast", "gast_to_ast", "gast_to_ast_line_1", "walk", "walk_bfs"]
