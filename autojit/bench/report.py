"""Reports of a benchmark: a table (rich where installed, plain text otherwise), JSON, a
Markdown table and a PNG plot of time against size."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence
from typing import IO, Any

from .result import BenchResult, SizeRun


def fmt_seconds(s: float | None) -> str:
    """``1.23 ms``, ``45.6 µs``, ``2.10 s``; ``-`` for nothing."""
    if s is None or (isinstance(s, float) and math.isnan(s)):
        return "-"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.3g} ms"
    if s >= 1e-6:
        return f"{s * 1e6:.3g} µs"
    return f"{s * 1e9:.3g} ns"


def fmt_bytes(n: float | None) -> str:
    if n is None:
        return "-"
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1024 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def fmt_count(n: float | None) -> str:
    if n is None:
        return "-"
    if abs(n) < 1e4:
        return f"{n:.0f}"
    return f"{n:.3g}"


def fmt_ratio(r: float | None) -> str:
    if r is None:
        return "-"
    if r >= 100:
        return f"{r:.0f}x"
    return f"{r:.2f}x" if r >= 1 else f"{r:.2g}x"


def _timing_cell(t: Any) -> str:
    if t is None or not t.samples:
        return "-"
    if t.n > 1:
        return f"{fmt_seconds(t.median)} ± {fmt_seconds(t.iqr / 2)}"
    return fmt_seconds(t.median)


def _err(f: Any) -> str:
    return f"{f.short_type} ({f.stage})" if f.stage else f.short_type


HEADERS = [
    "size",
    "eager original",
    "plain jit (original)",
    "converted",
    "trace",
    "lower",
    "compile",
    "speedup",
    "max abs err",
    "check",
]


def row(run: SizeRun) -> list[str]:
    o, c = run.original, run.converted
    eager = _err(o.eager_error) if o.eager_error else _timing_cell(o.eager)
    if o.jit_error is not None:
        plain = _err(o.jit_error)
    elif o.jit is not None:
        plain = _timing_cell(o.jit)
    else:
        plain = "-"
    conv = _err(c.error) if c.error else _timing_cell(c.timing)
    eq = run.equivalence
    return [
        "-" if run.size is None else str(run.size),
        eager,
        plain,
        conv,
        fmt_seconds(c.stages.trace),
        fmt_seconds(c.stages.lower),
        fmt_seconds(c.stages.compile),
        fmt_ratio(run.speedup),
        "-" if eq is None or eq.max_abs_error is None else f"{eq.max_abs_error:.2g}",
        run.status,
    ]


def _header_lines(result: BenchResult) -> list[str]:
    name = f"{result.file}::{result.function}" if result.file else result.function
    lines = [
        f"autojit bench {name}",
        f"backend {result.backend}, device {result.device} ({result.device_kind}), "
        f"jax {result.jax_version}; {result.warmup} warm-up + up to {result.repeat} timed calls, "
        f"seed {result.seed}",
    ]
    lines.append(
        "static arguments: "
        + (", ".join(result.static_argnames) if result.static_argnames else "none")
    )
    if result.changes:
        lines.append(f"rewrites: {len(result.changes)}")
        lines.extend(f"  {c}" for c in result.changes)
    if result.refusals:
        lines.append(f"refused: {len(result.refusals)}")
        lines.extend(f"  {r}" for r in result.refusals)
    return lines


def _footer_lines(result: BenchResult) -> tuple[list[str], list[str]]:
    """(notes, alarms): notes are details; alarms are mismatches and failures."""
    notes: list[str] = []
    alarms: list[str] = []
    if result.conversion_error is not None:
        f = result.conversion_error
        alarms.append(f"conversion failed: {f.type}: {f.first_line}")
    for run in result.runs:
        label = f"[n={run.size}] " if run.size is not None else ""
        if run.input_error is not None:
            f = run.input_error
            alarms.append(f"{label}making the inputs raised {f.type}: {f.first_line}")
            continue
        if run.inputs:
            on = ""
            if run.original.eager_inputs == "jax":
                on = " (the eager original ran on JAX arrays: it raises on NumPy ones)"
            notes.append(f"{label}inputs: {', '.join(run.inputs)}{on}")
        o, c = run.original, run.converted
        if o.eager_error is not None:
            f = o.eager_error
            alarms.append(
                f"{label}the original raised eagerly: {f.type}: {f.first_line}"
                + (f" ({f.where})" if f.where else "")
            )
        if o.jit_error is not None:
            f = o.jit_error
            notes.append(
                f"{label}plain jax.jit of the original fails at {f.stage}: {f.type}: {f.first_line}"
            )
        elif o.jit_stages is not None and o.jit_stages.total is not None:
            notes.append(
                f"{label}plain jax.jit of the original compiles in {fmt_seconds(o.jit_stages.total)}"
            )
        if c.error is not None and not (
            result.conversion_error is not None and c.error.stage == "convert"
        ):
            f = c.error
            alarms.append(
                f"{label}the converted function failed at {f.stage}: {f.type}: {f.first_line}"
                + (f" ({f.where})" if f.where else "")
            )
        if c.donated:
            notes.append(f"{label}donated to the converted function: {', '.join(c.donated)}")
        if c.cost:
            parts = [f"flops {fmt_count(c.cost['flops'])}"] if "flops" in c.cost else []
            if "bytes_accessed" in c.cost:
                parts.append(f"bytes accessed {fmt_bytes(c.cost['bytes_accessed'])}")
            if "transcendentals" in c.cost:
                parts.append(f"transcendentals {fmt_count(c.cost['transcendentals'])}")
            notes.append(f"{label}XLA cost analysis: " + ", ".join(parts))
        if c.memory:
            notes.append(
                f"{label}XLA memory analysis: "
                + ", ".join(
                    f"{k.replace('_bytes', '')} {fmt_bytes(v)}" for k, v in c.memory.items()
                )
            )
        if run.reference is not None:
            ref = run.reference
            if ref.error is not None:
                alarms.append(
                    f"{label}the hand-written reference failed at {ref.error.stage}: "
                    f"{ref.error.type}: {ref.error.first_line}"
                )
            else:
                notes.append(
                    f"{label}hand-written reference (jitted): {_timing_cell(ref.timing)}, "
                    f"compile {fmt_seconds(ref.stages.total)}; converted / reference: "
                    f"{fmt_ratio(run.reference_ratio)}"
                )
            req = run.reference_equivalence
            if req is not None and not req.ok:
                notes.append(
                    f"{label}note: the reference's outputs differ from the eager original's: "
                    + "; ".join(req.all_problems()[:3])
                )
        if run.speedup_vs_jit is not None:
            notes.append(
                f"{label}converted vs plain jit of the original: {fmt_ratio(run.speedup_vs_jit)}"
            )
        eq = run.equivalence
        if eq is not None:
            if eq.ok:
                notes.append(
                    f"{label}outputs match: {len(eq.leaves)} leaves, max abs error "
                    f"{_g(eq.max_abs_error)}, max rel error {_g(eq.max_rel_error)} "
                    f"(rtol {eq.rtol:g}, atol {eq.atol:g})"
                )
            else:
                alarms.append(
                    f"{label}MISMATCH: the converted function's outputs differ from the eager original's"
                )
                alarms.extend(f"    {p}" for p in eq.all_problems())
    # in a sweep, say once what is the same for every size
    seen: set[str] = set()
    kept: list[str] = []
    for n in notes:
        body = n.split("] ", 1)[1] if n.startswith("[n=") else n
        if body in seen:
            continue
        seen.add(body)
        kept.append(n)
    if result.runs:
        kept.append(
            "times: median ± half the interquartile range of the timed calls; "
            "speedup: eager original / converted"
        )
    return kept, alarms


def _g(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}"


def _plain_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)
    ]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    out = [line(headers), line(["-" * w for w in widths])]
    out.extend(line(r) for r in rows)
    return "\n".join(out)


def render_text(result: BenchResult) -> str:
    """The report as plain text."""
    notes, alarms = _footer_lines(result)
    parts = _header_lines(result)
    parts.append("")
    parts.append(_plain_table(HEADERS, [row(r) for r in result.runs]))
    parts.append("")
    parts.extend(notes)
    if alarms:
        parts.append("")
        parts.append("!" * 72)
        parts.extend(alarms)
        parts.append("!" * 72)
    return "\n".join(parts) + "\n"


def print_table(
    result: BenchResult, file: IO[str] | None = None, use_rich: bool | None = None
) -> None:
    """Print the report to ``file`` (stderr by default), with rich when it is installed."""
    file = file if file is not None else sys.stderr
    console = None
    if use_rich is not False:
        try:
            from rich.console import Console
            from rich.table import Table
        except ImportError:
            console = None
        else:
            console = Console(file=file, highlight=False)
    if console is None:
        file.write(render_text(result))
        file.flush()
        return
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    rows = [row(r) for r in result.runs]
    needed = sum(max(len(h), *(len(r[i]) for r in rows)) + 3 for i, h in enumerate(HEADERS)) + 1
    if needed > console.width:  # a squeezed table is unreadable: let the terminal wrap it
        console = Console(file=file, highlight=False, width=needed)
    for line in _header_lines(result):
        console.print(escape(line), soft_wrap=True)
    table = Table(show_lines=False)
    for h in HEADERS:
        table.add_column(h, justify="left" if h in ("check",) else "right", no_wrap=True)
    for run in result.runs:
        cells = row(run)
        style = "bold red" if run.status != "ok" else "green"
        cells[-1] = f"[{style}]{escape(cells[-1])}[/]"
        table.add_row(*(c if i == len(cells) - 1 else escape(c) for i, c in enumerate(cells)))
    console.print(table)
    notes, alarms = _footer_lines(result)
    for n in notes:
        console.print(escape(n), soft_wrap=True)
    for a in alarms:
        console.print(f"[bold red]{escape(a)}[/]", soft_wrap=True)


def to_json(result: BenchResult) -> str:
    """The JSON form, NaN and infinity written as null."""

    def clean(x: Any) -> Any:
        if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
            return None
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, list):
            return [clean(v) for v in x]
        return x

    return json.dumps(clean(result.to_json()), indent=2)


def markdown_rows(result: BenchResult) -> list[list[str]]:
    """Rows for a README table: function, eager original, plain jit of the original (or its
    error), converted steady state, compile time, speedup, check."""
    out = []
    for run in result.runs:
        o, c = run.original, run.converted
        if o.jit_error is not None:
            plain = f"`{o.jit_error.short_type}`"
        else:
            plain = fmt_seconds(o.jit.median) if o.jit is not None else "-"
        eager = (
            f"`{o.eager_error.short_type}`"
            if o.eager_error
            else fmt_seconds(o.eager.median if o.eager else None)
        )
        conv = (
            f"`{c.error.short_type}`"
            if c.error
            else fmt_seconds(c.timing.median if c.timing else None)
        )
        name = f"`{result.function}`" + (f" (n={run.size})" if run.size is not None else "")
        out.append(
            [
                name,
                eager,
                plain,
                conv,
                fmt_seconds(c.stages.total),
                fmt_ratio(run.speedup),
                "ok" if run.ok else f"**{run.status}**",
            ]
        )
    return out


MARKDOWN_HEADERS = [
    "function",
    "eager original",
    "plain `jax.jit` of original",
    "converted (jit)",
    "compile",
    "speedup",
    "check",
]


def markdown_table(rows: Sequence[Sequence[str]], headers: Sequence[str] = MARKDOWN_HEADERS) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines.extend("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows)
    return "\n".join(lines) + "\n"


class PlotError(Exception):
    """matplotlib is missing, or there is nothing to plot."""


def check_plotting() -> None:
    """Raise PlotError with a clear message when matplotlib is not installed."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise PlotError(
            "--plot needs matplotlib, which is not installed: pip install matplotlib "
            "(or pip install 'autojit[bench]')"
        ) from None


def plot(result: BenchResult, path: str) -> None:
    """Write a PNG of median time against input size: eager original, plain jit of the
    original (where it compiles) and the converted function."""
    check_plotting()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = [r for r in result.runs if r.input_error is None]
    xs = [r.size if r.size is not None else i for i, r in enumerate(runs)]
    series = {
        "eager original": [r.original.eager.median if r.original.eager else None for r in runs],
        "plain jax.jit (original)": [
            r.original.jit.median if r.original.jit else None for r in runs
        ],
        "converted (jit)": [
            r.converted.timing.median if r.converted.timing else None for r in runs
        ],
    }
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, ys in series.items():
        pts = [(x, y) for x, y in zip(xs, ys, strict=True) if y is not None]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
    if all(r.size is not None for r in runs) and len(runs) > 1:
        ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("input size (n)")
    ax.set_ylabel("median time per call (s)")
    ax.set_title(f"{result.function} on {result.backend} ({result.device_kind})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
