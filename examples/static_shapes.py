"""Shapes that come from arguments, and selections whose size comes from the data.

`jax.jit` traces a function with abstract values, so every shape must be a Python value when it
traces. A shape taken from an argument fails:

    TypeError: Shapes must be 1D sequences of concrete values of integer type, got
    (Traced<ShapedArray(int32[], weak_type=True)>with<DynamicJaxprTrace(level=1/0)>,).
    If using `jit`, try using `static_argnums` or applying `jit` to smaller subfunctions.

and so does a boolean selection, whose size depends on the mask's values:

    NonConcreteBooleanIndexError: Array boolean indices must be concrete; got ShapedArray(bool[8])

`autojit convert --add-jit examples/static_shapes.py` infers which arguments must be static (the
report gives the line that made each one static) and writes them into the `jax.jit(...)` calls
below, and rewrites the reductions of boolean selections into `jnp.where` with the reduction's
identity element.
"""

import jax
import jax.numpy as jnp
from jax import random


def create_filled(val, length):
    return jnp.full((length,), val)


def multinomial_sample(rng_key, logits, n_samples):
    return random.categorical(rng_key, logits, shape=[n_samples, ])


def dropout(key, x, rate, mode="train"):
    if mode == "train":
        keep = random.bernoulli(key, 1.0 - rate, x.shape)
        return jnp.where(keep, x / (1.0 - rate), 0.0)
    return x


def moving_average(x, window):
    kernel = jnp.ones(window) / window
    return jnp.convolve(x, kernel, mode="valid")


def top_rows(x, k):
    order = jnp.argsort(-x.sum(axis=1))
    return x[order[:k]]


def positive_stats(x):
    positive = x > 0
    return x[positive].sum(), x[positive].mean(), len(x[positive])


def clipped_peak(x, limit):
    return jnp.max(x[x < limit]), jnp.min(x[x > -limit])


def masked_mean(x, mask):
    return x[mask].mean()


if __name__ == "__main__":
    key = random.PRNGKey(0)
    x = random.normal(key, (8,))
    logits = jnp.log(jnp.array([0.1, 0.2, 0.7]))

    print(jax.jit(create_filled)(2.0, 5))
    print(jax.jit(multinomial_sample)(key, logits, 50))
    print(jax.jit(multinomial_sample)(key, logits, 150))
    print(jax.jit(dropout)(key, x, 0.5))
    print(jax.jit(dropout)(key, x, 0.5, mode="eval"))
    print(jax.jit(moving_average)(jnp.arange(10.0), 3))
    print(jax.jit(top_rows)(x.reshape(4, 2), 2))
    print(jax.jit(positive_stats)(x))
    print(jax.jit(clipped_peak)(x, 1.0))
    print(jax.jit(masked_mean)(x, x > 0))
