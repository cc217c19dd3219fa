"""AJ403 masked reductions and AJ940-AJ943 refusals: the eager original (NumPy, where `x[mask]`
works) against the converted function under `jax.jit`, same values, shapes and dtypes."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from differential import assert_same, convert, load, run_jitted

F32, I32 = np.float32, np.int32

HEADER = "import jax\nimport jax.numpy as jnp\n\n\n"

X = np.array([-2.0, 3.5, 0.0, 7.0, -1.5, 2.0], F32)
X2 = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]], F32)
XI = np.array([4, -3, 9, 0, 2], I32)
WITH_INF = np.array([1.0, np.inf, -3.0, np.nan, 2.5, -np.inf], F32)
ALL_NEG = -np.abs(X) - 1

# (id, source of f, calls (args only)); every call keeps a non-empty selection for max/min
FORMS = [
    ("sum", "def f(x):\n    return x[x > 0].sum()\n", [(X,), (X2,), (XI,), (ALL_NEG,)]),
    ("prod", "def f(x):\n    return x[x > 0].prod()\n", [(X,), (X2,), (XI,), (ALL_NEG,)]),
    (
        "mean",
        "def f(x):\n    m = x > 0\n    return x[m].mean()\n",
        [(X,), (X2,), (XI,), (ALL_NEG,)],  # empty: nan, like NumPy
    ),
    ("max", "def f(x):\n    return x[x < 3].max()\n", [(X,), (X2,), (XI,), (ALL_NEG,)]),
    ("min", "def f(x):\n    return x[x > -3].min()\n", [(X,), (X2,), (XI,)]),
    (
        "jnp-functions",
        "def f(x):\n    keep = jnp.isfinite(x)\n"
        "    return jnp.sum(x[keep]), jnp.max(x[keep]), jnp.min(x[keep]), jnp.mean(x[keep])\n",
        [(WITH_INF,), (X,)],
    ),
    (
        "int-after-astype",
        "def f(x):\n    k = x.astype(jnp.int32)\n    return k[k > 1].min(), k[k > 1].max()\n",
        [(X,), (X2,)],
    ),
    (
        "count",
        "def f(x):\n    return len(x[x > 0]), x[x > 1].size\n",
        [(X,), (X2[0],), (ALL_NEG,)],
    ),
    (
        "count-2d",
        "def f(x):\n    return x[x > 0].size\n",
        [(X2,)],
    ),
    (
        "inverted-mask",
        "def f(x, t):\n    small = jnp.abs(x) < t\n    return x[~small].sum() + x[small].mean()\n",
        [(X, F32(2.5)), (X2, F32(4.5))],
    ),
    (
        "row-mask",  # a mask over the leading axis selects rows, as in NumPy
        "def f(x):\n    rows = x.sum(axis=1) > 0\n    return x[rows].sum(), x[rows].mean()\n",
        [(X2,), (np.abs(X2),)],
    ),
    (
        "mask-parameter",  # dtype unknown: chosen at trace time; integer indices kept as written
        "def f(x, mask):\n    return x[mask].sum(), x[mask].mean(), len(x[mask]), x[mask].max()\n",
        [
            (X, X > 0),
            (X2, X2 < 2),
            (X2, np.array([False, True])),  # a row mask
            (X, np.array([0, 2, 2], I32)),  # integer indices
            (X2, np.array([1], I32)),
        ],
    ),
    (
        "in-expression",
        "def f(x, y):\n    return y * x[y > 0].sum() - x[x > 0].max()\n",
        [(X, X[::-1].copy())],
    ),
]


def check(src: str, calls) -> object:
    """The original run eagerly on JAX arrays (where `x[mask]` works: JAX's dtypes, e.g. an
    int32 sum) and on NumPy arrays (values only), against the converted function jitted."""
    c = convert(src)
    assert "AJ403" in {ch.code for ch in c.changes}, (c.changes, c.refusals, c.text)
    original, converted = load(src)["f"], load(c.text)["f"]
    statics = c.function("f").static_argnames
    for args in calls:
        expected = original(*[jnp.asarray(a) for a in args])
        got = run_jitted(converted, statics, args)
        try:
            assert_same(expected, got)
            with np.errstate(all="ignore"):
                on_numpy = original(*[np.asarray(a).copy() for a in args])
            for e, g in zip(jax.tree.leaves(on_numpy), jax.tree.leaves(got), strict=True):
                np.testing.assert_allclose(np.asarray(g), e, rtol=1e-5, equal_nan=True)
        except AssertionError as e:
            raise AssertionError(f"{e}\nargs={args!r}\nconverted:\n{c.text}") from None
    return c


@pytest.mark.parametrize("fid,src,calls", FORMS, ids=[f[0] for f in FORMS])
def test_masked_reduction_keeps_numpy_values(fid, src, calls):
    c = check(HEADER + src, calls)
    assert not [r for r in c.refusals if r.code.startswith("AJ94")], c.refusals
    # no boolean selection is left, and converting again changes nothing
    assert "[x > 0]" not in c.text and "[m]" not in c.text
    assert convert(c.text).text == c.text


def test_output_reads_like_hand_written_jax():
    c = convert(HEADER + "def f(x):\n    m = x > 0\n    return x[m].sum(), x[m].mean()\n")
    assert "return (jnp.where(m, x, 0).sum(), jnp.mean(x, where=m))" in c.text


def test_masked_mean_of_large_ints_does_not_overflow():
    """`x[m].mean()` of int32 values near 2**31: jnp's mean sums in float, as the mean of the
    selected elements does; a sum in int32 wrapped (-147483648.0 for 2e9)."""
    src = HEADER + "def f(x, t):\n    return x[x > t].mean()\n"
    c = convert(src)
    f = load(c.text)["f"]
    x = jnp.array([2_000_000_000, 2_000_000_000, 1], jnp.int32)
    want = load(src)["f"](x, 5)  # the original, eager, with jax arrays
    got = jax.jit(f)(x, 5)
    assert float(got) == float(want) == 2e9


def test_float_max_uses_minus_inf_and_int_min_the_dtype_max():
    c = convert(
        HEADER + "def f(x):\n    y = x.astype(jnp.float32)\n    k = x.astype(jnp.int32)\n"
        "    return y[y > 0].max(), k[k > 0].min()\n"
    )
    assert "jnp.where(y > 0, y, -jnp.inf).max()" in c.text
    assert "jnp.where(k > 0, k, jnp.iinfo(k.dtype).max).min()" in c.text


def test_empty_selection_gives_the_identity_under_jit():
    """NumPy raises for the max of an empty selection; the jitted function returns the
    identity (documented in rules/AJ403.md)."""
    src = HEADER + "def f(x):\n    return x[x > 100].max(), x[x > 100].min(), x[x > 100].sum()\n"
    c = convert(src)
    f = jax.jit(load(c.text)["f"])
    mx, mn, s = f(X)
    assert mx == -np.inf and mn == np.inf and s == 0
    mx, mn, s = f(XI)
    assert mx == np.iinfo(np.int32).min and mn == np.iinfo(np.int32).max and s == 0
    with pytest.raises(ValueError):
        load(src)["f"](X)  # the eager original on NumPy


@pytest.mark.parametrize(
    "src",
    [
        # integer indices: x[idx].sum() works under jit
        "def f(x):\n    idx = jnp.argsort(x)[:2]\n    return x[idx].sum()\n",
        # a reduction with an axis keeps the selection's shape: not a masked reduction
        "def f(x):\n    return x[x > 0].sum(axis=0)\n",
        # a static (NumPy) array and mask: nothing to trace
        "import numpy as np\nA = np.arange(4)\n\ndef f(x):\n    return A[A > 1].sum() + x\n",
    ],
    ids=["int-index", "axis", "numpy-constant"],
)
def test_left_alone(src):
    c = convert(HEADER + src)
    assert "AJ403" not in {ch.code for ch in c.changes}


@pytest.mark.parametrize(
    "call,code",
    [
        ("jnp.nonzero(x)", "AJ940"),
        ("x.nonzero()", "AJ940"),
        ("jnp.flatnonzero(x)", "AJ940"),
        ("jnp.where(x > 0)", "AJ941"),
        ("jnp.unique(x)", "AJ942"),
        ("jnp.argwhere(x)", "AJ943"),
    ],
)
def test_value_sized_functions_are_refused_with_size_advice(call, code):
    c = convert(HEADER + f"def f(x):\n    return {call}\n")
    (r,) = [r for r in c.refusals if r.code == code]
    assert "size=" in r.reason and "fill_value=" in r.reason
    assert r.location.line == 6
    assert c.text == HEADER + f"def f(x):\n    return {call}\n"


@pytest.mark.parametrize(
    "call",
    [
        "jnp.nonzero(x, size=3)",
        "jnp.where(x > 0, x, 0.0)",
        "jnp.unique(x, size=4, fill_value=0)",
        "jnp.argwhere(x, size=2)",
    ],
)
def test_sized_calls_are_not_refused(call):
    c = convert(HEADER + f"def f(x):\n    return {call}\n")
    assert not [r for r in c.refusals if r.code.startswith("AJ94")], c.refusals


def test_sized_calls_on_static_values_are_not_refused():
    c = convert(HEADER + "def f(x):\n    idx = jnp.nonzero(jnp.arange(4) > 1)\n    return x\n")
    # a jnp call is traced in the analysis: the refusal is the safe side; a NumPy constant is not
    c2 = convert(
        "import numpy as np\nimport jax.numpy as jnp\n\n\n"
        "def f(x):\n    idx = np.nonzero(np.arange(4) > 1)\n    return x[idx]\n"
    )
    assert not [r for r in c2.refusals if r.code.startswith("AJ94")]
    assert c is not None


def test_noqa_and_ignore():
    src = HEADER + "def f(x):\n    return x[x > 0].sum()  # noqa: AJ403\n"
    assert convert(src).text == src
    src2 = HEADER + "def f(x):\n    return x[x > 0].sum()\n"
    assert convert(src2, ignore=["AJ403"]).text == src2
    src3 = HEADER + "def f(x):\n    return jnp.unique(x)\n"
    assert not convert(src3, ignore=["AJ94"]).refusals


def test_max_and_min_of_a_boolean_selection_use_false_and_true():
    """`jnp.iinfo` has no bool: the identities of a boolean array's max / min are False / True
    (the conversion failed under jit with `iinfo` of bool; probe 18)."""
    src = HEADER + (
        "def f(x):\n    b = x > 0\n    return b[x < 5].max(), b[x < 5].min()\n"
    )
    c = check(src, [(np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, 6.0]], np.float32),)])
    assert "jnp.where(x < 5, b, False).max()" in c.text, c.text
    assert "jnp.where(x < 5, b, True).min()" in c.text, c.text


@pytest.mark.parametrize(
    "expr,col",
    [
        ("x[x > 0]", 12),
        ("x[m, 0]", 12),
        ("(x < 0)[x > -3]", 12),
        ("jnp.cumsum(x[m])", 23),
        ("x[m].sum(axis=0)", 12),
    ],
)
def test_a_boolean_selection_left_unreduced_is_reported(expr, col):
    """NonConcreteBooleanIndexError under jit: reported where the selection is (AJ921), with
    what to write instead; the text is left as it is and nothing else is refused for it."""
    src = HEADER + f"def f(x):\n    m = x[:, 0] > 0\n    return {expr}\n"
    if "m" not in expr.replace("sum", ""):
        src = HEADER + f"def f(x):\n    return {expr}\n"
    c = convert(src)
    rs = [r for r in c.refusals if r.code == "AJ921"]
    assert len(rs) == 1 and rs[0].location.col == col, c.refusals
    assert "jnp.where(mask, x, fill)" in rs[0].reason and "size=" in rs[0].reason
    assert c.text == src


def test_a_reduced_selection_and_an_if_around_a_kept_one_are_still_converted():
    """AJ921 is a report only: the selection reduced beside it converts (AJ403), and a traced
    `if` around the statement is converted as before (no AJ919)."""
    src = HEADER + (
        "def f(x):\n    s = x[x > 0].sum()\n    if s > 1.0:\n        y = x[x > 1]\n"
        "    else:\n        y = x\n    return s, y\n"
    )
    c = convert(src)
    assert {r.code for r in c.refusals} == {"AJ921"}, c.refusals
    assert "jnp.where(x > 0, x, 0).sum()" in c.text


def test_selections_that_jit_takes_are_not_reported():
    src = HEADER + (
        "import numpy as np\nA = np.arange(4)\n\n"
        "def f(x, i):\n    idx = jnp.argsort(x)[:2]\n    return x[idx], x[True], A[A > 1], x[i]\n"
    )
    assert "AJ921" not in {r.code for r in convert(src).refusals}


@pytest.mark.parametrize(
    "expr", ["x[~m].sum()", "x[m & (x > 0)].mean()", "len(x[m & (x > 0)])", "jnp.max(x[~m])"]
)
def test_a_selection_by_an_expression_of_a_parameter_mask(expr):
    """`x[~m].sum()` with a parameter `m` (a mask or integer indices, as the caller passes):
    only a bare `x[m]` was rewritten; these failed under jit (NonConcreteBooleanIndexError)
    with nothing refused (probe 26)."""
    src = HEADER + f"def f(x, m):\n    return {expr}\n"
    x = np.array([1.0, -2.0, 3.0, 0.5], np.float32)
    check(src, [(x, np.array([True, False, True, False])), (x, np.array([False, True, True, True]))])
    assert "jnp.result_type(" in convert(src).text  # (the mask's dtype chosen when tracing)


@pytest.mark.parametrize(
    "body",
    [
        "    mu = x[x > 0].mean()\n    x[x < 0] = mu\n",
        "    x[x < 0] = jnp.mean(x[x > 0])\n",
        "    m = x > 1\n    x[m] -= x[m].mean()\n",
        "    x[x < 0] = len(x[x > 0])\n",
    ],
)
def test_a_mask_update_by_a_masked_reduction_converts(body):
    """The masked reductions' own forms (`jnp.mean(x, where=m)`, `jnp.count_nonzero(m)`) are
    one number: a mask update by one was refused as possibly not a scalar (AJ905; probe 26)."""
    from tests.fuzz import oracle

    src = HEADER + "def f(x):\n    x = x * 1.0\n" + body + "    return x\n"
    inputs = [(np.array([1.0, -2.0, 3.0, 0.5], np.float32),), (np.array([-1.0, 2.0], np.float32),)]
    out = oracle.run(src, inputs, name="f", decorator=True)
    assert out.kind == "converted" and not out.refusals, out.report()
