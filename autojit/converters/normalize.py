"""Normalising passes used by the conditionals converter.

``lift_returns``: a ``return`` inside an ``if`` whose condition is traced (or that holds such an
``if``) is moved to the tail of its block, so that every such ``if`` either has no ``return`` or
returns on every path. The statements after ``if c: return a`` move into the path that does not
return::

    if c:                    if c:
        return a      ->         return a
    y = g(x)                 else:
    return y                     y = g(x)
                                 return y

No user statement is copied, except a final ``return <expr>`` that two open paths both reach (a
generated copy). Where that is not enough the pass reports why and leaves the function alone.
"""

from __future__ import annotations

from collections.abc import Callable

import gast

from ..gastconv import walk_nodes
from ..templates import copy_expr

_TERMINATORS = (gast.Return, gast.Raise)


def has_return(stmts: list) -> bool:
    """Whether a ``return`` occurs in these statements (not counting nested functions)."""
    for s in stmts:
        if isinstance(s, gast.Return):
            return True
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        for f in ("body", "orelse", "finalbody"):
            if has_return(getattr(s, f, []) or []):
                return True
        for h in getattr(s, "handlers", []) or []:
            if has_return(h.body):
                return True
    return False


def always_returns(stmts: list) -> bool:
    """Whether every path through the block ends in ``return`` (or ``raise``)."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, _TERMINATORS):
        return True
    if isinstance(last, gast.If):
        return always_returns(last.body) and always_returns(last.orelse)
    return False


def _open_blocks(stmts: list, out: list) -> None:
    """The blocks whose end is an open end of ``stmts``, in source order."""
    if stmts and isinstance(stmts[-1], _TERMINATORS):
        return
    if stmts and isinstance(stmts[-1], gast.If) and has_return([stmts[-1]]):
        _open_blocks(stmts[-1].body, out)
        _open_blocks(stmts[-1].orelse, out)
        return
    out.append(stmts)


def _append_rest(blocks: list[list], rest: list) -> None:
    """Append ``rest`` at each open end: the original statements at the last one (so their
    text and comments stay), generated copies at the others."""
    for i, blk in enumerate(blocks):
        if i == len(blocks) - 1:
            blk.extend(rest)
        else:
            blk.extend(_copy_stmt(s) for s in rest)


def _copy_stmt(s):
    new = copy_expr(s)
    for sub in walk_nodes(new):
        for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            if hasattr(sub, attr):
                try:
                    delattr(sub, attr)
                except AttributeError:
                    pass
        if hasattr(sub, "_aj_span"):
            sub._aj_span = False
    return new


def lift_returns(
    body: list,
    needs: Callable[[gast.If], bool],
    fail: Callable[[gast.AST, str], None],
    lifted: list | None = None,
) -> bool:
    """Move the statements after each ``if`` that ``needs`` lifting into its open paths.

    Returns whether anything changed. ``fail(node, reason)`` is called (and the block left as it
    is from there on) where the rest would have to be copied.
    """
    changed = False
    i = 0
    while i < len(body):
        s = body[i]
        if isinstance(s, gast.If) and needs(s):
            changed |= lift_returns(s.body, needs, fail, lifted)
            changed |= lift_returns(s.orelse, needs, fail, lifted)
            if not needs(s):
                i += 1  # the returns inside now end every path of their ifs: nothing to move
                continue
            rest = body[i + 1 :]
            if rest and lifted is not None:
                lifted.append(s)
            if rest:
                blocks: list[list] = []
                _open_blocks(s.body, blocks)
                _open_blocks(s.orelse, blocks)
                if not blocks:
                    # unreachable code after an if that returns on every path
                    del body[i + 1 :]
                    changed = True
                elif len(blocks) == 1 or (len(rest) == 1 and isinstance(rest[0], gast.Return)):
                    del body[i + 1 :]
                    _append_rest(blocks, rest)
                    changed = True
                    # the moved statements may hold returns of their own to bring up
                    lift_returns(s.body, needs, fail, lifted)
                    lift_returns(s.orelse, needs, fail, lifted)
                else:
                    fail(
                        s,
                        "a `return` under a traced condition is followed by code that several "
                        "paths reach; move that code into a helper function, or give each "
                        "path its own `return`",
                    )
                    return changed
        elif isinstance(s, gast.If):
            changed |= lift_returns(s.body, needs, fail, lifted)
            changed |= lift_returns(s.orelse, needs, fail, lifted)
        i += 1
    return changed


def refresh_changed_ifs(body: list) -> None:
    """Give each original ``if`` whose blocks were rearranged a new node, so it is re-rendered
    whole (the splicer only patches blocks that existed in the original)."""
    from ..render import replace_statements

    for s in list(body):
        if isinstance(s, gast.If):
            refresh_changed_ifs(s.body)
            refresh_changed_ifs(s.orelse)
            if getattr(s, "_aj_orig", False) and (
                [id(x) for x in s.body] != [id(x) for x in getattr(s, "_aj_orig_body", s.body)]
                or [id(x) for x in s.orelse]
                != [id(x) for x in getattr(s, "_aj_orig_orelse", s.orelse)]
            ):
                new = gast.If(test=s.test, body=s.body, orelse=s.orelse)
                # keep the place for messages (the node itself is new, so it is re-rendered)
                for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
                    if hasattr(s, attr):
                        setattr(new, attr, getattr(s, attr))
                replace_statements(body, [s], [new])


def surely_assigned(stmts) -> set[str]:
    """The names every path through ``stmts`` binds (a path that returns binds nothing
    after it)."""
    out: set[str] = set()
    for s in stmts:
        if isinstance(s, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
            targets = s.targets if isinstance(s, gast.Assign) else [s.target]
            for t in targets:
                for n in walk_nodes(t):
                    if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                        out.add(n.id)
        elif isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            out.add(s.name)
        elif isinstance(s, gast.If):
            a, b = surely_assigned(s.body), surely_assigned(s.orelse)
            if always_returns(s.body):
                out |= b
            elif always_returns(s.orelse):
                out |= a
            else:
                out |= a & b
        elif isinstance(s, (gast.With, gast.AsyncWith)):
            out |= surely_assigned(s.body)
        elif isinstance(s, (gast.Import, gast.ImportFrom)):
            for al in s.names:
                out.add((al.asname or al.name).split(".")[0])
    return out
