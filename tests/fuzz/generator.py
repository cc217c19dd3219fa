"""Hypothesis strategies that build small numeric Python functions as source text.

Every generated program is a module::

    import jax.numpy as jnp

    def f(x, y, a, k):
        n = x.shape[0]
        s = ...; t = ...; c = 0
        <statements>
        return x, y, s, t, c

``x`` and ``y`` are float32 vectors of the same length ``n`` (3 to 5), ``a`` a float32 scalar
(traced), ``k`` a Python int from 0 to 3 (static where it is used as a loop bound). The body mixes
if/elif/else, ternaries, ``and``/``or``/``not``, chained comparisons, ``for`` loops over
``range(n)``/``range(k)``/an array, bounded ``while`` loops with traced conditions, ``break``,
``continue`` and early ``return``, item updates (``x[i] = ...``, ``x[i] += ...``, slices, masks
``x[x > 0] = 0.``) and whole-array updates, over traced and static values. A quarter of the
programs also define ``h(v, b)``, which updates its argument in place and returns it, and call
it on ``x`` / ``y``: its result in place of the array, ignored, indexed, or on a new array.

With ``rich=True`` (``benchmarks/soak.py --rich``) the body also draws from constructs the
default programs leave out: every augmented item operator with an exact operand (``x[i] *= 0.5``,
``x[i] /= 2.0``), masked augmented updates and compound masks (``x[(x > 0.) & (y < s)] = v``,
``x[~(y > 0.)] += a``), stepped and overlapping slices (``x[::2] = v``, ``x[1:] = x[:-1]``), a
traced integer index (``x[c % n]``), swaps through tuple targets, aliases and views read after
an update of their array (``w = x[1:]``), copies updated on their own, a nested ``def`` reading
the function's names, int ternaries, counts (``jnp.sum(jnp.where(x > s, 0.5, 0.))``), reversed
and dependent ``range`` loops (``range(n - 1, -1, -1)``, ``range(i)``) and ``for``/``while``
loops with an ``else`` clause, a 2-D array ``z`` (items, ``z[i][j]``, rows, columns, 2-D
and row masks), index arrays (``x[jnp.array([1, 1])] += v``), ``zip`` loops, ``while`` loops
on a traced float of their own, ``jnp.dot`` and ``jnp.concatenate``. The default programs
(``rich=False``) are drawn exactly as before, so a seed gives the same programs it always
gave.

The programs are valid eager Python on NumPy inputs by construction: every index is in range
(loop indices are bounded by ``n`` or ``k <= 3 <= n``), every loop terminates (a ``while`` loop is
``while i < n and <cond>:`` with ``i += 1`` as its first statement), every name is defined before
it is read. Arithmetic is on dyadic numbers (multiples of 1/4, products by 0.5 and 2) so NumPy
and XLA compute the same floats and a comparison cannot flip on a rounding difference. ``jnp``
calls are only reductions and element-wise functions that are exact (sum, max, min, abs, maximum,
minimum, where); the oracle runs the original with NumPy standing in for ``jnp``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import strategies as st

FLOAT_CONSTS = ("0.0", "0.5", "1.0", "-1.0", "2.0", "-0.5", "1.5")
FLOAT_SCALARS = ("s", "t")
ARRAYS = ("x", "y")
LOOP_VARS = ("i", "j", "m", "p", "q", "r", "w")


@dataclass
class Program:
    """A generated function and the inputs to call it with."""

    source: str
    inputs: list[tuple[Any, ...]] = field(default_factory=list)

    def __repr__(self) -> str:  # hypothesis prints this on failure
        lines = [self.source]
        for args in self.inputs:
            lines.append("# inputs: " + ", ".join(_fmt(a) for a in args))
        return "\n".join(lines)


def _fmt(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return f"np.array({v.tolist()!r}, dtype=np.{v.dtype})"
    if isinstance(v, np.generic):
        return f"np.{type(v).__name__}({v.item()!r})"
    return repr(v)


@dataclass
class _Scope:
    depth: int = 0  # block nesting
    loops: list[tuple[str, str]] = field(default_factory=list)  # (var, kind)

    @property
    def in_loop(self) -> bool:
        return bool(self.loops)


class _Gen:
    """Builds one program; ``draw`` is hypothesis' draw function."""

    def __init__(self, draw: Any, max_stmts: int, max_depth: int, rich: bool = False) -> None:
        self.draw = draw
        self.rich = rich
        self.budget = max_stmts
        self.max_depth = max_depth
        self.ret = "return x, y, s, t, c"
        self.helper = False  # a module-level `h(v, b)` that updates `v` in place exists

    # -- small helpers ----------------------------------------------------------------------
    def pick(self, options: Any) -> Any:
        return self.draw(st.sampled_from(options))

    def chance(self, p: float) -> bool:
        # an integer draw shrinks towards 0, i.e. towards "no"
        return self.draw(st.integers(0, 99)) < int(p * 100)

    # -- expressions ------------------------------------------------------------------------
    def index(self, sc: _Scope) -> str:
        """An index that is in range for arrays of length n >= 3."""
        options = ["0", "1", "-1", "n - 1", "2"]
        for var, kind in sc.loops:
            if kind in ("range_n", "range_k", "range_2", "range_rev", "range_dep"):
                options += [var, var]
            elif kind == "while":
                options += [f"{var} - 1", f"{var} - 1"]
            elif kind == "enum":
                options += [var]
        return self.pick(options)

    def fexpr(self, sc: _Scope, depth: int = 0) -> str:
        """A float scalar expression."""
        leaves = ["a", "s", "t", "CONST", "ARR[IDX]"]
        for var, kind in sc.loops:
            if kind == "iter":
                leaves.append(var)
        composites = ["BIN", "SCALE", "RED", "TERN", "ABS", "MAXMIN", "STATIC", "WHERE"]
        if self.rich:
            leaves += ["COUNTED", "TRACED_IDX"]
            composites += ["COUNT_RED", "DOT"]
        kind = self.pick(leaves + (composites if depth < 2 else []))
        if kind == "COUNTED":  # the int count as a float
            return "c * 0.5"
        if kind == "TRACED_IDX":  # an index that is traced once `c` is
            return f"{self.pick(ARRAYS)}[c % n]"
        if kind == "DOT":  # (of multiples of 1/4: exact in float32)
            return f"jnp.dot(x, {self.pick(ARRAYS)}) * 0.5"
        if kind == "COUNT_RED":  # a count of the elements over a bound, as a float
            # (not `jnp.sum(x > s) * 0.5`: NumPy's int32 sum times a float is float64)
            arr, bound = self.pick(ARRAYS), self.pick(["0.0", "s", "a"])
            return f"jnp.sum(jnp.where({arr} > {bound}, 0.5, 0.0))"
        if kind == "CONST":
            return self.pick(FLOAT_CONSTS)
        if kind == "ARR[IDX]":
            return f"{self.pick(ARRAYS)}[{self.index(sc)}]"
        if kind == "BIN":
            op = self.pick(["+", "-"])
            return f"{self.fexpr(sc, depth + 1)} {op} {self.atom(sc, depth + 1)}"
        if kind == "SCALE":
            return f"{self.atom(sc, depth + 1)} * {self.pick(['0.5', '2.0', '-1.0'])}"
        if kind == "RED":
            fn = self.pick(["sum", "max", "min"])
            return f"jnp.{fn}({self.pick(ARRAYS)})"
        if kind == "TERN":
            return (
                f"({self.fexpr(sc, depth + 1)} if {self.cond(sc, depth + 1)} "
                f"else {self.fexpr(sc, depth + 1)})"
            )
        if kind == "ABS":
            return f"jnp.abs({self.fexpr(sc, depth + 1)})"
        if kind == "MAXMIN":
            fn = self.pick(["maximum", "minimum"])
            return f"jnp.{fn}({self.fexpr(sc, depth + 1)}, {self.fexpr(sc, depth + 1)})"
        if kind == "WHERE":
            return (
                f"jnp.where({self.tcond(sc, depth + 1)}, {self.fexpr(sc, depth + 1)}, "
                f"{self.fexpr(sc, depth + 1)})"
            )
        if kind == "STATIC":
            return self.pick(["n * 0.5", "k * 1.0", "(k + 1) * 0.5", "float(n)"])
        return kind  # a name

    def atom(self, sc: _Scope, depth: int) -> str:
        e = self.fexpr(sc, depth)
        if any(op in e for op in (" + ", " - ", " if ")) and not e.startswith("("):
            return f"({e})"
        return e

    def tcond(self, sc: _Scope, depth: int = 0) -> str:
        """A traced comparison."""
        op = self.pick([">", "<", ">=", "<=", "=="])
        if self.chance(0.1):
            return f"{self.atom(sc, depth + 1)} < {self.atom(sc, depth + 1)} < {self.atom(sc, depth + 1)}"
        return f"{self.atom(sc, depth + 1)} {op} {self.atom(sc, depth + 1)}"

    def scond(self, sc: _Scope) -> str:
        """A static condition (shape-derived, the static int k, a static loop index)."""
        options = ["k > 1", "n > 3", "k == 0", "n == 3", "k >= n - 2"]
        for var, kind in sc.loops:
            if kind in ("range_n", "range_k", "range_2", "range_rev", "range_dep"):
                options += [f"{var} % 2 == 0", f"{var} > 0"]
        return self.pick(options)

    def cond(self, sc: _Scope, depth: int = 0) -> str:
        kind = self.pick(["T", "T", "S", "AND", "OR", "NOT", "ICMP"] if depth < 2 else ["T", "S"])
        if kind == "T":
            return self.tcond(sc, depth)
        if kind == "S":
            return self.scond(sc)
        if kind == "NOT":
            return f"not ({self.cond(sc, depth + 1)})"
        if kind == "ICMP":
            return self.pick(["c > 1", "c == 0", "c < k"])
        op = "and" if kind == "AND" else "or"
        return f"({self.cond(sc, depth + 1)}) {op} ({self.cond(sc, depth + 1)})"

    # -- statements -------------------------------------------------------------------------
    def block(self, sc: _Scope, indent: str, min_stmts: int = 1) -> list[str]:
        count = self.draw(st.integers(min_stmts, 3))
        out: list[str] = []
        for _ in range(count):
            if self.budget <= 0 and out:
                break
            self.budget -= 1
            out += self.stmt(sc, indent)
        return out or [indent + "pass"]

    def stmt(self, sc: _Scope, ind: str) -> list[str]:
        kinds = ["ASSIGN", "ASSIGN", "AUG", "ITEM", "ITEM", "MASK", "WHOLE", "COUNT", "TEMP"]
        if sc.depth < self.max_depth:
            kinds += ["IF", "IF", "FOR", "WHILE"]
        if sc.in_loop:
            kinds += ["BREAK", "CONTINUE"]
        if sc.depth > 0:
            kinds += ["RETURN"]
        if self.helper:
            kinds += ["CALL", "CALL"]
        if self.rich:
            kinds += RICH_STATEMENTS
        kind = self.pick(kinds)
        if kind in RICH_STATEMENTS:
            return self.rich_stmt(kind, sc, ind)
        if kind == "ASSIGN":
            return [f"{ind}{self.pick(FLOAT_SCALARS)} = {self.fexpr(sc)}"]
        if kind == "AUG":
            return [f"{ind}{self.pick(FLOAT_SCALARS)} {self.pick(['+=', '-='])} {self.fexpr(sc)}"]
        if kind == "COUNT":
            return [f"{ind}c += 1"]
        if kind == "TEMP":
            # a name first assigned here and only used right after
            return [f"{ind}u = {self.fexpr(sc)}", f"{ind}{self.pick(FLOAT_SCALARS)} = u * 0.5"]
        if kind == "ITEM":
            arr = self.pick(ARRAYS)
            form = self.pick(["SET", "ADD", "SLICE"])
            if form == "SET":
                return [f"{ind}{arr}[{self.index(sc)}] = {self.fexpr(sc)}"]
            if form == "ADD":
                return [f"{ind}{arr}[{self.index(sc)}] {self.pick(['+=', '-='])} {self.fexpr(sc)}"]
            sl = self.pick(["1:", ":2", "1:3", ":k"])
            return [f"{ind}{arr}[{sl}] = {self.fexpr(sc)}"]
        if kind == "MASK":
            arr = self.pick(ARRAYS)
            other = self.pick(ARRAYS)
            op = self.pick([">", "<"])
            value = self.pick(list(FLOAT_CONSTS) + ["s", "a"])
            return [f"{ind}{arr}[{other} {op} {self.pick(['0.0', '0.5', 's', 'a'])}] = {value}"]
        if kind == "WHOLE":
            arr = self.pick(ARRAYS)
            other = self.pick(ARRAYS)
            return [f"{ind}{arr} = {arr} * 0.5 + {self.pick([other, self.atom(sc, 1)])}"]
        if kind == "CALL":
            return [ind + self.call(sc)]
        if kind == "BREAK":
            return self.guarded(sc, ind, "break")
        if kind == "CONTINUE":
            return self.guarded(sc, ind, "continue")
        if kind == "RETURN":
            return self.guarded(sc, ind, self.ret)
        if kind == "IF":
            return self.if_stmt(sc, ind)
        if kind == "FOR":
            return self.for_stmt(sc, ind)
        return self.while_stmt(sc, ind)

    def call(self, sc: _Scope) -> str:
        """A call of the helper `h(v, b)`, which changes `v` in place (NumPy's meaning): its
        result put in place of the array, ignored or taken apart while the array is read later
        (`return x, y, ...`), or on a new array."""
        arr = self.pick(ARRAYS)
        b = self.fexpr(sc, 1)
        form = self.pick(["REBIND", "REBIND", "IGNORED", "ITEM", "FRESH"])
        if form == "REBIND":
            return f"{arr} = h({arr}, {b})"
        if form == "IGNORED":
            return f"h({arr}, {b})"
        if form == "ITEM":
            return f"{self.pick(FLOAT_SCALARS)} = h({arr}, {b})[{self.index(sc)}]"
        return f"{self.pick(FLOAT_SCALARS)} = jnp.sum(h({arr} * 0.5, {b}))"

    def helper_lines(self) -> list[str]:
        """`def h(v, b)`: one or two item updates of its argument, then `return v`."""
        body = []
        for _ in range(self.draw(st.integers(1, 2))):
            idx = self.pick(["0", "1", "-1"])
            body.append(
                self.pick([f"    v[{idx}] = b", f"    v[{idx}] += b * 0.5", "    v[v > 1.0] = 0.5"])
            )
        return ["def h(v, b):", *body, "    return v", "", ""]

    def guarded(self, sc: _Scope, ind: str, what: str) -> list[str]:
        if self.chance(0.8):
            return [f"{ind}if {self.cond(sc)}:", f"{ind}    {what}"]
        return [f"{ind}{what}"]

    def inner(self, sc: _Scope, loop: tuple[str, str] | None = None) -> _Scope:
        loops = sc.loops + ([loop] if loop else [])
        return _Scope(sc.depth + 1, loops)

    def if_stmt(self, sc: _Scope, ind: str) -> list[str]:
        out = [f"{ind}if {self.cond(sc)}:"] + self.block(self.inner(sc), ind + "    ")
        for _ in range(self.draw(st.integers(0, 2))):
            out += [f"{ind}elif {self.cond(sc)}:"] + self.block(self.inner(sc), ind + "    ")
        if self.chance(0.5):
            out += [f"{ind}else:"] + self.block(self.inner(sc), ind + "    ")
        return out

    def loop_var(self, sc: _Scope) -> str:
        return LOOP_VARS[len(sc.loops)]

    def for_stmt(self, sc: _Scope, ind: str) -> list[str]:
        var = self.loop_var(sc)
        forms = ["range_n", "range_k", "range_2", "iter", "enum"]
        outer = [v for v, kind in sc.loops if kind in ("range_n", "range_k", "range_rev")]
        if self.rich:
            forms += ["range_rev", "reversed", "zip"] + (["range_dep"] if outer else [])
        form = self.pick(forms)
        if form == "zip":  # two arrays' elements at once
            head = f"for {var}, v{var} in zip(x, y):"
            body_sc = self.inner(sc, (var, "iter"))
            body_sc.loops.append((f"v{var}", "iter"))
            return [ind + head] + self.block(body_sc, ind + "    ") + self.loop_else(sc, ind)
        if form == "range_rev":
            head = f"for {var} in range(n - 1, -1, -1):"
        elif form == "reversed":
            head, form = f"for {var} in reversed(range(n)):", "range_rev"
        elif form == "range_dep":  # a trip count that is the index of a loop around it
            head = f"for {var} in range({self.pick(outer)}):"
        elif form == "range_n":
            head = f"for {var} in range(n):"
        elif form == "range_k":
            head = f"for {var} in range(k):"
        elif form == "range_2":
            head = f"for {var} in range(1, n, 2):"
        elif form == "iter":
            head = f"for {var} in {self.pick(ARRAYS)}:"
        else:
            head = f"for {var}, v{var} in enumerate({self.pick(ARRAYS)}):"
        body_sc = self.inner(sc, (var, form))
        if form == "enum":
            body_sc.loops.append((f"v{var}", "iter"))
        return [ind + head] + self.block(body_sc, ind + "    ") + self.loop_else(sc, ind)

    def while_stmt(self, sc: _Scope, ind: str) -> list[str]:
        var = self.loop_var(sc)
        if self.rich and self.chance(0.25):
            # a `while` on a traced float of its own, which ends: `a * 0.5` is at most 1.5
            body = [f"{ind}    {var} = {var} + 1.0"]
            body += self.block(self.inner(sc, (var, "iter")), ind + "    ")
            return [f"{ind}{var} = a * 0.5", f"{ind}while {var} < 2.0:"] + body + self.loop_else(
                sc, ind
            )
        cond = self.cond(sc) if self.chance(0.8) else None
        head = f"while {var} < n and ({cond}):" if cond else f"while {var} < n:"
        body = [f"{ind}    {var} += 1"] + self.block(self.inner(sc, (var, "while")), ind + "    ")
        return [f"{ind}{var} = 0", ind + head] + body + self.loop_else(sc, ind)

    def loop_else(self, sc: _Scope, ind: str) -> list[str]:
        """A loop's `else:` clause (rich programs, one loop in five): it runs where no `break`
        left the loop."""
        if not (self.rich and self.chance(0.2)):
            return []
        return [f"{ind}else:"] + self.block(self.inner(sc), ind + "    ")

    # -- rich statements ---------------------------------------------------------------------
    def rich_stmt(self, kind: str, sc: _Scope, ind: str) -> list[str]:
        arr, other = self.pick(ARRAYS), self.pick(ARRAYS)
        if kind == "AUG_ITEM":  # every augmented item operator, with an exact operand
            op, value = self.pick(
                [("*=", "0.5"), ("*=", "2.0"), ("*=", "-1.0"), ("/=", "2.0"), ("/=", "0.5"),
                 ("-=", "s"), ("+=", "c * 0.25")]
            )  # fmt: skip
            return [f"{ind}{arr}[{self.index(sc)}] {op} {value}"]
        if kind == "MASK_AUG":
            op = self.pick(["+=", "-=", "*="])
            value = self.pick(["0.5", "2.0"]) if op == "*=" else self.fexpr(sc, 1)
            thr = self.pick(["0.0", "0.5", "s", "a"])
            return [f"{ind}{arr}[{other} {self.pick(['>', '<'])} {thr}] {op} {value}"]
        if kind == "MASK_COMPOUND":
            t1, t2 = self.pick(["0.0", "s", "a"]), self.pick(["0.5", "t", "-0.5"])
            mask = self.pick(
                [f"({arr} > {t1}) & ({other} < {t2})", f"~({other} > {t1})",
                 f"({arr} < {t1}) | ({other} >= {t2})"]
            )  # fmt: skip
            return [f"{ind}{arr}[{mask}] = {self.pick(['0.0', '1.5', 's', 'a'])}"]
        if kind == "SLICE":
            form = self.pick(["::2", "1::2", "-2:", "k:", "::-1", "SHIFT", "WHOLE"])
            if form == "SHIFT":  # overlapping source and target: NumPy copies first
                return [f"{ind}{arr}[1:] = {arr}[:-1]"]
            if form == "WHOLE":
                return [f"{ind}{arr}[:] = {other} * 0.5"]
            return [f"{ind}{arr}[{form}] = {self.fexpr(sc, 1)}"]
        if kind == "TRACED_INDEX":
            return [f"{ind}{arr}[c % n] = {self.fexpr(sc, 1)}"]
        if kind == "SWAP":
            if self.chance(0.5):
                return [f"{ind}s, t = t, s"]
            i, j = self.index(sc), self.index(sc)
            return [f"{ind}{arr}[{i}], {arr}[{j}] = {arr}[{j}], {arr}[{i}]"]
        if kind == "ALIAS":  # another name for the array (or a view of it), read after an update
            view = self.pick([arr, f"{arr}[1:]", f"{arr}[::-1]", f"{arr}.reshape(-1)"])
            return [
                f"{ind}w = {view}",
                f"{ind}{arr}[{self.pick(['0', '1', '-1'])}] = {self.fexpr(sc, 1)}",
                f"{ind}{self.pick(FLOAT_SCALARS)} = jnp.sum(w) * 0.5",
            ]
        if kind == "COPY":  # a copy updated on its own: the array keeps its values
            made = self.pick([f"jnp.copy({arr})", f"{arr} * 1.0", f"{arr}.copy()"])
            return [
                f"{ind}w = {made}",
                f"{ind}w[{self.index(sc)}] = {self.fexpr(sc, 1)}",
                f"{ind}{self.pick(FLOAT_SCALARS)} = w[{self.index(sc)}] + {arr}[0]",
            ]
        if kind == "LOCAL_DEF":  # a nested function reading the function's names
            target = self.pick(FLOAT_SCALARS)
            return [
                f"{ind}def g(v):",
                f"{ind}    return v * 0.5 + {self.pick(['s', 't', 'a', 'x[0]'])}",
                f"{ind}{target} = g({self.fexpr(sc, 1)})",
            ]
        if kind == "GRID":  # the 2-D `z` (n by 2): items, rows, columns, masks
            i, j = self.index(sc), self.pick(["0", "1", "-1"])
            form = self.pick(["ITEM", "CHAINED", "ROW", "COLUMN", "READ", "MASK2D", "ROWMASK"])
            if form == "ITEM":
                op = self.pick(["=", "+=", "*="])
                value = self.pick(["0.5", "2.0"]) if op == "*=" else self.fexpr(sc, 1)
                return [f"{ind}z[{i}, {j}] {op} {value}"]
            if form == "CHAINED":  # `z[i][j] = v`: NumPy's `z[i, j] = v`
                return [f"{ind}z[{i}][{j}] = {self.fexpr(sc, 1)}"]
            if form == "ROW":
                return [f"{ind}z[{i}] = {self.fexpr(sc, 1)}"]
            if form == "COLUMN":
                return [f"{ind}z[:, {j}] += {self.pick(ARRAYS)} * 0.5"]
            if form == "READ":
                return [f"{ind}{self.pick(FLOAT_SCALARS)} = z[{i}, {j}] + jnp.sum(z[:, {j}])"]
            if form == "MASK2D":
                return [f"{ind}z[z > {self.pick(['0.0', 's', 'a'])}] = {self.fexpr(sc, 1)}"]
            # ROWMASK: a 1-D mask selects rows of the 2-D array, with or without a column
            col = self.pick(["", ", 0", ", 1"])
            mask = f"{self.pick(ARRAYS)} > {self.pick(['0.0', 's'])}"
            return [f"{ind}z[{mask}{col}] = {self.fexpr(sc, 1)}"]
        if kind == "ROLL":  # a whole-array rebinding from its own slices
            return [f"{ind}{arr} = jnp.concatenate([{arr}[1:], {arr}[:1]])"]
        if kind == "INDEX_ARRAY":  # an index array, with repeats too (`+=` adds once in NumPy)
            idx = self.pick(["jnp.array([0, 2])", "jnp.array([1, 1])", "jnp.arange(k)"])
            op = self.pick(["=", "+=", "-="])
            return [f"{ind}{arr}[{idx}] {op} {self.fexpr(sc, 1)}"]
        # INT_TERNARY
        return [f"{ind}c = c + 1 if {self.cond(sc, 1)} else c - {self.pick(['0', '1'])}"]


