"""Python conditionals on traced values, as the tutorials write them.

`square_or_cube` and `f` branch on the value of their argument, which fails under `jax.jit`:

    TracerBoolConversionError: Attempted boolean conversion of traced array with shape bool[].
    (older jax: ConcretizationTypeError: Abstract tracer value encountered where concrete
    value is expected)

`log2_if_rank_2` branches on the rank, which is known when jax traces: it works as written and
stays a Python `if`. `safe_norm` returns early, `relu_or_leaky` mixes a static flag with a
traced test, and `describe` prints a traced value.

`autojit convert --diff examples/conditionals.py` shows the `jnp.where` / `jax.lax.cond`
versions; `autojit convert -i examples/conditionals.py` writes them, after which the `__main__`
block runs.
"""

import jax
import jax.numpy as jnp


def square_or_cube(x):
    if x % 2 == 0:
        return x ** 2
    else:
        return x * x * x


def f(x):
  if x > 0:
    return x
  else:
    return 2 * x


def log2_if_rank_2(x):
  if x.ndim == 2:
    ln_x = jnp.log(x)
    ln_2 = jnp.log(2.0)
    return ln_x / ln_2
  else:
    return x


def safe_norm(v, eps=1e-6):
    n = jnp.sqrt(jnp.dot(v, v))
    if n < eps:
        return 0.0
    v = v / n
    return jnp.dot(v, jnp.arange(v.shape[0], dtype=v.dtype))


def relu_or_leaky(x, leaky: bool = False):
    if leaky or x.sum() > 0:
        y = jnp.where(x > 0, x, 0.01 * x)
    else:
        y = jnp.zeros_like(x)
    return y


def piecewise(x, lo, hi):
    if x < lo:
        y = lo
    elif x > hi:
        y = hi
    else:
        y = x
    return y


def describe(x):
    total = x.sum()
    print("total:", total)
    return total if total > 0 else -total


if __name__ == "__main__":
    square_or_cube_jit = jax.jit(square_or_cube)
    print(square_or_cube_jit(2), square_or_cube_jit(3))
    f_jit = jax.jit(f)
    print(f_jit(10), f_jit(-10))
    print(jax.jit(log2_if_rank_2)(jnp.array([[1.0, 2.0], [4.0, 8.0]])))
    print(jax.jit(safe_norm)(jnp.array([3.0, 4.0])), jax.jit(safe_norm)(jnp.zeros(2)))
    print(jax.jit(relu_or_leaky, static_argnames="leaky")(jnp.array([-1.0, 2.0])))
    print(jax.jit(piecewise)(5.0, 0.0, 1.0))
    print(jax.jit(describe)(jnp.array([-1.0, -2.0])))
