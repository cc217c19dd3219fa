"""AJ3xx array updates: the original run eagerly on NumPy arrays (NumPy's in-place meaning)
against the converted function under `jax.jit`, comparing values, shapes and dtypes.
"""

from __future__ import annotations

import numpy as np
import pytest
from differential import assert_same, check, convert, load, run_eager, run_jitted
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

F32 = np.float32
I32 = np.int32


def arange(*shape, dtype=F32):
    return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape) + 1


HEADER = "import jax\nimport jax.numpy as jnp\n\n\n"

# (name, source of `f`, expected codes, calls)
FORMS = [
    (
        "int",
        "def f(x, v):\n    x[2] = v\n    return x\n",
        ["AJ301"],
        [((arange(5), F32(9)), {}), ((arange(3, 2), F32(-1)), {})],
    ),
    (
        "target-in-parentheses",
        "def f(x, v):\n    (x[2]) = v\n    (x[0]) += v\n    return x\n",
        ["AJ301", "AJ302"],
        [((arange(5), F32(9)), {})],
    ),
    (
        "annotated",  # (an item's annotation is never evaluated in a function: a plain update)
        "def f(x, v):\n    x[2]: float = v\n    x[x > 3]: float = 0.0\n"
        "    for k in range(20):\n        x[k % 3]: jnp.ndarray = v * k\n    return x\n",
        ["AJ301", "AJ303"],
        [((arange(6), F32(9)), {}), ((arange(4, 2), F32(-1)), {})],
    ),
    (
        "slice-from-a-parameter",  # (the start of x[i:i + 2] is inferred static: jax needs it)
        "def f(x, i, v):\n    x[i:i + 2] = v\n    x[i:i + 1] += v\n    return x\n",
        ["AJ301", "AJ302"],
        [((arange(6), 1, F32(9)), {}), ((arange(6), 4, F32(-1)), {})],
    ),
    (
        "negative-int",
        "def f(x, v):\n    x[-1] = v\n    x[-2] += v\n    return x\n",
        ["AJ301", "AJ302"],
        [((arange(4), F32(2.5)), {}), ((arange(2, 3), np.ones(3, F32)), {})],
    ),
    (
        "traced-int-index",
        "def f(x, i, v):\n    x[i] = v\n    return x\n",
        ["AJ304"],
        [
            ((arange(5), 1, F32(7)), {}),
            ((arange(5), -2, F32(7)), {}),
            ((arange(5), I32(4), F32(0)), {}),
        ],
    ),
    (
        "slice",
        "def f(x, v):\n    x[1:3] = v\n    x[::2] *= 2.0\n    x[:-1] += 1.0\n    return x\n",
        ["AJ301", "AJ302"],
        [((arange(6), F32(0)), {}), ((arange(6), np.array([5, 6], F32)), {})],
    ),
    (
        "tuple",
        "def f(x, v):\n    x[0, 1] = v\n    x[1:, 0] = -v\n    x[2, :] += v\n    return x\n",
        ["AJ301", "AJ302"],
        [((arange(3, 4), F32(3)), {})],
    ),
    (
        "ellipsis-none",
        "def f(x):\n    x[..., 0] = 1.0\n    x[None, 1] = 2.0\n    x[..., None, -1] *= 3.0\n    return x\n",
        ["AJ301", "AJ302"],
        [((arange(2, 3),), {}), ((arange(2, 2, 3),), {})],
    ),
    (
        "int-array-duplicates",
        "def f(x):\n    idx = jnp.array([0, 0, 2], dtype=jnp.int32)\n    x[idx] += 1.0\n"
        "    x[idx] *= 2.0\n    return x\n",
        ["AJ302"],
        [((arange(4),), {})],
    ),
    (
        "int-list-duplicates",
        "def f(x):\n    x[[1, 1, 3]] += 10.0\n    x[[0, 2]] = -1.0\n    return x\n",
        ["AJ301", "AJ302"],
        [((arange(4),), {}), ((arange(5, 2),), {})],
    ),
    (
        "chained-int",
        "def f(x, j, v):\n    x[1][j] = v\n    x[0][2] += v\n    return x\n",
        ["AJ302"],
        [((arange(3, 4), 0, F32(5)), {}), ((arange(2, 3), -1, F32(-5)), {})],
    ),
    (
        "dtype-change-float-into-int",
        "def f(x, m):\n    x[0] = 2.7\n    x[1] = -2.7\n    x[2] += 1.5\n    x[3] *= 2.5\n"
        "    x[4] /= 2\n    x[x > 100] = 0.9\n    return x\n",
        ["AJ301", "AJ302", "AJ303"],
        [((np.array([1, 2, -3, 3, 7, 200], I32), None), {})],
    ),
    (
        "mask-same-shape",
        "def f(x, t):\n    x[x > t] = 0.0\n    x[x < 0] *= -1.0\n    return x\n",
        ["AJ303"],
        [((np.array([-2, 5, 1, 9], F32), F32(3)), {}), ((arange(2, 3) - 3, F32(1)), {})],
    ),
    (
        "mask-leading-axes",
        "def f(x):\n    rows = x.sum(axis=-1) > 4\n    x[rows] = 0.0\n    x[rows] += 1.0\n"
        "    return x\n",
        ["AJ303"],
        [((arange(3, 2),), {}), ((arange(2, 2, 2),), {})],
    ),
    (
        "mask-inf-nan",
        "def f(x):\n    x[jnp.isinf(x)] = 0.0\n    return x\n",
        ["AJ303"],
        [((np.array([np.inf, -np.inf, np.nan, 1.0], F32),), {})],
    ),
    (
        "mask-value-from-same-mask",
        "def f(x, y):\n    m = x > 2\n    x[m] = y[m]\n    return x\n",
        ["AJ303"],
        [((arange(5), -arange(5)), {})],
    ),
    (
        "user-at-mask",
        "def f(x):\n    m = x > 3\n    x = x.at[m].set(-100.0)\n    y = x.at[x < 0].add(1.0)\n"
        "    return y\n",
        ["AJ303"],
        [((arange(6),), {}), ((arange(2, 3),), {})],
    ),
    (
        "ambiguous-index",
        "def f(x, idx):\n    x[idx] = 0.0\n    x[idx] += 2.0\n    return x\n",
        ["AJ304"],
        [
            ((arange(5), np.array([True, False, True, False, False])), {}),
            ((arange(5), np.array([4, 1], I32)), {}),
            ((arange(5), np.array([1, 1], I32)), {}),
            ((arange(3, 2), np.array([True, False, True])), {}),
            ((arange(3, 2), np.array([[True, False], [False, True], [True, True]])), {}),
            ((arange(3, 2), 2), {}),
        ],
    ),
    (
        "ambiguous-user-at",
        "def mask_tensor(x, mask):\n    x = x.at[mask].set(-100.0)\n    return x\n",
        ["AJ304"],
        [
            ((arange(4, 4), arange(4, 4) % 3 == 0), {}),
            ((arange(4, 4), np.array([0, 2], I32)), {}),
        ],
    ),
    (
        "in-loop-and-branch",
        "def f(x, n):\n    for k in range(3):\n        x[k] += 1.0\n    if x.ndim == 1:\n"
        "        x[-1] = 0.0\n    return x\n",
        ["AJ302", "AJ301"],
        [((arange(5), 1), {})],
    ),
    (
        "kept-operand-precedence",
        "def f(x, a, b):\n    x[0] -= (a) - (b)\n    x[1] /= (a) * (b)\n    x[-1] %= a + b\n"
        "    return x\n",
        ["AJ302"],
        [((arange(4), F32(5), F32(2)), {})],
    ),
    (
        "local-array",
        "def f(x):\n    out = jnp.zeros(x.shape)\n    out[0] = x[1]\n    out[1:] = x[:-1] * 2\n"
        "    return out\n",
        ["AJ301"],
        [((arange(4),), {})],
    ),
]

AUG_FLOAT = ["+", "-", "*", "/", "**", "//", "%"]
AUG_INT = ["+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>", "**"]


@pytest.mark.parametrize("name,body,codes,calls", FORMS, ids=[f[0] for f in FORMS])
def test_form_keeps_numpy_meaning(name, body, codes, calls):
    fname = "mask_tensor" if "mask_tensor" in body else "f"
    check(HEADER + body, fname, calls, expect_codes=codes)


