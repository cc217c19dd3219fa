"""AJ2xx loops: differential tests (eager original vs the converted function under jax.jit)."""

from __future__ import annotations

import contextlib
import copy
import io
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from differential import stdout_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autojit

HEADER = "import jax\nimport jax.numpy as jnp\nfrom jax import lax\n\n"


def _convert(src: str):
    src = HEADER + textwrap.dedent(src)
    conv = autojit.convert_source(src, "m.py", all_functions=True)
    orig_ns: dict = {}
    conv_ns: dict = {}
    exec(compile(src, "orig.py", "exec"), orig_ns)
    exec(compile(conv.text, "conv.py", "exec"), conv_ns)
    return conv, orig_ns, conv_ns


def _leaves(x):
    return jax.tree_util.tree_leaves(x)


def _same(expected, got, *, exact_dtype: bool = True, rtol: float = 1e-5) -> None:
    e_leaves, g_leaves = _leaves(expected), _leaves(got)
    assert len(e_leaves) == len(g_leaves)
    for e, g in zip(e_leaves, g_leaves, strict=True):
        e_arr, g_arr = jnp.asarray(e), jnp.asarray(g)
        assert e_arr.shape == g_arr.shape, (e_arr.shape, g_arr.shape)
        if exact_dtype:
            assert e_arr.dtype == g_arr.dtype, (e_arr.dtype, g_arr.dtype)
        np.testing.assert_allclose(np.asarray(e_arr), np.asarray(g_arr), rtol=rtol, atol=1e-6)


def check(src: str, name: str, calls, *, codes=(), exact_dtype=True, rtol=1e-5):
    """Convert ``src``; for each argument tuple compare eager original and jitted converted."""
    conv, orig_ns, conv_ns = _convert(src)
    got_codes = {c.code for c in conv.changes}
    for code in codes:
        assert code in got_codes, (code, conv.text, conv.refusals)
    fn = jax.jit(conv_ns[name])
    for args in calls:
        expected = orig_ns[name](*copy.deepcopy(args))
        got = fn(*args)
        _same(expected, got, exact_dtype=exact_dtype, rtol=rtol)
    # converting the output again changes nothing
    again = autojit.convert_source(conv.text, "m.py", all_functions=True)
    assert again.text == conv.text
    return conv


def f32(*xs):
    return np.asarray(xs, dtype=np.float32)


def i32(v):
    return np.int32(v)


# -- while ---------------------------------------------------------------------------------


SEED_WHILE = """
def g(x, n):
    i = 0
    while i < n:
        i += 1
    return x + i
"""


def test_seed_while_loop():
    conv = check(
        SEED_WHILE,
        "g",
        [(i32(10), i32(20)), (i32(10), i32(0)), (i32(3), i32(1)), (f32(1, 2), i32(5))],
        codes=["AJ201"],
    )
    assert "lax.while_loop(_cond, _body, i)" in conv.text
    assert "def _cond(i):" in conv.text


def test_while_two_variables_carry_tuple():
    conv = check(
        """
        def f(x, n):
            i = 0
            acc = x
            while i < n:
                acc = acc * 2.0 + i
                i = i + 1
            return acc
        """,
        "f",
        [(f32(1, 2, 3), i32(0)), (f32(1, 2, 3), i32(1)), (f32(1, 2, 3), i32(6))],
        codes=["AJ201"],
    )
    assert "acc, i = carry" in conv.text or "i, acc = carry" in conv.text


def test_while_condition_on_array_value():
    check(
        """
        def f(x):
            while x.sum() < 100.0:
                x = x * 2.0
            return x
        """,
        "f",
        [(f32(1, 2),), (f32(200, 1),), (f32(0.5, 0.25),)],
        codes=["AJ201"],
    )


def test_static_while_stays_python():
    conv, _, _ = _convert(
        """
        def f(x):
            i = 0
            while i < 3:
                x = x + i
                i += 1
            return x
        """
    )
    assert "while_loop" not in conv.text
    assert any(r.code == "AJ930" for r in conv.refusals)


def test_pure_python_loop_not_reported():
    conv, _, _ = _convert(
        """
        def f(x):
            names = []
            for k in range(3):
                names.append(k)
            return x + len(names)
        """
    )
    assert not conv.changes
    assert not conv.refusals


# -- for over range ------------------------------------------------------------------------


def test_fori_traced_bound_accumulator_promoted():
    # `s` starts as Python 0 and becomes a float32 vector: the carry is given that type
    conv = check(
        """
        def f(x, n):
            s = 0
            for i in range(n):
                s = s + x * i
            return s
        """,
        "f",
        [(f32(1, 2, 3), i32(1)), (f32(1, 2, 3), i32(7))],
        codes=["AJ202"],
    )
    assert "jax.eval_shape" in conv.text
    # zero iterations: the value of the promoted carry (documented in AJ202.md)
    _, _, ns = _convert(
        """
        def f(x, n):
            s = 0
            for i in range(n):
                s = s + x * i
            return s
        """
    )
    out = jax.jit(ns["f"])(f32(1, 2, 3), i32(0))
    assert out.dtype == jnp.float32 and out.shape == (3,)
    np.testing.assert_array_equal(out, 0)


TUPLE_STATE = """
def fib_like(x, n):
    st = (0.0, 1.0)
    for i in range(n):
        a, b = st
        st = (b, a + b * x[i])
    return st

def counted(x, n):
    st = (0, 1.0)
    acc = 0.0
    i = 0
    while i < n:
        a, b = st
        st = (a + 1, b * x[i])
        acc = acc + b
        i = i + 1
    return st, acc
"""


@pytest.mark.parametrize("name,code", [("fib_like", "AJ202"), ("counted", "AJ201")])
def test_tuple_state_of_python_numbers_promoted_element_by_element(name, code):
    # `st = (0.0, 1.0)` carried through a traced loop: each element gets the type the loop
    # gives it (a tree map), alone or beside other carries
    x = f32(1, 2, 3, 4)
    conv = check(TUPLE_STATE, name, [(x, i32(3)), (x, i32(0))], codes=[code])
    assert "jax.tree.map(lambda t, v: jnp.full(t.shape, v, jnp.result_type(v, t.dtype))" in conv.text


def test_fori_start_stop():
    check(
        """
        def f(x, a, b):
            for i in range(a, b):
                x = x + i
            return x
        """,
        "f",
        [(f32(0, 1), i32(2), i32(5)), (f32(0, 1), i32(5), i32(2)), (f32(0, 1), i32(3), i32(4))],
        codes=["AJ202"],
    )


@pytest.mark.parametrize("step", [2, 3, -1, -2])
def test_fori_with_step(step):
    check(
        f"""
        def f(x, a, b):
            for i in range(a, b, {step}):
                x = x * 0.5 + i
            return x
        """,
        "f",
        [(f32(1), i32(0), i32(9)), (f32(1), i32(9), i32(0)), (f32(1), i32(4), i32(4))],
        codes=["AJ202"],
    )


def test_reversed_range():
    check(
        """
        def f(x, n):
            out = x
            for i in reversed(range(n)):
                out = out * 2.0 + i
            return out
        """,
        "f",
        [(f32(1, 2), i32(0)), (f32(1, 2), i32(1)), (f32(1, 2), i32(5))],
        codes=["AJ202"],
    )


def test_loop_index_live_after_loop():
    check(
        """
        def f(x, n):
            i = -1
            for i in range(n):
                x = x + i
            return x, i
        """,
        "f",
        [(f32(1), i32(0)), (f32(1), i32(1)), (f32(1), i32(4))],
        codes=["AJ202"],
        exact_dtype=False,
    )


def test_variable_first_assigned_in_loop():
    check(
        """
        def f(x, n):
            for i in range(n):
                last = x * i
            return last
        """,
        "f",
        [(f32(1, 2), i32(1)), (f32(1, 2), i32(4))],
        codes=["AJ202"],
    )


def test_zero_iterations_keep_previous_value():
    check(
        """
        def f(x, n):
            y = x + 1.0
            for i in range(n):
                y = y * 2.0
            return y
        """,
        "f",
        [(f32(1, 2), i32(0)), (f32(1, 2), i32(3))],
        codes=["AJ202"],
    )


def test_int32_state_and_float32_state():
    check(
        """
        def f(x, n):
            count = jnp.int32(0)
            total = jnp.float32(0)
            for i in range(n):
                count = count + 1
                total = total + x[i]
            return count, total
        """,
        "f",
        [(f32(1, 2, 3), i32(0)), (f32(1, 2, 3), i32(3))],
        codes=["AJ202"],
    )


def test_stupid_fn_static_long_loop():
    conv = check(
        """
        def stupid_fn(x):
            y = jnp.copy(x)
            for _ in range(1000):
                x = x * x
            return y
        """,
        "stupid_fn",
        [(f32(1, 2, 0.5, 3),)],
        codes=["AJ203"],
    )
    assert "fori_loop(0, 1000, _body, x)" in conv.text


def test_recurrence_static_long():
    conv = check(
        """
        def rec(x, a, b):
            for i in range(1, 200):
                x[i] = a * x[i - 1] + b
            return x
        """,
        "rec",
        [(np.zeros(200, np.float32), np.float32(0.5), np.float32(1.0))],
        codes=["AJ203", "AJ301"],
    )
    assert "x = x.at[i].set(a * x[i - 1] + b)" in conv.text


def test_recurrence_shape_bound():
    check(
        """
        def rec(x, a, b):
            for i in range(1, x.shape[0]):
                x[i] = a * x[i - 1] + b
            return x
        """,
        "rec",
        [
            (np.ones(1, np.float32), np.float32(0.5), np.float32(1.0)),
            (np.ones(50, np.float32), np.float32(0.5), np.float32(1.0)),
        ],
        codes=["AJ203"],
    )


def test_short_static_loop_stays_python():
    conv, _, _ = _convert(
        """
        def f(x):
            for i in range(3):
                x = x * 2.0
            return x
        """
    )
    assert "fori_loop" not in conv.text
    assert any(r.code == "AJ930" for r in conv.refusals)


def test_static_loop_index_used_as_shape_stays_python():
    conv, _, _ = _convert(
        """
        def f(x):
            for i in range(100):
                x = x + jnp.zeros(3).sum() * i
                x = x + jnp.ones(i).sum()
            return x
        """
    )
    assert "fori_loop" not in conv.text
    assert any(r.code == "AJ934" for r in conv.refusals)


def test_static_loop_slice_from_index_stays_python():
    conv, _, _ = _convert(
        """
        def f(x):
            s = 0.0
            for i in range(20):
                s = s + x[i:i + 2].sum()
            return s
        """
    )
    assert "fori_loop" not in conv.text


def test_nested_loops():
    conv = check(
        """
        def f(x, n, m):
            total = 0.0
            for i in range(n):
                j = 0
                while j < m:
                    total = total + x[i] * j
                    j = j + 1
            return total
        """,
        "f",
        [
            (f32(1, 2, 3), i32(0), i32(2)),
            (f32(1, 2, 3), i32(3), i32(0)),
            (f32(1, 2, 3), i32(3), i32(4)),
        ],
        codes=["AJ201", "AJ202"],
    )
    assert conv.text.count("def _body") == 2


def test_nested_static_range_inside_traced():
    check(
        """
        def f(x, n):
            for i in range(n):
                for j in range(20):
                    x = x * 0.9 + j
            return x
        """,
        "f",
        [(f32(1, 2), i32(0)), (f32(1, 2), i32(2))],
        codes=["AJ202", "AJ203"],
        rtol=1e-4,
    )


def test_for_else_without_break():
    check(
        """
        def f(x, n):
            for i in range(n):
                x = x + 1.0
            else:
                x = x * 2.0
            return x
        """,
        "f",
        [(f32(1), i32(0)), (f32(1), i32(3))],
        codes=["AJ202"],
    )


# -- for over arrays -----------------------------------------------------------------------


def test_for_over_array_rows():
    check(
        """
        def f(x):
            total = jnp.zeros(x.shape[1:])
            for row in x:
                total = total + row * 2.0
            return total
        """,
        "f",
        [(np.arange(12, dtype=np.float32).reshape(4, 3),), (np.zeros((0, 3), np.float32),)],
        codes=["AJ204"],
    )


def test_for_over_array_python_scalar_start():
    check(
        """
        def f(x: jax.Array):
            total = 0.0
            for v in x:
                total = total + v * v
            return total
        """,
        "f",
        [(f32(1, 2, 3),), (f32(5),)],
        codes=["AJ204"],
    )


def test_enumerate_and_zip():
    check(
        """
        def f(x: jax.Array, y: jax.Array):
            s = jnp.zeros(())
            for i, (a, b) in enumerate(zip(x, y)):
                s = s + a * b * i
            return s
        """,
        "f",
        [(f32(1, 2, 3), f32(4, 5, 6)), (f32(1), f32(2))],
        codes=["AJ204"],
    )


def test_zip_of_arrays():
    check(
        """
        def f(x, y):
            s = jnp.zeros((), x.dtype)
            for a, b in zip(x, y.T):
                s = s + a * b
            return s
        """,
        "f",
        [(f32(1, 2, 3), f32(4, 5, 6))],
        codes=["AJ204"],
    )


def test_loop_var_of_array_live_after():
    check(
        """
        def f(x: jnp.ndarray):
            s = jnp.float32(0)
            for v in x:
                s = s + v.sum()
            return s, v
        """,
        "f",
        [(f32(1, 2, 3),)],
        codes=["AJ204"],
    )


# -- break / continue / return ---------------------------------------------------------------


def test_break_in_for_range():
    conv = check(
        """
        def first_above(x, t):
            idx = -1
            for i in range(x.shape[0]):
                if x[i] > t:
                    idx = i
                    break
            return idx
        """,
        "first_above",
        [
            (f32(1, 5, 2, 7), np.float32(4)),  # break taken
            (f32(1, 5, 2, 7), np.float32(9)),  # not taken
            (f32(9, 1), np.float32(4)),  # taken at once
            # (a zero-length x cannot be traced: the body indexes it; see rules/AJ203.md)
        ],
        codes=["AJ205"],
        exact_dtype=False,
    )
    assert "while_loop" in conv.text


def test_break_in_while():
    check(
        """
        def f(x, n):
            i = 0
            while i < n:
                if x[i] < 0:
                    break
                x[i] = x[i] * 2
                i += 1
            return x, i
        """,
        "f",
        [
            (f32(1, 2, -1, 4), i32(4)),
            (f32(1, 2, 3, 4), i32(4)),
            (f32(1, 2, 3, 4), i32(0)),
            (f32(-1, 2, 3, 4), i32(3)),
        ],
        codes=["AJ201", "AJ205"],
        exact_dtype=False,
    )


def test_continue_in_fori():
    check(
        """
        def f(x, n):
            s = jnp.float32(0)
            for i in range(n):
                if x[i] < 0:
                    continue
                s = s + x[i]
            return s
        """,
        "f",
        [(f32(1, -2, 3, -4), i32(4)), (f32(1, -2, 3, -4), i32(0)), (f32(-1, -2), i32(2))],
        codes=["AJ202", "AJ205"],
    )


