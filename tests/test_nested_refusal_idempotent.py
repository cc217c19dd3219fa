"""Nested `if`s whose outer one is refused: converting the output again changes nothing.

The dtype-by-path check (AJ918, "`r` is given values of different types ... and returned") of an
inner `if` followed the statements written after it, its outer `if`'s other branch included: an
`r = 1` there "gave `r` a new value" and hid the `return x * r`. The inner `if` was converted
(`r = jnp.where(c, 2, 0.5)`, one dtype where Python gives an int or a float) while the outer one
was refused; converting that output again judged the outer `if` on the `jnp.where` (a value of
no known Python type) and converted it. An assignment now gives a name a new value for that
check only where it runs whenever the `if` does (its own block, the blocks around it).
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import autojit
from tests.fuzz import oracle

INPUTS = [
    (np.array(v, np.int32),) for v in ([1, 2], [1, -2], [-1, 2], [-1, -2], [-1, 7], [3, 6])
]


def _convert(src: str) -> autojit.Conversion:
    return autojit.convert_source(src, "t.py", all_functions=True)


def _check(src: str, expected: tuple[str, ...] = oracle.OK) -> autojit.Conversion:
    src = textwrap.dedent(src)
    first = _convert(src)
    again = _convert(first.text)
    assert again.text == first.text, "converting twice changed:\n" + again.text
    out = oracle.run(src, INPUTS, name="f", decorator=True)
    assert out.kind in expected, out.report()
    return first


# the bug's repro: the outer `if` refused (AJ918), the inner one was converted
NESTED_IN_BODY = """
    import jax.numpy as jnp
    def f(x):
        if x[0] > 0:
            if x[1] > 0:
                r = 2
            else:
                r = 0.5
        else:
            r = 1
        return x * r
    """

NESTED_IN_ELSE = """
    import jax.numpy as jnp
    def f(x):
        if x[0] > 0:
            r = 1
        else:
            if x[1] > 0:
                r = 2
            else:
                r = 0.5
        return x * r
    """

ELIF_CHAIN = """
    import jax.numpy as jnp
    def f(x):
        if x[0] > 0:
            r = 1
        elif x[1] > 0:
            r = 2
        else:
            r = 0.5
        return x * r
    """

NESTED_AND_ELIF = """
    import jax.numpy as jnp
    def f(x):
        if x[0] > 0:
            if x[1] > 0:
                r = 2
            else:
                r = 0.5
        elif x[1] > 5:
            r = 3
        else:
            r = 1
        return x * r
    """

# the outer `if` is refused for the types its whole nest gives `r` (whatever the `r = 3` after
# the inner one): the inner one is refused with it
REASSIGNED_IN_BRANCH = """
    import jax.numpy as jnp
    def f(x):
        if x[0] > 0:
            if x[1] > 0:
                r = 2
            else:
                r = 0.5
            r = 3
        else:
            r = 1
        return x * r
    """

TERNARY_IN_BODY = """
    import jax.numpy as jnp
    def f(x):
        if x[0] > 0:
            r = 2 if x[1] > 0 else 0.5
        else:
            r = 1
        return x * r
    """

# an assignment under a later `if` does not run on every path: it gives `r` no new value
REASSIGNED_UNDER_AN_IF = """
    import jax.numpy as jnp
    def f(x):
        if x[1] > 0:
            r = 2
        else:
            r = 0.5
        if x[0] > 0:
            r = 1
        return x * r
    """


@pytest.mark.parametrize(
    "src",
    [
        NESTED_IN_BODY,
        NESTED_IN_ELSE,
        ELIF_CHAIN,
        NESTED_AND_ELIF,
        REASSIGNED_IN_BRANCH,
        REASSIGNED_UNDER_AN_IF,
    ],
    ids=[
        "nested-in-body",
        "nested-in-else",
        "elif-chain",
        "nested-and-elif",
        "reassigned-in-branch",
        "reassigned-under-an-if",
    ],
)
def test_types_by_path_refused_whole_and_stable(src: str) -> None:
    conv = _check(src, ("refused",))
    assert any(r.code == "AJ918" for r in conv.refusals), conv.refusals
    if src is not REASSIGNED_UNDER_AN_IF:  # (its second `if` alone is converted, `jnp.where`)
        assert not [c for c in conv.changes if c.code != "AJ100"], conv.changes
        assert conv.text == textwrap.dedent(src)


def test_ternary_of_two_types_in_a_branch_is_refused() -> None:
    """Its `r = 1` in the other branch hid the `return x * r` from the ternary's check too: it
    became a `jnp.where` (a float where Python gives `x * 2` an int array)."""
    conv = _check(TERNARY_IN_BODY, ("refused",))
    assert [(r.code, r.location.line) for r in conv.refusals if r.code == "AJ918"]
    assert "2 if x[1] > 0 else 0.5" in conv.text


def test_the_inner_if_of_the_repro_is_refused_for_its_own_types() -> None:
    conv = _convert(textwrap.dedent(NESTED_IN_BODY))
    lines = {(r.code, r.location.line) for r in conv.refusals}
    assert ("AJ918", 5) in lines, conv.refusals  # `if x[1] > 0:`
    assert 4 in {line for _, line in lines}, conv.refusals  # `if x[0] > 0:`, around it


def test_outer_refused_for_a_raise_keeps_its_inner_conversion() -> None:
    """The outer `if` refused for what its other branch does (AJ911): the inner one, whose
    branches give one type, is converted, and the outer one is refused the same way again."""
    conv = _check(
        """
        import jax.numpy as jnp
        def f(x):
            if x[0] > -100:
                if x[1] > 0:
                    r = 2.0
                else:
                    r = 0.5
            else:
                raise ValueError("negative")
            return x * r
        """,
        ("refused",),
    )
    assert {r.code for r in conv.refusals} == {"AJ911"}
    assert "jnp.where(x[1] > 0, 2.0, 0.5)" in conv.text


def test_outer_refused_for_a_shape_use_keeps_its_inner_conversion() -> None:
    """The outer `if` refused for a Python value it would make traced, read as a shape after
    it: the inner `if`, which does not write it, is converted; stable on a second pass."""
    conv = _check(
        """
        import jax.numpy as jnp
        def f(x):
            n = 1
            if x[0] > 0:
                if x[1] > 0:
                    r = 2.0
                else:
                    r = 0.5
                n = 2
            else:
                r = 1.0
            return x * r * jnp.ones(n)
        """,
        ("refused",),
    )
    assert {r.code for r in conv.refusals} == {"AJ918"}
    assert "jnp.where(x[1] > 0, 2.0, 0.5)" in conv.text


@pytest.mark.parametrize(
    "src",
    [
        """
        import jax.numpy as jnp
        def f(x):
            if x[1] > 0:
                r = 2
            else:
                r = 0.5
            r = 1
            return x * r
        """,
        """
        import jax.numpy as jnp
        def f(x):
            if x[0] > 0:
                if x[1] > 0:
                    r = 2
                else:
                    r = 3
            else:
                r = 1
            return x * r
        """,
    ],
    ids=["reassigned-after", "one-type-nested"],
)
def test_still_converted(src: str) -> None:
    conv = _check(src, ("converted",))
    assert not conv.refusals, conv.refusals


def test_promotion_dtype_argument_is_no_shape_use() -> None:
    """Soak: an `elif` converted first left `jnp.asarray(v, jnp.result_type(v, 1.0))` in the
    branch of the `if` around it; `jnp.result_type` of a value the outer `if` makes traced was
    taken for a shape argument (AJ918), a refusal the second conversion, which analyses that
    code as written, did not make."""
    src = textwrap.dedent(
        """
        import jax.numpy as jnp

        def f(x, y, a, k):
            n = x.shape[0]
            s = a
            c = 0
            if (k == 0 or n > 3) or not n > 3:
                pass
            elif a == (y[n - 1] if x[-1] < -0.5 else 1.0):
                i = 0
                while i < n and k >= n - 2:
                    i += 1
                    c += 1
                    if k == 0:
                        s = a * 0.5
                    else:
                        s = jnp.max(y)
            else:
                y = y.at[-1].set(s)
            return (x, y, s, c)
        """
    )
    first = _convert(src)
    assert _convert(first.text).text == first.text
    x = np.array([-0.5, -0.25, -1.0, -2.75, -0.5], np.float32)
    y = np.array([-0.5, 0.75, -2.75, 0.25, 1.75], np.float32)
    inputs = [(x, y, np.float32(a), k) for a in (-1.5, 1.75) for k in (0, 1, 3)]
    out = oracle.run(src, inputs, name="f")
    assert out.kind in oracle.OK, out.report()
