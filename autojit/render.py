"""Rendering transformed gast trees back to text, keeping the user's own text where it is unchanged.

Every node of the parsed function is marked original (``_aj_orig``) with the identities of its
children. A node is *pristine* when it is original and its whole subtree is unchanged. Pristine
statements are copied as whole original lines (comments included); pristine expressions inside
generated code are copied as their original source segment; only generated nodes are unparsed.

:func:`splice_function` then replaces, in the file, just the original statements that changed,
so everything else stays byte-identical.
"""

from __future__ import annotations

import ast
import bisect
import io
import re
import tokenize

import gast

from .gastconv import child_nodes, gast_to_ast_line_1
from .source import SourceText, _edit_start, newline_of, split_lines

_SKIP_CHILD = (gast.expr_context, gast.operator, gast.unaryop, gast.cmpop, gast.boolop)
_ATOMIC = (
    gast.Name,
    gast.Constant,
    gast.Attribute,
    gast.Call,
    gast.Subscript,
    gast.List,
    gast.Tuple,
    gast.Dict,
    gast.Set,
    gast.ListComp,
    gast.DictComp,
    gast.SetComp,
    gast.GeneratorExp,
    gast.JoinedStr,
)
_BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers")


def _children(node) -> list:
    out = []
    kinds = _KINDS  # value class -> 2 for a node other than a context or operator
    kind = type(node)
    info = _MARK_FIELDS.get(kind)
    fields = info[0] if info is not None else _node_fields(kind)
    for field in fields:
        value = getattr(node, field, None)
        if isinstance(value, list):
            for v in value:
                k = kinds.get(type(v))
                if (k if k is not None else _kind_of(type(v))) == 2:
                    out.append(v)
        else:
            k = kinds.get(type(value))
            if (k if k is not None else _kind_of(type(value))) == 2:
                out.append(value)
    return out


# fields of gast nodes that never hold a node
_SCALAR_FIELDS = frozenset({"id", "attr", "kind", "type_comment", "conversion", "is_async", "level",
                            "module", "arg", "asname"})  # fmt: skip
_MARK_FIELDS: dict[type, tuple[tuple[str, ...], bool]] = {}


def _node_fields(kind: type) -> tuple[str, ...]:
    """The fields of a node class that may hold nodes (``mark_original``'s table)."""
    fields = kind._fields
    info = _MARK_FIELDS[kind] = (
        tuple(f for f in fields if f not in _SCALAR_FIELDS),
        "body" in fields or "handlers" in fields,
    )
    return info[0]


def mark_original(root) -> None:
    """Mark every node of ``root`` original, with its children's identities (one traversal)."""
    # (attributes written to the instance dict, as setattr does; each value's class looked up
    # once in `_KINDS`: not a node, a context or operator, or a node)
    kinds, classify = _KINDS, _kind_of
    stack = [root]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        d = node.__dict__
        d["_aj_orig"] = True
        kind = type(node)
        info = _MARK_FIELDS.get(kind)
        if info is None:
            _node_fields(kind)
            info = _MARK_FIELDS[kind]
        kids = []
        for name in info[0]:
            value = getattr(node, name, None)
            if isinstance(value, list):
                for v in value:
                    k = kinds.get(type(v))
                    if k is None:
                        k = classify(type(v))
                    if k == 2:
                        push(v)
                        kids.append(id(v))
                    elif k == 1:  # a context or operator: no children, no span
                        v._aj_orig = True
                        v._aj_children = ()
            else:
                k = kinds.get(type(value))
                if k is None:
                    k = classify(type(value))
                if k == 2:
                    push(value)
                    kids.append(id(value))
                elif k == 1:
                    value._aj_orig = True
                    value._aj_children = ()
        d["_aj_children"] = tuple(kids)
        spans = _SPANS.get(kind)
        if spans is None:
            spans = _SPANS[kind] = (hasattr(kind, "end_lineno"), hasattr(kind, "lineno"))
        if ("end_lineno" in d or spans[0]) and ("lineno" in d or spans[1]):
            d["_aj_span"] = True
        if info[1]:
            for f in _BLOCK_FIELDS:
                blk = getattr(node, f, None)
                if isinstance(blk, list):
                    setattr(node, f"_aj_orig_{f}", list(blk))


# value class -> 0: not a node, 1: a context or operator (no children, no span), 2: a node
_KINDS: dict[type, int] = {}
# node class -> whether the class itself has `end_lineno`, `lineno` (an instance may add them)
_SPANS: dict[type, tuple[bool, bool]] = {}


def _kind_of(cls: type) -> int:
    k = _KINDS[cls] = (2 if not issubclass(cls, _SKIP_CHILD) else 1) if issubclass(
        cls, gast.AST
    ) else 0
    return k


def _unparse(node) -> str:
    import ast

    return ast.unparse(gast_to_ast_line_1(node))  # every node at line 1, column 0


