"""Converted loops (AJ2xx) against hand-written `lax` loops and against unrolled Python loops.

    python benchmarks/loops.py [--repeat N] [--unrolled-n N] [--calls N] [--skip-unrolled]
    python benchmarks/loops.py --threshold     # AJ203: unrolled vs fori_loop for short loops

For each case the user's function is converted with `autojit.convert_source` and compared,
side by side in one run, with the `fori_loop` / `while_loop` / `scan` a JAX expert writes:

- compile: `jax.jit(f).lower(*args).compile()` on a fresh function object (trace + lower + XLA
  compile), best of `--repeat` runs, the two versions interleaved;
- steady state: time of one call of the compiled function (`--calls` calls per sample,
  `block_until_ready` on the last), best of `--repeat` samples, interleaved.

Best-of rather than median: on a shared machine the minimum is the least disturbed sample.

Then the recurrence `x[i] = a * x[i - 1] + b` over `--unrolled-n` elements (default 1000): the
converted `fori_loop` against the same loop left as Python (only the item assignment rewritten,
so jit unrolls it). Ratios are converted / hand-written (goal: steady state <= 1.05, compile
<= 1.10). Not a test: timings depend on the machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import textwrap
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import autojit  # noqa: E402

HEADER = "import jax\nimport jax.numpy as jnp\nfrom jax import lax\n\n"

# (name, user source, hand-written source, argument factory)
CASES: list[tuple[str, str, str, Callable[[], tuple]]] = [
    (
        "while: g(x, n) (seed)",
        """
        def g(x, n):
            i = 0
            while i < n:
                i += 1
            return x + i
        """,
        """
        def g(x, n):
            i = lax.while_loop(lambda i: i < n, lambda i: i + 1, 0)
            return x + i
        """,
        lambda: (np.float32(10.0), np.int32(200)),
    ),
    (
        "while: Newton sqrt, 2 carried",
        """
        def g(a, tol):
            x = a
            err = jnp.abs(x * x - a)
            while err > tol:
                x = 0.5 * (x + a / x)
                err = jnp.abs(x * x - a)
            return x
        """,
        """
        def g(a, tol):
            def cond(c):
                return c[1] > tol
            def body(c):
                x, _ = c
                x = 0.5 * (x + a / x)
                return x, jnp.abs(x * x - a)
            x, _ = lax.while_loop(cond, body, (a, jnp.abs(a * a - a)))
            return x
        """,
        lambda: (np.float32(1234.5), np.float32(1e-3)),
    ),
    (
        "fori: stupid_fn, 1000 x*x (seed)",
        """
        def g(x):
            y = jnp.copy(x)
            for _ in range(1000):
                x = x * x
            return y, x
        """,
        """
        def g(x):
            y = jnp.copy(x)
            x = lax.fori_loop(0, 1000, lambda _, x: x * x, x)
            return y, x
        """,
        lambda: (np.array([1.0, 0.999, 0.5, 1.0001], np.float32),),
    ),
    (
        "fori: traced range, accumulator",
        """
        def g(x, n):
            s = jnp.zeros_like(x)
            for i in range(n):
                s = s + jnp.sin(x * i)
            return s
        """,
        """
        def g(x, n):
            return lax.fori_loop(0, n, lambda i, s: s + jnp.sin(x * i), jnp.zeros_like(x))
        """,
        lambda: (np.linspace(0, 1, 64, dtype=np.float32), np.int32(500)),
    ),
    (
        "fori: recurrence n=1000",
        """
        def g(x, a, b):
            for i in range(1, x.shape[0]):
                x[i] = a * x[i - 1] + b
            return x
        """,
        """
        def g(x, a, b):
            def body(i, x):
                return x.at[i].set(a * x[i - 1] + b)
            return lax.fori_loop(1, x.shape[0], body, x)
        """,
        lambda: (np.r_[np.float32(1), np.zeros(999, np.float32)], np.float32(0.5), np.float32(1)),
    ),
    (
        "scan: rows, running state + stacked",
        """
        def g(x: jax.Array):
            best = x[0]
            out = []
            for row in x:
                best = jnp.maximum(best, row) * 0.99
                out.append(best)
            return jnp.stack(out)
        """,
        """
        def g(x):
            def body(best, row):
                best = jnp.maximum(best, row) * 0.99
                return best, best
            _, out = lax.scan(body, x[0], x)
            return out
        """,
        lambda: (np.random.default_rng(0).normal(size=(500, 32)).astype(np.float32),),
    ),
    (
        "while+break: first index above t",
        """
        def g(x, t):
            idx = -1
            for i in range(x.shape[0]):
                if x[i] > t:
                    idx = i
                    break
            return idx
        """,
        """
        def g(x, t):
            def cond(c):
                i, idx = c
                return (idx < 0) & (i < x.shape[0])
            def body(c):
                i, idx = c
                return i + 1, jnp.where(x[i] > t, i, idx)
            return lax.while_loop(cond, body, (0, -1))[1]
        """,
        lambda: (np.linspace(0, 1, 4096, dtype=np.float32), np.float32(0.9)),
    ),
    (
        "fori: sliding window (dynamic_slice)",
        """
        def g(x):
            s = jnp.zeros(8, x.dtype)
            for i in range(x.shape[0] - 8 + 1):
                s = s + x[i:i + 8] * i
            return s
        """,
        """
        def g(x):
            def body(i, s):
                return s + lax.dynamic_slice_in_dim(x, i, 8) * i
            return lax.fori_loop(0, x.shape[0] - 8 + 1, body, jnp.zeros(8, x.dtype))
        """,
        lambda: (np.linspace(0, 1, 2048, dtype=np.float32),),
    ),
    (
        "while+return: running sum until t",
        """
        def g(x, t):
            s = jnp.float32(0)
            for i in range(x.shape[0]):
                s = s + x[i]
                if s > t:
                    return s * 2
            return s + 1
        """,
        """
        def g(x, t):
            def cond(c):
                done, i, _ = c
                return ~done & (i < x.shape[0])
            def body(c):
                _, i, s = c
                s = s + x[i]
                return s > t, i + 1, s
            done, _, s = lax.while_loop(cond, body, (False, 0, jnp.float32(0)))
            return jnp.where(done, s * 2, s + 1)
        """,
        lambda: (np.linspace(0, 1, 4096, dtype=np.float32), np.float32(1500.0)),
    ),
]


def _load(src: str) -> Callable:
    ns: dict[str, Any] = {}
    exec(compile(src, "<bench>", "exec"), ns)
    return ns["g"]


def _compile_time(src: str, args: tuple) -> float:
    fn = _load(src)  # a fresh function object
    jax.clear_caches()  # and nothing cached by jax either
    t0 = time.perf_counter()
    jax.jit(fn).lower(*args).compile()
    return time.perf_counter() - t0


def _run_time(compiled, args: tuple, calls: int) -> float:
    out = None
    t0 = time.perf_counter()
    for _ in range(calls):
        out = compiled(*args)
    jax.block_until_ready(out)
    return (time.perf_counter() - t0) / calls


def _check_same(a, b) -> None:
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
        x, y = jnp.asarray(x), jnp.asarray(y)
        assert x.shape == y.shape and x.dtype == y.dtype, (x.shape, y.shape, x.dtype, y.dtype)
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-6)


def compare(
    name: str, user: str, hand: str, make_args, repeat: int, calls: int, noise: bool = False
) -> dict:
    hand_src = HEADER + textwrap.dedent(hand)
    if noise:  # the hand-written version against itself: what the machine's load alone does
        conv_src = hand_src
    else:
        user_src = HEADER + textwrap.dedent(user)
        conv = autojit.convert_source(user_src, "bench.py", all_functions=True)
        assert not conv.refusals, conv.refusals
        assert any(c.code.startswith("AJ2") for c in conv.changes), f"{name}: not converted"
        conv_src = conv.text
    args = make_args()
    fns = {"converted": jax.jit(_load(conv_src)), "hand": jax.jit(_load(hand_src))}
    _check_same(fns["converted"](*args), fns["hand"](*args))
    compile_s: dict[str, list[float]] = {"converted": [], "hand": []}
    run_s: dict[str, list[float]] = {"converted": [], "hand": []}
    compiled = {
        k: jax.jit(_load(s)).lower(*args).compile()
        for k, s in (("converted", conv_src), ("hand", hand_src))
    }
    for k in compiled:
        _run_time(compiled[k], args, max(1, calls // 10))  # warm up
    for r in range(repeat):
        order = [("converted", conv_src), ("hand", hand_src)]
        for k, src in order if r % 2 == 0 else order[::-1]:  # alternate who goes first
            compile_s[k].append(_compile_time(src, args))
            run_s[k].append(_run_time(compiled[k], args, calls))
    # best of `repeat`: the machine is shared, and the minimum is the least disturbed sample
    med = {k: (min(compile_s[k]), min(run_s[k])) for k in compile_s}
    same = str(jax.make_jaxpr(_load(conv_src))(*args)) == str(
        jax.make_jaxpr(_load(hand_src))(*args)
    )
    return {
        "case": name,
        "same_jaxpr": "yes" if same else "no",
        "compile_conv_ms": med["converted"][0] * 1e3,
        "compile_hand_ms": med["hand"][0] * 1e3,
        "run_conv_us": med["converted"][1] * 1e6,
        "run_hand_us": med["hand"][1] * 1e6,
        "compile_ratio": med["converted"][0] / med["hand"][0],
        "run_ratio": med["converted"][1] / med["hand"][1],
    }


def unrolled_vs_converted(n: int, repeat: int, calls: int) -> dict:
    user = HEADER + textwrap.dedent(
        """
        def g(x, a, b):
            for i in range(1, x.shape[0]):
                x[i] = a * x[i - 1] + b
            return x
        """
    )
    conv = autojit.convert_source(user, "bench.py", all_functions=True).text
    # the same loop left as Python: only the item assignment rewritten (AJ3xx), jit unrolls it
    unrolled = autojit.convert_source(user, "bench.py", all_functions=True, select=["AJ3"]).text
    assert "fori_loop" in conv and "fori_loop" not in unrolled
    args = (np.r_[np.float32(1), np.zeros(n - 1, np.float32)], np.float32(0.5), np.float32(1))
    out: dict[str, Any] = {"n": n}
    for key, src, reps in (("converted", conv, repeat), ("unrolled", unrolled, 1)):
        times = [_compile_time(src, args) for _ in range(reps)]
        compiled = jax.jit(_load(src)).lower(*args).compile()
        _run_time(compiled, args, 10)
        out[f"compile_{key}_s"] = statistics.median(times)
        out[f"run_{key}_us"] = (
            statistics.median(_run_time(compiled, args, calls) for _ in range(repeat)) * 1e6
        )
    return out


def threshold(repeat: int, calls: int) -> None:
    """Compile and run time of a short static loop, unrolled vs fori_loop (AJ203's threshold)."""
    body = "y = jnp.sin(y) * 0.5 + i"
    x = np.linspace(0, 1, 8, dtype=np.float32)
    print(
        "| n | unrolled compile (ms) | fori_loop compile (ms) | unrolled run (us) | "
        "fori_loop run (us) |"
    )
    print("|---|---|---|---|---|")
    for n in (2, 4, 8, 16, 32, 64):
        srcs = {
            "unrolled": HEADER + f"def g(y):\n    for i in range({n}):\n        {body}\n"
            "    return y\n",
            "fori": HEADER + f"def g(y):\n    def b(i, y):\n        {body}\n        return y\n"
            f"    return lax.fori_loop(0, {n}, b, y)\n",
        }
        comp = {
            k: statistics.median(_compile_time(s, (x,)) for _ in range(repeat))
            for k, s in srcs.items()
        }
        runs = {}
        for k, s in srcs.items():
            c = jax.jit(_load(s)).lower(x).compile()
            _run_time(c, (x,), calls)
            runs[k] = statistics.median(_run_time(c, (x,), calls) for _ in range(repeat))
        print(
            f"| {n} | {comp['unrolled'] * 1e3:.1f} | {comp['fori'] * 1e3:.1f} | "
            f"{runs['unrolled'] * 1e6:.1f} | {runs['fori'] * 1e6:.1f} |",
            flush=True,
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--calls", type=int, default=200)
    p.add_argument("--unrolled-n", type=int, default=1000)
    p.add_argument("--skip-unrolled", action="store_true")
    p.add_argument("--threshold", action="store_true", help="only the AJ203 threshold table")
    a = p.parse_args()
    if a.threshold:
        threshold(a.repeat, a.calls)
        return
    print(
        f"jax {jax.__version__} on {jax.devices()[0].platform}, {os.cpu_count()} cpus, "
        f"repeat={a.repeat}, calls={a.calls}"
    )
    print()
    print(
        "| case | compile converted / hand (ms) | ratio | run converted / hand (us) | ratio "
        "| same jaxpr |"
    )
    print("|---|---|---|---|---|---|")
    for name, user, hand, make in CASES:
        r = compare(name, user, hand, make, a.repeat, a.calls)
        print(
            f"| {r['case']} | {r['compile_conv_ms']:.1f} / {r['compile_hand_ms']:.1f} | "
            f"{r['compile_ratio']:.2f} | {r['run_conv_us']:.1f} / {r['run_hand_us']:.1f} | "
            f"{r['run_ratio']:.2f} | {r['same_jaxpr']} |",
            flush=True,
        )
    name, user, hand, make = next(c for c in CASES if c[0].startswith("fori: recurrence"))
    r = compare("(noise: hand-written vs itself)", user, hand, make, a.repeat, a.calls, True)
    print(
        f"| {r['case']} | {r['compile_conv_ms']:.1f} / {r['compile_hand_ms']:.1f} | "
        f"{r['compile_ratio']:.2f} | {r['run_conv_us']:.1f} / {r['run_hand_us']:.1f} | "
        f"{r['run_ratio']:.2f} | {r['same_jaxpr']} |",
        flush=True,
    )
    if not a.skip_unrolled:
        r = unrolled_vs_converted(a.unrolled_n, a.repeat, a.calls)
        print()
        print(f"recurrence x[i] = a * x[i - 1] + b, n = {r['n']}:")
        print("| version | compile | run |")
        print("|---|---|---|")
        print(
            f"| converted (fori_loop) | {r['compile_converted_s'] * 1e3:.1f} ms | "
            f"{r['run_converted_us']:.1f} us |"
        )
        print(
            f"| unrolled (Python loop under jit) | {r['compile_unrolled_s']:.2f} s | "
            f"{r['run_unrolled_us']:.1f} us |"
        )
        print(f"compile speed-up {r['compile_unrolled_s'] / r['compile_converted_s']:.0f}x")


if __name__ == "__main__":
    main()
