"""AJ945: a Python number or comparison taken of a traced value is reported where it is
written, and left as it is (jit fails there: the report says why and what to write instead)."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import autojit

HEAD = "import jax.numpy as jnp\n\n\ndef f(x, a, n):\n    s = jnp.sum(x)\n"


def _codes(body: str) -> list[tuple[str, int]]:
    conv = autojit.convert_source(HEAD + body, "f.py")
    return [(r.code, r.location.line) for r in conv.refusals if r.code == "AJ945"]


@pytest.mark.parametrize(
    "line",
    [
        "u = float(s)",
        "u = int(s * 2)",
        "u = complex(x[0])",
        "u = bool(s > 1)",
        "u = s.item()",
        "u = x.tolist()",
        "u = max(s, a)",
        "u = min(x[0], 1.0)",
        "u = max(x)",
        "u = 1.0 + float(jnp.max(x))",
    ],
)
def test_a_python_number_of_a_traced_value_is_reported(line: str) -> None:
    assert _codes(f"    {line}\n    return u\n") == [("AJ945", 6)]
    conv = autojit.convert_source(HEAD + f"    {line}\n    return u\n", "f.py")
    assert line in conv.text  # (left as it is)
    message = next(r.reason for r in conv.refusals if r.code == "AJ945")
    assert "jit" in message and ("jnp." in message or "array" in message), message


@pytest.mark.parametrize(
    "line",
    [
        "u = float(x.shape[0])",  # a shape is a Python int
        "u = int(n)",  # a parameter used so is made static (AJ4xx)
        "u = max(x.ndim, 2)",
        "u = s if bool(s > 0) else a",  # a test: the conditionals take its truth
        "u = bool(s > 0) and a",
        "u = len(x)",
        "u = x.sum().astype(jnp.int32)",
        "u = (lambda: float(s))",  # (runs later: not known)
    ],
)
def test_static_values_tests_and_later_calls_are_not_reported(line: str) -> None:
    assert _codes(f"    {line}\n    return u\n") == []


def test_a_call_guarded_by_try_or_a_rebound_builtin_is_not_reported() -> None:
    guarded = "    try:\n        u = float(s)\n    except TypeError:\n        u = s\n    return u\n"
    assert _codes(guarded) == []
    rebound = "    float = jnp.float32\n    u = float(s)\n    return u\n"
    assert _codes(rebound) == []


def test_the_if_around_is_still_converted_and_jit_fails_where_reported() -> None:
    src = HEAD + "    if x[0] > 0:\n        s = s + 1.0\n    u = max(s, x[1])\n    return u\n"
    conv = autojit.convert_source(src, "f.py")
    assert [(r.code, r.location.line) for r in conv.refusals] == [("AJ945", 8)]
    assert "lax.cond(" in conv.text
    ns: dict = {}
    exec(compile(conv.text, "f.py", "exec"), ns)
    x = np.array([1.0, 2.0], np.float32)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(ns["f"], static_argnames="n")(x, np.float32(1.0), 2)


def test_rule_is_explained_by_the_cli() -> None:
    from click.testing import CliRunner

    from autojit.cli import main

    result = CliRunner().invoke(main, ["explain", "AJ945"])
    assert result.exit_code == 0, result.output
    assert "python-number-of-traced-value" in result.output


def test_a_parameter_changed_in_place_is_an_array_not_a_static_number() -> None:
    """Soak seed 21005 (--rich): `t = min(y[1], 1.0)` made `y` static (an argument of `min()`,
    `y` possibly a tuple of numbers), though `y[1] *= 2.0` changes it in place, which no
    static (hashable) value allows: jit failed on the array ("Non-hashable static
    arguments") with no rule code. An item store makes a parameter an array; the `min` is
    reported (AJ945)."""
    src = (
        "import jax.numpy as jnp\n\n\ndef f(x, y):\n    s = jnp.sum(x)\n"
        "    t = min(y[1], 1.0)\n    y[1] *= 2.0\n    return y, t\n"
    )
    conv = autojit.convert_source(src, "f.py")
    assert conv.function("f").static_argnames == ()
    assert ("AJ945", 6) in [(r.code, r.location.line) for r in conv.refusals]