def test_trailing_continue_needs_no_flag():
    """A `continue` at the end of the body ends the iteration as the body's end does: no flag,
    and the dead code after it is left out; an earlier `continue` still gets its flag."""
    conv = check(
        """
        def f(x, n):
            s = jnp.float32(0)
            for i in range(n):
                if x[i] < 0:
                    continue
                s = s + x[i]
                continue
                s = s * 100
            return s
        """,
        "f",
        [(f32(1, -2, 3, -4), i32(4)), (f32(1, -2, 3, -4), i32(0)), (f32(-1, -2), i32(2))],
        codes=["AJ202", "AJ205"],
    )
    assert "s * 100" not in conv.text and conv.text.count("continue_ = ") == 1
    conv = check(
        """
        def g(x, n):
            s = jnp.float32(0)
            for i in range(n):
                s = s + x[i]
                continue
            return s
        """,
        "g",
        [(f32(1, -2, 3, -4), i32(4)), (f32(1, -2, 3, -4), i32(0))],
        codes=["AJ202"],
    )
    assert "continue_" not in conv.text
    assert "AJ205" not in {c.code for c in conv.changes}


def test_continue_and_break_nested_ifs():
    check(
        """
        def f(x, n):
            s = jnp.float32(0)
            count = 0
            i = 0
            while i < n:
                i += 1
                if x[i - 1] > 0:
                    if x[i - 1] > 10:
                        break
                    s = s + x[i - 1]
                else:
                    continue
                count = count + 1
            return s, count
        """,
        "f",
        [
            (f32(1, -2, 3, 20, 5), i32(5)),
            (f32(1, -2, 3, 4, 5), i32(5)),
            (f32(1, -2, 3, 4, 5), i32(0)),
        ],
        codes=["AJ201", "AJ205"],
        exact_dtype=False,
    )


def test_return_inside_loop():
    check(
        """
        def find(x, n):
            for i in range(n):
                if x[i] > 3:
                    return x[i] * 2
            return x[0]
        """,
        "find",
        [(f32(1, 5, 2, 7), i32(4)), (f32(1, 2, 2, 1), i32(4)), (f32(1, 5), i32(0))],
        codes=["AJ205"],
    )


def test_break_in_array_loop_with_else():
    check(
        """
        def f(x: jnp.ndarray):
            s = jnp.zeros(())
            for r in x:
                if r.sum() > 10:
                    break
                s = s + r.sum()
            else:
                s = s - 1
            return s
        """,
        "f",
        [
            (np.arange(12, dtype=np.float32).reshape(4, 3),),
            (np.ones((4, 3), np.float32),),
            (np.zeros((0, 3), np.float32),),
        ],
        codes=["AJ204", "AJ205"],
    )


def test_while_else_without_break_and_bool_test():
    check(
        """
        def f(x, n, m):
            i = 0
            while i < n and x.sum() < m:
                x = x + 1.0
                i += 1
            else:
                x = x * 2.0
            return x
        """,
        "f",
        [(f32(1, 2), i32(0), np.float32(100)), (f32(1, 2), i32(5), np.float32(10))],
        codes=["AJ201"],
    )


# -- lists appended in a loop with a static count -----------------------------------------


def test_list_append_static_range_stacked_by_scan():
    conv = check(
        """
        def f(x):
            out = []
            for i in range(40):
                out.append(x * i)
            return jnp.stack(out)
        """,
        "f",
        [(f32(1, 2, 3),)],
        codes=["AJ203"],
    )
    assert "scan" in conv.text and "append" not in conv.text


def test_list_append_over_array_rows_with_state():
    check(
        """
        def g(x: jnp.ndarray):
            norms = []
            total = 0.0
            for row in x:
                total = total + row.sum()
                norms.append(row * total)
            return total, jnp.array(norms)
        """,
        "g",
        [(np.arange(6, dtype=np.float32).reshape(3, 2),)],
        codes=["AJ204"],
    )


def test_rows_used_as_arrays_do_not_make_the_sequence_an_array():
    """`for w in layers: x = x @ w` over a list of matrices (a pytree: jit passes it as a list)
    stays a Python loop: its elements are arrays too, so using them as arrays says nothing
    about the sequence, and `lax.scan` over a list would iterate the rows of its leaves."""
    src = """
        def layers(ws, x):
            for w in ws:
                x = x @ w
            return x

        def firsts(xs):
            total = 0.0
            for v in xs:
                total = total + v.sum() * v[0]
            return total
        """
    eye = np.eye(3, dtype=np.float32)
    check(
        src, "layers", [([eye * 2, eye * 3], f32(1, 2, 3)), ((eye, eye, eye * 0.5), f32(1, 2, 3))]
    )
    conv = check(
        src, "firsts", [([f32(1, 2), f32(3, 4), f32(5, 6)],), (np.ones((3, 2), np.float32),)]
    )
    assert not [c for c in conv.changes if c.code == "AJ204"]


def test_list_append_underscore_target():
    check(
        """
        def f(x):
            out = []
            for _ in range(20):
                x = x * 0.5
                out.append(x)
            return jnp.stack(out)
        """,
        "f",
        [(f32(1, 2),)],
        codes=["AJ203"],
    )


def test_list_used_as_list_after_loop_stays_python():
    conv, _, _ = _convert(
        """
        def f(x):
            out = []
            for i in range(40):
                out.append(x * i)
            return out[::2]
        """
    )
    assert "scan" not in conv.text
    assert any(r.code == "AJ935" for r in conv.refusals)


# -- refusals ------------------------------------------------------------------------------


def test_list_append_in_traced_loop_refused():
    """A count computed from traced values (a parameter as the count is inferred static now:
    tests/test_statics.py)."""
    conv, _, _ = _convert(
        """
        def f(x):
            out = []
            n = jnp.sum(x > 0)
            for i in range(n):
                out.append(x * i)
            return jnp.stack(out)
        """
    )
    assert "fori_loop" not in conv.text
    assert any(r.code == "AJ935" for r in conv.refusals)


def test_attribute_store_refused():
    conv, _, _ = _convert(
        """
        def f(obj, x, n):
            for i in range(n):
                obj.value = x * i
            return x
        """
    )
    assert "fori_loop" not in conv.text
    assert any(r.code == "AJ932" for r in conv.refusals)


def test_unchanged_output_is_idempotent():
    conv, _, _ = _convert(SEED_WHILE)
    again = autojit.convert_source(conv.text, "m.py", all_functions=True)
    assert again.text == conv.text
    assert not again.changes


# -- examples/loops.py ---------------------------------------------------------------------

EXAMPLE = Path(autojit.__file__).resolve().parent.parent / "examples" / "loops.py"
EXAMPLE_INPUTS = {
    "g": [(i32(10), i32(20)), (f32(1, 2), i32(0))],
    "stupid_fn": [(f32(1, 0.5, 2, 0),)],
    "recurrence": [
        (np.r_[np.float32(1), np.zeros(999, np.float32)], np.float32(0.5), np.float32(1)),
        (np.ones(1, np.float32), np.float32(0.5), np.float32(1)),
    ],
    "first_above": [(f32(0.5, 3, 1, 7), np.float32(2)), (f32(0.5, 1), np.float32(2))],
    "running_max": [(np.array([[1, 5], [3, 2], [0, 9]], np.float32),)],
}


def test_example_file_converts_without_refusals():
    text = EXAMPLE.read_text(encoding="utf-8")
    conv = autojit.convert_source(text, str(EXAMPLE))
    assert not conv.refusals, conv.refusals
    assert {f.name for f in conv.functions if f.changed} == set(EXAMPLE_INPUTS)
    assert autojit.convert_source(conv.text, "loops.py").text == conv.text


@pytest.mark.parametrize("func", sorted(EXAMPLE_INPUTS))
def test_example_functions_eager_vs_jitted(func):
    text = EXAMPLE.read_text(encoding="utf-8")
    conv = autojit.convert_source(text, "loops.py")
    orig_ns: dict = {}
    conv_ns: dict = {}
    exec(compile(text, "orig.py", "exec"), orig_ns)
    exec(compile(conv.text, "conv.py", "exec"), conv_ns)
    for args in EXAMPLE_INPUTS[func]:
        expected = orig_ns[func](*copy.deepcopy(args))
        got = jax.jit(conv_ns[func])(*args)
        _same(expected, got, exact_dtype=func not in ("g", "first_above"))


def test_example_main_block_fails_before_and_runs_after():
    text = EXAMPLE.read_text(encoding="utf-8")
    with contextlib.redirect_stdout(io.StringIO()), pytest.raises(Exception) as err:
        exec(compile(text, "loops.py", "exec"), {"__name__": "__main__"})
    assert "TracerBoolConversionError" in type(err.value).__name__
    conv = autojit.convert_source(text, "loops.py")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(conv.text, "loops.py", "exec"), {"__name__": "__main__"})
    assert "30" in out.getvalue()


def test_traced_step_becomes_while_loop():
    conv = check(
        """
        def f(x, a, b, s):
            for i in range(a, b, s):
                x = x * 0.5 + i
            return x
        """,
        "f",
        [
            (f32(1), i32(0), i32(9), i32(2)),
            (f32(1), i32(9), i32(0), i32(-3)),
            (f32(1), i32(9), i32(0), i32(3)),
            (f32(1), i32(4), i32(4), i32(1)),
        ],
        codes=["AJ202"],
    )
    assert "while_loop" in conv.text


def test_slice_bounds_from_traced_loop_refused():
    conv, _, _ = _convert(
        """
        def f(x, n):
            s = 0.0
            for i in range(n):
                s = s + x[i:i + 2].sum()
            return s
        """
    )
    assert "fori_loop" not in conv.text
    assert any(r.code == "AJ934" for r in conv.refusals)


def test_loop_inside_traced_branch():
    check(
        """
        def f(x, n):
            if x.sum() > 0:
                for i in range(n):
                    x = x * 0.5
            else:
                x = x - 1.0
            return x
        """,
        "f",
        [(f32(1, 2), i32(3)), (f32(-1, -2), i32(3)), (f32(1, 2), i32(0))],
        codes=["AJ202"],
    )


def test_while_true_with_traced_break():
    conv = check(
        """
        def halve(x):
            n = 0
            while True:
                x = x / 2
                n = n + 1
                if x.max() < 1:
                    break
            return x, n
        """,
        "halve",
        [(f32(100, 3),), (f32(0.5),), (f32(1, 1),)],
        codes=["AJ201", "AJ205"],
        exact_dtype=False,
    )
    assert "jnp.logical_not(break_)\n" in conv.text


def test_short_static_range_with_traced_break():
    check(
        """
        def short(x):
            idx = -1
            for i in range(4):
                if x[i] > 0:
                    idx = i
                    break
            return idx
        """,
        "short",
        [(f32(-1, -2, 3, 4),), (f32(-1, -2, -3, -4),), (f32(5, -2, 3, 4),)],
        codes=["AJ205"],
        exact_dtype=False,
    )


def test_enumerate_with_start():
    check(
        """
        def f(x: jax.Array):
            s = jnp.float32(0)
            for k, v in enumerate(x, 1):
                s = s + v * k
            return s
        """,
        "f",
        [(f32(1, 2, 3),), (np.zeros(0, np.float32),)],
        codes=["AJ204"],
    )


# -- property: random inputs, every path -----------------------------------------------------

PROPERTY_SRC = """
def f(x, n, t):
    s = 0.0
    count = 0
    i = 0
    while i < n:
        v = x[i % x.shape[0]]
        i += 1
        if v < 0:
            continue
        if v > t:
            break
        s = s + v
        count += 1
    best = x[0]
    for j in range(1, n, 2):
        best = jnp.maximum(best, x[j % x.shape[0]] * j)
    return s, count, i, best
"""


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    # (no subnormals: jit on CPU flushes them to zero, eager comparisons do not)
    xs=st.lists(st.floats(-5, 5, width=32, allow_subnormal=False), min_size=1, max_size=6),
    n=st.integers(-1, 8),
    t=st.floats(-1, 6, width=32, allow_subnormal=False),
)
def test_property_while_break_continue_and_stepped_range(xs, n, t):
    conv, orig_ns, conv_ns = _PROPERTY
    args = (np.asarray(xs, np.float32), np.int32(n), np.float32(t))
    expected = orig_ns["f"](*copy.deepcopy(args))
    got = jax.jit(conv_ns["f"])(*args)
    _same(expected, got, exact_dtype=False)


_PROPERTY = _convert(PROPERTY_SRC)


def test_loop_over_python_list_of_layers_not_reported():
    conv, _, _ = _convert(
        """
        def mlp(params, x):
            for w, b in params:
                x = jnp.tanh(x @ w + b)
            return x
        """
    )
    assert conv.text.count("for w, b in params") == 1
    assert not conv.changes and not conv.refusals


def test_tuple_first_assigned_in_loop():
    check(
        """
        def f(x, n):
            for i in range(n):
                pair = (x * i, x + i)
            return pair
        """,
        "f",
        [(f32(1, 2), i32(1)), (f32(1, 2), i32(3))],
        codes=["AJ202"],
    )


def test_nested_loops_with_break_in_inner_while():
    check(
        """
        def f(x, n, m):
            total = 0.0
            for i in range(n):
                j = 0
                while j < m:
                    if x[j] > i:
                        break
                    total = total + x[j]
                    j += 1
            return total
        """,
        "f",
        [
            (f32(0.5, 1.5, 2.5, 0.1), i32(0), i32(3)),
            (f32(0.5, 1.5, 2.5, 0.1), i32(3), i32(0)),
            (f32(0.5, 1.5, 2.5, 0.1), i32(3), i32(4)),
            (f32(0.5, 1.5, 2.5, 0.1), i32(5), i32(2)),
        ],
        codes=["AJ201", "AJ202", "AJ205"],
    )


def test_loop_updating_the_array_it_iterates_reads_updated_rows():
    # NumPy's iteration reads x[i] from the updated array (found by the soak test)
    check(
        """
        def f(x, a):
            n = x.shape[0]
            t = a * 0.5
            for i, vi in enumerate(x):
                x[n - 1] = t if not vi <= t else vi
            return x

        def g(x):
            n = x.shape[0]
            for vi in x:
                x[n - 1] = vi
            return x
        """,
        "f",
        [(f32(0, 0.75, 0.25), np.float32(1.0)), (f32(3, 1, 2), np.float32(0.5))],
        codes=["AJ204", "AJ301"],
    )
    check(
        """
        def g(x):
            n = x.shape[0]
            for vi in x:
                x[n - 1] = vi
            return x
        """,
        "g",
        [(f32(1.25, 0.25, 0.5),), (f32(2),)],
        codes=["AJ204"],
    )


def test_loop_rebinding_the_array_it_iterates_scans_the_original():
    check(
        """
        def h(x):
            total = jnp.zeros((), x.dtype)
            for v in x:
                x = x * 2
                total = total + v
            return total, x
        """,
        "h",
        [(f32(1.25, 0.25, 0.5),)],
        codes=["AJ204"],
    )


def test_kept_loop_over_array_it_updates_iterates_by_index():
    # the index also indexes `y`, a parameter that may be a list: the loop stays Python, but
    # iterates by index so that `vi` comes from the updated `x` (found by the soak test)
    conv = check(
        """
        def f(x, y):
            n = x.shape[0]
            for i, vi in enumerate(x):
                x[n - 1] = vi + y[i]
            return x
        """,
        "f",
        [(f32(1.25, 0.25, 0.5), f32(0, 1, 2)), (f32(1.25, 0.25, 0.5), [0.0, 1.0, 2.0])],
        codes=["AJ204"],
    )
    assert "for i in range(len(x)):" in conv.text
    assert any(r.code == "AJ934" and r.location.line == 8 for r in conv.refusals)  # the `for`


def test_static_inner_loop_becomes_traced_inside_outer_loop():
    # the inner while is static until the outer loop carries `s` (found by the soak test)
    check(
        """
        def f(x: jax.Array, n):
            s = 1.0
            for vi in x:
                m = 0
                while m < n and s < 10.0:
                    m += 1
                    s = s + vi
            return s
        """,
        "f",
        [(f32(1, 2, 3), i32(2)), (f32(1, 2, 3), i32(0)), (f32(4, 5), i32(5))],
        codes=["AJ201", "AJ204"],
        exact_dtype=False,
    )