@pytest.mark.parametrize("op", AUG_FLOAT)
def test_every_float_augmented_operator(op):
    body = f"def f(x, v):\n    x[1] {op}= v\n    x[2:] {op}= 2.0\n    return x\n"
    check(HEADER + body, "f", [((arange(4), F32(1.5)), {})], expect_codes=["AJ302"])


@pytest.mark.parametrize("op", AUG_INT)
def test_every_int_augmented_operator(op):
    body = (
        f"def f(x, v):\n    x[1] {op}= v\n    x[2:] {op}= 2\n    x[[0, 0]] {op}= 1\n    return x\n"
    )
    x = np.array([5, 6, 7, 12], I32)
    check(HEADER + body, "f", [((x, I32(3)), {})], expect_codes=["AJ302"])


def test_bool_array_or_update():
    body = "def f(b):\n    b[0] |= True\n    b[1] &= False\n    b[2:] ^= True\n    return b\n"
    check(HEADER + body, "f", [((np.array([False, True, True, False]),), {})])


def test_duplicate_positions_add_once_like_numpy():
    body = "def f(x, idx):\n    idx = jnp.asarray(idx, dtype=jnp.int32)\n    x[idx] += 1.0\n    return x\n"
    c = check(
        HEADER + body,
        "f",
        [((np.zeros(3, F32), np.array([0, 0, 0, 2], I32)), {})],
        expect_codes=["AJ302"],
    )
    assert ".add(" not in c.text  # .at[].add would count position 0 three times


def test_mixed_mask_in_tuple_is_refused():
    body = "def f(x):\n    m = x[:, 0] > 2\n    x[m, 0] = 0.0\n    return x\n"
    c = convert(HEADER + body)
    assert not c.changed and [r.code for r in c.refusals] == ["AJ903"]


# -- hypothesis: shapes, indices and values -----------------------------------------------------

_INT_SRC = HEADER + "def f(x, i, v):\n    x[i] = v\n    x[i] *= 2.0\n    return x\n"
# a mask update needs a value known to be a scalar: the values are written into the source
_MASK_SRC = HEADER + "def f(x, t):\n    x[x > t] = {v}\n    x[x < -t] -= {v}\n    return x\n"
_AMBIG_SRC = HEADER + "def f(x, m):\n    x[m] = {v}\n    x[m] += {v}\n    return x\n"
_ROWMASK_SRC = (
    HEADER
    + "def f(x):\n    rows = x[..., 0] > 0\n    x[rows] = {v}\n    x[rows] *= 3.0\n    return x\n"
)


def _lit(v: float) -> str:
    return repr(float(np.float32(v)))


_compiled: dict[str, tuple] = {}


def _get(src: str, name: str = "f"):
    if src not in _compiled:
        c = convert(src)
        assert c.changes and not c.refusals, (c.changes, c.refusals, c.text)
        _compiled[src] = (load(src)[name], load(c.text)[name], c.function(name).static_argnames)
    return _compiled[src]


def _same(src: str, *args) -> None:
    original, converted, statics = _get(src)
    assert_same(run_eager(original, args), run_jitted(converted, statics, args))


