"""Item assignment on JAX arrays, as in NumPy.

JAX arrays are immutable, so each of these functions fails under `jax.jit` (and eagerly) with

    TypeError: '<class 'jaxlib.xla_extension.ArrayImpl'>' object does not support item
    assignment. JAX arrays are immutable. Instead of ``x[idx] = y``, use
    ``x = x.at[idx].set(y)`` or another .at[] method

`autojit convert --diff examples/` shows the functional `.at[]` updates that keep the NumPy
meaning; `autojit convert examples/` writes them, after which this file runs.
"""

import jax
import jax.numpy as jnp


def set_first(x1):
    x1[0] = 5
    return x1


def add_bonus(scores, bonus):
    scores[0] += bonus
    scores[1:3] *= 2
    scores[-1] -= 1
    return scores


def fill_diagonal(m, value):
    n = min(m.shape)
    idx = jnp.arange(n)
    m[idx, idx] = value
    return m


def one_hot_rows(labels, num_classes):
    out = jnp.zeros((labels.shape[0], num_classes), dtype=jnp.float32)
    out[jnp.arange(labels.shape[0]), labels] = 1.0
    return out


def clamp_borders(image):
    image[0, :] = 0.0
    image[-1, :] = 0.0
    image[:, 0] = 0.0
    image[:, -1] = 0.0
    return image


if __name__ == "__main__":
    x1 = jnp.arange(0, 8, 2)
    print(jax.jit(set_first)(x1))
    print(jax.jit(add_bonus)(jnp.array([10, 20, 30, 40]), 7))
    print(jax.jit(fill_diagonal)(jnp.zeros((3, 4)), 1.5))
    print(jax.jit(one_hot_rows, static_argnames="num_classes")(jnp.array([0, 2, 1]), 4))
    print(jax.jit(clamp_borders)(jnp.ones((4, 5))))
