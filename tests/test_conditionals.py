"""AJ1xx conditionals: the eager original against the converted function under `jax.jit`,
through every branch, comparing values, shapes and dtypes.

Where the eager original returns a Python number on one path and an array on another, jit must
return one type for both: the expected dtype of a result is then the promotion of what the eager
original gives over all paths (`jnp.result_type`), which is what a hand-written `lax.cond` or
`jnp.where` gives too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from differential import convert, imports_autojit, load, run_eager, run_jitted, stdout_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

F32 = np.float32
I32 = np.int32
HEADER = "import jax\nimport jax.numpy as jnp\n\n\n"


def _assert_converted_as_eager(src: str) -> None:
    """``src``'s `f`, run eagerly and converted under jit on inputs through both paths of its
    `if x[0] > 0`: converted, with the same values, shapes and dtypes."""
    from tests.fuzz import oracle

    inputs = [(np.array([1.0, 2.0, 3.0], np.float32),), (np.array([-1.0, 2.0, 3.0], np.float32),)]
    out = oracle.run(src, inputs, name="f")
    assert out.kind == "converted", out.report()


def _assert_refused_aj918(src: str) -> None:
    """``src``'s `f`, run eagerly and converted under jit on inputs through both paths of its
    `if x[0] > 0`: refused, with AJ918 among the reasons (never a silent wrong answer)."""
    from tests.fuzz import oracle

    inputs = [(np.array([1.0, 2.0], np.float32),), (np.array([-1.0, 2.0], np.float32),)]
    out = oracle.run(src, inputs, name="f")
    assert out.kind in oracle.OK, out.report()
    assert "AJ918" in " ".join(out.refusals), out.refusals


@pytest.mark.parametrize(
    "int_side",
    ["r = r + 1", "r = r * 2", "r = jnp.floor(x).astype(jnp.int32)", "r = x > 1.5"],
)
def test_an_int_array_on_one_path_and_a_float_array_on_the_other_is_refused(int_side):
    """`r` an int32 array on one path of a traced `if` and a float array on the other: the
    conversion cast the int side to float32 (`jnp.asarray(r, jnp.result_type(r, 0.0))`), which
    changed that path's dtype and rounded 16777217 to 16777216.0 (silent). Refused now (AJ918).
    Where the int side's dtype is not known (a parameter, mostly floats), it still converts."""
    _assert_refused_aj918(
        "import jax.numpy as jnp\n\ndef f(x):\n    r = jnp.floor(x * 16777217.0).astype(jnp.int32)\n"
        f"    if x[0] > 0:\n        {int_side}\n    else:\n        r = x * 0.5\n    return r\n"
    )
    _assert_converted_as_eager(
        "import jax.numpy as jnp\n\ndef f(x):\n    if x[0] > 0:\n        r = x\n"
        "    else:\n        r = x / 2\n    return r\n"
    )
    # (`jnp.arange` of float bounds is floats: it was taken for ints whatever its bounds)
    _assert_converted_as_eager(
        "import jax.numpy as jnp\n\ndef f(x):\n    if x[0] > 0:\n"
        "        r = jnp.arange(0.5, 3.5)\n    else:\n        r = x * 0.5\n    return r\n"
    )


@pytest.mark.parametrize(
    "returns",
    [("i", "x * 0.5"), ("(i, x)", "(x * 0.5, x)"), ("x > 1.5", "x / 2")],
)
def test_a_returning_if_of_arrays_of_two_dtypes_is_refused(returns):
    """`return i` (an int32 array) on one path of a traced `if`, `return x * 0.5` on the
    other: the int path was cast to float32 (`jnp.asarray(i, jnp.result_type(i, 0.0))`), and
    16777217 came back 16777216.0 (silent). Refused now (AJ918), also item by item."""
    a, b = returns
    _assert_refused_aj918(
        "import jax.numpy as jnp\n\ndef f(x):\n    i = jnp.floor(x * 16777217.0).astype(jnp.int32)\n"
        f"    if x[0] > 0:\n        return {a}\n    return {b}\n"
    )
    _assert_converted_as_eager(
        "import jax.numpy as jnp\n\ndef f(x):\n    i = jnp.floor(x * 7.0).astype(jnp.int32)\n"
        "    if x[0] > 0:\n        return i\n    return i * 2\n"
    )


@pytest.mark.parametrize("use", ["r = {t}\n    return r", "return {t}", "return ({t}) + 1"])
def test_a_ternary_of_arrays_of_two_dtypes_is_kept_and_refused(use):
    """`i if c else x * 0.5` of an int32 array `i`: `lax.cond` rejected the two types under
    jit with no refusal (and `jnp.where` would have promoted the ints). Kept as Python's and
    refused (AJ918) now."""
    t = "i if x[0] > 0 else x * 0.5"
    _assert_refused_aj918(
        "import jax.numpy as jnp\n\ndef f(x):\n    i = jnp.floor(x * 7.0).astype(jnp.int32)\n"
        f"    {use.format(t=t)}\n"
    )


@pytest.mark.parametrize(
    "loop",
    [
        # an int array the loop came in with, a float array on the branch
        "    r = x[0].astype(jnp.int32) + 16777216\n    for row in x:\n"
        "        if row.sum() > 0:\n            r = row * 0.5\n    return r\n",
        # the same, with the name rewritten before the `if` in the loop
        "    r = jnp.int32(16777217)\n    for row in x:\n        r = jnp.where(row[0] > 9, r, r)\n"
        "        if row.sum() > 0:\n            r = row[0] * 0.5\n    return r\n",
        # a ternary passing the int array through
        "    r = x[0].astype(jnp.int32) + 16777216\n    for row in x:\n"
        "        r = row * 0.5 if row.sum() > 0 else r\n    return r\n",
        # a Python int the loop came in with, a float on the branch
        "    c = 16777217\n    for row in x:\n        if row.sum() > 0:\n            c += 0.5\n"
        "    return c\n",
    ],
)
def test_a_python_loop_around_a_traced_if_that_changes_a_dtype_is_refused(loop):
    """A loop kept as Python (over an array's rows) around a traced `if` whose branch makes a
    name floats where it came into the loop an int (array or Python int): the values analysis
    joins the loop's values into one of no known dtype, so the checks for two kinds at the
    `if` saw nothing, and the int path came back float32 (16777217 as 16777216.0; a loop that
    takes no branch returned float32 for int32), or `lax.cond` rejected a ternary's two types
    with no refusal. Its first pass meets the value the loop came in with: refused (AJ918)."""
    from tests.fuzz import oracle

    src = "import jax.numpy as jnp\n\ndef f(x):\n" + loop
    neg = -np.ones((2, 3), np.float32)
    inputs = [(neg,), (neg * np.array([[1.0], [-1.0]], np.float32),)]
    out = oracle.run(src, inputs, name="f")
    assert out.kind in oracle.OK, out.report()
    assert "AJ918" in " ".join(out.refusals), out.refusals
    # (one dtype on every path still converts)
    same = loop.replace(" * 0.5", ".astype(jnp.int32)").replace("c += 0.5", "c += 1")
    out = oracle.run("import jax.numpy as jnp\n\ndef f(x):\n" + same, inputs, name="f")
    assert out.kind == "converted" and "AJ918" not in " ".join(out.refusals), out.report()


@pytest.mark.parametrize(
    "test, inputs",
    [
        # a shape guard: Python never computes the vector `t > 0` of a 1-D `t`
        (
            "(t.ndim == 0 and t > 0) or x.max() > 5",
            [(np.ones((2, 1), np.float32), np.ones(2, np.float32)),
             (np.ones((2, 1), np.float32) * 9, np.float32(1.0))],
        ),
        # a None guard: Python never reads `t.sum()` of `t = None`
        (
            "(t is not None and t.sum() > 0) or x.max() > 5",
            [(np.ones((2, 1), np.float32), None), (np.ones((2, 1), np.float32), np.ones(2, np.float32))],
        ),
        # a flag, read as a Python value after (converting the output again kept it Python)
        ("(t and x.sum() > 2) or x.max() > 5", [(np.ones((2, 1), np.float32), True),
                                                  (np.ones((2, 1), np.float32) * 3, False)]),
    ],
)
def test_a_python_operand_inside_a_nested_and_or_still_short_circuits(test, inputs):
    """`if (t.ndim == 0 and t > 0) or x.max() > 5:` became `jnp.logical_or(jnp.logical_and(t.ndim
    == 0, t > 0), ...)`: the vector `t > 0` that Python never computes made the predicate a
    vector, and `jnp.where` broadcast `x` to (2, 2) (silent; probe E); `t.sum()` of `t = None`
    raised; a flag written into `jnp.logical_and` was read as traced on the next conversion
    (not idempotent). A Python operand decides at trace time: `(t > 0) if (t.ndim == 0) else
    False`."""
    from tests.fuzz import oracle

    src = (
        "import jax.numpy as jnp\n\n\ndef f(x, t):\n"
        f"    if {test}:\n        x = x * 3\n    if t is not None and t is not False:\n"
        "        x = x + 1\n    return x\n"
    )
    out = oracle.run(src, inputs, name="f", decorator=True)
    assert out.kind == "converted", out.report()  # (equal, and converting again changes nothing)


@pytest.mark.parametrize("read", ["y.max()", "y[1]", "jnp.max(y) + 1", "x.mean() * 0.5"])
def test_a_python_int_against_floats_read_through_a_name_is_refused(read):
    """`best = 16777217`, then `best = y.max()` of `y = x * 0.5` under a traced `if`: the
    analysis did not know `x * 0.5` of a parameter is floats, so the int came back float32
    (16777216.0; probe A). Arithmetic with a Python float, or with a float array, is floats
    whatever the other array's real dtype, and the `if` is refused (AJ918) as it was for
    `x[1] / 2`."""
    _assert_refused_aj918(
        "import jax.numpy as jnp\n\ndef f(x):\n    y = x * 0.5\n    best = 16777217\n"
        f"    if x[0] > 0:\n        best = {read}\n    return best\n"
    )


def _number_or_array(read: str, number: str = "2.0", array: str = "x[1]") -> str:
    return (
        f"import jax.numpy as jnp\n\n\ndef f(x, y, t):\n    if t > 0:\n        k = {array}\n"
        f"    else:\n        k = {number}\n{read}\n"
    )


def _number_or_array_inputs():
    x = np.array([1.0, 3.0, 5.0], F32)
    y = np.array([1.0, 2.0, 3.0], np.float16)
    return [(x, y, F32(1.0)), (x, y, F32(-1.0))]


@pytest.mark.parametrize(
    "read",
    [
        "    return y * k",  # float16 `y` times a Python float is float16, times float32 float32
        "    z = k * 0.5\n    return y * z",  # (followed through arithmetic and a name)
        "    y += k\n    return y",
        "    return y - (-k)",
        "    return jnp.sin(k) * y",  # (a call: its result follows k's type)
        "    for i in range(3):\n        y = y + k\n    return y",
    ],
)
def test_a_python_number_on_one_path_and_an_array_on_the_other_read_with_an_array_is_refused(
    read,
):
    """`k = x[1]` (float32) on one path of a traced `if`, `k = 2.0` on the other, then `y * k`
    of a float16 `y`: Python keeps float16 on the number's path (a Python number takes the
    array's dtype) and gives float32 on the array's; the converted `lax.cond` gives `k` one
    dtype, so one path came back float32 where eager gave float16 (silent). Refused (AJ918)."""
    from tests.fuzz import oracle

    out = oracle.run(_number_or_array(read), _number_or_array_inputs(), name="f")
    assert out.kind in oracle.OK, out.report()
    assert any(r.startswith("AJ918") and "Python number on one path" in r for r in out.refusals)


@pytest.mark.parametrize(
    "read, number, array",
    [
        ("    return k", "2.0", "x[1]"),  # (given back: an array of its dtype either way)
        ("    z = k * 2.0 + 1.0\n    return z, k > 1.5", "2.0", "x[1]"),
        ("    if k > 2.5:\n        return y\n    return y", "2.0", "x[1]"),
        ("    return y[k]", "2", "x[0].astype(jnp.int32)"),  # (an index)
        ("    return k - 1 < y", "2", "x[0].astype(jnp.int32)"),
    ],
)
def test_a_python_number_on_one_path_read_the_same_either_way_converts(read, number, array):
    """The reads that give the same dtype for the Python number and for the array are not
    refused: giving it back, arithmetic with Python numbers then a comparison, an index;
    converted, equal on both paths."""
    from tests.fuzz import oracle

    out = oracle.run(_number_or_array(read, number, array), _number_or_array_inputs(), name="f")
    assert out.kind == "converted", out.report()


@pytest.mark.parametrize(
    "value",
    ["x.sum() > 0 and x.max()", "x.sum() > 0 and a", "a > 0 or x.min()", "x.max() or a > 0"],
)
def test_and_or_of_a_bool_and_an_array_of_unknown_dtype_keeps_pythons(value):
    """`x.sum() > 0 and x.max()` as a value: Python gives the bool or the array; it became a
    `lax.cond` of a bool and the array of a parameter's dtype, which jit rejected with no rule
    code (probe, twenty-fourth round): kept as Python's (AJ913). Two bools still convert."""
    from tests.fuzz import oracle

    x = np.array([0.5, -1.0, 2.0], np.float32)
    inputs = [(x, np.float32(1.0)), (-x, np.float32(-1.0)), (x * 0, np.float32(0.0))]
    src = f"import jax.numpy as jnp\n\ndef f(x, a):\n    s = {value}\n    return s\n"
    out = oracle.run(src, inputs, name="f")
    assert out.kind in oracle.OK and "AJ913" in " ".join(out.refusals), out.report()
    both = src.replace("x.max()", "(x.max() > 1)").replace("x.min()", "(x.min() < 0)")
    both = both.replace("and a\n", "and a > 0\n")
    out = oracle.run(both, inputs, name="f")
    assert out.kind == "converted" and not out.refusals, out.report()


def test_and_or_of_an_int_array_and_a_float_literal_keeps_pythons():
    """`n or 1.5` of an int array `n`: `jnp.where` made the ints float32 where Python gives
    them back (probe A): kept as Python's `or` (AJ913). A literal of the arrays' own kind or
    lower is still promoted, as before (`y.max() or 1` of floats converts)."""
    from tests.fuzz import oracle

    inputs = [(np.array([1.0, -2.0, 3.0], np.float32),), (np.array([-1.0, -2.0], np.float32),)]
    src = "import jax.numpy as jnp\n\ndef f(x):\n    n = (x > 0).sum()\n    return n or 1.5\n"
    out = oracle.run(src, inputs, name="f")
    assert out.kind in oracle.OK and "AJ913" in " ".join(out.refusals), out.report()
    src = "import jax.numpy as jnp\n\ndef f(x):\n    y = x * 0.5\n    return y.max() or 1\n"
    out = oracle.run(src, inputs, name="f")
    assert out.kind == "converted", out.report()


@pytest.mark.parametrize("power", ["x **= k", "x = x ** k"])
def test_a_traced_array_raised_to_a_python_int_set_in_a_branch_converts(power):
    """`x **= k` and `x = x ** k` of a traced array by an int `k` a traced `if` sets: a float
    array's power, a jax value as written too. The value of `x` was followed as a Python
    number made traced (AJ918, "an integer power"), a false refusal. `m **= -k` of an int
    `m` still is refused: a traced negative power of an int has no float result."""
    _assert_converted_as_eager(
        "import jax.numpy as jnp\n\ndef f(x):\n    k = 2\n    if x[0] > 0:\n        k = 3\n"
        f"    {power}\n    return x\n"
    )
    _assert_refused_aj918(
        "import jax.numpy as jnp\n\ndef f(x):\n    k = 2\n    if x[0] > 0:\n        k = 3\n"
        "    m = 10\n    m **= -k\n    return x * m\n"
    )


def test_dimension_numbers_chosen_by_a_traced_ternary_are_refused():
    """`dims = (...) if q[0, 0] > 0 else (...)` then `lax.dot_general(q, k, dims)`: the
    dimension numbers must be Python values; converted, the ternary made them arrays (jax's
    error at trace time, no refusal). `dot_general`, `conv_general_dilated`, `pad` and
    `reduce_precision` now list their static parameters."""
    from tests.fuzz import oracle

    src = (
        "import jax\nimport jax.numpy as jnp\n\ndef f(q, k):\n"
        "    dims = (((1,), (0,)), ((), ())) if q[0, 0] > 0 else (((1,), (1,)), ((), ()))\n"
        "    return jax.lax.dot_general(q, k, dims)\n"
    )
    eye = np.eye(2, dtype=np.float32)
    out = oracle.run(src, [(eye, eye), (-eye, eye)], name="f")
    assert out.kind in oracle.OK, out.report()
    assert "AJ918" in " ".join(out.refusals), out.refusals


def _tiers(values, last, returned: bool) -> str:
    """`if x[0] < 0: rate = v0 ... elif ...: rate = vN ... else: rate = last`, each tier also
    computing an array `y` (so the chain becomes nested lax.conds, not jnp.where)."""
    lines = ["import jax", "import jax.numpy as jnp", "", "def f(x):"]
    for i, v in enumerate(values):
        lines += [
            f"    {'if' if i == 0 else 'elif'} x[0] < {i}:",
            f"        rate = {v}",
            f"        y = jnp.sin(x) * {i + 1}",
        ]
    lines += ["    else:", f"        rate = {last}", "        y = jnp.cos(x)"]
    lines += ["    return y * rate, rate" if returned else "    return y * rate"]
    return "\n".join(lines) + "\n"