shapes = st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple)
# XLA on CPU flushes subnormals to zero, NumPy does not: keep them out
finite = st.floats(-100, 100, allow_nan=False, allow_subnormal=False, width=32)
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(data=st.data(), shape=shapes, v=finite)
def test_int_index_hypothesis(data, shape, v):
    x = data.draw(st.lists(finite, min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    x = np.array(x, F32).reshape(shape)
    i = data.draw(st.integers(-shape[0], shape[0] - 1))
    _same(_INT_SRC, x, i, F32(v))


@SETTINGS
@given(data=st.data(), shape=shapes, t=st.floats(0, 50, allow_subnormal=False, width=32), v=finite)
def test_mask_hypothesis(data, shape, t, v):
    n = int(np.prod(shape))
    x = np.array(data.draw(st.lists(finite, min_size=n, max_size=n)), F32).reshape(shape)
    _same(_MASK_SRC.format(v=_lit(v)), x, F32(t))


@SETTINGS
@given(data=st.data(), shape=shapes, v=finite, boolean=st.booleans())
def test_ambiguous_index_hypothesis(data, shape, v, boolean):
    n = int(np.prod(shape))
    x = np.array(data.draw(st.lists(finite, min_size=n, max_size=n)), F32).reshape(shape)
    if boolean:
        k = data.draw(st.integers(1, len(shape)))
        mask_shape = shape[:k]
        m = np.array(
            data.draw(
                st.lists(
                    st.booleans(),
                    min_size=int(np.prod(mask_shape)),
                    max_size=int(np.prod(mask_shape)),
                )
            ),
            bool,
        ).reshape(mask_shape)
    else:
        # positions may repeat: NumPy's `x[[0, 0]] += v` adds once, and so must the conversion
        m = np.array(
            data.draw(st.lists(st.integers(-shape[0], shape[0] - 1), max_size=2 * shape[0])),
            I32,
        )
    _same(_AMBIG_SRC.format(v=_lit(v)), x, m)


@SETTINGS
@given(
    data=st.data(), shape=st.lists(st.integers(1, 4), min_size=2, max_size=3).map(tuple), v=finite
)
def test_leading_axis_mask_hypothesis(data, shape, v):
    n = int(np.prod(shape))
    x = np.array(data.draw(st.lists(finite, min_size=n, max_size=n)), F32).reshape(shape)
    _same(_ROWMASK_SRC.format(v=_lit(v)), x)


@SETTINGS
@given(
    n=st.integers(1, 8),
    lo=st.integers(-8, 8) | st.none(),
    hi=st.integers(-8, 8) | st.none(),
    step=st.sampled_from([None, 1, 2, 3, -1, -2]),
    v=finite,
)
def test_slice_hypothesis(n, lo, hi, step, v):
    sl = ":".join("" if p is None else str(p) for p in (lo, hi, step))
    src = HEADER + f"def f(x, v):\n    x[{sl}] = v\n    x[{sl}] += 1.0\n    return x\n"
    check(src, "f", [((arange(n), F32(v)), {})], expect_codes=["AJ301", "AJ302"])


# -- refusals: left as written, with a reason ---------------------------------------------------


def _refused(body: str, code: str, line: int | None = None):
    src = HEADER + body
    c = convert(src)
    got = [r for r in c.refusals if r.code == code]
    assert got, (c.refusals, c.changes, c.text)
    if line is not None:
        assert got[0].location.line == line + HEADER.count("\n")
    return c


@pytest.mark.parametrize(
    "body",
    [
        "def f(x):\n    y = x\n    x[0] = 1.0\n    return x + y\n",
        "def f(x):\n    row = x[0]\n    x[0, 1] = 5.0\n    return x, row\n",
        "def f(x):\n    y = x[1:]\n    y[0] = 9.0\n    return x\n",
        "def f(x):\n    y = x.reshape(-1)\n    x[0] = 1.0\n    return y\n",
        "def f(x):\n    t = x.T\n    x[0] = 1.0\n    return t\n",
    ],
)
def test_alias_read_after_is_refused(body):
    c = _refused(body, "AJ901", 3)
    assert "at[" not in c.text.splitlines()[HEADER.count("\n") + 2]


def test_alias_not_read_after_is_converted():
    body = "def f(x):\n    y = x\n    z = y * 2\n    x[0] = 1.0\n    return x + z\n"
    check(HEADER + body, "f", [((arange(3),), {})], expect_codes=["AJ301"])


def test_explicit_copy_is_converted():
    body = "def f(x):\n    old = x[0].copy()\n    x[0] = x[1]\n    x[1] = old\n    return x\n"
    check(HEADER + body, "f", [((arange(3),), {}), ((arange(2, 2),), {})], expect_codes=["AJ301"])


def test_only_mutating_the_argument_is_refused():
    c = _refused("def f(x):\n    x[0] = 0.0\n", "AJ902", 2)
    assert not c.changed


def test_slice_then_index_is_refused():
    c = _refused("def f(x, y):\n    x[1:][0] = y\n    return x\n", "AJ903", 2)
    assert not c.changed


def test_global_array_is_refused():
    src = "table = jnp.zeros(3)\n\n\ndef f(i, v):\n    table[i] = v\n    return v\n"
    c = _refused(src, "AJ904", 5)
    assert not c.changed


def test_mask_with_array_value_is_refused():
    c = _refused("def f(x, v):\n    x[x > 0] = v\n    return x\n", "AJ905", 2)
    assert not c.changed


def test_numpy_buffer_with_traced_value_is_refused():
    src = (
        "import numpy as np\n\n\ndef f(x):\n    b = np.zeros(3)\n    b[0] = x.sum()\n    return b\n"
    )
    c = _refused(src, "AJ906", 6)
    assert not c.changed


def test_numpy_buffer_with_static_values_is_left_alone():
    src = HEADER + (
        "import numpy as np\n\n\ndef f(x):\n    b = np.zeros(3, dtype=np.float32)\n"
        "    b[1] = 2.0\n    return x + jnp.asarray(b)\n"
    )
    c = check(src, "f", [((arange(3),), {})])
    assert not c.changed and not c.refusals


def test_several_targets_are_refused():
    c = _refused("def f(x):\n    x[0], x[1] = x[1], x[0]\n    return x\n", "AJ907", 2)
    assert not c.changed


def test_list_built_by_repetition_is_untouched():
    body = (
        "def f(x, axis):\n    starts = [0] * x.ndim\n    sizes = 2 * [1]\n"
        "    starts[axis] = 1\n    sizes[0] += 1\n    return x, starts, sizes\n"
    )
    c = convert(HEADER + body)
    assert not c.changed and not c.refusals, c.text


@pytest.mark.parametrize(
    "body",
    [
        "def f(x):\n    for row in x:\n        row[0] = 1.0\n    return x\n",
        "def f(x):\n    for i, row in enumerate(x):\n        row[0] = 1.0\n    return x\n",
        "def f(x, y):\n    for a, b in zip(x, y):\n        a[0] = b[0]\n    return x\n",
    ],
)
def test_row_of_loop_is_a_view_of_the_array(body):
    c = convert(HEADER + body)
    assert "AJ901" in [r.code for r in c.refusals], (c.refusals, c.text)
    assert "row.at[" not in c.text and "a.at[" not in c.text


def test_dict_indexed_by_a_string_variable_is_untouched():
    body = (
        "def f(x):\n    d = dict(a=x, b=x * 2)\n    d['a'] += 1.0\n    for key in 'ab':\n"
        "        d[key] = jnp.where(x > 0, d[key], 0.0)\n    return d\n"
    )
    c = convert(HEADER + body, select=["AJ3"])
    assert not c.changed and not c.refusals, c.text


def test_lists_and_dicts_are_untouched():
    body = (
        "def f(x):\n    acc = [0.0, 0.0]\n    acc[0] = x[0]\n    acc[1] += 1.0\n"
        "    d = {}\n    d['k'] = x * 2\n    return acc[0] + acc[1], d\n"
    )
    c = check(HEADER + body, "f", [((arange(3),), {})])
    assert not c.changed and not c.refusals


def test_noqa_and_ignore_leave_the_statement():
    body = "def f(x):\n    x[0] = 1.0  # noqa: AJ301\n    x[1] = 2.0\n    return x\n"
    c = convert(HEADER + body)
    assert "x[0] = 1.0  # noqa: AJ301" in c.text and "x = x.at[1].set(2.0)" in c.text
    c = convert(HEADER + body, ignore=["AJ3"])
    assert not c.changed


# -- AJ908: a caller reads the array it passed after the call ----------------------------------

READ_AFTER = {
    "result-ignored": (
        "def bc(u):\n    u[0] = 0.0\n    return u\n\n"
        "def step(u):\n    bc(u)\n    return u * 2.0\n"
    ),
    "result-and-argument": (
        "def bc(u):\n    u[0] = 0.0\n    return u\n\n"
        "def step(u):\n    v = bc(u)\n    return v + u\n"
    ),
    "nested-function": (
        "def bc(u):\n    u[0] = 0.0\n    return u\n\n"
        "def step(x):\n    def bc(v):\n        v[0] = 5.0\n        return v\n"
        "    return bc(x) + x\n"
    ),
    "through-the-caller's-argument": (
        "def bc(u):\n    u[0] = 0.0\n    return u\n\n"
        "def inner(u):\n    u = bc(u)\n    return u\n\n"
        "def step(a):\n    b = inner(a)\n    return a + b\n"
    ),
    "read-earlier-in-a-loop": (
        "def bc(u):\n    u[0] = 0.0\n    return u\n\n"
        "def step(u):\n    t = 0.0\n    for _ in range(3):\n        t = t + u.sum()\n"
        "        bc(u)\n    return t\n"
    ),
    "by-keyword": (
        "def bc(u):\n    u[0] = 0.0\n    return u\n\n"
        "def step(u):\n    bc(u=u)\n    return u * 2.0\n"
    ),
    "a-view": (
        "def bc(u):\n    u[0] = 0.0\n    return u\n\n"
        "def step(u):\n    bc(u[1:])\n    return u * 2.0\n"
    ),
    "star-args": (
        "def bc(u):\n    u[0] = 0.0\n    return u\n\n"
        "def step(*arrays):\n    bc(*arrays)\n    return arrays[0] * 2.0\n"
    ),
    "an-alias": (
        "def bc(u):\n    u[0] = 0.0\n    return u\n\n"
        "def step(u):\n    v = u[:]\n    w = v\n    bc(u)\n    return w * 2.0\n"
    ),
    "method": (
        "class Grid:\n    def bc(self, u):\n        u[0] = 0.0\n        return u\n\n"
        "    def step(self, u):\n        self.bc(u)\n        return u * 2.0\n"
    ),
    "through-a-variable": (
        "def bc(u):\n    u[0] = 0.0\n    return u\n\n"
        "def step(u):\n    g = bc\n    g(u)\n    return u * 2.0\n"
    ),
    "partial": (
        "import functools\n\n"
        "def bc(u, v=1.0):\n    u[0] = 0.0\n    return u * v\n\n"
        "def step(u):\n    functools.partial(bc, v=3.0)(u)\n    return u * 2.0\n"
    ),
    "in-a-comprehension": (
        "def bc(u):\n    u[0] = 0.0\n    return u\n\n"
        "def step(u, w):\n    [bc(a) for a in (u, w)]\n    return u * 2.0\n"
    ),
    # a name or an expression that holds a view of the caller's array, passed
    "a-name-holding-a-row": (
        "def bc(u):\n    u[0] = 0.0\n    return u\n\n"
        "def step(u):\n    row = u[0]\n    bc(row)\n    return u * 2.0\n"
    ),
    "a-name-holding-the-array": (
        "def bc(u):\n    u[0] = 0.0\n    return u\n\n"
        "def step(u):\n    v = u\n    bc(v)\n    return u * 2.0\n"
    ),
    "a-reshape": (
        "def bc(u):\n    u[0] = 0.0\n    return u\n\n"
        "def step(u):\n    bc(u.reshape(-1))\n    return u * 2.0\n"
    ),
    "a-view-function": (
        "def bc(u):\n    u[0] = 0.0\n    return u\n\n"
        "def step(u):\n    bc(jnp.swapaxes(u, 0, 1))\n    return u * 2.0\n"
    ),
    "rows-of-a-loop": (
        "def bc(u):\n    u[0] = 0.0\n    return u\n\n"
        "def step(u):\n    for i, r in enumerate(u):\n        bc(r)\n    return u * 2.0\n"
    ),
    "a-ternary-of-rows": (
        "def bc(u):\n    u[0] = 0.0\n    return u\n\n"
        "def step(u, k):\n    r = u[0] if k > 0 else u[1]\n    bc(r)\n    return u * 2.0\n"
    ),
    "unpacked-from-a-tuple": (
        "def bc(u):\n    u[0] = 0.0\n    return u\n\n"
        "def step(u):\n    y, z = u, u\n    bc(y)\n    return u * 2.0\n"
    ),
    "the-result-written-into-the-array": (
        "def bc(u):\n    u[0] = 0.0\n    return u * 2.0\n\n"
        "def step(u):\n    u[1] = bc(u[0])\n    return u\n"
    ),
    # the function changes its argument through a view of it that it makes
    "through-the-rows-of-the-argument": (
        "def bc(m):\n    for r in m:\n        r[0] = 0.0\n    return 0\n\n"
        "def step(u):\n    bc(u)\n    return u * 2.0\n"
    ),
    "through-a-slice-of-the-argument": (
        "def bc(m):\n    s = m[1:]\n    s[0] = 0.0\n    return 0\n\n"
        "def step(u):\n    bc(u)\n    return u * 2.0\n"
    ),
}


@pytest.mark.parametrize("name", sorted(READ_AFTER))
def test_a_refused_update_of_an_argument_stays_refused_when_converted_again(name):
    """The first conversion rewrites the caller (`u[1] = bc(u[0])` became `u = u.at[1].set(
    bc(u[0]))`, a ternary of rows a `lax.cond`): converting its output again must find the same
    reader, not convert the helper's update (which then gave NumPy's values no more)."""
    src = HEADER + READ_AFTER[name]
    once = convert(src)
    again = convert(once.text)
    assert again.text == once.text
    assert [r for r in again.refusals if r.code == "AJ908"], (again.refusals, again.text)


def test_a_function_changing_its_argument_through_a_view_and_returning_nothing_is_refused():
    """`s = m[1:]; s[0] = v` changes the caller's `m` in NumPy; rewritten, it changed a copy
    that nobody returns (AJ902, as for `m[1] = v`)."""
    for body in ("    s = m[1:]\n    s[0] = v\n", "    for r in m:\n        r[0] = v\n"):
        c = convert(HEADER + "def f(m, v):\n" + body)
        assert "AJ902" in {r.code for r in c.refusals}, (c.refusals, c.text)


@pytest.mark.parametrize("name", sorted(READ_AFTER))
def test_update_of_an_argument_its_caller_reads_after_is_refused(name):
    """NumPy changes the caller's array: a caller that reads it after the call would see the
    new values, where the functional update leaves them in the function's copy (a wrong answer
    before: `bc(u); return u * 2` gave the old `u`). The update stays as written, reported."""
    src = HEADER + READ_AFTER[name]
    c = convert(src)
    refused = [r for r in c.refusals if r.code == "AJ908"]
    assert refused, (c.refusals, c.text)
    for r in refused:
        assert src.splitlines()[r.location.line - 1].strip().endswith("= 0.0") or "5.0" in (
            src.splitlines()[r.location.line - 1]
        )
    assert "0] = 0.0" in c.text or "0] = 5.0" in c.text
    assert not [ch for ch in c.changes if ch.location.line in {r.location.line for r in refused}]


SAFE_CALLERS = {
    "result-in-place": "def step(u):\n    u = bc(u)\n    return u * 2.0\n",
    "returned": "def step(u):\n    return bc(u) * 2.0\n",
    "a-new-array": "def step(u):\n    v = bc(u * 2.0)\n    return v + u\n",
    "in-a-loop": "def step(u):\n    for _ in range(3):\n        u = bc(u) + 1.0\n    return u\n",
    "a-size-read-after": "def step(u):\n    n = u.shape[0]\n    u = bc(u)\n    return u * n\n",
    "local-array": (
        "def step(x):\n    buf = jnp.zeros(3)\n    bc(buf)\n    return x * 2.0\n"
    ),
}


@pytest.mark.parametrize("name", sorted(SAFE_CALLERS))
def test_update_of_an_argument_no_caller_reads_after_is_rewritten(name):
    """Callers that use what the function returns (or pass a value no one else holds) see the
    same values either way: the update is rewritten, and the caller gives NumPy's answer."""
    src = HEADER + "def bc(u):\n    u[0] = 0.0\n    return u\n\n" + SAFE_CALLERS[name]
    c = check(src, "step", [((arange(3),), {})], expect_codes=["AJ301"])
    assert not [r for r in c.refusals if r.code == "AJ908"]


MAY_SHARE = {
    "tuple-unpacking": "    a, b = x, z\n    a[0] = 1.0\n    return x\n",
    "chained": "    y = w = x\n    y[0] = 1.0\n    return x\n",
    "siblings": "    y = x\n    w = x\n    y[0] = 1.0\n    return w\n",
    "transitive": "    y = x\n    w = y\n    w[0] = 1.0\n    return x\n",
    "walrus": "    s = (y := x).sum()\n    y[0] = 1.0\n    return x, s\n",
    "branch": "    y = x if z.sum() > 0 else z\n    y[0] = 1.0\n    return x, z\n",
    "one-path-row": "    t = x[1]\n    t = t if z.sum() > 0 else x[0] + 0.0\n    x[1] = -1.0\n"
    "    return x, t\n",
    "loop-carried": "    y = x * 1.0\n    for i in range(2):\n        y[i] = 0.0\n        y = x\n"
    "    return x\n",
    "tuple-holds": "    out = (x, x.sum())\n    x[0] = 1.0\n    return out[0]\n",
    "dict-holds": "    d = {'w': x}\n    x[0] = 1.0\n    return d['w']\n",
    "appended": "    h = []\n    h.append(x)\n    x[0] = 1.0\n    return h[0]\n",
    "rows": "    rows = list(x)\n    x[0] = 1.0\n    return rows[0]\n",
    "helper-may-return-it": "    y = ident(x)\n    y[0] = 1.0\n    return x\n",
    "jnp-view": "    y = jnp.reshape(x, (-1,))\n    y[0] = 1.0\n    return x\n",
    "default": "    def g(a=x):\n        return a\n    x[0] = 3.0\n    return g()\n",
    "closure": "    def g():\n        return x\n    y = g()\n    y[0] = 1.0\n    return x\n",
    "lambda": "    g = lambda: x\n    y = g()\n    y[0] = 1.0\n    return x\n",
    "max-of-arrays": "    y = max([x, z], key=lambda a: a.sum())\n    y[0] = 1.0\n    return x\n",
    "jnp-split": "    a, b = jnp.split(x, 3)\n    a[0] = 1.0\n    return x\n",
    "jnp-flip": "    y = jnp.flip(x)\n    y[0] = 1.0\n    return x\n",
    "chained-fresh": "    a = b = x * 2.0\n    a[0] = 0.0\n    return b\n",
    "named-tuple-field": "    p = Pair(x, z)\n    a = p.a\n    a[0] = 7.0\n    return p.a\n",
    "tree-leaves": "    d = {'w': x}\n    a = jax.tree_util.tree_leaves(d)[0]\n    a[0] = 7.0\n"
    "    return d['w']\n",
    "chained-zeros": "    lo = hi = jnp.zeros(3)\n    lo[0] = x[0, 0]\n    return hi\n",
}


@pytest.mark.parametrize("name", sorted(MAY_SHARE))
def test_update_of_an_array_another_name_may_hold_is_refused(name):
    """NumPy updates the one array every such name holds (a row of a 2-D array is a view too);
    the functional update changes one name only. Each of these was converted, silently wrong:
    the values analysis follows one name per value (`y = x`), so tuples, chains, branches,
    loops, containers and helpers escaped it. Refused now (AJ901), the update kept."""
    src = HEADER + "from typing import NamedTuple\n\n\nclass Pair(NamedTuple):\n    a: jax.Array\n"
    src += "    b: jax.Array\n\n\ndef ident(a):\n    return a\n\n" + "def f(x, z):\n" + MAY_SHARE[name]
    c = convert(src)
    assert [r for r in c.refusals if r.code == "AJ901"], (c.refusals, c.text)
    update = next(line for line in MAY_SHARE[name].splitlines() if "] = " in line)
    assert update in c.text  # kept as written (jit fails on it, loudly)


SHARING_NOT_NEEDED = {
    "fresh-copy": "    y = x.copy()\n    y[0] = 1.0\n    return x, y\n",
    "arithmetic": "    y = x * 2.0\n    y[0] = 1.0\n    return x, y\n",
    "shape": "    n = x.shape[0]\n    x[0] = 1.0\n    return x, n\n",
    "jnp-function": "    y = jnp.sin(x)\n    y[0] = 1.0\n    return x, y\n",
}


@pytest.mark.parametrize("name", sorted(SHARING_NOT_NEEDED))
def test_update_of_a_new_array_is_converted(name):
    src = HEADER + "def f(x, z):\n" + SHARING_NOT_NEEDED[name]
    x2 = np.arange(6, dtype=np.float32).reshape(3, 2)
    c = check(src, "f", [((x2, -x2), {})], expect_codes=["AJ301"])
    assert not [r for r in c.refusals if r.code == "AJ901"]


def test_ambiguous_index_keeps_the_value_index_in_its_integer_form():
    """`x[idx] = y[idx]` with an index of unknown dtype: `y[idx]` stands for `y` in the mask
    form only; the integer form wrote `.set(y)` (a permutation gave y reversed, silently)."""
    src = HEADER + "def f(x, y, idx):\n    x[idx] = y[idx]\n    return x\n"
    x, y = np.zeros(4, np.float32), np.array([10, 20, 30, 40], np.float32)
    c = check(
        src,
        "f",
        [((x, y, np.array([3, 2, 1, 0], np.int32)), {}), ((x, y, np.array([1, 1], np.int32)), {})],
        expect_codes=["AJ304"],
    )
    assert "set(y[idx])" in c.text  # (a boolean idx fails loudly: its shape against x unknown)


def test_return_none_only_mutates_its_argument():
    """`return None` returns nothing, as a bare `return` does: the function's only effect is
    the update of its argument (AJ902), which was rewritten away silently."""
    c = convert(HEADER + "def f(x):\n    x[0] = 1.0\n    return None\n")
    assert [r.code for r in c.refusals] == ["AJ902"]


@pytest.mark.parametrize(
    "body",
    [
        "    m = y > 0\n    x[m] = y[m]\n    return x\n",  # a row mask: y[m] broadcast along rows
        "    m = x > 0\n    x = jnp.stack([x, x, x], axis=1)\n    x[m] = 0.0\n    return x\n",
        "    m = x > 0\n    if (x := jnp.stack([x, x, x], axis=1)).sum() > -100:\n        pass\n"
        "    x[m] = 0.0\n    return x\n",
    ],
)
def test_mask_shape_facts_hold_only_for_the_array_they_were_made_from(body):
    """`y[m]` stood for `y` with a mask over x's leading axes (NumPy fills each selected row
    with y[m]'s value), and `m = x > 0` kept "x's shape" after x was rebound to a 2-D array:
    the mask spread along the wrong axis. Now the first is refused (AJ905: no static form)
    and the second reshapes the mask; both give NumPy's answer or fail loudly."""
    src = HEADER + "def f(x, y):\n" + body
    x2 = np.zeros((4, 4), np.float32)
    y1 = np.array([-1, 2, -1, -1], np.float32)
    c = convert(src)
    if "x = " in body or "+=" in body or ":=" in body:
        check(src, "f", [((np.array([1, -1, 2, 0], np.float32), y1), {})], expect_codes=["AJ303"])
    else:
        assert [r.code for r in c.refusals] == ["AJ905"], c.refusals
        assert "x[m] = y[m]" in c.text
    assert x2 is not None


def test_callers_index_does_not_keep_modules_alive():
    """The callers index refers to its module's nodes: kept in a table keyed by the module
    (even weakly), it kept every module ever indexed alive, so an editor server converting on
    each save grew without end. Repeated conversions leave no index (or tree) behind."""
    import gc

    from autojit.analysis import callers

    src = HEADER + READ_AFTER["result-ignored"]
    for i in range(5):
        assert [r for r in convert(src + f"# {i}\n").refusals if r.code == "AJ908"]
    gc.collect()
    assert not [o for o in gc.get_objects() if type(o) is callers._Index]


def test_callers_of_a_jitted_function_do_not_count():
    """A caller of a jitted (or otherwise transformed) function calls the transformed one,
    which never changes its arrays: its reading them after the call is no reason to refuse."""
    src = HEADER + (
        "@jax.jit\ndef bc(u):\n    u[0] = 0.0\n    return u\n\n"
        "def step(u):\n    bc(u)\n    return u * 2.0\n"
    )
    c = convert(src)
    assert not [r for r in c.refusals if r.code == "AJ908"], c.refusals
    assert "u = u.at[0].set(0.0)" in c.text


@pytest.mark.parametrize("body", ["    x[x < 0] = 0.5\n", "    x[x < 0] = -2.7\n"])
def test_mask_update_of_int_array_with_a_float_keeps_its_other_elements(body):
    """`jnp.where(x < 0, 0.5, x).astype(x.dtype)` made the whole int32 array float32 first:
    every element above 2**24 came back rounded (123456789 -> 123456792), silently. The value
    is cast to x's dtype (NumPy's cast), the array never leaves it."""
    src = HEADER + "def f(x):\n" + body + "    return x\n"
    x = np.array([16777217, -5, 123456789, 3], np.int32)
    import jax

    got = np.asarray(jax.jit(load(convert(src).text)["f"])(x.copy()))
    want = load(src)["f"](x.copy())  # NumPy's in-place meaning (x is a NumPy array)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    "body",
    [
        "    idx = [0, 2]\n    x[idx] = 1.0\n    return x\n",
        "    idx = [0, 0, 2]\n    x[idx] += 1.0\n    return x\n",
        "    idx = [True, False, True, False]\n    x[idx] = 1.0\n    return x\n",
    ],
)
def test_index_held_in_a_python_list(body):
    """`idx = [0, 2]; x[idx] = 1.0`: the index's dtype was asked of the list itself
    (`jnp.result_type(idx)`), which fails under jit with nothing refused. The list is made an
    array first, as a list written in the index is."""
    src = HEADER + "def f(x):\n" + body
    check(src, "f", [((np.arange(4, dtype=np.float32),), {})], expect_codes=["AJ304"])


IN_PLACE_METHODS = {
    # (source of f, calls): NumPy sorts / fills the array itself; a jax array's `.sort()`
    # returns a copy (a silently different answer), `.fill` does not exist
    "sort-a-parameter": (
        "def f(x):\n    x.sort()\n    return x\n",
        [((np.array([3.0, 1.0, 2.0], F32),), {})],
    ),
    "median": (
        "def f(x):\n    y = x.copy()\n    y.sort()\n    n = y.shape[0]\n"
        "    return (y[(n - 1) // 2] + y[n // 2]) / 2\n",
        [((np.array([4.0, 1.0, 3.0, 2.0], F32),), {}), ((np.array([5.0, 1.0, 3.0], F32),), {})],
    ),
    "sort-with-axis": (
        "def f(x):\n    y = x * 2.0\n    y.sort(axis=0)\n    return y\n",
        [((np.array([[3.0, 1.0], [2.0, 4.0]], F32),), {})],
    ),
    "fill": (
        "def f(x):\n    y = x + 1.0\n    y.fill(7.0)\n    return y * x\n",
        [((arange(3),), {})],
    ),
    # a part of the array: NumPy sorts (fills) that view of it
    "sort-a-row": (
        "def f(x):\n    y = x * 1.0\n    y[0].sort()\n    return y\n",
        [((np.array([[3.0, 1.0, 2.0], [6.0, 5.0, 4.0]], F32),), {})],
    ),
    "sort-rows-with-axis": (
        "def f(x):\n    y = x * 1.0\n    y[1:].sort(axis=1)\n    return y\n",
        [((np.array([[3.0, 1.0], [2.0, 0.5], [1.0, 4.0]], F32),), {})],
    ),
    "fill-a-column": (
        "def f(x, v):\n    y = x * 1.0\n    y[:, 1].fill(v)\n    return y\n",
        [((np.array([[3.0, 1.0], [2.0, 0.5]], F32), np.float32(9.0)), {})],
    ),
}


@pytest.mark.parametrize("name", sorted(IN_PLACE_METHODS))
def test_in_place_methods_of_an_array_are_rebound(name):
    body, calls = IN_PLACE_METHODS[name]
    c = check(HEADER + body, "f", calls, expect_codes=["AJ305"])
    assert not c.refusals


def test_in_place_methods_that_stay():
    # a list's sort and a NumPy buffer's are Python's, run as written
    src = HEADER + (
        "import numpy as np\n\n\ndef f(x):\n    xs = [3.0, 1.0]\n    xs.sort()\n"
        "    b = np.array([2.0, 1.0])\n    b.sort()\n    return x * xs[0] + b[0]\n"
    )
    c = convert(src)
    assert c.text == src and not c.changes
    # an argument sorted and nothing returned: the caller sees it sorted in NumPy (AJ902)
    c = _refused("def f(x):\n    x.sort()\n", "AJ902", 2)
    assert "    x.sort()\n" in c.text
    # a part of a part: NumPy sorts the view; refused, with the update to write (AJ909)
    c = _refused("def f(x):\n    y = x * 1.0\n    y[0][1:].sort()\n    return y\n", "AJ909", 3)
    assert "    y[0][1:].sort()\n" in c.text


# -- updates through a name that views the array, and loops over a view of an updated array ---
VIEWED_UPDATES = {
    # an update through a name made from a row of the array (one function, no helper)
    "an-alias-of-a-row": "    for r in x:\n        rr = r\n        rr[0] = a\n    return x\n",
    "a-slice-of-a-row": "    for r in x:\n        q = r[1:]\n        q[0] = a\n    return x\n",
    "rows-kept-then-the-array-updated": (
        "    rows = []\n    for r in x:\n        rows.append(r)\n    x[0, 0] = a\n    return rows[0]\n"
    ),
    # a loop over a view of an array its body updates: NumPy reads the updated values
    "a-reversed-slice": "    for v in x[0, ::-1]:\n        x[0, 0] = x[0, 0] + v\n    return x\n",
    "reversed": "    for r in reversed(x):\n        x[0, 0] = x[0, 0] + r[0]\n    return x\n",
    "the-transpose": "    for c in x.T:\n        x[0, 1] = c[0] + 1.0\n    return x\n",
    "another-name": "    w = x\n    for r in w:\n        x[1, 0] = x[1, 0] + r[0]\n    return x\n",
    "updated-through-another-name": (
        "    w = x\n    for r in x:\n        w[1, 0] = w[1, 0] + r[0]\n    return w\n"
    ),
}


@pytest.mark.parametrize("name", sorted(VIEWED_UPDATES))
def test_an_update_numpy_makes_through_a_view_is_kept_or_refused(name):
    """Each was converted and silently gave the array as it was before the update (a row's
    alias updated, a list of rows read after, an iteration reading values the body changed):
    now refused (AJ901 / AJ932), or right."""
    from tests.fuzz import oracle

    src = HEADER + "def f(x, a):\n" + VIEWED_UPDATES[name]
    x = np.arange(6, dtype=np.float32).reshape(3, 2) - 2.5
    out = oracle.run(src, [(x, np.float32(9.0))], name="f")
    assert out.kind in oracle.OK, out.report()


def test_a_loop_over_a_copy_of_the_array_it_updates_still_converts():
    from tests.fuzz import oracle

    src = HEADER + "def f(y):\n    for v in y.copy():\n        y[0] = y[0] + v\n    return y\n"
    out = oracle.run(src, [(np.array([1.0, 2.0, 3.0], np.float32),)], name="f")
    assert out.kind == "converted", out.report()


def test_an_index_made_by_modulo_or_subtraction_is_never_taken_for_a_mask():
    """`x[cnt % n] = v`: NumPy's `%`, `//` and `-` never give booleans, so the update is a plain
    `.at[...].set` (it was the bool-or-int dtype switch of AJ304, and its test of the index
    counted as a condition on `cnt`, refusing an `if` around it: AJ918)."""
    src = HEADER + (
        "def f(x, k):\n    n = x.shape[0]\n    y = x * 1.0\n    y[k % n] = 5.0\n"
        "    y[(k + 1) // 2] = 6.0\n    y[k - 1] = 7.0\n    return y\n"
    )
    c = check(src, "f", [((arange(4), np.int32(1)), {}), ((arange(4), np.int32(4)), {})])
    assert "result_type" not in c.text and c.text.count(".at[") == 3, c.text


def test_in_place_methods_on_copies_and_views_keep_numpys_meaning():
    """`x[idx].fill(a)` with an array of indices fills a copy in NumPy (x unchanged): never
    rewritten into an update of x; `x.T.sort()` sorts x's memory through a view: refused
    (AJ909), not left silently as jax's copy-returning `.sort()`."""
    c = convert(HEADER + "def f(x, idx, a):\n    y = x * 1.0\n    y[idx].fill(a)\n    return y\n")
    assert ".at[" not in c.text, c.text
    c = convert(HEADER + "def f(x):\n    y = x * 1.0\n    y.T.sort()\n    return y\n")
    assert "AJ909" in {r.code for r in c.refusals}, (c.refusals, c.text)


# NumPy's in-place `.sort()` / `.fill()` inside an expression (probe 18): jax's `.sort()` returns
# a sorted copy and leaves the array as it was, so these ran under jit and gave the unsorted
# array with no error and no report
SORT_IN_EXPRESSIONS = {
    "bound": "    n = x.shape[0]\n    _ = x.sort()\n    return x[n - 1]\n",
    "result-named": "    y = x.sort()\n    return x, y is None\n",
    "printed": "    print(x.sort())\n    return x\n",
    "comprehension-of-rows": "    [r.sort() for r in x]\n    return x\n",
    "fill-in-a-call": "    str(x.fill(0.0))\n    return x\n",
}


@pytest.mark.parametrize("name", sorted(SORT_IN_EXPRESSIONS))
def test_an_in_place_method_inside_an_expression_is_refused(name):
    src = HEADER + "def f(x):\n" + SORT_IN_EXPRESSIONS[name]
    c = convert(src)
    (r,) = [r for r in c.refusals if r.code == "AJ920"]
    assert r.location.line == 6 + (name == "bound"), r
    assert c.text == src, c.text  # left as it is (nor rewritten by the print or any rule)
    assert convert(c.text).text == c.text


# where the sort runs other than in an expression statement of the function itself (probe 21's
# gaps): a `with` item, a nested function's default, the bound method called later, a nested
# function sorting the enclosing function's array: all ran under jit with the array unsorted
SORT_ELSEWHERE = {
    "with-item": ("    with contextlib.nullcontext(x.sort()):\n        y = x * 2\n    return y\n", 6),
    "default": ("    def g(a=x.sort()):\n        return a\n    g()\n    return x * 2\n", 6),
    "bound-method": ("    m = x.sort\n    m()\n    return x * 2\n", 6),
    "nested-statement": ("    def g():\n        x.sort()\n    g()\n    return x * 2\n", 7),
    "nested-fill": ("    def g():\n        x.fill(0.0)\n    g()\n    return x * 2\n", 7),
}


@pytest.mark.parametrize("name", sorted(SORT_ELSEWHERE))
def test_an_in_place_method_run_elsewhere_is_refused(name):
    body, line = SORT_ELSEWHERE[name]
    src = "import contextlib\n" + HEADER + "def f(x):\n" + body
    c = convert(src)
    assert [r.location.line + 0 for r in c.refusals if r.code == "AJ920"] == [line + 1], (
        c.refusals
    )
    assert c.text == src, c.text
    assert convert(c.text).text == c.text


def test_a_nested_functions_own_array_is_still_sorted_by_a_rewrite():
    """The refusal above is for the enclosing function's array only: a nested function's own
    array (a parameter or a local) is rewritten as before."""
    src = HEADER + (
        "def f(x):\n    def g(y):\n        y.sort()\n        return y\n"
        "    def h():\n        z = x * 1.0\n        z.sort()\n        return z\n"
        "    return g(x * 2.0) + h()\n"
    )
    c = check(src, "f", [((np.array([3.0, 1.0, 2.0], np.float32),), {})])
    assert "AJ920" not in {r.code for r in c.refusals}, c.refusals
    assert c.text.count(".sort(") == 2, c.text


def test_in_place_sort_of_a_list_inside_an_expression_is_not_refused():
    src = HEADER + "def f(x):\n    names = ['b', 'a']\n    y = names.sort()\n    return x * 2.0\n"
    assert "AJ920" not in {r.code for r in convert(src).refusals}


def test_sort_kind_and_stable_are_left_out_of_jnp_sort():
    """`jnp.sort` rejects `kind=` (and its default is stable): the sorted values are the same
    whichever algorithm NumPy was asked for, so the converted call drops both."""
    src = HEADER + (
        "def f(x):\n    y = x * 1.0\n    y.sort(0, 'stable')\n    z = x * 2.0\n"
        "    z[1:].sort(kind='heapsort')\n    w = x * 3.0\n    w[:2].sort(stable=True)\n"
        "    w.sort(axis=-1, kind='mergesort')\n    return y, z, w\n"
    )
    c = check(
        src,
        "f",
        [((np.array([3.0, 1.0, 2.0, -1.0], F32),), {})],
        expect_codes=["AJ305"],
    )
    assert "kind" not in c.text and "stable" not in c.text, c.text
    assert "y = jnp.sort(y, 0)" in c.text and "w = jnp.sort(w, axis=-1)" in c.text, c.text


def test_an_update_whose_indices_may_repeat_with_different_values_says_so():
    """NumPy keeps the last of repeated positions; jax's `.at[].set` applies them in an order
    the device decides (nondeterministic on a GPU): the change message says so, unless every
    position gets one number or the indices cannot repeat (a permutation, a range)."""
    src = HEADER + (
        "def f(x, v):\n    idx = jnp.asarray([0, 2, 0])\n    x[idx] = v\n    x[idx] = 1.0\n"
        "    x[idx] += 2.0\n    x[idx] -= v\n    x[jnp.argsort(x)] = x * 2.0\n    return x\n"
    )
    calls = [((arange(4), np.array([1.0, 2.0, 3.0], F32)), {})]
    c = check(src, "f", calls)
    notes = {ch.location.line: "order the device decides" in ch.message for ch in c.changes}
    assert notes == {7: True, 8: False, 9: False, 10: True, 11: False}, c.changes


def test_sort_order_given_by_position_becomes_a_keyword():
    """`x.sort(axis, kind, order)`: jnp.sort takes `order` only as a keyword (it got the third
    positional argument: TypeError under jit; probe 21)."""
    src = HEADER + "def f(x):\n    y = x * 1.0\n    y.sort(0, 'quicksort', None)\n    return y\n"
    c = check(src, "f", [((np.array([3.0, 1.0, 2.0], F32),), {})], expect_codes=["AJ305"])
    assert "y = jnp.sort(y, 0, order=None)" in c.text, c.text


def test_an_item_raised_to_a_float_power_in_an_int_array_is_numpys():
    """`x[0] **= 0.5` of an int array: NumPy computes 16 ** 0.5 and stores 4; jax's
    `.at[].power(0.5)` casts the exponent to the array's int dtype first (16 ** 0 = 1), so the
    update is `.set(x[0] ** 0.5)` (probe 24). An int exponent keeps `.at[].power`."""
    src = HEADER + (
        "def f(x):\n    y = jnp.asarray(x, jnp.int32)\n    y[0] **= 0.5\n    y[1] **= 2.5\n"
        "    y[2] **= 2\n    return y\n"
    )
    c = check(src, "f", [((np.array([16, 3, 4], np.int32),), {})])
    assert c.text.count(".power(") == 1, c.text


def test_a_parameter_annotated_as_a_list_keeps_its_item_assignment():
    """`l: list`: a Python list (plain jax.jit runs `l[0] = 5` on it); `l.at[0].set(5)` failed
    with AttributeError (probe 24). Likewise a dict."""
    src = HEADER + (
        "def f(x, l: list, d: dict[str, float]):\n    l[0] = 5\n    d['a'] = 2.0\n"
        "    return x * l[0] * d['a']\n"
    )
    c = convert(src)
    assert ".at[" not in c.text and c.text == src, c.text


def test_a_bare_noqa_on_the_last_line_of_a_block_is_that_statements_only():
    """`s = s + x[i]  # noqa` ends the body of an `if` and a `for`: a bare noqa there silenced
    both (their end line), and the loop failed under jit with no finding (probe 29)."""
    src = HEADER + (
        "def f(x):\n    s = jnp.zeros(())\n    for i in range(x.shape[0]):\n"
        "        if x[i] > 0:\n            s = s + x[i]  # noqa\n    return s\n"
    )
    c = check(src, "f", [((np.array([1.0, -2.0, 3.0], np.float32),), {})])
    assert {"AJ101", "AJ203"} <= {ch.code for ch in c.changes}, c.changes


def test_a_row_swap_reads_its_rows_with_an_array_index():
    """`U[[0, p]] = U[[p, 0]]`: the value's list index was left as a list, which JAX rejects
    (probe 27: the LU pivot swap failed under jit, nothing refused)."""
    src = HEADER + (
        "def f(U):\n    p = jnp.argmax(jnp.abs(U[:, 0]))\n    if p != 0:\n"
        "        U[[0, p]] = U[[p, 0]]\n    U[[1, 2]] = U[[2, 1]]\n    return U\n"
    )
    u = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    check(src, "f", [((u,), {}), ((u[::-1].copy(),), {})])


@pytest.mark.parametrize("method", ["set", "add", "multiply", "divide", "power", "min", "max"])
@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float16, np.uint8])
def test_a_users_own_masked_at_method_gives_what_jax_gives(method, dtype):
    """A user's own `x.at[m].METHOD(v)` with a boolean mask becomes `jnp.where`, with the
    values, dtype and rounding jax's own method gives on a concrete mask: `.divide` / `.power`
    are `x / ones_like(x).at[m].multiply(v)` in jax (`v` cast to x's dtype, then a true division
    of the whole array: an int array gives floats). The rewrite cast the result back to x's
    dtype (int32 `[1, 1, 2]` where jax gives `[1., 1.5, 2.5]`) and divided by the uncast
    value (5 / 1.5 where jax divides by 1): silent."""
    src = HEADER + (
        f"def f(x):\n    m = x > 2\n    y = x.at[m].{method}(1.5)\n"
        f"    z = x.at[x < 2].{method}(-2.5)\n    w = x.at[m].{method}(3)\n"
        f"    u = x.at[m].{method}(0.5)\n    return y, z, w, u\n"
    )
    calls = [((np.array([1, 3, 5, 7, 4], dtype),), {}), ((np.array([[0, 9], [2, 3]], dtype),), {})]
    c = check(src, "f", calls, expect_codes=["AJ303"])
    assert ".at[" not in c.text, c.text


