"""Module-level facts the analyses need: which names are jax, jax.numpy, jax.lax, numpy;
which module names are constants; which names are functions of the module."""

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass, field

import gast as _gast

from .gastconv import child_nodes, walk_nodes

JAX_MODULES = {"jax", "jax.numpy", "jax.lax", "jax.random", "jax.nn", "jax.scipy", "jax.debug"}


@dataclass
class ModuleScope:
    # local alias -> full module path, e.g. {"jnp": "jax.numpy", "np": "numpy"}
    modules: dict[str, str] = field(default_factory=dict)
    # local name -> full dotted name for `from m import f` names, e.g. {"jit": "jax.jit"}
    imported_names: dict[str, str] = field(default_factory=dict)
    constants: set[str] = field(default_factory=set)
    # the int literals among them (`N = 3`), wherever in the module they are assigned: a
    # function reads them when it runs, after the module has run
    int_values: dict[str, int] = field(default_factory=dict)
    functions: dict[str, ast.AST] = field(default_factory=dict)
    classes: set[str] = field(default_factory=set)
    # class name -> its `class` statement (the last one of that name)
    class_nodes: dict[str, ast.ClassDef] = field(default_factory=dict)
    assigned: set[str] = field(default_factory=set)
    last_import_end: int = 0  # line after which new imports go (0: top of file)
    # imports a conversion will add ({"jax": "jax"}): generated code already reads them
    pending: dict[str, str] = field(default_factory=dict)
    first_stmt_line: int = 1

    def binds(self, name: str) -> bool:
        """Whether the module binds ``name`` at top level (import, assignment, def, class)."""
        return (
            name in self.modules
            or name in self.imported_names
            or name in self.assigned
            or name in self.functions
            or name in self.classes
        )

    def alias_for(self, module: str) -> str | None:
        """The file's own name for ``module`` (e.g. 'jnp' for 'jax.numpy'), if it has one."""
        for name, full in self.modules.items():
            if full == module:
                return name
        return None

    def qualified(self, dotted: str) -> str | None:
        """Resolve 'jnp.zeros' -> 'jax.numpy.zeros', 'jit' -> 'jax.jit'; None if unknown."""
        head, _, rest = dotted.partition(".")
        if head in self.modules:
            full = self.modules[head]
        elif head in self.imported_names:
            full = self.imported_names[head]
        elif head in self.pending:
            full = self.pending[head]
        else:
            return None
        return f"{full}.{rest}" if rest else full

    def is_jax_name(self, dotted: str) -> bool:
        q = self.qualified(dotted)
        return q is not None and (q == "jax" or q.startswith("jax."))

    @property
    def jax_aliases(self) -> set[str]:
        """Names that make a function "use jax": the public API only. Names from jax's private
        ``jax._src`` (jax's own internals) are unknown to the rules' tables, so a function that
        uses only those is not a candidate."""

        def public(m: str) -> bool:
            return (m == "jax" or m.startswith("jax.")) and not m.startswith("jax._src")

        out = {n for n, m in self.modules.items() if public(m)}
        out |= {n for n, m in self.imported_names.items() if public(m)}
        return out


_CONSTANT_NODES = (ast.Constant,)


