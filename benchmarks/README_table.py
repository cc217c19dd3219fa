"""Run ``autojit bench`` over the examples and print the README's Markdown table.

    python benchmarks/README_table.py [--examples examples] [--repeat 20] [--device cpu]

For every example function: the eager original, a plain ``jax.jit`` of the original (or the
error it raises), the converted function's steady-state time under ``jax.jit``, its compile
time (trace + lower + compile), the speedup over the eager original, and, where the example has
a hand-written JAX reference, the converted/reference time ratio (1.00x = as fast as the
hand-written code).

Which functions, on which inputs — an example file says so in one of these ways:

1. ``BENCH = {"func": ["x=f32[100000]", "i=3"], ...}``: specs of ``autojit bench`` (a list, or
   one string separated by spaces), a factory function returning ``(args, kwargs)``, or a dict
   ``{"inputs": specs-or-factory, "reference": ref_fn}``;
2. a comment line ``# bench: func x=f32[100000] i=3``;
3. a factory named ``func_inputs``, ``make_func_inputs`` or ``inputs_func``;
4. an entry in ``KNOWN_INPUTS`` below, for example files that say nothing (with the
   hand-written references of ``_references()``).

A hand-written reference is ``BENCH[...]["reference"]``, or a function named
``func_reference``, ``reference_func`` or ``func_ref``. Files without any of these are listed
on stderr as skipped. Exit status 1 when a converted function's outputs differ from its eager
original's.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import os
import re
import sys
from collections.abc import Callable
from typing import Any

PREFERRED = ["item_assignment.py", "mask_tensor.py", "conditionals.py", "loops.py"]

# Inputs for example functions whose files do not say (the files' own BENCH / comments /
# factories win). Sizes are chosen so that the steady state, not the call overhead, shows.
KNOWN_INPUTS: dict[str, dict[str, str]] = {
    "item_assignment.py": {
        "set_first": "x1=f32[1000000]",
        "add_bonus": "scores=i32[1000000](0,100) bonus=7",
        "fill_diagonal": "m=f32[1000,1000] value=1.5",
        "one_hot_rows": "labels=i32[10000](0,10) num_classes=10",
        "clamp_borders": "image=f32[1000,1000]",
    },
    "mask_tensor.py": {
        "mask_tensor": "x=f32[1000,1000] mask=bool[1000,1000]",
        "mask_tensor_numpy_style": "x=f32[1000,1000] mask=bool[1000,1000]",
        "relu_in_place": "x=f32[1000,1000]",
        "scale_outliers": "x=f32[1000,1000] limit=1.5",
        "drop_empty_rows": "x=f32[1000,1000]",
    },
    "conditionals.py": {
        "square_or_cube": "x=i32[](0,100)",
        "f": "x=f32[]",
        "log2_if_rank_2": "x=f32[1000,1000](1,10)",
        "safe_norm": "v=f32[1000000]",
        "relu_or_leaky": "x=f32[1000000]",
        "piecewise": "x=f32[] lo=0.0 hi=1.0",
        "describe": "x=f32[1000]",
    },
    "loops.py": {
        "g": "x=f32[1000] n=20",
        "stupid_fn": "x=f32[1000]",
        "recurrence": "x=f32[1000] a=0.5 b=1.0",
        "first_above": "x=f32[1000] threshold=2.0",
        "running_max": "x=f32[100,1000]",
    },
}
_COMMENT = re.compile(r"^\s*#\s*bench:\s*([A-Za-z_][A-Za-z_0-9]*)\s+(.+?)\s*$", re.M)


def _references() -> dict[str, dict[str, Callable[..., Any]]]:
    """Hand-written JAX versions of the example functions: what an expert would write by hand.
    The converted function is timed against them (converted / reference: 1.00x = as fast)."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def add_bonus(scores, bonus):
        return scores.at[0].add(bonus).at[1:3].multiply(2).at[-1].add(-1)

    def fill_diagonal(m, value):
        i = jnp.arange(min(m.shape))
        return m.at[i, i].set(value)

    def clamp_borders(image):
        return image.at[0, :].set(0.0).at[-1, :].set(0.0).at[:, 0].set(0.0).at[:, -1].set(0.0)

    def safe_norm(v, eps=1e-6):
        n = jnp.sqrt(jnp.dot(v, v))
        return jnp.where(n < eps, 0.0, jnp.dot(v / n, jnp.arange(v.shape[0], dtype=v.dtype)))

    def relu_or_leaky(x, leaky=False):
        keep = jnp.logical_or(leaky, x.sum() > 0)
        return jnp.where(keep, jnp.where(x > 0, x, 0.01 * x), jnp.zeros_like(x))

    def recurrence(x, a, b):
        def step(prev, _):
            nxt = a * prev + b
            return nxt, nxt

        _, rest = lax.scan(step, x[0], None, length=x.shape[0] - 1)
        return jnp.concatenate([x[:1], rest])

    def first_above(x, threshold):
        above = x > threshold
        return jnp.where(above.any(), jnp.argmax(above), -1)

    return {
        "item_assignment.py": {
            "set_first": lambda x1: x1.at[0].set(5),
            "add_bonus": add_bonus,
            "fill_diagonal": fill_diagonal,
            "one_hot_rows": lambda labels, num_classes: jax.nn.one_hot(
                labels, num_classes, dtype=jnp.float32
            ),
            "clamp_borders": clamp_borders,
        },
        "mask_tensor.py": {
            "mask_tensor": lambda x, mask: jnp.where(mask, -100.0, x),
            "mask_tensor_numpy_style": lambda x, mask: jnp.where(mask, -100.0, x),
            "relu_in_place": lambda x: jnp.where(x < 0, 0.0, x),
            "scale_outliers": lambda x, limit: jnp.where(jnp.abs(x) > limit, x * 0.1, x),
            "drop_empty_rows": lambda x: jnp.where((x.sum(axis=1) == 0)[:, None], jnp.nan, x),
        },
        "conditionals.py": {
            "square_or_cube": lambda x: jnp.where(x % 2 == 0, x**2, x * x * x),
            "f": lambda x: jnp.where(x > 0, x, 2 * x),
            "safe_norm": safe_norm,
            "relu_or_leaky": relu_or_leaky,
            "piecewise": lambda x, lo, hi: jnp.where(x < lo, lo, jnp.where(x > hi, hi, x)),
        },
        "loops.py": {
            "g": lambda x, n: x + jnp.maximum(n, 0),
            "stupid_fn": lambda x: jnp.copy(x),
            "recurrence": recurrence,
            "first_above": first_above,
            "running_max": lambda x: lax.cummax(x, axis=0),
        },
    }