@pytest.mark.parametrize(
    "stmt", ["x[-1], w = v, 1", "(x[-1], w), z = (v, 1), 2", "w, *x[1:3] = v, v, v"]
)
def test_an_item_among_several_targets_is_refused_with_a_reason(stmt):
    """`x[-1], w = v, 1`: the item update was neither rewritten nor reported (the converter's
    text trigger missed it): jax's "immutable" TypeError under jit, with no rule. Refused now
    (AJ907), as `x[0], x[1] = a, b` was."""
    src = HEADER + f"def f(x, v):\n    {stmt}\n    return x\n"
    c = convert(src)
    assert c.text == src and [r.code for r in c.refusals] == ["AJ907"], (c.text, c.refusals)


@pytest.mark.parametrize(
    "store, read",
    [
        ("hist.append(x)", "hist[-1]"),
        ("hist.insert(0, x)", "hist[0]"),
        ("cache['x'] = x", "cache['x']"),
        ("setattr(box, 'a', x)", "box.a"),
        ("box.prev = x", "box.prev"),
    ],
)
def test_an_array_kept_in_a_parameters_container_then_updated_is_refused(store, read):
    """`hist.append(x); x[0] = 5.0; return hist[-1]` of a parameter `hist`: NumPy's list holds
    the array the update changes; converted, the update made a new array and the list gave back
    the old one (silent; probe B). The may-share analysis took `hist` for an array (a
    parameter) and did not join it with `x`: a method no array has (`append`), a text key, an
    attribute set or `setattr` makes it a container. Refused (AJ901)."""
    src = HEADER + f"def f(x, hist, cache, box):\n    {store}\n    x[0] = 5.0\n    return {read}\n"
    c = convert(src)
    assert c.text == src and "AJ901" in {r.code for r in c.refusals}, (c.text, c.refusals)


