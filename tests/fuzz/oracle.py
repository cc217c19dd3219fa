"""Run a generated program both ways and classify the outcome.

The eager original runs with NumPy standing in for ``jnp`` (so ``x[i] = v`` mutates NumPy
arrays, as its author meant) with jax's 32-bit default dtypes. The converted text runs under
``jax.jit`` with the static arguments its ``FunctionConversion`` inferred.

Outcomes (``Outcome.kind``):

- ``converted``: the converted function ran under jit and matched the eager original on every
  input (value, shape, dtype) -- with or without informational refusals;
- ``refused``: jit failed on the converted function and the conversion reported refusals;
- ``invalid``: the eager original itself failed (a generator bug, not the converter's);
- bugs: ``crash`` (the rewriter raised), ``unparsable`` (the output does not parse),
  ``not-idempotent`` (converting the output again changes it), ``jit-error`` (jit failed and
  nothing was refused), ``wrong`` (a different value, shape or dtype), ``refusal-changed``
  (a refused statement was rewritten anyway), ``wrong-other-dtype`` (with
  ``other_dtypes=True``: a silently different value, shape or dtype on data of another
  dtype, int32, float16, bool, int8 or bfloat16, against the original run eagerly on jax
  arrays).

With ``decorator=True``, a program converted and equal is also run through ``@autojit.convert``
(imported from a file, as a user's module is: the decorator's own header, compile and
``jax.jit`` with the static arguments it inferred); more bugs: ``decorator-error`` (it raised),
``decorator-wrong`` (a different value, shape or dtype), ``decorator-differs`` (its converted
text or static arguments are not the file conversion's).
"""

from __future__ import annotations

import ast
import importlib.util
import itertools
import operator
import os
import re
import sys
import tempfile
import textwrap
import traceback
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import numpy as np  # noqa: E402

import autojit  # noqa: E402
from autojit.converters.base import EXPRESSION_REFUSALS, INFORMATIONAL_REFUSALS  # noqa: E402

from .kinds import BUGS, OK  # noqa: E402  (the names the tests and the soak read here)

__all__ = ["BUGS", "OK", "Outcome", "compare", "reduce", "run"]


class NumpyAsJnp:
    """``jax.numpy`` played by NumPy with jax's default dtypes (float32, int32)."""

    def __getattr__(self, name: str) -> Any:
        attr = getattr(np, name)
        if not callable(attr) or isinstance(attr, type):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            return _narrow(attr(*args, **kwargs))

        return call


def _narrow(v: Any) -> Any:
    if isinstance(v, (np.ndarray, np.generic)):
        if v.dtype == np.float64:
            return v.astype(np.float32)
        if v.dtype == np.int64:
            return v.astype(np.int32)
    return v


@dataclass
class Outcome:
    kind: str
    source: str
    converted: str = ""
    detail: str = ""
    refusals: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)

    @property
    def is_bug(self) -> bool:
        return self.kind in BUGS

    def report(self) -> str:
        parts = [f"# outcome: {self.kind}", self.source]
        if self.converted and self.converted != self.source:
            parts += ["# converted:", self.converted]
        if self.refusals:
            parts.append("# refusals:\n" + "\n".join(f"#   {r}" for r in self.refusals))
        if self.detail:
            parts.append("# detail:\n" + "\n".join(f"#   {d}" for d in self.detail.splitlines()))
        return "\n".join(parts) + "\n"


def _exec(text: str, name: str = "f") -> Callable:
    ns: dict[str, Any] = {"__name__": "aj_fuzz"}
    exec(compile(text, "<fuzz>", "exec"), ns)
    return ns[name]


def _numpy_original(text: str, name: str = "f") -> Callable:
    """The original with NumPy for ``jnp``, where only item updates mutate: ``t += s`` on an
    array rebinds ``t`` to a new array, as in jax (whose arrays have no in-place operators;
    in NumPy it would change every name bound to that array), and on anything else (a list)
    runs as Python runs it."""
    tree = ast.parse(text)
    for node in list(ast.walk(tree)):
        for _field, value in ast.iter_fields(node):
            if isinstance(value, list):
                value[:] = [_rebinding(v) for v in value]
    ns: dict[str, Any] = {"__name__": "aj_fuzz", "_jax_aug": _jax_aug}
    exec(compile(ast.fix_missing_locations(tree), "<fuzz>", "exec"), ns)
    fn = ns[name]
    fn.__globals__["jnp"] = NumpyAsJnp()
    return fn


