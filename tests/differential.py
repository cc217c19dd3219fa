"""Differential testing: the eager original against the converted function under ``jax.jit``.

The eager original keeps NumPy's meaning: it runs on NumPy copies of the inputs (so ``x[i] = y``
mutates in place, as the author meant). Where the original itself only works on JAX arrays
(``x.at[mask].set(v)``), it runs eagerly on JAX arrays instead. The converted text is compiled
in a fresh namespace and jitted with the static arguments its ``FunctionConversion`` inferred.
"""

from __future__ import annotations

import ast
import copy
import os
from collections.abc import Callable, Sequence
from typing import Any

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import autojit  # noqa: E402

_counter = [0]


def load(text: str, filename: str = "<converted>") -> dict[str, Any]:
    """Run a module's text in a fresh namespace and return it."""
    _counter[0] += 1
    ns: dict[str, Any] = {"__name__": f"aj_diff_{_counter[0]}"}
    exec(compile(text, filename, "exec"), ns)
    return ns


def convert(text: str, filename: str = "m.py", **kw: Any) -> autojit.Conversion:
    kw.setdefault("all_functions", True)
    return autojit.convert_source(text, filename, **kw)


def _to_numpy(v: Any) -> Any:
    if isinstance(v, jax.Array):
        return np.asarray(v)
    if isinstance(v, np.ndarray):
        return v.copy()
    return copy.deepcopy(v)


def _to_jax(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        return jnp.asarray(v)
    return copy.deepcopy(v)


class _NumpyAsJnp:
    """`jax.numpy` played by NumPy, with jax's default 32-bit dtypes: what code that builds an
    array with `jnp.zeros(...)` and then assigns into it means."""

    def __getattr__(self, name: str) -> Any:
        attr = getattr(np, name)
        if not callable(attr) or isinstance(attr, type):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            out = attr(*args, **kwargs)
            if isinstance(out, np.ndarray) and "dtype" not in kwargs:
                if out.dtype == np.float64:
                    out = out.astype(np.float32)
                elif out.dtype == np.int64:
                    out = out.astype(np.int32)
            return out

        return call


def _with_numpy_jnp(fn: Callable) -> Callable:
    import types

    g = dict(fn.__globals__)
    for k, v in list(g.items()):
        if v is jnp:
            g[k] = _NumpyAsJnp()
    return types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)


def run_eager(fn: Callable, args: Sequence, kwargs: dict | None = None) -> Any:
    """The original's meaning: on NumPy copies; with NumPy for `jnp` where it assigns into an
    array it built with `jnp`; on JAX arrays where it needs `.at`."""
    kwargs = kwargs or {}
    try:
        return fn(*[_to_numpy(a) for a in args], **{k: _to_numpy(v) for k, v in kwargs.items()})
    except AttributeError as e:
        if "'numpy.ndarray' object has no attribute 'at'" not in str(e):
            raise
    except TypeError as e:
        if "immutable" not in str(e):
            raise
        fn = _with_numpy_jnp(fn)
        return fn(*[_to_numpy(a) for a in args], **{k: _to_numpy(v) for k, v in kwargs.items()})
    return fn(*[_to_jax(a) for a in args], **{k: _to_jax(v) for k, v in kwargs.items()})


def run_jitted(
    fn: Callable, static_argnames: Sequence[str], args: Sequence, kwargs: dict | None = None
) -> Any:
    kwargs = kwargs or {}
    jitted = jax.jit(fn, static_argnames=tuple(static_argnames))
    return jitted(*[_to_numpy(a) for a in args], **{k: _to_numpy(v) for k, v in kwargs.items()})


def _leaf(v: Any) -> tuple[np.ndarray, bool]:
    """(array, whether it was a Python scalar, whose dtype jax canonicalises)."""
    if isinstance(v, (bool, int, float, complex)) and not isinstance(v, np.generic):
        return np.asarray(v), True
    return np.asarray(v), False


def _canonical(dtype: np.dtype) -> np.dtype:
    return np.dtype(jax.dtypes.canonicalize_dtype(dtype))


def assert_same(expected: Any, got: Any, *, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """Same structure, shapes, dtypes and values (NaN equal to NaN)."""
    e_leaves, e_tree = jax.tree_util.tree_flatten(expected)
    g_leaves, g_tree = jax.tree_util.tree_flatten(got)
    assert e_tree == g_tree, f"structure differs: {e_tree} vs {g_tree}"
    for e, g in zip(e_leaves, g_leaves, strict=True):
        ea, python_scalar = _leaf(e)
        ga = np.asarray(g)
        assert ea.shape == ga.shape, f"shape {ea.shape} != {ga.shape}"
        edt = _canonical(ea.dtype) if python_scalar else ea.dtype
        assert edt == ga.dtype, f"dtype {ea.dtype} != {ga.dtype}"
        if ea.dtype.kind in "fc":
            np.testing.assert_allclose(ga, ea, rtol=rtol, atol=atol, equal_nan=True)
        else:
            np.testing.assert_array_equal(ga, ea)


def check(
    before: str,
    name: str,
    calls: Sequence[tuple[Sequence, dict]],
    *,
    filename: str = "m.py",
    conversion: autojit.Conversion | None = None,
    expect_codes: Sequence[str] = (),
    **kw: Any,
) -> autojit.Conversion:
    """Convert ``before``; for each (args, kwargs) compare eager original and jitted converted."""
    c = conversion or convert(before, filename, **kw)
    got_codes = {ch.code for ch in c.changes}
    for code in expect_codes:
        assert code in got_codes, f"{code} not applied: {c.changes} {c.refusals}\n{c.text}"
    original = load(before, filename)[name]
    converted = load(c.text, filename)[name]
    statics = c.function(name).static_argnames
    for args, kwargs in calls:
        expected = run_eager(original, args, kwargs)
        got = run_jitted(converted, statics, args, kwargs)
        try:
            assert_same(expected, got)
        except AssertionError as e:
            raise AssertionError(f"{e}\nargs={args!r}\nconverted:\n{c.text}") from None
    return c


def parse_call(line: str, env: dict[str, Any]) -> tuple[str, list, dict]:
    """`f(np.arange(3), 2, k=1)` -> ('f', [array, 2], {'k': 1}), arguments evaluated in env."""
    node = ast.parse(line.strip(), mode="eval").body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError(f"an input line must be a call of a function by name: {line!r}")

    def ev(e: ast.expr) -> Any:
        return eval(compile(ast.Expression(e), "<inputs>", "eval"), dict(env))

    args = [ev(a) for a in node.args]
    kwargs = {k.arg: ev(k.value) for k in node.keywords if k.arg}
    return node.func.id, args, kwargs


INPUT_ENV: dict[str, Any] = {"np": np, "jnp": jnp, "jax": jax}


def imports_autojit(text: str) -> bool:
    for n in ast.walk(ast.parse(text)):
        if isinstance(n, ast.Import) and any(a.name.split(".")[0] == "autojit" for a in n.names):
            return True
        if isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "autojit":
            return True
    return False


def stdout_of(fn: Callable[..., Any], *args: Any) -> str:
    """What calling ``fn(*args)`` prints, `jax.debug.print` (which runs on its own thread)
    included."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        jax.block_until_ready(fn(*args))
        jax.effects_barrier()
    return out.getvalue()