@pytest.mark.parametrize(
    "store",
    ["LOG.append(y)", "CACHE['k'] = y", "BOX.last = y", "CACHE['k'] = [y[1:]]", "log.append(y)"],
)
def test_an_array_kept_in_a_container_that_outlives_the_function_then_updated_is_refused(store):
    """`LOG.append(y); y[0] = 5.0` of a module-level list (or dict, or object, or a parameter
    that the function never reads again): the caller reads the container after the call, and
    NumPy's holds the changed array; converted, it held the old one (silent). The check of
    names read after the update saw only the function's own. Refused (AJ901); a store after
    the last update, or of a copy, still converts."""
    head = HEADER + "LOG = []\nCACHE = {}\n\n\nclass Box:\n    pass\n\n\nBOX = Box()\n\n\n"
    src = head + f"def f(x, log):\n    y = x * 2\n    {store}\n    y[0] = 5.0\n    return y\n"
    c = convert(src)
    assert c.text == src and "AJ901" in {r.code for r in c.refusals}, (c.text, c.refusals)
    after = f"def f(x, log):\n    y = x * 2\n    y[0] = 5.0\n    {store}\n    return y\n"
    copy = store.replace("y", "y.copy()", 1)
    for fine in (
        # (a parameter read after the update is refused as before, conservatively)
        *([after] if not store.startswith("log.") else []),
        f"def f(x, log):\n    y = x * 2\n    {copy}\n    y[0] = 5.0\n    return y\n",
    ):
        c = convert(head + fine)
        assert c.changed and not c.refusals, (fine, c.refusals)
    # (run: NumPy's list holds the changed array; the converted function is left as it is)
    ns: dict = {}
    exec(compile(src.replace("import jax.numpy as jnp", "import numpy as jnp"), "f.py", "exec"), ns)
    log: list = []
    y = ns["f"](np.ones(3, np.float32), log)
    held = (log or ns["LOG"] or list(ns["CACHE"].values()) or [ns["BOX"].last])[0]
    held = held[0] if isinstance(held, list) else held
    assert np.shares_memory(held, y)