def _rebinding(stmt: Any) -> Any:
    """`t op= v` (a name) -> `t = _jax_aug(t, 'op', v)`; any other statement as it is."""
    if not (isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name)):
        return stmt
    call = ast.Call(
        func=ast.Name("_jax_aug", ast.Load()),
        args=[
            ast.Name(stmt.target.id, ast.Load()),
            ast.Constant(type(stmt.op).__name__),
            stmt.value,
        ],
        keywords=[],
    )
    return ast.copy_location(ast.Assign([ast.Name(stmt.target.id, ast.Store())], call), stmt)


def _jax_aug(target: Any, op: str, value: Any) -> Any:
    if isinstance(target, (np.ndarray, np.generic)):
        return _narrow(getattr(operator, _OPERATOR[op])(target, value))
    # (`operator.iand` / `ior`, not `iand_`: the in-place names have no trailing underscore)
    return getattr(operator, "i" + _OPERATOR[op].rstrip("_"))(target, value)


_OPERATOR = {
    "Add": "add", "Sub": "sub", "Mult": "mul", "Div": "truediv", "FloorDiv": "floordiv",
    "Mod": "mod", "Pow": "pow", "MatMult": "matmul", "BitAnd": "and_", "BitOr": "or_",
    "BitXor": "xor", "LShift": "lshift", "RShift": "rshift",
}  # fmt: skip


def _copy(v: Any) -> Any:
    return v.copy() if isinstance(v, (np.ndarray, np.generic)) else v


def _leaf(v: Any) -> tuple[np.ndarray, np.dtype]:
    arr = np.asarray(v)
    if isinstance(v, (bool, int, float)) and not isinstance(v, np.generic):
        return arr, np.dtype(jax.dtypes.canonicalize_dtype(arr.dtype))
    return arr, arr.dtype


def compare(expected: Any, got: Any, rtol: float = 1e-4, atol: float = 1e-4) -> str | None:
    """None when equal (structure, shape, dtype, value; NaN == NaN), else what differs."""
    e_leaves, e_tree = jax.tree_util.tree_flatten(expected)
    g_leaves, g_tree = jax.tree_util.tree_flatten(got)
    if e_tree != g_tree:
        return f"structure {e_tree} != {g_tree}"
    for pos, (e, g) in enumerate(zip(e_leaves, g_leaves, strict=True)):
        ea, edt = _leaf(e)
        ga = np.asarray(g)
        if ea.shape != ga.shape:
            return f"output {pos}: shape {ea.shape} != {ga.shape}"
        if edt != ga.dtype:
            return f"output {pos}: dtype {edt} != {ga.dtype}"
        exact = edt.kind in "biu"  # (integers and bools: equal, not close)
        if exact and not np.array_equal(ga, ea):
            return f"output {pos}: eager {ea.tolist()!r} != jit {ga.tolist()!r}"
        if not exact and not np.allclose(ga, ea, rtol=rtol, atol=atol, equal_nan=True):
            return f"output {pos}: eager {ea.tolist()!r} != jit {ga.tolist()!r}"
    return None


def _last_line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text.splitlines()[0][:300] if text else type(exc).__name__


def _refused_kept(source: str, converted: str, refusals: Sequence[Any]) -> str | None:
    """A refused statement is left as it is: its first line is still in the output."""
    src_lines = source.splitlines()
    out_lines = [line.strip() for line in converted.splitlines()]
    for r in refusals:
        if r.code in EXPRESSION_REFUSALS:
            continue  # (an expression kept: the statement around it may be rewritten)
        line = src_lines[r.location.line - 1].strip()
        # the statement's head: its keyword, or its target and operator (a chained comparison
        # rewritten inside a refused statement is harmless)
        m = re.match(
            r"(if|elif|while|for|return|break|continue|pass)\b|([^=<>!]+?\s*[-+*/]?=)", line
        )
        head = m.group(0) if m else line
        if line and not any(o.startswith(head) for o in out_lines):
            if head == "elif" and _elif_under_else(line, out_lines):
                continue
            return f"{r.code} at line {r.location.line}: {line!r} is not in the output"
    return None


def _elif_under_else(line: str, out_lines: list[str]) -> bool:
    """A kept `elif` whose chain had a statement appended after it (a trailing `return` moved
    into the `else` of an outer branch) can only be written as `else:` then `if ...:` (an `elif`
    is a block holding the `if` alone): the same test, only the keyword is Python's."""
    as_if = line[len("el") :]
    return any(o == as_if and out_lines[i - 1] == "else:" for i, o in enumerate(out_lines) if i)


