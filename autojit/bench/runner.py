"""Run the original and the converted function on the same inputs, time them, compare them."""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .compare import DEFAULT_ATOL, DEFAULT_RTOL, compare_outputs
from .load import Target
from .result import BenchResult, ConvertedResult, Failure, OriginalResult, SizeRun
from .spec import describe_inputs
from .timing import Clock, block_until_ready, compile_stages, dynamic_arguments, measure

Progress = Callable[[str], None]
Inputs = tuple[tuple[Any, ...], dict[str, Any]]


class DeviceError(Exception):
    """The requested device kind is not present."""


@dataclass
class BenchOptions:
    """How to run a benchmark."""

    repeat: int = 10
    warmup: int = 1
    device: str | None = None  # "cpu" | "gpu" | "tpu" | None for JAX's default
    rtol: float = DEFAULT_RTOL
    atol: float = DEFAULT_ATOL
    max_seconds: float | None = 10.0  # per measurement: stop timing calls past this
    seed: int = 0
    plain_jit: bool = True  # also time a plain jax.jit of the original
    # what the eager original runs on: "numpy" arrays, "jax" device arrays, or "auto" (NumPy,
    # then JAX arrays if the original raises on NumPy ones)
    eager_inputs: str = "auto"
    # donate the converted function's array arguments (XLA may then update them in place,
    # as NumPy does; each timed call gets its own copies, made outside the timed region)
    donate: bool = False


def available_devices() -> dict[str, list[Any]]:
    """The devices JAX can reach, by platform kind (cpu / gpu / tpu)."""
    import jax

    out: dict[str, list[Any]] = {}
    for kind in ("cpu", "gpu", "tpu"):
        try:
            devs = jax.devices(kind)
        except Exception:  # noqa: BLE001 - absent backend
            continue
        if devs:
            out[kind] = list(devs)
    return out


def resolve_device(kind: str | None) -> Any:
    """The first device of ``kind`` (JAX's default device for None); DeviceError naming the
    devices that are present otherwise."""
    import jax

    if kind is None:
        return jax.devices()[0]
    kind = kind.lower()
    aliases = {"cuda": "gpu", "rocm": "gpu"}
    kind = aliases.get(kind, kind)
    try:
        devs = jax.devices(kind)
    except Exception:  # noqa: BLE001 - described below
        devs = []
    if devs:
        return devs[0]
    present = available_devices()
    listing = (
        "; ".join(f"{k}: {', '.join(str(d) for d in v)}" for k, v in present.items()) or "none"
    )
    raise DeviceError(f"no {kind} device is present. Devices present: {listing}")


def _is_array(x: Any) -> bool:
    import jax
    import numpy as np

    return isinstance(x, (np.ndarray, np.generic, jax.Array))


def fresh_copies(inputs: Inputs) -> Inputs:
    """The inputs with NumPy arrays copied (the eager original may update them in place)."""
    import jax
    import numpy as np

    def copy(x: Any) -> Any:
        return x.copy() if isinstance(x, np.ndarray) else x

    args, kwargs = inputs
    return jax.tree_util.tree_map(copy, (args, kwargs))


def on_device(inputs: Inputs, device: Any) -> Inputs:
    """The inputs with every array placed on ``device``; Python values are left as they are
    (static arguments must stay hashable Python values)."""
    import jax
    import numpy as np

    def put(x: Any) -> Any:
        if isinstance(x, (np.ndarray, np.generic, jax.Array)):
            return jax.device_put(x, device)
        return x

    args, kwargs = inputs
    return jax.tree_util.tree_map(put, (args, kwargs))


def _cost(executable: Any) -> dict[str, float] | None:
    try:
        ca = executable.cost_analysis()
    except Exception:  # noqa: BLE001 - not every backend gives one
        return None
    if isinstance(ca, (list, tuple)):
        ca = ca[0] if ca else None
    if not ca:
        return None
    out: dict[str, float] = {}
    for key, name in (
        ("flops", "flops"),
        ("bytes accessed", "bytes_accessed"),
        ("transcendentals", "transcendentals"),
        ("optimal_seconds", "optimal_seconds"),
    ):
        if key in ca:
            out[name] = float(ca[key])
    return out or None


def _memory(executable: Any) -> dict[str, int] | None:
    try:
        ma = executable.memory_analysis()
    except Exception:  # noqa: BLE001
        return None
    if ma is None:
        return None
    out: dict[str, int] = {}
    for field_name in (
        "argument_size_in_bytes",
        "output_size_in_bytes",
        "temp_size_in_bytes",
        "alias_size_in_bytes",
        "generated_code_size_in_bytes",
    ):
        v = getattr(ma, field_name, None)
        if v is not None:
            out[field_name.replace("_size_in_bytes", "_bytes")] = int(v)
    return out or None