RICH_STATEMENTS = [
    "AUG_ITEM", "MASK_AUG", "MASK_COMPOUND", "SLICE", "TRACED_INDEX", "SWAP", "ALIAS", "COPY",
    "LOCAL_DEF", "INT_TERNARY", "GRID", "GRID", "INDEX_ARRAY", "ROLL",
]  # fmt: skip

INITS = {
    "s": ("0.0", "a", "jnp.sum(x)", "x[0]", "1.0"),
    "t": ("0.0", "a * 0.5", "y[1]", "jnp.max(y)", "-1.0"),
}


@st.composite
def programs(draw: Any, max_stmts: int = 8, max_depth: int = 3, rich: bool = False) -> str:
    """Source text of a module defining ``f(x, y, a, k)`` (``rich``: see the module's doc)."""
    g = _Gen(draw, max_stmts, max_depth, rich)
    sc = _Scope()
    lines = ["import jax.numpy as jnp", "", ""]
    g.helper = g.chance(0.25)
    if g.helper:
        lines += g.helper_lines()
    lines += ["def f(x, y, a, k):", "    n = x.shape[0]"]
    for name, inits in INITS.items():
        lines.append(f"    {name} = {g.pick(inits)}")
    lines.append("    c = 0")
    if rich:  # a 2-D array too, returned with the rest
        lines.append("    z = jnp.zeros((n, 2))")
        g.ret = "return x, y, s, t, c, z"
    lines += g.block(sc, "    ")
    lines.append("    " + g.ret)
    return "\n".join(lines) + "\n"


_DYADIC = st.integers(-12, 12).map(lambda v: v / 4)


@st.composite
def inputs(draw: Any, n: int | None = None) -> tuple[Any, ...]:
    """Arguments for ``f(x, y, a, k)``: float32 vectors of length n, a float32 scalar, an int."""
    if n is None:
        n = draw(st.integers(3, 5))
    x = np.array(draw(st.lists(_DYADIC, min_size=n, max_size=n)), dtype=np.float32)
    y = np.array(draw(st.lists(_DYADIC, min_size=n, max_size=n)), dtype=np.float32)
    a = np.float32(draw(_DYADIC))
    k = draw(st.integers(0, 3))
    return (x, y, a, k)


@st.composite
def cases(
    draw: Any, n_inputs: int = 2, max_stmts: int = 8, max_depth: int = 3, rich: bool = False
) -> Program:
    """A program and ``n_inputs`` argument tuples of one shape (one compile when k is traced)."""
    src = draw(programs(max_stmts=max_stmts, max_depth=max_depth, rich=rich))
    n = draw(st.integers(3, 5))
    return Program(src, [draw(inputs(n)) for _ in range(n_inputs)])