# -- break flags without lax.cond (the flag is the condition; scalar carries use jnp.where) ---


FIRST_ABOVE = """
def g(x, t):
    idx = -1
    for i in range(x.shape[0]):
        if x[i] > t:
            idx = i
            break
    return idx
"""


@pytest.mark.parametrize("t", [-5.0, 0.0, 0.5, 0.95, 2.0])
@pytest.mark.parametrize("n", [1, 7])  # n = 0: x[i] on a zero-length axis cannot be traced
def test_break_flag_is_the_condition_and_scalar_carry_uses_where(n, t):
    x = np.linspace(0, 1, n, dtype=np.float32)
    conv = check(FIRST_ABOVE, "g", [(x, np.float32(t))], codes=("AJ205", "AJ102"))
    assert "break_ = x[i] > t" in conv.text
    assert "jnp.where(break_, i, idx)" in conv.text
    assert "lax.cond" not in conv.text and "eval_shape" not in conv.text


# -- the loop's own state tells that it broke: no carried flag ---------------------------------


@pytest.mark.parametrize("t", [-5.0, 0.5, 2.0])
def test_break_stop_encoded_in_first_index(t):
    """`idx = -1` and the body's only write `idx = i` under the break (i >= 0): the loop runs while
    `idx < 0`, the flag is local to the body (the hand-written form, no third carried value)."""
    src = """
    def g(x, n, t):
        idx = -1
        for i in range(n):
            if x[i] > t:
                idx = i
                break
        return idx
    """
    x = np.linspace(0, 1, 7, dtype=np.float32)
    calls = [(x, i32(n), np.float32(t)) for n in (0, 1, 3, 7)]
    conv = check(src, "g", calls, codes=("AJ202", "AJ205"))
    assert "return jnp.logical_and(idx < 0, i < n)" in conv.text
    assert "break_ = False" not in conv.text
    assert "idx, i = carry" in conv.text  # two values carried
    assert any("runs while `idx < 0`" in c.message for c in conv.changes)


def test_break_stop_encoded_counter_from_a_constant_start_index_live_after():
    """`range(2, n)`: the counter is >= 2, so `idx = 1` before the loop is below any index; the
    loop variable read after the loop gets its own counter."""
    src = """
    def g(x, n, t):
        idx = 1
        i = -5
        for i in range(2, n):
            if x[i] > t:
                idx = i
                break
        return idx, i
    """
    x = f32(9, 9, 0.1, 0.2, 0.9, 0.3)
    calls = [(x, i32(n), np.float32(t)) for n in (0, 2, 3, 6) for t in (0.5, 2.0)]
    conv = check(src, "g", calls, codes=("AJ202", "AJ205"))
    assert "idx < 2" in conv.text and "break_ = False" not in conv.text


def test_break_stop_encoded_in_a_found_flag_and_a_status_literal():
    src = """
    def g(x, n, t):
        found = False
        s = jnp.float32(0)
        for i in range(n):
            s = s + x[i]
            if x[i] > t:
                found = True
                break
        return found, s

    def h(x, t):
        status = 5
        k = 0
        while k < x.shape[0]:
            if x[k] > t:
                status = 3
                break
            k += 1
        return status, k
    """
    x = f32(0.1, 0.7, 0.2, 0.9)
    conv = check(src, "g", [(x, i32(n), np.float32(t)) for n in (0, 1, 4) for t in (0.5, 2.0)])
    check(src, "h", [(x, np.float32(t)) for t in (-1.0, 0.5, 0.8, 2.0)])
    assert "jnp.logical_and(jnp.logical_not(found), i < n)" in conv.text
    assert "jnp.logical_and(status > 3, k < x.shape[0])" in conv.text
    assert "break_ = False" not in conv.text


def test_break_stop_encoded_with_a_while_counter_that_only_grows():
    """`k = 0` before the loop and only `k += 1` / `k = k + 2` in it: `k >= 0` wherever it is
    read, so `idx = -1` proves the stop as a range counter does."""
    src = """
    def g(x, n, t):
        k = 0
        idx = -1
        while k < n:
            if x[k % x.shape[0]] > t:
                idx = k
                break
            k += 1
            if x[k % x.shape[0]] < 0.15:
                k = k + 2
        return idx, k
    """
    x = f32(0.1, 0.9, 0.2, 0.95, 0.3, 0.8)
    calls = [(x, i32(n), np.float32(t)) for n in (0, 1, 3, 9) for t in (0.85, 0.5, 2.0, -1.0)]
    conv = check(src, "g", calls, codes=("AJ201", "AJ205"))
    assert "jnp.logical_and(idx < 0, k < n)" in conv.text and "break_ = False" not in conv.text


# a `while` counter stopped by a bound, a step count and a `break`, changed by `change`
_COUNTER_LOOP = """
    def g(x, n, t):
        k = 0
        idx = -1
        steps = 0
        while k < {bound} and steps < 12:
            if x[k % x.shape[0]] > t:
                idx = k
                break
            k += 1
            steps += 1
            if x[k % x.shape[0]] < 0.25:
                {change}
        return idx, k
    """


def test_a_counter_doubled_under_a_traced_bound_is_refused_under_a_static_one_converted():
    """`k = k * 2` in `while k < n and steps < 12`: with a traced `n`, `k` may pass 2**31 by
    the time the test stops it (`n` above 2**30, or a float bound: `while p < lim: p *= 3`
    with `lim = 3e9` never ended converted). Such a bound no longer keeps a product in
    range (AJ932, the loop stays Python); a bound known when jax traces (`x.shape[0]`) does,
    and the loop converts with its break flag."""
    from tests.fuzz import oracle

    x = f32(0.1, 0.9, 0.2, 0.95, 0.3, 0.8)
    calls = [(x, i32(n), np.float32(t)) for n in (0, 1, 3, 9) for t in (0.85, 0.5, 2.0, -1.0)]
    head = "import jax\nimport jax.numpy as jnp\n"
    traced = _COUNTER_LOOP.format(bound="n", change="k = k * 2")
    out = oracle.run(head + textwrap.dedent(traced), calls, name="g")
    assert out.kind in oracle.OK and "AJ932" in " ".join(out.refusals), out.report()
    static = _COUNTER_LOOP.format(bound="x.shape[0]", change="k = k * 2")
    conv = check(static, "g", calls, codes=("AJ201", "AJ205"))
    assert "break_ = False" in conv.text
    lim = head + "def f(x, lim):\n    p = 1\n    while p < lim:\n        p = p * 3\n    return p\n"
    out = oracle.run(lim, [(x, np.float32(100.0))], name="f")
    assert out.kind in oracle.OK and "AJ932" in " ".join(out.refusals), out.report()


@pytest.mark.parametrize(
    "change",
    ["k -= 1", "k += -1", "k = k - 1", "k = 1", "k = k + n"],
)
def test_break_flag_kept_where_the_while_counter_may_not_grow(change):
    src = _COUNTER_LOOP.format(bound="n", change=change)
    x = f32(0.1, 0.9, 0.2, 0.95, 0.3, 0.8)
    calls = [(x, i32(n), np.float32(t)) for n in (0, 1, 3, 9) for t in (0.85, 0.5, 2.0, -1.0)]
    conv = check(src, "g", calls, codes=("AJ201", "AJ205"))
    assert "break_ = False" in conv.text


@pytest.mark.parametrize(
    "src",
    [
        # 0 is an index the loop can find
        "idx = 0\nfor i in range(n):\n    if x[i] > t:\n        idx = i\n        break\n",
        # a traced start: the counter may pass through -1
        "idx = -1\nfor i in range(n - 4, n):\n    if x[i] > t:\n        idx = i\n        break\n",
        # written on the iterations that go on too
        "idx = -1\nfor i in range(n):\n    idx = -1\n    if x[i] > t:\n        idx = i\n"
        "        break\n",
        # the same literal: the break does not change it
        "idx = 2\nfor i in range(n):\n    if x[i] > t:\n        idx = 2\n        break\n",
        # not a literal before the loop
        "idx = -1\nidx = idx * n\nfor i in range(n):\n    if x[i] > t:\n        idx = i\n"
        "        break\n",
        # floats: two literals may be one float32
        "idx = -1.0\nfor i in range(n):\n    if x[i] > t:\n        idx = 1.0\n        break\n",
        # the else reads the flag after the loop
        "idx = -1\nfor i in range(n):\n    if x[i] > t:\n        idx = i\n        break\n"
        "else:\n    idx = -7\n",
        # the loop variable changed in the body
        "idx = -1\nfor i in range(n):\n    i = i - 2\n    if x[i] > t:\n        idx = i\n"
        "        break\n",
    ],
)
def test_break_flag_kept_where_the_state_does_not_prove_the_stop(src):
    src = "def g(x, n, t):\n" + textwrap.indent(src + "return idx\n", "    ")
    x = f32(0.1, 0.9, 0.2, 0.95, 0.3, 0.8)
    calls = [(x, i32(n), np.float32(t)) for n in (0, 1, 3, 6) for t in (0.85, 0.5, 2.0, -1.0)]
    conv = check(src, "g", calls, codes=("AJ205",))
    assert "break_ = False" in conv.text
    assert "logical_not(break_)" in conv.text


def test_break_flag_rest_of_if_body_and_else_and_statements_after():
    src = """
    def g(x, n, t):
        s = jnp.float32(0)
        c = 0
        k = 0
        while k < n:
            k += 1
            if x[k % x.shape[0]] > t:
                s = s + 100.0
                c = c + 1
                break
            else:
                s = s - 1.0
            c = c + 2
            s = s * 2
        return s, c, k
    """
    x = f32(0.1, 0.9, 0.3, 0.8)
    calls = [(x, i32(n), np.float32(t)) for n in (0, 1, 2, 6) for t in (0.5, 2.0, -1.0)]
    conv = check(src, "g", calls, codes=("AJ201", "AJ205"))
    assert "break_ = x[k % x.shape[0]] > t" in conv.text


def test_continue_flag_is_the_condition_with_and_or_not():
    src = """
    def g(x, n, a):
        s = jnp.float32(0)
        for i in range(n):
            if not (x[i] > a and x[i] < 2 * a) or x[i] == 0:
                continue
            s = s + x[i]
        return s
    """
    x = f32(0.0, 1.0, 1.5, 3.0, 0.7)
    calls = [(x, i32(n), np.float32(a)) for n in (0, 1, 5) for a in (0.5, 1.0)]
    conv = check(src, "g", calls, codes=("AJ202", "AJ205"))
    assert "continue_ = jnp.logical_or(" in conv.text


def test_return_flag_is_the_condition():
    src = """
    def g(x, n):
        for i in range(n):
            if x[i] > 3:
                y = x[i] * 2
                return y + 1
        return x[0]
    """
    calls = [(f32(1.0, 5.0, 2.0, 7.0), i32(n)) for n in (0, 1, 2, 4)]
    conv = check(src, "g", calls, codes=("AJ202", "AJ205"))
    assert "break_ = x[i] > 3" in conv.text


def test_non_boolean_test_keeps_the_flag_assignment():
    """`if x[i]:` is truthiness, not a bool: the flag is set inside the branch."""
    src = """
    def g(x, n):
        c = 0
        for i in range(n):
            if x[i]:
                break
            c = c + 1
        return c
    """
    calls = [(f32(1.0, 0.0, 2.0), i32(n)) for n in (0, 1, 3)] + [(f32(0.0, 0.0, 2.0), i32(3))]
    conv = check(src, "g", calls, codes=("AJ202", "AJ205"))
    assert "break_ = x[i]\n" not in conv.text


def test_scalar_carry_reassigned_after_the_if_keeps_lax_cond_or_exact():
    """The value chosen by the `if` does not reach the end of the body unchanged: no
    shortcut, and values, shapes and dtypes still match."""
    src = """
    def g(x, n):
        m = 0.0
        for i in range(n):
            v = x[i]
            if v > 1:
                m = v
            m = m * 0.5
        return m
    """
    calls = [(f32(0.5, 2.0, 3.0), i32(n)) for n in (0, 1, 3)]
    check(src, "g", calls, codes=("AJ202",))


def test_range_stop_changed_in_a_breaking_loop_is_read_once():
    src = """
    def g(x, n):
        s = jnp.float32(0)
        for i in range(n):
            if x[i] > 5:
                break
            s = s + x[i]
            n = n - 1
        return s, n
    """
    calls = [(f32(1.0, 2.0, 3.0, 9.0, 1.0, 1.0), i32(n)) for n in (0, 1, 3, 6)]
    conv = check(src, "g", calls, codes=("AJ202", "AJ205"))
    assert "stop = n" in conv.text


def test_loop_with_exits_and_no_state_is_refused_as_written():
    """Nothing to carry (the only assignment is dead code after `continue`): refused before
    the exits become flags, so the loop is left exactly as written."""
    src = """
    def g(x, a, n):
        t = -1.0
        for i in range(n):
            if a > 0:
                continue
            continue
            t -= a
        return t
    """
    conv, _, _ = _convert(src)
    assert "continue_" not in conv.text
    assert "AJ932" in {r.code for r in conv.refusals}


def test_lowered_loop_whose_conversion_is_refused_is_put_back_as_written():
    """The inner loop's `return` becomes flags, then its while loop is refused (`j` first bound
    in it is read after it): the loop is put back exactly as written, the refusal reported at
    it, and no AJ205 change claimed. The outer loop is refused around it."""
    src = """
    def f(x, n):
        for i in range(n):
            for j in range(n):
                if x[i, j] < 0:
                    return x[i, j] * 10
        return x.sum()
    """
    conv, _, _ = _convert(src)
    assert conv.text == HEADER + textwrap.dedent(src)
    refused = {(r.code, r.location.line) for r in conv.refusals}
    inner_line = HEADER.count("\n") + 4
    assert ("AJ932", inner_line) in refused
    assert ("AJ919", inner_line - 1) in refused
    assert "AJ205" not in {c.code for c in conv.changes}


LOOPS_BINDING_OUTSIDE = {
    "walrus-in-while-condition": """
    def f(x):
        i = 0
        v = 0.
        while (v := x[i]) > 0:
            i += 1
        return v + i
    """,
    "global-in-loop": """
    HITS = 0

    def f(x, n):
        global HITS
        for i in range(n):
            HITS = HITS + 1
            x = x * 2.
        return x
    """,
    "walrus-in-comprehension-in-loop": """
    def f(x, n):
        last = 0.
        for i in range(n):
            ys = [(last := v * x[i]) for v in [1., 2.]]
            x = x + ys[0]
        return x + last
    """,
    # a method that changes a list, inside an expression: the body is traced once
    "list-pop-in-an-expression": """
    def f(x, n):
        stack = [1.0, 2.0, 3.0, 4.0, 5.0]
        for i in range(n):
            x = x + stack.pop()
        return x, len(stack)
    """,
    # a NumPy generator's draw: the body is traced once, one draw for every iteration
    "numpy-generator-draw": """
    import numpy as np

    def f(x, n):
        rng = np.random.default_rng(0)
        for i in range(n):
            x = x + rng.normal()
        return x
    """,
    # a module helper that changes a module-level list, called in the body
    "module-helper-with-an-effect": """
    LOG = []

    def record(v):
        LOG.append(v)
        return v

    def f(x, n):
        for i in range(n):
            x = record(x) * 2.0
        return x
    """,
    "zero-argument-super-in-loop": """
    class Base:
        def step(self, v):
            return v * 2.

    class D(Base):
        def f(self, x, n):
            for i in range(n):
                x = super().step(x)
            return x
    """,
    "walrus-skipped-by-and-in-loop": """
    def f(x, n):
        t = 0.
        for i in range(n):
            c = (x[i] > 0) and ((t := x[i] * 2.) > 0)
            x = x + jnp.where(c, 1., 0.)
        return x + t
    """,
}


