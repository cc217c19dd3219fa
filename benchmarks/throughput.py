"""Rewriter throughput on real code: every .py file of the installed jax package.

Reports lines/second of ``autojit.convert_source`` (all candidate functions, as the CLI picks
them) beside bare ``ast.parse`` and ``ast.parse`` + ``ast.unparse`` on the same files in the
same run, the files whose conversion crashes (must be none), and checks that every output
re-parses and that converting it again changes nothing.

    python benchmarks/throughput.py                 # all of jax
    python benchmarks/throughput.py --limit 100     # the first 100 files
    python benchmarks/throughput.py --stride 4      # every 4th file (a quick sample)
    python benchmarks/throughput.py --profile       # cProfile of the conversion pass
    python benchmarks/throughput.py --all-functions # every function, not only candidates

Goal: conversion throughput at least one third of ``ast.parse``'s.
"""

from __future__ import annotations

import argparse
import ast
import gc
import sys
import time
import traceback
from pathlib import Path


def jax_root() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("jax")  # does not import jax
    if spec is None or not spec.submodule_search_locations:
        sys.exit("jax is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def load_files(root: Path, limit: int | None, stride: int = 1) -> list[tuple[Path, str, int]]:
    out = []
    for p in sorted(root.rglob("*.py"))[::stride]:
        try:
            text = p.read_text(encoding="utf-8")
            ast.parse(text)
        except (UnicodeDecodeError, SyntaxError, ValueError):
            continue
        out.append((p, text, text.count("\n") + 1))
        if limit and len(out) >= limit:
            break
    return out


def timed(fn, files, repeat: int, gc_off: bool = False) -> float:
    """The best of ``repeat`` passes over all files, in CPU seconds (robust to a busy machine).
    ``gc_off``: with the cyclic garbage collector paused, as `convert_source` pauses it."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        if gc_off:
            gc.disable()
        try:
            t0 = time.process_time()
            for _p, text, _n in files:
                fn(text)
            best = min(best, time.process_time() - t0)
        finally:
            gc.enable()
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--root", type=Path, default=None, help="folder of .py files (default: jax)")
    ap.add_argument("--limit", type=int, default=None, help="only the first N files")
    ap.add_argument("--stride", type=int, default=1, help="only every Nth file (a sample)")
    ap.add_argument("--repeat", type=int, default=3, help="passes per measurement (best is kept)")
    ap.add_argument("--all-functions", action="store_true", help="convert every function")
    ap.add_argument("--profile", action="store_true", help="cProfile the conversion pass")
    ap.add_argument("--no-checks", action="store_true", help="skip re-parse/idempotence checks")
    args = ap.parse_args(argv)

    from autojit import convert_source

    root = args.root or jax_root()
    files = load_files(root, args.limit, args.stride)
    lines = sum(n for _p, _t, n in files)
    print(f"{len(files)} files, {lines} lines under {root}")

    def convert(text: str):
        return convert_source(text, "bench.py", all_functions=args.all_functions)

    # bare `ast.parse` first, in a heap autojit has not grown: a conversion leaves its template
    # caches behind (tens of thousands of objects), and every collection the garbage collector
    # runs during a later parse walks them, which made `ast.parse` look up to 1.5 times slower
    # than a user's own call (and the ratio better than it is)
    t_parse = timed(ast.parse, files, args.repeat)
    t_parse_nogc = timed(ast.parse, files, args.repeat, gc_off=True)
    t_unparse = timed(lambda t: ast.unparse(ast.parse(t)), files, args.repeat)

    # crashes next (and a warm-up): a crash is a bug, and the timed pass must not raise
    crashed: list[tuple[Path, str]] = []
    ok_files = []
    changed = 0
    bad_output: list[tuple[Path, str]] = []
    for p, text, n in files:
        try:
            c = convert(text)
        except Exception as e:  # noqa: BLE001 - every crash is reported
            tb = traceback.extract_tb(e.__traceback__)[-1]
            crashed.append((p, f"{type(e).__name__}: {e} ({Path(tb.filename).name}:{tb.lineno})"))
            continue
        ok_files.append((p, text, n))
        if c.changed:
            changed += 1
        if args.no_checks:
            continue
        try:
            ast.parse(c.text)
        except SyntaxError as e:
            bad_output.append((p, f"output does not parse: {e}"))
            continue
        if c.changed:
            try:
                again = convert(c.text)
            except Exception as e:  # noqa: BLE001
                bad_output.append((p, f"converting the output crashes: {type(e).__name__}: {e}"))
                continue
            if again.text != c.text:
                bad_output.append((p, "not idempotent: converting the output changes it"))

    ok_lines = sum(n for _p, _t, n in ok_files)
    if args.profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.enable()
        t_convert = timed(convert, ok_files, 1)
        prof.disable()
        pstats.Stats(prof).sort_stats("cumulative").print_stats(35)
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    else:
        t_convert = timed(convert, ok_files, args.repeat)

    def rate(t: float, n: int = lines) -> str:
        return f"{n / t:>10,.0f} lines/s  ({t:6.2f} s)"

    print(f"ast.parse              {rate(t_parse)}")
    print(f"ast.parse, gc paused   {rate(t_parse_nogc)}")
    print(f"ast.parse + unparse    {rate(t_unparse)}")
    print(f"autojit convert_source {rate(t_convert, ok_lines)}")
    convert_rate = ok_lines / t_convert
    ratio = convert_rate / (lines / t_parse)
    print(f"convert / ast.parse throughput: {ratio:.2f} (goal >= 0.33)")
    paused = convert_rate / (lines / t_parse_nogc)
    print(f"  (against ast.parse with gc paused, as convert_source runs: {paused:.2f})")
    print(f"files changed: {changed} of {len(ok_files)}")
    print(f"crashes: {len(crashed)}")
    for p, why in crashed[:50]:
        print(f"  {p.relative_to(root)}: {why}")
    if not args.no_checks:
        print(f"bad outputs (re-parse / idempotence): {len(bad_output)}")
        for p, why in bad_output[:50]:
            print(f"  {p.relative_to(root)}: {why}")
    return 1 if crashed or bad_output else 0


if __name__ == "__main__":
    sys.exit(main())
