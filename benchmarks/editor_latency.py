"""End-to-end latency of `autojit check` and `autojit fix` on a 1,000-line file.

What an editor pays on every save: a fresh process (interpreter start, imports, reading the file,
converting, printing JSON). Each command runs ``--runs`` times as a subprocess; the median wall
time is reported, next to a bare ``python -c pass`` and ``import autojit.cli`` for scale.

    python benchmarks/editor_latency.py [--lines 1000] [--runs 11] [--budget-ms 300]

Exit status 1 when a median is over the budget. ``--profile`` prints where the time of one
in-process `check` goes (cProfile, top entries by cumulative time).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HEADER = '''"""A generated module for the latency benchmark."""

import jax
import jax.numpy as jnp

s = "é𝄞"
'''

# a mix of what a JAX module holds: item updates, value-dependent branches, loops, clean code
FUNCTIONS = [
    '''

def put_{n}(x, i, y):
    """Item assignment."""
    x = jnp.asarray(x)
    x[i] = y
    x[0] = x[1] * 2.0
    return x
''',
    """

def branch_{n}(x, y):
    z = y * 2
    if x.sum() > 0:
        z = jnp.dot(y, y) * z
        w = x + 1
    else:
        w = x - 1
    return z, w
""",
    """

def loop_{n}(x, n):
    for i in range(n):
        x = x + jnp.sin(x)
    return x
""",
    '''

def clean_{n}(x, w, b):
    """Already jittable: nothing to report."""
    h = jnp.tanh(x @ w + b)
    h = jax.nn.relu(h)
    return jnp.mean(h, axis=-1)
''',
    """

class Model{n}:
    def apply(self, x):
        x = jnp.asarray(x)
        x[0] = 0.0
        return jnp.sum(x)
""",
]


def make_source(lines: int) -> str:
    parts = [HEADER]
    n = 0
    while sum(p.count("\n") for p in parts) < lines:
        parts.append(FUNCTIONS[n % len(FUNCTIONS)].format(n=n))
        n += 1
    return "".join(parts)


def autojit_command() -> list[str]:
    exe = shutil.which("autojit")
    return [exe] if exe else [sys.executable, "-m", "autojit"]


def time_command(cmd: list[str], runs: int, ok: tuple[int, ...] = (0, 1)) -> list[float]:
    times = []
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "0"}
    for _ in range(runs + 1):  # the first run warms the OS caches and .pyc files; not counted
        t0 = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, env=env)
        times.append(time.perf_counter() - t0)
        if out.returncode not in ok:
            raise SystemExit(f"{' '.join(cmd)} failed ({out.returncode}):\n{out.stderr.decode()}")
    return times[1:]


def profile(path: str) -> None:
    import cProfile
    import pstats

    from click.testing import CliRunner

    t0 = time.perf_counter()
    from autojit.cli import main

    print(f"import autojit.cli: {(time.perf_counter() - t0) * 1000:.0f} ms")
    pr = cProfile.Profile()
    pr.enable()
    CliRunner().invoke(main, ["check", "--output-format", "json", path])
    pr.disable()
    pstats.Stats(pr).sort_stats("cumulative").print_stats(25)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--budget-ms", type=float, default=300.0)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()

    source = make_source(args.lines)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "module.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        if args.profile:
            profile(path)
            return 0
        n_lines = source.count("\n")
        fix_line = source.splitlines().index("    x[i] = y", len(source.splitlines()) // 2) + 1
        aj = autojit_command()
        cases = [
            ("python -c pass", [sys.executable, "-c", "pass"], False),
            ("python -c 'import autojit.cli'", [sys.executable, "-c", "import autojit.cli"], False),
            ("autojit check FILE", [*aj, "check", path], True),
            (
                "autojit check --output-format json FILE",
                [*aj, "check", "--output-format", "json", path],
                True,
            ),
            (
                f"autojit fix FILE --line {fix_line}",
                [*aj, "fix", path, "--line", str(fix_line)],
                True,
            ),
        ]
        print(f"{n_lines}-line file, {args.runs} runs each, median (min-max) wall time")
        failed = False
        for label, cmd, budgeted in cases:
            times = time_command(cmd, args.runs)
            med = statistics.median(times) * 1000
            over = budgeted and med > args.budget_ms
            failed |= over
            print(
                f"  {label:<45} {med:6.0f} ms  ({min(times) * 1000:.0f}-{max(times) * 1000:.0f})"
                + ("  OVER BUDGET" if over else "")
            )
        print(f"budget: {args.budget_ms:.0f} ms per command -> {'FAIL' if failed else 'ok'}")
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