def _wrapped(seg: str) -> bool:
    """Whether ``seg`` is one parenthesised expression: `(a + b)`, not `(a) - (b)`."""
    if not (seg.startswith("(") and seg.endswith(")")):
        return False
    depth = 0
    if not any(c in seg for c in "'\"#\\"):
        # no string, comment or line continuation: the brackets are the text's own characters
        ops = [c for c in seg if c in "()[]{}"]
    else:
        try:
            toks = list(tokenize.generate_tokens(io.StringIO(seg).readline))
        except (tokenize.TokenError, SyntaxError):
            return False
        ops = [t.string for t in toks if t.type == tokenize.OP and t.string in "()[]{}"]
    for k, t in enumerate(ops):
        depth += 1 if t in "([{" else -1
        if depth == 0 and k != len(ops) - 1:
            return False
    return depth == 0


def _clone(node):
    """``copy.copy(node)`` (a node of the same class with the same attributes), faster."""
    new = _new_node(type(node))
    new.__dict__.update(node.__dict__)
    return new


_new_node = gast.AST.__new__
# the nodes that hold no child node but a Name's annotation (a parameter's)
_LEAVES = frozenset({gast.Name, gast.Constant})


def _placeholder(i: int) -> str:
    return f"__aj_ph_{i}__"


# -- gast -> ast with placeholders, in one pass (`Renderer._ast_with_placeholders`) ------------
_new_ast = ast.AST.__new__
_LOAD = ast.Load()
_LINE_1 = {"lineno": 1, "col_offset": 0, "end_lineno": 1, "end_col_offset": 0}
# the classes `gast_to_ast_line_1` converts specially (gastconv's `_to_ast_special`), other
# than by leaving out fields (`_AST_DROP`): their subtrees take the two-pass way
_AST_SPECIAL = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.ExceptHandler,
                gast.arguments)  # fmt: skip
_AST_DROP = {gast.Name: ("annotation", "type_comment"), gast.Assign: ("type_comment",)}
# gast context or operator class -> an ast instance of it (shared, as `ast.parse` shares them)
_AST_LEAVES = {
    k: getattr(ast, name)()
    for name, k in vars(gast).items()
    if isinstance(k, type)
    and issubclass(k, _SKIP_CHILD)
    and not k.__subclasses__()  # (not the abstract classes)
    and hasattr(ast, name)
}
# gast class -> (ast class, the fields converted, whether positioned), or None (two passes)
_AST_INFO: dict[type, tuple[type, tuple[str, ...], bool] | None] = {}


def _ast_info(kind: type) -> tuple[type, tuple[str, ...], bool] | None:
    new_cls = getattr(ast, kind.__name__, None)
    fields = tuple(f for f in kind._fields if f not in _AST_DROP.get(kind, ()))
    info = _AST_INFO[kind] = (
        None
        if new_cls is None
        or issubclass(kind, _AST_SPECIAL)
        or not set(fields) <= set(new_cls._fields)
        else (new_cls, fields, "lineno" in new_cls._attributes)
    )
    return info