def test_an_elif_chain_of_python_numbers_traces_each_tier_once():
    """Ten tiers giving `rate` Python numbers (ints, then a float): each level promoted its
    number against the rest of the chain with `jax.eval_shape` of it, and the rest traced it
    in turn: every `elif` doubled the trace time (10 tiers: 4.5 s). The types of a chain of
    number literals are known without tracing: each level takes `float(rate)` (or none),
    and each branch is traced once."""
    from tests.fuzz import oracle

    src = _tiers(range(10), "0.5", returned=False)
    text = convert(src).text
    assert "eval_shape" not in text, text
    calls = [0]

    class CountingJnp:
        def __getattr__(self, attr):
            if attr == "sin":
                calls[0] += 1
            return getattr(jnp, attr)

    ns = {}
    exec(compile(text, "tiers.py", "exec"), ns)
    ns["jnp"] = CountingJnp()
    jax.jit(ns["f"]).lower(np.zeros(3, np.float32))
    assert calls[0] == 10, calls  # (once per tier: 1023 with the doubling)
    inputs = [(np.array([v, 1.0], np.float32),) for v in (-1.0, 0.5, 4.5, 8.5, 9.5)]
    out = oracle.run(src, inputs, name="f")
    assert out.kind == "converted", out.report()


@pytest.mark.parametrize("values, last", [((0.5, 1, 2, 3), "4"), ((1, -2, 0.5, 4), "-1")])
def test_an_elif_chain_returning_numbers_of_two_types_is_refused_as_a_whole(values, last):
    """An `elif` chain whose tiers give `rate` ints and floats, `rate` returned as it is
    (Python returns each path's type, a traced value has one dtype): the inner tiers, all
    ints, were converted, and the outer one, refused (AJ918) on the second conversion only,
    or its dtype came back promoted on every path. The question is now asked of the whole
    chain at each tier: refused as written, the same twice. Read only in `y * rate`: Python
    gives `y`'s dtype on every path (its numbers are weakly typed), and the float tier met
    the inner ints' `lax.cond`, an array, which the promotion made float32: a float16 `x`
    came back float32 (silent). Refused too now (AJ918); a chain whose tiers each take
    `float(rate)` converts (`test_an_elif_chain_of_python_numbers_traces_each_tier_once`)."""
    from tests.fuzz import oracle

    inputs = [(np.array([v, 1.0], np.float32),) for v in (-1.0, 0.5, 1.5, 2.5, 3.5, 9.0)]
    out = oracle.run(_tiers(values, last, returned=True), inputs, name="f")
    assert out.kind in oracle.OK, out.report()
    assert "AJ918" in " ".join(out.refusals), out.refusals
    for dtype in (np.float32, np.float16):
        inputs = [(np.array([v, 1.0], dtype),) for v in (-1.0, 0.5, 1.5, 2.5, 3.5, 9.0)]
        out = oracle.run(_tiers(values, last, returned=False), inputs, name="f")
        assert out.kind in oracle.OK, out.report()
        assert "AJ918" in " ".join(out.refusals), out.refusals


@pytest.mark.parametrize(
    "start, branch, after",
    [
        (100000, "p = p + 1", "return x, p * q"),  # a step from its own value, then a product
        (1500000000, "p = p - 1", "p += p\n    return x, p"),  # then a doubling: `k += k`
        (100000, "p = 2 * p", "return x, p * q"),
    ],
)
def test_a_python_int_stepped_in_a_branch_then_past_int32_is_refused(start, branch, after):
    """`p = 100000; q = 100000; if x[0] > 0: p = p + 1` then `p * q`: only a name a branch
    gave a literal had a range, so the product's 1e10 wrapped in int32 (eager 10000100000,
    jit 1410165408), as `k = k - 1` then `k += k` from 1.5e9 did. A step from the name's own
    value (`p + 1`, `p - 1`, `2 * p`, `p += p`) is followed now (AJ918); small values still
    convert."""

    def program(p0: int, q0: int) -> str:
        return (
            f"import jax.numpy as jnp\n\ndef f(x):\n    p = {p0}\n    q = {q0}\n"
            f"    if x[0] > 0:\n        {branch}\n    {after}\n"
        )

    _assert_refused_aj918(program(start, 100000))
    _assert_converted_as_eager(program(100, 100))


@pytest.mark.parametrize(
    "before, branch, after",
    [
        ("big = {n}", "r = big", "r * 30000"),  # a name of the function holding a literal
        ("pass", "r = BIG", "r * 30000"),  # a module constant
        ("r = {m}", "r += r", "r"),  # an augmented doubling in the branch
    ],
)
def test_a_branch_giving_a_name_a_constant_or_a_doubling_past_int32_is_refused(
    before, branch, after
):
    """Probe 14: `r = big` (`big = 100000`), `r = BIG` (a module constant) or `r += r` in a
    traced branch, then `r * 30000` or `r` itself past int32: the branch's value was no
    literal, so `r` had no range and the int32 result wrapped (eager 3000000000, jit
    -1294967296). A name holding a literal is read with its value, and `r += r` as `r = r +
    r` (AJ918); small values still convert."""

    def program(n: int, m: int) -> str:
        return (
            f"import jax.numpy as jnp\n\nBIG = {n}\n\ndef f(x):\n    r = 1\n"
            f"    {before.format(n=n, m=m)}\n    if x[0] > 0:\n        {branch}\n"
            f"    return x, {after}\n"
        )

    _assert_refused_aj918(program(100000, 1500000000))
    _assert_converted_as_eager(program(100, 1500))


def _leaves(v):
    return jax.tree_util.tree_flatten(v)


def check_paths(text: str, name: str, calls, expect=(), refused=(), **kw):
    """Convert, then run every call eagerly and jitted; dtypes promoted over the paths."""
    c = convert(text, **kw)
    codes = {ch.code for ch in c.changes}
    for code in expect:
        assert code in codes, f"{code} not applied: {c.changes} {c.refusals}\n{c.text}"
    rcodes = {r.code for r in c.refusals}
    for code in refused:
        assert code in rcodes, f"{code} not refused: {c.refusals}\n{c.text}"
    if not refused:
        assert not c.refusals, f"unexpected refusals: {c.refusals}\n{c.text}"
    ast.parse(c.text)
    assert not imports_autojit(c.text)
    again = convert(c.text, **kw)
    assert again.text == c.text, f"not idempotent:\n{c.text}\n---\n{again.text}"
    original = load(text)[name]
    converted = load(c.text)[name]
    statics = c.function(name).static_argnames
    expected = [run_eager(original, args, kwargs) for args, kwargs in calls]
    got = [run_jitted(converted, statics, args, kwargs) for args, kwargs in calls]

    # calls with the same input types share one compiled function: promote over those
    def key(args, kwargs):
        vals = list(args) + [kwargs[k] for k in sorted(kwargs)]
        return tuple(
            (np.asarray(v).dtype.str, np.shape(v)) if not isinstance(v, (bool, str)) else v
            for v in vals
        )

    groups: dict = {}
    for (args, kwargs), e in zip(calls, expected, strict=True):
        groups.setdefault(key(args, kwargs), []).append(_leaves(e)[0])
    for (args, kwargs), e, g in zip(calls, expected, got, strict=True):
        group = groups[key(args, kwargs)]
        promoted = [jnp.result_type(*[t[k] for t in group]) for k in range(len(group[0]))]
        el, etree = _leaves(e)
        gl, gtree = _leaves(g)
        assert etree == gtree, f"structure {etree} != {gtree}\n{c.text}"
        for k, (ea, ga) in enumerate(zip(el, gl, strict=True)):
            ea, ga = np.asarray(ea), np.asarray(ga)
            assert ea.shape == ga.shape, f"shape {ea.shape} != {ga.shape} args={args}\n{c.text}"
            assert ga.dtype == promoted[k], (
                f"dtype {ga.dtype} != {promoted[k]} (eager {ea.dtype}) args={args}\n{c.text}"
            )
            np.testing.assert_allclose(
                ga.astype(np.float64), ea.astype(np.float64), rtol=1e-5, atol=1e-6
            )
    return c


def calls(*argtuples):
    return [(a, {}) for a in argtuples]


# -- the seeds -------------------------------------------------------------------------------
SEEDS = (
    HEADER
    + """\
def square_or_cube(x):
    if x % 2 == 0:
        return x ** 2
    else:
        return x * x * x


def f(x):
  if x > 0:
    return x
  else:
    return 2 * x
"""
)


def test_seed_square_or_cube():
    c = check_paths(
        SEEDS,
        "square_or_cube",
        calls((I32(2),), (I32(3),), (F32(4.0),), (F32(5.0),)),
        expect=["AJ102"],
    )
    assert "jnp.where(x % 2 == 0, x ** 2, x * x * x)" in c.text


def test_seed_f():
    check_paths(SEEDS, "f", calls((F32(10),), (F32(-3),), (I32(0),)), expect=["AJ102"])


# -- lax.cond with outputs -------------------------------------------------------------------
def test_cond_outputs_and_pass_through():
    text = (
        HEADER
        + """\
def f(x, y):
    z = y * 2
    if x.sum() > 0:
        z = jnp.dot(y, y) * z
        w = x + 1
    else:
        w = x - 1
    return z, w
"""
    )
    x = np.arange(3, dtype=F32)
    c = check_paths(text, "f", calls((x, x + 1), (-x - 1, x)), expect=["AJ101"])
    assert "jax.lax.cond(x.sum() > 0, _then, _else" in c.text


def test_cond_matches_expert_shape():
    text = (
        HEADER
        + """\
def f(x):
    if x.sum() > 0:
        y = jnp.sin(x).sum()
    else:
        y = jnp.cos(x).prod()
    return y
"""
    )
    c = check_paths(text, "f", calls((np.ones(3, F32),), (-np.ones(3, F32),)), expect=["AJ101"])
    assert "def _then(x):\n        return jnp.sin(x).sum()" in c.text
    assert "y = jax.lax.cond(x.sum() > 0, _then, _else, x)" in c.text


def test_one_branch_only_defined_refused():
    text = (
        HEADER
        + """\
def f(x):
    if x > 0:
        y = x * 2
    return y
"""
    )
    c = convert(text)
    assert c.text == text
    (r,) = [r for r in c.refusals if r.code == "AJ910"]
    assert r.location.line == 6 and "`y`" in r.reason


def test_one_branch_only_not_read_after_is_fine():
    text = (
        HEADER
        + """\
def f(x):
    if x > 0:
        t = x * 2
        x = jnp.sin(t).sum() + x
    return x
"""
    )
    check_paths(text, "f", calls((F32(1),), (F32(-1),)), expect=["AJ101"])


def test_elif_chain_nested_cond():
    text = (
        HEADER
        + """\
def f(x):
    if x > 1:
        y = jnp.sin(x).sum()
    elif x < -1:
        y = jnp.cos(x).sum()
    else:
        y = jnp.tanh(x).sum()
    return y
"""
    )
    check_paths(text, "f", calls((F32(2),), (F32(-2),), (F32(0),)), expect=["AJ101"])


def test_elif_where_chain():
    text = (
        HEADER
        + """\
def f(x):
    if x > 1:
        y = x * 2
    elif x < -1:
        y = -x
    else:
        y = x + 1
    return y
"""
    )
    c = check_paths(text, "f", calls((F32(2),), (F32(-2),), (F32(0),)), expect=["AJ102"])
    assert "lax.cond" not in c.text


def test_switch_on_integer():
    text = (
        HEADER
        + """\
def f(x, k):
    if k == 0:
        y = jnp.sin(x).sum()
    elif k == 1:
        y = jnp.cos(x).sum()
    elif k == 2:
        y = x.max()
    else:
        y = x.min()
    return y
"""
    )
    x = np.arange(4, dtype=F32)
    c = check_paths(
        text,
        "f",
        calls((x, I32(0)), (x, I32(1)), (x, I32(2)), (x, I32(7)), (x, I32(-1))),
        expect=["AJ103"],
    )
    assert "jax.lax.switch(" in c.text


# -- returns ---------------------------------------------------------------------------------
def test_early_return_then_more_code():
    text = (
        HEADER
        + """\
def f(x):
    if x.sum() > 0:
        return jnp.sin(x).sum()
    y = x * 2
    z = y.sum()
    return z
"""
    )
    check_paths(
        text, "f", calls((np.ones(3, F32),), (-np.ones(3, F32),)), expect=["AJ101", "AJ107"]
    )


def test_returns_in_nested_ifs():
    text = (
        HEADER
        + """\
def f(x, y):
    if x > 0:
        if y > 0:
            return (x * y).sum()
        t = x - y
    else:
        t = x + y
    return jnp.sin(t).sum()
"""
    )
    check_paths(
        text,
        "f",
        calls((F32(1), F32(2)), (F32(1), F32(-2)), (F32(-1), F32(2)), (F32(-1), F32(-2))),
        expect=["AJ101", "AJ107"],
    )


def test_return_only_on_one_path_refused():
    text = (
        HEADER
        + """\
def f(x):
    y = x * 2
    if x > 0:
        return y.sum()
"""
    )
    c = convert(text)
    assert "AJ915" in {r.code for r in c.refusals}
    assert c.text == text


# -- type agreement --------------------------------------------------------------------------
def test_python_zero_against_float_array():
    text = (
        HEADER
        + """\
def f(x):
    if x.sum() > 0:
        y = jnp.dot(x, x)
    else:
        y = 0
    return y
"""
    )
    check_paths(text, "f", calls((np.ones(3, F32),), (-np.ones(3, F32),)), expect=["AJ101"])


@pytest.mark.parametrize(
    "body",
    [
        "    if a > 0:\n        r = BIG\n    else:\n        r = x.sum()\n    return r\n",
        "    if a > 0:\n        r = -BIG\n    else:\n        r = x.sum()\n    return r, x\n",
        "    r = BIG if a > 0 else x.sum()\n    return r\n",
        "    if a > 0:\n        return BIG\n    return x.sum()\n",
        "    r = x.max() or BIG\n    return r\n",
        # a name that enters the loop a Python int and that a branch makes an array
        "    best = BIG\n    for i in range(3):\n        if x[i] > best:\n"
        "            best = x[i]\n    return best\n",
    ],
)
def test_a_python_int_past_2_24_against_an_array_of_unknown_dtype_is_refused(body):
    """A Python int on one path of a traced condition and an array whose dtype the analysis
    does not know (`x.sum()` of a parameter) on the other was cast to the array's dtype: on
    float32 data 16777217 came back 16777216.0, a wrong value with no refusal (also a
    ternary, a returning `if`, an `or`, a loop's carried name). Refused (AJ918) where the
    int is past 2**24; one float32 holds (2**24 itself) still converts, equal."""
    from tests.fuzz import oracle

    x = np.array([-0.5, -1.0, 2.0], np.float32)
    inputs = [(x, np.float32(a)) for a in (-1.0, 1.0)] + [(-x, np.float32(1.0))]
    src = "import jax.numpy as jnp\n\n\ndef f(x, a):\n" + body.replace("BIG", "16777217")
    out = oracle.run(src, inputs)
    assert out.kind in oracle.OK, out.report()
    assert any(
        r.startswith("AJ918") and "16777216.0" in r for r in out.refusals
    ), out.report()
    exact = "import jax.numpy as jnp\n\n\ndef f(x, a):\n" + body.replace("BIG", "16777216")
    out = oracle.run(exact, [(x, np.float32(a)) for a in (-1.0, 1.0)])
    assert not any(r.startswith("AJ918") for r in out.refusals), out.report()
    assert out.converted != exact and out.kind != "jit-error", out.report()


def test_python_float_against_int_array():
    """`y = jnp.dot(x, x)` on one path and `y = 0.5` on the other: of a float `x`, converted
    and equal; of an int `x`, Python gives an int32 on one path and a float on the other, and
    the conversion cast the dot to float32 (silent on the int path): now the number is given
    the array's type with the float's (float32), which `lax.cond` rejects against int32."""
    text = (
        HEADER
        + """\
def f(x):
    if x.sum() > 0:
        y = jnp.dot(x, x)
    else:
        y = 0.5
    return y
"""
    )
    check_paths(text, "f", calls((np.ones(3, F32),), (-np.ones(3, F32),)), expect=["AJ101"])
    with pytest.raises(TypeError, match="branches must have equal output types"):
        jax.jit(load(convert(text).text)["f"])(np.ones(3, I32))


def test_return_literal_against_array():
    text = (
        HEADER
        + """\
def f(x):
    if x.sum() > 0:
        return jnp.dot(x, x)
    return 0
"""
    )
    check_paths(text, "f", calls((np.ones(3, F32),), (-np.ones(3, F32),)), expect=["AJ101"])


def test_initial_python_zero_accumulates():
    text = (
        HEADER
        + """\
def f(x):
    total = 0
    if x.sum() > 0:
        total = total + jnp.dot(x, x)
    return total
"""
    )
    check_paths(text, "f", calls((np.ones(3, F32),), (-np.ones(3, F32),)), expect=["AJ101"])


