"""The ``autojit bench`` command (``bench_command``), also run as ``python -m autojit.bench``.

Importing this module does not import JAX; the command imports it when it runs.

Exit status: 0 when the converted function's outputs match the eager original's on every input
set; 1 on a mismatch, or when the original or the converted function raised (reported in the
table); 2 on a usage error, an unknown device, or a file/function that cannot be loaded.
"""

from __future__ import annotations

import contextlib
import inspect
import sys
from collections.abc import Callable
from typing import Any

import click

EXIT_MISMATCH = 1
EXIT_USAGE = 2


def split_specs(text: str) -> list[str]:
    """Split ``"x=f32[10] n=5 shape=(3, 4)"`` on whitespace outside brackets and quotes."""
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    quote: str | None = None
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch.isspace() and depth <= 0:
            if cur:
                out.append("".join(cur))
                cur = []
            continue
        cur.append(ch)
    if cur:
        out.append("".join(cur))
    return out


def parse_sizes(values: tuple[str, ...]) -> list[int]:
    sizes: list[int] = []
    for v in values:
        for part in v.replace(" ", ",").split(","):
            if not part:
                continue
            try:
                n = int(float(part)) if "e" in part.lower() else int(part)
            except ValueError:
                raise click.BadParameter(
                    f"{part!r} is not an integer size", param_hint="--sizes"
                ) from None
            if n < 0:
                raise click.BadParameter(f"negative size {n}", param_hint="--sizes")
            sizes.append(n)
    return sizes


class _Progress:
    """Status of a long run on stderr: rich's spinner where installed, a rewritten line on a
    terminal otherwise, plain lines with ``--progress`` when stderr is not a terminal."""

    def __init__(self, enabled: bool | None) -> None:
        tty = sys.stderr.isatty()
        self.enabled = tty if enabled is None else enabled
        self.inline = tty
        self.status: Any = None
        self.width = 0
        if self.enabled and tty:
            try:
                from rich.console import Console

                self.status = Console(file=sys.stderr).status("autojit bench")
                self.status.start()
            except ImportError:
                self.status = None

    def __call__(self, msg: str) -> None:
        if not self.enabled:
            return
        if self.status is not None:
            self.status.update(f"autojit bench: {msg}")
        elif self.inline:
            text = f"autojit bench: {msg}"
            sys.stderr.write("\r" + text.ljust(self.width))
            self.width = len(text)
            sys.stderr.flush()
        else:
            sys.stderr.write(f"autojit bench: {msg}\n")
            sys.stderr.flush()

    def close(self) -> None:
        if self.status is not None:
            self.status.stop()
        elif self.enabled and self.inline and self.width:
            sys.stderr.write("\r" + " " * self.width + "\r")
            sys.stderr.flush()


def _fail(msg: str, code: int = EXIT_USAGE) -> None:
    click.echo(f"autojit bench: error: {msg}", err=True)
    sys.exit(code)