def example_files(directory: str) -> list[str]:
    files = sorted(glob.glob(os.path.join(directory, "*.py")))
    names = [os.path.basename(f) for f in files]
    first = [os.path.join(directory, n) for n in PREFERRED if n in names]
    rest = [f for f in files if f not in first and not os.path.basename(f).startswith("_")]
    return first + rest


def find_benchmarks(
    module: Any, text: str, filename: str = ""
) -> list[tuple[str, Any, Callable[..., Any] | None]]:
    """(function name, specs or factory, reference or None) for each function to bench."""
    out: dict[str, tuple[Any, Callable[..., Any] | None]] = {}
    bench = getattr(module, "BENCH", None)
    if isinstance(bench, dict):
        for name, entry in bench.items():
            ref = None
            if isinstance(entry, dict):
                ref = entry.get("reference")
                if isinstance(ref, str):
                    ref = getattr(module, ref)
                entry = entry.get("inputs", entry.get("example", []))
            out[name] = (entry, ref)
    for name, specs in _COMMENT.findall(text):
        out.setdefault(name, (specs, None))
    for attr, value in vars(module).items():
        if not callable(value):
            continue
        for pattern in (r"make_(\w+)_inputs", r"(\w+)_inputs", r"inputs_(\w+)"):
            m = re.fullmatch(pattern, attr)
            if m and callable(getattr(module, m.group(1), None)):
                out.setdefault(m.group(1), (value, None))
                break
    for name, specs in KNOWN_INPUTS.get(filename, {}).items():
        if callable(getattr(module, name, None)):
            out.setdefault(name, (specs, None))
    known_refs = _references().get(filename, {}) if filename in KNOWN_INPUTS else {}
    result = []
    for name, (inputs, ref) in out.items():
        if ref is None and inputs == KNOWN_INPUTS.get(filename, {}).get(name):
            ref = known_refs.get(name)
        if ref is None:
            for cand in (f"{name}_reference", f"reference_{name}", f"{name}_ref"):
                if callable(getattr(module, cand, None)):
                    ref = getattr(module, cand)
                    break
        result.append((name, inputs, ref))
    return result


