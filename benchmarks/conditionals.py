"""Conditionals (AJ1xx): converted code against hand-written `lax.cond` / `jnp.where`.

Two tables, measured side by side in one run:

1. For each function: the autojit conversion of the plain-Python original against the version an
   expert writes by hand. Steady-state run time (median of interleaved calls, after warm-up) and
   compile time (trace + lower + compile of a fresh function object, median of several) with the
   converted/hand-written ratios. Goal: run ratio <= 1.05, compile ratio <= 1.10.
   Times are the best of interleaved repeats; ratios are the median of the ratios of
   measurements taken side by side (robust to a shared, busy machine).
2. The rule behind AJ102 (`jnp.where`) vs AJ101 (`lax.cond`): the same branches written both
   ways, for a scalar and for arrays, with cheap elementwise branches and with costly ones.

    python benchmarks/conditionals.py [--quick]

Not a test: it prints numbers, it asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import textwrap
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import autojit  # noqa: E402

HEADER = "import jax\nimport jax.numpy as jnp\n\n\n"

# name -> (original source, hand-written source, args)
CASES: dict[str, tuple[str, str, tuple]] = {}


def case(name: str, original: str, hand: str, args: tuple) -> None:
    CASES[name] = (HEADER + textwrap.dedent(original), HEADER + textwrap.dedent(hand), args)


F32 = np.float32
VEC = np.linspace(-1, 1, 100_000, dtype=F32)
MAT = np.random.default_rng(0).standard_normal((256, 256)).astype(F32)

case(
    "square_or_cube (scalar)",
    """
    def f(x):
        if x % 2 == 0:
            return x ** 2
        else:
            return x * x * x
    """,
    """
    def f(x):
        return jnp.where(x % 2 == 0, x ** 2, x * x * x)
    """,
    (np.int32(3),),
)
case(
    "seed f: if x > 0 (vector)",
    """
    def f(x):
        if x.sum() > 0:
            return x
        else:
            return 2 * x
    """,
    """
    def f(x):
        return jnp.where(x.sum() > 0, x, 2 * x)
    """,
    (VEC,),
)
case(
    "matmul branches -> cond",
    """
    def f(a, b):
        if jnp.trace(a) > 0:
            c = a @ b
            d = c.sum()
        else:
            c = b @ a
            d = -c.sum()
        return c, d
    """,
    """
    def f(a, b):
        def pos(a, b):
            c = a @ b
            return c, c.sum()

        def neg(a, b):
            c = b @ a
            return c, -c.sum()

        return jax.lax.cond(jnp.trace(a) > 0, pos, neg, a, b)
    """,
    (MAT, MAT.T.copy()),
)
case(
    "early return + literal 0.0",
    """
    def f(v, eps=1e-6):
        n = jnp.sqrt(jnp.dot(v, v))
        if n < eps:
            return 0.0
        v = v / n
        return jnp.dot(v, jnp.arange(v.shape[0], dtype=v.dtype))
    """,
    """
    def f(v, eps=1e-6):
        n = jnp.sqrt(jnp.dot(v, v))
        return jax.lax.cond(
            n < eps,
            lambda v, n: jnp.zeros((), v.dtype),
            lambda v, n: jnp.dot(v / n, jnp.arange(v.shape[0], dtype=v.dtype)),
            v,
            n,
        )
    """,
    (VEC,),
)
case(
    "elif chain (scalar)",
    """
    def f(x, lo, hi):
        if x < lo:
            y = lo
        elif x > hi:
            y = hi
        else:
            y = x
        return y
    """,
    """
    def f(x, lo, hi):
        return jax.lax.cond(
            x < lo, lambda: lo, lambda: jax.lax.cond(x > hi, lambda: hi, lambda: x)
        )
    """,
    (F32(0.5), F32(0.0), F32(1.0)),
)
case(
    "switch on int (vector)",
    """
    def f(x, k):
        if k == 0:
            y = jnp.sin(x).sum()
        elif k == 1:
            y = jnp.cos(x).sum()
        else:
            y = x.max()
        return y
    """,
    """
    def f(x, k):
        index = jnp.where((k == 0) | (k == 1), k, 2)
        return jax.lax.switch(
            index, [lambda x: jnp.sin(x).sum(), lambda x: jnp.cos(x).sum(), lambda x: x.max()], x
        )
    """,
    (VEC, np.int32(1)),
)
case(
    "mixed static/traced test",
    """
    def f(x):
        if x.ndim == 2 and x.sum() > 0:
            y = x[:, 0].sum()
        else:
            y = 0.0
        return y
    """,
    """
    def f(x):
        if x.ndim == 2:
            return jax.lax.cond(x.sum() > 0, lambda x: x[:, 0].sum(), lambda x: 0.0, x)
        return 0.0
    """,
    (MAT,),
)


def load(text: str, name: str = "f"):
    ns: dict = {}
    exec(compile(text, "<bench>", "exec"), ns)
    return ns[name]


def block(out):
    return jax.tree_util.tree_map(lambda a: a.block_until_ready(), out)


def compile_time(text: str, args, repeat: int) -> float:
    """Median seconds to trace, lower and compile a fresh function object."""
    times = []
    for _ in range(repeat):
        fn = load(text)
        # no help from jax's in-memory caches (identical programs would share an executable)
        jax.clear_caches()
        t = time.perf_counter()
        jax.jit(fn).lower(*args).compile()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def run_rounds(fns, args, rounds: int, calls: int) -> list[list[float]]:
    """Seconds per call of each function, one entry per round, calls interleaved round by
    round (so the k-th entries of two functions saw the same machine load)."""
    compiled = [jax.jit(f) for f in fns]
    for c in compiled:
        for _ in range(20):
            block(c(*args))
    per: list[list[float]] = [[] for _ in fns]
    order = list(range(len(fns)))
    for _ in range(rounds):
        order.reverse()  # alternate which one goes first
        for i in order:
            c = compiled[i]
            t = time.perf_counter()
            for _ in range(calls):
                out = c(*args)
            block(out)
            per[i].append((time.perf_counter() - t) / calls)
    return per


def run_times(fns, args, rounds: int, calls: int) -> list[float]:
    """Best round of each function (the least disturbed one on a shared machine)."""
    return [min(p) for p in run_rounds(fns, args, rounds, calls)]


def pair_ratio(a: list[float], b: list[float]) -> float:
    """Median of the ratios of measurements taken side by side: robust to load that changes
    between rounds, which shifts both members of a pair alike."""
    return statistics.median(x / y for x, y in zip(a, b, strict=True))


def table1(quick: bool) -> None:
    rounds, calls, crep = (7, 50, 3) if quick else (41, 200, 11)
    print("converted vs hand-written (best times; ratio = median of side-by-side ratios)")
    head = f"{'function':30} {'run conv':>10} {'run hand':>10} {'ratio':>6}  "
    head += f"{'compile conv':>12} {'compile hand':>12} {'ratio':>6}  rules"
    print(head)
    print("-" * len(head))
    worst_run, worst_comp = 0.0, 0.0
    for name, (orig, hand, args) in CASES.items():
        c = autojit.convert_source(orig, "bench.py", all_functions=True)
        assert not c.refusals, (name, c.refusals)
        conv_fn, hand_fn = load(c.text), load(hand)
        np.testing.assert_allclose(
            np.asarray(jax.tree_util.tree_leaves(jax.jit(conv_fn)(*args))[0]),
            np.asarray(jax.tree_util.tree_leaves(jax.jit(hand_fn)(*args))[0]),
            rtol=1e-4,
        )
        per_c, per_h = run_rounds([conv_fn, hand_fn], args, rounds, calls)
        rc, rh = min(per_c), min(per_h)
        run_ratio = pair_ratio(per_c, per_h)
        # compile: one warm-up each (first compiles pay one-time costs), then interleave
        compile_time(c.text, args, 1)
        compile_time(hand, args, 1)
        cc, ch = [], []
        for r in range(crep):
            if r % 2:
                ch.append(compile_time(hand, args, 1))
                cc.append(compile_time(c.text, args, 1))
            else:
                cc.append(compile_time(c.text, args, 1))
                ch.append(compile_time(hand, args, 1))
        cc_m, ch_m = min(cc), min(ch)
        comp_ratio = pair_ratio(cc, ch)
        codes = ",".join(sorted({x.code for x in c.changes if x.code != "AJ100"}))
        worst_run, worst_comp = max(worst_run, run_ratio), max(worst_comp, comp_ratio)
        print(
            f"{name:30} {rc * 1e6:8.1f}us {rh * 1e6:8.1f}us {run_ratio:6.2f}  "
            f"{cc_m * 1e3:10.1f}ms {ch_m * 1e3:10.1f}ms {comp_ratio:6.2f}  {codes}"
        )
    # the noise floor of this machine: the same program measured against itself
    orig, hand, args = CASES["matmul branches -> cond"]
    per_a, per_b = run_rounds([load(hand), load(hand)], args, rounds, calls)
    ca, cb = [], []
    for r in range(crep):
        pair = [compile_time(hand, args, 1), compile_time(hand, args, 1)]
        ca.append(pair[r % 2])
        cb.append(pair[1 - r % 2])
    print(
        f"{'(noise: hand vs itself)':30} {min(per_a) * 1e6:8.1f}us {min(per_b) * 1e6:8.1f}us "
        f"{pair_ratio(per_a, per_b):6.2f}  {min(ca) * 1e3:10.1f}ms {min(cb) * 1e3:10.1f}ms "
        f"{pair_ratio(ca, cb):6.2f}"
    )
    print(
        f"worst run ratio {worst_run:.2f} (goal <= 1.05), worst compile ratio "
        f"{worst_comp:.2f} (goal <= 1.10); compare with the noise row"
    )


def table2(quick: bool) -> None:
    rounds, calls = (7, 30) if quick else (21, 100)
    print()
    print("the AJ102 rule: jnp.where (both branches, select) vs lax.cond (one branch)")
    head = f"{'branches':28} {'size':>9} {'where':>10} {'cond':>10} {'where/cond':>10}"
    print(head)
    print("-" * len(head))

    def cheap_w(x):
        return jnp.where(x.sum() > 0, x * 2 + 1, x * x - 3)

    def cheap_c(x):
        return jax.lax.cond(x.sum() > 0, lambda x: x * 2 + 1, lambda x: x * x - 3, x)

    def transc_w(x):
        return jnp.where(x.sum() > 0, jnp.sin(x) * jnp.exp(x), jnp.cos(x) * jnp.log1p(x * x))

    def transc_c(x):
        return jax.lax.cond(
            x.sum() > 0,
            lambda x: jnp.sin(x) * jnp.exp(x),
            lambda x: jnp.cos(x) * jnp.log1p(x * x),
            x,
        )

    def costly_w(x):
        m = x.reshape(-1, 64) if x.size >= 64 else x.reshape(1, -1)
        return jnp.where(x.sum() > 0, (m @ m.T).sum(), (m.T @ m).sum())

    def costly_c(x):
        m = x.reshape(-1, 64) if x.size >= 64 else x.reshape(1, -1)
        return jax.lax.cond(x.sum() > 0, lambda m: (m @ m.T).sum(), lambda m: (m.T @ m).sum(), m)

    for label, w, c in [
        ("cheap arithmetic", cheap_w, cheap_c),
        ("elementwise transcendental", transc_w, transc_c),
        ("matmul (not elementwise)", costly_w, costly_c),
    ]:
        sizes = (64, 4_096, 262_144) if label.startswith("matmul") else (1, 1_000, 1_000_000)
        for n in sizes:
            x = np.linspace(-1, 1, n, dtype=F32) if n > 1 else np.ones(1, F32)
            pw, pc = run_rounds([w, c], (x,), rounds, calls)
            print(
                f"{label:28} {n:>9} {min(pw) * 1e6:8.1f}us {min(pc) * 1e6:8.1f}us "
                f"{pair_ratio(pw, pc):10.2f}"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    opts = ap.parse_args()
    print(
        f"jax {jax.__version__}, backend {jax.default_backend()}, "
        f"device {jax.devices()[0].device_kind}, {os.cpu_count()} cpus"
    )
    # warm the process up (XLA's thread pools, first-compile costs) before the first row
    for _orig, hand, args in CASES.values():
        compile_time(hand, args, 1)
        run_times([load(hand)], args, 2, 20)
    table1(opts.quick)
    table2(opts.quick)


if __name__ == "__main__":
    main()
