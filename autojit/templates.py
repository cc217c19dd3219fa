"""Generated code from readable templates.

``replace("NAME = NAME.at[INDEX].set(VALUE)", NAME="x", INDEX=index_node, VALUE=value_node)``
parses the template with gast and substitutes placeholder names with nodes (kept by identity, so
the renderer can copy the user's original text for them) or with new names (strings).
"""

from __future__ import annotations

import ast
import copy
import functools
import textwrap

import gast

from .gastconv import NodeTransformer, ast_to_gast, walk


class _Substitute(NodeTransformer):
    def __init__(self, replacements: dict) -> None:
        self.replacements = replacements
        self.inserted: list = []  # the nodes put in (the template's own nodes have no position)

    def visit_Name(self, node: gast.Name):
        if node.id not in self.replacements:
            return node
        repl = self.replacements[node.id]
        if isinstance(repl, str):
            return gast.Name(id=repl, ctx=node.ctx, annotation=None, type_comment=None)
        if isinstance(repl, gast.Name) and not getattr(repl, "_aj_orig", False):
            return gast.Name(id=repl.id, ctx=node.ctx, annotation=None, type_comment=None)
        if isinstance(repl, (list, tuple)):
            self.inserted.extend(repl)
            return repl
        self.inserted.append(repl)
        return repl

    def visit_arg(self, node):  # pragma: no cover - gast uses Name for params
        return node

    def visit_FunctionDef(self, node: gast.FunctionDef):
        if node.name in self.replacements and isinstance(self.replacements[node.name], str):
            node.name = self.replacements[node.name]
        self.generic_visit(node)
        return node

    def visit_Expr(self, node: gast.Expr):
        # a bare placeholder statement `BODY` stands for a list of statements
        if isinstance(node.value, gast.Name) and node.value.id in self.replacements:
            repl = self.replacements[node.value.id]
            if isinstance(repl, list):
                self.inserted.extend(repl)
                return repl
        self.generic_visit(node)
        return node


def replace(template: str, **replacements) -> list[gast.stmt]:
    """Statements from a template with placeholders substituted."""
    sub = _Substitute(replacements)
    tree = _instantiate(_master(template, "exec"), sub)
    _mark_generated(sub.inserted)
    return tree.body


def replace_expr(template: str, **replacements) -> gast.expr:
    sub = _Substitute(replacements)
    tree = _instantiate(_master(template, "eval"), sub)
    _mark_generated(sub.inserted)
    return tree.body


@functools.lru_cache(maxsize=512)
def _master(template: str, mode: str) -> gast.AST:
    """The template as gast, made once and never changed: each use is a copy of it."""
    return ast_to_gast(_parsed(template, mode), positions=False)


_new_node = gast.AST.__new__


def _instantiate(node, sub: _Substitute):
    """``sub.visit(copy)`` of a fresh copy of the template tree ``node`` (what
    ``ast_to_gast`` of the parsed template gives: fields only, no position), in one pass: each
    node copied as its visit would leave it (`_Substitute`'s names, definitions and bare
    placeholder statements; any other node with its children visited as ``generic_visit``
    visits them)."""
    kind = type(node)
    repl = sub.replacements
    if kind is gast.Name and node.id in repl:
        return sub.visit_Name(_copy_leafy(node))
    if kind is gast.Expr:
        value = node.value
        if type(value) is gast.Name and value.id in repl and isinstance(repl[value.id], list):
            sub.inserted.extend(repl[value.id])
            return repl[value.id]
    new = _new_node(kind)
    d = new.__dict__
    AST = gast.AST
    for field, v in node.__dict__.items():
        if type(v) is list:
            out: list = []
            for x in v:
                if isinstance(x, AST):
                    x = _instantiate(x, sub)
                    if not isinstance(x, AST):
                        out.extend(x)
                        continue
                out.append(x)
            d[field] = out
        elif isinstance(v, AST):
            d[field] = _instantiate(v, sub)
        else:
            d[field] = v
    if kind is gast.FunctionDef and new.name in repl and isinstance(repl[new.name], str):
        new.name = repl[new.name]
    return new


def _copy_leafy(node):
    """A copy of a template ``Name`` (its context a new one)."""
    new = _new_node(type(node))
    new.__dict__.update(node.__dict__)
    new.ctx = _new_node(type(node.ctx))
    return new


def _parsed(template: str, mode: str) -> ast.AST:
    """The template parsed (once: only `_master`, which keeps the gast tree, calls this; a cache
    here would keep a second, never-read tree per template alive in the user's process)."""
    text = textwrap.dedent(template)
    return ast.parse(text.strip("\n") if mode == "exec" else text.strip(), mode=mode)


def name(id_: str, store: bool = False) -> gast.Name:
    return gast.Name(
        id=id_, ctx=gast.Store() if store else gast.Load(), annotation=None, type_comment=None
    )


def _mark_generated(nodes: list) -> list:
    for n in nodes:
        for sub in walk(n) if isinstance(n, gast.AST) else []:  # gast.walk's nodes, as a list
            if not getattr(sub, "_aj_orig", False):
                for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
                    if hasattr(sub, attr) and not hasattr(sub, "_aj_span"):
                        try:
                            delattr(sub, attr)
                        except AttributeError:
                            pass
    return nodes


def copy_expr(node):
    """A fresh copy of an expression, marked as generated (for reuse in two places)."""
    new = _new_node(type(node))
    d = new.__dict__
    AST = gast.AST
    for k, v in node.__dict__.items():
        t = type(v)
        if t is list:
            d[k] = [copy_expr(x) if isinstance(x, AST) else copy.deepcopy(x) for x in v]
        elif isinstance(v, AST):
            d[k] = copy_expr(v)
        elif t in _ATOMS or (t is tuple and all(type(x) in _ATOMS for x in v)):
            d[k] = v  # (what `copy.deepcopy` gives for it: the same object)
        else:
            d[k] = copy.deepcopy(v)
    if "_aj_orig" in d:
        d["_aj_orig"] = False
    return new


# the values `copy.deepcopy` returns as they are (a node's names, constants, flags, child ids)
_ATOMS = frozenset({str, int, float, bool, complex, bytes, type(None), type(Ellipsis)})
