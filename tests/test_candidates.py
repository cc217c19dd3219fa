"""Which functions `convert` picks: jax functions, not the eager drivers around them."""

import autojit

SOURCE = '''
import time
import jax
import jax.numpy as jnp
import numpy as np


def step(x):
    if x.sum() > 0:
        x = x * 2
    return x


def helper(x):
    if x > 0:
        return x
    return -x


def uses_helper(x):
    return jnp.sin(helper(x))


def plain_python(items):
    if items:
        return items[0]


def run():
    f = jax.jit(step)
    y = f(jnp.ones(3)).block_until_ready()
    if y.sum() > 3:
        print("big")


def timed(x):
    t0 = time.perf_counter()
    y = jnp.sin(x)
    if y.sum() > 0:
        print(time.perf_counter() - t0)


def checked(x):
    y = jnp.cos(x)
    np.testing.assert_allclose(y, np.cos(x))
    if y.sum() > 0:
        print("ok")
'''


def test_candidates_are_jax_functions_and_their_helpers():
    conversion = autojit.convert_source(SOURCE, "m.py")
    assert [f.qualname for f in conversion.functions] == ["step", "helper", "uses_helper"]
    assert "if y.sum() > 3:" in conversion.text  # the driver's own `if` stays Python


def test_drivers_are_converted_when_asked_for():
    conversion = autojit.convert_source(SOURCE, "m.py", only=["run"])
    assert [f.qualname for f in conversion.functions] == ["run"]
