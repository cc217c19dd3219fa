"""Per-function cost of ``@autojit.convert`` (not its first call), beside the bare minimum.

    python benchmarks/decorator_cost.py [--repeat N] [--profile]

Prints, for a ~30-line function defined in this file:

- bare: ``inspect.getsource`` + ``ast.parse`` + ``compile`` of the function's source;
- decorator: ``autojit.convert(fn)``: source lines, conversion, compile in the original's
  globals and closure, and the ``jax.jit`` wrapper, with its parts timed alone.

Module-level work (reading the file into linecache, the module's import header) is cached per
module, as it is when several functions of one module are decorated; the first decoration of a
module pays it once (printed as "first in module"). Goal: at most 1.0 ms per function.

Times are CPU time of this process (``time.process_time``), best of 3 runs of ``--repeat``
decorations: on a shared 2-core machine, wall-clock time also counts other processes.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import os
import sys
import textwrap
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

import autojit  # noqa: E402
from autojit import decorator  # noqa: E402

SCALE = 2.0


def sample(x, y, n, i, mask):
    """A ~30-line function with array updates and a shape argument."""
    z = jnp.zeros(n)
    w = x * SCALE
    x[i] = y
    x[i + 1] += y * 2.0
    x[mask] = 0.0
    a = x.sum()
    b = w.mean()
    c = a + b
    d = c * 2
    e = d - 1
    f = jnp.sin(e)
    g = jnp.cos(f)
    h = g + f
    k = h * h
    m = k / 2
    p = m + 1
    q = jnp.sqrt(p)
    r = q + z.sum()
    s = r * 3
    t = s - 2
    u = t + 1
    v = u * u
    w2 = v + w.sum()
    y2 = w2 / 3
    return x, y2


def plain(x, y, n):
    """The same length with nothing to rewrite."""
    z = jnp.zeros(n)
    w = x * SCALE
    a = x.sum() + y
    b = w.mean()
    c = a + b
    d = c * 2
    e = d - 1
    f = jnp.sin(e)
    g = jnp.cos(f)
    h = g + f
    k = h * h
    m = k / 2
    p = m + 1
    q = jnp.sqrt(p)
    r = q + z.sum()
    s = r * 3
    t = s - 2
    u = t + 1
    v = u * u
    w2 = v + w.sum()
    y2 = w2 / 3
    y3 = y2 + 1
    y4 = y3 * 2
    y5 = y4 - 1
    y6 = y5 / 2
    y7 = y6 + y5
    return x, y7


clock = time.process_time


def per_call_ms(fn: Callable[[], Any], repeat: int) -> float:
    fn()  # warm: imports, linecache, per-module caches
    best = float("inf")
    for _ in range(3):
        t0 = clock()
        for _ in range(repeat):
            fn()
        best = min(best, (clock() - t0) / repeat)
    return best * 1e3


def bare(fn: Callable[..., Any]) -> Callable[[], Any]:
    filename = fn.__code__.co_filename

    def run() -> Any:
        src = textwrap.dedent(inspect.getsource(fn))
        return compile(ast.parse(src, filename), filename, "exec")

    return run


def first_in_module_ms(fn: Callable[..., Any]) -> float:
    """One decoration with the module's caches cold (file read again, header rebuilt)."""
    import linecache

    linecache.checkcache(fn.__code__.co_filename)
    linecache.cache.pop(fn.__code__.co_filename, None)
    decorator._header_cache.clear()
    t0 = clock()
    autojit.convert(fn)
    return (clock() - t0) * 1e3


def parts(fn: Callable[..., Any], repeat: int) -> dict[str, float]:
    """The decorator's steps, each timed alone."""
    os.environ["AUTOJIT_CACHE"] = "0"
    rec = decorator._Record(fn, (), (), True)
    os.environ.pop("AUTOJIT_CACHE", None)
    name = fn.__code__.co_name
    header = decorator._header(fn)
    text = header + "".join(rec.lines)
    out = {
        "source lines": per_call_ms(lambda: decorator._function_lines(fn), repeat),
        "module header": per_call_ms(lambda: decorator._header(fn), repeat),
        "convert_source (pipeline)": per_call_ms(
            lambda: autojit.convert_source(text, rec.filename, only=[name]), repeat
        ),
    }

    def compile_step() -> Any:
        rec.tree = None
        rec.entry = {"codes": {}}
        return rec._compile({}) if rec.changed else None

    out["parse+remap+compile"] = per_call_ms(compile_step, repeat)
    target = rec.compiled or fn
    out["jax.jit wrapper"] = per_call_ms(lambda: jax.jit(target, static_argnames=("n",)), repeat)
    return out