# -- static conditions -----------------------------------------------------------------------
def test_static_conditions_kept():
    text = (
        HEADER
        + """\
SCALE = 2


def f(x, n=None, mode="a"):
    if x.ndim == 2:
        x = x.sum(axis=0)
    if x.shape[0] > 2:
        x = x[:2]
    if x.dtype == jnp.float32:
        x = x * 1.0
    if n is None:
        n = 3
    if isinstance(n, int):
        x = x * n
    if mode == "a":
        x = x + 1
    if SCALE > 1:
        x = x * SCALE
    return x
"""
    )
    c = check_paths(text, "f", calls((np.ones((2, 3), F32),), (np.ones(4, F32),)))
    assert c.text == text
    # nothing converted here: nothing to report (autojit check stays clean)
    assert not c.changes and not c.refusals
    # beside a converted conditional, each kept one is reported
    text2 = text.replace("    return x\n", "    if x.sum() > 0:\n        x = -x\n    return x\n")
    c2 = check_paths(text2, "f", calls((np.ones((2, 3), F32),), (-np.ones(4, F32),)))
    kept = [ch for ch in c2.changes if ch.code == "AJ100"]
    assert len(kept) == 7


def test_mixed_static_and_traced_condition():
    text = (
        HEADER
        + """\
def f(x):
    if x.ndim == 2 and x.sum() > 0:
        y = x[:, 0].sum()
    else:
        y = 0.0
    return y
"""
    )
    c = check_paths(
        text,
        "f",
        calls((np.ones((2, 2), F32),), (-np.ones((2, 2), F32),)),
        expect=["AJ100", "AJ101"],
    )
    assert "if x.ndim == 2:" in c.text
    # the 1-d path never traces the 2-d branch
    converted = load(c.text)["f"]
    assert float(jax.jit(converted)(np.ones(3, F32))) == 0.0


def test_mixed_static_or_traced_condition():
    text = (
        HEADER
        + """\
def f(x, flag: bool):
    if flag or x.sum() > 0:
        y = jnp.sin(x).sum()
    else:
        y = jnp.cos(x).sum()
    return y
"""
    )
    check_paths(
        text,
        "f",
        [
            ((np.ones(2, F32),), {"flag": True}),
            ((-np.ones(2, F32),), {"flag": True}),
            ((np.ones(2, F32),), {"flag": False}),
            ((-np.ones(2, F32),), {"flag": False}),
        ],
        expect=["AJ101"],
        static_argnames={"f": ["flag"]},
    )


# -- expressions -----------------------------------------------------------------------------
def test_ternary_where_and_cond():
    text = (
        HEADER
        + """\
def f(x):
    a = x * 2 if x > 0 else -x
    b = jnp.dot(x, x) if x > 1 else 0.0
    return a, b
"""
    )
    check_paths(text, "f", calls((F32(2),), (F32(0.5),), (F32(-1),)), expect=["AJ104"])


def test_and_or_not_chained():
    text = (
        HEADER
        + """\
def f(x, d):
    a = x or d
    b = x and d
    c = (x > 0) and (x < 3)
    e = not x
    g = 0 < x < 1
    return a, b, c, e, g
"""
    )
    check_paths(
        text,
        "f",
        calls((F32(0), F32(5)), (F32(2), F32(5)), (F32(0.5), F32(0)), (F32(-3), F32(1))),
        expect=["AJ105"],
    )


def test_traced_boolean_condition_forms():
    text = (
        HEADER
        + """\
def f(x, y):
    if (x > 0 and y > 0) or not x < -5:
        z = jnp.sin(x).sum()
    else:
        z = jnp.cos(y).sum()
    if -1 < x < 1:
        z = z + jnp.exp(y).sum()
    return z
"""
    )
    check_paths(
        text,
        "f",
        calls((F32(1), F32(1)), (F32(-6), F32(1)), (F32(0.5), F32(-1)), (F32(-7), F32(-1))),
        expect=["AJ101"],
    )


# -- print, raise, side effects --------------------------------------------------------------
def test_print_becomes_debug_print(capfd):
    text = (
        HEADER
        + """\
def f(x):
    y = x * 2
    print("y =", y, f"x={x}")
    return y
"""
    )
    c = check_paths(text, "f", calls((F32(3),)), expect=["AJ106"])
    assert "jax.debug.print('y = {} x={}', y, x)" in c.text


def test_print_inside_branch():
    text = (
        HEADER
        + """\
def f(x):
    if x.sum() > 0:
        print(x)
        y = jnp.sin(x).sum()
    else:
        y = x.sum()
    return y
"""
    )
    c = check_paths(text, "f", calls((np.ones(2, F32),), (-np.ones(2, F32),)), expect=["AJ106"])
    assert "jax.debug.print('{}', x)" in c.text


@pytest.mark.parametrize(
    "body, code",
    [
        ("        raise ValueError('negative')\n", "AJ911"),
        ("        assert False\n", "AJ911"),
        ("        LOG.append(x)\n", "AJ912"),
        ("        global COUNT\n        COUNT = 1\n", "AJ912"),
        ("        STATE['last'] = x\n", "AJ912"),
    ],
)
def test_side_effects_refused(body, code):
    text = HEADER + "LOG = []\nCOUNT = 0\nSTATE = {}\n\n\ndef f(x):\n    if x < 0:\n" + body
    text += "    return x\n"
    c = convert(text)
    assert code in {r.code for r in c.refusals}, c.refusals
    assert c.text == text


OUTER_NAMES_AND_WALRUS = {
    # a name declared global/nonlocal, assigned in a branch: a branch function's own name there
    "global-in-branch": (
        "K = 0\n\n\ndef f(x):\n    global K\n    if x[0] > 0:\n        K = 1\n"
        "    return x + K\n",
        "AJ912",
    ),
    "nonlocal-in-branch": (
        "def outer(x):\n    flag = 0.0\n\n    def f(x):\n        nonlocal flag\n"
        "        if x[0] > 0:\n            flag = 1.0\n        return x + flag\n\n"
        "    return f(x) + flag\n",
        "AJ912",
    ),
    # `:=` that Python's and/or may skip: a traced predicate computes every operand
    "walrus-skipped-by-and": (
        "def f(x):\n    t = 0.\n    if x[0] > 0 and (t := x[1]) > 0:\n        x = x * 2.\n"
        "    return x + t\n",
        "AJ912",
    ),
    "walrus-skipped-by-or-value": (
        "def f(x):\n    t = 0.\n    c = (x[0] > 0) or ((t := x[1]) > 0)\n"
        "    return jnp.where(c, 1., 0.) + t\n",
        "AJ912",
    ),
    # a lambda branch would bind it as its own (and `lambda: t := v` does not even parse)
    "walrus-in-ternary-branch": (
        "def f(x):\n    t = 0.\n    y = (t := x * 2.) if x[0] > 0 else x\n"
        "    return jnp.sin(y + t)\n",
        "AJ912",
    ),
    # `super()` finds its class from the function it is written in, not a branch function
    "zero-argument-super-in-branch": (
        "class Base:\n    def scale(self):\n        return 2.0\n\n\nclass D(Base):\n"
        "    def f(self, x):\n        if x[0] > 0:\n            x = x * super().scale()\n"
        "        return jnp.sin(x)\n",
        "AJ914",
    ),
    # a closure defined before the `if` reads a name the branches change
    "closure-reading-a-branch-output": (
        "def f(x):\n    k = 1.0\n    g = lambda v: v * k\n    if x[0] > 0:\n"
        "        k = 10.0\n        y = g(x)\n    else:\n        y = g(x) - 1\n    return y\n",
        "AJ912",
    ),
    # a method that changes a list, inside an expression of a branch
    "list-pop-in-a-branch-expression": (
        "def f(x):\n    stack = [1.0, 2.0, 3.0]\n    if x[0] > 0:\n        v = stack.pop()\n"
        "    else:\n        v = 0.0\n    return x * v, len(stack)\n",
        "AJ912",
    ),
    # a Python value the converted `if` makes traced, read after it in Python's way only
    "flag-tested-with-is-after": (
        "def f(x):\n    ok = False\n    if x[0] > 0:\n        ok = True\n"
        "    if ok is not False:\n        return x * 2\n    return x\n",
        "AJ918",
    ),
    "number-tested-with-isinstance-after": (
        "def f(x):\n    k = 1\n    if x[0] > 0:\n        k = 3\n"
        "    if isinstance(k, int):\n        return x * k\n    return x\n",
        "AJ918",
    ),
    "int-power-after": (
        "def f(x):\n    k = 1\n    if x[0] > 0:\n        k = 3\n        z = x * 2\n"
        "    else:\n        z = x\n    return z * 2 ** -k\n",
        "AJ918",
    ),
    # a generator's draw in a branch: both branches are traced, both would draw
    "numpy-generator-draw-in-a-branch": (
        "import numpy as np\n\n\ndef f(x):\n    rng = np.random.default_rng(0)\n"
        "    if x[0] > 0:\n        y = x + rng.normal()\n    else:\n        y = x\n"
        "    return y\n",
        "AJ912",
    ),
    # a closure that changes something outside itself, called in a branch's expression
    "closure-with-nonlocal-called-in-a-branch": (
        "def f(x):\n    count = 0\n\n    def inc(v):\n        nonlocal count\n"
        "        count += 1\n        return v * 2\n\n    if x.sum() > 0:\n        y = inc(x)\n"
        "    else:\n        y = x\n    return y + count\n",
        "AJ912",
    ),
    "closure-appending-in-a-ternary": (
        "def f(x):\n    log = []\n\n    def rec(v):\n        log.append(1)\n        return v\n\n"
        "    y = rec(x) if x.sum() > 0 else x * 2\n    return y + len(log)\n",
        "AJ912",
    ),
    "walrus-in-comprehension-in-branch": (
        "def f(x):\n    last = 0.\n    if x[0] > 0:\n"
        "        ys = [(last := v * 2.) for v in [1., 2.]]\n    return x + last\n",
        "AJ914",
    ),
}


@pytest.mark.parametrize("name", sorted(OUTER_NAMES_AND_WALRUS))
def test_names_bound_outside_a_branch_function_are_refused(name):
    body, code = OUTER_NAMES_AND_WALRUS[name]
    text = HEADER + body
    c = convert(text)
    assert code in {r.code for r in c.refusals}, (c.refusals, c.text)
    assert c.text == text  # left as written
    assert not [ch for ch in c.changes if ch.code != "AJ100"]


def test_walrus_bound_before_a_traced_if_is_converted():
    # (in the test of the `if`, or of a ternary, it runs before the branches: fine)
    text = (
        HEADER
        + """\
def f(x):
    if (s := x.sum()) > 0:
        y = x * s
    else:
        y = x - s
    z = x[0] if (t := x[1]) > 0 else -x[0]
    return y + s + z + t
"""
    )
    check_paths(text, "f", calls((np.ones(2, F32),), (-np.ones(2, F32),)), expect=["AJ102"])


def test_unknown_condition_kept_and_reported():
    text = (
        HEADER
        + """\
def f(x, fns):
    g = fns[0]
    if g(1):
        x = x + 1
    return x
"""
    )
    c = convert(text)
    assert "AJ913" in {r.code for r in c.refusals}
    assert c.text == text


# -- composition -----------------------------------------------------------------------------
def test_array_update_inside_branch():
    text = (
        HEADER
        + """\
def f(x, v):
    x = jnp.asarray(x)
    if v > 0:
        x[0] = v
    else:
        x[1] = -v
    return x
"""
    )
    check_paths(text, "f", calls((np.zeros(3, F32), F32(2)), (np.zeros(3, F32), F32(-2))))


def test_nested_ifs_inner_static():
    text = (
        HEADER
        + """\
def f(x, n: int = 2):
    if x.sum() > 0:
        if x.shape[0] > 1:
            y = jnp.sin(x).sum() * n
        else:
            y = x.sum()
    else:
        y = jnp.cos(x).sum()
    return y
"""
    )
    check_paths(
        text,
        "f",
        calls((np.ones(2, F32),), (-np.ones(2, F32),), (np.ones(1, F32),)),
        expect=["AJ101", "AJ100"],
    )


def test_converted_output_idempotent_and_comments_kept():
    text = (
        HEADER
        + """\
def f(x):
    # pick a branch
    if x.sum() > 0:  # positive
        y = jnp.sin(x).sum()  # the sine
    else:
        y = jnp.cos(x).sum()
    return y  # done
"""
    )
    c = check_paths(text, "f", calls((np.ones(2, F32),), (-np.ones(2, F32),)))
    assert "# pick a branch" in c.text and "# the sine" in c.text and "# done" in c.text


# -- hypothesis ------------------------------------------------------------------------------
PIECEWISE = (
    HEADER
    + """\
def f(x, lo, hi):
    if x < lo:
        y = lo - x
    elif x > hi:
        y = jnp.log1p(x - hi)
    else:
        y = jnp.sin(x).sum()
    return y
"""
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    x=st.floats(-10, 10, width=32, allow_subnormal=False),
    lo=st.floats(-5, 0, width=32, allow_subnormal=False),
    hi=st.floats(0, 5, width=32, allow_subnormal=False),
)
def test_piecewise_hypothesis(x, lo, hi):
    _piecewise_check((F32(x), F32(lo), F32(hi)))


_conv_cache: dict = {}


def _piecewise_check(args):
    if "c" not in _conv_cache:
        c = convert(PIECEWISE)
        _conv_cache["c"] = c
        _conv_cache["orig"] = load(PIECEWISE)["f"]
        _conv_cache["jit"] = jax.jit(load(c.text)["f"])
    expected = run_eager(_conv_cache["orig"], args)
    got = _conv_cache["jit"](*args)
    assert np.asarray(got).dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=1e-5, atol=1e-6)


def test_run_jitted_helper_is_used():
    # keep the shared helper in use for static-argument-aware calls
    c = convert(SEEDS)
    out = run_jitted(load(c.text)["f"], (), (F32(-1),))
    assert float(out) == -2.0


# -- examples/conditionals.py ----------------------------------------------------------------
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "conditionals.py"

EXAMPLE_CALLS = {
    "square_or_cube": calls((I32(2),), (I32(3),)),
    "f": calls((I32(10),), (I32(-10),)),
    "log2_if_rank_2": calls((np.array([[1.0, 2.0], [4.0, 8.0]], F32),), (np.ones(3, F32),)),
    "safe_norm": calls((np.array([3.0, 4.0], F32),), (np.zeros(2, F32),)),
    "relu_or_leaky": [
        ((np.array([-1.0, 2.0], F32),), {}),
        ((np.array([-1.0, -2.0], F32),), {}),
    ],
    "piecewise": calls(
        (F32(5.0), F32(0.0), F32(1.0)),
        (F32(-5.0), F32(0.0), F32(1.0)),
        (F32(0.5), F32(0.0), F32(1.0)),
    ),
    "describe": calls((np.array([-1.0, -2.0], F32),), (np.array([1.0, 2.0], F32),)),
}


@pytest.mark.parametrize("fname", sorted(EXAMPLE_CALLS))
def test_example_functions(fname):
    text = EXAMPLE.read_text()
    check_paths(text, fname, EXAMPLE_CALLS[fname], filename=str(EXAMPLE))


def test_example_value_dependent_ifs_all_convert():
    c = convert(EXAMPLE.read_text(), str(EXAMPLE), all_functions=False)
    assert not c.refusals
    assert "if x % 2 == 0" not in c.text and "if x > 0" not in c.text
    assert "if x.ndim == 2:" in c.text  # static: kept


def test_module_level_values_are_static():
    text = (
        HEADER
        + """\
config = {"relu": True}


def f(W, x):
    y = W @ x
    if config["relu"]:
        y = jnp.maximum(y, 0)
    return y
"""
    )
    c = check_paths(
        text,
        "f",
        calls(
            (np.eye(2, dtype=F32), np.array([1.0, -1.0], F32)),
        ),
    )
    assert c.text == text
    assert not c.refusals


def test_static_initial_value_stays_a_closure():
    text = (
        HEADER
        + """\
def f(x):
    y = 0
    if x > 0:
        y = x
    return y
"""
    )
    c = check_paths(text, "f", calls((F32(2),), (F32(-2),)), expect=["AJ101"])
    assert "def _then(x):" in c.text


def test_tuple_return_promoted_per_element():
    text = (
        HEADER
        + """\
def f(x):
    if x.sum() > 0:
        return x.sum(), 0
    return x.max(), x.min()
"""
    )
    check_paths(text, "f", calls((np.ones(3, F32),), (-np.ones(3, F32),)), expect=["AJ101"])


def test_function_valued_branch_refused():
    text = (
        HEADER
        + """\
def f(x):
    if x > 0:
        fn = jnp.sin
    else:
        fn = jnp.cos
    return fn(x)
"""
    )
    c = convert(text)
    assert c.text == text
    assert "AJ916" in {r.code for r in c.refusals}


def test_with_loops_break_flag():
    text = (
        HEADER
        + """\
def f(x, t):
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] > t:
            break
        total = total + x[i]
    return total
"""
    )
    x = np.array([1.0, 2.0, 5.0, 1.0], F32)
    check_paths(text, "f", calls((x, F32(3)), (x, F32(9)), (x, F32(0))))


def test_mixed_condition_returning_with_literal():
    text = (
        HEADER
        + """\
def f(x):
    if x.ndim == 2 and x.sum() > 0:
        return x[:, 0].sum()
    return 0.0
"""
    )
    c = check_paths(
        text,
        "f",
        calls((np.ones((2, 2), F32),), (-np.ones((2, 2), F32),), (np.ones(3, F32),)),
        expect=["AJ101", "AJ107"],
    )
    assert "if x.ndim == 2:" in c.text


