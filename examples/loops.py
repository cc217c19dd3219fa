"""Python loops under `jax.jit`, as the tutorials write them.

`g` loops on a traced value, which fails under `jax.jit`:

    TracerBoolConversionError: Attempted boolean conversion of traced array with shape bool[].

`stupid_fn` and `recurrence` run, but unroll: 1000 copies of the body are traced and compiled
(about a second for `stupid_fn`, many seconds for `recurrence`). `first_above` breaks out of a
loop over a traced comparison, and `running_max` iterates over the rows of an array.

`autojit convert --diff examples/loops.py` shows the `lax.while_loop` / `lax.fori_loop` /
`lax.scan` versions; `autojit convert -i examples/loops.py` writes them, after which the
`__main__` block runs and compiles quickly.
"""

import jax
import jax.numpy as jnp


def g(x, n):
  i = 0
  while i < n:
    i += 1
  return x + i


def stupid_fn(x):
  y = jnp.copy(x)
  for _ in range(1000):
    x = x * x
  return y


def recurrence(x, a, b):
    # x[i] = a * x[i - 1] + b, one element at a time
    for i in range(1, x.shape[0]):
        x[i] = a * x[i - 1] + b
    return x


def first_above(x, threshold):
    index = -1
    for i in range(x.shape[0]):
        if x[i] > threshold:
            index = i
            break
    return index


def running_max(x: jax.Array):
    best = x[0]
    out = []
    for row in x:
        best = jnp.maximum(best, row)
        out.append(best)
    return jnp.stack(out)


if __name__ == "__main__":
    print(jax.jit(g)(10, 20))
    print(jax.jit(stupid_fn)(jnp.array([1.0, 0.5, 2.0, 0.0])))
    print(jax.jit(recurrence)(jnp.zeros(1000).at[0].set(1.0), 0.5, 1.0)[:4])
    print(jax.jit(first_above)(jnp.array([0.5, 3.0, 1.0, 7.0]), 2.0))
    print(jax.jit(running_max)(jnp.array([[1.0, 5.0], [3.0, 2.0], [0.0, 9.0]])))
