"""Liveness and definedness over the structured statement tree.

Both analyses walk Python's structured control flow directly (if / for / while / try / with,
break / continue / return / raise), which is the control-flow graph of a function body without
goto. Results are keyed by statement identity:

- ``live_in[s]`` / ``live_out[s]``: names whose current value may be read later.
- ``defined_before[s]``: names surely bound when ``s`` starts; ``maybe_defined_before[s]``:
  names bound on at least one path (reaching definitions, collapsed to names).
"""

from __future__ import annotations

import gast

from .activity import ActivityAnalysis, expr_activity
from .statements import walk_statements

_TERMINATORS = (gast.Return, gast.Raise, gast.Break, gast.Continue)
# statements with no block and no jump: both analyses treat them by their activity alone
_SIMPLE = frozenset(
    {gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Pass, gast.Assert, gast.Delete,
     gast.Import, gast.ImportFrom, gast.Global, gast.Nonlocal, gast.FunctionDef,
     gast.AsyncFunctionDef, gast.ClassDef}
)  # fmt: skip


class Liveness:
    def __init__(self, fn, activity: ActivityAnalysis) -> None:
        self.activity = activity
        self.live_in: dict[int, frozenset[str]] = {}
        self.live_out: dict[int, frozenset[str]] = {}
        self._loops: list[tuple[frozenset[str], frozenset[str]]] = []  # (head, after)
        self.block(fn.body, frozenset())

    def block(self, stmts: list, live_out: frozenset[str]) -> frozenset[str]:
        cur = live_out
        for s in reversed(stmts):
            self.live_out[id(s)] = cur
            cur = self.stmt(s, cur)
            self.live_in[id(s)] = cur
        return cur

    def _reads_of_expr(self, node) -> frozenset[str]:
        return frozenset(expr_activity(node).reads)

    def stmt(self, s, out: frozenset[str]) -> frozenset[str]:
        act = self.activity.of(s)
        if type(s) in _SIMPLE:  # (the common case, without the tests below)
            return (out - (act.writes - act.mutates)) | act.reads  # (a frozenset: out is)
        if isinstance(s, gast.Return):
            return self._reads_of_expr(s.value)
        if isinstance(s, gast.Raise):
            return frozenset(act.reads)
        if isinstance(s, gast.Break):
            return self._loops[-1][1] if self._loops else out
        if isinstance(s, gast.Continue):
            return self._loops[-1][0] if self._loops else out
        if isinstance(s, gast.If):
            body = self.block(s.body, out)
            orelse = self.block(s.orelse, out)
            return self._reads_of_expr(s.test) | body | orelse
        if isinstance(s, gast.While):
            # (a loop left normally runs its `else:`; a `break` skips it, to `out`)
            after = self.block(s.orelse, out)
            test = self._reads_of_expr(s.test)
            head = test | after
            for _ in range(len(act.writes) + 2):
                self._loops.append((head, out))
                body = self.block(s.body, head)
                self._loops.pop()
                new_head = test | body | after
                if new_head == head:
                    break
                head = new_head
            return head
        if isinstance(s, (gast.For, gast.AsyncFor)):
            target = frozenset(self._target_writes(s.target))
            after = self.block(s.orelse, out)
            head = after
            for _ in range(len(act.writes) + 2):
                self._loops.append((head, out))
                body = self.block(s.body, head)
                self._loops.pop()
                new_head = (body - target) | after
                if new_head == head:
                    break
                head = new_head
            return head | self._reads_of_expr(s.iter)
        if isinstance(s, (gast.With, gast.AsyncWith)):
            body = self.block(s.body, out)
            return body | frozenset(act.reads)
        if isinstance(s, gast.Try) or type(s).__name__ == "TryStar":
            # `finally` runs after everything; a handler after any statement of the body; `else`
            # after the body: what those read is live after the body and, conservatively, at
            # every statement of it (an exception, a `return` may leave it there)
            final_in = self.block(s.finalbody, out) if s.finalbody else out
            handlers_in = frozenset().union(*(self.block(h.body, final_in) for h in s.handlers))
            else_in = self.block(s.orelse, final_in) if s.orelse else final_in
            anywhere = handlers_in | (final_in if s.finalbody else frozenset())
            body_in = self.block(s.body, else_in | anywhere)
            if anywhere:
                for st in walk_statements(s.body):
                    self.live_out[id(st)] = self.live_out.get(id(st), frozenset()) | anywhere
                    self.live_in[id(st)] = self.live_in.get(id(st), frozenset()) | anywhere
            return body_in | anywhere | frozenset(act.reads)
        if type(s).__name__ == "Match":
            # conservative: anything read anywhere inside may be live on entry
            for c in getattr(s, "cases", []) or []:
                self.block(c.body, out)
            return out | frozenset(act.reads)
        # simple statement. A subscript store x[i] = v reads and keeps x.
        return (out - (act.writes - act.mutates)) | act.reads

    @staticmethod
    def _target_writes(target) -> set[str]:
        return expr_activity(target).writes


