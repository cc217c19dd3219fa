"""``autojit bench`` and :func:`autojit.benchmark`: compile, run and compare the original and
the converted function on the target device.

Nothing here imports JAX until a benchmark runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .compare import Equivalence, compare_outputs
from .result import BenchResult, ConvertedResult, Failure, OriginalResult, SizeRun
from .runner import BenchOptions, DeviceError
from .spec import ArgSpec, SpecError, parse_spec, parse_specs
from .timing import StageTimes, Timing


def benchmark(
    fn: Callable[..., Any],
    *args: Any,
    bench_options: BenchOptions | None = None,
    **kwargs: Any,
) -> BenchResult:
    """Benchmark ``fn(*args, **kwargs)`` against its autojit conversion.

    The original runs eagerly (on copies of NumPy inputs: it may update them in place) and
    under a plain ``jax.jit``; the converted function is jitted with the inferred static
    arguments, its trace/lower/compile stages timed apart, then timed in steady state and its
    outputs compared with the eager original's. Options (repeat, warm-up, device, tolerances)
    go in ``bench_options``, so every other keyword goes to ``fn``.
    """
    from .load import convert_function
    from .runner import run_benchmark
    from .spec import bind

    options = bench_options or BenchOptions()
    target = convert_function(fn)
    inputs = bind(target.original, tuple(args), dict(kwargs))
    return run_benchmark(target, [(None, lambda: inputs)], options)


__all__ = [
    "ArgSpec",
    "BenchOptions",
    "BenchResult",
    "ConvertedResult",
    "DeviceError",
    "Equivalence",
    "Failure",
    "OriginalResult",
    "SizeRun",
    "SpecError",
    "StageTimes",
    "Timing",
    "benchmark",
    "compare_outputs",
    "parse_spec",
    "parse_specs",
]