class Renderer:
    def __init__(self, source: SourceText, unit: str = "    ") -> None:
        self.src = source
        self.unit = unit  # one level of indentation in generated code, as the file writes it
        self._pristine: dict[int, bool] = {}
        # the source lines written as they are (a statement's, a header's, an expression's
        # lines): their comments are in the output already
        self.copied_lines: set[int] = set()

    # -- pristine -------------------------------------------------------------------------
    def pristine(self, node) -> bool:
        key = id(node)
        memo = self._pristine
        ok = memo.get(key)
        if ok is not None:
            return ok
        d = node.__dict__
        ok = bool(d.get("_aj_orig", False)) and bool(d.get("_aj_span", False))
        if ok:
            # the children are the original ones (one tuple comparison of their ids), then
            # each is pristine (loops, not generators: this runs for every node of the function)
            # (`_children` written out: a field absent from a gast node's dict holds no node)
            kids = []
            kinds = _KINDS
            info = _MARK_FIELDS.get(type(node))
            for field in info[0] if info is not None else _node_fields(type(node)):
                value = d.get(field)
                if type(value) is list:
                    for v in value:
                        k = kinds.get(type(v))
                        if (k if k is not None else _kind_of(type(v))) == 2:
                            kids.append(v)
                elif value is not None:
                    k = kinds.get(type(value))
                    if (k if k is not None else _kind_of(type(value))) == 2:
                        kids.append(value)
            ok = tuple(map(id, kids)) == d["_aj_children"]
            if ok:
                for c in kids:
                    cd = c.__dict__
                    if (
                        type(c) in _LEAVES  # (half the nodes: decided here, not memoised)
                        and cd.get("_aj_orig", False)
                        and cd.get("_aj_span", False)
                        and "lineno" in cd
                        and cd.get("annotation") is None
                        and cd.get("_aj_children") == ()
                    ):
                        continue  # what `self.pristine(c)` finds: no child node, unchanged
                    if not (self.pristine(c) if hasattr(c, "lineno") else self._pristine_nospan(c)):
                        ok = False
                        break
        memo[key] = ok
        return ok

    def _pristine_nospan(self, node) -> bool:
        if not getattr(node, "_aj_orig", False):
            return False
        kids = _children(node)
        if tuple(map(id, kids)) != node._aj_children:
            return False
        for c in kids:
            if not (self.pristine(c) if hasattr(c, "lineno") else self._pristine_nospan(c)):
                return False
        return True

    def invalidate(self) -> None:
        self._pristine.clear()

    # -- expressions ----------------------------------------------------------------------
    def expr(self, node) -> str:
        if self.pristine(node):
            return self._segment(node)
        holes: list[str] = []
        text = ast.unparse(self._ast_with_placeholders(node, holes, None)).strip()
        return self._fill(text, holes)

    def _segment(self, node) -> str:
        text = self.src.text(node)
        if "\n" in text or "\r" in text:
            self.copied_lines.update(range(node.lineno, node.end_lineno + 1))
            text = f"({text})"
        return text

    def _fill(self, text: str, holes: list[str]) -> str:
        for i in reversed(range(len(holes))):
            text = text.replace(_placeholder(i), holes[i])
        return text

    def _with_placeholders(self, node, holes: list[str], parent):
        hole = self._hole(node, parent)
        if hole is not None:
            holes.append(hole)
            return gast.Name(
                id=_placeholder(len(holes) - 1), ctx=gast.Load(), annotation=None, type_comment=None
            )
        if not isinstance(node, gast.AST) or not node._fields:
            return node  # (a context or operator: nothing in it to replace)
        # a clone with each child node replaced (`gast.iter_fields` order: holes are numbered
        # in it), its other attributes shared
        clone = _clone(node)
        cd = clone.__dict__
        AST, visit = gast.AST, self._with_placeholders
        for field in node._fields:
            try:
                value = getattr(node, field)
            except AttributeError:
                continue
            if type(value) is list:
                cd[field] = [visit(v, holes, node) if isinstance(v, AST) else v for v in value]
            elif isinstance(value, AST):
                cd[field] = visit(value, holes, node)
        return clone

    def _ast_with_placeholders(self, node, holes: list[str], parent):
        """``gast_to_ast_line_1(self._with_placeholders(node, holes, parent))`` in one pass: the
        same holes, the ``ast`` tree built directly instead of from a gast clone (``node`` is an
        expression: its nodes are left without positions, which unparsing does not read)."""
        kind = type(node)
        # (only an original node or an f-string can be a hole)
        if node.__dict__.get("_aj_orig", False) or kind is gast.JoinedStr:
            hole = self._hole(node, parent)
            if hole is not None:
                holes.append(hole)
                return ast.Name(_placeholder(len(holes) - 1), _LOAD)
        info = _AST_INFO.get(kind, False)
        if info is False:
            info = _ast_info(kind)
        if info is None or (kind is gast.Name and getattr(node, "annotation", None) is not None):
            return gast_to_ast_line_1(self._with_placeholders(node, holes, parent))
        new_cls, fields, _ = info
        new = _new_ast(new_cls)  # (no position: ast.unparse reads only a statement's lineno)
        d = new.__dict__
        AST, visit, leaves = gast.AST, self._ast_with_placeholders, _AST_LEAVES
        for field in fields:
            try:
                value = getattr(node, field)
            except AttributeError:
                continue
            if type(value) is list:
                d[field] = [visit(v, holes, node) if isinstance(v, AST) else v for v in value]
            elif type(value) in leaves:
                d[field] = leaves[type(value)]
            elif isinstance(value, AST):
                d[field] = visit(value, holes, node)
            else:
                d[field] = value
        return new

    def _hole(self, node, parent) -> str | None:
        """The text that stands for ``node`` (a child of ``parent``) in generated code where it
        is kept as written (a placeholder in the unparsed text), or None where it is unparsed."""
        if isinstance(node, gast.JoinedStr) and not self.pristine(node):
            # placeholders cannot stand inside an f-string: unparse a changed one whole
            return _unparse(node)
        if isinstance(node, gast.expr) and self.pristine(node):
            seg = self._segment(node)
            needs_parens = (
                not isinstance(node, _ATOMIC)
                and isinstance(
                    parent,
                    (
                        gast.BinOp,
                        gast.UnaryOp,
                        gast.Compare,
                        gast.BoolOp,
                        gast.Attribute,
                        gast.Subscript,
                        gast.Await,
                        gast.IfExp,
                        gast.Starred,
                    ),
                )
                and not (isinstance(parent, gast.Subscript) and parent.slice is node)
                and not _wrapped(seg)
            )
            if isinstance(node, gast.Tuple) and not seg.startswith("("):
                needs_parens = not isinstance(parent, (gast.Subscript,)) or needs_parens
            if isinstance(parent, gast.Call) and isinstance(node, (gast.Lambda, gast.IfExp)):
                needs_parens = False
            return f"({seg})" if needs_parens else seg
        return None

    # -- statements -----------------------------------------------------------------------
    def block(self, stmts: list, indent: str) -> list[str]:
        lines: list[str] = []
        for s in stmts:
            lines.extend(self.stmt(s, indent))
        return lines

    def stmt(self, s, indent: str) -> list[str]:
        if self.pristine(s):
            return self._original_lines(s, indent)
        if getattr(s, "_aj_orig", False) and getattr(s, "_aj_span", False):
            header = self._original_header(s)
            if header is not None:
                return self._compound(s, indent, header)
        return self._generated(s, indent)

    def _original_lines(self, s, indent: str) -> list[str]:
        src = self.src
        first = s.lineno
        for d in getattr(s, "decorator_list", []) or []:
            first = min(first, d.lineno)
        self.copied_lines.update(range(first, s.end_lineno + 1))
        if src.starts_line(s) and self._ends_line(s):
            lines = [src.line_text(n) for n in range(first, s.end_lineno + 1)]
            lines = reindent(lines, indent)
        else:
            lines = reindent(split_lines(indent + src.text(s), keepends=False), indent)
        if isinstance(s, gast.If) and lines and lines[0].lstrip().startswith("elif"):
            # an `elif` branch moved on its own (e.g. into a generated function) is an `if`
            lines[0] = lines[0].replace("elif", "if", 1)
        return lines

    def _ends_line(self, s) -> bool:
        line = self.src.line_text(s.end_lineno)
        rest = line[self.src.char_col(s.end_lineno, s.end_col_offset) :].strip()
        return not rest or rest.startswith("#")

    def _original_header(self, s) -> list[str] | None:
        """Original header lines of a compound statement whose header is unchanged."""
        if isinstance(s, gast.If):
            parts = [s.test]
        elif isinstance(s, gast.While):
            parts = [s.test]
        elif isinstance(s, (gast.For, gast.AsyncFor)):
            parts = [s.target, s.iter]
        elif isinstance(s, (gast.With, gast.AsyncWith)):
            parts = [i.context_expr for i in s.items] + [
                i.optional_vars for i in s.items if i.optional_vars is not None
            ]
        elif isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef)):
            parts = list(s.decorator_list) + ([s.returns] if s.returns else [])
            if not self._pristine_nospan(s.args):
                return None
        elif isinstance(s, gast.Try):
            parts = []
        else:
            return None
        if not all(self.pristine(p) for p in parts):
            return None
        orig_body = s._aj_orig_body
        if not orig_body or orig_body[0].lineno == s.lineno or not self.src.starts_line(s):
            return None
        first = s.lineno
        for d in getattr(s, "decorator_list", []) or []:
            first = min(first, d.lineno)
        lines = [self.src.line_text(n) for n in range(first, orig_body[0].lineno)]
        self.copied_lines.update(range(first, orig_body[0].lineno))
        if isinstance(s, gast.If) and lines[0].lstrip().startswith("elif"):
            lines[0] = lines[0].replace("elif", "if", 1)  # rendered on its own, it is an `if`
        return lines

    def _compound(self, s, indent: str, header: list[str]) -> list[str]:
        out = reindent(header, indent)
        inner = indent + self._unit(s)
        out += self.block(s.body, inner) or [inner + "pass"]
        if isinstance(s, gast.Try):
            for h in s.handlers:
                out += self._generated_header(h, indent)
                out += self.block(h.body, inner)
        orelse = getattr(s, "orelse", None)
        if orelse:
            if (
                isinstance(s, gast.If)
                and len(orelse) == 1
                and isinstance(orelse[0], gast.If)
                and getattr(orelse[0], "_aj_span", False)
                and self.src.line_text(orelse[0].lineno).lstrip().startswith("elif")
            ):
                sub = self.stmt(orelse[0], indent)
                if sub and sub[0].lstrip().startswith("if"):
                    sub[0] = sub[0].replace("if", "elif", 1)
                out += sub
            else:
                out.append(indent + "else:")
                out += self.block(orelse, inner)
        if isinstance(s, gast.Try) and s.finalbody:
            out.append(indent + "finally:")
            out += self.block(s.finalbody, inner)
        return out

    def _unit(self, s) -> str:
        """One level of indentation as this statement's body uses it."""
        body = getattr(s, "_aj_orig_body", None) or getattr(s, "body", None)
        if (
            body
            and getattr(body[0], "_aj_span", False)
            and self.src.starts_line(body[0])
            and getattr(s, "_aj_span", False)
        ):
            inner = self.src.indent_of(body[0])
            outer = self.src.indent_of(s)
            if inner.startswith(outer) and len(inner) > len(outer):
                return inner[len(outer) :]
        return self.unit

    def _generated_header(self, h, indent: str) -> list[str]:
        t = f" {self.expr(h.type)}" if h.type is not None else ""
        n = f" as {h.name.id if hasattr(h.name, 'id') else h.name}" if h.name else ""
        return [f"{indent}except{t}{n}:"]

    def _generated(self, s, indent: str) -> list[str]:
        unit = self._unit(s) if getattr(s, "_aj_orig", False) else self.unit
        inner = indent + unit
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef)):
            out = [f"{indent}@{self.expr(d)}" for d in s.decorator_list]
            stub = _clone(s)
            stub.decorator_list = []
            stub.body = [gast.Pass()]
            holes: list[str] = []
            stub.args = self._with_placeholders(s.args, holes, s)
            if s.returns is not None:
                stub.returns = self._with_placeholders(s.returns, holes, s)
            head = _unparse(stub).strip().splitlines()[0]
            out.append(indent + self._fill(head, holes))
            out += self.block(s.body, inner)
            return out
        if isinstance(s, gast.If):
            out = [f"{indent}if {self.expr(s.test)}:"]
            out += self.block(s.body, inner)
            if s.orelse:
                if (
                    len(s.orelse) == 1
                    and isinstance(s.orelse[0], gast.If)
                    and not self.pristine(s.orelse[0])
                ):
                    sub = self._generated(s.orelse[0], indent)
                    sub[0] = sub[0].replace("if", "elif", 1)
                    out += sub
                else:
                    out.append(f"{indent}else:")
                    out += self.block(s.orelse, inner)
            return out
        if isinstance(s, gast.While):
            out = [f"{indent}while {self.expr(s.test)}:"]
            out += self.block(s.body, inner)
            if s.orelse:
                out += [f"{indent}else:"] + self.block(s.orelse, inner)
            return out
        if isinstance(s, gast.For):
            out = [f"{indent}for {self.expr(s.target)} in {self.expr(s.iter)}:"]
            out += self.block(s.body, inner)
            if s.orelse:
                out += [f"{indent}else:"] + self.block(s.orelse, inner)
            return out
        if isinstance(s, gast.With):
            items = ", ".join(
                self.expr(i.context_expr)
                + (f" as {self.expr(i.optional_vars)}" if i.optional_vars else "")
                for i in s.items
            )
            return [f"{indent}with {items}:"] + self.block(s.body, inner)
        holes = []
        text = self._fill(ast.unparse(self._ast_stmt_with_placeholders(s, holes)).strip(), holes)
        return [indent + line if i == 0 else line for i, line in enumerate(split_lines(text, keepends=False))]

    def _ast_stmt_with_placeholders(self, s, holes: list[str]):
        """``gast_to_ast_line_1(self._with_placeholders_stmt(s, holes))`` in one pass."""
        info = _AST_INFO.get(type(s), False)
        if info is False:
            info = _ast_info(type(s))
        if info is None:
            return gast_to_ast_line_1(self._with_placeholders_stmt(s, holes))
        new_cls, fields, positioned = info
        new = _new_ast(new_cls)
        d = new.__dict__
        expr, visit = gast.expr, self._ast_with_placeholders
        for field in fields:
            try:
                value = getattr(s, field)
            except AttributeError:
                continue
            if type(value) is list:
                d[field] = [
                    visit(v, holes, s) if isinstance(v, expr) else gast_to_ast_line_1(v)
                    for v in value
                ]
            elif isinstance(value, expr):
                d[field] = visit(value, holes, s)
            else:
                d[field] = gast_to_ast_line_1(value)
        if positioned:
            d.update(_LINE_1)
        return new

    def _with_placeholders_stmt(self, s, holes):
        clone = _clone(s)
        for field, value in gast.iter_fields(s):
            if isinstance(value, list):
                setattr(
                    clone,
                    field,
                    [
                        self._with_placeholders(v, holes, s) if isinstance(v, gast.expr) else v
                        for v in value
                    ],
                )
            elif isinstance(value, gast.expr):
                setattr(clone, field, self._with_placeholders(value, holes, s))
        return clone


