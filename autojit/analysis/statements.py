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
    blocks_of = _BLOCKS_OF
    for s in list(stmts):
        kind = type(s)
        if not into_functions and kind in _DEFINITION_KINDS:
            out.append(s)
            continue
        blocks = blocks_of.get(kind)
        if blocks is None:
            blocks = blocks_of[kind] = _blocks_of(kind)
        for f in blocks:  # (a simple statement has none)
            block = getattr(s, f, None)
            if not block:
                continue
            if f == "handlers":
                for h in block:
                    _statements_into(h.body, into_functions, out)
            else:
                _statements_into(block, into_functions, out)
        out.append(s)


_DEFINITION_KINDS = frozenset(_DEFINITIONS)
_BLOCKS_OF: dict[type, tuple[str, ...]] = {}  # statement class -> its block fields, in order


def _blocks_of(kind: type) -> tuple[str, ...]:
    """The fields of a statement class that hold blocks, in the order they are walked: body,
    orelse, finalbody, then the handlers' bodies."""
    fields = getattr(kind, "_fields", ())
    return tuple(f for f in ("body", "orelse", "finalbody", "handlers") if f in fields)