BOOLOPS = (
    HEADER
    + """\
def f(x, d, lo, hi):
    return (x or d), (x and d), (not x), (lo < x < hi), (x > lo or d > hi)
"""
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    x=st.sampled_from([0.0, -0.0, 1.5, -2.0]) | st.floats(-5, 5, width=32, allow_subnormal=False),
    d=st.sampled_from([0.0, 3.0]) | st.floats(-5, 5, width=32, allow_subnormal=False),
    lo=st.floats(-5, 0, width=32, allow_subnormal=False),
    hi=st.floats(0, 5, width=32, allow_subnormal=False),
)
def test_boolean_operators_hypothesis(x, d, lo, hi):
    if "b" not in _conv_cache:
        c = convert(BOOLOPS)
        assert "AJ105" in {ch.code for ch in c.changes}
        _conv_cache["b"] = (load(BOOLOPS)["f"], jax.jit(load(c.text)["f"]))
    orig, jitted = _conv_cache["b"]
    args = (F32(x), F32(d), F32(lo), F32(hi))
    expected = orig(*args)
    got = jitted(*args)
    for e, g in zip(expected, got, strict=True):
        assert np.asarray(e).dtype == np.asarray(g).dtype or np.asarray(e).dtype == np.bool_
        np.testing.assert_array_equal(np.asarray(g), np.asarray(e))


def test_assert_on_traced_value_reported():
    # (the pipeline's cheap pre-scan for conditionals looks for `if`/`and`/`or`/`not`/`print`)
    text = HEADER + "def f(x):\n    assert x > 0, 'positive'\n    if x.ndim == 0:\n"
    text += "        x = x + 0\n    return jnp.sqrt(x)\n"
    c = convert(text)
    (r,) = [r for r in c.refusals if r.code == "AJ911"]
    assert r.location.line == 6
    assert c.text == text


def test_assert_alone_on_traced_value_reported():
    """A function whose only conditional is the assert is still read by the conditionals
    converter (its pre-scan used to look only for if/and/or/not/print/for/while: the assert
    stayed, unreported, and failed under jit with TracerBoolConversionError)."""
    text = HEADER + "def f(x):\n    assert x.sum() > 0, 'positive'\n    return x * 2\n"
    c = convert(text)
    (r,) = [r for r in c.refusals if r.code == "AJ911"]
    assert r.location.line == HEADER.count("\n") + 2
    assert c.text == text


REFUSED_TEST_WITH_TERNARY = {
    "if": (
        "def f(x, a):\n    s = 0.0\n    if (s if a < -1 else a) > 0:\n"
        "        raise ValueError('no')\n    else:\n        s = 2.0\n    return x, s\n"
    ),
    "elif-after-return": (
        "def f(x, a):\n    s = 0.0\n    if a > 0:\n        return x, s\n"
        "    elif (s if a < -1 else a) > 0:\n        raise ValueError('no')\n"
        "    else:\n        s = 2.0\n    return x, s\n"
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSED_TEST_WITH_TERNARY))
def test_refused_if_keeps_its_test_as_written(name):
    """A refused `if` stays Python as written: a ternary in its test was rewritten to
    `lax.cond` (and AJ104 reported, `import jax` added) though the `if` around it fails under jit
    all the same; the line to fix no longer read as the user wrote it."""
    from tests.fuzz.oracle import _refused_kept

    text = "import jax.numpy as jnp\n\n\n" + REFUSED_TEST_WITH_TERNARY[name]
    c = convert(text)
    assert [r for r in c.refusals if r.code == "AJ911"]
    assert not [ch for ch in c.changes if ch.code == "AJ104"], c.changes
    assert "(s if a < -1 else a) > 0:" in c.text
    assert "import jax\n" not in c.text
    assert _refused_kept(text, c.text, c.refusals) is None
    if name == "if":
        assert c.text == text


BOOLOP_SHAPES = {
    "scalar-or-vector": (
        "    y = (s or x) + 1\n    return y.sum()\n",
        (F32(2.0), np.arange(1, 4, dtype=np.float32)),
    ),
    "and-gives-the-scalar": (
        "    y = s > 0 and x\n    return y\n",
        (F32(-1.0), np.arange(1, 4, dtype=np.float32)),
    ),
}


@pytest.mark.parametrize("name", sorted(BOOLOP_SHAPES))
def test_and_or_on_operands_of_two_shapes_is_never_broadcast(name):
    """`(s or x)` with a scalar `s` and a vector `x` is `s` in Python; `jnp.where(s, s, x)` gave
    `s` spread to x's shape (the sum 9.0 where Python gives 3.0), silently. Where the operands'
    shapes are not known to be one, `lax.cond` returns the operand as it is, and fails loudly
    (at trace time) on two shapes."""
    from tests.fuzz.oracle import run

    body, args = BOOLOP_SHAPES[name]
    out = run("import jax.numpy as jnp\n\ndef f(s, x):\n" + body, [args])
    if name == "and-gives-the-scalar":
        # (a bool and an array of a dtype not known: kept as Python's `and`, AJ913, which
        # the `lax.cond`'s loud error stood for before)
        assert out.kind == "refused" and "AJ913" in " ".join(out.refusals), out.report()
        return
    assert out.kind in ("converted", "jit-error"), (out.kind, out.detail)
    assert (
        "cond branches must have equal output types" in (out.detail or "")
        or out.kind == "converted"
    )


def test_int_array_against_true_division():
    """`y = x` on one path and `y = x / 2` on the other (or `jnp.sin(x)` against `x * 2`), `x`
    an array whose dtype the analysis does not know: of floats, both paths give floats,
    converted and equal; of ints, Python gives int32 on one path and float32 on the other,
    which one traced value cannot: the `lax.cond` rejects the two loudly. (A cast of the `x`
    side to floats gave float32 where Python gave int32: silent.)"""
    text = (
        HEADER
        + """\
def f(x):
    if x.sum() > 0:
        y = x
    else:
        y = x / 2
    return y.sum()


def g(x):
    if x.sum() > 0:
        return jnp.sin(x).sum()
    return x.sum() * 2
"""
    )
    xf = np.arange(3, dtype=F32)
    check_paths(text, "f", calls((xf,), (-xf,)), expect=["AJ101"])
    check_paths(text, "g", calls((xf,), (-xf,)), expect=["AJ101"])
    converted = load(convert(text).text)
    for fn in ("f", "g"):
        with pytest.raises(TypeError, match="branches must have equal output types"):
            jax.jit(converted[fn])(np.arange(3, dtype=I32))


# -- random programs: nested ifs, early returns, static and traced tests, literals ------------
_FZ_CONDS = [
    "x > 0",
    "y < 1",
    "x * y > 2",
    "x.ndim == 0",
    "n > 1",
    "(x > 0) and (y > 0)",
    "not x > 1",
    "-1 < x < 1",
]
_FZ_EXPRS = ["x + 1", "y * 2", "x * y", "jnp.sin(x)", "a + x", "b - y", "0", "1.5", "a * 2", "b"]


def _fz_block(rng, depth, indent):
    lines = []
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        if r < 0.3 and depth < 3:
            lines.append(f"{indent}if {rng.choice(_FZ_CONDS)}:")
            lines += _fz_block(rng, depth + 1, indent + "    ")
            if rng.random() < 0.7:
                lines.append(f"{indent}else:")
                lines += _fz_block(rng, depth + 1, indent + "    ")
        elif r < 0.4:
            lines.append(f"{indent}return {rng.choice(_FZ_EXPRS)}")
            return lines
        else:
            lines.append(f"{indent}{rng.choice('ab')} = {rng.choice(_FZ_EXPRS)}")
    return lines


def _fz_program(seed: int) -> str:
    import random

    rng = random.Random(seed)
    lines = ["def f(x, y, n=2):", "    a = x * 1", "    b = y + 0"]
    lines += _fz_block(rng, 0, "    ")
    lines.append("    return a + b")
    return HEADER + "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(0, 400, 16))
def test_random_programs(seed):
    text = _fz_program(seed)
    c = convert(text)
    again = convert(c.text)
    assert again.text == c.text, f"not idempotent:\n{c.text}"
    original = load(text)["f"]
    jitted = jax.jit(load(c.text)["f"], static_argnames=c.function("f").static_argnames)
    outs = []
    for xv, yv in [(0.5, 0.5), (-2.0, 3.0), (2.0, -1.0), (1.5, 0.2)]:
        args = (F32(xv), F32(yv))
        try:
            expected = original(*args)
        except Exception:
            continue
        try:
            got = jitted(*args)
        except Exception:
            # only a refused conversion may still fail under jit (loudly)
            assert c.refusals, f"jit failed without a refusal:\n{c.text}"
            return
        outs.append((expected, got))
        np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=1e-5, atol=1e-5)
        assert np.shape(got) == np.shape(expected)
    if outs:
        promoted = jnp.result_type(*[e for e, _ in outs])
        assert all(np.asarray(g).dtype == promoted for _, g in outs), c.text


def test_loop_inside_branch():
    text = (
        HEADER
        + """\
def f(x, n):
    if x.sum() > 0:
        for i in range(n):
            x = x * 2
    else:
        x = x - 1
    return x
"""
    )
    x = np.arange(3, dtype=F32)
    check_paths(text, "f", calls((x, I32(3)), (-x - 1, I32(2))), expect=["AJ101"])


