"""Wall time of the command line over a whole tree (jax's installed sources by default): `autojit
check` with one process (``--jobs 1``) and with its default (one worker per core where the files
hold enough source), beside one process running bare ``ast.parse`` over the same files, each a
fresh interpreter as a user runs them, alternated ``--repeat`` times (this machine's timings move
by a quarter run to run: compare the runs of one round only). Also checks that both give the same
output.

    python benchmarks/cli_throughput.py                 # jax's sources
    python benchmarks/cli_throughput.py --repeat 3 DIR  # another tree
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from throughput import jax_root  # noqa: E402

# (the same files as `autojit check`'s, without importing autojit: the tree holds no folder
# that autojit skips, which the run checks)
PARSE_ALL = """\
import ast, pathlib, sys
n = 0
for path in sorted(pathlib.Path(sys.argv[1]).rglob('*.py')):
    if path.is_symlink():
        continue
    n += 1
    try:
        ast.parse(path.read_bytes())
    except (SyntaxError, ValueError):
        pass
print(n)
"""


def wall(cmd: list[str]) -> tuple[float, bytes]:
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, check=False)
    return time.perf_counter() - t0, out.stdout


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("root", nargs="?", help="the tree (default: the installed jax package)")
    p.add_argument("--repeat", type=int, default=2)
    args = p.parse_args()
    root = args.root or str(jax_root())
    from autojit.cli import available_cores

    check = [sys.executable, "-m", "autojit", "check", "-q", "--output-format", "json"]
    from autojit.cli import iter_python_files

    files = len(list(iter_python_files(root)))
    times: dict[str, list[float]] = {"parse": [], "jobs 1": [], "default": []}
    outputs = set()
    for _ in range(args.repeat):
        t, out = wall([sys.executable, "-c", PARSE_ALL, root])
        if int(out) != files:
            sys.exit(f"ast.parse read {int(out)} files where autojit reads {files}")
        times["parse"].append(t)
        for name, extra in (("jobs 1", ["--jobs", "1"]), ("default", [])):
            t, out = wall([*check, *extra, root])
            times[name].append(t)
            outputs.add(out)
    best = {k: min(v) for k, v in times.items()}
    print(f"{root}: {files} files, {available_cores()} cores, best of {args.repeat} wall times")
    for k, v in times.items():
        print(f"  {k:8s} {best[k]:7.2f} s   (runs: {', '.join(f'{t:.2f}' for t in v)})")
    print(f"  ast.parse / check --jobs 1:  {best['parse'] / best['jobs 1']:.3f}")
    print(f"  ast.parse / check (default): {best['parse'] / best['default']:.3f}")
    print(f"  default speed-up over --jobs 1: {best['jobs 1'] / best['default']:.2f}x")
    print(f"  same output: {len(outputs) == 1}")
    if len(outputs) != 1:
        sys.exit(1)


if __name__ == "__main__":
    main()