def _static_names(fn: Callable[..., Any], names: Iterable[str]) -> tuple[str, ...]:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return tuple(names)
    return tuple(n for n in names if n in params)


def run_inputs(
    target: Target,
    inputs: Inputs,
    options: BenchOptions,
    device: Any,
    size: int | None = None,
    progress: Progress | None = None,
    clock: Clock = time.perf_counter,
) -> SizeRun:
    """Run and time the original (eager, plain jit) and the converted function on ``inputs``."""
    import jax

    say = progress or (lambda _msg: None)
    label = f"n={size}: " if size is not None else ""
    run = SizeRun(size, describe_inputs(*inputs))
    user_file = target.path
    reference: Any = None
    have_reference = False

    with jax.default_device(device):
        dev_inputs = on_device(inputs, device)

        # 1. the original, eagerly: on NumPy inputs (fresh copies each call: in-place updates
        # keep NumPy's meaning), or, where it needs JAX arrays (`x.at[...]`), on device arrays
        if options.eager_inputs == "auto":
            modes = ["numpy", "jax"]
        else:
            modes = [options.eager_inputs]
        for mode in modes:
            say(f"{label}original, eager ({mode} inputs)")
            prepare: Callable[[], Inputs] = (
                (lambda: fresh_copies(inputs)) if mode == "numpy" else (lambda: dev_inputs)
            )
            try:
                a, k = prepare()
                reference = block_until_ready(target.original(*a, **k))
                have_reference = True
                eager = measure(
                    target.original,
                    repeat=options.repeat,
                    warmup=max(options.warmup - 1, 0),
                    prepare=prepare,
                    clock=clock,
                    max_seconds=options.max_seconds,
                )
            except Exception as e:  # noqa: BLE001 - reported in the table
                have_reference = False
                if run.original.eager_error is None:
                    run.original.eager_error = Failure.from_exception(e, "eager", user_file)
                continue
            eager.warmup = max(options.warmup, 1)
            run.original.eager = eager
            run.original.eager_inputs = mode
            run.original.eager_error = None
            break

        # 2. the original under a plain jax.jit, no static arguments
        if options.plain_jit:
            say(f"{label}original, plain jax.jit")
            _jit_original(target, dev_inputs, options, run.original, clock, user_file)

        # 3. the converted function, jitted with the inferred static arguments
        if target.converted is None:
            err = target.error or RuntimeError("no converted function")
            run.converted.error = Failure.from_exception(err, "convert", user_file)
        else:
            say(f"{label}converted: trace, lower, compile")
            static = target.conversion.static_argnames if target.conversion is not None else ()
            output = _run_converted(
                target.converted,
                static,
                dev_inputs,
                options,
                run.converted,
                clock,
                say,
                label,
                user_file,
            )
            if run.converted.error is None and have_reference:
                run.equivalence = compare_outputs(
                    reference, output, rtol=options.rtol, atol=options.atol
                )

        # 4. a hand-written reference, jitted with the same static arguments
        if target.reference is not None:
            say(f"{label}hand-written reference")
            run.reference = ConvertedResult()
            static = target.conversion.static_argnames if target.conversion is not None else ()
            ref_out = _run_converted(
                target.reference,
                static,
                dev_inputs,
                options,
                run.reference,
                clock,
                say,
                label,
                user_file,
            )
            if run.reference.error is None and have_reference:
                run.reference_equivalence = compare_outputs(
                    reference, ref_out, rtol=options.rtol, atol=options.atol
                )
    return run


def _jit_original(
    target: Target,
    dev_inputs: Inputs,
    options: BenchOptions,
    result: OriginalResult,
    clock: Clock,
    user_file: str | None,
) -> None:
    import jax

    args, kwargs = dev_inputs
    compiled = compile_stages(jax.jit(target.original), args, kwargs, clock)
    result.jit_stages = compiled.times
    if compiled.error is not None:
        result.jit_error = Failure.from_exception(compiled.error, compiled.failed_stage, user_file)
        return
    try:
        block_until_ready(compiled.executable(*args, **kwargs))
        result.jit = measure(
            compiled.executable,
            repeat=options.repeat,
            warmup=max(options.warmup - 1, 0),
            prepare=lambda: (args, kwargs),
            clock=clock,
            max_seconds=options.max_seconds,
        )
        result.jit.warmup = max(options.warmup, 1)
    except Exception as e:  # noqa: BLE001
        result.jit_error = Failure.from_exception(e, "run", user_file)