def test_decorator_converts_traced_if_in_helper(tmp_path):
    import importlib.util

    path = tmp_path / "cond_decorated.py"
    path.write_text(
        HEADER
        + """\
import autojit


def helper(v):
    if v.sum() > 0:
        return jnp.sin(v).sum()
    return 0.0


@autojit.convert
def f(x):
    return helper(x) * 2
"""
    )
    spec = importlib.util.spec_from_file_location("cond_decorated", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    np.testing.assert_allclose(mod.f(np.ones(3, F32)), 2 * 3 * np.sin(1.0), rtol=1e-6)
    assert float(mod.f(-np.ones(3, F32))) == 0.0


def test_static_if_with_traced_elif():
    text = (
        HEADER
        + """\
def f(x):
    if x.ndim == 1:
        y = x.sum()
    elif x.sum() > 0:
        y = jnp.sin(x).sum()
    else:
        y = jnp.cos(x).sum()
    return y
"""
    )
    c = check_paths(
        text,
        "f",
        calls((np.ones((2, 2), F32),), (-np.ones((2, 2), F32),), (np.ones(3, F32),)),
        expect=["AJ100", "AJ101"],
    )
    assert "if x.ndim == 1:" in c.text and "    else:\n" in c.text


def test_returning_elif_chain_switch():
    text = (
        HEADER
        + """\
def f(g, x, k):
    if k == 0:
        return jnp.zeros_like(g)
    elif k == 1:
        return g
    elif k == 2:
        return g * x * 2
    else:
        return g * x**3
"""
    )
    args = [(F32(2), F32(3), I32(k)) for k in (0, 1, 2, 3, -1)]
    c = check_paths(text, "f", calls(*args), expect=["AJ103"])
    assert "return jax.lax.switch(" in c.text


def test_boolop_with_unknown_operand_kept():
    text = (
        HEADER
        + """\
def f(x):
    flag = x.sum() > 0 and lookup("on")
    return flag
"""
    )
    c = convert(text)
    assert "jnp.where" not in c.text and "logical_and" not in c.text


def test_scalar_type_call_is_traced():
    """`jnp.float32(v)` makes an array: an `if` on it is decided at run time under jit (it was
    kept as a Python `if`, a TracerBoolConversionError), also with a literal argument."""
    text = (
        HEADER
        + """\
def f(x):
    y = jnp.float32(x[0])
    if y > 0:
        x = x + 1
    return x


def g(x, k):
    s = jnp.float32(0)
    if x[0] > 0:
        k = k + 1
        if s > 1:
            k = 0
    return k
"""
    )
    check_paths(text, "f", calls((np.ones(3, F32),), (-np.ones(3, F32),)), expect=["AJ102"])
    args = [(np.ones(3, F32), I32(2)), (-np.ones(3, F32), I32(2))]
    check_paths(text, "g", calls(*args), expect=["AJ101"])


def test_static_operand_before_one_traced_one_is_kept_as_python():
    """`x.ndim == 1 and x.sum()`: Python reads the static part, then gives it or the traced
    value as it is, which works under jit. Nothing to rewrite: the text is kept byte for byte
    and no AJ105 is reported (it was, with the line regenerated as `(x.ndim == 1) and ...`)."""
    text = HEADER + (
        "def f(x, n):\n    s = jnp.zeros(n)\n    return x.ndim == 1 and x.sum() + s.sum()\n"
    )
    c = convert(text)
    assert "AJ105" not in {ch.code for ch in c.changes}
    assert "return x.ndim == 1 and x.sum() + s.sum()" in c.text
    calls = [((np.arange(3, dtype=F32), 2), {}), ((np.ones((2, 2), F32), 2), {})]
    check_paths(text, "f", calls)


def test_ternary_on_a_dtype_query_stays_python():
    """`lax.dtype(a) == np.float32` is a Python bool when jax traces (as `a.dtype == ...`): the
    ternary stays as written. It was read as traced and made a `lax.cond`, whose traced result
    then failed the `assert` on it under jit (found in jax's own scipy.special)."""
    text = (
        HEADER
        + """\
import numpy as np
from jax import lax


def f(a):
    dtype = lax.dtype(a).type
    n = dtype(8) if lax.dtype(a) == np.float32 else dtype(16)
    m = 2 if jnp.promote_types(a.dtype, jnp.int32) == jnp.float32 else 3
    assert n <= 16
    im = lax.imag(a) if np.iscomplexobj(a) else jnp.zeros_like(a)  # lax.imag rejects reals
    return a * n + m + im
"""
    )
    c = check_paths(text, "f", calls((F32(1.5),), (I32(2),)))
    assert c.text == text


def test_or_with_a_tuple_or_none_stays_python():
    """`cfg.names or ()`, `capability or None`: a tuple, None or a string is no array, and
    `jnp.where` cannot return it as Python's `or` does (jax's own pallas code: the rewrite made
    code that ran eagerly crash); nor is `cfg.tile or 128`, a field of an object passed in. A
    traced number `or` a number is still rewritten."""
    text = (
        HEADER
        + """\
def names_of(cfg, x):
    names = cfg.names or ()
    label = cfg.label and "on"
    cap = x.sum() or None
    tile = cfg.tile or 128
    axis = cfg.params["axis"] or 0
    return x * len(names), label, cap, tile, axis


def scale_of(s, x):
    t = s or 1.5
    return x * t
"""
    )
    c = convert(text)
    assert "cfg.names or ()" in c.text and 'cfg.label and "on"' in c.text
    assert "x.sum() or None" in c.text
    # the field of an object passed in, tested for truth: None or a number, not an array
    assert "tile = cfg.tile or 128" in c.text and 'axis = cfg.params["axis"] or 0' in c.text
    # each is reported where it stands (it fails under jit if what it tests is traced)
    kept = sorted((r.location.line, r.code) for r in c.refusals)
    assert kept == [(6, "AJ913"), (7, "AJ913"), (8, "AJ913"), (9, "AJ913"), (10, "AJ913")], kept
    # (`s` of unknown shape: `jnp.where` would give a 1-element `s` for the 1.5, lax.cond does not)
    assert "jax.lax.cond(s, lambda: s, lambda: jnp.asarray(1.5, jnp.result_type(s, 1.5)))" in c.text
    # (the file's refusals are names_of's, checked above)
    check_paths(
        text, "scale_of", calls((F32(0.0), F32(2.0)), (F32(3.0), F32(2.0))), refused=["AJ913"]
    )


def test_or_on_a_field_inside_a_converted_loop_stays_python():
    """`cfg.step or 1` in a loop made a `fori_loop`: in the body function `cfg` is a name from
    outside, not a parameter, and the `or` still tests a field of an object."""
    text = (
        HEADER
        + """\
def f(cfg, x):
    for i in range(20):
        x = x + (cfg.step or 1)
    return x
"""
    )
    c = convert(text)
    assert "jax.lax.fori_loop" in c.text and "x = x + (cfg.step or 1)" in c.text
    assert [(r.code, r.location.line) for r in c.refusals] == [("AJ913", 7)], c.refusals


def test_comparison_with_a_string_stays_python():
    """`cfg.mode == "train"`, `cfg.kind in ("a", "b")`: no array equals a string, so the test is
    a Python value whatever `cfg` is; the ifs stay as written (they became `jnp.where` on a
    comparison that is never traced). A traced test next to them is still converted."""
    text = (
        HEADER
        + """\
def f(x, cfg):
    if cfg.mode == "train":
        x = x * 2
    if cfg.kind not in ("a", "b"):
        x = x + 3
    if x.sum() > 0:
        x = x - 1
    return x
"""
    )
    c = convert(text)
    assert 'if cfg.mode == "train":' in c.text and 'if cfg.kind not in ("a", "b"):' in c.text
    assert "jnp.where(x.sum() > 0" in c.text
    lines = {ch.location.line: ch.code for ch in c.changes}
    assert lines[6] == "AJ100" and lines[8] == "AJ100", c.changes


def test_static_operand_after_a_traced_one_stays_python():
    """`if a > 0 and flag:` put `flag` into the traced predicate (`jnp.logical_and(a > 0,
    flag)`), where converting the output again read it as a value: `flag` was no longer
    static, and the later `if flag:` was rewritten (not idempotent). The static operand goes
    first, a Python `if` around the converted one."""
    import autojit
    from tests.fuzz.oracle import run

    src = (
        "import jax\nimport jax.numpy as jnp\n\n"
        "def f(x, a, flag):\n    s = x.sum()\n    if a > 0 and flag:\n        s = jnp.dot(x, x)\n"
        "    if flag:\n        s = s + 1\n    return s\n"
    )
    x = np.arange(1, 4, dtype=np.float32)
    out = run(src, [(x, F32(a), flag) for a in (-1.0, 1.0) for flag in (False, True)])
    assert out.kind == "converted", (out.kind, out.detail)
    assert "    if flag:\n        s = jax.lax.cond(a > 0," in out.converted
    fc = autojit.convert_source(out.converted, "m.py", all_functions=True)
    assert fc.text == out.converted and fc.function("f").static_argnames == ("flag",)


def test_print_of_an_f_string_with_traced_fields_is_a_debug_print():
    """`print(f"loss={loss}")` reads as a string (static), so it stayed a Python print: under
    jit it showed a tracer once, at trace time. Its fields decide."""
    import autojit

    src = "import jax.numpy as jnp\n\ndef f(x):\n    loss = x.sum()\n    print(f'loss={loss}')\n    return x\n"
    c = autojit.convert_source(src, "m.py", all_functions=True)
    assert "jax.debug.print('loss={}', loss)" in c.text


def test_a_guarded_branch_is_a_cond_so_its_gradient_is_the_taken_branchs():
    """`if x > 0: y = x ** 0.5` guards the domain: with `jnp.where` both branches are computed
    and the gradient is NaN where the other branch is taken; `lax.cond` differentiates the
    branch taken, as the Python `if` does."""
    text = HEADER + (
        "def f(x):\n    if x > 0:\n        y = x ** 0.5\n    else:\n        y = x * 0\n"
        "    return y\n\n\ndef g(x, d):\n    if d != 0:\n        y = x / d\n    else:\n"
        "        y = x\n    return y\n"
    )
    c = convert(text)
    assert "jnp.where" not in c.text and c.text.count("lax.cond") == 2
    f, g = load(c.text)["f"], load(c.text)["g"]
    for x in (-1.0, 0.0, 4.0):
        got = jax.grad(f)(jnp.float32(x))
        assert not np.isnan(got), (x, got)
    dx, dd = jax.grad(g, argnums=(0, 1))(jnp.float32(2.0), jnp.float32(0.0))
    assert not np.isnan(dx) and not np.isnan(dd)
    # a constant divisor or a square stays jnp.where (of two floats of `x`: an int `x` against
    # floats would give each path its dtype in Python, which `jnp.where` would promote)
    c = convert(HEADER + "def h(x):\n    if x > 0:\n        y = x / 2.0 + x ** 2\n    else:\n"
                "        y = x * 0.5\n    return y\n")
    assert "jnp.where" in c.text


def test_a_name_a_closure_reads_after_the_if_is_an_output_of_it():
    """`apply = lambda g: p - lr * g` before the `if`, `lr` set in a branch, `apply(g)` after: the
    closure reads `lr` when called, so the `if` must give `lr` back (it had no outputs)."""
    text = HEADER + (
        "def f(p, g, step):\n    lr = 0.1\n    apply = lambda q: p - lr * q\n"
        "    if step < 10:\n        lr = lr * (step + 1) / 10\n    return apply(g)\n"
    )
    c = check_paths(
        text, "f", calls((np.float32(1.0), np.float32(2.0), np.float32(3.0)),
                         (np.float32(1.0), np.float32(2.0), np.float32(30.0))),
    )
    assert "lax.cond" in c.text or "jnp.where" in c.text


# -- operands that a traced predicate evaluates otherwise than Python ---------------------------
_COUNTING_CLOSURE = """\
def f(x):
    n = [0]
    def g(v):
        n[0] += 1
        return v * n[0]
    {body}
"""


@pytest.mark.parametrize(
    "body",
    [
        # a chained comparison computes its middle once; a logical_and of its parts, twice
        "if 0 < g(x[0]) < 5:\n        r = x + 1\n    else:\n        r = x - 1\n    return r",
        "return 0 < g(x[0]) < 5",
        # `and` / `or` may skip their later operands; converted, every operand is computed
        "a = (x[1] > 0) and g(x[0]) > 0\n    return g(x[0])",
        "a = x[1] or g(x[0])\n    return a, g(x[0])",
        "if x[1] > 0 and g(x[0]) > 0:\n        r = x + 1\n    else:\n        r = x - 1\n"
        "    return r + g(x[0])",
    ],
)
def test_an_operand_with_an_effect_is_not_computed_more_often_than_python_does(body):
    """A closure that counts its calls, in the middle of a chained comparison or after the first
    operand of an `and` / `or` on a traced value: converted, it ran twice (or on the path
    Python skips), silently changing what it returns next. Refused (AJ912), kept as written."""
    text = HEADER + _COUNTING_CLOSURE.format(body=body)
    c = convert(text)
    assert "AJ912" in {r.code for r in c.refusals}, (c.refusals, c.text)
    assert c.text.count("g(x[0])") == text.count("g(x[0])"), c.text
    # and the same with a draw from an iterator
    it_text = HEADER + "def f(x, it):\n    return 0 < x[0] + next(it) < 5\n"
    assert convert(it_text).text == it_text


def test_a_pure_middle_operand_is_still_converted():
    text = HEADER + "def f(x):\n    return 0 < jnp.sum(x) < 5, x[0] > 0 and jnp.max(x) > 1\n"
    check_paths(
        text,
        "f",
        calls(
            (np.array([1.0, 2.0], np.float32),),
            (np.array([3.0, 4.0], np.float32),),
            (np.array([-1.0, 0.5], np.float32),),
        ),
        expect=("AJ105",),
    )


@pytest.mark.parametrize(
    "use",
    ["a + b", "x * (a + b)", "~a", "a * a"],
)
def test_python_bools_made_traced_then_added_are_refused(use):
    """`a = False; if x[0] > 0: a = True` makes `a` a traced boolean; Python's `True + True` is
    2 and `~True` is -2, jax's boolean `+` is a logical or (True) and `~` a logical not: the
    converted function silently gave other values and dtypes. Refused (AJ918)."""
    text = (
        HEADER + "def f(x):\n    a = False\n    b = False\n    if x[0] > 0:\n        a = True\n"
        "    if x[1] > 0:\n        b = True\n    return " + use + "\n"
    )
    c = convert(text)
    assert "AJ918" in {r.code for r in c.refusals}, (c.refusals, c.text)


def test_a_python_bool_made_traced_scaling_an_array_still_converts():
    text = (
        HEADER + "def f(x):\n    a = False\n    if x[0] > 0:\n        a = True\n"
        "    return x * a, a + 1, a & True\n"
    )
    check_paths(
        text,
        "f",
        calls((np.array([1.0, 2.0], np.float32),), (np.array([-1.0, 2.0], np.float32),)),
        expect=("AJ102",),
    )


def test_pow_of_a_python_int_made_traced_is_refused_as_its_operator_is():
    """`pow(c, 20)` is `c ** 20`: of Python ints, exact; of int32, wrapped (AJ918 refused the
    operator, not the builtin)."""
    text = HEADER + "def f(y):\n    c = 3\n    if y[0] > 0:\n        c = 5\n    return pow(c, 20)\n"
    assert "AJ918" in {r.code for r in convert(text).refusals}


@pytest.mark.parametrize("value", ["jnp.nan", "jnp.inf", "math.pi"])
def test_a_module_float_constant_in_a_branch_is_a_number_not_a_function(value):
    """`if s == 0: return jnp.nan` (a degenerate-input guard) was refused as returning "the
    function `jnp.nan`" (AJ916)."""
    text = (
        "import math\n\n" + HEADER + "def f(x):\n    s = x.sum()\n    if s == 0:\n"
        f"        return {value}\n    return s\n"
    )
    check_paths(
        text,
        "f",
        calls((np.array([1.0, -1.0], np.float32),), (np.array([1.0, 2.0], np.float32),)),
        expect=("AJ101",),
    )


@pytest.mark.parametrize(
    "body",
    [
        # a Python int that enters a loop and that an `if` in the loop makes traced
        "    e = 0\n    s = 0.0\n    for i in range(x.shape[0]):\n        if x[i] > 0:\n"
        "            e += 1\n        s += x[i] * pow(2, -e)\n    return s\n",
        # read before the `if` in the loop: on the next iteration, after it
        "    e = 0\n    s = 0.0\n    for i in range(x.shape[0]):\n        s += x[i] * 2 ** -e\n"
        "        if x[i] > 0:\n            e += 1\n    return s\n",
        # an integer power through int arithmetic, or of another Python int
        "    k = 1\n    if x[0] > 0:\n        k = 2\n    return x * 10 ** (k - 3)\n",
        "    k = 1\n    a = 3\n    if x[0] > 0:\n        k = 2\n    return x * a ** -k\n",
    ],
)
def test_integer_powers_of_a_python_int_made_traced_are_refused(body):
    """Python's `2 ** -1` is 0.5 and `3 ** -2` 0.11; of int32 values, 0 (or an error) and
    wrapped for large exponents: refused (AJ918), where the use was past the checks: inside the
    loop around the `if`, or through `k - 3`, or with another Python int as the base."""
    from tests.fuzz import oracle

    src = HEADER + "def f(x: jax.Array):\n" + body
    inputs = [(np.array([1.0, -2.0, 3.0], np.float32),), (np.array([-1.0, -2.0], np.float32),)]
    out = oracle.run(src, inputs, name="f")
    assert out.kind in oracle.OK, out.report()
    assert {"AJ918", "AJ932"} & {r.split()[0] for r in out.refusals}, out.report()


@pytest.mark.parametrize(
    "use",
    [
        "len(str(k + 10))",  # a text builtin of an expression of it
        "isinstance(k + 1, int)",
        "len('%s' % k)",
        "len('{}'.format(k))",
        "len(f'{abs(k)}')",
        "(k == 2) is True",
        "pow(2, k - 3)",
    ],
)
def test_a_python_only_use_inside_an_expression_is_found(use):
    """AJ918 looked at the use's direct parent only: `str(k + 10)` of an int32 tracer is a
    tracer's text, `isinstance(k + 1, int)` False, `'%s' % k` a tracer's text."""
    src = HEADER + f"def f(x):\n    k = 1\n    if x[0] > 0:\n        k = 2\n    return x * ({use})\n"
    _assert_refused_aj918(src)


@pytest.mark.parametrize(
    ("init", "alt", "use"),
    [
        # names that hold it: an alias, a loop's or a comprehension's variable
        ("True", "False", "x * (m + m)"),
        ("True", "False", "x * ~m"),
        ("0", "1", "x * [len(str(j)) for j in [m]][0]"),
        ("0", "1", "x * next(len(str(j)) for j in [m])"),
        # a container given it: an element read back
        ("True", "False", "x * (([] + [m])[0] is True)"),
        # an augmented power or shift of a Python int
        ("1", "2", "x * (2 ** -m)"),
        ("3", "40", "x * (1 << m)"),
    ],
)
def test_a_python_value_made_traced_is_followed_into_aliases_and_loop_variables(init, alt, use):
    """`m = k` then `m + m` of two bools (2 in Python, True as jax's logical or), `for j in [k]`
    / a comprehension's `j` then `str(j)`, and `1 << k` (int32 wraps past 31 bits) were
    converted and gave other values. Refused (AJ918)."""
    src = HEADER + (
        f"def f(x):\n    k = {init}\n    if x[0] > 0:\n        k = {alt}\n"
        f"    m = k\n    return {use}\n"
    )
    _assert_refused_aj918(src)


@pytest.mark.parametrize(
    "use",
    [
        "x * k.bit_length()",
        "x * (k / 2).is_integer()",
        "x * len(range(-k))",
        "x * len([0] * -k)",
        "x * len('ab' * -k)",
        "x * [10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0][k]",
        "x * {-3: 1.0, -7: 2.0}[k]",
        "x * (k in {-3, 5})",
        "x * sorted([k, 0, -5])[0]",
        "x * float(k)",
        "x * math.sqrt(-k)",
        "x * [k, k].count(-3)",
        "jnp.arange(-k) * 1.0",
        "x[: k + 4]",
    ],
)
def test_a_python_value_made_traced_where_jax_needs_a_python_number_is_refused(use):
    """Uses that need a Python number (`range(k)`, `k.bit_length()`, a list's index, a slice
    bound, a shape argument, `math.*`): converted, the function failed under jit with a jax
    error and no refusal. Refused (AJ918), naming the use."""
    src = "import math\n" + HEADER + (
        f"def f(x):\n    k = -3\n    if x[0] > 0:\n        k = -7\n    return {use}\n"
    )
    _assert_refused_aj918(src)


def test_a_python_int_too_wide_for_int32_made_traced_is_refused():
    """`k = 2**31` in a branch: the converted function failed (jax's OverflowError)."""
    src = HEADER + "def f(x):\n    k = 0\n    if x[0] > 0:\n        k = 2**31\n    return x * (k > 100)\n"
    c = convert(src)
    assert [r.code for r in c.refusals] == ["AJ918"], c.refusals
    assert "int32" in c.refusals[0].message


@pytest.mark.parametrize(
    ("init", "branch", "use"),
    [
        ("50000", "k = 60000", "x * (k * k)"),
        ("3", "k = 5000", "x * (k * 1_000_000)"),
        ("1_000_000", "k *= 10_000", "x * k"),
        ("5", "k = 3_000_000", "x * ((k * 1000) // 1000)"),
        ("3", "k = -2**31", "x * (-k > 0)"),
        # through a name assigned after the `if`
        ("1000", "k = 60 * 60 * 1000", "x * 0 + (lambda: None, k * 1000)[1]"),
    ],
)
def test_a_python_int_made_traced_whose_arithmetic_leaves_int32_is_refused(init, branch, use):
    """`timeout_ms = 60 * 60 * 1000` in a branch, then `timeout_ms * 1000`: Python's int is
    3.6e9, the converted int32 value wrapped to -6.9e8 (silently). The ints a name may hold
    (written with literals) are followed through the arithmetic after the `if`; past int32,
    refused (AJ918)."""
    src = HEADER + (
        f"def f(x):\n    k = {init}\n    if x[0] > 0:\n        {branch}\n    return {use}\n"
    )
    _assert_refused_aj918(src)


@pytest.mark.parametrize(
    "body",
    [
        # a ternary of literals
        "    ms = 3_600_000 if x[0] > 0 else 60_000\n    return x * (ms * 1000)\n",
        # the other factor a name holding a literal
        "    US = 1000\n    ms = 60\n    if x[0] > 0:\n        ms = 3_600_000\n"
        "    return x * (ms * US)\n",
        # a module constant
        "    ms = 60\n    if x[0] > 0:\n        ms = 3_600_000\n    return x * (ms * US_PER_MS)\n",
    ],
)
def test_int32_overflow_through_a_ternary_or_a_named_constant_is_refused(body):
    """Probe 12: `ms = 3_600_000 if c else 60_000` then `ms * 1000`, and `ms * US` with
    `US = 1000`, wrapped in int32 (silently): the interval check now reads ternaries of
    literals and the function's names that only hold literal ints. Refused (AJ918)."""
    src = HEADER + "US_PER_MS = 1000\n\n\ndef f(x):\n" + body
    _assert_refused_aj918(src)


def test_a_python_int_made_traced_whose_arithmetic_stays_in_int32_converts():
    src = HEADER + (
        "def f(x):\n    k = 1000\n    if x[0] > 0:\n        k = 60 * 1000\n"
        "    us = k * 1000\n    return x * us + k * 10\n"
    )
    c = convert(src)
    assert not c.refusals, c.refusals
    _assert_converted_as_eager(src)
    assert "jnp.where(x[0] > 0, 60 * 1000, k)" in c.text, c.text


@pytest.mark.parametrize(
    ("then", "orelse"),
    [
        ("k = k + 1\n        m = 1", "m = len(str(k))"),
        ("m = len(str(k))\n        k = k + 1", "m = 0"),
        ("m = 2 ** -k\n        k = k + 1", "m = 0"),
        ("k = k + 1\n        m = 2", 'm = len(f"step-{k}")'),
    ],
)
def test_a_python_value_rebound_in_a_branch_and_read_there_python_only_is_refused(then, orelse):
    """A Python int that a branch rebinds is an operand of both branch functions: a tracer in
    them, before its rebinding and in the other branch too. `len(str(k))` there was the
    length of a tracer's text (19, not 1), `2 ** -k` 0 (not 0.25). Refused (AJ918)."""
    src = HEADER + (
        f"def f(x):\n    k = 2\n    if x[0] > 0:\n        {then}\n    else:\n        {orelse}\n"
        f"    return x * m, k\n"
    )
    _assert_refused_aj918(src)


@pytest.mark.parametrize(
    ("helper", "use"),
    [
        ("def label_len(k):\n    return len(str(k))\n", "x * label_len(k)"),
        ("def scale(k):\n    return 2 if isinstance(k, int) else 3\n", "x * scale(k)"),
        ("def inv(k):\n    return 2 ** -k\n", "x * inv(k=k)"),
        # with the arguments' kinds: bool arithmetic on two flags, an int power of an int
        ("def count(a, b):\n    return a + b\n", "x * count(k == 1, k == 1)"),
        ("def factor(k, base):\n    return base ** -k\n", "x * factor(k=k, base=10)"),
        ("", "x * g()"),  # a closure reading it
    ],
)
def test_a_python_value_made_traced_and_used_python_only_in_a_helper_is_refused(helper, use):
    """The value given to a helper of the module (or read by a closure) that uses it Python's
    way: `len(str(k))` there was a tracer's text (19, not 1). Refused (AJ918)."""
    closure = "    def g():\n        return len(str(k))\n" if not helper else ""
    src = HEADER + helper + (
        f"\n\ndef f(x):\n    k = 0\n    if x[0] > 0:\n        k = 1\n{closure}    return {use}\n"
    )
    _assert_refused_aj918(src)


def test_a_python_value_made_traced_given_to_a_helper_computing_with_it_converts():
    src = HEADER + (
        "def scale(x, k):\n    return x * k + 1\n\n\n"
        "def f(x):\n    k = 1\n    if x[0] > 0:\n        k = 2\n    return scale(x, k)\n"
    )
    c = convert(src)
    assert not c.refusals, c.refusals
    _assert_converted_as_eager(src)


@pytest.mark.parametrize(
    "body",
    [
        "    k = 0\n    if x[0] > 0:\n        k = 1.5\n    return k\n",
        "    k = 1\n    if x[0] > 0:\n        k = True\n    return x, k\n",
        "    k = 0\n    if x[0] > 0:\n        k = 1.5\n    m = k + 1\n    return m\n",
        "    k = 0 if x[0] > 0 else 1.5\n    return k\n",
        "    k = True\n    if x[0] > 0:\n        k = False\n    return x * abs(k)\n",
    ],
)
def test_a_python_value_of_two_types_returned_as_it_is_is_refused(body):
    """`k = 0` on one path and `k = 1.5` on the other, returned: eager gives the int 0 or the
    float 1.5, the converted function float32 on both paths (and `abs(True)` is the int 1,
    `abs` of a jax bool a bool). Refused (AJ918)."""
    src = HEADER + "def f(x):\n" + body
    _assert_refused_aj918(src)


def test_a_python_value_of_two_types_used_with_a_float_array_converts():
    """`scale = 1` / `scale = 0.5` then `y * scale` of a float array `y`: its dtype decides,
    as in Python."""
    src = HEADER + (
        "def f(x):\n    y = jnp.asarray(x, jnp.float32)\n    scale = 1\n    if x[0] > 0:\n"
        "        scale = 0.5\n    return y * scale\n"
    )
    c = convert(src)
    assert not c.refusals, c.refusals
    _assert_converted_as_eager(src)
    assert "jnp.where(x[0] > 0, 0.5, scale)" in c.text, c.text


@pytest.mark.parametrize(
    "body",
    [
        "    scale = 1\n    if x[0] > 0:\n        scale = 0.5\n    return x * scale\n",
        "    if x[0] > 0:\n        s = 2\n    else:\n        s = 0.5\n    return jnp.abs(x * s)\n",
        "    s = 2 if x[0] > 0 else 0.5\n    return x * s\n",
        "    return x * (2 if x[0] > 0 else 0.5)\n",
        "    y = x + (2 if x[0] > 0 else 0.5)\n    return y\n",
    ],
)
def test_a_python_number_of_two_types_times_an_array_of_unknown_dtype_is_refused(body):
    """Probe 14: `scale` an int on one path, a float on the other, then `x * scale` of a
    parameter: for an int array Python gives int32 on one path, float32 on the other, and
    converted it came back float32 on both (a dtype no conversion can keep). Refused (AJ918),
    as returning `scale` as it is was; the array's dtype, where known float, decides (above)."""
    from tests.fuzz import oracle

    src = HEADER + "def f(x):\n" + body
    inputs = [(np.array([1, 2], np.int32),), (np.array([-1, 2], np.int32),)]
    out = oracle.run(src, inputs, name="f")
    assert out.kind in oracle.OK, out.report()
    assert "AJ918" in " ".join(out.refusals), out.refusals


@pytest.mark.parametrize(
    "use",
    [
        "flags = []\n    flags.append(k)\n    return x * (flags[0] is True)",
        "cfg = {}\n    cfg['k'] = k\n    return x * 10 ** -cfg['k']",
    ],
)
def test_a_python_value_kept_in_a_container_and_read_back_is_followed(use):
    """Probe 12: `flags.append(flag)` then `flags[0] is True`, `cfg["k"] = k` then
    `10 ** -cfg["k"]`: converted, a tracer's answers (False, 0). Refused (AJ918)."""
    src = HEADER + f"def f(x):\n    k = True\n    if x[0] > 0:\n        k = 2\n    {use}\n"
    _assert_refused_aj918(src)


def test_a_python_value_rebound_after_the_if_is_a_new_value():
    """Probe 12: `k = 3` after the `if`, then `jnp.zeros(k)`: the new value is Python's; it
    was refused as a shape use of the traced `k`. (Before the rebinding, a shape use of the
    traced value is still refused.)"""
    from tests.fuzz import oracle

    src = HEADER + (
        "def f(x):\n    k = 1\n    if x[0] > 0:\n        k = 2\n    y = x * k\n    k = 3\n"
        "    return y + jnp.zeros(k)\n"
    )
    inputs = [(np.array([1.0, 2.0, 3.0], np.float32),), (np.array([-1.0, 2.0, 3.0], np.float32),)]
    out = oracle.run(src, inputs, name="f")
    assert out.kind == "converted", out.report()
    before = src.replace("    y = x * k\n    k = 3\n", "    y = x * jnp.zeros(k)\n    k = 3\n")
    assert "AJ918" in {r.code for r in convert(before).refusals}


def test_a_python_int_made_traced_and_used_as_an_array_value_still_converts():
    """The checks do not refuse what jax computes as Python does: arithmetic with arrays, an
    index into an array, a non-shape argument of a jax function."""
    src = HEADER + (
        "def f(x):\n    k = 1\n    if x[0] > 0:\n        k = 2\n"
        "    return x * k + x[k] + jnp.clip(x, 0, k) + jnp.where(x > k, k, 0)\n"
    )
    c = convert(src)
    assert not c.refusals, c.refusals
    # (run eagerly with NumPy standing in for jnp, `np.where(x > k, k, 0)` is int64 and the
    # sum float64, where jnp keeps float32: that term is left out of the eager comparison)
    _assert_converted_as_eager(src.replace(" + jnp.where(x > k, k, 0)", ""))
    assert "jnp.where(x[0] > 0, 2, k)" in c.text, c.text


@pytest.mark.parametrize(
    "body",
    [
        # a name assigned from the Python value after the `if`
        "    k = 1\n    if x[0] > 0:\n        k = 2\n    m = k + 1\n    return x * len(str(m))\n",
        # a ternary of Python values, then Python's bool arithmetic
        "    a = True if x[0] > 0 else False\n    b = True if x[1] > 0 else False\n"
        "    return x * (a + b)\n",
    ],
)
def test_a_python_value_made_traced_is_followed_through_names_and_ternaries(body):
    from tests.fuzz import oracle

    src = HEADER + "def f(x):\n" + body
    inputs = [(np.array([1.0, 2.0], np.float32),), (np.array([-1.0, 2.0], np.float32),)]
    out = oracle.run(src, inputs, name="f")
    assert out.kind in oracle.OK, out.report()


# Idioms that a Python value chosen by a traced `if` is used around (a scale, a step size, a
# flag), with shapes, sizes and helpers after it: converted as before the tenth round's AJ918
# checks, which at first followed `y = x * scale` as a Python number and refused `y.shape`,
# `len(y)`, `math.sqrt(h.shape[-1])`, a helper's `hi is not None` (probe 12's false refusals).
_CONVERTED_AS_BEFORE = [
    pytest.param('\ndef f(q):\n    scale = 1.0\n    if q.sum() > 0:\n        scale = 0.5\n    h = q * scale\n    s = h @ h.T / math.sqrt(h.shape[-1])\n    return s\n', id='attn_math_sqrt'),
    pytest.param('\ndef f(x):\n    lr = 0.1\n    if x.sum() > 0:\n        lr = 0.01\n    y = x * lr\n    acc = 0.0\n    for i in range(len(y)):\n        acc = acc + y[i]\n    return acc\n', id='range_len_scaled'),
    pytest.param('\ndef f(x):\n    s = 1.0\n    if x.max() > 2:\n        s = 2.0\n    y = x * s\n    out = jnp.zeros(y.shape)\n    return out + y\n', id='zeros_shape_scaled'),
    pytest.param('\ndef f(x):\n    s = 1.0\n    if x.max() > 2:\n        s = 2.0\n    y = x * s\n    n = y.shape[0] // 2\n    return y[:n].sum() - y[n:].sum()\n', id='slice_shape'),
    pytest.param('\ndef f(x):\n    s = 1.0\n    if x.max() > 2:\n        s = 2.0\n    y = x * s\n    n = int(y.shape[0])\n    return jnp.ones(n) * y.sum()\n', id='int_shape'),
    pytest.param('\ndef f(x):\n    s = 1.0\n    if x.max() > 2:\n        s = 2.0\n    y = x * s\n    if y.ndim in (1, 2):\n        y = y + 1\n    return y\n', id='ndim_in'),
    pytest.param('\ndef normalize(x, eps=None):\n    if eps is None:\n        eps = 1e-6\n    return x / (jnp.abs(x).max() + eps)\n\ndef f(x):\n    eps = 1e-5\n    if x.max() > 2:\n        eps = 1e-3\n    return normalize(x, eps)\n', id='helper_is_none'),
    pytest.param('\ndef f(x):\n    temp = 1.0\n    if x.max() > 2:\n        temp = 0.5\n    logits = x / temp\n    p = jax.nn.softmax(logits)\n    k = min(2, logits.shape[0])\n    return jax.lax.top_k(p, k)[0]\n', id='moments_int'),
    pytest.param('\ndef f(x):\n    s = 1.0\n    if x.max() > 2:\n        s = 2.0\n    y = x * s\n    rows = []\n    for i in range(y.shape[0]):\n        rows.append(y[i] * 2)\n    return jnp.stack(rows)\n', id='list_loop_range_shape'),
    pytest.param('\ndef f(x):\n    reg = 1e-3\n    if x.max() > 2:\n        reg = 1e-1\n    A = jnp.outer(x, x) + reg * jnp.eye(x.shape[0])\n    B = A + jnp.eye(A.shape[0])\n    return B\n', id='eye_of_shape'),
    pytest.param('\ndef f(x):\n    beta = 1.0\n    if x.mean() > 0:\n        beta = 2.0\n    logits = beta * x\n    return jax.nn.logsumexp(logits) - math.log(logits.size)\n', id='math_log_size'),
    pytest.param('\ndef halves(y):\n    n = y.shape[0] // 2\n    return y[:n], y[n:]\n\ndef f(x):\n    s = 1.0\n    if x.max() > 2:\n        s = 2.0\n    a, b = halves(x * s)\n    return a - b\n', id='split_in_helper_shape'),
    pytest.param('\ndef clip(x, lo=None, hi=None):\n    if lo is not None:\n        x = jnp.maximum(x, lo)\n    if hi is not None:\n        x = jnp.minimum(x, hi)\n    return x\n\ndef f(x):\n    hi = 1.0\n    if x.mean() > 0:\n        hi = 2.0\n    return clip(x, hi=hi)\n', id='helper_float_default_none'),
    pytest.param('\ndef f(x):\n    s = 2.0 if x.max() > 2 else 1.0\n    y = x * s\n    return jnp.zeros((y.shape[0], 2)) + y[:, None]\n', id='ternary_scale_then_shape'),
    pytest.param('\ndef f(x):\n    y = x\n    for t in range(3):\n        lr = 0.1\n        if y.sum() > 0:\n            lr = 0.05\n        y = y - lr * y\n    return jnp.zeros(y.shape[0]) + y\n', id='loop_counter_if_then_shape'),
    pytest.param('\ndef f(x):\n    it = 0\n    y = x\n    while jnp.abs(y).max() > 0.1 and it < 50:\n        y = y * 0.5\n        it = it + 1\n    z = y * it\n    return jnp.zeros(z.shape[0]) + z\n', id='while_newton_then_shape'),
    pytest.param('\ndef f(x):\n    sign = 1\n    acc = 0.0\n    for i in range(x.shape[0]):\n        if x[i] > 0:\n            sign = sign * -1\n        acc = acc + sign * x[i]\n    return acc\n', id='sign_flip_loop'),
    pytest.param('\ndef f(x):\n    h = 7\n    for i in range(x.shape[0]):\n        if x[i] > 0:\n            h = (h * 31) % 1000\n    return x * h\n', id='mod_product_loop'),
]


@pytest.mark.parametrize("body", _CONVERTED_AS_BEFORE)
def test_a_python_value_made_traced_with_shapes_and_helpers_after_still_converts(body):
    from tests.fuzz import oracle

    src = "import jax\nimport jax.numpy as jnp\nimport math\n" + body
    x = np.array([1.0, -2.0, 3.0, 0.5], np.float32)
    q = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
    arg = q if "def f(q)" in body else x
    out = oracle.run(src, [(arg,), (-arg,)], name="f")
    assert out.kind == "converted", out.report()
    assert not {"AJ918", "AJ932"} & {r.split()[0] for r in out.refusals}, out.refusals


# -- probe 14/16: what a traced condition makes of Python numbers and shapes --------------------


def _oracle(src: str, inputs):
    from tests.fuzz import oracle

    return oracle.run(src, inputs, name="f", decorator=True)


_FLOATS = [(np.array([v, 2.0, 3.0], np.float32),) for v in (1.0, -1.0)]


@pytest.mark.parametrize(
    "branch",
    [
        "p = p // 2",  # a step that shrinks it: the other path keeps 50000
        "p = p % 7",
        "p = len(x)",  # a size: taken as at most 2**20
        "q = len(x) * 12500\n        p = q",
    ],
)
def test_a_branch_writing_an_int_the_code_does_not_spell_out_keeps_the_overflow_check(branch):
    """Probe 14: `p = 50000` before a traced `if` whose branch writes `p` otherwise than with a
    literal: `p` had no range, so `p * 100000` (5e9 on the path that keeps 50000) went
    unchecked and wrapped as int32. Floor division and `%` now have ranges, and a value the
    code does not show is taken as a size (at most 2**20): refused (AJ918)."""
    src = HEADER + (
        "def f(x):\n    p = 50000\n    if x[0] > 0:\n"
        f"        {branch}\n    return x * (p * 100000)\n"
    )
    out = _oracle(src, _FLOATS)
    assert out.kind in ("converted", "refused"), out.report()
    assert "AJ918" in " ".join(out.refusals), out.refusals


@pytest.mark.parametrize("expr", ["n * x.size", "n * x.shape[0]", "n * len(x)"])
@pytest.mark.parametrize("form", ["ternary", "if"])
def test_an_int_made_traced_times_a_size_is_checked_for_overflow(expr, form):
    """Probe 16: `n = 100000 if c else 1`, then `n * x.shape[0]`: a size is a Python int of any
    magnitude (30000 items: 3e9, wrapped under jit). A size is taken as at most 2**20, so the
    product may leave int32: refused (AJ918); `n * 3` still converts."""
    if form == "ternary":
        body = f"    n = 100000 if x[0] > 0 else 1\n    return x * ({expr} / 1e9)\n"
    else:
        body = (
            "    if x[0] > 0:\n        n = 100000\n    else:\n        n = 1\n"
            f"    total = {expr}\n    return x * (total / 1e9)\n"
        )
    x = np.ones(30000, np.float32)
    out = _oracle(HEADER + "def f(x):\n" + body, [(x,), (-x,)])
    assert out.kind in ("converted", "refused"), out.report()
    assert "AJ918" in " ".join(out.refusals), out.refusals
    small = _oracle(HEADER + "def f(x):\n" + body.replace(expr, "n * 3"), [(x,), (-x,)])
    assert small.kind == "converted", small.report()


def test_a_small_int_from_a_size_in_a_branch_converts():
    """A size the branch gives (`p = len(x)`) then `p + 1`: within int32 for any size."""
    src = HEADER + "def f(x):\n    p = 3\n    if x[0] > 0:\n        p = len(x)\n    return x * (p + 1)\n"
    assert _oracle(src, _FLOATS).kind == "converted"


@pytest.mark.parametrize(
    "src",
    [
        # a scalar type called on an array keeps its shape (it was taken for a 0-d value)
        "def f(x):\n    k = jnp.int32(x * 10)\n    if x[0] > 0:\n        r = k\n    else:\n"
        "        r = 0\n    return r\n",
        # a comparison of two arrays has their broadcast shape, not the first's
        "def f(x, ref):\n    if x[0] > 0:\n        return jnp.equal(x, ref)\n    return x > 0\n",
    ],
)
def test_a_value_whose_shape_differs_by_path_is_never_selected_with_where(src):
    """Probe 16: the analysis took `jnp.int32(x * 10)` for a scalar and `jnp.equal(x, ref)` for
    an array of `x`'s shape, so the branches were selected with jnp.where, which broadcast the
    other path's value to that shape (eager: `0` of shape (), `x > 0` of shape (3,)). Python
    gives each path its own shape, which jit cannot: never a silent broadcast."""
    inputs = [
        (np.array([v, 2.0, 3.0], np.float32),) + ((np.zeros((2, 3), np.float32),) if "ref" in src else ())
        for v in (1.0, -1.0)
    ]
    out = _oracle(HEADER + src, inputs)
    assert out.kind != "wrong", out.report()
    assert "jnp.where" not in out.converted, out.converted


@pytest.mark.parametrize(
    "body",
    [
        "    s = x[:1]\n    return 1.0 if s > 0 else 0.0\n",
        "    m = x.sum(axis=0, keepdims=True) > 0\n    if m:\n        y = x * 2\n    else:\n"
        "        y = x\n    return y\n",
    ],
)
def test_a_condition_of_one_item_in_an_axis_is_taken_as_its_item(body):
    """Probe 16: `1.0 if x[:1] > 0 else 0.0`: Python's truth of a one-item array is its item's,
    and the ternary gives a scalar; jnp.where(x[:1] > 0, 1.0, 0.0) gave shape (1,). A condition
    known to have an axis is written `jnp.reshape(c, ())`: its item, or an error for more items
    (as Python's truth test)."""
    out = _oracle(HEADER + "def f(x):\n" + body, _FLOATS)
    assert out.kind == "converted", out.report()
    assert "jnp.reshape(" in out.converted, out.converted


@pytest.mark.parametrize("test", ["x[0] in (1, 2)", "x[0] not in [1, 2.5]"])
def test_membership_of_a_traced_value_in_numbers_converts(test):
    """Probe 16: `if x[0] in (1, 2):` was left as Python's `in` inside the predicate, whose
    `==` of a tracer then needs bool(): TracerBoolConversionError. Written `jnp.isin`."""
    src = HEADER + f"def f(x):\n    if {test}:\n        y = x * 2\n    else:\n        y = x\n    return y\n"
    inputs = [(np.array([v, 2.0], np.float32),) for v in (1.0, 2.0, 2.5, 3.0)]
    out = _oracle(src, inputs)
    assert out.kind == "converted", out.report()
    assert "jnp.isin(" in out.converted, out.converted


def test_an_index_from_a_ternary_of_ints_is_converted_once():
    """Probe 16: `i = 0 if c else -1; x[i] = 100`: the second conversion no longer knew `i`
    (now `jnp.where(c, 0, -1)`) was an int and rewrote the update into the bool-or-int form.
    jnp.where of two ints is an int."""
    src = HEADER + "def f(x):\n    i = 0 if x[0] > 0 else -1\n    x[i] = 100\n    return x\n"
    out = _oracle(src, _FLOATS)
    assert out.kind == "converted", out.report()


@pytest.mark.parametrize(
    "body",
    [
        "    if x[1] != 0:\n        r = x[0] / x[1]\n    else:\n        r = 0\n    return r\n",
        "    r = x[0] / x[1] if x[1] != 0 else 0\n    return r\n",
        "    return x[0] / x[1] if x[1] != 0 else 0\n",
    ],
)
def test_a_division_guard_giving_an_int_on_the_other_path_is_refused(body):
    """Probe 16: `r = a / d` under `d != 0`, `r = 0` otherwise, `r` returned: Python returns
    the int 0 on that path, the converted `jnp.where` a float32 0.0 (the dtype of a path jit
    cannot keep). Refused (AJ918): `r = 0.0` makes the paths agree."""
    src = HEADER + "def f(x):\n" + body
    out = _oracle(src, [(np.array([7, 0], np.int32),), (np.array([7, 2], np.int32),)])
    assert out.kind in ("converted", "refused"), out.report()
    assert "AJ918" in " ".join(out.refusals), out.refusals
    fixed = convert(src.replace("else 0\n", "else 0.0\n").replace("r = 0\n", "r = 0.0\n"))
    assert not fixed.refusals, fixed.refusals


@pytest.mark.parametrize(
    "body",
    [
        # a tuple assignment, a chained one, a module constant written `int(1e6)`
        "    if x[0] > 0:\n        k, m = 100000, 1\n    else:\n        k, m = 3, 2\n"
        "    return x * (k * k + m)\n",
        "    if x[0] > 0:\n        k = j = 100000\n    else:\n        k = j = 3\n    return x * (k * j)\n",
        "    if x[0] > 0:\n        k = 5000\n    else:\n        k = 1\n    return x * (k * SCALE)\n",
    ],
)
def test_ints_given_by_tuple_chained_or_int_call_assignments_keep_the_overflow_check(body):
    """Probe 17: `k, m = 100000, 1`, `k = j = 100000`, and a module `SCALE = int(1e6)` had no
    range (a tuple target, two targets, a call), so `k * k` / `k * SCALE` wrapped as int32.
    Each name now takes its own value's range: refused (AJ918)."""
    src = HEADER + "SCALE = int(1e6)\n\n\ndef f(x):\n" + body
    out = _oracle(src, _FLOATS)
    assert out.kind in ("converted", "refused"), out.report()
    assert "AJ918" in " ".join(out.refusals), out.refusals


@pytest.mark.parametrize(
    "use",
    ["    s = 0\n    s += r\n    return s\n", "    return (x * r).max()\n",
     "    return (x * r)[0]\n", "    a, b = x, r\n    return a * b\n"],
)
def test_a_number_of_two_kinds_followed_through_augmented_methods_and_tuples(use):
    """Probe 17: `r` an int on one path and a float on the other, then `s += r`,
    `(x * r).max()`, `(x * r)[0]`, `a, b = x, r`: not followed, so the int path came back
    float32. Refused (AJ918)."""
    src = HEADER + "def f(x):\n    if x[0] > 0:\n        r = 2\n    else:\n        r = 0.5\n" + use
    out = _oracle(src, [(np.array([1, 2], np.int32),), (np.array([-1, 2], np.int32),)])
    assert out.kind in ("converted", "refused"), out.report()
    assert "AJ918" in " ".join(out.refusals), out.refusals


def test_membership_of_a_one_item_array_is_its_item():
    """Probe 17: `1.0 if x[:1] in (1, 2) else 0.0`: jnp.isin keeps the (1,) shape; Python's
    truth is the item's. Reshaped to ()."""
    src = HEADER + "def f(x):\n    return 1.0 if x[:1] in (1, 2) else 0.0\n"
    inputs = [(np.array([v, 5.0], np.float32),) for v in (1.0, 3.0)]
    out = _oracle(src, inputs)
    assert out.kind == "converted", out.report()


@pytest.mark.parametrize(
    "ret, refused",
    [
        ("(100000 if x[0] > 0 else 3) * 100000", True),
        ("x * ((100000 if x[0] > 0 else 3) * len(x) * 100)", True),
        ("(100 if x[0] > 0 else 3) * 1000", False),
    ],
)
def test_an_inline_ternary_of_ints_in_arithmetic_past_int32_is_refused(ret, refused):
    """Probe 17: `(100000 if c else 3) * 100000` inside an expression: the ternary becomes an
    int32 `jnp.where`, and the product wrapped (1410065408 for 10**10). The arithmetic around
    it is checked as for an assigned ternary: refused (AJ918); small products convert."""
    src = HEADER + f"def f(x):\n    return {ret}\n"
    out = _oracle(src, _FLOATS)
    assert out.kind in ("converted", "refused"), out.report()
    assert ("AJ918" in " ".join(out.refusals)) == refused, out.refusals


def test_a_bare_name_test_that_a_branch_rebinds_is_computed_once():
    """`if n: n = n - 1 else: m = m - 1` became two `jnp.where`s, the second testing the new
    `n` (a bare-name test was not saved to a `pred` first; probe 21): m came back 5 for 4."""
    from tests.fuzz.oracle import run

    src = (
        "import jax.numpy as jnp\n\ndef f(x):\n    n = x.astype(jnp.int32)[0]\n    m = x[2]\n"
        "    if n:\n        n = n - 1\n    else:\n        m = m - 1\n    return n, m\n"
    )
    inputs = [(np.array(v, np.float32),) for v in ([1, 0, 5, 0], [0, 0, 5, 0], [2, 0, 5, 0])]
    out = run(src, inputs, name="f", decorator=True)
    assert out.kind == "converted", out.report()


# probe 22 (fourteenth session): a returning `if` whose paths return a Python number and a
# value of another kind was converted with the number promoted (16777217 came back as the
# float32 16777216.0; an int path gave a float): the assigned form was refused, AJ918, these not
RETURNED_KINDS = {
    "int-or-float": "    if x[0] > 0:\n        return 16777217\n    return 0.5\n",
    "float-array-or-int": "    if x[0] > 0:\n        return x[1] / 2\n    return 16777217\n",
    "elif-chain": (
        "    if x[0] > 1:\n        return 0.5\n    elif x[0] > 0:\n        return 16777217\n"
        "    else:\n        return 2.5\n"
    ),
    "tuple-item": "    if x[0] > 0:\n        return 16777217, x\n    return 0.5, x\n",
    "bool-or-int": "    if x[0] > 0:\n        return True\n    return 0\n",
}


@pytest.mark.parametrize("name", sorted(RETURNED_KINDS))
def test_returns_of_two_kinds_under_a_traced_if_are_refused(name):
    _assert_refused_aj918(HEADER + "def f(x):\n" + RETURNED_KINDS[name])


@pytest.mark.parametrize(
    "body",
    [
        "    if x[0] > 0:\n        return 1.5\n    return x[1] / 2\n",  # (float and float32)
        "    if x[0] > 0:\n        return 0\n    return jnp.int32(3)\n",  # (int and int32)
        "    if x[0] > 0:\n        return x[0]\n    return 0.0\n",
    ],
)
def test_returns_of_one_kind_under_a_traced_if_still_convert(body):
    _assert_converted_as_eager(HEADER + "def f(x):\n" + body)


BOOL_OF_TESTS = {
    "if": "    if bool(x.sum() > 0):\n        y = x * 2\n    else:\n        y = x - 1\n    return y\n",
    "if-of-an-item": "    if bool(x[0]):\n        return jnp.sin(x).sum()\n    return jnp.cos(x).sum()\n",
    "ternary": "    return x * 2 if bool(x[0] > 1) else x\n",
    "not": "    if not bool(x[0] > 1):\n        x = x + 1\n    return x\n",
    "while": "    i = 0\n    while bool(x[i] > 0):\n        i = i + 1\n    return i\n",
}


@pytest.mark.parametrize("name", sorted(BOOL_OF_TESTS))
def test_bool_of_a_traced_test_is_the_test_itself(name):
    """`if bool(x.sum() > 0):`: the converted test dropped neither `bool()` (TracerBool
    ConversionError under jit) nor, for `bool(x[0] > 1)`, the inference of `x` static
    (non-hashable static argument); both were loud with no refusal (probe 22)."""
    from tests.fuzz import oracle

    src = HEADER + "def f(x):\n" + BOOL_OF_TESTS[name]
    inputs = [(np.array([3.0, 1.0, -1.0], np.float32),), (np.array([0.0, -1.0, 2.0], np.float32),)]
    out = oracle.run(src, inputs, name="f", decorator=True)
    assert out.kind == "converted", out.report()
    assert "bool(" not in out.converted, out.converted


@pytest.mark.parametrize(
    "body",
    [
        # a loop returning an int before a `return 0.5` after it: one carried float32 result
        "    for i in range(x.shape[0]):\n        if x[i] > 2.0:\n            return 16777215 + i\n"
        "    return 0.5\n",
        "    i = 0\n    while i < x.shape[0]:\n        if x[i] > 2.0:\n            return True\n"
        "        i = i + 1\n    return 0\n",
        # `x.shape[0]` is a Python int (its kind was not known: jax's TypeError, no refusal)
        "    k = x.shape[0]\n    if x[0] > 0:\n        return k\n    return -1.0\n",
        # `cnt += 0.5` of `cnt = 0` on one path (the sum's kind was not followed)
        "    cnt = 0\n    if x[0] > 0:\n        cnt += 0.5\n    return x * 2, cnt\n",
    ],
)
def test_values_of_two_kinds_from_loops_and_sizes_are_refused(body):
    """Probes 22 and 28: each gave a float32 for a Python int (silent), or failed under jit
    with nothing refused."""
    _assert_refused_aj918(HEADER + "def f(x):\n" + body)


def test_in_of_a_parameter_that_may_be_a_tuple_stays_pythons():
    """`i in axes` of a parameter (a tuple as often as an array): `jnp.any(axes == i)` would be
    False for a tuple; left as Python's `in` (the corpus showed `static_argnums`, `axis`)."""
    src = HEADER + "def f(x, axes):\n    if 1 in axes:\n        x = x * 2\n    return x\n"
    assert "jnp.any" not in convert(src).text


@pytest.mark.parametrize("test", ["3 in x", "3.0 not in x", "not (1 in x)"])
def test_in_of_a_traced_array_is_numpys_any(test):
    """`if 3 in x:` is NumPy's `(x == 3).any()`; it was left as `3 in x` inside `jnp.where`
    (bool() of a traced array, loud; probe 22)."""
    src = HEADER + (
        f"def f(x):\n    x = jnp.asarray(x, jnp.float32)\n    if {test}:\n        x = x * 2\n"
        "    return x\n"
    )
    inputs = [(np.array([3.0, 1.0], np.float32),), (np.array([-1.0, 2.0], np.float32),)]
    from tests.fuzz import oracle

    out = oracle.run(src, inputs, name="f", decorator=True)
    assert out.kind == "converted", out.report()


@pytest.mark.parametrize("fn", ["jnp.exp(x)", "jnp.cosh(x)", "jnp.expm1(x)"])
def test_a_guard_against_overflow_is_a_cond_with_a_finite_gradient(fn):
    """`if x < 80.0: y = jnp.exp(x)`: as `jnp.where` both branches are computed, exp(100) is
    inf and the gradient at 100 is NaN (the original's is 1.0); a `lax.cond` computes only the
    branch taken (probe 26)."""
    src = HEADER + f"def f(x):\n    if x < 80.0:\n        y = {fn}\n    else:\n        y = x\n    return y\n"
    c = convert(src)
    assert "lax.cond" in c.text, c.text
    original, converted = load(src)["f"], load(c.text)["f"]
    for v in (100.0, 1.0):
        expected = jax.grad(original)(jnp.float32(v))
        got = jax.jit(jax.grad(converted))(jnp.float32(v))
        np.testing.assert_allclose(got, expected, rtol=1e-5)


@pytest.mark.parametrize(
    "body",
    [
        "    if all(x > 0):\n        return x * 2\n    return x\n",
        "    if any(x > 2) and x.sum() > 0:\n        x = x - 1\n    return x\n",
        "    while any(x > 1):\n        x = x / 2\n    return x\n",
    ],
)
def test_builtin_all_and_any_of_an_array_become_jnp_all_and_any(body):
    """`if all(x > 0):` became `jnp.where(all(x > 0), ...)` (and `while any(x > 1):` a
    `cond_fun` returning `any(x > 1) != 0`): Python's `all` takes bool() of each item, which
    fails on traced items, with no refusal (probe E). Of one array they are `jnp.all` /
    `jnp.any` (Python's truth for a 1-D array); of a generator they stay Python's."""
    from tests.fuzz import oracle

    src = "import jax.numpy as jnp\n\n\ndef f(x):\n" + body
    inputs = [(np.array([1.0, 2.0, 3.0], np.float32),), (np.array([-1.0, 2.0, 3.0], np.float32),)]
    out = oracle.run(src, inputs, name="f", decorator=True)
    assert out.kind == "converted" and ("jnp.all(" in out.converted or "jnp.any(" in out.converted), (
        out.report()
    )


@pytest.mark.parametrize(
    "caller",
    [
        "    if is_big(x) is True:\n        return x / 10\n    return x\n",
        "    big = is_big(x)\n    if big is not False:\n        return x / 10\n    return x\n",
    ],
)
def test_a_constant_result_a_caller_tests_with_is_is_refused(caller):
    """`def is_big(v): if v.sum() > 10: return True; return False` and `if is_big(x) is True:`
    in a caller: converted, `is_big` returned a traced bool, never `True` itself, so the caller
    always took the other path (silent; probe E). Refused (AJ918), also for a tuple's item
    (`y, scaled = check(x)`); `==` still converts."""
    head = "import jax.numpy as jnp\n\n\ndef is_big(v):\n    if v.sum() > 10:\n        return True\n"
    head += "    return False\n\n\ndef f(x):\n"
    import autojit

    c = autojit.convert_source(head + caller, "m.py", all_functions=True)
    assert "AJ918" in {r.code for r in c.function("is_big").refusals}, c.text
    fine = caller.replace(" is True", " == True").replace(" is not False", " != False")
    c = autojit.convert_source(head + fine, "m.py", all_functions=True)
    assert "AJ918" not in {r.code for r in c.function("is_big").refusals}, c.text


def test_a_print_of_python_values_in_a_traced_branch_prints_on_its_path_only():
    """Probe K, S5: `print("positive")` stayed Python's in the branch function: both branches
    are traced, so both texts printed, whichever path ran (and only at the first call)."""
    text = HEADER + (
        "def f(x):\n    if x[0] > 0:\n        print('positive', 1)\n        y = x * 2.0\n"
        "    else:\n        print('negative')\n        y = x\n    return y\n"
    )
    c = convert(text)
    assert "jax.debug.print('positive {}', 1)" in c.text
    original, converted = load(text)["f"], jax.jit(load(c.text)["f"])
    for x in (np.float32([1.0, 2.0]), np.float32([-1.0, 2.0])):
        assert stdout_of(converted, x) == stdout_of(original, jnp.asarray(x))


def test_print_that_is_not_pythons_is_left_alone():
    """Probe K, S4: a parameter, local or module-level `print` was rewritten into
    `jax.debug.print`, so the user's function was never called."""
    for text in (
        "PRINTED = []\n\ndef print(*a):\n    PRINTED.append(a)\n\ndef f(x):\n    y = x * 2\n"
        "    print(y)\n    return y\n",
        "def f(x, print):\n    y = x * 2\n    print(y)\n    return y\n",
        "def f(x):\n    out = []\n    print = out.append\n    y = x * 2\n    print(y)\n"
        "    return y, len(out)\n",
    ):
        c = convert(HEADER + text)
        assert "debug.print" not in c.text, text


def test_a_printed_ternary_of_texts_on_a_traced_test_is_refused():
    """Probe K, N1: `print("a" if t else "b")` became a debug print of the Python ternary,
    which the next conversion rewrote into a `lax.cond` of texts (not idempotent; both fail
    under jit). Refused now: a traced value is never a text."""
    text = HEADER + "def f(x):\n    print('a' if x[0] > 0 else 'b')\n    return x\n"
    c = convert(text)
    assert c.text == text and [r.code for r in c.refusals] == ["AJ916"]


@pytest.mark.parametrize(
    "head, value",
    [("def f(x):", "(yield x)"), ("async def f(x):", "await g(x)")],
)
def test_a_ternary_holding_yield_or_await_is_refused(head, value):
    """Probe K, U1: its branches became lambdas, `lambda: yield x` (the output did not parse)
    and `lambda: await g(x)` (parsed, and the module then failed to compile)."""
    text = HEADER + f"{head}\n    y = {value} if x[0] > 0 else x\n    return y\n"
    c = convert(text)
    compile(c.text, "m.py", "exec")
    assert c.text == text and "AJ912" in [r.code for r in c.refusals]


@pytest.mark.parametrize("target", ['d["a"]', "o.a", "items[1:]"])
def test_del_of_an_item_or_attribute_under_a_traced_condition_is_refused(target):
    """Probe K, S1: `del d["a"]` in a traced branch ran while tracing, on both paths."""
    text = HEADER + (
        f"def f(x, d, o, items):\n    if x[0] > 0:\n        del {target}\n        y = x * 2\n"
        "    else:\n        y = x\n    return y\n"
    )
    c = convert(text)
    assert c.text == text and [r.code for r in c.refusals] == ["AJ912"]


@pytest.mark.parametrize(
    "definition, use",
    [("class K:\n            m = 1.0", "K.m"), ("def K(v):\n            return v + 1.0", "K(0.0)")],
)
def test_a_def_or_class_in_a_traced_branch_read_after_it_is_refused(definition, use):
    """Probe K, S2: `class K` in a traced branch bound the branch function's own `K`: the
    module's `K` was read after the `if`, silently."""
    text = HEADER + (
        "class K:\n    m = 0.0\n\n\ndef f(x):\n    if x[0] > 0:\n        " + definition + "\n"
        "        y = x * 2\n    else:\n        y = x\n    return y + " + use + "\n"
    ).replace("\n        ", "\n        ").replace("\n            ", "\n            ")
    c = convert(text)
    assert c.text == text and "AJ916" in [r.code for r in c.refusals]


@pytest.mark.parametrize("caught", ["TypeError", "Exception", "(ValueError, TypeError)", ""])
def test_a_traced_if_inside_a_try_that_catches_trace_errors_is_refused(caught):
    """Probe K, S6: converted, both branches are traced, and a shape error of the branch
    Python would not run was caught by the user's `except`, whose fallback replaced the right
    result ([2, 4, 6] came back [0, 0, 0], silently)."""
    text = HEADER + (
        "def f(x):\n    try:\n        if x[0] > 0:\n            y = x * 2\n        else:\n"
        "            y = x @ jnp.ones((2, 2))\n    except " + caught + ":\n"
        "        y = jnp.zeros_like(x)\n    return y\n"
    ).replace("except :", "except:")
    c = convert(text)
    assert c.text == text and "AJ912" in [r.code for r in c.refusals]


def test_a_method_that_changes_its_object_under_a_traced_condition_is_refused():
    """Probe K, S7: `y = c.step(x)` in a traced branch, `step` counting its calls: both
    branches are traced once, so the count changed whichever path ran."""
    text = HEADER + (
        "class Counter:\n    def __init__(self):\n        self.n = 0\n\n"
        "    def step(self, v):\n        self.n += 1\n        return v * 2\n\n\n"
        "def f(x):\n    c = Counter()\n    if x[0] > 0:\n        y = c.step(x)\n    else:\n"
        "        y = x\n    return y, c.n\n"
    )
    c = convert(text)
    assert c.text == text and "AJ912" in [r.code for r in c.refusals]


@pytest.mark.parametrize("call", ["locals().get('scale', 1.0)", "eval('scale')"])
def test_locals_or_eval_under_a_traced_condition_is_refused(call):
    """Probe K, S10: in a branch function `locals()` and `eval` read its own names: the local
    `scale` was missed (the default, or the module's `scale`, read instead), silently."""
    text = HEADER + (
        "scale = 100.0\n\n\ndef f(x):\n    scale = 5.0\n    if x[0] > 0:\n"
        f"        y = x * {call}\n    else:\n        y = x\n    return y\n"
    )
    c = convert(text)
    assert c.text == text and "AJ912" in [r.code for r in c.refusals]


GRADIENT_GUARDS = {
    "clip_by_norm": (
        "def f(v):\n    n = jnp.linalg.norm(v)\n    if n > 1.0:\n        v = v / n\n    return v\n",
        [np.zeros(3, np.float32), np.full(3, 2.0, np.float32)],
        "sum",
    ),
    "safe_normalize": (
        "def f(x):\n    n = jnp.sqrt(jnp.sum(x * x))\n    if n == 0:\n        return x\n"
        "    return x / n\n",
        [np.zeros(3, np.float32), np.float32([1.0, 2.0, 2.0])],
        "first",
    ),
    "entropy_term": (
        "def f(p):\n    l = jnp.log(p)\n    if p > 0:\n        return -p * l\n    return 0.0 * p\n",
        [np.float32(0.0), np.float32(0.5)],
        "scalar",
    ),
}


@pytest.mark.parametrize("name", sorted(GRADIENT_GUARDS))
def test_a_singular_value_read_by_one_branch_keeps_the_originals_gradient(name):
    """Probe J, S1: a value computed before a traced `if` and read by one branch only (`n =
    jnp.linalg.norm(v); if n > 1: v = v / n`) was a `lax.cond` operand: the branch not taken
    gave it a zero cotangent, and the norm's derivative at 0 made that NaN (`grad` at v = 0:
    [nan, nan, nan] where the original gives [1, 1, 1]). It is computed again in the branch
    that reads it; values, `grad` and `jacrev` match the original's."""
    body, inputs, reduce = GRADIENT_GUARDS[name]
    text = HEADER + body
    c = convert(text)
    assert "lax.cond" in c.text
    assert convert(c.text).text == c.text  # (converting again changes nothing)
    original, converted = load(text)["f"], load(c.text)["f"]

    def loss(fn):
        if reduce == "sum":
            return lambda v: fn(v).sum()
        if reduce == "first":
            return lambda v: fn(v)[0]
        return fn

    for x in inputs:
        x = jnp.asarray(x)
        want = jax.grad(loss(original))(x)
        got = jax.jit(jax.grad(loss(converted)))(x)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
        assert not np.isnan(np.asarray(got)).any()
        np.testing.assert_allclose(
            np.asarray(jax.jit(converted)(x)), np.asarray(original(x)), rtol=1e-6
        )


def test_the_truth_of_an_objects_field_is_kept_as_a_python_if():
    """Probe J, L4: `if p.use_bias:` on a static (meta) field of a registered pytree, `b =
    None` when unused (the Flax / Equinox idiom), ran under plain jax.jit; converted to a
    `lax.cond`, the branch Python skips was traced (`h + None` raised). A field that is no
    array's attribute, tested for its truth, is kept as a Python `if` (AJ913)."""
    import dataclasses
    import functools

    @functools.partial(
        jax.tree_util.register_dataclass, data_fields=["w", "b"], meta_fields=["use_bias"]
    )
    @dataclasses.dataclass
    class Lin:
        w: jax.Array
        b: jax.Array | None
        use_bias: bool

    text = HEADER + (
        "def apply(p, x):\n    h = p.w * x\n    if p.use_bias:\n        h = h + p.b\n"
        "    return h\n"
    )
    c = convert(text)
    assert c.text == text and [r.code for r in c.refusals] == ["AJ913"]
    apply = jax.jit(load(c.text)["apply"])
    for p in (Lin(jnp.float32(2.0), None, False), Lin(jnp.float32(2.0), jnp.float32(1.0), True)):
        np.testing.assert_allclose(apply(p, jnp.float32(0.5)), load(text)["apply"](p, 0.5))
    # (a field compared to a traced value is still converted)
    compared = HEADER + "def g(p, x):\n    if p.w > 0:\n        x = x * 2\n    return x\n"
    assert "lax.cond" in convert(compared).text or "where" in convert(compared).text


@pytest.mark.parametrize(
    "effect",
    ["[log.append(1) for _ in range(1)]", "_ = (log.append(1), 0)", "seen = {log.extend([1])}"],
)
def test_a_change_of_a_list_inside_an_expression_under_a_traced_condition_is_refused(effect):
    """Seventeenth round, open gap (silent): `log.append(v)` inside a comprehension or a tuple
    display in a traced branch ran while tracing, on both paths (`len(log)` was 1 where the
    condition is false). Only a statement `log.append(v)` of its own was looked at."""
    text = HEADER + (
        "def f(x):\n    log = []\n    s = x[0]\n    if s > 0:\n        s = s * 2\n"
        f"        {effect}\n    return s, len(log)\n"
    )
    c = convert(text)
    assert c.text == text and "AJ912" in [r.code for r in c.refusals]


def test_a_pure_method_named_like_a_container_change_still_converts():
    """`opt.update(g, state)` of an object the analysis cannot tell from a dict gives a value
    and changes nothing: not taken for `dict.update` (only a list's own methods are, on such
    an object)."""
    text = HEADER + (
        "def f(x, opt, state):\n    if x[0] > 0:\n        u, state = opt.update(x, state)\n"
        "        y = x + u\n    else:\n        y = x\n    return y, state\n"
    )
    c = convert(text)
    assert "lax.cond" in c.text or "jnp.where" in c.text


def test_a_changing_method_of_an_object_made_elsewhere_under_a_traced_condition_is_refused():
    """Seventeenth round, open gap (silent): `s = c.step(s)` under a traced `if`, `c` a
    parameter and the module's `Counter.step` changing its object: both branches were traced,
    so `c.n` grew on both paths. Refused now (AJ912)."""
    text = HEADER + (
        "class Counter:\n    def __init__(self):\n        self.n = 0\n\n"
        "    def step(self, v):\n        self.n += 1\n        return v * 1.5\n\n\n"
        "def f(x, c):\n    s = x[0]\n    if s > 0:\n        s = c.step(s)\n    return s\n"
    )
    c = convert(text)
    assert "lax.cond" not in c.text and "AJ912" in [r.code for r in c.refusals]


def test_a_singular_value_read_by_one_arm_of_a_ternary_is_computed_again_there():
    """Probe J, open gap (silent, wrong gradients): `n = jnp.linalg.norm(v); w = v / n if n >
    1 else v` made `n` an operand of the ternary's `lax.cond`, whose arm not taken gave it a
    zero cotangent that the norm's derivative at 0 made NaN (`grad` at v = 0 gave [nan, nan,
    nan] where the original's is [1, 1, 1]); likewise `l = jnp.log(p); -p * l if p > 0 else
    ...` as a `jnp.where`. The value is computed again in the arm that reads it now."""
    text = HEADER + (
        "def a(v):\n    n = jnp.linalg.norm(v)\n    w = v / n if n > 1 else v\n    return w.sum()\n"
        "\n\ndef b(p):\n    l = jnp.log(p)\n    return -p * l if p > 0 else p * 0.0\n"
        "\n\ndef c(p):\n    l = jnp.log(p)\n    return (-p * l if p > 0 else p * 0.0) + l\n"
    )
    conv = convert(text)
    orig_ns: dict = {}
    conv_ns: dict = {}
    exec(compile(text, "orig.py", "exec"), orig_ns)
    exec(compile(conv.text, "conv.py", "exec"), conv_ns)
    cases = {
        "a": [jnp.zeros(3), jnp.ones(3), jnp.full(3, 0.1)],
        "b": [jnp.float32(0.0), jnp.float32(0.5)],
    }
    for name, inputs in cases.items():
        for x in inputs:
            np.testing.assert_allclose(conv_ns[name](x), orig_ns[name](x), rtol=1e-6)
            want = jax.grad(orig_ns[name])(x)
            got = jax.jit(jax.grad(conv_ns[name]))(x)
            assert np.asarray(got).dtype == np.asarray(want).dtype
            np.testing.assert_allclose(got, want, rtol=1e-6)
    # (read outside the ternary too, `l`'s gradient flows there as Python's does: not moved)
    assert conv.function("c").new_text.count("jnp.log(p)") == 1
    # converting the output again changes nothing
    assert convert(conv.text).text == conv.text


@pytest.mark.parametrize(
    "body",
    [
        "    if t > 0:\n        k = x\n    else:\n        k = x / 2\n    return k",
        "    return x if t > 0 else x / 2",
        "    if t > 0:\n        return x * 2\n    return x * 0.5",
        "    if t > 0:\n        return x.sum() * 2\n    return jnp.sin(x).sum()",
        "    k = x\n    if t > 0:\n        k = x * 0.5\n    return k + 1",
        "    if t > 0:\n        k = x[0]\n    else:\n        k = 0.5\n    return k",
        "    return x[0] if t > 0 else 0.5",
    ],
)
def test_an_array_of_unknown_dtype_against_floats_is_never_cast_to_floats(body):
    """`k = x` on one path and `k = x / 2` (or a Python float) on the other, `x` a parameter:
    of an int `x`, Python gives int32 on one path and floats on the other; the conversion cast
    the `x` side to floats (`jnp.asarray(k, jnp.result_type(k, 0.0))`, or `jnp.where`'s promotion), so the
    int path came back float32 (silent). Now the two are a `lax.cond` of each path's own
    dtype: equal for a float `x`, rejected loudly by jax for an int `x` (never wrong)."""
    from tests.fuzz import oracle

    src = "import jax.numpy as jnp\n\n\ndef f(x, t):\n" + body + "\n"
    paths = [F32(1.0), F32(-1.0)]
    x = np.array([1.0, 3.0, 5.0], F32)
    out = oracle.run(src, [(x, t) for t in paths], name="f")
    assert out.kind == "converted", out.report()
    x = np.array([1, 3, 5], I32)
    out = oracle.run(src, [(x, t) for t in paths], name="f")
    assert out.kind == "jit-error" and "equal output types" in out.detail, out.report()


@pytest.mark.parametrize(
    "body, dtypes",
    [
        ("    if t > 0:\n        k = x\n    else:\n        k = 2 * x + 1\n    return k", (F32, I32)),
        ("    return -x if t > 0 else x * 3", (F32, I32)),
        # (NumPy, the oracle's eager original, makes an int array times 0.5 float64; jax float32)
        ("    if t > 0:\n        k = x * 0.5\n    else:\n        k = x / 4\n    return k", (F32,)),
    ],
)
def test_results_made_of_one_array_stay_a_jnp_where(body, dtypes):
    """Results made of the same array with number literals have one dtype whatever the
    array's (`x` / `2 * x + 1`; `x * 0.5` / `x / 4`): still the cheap `jnp.where`, equal for
    int and float arrays."""
    from tests.fuzz import oracle

    src = "import jax.numpy as jnp\n\n\ndef f(x, t):\n" + body + "\n"
    for dtype in dtypes:
        x = np.array([1, 3, 5], dtype)
        out = oracle.run(src, [(x, F32(1.0)), (x, F32(-1.0))], name="f")
        assert out.kind == "converted", out.report()
        assert "jnp.where" in out.converted and "lax.cond" not in out.converted, out.converted


_WEAK_ARRAYS = ["x[1]", "x[0] * 2.0", "jnp.max(x)", "x[2] - x[0]"]
# (Python floats: a Python int against a float array is given the float type, as arithmetic
# would give it, AJ101, where Python returns the int on its path)
_WEAK_NUMBERS = ["2.0", "0.5", "-1.0", "3.0"]
_WEAK_READS = [
    "return y * k",
    "return k",
    "return y + k * 0.5",
    "return k > 1.0",
    "z = k * 2.0\n    return z",
    "return x * k",
    "y += k\n    return y",
    "return y, k",
    "return jnp.abs(k) * y",
    "y[0] = k\n    return y",
]


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    form=st.sampled_from(["if", "else", "ternary", "ternary-else"]),
    array=st.sampled_from(_WEAK_ARRAYS),
    number=st.sampled_from(_WEAK_NUMBERS),
    read=st.sampled_from(_WEAK_READS),
)
def test_a_python_number_against_an_array_on_float16_data_is_never_wrong(
    form, array, number, read
):
    """Property: a name that one path of a traced condition makes a Python number and the
    other a float32 array, read by each of a set of uses next to float16 data `y`: converted
    and equal to the eager original (dtypes too), or refused; never a silently other dtype."""
    from tests.fuzz import oracle

    a, b = (array, number) if form in ("if", "ternary") else (number, array)
    if form.startswith("ternary"):
        choose = f"    k = {a} if t > 0 else {b}\n"
    else:
        choose = f"    if t > 0:\n        k = {a}\n    else:\n        k = {b}\n"
    src = f"import jax.numpy as jnp\n\n\ndef f(x, y, t):\n{choose}    {read}\n"
    x = np.array([1.0, 3.0, 5.0], F32)
    y = np.array([1.0, 2.0, 3.0], np.float16)
    out = oracle.run(src, [(x, y, F32(1.0)), (x, y, F32(-1.0))], name="f")
    assert out.kind in oracle.OK, out.report()