def _is_constant_expr(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _is_constant_expr(node.operand)
    if isinstance(node, ast.Tuple):
        return all(_is_constant_expr(e) for e in node.elts)
    if isinstance(node, ast.BinOp):
        return _is_constant_expr(node.left) and _is_constant_expr(node.right)
    return False


def module_scope(tree: ast.Module) -> ModuleScope:
    scope = ModuleScope()
    reassigned: set[str] = set()
    if tree.body:
        first = tree.body[0]
        # a module docstring stays first
        scope.first_stmt_line = first.lineno
    for stmt in tree.body:
        _visit_top(stmt, scope, reassigned)
    scope.last_import_end = _import_insertion_line(tree.body)
    scope.constants -= reassigned
    for name in reassigned:
        scope.int_values.pop(name, None)
    return scope


def _import_insertion_line(body: list[ast.stmt]) -> int:
    """The line after which a conversion's new imports go (0: the top of the file):

    - at the end of the block of imports that holds the module's first import of jax (a
      top-level one before any definition, or a `try` block holding one): jax is imported
      there already, so an added `import jax` changes nothing the file does before it
      (`os.environ["JAX_ENABLE_X64"] = "1"` set before jax's import stays so);
    - else after the imports that open the module (its docstring, `from __future__`, plain
      imports, `try`/`if` blocks of imports), never after code: an import further down, in an
      `if __name__ == "__main__":` block or after a call of a converted function, comes too
      late for the code above it."""
    for i, stmt in enumerate(body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            break  # (an import of jax after a definition comes too late for its decorators)
        if _imports_jax(stmt) or (
            isinstance(stmt, ast.Try) and any(_imports_jax(s) for s in stmt.body)
        ):
            while i + 1 < len(body) and _an_import(body[i + 1]):
                i += 1  # (and the imports right after it: the end of that block of imports)
            return body[i].end_lineno or body[i].lineno
    end = 0
    for i, stmt in enumerate(body):
        docstring = (
            i == 0
            and isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str)
        )
        if not (docstring or _an_import(stmt)):
            break
        end = stmt.end_lineno or stmt.lineno
    return end


def _an_import(stmt: ast.stmt) -> bool:
    return isinstance(stmt, (ast.Import, ast.ImportFrom)) or (
        isinstance(stmt, (ast.If, ast.Try)) and _holds_only_imports(stmt)
    )


def is_jax_module(name: str) -> bool:
    """`jax` or one of its modules (not `jaxtyping`)."""
    return name == "jax" or name.startswith("jax.")


def _imports_jax(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Import):
        return any(is_jax_module(a.name) for a in stmt.names)
    if isinstance(stmt, ast.ImportFrom):
        return stmt.level == 0 and is_jax_module(stmt.module or "")
    return False


def _holds_only_imports(stmt: ast.If | ast.Try) -> bool:
    """`try: import x` / `except ImportError: x = None`, `if TYPE_CHECKING: import y`: a block
    of imports (and the assignments of their fallbacks), which new imports go after."""
    blocks = [stmt.body, stmt.orelse]
    if isinstance(stmt, ast.Try):
        blocks += [h.body for h in stmt.handlers] + [stmt.finalbody]
    stmts = [s for b in blocks for s in b]
    return any(isinstance(s, (ast.Import, ast.ImportFrom)) for s in stmts) and all(
        isinstance(s, (ast.Import, ast.ImportFrom, ast.Assign, ast.Pass)) for s in stmts
    )


def _visit_top(stmt: ast.stmt, scope: ModuleScope, reassigned: set[str]) -> None:
    if isinstance(stmt, ast.Import):
        for a in stmt.names:
            if a.asname:
                scope.modules[a.asname] = a.name
            else:
                top = a.name.split(".")[0]
                scope.modules[top] = top
    elif isinstance(stmt, ast.ImportFrom):
        if stmt.module and stmt.level == 0:
            for a in stmt.names:
                local = a.asname or a.name
                full = f"{stmt.module}.{a.name}"
                if full in JAX_MODULES or full in ("numpy.random", "numpy.linalg"):
                    scope.modules[local] = full
                else:
                    scope.imported_names[local] = full
    elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        scope.functions[stmt.name] = stmt
    elif isinstance(stmt, ast.ClassDef):
        scope.classes.add(stmt.name)
        scope.class_nodes[stmt.name] = stmt
    elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for t in targets:
            if isinstance(t, ast.Name):
                if t.id in scope.assigned:
                    reassigned.add(t.id)
                scope.assigned.add(t.id)
                if stmt.value is not None and _is_constant_expr(stmt.value):
                    scope.constants.add(t.id)
                    value = _int_literal(stmt.value)
                    if value is not None:
                        scope.int_values[t.id] = value
    elif isinstance(stmt, ast.If | ast.Try):
        # `try: import x except ImportError` and `if TYPE_CHECKING:` blocks
        for sub in child_nodes(stmt):
            if isinstance(sub, ast.stmt):
                _visit_top(sub, scope, reassigned)
            elif isinstance(sub, ast.ExceptHandler):
                for s in sub.body:
                    _visit_top(s, scope, reassigned)


def _int_literal(node) -> int | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int_literal(node.operand)
        return -inner if inner is not None else None
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def dotted_name(node) -> str | None:
    """`a.b.c` for a chain of attributes on a name (an ``ast`` or ``gast`` node), else None."""
    kind = type(node)
    if kind in _NAMES:  # (the commonest: a plain name)
        return node.id
    parts = []
    while kind in _ATTRIBUTES or (kind not in _NAMES and kind.__name__ == "Attribute"):
        parts.append(node.attr)
        node = node.value
        kind = type(node)
    if kind in _NAMES or kind.__name__ == "Name":
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


# the classes named Attribute / Name of ast and gast (any other class so named is tested by
# its name, as before)
_ATTRIBUTES = frozenset({ast.Attribute, _gast.Attribute})
_NAMES = frozenset({ast.Name, _gast.Name})


def jax_decorated(node, scope: ModuleScope, autojit: bool = True) -> bool:
    """Whether a function (an ``ast`` or gast ``def``) has a jax or (``autojit``) autojit
    decorator (``@jax.jit``, ``@partial(jax.jit, ...)``, ``@jax.vmap``, ``@autojit.convert``...):
    its callers call the transformed function, which never changes their arrays."""
    for d in node.decorator_list:
        target = d.func if isinstance(d, (ast.Call, _gast.Call)) else d
        name = dotted_name(target)
        if name is None:
            continue
        if name.endswith("partial") and isinstance(d, (ast.Call, _gast.Call)) and d.args:
            name = dotted_name(d.args[0]) or name
        q = scope.qualified(name) or name
        if q.startswith("jax.") or q == "jit":
            return True
        if autojit and (q.startswith("autojit.") or q == "convert"):
            return True
    return False


def is_jit(qualified: str | None) -> bool:
    """``jax.jit``, also as re-exported inside jax (``jax._src.api.jit``)."""
    return qualified is not None and (
        qualified == "jax.jit" or (qualified.startswith("jax.") and qualified.endswith("api.jit"))
    )


def resolved_name(node, scope: ModuleScope) -> str | None:
    """The dotted name ``node`` writes, qualified by the module's imports where they say."""
    name = dotted_name(node)
    if name is None:
        return None
    return scope.qualified(name) or name


def jit_decorator_kind(dec, scope: ModuleScope) -> str | None:
    """'bare' (@jax.jit), 'call' (@jax.jit(...)), 'partial' (@partial(jax.jit, ...)) or None."""
    if is_jit(resolved_name(dec, scope)):
        return "bare"
    if isinstance(dec, ast.Call):
        if is_jit(resolved_name(dec.func, scope)) and not dec.args:
            return "call"
        if resolved_name(dec.func, scope) == "functools.partial" and dec.args:
            if is_jit(resolved_name(dec.args[0], scope)):
                return "partial"
    return None


def jit_calls(roots, scope: ModuleScope) -> dict[str, list[tuple[ast.Call, str]]]:
    """``jax.jit(f, ...)`` and ``partial(jax.jit, ...)(f)`` in ``roots`` (a module, or some of
    its top-level statements), by the name of the function jitted: the call that holds the
    static-argument keywords, and its kind ('call', 'partial'). A name a function (or a
    comprehension) around the call binds is not the module's: not counted."""
    out: dict[str, list[tuple[ast.Call, str]]] = {}
    for root in roots:
        for node, bound in calls_with_bound_names(root):
            if not (node.args and isinstance(node.args[0], ast.Name)):
                continue
            name = node.args[0].id
            if name in bound:
                continue  # (`def make(f): return jax.jit(f)`: another `f`, the function's own)
            if is_jit(resolved_name(node.func, scope)):
                out.setdefault(name, []).append((node, "call"))
            elif (
                isinstance(node.func, ast.Call)
                and jit_decorator_kind(node.func, scope) == "partial"
                and len(node.args) == 1
            ):
                out.setdefault(name, []).append((node.func, "partial"))
    return out


def statements_on_lines(body: list, text: str, pattern: re.Pattern[str]) -> list:
    """The statements of ``body`` (a module's top level) that span a line of ``text`` on which
    ``pattern`` matches: the only ones a search for what it matches needs to walk."""
    lines, line, at = [], 1, 0
    for m in pattern.finditer(text):  # (in order: each count starts where the last ended)
        line += text.count("\n", at, m.start())
        at = m.start()
        lines.append(line)
    return [
        st
        for st in body
        if (i := bisect.bisect_left(lines, st.lineno)) < len(lines)
        and lines[i] <= (st.end_lineno or st.lineno)
    ]


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def calls_with_bound_names(tree: ast.AST):
    """(call, names) for every call in ``tree`` (a module, or one of its top-level statements),
    with the names the functions around it bind (their parameters, and the names stored
    anywhere in them): there a name is not the module's."""
    stack: list[tuple[ast.AST, frozenset[str]]] = [(tree, frozenset())]
    while stack:
        node, bound = stack.pop()
        if isinstance(node, _SCOPES):
            a = node.args
            params = [*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, [a.vararg, a.kwarg])]
            body = node.body if isinstance(node.body, list) else [node.body]
            stored = {
                n.id
                for b in body
                for n in walk_nodes(b)
                if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
            }
            inner = bound | {p.arg for p in params} | stored
            stack.extend((d, bound) for d in getattr(node, "decorator_list", ()))
            stack.extend((d, bound) for d in [*a.defaults, *a.kw_defaults] if d is not None)
            stack.extend((b, inner) for b in body)
            continue
        if isinstance(node, _COMPREHENSIONS):  # (`[jax.jit(f) for f in fs]`)
            bound = bound | {
                n.id for g in node.generators for n in walk_nodes(g.target) if isinstance(n, ast.Name)
            }
        if isinstance(node, ast.Call):
            yield node, bound
        stack.extend((c, bound) for c in ast.iter_child_nodes(node))