def decorate_ms(fn: Callable[..., Any], repeat: int, mode: str) -> float:
    """Cost of ``autojit.convert(fn)``; ``mode`` says which caches may answer.

    cold: none (a function seen for the first time); disk: the __pycache__ entry written by an
    earlier run of the program (memory cache emptied each time); memory: the same ``def``
    decorated again in this process (a nested function re-created, say); write: as cold, and
    the new entry written to __pycache__ as a first run does (its removal not timed).
    """
    os.environ["AUTOJIT_CACHE"] = "0" if mode == "cold" else "1"
    sys.dont_write_bytecode = False
    autojit.convert(fn)  # writes the disk entry for "disk"
    if mode == "write":
        return _write_ms(fn, repeat)

    def run() -> Any:
        if mode != "memory":
            decorator._memory_cache.clear()
        return autojit.convert(fn)

    try:
        return per_call_ms(run, repeat)
    finally:
        os.environ.pop("AUTOJIT_CACHE", None)


def _write_ms(fn: Callable[..., Any], repeat: int) -> float:
    path = decorator._disk_path(fn)
    best = float("inf")
    try:
        for _ in range(3):
            total = 0.0
            for _ in range(repeat):
                decorator._memory_cache.clear()
                if path is not None and os.path.exists(path):
                    os.unlink(path)
                t0 = clock()
                autojit.convert(fn)
                total += clock() - t0
            best = min(best, total / repeat)
    finally:
        os.environ.pop("AUTOJIT_CACHE", None)
    return best * 1e3


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=100)
    ap.add_argument("--profile", action="store_true", help="cProfile a cold decoration")
    args = ap.parse_args(argv)

    print(f"python {sys.version.split()[0]}, jax {jax.__version__}, {os.cpu_count()} cpus")
    print(
        "per function, CPU time, best of 3 x --repeat; the decorator's first call is not included"
    )
    for fn in (sample, plain):
        lines = len(inspect.getsource(fn).splitlines())
        os.environ["AUTOJIT_CACHE"] = "0"
        decorator._memory_cache.clear()
        first = first_in_module_ms(fn)
        os.environ.pop("AUTOJIT_CACHE", None)
        bare_ms = per_call_ms(bare(fn), args.repeat)
        cold = decorate_ms(fn, args.repeat, "cold")
        write = decorate_ms(fn, args.repeat, "write")
        disk = decorate_ms(fn, args.repeat, "disk")
        memory = decorate_ms(fn, args.repeat, "memory")
        nochg = "" if autojit.convert(fn).changes else " (nothing to rewrite)"
        print(f"\n{fn.__name__}: {lines} lines{nochg}")
        print(f"  bare getsource+ast.parse+compile     : {bare_ms:7.3f} ms")
        print(f"  @autojit.convert, new function       : {cold:7.3f} ms   goal <= 1.000 ms")
        print(f"    and writing its __pycache__ entry  : {write:7.3f} ms")
        print(f"  @autojit.convert, __pycache__ entry  : {disk:7.3f} ms")
        print(f"  @autojit.convert, same def again     : {memory:7.3f} ms")
        print(f"  first in module (file not yet read)  : {first:7.3f} ms")
        print("  parts of a new function's decoration:")
        for k, v in parts(fn, args.repeat).items():
            print(f"    {k:<34} : {v:7.3f} ms")
    if args.profile:
        import cProfile
        import pstats

        os.environ["AUTOJIT_CACHE"] = "0"
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(args.repeat):
            decorator._memory_cache.clear()
            autojit.convert(sample)
        prof.disable()
        stats = pstats.Stats(prof)
        stats.sort_stats("cumulative").print_stats(r"autojit|gast", 35)
        stats.sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