def _string_lines(text: str) -> set[int]:
    """0-based line numbers (after the first) that lie inside multi-line strings."""
    inside: set[int] = set()
    if '"""' not in text and "'''" not in text and "\\\n" not in text and "\\\r" not in text:
        # a string token spans lines only when triple-quoted or continued by a backslash at a
        # line end: there is none (and no need to tokenize)
        return inside
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.STRING or getattr(tokenize, "FSTRING_MIDDLE", -1) == tok.type:
                for ln in range(tok.start[0], tok.end[0]):
                    inside.add(
                        ln
                    )  # lines start[0]+1 .. end[0] are continuations (1-based -> 0-based)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return inside


_LEADING = re.compile(r"[ \t]*")


def reindent(lines: list[str], indent: str) -> list[str]:
    """Move a block of original lines to ``indent``, leaving string continuation lines alone."""
    if not lines:
        return lines
    old = _LEADING.match(lines[0]).group(0)
    if old == indent:
        return list(lines)
    protected = _string_lines(
        "\n".join(line[len(old) :] if line.startswith(old) else line.lstrip() for line in lines)
    )
    out = []
    for i, line in enumerate(lines):
        if i in protected or not line.strip():
            out.append(line if i in protected else "")
        elif line.startswith(old):
            out.append(indent + line[len(old) :])
        else:
            out.append(line)
    return out