@pytest.mark.parametrize("name", sorted(LOOPS_BINDING_OUTSIDE))
def test_loop_binding_names_outside_its_body_function_is_refused(name):
    """A loop whose body or condition binds a name of the function that a body/condition
    function would bind as its own (`global`, `:=` in the condition or in a comprehension, a
    `:=` skipped by `and`) stays Python, reported."""
    src = LOOPS_BINDING_OUTSIDE[name]
    conv, _, _ = _convert(src)
    assert {"AJ931", "AJ935"} & {r.code for r in conv.refusals}, (conv.refusals, conv.text)
    assert "_body" not in conv.text and "fori_loop" not in conv.text


def test_underscore_loop_variable_with_break_and_return():
    """`for _ in range(n)` that can stop early becomes a while loop over a counter named `_`:
    the generated throw-away names are not `_` then (unpacked as `_`, the counter would have
    been replaced by another carry)."""
    src = """
    def until(x):
        s = 0.0
        for _ in range(10):
            s = s * 2 + x
            if s > 100:
                break
        return s

    def returning(x, n):
        s = 0.0
        for _ in range(n):
            s = s * 2 + x
            if s > 100:
                return s
        return -s
    """
    one, big, small = np.float32(1.0), np.float32(200.0), np.float32(0.01)
    conv = check(src, "until", [(one,), (big,), (small,)])
    assert "_unused" in conv.text
    check(src, "returning", [(one, i32(10)), (one, i32(3)), (one, i32(0))])


CLOSURES_READING_STATE = {
    "lambda-in-fori": """
    def f(X, y, w, lr, n):
        predict = lambda A: A @ w
        for t in range(n):
            err = predict(X) - y
            w = w - lr * (X.T @ err)
        return w
    """,
    "def-in-while": """
    def f(x, tol):
        lr = 1.0
        def step(v):
            return v - lr * 2 * v
        it = 0
        while jnp.abs(x).max() > tol:
            x = step(x)
            lr = lr * 0.5
            it = it + 1
        return x, it
    """,
    "closure-calling-closure": """
    def f(x, n):
        scale = 1.0
        def inner(v):
            return v * scale
        def outer(v):
            return inner(v) + 1.0
        for i in range(n):
            scale = scale + 1.0
            x = outer(x)
        return x
    """,
}


@pytest.mark.parametrize("name", sorted(CLOSURES_READING_STATE))
def test_closure_reading_loop_state_is_refused(name):
    """A function defined before the loop reads a name the loop changes: Python's closure sees
    each new value, a body function's copy would not be seen: refused."""
    conv, _, _ = _convert(CLOSURES_READING_STATE[name])
    assert "AJ931" in {r.code for r in conv.refusals}, (conv.refusals, conv.text)
    assert "_body" not in conv.text


def test_closure_defined_in_the_loop_body_moves_with_it():
    src = """
    def f(x, n):
        scale = 1.0
        for i in range(n):
            scale = scale + 1.0
            g = lambda v: v * scale
            x = g(x)
        return x
    """
    check(src, "f", [(f32(1.0, 2.0), i32(3)), (f32(1.0, 2.0), i32(0))], codes=["AJ202"])


SEQUENCES_OF_ARRAYS = {
    # a scan would walk each array's rows (as a pytree's leaves), not the arrays
    "tuple-display": """
    def f(x):
        s = jnp.zeros(3)
        for c in (x[:2], x[2:]):
            s = s + c[0]
        return s
    """,
    "tuple-valued-name": """
    def f(x):
        parts = (x[:2], x[2:])
        s = jnp.zeros(3)
        for c in parts:
            s = s + c[0]
        return s
    """,
    "split-result": """
    def f(x):
        s = jnp.zeros(3)
        for c in jnp.split(x, 2):
            s = s + c[0]
        return s
    """,
    "starred-rest": """
    def f(x):
        head, *tail = x
        s = head[0]
        for r in tail:
            s = s + r[0]
        return s
    """,
    "helper-returning-a-tuple": """
    def halves(v):
        return v[:2], v[2:]

    def f(x):
        s = jnp.zeros(3)
        for c in halves(x):
            s = s + c[0]
        return s
    """,
}


@pytest.mark.parametrize("name", sorted(SEQUENCES_OF_ARRAYS))
def test_loop_over_a_sequence_of_arrays_is_not_scanned(name):
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    conv = check(SEQUENCES_OF_ARRAYS[name], "f", [(x,)])
    assert "scan" not in conv.text


PYTHON_INT_MEANINGS = {
    # the index as an exponent of a Python int: `10 ** -k` is 0.1 ** k in Python, 0 in int32
    "index-as-exponent": ("""
    def f(x, n):
        s = 0.0
        for k in range(n):
            s = s + x[k] * 10 ** -k
        return s
    """, "AJ934"),
    # an int carry grown by products: Python's ints do not overflow, int32 wraps at 2**31
    "factorial-carry": ("""
    def f(x, n):
        fact = 1
        s = 0.0
        for k in range(1, n):
            fact = fact * k
            s = s + x[0] ** k / fact
        return s
    """, "AJ932"),
    "int-carry-as-exponent": ("""
    def f(x, n):
        e = 0
        s = 0.0
        for i in range(n):
            s = s + x[i] * 2 ** -e
            e = e + 1
        return s
    """, "AJ932"),
    # a Python flag the loop would make traced, tested with `is` after it
    "flag-tested-with-is": ("""
    def f(x, t, n):
        found = False
        for i in range(n):
            if x[i] == t:
                found = True
        if found is True:
            return x * 2
        return x
    """, "AJ932"),
}


@pytest.mark.parametrize("name", sorted(PYTHON_INT_MEANINGS))
def test_python_number_meanings_a_traced_loop_would_lose_are_refused(name):
    src, code = PYTHON_INT_MEANINGS[name]
    conv, _, _ = _convert(src)
    assert code in {r.code for r in conv.refusals}, (conv.refusals, conv.text)
    assert "fori_loop" not in conv.text and "while_loop" not in conv.text


def test_range_of_a_module_constant_assigned_anywhere_in_the_module():
    """`N = 3` below the function is its value when the function runs: a short loop stays
    Python (AJ930), a long one says its length."""
    src = """
    def f(x):
        for i in range(N):
            x = x + jnp.sin(x)
        for i in range(M):
            x = x * 0.5 + jnp.cos(x)
        return x

    N = 3
    M = 40
    """
    conv = check(src, "f", [(f32(0.5, -1.0),)], codes=["AJ203"])
    assert "AJ930" in {r.code for r in conv.refusals}
    assert any("40 iterations" in c.message for c in conv.changes)


def test_constant_written_by_the_loop_index_is_a_plain_update_in_a_fori_loop():
    """`x[i] = 0.0` in `for i in range(...)`: the index is an int (the range's), so the update
    is `x.at[i].set(0.0)`, not a choice on its dtype, and the loop is a fori_loop, not
    unrolled (the update made from `x[i] = ...` was read without what was known before it)."""
    src = """
    def f(x):
        for i in range(x.shape[0]):
            if x[i] < 0:
                x[i] = 0.0
        return x
    """
    conv = check(src, "f", [(f32(-1.0, 2.0, -3.0),), (f32(1.0),)], codes=["AJ203", "AJ301"])
    assert "result_type(i)" not in conv.text and "x.at[i].set(0.0)" in conv.text


def test_an_update_method_whose_result_is_used_is_not_a_dicts():
    """`updates, state = opt.update(grads, state)` (optax): a dict's or set's `.update` returns
    None, so this is another object's method, not a change of a container in place."""
    src = """
    def f(p, g, opt, n):
        state = p * 0.0
        for i in range(n):
            upd, state = opt.update(g, state)
            p = p + upd
        return p
    """
    conv, _, _ = _convert(src)
    assert not {"AJ935", "AJ931"} & {r.code for r in conv.refusals}, conv.refusals
    assert "fori_loop" in conv.text


def test_a_named_tuple_of_arrays_is_iterated_not_scanned():
    src = """
    from typing import NamedTuple

    class Pair(NamedTuple):
        a: jax.Array
        b: jax.Array

    def f(x):
        p = Pair(x[0], x[1])
        s = jnp.zeros(3)
        for v in p:
            s = s + v
        return s
    """
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    conv = check(src, "f", [(x,)])
    assert "scan" not in conv.text


def test_a_name_a_closure_reads_after_the_loop_is_carried():
    src = """
    def f(x, n):
        scale = 1.0
        g = lambda v: v * scale
        for i in range(n):
            scale = scale * 2.0 + x[i]
        return g(x)
    """
    check(src, "f", [(f32(1.0, 2.0, 3.0), i32(3)), (f32(1.0, 2.0, 3.0), i32(0))])


@pytest.mark.parametrize("closure", ["def h():\n            return i", "h = lambda: i"])
def test_a_closure_reading_the_index_of_a_loop_that_breaks_sees_its_last_value(closure):
    """A loop that can stop early becomes a while loop over a counter; where the index is read
    only in the body the index is that counter itself, which ends one past the last value
    Python's `i` held. A closure reading `i` after the loop was not counted as a read after
    it: `h()` gave 3 for [1, 2, 3] (Python: 2)."""
    src = f"""
    def f(x):
        i = 0
        {closure}
        for i in range(x.shape[0]):
            if x[i] < 0:
                break
        return h() + x[0]
    """
    check(src, "f", [(f32(1.0, 2.0, 3.0),), (f32(1.0, -2.0, 3.0),), (f32(-1.0, 2.0, 3.0),)])


def test_an_inner_loop_reading_the_outer_index_leaves_the_outer_loop_convertible():
    """The inner loop's body function reads the outer index `i`; that closure counted as a
    Python use of `i` (AJ934), so the outer loop stayed Python, unrolled: compile time grew with
    n (2 s at n=50, 10 s at n=200, against 0.1 s for nested fori_loops). The statements of a
    body function autojit made are asked the same question as the loop's own."""
    from tests.fuzz import oracle

    src = (
        "import jax\nimport jax.numpy as jnp\n\ndef f(x):\n    n = x.shape[0]\n"
        "    out = jnp.zeros((n, n))\n    for i in range(n):\n        for j in range(n):\n"
        "            out[i, j] = x[i] * x[j] + i\n    return out\n"
    )
    inputs = [(f32(1.0, 2.0, 3.0),), (f32(-1.0, 0.5),)]
    out = oracle.run(src, inputs, name="f")
    assert out.kind == "converted", out.report()
    assert out.converted.count("fori_loop(") == 2 and "for i in" not in out.converted
    # an inner loop bounded by the outer index: `fori_loop(0, i, ...)` takes a traced bound
    triangular = src.replace("for j in range(n)", "for j in range(i)")
    out = oracle.run(triangular, inputs, name="f")
    assert out.kind == "converted", out.report()
    # a slice bound by the outer index in the inner body needs a Python int: the outer is kept
    sliced = src.replace("x[i] * x[j] + i", "x[i:i + 2].sum() * x[j]")
    out = oracle.run(sliced, [(f32(1.0, 2.0, 3.0),)], name="f")
    assert out.kind in oracle.OK, out.report()
    assert "for i in range(n)" in out.converted, out.converted


def test_a_start_the_loop_state_type_cannot_hold_fails_loudly_not_cut():
    """`acc = 0.75` where the body makes an int: the start was cut to the body's int type (0),
    a silently different answer; it is widened only, and the loop then fails on two types."""
    src = """
    def f(x, n):
        acc = 0.75
        for i in range(n):
            acc = (acc * 4 + x[i]).astype(jnp.int32)
        return acc
    """
    conv, _, ns = _convert(src)
    assert "result_type(acc, acc_type.dtype)" in conv.text
    with pytest.raises(TypeError, match="must have equal types"):
        jax.jit(ns["f"])(f32(1.0, 2.0), i32(1))


# -- return inside a loop, with code after the loop that depends on it ----------------------


def test_return_in_loop_then_code_depending_on_the_loop():
    src = """
    def g(x, n):
        s = jnp.float32(0)
        for i in range(n):
            s = s + x[i]
            if s > 10:
                return s * 2
        s = s + 1
        return s
    """
    x = f32(3.0, 4.0, 5.0, 6.0)
    calls = [(x, i32(n)) for n in (0, 1, 2, 3, 4)] + [(f32(1.0, 1.0, 1.0, 1.0), i32(4))]
    conv = check(src, "g", calls, codes=("AJ202", "AJ205"))
    assert "if break_:" not in conv.text  # became lax.cond with both returns
    assert conv.refusals == []


def test_return_loop_index_after_loop_state():
    """The returned value reads the loop index: a separate counter keeps `i` at the value it
    had when the loop returned."""
    src = """
    def g(x, n, t):
        c = 0
        for i in range(n):
            if x[i] > t:
                return i * 10 + c
            c = c + 2
        return c - 1
    """
    x = f32(1.0, 5.0, 2.0, 7.0)
    calls = [(x, i32(n), np.float32(t)) for n in (0, 1, 2, 4) for t in (0.0, 4.0, 9.0)]
    check(src, "g", calls, codes=("AJ202", "AJ205"))


def test_return_and_break_in_one_loop_use_two_flags():
    src = """
    def g(x, n):
        c = 0
        for i in range(n):
            if x[i] < 0:
                break
            if x[i] > 5:
                return i * 10
            c = c + 1
        return c
    """
    calls = [
        (f32(*v), i32(n))
        for v in ((1.0, 2.0, 9.0, -1.0), (1.0, -2.0, 9.0, 1.0), (1.0, 2.0, 3.0, 4.0))
        for n in (0, 1, 3, 4)
    ]
    conv = check(src, "g", calls, codes=("AJ202", "AJ205"))
    assert "returned = False" in conv.text


def test_return_in_while_loop_with_state_after():
    src = """
    def g(x, t):
        k = 0
        acc = jnp.float32(1)
        while k < 6:
            acc = acc * x
            k += 1
            if acc > t:
                return acc - k
        return acc + 100.0
    """
    calls = [(np.float32(v), np.float32(t)) for v in (0.5, 2.0) for t in (3.0, 1e9)]
    check(src, "g", calls, codes=("AJ201", "AJ205"))


def test_return_in_scan_loop_reading_state():
    src = """
    def g(x: jax.Array, t):
        s = jnp.float32(0)
        for v in x:
            s = s + v
            if s > t:
                return s
        return -s
    """
    x = f32(1.0, 2.0, 3.0, 4.0)
    calls = [(x, np.float32(t)) for t in (0.5, 2.5, 100.0)] + [(f32(), np.float32(1.0))]
    check(src, "g", calls, codes=("AJ204", "AJ205"))


