"""End-to-end latency of `autojit check` and `autojit fix` on a 1,000-line file.

What an editor pays on every save: a fresh process (interpreter start, imports, reading the file,
converting, printing JSON). Each command runs ``--runs`` times as a subprocess; the median wall
time is reported, next to a bare ``python -c pass`` and ``import autojit.cli`` for scale.

    python benchmarks/editor_latency.py [--lines 1000] [--mix rewrites|typical] [--runs 11]

Exit status 1 when a median is over the budget. ``--profile`` prints where the time of one
in-process `check` goes (cProfile, top entries by cumulative time).
"""

from __future__ import annotations

import argparse
import os
import resource
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


MIXES = {
    # every kind in turn: 4 of 5 functions need a rewrite (the worst case for `check`)
    "rewrites": [0, 1, 2, 3, 4],
    # a module of mostly jittable code: 1 of 5 functions needs a rewrite
    "typical": [3, 3, 0, 3, 3, 3, 1, 3, 3, 3, 2, 3, 3, 3, 4],
}


# As installed: bytecode caches are written and used. (With PYTHONDONTWRITEBYTECODE set, every
# module edited since its .pyc was written is compiled again in every process.)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def make_source(lines: int, mix: str = "rewrites") -> str:
    kinds = MIXES[mix]
    parts = [HEADER]
    n = 0
    total = HEADER.count("\n")
    while total < lines:
        part = FUNCTIONS[kinds[n % len(kinds)]].format(n=n)
        parts.append(part)
        total += part.count("\n")
        n += 1
    return "".join(parts)


def autojit_command() -> list[str]:
    exe = shutil.which("autojit")
    return [exe] if exe else [sys.executable, "-m", "autojit"]


def time_command(
    cmd: list[str], runs: int, ok: tuple[int, ...] = (0, 1)
) -> tuple[list[float], list[float]]:
    """Wall times and CPU times (user + system of the child) of ``runs`` runs, in seconds."""
    times = []
    cpu = []
    for _ in range(runs + 1):  # the first run warms the OS caches and .pyc files; not counted
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, env=ENV)
        times.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if out.returncode not in ok:
            raise SystemExit(f"{' '.join(cmd)} failed ({out.returncode}):\n{out.stderr.decode()}")
    return times[1:], cpu[1:]


def time_lsp(source: str, runs: int) -> list[float]:
    """In a running language server (no process start): didChange of the whole file until its
    publishDiagnostics is written, in seconds."""
    import io

    from autojit.lsp import Server

    server = Server(io.BytesIO(), io.BytesIO())
    server.initialize({"capabilities": {}})
    uri = "untitled:module.py"
    server.did_open({"textDocument": {"uri": uri, "text": source, "version": 0}})
    times = []
    for v in range(1, runs + 1):
        text = source + "\n" * v  # a new text each time (the server caches per text)
        t0 = time.perf_counter()
        server.did_change(
            {"textDocument": {"uri": uri, "version": v}, "contentChanges": [{"text": text}]}
        )
        times.append(time.perf_counter() - t0)
    return times


_PHASES = r"""
import json, sys, time
t0 = time.perf_counter()
import autojit.cli
from autojit.cli import Settings, _findings, convert_bytes
t1 = time.perf_counter()
data = open(sys.argv[1], "rb").read()
result = convert_bytes(sys.argv[1], data, Settings())
t2 = time.perf_counter()
out = json.dumps(_findings(result), indent=2)
t3 = time.perf_counter()
print(json.dumps({"imports": t1 - t0, "convert": t2 - t1, "findings+json": t3 - t2}))
"""


def phases(path: str, runs: int) -> dict[str, float]:
    """Median seconds of each phase of `check --output-format json`, in a fresh process."""
    import json

    got: dict[str, list[float]] = {}
    for _ in range(runs):
        t0 = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-c", _PHASES, path],
            capture_output=True,
            text=True,
            check=True,
            env=ENV,
        )
        total = time.perf_counter() - t0
        d = json.loads(out.stdout)
        d["interpreter start+exit"] = total - sum(d.values())
        for k, v in d.items():
            got.setdefault(k, []).append(v)
    return {k: statistics.median(v) for k, v in got.items()}


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
    ap.add_argument("--mix", choices=sorted(MIXES), default="rewrites")
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()

    source = make_source(args.lines, args.mix)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "module.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        if args.profile:
            profile(path)
            return 0
        n_lines = source.count("\n")
        lines = source.splitlines()
        fix_line = lines.index("    x[i] = y", len(lines) // 2) + 1
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
        n_funcs = sum(line.startswith(("def ", "class ")) for line in source.splitlines())
        print(
            f"{n_lines}-line file ({args.mix}: {n_funcs} functions/classes), {args.runs} runs "
            f"each; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
        )
        print(f"  {'command':<45} {'wall median (min-max)':>22} {'CPU median':>11}")
        failed = False
        for label, cmd, budgeted in cases:
            times, cpu = time_command(cmd, args.runs)
            med = statistics.median(times) * 1000
            over = budgeted and med > args.budget_ms
            failed |= over
            span = f"({min(times) * 1000:.0f}-{max(times) * 1000:.0f})"
            print(
                f"  {label:<45} {med:6.0f} ms {span:>13} {statistics.median(cpu) * 1000:8.0f} ms"
                + ("  OVER BUDGET" if over else "")
            )
        lsp = time_lsp(source, args.runs)
        print(
            f"  {'lsp: didChange -> publishDiagnostics':<45} {statistics.median(lsp) * 1000:6.0f} ms"
            f" {f'({min(lsp) * 1000:.0f}-{max(lsp) * 1000:.0f})':>13}  (in process, no start)"
        )
        print("  where the time of `check --output-format json` goes (medians, one process):")
        for k, v in phases(path, max(3, args.runs // 2)).items():
            print(f"    {k:<24} {v * 1000:6.0f} ms")
        print(f"budget: {args.budget_ms:.0f} ms per command -> {'FAIL' if failed else 'ok'}")
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