def splice_block(renderer: Renderer, src: SourceText, parent, field: str) -> None:
    """Write into ``src`` the edits that turn the original block into the current one.

    Statements still in the block are spliced recursively. A generated statement replaces the
    original named by its ``_aj_replaces`` (set by :func:`replace_statements`); other generated
    statements are inserted before the next original statement (or after the last). Each
    original statement's own span is replaced, so comments between and after statements stay.
    """
    orig = getattr(parent, f"_aj_orig_{field}", None)
    cur = getattr(parent, field, None)
    if orig is None or cur is None or not orig:
        return
    if field == "handlers":
        for h in cur:
            if getattr(h, "_aj_orig", False):
                splice_block(renderer, src, h, "body")
        return
    orig_ids = {id(o) for o in orig}
    present = {id(s) for s in cur if id(s) in orig_ids}
    groups: dict[int, list] = {}
    inserts_before: dict[int, list] = {}
    pending: list = []
    # (the block's order is kept: a statement that neither is an original nor replaces one,
    # `a = a * 2.0` of a loop's `else:` put after the loop, goes with the replacement just
    # before it, else before the next statement, kept or replaced)
    last_group: list | None = None
    for s in cur:
        if id(s) in present:
            if pending:
                inserts_before.setdefault(id(s), []).extend(pending)
                pending = []
            last_group = None
            _splice_stmt(renderer, src, s)
            continue
        target = getattr(s, "_aj_replaces", None)
        if target is not None and id(target) in orig_ids and id(target) not in present:
            last_group = groups.setdefault(id(target), [])
            last_group += pending
            pending = []
            last_group.append(s)
        elif last_group is not None:
            last_group.append(s)
        else:
            pending.append(s)
    nl = newline_of(src.text_)
    last_kept = None
    for o in orig:
        if id(o) in present:
            last_kept = o
            if id(o) in inserts_before:
                indent = src.indent_of(o)
                lines = renderer.block(inserts_before[id(o)], indent)
                at = src.line_starts[_first_line(o) - 1]
                src.replace(at, at, nl.join(lines) + nl)
            continue
        new = groups.get(id(o), [])
        if not new and pending and not any(id(x) in present for x in orig[orig.index(o) :]):
            new, pending = pending, []
        _replace_original(renderer, src, o, new)
    if pending:
        anchor = last_kept or orig[-1]
        indent = src.indent_of(anchor)
        end = src.span(anchor)[1]
        src.replace(end, end, nl + nl.join(renderer.block(pending, indent)))