def main(argv: list[str] | None = None) -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", default=os.path.join(here, "..", "examples"))
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default=None, help="cpu, gpu or tpu (default: JAX's default)")
    parser.add_argument("--max-seconds", type=float, default=10.0)
    parser.add_argument(
        "--donate",
        action="store_true",
        help="donate the converted functions' array arguments (in-place updates, as NumPy)",
    )
    args = parser.parse_args(argv)

    from autojit.bench.cli import split_specs
    from autojit.bench.load import LoadError, import_file, load_target, unwrap_jit
    from autojit.bench.report import fmt_ratio, fmt_seconds, markdown_table
    from autojit.bench.runner import (
        BenchOptions,
        DeviceError,
        run_benchmark,
    )
    from autojit.bench.spec import bind, call_factory, make_inputs, parse_specs

    options = BenchOptions(
        repeat=args.repeat,
        warmup=args.warmup,
        device=args.device,
        seed=args.seed,
        max_seconds=args.max_seconds,
        donate=args.donate,
    )
    rows: list[list[str]] = []
    any_reference = False
    failed = False
    backend = ""
    files = example_files(args.examples)
    if not files:
        print(f"no examples in {args.examples}", file=sys.stderr)
        return 2
    for path in files:
        rel = os.path.relpath(path, os.path.join(args.examples, ".."))
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            with contextlib.redirect_stdout(sys.stderr):
                module = import_file(path)
        except (OSError, LoadError) as e:
            print(f"skipped {rel}: {e}", file=sys.stderr)
            continue
        found = find_benchmarks(module, text, os.path.basename(path))
        if not found:
            print(
                f"skipped {rel}: no BENCH = {{...}}, '# bench: FUNC SPEC...' or FUNC_inputs()",
                file=sys.stderr,
            )
            continue
        for name, inputs, ref in found:
            print(f"bench {rel}::{name}", file=sys.stderr)
            try:
                with contextlib.redirect_stdout(sys.stderr):
                    target = load_target(path, name)
            except LoadError as e:
                print(f"  skipped: {e}", file=sys.stderr)
                continue

            def make(inputs: Any = inputs, target: Any = target) -> Any:
                if callable(inputs):
                    a, k = call_factory(inputs, None, args.seed)
                    return bind(target.original, a, k)
                specs = split_specs(inputs) if isinstance(inputs, str) else list(inputs)
                return make_inputs(parse_specs(specs), args.seed, target.original)

            target.reference = unwrap_jit(ref) if ref is not None else None
            try:
                # stdout is the table's: what the functions print goes to stderr
                with contextlib.redirect_stdout(sys.stderr):
                    result = run_benchmark(target, [(None, make)], options)
            except DeviceError as e:
                print(f"error: {e}", file=sys.stderr)
                return 2
            backend = f"{result.backend} ({result.device_kind}), jax {result.jax_version}"
            run = result.run
            o, c = run.original, run.converted
            ratio = ""
            ref_run = run.reference
            if ref_run is not None:
                any_reference = True
                if ref_run.error is not None:
                    ratio = f"reference: `{ref_run.error.short_type}`"
                elif run.reference_ratio is not None:
                    ratio = fmt_ratio(run.reference_ratio)

            def plain_jit_cell(o: Any) -> str:
                text = cell(o.jit, o.jit_error)
                if o.jit_error is None and o.jit_stages is not None and o.jit_stages.total:
                    text += f" (compile {fmt_seconds(o.jit_stages.total)})"
                return text

            def cell(timing: Any, error: Any) -> str:
                if error is not None:
                    return f"`{error.short_type}`"
                return fmt_seconds(timing.median) if timing is not None else "-"

            if run.input_error is not None:
                print(
                    f"  inputs failed: {run.input_error.type}: {run.input_error.first_line}",
                    file=sys.stderr,
                )
            req = run.reference_equivalence
            if req is not None and not req.ok:
                print(
                    "  the reference's outputs differ from the eager original's: "
                    + "; ".join(req.all_problems()[:3]),
                    file=sys.stderr,
                )
            if not run.ok:
                failed = failed or run.status == "MISMATCH"
                print(f"  {run.status}", file=sys.stderr)
            rows.append(
                [
                    f"`{os.path.basename(path)}::{name}`",
                    cell(o.eager, o.eager_error),
                    plain_jit_cell(o),
                    cell(c.timing, c.error),
                    fmt_seconds(c.stages.total),
                    fmt_ratio(run.speedup),
                    ratio or "-",
                    "ok" if run.ok else f"**{run.status}**",
                ]
            )
    headers = [
        "function",
        "eager original",
        "plain `jax.jit` of original",
        "converted, jitted",
        "compile",
        "speedup",
        "converted / reference",
        "outputs",
    ]
    if not any_reference:
        headers.pop(6)
        rows = [r[:6] + r[7:] for r in rows]
    sys.stdout.write(markdown_table(rows, headers))
    if backend:
        sys.stdout.write(
            f"\nMedian of up to {args.repeat} calls after {args.warmup} warm-up calls on {backend}; "
            "compile = trace + lower + compile of the converted function; speedup = eager "
            "original / converted"
            + ("; array arguments donated to the converted functions" if args.donate else "")
            + ".\n"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