def run(
    source: str,
    inputs: Sequence[tuple[Any, ...]],
    name: str = "f",
    decorator: bool = False,
    other_dtypes: bool = False,
) -> Outcome:
    """Convert ``source``, run both ways on every input, classify (``decorator``: and through
    ``@autojit.convert`` too, where the file conversion matched; ``other_dtypes``: and on
    data of other dtypes, :func:`run_on_other_dtypes`)."""
    out = Outcome("converted", source)
    try:
        conv = autojit.convert_source(source, "fuzz.py", all_functions=True)
    except Exception as exc:  # a crash of the rewriter
        out.kind = "crash"
        out.detail = traceback.format_exc(limit=-4)
        out.detail = _last_line(exc) + "\n" + out.detail
        return out
    out.converted = conv.text
    out.refusals = [f"{r.code} line {r.location.line}: {r.reason}" for r in conv.refusals]
    out.changes = [f"{c.code} line {c.location.line}: {c.message}" for c in conv.changes]
    try:
        ast.parse(conv.text)
    except SyntaxError as exc:
        out.kind = "unparsable"
        out.detail = _last_line(exc)
        return out
    original = _numpy_original(source, name)
    expected = []
    for args in inputs:
        try:
            expected.append(original(*[_copy(a) for a in args]))
        except Exception as exc:
            out.kind = "invalid"
            out.detail = "the eager original failed: " + _last_line(exc)
            return out

    try:
        converted = _exec(conv.text, name)
        statics = conv.function(name).static_argnames
        jitted = jax.jit(converted, static_argnames=statics)
        got = [jitted(*[_copy(a) for a in args]) for args in inputs]
    except Exception as exc:
        # (an informational note, a static loop kept as Python, does not excuse a jit error)
        if any(r.code not in INFORMATIONAL_REFUSALS for r in conv.refusals):
            out.kind = "refused"
            out.detail = _last_line(exc)
            not_idempotent = _idempotence(conv.text)
            if not_idempotent is not None:
                out.kind, out.detail = not_idempotent
        else:
            out.kind = "jit-error"
            out.detail = _last_line(exc)
        return out
    for args, e, g in zip(inputs, expected, got, strict=True):
        diff = compare(e, g)
        if diff is not None:
            out.kind = "wrong"
            shown = ", ".join(_show(a) for a in args)
            out.detail = f"{diff}\ninputs: {shown}"
            return out
    not_idempotent = _idempotence(conv.text)
    if not_idempotent is not None:
        out.kind, out.detail = not_idempotent
        return out
    kept = _refused_kept(source, conv.text, conv.refusals)
    if kept is not None:
        out.kind = "refusal-changed"
        out.detail = kept
        return out
    if other_dtypes:
        differs = run_on_other_dtypes(source, inputs, conv, name)
        if differs is not None:
            out.kind, out.detail = "wrong-other-dtype", differs
            return out
    if decorator:
        problem = _via_decorator(source, inputs, expected, name, conv)
        if problem is not None:
            out.kind, out.detail = problem
    return out


# The same programs on data of other dtypes. NumPy's promotion differs from jax's there (int32
# times 0.5, float16 against float32), so the reference is the original itself, run eagerly on
# jax arrays: possible where it makes no item update (jax arrays have none) on those inputs.
OTHER_DTYPES = ("int32", "float16", "bool", "int8", "bfloat16")
_TOLERANCE = {"float16": 2e-2, "bfloat16": 5e-2}  # (else 1e-4; the generator's numbers are dyadic)


def as_dtype(args: tuple[Any, ...], dtype: str) -> tuple[Any, ...]:
    """``f(x, y, a, k)``'s arguments with the arrays and ``a`` of ``dtype`` (bools: ``x != 0``,
    ``y > 0``, ``a > 0``); the Python ``k`` as it is."""
    x, y, a, k = args
    if dtype == "bool":
        return (x != 0, y > 0, np.bool_(a > 0), k)
    kind = getattr(jax.numpy, dtype)  # (bfloat16 is ml_dtypes', which jax.numpy names)
    return (x.astype(kind), y.astype(kind), np.asarray(a).astype(kind)[()], k)