def _first_line(s) -> int:
    return min([s.lineno] + [d.lineno for d in getattr(s, "decorator_list", []) or []])


def _replace_original(renderer: Renderer, src: SourceText, o, new: list) -> None:
    indent = src.indent_of(o)
    nl = newline_of(src.text_)
    start, end = src.stmt_span(o)
    if not new:
        # removed: drop its whole lines when it has them to itself (its comments stay, each
        # on a line of its own: a statement moved into a branch function, `return x  # why`
        # after a returning `if`, is written anew there)
        if src.starts_line(o) and renderer._ends_line(o):
            a = src.line_starts[_first_line(o) - 1]
            b = (
                src.line_starts[o.end_lineno]
                if o.end_lineno < len(src.line_starts)
                else len(src.text_)
            )
            first, last = _first_line(o), o.end_lineno or o.lineno
            text = "\n".join(src.line_text(n) for n in range(first, last + 1))
            comments = _comments(text, first) if "#" in text else []
            kept = [indent + c for n, c in comments if n not in renderer.copied_lines]
            src.replace(a, b, "".join(c + nl for c in kept))
        else:
            src.replace(start, end, "pass")
        return
    if isinstance(o, gast.If) and src.text_.startswith("elif", start):
        # an `elif` replaced by other statements: they go in an `else:` block of their own
        first = (getattr(o, "_aj_orig_body", None) or o.body)[0]  # o.body may be rewritten
        if getattr(first, "lineno", None) is not None and src.starts_line(first):
            inner = src.indent_of(first)
        else:
            inner = indent + renderer.unit
        lines = [indent + "else:"] + renderer.block(new, inner)
        src.replace(src.line_starts[o.lineno - 1], end, nl.join(lines))
        return
    lines = renderer.block(new, indent)
    lines, end = _keep_comments(src, o, lines, end)
    if src.starts_line(o):
        start = src.line_starts[_first_line(o) - 1]
    else:
        lines[0] = lines[0].lstrip()
    last = o.end_lineno or o.lineno
    line_end = src.line_starts[last] if last < len(src.line_starts) else len(src.text_)
    rest = src.text_[end:line_end].rstrip("\r\n")
    if rest and not rest.strip(" \t"):
        end += len(rest)  # (its trailing blanks, which would trail the last new line)
    src.replace(start, end, nl.join(lines))


