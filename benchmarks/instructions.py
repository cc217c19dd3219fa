"""Rewriter cost in machine instructions: a measure that varies by under 1% from run to run.

    python benchmarks/instructions.py                      # every 16th file of jax
    python benchmarks/instructions.py --stride 8
    python benchmarks/instructions.py --compare ../other-checkout

Wall-clock and CPU times on a shared machine vary by a quarter from run to run, more than most
changes to the rewriter move them. This counts the instructions of ``autojit.convert_source``
and of bare ``ast.parse`` on the same files (every ``--stride``-th .py file of the installed
jax, as ``benchmarks/throughput.py`` picks them) under valgrind's callgrind, which counts within
~0.5% on every run: each is a process's count less that of a process that loads the files and
does nothing else. ``--compare DIR`` counts another checkout's ``convert_source`` too (its
package first on the path), to compare two versions of the code closely.

Needs ``valgrind`` (``apt install valgrind``); runs ~60x slower than native: the default
sample takes about a minute per count.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# what each counted process runs: load the sample, then parse it or convert it (or nothing)
_CHILD = """
import ast, gc, sys
sys.path.insert(0, sys.argv[1])
sys.path.insert(1, sys.argv[2])
import throughput
from autojit import convert_source
files = throughput.load_files(throughput.jax_root(), None, int(sys.argv[3]))
gc.disable()  # (as convert_source runs)
if sys.argv[4] == "convert":
    for _p, text, _n in files:
        convert_source(text)
elif sys.argv[4] == "parse":
    for _p, text, _n in files:
        ast.parse(text)
"""


def count(checkout: Path, stride: int, mode: str) -> int:
    """Instructions callgrind counts for one process running ``mode`` on the sample."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "child.py"
        script.write_text(_CHILD)
        cmd = [
            "valgrind", "--tool=callgrind", f"--callgrind-out-file={os.devnull}",
            os.path.realpath(sys.executable), str(script), str(checkout),
            str(ROOT / "benchmarks"), str(stride), mode,
        ]  # fmt: skip
        run = subprocess.run(cmd, capture_output=True, text=True, check=False)
    found = re.search(r"Collected\s*:\s*(\d+)", run.stderr)
    if run.returncode != 0 or found is None:
        sys.exit(f"valgrind failed ({mode}):\n{run.stderr[-2000:]}")
    return int(found.group(1))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--stride", type=int, default=16, help="every Nth file of jax (default 16)")
    ap.add_argument("--compare", type=Path, default=None, help="another checkout to count too")
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (apt install valgrind)")
    base = count(ROOT, args.stride, "none")
    parse = count(ROOT, args.stride, "parse") - base
    convert = count(ROOT, args.stride, "convert") - base
    print(f"every {args.stride}th file of jax, instructions (callgrind)")
    print(f"ast.parse                        {parse / 1e6:10,.0f} M")
    print(f"convert_source, this checkout    {convert / 1e6:10,.0f} M")
    print(f"ast.parse / convert_source       {parse / convert:10.3f}   (goal >= 0.33)")
    if args.compare is not None:
        other_base = count(args.compare.resolve(), args.stride, "none")
        other = count(args.compare.resolve(), args.stride, "convert") - other_base
        print(f"convert_source, --compare        {other / 1e6:10,.0f} M   ({args.compare})")
        print(f"this checkout / --compare        {convert / other:10.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
