"""Static-argument inference: each jitted result runs with several values of every inferred static
argument and is compared with the eager original; negative cases where nothing may be static."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from differential import assert_same, load

import autojit

F32, I32 = np.float32, np.int32
HEADER = "import jax\nimport jax.numpy as jnp\nfrom jax import random\n\n\n"
X = np.arange(12, dtype=F32) - 4.0
KEY = jax.random.PRNGKey(0)


def _convert(src: str, **kw) -> autojit.Conversion:
    kw.setdefault("all_functions", True)
    return autojit.convert_source(src, "statics.py", **kw)


def _run_both(c: autojit.Conversion, src: str, name: str, calls) -> None:
    """The original eagerly (JAX arrays) against the converted one under jax.jit with the
    inferred static arguments, for each call."""
    original, converted = load(src)[name], load(c.text)[name]
    statics = c.function(name).static_argnames
    jitted = jax.jit(converted, static_argnames=statics)
    for args in calls:
        expected = original(*args)
        got = jitted(*args)
        assert_same(expected, got)


# (id, source of f, expected static names, calls: several values of every static argument)
POSITIVE = [
    (
        "create_filled",  # the seed
        "def f(val, length):\n    return jnp.full((length,), val)\n",
        ("length",),
        [(1.0, 5), (F32(2.5), 2), (3, 17)],
    ),
    (
        "multinomial_sample",  # the seed
        "def f(rng_key, logits, n_samples):\n"
        "    return random.categorical(rng_key, logits, shape=[n_samples, ])\n",
        ("n_samples",),
        [(KEY, jnp.log(jnp.arange(1.0, 5.0)), n) for n in (1, 50, 150)],
    ),
    (
        "through-locals",
        "def f(x, n):\n    m = 2 * n\n    k = m + 1\n    return jnp.zeros(k) + x.sum()\n",
        ("n",),
        [(X, 0), (X, 3), (X, 7)],
    ),
    (
        "arange-eye-linspace",
        "def f(x, n):\n    return jnp.arange(n) * x[0], jnp.eye(n), jnp.linspace(0.0, 1.0, num=n)\n",
        ("n",),
        [(X, 1), (X, 4)],
    ),
    (
        "random-shape-tuple",
        "def f(key, n, d):\n    return random.normal(key, (n, d)) + random.uniform(key, shape=(d,))\n",
        ("n", "d"),
        [(KEY, 2, 3), (KEY, 5, 1)],
    ),
    (
        "reshape-method",
        "def f(x, rows):\n    return x.reshape(rows, -1).sum(axis=0)\n",
        ("rows",),
        [(X, 2), (X, 3), (X, 6)],
    ),
    (
        "split-and-axis",
        "def f(x, parts, ax):\n    pieces = jnp.split(x, parts, axis=ax)\n"
        "    return pieces[0].mean(ax)\n",
        ("parts", "ax"),
        [(X.reshape(4, 3), 2, 0), (X.reshape(4, 3), 3, 1)],
    ),
    (
        "shape-tuple-param",
        "def f(x, shape):\n    return jnp.broadcast_to(x[0], shape) + jnp.ones(shape)\n",
        ("shape",),
        [(X, (2, 3)), (X, (4,))],
    ),
    (
        "shape-tuple-sliced",  # a tuple of ints read like an array: t[0], t[1:]
        "def f(x, shape):\n    return jnp.zeros(shape[1:]) + x[0] * shape[0]\n",
        ("shape",),
        [(X, (2, 3)), (X, (5, 4, 1))],
    ),
    (
        "slice-size",
        "def f(x, n):\n    return x[:n] * 2.0, x[n:]\n",
        ("n",),
        [(X, 0), (X, 5), (X, 12)],
    ),
    (
        "loop-counter-sets-a-shape",  # the loop stays Python, unrolled for each static n
        "def f(x, n):\n    out = []\n    for i in range(1, n + 1):\n"
        "        out.append(x[:i].sum())\n    return jnp.stack(out)\n",
        ("n",),
        [(X, 1), (X, 4), (X, 12)],
    ),
    (
        "dtype-param",
        "def f(x, dtype):\n    return x.astype(dtype) + jnp.zeros(3, dtype)[0]\n",
        ("dtype",),
        [(X, jnp.int32), (X, jnp.float32)],
    ),
    (
        "one-hot-and-tile",
        "def f(labels, classes, reps):\n"
        "    return jnp.tile(jax.nn.one_hot(labels, classes), reps)\n",
        ("classes", "reps"),
        [(np.array([0, 2, 1], I32), 3, (1, 2)), (np.array([1], I32), 5, (2, 1))],
    ),
    (
        "string-mode",
        "def f(x, mode):\n    if mode == 'train':\n        return x * 0.5\n"
        "    elif mode in ('eval', 'test'):\n        return x\n    return -x\n",
        ("mode",),
        [(X, "train"), (X, "eval"), (X, "other")],
    ),
    (
        "string-methods",
        "def f(x, mode):\n    if mode.lower().startswith('tr'):\n        return x * 0.5\n    return x\n",
        ("mode",),
        [(X, "Train"), (X, "eval")],
    ),
    (
        "bool-flag",
        "def f(x, use_bias, relu):\n    y = x * 2.0\n    if use_bias:\n        y = y + 1.0\n"
        "    if not relu:\n        return y\n    return jnp.maximum(y, 0.0)\n",
        ("use_bias", "relu"),
        [(X, True, True), (X, False, True), (X, True, False), (X, False, False)],
    ),
    (
        "callable",
        "def f(x, activation):\n    return activation(x) + 1.0\n",
        ("activation",),
        [(X, jnp.tanh), (X, jax.nn.relu)],
    ),
    (
        "callable-to-transform",
        "def f(x, g):\n    return jax.vmap(g)(x)\n",
        ("g",),
        [(X, jnp.sin), (X, jnp.cos)],
    ),
    (
        "bool-and-string-defaults",  # Python options: the analyses keep their `if`s Python
        "def f(x, double=False, unit='m'):\n    y = x * double + x\n"
        "    return jax.lax.cond(unit == 'm', lambda v: v, lambda v: v * 100.0, y)\n",
        ("double", "unit"),
        [(X, True, "m"), (X, False, "cm")],
    ),
    (
        "flag-in-conditional-expression",
        "def f(x, normalize=False):\n    return x / jnp.sum(x) if normalize else x\n",
        ("normalize",),
        [(X + 5.0, True), (X, False)],
    ),
    (
        "math-of-the-loop-index",  # math.cos / min need Python numbers: the bound is static
        "import math\n\ndef f(x, n):\n    for step in range(n):\n"
        "        lr = 0.5 * (1 + math.cos(math.pi * step / n))\n        x = x - lr * 0.1 * x\n"
        "    return x\n",
        ("n",),
        [(X, 1), (X, 4)],
    ),
    (
        "min-of-a-parameter",
        "def f(x, warm):\n    return x * min(1.0, 2.0 / warm)\n",
        ("warm",),
        [(X, 1.0), (X, 4.0)],
    ),
    (
        "recursion-depth",  # a traced depth could never end the recursion (both branches traced)
        "def f(x, k):\n    if k == 0:\n        return x\n    return f(x * 2.0, k - 1)\n",
        ("k",),
        [(X, 0), (X, 3)],
    ),
    (
        "enumerate-start",  # Python's enumerate counts from an int it needs at trace time
        "def f(x, k):\n    s = 0.0\n    for i, v in enumerate(x[:4], start=k):\n"
        "        s = s + i * v\n    return s\n",
        ("k",),
        [(X, 2), (X, -1)],
    ),
    (
        "start-of-a-fixed-size-slice",  # x[i:i + 2] keeps its size, but jax needs i static
        "def f(x, i):\n    return x[i:i + 2] * 2.0\n",
        ("i",),
        [(X, 0), (X, 1)],
    ),
    (
        "enumerate-start-positional",
        "def f(x, k):\n    return [i * v for i, v in enumerate(x[:3], k)]\n",
        ("k",),
        [(X, 0), (X, 5)],
    ),
]


@pytest.mark.parametrize("fid,src,statics,calls", POSITIVE, ids=[p[0] for p in POSITIVE])
def test_inferred_static_arguments_jit_for_several_values(fid, src, statics, calls):
    src = HEADER + src
    c = _convert(src)
    assert c.function("f").static_argnames == statics
    for s in c.function("f").static_arguments:
        assert s.reason and not s.user_declared and s.location.line > 5
    _run_both(c, src, "f", calls)


HELPERS = """
def make_buffer(n, fill):
    return jnp.full((n,), fill)