def _keep_comments(src: SourceText, o, lines: list[str], end: int) -> tuple[list[str], int]:
    """The comments of the original statement ``o``, replaced by ``lines``, kept: each one the
    new lines lack goes on a line of its own before the new line of the next statement that
    followed it (a header's before them all); a comment after ``o`` on its last line that the
    new lines carry already (the last statement of its body, copied) is not written twice.
    Returns the lines and the end of the span to replace."""
    first, last = _first_line(o), o.end_lineno or o.lineno
    text = "\n".join(src.line_text(n) for n in range(first, last + 1))
    if "#" not in text:
        return lines, end
    joined = "\n".join(lines)
    line_end = src.line_starts[last] - 1 if last < len(src.line_starts) else len(src.text_)
    after = src.text_[end:line_end].rstrip("\r")
    if after.strip().startswith("#") and after.strip() in joined:
        end = end + len(after)  # (its copy stays, with the statement it belongs to)
    trailing = after.strip() if after.strip().startswith("#") else None  # (stays after it)
    missing = [
        (line, c)
        for line, c in _comments(text, first)
        if c not in joined and not (line == last and c == trailing)
    ]
    if not missing:
        return lines, end
    out = list(lines)
    stripped = [ln.strip() for ln in out]
    cursor = 0
    for line, comment in missing:
        at = 0
        if line > first:
            at = cursor
            for n in range(line + 1, last + 1):
                code = src.line_text(n).strip()
                if code and not code.startswith("#") and code in stripped[cursor:]:
                    at = stripped.index(code, cursor)
                    break
        indent = out[at][: len(out[at]) - len(out[at].lstrip())] if out else ""
        out.insert(at, indent + comment)
        stripped.insert(at, comment)
        cursor = at + 1
    return out, end


def _comments(text: str, first: int) -> list[tuple[int, str]]:
    """(1-based line, text) of each comment in ``text``, whose first line is line ``first``."""
    out: list[tuple[int, str]] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text + "\n").readline):
            if tok.type == tokenize.COMMENT:
                out.append((first + tok.start[0] - 1, tok.string.rstrip()))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return out


def replace_statements(block: list, old: list, new: list) -> None:
    """Replace the statements ``old`` (consecutive, by identity) in ``block`` by ``new``."""
    i = next(k for k, s in enumerate(block) if s is old[0])
    for n in new:
        if not getattr(n, "_aj_orig", False) and getattr(n, "_aj_replaces", None) is None:
            n._aj_replaces = getattr(old[0], "_aj_replaces", None) or old[0]
    block[i : i + len(old)] = new


def _splice_stmt(renderer: Renderer, src: SourceText, s) -> None:
    if renderer.pristine(s):
        return
    if renderer._original_header(s) is not None:
        for f in _BLOCK_FIELDS:
            splice_block(renderer, src, s, f)
        if isinstance(s, gast.If) and s.orelse and len(s.orelse) == 1:
            pass
        return
    # the statement itself changed: replace it whole
    indent = src.indent_of(s)
    from .source import newline_of

    lines = renderer.stmt(s, indent)
    start = src.stmt_span(s)[0]
    if isinstance(s, gast.If) and src.text_.startswith("elif", start) and lines:
        # an `elif` whose test changed stays in its chain (as an `if` it would always run)
        if lines[0].lstrip().startswith("if"):
            lines[0] = lines[0].replace("if", "elif", 1)
    lines, end = _keep_comments(src, s, lines, src.span(s)[1])
    if src.starts_line(s):
        line0 = min([s.lineno] + [d.lineno for d in getattr(s, "decorator_list", [])])
        start = src.line_starts[line0 - 1]
    else:
        lines[0] = lines[0].lstrip()
    src.replace(start, end, newline_of(src.text_).join(lines))


# -- where each rendered line comes from (tracebacks of converted code) -----------------------
_BLOCKS = ("body", "orelse", "finalbody")


def line_origins_of(fn, src: SourceText, start: int, end: int, new_text: str) -> list[int] | None:
    """For each line of ``new_text`` (``fn`` rendered: the text of ``src`` from ``start`` to
    ``end`` with its edits), the original line it comes from, so that an error raised there is
    reported where the user wrote the code:

    - a statement kept from the user's code: its own lines;
    - a generated statement: the first line of the original statement it replaces
      (``_aj_replaces``: the ``if`` of a ``lax.cond`` call and of its branch functions), else
      of the first of the user's expressions in it, else the line of the statement around it.

    None where the rendered text and the tree do not line up statement by statement (then the
    caller falls back on comparing the texts)."""
    first_line = src.line_of(start)
    i = bisect.bisect_left(src.edits, start, key=_edit_start)
    edits = src.edits[i : bisect.bisect_left(src.edits, end, key=_edit_start)]
    if all(
        "\n" not in e.text and "\r" not in e.text and src.line_of(e.start) == src.line_of(e.end)
        for e in edits
    ):
        # each edit rewrote a part of one line into one line: every line is where it was
        return list(range(first_line, first_line + new_text.count("\n") + 1))
    prefix = src.text_[src.line_starts[first_line - 1] : start]
    return _walked_line_origins(fn, new_text, first_line, prefix)