@click.command(
    name="bench",
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.argument("target", metavar="FILE::FUNC")
@click.argument("specs", nargs=-1, metavar="[SPEC]...")
@click.option(
    "--example",
    "-e",
    "examples",
    multiple=True,
    metavar="SPEC",
    help="An input: x=f32[1000], mask=bool[10,10], i=i32[], idx=i32[5](0,100), key=prng, "
    "n=5, s=1.5, or f32[3] for a positional argument. Repeatable; several may be given in one "
    "value separated by spaces. {n} is replaced by each of --sizes.",
)
@click.option(
    "--inputs",
    "factory",
    metavar="FACTORY",
    help="A function in FILE (or OTHER.py::NAME) returning (args, kwargs); called with the size "
    "when sweeping --sizes, and with seed= when it takes one.",
)
@click.option(
    "--device",
    type=click.Choice(["cpu", "gpu", "tpu"], case_sensitive=False),
    default=None,
    help="Where to run (default: JAX's default device).",
)
@click.option(
    "--repeat",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Timed calls per measurement.",
)
@click.option(
    "--warmup",
    type=click.IntRange(min=0),
    default=1,
    show_default=True,
    help="Untimed calls before timing.",
)
@click.option(
    "--seed", type=int, default=0, show_default=True, help="Seed for the generated inputs."
)
@click.option(
    "--sizes",
    multiple=True,
    metavar="N,N,...",
    help="Sweep input sizes: each replaces {n} in the specs.",
)
@click.option("--json", "as_json", is_flag=True, help="Write the results as JSON on stdout.")
@click.option(
    "--plot",
    "plot_path",
    metavar="OUT.png",
    help="Write a PNG of time against size (needs matplotlib).",
)
@click.option(
    "--rtol",
    type=float,
    default=None,
    help="Relative tolerance of the equivalence check (default 1e-4).",
)
@click.option(
    "--atol",
    type=float,
    default=None,
    help="Absolute tolerance of the equivalence check (default 1e-5).",
)
@click.option(
    "--max-seconds",
    type=float,
    default=10.0,
    show_default=True,
    help="Stop timing calls of one function once they take this long in total.",
)
@click.option(
    "--reference",
    metavar="NAME",
    help="A hand-written JAX version of FUNC in FILE: timed under jax.jit too, with the "
    "converted/reference time ratio reported.",
)
@click.option(
    "--donate",
    is_flag=True,
    help="Donate the converted function's array arguments (donate_argnames), so XLA may "
    "update them in place as NumPy does; each call gets fresh copies, untimed.",
)
@click.option("--no-plain-jit", is_flag=True, help="Do not try a plain jax.jit of the original.")
@click.option(
    "--eager-inputs",
    type=click.Choice(["auto", "numpy", "jax"]),
    default="auto",
    show_default=True,
    help="What the eager original runs on: NumPy arrays (in-place updates keep NumPy's "
    "meaning), JAX device arrays, or auto: NumPy, then JAX arrays if it raises on NumPy ones.",
)
@click.option(
    "--progress/--no-progress", default=None, help="Show progress (default: on a terminal)."
)
def bench_command(
    target: str,
    specs: tuple[str, ...],
    examples: tuple[str, ...],
    factory: str | None,
    device: str | None,
    repeat: int,
    warmup: int,
    seed: int,
    sizes: tuple[str, ...],
    as_json: bool,
    plot_path: str | None,
    rtol: float | None,
    atol: float | None,
    max_seconds: float,
    reference: str | None,
    donate: bool,
    no_plain_jit: bool,
    eager_inputs: str,
    progress: bool | None,
) -> None:
    """Compile, run and compare FUNC and its autojit conversion on the target device.

    Runs the original eagerly and under a plain jax.jit (or names the error it raises), then
    the converted function under jax.jit with the inferred static arguments: trace, lower and
    compile times, steady-state time, speedup, XLA cost and memory analysis, and a check that
    its outputs (values, shapes, dtypes) match the eager original's. Exit status 1 on a
    mismatch or a failure.

    \b
    Example:
      autojit bench model.py::step x=f32[1000000] i=5
      autojit bench model.py::step -e 'x=f32[{n}]' --sizes 1000,100000 --plot step.png
    """
    from .spec import SpecError

    all_specs: list[str] = []
    for text in (*examples, *specs):
        all_specs.extend(split_specs(text))
    if all_specs and factory:
        raise click.UsageError("give either specs (--example) or --inputs, not both")
    size_list = parse_sizes(sizes)
    if size_list and not factory and not any("{n}" in s for s in all_specs):
        raise click.UsageError("--sizes needs {n} in a spec (e.g. -e 'x=f32[{n}]') or --inputs")
    if plot_path:
        from .report import PlotError, check_plotting

        try:
            check_plotting()
        except PlotError as e:
            _fail(str(e))

    from .load import LoadError, import_file, load_target, split_target, unwrap_jit
    from .spec import call_factory, make_inputs, parse_specs

    sizes_or_none: list[int | None] = list(size_list) or [None]
    # check every spec before running anything
    try:
        for size in sizes_or_none:
            parse_specs(all_specs, size)
    except SpecError as e:
        _fail(str(e))

    from .runner import BenchOptions, DeviceError, resolve_device, run_benchmark

    try:
        resolve_device(device)
    except DeviceError as e:
        _fail(str(e))

    try:
        path, func = split_target(target)
        # stdout carries the JSON: what the user's code prints goes to stderr
        with contextlib.redirect_stdout(sys.stderr):
            tgt = load_target(path, func)
    except LoadError as e:
        _fail(str(e))

    if reference:
        ref_fn = getattr(tgt.module, reference, None)
        if not callable(ref_fn):
            _fail(f"no reference function {reference!r} in {path}")
        tgt.reference = unwrap_jit(ref_fn)

    make_factory: Callable[..., Any] | None = None
    if factory:
        try:
            if "::" in factory:
                fpath, fname = split_target(factory)
                fmod: Any = import_file(fpath)
            else:
                fmod, fname = tgt.module, factory
            make_factory = getattr(fmod, fname)
        except (LoadError, AttributeError):
            _fail(f"no input factory {factory!r} in {path}")
    elif not all_specs:
        try:
            required = [
                p.name
                for p in inspect.signature(tgt.original).parameters.values()
                if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            ]
        except (TypeError, ValueError):
            required = []
        if required:
            hint = " ".join(f"{n}=f32[100]" for n in required)
            raise click.UsageError(
                f"{func} takes {', '.join(required)}: give inputs, e.g. {target} {hint}, "
                "or --inputs FACTORY"
            )

    from .compare import DEFAULT_ATOL, DEFAULT_RTOL

    options = BenchOptions(
        repeat=repeat,
        warmup=warmup,
        device=device,
        rtol=DEFAULT_RTOL if rtol is None else rtol,
        atol=DEFAULT_ATOL if atol is None else atol,
        max_seconds=max_seconds,
        seed=seed,
        plain_jit=not no_plain_jit,
        eager_inputs=eager_inputs,
        donate=donate,
    )

    def maker(size: int | None) -> Callable[[], Any]:
        if make_factory is not None:
            fac = make_factory

            def from_factory() -> Any:
                from .spec import bind

                args, kwargs = call_factory(fac, size, seed)
                return bind(tgt.original, args, kwargs)

            return from_factory
        return lambda: make_inputs(parse_specs(all_specs, size), seed, tgt.original)

    sets = [(size, maker(size)) for size in sizes_or_none]
    prog = _Progress(progress)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            result = run_benchmark(tgt, sets, options, progress=prog)
    except DeviceError as e:
        prog.close()
        _fail(str(e))
    finally:
        prog.close()

    from .report import PlotError, plot, print_table, to_json

    print_table(result)
    if as_json:
        click.echo(to_json(result))
    if plot_path:
        try:
            plot(result, plot_path)
            click.echo(f"autojit bench: wrote {plot_path}", err=True)
        except PlotError as e:
            _fail(str(e))
    if not result.ok:
        sys.exit(EXIT_MISMATCH)


def main(argv: list[str] | None = None) -> None:
    """``python -m autojit.bench``."""
    bench_command.main(args=argv, prog_name="autojit bench")