@pytest.mark.parametrize(
    "body, after, why",
    [
        ("s = s + 1\nif x[i] > 0:\n    return", "return x", "bare `return`"),
        (
            "s = s + 1\nif x[i] > 0:\n    return x[i]\nif x[i] < -1:\n    return -x[i]",
            "return s",
            "more than one `return`",
        ),
        (
            "s = s + 1\nif x[i] > 0:\n    y = x[i] * 2\n    return y",
            "return s",
            "first assigned",
        ),
        ("s = s + x[i]\nif s > 3:\n    return s", "s = s + 1", "always leave"),
    ],
)
def test_return_in_loop_refused_where_unsafe(body, after, why):
    src = (
        "def g(x, n):\n    s = x[0]\n    for i in range(n):\n"
        + textwrap.indent(body, "        ")
        + "\n    "
        + after
        + "\n"
    )
    conv, _, _ = _convert(src)
    refused = [r for r in conv.refusals if r.code == "AJ936"]
    assert refused and why in refused[0].reason, (conv.text, conv.refusals)
    assert "break_" not in conv.text


def test_return_in_scan_loop_reading_the_element_refused():
    src = """
    def g(x: jax.Array, t):
        s = x[0]
        for v in x:
            s = s + v
            if v > t:
                return v * 2
        return s
    """
    conv, _, _ = _convert(src)
    assert any(r.code == "AJ936" and "loop variable" in r.reason for r in conv.refusals)


# -- slices whose bounds come from the loop index -> lax.dynamic_slice / dynamic_update_slice --


@pytest.mark.parametrize("n", [2, 3, 5, 40])
@pytest.mark.parametrize("k", [1, 2])
def test_sliding_window_read_becomes_dynamic_slice(n, k):
    src = """
    def g(x, k):
        s = jnp.zeros_like(x[:k])
        for i in range(x.shape[0] - k + 1):
            s = s + x[i:i + k] * (i + 1)
        return s
    """
    x = np.arange(n, dtype=np.float32) + 1
    conv, orig_ns, conv_ns = _convert(src)
    assert "dynamic_slice_in_dim(x, i, k)" in conv.text, conv.text
    fn = jax.jit(conv_ns["g"], static_argnums=1)
    _same(orig_ns["g"](x.copy(), k), fn(x, k))
    assert autojit.convert_source(conv.text, "m.py", all_functions=True).text == conv.text


@pytest.mark.parametrize("n", [3, 4, 30])  # n < 3: the window does not fit (see README)
def test_slice_write_becomes_dynamic_update_slice(n):
    src = """
    def g(x):
        for i in range(1, len(x) - 1):
            x[i - 1:i + 2] = x[i - 1:i + 2] * 0.5 + 1
        return x
    """
    x = np.arange(n, dtype=np.float32)
    conv = check(src, "g", [(x,)])
    assert "dynamic_update_slice_in_dim" in conv.text and "dynamic_slice_in_dim(x, i - 1, 3)" in (
        conv.text
    )


def test_slice_write_broadcasts_and_casts_like_numpy():
    src = """
    def g(x, v):
        for i in range(x.shape[0] - 2):
            x[i:i + 3] = v
            x[i] = x[i] + 1
        return x
    """
    calls = [(np.zeros((n, 2), np.int32), np.float32(2.7)) for n in (3, 4, 20)] + [
        (np.zeros((20, 2), np.float32), np.array([1.5, -2.0], np.float32))
    ]
    conv = check(src, "g", calls)
    assert "dynamic_update_slice_in_dim" in conv.text


def test_slice_with_break_loop_becomes_dynamic_slice():
    src = """
    def g(x, t):
        j = -1
        for i in range(x.shape[0] - 1):
            if x[i:i + 2].sum() > t:
                j = i
                break
        return j
    """
    x = f32(1.0, 2.0, 0.5, 4.0, 3.0)
    conv = check(src, "g", [(x, np.float32(t)) for t in (0.0, 4.4, 100.0)])
    assert "dynamic_slice_in_dim(x, i, 2)" in conv.text


@pytest.mark.parametrize(
    "header, sl",
    [
        ("range(x.shape[0])", "x[i:i + 2]"),  # the last window would be shorter
        ("range(len(x) - 1)", "y[i:i + 2]"),  # another array
        ("range(0, len(x) - 1)", "x[i - 1:i + 1]"),  # starts at -1 (wraps around)
        ("range(n)", "x[i:i + 2]"),  # a traced bound: nothing proven
        ("range(len(x) - 1)", "x[i:2 * i + 2]"),  # a size that changes
    ],
)
def test_slices_not_proven_inside_the_array_are_refused(header, sl):
    src = f"""
    def g(x, y, n):
        s = jnp.float32(0)
        for i in {header}:
            s = s + {sl}.sum()
        return s
    """
    conv, _, _ = _convert(src)
    assert "dynamic_slice" not in conv.text
    assert any(r.code == "AJ934" for r in conv.refusals), (conv.text, conv.refusals)


def test_slice_of_a_list_or_with_a_bound_changed_in_the_loop_not_rewritten():
    src = """
    def g(xs, n):
        s = 0.0
        for i in range(len(xs) - 1):
            s = s + xs[i:i + 2][0] * n
        return s

    def h(x, k):
        s = jnp.float32(0)
        for i in range(len(x) - k + 1):
            s = s + x[i:i + k].sum()
            k = 1
        return s
    """
    conv, _, _ = _convert(src)
    assert "dynamic_slice" not in conv.text


def test_return_in_loop_inside_a_branch_and_while_else():
    src = """
    def g(x, n, a):
        if a > 0:
            s = x[0] * 0
            for i in range(n):
                s = s + x[i]
                if s > 3:
                    return s
            s = s * 2
            return s
        return x[0]

    def w(x, n, a):
        k = 0
        s = x[0] * 0
        while k < n:
            s = s + x[k]
            k = k + 1
            if s > a:
                return s
        else:
            s = s - 100
        return s + k
    """
    x = f32(0.5, 2.0, 3.0)
    calls = [(x, i32(n), np.float32(a)) for n in (0, 1, 2, 3) for a in (-1.0, 0.5, 2.0)]
    check(src, "g", calls, codes=("AJ202", "AJ205"))
    check(src, "w", calls, codes=("AJ201", "AJ205"))


def test_return_in_inner_loop_leaves_both_loops():
    src = """
    def h(x, n, a):
        s = x[0] * 0
        for j in range(n):
            for i in range(n):
                s = s + x[i] * a
                if s > 5:
                    return s + j
            s = s - 1
        return s * 3
    """
    x = f32(0.5, 2.0, 3.0)
    calls = [(x, i32(n), np.float32(a)) for n in (0, 1, 2, 3) for a in (-1.0, 0.5, 2.0)]
    conv = check(src, "h", calls, codes=("AJ202", "AJ205"))
    assert conv.refusals == []


def test_loop_refused_for_updating_and_rebinding_its_array_keeps_the_item_assignment():
    """`x[:2] = j` in `for j in x` that also rebinds `x`: NumPy iterates the updated array; a
    Python loop over an immutable jax array would read the old rows (a silently different
    `s`). The loop is refused and left exactly as written (it fails under jit), also when
    converted again."""
    src = """
    def f(x):
        s = 0.0
        for j in x:
            s = s + j
            x[:2] = j
            x = x * 0.5
        return x, s
    """
    conv, _, _ = _convert(src)
    assert "x[:2] = j" in conv.text and ".at[" not in conv.text
    assert [r.code for r in conv.refusals] == ["AJ932"]
    assert not any(c.code.startswith("AJ3") for c in conv.changes)
    again = autojit.convert_source(conv.text, "m.py", all_functions=True)
    assert again.text == conv.text


def test_walrus_in_an_if_test_is_loop_state():
    src = """
    def g(x, n):
        m = x[0]
        s = x[0] * 0
        for i in range(n):
            if (m := x[i] * 2) > 1:
                s = s + m
        return s, m
    """
    check(src, "g", [(f32(0.5, 2.0, 3.0), i32(n)) for n in (0, 1, 3)], codes=("AJ202",))


@pytest.mark.parametrize("shape", [(3, 4), (2, 7), (4, 2)])
def test_column_windows_on_axis_1_read_and_write(shape):
    src = """
    def g(x):
        s = x[:, :2] * 0
        for j in range(x.shape[1] - 1):
            s = s + x[:, j:j + 2] * j
            x[:, j:j + 2] = x[:, j:j + 2] * 0.5
        return s, x
    """
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    conv = check(src, "g", [(x,)])
    assert "dynamic_slice_in_dim(x, j, 2, 1)" in conv.text
    assert "dynamic_update_slice_in_dim" in conv.text


def test_row_window_with_explicit_colon_and_other_axis_index_refused():
    src = """
    def g(x):
        s = x[:2, :] * 0
        for i in range(x.shape[0] - 1):
            s = s + x[i:i + 2, :]
        return s

    def h(x):
        s = x[0, :2] * 0
        for i in range(x.shape[0] - 1):
            s = s + x[0, i:i + 2]  # a row index and a window: not rewritten
        return s
    """
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    conv = check(src, "g", [(x,)])
    assert "dynamic_slice_in_dim(x, i, 2)" in conv.text
    assert "x[0, i:i + 2]" in conv.text


def test_exit_only_in_dead_code_makes_no_flag():
    """`continue` first in the body: the `return` after it never runs, so it makes no flag (the
    loop was lowered for it, then refused with nothing to carry, half-lowered: the splice of the
    kept loop crashed on overlapping edits; soak seed 5)."""
    src = """
    def f(x, k):
        n = x.shape[0]
        j = 0
        while j < n and k >= 2:
            j += 1
            for m in x:
                continue
                return x
        return x
    """
    conv, _, _ = _convert(src)
    assert "break_" not in conv.text and "continue_" not in conv.text
    assert {r.code for r in conv.refusals} == {"AJ919", "AJ932"}


@pytest.mark.parametrize(
    "body",
    [
        "    v = 0.0\n    for v in x:\n        if v < 0:\n            break\n    return v\n",
        "    i = 0\n    for i, v in enumerate(x):\n        if v < 0:\n            break\n    return i\n",
    ],
)
def test_scan_that_breaks_with_its_variable_read_after_is_refused(body):
    """A scan binds the loop variable to every element, the break flag guarding only the body:
    after the loop `v` was the last element (5.0 where Python stops at -3.0), silently."""
    from tests.fuzz.oracle import run

    src = "import jax\nimport jax.numpy as jnp\n\ndef f(x: jax.Array):\n" + body
    out = run(src, [(np.array([1, 2, -3, 4, 5], np.float32),)])
    assert out.kind == "refused", (out.kind, out.detail)
    assert any(r.startswith("AJ936") for r in out.refusals), out.refusals


@pytest.mark.parametrize(
    "body",
    [
        "    h = 0\n    for i in range(20):\n        h = h * 31 + i\n    return x + h % 7\n",
        "    n = 0\n    for i in range(30):\n        n = n + 1\n    return jnp.zeros(n) + x.sum()\n",
    ],
)
def test_long_static_loop_of_python_arithmetic_stays_python(body):
    """A loop of 20+ iterations computing only Python numbers unrolls nothing under jit (it
    runs at trace time): as a fori_loop its ints became int32 and overflowed (`h * 31`: 4
    where Python gives 7), or traced where a shape needs them."""
    from tests.fuzz.oracle import run

    src = "import jax.numpy as jnp\n\ndef f(x):\n" + body
    out = run(src, [(np.array([1, 2, 3], np.float32),)])
    assert out.kind == "converted", (out.kind, out.detail)
    assert "fori_loop" not in out.converted


@pytest.mark.parametrize("loop", ["for i in range(x.shape[0]):", "for i in range(3):", "for i in [0, 2, 1]:"])
def test_running_max_from_a_python_zero(loop):
    """`best = 0`, then `if x[i] > best: best = x[i]` in a loop: the branch passing `best`
    through gave the Python int of the first iteration against x's float32, and lax.cond
    refused the two types (every loop form failed under jit). That branch now promotes it as
    eager arithmetic would, outside a loop and inside one alike."""
    from tests.fuzz.oracle import run

    src = (
        "import jax.numpy as jnp\n\ndef f(x):\n    best = 0\n"
        f"    {loop}\n        if x[i] > best:\n            best = x[i]\n    return best\n"
    )
    out = run(src, [(np.array([1.0, 3.0, 2.0], np.float32),), (np.array([-1.0, -2.0, 0.5], np.float32),)])
    assert out.kind == "converted", (out.kind, out.detail)


@pytest.mark.parametrize(
    "setup, draw",
    [
        ("import itertools\nCOUNTER = itertools.count()\n", "next(COUNTER)"),
        ("import numpy as np\nRS = np.random.RandomState(0)\n", "RS.rand()"),
    ],
)
def test_loop_calling_a_stateful_python_function_stays_python(setup, draw):
    """A converted loop's body is traced once: `next(COUNTER)` or `RS.rand()` gave every
    iteration the same number (20 where Python gives 190), silently. Left as Python (AJ931)."""
    from tests.fuzz.oracle import run

    src = (
        "import jax\nimport jax.numpy as jnp\n" + setup + "\ndef f(x: jax.Array):\n    s = 0.0\n"
        f"    for i in range(20):\n        s = s + {draw} * x[i]\n    return s\n"
    )
    out = run(src, [(np.ones(20, np.float32),)])
    assert "fori_loop" not in out.converted and any(r.startswith("AJ931") for r in out.refusals)


def test_enumerate_with_a_start_keyword_is_no_array():
    """`enumerate(x, start=5)` was taken for an array to scan (the keyword form missed the
    enumerate rule): `lax.scan(..., enumerate(x, start=5))` failed under jit."""
    from tests.fuzz.oracle import run

    src = (
        "import jax\nimport jax.numpy as jnp\n\ndef f(x: jax.Array):\n    s = 0.0\n"
        "    for i, v in enumerate(x, start=5):\n        s = s + i * v\n    return s\n"
    )
    out = run(src, [(np.arange(4, dtype=np.float32),)])
    assert out.kind == "converted", (out.kind, out.detail)
    assert "scan" not in out.converted


def test_a_loop_in_a_try_that_catches_index_error_stays_python():
    """NumPy raises IndexError for an index out of range and the `except` runs; a converted
    loop's traced index is clamped, so it never raised (a `while` ended by it never ended)."""
    from tests.fuzz import oracle

    src = (
        "import jax\nimport jax.numpy as jnp\n\ndef f(x, n):\n    s = 0.0\n    try:\n"
        "        for i in range(n[0]):\n            s = s + x[i]\n    except IndexError:\n"
        "        s = -1.0\n    return s\n"
    )
    inputs = [(f32(1.0, 2.0, 3.0), np.array([2], np.int32)), (f32(1.0, 2.0, 3.0), np.array([5], np.int32))]
    out = oracle.run(src, inputs, name="f")
    assert out.kind in oracle.OK, out.report()
    assert "AJ931" in " ".join(out.refusals), out.refusals


@pytest.mark.parametrize(
    "grow", ["c = c + c", "c += c", "c = c * 2 + 1", "c = 2 * c + 1", "c = (c << 1) | 1"]
)
def test_a_python_int_growing_geometrically_is_never_made_int32(grow):
    """Doubling written as a sum, or a product inside a sum, of a Python int in a loop whose
    body has a traced `if`: converted, the int became int32 and wrapped past 2**31 (eager 2**40,
    jit 1048575). The loop stays Python (AJ932) and so does the `if` in it (AJ918)."""
    from tests.fuzz import oracle

    src = (
        "import jax\nimport jax.numpy as jnp\n\ndef f(y):\n    c = 1\n"
        f"    for i in range(y.shape[0]):\n        {grow}\n        if y[i] > 0:\n"
        "            c = c - 1\n    return c\n"
    )
    out = oracle.run(src, [(np.linspace(-1, 1, 40).astype(np.float32),)], name="f")
    assert out.kind in oracle.OK, out.report()