def terminates(stmts: list) -> bool:
    """Whether a block always leaves by return/raise/break/continue at its end."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, _TERMINATORS):
        return True
    if isinstance(last, gast.If):
        return terminates(last.body) and terminates(last.orelse)
    return False


class Definedness:
    """Which local names are surely / maybe bound at the start of each statement."""

    def __init__(self, fn, activity: ActivityAnalysis, params: set[str]) -> None:
        self.activity = activity
        self.defined_before: dict[int, frozenset[str]] = {}
        self.maybe_defined_before: dict[int, frozenset[str]] = {}
        start = frozenset(params)
        self.block(fn.body, start, start)

    def block(self, stmts, sure, maybe):
        """Returns (sure, maybe) after the block; sure is None when the end is unreachable."""
        for s in stmts:
            if sure is None:
                # unreachable code: record what we know and keep going for completeness
                self.defined_before[id(s)] = frozenset()
                self.maybe_defined_before[id(s)] = maybe
                continue
            self.defined_before[id(s)] = sure
            self.maybe_defined_before[id(s)] = maybe
            sure, maybe = self.stmt(s, sure, maybe)
        return sure, maybe

    def stmt(self, s, sure, maybe):
        act = self.activity.of(s)
        if type(s) in _SIMPLE:  # (the common case, without the tests below)
            return sure | act.writes, maybe | act.writes  # (frozensets: sure and maybe are)
        if isinstance(s, _TERMINATORS):
            return None, maybe
        if isinstance(s, gast.If):
            s1, m1 = self.block(s.body, sure, maybe)
            s2, m2 = self.block(s.orelse, sure, maybe)
            m = m1 | m2
            if s1 is None and s2 is None:
                return None, m
            if s1 is None:
                return s2, m
            if s2 is None:
                return s1, m
            return s1 & s2, m
        if isinstance(s, (gast.While, gast.For, gast.AsyncFor)):
            loop_sure = sure
            if isinstance(s, (gast.For, gast.AsyncFor)):
                loop_sure = sure | frozenset(expr_activity(s.target).writes)
            maybe2 = maybe | frozenset(act.writes)
            self.block(s.body, loop_sure, maybe2)
            if runs_at_least_once(s):  # (its variable is bound on every path after it)
                sure = loop_sure
            s_else, m_else = self.block(s.orelse, sure, maybe2)
            return (s_else if s_else is not None else sure), maybe2 | m_else
        if isinstance(s, (gast.With, gast.AsyncWith, gast.Try)) or type(s).__name__ in (
            "TryStar",
            "Match",
        ):
            inner_sure = sure
            for name in ("body", "orelse", "finalbody"):
                blk = getattr(s, name, []) or []
                if blk:
                    self.block(blk, inner_sure, maybe | frozenset(act.writes))
            for h in getattr(s, "handlers", []) or []:
                self.block(h.body, sure, maybe | frozenset(act.writes))
            for c in getattr(s, "cases", []) or []:
                self.block(c.body, sure, maybe | frozenset(act.writes))
            if isinstance(s, (gast.With, gast.AsyncWith)):
                s_body, m_body = self.block(s.body, sure, maybe)
                return (s_body if s_body is not None else None), m_body
            return sure, maybe | frozenset(act.writes)
        return sure | frozenset(act.writes), maybe | frozenset(act.writes)


def runs_at_least_once(loop) -> bool:
    """Whether a `for` loop surely runs its body once: a `range` of int literals that is not
    empty (`for i in range(3)`)."""
    it = getattr(loop, "iter", None)
    if not (
        isinstance(loop, gast.For)
        and isinstance(it, gast.Call)
        and isinstance(it.func, gast.Name)
        and it.func.id == "range"
        and not it.keywords
        and 1 <= len(it.args) <= 3
    ):
        return False
    bounds = []
    for a in it.args:
        negative = isinstance(a, gast.UnaryOp) and isinstance(a.op, gast.USub)
        c = a.operand if negative else a
        if not (isinstance(c, gast.Constant) and type(c.value) is int):
            return False
        bounds.append(-c.value if negative else c.value)
    try:
        return len(range(*bounds)) > 0
    except ValueError:  # (a zero step)
        return False