@pytest.mark.parametrize(
    "body",
    [
        "def f(x, v):\n    x[2]: float = v  # keep me\n    x[x > 3]: float = 0.0\n    return x\n",
        "def f(x):\n    m = x > 2\n    return x.at[m].divide(1.5), x.at[x < 2].power(3)\n",
        "def f(x, i, v):\n    x[i:i + 2] = v\n    return x\n",
    ],
)
def test_this_rounds_new_outputs_convert_to_themselves(body):
    """The annotated update, the masked divide / power and the static slice start: converting
    the output again changes nothing, the comment stays, and no output imports autojit."""
    c = convert(HEADER + body)
    assert c.changed and convert(c.text).text == c.text, c.text
    assert "autojit" not in c.text and ("keep me" not in body or "# keep me" in c.text)


@pytest.mark.parametrize(
    "body",
    [
        "    s = slice(1, 3)\n    x[s] = 0.0\n    return x\n",
        "    x[slice(1, 4)] = 0.0\n    return x\n",
        "    for s in (slice(0, 2), slice(3, 5)):\n        x[s] += 1.0\n    return x\n",
        "    t = (1, slice(1, 3))\n    y = x.reshape(2, 3)\n    y[t] += 9.0\n    return y\n",
    ],
)
def test_a_slice_object_index_is_no_mask(body):
    """`s = slice(1, 3); x[s] = 0.0`: the index's kind was not known, so the update became the
    mask-or-index form `... if jnp.result_type(s) == jnp.bool_ else ...`, and
    `jnp.result_type` of a slice raised under jit (probe F). A slice is a Python object, never
    an array: a plain `.at[]` update."""
    from tests.fuzz import oracle

    out = oracle.run(HEADER + "def f(x):\n" + body, [(np.arange(6, dtype=np.float32),)], name="f")
    assert out.kind == "converted" and "result_type" not in out.converted, out.report()