@pytest.mark.parametrize(
    "step",
    [
        "t = a + b\n        a = b\n        b = t",  # Fibonacci through a temporary
        "q = b\n        b = b + q",  # doubling through a copy
        "b = sum([b, b])",
        "a, b = [b, a + b]",  # a list display (probe 14)
    ],
)
def test_a_python_int_doubled_through_a_temporary_is_never_made_int32(step):
    """`t = a + b; a = b; b = t` and `q = b; b = b + q` grow as `a, b = b, a + b` and `b = b +
    b` do: converted, the int32 carry wrapped (eager 12586269025, jit -298632863 at n = 50;
    2**40 against 0). A sum of two values of a cycle of the loop's assignments grows now.
    The loop stays Python (AJ932); a traced `if` in it too (AJ918)."""
    from tests.fuzz import oracle

    src = (
        "import jax\nimport jax.numpy as jnp\n\ndef f(x, n):\n    a = 0\n    b = 1\n"
        f"    for i in range(n):\n        {step}\n        if x[0] > 0:\n"
        "            a = a + 1\n    return a + b\n"
    )
    inputs = [(f32(1.0, 2.0), np.int32(50)), (f32(-1.0, 2.0), np.int32(50))]
    out = oracle.run(src, inputs, name="f")
    assert out.kind in oracle.OK, out.report()
    assert {"AJ932", "AJ918"} & {r.split()[0] for r in out.refusals}, out.refusals


@pytest.mark.parametrize(
    "step, refused",
    [
        ("p = p * 5000000", True),
        ("for i in range(30):\n            p = p * 2", True),  # an inner loop's steps
        ("p = p * 2", False),
    ],
)
def test_a_literal_bound_keeps_an_int_in_range_only_with_the_last_step(step, refused):
    """Probe 14: `while p < 1000 ...: p = p * 5000000` from `p = 999`: the bound held `p`
    below 1000 when tested, and the last step took it to 4995000000 (jit 700032704). A bound
    counts now only where the body's steps of the name, taken at their largest from it,
    stay in int32 (`p * 2` does: converted)."""
    from tests.fuzz import oracle

    src = (
        "import jax\nimport jax.numpy as jnp\n\ndef f(x, c):\n    p = 999\n"
        f"    while p < 1000 and jnp.sum(x) > c:\n        {step}\n    return p\n"
    )
    out = oracle.run(src, [(f32(1.0, 1.0), np.float32(1.0)), (f32(1.0, 1.0), np.float32(5.0))], name="f")
    assert out.kind == ("refused" if refused else "converted"), out.report()
    if refused:
        assert "AJ932" in " ".join(out.refusals), out.refusals


def test_a_rolling_hash_modulo_a_large_prime_is_never_made_int32():
    """`h = (h * 131 + i) % 1000000007`: the modulus keeps `h` below 1e9, not `h * 131`,
    which passes 2**31 before the `%` (eager 127335291, converted 265702337). A modulus or
    `min` bound below 2**16 still keeps the value in range; a larger one no longer counts."""
    from tests.fuzz import oracle

    src = (
        "import jax\nimport jax.numpy as jnp\n\ndef f(x, n):\n    h = 7\n"
        "    for i in range(n):\n        h = (h * 131 + i) % 1000000007\n"
        "        if x[0] > 0:\n            h = h + 1\n    return h\n"
    )
    out = oracle.run(src, [(f32(1.0, 2.0), np.int32(40)), (f32(-1.0, 2.0), np.int32(40))], name="f")
    assert out.kind in oracle.OK, out.report()
    assert {"AJ932", "AJ918"} & {r.split()[0] for r in out.refusals}, out.refusals
    small = src.replace("1000000007", "1009")
    out = oracle.run(small, [(f32(1.0, 2.0), np.int32(40)), (f32(-1.0, 2.0), np.int32(40))], name="f")
    assert out.kind == "converted", out.report()


@pytest.mark.parametrize("flip", ["sign *= -1", "sign = sign * -1", "sign = -sign"])
def test_a_sign_flipped_in_place_is_no_growth(flip):
    """`sign *= -1` keeps the int in range, as `sign = sign * -1` does; the augmented form was
    read as a product that grows (AJ932: the loop stayed Python, a false refusal). It is now
    read as the binary one. The while loop converts, with the eager original's values."""
    from tests.fuzz import oracle

    src = (
        "import jax\nimport jax.numpy as jnp\n\ndef f(x):\n    sign = 1\n    acc = 0.0\n"
        f"    while acc < 10.0:\n        {flip}\n        acc = acc + jnp.abs(x[0]) + 1.0\n"
        "    return acc * sign\n"
    )
    out = oracle.run(src, [(f32(1.0, 2.0, 3.0),), (f32(-4.0, 2.0, -3.0),)], name="f")
    assert out.kind == "converted", out.report()
    doubled = src.replace(flip, "sign *= 2")
    out = oracle.run(doubled, [(f32(1.0, 2.0, 3.0),)], name="f")
    assert out.kind in oracle.OK and "AJ932" in " ".join(out.refusals), out.report()


@pytest.mark.parametrize(
    "step",
    [
        "p = p * 50000 if x[i] > 0 else p",  # a ternary
        "if x[i] > 0:\n            s = s + (p := p * 50000)",  # a walrus
        "if x[i] > 0:\n            t = p * 50000\n            p = t",  # through another name
    ],
)
def test_a_python_int_growing_by_products_through_other_forms_is_never_made_int32(step):
    """`p = p * 50000 if c else p`, `(p := p * 50000)` and `t = p * 50000; p = t` grow `p` as
    `p = p * 50000` does; they were not seen: eager 1.25e14, converted int32 -7.3e8. Now the
    loop's assignments are followed as a graph: a path from `p` back to it through a product
    grows it. The loop and the `if` stay Python (AJ932 / AJ918)."""
    from tests.fuzz import oracle

    src = (
        "import jax\nimport jax.numpy as jnp\n\ndef f(x):\n    p = 1\n    s = 0\n"
        f"    for i in range(x.shape[0]):\n        {step}\n    return p\n"
    )
    out = oracle.run(src, [(f32(1.0, 2.0, 3.0),), (f32(-1.0, 2.0, -3.0),)], name="f")
    assert out.kind in oracle.OK, out.report()
    assert {"AJ932", "AJ918"} & {r.split()[0] for r in out.refusals}, out.refusals


def test_a_while_bounded_by_another_name_does_not_bound_a_growing_int():
    """`while i < n and p > 0:` bounds `i`, not `p`: `p = p * 50000` in it wrapped in int32
    (the loop stops when the wrapped value goes negative). Only a bound from above on the
    name itself (`p < n`) keeps its products in range."""
    from tests.fuzz import oracle

    src = (
        "import jax\nimport jax.numpy as jnp\n\ndef f(x):\n    p = 1\n    i = 0\n"
        "    while i < x.shape[0] and p > 0:\n        if x[i] > 0:\n            p = p * 50000\n"
        "        i += 1\n    return p, i\n"
    )
    out = oracle.run(src, [(f32(1.0, 2.0, 3.0),), (f32(-1.0, 2.0, -3.0),)], name="f")
    assert out.kind in oracle.OK, out.report()
    assert {"AJ932", "AJ918"} & {r.split()[0] for r in out.refusals}, out.refusals


def test_an_inner_loop_updating_an_array_its_outer_loop_iterates_through_a_view_stays_python():
    """`for j in x[::-1]:` around `for m in range(n): x[i] -= 1.0`: the outer loop is refused
    (AJ932: NumPy's iteration of a view reads the updated values), but the inner loop was
    converted first, to `x = lax.fori_loop(...)`: the outer loop, left as Python, iterated an
    array that no longer changed (other values), and converting the output again converted it
    (not idempotent). The inner loop stays Python too."""
    from tests.fuzz import oracle

    src = (
        "import jax.numpy as jnp\n\ndef f(x, y, k):\n    n = x.shape[0]\n    acc = 0.0\n"
        "    for i in range(k):\n        for j in x[::-1]:\n            acc = acc + j\n"
        "            for m in range(n):\n                x[i] -= 1.0\n    return x, acc\n"
    )
    out = oracle.run(src, [(f32(1.0, 2.0, 3.0), f32(0.0, 0.0, 0.0), 2)], name="f")
    assert out.kind in oracle.OK, out.report()
    assert "fori_loop" not in out.converted, out.converted


def test_a_while_bound_near_the_end_of_int32_does_not_bound_a_growing_int():
    """`while p < 2_000_000_000 and x.sum() > 0: p = p * 1000`: the last product overshoots
    the bound by the whole factor; in int32, 1e9 * 1000 wraps below the bound and the
    converted loop never ended (eager Python gives 1e12). Left as Python (AJ932); checked on
    the text, since the wrong conversion hangs."""
    import autojit

    src = (
        "import jax.numpy as jnp\n\ndef f(x):\n    p = 1\n"
        "    while p < 2_000_000_000 and x.sum() > 0:\n        p = p * 1000\n    return x * p\n"
    )
    out = autojit.convert_source(src, "m.py", all_functions=True)
    assert "while_loop" not in out.text, out.text
    assert "AJ932" in {r.code for r in out.refusals}, out.refusals


# -- probe 15: a scalar start the loop makes an array ----------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "p = 1.0\n    for _ in range(n):\n        p = jnp.dot(p, a)\n    return p",
        "p = 1.0\n    for _ in range(n):\n        p = jnp.sum(p) + a[0]\n    return p",
        "p = 2.0\n    for _ in range(n):\n        p = a / jnp.sqrt(jnp.sum(p * p))\n    return p",
        "p, c = 1.0, 0\n    for _ in range(n):\n        p, c = jnp.dot(p, a), c + 1\n    return p, c",
    ],
)
def test_a_scalar_start_read_otherwise_than_item_by_item_is_never_filled_into_an_array(body):
    """Probe 15: `p = 1.0`, then `p = jnp.dot(p, a)` in a loop: the start was filled into the
    array shape the loop gives (`jnp.full(shape, 1.0)`), and `dot(ones, a)` is not
    `dot(1.0, a)` ([[4, 6], [4, 6]] for [[1, 2], [3, 4]]). Filling is exact only where the body
    reads the start item by item; otherwise the start keeps its shape (a scalar: exact where the
    loop keeps it one, a loud carry-type error of lax where not). Never a wrong value."""
    from tests.fuzz import oracle

    src = "import jax.numpy as jnp\n\ndef f(a, n):\n    " + body + "\n"
    a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    out = oracle.run(src, [(a, 1), (a, 2)], name="f")
    assert out.kind not in ("wrong", "decorator-wrong"), out.report()
    assert "jnp.full(" not in out.converted, out.converted


def test_a_scalar_start_read_item_by_item_is_filled_and_exact():
    """`s = 0.0; s = s + a[i]` over rows: the start read only item by item, filled into a row
    (what Python's first pass gives from the scalar, item by item)."""
    from tests.fuzz import oracle

    src = (
        "import jax.numpy as jnp\n\ndef f(a, n):\n    s = 0.0\n    for i in range(n):\n"
        "        s = s + a[i] * 2\n    return s\n"
    )
    a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    out = oracle.run(src, [(a, 1), (a, 2)], name="f")
    assert out.kind == "converted", out.report()
    assert "jnp.full(" in out.converted, out.converted


@pytest.mark.parametrize(
    "body",
    [
        # the for-else "find index" idiom
        "    for i in range(x.shape[0]):\n        if x[i] > 1.0:\n            idx = i\n"
        "            break\n    else:\n        idx = -1\n    return idx\n",
        "    for i in range(x.shape[0]):\n        if x[i] > 0:\n            z = x[i]\n    return z\n",
    ],
)
def test_a_name_first_assigned_on_some_paths_of_a_loop_body_is_refused(body):
    """Probe 15: a name first bound in a traced loop under a condition: the body's first trace
    (for the state's type) gave it no value on the other path, and the converted loop failed
    under jit (a `lax.cond` of two structures). Refused (AJ932), asking for a value before the
    loop."""
    from tests.fuzz import oracle

    src = "import jax.numpy as jnp\n\ndef f(x):\n" + body
    inputs = [(f32(0.5, 2.0, 3.0),), (f32(3.0, 0.5, -1.0),)]
    out = oracle.run(src, inputs, name="f")
    assert out.kind == "refused", out.report()
    assert any("AJ932" in r and "not on every path" in r for r in out.refusals), out.refusals


def test_zip_of_arrays_of_two_lengths_stops_at_the_shorter():
    """Probe 15: `for a, b in zip(x, x[1:])` became `lax.scan` over `(x, x[1:])`, which needs
    one length (a loud error); Python's zip stops at the shorter. Each array is cut to the
    least length (`zip_len = min(len(x), len(x[1:]))`, known when jax traces)."""
    src = """
        def f(x: jax.Array, y: jax.Array):
            s = 0.0
            for a, b in zip(x, x[1:]):
                s = s + a * b
            t = 0.0
            for i, (a, b) in enumerate(zip(x, y)):
                t = t + a * b * i
            return s, t
        """
    calls = [(f32(1, 2, 3, 4), f32(1, 2)), (f32(1, 2), f32(3, 4, 5, 6))]
    conv = check(src, "f", calls, codes=["AJ204"])
    assert "zip_len" in conv.text, conv.text


def test_bisection_in_a_for_loop_converts():
    """Probe 14: `mid = lo + (hi - lo) // 2`, then `lo = mid + 1` or `hi = mid`: `lo` stands on
    both sides of the sum, which read as Fibonacci-like growth (AJ932, a false refusal). Linear
    in `lo` and `hi` with coefficients 1/2 and 1/2, it never grows: converted."""
    src = """
        def f(x, t, n):
            lo = 0
            hi = x.shape[0]
            for _ in range(n):
                mid = lo + (hi - lo) // 2
                if x[mid] < t:
                    lo = mid + 1
                else:
                    hi = mid
            return lo
        """
    x = f32(0.5, 1.0, 2.0, 4.0, 8.0)
    calls = [(x, np.float32(t), i32(n)) for t in (0.0, 0.7, 3.0, 9.0) for n in (0, 1, 2)]
    check(src, "f", calls, codes=["AJ202"])


@pytest.mark.parametrize("step", ["c = 2 * c + 1", "c = c + c // 2 + 1", "c = 3 * (c - 1)"])
def test_a_linear_step_that_expands_is_still_refused(step):
    """`2 * c + 1`, `c + c // 2`, `3 * (c - 1)`: coefficients past 1 grow geometrically."""
    src = "import jax.numpy as jnp\n\ndef f(x, n):\n    c = 1\n    for i in range(n):\n"
    src += f"        {step}\n    return x * c\n"
    conv = autojit.convert_source(src, "m.py", all_functions=True)
    assert any(r.code == "AJ932" for r in conv.refusals), conv.text


# `while` tests that are not bool scalars (probes 18-19): `lax.while_loop` wants its cond_fun to
# return one ("cond_fun must return a boolean scalar"), where Python takes the truth of a number
# (`!= 0`) or of an array of one item (its item)
WHILE_TRUTH = {
    "int-number": (
        "def f(x):\n    n = x[0]\n    c = 0\n    while n:\n        n = n // 2\n"
        "        c = c + 1\n    return c\n",
        [(np.array([7, 1], np.int32),), (np.array([0, 1], np.int32),)],
        "return n != 0",
    ),
    "float-number": (
        "def f(x):\n    n = x[0] * 0.5\n    c = 0\n    while n:\n"
        "        n = jnp.floor(n / 2)\n        c = c + 1\n    return c\n",
        [(np.array([7, 1], np.int32),), (np.array([0, 1], np.int32),)],
        "return n != 0",
    ),
    "one-item-array": (
        "def f(x):\n    y = x[:1] * 1.0\n    while y > 0.5:\n        y = y / 2\n    return y\n",
        [(np.array([3.0, 1.0], np.float32),), (np.array([0.1], np.float32),)],
        "return jnp.reshape(y > 0.5, ())",
    ),
    "bool-stays": (
        "def f(x):\n    done = x[0] > 5\n    i = 0\n    while not done:\n        i = i + 1\n"
        "        done = x[0] + i > 5\n    return i\n",
        [(np.array([7, 1], np.int32),), (np.array([0, 1], np.int32),)],
        "return jnp.logical_not(done)",
    ),
}


