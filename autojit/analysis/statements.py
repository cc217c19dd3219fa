"""Walks over a function's statements (not its expressions)."""

from __future__ import annotations

from collections.abc import Iterable

import gast


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