@pytest.mark.parametrize(
    "body, refused",
    [
        # double buffering: `u` holds the last step's array, never the one being updated
        (
            "    for t in range(steps):\n        new = jnp.zeros_like(u)\n"
            "        for i in range(1, u.shape[0] - 1):\n            new[i] = 0.5 * (u[i - 1] + u[i + 1])\n"
            "        u = new\n    return u\n",
            False,
        ),
        (
            "    out = u\n    for t in range(steps):\n        new = out + 1.0\n        new[0] = 0.0\n"
            "        out = new\n    return out\n",
            False,
        ),
        # an alias made between the new array and the update, or kept across iterations
        ("    new = u * 1.0\n    new[0] = 1.0\n    keep = new\n    new[1] = 2.0\n    return keep, new\n", True),
        (
            "    new = u * 1.0\n    old = u\n    for t in range(steps):\n        new[t] = 9.0\n"
            "        if t == 0:\n            old = new\n    return old, new\n",
            True,
        ),
    ],
)
def test_an_array_made_new_before_the_update_is_no_alias(body, refused):
    """`new = jnp.zeros_like(u)` ... `new[i] = ...` ... `u = new` in a time loop (heat, wave,
    Jacobi: probe G) was refused (AJ901, or AJ908 for `u` a parameter): the may-share analysis
    joins `u` and `new` wherever they are bound. `new` holds a new array from its binding on,
    and nothing between it and the update lets another name hold it: converted. An alias made
    in between, or in a loop's earlier iteration, is still refused."""
    from tests.fuzz import oracle

    src = HEADER + "def f(u, steps):\n" + body
    out = oracle.run(src, [(np.arange(6, dtype=np.float32), 3), (np.arange(6, dtype=np.float32), 1)],
                     name="f", decorator=True)
    assert out.kind in oracle.OK, out.report()
    codes = " ".join(out.refusals)
    assert ("AJ901" in codes or "AJ908" in codes) is refused, out.report()
    if not refused:
        assert out.kind == "converted" and ".at[" in out.converted, out.report()