@pytest.mark.parametrize("name", sorted(WHILE_TRUTH))
def test_a_while_test_is_made_a_bool_scalar_as_python_takes_its_truth(name):
    from tests.fuzz import oracle

    body, calls, expected = WHILE_TRUTH[name]
    src = "import jax.numpy as jnp\n\n\n" + body
    c = autojit.convert_source(src, "m.py", all_functions=True)
    assert expected in c.text, c.text
    out = oracle.run(src, calls, name="f", decorator=True)
    assert out.kind == "converted", out.report()


@pytest.mark.parametrize(
    "body,expected",
    [
        (
            "    y = x[:1] * 1.0\n    c = 0\n    while y > 0.5 and c < 5:\n        y = y / 2\n"
            "        c = c + 1\n    return y, c\n",
            "jnp.logical_and(jnp.reshape(y > 0.5, ()), c < 5)",
        ),
        (
            "    y = x[:1] * 0.0\n    c = 0\n    while not y:\n        y = y + 0.3\n"
            "        c = c + 1\n    return y, c\n",
            "jnp.logical_not(jnp.reshape(y, ()))",
        ),
        (
            "    y = x[:1] * 1.0\n    c = 0\n    while y > 0.5 and c < 50:\n        y = y / 2\n"
            "        c = c + 1\n        if c > 3:\n            break\n    return y, c\n",
            "jnp.logical_and(jnp.reshape(y > 0.5, ()), c < 50)",
        ),
    ],
    ids=["and", "not", "and-with-break"],
)
def test_one_item_operands_of_a_logical_while_test_are_made_scalars(body, expected):
    """`while y > 0.5 and c < 5:` of `y = x[:1]` gave `jnp.logical_and` a (1,)-shaped
    operand: lax.while_loop's cond_fun must return a scalar (probe 21)."""
    from tests.fuzz import oracle

    src = "import jax.numpy as jnp\n\n\ndef f(x):\n" + body
    c = autojit.convert_source(src, "m.py", all_functions=True)
    assert expected in c.text, c.text
    calls = [(np.array([9.0, 1.0], np.float32),), (np.array([0.2, 1.0], np.float32),)]
    out = oracle.run(src, calls, name="f", decorator=True)
    assert out.kind == "converted", out.report()


# -- probe 23 (fourteenth session) ----------------------------------------------------------


def test_a_for_else_reads_the_last_index_not_the_counter():
    """`for i in range(len(x)): ... break ... else: r = i`: the `else:` runs once the loop
    ends without a break and sees the last index; the converted loop's own counter is one past
    it (it gave len(x), not len(x) - 1)."""
    src = """
        def f(x):
            r = 0
            for i in range(len(x)):
                if x[i] > 5:
                    break
            else:
                r = i
            return r

        def g(x):
            for i in range(2, len(x)):
                if x[i] > 5:
                    break
            else:
                x = x * i
            return x
        """
    a = f32(3, -1, 4, 1, -5, 9, 2, 7)
    check(src, "f", [(a,), (a - 10,)], codes=["AJ205"])
    check(src, "g", [(f32(1, 2, 3, 9),), (f32(1, 2, 3, 4),)])


def test_a_loop_variable_bound_before_on_some_paths_is_refused_after_no_iterations():
    """A loop that runs no times leaves its variable as it was: where it may hold a value from
    before (an `if` gave it one) the traced state cannot start from "that value or unbound",
    so the loop is refused; it started from zeros (0 where Python keeps 5)."""
    conv = autojit.convert_source(
        HEADER + "def f(x, n, c):\n    if c:\n        i = 5\n    for i in range(n):\n"
        "        x = x * 2\n    return x, i\n",
        "m.py",
        all_functions=True,
    )
    assert [r.code for r in conv.refusals] == ["AJ932"], conv.refusals
    assert "fori_loop" not in conv.text and "zeros" not in conv.text, conv.text


def test_a_literal_range_loop_binds_its_variable_for_a_later_loop():
    """`for i in range(2)` surely runs: `i` is bound after it, so a later loop over a traced
    range carries `i` from there (after no iterations it keeps 1, as Python does; it was 0)."""
    conv = check(
        """
        def f(x, n):
            for i in range(2):
                x = x + 1
            for i in range(n):
                x = x * 2
            return x, i
        """,
        "f",
        [(f32(3, -1, 4), i32(0)), (f32(3, -1, 4), i32(3))],
        codes=["AJ202"],
    )
    assert "zeros" not in conv.text, conv.text


def test_a_count_used_as_a_later_bound_is_kept_python_on_every_pass():
    """`n` counted by a loop bounds a later `range(n)`: that loop becomes `fori_loop(0, n,
    ...)`, whose bounds want Python ints as `range()`'s do, so the counting loop is left as
    Python on the second pass too (it converted there: not idempotent)."""
    conv = check(
        """
        def f(x):
            n = 0
            for i in range(20):
                x = x + 1
                n = n + 1
            for j in range(n):
                x = x * 1.01
            return x
        """,
        "f",
        [(f32(3, -1, 4),)],
    )
    assert conv.text.count("fori_loop") == 1, conv.text


def test_a_loop_indexing_a_parameter_says_how_to_make_it_an_array():
    """`for i in range(len(x)): t = t + x[i]` with `x` a parameter: a Python list needs a Python
    int index, so the loop stays Python; the refusal said only "a list index" among five uses
    (probe 23). It names `x` now, and its advice converts the loop."""
    conv, _, _ = _convert(
        """
        def f(x):
            t = 0.0
            for i in range(len(x)):
                t = t + x[i] * i
            return t
        """
    )
    (r,) = [r for r in conv.refusals if r.code == "AJ934"]
    assert "`x = jnp.asarray(x)` before the loop" in r.reason, r.reason
    check(
        """
        def f(x):
            x = jnp.asarray(x)
            t = 0.0
            for i in range(len(x)):
                t = t + x[i] * i
            return t
        """,
        "f",
        [(f32(1, 2, 3),), (f32(5),)],
        codes=["AJ203"],
        exact_dtype=False,
    )


@pytest.mark.parametrize(
    "loop",
    [
        "k = 0\n    while x[0] + k < 3:\n        r = x * 0.5\n        k += 1\n",
        "for k in range(n):\n        r = x * 0.5 + k\n",
        "for k in range(3):\n        if x[k] > 2:\n            r = x * 0.5\n            break\n",
        "for k in range(n):\n        r += 0.5\n",
    ],
)
def test_an_int_array_the_loop_may_make_floats_is_left_as_python(loop):
    """`r` enters a traced loop as an int32 array and the loop gives it floats on some path:
    the converted loop started from `r` promoted to float32, so where the loop runs no times
    (or takes no `break`) the ints came back float32, 16777217 as 16777216.0 (silent). Left
    as Python now (AJ932). A loop that surely runs and always rebinds it still converts."""
    from tests.fuzz import oracle

    head = "import jax.numpy as jnp\n\ndef f(x, n):\n    r = jnp.floor(x * 16777217.0).astype(jnp.int32)\n    "
    calls = [
        (np.array([5.0, 2.0, 3.0], np.float32), 0),
        (np.array([-1.0, 2.0, 3.0], np.float32), 2),
        (np.array([3.0, -2.0, 1.0], np.float32), 1),
    ]
    out = oracle.run(head + loop + "    return r\n", calls, name="f")
    assert out.kind in oracle.OK and "AJ932" in " ".join(out.refusals), out.report()
    # (run here on jax arrays: the oracle plays `jnp` with NumPy, whose int32 * 0.5 is float64)
    always = head + "for k in range(20):\n        r = r * 0.5 + x\n    return r\n"
    c, original, converted = _convert(always)
    assert "fori_loop" in c.text and not c.functions[0].refusals, c.text
    for x, n in calls:
        _same(original["f"](jnp.asarray(x), n), jax.jit(converted["f"])(x, n))


def test_a_python_int_start_past_float32s_ints_that_the_loop_may_make_a_float_is_kept():
    """`r = 16777217`, then `r = x[i] * 0.5` in a `while` that may run no times: jax's loop
    promotes the weakly typed start to the body's float32, 16777216.0 where Python returns the
    int (silent; probe A). Left as Python (AJ932). A start float32 holds exactly (`r = 0`)
    still converts: the same value, as a float (README)."""
    from tests.fuzz import oracle

    src = (
        "import jax.numpy as jnp\n\ndef f(x):\n    r = {start}\n    i = 0\n"
        "    while i < 4 and x[i] < 0:\n        r = x[i] * 0.5\n        i += 1\n    return r\n"
    )
    calls = [(np.array([1.0, -2.0, -3.0, 4.0], np.float32),), (-np.ones(4, np.float32),)]
    out = oracle.run(src.format(start=16777217), calls, name="f")
    assert out.kind in oracle.OK and "AJ932" in " ".join(out.refusals), out.report()
    c, _, _ = _convert(src.format(start=0))
    assert "while_loop" in c.text and not c.functions[0].refusals, c.text


@pytest.mark.parametrize(
    "body",
    [
        "    best = None\n    for i in range(x.shape[0]):\n        if best is None:\n"
        "            best = x[i]\n        else:\n            best = jnp.maximum(best, x[i])\n"
        "    return best\n",
        "    y = None\n    for i in range(n):\n        y = x[i]\n    return y\n",
    ],
)
def test_a_loop_state_starting_as_none_is_left_as_python(body):
    """`best = None` before a loop that gives it a value: the converted loop filled `None` into
    the state's type (`jnp.full(t.shape, None, ...)`: a TypeError under jit, no refusal; probe
    C). A traced loop's state has one type from the start: left as Python (AJ932)."""
    from tests.fuzz import oracle

    src = "import jax.numpy as jnp\n\n\ndef f(x, n):\n" + body
    out = oracle.run(src, [(np.array([1.0, -2.0, 3.0, 0.5], np.float32), 3)], name="f")
    assert out.kind in oracle.OK and "AJ932" in " ".join(out.refusals), out.report()
    assert "fori_loop" not in out.converted


@pytest.mark.parametrize("bound", ["x.shape[0]", "n"])
def test_a_scalar_array_state_the_body_makes_a_row_gets_the_bodys_shape(bound):
    """`acc = jnp.zeros(())` plus the rows of a 2-D `x`: the `fori_loop` carried the scalar,
    and lax rejected the body's row ("carry input and carry output must have equal types"),
    where the original ran under plain `jax.jit` (probe C). A scalar array start is given the
    body's shape and dtype, as a Python number's is (`jnp.zeros(())` is known to be one number
    now); a 1-D `x` keeps it a scalar."""
    from tests.fuzz import oracle

    src = (
        "import jax.numpy as jnp\n\n\ndef f(x, n):\n    acc = jnp.zeros(())\n"
        f"    for i in range({bound}):\n        acc = acc + x[i]\n    return acc\n"
    )
    for x in (np.arange(12, dtype=np.float32).reshape(3, 4), np.arange(4, dtype=np.float32)):
        out = oracle.run(src, [(x, 3)], name="f", decorator=True)
        assert out.kind == "converted" and "fori_loop" in out.converted, out.report()


@pytest.mark.parametrize(
    "prelude, call",
    [
        ("add = out.append", "add(1)"),
        ("add = lambda v: out.append(v)", "add(1)"),
        ("pass", "getattr(out, 'append')(1)"),
        ("pass", "log.append(1)"),  # (a parameter: the analysis took it for traced)
    ],
)
def test_a_call_whose_result_is_dropped_keeps_its_loop_python(prelude, call):
    """Probe K, S7: a body calling something for its effect (an alias of `out.append`, a list
    parameter's `append`) became a fori_loop body, traced once: the effect happened once for 20
    iterations, silently. Left as Python now (AJ931 / AJ935), which jax unrolls."""
    src = f"""
    def f(x, log):
        out = []
        {prelude}
        s = x[0]
        for i in range(20):
            s = s * 1.5
            {call}
        return s, len(out) + len(log)
    """
    conv, orig_ns, conv_ns = _convert(src)
    assert "fori_loop" not in conv.text
    assert {r.code for r in conv.refusals} & {"AJ931", "AJ935"}
    _same(orig_ns["f"](f32(1.0, 2.0), []), jax.jit(conv_ns["f"], static_argnames=())(
        f32(1.0, 2.0), []
    ))


def test_a_module_def_of_range_is_not_pythons_range():
    """Probe K, S3: `def range(n)` at module level (a `def`, not an assignment) was read as
    Python's: the loop over its items became `fori_loop(0, 20, ...)`."""
    src = """
    def range(n):
        return [0, 1]

    def f(x):
        s = x[0]
        for i in range(20):
            s = s * 2.0
        return s
    """
    conv, orig_ns, conv_ns = _convert(src)
    assert "fori_loop" not in conv.text
    _same(orig_ns["f"](f32(1.0)), jax.jit(conv_ns["f"])(f32(1.0)))


def test_a_print_of_python_values_in_a_converted_loop_runs_at_each_iteration():
    """Probe K, S5: `print("step")` (Python values only) stayed Python's in the fori_loop body:
    it printed once, while tracing, for 20 iterations. And a text holding braces (`"{}"`)
    printed `{{}} {} 1.0`: jax formats nothing where its format starts with an escaped
    brace."""
    conv, orig_ns, conv_ns = _convert(
        """
        def f(x):
            s = x[0]
            for i in range(20):
                s = s + 1.0
                print("step {i}", "now:", s)
            return s
        """
    )
    assert "fori_loop" in conv.text and "jax.debug.print('{} now: {}', 'step {i}', s)" in (
        conv.text.replace('"', "'")
    )
    want = stdout_of(orig_ns["f"], f32(1.0))
    assert stdout_of(jax.jit(conv_ns["f"]), f32(1.0)) == want
    assert want.count("\n") == 20 and want.startswith("step {i} now: 2.0\n")


def test_a_def_in_the_loop_body_read_after_the_loop_keeps_the_loop_python():
    """Probe K, S2: `def g` in a converted loop body bound the body function's own `g`: the
    `g` read after the loop was the one defined before it (7.73 eager, 0.0 converted)."""
    src = """
    def f(x):
        s = x[0]
        def g(v):
            return v * 0
        for i in range(20):
            s = s * 2.0
            def g(v):
                return v + 1
        return g(s)
    """
    conv, orig_ns, conv_ns = _convert(src)
    assert "fori_loop" not in conv.text and "AJ931" in {r.code for r in conv.refusals}
    _same(orig_ns["f"](f32(1.0)), jax.jit(conv_ns["f"])(f32(1.0)))
    # (a helper defined and used inside the body only converts)
    check(
        """
        def h(x):
            s = x[0]
            for i in range(20):
                def step(v):
                    return v * 2.0
                s = step(s)
            return s
        """,
        "h",
        [(f32(1.0),)],
        codes=["AJ203"],
    )


# a module class whose `step` changes its object and whose `scale` changes nothing
COUNTER_CLASS = textwrap.dedent(
    """
    class Counter:
        def __init__(self):
            self.n = 0

        def step(self, v):
            self.n += 1
            return v * 1.5

        def scale(self, v):
            return v * 2.0
    """
)