def run_on_other_dtypes(
    source: str, inputs: Sequence[tuple[Any, ...]], conv: Any, name: str = "f"
) -> str | None:
    """What differs where the jitted conversion of ``source`` silently differs from the eager
    original on data of one of ``OTHER_DTYPES`` (``wrong-other-dtype``); None otherwise.
    Not counted: inputs on which the original fails eagerly on jax arrays (an item update), a
    loud jit error (a carry or a `lax.cond` of two dtypes: jax says so), and a Python float
    (or a weakly typed array of one) that one path leaves where the conversion gives the
    other path's float16 (bfloat16) array of the same value (one dtype under jit, as jax's
    own loops promote a weakly typed start; README, Limitations)."""
    import jax.numpy as jnp

    try:
        original = _exec(source, name)
        converted = _exec(conv.text, name)
    except Exception:
        return None
    jitted = jax.jit(converted, static_argnames=conv.function(name).static_argnames)
    as_jax = (np.ndarray, np.generic)
    for dtype in OTHER_DTYPES:
        for args in inputs:
            data = as_dtype(args, dtype)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    expected = original(
                        *[jnp.asarray(v) if isinstance(v, as_jax) else v for v in data]
                    )
            except Exception:
                continue  # (the original cannot run eagerly on jax arrays here)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    got = jitted(*data)
            except Exception:
                continue  # loud
            tol = _TOLERANCE.get(dtype, 1e-4)
            diff = compare(_as_low_float_where_got(expected, got), got, rtol=tol, atol=tol)
            if diff is not None:
                shown = ", ".join(_show(a) for a in data)
                return f"on {dtype} data: {diff}\ninputs: {shown}"
    return None


def _weak_float(v: Any) -> bool:
    """A Python float, or a jax array of one (weakly typed: `jnp.abs(1.5)`), which takes the
    dtype of what it meets, as the float does."""
    if type(v) is float:
        return True
    return bool(getattr(v, "weak_type", False)) and np.asarray(v).dtype.kind == "f"


def _as_low_float_where_got(expected: Any, got: Any) -> Any:
    """``expected`` with each Python float (or weakly typed float array) that ``got`` gives as
    a float16 or bfloat16 array made one."""
    e_leaves, e_tree = jax.tree_util.tree_flatten(expected)
    g_leaves = jax.tree_util.tree_leaves(got)
    if len(e_leaves) != len(g_leaves):
        return expected
    low = (np.dtype(np.float16), np.dtype(jax.numpy.bfloat16))
    leaves = [
        np.asarray(e, np.asarray(g).dtype)[()]
        if _weak_float(e) and np.asarray(g).dtype in low
        else e
        for e, g in zip(e_leaves, g_leaves, strict=True)
    ]
    return jax.tree_util.tree_unflatten(e_tree, leaves)


_modules = itertools.count()


