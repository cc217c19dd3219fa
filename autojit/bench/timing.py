"""The timing protocol.

Steady state: ``warmup`` untimed calls, then up to ``repeat`` timed calls, each timed from just
before the call to just after every output leaf is ready (``block_until_ready``). The inputs
of each call are prepared outside the timed region (the eager original may update its inputs
in place, so it gets fresh copies each time). Compilation is timed apart, stage by stage:
``jax.jit(f).trace(...)``, ``.lower()``, ``.compile()``; steady-state calls then go to the
compiled executable, so no compile can leak into them.

The clock is a parameter (``time.perf_counter`` by default) so that tests can drive it.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

Clock = Callable[[], float]


@dataclass
class Timing:
    """Seconds per call over ``n`` timed calls after ``warmup`` untimed ones."""

    samples: list[float] = field(default_factory=list)
    warmup: int = 0

    @property
    def n(self) -> int:
        return len(self.samples)

    @property
    def median(self) -> float:
        return statistics.median(self.samples) if self.samples else float("nan")

    @property
    def min(self) -> float:
        return min(self.samples) if self.samples else float("nan")

    @property
    def max(self) -> float:
        return max(self.samples) if self.samples else float("nan")

    @property
    def mean(self) -> float:
        return statistics.fmean(self.samples) if self.samples else float("nan")

    @property
    def stdev(self) -> float:
        return statistics.stdev(self.samples) if len(self.samples) > 1 else 0.0

    @property
    def iqr(self) -> float:
        if len(self.samples) < 2:
            return 0.0
        q = statistics.quantiles(self.samples, n=4, method="inclusive")
        return q[2] - q[0]

    def to_json(self) -> dict[str, Any]:
        return {
            "median_s": self.median,
            "min_s": self.min,
            "max_s": self.max,
            "mean_s": self.mean,
            "stdev_s": self.stdev,
            "iqr_s": self.iqr,
            "n": self.n,
            "warmup": self.warmup,
            "samples_s": list(self.samples),
        }


def block_until_ready(out: Any) -> Any:
    """Wait for every array leaf of ``out`` (any pytree; non-JAX leaves are left alone)."""
    import jax

    for leaf in jax.tree_util.tree_leaves(out):
        wait = getattr(leaf, "block_until_ready", None)
        if wait is not None:
            wait()
    return out


def measure(
    call: Callable[..., Any],
    *,
    repeat: int,
    warmup: int,
    prepare: Callable[[], tuple[tuple[Any, ...], dict[str, Any]]] | None = None,
    sync: Callable[[Any], Any] = block_until_ready,
    clock: Clock = time.perf_counter,
    max_seconds: float | None = None,
) -> Timing:
    """Time ``call`` by the protocol above; exceptions from ``call`` propagate.

    ``prepare()`` gives the ``(args, kwargs)`` of each call (untimed). With ``max_seconds``,
    timed calls stop once their total passes it (at least one timed call is always made).
    """
    timing = Timing(warmup=warmup)
    for _ in range(warmup):
        args, kwargs = prepare() if prepare is not None else ((), {})
        sync(call(*args, **kwargs))
    total = 0.0
    for _ in range(max(1, repeat)):
        args, kwargs = prepare() if prepare is not None else ((), {})
        t0 = clock()
        sync(call(*args, **kwargs))
        t1 = clock()
        timing.samples.append(t1 - t0)
        total += t1 - t0
        if max_seconds is not None and total >= max_seconds:
            break
    return timing


@dataclass
class StageTimes:
    """Seconds spent tracing, lowering and compiling, each measured alone."""

    trace: float | None = None
    lower: float | None = None
    compile: float | None = None

    @property
    def total(self) -> float | None:
        parts = [self.trace, self.lower, self.compile]
        return None if any(p is None for p in parts) else sum(p for p in parts if p is not None)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        return {f"{k}_s": v for k, v in d.items()} | {"total_s": self.total}


@dataclass
class Compiled:
    """The result of :func:`compile_stages`: the executable, and what each stage took.

    ``failed_stage`` names the stage that raised (``error`` is the exception), if any."""

    times: StageTimes
    executable: Any = None
    lowered: Any = None
    failed_stage: str | None = None
    error: BaseException | None = None


def compile_stages(
    jitted: Any,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    clock: Clock = time.perf_counter,
) -> Compiled:
    """``jitted.trace(*args, **kwargs)``, ``.lower()``, ``.compile()``, each timed; an exception
    stops at its stage and is returned, not raised."""
    times = StageTimes()
    out = Compiled(times)
    stage = "trace"
    try:
        t0 = clock()
        traced = jitted.trace(*args, **kwargs)
        t1 = clock()
        times.trace = t1 - t0
        stage = "lower"
        t0 = clock()
        lowered = traced.lower()
        t1 = clock()
        times.lower = t1 - t0
        out.lowered = lowered
        stage = "compile"
        t0 = clock()
        out.executable = lowered.compile()
        t1 = clock()
        times.compile = t1 - t0
    except Exception as e:  # noqa: BLE001 - reported, not raised
        out.failed_stage = stage
        out.error = e
    return out


def dynamic_arguments(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    static_argnames: tuple[str, ...],
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments a compiled executable takes: the call's, less the static ones."""
    import inspect

    if not static_argnames:
        return args, kwargs
    try:
        names = [
            p.name
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):
        names = []
    dyn_args = tuple(
        a for i, a in enumerate(args) if i >= len(names) or names[i] not in static_argnames
    )
    dyn_kwargs = {k: v for k, v in kwargs.items() if k not in static_argnames}
    return dyn_args, dyn_kwargs