def _walked_line_origins(fn, new_text: str, first_line: int, prefix: str) -> list[int] | None:
    """:func:`line_origins_of` by walking ``fn`` beside ``new_text`` parsed (``prefix``: the
    text before the function on its first line)."""
    text = new_text
    shift = 0
    if prefix:
        text = "if True:\n" + prefix + new_text  # (the statement parsed at its own indentation)
        shift = 1
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    top = tree.body[0].body if prefix else tree.body  # type: ignore[attr-defined]
    n = new_text.count("\n") + 1
    out = [0] * (n + 1)  # 1-based lines of new_text; 0: not known yet
    if len(top) != 1 or not _origins_of(fn, top[0], first_line, out, 1 + shift):
        return None
    end = getattr(fn, "end_lineno", None) or first_line
    for k in range(1, n + 1):  # a line with no statement of its own (blank, a comment): the
        if not out[k]:  # line after the one before it, as where code is copied as it was
            out[k] = min(out[k - 1] + 1, end) if k > 1 else first_line
    return out[1:]


def _first_line_of(node) -> int:
    return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", []) or []])


def _origins_of(g, a, parent: int, out: list[int], base: int) -> bool:
    """Fill ``out`` for the lines of the parsed statement ``a`` (``g`` rendered; its lines
    numbered from ``base``); False where the two trees differ. Lines inside a compound statement
    that no statement starts on (``else:``, blank lines, comments) are left for the caller."""
    if type(g).__name__ != type(a).__name__:
        return False
    ghandlers, ahandlers = getattr(g, "handlers", None) or [], getattr(a, "handlers", None) or []
    gcases, acases = getattr(g, "cases", None) or [], getattr(a, "cases", None) or []
    if len(ghandlers) != len(ahandlers) or len(gcases) != len(acases):
        return False
    inner = [x for f in _BLOCKS for x in getattr(a, f, None) or []]
    inner += [x for h in ahandlers for x in h.body] + [x for c in acases for x in c.body]
    first = _first_line_of(a) - base + 1
    last = (min(map(_first_line_of, inner)) - 1 if inner else a.end_lineno) - base + 1
    if getattr(g, "_aj_orig", False) and getattr(g, "_aj_span", False):
        origin, end = _first_line_of(g), g.end_lineno
        for k in range(first, min(last, len(out) - 1) + 1):  # (a kept header: line by line)
            out[k] = min(origin + k - first, end)
    else:
        origin = _generated_origin(g, parent)
        for k in range(first, min(last, len(out) - 1) + 1):
            out[k] = origin
    for gh, ah in zip(ghandlers, ahandlers, strict=True):
        out[ah.lineno - base + 1] = gh.lineno if getattr(gh, "_aj_orig", False) else origin
        if not _block_origins(gh.body, ah.body, origin, out, base):
            return False
    for gc, ac in zip(gcases, acases, strict=True):
        if not _block_origins(gc.body, ac.body, origin, out, base):
            return False
    return all(
        _block_origins(getattr(g, f, None), getattr(a, f, None), origin, out, base)
        for f in _BLOCKS
    )


def _block_origins(gblock, ablock, parent: int, out: list[int], base: int) -> bool:
    if not gblock and not ablock:
        return True
    if not gblock and len(ablock) == 1 and isinstance(ablock[0], ast.Pass):
        return True  # (an empty block is rendered `pass`: the line of the statement around it)
    if gblock is None or ablock is None or len(gblock) != len(ablock):
        return False
    return all(_origins_of(g, a, parent, out, base) for g, a in zip(gblock, ablock, strict=True))


def _generated_origin(g, parent: int) -> int:
    """The original line a generated statement stands for (see :func:`line_origins`)."""
    replaced = getattr(g, "_aj_replaces", None)
    if replaced is not None and getattr(replaced, "lineno", None) is not None:
        return _first_line_of(replaced)
    stack = [
        v
        for f in g._fields
        if f not in _BLOCKS and f not in ("handlers", "cases")
        for v in (lambda x: x if isinstance(x, list) else [x])(getattr(g, f, None))
        if isinstance(v, gast.AST)
    ]
    stack.reverse()
    while stack:  # depth first, in field order: the first of the user's expressions
        node = stack.pop()
        if isinstance(node, gast.stmt):
            continue
        d = node.__dict__
        if d.get("_aj_orig", False) and d.get("_aj_span", False) and "lineno" in d:
            return node.lineno
        kids = [c for c in child_nodes(node)]
        stack.extend(reversed(kids))
    return parent