def _via_decorator(
    source: str, inputs: Sequence[tuple[Any, ...]], expected: list[Any], name: str, conv: Any
) -> tuple[str, str] | None:
    """Run ``source``'s function through ``@autojit.convert`` as a user would (its module
    imported from a file): None when it gives ``expected`` on every input, with the file
    conversion's text and static arguments; else (kind, detail)."""
    with tempfile.TemporaryDirectory(prefix="aj-fuzz-") as folder:
        path = os.path.join(folder, "fuzz_module.py")
        with open(path, "w") as fh:
            fh.write(source)
        module_name = f"aj_fuzz_module_{next(_modules)}"
        spec = importlib.util.spec_from_file_location(module_name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        cache = os.environ.get("AUTOJIT_CACHE")
        os.environ["AUTOJIT_CACHE"] = "0"  # (nothing written next to the file)
        try:
            spec.loader.exec_module(module)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                decorated = autojit.convert(getattr(module, name))
            got = [decorated(*[_copy(a) for a in args]) for args in inputs]
        except Exception as exc:
            return "decorator-error", _last_line(exc)
        finally:
            sys.modules.pop(module_name, None)
            if cache is None:
                os.environ.pop("AUTOJIT_CACHE", None)
            else:
                os.environ["AUTOJIT_CACHE"] = cache
    for args, e, g in zip(inputs, expected, got, strict=True):
        diff = compare(e, g)
        if diff is not None:
            shown = ", ".join(_show(a) for a in args)
            return "decorator-wrong", f"{diff}\ninputs: {shown}"
    fc = conv.function(name)
    if decorated.source.rstrip() != textwrap.dedent(fc.new_text).rstrip():
        return "decorator-differs", "the decorator's text:\n" + decorated.source
    if tuple(sorted(decorated.static_argnames)) != tuple(sorted(fc.static_argnames)):
        return "decorator-differs", (
            f"static arguments {sorted(decorated.static_argnames)} != the file conversion's "
            f"{sorted(fc.static_argnames)}"
        )
    return None


def _idempotence(text: str) -> tuple[str, str] | None:
    """Converting the output again changes nothing: else (kind, detail)."""
    try:
        again = autojit.convert_source(text, "fuzz.py", all_functions=True).text
    except Exception as exc:
        return "crash", "on converting the output again: " + _last_line(exc)
    if again != text:
        return "not-idempotent", "second conversion:\n" + again
    return None


def _show(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return f"np.array({v.tolist()!r}, dtype=np.{v.dtype})"
    if isinstance(v, np.generic):
        return f"np.{type(v).__name__}({v.item()!r})"
    return repr(v)


def eager_ok(source: str, inputs: Sequence[tuple[Any, ...]], name: str = "f") -> bool:
    """Whether the original runs eagerly on every input (a reduced program must stay valid)."""
    if _unbound_names(source):
        return False
    try:
        original = _numpy_original(source, name)
        for args in inputs:
            original(*[_copy(a) for a in args])
    except Exception:
        return False
    return True


def _unbound_names(source: str) -> set[str]:
    """Names read in the function but bound nowhere in it (a reduced program that still runs
    because the read is never reached is not a program anyone writes)."""
    fn = ast.parse(source).body[-1]
    assert isinstance(fn, ast.FunctionDef)
    bound = {a.arg for a in fn.args.args} | {"jnp", "range", "enumerate", "float", "np"}
    read = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                read.add(node.id)
            else:
                bound.add(node.id)
    return read - bound


# -- reducing a failing program ---------------------------------------------------------------


def _stmt_lists(tree: ast.AST) -> list[list[ast.stmt]]:
    out = []
    for node in ast.walk(tree):
        for fld in ("body", "orelse"):
            block = getattr(node, fld, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                out.append(block)
    return out


def reduce(
    source: str, inputs: Sequence[tuple[Any, ...]], kind: str, max_tries: int = 300
) -> tuple[str, list[tuple[Any, ...]]]:
    """Delete statements (and inputs) while the program still fails with ``kind``."""
    via = kind.startswith("decorator")  # (a decorator-path failure is found by that path)
    other = kind == "wrong-other-dtype"

    def fails(src: str, ins: Sequence[tuple[Any, ...]]) -> bool:
        try:
            return (
                eager_ok(src, ins)
                and run(src, ins, decorator=via, other_dtypes=other).kind == kind
            )
        except Exception:
            return False

    tries = 0
    if len(inputs) > 1:
        for one in inputs:
            tries += 1
            if fails(source, [one]):
                inputs = [one]
                break
    progress = True
    while progress and tries < max_tries:
        progress = False
        tree = ast.parse(source)
        fn = tree.body[-1]
        candidates: list[tuple[list[ast.stmt], int]] = []
        for block in _stmt_lists(fn):
            for i in range(len(block)):
                if i == 0 and any(
                    isinstance(w, ast.While) and w.body is block for w in ast.walk(fn)
                ):
                    continue  # keep a while loop's increment: without it the loop never ends
                candidates.append((block, i))
        for block, i in candidates:
            if block is fn.body and (i == 0 or i == len(block) - 1):
                continue  # keep `n = ...` and the final return
            tries += 1
            if tries > max_tries:
                break
            saved = block[i]
            replacements: list[list[ast.stmt]] = [[]]
            if isinstance(saved, (ast.If, ast.For, ast.While)):
                replacements.append(saved.body)  # hoist the body
            for repl in replacements:
                block[i : i + 1] = repl or [ast.Pass()]
                candidate = ast.unparse(_drop_passes(ast.parse(ast.unparse(tree))))
                block[i : i + len(repl or [1])] = [saved]
                if candidate != source and fails(candidate, inputs):
                    source = candidate + "\n"
                    progress = True
                    break
            if progress:
                break
    return source, list(inputs)


def _drop_passes(tree: ast.AST) -> ast.AST:
    for block in _stmt_lists(tree):
        kept = [s for s in block if not isinstance(s, ast.Pass)]
        block[:] = kept or [ast.Pass()]
    return tree
