"""autojit: rewrite Python/JAX functions so that ``jax.jit`` can trace them."""

from __future__ import annotations

from .model import Change, Conversion, FunctionConversion, Location, Refusal, StaticArgument
from .pipeline import ConversionError, convert_source

__all__ = [
    "Change",
    "Conversion",
    "ConversionError",
    "FunctionConversion",
    "Location",
    "Refusal",
    "StaticArgument",
    "convert_source",
]
__version__ = "0.1.0"
