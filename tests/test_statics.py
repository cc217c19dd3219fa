"""Static-argument inference: run the jitted function with several values of each static arg."""

import numpy as np
import pytest

import autojit

SOURCE = """
import jax
import jax.numpy as jnp
from jax import random


def create_filled(val, length):
    return jnp.full((length,), val)


def multinomial_sample(rng_key, logits, n_samples):
    return random.categorical(rng_key, logits, shape=[n_samples, ])


def doubled_zeros(x, n):
    m = 2 * n
    return jnp.zeros(m) + x[:n].sum()


def scale(x, k):
    return jnp.multiply(x, k)


def head(x):
    return jnp.asarray(x)[: x.shape[0] // 2]
"""


@pytest.fixture(scope="module")
def converted():
    c = autojit.convert_source(SOURCE, "statics.py")
    ns: dict = {}
    exec(compile(c.text, "statics.py", "exec"), ns)
    return c, ns


def test_inferred_static_arguments_and_their_lines(converted):
    c, _ = converted
    got = {f.name: f.static_argnames for f in c.functions}
    assert got["create_filled"] == ("length",)
    assert got["multinomial_sample"] == ("n_samples",)
    assert got["doubled_zeros"] == ("n",)
    # values only read by value, and shapes read through .shape, stay traced
    assert got["scale"] == ()
    assert got["head"] == ()
    where = c.function("create_filled").static_arguments[0]
    assert (where.location.line, where.index) == (8, 1)


@pytest.mark.parametrize("length", [1, 5, 17])
def test_create_filled_jits_for_several_lengths(converted, length):
    import jax

    c, ns = converted
    f = ns["create_filled"]
    jitted = jax.jit(f, static_argnames=c.function("create_filled").static_argnames)
    for val in (1.0, np.float32(2.5)):
        want = f(val, length)
        got = jitted(val, length)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want)


@pytest.mark.parametrize("n", [1, 3])
def test_doubled_zeros(converted, n):
    import jax

    c, ns = converted
    f = ns["doubled_zeros"]
    x = np.arange(4, dtype=np.float32)
    jitted = jax.jit(f, static_argnames=c.function("doubled_zeros").static_argnames)
    np.testing.assert_allclose(jitted(x, n), f(x, n))