def _array_argnames(
    fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], static: tuple[str, ...]
) -> tuple[str, ...]:
    """Names of the parameters that receive arrays (the ones ``--donate`` donates)."""
    try:
        params = [
            p.name
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):
        return ()
    named = dict(zip(params, args, strict=False)) | kwargs
    return tuple(n for n, v in named.items() if n not in static and _is_array(v))


def _device_copies(inputs: Inputs) -> Inputs:
    import jax

    def copy(x: Any) -> Any:
        return x.copy() if isinstance(x, jax.Array) else x

    return jax.tree_util.tree_map(copy, inputs)


def _run_converted(
    fn: Callable[..., Any],
    static_argnames: Iterable[str],
    dev_inputs: Inputs,
    options: BenchOptions,
    result: ConvertedResult,
    clock: Clock,
    say: Progress,
    label: str,
    user_file: str | None,
) -> Any:
    import warnings

    import jax

    static = _static_names(fn, static_argnames)
    args, kwargs = dev_inputs
    jit_kwargs: dict[str, Any] = {}
    if static:
        jit_kwargs["static_argnames"] = static
    donated = _array_argnames(fn, args, kwargs, static) if options.donate else ()
    if donated:
        jit_kwargs["donate_argnames"] = donated
    jitted = jax.jit(fn, **jit_kwargs)
    compiled = compile_stages(jitted, args, kwargs, clock)
    result.stages = compiled.times
    if compiled.error is not None:
        result.error = Failure.from_exception(compiled.error, compiled.failed_stage, user_file)
        return None
    result.cost = _cost(compiled.executable)
    result.memory = _memory(compiled.executable)
    dyn_inputs = dynamic_arguments(fn, args, kwargs, static)
    call: Callable[..., Any] = compiled.executable

    def fresh() -> Inputs:
        # donated buffers are consumed by each call: give each call its own (untimed)
        return _device_copies(dyn_inputs) if donated else dyn_inputs

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*donated buffers were not usable.*")
        try:
            a, k = fresh()
            output = block_until_ready(call(*a, **k))
        except TypeError:
            # the executable wants another argument layout: fall back to the jitted function
            call, dyn_inputs = jitted, (args, kwargs)
            try:
                a, k = fresh()
                output = block_until_ready(call(*a, **k))
            except Exception as e:  # noqa: BLE001
                result.error = Failure.from_exception(e, "run", user_file)
                return None
        except Exception as e:  # noqa: BLE001
            result.error = Failure.from_exception(e, "run", user_file)
            return None
        say(f"{label}converted: steady state")
        try:
            result.timing = measure(
                call,
                repeat=options.repeat,
                warmup=max(options.warmup - 1, 0),
                prepare=fresh,
                clock=clock,
                max_seconds=options.max_seconds,
            )
            result.timing.warmup = max(options.warmup, 1)
        except Exception as e:  # noqa: BLE001
            result.error = Failure.from_exception(e, "run", user_file)
            return None
    result.donated = list(donated)
    return output


def describe_device(device: Any) -> tuple[str, str, str]:
    """(backend, device, device kind) for reports."""
    return (
        str(getattr(device, "platform", "?")),
        str(device),
        str(getattr(device, "device_kind", "?")),
    )


def new_result(target: Target, options: BenchOptions, device: Any) -> BenchResult:
    import jax

    backend, dev, kind = describe_device(device)
    res = BenchResult(
        function=target.name,
        file=target.path,
        backend=backend,
        device=dev,
        device_kind=kind,
        jax_version=jax.__version__,
        repeat=options.repeat,
        warmup=options.warmup,
        seed=options.seed,
    )
    fc = target.conversion
    if fc is not None:
        res.static_argnames = list(fc.static_argnames)
        res.changes = [str(c) for c in fc.changes]
        res.refusals = [str(r) for r in fc.refusals]
    if target.converted is None and target.error is not None:
        res.conversion_error = Failure.from_exception(target.error, "convert", target.path)
    return res


def run_benchmark(
    target: Target,
    input_sets: Iterable[tuple[int | None, Callable[[], Inputs]]],
    options: BenchOptions,
    progress: Progress | None = None,
    clock: Clock = time.perf_counter,
) -> BenchResult:
    """Benchmark ``target`` on each input set, ``(size, make_inputs)``; ``make_inputs`` may
    raise (reported as that run's input error)."""
    import jax

    device = resolve_device(options.device)
    result = new_result(target, options, device)
    for size, make in input_sets:
        try:
            with jax.default_device(device):
                inputs = make()
        except Exception as e:  # noqa: BLE001 - reported
            run = SizeRun(size, [])
            run.input_error = Failure.from_exception(e, "inputs", target.path)
            result.runs.append(run)
            continue
        result.runs.append(run_inputs(target, inputs, options, device, size, progress, clock))
    return result
