"""autojit: rewrite Python/JAX functions so that ``jax.jit`` can trace them."""

from __future__ import annotations

from .bench import BenchResult, benchmark
from .decorator import ConversionWarning, convert, do_not_convert, to_code
from .model import Change, Conversion, FunctionConversion, Location, Refusal, StaticArgument
from .pipeline import ConversionError, convert_source

__all__ = [
    "BenchResult",
    "Change",
    "Conversion",
    "ConversionError",
    "ConversionWarning",
    "FunctionConversion",
    "Location",
    "Refusal",
    "StaticArgument",
    "benchmark",
    "convert",
    "convert_source",
    "do_not_convert",
    "to_code",
]
__version__ = "0.1.0"