@pytest.mark.parametrize(
    "body, cast",
    [
        ("    x[0] = 2.5\n    x[1] = v[1]\n", True),  # a float into an int array: truncated
        ("    x[0] += v[0]\n    x[2] -= 0.75\n", True),  # NumPy casts the sum back
        ("    x[1] /= 2\n    x[2] *= v[2]\n", True),  # (a quotient is a float)
        ("    x[0] = 7\n    x[1] += 3\n", False),  # ints into ints: as written
        ("    b = x > 1\n    b[0] = 3\n    b[1] = v[0]\n    return x, b\n", True),  # into bools
    ],
)
def test_an_item_update_of_an_int_or_bool_array_casts_the_value_as_numpy(body, cast):
    """`x[0] = 2.5` of an array known to hold ints (`x = x.astype(jnp.int32)`): NumPy casts
    the value (or the new item, `x[0] += 0.5`) to the array's dtype; `.at[0].set(2.5)` cast it
    too, with a FutureWarning from jax ("scatter inputs have incompatible types: cannot safely
    cast", an error in later releases). The conversion casts it itself now, as NumPy does
    (`jnp.asarray(v, x.dtype)` truncates toward zero); ints into ints stay as written."""
    import warnings

    src = HEADER + "def f(x, v):\n    x = x.astype(jnp.int32)\n" + body
    if "return" not in body:
        src += "    return x\n"
    calls = [
        ((np.array([1.0, 2.0, 3.0], F32), np.array([2.7, -0.5, 1.5], F32)), {}),
        ((np.array([-4.0, 0.0, 9.0], F32), np.array([-2.7, 0.25, -1.5], F32)), {}),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        c = check(src, "f", calls)
    assert c.changes and {ch.code for ch in c.changes} <= {"AJ301", "AJ302"}, c.changes
    assert ("x.dtype)" in c.text or "b.dtype)" in c.text) == cast, c.text
    assert convert(c.text).text == c.text  # (converting again changes nothing)


@pytest.mark.parametrize(
    "body, indices",
    [
        # an index that may be a mask or integers (AJ304): both forms cast the value
        ("    x[idx] = 2.5\n", "both"),
        ("    x[idx] = v[idx]\n", "ints"),  # (a value that may not be a scalar: integers only)
        # a part's `.fill(v)` (AJ305): `x.at[i].set(v)` casts v as NumPy's fill does
        ("    x = x.reshape(2, 2)\n    x[0].fill(2.5)\n    x[1].fill(v[0])\n", "ints"),
    ],
)
def test_a_mask_or_integer_update_and_a_part_fill_cast_the_value_as_numpy(body, indices):
    """The cast of a higher-kind value into an array known to hold ints (`jnp.asarray(v,
    x.dtype)`, as NumPy casts it) is made in the integer form of an update whose index may be a
    boolean mask or integers (AJ304: `... else x.at[idx].set(v)`), and in a part's `.fill(v)`
    (AJ305), not only in the plain `.at[i].set` (AJ301): jax's scatter casts with a
    FutureWarning there (an error in later releases)."""
    import warnings

    src = HEADER + "def f(x, idx, v):\n    x = x.astype(jnp.int32)\n" + body + "    return x\n"
    x = np.array([1.0, 2.0, 3.0, 4.0], F32)
    v = np.array([2.7, -0.5, 1.5, -3.5], F32)
    calls = [((x, np.array([0, 2]), v), {}), ((-x, np.array([3, 1]), v[::-1].copy()), {})]
    if indices == "both":
        calls.append(((x, np.array([True, False, False, True]), v), {}))
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        c = check(src, "f", calls)
    assert {ch.code for ch in c.changes} & {"AJ304", "AJ305"}, c.changes
    assert "x.dtype)" in c.text, c.text
    assert convert(c.text).text == c.text  # (converting again changes nothing)
