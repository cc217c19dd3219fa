"""What every converter gets: the function, its analyses, the file, and a place to report."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import gast

from ..analysis import FunctionAnalysis, dotted_name
from ..analysis.activity import names_in
from ..analysis.sharing import Sharing
from ..analysis.statements import walk_statements
from ..gastconv import NodeTransformer, walk_nodes
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
# refusals that report an expression left as it is (a boolean selection, a value-sized call),
# not a statement: the statement around it may still be rewritten (`print(x[m])` ->
# `jax.debug.print(...)`), and the refusal still explains a jit error there
EXPRESSION_REFUSALS = frozenset({"AJ921", "AJ940", "AJ941", "AJ942", "AJ943", "AJ945"})


def bool_argument(ctx: Context, node):
    """The argument of `bool(t)` (the builtin, rebound neither in the module nor in the
    function) of a computed value (`bool(x.sum() > 0)`, `bool(x[0])`), whose truth a traced
    test takes instead (`bool()` of a traced value fails under jit); None for anything else."""
    if (
        isinstance(node, gast.Call)
        and isinstance(node.func, gast.Name)
        and node.func.id == "bool"
        and len(node.args) == 1
        and not node.keywords
        # (not of a bare name: a parameter may be a tuple, whose truth is its length's)
        and not isinstance(node.args[0], (gast.Starred, gast.Name, gast.Attribute))
        and not ctx.scope.binds("bool")
        and "bool" not in ctx.analysis.activity.of_block(ctx.fn.body).writes
    ):
        return node.args[0]
    return None


def builtin_reduction(ctx: Context, node, stmt) -> tuple[str, Any] | None:
    """("all" | "any", argument) for the builtin `all(t)` / `any(t)` (rebound neither in the
    module nor in the function) of one computed array (`all(x > 0)`): Python takes bool() of
    each item of a 1-D array, which fails on traced items; `jnp.all` / `jnp.any` give that
    truth. None for anything else (a generator, a list display: Python's own iteration)."""
    if (
        isinstance(node, gast.Call)
        and isinstance(node.func, gast.Name)
        and node.func.id in ("all", "any")
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], _ARRAY_EXPRESSIONS)
        and not ctx.scope.binds(node.func.id)
        and node.func.id not in ctx.analysis.activity.of_block(ctx.fn.body).writes
        and ctx.analysis.value(node.args[0], stmt).traced
    ):
        return node.func.id, node.args[0]
    return None


_ARRAY_EXPRESSIONS = (gast.Compare, gast.Call, gast.Name, gast.Attribute, gast.Subscript, gast.BinOp)


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

    def sharing(self) -> Sharing:
        """The may-share analysis of the function (:mod:`autojit.analysis.sharing`), made once
        per analysis, on the first question."""
        made = self.__dict__.get("_aj_sharing")
        if made is None or made[0] is not self.analysis:
            made = (self.analysis, Sharing(self.fn, self.analysis, self.scope))
            self._aj_sharing = made  # type: ignore[attr-defined]
        return made[1]

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
        body = getattr(node, "body", None)
        if isinstance(node, gast.stmt) and isinstance(body, list) and body:
            # a compound statement: its header's lines (`if c:`; a bare `# noqa` on the last
            # line of its body is that statement's, not the `if`'s)
            lines = set(range(line, max(line, getattr(body[0], "lineno", line) - 1) + 1))
        else:
            lines = {line, getattr(node, "end_lineno", line) or line}
        for ln in lines:
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


_DOMAIN_RESTRICTED = frozenset(
    """sqrt log log1p log2 log10 arcsin arccos arctanh arccosh reciprocal divide true_divide
    floor_divide mod remainder power float_power tan exp exp2 expm1 cosh sinh cbrt""".split()
)  # (and those that overflow or whose derivative is infinite somewhere: `if x < 80:
# y = jnp.exp(x)` as `jnp.where` gives a NaN gradient where exp(x) is inf, a `lax.cond` none)


def _outside_its_domain(node) -> bool:
    """`a / b`, `a // b`, `a % b` by a value that may be 0, or `a ** b` with an exponent that is
    no non-negative integer: undefined (or not differentiable) for some values."""
    if isinstance(node.op, (gast.Div, gast.FloorDiv, gast.Mod)):
        d = node.right
        if isinstance(d, gast.UnaryOp) and isinstance(d.op, gast.USub):
            d = d.operand
        return not (isinstance(d, gast.Constant) and type(d.value) in (int, float) and d.value)
    if isinstance(node.op, gast.Pow):
        e = node.right
        return not (isinstance(e, gast.Constant) and type(e.value) is int and e.value >= 0)
    return False


# functions whose derivative is infinite or undefined somewhere besides those of
# _DOMAIN_RESTRICTED (a norm's at 0)
_SINGULAR = _DOMAIN_RESTRICTED | {"norm", "arctan2", "hypot", "rsqrt", "logsumexp", "abs"}


def singular_somewhere(scope, node) -> bool:
    """Whether ``node`` computes a function whose derivative is infinite or undefined for some
    values (`jnp.sqrt`, `jnp.log`, `jnp.linalg.norm`, `a / b`, `a ** 0.5`)."""
    for n in walk_nodes(node):
        if isinstance(n, gast.BinOp) and _outside_its_domain(n):
            return True
        if isinstance(n, gast.Call):
            fname = dotted_name(n.func) or ""
            qual = scope.qualified(fname) or fname
            if qual.startswith("jax.") and qual.rsplit(".", 1)[-1] in _SINGULAR:
                return True
    return False