def pick(x, how):
    if how == "max":
        return x.max()
    return x.min()


def caller(x, k, how):
    buf = make_buffer(2 * k, 1.0)
    return buf * pick(x, how=how)


def deeper(x, size, how):
    return caller(x, size, how) + 1.0
"""


def test_static_through_helper_functions():
    src = HEADER + HELPERS
    c = _convert(src)
    assert c.function("make_buffer").static_argnames == ("n",)
    assert c.function("pick").static_argnames == ("how",)
    assert c.function("caller").static_argnames == ("k", "how")
    assert c.function("deeper").static_argnames == ("size", "how")
    k = c.function("caller").static_arguments[0]
    assert (
        "make_buffer" in k.reason
        and k.location.line == src.splitlines().index("    buf = make_buffer(2 * k, 1.0)") + 1
    )
    for k_, how in [(1, "max"), (3, "min"), (4, "max")]:
        _run_both(c, src, "caller", [(X, k_, how)])
        _run_both(c, src, "deeper", [(X, k_, how)])


def test_the_line_that_made_it_static():
    src = HEADER + "def f(val, length):\n    y = val * 2\n    return jnp.full((length,), y)\n"
    (s,) = _convert(src).function("f").static_arguments
    assert (s.name, s.index, s.location.line) == ("length", 1, 8)
    assert "`shape` of `jnp.full()`" in s.reason


# Sources where nothing may be made static: arrays only read by value, shapes read by .shape,
# conditions on array values (traced), parameters used as arrays anywhere.
NEGATIVE = [
    ("value-only", "def f(x, k):\n    return jnp.multiply(x, k)\n", [(X, F32(2.0))]),
    ("shape-attribute", "def f(x):\n    return jnp.zeros(x.shape[0] // 2) + x[:2].sum()\n", [(X,)]),
    ("len", "def f(x):\n    return jnp.ones(len(x)) * x\n", [(X,)]),
    (
        "traced-condition",  # c is also used as an array value: a traced condition
        "def f(x, c):\n    if c:\n        return x * c\n    return x\n",
        [(X, F32(2.0)), (X, F32(0.0))],
    ),
    (
        "numeric-comparison",  # the seeds' `if x > 0`: converted, not made static
        "def f(x, t):\n    if t > 0.5:\n        return x\n    return -x\n",
        [(X, F32(1.0)), (X, F32(0.0))],
    ),
    (
        "none-default-used-as-array",
        "def f(x, y=None):\n    if y is None:\n        return x\n    return x + y\n",
        [(X, X), (X, None)],
    ),
    ("dynamic-index", "def f(x, i):\n    return x[i] + jnp.take(x, i)\n", [(X, 3), (X, I32(5))]),
    (
        "loop-counter-as-index",  # a traced loop count: the loop is converted, not made static
        "def f(x, n):\n    s = 0.0\n    for i in range(n):\n        s = s + x[i]\n    return s\n",
        [(X, 3), (X, I32(7))],
    ),
    (
        "array-annotation-wins",  # the user says: an array, never static
        "def f(x, n: jax.Array):\n    return x * n\n",
        [(X, F32(3.0))],
    ),
]


@pytest.mark.parametrize("fid,src,calls", NEGATIVE, ids=[n[0] for n in NEGATIVE])
def test_nothing_static(fid, src, calls):
    src = HEADER + src
    c = _convert(src)
    assert c.function("f").static_argnames == ()
    _run_both(c, src, "f", calls)


def test_a_parameter_used_as_an_array_is_never_static():
    # `total` feeds a shape, but it comes from an array: the shape is data-dependent and jax
    # reports it; `x` must not become a static (unhashable) argument
    src = HEADER + "def f(x):\n    total = int(x.sum())\n    return jnp.zeros(total)\n"
    assert _convert(src).function("f").static_argnames == ()


def test_user_declarations_win():
    src = HEADER + "def f(x, n):\n    return jnp.zeros(n) + x[0]\n"
    c = _convert(src, static_argnames={"f": ["x"]})
    args = c.function("f").static_arguments
    assert [(a.name, a.user_declared) for a in args] == [("x", True), ("n", False)]
    src2 = HEADER + (
        "@jax.jit\ndef g(x, n):\n    return x\n\n\ndef f(x, n):\n    return jnp.zeros(n) + x[0]\n"
    )
    c2 = _convert(src2, static_argnames={"f": ["n"]})
    (a,) = c2.function("f").static_arguments
    assert (a.name, a.user_declared, a.reason) == ("n", True, "declared static")


# -- AJ402: static arguments likely to take many values ------------------------------------------


def _aj402(c: autojit.Conversion) -> list:
    return [ch for ch in c.changes if ch.code == "AJ402"]


def test_float_default_warns():
    src = (
        HEADER
        + "def smooth(x, width=0.5):\n    n = int(width * 10)\n    return jnp.ones(n) * x[0]\n"
    )
    c = _convert(src)
    (w,) = _aj402(c)
    assert "width" in w.message and "float" in w.message and w.location.line == 6
    assert c.text == src  # a warning, not a rewrite
    _run_both(c, src, "smooth", [(X, 0.3), (X, 0.5)])


def test_value_changing_in_a_loop_warns_at_the_call():
    src = HEADER + (
        "def head(x, n):\n    return x[:n]\n\n\n"
        "def main():\n    jitted = jax.jit(head, static_argnums=1)\n"
        "    for n in range(10):\n        jitted(jnp.ones(10), n)\n"
        "    head(jnp.ones(3), 2)\n"
    )
    c = _convert(src)
    (w,) = _aj402(c)
    assert w.location.line == 13 and "each iteration" in w.message


def test_a_new_lambda_at_each_call_warns():
    src = HEADER + (
        "def apply(x, fn):\n    return fn(x)\n\n\n"
        "def main(x, k):\n    return apply(x, lambda v: v * k)\n"
    )
    c = _convert(src)
    (w,) = _aj402(c)
    assert w.location.line == 11 and "new function object" in w.message


def test_no_warning_for_ints_or_declared_or_noqa():
    ints = HEADER + "def f(x, n=3):\n    return jnp.zeros(n) + x[0]\n\n\nf(jnp.ones(2), 4)\n"
    assert not _aj402(_convert(ints))
    declared = HEADER + "def f(x, w=0.5):\n    return jnp.ones(int(w * 4)) + x[0]\n"
    assert not _aj402(_convert(declared, static_argnames={"f": ["w"]}))
    noqa = HEADER + "def f(x, w=0.5):  # noqa: AJ402\n    return jnp.ones(int(w * 4)) + x[0]\n"
    assert not _aj402(_convert(noqa))
    assert not _aj402(_convert(declared, ignore=["AJ402"]))


def test_conversion_with_statics_is_idempotent():
    for _, src, _, _ in POSITIVE:
        c = _convert(HEADER + src)
        assert _convert(c.text).text == c.text


# -- examples/static_shapes.py: the seeds' create_filled, multinomial_sample, masked examples --

EXAMPLE = autojit.__file__.rsplit("/autojit/", 1)[0] + "/examples/static_shapes.py"
LOGITS = jnp.log(jnp.array([0.1, 0.2, 0.7]))
XS = jax.random.normal(KEY, (8,))
EXAMPLE_CALLS = {
    "create_filled": [(2.0, 5), (1, 10), (F32(-1.5), 1)],
    "multinomial_sample": [(KEY, LOGITS, 50), (KEY, LOGITS, 150), (KEY, LOGITS, 1)],
    "dropout": [(KEY, XS, 0.5), (KEY, XS, 0.25, "train"), (KEY, XS, 0.5, "eval")],
    "moving_average": [(jnp.arange(10.0), 3), (jnp.arange(10.0), 1), (XS, 8)],
    "top_rows": [(XS.reshape(4, 2), 2), (XS.reshape(4, 2), 4), (XS.reshape(2, 4), 1)],
    "positive_stats": [(XS,), (-jnp.abs(XS),), (XS.reshape(2, 4),)],
    "clipped_peak": [(XS, 1.0), (XS, F32(0.5)), (XS.reshape(4, 2), 2.0)],
    "masked_mean": [(XS, XS > 0), (XS.reshape(4, 2), XS[:4] > 0), (XS, jnp.array([1, 3]))],
}


def _example() -> tuple[str, autojit.Conversion]:
    with open(EXAMPLE, encoding="utf-8") as fh:
        text = fh.read()
    return text, autojit.convert_source(text, EXAMPLE)


def test_example_statics_and_rewrites():
    text, c = _example()
    got = {f.name: f.static_argnames for f in c.functions}
    assert got == {
        "create_filled": ("length",),
        "multinomial_sample": ("n_samples",),
        "dropout": ("mode",),
        "moving_average": ("window",),
        "top_rows": ("k",),
        "positive_stats": (),
        "clipped_peak": (),
        "masked_mean": (),
    }
    assert sum(ch.code == "AJ403" for ch in c.changes) == 6
    assert not c.refusals
    assert autojit.convert_source(c.text, EXAMPLE).text == c.text


@pytest.mark.parametrize("func", sorted(EXAMPLE_CALLS))
def test_example_functions_jitted_for_several_static_values(func):
    text, c = _example()
    _run_both(c, text, func, EXAMPLE_CALLS[func])


def test_example_main_block_fails_before_and_runs_after_add_jit():
    import contextlib
    import io

    from autojit.add_jit import add_jit

    text, c = _example()
    with contextlib.redirect_stdout(io.StringIO()), pytest.raises(TypeError, match="Shapes must"):
        exec(compile(text, EXAMPLE, "exec"), {"__name__": "__main__"})
    new, notes = add_jit(c.text, c)
    assert "jax.jit(create_filled, static_argnames=('length',))" in new
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(new, EXAMPLE, "exec"), {"__name__": "__main__"})
    assert len(out.getvalue().strip().splitlines()) >= 10


@pytest.mark.parametrize(
    "test, static",
    [
        ("isinstance(s, float)", True),
        ("isinstance(s, (int, float))", True),
        ("type(s) is float", True),
        ("isinstance(s, jax.Array)", False),
    ],
)
def test_parameter_tested_for_a_python_type_is_static(test, static):
    """`if isinstance(s, float):` is a static test, but traced, `s` is never a float: the
    other branch ran under jit, silently (x + 1 where Python gives x * s). A parameter tested
    for a Python scalar type is a static argument, whatever its other uses."""
    src = (
        "import jax\nimport jax.numpy as jnp\n\n"
        f"def f(x, s):\n    if {test}:\n        y = x * s\n    else:\n        y = x + 1\n"
        "    return y\n"
    )
    fc = autojit.convert_source(src, "m.py", all_functions=True).function("f")
    assert ("s" in fc.static_argnames) is static, fc.static_arguments
    if static:
        ns: dict = {}
        exec(compile(fc.new_text, "m.py", "exec"), {"jax": jax, "jnp": jax.numpy}, ns)
        got = jax.jit(ns["f"], static_argnames=fc.static_argnames)(np.ones(3, np.float32), 2.0)
        np.testing.assert_array_equal(np.asarray(got), [2.0, 2.0, 2.0])


@pytest.mark.parametrize(
    ("body", "count"),
    [
        ("    out = []\n    for i in range(n):\n        out.append(x * i)\n"
         "    return jnp.stack(out)\n", "n"),
        ("    out = [x]\n    for i in range(1, k + 1, 2):\n        if i > 2:\n"
         "            out.append(x * i)\n    return jnp.stack(out)\n", "k"),
        ("    rows = list()\n    for _ in range(n):\n        rows.extend([x, x + 1])\n"
         "    return rows\n", "n"),
    ],
)  # fmt: skip
def test_the_count_of_a_loop_building_a_python_list_is_static(body, count):
    """`out = []; for i in range(n): out.append(...)`: the list needs a length jax knows when
    tracing, so `n` is static (the loop was refused, AJ935, and the function failed under jit
    with a traced count; probe 23)."""
    src = HEADER + f"def f(x, {count}):\n" + body
    c = _convert(src)
    assert c.function("f").static_argnames == (count,), c.function("f").static_arguments
    for r in c.refusals:  # (kept as Python where the list is not stacked item by item)
        assert r.code == "AJ935" and "not known" not in r.reason, r
    _run_both(c, src, "f", [(X, 3), (X, 1), (X, 4)])


def test_a_loop_appending_to_something_other_than_a_list_infers_nothing():
    src = HEADER + (
        "def f(x, n, acc):\n    for i in range(n):\n        acc.append(x * i)\n"
        "    return x\n"
    )
    assert _convert(src).function("f").static_argnames == ()


@pytest.mark.parametrize(
    ("signature", "body", "reason"),
    [
        ("x, mode: str", "    match mode:\n        case 'sum':\n            return x.sum()\n"
         "        case _:\n            return x.mean()\n", "annotated `str`"),
        ("x, mode", "    return getattr(jnp, mode)(x)\n", "names an attribute"),
        ("x, mode", "    m = mode.lower()\n    if m == 'sum':\n        return x.sum()\n"
         "    return x.mean()\n", "`.lower()`"),
        # (compared to a string, and read otherwise too: probe K, L9)
        ("x, mode", "    if mode == 'sum':\n        return x.sum()\n    elif mode == 'mean':\n"
         "        return x.mean()\n    raise ValueError(f'unknown mode {mode}')\n",
         "compared to a string"),
        ("x, mode", "    print('mode:', mode)\n    if mode != 'sum':\n        return x.mean()\n"
         "    return x.sum()\n", "compared to a string"),
    ],
)  # fmt: skip
def test_string_parameters_are_static(signature, body, reason):
    """A parameter that can only be a string (annotated `str`, an attribute's name, a string
    method's receiver, compared to a string whatever else reads it) reached jit as an argument
    (probe 22: 'not a valid JAX type')."""
    src = HEADER + f"def f({signature}):\n" + body
    c = _convert(src)
    (arg,) = c.function("f").static_arguments
    assert arg.name == "mode" and reason in arg.reason, arg
    _run_both(c, src, "f", [(X, "sum"), (X, "mean")])


@pytest.mark.parametrize(
    "jitted",
    [
        "g_jit = jax.jit(g, static_argnums=1)",
        "g_jit = jax.jit(g, static_argnames=('k',))",
        "g_jit = partial(jax.jit, static_argnames='k')(g)",
    ],
)
def test_static_arguments_given_where_a_call_jits_the_function_are_static(jitted):
    """`g_jit = jax.jit(g, static_argnums=1)`: `k` is static there, as in a decorator, but only
    decorators were read, so `if k > 0:` became a `lax.cond` whose branches have different
    shapes, and `g_jit(x, 0)`, which ran, failed (probe D). Such a call's keywords count now; a
    call in a function that binds its own `g` does not."""
    body = (
        "from functools import partial\n\n\ndef g(x, k):\n    if k > 0:\n        y = jnp.sin(x) * k\n"
        "    else:\n        y = x[:2]\n    return y\n\n\n"
    )
    src = HEADER + body + jitted + "\n"
    c = _convert(src)
    assert not c.changed, c.text
    assert [s.name for s in c.function("g").static_arguments] == ["k"]
    ns = load(c.text)
    x = np.arange(3, dtype=np.float32)
    for k in (0, 2):
        assert_same(ns["g_jit"](x, k), load(src)["g"](jnp.asarray(x), k))
    other = HEADER + body + "def make(g):\n    return jax.jit(g, static_argnums=1)\n"
    assert "lax.cond" in _convert(other).text


def test_an_object_read_through_its_attributes_is_not_made_static(tmp_path, monkeypatch):
    """`jnp.zeros(cfg.n)` made `cfg` static, and `self` of `jnp.zeros(self.n)`: a static
    argument is hashed, by identity for most objects, so after `cfg.scale = 10.0` jit kept the
    first trace and returned the old result (silent; probe D). Such a parameter is left out of
    the static arguments with a refusal saying why (AJ944): jit then rejects the object
    loudly. Declared static by the user, it is static; a string's methods (`mode.lower()`)
    still make it static."""
    import importlib.util
    import sys

    src = HEADER + (
        "class Cfg:\n    def __init__(self, n, scale):\n        self.n = n\n        self.scale = scale\n\n\n"
        "def f(x, cfg):\n    return x * cfg.scale + jnp.zeros(cfg.n)\n\n\n"
        "class M:\n    def g(self, x):\n        return x + jnp.zeros(self.n)\n"
    )
    c = _convert(src)
    for name, param in (("f", "cfg"), ("M.g", "self")):
        fc = next(f for f in c.functions if f.qualname == name)
        assert fc.static_arguments == [], fc.static_arguments
        assert [r.code for r in fc.refusals] == ["AJ944"] and param in fc.refusals[0].reason
    declared = _convert(src, static_argnames={"f": ["cfg"]}).function("f")
    assert [s.name for s in declared.static_arguments] == ["cfg"] and not declared.refusals
    text = HEADER + "def h(x, mode):\n    if mode.lower() == 'sum':\n        return x.sum()\n    return x\n"
    assert [s.name for s in _convert(text).function("h").static_arguments] == ["mode"]
    # (the decorator: loud where it was stale)
    path = tmp_path / "aj_cfg_mod.py"
    path.write_text(src.replace("def f(", "@autojit.convert\ndef f(").replace(
        "import jax\n", "import jax\nimport autojit\n", 1
    ))
    spec = importlib.util.spec_from_file_location("aj_cfg_mod", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["aj_cfg_mod"] = mod
    try:
        spec.loader.exec_module(mod)
        with pytest.raises(TypeError, match="not marked as static"):
            mod.f(jnp.ones(3), mod.Cfg(3, 2.0))
    finally:
        sys.modules.pop("aj_cfg_mod", None)


@pytest.mark.parametrize(
    "body, call",
    [
        ("return jnp.partition(x, k)", (2,)),
        ("return jnp.round(x * 3.3, k)", (1,)),
        ("return (x * 3.3).round(k)", (2,)),
        ("return jax.image.resize(x, (k,), 'linear')", (8,)),
        ("return jax.scipy.special.logsumexp(x.reshape(2, 2), axis=k)", (1,)),
        ("return jnp.linalg.qr(x.reshape(2, 2), mode=k)[0]", ("complete",)),
        ("return jax.lax.reduce_window(x, 0.0, jax.lax.add, (k,), (1,), 'VALID')", (2,)),
    ],
)
def test_more_static_parameters_of_jax_functions(body, call):
    """jax needs these parameters static, and the table did not list them, so jit failed with
    no refusal (probe D: `jnp.partition` kth, `jnp.round` decimals, `jax.image.resize` shape,
    `logsumexp` axis, `qr` mode, `reduce_window` windows...)."""
    src = HEADER + f"def f(x, k):\n    {body}\n"
    c = _convert(src)
    assert [s.name for s in c.function("f").static_arguments] == ["k"]
    _run_both(c, src, "f", [(jnp.arange(4.0), *call)])


PASSED = HEADER + '''from functools import partial


def scale_by(x, n):
    if n > 0:
        return x * ((n * n) / 1e9)
    return x


def head(x, n, keep=True):
    if n > 2 and keep:
        return x[:2]
    return x


def walk(x, n):
    if n <= 0:
        return x
    if x.sum() > 0:
        x = x - 1.0
    return walk(x, n - 1)


def mid(x, n):
    if n > 0:
        x = x + 1.0
    return scale_by(x, n)


@partial(jax.jit, static_argnames=("n",))
def model(x, n):
    y = mid(x, n)
    return walk(head(y, n + 1), x.shape[0] - 1)
'''


def test_a_helper_given_a_static_value_by_every_caller_keeps_it_static():
    """Probe H1: a helper called with the caller's static `n` took `n` for a traced value:
    its `if n > 0:` became a `lax.cond` with `n` an int32 operand (`n * n` wrapped), and
    `if n > 2: return x[:2]` a cond whose branches differ in shape (loud where plain jit ran).
    Every call in the module passes a static value: static in the helper too, recursion (`walk`
    passes `n - 1` on) and default values (`keep`) included."""
    c = _convert(PASSED)
    for name, params in [
        ("scale_by", ["n"]), ("mid", ["n"]), ("head", ["keep", "n"]), ("walk", ["n"])
    ]:
        fc = c.function(name)
        assert sorted(s.name for s in fc.static_arguments) == params, name
    for name in ("scale_by", "mid", "head"):
        (n,) = [s for s in c.function(name).static_arguments if s.name == "n"]
        assert n.reason.startswith(f"every call of `{name}` in the module passes it a static")
    assert "if n > 0:" in c.function("scale_by").new_text
    assert "if n > 2 and keep:" in c.function("head").new_text
    assert "if x.sum() > 0:" not in c.function("walk").new_text  # (traced: converted)
    assert "if n > 0:" in c.function("mid").new_text  # (its caller gives it `mid`'s `n`)
    original = load(PASSED)["model"].__wrapped__  # (eagerly: its helpers' `if`s are Python)
    converted = load(c.text)["model"]  # (under the module's own jax.jit)
    for x, n in [(jnp.arange(1.0, 4.0), 50000), (jnp.array([-1.0, 2.0, 3.0]), 1), (jnp.ones(3), 0)]:
        assert_same(original(x, n), converted(x, n))


@pytest.mark.parametrize(
    "caller",
    [
        "def g(x, n, t):\n    return scale_by(x, n) + scale_by(x, t)\n",  # (one call: traced)
        "def g(x, n):\n    n = n + x.sum()\n    return scale_by(x, n)\n",  # (rebound)
        "def g(x, n):\n    return jax.vmap(scale_by, (0, None))(x[None], n)\n",  # (passed on)
        "def g(x, n):\n    return scale_by(x, *[n])\n",  # (starred)
        "def g(x, n):\n    # scale_by is the helper\n    return scale_by(x, n)\n",  # (a comment)
    ],
)
def test_a_helper_parameter_is_not_static_where_a_call_may_pass_a_traced_value(caller):
    src = HEADER + (
        "def scale_by(x, n):\n    if n > 0:\n        return x * 2.0\n    return x\n\n\n"
        "@jax.jit\n" + caller.replace("def g(x, n", "def g(x, n", 1)
    )
    src = src.replace("@jax.jit\n", "", 1)
    c = _convert(src, static_argnames={"g": ["n"]})
    assert not c.function("scale_by").static_arguments
    assert "if n > 0:" not in c.function("scale_by").new_text