def test_a_method_that_changes_its_object_keeps_its_loop_python():
    """Probe K, S7: `s = c.step(s)` with a `step` that counts calls (`self.n += 1`): the
    fori_loop body was traced once, so `c.n` came back 1 for 20 iterations."""
    src = COUNTER_CLASS + textwrap.dedent(
        """
    def f(x):
        c = Counter()
        s = x[0]
        for i in range(20):
            s = c.step(s)
        return s, c.n

    def g(x):
        c = Counter()
        s = x[0]
        for i in range(20):
            s = c.scale(s)
        return s
    """
    )
    conv, orig_ns, conv_ns = _convert(src)
    assert "fori_loop" not in conv.function("f").new_text
    assert "AJ931" in {r.code for r in conv.function("f").refusals}
    assert "fori_loop" in conv.function("g").new_text  # (a method that changes nothing)
    _same(orig_ns["f"](f32(1.0)), jax.jit(conv_ns["f"])(f32(1.0)))


def test_a_python_number_carried_by_a_converted_loop_stays_weakly_typed():
    """Probe I, S1: a Python number that a converted loop carries came back a strong jax
    value, which widened the arrays it met after the loop: `y * k` of an int8 `y` gave int32
    (300 where eager int8 wraps to 44), and a float16 `y + t` gave float32 (2049 where eager
    float16 gives 2048). The loop-state glue keeps a weak type weak (`k_type.weak_type`), and a
    Python int the body makes a float starts as a float (`float(t)`)."""
    counted = check(
        """
        def f(x, y):
            k = 0
            for i in range(x.shape[0]):
                for j in range(x.shape[0]):
                    if x[i] > x[j]:
                        k = k + 1
            return y * k
        """,
        "f",
        [(f32(1.0, 5.0, 3.0), np.array([100, 1], np.int8))],
    )
    assert "weak_type" in counted.text
    check(
        """
        def g(x, y):
            t = 0
            while t < x[0]:
                t = t + 0.5
            return y.astype(jnp.float16) + t
        """,
        "g",
        [(f32(1.0), np.array([2048.0, 1.0], np.float16)), (f32(0.0), np.array([3.0], np.float16))],
    )


def test_a_python_int_a_loop_may_leave_an_int_is_refused_where_reads_tell_int_from_float():
    """Seventeenth round, open gap (silent): `t = 0; while t < x[0]: t = t + 0.5` started the
    traced loop as `float(t)`, but where it runs no times Python keeps the int 0, and `y * t`
    of an int8 `y` stays int8 (the converted loop gave float32). Left as Python where a read
    of `t` tells an int from a float (AJ932); converted where every read is a comparison or
    arithmetic with a float (`y.astype(jnp.float16) + t` above)."""
    src = """
    def f(x, y):
        t = 0
        while t < x[0]:
            t = t + 0.5
        return y * t

    def g(x, n):
        t = 0
        for i in range(n):
            t += 0.5
        return t

    def h(x, y):
        t, s = 0, 0
        while t < x[0]:
            t, s = t + 0.5, s + 1
        return y * s, y + t
    """
    conv, orig_ns, conv_ns = _convert(src)
    for name in ("f", "g", "h"):
        assert "while_loop" not in conv.function(name).new_text
        assert "fori_loop" not in conv.function(name).new_text
        assert "AJ932" in {r.code for r in conv.function(name).refusals}
    want = orig_ns["f"](f32(0.0), np.array([3, 4], np.int8))
    assert want.dtype == np.int8
    # (a tuple assigned item by item is followed as its items are: `t` starts as a float
    # where every read of it gives an int and a float alike)
    check(
        """
        def k(x, y):
            t, s = 0, 0
            while t < x[0]:
                t, s = t + 0.5, s + 1
            return y * s, y.astype(jnp.float16) + t
        """,
        "k",
        [(f32(1.0), np.array([2048.0, 1.0], np.float16)), (f32(0.0), np.array([3], np.int8))],
    )


def test_locals_in_a_loop_body_keeps_the_loop_python():
    """Probe K, S10: `locals()` in a fori_loop body read the body function's names."""
    src = """
    def f(x):
        scale = 2.0
        s = x[0]
        for i in range(20):
            s = s * locals().get("scale", 1.0)
        return s
    """
    conv, orig_ns, conv_ns = _convert(src)
    assert "fori_loop" not in conv.text and "AJ931" in {r.code for r in conv.refusals}
    _same(orig_ns["f"](f32(1.0)), jax.jit(conv_ns["f"])(f32(1.0)))


def test_the_return_after_a_loop_is_computed_after_it_where_it_has_a_singularity():
    """Probe J, S2: `for v in y: if v == 0: return x * 0.0` then `return (x / y).sum()`: the
    return after the loop was carried as the result from the start, so computed before the
    loop, where the `return` in it guarded the division in Python: the gradient was NaN where
    the original's is 0. It is computed after the loop now, where no `return` ran."""
    conv, orig_ns, conv_ns = _convert(
        """
        def f(x, y):
            for v in y:
                if v == 0:
                    return x * 0.0
            return (x / y).sum()
        """
    )
    assert "lax.scan" in conv.text or "lax.fori_loop" in conv.text or "while_loop" in conv.text
    for y in (f32(1.0, 0.0, 2.0), f32(1.0, 4.0, 2.0)):
        x = np.float32(3.0)
        _same(orig_ns["f"](x, y), jax.jit(conv_ns["f"])(x, y))
        want = jax.grad(orig_ns["f"])(x, y)
        got = jax.jit(jax.grad(conv_ns["f"]))(x, y)
        _same(want, got)


@pytest.mark.parametrize(
    "effect", ["[log.append(1) for _ in range(1)]", "(log.append(1), None)", "k = (log.append(1), 1)[1]"]
)
def test_a_change_of_a_list_inside_an_expression_keeps_the_loop_python(effect):
    """Seventeenth round, open gap (silent): `[log.append(v) for ...]` or `(log.append(v),
    None)` in a loop body became a `fori_loop` body traced once: `len(log)` was 1 where the
    loop ran 3 times. Left as Python now (AJ935)."""
    conv, orig_ns, conv_ns = _convert(
        f"""
        def f(x, n):
            log = []
            s = x[0]
            for i in range(n):
                s = s * 1.5
                {effect}
            return s, len(log)
        """
    )
    assert "fori_loop" not in conv.text and "AJ935" in {r.code for r in conv.refusals}
    assert orig_ns["f"](f32(1.0), 3)[1] == 3


def test_a_changing_method_of_an_object_made_elsewhere_keeps_the_loop_python():
    """Seventeenth round, open gap (silent): `s = c.step(s)` in a loop, where `c` is a
    parameter or a module-level instance and the module's `Counter.step` does `self.n += 1`,
    became a `fori_loop` body traced once: `c.n` grew by 1 where Python's grows by 20. The
    object's class is not known there, so a method of that name of any module class that
    changes its object is taken for it (AJ931); a method that changes nothing converts."""
    src = COUNTER_CLASS + textwrap.dedent(
        """
    C = Counter()

    def f(x, c):
        s = x[0]
        for i in range(20):
            s = c.step(s)
        return s

    def g(x):
        s = x[0]
        for i in range(20):
            s = C.step(s)
        return s

    def k(x, c):
        s = x[0]
        for i in range(20):
            s = c.scale(s)
        return s
    """
    )
    conv, orig_ns, conv_ns = _convert(src)
    for name in ("f", "g"):
        assert "fori_loop" not in conv.function(name).new_text
        assert "AJ931" in {r.code for r in conv.function(name).refusals}
    assert "fori_loop" in conv.function("k").new_text
    c = orig_ns["Counter"]()
    orig_ns["f"](f32(1.0), c)
    assert c.n == 20
    # (the converted loop of a method that changes nothing gives what Python's gives)
    _same(orig_ns["k"](f32(1.0), orig_ns["C"]), conv_ns["k"](f32(1.0), conv_ns["C"]))


@pytest.mark.parametrize(
    "loop, read, refused",
    [
        ("while k < t:\n        k = k + x[1]", "return y * k", True),
        ("while k < t:\n        k = k + x[1]", "return y * (k * 0.5)", True),
        ("while k < t:\n        k = k + x[1]", "return k", False),  # (an array either way)
        ("while k < t:\n        k = k + x[1]", "return y, k > 4.0", False),
    ],
)
def test_a_python_number_a_loop_that_may_not_run_makes_an_array_is_refused_where_read_by_dtype(
    loop, read, refused
):
    """`k = 2.0`, then `while k < t: k = k + x[1]` (float32), then `y * k` of a float16 `y`:
    where the loop runs no times Python keeps the number, which takes `y`'s dtype (float16),
    and the traced loop carried float32 on every path (silent). Refused (AJ932) where a read
    after the loop gives the two other dtypes; converted where it does not (`return k`)."""
    from tests.fuzz import oracle

    src = f"import jax.numpy as jnp\n\n\ndef f(x, y, t):\n    k = 2.0\n    {loop}\n    {read}\n"
    x = np.array([1.0, 3.0, 5.0], np.float32)
    y = np.array([1.0, 2.0, 3.0], np.float16)
    out = oracle.run(src, [(x, y, np.float32(-1.0)), (x, y, np.float32(9.0))], name="f")
    if refused:
        assert out.kind in oracle.OK, out.report()
        assert any(
            r.startswith("AJ932") and "a Python number that the loop makes an array" in r
            for r in out.refusals
        ), out.refusals
    else:
        assert out.kind == "converted", out.report()


@pytest.mark.parametrize(
    "start, body",
    [
        ("t = jnp.max(y)", "t = y[i] * 1.5"),  # (soak 29002: bools in, floats out)
        ("t = jnp.sum(y)", "t = t + y[i] * 0.5"),
        ("t = y[0]", "t = jnp.sin(y[i])"),
    ],
)
def test_an_array_start_of_a_loop_that_may_run_no_times_keeps_its_dtype(start, body):
    """An array of unknown dtype enters a `while` (a traced count) whose body makes it float32:
    the converted loop started from it widened to float32, so on bool or int data where the
    loop runs no times the result came back float32 where eager Python keeps the bools or ints
    (silent; the float32 fuzz corpus never showed it). The start keeps its dtype now: float32
    data converts and matches on every path, bool/int data fails loudly in lax (a carry of two
    types) where the body changes it, never a silently other dtype."""
    src = f"""
        def f(x, y, a):
            {start}
            i = 0
            while i < x.shape[0] and x[i] > a:
                {body}
                i += 1
            return t
        """
    conv, orig_ns, conv_ns = _convert(src)
    assert "while_loop" in conv.text, conv.text
    fn = jax.jit(conv_ns["f"])
    x = jnp.asarray([1.0, 2.0, 3.0], jnp.float32)
    for y in (
        jnp.asarray([0.25, 0.5, 2.0], jnp.float32),
        jnp.asarray([1, 0, 1], jnp.int32),
        jnp.asarray([True, False, True]),
    ):
        for a in (jnp.float32(5.0), jnp.float32(1.5), jnp.float32(0.0)):  # 0, 1 and 3 trips
            expected = orig_ns["f"](x, y, a)
            try:
                got = fn(x, y, a)
            except TypeError as exc:  # loud: lax's carry of two types
                assert y.dtype != jnp.float32 and "carry" in str(exc), exc
                continue
            _same(expected, got)


@pytest.mark.parametrize(
    "update",
    [
        "x = x[1:]",
        "x = x[:-1] * 0.5 + a",
        "x = jnp.append(x, a)",
        "x = jnp.concatenate([x, x[:1]])",
        "x = x[None]",
        "x, y = x[::2], y",
    ],
)
def test_a_loop_whose_state_changes_shape_stays_python(update):
    """Soak round 31 (hand-written): `x = x[1:]` / `x = jnp.append(x, a)` in a loop became a
    fori_loop carrying `x`, and jit failed with lax's "carry input and carry output must have
    equal types" and no rule code. Refused now (AJ937); a static range stays Python, which jax
    unrolls: the same values as eager Python."""
    src = f"""
        def f(x, y, a):
            for i in range(20):
                {update}
            return x, y
        """
    conv, orig_ns, conv_ns = _convert(src)
    assert "AJ937" in {r.code for r in conv.refusals}, conv.refusals
    assert "fori_loop" not in conv.text, conv.text
    x, y = f32(1.0, 2.0, 3.0), f32(0.5, 0.25, 1.0)
    if "[1:]" in update or "[::2]" in update or "[:-1]" in update:
        x = np.arange(40, dtype=np.float32)
    a = np.float32(0.5)
    _same(orig_ns["f"](x, y, a), jax.jit(conv_ns["f"])(x, y, a))


def test_a_traced_loop_whose_state_changes_shape_is_refused_with_a_code():
    """A traced trip count (`range(k)`) cannot stay Python under jit either: the refusal names
    the line (AJ937) instead of lax's carry-type error."""
    conv, _orig, _conv = _convert(
        """
        def f(x, k):
            for i in range(k):
                x = x[1:]
            return x
        """
    )
    refused = [r for r in conv.refusals if r.code == "AJ937"]
    assert refused and refused[0].location.line == 8, conv.refusals


@pytest.mark.parametrize(
    "update", ["x = x[::-1] * 0.5", "x = x[:, ::-1]", "x = x[...] + a", "x = x - x[0] * 0.5"]
)
def test_a_loop_whose_state_keeps_its_shape_is_converted(update):
    """Whole-axis slices keep the shape: the loop is still converted, and matches."""
    src = f"""
        def f(x, a):
            for i in range(20):
                {update}
            return x
        """
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    conv = check(src, "f", [(x, np.float32(0.5))], codes=("AJ203",))
    assert not [r for r in conv.refusals if r.code == "AJ937"]


@pytest.mark.parametrize("loop", ["for i in range(3):", "while i < 3:"])
def test_a_short_static_loop_with_a_traced_continue_is_converted(loop):
    """Round 31 (hand-written): a `continue` under a traced condition in a short static loop
    (`range(3)`, or `while i < 3` on a Python counter) was refused (AJ914: the loop stays
    Python, and Python cannot branch on the traced condition), where the same loop with a
    `break` was converted. A traced `continue` is an exit that needs the loop converted too:
    the loop becomes a fori_loop / while_loop with the `continue` lowered to a guard."""
    step = "i += 1" if loop.startswith("while") else "pass"
    src = f"""
        def f(x, a):
            s = jnp.float32(0.0)
            i = 0
            {loop}
                {step}
                if x[i - 1] < a:
                    continue
                s += x[i - 1]
            return s
        """
    calls = [(f32(1.0, -2.0, 3.0), np.float32(a)) for a in (-5.0, 0.0, 2.0, 5.0)]
    conv = check(src, "f", calls, codes=("AJ205",))
    assert not [r for r in conv.refusals if r.code == "AJ914"], conv.refusals


def test_a_while_whose_counter_stops_at_a_traced_continue_stays_python():
    """`while i < n:` whose `i += 1` comes after a traced `continue`: where the condition holds,
    Python loops forever, and a converted loop would hang inside XLA, where nothing
    interrupts it; the loop stays Python and the `continue` is reported (AJ914)."""
    conv, _orig, _conv = _convert(
        """
        def f(x, a):
            i = 0
            s = 0.0
            while i < 3:
                if x[i] > a:
                    continue
                s += x[i]
                i += 1
            return s
        """
    )
    assert "while_loop" not in conv.text, conv.text
    assert "AJ914" in {r.code for r in conv.refusals}, conv.refusals
