"""What a benchmark found, as plain dataclasses with a JSON form (no JAX needed to read them)."""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from typing import Any

from .compare import Equivalence
from .timing import StageTimes, Timing


@dataclass
class Failure:
    """An exception, named: ``type`` is e.g. ``jax.errors.ConcretizationTypeError``."""

    type: str
    message: str
    stage: str | None = None
    where: str | None = None  # the innermost frame of the user's code, "file:line"

    @property
    def short_type(self) -> str:
        return self.type.rpartition(".")[2]

    @property
    def first_line(self) -> str:
        lines = self.message.strip().splitlines()
        return lines[0] if lines else ""

    @classmethod
    def from_exception(
        cls, e: BaseException, stage: str | None = None, user_file: str | None = None
    ) -> Failure:
        t = type(e)
        mod = t.__module__
        if mod == "builtins":
            name = t.__qualname__
        elif mod.startswith("jax"):
            # JAX's public names: jax.errors.ConcretizationTypeError, not jax._src.errors...
            import sys

            errors = sys.modules.get("jax.errors")
            public = errors is not None and getattr(errors, t.__name__, None) is t
            name = f"jax.errors.{t.__name__}" if public else f"{mod}.{t.__qualname__}"
        else:
            name = f"{mod}.{t.__qualname__}"
        where = None
        if user_file is not None:
            for frame in traceback.extract_tb(e.__traceback__):
                if frame.filename.startswith(user_file):
                    where = f"{frame.filename}:{frame.lineno}"
        return cls(name, str(e), stage, where)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "message": self.message,
            "stage": self.stage,
            "where": self.where,
        }


@dataclass
class OriginalResult:
    """The user's function as written: eagerly, and under a plain ``jax.jit``."""

    eager: Timing | None = None
    eager_error: Failure | None = None
    eager_inputs: str | None = None  # "numpy" or "jax": what the eager original ran on
    jit_stages: StageTimes | None = None
    jit: Timing | None = None
    jit_error: Failure | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "eager": self.eager.to_json() if self.eager else None,
            "eager_error": self.eager_error.to_json() if self.eager_error else None,
            "eager_inputs": self.eager_inputs,
            "jit": {
                "ok": self.jit_error is None and self.jit is not None,
                "compile": self.jit_stages.to_json() if self.jit_stages else None,
                "timing": self.jit.to_json() if self.jit else None,
                "error": self.jit_error.to_json() if self.jit_error else None,
            },
        }


@dataclass
class ConvertedResult:
    """The converted function under ``jax.jit`` with the inferred static arguments."""

    stages: StageTimes = field(default_factory=StageTimes)
    timing: Timing | None = None
    error: Failure | None = None
    cost: dict[str, float] | None = None
    memory: dict[str, int] | None = None
    donated: list[str] = field(default_factory=list)  # arguments donated (--donate)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.error is None and self.timing is not None,
            "compile": self.stages.to_json(),
            "timing": self.timing.to_json() if self.timing else None,
            "error": self.error.to_json() if self.error else None,
            "cost_analysis": self.cost,
            "memory_analysis": self.memory,
            "donated": list(self.donated),
        }


@dataclass
class SizeRun:
    """One set of inputs (one size of a sweep): both functions run, timed and compared."""

    size: int | None
    inputs: list[str]
    original: OriginalResult = field(default_factory=OriginalResult)
    converted: ConvertedResult = field(default_factory=ConvertedResult)
    equivalence: Equivalence | None = None
    input_error: Failure | None = None
    reference: ConvertedResult | None = None  # a hand-written JAX version, jitted
    reference_equivalence: Equivalence | None = None  # its outputs against the eager original

    @property
    def reference_ratio(self) -> float | None:
        """Converted median over hand-written reference median (1.0: as fast)."""
        r, c = self.reference, self.converted.timing
        if r is None or r.timing is None or c is None or not r.timing.samples or not c.samples:
            return None
        return c.median / r.timing.median if r.timing.median > 0 else None

    @property
    def speedup(self) -> float | None:
        """Eager original median over converted steady-state median."""
        e, c = self.original.eager, self.converted.timing
        if e is None or c is None or not e.samples or not c.samples or c.median <= 0:
            return None
        return e.median / c.median

    @property
    def speedup_vs_jit(self) -> float | None:
        """Plain-jit original median over converted median (where plain jit works)."""
        j, c = self.original.jit, self.converted.timing
        if j is None or c is None or not j.samples or not c.samples or c.median <= 0:
            return None
        return j.median / c.median

    @property
    def status(self) -> str:
        """``ok``, ``MISMATCH``, or what failed."""
        if self.input_error is not None:
            return "inputs failed"
        if self.original.eager_error is not None and self.converted.error is not None:
            return "both raised"
        if self.original.eager_error is not None:
            return "original raised"
        if self.converted.error is not None:
            return "converted failed"
        if self.equivalence is None:
            return "not compared"
        return "ok" if self.equivalence.ok else "MISMATCH"

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_json(self) -> dict[str, Any]:
        return {
            "size": self.size,
            "inputs": self.inputs,
            "status": self.status,
            "ok": self.ok,
            "input_error": self.input_error.to_json() if self.input_error else None,
            "original": self.original.to_json(),
            "converted": self.converted.to_json(),
            "speedup": self.speedup,
            "speedup_vs_jit": self.speedup_vs_jit,
            "equivalence": self.equivalence.to_json() if self.equivalence else None,
            "reference": self.reference.to_json() if self.reference else None,
            "reference_equivalence": (
                self.reference_equivalence.to_json() if self.reference_equivalence else None
            ),
            "converted_over_reference": self.reference_ratio,
        }


@dataclass
class BenchResult:
    """Everything ``autojit bench`` / :func:`autojit.benchmark` measured."""

    function: str
    file: str | None = None
    backend: str | None = None
    device: str | None = None
    device_kind: str | None = None
    jax_version: str | None = None
    repeat: int = 0
    warmup: int = 0
    seed: int | None = None
    static_argnames: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    conversion_error: Failure | None = None
    runs: list[SizeRun] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every run's converted outputs matched the eager original's."""
        return self.conversion_error is None and bool(self.runs) and all(r.ok for r in self.runs)

    @property
    def mismatch(self) -> bool:
        return any(r.status == "MISMATCH" for r in self.runs)

    def __str__(self) -> str:
        from .report import render_text

        return render_text(self)

    @property
    def run(self) -> SizeRun:
        """The first (often only) run."""
        return self.runs[0]

    def to_json(self) -> dict[str, Any]:
        return {
            "function": self.function,
            "file": self.file,
            "ok": self.ok,
            "backend": self.backend,
            "device": self.device,
            "device_kind": self.device_kind,
            "jax_version": self.jax_version,
            "repeat": self.repeat,
            "warmup": self.warmup,
            "seed": self.seed,
            "static_argnames": list(self.static_argnames),
            "changes": list(self.changes),
            "refusals": list(self.refusals),
            "conversion_error": self.conversion_error.to_json() if self.conversion_error else None,
            "runs": [r.to_json() for r in self.runs],
        }
