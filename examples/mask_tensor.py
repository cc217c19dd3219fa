"""Setting masked positions of an array, with a boolean mask known only at run time.

Eagerly this works, but under `jax.jit` a boolean index cannot be traced, because the number
of selected elements depends on the mask's values:

    NonConcreteBooleanIndexError: Array boolean indices must be concrete; got ShapedArray(bool[4,4])

`autojit convert --diff examples/` rewrites the updates into `jnp.where`, which has a static
shape (and, unlike `~mask * x - mask * 100.`, keeps infinities out of the result).
"""

import jax
import jax.numpy as jnp


def mask_tensor(x, mask):
    x = x.at[mask].set(-100.0)
    return x


def mask_tensor_numpy_style(x, mask):
    x[mask] = -100.0
    return x


def relu_in_place(x):
    x[x < 0] = 0.0
    return x


def scale_outliers(x, limit):
    outliers = jnp.abs(x) > limit
    x[outliers] *= 0.1
    return x


def drop_empty_rows(x):
    empty = x.sum(axis=1) == 0
    x[empty] = jnp.nan
    return x


if __name__ == "__main__":
    key = jax.random.PRNGKey(0)
    key, x_key, mask_key = jax.random.split(key, 3)
    x = jax.random.normal(x_key, (4, 4))
    mask = jax.random.uniform(mask_key, (4, 4)) < 0.5

    print("calling eager function")
    print(mask_tensor(x, mask))

    print("calling compiled function")
    jit_mask_tensor = jax.jit(mask_tensor)
    print(jit_mask_tensor(x, mask))
    print(jax.jit(mask_tensor_numpy_style)(x, mask))
    print(jax.jit(relu_in_place)(x))
    print(jax.jit(scale_outliers)(x * 10, 5.0))
    print(jax.jit(drop_empty_rows)(x.at[1].set(0.0)))
